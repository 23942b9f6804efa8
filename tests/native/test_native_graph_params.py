"""The struct decoders of the native route (simcuda/faces/native/structs.py): graph node parameters, CIG capture
parameters and host functions, called through NVIDIA's own cuda.bindings.driver over the simulated
libcuda.so.1, against the same script on the Python faces.

Each route runs in a process of its own (the library cannot be unloaded). The script records every code
and the state it can read back (the node records through simcuda's driver, the structs the Get calls fill,
the bytes a launch moved, the host-function calls); both routes must agree on all of it.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from simcuda.faces import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

FLOW = r'''
import ctypes, json, sys, simcuda
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
HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
calls = []
hostfn = HOST_FN(lambda ud: calls.append(ud or 0))
FN = ctypes.cast(hostfn, ctypes.c_void_p).value
out = {}
codes = []
with simcuda.patch(route=ROUTE) as drv:
    from cuda.bindings import driver as d
    def c(r, tag=None):
        codes.append((tag, int(r[0])))
        return r[1:] if len(r) > 2 else (r[1] if len(r) == 2 else None)
    c(d.cuInit(0)); dev = c(d.cuDeviceGet(0)); ctx = c(d.cuDevicePrimaryCtxRetain(dev)); c(d.cuCtxSetCurrent(ctx))
    mod = c(d.cuModuleLoadData(PTX)); f = c(d.cuModuleGetFunction(mod, b"kp"))
    dptr = c(d.cuMemAlloc(256)); s = c(d.cuStreamCreate(1))
    g = c(d.cuGraphCreate(0))
    kp = d.CUDA_KERNEL_NODE_PARAMS()
    kp.func = f; kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1; kp.blockDimX = 32; kp.blockDimY = kp.blockDimZ = 1
    kp.kernelParams = ((7, dptr), (ctypes.c_uint, None))
    kn = c(d.cuGraphAddKernelNode(g, None, 0, kp), "addKernel")
    out["kargs"] = [int(a) for a in drv.handles.node(int(kn)).params.args]
    got = c(d.cuGraphKernelNodeGetParams(kn), "getKernel")
    arr = (ctypes.c_void_p * 2).from_address(int(got.kernelParams))
    out["kget"] = [got.gridDimX, got.blockDimX, int(got.func) == int(f),
                   ctypes.c_uint.from_address(arr[0]).value, ctypes.c_uint64.from_address(arr[1]).value == int(dptr)]
    kp.gridDimX = 2
    kp.kernelParams = ((9, dptr), (ctypes.c_uint, None))
    c(d.cuGraphKernelNodeSetParams(kn, kp), "setKernel")
    out["kset"] = [drv.handles.node(int(kn)).params.grid[0], drv.handles.node(int(kn)).params.args[0]]
    ms = d.CUDA_MEMSET_NODE_PARAMS()
    ms.dst = dptr; ms.value = 0x11; ms.elementSize = 1; ms.width = 64; ms.height = 1
    mn = c(d.cuGraphAddMemsetNode(g, [kn], 1, ms, ctx), "addMemset")
    gm = c(d.cuGraphMemsetNodeGetParams(mn), "getMemset")
    out["mget"] = [gm.value, gm.width, gm.elementSize, int(gm.dst) == int(dptr)]
    ms.value = 0x22
    c(d.cuGraphMemsetNodeSetParams(mn, ms), "setMemset")
    c(d.cuGraphMemsetNodeGetParams(kn), "getMemset-wrongtype")
    c(d.cuGraphKernelNodeSetParams(mn, kp), "setKernel-wrongtype")
    host = (ctypes.c_ubyte * 64)(*range(64))
    hb = (ctypes.c_ubyte * 256)()
    cp = d.CUDA_MEMCPY3D()
    cp.srcMemoryType = d.CUmemorytype.CU_MEMORYTYPE_HOST; cp.srcHost = ctypes.addressof(host)
    cp.dstMemoryType = d.CUmemorytype.CU_MEMORYTYPE_DEVICE; cp.dstDevice = int(dptr) + 64
    cp.WidthInBytes = 64; cp.Height = 1; cp.Depth = 1
    cn = c(d.cuGraphAddMemcpyNode(g, [mn], 1, cp, ctx), "addMemcpy")
    gc = c(d.cuGraphMemcpyNodeGetParams(cn), "getMemcpy")
    out["cget"] = [int(gc.srcMemoryType), int(gc.dstMemoryType), gc.WidthInBytes,
                   int(gc.srcHost) == ctypes.addressof(host), int(gc.dstDevice) - int(dptr)]
    cp.dstDevice = int(dptr) + 128
    c(d.cuGraphMemcpyNodeSetParams(cn, cp), "setMemcpy")
    hp = d.CUDA_HOST_NODE_PARAMS(); hp.fn = d.CUhostFn(FN); hp.userData = 42
    hn = c(d.cuGraphAddHostNode(g, [cn], 1, hp), "addHost")
    gh = c(d.cuGraphHostNodeGetParams(hn), "getHost")
    out["hget"] = [int(gh.fn) == FN, int(gh.userData)]
    hp.userData = 43
    c(d.cuGraphHostNodeSetParams(hn, hp), "setHost")
    ap = d.CUDA_MEM_ALLOC_NODE_PARAMS()
    ap.poolProps.allocType = d.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    ap.poolProps.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE; ap.poolProps.location.id = 0
    ap.bytesize = 1024
    an = c(d.cuGraphAddMemAllocNode(g, [hn], 1, ap), "addAlloc")
    out["alloc"] = [int(ap.dptr) != 0, int(ap.dptr) == drv.handles.node(int(an)).params.alloc.start]
    ga = c(d.cuGraphMemAllocNodeGetParams(an), "getAlloc")
    out["aget"] = [ga.bytesize, int(ga.dptr) == int(ap.dptr), int(ga.poolProps.location.type)]
    fn_ = c(d.cuGraphAddMemFreeNode(g, [an], 1, ap.dptr), "addFree")
    np_ = d.CUgraphNodeParams(); np_.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_EMPTY
    en = c(d.cuGraphAddNode(g, [fn_], None, 1, np_), "addNode-empty")
    np2 = d.CUgraphNodeParams(); np2.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEMSET
    np2.memset.dst = dptr; np2.memset.value = 0x33; np2.memset.elementSize = 1
    np2.memset.width = 16; np2.memset.height = 1
    ed = d.CUgraphEdgeData()
    mn2 = c(d.cuGraphAddNode(g, [en], [ed], 1, np2), "addNode-memset")
    np3 = d.CUgraphNodeParams(); np3.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL
    np3.kernel.func = f; np3.kernel.gridDimX = np3.kernel.gridDimY = np3.kernel.gridDimZ = 1
    np3.kernel.blockDimX = np3.kernel.blockDimY = np3.kernel.blockDimZ = 1
    np3.kernel.kernelParams = ((5, dptr), (ctypes.c_uint, None))
    kn2 = c(d.cuGraphAddNode(g, [mn2], None, 1, np3), "addNode-kernel")
    np4 = d.CUgraphNodeParams(); np4.type = 99
    c(d.cuGraphAddNode(g, None, None, 0, np4), "addNode-badtype")
    np5 = d.CUgraphNodeParams(); np5.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
    c(d.cuGraphAddNode(g, None, None, 0, np5), "addNode-conditional")  # handle 0: INVALID_VALUE (P-21)
    gp = c(d.cuGraphNodeGetParams(mn2), "nodeGet-memset")
    out["nget"] = [int(gp.type), gp.memset.value, gp.memset.width]
    gk = c(d.cuGraphNodeGetParams(kn2), "nodeGet-kernel")
    arr = (ctypes.c_void_p * 2).from_address(int(gk.kernel.kernelParams))
    out["ngetk"] = [int(gk.type), ctypes.c_uint.from_address(arr[0]).value]
    ga2 = c(d.cuGraphNodeGetParams(an), "nodeGet-alloc")
    out["ngeta"] = [int(ga2.type), int(ga2.alloc.dptr) == int(ap.dptr), ga2.alloc.bytesize]
    np2.memset.value = 0x44
    c(d.cuGraphNodeSetParams(mn2, np2), "nodeSet-memset")
    out["nset"] = drv.handles.node(int(mn2)).params.value
    c(d.cuGraphNodeSetParams(kn, np2), "nodeSet-wrongtype")
    npa = d.CUgraphNodeParams(); npa.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEM_ALLOC
    c(d.cuGraphNodeSetParams(an, npa), "nodeSet-alloc")
    # NULL params
    c(d.cuGraphAddKernelNode(g, None, 0, None), "null-addKernel")
    c(d.cuGraphAddMemsetNode(g, None, 0, None, ctx), "null-addMemset")
    c(d.cuGraphAddMemcpyNode(g, None, 0, None, ctx), "null-addMemcpy")
    c(d.cuGraphAddHostNode(g, None, 0, None), "null-addHost")
    c(d.cuGraphAddMemAllocNode(g, None, 0, None), "null-addAlloc")
    c(d.cuGraphAddNode(g, None, None, 0, None), "null-addNode")
    c(d.cuGraphKernelNodeSetParams(kn, None), "null-setKernel")
    c(d.cuGraphNodeSetParams(kn, None), "null-nodeSet")
    c(d.cuStreamBeginCaptureToCig(s, None), "null-cig")
    c(d.cuStreamBeginCaptureToCig(s, d.CUstreamCigCaptureParams()), "empty-cig")
    x = c(d.cuGraphInstantiate(g, 0), "instantiate")
    kp.gridDimX = 3
    c(d.cuGraphExecKernelNodeSetParams(x, kn, kp), "execKernel")
    ms.value = 0x55
    c(d.cuGraphExecMemsetNodeSetParams(x, mn, ms, ctx), "execMemset")
    cp.dstDevice = int(dptr) + 192
    c(d.cuGraphExecMemcpyNodeSetParams(x, cn, cp, ctx), "execMemcpy")
    hp.userData = 44
    c(d.cuGraphExecHostNodeSetParams(x, hn, hp), "execHost")
    np2.memset.value = 0x66
    c(d.cuGraphExecNodeSetParams(x, mn2, np2), "execNode")
    c(d.cuGraphExecNodeSetParams(x, kn, np2), "execNode-wrongtype")
    c(d.cuGraphExecHostNodeSetParams(x, hn, None), "null-execHost")
    c(d.cuGraphLaunch(x, s), "launch")
    c(d.cuStreamSynchronize(s))
    c(d.cuLaunchHostFunc(s, d.CUhostFn(FN), 7), "hostfunc")
    c(d.cuLaunchHostFunc_v2(s, d.CUhostFn(FN), 8, 0), "hostfunc_v2")
    c(d.cuLaunchHostFunc(s, d.CUhostFn(0), 7), "hostfunc-null")
    c(d.cuStreamSynchronize(s))
    c(d.cuMemcpyDtoH(hb, dptr, 256))
    out["mem"] = [hb[0], hb[15], hb[16], hb[63], hb[64], hb[128], hb[192], hb[255]]
    out["calls"] = calls
    out["launched"] = [n.params.value for n in drv.handles.graph(int(g)).live_nodes() if n.type == 2]
out["codes"] = codes
out["module"] = d.__name__
out["stubs"] = sorted(f"{n} {v}" for (n, v) in native.call_counts()) if native.is_loaded() else []
print("OUT=" + json.dumps(out))
'''


def run(route: str) -> dict:
    r = subprocess.run([sys.executable, "-c", FLOW, route], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "internal error" not in r.stderr, r.stderr
    return json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])


@pytest.fixture(scope="module")
def routes() -> tuple[dict, dict]:
    return run("native"), run("python")


def test_the_native_run_is_nvidias_binding_and_reaches_no_stub(routes):
    nat, py = routes
    assert "simcuda" not in nat["module"] and "simcuda" in py["module"]
    assert nat["stubs"] == []


def test_both_routes_agree_on_codes_and_state(routes):
    nat, py = routes
    for key in py:
        if key not in ("module", "stubs"):
            assert nat[key] == py[key], key


def test_the_codes_are_the_cores(routes):
    codes = dict((t, c) for t, c in routes[0]["codes"] if t)
    assert {t: c for t, c in codes.items() if c} == {
        "getMemset-wrongtype": 1, "setKernel-wrongtype": 1, "addNode-badtype": 1, "addNode-conditional": 1,
        "nodeSet-wrongtype": 1, "nodeSet-alloc": 801, "null-addKernel": 1, "null-addMemset": 1,
        "null-addMemcpy": 1, "null-addHost": 1, "null-addAlloc": 1, "null-addNode": 1, "null-setKernel": 1,
        "null-nodeSet": 1, "null-cig": 1, "empty-cig": 1, "execNode-wrongtype": 1, "null-execHost": 1,
        "hostfunc-null": 1}


def test_the_get_calls_write_the_structs_back(routes):
    nat = routes[0]
    assert nat["kget"] == [1, 32, True, 7, True]  # kernelParams: an array that stays valid, read after the call
    assert nat["kset"] == [2, 9] and nat["mget"] == [0x11, 64, 1, True] and nat["hget"] == [True, 42]
    assert nat["cget"] == [1, 2, 64, True, 64] and nat["alloc"] == [True, True] and nat["aget"] == [1024, True, 1]
    assert nat["nget"] == [2, 0x33, 16] and nat["ngetk"] == [0, 5] and nat["ngeta"] == [10, True, 1024]


def test_a_launch_runs_what_the_exec_setters_set(routes):
    nat = routes[0]
    assert nat["calls"] == [44, 7, 8]  # the exec's host node, then cuLaunchHostFunc and its _v2
    assert nat["mem"] == [0x66, 0x66, 0x55, 0x55, 0, 0, 0, 63]
    assert nat["launched"] == [0x22, 0x44]  # the graph's own nodes keep their parameters
