"""The core's side of running PTX (issue 17): launches hand the engine the PTX, parameters and memory, and map
its outcome; tested with a fake engine module implementing :class:`simcuda.ptx.Module`."""
from __future__ import annotations

import struct

import numpy as np
import pytest

import simcuda
from simcuda import ptx
from simcuda._core.errors import DriverError
from simcuda.ptx import Fault, KernelInfo, Param

PTX = """.version 8.0
.target sm_80
.address_size 64
.visible .entry scale(
\t.param .u64 scale_param_0,
\t.param .f32 scale_param_1,
\t.param .u32 scale_param_2
)
{ ret; }
"""

INFO = KernelInfo(name="scale", params=(Param("scale_param_0", ".u64", 8, 8, 0),
                                        Param("scale_param_1", ".f32", 4, 4, 8),
                                        Param("scale_param_2", ".u32", 4, 4, 12)),
                  param_bytes=16, max_threads=None, reqntid=None, maxntid=None, static_shared=0, local=0, const=0,
                  num_regs=16, line=4)


class FakeModule:
    """Multiplies ``n`` floats at the pointer by the factor, through the Memory it is given; or faults."""

    def __init__(self, fault: bool = False) -> None:
        self.kernels = {"scale": INFO}
        self.variables: dict[str, tuple[str, int, bytes]] = {}
        self.target = "sm_80"
        self.fault = fault
        self.launches: list[tuple[tuple[int, int, int], tuple[int, int, int], bytes]] = []

    def launch(self, kernel, grid, block, dynamic_shared, params, memory, hooks, *, variables=None, envreg=None,
               sm_count=None):
        """Do the kernel's work on the bytes the core's Memory exposes."""
        self.launches.append((grid, block, params))
        ptr, factor, n = struct.unpack("<Qfi", params)
        if self.fault:
            raise Fault(700, f"kernel 'scale' block (0, 0, 0) thread (3, 0, 0) line 9: address 0x{ptr + 4 * n:x} "
                             "is outside every allocation", kernel="scale")
        r = memory.region(ptr)
        assert r is not None
        off = ptr - r.start
        vals = r.data[off:off + 4 * n].view(np.float32)
        vals *= factor
        return ptx.LaunchStats(lane_instructions=n)


@pytest.fixture
def fake(monkeypatch):
    """simcuda.ptx.load answers a FakeModule for the test's PTX."""
    mod = FakeModule()
    monkeypatch.setattr(ptx, "load", lambda text: mod)
    return mod


def _setup(drv):
    drv.init(0)
    drv.ctx_create(0, 0)
    f = drv.module_get_function(drv.module_load_data(PTX.encode()), "scale")
    host = np.arange(8, dtype=np.float32)
    d = drv.mem_alloc(host.nbytes)
    np.frombuffer(drv.memory.kernel_view(d, host.nbytes), dtype=np.float32)[:] = host
    return f, d, host


def test_ptx_launch_runs_the_engine_with_the_parameter_buffer(fake):
    """A launch of a PTX kernel with no twin runs the engine on parameters laid out at its offsets, and the
    engine's writes land in device memory."""
    drv = simcuda.Driver()
    f, d, _host = _setup(drv)
    drv.launch_kernel(f, (1, 1, 1), (8, 1, 1), 0, 0, [d, 2.0, 8])
    drv.ctx_synchronize()
    out = np.frombuffer(drv.memory.kernel_view(d, 32), dtype=np.float32).copy()
    assert list(out) == [2.0 * i for i in range(8)]
    assert fake.launches[0][2] == struct.pack("<Qfi", d, 2.0, 8)
    assert drv.kernels_without_implementation == {}
    drv.close()


def test_twin_takes_precedence(fake):
    """A Python twin registered for the kernel runs instead of its PTX."""
    drv = simcuda.Driver()
    f, d, _host = _setup(drv)
    ran = []
    drv.kernels["scale"] = lambda launch: ran.append(launch.name)
    drv.launch_kernel(f, (1, 1, 1), (8, 1, 1), 0, 0, [d, 2.0, 8])
    drv.ctx_synchronize()
    assert ran == ["scale"] and fake.launches == []
    drv.close()


def test_engine_fault_is_a_sticky_700_with_its_why(monkeypatch):
    """An engine Fault 700 becomes the context's sticky error, its why the engine's (kernel, block, thread)."""
    monkeypatch.setattr(ptx, "load", lambda text: FakeModule(fault=True))
    drv = simcuda.Driver()
    f, d, _host = _setup(drv)
    drv.launch_kernel(f, (1, 1, 1), (8, 1, 1), 0, 0, [d, 2.0, 8])
    with pytest.raises(DriverError) as e:
        drv.ctx_synchronize()
    assert int(e.value.code) == 700 and "thread (3, 0, 0)" in e.value.why
    with pytest.raises(DriverError) as again:
        drv.ctx_synchronize()
    assert int(again.value.code) == 700
    drv.close()


def test_refused_module_keeps_the_launch_recorded(monkeypatch):
    """When the engine refuses the module at load, a PTX launch is recorded and listed, as before."""
    def refuse(text):
        raise ptx.Unsupported("refused for the test", at_load=True)
    monkeypatch.setattr(ptx, "load", refuse)
    drv = simcuda.Driver()
    f, d, host = _setup(drv)
    drv.launch_kernel(f, (1, 1, 1), (8, 1, 1), 0, 0, [d, 2.0, 8])
    drv.ctx_synchronize()
    out = np.frombuffer(drv.memory.kernel_view(d, 32), dtype=np.float32).copy()
    assert list(out) == list(host) and drv.kernels_without_implementation == {"scale": 1}
    drv.close()


def test_nvrtc_face_remembers_the_ptx_of_a_cubin():
    """simcuda's nvrtc face, driving NVIDIA's NVRTC, remembers the PTX of each CUBIN it hands out: a module
    loaded from that CUBIN gets the program's PTX to run."""
    from simcuda.faces.bindings import _real_nvrtc, nvrtc
    if _real_nvrtc.library() is None:
        pytest.skip("NVIDIA's NVRTC is not available")
    src = b'extern "C" __global__ void scale(float *p, float f, int n) { p[threadIdx.x] *= f; }\n'
    err, prog = nvrtc.nvrtcCreateProgram(src, b"scale.cu", 0, [], [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    assert nvrtc.nvrtcCompileProgram(prog, 1, [b"-arch=sm_80"])[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
    n = nvrtc.nvrtcGetCUBINSize(prog)[1]
    cubin = b" " * n
    assert nvrtc.nvrtcGetCUBIN(prog, cubin)[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
    drv = simcuda.Driver()
    drv.init(0)
    drv.ctx_create(0, 0)
    assert drv.module_get_function(drv.module_load_data(cubin), "scale")
    from simcuda._core.modules.module_model import ptx_of_image
    assert ".entry scale" in (ptx_of_image(cubin, None) or "")
    drv.close()
