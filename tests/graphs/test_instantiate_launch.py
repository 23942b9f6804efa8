"""Instantiate and launch rules (spec 9; cases C-141, C-142, C-143) and launch ordering."""
from __future__ import annotations

import ctypes

import numpy as np

from simcuda.faces.bindings import driver as cu

from .conftest import err, ok

F = cu.CUgraphInstantiate_flags
AUTO_FREE = int(F.CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)
UPLOAD = int(F.CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD)
DEVICE_LAUNCH = int(F.CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH)
IR = cu.CUgraphInstantiateResult


def alloc_graph(env, free=False):
    """Capture ALLOC(M); K(A) [; FREE(F)] and return ``(graph, p)``."""
    box = []

    def body(s):
        p = ok(cu.cuMemAllocAsync(16, s))
        box.append(p)
        ok(env.launch(env.inc, s, env.inc_args(p)))
        if free:
            ok(cu.cuMemFreeAsync(p, s))
    return env.capture(body), box[0]


def params(flags=0, stream=None):
    p = cu.CUDA_GRAPH_INSTANTIATE_PARAMS()
    p.flags = flags
    if stream is not None:
        p.hUploadStream = stream
    return p


def test_second_exec_of_a_graph_with_allocation_nodes(env):
    """C-141: only one exec of a graph with memory nodes may exist at a time."""
    g, _p = alloc_graph(env, free=True)
    x1 = ok(cu.cuGraphInstantiate(g, 0))
    e = err(cu.cuGraphInstantiate(g, 0), 1)
    assert "C-141" in e.why
    ok(cu.cuGraphExecDestroy(x1))
    ok(cu.cuGraphInstantiate(g, 0))


def test_relaunch_with_unfreed_allocations(env):
    """C-142: a second launch while the first left its allocation unfreed is INVALID_VALUE; AUTO_FREE_ON_LAUNCH
    frees before each launch; cuMemFreeAsync (stream order) or cuMemFree also free it."""
    g, p = alloc_graph(env)
    x = ok(cu.cuGraphInstantiate(g, 0))
    ok(cu.cuGraphLaunch(x, env.s2))
    assert env.read(p, 4) == (1).to_bytes(4, "little")  # left allocated: stream work after the graph may use it
    e = err(cu.cuGraphLaunch(x, env.s2), 1)
    assert "AUTO_FREE_ON_LAUNCH" in e.why
    ok(cu.cuMemFreeAsync(p, env.s2))
    err(cu.cuMemcpyDtoH(ctypes.create_string_buffer(4), p, 4), 1)  # unmapped now
    ok(cu.cuGraphLaunch(x, env.s2))
    ok(cu.cuMemFree(p))
    ok(cu.cuGraphLaunch(x, env.s2))
    ok(cu.cuGraphExecDestroy(x))
    ok(cu.cuMemFreeAsync(p, env.s2))
    err(cu.cuMemFreeAsync(p, env.s2), 1)  # nothing left allocated (C31)
    x2 = ok(cu.cuGraphInstantiate(g, AUTO_FREE))
    for _ in range(3):
        ok(cu.cuGraphLaunch(x2, env.s2))
    assert env.read(p, 4) == (1).to_bytes(4, "little")  # re-mapped fresh by each launch


def test_incompatible_instantiate_flags(env):
    """C-143: DEVICE_LAUNCH with AUTO_FREE, with a HOST node, or with an empty graph is INVALID_VALUE."""
    g = env.kernels(1)
    err(cu.cuGraphInstantiate(g, DEVICE_LAUNCH | AUTO_FREE), 1)
    gh = env.capture(lambda s: ok(cu.cuLaunchHostFunc(s, env.host_fn(lambda _u: None), None)))
    err(cu.cuGraphInstantiate(gh, DEVICE_LAUNCH), 1)
    err(cu.cuGraphInstantiate(ok(cu.cuGraphCreate(0)), DEVICE_LAUNCH), 1)
    err(cu.cuGraphInstantiate(g, 0x10), 1)  # unknown flag bit
    ok(cu.cuGraphInstantiate(g, DEVICE_LAUNCH))


def test_instantiate_with_params_reports_result_and_error_node(env):
    """cuGraphInstantiateWithParams writes result_out / hErrNode_out: SUCCESS+NULL, or the reason and node."""
    g = env.kernels(1)
    p = params()
    x = ok(cu.cuGraphInstantiateWithParams(g, p))
    assert p.result_out == IR.CUDA_GRAPH_INSTANTIATE_SUCCESS and int(p.hErrNode_out) == 0
    assert int(ok(cu.cuGraphExecGetFlags(x))) == 0
    host = ok(cu.cuGraphAddHostNode(g, None, 0, _host_params(env)))
    p = params(DEVICE_LAUNCH)
    err(cu.cuGraphInstantiateWithParams(g, p), 1)
    assert p.result_out == IR.CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED
    assert int(p.hErrNode_out) == int(host)
    p = params(DEVICE_LAUNCH | AUTO_FREE)
    err(cu.cuGraphInstantiateWithParams(g, p), 1)
    assert p.result_out == IR.CUDA_GRAPH_INSTANTIATE_ERROR and int(p.hErrNode_out) == 0


def _host_params(env):
    hp = cu.CUDA_HOST_NODE_PARAMS()
    hp.fn = env.host_fn(lambda _u: None)
    return hp


def test_device_launch_refuses_pageable_copies(env):
    """DEVICE_LAUNCH: a copy from pageable host memory is NODE_OPERATION_NOT_SUPPORTED; pinned memory is fine."""
    pageable = ctypes.create_string_buffer(16)
    g = env.capture(lambda s: ok(cu.cuMemcpyHtoDAsync(env.buf, pageable, 16, s)))
    p = params(DEVICE_LAUNCH)
    err(cu.cuGraphInstantiateWithParams(g, p), 1)
    assert p.result_out == IR.CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED
    pinned = ok(cu.cuMemAllocHost(16))
    g2 = env.capture(lambda s: ok(cu.cuMemcpyHtoDAsync(env.buf, pinned, 16, s)))
    ok(cu.cuGraphInstantiate(g2, DEVICE_LAUNCH))


def test_device_launch_refuses_several_contexts(env):
    """DEVICE_LAUNCH: nodes on two contexts give MULTIPLE_CTXS_NOT_SUPPORTED with the second context's node."""
    g = ok(cu.cuGraphCreate(0))
    kp = cu.CUDA_KERNEL_NODE_PARAMS()
    kp.func = env.k
    kp.gridDimX = kp.gridDimY = kp.gridDimZ = kp.blockDimX = kp.blockDimY = kp.blockDimZ = 1
    ok(cu.cuGraphAddKernelNode(g, None, 0, kp))
    ctx2 = ok(cu.cuCtxCreate(None, 0, cu.CUdevice(0)))
    other = ok(cu.cuMemAlloc(16))
    ok(cu.cuCtxSetCurrent(env.ctx))
    mp = cu.CUDA_MEMSET_NODE_PARAMS()
    mp.dst, mp.elementSize, mp.width, mp.height = other, 1, 16, 1
    n = ok(cu.cuGraphAddMemsetNode(g, None, 0, mp, ctx2))
    p = params(DEVICE_LAUNCH)
    err(cu.cuGraphInstantiateWithParams(g, p), 1)
    assert p.result_out == IR.CUDA_GRAPH_INSTANTIATE_MULTIPLE_CTXS_NOT_SUPPORTED and int(p.hErrNode_out) == int(n)


def test_cycle_is_an_invalid_structure(env):
    """A graph made cyclic with cuGraphAddDependencies fails to instantiate with INVALID_STRUCTURE."""
    g = env.kernels(2)
    a, b = env.nodes(g)
    ok(cu.cuGraphAddDependencies(g, [b], [a], None, 1))
    p = params()
    err(cu.cuGraphInstantiateWithParams(g, p), 1)
    assert p.result_out == IR.CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE and int(p.hErrNode_out) in (int(a), int(b))


def test_capture_target_cannot_be_instantiated(env):
    """A graph that cuStreamBeginCaptureToGraph is capturing into cannot be instantiated (or destroyed) [I]."""
    g = ok(cu.cuGraphCreate(0))
    ok(cu.cuStreamBeginCaptureToGraph(env.s1, g, None, None, 0, 0))
    ok(env.launch(env.k, env.s1))
    err(cu.cuGraphInstantiate(g, 0), 1)
    err(cu.cuGraphDestroy(g), 1)
    ok(cu.cuStreamEndCapture(env.s1))
    ok(cu.cuGraphInstantiate(g, 0))


def test_upload_flag_and_upload(env):
    """UPLOAD uploads into hUploadStream (checked first: a bad stream makes no exec); GetFlags drops UPLOAD."""
    g, _p = alloc_graph(env, free=True)
    p = params(UPLOAD, cu.CUstream(0x77))
    err(cu.cuGraphInstantiateWithParams(g, p), 400)
    assert p.result_out == IR.CUDA_GRAPH_INSTANTIATE_ERROR
    x = ok(cu.cuGraphInstantiateWithParams(g, params(UPLOAD | AUTO_FREE, env.s2)))  # no exec was left behind
    assert int(ok(cu.cuGraphExecGetFlags(x))) == AUTO_FREE
    ok(cu.cuGraphUpload(x, env.s1))
    err(cu.cuGraphUpload(cu.CUgraphExec(0), env.s1), 1)


def test_launch_is_ordered_behind_stream_work_and_earlier_launches(menv):
    """Manual progression: a launch stays pending (NOT_READY) until advance/synchronize, and the launch log
    follows stream order: earlier stream work, then launch 1, then launch 2."""
    env = menv
    g = env.capture(lambda s: (ok(env.launch(env.inc, s, env.inc_args(env.buf))), ok(env.launch(env.k, s))))
    x = ok(cu.cuGraphInstantiate(g, 0))
    ok(cu.cuMemsetD32Async(env.buf, 10, 4, env.s2))
    ok(cu.cuGraphLaunch(x, env.s2))
    ok(cu.cuGraphLaunch(x, env.s2))
    assert env.d.launch_log == []
    err(cu.cuStreamQuery(env.s2), 600)
    env.d.advance()
    log = env.d.launch_log
    assert [(r.source, r.kind, r.launch) for r in log] == [
        ("stream", "MEMSET", 0), ("graph", "KERNEL", 1), ("graph", "KERNEL", 1), ("graph", "KERNEL", 2),
        ("graph", "KERNEL", 2)]
    assert np.frombuffer(env.read(env.buf), np.int32)[:4].tolist() == [12, 12, 12, 12]
    assert ok(cu.cuStreamQuery(env.s2)) is None


def test_pending_launch_keeps_the_exec_as_enqueued(menv):
    """A per-node exec change after a launch was enqueued affects only later launches (copy on write)."""
    env = menv
    g = env.capture(lambda s: ok(cu.cuMemsetD32Async(env.buf, 1, 4, s)))
    (node,) = env.nodes(g)
    x = ok(cu.cuGraphInstantiate(g, 0))
    ok(cu.cuGraphLaunch(x, env.s2))
    mp = ok(cu.cuGraphMemsetNodeGetParams(node))
    mp.value = 9
    ok(cu.cuGraphExecMemsetNodeSetParams(x, node, mp, env.ctx))
    env.d.advance()
    assert np.frombuffer(env.read(env.buf), np.int32)[:4].tolist() == [1, 1, 1, 1]
    ok(cu.cuGraphLaunch(x, env.s2))
    ok(cu.cuStreamSynchronize(env.s2))
    assert np.frombuffer(env.read(env.buf), np.int32)[:4].tolist() == [9, 9, 9, 9]


def test_unfreed_check_is_made_at_enqueue_time(menv):
    """Manual progression: the unfreed-allocation rule sees the pending first launch (API order, not run order)."""
    env = menv
    g, p = alloc_graph(env)
    x = ok(cu.cuGraphInstantiate(g, 0))
    ok(cu.cuGraphLaunch(x, env.s2))
    err(cu.cuGraphLaunch(x, env.s2), 1)
    ok(cu.cuMemFreeAsync(p, env.s2))
    ok(cu.cuGraphLaunch(x, env.s2))
    env.d.advance()
    assert [r.kind for r in env.d.launch_log] == ["MEM_ALLOC", "KERNEL", "MEM_FREE", "MEM_ALLOC", "KERNEL"]


def test_exec_ids_and_bad_exec_handles(env):
    """cuGraphExecGetId is unique per exec; NULL or destroyed execs are refused."""
    g = env.kernels(1)
    x1, x2 = ok(cu.cuGraphInstantiate(g, 0)), ok(cu.cuGraphInstantiate(g, 0))
    assert ok(cu.cuGraphExecGetId(x1)) != ok(cu.cuGraphExecGetId(x2))
    ok(cu.cuGraphExecDestroy(x1))
    err(cu.cuGraphLaunch(x1, env.s1), 1)  # a destroyed exec is INVALID_VALUE at launch (spec 16)
    err(cu.cuGraphLaunch(cu.CUgraphExec(0), env.s1), 1)
    err(cu.cuGraphExecGetFlags(x1), 400)
