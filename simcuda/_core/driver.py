"""The simulated CUDA driver: one object holding every handle, thread fact and rule input.

``Driver`` methods are the core entry points. They take plain Python values (``int`` handles,
``int`` enum values, byte counts), apply the preamble checks of spec section 3 (initialisation,
handles, contexts), hand every capture decision to :mod:`simcuda._core.capture`, and either
return a value or raise :class:`~simcuda._core.errors.DriverError`. They know nothing about the
faces. Every entry takes the driver's ``RLock`` for its whole body.
"""
from __future__ import annotations

import ctypes
import functools
import inspect
import os
import struct
import threading
import weakref
from typing import Any, Callable

import attrs

from . import capture as cap
from . import graph as gr
from . import hostmem, process
from .errors import DriverError
from .memory import (DEVICE, HOST, KIND_DEVICE, KIND_GRAPH, KIND_MANAGED, CopyParams, MemorySpace,
                     MemsetParams, check_copy, check_memset, do_copy, do_memset)
from .module import parse_image, struct_format
from .objects import (CAPTURED, EMPTY, LEGACY, PER_THREAD, RECORDED, USER, CigRecord, Context, Device,
                      Event, Function, Module, Stream, ThreadState)

CU_STREAM_LEGACY = 1
CU_STREAM_PER_THREAD = 2
HANDLE_STEP = process.HANDLE_STEP
DRIVER_VERSION = 13050  # CUDA 13.5


@attrs.frozen
class DeviceSpec:
    """Configuration of one simulated device.

    Attributes:
        name: the marketing name ``cuDeviceGetName`` returns.
        compute_capability: ``(major, minor)``.
        total_mem: bytes of device memory (allocations beyond it fail with OUT_OF_MEMORY).
        multiprocessors: SM count.
        cig_d3d12, cig_vulkan: CIG context support (attributes 135 and 138).
        cig_d3d12_streams, cig_vulkan_streams: CIG stream support (attributes 151 and 159).
        attributes: overrides for any ``CUdevice_attribute`` value (int -> int).
    """

    name: str = "NVIDIA H100 80GB HBM3 (simulated)"
    compute_capability: tuple = (9, 0)
    total_mem: int = 80 * 1024 ** 3
    multiprocessors: int = 132
    cig_d3d12: bool = True
    cig_vulkan: bool = True
    cig_d3d12_streams: bool = True
    cig_vulkan_streams: bool = True
    attributes: dict = attrs.field(factory=dict)


@attrs.frozen
class Options:
    """Simulator choices that the spec leaves open (each is a documented fidelity choice).

    Attributes:
        graph_launch_in_capture: ``"reject"`` (default: 900 and invalidation, spec 3.8) or
            ``"child-node"`` (the opt-in: the launch adds a GRAPH node holding a copy of the exec as
            instantiated, or as updated since) [inferred].
        cig_end_any_thread: allow ``cuStreamEndCaptureToCig`` from another thread (spec 8.4, off).
        per_thread_default_stream: ``None`` reads ``CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM``
            when the face first needs the driver (spec 6.1); ``True``/``False`` force the mode.
        host_memory_budget: bytes that the device, managed and mapped graph allocations of all the
            process's drivers may hold together before an allocation of this driver fails with
            ``CUDA_ERROR_OUT_OF_MEMORY`` (2), so that touching simulated memory cannot exhaust the host.
            ``None``: three quarters of the memory available when the driver is made. Counted on
            allocated bytes, touched or not (an untouched allocation costs no memory, but could).
    """

    graph_launch_in_capture: str = "reject"
    cig_end_any_thread: bool = False
    per_thread_default_stream: Any = None
    host_memory_budget: int | None = attrs.field(default=None)

    @host_memory_budget.validator
    def _check_budget(self, _attr: Any, value: Any) -> None:
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise ValueError(f"host_memory_budget must be None or a non-negative int of bytes, got {value!r}")


@attrs.frozen
class LaunchRecord:
    """One unit of work that ran (``driver.launch_log``).

    Attributes:
        seq: 0-based position in the log.
        source: ``"stream"`` (ordinary stream work) or ``"graph"`` (a node replayed by cuGraphLaunch).
        kind: ``KERNEL``, ``MEMCPY``, ``MEMSET``, ``HOST``, ... (graph node type keyword) or the op kind.
        detail: kernel name, copy direction and size, and the like.
        stream: the stream handle the work ran on.
        exec_handle: the graph exec handle (graph work only), else 0.
        launch: the exec's 1-based launch number (graph work only), else 0.
        graph_id: the id of the graph the node belongs to (graph work only), else 0.
        node: the node's local id (graph work only), else -1.
        note: what the simulator did beyond recording (``"ran Python kernel"``, ``"recorded only"``...).
    """

    seq: int
    source: str
    kind: str
    detail: str
    stream: int
    exec_handle: int = 0
    launch: int = 0
    graph_id: int = 0
    node: int = -1
    note: str = ""


@attrs.frozen
class ErrorRecord:
    """A failed core call: its name, code and why (for ``simcuda run --explain``)."""

    call: str
    code: int
    why: str
    thread: str


class KernelLaunch:
    """What a registered Python kernel receives (``simcuda.kernel``).

    Attributes:
        name: the kernel's entry name.
        grid, block: ``(x, y, z)`` dimensions.
        shared_mem: dynamic shared memory in bytes.
        args: the decoded argument values (device pointers as ``int``).
    """

    def __init__(self, driver: "Driver", name: str, grid: tuple, block: tuple, shared_mem: int, args: list) -> None:
        self.driver, self.name, self.grid, self.block, self.shared_mem, self.args = \
            driver, name, grid, block, shared_mem, args

    def view(self, ptr: int, nbytes: int) -> memoryview:
        """A writable byte view of ``nbytes`` of simulated device memory at ``ptr``."""
        return self.driver.memory.device_view(int(ptr), nbytes, "kernel argument")

    def array(self, ptr: int, dtype: Any, count: int) -> Any:
        """A writable numpy array of ``count`` elements of ``dtype`` over device memory at ``ptr``."""
        import numpy as np
        dt = np.dtype(dtype)
        return np.frombuffer(self.view(ptr, dt.itemsize * count), dtype=dt)


#: op kinds whose work calls user code (run with the lock released, their stream marked busy)
_USER_CODE_OPS = frozenset({"host", "callback", "kernel", "graph_launch"})

#: kernels registered with ``simcuda.kernel``: name -> Python function(launch)
KERNELS: dict[str, Callable[[KernelLaunch], Any]] = {}

_NO_INIT_NEEDED = frozenset({"init", "driver_get_version", "get_error_name", "get_error_string"})


def _c_name(method: str) -> str:
    """The driver API name of a core method: ``stream_end_capture`` -> ``cuStreamEndCapture``."""
    return "cu" + "".join(part[:1].upper() + part[1:] for part in method.split("_"))


def entry(fn: Callable) -> Callable:
    """Wrap a core entry point: lock, init check, host-function rule, error bookkeeping.

    Errors are logged under the driver API name of the call (a ``call`` argument, when the method
    serves several entry points, else the method's name in CUDA spelling).
    """
    name = fn.__name__
    default_call = _c_name(name)
    params = list(inspect.signature(fn).parameters)
    call_pos = params.index("call") - 1 if "call" in params else -1  # minus ``self``
    call_default = inspect.signature(fn).parameters["call"].default if call_pos >= 0 else default_call
    needs_init = name not in _NO_INIT_NEEDED

    @functools.wraps(fn)
    def wrapper(self: "Driver", *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            t = self._thread()
            try:
                if t.in_host_fn:
                    raise DriverError(800, f"{_call_name(args, kwargs)} was called from inside a host function or "
                                           "callback; the simulator refuses every CUDA call made there (spec 3.9) "
                                           "[inferred]")
                if needs_init:
                    if self._closed:
                        raise DriverError(4, "the simulated driver was closed (Driver.close), as during shutdown")
                    if not self._initialized:
                        raise DriverError(3, f"{_call_name(args, kwargs)}: cuInit has not been called" + (
                            "" if self.available else " (the simulated machine has no usable driver)"))
                return fn(self, *args, **kwargs)
            except DriverError as e:
                t.last_error = e
                if len(self.error_log) < 100_000:
                    self.error_log.append(ErrorRecord(_call_name(args, kwargs), int(e.code), e.why, t.name))
                raise

    def _call_name(args: tuple, kwargs: dict) -> str:
        if call_pos < 0:
            return default_call
        c = kwargs.get("call")
        if c is None:
            c = args[call_pos] if len(args) > call_pos else call_default
        return c if isinstance(c, str) else default_call
    wrapper.__wrapped_entry__ = True  # type: ignore[attr-defined]
    return wrapper


class Driver:
    """An in-memory CUDA driver: devices, contexts, streams, events, memory, modules, graphs.

    Mirrors: ``libcuda`` as seen through ``cuda.bindings.driver`` 13.5.

    Args:
        devices: one :class:`DeviceSpec` per simulated device (default: one H100-like device).
        available: ``False`` simulates a machine without a usable driver: ``cuInit`` returns
            ``CUDA_ERROR_NO_DEVICE`` (100) and every other call ``CUDA_ERROR_NOT_INITIALIZED`` (3).
        progression: ``"immediate"`` (work enqueued outside capture completes at once) or
            ``"manual"`` (work stays pending, queries return NOT_READY, until :meth:`advance`).
        options: :class:`Options` for the spec's open choices.

    The object is ordinary: tests may create as many as they like. The faces act on the
    current default driver (``simcuda.use``, ``simcuda.reset``). Each driver has its own range of
    handles and of device addresses (:mod:`simcuda._core.process`): a value of another driver is
    refused as an invalid one, with a ``why`` naming the driver it came from.

    Threads: every entry takes the driver's lock, except while user code runs (host functions,
    host nodes, Python kernels), which runs with the lock released as on a driver thread; other
    threads' work on the same stream waits behind it and their synchronising calls wait for it.
    Fidelity notes: under ``progression="manual"`` queued work runs in one global enqueue order, so
    a synchronisation from another thread while a host function of queued work runs waits for that
    host function even on an unrelated stream (a host function that waits for such a call would
    deadlock here, not on a GPU); and the legacy stream's implicit synchronisation with blocking
    streams does not wait for a host function running on one of them.
    """

    def __init__(self, devices: list[DeviceSpec] | None = None, available: bool = True,
                 progression: str = "immediate", options: Options | None = None) -> None:
        if progression not in ("immediate", "manual"):
            raise ValueError("progression must be 'immediate' or 'manual'")
        self._lock = threading.RLock()
        self.available = available
        self.progression = progression
        self.options = options or Options()
        self.devices = [Device(i, s) for i, s in enumerate(devices or [DeviceSpec()])]
        self.serial = process.register_driver(self)
        self.memory = MemorySpace(self.serial, self.options.host_memory_budget, self._lock)
        self.launch_log: list[LaunchRecord] = []
        self.error_log: list[ErrorRecord] = []
        self.kernels: dict[str, Callable[[KernelLaunch], Any]] = {}
        self.stats = {"captures_begun": 0, "captures_ended": 0, "graph_launches": 0, "kernel_launches": 0}
        self._captured_graphs: list[gr.Graph] = []
        self._initialized = False
        self._closed = False
        self._objs: dict[int, Any] = {}
        self._next_h = process.handle_base(self.serial)
        self._threads: dict[int, ThreadState] = {}
        self._thread_serial = 0
        self._live_captures: dict[int, cap.CaptureSequence] = {}
        self._capture_counter = 0
        self._graph_counter = 0
        self._ctx_counter = 0
        self._stream_counter = 0
        self._clock_ms = 0.0
        self._ticket = 0
        self._queue: list[tuple[int, Stream, Any]] = []
        self._idle = threading.Condition(self._lock)  # notified when user code or a drain finishes
        self._draining = 0  # the thread running queued work (manual progression), 0 when none
        self.per_thread_mode: bool | None = self.options.per_thread_default_stream
        self._all_graphs: list[gr.Graph] = []

    # ------------------------------------------------------------------ internals
    def _handle(self, obj: Any) -> int:
        h = self._next_h
        self._next_h += HANDLE_STEP
        self._objs[h] = obj
        return h

    def _foreign(self, h: Any) -> str:
        """A ``why`` suffix naming the driver a handle value came from, when it is another one's (else "")."""
        return process.foreign(process.handle_owner(h), self.serial, "handle")

    def _thread(self) -> ThreadState:
        """This thread's state. Python reuses thread idents, so the state remembers its thread object:
        a new thread with a recycled ident starts afresh (GLOBAL mode, no context; spec 1, 2.5), and
        ``ThreadState.tid`` is a serial number that is never reused within the driver."""
        ident = threading.get_ident()
        t = self._threads.get(ident)
        cur = threading.current_thread()
        if t is None or t.thread_ref() is not cur:
            self._thread_serial += 1
            t = self._threads[ident] = ThreadState(self._thread_serial, cur.name)
            t.thread_ref = weakref.ref(cur)
        return t

    def _next_capture_id(self) -> int:
        self._capture_counter += 1
        return self._capture_counter

    def _new_graph(self, ctx: Any = None) -> gr.Graph:
        self._graph_counter += 1
        g = gr.Graph(0, self._graph_counter, ctx)
        g.handle = self._handle(g)
        self._all_graphs.append(g)
        return g

    def _new_node(self, graph: gr.Graph, ntype: int, params: Any) -> gr.Node:
        n = gr.Node(0, graph, graph.next_local, ntype, params)
        graph.next_local += 1
        n.handle = self._handle(n)
        graph.add_node(n)
        return n

    def _discard_graph(self, g: gr.Graph) -> None:
        g.destroyed = True
        for n in g.nodes:
            n.destroyed = True
            if n.type == gr.GRAPH:
                self._discard_graph(n.params["graph"])

    def _ctx_current(self, t: ThreadState | None = None) -> Context:
        t = t or self._thread()
        ctx = t.current
        if ctx is None:
            raise DriverError(201, f"thread {t.name} has no current context (cuCtxSetCurrent / cuCtxCreate / "
                                   "cuDevicePrimaryCtxRetain first)")
        if ctx.destroyed:
            raise DriverError(709, f"the current context 0x{ctx.handle:x} of thread {t.name} was destroyed")
        return ctx

    def _per_thread_mode(self) -> bool:
        if self.per_thread_mode is None:
            raw = os.environ.get("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM")
            self.per_thread_mode = bool(int(raw)) if raw is not None else False  # ValueError like the binding
        return self.per_thread_mode

    def _legacy_of(self, ctx: Context) -> Stream:
        if ctx.legacy is None:
            ctx.legacy = Stream(CU_STREAM_LEGACY, ctx, 0, 0, LEGACY, 0)
        return ctx.legacy

    def _per_thread_of(self, ctx: Context, t: ThreadState) -> Stream:
        s = ctx.per_thread.get(t.tid)
        if s is None:
            s = ctx.per_thread[t.tid] = Stream(CU_STREAM_PER_THREAD, ctx, 0, 0, PER_THREAD,
                                               self._next_stream_id(), owner=t.tid)
            s.owner = t.name  # type: ignore[assignment]
        return s

    def _next_stream_id(self) -> int:
        self._stream_counter += 1
        return self._stream_counter

    def _stream(self, h: int, t: ThreadState | None = None) -> Stream:
        """Resolve a stream handle with the preamble checks of spec section 3."""
        if h == 0 or h == CU_STREAM_LEGACY or h == CU_STREAM_PER_THREAD:
            t = t or self._thread()
            ctx = self._ctx_current(t)
            if h == CU_STREAM_PER_THREAD or (h == 0 and self._per_thread_mode()):
                return self._per_thread_of(ctx, t)
            return self._legacy_of(ctx)
        s = self._objs.get(h)
        if not isinstance(s, Stream):
            raise DriverError(400, f"0x{h:x} is not a stream handle (never created by this driver) "
                                   "[inferred: NVIDIA documents this as undefined behaviour]" + self._foreign(h))
        if s.destroyed:
            raise DriverError(709, f"stream 0x{h:x} was destroyed (spec 3 preamble; observed on NVIDIA)")
        if s.ctx.destroyed:
            raise DriverError(709, f"the context of stream 0x{h:x} was destroyed")
        return s

    def _event(self, h: int) -> Event:
        e = self._objs.get(h) if h else None
        if not isinstance(e, Event):
            raise DriverError(400, f"0x{h:x} is not an event handle{self._foreign(h)}" if h else
                              "the event handle is NULL")
        if e.destroyed:
            raise DriverError(400, f"event 0x{h:x} was destroyed")
        return e

    def _graph(self, h: int) -> gr.Graph:
        g = self._objs.get(h) if h else None
        if not isinstance(g, gr.Graph) or g.destroyed:
            raise DriverError(1, "the graph handle is NULL" if not h else
                              f"0x{h:x} is not a live graph (never created, or destroyed){self._foreign(h)}")
        return g

    def _node(self, h: int, what: str = "node") -> gr.Node:
        n = self._objs.get(h) if h else None
        if not isinstance(n, gr.Node) or n.destroyed:
            raise DriverError(1, f"the {what} handle is NULL" if not h else
                              f"0x{h:x} is not a live graph node (never created, or destroyed){self._foreign(h)}")
        return n

    def _exec(self, h: int) -> gr.GraphExec:
        x = self._objs.get(h) if h else None
        if not isinstance(x, gr.GraphExec) or x.destroyed:
            raise DriverError(1 if not h else 400, "the graph exec handle is NULL" if not h else
                              f"0x{h:x} is not a live graph exec (never created, or destroyed){self._foreign(h)}")
        return x

    def _exec_to_run(self, h: int, call: str) -> gr.GraphExec:
        """The exec of ``cuGraphLaunch`` / ``cuGraphUpload``: a destroyed exec is INVALID_VALUE there
        (spec 16, 9) [O/H: hip-tests, shared expectation]; otherwise as :meth:`_exec` (1 NULL, 400 garbage)."""
        x = self._objs.get(h) if h else None
        if isinstance(x, gr.GraphExec) and x.destroyed:
            raise DriverError(1, f"{call}: graph exec 0x{h:x} was destroyed; launching or uploading a destroyed exec "
                                 "is CUDA_ERROR_INVALID_VALUE (spec 16, 9)")
        return self._exec(h)

    def _context(self, h: int) -> Context:
        c = self._objs.get(h) if h else None
        if not isinstance(c, Context):
            raise DriverError(201, "the context handle is NULL" if not h else
                              f"0x{h:x} is not a context handle{self._foreign(h)}")
        if c.destroyed:
            raise DriverError(709, f"context 0x{h:x} was destroyed")
        return c

    def _device(self, dev: int) -> Device:
        if not isinstance(dev, int) or not 0 <= dev < len(self.devices):
            raise DriverError(101, f"device {dev} does not exist (this driver has {len(self.devices)} device(s))")
        return self.devices[dev]

    def _function(self, h: int) -> Function:
        f = self._objs.get(h) if h else None
        if not isinstance(f, Function):
            raise DriverError(400, "the function handle is NULL" if not h else
                              f"0x{h:x} is not a function handle{self._foreign(h)}")
        if f.module.unloaded:
            raise DriverError(400, f"function {f.name} belongs to an unloaded module")
        m = f.module
        if not m.is_library and m.ctx is not None and m.ctx.destroyed:
            raise DriverError(201, f"function {f.name} belongs to a module of context 0x{m.ctx.handle:x}, which was "
                                   "destroyed (cuCtxDestroy unloads its modules) [inferred code]")
        return f

    # -- work progression ---------------------------------------------------------------------
    def _log(self, rec: dict) -> None:
        self.launch_log.append(LaunchRecord(seq=len(self.launch_log), **rec))

    # User code (host functions, host nodes, Python kernels) runs without the driver lock, as on a
    # thread of the driver's own: other threads may call the driver meanwhile. Stream order still
    # holds: while user code of a stream's work runs (``Stream.busy``), work enqueued on that stream
    # by other threads waits in ``Stream.deferred`` (immediate progression) or in the queue (manual),
    # a synchronising call from another thread waits for it (``_wait_idle``), and queries say NOT_READY.
    # A replay keeps its exec body (never mutated once shared) and its exec alive until it finishes.
    def _unlocked(self, fn: Callable, *args: Any) -> Any:
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

    def _submit(self, stream: Stream, op: cap.Op) -> None:
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

    def _execute(self, stream: Stream, op: cap.Op, runner: Callable | None) -> None:
        """Run one eager stream operation; it advances the simulated clock by one tick unless it is an
        event record or a graph launch (whose replayed nodes tick instead) (spec 16) [I]."""
        if op.kind not in gr.CLOCK_FREE_OPS:
            self._clock_ms += gr.TICK_MS
        if runner is None:
            note = ""
        elif op.kind in _USER_CODE_OPS:
            note = self._run_user_op(stream, runner)
        else:
            note = runner()
        if op.kind not in ("event_record", "graph_launch", "wait"):
            self._log({"source": "stream", "kind": op.kind.upper(), "detail": cap._op_label(op),
                       "stream": stream.handle, "note": note or ""})
        if stream.deferred and not stream.busy:
            self._run_deferred(stream)

    def _run_user_op(self, stream: Stream, runner: Callable) -> Any:
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

    def _wait_idle(self, streams: Any) -> None:
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
                                or not stream.pending and not (stream.is_legacy and self._queue)):
            event.time_ms = self._clock_ms
            event.pending_on = None
        else:
            event.time_ms = None
            event.pending_on = stream

            def complete() -> str:
                event.time_ms = self._clock_ms
                event.pending_on = None
                return ""
            op = cap.Op("event_record", "cuEventRecord", None, complete)
            self._submit(stream, op)
            event.pending_ticket = self._ticket

    def _complete_event(self, event: Event) -> None:
        if not event.destroyed:
            event.state = RECORDED
            event.capture = None
            event.time_ms = self._clock_ms

    def _wait_uncaptured(self, stream: Stream, event: Event) -> None:
        return None  # enqueue order already runs the record first (single global queue)

    def _run_kernel(self, p: dict) -> str:
        fn = self.kernels.get(p["name"]) or KERNELS.get(p["name"])
        if fn is None:
            return "recorded only (no Python kernel registered)"
        launch = KernelLaunch(self, p["name"], p["grid"], p["block"], p["shmem"], p["args"])
        self._unlocked(fn, launch)
        return "ran Python kernel"

    def _check_host_fn(self, fn: Any, what: str) -> None:
        """INVALID_VALUE unless an ``int`` function address lies in executable memory (:mod:`hostmem`)."""
        if isinstance(fn, int) and fn:
            hostmem.check(self.memory, fn, 1, "x", what)

    def _call_host_fn(self, fn: Any, user_data: Any, callback_args: tuple | None = None) -> None:
        self._check_host_fn(fn, "host function")  # it may have been unmapped since it was enqueued
        t = self._thread()
        if isinstance(fn, int) and callback_args is not None:
            call, args = gr.STREAM_CALLBACK_TYPE(fn), (callback_args[0], callback_args[1], user_data or None)
        elif isinstance(fn, int):
            call, args = gr.HOST_FN_TYPE(fn), (user_data or None,)
        else:
            call, args = fn, (user_data,)
        t.in_host_fn += 1  # calls from the host function are refused (800, spec 3.9)
        try:
            self._unlocked(call, *args)
        finally:
            t.in_host_fn -= 1

    # ------------------------------------------------------------------ init, devices
    @entry
    def init(self, flags: int = 0) -> None:
        """cuInit. Errors: 1 for flags != 0; 100 when the driver is unavailable."""
        if flags != 0:
            raise DriverError(1, f"cuInit flags must be 0, got {flags}")
        if not self.available:
            raise DriverError(100, "the simulated machine has no CUDA-capable device (Driver(available=False))")
        self._initialized = True

    @entry
    def driver_get_version(self) -> int:
        """cuDriverGetVersion: 13050 (CUDA 13.5)."""
        return DRIVER_VERSION

    def refuse(self, call: str, code: int, why: str) -> DriverError:
        """Build (and record, like any failed call) an error whose code no core rule decides.

        Only for runtime-only codes of rules only the runtime has (a ``cudaError_t`` with no ``CUresult``
        twin: cudaErrorInvalidMemcpyDirection, cudaErrorInvalidPitchValue), and for :meth:`not_simulated`.
        A face that finds a driver-level problem reports it to an entry (:meth:`require_arg` and the other
        argument rules below), which decides the code. The error is stored as the thread's
        :meth:`last_error` and in :attr:`error_log`; the caller returns or raises it.
        """
        e = DriverError(code, why)
        with self._lock:
            t = self._thread()
            t.last_error = e
            if len(self.error_log) < 100_000:
                self.error_log.append(ErrorRecord(call, int(e.code), why, t.name))
        return e

    def not_simulated(self, call: str, why: str) -> DriverError:
        """Build (and record) the NOT_SUPPORTED (801) error of an entry point or feature the simulator does
        not simulate; the caller returns or raises it. Like :meth:`refuse`, it needs no ``cuInit``: a stub
        always answers 801 (docs/supported-api.md)."""
        return self.refuse(call, 801, why)

    # ------------------------------------------------------------------ argument rules the faces report
    # A face unpacks what the core cannot see (parameter structs, argument forms, files); when what it
    # finds breaks a rule of the call, it hands the fact to one of these entries and the core decides the
    # code, so every face returns the same one ("faces translate, never decide", docs/architecture.md).
    @entry
    def get_error_name(self, code: int) -> str:
        """cuGetErrorName: the ``CUresult`` name of ``code``. Errors: 1 for a value that is no ``CUresult``."""
        from .errors import CUresult
        try:
            return CUresult(int(code)).name
        except ValueError:
            raise DriverError(1, f"cuGetErrorName: {code!r} is not a CUresult value") from None

    @entry
    def get_error_string(self, code: int) -> str:
        """cuGetErrorString: the description of ``code`` (the cuda-bindings docstring sentence, spec 10).
        Errors: 1 for a value that is no ``CUresult``."""
        from .._generated.driver_outputs import ERROR_STRINGS
        from .errors import CUresult
        try:
            member = CUresult(int(code))
        except ValueError:
            raise DriverError(1, f"cuGetErrorString: {code!r} is not a CUresult value") from None
        return ERROR_STRINGS.get(int(member), member.name)

    @entry
    def require_arg(self, present: bool, arg: str, call: str) -> None:
        """A required pointer argument (a parameter struct, a name, a config) that is NULL is INVALID_VALUE (1),
        as every entry point's Returns list has it for a NULL required pointer."""
        if not present:
            raise DriverError(1, f"{call}: {arg} is NULL (a required pointer argument may not be NULL)")

    @entry
    def require_count(self, count: int, available: int, what: str, call: str) -> None:
        """A count field larger than the array it counts (``accessDescCount``, ``count``, ``numExtSems``) is
        INVALID_VALUE (1): the driver would read past the array [inferred]."""
        if count > available:
            raise DriverError(1, f"{call}: {what} {count} is larger than its array ({available} entries) "
                                 "[inferred: INVALID_VALUE]")

    @entry
    def check_flags(self, flags: int, allowed: int, what: str, call: str) -> None:
        """A flags argument with bits outside ``allowed`` is INVALID_VALUE (1), as the entry's Returns list has it."""
        if flags & ~allowed:
            raise DriverError(1, f"{call}: {what} 0x{flags:x} have bits outside 0x{allowed:x}")

    @entry
    def check_host_range(self, addr: int, nbytes: int, what: str, call: str) -> int:
        """``addr`` when ``nbytes`` there are readable memory of this process (the face reads them: a
        dependency array, edge data, a struct given by address); else INVALID_VALUE (1) (:mod:`hostmem`)."""
        hostmem.check(self.memory, int(addr), int(nbytes), "r", f"{call}: {what}")
        return int(addr)

    @entry
    def read_image_file(self, path: str, call: str = "cuModuleLoad") -> bytes:
        """The bytes of a module or library file (cuModuleLoad, cuLibraryLoadFromFile). Errors: 301
        FILE_NOT_FOUND when the file cannot be read, as those calls' Returns lists give it."""
        try:
            with open(path, "rb") as fh:
                return fh.read()
        except OSError as e:
            raise DriverError(301, f"{call}: cannot read {path!r}: {e.strerror}") from None

    @entry
    def copy_memory_type(self, memory_type: int, side: str, call: str) -> str:
        """The kind of one side of a CUDA_MEMCPY2D/3D from its ``CUmemorytype``: ``"host"`` (1), ``"device"`` (2)
        or ``"unified"`` (4). Errors: 801 CU_MEMORYTYPE_ARRAY (3), CUDA arrays are not simulated; 1 any other
        value (not a CUmemorytype)."""
        kind = {1: HOST, 2: DEVICE, 4: "unified"}.get(memory_type)
        if kind is not None:
            return kind
        if memory_type == 3:
            raise DriverError(801, f"{call}: CUDA arrays ({side}MemoryType CU_MEMORYTYPE_ARRAY) are not simulated")
        raise DriverError(1, f"{call}: {side}MemoryType {memory_type} is not a CUmemorytype (1 host, 2 device, "
                             "3 array, 4 unified)")

    @entry
    def check_kernel_extra(self, params_given: bool, extra: int, call: str = "cuLaunchKernel") -> None:
        """The ``extra`` argument of a launch or a kernel node. cuLaunchKernel's documentation: "The error
        CUDA_ERROR_INVALID_VALUE will be returned if kernel parameters are specified with both kernelParams
        and extra (i.e. both kernelParams and extra are non-NULL)": 1 when both are given. ``extra`` alone is
        801: kernel arguments packed in a buffer (CU_LAUNCH_PARAM_BUFFER_POINTER) are not simulated."""
        if not extra:
            return
        if params_given:
            raise DriverError(1, f"{call}: kernelParams and extra are both non-NULL; kernel parameters may be "
                                 "given through one of them only (cuLaunchKernel documentation)")
        raise DriverError(801, f"{call}: kernel arguments through 'extra' (CU_LAUNCH_PARAM_BUFFER_POINTER) are not "
                               "simulated; pass kernelParams")

    @entry
    def check_launch_attributes(self, ids: list[int], call: str = "cuLaunchKernelEx") -> None:
        """The launch attributes of a CUlaunchConfig: IGNORE (0), COOPERATIVE (2) and PRIORITY (8) are
        accepted (no effect); any other is 801, not simulated (spec 13.B)."""
        for a in ids:
            if a not in (0, 2, 8):
                raise DriverError(801, f"{call}: launch attribute {a} is not simulated (spec 13.B)")

    @entry
    def check_node_type(self, ntype: int, call: str = "cuGraphAddNode") -> None:
        """The ``type`` of a CUgraphNodeParams: the simulated node types are 0-12; CONDITIONAL (13) and the
        types 14, 16, 17, 18 are 801, not simulated; any other value is 1, not a CUgraphNodeType."""
        if 0 <= ntype <= 12:
            return
        if ntype in (13, 14, 16, 17, 18):
            raise DriverError(801, f"{call}: node type {ntype} is not simulated")
        raise DriverError(1, f"{call}: node type {ntype} is not a CUgraphNodeType")

    @entry
    def check_child_ownership(self, ownership: int, call: str = "cuGraphAddNode") -> None:
        """The ``ownership`` of a child-graph CUgraphNodeParams: CLONE (0) or MOVE (1); anything else is 1."""
        if ownership not in (0, 1):
            raise DriverError(1, f"{call}: child graph ownership {ownership} is not CLONE (0) or MOVE (1)")

    def close(self) -> None:
        """Simulate driver shutdown: every later call returns CUDA_ERROR_DEINITIALIZED (4).

        The driver's device memory goes with it: its pages are dropped and its addresses stay reserved
        (never reused by a later driver, and recognised as this one's in ``why`` texts). Host code must
        not touch managed memory of a closed driver, as after the real driver's shutdown.
        """
        with self._lock:
            self._closed = True
            self.memory.retire()

    @entry
    def device_get_count(self) -> int:
        """cuDeviceGetCount."""
        return len(self.devices)

    @entry
    def device_get(self, ordinal: int) -> int:
        """cuDeviceGet. Errors: 101 for an ordinal out of range."""
        return self._device(ordinal).ordinal

    @entry
    def device_get_name(self, dev: int, length: int | None = None) -> str:
        """cuDeviceGetName. Errors: 101 bad device; 1 a ``length`` (the buffer size, when the face has one)
        that is not positive."""
        name = self._device(dev).spec.name
        if length is not None and length <= 0:
            raise DriverError(1, f"cuDeviceGetName: length {length} must be positive")
        return name

    @entry
    def device_total_mem(self, dev: int) -> int:
        """cuDeviceTotalMem: bytes."""
        return self._device(dev).spec.total_mem

    @entry
    def device_get_attribute(self, attrib: int, dev: int) -> int:
        """cuDeviceGetAttribute. Errors: 101 bad device; 1 attribute not a CUdevice_attribute value."""
        from .device_attrs import attribute_value
        d = self._device(dev)
        return attribute_value(d.spec, int(attrib))

    @entry
    def device_primary_ctx_retain(self, dev: int) -> int:
        """cuDevicePrimaryCtxRetain: the device's primary context (created on first retain)."""
        d = self._device(dev)
        if d.primary is None or d.primary.destroyed:
            self._ctx_counter += 1
            c = Context(0, d, 0, self._ctx_counter, is_primary=True)
            c.handle = self._handle(c)
            d.primary = c
        d.primary_refs += 1
        return d.primary.handle

    @entry
    def device_primary_ctx_release(self, dev: int) -> None:
        """cuDevicePrimaryCtxRelease. Errors: 101; 709 when not retained.

        Fidelity: the context object stays usable after the last release (the real driver frees its
        resources); the simulator only counts references [I].
        """
        d = self._device(dev)
        if d.primary_refs <= 0:
            raise DriverError(709, f"the primary context of device {dev} is not retained")
        d.primary_refs -= 1

    @entry
    def device_primary_ctx_get_state(self, dev: int) -> tuple[int, int]:
        """cuDevicePrimaryCtxGetState: ``(flags, active)``."""
        d = self._device(dev)
        return (d.primary.flags if d.primary else 0, int(d.primary_refs > 0))

    # ------------------------------------------------------------------ contexts
    @entry
    def ctx_create(self, flags: int, dev: int, cig: tuple[int, int] | None = None,
                   exec_affinity: bool = False, cig_params_null: bool = False) -> int:
        """cuCtxCreate (13.x shape): create a context on ``dev`` and push it on this thread.

        Args:
            flags: ``CUctx_flags`` bits.
            dev: device ordinal.
            cig: ``(sharedDataType, sharedData)`` for a CIG context (spec 8.1), else ``None``.
            exec_affinity: whether execution-affinity parameters were given too.
        Errors: 101 bad device; 1 both exec-affinity and CIG parameters [I], an unknown CIG data type;
            801 the device lacks CIG support for that type, or coredump flags with CIG [I];
            900 during a capture that restricts this thread (spec 5.2) [I].
        """
        d = self._device(dev)
        if flags & ~0xFF:
            raise DriverError(1, f"cuCtxCreate flags 0x{flags:x} have bits outside CUctx_flags (CU_CTX_FLAGS_MASK "
                                 "0xff)")
        if cig is not None:
            dtype, data = cig
            if exec_affinity:
                raise DriverError(1, "CUctxCreateParams sets both execAffinityParams and cigParams "
                                     "(undefined behaviour in CUDA; the simulator refuses it, spec 8.1) [inferred]")
            if dtype not in (1, 2):
                raise DriverError(1, f"CUctxCigParam.sharedDataType {dtype} is not a CUcigDataType (1 D3D12 "
                                     "command queue, 2 NV blob)")
            supported = d.spec.cig_d3d12 if dtype == 1 else d.spec.cig_vulkan
            if not supported:
                attr = 135 if dtype == 1 else 138
                raise DriverError(801, f"device {dev} does not support CIG contexts of data type {dtype} "
                                       f"(CUdevice_attribute {attr} is 0; spec 8.1)")
            if flags & (0x20 | 0x40):
                raise DriverError(801, "CU_CTX_COREDUMP_ENABLE / CU_CTX_USER_COREDUMP_ENABLE are not supported "
                                       "for CIG contexts (spec 8.1) [inferred code]")
            if not data:
                raise DriverError(1, "CUctxCigParam.sharedData is NULL")
        t = self._thread()
        cap.check_unsafe(self, t, "cuCtxCreate")
        self._ctx_counter += 1
        c = Context(0, d, flags, self._ctx_counter)
        c.handle = self._handle(c)
        if cig is not None:
            c.is_cig, c.cig_data_type, c.cig_data = True, cig[0], cig[1]
        t.ctx_stack.append(c)
        return c.handle

    @entry
    def ctx_destroy(self, h: int) -> None:
        """cuCtxDestroy. Errors: 201 bad handle; 709 already destroyed; 900 during a restricting capture [I].

        Destroys the context's streams; captures with members there behave as if those streams were
        destroyed (spec 5.2). The context is removed from the calling thread's stack.
        """
        c = self._context(h)
        t = self._thread()
        cap.check_unsafe(self, t, "cuCtxDestroy")
        for s in list(c.streams) + list(c.per_thread.values()):
            cap.on_stream_destroyed(self, s)
            s.destroyed = True
        c.destroyed = True
        t.ctx_stack[:] = [x for x in t.ctx_stack if x is not c]

    @entry
    def ctx_set_current(self, h: int) -> None:
        """cuCtxSetCurrent: replace the top of this thread's stack (0 clears it). Errors: 201, 709."""
        t = self._thread()
        if not h:
            if t.ctx_stack:
                t.ctx_stack.pop()
            return
        c = self._context(h)
        if t.ctx_stack:
            t.ctx_stack[-1] = c
        else:
            t.ctx_stack.append(c)

    @entry
    def ctx_get_current(self) -> int:
        """cuCtxGetCurrent: the handle, or 0 when none."""
        c = self._thread().current
        return c.handle if c is not None else 0

    @entry
    def ctx_push_current(self, h: int) -> None:
        """cuCtxPushCurrent. Errors: 201, 709."""
        self._thread().ctx_stack.append(self._context(h))

    @entry
    def ctx_pop_current(self) -> int:
        """cuCtxPopCurrent: returns the popped handle. Errors: 201 when the stack is empty."""
        t = self._thread()
        if not t.ctx_stack:
            raise DriverError(201, f"thread {t.name} has no current context to pop")
        return t.ctx_stack.pop().handle

    @entry
    def ctx_get_device(self) -> int:
        """cuCtxGetDevice: ordinal of the current context's device. Errors: 201."""
        return self._ctx_current().device.ordinal

    @entry
    def ctx_get_id(self, h: int) -> int:
        """cuCtxGetId."""
        return (self._context(h) if h else self._ctx_current()).ctx_id

    @entry
    def ctx_synchronize(self) -> None:
        """cuCtxSynchronize. Errors: 201; 900 while any stream of the context is in a capture (spec 5.3)."""
        ctx = self._ctx_current()
        cap.check_ctx_sync(self, ctx, "cuCtxSynchronize")
        self._wait_idle(self._ctx_streams(ctx))
        self._drain()

    @entry
    def ctx_record_event(self, hctx: int, hevent: int) -> None:
        """cuCtxRecordEvent. Errors: 201/709 context; 400 event; 900 while the context captures (5.3)."""
        ctx = self._context(hctx)
        ev = self._event(hevent)
        cap.check_ctx_event(self, ctx, ev, "cuCtxRecordEvent", wait=False)
        cap._uncapture_event(ev)
        self._drain()
        self._complete_event(ev)

    @entry
    def ctx_wait_event(self, hctx: int, hevent: int) -> None:
        """cuCtxWaitEvent. Errors: 201/709; 400; 900 while the context captures or the event is captured."""
        ctx = self._context(hctx)
        ev = self._event(hevent)
        cap.check_ctx_event(self, ctx, ev, "cuCtxWaitEvent", wait=True)

    # ------------------------------------------------------------------ streams
    @entry
    def stream_create(self, flags: int, priority: int = 0) -> int:
        """cuStreamCreate / cuStreamCreateWithPriority. Errors: 201 no context; 1 flags not 0/1.

        Priority is clamped to the device range [-5, 0] as the real driver does.
        """
        ctx = self._ctx_current()
        if flags not in (0, 1):
            raise DriverError(1, f"stream flags {flags} are not CU_STREAM_DEFAULT (0) or CU_STREAM_NON_BLOCKING (1)")
        s = Stream(0, ctx, flags, max(-5, min(0, int(priority))), USER, self._next_stream_id())
        s.handle = self._handle(s)
        ctx.streams.append(s)
        return s.handle

    @entry
    def stream_destroy(self, h: int) -> None:
        """cuStreamDestroy. Errors: 400 garbage; 709 destroyed; 1 for the legacy/per-thread handles.

        During a capture (spec 2.1, 2.2, C-153, C-153b, C-154): destroying the origin terminates the
        capture and discards its graph [I]; destroying a member that is not the origin leaves the
        capture's status as it was (the stream leaves it, its nodes stay) [O]; unjoined work of that
        member still makes the end 904 [I]. The rule is :func:`capture.on_stream_destroyed`.
        """
        if h in (0, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD):
            self._stream(h)
            raise DriverError(1, "the legacy and per-thread default streams cannot be destroyed")
        s = self._stream(h)
        self._stream_drain(s)
        cap.on_stream_destroyed(self, s)
        s.destroyed = True
        try:
            s.ctx.streams.remove(s)
        except ValueError:
            pass

    @entry
    def stream_query(self, h: int) -> None:
        """cuStreamQuery. Raises 600 NOT_READY when work is pending; capture rules of spec 6, 5.3, 5.2."""
        t = self._thread()
        s = self._stream(h, t)
        cap.check_stream_sync(self, s, t, "cuStreamQuery")
        if s.busy or s.deferred:
            raise DriverError(600, f"{s.label()} is running a host function or Python kernel (on another thread)")
        if s.pending or (s.is_legacy and self._queue_blocking(s)):
            raise DriverError(600, f"{s.label()} still has pending work (manual progression)")

    def _queue_blocking(self, legacy: Stream) -> bool:
        return any(st.ctx is legacy.ctx and st.blocking for _, st, _ in self._queue)

    @entry
    def stream_synchronize(self, h: int) -> None:
        """cuStreamSynchronize. Capture rules of spec 6, 5.3, 5.2 in that order; runs pending work."""
        t = self._thread()
        s = self._stream(h, t)
        cap.check_stream_sync(self, s, t, "cuStreamSynchronize")
        if s.is_legacy:
            self._wait_idle(self._ctx_streams(s.ctx))
            self._drain()
        else:
            self._wait_idle((s,))
            self._stream_drain(s)

    def _ctx_streams(self, ctx: Context) -> list[Stream]:
        """Every stream of ``ctx``: its user streams, per-thread streams and legacy stream."""
        out = list(ctx.streams) + list(ctx.per_thread.values())
        if ctx.legacy is not None:
            out.append(ctx.legacy)
        return out

    @entry
    def stream_get_ctx(self, h: int) -> int:
        """cuStreamGetCtx."""
        return self._stream(h).ctx.handle

    @entry
    def stream_get_id(self, h: int) -> int:
        """cuStreamGetId (legacy stream: 0)."""
        return self._stream(h).stream_id

    @entry
    def stream_get_flags(self, h: int) -> int:
        """cuStreamGetFlags."""
        return self._stream(h).flags

    @entry
    def stream_get_priority(self, h: int) -> int:
        """cuStreamGetPriority."""
        return self._stream(h).priority

    @entry
    def stream_wait_event(self, h: int, hevent: int, flags: int) -> None:
        """cuStreamWaitEvent: spec 4.1 rows in order (fork, join, merge, isolation...)."""
        t = self._thread()
        s = self._stream(h, t)
        ev = self._event(hevent)
        if flags not in (0, 1):
            raise DriverError(1, f"cuStreamWaitEvent flags {flags} are not 0 or CU_EVENT_WAIT_EXTERNAL (1) (spec 4.1 row 1)")
        cap.wait_event(self, s, ev, flags)

    @entry
    def stream_add_callback(self, h: int, callback: Any, user_data: Any, flags: int) -> None:
        """cuStreamAddCallback. Errors: 1 flags != 0; 801 on a capturing stream (invalidates, spec 3.8) [I]."""
        s = self._stream(h)
        if flags != 0:
            raise DriverError(1, "cuStreamAddCallback flags must be 0")
        if not callback:
            raise DriverError(1, "cuStreamAddCallback: the callback is NULL")
        self._check_host_fn(callback, "cuStreamAddCallback: the callback")

        def run() -> str:
            if isinstance(callback, int):  # CUstreamCallback: void (*)(CUstream, CUresult, void *userData)
                self._call_host_fn(callback, user_data, (s.handle, 0))
            return ""
        cap.enqueue(self, s, cap.Op("callback", "cuStreamAddCallback", {"fn": callback}, run))

    @entry
    def stream_attach_mem_async(self, h: int, dptr: int, length: int, flags: int) -> None:
        """cuStreamAttachMemAsync. Errors: 1 ``flags`` other than 0 or one of CU_MEM_ATTACH_GLOBAL (1), HOST (2),
        SINGLE (4); 801 on a capturing stream (invalidates, spec 3.8) [I].

        Fidelity: ``flags`` 0 is accepted (as the default attachment) because the spec's case C-075 calls
        ``cuStreamAttachMemAsync(s, managed, 0, 0)`` and expects the capture rule's 801 [I]."""
        s = self._stream(h)
        if flags not in (0, 1, 2, 4):
            raise DriverError(1, f"cuStreamAttachMemAsync flags {flags} must be one of CU_MEM_ATTACH_GLOBAL (1), "
                                 "CU_MEM_ATTACH_HOST (2), CU_MEM_ATTACH_SINGLE (4)")
        cap.enqueue(self, s, cap.Op("attach_mem", "cuStreamAttachMemAsync", {"dptr": dptr}, None))

    # ------------------------------------------------------------------ capture control
    @entry
    def stream_begin_capture(self, h: int, mode: int) -> None:
        """cuStreamBeginCapture: spec 3.1 (900 legacy, 1 mode, 401 already capturing, 900 CIG)."""
        t = self._thread()
        s = self._stream(h, t)
        cap.begin(self, s, int(mode), t)

    @entry
    def stream_begin_capture_to_graph(self, h: int, hgraph: int, deps: list[int], eds: list[tuple],
                                      mode: int) -> None:
        """cuStreamBeginCaptureToGraph: spec 3.2. ``deps``/``eds`` are already cut to numDependencies."""
        t = self._thread()
        s = self._stream(h, t)
        if s.is_legacy:
            cap.begin(self, s, int(mode), t)
        cap._check_mode(int(mode))
        g = self._graph(hgraph)
        nodes = []
        for i, d in enumerate(deps):
            n = self._objs.get(d) if d else None
            if not isinstance(n, gr.Node) or n.destroyed or n.graph is not g:
                raise DriverError(1, f"dependency {i} is not a node of graph {g.gid} (spec 3.2)")
            nodes.append(n)
        cap.check_edge_data(eds, "dependencyData")
        cap.begin(self, s, int(mode), t, graph=g, deps=nodes, eds=eds)

    @entry
    def stream_end_capture(self, h: int) -> int:
        """cuStreamEndCapture: spec 3.3. Returns the graph handle."""
        t = self._thread()
        s = self._stream(h, t)
        return cap.end(self, s, t).handle

    @entry
    def stream_is_capturing(self, h: int) -> int:
        """cuStreamIsCapturing: 0 NONE, 1 ACTIVE, 2 INVALIDATED; 906 on the legacy stream under a blocking
        capture, without invalidating (spec 3.4)."""
        s = self._stream(h)
        cap.check_legacy_use(self, s, "cuStreamIsCapturing", invalidating=False)
        return cap.status_of(s)

    @entry
    def stream_get_capture_info(self, h: int, edge_data: bool = True) -> tuple[int, int, int, list[int], list[tuple], int]:
        """cuStreamGetCaptureInfo: ``(status, id, graph, deps, edge_data, n)`` (spec 3.5).

        ``edge_data=False`` is the v2 ABI (deps asked for without edge data): 402 LOSSY_QUERY when a
        current dependency has non-zero edge data (spec 3.5, C-110).
        """
        s = self._stream(h)
        cap.check_legacy_use(self, s, "cuStreamGetCaptureInfo", invalidating=False)
        seq = s.capture
        if seq is None or seq.status != cap.ACTIVE:
            return (cap.status_of(s), 0, 0, [], [], 0)
        if not edge_data:
            lossy = [n.local_id for n, ed in s.deps if tuple(ed) != gr.ZERO_ED]
            if lossy:
                raise DriverError(402, f"{s.label()} depends on node(s) {lossy} of graph {seq.graph.gid} with non-zero "
                                       "edge data, which a query without edge data would drop (spec 3.5; use the "
                                       "variant that returns edge data)")
        return (cap.ACTIVE, seq.id, seq.graph.handle, [n.handle for n, _ in s.deps], [ed for _, ed in s.deps],
                len(s.deps))

    @entry
    def stream_update_capture_dependencies(self, h: int, deps: list[int], eds: list[tuple], flags: int) -> None:
        """cuStreamUpdateCaptureDependencies: spec 3.6 (after the face checked counts)."""
        s = self._stream(h)
        nodes = []
        for d in deps:
            n = self._objs.get(d) if d else None
            nodes.append(n if isinstance(n, gr.Node) else None)
        cap.update_deps(self, s, nodes, eds, int(flags))

    @entry
    def thread_exchange_stream_capture_mode(self, mode: int) -> int:
        """cuThreadExchangeStreamCaptureMode: set this thread's mode, return the old one (spec 3.7)."""
        cap._check_mode(int(mode))
        t = self._thread()
        old, t.mode = t.mode, int(mode)
        return old

    def capture_info(self, h: int) -> Any:
        """A snapshot of the capture a stream belongs to (for tests and explanations), or None."""
        with self._lock:
            s = self._stream(h)
            seq = s.capture
            if seq is None:
                return None
            return {"id": seq.id, "status": cap.STATUS_NAMES[seq.status], "mode": cap.MODE_NAMES[seq.mode],
                    "origin": seq.origin.handle, "begin_thread": seq.begin_thread_name,
                    "members": [m.handle for m in seq.members], "graph": seq.graph.handle}

    # ------------------------------------------------------------------ CIG capture (spec 8)
    @entry
    def stream_begin_capture_to_cig(self, h: int, data_type: int | None, data: int) -> None:
        """cuStreamBeginCaptureToCig: spec 8.2 rows in order. ``data_type`` None means NULL params."""
        s = self._stream(h)
        if data_type is None:
            raise DriverError(1, "CUstreamCigCaptureParams (or its streamCigParams) is NULL (spec 8.2 row 1)")
        if s.is_legacy:
            raise DriverError(1, "CIG capture may not begin on the legacy stream (spec 8.2 row 2)")
        if not s.ctx.is_cig:
            raise DriverError(201, f"{s.label()} belongs to context 0x{s.ctx.handle:x}, which was not created in "
                                   "CIG mode (spec 8.2 row 3)")
        spec = s.ctx.device.spec
        if data_type in (1, 2) and not (spec.cig_d3d12_streams if data_type == 1 else spec.cig_vulkan_streams):
            raise DriverError(801, f"device {s.ctx.device.ordinal} lacks CIG stream support for data type "
                                   f"{data_type} (attribute {151 if data_type == 1 else 159}; spec 8.2 row 4)")
        if data_type not in (1, 2) or data_type != s.ctx.cig_data_type:
            raise DriverError(1, f"stream CIG data type {data_type} does not match the context's CIG data type "
                                 f"{s.ctx.cig_data_type} (D3D12 list with D3D12 queue, Vulkan handle with NV blob; "
                                 "spec 8.2 row 5) [inferred]")
        if s.cig is not None or s.capture is not None:
            raise DriverError(1, f"{s.label()} is already in CIG capture or graph capture (spec 8.2 row 6)")
        s.cig = CigRecord(self._thread().tid, data_type, data)

    @entry
    def stream_end_capture_to_cig(self, h: int) -> list[tuple[str, str]]:
        """cuStreamEndCaptureToCig: spec 8.4. Returns the recorded op list (for tests)."""
        s = self._stream(h)
        if s.cig is None:
            raise DriverError(1, f"{s.label()} is not in CIG capture (spec 8.4)")
        t = self._thread()
        if t.tid != s.cig.begin_thread and not self.options.cig_end_any_thread:
            raise DriverError(908, f"cuStreamEndCaptureToCig from thread {t.name}: the CIG capture of {s.label()} "
                                   "was begun on another thread and goes on (spec 8.4) [inferred]")
        ops, s.cig = s.cig.ops, None
        return ops

    def cig_ops(self, h: int) -> list[tuple[str, str]]:
        """The ops recorded so far by a stream's CIG capture (for tests)."""
        with self._lock:
            s = self._stream(h)
            return list(s.cig.ops) if s.cig else []

    # ------------------------------------------------------------------ events
    @entry
    def event_create(self, flags: int) -> int:
        """cuEventCreate. Errors: 201 no context; 1 unknown flag bits."""
        ctx = self._ctx_current()
        if flags & ~0x7:
            raise DriverError(1, f"event flags 0x{flags:x} have bits outside CUevent_flags")
        e = Event(0, ctx, flags)
        e.handle = self._handle(e)
        return e.handle

    @entry
    def event_destroy(self, h: int) -> None:
        """cuEventDestroy. Errors: 400. Destroying a captured event leaves the capture graph as it is."""
        e = self._event(h)
        cap._uncapture_event(e)
        e.destroyed = True

    @entry
    def event_record(self, hevent: int, h: int, flags: int = 0, call: str = "cuEventRecord") -> None:
        """cuEventRecord / cuEventRecordWithFlags: spec 4.2 rows in order."""
        s = self._stream(h)
        e = self._event(hevent)
        if e.ctx is not s.ctx:
            raise DriverError(400, f"{call}: {e.label()} belongs to context 0x{e.ctx.handle:x} but {s.label()} to "
                                   f"context 0x{s.ctx.handle:x} (spec 4.2 row 1)")
        if flags not in (0, 1):
            raise DriverError(1, f"{call}: flags {flags} are not 0 or CU_EVENT_RECORD_EXTERNAL (1) (spec 4.2 row 2)")
        cap.record_event(self, e, s, flags, call)

    @entry
    def event_query(self, h: int) -> None:
        """cuEventQuery: 907 for a captured event (invalidates), 900 by spec 5.2, 600 NOT_READY when pending."""
        e = self._event(h)
        cap.check_event_host_wait(self, e, self._thread(), "cuEventQuery")
        if e.state == RECORDED and e.pending_on is not None:
            raise DriverError(600, f"{e.label()} has not completed yet (manual progression)")

    @entry
    def event_synchronize(self, h: int) -> None:
        """cuEventSynchronize: as cuEventQuery, then runs the work before the event."""
        e = self._event(h)
        cap.check_event_host_wait(self, e, self._thread(), "cuEventSynchronize")
        if e.state == RECORDED and e.pending_on is not None:
            self._wait_idle((e.pending_on,))
        if e.state == RECORDED and e.pending_on is not None:
            self._drain(e.pending_ticket)

    @entry
    def event_elapsed_time(self, h0: int, h1: int) -> float:
        """cuEventElapsedTime: milliseconds of simulated time between two completed events.

        Simulated time (spec 16, 2.4, 9) [I]: the clock advances by ``graph.TICK_MS`` (0.001 ms) for every
        operation that runs: each eager stream operation except event records and the graph launch itself,
        and each node a replay runs (a child graph's nodes one by one; EVENT_RECORD nodes do not tick). An
        event's time is the clock when its record runs, so the result is ``0.001 * (operations run between
        the two records)``: positive around a replay that ran work, 0.0 when nothing ran between them, and
        negative when ``h1`` was recorded first.
        Returns: a ``float`` (milliseconds).
        Errors: 400 never-recorded event or DISABLE_TIMING; 907 captured event (invalidates, spec 5.3) [I];
        600 NOT_READY when either is pending.
        """
        e0, e1 = self._event(h0), self._event(h1)
        for e in (e0, e1):
            if e.state == EMPTY:
                raise DriverError(400, f"{e.label()} was never recorded")
        cap.check_elapsed_time_events((e0, e1))
        for e in (e0, e1):
            if e.flags & 2:
                raise DriverError(400, f"{e.label()} was created with CU_EVENT_DISABLE_TIMING")
            if e.time_ms is None:
                raise DriverError(600, f"{e.label()} has not completed yet")
        return float(e1.time_ms - e0.time_ms)

    # ------------------------------------------------------------------ memory
    def _check_alloc_size(self, size: int, ctx: Context) -> None:
        if size <= 0:
            raise DriverError(1, f"allocation size {size} must be positive")
        if self.memory.in_use + size > ctx.device.spec.total_mem:
            raise DriverError(2, f"allocating {size} bytes would exceed the simulated device's "
                                 f"{ctx.device.spec.total_mem} bytes ({self.memory.in_use} in use)")

    @entry
    def mem_alloc(self, size: int, call: str = "cuMemAlloc", managed: bool = False, flags: int = 1,
                  allow_zero: bool = False) -> int:
        """cuMemAlloc / cuMemAllocManaged (and the runtime's cudaMalloc*). Errors: 201 no context; 1 size 0, or
        managed ``flags`` other than CU_MEM_ATTACH_GLOBAL (1) / CU_MEM_ATTACH_HOST (2); 2 out of memory; 900
        (spec 5.2). ``allow_zero``: size 0 succeeds with address 0 (the runtime's rule for cudaMalloc(0))."""
        t = self._thread()
        ctx = self._ctx_current(t)
        if managed and flags not in (1, 2):
            raise DriverError(1, f"{call} flags {flags} must be CU_MEM_ATTACH_GLOBAL (1) or CU_MEM_ATTACH_HOST (2)")
        if allow_zero and size == 0:
            return 0
        self._check_alloc_size(int(size), ctx)
        cap.check_unsafe(self, t, call)
        return self.memory.reserve(int(size), KIND_MANAGED if managed else KIND_DEVICE, ctx).start

    @entry
    def mem_alloc_pitch(self, width: int, height: int, element_size: int) -> tuple[int, int]:
        """cuMemAllocPitch: ``(dptr, pitch)`` with rows padded to 512 bytes."""
        t = self._thread()
        ctx = self._ctx_current(t)
        if element_size not in (4, 8, 16) or width <= 0 or height <= 0:
            raise DriverError(1, "cuMemAllocPitch needs positive width/height and element size 4, 8 or 16")
        pitch = (int(width) + 511) // 512 * 512
        self._check_alloc_size(pitch * int(height), ctx)
        cap.check_unsafe(self, t, "cuMemAllocPitch")
        return self.memory.reserve(pitch * int(height), KIND_DEVICE, ctx).start, pitch

    @entry
    def mem_free(self, dptr: int, call: str = "cuMemFree") -> None:
        """cuMemFree. Errors: 201 no context; 900 (spec 5.2); 1 not the start of a live allocation.

        ``cuMemFree(0)`` succeeds and does nothing (field case C17 uses it as a probe).
        """
        t = self._thread()
        self._ctx_current(t)
        cap.check_unsafe(self, t, call)
        if not dptr:
            return
        a = self.memory.find(int(dptr))
        if a is None or a.start != int(dptr):
            raise DriverError(1, f"0x{int(dptr):x} is not the start of a live device allocation"
                              + self.memory.missing(int(dptr)))
        if a.kind == KIND_GRAPH:
            if a.outstanding is None:
                raise DriverError(1, f"0x{int(dptr):x} is owned by a graph (MEM_ALLOC node) and no launch has left it "
                                     "allocated; free it with a MEM_FREE node or cuMemFreeAsync in stream order "
                                     "(field case C31)")
            self._drain()  # a launch left it allocated: cuMemFree frees it (cuGraphAddMemAllocNode)
            a.outstanding = None
            self.memory.unmap(a)
            return
        self.memory.free(a)

    @entry
    def mem_alloc_host(self, size: int, call: str = "cuMemAllocHost", flags: int = 0, allow_zero: bool = False) -> int:
        """cuMemAllocHost / cuMemHostAlloc (and cudaMallocHost / cudaHostAlloc): real, page-locked-in-name host
        memory; returns its address.

        Errors: 201 no context; 1 flag bits outside PORTABLE/DEVICEMAP/WRITECOMBINED, size 0; 900 (spec 5.2);
        2 OUT_OF_MEMORY for more than the machine's physical memory (page-locked memory cannot exceed it) or
        when the process cannot get the memory. ``allow_zero``: size 0 gives address 0 (the runtime's rule).
        """
        t = self._thread()
        self._ctx_current(t)
        if flags & ~0x7:
            raise DriverError(1, f"{call} flags 0x{flags:x} have bits outside CU_MEMHOSTALLOC_PORTABLE (1), "
                                 "DEVICEMAP (2) and WRITECOMBINED (4)")
        if allow_zero and size == 0:
            return 0
        if size <= 0:
            raise DriverError(1, f"host allocation size {size} must be positive")
        cap.check_unsafe(self, t, call)
        limit = hostmem.physical_memory()
        if limit and size > limit:
            raise DriverError(2, f"{call} of {size} bytes: page-locked host memory cannot exceed this machine's "
                                 f"{limit} bytes of physical memory")
        try:
            return self.memory.alloc_host(int(size))
        except (MemoryError, OverflowError):
            raise DriverError(2, f"{call} of {size} bytes: the process could not allocate that much host "
                                 "memory") from None

    @entry
    def mem_free_host(self, ptr: int) -> None:
        """cuMemFreeHost. Errors: 1 when ``ptr`` was not returned by cuMemAllocHost; 900 (spec 5.2)."""
        t = self._thread()
        self._ctx_current(t)
        cap.check_unsafe(self, t, "cuMemFreeHost")
        if not self.memory.free_host(int(ptr)):
            raise DriverError(1, f"0x{int(ptr):x} was not allocated with cuMemAllocHost/cuMemHostAlloc")

    @entry
    def mem_host_register(self, ptr: int, size: int, flags: int, unregister: bool = False) -> None:
        """cuMemHostRegister / cuMemHostUnregister (bookkeeping only). 900 by spec 5.2."""
        t = self._thread()
        self._ctx_current(t)
        if not unregister:
            if not ptr:
                raise DriverError(1, "cuMemHostRegister: the host pointer is NULL")
            if size <= 0:
                raise DriverError(1, f"cuMemHostRegister: bytesize {size} must be positive")
            if flags & ~0xF:
                raise DriverError(1, f"cuMemHostRegister flags 0x{flags:x} have bits outside CU_MEMHOSTREGISTER_"
                                     "PORTABLE (1), DEVICEMAP (2), IOMEMORY (4) and READ_ONLY (8)")
        cap.check_unsafe(self, t, "cuMemHostUnregister" if unregister else "cuMemHostRegister")
        if unregister:
            if self.memory.registered.pop(int(ptr), None) is None:
                raise DriverError(713, f"0x{int(ptr):x} is not registered")
        else:
            if int(ptr) in self.memory.registered:
                raise DriverError(712, f"0x{int(ptr):x} is already registered")
            self.memory.registered[int(ptr)] = int(size)

    @entry
    def mem_get_info(self) -> tuple[int, int]:
        """cuMemGetInfo: ``(free, total)`` bytes."""
        ctx = self._ctx_current()
        total = ctx.device.spec.total_mem
        return total - self.memory.in_use, total

    @entry
    def mem_get_address_range(self, dptr: int) -> tuple[int, int]:
        """cuMemGetAddressRange: ``(base, size)``. Errors: 1 not a device address."""
        a = self.memory.find(int(dptr))
        if a is None:
            raise DriverError(1, f"0x{int(dptr):x} is not inside a live device allocation"
                              + self.memory.missing(int(dptr)))
        return a.start, a.size

    def is_device_pointer(self, ptr: Any) -> bool:
        """True when ``ptr`` is an int inside a live simulated device allocation (read under the lock)."""
        if not isinstance(ptr, int):
            return False
        with self._lock:
            return self.memory.find(ptr) is not None

    def _sync_stream(self, t: ThreadState, call: str) -> Stream:
        """The stream a synchronous copy/set runs on (legacy, or the caller's per-thread stream, spec 6.1),
        after the capture rules for synchronous calls (``capture.check_synchronous_call``)."""
        ctx = self._ctx_current(t)
        s = self._per_thread_of(ctx, t) if self._per_thread_mode() else self._legacy_of(ctx)
        cap.check_synchronous_call(self, s, t, call)
        return s

    @entry
    def memcpy(self, p: CopyParams, h: int | None, call: str) -> None:
        """Every cuMemcpy* form. ``h`` None: synchronous (legacy or per-thread stream, spec 6).

        Errors: 1 bad ranges; capture rules through the enqueue path (3.8) or the sync rules (6).
        """
        t = self._thread()
        if h is None:
            self._ctx_current(t)
            check_copy(self.memory, p)  # argument checks come before the stream rules (spec 3 preamble)
            s = self._sync_stream(t, call)
            self._wait_idle(self._ctx_streams(s.ctx))
            self._drain()
            do_copy(self.memory, p)
            self._clock_ms += gr.TICK_MS  # one operation ran (spec 16)
            self._log({"source": "stream", "kind": "MEMCPY", "detail": p.describe(), "stream": s.handle})
            return
        s = self._stream(h, t)
        check_copy(self.memory, p)
        cap.enqueue(self, s, cap.Op("memcpy", call, p, lambda: do_copy(self.memory, p)))

    @entry
    def memset(self, p: MemsetParams, h: int | None, call: str) -> None:
        """Every cuMemsetD* form. ``h`` None: synchronous. Errors: 1 bad range/value/alignment."""
        t = self._thread()
        if h is None:
            self._ctx_current(t)
            check_memset(self.memory, p)  # argument checks come before the stream rules (spec 3 preamble)
            s = self._sync_stream(t, call)
            self._wait_idle(self._ctx_streams(s.ctx))
            self._drain()
            do_memset(self.memory, p)
            self._clock_ms += gr.TICK_MS  # one operation ran (spec 16)
            self._log({"source": "stream", "kind": "MEMSET", "detail": p.describe(), "stream": s.handle})
            return
        s = self._stream(h, t)
        check_memset(self.memory, p)
        cap.enqueue(self, s, cap.Op("memset", call, p, lambda: do_memset(self.memory, p)))

    @entry
    def mem_alloc_async(self, size: int, h: int) -> int:
        """cuMemAllocAsync: during capture a MEM_ALLOC node with a fixed graph-owned address (spec 3.8)."""
        s = self._stream(h)
        ctx = s.ctx
        if size <= 0:
            raise DriverError(1, f"allocation size {size} must be positive")
        if cap.capturing_into(s) is not None:
            a = self.memory.reserve(int(size), KIND_GRAPH, ctx)
            node = cap.enqueue(self, s, cap.Op("mem_alloc", "cuMemAllocAsync",
                                               {"alloc": a, "size": int(size), "device": ctx.device.ordinal,
                                                "access": []}, None))
            a.graph_node = node
            return a.start
        self._check_alloc_size(int(size), ctx)
        params: dict = {"size": int(size)}
        # route through the enqueue path first (CIG 801, invalidated 901, legacy 906), then allocate
        cap.enqueue(self, s, cap.Op("mem_alloc", "cuMemAllocAsync", params, None))
        a = self.memory.reserve(int(size), KIND_DEVICE, ctx)
        params["alloc"] = a
        return a.start

    @entry
    def mem_free_async(self, dptr: int, h: int) -> None:
        """cuMemFreeAsync: during capture a MEM_FREE node; ``dptr`` must be a graph allocation (spec 3.8)."""
        s = self._stream(h)
        a = self.memory.find(int(dptr))
        if a is None or a.start != int(dptr):
            raise DriverError(1, f"0x{int(dptr):x} is not the start of a live allocation"
                              + self.memory.missing(int(dptr)))
        seq = s.capture
        if cap.capturing_into(s) is not None:
            cap.check_free_async_in_capture(seq, int(dptr), a.kind == KIND_GRAPH, a.free_node)
            a.free_node = cap.enqueue(self, s, cap.Op("mem_free", "cuMemFreeAsync", {"dptr": int(dptr)}, None))
            return
        if a.kind == KIND_GRAPH and s.cig is None and seq is None:
            # a graph allocation left allocated by a launch (cuGraphAddMemAllocNode: "can be freed by
            # cuMemFreeAsync"); before any launch there is nothing to free (field case C31)
            if a.outstanding is None:
                raise DriverError(1, f"graph allocation 0x{a.start:x} is not allocated now: no launch of its graph "
                                     "left it unfreed (it exists only while the graph runs; field case C31)")

            def run_free() -> str:
                self.memory.unmap(a)
                return ""
            cap.enqueue(self, s, cap.Op("mem_free", "cuMemFreeAsync", {"dptr": int(dptr)}, run_free))
            a.outstanding = None
            return
        cap.enqueue(self, s, cap.Op("mem_free", "cuMemFreeAsync", {"dptr": int(dptr)},
                                    lambda: self.memory.free(a) or ""))

    # ------------------------------------------------------------------ modules and launches
    @entry
    def module_load_data(self, image: Any, call: str = "cuModuleLoadData") -> int:
        """cuModuleLoadData / cuModuleLoadDataEx / cuModuleLoadFatBinary / cuModuleLoad.

        Errors: 201 no context; 200 unrecognisable image; 900 (spec 5.2).
        """
        t = self._thread()
        ctx = self._ctx_current(t)
        if isinstance(image, int):  # the address of NUL-terminated text (the real void* form)
            image = hostmem.read_c_string(self.memory, image, f"{call} image") if image else b""
        entries, source = parse_image(image)
        cap.check_unsafe(self, t, call)
        m = Module(0, ctx, entries, source)
        m.handle = self._handle(m)
        return m.handle

    def _module(self, h: int) -> Module:
        """A loaded module. Errors: 400 bad handle; 201 INVALID_CONTEXT for a module (not a library) whose context
        was destroyed: cuCtxDestroy unloads the context's modules, and INVALID_CONTEXT is the code the module
        calls document (CONTEXT_IS_DESTROYED is not in their Returns lists) [inferred]."""
        m = self._objs.get(h) if h else None
        if not isinstance(m, Module) or m.unloaded:
            raise DriverError(400, "not a loaded module handle")
        if not m.is_library and m.ctx is not None and m.ctx.destroyed:
            raise DriverError(201, f"module 0x{h:x} belonged to context 0x{m.ctx.handle:x}, which was destroyed "
                                   "(cuCtxDestroy unloads a context's modules) [inferred code]")
        return m

    @entry
    def module_unload(self, h: int) -> None:
        """cuModuleUnload. Errors: 400 bad handle; 201 its context was destroyed [I]; 900 (spec 5.2: unloads
        during capture break it)."""
        m = self._module(h)
        cap.check_unsafe(self, self._thread(), "cuModuleUnload")
        m.unloaded = True

    @entry
    def module_get_function(self, h: int, name: str | int | None) -> int:
        """cuModuleGetFunction. ``name``: the entry name, or (as a face that takes a ``char*`` address passes it)
        ``None`` for NULL or the ``int`` address of the C string (read only where readable, :mod:`hostmem`).

        Errors, in order: 1 NULL or unreadable name; 400 bad module; 201 a module of a destroyed context [I];
        500 NOT_FOUND unknown entry name."""
        if name is None or isinstance(name, int):
            if not name or name < 0:
                raise DriverError(1, "cuModuleGetFunction: the name is NULL" if not name else
                                  f"cuModuleGetFunction: the name {name:#x} is not a host address")
            name = hostmem.read_c_string(self.memory, name, "cuModuleGetFunction name").decode("utf-8", "replace")
        m = self._module(h)
        f = m.functions.get(name)
        if f is None:
            if name not in m.entries:
                known = ", ".join(sorted(m.entries)) or "none"
                raise DriverError(500, f"module 0x{h:x} has no kernel entry named {name!r} (entries: {known})")
            f = Function(0, m, name, m.entries[name])
            f.handle = self._handle(f)
            m.functions[name] = f
        return f.handle

    @entry
    def library_load_data(self, image: Any, call: str = "cuLibraryLoadData") -> int:
        """cuLibraryLoadData / cuLibraryLoadFromFile: a context-independent library (simulated as a module of
        the current context). Errors: 201 no context; 200 unrecognisable image; 900 by spec 5.2 (library
        loads are potentially unsafe [I])."""
        h = self.module_load_data(image, call)
        self._objs[h].is_library = True
        return h

    @entry
    def library_unload(self, h: int) -> None:
        """cuLibraryUnload. Errors: 400 bad handle; 900 by spec 5.2 [I]."""
        m = self._objs.get(h) if h else None
        if not isinstance(m, Module) or m.unloaded:
            raise DriverError(400, "not a loaded library handle")
        cap.check_unsafe(self, self._thread(), "cuLibraryUnload")
        m.unloaded = True

    @entry
    def array_create(self, width: int, height: int, fmt: int, channels: int, depth: int = 0) -> int:
        """cuArrayCreate / cuArray3DCreate (bookkeeping only: arrays hold no simulated data).

        Errors: 201 no context; 1 zero width or channels not 1, 2 or 4; 900 by spec 5.2 (array creation is
        potentially unsafe [H; I for CUDA]).
        """
        t = self._thread()
        ctx = self._ctx_current(t)
        if width <= 0 or channels not in (1, 2, 4):
            raise DriverError(1, f"array width {width} must be positive and NumChannels {channels} 1, 2 or 4")
        cap.check_unsafe(self, t, "cuArrayCreate")
        arr = _Array(ctx, (int(width), int(height), int(depth)), int(fmt), int(channels))
        return self._handle(arr)

    @entry
    def array_destroy(self, h: int) -> None:
        """cuArrayDestroy. Errors: 400 bad handle; 900 by spec 5.2 [H; I]."""
        arr = self._objs.get(h) if h else None
        if not isinstance(arr, _Array) or arr.destroyed:
            raise DriverError(400, "not a live array handle")
        cap.check_unsafe(self, self._thread(), "cuArrayDestroy")
        arr.destroyed = True

    @entry
    def device_primary_ctx_reset(self, dev: int) -> None:
        """cuDevicePrimaryCtxReset: destroy the primary context's streams and memory bookkeeping.

        Errors: 101 bad device; 900 by spec 5.2 (potentially unsafe [I]). Captures with streams in it
        behave as when those streams are destroyed (origin: terminated; member: leaves the capture, 2.2).
        """
        d = self._device(dev)
        t = self._thread()
        cap.check_unsafe(self, t, "cuDevicePrimaryCtxReset")
        c = d.primary
        if c is None:
            return
        for s in list(c.streams) + list(c.per_thread.values()):
            cap.on_stream_destroyed(self, s)
            s.destroyed = True
        c.streams.clear()
        c.per_thread.clear()
        for a in list(self.memory._allocs):
            if a.ctx is c and not a.freed:
                self.memory.free(a)

    @entry
    def module_get_global(self, h: int, name: str) -> tuple[int, int]:
        """cuModuleGetGlobal: globals are not simulated; 500 NOT_FOUND."""
        raise DriverError(500, f"module globals are not simulated ({name!r})")

    @entry
    def func_get_name(self, h: int) -> str:
        """cuFuncGetName."""
        return self._function(h).name

    @entry
    def decode_kernel_args(self, f: Function | int, kernel_params: Any, call: str = "cuLaunchKernel") -> list:
        """Decode an ``int`` address of a ``void**`` array using the kernel's parameter types.

        ``f`` is a :class:`Function` or a function handle; an unknown handle decodes to ``[]``
        (the launch itself then fails with INVALID_HANDLE). ``call`` names the entry point for the
        error log. Errors: 1 INVALID_VALUE when the array or an argument it points to is not readable
        memory of this process (:mod:`simcuda._core.hostmem`).
        """
        if not kernel_params:
            return []
        if not isinstance(f, Function):
            f = self._objs.get(f)
            if not isinstance(f, Function):
                return []
        out = []
        n = len(f.param_types)
        hostmem.check(self.memory, int(kernel_params), n * ctypes.sizeof(ctypes.c_void_p), "r",
                      f"kernelParams of {f.name} ({n} argument pointer(s))")
        ptrs = (ctypes.c_void_p * n).from_address(int(kernel_params))
        for i, (ptype, addr) in enumerate(zip(f.param_types, ptrs)):
            fmt = struct_format(ptype)
            size = struct.calcsize(fmt)
            if addr:
                hostmem.check(self.memory, addr, size, "r", f"kernelParams[{i}] of {f.name} ({ptype})")
            out.append(struct.unpack(fmt, ctypes.string_at(addr, size))[0] if addr else 0)
        return out

    def _func_device(self, f: Function) -> Device:
        ctx = f.module.ctx
        return ctx.device if ctx is not None else self.devices[0]

    def _max_dynamic_shared(self, f: Function) -> int:
        """The dynamic shared memory a launch of ``f`` may ask for: the function attribute once set
        (cuFuncSetAttribute), else the device's default per-block limit (static shared memory is 0 here)."""
        if f.max_dynamic_shared is not None:
            return f.max_dynamic_shared
        return self._func_device(f).launch_limits()[7]  # MAX_SHARED_MEMORY_PER_BLOCK

    def _check_launch(self, f: Function, grid: tuple, block: tuple, shmem: int, what: str) -> None:
        """The launch limits of ``f``'s device (cuLaunchKernel's INVALID_VALUE cases): no zero dimension; block
        dimensions and thread count within MAX_BLOCK_DIM_X/Y/Z and MAX_THREADS_PER_BLOCK; grid dimensions
        within MAX_GRID_DIM_X/Y/Z; ``sharedMemBytes`` within the function's dynamic shared memory limit
        (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, by default the device's 48 KiB per block; opt in
        to more with cuFuncSetAttribute up to MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)."""
        m = f.module
        lim = (m.ctx.device if m.ctx is not None else self.devices[0]).launch_limits()
        bx, by, bz = block
        gx, gy, gz = grid
        if (0 < bx <= lim[0] and 0 < by <= lim[1] and 0 < bz <= lim[2] and bx * by * bz <= lim[6]
                and 0 < gx <= lim[3] and 0 < gy <= lim[4] and 0 < gz <= lim[5]
                and shmem <= (lim[7] if f.max_dynamic_shared is None else f.max_dynamic_shared)):
            return  # the common case, in one test; the checks below say what is wrong
        if 0 in grid or 0 in block:
            raise DriverError(1, f"{what} dimensions grid={grid} block={block} contain a zero")
        for i, axis in enumerate("xyz"):
            if block[i] > lim[i]:
                raise DriverError(1, f"{what} blockDim.{axis} {block[i]} exceeds the device's MAX_BLOCK_DIM_"
                                     f"{axis.upper()} ({lim[i]})")
        if block[0] * block[1] * block[2] > lim[6]:
            raise DriverError(1, f"{what} block {block} has {block[0] * block[1] * block[2]} threads; the device "
                                 f"allows MAX_THREADS_PER_BLOCK ({lim[6]})")
        for i, axis in enumerate("xyz"):
            if grid[i] > lim[3 + i]:
                raise DriverError(1, f"{what} gridDim.{axis} {grid[i]} exceeds the device's MAX_GRID_DIM_"
                                     f"{axis.upper()} ({lim[3 + i]})")
        cap_ = self._max_dynamic_shared(f)
        if shmem > cap_:
            raise DriverError(1, f"{what} of {f.name} asks for {shmem} bytes of dynamic shared memory; the limit is "
                                 f"{cap_} (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES; raise it with "
                                 "cuFuncSetAttribute up to the device's MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)")

    @entry
    def func_set_attribute(self, h: int, attrib: int, value: int) -> None:
        """cuFuncSetAttribute: MAX_DYNAMIC_SHARED_SIZE_BYTES (8; 0 to the device's MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        and PREFERRED_SHARED_MEMORY_CARVEOUT (9; -1 to 100) are simulated.

        Errors: 400 bad function; 1 a value out of range, or an attribute that is read-only (0-7, 10, 16,
        17) or not a CUfunction_attribute; 801 the cluster attributes (11-15), not simulated.
        """
        f = self._function(h)
        if attrib == 8:
            top = self._func_device(f).launch_limits()[8]  # MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
            if not 0 <= value <= top:
                raise DriverError(1, f"cuFuncSetAttribute: MAX_DYNAMIC_SHARED_SIZE_BYTES {value} is outside 0..{top} "
                                     "(the device's MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)")
            f.max_dynamic_shared = value
        elif attrib == 9:
            if not -1 <= value <= 100:
                raise DriverError(1, f"cuFuncSetAttribute: PREFERRED_SHARED_MEMORY_CARVEOUT {value} is outside "
                                     "-1..100")
            f.carveout = value
        elif 11 <= attrib <= 15:
            raise DriverError(801, f"cuFuncSetAttribute: cluster attribute {attrib} is not simulated")
        else:
            raise DriverError(1, f"cuFuncSetAttribute: attribute {attrib} cannot be set (read-only or not a "
                                 "CUfunction_attribute)")

    @entry
    def func_get_attribute(self, attrib: int, h: int) -> int:
        """cuFuncGetAttribute: MAX_THREADS_PER_BLOCK, the sizes (0: the simulator has no device code), PTX and
        binary versions (the device's compute capability), MAX_DYNAMIC_SHARED_SIZE_BYTES and the carveout.

        Errors: 400 bad function; 1 not a CUfunction_attribute; 801 other attributes (not simulated).
        """
        f = self._function(h)
        spec = self._func_device(f).spec
        if attrib == 0:
            return self._func_device(f).launch_limits()[6]
        if attrib in (1, 2, 3, 4, 7):
            return 0
        if attrib in (5, 6):
            major, minor = spec.compute_capability
            return major * 10 + minor
        if attrib == 8:
            return self._max_dynamic_shared(f)
        if attrib == 9:
            return f.carveout
        if 10 <= attrib <= 17:
            raise DriverError(801, f"cuFuncGetAttribute: attribute {attrib} is not simulated")
        raise DriverError(1, f"cuFuncGetAttribute: {attrib} is not a CUfunction_attribute")

    @entry
    def launch_kernel(self, hfunc: int, grid: tuple, block: tuple, shmem: int, h: int, args: list,
                      call: str = "cuLaunchKernel") -> None:
        """cuLaunchKernel (and Ex/Cooperative): a KERNEL node during capture, else runs/records now.

        Errors: 400 bad function; 1 zero or oversized dimensions; capture rules via spec 3.8.
        """
        f = self._function(hfunc)
        s = self._stream(h)
        m = f.module
        if not m.is_library and m.ctx is not None and m.ctx is not s.ctx:
            raise DriverError(400, f"{call}: function {f.name} belongs to a module of context 0x{m.ctx.handle:x} but "
                                   f"{s.label()} to context 0x{s.ctx.handle:x}; a module's functions are valid only "
                                   "in its own context [inferred: INVALID_HANDLE, the launch's code for a function "
                                   "handle it cannot use]")
        self._check_launch(f, grid, block, shmem, "launch")
        params = {"name": f.name, "func": f, "grid": grid, "block": block, "shmem": int(shmem), "args": args,
                  "priority": s.priority, "cooperative": call == "cuLaunchCooperativeKernel"}
        self.stats["kernel_launches"] += 1
        cap.enqueue(self, s, cap.Op("kernel", call, params, lambda: self._run_kernel(params)))

    @entry
    def launch_host_func(self, h: int, fn: Any, user_data: Any, sync_mode: int | None = None) -> None:
        """cuLaunchHostFunc / cuLaunchHostFunc_v2: a HOST node during capture (spec 3.9)."""
        s = self._stream(h)
        if sync_mode is not None and sync_mode not in (0, 1):
            raise DriverError(1, f"syncMode {sync_mode} is not a CUhostTaskSyncMode (0, 1) (spec 3.9) [inferred]")
        if not fn:
            raise DriverError(1, "the host function pointer is NULL")
        self._check_host_fn(fn, "cuLaunchHostFunc: the host function")
        params = {"fn": fn, "user_data": user_data, "sync_mode": sync_mode or 0}
        cap.enqueue(self, s, cap.Op("host", "cuLaunchHostFunc", params,
                                    lambda: self._call_host_fn(fn, user_data) or ""))

    # ------------------------------------------------------------------ graphs
    # Graph entry points (spec 9). In every call the handles are checked first, then the arguments,
    # then the state rules; nothing changes until every check has passed (a rejected call changes
    # nothing). Codes come from each call's documented Returns list (INVALID_VALUE for almost all).
    @entry
    def graph_create(self, flags: int) -> int:
        """cuGraphCreate: a new, empty graph (owned by the caller's current context, if any).

        Args:
            flags: must be 0.
        Returns: the graph handle (``int``).
        Errors: 1 INVALID_VALUE when ``flags`` != 0 (spec 9).
        """
        if flags != 0:
            raise DriverError(1, f"cuGraphCreate flags must be 0, got {flags} (spec 9)")
        return self._new_graph(self._thread().current).handle

    @entry
    def graph_destroy(self, h: int) -> None:
        """cuGraphDestroy: destroy a graph and its nodes (child graphs included).

        Errors: 1 INVALID_VALUE for a NULL or destroyed graph, a graph that is the target of a
        capture (spec 3.5, 9) [I], or a graph owned by a child-graph node (cloned into it, or moved
        there with ``CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE``).
        Fidelity: execs made from the graph stay usable (they hold frozen copies), as on NVIDIA.
        """
        g = self._graph(h)
        cap.check_capture_target(g, "destroy")
        if g.owner_node is not None:
            raise DriverError(1, f"graph {g.gid} is owned by child-graph node {g.owner_node.local_id} of graph "
                                 f"{g.owner_node.graph.gid} and cannot be destroyed directly")
        self._discard_graph(g)

    def _deps_of(self, g: gr.Graph, deps: list[int], eds: list | None) -> list[tuple[gr.Node, tuple]]:
        """Dependencies of a node being added: live nodes of ``g``, no repeats, valid edge data (spec 9)."""
        nodes: list[gr.Node] = []
        seen: set[int] = set()
        for i, d in enumerate(deps):
            n = self._objs.get(d) if d else None
            if not isinstance(n, gr.Node) or n.destroyed or n.graph is not g:
                raise DriverError(1, f"dependencies[{i}] (0x{int(d or 0):x}) is not a live node of graph {g.gid}")
            if id(n) in seen:
                raise DriverError(1, f"dependencies[{i}] (node {n.local_id}) is listed twice; dependencies may not "
                                     "have duplicate entries")
            seen.add(id(n))
            nodes.append(n)
        if not eds:
            return [(n, gr.ZERO_ED) for n in nodes]
        eds = list(eds)[:len(nodes)]
        eds += [None] * (len(nodes) - len(eds))
        cap.check_edge_data(eds, "dependencyData")
        return [(n, tuple(ed)) for n, ed in zip(nodes, eds)]

    def _attach(self, g: gr.Graph, ntype: int, params: Any, pairs: list[tuple[gr.Node, tuple]]) -> gr.Node:
        node = self._new_node(g, ntype, params)
        for d, ed in pairs:
            gr.add_edge(g, d, node, ed)
        return node

    def _kernel_spec(self, hfunc: int, grid: tuple, block: tuple, shmem: int, args: list,
                     bad_function_code: int = 1) -> dict:
        f = self._objs.get(hfunc) if hfunc else None
        if not isinstance(f, Function) or f.module.unloaded:
            raise DriverError(bad_function_code, "the kernel node's function is NULL" if not hfunc else
                              f"0x{hfunc:x} is not the handle of a function of a loaded module")
        grid, block = tuple(int(v) for v in grid), tuple(int(v) for v in block)
        self._check_launch(f, grid, block, int(shmem), "kernel node")
        return {"name": f.name, "func": f, "grid": grid, "block": block, "shmem": int(shmem), "args": list(args),
                "priority": 0, "cooperative": False}

    def _build(self, ntype: int, spec: Any, bad_handle_code: int = 1) -> Any:
        """Validated node parameters of ``ntype`` from a face's ``spec`` (see the add/set entries).

        GRAPH specs are handled by the callers (they clone or move a graph).
        """
        if ntype == gr.KERNEL:
            p = self._kernel_spec(spec["hfunc"], spec["grid"], spec["block"], spec["shmem"], spec["args"],
                                  bad_handle_code)
            p["priority"] = int(spec.get("priority", 0))
            return p
        if ntype == gr.MEMCPY:
            check_copy(self.memory, spec)
            return spec
        if ntype == gr.MEMSET:
            if spec.width == 0 or spec.height == 0:
                raise DriverError(1, f"memset node of width {spec.width} and height {spec.height}: zero-sized memsets "
                                     "are not supported (cuGraphExecMemsetNodeSetParams: 'Zero sized operations are "
                                     "not supported') [inferred for node creation]")
            check_memset(self.memory, spec)
            return spec
        if ntype == gr.HOST:
            if not spec["fn"]:
                raise DriverError(1, "the host node's function is NULL")
            self._check_host_fn(spec["fn"], "the host node's function")
            if spec.get("sync_mode", 0) not in (0, 1):
                raise DriverError(1, f"syncMode {spec['sync_mode']} is not a CUhostTaskSyncMode (0, 1) (spec 3.9)")
            return {"fn": spec["fn"], "user_data": spec.get("user_data"), "sync_mode": spec.get("sync_mode", 0)}
        if ntype in (gr.EVENT_RECORD, gr.WAIT_EVENT):
            ev = self._objs.get(spec) if spec else None
            if not isinstance(ev, Event) or ev.destroyed:
                raise DriverError(bad_handle_code, "the node's event is NULL" if not spec else
                                  f"0x{int(spec):x} is not a live event handle")
            return {"event": ev}
        if ntype == gr.EMPTY:
            return {}
        if ntype == gr.BATCH_MEM_OP:
            return self._mem_ops_spec(spec["ops"], spec.get("flags", 0), spec.get("ctx", 0), "batch mem op node")
        if ntype in (gr.EXT_SEMAS_SIGNAL, gr.EXT_SEMAS_WAIT):
            sems = tuple(int(h) for h in spec["sems"])
            values = tuple(tuple(v) for v in spec["values"])
            if not sems:
                raise DriverError(1, "an external semaphore node needs at least one semaphore (numExtSems 0)")
            if any(h == 0 for h in sems):
                raise DriverError(1, "an external semaphore handle is NULL")
            if len(values) != len(sems):
                raise DriverError(1, f"{len(sems)} semaphores but {len(values)} parameter structs")
            return {"sems": sems, "values": values}
        raise DriverError(801, f"nodes of type {gr.TYPE_KEYWORDS.get(ntype, ntype)} are not simulated")

    def _mem_ops_spec(self, ops: list, flags: int, hctx: int, what: str) -> dict:
        """Validated batch memory operations ``(operation, address, value, flags)`` (cuStreamBatchMemOp)."""
        if flags != 0:
            raise DriverError(1, f"{what}: flags must be 0 (reserved), got {flags}")
        if len(ops) > 255:
            raise DriverError(1, f"{what}: {len(ops)} operations; the count must be less than 256")
        ctx = self._context(hctx) if hctx else self._thread().current
        out = []
        for i, (op, addr, value, fl) in enumerate(ops):
            op, addr, value, fl = int(op), int(addr), int(value), int(fl)
            if op not in gr.MEMOP_NAMES:
                raise DriverError(1, f"{what}: operation {i} has unknown type {op} (CUstreamBatchMemOpType)")
            if op in (gr.MEMOP_WAIT_VALUE_32, gr.MEMOP_WRITE_VALUE_32, gr.MEMOP_WAIT_VALUE_64,
                      gr.MEMOP_WRITE_VALUE_64):
                n = 4 if op in (gr.MEMOP_WAIT_VALUE_32, gr.MEMOP_WRITE_VALUE_32) else 8
                a = self.memory.find(addr)
                if a is None or addr + n > a.start + a.size:
                    raise DriverError(1, f"{what}: operation {i} ({gr.MEMOP_NAMES[op]}) address 0x{addr:x} is not "
                                         "inside a device allocation")
                if addr % n:
                    raise DriverError(1, f"{what}: operation {i} address 0x{addr:x} is not {n}-byte aligned")
                if not 0 <= value < 1 << (8 * n):
                    raise DriverError(1, f"{what}: operation {i} value {value} does not fit in {8 * n} bits")
                if op in (gr.MEMOP_WAIT_VALUE_32, gr.MEMOP_WAIT_VALUE_64):
                    if fl & ~(3 | gr.WAIT_VALUE_FLUSH):
                        raise DriverError(1, f"{what}: operation {i} has unknown wait flags 0x{fl:x}")
                elif fl not in (0, 1):
                    raise DriverError(1, f"{what}: operation {i} has unknown write flags 0x{fl:x}")
            out.append((op, addr, value, fl))
        return {"ops": tuple(out), "flags": flags, "ctx": ctx}

    def _add(self, hgraph: int, deps: list[int], eds: list | None, ntype: int, spec: Any) -> int:
        g = self._graph(hgraph)
        pairs = self._deps_of(g, deps, eds)
        params = self._build(ntype, spec)
        return self._attach(g, ntype, params, pairs).handle

    @entry
    def graph_add_kernel_node(self, hgraph: int, deps: list[int], hfunc: int, grid: tuple, block: tuple,
                              shmem: int, args: list, eds: list | None = None) -> int:
        """cuGraphAddKernelNode (and ``cuGraphAddNode`` for KERNEL): add a KERNEL node.

        Args:
            deps: dependency node handles (already cut to numDependencies); ``eds`` their edge data.
            hfunc: a function handle; ``grid``/``block``: ``(x, y, z)``; ``shmem``: dynamic shared memory
                in bytes; ``args``: the decoded argument values.
        Returns: the node handle.
        Errors: 1 INVALID_VALUE for a bad graph or dependency, a bad function (its Returns list has no
        INVALID_HANDLE), a zero or oversized dimension.
        """
        return self._add(hgraph, deps, eds, gr.KERNEL, {"hfunc": hfunc, "grid": grid, "block": block,
                                                         "shmem": shmem, "args": args})

    @entry
    def graph_add_memcpy_node(self, hgraph: int, deps: list[int], p: CopyParams, eds: list | None = None) -> int:
        """cuGraphAddMemcpyNode: a MEMCPY node; host sides are read and written when the graph runs (3.10).

        Errors: 1 INVALID_VALUE bad graph/dependencies, device ranges outside an allocation.
        """
        return self._add(hgraph, deps, eds, gr.MEMCPY, p)

    @entry
    def graph_add_memset_node(self, hgraph: int, deps: list[int], p: MemsetParams, eds: list | None = None) -> int:
        """cuGraphAddMemsetNode: a MEMSET node. Errors: 1 bad graph/dependencies, range, element size."""
        return self._add(hgraph, deps, eds, gr.MEMSET, p)

    @entry
    def graph_add_host_node(self, hgraph: int, deps: list[int], fn: Any, user_data: Any, sync_mode: int = 0,
                            eds: list | None = None) -> int:
        """cuGraphAddHostNode: a HOST node calling ``fn(user_data)`` on every launch (spec 3.9).

        Args: ``fn`` an ``int`` function address (``void (*)(void*)``) or a Python callable (core use);
        ``sync_mode`` a ``CUhostTaskSyncMode`` (0 or 1).
        Errors: 1 INVALID_VALUE NULL function, bad sync mode, bad graph/dependencies.
        """
        return self._add(hgraph, deps, eds, gr.HOST, {"fn": fn, "user_data": user_data, "sync_mode": sync_mode})

    @entry
    def graph_add_empty_node(self, hgraph: int, deps: list[int], eds: list | None = None) -> int:
        """cuGraphAddEmptyNode: an EMPTY node (a join point). Errors: 1 bad graph/dependencies."""
        return self._add(hgraph, deps, eds, gr.EMPTY, None)

    @entry
    def graph_add_event_node(self, hgraph: int, deps: list[int], hevent: int, wait: bool,
                             eds: list | None = None) -> int:
        """cuGraphAddEventRecordNode / cuGraphAddEventWaitNode: an EVENT_RECORD or WAIT_EVENT node.

        Replay: a record node completes the event; a wait node has nothing to wait for (replay runs
        in one order). Errors: 1 INVALID_VALUE bad graph, dependencies or event (their Returns lists
        have no INVALID_HANDLE).
        """
        return self._add(hgraph, deps, eds, gr.WAIT_EVENT if wait else gr.EVENT_RECORD, hevent)

    @entry
    def graph_add_batch_mem_op_node(self, hgraph: int, deps: list[int], ops: list, flags: int = 0, hctx: int = 0,
                                    eds: list | None = None) -> int:
        """cuGraphAddBatchMemOpNode: a BATCH_MEM_OP node.

        Args: ``ops``: ``(CUstreamBatchMemOpType, device address, value, flags)`` tuples, fewer than 256;
        ``flags`` must be 0; ``hctx`` a context handle or 0.
        Replay: WRITE_VALUE operations store their value; WAIT_VALUE operations evaluate their
        condition and note it (the simulator cannot block); barriers and flushes are no-ops.
        Errors: 1 INVALID_VALUE bad graph/dependencies, unknown operation, address outside device
        memory or misaligned, value too wide, unknown flags; 201/709 bad context.
        """
        return self._add(hgraph, deps, eds, gr.BATCH_MEM_OP, {"ops": ops, "flags": flags, "ctx": hctx})

    @entry
    def graph_add_ext_sem_node(self, hgraph: int, deps: list[int], sems: list[int], values: list[tuple],
                               wait: bool, eds: list | None = None) -> int:
        """cuGraphAddExternalSemaphoresSignalNode / WaitNode: an EXT_SEMAS_SIGNAL (8) / EXT_SEMAS_WAIT (9) node.

        Args: ``sems``: ``CUexternalSemaphore`` handles; ``values``: per semaphore
        ``(fence value, keyed-mutex key, timeout in ms, flags)``.
        Fidelity: external semaphores cannot be imported in the simulator, so handles are recorded
        without a check (only NULL is refused); replay is a no-op with a note in the launch log.
        Errors: 1 INVALID_VALUE bad graph/dependencies, no semaphores, a NULL handle.
        """
        return self._add(hgraph, deps, eds, gr.EXT_SEMAS_WAIT if wait else gr.EXT_SEMAS_SIGNAL,
                         {"sems": sems, "values": values})

    @entry
    def graph_add_mem_alloc_node(self, hgraph: int, deps: list[int], size: int, location: tuple = (1, 0),
                                 alloc_type: int = 1, access: list | None = None,
                                 eds: list | None = None) -> tuple[int, int]:
        """cuGraphAddMemAllocNode: a MEM_ALLOC node owning a fixed virtual address.

        Args:
            size: bytes (> 0). ``location``: ``(CUmemLocationType, id)``; only DEVICE (1) on an existing
            device is simulated. ``alloc_type``: ``CUmemAllocationType`` (PINNED 1). ``access``:
            ``(location type, id, CUmemAccess_flags)`` for peer access descriptors.
        Returns: ``(node handle, dptr)``. The address stays fixed across instantiations and launches; the
        memory is mapped when the node runs and unmapped by a MEM_FREE node, cuMemFreeAsync or cuMemFree.
        Errors: 1 INVALID_VALUE bad graph/dependencies, size 0, a location or allocation type other than
        DEVICE/PINNED, an access descriptor naming an unknown device, or a graph owned by a child-graph node.
        """
        g = self._graph(hgraph)
        pairs = self._deps_of(g, deps, eds)
        if g.owner_node is not None:
            raise DriverError(1, f"graph {g.gid} is owned by a child-graph node; allocation and free nodes cannot "
                                 "be added to it")
        if int(size) <= 0:
            raise DriverError(1, f"allocation node bytesize {size} must be positive")
        ltype, lid = location
        if ltype != 1 or not 0 <= int(lid) < len(self.devices):
            raise DriverError(1, f"allocation node location (type {ltype}, id {lid}) is not a device of this driver "
                                 "(CU_MEM_LOCATION_TYPE_DEVICE with a valid ordinal) [inferred]")
        if alloc_type != 1:
            raise DriverError(1, f"allocation node allocType {alloc_type} is not CU_MEM_ALLOCATION_TYPE_PINNED (1)")
        access = [tuple(int(v) for v in a) for a in (access or [])]
        for i, (t, did, fl) in enumerate(access):
            if t != 1 or not 0 <= did < len(self.devices) or fl not in (0, 1, 3):
                raise DriverError(1, f"accessDescs[{i}] (location type {t}, id {did}, flags {fl}) is not valid")
        ctx = self.devices[int(lid)].primary if g.ctx is None else g.ctx
        a = self.memory.reserve(int(size), KIND_GRAPH, ctx)
        node = self._attach(g, gr.MEM_ALLOC, {"alloc": a, "size": int(size), "device": int(lid), "access": access},
                            pairs)
        a.graph_node = node
        return node.handle, a.start

    def _graph_alloc_to_free(self, dptr: int, g: gr.Graph, pairs: list[tuple[gr.Node, tuple]] | None) -> Any:
        """The graph allocation a new MEM_FREE node (in ``g``, after ``pairs``) frees (cuGraphAddMemFreeNode)."""
        a = self.memory.find(int(dptr))
        if a is None or a.kind != KIND_GRAPH or a.start != int(dptr):
            raise DriverError(1, f"0x{int(dptr):x} is not an address returned by an allocation node (or "
                                 "cuMemAllocAsync during capture); a free node can only free those")
        if a.free_node is not None and not a.free_node.destroyed:
            fg = a.free_node.graph
            raise DriverError(1, f"allocation 0x{a.start:x} is already freed by node {a.free_node.local_id} of graph "
                                 f"{fg.gid}; an allocation can be freed by only one free node")
        own = a.graph_node.graph if a.graph_node is not None else None
        if pairs is not None and own is g:
            anc = _ancestors([n for n, _ in pairs])
            if id(a.graph_node) not in anc:
                raise DriverError(1, f"the free node of 0x{a.start:x} must be ordered after its allocation node "
                                     f"{a.graph_node.local_id} in graph {g.gid} [inferred]")
        return a

    @entry
    def graph_add_mem_free_node(self, hgraph: int, deps: list[int], dptr: int, eds: list | None = None) -> int:
        """cuGraphAddMemFreeNode: a MEM_FREE node for a graph allocation.

        Errors: 1 INVALID_VALUE bad graph/dependencies; an address not returned by an allocation node;
        an allocation already freed by a free node (in this or another graph); in the owning graph, a
        free node not ordered after the allocation node [I]; a graph owned by a child-graph node.
        """
        g = self._graph(hgraph)
        pairs = self._deps_of(g, deps, eds)
        if g.owner_node is not None:
            raise DriverError(1, f"graph {g.gid} is owned by a child-graph node; allocation and free nodes cannot "
                                 "be added to it")
        a = self._graph_alloc_to_free(int(dptr), g, pairs)
        node = self._attach(g, gr.MEM_FREE, {"dptr": a.start}, pairs)
        a.free_node = node
        return node.handle

    def _child_for(self, hchild: int, parent: gr.Graph, move: bool) -> gr.Graph:
        child = self._graph(hchild)
        cap.check_capture_target(child, "move" if move else "read")
        if child.owner_node is not None:
            raise DriverError(1, f"graph {child.gid} is owned by a child-graph node; it cannot be added to another "
                                 "parent")
        if child.has_type_deep(gr.CONDITIONAL):
            raise DriverError(1, f"graph {child.gid} holds conditional nodes and cannot be a child graph")
        if not move and child.has_type_deep(gr.MEM_ALLOC, gr.MEM_FREE):
            raise DriverError(1, f"graph {child.gid} holds memory allocation or free nodes; a child graph node can "
                                 "hold it only with CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE (cuGraphAddNode)")
        if move:
            if child is parent or _owns(child, parent):
                raise DriverError(1, f"graph {child.gid} cannot be moved into itself")
            if child.live_execs:
                raise DriverError(1, f"graph {child.gid} still has {child.live_execs} exec(s); it cannot be moved "
                                     "into a node [inferred]")
        return child

    @entry
    def graph_add_child_graph_node(self, hgraph: int, deps: list[int], hchild: int, eds: list | None = None,
                                   move: bool = False) -> int:
        """cuGraphAddChildGraphNode (and ``cuGraphAddNode`` for GRAPH): a GRAPH node embedding ``child``.

        The child is **cloned** into the node [D]; with ``move`` (``CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE``)
        the graph itself is moved into the node and its handle becomes owned by it. Allowed on a capture
        graph during capture (spec 4.6).
        Errors: 1 INVALID_VALUE bad graphs/dependencies; ``child`` holds CONDITIONAL nodes, or MEM_ALLOC /
        MEM_FREE nodes without ``move``; ``child`` is a capture target moved with ``move`` (a copy of a capture
        graph is a read and allowed: ``capture.CAPTURE_TARGET_USES``) or already owned by a node.
        """
        g = self._graph(hgraph)
        pairs = self._deps_of(g, deps, eds)
        child = self._child_for(hchild, g, move)
        if not move:
            child = gr.clone_graph(self, child)
            child.clone_map = None
        node = self._attach(g, gr.GRAPH, {"graph": child}, pairs)
        child.owner_node = node
        child.moved = move
        return node.handle

    @entry
    def graph_child_graph_node_get_graph(self, hnode: int) -> int:
        """cuGraphChildGraphNodeGetGraph: the embedded graph, owned by the node (not a copy).

        Errors: 1 INVALID_VALUE bad node, or not a GRAPH node.
        """
        n = self._node(hnode)
        if n.type != gr.GRAPH:
            raise DriverError(1, f"node {n.local_id} of graph {n.graph.gid} is {gr.TYPE_KEYWORDS[n.type]}, not a "
                                 "child-graph node")
        return n.params["graph"].handle

    @entry
    def graph_get_nodes(self, hgraph: int) -> list[int]:
        """cuGraphGetNodes: live node handles in creation order (spec 4.5) [I]. Errors: 1 bad graph."""
        return [n.handle for n in self._graph(hgraph).live_nodes()]

    @entry
    def graph_get_root_nodes(self, hgraph: int) -> list[int]:
        """cuGraphGetRootNodes: nodes with no dependency, creation order. Errors: 1 bad graph."""
        return [n.handle for n in self._graph(hgraph).live_nodes() if not n.ins]

    @entry
    def graph_get_edges(self, hgraph: int) -> list[tuple[int, int, tuple]]:
        """cuGraphGetEdges: ``(from, to, edge data)`` in creation order (spec 4.5). Errors: 1 bad graph."""
        return [(e.src.handle, e.dst.handle, e.ed) for e in self._graph(hgraph).edges]

    @entry
    def graph_node_get_type(self, hnode: int) -> int:
        """cuGraphNodeGetType: the ``CUgraphNodeType`` value. Errors: 1 bad node."""
        return self._node(hnode).type

    @entry
    def graph_node_get_dependencies(self, hnode: int, dependents: bool = False) -> list[tuple[int, tuple]]:
        """cuGraphNodeGetDependencies / DependentNodes: ``[(node, edge data)]`` in edge order. Errors: 1."""
        n = self._node(hnode)
        if dependents:
            return [(e.dst.handle, e.ed) for e in n.outs]
        return [(e.src.handle, e.ed) for e in n.ins]

    @entry
    def graph_node_get_containing_graph(self, hnode: int) -> int:
        """cuGraphNodeGetContainingGraph. Errors: 1 bad node."""
        return self._node(hnode).graph.handle

    @entry
    def graph_get_id(self, hgraph: int) -> int:
        """cuGraphGetId: the graph's id, as in ``graph_<id>`` of DOT output (spec 9). Errors: 1."""
        return self._graph(hgraph).gid

    @entry
    def graph_node_get_local_id(self, hnode: int) -> int:
        """cuGraphNodeGetLocalId: 0-based creation index, as in ``node_<id>`` of DOT output. Errors: 1."""
        return self._node(hnode).local_id

    @entry
    def graph_add_dependencies(self, hgraph: int, froms: list[int], tos: list[int], eds: list[tuple]) -> None:
        """cuGraphAddDependencies: add edges ``froms[i] -> tos[i]`` with edge data ``eds`` (empty: zero).

        Errors: 1 INVALID_VALUE a node outside the graph or NULL, a self edge, an edge that already
        exists (also twice in one call) (spec 9), bad edge data.
        """
        g = self._graph(hgraph)
        pairs = []
        for i, (a, b) in enumerate(zip(froms, tos)):
            na, nb = self._node(a, "from"), self._node(b, "to")
            if na.graph is not g or nb.graph is not g:
                raise DriverError(1, f"edge {i}: both nodes must belong to graph {g.gid}")
            if na is nb:
                raise DriverError(1, f"edge {i}: a node cannot depend on itself")
            if any(e.dst is nb for e in na.outs) or any(p[0] is na and p[1] is nb for p in pairs):
                raise DriverError(1, f"edge {i}: node {na.local_id} -> node {nb.local_id} already exists")
            pairs.append((na, nb))
        eds = eds or [gr.ZERO_ED] * len(pairs)
        cap.check_edge_data([None if ed is None else (0, ed[1], ed[2]) for ed in eds], "edgeData")
        for (na, nb), ed in zip(pairs, eds):
            gr.add_edge(g, na, nb, tuple(ed))

    @entry
    def graph_remove_dependencies(self, hgraph: int, froms: list[int], tos: list[int], eds: list[tuple]) -> None:
        """cuGraphRemoveDependencies: remove edges (remembered for the unjoined rule, spec 4.4).

        Errors: 1 INVALID_VALUE an edge that does not exist with that edge data, or a graph with
        allocation/free nodes (spec 9).
        """
        g = self._graph(hgraph)
        if g.has_type(gr.MEM_ALLOC, gr.MEM_FREE):
            raise DriverError(1, f"graph {g.gid} has memory allocation/free nodes; its edges cannot be removed")
        found = []
        for i, (a, b) in enumerate(zip(froms, tos)):
            na, nb = self._node(a, "from"), self._node(b, "to")
            if na.graph is not g or nb.graph is not g:
                raise DriverError(1, f"edge {i}: both nodes must belong to graph {g.gid} (node {na.local_id} is in "
                                     f"graph {na.graph.gid}, node {nb.local_id} in graph {nb.graph.gid})")
            ed = eds[i] if eds else gr.ZERO_ED
            match = next((e for e in na.outs if e.dst is nb and e.ed == tuple(ed)), None)
            if match is None or match in found:
                raise DriverError(1, f"edge {i}: there is no edge node {na.local_id} -> node {nb.local_id} with that "
                                     "edge data")
            found.append(match)
        for e in found:
            gr.remove_edge(g, e)

    @entry
    def graph_destroy_node(self, hnode: int) -> None:
        """cuGraphDestroyNode: remove a node and its edges.

        Errors: 1 INVALID_VALUE bad node; its graph is a capture target (spec 3.5, C-109) or holds
        allocation/free nodes (spec 9).
        """
        n = self._node(hnode)
        g = n.graph
        cap.check_capture_target(g, "remove node")
        if g.has_type(gr.MEM_ALLOC, gr.MEM_FREE):
            raise DriverError(1, f"graph {g.gid} has memory allocation/free nodes; its nodes cannot be destroyed")
        for e in list(n.ins) + list(n.outs):
            gr.remove_edge(g, e)
        g.removed_edges = [e for e in g.removed_edges if e.src is not n and e.dst is not n]
        g.drop_node(n)
        if n.type == gr.GRAPH:
            self._discard_graph(n.params["graph"])

    @entry
    def graph_clone(self, hgraph: int) -> int:
        """cuGraphClone: a deep copy (child graphs included), with parameters copied.

        Returns: the new graph; ``cuGraphNodeFindInClone`` maps original nodes to their copies.
        Errors: 1 INVALID_VALUE bad graph, or a graph holding MEM_ALLOC, MEM_FREE or CONDITIONAL nodes
        (spec 9; cuGraphAddMemAllocNode: "the graph cannot be cloned").
        """
        g = self._graph(hgraph)
        if g.has_type_deep(gr.MEM_ALLOC, gr.MEM_FREE, gr.CONDITIONAL):
            raise DriverError(1, f"graph {g.gid} holds memory allocation/free or conditional nodes and cannot be "
                                 "cloned (spec 9)")
        return gr.clone_graph(self, g).handle

    @entry
    def graph_node_find_in_clone(self, horig: int, hclone: int) -> int:
        """cuGraphNodeFindInClone: the node of a cloned graph that copies ``horig``.

        Errors: 1 INVALID_VALUE bad handles; ``hclone`` was not made by cuGraphClone of the original's
        graph, or the node was added after cloning; the copy has been destroyed.
        """
        orig = self._node(horig)
        clone = self._graph(hclone)
        m = (clone.clone_map or {}).get(orig.handle)
        if m is None:
            raise DriverError(1, f"graph {clone.gid} is not a clone (cuGraphClone) of graph {orig.graph.gid} made "
                                 f"while node {orig.local_id} was in it")
        if m.destroyed:
            raise DriverError(1, f"the copy of node {orig.local_id} in graph {clone.gid} has been destroyed")
        return m.handle

    # -- node parameters ------------------------------------------------------------------------
    def _typed_node(self, hnode: int, ntype: int | tuple) -> gr.Node:
        n = self._node(hnode)
        types = ntype if isinstance(ntype, tuple) else (ntype,)
        if n.type not in types:
            want = " or ".join(gr.TYPE_KEYWORDS.get(t, str(t)) for t in types)
            raise DriverError(1, f"node {n.local_id} of graph {n.graph.gid} is {gr.TYPE_KEYWORDS.get(n.type)}, "
                                 f"not {want}")
        return n

    @entry
    def graph_node_get_params(self, hnode: int, ntype: int | None = None) -> tuple[int, Any]:
        """cuGraphNodeGetParams and the per-kind getters (cuGraphKernelNodeGetParams, ...).

        Args: ``ntype``: the type the per-kind getter expects (None: any).
        Returns: ``(CUgraphNodeType, params)`` with ``params`` a copy in the form of :mod:`graph`'s
        docstring (a GRAPH node's dict holds the embedded graph, not a copy).
        Errors: 1 INVALID_VALUE bad node, or a node of another type.
        """
        n = self._node(hnode) if ntype is None else self._typed_node(hnode, ntype)
        return n.type, gr.copy_params(n.type, n.params)

    @entry
    def graph_node_set_params(self, hnode: int, ntype: int, spec: Any) -> None:
        """cuGraphNodeSetParams and the per-kind setters (cuGraphKernelNodeSetParams, cuGraphEventRecordNodeSetEvent...).

        Args: ``spec`` as the matching add entry takes it (kernel: dict ``hfunc, grid, block, shmem, args``;
        memcpy: CopyParams; memset: MemsetParams; host: dict ``fn, user_data, sync_mode``; events: the
        event handle; GRAPH: a graph handle, cloned into the node; batch/ext-sem: as the add entries).
        Execs already made from the graph are not affected.
        Errors: 1 INVALID_VALUE bad node, type mismatch or bad parameters; 400 INVALID_HANDLE a bad
        function or event (the per-kind setters list it); 801 NOT_SUPPORTED for MEM_ALLOC / MEM_FREE
        nodes ("modifying parameters is not supported", cuGraphNodeSetParams) [I code].
        """
        n = self._typed_node(hnode, ntype)
        if ntype in (gr.MEM_ALLOC, gr.MEM_FREE):
            raise DriverError(801, f"node {n.local_id} is {gr.TYPE_KEYWORDS[ntype]}: modifying the parameters of "
                                   "allocation and free nodes is not supported (cuGraphNodeSetParams)")
        if ntype == gr.GRAPH:
            child = self._child_for(int(spec), n.graph, False)
            new = gr.clone_graph(self, child)
            new.clone_map = None
            old = n.params["graph"]
            old.owner_node = None
            self._discard_graph(old)
            new.owner_node = n
            n.params = {"graph": new}
            return
        n.params = self._build(ntype, spec, 400)

    @entry
    def graph_exec_node_set_params(self, hexec: int, hnode: int, ntype: int, spec: Any) -> None:
        """cuGraphExecNodeSetParams and the per-kind exec setters (cuGraphExecKernelNodeSetParams, ...).

        Changes the node in the exec only (future launches; launches already enqueued keep what they
        had), as though ``hnode`` had held ``spec`` at instantiation. The limits are those of the
        docstrings and the Programming Guide's "Graph Update Limitations": a kernel's function cannot
        move to another context; memcpy memory types and allocation kinds/contexts cannot change, and
        only 1D copies may change geometry; memset destinations must stay the same kind of allocation,
        2D memsets may change only address and value, 1D ones not their height; zero-sized copies and
        sets are refused; the number of external semaphores and the shape of batch mem ops are fixed;
        GRAPH: ``spec`` is a graph of the same topology (checked like cuGraphExecUpdate, recursively).
        Errors: 1 INVALID_VALUE bad exec or node, a node not in the graph the exec was made from (or
        destroyed since), a type mismatch, bad parameters, or a change beyond those limits; 801 for
        MEM_ALLOC / MEM_FREE nodes [I code].
        """
        x = self._exec(hexec)
        n = self._node(hnode)
        pos = x.body.index.get(id(n))
        if pos is None:
            raise DriverError(1, f"node {n.local_id} of graph {n.graph.gid} is not a node of graph {x.gid}, from "
                                 f"which exec 0x{x.handle:x} was instantiated")
        old = x.body.order[pos]
        if n.type != ntype:
            raise DriverError(1, f"node {n.local_id} is {gr.TYPE_KEYWORDS.get(n.type)}, not "
                                 f"{gr.TYPE_KEYWORDS.get(ntype)}")
        if ntype in (gr.MEM_ALLOC, gr.MEM_FREE):
            raise DriverError(801, f"node {n.local_id} is {gr.TYPE_KEYWORDS[ntype]}: its parameters cannot be "
                                   "changed in an exec")
        if ntype == gr.GRAPH:
            child = self._graph(int(spec))
            cap.check_capture_target(child, "update from")
            try:
                body = gr.plan_update(old.child, child, self.memory.find, x.flags)
            except gr.UpdateFailure as f:
                raise DriverError(1, f"cuGraphExecChildGraphNodeSetParams: graph {child.gid} does not match the "
                                     f"child graph of node {n.local_id}: {f.why} "
                                     f"({gr.UPDATE_NAMES[f.result]})") from None
            x.writable_body().order[pos] = old.evolve(child=body)
            return
        params = self._build(ntype, spec, 1)
        prob = gr.param_change_problem(ntype, old.params, params, self.memory.find, x.flags, per_node=True)
        if prob is not None:
            raise DriverError(1, f"node {n.local_id} ({gr.TYPE_KEYWORDS[ntype]}) of exec 0x{x.handle:x}: {prob[1]}")
        x.writable_body().order[pos] = old.evolve(params=params)

    def _exec_node(self, hexec: int, hnode: int) -> tuple[gr.GraphExec, int, gr.ExecNode]:
        x = self._exec(hexec)
        n = self._node(hnode)
        pos = x.body.index.get(id(n))
        if pos is None:
            raise DriverError(1, f"node {n.local_id} of graph {n.graph.gid} is not a node of graph {x.gid}, from "
                                 f"which exec 0x{x.handle:x} was instantiated")
        return x, pos, x.body.order[pos]

    @entry
    def graph_node_set_enabled(self, hexec: int, hnode: int, enabled: int) -> None:
        """cuGraphNodeSetEnabled: enable (``enabled`` != 0) or disable a node in an exec.

        A disabled node runs as an empty node; its parameters are kept, and updates made while it is
        disabled apply once it is enabled again (Programming Guide, "Individual node enable").
        Errors: 1 INVALID_VALUE bad exec or node, a node not in the exec's graph, or a node that is not
        KERNEL, MEMCPY or MEMSET.
        """
        x, pos, old = self._exec_node(hexec, hnode)
        if old.type not in gr.ENABLE_TYPES:
            raise DriverError(1, f"node {old.local_id} is {gr.TYPE_KEYWORDS[old.type]}; only kernel, memcpy and "
                                 "memset nodes can be enabled or disabled")
        x.writable_body().order[pos] = old.evolve(enabled=bool(enabled))

    @entry
    def graph_node_get_enabled(self, hexec: int, hnode: int) -> int:
        """cuGraphNodeGetEnabled: 1 when the node is enabled in the exec, else 0. Errors as SetEnabled."""
        x, pos, old = self._exec_node(hexec, hnode)
        if old.type not in gr.ENABLE_TYPES:
            raise DriverError(1, f"node {old.local_id} is {gr.TYPE_KEYWORDS[old.type]}; only kernel, memcpy and "
                                 "memset nodes have an enabled state")
        return int(old.enabled)

    @entry
    def graph_exec_get_flags(self, hexec: int) -> int:
        """cuGraphExecGetFlags: the instantiate flags, without UPLOAD (it does not shape the exec). Errors: 1."""
        return self._exec(hexec).flags & ~2

    @entry
    def graph_exec_get_id(self, hexec: int) -> int:
        """cuGraphExecGetId: the exec's id (unique among graph and exec ids of this driver) [I]. Errors: 1."""
        return self._exec(hexec).exec_id

    # -- instantiate, launch, update -----------------------------------------------------------
    @entry
    def graph_instantiate(self, hgraph: int, flags: int) -> int:
        """cuGraphInstantiate (13.x takes flags) / cuGraphInstantiateWithFlags: freeze a graph into an exec.

        Args: ``flags``: ``CUgraphInstantiate_flags`` bits (AUTO_FREE_ON_LAUNCH 1, UPLOAD 2,
        DEVICE_LAUNCH 4, USE_NODE_PRIORITY 8).
        Returns: the exec handle.
        Errors (all 1 INVALID_VALUE; :meth:`graph_instantiate_with_params` also reports the
        ``CUgraphInstantiateResult`` and error node): UPLOAD (2), which needs the params form and its
        upload stream (spec 16, 9) [H/D]; unknown flag bits; a capture target (spec 9) [I];
        a graph moved into a child-graph node; MEM_ALLOC/MEM_FREE nodes while an exec of the graph
        exists (C-141); DEVICE_LAUNCH with AUTO_FREE_ON_LAUNCH, with a graph without kernel, memcpy or
        memset nodes, with other node types, with copies of pageable host memory, or with nodes of
        several contexts (C-143); a cycle (INVALID_STRUCTURE).
        """
        g = self._graph(hgraph)
        if int(flags) & gr.INSTANTIATE_UPLOAD:
            raise DriverError(1, f"cuGraphInstantiate of graph {g.gid} with CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD: that "
                                 "flag needs an upload stream, which only cuGraphInstantiateWithParams takes "
                                 "(spec 16, 9); no exec was made")
        return self._instantiate(g, int(flags)).handle

    @entry
    def graph_instantiate_with_params(self, hgraph: int, flags: int, hupload: int = 0) -> int:
        """cuGraphInstantiateWithParams: as :meth:`graph_instantiate`, plus UPLOAD into ``hupload``.

        Returns: the exec handle (``CUgraphInstantiateResult`` SUCCESS, error node NULL).
        Errors: as :meth:`graph_instantiate`; the raised ``DriverError`` carries ``instantiate_result``
        (ERROR 1, INVALID_STRUCTURE 2, NODE_OPERATION_NOT_SUPPORTED 3, MULTIPLE_CTXS_NOT_SUPPORTED 4) and
        ``err_node`` (a node handle or 0), which the faces write into ``result_out`` / ``hErrNode_out``.
        With UPLOAD the stream is checked first (stream rules of cuGraphUpload), so a failure makes no exec.
        """
        try:
            g = self._graph(hgraph)
            s = None
            if flags & gr.INSTANTIATE_UPLOAD:
                s = self._stream(hupload)
                self._upload_checks(s)
            return self._instantiate(g, int(flags)).handle
        except DriverError as e:
            if not hasattr(e, "instantiate_result"):
                e.instantiate_result, e.err_node = gr.INST_ERROR, 0
            raise

    def _inst_error(self, result: int, node: gr.Node | None, why: str) -> DriverError:
        e = DriverError(1, f"{why} (CUgraphInstantiateResult {_INST_NAMES[result]}"
                           f"{'' if node is None else f', error node {node.local_id} of graph {node.graph.gid}'})")
        e.instantiate_result, e.err_node = result, (node.handle if node is not None else 0)
        return e

    def _instantiate(self, g: gr.Graph, flags: int) -> gr.GraphExec:
        if flags & ~0xF:
            raise self._inst_error(gr.INST_ERROR, None, f"instantiate flags 0x{flags:x} have bits outside "
                                                        "CUgraphInstantiate_flags")
        refusal = cap.capture_target_refusal(g, "instantiate")
        if refusal is not None:
            raise self._inst_error(gr.INST_ERROR, None, refusal.why)
        if g.moved:
            raise self._inst_error(gr.INST_ERROR, None, f"graph {g.gid} was moved into a child-graph node and "
                                                        "cannot be instantiated on its own")
        if g.live_execs > 0 and g.has_type_deep(gr.MEM_ALLOC, gr.MEM_FREE):
            raise self._inst_error(gr.INST_ERROR, None, f"graph {g.gid} has memory allocation/free nodes and an "
                                                        "exec of it still exists; only one may exist at a time "
                                                        "(spec 9, C-141)")
        if flags & 4:
            self._device_launch_checks(g, flags)
        try:
            body = gr.freeze(g)
        except gr.GraphCycle as c:
            raise self._inst_error(gr.INST_INVALID_STRUCTURE, c.node, f"graph {c.node.graph.gid} has a cycle "
                                                                      f"through node {c.node.local_id}") from None
        self._graph_counter += 1
        x = gr.GraphExec(0, g, flags, body, self._graph_counter)
        x.handle = self._handle(x)
        g.live_execs += 1
        return x

    def _device_launch_checks(self, g: gr.Graph, flags: int) -> None:
        """The DEVICE_LAUNCH restrictions of cuGraphInstantiate (C-143)."""
        if flags & 1:
            raise self._inst_error(gr.INST_ERROR, None, "CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH cannot be "
                                                        "combined with AUTO_FREE_ON_LAUNCH (spec 9)")
        nodes = list(_walk(g))
        if not any(n.type in (gr.KERNEL, gr.MEMCPY, gr.MEMSET) for n in nodes):
            raise self._inst_error(gr.INST_ERROR, None, f"a DEVICE_LAUNCH graph cannot be empty: graph {g.gid} has "
                                                        "no kernel, memcpy or memset node (spec 9)")
        ctxs: dict[int, gr.Node] = {}
        for n in nodes:
            if n.type not in gr.DEVICE_LAUNCH_TYPES:
                raise self._inst_error(gr.INST_NODE_OPERATION_NOT_SUPPORTED, n,
                                       f"node {n.local_id} ({gr.TYPE_KEYWORDS[n.type]}) is not allowed in a "
                                       "DEVICE_LAUNCH graph (kernel, memcpy, memset and child graph nodes only)")
            node_ctxs = []
            if n.type == gr.KERNEL:
                node_ctxs.append(n.params["func"].module.ctx)
            elif n.type == gr.MEMCPY:
                p = n.params
                for kind, obj in ((p.src_kind, p.src), (p.dst_kind, p.dst)):
                    if kind == HOST:
                        if not (isinstance(obj, int) and obj in self.memory.host):
                            raise self._inst_error(gr.INST_NODE_OPERATION_NOT_SUPPORTED, n,
                                                   f"memcpy node {n.local_id} copies pageable host memory; a "
                                                   "DEVICE_LAUNCH graph may copy only device or pinned host memory")
                    else:
                        a = self.memory.find(int(obj))
                        if a is not None and a.ctx is not None:
                            node_ctxs.append(a.ctx)
            elif n.type == gr.MEMSET:
                a = self.memory.find(n.params.dst)
                if a is not None and a.ctx is not None:
                    node_ctxs.append(a.ctx)
            for c in node_ctxs:
                ctxs.setdefault(id(c), n)
                if len(ctxs) > 1:
                    raise self._inst_error(gr.INST_MULTIPLE_CTXS_NOT_SUPPORTED, n,
                                           f"node {n.local_id} uses another context than the rest of the graph; a "
                                           "DEVICE_LAUNCH graph's nodes must reside on a single context")

    @entry
    def graph_exec_destroy(self, hexec: int) -> None:
        """cuGraphExecDestroy. Errors: 1/400 bad exec; 900 by spec 5.2 during a restricting capture (C-175).

        Fidelity: launches still pending (manual progression) or running (another thread destroys the
        exec while a host node or Python kernel of its replay runs) run to completion with the body they
        started with, as NVIDIA frees an exec in flight when it finishes; the handle is refused at once.
        Graph allocations the exec left unfreed stay allocated.
        """
        x = self._exec(hexec)
        cap.check_unsafe(self, self._thread(), "cuGraphExecDestroy")
        x.destroyed = True
        x.graph.live_execs -= 1

    @entry
    def graph_launch(self, hexec: int, h: int) -> None:
        """cuGraphLaunch: replay the exec on stream ``h`` (spec 9, 3.8).

        Each launch is ordered behind earlier work in the stream and earlier launches of the exec: with
        ``Driver(progression="manual")`` it stays pending until :meth:`advance` or a synchronisation,
        and ``launch_log`` follows that order. The launch runs the exec as it was when the launch was
        enqueued. Replay: nodes in topological order, creation order breaking ties; see ``run_frozen``.
        Graph allocations: a launch maps the exec's MEM_ALLOC addresses (when its nodes run); those not
        freed in the graph stay allocated until cuMemFreeAsync, cuMemFree, a free node of another graph,
        or (AUTO_FREE_ON_LAUNCH) the next launch.
        Errors: 1 NULL or destroyed exec (spec 16, 9), 400 garbage handle; 1 INVALID_VALUE when allocations
        of an earlier launch are unfreed and the exec was instantiated without AUTO_FREE_ON_LAUNCH (C-142);
        900 into a capturing stream, invalidating the capture (spec 3.8), unless ``Options(graph_launch_in_capture="child-node")``,
        which adds a GRAPH node holding a copy of the exec's graph as instantiated (1 for an exec with
        memory nodes [I]); 900 onto a CIG stream for graphs with HOST, memory or batch nodes (spec 8.3);
        906/901 by the stream rules.
        """
        x = self._exec_to_run(hexec, "cuGraphLaunch")
        s = self._stream(h)
        body = x.body
        if s.cig is not None:
            cap.check_graph_launch_on_cig(s, (n.type for n in _walk_body(body)))
        seq = s.capture
        if cap.capturing_into(s) is not None and self.options.graph_launch_in_capture == "child-node":
            if any(n.type in (gr.MEM_ALLOC, gr.MEM_FREE) for n in _walk_body(body)):
                raise DriverError(1, f"exec 0x{x.handle:x} holds memory allocation/free nodes; it cannot be nested "
                                     "as a child-graph node of a capture [inferred]")
            child = gr.graph_from_frozen(self, body, s.ctx)
            node = cap.enqueue(self, s, cap.Op("graph_launch", "cuGraphLaunch", child, None))
            child.owner_node = node
            return
        allocs = body.allocs()
        frees = body.frees()
        if seq is None and s.cig is None and allocs and not x.flags & 1:
            left = [a for a in allocs if a.outstanding is not None]
            if left:
                raise DriverError(1, f"exec 0x{x.handle:x} still has {len(left)} graph allocation(s) from an earlier "
                                     f"launch that were never freed (0x{left[0].start:x}...); free them or "
                                     "instantiate with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH (spec 9, C-142)")
        started: list[int] = []

        def run() -> str:
            started.append(1)
            x.pending -= 1
            x.running += 1
            try:
                return replay()
            finally:
                x.running -= 1

        def replay() -> str:
            if x.flags & 1:
                for a in allocs:  # AUTO_FREE_ON_LAUNCH: as though cuMemFreeAsync ran before this launch
                    self.memory.unmap(a)
            x.launches += 1
            n = x.launches
            self.stats["graph_launches"] += 1

            def log(node: gr.ExecNode, note: str) -> None:
                self._log({"source": "graph", "kind": gr.TYPE_KEYWORDS.get(node.type, str(node.type)),
                           "detail": _node_detail(node), "stream": s.handle, "exec_handle": x.handle,
                           "launch": n, "graph_id": node.gid, "node": node.local_id, "note": note})
            try:
                gr.run_frozen(self, body, log)
            except MemoryError:
                raise DriverError(2, "the host running the simulator cannot back a graph allocation mapped by "
                                     "this replay") from None
            return ""
        x.pending += 1
        x.shared = True
        try:
            cap.enqueue(self, s, cap.Op("graph_launch", "cuGraphLaunch", x.graph, run))
        except DriverError:
            if not started:
                x.pending -= 1
            raise
        if s.cig is not None:  # recorded into the CIG command list, never run here (spec 8.3)
            if not started:
                x.pending -= 1
            return
        for a in allocs:
            a.outstanding = x
        for d in frees:
            a = self.memory.find(d)
            if a is not None and a.kind == KIND_GRAPH:
                a.outstanding = None

    def _upload_checks(self, s: Stream) -> None:
        cap.check_legacy_use(self, s, "cuGraphUpload")
        if s.capture is not None and s.capture.status == cap.INVALIDATED:
            raise DriverError(901, f"{s.label()} belongs to an invalidated capture")

    @entry
    def graph_upload(self, hexec: int, h: int) -> None:
        """cuGraphUpload: nothing to upload in a simulator; checks the handles and the stream rules.

        Errors: 1 NULL or destroyed exec (spec 16, 9), 400 garbage handle; stream errors; 906 on the legacy
        stream while a blocking stream captures; 901 on a stream of an invalidated capture.
        """
        self._exec_to_run(hexec, "cuGraphUpload")
        self._upload_checks(self._stream(h))

    @entry
    def graph_exec_update(self, hexec: int, hgraph: int) -> tuple[int, int, int]:
        """cuGraphExecUpdate: give an exec the parameters of a graph of the same topology (spec 9).

        Pairing (Programming Guide, "Whole Graph Update"): nodes by creation order, dependencies by edge
        order. Checks, in the docstring's order: NOT_SUPPORTED (6) when the graphs created different numbers
        of nodes, destroyed ones included (error node NULL; spec 16 [I] from NVIDIA observations, against the
        docstring's TOPOLOGY_CHANGED); TOPOLOGY_CHANGED (2) when the created counts match but the live node
        counts differ (error node NULL), the graph has more exit nodes (error node one of them), a node's
        dependency count differs or a dependency differs (error node the node, error-from node the
        dependency); NODE_TYPE_CHANGED (3) (error node from ``hgraph``); per node the "Graph Update Limitations": UNSUPPORTED_FUNCTION_CHANGE
        (7) for a kernel function of another context, PARAMETERS_CHANGED (5) for memcpy/memset memory
        kind, context or multi-dimensional geometry changes, a changed number of external semaphores or
        batch-op shape, ATTRIBUTES_CHANGED (8) for a priority change under USE_NODE_PRIORITY [I code];
        NOT_SUPPORTED (6) when the graph has memory nodes and another exec of it exists. Child graphs are
        checked recursively. Host and event nodes may change freely. On success every node takes the
        graph's parameters (enabled states are kept; nodes keep their identity for per-node calls).

        Returns: ``(CU_GRAPH_EXEC_UPDATE_SUCCESS, 0, 0)``.
        Errors: 910 GRAPH_EXEC_UPDATE_FAILURE, with ``update_info = (result, error node, error-from node)``
        on the error and a ``why`` naming the result; the exec is unchanged. 1 INVALID_VALUE for a bad
        exec or graph, a capture target (an update freezes the graph as instantiation does, spec 3.2 [I];
        ``capture.CAPTURE_TARGET_USES``), or a graph moved into a child-graph node (result ERROR).
        FUNCTION_CHANGED (4) is for drivers before 11.2 and never returned.
        """
        try:
            x = self._exec(hexec)
            g = self._graph(hgraph)
            cap.check_capture_target(g, "update from")
            if g.moved:
                raise DriverError(1, f"graph {g.gid} was moved into a child-graph node and cannot be used to update "
                                     "an exec")
        except DriverError as e:
            e.update_info = (gr.UPD_ERROR, 0, 0)
            raise
        others = g.live_execs - (1 if x.graph is g else 0)
        if others > 0 and g.has_type_deep(gr.MEM_ALLOC, gr.MEM_FREE):
            mn = g.first_of(gr.MEM_ALLOC, gr.MEM_FREE)
            raise self._update_error(x, gr.UpdateFailure(
                gr.UPD_NOT_SUPPORTED, mn, f"graph {g.gid} holds memory nodes and is instantiated as another exec; "
                                          "it cannot be used to update this one (Graph Update Limitations)"))
        try:
            body = gr.plan_update(x.body, g, self.memory.find, x.flags)
        except gr.UpdateFailure as f:
            raise self._update_error(x, f) from None
        x.body = body
        x.shared = False
        return (gr.UPD_SUCCESS, 0, 0)

    def _update_error(self, x: gr.GraphExec, f: gr.UpdateFailure) -> DriverError:
        name = gr.UPDATE_NAMES[f.result]
        enode = f.node.handle if f.node is not None else 0
        efrom = f.from_node.handle if f.from_node is not None else 0
        why = (f"cuGraphExecUpdate of exec 0x{x.handle:x}: result CU_GRAPH_EXEC_UPDATE_ERROR_{name} ({f.result}); "
               f"{f.why}; error node "
               + (f"0x{enode:x} (node {f.node.local_id} of graph {f.node.graph.gid})" if enode else "NULL")
               + (f", error-from node 0x{efrom:x} (node {f.from_node.local_id})" if efrom else "")
               + "; the exec is unchanged")
        e = DriverError(910, why)
        e.update_info = (f.result, enode, efrom)
        return e

    @entry
    def graph_debug_dot_print(self, hgraph: int, path: Any, flags: int) -> None:
        """cuGraphDebugDotPrint: write the DOT text of spec 9.1 (see ``graph.dot_text``) to ``path``.

        Args: ``path``: a ``str``, ``bytes`` (a file-system path), ``None`` (NULL) or the ``int`` address of a
        NUL-terminated path (read only where readable, :mod:`hostmem`).
        Errors: 1 INVALID_VALUE bad graph, NULL, unreadable or empty path; 304 OPERATING_SYSTEM when the file
        cannot be written.
        """
        g = self._graph(hgraph)
        if path is None:
            raise DriverError(1, "the DOT path is NULL")
        if isinstance(path, int):
            path = hostmem.read_c_string(self.memory, path, "the DOT path") if path else None
            if path is None:
                raise DriverError(1, "the DOT path is NULL")
        if isinstance(path, (bytes, bytearray)):
            path = os.fsdecode(bytes(path))
        if not path:
            raise DriverError(1, "the DOT path is empty")
        text = gr.dot_text(g, int(flags))
        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as e:
            raise DriverError(304, f"could not write {path!r}: {e.strerror}") from None

    def dot(self, hgraph: int, flags: int = 0) -> str:
        """The DOT text ``cuGraphDebugDotPrint`` would write for graph handle ``hgraph`` (spec 9.1).

        Args: ``flags``: ``CUgraphDebugDot_flags`` bits. Raises ``DriverError`` 1 for a bad graph.
        """
        with self._lock:
            return gr.dot_text(self._graph(int(hgraph)), int(flags))

    # -- stream work that makes BATCH_MEM_OP and EXT_SEMAS nodes during capture (spec 3.8) --------
    @entry
    def stream_batch_mem_op(self, h: int, ops: list, flags: int = 0, call: str = "cuStreamBatchMemOp") -> None:
        """cuStreamBatchMemOp, cuStreamWaitValue32/64, cuStreamWriteValue32/64.

        Args: ``ops``: ``(CUstreamBatchMemOpType, device address, value, flags)`` tuples (fewer than 256);
        ``flags`` must be 0. During capture: a BATCH_MEM_OP node (spec 3.8; [D] for cuStreamBatchMemOp,
        [I] for the WaitValue/WriteValue calls). Otherwise it runs in stream order: writes store their
        value; a wait evaluates its condition and the launch log says whether it holds (the simulator
        never blocks).
        Errors: 1 INVALID_VALUE bad operation, address, alignment, value or flags; 801 on a CIG stream for
        waits and batches (spec 8.3); stream capture rules (901, 906).
        """
        s = self._stream(h)
        params = self._mem_ops_spec(ops, flags, 0, call)
        kind = "batch_mem_op" if call == "cuStreamBatchMemOp" else (
            "wait_value" if "Wait" in call else "write_value")
        op = cap.Op(kind, call, params, lambda: gr.run_mem_ops(self.memory, params["ops"]))
        op.node_type = gr.BATCH_MEM_OP
        cap.enqueue(self, s, op)

    @entry
    def stream_ext_semaphores(self, h: int, sems: list[int], values: list[tuple], wait: bool) -> None:
        """cuSignalExternalSemaphoresAsync / cuWaitExternalSemaphoresAsync.

        During capture: an EXT_SEMAS_SIGNAL (8) / EXT_SEMAS_WAIT (9) node (spec 3.8). Otherwise a
        no-op in stream order, noted in the launch log.
        Fidelity: external semaphores cannot be imported in the simulator (cuImportExternalSemaphore is
        not simulated), so handles are not checked beyond NULL.
        Errors: 400 INVALID_HANDLE a NULL semaphore handle or no semaphores; stream capture rules.
        """
        s = self._stream(h)
        if not sems or any(int(x) == 0 for x in sems):
            raise DriverError(400, "a NULL external semaphore handle (or numExtSems 0)")
        params = {"sems": tuple(int(x) for x in sems), "values": tuple(tuple(v) for v in values)}
        call = "cuWaitExternalSemaphoresAsync" if wait else "cuSignalExternalSemaphoresAsync"
        op = cap.Op("ext_wait" if wait else "ext_signal", call, params,
                    lambda: f"no-op: external semaphores are not simulated ({len(params['sems'])} semaphore(s))")
        cap.enqueue(self, s, op)

    # ------------------------------------------------------------------ introspection helpers
    def graphs_from_captures(self) -> list[gr.Graph]:
        """Graphs returned by successful cuStreamEndCapture calls, in order (for summaries)."""
        return list(self._captured_graphs)

    def all_graphs(self) -> list[gr.Graph]:
        """Every graph this driver created that is still alive (child graphs excluded)."""
        return [g for g in self._all_graphs if not g.destroyed and g.owner_node is None]

    def thread_id(self) -> int:
        """The calling thread's serial id in this driver (never reused, unlike Python thread idents)."""
        with self._lock:
            return self._thread().tid

    def last_error(self) -> DriverError | None:
        """The last failing core call's error on the calling thread (code and ``why``), or None."""
        with self._lock:
            return self._thread().last_error


class _Array:
    """A CUDA array (cuArrayCreate): dimensions and format only; its contents are not simulated."""

    __slots__ = ("ctx", "dims", "fmt", "channels", "destroyed")

    def __init__(self, ctx: Context, dims: tuple, fmt: int, channels: int) -> None:
        self.ctx, self.dims, self.fmt, self.channels, self.destroyed = ctx, dims, fmt, channels, False


_INST_NAMES = {0: "SUCCESS", 1: "ERROR", 2: "INVALID_STRUCTURE", 3: "NODE_OPERATION_NOT_SUPPORTED",
               4: "MULTIPLE_CTXS_NOT_SUPPORTED", 5: "CONDITIONAL_HANDLE_UNUSED"}


def _walk(g: gr.Graph) -> Any:
    """Live nodes of ``g`` and of its child graphs, depth first, creation order."""
    for n in g.live_nodes():
        yield n
        if n.type == gr.GRAPH:
            yield from _walk(n.params["graph"])


def _walk_body(body: gr.Frozen) -> Any:
    """Exec nodes of a frozen body and of its child bodies."""
    for x in body.order:
        yield x
        if x.type == gr.GRAPH:
            yield from _walk_body(x.child)


def _ancestors(nodes: list[gr.Node]) -> set[int]:
    """``id()`` of ``nodes`` and of every node they depend on, transitively."""
    seen: set[int] = set()
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.extend(e.src for e in n.ins)
    return seen


def _owns(child: gr.Graph, g: gr.Graph) -> bool:
    """True when ``g`` is (transitively) embedded in ``child``."""
    while g.owner_node is not None:
        g = g.owner_node.graph
        if g is child:
            return True
    return False


def _node_detail(x: gr.ExecNode) -> str:
    """The launch log's ``detail`` for a replayed node."""
    p = x.params
    if x.type == gr.KERNEL:
        return f"{p['name']}<<<{p['grid']},{p['block']},{p['shmem']}>>>"
    return gr.describe(x.type, p)
