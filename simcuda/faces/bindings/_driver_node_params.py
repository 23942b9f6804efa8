"""The tuple face's conversions between the node parameter structs of the real module (``CUDA_KERNEL_NODE_PARAMS``,
``CUgraphNodeParams``...) and the core's node records, which the graph functions
(:mod:`simcuda.faces.bindings._driver_graphs`) use.
"""
from __future__ import annotations

import functools as _functools
from collections.abc import Callable as _Callable
from typing import Any, Optional  # noqa: F401  (the real module exports both names)

from ..._core.memory.memory_model import HOST as _HOST
from ..._core.memory.memory_model import CopyParams as _CopyParams
from ..._core.memory.memory_model import MemsetParams as _MemsetParams
from ..._core.objects import MemOp as _MemOp
from . import _driver_types as _T
from . import _kernel_params as _KP
from ._driver_face import (
    _NS,
    _OK,
    _CUfunction,
    _CUgraphExec,
    _CUgraphNode,
    _CUhostFn,
    _drv,
    _h,
    _mk_ctx,
    _mk_dptr,
    _mk_event,
    _mk_graph,
    _Result,
)
from ._driver_memory import _MT_DEVICE, _MT_HOST, _MT_UNIFIED, _copy_struct
from ._driver_modules import _kernel_args

# =========================================================================== graphs
# -- graph node parameter structs <-> core parameters -----------------------------------------------
_NT_KERNEL, _NT_MEMCPY, _NT_MEMSET, _NT_HOST, _NT_GRAPH, _NT_EMPTY, _NT_WAIT, _NT_RECORD = 0, 1, 2, 3, 4, 5, 6, 7
_NT_SIGNAL, _NT_EXT_WAIT, _NT_ALLOC, _NT_FREE, _NT_BATCH = 8, 9, 10, 11, 12
_NT_COND = 13  # conditional nodes (topic: conditional)


def _kernel_spec(d: Any, st: Any, call: str) -> dict[str, Any]:
    """Core kernel spec from a ``CUDA_KERNEL_NODE_PARAMS`` (v1/v2/v3): function (or ``kern``), dims, args."""
    p = st._d
    hf = int(p["func"]) or int(p.get("kern", 0) or 0)
    if p["extra"]:
        d.check_kernel_extra(_KP.given(p["kernelParams"]), p["extra"], call)
    return {"hfunc": hf, "grid": (p["gridDimX"], p["gridDimY"], p["gridDimZ"]),
            "block": (p["blockDimX"], p["blockDimY"], p["blockDimZ"]), "shmem": p["sharedMemBytes"],
            "args": _kernel_args(d, hf, p["kernelParams"], call)}


def _kernel_struct(params: Any, cls_name: str = "CUDA_KERNEL_NODE_PARAMS") -> Any:
    """A ``CUDA_KERNEL_NODE_PARAMS`` describing core kernel parameters (a ``KernelParams``); ``kernelParams`` is
    the address of a ``void**`` array owned by the returned struct (as the driver's copy is owned by the node)."""
    import ctypes
    st = _NS[cls_name]()
    f = params.func
    g = st._d
    g["func"] = _CUfunction._mk(f.handle)
    g["gridDimX"], g["gridDimY"], g["gridDimZ"] = params.grid
    g["blockDimX"], g["blockDimY"], g["blockDimZ"] = params.block
    g["sharedMemBytes"] = params.shmem
    g["ctx"] = _mk_ctx(f.module.ctx.handle if f.module.ctx is not None else 0)
    args = params.args
    if args:
        types = f.param_types if len(f.param_types) == len(args) else [None] * len(args)
        slots = [_KP.arg_slot(t, v) for t, v in zip(types, args)]
        arr = (ctypes.c_void_p * len(slots))(*[ctypes.addressof(s) for s in slots])
        object.__setattr__(st, "_keep", (arr, slots))
        g["kernelParams"] = ctypes.addressof(arr)
    return st


def _memcpy_struct(p: _CopyParams) -> Any:
    """A ``CUDA_MEMCPY3D`` describing core copy parameters (host sides keep the object they were given;
    a unified side, spec 16, reports ``CU_MEMORYTYPE_UNIFIED`` with its address in ``*Device``)."""
    st = _NS["CUDA_MEMCPY3D"]()
    g = st._d
    for pre, kind, obj, x, y, z, pitch, height in (
            ("src", p.src_kind, p.src, p.src_x, p.src_y, p.src_z, p.src_pitch, p.src_height),
            ("dst", p.dst_kind, p.dst, p.dst_x, p.dst_y, p.dst_z, p.dst_pitch, p.dst_height)):
        if p.memory_type(pre) == _MT_UNIFIED:
            g[pre + "MemoryType"], g[pre + "Device"] = _MT_UNIFIED, _mk_dptr(int(obj))
        elif kind == _HOST:
            g[pre + "MemoryType"], g[pre + "Host"] = _MT_HOST, obj
        else:
            g[pre + "MemoryType"], g[pre + "Device"] = _MT_DEVICE, _mk_dptr(int(obj))
        g[pre + "XInBytes"], g[pre + "Y"], g[pre + "Z"], g[pre + "Pitch"], g[pre + "Height"] = x, y, z, pitch, height
    g["WidthInBytes"], g["Height"], g["Depth"] = p.width, p.height, p.depth
    return st


def _memset_from(st: Any) -> _MemsetParams:
    m = st._d
    return _MemsetParams(int(m["dst"]), m["value"], m["elementSize"], m["width"], m["height"], m["pitch"])


def _memset_struct(p: _MemsetParams, cls_name: str = "CUDA_MEMSET_NODE_PARAMS") -> Any:
    st = _NS[cls_name]()
    g = st._d
    g["dst"], g["pitch"], g["value"], g["elementSize"] = _mk_dptr(p.dst), p.pitch, p.value, p.element_size
    g["width"], g["height"] = p.width, p.height
    return st


def _host_from(st: Any) -> dict[str, Any]:
    g = st._d
    return {"fn": int(g["fn"]), "user_data": _T.void_ptr(g["userData"]), "sync_mode": g.get("syncMode", 0)}


def _host_struct(p: Any, cls_name: str = "CUDA_HOST_NODE_PARAMS") -> Any:
    st = _NS[cls_name]()
    fn = p.fn
    st._d["fn"] = _CUhostFn._mk(fn if isinstance(fn, int) else 0)
    st._d["userData"] = p.user_data if p.user_data else 0
    if "syncMode" in st._d:
        st._d["syncMode"] = p.sync_mode
    return st


def _alloc_from(d: Any, st: Any, call: str) -> dict[str, Any]:
    g = st._d
    pp = g["poolProps"]._d
    loc = pp["location"]._d
    count = g["accessDescCount"]
    descs = list(g["accessDescs"])
    if count > len(descs):
        d.require_count(count, len(descs), "accessDescCount", call)
    access = [(a._d["location"]._d["type"], a._d["location"]._d["id"], a._d["flags"]) for a in descs[:count]]
    return {"size": g["bytesize"], "location": (loc["type"], loc["id"]), "alloc_type": pp["allocType"],
            "access": access}


def _alloc_struct(p: Any, cls_name: str = "CUDA_MEM_ALLOC_NODE_PARAMS") -> Any:
    st = _NS[cls_name]()
    g = st._d
    pp = g["poolProps"]._d
    pp["allocType"] = 1  # CU_MEM_ALLOCATION_TYPE_PINNED
    pp["location"]._d["type"], pp["location"]._d["id"] = 1, p.device  # CU_MEM_LOCATION_TYPE_DEVICE
    descs = []
    for t, did, fl in p.access:
        a = _NS["CUmemAccessDesc"]()
        a._d["location"]._d["type"], a._d["location"]._d["id"], a._d["flags"] = t, did, fl
        descs.append(a)
    g["accessDescs"], g["accessDescCount"] = descs, len(descs)
    g["bytesize"], g["dptr"] = p.size, _mk_dptr(p.alloc.start)
    return st


def _mem_ops_from(d: Any, params: list[Any], count: int, call: str) -> list[_MemOp]:
    """``(operation, address, value, flags)`` tuples from ``CUstreamBatchMemOpParams`` (union read by type)."""
    if count > len(params):
        d.require_count(count, len(params), "count (of paramArray)", call)
    ops = []
    for u in params[:count]:
        if not isinstance(u, _NS["CUstreamBatchMemOpParams_union"]):
            raise TypeError("Argument 'paramArray' is not instance of type (expected "
                            "tuple[cydriver.CUstreamBatchMemOpParams,] or list[cydriver.CUstreamBatchMemOpParams,]")
        g = u._d
        op = g["operation"] or next((g[k]._d["operation"] for k in ("waitValue", "writeValue", "flushRemoteWrites",
                                                                    "memoryBarrier") if g[k]._d["operation"]), 0)
        if op in (1, 4):
            s = g["waitValue"]._d
        elif op in (2, 5):
            s = g["writeValue"]._d
        elif op == 3:
            ops.append((op, 0, 0, g["flushRemoteWrites"]._d["flags"]))
            continue
        elif op == 6:
            ops.append((op, 0, 0, g["memoryBarrier"]._d["flags"]))
            continue
        else:
            ops.append((op, 0, 0, 0))  # the core refuses unknown or unsimulated types with INVALID_VALUE
            continue
        value = int(s["value"]) if op in (1, 2) else int(s["value64"])
        ops.append((op, int(s["address"]), value, s["flags"]))
    return ops


def _mem_op_struct(op: _MemOp) -> Any:
    u = _NS["CUstreamBatchMemOpParams"]()
    kind, addr, value, flags = op
    u._d["operation"] = kind
    key = {1: "waitValue", 4: "waitValue", 2: "writeValue", 5: "writeValue", 3: "flushRemoteWrites",
           6: "memoryBarrier"}.get(kind)
    if key is not None:
        s = u._d[key]._d
        s["operation"] = kind
        s["flags"] = flags
        if "address" in s:
            s["address"] = _mk_dptr(addr)
            if kind in (1, 2):
                s["value"] = _NS["cuuint32_t"](value)
            else:
                s["value64"] = _NS["cuuint64_t"](value)
    return u


def _batch_from(d: Any, st: Any, call: str) -> dict[str, Any]:
    g = st._d
    return {"ops": _mem_ops_from(d, list(g["paramArray"]), g["count"], call), "flags": g["flags"],
            "ctx": int(g["ctx"])}


def _batch_struct(p: Any, cls_name: str = "CUDA_BATCH_MEM_OP_NODE_PARAMS") -> Any:
    st = _NS[cls_name]()
    g = st._d
    g["ctx"] = _mk_ctx(p.ctx.handle if p.ctx is not None else 0)
    g["paramArray"] = [_mem_op_struct(op) for op in p.ops]
    g["count"], g["flags"] = len(p.ops), p.flags
    return st


def _ext_from(d: Any, st: Any, wait: bool, call: str) -> dict[str, Any]:
    g = st._d
    n = g["numExtSems"]
    sems, params = list(g["extSemArray"]), list(g["paramsArray"])
    if n > len(sems) or n > len(params):
        d.require_count(n, min(len(sems), len(params)), "numExtSems (of extSemArray and paramsArray)", call)
    values = []
    for sp in params[:n]:
        q = sp._d["params"]._d
        km = q["keyedMutex"]._d
        values.append((q["fence"]._d["value"], km["key"], km.get("timeoutMs", 0), sp._d["flags"]))
    return {"sems": [int(s) for s in sems[:n]], "values": values}


def _ext_struct(p: Any, wait: bool, cls_name: str) -> Any:
    st = _NS[cls_name]()
    g = st._d
    g["extSemArray"] = [_NS["CUexternalSemaphore"](h) for h in p.sems]
    pcls = _NS["CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS" if wait else "CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS"]
    out = []
    for fence, key, timeout, flags in p.values:
        sp = pcls()
        q = sp._d["params"]._d
        q["fence"]._d["value"] = fence
        q["keyedMutex"]._d["key"] = key
        if wait:
            q["keyedMutex"]._d["timeoutMs"] = timeout
        sp._d["flags"] = flags
        out.append(sp)
    g["paramsArray"], g["numExtSems"] = out, len(out)
    return st


# CUgraphNodeParams member per node type: (field, core spec reader)
_GNP_FIELD = {_NT_KERNEL: "kernel", _NT_MEMCPY: "memcpy", _NT_MEMSET: "memset", _NT_HOST: "host", _NT_GRAPH: "graph",
              _NT_EMPTY: None, _NT_WAIT: "eventWait", _NT_RECORD: "eventRecord", _NT_SIGNAL: "extSemSignal",
              _NT_EXT_WAIT: "extSemWait", _NT_ALLOC: "alloc", _NT_FREE: "free", _NT_BATCH: "memOp",
              _NT_COND: "conditional"}


def _gnp_spec(d: Any, np_: Any, call: str) -> tuple[int, Any]:
    """``(node type, core spec)`` from a ``CUgraphNodeParams`` (a tagged union read by ``type``)."""
    t = np_._d["type"]
    if t not in _GNP_FIELD:
        d.check_node_type(t, call)
    f = _GNP_FIELD[t]
    m: Any = np_._d[f] if f else None  # the member struct (None for an EMPTY node)
    if t == _NT_KERNEL:
        return t, _kernel_spec(d, m, call)
    if t == _NT_MEMCPY:
        return t, _copy_struct(d, m._d["copyParams"], call, True)
    if t == _NT_MEMSET:
        return t, _memset_from(m)
    if t == _NT_HOST:
        return t, _host_from(m)
    if t == _NT_GRAPH:
        return t, (int(m._d["graph"]), m._d["ownership"])
    if t in (_NT_WAIT, _NT_RECORD):
        return t, int(m._d["event"])
    if t in (_NT_SIGNAL, _NT_EXT_WAIT):
        return t, _ext_from(d, m, t == _NT_EXT_WAIT, call)
    if t == _NT_ALLOC:
        return t, _alloc_from(d, m, call)
    if t == _NT_FREE:
        return t, int(m._d["dptr"])
    if t == _NT_BATCH:
        return t, _batch_from(d, m, call)
    if t == _NT_COND:
        return t, _cond_from(m)
    return t, None


def _gnp_struct(t: int, p: Any) -> Any:
    """A ``CUgraphNodeParams`` describing a node of type ``t`` with core parameters ``p``."""
    np_ = _NS["CUgraphNodeParams"]()
    g = np_._d
    g["type"] = t
    if t == _NT_KERNEL:
        g["kernel"] = _kernel_struct(p, "CUDA_KERNEL_NODE_PARAMS_v3")
    elif t == _NT_MEMCPY:
        g["memcpy"]._d["copyParams"] = _memcpy_struct(p)
    elif t == _NT_MEMSET:
        g["memset"] = _memset_struct(p, "CUDA_MEMSET_NODE_PARAMS_v2")
    elif t == _NT_HOST:
        g["host"] = _host_struct(p, "CUDA_HOST_NODE_PARAMS_v2")
    elif t == _NT_GRAPH:
        g["graph"]._d["graph"] = _mk_graph(p.graph.handle)
        g["graph"]._d["ownership"] = -1  # CU_GRAPH_CHILD_GRAPH_OWNERSHIP_INVALID: set on query
    elif t in (_NT_WAIT, _NT_RECORD):
        g["eventWait" if t == _NT_WAIT else "eventRecord"]._d["event"] = _mk_event(p.event.handle)
    elif t in (_NT_SIGNAL, _NT_EXT_WAIT):
        g["extSemSignal" if t == _NT_SIGNAL else "extSemWait"] = _ext_struct(
            p, t == _NT_EXT_WAIT, "CUDA_EXT_SEM_WAIT_NODE_PARAMS_v2" if t == _NT_EXT_WAIT else
            "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS_v2")
    elif t == _NT_ALLOC:
        g["alloc"] = _alloc_struct(p, "CUDA_MEM_ALLOC_NODE_PARAMS_v2")
    elif t == _NT_FREE:
        g["free"]._d["dptr"] = _mk_dptr(p.dptr)
    elif t == _NT_BATCH:
        g["memOp"] = _batch_struct(p, "CUDA_BATCH_MEM_OP_NODE_PARAMS_v2")
    elif t == _NT_COND:
        _cond_struct(p, g["conditional"])
    return np_


# -- conditional nodes (topic: conditional) -------------------------------------------------------------------------
def _cond_from(m: Any) -> dict[str, Any]:
    """The core spec of a ``CUDA_CONDITIONAL_NODE_PARAMS`` (``graph_add_node``): handle, type, size, context."""
    g = m._d
    return {"handle": int(g["handle"]), "type": int(g["type"]), "size": int(g["size"]), "ctx": int(g["ctx"])}


def _cond_struct(p: Any, st: Any) -> None:
    """Fill ``CUDA_CONDITIONAL_NODE_PARAMS`` ``st`` from a node's ``ConditionalParams`` (cuGraphNodeGetParams)."""
    g = st._d
    g["handle"] = _NS["CUgraphConditionalHandle"](p.handle.handle)
    g["type"] = p.ctype
    g["size"] = len(p.bodies)
    g["phGraph_out"] = [_mk_graph(b.handle) for b in p.bodies]
    g["ctx"] = _mk_ctx(p.ctx.handle if p.ctx is not None else 0)


def _node_params(hNode: Any, ntype: Any) -> Any:
    return _drv().graph_node_get_params(_h(hNode, _CUgraphNode), ntype)[1]


def _exec_set(hGraphExec: Any, hNode: Any, ntype: int, spec: Any) -> _Result:
    _drv().graph_exec_node_set_params(_h(hGraphExec, _CUgraphExec), _h(hNode, _CUgraphNode), ntype, spec)
    return _OK


def _copy_reader(d: Any, st: Any, call: str, three_d: bool) -> Any:
    return _copy_struct(d, st, call, three_d)


def _no_driver(read: _Callable[[Any], Any], d: Any, st: Any, call: str) -> Any:
    return read(st)


def _ext_reader(d: Any, st: Any, call: str, wait: bool) -> Any:
    return _ext_from(d, st, wait, call)


#: the tuple face's struct readers, by the struct type the wrapper declares: the face's struct object -> what the
#: core takes for it, the records and dicts :data:`simcuda.faces.native.structs.READERS` reads from the C struct;
#: the executor (:attr:`simcuda.faces.bindings._executor.FaceSpec.readers`) reads every row's struct argument
#: with them (a NULL struct is INVALID_VALUE before a reader runs)
READERS: dict[str, _Callable[[Any, Any, str], Any]] = {
    "CUDA_KERNEL_NODE_PARAMS": _kernel_spec, "CUDA_MEM_ALLOC_NODE_PARAMS": _alloc_from,
    "CUDA_BATCH_MEM_OP_NODE_PARAMS": _batch_from,
    # the copies' 2D and 3D structs, the readers that need no driver, the external semaphores' signal and wait
    **{f"CUDA_MEMCPY{n}D": _functools.partial(_copy_reader, three_d=n == 3) for n in (2, 3)},
    **{t: _functools.partial(_no_driver, f) for t, f in (("CUDA_MEMSET_NODE_PARAMS", _memset_from),
                                                         ("CUDA_HOST_NODE_PARAMS", _host_from))},
    **{f"CUDA_EXT_SEM_{k}_NODE_PARAMS": _functools.partial(_ext_reader, wait=k == "WAIT") for k in ("SIGNAL", "WAIT")},
}
