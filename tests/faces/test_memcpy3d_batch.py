"""``cuMemcpy3DBatchAsync`` / ``cudaMemcpy3DBatchAsync`` (issue 10, P-41): pointer-to-pointer 3D copies outside a
capture, 900 without invalidation inside one, and the op rules."""
from __future__ import annotations

import ctypes

import pytest

from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings import runtime as rt

R = cu.CUresult
ORDER = cu.CUmemcpySrcAccessOrder
PTR = cu.CUmemcpy3DOperandType.CU_MEMCPY_OPERAND_TYPE_POINTER
ARRAY = cu.CUmemcpy3DOperandType.CU_MEMCPY_OPERAND_TYPE_ARRAY
SRC = bytes(range(64))


@pytest.fixture
def env(drv):
    """Device 0's primary context current, a non-blocking stream and two 64-byte allocations (0..63 and zeros)."""
    cu.cuInit(0)
    cu.cuCtxSetCurrent(cu.cuDevicePrimaryCtxRetain(0)[1])
    s = cu.cuStreamCreate(1)[1]
    a, b = cu.cuMemAlloc(64)[1], cu.cuMemAlloc(64)[1]
    cu.cuMemcpyHtoD(a, SRC, 64)
    cu.cuMemsetD8(b, 0, 64)
    return s, a, b


def _op(src, dst, extent=(2, 2, 2), src_rows=(8, 4), dst_rows=(0, 0), order=ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM):
    """A pointer-to-pointer op: ``src_rows`` / ``dst_rows`` are (rowLength, layerHeight)."""
    o = cu.CUDA_MEMCPY3D_BATCH_OP()
    for side, p, (row, layer) in ((o.src, src, src_rows), (o.dst, dst, dst_rows)):
        side.type = PTR
        side.op.ptr.ptr = p
        side.op.ptr.rowLength = row
        side.op.ptr.layerHeight = layer
    o.extent.width, o.extent.height, o.extent.depth = extent
    o.srcAccessOrder = order
    return o


def _read(p, n=64):
    buf = bytearray(n)
    cu.cuMemcpyDtoH(buf, p, n)
    return bytes(buf)


def test_nested_operands_read_and_write():
    """The op's nested src/dst operands, extent and array offset are structs whose fields keep what is set."""
    o = _op(cu.CUdeviceptr(0x1000), cu.CUdeviceptr(0x2000))
    assert isinstance(o.src, cu.CUmemcpy3DOperand) and isinstance(o.extent, cu.CUextent3D)
    assert o.src.type == PTR and int(o.src.op.ptr.ptr) == 0x1000 and o.src.op.ptr.rowLength == 8
    assert int(o.dst.op.ptr.ptr) == 0x2000 and o.dst.op.ptr.layerHeight == 0
    assert isinstance(o.src.op.array.offset, cu.CUoffset3D) and o.src.op.array.offset.z == 0
    assert o.extent.depth == 2


def test_pitched_3d_copies_move_the_right_bytes(env):
    """Two ops in one batch: a 2x2x2 box out of an 8x4 pitched source packed, and a host-to-device row copy."""
    s, a, b = env
    host = ctypes.create_string_buffer(b"HOST", 4)
    ops = [_op(a, b), _op(cu.CUdeviceptr(ctypes.addressof(host)), cu.CUdeviceptr(int(b) + 16), (4, 1, 1), (0, 0))]
    assert cu.cuMemcpy3DBatchAsync(2, ops, 0, s) == (R.CUDA_SUCCESS,)
    cu.cuStreamSynchronize(s)
    assert _read(b, 20) == bytes([0, 1, 8, 9, 32, 33, 40, 41]) + bytes(8) + b"HOST"


def test_destination_pitch_spreads_the_rows(env):
    """A destination rowLength / layerHeight larger than the extent leaves the gaps untouched."""
    s, a, b = env
    assert cu.cuMemcpy3DBatchAsync(1, [_op(a, b, (2, 1, 2), (0, 0), (4, 2))], 0, s) == (R.CUDA_SUCCESS,)
    cu.cuStreamSynchronize(s)
    assert _read(b, 12) == bytes([0, 1, 0, 0, 0, 0, 0, 0, 2, 3, 0, 0])


def test_bad_input_is_rejected_and_copies_nothing(env):
    """Legacy stream, no op, flags, INVALID order, zero extent, short rowLength, bad range: 1; an array: 801."""
    s, a, b = env
    bad_type = _op(a, b)
    bad_type.src.type = 0
    arr = _op(a, b)
    arr.dst.type = ARRAY
    bad_flags = _op(a, b)
    bad_flags.flags = 4
    cases = [
        ((1, [_op(a, b)], 0, 0), R.CUDA_ERROR_INVALID_VALUE),
        ((0, [], 0, s), R.CUDA_ERROR_INVALID_VALUE),
        ((1, [_op(a, b)], 1, s), R.CUDA_ERROR_INVALID_VALUE),
        ((1, [_op(a, b, order=ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_INVALID)], 0, s), R.CUDA_ERROR_INVALID_VALUE),
        ((1, [bad_flags], 0, s), R.CUDA_ERROR_INVALID_VALUE),
        ((1, [bad_type], 0, s), R.CUDA_ERROR_INVALID_VALUE),
        ((1, [_op(a, b, (2, 0, 2))], 0, s), R.CUDA_ERROR_INVALID_VALUE),
        ((1, [_op(a, b, (4, 2, 2), (2, 4))], 0, s), R.CUDA_ERROR_INVALID_VALUE),
        ((1, [_op(a, b, (8, 4, 4), (8, 4))], 0, s), R.CUDA_ERROR_INVALID_VALUE),  # 128 bytes from 64
        ((2, [_op(a, b), arr], 0, s), R.CUDA_ERROR_NOT_SUPPORTED),
    ]
    for args, code in cases:
        assert cu.cuMemcpy3DBatchAsync(*args) == (code,), args
    cu.cuStreamSynchronize(s)
    assert _read(b) == bytes(64)
    with pytest.raises(RuntimeError, match="List is too small"):
        cu.cuMemcpy3DBatchAsync(2, [_op(a, b)], 0, s)
    with pytest.raises(TypeError, match="opList"):
        cu.cuMemcpy3DBatchAsync(1, [1], 0, s)


def test_during_api_call_host_source_is_read_at_the_call(drv):
    """A DURING_API_CALL host source is read during the call: a later change does not reach the copy."""
    cu.cuInit(0)
    cu.cuCtxSetCurrent(cu.cuDevicePrimaryCtxRetain(0)[1])
    s = cu.cuStreamCreate(1)[1]
    b = cu.cuMemAlloc(4)[1]
    host = ctypes.create_string_buffer(b"old!", 4)
    op = _op(cu.CUdeviceptr(ctypes.addressof(host)), b, (2, 2, 1), (0, 0),
             order=ORDER.CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL)
    drv.progression = "manual"
    try:
        assert cu.cuMemcpy3DBatchAsync(1, [op], 0, s) == (R.CUDA_SUCCESS,)
        ctypes.memmove(host, b"new!", 4)
        drv.advance()
    finally:
        drv.progression = "immediate"
    assert _read(b, 4) == b"old!"


def test_in_capture_900_and_the_capture_goes_on(env):
    """During capture: 900, no node, the capture still ACTIVE; EndCapture gives a graph without the batch."""
    s, a, b = env
    assert cu.cuStreamBeginCapture(s, 0) == (R.CUDA_SUCCESS,)
    assert cu.cuMemcpy3DBatchAsync(1, [_op(a, b)], 0, s) == (R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
    st = cu.CUstreamCaptureStatus
    assert cu.cuStreamIsCapturing(s) == (R.CUDA_SUCCESS, st.CU_STREAM_CAPTURE_STATUS_ACTIVE)
    assert cu.cuMemcpyAsync(b, a, 16, s) == (R.CUDA_SUCCESS,)
    err, g = cu.cuStreamEndCapture(s)
    assert err == R.CUDA_SUCCESS and cu.cuGraphGetNodes(g)[2] == 1
    assert _read(b) == bytes(64)


def test_in_an_invalidated_capture_901(env):
    """On a stream whose capture is INVALIDATED the 3D batch answers 901, as every stream operation."""
    s, a, b = env
    cu.cuStreamBeginCapture(s, 0)
    assert cu.cuStreamQuery(s)[0] == R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED  # invalidates
    assert cu.cuMemcpy3DBatchAsync(1, [_op(a, b)], 0, s) == (R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,)
    cu.cuStreamEndCapture(s)


def test_runtime_twin(env):
    """cudaMemcpy3DBatchAsync copies with cudaMemcpy3DBatchOp and refuses in capture with 900 too."""
    s, a, b = env
    o = rt.cudaMemcpy3DBatchOp()
    for side, p, row, layer in ((o.src, int(a), 8, 4), (o.dst, int(b), 0, 0)):
        side.type = rt.cudaMemcpy3DOperandType.cudaMemcpyOperandTypePointer
        side.op.ptr.ptr = p
        side.op.ptr.rowLength = row
        side.op.ptr.layerHeight = layer
    o.extent.width, o.extent.height, o.extent.depth = 2, 2, 2
    o.srcAccessOrder = rt.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderStream
    assert rt.cudaMemcpy3DBatchAsync(1, [o], 0, s) == (rt.cudaError_t.cudaSuccess,)
    cu.cuStreamSynchronize(s)
    assert _read(b, 8) == bytes([0, 1, 8, 9, 32, 33, 40, 41])
    assert rt.cudaMemcpy3DBatchAsync(1, [o], 0, 0) == (rt.cudaError_t.cudaErrorInvalidValue,)
    cu.cuStreamBeginCapture(s, 0)
    assert rt.cudaMemcpy3DBatchAsync(1, [o], 0, s) == (rt.cudaError_t.cudaErrorStreamCaptureUnsupported,)
    assert cu.cuStreamEndCapture(s)[0] == R.CUDA_SUCCESS
