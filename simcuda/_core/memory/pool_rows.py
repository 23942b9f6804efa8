"""The entry table's rows of stream-ordered memory, memory pools and graph memory (memory/pool_entries.py).

Each tuple is one run of :data:`simcuda._core.api.ROWS`, which concatenates the runs of every
``*_rows`` module in the tuple face's order; the forms of a row are described in :mod:`simcuda._core.rows`.
"""
from __future__ import annotations

from ..rows import Api, call, hand, kind
from .pool_entries import Pools

#: stream-ordered memory, memory pools and graph memory
POOLS: tuple[Api, ...] = (
    # -- stream-ordered memory, memory pools and graph memory (memory/pool_entries.py; issue 10) ----------------
    Api("cuMemAllocAsync", call(Pools.mem_alloc_async, "bytesize", "hStream", out="dptr"),
        """Stream-ordered allocation from the current pool of the stream's device; during capture a MEM_ALLOC node
with a fixed graph-owned address (spec 3.8), graph memory rather than the pool's.

Errors: INVALID_VALUE size 0 outside capture (during capture size 0 records a zero-size MEM_ALLOC node whose
address may be freed, P-15 [O: cuda.core's graph tests]); NOT_SUPPORTED on a device without memory pools
(``DeviceSpec(memory_pools=False)``, attribute ``MEMORY_POOLS_SUPPORTED`` 0, as such hardware answers
``cudaMallocAsync`` [O]) and on a CIG stream (spec 8.3); OUT_OF_MEMORY past the device's memory or the pool's
``maxSize``; stream capture rules."""),
    Api("cuMemFreeAsync", call(Pools.mem_free_async, "dptr", "hStream"),
        """Stream-ordered free: during capture a MEM_FREE node; ``dptr`` must be a graph allocation there
(INVALID_VALUE otherwise, spec 3.8 [I]). Outside capture the pool keeps the freed bytes up to its release
threshold (``RESERVED_MEM_CURRENT``). Errors: NOT_SUPPORTED on a device without memory pools [I]; INVALID_VALUE
not the start of a live allocation."""),
    Api("cuMemAllocFromPoolAsync", call(Pools.mem_alloc_from_pool_async, "bytesize", "pool", "hStream", out="dptr"),
        """Stream-ordered allocation from ``pool``, as ``cuMemAllocAsync``: during capture a MEM_ALLOC node (graph
memory, spec 3.8); otherwise device memory counted in the pool's USED/RESERVED attributes until ``cuMemFreeAsync``
(or ``cuMemFree``) frees it.

Errors: the stream's preamble; INVALID_VALUE a bad or destroyed pool handle or size 0; NOT_SUPPORTED on a device
without memory pools and on a CIG stream (spec 8.3); OUT_OF_MEMORY past the pool's ``maxSize``; the stream's
capture rules."""),
    Api("cuDeviceGetDefaultMemPool", call(Pools.device_get_default_mem_pool, "dev", out="pool_out"),
        """The device's default memory pool (the same handle on every call; no context needed).

Errors: INVALID_DEVICE; NOT_SUPPORTED on a device without memory pools [I]."""),
    Api("cuDeviceGetMemPool", call(Pools.device_get_mem_pool, "dev", out="pool"),
        """The device's current memory pool, the one ``cuMemAllocAsync`` allocates from: its default pool unless
``cuDeviceSetMemPool`` set another. Errors: INVALID_DEVICE; NOT_SUPPORTED on a device without memory pools [I]."""),
    Api("cuDeviceSetMemPool", call(Pools.device_set_mem_pool, "dev", "pool"),
        """Make ``pool`` the device's current memory pool. Errors: INVALID_DEVICE; NOT_SUPPORTED on a device without
memory pools [I]; INVALID_VALUE a bad or destroyed pool handle, or a pool of another device [I code]."""),
    Api("cuMemPoolGetAttribute", hand(Pools.mem_pool_get_attribute),
        """An attribute of a memory pool, any ``CUmemPool_attribute``: ``RELEASE_THRESHOLD`` (default 0),
``RESERVED_MEM_CURRENT``/``HIGH``, ``USED_MEM_CURRENT``/``HIGH`` and ``MAX_POOL_SIZE`` as a ``cuuint64_t`` of bytes;
the reuse flags (default 1), ``ALLOCATION_TYPE`` (PINNED), ``EXPORT_HANDLE_TYPES`` (0), ``LOCATION_ID`` (the device
ordinal), ``LOCATION_TYPE`` (DEVICE), ``HW_DECOMPRESS_ENABLED`` and ``LOCALITY_DOMAIN_ID`` (-1) as an ``int``.
``attr`` must be a ``CUmemPool_attribute`` (a plain ``int`` raises ``AttributeError`` in the wrapper, as in the real
one).

Used counts the live stream-ordered allocations made from the pool (not graph allocations, which come from the
graph memory pool); reserved adds the freed memory the pool keeps, up to its release threshold, until
``cuMemPoolTrimTo`` [I]; the watermarks are the highest values since their last reset.

Errors, in order: INVALID_VALUE a bad or destroyed pool or an unknown attribute; STREAM_CAPTURE_UNSUPPORTED (900)
during a capture that restricts the calling thread (GLOBAL or THREAD_LOCAL mode; fine in RELAXED), for every
attribute, invalidating it, so its end is 901 (spec 16, 5.2) [O: cuda-python issue 2834].""",
        decoder=kind("pool_attribute", False)),
    Api("cuMemPoolSetAttribute", hand(Pools.mem_pool_set_attribute),
        """Set ``CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`` (``value``: a ``cuuint64_t`` of bytes; a plain ``int``
raises ``AttributeError`` in the wrapper, as in the real one), a reuse flag (an ``int``, non-zero enables), or
reset ``RESERVED_MEM_HIGH`` / ``USED_MEM_HIGH`` to their current values (``value`` must be ``cuuint64_t(0)``).

Fidelity: the threshold decides how much freed memory the pool keeps (read in ``RESERVED_MEM_CURRENT``); the reuse
flags are stored and read back [I].
Errors, in order: INVALID_VALUE a bad or destroyed pool, a read-only attribute (the CURRENT counters, the location,
type, size and decompression attributes) [I code], a non-zero watermark value; 900 during a restricting capture,
invalidating it (spec 16, 5.2).""",
        decoder=kind("pool_attribute", True)),
    Api("cuMemPoolCreate", hand(Pools.mem_pool_create),
        """Create a memory pool from a ``CUmemPoolProps``: pinned device memory (``allocType``
``CU_MEM_ALLOCATION_TYPE_PINNED``, ``location.type`` ``CU_MEM_LOCATION_TYPE_DEVICE`` and ``location.id`` an ordinal, or
``DEVICE_LOCALITY_DOMAIN`` with ``localized.localityDomainId`` 0), ``maxSize`` bytes at most (0: no maximum),
``usage`` 0 or ``CU_MEM_POOL_CREATE_USAGE_HW_DECOMPRESS``. Its memory is accessible from its device; others get
access with ``cuMemPoolSetAccess``. ``poolProps`` ``None`` is INVALID_VALUE.

Errors, in order (docs/spec-proposals.md P-11): INVALID_VALUE an allocation type that is neither PINNED nor MANAGED,
a location type INVALID, ``HOST_NUMA_CURRENT`` [D] or unknown, an ordinal that is no device [I code], a locality
domain other than 0, handle-type bits outside ``CUmemAllocationHandleType``, handle types on a HOST pool [D], other
usage bits; NOT_SUPPORTED on a device without memory pools, for handle types (the device advertises none in
``MEMPOOL_SUPPORTED_HANDLE_TYPES``) [I], and for HOST, HOST_NUMA and MANAGED pools (not simulated); 900 during a
restricting capture, invalidating it (P-12 [I]).""",
        decoder=kind("mem_pool_create")),
    Api("cuMemPoolDestroy", call(Pools.mem_pool_destroy, "pool"),
        """Destroy a pool made by ``cuMemPoolCreate``: the handle is refused from now on, allocations still live
stay usable until freed [D]; a device whose current pool it was gets its default pool back [D].

Errors: INVALID_VALUE a bad or destroyed handle, or a default pool ("cannot be destroyed" [D]); 900 during a
restricting capture (P-12 [I])."""),
    Api("cuMemPoolTrimTo", call(Pools.mem_pool_trim_to, "pool", "minBytesToKeep"),
        """Release the freed memory the pool keeps until it reserves at most ``minBytesToKeep`` bytes; the memory of
live allocations stays (``RESERVED_MEM_CURRENT`` becomes ``max(used, min(reserved, minBytesToKeep))``).

Errors: INVALID_VALUE a bad or destroyed pool; 900 during a restricting capture (P-12 [I])."""),
    Api("cuMemPoolSetAccess", hand(Pools.mem_pool_set_access),
        """Set the access of devices to the pool's memory: ``map`` a list of ``CUmemAccessDesc`` (``location`` a
device, ``flags`` ``PROT_NONE`` or ``PROT_READWRITE``), ``count`` of them used (a list shorter than ``count`` raises
``RuntimeError`` in the wrapper, as in the real one); all or none apply.

Errors, in order (P-11): INVALID_VALUE a bad or destroyed pool, a location that is no device of this driver [I
code], flags that are no ``CUmemAccess_flags``, access other than READWRITE for the pool's own device [I];
NOT_SUPPORTED ``PROT_READ`` [I]; 900 during a restricting capture (P-12 [I]).""",
        decoder=kind("mem_pool_set_access")),
    Api("cuMemPoolGetAccess", hand(Pools.mem_pool_get_access),
        """The ``CUmemAccess_flags`` of the device ``location`` (a ``CUmemLocation``) on the pool's memory:
``PROT_READWRITE`` for the pool's own device, else what ``cuMemPoolSetAccess`` set (``PROT_NONE`` until then).

Errors: INVALID_VALUE a bad or destroyed pool, ``location`` ``None`` or no device of this driver [I code]; 900
during a restricting capture (P-12 [I]).""",
        decoder=kind("mem_pool_get_access")),
    Api("cuDeviceGraphMemTrim", call(Pools.device_graph_mem_trim, "device"),
        """Give back the device's graph memory that no graph uses now: the memory of graph allocations that are no
longer allocated (freed in or after their graph, or their graph destroyed) and that no pending or running launch
needs. ``USED_MEM_CURRENT`` and ``RESERVED_MEM_CURRENT`` drop by it; the watermarks stay.

Errors: INVALID_DEVICE; NOT_SUPPORTED on a device without memory pools [I]; 900 during a restricting capture
(P-12 [I])."""),
    Api("cuDeviceGetGraphMemAttribute", hand(Pools.device_get_graph_mem_attribute),
        """A ``CUgraphMem_attribute`` of the device as a ``cuuint64_t`` of bytes: ``USED_MEM_CURRENT`` (the graph
allocations whose memory a launch backed, kept with the graphs after their free and after their exec is destroyed,
until ``cuDeviceGraphMemTrim``), ``USED_MEM_HIGH``, ``RESERVED_MEM_CURRENT`` (follows used [I]) and
``RESERVED_MEM_HIGH`` (P-13). Graph allocations count from the launch that maps them, not from capture or
instantiation.

Errors: INVALID_DEVICE; NOT_SUPPORTED on a device without memory pools [I]; 900 during a restricting capture
(P-12 [I]). ``attr`` must be a ``CUgraphMem_attribute`` (the wrapper's ``TypeError`` otherwise).""",
        decoder=kind("graph_mem_attribute", False)),
    Api("cuDeviceSetGraphMemAttribute", hand(Pools.device_set_graph_mem_attribute),
        """Reset ``USED_MEM_HIGH`` or ``RESERVED_MEM_HIGH`` to the current value; ``value`` must be
``cuuint64_t(0)`` (the wrapper reads its ``getPtr``).

Errors: INVALID_DEVICE; NOT_SUPPORTED on a device without memory pools [I]; INVALID_VALUE a CURRENT attribute
(read-only) or a non-zero value [I code]; 900 during a restricting capture (P-12 [I]).""",
        decoder=kind("graph_mem_attribute", True)),
)
