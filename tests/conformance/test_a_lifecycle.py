"""Section A of conformance-cases.md: the basic capture lifecycle (spec 2.1, 3.1, 3.3, 3.8)."""
from __future__ import annotations

import pytest

MODES = ["G", "TL", "R"]


def test_c001_single_stream_two_kernels(cu):
    """Two kernels captured on one stream become two KERNEL nodes joined by one edge, and the stream is idle after."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.iscap(cu.s1, cu.ACTIVE)
    cu.ok(cu.K(cu.s1))
    cu.ok(cu.K(cu.s1))
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    nodes, n = cu.ok(d.cuGraphGetNodes(g))
    assert list(nodes) == [] and n == 2
    frm, to, eds, ne = cu.ok(d.cuGraphGetEdges(g))
    assert list(frm) == [] and list(to) == [] and list(eds) == [] and ne == 1
    A, B = 0, 1
    assert cu.shape(g) == ([cu.KERNEL, cu.KERNEL], [(A, B)])


@pytest.mark.inferred
def test_c002_empty_capture(cu):
    """A capture with no work ends with an empty graph that can be instantiated and launched."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    g = cu.end_ok(cu.s1)
    nodes, n = cu.ok(d.cuGraphGetNodes(g))
    assert list(nodes) == [] and n == 0
    x = cu.instantiate(g)
    cu.ok(d.cuGraphLaunch(x, cu.s1))
    cu.iscap(cu.s1, cu.NONE)


def test_c003_each_node_type_from_one_stream(cu):
    """Copy, memset, kernel and host function each become a node of their own type, chained in stream order."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.cpy(cu.s1))
    cu.ok(cu.memset(cu.s1))
    cu.ok(cu.K(cu.s1))
    cu.ok(cu.hostfn(cu.s1))
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    A, B, C, D = 0, 1, 2, 3
    assert cu.shape(g) == ([cu.MEMCPY, cu.MEMSET, cu.KERNEL, cu.HOST], [(A, B), (B, C), (C, D)])


def test_c005_non_blocking_stream_capture(cu):
    """A non-blocking stream can be captured like any other stream."""
    cu.ok(cu.begin(cu.n1, cu.TL))
    cu.iscap(cu.n1, cu.ACTIVE)
    cu.ok(cu.K(cu.n1))
    g = cu.end_ok(cu.n1)
    cu.iscap(cu.n1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])


@pytest.mark.parametrize("mode", MODES)
def test_c006_legacy_stream_cannot_be_captured(cu, mode):
    """cuStreamBeginCapture on CU_STREAM_LEGACY returns 900 in every mode and leaves it idle."""
    cu.err(cu.begin(cu.LEG, getattr(cu, mode)), 900)
    cu.iscap(cu.LEG, cu.NONE)


def test_c007_handle_0_in_legacy_mode(cu):
    """In legacy mode handle 0 names the legacy stream, so beginning a capture on it returns 900."""
    cu.require_legacy_mode()
    cu.err(cu.begin(0, cu.G), 900)
    cu.iscap(0, cu.NONE)


@pytest.mark.inferred
def test_c161_handle_0_in_per_thread_mode(cu_pt):
    """In per-thread mode handle 0 is the caller's per-thread stream, which can be captured (same stream as PTS)."""
    cu = cu_pt
    cu.ok(cu.begin(0, cu.G))
    cu.ok(cu.K(0))
    cu.iscap(0, cu.ACTIVE)
    cu.iscap(cu.PTS, cu.ACTIVE)
    g = cu.end_ok(0)
    cu.iscap(cu.PTS, cu.NONE)
    cu.iscap(0, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])


@pytest.mark.parametrize("second", MODES)
def test_c009_double_begin_on_one_stream(cu, second):
    """A second begin on a capturing stream returns 401 and leaves the first capture ACTIVE and intact."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))
    cu.err(cu.begin(cu.s1, getattr(cu, second)), 401)
    cu.iscap(cu.s1, cu.ACTIVE)
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])


def test_c010_end_on_a_stream_that_is_not_capturing(cu):
    """cuStreamEndCapture on an idle stream returns (401, None)."""
    res = cu.end(cu.s1)
    cu.err(res, 401)
    assert len(res) == 2 and res[1] is None
    cu.iscap(cu.s1, cu.NONE)


def test_c011_end_on_the_legacy_stream(cu):
    """cuStreamEndCapture on CU_STREAM_LEGACY returns 401."""
    cu.err(cu.end(cu.LEG), 401)
    cu.iscap(cu.LEG, cu.NONE)


def test_c013_two_independent_captures_interleaved(cu):
    """Two captures on two streams run side by side with distinct ids and no edges between their graphs."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.begin(cu.s2, cu.G))
    cu.ok(cu.K(cu.s1))
    cu.ok(cu.K(cu.s2))
    cu.ok(cu.K(cu.s1))
    assert cu.capture_id(cu.s1) != cu.capture_id(cu.s2)
    g2 = cu.end_ok(cu.s2)
    cu.iscap(cu.s2, cu.NONE)
    cu.iscap(cu.s1, cu.ACTIVE)
    g1 = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    A, C = 0, 1
    assert cu.shape(g1) == ([cu.KERNEL, cu.KERNEL], [(A, C)])
    assert cu.shape(g2) == ([cu.KERNEL], [])


@pytest.mark.inferred
def test_c014_nested_begin_on_a_second_stream_same_thread(cu):
    """One thread may begin a second capture on another stream inside the first; each gets its own graph."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))
    cu.ok(cu.begin(cu.s2, cu.TL))
    cu.ok(cu.K(cu.s2))
    g2 = cu.end_ok(cu.s2)
    g1 = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)
    assert cu.shape(g1) == ([cu.KERNEL], [])
    assert cu.shape(g2) == ([cu.KERNEL], [])


def test_c015_capture_cuts_the_stream_ordering_chain(cu):
    """Work enqueued before the capture is not in the graph and the first captured node is a root."""
    d = cu.drv
    cu.ok(cu.K(cu.s1))
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])
    roots, n = cu.ok(d.cuGraphGetRootNodes(g, 1))
    assert n == 1 and int(roots[0]) == int(cu.nodes(g)[0])
