"""Chain edges, the compact form of a captured node's single full dependency (:mod:`simcuda._core.graphs.graph_model`,
module docstring): a capture stores no ``Edge`` for them, and every query, walk and edit gives what the ordinary form
gives. Each test builds the same graph twice: once as a capture makes it (chain edges), once with the graph's
pair index built before the first node, which turns the compact form off (every edge an ``Edge``: the
reference), and compares what the driver reports."""
from __future__ import annotations

import os
import tempfile

import pytest

from simcuda import Driver, DriverError
from simcuda._core.graphs import graph_model as gr
from simcuda._core.graphs import nodes
from simcuda._core.graphs.nodes import DOT_EXTRA_TOPO_INFO, DOT_VERBOSE

from .conftest import SRC, ready

PROG = (0, 0, 1)  # programmatic edge data


class Built:
    """A driver with a graph made by :func:`build`; ``h`` maps names to node handles."""

    def __init__(self, d: Driver, g: int, h: dict[str, int]) -> None:
        self.d, self.g, self.h = d, g, h
        self.graph: gr.Graph = d.handles.graph(g)
        self.names = {v: k for k, v in h.items()}

    def edges(self) -> list[tuple[str, str, tuple[int, int, int]]]:
        """cuGraphGetEdges with node names."""
        return [(self.names[a], self.names[b], ed) for a, b, ed in self.d.graph_get_edges(self.g)]

    def queries(self) -> dict[str, object]:
        """Everything the per-node and per-graph queries report, with node names."""
        d, nm = self.d, self.names
        out: dict[str, object] = {"edges": self.edges(),
                                  "roots": [nm[x] for x in d.graph_get_root_nodes(self.g)],
                                  "nodes": [nm[x] for x in d.graph_get_nodes(self.g)]}
        live = {n.handle for n in self.graph.live_nodes()}
        for name, x in self.h.items():
            if x not in live:
                continue
            out[name] = ([(nm[a], ed) for a, ed in d.graph_node_get_dependencies(x)],
                         [(nm[a], ed) for a, ed in d.graph_node_get_dependencies(x, dependents=True)])
        return out

    def dot(self, flags: int) -> str:
        """cuGraphDebugDotPrint text, with handles written relative to the first node's."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "g.dot")
            self.d.graph_debug_dot_print(self.g, path, flags)
            with open(path) as f:
                text = f.read()
        return text


def build(reference: bool, d: Driver | None = None) -> Built:
    """A capture mixing chain edges, fork/join edges, edge data and a host node; then, after the capture, a node
    added by hand and a second capture into the same graph (cuStreamBeginCaptureToGraph) that chains onto it.
    ``reference``: the pair index is built before the first node (every edge an ``Edge``). On ``d`` or a new
    driver.

    Shape (capture 1, on s1 with a fork to s2): A -prog-> B (edge data, via cuStreamUpdateCaptureDependencies);
    B -> C (s2) and B -> D; join C, D -> E; E -> H (host); H -> P -> F. Then X added with dependency F;
    capture 2 from X: X -> Y -> Z.
    """
    d = d or ready()
    f = d.module_get_function(d.module_load_data(SRC), "k")
    s1, s2 = d.stream_create(0), d.stream_create(0)
    e1, e2 = d.event_create(0), d.event_create(0)
    d.stream_begin_capture(s1, 0)
    graph = d.handles.table[s1].capture.graph
    if reference:
        gr.pair_index(graph)
    names: list[str] = []

    def k(s: int, name: str) -> None:
        d.launch_kernel(f, (1, 1, 1), (1, 1, 1), 0, s, [])
        names.append(name)

    k(s1, "A")
    d.stream_update_capture_dependencies(s1, [graph.nodes[0].handle], [PROG], 1)  # SET: A, programmatic
    k(s1, "B")
    d.event_record(e1, s1)
    d.stream_wait_event(s2, e1, 0)
    k(s2, "C")
    k(s1, "D")
    d.event_record(e2, s2)
    d.stream_wait_event(s1, e2, 0)
    k(s1, "E")
    d.launch_host_func(s1, lambda _u: None, None)
    names.append("H")
    k(s1, "P")
    k(s1, "F")
    g = d.stream_end_capture(s1)
    assert g == graph.handle
    handles = {n: graph.nodes[i].handle for i, n in enumerate(names)}
    handles["X"] = d.graph_add_kernel_node(g, [handles["F"]], f, (1, 1, 1), (1, 1, 1), 0, [])
    d.stream_begin_capture_to_graph(s1, g, [handles["X"]], [gr.ZERO_ED], 0)
    k(s1, "Y")
    k(s1, "Z")
    d.stream_end_capture(s1)
    handles["Y"], handles["Z"] = graph.nodes[-2].handle, graph.nodes[-1].handle
    return Built(d, g, handles)


EXPECTED_EDGES = [("A", "B", PROG), ("B", "C", gr.ZERO_ED), ("B", "D", gr.ZERO_ED), ("D", "E", gr.ZERO_ED),
                  ("C", "E", gr.ZERO_ED), ("E", "H", gr.ZERO_ED), ("H", "P", gr.ZERO_ED), ("P", "F", gr.ZERO_ED),
                  ("F", "X", gr.ZERO_ED), ("X", "Y", gr.ZERO_ED), ("Y", "Z", gr.ZERO_ED)]


def _chain_count(g: gr.Graph) -> int:
    return sum(1 for n in g.nodes if n._ins.__class__ is gr.Node)


def test_capture_stores_chain_edges_compactly() -> None:
    lazy, ref = build(False), build(True)
    # every single full dependency a capture made is a chain edge: B->C, B->D, E->H, H->P, P->F, X->Y, Y->Z
    assert _chain_count(lazy.graph) == 7 and lazy.graph.lazy
    assert len(lazy.graph._edges) == len(EXPECTED_EDGES) - 7
    assert _chain_count(ref.graph) == 0 and not ref.graph.lazy


def _dots(b: Built) -> list[str]:
    return [b.dot(flags).replace(f"graph_{b.graph.gid}", "G") for flags in (0, DOT_EXTRA_TOPO_INFO, DOT_VERBOSE)]


def test_queries_order_and_dot_match_the_ordinary_form_without_materialising() -> None:
    lazy, ref = build(False), build(True)
    assert lazy.edges() == EXPECTED_EDGES  # cuGraphGetEdges: creation order, chain edges in place
    assert lazy.queries() == ref.queries()
    dots = _dots(lazy)
    assert dots[:2] == _dots(ref)[:2]  # VERBOSE shows handles, which differ between drivers
    assert "headlabel=1" in dots[1] and 'label="ports 0->0 type 1"' in dots[1]
    assert lazy.graph.lazy and _chain_count(lazy.graph) == 7  # none of that materialised anything
    gr.solid(lazy.graph)
    assert _chain_count(lazy.graph) == 0
    assert lazy.queries() == ref.queries() and _dots(lazy) == dots  # the same driver, so VERBOSE too


def test_views_materialise_in_place_keeping_every_order() -> None:
    lazy, ref = build(False), build(True)
    before = lazy.queries()
    edges = list(lazy.graph.edges)  # the public view: materialises every chain edge
    assert not lazy.graph.lazy and _chain_count(lazy.graph) == 0
    assert [(lazy.names[e.src.handle], lazy.names[e.dst.handle], e.ed) for e in edges] == EXPECTED_EDGES
    assert lazy.queries() == before == ref.queries()
    for n in lazy.graph.nodes:  # the same Edge objects in the graph's set and in both nodes' containers
        for e in n.ins:
            assert e.dst is n and e in lazy.graph.edges and any(x is e for x in e.src.outs)
    # a node's view materialises too
    other = build(False)
    node = other.graph.nodes[1]
    assert node.ins.__class__ is gr.Edge and not other.graph.lazy


def test_capture_after_materialising_orders_new_chain_edges_after_old_edges() -> None:
    d = ready()
    f = d.module_get_function(d.module_load_data(SRC), "k")
    s = d.stream_create(0)
    d.stream_begin_capture(s, 0)
    graph = d.handles.table[s].capture.graph
    for _ in range(3):
        d.launch_kernel(f, (1, 1, 1), (1, 1, 1), 0, s, [])
    assert len(graph.edges) == 2 and not graph.lazy  # materialised mid-capture (no pair index built)
    for _ in range(2):
        d.launch_kernel_fast(f, (1, 1, 1), (1, 1, 1), 0, s, [])
    assert graph.lazy and _chain_count(graph) == 2
    g = d.stream_end_capture(s)
    hs = d.graph_get_nodes(g)
    assert d.graph_get_edges(g) == [(hs[i], hs[i + 1], gr.ZERO_ED) for i in range(4)]
    solid_edges = [(e.src.handle, e.dst.handle, e.ed) for e in graph.edges]
    assert solid_edges == d.graph_get_edges(g)


def test_remove_a_chain_edge() -> None:
    lazy, ref = build(False), build(True)
    for b in (lazy, ref):
        b.d.graph_remove_dependencies(b.g, [b.h["B"]], [b.h["D"]], [])
        assert [(b.names[e.src.handle], b.names[e.dst.handle]) for e in b.graph.removed_edges] == [("B", "D")]
        with pytest.raises(DriverError) as ei:  # gone: a second removal finds nothing
            b.d.graph_remove_dependencies(b.g, [b.h["B"]], [b.h["D"]], [])
        assert int(ei.value.code) == 1
    assert not lazy.graph.lazy  # an edit by handle pair materialises (the pair index)
    assert lazy.queries() == ref.queries()
    assert lazy.edges() == [x for x in EXPECTED_EDGES if x[:2] != ("B", "D")]
    # the edge data must match: a chain edge has ZERO_ED, so asking for PROG finds nothing
    other = build(False)
    with pytest.raises(DriverError):
        other.d.graph_remove_dependencies(other.g, [other.h["B"]], [other.h["C"]], [PROG])
    assert other.edges() == EXPECTED_EDGES


def test_add_dependencies_on_an_existing_chain_pair() -> None:
    lazy, ref = build(False), build(True)
    for b in (lazy, ref):
        with pytest.raises(DriverError) as ei:  # the pair has an edge already, whatever the edge data asked for
            b.d.graph_add_dependencies(b.g, [b.h["P"]], [b.h["F"]], [PROG])
        assert int(ei.value.code) == 1 and "already exists" in ei.value.why
        b.d.graph_add_dependencies(b.g, [b.h["A"]], [b.h["Z"]], [PROG])
    assert lazy.queries() == ref.queries()
    assert lazy.edges() == [*EXPECTED_EDGES, ("A", "Z", PROG)]
    # replace a chain edge's data: remove it, add it again with edge data (it goes to the end of the order)
    for b in (lazy, ref):
        b.d.graph_remove_dependencies(b.g, [b.h["X"]], [b.h["Y"]], [])
        b.d.graph_add_dependencies(b.g, [b.h["X"]], [b.h["Y"]], [PROG])
    assert lazy.queries() == ref.queries()
    assert lazy.edges()[-1] == ("X", "Y", PROG)


@pytest.mark.parametrize("victim", ["A", "B", "C", "E", "H", "P", "F", "X", "Y", "Z"])
def test_destroy_a_node_with_chain_edges(victim: str) -> None:
    lazy, ref = build(False), build(True)
    for b in (lazy, ref):
        b.d.graph_destroy_node(b.h[victim])
    assert lazy.queries() == ref.queries()
    assert lazy.edges() == [x for x in EXPECTED_EDGES if victim not in x[:2]]
    assert lazy.graph.removed_edges == []
    list(lazy.graph.edges)  # materialising afterwards gives the same
    assert lazy.queries() == ref.queries()


def _log(d: Driver) -> list[tuple[str, int, str]]:
    return [(r.kind, r.node, r.detail) for r in d.launch_log if r.source == "graph"]


def test_clone_instantiate_and_launch() -> None:
    lazy, ref = build(False), build(True)
    seen = []
    for b in (lazy, ref):
        c = b.d.graph_clone(b.g)
        local = {h: b.d.graph_node_get_local_id(h) for h in b.d.graph_get_nodes(c)}
        clone_edges = [(local[x], local[y], ed) for x, y, ed in b.d.graph_get_edges(c)]
        assert b.d.graph_node_find_in_clone(b.h["Z"], c) == b.d.graph_get_nodes(c)[-1]
        x = b.d.graph_instantiate(b.g, 0)
        b.d.graph_launch(x, 0)
        b.d.stream_synchronize(0)
        seen.append((clone_edges, _log(b.d)))
    assert seen[0] == seen[1]
    lid = lazy.d.graph_node_get_local_id
    assert seen[0][0] == [(lid(lazy.h[a]), lid(lazy.h[b]), ed) for a, b, ed in EXPECTED_EDGES]
    assert len(seen[0][1]) == len(lazy.h)
    assert lazy.graph.lazy  # cloning, instantiating and launching read the compact form as it is


def test_update_across_the_two_forms() -> None:
    d = ready()
    lazy, ref = build(False, d), build(True, d)
    x_lazy, x_ref = d.graph_instantiate(lazy.g, 0), d.graph_instantiate(ref.g, 0)
    assert d.graph_exec_update(x_lazy, ref.g) == (gr.UPD_SUCCESS, 0, 0)
    assert d.graph_exec_update(x_ref, lazy.g) == (gr.UPD_SUCCESS, 0, 0)
    assert lazy.graph.lazy
    # C depending on A instead of B: TOPOLOGY_CHANGED at C, naming its dependency, read from either form
    ref.d.graph_remove_dependencies(ref.g, [ref.h["B"]], [ref.h["C"]], [])
    ref.d.graph_add_dependencies(ref.g, [ref.h["A"]], [ref.h["C"]], [])
    x_mod = d.graph_instantiate(ref.g, 0)
    for x, b, src in ((x_mod, lazy, "B"), (x_lazy, ref, "A")):
        with pytest.raises(DriverError) as ei:
            d.graph_exec_update(x, b.g)
        assert ei.value.update_info == (nodes.UPD_TOPOLOGY_CHANGED, b.h["C"], b.h[src])
    assert lazy.graph.lazy  # the compact form was read as it is
    # a dependency removed (Y -> Z): Y is an exit more, in both forms
    for b in (lazy, ref):
        b.d.graph_remove_dependencies(b.g, [b.h["Y"]], [b.h["Z"]], [])
    with pytest.raises(DriverError) as ei:
        d.graph_exec_update(x_ref, lazy.g)
    assert ei.value.update_info == (nodes.UPD_TOPOLOGY_CHANGED, lazy.h["Y"], 0)


def test_fast_path_with_edge_data_on_the_dependency_makes_an_ordinary_edge() -> None:
    d = ready()
    f = d.module_get_function(d.module_load_data(SRC), "k")
    s = d.stream_create(0)
    d.stream_begin_capture(s, 0)
    graph = d.handles.table[s].capture.graph
    d.launch_kernel_fast(f, (1, 1, 1), (1, 1, 1), 0, s, [])
    a = graph.nodes[0].handle
    d.stream_update_capture_dependencies(s, [a], [PROG], 1)
    d.launch_kernel_fast(f, (1, 1, 1), (1, 1, 1), 0, s, [])
    d.launch_kernel_fast(f, (1, 1, 1), (1, 1, 1), 0, s, [])
    b, c = graph.nodes[1], graph.nodes[2]
    assert b._ins.__class__ is gr.Edge and b._ins.ed == PROG  # edge data: an Edge
    assert c._ins is b  # then a chain edge again
    g = d.stream_end_capture(s)
    assert d.graph_get_edges(g) == [(a, b.handle, PROG), (b.handle, c.handle, gr.ZERO_ED)]


def test_edge_list_and_in_order_on_an_ordinary_graph() -> None:
    d = ready()
    g = d.graph_create(0)
    a = d.graph_add_empty_node(g, [])
    b = d.graph_add_empty_node(g, [a])
    graph = d.handles.graph(g)
    assert not graph.lazy
    assert [(x.handle, y.handle, ed) for x, y, ed in gr.edge_list(graph)] == [(a, b, gr.ZERO_ED)]
    gr.solid(graph)  # nothing to do
    assert list(graph.edges) == list(graph._edges)


def test_wide_fan_out_of_chain_edges() -> None:
    """20 forked streams chain onto one node (a fan-out of chain edges, past the list size that turns into a dict
    on removal); one target destroyed, then the view materialised: every order kept."""
    d = ready()
    f = d.module_get_function(d.module_load_data(SRC), "k")
    s0 = d.stream_create(0)
    d.stream_begin_capture(s0, 0)
    graph = d.handles.table[s0].capture.graph
    d.launch_kernel_fast(f, (1, 1, 1), (1, 1, 1), 0, s0, [])
    fork = d.event_create(0)
    d.event_record(fork, s0)
    joins = []
    for _ in range(20):
        s = d.stream_create(0)
        d.stream_wait_event(s, fork, 0)
        d.launch_kernel_fast(f, (1, 1, 1), (1, 1, 1), 0, s, [])
        e = d.event_create(0)
        d.event_record(e, s)
        joins.append(e)
    for e in joins:
        d.stream_wait_event(s0, e, 0)
    d.launch_kernel_fast(f, (1, 1, 1), (1, 1, 1), 0, s0, [])
    g = d.stream_end_capture(s0)
    hs = d.graph_get_nodes(g)
    a, mids, last = hs[0], hs[1:21], hs[21]
    z = gr.ZERO_ED
    # the last node joins the origin's own dependency (A) first, then the forks
    assert d.graph_get_edges(g) == [(a, m, z) for m in mids] + [(a, last, z)] + [(m, last, z) for m in mids]
    outs = graph.nodes[0]._outs  # a mixed list: 20 chain targets, then the join's Edge
    assert [x.__class__ for x in outs] == [gr.Node] * 20 + [gr.Edge]
    d.graph_destroy_node(mids[5])
    assert graph.nodes[0]._outs.__class__ is dict  # the first removal from a long list
    kept = mids[:5] + mids[6:]
    want = [(a, m, z) for m in kept] + [(a, last, z)] + [(m, last, z) for m in kept]
    assert d.graph_get_edges(g) == want and graph.lazy
    assert [h for h, _ in d.graph_node_get_dependencies(a, dependents=True)] == [*kept, last]
    assert [h for h, _ in d.graph_node_get_dependencies(last)] == [a, *kept]
    assert [(e.src.handle, e.dst.handle, e.ed) for e in graph.edges] == want and not graph.lazy
    assert [e.dst.handle for e in graph.nodes[0].outs] == [*kept, last]
    assert [h for h, _ in d.graph_node_get_dependencies(a, dependents=True)] == [*kept, last]


def test_add_edge_into_a_chain_target_materialises_first() -> None:
    """The edge functions keep the forms apart: a second dependency for a node whose first is a chain edge
    materialises the graph's chain edges first (edge order kept, the new edge last)."""
    d = ready()
    f = d.module_get_function(d.module_load_data(SRC), "k")
    s = d.stream_create(0)
    d.stream_begin_capture(s, 0)
    graph = d.handles.table[s].capture.graph
    for _ in range(3):
        d.launch_kernel_fast(f, (1, 1, 1), (1, 1, 1), 0, s, [])
    a, b, c = graph.nodes
    assert c._ins is b and graph.lazy
    gr.add_edge(graph, a, c, PROG)
    assert not graph.lazy and [x.__class__ for x in c._ins] == [gr.Edge, gr.Edge]
    assert [(e.src, e.dst, e.ed) for e in graph._edges] == [(a, b, gr.ZERO_ED), (b, c, gr.ZERO_ED), (a, c, PROG)]
    assert [e.dst for e in a._outs] == [b, c]
