"""The potentially unsafe class of spec 5.2 beyond allocation: libraries, arrays, primary-context reset."""
import pytest

import simcuda
from simcuda.faces.bindings import driver as cu

R = cu.CUresult
PTX = b".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{ ret; }\n"


@pytest.fixture
def s1():
    old = simcuda.use(simcuda.Driver())
    cu.cuInit(0)
    cu.cuCtxCreate(None, 0, 0)
    yield cu.cuStreamCreate(0)[1]
    simcuda.use(old)


def _array_desc():
    a = cu.CUDA_ARRAY_DESCRIPTOR()
    a.Width, a.Height, a.NumChannels = 16, 1, 1
    a.Format = cu.CUarray_format.CU_AD_FORMAT_FLOAT
    return a


@pytest.mark.inferred
@pytest.mark.parametrize("call", ["library_load", "library_unload", "array_create", "array_destroy", "ctx_reset"])
def test_unsafe_calls_refused_in_global_capture_and_allowed_in_relaxed(s1, call):
    """Each call is 900 and invalidates a GLOBAL capture of its thread, and runs once the thread is RELAXED."""
    err, lib = cu.cuLibraryLoadData(PTX, None, None, 0, None, None, 0)
    assert err == R.CUDA_SUCCESS
    err, arr = cu.cuArrayCreate(_array_desc())
    assert err == R.CUDA_SUCCESS
    calls = {
        "library_load": lambda: cu.cuLibraryLoadData(PTX, None, None, 0, None, None, 0)[0],
        "library_unload": lambda: cu.cuLibraryUnload(lib)[0],
        "array_create": lambda: cu.cuArrayCreate(_array_desc())[0],
        "array_destroy": lambda: cu.cuArrayDestroy(arr)[0],
        "ctx_reset": lambda: cu.cuDevicePrimaryCtxReset(0)[0],
    }
    assert cu.cuStreamBeginCapture(s1, 0) == (R.CUDA_SUCCESS,)
    assert calls[call]() == R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
    assert cu.cuStreamIsCapturing(s1)[1] == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_INVALIDATED
    assert cu.cuStreamEndCapture(s1) == (R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, None)
    assert cu.cuStreamBeginCapture(s1, 0) == (R.CUDA_SUCCESS,)
    assert cu.cuThreadExchangeStreamCaptureMode(2)[0] == R.CUDA_SUCCESS
    assert calls[call]() == R.CUDA_SUCCESS
    cu.cuThreadExchangeStreamCaptureMode(0)
    err, g = cu.cuStreamEndCapture(s1)
    assert err == R.CUDA_SUCCESS and cu.cuGraphGetNodes(g)[2] == 0


def test_library_kernel_launches_like_a_function(s1):
    """A kernel from cuLibraryGetKernel, turned into a function, is captured as a KERNEL node."""
    err, lib = cu.cuLibraryLoadData(PTX, None, None, 0, None, None, 0)
    err, kern = cu.cuLibraryGetKernel(lib, b"k")
    assert err == R.CUDA_SUCCESS
    assert cu.cuKernelGetName(kern) == (R.CUDA_SUCCESS, b"k")
    assert cu.cuLibraryGetKernel(lib, b"nope")[0] == R.CUDA_ERROR_NOT_FOUND
    err, f = cu.cuKernelGetFunction(kern)
    cu.cuStreamBeginCapture(s1, 0)
    assert cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s1, 0, 0) == (R.CUDA_SUCCESS,)
    err, g = cu.cuStreamEndCapture(s1)
    _, nodes, n = cu.cuGraphGetNodes(g, 1)
    assert n == 1 and cu.cuGraphNodeGetType(nodes[0])[1] == cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL
