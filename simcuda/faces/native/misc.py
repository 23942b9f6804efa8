"""Native decoders of issue 10's entries (several devices, module globals, parameter info, batched copies, 3D
batched copies).

Mirrors: the C entry points as ``cuda/bindings/cydriver.pxd`` (cuda-bindings 13.5) declares them. Each decoder
reads its C arguments (strings, struct arrays) into the values the Python faces pass and calls the same core
operation; the rules are the core's. Registered in :data:`simcuda.faces.native.adapters.PARTICULAR`.
"""
from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

from ..._generated.entry_table import Entry
from ._shared import drv as _drv

Body = Callable[..., int]


def device_get_pci_bus_id(entry: Entry, ptds: bool) -> Body:
    """cuDeviceGetPCIBusId ``(char *pciBusId, int len, CUdevice dev)``: the location, NUL-terminated, in at most
    ``len`` bytes."""
    def body(out: int | None, length: int, dev: int) -> int:
        d = _drv()
        d.require_arg(bool(out), "pciBusId", entry.name)
        s = d.device_get_pci_bus_id(length, dev).encode() + b"\0"
        ctypes.memmove(out or 0, s, min(len(s), length))
        return 0
    return body


def device_get_by_pci_bus_id(entry: Entry, ptds: bool) -> Body:
    """cuDeviceGetByPCIBusId ``(CUdevice *dev, const char *pciBusId)``."""
    def body(out: int | None, bus_id: bytes | None) -> int:  # a const char* arrives as bytes (None: NULL)
        d = _drv()
        d.require_arg(bool(out), "dev", entry.name)
        text = None if bus_id is None else bus_id.decode("latin-1")
        ctypes.c_int.from_address(out or 0).value = d.device_get_by_pci_bus_id(text)
        return 0
    return body


def get_global(method: str) -> Callable[[Entry, bool], Body]:
    """cuModuleGetGlobal / cuLibraryGetGlobal ``(CUdeviceptr *dptr, size_t *bytes, CUmodule|CUlibrary h, const
    char *name)``: either output may be NULL (not both: INVALID_VALUE) [D]."""
    def make(entry: Entry, ptds: bool) -> Body:
        def body(dptr: int | None, nbytes: int | None, h: int | None, name: bytes | None) -> int:
            d = _drv()  # a const char* arrives as bytes (None: NULL)
            d.require_arg(bool(dptr) or bool(nbytes), "dptr", entry.name)
            addr, size = getattr(d, method)(h or 0, None if name is None else name.decode("utf-8", "replace"))
            if dptr:
                ctypes.c_uint64.from_address(dptr).value = addr
            if nbytes:
                ctypes.c_size_t.from_address(nbytes).value = size
            return 0
        return body
    return make


def memcpy_batch(entry: Entry, ptds: bool) -> Body:
    """cuMemcpyBatchAsync (13000) ``(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
    CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, CUstream hStream)``: the arrays read with the
    generated layouts; NULL arrays read as empty (the core then refuses the batch)."""
    from ..._generated import cydriver_ctypes as C

    def arr(t: Any, at: int | None, n: int) -> list[int]:
        return [int(v or 0) for v in (t * n).from_address(at)] if at and n else []

    def body(dsts: int | None, srcs: int | None, sizes: int | None, count: int, attrs: int | None,
             idxs: int | None, nattrs: int, h: int | None) -> int:
        d = _drv()
        a: Any = (C.CUmemcpyAttributes * nattrs).from_address(attrs) if attrs and nattrs else []
        d.memcpy_batch(arr(ctypes.c_uint64, dsts, count), arr(ctypes.c_uint64, srcs, count),
                       arr(ctypes.c_size_t, sizes, count), [int(x.srcAccessOrder) for x in a],
                       arr(ctypes.c_size_t, idxs, nattrs), h or (2 if ptds else 0), entry.name)
        return 0
    return body


def memcpy3d_batch(entry: Entry, ptds: bool) -> Body:
    """cuMemcpy3DBatchAsync (13000) ``(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList, unsigned long long flags,
    CUstream hStream)``: the ops read with the generated layout (the operand union by its members); a NULL list
    reads as empty (the core then refuses the batch)."""
    from ..._core.memory.batch_entries import Op3D, Operand3D
    from ..._generated import cydriver_ctypes as C

    def operand(o: Any) -> Any:
        p = o.op.ptr
        return Operand3D(int(o.type), int(p.ptr or 0), int(p.rowLength), int(p.layerHeight),
                         int(o.op.array.array or 0))

    def body(num: int, ops: int | None, flags: int, h: int | None) -> int:
        a: Any = (C.CUDA_MEMCPY3D_BATCH_OP * num).from_address(ops) if ops and num else []
        _drv().memcpy3d_batch([Op3D(operand(x.src), operand(x.dst), int(x.extent.width), int(x.extent.height),
                                    int(x.extent.depth), int(x.srcAccessOrder), int(x.flags)) for x in a],
                              int(flags), h or (2 if ptds else 0), entry.name)
        return 0
    return body


#: the decoder kinds these entries' rows name (merged into adapters.KINDS): ``(entry, ptds)`` -> the body
KINDS: dict[str, Callable[..., Body]] = {
    "device_get_pci_bus_id": device_get_pci_bus_id,
    "device_get_by_pci_bus_id": device_get_by_pci_bus_id,
    "module_get_global": get_global("module_get_global"),
    "library_get_global": get_global("library_get_global"),
    "memcpy_batch": memcpy_batch,
    "memcpy3d_batch": memcpy3d_batch,
}
