"""Kernel parameters of every C type reach a Python kernel's ``launch.args`` with the values they were launched
with: through simcuda's NVRTC reader and through NVIDIA's NVRTC behind the same face (issue 10 part 7)."""
from __future__ import annotations

import contextlib
import ctypes
import glob
import os
import struct

import pytest

import simcuda
from simcuda._core.modules import param_types
from simcuda.faces.bindings import _real_nvrtc
from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings import nvrtc as nv

R = nv.nvrtcResult

SRC = b"""
#include <cuda_fp16.h>
#include <cuda/std/cstdint>
typedef float real_t;
#define SCALE_T double
struct Pair { int a; char b; double c; };
extern "C" __global__ void mix(int16_t s, uint8_t u, __half h, real_t f, Pair p, SCALE_T d, float *out) {}
"""


class Pair(ctypes.Structure):
    """The kernel's ``struct Pair`` as the host lays it out (16 bytes)."""

    _fields_ = [("a", ctypes.c_int), ("b", ctypes.c_char), ("c", ctypes.c_double)]


def _toolkit_includes() -> list[bytes]:
    """``-I`` options for a CUDA toolkit whose headers NVIDIA's NVRTC needs (cuda_fp16.h, CCCL), or []."""
    roots = [os.environ.get("CUDA_HOME", ""), os.environ.get("CUDA_PATH", ""), "/usr/local/cuda",
             *sorted(glob.glob("/usr/local/cuda-*"), reverse=True)]
    for r in roots:
        inc = os.path.join(r, "include")
        if r and os.path.exists(os.path.join(inc, "cuda_fp16.h")) and os.path.isdir(os.path.join(inc, "cccl")):
            return [f"-I{inc}".encode(), f"-I{os.path.join(inc, 'cccl')}".encode()]
    return []


def _compile(src: bytes, opts: list[bytes], exprs: tuple[bytes, ...] = ()) -> tuple[object, bytes, bytes]:
    """Compile ``src`` through the face; return the program, the CUBIN and the log."""
    err, prog = nv.nvrtcCreateProgram(src, b"params.cu", 0, None, None)
    assert err == R.NVRTC_SUCCESS
    for e in exprs:
        assert nv.nvrtcAddNameExpression(prog, e) == (R.NVRTC_SUCCESS,)
    res = nv.nvrtcCompileProgram(prog, len(opts), opts)
    _, n = nv.nvrtcGetProgramLogSize(prog)
    log = b" " * n
    nv.nvrtcGetProgramLog(prog, log)
    assert res == (R.NVRTC_SUCCESS,), log
    _, n = nv.nvrtcGetCUBINSize(prog)
    cubin = b" " * n
    assert nv.nvrtcGetCUBIN(prog, cubin) == (R.NVRTC_SUCCESS,)
    return prog, cubin, log


def _launch(image: bytes, name: str, holders: list) -> list:
    """Load ``image``, launch ``name`` with a ``void**`` array over ``holders``; the args the kernel got."""
    got: list = []

    @simcuda.kernel(name)
    def _k(launch):
        got.append(list(launch.args))

    try:
        assert cu.cuInit(0)[0] == 0
        err, _ctx = cu.cuCtxCreate(None, 0, 0)
        assert err == 0
        err, mod = cu.cuModuleLoadData(image)
        assert err == 0, simcuda.last_error()
        err, fn = cu.cuModuleGetFunction(mod, name.encode())
        assert err == 0
        ptrs = (ctypes.c_void_p * len(holders))(*[ctypes.addressof(h) for h in holders])
        err, = cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ctypes.addressof(ptrs), 0)
        assert err == 0, simcuda.last_error()
        cu.cuCtxSynchronize()
    finally:
        simcuda.KERNELS.pop(name, None)
    return got[0]


def _holders() -> list:
    """The argument values, each in a holder of its C type's size."""
    return [ctypes.c_int16(-5), ctypes.c_uint8(200), ctypes.c_uint16(struct.unpack("<H", struct.pack("<e", 1.5))[0]),
            ctypes.c_float(2.25), Pair(7, b"x", -0.5), ctypes.c_double(3.125), ctypes.c_uint64(0x7000_0000)]


EXPECTED = [-5, 200, 1.5, 2.25, bytes(Pair(7, b"x", -0.5)), 3.125, 0x7000_0000]


@pytest.fixture
def fresh(drv):
    """A fresh simulated driver (the faces' ``drv`` fixture)."""
    return drv


def test_reader_passes_every_value_through(fresh, monkeypatch):
    """simcuda's reader sizes int16_t, uint8_t, __half, a typedef'd float, a struct and a #define'd double."""
    monkeypatch.setenv("SIMCUDA_NVRTC", "simcuda")
    _prog, cubin, log = _compile(SRC, [b"--gpu-architecture=sm_90"])
    assert cubin.startswith(b"SIMCUDA-CUBIN")
    assert b"warning" not in log
    assert _launch(cubin, "mix", _holders()) == EXPECTED


@pytest.mark.skipif(_real_nvrtc.library() is None, reason="NVIDIA's libnvrtc does not load here")
@pytest.mark.skipif(not _toolkit_includes(), reason="no CUDA toolkit include/ (cuda_fp16.h, cccl) for NVIDIA's NVRTC")
def test_nvidia_nvrtc_passes_every_value_through(fresh, monkeypatch):
    """NVIDIA's NVRTC compiles the same program to a real CUBIN and the kernel still gets the declared values."""
    monkeypatch.setenv("SIMCUDA_NVRTC", "nvidia")
    _prog, cubin, _log = _compile(SRC, [b"--gpu-architecture=sm_90", *_toolkit_includes()])
    assert cubin.startswith(b"\x7fELF")  # a real CUBIN
    assert _launch(cubin, "mix", _holders()) == EXPECTED


@pytest.mark.skipif(_real_nvrtc.library() is None, reason="NVIDIA's libnvrtc does not load here")
@pytest.mark.skipif(not _toolkit_includes(), reason="no CUDA toolkit include/ (cuda_fp16.h, cccl) for NVIDIA's NVRTC")
def test_nvidia_nvrtc_ptx_and_template_names_are_real(fresh, monkeypatch):
    """Through NVIDIA's NVRTC the PTX is the compiler's and a template's lowered name is the real mangling."""
    monkeypatch.setenv("SIMCUDA_NVRTC", "nvidia")
    src = SRC + b"template <typename T> __global__ void tk(T *a, T b) {}\n"
    prog, _cubin, _log = _compile(src, [b"--gpu-architecture=sm_90", *_toolkit_includes()], (b"tk<float>",))
    err, low = nv.nvrtcGetLoweredName(prog, b"tk<float>")
    assert err == R.NVRTC_SUCCESS and low == b"_Z2tkIfEvPT_S0_"
    _, n = nv.nvrtcGetPTXSize(prog)
    ptx = b" " * n
    nv.nvrtcGetPTX(prog, ptx)
    assert b".param .u16 mix_param_0" in ptx and b"simcuda-params" not in ptx
    # the template instance's parameters: a pointer and a float, read as such
    assert _launch(ptx.rstrip(b"\0"), "_Z2tkIfEvPT_S0_", [ctypes.c_uint64(64), ctypes.c_float(-1.25)]) == [64, -1.25]


def test_half_bfloat16_vectors_and_aliases(fresh, monkeypatch):
    """__nv_bfloat16 and __half arrive as floats, float4 and a typedef'd struct as their bytes, using-aliases of
    <cstdint> types keep their sign."""
    monkeypatch.setenv("SIMCUDA_NVRTC", "simcuda")
    src = b"""
typedef struct { short x; float y; } Anon;
using idx_t = std::int8_t;
extern "C" __global__ void more(__nv_bfloat16 b, float4 v, Anon a, idx_t i, unsigned long long int q, half h) {}
"""
    _prog, cubin, _log = _compile(src, [b"--gpu-architecture=sm_90"])
    anon = struct.pack("<hxxf", -3, 0.75)
    vec = struct.pack("<4f", 1, 2, 3, 4)
    holders = [ctypes.c_uint16(param_types.bf16_bits(-2.5)), (ctypes.c_char * 16).from_buffer_copy(vec),
               (ctypes.c_char * 8).from_buffer_copy(anon), ctypes.c_int8(-100), ctypes.c_uint64(2 ** 64 - 1),
               ctypes.c_uint16(struct.unpack("<H", struct.pack("<e", -0.25))[0])]
    assert _launch(cubin, "more", holders) == [-2.5, vec, anon, -100, 2 ** 64 - 1, -0.25]


def test_unsized_parameter_warns_and_fails_at_launch(fresh, monkeypatch):
    """A parameter whose type the reader cannot size is a log warning and a launch with void** fails with 801."""
    monkeypatch.setenv("SIMCUDA_NVRTC", "simcuda")
    src = b'#include "mine.h"\nextern "C" __global__ void opaque(int n, Mine m) {}\n'
    _prog, cubin, log = _compile(src, [b"--gpu-architecture=sm_90"])
    assert b"warning: simcuda cannot size parameter 1 of kernel 'opaque'" in log
    assert cu.cuInit(0)[0] == 0
    err, _ctx = cu.cuCtxCreate(None, 0, 0)
    err, mod = cu.cuModuleLoadData(cubin)
    err, fn = cu.cuModuleGetFunction(mod, b"opaque")
    holders = [ctypes.c_int(1), ctypes.c_uint64(0)]
    ptrs = (ctypes.c_void_p * 2)(*[ctypes.addressof(h) for h in holders])
    err, = cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ctypes.addressof(ptrs), 0)
    assert err == cu.CUresult.CUDA_ERROR_NOT_SUPPORTED
    assert "cannot size parameter 1 of kernel 'opaque'" in simcuda.last_error().why
    assert fresh.launch_log == [] or len(fresh.launch_log) == 0  # nothing was launched
    # (values, types) gives the sizes: the arguments are read, and the stand-in's kernel is refused as it would
    # run (empty body, P-69), not for its sizes
    err, = cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ((1, 0), (ctypes.c_int, ctypes.c_void_p)), 0)
    assert err == cu.CUresult.CUDA_ERROR_NOT_SUPPORTED
    assert "stand-in PTX" in simcuda.last_error().why and "cannot size" not in simcuda.last_error().why
    assert cu.cuCtxSynchronize()[0] == 0  # not sticky


def test_declared_params_read_a_sizes_only_module(fresh):
    """A CUBIN-like module that knows only sizes reads a kernel's arguments by simcuda.kernel(params=...)."""
    ptx = (b".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry sized(\n\t.param .u16 sized_param_0,\n"
           b"\t.param .align 2 .b8 sized_param_1[2]\n)\n{\n\tret;\n}\n")
    got: list = []

    @simcuda.kernel("sized", params=["int16_t", "__half"])
    def _k(launch):
        got.append(list(launch.args))

    try:
        assert cu.cuInit(0)[0] == 0
        cu.cuCtxCreate(None, 0, 0)
        _, mod = cu.cuModuleLoadData(ptx)
        _, fn = cu.cuModuleGetFunction(mod, b"sized")
        holders = [ctypes.c_int16(-2), ctypes.c_uint16(struct.unpack("<H", struct.pack("<e", 0.5))[0])]
        ptrs = (ctypes.c_void_p * 2)(*[ctypes.addressof(h) for h in holders])
        assert cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ctypes.addressof(ptrs), 0) == (0,)
    finally:
        simcuda.KERNELS.pop("sized", None)
        simcuda.DECLARED.pop("sized", None)
    assert got == [[-2, 0.5]]


def test_auto_mode_falls_back_to_the_reader_for_missing_headers(fresh, monkeypatch):
    """Unset SIMCUDA_NVRTC: a program NVIDIA's NVRTC cannot compile only for a missing header is read by simcuda,
    with a log line and a RuntimeWarning saying its kernels have no bodies and are refused at launch."""
    monkeypatch.delenv("SIMCUDA_NVRTC", raising=False)
    real = _real_nvrtc.library() is not None
    with pytest.warns(RuntimeWarning, match="could not open a header.*no bodies.*refused") if real else \
            contextlib.nullcontext():
        _prog, cubin, log = _compile(b'#include <cuda_runtime.h>\nextern "C" __global__ void k(short s) {}\n',
                                     [b"--gpu-architecture=sm_90"])
    assert cubin.startswith(b"SIMCUDA-CUBIN")
    if _real_nvrtc.library() is not None:
        assert b"NVIDIA's NVRTC could not open a header" in log
    assert _launch(cubin, "k", [ctypes.c_int16(-7)]) == [-7]


def test_layout_of_structs():
    """Struct sizes follow natural alignment, arrays with #define bounds, __align__ and unions."""
    d = param_types.Declarations("""
#define N 3
struct A { char c; double d; };
struct B { int a; char b; double c[N]; };
struct __align__(16) C { float v[3]; };
union U { int i; double d; char s[12]; };
typedef struct { A a; short s; } D;
""")
    assert [d.param(t) for t in ("A a", "B b", "C c", "U u", "D d", "const A* p")] == [
        "char[16]", "char[32]", "char[16]", "char[16]", "char[24]", "A*"]


TEMPLATES = b"""
template <typename T> __global__ void t(T *a, T b) {}
template <typename T, typename U> __global__ void two(const T *a, U *b, T c, int n) {}
template <int N> __global__ void nt(float *a) {}
template <typename T, int N> __global__ void mix(T *a, unsigned n) {}
template <class T> __global__ void cp(T a, T *b, const T *c) {}
"""
#: name expression -> lowered name, as NVIDIA's NVRTC 13.5 lowers them (observed with the nvidia-cuda-nvrtc wheel)
LOWERED = {"t<float>": "_Z1tIfEvPT_S0_", "t<double*>": "_Z1tIPdEvPT_S1_",
           "two<float, int>": "_Z3twoIfiEvPKT_PT0_S0_i", "nt<4>": "_Z2ntILi4EEvPf",
           "mix<short, 16>": "_Z3mixIsLi16EEvPT_j", "cp<unsigned char>": "_Z2cpIhEvT_PS0_PKS0_",
           "&t<unsigned long long>": "_Z1tIyEvPT_S0_"}


@pytest.mark.parametrize("mode", ["simcuda", "nvidia"])
def test_template_name_expressions_are_lowered_and_launchable(fresh, monkeypatch, mode):
    """Instances of template kernels get the real lowered names from both routes, and their parameters the
    instance's types (a t<float> gets a pointer and a float)."""
    if mode == "nvidia" and _real_nvrtc.library() is None:
        pytest.skip("NVIDIA's libnvrtc does not load here")
    monkeypatch.setenv("SIMCUDA_NVRTC", mode)
    prog, cubin, log = _compile(TEMPLATES, [b"--gpu-architecture=sm_90"], tuple(e.encode() for e in LOWERED))
    assert b"warning" not in log
    for expr, low in LOWERED.items():
        assert nv.nvrtcGetLoweredName(prog, expr.encode()) == (R.NVRTC_SUCCESS, low.encode())
    assert _launch(cubin, "_Z2cpIhEvT_PS0_PKS0_", [ctypes.c_uint8(250), ctypes.c_uint64(8), ctypes.c_uint64(16)]
                   ) == [250, 8, 16]
    assert _launch(cubin, "_Z1tIfEvPT_S0_", [ctypes.c_uint64(64), ctypes.c_float(0.5)]) == [64, 0.5]


@pytest.mark.skipif(_real_nvrtc.library() is None, reason="NVIDIA's libnvrtc does not load here")
def test_the_same_compile_is_made_once(fresh, monkeypatch):
    """NVIDIA's NVRTC compiles a program once; the same program again gets the same outputs from the cache."""
    monkeypatch.setenv("SIMCUDA_NVRTC", "nvidia")
    src = b'extern "C" __global__ void once(short s, float *p) {}\n'
    before = len(_real_nvrtc._CACHE)
    _p1, cubin1, _ = _compile(src, [b"--gpu-architecture=sm_90"])
    _p2, cubin2, _ = _compile(src, [b"--gpu-architecture=sm_90"])
    assert cubin1 == cubin2 and cubin1.startswith(b"\x7fELF")
    assert len(_real_nvrtc._CACHE) <= before + 1
    assert _launch(cubin2, "once", [ctypes.c_int16(-300), ctypes.c_uint64(0)]) == [-300, 0]
