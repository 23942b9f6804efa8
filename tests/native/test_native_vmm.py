"""Host-mapped and managed memory, pointer attributes and virtual memory management on the native route: NVIDIA's
own binding over the simulated libcuda.so.1 gives the same codes and values as the Python route.

Each run is a subprocess of its own (once libcuda.so.1 is loaded, the binding keeps it for the process).
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from simcuda.faces import native

from .conftest import run_flow

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

FLOW = r'''
import ctypes, json, simcuda
import numpy as np
out = {}
with simcuda.patch(route=ROUTE) as drv:
    from cuda.bindings import driver as d
    codes = []
    def c(r):
        codes.append(int(r[0]))
        return r[1:] if len(r) > 2 else (r[1] if len(r) == 2 else None)
    A = d.CUpointer_attribute
    G = 2 << 20
    c(d.cuInit(0))
    ctx = c(d.cuCtxCreate(None, 0, 0))
    # host-mapped memory
    h = c(d.cuMemHostAlloc(4096, d.CU_MEMHOSTALLOC_DEVICEMAP))
    out["devptr_is_host"] = int(c(d.cuMemHostGetDevicePointer(h, 0))) == h
    c(d.cuMemHostGetDevicePointer(h, 1))                         # 1: Flags
    arr = np.zeros(16, dtype=np.float32)
    c(d.cuMemHostRegister(arr.ctypes.data, arr.nbytes, d.CU_MEMHOSTREGISTER_DEVICEMAP))
    out["reg_devptr"] = int(c(d.cuMemHostGetDevicePointer(arr.ctypes.data, 0))) == arr.ctypes.data
    # pointer attributes
    dp = c(d.cuMemAlloc(100))
    m = c(d.cuMemAllocManaged(8192, 1))
    names = [A.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, A.CU_POINTER_ATTRIBUTE_IS_MANAGED,
             A.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, A.CU_POINTER_ATTRIBUTE_RANGE_SIZE, A.CU_POINTER_ATTRIBUTE_MAPPED,
             A.CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, A.CU_POINTER_ATTRIBUTE_ACCESS_FLAGS]
    def norm(v):
        return int(v) if not isinstance(v, bool) else v
    out["attrs"] = {k: [norm(v) for v in c(d.cuPointerGetAttributes(len(names), names, p))]
                    for k, p in (("dev", dp), ("managed", m), ("host", h))}
    out["ctx_ok"] = int(c(d.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_CONTEXT, dp))) == int(ctx)
    out["dptr"] = int(c(d.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_DEVICE_POINTER, int(dp) + 4))) - int(dp)
    c(d.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_HOST_POINTER, dp))   # 1: device memory
    buf = ctypes.create_string_buffer(8)
    out["unknown"] = [norm(v) for v in c(d.cuPointerGetAttributes(len(names), names, ctypes.addressof(buf)))]
    # managed hints
    s = c(d.cuStreamCreate(0))
    loc = d.CUmemLocation()
    loc.type, loc.id = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, 0
    c(d.cuMemPrefetchAsync(m, 8192, loc, 0, s))
    c(d.cuMemPrefetchAsync(dp, 64, loc, 0, s))                     # 1: not managed
    c(d.cuMemAdvise(m, 4096, d.CUmem_advise.CU_MEM_ADVISE_SET_PREFERRED_LOCATION, loc))
    c(d.cuStreamSynchronize(s))
    out["prefetches"] = [list(x[1:]) for x in drv.prefetches]
    out["advice"] = [list(x[1:]) for x in drv.advice]
    # virtual memory management
    prop = d.CUmemAllocationProp()
    prop.type = d.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    prop.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    prop.location.id = 0
    prop.allocFlags.gpuDirectRDMACapable = 1
    minimum = d.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM
    out["gran"] = c(d.cuMemGetAllocationGranularity(prop, minimum))
    va = c(d.cuMemAddressReserve(2 * G, 0, 0, 0))
    hnd = c(d.cuMemCreate(G, prop, 0))
    c(d.cuMemCreate(G + 1, prop, 0))                                 # 1: not granular
    c(d.cuMemMap(va, G, 0, hnd, 0))
    desc = d.CUmemAccessDesc()
    desc.location.type, desc.location.id = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, 0
    desc.flags = d.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    c(d.cuMemSetAccess(va, G, [desc], 1))
    out["access"] = int(c(d.cuMemGetAccess(loc, int(va) + 8)))
    c(d.cuMemcpyHtoD(va, b"vmm-data", 8))
    back = ctypes.create_string_buffer(8)
    c(d.cuMemcpyDtoH(back, va, 8))
    out["data"] = back.raw.decode()
    p2 = c(d.cuMemGetAllocationPropertiesFromHandle(hnd))
    out["prop"] = [int(p2.type), int(p2.location.type), p2.location.id, p2.allocFlags.gpuDirectRDMACapable]
    out["retained"] = int(c(d.cuMemRetainAllocationHandle(int(va) + 64))) == int(hnd)
    c(d.cuMemRelease(hnd))
    vm = [A.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, A.CU_POINTER_ATTRIBUTE_RANGE_SIZE,
          A.CU_POINTER_ATTRIBUTE_MAPPING_SIZE, A.CU_POINTER_ATTRIBUTE_ACCESS_FLAGS]
    got = c(d.cuPointerGetAttributes(len(vm), vm, int(va) + 16))
    out["vmm_attrs"] = [int(got[0]) - int(va), int(got[1]), int(got[2]), int(got[3])]
    c(d.cuMemRelease(hnd))
    c(d.cuMemUnmap(va, G))
    c(d.cuMemUnmap(va, G))                                           # 1: not mapped
    c(d.cuMemAddressFree(va, 2 * G))
    out["in_use"] = drv.memory.in_use
    out["codes"] = codes
print(json.dumps(out))
'''


def run(route: str) -> dict:
    """FLOW's result on ``route``, in a fresh interpreter."""
    result: dict = run_flow(FLOW, route)
    return result


def test_vmm_and_mapped_memory_agree_on_both_routes():
    """The same program gives the same codes, attribute values, recorded hints and VMM data on both routes."""
    nat, py = run("native"), run("python")
    assert nat == py
    assert nat["devptr_is_host"] and nat["reg_devptr"] and nat["ctx_ok"] and nat["retained"]
    assert nat["attrs"]["dev"] == [2, False, 0, 100, True, True, 3]
    assert nat["attrs"]["managed"][:2] == [2, True] and nat["attrs"]["host"][0] == 1
    assert nat["unknown"] == [0, False, -2, 0, False, False, 0] and nat["dptr"] == 4
    assert nat["gran"] == 2 << 20 and nat["access"] == 3 and nat["data"] == "vmm-data"
    assert nat["prop"] == [1, 1, 0, 1] and nat["vmm_attrs"] == [0, 4 << 20, 2 << 20, 3]
    assert nat["prefetches"] == [[8192, 1, 0]] and nat["advice"] == [[4096, 3, 1, 0]]
    assert [c for c in nat["codes"] if c] == [1, 1, 1, 1, 1]
    assert nat["in_use"] == 100 + 8192


CORE = r'''
import json, simcuda
with simcuda.patch(route="native") as drv:
    import cuda.core as cc
    dev = cc.Device(0)
    dev.set_current()
    s = dev.create_stream()
    mr = cc.VirtualMemoryResource(dev)
    b = mr.allocate(3 << 20, stream=s)
    out = {"size": b.size, "device": b.is_device_accessible, "host": b.is_host_accessible, "id": b.device_id,
           "mapped": len(drv.memory.mappings_in(int(b.handle), b.size)), "reserved": len(drv.reservations)}
    b.close()
    out["after"] = [len(drv.reservations), drv.memory.in_use]
print(json.dumps(out))
'''


def test_cuda_core_virtual_memory_resource_runs_on_the_simulated_driver():
    """cuda.core's VirtualMemoryResource allocates (create, reserve, map, set access) and frees (retain, unmap,
    address free, one release) through the simulated VMM. cuda.core 1.2 never releases the handle cuMemCreate gave, so
    one reference keeps the physical memory, as cuMemRelease's docstring says it does."""
    pytest.importorskip("cuda.core")
    r = subprocess.run([sys.executable, "-c", CORE], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["size"] == 4 << 20 and out["device"] is True and out["host"] is False and out["id"] == 0
    assert out["mapped"] >= 1 and out["reserved"] == 1 and out["after"] == [0, 4 << 20]
