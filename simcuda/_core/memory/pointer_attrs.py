"""Pointer attributes (``cuPointerGetAttribute``, ``cuPointerGetAttributes``): how each ``CUpointer_attribute`` is
read from what the driver knows of a pointer (its allocation or host record, its VMM mapping, the current context).

A table (:data:`POINTER_READERS`) that the VMM entries read (``VirtualMemory._pointer_value``); it knows nothing of
the faces. The rules for a pointer CUDA does not know, and the NULL defaults of the non-strict form, stay there.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import CUresult, DriverError
from .memory_model import KIND_DEVICE, KIND_MANAGED, KIND_VMM, Allocation, HostRecord


class PointerFacts:
    """What cuPointerGetAttribute reads of a pointer: its allocation ``a`` or host record ``rec``, VMM mapping ``m``,
    context, start, size, buffer id, and the calling thread's current context ``cur``."""

    __slots__ = ("ptr", "a", "rec", "m", "ctx", "start", "size", "buffer_id", "strict", "cur")

    def __init__(self, ptr: int, a: Allocation | None, rec: HostRecord | None, strict: bool, cur: Any) -> None:
        held: Allocation | HostRecord = a if a is not None else rec  # type: ignore[assignment]  # one is set
        self.ptr, self.a, self.rec, self.strict, self.cur = ptr, a, rec, strict, cur
        self.m: Any = a.vmm if a is not None else None  # a simcuda._core.memory.vmm_entries.Mapping, or None
        self.ctx, self.start, self.size = held.ctx, held.start, held.size
        self.buffer_id: int = held.buffer_id

    def no(self, why: str) -> Any:
        """INVALID_VALUE with ``why`` when strict, else the NULL default 0."""
        if self.strict:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"cuPointerGetAttribute: {why}")
        return 0


def _device_pointer(f: PointerFacts) -> Any:
    """CU_POINTER_ATTRIBUTE_DEVICE_POINTER (3): the address itself, given a current context that can map it."""
    if f.cur is None:
        if f.strict:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_CONTEXT,
                              "cuPointerGetAttribute: DEVICE_POINTER needs a current context")
        return 0
    if f.rec is not None and not f.cur.device.spec.host_mapped_memory:
        return f.no(f"0x{f.ptr:x} is host memory and device {f.cur.device.ordinal} cannot map host memory")
    return f.ptr


def _host_pointer(f: PointerFacts) -> Any:
    """CU_POINTER_ATTRIBUTE_HOST_POINTER (4): the address, for host or managed memory."""
    if f.a is not None and f.a.kind != KIND_MANAGED:
        return f.no(f"0x{f.ptr:x} is device memory, which the host cannot access directly")
    return f.ptr


def _p2p_tokens(f: PointerFacts) -> Any:
    """CU_POINTER_ATTRIBUTE_P2P_TOKENS (5): not simulated (801)."""
    raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED, "cuPointerGetAttribute: CU_POINTER_ATTRIBUTE_P2P_TOKENS "
                      "(nv-p2p.h tokens) is not simulated")


def _access_flags(f: PointerFacts) -> Any:
    """CU_POINTER_ATTRIBUTE_ACCESS_FLAGS (16): a mapping's access for the current device, else READWRITE (3)."""
    if f.m is not None:
        return f.m.access.get(f.cur.device.ordinal if f.cur is not None else 0, 0)
    return 3  # CU_MEM_ACCESS_FLAGS_PROT_READWRITE


#: CUpointer_attribute value -> how it is read from the facts (22, LOCALITY_DOMAIN_ORDINAL, is -1: not here)
POINTER_READERS: dict[int, Callable[[PointerFacts], Any]] = {
    1: lambda f: f.ctx.handle if f.ctx is not None else 0,  # CONTEXT
    2: lambda f: 1 if f.rec is not None else 2,  # MEMORY_TYPE: HOST or DEVICE
    3: _device_pointer,
    4: _host_pointer,
    5: _p2p_tokens,
    6: lambda f: False,  # SYNC_MEMOPS
    7: lambda f: f.buffer_id,  # BUFFER_ID
    8: lambda f: f.a is not None and f.a.kind == KIND_MANAGED,  # IS_MANAGED
    9: lambda f: f.m.phys.prop.loc_id if f.m is not None else (f.ctx.device.ordinal if f.ctx is not None else 0),
    10: lambda f: f.a is not None and f.a.kind == KIND_DEVICE and f.a.pool is None,  # IS_LEGACY_CUDA_IPC_CAPABLE
    11: lambda f: f.m.reservation.start if f.m is not None else f.start,  # RANGE_START_ADDR
    12: lambda f: f.m.reservation.size if f.m is not None else f.size,  # RANGE_SIZE
    13: lambda f: f.a is None or f.a.mapped or f.a.kind == KIND_VMM,  # MAPPED
    14: lambda f: f.m.phys.prop.handle_types if f.m is not None else 0,  # ALLOWED_HANDLE_TYPES
    15: lambda f: bool(f.m is not None and f.m.phys.prop.rdma),  # IS_GPU_DIRECT_RDMA_CAPABLE
    16: _access_flags,
    17: lambda f: f.a.pool.handle if f.a is not None and f.a.pool is not None else 0,  # MEMPOOL_HANDLE
    18: lambda f: f.size,  # MAPPING_SIZE
    19: lambda f: f.start,  # MAPPING_BASE_ADDR
    20: lambda f: f.m.phys.block_id if f.m is not None else f.buffer_id,  # MEMORY_BLOCK_ID
    21: lambda f: bool(f.m is not None and f.m.phys.prop.compression),  # IS_HW_DECOMPRESS_CAPABLE
}
