"""Kernels that cannot run (issue 17, item 1): a binary image with no PTX simcuda knows and no Python twin is refused
at the call that runs it with 801 and a why naming the kernel and the remedies, and so is the NVRTC face's stand-in
PTX (no NVIDIA NVRTC: empty bodies); CUDA C source text stays recorded only;
``Options(unrunnable_kernels='record')`` keeps the old recording (docs/kernels.md)."""
from __future__ import annotations

import numpy as np
import pytest

import simcuda
from simcuda._core.errors import DriverError

SRC = 'extern "C" __global__ void fill(int *out) { out[threadIdx.x] = 42; }\n'


def _foreign_cubin() -> bytes:
    """SRC compiled by NVIDIA's NVRTC straight through ctypes (not through simcuda's face), so simcuda never saw
    its PTX: a CUBIN as nvcc offline or another process would make it (skips without NVIDIA's NVRTC)."""
    from simcuda.faces.bindings import _real_nvrtc
    lib = _real_nvrtc.library()
    if lib is None:
        pytest.skip("NVIDIA's NVRTC is not available")
    got = _real_nvrtc.compile_program(lib, SRC, "fill.cu", {}, ["--gpu-architecture=sm_80"], [])
    assert got.result == 0 and got.cubin.startswith(b"\x7fELF")
    return got.cubin


def _driver(**options: str) -> simcuda.Driver:
    drv = simcuda.Driver(options=simcuda.Options(**options)) if options else simcuda.Driver()
    drv.init(0)
    drv.ctx_create(0, 0)
    return drv


def _out(drv: simcuda.Driver, addr: int) -> np.ndarray:
    return np.frombuffer(drv.memory.kernel_view(addr, 16), dtype=np.int32)


def test_launch_of_a_cubin_without_ptx_is_refused_with_801_naming_kernel_and_remedies() -> None:
    """The eager launch answers 801; the why names the kernel, a twin and NVRTC as remedies; memory is unchanged,
    the context is not sticky, and the kernel is listed among those that could not run."""
    drv = _driver()
    f = drv.module_get_function(drv.module_load_data(_foreign_cubin()), "fill")
    out = drv.mem_alloc(16)
    _out(drv, out)[:] = 7
    with pytest.raises(DriverError) as e:
        drv.launch_kernel(f, (1, 1, 1), (4, 1, 1), 0, 0, [out])
    assert int(e.value.code) == 801
    assert "'fill'" in e.value.why and "@simcuda.kernel('fill')" in e.value.why and "NVRTC" in e.value.why
    assert "unrunnable_kernels='record'" in e.value.why
    assert list(_out(drv, out)) == [7, 7, 7, 7]
    assert drv.kernels_without_implementation == {"fill": 1}
    drv.ctx_synchronize()  # not a sticky error: the context goes on
    assert drv.mem_alloc(16)
    drv.close()


def test_a_python_twin_takes_precedence_over_the_refusal() -> None:
    """With a twin registered the same launch runs the twin and succeeds."""
    drv = _driver()
    f = drv.module_get_function(drv.module_load_data(_foreign_cubin()), "fill")
    out = drv.mem_alloc(16)

    def fill(k: simcuda.KernelLaunch) -> None:
        k.array(k.args[0], np.int32, 4)[:] = 42
    drv.kernels["fill"] = fill
    drv.launch_kernel(f, (1, 1, 1), (4, 1, 1), 0, 0, [out])
    drv.ctx_synchronize()
    assert list(_out(drv, out)) == [42] * 4 and drv.kernels_without_implementation == {}
    drv.close()


def test_record_option_keeps_recording_only() -> None:
    """Options(unrunnable_kernels='record'): the launch succeeds, records only, and is listed."""
    drv = _driver(unrunnable_kernels="record")
    f = drv.module_get_function(drv.module_load_data(_foreign_cubin()), "fill")
    out = drv.mem_alloc(16)
    drv.launch_kernel(f, (1, 1, 1), (4, 1, 1), 0, 0, [out])
    drv.ctx_synchronize()
    assert drv.kernels_without_implementation == {"fill": 1}
    assert "unrunnable_kernels='record'" in drv.launch_log[-1].note
    drv.close()


def test_bad_unrunnable_kernels_option_is_a_value_error() -> None:
    """An unknown choice is refused when the Options are made."""
    with pytest.raises(ValueError, match="unrunnable_kernels"):
        simcuda.Options(unrunnable_kernels="ignore")


def test_graph_replay_of_an_unrunnable_kernel_node_answers_801() -> None:
    """A captured launch of the kernel records a node; the graph launch that replays it answers 801."""
    drv = _driver()
    f = drv.module_get_function(drv.module_load_data(_foreign_cubin()), "fill")
    out = drv.mem_alloc(16)
    s = drv.stream_create(1)
    drv.stream_begin_capture(s, 0)
    drv.launch_kernel(f, (1, 1, 1), (4, 1, 1), 0, s, [out])
    g = drv.stream_end_capture(s)
    x = drv.graph_instantiate(g, 0)
    with pytest.raises(DriverError) as e:
        drv.graph_launch(x, s)
    assert int(e.value.code) == 801 and "'fill'" in e.value.why
    assert drv.kernels_without_implementation == {"fill": 1}
    drv.stream_synchronize(s)  # the stream and the exec are usable afterwards
    drv.graph_exec_destroy(x)
    drv.close()


def test_stand_in_images_stay_recorded_only() -> None:
    """CUDA C source text (simcuda's fake image) launches succeed, recorded only and listed, as before."""
    drv = _driver()
    f = drv.module_get_function(drv.module_load_data(SRC.encode()), "fill")
    out = drv.mem_alloc(16)
    drv.launch_kernel(f, (1, 1, 1), (4, 1, 1), 0, 0, [out])
    drv.ctx_synchronize()
    assert drv.launch_log[-1].note == "recorded only (no Python kernel registered)"
    assert drv.kernels_without_implementation == {"fill": 1}
    drv.close()


def _stand_in_cubin(src: str = SRC) -> bytes:
    """``src`` through simcuda's NVRTC face with its reader (SIMCUDA_NVRTC=simcuda: as with no NVIDIA NVRTC)."""
    from simcuda._core.modules.module_model import SIM_CUBIN_MAGIC
    from simcuda.faces.bindings import nvrtc
    mp = pytest.MonkeyPatch()
    mp.setenv("SIMCUDA_NVRTC", "simcuda")
    try:
        _err, prog = nvrtc.nvrtcCreateProgram(src.encode(), b"fill.cu", 0, [], [])
        assert nvrtc.nvrtcCompileProgram(prog, 1, [b"-arch=sm_80"])[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
        cubin = b" " * nvrtc.nvrtcGetCUBINSize(prog)[1]
        assert nvrtc.nvrtcGetCUBIN(prog, cubin)[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
    finally:
        mp.undo()
    assert cubin.startswith(SIM_CUBIN_MAGIC)
    return cubin


def test_nvrtc_face_stand_in_is_refused_not_sticky_and_listed() -> None:
    """A kernel of the NVRTC face's stand-in PTX (no NVIDIA NVRTC) is refused at launch with 801, a why naming it
    and the remedy; the context stays usable, its output is untouched, and it is listed as could-not-run."""
    drv = _driver()
    f = drv.module_get_function(drv.module_load_data(_stand_in_cubin()), "fill")
    out = drv.mem_alloc(16)
    drv.memory.device_view(out, 16)[:] = b"\x07" * 16
    with pytest.raises(DriverError) as e:
        drv.launch_kernel(f, (1, 1, 1), (4, 1, 1), 0, 0, [out])
    assert int(e.value.code) == 801 and "'fill'" in e.value.why and "stand-in PTX" in e.value.why
    assert "'.[kernels]'" in e.value.why and "pip install nvidia-cuda-nvrtc" in e.value.why
    drv.ctx_synchronize()  # not sticky
    assert bytes(drv.memory.device_view(out, 16)) == b"\x07" * 16  # nothing of the kernel ran
    assert drv.kernels_without_implementation == {"fill": 1}
    drv.close()


def test_nvrtc_face_stand_in_is_recorded_with_the_record_option() -> None:
    """With Options(unrunnable_kernels='record') a stand-in's launch succeeds, recorded only, and is listed."""
    drv = _driver(unrunnable_kernels="record")
    f = drv.module_get_function(drv.module_load_data(_stand_in_cubin()), "fill")
    drv.launch_kernel(f, (1, 1, 1), (4, 1, 1), 0, 0, [drv.mem_alloc(16)])
    drv.ctx_synchronize()
    assert "stand-in PTX" in drv.launch_log[-1].note and "recorded only" in drv.launch_log[-1].note
    assert drv.kernels_without_implementation == {"fill": 1}
    drv.close()


def test_simcuda_run_summary_lists_refused_and_stand_in_kernels() -> None:
    """`simcuda run`'s summary names a refused binary image's kernel, a refused NVRTC stand-in's and a CUDA C
    source text's (recorded), with the remedies."""
    from simcuda._summary import summary_text
    drv = _driver()
    f = drv.module_get_function(drv.module_load_data(_foreign_cubin()), "fill")
    with pytest.raises(DriverError):
        drv.launch_kernel(f, (1, 1, 1), (4, 1, 1), 0, 0, [drv.mem_alloc(16)])
    g = drv.module_get_function(drv.module_load_data(SRC.replace("fill", "stub").encode()), "stub")
    drv.launch_kernel(g, (1, 1, 1), (4, 1, 1), 0, 0, [drv.mem_alloc(16)])
    h = drv.module_get_function(drv.module_load_data(_stand_in_cubin(SRC.replace("fill", "blank"))), "blank")
    with pytest.raises(DriverError):
        drv.launch_kernel(h, (1, 1, 1), (4, 1, 1), 0, 0, [drv.mem_alloc(16)])
    text = summary_text(drv)
    assert "kernels that could not run" in text and "fill (1 run)" in text and "stub (1 run)" in text
    assert "blank (1 run)" in text
    assert "simcuda.kernel(name)" in text
    drv.close()


def test_pack_params_passes_integers_as_bits_and_marked_values_as_their_slots() -> None:
    """An int for a float parameter is its bits (never converted: as the driver reads the bytes it was given), a
    plain float is the parameter's float type, a marked value (a c_float, a negative c_int, a half) its slot."""
    import struct

    from simcuda import ptx
    from simcuda._core.modules import arg_bits
    from simcuda._core.modules.ptxrun import pack_params
    info = ptx.load(".version 8.0\n.target sm_80\n.address_size 64\n"
                    ".visible .entry k(.param .f64 d, .param .f32 f, .param .u64 u, .param .b16 h)\n{ ret; }\n"
                    ).kernels["k"]
    bits_d, = struct.unpack("<Q", struct.pack("<d", -2.5))
    bits_f, = struct.unpack("<I", struct.pack("<f", 3.25))
    raw = pack_params("k", info, [bits_d, bits_f, -1, 0x3C00])
    assert struct.unpack("<dfxxxxQH", raw[:26]) == (-2.5, 3.25, 2**64 - 1, 0x3C00)
    raw = pack_params("k", info, [-2.5, 3.25, 7, 1.0])
    assert struct.unpack("<dfxxxxQe", raw[:26]) == (-2.5, 3.25, 7, 1.0)
    raw = pack_params("k", info, [arg_bits.F32(1.5), arg_bits.F64(2.0), arg_bits.S32(-4), arg_bits.BF16(1.5)])
    assert raw[:8] == struct.pack("<f", 1.5) + bytes(4) and raw[8:12] == struct.pack("<d", 2.0)[:4]
    assert raw[16:24] == struct.pack("<i", -4) + bytes(4) and raw[24:26] == struct.pack("<f", 1.5)[2:]
    with pytest.raises(DriverError) as e:
        pack_params("k", info, [1, 2])
    assert e.value.code == 1 and "takes 4 parameters" in str(e.value)


TEX_PTX = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 t)
{
  .reg .f32 %f<5>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [t];
  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f1}];
  ret;
}
"""

#: a kernel storing 42 at its one pointer parameter
STORE_PTX = TEX_PTX.split(".visible")[0] + """.visible .entry s(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 42;
  st.global.u32 [%rd1], %r1;
  ret;
}
"""


def test_a_ptx_form_the_engine_refuses_answers_801_without_a_sticky_error() -> None:
    """A launch whose PTX uses a refused form (a texture fetch) answers 801 naming it; the context goes on: the
    next synchronize succeeds and a following kernel runs (a refusal is no GPU fault, P-69)."""
    drv = _driver()
    f = drv.module_get_function(drv.module_load_data(TEX_PTX.encode() + b"\0"), "k")
    with pytest.raises(DriverError) as e:
        drv.launch_kernel(f, (1, 1, 1), (1, 1, 1), 0, 0, [0])
    assert int(e.value.code) == 801 and "tex" in e.value.why and "'k'" in e.value.why
    drv.ctx_synchronize()
    out = drv.mem_alloc(16)
    drv.launch_kernel(drv.module_get_function(drv.module_load_data(STORE_PTX.encode() + b"\0"), "s"),
                      (1, 1, 1), (1, 1, 1), 0, 0, [out])
    drv.ctx_synchronize()
    assert _out(drv, out)[0] == 42
    drv.close()


def test_argument_values_not_matching_the_parameters_are_refused_with_invalid_value() -> None:
    """A launch giving two values to a one-parameter PTX kernel answers INVALID_VALUE naming the counts; nothing
    is written and the context goes on (a NULL kernelParams stays recorded only)."""
    drv = _driver()
    f = drv.module_get_function(drv.module_load_data(STORE_PTX.encode() + b"\0"), "s")
    out = drv.mem_alloc(16)
    _out(drv, out)[:] = 7
    with pytest.raises(DriverError) as e:
        drv.launch_kernel(f, (1, 1, 1), (1, 1, 1), 0, 0, [out, 5])
    assert int(e.value.code) == 1 and "takes 1 parameters, the launch gave 2" in e.value.why
    assert list(_out(drv, out)) == [7, 7, 7, 7]
    drv.ctx_synchronize()
    drv.launch_kernel(f, (1, 1, 1), (1, 1, 1), 0, 0, [out])
    drv.ctx_synchronize()
    assert _out(drv, out)[0] == 42
    drv.close()


SMID_PTX = TEX_PTX.split(".visible")[0] + """.visible .entry sm(.param .u64 out)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r2, %nsmid;
  mov.u32 %r3, %smid;
  st.global.v2.u32 [%rd3], {%r2, %r3};
  ret;
}
"""


def test_nsmid_and_smid_follow_the_device() -> None:
    """%nsmid reads the device's multiprocessor count (108 on the default device) and %smid is the block index
    modulo it [I]."""
    drv = _driver()
    f = drv.module_get_function(drv.module_load_data(SMID_PTX.encode() + b"\0"), "sm")
    out = drv.mem_alloc(8 * 110)
    drv.launch_kernel(f, (110, 1, 1), (1, 1, 1), 0, 0, [out])
    drv.ctx_synchronize()
    got = np.frombuffer(drv.memory.kernel_view(out, 8 * 110), dtype=np.uint32).reshape(110, 2)
    assert drv.devices[0].spec.multiprocessors == 108
    assert (got[:, 0] == 108).all() and list(got[[0, 107, 108, 109], 1]) == [0, 107, 0, 1]
    drv.close()
