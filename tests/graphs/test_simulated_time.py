"""Simulated time (spec 16, 2.4, 9) [I]: one 0.001 ms tick per operation that runs, eager or replayed."""
from __future__ import annotations

import pytest

from simcuda.faces.bindings import driver as cu

from .conftest import ok

TICK = 0.001


def elapsed(e0, e1):
    """``cuEventElapsedTime(e0, e1)`` that must succeed."""
    return ok(cu.cuEventElapsedTime(e0, e1))


def kernel_graph(env, n):
    """A captured chain of ``n`` kernel nodes."""
    return env.kernels(n)


def child_node(g, deps, child):
    return ok(cu.cuGraphAddChildGraphNode(g, deps, len(deps), child))


def test_eager_events_around_a_graph_launch_measure_its_nodes(env):
    """Eager records around a launch of 3 kernel nodes are 3 ticks apart (the launch itself does not tick)."""
    x = ok(cu.cuGraphInstantiate(kernel_graph(env, 3), 0))
    ok(cu.cuEventRecord(env.e1, env.s1))
    ok(cu.cuGraphLaunch(x, env.s1))
    ok(cu.cuEventRecord(env.e2, env.s1))
    ok(cu.cuEventSynchronize(env.e2))
    assert elapsed(env.e1, env.e2) == pytest.approx(3 * TICK)
    assert [r.kind for r in env.d.launch_log] == ["KERNEL"] * 3


def test_two_records_with_nothing_between_are_zero(env):
    """Two eager records with no operation between them give exactly 0.0 ms."""
    ok(env.launch(env.k, env.s1))
    ok(cu.cuEventRecord(env.e1, env.s1))
    ok(cu.cuEventRecord(env.e2, env.s1))
    assert elapsed(env.e1, env.e2) == 0.0


def test_eager_operations_each_tick_once(env):
    """A memset, a kernel and a host function between two eager records measure 3 ticks; reversed order is negative."""
    fn = env.host_fn(lambda _p: None)
    ok(cu.cuEventRecord(env.e1, env.s1))
    ok(cu.cuMemsetD8Async(env.buf, 1, 4, env.s1))
    ok(env.launch(env.k, env.s1))
    ok(cu.cuLaunchHostFunc(env.s1, fn, None))
    ok(cu.cuEventRecord(env.e2, env.s1))
    assert elapsed(env.e1, env.e2) == pytest.approx(3 * TICK)
    assert elapsed(env.e2, env.e1) == pytest.approx(-3 * TICK)


def test_event_record_nodes_measure_the_nodes_between_them(env):
    """EVENT_RECORD nodes stamp the clock when the replay reaches them: E, rec(e1), E, E, rec(e2) measures 2 ticks."""
    g = ok(cu.cuGraphCreate(0))
    ev = env.e1, env.e2
    p = ok(cu.cuGraphAddEmptyNode(g, None, 0))  # runs before the first record: not measured
    r1 = ok(cu.cuGraphAddEventRecordNode(g, [p], 1, ev[0]))
    a = ok(cu.cuGraphAddEmptyNode(g, [r1], 1))
    b = ok(cu.cuGraphAddEmptyNode(g, [a], 1))
    ok(cu.cuGraphAddEventRecordNode(g, [b], 1, ev[1]))
    x = ok(cu.cuGraphInstantiate(g, 0))
    ok(cu.cuGraphLaunch(x, env.s1))
    ok(cu.cuStreamSynchronize(env.s1))
    assert elapsed(*ev) == pytest.approx(2 * TICK)


def test_adjacent_event_record_nodes_are_zero_apart(env):
    """Two EVENT_RECORD nodes with no node between them measure exactly 0.0 ms."""
    g = ok(cu.cuGraphCreate(0))
    r1 = ok(cu.cuGraphAddEventRecordNode(g, None, 0, env.e1))
    ok(cu.cuGraphAddEventRecordNode(g, [r1], 1, env.e2))
    ok(cu.cuGraphLaunch(ok(cu.cuGraphInstantiate(g, 0)), env.s1))
    assert elapsed(env.e1, env.e2) == 0.0


def test_captured_record_nodes_time_the_captured_kernels(env):
    """A capture with EXTERNAL records around 4 kernels replays them 4 ticks apart."""
    ext = cu.CUevent_record_flags.CU_EVENT_RECORD_EXTERNAL

    def body(s):
        ok(cu.cuEventRecordWithFlags(env.e1, s, ext))
        for _ in range(4):
            ok(env.launch(env.k, s))
        ok(cu.cuEventRecordWithFlags(env.e2, s, ext))
    g = env.capture(body)
    assert env.types(g) == [int(cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_EVENT_RECORD)] + [0] * 4 + [
        int(cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_EVENT_RECORD)]
    ok(cu.cuGraphLaunch(ok(cu.cuGraphInstantiate(g, 0)), env.s1))
    assert elapsed(env.e1, env.e2) == pytest.approx(4 * TICK)


def test_nested_child_graphs_count_node_by_node(env):
    """E, child(E, child(K, K)) replays 4 nodes: 4 ticks, the two child-graph nodes add none."""
    inner = kernel_graph(env, 2)
    middle = ok(cu.cuGraphCreate(0))
    mk = ok(cu.cuGraphAddEmptyNode(middle, None, 0))
    child_node(middle, [mk], inner)
    outer = ok(cu.cuGraphCreate(0))
    oe = ok(cu.cuGraphAddEmptyNode(outer, None, 0))
    child_node(outer, [oe], middle)
    x = ok(cu.cuGraphInstantiate(outer, 0))
    ok(cu.cuEventRecord(env.e1, env.s1))
    ok(cu.cuGraphLaunch(x, env.s1))
    ok(cu.cuEventRecord(env.e2, env.s1))
    assert elapsed(env.e1, env.e2) == pytest.approx(4 * TICK)


def test_disabled_nodes_tick_as_empty_nodes(env):
    """A disabled kernel node still runs as an empty node and ticks; the kernel itself does not run."""
    g = kernel_graph(env, 2)
    x = ok(cu.cuGraphInstantiate(g, 0))
    ok(cu.cuGraphNodeSetEnabled(x, env.nodes(g)[0], 0))
    ok(cu.cuEventRecord(env.e1, env.s1))
    ok(cu.cuGraphLaunch(x, env.s1))
    ok(cu.cuEventRecord(env.e2, env.s1))
    assert elapsed(env.e1, env.e2) == pytest.approx(2 * TICK)


def test_manual_progression_times_the_work_when_it_runs(menv):
    """With manual progression pending records complete when the stream runs; the elapsed time is the same rule."""
    env = menv
    x = ok(cu.cuGraphInstantiate(kernel_graph(env, 2), 0))
    ok(cu.cuEventRecord(env.e1, env.s1))
    ok(env.launch(env.k, env.s1))
    ok(cu.cuGraphLaunch(x, env.s1))
    ok(cu.cuEventRecord(env.e2, env.s1))
    assert cu.cuEventElapsedTime(env.e1, env.e2)[0] == cu.CUresult.CUDA_ERROR_NOT_READY
    env.d.advance()
    assert elapsed(env.e1, env.e2) == pytest.approx(3 * TICK)


def test_an_empty_launch_does_not_move_the_clock(env):
    """Launching an exec of an empty graph runs nothing, so the records around it are 0.0 ms apart."""
    x = ok(cu.cuGraphInstantiate(ok(cu.cuGraphCreate(0)), 0))
    ok(cu.cuEventRecord(env.e1, env.s1))
    ok(cu.cuGraphLaunch(x, env.s1))
    ok(cu.cuEventRecord(env.e2, env.s1))
    assert elapsed(env.e1, env.e2) == 0.0
