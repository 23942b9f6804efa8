"""The NVML front end of the native route: cuda.core 1.2's ``system`` module on the simulated machine."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from simcuda.faces import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

SCRIPT = r'''
import json
import simcuda
from simcuda.faces.native import nvml
out = {}
with simcuda.patch(route="native", driver=simcuda.Driver(devices=[simcuda.DeviceSpec(name="sim A"),
                                                                  simcuda.DeviceSpec(name="sim B")])) as drv:
    from cuda.core import system
    from cuda.bindings import driver as cu
    out["count"] = system.get_num_devices()
    out["kmd"] = list(system.get_kernel_mode_driver_version())
    out["umd"] = list(system.get_user_mode_driver_version())
    out["branch"] = system.get_driver_branch()
    out["names"] = [system.Device(index=i).name for i in range(2)]
    cu.cuInit(0)
    raw = bytes(cu.cuDeviceGetUuid(1)[1].bytes)
    out["uuid_matches"] = system.Device(index=1).uuid.replace("-", "").endswith(raw.hex())
    try:
        system.Device(index=2)
    except Exception as e:
        out["bad_index"] = type(e).__name__
    out["unanswered"] = nvml.call_counts()
print("OUT=" + json.dumps(out))
'''


def test_cuda_core_system_reads_the_simulated_machine():
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-4000:]
    out = json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])
    assert out["count"] == 2 and out["names"] == ["sim A", "sim B"]
    assert out["kmd"] == [580, 65, 6] and out["umd"] == [13, 5] and out["branch"] == "r580_00"
    assert out["uuid_matches"] is True
    assert out["bad_index"] == "InvalidArgumentError"
    assert out["unanswered"] == {}
