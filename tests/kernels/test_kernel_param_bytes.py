"""Kernel arguments reach the engine as the bytes the launch gave (issue 17): every ``kernelParams`` form of
cuda-bindings 13.5's ``cuLaunchKernel`` on the Python route hands the kernel, per parameter, the bytes the real
driver reads at each argument pointer (the binding's zeroed 8-byte slot of each ``(value, ctype)``, a struct's or
a wrapper's storage, a ``void**`` array's targets), and the same launch on the native route (NVIDIA's binding
packing the array) gives the same bytes. The kernel copies each parameter's bytes to memory, so the test reads
exactly what arrived."""
from __future__ import annotations

import ctypes
import json
import struct
import subprocess
import sys

import pytest

from simcuda.faces import native
from simcuda.faces.bindings import driver as cuda
from simcuda.faces.bindings import nvrtc

np = pytest.importorskip("numpy")
from tests.kernels.test_real_programs import arch, check, drv  # noqa: E402, F401

pytestmark = pytest.mark.usefixtures("drv")

SRC = r'''
struct S { int a; float b; };
template <typename T> __device__ void put(unsigned char *out, int at, T v) {
  const unsigned char *p = (const unsigned char *)&v;
  for (int k = 0; k < sizeof(T); k++) out[at + k] = p[k];
}
extern "C" __global__ void raw(unsigned char *out, float f, double d, int i, unsigned long long u, short h, S s,
                               unsigned short x, unsigned short y) {
  put(out, 0, f); put(out, 8, d); put(out, 16, i); put(out, 24, u); put(out, 32, h); put(out, 40, s);
  put(out, 48, x); put(out, 56, y);
}
'''
#: where the kernel puts each parameter's bytes in its 64-byte output (the rest keeps the 0xAA fill)
AT = {"f": (0, 4), "d": (8, 8), "i": (16, 4), "u": (24, 8), "h": (32, 2), "s": (40, 8), "x": (48, 2), "y": (56, 2)}


class S(ctypes.Structure):
    """The kernel's ``struct S`` (int, float)."""
    _fields_ = [("a", ctypes.c_int), ("b", ctypes.c_float)]


def _ptx() -> bytes:
    """The kernel's PTX from NVIDIA's NVRTC through simcuda's face (skipped without NVRTC)."""
    from simcuda.faces.bindings import _real_nvrtc
    if _real_nvrtc.library() is None:
        pytest.skip("NVIDIA's NVRTC is not installed")
    prog = check(nvrtc.nvrtcCreateProgram(SRC.encode(), b"raw.cu", 0, None, None))
    check(nvrtc.nvrtcCompileProgram(prog, 1, [arch()]))
    out = b" " * check(nvrtc.nvrtcGetPTXSize(prog))
    check(nvrtc.nvrtcGetPTX(prog, out))
    return out


@pytest.fixture
def kernel():  # type: ignore[no-untyped-def]
    """``(function, output address)``: the ``raw`` kernel loaded from PTX, and 64 bytes of device memory."""
    mod = check(cuda.cuModuleLoadData(_ptx()))
    return check(cuda.cuModuleGetFunction(mod, b"raw")), int(check(cuda.cuMemAlloc(64)))


def _run(kernel, params):  # type: ignore[no-untyped-def]
    """Launch ``raw`` with ``params`` on a 0xAA-filled output: ``(launch code, the output's bytes)``."""
    fn, out = kernel
    check(cuda.cuMemsetD8(out, 0xAA, 64))
    code = cuda.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, params, 0)[0]
    check(cuda.cuCtxSynchronize())
    got = np.zeros(64, np.uint8)
    check(cuda.cuMemcpyDtoH(got, out, 64))
    return code, got.tobytes()


def _fields(raw: bytes) -> dict[str, bytes]:
    """The output split into each parameter's bytes."""
    return {k: raw[a:a + n] for k, (a, n) in AT.items()}


C = ctypes
TYPES = (None, C.c_float, C.c_double, C.c_int, C.c_ulonglong, C.c_short, None, C.c_ushort, C.c_ushort)


def test_tuple_form_passes_each_slot_bit_exact(kernel) -> None:  # type: ignore[no-untyped-def]
    """Each (value, ctype) arrives as the binding's 8-byte slot read by the parameter's size: a c_uint's bits are
    the float, a c_float for a double is its bytes then zeros, a negative c_int for a u64 is zero-extended."""
    _fn, out = kernel
    vals = (cuda.CUdeviceptr(out), C.c_uint(0x3FC00000), C.c_float(2.5), C.c_int(-3), C.c_int(-4), -5, S(7, 2.0),
            0x3C00, 0x4049)
    types = (None, C.c_uint, C.c_float, C.c_int, C.c_int, C.c_short, None, C.c_ushort, C.c_ushort)
    code, raw = _run(kernel, (vals, types))
    assert code == cuda.CUresult.CUDA_SUCCESS
    f = _fields(raw)
    assert f["f"] == struct.pack("<I", 0x3FC00000) and struct.unpack("<f", f["f"])[0] == 1.5
    assert f["d"] == struct.pack("<f", 2.5) + bytes(4)
    assert f["i"] == struct.pack("<i", -3)
    assert f["u"] == struct.pack("<i", -4) + bytes(4)
    assert f["h"] == struct.pack("<h", -5)
    assert f["s"] == bytes(S(7, 2.0))
    assert f["x"] == struct.pack("<H", 0x3C00) and f["y"] == struct.pack("<H", 0x4049)
    assert raw[4:8] == b"\xaa" * 4  # nothing written beyond each parameter
    assert check(cuda.cuCtxGetCurrent()) is not None and cuda.cuCtxSynchronize()[0] == cuda.CUresult.CUDA_SUCCESS


def test_plain_values_convert_as_the_binding_converts(kernel) -> None:  # type: ignore[no-untyped-def]
    """Python ints and floats with matching ctypes arrive as the numbers; a c_double's bytes for a float
    parameter are the double's low half, as the driver reads four bytes of its slot."""
    _fn, out = kernel
    code, raw = _run(kernel, ((out, 1.5, 2.5, -3, 2**40, -5, S(1, 2.0), 1, 2), (C.c_void_p, *TYPES[1:])))
    assert code == cuda.CUresult.CUDA_SUCCESS
    f = _fields(raw)
    assert struct.unpack("<f", f["f"])[0] == 1.5 and struct.unpack("<d", f["d"])[0] == 2.5
    assert struct.unpack("<i", f["i"])[0] == -3 and struct.unpack("<Q", f["u"])[0] == 2**40
    code, raw = _run(kernel, ((out, 1.5, 2.5, -3, 4, -5, S(1, 2.0), 1, 2),
                              (C.c_void_p, C.c_double, *TYPES[2:])))
    assert code == cuda.CUresult.CUDA_SUCCESS and _fields(raw)["f"] == struct.pack("<d", 1.5)[:4]


def _pointer_array(out: int) -> tuple[object, list[object]]:
    """A ``void**`` array of the kernel's arguments (and what keeps its targets alive)."""
    keep: list[object] = [C.c_uint64(out), C.c_float(1.5), C.c_double(-2.5), C.c_int(-3), C.c_uint64(4),
                          C.c_short(-5), S(6, 7.0), C.c_uint16(0x3C00), C.c_uint16(0x4049)]
    return (C.c_void_p * len(keep))(*[C.addressof(k) for k in keep]), keep  # type: ignore[arg-type]


def _expected_array_bytes() -> dict[str, bytes]:
    """What :func:`_pointer_array`'s targets hold, per parameter."""
    return {"f": struct.pack("<f", 1.5), "d": struct.pack("<d", -2.5), "i": struct.pack("<i", -3),
            "u": struct.pack("<Q", 4), "h": struct.pack("<h", -5), "s": bytes(S(6, 7.0)),
            "x": struct.pack("<H", 0x3C00), "y": struct.pack("<H", 0x4049)}


@pytest.mark.parametrize("form", ["ctypes array", "int address", "numpy array"])
def test_pointer_array_forms_pass_the_targets_bytes(kernel, form: str) -> None:  # type: ignore[no-untyped-def]
    """A void** array, given as a ctypes array, its int address or a numpy array of the addresses, hands the
    kernel the bytes at each pointer."""
    _fn, out = kernel
    arr, keep = _pointer_array(out)
    given: object = {"ctypes array": arr, "int address": C.addressof(arr),
                     "numpy array": np.array([C.addressof(k) for k in keep], np.uint64)}[form]
    code, raw = _run(kernel, given)
    assert code == cuda.CUresult.CUDA_SUCCESS and _fields(raw) == _expected_array_bytes()


@pytest.mark.parametrize("params, error", [
    (((C.c_int(1),), (None,)), TypeError),  # type None takes no plain ctypes scalar
    ((("x",), (C.c_void_p,)), TypeError),
    (((1,), (C.c_char_p,)), TypeError),  # not a supported type
    (((2**31,), (C.c_int,)), OverflowError),
    (((1, 2), (C.c_int,)), TypeError),
    ((), TypeError),
    ("abc", TypeError),
])
def test_refused_values_raise_the_bindings_error_and_launch_nothing(kernel, params, error) -> None:  # type: ignore[no-untyped-def]
    """What cuda-bindings refuses raises its exception before the driver sees the launch: no kernel runs."""
    fn, out = kernel
    check(cuda.cuMemsetD8(out, 0xAA, 64))
    if params == () or params == "abc":
        params = (C.c_int(1),) if params == () else params  # a 1-tuple and a str are not a valid form
    with pytest.raises(error):
        cuda.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, params, 0)
    check(cuda.cuCtxSynchronize())
    got = np.zeros(64, np.uint8)
    check(cuda.cuMemcpyDtoH(got, out, 64))
    assert got.tobytes() == b"\xaa" * 64


def test_deviceptr_of_the_real_binding_is_converted_to_its_address(kernel) -> None:  # type: ignore[no-untyped-def]
    """A CUdeviceptr (simcuda's or NVIDIA's class) with type None is the address it holds (its storage's
    bytes), as the real binding passes ``getPtr()``."""
    from cuda.bindings import driver as real
    _fn, out = kernel
    rest = (1.5, 2.5, -3, 4, -5, S(1, 2.0), 1, 2)
    for ptr in (cuda.CUdeviceptr(out), real.CUdeviceptr(out)):
        code, raw = _run(kernel, ((ptr, *rest), TYPES))
        assert code == cuda.CUresult.CUDA_SUCCESS and struct.unpack("<f", _fields(raw)["f"])[0] == 1.5


NATIVE = r'''
import ctypes as C, json, struct, sys
import numpy as np
import simcuda
with simcuda.patch(route="native"):
    from cuda.bindings import driver as cu, nvrtc
    cu.cuInit(0)
    err, dev = cu.cuDeviceGet(0)
    err, ctx = cu.cuDevicePrimaryCtxRetain(dev)
    cu.cuCtxSetCurrent(ctx)
    src, arch = sys.argv[1].encode(), sys.argv[2].encode()
    err, prog = nvrtc.nvrtcCreateProgram(src, b"raw.cu", 0, [], [])
    assert nvrtc.nvrtcCompileProgram(prog, 1, [arch])[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
    err, n = nvrtc.nvrtcGetPTXSize(prog)
    ptx = b" " * n
    nvrtc.nvrtcGetPTX(prog, ptx)
    err, mod = cu.cuModuleLoadData(ptx)
    err, fn = cu.cuModuleGetFunction(mod, b"raw")
    err, out = cu.cuMemAlloc(64)
    class S(C.Structure):
        _fields_ = [("a", C.c_int), ("b", C.c_float)]
    res = {}
    for name, params in PARAMS(out, S, cu).items():
        cu.cuMemsetD8(out, 0xAA, 64)
        r = cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, params, 0)[0]
        cu.cuCtxSynchronize()
        got = np.zeros(64, np.uint8)
        cu.cuMemcpyDtoH(got, out, 64)
        res[name] = [int(r), got.tobytes().hex()]
    print("OUT=" + json.dumps(res))
'''

PARAMS = r'''
def PARAMS(out, S, cu):
    import ctypes as C
    keep = [C.c_uint64(int(out)), C.c_float(1.5), C.c_double(-2.5), C.c_int(-3), C.c_uint64(4), C.c_short(-5),
            S(6, 7.0), C.c_uint16(0x3C00), C.c_uint16(0x4049)]
    PARAMS.keep = keep
    ptr = cu.CUdeviceptr(int(out))
    return {
        "mismatched ctypes": ((ptr, C.c_uint(0x3FC00000), C.c_float(2.5), C.c_int(-3), C.c_int(-4), -5, S(7, 2.0),
                               0x3C00, 0x4049),
                              (None, C.c_uint, C.c_float, C.c_int, C.c_int, C.c_short, None, C.c_ushort, C.c_ushort)),
        "plain values": ((ptr, 1.5, 2.5, -3, 2**40, -5, S(1, 2.0), 1, 2),
                         (None, C.c_double, C.c_double, C.c_longlong, C.c_ulonglong, C.c_short, None, C.c_ushort,
                          C.c_ushort)),
        "void** array": (C.c_void_p * 9)(*[C.addressof(k) for k in keep]),
    }
'''


@pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")
def test_python_route_gives_the_bytes_of_the_native_route(kernel) -> None:  # type: ignore[no-untyped-def]
    """The same launches (the tuple form with mismatched and plain ctypes, a void** array) give byte-for-byte the
    same kernel output on the Python route as through NVIDIA's binding on the native route."""
    script = PARAMS + NATIVE
    r = subprocess.run([sys.executable, "-c", script, SRC, arch().decode()], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    theirs = json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])
    scope: dict[str, object] = {}
    exec(PARAMS, scope)
    _fn, out = kernel
    ours = {name: [int(code), raw.hex()] for name, params in scope["PARAMS"](out, S, cuda).items()  # type: ignore[operator]
            for code, raw in [_run(kernel, params)]}
    assert ours == theirs
    assert all(code == 0 for code, _ in ours.values()) and "aaaa" in ours["plain values"][1]


def test_a_python_twin_reads_marked_values_by_its_types() -> None:
    """A twin's values (as_declared) and a node's read-back slots (arg_slot) come from the same slot bytes the
    engine gets: a negative c_int for an unsigned int is 2**32 - 1, a c_float for a double its bytes' double."""
    from simcuda._core.modules import arg_bits, arg_slots, param_types
    got = param_types.as_declared(["unsigned int", "double", "float", "short"],
                                  [arg_bits.S32(-1), arg_bits.F32(1.5), arg_bits.F64(2.0), arg_bits.S16(-2)])
    assert got[0] == 2**32 - 1 and got[1] == struct.unpack("<d", struct.pack("<f", 1.5) + bytes(4))[0]
    assert got[2] == struct.unpack("<f", struct.pack("<d", 2.0)[:4])[0] and got[3] == -2
    held = arg_slots.arg_slot("unsigned long long", arg_bits.S32(-4))
    assert bytes(held) == struct.pack("<i", -4) + bytes(4)


#: kernelParams values (as source text) the real binding refuses, or takes at the edge of a type's range
REFUSED = ["((C.c_int(1),), (None,))", "(('x',), (C.c_void_p,))", "((1,), (C.c_char_p,))", "((2**31,), (C.c_int,))",
           "((-2**31-1,), (C.c_int,))", "((200,), (C.c_byte,))", "((2**63,), (C.c_longlong,))",
           "((1, 2), (C.c_int,))", "(C.c_int(1),)", "'abc'", "-1", "2**64", "((1.5,), (C.c_int,))",
           "((2**70,), (C.c_void_p,))", "((-1,), (C.c_void_p,))", "((None,), (C.c_int,))", "((2**32-1,), (C.c_uint,))"]

ERRORS = r'''
import ctypes as C, json, sys
import simcuda
def outcomes(cu, fn, cases):
    out = {}
    for c in cases:
        try:
            out[c] = "returned %d" % int(cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, eval(c), 0)[0])
        except Exception as e:
            out[c] = "%s: %s" % (type(e).__name__, e)
    return out
PTX = b".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u32 a)\n{ ret; }\n"
def native(cases):
    with simcuda.patch(route="native"):
        from cuda.bindings import driver as cu
        cu.cuInit(0)
        cu.cuCtxSetCurrent(cu.cuDevicePrimaryCtxRetain(cu.cuDeviceGet(0)[1])[1])
        fn = cu.cuModuleGetFunction(cu.cuModuleLoadData(PTX)[1], b"k")[1]
        return outcomes(cu, fn, cases)
if __name__ == "__main__":
    print("OUT=" + json.dumps(native(json.loads(sys.argv[1]))))
'''


@pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")
def test_refusals_match_nvidias_binding() -> None:
    """Each refused kernelParams value raises, on the Python route, the exception type and text NVIDIA's
    cuda-bindings 13.5 raises on the native route (and what both take returns the same code)."""
    r = subprocess.run([sys.executable, "-c", ERRORS, json.dumps(REFUSED)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    theirs = json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])
    scope: dict[str, object] = {"__name__": "errors"}
    exec(ERRORS, scope)
    mod = check(cuda.cuModuleLoadData(scope["PTX"]))
    ours = scope["outcomes"](cuda, check(cuda.cuModuleGetFunction(mod, b"k")), REFUSED)  # type: ignore[operator]
    assert ours == theirs
    assert sum(v.startswith("returned") for v in ours.values()) == 1  # only the c_uint at its top passes
