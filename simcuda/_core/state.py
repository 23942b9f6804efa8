"""The state of one simulated driver, and the entry decorator every driver entry point wears.

``DriverState`` owns what every concept shares: the lock, the counters, the logs, and
the services, each of which owns its own state behind public, typed methods: ``handles``
(:class:`~simcuda._core.handles.Handles`: the handle table, graphs and nodes, and the *preamble* resolvers of
spec section 3 that turn a handle into a live object or raise the code the real driver gives), ``threads``
(:class:`~simcuda._core.threads.Threads`: per-thread state and current contexts), ``captures``
(:class:`~simcuda._core.capture.capture_rules.CaptureRegistry`), ``memory``
(:class:`~simcuda._core.memory.memory_model.MemorySpace`), ``variables``
(:class:`~simcuda._core.modules.variables.ModuleVariables`: the device variables of loaded images) and ``scheduler``
(:class:`~simcuda._core.work.Scheduler`: the work queue, user code outside the lock, in-flight kernels, and the
shared scalar state it owns as public, typed attributes: the simulated clock ``clock_ms``, the process-wide kernel
fault ``process_fault`` and the user objects whose destructors are due, ``due_user_objects``); the counters
(:class:`~simcuda._core.logs.Counters`) keep ``kernel_launches`` as a public slot the launch path increments.
The state binds no private aliases of the services' methods: the entry groups, the rule engine, the graph model
and the node kinds call the services by their public names (``scheduler.submit``, ``threads.current``,
``handles.function``).
The stream resolver (:meth:`DriverState._stream`) stays here: it needs the threads, the handles and the
per-thread default-stream mode; a context makes its NULL streams (``Context.legacy_stream``,
``Context.per_thread_stream``) and the handle table hands out stream ids. The per-concept entry modules
(``*_entries.py`` in the concept folders of :mod:`simcuda._core`) build on it and reach the services through them;
:class:`simcuda._core.facade.Driver` puts them together.
"""
from __future__ import annotations

import functools
import inspect
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any, Concatenate, ParamSpec, TypeVar

from . import process
from .capture import capture_rules as cap
from .config import DeviceSpec, Options
from .errors import CallFailed, CUresult, DriverError
from .graphs import graph_model as gr
from .handles import Handles
from .logs import Counters, ErrorRecord, LaunchLog, internal_why
from .memory.memory_model import MemorySpace
from .modules.kernels import KernelLaunch
from .modules.variables import ModuleVariables
from .objects import CU_STREAM_LEGACY as CU_STREAM_LEGACY  # the NULL stream handles, named here for the faces
from .objects import CU_STREAM_PER_THREAD as CU_STREAM_PER_THREAD
from .objects import (
    Context,
    Device,
    Stream,
    ThreadState,
    release_refs,
)
from .threads import Threads, sticky
from .work import Scheduler, ctx_streams

HANDLE_STEP = process.HANDLE_STEP
DRIVER_VERSION = 13050  # CUDA 13.5
_NO_INIT_NEEDED = frozenset({"init", "driver_get_version", "get_error_name", "get_error_string"})


def _c_name(method: str) -> str:
    """The driver API name of a core method: ``stream_end_capture`` -> ``cuStreamEndCapture``."""
    return "cu" + "".join(part[:1].upper() + part[1:] for part in method.split("_"))


#: every core entry point: method name -> the undecorated function (filled by :func:`entry`)
ENTRIES: dict[str, Callable[..., Any]] = {}

#: a hook's ``before(driver, args, kwargs) -> token`` and ``after(driver, args, kwargs, result, token)``
Hook = tuple[Callable[..., Any] | None, Callable[..., Any] | None, Callable[..., Any] | None]


P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S", bound="DriverState")


def _hooked(drv: Any, fn: Callable[..., R], hooks: list[Hook], args: tuple[Any, ...], kwargs: dict[str, Any]) -> R:
    """An entry's body with its hooks (:meth:`DriverState.add_hook`): every ``before``, the body, then every
    ``after`` with its token; a ``before`` may refuse the call (fault injection), and the ``failed`` hooks see a
    refusal wherever it came from (a ``None`` token for the hooks whose ``before`` did not run)."""
    tokens: list[Any] = []
    try:
        for before, _, _ in hooks:
            tokens.append(before(drv, args, kwargs) if before else None)
        result = fn(drv, *args, **kwargs)
    except DriverError as e:
        tokens += [None] * (len(hooks) - len(tokens))
        for (_, _, failed), token in zip(hooks, tokens):
            if failed:
                failed(drv, args, kwargs, e, token)
        raise
    for (_, after, _), token in zip(hooks, tokens):
        if after:
            after(drv, args, kwargs, result, token)
    return result


def entry(fn: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
    """Register and wrap a core entry point: lock, init check, host-function rule, hooks, error bookkeeping.

    The wrapper takes the driver's lock for the whole call, refuses calls from a host function (800,
    spec 3.9) and before ``cuInit`` (3) or after :meth:`DriverState.close` (4), runs the hooks added with
    :meth:`DriverState.add_hook` (``after`` when the call succeeds, ``failed`` when its body raises), and
    records a failure as the thread's last error and in ``error_log``, under the driver API name of the call (a ``call``
    argument, when the method serves several entry points, else the method's name in CUDA spelling).
    Before it lets the lock go, it runs the destructors of the user objects whose last reference the
    call dropped (:meth:`~simcuda._core.work.Scheduler.run_destructors`), once the call's state is complete.
    """
    name = fn.__name__
    ENTRIES[name] = fn
    default_call = _c_name(name)
    params = list(inspect.signature(fn).parameters)
    call_pos = params.index("call") - 1 if "call" in params else -1  # minus ``self``
    call_default = inspect.signature(fn).parameters["call"].default if call_pos >= 0 else default_call
    needs_init = name not in _NO_INIT_NEEDED

    @functools.wraps(fn)
    def wrapper(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        lock = self._lock  # acquire/release: cheaper than ``with`` on the hot path
        lock.acquire()
        try:
            try:
                t = self.threads.tls.state  # this thread's state (see Threads.current)
            except AttributeError:
                t = self.threads.current()
            try:
                if t.in_host_fn or (needs_init and (self._closed or not self._initialized)):
                    if t.in_host_fn:
                        raise DriverError(CUresult.CUDA_ERROR_NOT_PERMITTED,
                                          f"{_call_name(args, kwargs)} was called from inside a host function or "
                                          "callback; the simulator refuses every CUDA call made there (spec 3.9) "
                                          "[inferred]")
                    if self._closed:  # closed, or a forked child's (issue 19 item 5, P-80: 3, with its why)
                        raise (DriverError(CUresult.CUDA_ERROR_NOT_INITIALIZED, self._forked) if self._forked else
                               DriverError(CUresult.CUDA_ERROR_DEINITIALIZED,
                                           "the simulated driver was closed (Driver.close), as during shutdown"))
                    raise DriverError(CUresult.CUDA_ERROR_NOT_INITIALIZED,
                                      f"{_call_name(args, kwargs)}: cuInit has not been called" + (
                        "" if self.available else " (the simulated machine has no usable driver)"))
                if not self._hooks or (hooks := self._hooks.get(name)) is None:
                    # no keywords: skip the empty dict merge (the checker cannot see kwargs is empty here)
                    return fn(self, *args, **kwargs) if kwargs else fn(self, *args)  # type: ignore[call-arg]
                return _hooked(self, fn, hooks, args, kwargs)
            except DriverError as e:
                self._record_failure(t, _call_name(args, kwargs), e)
                raise
            finally:
                sch = self.scheduler
                if sch.due_user_objects and not t.in_host_fn:  # user objects whose last reference this call dropped
                    sch.run_destructors()
        finally:
            lock.release()

    def _call_name(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
        if call_pos < 0:
            return default_call
        c = kwargs.get("call")
        if c is None:
            c = args[call_pos] if len(args) > call_pos else call_default
        return c if isinstance(c, str) else default_call
    wrapper.__wrapped_entry__ = True  # type: ignore[attr-defined]  # a marker attribute on the function object
    return wrapper


def _check_arguments(devices: Any, available: Any, progression: Any, options: Any) -> None:
    """The constructor's arguments, checked before anything is made: ``TypeError`` for a value of the wrong
    type, ``ValueError`` for a wrong value (an empty device list, an unknown progression)."""
    if devices is not None:
        if not isinstance(devices, (list, tuple)) or not all(isinstance(d, DeviceSpec) for d in devices):
            raise TypeError(f"devices must be a list of simcuda.DeviceSpec (or None for one default device), "
                            f"got {devices!r}")
        if not devices:
            raise ValueError("devices must name at least one DeviceSpec (None gives one default device)")
    if not isinstance(available, bool):
        raise TypeError(f"available must be True or False, got {available!r}")
    if progression not in ("immediate", "manual"):
        raise ValueError(f"progression must be 'immediate' or 'manual', got {progression!r}")
    if options is not None and not isinstance(options, Options):
        raise TypeError(f"options must be a simcuda.Options (or None), got {type(options).__name__}")


class DriverState:
    """One simulated driver's shared state: lock, counters, logs, and its services (the scheduler among them)."""

    #: raise :class:`~simcuda._core.errors.CallFailed` at every failed call (:func:`simcuda.faults.raise_failures`);
    #: a class default, so that a failure recorded while the driver is still being built finds it
    raise_failures = False

    def __init__(self, devices: list[DeviceSpec] | None = None, available: bool = True,
                 progression: str = "immediate", options: Options | None = None) -> None:
        _check_arguments(devices, available, progression, options)
        self._lock = threading.RLock()
        self._hooks: dict[str, list[Hook]] = {}
        self.available = available
        self.progression = progression
        self.options = options or Options()
        self.devices = [Device(i, s) for i, s in enumerate(devices or [DeviceSpec()])]
        self.serial = process.register_driver(self)
        self.memory = MemorySpace(self.serial, self.options.host_memory_budget, self._lock)
        self.launch_log = LaunchLog(self.options.launch_log_limit)
        self.error_log: list[ErrorRecord] = []
        self.kernels: dict[str, Callable[[KernelLaunch], Any]] = {}
        self.counters = Counters()
        self._initialized = False
        self._closed = False
        self._forked = ""  # the why of every call in a forked child (after_fork_in_child), "" in the parent
        # the common path of every entry: initialised, not closed, no hooks (kept by init, close and add_hook;
        # Driver.launch_kernel_fast reads it alone)
        self._common = False
        # the services: each owns its state and is reached through its public methods (handles and their
        # resolvers, threads and current contexts, the capture registry; the memory space above)
        self.handles = Handles(self.serial)
        self.threads = Threads()
        self.captures = cap.CaptureRegistry()
        self.variables = ModuleVariables(self.memory)
        #: the handle table (handle -> the object it names), typed read-only: what the native route's launch
        #: path reads beside the core's resolvers
        self.objects: Mapping[int, Any] = self.handles.objects
        #: the calling thread's state (:meth:`simcuda._core.threads.Threads.current`; the native adapters keep it)
        self.thread_state = self.threads.current
        self._ctx_counter = 0
        self.per_thread_mode: bool | None = self.options.per_thread_default_stream
        #: the scheduler that runs work (:class:`simcuda._core.work.Scheduler`): the entry groups, the rule
        #: engine, the graph model and the node kinds call it (their Protocols name it ``scheduler``); it owns the
        #: simulated clock, the process-wide fault and the user objects whose destructors are due
        self.scheduler = Scheduler(self)

    @property
    def stats(self) -> dict[str, int]:
        """The counters (see :class:`~simcuda._core.facade.Driver`), brought up to date when read."""
        return self.counters.counts()

    def sticky_error(self) -> int:
        """The sticky error code of the calling thread's current context (a Python kernel's fault, P-9), 0 when it
        has none (or there is no current context). Reads only; what the runtime's ``cudaGetLastError`` reports."""
        ctx = self.threads.current().current
        return int(ctx.fault.code) if ctx is not None and ctx.fault is not None else 0

    @property
    def kernels_without_implementation(self) -> dict[str, int]:
        """Kernels that ran (a launch outside a capture, or a replayed kernel node) with no Python implementation
        registered (:func:`simcuda.kernel`, ``Driver.kernels``): entry name -> how many times; their launches were
        recorded only, so the memory they would have written is unchanged. A copy; simcuda's own, nothing in CUDA
        corresponds to it."""
        return dict(self.counters.unimplemented)

    # ------------------------------------------------------------------ internals
    def add_hook(self, name: str, before: Callable[..., Any] | None = None,
                 after: Callable[..., Any] | None = None, failed: Callable[..., Any] | None = None) -> None:
        """Observe a core entry point (tools such as ``simcuda run``'s recorder, without subclassing).

        Args:
            name: the core method name (``"graph_destroy"``); a key of :data:`ENTRIES`.
            before: ``before(driver, args, kwargs) -> token``, called under the lock after the preamble
                (initialisation, host-function rule), before the entry's body; one that raises a
                :class:`DriverError` refuses the call with it (:func:`simcuda.faults.inject`), and the ``failed``
                hooks then see that error, with a ``None`` token for the hooks whose ``before`` did not run.
            after: ``after(driver, args, kwargs, result, token)``, called under the lock when the entry
                succeeded, with the token ``before`` returned (None without one).
            failed: ``failed(driver, args, kwargs, error, token)``, called under the lock when the entry's body
                raised the :class:`DriverError` ``error`` (the state is what the failure left), before it
                propagates.

        Raises ``ValueError`` for a name that is no entry. Hooks must not change the driver's state.
        """
        if name not in ENTRIES:
            raise ValueError(f"{name!r} is not a core entry point of simcuda.Driver")
        with self._lock:
            self._hooks.setdefault(name, []).append((before, after, failed))
            self._common = False

    def remove_hook(self, name: str, before: Callable[..., Any] | None = None,
                    after: Callable[..., Any] | None = None, failed: Callable[..., Any] | None = None) -> None:
        """Take off a hook :meth:`add_hook` put on entry ``name`` with the same three functions (the first such);
        once an entry has no hook left, its calls take the common path again. Removing a hook that is not there
        does nothing (fault injection and call recorders remove theirs on exit, whatever happened inside)."""
        with self._lock:
            hooks = self._hooks.get(name)
            if hooks is None:
                return
            key = (before, after, failed)
            if key in hooks:  # ``==``: a bound method is equal to itself taken again
                hooks.remove(key)
            if not hooks:
                del self._hooks[name]
            self._common = self._initialized and not self._closed and not self._hooks

    def _record_failure(self, t: ThreadState, call: str, e: DriverError) -> None:
        """The entry wrapper's bookkeeping of a failed call: ``t``'s last error and an :attr:`error_log` record;
        with :attr:`raise_failures`, then :class:`~simcuda._core.errors.CallFailed` (the first failing call, a
        nested entry's included)."""
        t.last_error = e.detached()
        if len(self.error_log) < 100_000:
            self.error_log.append(ErrorRecord(call, int(e.code), e.why, t.name))
        if self.raise_failures:  # simcuda.faults.raise_failures: the failure raises where the call was made
            raise CallFailed(call, int(e.code), e.why) from e

    def record_internal_error(self, call: str, exc: BaseException) -> ErrorRecord:
        """Record that ``call`` answered ``CUDA_ERROR_UNKNOWN`` (999) because ``exc`` escaped simcuda (a simulator
        bug: the native route's adapters, which cannot raise through C, answer 999 for it): an
        :attr:`error_log` record marked ``internal``, its why from :func:`~simcuda._core.logs.internal_why`
        (``simcuda run --explain`` and the pytest report list it under ``INTERNAL_TITLE``). Takes no lock (the
        exception may have left the driver's lock held by this thread; ``list.append`` is atomic) and is kept
        even past the log's cap of 100,000 failures."""
        import threading
        rec = ErrorRecord(call, 999, internal_why(exc), threading.current_thread().name, internal=True)
        self.error_log.append(rec)
        return rec

    def discard_graph(self, g: gr.Graph) -> None:
        """Mark ``g``, its nodes and every graph nested in them destroyed (iterative: any depth); their
        user-object references are released."""
        stack = [g]
        forget = self.handles.forget  # issue 19 item 1: a destroyed graph leaves the table (P-79)
        self.captures.forget(g)
        while stack:
            g = stack.pop()
            g.destroyed = True
            forget(g)
            if g.user_refs:  # a destroyed graph releases its user-object references
                release_refs(g.user_refs, self.scheduler.due_user_objects)
            for n in g.nodes:
                n.destroyed = True
                forget(n)
                if n.type == gr.GRAPH and not n.params.graph.destroyed:
                    stack.append(n.params.graph)
                elif n.type == gr.CONDITIONAL:  # its body graphs go with it (P-21)
                    stack.extend(b for b in n.params.bodies if not b.destroyed)

    def resolve_per_thread_mode(self) -> bool:
        """Whether handle 0 names the per-thread default stream (spec 6.1): fixed on first use from
        ``CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM`` (non-zero: per-thread), as the binding reads it; a
        malformed value raises ``ValueError`` as the binding's ``int()`` does, on every call until fixed."""
        if self.per_thread_mode is None:
            raw = os.environ.get("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM")
            self.per_thread_mode = bool(int(raw)) if raw is not None else False  # ValueError like the binding
        return self.per_thread_mode

    def on_common_path(self) -> bool:
        """Whether the driver is on the common path of every entry (initialised, not closed, no hooks), where a
        caller may skip checks that answer nothing and change nothing (the native launch adapters)."""
        return self._common

    def _stream(self, h: int, t: ThreadState | None = None) -> Stream:
        """Resolve a stream handle with the preamble checks of spec section 3."""
        if h == 0 or h in (CU_STREAM_LEGACY, CU_STREAM_PER_THREAD):
            t = t or self.threads.current()
            ctx = self.threads.ctx_current(t)
            if h == CU_STREAM_PER_THREAD or (h == 0 and self.resolve_per_thread_mode()):
                # the stream when it exists (no bound method made on the hot path), else made by its context
                return ctx.per_thread.get(t.tid) or ctx.per_thread_stream(t, self.handles.next_stream_id)
            return ctx.legacy_stream()
        s = self.objects.get(h)
        if not isinstance(s, Stream):
            if (why := self.handles.destroyed_why(h, "stream")) is not None:  # swept from the table (P-79)
                raise DriverError(CUresult.CUDA_ERROR_CONTEXT_IS_DESTROYED, why + " (spec 3 preamble)")
            raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE,
                              f"0x{h:x} is not a stream handle (never created by this driver) "
                              "[inferred: NVIDIA documents this as undefined behaviour]" + self.handles.foreign(h))
        if s.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_CONTEXT_IS_DESTROYED,
                              f"stream 0x{h:x} was destroyed (spec 3 preamble; observed on NVIDIA)")
        ctx = s.ctx
        if ctx.destroyed or ctx.fault is not None:
            if ctx.destroyed:
                raise DriverError(CUresult.CUDA_ERROR_CONTEXT_IS_DESTROYED,
                                  f"the context of stream 0x{h:x} was destroyed")
            raise sticky(ctx)
        return s

    def _device(self, dev: int) -> Device:
        if not isinstance(dev, int) or not 0 <= dev < len(self.devices):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_DEVICE,
                              f"device {dev} does not exist (this driver has {len(self.devices)} device(s))")
        return self.devices[dev]

    # -- work progression ---------------------------------------------------------------------
    def _log(self, rec: dict[str, Any]) -> None:
        """Add a record of stream work made of ``rec`` (the fields of :class:`LaunchRecord` but ``seq``) to
        :attr:`launch_log` (counted even when not kept)."""
        log = self.launch_log
        if log.limit == 0:
            log.total += 1
            return
        log.add((rec["source"], rec["kind"], rec["detail"], rec["stream"], rec.get("exec_handle", 0),
                 rec.get("launch", 0), rec.get("graph_id", 0)), rec.get("node", -1), rec.get("note", ""))

    def refuse(self, call: str, code: int, why: str) -> DriverError:
        """Build (and record, like any failed call) an error whose code no core rule decides.

        Only for runtime-only codes of rules only the runtime has (a ``cudaError_t`` with no ``CUresult``
        twin: cudaErrorInvalidMemcpyDirection, cudaErrorInvalidPitchValue), and for :meth:`not_simulated`.
        A face that finds a driver-level problem reports it to an entry (:meth:`require_arg` and the other
        argument rules of :mod:`simcuda._core.arguments`), which decides the code. The error is
        stored as the thread's :meth:`last_error` and in :attr:`error_log`; the caller returns or raises it.
        """
        e = DriverError(code, why)
        with self._lock:
            self._record_failure(self.threads.current(), call, e)
        return e

    def not_simulated(self, call: str, why: str) -> DriverError:
        """Build (and record) the NOT_SUPPORTED (801) error of an entry point or feature the simulator does
        not simulate; the caller returns or raises it. Like :meth:`refuse`, it needs no ``cuInit``: a stub
        always answers 801 (docs/supported-api.md)."""
        return self.refuse(call, CUresult.CUDA_ERROR_NOT_SUPPORTED, why)

    def close(self) -> None:
        """Simulate driver shutdown: every later call returns CUDA_ERROR_DEINITIALIZED (4).

        The driver's device memory goes with it: its pages are dropped and its addresses stay reserved
        (never reused by a later driver, and recognised as this one's in ``why`` texts). Host code must
        not touch managed memory of a closed driver, as after the real driver's shutdown.
        """
        with self._lock:
            self._closed = True
            self._common = False
            self.scheduler.abandon_inflight()
            self.memory.retire()

    def after_fork_in_child(self, why: str) -> None:
        """This driver lives on in a forked child (``os.register_at_fork``, :mod:`simcuda._core.process`): a new lock
        (a thread that held the old one at the fork does not exist here: waiting for it would block forever), and
        every later call, ``cuInit`` included, answers CUDA_ERROR_NOT_INITIALIZED (3) with ``why`` (issue 19 item
        5; docs/spec-proposals.md P-80) [I]."""
        self._lock = lock = threading.RLock()
        self.memory.after_fork_in_child(lock)
        self._forked = why
        self._closed = True
        self._common = False

    def _queue_blocking(self, legacy: Stream) -> bool:
        return any(st.ctx is legacy.ctx and st.blocking for _, st, _ in self.scheduler.queue)

    def _ctx_streams(self, ctx: Context) -> list[Stream]:
        """Every stream of ``ctx``: its user streams, per-thread streams and legacy stream."""
        return ctx_streams(ctx)

    def thread_id(self) -> int:
        """The calling thread's serial id in this driver (never reused, unlike Python thread idents)."""
        with self._lock:
            return self.threads.current().tid

    def last_error(self) -> DriverError | None:
        """The last failing core call's error on the calling thread (code and ``why``), or None."""
        with self._lock:
            return self.threads.current().last_error
