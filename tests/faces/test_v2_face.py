"""The ``cuda.bindings._v2.driver``-style face: int handles, typed exceptions and return types (spec 11.2)."""
from __future__ import annotations

import ctypes
import pickle

import pytest

import simcuda
from simcuda._generated.driver_outputs import V2_FUNCTIONS
from simcuda._generated.v2_enums import V2_EXCEPTIONS
from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings._v2 import driver as v2

np = pytest.importorskip("numpy")

PTX = b'extern "C" __global__ void k() {}'


@pytest.fixture
def drv(drv):
    """The shared fresh driver (tests/faces/conftest.py), initialised, with a current context."""
    v2.init(0)
    v2.ctx_create_v4(None, 0, 0)
    return drv


@pytest.fixture
def env(drv):
    """Two blocking streams, an event and a kernel handle ``k``."""
    class E:
        pass
    e = E()
    e.d = drv
    e.s1, e.s2 = v2.stream_create(0), v2.stream_create(0)
    e.ev = v2.event_create(0)
    e.k = v2.module_get_function(v2.module_load_data(PTX), b"k")
    return e


def k(env, s):
    v2.launch_kernel(env.k, 1, 1, 1, 1, 1, 1, 0, s, None, 0)


def test_every_real_v2_function_exists():
    """Every function of the real _v2 module exists here (implemented or raising NotSupportedError)."""
    real = pytest.importorskip("cuda.bindings._v2.driver")
    names = [n for n in dir(real) if not n.startswith("_") and callable(getattr(real, n))
             and not isinstance(getattr(real, n), type) and "_dtype" not in n]
    assert [n for n in names if not hasattr(v2, n)] == []
    assert set(V2_FUNCTIONS) <= set(dir(v2))


def test_exception_classes_match_the_table():
    """Every V2_EXCEPTIONS class exists, derives directly from DriverError, and maps its code."""
    assert v2.DriverError.__bases__ == (Exception,)
    for name, code in V2_EXCEPTIONS:
        cls = getattr(v2, name)
        if code is None:
            assert cls is v2.DriverError
            continue
        assert cls.__bases__ == (v2.DriverError,)
        err = cls(code)
        assert err.status == code and err.args[0].endswith(f" ({code})") and err.args[0].startswith("ERROR_")


def test_exception_text_and_pickle_match_real():
    """args[0], status and __reduce__ are those of the real classes; unknown codes say 'Unknown error'."""
    real = pytest.importorskip("cuda.bindings._v2.driver")
    for cls_name, code in [("StreamCaptureUnmatchedError", 903), ("NotReadyError", 600),
                           ("DriverTimeoutError", 909), ("LossyQueryError", 402)]:
        ours, theirs = getattr(v2, cls_name)(code), getattr(real, cls_name)(code)
        assert ours.args == theirs.args and ours.status == theirs.status
        assert type(pickle.loads(pickle.dumps(ours))) is type(ours)
        assert ours.__reduce__() == (type(ours), (code,))
    assert v2.DriverError(12345).args == real.DriverError(12345).args == ("Unknown error (12345)",)


def test_c157_typed_exception_from_end_capture_on_member(env):
    """C-157: ending on a forked member raises StreamCaptureUnmatchedError (903) and invalidates."""
    assert v2.stream_begin_capture_v2(env.s1, 0) is None
    v2.event_record(env.ev, env.s1)
    v2.stream_wait_event(env.s2, env.ev, 0)
    with pytest.raises(v2.StreamCaptureUnmatchedError) as err:
        v2.stream_end_capture(env.s2)
    assert isinstance(err.value, v2.DriverError) and err.value.status == 903
    assert err.value.args[0] == "ERROR_STREAM_CAPTURE_UNMATCHED (903)"
    assert v2.stream_is_capturing(env.s1) == v2.StreamCaptureStatus.INVALIDATED
    with pytest.raises(v2.StreamCaptureInvalidatedError):
        v2.stream_end_capture(env.s1)
    assert v2.stream_is_capturing(env.s1) == 0


def test_c158_not_ready_raises():
    """C-158: event_query on pending work raises NotReadyError(600); the classic face returns the code."""
    d = simcuda.Driver(progression="manual")
    old = simcuda.use(d)
    try:
        v2.init(0)
        v2.ctx_create_v4(None, 0, 0)
        s, e = v2.stream_create(0), v2.event_create(0)
        p = v2.mem_alloc_v2(16)
        v2.memset_d8_async(p, 7, 16, s)
        v2.event_record(e, s)
        with pytest.raises(v2.NotReadyError) as err:
            v2.event_query(e)
        assert err.value.status == 600
        assert cu.cuEventQuery(e) == (cu.CUresult.CUDA_ERROR_NOT_READY,)
        with pytest.raises(v2.NotReadyError):
            v2.stream_query(s)
        v2.event_synchronize(e)
        assert v2.event_query(e) is None
    finally:
        simcuda.use(old)


def test_c159_return_types(env):
    """C-159: plain ints for status and modes, numpy arrays from capture info, TypeError for wrappers."""
    v2.stream_begin_capture_v2(env.s1, 0)
    k(env, env.s1)
    st = v2.stream_is_capturing(env.s1)
    assert type(st) is int and st == 1
    prev = v2.thread_exchange_stream_capture_mode(2)
    assert type(prev) is int and prev == 0
    assert v2.thread_exchange_stream_capture_mode(0) == 2
    status, cid, g, deps, eds = v2.stream_get_capture_info_v3(env.s1)
    assert (status, type(cid), type(g)) == (1, int, int) and cid >= 1
    assert deps.dtype == np.int64 and len(deps) == 1
    assert eds.dtype.names == ("from_port", "to_port", "type", "reserved")
    assert eds.dtype["reserved"].shape == (5,) and eds.dtype.itemsize == 8 and eds["type"].tolist() == [0]
    s4 = v2.stream_get_capture_info_v2(env.s1)
    assert len(s4) == 4 and s4[3].tolist() == deps.tolist()
    with pytest.raises(TypeError, match="an integer is required"):
        v2.stream_is_capturing(cu.CUstream(env.s1))
    with pytest.raises(TypeError, match="an integer is required"):
        v2.stream_query("x")
    graph = v2.stream_end_capture(env.s1)
    assert graph == g and type(graph) is int


def test_c110_lossy_query(env):
    """C-110: capture info without edge data raises LossyQueryError(402); the classic call keeps the data."""
    v2.stream_begin_capture_v2(env.s1, 0)
    k(env, env.s1)
    a = int(v2.stream_get_capture_info_v3(env.s1)[3][0])
    ed = v2.GraphEdgeData()
    ed.from_port = 1
    ed.type = 1
    v2.stream_update_capture_dependencies_v2(env.s1, [a], ed, 1, 1)
    with pytest.raises(v2.LossyQueryError) as err:
        v2.stream_get_capture_info_v2(env.s1)
    assert err.value.status == 402
    res = cu.cuStreamGetCaptureInfo(env.s1)
    assert res[0] == cu.CUresult.CUDA_SUCCESS and res[5][0].type == 1
    assert v2.stream_get_capture_info_v3(env.s1)[4]["from_port"].tolist() == [1]
    with pytest.raises(v2.StreamCaptureUnjoinedError):   # C-170: a programmatic half-edge left on the origin
        v2.stream_end_capture(env.s1)


def test_update_dependencies_accepts_addresses(env):
    """Dependencies may be an int address of int64 handles; a count past a sequence is INVALID_VALUE."""
    v2.stream_begin_capture_v2(env.s1, 0)
    k(env, env.s1)
    a = int(v2.stream_get_capture_info_v3(env.s1)[3][0])
    g = v2.stream_get_capture_info_v3(env.s1)[2]
    b = v2.graph_add_empty_node(g, 0, 0)
    arr = (ctypes.c_int64 * 2)(a, b)
    v2.stream_update_capture_dependencies_v2(env.s1, ctypes.addressof(arr), 0, 2, 1)
    assert v2.stream_get_capture_info_v3(env.s1)[3].tolist() == [a, b]
    with pytest.raises(v2.InvalidValueError):
        v2.stream_update_capture_dependencies_v2(env.s1, [a], None, 3, 1)
    assert v2.stream_get_capture_info_v3(env.s1)[3].tolist() == [a, b]
    v2.stream_end_capture(env.s1)


def test_graph_queries_return_memoryviews(env):
    """graph_get_nodes gives an int64 memoryview; graph_get_edges_v2 two memoryviews and edge data."""
    v2.stream_begin_capture_v2(env.s1, 0)
    k(env, env.s1)
    k(env, env.s1)
    g = v2.stream_end_capture(env.s1)
    nodes = v2.graph_get_nodes(g)
    assert isinstance(nodes, memoryview) and nodes.format == "q" and len(nodes) == 2
    assert v2.graph_node_get_type(nodes[0]) == v2.GraphNodeType.KERNEL
    frm, to, eds = v2.graph_get_edges_v2(g)
    assert list(frm) == [nodes[0]] and list(to) == [nodes[1]] and len(eds) == 1
    assert eds.type.tolist() == [0] and eds.ptr != 0
    x = v2.graph_instantiate_with_flags(g, 0)
    v2.graph_launch(x, env.s1)
    v2.stream_synchronize(env.s1)
    assert [r.source for r in env.d.launch_log].count("graph") == 2


def test_graph_exec_update_raises(env):
    """graph_exec_update_v2 returns the result info, or raises GraphExecUpdateFailureError (910)."""
    g = v2.graph_create(0)
    v2.graph_add_empty_node(g, 0, 0)
    x = v2.graph_instantiate_with_flags(g, 0)
    g2 = v2.graph_clone(g)
    assert v2.graph_exec_update_v2(x, g2).result == 0
    v2.graph_add_empty_node(g2, 0, 0)
    with pytest.raises(v2.GraphExecUpdateFailureError) as err:
        v2.graph_exec_update_v2(x, g2)
    # created counts differ and the unpartnered node is no memcpy node (spec 17)
    assert err.value.status == 910 and "TOPOLOGY_CHANGED" in err.value.why


def test_cig_struct_helpers(drv):
    """CtxCreateParams/CtxCigParam and StreamCigCaptureParams/StreamCigParam work through their .ptr."""
    cig = v2.CtxCigParam()
    cig.shared_data_type = v2.CigDataType.NV_BLOB
    cig.shared_data = 0x1000
    p = v2.CtxCreateParams()
    p.cig_params = cig.ptr
    assert p.cig_params == cig.ptr
    ctx = v2.ctx_create_v4(p.ptr, 0, 0)
    assert v2.ctx_get_current() == ctx
    s = v2.stream_create(1)
    sp = v2.StreamCigParam()
    sp.stream_shared_data_type = v2.StreamCigDataType.VULKAN_COMMAND_BUFFER_HANDLE_NV
    sp.stream_shared_data = 0x2000
    cp = v2.StreamCigCaptureParams()
    with pytest.raises(v2.InvalidValueError):
        v2.stream_begin_capture_to_cig(s, cp)          # stream_cig_params is NULL (spec 8.2 row 1)
    cp.stream_cig_params = sp.ptr
    v2.stream_begin_capture_to_cig(s, cp.ptr)
    v2.stream_end_capture_to_cig(s)
    with pytest.raises(v2.InvalidValueError):
        v2.stream_end_capture_to_cig(s)


def test_begin_capture_to_graph_with_edge_data(env):
    """stream_begin_capture_to_graph takes int handles and GraphEdgeData; end returns the same graph."""
    g = v2.graph_create(0)
    a = v2.graph_add_empty_node(g, 0, 0)
    v2.stream_begin_capture_to_graph(env.s1, g, [a], None, 1, 0)
    k(env, env.s1)
    assert v2.stream_end_capture(env.s1) == g
    assert len(v2.graph_get_nodes(g)) == 2


def test_memory_and_errors(env):
    """mem_alloc_v2/memcpy/memset move bytes; get_error_name gives str; stubs raise NotSupportedError."""
    p = v2.mem_alloc_v2(8)
    v2.memcpy_htod_v2(p, b"abcdefgh", 8)
    v2.memset_d8_v2(p, 0x7A, 2)
    out = bytearray(8)
    v2.memcpy_dtoh_v2(out, p, 8)
    assert out == b"zzcdefgh"
    v2.mem_free_v2(p)
    with pytest.raises(v2.InvalidValueError):
        v2.mem_free_v2(p)
    assert v2.get_error_name(900) == "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"
    with pytest.raises(v2.InvalidValueError):
        v2.get_error_name(12345)
    with pytest.raises(v2.NotSupportedError) as err:
        v2.array_create_v2(0)
    assert err.value.status == 801 and "not simulated" in err.value.why


def test_unsafe_call_during_capture_raises_900(env):
    """mem_alloc_v2 during a GLOBAL capture raises StreamCaptureUnsupportedError and invalidates (spec 5.2)."""
    v2.stream_begin_capture_v2(env.s1, 0)
    with pytest.raises(v2.StreamCaptureUnsupportedError):
        v2.mem_alloc_v2(16)
    assert v2.stream_is_capturing(env.s1) == 2
