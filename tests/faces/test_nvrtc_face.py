"""The ``cuda.bindings.nvrtc``-style face: program life cycle, simulated PTX/CUBIN, names, codes (simcuda's reader:
``SIMCUDA_NVRTC=simcuda``; the face over NVIDIA's NVRTC is tested in ``test_nvrtc_params.py``)."""
from __future__ import annotations

import ctypes

import pytest

import simcuda
from simcuda._core.modules.module_model import SIM_CUBIN_MAGIC, parse_image
from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings import nvrtc as nv
from simcuda.faces.bindings import runtime as rt


@pytest.fixture(autouse=True)
def _reader(monkeypatch):
    """These tests are of simcuda's reader: keep NVIDIA's NVRTC out even where it is installed."""
    monkeypatch.setenv("SIMCUDA_NVRTC", "simcuda")


R = nv.nvrtcResult
OK = (R.NVRTC_SUCCESS,)
SRC = b"""
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#define N 512
extern "C" __global__ void reduce(float *inputVec, double *outputVec, size_t inputSize, size_t outputSize) {
    __shared__ double tmp[N];
    if (threadIdx.x == 0) { outputVec[blockIdx.x] = 0.0; }
}
extern "C" {
__global__ void scale(float *a, int n, float f) { a[threadIdx.x] *= f; }
}
__global__ void plain(const float *a, float *b, const float *c) {}
template <typename T> __global__ void tmpl(T *a) {}
"""


def ok(res):
    """Assert success and unpack the outputs."""
    assert res[0] == R.NVRTC_SUCCESS, res
    return None if len(res) == 1 else res[1] if len(res) == 2 else res[1:]


def compile_(src=SRC, opts=(b"--gpu-architecture=sm_90",), name=b"prog.cu"):
    """Create and compile a program; return it and the compile result."""
    prog = ok(nv.nvrtcCreateProgram(src, name, 0, None, None))
    return prog, nv.nvrtcCompileProgram(prog, len(opts), list(opts))


def read(getsize, get, prog, buf_type=bytes):
    """Read an output the way NVIDIA's samples do: size, buffer of spaces, fill in place."""
    size = ok(getsize(prog))
    buf = b" " * size if buf_type is bytes else bytearray(size)
    assert get(prog, buf) == OK
    return bytes(buf)


def test_every_real_function_exists():
    """Every function of the real nvrtc module exists in the face."""
    real = pytest.importorskip("cuda.bindings.nvrtc")
    names = {n for n in dir(real) if n.startswith("nvrtc") and callable(getattr(real, n))}
    assert names <= set(dir(nv))


def test_program_handle_type():
    """nvrtcProgram prints in hex and compares by value within its type, like the real wrapper."""
    p = nv.nvrtcProgram(0x40)
    assert repr(p) == "<nvrtcProgram 0x40>" and p == nv.nvrtcProgram(0x40) and p != 0x40 and int(p) == 0x40
    real = pytest.importorskip("cuda.bindings.nvrtc")
    assert repr(real.nvrtcProgram(0x40)) == repr(p)


def test_compile_gives_ptx_with_entries_and_exact_types(drv):
    """The PTX has one .entry per non-template kernel and simcuda-params lines with the C types."""
    prog, res = compile_()
    assert res == OK
    ptx = read(nv.nvrtcGetPTXSize, nv.nvrtcGetPTX, prog)
    assert ptx.endswith(b"\0")
    text = ptx.rstrip(b"\0").decode()
    assert ".visible .entry reduce(" in text and ".visible .entry scale(" in text
    assert "// simcuda-params reduce: float*, double*, size_t, size_t" in text
    entries, _ = parse_image(ptx)
    assert entries["reduce"] == ["float*", "double*", "size_t", "size_t"]
    assert entries["scale"] == ["float*", "int", "float"]
    assert "_Z5plainPKfPfS0_" in entries  # C++ linkage: mangled
    assert not any("tmpl" in e for e in entries)  # templates are not instantiated


def test_cubin_is_magic_plus_ptx_and_loads(drv):
    """The CUBIN written in place into a bytes buffer loads with cuModuleLoadData and has the kernels."""
    prog, _ = compile_()
    cubin = read(nv.nvrtcGetCUBINSize, nv.nvrtcGetCUBIN, prog)
    assert cubin.startswith(SIM_CUBIN_MAGIC)
    np = pytest.importorskip("numpy")
    assert rt.cudaFree(0) == (rt.cudaError_t.cudaSuccess,)
    err, mod = cu.cuModuleLoadData(np.char.array(cubin))
    assert err == cu.CUresult.CUDA_SUCCESS
    assert cu.cuModuleGetFunction(mod, b"reduce")[0] == cu.CUresult.CUDA_SUCCESS
    assert cu.cuModuleGetFunction(mod, b"plain")[0] == cu.CUresult.CUDA_ERROR_NOT_FOUND


def test_outputs_can_go_into_bytearrays(drv):
    """A bytearray receives the PTX too."""
    prog, _ = compile_()
    assert read(nv.nvrtcGetPTXSize, nv.nvrtcGetPTX, prog, bytearray).startswith(b"//")


def test_virtual_arch_has_no_cubin(drv):
    """Compiling for compute_XY (or with no -arch) gives PTX only: CUBIN size 0, GetCUBIN INVALID_INPUT."""
    for opts in [(b"--gpu-architecture=compute_90",), ()]:
        prog, res = compile_(opts=opts)
        assert res == OK
        assert nv.nvrtcGetCUBINSize(prog) == (R.NVRTC_SUCCESS, 0)
        assert nv.nvrtcGetCUBIN(prog, b" " * 8) == (R.NVRTC_ERROR_INVALID_INPUT,)
        assert ok(nv.nvrtcGetPTXSize(prog)) > 0


def test_source_without_kernels_compiles_to_an_empty_module(drv):
    """A header-only program (what NVIDIA's samples probe with) compiles and loads with no entries."""
    prog, res = compile_(b"    #include <cooperative_groups.h>\n    ")
    assert res == OK
    cubin = read(nv.nvrtcGetCUBINSize, nv.nvrtcGetCUBIN, prog)
    assert parse_image(cubin)[0] == {}
    assert rt.cudaFree(0)[0] == rt.cudaError_t.cudaSuccess
    assert cu.cuModuleLoadData(cubin)[0] == cu.CUresult.CUDA_SUCCESS


def test_syntax_error_is_a_compilation_error_with_a_log(drv):
    """Unbalanced brackets or #error fail with NVRTC_ERROR_COMPILATION and a name(line): error log."""
    prog, res = compile_(b'extern "C" __global__ void k(float *a) {\n  if (1) {\n}\n', name=b"bad.cu")
    assert res == (R.NVRTC_ERROR_COMPILATION,)
    log = read(nv.nvrtcGetProgramLogSize, nv.nvrtcGetProgramLog, prog).rstrip(b"\0").decode()
    assert log.startswith("bad.cu(1): error:") and "1 error detected" in log
    assert nv.nvrtcGetPTXSize(prog) == (R.NVRTC_ERROR_INVALID_PROGRAM, None)
    prog, res = compile_(b"#error stop here\n", name=b"")
    assert res == (R.NVRTC_ERROR_COMPILATION,)
    assert b"default_program(1): error: #error directive: stop here" in read(
        nv.nvrtcGetProgramLogSize, nv.nvrtcGetProgramLog, prog)


def test_successful_compile_has_an_empty_log(drv):
    """A clean compile's log is empty: size 1 (the NUL)."""
    prog, _ = compile_()
    assert nv.nvrtcGetProgramLogSize(prog) == (R.NVRTC_SUCCESS, 1)


def test_name_expressions(drv):
    """Lowered names: identity for extern "C", Itanium mangling otherwise (template instances too); the
    call-order codes."""
    prog = ok(nv.nvrtcCreateProgram(SRC, b"p.cu", 0, None, None))
    assert nv.nvrtcGetLoweredName(prog, b"reduce") == (R.NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION, None)
    for expr in (b"reduce", b"&plain", b"tmpl<float>"):
        assert nv.nvrtcAddNameExpression(prog, expr) == OK
    assert nv.nvrtcCompileProgram(prog, 0, None) == OK
    assert nv.nvrtcGetLoweredName(prog, b"reduce") == (R.NVRTC_SUCCESS, b"reduce")
    assert nv.nvrtcGetLoweredName(prog, b"&plain") == (R.NVRTC_SUCCESS, b"_Z5plainPKfPfS0_")
    assert nv.nvrtcGetLoweredName(prog, b"tmpl<float>") == (R.NVRTC_SUCCESS, b"_Z4tmplIfEvPT_")  # an instance
    assert nv.nvrtcGetLoweredName(prog, b"scale") == (R.NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID, None)
    assert nv.nvrtcAddNameExpression(prog, b"scale") == (R.NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION,)
    assert b"warning" not in read(nv.nvrtcGetProgramLogSize, nv.nvrtcGetProgramLog, prog)


@pytest.mark.parametrize("params, mangled", [
    ("float *a, double *b, size_t n, size_t m", "_Z1kPfPdmm"),
    ("", "_Z1kv"),
    ("const float* a, float* b, const float* c", "_Z1kPKfPfS0_"),
    ("unsigned n, unsigned int m, const __half* x, __half* y, __half* z", "_Z1kjjPK6__halfPS_S2_"),
    ("float * const * p, int &r, long long q, unsigned char c", "_Z1kPKPfRixh"),
])
def test_mangling(params, mangled):
    """Itanium mangling of simple kernel signatures, substitutions included."""
    assert nv.mangle("k", params) == mangled


def test_headers_given_to_create_program_are_scanned(drv):
    """Kernels in a header passed to nvrtcCreateProgram and #included by name become entries."""
    hdr = b'extern "C" __global__ void from_header(int *p) {}'
    prog = ok(nv.nvrtcCreateProgram(b'#include "k.h"\n', b"h.cu", 1, [hdr], [b"k.h"]))
    assert nv.nvrtcCompileProgram(prog, 0, None) == OK
    ptx = read(nv.nvrtcGetPTXSize, nv.nvrtcGetPTX, prog)
    assert "from_header" in parse_image(ptx)[0]


def test_bad_handles_and_argument_types(drv):
    """Unknown programs are NVRTC_ERROR_INVALID_PROGRAM; str sources and short lists raise like the wrapper."""
    assert nv.nvrtcCompileProgram(nv.nvrtcProgram(0x1234), 0, None) == (R.NVRTC_ERROR_INVALID_PROGRAM,)
    assert nv.nvrtcGetPTXSize(None) == (R.NVRTC_ERROR_INVALID_PROGRAM, None)
    with pytest.raises(TypeError, match="expected bytes, str found"):
        nv.nvrtcCreateProgram("src", b"n", 0, None, None)
    with pytest.raises(TypeError, match="expected bytes, NoneType found"):
        nv.nvrtcCreateProgram(b"src", None, 0, None, None)
    with pytest.raises(RuntimeError, match="List is too small: 1 < 2"):
        nv.nvrtcCreateProgram(b"x", b"n", 2, [b"a"], [b"b"])
    prog = ok(nv.nvrtcCreateProgram(b"x", b"n", 0, None, None))
    with pytest.raises(TypeError, match="expected tuple\\[bytes\\] or list\\[bytes\\]"):
        nv.nvrtcCompileProgram(prog, 1, ["--std=c++17"])
    with pytest.raises(RuntimeError, match="List is too small: 0 < 1"):
        nv.nvrtcCompileProgram(prog, 1, [])
    assert nv.nvrtcDestroyProgram(prog) == OK
    assert nv.nvrtcDestroyProgram(prog) == (R.NVRTC_ERROR_INVALID_PROGRAM,)


def test_programs_belong_to_the_current_driver(drv):
    """A program made under one driver is unknown after simcuda.use() switches to another."""
    prog = ok(nv.nvrtcCreateProgram(b"x", b"n", 0, None, None))
    other = simcuda.Driver()
    old = simcuda.use(other)
    try:
        assert nv.nvrtcCompileProgram(prog, 0, None) == (R.NVRTC_ERROR_INVALID_PROGRAM,)
    finally:
        simcuda.use(old)


def test_version_error_string_and_archs():
    """nvrtcVersion is (13, 5); error strings are the codes' names; the supported architectures are sorted."""
    assert nv.nvrtcVersion() == (R.NVRTC_SUCCESS, 13, 5)
    assert nv.nvrtcGetErrorString(R.NVRTC_ERROR_COMPILATION) == (R.NVRTC_SUCCESS, b"NVRTC_ERROR_COMPILATION")
    n = ok(nv.nvrtcGetNumSupportedArchs())
    archs = ok(nv.nvrtcGetSupportedArchs())
    assert len(archs) == n and archs == sorted(archs) and 90 in archs


def test_not_simulated_outputs(drv):
    """LTO IR and bundled headers are not simulated: sizes 0, getters INVALID_INPUT, installs fail with a log."""
    prog, _ = compile_()
    assert nv.nvrtcGetLTOIRSize(prog) == (R.NVRTC_SUCCESS, 0)
    assert nv.nvrtcGetLTOIR(prog, b"  ") == (R.NVRTC_ERROR_INVALID_INPUT,)
    err, log = nv.nvrtcInstallBundledHeaders(b"/tmp/x", 0)
    assert err == R.NVRTC_ERROR_BUILTIN_OPERATION_FAILURE and b"not simulated" in log
    err, info, _ = nv.nvrtcGetBundledHeadersInfo()
    assert err == R.NVRTC_SUCCESS and info.available == 0


def test_compiled_parameter_types_decode_a_void_pointer_array(drv):
    """The exact C types from the PTX let the driver decode an int void** argument array for a Python kernel."""
    prog, _ = compile_()
    cubin = read(nv.nvrtcGetCUBINSize, nv.nvrtcGetCUBIN, prog)
    assert rt.cudaFree(0)[0] == rt.cudaError_t.cudaSuccess
    mod = cu.cuModuleLoadData(cubin)[1]
    f = cu.cuModuleGetFunction(mod, b"scale")[1]
    seen = []
    drv.kernels["scale"] = lambda launch: seen.append(launch.args)
    dptr = rt.cudaMalloc(16)[1]
    vals = [ctypes.c_uint64(dptr), ctypes.c_int(4), ctypes.c_float(1.5)]
    arr = (ctypes.c_void_p * 3)(*[ctypes.addressof(v) for v in vals])
    assert cu.cuLaunchKernel(f, 1, 1, 1, 4, 1, 1, 0, None, ctypes.addressof(arr), 0) == (cu.CUresult.CUDA_SUCCESS,)
    assert seen == [[dptr, 4, 1.5]]
