"""How work runs: at once, queued (manual progression), after the user code its stream runs, or behind an
in-flight kernel (P-74).

:class:`Scheduler` is the driver's service for it (``driver.scheduler``); eager stream work goes through
:meth:`Scheduler.submit` (the capture engine's ``enqueue`` calls it for work that is not captured). User code
(host functions, host nodes, Python kernels) runs without the driver lock, as on a thread of the driver's own;
the stream whose work runs it is *busy* meanwhile: work other threads enqueue on it waits behind it, queries say
NOT_READY, and synchronising calls from other threads wait for it. See the ``Driver`` docstring for the fidelity
notes.
"""
from __future__ import annotations

import sys
import threading
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from .capture import capture_enqueue as capq
from .errors import CUresult, DriverError
from .graphs import graph_exec as ge
from .graphs import graph_model as gr
from .memory import hostmem
from .modules import param_types, ptxrun
from .modules.kernels import DECLARED, KERNELS, KernelHost, KernelLaunch, MissingDependency
from .modules.module_model import merge_param_types
from .objects import RECORDED, Context, Event, Stream

if TYPE_CHECKING:
    from .config import Options
    from .logs import Counters
    from .memory.memory_model import MemorySpace
    from .objects import UserObject
    from .threads import Threads

T = TypeVar("T")

_KERNEL = capq.OPS["kernel"]
#: the wait kinds: a deferred wait entry holds its stream until the event's record has run
_WAITS = (capq.OPS["wait_event"], capq.OPS["wait_event_external"])


class _EventRef:
    """The params of a deferred wait entry: the event waited on."""

    __slots__ = ("event",)

    def __init__(self, event: Event) -> None:
        self.event = event

class KernelFault(Exception):
    """A Python kernel that failed with ``Options(kernel_faults="sticky")``: carries the context's sticky error
    from :meth:`Scheduler.run_kernel` to :meth:`Scheduler.execute`, which stores it on the stream's context."""

    def __init__(self, error: DriverError) -> None:
        super().__init__(error.why)
        self.error = error


def _fault_error(name: str, e: Exception) -> DriverError:
    """The sticky error of kernel ``name`` that raised ``e``: 700 for a memory access outside simulated memory
    (an INVALID_VALUE from ``KernelLaunch.view``/``array``), 710 for an ``AssertionError``, else 719; the why holds
    the kernel's traceback."""
    import traceback
    if isinstance(e, DriverError) and int(e.code) == int(CUresult.CUDA_ERROR_INVALID_VALUE):
        code, what = CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, "accessed memory outside every simulated allocation"
    elif isinstance(e, AssertionError):
        code, what = CUresult.CUDA_ERROR_ASSERT, "failed an assertion (a device-side assert)"
    else:
        code, what = CUresult.CUDA_ERROR_LAUNCH_FAILED, f"raised {type(e).__name__}"
    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__)).rstrip()
    return DriverError(code, f"the Python kernel {name!r} {what}: the context has a sticky error, as after a "
                             "kernel fault on a GPU: every later call that uses it answers this code; destroy the "
                             "context (cuCtxDestroy) or reset the primary context (cuDevicePrimaryCtxReset) to go "
                             "on; Options(kernel_faults='raise') raises at once instead. The kernel's traceback:\n"
                             + tb)


def ctx_streams(ctx: Context) -> list[Stream]:
    """Every stream of ``ctx``: its user streams, per-thread streams and legacy stream."""
    out = list(ctx.streams) + list(ctx.per_thread.values())
    if ctx.legacy is not None:
        out.append(ctx.legacy)
    return out


class SchedulerHost(Protocol):
    """What the :class:`Scheduler` uses of a driver (``DriverState`` is one; tests/core/test_scheduler.py has a
    small fake): the lock, the progression mode and options, the threads, memory and handle services, the
    counters, the per-driver Python kernels and the launch log. The simulated clock (spec 16), the process-wide
    kernel fault (P-9) and the user objects whose destructors are due are the scheduler's own state. A PTX launch
    and a Python kernel get the host itself (:func:`simcuda._core.modules.ptxrun.run_ptx`,
    :class:`~simcuda._core.modules.kernels.KernelLaunch`)."""

    _lock: Any  # the driver's threading.RLock
    progression: str

    @property
    def options(self) -> Options:
        """The spec's open choices (``kernel_faults`` is read here)."""
    @property
    def threads(self) -> Threads:
        """Per-thread state: the calling thread's, a host function's, the thread-local slot."""
    @property
    def memory(self) -> MemorySpace:
        """The address space (executable host memory is checked in it)."""
    @property
    def counters(self) -> Counters:
        """The counters (kernels run with no implementation)."""
    @property
    def objects(self) -> Mapping[int, Any]:
        """The handle table, read-only (the contexts a process-wide fault reaches)."""
    @property
    def kernels(self) -> dict[str, Callable[[KernelLaunch], Any]]:
        """The per-driver Python kernels (twins)."""
    def _log(self, record: dict[str, Any]) -> None:
        """Add a launch-log record."""


class Scheduler:
    """The scheduler that runs a driver's work: a service of :class:`~simcuda._core.state.DriverState`
    (``driver.scheduler``), typed against :class:`SchedulerHost`, so it runs against a small fake too
    (tests/core/test_scheduler.py).

    What it does, by method: :meth:`submit` (stream order: now, deferred behind a held stream, or queued under
    manual progression), :meth:`run_now` (a synchronous operation, spec 6), :meth:`execute` (one operation, as
    its :class:`~simcuda._core.capture.capture_enqueue.OpKind` says), :meth:`drain`/:meth:`stream_drain` (queued work,
    manual progression), :meth:`wait_idle` (user code running on another thread), :meth:`unlocked`/:meth:`run_user_op`
    (user code outside the driver lock), :meth:`record_uncaptured`/:meth:`wait_uncaptured`/:meth:`complete_event`
    (eager event records and waits), :meth:`run_kernel` (a launch: its Python twin or its PTX), the host
    functions (:meth:`check_host_fn`, :meth:`call_host_fn`, :meth:`run_destructors`), the faults
    (:meth:`take_fault`), and the in-flight launches of P-74 (:meth:`holds`, :meth:`partners`, :meth:`pump`,
    :meth:`settle`, :meth:`settle_event`, :meth:`query_slice`, :meth:`resume`, :meth:`abandon_inflight`).
    Every method is called with the driver lock held (the entry points take it).

    Public state it owns (typed, read and written by the entry groups and the graph model): :attr:`clock_ms`
    (the simulated clock, spec 16), :attr:`process_fault` (a 700/719 kernel fault every context has, P-9) and
    :attr:`due_user_objects` (the user objects whose last reference went: destructors the entry wrapper runs as
    the call ends; the list is never replaced, so a holder of it sees every addition).

    Private state it owns: the manual queue (``queue``: ``(ticket, stream, (op, runner))``), the ticket counter, the
    condition other threads wait on (``idle``), the thread draining the queue (``draining``), the streams with
    an in-flight kernel or deferred work.
    """
    # User code (host functions, host nodes, Python kernels) runs without the driver lock, as on a
    # thread of the driver's own: other threads may call the driver meanwhile. Stream order still
    # holds: while user code of a stream's work runs (``Stream.busy``), work enqueued on that stream
    # by other threads waits in ``Stream.deferred`` (immediate progression) or in the queue (manual),
    # a synchronising call from another thread waits for it (``wait_idle``), and queries say NOT_READY.
    # A replay keeps its exec body (never mutated once shared) and its exec alive until it finishes.

    __slots__ = ("_host", "_ref", "_lock", "_tls", "_unimplemented", "_ticket", "_queue", "_idle", "_draining",
                 "_inflight", "_waiting", "_pumping", "_suspending", "clock_ms", "process_fault",
                 "due_user_objects")

    def __init__(self, host: SchedulerHost) -> None:
        # a weak proxy: the driver holds its scheduler, so a strong reference back would make a cycle, and a
        # dropped driver must go (with its memory) without the garbage collector (tests/core/test_address_space)
        self._host: SchedulerHost = cast("SchedulerHost", weakref.proxy(host))
        self._ref = weakref.ref(host)
        self._lock = host._lock
        self._tls = host.threads.tls
        self._unimplemented = host.counters.unimplemented  # kernel name -> runs with no implementation
        self._ticket = 0
        self._queue: list[tuple[int, Stream, tuple[capq.Op, Callable[[], Any] | None]]] = []
        self._idle = threading.Condition(host._lock)  # notified when user code or a drain finishes
        self._draining = 0  # the thread running queued work (manual progression), 0 when none
        self._inflight: set[Stream] = set()  # streams with an in-flight PTX kernel (P-74)
        self._waiting: set[Stream] = set()  # streams with deferred work (immediate progression)
        self._pumping = False  # pump() is running
        self._suspending = 0  # executes of eager kernel launches running now (P-74; run_kernel reads it first)
        #: the simulated clock in milliseconds (spec 16): ticked by eager work and by replays, read by event records
        self.clock_ms = 0.0
        #: a 700/719 kernel fault: every context, now and later, has it (P-9); None until one happens
        self.process_fault: DriverError | None = None
        #: user objects whose last reference went, in that order: their destructors run as the call ends
        #: (:meth:`run_destructors`); appended to by the exec and user-object entries, never replaced
        self.due_user_objects: list[UserObject] = []

    @property
    def queue(self) -> Sequence[tuple[int, Stream, tuple[capq.Op, Callable[[], Any] | None]]]:
        """The queued work of manual progression, in enqueue order (read-only)."""
        return self._queue

    @property
    def ticket(self) -> int:
        """The ticket of the latest queued or deferred operation."""
        return self._ticket

    @property
    def idle(self) -> threading.Condition:
        """The condition notified when user code, a drain or an in-flight kernel ends."""
        return self._idle

    @property
    def draining(self) -> int:
        """The ident of the thread running queued work, 0 when none."""
        return self._draining

    @property
    def holds(self) -> bool:
        """True while some stream has an in-flight kernel or deferred work (P-74): the slow paths apply."""
        return bool(self._inflight or self._waiting)

    def put_in_flight(self, stream: Stream, launch: Any) -> None:
        """Keep ``launch`` (a :class:`~simcuda._core.modules.ptxrun.InFlight`: ``name``, ``ctx``, ``step(unlocked,
        slices)``, ``abandon()``) in flight on ``stream``: its later work waits behind it until it ends (P-74)."""
        stream.inflight = launch
        self._inflight.add(stream)

    def held_in(self, ctx: Context) -> list[Stream]:
        """The streams of context ``ctx`` with an in-flight kernel or deferred work (destroyed ones included)."""
        return [s for s in self._inflight | self._waiting if s.ctx is ctx]

    def unlocked(self, fn: Callable[..., T], *args: Any) -> T:
        """Call ``fn(*args)`` with the driver lock released (all levels), then take it back."""
        lock = self._lock
        try:
            state = lock._release_save()  # what threading.Condition uses (the RLock's private pair)
        except RuntimeError:  # not held: called outside an entry
            return fn(*args)
        try:
            return fn(*args)
        finally:
            lock._acquire_restore(state)

    def submit(self, stream: Stream, op: capq.Op) -> None:
        """Run ``op`` on an uncaptured stream (now, after the user code its stream runs, or when it progresses)."""
        runner = op.run
        if self._host.progression == "immediate":
            if stream.busy or ((self._inflight or self._waiting) and self._must_defer(stream)):
                self._defer(stream, op)
                if not stream.busy:
                    self.pump()  # it runs now when nothing holds it any more (a launch ended by Ctrl-C)
                return
            self.execute(stream, op, runner)
        else:
            self._ticket += 1
            stream.pending.append(self._ticket)
            self._queue.append((self._ticket, stream, (op, runner)))

    def run_now(self, stream: Stream, op: capq.Op) -> None:
        """Run a synchronous operation on ``stream`` (the legacy or per-thread stream, spec 6): it waits for
        earlier work (user code on the context's streams, and queued work), then runs."""
        self.wait_idle(ctx_streams(stream.ctx))
        if self._inflight or self._waiting:
            self.settle([stream, *self.partners(stream)])
        self.drain()
        self.execute(stream, op, op.run)

    def execute(self, stream: Stream, op: capq.Op, runner: Callable[[], Any] | None) -> None:
        """Run one eager stream operation, as its kind says (:class:`~simcuda._core.capture.capture_enqueue.OpKind`): it
        advances the simulated clock by one tick unless it is an event record or a graph launch (whose
        replayed nodes tick instead) (spec 16) [I], user code runs with the lock released, and it is logged."""
        k = op.kind
        host = self._host
        if k.ticks:
            self.clock_ms += ge.TICK_MS
        eager_kernel = False
        try:
            if runner is None:
                note = ""
            elif k.user_code:
                if k is _KERNEL and host.progression == "immediate":
                    eager_kernel = True  # run_kernel reads (and clears) the mark: this launch may suspend (P-74)
                    self._tls.may_suspend = True
                    self._suspending += 1
                note = self.run_user_op(stream, runner)
            else:
                note = runner()
        except KernelFault as f:  # a Python kernel failed: a sticky error, the launch succeeds
            self.take_fault(stream.ctx, f.error)
            note = f"faulted: {CUresult(f.error.code).name} (sticky error of context 0x{stream.ctx.handle:x})"
        except ptxrun.Suspended as sus:  # the kernel spins on something outside it: in flight on the stream
            self.put_in_flight(stream, sus.launch)
            note = "in flight (its threads spin; a query or synchronisation resumes it, P-74)"
        finally:
            if eager_kernel:
                self._tls.may_suspend = False
                self._suspending -= 1
        if k.logged:
            host._log({"source": "stream", "kind": k.log_as or k.name.upper(), "detail": k.label(op),
                             "stream": stream.handle, "note": note or ""})
        if self._waiting and not stream.busy:
            self.pump()

    def take_fault(self, ctx: Any, error: DriverError) -> None:
        """Record a Python kernel's fault (P-9): ``CUDA_ERROR_ASSERT`` (710) is the context's sticky error, which
        destroying or resetting the context clears; 700 and 719 leave the whole simulated process unusable, as
        NVIDIA documents for them (every context now and later answers them; :func:`simcuda.reset` is the new
        process)."""
        if int(error.code) == int(CUresult.CUDA_ERROR_ASSERT):
            if ctx.fault is None:
                ctx.fault = error
            return
        if self.process_fault is None:
            self.process_fault = error
        for obj in list(self._host.objects.values()):
            if isinstance(obj, Context) and obj.fault is None:
                obj.fault = error

    def run_user_op(self, stream: Stream, runner: Callable[[], T]) -> T:
        """Run an op that calls user code with ``stream`` marked busy (see the comment above)."""
        me = threading.get_ident()
        outer = stream.busy_thread
        stream.busy += 1
        stream.busy_thread = me
        done = False
        try:
            note = runner()
            done = True
            return note
        finally:
            stream.busy -= 1
            stream.busy_thread = outer if stream.busy else 0
            if not stream.busy:
                if not done and self._waiting:
                    self.pump()
                self._idle.notify_all()

    # -- holds: work behind user code running on another thread or an in-flight kernel (P-74) -------------
    # In immediate progression a stream is *held* while user code of its work runs on another thread
    # (``busy``), while a PTX kernel of it is in flight (``inflight``), and while it has deferred work; the
    # legacy stream is also held while a blocking stream of its context is held, and a blocking stream while
    # the legacy stream is (spec 1's implicit synchronisation). Work submitted to a held stream waits in
    # ``Stream.deferred`` with a ticket; :meth:`pump` runs the deferred heads that are ready, lowest ticket
    # first. A wait on an event whose record is itself deferred is a deferred entry of the waiting stream too.
    def partners(self, s: Stream) -> list[Stream]:
        """The streams ``s`` synchronises with implicitly: the legacy stream's blocking streams, a blocking
        stream's legacy stream, none for a non-blocking one."""
        ctx = s.ctx
        if s.is_legacy:
            return [b for b in [*ctx.streams, *ctx.per_thread.values()] if b.blocking]
        if s.blocking and ctx.legacy is not None:
            return [ctx.legacy]
        return []

    def _must_defer(self, s: Stream) -> bool:
        """Whether work submitted to ``s`` now must wait (``s`` or a partner of it is held)."""
        held = self._waiting | self._inflight
        return s in held or any(o in held for o in self.partners(s))

    def _defer(self, s: Stream, op: capq.Op) -> None:
        self._ticket += 1
        s.deferred.append((self._ticket, op))
        self._waiting.add(s)

    def _head_ready(self, s: Stream) -> bool:
        """Whether the first deferred entry of ``s`` may run now."""
        if s.busy or s.inflight is not None:
            return False
        ticket, op = s.deferred[0]
        if op.kind in _WAITS:
            ev = op.params.event
            if ev.pending_on is not None and ev.pending_on is not s and not ev.destroyed:
                return False
        return not any(o.inflight is not None or (o.deferred and o.deferred[0][0] < ticket)
                       for o in self.partners(s))

    def pump(self) -> None:
        """Run every deferred entry that is ready, lowest ticket first, until none is (P-74)."""
        if self._pumping:
            return  # the pump running (on this thread, or on one whose user code runs unlocked) goes on
        self._pumping = True
        try:
            while True:
                ready = [s for s in self._waiting if self._head_ready(s)]
                if not ready:
                    break
                s = min(ready, key=lambda x: x.deferred[0][0])
                _, op = s.deferred.pop(0)
                if not s.deferred:
                    self._waiting.discard(s)
                if op.kind not in _WAITS:
                    self.execute(s, op, op.run)
        finally:
            self._pumping = False
            self._idle.notify_all()

    def _blocker(self, s: Stream, seen: set[Stream]) -> Stream | None:
        """The stream whose in-flight kernel ``s``'s earliest work waits for (``s`` itself included), or None
        (nothing to resume: it waits for user code on another thread, or for nothing)."""
        if s in seen or s.busy:
            return None
        seen.add(s)
        if s.inflight is not None:
            return s
        if not s.deferred:
            return None
        ticket, op = s.deferred[0]
        if op.kind in _WAITS and op.params.event.pending_on is not None:
            found = self._blocker(op.params.event.pending_on, seen)
            if found is not None:
                return found
        for o in self.partners(s):
            if o.inflight is not None or (o.deferred and o.deferred[0][0] < ticket):
                found = self._blocker(o, seen)
                if found is not None:
                    return found
        return None

    def resume(self, s: Stream, slices: int | None) -> None:
        """Resume the in-flight kernel of ``s`` for ``slices`` stall checkpoints (None: until it ends), with the
        lock released and ``s`` marked busy (another thread's query answers 600 meanwhile, its synchronisation
        waits); when it ends, the work behind it runs. A fault is the sticky error of the launch's context and
        is raised (the query or synchronisation answers it, as on a GPU); Ctrl-C (``KeyboardInterrupt``) ends
        the launch and propagates, leaving no sticky error (P-71 (5)); the work behind it runs at the next call
        that runs work."""
        launch = s.inflight
        if launch is None or s.busy:
            return
        try:
            done = self.run_user_op(s, lambda: launch.step(self.unlocked, slices))
        except DriverError as e:
            self._end_inflight(s)
            if e.code in ptxrun.REFUSALS:
                raise
            if self._host.options.kernel_faults == "sticky":
                self.take_fault(launch.ctx, e)
            raise
        except KeyboardInterrupt:  # as in the launch itself (P-71 (5)): the launch ends, no sticky error
            self._end_inflight(s)
            raise
        if done:
            self._end_inflight(s)
            self.pump()

    def _end_inflight(self, s: Stream) -> None:
        s.inflight = None
        self._inflight.discard(s)
        self._idle.notify_all()

    def settle(self, streams: Iterable[Stream]) -> None:
        """Block until none of ``streams`` has an in-flight kernel or deferred work: resume the kernels their
        work waits for until they end (P-74)."""
        targets = list(streams)
        while True:
            self.pump()
            todo = [s for s in targets if s.inflight is not None or s.deferred]
            if not todo:
                return
            found = None
            for s in todo:
                found = self._blocker(s, set())
                if found is not None:
                    break
            if found is None:
                self._idle.wait(0.05)  # user code runs on another thread (or resumes the kernel there)
            else:
                self.resume(found, None)

    def settle_event(self, event: Event) -> None:
        """Block until the record of ``event`` has run (the in-flight kernels it waits for ended)."""
        while event.pending_on is not None and self._host.progression == "immediate":
            self.pump()
            pending = event.pending_on
            if pending is None or not (pending.deferred or pending.inflight is not None or pending.busy):
                return
            found = self._blocker(pending, set())
            if found is None:
                self._idle.wait(0.05)
            else:
                self.resume(found, None)

    def query_slice(self, s: Stream | None) -> None:
        """A query's bounded slice (P-74): resume the in-flight kernel ``s``'s earliest work waits for by one
        stall checkpoint, then run what became ready."""
        if s is None or not (self._inflight or self._waiting):
            return
        found = self._blocker(s, set())
        if found is not None:
            self.resume(found, 1)
        self.pump()

    def abandon_inflight(self, ctx: Context | None = None) -> None:
        """End every in-flight kernel (of context ``ctx``; None: of every context) where it is, never to resume,
        and drop the work deferred behind it: what ``Driver.close()``, ``cuCtxDestroy`` and
        ``cuDevicePrimaryCtxReset`` do with kernels that were never released, so none of them waits (P-74)."""
        for s in [x for x in self._inflight if ctx is None or x.ctx is ctx]:
            launch = s.inflight
            self._end_inflight(s)
            if launch is not None:
                launch.abandon()
        for s in [x for x in self._waiting if ctx is None or x.ctx is ctx]:
            s.deferred.clear()
            self._waiting.discard(s)

    def wait_idle(self, streams: Iterable[Stream]) -> None:
        """Block until no stream of ``streams`` runs user code on another thread (cuStreamSynchronize and the
        like wait for a running host function, as the real driver does)."""
        me = threading.get_ident()
        while any(s.busy and s.busy_thread != me for s in streams):
            self._idle.wait()

    def drain(self, upto: int | None = None) -> None:
        """Run the queued work of manual progression in enqueue order, up to ticket ``upto`` (None: all of it),
        once no other thread is draining (its user code may run unlocked meanwhile)."""
        me = threading.get_ident()
        while self._draining not in (0, me):  # another thread runs queued work (its user code may be unlocked)
            self._idle.wait()
        outer, self._draining = self._draining, me
        try:
            while self._queue and (upto is None or self._queue[0][0] <= upto):
                ticket, stream, (op, runner) = self._queue.pop(0)
                stream.pending.remove(ticket)
                self.execute(stream, op, runner)
        finally:
            self._draining = outer
            self._idle.notify_all()

    def stream_drain(self, stream: Stream) -> None:
        """Run the queued work up to ``stream``'s last pending ticket (earlier work of other streams included:
        one global enqueue order, see the ``Driver`` fidelity notes)."""
        if stream.pending:
            self.drain(stream.pending[-1])

    def record_uncaptured(self, event: Event, stream: Stream) -> None:
        """An eager cuEventRecord: the event's time is the simulated clock when the record completes (at
        once, or when the stream's earlier work has run); the record itself does not tick (spec 16) [I]."""
        event.state = RECORDED
        event.capture = None
        immediate = self._host.progression == "immediate"
        if not stream.busy and not (immediate and (self._inflight or self._waiting) and self._must_defer(stream)) \
                and (immediate or (not stream.pending and not (stream.is_legacy and self._queue))):
            event.time_ms = self.clock_ms
            event.pending_on = None
        else:
            event.time_ms = None
            event.pending_on = stream

            def complete() -> str:
                event.time_ms = self.clock_ms
                event.pending_on = None
                return ""
            op = capq.Op(capq.OPS["event_record"], "cuEventRecord", None, complete)
            self.submit(stream, op)
            event.pending_ticket = self._ticket

    def complete_event(self, event: Event) -> None:
        """Mark ``event`` recorded now, at the simulated clock (cuCtxRecordEvent, EVENT_RECORD nodes); a destroyed
        event is left as it is."""
        if not event.destroyed:
            event.state = RECORDED
            event.capture = None
            event.time_ms = self.clock_ms

    def wait_uncaptured(self, stream: Stream, event: Event) -> None:
        """An eager cuStreamWaitEvent. Manual progression: nothing (one global queue already runs the record
        first). Immediate: when the record has not run yet (it waits behind an in-flight kernel or user code)
        or ``stream`` is held, a wait entry is deferred on ``stream``, so its later work waits for the record
        (P-74)."""
        if self._host.progression != "immediate" or not (self._inflight or self._waiting):
            return
        if self._must_defer(stream) or (event.pending_on is not None and event.pending_on is not stream):
            self._defer(stream, capq.Op(capq.OPS["wait_event"], "cuStreamWaitEvent", _EventRef(event), None))

    def run_kernel(self, p: gr.KernelParams) -> str:
        """Run launch ``p``: its Python twin (``Driver.kernels``, then :data:`~simcuda._core.modules.kernels.KERNELS`)
        with the lock released, else its PTX (:func:`simcuda._core.modules.ptxrun.run_ptx`; an eager launch in immediate
        progression may stay in flight, P-74), else recorded or refused
        (:func:`~simcuda._core.modules.ptxrun.unrunnable`).
        Returns the launch log's outcome. Raises :class:`KernelFault` for a fault under
        ``Options(kernel_faults="sticky")`` (the caller makes it the context's sticky error), the refusals of
        :data:`~simcuda._core.modules.ptxrun.REFUSALS` as they are, and ``ptxrun.Suspended`` for an in-flight launch."""
        host: Any = self._ref()  # the driver itself (not the proxy): what a kernel's hooks and KernelLaunch hold
        suspend = False
        if self._suspending:  # an eager launch runs (on some thread): this one if the mark is this thread's (P-74)
            suspend = getattr(self._tls, "may_suspend", False)
            if suspend:
                self._tls.may_suspend = False
        fn = host.kernels.get(p.name) or KERNELS.get(p.name)
        if fn is None:  # no twin: the PTX runs when the module has some (issue 17), else recorded or refused
            module = p.func.module if p.func is not None else None
            if module is not None and module.ptx is not None and ptxrun.stand_in(module) is None:
                try:
                    ran, outcome = ptxrun.run_ptx(host, p, self.unlocked, suspend)
                except DriverError as e:  # a fault the GPU would raise is sticky; a refusal is not (P-69)
                    if host.options.kernel_faults == "sticky" and e.code not in ptxrun.REFUSALS:
                        raise KernelFault(e) from e
                    raise
                if ran:
                    return outcome
                self._unimplemented[p.name] = self._unimplemented.get(p.name, 0) + 1
                return outcome
            self._unimplemented[p.name] = self._unimplemented.get(p.name, 0) + 1
            return ptxrun.unrunnable(host, p)  # raises the refusal (801) for a real image with no PTX
        args = p.args
        f = p.func
        if args and f is not None and getattr(f, "param_types", None):  # the values as the kernel's types read them
            args = param_types.as_declared(merge_param_types(f.param_types, DECLARED.get(p.name)), args)
        launch = KernelLaunch(cast("KernelHost", host), p.name, p.grid, p.block, p.shmem, list(args))
        try:
            self.unlocked(fn, launch)
        except BaseException as e:
            if (host.options.kernel_faults == "sticky" and isinstance(e, Exception)
                    and not isinstance(e, MissingDependency)):  # the machine lacks a package: not the kernel's fault
                raise KernelFault(_fault_error(p.name, e)) from e
            # Options(kernel_faults="raise"), or Ctrl-C: the exception propagates (the Python faces let it
            # through); a face that cannot raise it (the native route's C boundary) reads this mark to report it
            # as the kernel's fault
            e.__simcuda_kernel__ = p.name  # type: ignore[attr-defined]
            raise
        return "ran Python kernel"

    def check_host_fn(self, fn: Any, what: str) -> None:
        """INVALID_VALUE unless an ``int`` function address lies in executable memory (:mod:`hostmem`)."""
        if isinstance(fn, int) and fn:
            hostmem.check(self._host.memory, fn, 1, "x", what)

    def run_destructors(self) -> None:
        """Run the destructors of the user objects whose last reference went (:attr:`due_user_objects`), in that order,
        each as a host function (:meth:`call_host_fn`: without the lock, its own thread state, its driver calls
        refused with 800). The entry wrapper calls this when the call that dropped the references ends, so a
        destructor never runs while the state is half changed, nor during a launch that holds the object.

        Fidelity: NVIDIA runs destructors later, on a shared internal thread; the simulator runs them on the
        calling thread as the call ends, so tests see them deterministically [I]. A destructor that raises (a
        Python callable given to the core) or an address no longer executable is reported on stderr, as
        ctypes reports a callback that raises: the call that released the object still succeeds.
        """
        due = self.due_user_objects[:]
        self.due_user_objects.clear()
        for obj in due:
            try:
                self.call_host_fn(obj.fn, obj.ptr)
            except Exception:  # the destructor is the user's: its failure cannot reach the caller
                import traceback
                print(f"simcuda: the destructor of {obj.label()} failed:", file=sys.stderr)
                traceback.print_exc()

    def call_host_fn(self, fn: Any, user_data: Any, callback_args: tuple[int, int] | None = None) -> None:
        """Call a host function or stream callback as on a thread of the driver's own: without the lock, and
        with a thread state of its own for the call (``in_host_fn`` set, so its driver calls are refused with
        800, spec 3.9; their errors are that state's last error, not the launching thread's)."""
        self.check_host_fn(fn, "host function")  # it may have been unmapped since it was enqueued
        outer = self._host.threads.current()
        t = self._host.threads.host_fn_state(outer)  # in_host_fn: calls from it are refused (800, spec 3.9)
        call: Callable[..., Any]
        args: tuple[Any, ...]
        if isinstance(fn, int) and callback_args is not None:
            call, args = gr.STREAM_CALLBACK_TYPE(fn), (callback_args[0], callback_args[1], user_data or None)
        elif isinstance(fn, int):
            call, args = gr.HOST_FN_TYPE(fn), (user_data or None,)
        else:
            call, args = fn, (user_data,)
        self._host.threads.install(t)
        try:
            self.unlocked(call, *args)
        finally:
            self._host.threads.install(outer)
