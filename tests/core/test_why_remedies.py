"""Every capture code's ``why`` names a remedy, and a 900 says which half of spec 5.2 applies."""
from __future__ import annotations

import threading

import simcuda
from simcuda.faces.bindings import driver as cu

M = cu.CUstreamCaptureMode


def fresh():
    """A current driver with a context and two streams."""
    simcuda.use(simcuda.Driver())
    cu.cuInit(0)
    cu.cuCtxCreate(None, 0, 0)
    return cu.cuStreamCreate(1)[1], cu.cuStreamCreate(1)[1]


def test_the_threads_own_thread_local_capture_is_named_as_the_reason():
    """A THREAD_LOCAL capture forbids cuMemAlloc on its own thread: the why says the thread began it, not that
    the thread is in GLOBAL mode, and gives the remedy for that case."""
    s, _ = fresh()
    cu.cuStreamBeginCapture(s, M.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
    assert cu.cuMemAlloc(64)[0] == cu.CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
    why = simcuda.last_error().why
    assert "thread MainThread began capture 1" in why and "a THREAD_LOCAL capture forbids" in why
    assert "is in GLOBAL mode" not in why
    assert "Make the call before the capture" in why


def test_another_threads_global_capture_is_named_as_the_reason():
    """A GLOBAL capture of the main thread forbids cuMemAlloc on a GLOBAL-mode worker: the why names the other
    thread's capture and the worker's mode, and suggests RELAXED/THREAD_LOCAL."""
    s, _ = fresh()
    ctx = cu.cuCtxGetCurrent()[1]
    cu.cuStreamBeginCapture(s, M.CU_STREAM_CAPTURE_MODE_GLOBAL)
    got = {}

    def worker():
        cu.cuCtxSetCurrent(ctx)
        got["code"] = cu.cuMemAlloc(64)[0]
        got["why"] = simcuda.last_error().why
    t = threading.Thread(target=worker, name="worker")
    t.start()
    t.join()
    assert got["code"] == cu.CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
    assert "is a GLOBAL capture of another thread, and thread worker is in GLOBAL mode" in got["why"]
    assert "begin the other capture in THREAD_LOCAL mode" in got["why"]


def test_a_merge_says_how_to_order_work_across_captures():
    """902: the why says both captures are invalidated and how to keep them apart."""
    s1, s2 = fresh()
    e = cu.cuEventCreate(0)[1]
    cu.cuStreamBeginCapture(s1, M.CU_STREAM_CAPTURE_MODE_RELAXED)
    cu.cuStreamBeginCapture(s2, M.CU_STREAM_CAPTURE_MODE_RELAXED)
    cu.cuEventRecord(e, s1)
    assert cu.cuStreamWaitEvent(s2, e, 0)[0] == cu.CUresult.CUDA_ERROR_STREAM_CAPTURE_MERGE
    why = simcuda.last_error().why
    assert "capture 1 is now invalidated" in why and "capture 2 is now invalidated" in why
    assert "End both on their origins" in why
    assert cu.cuStreamIsCapturing(s1)[1] == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_INVALIDATED


def test_a_captured_event_query_says_when_it_can_be_queried():
    """907: querying an event recorded in a capture names when the host may query it."""
    s, _ = fresh()
    e = cu.cuEventCreate(0)[1]
    cu.cuStreamBeginCapture(s, M.CU_STREAM_CAPTURE_MODE_RELAXED)
    cu.cuEventRecord(e, s)
    assert cu.cuEventQuery(e)[0] == cu.CUresult.CUDA_ERROR_CAPTURED_EVENT
    assert "once the capture has ended and its graph has been launched" in simcuda.last_error().why


def test_a_failed_exec_update_says_what_to_do_instead():
    """910: an update that changes a node's type leaves the exec as it was and says to instantiate instead."""
    fresh()
    d = cu.cuMemAlloc(64)[1]
    g1, g2 = cu.cuGraphCreate(0)[1], cu.cuGraphCreate(0)[1]
    p = cu.CUDA_MEMSET_NODE_PARAMS()
    p.dst, p.value, p.elementSize, p.width, p.height = d, 1, 1, 64, 1
    ctx = cu.cuCtxGetCurrent()[1]
    cu.cuGraphAddMemsetNode(g1, None, 0, p, ctx)
    cu.cuGraphAddEmptyNode(g2, None, 0)
    exe = cu.cuGraphInstantiate(g1, 0)[1]
    assert cu.cuGraphExecUpdate(exe, g2)[0] == cu.CUresult.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE
    assert "the exec is unchanged. Instantiate the new graph instead" in simcuda.last_error().why
