"""The pytest plugin's fault injection (``@pytest.mark.simcuda_fault``, the ``simcuda_faults`` fixture) and the
``simcuda: failed calls`` section of a failed test's report, in a pytest run of their own (a subprocess)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

USER_TESTS = textwrap.dedent('''
    import pytest

    ALLOC = ("cuMemAlloc", 2)

    def setup_ctx(cu):
        cu.cuInit(0)
        _, ctx = cu.cuDevicePrimaryCtxRetain(0)
        cu.cuCtxSetCurrent(ctx)

    @pytest.mark.simcuda
    @pytest.mark.simcuda_fault("cuMemAlloc", 2, nth=2)
    def test_marker_refuses_the_second_alloc(patched_cuda):
        from cuda.bindings import driver as cu
        setup_ctx(cu)
        assert [int(cu.cuMemAlloc(64)[0]) for _ in range(3)] == [0, 2, 0]

    @pytest.mark.simcuda
    def test_no_fault_in_the_next_test(patched_cuda):
        from cuda.bindings import driver as cu
        setup_ctx(cu)
        assert [int(cu.cuMemAlloc(64)[0]) for _ in range(3)] == [0, 0, 0]

    @pytest.mark.simcuda
    def test_fixture_injects_and_records(patched_cuda, simcuda_faults):
        from cuda.bindings import driver as cu
        setup_ctx(cu)
        rec = simcuda_faults.record_calls("cuStreamSynchronize")
        simcuda_faults.inject("cuStreamSynchronize", 700)
        _, s = cu.cuStreamCreate(0)
        assert int(cu.cuStreamSynchronize(s)[0]) == 700
        rec.assert_called("cuStreamSynchronize", times=1)

    @pytest.mark.simcuda
    def test_fails_and_shows_its_failed_calls(patched_cuda):
        from cuda.bindings import driver as cu
        setup_ctx(cu)
        err = cu.cuStreamSynchronize(12345)[0]
        assert err == cu.CUresult.CUDA_SUCCESS

    @pytest.mark.simcuda
    @pytest.mark.simcuda_fault("cuNoSuchEntry", 2)
    def test_bad_marker(patched_cuda):
        pass
''')


def test_faults_marker_fixture_and_the_failed_calls_section(tmp_path):
    """The marker refuses the second cuMemAlloc of its test only; the fixture's fault and recorder work and come
    off; a failing test's report shows its failed call with code and why; a marker naming no entry is an error
    that says so."""
    (tmp_path / "test_user.py").write_text(USER_TESTS)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                        str(tmp_path)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    out = r.stdout + r.stderr
    assert "3 passed" in out and "1 failed" in out and "1 error" in out, out
    section = out[out.index("simcuda: failed calls (call)"):]
    assert "cuStreamSynchronize -> CUDA_ERROR_INVALID_HANDLE (400)" in section.split("short test summary")[0]
    assert "why: " in section
    assert "'cuNoSuchEntry' is no driver entry simcuda simulates" in out


RAISE_TESTS = textwrap.dedent('''
    def test_stops_at_the_first_failure():
        from cuda.bindings import driver as cu
        cu.cuInit(0)
        _, ctx = cu.cuDevicePrimaryCtxRetain(0)
        cu.cuCtxSetCurrent(ctx)
        cu.cuStreamSynchronize(12345)   # raises here under --simcuda-raise
        raise AssertionError("not reached")
''')


def test_simcuda_raise_makes_a_failed_call_raise_where_it_was_made(tmp_path):
    """``pytest --simcuda --simcuda-raise``: the test fails at the call that failed, with CallFailed naming the
    entry, its code and why (not at a later assertion)."""
    (tmp_path / "test_raise.py").write_text(RAISE_TESTS)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                        "--simcuda", "--simcuda-route", "python", "--simcuda-raise", str(tmp_path)],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    out = r.stdout + r.stderr
    assert "1 failed" in out, out
    assert "CallFailed: cuStreamSynchronize -> CUDA_ERROR_INVALID_HANDLE (400)" in out
    assert ">       cu.cuStreamSynchronize(12345)" in out  # pytest marks the call as where the test stopped
