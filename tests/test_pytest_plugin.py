"""simcuda's pytest plugin: the fixtures and the marker, on both routes (run in a pytest subprocess of its own)."""
from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from simcuda.faces import native

TESTS = textwrap.dedent('''
    import pytest
    import simcuda

    def test_driver_fixture(simcuda_driver):
        assert simcuda.current_driver() is simcuda_driver
        from cuda.bindings import driver   # the fixture alone patches too
        assert driver.cuInit(0)[0] == driver.CUresult.CUDA_SUCCESS

    @pytest.mark.simcuda(route="python")
    def test_marker_patches_the_python_faces(patched_cuda):
        from cuda.bindings import driver
        assert driver.__name__ == "simcuda.faces.bindings.driver"
        assert driver.cuInit(0) == (driver.CUresult.CUDA_SUCCESS,)
        assert patched_cuda is simcuda.current_driver()

    def test_unpatched_after_the_marked_test():
        import sys
        assert "simcuda" not in getattr(sys.modules.get("cuda.bindings.driver"), "__name__", "")

    NATIVE
''')

NATIVE = textwrap.dedent('''
    @pytest.mark.simcuda(route="native")
    def test_marker_takes_the_native_route(patched_cuda):
        from cuda.bindings import driver
        assert "simcuda" not in driver.__name__  # NVIDIA's own module
        assert driver.cuInit(0) == (driver.CUresult.CUDA_SUCCESS,)
        err, dev = driver.cuDeviceGet(0)
        err, ctx = driver.cuDevicePrimaryCtxRetain(dev)
        assert driver.cuCtxSetCurrent(ctx) == (driver.CUresult.CUDA_SUCCESS,)
        err, s = driver.cuStreamCreate(1)
        assert err == driver.CUresult.CUDA_SUCCESS
        assert driver.cuStreamSynchronize(s) == (driver.CUresult.CUDA_SUCCESS,)
''')


def run(tmp_path, native_case: bool) -> subprocess.CompletedProcess[str]:
    body = TESTS.replace("NATIVE", NATIVE if native_case else "")
    (tmp_path / "test_user.py").write_text(body)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           str(tmp_path)],
                          capture_output=True, text=True, timeout=180, cwd=tmp_path)


def test_fixtures_and_marker(tmp_path):
    r = run(tmp_path, native_case=False)
    assert r.returncode == 0 and "3 passed" in r.stdout, r.stdout + r.stderr


@pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")
def test_marker_with_the_native_route(tmp_path):
    r = run(tmp_path, native_case=True)
    assert r.returncode == 0 and "4 passed" in r.stdout, r.stdout + r.stderr


# ---------------------------------------------------------------------------------------------- pytest --simcuda
SAMPLES = Path(__file__).resolve().parent / "sample_projects"
NATIVE_OK = native.available()[0]


def pytest_run(cwd, *args, timeout=300) -> subprocess.CompletedProcess[str]:
    """``python -m pytest ARGS`` in ``cwd``, in a process of its own (in file order unless ARGS ask for
    ``-p randomly``: pytest-randomly, installed with the test extra, shuffles every run it is not kept out of)."""
    order = () if "randomly" in args else ("-p", "no:randomly")
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *order, *args],
                          capture_output=True, text=True, timeout=timeout, cwd=cwd)


def sample(tmp_path, name):
    """A fresh copy of sample project ``name`` (its files exactly as committed)."""
    dst = tmp_path / name
    shutil.copytree(SAMPLES / name, dst)
    return dst


def test_the_marker_driver_is_in_place_before_the_tests_own_fixtures(tmp_path):
    """A marked test's own fixture that initialises the driver and makes a context acts on the marker's driver: the
    test sees that context current and the marker's device count (not a fresh, uninitialised driver)."""
    (tmp_path / "test_fx.py").write_text(
        "import pytest\nimport simcuda\nfrom simcuda.faces.bindings import driver as cu\n\n"
        "@pytest.fixture\ndef ctx():\n    assert cu.cuInit(0) == (cu.CUresult.CUDA_SUCCESS,)\n"
        "    return cu.cuCtxCreate(None, 0, 0)[1]\n\n"
        "@pytest.mark.simcuda(devices=2)\ndef test_uses_ctx(ctx):\n"
        "    assert cu.cuCtxGetCurrent() == (cu.CUresult.CUDA_SUCCESS, ctx)\n"
        "    assert cu.cuDeviceGetCount() == (cu.CUresult.CUDA_SUCCESS, 2)\n")
    r = pytest_run(tmp_path, "test_fx.py")
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("route", ["python", "native"])
def test_an_unchanged_bindings_suite_passes_with_only_the_option(tmp_path, route):
    """The sample project imports cuda.bindings at module top level (library and conftest): ``pytest --simcuda``
    patches before they are imported, runs its 7 tests on fresh drivers, and reports what the run did."""
    if route == "native" and not NATIVE_OK:
        pytest.skip(f"native route: {native.available()[1]}")
    proj = sample(tmp_path, "bindings_suite")
    r = pytest_run(proj, "--simcuda", *(["--simcuda-route", "python"] if route == "python" else []))
    assert r.returncode == 0 and "7 passed" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
    assert f"route: {route}; driver scope: test; devices: 1" in r.stdout
    assert "captures: 2 begun, 2 ended; graphs: 1; graph launches: 3; kernel launches taken: 7" in r.stdout


def test_without_the_option_the_same_suite_meets_the_missing_gpu(tmp_path):
    """The control: the same suite, plain ``pytest``, fails on this machine as it would on any CPU machine."""
    proj = sample(tmp_path, "bindings_suite")
    r = pytest_run(proj)
    assert r.returncode != 0 and "passed" not in r.stdout.splitlines()[-1], r.stdout[-2000:]


def test_the_bindings_suite_under_xdist_and_random_order(tmp_path):
    """``pytest --simcuda -n 2 -p randomly``: each pytest-xdist worker patches, the tests pass in a random order,
    and the controller's report adds up the workers'."""
    proj = sample(tmp_path, "bindings_suite")
    r = pytest_run(proj, "--simcuda", "-n", "2", "-p", "randomly")
    assert r.returncode == 0 and "7 passed" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
    assert "driver scope: test (2 workers)" in r.stdout
    assert "captures: 2 begun, 2 ended; graphs: 1; graph launches: 3; kernel launches taken: 7" in r.stdout


@pytest.mark.skipif(not NATIVE_OK, reason=f"native route: {native.available()[1]}")
@pytest.mark.parametrize("extra", [(), ("-n", "2", "-p", "randomly")], ids=["serial", "xdist-randomly"])
def test_an_unchanged_cuda_core_suite_passes_on_the_native_route(tmp_path, extra):
    """The cuda.core sample (module-level ``from cuda.core import ...``, session-scoped device fixture) passes
    with ``pytest --simcuda``: NVIDIA's NVRTC compiles, NVIDIA's binding runs over the simulated library, and
    the ``auto`` scope keeps one driver for the session, since cuda.core keeps process state."""
    proj = sample(tmp_path, "core_suite")
    r = pytest_run(proj, "--simcuda", *extra)
    assert r.returncode == 0 and "5 passed" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
    assert "route: native; driver scope: session" in r.stdout
    assert "captures: 1 begun, 1 ended; graphs: 1; graph launches: 2; kernel launches taken: 11" in r.stdout


OPTIONS_SUITE = '''
import pytest
import simcuda
from cuda.bindings import driver  # at module top level: patched before collection

FIRST = {}

def test_devices_and_progression():
    assert driver.cuInit(0) == (driver.CUresult.CUDA_SUCCESS,)
    assert driver.cuDeviceGetCount() == (driver.CUresult.CUDA_SUCCESS, EXPECT_DEVICES)
    assert simcuda.current_driver().progression == EXPECT_PROGRESSION

def test_a_fresh_driver_per_test_a():
    FIRST["driver"] = simcuda.current_driver()

def test_a_fresh_driver_per_test_b():
    assert simcuda.current_driver() is not FIRST["driver"]

@pytest.mark.simcuda(devices=3, progression="manual")
def test_the_marker_makes_its_own_driver(patched_cuda):
    assert simcuda.current_driver() is patched_cuda
    driver.cuInit(0)
    assert driver.cuDeviceGetCount()[1] == 3 and patched_cuda.progression == "manual"

def test_a_kernel_without_implementation_and_a_call_not_simulated():
    driver.cuInit(0)
    assert driver.cuDeviceGetCount()[0] == driver.CUresult.CUDA_SUCCESS
    ptx = b'extern "C" __global__ void lonely() {}'  # CUDA C text given to the loader: no PTX to run
    ctx = driver.cuCtxCreate(None, 0, 0)[1]
    f = driver.cuModuleGetFunction(driver.cuModuleLoadData(ptx)[1], b"lonely")[1]
    assert driver.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0) == (driver.CUresult.CUDA_SUCCESS,)
    assert driver.cuCtxSynchronize() == (driver.CUresult.CUDA_SUCCESS,)
'''


def write_suite(tmp_path, devices=1, progression="immediate", ini=""):
    (tmp_path / "test_opts.py").write_text(OPTIONS_SUITE.replace("EXPECT_DEVICES", str(devices))
                                           .replace("EXPECT_PROGRESSION", repr(progression)))
    (tmp_path / "pytest.ini").write_text("[pytest]\n" + ini)


@pytest.mark.parametrize("how", ["command line", "ini"])
def test_driver_settings_by_option_or_ini_and_the_report(tmp_path, how):
    """``--simcuda-devices``/``--simcuda-progression`` (or the ini settings) shape every test's fresh driver; a
    marker's arguments make that test's own; the report names the kernel that ran with no Python implementation."""
    write_suite(tmp_path, devices=2, progression="manual",
                ini="simcuda = true\nsimcuda_devices = 2\nsimcuda_progression = manual\nsimcuda_route = python\n"
                if how == "ini" else "")
    args = () if how == "ini" else ("--simcuda", "--simcuda-route", "python", "--simcuda-devices", "2",
                                    "--simcuda-progression", "manual")
    r = pytest_run(tmp_path, *args)
    assert r.returncode == 0 and "5 passed" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
    assert "route: python; driver scope: test; devices: 2" in r.stdout
    assert ("kernels that could not run (no Python twin, no PTX the engine runs; refused or recorded only): "
            "lonely x1") in r.stdout


def test_session_scope_keeps_one_driver(tmp_path):
    """``--simcuda-scope session``: the tests share the session's driver (the per-test check fails, and only it)."""
    write_suite(tmp_path)
    r = pytest_run(tmp_path, "--simcuda", "--simcuda-route", "python", "--simcuda-scope", "session")
    assert "1 failed, 4 passed" in r.stdout, r.stdout[-3000:]
    assert "test_a_fresh_driver_per_test_b" in r.stdout


def test_a_marker_route_other_than_the_sessions_is_a_skip_with_its_reason(tmp_path):
    """Under ``--simcuda`` on the python route a test marked ``route='native'`` skips, saying why."""
    (tmp_path / "test_r.py").write_text("import pytest\n\n@pytest.mark.simcuda(route='native')\n"
                                        "def test_n(patched_cuda):\n    pass\n")
    r = pytest_run(tmp_path, "--simcuda", "--simcuda-route", "python", "-rs")
    assert "1 skipped" in r.stdout and "the session's patch decides the modules" in r.stdout, r.stdout[-2000:]


@pytest.mark.parametrize("args, message", [
    (("--simcuda-devices", "0"), "simcuda devices must be a positive integer"),
    (("--simcuda-kernels", "nowhere.py"), "kernels file 'nowhere.py': no such file"),
])
def test_bad_settings_are_usage_errors(tmp_path, args, message):
    """A bad ``--simcuda*`` value stops the run before collection with a usage error naming it."""
    write_suite(tmp_path)
    r = pytest_run(tmp_path, "--simcuda", *args)
    assert r.returncode == 4 and message in r.stderr, r.stdout[-1000:] + r.stderr[-1000:]


def test_simcuda_real_without_a_gpu_still_patches(tmp_path):
    """``--simcuda-real`` leaves a working real driver in place; with none here, the session is simulated."""
    write_suite(tmp_path)
    r = pytest_run(tmp_path, "--simcuda", "--simcuda-real", "--simcuda-route", "python")
    assert r.returncode == 0 and "5 passed" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
    assert "route: python" in r.stdout and "not patched" not in r.stdout


BOUNDS_SUITE = '''
import simcuda

def test_bounds():
    assert simcuda.current_driver().options.kernel_bounds == EXPECT
'''


@pytest.mark.parametrize("how, args, ini, want", [
    ("default", (), "", "strict"),
    ("option", ("--simcuda-kernel-bounds", "gpu-like"), "", "gpu-like"),
    ("ini", (), "simcuda_kernel_bounds = gpu-like\n", "gpu-like"),
])
def test_kernel_bounds_by_option_or_ini(tmp_path, how, args, ini, want):
    """``--simcuda-kernel-bounds`` (or ``simcuda_kernel_bounds``) sets every test driver's Options.kernel_bounds
    (spec 17); without either it is strict."""
    (tmp_path / "test_b.py").write_text(BOUNDS_SUITE.replace("EXPECT", repr(want)))
    (tmp_path / "pytest.ini").write_text("[pytest]\n" + ini)
    r = pytest_run(tmp_path, "--simcuda", "--simcuda-route", "python", *args)
    assert r.returncode == 0 and "1 passed" in r.stdout, (how, r.stdout[-2000:] + r.stderr[-2000:])


def test_a_malformed_kernel_bounds_environment_is_a_usage_error(tmp_path, monkeypatch):
    """SIMCUDA_KERNEL_BOUNDS outside its choices stops the run before collection, naming the variable."""
    write_suite(tmp_path)
    monkeypatch.setenv("SIMCUDA_KERNEL_BOUNDS", "loose")
    r = pytest_run(tmp_path, "--simcuda", "--simcuda-route", "python")
    assert r.returncode == 4 and "SIMCUDA_KERNEL_BOUNDS" in r.stderr, r.stdout[-1000:] + r.stderr[-1000:]
