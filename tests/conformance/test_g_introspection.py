"""Section G of conformance-cases.md: capture introspection and dependency updates (spec 3.5, 3.6, 4.4)."""
from __future__ import annotations

import importlib

import pytest


def test_c097_get_capture_info_right_after_begin(cu):
    """Right after begin, GetCaptureInfo reports ACTIVE, a non-zero id, the capture graph and an empty deps set."""
    cu.ok(cu.begin(cu.s1, cu.G))
    st, cid, g, deps, eds, n = cu.info(cu.s1)
    assert st == cu.ACTIVE and int(cid) != 0
    assert g is not None and int(g) != 0
    assert list(deps) == [] and list(eds) == [] and n == 0
    g2 = cu.end_ok(cu.s1)
    assert int(g2) == int(g)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c098_get_capture_info_on_an_idle_stream(cu):
    """On an idle stream GetCaptureInfo succeeds with status NONE and (simulator choice) zero outputs."""
    st, cid, g, deps, eds, n = cu.info(cu.s1)
    assert st == cu.NONE
    assert int(cid) == 0 and g is not None and int(g) == 0
    assert list(deps) == [] and list(eds) == [] and n == 0


def test_c099_adding_a_manual_node_with_add(cu):
    """A manual node added to the capture graph and appended with ADD becomes a dependency of the next captured node."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    cu.ok(cu.K(cu.s1))                      # B
    _, _, g, deps, _, n = cu.info(cu.s1)
    A, B, M, C = 0, 1, 2, 3
    nodes = cu.nodes(g)
    assert [int(x) for x in deps] == [int(nodes[B])] and n == 1
    m = cu.ok(d.cuGraphAddEmptyNode(g, [nodes[B]], 1))
    cu.ok(d.cuStreamUpdateCaptureDependencies(cu.s1, [m], None, 1, cu.ADD))
    _, _, _, deps, eds, n = cu.info(cu.s1)
    assert [int(x) for x in deps] == [int(nodes[B]), int(m)] and len(eds) == 2 and n == 2
    cu.ok(cu.K(cu.s1))                      # C
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL, cu.KERNEL, cu.EMPTY, cu.KERNEL],
                           sorted([(A, B), (B, M), (B, C), (M, C)]))


def test_c101_set_to_an_empty_set_makes_the_next_node_a_root(cu):
    """SET with an empty list clears the deps set, so the next captured node has no incoming edge."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    cu.ok(d.cuStreamUpdateCaptureDependencies(cu.s1, [], None, 0, cu.SET))
    cu.ok(cu.K(cu.s1))                      # B
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL, cu.KERNEL], [])


def test_c102_update_on_a_stream_that_is_not_capturing(cu):
    """cuStreamUpdateCaptureDependencies on an idle stream returns 401."""
    d = cu.drv
    cu.err(d.cuStreamUpdateCaptureDependencies(cu.s1, [], None, 0, cu.ADD), 401)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.parametrize("flags", [2, 7])
def test_c103_invalid_flags_do_not_invalidate(cu, flags):
    """Bad update flags return 1 and leave the capture ACTIVE and unchanged."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    _, _, g, deps, _, n = cu.info(cu.s1)
    A = cu.nodes(g)[0]
    assert [int(x) for x in deps] == [int(A)] and n == 1
    cu.err(d.cuStreamUpdateCaptureDependencies(cu.s1, [A], None, 1, flags), 1)
    cu.iscap(cu.s1, cu.ACTIVE)
    _, _, _, deps, _, n = cu.info(cu.s1)
    assert [int(x) for x in deps] == [int(A)] and n == 1
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])


def test_c105_a_node_from_another_graph_or_a_null_node(cu):
    """A dependency that is not a node of the capture graph (foreign or NULL) returns 1 without invalidating."""
    d = cu.drv
    g2 = cu.ok(d.cuGraphCreate(0))
    cu.defer(lambda: d.cuGraphDestroy(g2))
    foreign = cu.ok(d.cuGraphAddEmptyNode(g2, None, 0))
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(d.cuStreamUpdateCaptureDependencies(cu.s1, [foreign], None, 1, cu.ADD), 1)
    cu.err(d.cuStreamUpdateCaptureDependencies(cu.s1, [d.CUgraphNode(0)], None, 1, cu.ADD), 1)
    cu.iscap(cu.s1, cu.ACTIVE)
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([], [])


def test_c106_flags_0_behaves_like_add_and_does_not_duplicate(cu):
    """Flags 0 is ADD, and adding a node already in the deps set does not duplicate it."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    _, _, g, _, _, _ = cu.info(cu.s1)
    A = cu.nodes(g)[0]
    cu.ok(d.cuStreamUpdateCaptureDependencies(cu.s1, [A], None, 1, 0))
    _, _, _, deps, eds, n = cu.info(cu.s1)
    assert [int(x) for x in deps] == [int(A)] and len(eds) == 1 and n == 1
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])


def test_c107_a_manual_root_node_does_not_trigger_unjoined(cu):
    """A node added to the capture graph by hand is not captured work and never makes the capture unjoined."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    _, _, g, _, _, _ = cu.info(cu.s1)
    cu.ok(d.cuGraphAddEmptyNode(g, None, 0))  # M
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL, cu.EMPTY], [])


@pytest.mark.inferred
def test_c109_removing_a_node_from_the_capture_graph_during_capture(cu):
    """cuGraphDestroyNode on a node of a graph being captured returns 1 and leaves the capture intact."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    _, _, g, deps, _, _ = cu.info(cu.s1)
    cu.err(d.cuGraphDestroyNode(deps[0]), 1)
    cu.iscap(cu.s1, cu.ACTIVE)
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])


def test_c110_lossy_query_classic_binding(cu):
    """The classic GetCaptureInfo always returns edge data, so a programmatic dependency is visible, not lossy."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    _, _, _g, deps, _, _ = cu.info(cu.s1)
    A = deps[0]
    ped = cu.programmatic_edge_data()
    cu.ok(d.cuStreamUpdateCaptureDependencies(cu.s1, [A], [ped], 1, cu.SET))
    st, _, _, deps, eds, n = cu.info(cu.s1)
    assert st == cu.ACTIVE and [int(x) for x in deps] == [int(A)] and n == 1
    assert int(eds[0].type) == 1 and int(eds[0].from_port) == int(d.CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC)
    cu.iscap(cu.s1, cu.ACTIVE)


@pytest.mark.inferred
def test_c110_lossy_query_v2_binding(cu):
    """The v2-ABI query cannot carry edge data, so a programmatic dependency raises LossyQueryError (402)."""
    d = cu.drv
    # the route's _v2 module: simcuda's face on the python route, NVIDIA's over the simulated library on native
    modname = "simcuda.faces.bindings._v2.driver" if cu.route == "python" else "cuda.bindings._v2.driver"
    try:
        v2 = importlib.import_module(modname)
    except ImportError as e:
        pytest.skip(f"{modname} is not importable yet: {e}")
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    _, _, _g, deps, _, _ = cu.info(cu.s1)
    cu.ok(d.cuStreamUpdateCaptureDependencies(cu.s1, [deps[0]], [cu.programmatic_edge_data()], 1, cu.SET))
    with pytest.raises(v2.LossyQueryError) as info:
        v2.stream_get_capture_info_v2(int(cu.s1))
    assert info.value.status == 402
    cu.iscap(cu.s1, cu.ACTIVE)


@pytest.mark.inferred
def test_c111_dangling_programmatic_edge_left_on_a_fork_is_unjoined(cu):
    """A non-full (programmatic) half-edge left on a forked stream makes EndCapture return 904."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e1))
    _, _, _, deps, _, _ = cu.info(cu.s2)
    cu.ok(d.cuStreamUpdateCaptureDependencies(cu.s2, [deps[0]], [cu.programmatic_edge_data()], 1, cu.SET))
    res = cu.end(cu.s1)
    cu.err(res, 904)
    assert res[1] is None
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)


@pytest.mark.inferred
def test_c170_dangling_programmatic_edge_left_on_the_origin_is_unjoined(cu):
    """A non-full half-edge left on the origin cannot be dropped at the end either: 904, capture over."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    _, _, _, deps, _, _ = cu.info(cu.s1)
    cu.ok(d.cuStreamUpdateCaptureDependencies(cu.s1, [deps[0]], [cu.programmatic_edge_data()], 1, cu.SET))
    res = cu.end(cu.s1)
    cu.err(res, 904)
    assert res[1] is None
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c171_a_node_removed_with_set_is_exempt_even_while_a_fork_lists_it(cu):
    """A node dropped from the origin with SET never makes the capture unjoined, even if a fork still lists it."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e1))
    cu.ok(d.cuStreamUpdateCaptureDependencies(cu.s1, [], None, 0, cu.SET))
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])
