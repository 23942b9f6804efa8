"""Stream-ordered memory: allocations in stream order, memory pools, and the graph memory of devices (spec 3.8,
5.2, 16; docs/spec-proposals.md P-6, P-10..P-14)."""
from __future__ import annotations

from collections.abc import Sequence

from ..capture import capture_enqueue as capq
from ..capture import capture_rules as cap
from ..capture import capture_sync as caps
from ..errors import CUresult, DriverError
from ..graphs import graph_exec as ge
from ..graphs import nodes as nd
from ..objects import Device, MemPool, Stream, require_pools
from ..state import DriverState, entry
from .memory_model import KIND_DEVICE, KIND_GRAPH, not_vmm

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
#: the attributes cuMemPoolSetAttribute documents (the others are read-only)
_POOL_SETTABLE = frozenset({1, 2, 3, 4, 6, 8})
#: ``CUgraphMem_attribute`` values
_GRAPH_MEM_ATTR_NAMES = {0: "CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT", 1: "CU_GRAPH_MEM_ATTR_USED_MEM_HIGH",
                         2: "CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT", 3: "CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH"}
#: ``CUmemLocationType``, ``CUmemAllocationType``, ``CUmemAccess_flags`` values
_LOC_DEVICE, _LOC_HOST, _LOC_HOST_NUMA, _LOC_HOST_NUMA_CURRENT, _LOC_LOCALITY_DOMAIN = 1, 2, 3, 4, 6
_ALLOC_PINNED, _ALLOC_MANAGED = 1, 2
_ACCESS_NONE, _ACCESS_READ, _ACCESS_READWRITE = 0, 1, 3
_HANDLE_TYPE_BITS = 0x1 | 0x2 | 0x4 | 0x8  # POSIX_FILE_DESCRIPTOR, WIN32, WIN32_KMT, FABRIC
_USAGE_HW_DECOMPRESS = 2  # CU_MEM_POOL_CREATE_USAGE_HW_DECOMPRESS


class Pools(DriverState):
    """Stream-ordered memory of the simulated driver: ``cuMemAllocAsync``, ``cuMemAllocFromPoolAsync``,
    ``cuMemFreeAsync``; memory pools (``cuDeviceGetDefaultMemPool``, ``cuDeviceGet/SetMemPool``,
    ``cuMemPoolCreate``/``Destroy``, ``cuMemPoolGet/SetAttribute``, ``cuMemPoolTrimTo``,
    ``cuMemPoolSet/GetAccess``); and graph memory (``cuDeviceGraphMemTrim``, ``cuDeviceGet/SetGraphMemAttribute``).

    A device whose :class:`~simcuda.DeviceSpec` has ``memory_pools=False`` (attribute 115
    ``MEMORY_POOLS_SUPPORTED`` reads 0) answers every one of these calls, and ``cuGraphAddMemAllocNode``,
    with ``CUDA_ERROR_NOT_SUPPORTED`` (801), as NVIDIA hardware without stream-ordered allocation answers
    ``cudaMallocAsync`` [O: cuvs PR 2528, finufft PR 468; I for the other calls] (spec proposal P-10).
    """
    # ------------------------------------------------------------------ stream-ordered allocation
    @entry
    def mem_alloc_async(self, size: int, h: int) -> int:
        """cuMemAllocAsync: during capture a MEM_ALLOC node with a fixed graph-owned address (spec 3.8);
        otherwise a stream-ordered allocation from the current pool of the stream's device.

        Errors: the stream's preamble; 1 size 0 outside capture (during capture size 0 records a zero-size
        MEM_ALLOC node, P-15); 801 a device without pools (P-10); 2 out of memory or past the pool's maximum size;
        the stream's capture rules."""
        return self._alloc_async(int(size), self._stream(h), None, "cuMemAllocAsync")

    @entry
    def mem_alloc_from_pool_async(self, size: int, pool: int, h: int) -> int:
        """cuMemAllocFromPoolAsync: as :meth:`mem_alloc_async`, from ``pool`` (a MEM_ALLOC node during capture).

        Errors: the stream's preamble; 1 INVALID_VALUE a bad or destroyed pool handle, size 0; then as
        cuMemAllocAsync.
        """
        s = self._stream(h)
        return self._alloc_async(int(size), s, self._mem_pool(pool, "cuMemAllocFromPoolAsync"),
                                 "cuMemAllocFromPoolAsync")

    def _alloc_async(self, size: int, s: Stream, pool: MemPool | None, call: str) -> int:
        """A stream-ordered allocation on ``s``: a MEM_ALLOC node when ``s`` captures (graph memory, not the
        pool's), else device memory counted in ``pool`` (None: the device's current pool) until it is freed."""
        ctx = s.ctx
        if size < 0 or (size == 0 and s.capture is None):  # size 0 is a zero-size node during capture (P-15)
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"allocation size {size} must be positive")
        require_pools(ctx.device, call)
        op = capq.Op(capq.OPS["mem_alloc"], call, None, None)

        def prepare(into: cap.CaptureSequence | None) -> None:
            if into is not None:  # the node's graph-owned address is fixed at once (spec 3.8); a pool given
                # sets the node's location and peer access ("the memory pool's properties are used to set the
                # node's creation parameters", cuMemAllocFromPoolAsync) [D]
                dev = pool.device.ordinal if pool is not None else ctx.device.ordinal
                access = tuple((1, o, f) for o, f in sorted(pool.access.items()) if f) if pool is not None else ()
                op.params = nd.MemAllocParams(self.memory.reserve(size, KIND_GRAPH, ctx), size, dev, access)
            else:
                self.memory.check_alloc_size(size, ctx)
                p = pool or self._current_pool(ctx.device)
                if p.max_size and p.used + size > p.max_size:
                    raise DriverError(CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                                      f"{call}: {size} bytes from {p.label()} would pass its maximum size of "
                                      f"{p.max_size} bytes ({p.used} in use)")
        op.prepare = prepare
        node = capq.enqueue(self, s, op)  # CIG 801, invalidated 901, legacy 906 come first
        if node is not None:
            a = op.params.alloc
            a.graph_node = node
            return int(a.start)
        a = self.memory.reserve(size, KIND_DEVICE, ctx)  # device memory, counted in its pool until freed
        a.pool = pool or self._current_pool(ctx.device)
        a.pool.take(size)
        return int(a.start)

    @entry
    def mem_free_async(self, dptr: int, h: int) -> None:
        """cuMemFreeAsync: during capture a MEM_FREE node; ``dptr`` must be a graph allocation (spec 3.8).

        Errors: the stream's preamble; 801 a device without pools (P-10); 1 not the start of a live allocation,
        a graph allocation no launch left allocated; the stream's capture rules."""
        s = self._stream(h)
        require_pools(s.ctx.device, "cuMemFreeAsync")
        a = not_vmm(self.memory.find(int(dptr)), dptr, "cuMemFreeAsync")
        if a is None or a.start != int(dptr):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"0x{int(dptr):x} is not the start of a live allocation"
                              + self.memory.missing(int(dptr)))
        # a graph allocation left allocated by a launch, on an uncaptured stream (cuGraphAddMemAllocNode: "can be
        # freed by cuMemFreeAsync"); before any launch there is nothing to free (field case C31)
        launched = a.kind == KIND_GRAPH and s.cig is None and s.capture is None

        def prepare(into: cap.CaptureSequence | None) -> None:
            if into is not None:
                caps.check_free_async_in_capture(into, int(dptr), a.kind == KIND_GRAPH, a.free_node)
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
        node = capq.enqueue(self, s, capq.Op(capq.OPS["mem_free"], "cuMemFreeAsync", nd.MemFreeParams(int(dptr)), run,
                                           prepare))
        if node is not None:
            a.free_node = node
        elif launched:
            a.outstanding = None

    # ------------------------------------------------------------------ memory pools
    def _default_pool(self, dev: Device) -> MemPool:
        """The device's default pool, made (with a handle) on first use."""
        p = dev.default_pool
        if p is None:
            p = dev.default_pool = MemPool(0, dev)
            p.handle = self.handles.add(p)
        return p

    def _current_pool(self, dev: Device) -> MemPool:
        return dev.current_pool or self._default_pool(dev)

    def _mem_pool(self, h: int, call: str) -> MemPool:
        """A live pool handle of this driver, or INVALID_VALUE (the code the pool calls document)."""
        p = self.handles.get(h) if h else None
        if not isinstance(p, MemPool):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: the memory pool handle is NULL" if not h
                              else f"{call}: 0x{h:x} is not a memory pool handle{self.handles.foreign(h)}")
        if p.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: {p.label()} was destroyed (cuMemPoolDestroy)")
        return p

    @entry
    def device_get_default_mem_pool(self, dev: int) -> int:
        """cuDeviceGetDefaultMemPool: the device's default pool (the same handle every time).

        Errors: 101 INVALID_DEVICE; 801 a device without pools (P-10). Needs no context.
        """
        d = self._device(dev)
        require_pools(d, "cuDeviceGetDefaultMemPool")
        return self._default_pool(d).handle

    @entry
    def device_get_mem_pool(self, dev: int) -> int:
        """cuDeviceGetMemPool: the device's current pool (its default pool unless cuDeviceSetMemPool changed it),
        the pool cuMemAllocAsync allocates from. Errors: 101 INVALID_DEVICE; 801 a device without pools."""
        d = self._device(dev)
        require_pools(d, "cuDeviceGetMemPool")
        return self._current_pool(d).handle

    @entry
    def device_set_mem_pool(self, dev: int, pool: int) -> None:
        """cuDeviceSetMemPool: make ``pool`` the device's current pool.

        Errors: 101 INVALID_DEVICE; 801 a device without pools; 1 INVALID_VALUE a bad or destroyed pool handle,
        or a pool of another device [I code].
        """
        d = self._device(dev)
        require_pools(d, "cuDeviceSetMemPool")
        p = self._mem_pool(pool, "cuDeviceSetMemPool")
        if p.device is not d:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuDeviceSetMemPool: {p.label()} is not a pool of device {d.ordinal} [inferred code]")
        d.current_pool = p

    @entry
    def mem_pool_create(self, alloc_type: int, handle_types: int, location: tuple[int, int], max_size: int = 0,
                        usage: int = 0, localized: tuple[int, int] = (0, 0)) -> int:
        """cuMemPoolCreate: a new pool of device memory, with the ``CUmemPoolProps`` given.

        Args: ``alloc_type`` (``CUmemAllocationType``: PINNED 1), ``handle_types`` (``CUmemAllocationHandleType``
        bits), ``location`` ``(CUmemLocationType, id)`` (DEVICE 1 with an ordinal; DEVICE_LOCALITY_DOMAIN 6 with
        ``localized`` ``(deviceId, localityDomainId)``), ``max_size`` (bytes, 0: no maximum), ``usage``
        (``CU_MEM_POOL_CREATE_USAGE_HW_DECOMPRESS`` 2 or 0).
        Returns: the pool handle. Its memory is accessible from its device; other devices get access with
        cuMemPoolSetAccess.
        Errors, in order (P-11): 1 INVALID_VALUE an allocation type other than PINNED/MANAGED, a location type
        INVALID, HOST_NUMA_CURRENT [D] or unknown, a device ordinal that does not exist [I code], a locality
        domain other than 0 (the simulated devices have one) [I], handle-type bits outside the four types,
        handle types with a HOST location [D], usage bits other than HW_DECOMPRESS; 801 a device without pools
        (P-10), handle types the device does not advertise (``MEMPOOL_SUPPORTED_HANDLE_TYPES`` is 0) [I],
        HOST, HOST_NUMA and MANAGED pools (not simulated); 900 during a restricting capture, invalidating it
        (spec 16's pool rule, P-12 [I]).
        """
        call = "cuMemPoolCreate"
        ltype, lid = int(location[0]), int(location[1])
        if alloc_type not in (_ALLOC_PINNED, _ALLOC_MANAGED):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: allocType {alloc_type} is not CU_MEM_ALLOCATION_TYPE_PINNED (1) or MANAGED (2)")
        if ltype == _LOC_LOCALITY_DOMAIN:
            lid, domain = int(localized[0]), int(localized[1])
            if 0 <= lid < len(self.devices) and domain != 0:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{call}: locality domain {domain} does not exist on device {lid} (the simulated "
                                  "devices have one locality domain, 0) [inferred]")
            ltype = _LOC_DEVICE  # one locality domain: the same as a full-device pool (cuMemPoolCreate's note)
        if ltype not in (_LOC_DEVICE, _LOC_HOST, _LOC_HOST_NUMA):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: location type {ltype} cannot back a pool (DEVICE 1, HOST 2, HOST_NUMA 3 or "
                              "DEVICE_LOCALITY_DOMAIN 6; HOST_NUMA_CURRENT is refused by the driver)")
        if ltype == _LOC_DEVICE and not 0 <= lid < len(self.devices):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: location id {lid} is not a device of this driver ({len(self.devices)} "
                              "device(s)) [inferred code]")
        if handle_types & ~_HANDLE_TYPE_BITS:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: handleTypes 0x{handle_types:x} has bits outside CUmemAllocationHandleType")
        if handle_types and ltype == _LOC_HOST:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: a CU_MEM_LOCATION_TYPE_HOST pool is not IPC capable; handleTypes must be 0")
        if usage & ~_USAGE_HW_DECOMPRESS:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: usage 0x{usage:x} has bits other than CU_MEM_POOL_CREATE_USAGE_HW_DECOMPRESS")
        if ltype == _LOC_DEVICE:
            require_pools(self.devices[lid], call)
        if ltype != _LOC_DEVICE or alloc_type != _ALLOC_PINNED:
            raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                              f"{call}: only pinned device pools are simulated (location type {ltype}, allocType "
                              f"{alloc_type})")
        if handle_types:
            raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                              f"{call}: handleTypes 0x{handle_types:x}: device {lid} supports no pool export handle "
                              "types (CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES is 0) [inferred]")
        cap.check_unsafe(self, self.threads.current(), call)
        p = MemPool(0, self.devices[lid], is_default=False, max_size=int(max_size), usage=int(usage))
        p.handle = self.handles.add(p)
        return p.handle

    @entry
    def mem_pool_destroy(self, pool: int) -> None:
        """cuMemPoolDestroy: the handle goes at once; allocations still live stay usable until freed [D].

        Destroying a device's current pool makes its default pool current again [D].
        Errors: 1 INVALID_VALUE a bad or destroyed handle, a default pool ("cannot be destroyed" [D; code I]);
        900 during a restricting capture (P-12 [I]).
        """
        call = "cuMemPoolDestroy"
        p = self._mem_pool(pool, call)
        if p.is_default:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: {p.label()} cannot be destroyed")
        cap.check_unsafe(self, self.threads.current(), call)
        p.destroyed = True
        if p.device.current_pool is p:
            p.device.current_pool = None

    @entry
    def mem_pool_trim_to(self, pool: int, keep: int) -> None:
        """cuMemPoolTrimTo: release the pool's kept memory until it reserves at most ``keep`` bytes, never the
        memory of live allocations (RESERVED_MEM_CURRENT becomes ``max(used, min(reserved, keep))``).

        Errors: 1 INVALID_VALUE a bad or destroyed pool; 900 during a restricting capture (P-12 [I]).
        """
        p = self._mem_pool(pool, "cuMemPoolTrimTo")
        cap.check_unsafe(self, self.threads.current(), "cuMemPoolTrimTo")
        p.trim_to(int(keep))

    def _access_location(self, ltype: int, lid: int, call: str, what: str) -> int:
        """The device ordinal of an access location (DEVICE with an ordinal of this driver), or INVALID_VALUE."""
        if ltype != _LOC_DEVICE or not 0 <= lid < len(self.devices):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: {what} (location type {ltype}, id {lid}) is not a device of this driver "
                              "(CU_MEM_LOCATION_TYPE_DEVICE with an ordinal) [inferred code]")
        return lid

    @entry
    def mem_pool_set_access(self, pool: int, descs: Sequence[Sequence[int]]) -> None:
        """cuMemPoolSetAccess: each ``(location type, id, CUmemAccess_flags)`` descriptor sets the access of one
        device to the pool's memory (PROT_NONE 0 or PROT_READWRITE 3); all or none apply.

        Errors, in order (P-11): 1 INVALID_VALUE a bad or destroyed pool, a location that is not a device of this
        driver [I code], flags other than 0, 1, 3, access other than READWRITE for the pool's own device [I];
        801 PROT_READ (read-only pool access is not supported [I]); 900 during a restricting capture (P-12 [I]).
        """
        call = "cuMemPoolSetAccess"
        p = self._mem_pool(pool, call)
        plan: list[tuple[int, int]] = []
        for i, desc in enumerate(descs):
            ltype, lid, flags = (int(v) for v in desc)
            dev = self._access_location(ltype, lid, call, f"map[{i}]")
            if flags not in (_ACCESS_NONE, _ACCESS_READ, _ACCESS_READWRITE):
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{call}: map[{i}].flags {flags} is not a CUmemAccess_flags value")
            if dev == p.device.ordinal and flags != _ACCESS_READWRITE:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{call}: map[{i}] would change the access of device {dev} to its own pool "
                                  f"{p.label()}, which is always read-write [inferred]")
            if flags == _ACCESS_READ:
                raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                                  f"{call}: map[{i}]: read-only access (CU_MEM_ACCESS_FLAGS_PROT_READ) to a pool is "
                                  "not supported [inferred]")
            plan.append((dev, flags))
        cap.check_unsafe(self, self.threads.current(), call)
        for dev, flags in plan:
            if dev != p.device.ordinal:
                p.access[dev] = flags

    @entry
    def mem_pool_get_access(self, pool: int, location: tuple[int, int]) -> int:
        """cuMemPoolGetAccess: the ``CUmemAccess_flags`` of a device on the pool's memory: READWRITE (3) for the
        pool's own device, else what cuMemPoolSetAccess set (PROT_NONE 0 until then).

        Errors: 1 INVALID_VALUE a bad or destroyed pool, a location that is not a device of this driver [I code];
        900 during a restricting capture (P-12 [I]).
        """
        call = "cuMemPoolGetAccess"
        p = self._mem_pool(pool, call)
        dev = self._access_location(int(location[0]), int(location[1]), call, "location")
        cap.check_unsafe(self, self.threads.current(), call)
        return _ACCESS_READWRITE if dev == p.device.ordinal else p.access.get(dev, _ACCESS_NONE)

    def _pool_attribute(self, p: MemPool, attr: int, call: str, value: int | None = None) -> int:
        """The checks the two pool-attribute calls share, in order: a known ``CUmemPool_attribute`` (1), a value
        the attribute accepts (1), then the potentially unsafe class (900, spec 16 and 5.2) for every attribute.
        Returns the value read (get) or 0 (set, done)."""
        attr = int(attr)
        if attr not in _POOL_ATTR_NAMES:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: {attr} is not a CUmemPool_attribute")
        name = _POOL_ATTR_NAMES[attr]
        if value is not None:
            if attr not in _POOL_SETTABLE:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{call}: {name} is read-only (cuMemPoolSetAttribute does not list it) "
                                  "[inferred code]")
            if attr in (_ATTR_RESERVED_HIGH, _ATTR_USED_HIGH) and value != 0:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{call}: {name} can only be reset, with the value 0 (got {value})")
            if attr == _ATTR_RELEASE_THRESHOLD and not 0 <= value < 1 << 64:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{call}: {name} {value} is not a cuuint64_t byte count")
        cap.check_unsafe(self, self.threads.current(), call)
        if value is None:
            return self._pool_attr_value(p, attr)
        if attr == _ATTR_RELEASE_THRESHOLD:
            p.release_threshold = value  # a lower threshold releases kept memory at the next free
        elif attr == _ATTR_RESERVED_HIGH:
            p.reserved_high = p.reserved
        elif attr == _ATTR_USED_HIGH:
            p.used_high = p.used
        else:
            p.reuse[attr] = int(value != 0)
        return 0

    @staticmethod
    def _pool_attr_value(p: MemPool, attr: int) -> int:
        if attr in p.reuse:
            return p.reuse[attr]
        return {_ATTR_RELEASE_THRESHOLD: p.release_threshold, _ATTR_RESERVED_CURRENT: p.reserved,
                _ATTR_RESERVED_HIGH: p.reserved_high, _ATTR_USED_CURRENT: p.used, _ATTR_USED_HIGH: p.used_high,
                9: p.alloc_type, 10: p.handle_types, 11: p.location[1], 12: p.location[0], 13: p.max_size,
                14: int(bool(p.usage & _USAGE_HW_DECOMPRESS)), 15: -1}[attr]

    @entry
    def mem_pool_get_attribute(self, pool: int, attr: int) -> int:
        """cuMemPoolGetAttribute: any ``CUmemPool_attribute`` (1-15) of the pool.

        The reuse flags (1-3; default 1); RELEASE_THRESHOLD (4; default 0), RESERVED_MEM_CURRENT/HIGH (5/6),
        USED_MEM_CURRENT/HIGH (7/8), MAX_POOL_SIZE (13), in bytes (``cuuint64_t``); ALLOCATION_TYPE (9, PINNED),
        EXPORT_HANDLE_TYPES (10, 0), LOCATION_ID (11, the device ordinal), LOCATION_TYPE (12, DEVICE),
        HW_DECOMPRESS_ENABLED (14, from the pool's ``usage``), LOCALITY_DOMAIN_ID (15, -1: not localized).
        Used counts the live stream-ordered allocations made from the pool (cuMemAllocAsync from the device's
        current pool, cuMemAllocFromPoolAsync; not graph allocations, which come from the graph memory pool);
        reserved is used plus the freed memory the pool keeps: up to the release threshold after a free, until
        cuMemPoolTrimTo [I]; the watermarks are the highest values since the last reset.
        Errors, in order: 1 INVALID_VALUE a bad or destroyed pool or an unknown attribute; 900 during a
        restricting capture, for every attribute, invalidating it (spec 16, 5.2: GLOBAL and THREAD_LOCAL modes;
        fine in RELAXED).
        """
        return self._pool_attribute(self._mem_pool(pool, "cuMemPoolGetAttribute"), attr, "cuMemPoolGetAttribute")

    @entry
    def mem_pool_set_attribute(self, pool: int, attr: int, value: int) -> None:
        """cuMemPoolSetAttribute: the reuse flags (1-3, an ``int``: non-zero enables), RELEASE_THRESHOLD (4) to
        ``value`` bytes; RESERVED_MEM_HIGH (6) or USED_MEM_HIGH (8) reset to the current value (``value`` 0).

        A lower threshold releases kept memory at the next free; the reuse flags are stored and read back (the
        simulated pool reuses its kept memory whatever they say) [I].
        Errors, in order: 1 INVALID_VALUE a bad or destroyed pool, an unknown attribute, a read-only one (5, 7,
        9-15) [I code], a non-zero value for a watermark, a threshold outside ``cuuint64_t``; 900 during a
        restricting capture (spec 16, 5.2).
        """
        self._pool_attribute(self._mem_pool(pool, "cuMemPoolSetAttribute"), attr, "cuMemPoolSetAttribute",
                             int(value))

    # ------------------------------------------------------------------ graph memory
    def _graph_mem_device(self, dev: int, attr: int | None, call: str) -> Device:
        d = self._device(dev)
        require_pools(d, call)
        if attr is not None and attr not in _GRAPH_MEM_ATTR_NAMES:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: {attr} is not a CUgraphMem_attribute")
        cap.check_unsafe(self, self.threads.current(), call)
        return d

    @entry
    def device_graph_mem_trim(self, dev: int) -> None:
        """cuDeviceGraphMemTrim: give back the graph memory no graph uses now: the allocations a launch backed
        that are no longer allocated (freed in or after their graph) and that no pending or running launch
        needs; USED/RESERVED_MEM_CURRENT drop by their bytes (the watermarks stay).

        Errors: 101 INVALID_DEVICE; 801 a device without pools (P-10); 900 during a restricting capture
        (P-12 [I]).
        """
        d = self._graph_mem_device(dev, None, "cuDeviceGraphMemTrim")
        needed = {a.start for x in self.handles.table.values()
                  if isinstance(x, ge.GraphExec) and (x.pending or x.running) for a in x.body.allocs()}
        gm = d.graph_mem
        for start in list(gm.backed):
            a = self.memory.find(start)
            if start not in needed and (a is None or a.kind != KIND_GRAPH or not a.mapped):
                gm.release(start)

    @entry
    def device_get_graph_mem_attribute(self, dev: int, attr: int) -> int:
        """cuDeviceGetGraphMemAttribute: USED_MEM_CURRENT (0), USED_MEM_HIGH (1), RESERVED_MEM_CURRENT (2),
        RESERVED_MEM_HIGH (3) of the device's graph memory, in bytes (``cuuint64_t``).

        Used: the bytes of the graph allocations (MEM_ALLOC nodes, captured cuMemAllocAsync) whose memory a
        launch of an exec backed, from that launch until cuDeviceGraphMemTrim finds them unused: freeing an
        allocation (a MEM_FREE node, cuMemFreeAsync, cuMemFree, AUTO_FREE_ON_LAUNCH) leaves its memory with the
        graphs, and destroying the exec does too [O: cuda.core's graph-memory test sees used > 0 after the
        free; I for the rest]; reserved follows used [I] (P-13).
        Errors: 101 INVALID_DEVICE; 801 a device without pools; 1 INVALID_VALUE an unknown attribute; 900 during
        a restricting capture (P-12 [I]).
        """
        d = self._graph_mem_device(dev, int(attr), "cuDeviceGetGraphMemAttribute")
        gm = d.graph_mem
        return (gm.used, gm.used_high, gm.used, gm.reserved_high)[int(attr)]

    @entry
    def device_set_graph_mem_attribute(self, dev: int, attr: int, value: int) -> None:
        """cuDeviceSetGraphMemAttribute: reset USED_MEM_HIGH (1) or RESERVED_MEM_HIGH (3) to the current value
        (``value`` must be 0: "can only be reset to zero").

        Errors: 101 INVALID_DEVICE; 801 a device without pools; 1 INVALID_VALUE an unknown attribute, a CURRENT
        one (read-only) [I code], a non-zero value [I code]; 900 during a restricting capture (P-12 [I]).
        """
        call = "cuDeviceSetGraphMemAttribute"
        d = self._device(dev)
        require_pools(d, call)
        attr = int(attr)
        if attr not in _GRAPH_MEM_ATTR_NAMES:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: {attr} is not a CUgraphMem_attribute")
        name = _GRAPH_MEM_ATTR_NAMES[attr]
        if attr not in (1, 3):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: {name} is read-only (only the HIGH watermarks can be reset) [inferred code]")
        if int(value) != 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: {name} can only be reset, with the value 0 (got {int(value)})")
        d = self._graph_mem_device(dev, attr, call)
        gm = d.graph_mem
        if attr == 1:
            gm.used_high = gm.used
        else:
            gm.reserved_high = gm.used
