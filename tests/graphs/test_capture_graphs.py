"""Capture into graphs: nesting (spec 4.6), graph launch in capture, graph memory, host functions (3.8-3.10)."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

import simcuda
from simcuda.faces.bindings import driver as cu

from .conftest import NT, OK, err, ok

SET = cu.CUstreamUpdateCaptureDependencies_flags.CU_STREAM_SET_CAPTURE_DEPENDENCIES


def test_nesting_pattern_of_spec_4_6(env):
    """GetCaptureInfo -> cuGraphAddChildGraphNode on the capture graph -> UpdateCaptureDependencies SET nests
    a graph: the next captured node depends on the child node, and the graph runs end to end."""
    child = env.capture(lambda s: ok(env.launch(env.inc, s, env.inc_args(env.buf))))
    ok(cu.cuStreamBeginCapture(env.s1, 0))
    ok(env.launch(env.inc, env.s1, env.inc_args(env.buf)))            # A
    _status, _cid, g, deps, _eds, n = ok(cu.cuStreamGetCaptureInfo(env.s1))
    assert n == 1
    N = ok(cu.cuGraphAddChildGraphNode(g, deps, n, child))          # N (manual node)
    ok(cu.cuStreamUpdateCaptureDependencies(env.s1, [N], None, 1, SET))
    ok(env.launch(env.inc, env.s1, env.inc_args(env.buf)))            # B
    g2 = ok(cu.cuStreamEndCapture(env.s1))
    assert int(g2) == int(g)
    A, N2, B = env.nodes(g2)
    assert int(N2) == int(N)
    assert env.types(g2) == [0, 4, 0]
    frm, to, _eds, _ne = ok(cu.cuGraphGetEdges(g2, 2))
    assert [(int(a), int(b)) for a, b in zip(frm, to)] == [(int(A), int(N)), (int(N), int(B))]
    emb = ok(cu.cuGraphChildGraphNodeGetGraph(N))
    assert env.types(emb) == [0]
    x = ok(cu.cuGraphInstantiate(g2, 0))
    ok(cu.cuGraphLaunch(x, env.s2))
    ok(cu.cuStreamSynchronize(env.s2))
    assert np.frombuffer(env.read(env.buf), np.int32).tolist() == [3, 3, 3, 3]
    kinds = [(r.kind, r.graph_id) for r in env.d.launch_log if r.source == "graph"]
    gid, cid = ok(cu.cuGraphGetId(g2)), ok(cu.cuGraphGetId(emb))
    assert kinds == [("KERNEL", gid), ("GRAPH", gid), ("KERNEL", cid), ("GRAPH", gid), ("KERNEL", gid)]


def test_nesting_pattern_on_a_forked_member_stream(env):
    """The 4.6 pattern works on a member stream that joined by an event, not only on the origin."""
    child = ok(cu.cuGraphCreate(0))
    ok(cu.cuGraphAddEmptyNode(child, None, 0))
    ok(cu.cuStreamBeginCapture(env.s1, 0))
    ok(env.launch(env.k, env.s1))
    ok(cu.cuEventRecord(env.e1, env.s1))
    ok(cu.cuStreamWaitEvent(env.s2, env.e1, 0))
    _st, _id, g, deps, _eds, n = ok(cu.cuStreamGetCaptureInfo(env.s2))
    N = ok(cu.cuGraphAddChildGraphNode(g, deps, n, child))
    ok(cu.cuStreamUpdateCaptureDependencies(env.s2, [N], None, 1, SET))
    ok(cu.cuEventRecord(env.e2, env.s2))
    ok(cu.cuStreamWaitEvent(env.s1, env.e2, 0))
    g = ok(cu.cuStreamEndCapture(env.s1))
    assert env.types(g) == [0, 4]


def test_graph_launch_into_capture_is_rejected_and_invalidates(env):
    """cuGraphLaunch into a capturing stream: 900 and the capture is invalidated (spec 3.8); nothing runs."""
    x = ok(cu.cuGraphInstantiate(env.kernels(1), 0))
    ok(cu.cuStreamBeginCapture(env.s1, 0))
    e = err(cu.cuGraphLaunch(x, env.s1), 900)
    assert "child-graph node" in e.why
    assert ok(cu.cuStreamIsCapturing(env.s1)) == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_INVALIDATED
    err(cu.cuStreamEndCapture(env.s1), 901)
    assert [r for r in env.d.launch_log if r.source == "graph"] == []


def test_graph_launch_in_capture_child_node_option(monkeypatch):
    """Options(graph_launch_in_capture="child-node"): the launch adds a GRAPH node with a copy of the exec."""
    monkeypatch.delenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", raising=False)
    from .conftest import _make_env
    d = simcuda.Driver(options=simcuda.Options(graph_launch_in_capture="child-node"))
    old = simcuda.use(d)
    try:
        env = _make_env(d)
        inner = env.capture(lambda s: [ok(env.launch(env.inc, s, env.inc_args(env.buf))) for _ in range(2)])
        x = ok(cu.cuGraphInstantiate(inner, 0))
        ok(cu.cuGraphDestroy(inner))  # the node holds the exec's graph as instantiated, not the live graph
        g = env.capture(lambda s: (ok(env.launch(env.k, s)), ok(cu.cuGraphLaunch(x, s))))
        assert env.types(g) == [0, 4]
        emb = ok(cu.cuGraphChildGraphNodeGetGraph(env.nodes(g)[1]))
        assert env.types(emb) == [0, 0]
        ok(cu.cuGraphLaunch(ok(cu.cuGraphInstantiate(g, 0)), env.s2))
        assert np.frombuffer(env.read(env.buf), np.int32).tolist() == [2, 2, 2, 2]
    finally:
        simcuda.use(old)


def test_graph_memory_nodes_through_capture(env):
    """C-057: cuMemAllocAsync/cuMemFreeAsync in capture make MEM_ALLOC/MEM_FREE nodes around the kernel;
    the fixed address is mapped by MEM_ALLOC at replay, a kernel writes through it, MEM_FREE unmaps it."""
    seen = []

    def body(s):
        p = ok(cu.cuMemAllocAsync(16, s))
        seen.append(p)
        ok(cu.cuMemsetD32Async(p, 41, 4, s))
        ok(env.launch(env.inc, s, env.inc_args(p)))
        ok(cu.cuMemcpyDtoDAsync(env.buf, p, 16, s))
        ok(cu.cuMemFreeAsync(p, s))
    g = env.capture(body)
    p = seen[0]
    assert env.types(g) == [10, 2, 0, 1, 11]
    frm, to, _e, _n = ok(cu.cuGraphGetEdges(g, 4))
    ids = [(ok(cu.cuGraphNodeGetLocalId(a)), ok(cu.cuGraphNodeGetLocalId(b))) for a, b in zip(frm, to)]
    assert ids == [(0, 1), (1, 2), (2, 3), (3, 4)]
    err(cu.cuMemcpyDtoH(ctypes.create_string_buffer(4), p, 4), 1)  # nothing mapped outside replay (C31)
    err(cu.cuMemFree(p), 1)
    x = ok(cu.cuGraphInstantiate(g, 0))
    for _ in range(2):
        ok(cu.cuGraphLaunch(x, env.s2))  # freed inside the graph: relaunch is fine
    assert np.frombuffer(env.read(env.buf), np.int32).tolist() == [42, 42, 42, 42]
    notes = [r.note for r in env.d.launch_log if r.kind in ("MEM_ALLOC", "MEM_FREE")]
    assert notes[:2] == [f"mapped 0x{int(p):x} (16 bytes)", f"unmapped 0x{int(p):x}"]


def test_forked_allocation_use(env):
    """C-058: the Guide's memory-node example keeps its fork/join edges around the allocation."""
    def body(s1):
        p = ok(cu.cuMemAllocAsync(64, s1))
        ok(env.launch(env.k, s1))                                   # A
        ok(cu.cuEventRecord(env.e1, s1))
        ok(cu.cuStreamWaitEvent(env.s2, env.e1, 0))
        ok(env.launch(env.k, s1))                                   # B
        ok(env.launch(env.k, env.s2))                               # C
        ok(cu.cuEventRecord(env.e2, env.s2))
        ok(cu.cuStreamWaitEvent(s1, env.e2, 0))
        ok(cu.cuMemFreeAsync(p, s1))                                # F
    g = env.capture(body)
    frm, to, _e, _n = ok(cu.cuGraphGetEdges(g, 5))
    ids = sorted((ok(cu.cuGraphNodeGetLocalId(a)), ok(cu.cuGraphNodeGetLocalId(b))) for a, b in zip(frm, to))
    assert ids == [(0, 1), (1, 2), (1, 3), (2, 4), (3, 4)]


def test_free_async_of_a_non_graph_allocation_in_capture(env):
    """C-059: cuMemFreeAsync of ordinary memory during capture is INVALID_VALUE and the capture goes on."""
    ok(cu.cuStreamBeginCapture(env.s1, 0))
    err(cu.cuMemFreeAsync(env.buf, env.s1), 1)
    assert ok(cu.cuStreamIsCapturing(env.s1)) == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    g = ok(cu.cuStreamEndCapture(env.s1))
    assert ok(cu.cuGraphGetNodes(g))[1] == 0


def test_double_free_in_capture_is_refused(env):
    """A graph allocation freed by a MEM_FREE node cannot be freed by a second one (INVALID_VALUE)."""
    ok(cu.cuStreamBeginCapture(env.s1, 0))
    p = ok(cu.cuMemAllocAsync(16, env.s1))
    ok(cu.cuMemFreeAsync(p, env.s1))
    err(cu.cuMemFreeAsync(p, env.s1), 1)
    g = ok(cu.cuStreamEndCapture(env.s1))
    assert env.types(g) == [10, 11]


def test_host_function_runs_on_every_replay(env):
    """C-178: cuLaunchHostFunc with a ctypes address makes a HOST node that runs once per launch."""
    calls = []
    fn = env.host_fn(lambda _u: calls.append(1))
    g = env.capture(lambda s: ok(cu.cuLaunchHostFunc(s, fn, None)))
    assert env.types(g) == [int(NT.CU_GRAPH_NODE_TYPE_HOST)] and calls == []
    x = ok(cu.cuGraphInstantiate(g, 0))
    for _ in range(3):
        ok(cu.cuGraphLaunch(x, env.s2))
    ok(cu.cuStreamSynchronize(env.s2))
    assert len(calls) == 3
    assert [r.note for r in env.d.launch_log if r.kind == "HOST"] == ["called host function"] * 3


def test_captured_host_copy_reads_at_replay(env):
    """C-177 and spec 3.10: the HtoD node reads the pageable buffer when the graph runs, each time."""
    h = ctypes.create_string_buffer(b"\x01\x01\x01\x01", 4)
    g = env.capture(lambda s: ok(cu.cuMemcpyHtoDAsync(env.buf, h, 4, s)))
    assert env.read(env.buf, 4) == b"\x00\x00\x00\x00"
    x = ok(cu.cuGraphInstantiate(g, 0))
    for v in (2, 3):
        ctypes.memmove(h, bytes([v]) * 4, 4)
        ok(cu.cuGraphLaunch(x, env.s2))
        ok(cu.cuStreamSynchronize(env.s2))
        assert env.read(env.buf, 4) == bytes([v]) * 4


def test_captured_device_to_host_copy_writes_at_replay(env):
    """A captured DtoH copy writes the host buffer only when the graph runs."""
    out = np.zeros(4, np.int32)
    ok(cu.cuMemsetD32(env.buf, 7, 4))
    g = env.capture(lambda s: ok(cu.cuMemcpyDtoHAsync(out, env.buf, 16, s)))
    assert out.tolist() == [0, 0, 0, 0]
    ok(cu.cuGraphLaunch(ok(cu.cuGraphInstantiate(g, 0)), env.s2))
    assert out.tolist() == [7, 7, 7, 7]


def test_stream_memory_operations_make_batch_nodes(env):
    """cuStreamWriteValue32 / WaitValue32 / BatchMemOp in capture make BATCH_MEM_OP nodes; replay writes."""
    def body(s):
        ok(cu.cuStreamWriteValue32(s, env.buf, 5, 0))
        ok(cu.cuStreamWaitValue32(s, env.buf, 5, cu.CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_EQ))
        op = cu.CUstreamBatchMemOpParams()
        op.operation = cu.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WRITE_VALUE_64
        op.writeValue.address = int(env.buf) + 8
        op.writeValue.value64 = 2 ** 40
        ok(cu.cuStreamBatchMemOp(s, 1, [op], 0))
    g = env.capture(body)
    assert env.types(g) == [12, 12, 12]
    assert env.read(env.buf, 16) == bytes(16)
    ok(cu.cuGraphLaunch(ok(cu.cuGraphInstantiate(g, 0)), env.s2))
    raw = env.read(env.buf, 16)
    assert int.from_bytes(raw[:4], "little") == 5 and int.from_bytes(raw[8:], "little") == 2 ** 40
    notes = [r.note for r in env.d.launch_log if r.kind == "BATCH_MEM_OP"]
    assert "condition holds" in notes[1]
    with pytest.raises(RuntimeError, match="List is too small"):
        cu.cuStreamBatchMemOp(env.s1, 2, [cu.CUstreamBatchMemOpParams()], 0)
    err(cu.cuStreamWriteValue32(env.s1, int(env.buf) + 1, 5, 0), 1)  # misaligned


def test_external_semaphores_are_recorded_and_replayed_as_no_ops(env):
    """cuSignal/WaitExternalSemaphoresAsync in capture make nodes 8/9 with their parameters; replay notes a no-op."""
    sp = cu.CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS()
    sp.params.fence.value = 11
    wp = cu.CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS()
    wp.params.fence.value = 12

    def body(s):
        ok(cu.cuSignalExternalSemaphoresAsync([cu.CUexternalSemaphore(0x40)], [sp], 1, s))
        ok(cu.cuWaitExternalSemaphoresAsync([cu.CUexternalSemaphore(0x41)], [wp], 1, s))
    g = env.capture(body)
    assert env.types(g) == [8, 9]
    a, b = env.nodes(g)
    assert ok(cu.cuGraphExternalSemaphoresSignalNodeGetParams(a)).paramsArray[0].params.fence.value == 11
    assert int(ok(cu.cuGraphExternalSemaphoresWaitNodeGetParams(b)).extSemArray[0]) == 0x41
    ok(cu.cuGraphLaunch(ok(cu.cuGraphInstantiate(g, 0)), env.s2))
    notes = [r.note for r in env.d.launch_log if r.kind.startswith("EXT_SEMAS")]
    assert len(notes) == 2 and all("not simulated" in n for n in notes)
    assert cu.cuSignalExternalSemaphoresAsync([cu.CUexternalSemaphore(0x40)], [sp], 1, env.s1) == OK
