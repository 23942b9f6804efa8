"""CIG capture in the core (spec 8): what a CIG stream records and refuses. Section I has its own issue;
these tests cover the rules the core already applies."""
import ctypes

import pytest

from simcuda import Driver, DriverError

PTX = b".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{ ret; }\n"


@pytest.fixture
def cig():
    d = Driver()
    d.init(0)
    d.ctx_create(0, 0, cig=(1, 0x1000))  # D3D12 command queue
    s = d.stream_create(0)
    f = d.module_get_function(d.module_load_data(PTX), "k")
    return d, s, f


def code(fn, *a):
    with pytest.raises(DriverError) as ei:
        fn(*a)
    return int(ei.value.code)


@pytest.mark.inferred
def test_cig_stream_records_work_and_refuses_forbidden_calls(cig):
    """A CIG stream records kernels in order, refuses host functions (801) and sync (900), and goes on (C-125/126)."""
    d, s, f = cig
    d.stream_begin_capture_to_cig(s, 1, 0x2000)
    d.launch_kernel(f, (1, 1, 1), (1, 1, 1), 0, s, [])
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda _p: None)
    assert code(d.launch_host_func, s, ctypes.cast(fn, ctypes.c_void_p).value, None) == 801
    assert code(d.stream_synchronize, s) == 900
    assert code(d.stream_begin_capture, s, 0) == 900
    assert d.stream_is_capturing(s) == 0
    assert [k for k, _ in d.stream_end_capture_to_cig(s)] == ["kernel"]
    d.stream_synchronize(s)


@pytest.mark.inferred
def test_graph_with_host_node_launched_on_cig_stream_is_900(cig):
    """cuGraphLaunch of a graph holding a HOST node onto a CIG stream is 900 and the CIG capture goes on (C-127)."""
    d, s, _f = cig
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda _p: None)
    g = d.graph_create(0)
    d.graph_add_host_node(g, [], ctypes.cast(fn, ctypes.c_void_p).value, None)
    x = d.graph_instantiate(g, 0)
    d.stream_begin_capture_to_cig(s, 1, 0x2000)
    assert code(d.graph_launch, x, s) == 900
    assert d.cig_ops(s) == []
    d.stream_end_capture_to_cig(s)
