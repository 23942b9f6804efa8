"""Kernel parameters of 1, 2 and 16 bytes reach a Python kernel with their values on the native route, as on the
Python route: NVIDIA's binding packs the ``void**`` array, the adapter reads it by the kernel's parameter types
(issue 10 part 7). Each run is a subprocess of its own (the native library stays loaded for the process)."""
from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import pytest

from simcuda.faces import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

PROGRAM = r'''
import ctypes, json, struct, simcuda
SRC = b"""
#include <cuda_fp16.h>
#include <cuda/std/cstdint>
typedef float real_t;
struct Pair { int a; char b; double c; };
extern "C" __global__ void mix(int16_t s, uint8_t u, __half h, real_t f, Pair p) {}
"""
class Pair(ctypes.Structure):
    _fields_ = [("a", ctypes.c_int), ("b", ctypes.c_char), ("c", ctypes.c_double)]
got = []
PARAMS = DECLARE
@simcuda.kernel("mix", params=PARAMS)
def mix(launch):
    got.append([a.hex() if isinstance(a, bytes) else a for a in launch.args])
with simcuda.patch(route=ROUTE):
    from cuda.bindings import driver as d
    from cuda.bindings import nvrtc as nv
    d.cuInit(0)
    _, dev = d.cuDeviceGet(0)
    _, ctx = d.cuDevicePrimaryCtxRetain(dev)
    d.cuCtxSetCurrent(ctx)
    _, prog = nv.nvrtcCreateProgram(SRC, b"p.cu", 0, [], [])
    opts = [b"--gpu-architecture=sm_90"] + INCLUDES
    r = nv.nvrtcCompileProgram(prog, len(opts), opts)
    assert int(r[0]) == 0, r
    _, n = nv.nvrtcGetCUBINSize(prog)
    cubin = b" " * n
    nv.nvrtcGetCUBIN(prog, cubin)
    _, mod = d.cuModuleLoadData(cubin)
    _, fn = d.cuModuleGetFunction(mod, b"mix")
    half = struct.unpack("<H", struct.pack("<e", 1.5))[0]
    kp = ((-5, 200, half, 2.25, Pair(7, b"x", -0.5)),
          (ctypes.c_short, ctypes.c_ubyte, ctypes.c_ushort, ctypes.c_float, None))
    r = d.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, d.CUstream(0), kp, 0)
    assert int(r[0]) == 0, r
    d.cuCtxSynchronize()
    print(json.dumps({"nvrtc": nv.__file__, "args": got}))
'''


def _includes() -> list[str]:
    for r in [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda", *sorted(glob.glob("/usr/local/cuda-*"))]:
        inc = os.path.join(r, "include")
        if r and os.path.exists(os.path.join(inc, "cuda_fp16.h")) and os.path.isdir(os.path.join(inc, "cccl")):
            return [f"-I{inc}", f"-I{inc}/cccl"]
    return []


def run(route: str, nvrtc: str, declare: list[str] | None) -> dict:
    """Run PROGRAM on ``route`` with ``SIMCUDA_NVRTC=nvrtc`` and ``simcuda.kernel(params=declare)``."""
    code = (PROGRAM.replace("ROUTE", repr(route)).replace("DECLARE", repr(declare))
            .replace("INCLUDES", repr([i.encode() for i in _includes()])))
    env = dict(os.environ, SIMCUDA_NVRTC=nvrtc)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


EXPECTED = [[-5, 200, 1.5, 2.25, "07000000" + "78" + "000000" + "000000000000e0bf"]]


def test_reader_module_on_both_routes():
    """simcuda's face (its reader) on both routes: the kernel gets -5, 200, 1.5, 2.25 and the Pair's bytes."""
    py, nat = run("python", "simcuda", None), run("native", "simcuda", None)
    assert "simcuda" in nat["nvrtc"]
    assert py["args"] == nat["args"]
    assert [a[:4] for a in py["args"]] == [e[:4] for e in EXPECTED]
    assert py["args"][0][4][:10] == EXPECTED[0][4][:10] and py["args"][0][4][16:] == EXPECTED[0][4][16:]


@pytest.mark.skipif(not _includes(), reason="no CUDA toolkit include/ (cuda_fp16.h, cccl) for NVIDIA's NVRTC")
def test_nvidia_nvrtc_module_on_both_routes():
    """NVIDIA's NVRTC (under simcuda's face on the Python route, NVIDIA's own module on the native one): with the
    types declared to simcuda.kernel, a real CUBIN's sizes-only parameters read the same values on both routes."""
    declare = ["int16_t", "uint8_t", "__half", "float", "char[16]"]
    py, nat = run("python", "auto", declare), run("native", "auto", declare)
    if "simcuda" in nat["nvrtc"]:
        pytest.skip("NVIDIA's cuda.bindings.nvrtc does not serve the native route here")
    assert py["args"] == nat["args"]
    assert [a[:4] for a in nat["args"]] == [e[:4] for e in EXPECTED]
    # without the declaration, the native route's sizes-only CUBIN reads a short as unsigned (documented)
    bare = run("native", "auto", None)
    assert bare["args"][0][0] == 65531 and bare["args"][0][1] == 200
