"""Issue 10's entries on the native route (NVIDIA's cuda.bindings over the simulated libcuda.so.1) and the Python
route: the same program gives the same codes and results on both. Each route runs in a subprocess of its own."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from simcuda import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

PEER = r'''
import json, simcuda
out = {}
drv = simcuda.Driver(devices=[simcuda.DeviceSpec(), simcuda.DeviceSpec()])
with simcuda.patch(drv, route=ROUTE):
    from cuda.bindings import driver as d
    codes = []
    def c(r):
        codes.append(int(r[0]))
        return r[1:] if len(r) > 2 else (r[1] if len(r) == 2 else None)
    c(d.cuInit(0))
    out["can"] = [c(d.cuDeviceCanAccessPeer(0, 1)), c(d.cuDeviceCanAccessPeer(1, 1))]
    c(d.cuDeviceCanAccessPeer(0, 7))                                   # 101
    A = d.CUdevice_P2PAttribute
    out["p2p"] = c(d.cuDeviceGetP2PAttribute(A.CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1))
    c(d.cuDeviceGetP2PAttribute(A.CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 1, 1))   # 101
    c0 = c(d.cuDevicePrimaryCtxRetain(0)); c1 = c(d.cuDevicePrimaryCtxRetain(1))
    c(d.cuCtxSetCurrent(c0))
    c(d.cuCtxEnablePeerAccess(c1, 0)); c(d.cuCtxEnablePeerAccess(c1, 0))   # 0, 704
    c(d.cuCtxEnablePeerAccess(c0, 0)); c(d.cuCtxEnablePeerAccess(c1, 3))   # 201, 1 (flags come before 704)
    out["enabled"] = drv.peer_access_enabled(int(c0), int(c1))
    c(d.cuCtxDisablePeerAccess(c1)); c(d.cuCtxDisablePeerAccess(c1))       # 0, 705
    a = c(d.cuMemAlloc(16)); c(d.cuCtxSetCurrent(c1)); b = c(d.cuMemAlloc(16)); c(d.cuCtxSetCurrent(c0))
    c(d.cuMemcpyHtoD(a, b"0123456789abcdef", 16))
    c(d.cuMemcpyPeer(b, c1, a, c0, 8))
    c(d.cuMemcpyPeer(b, 0, a, c0, 8))                                      # 201
    s = c(d.cuStreamCreate(1))
    c(d.cuStreamBeginCapture(s, 0))
    c(d.cuMemcpyPeerAsync(b, c1, a, c0, 16, s))
    g = c(d.cuStreamEndCapture(s))
    out["node"] = [int(c(d.cuGraphNodeGetType(n))) for n in c(d.cuGraphGetNodes(g, 1))[0]]
    buf = bytearray(16); c(d.cuMemcpyDtoH(buf, b, 16)); out["before"] = buf.hex()
    x = c(d.cuGraphInstantiate(g, 0)); c(d.cuGraphLaunch(x, s)); c(d.cuStreamSynchronize(s))
    c(d.cuMemcpyDtoH(buf, b, 16)); out["after"] = buf.hex()
    out["bus"] = c(d.cuDeviceGetPCIBusId(13, 1)).split(b"\0")[0].decode()
    out["by"] = int(c(d.cuDeviceGetByPCIBusId(b"0000:02:00.0")))
    c(d.cuDeviceGetByPCIBusId(b"zz"))                                      # 1
    c(d.cuDeviceGetPCIBusId(13, 9))                                        # 101
    out["codes"] = codes
print(json.dumps(out))
'''


def run(program: str, route: str) -> dict:
    """Run ``program`` on ``route`` in a fresh interpreter and return the JSON it prints last."""
    r = subprocess.run([sys.executable, "-c", program.replace("ROUTE", repr(route))], capture_output=True,
                       text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_peer_family_is_the_same_on_both_routes():
    """Peer access, peer copies (a MEMCPY node in capture) and PCI ids give the same codes and bytes."""
    nat, py = run(PEER, "native"), run(PEER, "python")
    assert nat == py
    assert nat["can"] == [1, 0] and nat["p2p"] == 1 and nat["by"] == 1 and nat["bus"] == "0000:02:00.0"
    assert nat["before"] == b"01234567".hex() + "00" * 8 and nat["after"] == b"0123456789abcdef".hex()
    assert nat["codes"].count(704) == 1 and 705 in nat["codes"] and nat["node"] == [1]
