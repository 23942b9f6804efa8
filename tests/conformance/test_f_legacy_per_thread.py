"""Section F of conformance-cases.md: legacy stream, per-thread stream, synchronous calls (spec 6, 6.1, 6.2)."""
from __future__ import annotations

import pytest


def test_c083_launch_on_the_legacy_stream_while_a_blocking_stream_captures(cu):
    """A launch on the legacy stream during a blocking stream's capture returns 906 and invalidates it."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(cu.K(cu.LEG), 906)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.LEG, cu.NONE)


def test_c085_get_capture_info_on_the_legacy_stream(cu):
    """GetCaptureInfo on the legacy stream under a blocking capture returns 906 with all outputs None, without
    invalidating."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    res = d.cuStreamGetCaptureInfo(cu.LEG)
    cu.err(res, 906)
    assert len(res) == 7
    cu.iscap(cu.s1, cu.ACTIVE)
    cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)


def test_c086_non_blocking_capture_leaves_the_legacy_stream_usable(cu):
    """While only a non-blocking stream captures, legacy-stream work runs uncaptured."""
    cu.ok(cu.begin(cu.n1, cu.G))
    cu.ok(cu.K(cu.LEG))
    cu.iscap(cu.LEG, cu.NONE)
    cu.ok(cu.K(cu.n1))
    g = cu.end_ok(cu.n1)
    cu.iscap(cu.n1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])


@pytest.mark.parametrize("mode", ["G", "TL"])
def test_c087_synchronous_memcpy_while_a_blocking_stream_captures_legacy_mode(cu, mode):
    """In legacy mode a synchronous copy during a blocking capture returns 906 and invalidates it."""
    cu.require_legacy_mode()
    d = cu.drv
    cu.ok(cu.begin(cu.s1, getattr(cu, mode)))
    cu.err(d.cuMemcpyHtoD(cu.d, cu.h, 4), 906)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
@pytest.mark.parametrize("mode", ["G", "TL"])
def test_c162_synchronous_memcpy_while_a_blocking_stream_captures_per_thread_mode(cu_pt, mode):
    """In per-thread mode the copy is an unsafe call: 900 under the thread's own non-RELAXED capture, allowed under
    RELAXED."""
    cu = cu_pt
    d = cu.drv
    cu.ok(cu.begin(cu.s1, getattr(cu, mode)))
    cu.err(d.cuMemcpyHtoD(cu.d, cu.h, 4), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
    cu.ok(cu.begin(cu.s1, cu.R))
    cu.ok(d.cuMemcpyHtoD(cu.d, cu.h, 4))
    cu.iscap(cu.s1, cu.ACTIVE)
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([], [])


def test_c089_synchronous_memcpy_from_another_thread_thread_local_capture_legacy_mode(cu):
    """In legacy mode another thread's synchronous copy conflicts with a THREAD_LOCAL blocking capture: 906,
    invalidated."""
    cu.require_legacy_mode()
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.TL))
    cu.ok(cu.t2(d.cuCtxSetCurrent, cu.ctx))
    cu.err(cu.t2(d.cuMemcpyHtoD, cu.d, cu.h, 4), 906)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c163_synchronous_memcpy_from_another_thread_thread_local_capture_per_thread_mode(cu_pt):
    """In per-thread mode another thread's synchronous copy runs on its own stream and leaves a THREAD_LOCAL capture
    ACTIVE."""
    cu = cu_pt
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.TL))
    cu.ok(cu.t2(d.cuCtxSetCurrent, cu.ctx))
    cu.ok(cu.t2(d.cuMemcpyHtoD, cu.d, cu.h, 4))
    cu.iscap(cu.s1, cu.ACTIVE)
    cu.ok(cu.K(cu.s1))
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])


def test_c090_capturing_the_per_thread_stream_locks_the_legacy_stream(cu):
    """The per-thread stream is blocking: capturing it makes a legacy launch return 906 and invalidates the capture."""
    cu.ok(cu.begin(cu.PTS, cu.G))
    cu.err(cu.K(cu.LEG), 906)
    cu.iscap(cu.PTS, cu.INVALIDATED)
    cu.err(cu.end(cu.PTS), 901)
    cu.iscap(cu.PTS, cu.NONE)


@pytest.mark.inferred
def test_c166_synchronous_memcpy_while_the_callers_own_per_thread_stream_captures(cu_pt):
    """In per-thread mode a synchronous copy while the caller's per-thread stream captures returns 900 even under
    RELAXED."""
    cu = cu_pt
    d = cu.drv
    cu.ok(cu.begin(0, cu.R))
    cu.err(d.cuMemcpyHtoD(cu.d, cu.h, 4), 900)
    cu.iscap(0, cu.INVALIDATED)
    cu.err(cu.end(0), 901)
    cu.iscap(0, cu.NONE)


@pytest.mark.inferred
def test_c167_the_per_thread_stream_is_the_calling_threads_own(cu):
    """CU_STREAM_PER_THREAD names the caller's own stream, yet T1's capture of it locks the legacy stream for T2."""
    d = cu.drv
    cu.ok(cu.begin(cu.PTS, cu.R))
    cu.ok(cu.K(cu.PTS))
    cu.ok(cu.t2(d.cuCtxSetCurrent, cu.ctx))
    assert cu.ok(cu.t2(d.cuStreamIsCapturing, cu.PTS)) == cu.NONE
    cu.err(cu.t2(d.cuStreamEndCapture, cu.PTS), 401)
    cu.iscap(cu.PTS, cu.ACTIVE)
    cu.err(cu.t2(cu.K, cu.LEG), 906)
    cu.iscap(cu.PTS, cu.INVALIDATED)
    cu.err(cu.end(cu.PTS), 901)
    cu.iscap(cu.PTS, cu.NONE)


def test_c091_a_capture_in_context_a_does_not_lock_context_b_legacy_stream(cu):
    """The legacy-stream rule is per context: another context's legacy stream stays usable during a capture."""
    d = cu.drv
    ctxA = cu.ctx
    ctxB = cu.ok(d.cuCtxCreate(None, 0, cu.dev))
    cu.defer(lambda: d.cuCtxDestroy(ctxB))
    modB = cu.ok(d.cuModuleLoadData(cu.PTX))             # a kernel of ctxB, loaded before the capture
    kB = cu.ok(d.cuModuleGetFunction(modB, b"k"))
    assert int(cu.ok(d.cuCtxPopCurrent())) == int(ctxB)
    assert int(cu.ok(d.cuCtxGetCurrent())) == int(ctxA)
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(d.cuCtxPushCurrent(ctxB))
    cu.ok(cu.K(cu.LEG, kB))
    cu.iscap(cu.LEG, cu.NONE)
    assert int(cu.ok(d.cuCtxPopCurrent())) == int(ctxB)
    cu.iscap(cu.s1, cu.ACTIVE)
    cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c093_synchronizing_the_legacy_stream_during_a_blocking_capture(cu):
    """cuStreamSynchronize(CU_STREAM_LEGACY) under a blocking capture returns 906 (legacy rule first) and invalidates
    it."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(d.cuStreamSynchronize(cu.LEG), 906)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


def test_c094_the_legacy_stream_waits_on_a_captured_event(cu):
    """The legacy stream cannot fork into a capture: the wait returns 906 and invalidates the capture."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.err(cu.wait(cu.LEG, cu.e1), 906)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.LEG, cu.NONE)


@pytest.mark.inferred
def test_c174_legacy_stream_waits_on_an_event_captured_by_a_non_blocking_capture(cu):
    """Even with no blocking capture, the legacy stream may not join a capture: 906, and the event's capture is
    invalidated."""
    cu.ok(cu.begin(cu.n1, cu.G))
    cu.ok(cu.K(cu.n1))
    cu.ok(cu.rec(cu.e1, cu.n1))
    cu.err(cu.wait(cu.LEG, cu.e1), 906)
    cu.iscap(cu.LEG, cu.NONE)
    cu.iscap(cu.n1, cu.INVALIDATED)
    cu.err(cu.end(cu.n1), 901)
    cu.iscap(cu.n1, cu.NONE)


@pytest.mark.inferred
def test_c095_synchronous_memcpy_with_only_a_non_blocking_capture_legacy_mode(cu):
    """In legacy mode, with only a non-blocking capture, a synchronous copy is an unsafe call: 900 under GLOBAL."""
    cu.require_legacy_mode()
    d = cu.drv
    cu.ok(cu.begin(cu.n1, cu.G))
    cu.err(d.cuMemcpyHtoD(cu.d, cu.h, 4), 900)
    cu.iscap(cu.n1, cu.INVALIDATED)
    cu.err(cu.end(cu.n1), 901)
    cu.iscap(cu.n1, cu.NONE)


@pytest.mark.inferred
def test_c165_synchronous_memcpy_with_only_a_non_blocking_capture_per_thread_mode(cu_pt):
    """In per-thread mode, with only a non-blocking capture, a synchronous copy is an unsafe call: 900 under GLOBAL."""
    cu = cu_pt
    d = cu.drv
    cu.ok(cu.begin(cu.n1, cu.G))
    cu.err(d.cuMemcpyHtoD(cu.d, cu.h, 4), 900)
    cu.iscap(cu.n1, cu.INVALIDATED)
    cu.err(cu.end(cu.n1), 901)
    cu.iscap(cu.n1, cu.NONE)
