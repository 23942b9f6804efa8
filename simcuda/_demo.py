"""``simcuda demo``: the Programming Guide's fork/join capture (A -> B, A -> C, B -> D, C -> D, then a copy).

The program below is ordinary ``cuda.bindings`` code: it imports ``cuda.bindings.driver`` and
``cuda.bindings.nvrtc`` (simcuda's faces, installed by :func:`simcuda.patch`), compiles four CUDA C
kernels with NVRTC, captures them on two streams with an event fork and an event join, ends the
capture, prints the graph, and replays it. Small pure-Python implementations of the four kernels
are registered on the demo's own driver (``Driver.kernels``), so the replay computes real numbers.
No numpy is needed.
"""
from __future__ import annotations

import ctypes
import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from ._core.modules.kernels import KernelLaunch

N = 8

KERNELS_CU = r"""
extern "C" __global__ void A(float *x, int n) {            // x[i] = i
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = (float)i;
}
extern "C" __global__ void B(const float *x, float *y, int n) {   // y = 2x
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
extern "C" __global__ void C(const float *x, float *z, int n) {   // z = x + 1
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = x[i] + 1.0f;
}
extern "C" __global__ void D(const float *y, const float *z, float *out, int n) {   // out = y + z
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = y[i] + z[i];
}
"""

EXPLANATION = """\
What happened:
  * cuStreamBeginCapture(s0) put s0 in capture mode: work enqueued on it became graph nodes instead of running.
  * cuEventRecord(fork, s0) + cuStreamWaitEvent(s1, fork) forked: s1 joined the capture, depending on A.
  * B (on s0) and C (on s1) both depend only on A, so they are independent branches of the graph.
  * cuEventRecord(join, s1) + cuStreamWaitEvent(s0, join) joined s1 back: D depends on B and C.
  * The device-to-host copy follows D on s0. Event records and waits made edges, not nodes.
  * cuStreamEndCapture(s0) returned the graph; cuGraphInstantiate + cuGraphLaunch replayed it.
    With every forked stream joined back, ending the capture succeeds; without the join it would
    fail with CUDA_ERROR_STREAM_CAPTURE_UNJOINED (try `simcuda explain 904`).
"""


def _floats(launch: KernelLaunch, ptr: int, n: int) -> memoryview[float]:
    return launch.view(ptr, 4 * n).cast("f")


def _kernel_a(launch: KernelLaunch) -> None:
    x, n = launch.args
    v = _floats(launch, x, n)
    for i in range(n):
        v[i] = float(i)


def _kernel_b(launch: KernelLaunch) -> None:
    x, y, n = launch.args
    xv, yv = _floats(launch, x, n), _floats(launch, y, n)
    for i in range(n):
        yv[i] = 2.0 * xv[i]


def _kernel_c(launch: KernelLaunch) -> None:
    x, z, n = launch.args
    xv, zv = _floats(launch, x, n), _floats(launch, z, n)
    for i in range(n):
        zv[i] = xv[i] + 1.0


def _kernel_d(launch: KernelLaunch) -> None:
    y, z, out, n = launch.args
    yv, zv, ov = _floats(launch, y, n), _floats(launch, z, n), _floats(launch, out, n)
    for i in range(n):
        ov[i] = yv[i] + zv[i]


def _check(result: tuple[Any, ...]) -> Any:
    """Unpack a ``(status, *outputs)`` tuple; raise with the simulator's why on failure."""
    import simcuda
    status = result[0]
    if int(status):
        err = simcuda.last_error()
        raise RuntimeError(f"{status!r}: {err.why if err is not None else ''}")
    return None if len(result) == 1 else result[1] if len(result) == 2 else result[1:]


def fork_join_program(out: TextIO) -> list[float]:
    """The demo program proper (``cuda.bindings`` code); returns the copied-back results."""
    from cuda.bindings import driver as cuda
    from cuda.bindings import nvrtc

    _check(cuda.cuInit(0))
    dev = _check(cuda.cuDeviceGet(0))
    ctx = _check(cuda.cuDevicePrimaryCtxRetain(dev))
    _check(cuda.cuCtxSetCurrent(ctx))

    prog = _check(nvrtc.nvrtcCreateProgram(KERNELS_CU.encode(), b"fork_join.cu", 0, None, None))
    _check(nvrtc.nvrtcCompileProgram(prog, 1, [b"--gpu-architecture=sm_90"]))
    size = _check(nvrtc.nvrtcGetCUBINSize(prog))
    image = bytearray(size)
    _check(nvrtc.nvrtcGetCUBIN(prog, image))
    module = _check(cuda.cuModuleLoadData(bytes(image)))
    fa, fb, fc, fd = (_check(cuda.cuModuleGetFunction(module, name)) for name in (b"A", b"B", b"C", b"D"))

    nbytes = 4 * N
    x, y, z, d_out = (_check(cuda.cuMemAlloc(nbytes)) for _ in range(4))
    host_out = (ctypes.c_float * N)()
    s0 = _check(cuda.cuStreamCreate(cuda.CUstream_flags.CU_STREAM_NON_BLOCKING))
    s1 = _check(cuda.cuStreamCreate(cuda.CUstream_flags.CU_STREAM_NON_BLOCKING))
    fork = _check(cuda.cuEventCreate(0))
    join = _check(cuda.cuEventCreate(0))
    P, INT = None, ctypes.c_int  # None: a binding object (CUdeviceptr) passed by its getPtr(), as cuda-python does

    def launch(f: Any, stream: Any, values: tuple[Any, ...], types: tuple[Any, ...]) -> None:
        _check(cuda.cuLaunchKernel(f, 1, 1, 1, N, 1, 1, 0, stream, (values, types), 0))

    _check(cuda.cuStreamBeginCapture(s0, cuda.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    launch(fa, s0, (x, N), (P, INT))                         # A
    _check(cuda.cuEventRecord(fork, s0))                     # fork ...
    _check(cuda.cuStreamWaitEvent(s1, fork, 0))              # ... s1 joins the capture after A
    launch(fb, s0, (x, y, N), (P, P, INT))                   # B on s0
    launch(fc, s1, (x, z, N), (P, P, INT))                   # C on s1
    _check(cuda.cuEventRecord(join, s1))                     # join ...
    _check(cuda.cuStreamWaitEvent(s0, join, 0))              # ... s0 waits for C
    launch(fd, s0, (y, z, d_out, N), (P, P, P, INT))         # D after B and C
    _check(cuda.cuMemcpyDtoHAsync(host_out, d_out, nbytes, s0))  # copy the result back
    graph = _check(cuda.cuStreamEndCapture(s0))

    nodes, count = _check(cuda.cuGraphGetNodes(graph, 16))
    nodes = nodes[:count]
    names = {}
    out.write(f"Captured graph: {count} nodes\n")
    for n in nodes:
        kind = _check(cuda.cuGraphNodeGetType(n))
        local = _check(cuda.cuGraphNodeGetLocalId(n))
        label = kind.name.replace("CU_GRAPH_NODE_TYPE_", "")
        if label == "KERNEL":
            label += " " + _kernel_name(cuda, n)
        names[int(n)] = f"node {local}"
        out.write(f"  node {local}: {label}\n")
    frm, to, _eds, nedges = _check(cuda.cuGraphGetEdges(graph, 16))
    out.write(f"Edges ({nedges}, dependency -> dependent):\n")
    for a, b in zip(frm[:nedges], to[:nedges]):
        out.write(f"  {names[int(a)]} -> {names[int(b)]}\n")

    import simcuda
    out.write("\nDOT (what cuGraphDebugDotPrint writes):\n")
    out.write(simcuda.current_driver().dot(int(graph)))

    exe = _check(cuda.cuGraphInstantiate(graph, 0))
    _check(cuda.cuGraphLaunch(exe, s0))
    _check(cuda.cuStreamSynchronize(s0))
    result = list(host_out)
    out.write(f"\nReplayed once: out = (2x) + (x + 1) with x = 0..{N - 1} -> {[round(v, 3) for v in result]}\n\n")

    for h in (exe,):
        _check(cuda.cuGraphExecDestroy(h))
    _check(cuda.cuGraphDestroy(graph))
    return result


def _kernel_name(cuda: Any, node: Any) -> str:
    """The kernel's name, from the simulator's node record (cuGraphKernelNodeGetParams is not simulated)."""
    import simcuda
    drv = simcuda.current_driver()
    with drv._lock:
        name: str = drv.handles.table[int(node)].params.name
        return name


def main(out: TextIO | None = None) -> int:
    """Run the demo on a fresh driver under :func:`simcuda.patch`; print to ``out`` (stdout). Returns 0."""
    import simcuda
    out = out or sys.stdout
    drv = simcuda.Driver()
    drv.kernels.update({"A": _kernel_a, "B": _kernel_b, "C": _kernel_c, "D": _kernel_d})
    out.write("simcuda demo: the CUDA Programming Guide's fork/join capture (A -> B, A -> C, B -> D, C -> D)\n\n")
    with simcuda.patch(driver=drv):
        result = fork_join_program(out)
    expected = [3.0 * i + 1.0 for i in range(N)]
    if result != expected:
        out.write(f"unexpected result {result}, expected {expected}\n")
        return 1
    out.write(EXPLANATION)
    return 0
