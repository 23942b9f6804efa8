"""Section B of conformance-cases.md: capture modes and threads (spec 3.3 row 4, 3.7, 5.2, 5.3)."""
from __future__ import annotations

import pytest


@pytest.mark.inferred
def test_c017_thread_local_capture_ended_from_the_wrong_thread(cu):
    """Ending a THREAD_LOCAL capture from another thread returns 908 and invalidates it; the begin thread then gets
    901."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.TL))
    cu.ok(cu.K(cu.s1))
    res = cu.t2(d.cuStreamEndCapture, cu.s1)
    cu.err(res, 908)
    assert res[1] is None
    cu.iscap(cu.s1, cu.INVALIDATED)
    res = cu.end(cu.s1)
    cu.err(res, 901)
    assert res[1] is None
    cu.iscap(cu.s1, cu.NONE)


def test_c018_relaxed_capture_may_end_on_any_thread(cu):
    """A RELAXED capture can be ended by another thread, which gets the graph."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.R))
    cu.ok(cu.K(cu.s1))
    g = cu.ok(cu.t2(d.cuStreamEndCapture, cu.s1))
    assert g is not None and int(g) != 0
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])


def test_c019_unsafe_call_in_the_capturing_thread_global(cu):
    """cuMemAlloc during the thread's own GLOBAL capture returns 900 and invalidates the capture."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))
    res = d.cuMemAlloc(256)
    cu.err(res, 900)
    assert res[1] is None
    cu.iscap(cu.s1, cu.INVALIDATED)
    res = cu.end(cu.s1)
    cu.err(res, 901)
    assert res[1] is None
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c169_invalidated_capture_still_restricts_its_thread(cu):
    """An invalidated capture keeps refusing unsafe calls on its thread until it is ended."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(d.cuMemAlloc(256), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(d.cuMemAlloc(256), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
    p = cu.ok(d.cuMemAlloc(256))
    cu.ok(d.cuMemFree(p))


def test_c021_relaxed_capture_does_not_restrict_its_own_thread(cu):
    """cuMemAlloc during a RELAXED-begun capture allocates now and adds no node."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.R))
    cu.ok(cu.K(cu.s1))
    p = cu.ok(d.cuMemAlloc(256))
    assert p is not None and int(p) != 0
    cu.iscap(cu.s1, cu.ACTIVE)
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])
    cu.ok(d.cuMemFree(p))


def test_c022_switching_the_thread_to_relaxed_around_an_unsafe_call(cu):
    """Exchanging the thread mode to RELAXED around cuMemAlloc keeps a GLOBAL capture valid."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    assert cu.ok(cu.xchg(cu.R)) == cu.G
    p = cu.ok(d.cuMemAlloc(256))
    assert cu.ok(cu.xchg(cu.G)) == cu.R
    cu.ok(cu.K(cu.s1))
    cu.iscap(cu.s1, cu.ACTIVE)
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])
    cu.ok(d.cuMemFree(p))


def test_c023_global_capture_unsafe_call_in_another_global_thread(cu):
    """A GLOBAL-mode thread's cuMemAlloc during another thread's GLOBAL capture returns 900 and invalidates it."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.t2(d.cuCtxSetCurrent, cu.ctx))
    res = cu.t2(d.cuMemAlloc, 256)
    cu.err(res, 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


def test_c025_global_capture_other_thread_switched_to_thread_local(cu):
    """A THREAD_LOCAL-mode thread ignores another thread's GLOBAL capture."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.t2(d.cuCtxSetCurrent, cu.ctx))
    assert cu.ok(cu.t2(d.cuThreadExchangeStreamCaptureMode, cu.TL)) == cu.G
    p = cu.ok(cu.t2(d.cuMemAlloc, 256))
    cu.iscap(cu.s1, cu.ACTIVE)
    cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    cu.ok(d.cuMemFree(p))


def test_c026_watchdog_queries_an_old_event_global(cu):
    """Another GLOBAL-mode thread querying an event recorded before the capture gets 900 and invalidates it."""
    d = cu.drv
    cu.ok(cu.K(cu.s2))
    cu.ok(cu.rec(cu.e0, cu.s2))
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))
    cu.err(cu.t2(d.cuEventQuery, cu.e0), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.iscap(cu.s2, cu.NONE)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


def test_c027_watchdog_thread_in_thread_local_mode(cu):
    """A THREAD_LOCAL-mode thread may query a completed uncaptured event during another thread's GLOBAL capture."""
    d = cu.drv
    cu.ok(cu.rec(cu.e0, cu.s2))
    cu.ok(d.cuEventSynchronize(cu.e0))  # "work done" made deterministic before the capture
    cu.ok(cu.begin(cu.s1, cu.G))
    assert cu.ok(cu.t2(d.cuThreadExchangeStreamCaptureMode, cu.TL)) == cu.G
    cu.ok(cu.t2(d.cuEventQuery, cu.e0))
    cu.iscap(cu.s1, cu.ACTIVE)
    cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)


def test_c029_same_thread_event_synchronize_on_an_old_event(cu):
    """cuEventSynchronize on an uncaptured event during the thread's own GLOBAL capture returns 900 and invalidates
    it."""
    d = cu.drv
    cu.ok(cu.rec(cu.e0, cu.s1))
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(d.cuEventSynchronize(cu.e0), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c173_never_recorded_event_may_be_queried_during_global_capture(cu):
    """Synchronizing or querying a never-recorded event is not an unsafe call and leaves a GLOBAL capture ACTIVE."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))
    cu.ok(cu.t2(d.cuCtxSetCurrent, cu.ctx))
    cu.ok(cu.t2(d.cuEventSynchronize, cu.e3))
    cu.ok(cu.t2(d.cuEventQuery, cu.e3))
    cu.iscap(cu.s1, cu.ACTIVE)
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])


@pytest.mark.inferred
def test_c030_same_thread_synchronize_an_idle_stream_during_global_capture(cu):
    """Synchronizing an unrelated idle stream during the thread's own GLOBAL capture returns 900 and invalidates it."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.cpy(cu.s2))
    cu.iscap(cu.s2, cu.NONE)
    cu.err(d.cuStreamSynchronize(cu.s2), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.iscap(cu.s2, cu.NONE)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c031_thread_local_capture_other_thread_synchronizes_its_own_stream(cu):
    """Another thread may synchronize its own idle stream during a THREAD_LOCAL capture."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.TL))
    cu.ok(cu.t2(d.cuCtxSetCurrent, cu.ctx))
    cu.ok(cu.t2(cu.cpy, cu.s2))
    cu.ok(cu.t2(d.cuStreamSynchronize, cu.s2))
    cu.iscap(cu.s1, cu.ACTIVE)
    cu.ok(cu.K(cu.s1))
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])


@pytest.mark.inferred
def test_c033_relaxed_capture_other_thread_synchronizes(cu):
    """Another thread may synchronize an idle stream during a RELAXED capture."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.R))
    cu.ok(cu.t2(d.cuCtxSetCurrent, cu.ctx))
    cu.ok(cu.t2(d.cuStreamSynchronize, cu.s2))
    cu.iscap(cu.s1, cu.ACTIVE)
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([], [])


@pytest.mark.parametrize("bad", [3, 5, 255])
def test_c034_invalid_mode_in_thread_exchange(cu, bad):
    """cuThreadExchangeStreamCaptureMode with a mode outside 0-2 returns (1, None) and leaves the mode unchanged."""
    res = cu.xchg(bad)
    cu.err(res, 1)
    assert len(res) == 2 and res[1] is None
    assert cu.ok(cu.xchg(cu.R)) == cu.G
    assert cu.ok(cu.xchg(cu.G)) == cu.R


def test_c035_push_pop_returns_previous_values(cu):
    """Each exchange returns the mode set by the previous one, starting from GLOBAL."""
    assert cu.ok(cu.xchg(cu.R)) == cu.G
    assert cu.ok(cu.xchg(cu.TL)) == cu.R
    assert cu.ok(cu.xchg(cu.G)) == cu.TL


def test_c037_relaxed_thread_unrestricted_by_other_threads_global_capture(cu):
    """A thread switched to RELAXED may allocate while another thread's GLOBAL capture is open."""
    d = cu.drv
    cu.ok(cu.t2(cu.begin, cu.s2, cu.G))
    assert cu.ok(cu.xchg(cu.R)) == cu.G
    p = cu.ok(d.cuMemAlloc(64))
    cu.iscap(cu.s2, cu.ACTIVE)
    cu.ok(cu.t2(cu.end, cu.s2))
    cu.iscap(cu.s2, cu.NONE)
    assert cu.ok(cu.xchg(cu.G)) == cu.R
    cu.ok(d.cuMemFree(p))


def test_c038_other_threads_relaxed_capture_does_not_restrict_a_global_thread(cu):
    """A capture begun RELAXED by another thread does not restrict a GLOBAL-mode thread's cuMemAlloc."""
    d = cu.drv
    cu.ok(cu.t2(d.cuCtxSetCurrent, cu.ctx))
    cu.ok(cu.t2(cu.begin, cu.s2, cu.R))
    p = cu.ok(d.cuMemAlloc(64))
    cu.iscap(cu.s2, cu.ACTIVE)
    cu.ok(cu.t2(cu.end, cu.s2))
    cu.iscap(cu.s2, cu.NONE)
    cu.ok(d.cuMemFree(p))
