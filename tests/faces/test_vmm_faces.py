"""Host-mapped and managed memory in use, pointer attributes and virtual memory management, through the driver
face (codes and the state after) and its runtime twins (issue 10 parts 3 and 4)."""
from __future__ import annotations

import contextlib
import ctypes

import numpy as np
import pytest

import simcuda
from simcuda._core.config import DeviceSpec, Options
from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings import runtime as rt

R = cu.CUresult
A = cu.CUpointer_attribute
G = 2 << 20  # the granularity the simulator reports
SRC = b'extern "C" __global__ void vmm_add(float* a, float* b, float* c, int n) {}'


def ok(res):
    """Assert success and unpack the outputs."""
    assert res[0] == R.CUDA_SUCCESS, res
    return None if len(res) == 1 else res[1] if len(res) == 2 else res[1:]


@pytest.fixture
def env(monkeypatch):
    """A fresh driver with a context, installed as the current one."""
    monkeypatch.delenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", raising=False)
    d = simcuda.Driver()
    old = simcuda.use(d)
    ok(cu.cuInit(0))
    ok(cu.cuCtxCreate(None, 0, 0))
    yield d
    simcuda.use(old)


@pytest.fixture
def env_alone(monkeypatch):
    """As ``env``, on a driver whose ``cuMemGetInfo`` figures are its own (:func:`alone`)."""
    monkeypatch.delenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", raising=False)
    with alone() as d:
        yield d


@contextlib.contextmanager
def off(**flags):
    """A fresh driver whose device has the named features switched off, with a context, current while inside."""
    with fresh(simcuda.Driver(devices=[DeviceSpec(**flags)])) as d:
        yield d


@contextlib.contextmanager
def alone():
    """A fresh driver whose ``cuMemGetInfo`` free figure is its own: with a host budget above the device's memory,
    free is the device's free memory. (Free is the smaller of that and what the host budget leaves, and the
    budget is shared by every driver of the process: a driver of an earlier test that the garbage collector
    frees in the middle of a test would change it, spec 17.) A context, current while inside."""
    with fresh(simcuda.Driver(options=Options(host_memory_budget=1 << 40))) as d:
        yield d


@contextlib.contextmanager
def fresh(d):
    """Driver ``d`` initialised, with a context, current while inside."""
    old = simcuda.use(d)
    try:
        ok(cu.cuInit(0))
        ok(cu.cuCtxCreate(None, 0, 0))
        yield d
    finally:
        simcuda.use(old)


@pytest.fixture
def add_kernel():
    """Register the Python kernel 'vmm_add' (c = a + b over n floats) and the function handle that launches it."""
    @simcuda.kernel("vmm_add")
    def vmm_add(launch):
        a, b, c, n = launch.args
        launch.array(c, np.float32, n)[:] = launch.array(a, np.float32, n) + launch.array(b, np.float32, n)
    mod = ok(cu.cuModuleLoadData(SRC))
    yield ok(cu.cuModuleGetFunction(mod, b"vmm_add"))
    simcuda._core.facade.KERNELS.pop("vmm_add", None)


def launch_add(f, a, b, c, n):
    """Launch vmm_add on the legacy stream and synchronise; returns the launch's code."""
    kp = ((a, b, c, n), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int))
    r = cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, cu.CU_STREAM_LEGACY, kp, 0)
    ok(cu.cuCtxSynchronize())
    return r[0]


def prop(dev=0):
    """A pinned device CUmemAllocationProp."""
    p = cu.CUmemAllocationProp()
    p.type = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    p.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    p.location.id = dev
    return p


def access(dev=0, flags=cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE):
    """A CUmemAccessDesc for a device."""
    a = cu.CUmemAccessDesc()
    a.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    a.location.id = dev
    a.flags = flags
    return a


def location(kind=cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, i=0):
    """A CUmemLocation."""
    loc = cu.CUmemLocation()
    loc.type, loc.id = kind, i
    return loc


def vmm_range(size=G, dev=0):
    """Reserve, create, map and grant READWRITE: ``(dptr, handle)`` (the handle still held)."""
    va = ok(cu.cuMemAddressReserve(size, 0, 0, 0))
    h = ok(cu.cuMemCreate(size, prop(dev), 0))
    ok(cu.cuMemMap(va, size, 0, h, 0))
    ok(cu.cuMemSetAccess(va, size, [access(dev)], 1))
    return va, h


# ------------------------------------------------------------------ host-mapped memory
def test_mapped_pinned_memory_has_its_host_address_as_device_pointer(env):
    """cuMemHostAlloc(DEVICEMAP) memory: cuMemHostGetDevicePointer returns the host address, interior ones too."""
    p = ok(cu.cuMemHostAlloc(4096, cu.CU_MEMHOSTALLOC_DEVICEMAP))
    assert int(ok(cu.cuMemHostGetDevicePointer(p, 0))) == p
    assert int(ok(cu.cuMemHostGetDevicePointer(p + 100, 0))) == p + 100
    assert cu.cuMemHostGetDevicePointer(p, 1)[0] == R.CUDA_ERROR_INVALID_VALUE
    buf = ctypes.create_string_buffer(64)
    assert cu.cuMemHostGetDevicePointer(ctypes.addressof(buf), 0)[0] == R.CUDA_ERROR_INVALID_VALUE
    ok(cu.cuMemFreeHost(p))
    assert cu.cuMemHostGetDevicePointer(p, 0)[0] == R.CUDA_ERROR_INVALID_VALUE


def test_registered_memory_is_mapped_and_reachable_from_kernels(env, add_kernel):
    """cuMemHostRegister(DEVICEMAP) numpy arrays: a Python kernel reads and writes them at their addresses."""
    a = np.arange(8, dtype=np.float32)
    b = np.full(8, 10, dtype=np.float32)
    c = np.zeros(8, dtype=np.float32)
    for x in (a, b, c):
        ok(cu.cuMemHostRegister(x.ctypes.data, x.nbytes, cu.CU_MEMHOSTREGISTER_DEVICEMAP))
    d = [int(ok(cu.cuMemHostGetDevicePointer(x.ctypes.data, 0))) for x in (a, b, c)]
    assert launch_add(add_kernel, *d, 8) == R.CUDA_SUCCESS
    assert c.tolist() == (a + b).tolist()
    ok(cu.cuMemHostUnregister(c.ctypes.data))
    assert cu.cuMemHostGetDevicePointer(c.ctypes.data, 0)[0] == R.CUDA_ERROR_INVALID_VALUE


def test_kernels_reach_pinned_managed_and_vmm_memory(env, add_kernel):
    """One kernel adds pinned host memory to managed memory into VMM memory, through their pointers."""
    h = ok(cu.cuMemAllocHost(16))
    (ctypes.c_float * 4).from_address(h)[:] = [1, 2, 3, 4]
    m = int(ok(cu.cuMemAllocManaged(16, cu.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL)))
    (ctypes.c_float * 4).from_address(m)[:] = [10, 20, 30, 40]
    va, _h = vmm_range()
    assert launch_add(add_kernel, h, m, int(va), 4) == R.CUDA_SUCCESS
    out = np.zeros(4, dtype=np.float32)
    ok(cu.cuMemcpyDtoH(out, va, 16))
    assert out.tolist() == [11, 22, 33, 44]


def test_unmapped_host_memory_is_refused_to_kernels(env, add_kernel):
    """A kernel argument pointing at ordinary (unregistered) host memory fails the launch's access."""
    a = np.ones(4, dtype=np.float32)
    h = ok(cu.cuMemAllocHost(16))
    with pytest.raises(simcuda.DriverError) as e:
        env.memory.kernel_view(a.ctypes.data, 16)
    assert e.value.code == R.CUDA_ERROR_INVALID_VALUE
    assert len(env.memory.kernel_view(h, 16)) == 16


def test_without_host_mapped_memory_the_device_pointer_fails(env):
    """host_mapped_memory=False: DEVICEMAP is accepted, cuMemHostGetDevicePointer fails (the deferred failure)."""
    with off(host_mapped_memory=False) as d:
        p = ok(cu.cuMemHostAlloc(64, cu.CU_MEMHOSTALLOC_DEVICEMAP))
        assert cu.cuMemHostGetDevicePointer(p, 0)[0] == R.CUDA_ERROR_INVALID_VALUE
        with pytest.raises(simcuda.DriverError):
            d.memory.kernel_view(p, 8)
        assert ok(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, 0)) == 0


def test_without_managed_memory_the_allocation_is_not_supported(env):
    """managed_memory=False: cuMemAllocManaged returns NOT_SUPPORTED (its docstring) and allocates nothing."""
    with off(managed_memory=False) as d:
        assert cu.cuMemAllocManaged(64, 1)[0] == R.CUDA_ERROR_NOT_SUPPORTED
        assert d.memory.in_use == 0
        assert ok(cu.cuMemAlloc(64))


def test_runtime_mapped_host_memory(env, add_kernel):
    """cudaHostAlloc(cudaHostAllocMapped) + cudaHostGetDevicePointer (a ctypes array too) + a kernel on it."""
    n = 16
    ptrs = [rt.cudaHostAlloc(n * 4, rt.cudaHostAllocMapped)[1] for _ in range(3)]
    arrs = [(ctypes.c_float * n).from_address(p) for p in ptrs]
    arrs[0][:] = list(range(n))
    arrs[1][:] = [2.0] * n
    devs = [rt.cudaHostGetDevicePointer(x, 0) for x in arrs]
    assert [r[0] for r in devs] == [rt.cudaError_t.cudaSuccess] * 3
    assert [r[1] for r in devs] == ptrs
    assert launch_add(add_kernel, *ptrs, n) == R.CUDA_SUCCESS
    assert list(arrs[2]) == [i + 2.0 for i in range(n)]
    assert rt.cudaHostGetDevicePointer(ptrs[0], 3)[0] == rt.cudaError_t.cudaErrorInvalidValue


def test_runtime_registered_numpy_arrays(env, add_kernel):
    """cudaHostRegister(cudaHostRegisterMapped) of numpy arrays (simpleZeroCopy's use_generic_memory path)."""
    a, b, c = np.ones(8, np.float32), np.full(8, 2, np.float32), np.zeros(8, np.float32)
    for x in (a, b, c):
        assert rt.cudaHostRegister(x, x.nbytes, rt.cudaHostRegisterMapped) == (rt.cudaError_t.cudaSuccess,)
    devs = [rt.cudaHostGetDevicePointer(x, 0)[1] for x in (a, b, c)]
    assert devs == [x.ctypes.data for x in (a, b, c)]
    assert launch_add(add_kernel, *devs, 8) == R.CUDA_SUCCESS
    assert c.tolist() == [3.0] * 8
    assert rt.cudaHostUnregister(c) == (rt.cudaError_t.cudaSuccess,)
    assert rt.cudaHostGetDevicePointer(c, 0)[0] == rt.cudaError_t.cudaErrorInvalidValue


# ------------------------------------------------------------------ managed-memory hints
def test_prefetch_and_advice_are_checked_and_recorded(env):
    """cuMemPrefetchAsync/cuMemAdvise on managed memory succeed and are recorded; device memory is refused."""
    m = int(ok(cu.cuMemAllocManaged(8192, 1)))
    s = ok(cu.cuStreamCreate(0))
    ok(cu.cuMemPrefetchAsync(m, 8192, location(), 0, s))
    ok(cu.cuMemPrefetchAsync(m, 4096, location(cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST), 0, s))
    ok(cu.cuStreamSynchronize(s))
    assert env.prefetches == [(m, 8192, 1, 0), (m, 4096, 2, 0)]
    ok(cu.cuMemAdvise(m, 8192, cu.CUmem_advise.CU_MEM_ADVISE_SET_PREFERRED_LOCATION, location()))
    ok(cu.cuMemAdvise(m, 8192, cu.CUmem_advise.CU_MEM_ADVISE_SET_READ_MOSTLY, location(0, 0)))
    assert env.advice == [(m, 8192, 3, 1, 0), (m, 8192, 1, 0, 0)]
    dev = int(ok(cu.cuMemAlloc(64)))
    assert cu.cuMemPrefetchAsync(dev, 64, location(), 0, s) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuMemPrefetchAsync(m, 8193, location(), 0, s) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuMemPrefetchAsync(m, 64, location(i=5), 0, s) == (R.CUDA_ERROR_INVALID_DEVICE,)
    assert cu.cuMemPrefetchAsync(m, 64, location(), 1, s) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuMemAdvise(m, 64, cu.CUmem_advise.CU_MEM_ADVISE_SET_ACCESSED_BY, location(i=9)) == \
        (R.CUDA_ERROR_INVALID_DEVICE,)
    assert len(env.prefetches) == 2 and len(env.advice) == 2


def test_a_captured_prefetch_is_an_empty_node(env):
    """During capture cuMemPrefetchAsync adds one EMPTY node (P-50) and runs at replay, not at capture."""
    m = int(ok(cu.cuMemAllocManaged(4096, 1)))
    s = ok(cu.cuStreamCreate(0))
    ok(cu.cuStreamBeginCapture(s, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    ok(cu.cuMemPrefetchAsync(m, 4096, location(), 0, s))
    g = ok(cu.cuStreamEndCapture(s))
    nodes, count = ok(cu.cuGraphGetNodes(g, 8))
    assert count == 1
    assert ok(cu.cuGraphNodeGetType(nodes[0])) == cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_EMPTY
    assert env.prefetches == [(m, 4096, 1, 0)]


def test_runtime_prefetch_and_advise(env):
    """cudaMemPrefetchAsync / cudaMemAdvise take a cudaMemLocation, as in CUDA 13."""
    m = rt.cudaMallocManaged(4096, rt.cudaMemAttachGlobal)[1]
    loc = rt.cudaMemLocation()
    loc.type, loc.id = rt.cudaMemLocationType.cudaMemLocationTypeDevice, 0
    assert rt.cudaMemPrefetchAsync(m, 4096, loc, 0, 0) == (rt.cudaError_t.cudaSuccess,)
    assert rt.cudaMemAdvise(m, 4096, rt.cudaMemoryAdvise.cudaMemAdviseSetAccessedBy, loc) == \
        (rt.cudaError_t.cudaSuccess,)
    assert rt.cudaDeviceSynchronize() == (rt.cudaError_t.cudaSuccess,)
    assert env.prefetches == [(m, 4096, 1, 0)] and env.advice == [(m, 4096, 5, 1, 0)]
    d = rt.cudaMalloc(64)[1]
    assert rt.cudaMemAdvise(d, 64, rt.cudaMemoryAdvise.cudaMemAdviseSetReadMostly, loc) == \
        (rt.cudaError_t.cudaErrorInvalidValue,)


# ------------------------------------------------------------------ pointer attributes
ALL = [A(v) for v in range(1, 23) if v != 5]


def attrs(ptr):
    """cuPointerGetAttributes of every attribute but P2P_TOKENS, as a dict."""
    return dict(zip(ALL, ok(cu.cuPointerGetAttributes(len(ALL), ALL, ptr))))


def test_pointer_attributes_of_device_memory(env):
    """cuMemAlloc memory: DEVICE type, its context and range, IPC capable, a unique buffer id, no pool."""
    d = ok(cu.cuMemAlloc(100))
    d2 = ok(cu.cuMemAlloc(100))
    v = attrs(int(d) + 10)
    ctx = ok(cu.cuCtxGetCurrent())
    assert int(v[A.CU_POINTER_ATTRIBUTE_CONTEXT]) == int(ctx)
    assert v[A.CU_POINTER_ATTRIBUTE_MEMORY_TYPE] == int(cu.CUmemorytype.CU_MEMORYTYPE_DEVICE)
    assert int(v[A.CU_POINTER_ATTRIBUTE_DEVICE_POINTER]) == int(d) + 10
    assert v[A.CU_POINTER_ATTRIBUTE_HOST_POINTER] == 0
    assert int(v[A.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR]) == int(d) and v[A.CU_POINTER_ATTRIBUTE_RANGE_SIZE] == 100
    assert v[A.CU_POINTER_ATTRIBUTE_IS_MANAGED] is False and v[A.CU_POINTER_ATTRIBUTE_MAPPED] is True
    assert v[A.CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE] is True
    assert v[A.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL] == 0
    assert int(v[A.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE]) == 0
    assert v[A.CU_POINTER_ATTRIBUTE_BUFFER_ID] != attrs(d2)[A.CU_POINTER_ATTRIBUTE_BUFFER_ID]
    assert isinstance(ok(cu.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_CONTEXT, d)), cu.CUcontext)
    assert cu.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_HOST_POINTER, d) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert ok(cu.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_BUFFER_ID, d)) == v[A.CU_POINTER_ATTRIBUTE_BUFFER_ID]


def test_pointer_attributes_of_host_managed_and_pool_memory(env):
    """Pinned memory is HOST with both pointers; managed memory DEVICE and managed; pool memory names its pool."""
    h = ok(cu.cuMemHostAlloc(64, cu.CU_MEMHOSTALLOC_DEVICEMAP))
    v = attrs(h)
    assert v[A.CU_POINTER_ATTRIBUTE_MEMORY_TYPE] == int(cu.CUmemorytype.CU_MEMORYTYPE_HOST)
    assert int(v[A.CU_POINTER_ATTRIBUTE_DEVICE_POINTER]) == h == v[A.CU_POINTER_ATTRIBUTE_HOST_POINTER]
    assert v[A.CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE] is False
    m = ok(cu.cuMemAllocManaged(64, 1))
    v = attrs(m)
    assert v[A.CU_POINTER_ATTRIBUTE_IS_MANAGED] is True and v[A.CU_POINTER_ATTRIBUTE_HOST_POINTER] == int(m)
    s = ok(cu.cuStreamCreate(0))
    p = ok(cu.cuMemAllocAsync(64, s))
    pool = ok(cu.cuDeviceGetMemPool(0))
    v = attrs(p)
    assert int(v[A.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE]) == int(pool)
    assert v[A.CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE] is False


def test_pointer_attributes_of_unknown_memory(env):
    """An address CUDA does not know: the single call fails, the plural one gives NULL defaults with SUCCESS."""
    buf = ctypes.create_string_buffer(16)
    p = ctypes.addressof(buf)
    assert cu.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) == (R.CUDA_ERROR_INVALID_VALUE, None)
    v = attrs(p)
    assert v[A.CU_POINTER_ATTRIBUTE_MEMORY_TYPE] == 0 and v[A.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL] == -2
    assert v[A.CU_POINTER_ATTRIBUTE_IS_MANAGED] is False and int(v[A.CU_POINTER_ATTRIBUTE_CONTEXT]) == 0
    with pytest.raises(RuntimeError, match="List is too small"):
        cu.cuPointerGetAttributes(3, [A.CU_POINTER_ATTRIBUTE_CONTEXT], p)
    assert cu.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_P2P_TOKENS, p)[0] == R.CUDA_ERROR_INVALID_VALUE


def test_pointer_attributes_of_vmm_memory(env):
    """VMM memory: RANGE_* the reservation, MAPPING_* the mapping, its access flags, no context."""
    va = ok(cu.cuMemAddressReserve(2 * G, 0, 0, 0))
    p = prop()
    p.requestedHandleTypes = cu.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
    h = ok(cu.cuMemCreate(G, p, 0))
    ok(cu.cuMemMap(int(va) + G, G, 0, h, 0))
    v = attrs(int(va) + G + 8)
    assert int(v[A.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR]) == int(va) and v[A.CU_POINTER_ATTRIBUTE_RANGE_SIZE] == 2 * G
    assert v[A.CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR] == int(va) + G and v[A.CU_POINTER_ATTRIBUTE_MAPPING_SIZE] == G
    assert v[A.CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES] == 1 and v[A.CU_POINTER_ATTRIBUTE_ACCESS_FLAGS] == 0
    assert int(v[A.CU_POINTER_ATTRIBUTE_CONTEXT]) == 0 and v[A.CU_POINTER_ATTRIBUTE_MAPPED] is True
    ok(cu.cuMemSetAccess(int(va) + G, G, [access()], 1))
    assert attrs(int(va) + G)[A.CU_POINTER_ATTRIBUTE_ACCESS_FLAGS] == 3
    assert attrs(int(va))[A.CU_POINTER_ATTRIBUTE_MEMORY_TYPE] == 0  # the unmapped half of the reservation


def test_runtime_pointer_attributes(env):
    """cudaPointerGetAttributes: device, managed, host and unregistered memory."""
    T = rt.cudaMemoryType
    d = rt.cudaMalloc(64)[1]
    m = rt.cudaMallocManaged(64, rt.cudaMemAttachGlobal)[1]
    h = rt.cudaHostAlloc(64, rt.cudaHostAllocMapped)[1]
    buf = ctypes.create_string_buffer(8)
    got = {k: rt.cudaPointerGetAttributes(p)[1] for k, p in (("d", d), ("m", m), ("h", h),
                                                             ("u", ctypes.addressof(buf)))}
    assert [got[k].type for k in "dmhu"] == [T.cudaMemoryTypeDevice, T.cudaMemoryTypeManaged, T.cudaMemoryTypeHost,
                                           T.cudaMemoryTypeUnregistered]
    assert got["d"].devicePointer == d and got["d"].hostPointer == 0
    assert got["m"].hostPointer == m and got["h"].devicePointer == h and got["h"].hostPointer == h
    assert got["u"].device == -2 and got["u"].devicePointer == 0 and got["d"].device == 0


# ------------------------------------------------------------------ virtual memory management
def test_vmm_round_trip_keeps_data_across_unmap_and_remap(env_alone):
    """Reserve, create, map, set access, write, unmap, remap elsewhere: the bytes come back; all freed at the end."""
    minimum = cu.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM
    assert ok(cu.cuMemGetAllocationGranularity(prop(), minimum)) == G
    free0 = ok(cu.cuMemGetInfo())[0]
    va = ok(cu.cuMemAddressReserve(2 * G, 0, 0, 0))
    assert int(va) % G == 0
    h = ok(cu.cuMemCreate(G, prop(), 0))
    assert ok(cu.cuMemGetInfo())[0] == free0 - G
    ok(cu.cuMemMap(va, G, 0, h, 0))
    assert cu.cuMemcpyHtoD(va, b"abcdef", 6) == (R.CUDA_ERROR_INVALID_VALUE,)  # no access yet
    ok(cu.cuMemSetAccess(va, G, [access()], 1))
    loc = location()
    assert ok(cu.cuMemGetAccess(loc, int(va) + 5)) == 3
    ok(cu.cuMemcpyHtoD(va, b"abcdef", 6))
    h2 = ok(cu.cuMemRetainAllocationHandle(int(va) + 100))
    assert int(h2) == int(h)
    ok(cu.cuMemRelease(h2))
    ok(cu.cuMemUnmap(va, G))
    assert cu.cuMemGetAccess(loc, va)[0] == R.CUDA_ERROR_INVALID_VALUE
    ok(cu.cuMemMap(int(va) + G, G, 0, h, 0))
    ok(cu.cuMemSetAccess(int(va) + G, G, [access()], 1))
    out = ctypes.create_string_buffer(6)
    ok(cu.cuMemcpyDtoH(out, int(va) + G, 6))
    assert out.raw == b"abcdef"
    ok(cu.cuMemRelease(h))  # the mapping keeps the memory
    assert ok(cu.cuMemGetInfo())[0] == free0 - G
    ok(cu.cuMemUnmap(int(va) + G, G))
    assert ok(cu.cuMemGetInfo())[0] == free0
    ok(cu.cuMemAddressFree(va, 2 * G))
    assert cu.cuMemAddressFree(va, 2 * G) == (R.CUDA_ERROR_INVALID_VALUE,)


def test_two_mappings_of_one_handle_share_their_bytes(env):
    """One handle mapped at two addresses: a write through one is read through the other, and by a kernel view."""
    va = ok(cu.cuMemAddressReserve(2 * G, 0, 0, 0))
    h = ok(cu.cuMemCreate(G, prop(), 0))
    ok(cu.cuMemMap(va, G, 0, h, 0))
    ok(cu.cuMemMap(int(va) + G, G, 0, h, 0))
    ok(cu.cuMemSetAccess(va, 2 * G, [access()], 1))
    ok(cu.cuMemcpyHtoD(int(va) + 64, b"shared", 6))
    out = ctypes.create_string_buffer(6)
    ok(cu.cuMemcpyDtoH(out, int(va) + G + 64, 6))
    assert out.raw == b"shared"
    assert bytes(env.memory.kernel_view(int(va) + G + 64, 6)) == b"shared"
    ok(cu.cuMemUnmap(va, 2 * G))  # both mappings at once: a range made of whole mappings
    ok(cu.cuMemRelease(h))
    assert env.memory.in_use == 0 and env.memory.mappings_in(int(va), 2 * G) == []


def test_vmm_properties_round_trip(env):
    """cuMemGetAllocationPropertiesFromHandle gives back the nested CUmemLocation and the allocation flags."""
    p = prop()
    p.allocFlags.gpuDirectRDMACapable = 1
    h = ok(cu.cuMemCreate(G, p, 0))
    q = ok(cu.cuMemGetAllocationPropertiesFromHandle(h))
    assert q.type == cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    assert q.location.type == cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE and q.location.id == 0
    assert q.allocFlags.gpuDirectRDMACapable == 1
    ok(cu.cuMemRelease(h))
    assert cu.cuMemGetAllocationPropertiesFromHandle(h)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuMemRelease(h) == (R.CUDA_ERROR_INVALID_VALUE,)


def test_vmm_bad_arguments_change_nothing(env):
    """Each bad argument gets its code, and the reservation, handle and mappings stay as they were."""
    assert cu.cuMemAddressReserve(G + 1, 0, 0, 0)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuMemAddressReserve(G, 3, 0, 0)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuMemAddressReserve(G, 0, 0, 1)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuMemCreate(G + 4096, prop(), 0)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuMemCreate(G, None, 0)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuMemCreate(G, prop(7), 0)[0] == R.CUDA_ERROR_INVALID_DEVICE
    assert cu.cuMemCreate(G, cu.CUmemAllocationProp(), 0)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuMemGetAllocationGranularity(prop(), 5)[0] == R.CUDA_ERROR_INVALID_VALUE
    va = ok(cu.cuMemAddressReserve(2 * G, 0, 0, 0))
    h = ok(cu.cuMemCreate(G, prop(), 0))
    assert cu.cuMemMap(va, G, G, h, 0) == (R.CUDA_ERROR_INVALID_VALUE,)  # offset + size past the memory
    assert cu.cuMemMap(int(va) + 4096, G, 0, h, 0) == (R.CUDA_ERROR_INVALID_VALUE,)  # not granular
    assert cu.cuMemMap(int(va) + 2 * G, G, 0, h, 0) == (R.CUDA_ERROR_INVALID_VALUE,)  # outside the reservation
    ok(cu.cuMemMap(va, G, 0, h, 0))
    assert cu.cuMemMap(va, G, 0, h, 0) == (R.CUDA_ERROR_INVALID_VALUE,)  # already mapped
    assert cu.cuMemUnmap(va, 2 * G) == (R.CUDA_ERROR_INVALID_VALUE,)  # a hole
    assert cu.cuMemSetAccess(va, G, [access(3)], 1) == (R.CUDA_ERROR_INVALID_DEVICE,)
    assert cu.cuMemSetAccess(va, G, [access(0, 2)], 1) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuMemAddressFree(va, 2 * G) == (R.CUDA_ERROR_INVALID_VALUE,)  # still mapped
    assert cu.cuMemRetainAllocationHandle(int(va) + G)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert ok(cu.cuMemGetAccess(location(), va)) == 0
    assert len(env.memory.mappings_in(int(va), 2 * G)) == 1 and int(va) in env.reservations


def test_without_virtual_memory_the_calls_are_not_supported(env):
    """virtual_memory=False: granularity, reserve and create return NOT_SUPPORTED and reserve nothing."""
    with off(virtual_memory=False) as d:
        assert cu.cuMemGetAllocationGranularity(prop(), 0)[0] == R.CUDA_ERROR_NOT_SUPPORTED
        assert cu.cuMemAddressReserve(G, 0, 0, 0)[0] == R.CUDA_ERROR_NOT_SUPPORTED
        assert cu.cuMemCreate(G, prop(), 0)[0] == R.CUDA_ERROR_NOT_SUPPORTED
        assert d.reservations == {} and d.memory.in_use == 0


def test_vmm_creation_is_refused_in_a_global_capture(env):
    """cuMemCreate during a GLOBAL capture is 900 and invalidates it (potentially unsafe, P-51)."""
    s = ok(cu.cuStreamCreate(0))
    ok(cu.cuStreamBeginCapture(s, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    assert cu.cuMemCreate(G, prop(), 0)[0] == R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
    assert env.memory.in_use == 0
    assert cu.cuStreamEndCapture(s)[0] == R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
