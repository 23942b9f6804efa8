"""Struct parameters of the native route: C structs read (and written back) through the generated ctypes layouts.

Mirrors: the struct arguments of the driver entries as ``cuda/bindings/cydriver.pxd`` (cuda-bindings 13.5)
declares them; the layouts are :mod:`simcuda._generated.cydriver_ctypes`, never typed by hand. Each decoder
turns a struct into the same core values the tuple face (:mod:`simcuda.bindings.driver`) makes from the
wrapper's struct object and calls the same core operation: the rules (capture restrictions, CIG checks, the
update rules) are the core's. The decoders are registered in :data:`simcuda.native.adapters.PARTICULAR`.
"""
from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

from .._core.errors import DriverError
from .._generated import cydriver_ctypes as C
from .._generated.entry_table import Entry


def _drv() -> Any:
    from .adapters import _drv as current
    return current()


def ctx_create_params(addr: int | None) -> tuple[tuple[int, int] | None, bool]:
    """``(cig, exec_affinity)`` of a ``CUctxCreateParams*`` as the tuple face reads a ``CUctxCreateParams``:
    CIG parameters from the first ``cigParams`` entry (``(sharedDataType, sharedData)``), exec affinity when
    its array or its count is set. NULL: neither."""
    if not addr:
        return None, False
    p = C.CUctxCreateParams.from_address(addr)
    affinity = bool(p.execAffinityParams) or p.numExecAffinityParams > 0
    cig = None
    if p.cigParams:
        c = p.cigParams[0]
        cig = (int(c.sharedDataType), int(c.sharedData or 0))
    return cig, affinity


def ctx_create(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuCtxCreate (12050) ``(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags,
    CUdevice dev)`` and cuCtxCreate_v2 (3020) ``(CUcontext *pctx, unsigned int flags, CUdevice dev)``."""
    with_params = len(entry.params) == 4

    def body(out: int | None, *args: Any) -> int:
        d = _drv()
        d.require_arg(bool(out), "pctx", entry.name)
        cig, affinity = ctx_create_params(args[0]) if with_params else (None, False)
        flags, dev = args[-2], args[-1]
        ctypes.c_void_p.from_address(out or 0).value = d.ctx_create(flags, dev, cig=cig, exec_affinity=affinity)
        return 0
    return body


def graph_exec_update(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuGraphExecUpdate (12000) ``(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo
    *resultInfo)``: the result info is written on success and, as the driver does, on an update failure
    (910, with the core's ``update_info``)."""
    def body(hexec: int | None, hgraph: int | None, info: int | None) -> int:
        d = _drv()
        d.require_arg(bool(info), "resultInfo", entry.name)
        out = C.CUgraphExecUpdateResultInfo.from_address(info or 0)
        try:
            result, enode, efrom = d.graph_exec_update(hexec or 0, hgraph or 0)
        except DriverError as e:
            got = getattr(e, "update_info", None)
            if got is not None:
                out.result, out.errorNode, out.errorFromNode = got[0], got[1] or None, got[2] or None
            raise
        out.result, out.errorNode, out.errorFromNode = result, enode or None, efrom or None
        return 0
    return body


#: the declared C name -> its decoder (merged into adapters.PARTICULAR)
DECODERS: dict[str, Callable[[Entry, bool], Callable[..., int]]] = {
    "cuCtxCreate": ctx_create,
    "cuCtxCreate_v2": ctx_create,
    "cuGraphExecUpdate": graph_exec_update,
}
