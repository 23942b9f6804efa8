"""The pytest plugin ends the captures a test left open on a session-scoped driver (issue 19 item 7)."""
from __future__ import annotations

import subprocess
import sys

SUITE = '''
import threading
from simcuda.faces.bindings import driver as cu


def _stream():
    cu.cuInit(0)
    _, dev = cu.cuDeviceGet(0)
    _, ctx = cu.cuDevicePrimaryCtxRetain(dev)
    cu.cuCtxSetCurrent(ctx)
    return cu.cuStreamCreate(1)[1]


def test_a_dies_inside_a_capture():
    s = _stream()
    mode = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL
    assert cu.cuStreamBeginCapture(s, mode) == (cu.CUresult.CUDA_SUCCESS,)
    raise RuntimeError("the test dies inside its capture")


def test_b_dies_inside_a_capture_of_another_thread():
    s = _stream()
    def begin():
        cu.cuCtxSetCurrent(cu.cuDevicePrimaryCtxRetain(cu.cuDeviceGet(0)[1])[1])
        cu.cuStreamBeginCapture(s, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
    t = threading.Thread(target=begin)
    t.start()
    t.join()
    assert cu.cuStreamIsCapturing(s)[1] == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE


def test_c_starts_clean():
    _stream()
    assert cu.cuCtxSynchronize() == (cu.CUresult.CUDA_SUCCESS,)
    import simcuda
    from simcuda._state import current
    assert current().captures.live == {}
'''


def test_captures_left_open_are_ended_and_reported(tmp_path):
    """A test that dies inside a capture (and one that leaves another thread's capture open) on the session's
    driver: the next test's cuCtxSynchronize succeeds (it answered 900 before), each test's report says what
    was ended, and so does the run's summary."""
    (tmp_path / "test_open.py").write_text(SUITE)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-rA",
                        "--simcuda", "--simcuda-route", "python", "--simcuda-scope", "session"],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    out = r.stdout
    assert "1 failed, 2 passed" in out, out[-4000:]
    assert "test_c_starts_clean PASSED" in out or "PASSED test_open.py::test_c_starts_clean" in out, out[-4000:]
    assert "warnings summary" in out and "PytestWarning: simcuda: capture 1 (GLOBAL mode" in out, out[-4000:]
    assert "was still open when the test ended: ended (cuStreamEndCapture) and its graph destroyed" in out
    assert "THREAD_LOCAL mode" in out and "terminated (cuStreamEndCapture could not end it here)" in out
    assert ("captures left open by a test and ended by simcuda (the next test started clean): "
            "test_open.py::test_a_dies_inside_a_capture x1, test_open.py::test_b_dies_inside_a_capture_of_another_"
            "thread x1") in out, out[-3000:]
