"""Child graphs nested far deeper than Python's recursion limit: every graph walk of the simulator is
iterative (:mod:`simcuda._core.graphs.graph_model`, module docstring), so instantiation, replay, clone, exec update,
DOT output and destruction work at any depth and give what they give for shallow nesting.

The nesting is built top-down through the driver face: ``cuGraphAddChildGraphNode`` with an empty child
(the clone it makes is O(1)), then ``cuGraphChildGraphNodeGetGraph`` hands back the embedded graph itself
(not a copy), into which the next level goes. That keeps the build linear in the depth; building bottom-up
would clone a deeper graph at every level (quadratic).
"""
from __future__ import annotations

import simcuda
from simcuda.faces.bindings import driver as cu

from .conftest import NT, err, ok

DEPTH = 2_000  # twice Python's default recursion limit
UR = cu.CUgraphExecUpdateResult


def kernel_params(f):
    kp = cu.CUDA_KERNEL_NODE_PARAMS()
    kp.func = f
    kp.gridDimX = kp.gridDimY = kp.gridDimZ = kp.blockDimX = kp.blockDimY = kp.blockDimZ = 1
    return kp


def nest(env, depth, innermost):
    """A graph ``depth`` child-graph levels deep; ``innermost(g)`` adds the nodes of the deepest graph.

    Returns ``(top graph, [child-graph node of each level, outermost first], deepest graph)``."""
    top = g = ok(cu.cuGraphCreate(0))
    levels = []
    for _ in range(depth):
        empty = ok(cu.cuGraphCreate(0))
        n = ok(cu.cuGraphAddChildGraphNode(g, None, 0, empty))
        ok(cu.cuGraphDestroy(empty))
        levels.append(n)
        g = ok(cu.cuGraphChildGraphNodeGetGraph(n))
    innermost(g)
    return top, levels, g


def descend(g, depth):
    """The graph ``depth`` child-graph levels below ``g`` (each level: one GRAPH node)."""
    for _ in range(depth):
        nodes, n = ok(cu.cuGraphGetNodes(g, 1))
        assert n == 1 and ok(cu.cuGraphNodeGetType(nodes[0])) == NT.CU_GRAPH_NODE_TYPE_GRAPH
        g = ok(cu.cuGraphChildGraphNodeGetGraph(nodes[0]))
    return g


def test_deep_nesting_instantiate_launch_clone_update_dot_destroy(env, tmp_path):
    """A kernel 2,000 child-graph levels deep instantiates, replays once per launch, clones, exec-updates, prints DOT
    and is destroyed."""
    top, levels, inner = nest(env, DEPTH, lambda g: ok(cu.cuGraphAddKernelNode(g, None, 0, kernel_params(env.k))))
    inner_gid = ok(cu.cuGraphGetId(inner))

    x = ok(cu.cuGraphInstantiate(top, 0))
    ok(cu.cuGraphLaunch(x, env.s2))
    ok(cu.cuStreamSynchronize(env.s2))
    log = env.d.launch_log
    kernels = [r for r in log if r.kind == "KERNEL"]
    assert len(kernels) == 1 and kernels[0].graph_id == inner_gid and kernels[0].launch == 1
    assert len(log) == 2 * DEPTH + 1 and log[DEPTH] is kernels[0]
    assert log[0].note == f"child graph graph_{ok(cu.cuGraphGetId(descend(top, 1)))} begins"
    assert log[-1].note == log[0].note.replace("begins", "ends")
    assert [r.note.endswith("begins") for r in log[:DEPTH]] == [True] * DEPTH

    clone = ok(cu.cuGraphClone(top))
    assert int(ok(cu.cuGraphNodeFindInClone(levels[0], clone))) != int(levels[0])
    cinner = descend(clone, DEPTH)
    assert ok(cu.cuGraphGetId(cinner)) != inner_gid
    (kn,), _ = ok(cu.cuGraphGetNodes(cinner, 1))
    assert ok(cu.cuGraphNodeGetType(kn)) == NT.CU_GRAPH_NODE_TYPE_KERNEL
    (orig_kn,), _ = ok(cu.cuGraphGetNodes(descend(top, DEPTH), 1))
    assert int(ok(cu.cuGraphNodeFindInClone(orig_kn, clone))) == int(kn)  # found at any depth (spec 17)

    ok(cu.cuGraphExecUpdate(x, clone))
    ok(cu.cuGraphLaunch(x, env.s2))
    ok(cu.cuStreamSynchronize(env.s2))
    second = [r for r in env.d.launch_log if r.kind == "KERNEL"]
    assert [(r.launch, r.graph_id) for r in second] == [(1, inner_gid), (2, inner_gid)]  # the exec's ids stay

    other, _, odd = nest(env, DEPTH, lambda g: ok(cu.cuGraphAddEmptyNode(g, None, 0)))
    e = err(cu.cuGraphExecUpdate(x, other), 910)
    assert e.update_info[0] == UR.CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED
    assert e.update_info[1] == int(ok(cu.cuGraphGetNodes(odd, 1))[0][0])

    path = tmp_path / "deep.dot"
    ok(cu.cuGraphDebugDotPrint(top, str(path).encode(), 0))
    text = path.read_text()
    assert text == simcuda.dot(top)
    clusters = [line for line in text.splitlines() if line.startswith("subgraph cluster_")]
    assert len(clusters) == DEPTH + 1
    assert clusters[0] == f"subgraph cluster_{ok(cu.cuGraphGetId(top))} {{"
    assert clusters[-1] == f"subgraph cluster_{inner_gid} {{"

    ok(cu.cuGraphExecDestroy(x))
    ok(cu.cuGraphDestroy(top))
    err(cu.cuGraphGetNodes(inner, 0), 1)  # the deepest graph went with its owner
    err(cu.cuGraphDestroy(top), 1)
    ok(cu.cuGraphDestroy(clone))
    err(cu.cuGraphGetNodes(cinner, 0), 1)


def test_deep_nesting_as_a_child_device_launch_and_node_destroy(env):
    """A 2,000-deep graph can be embedded (one deep copy), instantiated for device launch, and cut off with
    cuGraphDestroyNode."""
    top, levels, inner = nest(env, DEPTH, lambda g: ok(cu.cuGraphAddKernelNode(g, None, 0, kernel_params(env.k))))
    outer = ok(cu.cuGraphCreate(0))
    holder = ok(cu.cuGraphAddChildGraphNode(outer, None, 0, top))
    copy = ok(cu.cuGraphChildGraphNodeGetGraph(holder))
    assert ok(cu.cuGraphGetId(descend(copy, DEPTH))) != ok(cu.cuGraphGetId(inner))

    xd = ok(cu.cuGraphInstantiate(outer, cu.CUgraphInstantiate_flags.CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH))
    ok(cu.cuGraphExecDestroy(xd))

    ok(cu.cuGraphDestroyNode(levels[0]))  # discards the 1,999 levels below it
    assert ok(cu.cuGraphGetNodes(top, 0))[1] == 0
    err(cu.cuGraphGetNodes(inner, 0), 1)
    err(cu.cuGraphChildGraphNodeGetGraph(levels[1]), 1)
    assert ok(cu.cuGraphGetNodes(descend(copy, DEPTH), 0))[1] == 1  # the embedded copy is its own


def test_deep_nesting_launched_into_a_capture_as_a_child_node(monkeypatch):
    """With graph_launch_in_capture="child-node" a 2,000-deep exec launched into a capture becomes a child-graph node
    that replays."""
    monkeypatch.delenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", raising=False)
    from .conftest import _make_env
    d = simcuda.Driver(options=simcuda.Options(graph_launch_in_capture="child-node"))
    old = simcuda.use(d)
    try:
        env = _make_env(d)
        top, _, _inner = nest(env, DEPTH, lambda g: ok(cu.cuGraphAddKernelNode(g, None, 0, kernel_params(env.k))))
        x = ok(cu.cuGraphInstantiate(top, 0))
        g = env.capture(lambda s: ok(cu.cuGraphLaunch(x, s)))
        assert env.types(g) == [4]
        emb = ok(cu.cuGraphChildGraphNodeGetGraph(env.nodes(g)[0]))
        assert env.types(descend(emb, DEPTH)) == [0]
        ok(cu.cuGraphLaunch(ok(cu.cuGraphInstantiate(g, 0)), env.s2))
        ok(cu.cuStreamSynchronize(env.s2))
        assert [r.kind for r in d.launch_log].count("KERNEL") == 1
        assert len(d.launch_log) == 2 * (DEPTH + 1) + 1
    finally:
        simcuda.use(old)
