"""Real kernels on the native route (a subprocess, as tests/native does): a numba-cuda ``@cuda.jit`` kernel with
shared memory, atomics and a warp reduction, and a CUDA C kernel compiled by cuda.core's Program (NVIDIA's NVRTC)
and launched with cuda.core's ``launch``; both with no Python twin, results checked."""
from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from simcuda.faces import native
from tests.kernels._probe import driver_runs_ptx

pytestmark = [pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}"),
              pytest.mark.skipif(not driver_runs_ptx(), reason="the driver does not run PTX yet (wt-kint not merged)")]

NUMBA = r'''
import json
import numpy as np
import simcuda
links = []
with simcuda.patch(route="native"):
    simcuda.current_driver().add_hook("link_complete", after=lambda d, a, k, r, t: links.append(r[1]))
    from numba import cuda, int32

    @cuda.jit
    def block_sums(x, sums, total):
        tile = cuda.shared.array(128, int32)
        t = cuda.threadIdx.x
        i = cuda.blockIdx.x * 128 + t
        v = x[i]
        tile[t] = v
        cuda.syncthreads()
        w = tile[127 - t]
        for off in (16, 8, 4, 2, 1):
            w += cuda.shfl_down_sync(0xffffffff, w, off)
        if t % 32 == 0:
            cuda.atomic.add(sums, cuda.blockIdx.x, w)
            cuda.atomic.add(total, 0, w)

    x = np.random.default_rng(7).integers(-100, 100, 128 * 16).astype(np.int32)
    sums, total = np.zeros(16, np.int32), np.zeros(1, np.int32)
    block_sums[16, 128](x, sums, total)
    from simcuda.faces.native import compilers
    # the link: simcuda's cuLinkComplete, or NVIDIA's nvJitLink (cuda.core's Linker prefers it when installed)
    # with its linked CUBIN's PTX taken by simcuda's shim
    via = "cuLink" if links else "nvJitLink" if compilers.reports().get("with_ptx") else "none"
    print("OUT=" + json.dumps({"sums": (sums == x.reshape(16, 128).sum(1)).all().item(),
                               "total": int(total[0]) == int(x.sum()), "linked": via}))
'''

CORE = r'''
import json
import numpy as np
import simcuda
with simcuda.patch(route="native"):
    from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
    dev = Device()
    dev.set_current()
    s = dev.create_stream()
    arch = "sm_" + "".join(str(v) for v in dev.compute_capability)
    src = open("tests/kernels/programs/vector_add.cu").read()
    mod = Program(src, "c++", ProgramOptions(arch=arch)).compile("cubin")
    k = mod.get_kernel("vector_add")
    n = 10_000
    a, b = np.random.default_rng(1).random(n, dtype=np.float32), np.random.default_rng(2).random(n, dtype=np.float32)
    mr = dev.memory_resource
    bufs = [mr.allocate(4 * n, stream=s) for _ in range(3)]
    from cuda.bindings import driver as cu
    cu.cuMemcpyHtoD(int(bufs[0].handle), a, a.nbytes)
    cu.cuMemcpyHtoD(int(bufs[1].handle), b, b.nbytes)
    launch(s, LaunchConfig(grid=(n + 255) // 256, block=256), k, bufs[0], bufs[1], bufs[2], np.int32(n))
    s.sync()
    c = np.empty_like(a)
    cu.cuMemcpyDtoH(c, int(bufs[2].handle), c.nbytes)
    print("OUT=" + json.dumps({"vector_add": bool(np.array_equal(c, a + b))}))
'''

SCALARS = r'''
import json
import numpy as np
import simcuda
with simcuda.patch(route="native"):
    from cuda.core import Device, LaunchConfig, LegacyPinnedMemoryResource, Program, ProgramOptions, launch
    dev = Device()
    dev.set_current()
    arch = "sm_" + "".join(str(v) for v in dev.compute_capability)
    src = "template <typename T> __global__ void put(T* out, T v) { out[0] = v; }"
    res = {}
    for t, c, v in ((np.int16, "short", -1234), (np.float32, "float", 3.25), (np.float64, "double", -2.5),
                    (np.uint8, "unsigned char", 200), (np.int64, "long long", -(2**40))):
        name = f"put<{c}>"
        mod = Program(src, "c++", ProgramOptions(std="c++17", arch=arch)).compile("cubin", name_expressions=(name,))
        buf = LegacyPinnedMemoryResource().allocate(np.dtype(t).itemsize)
        arr = np.from_dlpack(buf).view(t)
        arr[:] = 0
        launch(dev.default_stream, LaunchConfig(grid=1, block=1), mod.get_kernel(name), arr.ctypes.data, t(v))
        dev.default_stream.sync()
        res[c] = arr[0].item() == v
    print("OUT=" + json.dumps(res))
'''


def run(script: str) -> dict[str, Any]:
    """Run ``script`` in a fresh interpreter; its OUT= line."""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    out: dict[str, Any] = json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])
    return out


def test_numba_cuda_kernel_shared_atomics_warp_reduction() -> None:
    """numba's kernel (shared tile, shfl_down reduction, atomic adds) gives numpy's per-block and total sums, its PTX
    linked by simcuda's cuLinkComplete, or by NVIDIA's nvJitLink when it is installed (PTX taken by the shim)."""
    pytest.importorskip("numba_cuda")
    from simcuda.faces.native import compilers
    want = "nvJitLink" if compilers.real_path("nvJitLink") is not None else "cuLink"
    assert run(NUMBA) == {"sums": True, "total": True, "linked": want}


def test_cuda_core_program_and_launch() -> None:
    """cuda.core's Program.compile('cubin') + launch of vector_add computes a + b on the native route (its PTX taken
    at NVIDIA's NVRTC by simcuda's shim, simcuda/faces/native/compilers.py)."""
    assert run(CORE) == {"vector_add": True}


def test_cuda_core_templated_scalar_kernels_write_pinned_memory() -> None:
    """Templated kernels (name expressions) compiled to CUBIN by NVIDIA's NVRTC write each scalar argument, floats
    included (a CUBIN's parameters have sizes only: their bytes pass as they are), into pinned host memory."""
    assert run(SCALARS) == {"short": True, "float": True, "double": True, "unsigned char": True, "long long": True}
