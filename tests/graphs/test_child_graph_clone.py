"""A child-graph node's embedded graph is a clone (spec 17, §9): cuGraphNodeFindInClone works on it and
on clones of its parent, to any depth."""
from __future__ import annotations

from simcuda.faces.bindings import driver as cu

from .conftest import NT, err, ok

INVALID_VALUE = 1


def _parent_with_child(env):
    """A parent graph holding one child-graph node made from a two-kernel graph ``g``."""
    g = env.kernels(2)
    parent = ok(cu.cuGraphCreate(0))
    node = ok(cu.cuGraphAddChildGraphNode(parent, None, 0, g))
    return g, parent, node


def test_embedded_graph_is_a_clone_of_the_child(env):
    """FindInClone maps a node of the graph a child node was made from to its copy in the embedded graph."""
    g, _, node = _parent_with_child(env)
    _, b = env.nodes(g)
    embedded = ok(cu.cuGraphChildGraphNodeGetGraph(node))
    assert int(embedded) != int(g)
    b_copy = ok(cu.cuGraphNodeFindInClone(b, embedded))
    assert [int(n) for n in env.nodes(embedded)][1] == int(b_copy)
    assert ok(cu.cuGraphNodeGetLocalId(b_copy)) == 1
    assert ok(cu.cuGraphNodeGetType(b_copy)) == NT.CU_GRAPH_NODE_TYPE_KERNEL
    ok(cu.cuGraphDestroyNode(b_copy))  # a destroyed copy is not found any more, the original is untouched
    err(cu.cuGraphNodeFindInClone(b, embedded), INVALID_VALUE)
    assert len(env.nodes(g)) == 2 and len(env.nodes(embedded)) == 1


def test_clone_of_parent_finds_nodes_of_the_embedded_graph(env):
    """In a clone of the parent, a node of the parent's embedded graph is found in the clone's own copy."""
    _, parent, node = _parent_with_child(env)
    embedded = ok(cu.cuGraphChildGraphNodeGetGraph(node))
    inner = env.nodes(embedded)
    clone = ok(cu.cuGraphClone(parent))
    node_copy = ok(cu.cuGraphNodeFindInClone(node, clone))
    embedded_copy = ok(cu.cuGraphChildGraphNodeGetGraph(node_copy))
    found = [ok(cu.cuGraphNodeFindInClone(n, clone)) for n in inner]
    assert [int(n) for n in found] == [int(n) for n in env.nodes(embedded_copy)]
    assert not {int(n) for n in found} & {int(n) for n in inner}
    # the parent itself is no clone: its own embedded nodes are not "found" in it
    err(cu.cuGraphNodeFindInClone(inner[0], parent), INVALID_VALUE)


def test_set_child_graph_params_embeds_a_new_clone(env):
    """cuGraphChildGraphNodeSetParams embeds a fresh clone, in which the new graph's nodes are found."""
    _, _, node = _parent_with_child(env)
    h = env.kernels(3)
    p = cu.CUgraphNodeParams()
    p.type = NT.CU_GRAPH_NODE_TYPE_GRAPH
    p.graph.graph = h
    ok(cu.cuGraphNodeSetParams(node, p))
    embedded = ok(cu.cuGraphChildGraphNodeGetGraph(node))
    c = env.nodes(h)[2]
    assert ok(cu.cuGraphNodeGetLocalId(ok(cu.cuGraphNodeFindInClone(c, embedded)))) == 2
    assert len(env.nodes(embedded)) == 3


def test_cloned_parent_with_embedded_child_instantiates_and_runs(env):
    """The clone of a parent with a child graph instantiates and replays the embedded kernels."""
    _, parent, _ = _parent_with_child(env)
    clone = ok(cu.cuGraphClone(parent))
    x = ok(cu.cuGraphInstantiate(clone, 0))
    env.d.launch_log.clear()
    ok(cu.cuGraphLaunch(x, env.s1))
    ok(cu.cuStreamSynchronize(env.s1))
    assert [r.kind for r in env.d.launch_log].count("KERNEL") == 2
