"""The ``cuda.bindings.driver``-style face: shapes, wrapper types, argument forms and translated codes.

Comparisons with the real binding use the installed cuda-bindings 13.5 wheel (it imports without a
GPU; only calls that reach ``libcuda`` fail) and skip when it is not installed.
"""
from __future__ import annotations

import ctypes
import gc
import inspect
import re

import pytest

import simcuda
from simcuda._generated.driver_outputs import CLASSES, OUTPUTS
from simcuda.faces.bindings import driver as cu

R = cu.CUresult
OK = (R.CUDA_SUCCESS,)
SRC = b"""
extern "C" __global__ void k() {}
extern "C" __global__ void kargs(float* a, int n, float f) {}
extern "C" __global__ void scale(float* a, int n, float f) {}
"""


def real_driver():
    """The real ``cuda.bindings.driver`` 13.5, or skip."""
    real = pytest.importorskip("cuda.bindings.driver")
    import cuda.bindings
    if not cuda.bindings.__version__.startswith("13.5"):
        pytest.skip("needs cuda-bindings 13.5.x")
    return real


class Env:
    """The standard setup: initialised driver, a context, a module, two streams, two events."""


@pytest.fixture
def env(drv):
    """cuInit, a current context, module ``SRC`` with kernels ``k``/``kargs``/``scale``, streams, events."""
    e = Env()
    e.d = drv
    assert cu.cuInit(0) == OK
    e.ctx = ok(cu.cuCtxCreate(None, 0, cu.CUdevice(0)))
    e.mod = ok(cu.cuModuleLoadData(SRC))
    e.k = ok(cu.cuModuleGetFunction(e.mod, b"k"))
    e.kargs = ok(cu.cuModuleGetFunction(e.mod, b"kargs"))
    e.s1 = ok(cu.cuStreamCreate(0))
    e.s2 = ok(cu.cuStreamCreate(0))
    e.e1 = ok(cu.cuEventCreate(0))
    e.e2 = ok(cu.cuEventCreate(0))
    return e


def ok(res):
    """Assert success and return the single output (or the outputs tuple)."""
    assert res[0] == R.CUDA_SUCCESS, res
    return res[1] if len(res) == 2 else res[1:]


def launch(f, s, kp=None):
    return cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, kp, 0)


def local_ids(nodes):
    return [ok(cu.cuGraphNodeGetLocalId(n)) for n in nodes]


# ------------------------------------------------------------------ module surface
def test_every_real_function_exists():
    """Every cu* function of the real module exists in the face (implemented or a stub)."""
    real = real_driver()
    missing = [n for n in dir(real) if n.startswith("cu") and callable(getattr(real, n)) and not hasattr(cu, n)]
    assert missing == []


def test_every_real_class_and_constant_exists():
    """Every class, enum and integer constant of the real module exists under the same name."""
    real = real_driver()
    missing = [n for n in dir(real) if not n.startswith("_") and not hasattr(cu, n)
               and not inspect.ismodule(getattr(real, n))]
    assert missing == []


def test_special_stream_constants_are_plain_ints():
    """CU_STREAM_LEGACY and CU_STREAM_PER_THREAD are plain ints 1 and 2 (spec 1)."""
    assert type(cu.CU_STREAM_LEGACY) is int and cu.CU_STREAM_LEGACY == 1
    assert type(cu.CU_STREAM_PER_THREAD) is int and cu.CU_STREAM_PER_THREAD == 2


def test_implemented_signatures_match_the_real_parameter_names():
    """Implemented functions take the real parameters, by name and in order, so keyword calls work."""
    for name, (sig, _outs) in OUTPUTS.items():
        fn = getattr(cu, name)
        if getattr(fn, "__simcuda_stub__", False):
            continue
        inner = inspect.unwrap(fn)
        ours = list(inspect.signature(inner).parameters)
        params = sig[sig.index("(") + 1:sig.rindex(")")]
        real = [re.split(r"[:=]", p.strip())[0].split()[-1].lstrip("*") for p in _split_params(params)]
        assert ours == real, name


def _split_params(text):
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return out


def test_stub_returns_not_supported_with_the_real_number_of_slots(drv):
    """A function that is not simulated returns (NOT_SUPPORTED, None...) and records a why."""
    assert getattr(cu.cuTexObjectCreate, "__simcuda_stub__", False)
    res = cu.cuTexObjectCreate(None, None, None)
    assert res == (R.CUDA_ERROR_NOT_SUPPORTED, None)
    assert "not simulated" in simcuda.last_error().why
    assert len(cu.cuGraphGetNodes.__doc__) > 0 and cu.cuTexObjectCreate.__doc__.startswith("Not simulated")


def test_error_tuples_keep_their_length(drv):
    """Before cuInit every call fails with NOT_INITIALIZED and every output slot is None."""
    assert cu.cuStreamGetCaptureInfo(0) == (R.CUDA_ERROR_NOT_INITIALIZED,) + (None,) * 6
    assert cu.cuGraphGetEdges(0x1234) == (R.CUDA_ERROR_NOT_INITIALIZED, None, None, None, None)
    assert cu.cuStreamEndCapture(0) == (R.CUDA_ERROR_NOT_INITIALIZED, None)
    assert cu.cuStreamSynchronize(0) == (R.CUDA_ERROR_NOT_INITIALIZED,)
    for name, (_sig, outs) in OUTPUTS.items():
        fn = getattr(cu, name)
        if name in ("cuInit", "cuGetErrorName", "cuGetErrorString", "cuDriverGetVersion"):
            continue
        try:
            nparams = len(inspect.signature(inspect.unwrap(fn)).parameters)
            res = fn(*([0] * nparams))
        except (TypeError, RuntimeError, ValueError, AttributeError):
            continue  # argument forms the real wrapper rejects too
        assert isinstance(res, tuple) and len(res) == 1 + len(outs), name
        assert res[0] != R.CUDA_SUCCESS and all(x is None for x in res[1:]), name


# ------------------------------------------------------------------ wrapper types
WRAPPERS = sorted(n for n, (_b, kind, _d) in CLASSES.items() if kind in ("ptr", "value", "callback"))


@pytest.mark.parametrize("name", WRAPPERS)
def test_wrapper_behaviour_matches_real(name):
    """repr, int(), equality, hashing and ordering of each wrapper type behave like the real one."""
    real = real_driver()
    R_, S_ = getattr(real, name), getattr(cu, name)
    assert repr(S_(5)) == repr(R_(5)) and repr(S_()) == repr(R_())
    assert int(S_(7)) == int(R_(7)) == 7
    assert (S_(5) == S_(5)) == (R_(5) == R_(5))
    assert (S_(5) == 5) == (R_(5) == 5) is False
    assert hasattr(S_(1), "__index__") == hasattr(R_(1), "__index__")
    if R_(5) == R_(5):
        assert hash(S_(5)) == hash(R_(5))
        with pytest.raises(TypeError):
            S_(1) < S_(2)  # noqa: B015
    for bad in ("x", None):
        with pytest.raises(TypeError, match="an integer is required"):
            R_(bad)
        with pytest.raises(TypeError, match="an integer is required"):
            S_(bad)


def test_cuuint64_has_no_value_equality():
    """cuuint64_t compares by identity only: capture ids must be compared as int(id) (spec 11.1)."""
    assert cu.cuuint64_t(7) != cu.cuuint64_t(7) and cu.cuuint64_t(7) != 7
    assert int(cu.cuuint64_t(7)) == 7 and repr(cu.cuuint64_t(7)) == "<cuuint64_t 7>"


def test_wrapper_getptr_holds_the_value():
    """getPtr() is the address of real memory holding the C value; _ptr views existing memory."""
    p = cu.CUdeviceptr(0x1234)
    assert ctypes.c_uint64.from_address(p.getPtr()).value == 0x1234
    cell = ctypes.c_uint64(0)
    s = cu.CUstream(9, ctypes.addressof(cell))
    assert cell.value == 9 and int(s) == 9
    cell.value = 11
    assert int(s) == 11


def test_hostfn_refuses_callables():
    """CUhostFn takes an int address; a Python callable or a CFUNCTYPE object raises TypeError (spec 3.9)."""
    thunk = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda p: None)
    for bad in (print, thunk):
        with pytest.raises(TypeError, match="an integer is required"):
            cu.CUhostFn(bad)
    assert repr(cu.CUhostFn(0x10)) == "<CUhostFn 0x10>"


# ------------------------------------------------------------------ structs
STRUCTS = ["CUgraphEdgeData", "CUDA_KERNEL_NODE_PARAMS", "CUDA_MEMCPY3D", "CUDA_MEMSET_NODE_PARAMS",
           "CUDA_HOST_NODE_PARAMS", "CUDA_GRAPH_INSTANTIATE_PARAMS", "CUgraphExecUpdateResultInfo",
           "CUctxCreateParams", "CUctxCigParam", "CUexecAffinityParam", "CUstreamCigCaptureParams",
           "CUstreamCigParam", "CUDA_MEMCPY2D", "CUlaunchConfig"]


@pytest.mark.parametrize("name", STRUCTS)
def test_struct_fields_and_repr_match_real(name):
    """Each parameter struct has the real public fields and prints the same default repr."""
    real = real_driver()
    ours, theirs = getattr(cu, name)(), getattr(real, name)()
    pub = lambda o: sorted(a for a in dir(o) if not a.startswith("_") and a != "getPtr")  # noqa: E731
    assert pub(ours) == pub(theirs)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", STRUCTS)
def test_struct_constructor_refuses_keywords(name):
    """Struct constructors take no keyword arguments, with the real message (spec 11.1)."""
    with pytest.raises(TypeError, match=r"^__cinit__\(\) got an unexpected keyword argument 'to_port'$"):
        getattr(cu, name)(to_port=1)


def test_struct_field_conversions_like_real():
    """Typed fields convert and refuse values the way the real setters do."""
    e = cu.CUgraphEdgeData()
    e.type = cu.CUgraphDependencyType.CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC
    assert e.type == 1 and type(e.type) is int
    with pytest.raises(OverflowError):
        e.to_port = 300
    kp = cu.CUDA_KERNEL_NODE_PARAMS()
    kp.func = 5
    assert kp.func == cu.CUfunction(5)
    with pytest.raises(TypeError, match="an integer is required"):
        kp.func = "x"
    with pytest.raises(TypeError, match="an integer is required"):
        kp.extra = None
    with pytest.raises(AttributeError):
        kp.foo = 1
    m = cu.CUDA_MEMCPY3D()
    m.srcMemoryType = 2
    assert m.srcMemoryType == cu.CUmemorytype.CU_MEMORYTYPE_DEVICE
    with pytest.raises(ValueError):
        m.dstMemoryType  # noqa: B018  (0 is not a CUmemorytype, as in the real getter)
    h = cu.CUDA_HOST_NODE_PARAMS()
    with pytest.raises(TypeError, match="expected Type None, int or object with Buffer Protocol"):
        h.userData = object()
    p = cu.CUctxCreateParams()
    with pytest.raises(TypeError, match="has no len"):
        p.cigParams = cu.CUctxCigParam()


# ------------------------------------------------------------------ argument checking before the driver
def test_str_handle_raises_like_real(env):
    """A str where a handle goes raises the real wrapper's TypeError and changes nothing."""
    real = real_driver()
    with pytest.raises(TypeError) as theirs:
        real.cuStreamSynchronize("x")
    with pytest.raises(TypeError) as ours:
        cu.cuStreamSynchronize("x")
    assert str(ours.value) == str(theirs.value) == "an integer is required"
    with pytest.raises(TypeError, match="an integer is required"):
        cu.cuLaunchKernel("f", 1, 1, 1, 1, 1, 1, 0, env.s1, None, 0)
    assert env.d.launch_log == []


def test_node_lists_must_hold_wrappers(env):
    """Dependency lists must hold CUgraphNode objects; ints and strs raise the real TypeError."""
    g = ok(cu.cuGraphCreate(0))
    msg = "Argument 'dependencies' is not instance of type (expected tuple[cydriver.CUgraphNode,] or " \
          "list[cydriver.CUgraphNode,]"
    for bad in (["x"], [5]):
        with pytest.raises(TypeError) as err:
            cu.cuGraphAddEmptyNode(g, bad, 1)
        assert str(err.value) == msg
    assert ok(cu.cuGraphGetNodes(g)) == ([], 0)


def test_begin_capture_to_graph_list_too_small(env):
    """numDependencies above the list length raises RuntimeError in the wrapper (spec 11.1)."""
    g = ok(cu.cuGraphCreate(0))
    n = ok(cu.cuGraphAddEmptyNode(g, None, 0))
    with pytest.raises(RuntimeError, match=r"^List is too small: 1 < 3$"):
        cu.cuStreamBeginCaptureToGraph(env.s1, g, [n], None, 3, 0)
    with pytest.raises(RuntimeError, match=r"^List is too small: 0 < 1$"):
        cu.cuStreamBeginCaptureToGraph(env.s1, g, None, None, 1, 0)
    assert ok(cu.cuStreamIsCapturing(env.s1)) == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE


def test_host_func_refuses_callables_and_thunk_objects(env):
    """cuLaunchHostFunc takes a CUhostFn or int; a callable or CFUNCTYPE object raises (spec 3.9)."""
    thunk = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda p: None)
    for bad in (print, thunk):
        with pytest.raises(TypeError, match="an integer is required"):
            cu.cuLaunchHostFunc(env.s1, bad, None)


def test_module_names_and_paths_are_bytes(env, tmp_path):
    """Names and paths are char* arguments: str raises 'expected bytes, str found', as in the real wrapper."""
    with pytest.raises(TypeError, match="expected bytes, str found"):
        cu.cuModuleGetFunction(env.mod, "k")
    with pytest.raises(TypeError, match="expected bytes, str found"):
        cu.cuModuleLoad("x.ptx")
    with pytest.raises(TypeError, match="expected Type None, int or object with Buffer Protocol"):
        cu.cuModuleLoadData("some text")
    assert cu.cuModuleGetFunction(env.mod, b"nope")[0] == R.CUDA_ERROR_NOT_FOUND
    f = tmp_path / "m.cu"
    f.write_bytes(SRC)
    m2 = ok(cu.cuModuleLoad(str(f).encode()))
    assert ok(cu.cuFuncGetName(ok(cu.cuModuleGetFunction(m2, b"scale")))) == b"scale"
    assert cu.cuModuleLoad(b"/nonexistent/x.ptx") == (R.CUDA_ERROR_FILE_NOT_FOUND, None)


def test_module_image_as_numpy_char_array(env):
    """A module image may be a numpy char array (buffer protocol)."""
    np = pytest.importorskip("numpy")
    img = np.frombuffer(SRC, dtype=np.uint8)
    m = ok(cu.cuModuleLoadData(img))
    assert isinstance(ok(cu.cuModuleGetFunction(m, b"k")), cu.CUfunction)


# ------------------------------------------------------------------ capture through the face
def test_fork_join_reference_example(env):
    """The Guide's fork/join (spec 4.3) gives nodes A,B,C,D and edges A->B, A->C, B->D, C->D."""
    s1, s2, e1, e2, k = env.s1, env.s2, env.e1, env.e2, env.k
    assert cu.cuStreamBeginCapture(s1, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL) == OK
    assert launch(k, s1) == OK                       # A
    assert cu.cuEventRecord(e1, s1) == OK
    assert cu.cuStreamWaitEvent(s2, e1, 0) == OK
    assert launch(k, s1) == OK                       # B
    assert launch(k, s2) == OK                       # C
    assert cu.cuEventRecord(e2, s2) == OK
    assert cu.cuStreamWaitEvent(s1, e2, 0) == OK
    assert ok(cu.cuStreamIsCapturing(s2)) == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    assert launch(k, s1) == OK                       # D
    g = ok(cu.cuStreamEndCapture(s1))
    assert isinstance(g, cu.CUgraph)
    nodes, n = ok(cu.cuGraphGetNodes(g, 4))
    assert n == 4 and local_ids(nodes) == [0, 1, 2, 3]
    assert all(ok(cu.cuGraphNodeGetType(x)) == cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL for x in nodes)
    frm, to, eds, ne = ok(cu.cuGraphGetEdges(g, 4))
    assert ne == 4
    assert list(zip(local_ids(frm), local_ids(to))) == [(0, 1), (0, 2), (1, 3), (2, 3)]
    assert all((e.from_port, e.to_port, e.type) == (0, 0, 0) for e in eds)
    assert ok(cu.cuStreamIsCapturing(s2)) == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE


def test_get_capture_info_shape(env):
    """cuStreamGetCaptureInfo gives the 7-tuple: status enum, cuuint64_t id, CUgraph, node and edge lists, n."""
    assert cu.cuStreamBeginCapture(env.s1, 0) == OK
    assert launch(env.k, env.s1) == OK
    res = cu.cuStreamGetCaptureInfo(env.s1)
    assert len(res) == 7 and res[0] == R.CUDA_SUCCESS
    _, status, cid, g, deps, eds, n = res
    assert status == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    assert type(cid) is cu.cuuint64_t and int(cid) >= 1
    assert type(g) is cu.CUgraph and n == 1
    assert [type(x) for x in deps] == [cu.CUgraphNode] and [type(x) for x in eds] == [cu.CUgraphEdgeData]
    idle = cu.cuStreamGetCaptureInfo(env.s2)
    assert idle[1] == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE and idle[4:] == ([], [], 0)


def test_update_capture_dependencies_count_and_edge_data(env):
    """UpdateCaptureDependencies: a count above the list or a short edge-data list is INVALID_VALUE, no change."""
    s1 = env.s1
    assert cu.cuStreamBeginCapture(s1, 0) == OK
    assert launch(env.k, s1) == OK
    a = ok(cu.cuStreamGetCaptureInfo(s1))[3][0]
    g = ok(cu.cuStreamGetCaptureInfo(s1))[2]
    b = ok(cu.cuGraphAddEmptyNode(g, None, 0))
    before = ok(cu.cuStreamGetCaptureInfo(s1))
    assert cu.cuStreamUpdateCaptureDependencies(s1, [b], None, 2, 0) == (R.CUDA_ERROR_INVALID_VALUE,)
    ed = cu.CUgraphEdgeData()
    assert cu.cuStreamUpdateCaptureDependencies(s1, [a, b], [ed], 2, 1) == (R.CUDA_ERROR_INVALID_VALUE,)
    after = ok(cu.cuStreamGetCaptureInfo(s1))
    assert after[3] == before[3] and after[0] == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    assert cu.cuStreamUpdateCaptureDependencies(s1, [b], [], 1, 0) == OK   # [] edge data = zero
    assert ok(cu.cuStreamGetCaptureInfo(s1))[3] == [a, b]
    assert cu.cuStreamUpdateCaptureDependencies(s1, [a, b], None, 1, 1) == OK   # min(n, len)
    assert ok(cu.cuStreamGetCaptureInfo(s1))[3] == [a]
    assert cu.cuStreamEndCapture(s1)[0] == R.CUDA_SUCCESS


def test_programmatic_edge_data_survives_get_capture_info(env):
    """Edge data set with UpdateCaptureDependencies reads back through the classic wrapper (C-110)."""
    assert cu.cuStreamBeginCapture(env.s1, 0) == OK
    assert launch(env.k, env.s1) == OK
    a = ok(cu.cuStreamGetCaptureInfo(env.s1))[3][0]
    ed = cu.CUgraphEdgeData()
    ed.from_port = cu.CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC
    ed.type = cu.CUgraphDependencyType.CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC
    assert cu.cuStreamUpdateCaptureDependencies(env.s1, [a], [ed], 1, 1) == OK
    eds = ok(cu.cuStreamGetCaptureInfo(env.s1))[4]
    assert (eds[0].from_port, eds[0].type) == (1, 1)


def test_capture_errors_translate_codes(env):
    """Core codes come back as CUresult members: 903 on a member, then 901 from the origin."""
    s1, s2 = env.s1, env.s2
    assert cu.cuStreamBeginCapture(s1, 0) == OK
    assert cu.cuEventRecord(env.e1, s1) == OK
    assert cu.cuStreamWaitEvent(s2, env.e1, 0) == OK
    assert cu.cuStreamEndCapture(s2) == (R.CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, None)
    assert ok(cu.cuStreamIsCapturing(s1)) == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_INVALIDATED
    assert cu.cuStreamEndCapture(s1) == (R.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, None)
    assert ok(cu.cuStreamIsCapturing(s1)) == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE
    assert cu.cuThreadExchangeStreamCaptureMode(7) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert ok(cu.cuThreadExchangeStreamCaptureMode(2)) == cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL


# ------------------------------------------------------------------ kernel arguments
@pytest.fixture
def recorded():
    """Register a Python kernel 'kargs' that records the args of each launch."""
    seen = []

    @simcuda.kernel("kargs")
    def kargs(launch_):
        seen.append(list(launch_.args))
    yield seen
    simcuda._core.facade.KERNELS.pop("kargs", None)


def test_kernel_args_tuple_form(env, recorded):
    """(values, types): ctypes types convert values; type None takes a wrapper such as CUdeviceptr."""
    dptr = ok(cu.cuMemAlloc(64))
    kp = ((dptr, 7, 2.5), (None, ctypes.c_int, ctypes.c_float))
    assert launch(env.kargs, env.s1, kp) == OK
    assert recorded == [[int(dptr), 7, 2.5]]


def test_kernel_args_void_pointer_array_address(env, recorded):
    """An int address of a void** array is decoded with the parameter types read from the module."""
    dptr = ok(cu.cuMemAlloc(64))
    a, n, f = ctypes.c_uint64(int(dptr)), ctypes.c_int(-3), ctypes.c_float(0.5)
    arr = (ctypes.c_void_p * 3)(*(ctypes.addressof(x) for x in (a, n, f)))
    assert launch(env.kargs, env.s1, ctypes.addressof(arr)) == OK
    assert recorded == [[int(dptr), -3, 0.5]]


def test_kernel_args_buffer_of_addresses(env, recorded):
    """A buffer (numpy array) of argument addresses works like the int address."""
    np = pytest.importorskip("numpy")
    dptr = ok(cu.cuMemAlloc(64))
    vals = [np.array([int(dptr)], dtype=np.uint64), np.array([4], dtype=np.int32), np.array([1.5], dtype=np.float32)]
    args = np.array([v.ctypes.data for v in vals], dtype=np.uint64)
    assert launch(env.kargs, env.s1, args) == OK
    assert recorded == [[int(dptr), 4, 1.5]]


def test_kernel_args_refused_forms(env, recorded):
    """Forms the real helper refuses raise its TypeErrors and launch nothing."""
    with pytest.raises(TypeError, match="has tuples with different length"):
        launch(env.kargs, env.s1, ((1, 2), (ctypes.c_int,)))
    with pytest.raises(TypeError, match=re.escape("but expected Type <class '_ctypes.Structure'>")):
        launch(env.kargs, env.s1, ((ctypes.c_int(1),), (None,)))
    with pytest.raises(TypeError, match=r"Unsupported type: <class 'int'>"):
        launch(env.kargs, env.s1, ((1,), (int,)))
    with pytest.raises(TypeError, match="is not a valid type"):
        launch(env.kargs, env.s1, [1, 2])
    with pytest.raises(TypeError, match="an integer is required"):
        cu.cuLaunchKernel(env.kargs, 1, 1, 1, 1, 1, 1, 0, env.s1, None, None)
    with pytest.raises(OverflowError):
        cu.cuLaunchKernel(env.kargs, -1, 1, 1, 1, 1, 1, 0, env.s1, None, 0)
    assert recorded == [] and env.d.launch_log == []


def test_kernel_runs_against_memory_through_the_face(env):
    """A registered kernel scales device memory written with cuMemcpyHtoD; DtoH reads it back."""
    np = pytest.importorskip("numpy")

    @simcuda.kernel("scale")
    def scale(launch_):
        ptr, n, f = launch_.args
        launch_.array(ptr, "float32", n)[:] *= f
    try:
        f = ok(cu.cuModuleGetFunction(env.mod, b"scale"))
        host = np.arange(4, dtype=np.float32)
        d = ok(cu.cuMemAlloc(host.nbytes))
        assert cu.cuMemcpyHtoD(d, host, host.nbytes) == OK
        assert launch(f, env.s1, ((d, 4, 3.0), (None, ctypes.c_int, ctypes.c_float))) == OK
        out = np.zeros(4, dtype=np.float32)
        assert cu.cuMemcpyDtoH(out, d, out.nbytes) == OK
        assert out.tolist() == [0.0, 3.0, 6.0, 9.0]
    finally:
        simcuda._core.facade.KERNELS.pop("scale", None)


def test_kernel_node_params(env, recorded):
    """cuGraphAddKernelNode reads CUDA_KERNEL_NODE_PARAMS; the kernel runs on each launch of the exec."""
    p = cu.CUDA_KERNEL_NODE_PARAMS()
    p.func = env.kargs
    p.gridDimX = p.gridDimY = p.gridDimZ = p.blockDimX = p.blockDimY = p.blockDimZ = 1
    p.kernelParams = ((0, 1, 2.0), (ctypes.c_void_p, ctypes.c_int, ctypes.c_float))
    assert p.kernelParams != 0
    g = ok(cu.cuGraphCreate(0))
    n = ok(cu.cuGraphAddKernelNode(g, None, 0, p))
    assert ok(cu.cuGraphNodeGetType(n)) == cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL
    x = ok(cu.cuGraphInstantiate(g, 0))
    assert cu.cuGraphLaunch(x, env.s1) == OK and cu.cuGraphLaunch(x, env.s1) == OK
    assert recorded == [[0, 1, 2.0], [0, 1, 2.0]]


# ------------------------------------------------------------------ memory
def test_memset_and_memcpy_move_bytes(env):
    """Memsets and copies (sync, async, DtoD, 2D) move the right bytes."""
    d1 = ok(cu.cuMemAlloc(64))
    d2 = ok(cu.cuMemAlloc(64))
    assert cu.cuMemsetD8(d1, 0xAB, 8) == OK
    assert cu.cuMemsetD32Async(int(d1) + 8, 0x01020304, 2, env.s1) == OK
    assert cu.cuMemcpyDtoD(d2, d1, 16) == OK
    out = bytearray(16)
    assert cu.cuMemcpyDtoH(out, d2, 16) == OK
    assert bytes(out) == b"\xab" * 8 + bytes.fromhex("04030201") * 2
    src = bytes(range(16))
    assert cu.cuMemcpyHtoDAsync(d1, src, 16, env.s1) == OK
    assert cu.cuStreamSynchronize(env.s1) == OK
    p = cu.CUDA_MEMCPY2D()
    p.srcMemoryType, p.srcDevice, p.srcPitch = cu.CUmemorytype.CU_MEMORYTYPE_DEVICE, d1, 8
    p.dstMemoryType, p.dstHost, p.dstPitch = cu.CUmemorytype.CU_MEMORYTYPE_HOST, (out := bytearray(8)), 4
    p.WidthInBytes, p.Height = 4, 2
    assert cu.cuMemcpy2D(p) == OK
    assert bytes(out) == bytes([0, 1, 2, 3, 8, 9, 10, 11])
    with pytest.raises(OverflowError):
        cu.cuMemsetD8(d1, 300, 1)
    assert cu.cuMemsetD32(int(d1) + 1, 0, 1) == (R.CUDA_ERROR_INVALID_VALUE,)


def test_memcpy3d_and_memory_type_checks(env):
    """cuMemcpy3D copies slices; an unset memory type is INVALID_VALUE and arrays are NOT_SUPPORTED."""
    d = ok(cu.cuMemAlloc(64))
    src = bytes(range(16))
    p = cu.CUDA_MEMCPY3D()
    p.srcMemoryType, p.srcHost, p.srcPitch, p.srcHeight = 1, src, 4, 2
    p.dstMemoryType, p.dstDevice, p.dstPitch, p.dstHeight = 2, d, 4, 2
    p.WidthInBytes, p.Height, p.Depth = 4, 2, 2
    assert cu.cuMemcpy3D(p) == OK
    out = bytearray(16)
    assert cu.cuMemcpyDtoH(out, d, 16) == OK and bytes(out) == src
    q = cu.CUDA_MEMCPY3D()
    assert cu.cuMemcpy3D(q) == (R.CUDA_ERROR_INVALID_VALUE,)
    q.srcMemoryType, q.dstMemoryType = 3, 2
    assert cu.cuMemcpy3D(q) == (R.CUDA_ERROR_NOT_SUPPORTED,)


def test_captured_copy_reads_host_at_replay(env):
    """A captured HtoD copy reads the host buffer when the graph runs, not at capture (spec 3.10)."""
    d = ok(cu.cuMemAlloc(4))
    host = bytearray(b"aaaa")
    assert cu.cuStreamBeginCapture(env.s1, 0) == OK
    assert cu.cuMemcpyHtoDAsync(d, host, 4, env.s1) == OK
    g = ok(cu.cuStreamEndCapture(env.s1))
    host[:] = b"bbbb"
    x = ok(cu.cuGraphInstantiate(g, 0))
    assert cu.cuGraphLaunch(x, env.s1) == OK and cu.cuStreamSynchronize(env.s1) == OK
    out = bytearray(4)
    assert cu.cuMemcpyDtoH(out, d, 4) == OK and out == b"bbbb"


def test_memory_queries(env):
    """cuMemGetInfo, cuMemGetAddressRange, cuMemAllocPitch and host allocations give the real shapes."""
    # free is process-wide where the host budget is the smaller figure (spec 17): a driver of an earlier test that
    # the collector frees between the two calls would raise it, so the collector waits (test_vmm_faces: alone())
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        free, _total = ok(cu.cuMemGetInfo())
        d = ok(cu.cuMemAlloc(100))
        assert ok(cu.cuMemGetInfo())[0] == free - 100
    finally:
        if was_enabled:
            gc.enable()
    base, size = ok(cu.cuMemGetAddressRange(int(d) + 10))
    assert int(base) == int(d) and size == 100
    dp, pitch = ok(cu.cuMemAllocPitch(100, 3, 4))
    assert isinstance(dp, cu.CUdeviceptr) and pitch == 512
    h = ok(cu.cuMemAllocHost(32))
    assert isinstance(h, int) and cu.cuMemFreeHost(h) == OK
    assert cu.cuMemFree(d) == OK and cu.cuMemFree(d) == (R.CUDA_ERROR_INVALID_VALUE,)


# ------------------------------------------------------------------ host functions and callbacks
def test_host_func_captured_runs_on_each_replay(env):
    """A captured cuLaunchHostFunc (int address) runs once per launch of the exec (spec 3.9)."""
    calls = []
    thunk = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda p: calls.append(p))
    addr = ctypes.cast(thunk, ctypes.c_void_p).value
    assert cu.cuStreamBeginCapture(env.s1, 0) == OK
    assert cu.cuLaunchHostFunc(env.s1, addr, 0x40) == OK
    g = ok(cu.cuStreamEndCapture(env.s1))
    x = ok(cu.cuGraphInstantiate(g, 0))
    for _ in range(3):
        assert cu.cuGraphLaunch(x, env.s1) == OK
    assert calls == [0x40] * 3
    assert cu.cuLaunchHostFunc(env.s1, cu.CUhostFn(addr), None) == OK and len(calls) == 4


def test_stream_callback_gets_its_three_arguments(env):
    """cuStreamAddCallback calls a CUstreamCallback with (stream, status, userData) (core fix)."""
    got = []
    cb = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)(
        lambda s, st, ud: got.append((s, st, ud)))
    assert cu.cuStreamAddCallback(env.s1, ctypes.cast(cb, ctypes.c_void_p).value, 0x99, 0) == OK
    assert got == [(int(env.s1), 0, 0x99)]
    with pytest.raises(TypeError, match="an integer is required"):
        cu.cuStreamAddCallback(env.s1, print, None, 0)


# ------------------------------------------------------------------ graphs
def test_graph_get_nodes_count_only_and_padding(env):
    """GetNodes with n=0 only counts; a larger n pads with CUgraphNode(0) and returns the real count."""
    g = ok(cu.cuGraphCreate(0))
    a = ok(cu.cuGraphAddEmptyNode(g, None, 0))
    b = ok(cu.cuGraphAddEmptyNode(g, [a], 1))
    assert ok(cu.cuGraphGetNodes(g)) == ([], 2)
    nodes, n = ok(cu.cuGraphGetNodes(g, 4))
    assert nodes == [a, b, cu.CUgraphNode(0), cu.CUgraphNode(0)] and n == 2
    assert ok(cu.cuGraphGetNodes(g, 1)) == ([a], 1)
    assert ok(cu.cuGraphGetRootNodes(g, 2)) == ([a, cu.CUgraphNode(0)], 1)
    deps, eds, nd = ok(cu.cuGraphNodeGetDependencies(b, 1))
    assert deps == [a] and nd == 1 and eds[0].type == 0
    assert ok(cu.cuGraphNodeGetDependentNodes(a, 1))[0] == [b]
    assert ok(cu.cuGraphNodeGetContainingGraph(b)) == g


def test_graph_dependencies_and_child_graph(env):
    """AddDependencies/RemoveDependencies edit edges; a child graph node embeds a clone."""
    g = ok(cu.cuGraphCreate(0))
    a = ok(cu.cuGraphAddEmptyNode(g, None, 0))
    b = ok(cu.cuGraphAddEmptyNode(g, None, 0))
    assert cu.cuGraphAddDependencies(g, [a], [b], None, 1) == OK
    assert cu.cuGraphAddDependencies(g, [a], [b], None, 1) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert cu.cuGraphAddDependencies(g, [b], [a], None, 2) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert ok(cu.cuGraphGetEdges(g))[-1] == 1
    assert cu.cuGraphRemoveDependencies(g, [a], [b], None, 1) == OK
    assert ok(cu.cuGraphGetEdges(g))[-1] == 0
    parent = ok(cu.cuGraphCreate(0))
    c = ok(cu.cuGraphAddChildGraphNode(parent, None, 0, g))
    child = ok(cu.cuGraphChildGraphNodeGetGraph(c))
    assert child != g and ok(cu.cuGraphGetNodes(child))[1] == 2
    clone = ok(cu.cuGraphClone(parent))
    assert ok(cu.cuGraphGetNodes(clone))[1] == 1
    assert cu.cuGraphDestroyNode(a) == OK and ok(cu.cuGraphGetNodes(g))[1] == 1


def test_exec_update_info_slot(env):
    """cuGraphExecUpdate gives a result info on success and None (with 910) when a node was added (TOPOLOGY_CHANGED)."""
    g1 = ok(cu.cuGraphCreate(0))
    ok(cu.cuGraphAddEmptyNode(g1, None, 0))
    x = ok(cu.cuGraphInstantiate(g1, 0))
    g2 = ok(cu.cuGraphClone(g1))
    res, info = cu.cuGraphExecUpdate(x, g2)
    assert res == R.CUDA_SUCCESS and info.result == cu.CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_SUCCESS
    ok(cu.cuGraphAddEmptyNode(g2, None, 0))
    assert cu.cuGraphExecUpdate(x, g2) == (R.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, None)
    assert "TOPOLOGY_CHANGED" in simcuda.last_error().why  # counts differ, no memcpy node unpartnered (spec 17)


def test_instantiate_with_params_writes_result(env):
    """cuGraphInstantiateWithParams fills result_out; a capture target graph fails with ERROR."""
    g = ok(cu.cuGraphCreate(0))
    ok(cu.cuGraphAddEmptyNode(g, None, 0))
    p = cu.CUDA_GRAPH_INSTANTIATE_PARAMS()
    p.result_out = 3
    x = ok(cu.cuGraphInstantiateWithParams(g, p))
    assert isinstance(x, cu.CUgraphExec) and p.result_out == cu.CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_SUCCESS
    assert cu.cuStreamBeginCaptureToGraph(env.s1, g, None, None, 0, 0) == OK
    assert cu.cuGraphInstantiateWithParams(g, p) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert p.result_out == cu.CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_ERROR
    assert cu.cuStreamEndCapture(env.s1) == (R.CUDA_SUCCESS, g)


def test_debug_dot_print(env, tmp_path):
    """cuGraphDebugDotPrint takes a bytes path and writes DOT; a str path raises TypeError."""
    g = ok(cu.cuGraphCreate(0))
    ok(cu.cuGraphAddEmptyNode(g, None, 0))
    path = tmp_path / "g.dot"
    with pytest.raises(TypeError, match="expected bytes, str found"):
        cu.cuGraphDebugDotPrint(g, str(path), 0)
    assert cu.cuGraphDebugDotPrint(g, str(path).encode(), 0) == OK
    gid = ok(cu.cuGraphGetId(g))
    assert f"graph_{gid}" in path.read_text()
    assert cu.cuGraphDebugDotPrint(g, b"/nonexistent/dir/g.dot", 0) == (R.CUDA_ERROR_OPERATING_SYSTEM,)


# ------------------------------------------------------------------ contexts, devices, misc
def test_device_and_context_queries(env):
    """Device and context calls return the real wrapper types and shapes."""
    assert ok(cu.cuDriverGetVersion()) == 13050
    assert ok(cu.cuDeviceGetCount()) == 1
    name = ok(cu.cuDeviceGetName(64, 0))
    assert len(name) == 64 and name.split(b"\0")[0] == env.d.devices[0].spec.name.encode()
    assert ok(cu.cuDeviceComputeCapability(0)) == (8, 0)  # the A100-like default (DeviceSpec)
    assert ok(cu.cuCtxGetCurrent()) == env.ctx and int(ok(cu.cuCtxGetDevice())) == 0
    assert ok(cu.cuStreamGetCtx(env.s1)) == env.ctx
    assert ok(cu.cuStreamGetFlags(env.s1)) == 0
    assert cu.cuDeviceGet(5) == (R.CUDA_ERROR_INVALID_DEVICE, None)
    assert ok(cu.cuCtxPopCurrent()) == env.ctx and ok(cu.cuCtxGetCurrent()) == cu.CUcontext(0)
    assert cu.cuStreamCreate(0) == (R.CUDA_ERROR_INVALID_CONTEXT, None)
    assert cu.cuCtxPushCurrent(env.ctx) == OK
    pctx = ok(cu.cuDevicePrimaryCtxRetain(0))
    assert ok(cu.cuDevicePrimaryCtxGetState(0))[1] == 1 and pctx != env.ctx


def test_cig_context_and_capture_through_structs(env):
    """CUctxCreateParams.cigParams makes a CIG context; CUstreamCigCaptureParams begins a CIG capture."""
    cig = cu.CUctxCigParam()
    cig.sharedDataType = cu.CUcigDataType.CIG_DATA_TYPE_D3D12_COMMAND_QUEUE
    cig.sharedData = 0x1000
    p = cu.CUctxCreateParams()
    p.cigParams = [cig]
    ok(cu.cuCtxCreate(p, 0, 0))
    s = ok(cu.cuStreamCreate(1))
    sp = cu.CUstreamCigParam()
    sp.streamSharedDataType = cu.CUstreamCigDataType.STREAM_CIG_DATA_TYPE_D3D12_COMMAND_LIST
    sp.streamSharedData = 0x2000
    cp = cu.CUstreamCigCaptureParams()
    assert cu.cuStreamBeginCaptureToCig(s, cp) == (R.CUDA_ERROR_INVALID_VALUE,)   # NULL streamCigParams
    cp.streamCigParams = [sp]
    assert cu.cuStreamBeginCaptureToCig(s, cp) == OK
    assert cu.cuStreamEndCaptureToCig(s) == OK
    with pytest.raises(TypeError, match=re.escape("expected cuda.bindings.driver.CUctxCreateParams, got int")):
        cu.cuCtxCreate(5, 0, 0)


def test_error_names_and_strings(drv):
    """cuGetErrorName/String return bytes without cuInit; an unknown code is INVALID_VALUE."""
    assert cu.cuGetErrorName(R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) == (*OK, b"CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED")
    s = ok(cu.cuGetErrorString(900))
    assert isinstance(s, bytes) and b"capturing" in s
    assert cu.cuGetErrorName(12345) == (R.CUDA_ERROR_INVALID_VALUE, None)


def test_event_queries_and_not_ready():
    """With manual progression cuEventQuery gives (NOT_READY,) until the work runs (C-158)."""
    d = simcuda.Driver(progression="manual")
    old = simcuda.use(d)
    try:
        assert cu.cuInit(0) == OK
        ok(cu.cuCtxCreate(None, 0, 0))
        s = ok(cu.cuStreamCreate(0))
        e0, e1 = ok(cu.cuEventCreate(0)), ok(cu.cuEventCreate(0))
        dptr = ok(cu.cuMemAlloc(8))
        assert cu.cuEventRecord(e0, s) == OK
        assert cu.cuMemsetD8Async(dptr, 1, 8, s) == OK
        assert cu.cuEventRecord(e1, s) == OK
        assert cu.cuEventQuery(e1) == (R.CUDA_ERROR_NOT_READY,)
        assert cu.cuStreamQuery(s) == (R.CUDA_ERROR_NOT_READY,)
        assert cu.cuEventSynchronize(e1) == OK and cu.cuEventQuery(e1) == OK
        ms = ok(cu.cuEventElapsedTime(e0, e1))
        assert isinstance(ms, float) and ms > 0
    finally:
        simcuda.use(old)


def test_per_thread_mode_from_environment(monkeypatch):
    """The face fixes the default-stream mode from the variable when first needed (spec 6.1)."""
    monkeypatch.setenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", "yes")
    old = simcuda.use(simcuda.Driver())
    try:
        with pytest.raises(ValueError, match="invalid literal for int"):
            cu.cuInit(0)
        with pytest.raises(ValueError):
            cu.cuDriverGetVersion()
        monkeypatch.setenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", "1")
        assert cu.cuInit(0) == OK
        ok(cu.cuCtxCreate(None, 0, 0))
        assert cu.cuStreamBeginCapture(0, 0) == OK          # 0 names the per-thread stream
        assert ok(cu.cuStreamIsCapturing(cu.CU_STREAM_PER_THREAD)) == \
            cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
        assert cu.cuStreamEndCapture(0)[0] == R.CUDA_SUCCESS
        monkeypatch.setenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", "0")
        simcuda.use(simcuda.Driver())
        assert cu.cuInit(0) == OK
        ok(cu.cuCtxCreate(None, 0, 0))
        assert cu.cuStreamBeginCapture(0, 0) == (R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,)
    finally:
        simcuda.use(old)


def test_launch_kernel_ex_and_cooperative(env, recorded):
    """cuLaunchKernelEx reads CUlaunchConfig; unsupported attributes are NOT_SUPPORTED."""
    c = cu.CUlaunchConfig()
    c.gridDimX = c.gridDimY = c.gridDimZ = c.blockDimX = c.blockDimY = c.blockDimZ = 1
    c.hStream = env.s1
    kp = ((0, 1, 1.0), (ctypes.c_void_p, ctypes.c_int, ctypes.c_float))
    assert cu.cuLaunchKernelEx(c, env.kargs, kp, 0) == OK
    assert cu.cuLaunchCooperativeKernel(env.kargs, 1, 1, 1, 1, 1, 1, 0, env.s1, kp) == OK
    a = cu.CUlaunchAttribute()
    a.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW
    c.attrs = [a]
    c.numAttrs = 1
    assert cu.cuLaunchKernelEx(c, env.kargs, kp, 0) == (R.CUDA_ERROR_NOT_SUPPORTED,)
    assert len(recorded) == 2
    a.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION  # the 8.0 default has no clusters (attr 120)
    c.attrs = [a]
    assert cu.cuLaunchKernelEx(c, env.kargs, kp, 0) == (R.CUDA_ERROR_NOT_SUPPORTED,)
    assert len(recorded) == 2


def test_supported_api_page_is_up_to_date():
    """docs/supported-api.md is what tools/gen_supported_api.py writes from the faces now."""
    import importlib.util
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("gen_supported_api", root / "tools" / "gen_supported_api.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    assert (root / "docs" / "supported-api.md").read_text(encoding="utf-8") == gen.render()
