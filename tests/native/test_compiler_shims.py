"""The compiler shims of the native route (simcuda/faces/native/compilers.py, libnvrtc_shim.c, libnvjitlink_shim.c):
found by soname, they forward every function to NVIDIA's library and hand the PTX of each CUBIN taken to the simulator;
a CUBIN whose PTX is not known is refused at launch; a missing shim degrades with a clear message. Each test runs in
a fresh interpreter (the native route's libraries stay loaded for a process's life)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from simcuda.faces import native
from simcuda.faces.native import compilers

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

SRC = 'extern "C" __global__ void fill(int *out, int v) { out[threadIdx.x] = v + threadIdx.x; }\n'

#: a fresh interpreter's first lines: the native route, and cuda.core's compile + launch of SRC's kernel from bytes
PRELUDE = r'''
import json, sys
import numpy as np
import simcuda
from simcuda.faces.native import compilers
SRC = __SRC__
out = {}

def compile_cubin(src=SRC, arch="sm_80"):
    from cuda.bindings import nvrtc
    err, prog = nvrtc.nvrtcCreateProgram(src.encode(), b"fill.cu", 0, [], [])
    rc, = nvrtc.nvrtcCompileProgram(prog, 1, [("--gpu-architecture=" + arch).encode()])
    _, n = nvrtc.nvrtcGetCUBINSize(prog)
    cubin = b" " * n
    nvrtc.nvrtcGetCUBIN(prog, cubin)
    _, m = nvrtc.nvrtcGetPTXSize(prog)
    ptx = b" " * m
    nvrtc.nvrtcGetPTX(prog, ptx)
    return int(rc), cubin, ptx

def launch_fill(image, kind="cubin"):
    """launch fill<<<1, 4>>>(out, 40) from the image with cuda.core; the result, or the error text."""
    from cuda.core import Device, LaunchConfig, ObjectCode, launch
    from cuda.bindings import driver as cu
    dev = Device()
    dev.set_current()
    s = dev.create_stream()
    mod = ObjectCode.from_cubin(image) if kind == "cubin" else ObjectCode.from_ptx(image)
    k = mod.get_kernel("fill")
    buf = dev.memory_resource.allocate(16, stream=s)
    s.sync()
    cu.cuMemsetD32(int(buf.handle), 7, 4)
    try:
        launch(s, LaunchConfig(grid=1, block=4), k, buf, np.int32(40))
        s.sync()
    except Exception as e:
        return type(e).__name__ + ": " + str(e)
    got = np.zeros(4, np.int32)
    cu.cuMemcpyDtoH(got, int(buf.handle), 16)
    return got.tolist()
'''.replace("__SRC__", repr(SRC))


def run(body: str, env: dict[str, str] | None = None) -> tuple[dict[str, Any], str]:
    """Run PRELUDE + ``body`` in a fresh interpreter; (the ``out`` dict it printed, its stderr)."""
    script = PRELUDE + textwrap.dedent(body) + "\nprint('OUT=' + json.dumps(out))\n"
    full = dict(os.environ)
    full.update(env or {})
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, env=full)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-4000:]
    line = [x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1]
    return json.loads(line[4:]), r.stderr


def _need_nvrtc() -> None:
    if compilers.real_path("nvrtc") is None:
        pytest.skip("NVIDIA's NVRTC (nvidia-cuda-nvrtc) is not installed")


def test_pathfinder_finds_the_shim_and_every_function_forwards() -> None:
    """Under the native route cuda.pathfinder hands out simcuda's libnvrtc.so.13; every function cuda.bindings
    resolves exists in the real library, and nvrtcVersion / nvrtcGetErrorString answer what the real one does."""
    _need_nvrtc()
    out, _err = run('''
    import ctypes
    with simcuda.patch(route="native"):
        from cuda.pathfinder import load_nvidia_dynamic_lib
        from cuda.bindings import nvrtc
        out["status"] = compilers.status()["nvrtc"]
        out["found"] = load_nvidia_dynamic_lib("nvrtc").abs_path
        out["forwarded"] = compilers.forwarded("nvrtc")
        out["version"] = list(nvrtc.nvrtcVersion()[1:])
        out["error_string"] = nvrtc.nvrtcGetErrorString(nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION)[1].decode()
        real = ctypes.CDLL(compilers.real_path("nvrtc"))
        major, minor = ctypes.c_int(), ctypes.c_int()
        real.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
        real.nvrtcGetErrorString.restype = ctypes.c_char_p
        out["real_version"] = [major.value, minor.value]
        out["real_error_string"] = real.nvrtcGetErrorString(6).decode()
    ''')
    assert out["status"].startswith("intercepting ") and out["status"].endswith(compilers.real_path("nvrtc"))
    assert out["found"] == str(compilers.shim_path(compilers.COMPILERS[0]))
    assert len(out["forwarded"]) == 29 and all(out["forwarded"].values())
    assert out["version"] == out["real_version"]
    assert out["error_string"] == out["real_error_string"] == "NVRTC_ERROR_COMPILATION"


def test_cubin_from_nvidia_nvrtc_has_its_ptx_remembered_and_compile_errors_pass_through() -> None:
    """nvrtcGetCUBIN through the shim records the program's PTX for those CUBIN bytes (one report, with PTX); a
    program that does not compile gets NVRTC's own error code and log."""
    _need_nvrtc()
    out, _err = run('''
    with simcuda.patch(route="native"):
        from simcuda._core.modules.module_model import ptx_of_image
        rc, cubin, ptx = compile_cubin()
        out["rc"], out["elf"] = rc, cubin.startswith(b"\\x7fELF")
        out["same"] = ptx_of_image(cubin, None) == ptx.decode().rstrip("\\0")
        out["reports"] = compilers.reports()
        from cuda.bindings import nvrtc
        _, bad = nvrtc.nvrtcCreateProgram(b"__global__ void k() { nope; }", b"bad.cu", 0, [], [])
        out["bad_rc"] = int(nvrtc.nvrtcCompileProgram(bad, 0, [])[0])
        _, n = nvrtc.nvrtcGetProgramLogSize(bad)
        log = b" " * n
        nvrtc.nvrtcGetProgramLog(bad, log)
        out["bad_log"] = log.decode(errors="replace")
    ''')
    assert out["rc"] == 0 and out["elf"] and out["same"]
    assert out["reports"] == {"cubins": 1, "with_ptx": 1, "relinked": 0}
    assert out["bad_rc"] == 6 and "nope" in out["bad_log"]


def test_nvjitlink_linked_cubin_gets_its_ptx_input_and_runs() -> None:
    """A CUBIN linked by NVIDIA's nvJitLink from a PTX input has that PTX remembered, and cuda.core's launch of a
    kernel loaded from it computes (skips without nvidia-nvjitlink)."""
    _need_nvrtc()
    if compilers.real_path("nvJitLink") is None:
        pytest.skip("NVIDIA's nvJitLink (nvidia-nvjitlink) is not installed")
    out, _err = run('''
    with simcuda.patch(route="native"):
        from cuda.bindings import nvjitlink
        from simcuda._core.modules.module_model import ptx_of_image
        out["status"] = compilers.status()["nvJitLink"]
        _rc, _cubin, ptx = compile_cubin(arch="compute_80")
        h = nvjitlink.create(1, ["-arch=sm_80"])
        nvjitlink.add_data(h, nvjitlink.InputType.PTX, ptx, len(ptx), "fill.ptx")
        nvjitlink.complete(h)
        buf = bytearray(nvjitlink.get_linked_cubin_size(h))
        nvjitlink.get_linked_cubin(h, buf)
        cubin = bytes(buf)
        nvjitlink.destroy(h)
        out["same"] = ptx_of_image(cubin, None) == ptx.decode().rstrip("\\0")
        out["links_left"] = len(compilers._links)
        out["result"] = launch_fill(cubin)
    ''')
    assert out["status"].startswith("intercepting ")
    assert out["same"] and out["links_left"] == 0
    assert out["result"] == [40, 41, 42, 43]


def test_cubin_compiled_in_another_process_is_refused_with_801_and_the_context_goes_on(tmp_path: Any) -> None:
    """A CUBIN from an NVRTC in another process (PTX unknown here) is refused at launch with
    CUDA_ERROR_NOT_SUPPORTED, the why naming the kernel and remedies; the output is unchanged and a kernel compiled
    in this process then runs (the refusal is not sticky)."""
    _need_nvrtc()
    cubin_file = tmp_path / "fill.cubin"
    run(f'''
    with simcuda.patch(route="native"):
        rc, cubin, _ptx = compile_cubin()
        open({str(cubin_file)!r}, "wb").write(cubin)
    ''')
    out, _err = run(f'''
    with simcuda.patch(route="native") as drv:
        out["foreign"] = launch_fill(open({str(cubin_file)!r}, "rb").read())
        e = simcuda.last_error()
        out["code"], out["why"] = int(e.code), e.why
        out["listed"] = drv.kernels_without_implementation
        _rc, cubin, _ptx = compile_cubin()
        out["own"] = launch_fill(cubin)
    ''')
    assert "CUDA_ERROR_NOT_SUPPORTED" in out["foreign"]
    assert out["code"] == 801 and "'fill'" in out["why"] and "@simcuda.kernel('fill')" in out["why"]
    assert out["listed"] == {"fill": 1}
    assert out["own"] == [40, 41, 42, 43]


def test_missing_shim_degrades_with_a_clear_message() -> None:
    """With the shim not built (no C compiler at install) the native route still comes up, says why on stderr
    and in status(), and a CUBIN's launch is refused with 801 whose why repeats it."""
    _need_nvrtc()
    out, err = run('''
    import pathlib
    compilers.shim_path = lambda c: pathlib.Path("/nonexistent") / c.soname
    compilers._build_status = lambda: ("not built", "no C compiler: CC is unset and neither cc nor gcc is on PATH", "")
    with simcuda.patch(route="native"):
        out["status"] = compilers.status()["nvrtc"]
        _rc, cubin, _ptx = compile_cubin()
        out["result"] = launch_fill(cubin)
        out["why"] = simcuda.last_error().why
    ''')
    assert out["status"] == ("simcuda's shim libnvrtc.so.13 is not built: no C compiler: CC is unset and neither cc "
                             "nor gcc is on PATH")
    assert "the PTX of nvrtc's CUBINs is not taken (simcuda's shim libnvrtc.so.13 is not built" in err
    assert "CUDA_ERROR_NOT_SUPPORTED" in out["result"]
    assert "nvrtc: simcuda's shim libnvrtc.so.13 is not built" in out["why"]


def test_nvrtc_loaded_before_the_native_route_is_reported() -> None:
    """When NVIDIA's libnvrtc was loaded before simcuda.patch(route='native'), status() and stderr say so (its
    CUBINs' PTX cannot be taken), and nothing else changes."""
    _need_nvrtc()
    out, err = run('''
    from cuda.pathfinder import load_nvidia_dynamic_lib
    load_nvidia_dynamic_lib("nvrtc")
    with simcuda.patch(route="native"):
        out["status"] = compilers.status()["nvrtc"]
        out["rc"] = compile_cubin()[0]
    ''')
    assert "was loaded before the native route was set up" in out["status"]
    assert "was loaded before the native route was set up" in err
    assert out["rc"] == 0


def test_nvjitlink_link_of_two_ptx_modules_runs_the_joined_ptx() -> None:
    """A kernel calling a device function of another relocatable PTX module, linked by nvJitLink (no linked PTX),
    runs from the two modules' PTX joined (skips without nvidia-nvjitlink)."""
    _need_nvrtc()
    if compilers.real_path("nvJitLink") is None:
        pytest.skip("NVIDIA's nvJitLink (nvidia-nvjitlink) is not installed")
    out, _err = run('''
    with simcuda.patch(route="native"):
        from cuda.bindings import nvjitlink, nvrtc

        def relocatable_ptx(src, name):
            _, prog = nvrtc.nvrtcCreateProgram(src.encode(), name.encode(), 0, [], [])
            nvrtc.nvrtcCompileProgram(prog, 2, [b"--gpu-architecture=compute_80", b"-rdc=true"])
            _, m = nvrtc.nvrtcGetPTXSize(prog)
            ptx = b" " * m
            nvrtc.nvrtcGetPTX(prog, ptx)
            return ptx
        a = relocatable_ptx('extern __device__ int twice(int); extern "C" __global__ void fill(int *o, int v) '
                            '{ o[threadIdx.x] = twice(v / 2) + threadIdx.x; }', "a.cu")
        b = relocatable_ptx('__device__ int twice(int x) { return 2 * x; }', "b.cu")
        h = nvjitlink.create(1, ["-arch=sm_80"])
        for ptx, name in ((a, "a.ptx"), (b, "b.ptx")):
            nvjitlink.add_data(h, nvjitlink.InputType.PTX, ptx, len(ptx), name)
        nvjitlink.complete(h)
        buf = bytearray(nvjitlink.get_linked_cubin_size(h))
        nvjitlink.get_linked_cubin(h, buf)
        nvjitlink.destroy(h)
        out["result"] = launch_fill(bytes(buf))
    ''')
    assert out["result"] == [40, 41, 42, 43]


def test_lto_link_through_cuda_core_runs_from_a_relink_for_ptx() -> None:
    """cuda.core's LTO flow (Program.compile('ltoir'), Linker with link_time_optimization, link('cubin')) gives a
    CUBIN whose PTX the shim gets by linking the LTO-IR again with -ptx; the kernel computes."""
    _need_nvrtc()
    if compilers.real_path("nvJitLink") is None:
        pytest.skip("NVIDIA's nvJitLink (nvidia-nvjitlink) is not installed")
    out, _err = run('''
    with simcuda.patch(route="native"):
        from cuda.core import Device, Linker, LinkerOptions, Program, ProgramOptions
        dev = Device()
        arch = "sm_" + "".join(str(v) for v in dev.compute_capability)
        obj = Program(SRC, "c++", ProgramOptions(arch=arch, link_time_optimization=True)).compile("ltoir")
        linked = Linker(obj, options=LinkerOptions(arch=arch, link_time_optimization=True)).link("cubin")
        out["result"] = launch_fill(bytes(linked.code))
        out["reports"] = compilers.reports()
    ''')
    assert out["result"] == [40, 41, 42, 43]
    assert out["reports"] == {"cubins": 1, "with_ptx": 1, "relinked": 1}
