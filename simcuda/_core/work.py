"""How work runs: at once, queued (manual progression), or after the user code its stream runs.

Eager stream work goes through :meth:`Work._submit` (the capture engine's ``enqueue`` calls it for
work that is not captured). User code (host functions, host nodes, Python kernels) runs without the
driver lock, as on a thread of the driver's own; the stream whose work runs it is *busy* meanwhile:
work other threads enqueue on it waits behind it, queries say NOT_READY, and synchronising calls from
other threads wait for it. See the ``Driver`` docstring for the fidelity notes.
"""
from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, cast

from . import capture_enqueue as capq
from . import graph as gr
from . import graph_exec as ge
from . import hostmem, param_types, ptxrun
from .errors import CUresult, DriverError
from .kernels import DECLARED, KERNELS, KernelHost, KernelLaunch
from .module import merge_param_types
from .objects import RECORDED, Context, Event, Stream
from .state import DriverState

T = TypeVar("T")

class KernelFault(Exception):
    """A Python kernel that failed with ``Options(kernel_faults="sticky")``: carries the context's sticky error
    from :meth:`Work._run_kernel` to :meth:`Work._execute`, which stores it on the stream's context."""

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


class Work(DriverState):
    """Progression of eager work and the running of user code (on top of :class:`DriverState`)."""
    # User code (host functions, host nodes, Python kernels) runs without the driver lock, as on a
    # thread of the driver's own: other threads may call the driver meanwhile. Stream order still
    # holds: while user code of a stream's work runs (``Stream.busy``), work enqueued on that stream
    # by other threads waits in ``Stream.deferred`` (immediate progression) or in the queue (manual),
    # a synchronising call from another thread waits for it (``_wait_idle``), and queries say NOT_READY.
    # A replay keeps its exec body (never mutated once shared) and its exec alive until it finishes.
    def _unlocked(self, fn: Callable[..., T], *args: Any) -> T:
        """Call ``fn(*args)`` with the driver lock released (all levels), then take it back."""
        lock = self._lock
        try:
            state = lock._release_save()  # type: ignore[attr-defined]  # what threading.Condition uses
        except RuntimeError:  # not held: called outside an entry
            return fn(*args)
        try:
            return fn(*args)
        finally:
            lock._acquire_restore(state)  # type: ignore[attr-defined]

    def _submit(self, stream: Stream, op: capq.Op) -> None:
        """Run ``op`` on an uncaptured stream (now, after the user code its stream runs, or when it progresses)."""
        runner = op.run
        if self.progression == "immediate":
            if stream.busy:
                stream.deferred.append(op)
                return
            self._execute(stream, op, runner)
        else:
            self._ticket += 1
            stream.pending.append(self._ticket)
            self._queue.append((self._ticket, stream, (op, runner)))

    def _run_now(self, stream: Stream, op: capq.Op) -> None:
        """Run a synchronous operation on ``stream`` (the legacy or per-thread stream, spec 6): it waits for
        earlier work (user code on the context's streams, and queued work), then runs."""
        self._wait_idle(self._ctx_streams(stream.ctx))
        self._drain()
        self._execute(stream, op, op.run)

    def _execute(self, stream: Stream, op: capq.Op, runner: Callable[[], Any] | None) -> None:
        """Run one eager stream operation, as its kind says (:class:`~simcuda._core.capture_enqueue.OpKind`): it
        advances the simulated clock by one tick unless it is an event record or a graph launch (whose
        replayed nodes tick instead) (spec 16) [I], user code runs with the lock released, and it is logged."""
        k = op.kind
        if k.ticks:
            self._clock_ms += ge.TICK_MS
        try:
            if runner is None:
                note = ""
            elif k.user_code:
                note = self._run_user_op(stream, runner)
            else:
                note = runner()
        except KernelFault as f:  # a Python kernel failed: a sticky error, the launch succeeds
            self._take_fault(stream.ctx, f.error)
            note = f"faulted: {CUresult(f.error.code).name} (sticky error of context 0x{stream.ctx.handle:x})"
        if k.logged:
            self._log({"source": "stream", "kind": k.log_as or k.name.upper(), "detail": k.label(op),
                       "stream": stream.handle, "note": note or ""})
        if stream.deferred and not stream.busy:
            self._run_deferred(stream)

    def _take_fault(self, ctx: Any, error: DriverError) -> None:
        """Record a Python kernel's fault (P-9): ``CUDA_ERROR_ASSERT`` (710) is the context's sticky error, which
        destroying or resetting the context clears; 700 and 719 leave the whole simulated process unusable, as
        NVIDIA documents for them (every context now and later answers them; :func:`simcuda.reset` is the new
        process)."""
        if int(error.code) == int(CUresult.CUDA_ERROR_ASSERT):
            if ctx.fault is None:
                ctx.fault = error
            return
        if self._process_fault is None:
            self._process_fault = error
        for obj in list(self._objs.values()):
            if isinstance(obj, Context) and obj.fault is None:
                obj.fault = error

    def _run_user_op(self, stream: Stream, runner: Callable[[], T]) -> T:
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
                if not done and stream.deferred:
                    self._run_deferred(stream)
                self._idle.notify_all()

    def _run_deferred(self, stream: Stream) -> None:
        """Run the ops other threads enqueued on ``stream`` while its user code ran, in enqueue order."""
        while stream.deferred and not stream.busy:
            op = stream.deferred.pop(0)
            self._execute(stream, op, op.run)
        self._idle.notify_all()

    def _wait_idle(self, streams: Iterable[Stream]) -> None:
        """Block until no stream of ``streams`` runs user code on another thread (cuStreamSynchronize and the
        like wait for a running host function, as the real driver does)."""
        me = threading.get_ident()
        while any(s.busy and s.busy_thread != me for s in streams):
            self._idle.wait()

    def _drain(self, upto: int | None = None) -> None:
        me = threading.get_ident()
        while self._draining not in (0, me):  # another thread runs queued work (its user code may be unlocked)
            self._idle.wait()
        outer, self._draining = self._draining, me
        try:
            while self._queue and (upto is None or self._queue[0][0] <= upto):
                ticket, stream, (op, runner) = self._queue.pop(0)
                stream.pending.remove(ticket)
                self._execute(stream, op, runner)
        finally:
            self._draining = outer
            self._idle.notify_all()

    def advance(self) -> None:
        """Run every pending piece of work, in enqueue order (manual progression only).

        Mirrors: the GPU catching up. No effect in immediate mode.
        """
        with self._lock:
            self._drain()

    def _stream_drain(self, stream: Stream) -> None:
        if stream.pending:
            self._drain(stream.pending[-1])

    def _record_uncaptured(self, event: Event, stream: Stream) -> None:
        """An eager cuEventRecord: the event's time is the simulated clock when the record completes (at
        once, or when the stream's earlier work has run); the record itself does not tick (spec 16) [I]."""
        event.state = RECORDED
        event.capture = None
        if not stream.busy and (self.progression == "immediate"
                                or (not stream.pending and not (stream.is_legacy and self._queue))):
            event.time_ms = self._clock_ms
            event.pending_on = None
        else:
            event.time_ms = None
            event.pending_on = stream

            def complete() -> str:
                event.time_ms = self._clock_ms
                event.pending_on = None
                return ""
            op = capq.Op(capq.OPS["event_record"], "cuEventRecord", None, complete)
            self._submit(stream, op)
            event.pending_ticket = self._ticket

    def _complete_event(self, event: Event) -> None:
        if not event.destroyed:
            event.state = RECORDED
            event.capture = None
            event.time_ms = self._clock_ms

    def _wait_uncaptured(self, stream: Stream, event: Event) -> None:
        return None  # enqueue order already runs the record first (single global queue)

    def _run_kernel(self, p: gr.KernelParams) -> str:
        fn = self.kernels.get(p.name) or KERNELS.get(p.name)
        if fn is None:  # no twin: the PTX runs when the module has some (issue 17), else recorded or refused
            module = p.func.module if p.func is not None else None
            if module is not None and module.ptx is not None and ptxrun.stand_in(module) is None:
                try:
                    ran, outcome = ptxrun.run_ptx(self, p, self._unlocked)
                except DriverError as e:  # a fault the GPU would raise is sticky; a refusal is not (P-69)
                    if self.options.kernel_faults == "sticky" and e.code not in ptxrun.REFUSALS:
                        raise KernelFault(e) from e
                    raise
                if ran:
                    return outcome
                self._unimplemented_runs[p.name] = self._unimplemented_runs.get(p.name, 0) + 1
                return outcome
            self._unimplemented_runs[p.name] = self._unimplemented_runs.get(p.name, 0) + 1
            return ptxrun.unrunnable(self, p)  # raises the refusal (801) for a real image with no PTX
        args = p.args
        f = p.func
        if args and f is not None and getattr(f, "param_types", None):  # the values as the kernel's types read them
            args = param_types.as_declared(merge_param_types(f.param_types, DECLARED.get(p.name)), args)
        launch = KernelLaunch(cast("KernelHost", self), p.name, p.grid, p.block, p.shmem, list(args))
        try:
            self._unlocked(fn, launch)
        except BaseException as e:
            if self.options.kernel_faults == "sticky" and isinstance(e, Exception):
                raise KernelFault(_fault_error(p.name, e)) from e
            # Options(kernel_faults="raise"), or Ctrl-C: the exception propagates (the Python faces let it
            # through); a face that cannot raise it (the native route's C boundary) reads this mark to report it
            # as the kernel's fault
            e.__simcuda_kernel__ = p.name  # type: ignore[attr-defined]
            raise
        return "ran Python kernel"

    def _check_host_fn(self, fn: Any, what: str) -> None:
        """INVALID_VALUE unless an ``int`` function address lies in executable memory (:mod:`hostmem`)."""
        if isinstance(fn, int) and fn:
            hostmem.check(self.memory, fn, 1, "x", what)

    def _run_destructors(self) -> None:
        """Run the destructors of the user objects whose last reference went (``_uo_due``), in that order, each
        as a host function (:meth:`_call_host_fn`: without the lock, its own thread state, its driver calls
        refused with 800). The entry wrapper calls this when the call that dropped the references ends, so a
        destructor never runs while the state is half changed, nor during a launch that holds the object.

        Fidelity: NVIDIA runs destructors later, on a shared internal thread; the simulator runs them on the
        calling thread as the call ends, so tests see them deterministically [I]. A destructor that raises (a
        Python callable given to the core) or an address no longer executable is reported on stderr, as
        ctypes reports a callback that raises: the call that released the object still succeeds.
        """
        due, self._uo_due = self._uo_due, []
        for obj in due:
            try:
                self._call_host_fn(obj.fn, obj.ptr)
            except Exception:  # the destructor is the user's: its failure cannot reach the caller
                import traceback
                print(f"simcuda: the destructor of {obj.label()} failed:", file=sys.stderr)
                traceback.print_exc()

    def _call_host_fn(self, fn: Any, user_data: Any, callback_args: tuple[int, int] | None = None) -> None:
        """Call a host function or stream callback as on a thread of the driver's own: without the lock, and
        with a thread state of its own for the call (``in_host_fn`` set, so its driver calls are refused with
        800, spec 3.9; their errors are that state's last error, not the launching thread's)."""
        self._check_host_fn(fn, "host function")  # it may have been unmapped since it was enqueued
        outer = self._thread()
        t = self.threads.host_fn_state(outer)  # in_host_fn: calls from it are refused (800, spec 3.9)
        call: Callable[..., Any]
        args: tuple[Any, ...]
        if isinstance(fn, int) and callback_args is not None:
            call, args = gr.STREAM_CALLBACK_TYPE(fn), (callback_args[0], callback_args[1], user_data or None)
        elif isinstance(fn, int):
            call, args = gr.HOST_FN_TYPE(fn), (user_data or None,)
        else:
            call, args = fn, (user_data,)
        self.threads.install(t)
        try:
            self._unlocked(call, *args)
        finally:
            self.threads.install(outer)
