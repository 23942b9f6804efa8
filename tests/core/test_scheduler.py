"""The scheduler service runs against a small fake of :class:`~simcuda._core.work.SchedulerHost`, with no ``Driver``
(issue 18 item 1): stream order, manual progression, user code outside the lock, busy streams, faults, and the
holds of P-74 (the legacy stream's implicit synchronisation, deferred event waits, abandoning at close)."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from simcuda._core.capture import capture_enqueue as capq
from simcuda._core.config import DeviceSpec, Options
from simcuda._core.errors import CUresult, DriverError
from simcuda._core.logs import Counters
from simcuda._core.objects import LEGACY, RECORDED, USER, Context, Device, Event, Stream
from simcuda._core.threads import Threads
from simcuda._core.work import Scheduler, ctx_streams


class FakeHost:
    """Everything :class:`~simcuda._core.work.SchedulerHost` asks for: a lock, a mode, a log."""

    def __init__(self, progression: str = "immediate") -> None:
        self._lock = threading.RLock()
        self.progression = progression
        self.options = Options()
        self.threads = Threads()
        self.memory: Any = None
        self.counters = Counters()
        self.objects: dict[int, Any] = {}
        self.kernels: dict[str, Any] = {}
        self.log: list[dict[str, Any]] = []

    def _log(self, record: dict[str, Any]) -> None:
        self.log.append(record)


class FakeInFlight:
    """An in-flight launch that ends after ``slices`` resumed checkpoints (or raises ``error`` at its end)."""

    def __init__(self, ctx: Context, slices: int, error: DriverError | None = None) -> None:
        self.name, self.ctx, self.left, self.error, self.abandoned = "latch", ctx, slices, error, False

    def step(self, unlocked: Any, slices: int | None) -> bool:
        self.left = 0 if slices is None else max(0, self.left - slices)
        if self.left == 0 and self.error is not None:
            raise self.error
        return self.left == 0

    def abandon(self) -> None:
        self.abandoned = True


@pytest.fixture
def rig() -> Iterator[tuple[FakeHost, Scheduler, Context]]:
    """A host, its scheduler, and a context with a legacy stream (the lock held, as inside an entry)."""
    host = FakeHost()
    ctx = Context(0x100, Device(0, DeviceSpec()), 0, 1)
    ctx.legacy = Stream(0x1, ctx, 0, 0, LEGACY, 0)
    host.objects[ctx.handle] = ctx
    host._lock.acquire()
    yield host, Scheduler(host), ctx
    host._lock.release()


def _stream(ctx: Context, h: int, flags: int = 1) -> Stream:
    s = Stream(h, ctx, flags, 0, USER, h)
    ctx.streams.append(s)
    return s


def _op(done: list[str], tag: str, kind: str = "memset") -> capq.Op:
    def run() -> str:
        done.append(tag)
        return tag
    return capq.Op(capq.OPS[kind], "cuTest", None, run)


def test_submit_runs_at_once_ticks_and_logs(rig: Any) -> None:
    """Immediate progression: a submitted op runs now, the clock ticks once and the log has its record."""
    host, sch, ctx = rig
    s, done = _stream(ctx, 0x10), []
    sch.submit(s, _op(done, "a"))
    assert done == ["a"] and sch.clock_ms == pytest.approx(0.001)
    assert host.log[-1]["kind"] == "MEMSET" and host.log[-1]["note"] == "a" and not sch.holds


def test_manual_progression_queues_until_drained(rig: Any) -> None:
    """Manual progression: ops wait in the queue with tickets; stream_drain runs one stream's work up to its last
    ticket, in enqueue order, and drain runs the rest."""
    host, sch, ctx = rig
    host.progression = "manual"
    s, t, done = _stream(ctx, 0x10), _stream(ctx, 0x20), []
    sch.submit(s, _op(done, "s1"))
    sch.submit(t, _op(done, "t1"))
    sch.submit(s, _op(done, "s2"))
    assert done == [] and len(sch.queue) == 3 and s.pending == [1, 3] and sch.ticket == 3
    sch.stream_drain(t)
    assert done == ["s1", "t1"] and s.pending == [3]
    sch.drain()
    assert done == ["s1", "t1", "s2"] and not sch.queue and s.pending == []


def test_user_code_runs_without_the_lock_and_the_stream_is_busy(rig: Any) -> None:
    """A user-code op runs with its stream busy; inside it, ``unlocked`` releases the lock (another thread takes
    it) and takes it back."""
    host, sch, ctx = rig
    s = _stream(ctx, 0x10)
    seen: list[Any] = []

    def other_thread_takes_the_lock() -> None:
        def take() -> None:
            got = host._lock.acquire(timeout=5)
            seen.append(got)
            if got:
                host._lock.release()
        t = threading.Thread(target=take)
        t.start()
        t.join(5)

    def body() -> str:
        seen.append(s.busy)
        sch.unlocked(other_thread_takes_the_lock)
        return "ran"
    sch.submit(s, capq.Op(capq.OPS["host"], "cuLaunchHostFunc", None, body))
    assert seen == [1, True] and s.busy == 0 and host.log[-1]["note"] == "ran"
    assert host._lock._is_owned()  # taken back


def test_work_behind_a_busy_stream_is_deferred_then_runs(rig: Any) -> None:
    """An op submitted to a busy stream waits in its deferred list with a ticket and runs when the user code ends."""
    _host, sch, ctx = rig
    s, done = _stream(ctx, 0x10), []

    def body() -> str:
        sch.submit(s, _op(done, "behind"))
        assert done == [] and [t for t, _ in s.deferred] == [1] and sch.holds
        return ""
    sch.submit(s, capq.Op(capq.OPS["host"], "cuLaunchHostFunc", None, body))
    assert done == ["behind"] and not s.deferred and not sch.holds


def test_take_fault_710_is_the_contexts_700_the_process(rig: Any) -> None:
    """take_fault: 710 is the context's sticky error only; 700 marks every context and the process (P-9)."""
    host, sch, ctx = rig
    sch.take_fault(ctx, DriverError(CUresult.CUDA_ERROR_ASSERT, "assert"))
    assert int(ctx.fault.code) == 710 and sch.process_fault is None
    other = Context(0x200, Device(0, DeviceSpec()), 0, 2)
    host.objects[other.handle] = other
    sch.take_fault(other, DriverError(CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, "oob"))
    assert int(sch.process_fault.code) == 700 and int(other.fault.code) == 700 and int(ctx.fault.code) == 710


def test_legacy_work_waits_for_an_inflight_kernel_on_a_blocking_stream(rig: Any) -> None:
    """P-74: with a kernel in flight on a blocking stream, legacy work is deferred (a non-blocking stream's is
    not); settle on the legacy stream resumes the kernel to its end and then runs the legacy work."""
    _host, sch, ctx = rig
    blocking, free, done = _stream(ctx, 0x10, flags=0), _stream(ctx, 0x20), []
    sch.put_in_flight(blocking, FakeInFlight(ctx, 5))
    assert sch.partners(ctx.legacy) == [blocking] and sch.partners(blocking) == [ctx.legacy]
    sch.submit(ctx.legacy, _op(done, "legacy"))
    sch.submit(free, _op(done, "free"))
    assert done == ["free"] and len(ctx.legacy.deferred) == 1
    sch.query_slice(ctx.legacy)
    assert blocking.inflight is not None and blocking.inflight.left == 4 and done == ["free"]
    sch.settle([ctx.legacy])
    assert done == ["free", "legacy"] and blocking.inflight is None and not sch.holds


def test_a_wait_on_an_event_recorded_behind_an_inflight_kernel(rig: Any) -> None:
    """P-74: an event recorded behind an in-flight kernel is pending; a stream waiting on it defers its later
    work; settle_event resumes the kernel, the record completes and the waiter's work runs."""
    _host, sch, ctx = rig
    s, waiter, done = _stream(ctx, 0x10), _stream(ctx, 0x20), []
    sch.put_in_flight(s, FakeInFlight(ctx, 3))
    ev = Event(0x30, ctx, 0)
    sch.record_uncaptured(ev, s)
    assert ev.state == RECORDED and ev.pending_on is s and ev.time_ms is None
    sch.wait_uncaptured(waiter, ev)
    sch.submit(waiter, _op(done, "after"))
    assert done == [] and len(waiter.deferred) == 2
    sch.settle_event(ev)
    assert ev.pending_on is None and ev.time_ms is not None and done == ["after"] and not sch.holds


def test_a_fault_at_the_end_of_a_resumed_kernel_is_sticky_and_raised(rig: Any) -> None:
    """P-74: a resumed kernel that faults (700) ends: the error is raised to the synchronising call and is the
    sticky error of every context (P-9); the stream has nothing in flight."""
    _host, sch, ctx = rig
    s = _stream(ctx, 0x10)
    sch.put_in_flight(s, FakeInFlight(ctx, 2, DriverError(CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, "oob")))
    with pytest.raises(DriverError) as e:
        sch.settle([s])
    assert int(e.value.code) == 700 and int(ctx.fault.code) == 700 and s.inflight is None


def test_abandon_inflight_drops_the_kernel_and_the_work_behind_it(rig: Any) -> None:
    """P-74 (6): abandon_inflight ends every in-flight launch where it is and drops the deferred work."""
    _host, sch, ctx = rig
    s, done = _stream(ctx, 0x10), []
    launch = FakeInFlight(ctx, 10**9)
    sch.put_in_flight(s, launch)
    sch.submit(s, _op(done, "never"))
    sch.abandon_inflight()
    assert launch.abandoned and s.inflight is None and not s.deferred and not sch.holds and done == []


def test_ctx_streams_lists_user_per_thread_and_legacy(rig: Any) -> None:
    """ctx_streams: the context's user streams, then per-thread streams, then its legacy stream."""
    _host, _sch, ctx = rig
    s = _stream(ctx, 0x10)
    assert ctx_streams(ctx) == [s, ctx.legacy]
