"""Unit tests of the capture rule engine through the core Driver (no face involved)."""
from __future__ import annotations

import threading

import pytest

from simcuda import Driver, DriverError, Options
from simcuda._core.capture import capture_rules as cap
from simcuda._core.process import SPACE

G, TL, R = 0, 1, 2
PTX = b""".version 8.5
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{ ret; }
"""


@pytest.fixture
def env():
    d = Driver()
    d.init(0)
    ctx = d.ctx_create(0, 0)
    mod = d.module_load_data(PTX)
    f = d.module_get_function(mod, "k")

    class E:
        pass
    e = E()
    e.d, e.ctx, e.f = d, ctx, f
    e.s1, e.s2, e.s3 = (d.stream_create(0) for _ in range(3))
    e.n1 = d.stream_create(1)
    e.e0, e.e1, e.e2 = (d.event_create(0) for _ in range(3))

    def k(s):
        d.launch_kernel(f, (1, 1, 1), (1, 1, 1), 0, s, [])
    e.k = k
    return e


def code(fn, *a):
    with pytest.raises(DriverError) as ei:
        fn(*a)
    return int(ei.value.code)


def edges(d, g):
    nodes = d.graph_get_nodes(g)
    idx = {h: i for i, h in enumerate(nodes)}
    return [(idx[a], idx[b]) for a, b, _ in d.graph_get_edges(g)]


def test_begin_on_legacy_stream_is_900_and_changes_nothing(env):
    """Beginning a capture on the legacy stream returns 900 and invalidates nothing (3.1 row 1)."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    assert code(d.stream_begin_capture, 1, G) == 900
    assert d.stream_is_capturing(env.s1) == cap.ACTIVE


def test_begin_twice_is_401_and_keeps_capture(env):
    """A second begin on a capturing stream is 401 and the first capture stays ACTIVE (3.1 row 3)."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    env.k(env.s1)
    assert code(d.stream_begin_capture, env.s1, G) == 401
    assert d.stream_is_capturing(env.s1) == cap.ACTIVE
    assert len(d.graph_get_nodes(d.stream_end_capture(env.s1))) == 1


def test_bad_mode_is_invalid_value(env):
    """A mode outside 0..2 is INVALID_VALUE and the stream stays idle (3.1 row 2)."""
    assert code(env.d.stream_begin_capture, env.s1, 7) == 1
    assert env.d.stream_is_capturing(env.s1) == cap.NONE


def test_end_codes_and_state(env):
    """End: 401 when idle, 903 on a member (invalidating), then 901 from the origin; all NONE after."""
    d = env.d
    assert code(d.stream_end_capture, env.s1) == 401
    d.stream_begin_capture(env.s1, G)
    d.event_record(env.e1, env.s1)
    d.stream_wait_event(env.s2, env.e1, 0)
    assert code(d.stream_end_capture, env.s2) == 903
    assert d.stream_is_capturing(env.s1) == cap.INVALIDATED
    assert d.stream_is_capturing(env.s2) == cap.INVALIDATED
    assert code(d.stream_end_capture, env.s1) == 901
    assert d.stream_is_capturing(env.s1) == cap.NONE
    assert d.stream_is_capturing(env.s2) == cap.NONE


def test_wrong_thread_end_is_908_then_901(env):
    """A THREAD_LOCAL capture ended from another thread gives 908 and invalidates (3.3 row 4)."""
    d = env.d
    d.stream_begin_capture(env.s1, TL)
    out = {}

    def other():
        try:
            d.stream_end_capture(env.s1)
        except DriverError as e:
            out["code"] = int(e.code)
    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert out["code"] == 908
    assert d.stream_is_capturing(env.s1) == cap.INVALIDATED
    assert code(d.stream_end_capture, env.s1) == 901


def test_fork_join_guide_example_edges(env):
    """The Guide's fork/join gives A->B, A->C, B->D, C->D and no other edge (4.3)."""
    d, s1, s2 = env.d, env.s1, env.s2
    d.stream_begin_capture(s1, G)
    env.k(s1)
    d.event_record(env.e1, s1)
    d.stream_wait_event(s2, env.e1, 0)
    env.k(s1)
    env.k(s2)
    d.event_record(env.e2, s2)
    d.stream_wait_event(s1, env.e2, 0)
    env.k(s1)
    g = d.stream_end_capture(s1)
    assert edges(d, g) == [(0, 1), (0, 2), (1, 3), (2, 3)]
    assert d.stream_is_capturing(s2) == cap.NONE


def test_unjoined_work_is_904_and_terminates(env):
    """Work left on a fork after the last join makes EndCapture return 904 (4.4)."""
    d, s1, s2 = env.d, env.s1, env.s2
    d.stream_begin_capture(s1, G)
    env.k(s1)
    d.event_record(env.e1, s1)
    d.stream_wait_event(s2, env.e1, 0)
    env.k(s2)
    d.event_record(env.e2, s2)
    d.stream_wait_event(s1, env.e2, 0)
    env.k(s2)
    assert code(d.stream_end_capture, s1) == 904
    assert d.stream_is_capturing(s1) == cap.NONE
    assert d.stream_is_capturing(s2) == cap.NONE


def test_sync_of_capturing_stream_invalidates_even_relaxed(env):
    """cuStreamSynchronize on a capturing stream is 900 in RELAXED mode too, and invalidates (5.3)."""
    d = env.d
    d.stream_begin_capture(env.s1, R)
    assert code(d.stream_synchronize, env.s1) == 900
    assert d.stream_is_capturing(env.s1) == cap.INVALIDATED
    assert code(env.k, env.s1) == 901
    assert code(d.stream_end_capture, env.s1) == 901


def test_unsafe_alloc_invalidates_global_capture_and_keeps_restricting(env):
    """cuMemAlloc in a GLOBAL capture is 900; a second one is refused too until EndCapture (5.2)."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    assert code(d.mem_alloc, 256) == 900
    assert code(d.mem_alloc, 256) == 900
    assert code(d.stream_end_capture, env.s1) == 901
    assert d.mem_alloc(256)


def test_relaxed_thread_may_allocate(env):
    """A thread switched to RELAXED may allocate during its GLOBAL capture, which stays ACTIVE (5.2)."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    assert d.thread_exchange_stream_capture_mode(R) == G
    assert d.mem_alloc(256)
    assert d.thread_exchange_stream_capture_mode(G) == R
    assert d.stream_is_capturing(env.s1) == cap.ACTIVE
    d.stream_end_capture(env.s1)


def test_captured_event_query_is_907_and_invalidates(env):
    """Querying an event recorded in a capture gives 907 and invalidates it (5.3)."""
    d = env.d
    d.stream_begin_capture(env.s1, R)
    d.event_record(env.e1, env.s1)
    assert code(d.event_query, env.e1) == 907
    assert d.stream_is_capturing(env.s1) == cap.INVALIDATED


def test_legacy_stream_use_under_blocking_capture_is_906(env):
    """A launch on the legacy stream while a blocking stream captures is 906 and invalidates (6)."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    assert code(env.k, 1) == 906
    assert d.stream_is_capturing(env.s1) == cap.INVALIDATED


def test_non_blocking_capture_leaves_legacy_usable(env):
    """With only a non-blocking stream capturing, legacy work runs and is not captured (6)."""
    d = env.d
    d.stream_begin_capture(env.n1, G)
    env.k(1)
    assert d.stream_is_capturing(1) == cap.NONE
    env.k(env.n1)
    assert len(d.graph_get_nodes(d.stream_end_capture(env.n1))) == 1


def test_isolation_and_merge(env):
    """Waiting on uncaptured work is 905; waiting on another capture's event is 902 for both (4.1)."""
    d = env.d
    env.k(env.s3)
    d.event_record(env.e0, env.s3)
    d.stream_begin_capture(env.s1, G)
    assert code(d.stream_wait_event, env.s1, env.e0, 0) == 905
    assert d.stream_is_capturing(env.s1) == cap.INVALIDATED
    assert code(d.stream_end_capture, env.s1) == 901
    d.stream_begin_capture(env.s1, G)
    d.stream_begin_capture(env.s2, G)
    d.event_record(env.e1, env.s2)
    assert code(d.stream_wait_event, env.s1, env.e1, 0) == 902
    assert d.stream_is_capturing(env.s1) == cap.INVALIDATED
    assert d.stream_is_capturing(env.s2) == cap.INVALIDATED


def test_graph_launch_into_capture_is_900_unless_opted_in(env):
    """cuGraphLaunch into a capturing stream is 900 and invalidates; the opt-in adds a GRAPH node (3.8)."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    env.k(env.s1)
    x = d.graph_instantiate(d.stream_end_capture(env.s1), 0)
    d.stream_begin_capture(env.s2, G)
    assert code(d.graph_launch, x, env.s2) == 900
    assert d.stream_is_capturing(env.s2) == cap.INVALIDATED
    d2 = Driver(options=Options(graph_launch_in_capture="child-node"))
    d2.init(0)
    d2.ctx_create(0, 0)
    f = d2.module_get_function(d2.module_load_data(PTX), "k")
    s = d2.stream_create(0)
    d2.stream_begin_capture(s, G)
    d2.launch_kernel(f, (1, 1, 1), (1, 1, 1), 0, s, [])
    x2 = d2.graph_instantiate(d2.stream_end_capture(s), 0)
    d2.stream_begin_capture(s, G)
    d2.graph_launch(x2, s)
    g = d2.stream_end_capture(s)
    assert [d2.graph_node_get_type(n) for n in d2.graph_get_nodes(g)] == [4]


def test_end_capture_is_linear_in_size(env):
    """The unjoined check visits each node once: a 20k-node 8-way fork ends successfully."""
    d = env.d
    streams = [env.s1] + [d.stream_create(0) for _ in range(7)]
    evs = [d.event_create(0) for _ in range(16)]
    d.stream_begin_capture(env.s1, G)
    d.event_record(evs[0], env.s1)
    for s in streams[1:]:
        d.stream_wait_event(s, evs[0], 0)
    for _ in range(2500):
        for s in streams:
            env.k(s)
    for i, s in enumerate(streams[1:], 1):
        d.event_record(evs[i], s)
        d.stream_wait_event(env.s1, evs[i], 0)
    g = d.stream_end_capture(env.s1)
    assert len(d.graph_get_nodes(g)) == 20000


def test_new_thread_with_recycled_ident_starts_global_without_context():
    """A thread that reuses a finished thread's ident starts in GLOBAL mode with no context (spec 1, 2.5)."""
    d = Driver()
    d.init(0)
    ctx = d.ctx_create(0, 0)
    seen = []

    def worker():
        try:
            seen.append(d.thread_exchange_stream_capture_mode(R))
        except DriverError as e:  # pragma: no cover - reported through the assertion below
            seen.append(e)
        try:
            d.ctx_get_device()
            seen.append("had a context")
        except DriverError as e:
            seen.append(int(e.code))
        d.ctx_set_current(ctx)
    idents = set()
    for _ in range(30):
        t = threading.Thread(target=worker)
        t.start()
        idents.add(t.ident)
        t.join()
    assert seen == [G, 201] * 30
    if len(idents) == 30:
        pytest.skip("this platform did not recycle a thread ident, so the reuse path was not exercised")


def test_why_reports_the_status_before_the_invalidating_call(env):
    """The why of an invalidating call describes the capture as it was (ACTIVE), then says it is now invalidated."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    with pytest.raises(DriverError) as ei:
        d.stream_synchronize(env.s1)
    assert "ACTIVE" in ei.value.why and "now invalidated" in ei.value.why
    assert "INVALIDATED)" not in ei.value.why


def test_device_allocation_larger_than_the_host_can_back_is_out_of_memory():
    """cuMemAlloc of more than the host can hold gives OUT_OF_MEMORY (2), not a Python MemoryError."""
    import resource
    d = Driver()
    d.init(0)
    d.ctx_create(0, 0)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (8 * 1024 ** 3, hard))
    try:
        assert code(d.mem_alloc, 60 * 1024 ** 3) == 2
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    assert d.mem_get_info()[0] == min(d.mem_get_info()[1], d.memory.budget - SPACE.committed)  # spec 17
