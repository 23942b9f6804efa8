"""StreamCapture of the oxicuda-style face, checked against the simulated driver's own view."""
from __future__ import annotations

import threading

import pytest

import simcuda
from simcuda._core.capture import capture_rules as core_cap
from simcuda.faces.oxicuda.stream_capture import CudaError, Graph, GraphNode, MemcpyDirection, Stream, StreamCapture


def test_oxicuda_doc_example(drv):
    """The oxicuda doc example records a kernel and a copy and ends with a 2-node graph."""
    stream = Stream.new()
    capture = StreamCapture.begin(stream)
    capture.record_kernel("my_kernel", (4, 1, 1), (256, 1, 1), 0)
    capture.record_memcpy(MemcpyDirection.DeviceToHost, 1024)
    graph = capture.end()
    assert graph.node_count() == 2
    assert graph.dependencies() == [(0, 1)]
    assert graph.nodes() == [GraphNode.KernelLaunch("my_kernel", (4, 1, 1), (256, 1, 1), 0),
                             GraphNode.Memcpy(MemcpyDirection.DeviceToHost, 1024)]


def test_doc_example_is_a_real_capture_on_the_driver(drv):
    """begin/end really capture: the driver's graph has a KERNEL then a MEMCPY node and one edge."""
    stream = Stream.new()
    capture = StreamCapture.begin(stream)
    assert drv.stream_is_capturing(stream.raw()) == core_cap.ACTIVE
    assert drv.capture_info(stream.raw())["mode"] == "GLOBAL"
    capture.record_kernel("my_kernel", (4, 1, 1), (256, 1, 1), 0)
    capture.record_memcpy(MemcpyDirection.DeviceToHost, 1024)
    graph = capture.end()
    assert drv.stream_is_capturing(stream.raw()) == core_cap.NONE
    h = graph.cu_graph
    assert drv.graphs_from_captures()[-1].handle == h
    nodes = drv.graph_get_nodes(h)
    assert len(nodes) == 2
    assert [drv.graph_node_get_type(n) for n in nodes] == [0, 1]  # KERNEL, MEMCPY
    assert drv.graph_get_edges(h) == [(nodes[0], nodes[1], (0, 0, 0))]
    assert drv.launch_log == []  # captured work does not run


def test_recorded_count_and_is_active(drv):
    """recorded_count counts each record; is_active is true until end."""
    cap = StreamCapture.begin(Stream.new())
    assert cap.is_active() and cap.recorded_count() == 0
    cap.record_memset(64, 0xAB)
    cap.record_kernel("k", (1, 1, 1), (32, 1, 1), 128)
    cap.record_memcpy(MemcpyDirection.HostToDevice, 64)
    cap.record_memcpy(MemcpyDirection.DeviceToDevice, 64)
    assert cap.recorded_count() == 4
    g = cap.end()
    assert not cap.is_active()
    assert str(g) == "Graph(4 nodes, 3 deps)"
    assert g.dependencies() == [(0, 1), (1, 2), (2, 3)]
    assert [drv.graph_node_get_type(n) for n in drv.graph_get_nodes(g.cu_graph)] == [2, 0, 1, 1]


def test_begin_accepts_an_int_stream_handle(drv):
    """begin accepts a raw stream handle of the current driver."""
    h = Stream.new().raw()
    cap = StreamCapture.begin(h)
    cap.record_memset(4, 1)
    assert cap.end().node_count() == 1


def test_begin_on_unavailable_driver_is_not_initialized():
    """With Driver(available=False), begin raises NotInitialized carrying the driver's why."""
    simcuda.use(simcuda.Driver(available=False))
    with pytest.raises(CudaError) as ei:
        StreamCapture.begin(Stream(0x5A5A_0000_1040))
    assert ei.value == CudaError.NotInitialized
    assert ei.value.as_raw() == 3
    assert "available=False" in ei.value.why


def test_stream_new_on_unavailable_driver_is_not_initialized():
    """Stream.new, like every oxicuda constructor, raises NotInitialized without a driver."""
    simcuda.use(simcuda.Driver(available=False))
    with pytest.raises(CudaError.NotInitialized):
        Stream.new()


def test_double_end_is_stream_capture_unmatched(drv):
    """A second end() raises StreamCaptureUnmatched and does not touch the driver."""
    stream = Stream.new()
    cap = StreamCapture.begin(stream)
    cap.end()
    errors_before = len(drv.error_log)
    with pytest.raises(CudaError) as ei:
        cap.end()
    assert ei.value == CudaError.StreamCaptureUnmatched
    assert ei.value.as_raw() == 903
    assert len(drv.error_log) == errors_before


def test_record_after_end_is_ignored(drv):
    """Records after end are silently ignored, as in oxicuda, and reach no stream."""
    stream = Stream.new()
    cap = StreamCapture.begin(stream)
    cap.end()
    cap.record_kernel("k", (1, 1, 1), (1, 1, 1), 0)
    cap.record_memcpy(MemcpyDirection.HostToDevice, 16)
    cap.record_memset(16, 0)
    assert cap.recorded_count() == 0
    assert drv.launch_log == []


def test_record_type_errors_are_checked_even_after_end(drv):
    """Arguments Rust's types would reject raise TypeError/OverflowError and record nothing."""
    cap = StreamCapture.begin(Stream.new())
    with pytest.raises(TypeError):
        cap.record_kernel("k", (1, 1), (1, 1, 1), 0)
    with pytest.raises(OverflowError):
        cap.record_memset(16, 256)
    with pytest.raises(TypeError):
        cap.record_memcpy("DtoH", 16)
    with pytest.raises(OverflowError):
        cap.record_memcpy(MemcpyDirection.DeviceToHost, -1)
    assert cap.recorded_count() == 0
    cap.end()
    with pytest.raises(TypeError):
        cap.record_kernel(7, (1, 1, 1), (1, 1, 1), 0)


def test_rejected_launch_raises_and_records_nothing(drv):
    """A launch the driver rejects (zero grid) raises InvalidValue and is neither recorded nor captured."""
    cap = StreamCapture.begin(Stream.new())
    with pytest.raises(CudaError.InvalidValue) as ei:
        cap.record_kernel("k", (0, 1, 1), (1, 1, 1), 0)
    assert "zero" in ei.value.why
    assert cap.recorded_count() == 0
    g = cap.end()
    assert g.node_count() == 0 and drv.graph_get_nodes(g.cu_graph) == []


def test_kernel_name_that_is_not_an_identifier_is_not_found(drv):
    """A kernel name that no PTX entry can have raises NotFound and leaves the capture usable."""
    cap = StreamCapture.begin(Stream.new())
    with pytest.raises(CudaError.NotFound):
        cap.record_kernel("not a name", (1, 1, 1), (1, 1, 1), 0)
    cap.record_kernel("ok_name", (1, 1, 1), (1, 1, 1), 0)
    assert cap.end().node_count() == 1


def test_begin_twice_on_a_stream_is_illegal_state(drv):
    """Beginning a second capture on a capturing stream raises IllegalState; the first goes on."""
    stream = Stream.new()
    cap = StreamCapture.begin(stream)
    with pytest.raises(CudaError.IllegalState):
        StreamCapture.begin(stream)
    cap.record_memset(4, 0)
    assert cap.end().node_count() == 1


def test_invalidated_capture_reports_invalidated_and_ends(drv):
    """Synchronising the capturing stream invalidates it; records then end raise StreamCaptureInvalidated."""
    stream = Stream.new()
    cap = StreamCapture.begin(stream)
    with pytest.raises(CudaError.StreamCaptureUnsupported):
        stream.synchronize()
    with pytest.raises(CudaError.StreamCaptureInvalidated):
        cap.record_memset(4, 0)
    assert cap.is_active()
    with pytest.raises(CudaError.StreamCaptureInvalidated):
        cap.end()
    assert not cap.is_active()
    assert drv.stream_is_capturing(stream.raw()) == core_cap.NONE


def test_end_from_another_thread_is_wrong_thread_and_stays_active(drv):
    """Ending the GLOBAL capture from another thread raises StreamCaptureWrongThread; the begin thread must end it."""
    cap = StreamCapture.begin(Stream.new())
    out = {}

    def other() -> None:
        try:
            cap.end()
        except CudaError as e:
            out["e"] = e
    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert out["e"] == CudaError.StreamCaptureWrongThread
    assert cap.is_active()
    with pytest.raises(CudaError.StreamCaptureInvalidated):
        cap.end()
    assert not cap.is_active()


def test_context_manager_ends_and_keeps_graph(drv):
    """The with block ends the capture on exit and leaves the graph in cap.graph."""
    stream = Stream.new()
    with StreamCapture.begin(stream) as cap:
        cap.record_memset(32, 7)
        cap.record_kernel("k", (2, 1, 1), (64, 1, 1), 0)
    assert not cap.is_active()
    assert isinstance(cap.graph, Graph) and str(cap.graph) == "Graph(2 nodes, 1 deps)"
    assert drv.stream_is_capturing(stream.raw()) == core_cap.NONE


def test_context_manager_after_explicit_end_does_not_end_again(drv):
    """Calling end() inside the with block is fine; the exit does not raise StreamCaptureUnmatched."""
    with StreamCapture.begin(Stream.new()) as cap:
        g = cap.end()
    assert cap.graph is g


def test_context_manager_discards_on_exception(drv):
    """An exception inside the with block ends the capture, discards its graph and propagates."""
    stream = Stream.new()
    live_before = len(drv.all_graphs())
    with pytest.raises(KeyError), StreamCapture.begin(stream) as cap:
        cap.record_memset(8, 1)
        raise KeyError("boom")
    assert not cap.is_active()
    assert cap.graph is None
    assert drv.stream_is_capturing(stream.raw()) == core_cap.NONE
    assert len(drv.all_graphs()) == live_before
    with StreamCapture.begin(stream) as again:  # the stream is usable again
        again.record_memset(8, 1)
    assert again.graph.node_count() == 1


def test_context_manager_propagates_original_error_when_capture_was_invalidated(drv):
    """If the capture was invalidated, the with block still re-raises the user's exception, not 901."""
    stream = Stream.new()
    with pytest.raises(CudaError.StreamCaptureUnsupported), StreamCapture.begin(stream):
        stream.synchronize()
    assert drv.stream_is_capturing(stream.raw()) == core_cap.NONE


def test_scratch_set_up_during_capture_does_not_break_global_rules(drv):
    """Scratch allocation during a GLOBAL capture leaves the thread's capture mode and context as they were."""
    stream = Stream.new()
    ctx_before = drv.ctx_get_current()
    cap = StreamCapture.begin(stream)
    cap.record_memcpy(MemcpyDirection.HostToDevice, 123)
    assert drv.ctx_get_current() == ctx_before
    assert drv.thread_exchange_stream_capture_mode(0) == 0  # still GLOBAL
    with pytest.raises(simcuda.DriverError):
        drv.ctx_push_current(stream.context_handle())
        try:
            drv.mem_alloc(16)  # a potentially unsafe call is still refused during the GLOBAL capture
        finally:
            drv.ctx_pop_current()
    with pytest.raises(CudaError.StreamCaptureInvalidated):
        cap.end()


def test_repr_of_capture(drv):
    """The recorder's repr names the stream, its state and the count."""
    stream = Stream.new()
    cap = StreamCapture.begin(stream)
    assert repr(cap) == f"<StreamCapture on stream 0x{stream.raw():x}, active, 0 recorded>"
    cap.end()
    assert "ended" in repr(cap)


def test_streamcapture_cannot_be_constructed_directly():
    """StreamCapture() and GraphExec() are made only by begin() and instantiate()."""
    from simcuda.faces.oxicuda.stream_capture import GraphExec
    with pytest.raises(TypeError):
        StreamCapture()
    with pytest.raises(TypeError):
        GraphExec()


def test_lazy_exports_from_simcuda_package():
    """simcuda exports the oxicuda-style names lazily from simcuda.faces.oxicuda.stream_capture."""
    import simcuda.faces.oxicuda.stream_capture as face
    for name in ("StreamCapture", "Graph", "GraphExec", "GraphNode", "MemcpyDirection", "CudaError"):
        assert getattr(simcuda, name) is getattr(face, name)
