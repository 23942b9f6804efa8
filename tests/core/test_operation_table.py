"""What the operation table (``capture.OPS``) declares per kind, seen through the entries that read it: the
clock tick (spec 16), the launch log, user code marking its stream busy, the synchronous calls' rules (spec 6,
6.1, 5.2), the legacy stream's EXTERNAL wait (spec 4.1 row 3) and the child-node option (graph launch only)."""
from __future__ import annotations

import ctypes
import threading
from typing import Any

import pytest

from simcuda import Driver, DriverError, Options
from simcuda._core.capture import capture_rules as cap
from simcuda._core.memory.memory_model import MemsetParams

from .conftest import SRC, ready, with_exec

G, R = cap.GLOBAL, cap.RELAXED


def code(fn: Any, *args: Any) -> int:
    """The CUresult a core call raises (0 when it succeeds)."""
    try:
        fn(*args)
    except DriverError as e:
        return int(e.code)
    return 0


def elapsed(d: Driver, s: int, work: Any) -> float:
    """Simulated ms between two records on ``s`` around ``work()``."""
    e0, e1 = d.event_create(0), d.event_create(0)
    d.event_record(e0, s)
    work()
    d.event_record(e1, s)
    return d.event_elapsed_time(e0, e1)


def test_eager_ops_tick_once_records_and_launches_do_not():
    """An eager memset and a synchronous one tick once each; event records none; a launch ticks per node (16)."""
    d = with_exec()
    buf = d.mem_alloc(16)
    p = MemsetParams(buf, 1, 1, 16)
    assert elapsed(d, d.s, lambda: None) == 0.0
    assert elapsed(d, d.s, lambda: d.memset(p, d.s, "cuMemsetD8Async")) == pytest.approx(0.001)
    assert elapsed(d, 0, lambda: d.memset(p, None, "cuMemsetD8")) == pytest.approx(0.001)
    assert elapsed(d, d.s, lambda: d.graph_launch(d.x, d.s)) == pytest.approx(0.003)


def test_what_the_launch_log_shows_of_stream_work():
    """Copies and sets (the synchronous ones as their async kind) are logged; records and launches as such not."""
    d = with_exec()
    buf = d.mem_alloc(16)
    p = MemsetParams(buf, 1, 1, 16)
    d.launch_log.clear()
    d.memset(p, None, "cuMemsetD8")
    d.event_record(d.event_create(0), d.s)
    d.memset(p, d.s, "cuMemsetD8Async")
    d.graph_launch(d.x, d.s)
    assert [(r.source, r.kind) for r in d.launch_log] == [
        ("stream", "MEMSET"), ("stream", "MEMSET"), ("graph", "EMPTY"), ("graph", "KERNEL"), ("graph", "EMPTY")]


class _BusyProbe:
    """User code that records, from another thread, the code of cuStreamQuery(s) (600 while s is busy)."""

    def __init__(self, d: Driver, s: int) -> None:
        self.d, self.s, self.seen = d, s, []

    def __call__(self, *_a: Any) -> None:
        t = threading.Thread(target=lambda: self.seen.append(code(self.d.stream_query, self.s)))
        t.start()
        t.join()


def test_user_code_of_kernels_host_functions_callbacks_and_launches_marks_the_stream_busy():
    """While a Python kernel, host function, stream callback or host node of a launched graph runs, another
    thread's query of its stream is NOT_READY (600)."""
    d = ready()
    s = d.stream_create(0)
    probe = _BusyProbe(d, s)
    d.kernels["k"] = probe
    f = d.module_get_function(d.module_load_data(SRC), "k")
    d.launch_kernel(f, (1, 1, 1), (1, 1, 1), 0, s, [])
    d.launch_host_func(s, probe, None)
    thunk = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)(probe)
    d.stream_add_callback(s, ctypes.cast(thunk, ctypes.c_void_p).value, None, 0)
    g = d.graph_create(0)
    d.graph_add_host_node(g, [], probe, None)
    d.graph_launch(d.graph_instantiate(g, 0), s)
    assert probe.seen == [600, 600, 600, 600]


def test_synchronous_set_on_a_capturing_per_thread_stream_is_900_and_invalidates():
    """Per-thread mode: a synchronous set on the capturing per-thread stream is 900, invalidating (6.1) [I]."""
    d = ready(options=Options(per_thread_default_stream=True))
    buf = d.mem_alloc(16)
    d.stream_begin_capture(2, G)  # CU_STREAM_PER_THREAD
    assert code(d.memset, MemsetParams(buf, 1, 1, 16), None, "cuMemsetD8") == 900
    assert d.stream_is_capturing(2) == cap.INVALIDATED


def test_synchronous_set_is_potentially_unsafe():
    """A synchronous set while this thread's GLOBAL capture of a non-blocking stream is open: 900 (5.2), and
    the capture is invalidated; in RELAXED mode it runs."""
    d = ready()
    buf = d.mem_alloc(16)
    s = d.stream_create(1)  # CU_STREAM_NON_BLOCKING: no legacy-stream conflict (spec 6)
    d.stream_begin_capture(s, G)
    assert code(d.memset, MemsetParams(buf, 1, 1, 16), None, "cuMemsetD8") == 900
    assert d.stream_is_capturing(s) == cap.INVALIDATED
    d2 = ready()
    buf2 = d2.mem_alloc(16)
    s2 = d2.stream_create(1)
    d2.stream_begin_capture(s2, R)
    d2.thread_exchange_stream_capture_mode(R)
    d2.memset(MemsetParams(buf2, 7, 1, 16), None, "cuMemsetD8")
    assert bytes(d2.memory.device_view(buf2, 16, "check")) == b"\x07" * 16


def test_external_wait_on_the_legacy_stream_for_a_captured_event_is_906():
    """cuStreamWaitEvent(EXTERNAL) on the legacy stream for an event captured by a capture with no blocking
    member: 906, invalidating that capture (spec 4.1 row 3), before the EXTERNAL-outside-capture row (1)."""
    d = ready()
    s, e = d.stream_create(1), d.event_create(0)
    d.stream_begin_capture(s, R)
    d.event_record(e, s)
    assert code(d.stream_wait_event, 0, e, 1) == 906
    assert d.stream_is_capturing(s) == cap.INVALIDATED


def test_only_a_graph_launch_nests_under_the_child_node_option():
    """Options(graph_launch_in_capture="child-node") nests graph launches only: a stream callback into the
    capture is still 801 and invalidates it."""
    d = with_exec(graph_launch_in_capture="child-node")
    d.stream_begin_capture(d.s, G)
    thunk = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)(lambda *a: None)
    assert code(d.stream_add_callback, d.s, ctypes.cast(thunk, ctypes.c_void_p).value, None, 0) == 801
    assert d.stream_is_capturing(d.s) == cap.INVALIDATED


def test_queued_event_records_do_not_tick():
    """Manual progression: records queued behind work complete without a tick of their own (spec 16) [I]."""
    d = ready(progression="manual")
    s, buf = d.stream_create(0), d.mem_alloc(16)
    p = MemsetParams(buf, 1, 1, 16)
    e0, e1 = d.event_create(0), d.event_create(0)
    d.memset(p, s, "cuMemsetD8Async")  # pending: the records below queue behind it
    d.event_record(e0, s)
    d.memset(p, s, "cuMemsetD8Async")
    d.event_record(e1, s)
    d.advance()
    assert d.event_elapsed_time(e0, e1) == pytest.approx(0.001)
