"""Memory pools and graph memory through the tuple face, the runtime twins and the _v2 face: codes, the wrapper's
type rules, and the state the calls leave."""
from __future__ import annotations

import ctypes

import pytest

import simcuda
from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings import runtime as rt
from simcuda.faces.bindings._v2 import driver as v2

R = cu.CUresult
E = rt.cudaError_t
A = cu.CUmemPool_attribute
G = cu.CUgraphMem_attribute
RG = rt.cudaGraphMemAttributeType


@pytest.fixture
def ctx(drv):
    """The tuple face initialised, with the primary context of device 0 current."""
    cu.cuInit(0)
    _err, c = cu.cuDevicePrimaryCtxRetain(0)
    cu.cuCtxSetCurrent(c)
    return drv


def props(dev: int = 0) -> cu.CUmemPoolProps:
    """Pinned device-pool properties for ``dev``."""
    p = cu.CUmemPoolProps()
    p.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    p.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    p.location.id = dev
    return p


def u64(res):
    """The int of a ``(CUDA_SUCCESS, cuuint64_t)`` result (fails on an error)."""
    assert int(res[0]) == 0, res
    assert isinstance(res[1], cu.cuuint64_t)
    return int(res[1])


def test_tuple_face_create_allocate_trim_destroy(ctx):
    """cuMemPoolCreate returns a CUmemoryPool; allocations from it move its counters; trim and destroy work, and the
    destroyed handle is INVALID_VALUE."""
    err, p = cu.cuMemPoolCreate(props())
    assert err == R.CUDA_SUCCESS and isinstance(p, cu.CUmemoryPool)
    assert cu.cuMemPoolSetAttribute(p, A.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, cu.cuuint64_t(1 << 20)) == (R.CUDA_SUCCESS,)
    _err, s = cu.cuStreamCreate(1)
    err, a = cu.cuMemAllocFromPoolAsync(4096, p, s)
    assert err == R.CUDA_SUCCESS
    assert cu.cuMemFreeAsync(a, s) == (R.CUDA_SUCCESS,)
    assert u64(cu.cuMemPoolGetAttribute(p, A.CU_MEMPOOL_ATTR_USED_MEM_CURRENT)) == 0
    assert u64(cu.cuMemPoolGetAttribute(p, A.CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)) == 4096  # kept
    assert cu.cuMemPoolTrimTo(p, 0) == (R.CUDA_SUCCESS,)
    assert u64(cu.cuMemPoolGetAttribute(p, A.CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)) == 0
    assert cu.cuMemPoolGetAttribute(p, A.CU_MEMPOOL_ATTR_LOCATION_TYPE) == (R.CUDA_SUCCESS, 1)
    assert cu.cuMemPoolGetAttribute(p, A.CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC) == (R.CUDA_SUCCESS, 1)
    assert cu.cuMemPoolSetAttribute(p, A.CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, 0) == (R.CUDA_SUCCESS,)
    assert cu.cuMemPoolGetAttribute(p, A.CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC) == (R.CUDA_SUCCESS, 0)
    assert cu.cuMemPoolDestroy(p) == (R.CUDA_SUCCESS,)
    assert cu.cuMemPoolDestroy(p) == (R.CUDA_ERROR_INVALID_VALUE,)
    _err, dp = cu.cuDeviceGetDefaultMemPool(0)
    assert cu.cuMemPoolDestroy(dp) == (R.CUDA_ERROR_INVALID_VALUE,)


def test_tuple_face_create_type_rules(ctx):
    """The wrapper's rules: a non-CUmemPoolProps raises TypeError; None reaches the driver (INVALID_VALUE)."""
    with pytest.raises(TypeError, match=r"expected cuda\.bindings\.driver\.CUmemPoolProps, got int"):
        cu.cuMemPoolCreate(5)
    assert cu.cuMemPoolCreate(None) == (R.CUDA_ERROR_INVALID_VALUE, None)
    bad = props(7)
    assert cu.cuMemPoolCreate(bad) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert "not a device" in simcuda.last_error().why


def test_tuple_face_access(ctx):
    """cuMemPoolSetAccess takes a CUmemAccessDesc list with the wrapper's checks; cuMemPoolGetAccess returns the
    CUmemAccess_flags."""
    _err, p = cu.cuMemPoolCreate(props())
    desc = cu.CUmemAccessDesc()
    desc.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    desc.location.id = 0
    desc.flags = cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    assert cu.cuMemPoolSetAccess(p, [desc], 1) == (R.CUDA_SUCCESS,)
    with pytest.raises(RuntimeError, match="List is too small: 1 < 2"):
        cu.cuMemPoolSetAccess(p, [desc], 2)
    with pytest.raises(TypeError, match=r"expected tuple\[cydriver\.CUmemAccessDesc,\]"):
        cu.cuMemPoolSetAccess(p, [1], 1)
    desc.flags = cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_NONE
    assert cu.cuMemPoolSetAccess(p, (desc,), 1) == (R.CUDA_ERROR_INVALID_VALUE,)  # its own device: always RW
    loc = cu.CUmemLocation()
    loc.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    assert cu.cuMemPoolGetAccess(p, loc) == (R.CUDA_SUCCESS, cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
    assert cu.cuMemPoolGetAccess(p, None) == (R.CUDA_ERROR_INVALID_VALUE, None)
    with pytest.raises(TypeError, match=r"expected cuda\.bindings\.driver\.CUmemLocation"):
        cu.cuMemPoolGetAccess(p, 3)


def test_tuple_face_graph_memory(ctx):
    """The graph-memory attributes are cuuint64_t; a launch of a captured allocation moves them; trim and the
    watermark reset work; an int attribute or value raises as in the real wrapper."""
    _err, s = cu.cuStreamCreate(1)
    cu.cuStreamBeginCapture(s, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL)
    _err, a = cu.cuMemAllocAsync(2048, s)
    cu.cuMemFreeAsync(a, s)
    _err, g = cu.cuStreamEndCapture(s)
    _err, x = cu.cuGraphInstantiate(g, 0)
    assert u64(cu.cuDeviceGetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT)) == 0
    assert cu.cuGraphLaunch(x, s) == (R.CUDA_SUCCESS,)
    assert u64(cu.cuDeviceGetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT)) == 2048
    assert u64(cu.cuDeviceGetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH)) == 2048
    assert cu.cuDeviceGraphMemTrim(0) == (R.CUDA_SUCCESS,)
    assert u64(cu.cuDeviceGetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT)) == 0
    assert cu.cuDeviceSetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, cu.cuuint64_t(0)) == (
        R.CUDA_SUCCESS,)
    assert u64(cu.cuDeviceGetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_USED_MEM_HIGH)) == 0
    assert cu.cuDeviceSetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, cu.cuuint64_t(0)) == (
        R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuDeviceGetGraphMemAttribute(9, G.CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT) == (
        R.CUDA_ERROR_INVALID_DEVICE, None)
    with pytest.raises(AttributeError, match="value"):
        cu.cuDeviceGetGraphMemAttribute(0, 1)
    with pytest.raises(AttributeError, match="getPtr"):
        cu.cuDeviceSetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, 0)


def test_tuple_face_pools_on_a_device_without_them(drv):
    """DeviceSpec(memory_pools=False): attribute MEMORY_POOLS_SUPPORTED is 0 and the pool calls answer 801."""
    simcuda.use(simcuda.Driver(devices=[simcuda.DeviceSpec(memory_pools=False)]))
    cu.cuInit(0)
    _err, c = cu.cuDevicePrimaryCtxRetain(0)
    cu.cuCtxSetCurrent(c)
    attr = cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED
    assert cu.cuDeviceGetAttribute(attr, 0) == (R.CUDA_SUCCESS, 0)
    _err, s = cu.cuStreamCreate(1)
    assert cu.cuMemAllocAsync(64, s) == (R.CUDA_ERROR_NOT_SUPPORTED, None)
    assert cu.cuDeviceGetDefaultMemPool(0) == (R.CUDA_ERROR_NOT_SUPPORTED, None)
    assert cu.cuMemPoolCreate(props()) == (R.CUDA_ERROR_NOT_SUPPORTED, None)
    assert cu.cuDeviceGraphMemTrim(0) == (R.CUDA_ERROR_NOT_SUPPORTED,)
    assert rt.cudaMallocAsync(64, s) == (E.cudaErrorNotSupported, None)


def test_runtime_twins(ctx):
    """cudaMemPoolCreate / TrimTo / Destroy / SetAccess / GetAccess and the graph-memory calls: the driver rules
    with cudaError_t codes and the runtime's own structs and enums."""
    pp = rt.cudaMemPoolProps()
    pp.allocType = rt.cudaMemAllocationType.cudaMemAllocationTypePinned
    pp.location.type = rt.cudaMemLocationType.cudaMemLocationTypeDevice
    pp.maxSize = 1 << 16
    err, p = rt.cudaMemPoolCreate(pp)
    assert err == E.cudaSuccess
    assert int(rt.cudaMemPoolGetAttribute(p, rt.cudaMemPoolAttr.cudaMemPoolAttrMaxPoolSize)[1]) == 1 << 16
    _err, s = rt.cudaStreamCreate()
    assert rt.cudaMallocFromPoolAsync(1 << 17, p, s) == (E.cudaErrorMemoryAllocation, None)  # past maxSize
    err, a = rt.cudaMallocFromPoolAsync(100, p, s)
    assert err == E.cudaSuccess
    assert rt.cudaFreeAsync(a, s) == (E.cudaSuccess,)
    assert rt.cudaMemPoolTrimTo(p, 0) == (E.cudaSuccess,)
    desc = rt.cudaMemAccessDesc()
    desc.location.type = rt.cudaMemLocationType.cudaMemLocationTypeDevice
    desc.flags = rt.cudaMemAccessFlags.cudaMemAccessFlagsProtReadWrite
    assert rt.cudaMemPoolSetAccess(p, [desc], 1) == (E.cudaSuccess,)
    with pytest.raises(RuntimeError, match="List is too small"):
        rt.cudaMemPoolSetAccess(p, [desc], 3)
    loc = rt.cudaMemLocation()
    loc.type = rt.cudaMemLocationType.cudaMemLocationTypeDevice
    assert rt.cudaMemPoolGetAccess(p, loc) == (E.cudaSuccess, rt.cudaMemAccessFlags.cudaMemAccessFlagsProtReadWrite)
    assert rt.cudaMemPoolDestroy(p) == (E.cudaSuccess,)
    assert rt.cudaMemPoolDestroy(p) == (E.cudaErrorInvalidValue,)
    assert rt.cudaGetLastError() == (E.cudaErrorInvalidValue,)
    assert int(rt.cudaDeviceGetGraphMemAttribute(0, RG.cudaGraphMemAttrUsedMemCurrent)[1]) == 0
    assert rt.cudaDeviceSetGraphMemAttribute(0, RG.cudaGraphMemAttrReservedMemHigh, cu.cuuint64_t(0)) == (
        E.cudaSuccess,)
    assert rt.cudaDeviceSetGraphMemAttribute(0, RG.cudaGraphMemAttrReservedMemHigh, cu.cuuint64_t(1)) == (
        E.cudaErrorInvalidValue,)
    assert rt.cudaDeviceGraphMemTrim(0) == (E.cudaSuccess,)
    assert rt.cudaDeviceGraphMemTrim(5) == (E.cudaErrorInvalidDevice,)


def test_runtime_pool_call_in_capture_is_unsafe(ctx):
    """cudaMemPoolTrimTo during a GLOBAL capture: cudaErrorStreamCaptureUnsupported, then the capture is
    invalidated (P-12)."""
    _err, p = rt.cudaDeviceGetDefaultMemPool(0)
    _err, s = rt.cudaStreamCreate()
    assert rt.cudaStreamBeginCapture(s, rt.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal) == (E.cudaSuccess,)
    assert rt.cudaMemPoolTrimTo(p, 0) == (E.cudaErrorStreamCaptureUnsupported,)
    assert rt.cudaStreamEndCapture(s) == (E.cudaErrorStreamCaptureInvalidated, None)


def test_v2_face(drv):
    """The _v2 functions built for pools and graph memory: int handles, errors raised."""
    v2.init(0)
    v2.ctx_set_current(v2.device_primary_ctx_retain(0))
    p = v2.device_get_default_mem_pool(0)
    v2.mem_pool_trim_to(p, 0)
    with pytest.raises(v2.InvalidValueError):
        v2.mem_pool_destroy(p)  # a default pool
    v2.device_graph_mem_trim(0)
    assert v2.device_get_graph_mem_attribute(0, 0) == 0
    zero = ctypes.c_uint64(0)
    v2.device_set_graph_mem_attribute(0, 1, ctypes.addressof(zero))
    with pytest.raises(TypeError, match="Unsupported graph memory attribute"):
        v2.device_get_graph_mem_attribute(0, 9)
