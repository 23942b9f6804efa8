"""Section E of conformance-cases.md: invalidation and what follows (spec 5.1, 5.3, 3.8)."""
from __future__ import annotations

import pytest

MODES = ["G", "TL", "R"]


@pytest.mark.inferred
def test_c067_using_streams_after_invalidation(cu):
    """After invalidation every enqueue, record and wait on the stream returns 901 and changes nothing."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))
    cu.err(d.cuMemAlloc(64), 900)
    cu.err(cu.K(cu.s1), 901)
    cu.err(cu.rec(cu.e1, cu.s1), 901)
    cu.err(cu.wait(cu.s1, cu.e0), 901)
    cu.err(cu.cpy(cu.s1), 901)
    cu.iscap(cu.s1, cu.INVALIDATED)
    st, cid, g, deps, eds, n = cu.info(cu.s1)
    assert st == cu.INVALIDATED
    # outputs other than the status are undefined; the simulator's choice is zeros [I]
    assert int(cid) == 0 and g is not None and int(g) == 0
    assert list(deps) == [] and list(eds) == [] and n == 0
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


def test_c069_recovery_after_ending_an_invalidated_capture(cu):
    """Ending an invalidated capture returns the stream to NONE; it can be synchronized and captured again."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    id1 = cu.capture_id(cu.s1)
    cu.err(d.cuStreamSynchronize(cu.s1), 900)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
    cu.ok(d.cuStreamSynchronize(cu.s1))
    cu.ok(cu.begin(cu.s1, cu.G))
    id2 = cu.capture_id(cu.s1)
    assert id2 != id1
    cu.ok(cu.K(cu.s1))
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])


@pytest.mark.inferred
def test_c070_updating_dependencies_after_invalidation(cu):
    """cuStreamUpdateCaptureDependencies on an invalidated capture returns 901."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))
    cu.err(d.cuStreamQuery(cu.s1), 900)
    assert cu.info(cu.s1)[0] == cu.INVALIDATED
    cu.err(d.cuStreamUpdateCaptureDependencies(cu.s1, [], None, 0, cu.SET), 901)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c071_beginning_again_before_ending(cu):
    """BeginCapture on a stream whose capture is invalidated but not ended returns 401."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(d.cuStreamSynchronize(cu.s1), 900)
    cu.err(cu.begin(cu.s1, cu.G), 401)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


def test_c073_querying_the_capturing_stream_relaxed(cu):
    """cuStreamQuery on the capturing stream returns 900 and invalidates even a RELAXED capture."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.R))
    cu.err(d.cuStreamQuery(cu.s1), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c074_stream_add_callback_during_capture(cu):
    """cuStreamAddCallback on a capturing stream returns 801 and invalidates the capture."""
    d = cu.drv
    calls = []
    cb = cu.stream_callback(lambda *_a: calls.append(1))
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(d.cuStreamAddCallback(cu.s1, cb, None, 0), 801)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
    assert calls == []


@pytest.mark.inferred
def test_c075_stream_attach_mem_async_during_capture(cu):
    """cuStreamAttachMemAsync on a capturing stream returns 801 and invalidates the capture."""
    d = cu.drv
    managed = cu.ok(d.cuMemAllocManaged(64, d.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL))
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(d.cuStreamAttachMemAsync(cu.s1, managed, 0, 0), 801)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
    cu.ok(d.cuMemFree(managed))


@pytest.mark.parametrize("mode", MODES)
def test_c077_context_synchronize_from_another_thread(cu, mode):
    """cuCtxSynchronize from another thread returns 900 and invalidates a capture in that context, in every mode."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, getattr(cu, mode)))
    cu.ok(cu.t2(d.cuCtxSetCurrent, cu.ctx))
    cu.err(cu.t2(d.cuCtxSynchronize), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


def test_c078_ctx_record_event_and_ctx_wait_event_while_a_stream_captures(cu):
    """cuCtxRecordEvent and cuCtxWaitEvent on a context with a capturing stream return 900 and invalidate it."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(d.cuCtxRecordEvent(cu.ctx, cu.e3), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(d.cuCtxWaitEvent(cu.ctx, cu.e0), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.parametrize("mode", MODES)
def test_c079_querying_a_captured_event(cu, mode):
    """cuEventQuery on an event recorded inside the capture returns 907 and invalidates it, in every mode."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, getattr(cu, mode)))
    cu.ok(cu.K(cu.s1))
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.err(d.cuEventQuery(cu.e1), 907)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


def test_c081_another_thread_queries_a_captured_event(cu):
    """Even a RELAXED thread gets 907 when it queries an event recorded inside another thread's capture."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.TL))
    cu.ok(cu.rec(cu.e1, cu.s1))
    assert cu.ok(cu.t2(d.cuThreadExchangeStreamCaptureMode, cu.R)) == cu.G
    cu.err(cu.t2(d.cuEventQuery, cu.e1), 907)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c082_event_elapsed_time_with_a_captured_event(cu):
    """cuEventElapsedTime with a captured event returns (907, None) and invalidates the capture."""
    d = cu.drv
    cu.ok(cu.rec(cu.e0, cu.s2))
    cu.ok(d.cuStreamSynchronize(cu.s2))
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.rec(cu.e1, cu.s1))
    res = d.cuEventElapsedTime(cu.e0, cu.e1)
    cu.err(res, 907)
    assert len(res) == 2 and res[1] is None
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
