"""Every entry the Python face simulates has a native adapter, and the entries that once answered 801 on the
native route (file loads, names handed out as strings, 2D/3D copies and memsets, CUDA arrays, stream memory
operations and external semaphores, function attributes, the cooperative launch, the event, free-node and
child-graph setters) give the same codes and state through NVIDIA's cuda.bindings.driver over the simulated
libcuda.so.1 as through the Python faces.

Each route runs in a process of its own (the library cannot be unloaded), as in test_native_graph_params.py.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from simcuda._core.api import API
from simcuda._generated.entry_table import ENTRIES
from simcuda.faces import native
from simcuda.faces.native import adapters

#: entries whose row is in the table but that no native adapter can serve; each needs its reason. Empty: every
#: simulated entry's C arguments decode (a new one goes here only with a comment saying why it cannot).
CANNOT_BE_SERVED: dict[tuple[str, int], str] = {}

#: the entries this file's script runs on both routes (the 37 that answered 801 before they had adapters)
EXERCISED = {
    "cuDeviceComputeCapability", "cuModuleLoad", "cuLibraryLoadFromFile", "cuKernelGetName", "cuFuncGetName",
    "cuMemHostRegister", "cuMemHostUnregister", "cuMemcpy2D", "cuMemcpy2DUnaligned", "cuMemcpy3D",
    "cuMemcpy2DAsync", "cuMemcpy3DAsync", "cuMemsetD2D8", "cuMemsetD2D16", "cuMemsetD2D32", "cuMemsetD2D8Async",
    "cuMemsetD2D16Async", "cuMemsetD2D32Async", "cuArrayCreate", "cuSignalExternalSemaphoresAsync",
    "cuWaitExternalSemaphoresAsync", "cuStreamWaitValue32", "cuStreamWaitValue64", "cuStreamWriteValue32",
    "cuStreamWriteValue64", "cuStreamBatchMemOp", "cuFuncGetAttribute", "cuFuncSetAttribute",
    "cuLaunchCooperativeKernel", "cuGraphEventRecordNodeGetEvent", "cuGraphEventRecordNodeSetEvent",
    "cuGraphEventWaitNodeGetEvent", "cuGraphEventWaitNodeSetEvent", "cuGraphMemFreeNodeGetParams",
    "cuGraphExecChildGraphNodeSetParams", "cuGraphExecEventRecordNodeSetEvent", "cuGraphExecEventWaitNodeSetEvent",
}


def test_every_simulated_entry_has_a_native_adapter():
    """A (name, version) pair whose Python wrapper has a row in the table (the Python face simulates it) has an
    adapter in both slots; the library's 801 stub is left to entries the simulator does not serve at all."""
    missing = [(e.name, e.version) for i, e in enumerate(ENTRIES)
               if e.python in API and (e.name, e.version) not in CANNOT_BE_SERVED
               and (adapters.adapter(i) is None or adapters.adapter(i, ptds=True) is None)]
    assert missing == []
    stale = [k for k in CANNOT_BE_SERVED if any((e.name, e.version) == k and adapters.adapter(i) is not None
                                                for i, e in enumerate(ENTRIES))]
    assert stale == []  # an allow-listed entry that has an adapter now leaves the list


FLOW = r'''
import ctypes, json, os, sys, tempfile, simcuda
ROUTE = sys.argv[1]
from simcuda.faces import native
PTX = b"""
.version 7.0
.target sm_75
.address_size 64
.visible .entry kp(.param .u32 n, .param .u64 p)
{
    ret;
}
\x00"""
tmp = tempfile.mkdtemp()
path = os.path.join(tmp, "k.ptx")
with open(path, "wb") as fh:
    fh.write(PTX)
out = {}
codes = []
with simcuda.patch(route=ROUTE) as drv:
    from cuda.bindings import driver as d
    def c(r, tag=None):
        codes.append((tag, int(r[0])))
        return r[1:] if len(r) > 2 else (r[1] if len(r) == 2 else None)
    c(d.cuInit(0)); dev = c(d.cuDeviceGet(0)); ctx = c(d.cuDevicePrimaryCtxRetain(dev)); c(d.cuCtxSetCurrent(ctx))
    out["cc"] = list(c(d.cuDeviceComputeCapability(dev), "cc"))
    c(d.cuDeviceComputeCapability(d.CUdevice(7)), "cc-baddev")
    mod = c(d.cuModuleLoad(path.encode()), "moduleLoad")
    c(d.cuModuleLoad(os.path.join(tmp, "missing.ptx").encode()), "moduleLoad-missing")
    f = c(d.cuModuleGetFunction(mod, b"kp"))
    out["fname"] = c(d.cuFuncGetName(f), "funcGetName")
    lib = c(d.cuLibraryLoadFromFile(path.encode(), [], [], 0, [], [], 0), "libraryLoadFromFile")
    c(d.cuLibraryLoadFromFile(os.path.join(tmp, "missing.ptx").encode(), [], [], 0, [], [], 0), "libLoad-missing")
    k = c(d.cuLibraryGetKernel(lib, b"kp"))
    out["kname"] = c(d.cuKernelGetName(k), "kernelGetName")
    A = d.CUfunction_attribute
    c(d.cuFuncSetAttribute(f, A.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 4096), "funcSetAttribute")
    out["fattr"] = c(d.cuFuncGetAttribute(A.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f), "funcGetAttribute")
    out["fattr2"] = c(d.cuFuncGetAttribute(A.CU_FUNC_ATTRIBUTE_NUM_REGS, f), "funcGetAttribute-regs")
    c(d.cuFuncSetAttribute(f, A.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1 << 30), "funcSetAttribute-big")
    c(d.cuFuncGetAttribute(A.CU_FUNC_ATTRIBUTE_NUM_REGS, d.CUfunction(0)), "funcGetAttribute-null")
    hostreg = (ctypes.c_ubyte * 4096)()
    c(d.cuMemHostRegister(ctypes.addressof(hostreg), 4096, 0), "hostRegister")
    c(d.cuMemHostRegister(ctypes.addressof(hostreg), 4096, 0), "hostRegister-again")
    c(d.cuMemHostUnregister(ctypes.addressof(hostreg)), "hostUnregister")
    c(d.cuMemHostUnregister(ctypes.addressof(hostreg)), "hostUnregister-again")
    dptr = c(d.cuMemAlloc(1024)); base = int(dptr)
    c(d.cuMemsetD8(dptr, 0, 1024))
    s = c(d.cuStreamCreate(1))
    host = (ctypes.c_ubyte * 256)(*range(256))
    def m2d():
        cp = d.CUDA_MEMCPY2D()
        cp.srcMemoryType = d.CUmemorytype.CU_MEMORYTYPE_HOST; cp.srcHost = ctypes.addressof(host); cp.srcPitch = 16
        cp.dstMemoryType = d.CUmemorytype.CU_MEMORYTYPE_DEVICE; cp.dstPitch = 32
        cp.WidthInBytes = 8; cp.Height = 4
        return cp
    cp = m2d(); cp.dstDevice = base
    c(d.cuMemcpy2D(cp), "memcpy2D")
    cp = m2d(); cp.dstDevice = base + 128; cp.srcXInBytes = 2; cp.srcY = 1
    c(d.cuMemcpy2DUnaligned(cp), "memcpy2DUnaligned")
    cp = m2d(); cp.dstDevice = base + 256
    c(d.cuMemcpy2DAsync(cp, s), "memcpy2DAsync")
    cp = m2d(); cp.dstDevice = base; cp.dstPitch = 4
    c(d.cuMemcpy2D(cp), "memcpy2D-pitch")
    cp = m2d(); cp.dstMemoryType = d.CUmemorytype.CU_MEMORYTYPE_ARRAY
    c(d.cuMemcpy2D(cp), "memcpy2D-array")
    cp = m2d(); cp.dstMemoryType = d.CUmemorytype.CU_MEMORYTYPE_UNIFIED; cp.dstDevice = base + 384
    c(d.cuMemcpy2D(cp), "memcpy2D-unified")
    c(d.cuMemcpy2D(None), "memcpy2D-null")
    def m3d():
        cp = d.CUDA_MEMCPY3D()
        cp.srcMemoryType = d.CUmemorytype.CU_MEMORYTYPE_HOST; cp.srcHost = ctypes.addressof(host)
        cp.srcPitch = 8; cp.srcHeight = 2
        cp.dstMemoryType = d.CUmemorytype.CU_MEMORYTYPE_DEVICE; cp.dstPitch = 16; cp.dstHeight = 2
        cp.WidthInBytes = 4; cp.Height = 2; cp.Depth = 2
        return cp
    cp = m3d(); cp.dstDevice = base + 512
    c(d.cuMemcpy3D(cp), "memcpy3D")
    cp = m3d(); cp.dstDevice = base + 576; cp.srcZ = 1
    c(d.cuMemcpy3DAsync(cp, s), "memcpy3DAsync")
    c(d.cuMemcpy3D(None), "memcpy3D-null")
    c(d.cuStreamSynchronize(s))
    c(d.cuMemsetD2D8(base + 640, 16, 0xA1, 4, 2), "memsetD2D8")
    c(d.cuMemsetD2D16(base + 672, 16, 0xB2C3, 2, 2), "memsetD2D16")
    c(d.cuMemsetD2D32(base + 704, 16, 0xD4E5F607, 1, 2), "memsetD2D32")
    c(d.cuMemsetD2D8Async(base + 736, 8, 0x11, 3, 2, s), "memsetD2D8Async")
    c(d.cuMemsetD2D16Async(base + 752, 8, 0x2233, 2, 2, s), "memsetD2D16Async")
    c(d.cuMemsetD2D32Async(base + 768, 8, 0x44556677, 2, 2, s), "memsetD2D32Async")
    c(d.cuMemsetD2D8(base + 640, 2, 0xA1, 4, 2), "memsetD2D8-pitch")
    c(d.cuMemsetD2D32(base + 1021, 16, 1, 1, 1), "memsetD2D32-misaligned")
    c(d.cuStreamWriteValue32(s, base + 800, 0x01020304, 0), "writeValue32")
    c(d.cuStreamWriteValue64(s, base + 808, 0x0102030405060708, 0), "writeValue64")
    c(d.cuStreamWaitValue32(s, base + 800, 0x01020304, 0), "waitValue32")
    c(d.cuStreamWaitValue64(s, base + 808, 0x0102030405060708, 0), "waitValue64")
    c(d.cuStreamWriteValue32(s, base + 802, 1, 0), "writeValue32-misaligned")
    op = d.CUstreamBatchMemOpParams()
    op.operation = d.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WRITE_VALUE_32
    op.writeValue.operation = d.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WRITE_VALUE_32
    op.writeValue.address = base + 816; op.writeValue.value = 0x0A0B0C0D; op.writeValue.flags = 0
    op2 = d.CUstreamBatchMemOpParams()
    op2.operation = d.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WAIT_VALUE_32
    op2.waitValue.operation = d.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WAIT_VALUE_32
    op2.waitValue.address = base + 816; op2.waitValue.value = 0x0A0B0C0D; op2.waitValue.flags = 0
    c(d.cuStreamBatchMemOp(s, 2, [op, op2], 0), "batchMemOp")
    bad = d.CUstreamBatchMemOpParams(); bad.operation = 99
    c(d.cuStreamBatchMemOp(s, 1, [bad], 0), "batchMemOp-badop")
    c(d.cuStreamSynchronize(s))
    sem = d.CUexternalSemaphore(0x5000)
    sp = d.CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS(); sp.params.fence.value = 5; sp.params.keyedMutex.key = 6
    wp = d.CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS(); wp.params.fence.value = 7; wp.params.keyedMutex.key = 8
    wp.params.keyedMutex.timeoutMs = 9
    c(d.cuSignalExternalSemaphoresAsync([sem], [sp], 1, s), "signalExtSem")
    c(d.cuWaitExternalSemaphoresAsync([sem], [wp], 1, s), "waitExtSem")
    c(d.cuSignalExternalSemaphoresAsync([], [], 0, s), "signalExtSem-none")
    c(d.cuWaitExternalSemaphoresAsync([d.CUexternalSemaphore(0)], [wp], 1, s), "waitExtSem-null")
    desc = d.CUDA_ARRAY_DESCRIPTOR(); desc.Width = 64; desc.Height = 4
    desc.Format = d.CUarray_format.CU_AD_FORMAT_UNSIGNED_INT8; desc.NumChannels = 1
    arr = c(d.cuArrayCreate(desc), "arrayCreate")
    out["array"] = int(arr) != 0
    desc.NumChannels = 3
    c(d.cuArrayCreate(desc), "arrayCreate-channels")
    c(d.cuArrayCreate(None), "arrayCreate-null")
    kpar = ((7, dptr), (ctypes.c_uint, None))
    c(d.cuLaunchCooperativeKernel(f, 1, 1, 1, 32, 1, 1, 0, s, kpar), "coop")
    c(d.cuLaunchCooperativeKernel(f, 0, 1, 1, 32, 1, 1, 0, s, kpar), "coop-zero")
    c(d.cuLaunchCooperativeKernel(d.CUfunction(0), 1, 1, 1, 1, 1, 1, 0, s, kpar), "coop-nofunc")
    c(d.cuStreamSynchronize(s))
    # the same stream work, captured: the nodes hold what each route decoded
    c(d.cuStreamBeginCapture(s, 0), "capture")
    c(d.cuLaunchCooperativeKernel(f, 2, 1, 1, 64, 1, 1, 0, s, ((11, dptr), (ctypes.c_uint, None))), "cap-coop")
    cp = m2d(); cp.dstDevice = base + 256
    c(d.cuMemcpy2DAsync(cp, s), "cap-memcpy2D")
    cp = m3d(); cp.dstDevice = base + 512
    c(d.cuMemcpy3DAsync(cp, s), "cap-memcpy3D")
    c(d.cuMemsetD2D16Async(base + 752, 8, 0x2233, 2, 2, s), "cap-memsetD2D16")
    c(d.cuStreamWriteValue64(s, base + 808, 3, 0), "cap-writeValue64")
    c(d.cuStreamWaitValue32(s, base + 800, 4, 0), "cap-waitValue32")
    c(d.cuStreamBatchMemOp(s, 2, [op, op2], 0), "cap-batch")
    c(d.cuSignalExternalSemaphoresAsync([sem], [sp], 1, s), "cap-signal")
    c(d.cuWaitExternalSemaphoresAsync([sem], [wp], 1, s), "cap-wait")
    cg = c(d.cuStreamEndCapture(s), "endCapture")
    def summary(n):
        p, t = n.params, n.type
        rel = lambda a: int(a) - base if a else 0
        if t == 0:
            return [t, list(p.grid), list(p.block), p.shmem, [p.args[0], rel(p.args[1])], p.func.name]
        if t == 1:
            return [t, p.width, p.height, p.depth, p.src_pitch, p.dst_pitch, p.src_x, p.src_y, p.src_z, rel(p.dst)]
        if t == 2:
            return [t, rel(p.dst), p.value, p.element_size, p.width, p.height, p.pitch]
        if t in (8, 9):
            return [t, list(p.sems), [list(v) for v in p.values]]
        if t == 12:
            return [t, [[o[0], rel(o[1]), o[2], o[3]] for o in p.ops], p.flags]
        return [t]
    out["captured"] = [summary(n) for n in drv.handles.graph(int(cg)).live_nodes()]
    hb = (ctypes.c_ubyte * 1024)()
    c(d.cuMemcpyDtoH(hb, dptr, 1024))
    out["mem"] = list(hb)
    # graph nodes: events, free, child graph
    e1 = c(d.cuEventCreate(0)); e2 = c(d.cuEventCreate(0))
    g = c(d.cuGraphCreate(0))
    rn = c(d.cuGraphAddEventRecordNode(g, None, 0, e1))
    wn = c(d.cuGraphAddEventWaitNode(g, [rn], 1, e1))
    out["recget"] = int(c(d.cuGraphEventRecordNodeGetEvent(rn), "recordGet")) == int(e1)
    out["waitget"] = int(c(d.cuGraphEventWaitNodeGetEvent(wn), "waitGet")) == int(e1)
    c(d.cuGraphEventRecordNodeSetEvent(rn, e2), "recordSet")
    c(d.cuGraphEventWaitNodeSetEvent(wn, e2), "waitSet")
    out["recget2"] = int(c(d.cuGraphEventRecordNodeGetEvent(rn), "recordGet2")) == int(e2)
    out["waitget2"] = int(c(d.cuGraphEventWaitNodeGetEvent(wn), "waitGet2")) == int(e2)
    c(d.cuGraphEventRecordNodeGetEvent(wn), "recordGet-wrongtype")
    c(d.cuGraphEventWaitNodeSetEvent(rn, e1), "waitSet-wrongtype")
    c(d.cuGraphEventRecordNodeSetEvent(rn, d.CUevent(0)), "recordSet-null")
    ap = d.CUDA_MEM_ALLOC_NODE_PARAMS()
    ap.poolProps.allocType = d.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    ap.poolProps.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE; ap.poolProps.location.id = 0
    ap.bytesize = 512
    an = c(d.cuGraphAddMemAllocNode(g, [wn], 1, ap))
    fnode = c(d.cuGraphAddMemFreeNode(g, [an], 1, ap.dptr))
    out["freeget"] = int(c(d.cuGraphMemFreeNodeGetParams(fnode), "freeGet")) == int(ap.dptr)
    c(d.cuGraphMemFreeNodeGetParams(an), "freeGet-wrongtype")
    child = c(d.cuGraphCreate(0)); c(d.cuGraphAddEmptyNode(child, None, 0))
    child2 = c(d.cuGraphCreate(0)); c(d.cuGraphAddEmptyNode(child2, None, 0))
    child3 = c(d.cuGraphCreate(0))
    cn = c(d.cuGraphAddChildGraphNode(g, [fnode], 1, child))
    x = c(d.cuGraphInstantiate(g, 0), "instantiate")
    c(d.cuGraphExecEventRecordNodeSetEvent(x, rn, e1), "execRecordSet")
    c(d.cuGraphExecEventWaitNodeSetEvent(x, wn, e1), "execWaitSet")
    c(d.cuGraphExecEventRecordNodeSetEvent(x, wn, e1), "execRecordSet-wrongtype")
    c(d.cuGraphExecEventWaitNodeSetEvent(x, wn, d.CUevent(0)), "execWaitSet-null")
    c(d.cuGraphExecChildGraphNodeSetParams(x, cn, child2), "execChildSet")
    c(d.cuGraphExecChildGraphNodeSetParams(x, cn, child3), "execChildSet-topology")
    c(d.cuGraphExecChildGraphNodeSetParams(x, rn, child2), "execChildSet-wrongtype")
    c(d.cuGraphLaunch(x, s), "launch")
    c(d.cuStreamSynchronize(s), "sync")
    c(d.cuEventQuery(e1), "query-e1")
    out["types"] = [n.type for n in drv.handles.graph(int(g)).live_nodes()]
out["codes"] = codes
out["module"] = d.__name__
out["stubs"] = sorted(f"{n} {v}" for (n, v) in native.call_counts()) if native.is_loaded() else []
print("OUT=" + json.dumps(out, default=lambda o: o.decode() if isinstance(o, bytes) else repr(o)))
'''


def run(route: str) -> dict:
    r = subprocess.run([sys.executable, "-c", FLOW, route], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "internal error" not in r.stderr, r.stderr
    return json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])


@pytest.fixture(scope="module")
def routes() -> tuple[dict, dict]:
    if not native.available()[0]:
        pytest.skip(f"native route: {native.available()[1]}")
    return run("native"), run("python")


def test_the_script_calls_every_entry_that_answered_801():
    called = set(re.findall(r"\bd\.(cu\w+)\(", FLOW))
    assert not EXERCISED - called, EXERCISED - called
    assert len(EXERCISED) == 37


def test_the_native_run_is_nvidias_binding_and_reaches_no_stub(routes):
    nat, py = routes
    assert "simcuda" not in nat["module"] and "simcuda" in py["module"]
    assert nat["stubs"] == []


def test_both_routes_agree_on_codes_and_state(routes):
    nat, py = routes
    assert [t for t, _c in nat["codes"]] == [t for t, _c in py["codes"]]
    assert {t: c for t, c in nat["codes"] if t} == {t: c for t, c in py["codes"] if t}
    for key in py:
        if key not in ("module", "stubs"):
            assert nat[key] == py[key], key


def test_the_entries_did_their_work(routes):
    nat = routes[0]
    codes = {t: c for t, c in nat["codes"] if t}
    assert codes["cc"] == 0 and codes["moduleLoad"] == 0 and codes["moduleLoad-missing"] == 301
    assert codes["memcpy2D-null"] == 1 and codes["arrayCreate-null"] == 1 and codes["coop"] == 0
    assert nat["fname"] == nat["kname"] == "kp" and nat["fattr"] == 4096 and nat["array"] is True
    assert nat["recget"] and nat["waitget"] and nat["recget2"] and nat["waitget2"] and nat["freeget"]
    mem = nat["mem"]
    assert mem[0:8] == list(range(8)) and mem[32:40] == list(range(16, 24))  # 2D rows: pitch 16 -> 32
    assert mem[640:644] == [0xA1] * 4 and mem[656:660] == [0xA1] * 4
    assert mem[816:820] == [0x0D, 0x0C, 0x0B, 0x0A]
    assert {n[0] for n in nat["captured"]} == {0, 1, 2, 8, 9, 12}
