"""Several devices (issue 10): peer access, peer copies and PCI identity on the driver, _v2 and runtime faces."""
from __future__ import annotations

import pytest

import simcuda
from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings import runtime as rt
from simcuda.faces.bindings._v2 import driver as v2

R = cu.CUresult
E = rt.cudaError_t


@pytest.fixture
def two(monkeypatch):
    """A fresh driver with two devices, current, initialised, with device 0's primary context current."""
    monkeypatch.delenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", raising=False)
    d = simcuda.Driver(devices=[simcuda.DeviceSpec(), simcuda.DeviceSpec()])
    old = simcuda.use(d)
    assert cu.cuInit(0) == (R.CUDA_SUCCESS,)
    c0 = cu.cuDevicePrimaryCtxRetain(0)[1]
    c1 = cu.cuDevicePrimaryCtxRetain(1)[1]
    cu.cuCtxSetCurrent(c0)
    yield d, c0, c1
    simcuda.use(old)


def _alloc(ctx, data: bytes):
    """A device allocation in ``ctx`` holding ``data`` (device 0's context is current again afterwards)."""
    cur = cu.cuCtxGetCurrent()[1]
    cu.cuCtxSetCurrent(ctx)
    p = cu.cuMemAlloc(len(data))[1]
    assert cu.cuMemcpyHtoD(p, data, len(data)) == (R.CUDA_SUCCESS,)
    cu.cuCtxSetCurrent(cur)
    return p


def _read(p, n):
    buf = bytearray(n)
    assert cu.cuMemcpyDtoH(buf, p, n) == (R.CUDA_SUCCESS,)
    return bytes(buf)


def test_can_access_peer_is_one_between_devices_and_zero_for_itself(two):
    """cuDeviceCanAccessPeer: 1 for two different devices, 0 for a device and itself, 101 for a bad ordinal."""
    assert cu.cuDeviceCanAccessPeer(0, 1) == (R.CUDA_SUCCESS, 1)
    assert cu.cuDeviceCanAccessPeer(1, 1) == (R.CUDA_SUCCESS, 0)
    assert cu.cuDeviceCanAccessPeer(0, 2) == (R.CUDA_ERROR_INVALID_DEVICE, None)
    assert v2.device_can_access_peer(1, 0) == 1
    assert rt.cudaDeviceCanAccessPeer(0, 1) == (E.cudaSuccess, 1)


def test_p2p_attributes_of_a_link_and_the_same_device_refused(two):
    """cuDeviceGetP2PAttribute: values for a link; INVALID_DEVICE for the same device; INVALID_VALUE unknown attr."""
    A = cu.CUdevice_P2PAttribute
    assert cu.cuDeviceGetP2PAttribute(A.CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1) == (R.CUDA_SUCCESS, 1)
    assert cu.cuDeviceGetP2PAttribute(A.CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 1, 0) == (R.CUDA_SUCCESS, 0)
    same = cu.cuDeviceGetP2PAttribute(A.CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 0)
    assert same == (R.CUDA_ERROR_INVALID_DEVICE, None)
    assert cu.cuDeviceGetP2PAttribute(99, 0, 1)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert rt.cudaDeviceGetP2PAttribute(rt.cudaDeviceP2PAttr.cudaDevP2PAttrNativeAtomicSupported, 0, 1) == (
        E.cudaSuccess, 1)


def test_enable_disable_peer_access_codes_and_state(two):
    """Enable once (704 after), disable once (705 after); 201 for the current context itself; 1 for flags."""
    d, c0, c1 = two
    assert cu.cuCtxEnablePeerAccess(c1, 1) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert not d.peer_access_enabled(int(c0), int(c1))
    assert cu.cuCtxEnablePeerAccess(c0, 0) == (R.CUDA_ERROR_INVALID_CONTEXT,)
    assert cu.cuCtxEnablePeerAccess(c1, 0) == (R.CUDA_SUCCESS,)
    assert d.peer_access_enabled(int(c0), int(c1)) and not d.peer_access_enabled(int(c1), int(c0))
    assert cu.cuCtxEnablePeerAccess(c1, 0) == (R.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,)
    assert cu.cuCtxDisablePeerAccess(c1) == (R.CUDA_SUCCESS,)
    assert not d.peer_access_enabled(int(c0), int(c1))
    assert cu.cuCtxDisablePeerAccess(c1) == (R.CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,)
    assert cu.cuCtxDisablePeerAccess(0) == (R.CUDA_ERROR_INVALID_CONTEXT,)


def test_peer_access_between_two_contexts_of_one_device_is_unsupported(two):
    """A second context on device 0 is not a peer of the first: PEER_ACCESS_UNSUPPORTED (217), nothing enabled."""
    d, c0, _c1 = two
    other = cu.cuCtxCreate(None, 0, 0)[1]  # now current
    assert cu.cuCtxEnablePeerAccess(c0, 0) == (R.CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,)
    assert not d.peer_access_enabled(int(other), int(c0))


def test_enable_without_a_current_context_is_invalid_context(two):
    """No current context: INVALID_CONTEXT for enable and disable."""
    _d, _c0, c1 = two
    cu.cuCtxSetCurrent(0)
    assert cu.cuCtxEnablePeerAccess(c1, 0) == (R.CUDA_ERROR_INVALID_CONTEXT,)
    assert cu.cuCtxDisablePeerAccess(c1) == (R.CUDA_ERROR_INVALID_CONTEXT,)


def test_v2_face_raises_the_peer_codes(two):
    """The _v2 face raises the same codes as exceptions."""
    _d, _c0, c1 = two
    v2.ctx_enable_peer_access(int(c1), 0)
    with pytest.raises(v2.PeerAccessAlreadyEnabledError):
        v2.ctx_enable_peer_access(int(c1), 0)
    v2.ctx_disable_peer_access(int(c1))
    with pytest.raises(v2.PeerAccessNotEnabledError):
        v2.ctx_disable_peer_access(int(c1))


def test_memcpy_peer_copies_between_devices(two):
    """cuMemcpyPeer and cuMemcpyPeerAsync copy device 0 memory into device 1 memory; a NULL context is 201."""
    _d, c0, c1 = two
    a = _alloc(c0, b"0123456789abcdef")
    b = _alloc(c1, bytes(16))
    assert cu.cuMemcpyPeer(b, c1, a, c0, 8) == (R.CUDA_SUCCESS,)
    assert _read(b, 16) == b"01234567" + bytes(8)
    s = cu.cuStreamCreate(1)[1]
    assert cu.cuMemcpyPeerAsync(b, c1, a, c0, 16, s) == (R.CUDA_SUCCESS,)
    assert cu.cuStreamSynchronize(s) == (R.CUDA_SUCCESS,)
    assert _read(b, 16) == b"0123456789abcdef"
    c = _alloc(c1, bytes(16))
    assert cu.cuMemcpyPeer(c, 0, a, c0, 16) == (R.CUDA_ERROR_INVALID_CONTEXT,)
    assert cu.cuMemcpyPeer(c, c1, a, c0, 64)[0] == R.CUDA_ERROR_INVALID_VALUE  # past the allocations
    assert _read(c, 16) == bytes(16)
    v2.memcpy_peer(int(c), int(c1), int(a), int(c0), 4)
    assert _read(c, 4) == b"0123"


def test_memcpy_peer_async_in_capture_is_a_memcpy_node_that_copies_at_launch(two):
    """During capture cuMemcpyPeerAsync adds a MEMCPY node (spec 3.8) and copies nothing until the graph runs."""
    _d, c0, c1 = two
    a = _alloc(c0, b"peer-copy-bytes!")
    b = _alloc(c1, bytes(16))
    s = cu.cuStreamCreate(1)[1]
    assert cu.cuStreamBeginCapture(s, 0) == (R.CUDA_SUCCESS,)
    assert cu.cuMemcpyPeerAsync(b, c1, a, c0, 16, s) == (R.CUDA_SUCCESS,)
    g = cu.cuStreamEndCapture(s)[1]
    assert _read(b, 16) == bytes(16)
    nodes = cu.cuGraphGetNodes(g, 1)[1]
    assert cu.cuGraphGetNodes(g)[2] == 1  # one node in all
    assert [cu.cuGraphNodeGetType(n)[1] for n in nodes] == [cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEMCPY]
    x = cu.cuGraphInstantiate(g, 0)[1]
    assert cu.cuGraphLaunch(x, s) == (R.CUDA_SUCCESS,)
    cu.cuStreamSynchronize(s)
    assert _read(b, 16) == b"peer-copy-bytes!"


def test_sync_memcpy_peer_during_a_global_capture_on_the_legacy_stream_rules(two):
    """The synchronous cuMemcpyPeer follows the synchronous-copy rules (spec 6): 906 next to a blocking capture."""
    _d, c0, c1 = two
    a, b = _alloc(c0, b"x" * 8), _alloc(c1, bytes(8))
    s = cu.cuStreamCreate(0)[1]  # blocking
    cu.cuStreamBeginCapture(s, 0)
    assert cu.cuMemcpyPeer(b, c1, a, c0, 8) == (R.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,)
    assert cu.cuStreamEndCapture(s)[0] == R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
    assert _read(b, 8) == bytes(8)


def test_pci_bus_id_round_trip_on_every_face(two):
    """Each device has its own bus id (1 + ordinal), the same as PCI_BUS_ID, and GetByPCIBusId finds it."""
    A = cu.CUdevice_attribute
    assert cu.cuDeviceGetPCIBusId(13, 1) == (R.CUDA_SUCCESS, b"0000:02:00.0\0")
    assert cu.cuDeviceGetPCIBusId(20, 0) == (R.CUDA_SUCCESS, b"0000:01:00.0\0" + b" " * 7)
    assert cu.cuDeviceGetPCIBusId(5, 0) == (R.CUDA_SUCCESS, b"0000\0")
    assert cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 1) == (R.CUDA_SUCCESS, 2)
    assert cu.cuDeviceGetPCIBusId(13, 2) == (R.CUDA_ERROR_INVALID_DEVICE, None)
    assert cu.cuDeviceGetPCIBusId(0, 0) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert int(cu.cuDeviceGetByPCIBusId(b"0000:02:00.0")[1]) == 1
    assert int(cu.cuDeviceGetByPCIBusId(b"02:00.0")[1]) == 1
    assert cu.cuDeviceGetByPCIBusId(b"0000:09:00.0") == (R.CUDA_ERROR_INVALID_DEVICE, None)
    assert cu.cuDeviceGetByPCIBusId(b"nonsense") == (R.CUDA_ERROR_INVALID_VALUE, None)
    with pytest.raises(TypeError):
        cu.cuDeviceGetByPCIBusId("0000:01:00.0")
    assert v2.device_get_pci_bus_id(13, 1) == b"0000:02:00.0"
    assert v2.device_get_by_pci_bus_id(b"0000:01:00.0") == 0
    assert rt.cudaDeviceGetPCIBusId(13, 1) == (E.cudaSuccess, b"0000:02:00.0\0")
    assert rt.cudaDeviceGetByPCIBusId(b"0000:02:00.0") == (E.cudaSuccess, 1)
    p = rt.cudaGetDeviceProperties(1)[1]
    assert p.pciBusID == 2


def test_runtime_peer_access_uses_primary_contexts(two):
    """cudaDeviceEnablePeerAccess links the current device's context to the peer's primary context; 704, 705, 101."""
    d, c0, c1 = two
    assert rt.cudaSetDevice(0) == (E.cudaSuccess,)
    assert rt.cudaDeviceEnablePeerAccess(1, 0) == (E.cudaSuccess,)
    assert d.peer_access_enabled(int(c0), int(c1))
    assert rt.cudaDeviceEnablePeerAccess(1, 0) == (E.cudaErrorPeerAccessAlreadyEnabled,)
    assert rt.cudaDeviceEnablePeerAccess(0, 0) == (E.cudaErrorInvalidDevice,)
    assert rt.cudaDeviceEnablePeerAccess(5, 0) == (E.cudaErrorInvalidDevice,)
    assert rt.cudaDeviceDisablePeerAccess(1) == (E.cudaSuccess,)
    assert rt.cudaDeviceDisablePeerAccess(1) == (E.cudaErrorPeerAccessNotEnabled,)
    assert not d.peer_access_enabled(int(c0), int(c1))


def test_runtime_memcpy_peer_and_async(two):
    """cudaMemcpyPeer / cudaMemcpyPeerAsync copy between the devices' memory; a bad device is 101."""
    _d, c0, c1 = two
    a = _alloc(c0, b"runtime-peer-cp!")
    b = _alloc(c1, bytes(16))
    assert rt.cudaMemcpyPeer(int(b), 1, int(a), 0, 8) == (E.cudaSuccess,)
    assert _read(b, 16) == b"runtime-" + bytes(8)
    assert rt.cudaMemcpyPeerAsync(int(b), 1, int(a), 0, 16, 0) == (E.cudaSuccess,)
    rt.cudaDeviceSynchronize()
    assert _read(b, 16) == b"runtime-peer-cp!"
    assert rt.cudaMemcpyPeer(int(b), 3, int(a), 0, 8) == (E.cudaErrorInvalidDevice,)


def test_single_device_driver_answers_peer_calls_as_one_gpu(drv):
    """With one device there is no peer: CanAccessPeer(0, 0) is 0 and device 1 does not exist."""
    cu.cuInit(0)
    assert cu.cuDeviceCanAccessPeer(0, 0) == (R.CUDA_SUCCESS, 0)
    assert cu.cuDeviceCanAccessPeer(0, 1) == (R.CUDA_ERROR_INVALID_DEVICE, None)


@pytest.mark.simcuda(devices=3)
def test_pytest_marker_gives_the_test_several_devices(patched_cuda):
    """``@pytest.mark.simcuda(devices=3)``: the test's driver has three devices."""
    from cuda.bindings import driver as d
    d.cuInit(0)
    assert d.cuDeviceGetCount() == (d.CUresult.CUDA_SUCCESS, 3)
    assert len(patched_cuda.devices) == 3


def test_device_properties_name_ends_at_the_first_nul(two):
    """cudaGetDeviceProperties().name is the name itself, as the real char[256] getter returns it."""
    p = rt.cudaGetDeviceProperties(1)[1]
    assert p.name == simcuda.DeviceSpec().name.encode() and b"\0" not in p.name


def test_get_local_runtime_version_needs_no_device(monkeypatch):
    """getLocalRuntimeVersion answers CUDART_VERSION with no cuInit, even on a driver without devices."""
    d = simcuda.Driver(available=False)
    old = simcuda.use(d)
    try:
        assert rt.getLocalRuntimeVersion() == (E.cudaSuccess, rt.CUDART_VERSION)
        assert rt.cudaRuntimeGetVersion() == (E.cudaSuccess, rt.CUDART_VERSION)
    finally:
        simcuda.use(old)
