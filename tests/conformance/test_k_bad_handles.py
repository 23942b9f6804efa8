"""Section K of conformance-cases.md: bad handles and contexts (spec 3 preamble, 2.1, 4.2 row 1)."""
from __future__ import annotations

import pytest


def test_c147_begin_on_a_destroyed_stream(cu):
    """BeginCapture on a destroyed stream returns 709 CONTEXT_IS_DESTROYED."""
    cu.skip_unless_ub_allowed()
    d = cu.drv
    cu.ok(d.cuStreamDestroy(cu.s4))
    cu.forget(cu.s4)
    cu.err(cu.begin(cu.s4, cu.G), 709)


@pytest.mark.inferred
def test_c149_ending_a_capture_after_the_origin_was_destroyed(cu):
    """Destroying the origin terminates its capture; a later EndCapture on the handle returns 709."""
    cu.skip_unless_ub_allowed()
    d = cu.drv
    cu.ok(cu.begin(cu.s3, cu.G))
    cu.ok(d.cuStreamDestroy(cu.s3))
    cu.forget(cu.s3)
    res = cu.end(cu.s3)
    cu.err(res, 709)
    assert res[1] is None


def test_c150_event_and_stream_in_different_contexts(cu):
    """Recording an event of another context on a stream returns 400 INVALID_HANDLE."""
    d = cu.drv
    ctxB = cu.ok(d.cuCtxCreate(None, 0, cu.dev))
    cu.defer(lambda: d.cuCtxDestroy(ctxB))
    eB = cu.ok(d.cuEventCreate(d.CUevent_flags.CU_EVENT_DEFAULT))
    assert int(cu.ok(d.cuCtxPopCurrent())) == int(ctxB)
    cu.err(cu.rec(eB, cu.s1), 400)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c151_waiting_on_a_destroyed_event(cu):
    """Waiting on a destroyed event returns 400 INVALID_HANDLE."""
    cu.skip_unless_ub_allowed()
    d = cu.drv
    cu.ok(d.cuEventDestroy(cu.e3))
    cu.err(cu.wait(cu.s1, cu.e3), 400)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c153_destroying_a_forked_member_during_capture(cu):
    """Destroying an unjoined forked member succeeds, the capture stays ACTIVE, and its end is 904 UNJOINED."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e1))
    cu.ok(cu.K(cu.s2))                      # B
    cu.ok(d.cuStreamDestroy(cu.s2))
    cu.forget(cu.s2)
    cu.iscap(cu.s1, cu.ACTIVE)
    st, _cid, g, deps, _eds, n = cu.info(cu.s1)
    assert st == cu.ACTIVE and n == 0 and list(deps) == []
    assert cu.types(g) == [cu.KERNEL], "the destroyed member's node B stays in the capture graph"
    res = cu.end(cu.s1)
    cu.err(res, 904)
    assert res[1] is None
    cu.iscap(cu.s1, cu.NONE)


def test_c153b_destroying_a_joined_member_during_capture(cu):
    """Destroying a member after it was joined (cuda.core's join) keeps the capture ACTIVE and it ends with B -> C."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e1))
    cu.ok(cu.K(cu.s2))                      # B
    cu.ok(cu.rec(cu.e2, cu.s2))
    cu.ok(cu.wait(cu.s1, cu.e2))
    cu.ok(d.cuStreamDestroy(cu.s2))
    cu.forget(cu.s2)
    cu.iscap(cu.s1, cu.ACTIVE)
    cu.ok(cu.K(cu.s1))                      # C
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL, cu.KERNEL], [(0, 1)])
    cu.defer(lambda: d.cuGraphDestroy(g))


@pytest.mark.inferred
def test_c154_destroying_the_origin_during_capture(cu):
    """Destroying the origin terminates the capture: its forked members go back to NONE."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e1))
    cu.iscap(cu.s2, cu.ACTIVE)
    cu.ok(d.cuStreamDestroy(cu.s1))
    cu.forget(cu.s1)
    cu.iscap(cu.s2, cu.NONE)


@pytest.mark.inferred
def test_c155_a_garbage_stream_handle(cu):
    """A handle that never named a stream returns 400 INVALID_HANDLE."""
    cu.skip_unless_ub_allowed()
    d = cu.drv
    res = d.cuStreamIsCapturing(d.CUstream(0xDEADBEEF))
    cu.err(res, 400)
    assert len(res) == 2
