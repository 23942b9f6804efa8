"""Conditional nodes through the ``cuda.bindings.driver`` and ``cuda.bindings.runtime`` faces (P-20..P-31): codes and
the state afterwards, bodies filled by capture (cuStreamBeginCaptureToGraph), replays driven by a Python kernel
that sets the condition, cuGraphNodeGetParams, DOT."""
from __future__ import annotations

import ctypes
from typing import Any

from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings import runtime as rt

from .conftest import NT, R, err, ok

COND_SRC = b"""
extern "C" __global__ void count(unsigned long long h, int* p, int i, int n) {}
extern "C" __global__ void setc(unsigned long long h, unsigned v) {}
"""
CT = cu.CUgraphConditionalNodeType
KP = (ctypes.c_ulonglong, None, ctypes.c_int, ctypes.c_int)  # count's kernelParams types


def kernels(env: Any) -> tuple[Any, Any]:
    """``(count, setc)``: ``count`` bumps ``p[i]`` and sets the condition to ``p[i] < n``; ``setc`` sets it to
    ``v``."""
    mod = ok(cu.cuModuleLoadData(COND_SRC))

    def count(launch: Any) -> None:
        h, p, i, n = launch.args
        a = launch.array(p, "int32", i + 1)
        a[i] += 1
        launch.set_conditional(h, 1 if a[i] < n else 0)

    def setc(launch: Any) -> None:
        h, v = launch.args
        launch.set_conditional(h, v)

    env.d.kernels.update(count=count, setc=setc)
    return ok(cu.cuModuleGetFunction(mod, b"count")), ok(cu.cuModuleGetFunction(mod, b"setc"))


def conditional(g: Any, deps: list[Any], handle: Any, ctype: Any, size: int, ctx: Any) -> tuple[Any, list[Any]]:
    """cuGraphAddNode of a CONDITIONAL node: ``(node, phGraph_out)``."""
    p = cu.CUgraphNodeParams()
    p.type = NT.CU_GRAPH_NODE_TYPE_CONDITIONAL
    p.conditional.handle, p.conditional.type, p.conditional.size, p.conditional.ctx = handle, ctype, size, ctx
    n = ok(cu.cuGraphAddNode(g, deps, None, len(deps), p))
    return n, list(p.conditional.phGraph_out)


def test_if_and_while_by_capture_into_bodies_run_as_a_python_kernel_sets_the_condition(env):
    """An IF and a WHILE graph, each body filled by cuStreamBeginCaptureToGraph: a kernel before the IF node sets
    its condition, the kernel in the WHILE body clears its own after 3 passes; per launch the IF body runs once
    and the WHILE body 3 times (the counters and the launch log agree)."""
    count, setc = kernels(env)
    s = env.s1
    results = {}
    for name, ctype, default in (("if", CT.CU_GRAPH_COND_TYPE_IF, 0), ("while", CT.CU_GRAPH_COND_TYPE_WHILE, 1)):
        g = ok(cu.cuGraphCreate(0))
        h = ok(cu.cuGraphConditionalHandleCreate(g, env.ctx, default, cu.CU_GRAPH_COND_ASSIGN_DEFAULT))
        deps = []
        if name == "if":  # a kernel sets the IF condition to 1 before the node runs
            deps = [ok(cu.cuGraphAddKernelNode(g, None, 0, _kparams(setc, ((int(h), 1), (ctypes.c_ulonglong,
                                                                                     ctypes.c_uint)))))]
        node, (body,) = conditional(g, deps, h, ctype, 1, env.ctx)
        ok(cu.cuStreamBeginCaptureToGraph(s, body, None, None, 0,
                                          cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
        info = ok(cu.cuStreamGetCaptureInfo(s))
        assert info[0] == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE and int(info[2]) == int(body)
        slot = 0 if name == "if" else 1
        ok(cu.cuLaunchKernel(count, 1, 1, 1, 1, 1, 1, 0, s, ((int(h), env.buf, slot, 3), KP), 0))
        assert int(ok(cu.cuStreamEndCapture(s))) == int(body)
        assert ok(cu.cuGraphGetNodes(body))[1] == 1 and ok(cu.cuGraphGetNodes(g))[1] == len(deps) + 1
        x = ok(cu.cuGraphInstantiate(g, 0))
        env.d.launch_log.clear()
        ok(cu.cuGraphLaunch(x, s))
        ok(cu.cuStreamSynchronize(s))
        body_gid = int(ok(cu.cuGraphGetId(body)))
        results[name] = sum(1 for r in env.d.launch_log if r.graph_id == body_gid and r.kind == "KERNEL")
        assert int(ok(cu.cuGraphNodeGetType(node))) == NT.CU_GRAPH_NODE_TYPE_CONDITIONAL
    assert results == {"if": 1, "while": 3}
    counts = [int.from_bytes(env.read(env.buf, 8)[i * 4:i * 4 + 4], "little") for i in range(2)]
    assert counts == [1, 3]  # the IF body's kernel ran once, the WHILE body's three times


def _kparams(f: Any, args: Any) -> Any:
    p = cu.CUDA_KERNEL_NODE_PARAMS()
    p.func = f
    p.gridDimX = p.gridDimY = p.gridDimZ = p.blockDimX = p.blockDimY = p.blockDimZ = 1
    p.kernelParams = args
    return p


def test_handle_create_codes(env):
    """cuGraphConditionalHandleCreate: 1 for a destroyed graph and for flags 2, 201 for a NULL context with none
    current; the graph keeps no handle from a refused call."""
    g = ok(cu.cuGraphCreate(0))
    dead = ok(cu.cuGraphCreate(0))
    ok(cu.cuGraphDestroy(dead))
    err(cu.cuGraphConditionalHandleCreate(dead, env.ctx, 0, 0), R.CUDA_ERROR_INVALID_VALUE)
    err(cu.cuGraphConditionalHandleCreate(g, env.ctx, 0, 2), R.CUDA_ERROR_INVALID_VALUE)
    ok(cu.cuCtxSetCurrent(cu.CUcontext(0)))
    err(cu.cuGraphConditionalHandleCreate(g, None, 0, 0), R.CUDA_ERROR_INVALID_CONTEXT)
    assert env.d.handles.graph(int(g)).cond_handles is None
    h = ok(cu.cuGraphConditionalHandleCreate(g, env.ctx, 5, 1))
    assert type(h).__name__ == "CUgraphConditionalHandle" and env.d.handles.table[int(h)].default == 5


def test_add_node_codes_and_what_get_params_reports(env):
    """A size WHILE does not allow, an unknown conditional type or another context: 1, nothing added; a good add
    writes phGraph_out, and cuGraphNodeGetParams returns handle, type, size, bodies and context; the bodies cannot
    be destroyed and the graph cannot be cloned."""
    g = ok(cu.cuGraphCreate(0))
    h = ok(cu.cuGraphConditionalHandleCreate(g, env.ctx, 0, 0))
    other = ok(cu.cuCtxCreate(None, 0, cu.CUdevice(0)))
    for ctype, size, ctx in ((CT.CU_GRAPH_COND_TYPE_WHILE, 2, env.ctx), (5, 1, env.ctx),
                             (CT.CU_GRAPH_COND_TYPE_IF, 1, other)):
        p = cu.CUgraphNodeParams()
        p.type = NT.CU_GRAPH_NODE_TYPE_CONDITIONAL
        p.conditional.handle, p.conditional.type, p.conditional.size, p.conditional.ctx = h, ctype, size, ctx
        err(cu.cuGraphAddNode(g, None, None, 0, p), R.CUDA_ERROR_INVALID_VALUE)
        assert p.conditional.phGraph_out == []
    assert ok(cu.cuGraphGetNodes(g))[1] == 0
    node, bodies = conditional(g, [], h, CT.CU_GRAPH_COND_TYPE_SWITCH, 3, env.ctx)
    got = ok(cu.cuGraphNodeGetParams(node))
    assert got.type == NT.CU_GRAPH_NODE_TYPE_CONDITIONAL
    c = got.conditional
    assert (int(c.handle), c.type, c.size, [int(b) for b in c.phGraph_out], int(c.ctx)) == (
        int(h), CT.CU_GRAPH_COND_TYPE_SWITCH, 3, [int(b) for b in bodies], int(env.ctx))
    err(cu.cuGraphDestroy(bodies[0]), R.CUDA_ERROR_INVALID_VALUE)
    err(cu.cuGraphClone(g), R.CUDA_ERROR_INVALID_VALUE)
    assert ok(cu.cuGraphGetNodes(bodies[0]))[1] == 0  # still alive, still empty


def test_an_event_wait_captured_into_a_body_fails_instantiation(env):
    """C-29 through the face: an external event wait captured into a body ends fine; cuGraphInstantiate is 1."""
    g = ok(cu.cuGraphCreate(0))
    h = ok(cu.cuGraphConditionalHandleCreate(g, env.ctx, 1, 1))
    _node, (body,) = conditional(g, [], h, CT.CU_GRAPH_COND_TYPE_IF, 1, env.ctx)
    ok(cu.cuEventRecord(env.e1, env.s2))
    ok(cu.cuStreamBeginCaptureToGraph(env.s1, body, None, None, 0,
                                      cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    ok(cu.cuStreamWaitEvent(env.s1, env.e1, cu.CUevent_wait_flags.CU_EVENT_WAIT_EXTERNAL))
    ok(env.launch(env.k, env.s1))
    ok(cu.cuStreamEndCapture(env.s1))
    err(cu.cuGraphInstantiate(g, 0), R.CUDA_ERROR_INVALID_VALUE)
    assert "WAIT_EVENT" in env.d.error_log[-1].why


def test_exec_update_takes_the_new_default(env):
    """cuGraphExecUpdate from a re-built graph whose handle has another default: success, and the next launch runs
    the body the new default selects (P-29)."""
    count, _setc = kernels(env)

    def build(default: int) -> Any:
        g = ok(cu.cuGraphCreate(0))
        h = ok(cu.cuGraphConditionalHandleCreate(g, env.ctx, default, 1))
        _n, bodies = conditional(g, [], h, CT.CU_GRAPH_COND_TYPE_SWITCH, 2, env.ctx)
        for i, b in enumerate(bodies):
            ok(cu.cuGraphAddKernelNode(b, None, 0, _kparams(count, ((int(h), env.buf, 2 + i, 0), KP))))
        return g
    x = ok(cu.cuGraphInstantiate(build(0), 0))
    ok(cu.cuGraphLaunch(x, env.s1))
    info = ok(cu.cuGraphExecUpdate(x, build(1)))
    assert info.result == cu.CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_SUCCESS
    ok(cu.cuGraphLaunch(x, env.s1))
    ok(cu.cuStreamSynchronize(env.s1))
    raw = env.read(env.buf, 16)
    assert [int.from_bytes(raw[i * 4:i * 4 + 4], "little") for i in (2, 3)] == [1, 1]


def test_runtime_twins(env):
    """cudaGraphConditionalHandleCreate(_v2) and cudaGraphAddNode with a cudaGraphNodeParams conditional member:
    the body graphs come back in phGraph_out, the codes are the driver's translated, a kernel node type is 801
    in this face."""
    count, _setc = kernels(env)
    g = ok(rt.cudaGraphCreate(0))
    h = ok(rt.cudaGraphConditionalHandleCreate(g, 1, rt.cudaGraphConditionalHandleFlags.cudaGraphCondAssignDefault))
    assert rt.cudaGraphConditionalHandleCreate(g, 1, 4)[0] == rt.cudaError_t.cudaErrorInvalidValue
    h2 = ok(rt.cudaGraphConditionalHandleCreate_v2(g, None, 0, 0))
    p = rt.cudaGraphNodeParams()
    p.type = rt.cudaGraphNodeType.cudaGraphNodeTypeConditional
    p.conditional.handle = h
    p.conditional.type = rt.cudaGraphConditionalNodeType.cudaGraphCondTypeWhile
    p.conditional.size = 1
    node = ok(rt.cudaGraphAddNode(g, None, None, 0, p))
    (body,) = p.conditional.phGraph_out
    assert rt.cudaGraphAddNode(g, None, None, 0, p)[0] == rt.cudaError_t.cudaErrorInvalidValue  # handle in use
    p.conditional.handle, p.conditional.size = h2, 2
    assert rt.cudaGraphAddNode(g, None, None, 0, p)[0] == rt.cudaError_t.cudaErrorInvalidValue  # WHILE size 2
    p.conditional.type = rt.cudaGraphConditionalNodeType.cudaGraphCondTypeIf
    ok(rt.cudaGraphAddNode(g, [node], None, 1, p))
    p.type = rt.cudaGraphNodeType.cudaGraphNodeTypeKernel
    assert rt.cudaGraphAddNode(g, None, None, 0, p)[0] == rt.cudaError_t.cudaErrorNotSupported
    ok(cu.cuGraphAddKernelNode(body, None, 0, _kparams(count, ((int(h), env.buf, 4, 2), KP))))
    x = ok(rt.cudaGraphInstantiate(g, 0))
    ok(rt.cudaGraphLaunch(x, env.s1))
    ok(rt.cudaStreamSynchronize(env.s1))
    assert int.from_bytes(env.read(env.buf, 20)[16:20], "little") == 2  # WHILE body twice: counts to 2


def test_a_while_node_added_to_a_live_capture_as_nvidias_sample_does(env):
    """NVIDIA's graphConditionalNodes sample (capturedWhileGraph): during a capture, a handle made for the capture
    graph (cuStreamGetCaptureInfo), a kernel A, a WHILE node added to the capture graph after A and made the
    stream's dependency (SET), a kernel D; after the capture, the body is captured on another stream. The body
    runs while the counter A and C decrement is non-zero: 0 passes from 1 (A takes it to 0), 3 from 4."""
    mod = ok(cu.cuModuleLoadData(b'extern "C" __global__ void dec(unsigned long long h, int* p) {}'))
    dec = ok(cu.cuModuleGetFunction(mod, b"dec"))
    runs = []

    def dec_py(launch: Any) -> None:
        h, p = launch.args
        a = launch.array(p, "int32", 1)
        if a[0]:
            a[0] -= 1
        runs.append(int(a[0]))
        launch.set_conditional(h, int(a[0]))
    env.d.kernels["dec"] = dec_py
    s, body_stream = env.s1, env.s2
    ok(cu.cuStreamBeginCapture(s, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    g = ok(cu.cuStreamGetCaptureInfo(s))[2]
    h = ok(cu.cuGraphConditionalHandleCreate(g, env.ctx, 0, 0))
    args = ((int(h), env.buf), (ctypes.c_ulonglong, None))
    ok(cu.cuLaunchKernel(dec, 1, 1, 1, 1, 1, 1, 0, s, args, 0))                  # A
    deps = ok(cu.cuStreamGetCaptureInfo(s))[3]
    node, (body,) = conditional(g, list(deps), h, CT.CU_GRAPH_COND_TYPE_WHILE, 1, env.ctx)  # B
    ok(cu.cuStreamUpdateCaptureDependencies(s, [node], None, 1,
                                            cu.CUstreamUpdateCaptureDependencies_flags.CU_STREAM_SET_CAPTURE_DEPENDENCIES))
    ok(env.launch(env.k, s))                                                    # D
    graph = ok(cu.cuStreamEndCapture(s))
    assert int(graph) == int(g) and env.types(g) == [0, 13, 0]
    ok(cu.cuStreamBeginCaptureToGraph(body_stream, body, None, None, 0,
                                      cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    ok(cu.cuLaunchKernel(dec, 1, 1, 1, 1, 1, 1, 0, body_stream, args, 0))        # C
    ok(cu.cuStreamEndCapture(body_stream))
    x = ok(cu.cuGraphInstantiate(g, 0))
    for start, passes in ((1, 0), (4, 3)):
        ok(cu.cuMemsetD32(env.buf, start, 1))
        runs.clear()
        ok(cu.cuGraphLaunch(x, s))
        ok(cu.cuStreamSynchronize(s))
        assert len(runs) == 1 + passes and runs[-1] == 0, (start, runs)
