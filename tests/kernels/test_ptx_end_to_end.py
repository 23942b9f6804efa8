"""Real kernels compiled by NVIDIA's NVRTC run on the engine with no Python twin (issue 17, end to end)."""
from __future__ import annotations

import numpy as np
import pytest

import simcuda
from simcuda._core.errors import DriverError

SRC = (b'extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {\n'
       b'  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }\n'
       b'extern "C" __global__ void oob(float *c) { c[threadIdx.x + (1 << 24)] = 1.0f; }\n')


def _cubin() -> bytes:
    """SRC compiled to a CUBIN by simcuda's nvrtc face driving NVIDIA's NVRTC (skips without it)."""
    from simcuda.faces.bindings import _real_nvrtc, nvrtc
    if _real_nvrtc.library() is None:
        pytest.skip("NVIDIA's NVRTC is not available")
    _err, prog = nvrtc.nvrtcCreateProgram(SRC, b"v.cu", 0, [], [])
    assert nvrtc.nvrtcCompileProgram(prog, 1, [b"-arch=sm_80"])[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
    cubin = b" " * nvrtc.nvrtcGetCUBINSize(prog)[1]
    assert nvrtc.nvrtcGetCUBIN(prog, cubin)[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS
    return cubin


def _device(drv, addr, n):
    return np.frombuffer(drv.memory.kernel_view(addr, 4 * n), dtype=np.float32)


def test_vector_add_from_an_nvrtc_cubin_runs_with_no_twin():
    """A CUBIN from NVRTC loads, its launch runs the remembered PTX, and c == a + b; nothing is listed as
    recorded only."""
    drv = simcuda.Driver()
    drv.init(0)
    drv.ctx_create(0, 0)
    f = drv.module_get_function(drv.module_load_data(_cubin()), "vadd")
    n = 1000
    bufs = [drv.mem_alloc(4 * n) for _ in range(3)]
    rng = np.random.default_rng(1)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    _device(drv, bufs[0], n)[:] = a
    _device(drv, bufs[1], n)[:] = b
    drv.launch_kernel(f, (8, 1, 1), (128, 1, 1), 0, 0, [*bufs, n])
    drv.ctx_synchronize()
    assert np.array_equal(_device(drv, bufs[2], n), a + b)
    assert drv.kernels_without_implementation == {}
    drv.close()


def test_out_of_bounds_store_is_a_sticky_700_naming_the_kernel():
    """A store outside every allocation gives 700 at the next synchronisation, sticky, the why naming the kernel."""
    drv = simcuda.Driver()
    drv.init(0)
    drv.ctx_create(0, 0)
    f = drv.module_get_function(drv.module_load_data(_cubin()), "oob")
    c = drv.mem_alloc(64)
    drv.launch_kernel(f, (1, 1, 1), (4, 1, 1), 0, 0, [c])
    with pytest.raises(DriverError) as e:
        drv.ctx_synchronize()
    assert int(e.value.code) == 700 and "oob" in e.value.why
    with pytest.raises(DriverError) as again:
        drv.mem_alloc(64)
    assert int(again.value.code) == 700
    drv.close()
