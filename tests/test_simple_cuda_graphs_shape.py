"""A program of our own with the shape of NVIDIA's simpleCudaGraphs sample, and the sample itself when present.

The program builds the same six-operation graph twice, as the sample does: once by hand (two
memsets, a host-to-device copy, two kernels and a host node) and once by capturing the same
operations on two streams with an event fork and join. The tests check node counts, node types,
edges, and that replaying moves bytes (memset regions zeroed, the copy landed, the kernels' sums).

The last test runs NVIDIA's sample itself through ``python -m simcuda.cli run`` when a copy is
available: set ``SIMCUDA_SAMPLES_DIR`` to a folder holding ``3_CUDA_Features/simpleCudaGraphs_test.py``
and ``common/`` (or holding such folders one level down); by default ``<repo>/.samples`` is used.
"""
from __future__ import annotations

import ctypes
import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

import simcuda
from simcuda.faces.bindings import driver as cuda
from simcuda.faces.bindings import nvrtc
from simcuda.faces.bindings import runtime as cudart

np = pytest.importorskip("numpy")

ROOT = Path(__file__).resolve().parent.parent
THREADS, BLOCKS, N = 64, 8, 4096
E = cudart.cudaError_t
NT = cudart.cudaGraphNodeType

SOURCE = b"""
#include <cuda_runtime.h>
extern "C" __global__ void reduce(float *inputVec, double *outputVec, size_t inputSize, size_t outputSize) {}
extern "C" __global__ void reduceFinal(double *inputVec, double *result, size_t inputSize) {}
"""


def check(res):
    """Unpack a ``(status, *outputs)`` tuple, failing the test with the simulator's why on an error."""
    if int(res[0]):
        err = simcuda.last_error()
        pytest.fail(f"{res[0]!r}: {err.why if err else ''}")
    return None if len(res) == 1 else res[1] if len(res) == 2 else res[1:]


def py_reduce(launch):
    """Per-block partial sums of a float32 input, as float64 (the sample's ``reduce``)."""
    inp, out, n, out_size = launch.args
    blocks, threads = launch.grid[0], launch.block[0]
    x = launch.array(inp, np.float32, n).astype(np.float64)
    x = np.concatenate([x, np.zeros((-n) % (blocks * threads))])
    per_block = x.reshape(-1, blocks * threads).sum(axis=0).reshape(blocks, threads).sum(axis=1)
    k = min(blocks, out_size)
    launch.array(out, np.float64, k)[:] = per_block[:k]


def py_reduce_final(launch):
    """``result[0] = sum(in[0:n])`` (the sample's ``reduceFinal``)."""
    inp, result, n = launch.args
    launch.array(result, np.float64, 1)[0] = launch.array(inp, np.float64, n).sum()


class Env:
    """Device buffers, host input, kernels and a host-node counter for one fresh driver."""


@pytest.fixture
def env():
    """A fresh driver with the two kernels registered on it, compiled and loaded like the sample does."""
    drv = simcuda.Driver()
    drv.kernels.update({"reduce": py_reduce, "reduceFinal": py_reduce_final})
    old = simcuda.use(drv)
    e = Env()
    e.drv = drv
    check(cudart.cudaSetDevice(0))
    prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"shape.cu", 0, None, None))
    check(nvrtc.nvrtcCompileProgram(prog, 2, [b"--gpu-architecture=sm_90", b"--std=c++17"]))
    size = check(nvrtc.nvrtcGetCUBINSize(prog))
    image = b" " * size
    check(nvrtc.nvrtcGetCUBIN(prog, image))
    module = check(cuda.cuModuleLoadData(np.char.array(image)))
    e.reduce = check(cuda.cuModuleGetFunction(module, b"reduce"))
    e.reduce_final = check(cuda.cuModuleGetFunction(module, b"reduceFinal"))
    e.input_h = check(cudart.cudaMallocHost(4 * N))
    e.host_input = np.frombuffer((ctypes.c_float * N).from_address(e.input_h), dtype=np.float32)
    e.host_input[:] = np.random.default_rng(7).random(N, dtype=np.float32)
    e.input_d = check(cudart.cudaMalloc(4 * N))
    e.output_d = check(cudart.cudaMalloc(8 * 2 * BLOCKS))  # twice what reduce writes: the memset covers it all
    e.result_d = check(cudart.cudaMalloc(8))
    e.calls = []
    e.thunk = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda ud: e.calls.append(ud))
    e.host_fn = ctypes.cast(e.thunk, ctypes.c_void_p).value
    yield e
    simcuda.use(old)


def reduce_args(e):
    """``kernelParams`` of ``reduce`` as the sample passes them (values, ctypes types)."""
    return ((e.input_d, e.output_d, N, BLOCKS), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint))


def final_args(e):
    """``kernelParams`` of ``reduceFinal``."""
    return ((e.output_d, e.result_d, BLOCKS), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint))


def manual_graph(e):
    """The sample's manual graph, with a host node at the end: returns (graph, nodes by name)."""
    graph = check(cudart.cudaGraphCreate(0))
    cp = cudart.cudaMemcpy3DParms()
    cp.srcArray = None
    cp.srcPos = cudart.make_cudaPos(0, 0, 0)
    cp.srcPtr = cudart.make_cudaPitchedPtr(e.input_h, 4 * N, N, 1)
    cp.dstArray = None
    cp.dstPos = cudart.make_cudaPos(0, 0, 0)
    cp.dstPtr = cudart.make_cudaPitchedPtr(e.input_d, 4 * N, N, 1)
    cp.extent = cudart.make_cudaExtent(4 * N, 1, 1)
    cp.kind = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
    copy = check(cudart.cudaGraphAddMemcpyNode(graph, None, 0, cp))
    ms = cudart.cudaMemsetParams()
    ms.dst, ms.value, ms.pitch, ms.elementSize, ms.width, ms.height = e.output_d, 0, 0, 4, BLOCKS * 4, 1
    set_out = check(cudart.cudaGraphAddMemsetNode(graph, None, 0, ms))
    kp = cuda.CUDA_KERNEL_NODE_PARAMS()
    kp.func = e.reduce
    kp.gridDimX, kp.gridDimY, kp.gridDimZ = BLOCKS, 1, 1
    kp.blockDimX, kp.blockDimY, kp.blockDimZ = THREADS, 1, 1
    kp.sharedMemBytes = 0
    kp.kernelParams = reduce_args(e)
    k1 = check(cuda.cuGraphAddKernelNode(graph, [set_out, copy], 2, kp))
    ms2 = cudart.cudaMemsetParams()
    ms2.dst, ms2.value, ms2.elementSize, ms2.width, ms2.height = e.result_d, 0, 4, 2, 1
    set_res = check(cudart.cudaGraphAddMemsetNode(graph, None, 0, ms2))
    rk = cudart.cudaKernelNodeParams()
    rk.func = e.reduce_final
    rk.gridDim = cudart.dim3()
    rk.blockDim.x = THREADS
    rk.kernelParams = final_args(e)
    k2 = check(cudart.cudaGraphAddKernelNode(graph, [k1, set_res], 2, rk))
    hp = cudart.cudaHostNodeParams()
    hp.fn = e.host_fn
    hp.userData = 11
    host = check(cudart.cudaGraphAddHostNode(graph, [k2], 1, hp))
    return graph, {"copy": copy, "set_out": set_out, "reduce": k1, "set_res": set_res, "final": k2, "host": host}


def captured_graph(e):
    """The same six operations captured on two streams with fork/join: returns (graph, nodes by name)."""
    s1, s2 = check(cudart.cudaStreamCreate()), check(cudart.cudaStreamCreate())
    fork, join = check(cudart.cudaEventCreate()), check(cudart.cudaEventCreate())
    check(cudart.cudaStreamBeginCapture(s1, cudart.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal))
    check(cudart.cudaEventRecord(fork, s1))
    check(cudart.cudaStreamWaitEvent(s2, fork, 0))
    check(cudart.cudaMemcpyAsync(e.input_d, e.input_h, 4 * N, cudart.cudaMemcpyKind.cudaMemcpyDefault, s1))
    check(cudart.cudaMemsetAsync(e.output_d, 0, 8 * 2 * BLOCKS, s2))
    check(cudart.cudaMemsetAsync(e.result_d, 0, 8, s2))
    check(cudart.cudaEventRecord(join, s2))
    check(cudart.cudaStreamWaitEvent(s1, join, 0))
    check(cuda.cuLaunchKernel(e.reduce, BLOCKS, 1, 1, THREADS, 1, 1, 0, s1, reduce_args(e), 0))
    check(cuda.cuLaunchKernel(e.reduce_final, 1, 1, 1, THREADS, 1, 1, 0, s1, final_args(e), 0))
    check(cudart.cudaLaunchHostFunc(s1, e.host_fn, 22))
    graph = check(cudart.cudaStreamEndCapture(s1))
    nodes, n = check(cudart.cudaGraphGetNodes(graph, 6))
    assert n == 6
    names = ["copy", "set_out", "set_res", "reduce", "final", "host"]  # creation order
    return graph, dict(zip(names, nodes)), s1


def edges_by_name(graph, nodes):
    """The graph's edges as a set of (from name, to name)."""
    name = {int(h): k for k, h in nodes.items()}
    frm, to, _eds, n = check(cudart.cudaGraphGetEdges(graph, 16))
    return {(name[int(a)], name[int(b)]) for a, b in zip(frm[:n], to[:n])}


def prefill(e):
    """Fill the memset targets with 0xFF bytes and the device input with zeros, outside any graph."""
    check(cudart.cudaMemset(e.output_d, 0xFF, 8 * 2 * BLOCKS))
    check(cudart.cudaMemset(e.result_d, 0xFF, 8))
    check(cudart.cudaMemset(e.input_d, 0, 4 * N))


def device(e, ptr, dtype, count):
    """Copy ``count`` elements of device memory back to a numpy array."""
    out = np.empty(count, dtype=dtype)
    check(cudart.cudaMemcpy(out, ptr, out.nbytes, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    return out


def assert_replay_moved_bytes(e):
    """The copy landed, the memset zeroed what the kernel does not overwrite, and the sums are right."""
    assert np.array_equal(device(e, e.input_d, np.float32, N), e.host_input)
    out = device(e, e.output_d, np.float64, 2 * BLOCKS)
    assert np.all(out[BLOCKS:] == 0.0)  # memset region past what reduce writes
    x = e.host_input.astype(np.float64)
    expected = x.reshape(-1, BLOCKS * THREADS).sum(axis=0).reshape(BLOCKS, THREADS).sum(axis=1)
    assert np.allclose(out[:BLOCKS], expected)
    assert np.isclose(device(e, e.result_d, np.float64, 1)[0], x.sum())


def test_manual_graph_shape(env):
    """The hand-built graph has 6 nodes of the sample's types and the sample's dependencies."""
    graph, nodes = manual_graph(env)
    assert check(cudart.cudaGraphGetNodes(graph))[1] == 6
    types = {k: check(cudart.cudaGraphNodeGetType(h)) for k, h in nodes.items()}
    assert types == {"copy": NT.cudaGraphNodeTypeMemcpy, "set_out": NT.cudaGraphNodeTypeMemset,
                     "reduce": NT.cudaGraphNodeTypeKernel, "set_res": NT.cudaGraphNodeTypeMemset,
                     "final": NT.cudaGraphNodeTypeKernel, "host": NT.cudaGraphNodeTypeHost}
    assert edges_by_name(graph, nodes) == {("set_out", "reduce"), ("copy", "reduce"), ("reduce", "final"),
                                           ("set_res", "final"), ("final", "host")}
    roots = check(cudart.cudaGraphGetRootNodes(graph, 6))[0][:3]
    assert {int(r) for r in roots} == {int(nodes["copy"]), int(nodes["set_out"]), int(nodes["set_res"])}


def test_manual_graph_replay_moves_bytes(env):
    """Launching the hand-built graph (and its clone) copies, zeroes, reduces and calls the host node."""
    graph, _ = manual_graph(env)
    stream = check(cudart.cudaStreamCreate())
    exe = check(cudart.cudaGraphInstantiate(graph, 0))
    clone = check(cudart.cudaGraphInstantiate(check(cudart.cudaGraphClone(graph)), 0))
    prefill(env)
    check(cudart.cudaGraphLaunch(exe, stream))
    check(cudart.cudaStreamSynchronize(stream))
    assert_replay_moved_bytes(env)
    assert env.calls == [11]
    prefill(env)
    check(cudart.cudaGraphLaunch(clone, stream))
    check(cudart.cudaStreamSynchronize(stream))
    assert_replay_moved_bytes(env)
    assert env.calls == [11, 11]


def test_captured_graph_shape(env):
    """Capturing the same operations on two streams gives 6 nodes, no event nodes, and the fork/join edges."""
    graph, nodes, _ = captured_graph(env)
    types = [check(cudart.cudaGraphNodeGetType(nodes[k])) for k in
             ("copy", "set_out", "set_res", "reduce", "final", "host")]
    assert types == [NT.cudaGraphNodeTypeMemcpy, NT.cudaGraphNodeTypeMemset, NT.cudaGraphNodeTypeMemset,
                     NT.cudaGraphNodeTypeKernel, NT.cudaGraphNodeTypeKernel, NT.cudaGraphNodeTypeHost]
    assert edges_by_name(graph, nodes) == {("copy", "reduce"), ("set_out", "set_res"), ("set_res", "reduce"),
                                           ("reduce", "final"), ("final", "host")}
    assert env.calls == [] and env.drv.stats["captures_ended"] == 1


def test_capture_runs_nothing_and_replay_moves_bytes(env):
    """Nothing runs while capturing; replaying the captured graph moves the bytes, twice."""
    prefill(env)
    graph, _, stream = captured_graph(env)
    assert np.all(device(env, env.input_d, np.float32, N) == 0)  # the captured copy has not run
    assert device(env, env.result_d, np.uint8, 8).tolist() == [0xFF] * 8
    exe = check(cudart.cudaGraphInstantiate(graph, 0))
    for _i in range(2):
        prefill(env)
        check(cudart.cudaGraphLaunch(exe, stream))
        check(cudart.cudaStreamSynchronize(stream))
        assert_replay_moved_bytes(env)
    assert env.calls == [22, 22]
    runs = {(r.exec_handle, r.launch) for r in env.drv.launch_log if r.source == "graph"}
    assert len(runs) == 2


def test_example_kernels_compute_the_sample_reduction():
    """examples/simple_cuda_graphs_kernels.py implements the sample's reduce/reduceFinal correctly."""
    from simcuda._core.facade import KERNELS
    saved = {k: KERNELS.get(k) for k in ("reduce", "reduceFinal")}
    try:
        runpy.run_path(str(ROOT / "examples" / "simple_cuda_graphs_kernels.py"))
        drv = simcuda.Driver()
        old = simcuda.use(drv)
        try:
            e = Env()
            n, blocks, threads = 1 << 14, 16, 128
            x = np.random.default_rng(1).random(n, dtype=np.float32)
            inp = check(cudart.cudaMalloc(4 * n))
            out = check(cudart.cudaMalloc(8 * blocks))
            res = check(cudart.cudaMalloc(8))
            check(cudart.cudaMemcpy(inp, x, 4 * n, cudart.cudaMemcpyKind.cudaMemcpyHostToDevice))
            mod = check(cuda.cuModuleLoadData(SOURCE))
            e.r = check(cuda.cuModuleGetFunction(mod, b"reduce"))
            e.f = check(cuda.cuModuleGetFunction(mod, b"reduceFinal"))
            P, S, U = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint
            check(cuda.cuLaunchKernel(e.r, blocks, 1, 1, threads, 1, 1, 0, 0, ((inp, out, n, blocks), (P, P, S, U)), 0))
            check(cuda.cuLaunchKernel(e.f, 1, 1, 1, threads, 1, 1, 0, 0, ((out, res, blocks), (P, P, U)), 0))
            got = np.empty(1, np.float64)
            check(cudart.cudaMemcpy(got, res, 8, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost))
            assert np.isclose(got[0], x.astype(np.float64).sum())
        finally:
            simcuda.use(old)
    finally:
        for k, v in saved.items():
            if v is None:
                KERNELS.pop(k, None)
            else:
                KERNELS[k] = v


def _sample_forms() -> list[Path]:
    base = Path(os.environ.get("SIMCUDA_SAMPLES_DIR", ROOT / ".samples"))
    rel = Path("3_CUDA_Features") / "simpleCudaGraphs_test.py"
    if (base / rel).is_file():
        return [base]
    return sorted(p for p in base.glob("*") if (p / rel).is_file() and (p / "common").is_dir()) if base.is_dir() else []


def _cuda_headers() -> str | None:
    """A CUDA toolkit folder whose ``include/`` has the headers the sample includes (NVIDIA's NVRTC reads them)."""
    for home in [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), *sorted(Path("/usr/local").glob("cuda*"))]:
        if home and (Path(home) / "include" / "cooperative_groups.h").is_file():
            return str(home)
    return None


#: a --kernels file for a sample snapshot whose common.py imports cuda.pathfinder's private
#: ``get_cuda_home_or_path``, which the installed cuda-pathfinder (1.9.1) spells ``get_cuda_path_or_home``: the
#: version skew of the two NVIDIA packages, not the simulator's; the sample's files stay unmodified
PATHFINDER_ALIAS = """
from cuda.pathfinder._utils import env_vars
if not hasattr(env_vars, "get_cuda_home_or_path"):
    env_vars.get_cuda_home_or_path = env_vars.get_cuda_path_or_home
"""


def _routes() -> list[str]:
    from simcuda.faces import native
    return ["python", "native"] if native.available()[0] else ["python"]


@pytest.mark.skipif(not _sample_forms(), reason="NVIDIA's simpleCudaGraphs sample is not available "
                                                "(set SIMCUDA_SAMPLES_DIR to a cuda_bindings/examples copy)")
@pytest.mark.parametrize("route", _routes())
@pytest.mark.parametrize("form", _sample_forms(), ids=lambda p: p.name)
def test_nvidia_sample_runs_unmodified(form, route, tmp_path):
    """NVIDIA's sample runs under ``simcuda run --route``: exit 0, both node counts 6, four graphs of 6 nodes and
    5 edges. On the native route NVIDIA's own driver binding and (where its library loads) NVRTC run: NVRTC
    compiles the sample's CUDA C for real, so it needs the toolkit headers; without them simcuda's NVRTC face
    serves (``SIMCUDA_NVRTC=simcuda``)."""
    pytest.importorskip("pytest")
    home = tmp_path / "cuda"
    (home / "include").mkdir(parents=True)  # the sample checks that $CUDA_HOME/include exists
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(form)]), CUDA_HOME=str(home))
    env.pop("SIMCUDA_ROUTE", None)
    if route == "native":
        headers = _cuda_headers()
        if headers is not None:
            env["CUDA_HOME"] = headers
        else:
            env["SIMCUDA_NVRTC"] = "simcuda"
    alias = tmp_path / "pathfinder_alias.py"
    alias.write_text(PATHFINDER_ALIAS)
    kernels = str(ROOT / "examples" / "simple_cuda_graphs_kernels.py")
    cmd = [sys.executable, "-m", "simcuda.cli", "run", "--route", route, "--kernels", str(alias), "--kernels", kernels,
           "--dot", str(tmp_path / "dots"), str(form / "3_CUDA_Features" / "simpleCudaGraphs_test.py")]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(form), timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "Num of nodes in the graph created manually = 6" in res.stdout
    assert "Num of nodes in the graph created using stream capture API = 6" in res.stdout
    assert res.stderr.count("6 nodes (KERNEL 2, MEMCPY 2, MEMSET 2), 5 edges, launched 3 times") == 4
    assert "captures: 1 begun, 1 ended" in res.stderr and "graph launches: 12" in res.stderr
    assert len(list((tmp_path / "dots").glob("graph_*.dot"))) == 4
