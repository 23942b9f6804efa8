"""Section C of conformance-cases.md: fork/join and graph shape (spec 3.8, 4.1-4.5)."""
from __future__ import annotations

import pytest


def test_c039_fork_join_guide_example(cu):
    """A fork through an event and a join back give the diamond A->B, A->C, B->D, C->D in one graph."""
    g = cu.capture_fork_join()
    A, B, C, D = 0, 1, 2, 3
    K = cu.KERNEL
    assert cu.shape(g) == ([K, K, K, K], sorted([(A, B), (A, C), (B, D), (C, D)]))


def test_c041_dependency_set_of_a_forked_stream(cu):
    """A stream forked from an event starts with the recording stream's dependency set, with zero edge data."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e1))
    st2, id2, g, deps2, eds2, n2 = cu.info(cu.s2)
    A = cu.nodes(g)[0]
    assert st2 == cu.ACTIVE and int(id2) == cu.capture_id(cu.s1)
    assert [int(x) for x in deps2] == [int(A)] and n2 == 1
    assert len(eds2) == 1
    assert (eds2[0].from_port, eds2[0].to_port, eds2[0].type) == (0, 0, 0)
    _st1, _, _, deps1, eds1, n1 = cu.info(cu.s1)
    assert [int(x) for x in deps1] == [int(A)] and n1 == 1 and len(eds1) == 1
    cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)


def test_c042_three_way_fork_and_join(cu):
    """The Guide's three-branch example: roots M, S2, S3 and the edges given by stream order and joins."""
    d = cu.drv
    eF = cu.e0
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.rec(eF, cu.s1))
    cu.ok(cu.wait(cu.s2, eF))
    cu.ok(cu.wait(cu.s3, eF))
    cu.ok(cu.cpy(cu.s1))                    # M
    cu.ok(cu.memset(cu.s2))                    # S2
    cu.ok(cu.rec(cu.e2, cu.s2))
    cu.ok(cu.memset(cu.s3))                    # S3
    cu.ok(cu.rec(cu.e3, cu.s3))
    cu.ok(cu.wait(cu.s1, cu.e2))
    cu.ok(cu.K(cu.s1))                      # R1
    cu.ok(cu.wait(cu.s1, cu.e3))
    cu.ok(cu.K(cu.s1))                      # R2
    cu.ok(cu.cpy(cu.s1))                    # O
    cu.ok(cu.hostfn(cu.s1))                   # H
    g = cu.end_ok(cu.s1)
    for s in (cu.s1, cu.s2, cu.s3):
        cu.iscap(s, cu.NONE)
    M, S2, S3, R1, R2, O_, H = range(7)  # O_: the copy O
    assert cu.shape(g) == (
        [cu.MEMCPY, cu.MEMSET, cu.MEMSET, cu.KERNEL, cu.KERNEL, cu.MEMCPY, cu.HOST],
        sorted([(M, R1), (S2, R1), (R1, R2), (S3, R2), (R2, O_), (O_, H)]))
    roots, n = cu.ok(d.cuGraphGetRootNodes(g, 3))
    nodes = cu.nodes(g)
    assert n == 3 and sorted(int(r) for r in roots) == sorted(int(nodes[i]) for i in (M, S2, S3))


@pytest.mark.inferred
def test_c043_incoming_edges_follow_the_deps_set_order(cu):
    """Joins append to the deps set in wait order, incoming edges follow it, and redundant edges are kept."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e1))
    cu.ok(cu.wait(cu.s3, cu.e1))
    cu.ok(cu.K(cu.s2))                      # B
    cu.ok(cu.K(cu.s3))                      # C
    cu.ok(cu.rec(cu.e2, cu.s2))
    cu.ok(cu.rec(cu.e3, cu.s3))
    cu.ok(cu.wait(cu.s1, cu.e3))
    cu.ok(cu.wait(cu.s1, cu.e2))
    _, _, g, deps, _, n = cu.info(cu.s1)
    A, B, C, D = 0, 1, 2, 3
    nodes = cu.nodes(g)
    assert [int(x) for x in deps] == [int(nodes[A]), int(nodes[C]), int(nodes[B])] and n == 3
    cu.ok(cu.K(cu.s1))                      # D
    g = cu.end_ok(cu.s1)
    for s in (cu.s1, cu.s2, cu.s3):
        cu.iscap(s, cu.NONE)
    assert cu.types(g) == [cu.KERNEL] * 4
    assert cu.edges(g) == [(A, B), (A, C), (A, D), (C, D), (B, D)]


@pytest.mark.inferred
def test_c045_event_recorded_before_any_captured_work(cu):
    """An event recorded on an empty deps set forks a stream with no dependencies: its first node is a root."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e1))
    st, _, _, deps, eds, n = cu.info(cu.s2)
    assert st == cu.ACTIVE and list(deps) == [] and list(eds) == [] and n == 0
    cu.ok(cu.K(cu.s1))                      # A
    cu.ok(cu.K(cu.s2))                      # C
    cu.ok(cu.rec(cu.e2, cu.s2))
    cu.ok(cu.wait(cu.s1, cu.e2))
    cu.ok(cu.K(cu.s1))                      # D
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)
    A, C, D = 0, 1, 2
    assert cu.shape(g) == ([cu.KERNEL] * 3, sorted([(A, D), (C, D)]))
    roots, n = cu.ok(d.cuGraphGetRootNodes(g, 2))
    nodes = cu.nodes(g)
    assert n == 2 and sorted(int(r) for r in roots) == sorted([int(nodes[A]), int(nodes[C])])


def test_c046_re_recording_an_event_updates_its_snapshot(cu):
    """A wait uses the event's last record: C depends on B only, not on A."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.K(cu.s1))                      # B
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e1))
    cu.ok(cu.K(cu.s2))                      # C
    cu.ok(cu.rec(cu.e2, cu.s2))
    cu.ok(cu.wait(cu.s1, cu.e2))
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)
    A, B, C = 0, 1, 2
    assert cu.shape(g) == ([cu.KERNEL] * 3, [(A, B), (B, C)])


def test_c047_a_wait_uses_the_record_current_at_the_time_of_the_wait(cu):
    """Re-recording an event after a wait does not change what the earlier wait joined."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e1))
    cu.ok(cu.K(cu.s1))                      # B
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.K(cu.s2))                      # C
    cu.ok(cu.rec(cu.e2, cu.s2))
    cu.ok(cu.wait(cu.s1, cu.e2))
    cu.ok(cu.K(cu.s1))                      # D
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)
    A, B, C, D = 0, 1, 2, 3
    assert cu.shape(g) == ([cu.KERNEL] * 4, sorted([(A, B), (A, C), (B, D), (C, D)]))


@pytest.mark.inferred
def test_c049_work_on_the_fork_after_the_join(cu):
    """Work enqueued on a forked stream after its last join makes EndCapture return 904; the capture is over."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e1))
    cu.ok(cu.K(cu.s2))                      # C
    cu.ok(cu.rec(cu.e2, cu.s2))
    cu.ok(cu.wait(cu.s1, cu.e2))
    cu.ok(cu.K(cu.s2))                      # X
    res = cu.end(cu.s1)
    cu.err(res, 904)
    assert res[1] is None
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)


@pytest.mark.inferred
def test_c050_ending_the_capture_on_a_forked_stream(cu):
    """EndCapture on a forked member returns 903 and invalidates the capture, which the origin then ends with 901."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e1))
    cu.ok(cu.K(cu.s1))                      # A
    cu.ok(cu.K(cu.s2))                      # B
    res = cu.end(cu.s2)
    cu.err(res, 903)
    assert res[1] is None
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.iscap(cu.s2, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)


def test_c051_beginning_a_capture_on_a_member_of_another_capture(cu):
    """BeginCapture on a forked member returns 401 and leaves the capture it belongs to intact."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e1))
    cu.ok(cu.K(cu.s1))                      # A
    cu.err(cu.begin(cu.s2, cu.G), 401)
    cu.iscap(cu.s2, cu.ACTIVE)
    cu.iscap(cu.s1, cu.ACTIVE)
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])


def test_c053_external_wait_on_an_uncaptured_event(cu):
    """CU_EVENT_WAIT_EXTERNAL on an uncaptured event adds a WAIT_EVENT node instead of failing with ISOLATION."""
    d = cu.drv
    cu.ok(cu.rec(cu.e0, cu.s2))
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(d.cuStreamWaitEvent(cu.s1, cu.e0, cu.WAIT_EXTERNAL))   # W
    cu.ok(cu.K(cu.s1))                                          # A
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    W, A = 0, 1
    assert cu.shape(g) == ([cu.WAIT_EVENT, cu.KERNEL], [(W, A)])


@pytest.mark.inferred
def test_c054_external_wait_outside_capture(cu):
    """CU_EVENT_WAIT_EXTERNAL on a stream that is not capturing returns 1 INVALID_VALUE."""
    d = cu.drv
    cu.err(d.cuStreamWaitEvent(cu.s1, cu.e0, cu.WAIT_EXTERNAL), 1)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c055_external_record_outside_capture(cu):
    """CU_EVENT_RECORD_EXTERNAL on a stream that is not capturing returns 1 INVALID_VALUE."""
    d = cu.drv
    cu.err(d.cuEventRecordWithFlags(cu.e0, cu.s1, cu.RECORD_EXTERNAL), 1)
    cu.iscap(cu.s1, cu.NONE)


def test_c057_graph_memory_nodes_through_capture(cu):
    """cuMemAllocAsync and cuMemFreeAsync during capture become MEM_ALLOC and MEM_FREE nodes in stream order."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    p = cu.ok(d.cuMemAllocAsync(256, cu.s1))                    # M
    assert p is not None and int(p) != 0
    cu.ok(cu.K(cu.s1))                                          # A
    cu.ok(d.cuMemFreeAsync(p, cu.s1))                           # F
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    M, A, F = 0, 1, 2
    assert cu.shape(g) == ([cu.MEM_ALLOC, cu.KERNEL, cu.MEM_FREE], [(M, A), (A, F)])


def test_c058_forked_allocation_use(cu):
    """The Guide's memory-node example: the free waits for both branches that use the allocation."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    p = cu.ok(d.cuMemAllocAsync(256, cu.s1))                    # M
    cu.ok(cu.K(cu.s1))                                          # A
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e1))
    cu.ok(cu.K(cu.s1))                                          # B
    cu.ok(cu.K(cu.s2))                                          # C
    cu.ok(cu.rec(cu.e2, cu.s2))
    cu.ok(cu.wait(cu.s1, cu.e2))
    cu.ok(d.cuMemFreeAsync(p, cu.s1))                           # F
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)
    M, A, B, C, F = range(5)
    assert cu.shape(g) == ([cu.MEM_ALLOC, cu.KERNEL, cu.KERNEL, cu.KERNEL, cu.MEM_FREE],
                           sorted([(M, A), (A, B), (A, C), (B, F), (C, F)]))


@pytest.mark.inferred
def test_c059_free_async_of_a_non_graph_allocation_during_capture(cu):
    """cuMemFreeAsync of ordinary device memory during capture returns 1 and leaves the capture ACTIVE."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(d.cuMemFreeAsync(cu.d, cu.s1), 1)
    cu.iscap(cu.s1, cu.ACTIVE)
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([], [])


def test_c056_an_event_recorded_in_an_ended_capture_stays_capture_bound(cu):
    """After its capture ends an event recorded in it stays bound (spec 17): host synchronise 1, a wait from an idle
    stream 401, a wait in a later capture adds nothing; a record outside capture frees it."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                                          # A
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    cu.err(d.cuEventSynchronize(cu.e1), 1)
    cu.err(d.cuEventQuery(cu.e1), 1)                            # [I]
    cu.err(cu.wait(cu.s2, cu.e1), 401)
    cu.iscap(cu.s2, cu.NONE)
    cu.ok(cu.begin(cu.s3, cu.G))
    cu.ok(cu.wait(cu.s3, cu.e1))                                # [I] a no-op
    st, _, _, deps, _, n = cu.info(cu.s3)
    assert st == cu.ACTIVE and list(deps) == [] and n == 0
    cu.end_ok(cu.s3)
    cu.ok(cu.rec(cu.e1, cu.s2))
    cu.ok(d.cuEventSynchronize(cu.e1))
    cu.ok(cu.wait(cu.s2, cu.e1))
