"""``cuMemcpyBatchAsync`` / ``cudaMemcpyBatchAsync`` (issue 10, P-41): copies outside a capture, 900 without
invalidation inside one, and the attribute rules."""
from __future__ import annotations

import ctypes

import pytest

from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings import runtime as rt

R = cu.CUresult
ORDER = cu.CUmemcpySrcAccessOrder


@pytest.fixture
def env(drv):
    """Device 0's primary context current, a non-blocking stream and two 16-byte allocations."""
    cu.cuInit(0)
    cu.cuCtxSetCurrent(cu.cuDevicePrimaryCtxRetain(0)[1])
    s = cu.cuStreamCreate(1)[1]
    a, b = cu.cuMemAlloc(16)[1], cu.cuMemAlloc(16)[1]
    cu.cuMemcpyHtoD(a, b"0123456789abcdef", 16)
    cu.cuMemsetD8(b, 0, 16)
    return s, a, b


def _attr(order=ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM):
    a = cu.CUmemcpyAttributes()
    a.srcAccessOrder = order
    return a


def _read(p, n=16):
    buf = bytearray(n)
    cu.cuMemcpyDtoH(buf, p, n)
    return bytes(buf)


def test_batch_copies_device_and_host_sides_outside_capture(env):
    """Two copies with one attribute entry: device to device and host to device, in stream order."""
    s, a, b = env
    host = ctypes.create_string_buffer(b"HOST", 4)
    P = cu.CUdeviceptr  # the wrapper takes CUdeviceptr items (a unified address may be a host one)
    dsts = [b, P(int(b) + 8)]
    srcs = [a, P(ctypes.addressof(host))]
    assert cu.cuMemcpyBatchAsync(dsts, srcs, [8, 4], 2, [_attr()], [0], 1, s) == (R.CUDA_SUCCESS,)
    cu.cuStreamSynchronize(s)
    assert _read(b) == b"01234567HOST" + bytes(4)


def test_during_api_call_host_source_is_read_at_the_call(drv):
    """A DURING_API_CALL host source is read during the call: a later change does not reach the copy."""
    d = drv
    cu.cuInit(0)
    cu.cuCtxSetCurrent(cu.cuDevicePrimaryCtxRetain(0)[1])
    s = cu.cuStreamCreate(1)[1]
    b = cu.cuMemAlloc(4)[1]
    host = ctypes.create_string_buffer(b"old!", 4)
    d.progression = "manual"
    try:
        assert cu.cuMemcpyBatchAsync([b], [cu.CUdeviceptr(ctypes.addressof(host))], [4], 1,
                                     [_attr(ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL)], [0], 1, s)[0] == 0
        ctypes.memmove(host, b"new!", 4)
        d.advance()
    finally:
        d.progression = "immediate"
    assert _read(b, 4) == b"old!"


def test_attribute_rules_are_invalid_value_and_copy_nothing(env):
    """No attributes, a first index other than 0, unordered indices, an INVALID order, the legacy stream: 1."""
    s, a, b = env
    cases = [
        ([b], [a], [4], 1, [], [], 0, s),
        ([b] * 2, [a] * 2, [4, 4], 2, [_attr()], [1], 1, s),
        ([b] * 2, [a] * 2, [4, 4], 2, [_attr(), _attr()], [0, 0], 2, s),
        ([b], [a], [4], 1, [_attr(ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_INVALID)], [0], 1, s),
        ([b], [a], [4], 1, [_attr()], [0], 1, 0),
        ([b], [a], [64], 1, [_attr()], [0], 1, s),
        ([], [], [], 0, [_attr()], [0], 1, s),
    ]
    for args in cases:
        assert cu.cuMemcpyBatchAsync(*args) == (R.CUDA_ERROR_INVALID_VALUE,), args
    assert _read(b) == bytes(16)
    with pytest.raises(RuntimeError, match="List is too small"):
        cu.cuMemcpyBatchAsync([b], [a], [4], 2, [_attr()], [0], 1, s)


def test_in_capture_900_and_the_capture_goes_on(env):
    """During capture: 900, no node, the capture still ACTIVE; EndCapture gives a graph without the copy."""
    s, a, b = env
    assert cu.cuStreamBeginCapture(s, 0) == (R.CUDA_SUCCESS,)
    assert cu.cuMemcpyBatchAsync([b], [a], [16], 1, [_attr()], [0], 1, s) == (R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
    st = cu.CUstreamCaptureStatus
    assert cu.cuStreamIsCapturing(s) == (R.CUDA_SUCCESS, st.CU_STREAM_CAPTURE_STATUS_ACTIVE)
    assert cu.cuMemcpyAsync(b, a, 16, s) == (R.CUDA_SUCCESS,)
    err, g = cu.cuStreamEndCapture(s)
    assert err == R.CUDA_SUCCESS and cu.cuGraphGetNodes(g)[2] == 1
    assert _read(b) == bytes(16)


def test_in_an_invalidated_capture_901(env):
    """On a stream whose capture is INVALIDATED the batch answers 901, as every stream operation."""
    s, a, b = env
    cu.cuStreamBeginCapture(s, 0)
    assert cu.cuStreamQuery(s)[0] == R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED  # invalidates
    assert cu.cuMemcpyBatchAsync([b], [a], [16], 1, [_attr()], [0], 1, s) == (R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,)
    cu.cuStreamEndCapture(s)


def test_runtime_twin(env):
    """cudaMemcpyBatchAsync copies with cudaMemcpyAttributes and refuses in capture with 900 too."""
    s, a, b = env
    at = rt.cudaMemcpyAttributes()
    at.srcAccessOrder = rt.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderStream
    assert rt.cudaMemcpyBatchAsync([int(b)], [int(a)], [4], 1, [at], [0], 1, s) == (rt.cudaError_t.cudaSuccess,)
    cu.cuStreamSynchronize(s)
    assert _read(b, 4) == b"0123"
    cu.cuStreamBeginCapture(s, 0)
    assert rt.cudaMemcpyBatchAsync([int(b)], [int(a)], [4], 1, [at], [0], 1, s) == (
        rt.cudaError_t.cudaErrorStreamCaptureUnsupported,)
    assert cu.cuStreamEndCapture(s)[0] == R.CUDA_SUCCESS
