"""simcuda's pytest plugin: the fixtures and the marker, on both routes (run in a pytest subprocess of its own)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from simcuda import native

TESTS = textwrap.dedent('''
    import pytest
    import simcuda

    def test_driver_fixture(simcuda_driver):
        assert simcuda.current_driver() is simcuda_driver

    @pytest.mark.simcuda
    def test_marker_patches_the_python_faces(patched_cuda):
        from cuda.bindings import driver
        assert driver.__name__ == "simcuda.bindings.driver"
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
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          capture_output=True, text=True, timeout=180, cwd=tmp_path)


def test_fixtures_and_marker(tmp_path):
    r = run(tmp_path, native_case=False)
    assert r.returncode == 0 and "3 passed" in r.stdout, r.stdout + r.stderr


@pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")
def test_marker_with_the_native_route(tmp_path):
    r = run(tmp_path, native_case=True)
    assert r.returncode == 0 and "4 passed" in r.stdout, r.stdout + r.stderr
