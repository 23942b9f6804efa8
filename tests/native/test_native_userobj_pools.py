"""User objects, memory pools and the priority range through NVIDIA's own cuda.bindings.driver (route="native").

The test runs in a subprocess of its own: once a library with the soname libcuda.so.1 is loaded, NVIDIA's binding
keeps it for the life of the process.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from simcuda.faces import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

FLOW = r'''
import ctypes, json, simcuda
out = {}
with simcuda.patch(route="native") as drv:
    from cuda.bindings import driver as d
    out["module"] = d.__name__
    codes = []
    def c(r):
        codes.append(int(r[0]))
        return r[1:] if len(r) > 2 else (r[1] if len(r) == 2 else None)
    c(d.cuInit(0))
    dev = c(d.cuDeviceGet(0))
    c(d.cuCtxSetCurrent(c(d.cuDevicePrimaryCtxRetain(dev))))
    out["range"] = list(c(d.cuCtxGetStreamPriorityRange()))
    s = c(d.cuStreamCreateWithPriority(1, -100))
    out["priority"] = c(d.cuStreamGetPriority(s))
    got = []
    thunk = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda p: got.append(p))
    fn = ctypes.cast(thunk, ctypes.c_void_p).value
    c(d.cuStreamBeginCapture(s, 0))
    u = c(d.cuUserObjectCreate(0x55, fn, 1, 1))
    g = c(d.cuStreamGetCaptureInfo(s))[2]
    c(d.cuGraphRetainUserObject(g, u, 1, 1))
    g = c(d.cuStreamEndCapture(s))
    x = drv.graph_instantiate(int(g), 0)          # through the core: instantiate is not in this test's scope
    c(d.cuGraphReleaseUserObject(g, u, 1))
    c(d.cuGraphReleaseUserObject(g, u, 1))        # 1: the graph holds none now
    c(d.cuGraphLaunch(d.CUgraphExec(x), s))
    c(d.cuStreamSynchronize(s))
    out["before_destroy"] = list(got)
    c(d.cuGraphExecDestroy(d.CUgraphExec(x)))
    out["after_destroy"] = list(got)
    c(d.cuUserObjectCreate(None, 0, 1, 1))        # 1: NULL destructor
    pool = c(d.cuDeviceGetDefaultMemPool(dev))
    out["same_pool"] = int(c(d.cuDeviceGetMemPool(dev))) == int(pool)
    A = d.CUmemPool_attribute
    c(d.cuMemPoolSetAttribute(pool, A.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, d.cuuint64_t(1 << 33)))
    out["threshold"] = int(c(d.cuMemPoolGetAttribute(pool, A.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)))
    ptr = c(d.cuMemAllocFromPoolAsync(300, pool, s))
    out["used"] = int(c(d.cuMemPoolGetAttribute(pool, A.CU_MEMPOOL_ATTR_USED_MEM_CURRENT)))
    c(d.cuMemFreeAsync(ptr, s))
    out["used_after"] = int(c(d.cuMemPoolGetAttribute(pool, A.CU_MEMPOOL_ATTR_USED_MEM_CURRENT)))
    out["high"] = int(c(d.cuMemPoolGetAttribute(pool, A.CU_MEMPOOL_ATTR_USED_MEM_HIGH)))
    out["reuse"] = c(d.cuMemPoolGetAttribute(pool, A.CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC))   # default 1
    c(d.cuStreamBeginCapture(s, 0))
    c(d.cuMemPoolGetAttribute(pool, A.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD))          # 900 (spec 16)
    c(d.cuStreamEndCapture(s))                                                     # 901
    out["codes"] = codes
print(json.dumps(out))
'''


def test_user_objects_and_pools_through_nvidias_binding():
    """NVIDIA's binding reaches the new entries: codes, the destructor after exec destroy, pool counters."""
    r = subprocess.run([sys.executable, "-c", FLOW], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert "simcuda" not in out["module"]
    assert out["range"] == [0, -5] and out["priority"] == -5
    assert out["before_destroy"] == [] and out["after_destroy"] == [0x55]
    assert out["same_pool"] and out["threshold"] == 1 << 33
    assert (out["used"], out["used_after"], out["high"]) == (300, 0, 300)
    codes = out["codes"]
    assert out["reuse"] == 1
    assert codes[-4:] == [0, 0, 900, 901]
    assert codes.count(1) == 2 and all(c in (0, 1, 900, 901) for c in codes)
