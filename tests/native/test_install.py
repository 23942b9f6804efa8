"""pip install into a fresh virtual environment: without a C compiler it succeeds and the Python faces work;
with one, the library is built into the installed package and NVIDIA's binding reaches it.

Offline by construction: ``pip install --no-index --no-deps --no-build-isolation`` from a copy of the project,
in a venv whose ``.pth`` file appends this interpreter's site-packages (attrs, setuptools, wheel, cuda-bindings;
the venv's own site-packages comes first, so the simcuda found there is the one just installed).
SIMCUDA_INSTALL_TESTS=0 skips these (about 10 s each).
"""
from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.install,
    pytest.mark.skipif(os.environ.get("SIMCUDA_INSTALL_TESTS") == "0", reason="SIMCUDA_INSTALL_TESTS=0"),
]

PROGRAM = textwrap.dedent("""
    import simcuda, simcuda.faces.native as native
    ok, why = native.available()
    print("NATIVE", ok, why)
    print("FROM", simcuda.__file__)
    with simcuda.patch():
        from cuda.bindings import driver
        assert driver.cuInit(0) == (driver.CUresult.CUDA_SUCCESS,)
        err, dev = driver.cuDeviceGet(0)
        err, ctx = driver.cuDevicePrimaryCtxRetain(dev)
        assert driver.cuCtxSetCurrent(ctx)[0] == driver.CUresult.CUDA_SUCCESS
        err, s = driver.cuStreamCreate(0)
        mode = driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL
        assert driver.cuStreamBeginCapture(s, mode)[0] == driver.CUresult.CUDA_SUCCESS
        err, status = driver.cuStreamIsCapturing(s)
        err, graph = driver.cuStreamEndCapture(s)
        err, nodes, count = driver.cuGraphGetNodes(graph, 0)
        print("FACE", err.name, status.name, count)
""")


def _requirements() -> None:
    """Skip unless this interpreter can build a wheel with no index: setuptools plus either wheel or a
    setuptools (70.1 and later) with bdist_wheel of its own."""
    try:
        import setuptools
    except ImportError:
        pytest.skip("setuptools is not installed in the test environment")
    major_minor = tuple(int(x) for x in setuptools.__version__.split(".")[:2])
    if major_minor < (70, 1):
        pytest.importorskip("wheel", reason="setuptools < 70.1 needs the wheel package (the test extra has it)")


def _project_copy(dest: Path) -> Path:
    """The files an sdist would hold, without anything built in the working tree."""
    src = dest / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "simcuda", src / "simcuda",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so*", "build-status.txt", ".libcuda-*"))
    return src


def _fresh_venv(dest: Path) -> Path:
    """A venv (no pip of its own) that also sees this interpreter's site-packages after its own; its python."""
    venv = dest / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    ours = [*site.getsitepackages(), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    (Path(purelib) / "_outer_site_packages.pth").write_text("\n".join(dict.fromkeys(ours)) + "\n")
    return python


def _install(tmp_path: Path, with_compiler: bool, editable: bool = False) -> tuple[Path, dict[str, str], str]:
    """Install a copy of the project (``tmp_path/src``) into a fresh venv; (its python, the environment used,
    pip's output)."""
    _requirements()
    src = _project_copy(tmp_path)
    python = _fresh_venv(tmp_path)
    env = {k: v for k, v in os.environ.items()
           if k not in ("CC", "PYTHONPATH", "VIRTUAL_ENV", "CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM")}
    if not with_compiler:
        only_python = tmp_path / "only-python"
        only_python.mkdir()
        (only_python / "python").symlink_to(python)
        env["PATH"] = f"{python.parent}{os.pathsep}{only_python}"
    env.update(PYTHONNOUSERSITE="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    cmd = [str(python), "-m", "pip", "install", "-v", "--no-index", "--no-deps", "--no-build-isolation",
           "--ignore-installed", *(["-e"] if editable else []), str(src)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=240)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    return python, env, r.stdout + r.stderr


def _run(python: Path, env: dict[str, str], program: str, cwd: Path) -> str:
    """Run ``program`` with the venv's python; its stdout (asserting it succeeded)."""
    r = subprocess.run([str(python), "-c", program], capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_install_without_a_c_compiler_then_a_python_face_program(tmp_path):
    """With no CC and no cc/gcc on PATH the install succeeds and prints why there is no library; in the new venv
    simcuda.faces.native.available() gives that reason and a capture through simcuda.patch() works."""
    assert shutil.which("cc", path=str(tmp_path / "only-python")) is None
    python, env, log = _install(tmp_path, with_compiler=False)
    assert "native libcuda.so.1 NOT built" in log and "no C compiler" in log
    out = _run(python, env, PROGRAM, tmp_path)
    assert "NATIVE False libcuda.so.1 was not built at install time: no C compiler" in out
    assert f"FROM {tmp_path / 'venv'}" in out
    assert "FACE CUDA_SUCCESS CU_STREAM_CAPTURE_STATUS_ACTIVE 0" in out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the native library is built on Linux only")
@pytest.mark.parametrize("editable", [False, True], ids=["normal", "editable"])
def test_install_with_a_c_compiler_builds_the_library_into_the_package(tmp_path, editable):
    """An install with the system compiler puts libcuda.so.1 where the package finds it (the installed package;
    the source tree for an editable install), available() says yes, and NVIDIA's cuda.bindings, on the loaded
    library, answers 801 for an entry with no adapter."""
    if shutil.which("cc") is None and shutil.which("gcc") is None and not os.environ.get("CC"):
        pytest.skip("no C compiler on PATH")
    python, env, log = _install(tmp_path, with_compiler=True, editable=editable)
    assert "native libcuda.so.1 built" in log
    out = _run(python, env, textwrap.dedent("""
        import simcuda.faces.native as native
        ok, why = native.available()
        print("NATIVE", ok, why)
        native.load()
        from cuda.bindings import driver
        print("REAL", int(driver.cuStreamIsCapturing(0)[0]), native.call_counts())
    """), tmp_path)
    assert f"NATIVE True {tmp_path / ('src' if editable else 'venv')}" in out
    assert "REAL 801 {('cuStreamIsCapturing', 10000): 1}" in out
