"""NVIDIA's real cuda.bindings.driver, on the loaded library, calls the ctypes callbacks registered in it.

Each case runs in a subprocess: once the binding has found a libcuda.so.1 it keeps it for the process.
"""
from __future__ import annotations

import pytest

pytest.importorskip("cuda.bindings", reason="cuda-bindings (the test extra) is not installed")

REGISTER = """
T = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int))
seen = []
def capturing(value):
    def callback(stream, status):
        seen.append(stream or 0)
        status[0] = value
        return 0
    return T(callback)
i = native.index_of("cuStreamIsCapturing", 10000)
native.set_entry(i, False, capturing(1))   # CU_STREAM_CAPTURE_STATUS_ACTIVE
native.set_entry(i, True, capturing(2))    # CU_STREAM_CAPTURE_STATUS_INVALIDATED
from cuda.bindings import driver
err, status = driver.cuStreamIsCapturing(0)
out["is_capturing"] = [int(err), int(status)]
out["seen"] = seen
err, version = driver.cuDriverGetVersion()
out["version"] = [int(err), version]
out["init"] = int(driver.cuInit(0)[0])
out["counts"] = sorted([n, v, c] for (n, v), c in native.call_counts().items())
out["lookups"] = native.lookup_count()
"""


def test_the_binding_calls_the_registered_callback(native_run):
    """cuStreamIsCapturing(0) through NVIDIA's binding returns what the registered callback wrote (ACTIVE), the
    binding resolved all 526 entries through the library, cuDriverGetVersion is the library's, and cuInit (no
    adapter) answers 801 and is counted."""
    out = native_run(REGISTER)
    assert out["is_capturing"] == [0, 1] and out["seen"] == [0]
    assert out["version"] == [0, 13050]
    assert out["init"] == 801 and out["counts"] == [["cuInit", 2000, 1]]
    assert out["lookups"] == 526


def test_the_per_thread_default_stream_binding_gets_the_per_thread_slot(native_run):
    """With CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM=1 the binding looks entries up with flags 2 and gets the
    per-thread callback (INVALIDATED here), not the default one."""
    out = native_run(REGISTER, env={"CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM": "1"})
    assert out["is_capturing"] == [0, 2]
