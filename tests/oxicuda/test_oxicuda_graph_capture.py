"""StreamGraphCapture and GraphExec.is_driver_backed of the oxicuda-style face (oxicuda-driver 0.5's graph
module), checked against the simulated driver's own view."""
from __future__ import annotations

import gc
import threading

import pytest

import simcuda
from simcuda._core.capture import capture_rules as core_cap
from simcuda._generated.driver_enums import CUstreamCaptureMode, CUstreamCaptureStatus
from simcuda.faces.oxicuda.stream_capture import CudaError, Graph, GraphExec, Stream, StreamGraphCapture

GLOBAL = CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL


def _buffer(drv, n=64):
    """A device allocation of ``n`` bytes in device 0's primary context (made current)."""
    drv.ctx_set_current(drv.device_primary_ctx_retain(0))
    return drv.mem_alloc(n)


def test_begin_capture_work_end_launch(drv):
    """Work submitted between begin and end is captured, not run; the exec replays it at launch."""
    stream = Stream.new()
    p = _buffer(drv)
    cap = StreamGraphCapture.begin(stream, GLOBAL)
    assert cap.is_active()
    assert cap.capture_status() == CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    drv.memset(_memset(drv, p, 0x5A, 64), stream.raw(), "cuMemsetD8Async")
    assert bytes(drv.memory.device_view(p, 64)) == bytes(64)  # captured, not run
    x = cap.end()
    assert not cap.is_active()
    assert drv.stream_is_capturing(stream.raw()) == core_cap.NONE
    assert isinstance(x, GraphExec) and x.is_driver_backed()
    assert x.node_count() == 1 and x.execution_order() == [0]
    assert repr(x).endswith("driver_backed: true }")
    x.launch(stream)
    stream.synchronize()
    assert bytes(drv.memory.device_view(p, 64)) == b"\x5a" * 64


def _memset(drv, p, value, n):
    """A core memset record of ``n`` bytes at ``p``."""
    from simcuda._core.memory.memory_model import MemsetParams
    return MemsetParams(dst=p, pitch=n, value=value, element_size=1, width=n, height=1)


def test_capture_status_none_after_end_and_modes(drv):
    """capture_status follows cuStreamIsCapturing; THREAD_LOCAL and RELAXED modes begin captures too."""
    stream = Stream.new()
    for mode in (CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, 2):
        cap = StreamGraphCapture.begin(stream, mode)
        assert drv.capture_info(stream.raw())["mode"] == ("THREAD_LOCAL" if mode == 1 else "RELAXED")
        x = cap.end()
        assert cap.capture_status() == CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE
        assert x.node_count() == 0


def test_begin_errors(drv):
    """A bad mode is InvalidValue, the legacy stream StreamCaptureUnsupported, a second begin IllegalState."""
    stream = Stream.new()
    with pytest.raises(CudaError.InvalidValue):
        StreamGraphCapture.begin(stream, 7)
    drv.ctx_set_current(stream.context_handle())
    with pytest.raises(CudaError.StreamCaptureUnsupported):
        StreamGraphCapture.begin(0, GLOBAL)
    cap = StreamGraphCapture.begin(stream, GLOBAL)
    with pytest.raises(CudaError.IllegalState):
        StreamGraphCapture.begin(stream, GLOBAL)
    cap.end()
    with pytest.raises(TypeError):
        StreamGraphCapture.begin(stream, "global")
    with pytest.raises(OverflowError):
        StreamGraphCapture.begin(stream, -1)
    with pytest.raises(TypeError):
        StreamGraphCapture()


def test_begin_on_unavailable_driver_is_not_initialized():
    """Without a usable driver begin is NotInitialized (oxicuda's try_driver) and instantiate is CPU-only."""
    d = simcuda.Driver(available=False)
    old = simcuda.use(d)
    try:
        with pytest.raises(CudaError.NotInitialized):
            StreamGraphCapture.begin(1, GLOBAL)
        g = Graph()
        g.add_empty_node()
        x = g.instantiate()
        assert not x.is_driver_backed()
        assert repr(x).endswith("driver_backed: false }")
    finally:
        simcuda.use(old)


def test_instantiated_graph_is_driver_backed(drv):
    """Graph.instantiate on a usable driver gives a driver-backed exec (0.5 builds its CUgraph there)."""
    g = Graph()
    g.add_empty_node()
    assert g.instantiate().is_driver_backed()


def test_end_twice_is_illegal_state(drv):
    """A second end finds the stream not capturing: the driver's IllegalState (Rust's end consumes self)."""
    stream = Stream.new()
    cap = StreamGraphCapture.begin(stream, GLOBAL)
    cap.end()
    with pytest.raises(CudaError.IllegalState):
        cap.end()


def test_context_manager_exit_ends_an_active_capture(drv):
    """Leaving the with block ends a capture still active and destroys its graph (oxicuda's Drop): the capture
    ended, and its destroyed graph is no longer among the captures' graphs (docs/spec-proposals.md P-79)."""
    stream = Stream.new()
    graphs = len(drv.graphs_from_captures())
    ended = drv.stats["captures_ended"]
    p = _buffer(drv)
    with StreamGraphCapture.begin(stream, GLOBAL) as cap:
        drv.memset(_memset(drv, p, 1, 64), stream.raw(), "cuMemsetD8Async")
    assert not cap.is_active()
    assert drv.stream_is_capturing(stream.raw()) == core_cap.NONE
    assert drv.stats["captures_ended"] == ended + 1 and len(drv.graphs_from_captures()) == graphs


def test_context_manager_after_end_keeps_the_exec(drv):
    """end inside the block gives the exec; the exit then has nothing to end."""
    stream = Stream.new()
    with StreamGraphCapture.begin(stream, GLOBAL) as cap:
        x = cap.end()
    x.launch(stream)
    assert x.is_driver_backed()


def test_exception_in_block_ends_capture_and_propagates(drv):
    """An exception in the block still ends the capture, then propagates."""
    stream = Stream.new()
    with pytest.raises(RuntimeError, match="boom"), StreamGraphCapture.begin(stream, GLOBAL):
        raise RuntimeError("boom")
    assert drv.stream_is_capturing(stream.raw()) == core_cap.NONE


def test_garbage_collection_ends_an_abandoned_capture(drv):
    """A capture object dropped while active ends the capture when it is collected."""
    stream = Stream.new()
    cap = StreamGraphCapture.begin(stream, GLOBAL)
    assert drv.stream_is_capturing(stream.raw()) == core_cap.ACTIVE
    del cap
    gc.collect()
    assert drv.stream_is_capturing(stream.raw()) == core_cap.NONE


def test_exec_destroys_its_handles_when_collected(drv):
    """The exec of end owns its CUgraph and CUgraphExec: both are destroyed when it is collected."""
    stream = Stream.new()
    cap = StreamGraphCapture.begin(stream, GLOBAL)
    x = cap.end()
    hg = drv.graphs_from_captures()[-1]
    assert not hg.destroyed
    del x, cap
    gc.collect()
    assert hg.destroyed


def test_invalidated_capture_end_raises_invalidated(drv):
    """A capture invalidated by an unsafe call ends with StreamCaptureInvalidated and is then inactive."""
    stream = Stream.new()
    cap = StreamGraphCapture.begin(stream, GLOBAL)
    with pytest.raises(DriverErrorOrCuda):
        drv.stream_synchronize(stream.raw())  # unsafe during capture: invalidates it
    assert cap.capture_status() == CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_INVALIDATED
    with pytest.raises(CudaError.StreamCaptureInvalidated):
        cap.end()
    assert not cap.is_active()


def test_end_from_another_thread_is_wrong_thread_and_stays_active(drv):
    """end from a thread that did not begin a GLOBAL capture is StreamCaptureWrongThread; it stays active."""
    stream = Stream.new()
    cap = StreamGraphCapture.begin(stream, GLOBAL)
    errors = []

    def other():
        try:
            cap.end()
        except CudaError as e:
            errors.append(e)
    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert len(errors) == 1 and isinstance(errors[0], CudaError.StreamCaptureWrongThread)
    assert cap.is_active()
    with pytest.raises(CudaError.StreamCaptureInvalidated):
        cap.end()


def test_exported_from_the_package():
    """simcuda exports StreamGraphCapture lazily from simcuda.faces.oxicuda.stream_capture."""
    import simcuda.faces.oxicuda.stream_capture as face
    assert simcuda.StreamGraphCapture is face.StreamGraphCapture


DriverErrorOrCuda = (simcuda.DriverError, CudaError)


def test_begin_takes_a_driver_face_stream_handle():
    """StreamCapture.begin and StreamGraphCapture.begin take the CUstream the driver face returned (anything with
    ``__int__``), as they take an int handle; a float or a bool is a TypeError."""
    from simcuda.faces.bindings import driver as cu
    from simcuda.faces.oxicuda.stream_capture import StreamCapture
    simcuda.use(simcuda.Driver())
    cu.cuInit(0)
    cu.cuCtxCreate(None, 0, 0)
    s = cu.cuStreamCreate(1)[1]
    cap = StreamCapture.begin(s)
    assert cu.cuStreamIsCapturing(s)[1] == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE
    cap.end()
    assert cu.cuStreamIsCapturing(s)[1] == cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE
    g = StreamGraphCapture.begin(s, 2)
    assert g.is_active()
    g.end()
    for bad in (1.5, True):
        with pytest.raises(TypeError):
            StreamCapture.begin(bad)
