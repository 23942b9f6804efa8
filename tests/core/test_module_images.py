"""Module images as real NVRTC emits them: entry names and parameter sizes come from the PTX or the CUBIN."""
from __future__ import annotations

import ctypes

import pytest

import simcuda
from simcuda._core.modules.module_model import parse_image

SOURCE = (b'struct S { double a; int b; };\n'
          b'extern "C" __global__ void fill(int *p, int v, float f, S s, char c) { p[threadIdx.x] = v; }\n')

PTX = b""".version 9.0
.target sm_90
.address_size 64
.visible .entry fill(
\t.param .u64 fill_param_0,
\t.param .u32 fill_param_1,
\t.param .f32 fill_param_2,
\t.param .align 8 .b8 fill_param_3[16],
\t.param .u8 fill_param_4
)
{ ret; }
"""


def nvrtc_compile(target: str) -> bytes:
    """Compile SOURCE with NVIDIA's NVRTC (the nvidia-cuda-nvrtc wheel; no GPU needed) to ``ptx`` or ``cubin``."""
    try:
        from cuda.bindings import nvrtc
        err, prog = nvrtc.nvrtcCreateProgram(SOURCE, b"fill.cu", 0, [], [])
    except Exception as e:  # no NVRTC library on this machine
        pytest.skip(f"NVIDIA's NVRTC is not available: {e}")
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        pytest.skip(f"NVIDIA's NVRTC is not available: {err}")
    opts = [b"-arch=sm_90"] if target == "cubin" else [b"-arch=compute_90"]
    assert nvrtc.nvrtcCompileProgram(prog, len(opts), opts)[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
    size_fn, get_fn = ((nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN) if target == "cubin"
                       else (nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX))
    n = size_fn(prog)[1]
    buf = b" " * n
    assert get_fn(prog, buf)[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
    return buf


def test_ptx_parameters_with_a_struct_passed_by_value():
    entries, _text = parse_image(PTX)
    assert entries == {"fill": ["unsigned long long", "unsigned int", "float", "char[16]", "unsigned char"]}


@pytest.mark.parametrize("target", ["ptx", "cubin"])
def test_real_nvrtc_images(target):
    """The parameter sizes of NVRTC's own output: C types from PTX, sizes (read as unsigned integers) from a
    CUBIN's EIATTR_KPARAM_INFO records."""
    image = nvrtc_compile(target)
    entries, _ = parse_image(image)
    want = {"ptx": ["unsigned long long", "unsigned int", "float", "char[16]", "unsigned char"],
            "cubin": ["unsigned long long", "unsigned int", "unsigned int", "char[16]", "unsigned char"]}[target]
    assert entries == {"fill": want}


def test_cubin_loaded_by_address_and_its_arguments_decoded():
    """cuModuleLoadData with the address of a CUBIN (as a C caller passes it): the core reads it to the size
    its ELF header gives; a void** array of the five arguments decodes by the image's sizes."""
    image = nvrtc_compile("cubin")
    drv = simcuda.Driver()
    drv.init(0)
    drv.ctx_create(0, 0)
    buf = ctypes.create_string_buffer(image, len(image))
    m = drv.module_load_data(ctypes.addressof(buf))
    f = drv.module_get_function(m, "fill")
    vals = [ctypes.c_uint64(5), ctypes.c_int(7), ctypes.c_float(1.5), (ctypes.c_char * 16)(*b"0123456789abcdef"),
            ctypes.c_ubyte(9)]
    arr = (ctypes.c_void_p * 5)(*[ctypes.addressof(v) for v in vals])
    bits = ctypes.c_uint.from_buffer_copy(ctypes.c_float(1.5)).value  # a CUBIN gives sizes, not C types
    assert drv.decode_kernel_args(f, ctypes.addressof(arr)) == [5, 7, bits, b"0123456789abcdef", 9]
    drv.close()
