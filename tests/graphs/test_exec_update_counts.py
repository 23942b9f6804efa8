"""cuGraphExecUpdate when node counts differ (spec 16, narrowed by 17; 9): the shapes of observations (a)-(d) with
memset nodes, all 910 with a NULL error node. Spec 17: NOT_SUPPORTED only when an unpartnered node is a memcpy node
(the observations' own memcpy form is in tests/core/test_exec_update_counts.py), so these are TOPOLOGY_CHANGED."""
from __future__ import annotations

import numpy as np
import pytest

import simcuda
from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings._v2 import driver as v2

from .conftest import err, ok

UR = cu.CUgraphExecUpdateResult
TOPOLOGY_CHANGED = int(UR.CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED)
NOT_SUPPORTED = int(UR.CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED)


@pytest.fixture
def bufs(env):
    """Two zeroed 4-int device buffers ``env.buf`` and ``env.buf2``."""
    env.buf2 = ok(cu.cuMemAlloc(16))
    ok(cu.cuMemsetD8(env.buf2, 0, 16))
    return env


def memsets(env, *pairs):
    """A captured graph of one 4-int memset per ``(buffer, value)``, in order."""
    return env.capture(lambda s: [ok(cu.cuMemsetD32Async(b, v, 4, s)) for b, v in pairs])


def ints(env, ptr):
    return np.frombuffer(env.read(ptr), np.int32).tolist()


def fails_with(x, g, result):
    """The tuple face gives (910, None); the _v2 face's result_info shows ``result`` and a NULL error node."""
    res = cu.cuGraphExecUpdate(x, g)
    assert res == (cu.CUresult.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, None)
    with pytest.raises(v2.GraphExecUpdateFailureError) as ei:
        v2.graph_exec_update_v2(int(x), int(g))
    info = ei.value.result_info
    assert int(info.result) == result
    assert int(info.error_node) == 0 and int(info.error_from_node) == 0
    assert simcuda.last_error().update_info == (result, 0, 0)
    return ei.value


def launch_and_read(env, x):
    """Zero both buffers, launch ``x`` on s1, wait, and return both buffers' ints."""
    ok(cu.cuMemsetD8(env.buf, 0, 16))
    ok(cu.cuMemsetD8(env.buf2, 0, 16))
    ok(cu.cuGraphLaunch(x, env.s1))
    ok(cu.cuStreamSynchronize(env.s1))
    return ints(env, env.buf), ints(env, env.buf2)


def test_a_same_graph_with_a_node_destroyed_is_topology_changed(bufs):
    """(a) exec of a 2-node G, one node of G destroyed, update from G: TOPOLOGY_CHANGED, the exec keeps both nodes."""
    env = bufs
    g = memsets(env, (env.buf, 1), (env.buf2, 2))
    x = ok(cu.cuGraphInstantiate(g, 0))
    ok(cu.cuGraphDestroyNode(env.nodes(g)[1]))
    e = fails_with(x, g, TOPOLOGY_CHANGED)
    assert "TOPOLOGY_CHANGED" in e.why and "spec 16 (a)" in e.why
    assert launch_and_read(env, x) == ([1] * 4, [2] * 4)


def test_b_unrelated_one_node_exec_from_a_graph_with_a_destroyed_node(bufs):
    """(b) with memsets: exec of an unrelated 1-node graph, update from G (2 created, 1 destroyed): TOPOLOGY_CHANGED
    (no memcpy node unpartnered, spec 17), exec unchanged."""
    env = bufs
    x = ok(cu.cuGraphInstantiate(memsets(env, (env.buf, 5)), 0))
    g = memsets(env, (env.buf, 7), (env.buf2, 8))
    ok(cu.cuGraphDestroyNode(env.nodes(g)[1]))
    assert len(env.nodes(g)) == 1  # same live count as the exec's graph
    e = fails_with(x, g, TOPOLOGY_CHANGED)
    assert "created 2 nodes" in e.why and "had created 1" in e.why
    assert launch_and_read(env, x) == ([5] * 4, [0] * 4)


def test_c_node_added_to_the_exec_graph(bufs):
    """(c) exec of a 1-node G, an EMPTY node added to G, update from G: TOPOLOGY_CHANGED (spec 17), the exec still
    runs one node."""
    env = bufs
    g = memsets(env, (env.buf, 5))
    x = ok(cu.cuGraphInstantiate(g, 0))
    ok(cu.cuGraphAddEmptyNode(g, None, 0))
    fails_with(x, g, TOPOLOGY_CHANGED)
    assert launch_and_read(env, x) == ([5] * 4, [0] * 4)


def test_d_two_node_exec_from_an_unrelated_one_node_graph(bufs):
    """(d) with memsets: exec of a 2-node graph, update from an unrelated 1-node graph: TOPOLOGY_CHANGED (spec 17),
    the exec keeps both nodes."""
    env = bufs
    x = ok(cu.cuGraphInstantiate(memsets(env, (env.buf, 1), (env.buf2, 2)), 0))
    fails_with(x, memsets(env, (env.buf, 9)), TOPOLOGY_CHANGED)
    assert launch_and_read(env, x) == ([1] * 4, [2] * 4)


def test_same_created_count_with_a_destroyed_node_still_updates(bufs):
    """An exec made after a node was destroyed updates from its graph (same created and live counts): SUCCESS."""
    env = bufs
    g = memsets(env, (env.buf, 1), (env.buf2, 2), (env.buf, 3))
    n0, _n1, n2 = env.nodes(g)
    ok(cu.cuGraphDestroyNode(n2))
    x = ok(cu.cuGraphInstantiate(g, 0))
    p = ok(cu.cuGraphMemsetNodeGetParams(n0))
    p.value = 4
    ok(cu.cuGraphMemsetNodeSetParams(n0, p))
    info = ok(cu.cuGraphExecUpdate(x, g))
    assert info.result == UR.CU_GRAPH_EXEC_UPDATE_SUCCESS and int(info.errorNode) == 0
    assert launch_and_read(env, x) == ([4] * 4, [2] * 4)


def test_child_graph_setter_refuses_a_child_that_created_more_nodes(bufs):
    """cuGraphExecChildGraphNodeSetParams with a child that created more nodes is INVALID_VALUE naming the result
    (TOPOLOGY_CHANGED: no memcpy node unpartnered, spec 17)."""
    env = bufs
    child = memsets(env, (env.buf, 1))
    g = ok(cu.cuGraphCreate(0))
    cn = ok(cu.cuGraphAddChildGraphNode(g, None, 0, child))
    x = ok(cu.cuGraphInstantiate(g, 0))
    e = err(cu.cuGraphExecChildGraphNodeSetParams(x, cn, memsets(env, (env.buf, 2), (env.buf2, 3))), 1)
    assert "TOPOLOGY_CHANGED" in e.why
    assert launch_and_read(env, x) == ([1] * 4, [0] * 4)
