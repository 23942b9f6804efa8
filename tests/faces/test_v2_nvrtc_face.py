"""The ``cuda.bindings._v2.nvrtc`` face (issue 10): names and shapes of the real module, over the tuple face."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import simcuda
from simcuda.faces.bindings._v2 import nvrtc as n

SRC = b'extern "C" __global__ void k(float* a, int n) {}\n__global__ void tmpl(int* x) {}\n'


@pytest.fixture(autouse=True)
def _simcuda_reader(monkeypatch):
    """These tests check the face's own reader (its images, its logs): NVIDIA's NVRTC stays out of it."""
    monkeypatch.setenv("SIMCUDA_NVRTC", "simcuda")


def real_v2():
    """The real ``cuda.bindings._v2.nvrtc`` of cuda-bindings 13.5, or skip."""
    real = pytest.importorskip("cuda.bindings._v2.nvrtc")
    import cuda.bindings
    if not cuda.bindings.__version__.startswith("13.5"):
        pytest.skip("needs cuda-bindings 13.5.x")
    return real


def test_every_public_name_of_the_real_module_exists():
    """Functions, enums and every exception class of the real module exist here (the numpy dtype aside)."""
    real = real_v2()
    public = {x for x in dir(real) if not x.startswith("_")} - {"bundled_headers_info_dtype"}
    assert sorted(public - set(dir(n))) == []
    assert [m.name for m in n.Result] == [m.name for m in real.Result]
    assert [(m.name, int(m)) for m in n.InstallHeadersFlag] == [(m.name, int(m)) for m in real.InstallHeadersFlag]
    errors = [c for c in vars(real).values() if isinstance(c, type) and issubclass(c, real.NvrtcError)]
    assert len(errors) == len(real.Result)  # NvrtcError and one class per error result
    for c in errors:
        assert issubclass(getattr(n, c.__name__), n.NvrtcError), c.__name__


def test_compile_and_read_the_outputs():
    """create, compile, read PTX/CUBIN/log as whole buffers with their NUL, lowered names, destroy."""
    p = n.create_program(SRC, b"t.cu")
    assert isinstance(p, int)
    n.add_name_expression(p, "tmpl")
    n.compile_program(p, [b"-arch=sm_90"])
    ptx = n.get_ptx(p)
    assert len(ptx) == n.get_ptx_size(p) and ptx.endswith(b"\0") and b".entry k(" in ptx
    cubin = n.get_cubin(p)
    assert len(cubin) == n.get_cubin_size(p) and cubin.startswith(b"SIMCUDA-CUBIN")
    assert n.get_program_log(p) == b"\0" and n.get_program_log_size(p) == 1
    assert n.get_lowered_name(p, "tmpl") == b"_Z4tmplPi"
    n.destroy_program(p)
    with pytest.raises(n.InvalidProgramError) as e:
        n.get_ptx(p)
    assert e.value.status == n.Result.ERROR_INVALID_PROGRAM and str(e.value) == "NVRTC_ERROR_INVALID_PROGRAM"


def test_library_calls_and_their_shapes():
    """version is a tuple, get_error_string a str, supported archs ascending C ints."""
    assert n.version() == (13, 5)
    assert n.get_error_string(6) == "NVRTC_ERROR_COMPILATION"
    archs = list(n.get_supported_archs())
    assert archs == sorted(archs) and len(archs) == n.get_num_supported_archs()
    with pytest.raises(n.NoPchCreateAttemptedError):
        n.get_pch_create_status(n.create_program(SRC, None))
    with pytest.raises(TypeError):
        n.get_ptx("not a handle")


def test_a_compile_error_raises_compilation_error_with_the_log():
    """A source that does not compile raises CompilationError; the log says why."""
    p = n.create_program(b'extern "C" __global__ void k( {', b"bad.cu")
    with pytest.raises(n.CompilationError):
        n.compile_program(p, None)
    assert b"bad.cu" in n.get_program_log(p)


def test_mismatched_header_lists_are_invalid_input():
    """headers and include_names of different lengths: InvalidInputError."""
    with pytest.raises(n.InvalidInputError):
        n.create_program(SRC, b"t.cu", [b"int x;"], [])


def test_patch_installs_the_face_as_cuda_bindings_v2_nvrtc():
    """simcuda.patch(): ``import cuda.bindings._v2.nvrtc`` gives this face, and restores afterwards."""
    before = sys.modules.get("cuda.bindings._v2.nvrtc")
    with simcuda.patch():
        from cuda.bindings._v2 import nvrtc as got
        assert got is n
    assert sys.modules.get("cuda.bindings._v2.nvrtc") is before


def test_native_route_keeps_nvidias_v2_nvrtc_when_its_library_loads():
    """On the native route NVIDIA's own _v2.nvrtc stays where libnvrtc loads (as cuda.bindings.nvrtc), else
    simcuda's face serves."""
    from simcuda.faces import native
    if not native.available()[0]:
        pytest.skip(f"native route: {native.available()[1]}")
    code = r'''
import json, simcuda
from simcuda import _patch
with simcuda.patch(route="native"):
    from cuda.bindings._v2 import nvrtc
    from cuda.bindings import nvrtc as tuple_face
    p = nvrtc.create_program(b'extern "C" __global__ void k(int* a) {}', b"t.cu", None, None)
    nvrtc.compile_program(p, [b"-arch=sm_90"])
    print(json.dumps({"why": _patch.nvrtc_why, "v2": nvrtc.__name__, "tuple": tuple_face.__name__,
                      "ptx": b".entry k" in nvrtc.get_ptx(p)}))
'''
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["ptx"]
    if out["why"] is None:
        assert out["v2"] == "cuda.bindings._v2.nvrtc" and out["tuple"] == "cuda.bindings.nvrtc"
    else:
        assert out["v2"] == "simcuda.faces.bindings._v2.nvrtc"
