"""Module and library device variables, kernel parameter info and context-free library loads (issue 10), on the
tuple and _v2 faces."""
from __future__ import annotations

import ctypes
import struct

import pytest

import simcuda
from simcuda._core.modules.symbols import image_variables, param_layout
from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings._v2 import driver as v2

R = cu.CUresult

PTX = b"""
.version 8.0
.target sm_90
.address_size 64
.visible .global .align 4 .u32 counter = 5;
.global .align 4 .f32 table[4] = {0f3F800000, 0f40000000, 0f40400000, 0f40800000};
.visible .global .align 8 .b8 blob[16];
.extern .global .align 4 .u32 elsewhere;
.const .align 8 .f64 scale = 0d4000000000000000;
.visible .entry k(
\t.param .u64 k_param_0,
\t.param .u32 k_param_1,
\t.param .align 16 .b8 k_param_2[32]
)
{
\tld.global.u32 %r1, [counter];
\tret;
}
"""
SRC = b"""
__device__ int hits = 7;
__constant__ float coef[3] = {1.0f, 2.5f, -1};
__device__ double acc[2];
__device__ int helper(int x) { return x; }
extern "C" __global__ void bump(int* out, char c, double d) {}
"""


@pytest.fixture
def ctx(drv):
    """An initialised driver with device 0's primary context current."""
    cu.cuInit(0)
    c = cu.cuDevicePrimaryCtxRetain(0)[1]
    cu.cuCtxSetCurrent(c)
    return c


def _read(p, n):
    buf = bytearray(n)
    assert cu.cuMemcpyDtoH(buf, p, n) == (R.CUDA_SUCCESS,)
    return bytes(buf)


def test_ptx_reader_finds_variables_sizes_and_initial_values():
    """PTX .global/.const variables with sizes and initialisers; .extern ones are not this image's."""
    v = image_variables(PTX)
    assert sorted(v) == ["blob", "counter", "scale", "table"]
    assert (v["counter"].size, v["counter"].init) == (4, struct.pack("<I", 5))
    assert struct.unpack("<4f", v["table"].init) == (1.0, 2.0, 3.0, 4.0)
    assert v["blob"].init == bytes(16) and struct.unpack("<d", v["scale"].init) == (2.0,)


def test_cuda_source_reader_finds_device_and_constant_variables():
    """CUDA C ``__device__``/``__constant__`` scalars and arrays (device functions are not variables)."""
    v = image_variables(SRC)
    assert sorted(v) == ["acc", "coef", "hits"]
    assert v["hits"].init == struct.pack("<i", 7)
    assert struct.unpack("<3f", v["coef"].init) == (1.0, 2.5, -1.0) and v["acc"].size == 16


def test_param_layout_from_ptx_alignment_and_natural_alignment():
    """PTX .align decides a by-value struct's offset; without PTX the types' natural alignment does."""
    assert param_layout(["int*", "int", "char[32]"], PTX.decode(), "k") == [(0, 8), (8, 4), (16, 32)]
    assert param_layout(["char", "double", "char[12]", "int"]) == [(0, 1), (8, 8), (16, 12), (28, 4)]


def test_module_get_global_is_an_initialised_allocation_copies_reach(ctx):
    """cuModuleGetGlobal: the variable's address and size; it holds its initial value and takes copies."""
    m = cu.cuModuleLoadData(PTX)[1]
    err, p, n = cu.cuModuleGetGlobal(m, b"counter")
    assert err == R.CUDA_SUCCESS and n == 4 and _read(p, 4) == struct.pack("<I", 5)
    assert cu.cuMemcpyHtoD(p, struct.pack("<I", 42), 4) == (R.CUDA_SUCCESS,)
    assert _read(cu.cuModuleGetGlobal(m, b"counter")[1], 4) == struct.pack("<I", 42)  # the same allocation
    assert [int(x) for x in cu.cuMemGetAddressRange(p)[1:]] == [int(p), 4]
    t = cu.cuModuleGetGlobal(m, b"table")
    assert t[2] == 16 and struct.unpack("<4f", _read(t[1], 16)) == (1.0, 2.0, 3.0, 4.0)


def test_module_get_global_codes(ctx):
    """NOT_FOUND (500) for an unknown or .extern name; INVALID_HANDLE for a bad or unloaded module; TypeError str."""
    m = cu.cuModuleLoadData(PTX)[1]
    assert cu.cuModuleGetGlobal(m, b"nope") == (R.CUDA_ERROR_NOT_FOUND, None, None)
    assert cu.cuModuleGetGlobal(m, b"elsewhere") == (R.CUDA_ERROR_NOT_FOUND, None, None)
    assert "counter" in simcuda.last_error().why
    with pytest.raises(TypeError):
        cu.cuModuleGetGlobal(m, "counter")
    p = cu.cuModuleGetGlobal(m, b"counter")[1]
    assert cu.cuModuleUnload(m) == (R.CUDA_SUCCESS,)
    assert cu.cuModuleGetGlobal(m, b"counter") == (R.CUDA_ERROR_INVALID_HANDLE, None, None)
    assert cu.cuMemcpyDtoH(bytearray(4), p, 4) == (R.CUDA_ERROR_INVALID_VALUE,)  # freed with the module


def test_a_python_kernel_reaches_a_module_variable(drv, ctx):
    """A registered Python kernel writes a module variable through the pointer it is given."""
    def bump(launch):
        launch.array(launch.args[0], "int32", 1)[0] += 1

    drv.kernels["bump"] = bump
    m = cu.cuModuleLoadData(SRC)[1]
    f = cu.cuModuleGetFunction(m, b"bump")[1]
    p = cu.cuModuleGetGlobal(m, b"hits")[1]
    params = ((p, 1, 2.0), (None, ctypes.c_char, ctypes.c_double))
    assert cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, params, 0) == (R.CUDA_SUCCESS,)
    assert struct.unpack("<i", _read(p, 4))[0] == 8


def test_library_loads_without_a_context_and_its_kernel_needs_one(drv):
    """cuLibraryLoadData needs no current context; cuKernelGetFunction and cuLibraryGetGlobal do (201)."""
    cu.cuInit(0)
    lib = cu.cuLibraryLoadData(PTX, None, None, 0, None, None, 0)
    assert lib[0] == R.CUDA_SUCCESS
    kern = cu.cuLibraryGetKernel(lib[1], b"k")[1]
    assert cu.cuKernelGetFunction(kern) == (R.CUDA_ERROR_INVALID_CONTEXT, None)
    assert cu.cuLibraryGetGlobal(lib[1], b"counter") == (R.CUDA_ERROR_INVALID_CONTEXT, None, None)
    assert cu.cuKernelGetParamInfo(kern, 1) == (R.CUDA_SUCCESS, 8, 4)  # no context needed
    c = cu.cuDevicePrimaryCtxRetain(0)[1]
    cu.cuCtxSetCurrent(c)
    assert cu.cuKernelGetFunction(kern)[0] == R.CUDA_SUCCESS
    err, p, n = cu.cuLibraryGetGlobal(lib[1], b"counter")
    assert err == R.CUDA_SUCCESS and n == 4 and _read(p, 4) == struct.pack("<I", 5)
    other = cu.cuCtxCreate(None, 0, 0)[1]
    q = cu.cuLibraryGetGlobal(lib[1], b"counter")[1]
    assert int(q) != int(p) and _read(q, 4) == struct.pack("<I", 5)  # one copy per context
    cu.cuCtxDestroy(other)
    assert cu.cuLibraryUnload(lib[1]) == (R.CUDA_SUCCESS,)
    assert cu.cuMemcpyDtoH(bytearray(4), p, 4) == (R.CUDA_ERROR_INVALID_VALUE,)


def test_library_get_global_refuses_a_module_handle(ctx):
    """cuLibraryGetGlobal takes libraries only: a module handle is INVALID_HANDLE."""
    m = cu.cuModuleLoadData(PTX)[1]
    assert cu.cuLibraryGetGlobal(int(m), b"counter")[0] == R.CUDA_ERROR_INVALID_HANDLE


def test_param_info_codes_on_the_tuple_and_v2_faces(ctx):
    """cuFuncGetParamInfo: offset and size per parameter; INVALID_VALUE past the last; INVALID_HANDLE bad func."""
    m = cu.cuModuleLoadData(PTX)[1]
    f = cu.cuModuleGetFunction(m, b"k")[1]
    assert [cu.cuFuncGetParamInfo(f, i)[1:] for i in range(3)] == [(0, 8), (8, 4), (16, 32)]
    assert cu.cuFuncGetParamInfo(f, 3) == (R.CUDA_ERROR_INVALID_VALUE, None, None)
    assert cu.cuFuncGetParamInfo(0, 0)[0] == R.CUDA_ERROR_INVALID_HANDLE
    assert v2.func_get_param_info(int(f), 2) == (16, 32)
    with pytest.raises(v2.InvalidValueError):
        v2.func_get_param_info(int(f), 9)
    src = cu.cuModuleLoadData(SRC)[1]
    g = cu.cuModuleGetFunction(src, b"bump")[1]
    assert [cu.cuFuncGetParamInfo(g, i)[1:] for i in range(3)] == [(0, 8), (8, 1), (16, 8)]


def test_v2_globals_and_kernel_function(drv):
    """_v2: module_get_global_v2, library_get_global and kernel_get_function raise the driver's codes."""
    v2.init(0)
    lib = int(cu.cuLibraryLoadData(PTX, None, None, 0, None, None, 0)[1])
    k = int(cu.cuLibraryGetKernel(lib, b"k")[1])
    with pytest.raises(v2.InvalidContextError):
        v2.kernel_get_function(k)
    v2.ctx_set_current(v2.device_primary_ctx_retain(0))
    assert v2.kernel_get_function(k) == k
    dptr, n = v2.library_get_global(lib, b"counter")
    assert n == 4 and _read(dptr, 4) == struct.pack("<I", 5)
    m = v2.module_load_data(PTX)
    assert v2.module_get_global_v2(m, b"table")[1] == 16
    with pytest.raises(v2.NotFoundError):
        v2.module_get_global_v2(m, b"nope")
