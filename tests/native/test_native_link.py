"""The simulated JIT linker on the native route (NVIDIA's compiled cuda.bindings over simcuda's libcuda.so.1, in a
subprocess): the C entries called through cuGetProcAddress with option arrays the caller keeps (log buffers
filled, sizes and wall time written back into the slots, the image valid until cuLinkDestroy), NVIDIA's Python
wrapper with bytearray log buffers, and cuda.core's Linker on its driver backend."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from simcuda.faces import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

PRELUDE = r'''
import ctypes, json
import numpy as np
import simcuda
from tests.faces._link_ptx import ADD1, BAD
out = {}
with simcuda.patch(simcuda.Driver(), route="native"):
    from cuda.bindings import driver as d
    d.cuInit(0)
    _, dev = d.cuDeviceGet(0)
    _, ctx = d.cuDevicePrimaryCtxRetain(dev)
    d.cuCtxSetCurrent(ctx)
'''

C_ENTRIES = PRELUDE + r'''
    V = ctypes.c_void_p

    def fn(name, *argtypes):
        e, p, _status = d.cuGetProcAddress(name, 12000, 0)
        return ctypes.CFUNCTYPE(ctypes.c_int, *argtypes)(p)
    create = fn(b"cuLinkCreate", ctypes.c_uint, V, V, V)
    add = fn(b"cuLinkAddData", V, ctypes.c_int, V, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_uint, V, V)
    complete = fn(b"cuLinkComplete", V, V, V)
    destroy = fn(b"cuLinkDestroy", V)
    info, err = ctypes.create_string_buffer(512), ctypes.create_string_buffer(512)
    keys = (ctypes.c_int * 5)(3, 4, 5, 6, 2)
    vals = (V * 5)(ctypes.addressof(info), 512, ctypes.addressof(err), 512, None)
    st = V()
    out["null_state"] = create(0, None, None, None)
    out["null_options"] = create(1, None, ctypes.addressof(vals), ctypes.byref(st))
    out["create"] = create(5, ctypes.addressof(keys), ctypes.addressof(vals), ctypes.byref(st))
    good = ctypes.create_string_buffer(ADD1, len(ADD1))
    bad = ctypes.create_string_buffer(BAD, len(BAD))
    lib = ctypes.create_string_buffer(b"!<arch>\n", 8)
    out["bad"] = add(st, 1, ctypes.addressof(bad), len(BAD), b"bad.ptx", 0, None, None)
    out["err_log"] = err.value.decode()
    out["err_size"] = vals[3]
    out["library"] = add(st, 4, ctypes.addressof(lib), 8, b"cudadevrt", 0, None, None)
    out["add"] = add(st, 1, ctypes.addressof(good), len(ADD1), b"add1.ptx", 0, None, None)
    cubin, size = V(), ctypes.c_size_t()
    out["complete"] = complete(st, ctypes.byref(cubin), ctypes.byref(size))
    out["info_log"] = info.value.decode()
    out["info_size_ok"] = vals[1] == len(info.value) + 1
    out["wall_ms_ok"] = ctypes.c_float.from_address(ctypes.addressof(vals) + 4 * 8).value >= 0.0
    e, mod = d.cuModuleLoadData(ctypes.string_at(cubin.value, size.value))
    e, f = d.cuModuleGetFunction(mod, b"add1")
    x = np.arange(40, dtype=np.uint32)
    e, buf = d.cuMemAlloc(x.nbytes)
    d.cuMemcpyHtoD(buf, x, x.nbytes)
    d.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, 0, ((buf, 30), (None, ctypes.c_uint32)), 0)
    d.cuCtxSynchronize()
    y = np.empty_like(x)
    d.cuMemcpyDtoH(y, buf, y.nbytes)
    out["computed"] = bool((y == np.where(x < 30, x + 1, x)).all())
    out["destroy"] = destroy(st)
    out["destroy_again"] = destroy(st)
    out["complete_after"] = complete(st, ctypes.byref(cubin), ctypes.byref(size))
print("OUT=" + json.dumps(out))
'''

WRAPPERS = PRELUDE + r'''
    O = d.CUjit_option
    info = bytearray(1024)
    e, st = d.cuLinkCreate(2, [O.CU_JIT_INFO_LOG_BUFFER, O.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES], [info, 1024])
    out["create"] = int(e)
    out["add"] = int(d.cuLinkAddData(st, d.CUjitInputType.CU_JIT_INPUT_PTX, ADD1, len(ADD1), b"w.ptx", 0, None,
                                     None)[0])
    e, addr, size = d.cuLinkComplete(st)
    out["complete"] = int(e)
    out["info_log"] = bytes(info).split(b"\0", 1)[0].decode()
    out["destroy"] = int(d.cuLinkDestroy(st)[0])
    from cuda.core import Device, Linker, LinkerOptions, ObjectCode
    dev = Device()
    dev.set_current()
    arch = "sm_" + "".join(str(v) for v in dev.compute_capability)
    linker = Linker(ObjectCode.from_ptx(ADD1.rstrip(b"\0"), name="core.ptx"), options=LinkerOptions(arch=arch))
    out["backend"] = str(Linker.which_backend())
    code = linker.link("cubin")
    out["core_info"] = linker.get_info_log()
    out["core_kernel"] = code.get_kernel("add1") is not None
print("OUT=" + json.dumps(out))
'''


def run(script: str) -> dict:
    """Run ``script`` in a fresh interpreter from the repository root; its OUT= line."""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    return json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])


def test_the_c_entries_fill_the_logs_write_back_the_slots_and_keep_the_image_until_destroy():
    """Through the C entries: NULL stateOut/options INVALID_VALUE, a PTX syntax error INVALID_PTX with the line in
    the error log and its size in the slot, a library NOT_SUPPORTED, the image loads and computes, the info log
    and wall time are written back, and a destroyed state is INVALID_HANDLE."""
    out = run(C_ENTRIES)
    assert (out["null_state"], out["null_options"], out["create"]) == (1, 1, 0)
    assert out["bad"] == 218 and "bad.ptx" in out["err_log"] and "line 4" in out["err_log"]
    assert out["err_size"] == len(out["err_log"]) + 1
    assert out["library"] == 801 and out["add"] == 0 and out["complete"] == 0
    assert "add1.ptx" in out["info_log"] and "kernels: add1" in out["info_log"]
    assert out["info_size_ok"] and out["wall_ms_ok"] and out["computed"]
    assert (out["destroy"], out["destroy_again"], out["complete_after"]) == (0, 400, 400)


def test_nvidias_wrapper_and_cuda_core_link_through_the_driver():
    """NVIDIA's Python wrapper fills a bytearray log; cuda.core's Linker links PTX, reads the info log and loads the
    kernel, through the simulated driver's cuLink* when nvJitLink is absent and through NVIDIA's nvJitLink (and the
    simulator's shim) when it is installed, as cuda.core chooses."""
    out = run(WRAPPERS)
    assert (out["create"], out["add"], out["complete"], out["destroy"]) == (0, 0, 0, 0)
    assert "w.ptx" in out["info_log"]
    from simcuda.faces.native import compilers
    expected = "nvjitlink" if compilers.real_path("nvJitLink") is not None else "driver"
    assert expected in out["backend"].lower()
    assert out["core_kernel"]
    if expected == "driver":  # the simulated linker's info log names its inputs (NVIDIA's nvJitLink writes none here)
        assert "core.ptx" in out["core_info"]
