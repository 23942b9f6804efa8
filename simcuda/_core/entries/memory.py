"""Memory: device, managed, pinned host and stream-ordered allocations, memory pools, copies and sets, arrays (spec 3.8,
3.10, 5.2, 6)."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .. import capture as cap
from .. import hostmem
from .. import nodes as nd
from ..errors import CUresult, DriverError
from ..memory import (
    DEVICE,
    HOST,
    KIND_DEVICE,
    KIND_GRAPH,
    KIND_MANAGED,
    KIND_VMM,
    CopyParams,
    MemsetParams,
    check_copy,
    check_memset,
    do_copy,
    do_memset,
)
from ..objects import Context, Device, MemPool, Stream
from ..state import entry
from ..work import Work

#: ``CUmemPool_attribute`` values (simcuda._generated.driver_enums)
_ATTR_RELEASE_THRESHOLD, _ATTR_RESERVED_CURRENT, _ATTR_RESERVED_HIGH = 4, 5, 6
_ATTR_USED_CURRENT, _ATTR_USED_HIGH = 7, 8
_POOL_ATTR_NAMES = {
    1: "CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES", 2: "CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC",
    3: "CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES", 4: "CU_MEMPOOL_ATTR_RELEASE_THRESHOLD",
    5: "CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT", 6: "CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH",
    7: "CU_MEMPOOL_ATTR_USED_MEM_CURRENT", 8: "CU_MEMPOOL_ATTR_USED_MEM_HIGH", 9: "CU_MEMPOOL_ATTR_ALLOCATION_TYPE",
    10: "CU_MEMPOOL_ATTR_EXPORT_HANDLE_TYPES", 11: "CU_MEMPOOL_ATTR_LOCATION_ID", 12: "CU_MEMPOOL_ATTR_LOCATION_TYPE",
    13: "CU_MEMPOOL_ATTR_MAX_POOL_SIZE", 14: "CU_MEMPOOL_ATTR_HW_DECOMPRESS_ENABLED",
    15: "CU_MEMPOOL_ATTR_LOCALITY_DOMAIN_ID"}
#: attributes simulated (both calls); cuMemPoolSetAttribute refuses the read-only ones
_POOL_SIMULATED = frozenset({4, 5, 6, 7, 8})
_POOL_READ_ONLY = frozenset({5, 7, 9, 10, 11, 12, 13})


class _Array:
    """A CUDA array (cuArrayCreate): dimensions and format only; its contents are not simulated."""

    __slots__ = ("ctx", "dims", "fmt", "channels", "destroyed")

    def __init__(self, ctx: Context, dims: tuple[int, int, int], fmt: int, channels: int) -> None:
        self.ctx, self.dims, self.fmt, self.channels, self.destroyed = ctx, dims, fmt, channels, False


class Memory(Work):
    """Memory: device, managed, pinned host and stream-ordered allocations, copies and sets, arrays of the simulated
    driver.

    Entries: ``cuMemAlloc*``, ``cuMemFree*``, ``cuMemHost*``, ``cuMemcpy*``, ``cuMemsetD*``,
    ``cuMemGetInfo``, ``cuMemGetAddressRange``, ``cuArrayCreate``/``Destroy``, and the devices' default memory
    pools (``cuDeviceGet/SetMemPool``, ``cuDeviceGetDefaultMemPool``, ``cuMemPoolGet/SetAttribute``).
    """
    # ------------------------------------------------------------------ memory
    def _check_alloc_size(self, size: int, ctx: Context) -> None:
        if size <= 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"allocation size {size} must be positive")
        if self.memory.in_use + size > ctx.device.spec.total_mem:
            raise DriverError(CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                              f"allocating {size} bytes would exceed the simulated device's "
                              f"{ctx.device.spec.total_mem} bytes ({self.memory.in_use} in use)")

    @entry
    def mem_alloc(self, size: int, call: str = "cuMemAlloc", managed: bool = False, flags: int = 1,
                  allow_zero: bool = False) -> int:
        """cuMemAlloc / cuMemAllocManaged (and the runtime's cudaMalloc*). Errors: 201 no context; 1 size 0, or
        managed ``flags`` other than CU_MEM_ATTACH_GLOBAL (1) / CU_MEM_ATTACH_HOST (2); 801 managed memory on a device
        without it (``DeviceSpec.managed_memory``; cuMemAllocManaged docstring [D]); 2 out of memory; 900 (spec 5.2).
        ``allow_zero``: size 0 succeeds with address 0 (the runtime's rule for cudaMalloc(0))."""
        t = self._thread()
        ctx = self._ctx_current(t)
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
        self._check_alloc_size(int(size), ctx)
        cap.check_unsafe(self, t, call)
        return self.memory.reserve(int(size), KIND_MANAGED if managed else KIND_DEVICE, ctx).start

    @entry
    def mem_alloc_pitch(self, width: int, height: int, element_size: int) -> tuple[int, int]:
        """cuMemAllocPitch: ``(dptr, pitch)`` with rows padded to 512 bytes."""
        t = self._thread()
        ctx = self._ctx_current(t)
        if element_size not in (4, 8, 16) or width <= 0 or height <= 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              "cuMemAllocPitch needs positive width/height and element size 4, 8 or 16")
        pitch = (int(width) + 511) // 512 * 512
        self._check_alloc_size(pitch * int(height), ctx)
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
        t = self._thread()
        self._ctx_current(t)
        cap.check_unsafe(self, t, call)
        if not dptr:
            return
        a = self.memory.find(int(dptr))
        if a is not None and a.kind == KIND_VMM:  # vmm topic: mapped memory goes with cuMemUnmap / cuMemRelease
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: 0x{int(dptr):x} is virtual memory mapped with cuMemMap; cuMemUnmap and "
                              "cuMemRelease free it [inferred code]")
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
            self._drain()  # a launch left it allocated: cuMemFree frees it (cuGraphAddMemAllocNode)
            a.outstanding = None
            self.memory.unmap(a)
            return
        if self._draining in (0, threading.get_ident()):  # not while another thread runs queued user code
            self._drain()  # cuMemFree synchronises: work already enqueued that uses the memory runs first
        self.memory.free(a)

    @entry
    def mem_alloc_host(self, size: int, call: str = "cuMemAllocHost", flags: int = 0, allow_zero: bool = False) -> int:
        """cuMemAllocHost / cuMemHostAlloc (and cudaMallocHost / cudaHostAlloc): real, page-locked-in-name host
        memory; returns its address.

        Under unified addressing every such allocation is mapped into the device at its host address, whatever
        the flags (CUDA Runtime API, "Unified Addressing"): Python kernels reach it there
        (:meth:`~simcuda._core.memory.MemorySpace.kernel_view`) and cuMemHostGetDevicePointer returns that address.

        DEVICEMAP is accepted on a device that cannot map host memory (``DeviceSpec.host_mapped_memory`` off): "the
        failure is deferred to cuMemHostGetDevicePointer" (cuMemHostAlloc docstring) [D].

        Errors: 201 no context; 1 flag bits outside PORTABLE/DEVICEMAP/WRITECOMBINED, size 0; 900 (spec 5.2);
        2 OUT_OF_MEMORY for more than the machine's physical memory (page-locked memory cannot exceed it) or
        when the process cannot get the memory. ``allow_zero``: size 0 gives address 0 (the runtime's rule).
        """
        t = self._thread()
        ctx = self._ctx_current(t)
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
        t = self._thread()
        self._ctx_current(t)
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
        t = self._thread()
        ctx = self._ctx_current(t)
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
        """cuMemGetInfo: ``(free, total)`` bytes."""
        ctx = self._ctx_current()
        total = ctx.device.spec.total_mem
        return total - self.memory.in_use, total

    @entry
    def mem_get_address_range(self, dptr: int) -> tuple[int, int]:
        """cuMemGetAddressRange: ``(base, size)``. Errors: 1 not a device address."""
        a = self.memory.find(int(dptr))
        if a is None:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"0x{int(dptr):x} is not inside a live device allocation"
                              + self.memory.missing(int(dptr)))
        return a.start, a.size

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
        return DEVICE if self.is_device_pointer(addr) else HOST

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
        t = self._thread()
        if h is None:
            ctx = self._ctx_current(t)
            check(self.memory, p)
            s = self._per_thread_of(ctx, t) if self._per_thread_mode() else self._legacy_of(ctx)
            kind = "sync_" + kind
        else:
            s = self._stream(h, t)
            check(self.memory, p)
        cap.enqueue(self, s, cap.Op(cap.OPS[kind], call, p, lambda: run(self.memory, p)))

    @entry
    def mem_alloc_async(self, size: int, h: int) -> int:
        """cuMemAllocAsync: during capture a MEM_ALLOC node with a fixed graph-owned address (spec 3.8);
        otherwise a stream-ordered allocation from the current pool of the stream's device."""
        return self._alloc_async(int(size), self._stream(h), None, "cuMemAllocAsync")

    @entry
    def mem_alloc_from_pool_async(self, size: int, pool: int, h: int) -> int:
        """cuMemAllocFromPoolAsync: as :meth:`mem_alloc_async`, from ``pool`` (a MEM_ALLOC node during capture).

        Errors: the stream's preamble; 1 INVALID_VALUE a bad pool handle, size 0; then as cuMemAllocAsync.
        """
        s = self._stream(h)
        return self._alloc_async(int(size), s, self._mem_pool(pool, "cuMemAllocFromPoolAsync"),
                                 "cuMemAllocFromPoolAsync")

    def _alloc_async(self, size: int, s: Stream, pool: MemPool | None, call: str) -> int:
        """A stream-ordered allocation on ``s``: a MEM_ALLOC node when ``s`` captures (graph memory, not the
        pool's), else device memory counted in ``pool`` (None: the device's current pool) until it is freed."""
        ctx = s.ctx
        if size <= 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"allocation size {size} must be positive")
        op = cap.Op(cap.OPS["mem_alloc"], call, None, None)

        def prepare(into: cap.CaptureSequence | None) -> None:
            if into is not None:  # the node's graph-owned address is fixed at once (spec 3.8)
                op.params = nd.MemAllocParams(self.memory.reserve(size, KIND_GRAPH, ctx), size, ctx.device.ordinal)
            else:
                self._check_alloc_size(size, ctx)
        op.prepare = prepare
        node = cap.enqueue(self, s, op)  # CIG 801, invalidated 901, legacy 906 come first
        if node is not None:
            a = op.params.alloc
            a.graph_node = node
            return int(a.start)
        a = self.memory.reserve(size, KIND_DEVICE, ctx)  # device memory, counted in its pool until freed
        a.pool = pool or self._current_pool(ctx.device)
        a.pool.take(size)
        return int(a.start)

    # ------------------------------------------------------------------ memory pools
    def _default_pool(self, dev: Device) -> MemPool:
        """The device's default pool, made (with a handle) on first use."""
        p = dev.default_pool
        if p is None:
            p = dev.default_pool = MemPool(0, dev)
            p.handle = self._handle(p)
        return p

    def _current_pool(self, dev: Device) -> MemPool:
        return dev.current_pool or self._default_pool(dev)

    def _mem_pool(self, h: int, call: str) -> MemPool:
        """A pool handle of this driver, or INVALID_VALUE (the code the pool calls document)."""
        p = self._objs.get(h) if h else None
        if not isinstance(p, MemPool):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: the memory pool handle is NULL" if not h
                              else f"{call}: 0x{h:x} is not a memory pool handle{self._foreign(h)}")
        return p

    @entry
    def device_get_default_mem_pool(self, dev: int) -> int:
        """cuDeviceGetDefaultMemPool: the device's default pool (the same handle every time).

        Errors: 101 INVALID_DEVICE. Needs no context.
        """
        return self._default_pool(self._device(dev)).handle

    @entry
    def device_get_mem_pool(self, dev: int) -> int:
        """cuDeviceGetMemPool: the device's current pool (its default pool unless cuDeviceSetMemPool changed it),
        the pool cuMemAllocAsync allocates from. Errors: 101 INVALID_DEVICE."""
        return self._current_pool(self._device(dev)).handle

    @entry
    def device_set_mem_pool(self, dev: int, pool: int) -> None:
        """cuDeviceSetMemPool: make ``pool`` the device's current pool.

        Errors: 101 INVALID_DEVICE; 1 INVALID_VALUE a bad pool handle, or a pool of another device [I code]
        (the only pools simulated are default pools: cuMemPoolCreate answers 801).
        """
        d = self._device(dev)
        p = self._mem_pool(pool, "cuDeviceSetMemPool")
        if p.device is not d:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuDeviceSetMemPool: {p.label()} is not a pool of device {d.ordinal} [inferred code]")
        d.current_pool = p

    def _pool_attribute(self, p: MemPool, attr: int, call: str, value: int | None = None) -> int:
        """The checks the two pool-attribute calls share, in order: a known ``CUmemPool_attribute`` (1), a value
        the attribute accepts (1), the potentially unsafe class (900, spec 16 and 5.2), a simulated attribute
        (801). Returns the value read (get) or 0 (set, done)."""
        attr = int(attr)
        if attr not in _POOL_ATTR_NAMES:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: {attr} is not a CUmemPool_attribute")
        name = _POOL_ATTR_NAMES[attr]
        if value is not None:
            if attr in _POOL_READ_ONLY:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{call}: {name} is read-only (cuMemPoolSetAttribute does not list it) "
                                  "[inferred code]")
            if attr in (_ATTR_RESERVED_HIGH, _ATTR_USED_HIGH) and value != 0:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{call}: {name} can only be reset, with the value 0 (got {value})")
            if attr == _ATTR_RELEASE_THRESHOLD and not 0 <= value < 1 << 64:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{call}: {name} {value} is not a cuuint64_t byte count")
        cap.check_unsafe(self, self._thread(), call)
        if attr not in _POOL_SIMULATED:
            raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                              f"{call}: {name} is not simulated (the simulator has only the release threshold and "
                              "the reserved/used counters and watermarks of a pool)")
        if value is None:
            return {_ATTR_RELEASE_THRESHOLD: p.release_threshold, _ATTR_RESERVED_CURRENT: p.reserved,
                    _ATTR_RESERVED_HIGH: p.reserved_high, _ATTR_USED_CURRENT: p.used,
                    _ATTR_USED_HIGH: p.used_high}[attr]
        if attr == _ATTR_RELEASE_THRESHOLD:
            p.release_threshold = value
        elif attr == _ATTR_RESERVED_HIGH:
            p.reserved_high = p.reserved
        else:
            p.used_high = p.used
        return 0

    @entry
    def mem_pool_get_attribute(self, pool: int, attr: int) -> int:
        """cuMemPoolGetAttribute: CU_MEMPOOL_ATTR_RELEASE_THRESHOLD (4; default 0), RESERVED_MEM_CURRENT (5),
        RESERVED_MEM_HIGH (6), USED_MEM_CURRENT (7), USED_MEM_HIGH (8), in bytes (``cuuint64_t``).

        Used counts the live stream-ordered allocations made from the pool (cuMemAllocAsync from the device's
        current pool, cuMemAllocFromPoolAsync; not graph allocations, which come from the graph memory pool);
        reserved follows used, as the simulated pool keeps no freed memory [I]; the watermarks are the highest
        values since the last reset.
        Errors, in order: 1 INVALID_VALUE a bad pool or an unknown attribute; 900 during a restricting capture,
        invalidating it (spec 16, 5.2: GLOBAL and THREAD_LOCAL modes; fine in RELAXED); 801 for the other
        attributes (the reuse flags, allocation type, export handle types, location, maximum size...).
        """
        return self._pool_attribute(self._mem_pool(pool, "cuMemPoolGetAttribute"), attr, "cuMemPoolGetAttribute")

    @entry
    def mem_pool_set_attribute(self, pool: int, attr: int, value: int) -> None:
        """cuMemPoolSetAttribute: RELEASE_THRESHOLD (4) to ``value`` bytes; RESERVED_MEM_HIGH (6) or USED_MEM_HIGH
        (8) reset to the current value (``value`` must be 0).

        Fidelity: the threshold is stored and read back; the simulated pool releases freed memory at once
        whatever it says [I].
        Errors, in order: 1 INVALID_VALUE a bad pool, an unknown attribute, a read-only one (5, 7, 9-13) [I code],
        a non-zero value for a watermark, a threshold outside ``cuuint64_t``; 900 during a restricting capture
        (spec 16, 5.2); 801 for the reuse flags (1-3) and the attributes 14-15.
        """
        self._pool_attribute(self._mem_pool(pool, "cuMemPoolSetAttribute"), attr, "cuMemPoolSetAttribute",
                             int(value))

    @entry
    def mem_free_async(self, dptr: int, h: int) -> None:
        """cuMemFreeAsync: during capture a MEM_FREE node; ``dptr`` must be a graph allocation (spec 3.8)."""
        s = self._stream(h)
        a = self.memory.find(int(dptr))
        if a is not None and a.kind == KIND_VMM:  # vmm topic: mapped memory goes with cuMemUnmap / cuMemRelease
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuMemFreeAsync: 0x{int(dptr):x} is virtual memory mapped with cuMemMap, not a "
                              "stream-ordered allocation [inferred code]")
        if a is None or a.start != int(dptr):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"0x{int(dptr):x} is not the start of a live allocation"
                              + self.memory.missing(int(dptr)))
        # a graph allocation left allocated by a launch, on an uncaptured stream (cuGraphAddMemAllocNode: "can be
        # freed by cuMemFreeAsync"); before any launch there is nothing to free (field case C31)
        launched = a.kind == KIND_GRAPH and s.cig is None and s.capture is None

        def prepare(into: cap.CaptureSequence | None) -> None:
            if into is not None:
                cap.check_free_async_in_capture(into, int(dptr), a.kind == KIND_GRAPH, a.free_node)
            elif launched and a.outstanding is None:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"graph allocation 0x{a.start:x} is not allocated now: no launch of its graph left "
                                  "it unfreed (it exists only while the graph runs; field case C31)")

        def run() -> str:
            if launched:
                self.memory.unmap(a)
            else:
                self.memory.free(a)
            return ""
        node = cap.enqueue(self, s, cap.Op(cap.OPS["mem_free"], "cuMemFreeAsync", nd.MemFreeParams(int(dptr)), run,
                                           prepare))
        if node is not None:
            a.free_node = node
        elif launched:
            a.outstanding = None

    @entry
    def array_create(self, width: int, height: int, fmt: int, channels: int, depth: int = 0) -> int:
        """cuArrayCreate / cuArray3DCreate (bookkeeping only: arrays hold no simulated data).

        Errors: 201 no context; 1 zero width or channels not 1, 2 or 4; 900 by spec 5.2 (array creation is
        potentially unsafe [H; I for CUDA]).
        """
        t = self._thread()
        ctx = self._ctx_current(t)
        if width <= 0 or channels not in (1, 2, 4):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"array width {width} must be positive and NumChannels {channels} 1, 2 or 4")
        cap.check_unsafe(self, t, "cuArrayCreate")
        arr = _Array(ctx, (int(width), int(height), int(depth)), int(fmt), int(channels))
        return self._handle(arr)

    @entry
    def array_destroy(self, h: int) -> None:
        """cuArrayDestroy. Errors: 400 bad handle; 900 by spec 5.2 [H; I]."""
        arr = self._objs.get(h) if h else None
        if not isinstance(arr, _Array) or arr.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE, "not a live array handle")
        cap.check_unsafe(self, self._thread(), "cuArrayDestroy")
        arr.destroyed = True
