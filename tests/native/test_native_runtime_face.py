"""The runtime face on the native route: NVIDIA's driver handles taken wherever the face takes a driver handle,
the face's handles taken by NVIDIA's driver wrappers, and NVIDIA's own NVRTC where its library loads.

On the native route ``simcuda.patch`` installs the runtime face built for it (``runtime.NATIVE_NAME``): its
handle classes (``cudaStream_t``, ``cudaGraphNode_t``...) derive from NVIDIA's ``cuda.bindings.driver`` classes,
as the real runtime's do, so NVIDIA's list checks (C-level type checks) take them. The same script runs on the
Python route, where both modules are simcuda's, and must give the same codes.
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
from simcuda import _patch
ROUTE = sys.argv[1]
out, codes = {}, []
HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
calls = []
fn = HOST_FN(lambda ud: calls.append(ud or 0))
with simcuda.patch(route=ROUTE) as drv:
    from cuda.bindings import driver as d, nvrtc, runtime as rt
    out["runtime"] = rt.__name__
    out["nvrtc_is_nvidias"] = not nvrtc.__name__.startswith("simcuda")
    out["nvrtc_why"] = _patch.nvrtc_why
    def c(r, tag):
        codes.append((tag, int(r[0])))
        return r[1:] if len(r) > 2 else (r[1] if len(r) == 2 else None)
    c(d.cuInit(0), "init"); dev = c(d.cuDeviceGet(0), "dev")
    ctx = c(d.cuDevicePrimaryCtxRetain(dev), "retain"); c(d.cuCtxSetCurrent(ctx), "set")
    # driver handles (NVIDIA's on the native route) into the runtime face
    s = c(d.cuStreamCreate(1), "cuStreamCreate")
    c(rt.cudaStreamSynchronize(s), "rt.sync(CUstream)")
    c(rt.cudaStreamQuery(s), "rt.query(CUstream)")
    g = c(d.cuGraphCreate(0), "cuGraphCreate")
    n1 = c(d.cuGraphAddEmptyNode(g, None, 0), "cuGraphAddEmptyNode")
    n2 = c(rt.cudaGraphAddEmptyNode(g, [n1], 1), "rt.addEmpty(CUgraph, [CUgraphNode])")
    n3 = c(rt.cudaGraphAddEmptyNode(g, None, 0), "rt.addEmpty(CUgraph)")
    c(rt.cudaGraphAddDependencies(g, [n1], [n3], [rt.cudaGraphEdgeData()], 1), "rt.addDeps(CUgraphNode)")
    x = c(d.cuGraphInstantiate(g, 0), "cuGraphInstantiate")
    c(rt.cudaGraphLaunch(x, s), "rt.launch(CUgraphExec, CUstream)")
    e = c(d.cuEventCreate(0), "cuEventCreate")
    c(rt.cudaEventRecord(e, s), "rt.record(CUevent, CUstream)")
    c(rt.cudaLaunchHostFunc(s, d.CUhostFn(ctypes.cast(fn, ctypes.c_void_p).value), 5), "rt.hostFunc(CUhostFn)")
    c(rt.cudaStreamSynchronize(s), "rt.sync")
    c(rt.cudaStreamBeginCapture(s, rt.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal), "rt.begin(CUstream)")
    cg = c(d.cuStreamEndCapture(s), "cuStreamEndCapture")
    # the runtime face's handles into the driver (NVIDIA's on the native route)
    rs = c(rt.cudaStreamCreate(), "rt.cudaStreamCreate")
    rg = c(rt.cudaGraphCreate(0), "rt.cudaGraphCreate")
    rn = c(rt.cudaGraphAddEmptyNode(rg, None, 0), "rt.cudaGraphAddEmptyNode")
    out["subclass"] = [isinstance(rn, d.CUgraphNode), isinstance(rs, d.CUstream), isinstance(rg, d.CUgraph)]
    c(d.cuGraphAddEmptyNode(rg, [rn, n2], 1), "cuGraphAddEmptyNode(cudaGraph_t, [cudaGraphNode_t])")
    rx = c(rt.cudaGraphInstantiate(rg, 0), "rt.cudaGraphInstantiate")
    c(d.cuGraphLaunch(rx, rs), "cuGraphLaunch(cudaGraphExec_t, cudaStream_t)")
    c(d.cuStreamSynchronize(rs), "cuStreamSynchronize(cudaStream_t)")
    out["nodes"] = [len(drv.handles.graph(int(g)).live_nodes()), len(drv.handles.graph(int(rg)).live_nodes()),
                    len(drv.handles.graph(int(cg)).live_nodes())]
    try:
        rt.cudaGraphAddEmptyNode(g, [5], 1)
    except TypeError as exc:
        out["bad_list"] = str(exc)
out["calls"] = calls
out["codes"] = codes
print("OUT=" + json.dumps(out))
'''


def run(route: str, env: dict[str, str] | None = None) -> dict:
    import os
    full = dict(os.environ, **(env or {}))
    full.pop("SIMCUDA_ROUTE", None)
    r = subprocess.run([sys.executable, "-c", FLOW, route], capture_output=True, text=True, timeout=120, env=full)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])


def test_the_runtime_face_takes_nvidias_handles_and_nvidias_driver_takes_the_faces():
    nat, py = run("native"), run("python")
    assert nat["runtime"] == "simcuda.faces.bindings._runtime_native"
    assert py["runtime"] == "simcuda.faces.bindings.runtime"
    assert nat["subclass"] == [True, True, True] == py["subclass"]
    assert nat["codes"] == py["codes"] and all(code == 0 for _t, code in nat["codes"]), nat["codes"]
    assert nat["nodes"] == py["nodes"] == [3, 2, 0] and nat["calls"] == py["calls"] == [5]
    assert nat["bad_list"] == py["bad_list"]  # an int in a node list: the real wrapper's TypeError


def test_nvrtc_is_nvidias_on_the_native_route_where_its_library_loads():
    from simcuda import _patch
    nat = run("native")
    why = _patch.native_nvrtc()  # (loads libnvrtc here: harmless, no driver involved)
    assert nat["nvrtc_is_nvidias"] == (why is None) and nat["nvrtc_why"] == why
    forced = run("native", {"SIMCUDA_NVRTC": "simcuda"})
    assert not forced["nvrtc_is_nvidias"] and forced["nvrtc_why"] == "SIMCUDA_NVRTC=simcuda"
    assert not run("python")["nvrtc_is_nvidias"]
