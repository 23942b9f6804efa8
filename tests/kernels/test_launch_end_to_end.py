"""Kernels with no Python twin through every launch path (issue 17 items 1 and 3, issue 18 item 3): cuLaunchKernelEx
with attributes, cuLaunchCooperativeKernel with a grid-wide sync, kernel nodes replayed in graphs (captured and
added, with exec parameter updates), module variables, the device heap, cudaGraphSetConditional from a kernel,
the stop poll, and the launch checks with the state afterwards.

Kernels are our own CUDA C compiled by NVIDIA's NVRTC through simcuda's nvrtc face (skipped without NVRTC), or
hand-written PTX where no compiler is needed."""
from __future__ import annotations

import ctypes
import threading

import pytest

import simcuda
from simcuda._core.errors import DriverError
from simcuda._core.modules import ptxrun
from simcuda.faces.bindings import driver as cuda
from simcuda.faces.bindings import nvrtc

np = pytest.importorskip("numpy")
from tests.kernels.test_real_programs import arch, check, drv, from_device, to_device  # noqa: E402, F401

#: every test runs with a fresh simulated driver, current, with a context (test_real_programs' ``drv``) but those
#: that build their own driver through the core
pytestmark = pytest.mark.usefixtures("drv")

P, I32, U32, U64 = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_ulonglong
R = cuda.CUresult
def _toolkit_include() -> str | None:
    """A CUDA toolkit's ``include`` folder holding ``cooperative_groups.h`` and libcu++ (``cccl``), which the
    grid.sync kernel needs: ``$CUDA_HOME``/``$CUDA_PATH``, else ``/usr/local/cuda*``; None when there is none."""
    import glob
    import os
    roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda",
             *sorted(glob.glob("/usr/local/cuda-*"), reverse=True)]
    for root in filter(None, roots):
        inc = os.path.join(root, "include")
        if os.path.isfile(os.path.join(inc, "cooperative_groups.h")) and os.path.isdir(os.path.join(inc, "cccl")):
            return inc
    return None

SRC = rb'''
extern "C" __global__ void __launch_bounds__(128) scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i];
}
__device__ int counter = 5;
__constant__ int factor = 3;
extern "C" __global__ void bump(int *out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) { out[0] = counter * factor; counter += 1; }
}
extern "C" __global__ void heap(unsigned long long *ptrs, int *vals) {
  int t = threadIdx.x;
  int *p = (int *)malloc(16);
  ptrs[t] = (unsigned long long)p;
  if (p) { p[0] = 100 + t; vals[t] = p[0]; free(p); }
}
extern "C" __global__ void hog(unsigned long long *ptrs) {
  ptrs[threadIdx.x] = (unsigned long long)malloc(1 << 20);
}
extern "C" __global__ void spin(volatile int *flag) {
  while (flag[0] == 0) { }
}
'''

CG_SRC = rb'''
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void gsum(int *data, int *total, int n) {
  cg::grid_group g = cg::this_grid();
  unsigned i = g.thread_rank();
  if (i < n) atomicAdd(total, data[i]);
  g.sync();
  if (i < n) data[i] = *total;
}
'''

COND_PTX = b""".version 8.0
.target sm_80
.address_size 64
.extern .func cudaGraphSetConditional(.param .b64 h, .param .b32 v);
.visible .entry setc(.param .u64 h, .param .u32 v)
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [h];
  ld.param.u32 %r1, [v];
  {
  .param .b64 p0;
  st.param.b64 [p0], %rd1;
  .param .b32 p1;
  st.param.b32 [p1], %r1;
  call.uni cudaGraphSetConditional, (p0, p1);
  }
  ret;
}
.visible .entry inc(.param .u64 p)
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  atom.global.add.u32 %r1, [%rd1], 1;
  ret;
}
"""


def _compile(src: bytes, *options: bytes) -> bytes:
    """``src`` compiled to PTX by NVIDIA's NVRTC through simcuda's face (skips without NVRTC)."""
    from simcuda.faces.bindings import _real_nvrtc
    if _real_nvrtc.library() is None:
        pytest.skip("NVIDIA's NVRTC is not available")
    prog = check(nvrtc.nvrtcCreateProgram(src, b"t.cu", 0, None, None))
    opts = [arch(), *options]
    res = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    size = check(nvrtc.nvrtcGetProgramLogSize(prog))
    log = b" " * size
    nvrtc.nvrtcGetProgramLog(prog, log)
    assert res[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS, log
    ptx = b" " * check(nvrtc.nvrtcGetPTXSize(prog))
    check(nvrtc.nvrtcGetPTX(prog, ptx))
    assert b"nothing was compiled" not in ptx, log
    return ptx


@pytest.fixture
def mod():  # type: ignore[no-untyped-def]
    """SRC compiled and loaded as a module of the current context."""
    return check(cuda.cuModuleLoadData(_compile(SRC)))


def _fn(m, name: str):  # type: ignore[no-untyped-def]
    return check(cuda.cuModuleGetFunction(m, name.encode()))


def _config(fn_grid, block, stream=0, shmem=0, attrs=()):  # type: ignore[no-untyped-def]
    """A CUlaunchConfig of ``fn_grid`` x ``block`` with the launch attributes ``attrs`` ((id, field, value))."""
    c = cuda.CUlaunchConfig()
    c.gridDimX, c.gridDimY, c.gridDimZ = fn_grid
    c.blockDimX, c.blockDimY, c.blockDimZ = block
    c.sharedMemBytes, c.hStream = shmem, stream
    objs = []
    for aid, field, value in attrs:
        a = cuda.CUlaunchAttribute()
        a.id = aid
        setattr(a.value, field, value)
        objs.append(a)
    c.attrs, c.numAttrs = objs, len(objs)
    return c


def test_launch_kernel_ex_with_attributes_computes_and_checks_the_bounds(mod):  # type: ignore[no-untyped-def]
    """cuLaunchKernelEx with a PRIORITY attribute scales the array; a block above the kernel's launch bounds (128)
    is INVALID_VALUE through Ex too and leaves the data as it was."""
    fn = _fn(mod, "scale")
    n = 1000
    x = np.arange(n, dtype=np.float32)
    dx = to_device(x)
    A = cuda.CUlaunchAttributeID
    cfg = _config(((n + 127) // 128, 1, 1), (128, 1, 1), attrs=[(A.CU_LAUNCH_ATTRIBUTE_PRIORITY, "priority", 0)])
    check(cuda.cuLaunchKernelEx(cfg, fn, ((dx, 2.0, n), (P, ctypes.c_float, I32)), 0))
    check(cuda.cuCtxSynchronize())
    assert np.array_equal(from_device(dx, x), 2 * x)
    big = _config((1, 1, 1), (256, 1, 1))
    assert cuda.cuLaunchKernelEx(big, fn, ((dx, 2.0, n), (P, ctypes.c_float, I32)), 0) == \
        (R.CUDA_ERROR_INVALID_VALUE,)
    assert ".maxntid 128,1,1" in simcuda.last_error().why
    check(cuda.cuCtxSynchronize())
    assert np.array_equal(from_device(dx, x), 2 * x)
    assert check(cuda.cuFuncGetAttribute(cuda.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn)) \
        == 128


def _cooperative_module():  # type: ignore[no-untyped-def]
    """CG_SRC compiled and loaded: its ``gsum`` function (skips without a toolkit's headers)."""
    inc = _toolkit_include()
    if inc is None:
        pytest.skip("no CUDA toolkit headers for cooperative_groups (set CUDA_HOME)")
    ptx = _compile(CG_SRC, f"-I{inc}".encode(), f"-I{inc}/cccl".encode())
    return _fn(check(cuda.cuModuleLoadData(ptx)), "gsum")


def test_cooperative_launch_with_grid_sync():  # type: ignore[no-untyped-def]
    """cuLaunchCooperativeKernel of a cooperative_groups grid.sync() kernel over 4 blocks: every element ends as the
    grid-wide total, which only a grid barrier gives; the same kernel through cuLaunchKernelEx with the COOPERATIVE
    attribute does the same; launched as an ordinary kernel its grid.sync() traps (719, sticky)."""
    fn = _cooperative_module()
    n = 4 * 64
    data = np.arange(n, dtype=np.int32)
    dd, dt = to_device(data), to_device(np.zeros(1, np.int32))
    args = ((dd, dt, n), (P, P, I32))
    check(cuda.cuLaunchCooperativeKernel(fn, 4, 1, 1, 64, 1, 1, 0, 0, args))
    check(cuda.cuCtxSynchronize())
    total = int(data.sum())
    assert (from_device(dd, data) == total).all()
    check(cuda.cuMemcpyHtoD(dd, data, data.nbytes))
    check(cuda.cuMemsetD32(dt, 0, 1))
    A = cuda.CUlaunchAttributeID
    cfg = _config((4, 1, 1), (64, 1, 1), attrs=[(A.CU_LAUNCH_ATTRIBUTE_COOPERATIVE, "cooperative", 1)])
    check(cuda.cuLaunchKernelEx(cfg, fn, args, 0))
    check(cuda.cuCtxSynchronize())
    assert (from_device(dd, data) == total).all()
    check(cuda.cuLaunchKernel(fn, 4, 1, 1, 64, 1, 1, 0, 0, args, 0))
    assert cuda.cuCtxSynchronize()[0] == R.CUDA_ERROR_LAUNCH_FAILED
    assert cuda.cuCtxSynchronize()[0] == R.CUDA_ERROR_LAUNCH_FAILED  # sticky


def test_cooperative_grid_too_large_is_720_and_runs_nothing():  # type: ignore[no-untyped-def]
    """A cooperative grid of more blocks than can be resident is 720 at launch; the context stays usable."""
    fn = _cooperative_module()
    dd, dt = to_device(np.zeros(4, np.int32)), to_device(np.zeros(1, np.int32))
    blocks = 1 << 20
    assert cuda.cuLaunchCooperativeKernel(fn, blocks, 1, 1, 64, 1, 1, 0, 0, ((dd, dt, 4), (P, P, I32))) == \
        (R.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,)
    check(cuda.cuCtxSynchronize())
    assert from_device(dt, np.zeros(1, np.int32))[0] == 0


def test_kernel_nodes_captured_and_added_replay_with_exec_updates(mod):  # type: ignore[no-untyped-def]
    """A captured launch and an explicitly added kernel node of the real kernel replay in a graph launch;
    cuGraphExecKernelNodeSetParams changes the added node's factor for the next replay; a new block above the
    launch bounds is INVALID_VALUE and keeps the old parameters."""
    fn = _fn(mod, "scale")
    n = 256
    x = np.ones(n, dtype=np.float32)
    dx = to_device(x)
    s = check(cuda.cuStreamCreate(0))
    check(cuda.cuStreamBeginCapture(s, cuda.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    check(cuda.cuLaunchKernel(fn, 2, 1, 1, 128, 1, 1, 0, s, ((dx, 2.0, n), (P, ctypes.c_float, I32)), 0))
    g = check(cuda.cuStreamEndCapture(s))
    (captured,), _count = check(cuda.cuGraphGetNodes(g, 1))
    p = cuda.CUDA_KERNEL_NODE_PARAMS()
    p.func, p.gridDimX, p.gridDimY, p.gridDimZ = fn, 2, 1, 1
    p.blockDimX, p.blockDimY, p.blockDimZ, p.sharedMemBytes = 128, 1, 1, 0
    p.kernelParams = ((dx, 3.0, n), (P, ctypes.c_float, I32))
    added = check(cuda.cuGraphAddKernelNode(g, [captured], 1, p))
    x_exec = check(cuda.cuGraphInstantiate(g, 0))
    check(cuda.cuGraphLaunch(x_exec, s))
    check(cuda.cuStreamSynchronize(s))
    assert (from_device(dx, x) == 6.0).all()
    p.kernelParams = ((dx, 5.0, n), (P, ctypes.c_float, I32))
    check(cuda.cuGraphExecKernelNodeSetParams(x_exec, added, p))
    check(cuda.cuGraphLaunch(x_exec, s))
    check(cuda.cuStreamSynchronize(s))
    assert (from_device(dx, x) == 60.0).all()  # x2 (captured), x5 (updated)
    p.blockDimX, p.gridDimX = 256, 1
    assert cuda.cuGraphExecKernelNodeSetParams(x_exec, added, p)[0] == R.CUDA_ERROR_INVALID_VALUE
    check(cuda.cuGraphLaunch(x_exec, s))
    check(cuda.cuStreamSynchronize(s))
    assert (from_device(dx, x) == 600.0).all()  # the old parameters still
    assert cuda.cuGraphAddKernelNode(g, [], 0, p)[0] == R.CUDA_ERROR_INVALID_VALUE


def test_module_variables_are_device_memory_the_kernel_reads_and_writes(mod):  # type: ignore[no-untyped-def]
    """``__device__ int counter = 5`` and ``__constant__ int factor = 3``: cuModuleGetGlobal gives their addresses
    with the initial values; the kernel reads both and increments counter, which a host copy then sees."""
    dptr, size = check(cuda.cuModuleGetGlobal(mod, b"counter"))
    assert size == 4
    assert from_device(dptr, np.zeros(1, np.int32))[0] == 5
    fptr, _ = check(cuda.cuModuleGetGlobal(mod, b"factor"))
    assert from_device(fptr, np.zeros(1, np.int32))[0] == 3
    out = to_device(np.zeros(1, np.int32))
    fn = _fn(mod, "bump")
    for expected in (15, 18):
        check(cuda.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, ((out,), (P,)), 0))
        check(cuda.cuCtxSynchronize())
        assert from_device(out, np.zeros(1, np.int32))[0] == expected
    assert from_device(dptr, np.zeros(1, np.int32))[0] == 7
    check(cuda.cuMemcpyHtoD(dptr, np.array([10], np.int32), 4))  # the host writes it; the kernel reads that
    check(cuda.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, ((out,), (P,)), 0))
    check(cuda.cuCtxSynchronize())
    assert from_device(out, np.zeros(1, np.int32))[0] == 30


def test_library_variables_in_the_current_context():  # type: ignore[no-untyped-def]
    """A library's kernel reads and writes the library's variable of the current context (cuLibraryGetGlobal)."""
    lib = check(cuda.cuLibraryLoadData(_compile(SRC), [], [], 0, [], [], 0))
    k = check(cuda.cuLibraryGetKernel(lib, b"bump"))
    fn = check(cuda.cuKernelGetFunction(k))
    out = to_device(np.zeros(1, np.int32))
    check(cuda.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ((out,), (P,)), 0))
    check(cuda.cuCtxSynchronize())
    assert from_device(out, np.zeros(1, np.int32))[0] == 15
    dptr, _ = check(cuda.cuLibraryGetGlobal(lib, b"counter"))
    assert from_device(dptr, np.zeros(1, np.int32))[0] == 6


def test_device_malloc_uses_the_context_heap(mod):  # type: ignore[no-untyped-def]
    """Device malloc/free: every thread gets a distinct 16-byte-aligned block inside the heap, writes and reads it;
    cuCtxGetLimit reports the heap size, which cannot change once the heap is in use (INVALID_VALUE, unchanged)."""
    L = cuda.CUlimit.CU_LIMIT_MALLOC_HEAP_SIZE
    assert check(cuda.cuCtxGetLimit(L)) == 8 << 20
    check(cuda.cuCtxSetLimit(L, 1 << 20))
    assert check(cuda.cuCtxGetLimit(L)) == 1 << 20
    ptrs, vals = to_device(np.zeros(32, np.uint64)), to_device(np.zeros(32, np.int32))
    check(cuda.cuLaunchKernel(_fn(mod, "heap"), 1, 1, 1, 32, 1, 1, 0, 0, ((ptrs, vals), (P, P)), 0))
    check(cuda.cuCtxSynchronize())
    got = from_device(ptrs, np.zeros(32, np.uint64))
    assert (got != 0).all() and (got % 16 == 0).all() and len(set(got.tolist())) == 32
    assert from_device(vals, np.zeros(32, np.int32)).tolist() == [100 + t for t in range(32)]
    assert cuda.cuCtxSetLimit(L, 2 << 20) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert check(cuda.cuCtxGetLimit(L)) == 1 << 20


def test_device_malloc_past_the_heap_returns_null(mod):  # type: ignore[no-untyped-def]
    """With a 2 MiB heap, 1 MiB blocks: at most two threads get one, the others NULL (device malloc's answer)."""
    check(cuda.cuCtxSetLimit(cuda.CUlimit.CU_LIMIT_MALLOC_HEAP_SIZE, 2 << 20))
    ptrs = to_device(np.zeros(8, np.uint64))
    check(cuda.cuLaunchKernel(_fn(mod, "hog"), 1, 1, 1, 8, 1, 1, 0, 0, ((ptrs,), (P,)), 0))
    check(cuda.cuCtxSynchronize())
    got = from_device(ptrs, np.zeros(8, np.uint64))
    assert (got != 0).sum() == 2


def test_limits_refuse_what_is_not_a_limit():  # type: ignore[no-untyped-def]
    """cuCtxSetLimit/GetLimit: a limit not simulated is 215, an out-of-range value 1, both leave the value."""
    C = cuda.CUlimit
    assert cuda.cuCtxGetLimit(C.CU_LIMIT_SHMEM_SIZE)[0] == R.CUDA_ERROR_UNSUPPORTED_LIMIT
    assert cuda.cuCtxSetLimit(C.CU_LIMIT_MAX_L2_FETCH_GRANULARITY, 256) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert check(cuda.cuCtxGetLimit(C.CU_LIMIT_MAX_L2_FETCH_GRANULARITY)) == 32
    check(cuda.cuCtxSetLimit(C.CU_LIMIT_STACK_SIZE, 4096))
    assert check(cuda.cuCtxGetLimit(C.CU_LIMIT_STACK_SIZE)) == 4096


def test_a_kernel_sets_a_conditional_in_a_graph_replay():
    """A PTX kernel calling cudaGraphSetConditional picks an IF body in a graph launch (the body's kernel ran once
    when it set 1, not at all when it set 0); launched outside a graph it stops with 719 (sticky)."""
    d = simcuda.Driver()
    d.init(0)
    d.ctx_create(0, 0)
    m = d.module_load_data(COND_PTX)
    setc, inc = d.module_get_function(m, "setc"), d.module_get_function(m, "inc")
    counter = d.mem_alloc(4)
    view = np.frombuffer(d.memory.kernel_view(counter, 4), np.uint32)
    view[0] = 0
    for value, expected in ((1, 1), (0, 1)):
        g = d.graph_create(0)
        h = d.graph_conditional_handle_create(g, 0, 0, 1)
        first = d.graph_add_kernel_node(g, [], setc, (1, 1, 1), (1, 1, 1), 0, [h, value])
        _n, (body,) = d.graph_add_conditional_node(g, [first], h, 0, 1, 0)
        d.graph_add_kernel_node(body, [], inc, (1, 1, 1), (1, 1, 1), 0, [counter])
        x = d.graph_instantiate(g, 0)
        d.graph_launch(x, 0)
        d.ctx_synchronize()
        assert int(view[0]) == expected
    d.launch_kernel(setc, (1, 1, 1), (1, 1, 1), 0, 0, [h, 1])
    with pytest.raises(DriverError) as e:
        d.ctx_synchronize()
    assert int(e.value.code) == 719 and "cudaGraphSetConditional" in e.value.why
    d.close()


def test_a_stop_request_ends_a_spinning_kernel_cleanly(mod):  # type: ignore[no-untyped-def]
    """A kernel spinning on a flag nobody sets ends when the host asks every launch to stop (request_stop, from
    another thread): 719 LAUNCH_FAILED, sticky, its why saying it was interrupted; nothing hangs."""
    flag = to_device(np.zeros(1, np.int32))
    timer = threading.Timer(0.5, ptxrun.request_stop)
    timer.start()
    try:
        check(cuda.cuLaunchKernel(_fn(mod, "spin"), 1, 1, 1, 32, 1, 1, 0, 0, ((flag,), (P,)), 0))
        res = cuda.cuCtxSynchronize()
    finally:
        timer.join()
        ptxrun.clear_stop()
    assert res[0] == R.CUDA_ERROR_LAUNCH_FAILED
    assert "interrupted" in simcuda.last_error().why
    assert cuda.cuCtxSynchronize()[0] == R.CUDA_ERROR_LAUNCH_FAILED


def test_ctrl_c_during_a_spinning_kernel_leaves_the_driver_usable():
    """A KeyboardInterrupt (Ctrl-C, here from a timer) while a kernel spins propagates out of the launch; the
    driver's lock is free, the context has no sticky error and a later launch of another kernel runs."""
    import _thread
    d = simcuda.Driver()
    d.init(0)
    d.ctx_create(0, 0)
    m = d.module_load_data(COND_PTX + b"""
.visible .entry spin(.param .u64 p)
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  .reg .pred %q;
  ld.param.u64 %rd1, [p];
L:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.eq.u32 %q, %r1, 0;
  @%q bra L;
  ret;
}
""")
    flag = d.mem_alloc(4)
    np.frombuffer(d.memory.kernel_view(flag, 4), np.uint32)[0] = 0
    timer = threading.Timer(0.5, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            d.launch_kernel(d.module_get_function(m, "spin"), (1, 1, 1), (32, 1, 1), 0, 0, [flag])
            d.ctx_synchronize()
    finally:
        timer.join()
    assert d._lock.acquire(blocking=False)
    d._lock.release()
    counter = d.mem_alloc(4)
    np.frombuffer(d.memory.kernel_view(counter, 4), np.uint32)[0] = 0
    d.launch_kernel(d.module_get_function(m, "inc"), (1, 1, 1), (1, 1, 1), 0, 0, [counter])
    d.ctx_synchronize()
    assert int(np.frombuffer(d.memory.kernel_view(counter, 4), np.uint32)[0]) == 1
    d.close()


def test_the_device_kind_ptxrun_allocates_is_the_memory_spaces():
    """ptxrun's copy of the device allocation kind (kept to stay out of the import cycle) is memory's."""
    from simcuda._core.memory import memory_model as memory
    assert ptxrun.KIND_DEVICE == memory.KIND_DEVICE
