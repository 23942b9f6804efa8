"""Edge edits on the core driver (cuGraphAddDependencies, cuGraphRemoveDependencies, cuGraphDestroyNode):
codes, the order cuGraphGetEdges and the per-node queries report (spec 4.5), and what the graph holds
after refused and accepted calls, for chains, fan-outs and fan-ins large enough to use every form of the
edge structures (:mod:`simcuda._core.graphs.graph_model`, module docstring)."""
from __future__ import annotations

import itertools

import pytest

from simcuda import Driver, DriverError
from simcuda._core.graphs import graph_model as gr

PROG = (0, 0, 1)  # programmatic edge data (CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC)


def refused(d, code, fn, *args):
    """Call ``fn``; assert it raises ``code`` and return the why."""
    with pytest.raises(DriverError) as ei:
        fn(*args)
    assert int(ei.value.code) == code
    return ei.value.why


def empties(d, g, n):
    """``n`` EMPTY nodes without dependencies in graph ``g``."""
    return [d.graph_add_empty_node(g, []) for _ in range(n)]


def edges(d, g):
    """cuGraphGetEdges as ``(from, to, edge data)`` triples."""
    return d.graph_get_edges(g)


def deps(d, n):
    return [h for h, _ in d.graph_node_get_dependencies(n)]


def dependents(d, n):
    return [h for h, _ in d.graph_node_get_dependencies(n, dependents=True)]


def test_duplicate_within_one_call_adds_nothing(d):
    """An edge listed twice in one cuGraphAddDependencies call is INVALID_VALUE and none of its edges is added."""
    g = d.graph_create(0)
    a, b, c = empties(d, g, 3)
    why = refused(d, 1, d.graph_add_dependencies, g, [a, b, a], [b, c, b], [])
    assert "edge 2" in why and "already exists" in why
    assert edges(d, g) == [] and deps(d, b) == [] and dependents(d, a) == []
    d.graph_add_dependencies(g, [a, b], [b, c], [])  # the pair itself was fine
    assert edges(d, g) == [(a, b, gr.ZERO_ED), (b, c, gr.ZERO_ED)]


def test_duplicate_of_an_existing_edge_whatever_its_edge_data(d):
    """An edge between two nodes that already have one is INVALID_VALUE, whatever the edge data, and the graph keeps
    its edges."""
    g = d.graph_create(0)
    a, b, c = empties(d, g, 3)
    d.graph_add_dependencies(g, [a], [b], [PROG])
    why = refused(d, 1, d.graph_add_dependencies, g, [b, a], [c, b], [])
    assert "edge 1" in why and "already exists" in why
    assert edges(d, g) == [(a, b, PROG)]
    refused(d, 1, d.graph_add_dependencies, g, [a], [b], [PROG])
    assert edges(d, g) == [(a, b, PROG)]
    d.graph_add_dependencies(g, [b], [a], [])  # the reverse pair is another pair (a cycle is allowed here)
    assert edges(d, g) == [(a, b, PROG), (b, a, gr.ZERO_ED)]


def test_first_failing_edge_wins_and_edge_data_is_checked_last(d):
    """Node checks run edge by edge before the edge-data check: a bad node after bad edge data is the one reported."""
    g, g2 = d.graph_create(0), d.graph_create(0)
    a, b = empties(d, g, 2)
    (x,) = empties(d, g2, 1)
    why = refused(d, 1, d.graph_add_dependencies, g, [a, a], [b, x], [(0, 5, 0), (0, 0, 0)])
    assert "edge 1: both nodes must belong" in why
    why = refused(d, 1, d.graph_add_dependencies, g, [a], [b], [(0, 5, 0)])
    assert "to_port 5" in why
    why = refused(d, 1, d.graph_add_dependencies, g, [a], [a], [])
    assert "itself" in why
    assert edges(d, g) == []


def test_chain_in_one_call_keeps_creation_order(d):
    """A long chain added in one call is reported in call order by cuGraphGetEdges and per node."""
    g = d.graph_create(0)
    ns = empties(d, g, 300)
    d.graph_add_dependencies(g, ns[:-1], ns[1:], [])
    assert edges(d, g) == [(a, b, gr.ZERO_ED) for a, b in itertools.pairwise(ns)]
    assert deps(d, ns[150]) == [ns[149]] and dependents(d, ns[150]) == [ns[151]]
    assert d.graph_get_root_nodes(g) == [ns[0]]


def test_fan_out_one_edge_per_call_then_removal_in_any_order(d):
    """A 200-way fan-out built one edge per call, then removed out of order: every query keeps the remaining order."""
    g = d.graph_create(0)
    root, *leaves = empties(d, g, 201)
    for x in leaves:
        d.graph_add_dependencies(g, [root], [x], [])
    refused(d, 1, d.graph_add_dependencies, g, [root], [leaves[77]], [])
    assert dependents(d, root) == leaves
    gone = leaves[1::2]
    d.graph_remove_dependencies(g, [root] * len(gone), gone[::-1], [])  # last first
    kept = leaves[0::2]
    assert dependents(d, root) == kept
    assert edges(d, g) == [(root, x, gr.ZERO_ED) for x in kept]
    assert all(deps(d, x) == [] for x in gone) and all(deps(d, x) == [root] for x in kept)
    assert [(e.src.handle, e.dst.handle) for e in d.handles.graph(g).removed_edges] == [(root, x) for x in gone[::-1]]
    d.graph_add_dependencies(g, [root], [gone[0]], [])  # a removed pair can be added again, at the end
    assert dependents(d, root) == [*kept, gone[0]]
    assert edges(d, g)[-1] == (root, gone[0], gr.ZERO_ED)


def test_fan_in_removal_and_refusals(d):
    """A 200-way fan-in: removing a missing edge, an edge with other edge data, or one edge twice is INVALID_VALUE and
    removes nothing."""
    g = d.graph_create(0)
    *srcs, sink = empties(d, g, 201)
    d.graph_add_dependencies(g, srcs, [sink] * len(srcs), [PROG if i % 3 == 0 else gr.ZERO_ED
                                                           for i in range(len(srcs))])
    before = edges(d, g)
    refused(d, 1, d.graph_remove_dependencies, g, [srcs[0]], [sink], [])  # edge data differs
    refused(d, 1, d.graph_remove_dependencies, g, [srcs[1], srcs[1]], [sink, sink], [])  # twice
    refused(d, 1, d.graph_remove_dependencies, g, [sink], [srcs[1]], [])  # reversed: no such edge
    assert edges(d, g) == before
    d.graph_remove_dependencies(g, [srcs[0], srcs[1]], [sink, sink], [PROG, gr.ZERO_ED])
    assert deps(d, sink) == srcs[2:]
    assert [ed for _, ed in d.graph_node_get_dependencies(sink)][:2] == [gr.ZERO_ED, PROG]


def test_destroy_node_cuts_only_its_edges(d):
    """Destroying the hub of a fan-out and a node in a fan-in removes exactly their edges and forgets edges removed
    from them earlier."""
    g = d.graph_create(0)
    root, *mid = empties(d, g, 101)
    (sink,) = empties(d, g, 1)
    d.graph_add_dependencies(g, [root] * 100, mid, [])
    d.graph_add_dependencies(g, mid, [sink] * 100, [])
    d.graph_remove_dependencies(g, [mid[5], root], [sink, mid[6]], [])
    assert len(d.handles.graph(g).removed_edges) == 2
    d.graph_destroy_node(mid[5])
    assert [(e.src.handle, e.dst.handle) for e in d.handles.graph(g).removed_edges] == [(root, mid[6])]
    assert deps(d, sink) == [m for i, m in enumerate(mid) if i != 5]
    assert dependents(d, root) == [m for i, m in enumerate(mid) if i not in (5, 6)]
    d.graph_destroy_node(root)
    assert d.handles.graph(g).removed_edges == []  # its removed edge to mid[6] no longer counts
    assert all(deps(d, m) == [] for i, m in enumerate(mid) if i != 5)
    assert edges(d, g) == [(m, sink, gr.ZERO_ED) for i, m in enumerate(mid) if i != 5]
    refused(d, 1, d.graph_node_get_dependencies, root)
    refused(d, 1, d.graph_add_dependencies, g, [root], [sink], [])
    d.graph_add_dependencies(g, [mid[0]], [mid[1]], [])
    assert deps(d, mid[1]) == [mid[0]]


def test_edits_after_removals_still_instantiate_in_order(d):
    """After many removals from a large fan-out the graph instantiates and replays in topological order."""
    g = d.graph_create(0)
    root, *leaves = empties(d, g, 60)
    d.graph_add_dependencies(g, [root] * 59, leaves, [])
    d.graph_remove_dependencies(g, [root] * 30, leaves[:30], [])
    d.graph_add_dependencies(g, leaves[30:], [*leaves[:29], root], [])  # root now waits for leaf 59
    s = d.stream_create(0)
    d.launch_log.clear()
    d.graph_launch(d.graph_instantiate(g, 0), s)
    order = [r.node for r in d.launch_log]
    pos = {n: i for i, n in enumerate(order)}
    lid = {h: d.graph_node_get_local_id(h) for h in [root, *leaves]}
    assert sorted(order) == list(range(60))
    assert all(pos[lid[a]] < pos[lid[b]] for a, b, _ in edges(d, g))


def test_pair_index_with_a_captured_duplicate_dependency(d):
    """A capture whose dependency list names a node twice gives the next node two edges from it; look-ups and removals
    stay exact."""
    mod = d.module_load_data(b'extern "C" __global__ void k() {}')
    f = d.module_get_function(mod, "k")
    s = d.stream_create(0)
    g = d.graph_create(0)
    a = d.graph_add_empty_node(g, [])
    d.stream_begin_capture_to_graph(s, g, [a, a], [gr.ZERO_ED, PROG], 0)
    d.launch_kernel(f, (1, 1, 1), (1, 1, 1), 0, s, [])
    assert d.stream_end_capture(s) == g
    k = d.graph_get_nodes(g)[1]
    assert edges(d, g) == [(a, k, gr.ZERO_ED), (a, k, PROG)]
    refused(d, 1, d.graph_add_dependencies, g, [a], [k], [])  # the pair has an edge
    d.graph_remove_dependencies(g, [a], [k], [PROG])  # the second of the pair
    assert edges(d, g) == [(a, k, gr.ZERO_ED)]
    refused(d, 1, d.graph_remove_dependencies, g, [a], [k], [PROG])
    d.graph_remove_dependencies(g, [a], [k], [])
    assert edges(d, g) == [] and d.handles.graph(g).n_dup == 0
    d.graph_add_dependencies(g, [a], [k], [])
    assert edges(d, g) == [(a, k, gr.ZERO_ED)]


def test_exec_with_a_backward_edge_launched_into_a_capture_as_a_child_node():
    """With graph_launch_in_capture="child-node", an exec whose graph has an edge from a later node to an earlier one
    is copied with that edge."""
    from simcuda import Options
    d = Driver(options=Options(graph_launch_in_capture="child-node"))
    d.init(0)
    d.ctx_create(0, 0)
    g = d.graph_create(0)
    a, b, c = empties(d, g, 3)
    d.graph_add_dependencies(g, [c, b], [a, c], [])  # b -> c -> a: creation order is not topological
    x = d.graph_instantiate(g, 0)
    s = d.stream_create(0)
    d.stream_begin_capture(s, 0)
    d.graph_launch(x, s)
    cg = d.stream_end_capture(s)
    (node,) = d.graph_get_nodes(cg)
    child = d.graph_child_graph_node_get_graph(node)
    ca, cb, cc = d.graph_get_nodes(child)
    assert edges(d, child) == [(cc, ca, gr.ZERO_ED), (cb, cc, gr.ZERO_ED)]  # node by node, creation order
    d.launch_log.clear()
    d.graph_launch(d.graph_instantiate(cg, 0), d.stream_create(0))
    assert [r.node for r in d.launch_log if r.kind == "EMPTY"] == [1, 2, 0]
