"""Memory pools and graph memory on both routes: the same program through simcuda's tuple face (route "python")
and through NVIDIA's own cuda.bindings over the simulated libcuda.so.1 (route "native") gives the same codes,
values and Python types. Each route runs in a subprocess of its own (the native library cannot be unloaded)."""
from __future__ import annotations

import pytest

from simcuda.faces import native

from .conftest import run_flow

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

FLOW = r'''
import json, simcuda
out = {}
drv = simcuda.Driver(devices=[simcuda.DeviceSpec(), simcuda.DeviceSpec(), simcuda.DeviceSpec(memory_pools=False)])
simcuda.use(drv)
with simcuda.patch(route=ROUTE):
    from cuda.bindings import driver as d
    out["module"] = d.__name__.startswith("simcuda")
    codes, values = [], []
    def c(r):
        codes.append(int(r[0]))
        return r[1:] if len(r) > 2 else (r[1] if len(r) == 2 else None)
    def v(x):
        values.append([type(x).__name__, int(x) if x is not None else None])
        return x
    c(d.cuInit(0))
    ctx = c(d.cuDevicePrimaryCtxRetain(0))
    c(d.cuCtxSetCurrent(ctx))
    A, G = d.CUmemPool_attribute, d.CUgraphMem_attribute
    pp = d.CUmemPoolProps()
    pp.allocType = d.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    pp.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    pp.location.id = 0
    pp.maxSize = 1 << 20
    p = c(d.cuMemPoolCreate(pp))
    for a in range(1, 16):
        v(c(d.cuMemPoolGetAttribute(p, A(a))))
    c(d.cuMemPoolSetAttribute(p, A.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, d.cuuint64_t(1 << 30)))
    c(d.cuMemPoolSetAttribute(p, A.CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, 0))
    c(d.cuMemPoolSetAttribute(p, A.CU_MEMPOOL_ATTR_USED_MEM_CURRENT, d.cuuint64_t(0)))   # 1: read-only
    s = c(d.cuStreamCreate(1))
    x = c(d.cuMemAllocFromPoolAsync(5000, p, s))
    c(d.cuMemAllocFromPoolAsync(1 << 21, p, s))                                         # 2: past maxSize
    c(d.cuMemFreeAsync(x, s))
    v(c(d.cuMemPoolGetAttribute(p, A.CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)))            # 5000 kept
    c(d.cuMemPoolTrimTo(p, 1000))
    v(c(d.cuMemPoolGetAttribute(p, A.CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)))
    desc = d.CUmemAccessDesc()
    desc.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    desc.location.id = 1
    desc.flags = d.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    c(d.cuMemPoolSetAccess(p, [desc], 1))
    loc = d.CUmemLocation()
    loc.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    loc.id = 1
    v(c(d.cuMemPoolGetAccess(p, loc)))
    desc.flags = d.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READ
    c(d.cuMemPoolSetAccess(p, [desc], 1))                                               # 801 [I]
    c(d.cuMemPoolSetAccess(p, None, 0))
    c(d.cuMemPoolGetAccess(p, None))                                                    # 1
    c(d.cuDeviceSetMemPool(0, p))
    y = c(d.cuMemAllocAsync(64, s))
    c(d.cuMemPoolDestroy(p))
    v(c(d.cuDeviceGetMemPool(0)) == c(d.cuDeviceGetDefaultMemPool(0)))
    c(d.cuMemFreeAsync(y, s))
    c(d.cuMemPoolDestroy(p))                                                            # 1: destroyed
    c(d.cuMemPoolCreate(None))                                                          # 1
    bad = d.CUmemPoolProps()
    bad.allocType = d.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    bad.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    bad.location.id = 2
    c(d.cuMemPoolCreate(bad))                                                           # 801: no pools there
    c(d.cuDeviceGetDefaultMemPool(2))                                                   # 801
    # graph memory
    c(d.cuStreamBeginCapture(s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    z = c(d.cuMemAllocAsync(8192, s))
    g = c(d.cuStreamEndCapture(s))
    ex = c(d.cuGraphInstantiate(g, 0))
    v(c(d.cuDeviceGetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT)))
    c(d.cuGraphLaunch(ex, s))
    c(d.cuStreamSynchronize(s))
    for a in range(4):
        v(c(d.cuDeviceGetGraphMemAttribute(0, G(a))))
    c(d.cuMemFreeAsync(z, s))
    c(d.cuGraphExecDestroy(ex))
    v(c(d.cuDeviceGetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT)))
    c(d.cuDeviceGraphMemTrim(0))
    v(c(d.cuDeviceGetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT)))
    c(d.cuDeviceSetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, d.cuuint64_t(0)))
    c(d.cuDeviceSetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, d.cuuint64_t(3)))   # 1
    c(d.cuDeviceSetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT, d.cuuint64_t(0)))  # 1
    v(c(d.cuDeviceGetGraphMemAttribute(0, G.CU_GRAPH_MEM_ATTR_USED_MEM_HIGH)))
    c(d.cuDeviceGetGraphMemAttribute(7, G.CU_GRAPH_MEM_ATTR_USED_MEM_HIGH))             # 101
    c(d.cuDeviceGraphMemTrim(2))                                                        # 801
    # the capture rule (spec 16, P-12)
    dp = c(d.cuDeviceGetDefaultMemPool(0))
    c(d.cuStreamBeginCapture(s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL))
    c(d.cuMemPoolTrimTo(dp, 0))                                                         # 900
    c(d.cuStreamEndCapture(s))                                                          # 901
    out["codes"], out["values"] = codes, values
print(json.dumps(out))
'''


def run(route: str) -> dict:
    """FLOW's result on ``route``, in a fresh interpreter."""
    result: dict = run_flow(FLOW, route)
    return result


def test_pools_and_graph_memory_agree_on_both_routes():
    """NVIDIA's binding over the simulated libcuda gives the codes, values and types of simcuda's tuple face."""
    py, nat = run("python"), run("native")
    assert py["module"] and not nat["module"]
    assert nat["codes"] == py["codes"]
    assert nat["values"] == py["values"]
    codes = py["codes"]
    assert codes.count(801) == 4 and codes.count(2) == 1 and codes[-2:] == [900, 901]
    values = dict(enumerate(v[1] for v in py["values"]))
    assert [values[k] for k in (15, 16, 17)] == [5000, 1000, 3]  # kept, trimmed, READWRITE for device 1
    assert py["values"][3] == ["cuuint64_t", 0] and py["values"][0] == ["int", 1]
