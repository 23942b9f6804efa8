"""Bad input from an adversarial review: every call gives the real driver's code (or the exception the real
wrapper raises before reaching the driver), records a ``why``, and leaves the state as it was.

Where the real wrapper raises, the test calls the installed cuda-bindings 13.5 wheel with the same
arguments and compares the exception class and text (skipped when the wheel is not installed; its
calls that pass argument conversion fail with ``DynamicLibNotFoundError``, which counts as "reached
the driver").
"""
from __future__ import annotations

import ctypes

import pytest

import simcuda
from simcuda.faces.bindings import driver as cu

R = cu.CUresult
OK = (R.CUDA_SUCCESS,)
INVALID = R.CUDA_ERROR_INVALID_VALUE
PTX = (b".version 7.0\n.target sm_80\n.address_size 64\n"
       b".visible .entry k(.param .u64 a)\n{ ret; }\n")
GARBAGE = 0xDEADBEEF000  # a user-space address that no process maps here


def real_module(name: str = "cuda.bindings.driver"):
    """The real cuda-bindings 13.5 module, or skip."""
    real = pytest.importorskip(name)
    import cuda.bindings
    if not cuda.bindings.__version__.startswith("13.5"):
        pytest.skip("needs cuda-bindings 13.5.x")
    return real


def raised(fn, *args):
    """``(exception class name, text)`` of ``fn(*args)``; ``('driver', '')`` when it reached the driver."""
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001  (any exception is the observation)
        if type(e).__name__ == "DynamicLibNotFoundError":
            return ("driver", "")
        return (type(e).__name__, str(e))
    return ("driver", "")


def same_as_real(sim_fn, real_name: str, *args, expect=None, real_args=None, module: str = "cuda.bindings.driver"):
    """Assert the simulated call raises ``expect`` (class name, text), then, when the wheel is installed,
    exactly what the real wrapper raises for the same arguments."""
    got = raised(sim_fn, *args)
    if expect is not None:
        assert got == expect
    real = real_module(module)
    want = raised(getattr(real, real_name), *(args if real_args is None else real_args))
    assert got == want, (got, want)
    return got


class Env:
    """The setup of the review: a context, a stream, 64 bytes of device memory, a module with ``k``."""


@pytest.fixture
def env(drv):
    """cuInit, a context, stream ``s``, allocation ``d`` (64 bytes), module ``mod`` with kernel ``k(u64)``."""
    e = Env()
    e.drv = drv
    assert cu.cuInit(0) == OK
    e.ctx = cu.cuCtxCreate(None, 0, 0)[1]
    e.s = cu.cuStreamCreate(0)[1]
    e.d = cu.cuMemAlloc(64)[1]
    e.mod = cu.cuModuleLoadData(PTX)[1]
    e.f = cu.cuModuleGetFunction(e.mod, b"k")[1]
    return e


def device_bytes(e, n=16):
    out = bytearray(n)
    assert cu.cuMemcpyDtoH(out, e.d, n) == OK
    return bytes(out)


# =========================================================================== 1. host addresses
@pytest.mark.parametrize("call, args", [
    ("cuMemcpyHtoD", lambda e: (e.d, -1, 16)),
    ("cuMemcpyHtoDAsync", lambda e: (e.d, -1, 16, e.s)),
    ("cuMemcpyDtoH", lambda e: (-1, e.d, 16)),
    ("cuMemcpyDtoHAsync", lambda e: (-1, e.d, 16, e.s)),
    ("cuModuleLoadData", lambda e: (-1,)),
    ("cuModuleLoadDataEx", lambda e: (-1, 0, None, None)),
    ("cuModuleLoadFatBinary", lambda e: (-1,)),
    ("cuLibraryLoadData", lambda e: (-1, None, None, 0, None, None, 0)),
    ("cuMemcpyHtoD", lambda e: (e.d, 2 ** 64, 16)),
    ("cuMemHostRegister", lambda e: (-1, 16, 0)),
])
def test_negative_host_address_raises_the_wrappers_type_error(env, call, args):
    """A negative (or wider than 64 bits) int where a ``void*`` goes raises the real helper's TypeError."""
    before = len(env.drv.error_log)
    try:
        same_as_real(getattr(cu, call), call, *args(env), expect=(
            "TypeError", "Provided argument is of type <class 'int'> but expected Type None, int or object with "
                         "Buffer Protocol"))
    finally:
        assert len(env.drv.error_log) == before and device_bytes(env) == bytes(16)


@pytest.mark.parametrize("kp, text", [(-1, "can't convert negative value to unsigned PY_LONG_LONG"),
                                      (2 ** 64, "Python int too large to convert to C unsigned long")])
def test_kernel_params_out_of_range_raise_overflow_error(env, kp, text):
    """``kernelParams`` as an int outside [0, 2**64) raises the real wrapper's OverflowError, launching nothing."""
    n = len(env.drv.launch_log)
    got = raised(cu.cuLaunchKernel, env.f, 1, 1, 1, 1, 1, 1, 0, env.s, kp, 0)
    assert got == ("OverflowError", text)
    assert len(env.drv.launch_log) == n
    real = real_module()
    assert raised(real.cuLaunchKernel, real.CUfunction(0), 1, 1, 1, 1, 1, 1, 0, real.CUstream(0), kp, 0) == got


@pytest.mark.parametrize("call, args", [
    ("cuMemcpyHtoD", lambda e: (e.d, GARBAGE, 16)),
    ("cuMemcpyHtoDAsync", lambda e: (e.d, GARBAGE, 16, e.s)),
    ("cuMemcpyDtoH", lambda e: (GARBAGE, e.d, 16)),
    ("cuMemcpyDtoHAsync", lambda e: (GARBAGE, e.d, 16, e.s)),
    ("cuMemcpyHtoD", lambda e: (e.d, 1.5, 16)),  # the real helper truncates 1.5 to address 1
])
def test_unmapped_host_address_of_a_copy_is_invalid_value(env, call, args):
    """A copy from or to an unmapped host address fails with INVALID_VALUE and a why; device memory is unchanged."""
    assert getattr(cu, call)(*args(env)) == (INVALID,)
    assert "memory of this process" in simcuda.last_error().why
    assert env.drv.error_log[-1].call == call
    assert device_bytes(env) == bytes(16)


def test_read_only_host_memory_is_no_copy_destination(env):
    """A device-to-host copy into mapped but read-only memory (a text page) fails with INVALID_VALUE."""
    text = ctypes.cast(ctypes.pythonapi.Py_Initialize, ctypes.c_void_p).value
    before = ctypes.string_at(text, 16)
    assert cu.cuMemcpyDtoH(text, env.d, 16) == (INVALID,)
    assert "without that permission" in simcuda.last_error().why
    assert ctypes.string_at(text, 16) == before


def test_host_range_past_mapped_memory_is_invalid_value(env):
    """A copy whose host range runs into an inaccessible page fails with INVALID_VALUE naming the mapped part."""
    import mmap
    if not simcuda._core.memory.hostmem.MAPS.covers(id(env), 1, "r"):
        pytest.skip("no /proc/self/maps on this platform: addresses are trusted")
    m = mmap.mmap(-1, 2 * mmap.PAGESIZE)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    assert libc.mprotect(addr + mmap.PAGESIZE, mmap.PAGESIZE, 0) == 0  # PROT_NONE
    try:
        assert cu.cuMemcpyHtoD(env.d, addr + mmap.PAGESIZE - 8, 16) == (INVALID,)
        assert "runs past the end of readable memory (8 bytes" in simcuda.last_error().why
        assert device_bytes(env) == bytes(16)
        assert cu.cuMemcpyHtoD(env.d, addr, 16) == OK  # the readable page itself is fine
    finally:
        libc.mprotect(addr + mmap.PAGESIZE, mmap.PAGESIZE, 3)  # PROT_READ | PROT_WRITE


def test_pinned_host_memory_still_copies(env):
    """Memory from cuMemAllocHost and ordinary ctypes buffers pass the check and copy as before."""
    h = cu.cuMemAllocHost(16)[1]
    ctypes.memmove(h, b"0123456789abcdef", 16)
    assert cu.cuMemcpyHtoD(env.d, h, 16) == OK
    assert device_bytes(env) == b"0123456789abcdef"
    buf = ctypes.create_string_buffer(16)
    assert cu.cuMemcpyDtoH(ctypes.addressof(buf), env.d, 16) == OK
    assert buf.raw == b"0123456789abcdef"


def test_module_image_at_unmapped_address_is_invalid_value(env):
    """cuModuleLoadData / cuLibraryLoadData at an unmapped address fail with INVALID_VALUE, loading nothing."""
    n = len(env.drv.handles.table)
    assert cu.cuModuleLoadData(0x1234) == (INVALID, None)
    assert "cuModuleLoadData image" in simcuda.last_error().why
    assert cu.cuLibraryLoadData(GARBAGE, None, None, 0, None, None, 0) == (INVALID, None)
    assert cu.cuModuleLoadDataEx(GARBAGE, 0, None, None) == (INVALID, None)
    assert len(env.drv.handles.table) == n


def test_module_image_at_a_real_address_still_loads(env):
    """The address of NUL-terminated PTX text still loads (the text is read only where it is readable)."""
    buf = ctypes.create_string_buffer(PTX)
    mod = cu.cuModuleLoadData(ctypes.addressof(buf))[1]
    assert cu.cuModuleGetFunction(mod, b"k")[0] == R.CUDA_SUCCESS


def test_kernel_params_at_unmapped_address_is_invalid_value(env):
    """``kernelParams=12345`` (a garbage ``void**``) fails with INVALID_VALUE and launches nothing."""
    n = len(env.drv.launch_log)
    assert cu.cuLaunchKernel(env.f, 1, 1, 1, 1, 1, 1, 0, env.s, 12345, 0) == (INVALID,)
    assert "kernelParams of k" in simcuda.last_error().why
    assert env.drv.error_log[-1].call == "cuLaunchKernel"
    assert len(env.drv.launch_log) == n


def test_kernel_param_pointing_at_unmapped_address_is_invalid_value(env):
    """A readable ``void**`` array whose entry points at unmapped memory fails with INVALID_VALUE."""
    arr = (ctypes.c_void_p * 1)(GARBAGE)
    n = len(env.drv.launch_log)
    assert cu.cuLaunchKernel(env.f, 1, 1, 1, 1, 1, 1, 0, env.s, ctypes.addressof(arr), 0) == (INVALID,)
    assert "kernelParams[0]" in simcuda.last_error().why
    assert len(env.drv.launch_log) == n


@pytest.mark.parametrize("addr", [0x1234, "data"])
def test_host_function_must_be_executable(env, addr):
    """A host function address outside executable memory fails with INVALID_VALUE, enqueueing nothing."""
    buf = ctypes.create_string_buffer(16)
    fn = ctypes.addressof(buf) if addr == "data" else addr
    n = len(env.drv.launch_log)
    assert cu.cuLaunchHostFunc(env.s, fn, None) == (INVALID,)
    assert "not executable memory" in simcuda.last_error().why
    assert cu.cuStreamAddCallback(env.s, fn, None, 0) == (INVALID,)
    g = cu.cuGraphCreate(0)[1]
    p = cu.CUDA_HOST_NODE_PARAMS()
    p.fn = fn
    assert cu.cuGraphAddHostNode(g, None, 0, p) == (INVALID, None)
    assert cu.cuGraphGetNodes(g)[2] == 0 and len(env.drv.launch_log) == n


def test_null_stream_callback_is_invalid_value(env):
    """cuStreamAddCallback with a NULL callback fails with INVALID_VALUE instead of calling address 0."""
    assert cu.cuStreamAddCallback(env.s, 0, None, 0) == (INVALID,)
    assert "NULL" in simcuda.last_error().why


def test_ctypes_host_function_still_runs(env):
    """A CFUNCTYPE thunk's address is executable and still runs."""
    calls = []
    thunk = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda p: calls.append(p))
    assert cu.cuLaunchHostFunc(env.s, ctypes.cast(thunk, ctypes.c_void_p).value, None) == OK
    assert calls == [None]


# =========================================================================== 2. internal exceptions
def test_remove_dependencies_with_nodes_of_another_graph_is_invalid_value(env):
    """Removing an edge of graph A through graph B is INVALID_VALUE and leaves A's edge in place."""
    g, g2 = cu.cuGraphCreate(0)[1], cu.cuGraphCreate(0)[1]
    a = cu.cuGraphAddEmptyNode(g, None, 0)[1]
    b = cu.cuGraphAddEmptyNode(g, [a], 1)[1]
    assert cu.cuGraphRemoveDependencies(g2, [a], [b], None, 1) == (INVALID,)
    assert "must belong to graph" in simcuda.last_error().why
    assert cu.cuGraphGetEdges(g, 1)[4] == 1 and cu.cuGraphGetEdges(g2)[4] == 0


@pytest.mark.parametrize("bad", ["abc", 5, "stream"])
@pytest.mark.parametrize("call, args, arg, cls", [
    ("cuArrayCreate", lambda e, x: (x,), "pAllocateArray", "CUDA_ARRAY_DESCRIPTOR"),
    ("cuGraphAddHostNode", lambda e, x: (e.g, None, 0, x), "nodeParams", "CUDA_HOST_NODE_PARAMS"),
    ("cuGraphAddMemsetNode", lambda e, x: (e.g, None, 0, x, None), "memsetParams", "CUDA_MEMSET_NODE_PARAMS"),
    ("cuGraphInstantiateWithParams", lambda e, x: (e.g, x), "instantiateParams", "CUDA_GRAPH_INSTANTIATE_PARAMS"),
    ("cuGraphAddKernelNode", lambda e, x: (e.g, None, 0, x), "nodeParams", "CUDA_KERNEL_NODE_PARAMS"),
    ("cuMemcpy2D", lambda e, x: (x,), "pCopy", "CUDA_MEMCPY2D"),
    ("cuLaunchKernelEx", lambda e, x: (x, e.f, None, 0), "config", "CUlaunchConfig"),
])
def test_struct_argument_of_the_wrong_type_raises_the_wrappers_type_error(env, call, args, arg, cls, bad):
    """A struct argument of another type raises ``TypeError: Argument 'X' has incorrect type`` and changes nothing."""
    env.g = cu.cuGraphCreate(0)[1]
    x = env.s if bad == "stream" else bad
    got_name = "cuda.bindings.driver.CUstream" if bad == "stream" else type(bad).__name__
    n = len(env.drv.handles.table)
    try:
        expect = ("TypeError", f"Argument '{arg}' has incorrect type (expected cuda.bindings.driver.{cls}, got "
                               f"{got_name})")
        got = raised(getattr(cu, call), *args(env, x))
        assert got[0] == "TypeError"
        assert got[1].replace("simcuda.faces.bindings.driver", "cuda.bindings.driver") == expect[1]
        real = real_module()
        rx = real.CUstream(0) if bad == "stream" else bad
        rargs = [real.CUgraph(0) if a is env.g else real.CUfunction(0) if a is env.f else rx if a is x else a
                 for a in args(env, x)]
        assert raised(getattr(real, call), *rargs) == expect
    finally:
        assert len(env.drv.handles.table) == n and cu.cuGraphGetNodes(env.g)[2] == 0


def test_array_descriptor_fields_are_typed(env):
    """CUDA_ARRAY_DESCRIPTOR fields convert like the real struct's (OverflowError, TypeError at assignment)."""
    a = cu.CUDA_ARRAY_DESCRIPTOR()
    with pytest.raises(OverflowError, match="can't convert negative value to size_t"):
        a.Width = -1
    with pytest.raises(TypeError, match="an integer is required"):
        a.Width = "abc"
    a.Width, a.NumChannels, a.Format = 8, 1, cu.CUarray_format.CU_AD_FORMAT_UNSIGNED_INT8
    assert cu.cuArrayCreate(a)[0] == R.CUDA_SUCCESS


@pytest.mark.parametrize("size", [2 ** 44, 2 ** 63])
@pytest.mark.parametrize("call", ["cuMemAllocHost", "cuMemHostAlloc", "cudaMallocHost"])
def test_huge_host_allocation_is_out_of_memory(env, size, call):
    """A host allocation beyond physical memory returns OUT_OF_MEMORY (never MemoryError/OverflowError)."""
    from simcuda.faces.bindings import runtime as rt
    n = len(env.drv.memory.host)
    if call == "cudaMallocHost":
        assert rt.cudaMallocHost(size) == (rt.cudaError_t.cudaErrorMemoryAllocation, None)
    else:
        args = (size,) if call == "cuMemAllocHost" else (size, 0)
        assert getattr(cu, call)(*args) == (R.CUDA_ERROR_OUT_OF_MEMORY, None)
    assert int(simcuda.last_error().code) == 2 and "physical memory" in simcuda.last_error().why
    assert len(env.drv.memory.host) == n


def test_host_allocation_size_2_64_raises_like_the_wrapper(env):
    """cuMemAllocHost(2**64) raises the wrapper's OverflowError (size_t conversion)."""
    same_as_real(cu.cuMemAllocHost, "cuMemAllocHost", 2 ** 64,
                 expect=("OverflowError", "Python int too large to convert to C unsigned long"))


def test_huge_dependency_counts_are_invalid_value(env):
    """numDependencies=2**40 past the lists gives INVALID_VALUE at once (spec 3.6), changing nothing."""
    g = cu.cuGraphCreate(0)[1]
    a = cu.cuGraphAddEmptyNode(g, None, 0)[1]
    b = cu.cuGraphAddEmptyNode(g, None, 0)[1]
    assert cu.cuGraphAddDependencies(g, [a], [b], None, 2 ** 40) == (INVALID,)
    assert cu.cuGraphGetEdges(g)[4] == 0
    assert cu.cuGraphAddDependencies(g, [a], [b], None, 1) == OK
    assert cu.cuGraphRemoveDependencies(g, [a], [b], None, 2 ** 40) == (INVALID,)
    assert cu.cuGraphGetEdges(g)[4] == 1
    assert cu.cuStreamBeginCapture(env.s, 0) == OK
    cg = cu.cuStreamGetCaptureInfo(env.s)[3]
    n = cu.cuGraphAddEmptyNode(cg, None, 0)[1]
    assert cu.cuStreamUpdateCaptureDependencies(env.s, [n], None, 2 ** 40, 1) == (INVALID,)
    assert "spec 3.6 row 5" in simcuda.last_error().why
    assert cu.cuStreamGetCaptureInfo(env.s)[1] == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    assert cu.cuStreamGetCaptureInfo(env.s)[6] == 0


def test_device_name_length_beyond_int_raises_like_the_wrapper(env):
    """cuDeviceGetName(2**40, dev) raises the wrapper's OverflowError instead of building a huge buffer."""
    same_as_real(cu.cuDeviceGetName, "cuDeviceGetName", 2 ** 40, 0,
                 expect=("OverflowError", "value too large to convert to int"))


@pytest.mark.parametrize("code, name, text", [(99999, b"unrecognized error code", b"unrecognized error code"),
                                              (-5, b"unrecognized error code", b"unrecognized error code"),
                                              (1, b"cudaErrorInvalidValue", b"invalid argument")])
def test_runtime_error_strings_of_unknown_codes(code, name, text):
    """cudaGetErrorName/String of a value that is no cudaError_t return ``b'unrecognized error code'``, like the
    real."""
    from simcuda.faces.bindings import runtime as rt
    assert rt.cudaGetErrorName(code) == (rt.cudaError_t.cudaSuccess, name)
    assert rt.cudaGetErrorString(code) == (rt.cudaError_t.cudaSuccess, text)
    real = real_module("cuda.bindings.runtime")
    assert real.cudaGetErrorName(code)[1] == name and real.cudaGetErrorString(code)[1] == text


@pytest.mark.parametrize("arg", ["abc", None, 2 ** 32, 2 ** 63])
def test_runtime_error_string_argument_conversion(arg):
    """cudaGetErrorString converts its argument as the real enum conversion does (ValueError, TypeError,
    OverflowError)."""
    from simcuda.faces.bindings import runtime as rt
    for fn in ("cudaGetErrorName", "cudaGetErrorString"):
        got = raised(getattr(rt, fn), arg)
        assert got[0] in ("ValueError", "TypeError", "OverflowError")
        same_as_real(getattr(rt, fn), fn, arg, module="cuda.bindings.runtime")


# =========================================================================== 3. hangs
@pytest.mark.parametrize("call", ["cuGraphGetNodes", "cuGraphGetRootNodes", "cuGraphGetEdges",
                                  "cuGraphNodeGetDependencies", "cuGraphNodeGetDependentNodes"])
def test_absurd_output_counts_raise_memory_error_at_once(env, call):
    """A count of 2**40 raises the wrapper's MemoryError at once (its calloc fails), before the driver is called."""
    import time
    g = cu.cuGraphCreate(0)[1]
    node = cu.cuGraphAddEmptyNode(g, None, 0)[1]
    arg = node if "Node" in call[7:11] else g
    n = len(env.drv.error_log)
    t0 = time.perf_counter()
    got = raised(getattr(cu, call), arg, 2 ** 40)
    assert time.perf_counter() - t0 < 1.0
    assert got == ("MemoryError", "Failed to allocate length x size memory: 1099511627776x8")
    assert len(env.drv.error_log) == n and cu.cuGraphGetNodes(g)[2] == 1
    real = real_module()
    rarg = real.CUgraphNode(0) if arg is node else real.CUgraph(0)
    assert raised(getattr(real, call), rarg, 2 ** 40) == got


def test_padding_is_cheap_and_keeps_the_count(env):
    """A count above the real number pads with NULL handles and zero edge data and returns the real count."""
    g = cu.cuGraphCreate(0)[1]
    a = cu.cuGraphAddEmptyNode(g, None, 0)[1]
    cu.cuGraphAddEmptyNode(g, [a], 1)
    res, nodes, count = cu.cuGraphGetNodes(g, 100_000)
    assert res == R.CUDA_SUCCESS and count == 2 and len(nodes) == 100_000 and int(nodes[-1]) == 0
    res, _frm, to, eds, count = cu.cuGraphGetEdges(g, 5)
    assert count == 1 and len(eds) == 5 and eds[1] is not eds[2] and int(to[4]) == 0


@pytest.mark.parametrize("call", ["cudaGraphGetNodes", "cudaGraphGetEdges"])
def test_runtime_absurd_output_counts_raise_memory_error(env, call):
    """The runtime face's graph queries raise the same MemoryError at once."""
    from simcuda.faces.bindings import runtime as rt
    g = rt.cudaGraphCreate(0)[1]
    assert raised(getattr(rt, call), g, 2 ** 40) == ("MemoryError",
                                                     "Failed to allocate length x size memory: 1099511627776x8")


# =========================================================================== 4. refusals the real driver makes
def launch(e, grid=(1, 1, 1), block=(1, 1, 1), shmem=0, s=None):
    return cu.cuLaunchKernel(e.f, *grid, *block, shmem, e.s if s is None else s, None, 0)


def test_grid_dimension_of_2_32_raises_overflow_error(env):
    """A grid dimension of 2**32 raises the wrapper's OverflowError and launches nothing."""
    n = len(env.drv.launch_log)
    assert raised(launch, env, (2 ** 32, 1, 1)) == ("OverflowError", "value too large to convert to unsigned int")
    assert len(env.drv.launch_log) == n
    real = real_module()
    assert raised(real.cuLaunchKernel, real.CUfunction(0), 2 ** 32, 1, 1, 1, 1, 1, 0, real.CUstream(0), None, 0) == \
        ("OverflowError", "value too large to convert to unsigned int")


def test_repeated_dimensions_still_convert_shared_memory_and_odd_types(env):
    """The face reuses the last launch's converted int dimensions: shared memory is still converted
    (OverflowError for a negative one), and dimensions of other types (bools, ``ctypes`` ints) are
    converted or refused as on the first launch, each time."""
    assert launch(env, (2, 1, 1), (4, 1, 1)) == OK
    assert launch(env, (2, 1, 1), (4, 1, 1)) == OK  # the repeated dimensions
    assert raised(launch, env, (2, 1, 1), (4, 1, 1), -1) == ("OverflowError",
                                                              "can't convert negative value to unsigned int")
    assert raised(launch, env, (2, 1, 1), (4, 1, 1), 2 ** 32) == ("OverflowError",
                                                                   "value too large to convert to unsigned int")
    for _ in range(2):
        assert launch(env, (True, 1, 1), (4, 1, 1)) == OK
        assert raised(launch, env, (ctypes.c_uint(2), 1, 1), (4, 1, 1))[0] == "TypeError"


@pytest.mark.parametrize("grid, block, shmem, text", [
    ((2 ** 31, 1, 1), (1, 1, 1), 0, "MAX_GRID_DIM_X"),
    ((1, 65536, 1), (1, 1, 1), 0, "MAX_GRID_DIM_Y"),
    ((1, 1, 65536), (1, 1, 1), 0, "MAX_GRID_DIM_Z"),
    ((1, 1, 1), (1025, 1, 1), 0, "MAX_BLOCK_DIM_X"),
    ((1, 1, 1), (1, 1, 65), 0, "MAX_BLOCK_DIM_Z"),
    ((1, 1, 1), (32, 32, 2), 0, "MAX_THREADS_PER_BLOCK"),
    ((1, 1, 1), (1, 1, 1), 49153, "MAX_DYNAMIC_SHARED_SIZE_BYTES"),
])
def test_launch_beyond_the_device_limits_is_invalid_value(env, grid, block, shmem, text):
    """Launches beyond the device attributes' limits are INVALID_VALUE, recorded, and run nothing."""
    n = len(env.drv.launch_log)
    assert launch(env, grid, block, shmem) == (INVALID,)
    assert text in simcuda.last_error().why
    assert len(env.drv.launch_log) == n
    g = cu.cuGraphCreate(0)[1]
    p = cu.CUDA_KERNEL_NODE_PARAMS()
    p.func = env.f
    p.gridDimX, p.gridDimY, p.gridDimZ = grid
    p.blockDimX, p.blockDimY, p.blockDimZ = block
    p.sharedMemBytes = shmem
    assert cu.cuGraphAddKernelNode(g, None, 0, p) == (INVALID, None)
    assert cu.cuGraphGetNodes(g)[2] == 0


def test_launch_limits_follow_the_device_spec(drv):
    """The limits are read from the device attributes (DeviceSpec.attributes overrides them)."""
    d = simcuda.Driver(devices=[simcuda.DeviceSpec(attributes={6: 100})])  # MAX_GRID_DIM_Y
    old = simcuda.use(d)
    try:
        cu.cuInit(0)
        cu.cuCtxCreate(None, 0, 0)
        f = cu.cuModuleGetFunction(cu.cuModuleLoadData(PTX)[1], b"k")[1]
        assert cu.cuLaunchKernel(f, 1, 100, 1, 1, 1, 1, 0, 0, None, 0) == OK
        assert cu.cuLaunchKernel(f, 1, 101, 1, 1, 1, 1, 0, 0, None, 0) == (INVALID,)
    finally:
        simcuda.use(old)


def test_dynamic_shared_memory_opt_in(env):
    """cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) raises the launch limit up to the opt-in maximum."""
    A = cu.CUfunction_attribute
    assert cu.cuFuncGetAttribute(A.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, env.f) == (R.CUDA_SUCCESS, 49152)
    assert launch(env, shmem=100_000) == (INVALID,)
    assert cu.cuFuncSetAttribute(env.f, A.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100_000) == OK
    assert launch(env, shmem=100_000) == OK
    assert launch(env, shmem=100_001) == (INVALID,)
    assert cu.cuFuncSetAttribute(env.f, A.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 232449) == (INVALID,)
    assert cu.cuFuncGetAttribute(A.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, env.f)[1] == 100_000
    assert cu.cuFuncSetAttribute(env.f, A.CU_FUNC_ATTRIBUTE_NUM_REGS, 1) == (INVALID,)


def test_stream_priority_beyond_64_bits_raises_overflow_error(env):
    """cuStreamCreateWithPriority(0, 2**64) raises the wrapper's OverflowError and creates no stream."""
    n = len(env.drv.handles.table)
    same_as_real(cu.cuStreamCreateWithPriority, "cuStreamCreateWithPriority", 0, 2 ** 64,
                 expect=("OverflowError", "Python int too large to convert to C long"))
    assert raised(cu.cuStreamCreateWithPriority, 0, 2 ** 31) == ("OverflowError", "value too large to convert to int")
    assert len(env.drv.handles.table) == n


@pytest.mark.parametrize("size, flags, text", [(0, 0, "bytesize 0"), (16, 0x10, "flags 0x10"),
                                               (16, 0x80000000, "flags 0x80000000")])
def test_host_register_size_0_and_unknown_flags_are_invalid_value(env, size, flags, text):
    """cuMemHostRegister with size 0 or unknown flag bits is INVALID_VALUE and registers nothing."""
    buf = ctypes.create_string_buffer(16)
    assert cu.cuMemHostRegister(ctypes.addressof(buf), size, flags) == (INVALID,)
    assert text in simcuda.last_error().why and env.drv.memory.registered == {}


@pytest.mark.parametrize("call, args, text", [
    ("cuCtxCreate", (None, 0x100, 0), "CUctx_flags"),
    ("cuMemHostAlloc", (16, 0x8), "CU_MEMHOSTALLOC"),
    ("cuMemAllocManaged", (16, 0), "CU_MEM_ATTACH_GLOBAL"),
    ("cuMemAllocManaged", (16, 4), "CU_MEM_ATTACH_GLOBAL"),
])
def test_unknown_flag_bits_are_invalid_value(env, call, args, text):
    """Flags outside the call's enumeration are INVALID_VALUE, allocate nothing and change no context stack."""
    n, mem, ctx = len(env.drv.handles.table), env.drv.memory.in_use, cu.cuCtxGetCurrent()[1]
    res = getattr(cu, call)(*args)
    assert res[0] == INVALID and text in simcuda.last_error().why
    assert len(env.drv.handles.table) == n and env.drv.memory.in_use == mem and cu.cuCtxGetCurrent()[1] == ctx


@pytest.mark.parametrize("flags", [3, 8, 6])
def test_attach_mem_async_flags_must_be_one_attach_flag(env, flags):
    """cuStreamAttachMemAsync flags outside {0, GLOBAL, HOST, SINGLE} are INVALID_VALUE; a valid one succeeds
    (0 is accepted as the default, as the spec's case C-075 uses it [inferred])."""
    m = cu.cuMemAllocManaged(64, 1)[1]
    n = len(env.drv.launch_log)
    assert cu.cuStreamAttachMemAsync(env.s, m, 0, flags) == (INVALID,)
    assert len(env.drv.launch_log) == n
    assert cu.cuStreamAttachMemAsync(env.s, m, 0, cu.CUmemAttach_flags.CU_MEM_ATTACH_SINGLE) == OK


def test_coredump_flags_of_a_cig_context_use_the_real_bit_values(env):
    """CIG contexts refuse CU_CTX_COREDUMP_ENABLE (0x20) / USER_COREDUMP_ENABLE (0x40), not LMEM_RESIZE_TO_MAX
    (0x10)."""
    p = cu.CUctxCreateParams()
    c = cu.CUctxCigParam()
    c.sharedDataType = 1
    c.sharedData = 0x1000
    p.cigParams = [c]
    assert cu.cuCtxCreate(p, 0x20, 0)[0] == R.CUDA_ERROR_NOT_SUPPORTED
    assert cu.cuCtxCreate(p, 0x40, 0)[0] == R.CUDA_ERROR_NOT_SUPPORTED
    assert cu.cuCtxCreate(p, 0x10, 0)[0] == R.CUDA_SUCCESS


def test_memset_2d_pitch_smaller_than_a_row_is_invalid_value(env):
    """cuMemsetD2D8 with dstPitch below the row width (rows would overlap) is INVALID_VALUE and writes nothing."""
    assert cu.cuMemsetD2D8(env.d, 4, 0xAB, 8, 2) == (INVALID,)
    assert "pitch 4" in simcuda.last_error().why
    assert cu.cuMemsetD2D32(env.d, 0, 1, 2, 2) == (INVALID,)
    assert device_bytes(env) == bytes(16)
    assert cu.cuMemsetD2D8(env.d, 8, 0xAB, 8, 2) == OK
    assert device_bytes(env) == b"\xab" * 16


@pytest.mark.parametrize("width, height", [(0, 1), (4, 0)])
def test_zero_sized_memset_node_is_invalid_value(env, width, height):
    """A memset node of width 0 or height 0 is INVALID_VALUE [inferred from the exec setter's rule]; no node is
    added."""
    g = cu.cuGraphCreate(0)[1]
    m = cu.CUDA_MEMSET_NODE_PARAMS()
    m.dst, m.elementSize, m.width, m.height, m.pitch = env.d, 1, width, height, 16
    assert cu.cuGraphAddMemsetNode(g, None, 0, m, env.ctx) == (INVALID, None)
    assert "zero-sized" in simcuda.last_error().why and cu.cuGraphGetNodes(g)[2] == 0


def test_module_of_a_destroyed_context_is_invalid_context(env):
    """After cuCtxDestroy (no context current) the context's module is gone: INVALID_CONTEXT [inferred]."""
    assert cu.cuCtxDestroy(env.ctx) == OK
    assert cu.cuCtxGetCurrent()[1] == cu.CUcontext(0)
    assert cu.cuModuleGetFunction(env.mod, b"k") == (R.CUDA_ERROR_INVALID_CONTEXT, None)
    assert "destroyed" in simcuda.last_error().why and "[inferred code]" in simcuda.last_error().why
    assert cu.cuModuleUnload(env.mod) == (R.CUDA_ERROR_INVALID_CONTEXT,)
    assert cu.cuFuncGetName(env.f) == (R.CUDA_ERROR_INVALID_CONTEXT, None)


def test_library_outlives_the_context(env):
    """A library is context-independent: its kernels stay reachable after the context that loaded it is destroyed."""
    lib = cu.cuLibraryLoadData(PTX, None, None, 0, None, None, 0)[1]
    assert cu.cuCtxDestroy(env.ctx) == OK
    assert cu.cuLibraryGetKernel(lib, b"k")[0] == R.CUDA_SUCCESS


def test_function_of_another_context_is_invalid_handle(env):
    """Launching context 1's function on a context-2 stream is INVALID_HANDLE [inferred]; nothing runs."""
    cu.cuCtxCreate(None, 0, 0)
    s2 = cu.cuStreamCreate(0)[1]
    n = len(env.drv.launch_log)
    assert launch(env, s=s2) == (R.CUDA_ERROR_INVALID_HANDLE,)
    assert "valid only in its own context" in simcuda.last_error().why
    assert launch(env, s=0) == (R.CUDA_ERROR_INVALID_HANDLE,)  # the NULL stream of context 2
    assert len(env.drv.launch_log) == n
    assert launch(env) == OK  # its own context's stream


# =========================================================================== 5. last_error after runtime refusals
@pytest.mark.parametrize("call, args, code", [
    ("cudaMemcpy", lambda d, h: (d, h, 16, 99), 21),
    ("cudaMemcpyAsync", lambda d, h: (d, h, 16, 99, 0), 21),
    ("cudaMemcpy2D", lambda d, h: (d, 4, h, 16, 8, 2, 1), 12),
])
def test_runtime_only_refusal_sets_last_error(drv, call, args, code):
    """A runtime-only refusal (no CUresult twin) is simcuda.last_error() and the last error_log entry, with its why."""
    from simcuda.faces.bindings import runtime as rt
    d = rt.cudaMalloc(64)[1]
    rt.cudaMemset(d, 0, 64)
    cu.cuMemAlloc(0)  # an earlier, different failure that must not stay "last"
    h = bytearray(b"x" * 16)
    res = getattr(rt, call)(*args(d, h))
    assert int(res[0]) == code
    e = simcuda.last_error()
    assert int(e.code) == code and e.code.name == rt.cudaError_t(code).name and call in e.why
    rec = drv.error_log[-1]
    assert (rec.call, rec.code, rec.why) == (call, code, e.why)
    assert rt.cudaGetLastError() == (rt.cudaError_t(code),)
    out = bytearray(16)
    rt.cudaMemcpy(out, d, 16, 2)
    assert out == bytes(16)


# =========================================================================== 6. the _v2 face
@pytest.fixture
def v2(env):
    """The simulated ``cuda.bindings._v2.driver`` on the env's driver, and a graph ``v2.g`` (int handle)."""
    from simcuda.faces.bindings._v2 import driver as m
    m.g = int(cu.cuGraphCreate(0)[1])
    return m


@pytest.mark.parametrize("path", [1.5, [1], "object", "/tmp/simcuda-should-not-exist.dot",
                                  "non-contiguous"])
def test_v2_dot_path_of_a_wrong_kind_raises_value_error(v2, path, tmp_path, monkeypatch):
    """graph_debug_dot_print with a float, list, object, str or a non-contiguous buffer raises the real ValueError
    and writes no file."""
    import numpy as np
    monkeypatch.chdir(tmp_path)
    p = object() if path == "object" else np.zeros((2, 2))[:, 0] if path == "non-contiguous" else path
    got = raised(v2.graph_debug_dot_print, v2.g, p, 0)
    assert got == ("ValueError", "buf must be None, a Python int representing the pointer address to a valid "
                                 "buffer, or a contiguous buffer (a ctypes object, NumPy array, bytes, ...), "
                                 "of size -1")
    assert list(tmp_path.iterdir()) == []
    import os
    assert not os.path.exists("/tmp/simcuda-should-not-exist.dot")
    real = real_module("cuda.bindings._v2.driver")
    assert raised(real.graph_debug_dot_print, 1, p, 0) == got


def test_v2_dot_path_none_is_invalid_value(v2, tmp_path, monkeypatch):
    """graph_debug_dot_print(g, None, 0) is INVALID_VALUE (NULL path): no file named 'None' is written."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(v2.InvalidValueError):
        v2.graph_debug_dot_print(v2.g, None, 0)
    assert "NULL" in simcuda.last_error().why and list(tmp_path.iterdir()) == []


def test_v2_dot_path_int_is_the_address_of_the_path(v2, tmp_path):
    """An int path is the address of a NUL-terminated path (the real pointer form); a garbage one is INVALID_VALUE."""
    target = tmp_path / "g.dot"
    buf = ctypes.create_string_buffer(str(target).encode())
    v2.graph_debug_dot_print(v2.g, ctypes.addressof(buf), 0)
    assert target.read_text().startswith("digraph")
    with pytest.raises(v2.InvalidValueError):
        v2.graph_debug_dot_print(v2.g, GARBAGE, 0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.dot"]


def test_v2_dot_path_buffers(v2, tmp_path):
    """bytes, bytearray and numpy buffers give the path up to their first NUL."""
    import numpy as np
    for i, make in enumerate((bytes, bytearray, lambda b: np.frombuffer(b, dtype=np.uint8))):
        target = tmp_path / f"g{i}.dot"
        v2.graph_debug_dot_print(v2.g, make(str(target).encode() + b"\0junk"), 0)
        assert target.exists()
    assert len(list(tmp_path.iterdir())) == 3


@pytest.mark.parametrize("call, args, expect", [
    ("device_get", ("abc",), ("TypeError", "an integer is required")),
    ("device_get", (2 ** 63,), ("OverflowError", "Python int too large to convert to C long")),
    ("device_get_name", (-1, 0), ("ValueError", "negative count")),
    ("device_get_name", (2 ** 40, 0), ("OverflowError", "value too large to convert to int")),
    ("get_error_name", ("abc",), ("TypeError", "an integer is required")),
    ("init", (-1,), ("OverflowError", "can't convert negative value to unsigned int")),
    ("init", (2 ** 32,), ("OverflowError", "value too large to convert to unsigned int")),
    ("mem_free_v2", (-1,), ("OverflowError", "can't convert negative value to uint64_t")),
    ("stream_synchronize", (1.5,), ("TypeError", "an integer is required")),
    ("stream_synchronize", (2 ** 63,), ("OverflowError", "Python int too large to convert to C ssize_t")),
])
def test_v2_argument_conversion_matches_the_real_module(v2, call, args, expect):
    """Typed _v2 parameters convert as the real Cython signatures do (class and text), before the body runs."""
    n = len(env_log := v2._drv().error_log)
    same_as_real(getattr(v2, call), call, *args, expect=expect, module="cuda.bindings._v2.driver")
    assert len(env_log) == n


@pytest.mark.parametrize("call, args", [("init", (1.5,)), ("mem_free_v2", (1.5,)), ("device_get", (1.5,))])
def test_v2_float_arguments_are_truncated_like_the_real(v2, call, args):
    """Where the real converts a float through __int__ (1.5 -> 1), the simulated call reaches the driver and
    answers its code (INVALID_VALUE / INVALID_DEVICE) instead of raising TypeError."""
    with pytest.raises(v2.DriverError) as ei:
        getattr(v2, call)(*args)
    assert ei.value.status in (1, 101)
    assert raised(getattr(real_module("cuda.bindings._v2.driver"), call), *args) == ("driver", "")


# =========================================================================== 8. the graph of a live capture
@pytest.fixture
def capturing(env):
    """``env`` with stream ``s`` capturing into graph ``cg`` (one captured memset), and an exec ``x`` of a
    one-node graph of the same shape."""
    assert cu.cuStreamBeginCapture(env.s, 0) == OK
    assert cu.cuMemsetD8Async(env.d, 1, 4, env.s) == OK
    env.cg = cu.cuStreamGetCaptureInfo(env.s)[3]
    g = cu.cuGraphCreate(0)[1]
    m = cu.CUDA_MEMSET_NODE_PARAMS()
    m.dst, m.elementSize, m.width, m.height, m.value = env.d, 1, 4, 1, 2
    cu.cuGraphAddMemsetNode(g, None, 0, m, env.ctx)
    env.x = cu.cuGraphInstantiate(g, 0)[1]
    return env


def test_exec_update_from_a_capture_graph_is_invalid_value(capturing):
    """cuGraphExecUpdate from the graph of a live capture is INVALID_VALUE [inferred]; the exec and capture are
    unchanged."""
    e = capturing
    assert cu.cuGraphExecUpdate(e.x, e.cg) == (INVALID, None)
    why = simcuda.last_error().why
    assert "as instantiation does" in why and "[inferred]" in why
    assert cu.cuStreamGetCaptureInfo(e.s)[1] == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    assert simcuda.last_error().code == INVALID  # the refusal invalidated nothing


def test_exec_update_from_a_capture_graph_leaves_everything(capturing):
    """The refused update changes neither the exec (it still sets value 2) nor the capture (it ends with its node)."""
    e = capturing
    assert cu.cuGraphExecUpdate(e.x, e.cg) == (INVALID, None)
    g = cu.cuStreamEndCapture(e.s)[1]
    assert cu.cuGraphGetNodes(g)[2] == 1
    assert cu.cuGraphLaunch(e.x, e.s) == OK and cu.cuStreamSynchronize(e.s) == OK
    assert device_bytes(e, 4) == b"\x02" * 4
    assert cu.cuGraphExecUpdate(e.x, g)[0] == R.CUDA_SUCCESS  # after EndCapture the update is allowed


def test_clone_and_child_copy_of_a_capture_graph_are_allowed(capturing):
    """Reading a capture graph stays allowed: cuGraphClone and cuGraphAddChildGraphNode (a clone) succeed."""
    e = capturing
    assert cu.cuGraphClone(e.cg)[0] == R.CUDA_SUCCESS
    parent = cu.cuGraphCreate(0)[1]
    res, node = cu.cuGraphAddChildGraphNode(parent, None, 0, e.cg)
    assert res == R.CUDA_SUCCESS
    assert cu.cuGraphGetNodes(cu.cuGraphChildGraphNodeGetGraph(node)[1])[2] == 1
    assert cu.cuStreamEndCapture(e.s)[0] == R.CUDA_SUCCESS


def test_moving_a_capture_graph_into_a_node_is_invalid_value(capturing):
    """cuGraphAddNode with a GRAPH node that MOVEs the capture graph is INVALID_VALUE [inferred]; nothing is added."""
    e = capturing
    parent = cu.cuGraphCreate(0)[1]
    p = cu.CUgraphNodeParams()
    p.type = cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_GRAPH
    p.graph.graph = e.cg
    p.graph.ownership = cu.CUgraphChildGraphNodeOwnership.CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE
    assert cu.cuGraphAddNode(parent, None, None, 0, p) == (INVALID, None)
    assert "moved into a child-graph node" in simcuda.last_error().why
    assert cu.cuGraphGetNodes(parent)[2] == 0 and cu.cuStreamEndCapture(e.s)[0] == R.CUDA_SUCCESS


def test_exec_child_graph_update_from_a_capture_graph_is_invalid_value(capturing):
    """cuGraphExecChildGraphNodeSetParams with a capture graph is INVALID_VALUE like a whole-graph update."""
    e = capturing
    child = cu.cuGraphCreate(0)[1]
    m = cu.CUDA_MEMSET_NODE_PARAMS()
    m.dst, m.elementSize, m.width, m.height = e.d, 1, 4, 1
    cu.cuGraphAddMemsetNode(child, None, 0, m, e.ctx)
    parent = cu.cuGraphCreate(0)[1]
    node = cu.cuGraphAddChildGraphNode(parent, None, 0, child)[1]
    x = cu.cuGraphInstantiate(parent, 0)[1]
    assert cu.cuGraphExecChildGraphNodeSetParams(x, node, e.cg) == (INVALID,)
    assert "as instantiation does" in simcuda.last_error().why


# =========================================================================== 7. argument conversion as the real wrapper
@pytest.mark.parametrize("call, args, expect", [
    ("cuStreamSynchronize", (2 ** 64,), ("OverflowError", "Python int too large to convert to C unsigned long")),
    ("cuGraphDestroy", (2 ** 64,), ("OverflowError", "Python int too large to convert to C unsigned long")),
    ("cuModuleLoad", (None,), ("TypeError", "expected bytes, NoneType found")),
    ("cuGraphDebugDotPrint", (0, None, 0), ("TypeError", "expected bytes, NoneType found")),
    ("cuStreamBeginCapture", (0, 2 ** 63), ("OverflowError", "Python int too large to convert to C long")),
    ("cuStreamBeginCapture", (0, None), ("TypeError", "Argument 'mode' must not be None")),
    ("cuDeviceGet", (2 ** 63,), ("OverflowError", "Python int too large to convert to C long")),
    ("cuStreamWaitEvent", (0, 0, -1), ("OverflowError", "can't convert negative value to unsigned int")),
    ("cuGetErrorName", ("abc",), ("ValueError", "invalid literal for int() with base 10: 'abc'")),
    ("cuDeviceGetAttribute", ("abc", 0), ("ValueError", "invalid literal for int() with base 10: 'abc'")),
    ("cuGraphAddKernelNode", ("abc", None, 0, None), ("TypeError", "an integer is required")),
    ("cuGraphAddKernelNode", (None, [1], 0, "abc"),
     ("TypeError", "Argument 'nodeParams' has incorrect type (expected cuda.bindings.driver.CUDA_KERNEL_NODE_PARAMS, "
                   "got str)")),
    ("cuLaunchKernelEx", (None, "abc", None, 0), ("TypeError", "an integer is required")),
    ("cuMemcpy2DAsync", (None, "abc"), ("TypeError", "an integer is required")),
    ("cuLibraryLoadFromFile", (b"/x", None, None, "abc", None, None, 0), ("TypeError", "an integer is required")),
    ("cuModuleLoadDataEx", (PTX, 2, None, None), ("RuntimeError", "List is too small: 0 < 2")),
    ("cuMemcpyHtoDAsync", (-1, 0, 0, "abc"), ("TypeError", "an integer is required")),  # the stream first
    ("cuEventRecord", ("abc", -1), ("OverflowError", "can't convert negative value to unsigned PY_LONG_LONG")),
])
def test_argument_conversion_and_its_order_match_the_real_wrapper(env, call, args, expect):
    """Out-of-range, None and wrong-type arguments raise exactly what the real wrapper raises, converted in its
    order (typed parameters first, then lists and handles last to first), before any NULL-struct code."""
    n = len(env.drv.error_log)
    same_as_real(getattr(cu, call), call, *args, expect=expect)
    assert len(env.drv.error_log) == n


def test_float_host_address_converts_like_the_real_helper(env):
    """``srcHost=1.5`` converts to address 1 as in the real helper, then the driver refuses it (INVALID_VALUE)."""
    assert cu.cuMemcpyHtoD(env.d, 1.5, 16) == (INVALID,)
    assert raised(real_module().cuMemcpyHtoD, real_module().CUdeviceptr(0), 1.5, 16) == ("driver", "")


@pytest.mark.parametrize("call, args, expect", [
    ("graph_add_empty_node", ("G", None, 0), ("TypeError", "an integer is required")),
    ("graph_add_empty_node", ("G", 1.5, 1), ("TypeError", "an integer is required")),
    ("graph_add_empty_node", ("G", ["a"], 1), ("TypeError", "an integer is required")),
    ("module_get_function", (0, "k"), ("ValueError", "buf must be None, a Python int representing the pointer "
                                       "address to a valid buffer, or a contiguous buffer (a ctypes object, NumPy "
                                       "array, bytes, ...), of size -1")),
    ("memcpy_dtoh_v2", (b"12345678", 0, 8), ("ValueError", "buf must be None, a Python int representing the pointer "
                                             "address to a valid buffer, or a contiguous writable buffer (a ctypes "
                                             "object, NumPy array, bytes, ...), of size -1")),
    ("ctx_create_v4", ("abc", 0, 0), ("ValueError", "invalid literal for int() with base 10: 'abc'")),
    ("graph_instantiate_with_params", (2 ** 63, 0), ("OverflowError", "Python int too large to convert to C ssize_t")),
])
def test_v2_untyped_parameters_convert_like_the_real_module(v2, call, args, expect):
    """_v2 dependencies (an address or ints), buffers (get_buffer_pointer) and struct pointers (int()) convert as
    the real module does: None is no dependency list, a str is no buffer, and nothing is created."""
    args = tuple(v2.g if a == "G" else a for a in args)
    n = cu.cuGraphGetNodes(v2.g)[2]
    same_as_real(getattr(v2, call), call, *args, expect=expect, module="cuda.bindings._v2.driver")
    assert cu.cuGraphGetNodes(v2.g)[2] == n


def test_v2_negative_host_address_is_invalid_value(v2, env):
    """A negative int host address passes the _v2 conversion (intptr_t), then fails as a host address."""
    with pytest.raises(v2.InvalidValueError):
        v2.memcpy_htod_v2(int(env.d), -1, 8)
    assert "not a host address" in simcuda.last_error().why and device_bytes(env) == bytes(16)


@pytest.mark.parametrize("call, args, expect", [
    ("cudaStreamSynchronize", (2 ** 64,), ("OverflowError", "Python int too large to convert to C unsigned long")),
    ("cudaDeviceGetAttribute", ("abc", 0), ("ValueError", "invalid literal for int() with base 10: 'abc'")),
    ("cudaDeviceGetAttribute", (None, 0), ("TypeError", "Argument 'attr' must not be None")),
    ("cudaDeviceGetAttribute", (1, 2 ** 31), ("OverflowError", "value too large to convert to int")),
    ("cudaGraphAddEmptyNode", (None, 5, 0), ("TypeError", "'int' object is not iterable")),
    ("cudaGraphInstantiateWithParams", ("abc", None), ("TypeError", "an integer is required")),
    ("cudaMemcpy", (0, 0, 0, None), ("TypeError", "Argument 'kind' must not be None")),
])
def test_runtime_argument_conversion_matches_the_real_module(drv, call, args, expect):
    """The runtime face converts arguments in the real wrapper's order and with its exceptions."""
    from simcuda.faces.bindings import runtime as rt
    n = len(drv.error_log)
    same_as_real(getattr(rt, call), call, *args, expect=expect, module="cuda.bindings.runtime")
    assert len(drv.error_log) == n


def test_runtime_memcpy_kind_string_goes_through_int(drv):
    """``kind='1'`` is converted by int() as in the real wrapper (cudaMemcpyHostToDevice), not refused."""
    from simcuda.faces.bindings import runtime as rt
    d = rt.cudaMalloc(16)[1]
    assert rt.cudaMemcpy(d, b"x" * 16, 16, "1") == (rt.cudaError_t.cudaSuccess,)
    out = bytearray(16)
    rt.cudaMemcpy(out, d, 16, 2)
    assert out == b"x" * 16
