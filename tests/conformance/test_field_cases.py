"""field-cases.md: capture situations reported by users of CUDA libraries, reduced to driver calls.

Every field case assumes the bindings' default (legacy) default-stream mode. Where a field case and
capture-semantics.md disagree, the spec's tagged rule wins and the docstring says so.
"""
from __future__ import annotations

import pytest

MODES = ["G", "TL", "R"]


def test_c01_onnx_runtime_syncs_its_own_capturing_stream(cu):
    """Synchronizing the capturing stream returns 900, and the end then returns 901 with no graph."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    for _ in range(3):
        cu.ok(cu.K(cu.s1))
    cu.err(d.cuStreamSynchronize(cu.s1), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    res = cu.end(cu.s1)
    cu.err(res, 901)
    assert res[1] is None
    cu.iscap(cu.s1, cu.NONE)


def test_c02_cuda_jl_polls_the_capturing_stream_while_copying(cu):
    """Querying the capturing stream after a captured copy returns 900 and the end returns 901."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.cpy(cu.s1))
    cu.err(d.cuStreamQuery(cu.s1), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


def test_c03_stream_query_is_illegal_even_in_a_relaxed_capture(cu):
    """RELAXED lifts only the unsafe-call rule: querying the capturing stream still returns 900 and invalidates."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.R))
    cu.err(d.cuStreamQuery(cu.s1), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.parametrize("mode", MODES)
def test_c06_cross_thread_context_sync_then_launch_returns_901(cu, mode):
    """Another thread's cuCtxSynchronize returns 900 in every mode; the capturing thread's next launch returns 901."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, getattr(cu, mode)))
    cu.ok(cu.t2(d.cuCtxSetCurrent, cu.ctx))
    cu.err(cu.t2(d.cuCtxSynchronize), 900)
    cu.err(cu.K(cu.s1), 901)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.parametrize("mode", MODES)
def test_c07_legacy_copy_from_another_thread_invalidates_a_blocking_capture(cu, mode):
    """Another thread's synchronous copy on the legacy stream returns 906 and invalidates a blocking capture in any
    mode."""
    cu.require_legacy_mode()
    d = cu.drv
    cu.ok(cu.begin(cu.s1, getattr(cu, mode)))
    cu.ok(cu.t2(d.cuCtxSetCurrent, cu.ctx))
    cu.err(cu.t2(d.cuMemcpyHtoD, cu.d, cu.h, 4), 906)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.K(cu.s1), 901)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
@pytest.mark.parametrize("mode", MODES)
def test_c07_copy_in_another_context_does_not_touch_the_capture(cu, mode):
    """A synchronous copy in another context is not a legacy conflict; it is only an unsafe call (900 under GLOBAL).

    Conflict: the field case (measured on a second GPU) reports SUCCESS for every mode. The spec's rules
    win: the legacy rule is per context (section 6), but with no blocking capture in that context the copy
    is a potentially unsafe call (section 6, 5.2), which another thread's GLOBAL capture forbids to a
    GLOBAL-mode thread. The second device is reduced to a second context on device 0.
    """
    cu.require_legacy_mode()
    d = cu.drv
    ctxB = cu.ok(d.cuCtxCreate(None, 0, cu.dev))
    cu.defer(lambda: d.cuCtxDestroy(ctxB))
    dB = cu.ok(d.cuMemAlloc(64))
    assert int(cu.ok(d.cuCtxPopCurrent())) == int(ctxB)
    cu.ok(cu.begin(cu.s1, getattr(cu, mode)))
    cu.ok(cu.t2(d.cuCtxSetCurrent, ctxB))
    if mode == "G":
        cu.err(cu.t2(d.cuMemcpyHtoD, dB, cu.h, 4), 900)
        cu.iscap(cu.s1, cu.INVALIDATED)
        cu.err(cu.end(cu.s1), 901)
    else:
        cu.ok(cu.t2(d.cuMemcpyHtoD, dB, cu.h, 4))
        cu.iscap(cu.s1, cu.ACTIVE)
        cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)


def test_c07_context_sync_from_another_thread_and_own_thread_sync(cu):
    """Another thread's cuCtxSynchronize returns 900; the capturing thread's own legacy copy returns 906."""
    cu.require_legacy_mode()
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.t2(d.cuCtxSetCurrent, cu.ctx))
    cu.err(cu.t2(d.cuCtxSynchronize), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.ok(cu.begin(cu.s1, cu.TL))
    cu.err(d.cuMemcpyHtoD(cu.d, cu.h, 4), 906)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


def test_c09_warp_copy_through_the_legacy_stream_during_capture(cu):
    """Recording or waiting on the legacy stream, or a synchronous DtoH copy, during a blocking capture returns 906."""
    cu.require_legacy_mode()
    d = cu.drv
    out = bytearray(4)
    cu.ok(cu.begin(cu.s1, cu.TL))
    cu.err(cu.rec(cu.e0, cu.LEG), 906)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.wait(cu.LEG, cu.e0), 906)
    cu.err(d.cuMemcpyDtoH(out, cu.d, 4), 906)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


def test_c10_warp_one_byte_fill_used_synchronous_memset(cu):
    """A synchronous memset during a blocking capture returns 906; the async memset is captured as a MEMSET node."""
    cu.require_legacy_mode()
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.TL))
    cu.err(d.cuMemsetD8(cu.d, 1, 4), 906)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.ok(cu.begin(cu.s1, cu.TL))
    cu.ok(d.cuMemsetD8Async(cu.d, 1, 4, cu.s1))
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.MEMSET], [])


@pytest.mark.inferred
def test_c11_other_pipelines_during_a_global_capture(cu):
    """Legacy-stream use by another thread is 906 whatever the capture mode; a side-stream sync is 900 only under
    GLOBAL.

    Conflict: the field case reports 906 for the other thread's stream sync and claims THREAD_LOCAL
    fixes everything. The spec wins: an unrelated stream sync is a potentially unsafe call (5.2: 900
    under another thread's GLOBAL capture, allowed under THREAD_LOCAL), while the legacy-stream rule
    (6) ignores the mode and depends only on whether the capturing stream is blocking.
    """
    d = cu.drv
    cu.ok(cu.t2(d.cuCtxSetCurrent, cu.ctx))
    # GLOBAL capture of a blocking stream: both kinds of call fail
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(cu.t2(d.cuStreamSynchronize, cu.s2), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(cu.t2(cu.K, cu.LEG), 906)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    # THREAD_LOCAL capture of a blocking stream: the sync passes, the legacy launch still fails
    cu.ok(cu.begin(cu.s1, cu.TL))
    cu.ok(cu.t2(d.cuStreamSynchronize, cu.s2))
    cu.iscap(cu.s1, cu.ACTIVE)
    cu.err(cu.t2(cu.K, cu.LEG), 906)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    # THREAD_LOCAL capture of a non-blocking stream: both pass
    cu.ok(cu.begin(cu.n1, cu.TL))
    cu.ok(cu.t2(d.cuStreamSynchronize, cu.s2))
    cu.ok(cu.t2(cu.K, cu.LEG))
    cu.iscap(cu.n1, cu.ACTIVE)
    cu.end_ok(cu.n1)
    cu.iscap(cu.n1, cu.NONE)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.parametrize("mode", MODES)
def test_c13_capture_on_the_legacy_stream_is_rejected(cu, mode):
    """BeginCapture on the legacy stream returns 900 in every mode."""
    cu.err(cu.begin(cu.LEG, getattr(cu, mode)), 900)
    cu.iscap(cu.LEG, cu.NONE)


@pytest.mark.parametrize("mode", MODES)
def test_c15_watchdog_queries_an_event_recorded_inside_the_capture(cu, mode):
    """A thread in any mode, RELAXED included, gets 907 for an event recorded inside a capture, which is invalidated.

    The field case leaves open whether the 907 invalidates; the spec (5.3) says it does.
    """
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.rec(cu.e0, cu.s1))             # f
    cu.ok(cu.wait(cu.s2, cu.e0))            # fork the "nccl" stream
    cu.ok(cu.K(cu.s2))                      # the collective
    cu.ok(cu.rec(cu.e1, cu.s2))             # done
    assert cu.ok(cu.t2(d.cuThreadExchangeStreamCaptureMode, getattr(cu, mode))) == cu.G
    cu.err(cu.t2(d.cuEventQuery, cu.e1), 907)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.iscap(cu.s2, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)


def test_c17_cuda_free_0_under_thread_local_vs_relaxed_capture(cu):
    """cuMemFree(0) is an unsafe call: 900 inside a THREAD_LOCAL capture, allowed inside a RELAXED one."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.TL))
    cu.err(d.cuMemFree(0), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.ok(cu.begin(cu.s1, cu.R))
    cu.ok(d.cuMemFree(0))
    cu.iscap(cu.s1, cu.ACTIVE)
    cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)


def test_c18_allocation_missing_the_relaxed_guard(cu):
    """cuMemAlloc on the capturing thread in GLOBAL mode returns 900; inside a RELAXED exchange it succeeds.

    The multi-GPU detail (the capturing stream on another device) does not change the rule, which is per
    thread (spec 5.2); the case is reduced to one device.
    """
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(d.cuMemAlloc(128), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.ok(cu.begin(cu.s1, cu.G))
    assert cu.ok(cu.xchg(cu.R)) == cu.G
    p = cu.ok(d.cuMemAlloc(128))
    assert cu.ok(cu.xchg(cu.G)) == cu.R
    cu.iscap(cu.s1, cu.ACTIVE)
    cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    cu.ok(d.cuMemFree(p))


def test_c19_hidden_device_sync_during_capture(cu):
    """cuCtxSynchronize on the capturing thread returns 900 and the end returns 901."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))
    cu.err(d.cuCtxSynchronize(), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


def test_c20_module_unload_and_load_during_capture(cu):
    """Unloading or loading a module during a THREAD_LOCAL capture returns 900; destroying the NULL graph returns 1."""
    d = cu.drv
    mod2 = cu.ok(d.cuModuleLoadData(cu.PTX))
    cu.ok(cu.begin(cu.s1, cu.TL))
    cu.err(d.cuModuleUnload(mod2), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    res = cu.end(cu.s1)
    cu.err(res, 901)
    assert res[1] is None
    cu.err(d.cuGraphDestroy(res[1]), 1)
    cu.ok(cu.begin(cu.s1, cu.TL))
    res = d.cuModuleLoadData(cu.PTX)
    cu.err(res, 900)
    assert res[1] is None
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
    cu.ok(d.cuModuleUnload(mod2))


@pytest.mark.inferred
def test_c23_deepep_unjoined_work(cu):
    """Captured work left on a forked stream makes the end return 904; syncing the fork instead returns 900."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.rec(cu.e0, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e0))
    cu.ok(cu.K(cu.s2))
    res = cu.end(cu.s1)
    cu.err(res, 904)
    assert res[1] is None
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)
    # the "finish it with a stream sync" variant
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.rec(cu.e0, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e0))
    cu.ok(cu.K(cu.s2))
    cu.err(d.cuStreamSynchronize(cu.s2), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.iscap(cu.s2, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)


@pytest.mark.inferred
def test_c24_capture_info_usage_bug_leaves_a_fork_unjoined(cu):
    """Reading capture info does not join anything: the fork with work stays unjoined and the end returns 904."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.rec(cu.e0, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e0))
    cu.ok(cu.K(cu.s2))
    st, _, _, deps, _, n = cu.info(cu.s1)
    assert st == cu.ACTIVE and list(deps) == [] and n == 0
    cu.err(cu.end(cu.s1), 904)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)


@pytest.mark.inferred
def test_c25_free_async_on_a_side_stream_leaves_a_dangling_node(cu):
    """A MEM_FREE captured on a fork that never rejoins makes the end return 904; rejoining it fixes the capture."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    p = cu.ok(d.cuMemAllocAsync(256, cu.s1))
    cu.ok(cu.rec(cu.e0, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e0))
    cu.ok(d.cuMemFreeAsync(p, cu.s2))
    cu.err(cu.end(cu.s1), 904)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)
    # PyTorch's fix: rejoin the free stream before the end
    cu.ok(cu.begin(cu.s1, cu.G))
    p = cu.ok(d.cuMemAllocAsync(256, cu.s1))
    cu.ok(cu.rec(cu.e0, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e0))
    cu.ok(d.cuMemFreeAsync(p, cu.s2))
    cu.ok(cu.rec(cu.e1, cu.s2))
    cu.ok(cu.wait(cu.s1, cu.e1))
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)
    M, F = 0, 1
    assert cu.shape(g) == ([cu.MEM_ALLOC, cu.MEM_FREE], [(M, F)])


def test_c27_isolation_a_capturing_stream_waits_on_uncaptured_work(cu):
    """Waiting on an event of uncaptured side-stream work returns 905 and invalidates the capture."""
    cu.ok(cu.K(cu.s2))
    cu.ok(cu.rec(cu.e0, cu.s2))
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(cu.wait(cu.s1, cu.e0), 905)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c29_event_wait_node_inside_a_conditional_body(cu):
    """An external event wait captured into a conditional body ends fine, but the graph fails to instantiate (1).

    Conditional nodes are not yet in the spec (13.B); the simulator models them by the proposals P-20..P-31
    (docs/spec-proposals.md), P-23 for this case.
    """
    d = cu.drv
    cu.ok(cu.rec(cu.e0, cu.s2))
    g = cu.ok(d.cuGraphCreate(0))
    handle = cu.ok(d.cuGraphConditionalHandleCreate(g, cu.ctx, 1, d.CU_GRAPH_COND_ASSIGN_DEFAULT))
    params = d.CUgraphNodeParams()
    params.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
    params.conditional.handle = handle
    params.conditional.type = d.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_IF
    params.conditional.size = 1
    params.conditional.ctx = cu.ctx
    cu.ok(d.cuGraphAddNode(g, None, None, 0, params))
    body = params.conditional.phGraph_out[0]
    assert int(body) != 0
    cu.ok(d.cuStreamBeginCaptureToGraph(cu.s1, body, None, None, 0, cu.G))
    cu.ok(d.cuStreamWaitEvent(cu.s1, cu.e0, cu.WAIT_EXTERNAL))
    cu.ok(cu.K(cu.s1))
    cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    res = d.cuGraphInstantiate(g, 0)
    cu.err(res, 1)


def test_c31_graph_owned_allocation_freed_eagerly(cu):
    """cuMemFree of an address made by a captured cuMemAllocAsync returns 1: the graph owns it."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    p = cu.ok(d.cuMemAllocAsync(256, cu.s1))
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.MEM_ALLOC], [])
    cu.err(d.cuMemFree(p), 1)


@pytest.mark.inferred
def test_c33_background_threads_during_a_global_capture(cu):
    """Another GLOBAL-mode thread's pinned allocation breaks a GLOBAL capture (900); a THREAD_LOCAL capture is
    immune."""
    d = cu.drv
    flags = 0
    cu.ok(cu.rec(cu.e0, cu.s2))
    cu.ok(d.cuEventSynchronize(cu.e0))
    cu.ok(cu.t2(d.cuCtxSetCurrent, cu.ctx))
    cu.ok(cu.begin(cu.s1, cu.G))
    res = cu.t2(d.cuMemHostAlloc, 64, flags)
    cu.err(res, 900)
    assert res[1] is None
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.ok(cu.begin(cu.s1, cu.TL))
    hp = cu.ok(cu.t2(d.cuMemHostAlloc, 64, flags))
    cu.ok(cu.t2(d.cuStreamSynchronize, cu.s2))
    cu.ok(cu.t2(d.cuEventQuery, cu.e0))
    cu.iscap(cu.s1, cu.ACTIVE)
    cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    cu.ok(cu.t2(d.cuMemFreeHost, hp))


def test_c34_lazy_communicator_init_inside_capture(cu):
    """A cuMemFree made during a GLOBAL capture returns 900; made before the capture it is harmless."""
    d = cu.drv
    scratch = cu.ok(d.cuMemAlloc(64))
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(d.cuMemFree(scratch), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
    cu.ok(d.cuMemFree(scratch))             # the fix: initialise before begin
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)


def test_c35_library_breaks_the_capture_and_the_next_record_returns_901(cu):
    """After an unsafe call invalidated the capture, recording the join event on a forked member returns 901."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.rec(cu.e0, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e0))
    cu.ok(cu.K(cu.s2))
    cu.err(d.cuMemAlloc(64), 900)
    cu.iscap(cu.s2, cu.INVALIDATED)
    cu.err(cu.rec(cu.e1, cu.s2), 901)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)
