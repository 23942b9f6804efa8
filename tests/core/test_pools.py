"""Memory pools beyond the default pool, the pool counters and threshold, pool access, graph memory, the capture
rules of these calls (spec 16, P-12) and a device without pools (DeviceSpec(memory_pools=False), P-10)."""
from __future__ import annotations

import pytest

from simcuda import DeviceSpec, Driver
from simcuda._core.errors import CUresult, DriverError
from simcuda._core.memory.memory_model import MemsetParams
from simcuda._core.objects import MemPool

from .conftest import ready

R = CUresult
THRESHOLD, RES_CUR, RES_HIGH, USED_CUR, USED_HIGH, MAX_SIZE = 4, 5, 6, 7, 8, 13
G_USED, G_USED_HIGH, G_RES, G_RES_HIGH = 0, 1, 2, 3
DEVICE, PINNED = 1, 1


def code(fn, *args, **kwargs):
    """The CUresult a core call raises (0 when it succeeds)."""
    try:
        fn(*args, **kwargs)
    except DriverError as e:
        return int(e.code)
    return 0


def create(d: Driver, dev: int = 0, **kw) -> int:
    """A pinned device pool on ``dev`` (keyword overrides for the other properties)."""
    args = {"alloc_type": PINNED, "handle_types": 0, "location": (DEVICE, dev)} | kw
    return d.mem_pool_create(**args)


def counters(d: Driver, p: int) -> tuple[int, int, int, int]:
    """(used, used high, reserved, reserved high) of a pool."""
    return tuple(d.mem_pool_get_attribute(p, a) for a in (USED_CUR, USED_HIGH, RES_CUR, RES_HIGH))


def graph_mem(d: Driver, dev: int = 0) -> tuple[int, int, int, int]:
    """(used, used high, reserved, reserved high) of a device's graph memory."""
    return tuple(d.device_get_graph_mem_attribute(dev, a) for a in (G_USED, G_USED_HIGH, G_RES, G_RES_HIGH))


def live_pools(d: Driver) -> int:
    """How many pools of the driver are not destroyed."""
    return sum(isinstance(o, MemPool) and not o.destroyed for o in d.handles.table.values())


# ------------------------------------------------------------------------------------------ create / destroy
def test_a_created_pool_is_a_new_pool_with_its_properties(d):
    """cuMemPoolCreate gives a pool of its own, whose read-only attributes report the props it was made with."""
    p = create(d, max_size=1 << 20, usage=2)
    assert p != d.device_get_default_mem_pool(0)
    assert [d.mem_pool_get_attribute(p, a) for a in range(9, 16)] == [PINNED, 0, 0, DEVICE, 1 << 20, 1, -1]
    assert [d.mem_pool_get_attribute(p, a) for a in (1, 2, 3)] == [1, 1, 1]  # reuse flags default enabled
    assert d.device_get_mem_pool(0) == d.device_get_default_mem_pool(0)  # creating does not make it current


def test_a_locality_domain_pool_with_domain_0_is_a_device_pool(d):
    """DEVICE_LOCALITY_DOMAIN with domain 0 on a one-domain device reports DEVICE and domain -1 (the docstring's
    note); another domain is INVALID_VALUE."""
    p = d.mem_pool_create(PINNED, 0, (6, 0), localized=(0, 0))
    assert d.mem_pool_get_attribute(p, 12) == DEVICE and d.mem_pool_get_attribute(p, 15) == -1
    assert code(d.mem_pool_create, PINNED, 0, (6, 0), localized=(0, 1)) == R.CUDA_ERROR_INVALID_VALUE


@pytest.mark.parametrize("kw, expected", [
    ({"alloc_type": 0}, R.CUDA_ERROR_INVALID_VALUE),             # CU_MEM_ALLOCATION_TYPE_INVALID
    ({"location": (0, 0)}, R.CUDA_ERROR_INVALID_VALUE),          # CU_MEM_LOCATION_TYPE_INVALID
    ({"location": (4, 0)}, R.CUDA_ERROR_INVALID_VALUE),          # HOST_NUMA_CURRENT [D]
    ({"location": (DEVICE, 5)}, R.CUDA_ERROR_INVALID_VALUE),     # no such device
    ({"handle_types": 0x10}, R.CUDA_ERROR_INVALID_VALUE),        # no such handle type
    ({"location": (2, 0), "handle_types": 1}, R.CUDA_ERROR_INVALID_VALUE),  # a HOST pool is not IPC capable [D]
    ({"usage": 1}, R.CUDA_ERROR_INVALID_VALUE),
    ({"handle_types": 1}, R.CUDA_ERROR_NOT_SUPPORTED),           # MEMPOOL_SUPPORTED_HANDLE_TYPES is 0
    ({"location": (2, 0)}, R.CUDA_ERROR_NOT_SUPPORTED),          # HOST pools: not simulated
    ({"alloc_type": 2}, R.CUDA_ERROR_NOT_SUPPORTED),             # MANAGED pools: not simulated
])
def test_create_refusals_make_no_pool(d, kw, expected):
    """Each refused cuMemPoolCreate gives its code with a why, and no handle is made."""
    before = live_pools(d)
    assert code(create, d, **kw) == expected
    assert d.last_error().why and live_pools(d) == before


def test_destroy_refuses_the_default_pool_and_a_second_destroy(d):
    """A default pool cannot be destroyed [D]; a destroyed pool's handle is INVALID_VALUE everywhere after."""
    dp = d.device_get_default_mem_pool(0)
    assert code(d.mem_pool_destroy, dp) == R.CUDA_ERROR_INVALID_VALUE and "cannot be destroyed" in d.last_error().why
    p = create(d)
    d.mem_pool_destroy(p)
    s = d.stream_create(1)
    for call, args in [(d.mem_pool_destroy, (p,)), (d.mem_pool_get_attribute, (p, THRESHOLD)),
                       (d.mem_pool_trim_to, (p, 0)), (d.mem_alloc_from_pool_async, (16, p, s)),
                       (d.device_set_mem_pool, (0, p))]:
        assert code(call, *args) == R.CUDA_ERROR_INVALID_VALUE
        assert "destroyed" in d.last_error().why


def test_destroying_the_current_pool_brings_back_the_default_and_live_allocations_stay(d):
    """cuMemPoolDestroy of the current pool: the default pool is current again [D]; an allocation made from the
    destroyed pool is still usable and freeable [D]."""
    p = create(d)
    d.device_set_mem_pool(0, p)
    s = d.stream_create(1)
    a = d.mem_alloc_async(64, s)  # from p, the current pool
    assert d.mem_pool_get_attribute(p, USED_CUR) == 64
    d.mem_pool_destroy(p)
    assert d.device_get_mem_pool(0) == d.device_get_default_mem_pool(0)
    d.memset(MemsetParams(a, 7, 1, 64), None, "cuMemsetD8")
    assert bytes(d.memory.device_view(a, 4)) == b"\x07" * 4
    d.mem_free_async(a, s)
    assert d.memory.find(a) is None


# ------------------------------------------------------------------------------------------ counters
def test_used_and_reserved_follow_allocations_and_the_release_threshold(d):
    """Reserved keeps freed bytes up to the release threshold; used drops at once; trim releases what is kept."""
    p = create(d)
    s = d.stream_create(1)
    a = d.mem_alloc_from_pool_async(1000, p, s)
    b = d.mem_alloc_from_pool_async(500, p, s)
    assert counters(d, p) == (1500, 1500, 1500, 1500)
    d.mem_free_async(a, s)  # threshold 0: the freed memory goes back at once
    assert counters(d, p) == (500, 1500, 500, 1500)
    d.mem_pool_set_attribute(p, THRESHOLD, 1 << 40)
    c = d.mem_alloc_from_pool_async(2000, p, s)
    d.mem_free_async(c, s)
    assert counters(d, p) == (500, 2500, 2500, 2500)  # kept: below the threshold
    e = d.mem_alloc_from_pool_async(1500, p, s)        # reuses the kept memory: reserved does not grow
    assert counters(d, p) == (2000, 2500, 2500, 2500)
    d.mem_free_async(e, s)
    d.mem_pool_trim_to(p, 1000)
    assert counters(d, p)[2] == 1000                   # trimmed to the bytes asked to keep
    d.mem_pool_trim_to(p, 0)
    assert counters(d, p)[2] == 500                    # never below the live allocation b
    d.mem_pool_set_attribute(p, RES_HIGH, 0)
    d.mem_pool_set_attribute(p, USED_HIGH, 0)
    assert counters(d, p) == (500, 500, 500, 500)
    d.mem_free(b)                                      # cuMemFree of a pool allocation gives it back too
    assert counters(d, p)[0] == 0


def test_the_maximum_size_bounds_the_pool(d):
    """An allocation past the pool's maxSize is OUT_OF_MEMORY and changes nothing."""
    p = create(d, max_size=4096)
    s = d.stream_create(1)
    d.mem_alloc_from_pool_async(4000, p, s)
    assert code(d.mem_alloc_from_pool_async, 100, p, s) == R.CUDA_ERROR_OUT_OF_MEMORY
    assert counters(d, p) == (4000, 4000, 4000, 4000) and "maximum size" in d.last_error().why
    assert d.mem_pool_get_attribute(p, MAX_SIZE) == 4096


def test_reuse_flags_are_stored_and_read_only_attributes_refused(d):
    """The three reuse flags take any int (non-zero enables); every read-only attribute is INVALID_VALUE."""
    p = create(d)
    d.mem_pool_set_attribute(p, 2, 0)
    d.mem_pool_set_attribute(p, 3, 5)
    assert [d.mem_pool_get_attribute(p, a) for a in (1, 2, 3)] == [1, 0, 1]
    for a in (5, 7, 9, 10, 11, 12, 13, 14, 15):
        assert code(d.mem_pool_set_attribute, p, a, 0) == R.CUDA_ERROR_INVALID_VALUE


# ------------------------------------------------------------------------------------------ access
def test_pool_access_between_two_devices():
    """A pool is read-write for its own device; another device has no access until cuMemPoolSetAccess gives it,
    and loses it again with PROT_NONE; a bad descriptor anywhere in the list changes nothing."""
    d = Driver(devices=[DeviceSpec(), DeviceSpec()])
    d.init(0)
    d.ctx_create(0, 0)
    p = create(d)
    assert (d.mem_pool_get_access(p, (DEVICE, 0)), d.mem_pool_get_access(p, (DEVICE, 1))) == (3, 0)
    d.mem_pool_set_access(p, [(DEVICE, 1, 3)])
    assert d.mem_pool_get_access(p, (DEVICE, 1)) == 3
    assert code(d.mem_pool_set_access, p, [(DEVICE, 1, 0), (DEVICE, 0, 0)]) == R.CUDA_ERROR_INVALID_VALUE
    assert d.mem_pool_get_access(p, (DEVICE, 1)) == 3  # all or none
    assert code(d.mem_pool_set_access, p, [(DEVICE, 1, 1)]) == R.CUDA_ERROR_NOT_SUPPORTED  # PROT_READ [I]
    assert code(d.mem_pool_set_access, p, [(DEVICE, 1, 2)]) == R.CUDA_ERROR_INVALID_VALUE
    assert code(d.mem_pool_set_access, p, [(DEVICE, 7, 3)]) == R.CUDA_ERROR_INVALID_VALUE
    assert code(d.mem_pool_get_access, p, (2, 0)) == R.CUDA_ERROR_INVALID_VALUE  # a HOST location
    d.mem_pool_set_access(p, [(DEVICE, 1, 0), (DEVICE, 0, 3)])
    assert (d.mem_pool_get_access(p, (DEVICE, 0)), d.mem_pool_get_access(p, (DEVICE, 1))) == (3, 0)


# ------------------------------------------------------------------------------------------ capture rules
CALLS = {
    "create": lambda d, p: create(d),
    "destroy": lambda d, p: d.mem_pool_destroy(p),
    "trim": lambda d, p: d.mem_pool_trim_to(p, 0),
    "set_access": lambda d, p: d.mem_pool_set_access(p, [(DEVICE, 0, 3)]),
    "get_access": lambda d, p: d.mem_pool_get_access(p, (DEVICE, 0)),
    "get_reuse": lambda d, p: d.mem_pool_get_attribute(p, 1),
    "set_reuse": lambda d, p: d.mem_pool_set_attribute(p, 1, 0),
    "get_location": lambda d, p: d.mem_pool_get_attribute(p, 11),
    "graph_trim": lambda d, p: d.device_graph_mem_trim(0),
    "graph_get": lambda d, p: d.device_get_graph_mem_attribute(0, G_USED),
    "graph_set": lambda d, p: d.device_set_graph_mem_attribute(0, G_USED_HIGH, 0),
}


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("mode", [0, 1])  # GLOBAL, THREAD_LOCAL
def test_pool_calls_are_unsafe_during_a_restricting_capture(d, name, mode):
    """Spec 16's rule for every pool attribute, and P-12 for the other pool and graph-memory calls: 900,
    nothing changes, the capture is invalidated and ends with 901."""
    p = create(d)
    s = d.stream_create(1)
    before = (live_pools(d), d.mem_pool_get_attribute(p, 1))
    d.stream_begin_capture(s, mode)
    assert code(CALLS[name], d, p) == R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
    assert d.stream_is_capturing(s) == 2
    assert code(d.stream_end_capture, s) == R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
    assert (live_pools(d), d.mem_pool_get_attribute(p, 1)) == before  # no pool made, none destroyed, no flag set


@pytest.mark.parametrize("name", sorted(CALLS))
def test_pool_calls_are_fine_in_relaxed_mode(d, name):
    """A RELAXED thread makes them during its capture; they are not captured and the capture ends with a graph."""
    p = create(d)
    s = d.stream_create(1)
    d.stream_begin_capture(s, 0)
    d.thread_exchange_stream_capture_mode(2)
    CALLS[name](d, p)
    d.thread_exchange_stream_capture_mode(0)
    assert d.graph_get_nodes(d.stream_end_capture(s)) == []


def test_a_captured_allocation_from_a_created_pool_is_a_mem_alloc_node_not_the_pools(d):
    """Spec 3.8: cuMemAllocFromPoolAsync from a created pool during capture adds a MEM_ALLOC node; the pool's
    counters do not move (graph memory)."""
    p = create(d)
    s = d.stream_create(1)
    d.stream_begin_capture(s, 0)
    a = d.mem_alloc_from_pool_async(256, p, s)
    d.mem_free_async(a, s)
    g = d.stream_end_capture(s)
    assert [d.graph_node_get_type(n) for n in d.graph_get_nodes(g)] == [10, 11]
    assert counters(d, p) == (0, 0, 0, 0)


# ------------------------------------------------------------------------------------------ graph memory
def _alloc_graph(d: Driver, s: int, size: int, free_inside: bool) -> tuple[int, int]:
    """(graph, address) of a captured cuMemAllocAsync of ``size`` bytes (and its free, when ``free_inside``)."""
    d.stream_begin_capture(s, 0)
    a = d.mem_alloc_async(size, s)
    if free_inside:
        d.mem_free_async(a, s)
    return d.stream_end_capture(s), a


def test_graph_memory_counts_from_the_first_launch_and_stays_until_trimmed(d):
    """Used/reserved follow the graph allocations a launch backs: nothing at capture or instantiation, the size
    at launch, still there after the free and after the exec is destroyed, gone after cuDeviceGraphMemTrim; the
    watermarks stay until reset."""
    s = d.stream_create(1)
    g, a = _alloc_graph(d, s, 4096, free_inside=False)
    x = d.graph_instantiate(g, 0)
    assert graph_mem(d) == (0, 0, 0, 0)
    d.graph_launch(x, s)
    assert graph_mem(d) == (4096, 4096, 4096, 4096)
    d.device_graph_mem_trim(0)  # still allocated (no free yet): nothing to give back
    assert graph_mem(d)[0] == 4096
    d.mem_free_async(a, s)
    d.graph_exec_destroy(x)
    assert graph_mem(d) == (4096, 4096, 4096, 4096)  # cuda.core's graph-memory test sees this [O]
    d.device_graph_mem_trim(0)
    assert graph_mem(d) == (0, 4096, 0, 4096)
    d.device_set_graph_mem_attribute(0, G_USED_HIGH, 0)
    d.device_set_graph_mem_attribute(0, G_RES_HIGH, 0)
    assert graph_mem(d) == (0, 0, 0, 0)


def test_a_graph_that_frees_inside_keeps_its_memory_across_launches(d):
    """An alloc/free graph backs its allocation once: relaunches do not add to it; trim gives it back; the next
    launch backs it again."""
    s = d.stream_create(1)
    g, _a = _alloc_graph(d, s, 1000, free_inside=True)
    x = d.graph_instantiate(g, 0)
    for _ in range(3):
        d.graph_launch(x, s)
    assert graph_mem(d) == (1000, 1000, 1000, 1000)
    d.device_graph_mem_trim(0)
    assert graph_mem(d)[0] == 0
    d.graph_launch(x, s)
    assert graph_mem(d)[0] == 1000


def test_auto_free_on_launch_relaunches_without_growing(d):
    """AUTO_FREE_ON_LAUNCH: each launch frees the last one's allocation and backs it again: used stays the size."""
    s = d.stream_create(1)
    g, _a = _alloc_graph(d, s, 512, free_inside=False)
    x = d.graph_instantiate(g, 1)
    d.graph_launch(x, s)
    d.graph_launch(x, s)
    assert graph_mem(d) == (512, 512, 512, 512)


def test_trim_keeps_the_memory_of_a_pending_launch():
    """Manual progression: an enqueued launch whose allocation was freed keeps its memory through a trim."""
    d = ready(progression="manual")
    s = d.stream_create(1)
    g, _a = _alloc_graph(d, s, 256, free_inside=True)
    x = d.graph_instantiate(g, 0)
    d.graph_launch(x, s)
    d.advance()
    d.graph_launch(x, s)  # pending
    d.device_graph_mem_trim(0)
    assert graph_mem(d)[0] == 256
    d.advance()
    d.device_graph_mem_trim(0)
    assert graph_mem(d)[0] == 0


@pytest.mark.parametrize("attr, value", [(G_USED, 0), (G_RES, 0), (G_USED_HIGH, 5), (9, 0)])
def test_graph_memory_set_refusals(d, attr, value):
    """Only the HIGH watermarks can be set, and only to 0: INVALID_VALUE otherwise [I code], with a why."""
    assert code(d.device_set_graph_mem_attribute, 0, attr, value) == R.CUDA_ERROR_INVALID_VALUE
    assert d.last_error().why


def test_graph_memory_calls_check_the_device(d):
    """An ordinal out of range is INVALID_DEVICE for the three graph-memory calls; an unknown attribute 1."""
    assert code(d.device_graph_mem_trim, 3) == R.CUDA_ERROR_INVALID_DEVICE
    assert code(d.device_get_graph_mem_attribute, 3, 0) == R.CUDA_ERROR_INVALID_DEVICE
    assert code(d.device_set_graph_mem_attribute, 3, 1, 0) == R.CUDA_ERROR_INVALID_DEVICE
    assert code(d.device_get_graph_mem_attribute, 0, 4) == R.CUDA_ERROR_INVALID_VALUE


# ------------------------------------------------------------------------------------------ no pools
def test_a_device_without_pools_refuses_every_pool_call():
    """DeviceSpec(memory_pools=False): attribute 115 reads 0 and every stream-ordered, pool and graph-memory call
    is NOT_SUPPORTED (P-10), captured or not, changing nothing; cuMemAlloc still works."""
    d = ready(devices=[DeviceSpec(memory_pools=False)])
    assert d.device_get_attribute(115, 0) == 0
    s = d.stream_create(1)
    dptr = d.mem_alloc(64)
    g = d.graph_create(0)
    calls = [(d.mem_alloc_async, (64, s)), (d.mem_free_async, (dptr, s)), (d.device_get_default_mem_pool, (0,)),
             (d.device_get_mem_pool, (0,)), (create, (d,)), (d.device_graph_mem_trim, (0,)),
             (d.device_get_graph_mem_attribute, (0, 0)), (d.device_set_graph_mem_attribute, (0, 1, 0)),
             (d.graph_add_mem_alloc_node, (g, [], 64))]
    for fn, args in calls:
        assert code(fn, *args) == R.CUDA_ERROR_NOT_SUPPORTED, fn
        assert "MEMORY_POOLS_SUPPORTED" in d.last_error().why
    d.stream_begin_capture(s, 0)
    assert code(d.mem_alloc_async, 64, s) == R.CUDA_ERROR_NOT_SUPPORTED
    assert d.stream_is_capturing(s) == 1  # refused before it reached the capture: still ACTIVE
    assert d.graph_get_nodes(d.stream_end_capture(s)) == []
    assert d.graph_get_nodes(g) == [] and d.memory.find(dptr) is not None


def test_pools_of_another_device_still_work_beside_a_device_without_pools():
    """Only the device without pools refuses: device 1's default pool and a pool created there work."""
    d = ready(devices=[DeviceSpec(memory_pools=False), DeviceSpec()])
    assert code(d.device_get_default_mem_pool, 0) == R.CUDA_ERROR_NOT_SUPPORTED
    assert d.device_get_default_mem_pool(1)
    assert d.mem_pool_get_attribute(create(d, 1), 11) == 1


def test_a_captured_allocation_takes_the_pools_device_and_peer_access():
    """cuMemAllocFromPoolAsync during capture: the MEM_ALLOC node's location is the pool's device and its access
    descriptors the pool's peer access ("the pool's properties set the node's creation parameters" [D])."""
    d = Driver(devices=[DeviceSpec(), DeviceSpec()])
    d.init(0)
    d.ctx_create(0, 0)
    p = create(d, 1)
    d.mem_pool_set_access(p, [(DEVICE, 0, 3)])
    s = d.stream_create(1)
    d.stream_begin_capture(s, 0)
    d.mem_alloc_from_pool_async(128, p, s)
    (n,) = d.graph_get_nodes(d.stream_end_capture(s))
    params = d.handles.node(n).params
    assert (params.device, params.access, params.size) == (1, ((DEVICE, 0, 3),), 128)


def test_a_zero_size_allocation_during_capture_is_a_zero_size_node(d):
    """P-15 (cuda.core's graph tests expect it): size 0 during capture records a zero-size MEM_ALLOC node whose
    address can be freed in the graph and launched; outside capture size 0 stays INVALID_VALUE."""
    s = d.stream_create(1)
    assert code(d.mem_alloc_async, 0, s) == R.CUDA_ERROR_INVALID_VALUE
    d.stream_begin_capture(s, 0)
    a = d.mem_alloc_async(0, s)
    d.mem_free_async(a, s)
    g = d.stream_end_capture(s)
    alloc, free = d.graph_get_nodes(g)
    assert d.handles.node(alloc).params.size == 0 and d.handles.node(free).params.dptr == a
    d.graph_launch(d.graph_instantiate(g, 0), s)
    assert graph_mem(d)[0] == 0
