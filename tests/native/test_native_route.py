"""simcuda.patch(route="native"): NVIDIA's own cuda.bindings.driver over the simulated libcuda.so.1.

Each test runs in a subprocess of its own: once a library with the soname libcuda.so.1 is loaded, NVIDIA's
binding keeps it for the life of the process.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from simcuda.faces import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

FLOW = r'''
import json, simcuda
from simcuda import _patch
out = {}
with simcuda.patch(route=ROUTE) as drv:
    from cuda.bindings import driver as d
    out["module"] = d.__name__
    out["route"] = _patch.current_route()
    codes = []
    def c(r):
        codes.append(int(r[0]))
        return r[1:] if len(r) > 2 else (r[1] if len(r) == 2 else None)
    c(d.cuInit(0))
    dev = c(d.cuDeviceGet(0))
    ctx = c(d.cuDevicePrimaryCtxRetain(dev))
    c(d.cuCtxSetCurrent(ctx))
    s = c(d.cuStreamCreate(1))
    c(d.cuStreamBeginCapture(s, d.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    c(d.cuStreamBeginCapture(s, 0))                       # 401: already capturing
    c(d.cuStreamBeginCapture(d.CUstream(0), 0))           # 900: the legacy stream
    info = c(d.cuStreamGetCaptureInfo(s))
    out["status"] = int(info[0])
    c(d.cuStreamIsCapturing(s))
    g = c(d.cuStreamEndCapture(s))
    c(d.cuStreamEndCapture(s))                            # 401: not capturing
    out["nodes"] = len(drv.handles.graph(int(g)).live_nodes())
    c(d.cuGraphDestroy(g))
    c(d.cuGraphDestroy(g))                                # 1: destroyed graph
    c(d.cuStreamDestroy(s))
    c(d.cuStreamQuery(s))                                 # 709: destroyed stream (observed on NVIDIA)
    c(d.cuEventCreate(0xFFFF))                            # 1: bad flags
    out["name"] = d.cuGetErrorName(d.CUresult(901))[1].decode()
    out["codes"] = codes
    out["why"] = simcuda.last_error().why
print(json.dumps(out))
'''


def run(route: str) -> dict:
    code = FLOW.replace("ROUTE", repr(route))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_nvidia_binding_runs_on_the_simulated_driver():
    out = run("native")
    assert out["route"] == "native"
    assert "simcuda" not in out["module"] and out["module"].startswith("cuda.bindings")
    assert out["status"] == 1 and out["name"] == "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"
    assert "CUevent_flags" in out["why"]  # the core's why, on this thread


def test_both_routes_return_the_same_codes():
    native_out, python_out = run("native"), run("python")
    assert "simcuda" in python_out["module"]
    assert native_out["codes"] == python_out["codes"]
    assert native_out["codes"] == [0, 0, 0, 0, 0, 0, 401, 900, 0, 0, 0, 401, 0, 1, 0, 709, 1]
    assert native_out["why"] == python_out["why"] and native_out["nodes"] == python_out["nodes"] == 0


def test_a_process_without_the_native_route_loads_no_simulated_library():
    code = textwrap.dedent('''
        import simcuda
        from simcuda.faces import native
        with simcuda.patch(route="python"):
            from cuda.bindings import driver
            driver.cuInit(0)
        print(native.is_loaded())
    ''')
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "False"


def test_unknown_route_is_refused():
    import simcuda
    with pytest.raises(ValueError, match="route must be one of"):
        simcuda.patch(route="fast").__enter__()


def test_after_the_native_patch_exits_the_binding_keeps_serving_the_current_driver():
    """docs/native.md: no unload; the cached entries reach the adapters, which serve simcuda's current driver."""
    code = textwrap.dedent('''
        import sys, simcuda
        from simcuda.faces import native
        with simcuda.patch(route="native"):
            from cuda.bindings import driver as d
            d.cuInit(0)
        assert "simcuda.faces.bindings.runtime" != getattr(sys.modules.get("cuda.bindings.runtime"), "__name__", "")
        later = simcuda.Driver()
        simcuda.use(later)
        from cuda.bindings import driver as d2
        d2.cuInit(0)
        err, dev = d2.cuDeviceGet(0)
        err, ctx = d2.cuDevicePrimaryCtxRetain(dev)
        d2.cuCtxSetCurrent(ctx)
        err, s = d2.cuStreamCreate(1)
        print(int(err), native.is_loaded(), later.stream_is_capturing(int(s)) == 0, d2.__name__.startswith("simcuda"))
    ''')
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["0", "True", "True", "False"]


@pytest.mark.parametrize("route, nvidia", [("native", True), ("python", False), ("auto", True)])
def test_simcuda_run_takes_a_route(route, nvidia, tmp_path):
    """``simcuda run --route`` passes the route to ``simcuda.patch``: NVIDIA's binding over the simulated
    library on the native route (``auto`` takes it where it is available), simcuda's face on the python one;
    the summary counts the capture either way."""
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent('''
        from cuda.bindings import driver as d
        print(not d.__name__.startswith("simcuda"))
        d.cuInit(0)
        err, dev = d.cuDeviceGet(0)
        err, ctx = d.cuDevicePrimaryCtxRetain(dev)
        d.cuCtxSetCurrent(ctx)
        err, s = d.cuStreamCreate(1)
        d.cuStreamBeginCapture(s, 0)
        err, g = d.cuStreamEndCapture(s)
    '''))
    env = {k: v for k, v in __import__("os").environ.items() if k != "SIMCUDA_ROUTE"}
    r = subprocess.run([sys.executable, "-m", "simcuda.cli", "run", "--route", route, str(script)],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(nvidia)]
    assert "captures: 1 begun, 1 ended" in r.stderr


def test_simcuda_run_refuses_an_unknown_route(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text("pass\n")
    r = subprocess.run([sys.executable, "-m", "simcuda.cli", "run", "--route", "fast", str(script)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "invalid choice: 'fast'" in r.stderr


FAULT = textwrap.dedent('''
    import json, sys, simcuda
    @simcuda.kernel("k")
    def k(launch):
        1 / 0
    drv = simcuda.Driver(options=simcuda.Options(kernel_faults=sys.argv[2]))
    with simcuda.patch(route=sys.argv[1], driver=drv):
        from cuda.bindings import driver as cu
        cu.cuInit(0)
        ctx = cu.cuCtxCreate(None, 0, 0)[1]
        ptx = b".version 8.0\\n.target sm_90\\n.address_size 64\\n.visible .entry k()\\n{ ret; }\\n"
        f = cu.cuModuleGetFunction(cu.cuModuleLoadData(ptx)[1], b"k")[1]
        try:
            got = [int(cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, None, 0)[0])]
        except ZeroDivisionError:
            got = ["raised"]
        got += [int(cu.cuCtxSynchronize()[0]), int(cu.cuMemAlloc(64)[0])]
        why = (simcuda.last_error().why if simcuda.last_error() else "")
        got.append("ZeroDivisionError" in why and "sticky error" in why)
        cu.cuCtxDestroy(ctx)
        cu.cuCtxCreate(None, 0, 0)
        got.append(int(cu.cuMemAlloc(64)[0]))
        print(json.dumps(got))
''')


@pytest.mark.parametrize("route", ["native", "python"])
def test_a_python_kernel_that_raises_is_a_sticky_launch_failure(route):
    """By default a Python kernel's exception behaves as a kernel fault on a GPU, on both routes: the launch
    succeeds, the next calls answer CUDA_ERROR_LAUNCH_FAILED (719) with the kernel's traceback in the why, and a
    new context answers it too (NVIDIA: the process must be restarted)."""
    r = subprocess.run([sys.executable, "-c", FAULT, route, "sticky"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1]) == [0, 719, 719, True, 719]


def test_kernel_faults_raise_lets_the_exception_out_where_it_can():
    """``Options(kernel_faults="raise")``: the Python face lets the kernel's exception out of the launch; the
    native route, which cannot raise through C, answers 719 and prints the traceback named as the kernel's."""
    r = subprocess.run([sys.executable, "-c", FAULT, "python", "raise"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])[:3] == ["raised", 0, 0]
    r = subprocess.run([sys.executable, "-c", FAULT, "native", "raise"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.strip().splitlines()[-1])[:3] == [719, 0, 0]
    assert "the Python kernel 'k' raised" in r.stderr and "ZeroDivisionError" in r.stderr
    assert "internal error" not in r.stderr


def test_the_context_taking_variants_on_both_routes():
    """cuCtxGetDevice_v2, cuCtxSynchronize_v2 and cuStreamGetCtx_v2 (the 13.0/12.5 variants that name their
    context), through NVIDIA's binding on the native route and the Python face, with the same results."""
    code = textwrap.dedent('''
        import json, sys, simcuda
        with simcuda.patch(route=sys.argv[1]):
            from cuda.bindings import driver as cu
            cu.cuInit(0)
            ctx = cu.cuCtxCreate(None, 0, 0)[1]
            s = cu.cuStreamCreate(1)[1]
            got = [int(cu.cuCtxGetDevice_v2(ctx)[0]), int(cu.cuCtxGetDevice_v2(ctx)[1]),
                   int(cu.cuCtxSynchronize_v2(ctx)[0]), int(cu.cuStreamGetCtx_v2(s)[1]) == int(ctx),
                   int(cu.cuStreamGetCtx_v2(s)[2]), int(cu.cuCtxGetDevice_v2(cu.CUcontext(12345))[0])]
            cu.cuStreamBeginCapture(s, 0)
            got.append(int(cu.cuCtxSynchronize_v2(ctx)[0]))  # 900 while a stream of the context captures
            print(json.dumps(got))
    ''')
    outs = []
    for route in ("native", "python"):
        r = subprocess.run([sys.executable, "-c", code, route], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        outs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    assert outs[0] == outs[1] == [0, 0, 0, True, 0, 201, 900]


PDL = r'''
import json, simcuda
with simcuda.patch(route=ROUTE):
    from cuda.bindings import driver as cu
    cu.cuInit(0)
    cu.cuCtxCreate(None, 0, 0)
    ptx = b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{ ret; }\n"
    f = cu.cuModuleGetFunction(cu.cuModuleLoadData(ptx)[1], b"k")[1]
    s = cu.cuStreamCreate(1)[1]
    a = cu.CUlaunchAttribute()
    a.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    a.value.programmaticStreamSerializationAllowed = 1
    c = cu.CUlaunchConfig()
    c.gridDimX = c.gridDimY = c.gridDimZ = c.blockDimX = c.blockDimY = c.blockDimZ = 1
    c.hStream = s
    c.attrs = [a]
    c.numAttrs = 1
    cu.cuStreamBeginCapture(s, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL)
    codes = [int(cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, None, 0)[0]), int(cu.cuLaunchKernelEx(c, f, None, 0)[0])]
    g = cu.cuStreamEndCapture(s)[1]
    eds = cu.cuGraphGetEdges(g, 1)[3]
    print(json.dumps([codes, [eds[0].from_port, eds[0].to_port, int(eds[0].type)]]))
'''


def test_a_programmatic_launch_makes_the_same_edge_on_both_routes():
    """cuLaunchKernelEx with PROGRAMMATIC_STREAM_SERIALIZATION after a kernel, captured: a programmatic edge
    (port 1, type 1) through NVIDIA's binding and through the Python face alike (P-16)."""
    from .conftest import run_flow
    assert run_flow(PDL, "native") == run_flow(PDL, "python") == [[0, 0], [1, 0, 1]]


LAUNCH_EX = r'''
import ctypes, json, simcuda
with simcuda.patch(route=ROUTE) as drv:
    from cuda.bindings import driver as cu
    out = {"uninitialised": int(cu.cuLaunchKernelEx(cu.CUlaunchConfig(), 0, None, 0)[0])}
    cu.cuInit(0)
    cu.cuCtxCreate(None, 0, 0)
    ptx = b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u32 n)\n{ ret; }\n"
    f = cu.cuModuleGetFunction(cu.cuModuleLoadData(ptx)[1], b"k")[1]
    s = cu.cuStreamCreate(1)[1]
    def config(*attrs):
        c = cu.CUlaunchConfig()
        c.gridDimX = c.gridDimY = c.gridDimZ = c.blockDimY = c.blockDimZ = 1
        c.blockDimX = 32
        c.hStream = s
        c.attrs = list(attrs)
        c.numAttrs = len(attrs)
        return c
    def attr(i):
        a = cu.CUlaunchAttribute()
        a.id = cu.CUlaunchAttributeID(i)
        return a
    args = ((5,), (ctypes.c_uint,))
    n = ctypes.c_uint(5)
    arr = (ctypes.c_void_p * 1)(ctypes.addressof(n))
    cu.cuStreamBeginCapture(s, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED)
    out["null config"] = int(cu.cuLaunchKernelEx(None, f, args, 0)[0])
    out["extra and params"] = int(cu.cuLaunchKernelEx(config(), f, args, ctypes.addressof(arr))[0])
    out["attribute not simulated"] = int(cu.cuLaunchKernelEx(config(attr(1)), f, args, 0)[0])
    out["priority attribute"] = int(cu.cuLaunchKernelEx(config(attr(8)), f, args, 0)[0])
    out["repeats"] = [int(cu.cuLaunchKernelEx(config(), f, args, 0)[0]) for _ in range(3)]
    g = cu.cuStreamEndCapture(s)[1]
    nodes = drv.handles.graph(int(g)).live_nodes()
    out["nodes"] = [[list(nd.params.args), list(nd.params.grid), list(nd.params.block)] for nd in nodes]
    out["one record"] = [nd.params is nodes[1].params for nd in nodes[1:]]
print(json.dumps(out))
'''


def test_launch_kernel_ex_answers_alike_on_both_routes():
    """cuLaunchKernelEx's cases through NVIDIA's binding and through the Python face: not initialised (3), a
    NULL config (1), extra with kernelParams (1), an attribute not simulated (801), PRIORITY accepted, and
    repeated launches captured with one launch record (the core reuses it on both routes)."""
    from .conftest import run_flow
    native, python = run_flow(LAUNCH_EX, "native"), run_flow(LAUNCH_EX, "python")
    assert native == python
    assert native["uninitialised"] == 3 and native["null config"] == 1 and native["extra and params"] == 1
    assert native["attribute not simulated"] == 801 and native["priority attribute"] == 0
    assert native["repeats"] == [0, 0, 0]
    assert native["nodes"] == [[[5], [1, 1, 1], [32, 1, 1]]] * 4 and native["one record"] == [True] * 3


READ_TYPES = r'''
import ctypes, json, math, simcuda
SRC = b"""#include <cuda_fp16.h>
extern "C" __global__ void kb(__nv_bfloat16 x) { }
extern "C" __global__ void ku(struct Foo x) { }
extern "C" __global__ void kh(__half x) { }
"""
seen = []

@simcuda.kernel("kh")
def kh(launch):
    seen.append(math.copysign(1, launch.args[0]))

@simcuda.kernel("kb")
def kb(launch):
    seen.append(launch.args[0])

calls = []
with simcuda.patch(route=ROUTE) as drv:
    from cuda.bindings import driver as d
    d.cuInit(0)
    d.cuCtxSetCurrent(d.cuDevicePrimaryCtxRetain(d.cuDeviceGet(0)[1])[1])
    mod = d.cuModuleLoadData(SRC)[1]
    s = d.cuStreamCreate(1)[1]
    def L(name, bits):
        v = (ctypes.c_uint16 * 8)(bits)
        arr = (ctypes.c_void_p * 1)(ctypes.addressof(v))
        f = d.cuModuleGetFunction(mod, name)[1]
        return int(d.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, ctypes.addressof(arr), 0)[0])
    out = {"bf16": L(b"kb", 0x3F80), "unsized": L(b"ku", 0), "half": [L(b"kh", b) for b in (0x0000, 0x8000)]}
    d.cuStreamSynchronize(s)
    for n in ("require_arg", "check_launch_attributes", "check_kernel_extra"):
        drv.add_hook(n, before=lambda drv_, a, k, n=n: calls.append(n))
    c = d.CUlaunchConfig()
    c.gridDimX = c.gridDimY = c.gridDimZ = c.blockDimX = c.blockDimY = c.blockDimZ = 1
    c.hStream = s
    out["ex"] = int(d.cuLaunchKernelEx(c, d.cuModuleGetFunction(mod, b"kh")[1], ((0,), (ctypes.c_uint16,)), 0)[0])
    out["seen"], out["hooked"] = seen, calls
print(json.dumps(out))
'''


def test_parameter_types_and_hooks_alike_on_both_routes():
    """Through NVIDIA's binding as through the Python face: a ``__nv_bfloat16`` argument is read (1.0), a type
    the simulator cannot size is 801 (not an internal error), a ``__half`` ``-0.0`` after ``0.0`` reaches the
    kernel as ``-0.0``; and hooks on the core's checks see cuLaunchKernelEx call them (found by a fresh
    tester: the native reader failed on the first two and compared halves by value, and the Ex adapter once
    skipped checks with nothing to check even with hooks registered)."""
    from .conftest import run_flow
    native, python = run_flow(READ_TYPES, "native"), run_flow(READ_TYPES, "python")
    assert native == python
    assert native["bf16"] == 0 and native["unsized"] == 801 and native["half"] == [0, 0] and native["ex"] == 0
    assert native["seen"] == [1.0, 1.0, -1.0, 1.0]
    assert native["hooked"] == ["require_arg", "check_launch_attributes", "check_kernel_extra"]


DIMS = r'''
import ctypes, json, numpy as np, simcuda
PTX = b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry kd(.param .u32 a)\n{ ret; }\n"
seen = []

@simcuda.kernel("kd")
def kd(launch):
    seen.append([[type(x).__name__ for x in launch.grid + launch.block], list(launch.grid + launch.block)])

with simcuda.patch(route=ROUTE):
    from cuda.bindings import driver as d
    d.cuInit(0)
    d.cuCtxSetCurrent(d.cuDevicePrimaryCtxRetain(d.cuDeviceGet(0)[1])[1])
    f = d.cuModuleGetFunction(d.cuModuleLoadData(PTX)[1], b"kd")[1]
    s = d.cuStreamCreate(1)[1]
    a = ((1,), (ctypes.c_uint,))
    d.cuLaunchKernel(f, np.uint32(3), 1, 1, True, 1, 1, 0, s, a, 0)
    d.cuStreamSynchronize(s)
    d.cuStreamBeginCapture(s, 0)
    d.cuLaunchKernel(f, np.uint32(3), 1, 1, True, 1, 1, 0, s, a, 0)
    g = d.cuStreamEndCapture(s)[1]
    p = d.cuGraphKernelNodeGetParams(d.cuGraphGetNodes(g, 1)[1][0])[1]
    try:
        d.cuLaunchKernel(f, np.uint32(3), 1, 1, 1, 1, 1, 2**32, s, a, 0)
        too_big = None
    except OverflowError as e:
        too_big = str(e)
print(json.dumps({"seen": seen, "node": [type(p.gridDimX).__name__, int(p.gridDimX), type(p.blockDimX).__name__,
                                         int(p.blockDimX)], "too big": too_big}))
'''


def test_launch_dimensions_of_other_integer_types_alike_on_both_routes():
    """Launch dimensions given as a numpy integer or a bool reach the kernel and the captured node as plain
    ints, and an out-of-range value beside them is the binding's OverflowError text (found by a fresh tester:
    the Python face kept the objects as given)."""
    from .conftest import run_flow
    native, python = run_flow(DIMS, "native"), run_flow(DIMS, "python")
    assert native == python
    assert native["seen"] == [[["int"] * 6, [3, 1, 1, 1, 1, 1]]]
    assert native["node"] == ["int", 3, "int", 1]
    assert native["too big"] == "value too large to convert to unsigned int"


CLUSTER = r'''
import json, simcuda
with simcuda.patch(route=ROUTE):
    from cuda.bindings import driver as d
    a = d.CUlaunchAttribute()
    a.id = d.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z = 2, 1, 1
    v = a.value  # (one member set: NVIDIA's union members share their bytes, the face's do not)
    out = {"types": [type(v.clusterDim).__name__, type(v.preferredClusterDim).__name__],
           "dims": [v.clusterDim.x, v.clusterDim.y, v.clusterDim.z]}
    d.cuInit(0)
    d.cuCtxSetCurrent(d.cuDevicePrimaryCtxRetain(d.cuDeviceGet(0)[1])[1])
    ptx = b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{ ret; }\n"
    f = d.cuModuleGetFunction(d.cuModuleLoadData(ptx)[1], b"k")[1]
    c = d.CUlaunchConfig()
    c.gridDimX = 2
    c.gridDimY = c.gridDimZ = c.blockDimX = c.blockDimY = c.blockDimZ = 1
    c.attrs = [a]
    c.numAttrs = 1
    out["launch"] = int(d.cuLaunchKernelEx(c, f, None, 0)[0])
print(json.dumps(out))
'''


def test_cluster_dimensions_are_structs_on_both_routes():
    """``CUlaunchAttributeValue.clusterDim`` and ``preferredClusterDim`` are structs with x, y, z on the Python
    face as in NVIDIA's binding (the face had them as plain values), and a launch with CLUSTER_DIMENSION is
    refused alike with NOT_SUPPORTED (801) on the default compute capability 8.0 device, which has no clusters
    (found by a fresh tester)."""
    from .conftest import run_flow
    native, python = run_flow(CLUSTER, "native"), run_flow(CLUSTER, "python")
    assert native == python == {"types": ["anon_struct1", "anon_struct4"], "dims": [2, 1, 1], "launch": 801}
