"""Section H of conformance-cases.md: cuStreamBeginCaptureToGraph (spec 3.2)."""
from __future__ import annotations

import pytest


def _graph_with_empty_node(cu):
    d = cu.drv
    g = cu.ok(d.cuGraphCreate(0))
    node = cu.ok(d.cuGraphAddEmptyNode(g, None, 0))
    return g, node


@pytest.mark.inferred
def test_c113_existing_leaves_are_exempt_from_unjoined(cu):
    """Nodes already in the target graph are not captured work; EndCapture succeeds and returns the same graph."""
    d = cu.drv
    g, _q = _graph_with_empty_node(cu)
    cu.ok(d.cuStreamBeginCaptureToGraph(cu.s1, g, None, None, 0, cu.G))
    cu.iscap(cu.s1, cu.ACTIVE)
    cu.ok(cu.K(cu.s1))                      # A
    g_end = cu.end_ok(cu.s1)
    assert int(g_end) == int(g)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.EMPTY, cu.KERNEL], [])  # Q (the existing node), then A


def test_c114_null_graph(cu):
    """BeginCaptureToGraph with a NULL graph returns 1 and begins nothing."""
    d = cu.drv
    cu.err(d.cuStreamBeginCaptureToGraph(cu.s1, None, None, None, 0, cu.G), 1)
    cu.iscap(cu.s1, cu.NONE)


def test_c115_null_dependencies_with_a_count(cu):
    """The Python wrapper raises RuntimeError when numDependencies exceeds the list, before the driver is called."""
    d = cu.drv
    g, _q = _graph_with_empty_node(cu)
    with pytest.raises(RuntimeError, match="List is too small: 0 < 1"):
        d.cuStreamBeginCaptureToGraph(cu.s1, g, [], None, 1, cu.G)
    with pytest.raises(RuntimeError, match="List is too small: 0 < 1"):
        d.cuStreamBeginCaptureToGraph(cu.s1, g, None, None, 1, cu.G)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c117_instantiating_a_graph_that_is_a_capture_target(cu):
    """A graph cannot be instantiated while it is a capture target (1), and can be once the capture ended."""
    d = cu.drv
    g = cu.ok(d.cuGraphCreate(0))
    cu.ok(d.cuStreamBeginCaptureToGraph(cu.s1, g, None, None, 0, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    res = d.cuGraphInstantiate(g, 0)
    cu.err(res, 1)
    assert len(res) == 2 and res[1] is None
    cu.iscap(cu.s1, cu.ACTIVE)
    g_end = cu.end_ok(cu.s1)
    assert int(g_end) == int(g)
    cu.iscap(cu.s1, cu.NONE)
    cu.instantiate(g)
    assert cu.shape(g) == ([cu.KERNEL], [])


@pytest.mark.inferred
def test_c118_bad_edge_data(cu):
    """Edge data with a non-zero to_port returns 1 and begins nothing."""
    d = cu.drv
    g, p = _graph_with_empty_node(cu)
    cu.err(d.cuStreamBeginCaptureToGraph(cu.s1, g, [p], [cu.edge_data(to_port=1)], 1, cu.G), 1)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.parametrize("mode", [3, 9])
def test_c119_invalid_mode(cu, mode):
    """BeginCaptureToGraph with a mode outside 0-2 returns 1 and begins nothing."""
    d = cu.drv
    g, _q = _graph_with_empty_node(cu)
    cu.err(d.cuStreamBeginCaptureToGraph(cu.s1, g, None, None, 0, mode), 1)
    cu.iscap(cu.s1, cu.NONE)
