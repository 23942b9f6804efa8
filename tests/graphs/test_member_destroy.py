"""Destroying a member stream during capture (spec 2.1, 2.2, 16; C-153, C-153b), through the driver face."""
from __future__ import annotations

from simcuda.faces.bindings import driver as cu

from .conftest import err, ok

G = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL
ST = cu.CUstreamCaptureStatus


def fork(env):
    """begin(s1); rec(e1, s1); wait(s2, e1): s2 is a forked member of s1's capture."""
    ok(cu.cuStreamBeginCapture(env.s1, G))
    ok(cu.cuEventRecord(env.e1, env.s1))
    ok(cu.cuStreamWaitEvent(env.s2, env.e1, 0))
    assert ok(cu.cuStreamIsCapturing(env.s2)) == ST.CU_STREAM_CAPTURE_STATUS_ACTIVE


def test_destroyed_member_leaves_the_sequence_and_its_nodes_stay(env):
    """After the destroy the capture is ACTIVE with the origin as its only member, and B stays in the graph."""
    fork(env)
    ok(env.launch(env.k, env.s2))  # B
    ok(cu.cuStreamDestroy(env.s2))
    st, cid, g, _deps, _eds, n = ok(cu.cuStreamGetCaptureInfo(env.s1))
    assert st == ST.CU_STREAM_CAPTURE_STATUS_ACTIVE and n == 0
    seq = env.d.captures.live[int(cid)]
    assert [m.handle for m in seq.members] == [int(env.s1)]
    assert env.types(g) == [int(cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL)]
    err(cu.cuStreamIsCapturing(env.s2), 709)  # the handle is gone


def test_unjoined_destroyed_member_makes_the_end_unjoined(env):
    """An unjoined destroyed member's node makes the end 904, with a why naming the destroyed stream."""
    fork(env)
    ok(env.launch(env.k, env.s2))
    ok(cu.cuStreamDestroy(env.s2))
    e = err(cu.cuStreamEndCapture(env.s1), 904)
    assert "destroyed during the capture" in e.why and f"0x{int(env.s2):x}" in e.why
    assert ok(cu.cuStreamIsCapturing(env.s1)) == ST.CU_STREAM_CAPTURE_STATUS_NONE
    assert env.d.captures.live == {}


def test_event_recorded_before_the_destroy_still_joins(env):
    """A join on an event the member recorded before it was destroyed makes the end succeed with B -> C."""
    fork(env)
    ok(env.launch(env.k, env.s2))  # B
    ok(cu.cuEventRecord(env.e2, env.s2))
    ok(cu.cuStreamDestroy(env.s2))
    ok(cu.cuStreamWaitEvent(env.s1, env.e2, 0))
    ok(env.launch(env.k2, env.s1))  # C
    g = ok(cu.cuStreamEndCapture(env.s1))
    nodes = env.nodes(g)
    frm, to, _eds, n = ok(cu.cuGraphGetEdges(g, 1))
    assert len(nodes) == 2 and n == 1
    assert (int(frm[0]), int(to[0])) == (int(nodes[0]), int(nodes[1]))


def test_idle_destroyed_member_does_not_make_the_end_unjoined(env):
    """A destroyed member that captured nothing leaves nothing unjoined: the end succeeds with the origin's work."""
    fork(env)
    ok(env.launch(env.k, env.s1))
    ok(cu.cuStreamDestroy(env.s2))
    g = ok(cu.cuStreamEndCapture(env.s1))
    assert len(env.nodes(g)) == 1


def test_member_destroy_keeps_an_invalidated_capture_invalidated(env):
    """Destroying a member of an INVALIDATED capture succeeds, the origin still reports INVALIDATED and ends 901."""
    fork(env)
    err(cu.cuStreamSynchronize(env.s1), 900)  # invalidates (spec 5.3)
    ok(cu.cuStreamDestroy(env.s2))
    assert ok(cu.cuStreamIsCapturing(env.s1)) == ST.CU_STREAM_CAPTURE_STATUS_INVALIDATED
    err(cu.cuStreamEndCapture(env.s1), 901)
    assert ok(cu.cuStreamIsCapturing(env.s1)) == ST.CU_STREAM_CAPTURE_STATUS_NONE
