"""User objects, memory pools and the stream priority range through the tuple face, the _v2 face and the runtime."""
from __future__ import annotations

import ctypes

import pytest

from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings import runtime as rt
from simcuda.faces.bindings._v2 import driver as v2

R = cu.CUresult
A = cu.CUmemPool_attribute
HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@pytest.fixture
def ctx(drv):
    """The tuple face initialised, with the primary context of device 0 current."""
    cu.cuInit(0)
    _err, c = cu.cuDevicePrimaryCtxRetain(0)
    cu.cuCtxSetCurrent(c)
    return drv


@pytest.fixture
def destroyed():
    """``(address of a C destructor, list of the ptr values it was called with)``; the thunk stays alive."""
    got: list = []
    thunk = HOST_FN(lambda p: got.append(p))
    yield ctypes.cast(thunk, ctypes.c_void_p).value, got
    del thunk


def test_tuple_face_user_object_flow(ctx, destroyed):
    """Create (CUhostFn or address), retain on a capture's graph with MOVE, instantiate, release; the destructor
    runs with ptr when the exec goes."""
    addr, got = destroyed
    err, s = cu.cuStreamCreate(1)
    assert cu.cuStreamBeginCapture(s, 0) == (R.CUDA_SUCCESS,)
    err, u = cu.cuUserObjectCreate(0x77, cu.CUhostFn(addr), 1, cu.CUuserObject_flags.CU_USER_OBJECT_NO_DESTRUCTOR_SYNC)
    assert err == R.CUDA_SUCCESS and isinstance(u, cu.CUuserObject)
    g = cu.cuStreamGetCaptureInfo(s)[3]
    assert cu.cuGraphRetainUserObject(g, u, 1, cu.CUuserObjectRetain_flags.CU_GRAPH_USER_OBJECT_MOVE) == (
        R.CUDA_SUCCESS,)
    err, g = cu.cuStreamEndCapture(s)
    assert err == R.CUDA_SUCCESS
    err, x = cu.cuGraphInstantiate(g, 0)
    assert cu.cuGraphReleaseUserObject(g, u, 1) == (R.CUDA_SUCCESS,)
    assert cu.cuGraphReleaseUserObject(g, u, 1) == (R.CUDA_ERROR_INVALID_VALUE,)  # the graph holds none now
    assert cu.cuGraphLaunch(x, s) == (R.CUDA_SUCCESS,) and got == []
    assert cu.cuGraphExecDestroy(x) == (R.CUDA_SUCCESS,)
    assert got == [0x77]
    assert cu.cuUserObjectRetain(u, 1) == (R.CUDA_ERROR_INVALID_VALUE,)  # dead handle


def test_tuple_face_refuses_what_the_real_wrapper_refuses(ctx):
    """A Python callable as the destructor raises TypeError before the driver; bad flags are INVALID_VALUE."""
    with pytest.raises(TypeError, match="an integer is required"):
        cu.cuUserObjectCreate(None, lambda p: None, 1, 1)
    assert cu.cuUserObjectCreate(None, 0, 1, 1) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuUserObjectCreate(None, 0x1000, 1, 0) == (R.CUDA_ERROR_INVALID_VALUE, None)


def test_tuple_face_pools(ctx):
    """Default pool, attributes as cuuint64_t, an allocation from the pool counted, the wrapper's type rules."""
    err, p = cu.cuDeviceGetDefaultMemPool(0)
    assert err == R.CUDA_SUCCESS and isinstance(p, cu.CUmemoryPool)
    assert int(cu.cuDeviceGetMemPool(0)[1]) == int(p)
    assert cu.cuDeviceSetMemPool(0, p) == (R.CUDA_SUCCESS,)
    assert cu.cuMemPoolSetAttribute(p, A.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, cu.cuuint64_t(4096)) == (R.CUDA_SUCCESS,)
    err, v = cu.cuMemPoolGetAttribute(p, A.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)
    assert isinstance(v, cu.cuuint64_t) and int(v) == 4096
    err, s = cu.cuStreamCreate(1)
    err, a = cu.cuMemAllocFromPoolAsync(100, p, s)
    assert err == R.CUDA_SUCCESS and int(cu.cuMemPoolGetAttribute(p, A.CU_MEMPOOL_ATTR_USED_MEM_CURRENT)[1]) == 100
    assert cu.cuMemFreeAsync(a, s) == (R.CUDA_SUCCESS,)
    assert int(cu.cuMemPoolGetAttribute(p, A.CU_MEMPOOL_ATTR_USED_MEM_HIGH)[1]) == 100
    assert cu.cuMemPoolGetAttribute(p, A.CU_MEMPOOL_ATTR_LOCATION_ID) == (R.CUDA_SUCCESS, 0)
    with pytest.raises(AttributeError, match="getPtr"):
        cu.cuMemPoolSetAttribute(p, A.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, 5)
    with pytest.raises(AttributeError, match="value"):
        cu.cuMemPoolGetAttribute(p, 4)


def test_tuple_face_pool_attribute_in_capture_is_unsafe(ctx):
    """Spec 16 through the face: 900, then the capture ends with 901."""
    _err, p = cu.cuDeviceGetDefaultMemPool(0)
    _err, s = cu.cuStreamCreate(1)
    cu.cuStreamBeginCapture(s, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
    assert cu.cuMemPoolGetAttribute(p, A.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) == (
        R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, None)
    assert cu.cuStreamEndCapture(s) == (R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, None)


def test_tuple_face_priority_range(ctx):
    """(least, greatest) = (0, -5), and a stream asking for more gets the greatest."""
    assert cu.cuCtxGetStreamPriorityRange() == (R.CUDA_SUCCESS, 0, -5)
    _err, s = cu.cuStreamCreateWithPriority(0, -100)
    assert cu.cuStreamGetPriority(s) == (R.CUDA_SUCCESS, -5)


def test_v2_face(drv, destroyed):
    """The _v2 functions: plain ints in and out, errors raised; set_attribute reads the value at an address."""
    addr, got = destroyed
    v2.init(0)
    v2.ctx_set_current(v2.device_primary_ctx_retain(0))
    assert v2.ctx_get_stream_priority_range() == (0, -5)
    u = v2.user_object_create(5, addr, 2, 1)
    v2.user_object_retain(u, 1)
    g = v2.graph_create(0)
    v2.graph_retain_user_object(g, u, 3, 1)
    v2.graph_release_user_object(g, u, 2)
    with pytest.raises(v2.InvalidValueError):
        v2.user_object_release(u, 1)  # the caller moved all three
    v2.graph_destroy(g)
    assert got == [5]
    p = v2.device_get_default_mem_pool(0)
    assert p == v2.device_get_mem_pool(0)
    v2.device_set_mem_pool(0, p)
    val = ctypes.c_uint64(64)
    v2.mem_pool_set_attribute(p, 4, ctypes.addressof(val))
    assert v2.mem_pool_get_attribute(p, 4) == 64
    s = v2.stream_create(1)
    a = v2.mem_alloc_from_pool_async(10, p, s)
    assert v2.mem_pool_get_attribute(p, 7) == 10
    v2.mem_free_async(a, s)
    with pytest.raises(TypeError, match="Unsupported memory pool attribute"):
        v2.mem_pool_get_attribute(p, 0)


def test_runtime_face(drv, destroyed):
    """The runtime counterparts share the driver rows: same behaviour, cudaError_t codes."""
    addr, got = destroyed
    assert rt.cudaDeviceGetStreamPriorityRange() == (rt.cudaError_t.cudaSuccess, 0, -5)
    err, p = rt.cudaDeviceGetDefaultMemPool(0)
    assert err == rt.cudaError_t.cudaSuccess
    assert int(rt.cudaMemPoolGetAttribute(p, rt.cudaMemPoolAttr.cudaMemPoolAttrReleaseThreshold)[1]) == 0
    err, s = rt.cudaStreamCreate()
    err, _a = rt.cudaMallocFromPoolAsync(32, p, s)
    assert int(rt.cudaMemPoolGetAttribute(p, rt.cudaMemPoolAttr.cudaMemPoolAttrUsedMemCurrent)[1]) == 32
    err, u = rt.cudaUserObjectCreate(9, addr, 1, 1)
    err, g = rt.cudaGraphCreate(0)
    assert rt.cudaGraphRetainUserObject(g, u, 1, 1) == (rt.cudaError_t.cudaSuccess,)
    assert rt.cudaUserObjectRelease(u, 1) == (rt.cudaError_t.cudaErrorInvalidValue,)
    assert rt.cudaGraphReleaseUserObject(g, u, 1) == (rt.cudaError_t.cudaSuccess,)
    assert got == [9]
