"""``kernelParams`` forms at the edges of what cuda-bindings 13.5 takes (issue 17, found by testing the Python face
against NVIDIA's binding on the native route): a tuple subclass of ``(values, types)`` is taken, a user's own
``IntEnum`` with type ``None`` and a NULL ``c_void_p`` are the binding's ``TypeError``, a strided numpy array is
numpy's ``ValueError``, and a kernel node's read-back ``kernelParams`` hold the bytes the node was given."""
from __future__ import annotations

import collections
import ctypes as C
import enum
import struct
import subprocess
import sys

import pytest

from simcuda.faces import native
from simcuda.faces.bindings import _real_nvrtc, nvrtc
from simcuda.faces.bindings import driver as cuda

np = pytest.importorskip("numpy")
from tests.kernels.test_real_programs import arch, check, drv  # noqa: E402, F401

pytestmark = pytest.mark.usefixtures("drv")

#: ``k(out, f, u)``: stores the 4 bytes of ``.f32 f`` at out[0] and those of ``.u32 u`` at out[4]
PTX = b"""
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out, .param .f32 f, .param .u32 u)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ld.param.b32 %r1, [f];
  ld.param.u32 %r2, [u];
  st.global.b32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r2;
  ret;
}
"""
TYPES = (C.c_void_p, C.c_uint, C.c_uint)


@pytest.fixture
def kernel():  # type: ignore[no-untyped-def]
    """``(function, output address)``: ``k`` loaded from PTX and 8 bytes of device memory."""
    mod = check(cuda.cuModuleLoadData(PTX))
    return check(cuda.cuModuleGetFunction(mod, b"k")), int(check(cuda.cuMemAlloc(8)))


def _output(out: int) -> bytes:
    """The 8 output bytes, after a synchronize."""
    check(cuda.cuCtxSynchronize())
    got = np.zeros(8, np.uint8)
    check(cuda.cuMemcpyDtoH(got, out, 8))
    return got.tobytes()


def _launch(kernel, params):  # type: ignore[no-untyped-def]
    """Launch ``k`` with ``params`` on a 0xAA-filled output: ``(launch code, output bytes)``."""
    fn, out = kernel
    check(cuda.cuMemsetD8(out, 0xAA, 8))
    code = cuda.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, params, 0)[0]
    return code, _output(out)


def test_a_tuple_subclass_pair_is_taken(kernel) -> None:  # type: ignore[no-untyped-def]
    """A namedtuple ``(values, types)`` is the pair form (the real helper checks ``isinstance(kp, tuple)``)."""
    _fn, out = kernel
    pair = collections.namedtuple("Pair", "values types")((out, 0x3FC00000, 7), TYPES)
    code, raw = _launch(kernel, pair)
    assert code == cuda.CUresult.CUDA_SUCCESS
    assert raw == struct.pack("<fI", 1.5, 7)


def test_a_users_int_enum_with_type_none_is_the_bindings_type_error(kernel) -> None:  # type: ignore[no-untyped-def]
    """Type ``None`` takes the binding's enums only: a user's ``enum.IntEnum`` member raises TypeError and runs
    nothing, while a binding enum member is passed as a C int."""
    class Mine(enum.IntEnum):
        A = 3
    _fn, out = kernel
    with pytest.raises(TypeError, match="but expected Type"):
        cuda.cuLaunchKernel(kernel[0], 1, 1, 1, 1, 1, 1, 0, 0, ((out, 0, Mine.A), (C.c_void_p, C.c_uint, None)), 0)
    assert _output(out) == b"\0" * 8  # cuMemAlloc's zeros: nothing ran
    code, raw = _launch(kernel, ((out, 0, cuda.CUresult.CUDA_ERROR_INVALID_VALUE), (C.c_void_p, C.c_uint, None)))
    assert code == cuda.CUresult.CUDA_SUCCESS and raw[4:] == struct.pack("<I", 1)


def test_a_null_c_void_p_value_is_the_bindings_type_error(kernel) -> None:  # type: ignore[no-untyped-def]
    """``c_void_p(None)`` for a ``c_void_p`` argument raises ``TypeError: an integer is required`` (the real
    helper stores its ``.value``, None, in a ``void_ptr``), and nothing runs."""
    fn, out = kernel
    with pytest.raises(TypeError, match="an integer is required"):
        cuda.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ((C.c_void_p(None), 0, 0), TYPES), 0)
    assert _output(out) == b"\0" * 8
    code, raw = _launch(kernel, ((C.c_void_p(out), 0, 5), TYPES))
    assert code == cuda.CUresult.CUDA_SUCCESS and raw == struct.pack("<II", 0, 5)


def test_a_strided_array_of_addresses_is_numpys_value_error(kernel) -> None:  # type: ignore[no-untyped-def]
    """A non-contiguous numpy array raises what its buffer raises for a contiguous view (``ValueError: ndarray is
    not contiguous``) before any launch; the same addresses contiguous run the kernel."""
    fn, out = kernel
    keep = [C.c_uint64(out), C.c_uint32(0x3FC00000), C.c_uint32(9)]
    spread = np.zeros(6, np.uint64)
    spread[::2] = [C.addressof(k) for k in keep]
    with pytest.raises(ValueError, match="ndarray is not contiguous"):
        cuda.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, spread[::2], 0)
    assert _output(out) == b"\0" * 8
    code, raw = _launch(kernel, np.ascontiguousarray(spread[::2]))
    assert code == cuda.CUresult.CUDA_SUCCESS and raw == struct.pack("<fI", 1.5, 9)


def _node_params(fn, kp):  # type: ignore[no-untyped-def]
    """A 1x1 CUDA_KERNEL_NODE_PARAMS of ``fn`` with ``kp``."""
    p = cuda.CUDA_KERNEL_NODE_PARAMS()
    p.func = fn
    p.gridDimX = p.gridDimY = p.gridDimZ = p.blockDimX = p.blockDimY = p.blockDimZ = 1
    p.kernelParams = kp
    return p


def test_kernel_node_params_read_back_hold_the_bits_given(kernel) -> None:  # type: ignore[no-untyped-def]
    """cuGraphKernelNodeGetParams' kernelParams hold, for a ``c_uint`` given for an ``.f32`` parameter, its bits
    (the float 1.5), not the integer converted to a float: a node made from them computes what the first does."""
    fn, out = kernel
    g = check(cuda.cuGraphCreate(0))
    node = check(cuda.cuGraphAddKernelNode(g, None, 0, _node_params(fn, ((out, 0x3FC00000, 7), TYPES))))
    back = check(cuda.cuGraphKernelNodeGetParams(node))
    ptrs = (C.c_void_p * 3).from_address(int(back.kernelParams))
    assert C.string_at(ptrs[1], 4) == struct.pack("<f", 1.5)
    g2 = check(cuda.cuGraphCreate(0))
    check(cuda.cuGraphAddKernelNode(g2, None, 0, back))
    check(cuda.cuMemsetD8(out, 0xAA, 8))
    check(cuda.cuGraphLaunch(check(cuda.cuGraphInstantiate(g2, 0)), 0))
    assert _output(out) == struct.pack("<fI", 1.5, 7)


def _nan_array(out: int, f_bits: int, u: int):  # type: ignore[no-untyped-def]
    """A void** array for ``k``: the output, a float's bits and a u32 (with what keeps its targets alive)."""
    keep = [C.c_uint64(out), C.c_uint32(f_bits), C.c_uint32(u)]
    return (C.c_void_p * 3)(*[C.addressof(x) for x in keep]), keep


@pytest.mark.parametrize("bits", [0x7F800001, 0xFFC12345, 0x7FC00000])
def test_a_nan_in_a_void_array_reaches_the_kernel_bit_exact(kernel, bits: int) -> None:  # type: ignore[no-untyped-def]
    """A signalling or payload NaN for an ``.f32`` parameter, given in a void** array, reaches the kernel as its
    four bytes (not quieted by a trip through a Python float), at every launch of the same array."""
    _fn, out = kernel
    arr, _keep = _nan_array(out, bits, 3)
    for _ in range(2):
        code, raw = _launch(kernel, arr)
        assert code == cuda.CUresult.CUDA_SUCCESS and raw == struct.pack("<II", bits, 3)


HALF_SRC = rb'''
struct __align__(2) __half { unsigned short x; };
struct __align__(2) __nv_bfloat16 { unsigned short x; };
extern "C" __global__ void h(unsigned short *out, __half x, __nv_bfloat16 b) { out[0] = x.x; out[1] = b.x; }
'''


def test_half_and_bfloat16_nans_keep_their_bytes() -> None:
    """A ``__half`` NaN with a payload and a signalling ``__nv_bfloat16`` NaN, in a void** array for a CUBIN
    kernel simcuda read the types of, reach the kernel as their two bytes (skipped without NVIDIA's NVRTC)."""
    if _real_nvrtc.library() is None:
        pytest.skip("NVIDIA's NVRTC is not installed")
    prog = check(nvrtc.nvrtcCreateProgram(HALF_SRC, b"h.cu", 0, None, None))
    check(nvrtc.nvrtcCompileProgram(prog, 1, [arch()]))
    cubin = b" " * check(nvrtc.nvrtcGetCUBINSize(prog))
    check(nvrtc.nvrtcGetCUBIN(prog, cubin))
    fn = check(cuda.cuModuleGetFunction(check(cuda.cuModuleLoadData(cubin)), b"h"))
    out = int(check(cuda.cuMemAlloc(8)))
    keep = [C.c_uint64(out), C.c_uint16(0x7E55), C.c_uint16(0x7F81)]
    arr = (C.c_void_p * 3)(*[C.addressof(x) for x in keep])
    assert cuda.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, arr, 0)[0] == cuda.CUresult.CUDA_SUCCESS
    assert _output(out)[:4] == struct.pack("<HH", 0x7E55, 0x7F81)


NATIVE_NAN = r'''
import ctypes as C, struct, sys
import numpy as np
import simcuda
with simcuda.patch(route="native"):
    from cuda.bindings import driver as cu
    cu.cuInit(0)
    cu.cuCtxSetCurrent(cu.cuDevicePrimaryCtxRetain(cu.cuDeviceGet(0)[1])[1])
    fn = cu.cuModuleGetFunction(cu.cuModuleLoadData(sys.argv[1].encode())[1], b"k")[1]
    out = int(cu.cuMemAlloc(8)[1])
    keep = [C.c_uint64(out), C.c_uint32(0x7F800001), C.c_uint32(3)]
    arr = (C.c_void_p * 3)(*[C.addressof(x) for x in keep])
    for _ in range(2):
        assert int(cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, arr, 0)[0]) == 0
        cu.cuCtxSynchronize()
        got = np.zeros(8, np.uint8)
        cu.cuMemcpyDtoH(got, out, 8)
        print("OUT=" + got.tobytes().hex())
'''


def test_native_route_passes_a_signalling_nan_bit_exact() -> None:
    """On the native route (NVIDIA's binding packing the void** array, simcuda's fast reader) a signalling NaN
    for an ``.f32`` parameter reaches the kernel unquieted, at the first launch and the memoized one."""
    ok, why = native.available()
    if not ok:
        pytest.skip(f"native route: {why}")
    r = subprocess.run([sys.executable, "-c", NATIVE_NAN, PTX.decode()], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    outs = [x[4:] for x in r.stdout.splitlines() if x.startswith("OUT=")]
    assert outs == [struct.pack("<II", 0x7F800001, 3).hex()] * 2
