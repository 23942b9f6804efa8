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


def test_cig_begin_rows_in_order(cig):
    """cuStreamBeginCaptureToCig refuses, in spec 8.2's order: NULL params (1), the legacy stream (1), a
    non-CIG context's stream (201), a device without CIG streams (801), a data type not the context's (1), a
    stream already in CIG capture or graph capture (1); nothing is begun by a refusal."""
    d, s, _ = cig
    assert code(d.stream_begin_capture_to_cig, s, None, 0x2000) == 1
    assert code(d.stream_begin_capture_to_cig, 0, 1, 0x2000) == 1
    assert code(d.stream_begin_capture_to_cig, s, 2, 0x2000) == 1  # Vulkan list on a D3D12 context
    assert code(d.stream_begin_capture_to_cig, s, 7, 0x2000) == 1
    assert d._stream(s).cig is None
    d.stream_begin_capture(s, 0)
    assert code(d.stream_begin_capture_to_cig, s, 1, 0x2000) == 1
    d.stream_end_capture(s)
    d.stream_begin_capture_to_cig(s, 1, 0x2000)
    assert code(d.stream_begin_capture_to_cig, s, 1, 0x2000) == 1
    assert d._stream(s).cig.data == 0x2000
    plain = Driver()
    plain.init(0)
    plain.ctx_create(0, 0)
    assert code(plain.stream_begin_capture_to_cig, plain.stream_create(0), 1, 0x2000) == 201


def test_cig_begin_on_a_device_without_cig_streams_is_not_supported():
    """A device whose CIG stream attribute for the data type is off answers 801 and begins nothing (8.2 row 4)."""
    from simcuda import DeviceSpec
    d = Driver(devices=[DeviceSpec(cig_d3d12_streams=False)])
    d.init(0)
    d.ctx_create(0, 0, cig=(1, 0x1000))
    s = d.stream_create(0)
    assert code(d.stream_begin_capture_to_cig, s, 1, 0x2000) == 801
    assert d._stream(s).cig is None


def test_cig_end_rules(cig):
    """cuStreamEndCaptureToCig on a stream not in CIG capture is 1; from another thread 908 and the capture goes
    on; with Options(cig_end_any_thread=True) another thread may end it."""
    import threading
    d, s, _ = cig
    assert code(d.stream_end_capture_to_cig, s) == 1
    d.stream_begin_capture_to_cig(s, 1, 0x2000)
    out: dict = {}

    def other() -> None:
        try:
            d.ctx_set_current(d._stream(s).ctx.handle)
            d.stream_end_capture_to_cig(s)
        except DriverError as e:
            out["code"] = int(e.code)
    t = threading.Thread(target=other, daemon=True)
    t.start()
    t.join(10)
    assert out == {"code": 908} and d._stream(s).cig is not None
    assert d.stream_end_capture_to_cig(s) == []
    assert d._stream(s).cig is None


def test_cig_end_from_any_thread_when_the_option_allows_it():
    """Options(cig_end_any_thread=True): another thread ends the CIG capture and gets the recorded list."""
    import threading

    from simcuda import Options
    d = Driver(options=Options(cig_end_any_thread=True))
    d.init(0)
    ctx = d.ctx_create(0, 0, cig=(1, 0x1000))
    s = d.stream_create(0)
    d.stream_begin_capture_to_cig(s, 1, 0x2000)
    out: dict = {}

    def other() -> None:
        d.ctx_set_current(ctx)
        out["ops"] = d.stream_end_capture_to_cig(s)
    t = threading.Thread(target=other, daemon=True)
    t.start()
    t.join(10)
    assert out == {"ops": []} and d._stream(s).cig is None
