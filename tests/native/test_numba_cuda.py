"""numba-cuda's device layer on the native route: devices, the current context, streams, device arrays and
copies, events, through NVIDIA's cuda.bindings and cuda.core over the simulated libcuda.so.1 (a subprocess)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from simcuda.faces import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")
pytest.importorskip("numba_cuda", reason="numba-cuda is not installed (pip install '.[native,numba]')")

SCRIPT = r'''
import json
import numpy as np
import simcuda
from simcuda.faces.native import call_counts
out = {}
with simcuda.patch(route="native") as drv:
    from numba import cuda
    out["gpus"] = len(list(cuda.gpus))
    ctx = cuda.current_context()
    out["device"] = ctx.device.id
    free, total = ctx.get_memory_info()
    out["memory"] = [free <= total, total == drv.devices[0].spec.total_mem]
    s = cuda.stream()
    a = np.arange(1024, dtype=np.float32)
    d = cuda.to_device(a, stream=s)
    d2 = cuda.device_array_like(d, stream=s)
    d2.copy_to_device(d, stream=s)
    b = d2.copy_to_host(stream=s)
    s.synchronize()
    out["roundtrip"] = bool((a == b).all())
    e1, e2 = cuda.event(), cuda.event()
    e1.record(s)
    e2.record(s)
    e2.synchronize()
    out["elapsed"] = cuda.event_elapsed_time(e1, e2) >= 0
    out["not_simulated"] = sorted(f"{n} {v}" for (n, v) in call_counts())
print("OUT=" + json.dumps(out))
'''


def test_numba_cuda_device_layer():
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-4000:]
    out = json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])
    assert out == {"gpus": 1, "device": 0, "memory": [True, True], "roundtrip": True, "elapsed": True,
                   "not_simulated": []}
