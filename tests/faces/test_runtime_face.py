"""The ``cuda.bindings.runtime``-style face: shapes, handle types, implicit primary context, codes.

Comparisons with the real binding use the installed cuda-bindings 13.5 wheel (it imports without a
GPU) and skip when it is not installed.
"""
from __future__ import annotations

import ctypes
import re
import threading

import pytest

import simcuda
from simcuda._generated.driver_enums import CUresult
from simcuda._generated.runtime_outputs import OUTPUTS
from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings import runtime as rt

E = rt.cudaError_t
OK = (E.cudaSuccess,)
SRC = b"""
extern "C" __global__ void k(float* a, int n) {}
extern "C" __global__ void fill(float* a, int n, float v) {}
"""


def ok(res):
    """Assert success and unpack the outputs."""
    assert res[0] == E.cudaSuccess, res
    return None if len(res) == 1 else res[1] if len(res) == 2 else res[1:]


def real_runtime():
    """The real ``cuda.bindings.runtime`` 13.5, or skip."""
    real = pytest.importorskip("cuda.bindings.runtime")
    import cuda.bindings
    if not cuda.bindings.__version__.startswith("13.5"):
        pytest.skip("needs cuda-bindings 13.5.x")
    return real


def kernel(name=b"fill"):
    """A ``CUfunction`` from ``SRC`` loaded through the driver face (the runtime made a context current)."""
    ok(rt.cudaFree(0))
    mod = cu.cuModuleLoadData(SRC)[1]
    return cu.cuModuleGetFunction(mod, name)[1]


# ------------------------------------------------------------------------------------- module shape
def test_every_real_function_exists(drv):
    """Every ``cuda*``/``make_cuda*`` function of the real 13.5 runtime module exists in the face."""
    real = real_runtime()
    names = {n for n in dir(real) if (n.startswith("cuda") or n.startswith("make_cuda"))
             and callable(getattr(real, n)) and not isinstance(getattr(real, n), type)}
    assert names and names <= set(dir(rt))
    assert set(OUTPUTS) == names


def test_every_real_enum_and_class_exists():
    """Every class and enum of the real module (cudaError_t, dim3, cudaDeviceProp...) has its twin."""
    real = real_runtime()
    missing = [n for n in dir(real) if isinstance(getattr(real, n), type) and not n.startswith("_")
               and not hasattr(rt, n)]
    assert missing == []


def test_cuda_launch_kernel_is_absent_like_the_real_module():
    """The real 13.x runtime has no cudaLaunchKernel, so the face has none either."""
    assert not hasattr(rt, "cudaLaunchKernel")


def test_handle_types_derive_from_driver_types():
    """cudaStream_t & co. subclass the driver face's CUstream & co. and print the driver name."""
    pairs = [(rt.cudaStream_t, cu.CUstream), (rt.cudaEvent_t, cu.CUevent), (rt.cudaGraph_t, cu.CUgraph),
             (rt.cudaGraphNode_t, cu.CUgraphNode), (rt.cudaGraphExec_t, cu.CUgraphExec),
             (rt.cudaFunction_t, cu.CUfunction)]
    for rcls, dcls in pairs:
        assert issubclass(rcls, dcls)
        assert repr(rcls(0x40)) == f"<{dcls.__name__} 0x40>"
        assert rcls(7) == dcls(7) and dcls(7) == rcls(7)
    assert repr(rt.cudaArray_t()) == "<cudaArray_t 0x0>"
    assert repr(rt.cudaHostFn_t(5)) == "<cudaHostFn_t 0x5>"


def test_reprs_match_the_real_module():
    """Default structs and handles print exactly as the real binding prints them."""
    real = real_runtime()
    for name in ["cudaMemcpy3DParms", "cudaMemsetParams", "cudaKernelNodeParams", "cudaHostNodeParams", "dim3",
                 "cudaPos", "cudaExtent", "cudaPitchedPtr", "cudaGraphEdgeData", "cudaGraphExecUpdateResultInfo",
                 "cudaGraphInstantiateParams", "cudaPointerAttributes", "cudaUUID_t"]:
        assert repr(getattr(rt, name)()) == repr(getattr(real, name)()), name
    for name in ["cudaStream_t", "cudaEvent_t", "cudaGraph_t", "cudaGraphNode_t", "cudaGraphExec_t", "cudaArray_t"]:
        assert repr(getattr(rt, name)(0x1230)) == repr(getattr(real, name)(0x1230)), name
    assert repr(rt.make_cudaPitchedPtr(5, 16, 4, 1)) == repr(real.make_cudaPitchedPtr(5, 16, 4, 1))
    assert repr(rt.make_cudaPos(1, 2, 3)) == repr(real.make_cudaPos(1, 2, 3))
    assert repr(rt.make_cudaExtent(4, 5, 6)) == repr(real.make_cudaExtent(4, 5, 6))


def test_device_prop_fields_match_the_real_struct(drv):
    """cudaDeviceProp has the real fields in the real order."""
    real = real_runtime()
    mine = [ln.split(" :")[0] for ln in repr(rt.cudaDeviceProp()).splitlines() if not ln.startswith(" ")]
    theirs = [ln.split(" :")[0] for ln in repr(real.cudaDeviceProp()).splitlines() if not ln.startswith(" ")]
    assert mine == theirs


def test_structs_refuse_keywords_and_wrong_field_types():
    """Struct constructors take no keywords; nested struct fields need the right type, as in the real module."""
    with pytest.raises(TypeError, match="unexpected keyword"):
        rt.cudaMemsetParams(dst=1)
    p = rt.cudaMemcpy3DParms()
    with pytest.raises(TypeError, match=re.escape("expected cuda.bindings.runtime.cudaPos")):
        p.srcPos = (0, 0, 0)
    k = rt.cudaKernelNodeParams()
    with pytest.raises(TypeError, match=re.escape("expected cuda.bindings.runtime.dim3")):
        k.gridDim = (1, 2, 3)
    with pytest.raises(TypeError):
        rt.make_cudaPitchedPtr("x", 1, 1, 1)
    h = rt.cudaHostNodeParams()
    with pytest.raises(TypeError, match="an integer is required"):
        h.fn = lambda x: None


def test_pitched_ptr_of_a_ctypes_object_reads_back_its_address():
    """make_cudaPitchedPtr(ctypes object) keeps the object and reads back its address (real behaviour)."""
    v = ctypes.c_double(0.0)
    pp = rt.make_cudaPitchedPtr(v, 8, 1, 1)
    assert pp.ptr == ctypes.addressof(v)


# ------------------------------------------------------------------------------------- error codes
def test_curesult_maps_to_the_cuda_error_of_the_same_value():
    """Every CUresult maps to the cudaError_t with its value, except the documented three."""
    for c in CUresult:
        err = rt.CURESULT_TO_CUDA_ERROR[int(c)]
        if int(c) in rt.CURESULT_EXCEPTIONS:
            assert err == E.cudaErrorUnknown
        else:
            assert int(err) == int(c)
    assert rt.cuda_error(201) == E.cudaErrorDeviceUninitialized
    assert rt.cuda_error(400) == E.cudaErrorInvalidResourceHandle
    assert rt.cuda_error(900) == E.cudaErrorStreamCaptureUnsupported


def test_error_name_and_string():
    """cudaGetErrorName/String return bytes; the strings are the real runtime's."""
    assert rt.cudaGetErrorName(E.cudaErrorInvalidValue) == (E.cudaSuccess, b"cudaErrorInvalidValue")
    assert rt.cudaGetErrorString(E.cudaErrorInvalidValue) == (E.cudaSuccess, b"invalid argument")
    real = real_runtime()
    for e in list(E)[:40]:
        assert rt.cudaGetErrorString(e)[1] == real.cudaGetErrorString(real.cudaError_t(int(e)))[1]


def test_last_error_is_per_thread_and_reset_by_get(drv):
    """cudaGetLastError returns and clears the thread's last failure; cudaPeekAtLastError only reads it."""
    assert rt.cudaSetDevice(5) == (E.cudaErrorInvalidDevice,)
    assert rt.cudaPeekAtLastError() == (E.cudaErrorInvalidDevice,)
    seen = []
    t = threading.Thread(target=lambda: seen.append(rt.cudaGetLastError()))
    t.start()
    t.join()
    assert seen == [OK]
    assert rt.cudaGetLastError() == (E.cudaErrorInvalidDevice,)
    assert rt.cudaGetLastError() == OK
    assert "device 5 does not exist" in simcuda.last_error().why


def test_not_simulated_calls_answer_not_supported_with_a_why(drv):
    """A function the face does not simulate returns cudaErrorNotSupported and the real number of slots."""
    assert "cudaMallocArray" in rt._NOT_SIMULATED
    res = rt.cudaMallocArray(None, 1, 1, 0)
    assert res == (E.cudaErrorNotSupported, None)
    assert "not simulated" in simcuda.last_error().why
    assert rt.cudaGetLastError() == (E.cudaErrorNotSupported,)


# ------------------------------------------------------------------------------------- devices, context
def test_first_call_makes_the_primary_context_current(drv):
    """cudaFree(0) initialises the driver and makes device 0's primary context current for driver calls."""
    assert cu.cuCtxGetCurrent()[0] == CUresult.CUDA_ERROR_NOT_INITIALIZED
    assert rt.cudaFree(0) == OK
    ctx = cu.cuCtxGetCurrent()[1]
    assert int(ctx) != 0
    assert int(cu.cuDevicePrimaryCtxRetain(cu.CUdevice(0))[1]) == int(ctx)
    assert rt.cudaGetDevice() == (E.cudaSuccess, 0)


def test_each_thread_gets_the_primary_context(drv):
    """A new thread's first runtime call makes the same primary context current on that thread."""
    ok(rt.cudaFree(0))
    main_ctx = int(cu.cuCtxGetCurrent()[1])
    got = []

    def worker():
        got.append(rt.cudaStreamCreate()[0])
        got.append(int(cu.cuCtxGetCurrent()[1]))
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert got == [E.cudaSuccess, main_ctx]


def test_set_device_selects_a_device(monkeypatch):
    """cudaSetDevice(1) on a two-device driver makes device 1's primary context current."""
    d = simcuda.Driver(devices=[simcuda.DeviceSpec(), simcuda.DeviceSpec(name="Second")])
    old = simcuda.use(d)
    try:
        assert rt.cudaGetDeviceCount() == (E.cudaSuccess, 2)
        assert rt.cudaSetDevice(1) == OK
        assert rt.cudaGetDevice() == (E.cudaSuccess, 1)
        assert rt.cudaGetDeviceProperties(1)[1].name == b"Second"  # up to the first NUL, as the real getter
        assert rt.cudaSetDevice(2) == (E.cudaErrorInvalidDevice,)
        assert rt.cudaGetDevice() == (E.cudaSuccess, 1)
    finally:
        simcuda.use(old)


def test_device_properties_and_attributes(drv):
    """cudaGetDeviceProperties reflects the DeviceSpec and agrees with cudaDeviceGetAttribute."""
    p = ok(rt.cudaGetDeviceProperties(0))
    spec = simcuda.DeviceSpec()
    assert p.name.rstrip(b"\0") == spec.name.encode()
    assert (p.major, p.minor) == spec.compute_capability
    assert p.totalGlobalMem == spec.total_mem
    assert p.multiProcessorCount == spec.multiprocessors
    assert p.maxThreadsDim == [1024, 1024, 64]
    assert p.warpSize == 32
    attr = rt.cudaDeviceAttr.cudaDevAttrComputeCapabilityMajor
    assert rt.cudaDeviceGetAttribute(attr, 0) == (E.cudaSuccess, spec.compute_capability[0])
    assert rt.cudaDeviceGetAttribute(attr, 3) == (E.cudaErrorInvalidDevice, None)
    assert rt.cudaGetDeviceProperties(9) == (E.cudaErrorInvalidDevice, None)


def test_versions(drv):
    """Driver and runtime versions are 13050; a machine without a driver reports driver version 0."""
    assert rt.cudaDriverGetVersion() == (E.cudaSuccess, 13050)
    assert rt.cudaRuntimeGetVersion() == (E.cudaSuccess, 13050)
    d = simcuda.Driver(available=False)
    old = simcuda.use(d)
    try:
        assert rt.cudaDriverGetVersion() == (E.cudaSuccess, 0)
        assert rt.cudaGetDeviceCount() == (E.cudaErrorNoDevice, None)
        assert rt.cudaMalloc(16) == (E.cudaErrorNoDevice, None)
    finally:
        simcuda.use(old)


def test_type_errors_like_the_real_wrapper(drv):
    """A str handle, ints inside a dependency list and a too-long count raise before the library."""
    with pytest.raises(TypeError, match="an integer is required"):
        rt.cudaStreamSynchronize("x")
    g = ok(rt.cudaGraphCreate(0))
    with pytest.raises(TypeError, match=re.escape("cyruntime.cudaGraphNode_t,driver.CUgraphNode")):
        rt.cudaGraphAddEmptyNode(g, [1], 1)
    with pytest.raises(RuntimeError, match="List is too small: 0 < 1"):
        rt.cudaGraphAddEmptyNode(g, [], 1)
    with pytest.raises(OverflowError):
        rt.cudaMalloc(-1)


# ------------------------------------------------------------------------------------- memory
def test_malloc_memcpy_memset_round_trip(drv):
    """Host bytes go to the device and back; cudaMemset sets bytes; cudaMemcpyDefault infers directions."""
    n = 64
    dptr = ok(rt.cudaMalloc(n))
    src = bytes(range(n))
    assert rt.cudaMemcpy(dptr, src, n, rt.cudaMemcpyKind.cudaMemcpyHostToDevice) == OK
    back = bytearray(n)
    assert rt.cudaMemcpy(back, dptr, n, rt.cudaMemcpyKind.cudaMemcpyDefault) == OK
    assert bytes(back) == src
    assert rt.cudaMemset(dptr, 0x1AB, 16) == OK  # the value is converted to unsigned char
    assert rt.cudaMemcpy(back, dptr, n, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost) == OK
    assert bytes(back[:16]) == b"\xab" * 16 and bytes(back[16:]) == src[16:]
    assert rt.cudaMalloc(0) == (E.cudaSuccess, 0)
    assert rt.cudaFree(dptr) == OK
    assert rt.cudaFree(dptr) == (E.cudaErrorInvalidValue,)


def test_pinned_host_memory_is_real(drv):
    """cudaMallocHost returns a real address usable with ctypes and as a copy source."""
    h = ok(rt.cudaMallocHost(16))
    ctypes.memmove(h, b"0123456789abcdef", 16)
    d = ok(rt.cudaMalloc(16))
    assert rt.cudaMemcpy(d, h, 16, rt.cudaMemcpyKind.cudaMemcpyDefault) == OK
    out = ctypes.create_string_buffer(16)
    assert rt.cudaMemcpy(out, d, 16, rt.cudaMemcpyKind.cudaMemcpyDefault) == OK
    assert out.raw == b"0123456789abcdef"
    assert rt.cudaFreeHost(h) == OK
    assert rt.cudaFreeHost(h) == (E.cudaErrorInvalidValue,)
    h2 = ok(rt.cudaHostAlloc(8, rt.cudaHostAllocMapped))
    attrs = ok(rt.cudaPointerGetAttributes(h2))
    assert attrs.type == rt.cudaMemoryType.cudaMemoryTypeHost
    assert ok(rt.cudaPointerGetAttributes(d)).type == rt.cudaMemoryType.cudaMemoryTypeDevice


def test_copy_direction_and_pitch_errors(drv):
    """A kind outside 0-4 is cudaErrorInvalidMemcpyDirection; a width over a pitch cudaErrorInvalidPitchValue."""
    d = ok(rt.cudaMalloc(64))
    assert rt.cudaMemcpy(d, b"x" * 8, 8, 7) == (E.cudaErrorInvalidMemcpyDirection,)
    assert rt.cudaMemcpy2D(d, 4, b"x" * 64, 8, 8, 2, rt.cudaMemcpyKind.cudaMemcpyHostToDevice) == \
        (E.cudaErrorInvalidPitchValue,)
    assert rt.cudaMemcpy(d, b"x" * 128, 128, rt.cudaMemcpyKind.cudaMemcpyHostToDevice) == (E.cudaErrorInvalidValue,)
    assert any(r.call == "cudaMemcpy2D" and r.code == 12 for r in drv.error_log)


def test_memcpy_2d_and_3d(drv):
    """cudaMemcpy2D and cudaMemcpy3D move pitched rows."""
    d = ok(rt.cudaMalloc(64))
    src = bytes(range(32))
    assert rt.cudaMemcpy2D(d, 16, src, 8, 8, 4, rt.cudaMemcpyKind.cudaMemcpyHostToDevice) == OK
    p = rt.cudaMemcpy3DParms()
    out = bytearray(32)
    p.srcPtr = rt.make_cudaPitchedPtr(d, 16, 8, 4)
    p.dstPtr = rt.make_cudaPitchedPtr(out, 8, 8, 4)
    p.extent = rt.make_cudaExtent(8, 4, 1)
    p.kind = rt.cudaMemcpyKind.cudaMemcpyDeviceToHost
    assert rt.cudaMemcpy3D(p) == OK
    assert bytes(out) == src
    p.srcArray = rt.cudaArray_t(5)
    assert rt.cudaMemcpy3D(p) == (E.cudaErrorNotSupported,)


# ------------------------------------------------------------------------------------- streams, events
def test_streams_and_events(drv):
    """Stream and event calls succeed and elapsed time is a non-negative float."""
    s = ok(rt.cudaStreamCreateWithFlags(rt.cudaStreamNonBlocking))
    assert isinstance(s, rt.cudaStream_t)
    assert rt.cudaStreamGetFlags(s) == (E.cudaSuccess, 1)
    e0, e1 = ok(rt.cudaEventCreate()), ok(rt.cudaEventCreateWithFlags(rt.cudaEventDefault))
    assert rt.cudaEventRecord(e0, s) == OK
    d = ok(rt.cudaMalloc(8))
    assert rt.cudaMemsetAsync(d, 0, 8, s) == OK
    assert rt.cudaEventRecord(e1, s) == OK
    assert rt.cudaEventSynchronize(e1) == OK
    assert rt.cudaEventQuery(e1) == OK
    err, ms = rt.cudaEventElapsedTime(e0, e1)
    assert err == E.cudaSuccess and isinstance(ms, float) and ms >= 0
    assert rt.cudaStreamQuery(s) == OK
    assert rt.cudaStreamSynchronize(s) == OK
    assert rt.cudaStreamGetDevice(s) == (E.cudaSuccess, 0)
    assert rt.cudaDeviceSynchronize() == OK
    assert rt.cudaEventDestroy(e0) == OK
    assert rt.cudaEventDestroy(e0) == (E.cudaErrorInvalidResourceHandle,)
    assert rt.cudaStreamDestroy(s) == OK
    assert rt.cudaStreamDestroy(s) == (E.cudaErrorContextIsDestroyed,)


def test_not_ready_is_not_a_last_error():
    """With manual progression cudaStreamQuery answers cudaErrorNotReady without setting the last error."""
    d = simcuda.Driver(progression="manual")
    old = simcuda.use(d)
    try:
        s = ok(rt.cudaStreamCreate())
        dptr = ok(rt.cudaMalloc(8))
        assert rt.cudaMemsetAsync(dptr, 0, 8, s) == OK
        assert rt.cudaStreamQuery(s) == (E.cudaErrorNotReady,)
        assert rt.cudaGetLastError() == OK
        assert rt.cudaStreamSynchronize(s) == OK
        assert rt.cudaStreamQuery(s) == OK
    finally:
        simcuda.use(old)


# ------------------------------------------------------------------------------------- capture
def test_capture_builds_a_graph(drv):
    """Async work on a capturing stream becomes nodes; capture info reports status, an int id and the graph."""
    s = ok(rt.cudaStreamCreate())
    d = ok(rt.cudaMalloc(64))
    host = bytearray(64)
    assert rt.cudaStreamBeginCapture(s, rt.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal) == OK
    assert rt.cudaStreamIsCapturing(s) == (E.cudaSuccess, rt.cudaStreamCaptureStatus.cudaStreamCaptureStatusActive)
    status, cid, g, deps, eds, n = ok(rt.cudaStreamGetCaptureInfo(s))
    assert status == rt.cudaStreamCaptureStatus.cudaStreamCaptureStatusActive
    assert type(cid) is int and cid > 0 and isinstance(g, rt.cudaGraph_t) and (deps, eds, n) == ([], [], 0)
    assert rt.cudaMemsetAsync(d, 7, 64, s) == OK
    assert rt.cudaMemcpyAsync(host, d, 64, rt.cudaMemcpyKind.cudaMemcpyDefault, s) == OK
    graph = ok(rt.cudaStreamEndCapture(s))
    assert isinstance(graph, rt.cudaGraph_t)
    nodes, count = ok(rt.cudaGraphGetNodes(graph, 2))
    assert count == 2 and all(isinstance(x, rt.cudaGraphNode_t) for x in nodes)
    types = [ok(rt.cudaGraphNodeGetType(x)) for x in nodes]
    assert types == [rt.cudaGraphNodeType.cudaGraphNodeTypeMemset, rt.cudaGraphNodeType.cudaGraphNodeTypeMemcpy]
    assert bytes(host) == bytes(64)  # nothing ran during capture
    exe = ok(rt.cudaGraphInstantiate(graph, 0))
    assert rt.cudaGraphLaunch(exe, s) == OK
    assert rt.cudaStreamSynchronize(s) == OK
    assert bytes(host) == b"\x07" * 64


def test_sync_during_capture_invalidates(drv):
    """cudaStreamSynchronize on a capturing stream fails with 900 and the capture ends with 901, no graph."""
    s = ok(rt.cudaStreamCreate())
    ok(rt.cudaStreamBeginCapture(s, rt.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal))
    assert rt.cudaStreamSynchronize(s) == (E.cudaErrorStreamCaptureUnsupported,)
    assert rt.cudaStreamIsCapturing(s)[1] == rt.cudaStreamCaptureStatus.cudaStreamCaptureStatusInvalidated
    assert rt.cudaStreamEndCapture(s) == (E.cudaErrorStreamCaptureInvalidated, None)
    assert rt.cudaGetLastError() == (E.cudaErrorStreamCaptureInvalidated,)


def test_malloc_during_global_capture_is_unsafe(drv):
    """cudaMalloc while a GLOBAL capture is active is refused with 900 (potentially unsafe call)."""
    s = ok(rt.cudaStreamCreate())
    ok(rt.cudaStreamBeginCapture(s, rt.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal))
    assert rt.cudaMalloc(16) == (E.cudaErrorStreamCaptureUnsupported, None)
    prev = ok(rt.cudaThreadExchangeStreamCaptureMode(rt.cudaStreamCaptureMode.cudaStreamCaptureModeRelaxed))
    assert prev == rt.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal
    assert rt.cudaMalloc(16)[0] == E.cudaSuccess
    assert rt.cudaThreadExchangeStreamCaptureMode(7) == (E.cudaErrorInvalidValue, None)


def test_legacy_stream_under_capture_is_implicit(drv):
    """A synchronous cudaMemset while a blocking stream captures is cudaErrorStreamCaptureImplicit (906)."""
    s = ok(rt.cudaStreamCreate())
    d = ok(rt.cudaMalloc(8))
    ok(rt.cudaStreamBeginCapture(s, rt.cudaStreamCaptureMode.cudaStreamCaptureModeRelaxed))
    assert rt.cudaMemset(d, 0, 8) == (E.cudaErrorStreamCaptureImplicit,)


def test_fork_join_across_streams(drv):
    """Event record and wait fork a second stream into the capture and join it back (spec 4.3)."""
    s1, s2 = ok(rt.cudaStreamCreate()), ok(rt.cudaStreamCreate())
    fork, join = ok(rt.cudaEventCreate()), ok(rt.cudaEventCreate())
    a, b = ok(rt.cudaMalloc(8)), ok(rt.cudaMalloc(8))
    ok(rt.cudaStreamBeginCapture(s1, 0))
    ok(rt.cudaMemsetAsync(a, 1, 8, s1))
    ok(rt.cudaEventRecord(fork, s1))
    ok(rt.cudaStreamWaitEvent(s2, fork, 0))
    ok(rt.cudaMemsetAsync(b, 2, 8, s2))
    ok(rt.cudaMemsetAsync(a, 3, 8, s1))
    ok(rt.cudaEventRecord(join, s2))
    ok(rt.cudaStreamWaitEvent(s1, join, 0))
    ok(rt.cudaMemsetAsync(a, 4, 8, s1))
    g = ok(rt.cudaStreamEndCapture(s1))
    frm, to, eds, n = ok(rt.cudaGraphGetEdges(g, 8))
    nodes = ok(rt.cudaGraphGetNodes(g, 4))[0]
    idx = {int(x): i for i, x in enumerate(nodes)}
    assert sorted((idx[int(a_)], idx[int(b_)]) for a_, b_ in zip(frm[:n], to[:n])) == [(0, 1), (0, 2), (1, 3), (2, 3)]
    assert all(isinstance(e, rt.cudaGraphEdgeData) for e in eds)


def test_unjoined_capture_fails(drv):
    """Ending a capture whose forked stream did not rejoin is cudaErrorStreamCaptureUnjoined."""
    s1, s2 = ok(rt.cudaStreamCreate()), ok(rt.cudaStreamCreate())
    fork = ok(rt.cudaEventCreate())
    a = ok(rt.cudaMalloc(8))
    ok(rt.cudaStreamBeginCapture(s1, 0))
    ok(rt.cudaEventRecord(fork, s1))
    ok(rt.cudaStreamWaitEvent(s2, fork, 0))
    ok(rt.cudaMemsetAsync(a, 2, 8, s2))
    assert rt.cudaStreamEndCapture(s1) == (E.cudaErrorStreamCaptureUnjoined, None)


# ------------------------------------------------------------------------------------- graphs
def test_manual_graph_with_every_simulated_node_kind(drv, tmp_path):
    """Kernel, memcpy, memset, host and empty nodes; dependencies; clone; DOT; the host node runs at replay."""
    f = kernel()
    d = ok(rt.cudaMalloc(16))
    out = bytearray(16)
    g = ok(rt.cudaGraphCreate(0))
    ms = rt.cudaMemsetParams()
    ms.dst, ms.value, ms.elementSize, ms.width, ms.height = d, 0x01020304, 4, 4, 1
    n_set = ok(rt.cudaGraphAddMemsetNode(g, None, 0, ms))
    kp = rt.cudaKernelNodeParams()
    kp.func = f
    kp.gridDim.x, kp.blockDim.x = 1, 4
    kp.kernelParams = ((d, 4, 2.5), (ctypes.c_void_p, ctypes.c_int, ctypes.c_float))
    n_k = ok(rt.cudaGraphAddKernelNode(g, [n_set], 1, kp))
    cp = rt.cudaMemcpy3DParms()
    cp.srcPtr = rt.make_cudaPitchedPtr(d, 16, 4, 1)
    cp.dstPtr = rt.make_cudaPitchedPtr(out, 16, 4, 1)
    cp.extent = rt.make_cudaExtent(16, 1, 1)
    cp.kind = rt.cudaMemcpyKind.cudaMemcpyDeviceToHost
    n_cp = ok(rt.cudaGraphAddMemcpyNode(g, [n_k], 1, cp))
    calls = []
    thunk = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda ud: calls.append(ud))
    hp = rt.cudaHostNodeParams()
    hp.fn = ctypes.cast(thunk, ctypes.c_void_p).value
    hp.userData = 42
    n_h = ok(rt.cudaGraphAddHostNode(g, [n_cp], 1, hp))
    n_e = ok(rt.cudaGraphAddEmptyNode(g, None, 0))
    assert rt.cudaGraphAddDependencies(g, [n_e], [n_h], None, 1) == OK
    assert rt.cudaGraphAddDependencies(g, [n_e], [n_h], None, 1) == (E.cudaErrorInvalidValue,)
    assert ok(rt.cudaGraphGetNodes(g))[1] == 5
    kinds = [ok(rt.cudaGraphNodeGetType(x)).name for x in (n_set, n_k, n_cp, n_h, n_e)]
    assert kinds == ["cudaGraphNodeTypeMemset", "cudaGraphNodeTypeKernel", "cudaGraphNodeTypeMemcpy",
                     "cudaGraphNodeTypeHost", "cudaGraphNodeTypeEmpty"]
    deps, _eds, nd = ok(rt.cudaGraphNodeGetDependencies(n_h, 2))
    assert nd == 2 and {int(x) for x in deps} == {int(n_cp), int(n_e)}
    roots = ok(rt.cudaGraphGetRootNodes(g, 5))
    assert roots[1] == 2
    s = ok(rt.cudaStreamCreate())
    exe = ok(rt.cudaGraphInstantiate(g, 0))
    clone = ok(rt.cudaGraphClone(g))
    assert rt.cudaGraphLaunch(exe, s) == OK
    assert rt.cudaStreamSynchronize(s) == OK
    assert bytes(out) == bytes([4, 3, 2, 1]) * 4
    assert calls == [42]
    launch = next(r for r in drv.launch_log if r.kind == "KERNEL")
    assert "fill" in launch.detail
    path = tmp_path / "g.dot"
    assert rt.cudaGraphDebugDotPrint(clone, str(path).encode(), 0) == OK
    assert "digraph" in path.read_text()
    with pytest.raises(TypeError):
        rt.cudaGraphDebugDotPrint(clone, str(path), 0)
    assert rt.cudaGraphExecDestroy(exe) == OK
    assert rt.cudaGraphDestroy(g) == OK
    assert rt.cudaGraphDestroy(g) == (E.cudaErrorInvalidValue,)


def test_kernel_node_arguments_reach_a_python_kernel(drv):
    """Arguments given as (values, ctypes types) to a runtime kernel node reach a registered Python kernel."""
    f = kernel()
    seen = []
    drv.kernels["fill"] = lambda launch: seen.append(list(launch.args))
    d = ok(rt.cudaMalloc(16))
    g = ok(rt.cudaGraphCreate(0))
    kp = rt.cudaKernelNodeParams()
    kp.func = int(f)
    kp.kernelParams = ((d, 4, 2.5), (ctypes.c_void_p, ctypes.c_int, ctypes.c_float))
    ok(rt.cudaGraphAddKernelNode(g, None, 0, kp))
    s = ok(rt.cudaStreamCreate())
    ok(rt.cudaGraphLaunch(ok(rt.cudaGraphInstantiate(g, 0)), s))
    assert seen == [[d, 4, 2.5]]


def test_driver_and_runtime_nodes_mix(drv):
    """Driver CUgraphNode handles go into runtime dependency lists and runtime handles into driver calls."""
    ok(rt.cudaFree(0))
    g = ok(rt.cudaGraphCreate(0))
    r_node = ok(rt.cudaGraphAddEmptyNode(g, None, 0))
    err, d_node = cu.cuGraphAddEmptyNode(g, [r_node], 1)
    assert err == CUresult.CUDA_SUCCESS and type(d_node) is cu.CUgraphNode
    r2 = ok(rt.cudaGraphAddEmptyNode(g, [d_node, r_node], 2))
    assert ok(rt.cudaGraphNodeGetDependencies(r2, 2))[2] == 2


def test_graph_errors_are_translated(drv):
    """Bad handles give the runtime codes of the same value (invalid value, invalid resource handle)."""
    ok(rt.cudaFree(0))
    assert rt.cudaGraphInstantiate(None, 0) == (E.cudaErrorInvalidValue, None)
    assert rt.cudaGraphLaunch(rt.cudaGraphExec_t(0x10), None) == (E.cudaErrorInvalidResourceHandle,)
    assert rt.cudaGraphGetNodes(rt.cudaGraph_t(0x99)) == (E.cudaErrorInvalidValue, None, None)
    assert rt.cudaStreamGetCaptureInfo(rt.cudaStreamLegacy)[0] == E.cudaSuccess
    assert len(rt.cudaStreamGetCaptureInfo(rt.cudaStream_t(0x77))) == 7


def test_launch_host_func_runs_and_refuses_callables(drv):
    """cudaLaunchHostFunc takes an address (called when the work runs) and refuses a Python callable."""
    s = ok(rt.cudaStreamCreate())
    calls = []
    thunk = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda ud: calls.append(ud))
    assert rt.cudaLaunchHostFunc(s, ctypes.cast(thunk, ctypes.c_void_p).value, 7) == OK
    assert calls == [7]
    with pytest.raises(TypeError, match="an integer is required"):
        rt.cudaLaunchHostFunc(s, lambda ud: None, None)


def test_exec_update_and_instantiate_with_params(drv):
    """cudaGraphExecUpdate reports success for an identical topology and fails with 910 otherwise."""
    ok(rt.cudaFree(0))
    g1 = ok(rt.cudaGraphCreate(0))
    ok(rt.cudaGraphAddEmptyNode(g1, None, 0))
    params = rt.cudaGraphInstantiateParams()
    exe = ok(rt.cudaGraphInstantiateWithParams(g1, params))
    assert params.result_out == rt.cudaGraphInstantiateResult.cudaGraphInstantiateSuccess
    info = ok(rt.cudaGraphExecUpdate(exe, ok(rt.cudaGraphClone(g1))))
    assert info.result == rt.cudaGraphExecUpdateResult.cudaGraphExecUpdateSuccess
    g2 = ok(rt.cudaGraphCreate(0))
    assert rt.cudaGraphExecUpdate(exe, g2) == (E.cudaErrorGraphExecUpdateFailure, None)
