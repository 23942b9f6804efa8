"""cuda.core 1.2's GraphBuilder conditionals (``create_condition``, ``if_then``, ``if_else``, ``while_loop``,
``switch``) on the native route, unmodified, and NVIDIA's binding on both routes (P-20..P-31).

Each program runs in a subprocess of its own (the binding keeps a loaded libcuda.so.1 for the process). The
kernels run as Python implementations; ``launch.set_conditional`` stands for the device-side
``cudaGraphSetConditional``.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from simcuda.faces import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

BUILDER = r'''
import json
import numpy as np
import simcuda

SRC = r"""
extern "C" __device__ __cudart_builtin__ void CUDARTAPI cudaGraphSetConditional(cudaGraphConditionalHandle handle,
                                                                                unsigned int value);
extern "C" __global__ void zero(int *p, unsigned n) { for (unsigned i = 0; i < n; ++i) p[i] = 0; }
extern "C" __global__ void add_one(int *p, int i) { p[i] += 1; }
extern "C" __global__ void set_handle(cudaGraphConditionalHandle h, unsigned v) { cudaGraphSetConditional(h, v); }
extern "C" __global__ void count_to(cudaGraphConditionalHandle h, int *p, int i, int n) {
    p[i] += 1; cudaGraphSetConditional(h, p[i] < n ? 1 : 0); }
"""

@simcuda.kernel("zero")
def zero(launch):
    p, n = launch.args
    launch.array(p, "int32", n)[:] = 0

@simcuda.kernel("add_one")
def add_one(launch):
    p, i = launch.args
    launch.array(p, "int32", i + 1)[i] += 1

@simcuda.kernel("set_handle")
def set_handle(launch):
    h, v = launch.args
    launch.set_conditional(h, v)

@simcuda.kernel("count_to")
def count_to(launch):
    h, p, i, n = launch.args
    a = launch.array(p, "int32", i + 1)
    a[i] += 1
    launch.set_conditional(h, 1 if a[i] < n else 0)

N = 8
out = {}
with simcuda.patch(route="native") as drv:
    from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
    dev = Device()
    dev.set_current()
    stream = dev.create_stream()
    prog = Program(SRC, code_type="c++", options=ProgramOptions(std="c++17", arch=f"sm_{dev.arch}"))
    mod = prog.compile("cubin")
    k_zero, k_add, k_set, k_count = (mod.get_kernel(n) for n in ("zero", "add_one", "set_handle", "count_to"))
    buf = dev.allocate(N * 4, stream=stream)
    cfg = LaunchConfig(grid=1, block=1)
    gb = stream.create_graph_builder().begin_building()
    launch(gb, cfg, k_zero, buf, np.uint32(N))
    c_if = gb.create_condition(default_value=0)
    launch(gb, cfg, k_set, c_if, np.uint32(1))             # a kernel sets the IF condition to 1
    body = gb.if_then(c_if).begin_building()
    launch(body, cfg, k_add, buf, np.int32(0))              # slot 0: 1
    body.end_building()
    c_ie = gb.create_condition(default_value=0)             # default 0: the else branch
    then_b, else_b = gb.if_else(c_ie)
    then_b.begin_building(); launch(then_b, cfg, k_add, buf, np.int32(1)); then_b.end_building()
    else_b.begin_building(); launch(else_b, cfg, k_add, buf, np.int32(2)); else_b.end_building()
    c_w = gb.create_condition(default_value=1)
    wb = gb.while_loop(c_w).begin_building()
    launch(wb, cfg, k_count, c_w, buf, np.int32(3), np.int32(5))   # slot 3 counts to 5
    wb.end_building()
    c_s = gb.create_condition(default_value=2)
    cases = gb.switch(c_s, 3)
    for i, cb in enumerate(cases):
        cb.begin_building(); launch(cb, cfg, k_add, buf, np.int32(4 + i)); cb.end_building()
    gb.end_building()
    graph = gb.complete()
    graph.launch(stream)
    stream.sync()
    host = np.zeros(N, dtype=np.int32)
    from cuda.bindings import driver as cu
    err, = cu.cuMemcpyDtoH(host.ctypes.data, int(buf.handle), N * 4)
    out["copy"] = int(err)
    out["slots"] = host.tolist()
    gb.debug_dot_print(DOT)
    out["dot"] = open(DOT).read()
    graph.launch(stream); stream.sync()
    cu.cuMemcpyDtoH(host.ctypes.data, int(buf.handle), N * 4)
    out["slots2"] = host.tolist()
    buf.close(stream)
    graph.close()
    from simcuda.faces.native import call_counts
    out["not_simulated"] = sorted(f"{n} {v}" for (n, v) in call_counts() if n != "cuGetExportTable")
print("OUT=" + json.dumps(out))
'''

BINDING = r'''
import json, ctypes, simcuda
out = {"codes": []}

@simcuda.kernel("count")
def count(launch):
    h, p, i, n = launch.args
    a = launch.array(p, "int32", i + 1)
    a[i] += 1
    launch.set_conditional(h, 1 if a[i] < n else 0)

with simcuda.patch(route=ROUTE) as drv:
    from cuda.bindings import driver as d
    def c(r, name):
        out["codes"].append([name, int(r[0])])
        return r[1] if len(r) == 2 else None
    c(d.cuInit(0), "init")
    ctx = c(d.cuDevicePrimaryCtxRetain(c(d.cuDeviceGet(0), "dev")), "retain")
    c(d.cuCtxSetCurrent(ctx), "current")
    mod = c(d.cuModuleLoadData(b'extern "C" __global__ void count(unsigned long long h, int *p, int i, int n) {}'),
            "load")
    f = c(d.cuModuleGetFunction(mod, b"count"), "func")
    buf = c(d.cuMemAlloc(16), "alloc")
    c(d.cuMemsetD8(buf, 0, 16), "memset")
    s = c(d.cuStreamCreate(0), "stream")
    g = c(d.cuGraphCreate(0), "graph")
    c(d.cuGraphConditionalHandleCreate(g, ctx, 0, 2), "handle-badflags")
    h = c(d.cuGraphConditionalHandleCreate(g, ctx, 1, d.CU_GRAPH_COND_ASSIGN_DEFAULT), "handle")
    p = d.CUgraphNodeParams()
    p.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
    p.conditional.handle = h
    p.conditional.type = d.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_WHILE
    p.conditional.size = 2
    p.conditional.ctx = ctx
    c(d.cuGraphAddNode(g, None, None, 0, p), "add-while-size2")
    p.conditional.size = 1
    node = c(d.cuGraphAddNode(g, None, None, 0, p), "add-while")
    body = p.conditional.phGraph_out[0]
    c(d.cuGraphAddNode(g, None, None, 0, p), "add-handle-in-use")
    c(d.cuGraphDestroy(body), "destroy-body")
    c(d.cuStreamBeginCaptureToGraph(s, body, None, None, 0, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL),
      "begin-to-body")
    args = ((int(h), buf, 1, 4), (ctypes.c_ulonglong, None, ctypes.c_int, ctypes.c_int))
    c(d.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, args, 0), "launch-in-body")
    c(d.cuStreamEndCapture(s), "end")
    got = c(d.cuGraphNodeGetParams(node), "get")
    out["get"] = [int(got.type), int(got.conditional.type), got.conditional.size,
                  int(got.conditional.phGraph_out[0]) == int(body), int(got.conditional.handle) == int(h)]
    out["body_nodes"] = len(drv.handles.graph(int(body)).live_nodes())
    x = c(d.cuGraphInstantiate(g, 0), "instantiate")
    c(d.cuGraphLaunch(x, s), "launch")
    c(d.cuStreamSynchronize(s), "sync")
    host = (ctypes.c_int * 4)()
    c(d.cuMemcpyDtoH(host, buf, 16), "read")
    out["counts"] = list(host)
print("OUT=" + json.dumps(out))
'''


def _run(code: str) -> dict:
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-6000:]
    line = [x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1]
    return dict(json.loads(line[4:]))


def test_cuda_core_if_else_while_switch_builders(tmp_path):
    """cuda.core's create_condition / if_then / if_else / while_loop / switch, bodies captured by its builders:
    the IF body (its condition set by a kernel) runs once, the else branch of a 0 condition, the WHILE body 5
    times (its kernel clears the condition), SWITCH case 2 of 3; a second launch does the same; DOT has a
    cluster per body; nothing reached an unsimulated entry."""
    out = _run(BUILDER.replace("DOT", repr(str(tmp_path / "graph.dot"))))
    assert out["copy"] == 0
    assert out["slots"] == [1, 0, 1, 5, 0, 0, 1, 0]  # if, if-else (then, else), while, switch cases 0-2, unused
    assert out["slots2"] == out["slots"]  # the zero kernel resets, and every default applies again
    dot = out["dot"]
    kinds = re.findall(r"CONDITIONAL\n(\w+) handle", dot)
    assert kinds == ["IF", "IF", "WHILE", "SWITCH"]
    assert len(re.findall(r"subgraph cluster_", dot)) == 1 + 1 + 2 + 1 + 3
    assert out["not_simulated"] == []


@pytest.mark.parametrize("route", ["native", "python"])
def test_nvidias_binding_codes_and_replay(route):
    """NVIDIA's binding (native) and simcuda's face (python): the same codes for handle creation, conditional
    adds, a body destroy and a capture into the body; cuGraphNodeGetParams reads phGraph_out back; the WHILE
    body runs 4 times."""
    out = _run(BINDING.replace("ROUTE", repr(route)))
    codes = {name: code for name, code in out["codes"]}
    assert {k: v for k, v in codes.items() if v} == {"handle-badflags": 1, "add-while-size2": 1,
                                                     "add-handle-in-use": 1, "destroy-body": 1}
    assert out["get"] == [13, 1, 1, True, True] and out["body_nodes"] == 1
    assert out["counts"] == [0, 4, 0, 0]
