"""A Python twin of a kernel that NVIDIA's NVRTC compiled to CUBIN (and of its PTX) gets the same argument values
on the Python and the native route: the module's known PTX types its parameters (a ``.f32`` is a ``float``, not the
int of its bits) on both (docs/kernels.md). Each route runs in a fresh interpreter, as tests/native does."""
from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from simcuda.faces import native
from simcuda.faces.bindings import _real_nvrtc

pytestmark = [pytest.mark.skipif(_real_nvrtc.library() is None, reason="NVIDIA's NVRTC is not installed"),
              pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")]

SCRIPT = r'''
import ctypes, json, sys
import simcuda
seen = {}

@simcuda.kernel("twin_rec")
def twin_rec(launch):
    seen.setdefault(launch.args[3], []).append(list(launch.args[1:3]))

@simcuda.kernel("twin_decl", params=["float*", "float", "int", "int"])
def twin_decl(launch):
    seen.setdefault(launch.args[3], []).append(list(launch.args[1:3]))

SRC = (b'extern "C" __global__ void twin_rec(float* out, float a, int n, int tag) { if (n > 0) out[0] = a; }\n'
       b'extern "C" __global__ void twin_decl(float* out, float a, int n, int tag) { if (n > 0) out[0] = a; }\n')
with simcuda.patch(route=sys.argv[1]):
    from cuda.bindings import driver as cu, nvrtc
    cu.cuInit(0)
    _, dev = cu.cuDeviceGet(0)
    _, ctx = cu.cuDevicePrimaryCtxRetain(dev)
    cu.cuCtxSetCurrent(ctx)
    A = cu.CUdevice_attribute
    _, major = cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev)
    _, minor = cu.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev)
    _, prog = nvrtc.nvrtcCreateProgram(SRC, b"twin.cu", 0, [], [])
    rc = [int(nvrtc.nvrtcCompileProgram(prog, 1, [f"--gpu-architecture=sm_{major}{minor}".encode()])[0])]
    images = {}
    for kind, size_of, get in (("cubin", nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN),
                               ("ptx", nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX)):
        _, size = size_of(prog)
        images[kind] = b" " * size
        rc.append(int(get(prog, images[kind])[0]))
    _, out = cu.cuMemAlloc(4)
    for tag, (kind, name, n) in enumerate((("cubin", b"twin_rec", 7), ("ptx", b"twin_rec", 7),
                                           ("cubin", b"twin_decl", -7), ("ptx", b"twin_decl", -7))):
        err, mod = cu.cuModuleLoadData(images[kind])
        _, fn = cu.cuModuleGetFunction(mod, name)
        a, nn, t, p = ctypes.c_float(1.5), ctypes.c_int(n), ctypes.c_int(tag), ctypes.c_void_p(int(out))
        arr = (ctypes.c_void_p * 4)(*(ctypes.addressof(x) for x in (p, a, nn, t)))
        rc += [int(err), int(cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ctypes.addressof(arr), 0)[0]),
               int(cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ((out, 1.5, n, tag),
                                     (None, ctypes.c_float, ctypes.c_int, ctypes.c_int)), 0)[0])]
    rc.append(int(cu.cuCtxSynchronize()[0]))
    print("OUT=" + json.dumps({"rc": rc, "seen": seen}))
'''


def on_route(route: str) -> dict[str, Any]:
    """Run :data:`SCRIPT` on ``route`` in a fresh interpreter; its OUT= line."""
    r = subprocess.run([sys.executable, "-c", SCRIPT, route], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    out: dict[str, Any] = json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])
    return out


def test_twin_of_nvrtc_cubin_and_ptx_gets_the_same_values_on_both_routes() -> None:
    """The twin of an NVRTC CUBIN or PTX kernel records float 1.5 and int 7 (a declared int: -7) on both routes,
    through a void** array and (values, types) alike, every call returning CUDA_SUCCESS."""
    want = {"0": [[1.5, 7]] * 2, "1": [[1.5, 7]] * 2, "2": [[1.5, -7]] * 2, "3": [[1.5, -7]] * 2}
    py, nat = on_route("python"), on_route("native")
    assert py == {"rc": [0] * 16, "seen": want}
    assert nat == py
