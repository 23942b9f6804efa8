"""cuGraphExecUpdate (pairing and results), per-node exec setters, enable/disable (spec 9; C-137..C-139)."""
from __future__ import annotations

import numpy as np
import pytest

import simcuda
from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings._v2 import driver as v2

from .conftest import err, ok

UR = cu.CUgraphExecUpdateResult
FAIL = 910


def chain(env, spec):
    """A graph of EMPTY nodes from ``spec``: one list of dependency indices per node, creation order."""
    g = ok(cu.cuGraphCreate(0))
    nodes = []
    for deps in spec:
        d = [nodes[i] for i in deps]
        nodes.append(ok(cu.cuGraphAddEmptyNode(g, d, len(d))))
    return g, nodes


def update_fails(x, g, result):
    """Assert (910, None) from the classic face and return the recorded error (why + update_info)."""
    e = err(cu.cuGraphExecUpdate(x, g), FAIL)
    assert e.update_info[0] == int(result)
    assert UR(result).name.replace("CU_GRAPH_EXEC_UPDATE_ERROR_", "") in e.why
    return e


def test_same_topology_updates_parameters(env):
    """C-137: SUCCESS with NULL error nodes; the next launch uses the new graph's parameters."""
    x = ok(cu.cuGraphInstantiate(env.capture(lambda s: ok(cu.cuMemsetD32Async(env.buf, 1, 4, s))), 0))
    g2 = env.capture(lambda s: ok(cu.cuMemsetD32Async(env.buf, 5, 4, s)))
    info = ok(cu.cuGraphExecUpdate(x, g2))
    assert info.result == UR.CU_GRAPH_EXEC_UPDATE_SUCCESS and int(info.errorNode) == 0
    ok(cu.cuGraphLaunch(x, env.s2))
    assert np.frombuffer(env.read(env.buf), np.int32).tolist() == [5, 5, 5, 5]


def test_node_count_changed(env):
    """C-138: a different (created) node count of kernel nodes is TOPOLOGY_CHANGED (spec 17: no memcpy node
    unpartnered) with a NULL error node; the exec is unchanged."""
    x = ok(cu.cuGraphInstantiate(env.kernels(2), 0))
    e = update_fails(x, env.kernels(3), UR.CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED)
    assert e.update_info[1:] == (0, 0)
    ok(cu.cuGraphLaunch(x, env.s2))
    assert [r.kind for r in env.d.launch_log] == ["KERNEL", "KERNEL"]


def test_more_exit_nodes(env):
    """More exit nodes than the exec's graph: TOPOLOGY_CHANGED with one of the new exit nodes."""
    g1, _ = chain(env, [[], [0], [1]])
    g2, (_a, b, _c) = chain(env, [[], [0], [0]])
    x = ok(cu.cuGraphInstantiate(g1, 0))
    e = update_fails(x, g2, UR.CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED)
    assert e.update_info[1] == int(b)


def test_dependency_count_changed(env):
    """A paired node with another number of dependencies: TOPOLOGY_CHANGED, error node = that node."""
    g1, _ = chain(env, [[], [0], [1]])
    g2, (_a, _b, c) = chain(env, [[], [0], [0, 1]])
    x = ok(cu.cuGraphInstantiate(g1, 0))
    e = update_fails(x, g2, UR.CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED)
    assert e.update_info[1:] == (int(c), 0)


def test_dependency_changed_names_error_from_node(env):
    """A dependency paired by edge order that does not match: error node and error-from node are set."""
    g1, _ = chain(env, [[], [], [0]])
    g2, (_a, b, c) = chain(env, [[], [], [1]])
    x = ok(cu.cuGraphInstantiate(g1, 0))
    e = update_fails(x, g2, UR.CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED)
    assert e.update_info[1:] == (int(c), int(b))


def test_node_type_changed(env):
    """C-139: [MEMSET, KERNEL] against an exec of [KERNEL, KERNEL]: NODE_TYPE_CHANGED with the memset node."""
    x = ok(cu.cuGraphInstantiate(env.kernels(2), 0))
    g = env.capture(lambda s: (ok(cu.cuMemsetD8Async(env.buf, 1, 4, s)), ok(env.launch(env.k, s))))
    e = update_fails(x, g, UR.CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED)
    assert e.update_info[1] == int(env.nodes(g)[0])


def test_kernel_function_changes(env):
    """Another function of the same context updates; a function of another context is
    UNSUPPORTED_FUNCTION_CHANGE (the owning context cannot change; FUNCTION_CHANGED is for drivers < 11.2)."""
    x = ok(cu.cuGraphInstantiate(env.kernels(1), 0))
    ok(cu.cuGraphExecUpdate(x, env.kernels(1, env.k2)))
    ok(cu.cuGraphLaunch(x, env.s2))
    assert env.d.launch_log[-1].detail.startswith("k2<<<")
    ctx2 = ok(cu.cuCtxCreate(None, 0, cu.CUdevice(0)))
    mod2 = ok(cu.cuModuleLoadData(b'extern "C" __global__ void k() {}'))
    k_other = ok(cu.cuModuleGetFunction(mod2, b"k"))
    s = ok(cu.cuStreamCreate(0))
    g_other = env.capture(lambda st: ok(env.launch(k_other, st)), s)
    ok(cu.cuCtxSetCurrent(env.ctx))
    e = update_fails(x, g_other, UR.CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE)
    assert e.update_info[1] == int(env.nodes(g_other)[0]) and ctx2 is not None


def test_memcpy_and_memset_parameter_limits(env):
    """PARAMETERS_CHANGED: a memcpy whose direction changes, a memset into another kind of allocation, and a
    2D memset whose dimensions change; a 1D memset may change address, value and width."""
    h = np.zeros(4, np.int32)
    x = ok(cu.cuGraphInstantiate(env.capture(lambda s: ok(cu.cuMemcpyHtoDAsync(env.buf, h, 16, s))), 0))
    update_fails(x, env.capture(lambda s: ok(cu.cuMemcpyDtoHAsync(h, env.buf, 16, s))),
                 UR.CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED)
    other = ok(cu.cuMemAlloc(64))
    ok(cu.cuGraphExecUpdate(x, env.capture(lambda s: ok(cu.cuMemcpyHtoDAsync(other, h, 8, s)))))
    xs = ok(cu.cuGraphInstantiate(env.capture(lambda s: ok(cu.cuMemsetD8Async(env.buf, 1, 4, s))), 0))
    managed = ok(cu.cuMemAllocManaged(64, 1))
    update_fails(xs, env.capture(lambda s: ok(cu.cuMemsetD8Async(managed, 1, 4, s))),
                 UR.CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED)
    ok(cu.cuGraphExecUpdate(xs, env.capture(lambda s: ok(cu.cuMemsetD8Async(other, 7, 8, s)))))
    x2d = ok(cu.cuGraphInstantiate(env.capture(lambda s: ok(cu.cuMemsetD2D8Async(env.buf, 16, 1, 8, 2, s))), 0))
    update_fails(x2d, env.capture(lambda s: ok(cu.cuMemsetD2D8Async(env.buf, 16, 1, 4, 2, s))),
                 UR.CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED)
    ok(cu.cuGraphExecUpdate(x2d, env.capture(lambda s: ok(cu.cuMemsetD2D8Async(other, 16, 3, 8, 2, s)))))


def test_host_and_event_nodes_change_freely(env):
    """Host and event nodes have no update limits: the new function runs on the next launch."""
    calls = []
    f1, f2 = env.host_fn(lambda _u: calls.append(1)), env.host_fn(lambda _u: calls.append(2))
    x = ok(cu.cuGraphInstantiate(env.capture(lambda s: ok(cu.cuLaunchHostFunc(s, f1, None))), 0))
    ok(cu.cuGraphExecUpdate(x, env.capture(lambda s: ok(cu.cuLaunchHostFunc(s, f2, None)))))
    ok(cu.cuGraphLaunch(x, env.s2))
    assert calls == [2]


def test_memory_nodes_of_a_graph_instantiated_elsewhere(env):
    """A graph with memory nodes that is instantiated as another exec cannot update this one: NOT_SUPPORTED."""
    def body(s):
        p = ok(cu.cuMemAllocAsync(16, s))
        ok(cu.cuMemFreeAsync(p, s))
    g1, g2 = env.capture(body), env.capture(body)
    x = ok(cu.cuGraphInstantiate(g1, 0))
    ok(cu.cuGraphInstantiate(g2, 0))
    e = update_fails(x, g2, UR.CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED)
    assert e.update_info[1] == int(env.nodes(g2)[0])


def test_child_graphs_are_checked_recursively(env):
    """A child graph whose node type changed fails with NODE_TYPE_CHANGED on the child's node."""
    def parent(child):
        g = ok(cu.cuGraphCreate(0))
        ok(cu.cuGraphAddChildGraphNode(g, None, 0, child))
        return g
    x = ok(cu.cuGraphInstantiate(parent(env.kernels(1)), 0))
    g2 = parent(env.capture(lambda s: ok(cu.cuMemsetD8Async(env.buf, 0, 4, s))))
    e = update_fails(x, g2, UR.CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED)
    emb = ok(cu.cuGraphChildGraphNodeGetGraph(env.nodes(g2)[0]))
    assert e.update_info[1] == int(env.nodes(emb)[0])
    ok(cu.cuGraphExecUpdate(x, parent(env.kernels(1, env.k2))))


def test_v2_face_exposes_the_result_info(env):
    """_v2.graph_exec_update_v2 returns GraphExecUpdateResultInfo_v1, or raises GraphExecUpdateFailureError with
    the result info attached (``.result_info``) and ``.status`` 910."""
    x = int(ok(cu.cuGraphInstantiate(env.kernels(1), 0)))
    info = v2.graph_exec_update_v2(x, int(env.kernels(1)))
    assert (info.result, info.error_node, info.error_from_node) == (0, 0, 0)
    g = env.capture(lambda s: ok(cu.cuMemsetD8Async(env.buf, 0, 4, s)))
    with pytest.raises(v2.GraphExecUpdateFailureError) as ei:
        v2.graph_exec_update_v2(x, int(g))
    assert ei.value.status == 910 and ei.value.result_info.result == 3
    assert ei.value.result_info.error_node == int(env.nodes(g)[0]) and "NODE_TYPE_CHANGED" in ei.value.why
    with pytest.raises(v2.InvalidValueError) as ei:
        v2.graph_exec_update_v2(x, 0)
    assert ei.value.result_info.result == 1


def test_per_node_exec_setters(env):
    """cuGraphExec*SetParams change the exec only, within the limits; refused changes leave it as it was."""
    calls = []
    f1, f2 = env.host_fn(lambda _u: calls.append(1)), env.host_fn(lambda _u: calls.append(2))

    def body(s):
        ok(cu.cuMemsetD32Async(env.buf, 1, 4, s))
        ok(cu.cuLaunchHostFunc(s, f1, None))
        ok(env.launch(env.inc, s, env.inc_args(env.buf)))
    g = env.capture(body)
    mset, host, kern = env.nodes(g)
    x = ok(cu.cuGraphInstantiate(g, 0))
    mp = ok(cu.cuGraphMemsetNodeGetParams(mset))
    mp.value = 40
    ok(cu.cuGraphExecMemsetNodeSetParams(x, mset, mp, env.ctx))
    hp = ok(cu.cuGraphHostNodeGetParams(host))
    hp.fn = f2
    ok(cu.cuGraphExecHostNodeSetParams(x, host, hp))
    mp.height, mp.pitch = 2, 8
    err(cu.cuGraphExecMemsetNodeSetParams(x, mset, mp, env.ctx), 1)  # a 1D memset cannot change its height
    kp = ok(cu.cuGraphKernelNodeGetParams(kern))
    kp.gridDimX = 2
    ok(cu.cuGraphExecKernelNodeSetParams(x, kern, kp))
    ok(cu.cuGraphLaunch(x, env.s2))
    assert np.frombuffer(env.read(env.buf), np.int32).tolist() == [41, 41, 41, 41]
    assert calls == [2]
    assert ok(cu.cuGraphMemsetNodeGetParams(mset)).value == 1  # the graph's node is not changed
    other = env.kernels(1)
    err(cu.cuGraphExecKernelNodeSetParams(x, env.nodes(other)[0], kp), 1)  # not in the exec's graph
    err(cu.cuGraphExecHostNodeSetParams(x, mset, hp), 1)  # type mismatch


def test_per_node_setters_after_a_whole_update_use_original_handles(env):
    """After cuGraphExecUpdate the exec's nodes are still named by the instantiated graph's handles."""
    g = env.capture(lambda s: ok(cu.cuMemsetD32Async(env.buf, 1, 4, s)))
    (node,) = env.nodes(g)
    x = ok(cu.cuGraphInstantiate(g, 0))
    ok(cu.cuGraphExecUpdate(x, env.capture(lambda s: ok(cu.cuMemsetD32Async(env.buf, 2, 4, s)))))
    mp = ok(cu.cuGraphMemsetNodeGetParams(node))
    mp.value = 3
    ok(cu.cuGraphExecMemsetNodeSetParams(x, node, mp, env.ctx))
    ok(cu.cuGraphLaunch(x, env.s2))
    assert np.frombuffer(env.read(env.buf), np.int32).tolist() == [3, 3, 3, 3]


def test_child_graph_and_event_exec_setters(env):
    """cuGraphExecChildGraphNodeSetParams needs the same topology; event setters take any event."""
    child = env.capture(lambda s: ok(cu.cuMemsetD32Async(env.buf, 4, 4, s)))
    g = ok(cu.cuGraphCreate(0))
    cn = ok(cu.cuGraphAddChildGraphNode(g, None, 0, child))
    rn = ok(cu.cuGraphAddEventRecordNode(g, [cn], 1, env.e1))
    x = ok(cu.cuGraphInstantiate(g, 0))
    ok(cu.cuGraphExecChildGraphNodeSetParams(x, cn, env.capture(lambda s: ok(cu.cuMemsetD32Async(env.buf, 6, 4, s)))))
    e = err(cu.cuGraphExecChildGraphNodeSetParams(x, cn, env.kernels(2)), 1)
    assert "TOPOLOGY_CHANGED" in e.why  # different created counts, no memcpy node unpartnered (spec 17)
    ok(cu.cuGraphExecEventRecordNodeSetEvent(x, rn, env.e2))
    err(cu.cuGraphExecEventRecordNodeSetEvent(x, rn, cu.CUevent(0x55)), 1)
    ok(cu.cuGraphLaunch(x, env.s2))
    assert np.frombuffer(env.read(env.buf), np.int32).tolist() == [6, 6, 6, 6]
    assert ok(cu.cuEventQuery(env.e2)) is None


def test_enable_and_disable_nodes(env):
    """cuGraphNodeSetEnabled: a disabled kernel/memset runs as an empty node; other types are refused."""
    calls = []
    fn = env.host_fn(lambda _u: calls.append(1))
    g = env.capture(lambda s: (ok(cu.cuMemsetD32Async(env.buf, 8, 4, s)), ok(cu.cuLaunchHostFunc(s, fn, None))))
    mset, host = env.nodes(g)
    x = ok(cu.cuGraphInstantiate(g, 0))
    assert ok(cu.cuGraphNodeGetEnabled(x, mset)) == 1
    ok(cu.cuGraphNodeSetEnabled(x, mset, 0))
    assert ok(cu.cuGraphNodeGetEnabled(x, mset)) == 0
    err(cu.cuGraphNodeSetEnabled(x, host, 0), 1)
    ok(cu.cuGraphLaunch(x, env.s2))
    assert env.read(env.buf, 4) == bytes(4) and calls == [1]
    assert "disabled" in env.d.launch_log[0].note
    ok(cu.cuGraphExecUpdate(x, g))
    assert ok(cu.cuGraphNodeGetEnabled(x, mset)) == 0  # updates keep the enabled state
    ok(cu.cuGraphNodeSetEnabled(x, mset, 1))
    ok(cu.cuGraphLaunch(x, env.s2))
    assert np.frombuffer(env.read(env.buf), np.int32).tolist() == [8, 8, 8, 8]


def test_bad_handles_in_update(env):
    """A NULL exec or graph is INVALID_VALUE (result ERROR), never an exception."""
    x = ok(cu.cuGraphInstantiate(env.kernels(1), 0))
    e = err(cu.cuGraphExecUpdate(x, None), 1)
    assert e.update_info == (1, 0, 0)
    err(cu.cuGraphExecUpdate(None, env.kernels(1)), 1)
    assert simcuda.last_error().code == 1
