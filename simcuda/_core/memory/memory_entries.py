"""Memory: device, managed and pinned host allocations, copies and sets, arrays (spec 3.8, 3.10, 5.2, 6); the
stream-ordered allocations and memory pools are in :mod:`simcuda._core.memory.pool_entries`."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .. import process
from ..capture import capture_enqueue as capq
from ..capture import capture_rules as cap
from ..errors import CUresult, DriverError
from ..objects import Context
from ..state import DriverState, entry
from . import hostmem
from .memory_model import (
    KIND_DEVICE,
    KIND_GRAPH,
    KIND_MANAGED,
    CopyParams,
    MemsetParams,
    check_copy,
    check_memset,
    do_copy,
    do_memset,
    not_vmm,
)


class _Array:
    """A CUDA array (cuArrayCreate): dimensions and format only; its contents are not simulated."""

    __slots__ = ("ctx", "dims", "fmt", "channels", "destroyed")

    def __init__(self, ctx: Context, dims: tuple[int, int, int], fmt: int, channels: int) -> None:
        self.ctx, self.dims, self.fmt, self.channels, self.destroyed = ctx, dims, fmt, channels, False


class Memory(DriverState):
    """Memory: device, managed and pinned host allocations, copies and sets, arrays of the simulated driver.

    Entries: ``cuMemAlloc*``, ``cuMemFree*``, ``cuMemHost*``, ``cuMemcpy*``, ``cuMemsetD*``,
    ``cuMemGetInfo``, ``cuMemGetAddressRange``, ``cuArrayCreate``/``Destroy`` (the stream-ordered ones and the
    memory pools: :class:`~simcuda._core.memory.pool_entries.Pools`).
    """
    # ------------------------------------------------------------------ memory
    @entry
    def mem_alloc(self, size: int, call: str = "cuMemAlloc", managed: bool = False, flags: int = 1,
                  allow_zero: bool = False) -> int:
        """cuMemAlloc / cuMemAllocManaged (and the runtime's cudaMalloc*). Errors: 201 no context; 1 size 0, or
        managed ``flags`` other than CU_MEM_ATTACH_GLOBAL (1) / CU_MEM_ATTACH_HOST (2); 801 managed memory on a device
        without it (``DeviceSpec.managed_memory``; cuMemAllocManaged docstring [D]); 2 out of memory; 900 (spec 5.2).
        ``allow_zero``: size 0 succeeds with address 0 (the runtime's rule for cudaMalloc(0))."""
        t = self.threads.current()
        ctx = self.threads.ctx_current(t)
        if managed and flags not in (1, 2):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call} flags {flags} must be CU_MEM_ATTACH_GLOBAL (1) or CU_MEM_ATTACH_HOST (2)")
        if managed and not ctx.device.spec.managed_memory:  # vmm topic: the feature switch (attribute 83)
            raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                              f"{call}: device {ctx.device.ordinal} has no managed memory "
                              "(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY is 0; DeviceSpec.managed_memory; the code "
                              "cuMemAllocManaged documents)")
        if allow_zero and size == 0:
            return 0
        self.memory.check_alloc_size(int(size), ctx)
        cap.check_unsafe(self, t, call)
        return self.memory.reserve(int(size), KIND_MANAGED if managed else KIND_DEVICE, ctx).start

    @entry
    def mem_alloc_pitch(self, width: int, height: int, element_size: int) -> tuple[int, int]:
        """cuMemAllocPitch: ``(dptr, pitch)`` with rows padded to 512 bytes."""
        t = self.threads.current()
        ctx = self.threads.ctx_current(t)
        if element_size not in (4, 8, 16) or width <= 0 or height <= 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              "cuMemAllocPitch needs positive width/height and element size 4, 8 or 16")
        pitch = (int(width) + 511) // 512 * 512
        self.memory.check_alloc_size(pitch * int(height), ctx)
        cap.check_unsafe(self, t, "cuMemAllocPitch")
        return self.memory.reserve(pitch * int(height), KIND_DEVICE, ctx).start, pitch

    @entry
    def mem_free(self, dptr: int, call: str = "cuMemFree") -> None:
        """cuMemFree. Errors: 201 no context; 900 (spec 5.2); 1 not the start of a live allocation.

        ``cuMemFree(0)`` succeeds and does nothing (field case C17 uses it as a probe). The free
        synchronises first: work still queued (manual progression) runs before the memory goes, as the
        Programming Guide's implicit synchronisation makes a free wait [D: cudaFree; I: cuMemFree] (not
        while another thread is running queued work whose host function may be waiting for this call).
        """
        t = self.threads.current()
        self.threads.ctx_current(t)
        cap.check_unsafe(self, t, call)
        if not dptr:
            return
        a = not_vmm(self.memory.find(int(dptr)), dptr, call)
        if a is None or a.start != int(dptr):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"0x{int(dptr):x} is not the start of a live device allocation"
                              + self.memory.missing(int(dptr)))
        if a.kind == KIND_GRAPH:
            if a.outstanding is None:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"0x{int(dptr):x} is owned by a graph (MEM_ALLOC node) and no launch has left it "
                                  "allocated; free it with a MEM_FREE node or cuMemFreeAsync in stream order (field "
                                  "case C31)")
            self.scheduler.drain()  # a launch left it allocated: cuMemFree frees it (cuGraphAddMemAllocNode)
            a.outstanding = None
            self.memory.unmap(a)
            return
        if self.scheduler.draining in (0, threading.get_ident()):  # not while another thread runs queued user code
            self.scheduler.drain()  # cuMemFree synchronises: work already enqueued that uses the memory runs first
        self.memory.free(a)

    @entry
    def mem_alloc_host(self, size: int, call: str = "cuMemAllocHost", flags: int = 0, allow_zero: bool = False) -> int:
        """cuMemAllocHost / cuMemHostAlloc (and cudaMallocHost / cudaHostAlloc): real, page-locked-in-name host
        memory; returns its address.

        Under unified addressing every such allocation is mapped into the device at its host address, whatever
        the flags (CUDA Runtime API, "Unified Addressing"): Python kernels reach it there
        (:meth:`~simcuda._core.memory.memory_model.MemorySpace.kernel_view`) and cuMemHostGetDevicePointer returns that
        address.

        DEVICEMAP is accepted on a device that cannot map host memory (``DeviceSpec.host_mapped_memory`` off): "the
        failure is deferred to cuMemHostGetDevicePointer" (cuMemHostAlloc docstring) [D].

        Errors: 201 no context; 1 flag bits outside PORTABLE/DEVICEMAP/WRITECOMBINED, size 0; 900 (spec 5.2);
        2 OUT_OF_MEMORY for more than the machine's physical memory (page-locked memory cannot exceed it) or
        when the process cannot get the memory. ``allow_zero``: size 0 gives address 0 (the runtime's rule).
        """
        t = self.threads.current()
        ctx = self.threads.ctx_current(t)
        if flags & ~0x7:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call} flags 0x{flags:x} have bits outside CU_MEMHOSTALLOC_PORTABLE (1), DEVICEMAP "
                              "(2) and WRITECOMBINED (4)")
        if allow_zero and size == 0:
            return 0
        if size <= 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"host allocation size {size} must be positive")
        cap.check_unsafe(self, t, call)
        limit = hostmem.physical_memory()
        if limit and size > limit:
            raise DriverError(CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                              f"{call} of {size} bytes: page-locked host memory cannot exceed this machine's {limit} "
                              "bytes of physical memory")
        try:
            addr = self.memory.alloc_host(int(size))
            self.memory.note_host(addr, int(size), "pinned", flags, ctx)
            return addr
        except (MemoryError, OverflowError):
            raise DriverError(CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                              f"{call} of {size} bytes: the process could not allocate that much host "
                              "memory") from None

    @entry
    def mem_free_host(self, ptr: int) -> None:
        """cuMemFreeHost. Errors: 1 when ``ptr`` was not returned by cuMemAllocHost; 900 (spec 5.2)."""
        t = self.threads.current()
        self.threads.ctx_current(t)
        cap.check_unsafe(self, t, "cuMemFreeHost")
        if not self.memory.free_host(int(ptr)):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"0x{int(ptr):x} was not allocated with cuMemAllocHost/cuMemHostAlloc")

    @entry
    def mem_host_register(self, ptr: int, size: int, flags: int, unregister: bool = False) -> None:
        """cuMemHostRegister / cuMemHostUnregister: the range is recorded (nothing is page-locked); under unified
        addressing it is mapped into the device at its host address whatever the flags (cudaHostRegisterDefault:
        "mapped and portable"), so kernels reach it and cuMemHostGetDevicePointer returns it.

        DEVICEMAP is accepted on a device that cannot map host memory; the failure is deferred to
        cuMemHostGetDevicePointer (cuMemHostRegister docstring) [D].

        Errors: 201 no context; 1 NULL pointer, size 0, unknown flag bits; 900 by spec 5.2; 712 already registered;
        713 (unregister) not registered."""
        t = self.threads.current()
        ctx = self.threads.ctx_current(t)
        if not unregister:
            if not ptr:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, "cuMemHostRegister: the host pointer is NULL")
            if size <= 0:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"cuMemHostRegister: bytesize {size} must be positive")
            if flags & ~0xF:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"cuMemHostRegister flags 0x{flags:x} have bits outside "
                                  "CU_MEMHOSTREGISTER_PORTABLE (1), DEVICEMAP (2), IOMEMORY (4) and READ_ONLY (8)")
        cap.check_unsafe(self, t, "cuMemHostUnregister" if unregister else "cuMemHostRegister")
        if unregister:
            if self.memory.registered.pop(int(ptr), None) is None:
                raise DriverError(CUresult.CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, f"0x{int(ptr):x} is not registered")
            self.memory.host_info.pop(int(ptr), None)
        else:
            if int(ptr) in self.memory.registered:
                raise DriverError(CUresult.CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                                  f"0x{int(ptr):x} is already registered")
            self.memory.registered[int(ptr)] = int(size)
            self.memory.note_host(int(ptr), int(size), "registered", flags, ctx)

    @entry
    def mem_get_info(self) -> tuple[int, int]:
        """cuMemGetInfo: ``(free, total)`` bytes of the current context's device.

        ``free`` is the smaller of the device's free memory (``total_mem`` less the live allocations) and
        what is left of the simulator's host budget (``Options.host_memory_budget``, shared by every driver
        of the process) (spec 17, 13.A) [I], so an allocation of ``free`` bytes succeeds. Errors: 201 no
        context."""
        ctx = self.threads.ctx_current()
        total = ctx.device.spec.total_mem
        left = max(0, self.memory.budget - process.SPACE.committed)
        return min(total - self.memory.in_use, left), total

    @entry
    def mem_get_address_range(self, dptr: int) -> tuple[int, int]:
        """cuMemGetAddressRange: ``(base, size)`` of the allocation holding ``dptr`` (an interior address too): a
        device allocation, or pinned host memory from ``cuMemHostAlloc``/``cuMemAllocHost``, whose device pointer
        is its host address under unified addressing [O: numba-cuda's ``test_host_alloc_mapped`` sizes a mapped
        array this way on NVIDIA's GPUs; proposal P-76]. Registered host memory is not answered [I].

        Errors: 1 INVALID_VALUE an address in neither."""
        a = self.memory.find(int(dptr))
        if a is not None:
            return a.start, a.size
        rec = self.memory.host_lookup(int(dptr))
        if rec is not None and rec.kind == "pinned":
            return rec.start, rec.size
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"0x{int(dptr):x} is not inside a live device allocation or pinned host allocation"
                          + self.memory.missing(int(dptr)))

    def is_device_pointer(self, ptr: Any) -> bool:
        """True when ``ptr`` is an int inside a live simulated device allocation (read under the lock)."""
        if not isinstance(ptr, int):
            return False
        with self._lock:
            return self.memory.find(ptr) is not None

    def memcpy_unified(self, dst: int, src: int, nbytes: int, h: int | None, call: str) -> None:
        """cuMemcpy / cuMemcpyAsync: a copy between unified-addressing pointers (``h`` None: the synchronous one).

        Each side is device memory when its address lies in a simulated allocation, else host memory (an address
        the host side then checks); the asynchronous form records ``CU_MEMORYTYPE_UNIFIED`` for both sides of a
        captured node (spec 16, 9). Errors: those of :meth:`memcpy`. Every face that takes unified addresses
        (the tuple face, the native adapters) calls this, so the sides are decided once."""
        unified = h is not None
        self.memcpy(CopyParams(self.unified_side(src), src, self.unified_side(dst), dst, nbytes,
                               src_unified=unified, dst_unified=unified), h, call)

    def unified_side(self, addr: int) -> str:
        """What a unified address is on one side of a copy: ``DEVICE`` inside a simulated allocation, else
        ``HOST`` (cuMemcpy's rule, and a ``CU_MEMORYTYPE_UNIFIED`` side of a ``CUDA_MEMCPY2D/3D``)."""
        return self.memory.unified_side(addr)

    @entry
    def memcpy(self, p: CopyParams, h: int | None, call: str) -> None:
        """Every cuMemcpy* form. ``h`` None: synchronous (legacy or per-thread stream, spec 6).

        Errors: 1 bad ranges; capture rules through the enqueue path (3.8) or the sync rules (6).
        """
        self._copy_or_set(p, h, call, "memcpy", check_copy, do_copy)

    @entry
    def memset(self, p: MemsetParams, h: int | None, call: str) -> None:
        """Every cuMemsetD* form. ``h`` None: synchronous. Errors: 1 bad range/value/alignment."""
        self._copy_or_set(p, h, call, "memset", check_memset, do_memset)

    def _copy_or_set(self, p: Any, h: int | None, call: str, kind: str, check: Callable[[Any, Any], None],
                     run: Callable[[Any, Any], None]) -> None:
        """A copy or set (``kind`` ``"memcpy"``/``"memset"``): its arguments checked first (spec 3 preamble),
        then through the enqueue path (spec 3.8) on stream ``h``, or (``h`` None) as a synchronous call on the
        legacy stream or the caller's per-thread stream (spec 6, 6.1)."""
        t = self.threads.current()
        if h is None:
            ctx = self.threads.ctx_current(t)
            check(self.memory, p)
            s = (ctx.per_thread_stream(t, self.handles.next_stream_id) if self.resolve_per_thread_mode()
                 else ctx.legacy_stream())
            kind = "sync_" + kind
        else:
            s = self._stream(h, t)
            check(self.memory, p)
        capq.enqueue(self, s, capq.Op(capq.OPS[kind], call, p, lambda: run(self.memory, p)))

    @entry
    def array_create(self, width: int, height: int, fmt: int, channels: int, depth: int = 0) -> int:
        """cuArrayCreate / cuArray3DCreate (bookkeeping only: arrays hold no simulated data).

        Errors: 201 no context; 1 zero width or channels not 1, 2 or 4; 900 by spec 5.2 (array creation is
        potentially unsafe [H; I for CUDA]).
        """
        t = self.threads.current()
        ctx = self.threads.ctx_current(t)
        if width <= 0 or channels not in (1, 2, 4):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"array width {width} must be positive and NumChannels {channels} 1, 2 or 4")
        cap.check_unsafe(self, t, "cuArrayCreate")
        arr = _Array(ctx, (int(width), int(height), int(depth)), int(fmt), int(channels))
        return self.handles.add(arr)

    @entry
    def array_destroy(self, h: int) -> None:
        """cuArrayDestroy. Errors: 400 bad handle; 900 by spec 5.2 [H; I]."""
        arr = self.handles.get(h) if h else None
        if not isinstance(arr, _Array) or arr.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE, "not a live array handle")
        cap.check_unsafe(self, self.threads.current(), "cuArrayDestroy")
        arr.destroyed = True
