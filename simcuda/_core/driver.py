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
import os
import struct
import threading
import weakref
from typing import Any, Callable

import attrs

from . import capture as cap
from . import graph as gr
from .errors import DriverError
from .memory import (DEVICE, HOST, KIND_DEVICE, KIND_GRAPH, KIND_MANAGED, CopyParams, MemorySpace,
                     MemsetParams, check_copy, check_memset, do_copy, do_memset)
from .module import parse_image, struct_format
from .objects import (CAPTURED, EMPTY, LEGACY, PER_THREAD, RECORDED, USER, CigRecord, Context, Device,
                      Event, Function, Module, Stream, ThreadState)

CU_STREAM_LEGACY = 1
CU_STREAM_PER_THREAD = 2
HANDLE_BASE = 0x5A5A_0000_1000
HANDLE_STEP = 0x40
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
            ``"child-node"`` (the opt-in: the launch adds a GRAPH node holding the exec's graph).
        cig_end_any_thread: allow ``cuStreamEndCaptureToCig`` from another thread (spec 8.4, off).
        per_thread_default_stream: ``None`` reads ``CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM``
            when the face first needs the driver (spec 6.1); ``True``/``False`` force the mode.
    """

    graph_launch_in_capture: str = "reject"
    cig_end_any_thread: bool = False
    per_thread_default_stream: Any = None


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


#: kernels registered with ``simcuda.kernel``: name -> Python function(launch)
KERNELS: dict[str, Callable[[KernelLaunch], Any]] = {}

_NO_INIT_NEEDED = frozenset({"init", "driver_get_version"})


def entry(fn: Callable) -> Callable:
    """Wrap a core entry point: lock, init check, host-function rule, error bookkeeping."""
    name = fn.__name__
    needs_init = name not in _NO_INIT_NEEDED

    @functools.wraps(fn)
    def wrapper(self: "Driver", *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            t = self._thread()
            try:
                if t.in_host_fn:
                    raise DriverError(800, f"{name} was called from inside a host function or callback; the "
                                           "simulator refuses every CUDA call made there (spec 3.9) [inferred]")
                if needs_init:
                    if self._closed:
                        raise DriverError(4, "the simulated driver was closed (Driver.close), as during shutdown")
                    if not self._initialized:
                        raise DriverError(3, f"{name}: cuInit has not been called" + (
                            "" if self.available else " (the simulated machine has no usable driver)"))
                return fn(self, *args, **kwargs)
            except DriverError as e:
                t.last_error = e
                if len(self.error_log) < 100_000:
                    self.error_log.append(ErrorRecord(name, int(e.code), e.why, t.name))
                raise
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
    current default driver (``simcuda.use``, ``simcuda.reset``).
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
        self.memory = MemorySpace()
        self.launch_log: list[LaunchRecord] = []
        self.error_log: list[ErrorRecord] = []
        self.kernels: dict[str, Callable[[KernelLaunch], Any]] = {}
        self.stats = {"captures_begun": 0, "captures_ended": 0, "graph_launches": 0, "kernel_launches": 0}
        self._captured_graphs: list[gr.Graph] = []
        self._initialized = False
        self._closed = False
        self._objs: dict[int, Any] = {}
        self._next_h = HANDLE_BASE
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
        self.per_thread_mode: bool | None = self.options.per_thread_default_stream
        self._all_graphs: list[gr.Graph] = []

    # ------------------------------------------------------------------ internals
    def _handle(self, obj: Any) -> int:
        h = self._next_h
        self._next_h += HANDLE_STEP
        self._objs[h] = obj
        return h

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
        graph.nodes.append(n)
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
                                   "[inferred: NVIDIA documents this as undefined behaviour]")
        if s.destroyed:
            raise DriverError(709, f"stream 0x{h:x} was destroyed (spec 3 preamble; observed on NVIDIA)")
        if s.ctx.destroyed:
            raise DriverError(709, f"the context of stream 0x{h:x} was destroyed")
        return s

    def _event(self, h: int) -> Event:
        e = self._objs.get(h) if h else None
        if not isinstance(e, Event):
            raise DriverError(400, f"0x{h:x} is not an event handle" if h else "the event handle is NULL")
        if e.destroyed:
            raise DriverError(400, f"event 0x{h:x} was destroyed")
        return e

    def _graph(self, h: int) -> gr.Graph:
        g = self._objs.get(h) if h else None
        if not isinstance(g, gr.Graph) or g.destroyed:
            raise DriverError(1, "the graph handle is NULL" if not h else
                              f"0x{h:x} is not a live graph (never created, or destroyed)")
        return g

    def _node(self, h: int, what: str = "node") -> gr.Node:
        n = self._objs.get(h) if h else None
        if not isinstance(n, gr.Node) or n.destroyed:
            raise DriverError(1, f"the {what} handle is NULL" if not h else
                              f"0x{h:x} is not a live graph node (never created, or destroyed)")
        return n

    def _exec(self, h: int) -> gr.GraphExec:
        x = self._objs.get(h) if h else None
        if not isinstance(x, gr.GraphExec) or x.destroyed:
            raise DriverError(1 if not h else 400, "the graph exec handle is NULL" if not h else
                              f"0x{h:x} is not a live graph exec (never created, or destroyed)")
        return x

    def _context(self, h: int) -> Context:
        c = self._objs.get(h) if h else None
        if not isinstance(c, Context):
            raise DriverError(201, "the context handle is NULL" if not h else f"0x{h:x} is not a context handle")
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
            raise DriverError(400, "the function handle is NULL" if not h else f"0x{h:x} is not a function handle")
        if f.module.unloaded:
            raise DriverError(400, f"function {f.name} belongs to an unloaded module")
        return f

    # -- work progression ---------------------------------------------------------------------
    def _log(self, rec: dict) -> None:
        self.launch_log.append(LaunchRecord(seq=len(self.launch_log), **rec))

    def _submit(self, stream: Stream, op: cap.Op) -> None:
        """Run ``op`` on an uncaptured stream (now, or when the stream progresses)."""
        runner = op.run
        if self.progression == "immediate":
            self._execute(stream, op, runner)
        else:
            self._ticket += 1
            stream.pending.append(self._ticket)
            self._queue.append((self._ticket, stream, (op, runner)))

    def _execute(self, stream: Stream, op: cap.Op, runner: Callable | None) -> None:
        self._clock_ms += 0.001
        note = runner() if runner is not None else ""
        if op.kind not in ("event_record", "graph_launch", "wait"):
            self._log({"source": "stream", "kind": op.kind.upper(), "detail": cap._op_label(op),
                       "stream": stream.handle, "note": note or ""})

    def _drain(self, upto: int | None = None) -> None:
        while self._queue and (upto is None or self._queue[0][0] <= upto):
            ticket, stream, (op, runner) = self._queue.pop(0)
            stream.pending.remove(ticket)
            self._execute(stream, op, runner)

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
        event.state = RECORDED
        event.capture = None
        if self.progression == "immediate" or not stream.pending and not (stream.is_legacy and self._queue):
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
        fn(launch)
        return "ran Python kernel"

    def _call_host_fn(self, fn: Any, user_data: Any, callback_args: tuple | None = None) -> None:
        t = self._thread()
        t.in_host_fn += 1
        try:
            if isinstance(fn, int) and callback_args is not None:
                gr.STREAM_CALLBACK_TYPE(fn)(callback_args[0], callback_args[1], user_data if user_data else None)
            elif isinstance(fn, int):
                gr.HOST_FN_TYPE(fn)(user_data if user_data else None)
            else:
                fn(user_data)
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
        """Build (and record, like any failed call) the error a face returns without a core rule.

        For calls a face cannot hand to a rule: entry points that are not simulated (801), and
        argument checks the real driver makes on structs the face unpacks. The error is stored as
        the thread's :meth:`last_error` and in :attr:`error_log`; the caller returns or raises it.
        """
        e = DriverError(code, why)
        with self._lock:
            t = self._thread()
            t.last_error = e
            if len(self.error_log) < 100_000:
                self.error_log.append(ErrorRecord(call, int(e.code), why, t.name))
        return e

    def close(self) -> None:
        """Simulate driver shutdown: every later call returns CUDA_ERROR_DEINITIALIZED (4)."""
        with self._lock:
            self._closed = True

    @entry
    def device_get_count(self) -> int:
        """cuDeviceGetCount."""
        return len(self.devices)

    @entry
    def device_get(self, ordinal: int) -> int:
        """cuDeviceGet. Errors: 101 for an ordinal out of range."""
        return self._device(ordinal).ordinal

    @entry
    def device_get_name(self, dev: int) -> str:
        """cuDeviceGetName."""
        return self._device(dev).spec.name

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
            if flags & (0x10 | 0x20):
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

        During a capture (spec 2.1, C-153/C-154) [I]: destroying the origin terminates the capture and
        discards its graph; destroying a member invalidates the capture.
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
            self._drain()
        else:
            self._stream_drain(s)

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

        def run() -> str:
            if isinstance(callback, int):  # CUstreamCallback: void (*)(CUstream, CUresult, void *userData)
                self._call_host_fn(callback, user_data, (s.handle, 0))
            return ""
        cap.enqueue(self, s, cap.Op("callback", "cuStreamAddCallback", {"fn": callback}, run))

    @entry
    def stream_attach_mem_async(self, h: int, dptr: int, length: int, flags: int) -> None:
        """cuStreamAttachMemAsync. Errors: 801 on a capturing stream (invalidates, spec 3.8) [I]."""
        s = self._stream(h)
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
            self._drain(e.pending_ticket)

    @entry
    def event_elapsed_time(self, h0: int, h1: int) -> float:
        """cuEventElapsedTime: milliseconds of simulated time between two completed events.

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
    def mem_alloc(self, size: int, call: str = "cuMemAlloc", managed: bool = False) -> int:
        """cuMemAlloc / cuMemAllocManaged. Errors: 201 no context; 1 size 0; 2 out of memory; 900 (spec 5.2)."""
        t = self._thread()
        ctx = self._ctx_current(t)
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
            raise DriverError(1, f"0x{int(dptr):x} is not the start of a live device allocation")
        if a.kind == KIND_GRAPH:
            raise DriverError(1, f"0x{int(dptr):x} is owned by a graph (MEM_ALLOC node); free it with a MEM_FREE "
                                 "node or cuMemFreeAsync in stream order (field case C31)")
        self.memory.free(a)

    @entry
    def mem_alloc_host(self, size: int, call: str = "cuMemAllocHost") -> int:
        """cuMemAllocHost / cuMemHostAlloc: real, page-locked-in-name host memory; returns its address."""
        t = self._thread()
        self._ctx_current(t)
        if size <= 0:
            raise DriverError(1, f"host allocation size {size} must be positive")
        cap.check_unsafe(self, t, call)
        return self.memory.alloc_host(int(size))

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
            raise DriverError(1, f"0x{int(dptr):x} is not inside a live device allocation")
        return a.start, a.size

    def is_device_pointer(self, ptr: Any) -> bool:
        """True when ``ptr`` is an int inside a live simulated device allocation."""
        return isinstance(ptr, int) and self.memory.find(ptr) is not None

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
            s = self._sync_stream(t, call)
            check_copy(self.memory, p)
            self._drain()
            do_copy(self.memory, p)
            self._clock_ms += 0.001
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
            s = self._sync_stream(t, call)
            check_memset(self.memory, p)
            self._drain()
            do_memset(self.memory, p)
            self._clock_ms += 0.001
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
        if s.capture is not None and s.capture.status == cap.ACTIVE and s.cig is None and not s.is_legacy:
            a = self.memory.reserve(int(size), KIND_GRAPH, ctx)
            node = cap.enqueue(self, s, cap.Op("mem_alloc", "cuMemAllocAsync", {"alloc": a, "size": int(size)}, None))
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
            raise DriverError(1, f"0x{int(dptr):x} is not the start of a live allocation")
        seq = s.capture
        if seq is not None and seq.status == cap.ACTIVE and s.cig is None:
            cap.check_free_async_in_capture(seq, int(dptr), a.kind == KIND_GRAPH)
            cap.enqueue(self, s, cap.Op("mem_free", "cuMemFreeAsync", {"dptr": int(dptr)}, None))
            return
        if a.kind == KIND_GRAPH and s.cig is None and seq is None:
            def run_free() -> str:
                a.buf = None
                return ""
            cap.enqueue(self, s, cap.Op("mem_free", "cuMemFreeAsync", {"dptr": int(dptr)}, run_free))
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
        entries, source = parse_image(image)
        cap.check_unsafe(self, t, call)
        m = Module(0, ctx, entries, source)
        m.handle = self._handle(m)
        return m.handle

    @entry
    def module_unload(self, h: int) -> None:
        """cuModuleUnload. Errors: 400 bad handle; 900 (spec 5.2: unloads during capture break it)."""
        m = self._objs.get(h) if h else None
        if not isinstance(m, Module) or m.unloaded:
            raise DriverError(400, "not a loaded module handle")
        cap.check_unsafe(self, self._thread(), "cuModuleUnload")
        m.unloaded = True

    @entry
    def module_get_function(self, h: int, name: str) -> int:
        """cuModuleGetFunction. Errors: 400 bad module; 500 NOT_FOUND unknown entry name."""
        m = self._objs.get(h) if h else None
        if not isinstance(m, Module) or m.unloaded:
            raise DriverError(400, "not a loaded module handle")
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
        return self.module_load_data(image, call)

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
        behave as when those streams are destroyed (origin: terminated; member: invalidated).
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

    def decode_kernel_args(self, f: Function | int, kernel_params: Any) -> list:
        """Decode an ``int`` address of a ``void**`` array using the kernel's parameter types.

        ``f`` is a :class:`Function` or a function handle; an unknown handle decodes to ``[]``
        (the launch itself then fails with INVALID_HANDLE).
        """
        if not kernel_params:
            return []
        if not isinstance(f, Function):
            f = self._objs.get(f)
            if not isinstance(f, Function):
                return []
        out = []
        ptrs = (ctypes.c_void_p * len(f.param_types)).from_address(int(kernel_params))
        for ptype, addr in zip(f.param_types, ptrs):
            fmt = struct_format(ptype)
            size = struct.calcsize(fmt)
            out.append(struct.unpack(fmt, ctypes.string_at(addr, size))[0] if addr else 0)
        return out

    @entry
    def launch_kernel(self, hfunc: int, grid: tuple, block: tuple, shmem: int, h: int, args: list,
                      call: str = "cuLaunchKernel") -> None:
        """cuLaunchKernel (and Ex/Cooperative): a KERNEL node during capture, else runs/records now.

        Errors: 400 bad function; 1 zero or oversized dimensions; capture rules via spec 3.8.
        """
        f = self._function(hfunc)
        s = self._stream(h)
        if 0 in grid or 0 in block:
            raise DriverError(1, f"launch dimensions grid={grid} block={block} contain a zero")
        if block[0] * block[1] * block[2] > 1024 or block[2] > 64:
            raise DriverError(1, f"block {block} exceeds 1024 threads (or z > 64)")
        params = {"name": f.name, "func": f, "grid": grid, "block": block, "shmem": int(shmem), "args": args,
                  "priority": s.priority}
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
        params = {"fn": fn, "user_data": user_data, "sync_mode": sync_mode or 0}
        cap.enqueue(self, s, cap.Op("host", "cuLaunchHostFunc", params,
                                    lambda: self._call_host_fn(fn, user_data) or ""))

    # ------------------------------------------------------------------ graphs
    @entry
    def graph_create(self, flags: int) -> int:
        """cuGraphCreate. Errors: 1 flags != 0."""
        if flags != 0:
            raise DriverError(1, f"cuGraphCreate flags must be 0, got {flags}")
        return self._new_graph(self._thread().current).handle

    @entry
    def graph_destroy(self, h: int) -> None:
        """cuGraphDestroy. Errors: 1 NULL/destroyed, or while the graph is a capture target (spec 9) [I]."""
        g = self._graph(h)
        if g.capture_target_of is not None:
            raise DriverError(1, f"graph {g.gid} is the target of {g.capture_target_of.label()}; it cannot be "
                                 "destroyed before the capture ends (spec 3.5, 9)")
        if g.owner_node is not None:
            raise DriverError(1, f"graph {g.gid} is owned by a child-graph node and cannot be destroyed directly")
        self._discard_graph(g)

    def _add_node(self, hgraph: int, deps: list[int], ntype: int, params: Any,
                  eds: list[tuple] | None = None) -> int:
        g = self._graph(hgraph)
        nodes = []
        for i, d in enumerate(deps):
            n = self._objs.get(d) if d else None
            if not isinstance(n, gr.Node) or n.destroyed or n.graph is not g:
                raise DriverError(1, f"dependency {i} is not a live node of graph {g.gid}")
            if any(n is m for m in nodes):
                raise DriverError(1, f"dependency {i} is listed twice")
            nodes.append(n)
        eds = eds or [gr.ZERO_ED] * len(nodes)
        cap.check_edge_data(eds, "dependencyData") if eds else None
        node = self._new_node(g, ntype, params)
        for d, ed in zip(nodes, eds):
            gr.add_edge(g, d, node, ed)
        return node.handle

    @entry
    def graph_add_kernel_node(self, hgraph: int, deps: list[int], hfunc: int, grid: tuple, block: tuple,
                              shmem: int, args: list) -> int:
        """cuGraphAddKernelNode. Errors: 1 bad graph/deps/dimensions; 400 bad function."""
        f = self._function(hfunc)
        if 0 in grid or 0 in block:
            raise DriverError(1, f"kernel node dimensions grid={grid} block={block} contain a zero")
        params = {"name": f.name, "func": f, "grid": grid, "block": block, "shmem": int(shmem), "args": args,
                  "priority": 0}
        return self._add_node(hgraph, deps, gr.KERNEL, params)

    @entry
    def graph_add_memcpy_node(self, hgraph: int, deps: list[int], p: CopyParams) -> int:
        """cuGraphAddMemcpyNode. Errors: 1 bad graph/deps/ranges."""
        self._graph(hgraph)
        check_copy(self.memory, p)
        return self._add_node(hgraph, deps, gr.MEMCPY, p)

    @entry
    def graph_add_memset_node(self, hgraph: int, deps: list[int], p: MemsetParams) -> int:
        """cuGraphAddMemsetNode. Errors: 1 bad graph/deps/range/element size."""
        self._graph(hgraph)
        check_memset(self.memory, p)
        return self._add_node(hgraph, deps, gr.MEMSET, p)

    @entry
    def graph_add_host_node(self, hgraph: int, deps: list[int], fn: Any, user_data: Any) -> int:
        """cuGraphAddHostNode. Errors: 1 NULL function."""
        if not fn:
            raise DriverError(1, "the host node's function is NULL")
        return self._add_node(hgraph, deps, gr.HOST, {"fn": fn, "user_data": user_data, "sync_mode": 0})

    @entry
    def graph_add_empty_node(self, hgraph: int, deps: list[int]) -> int:
        """cuGraphAddEmptyNode."""
        return self._add_node(hgraph, deps, gr.EMPTY, {})

    @entry
    def graph_add_event_node(self, hgraph: int, deps: list[int], hevent: int, wait: bool) -> int:
        """cuGraphAddEventRecordNode / cuGraphAddEventWaitNode. Errors: 1 graph/deps; 400 event."""
        ev = self._event(hevent)
        return self._add_node(hgraph, deps, gr.WAIT_EVENT if wait else gr.EVENT_RECORD, {"event": ev})

    @entry
    def graph_add_child_graph_node(self, hgraph: int, deps: list[int], hchild: int,
                                   eds: list[tuple] | None = None) -> int:
        """cuGraphAddChildGraphNode: a GRAPH node holding a clone of ``child`` (spec 4.6, 9).

        Errors: 1 bad graphs/deps, or ``child`` holds MEM_ALLOC, MEM_FREE or CONDITIONAL nodes.
        """
        self._graph(hgraph)
        child = self._graph(hchild)
        if child.has_type(gr.MEM_ALLOC, gr.MEM_FREE, gr.CONDITIONAL):
            raise DriverError(1, f"graph {child.gid} holds memory or conditional nodes and cannot be a child graph")
        clone = gr.clone_graph(self, child)
        h = self._add_node(hgraph, deps, gr.GRAPH, {"graph": clone}, eds)
        clone.owner_node = self._objs[h]
        return h

    @entry
    def graph_child_graph_node_get_graph(self, hnode: int) -> int:
        """cuGraphChildGraphNodeGetGraph: the embedded graph (owned by the node). Errors: 1."""
        n = self._node(hnode)
        if n.type != gr.GRAPH:
            raise DriverError(1, f"node {n.local_id} of graph {n.graph.gid} is not a child-graph node")
        return n.params["graph"].handle

    @entry
    def graph_get_nodes(self, hgraph: int) -> list[int]:
        """cuGraphGetNodes: live node handles in creation order (spec 4.5) [I]."""
        return [n.handle for n in self._graph(hgraph).nodes if not n.destroyed]

    @entry
    def graph_get_root_nodes(self, hgraph: int) -> list[int]:
        """cuGraphGetRootNodes: nodes with no incoming edge, creation order."""
        return [n.handle for n in self._graph(hgraph).nodes if not n.destroyed and not n.ins]

    @entry
    def graph_get_edges(self, hgraph: int) -> list[tuple[int, int, tuple]]:
        """cuGraphGetEdges: ``(from, to, edge_data)`` in creation order (spec 4.5)."""
        return [(e.src.handle, e.dst.handle, e.ed) for e in self._graph(hgraph).edges]

    @entry
    def graph_node_get_type(self, hnode: int) -> int:
        """cuGraphNodeGetType."""
        return self._node(hnode).type

    @entry
    def graph_node_get_dependencies(self, hnode: int, dependents: bool = False) -> list[tuple[int, tuple]]:
        """cuGraphNodeGetDependencies / DependentNodes: ``[(node, edge_data)]``."""
        n = self._node(hnode)
        if dependents:
            return [(e.dst.handle, e.ed) for e in n.outs]
        return [(e.src.handle, e.ed) for e in n.ins]

    @entry
    def graph_node_get_containing_graph(self, hnode: int) -> int:
        """cuGraphNodeGetContainingGraph."""
        return self._node(hnode).graph.handle

    @entry
    def graph_get_id(self, hgraph: int) -> int:
        """cuGraphGetId: matches ``graph_<id>`` in DOT output."""
        return self._graph(hgraph).gid

    @entry
    def graph_node_get_local_id(self, hnode: int) -> int:
        """cuGraphNodeGetLocalId: 0-based creation index, matches ``node_<id>`` in DOT output."""
        return self._node(hnode).local_id

    @entry
    def graph_add_dependencies(self, hgraph: int, froms: list[int], tos: list[int], eds: list[tuple]) -> None:
        """cuGraphAddDependencies. Errors: 1 nodes not in the graph, or an edge that already exists (spec 9)."""
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
            gr.add_edge(g, na, nb, ed)

    @entry
    def graph_remove_dependencies(self, hgraph: int, froms: list[int], tos: list[int], eds: list[tuple]) -> None:
        """cuGraphRemoveDependencies. Errors: 1 missing edge, or a graph with memory nodes (spec 9)."""
        g = self._graph(hgraph)
        if g.has_type(gr.MEM_ALLOC, gr.MEM_FREE):
            raise DriverError(1, f"graph {g.gid} has memory nodes; its edges cannot be removed")
        found = []
        for i, (a, b) in enumerate(zip(froms, tos)):
            na, nb = self._node(a, "from"), self._node(b, "to")
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
        """cuGraphDestroyNode. Errors: 1 during capture of its graph (spec 3.5, C-109) or with memory nodes."""
        n = self._node(hnode)
        g = n.graph
        if g.capture_target_of is not None:
            raise DriverError(1, f"node {n.local_id} belongs to graph {g.gid}, the target of "
                                 f"{g.capture_target_of.label()}; nodes cannot be removed during capture (spec 3.5)")
        if g.has_type(gr.MEM_ALLOC, gr.MEM_FREE):
            raise DriverError(1, f"graph {g.gid} has memory nodes; its nodes cannot be destroyed")
        for e in list(n.ins) + list(n.outs):
            gr.remove_edge(g, e)
        g.removed_edges = [e for e in g.removed_edges if e.src is not n and e.dst is not n]
        n.destroyed = True

    @entry
    def graph_clone(self, hgraph: int) -> int:
        """cuGraphClone. Errors: 1 bad graph, or MEM_ALLOC/MEM_FREE/CONDITIONAL nodes (spec 9)."""
        g = self._graph(hgraph)
        if g.has_type(gr.MEM_ALLOC, gr.MEM_FREE, gr.CONDITIONAL):
            raise DriverError(1, f"graph {g.gid} holds memory or conditional nodes and cannot be cloned (spec 9)")
        return gr.clone_graph(self, g).handle

    @entry
    def graph_instantiate(self, hgraph: int, flags: int) -> int:
        """cuGraphInstantiate / WithFlags: freeze the graph into an exec (spec 9 rules).

        Errors: 1 capture target [I]; memory nodes with a live exec; DEVICE_LAUNCH with
        AUTO_FREE_ON_LAUNCH, an empty graph, or unsupported node types; unknown flag bits; a cycle.
        """
        g = self._graph(hgraph)
        return self._instantiate(g, int(flags))[0].handle

    def _instantiate(self, g: gr.Graph, flags: int) -> tuple[gr.GraphExec, int]:
        if flags & ~0xF:
            raise DriverError(1, f"instantiate flags 0x{flags:x} have bits outside CUgraphInstantiate_flags")
        if g.capture_target_of is not None:
            raise DriverError(1, f"graph {g.gid} is the target of {g.capture_target_of.label()}; it cannot be "
                                 "instantiated before the capture ends (spec 3.2) [inferred code]")
        has_mem = g.has_type(gr.MEM_ALLOC, gr.MEM_FREE)
        if has_mem and g.live_execs > 0:
            raise DriverError(1, f"graph {g.gid} has memory nodes and an exec of it still exists (spec 9)")
        if flags & 4:
            if flags & 1:
                raise DriverError(1, "DEVICE_LAUNCH cannot be combined with AUTO_FREE_ON_LAUNCH (spec 9)")
            live = g.live_nodes()
            if not live:
                raise DriverError(1, "a DEVICE_LAUNCH graph cannot be empty (spec 9)")
            bad = [n for n in live if n.type not in (gr.KERNEL, gr.MEMCPY, gr.MEMSET, gr.GRAPH)]
            if bad:
                raise DriverError(1, f"node {bad[0].local_id} ({gr.TYPE_KEYWORDS[bad[0].type]}) is not allowed in a "
                                     "DEVICE_LAUNCH graph (spec 9)")
        order = gr.freeze(g)
        if order is None:
            raise DriverError(1, f"graph {g.gid} has a cycle")
        x = gr.GraphExec(0, g, flags, order, gr.topology_signature(g))
        x.handle = self._handle(x)
        g.live_execs += 1
        return x, 0

    @entry
    def graph_exec_destroy(self, hexec: int) -> None:
        """cuGraphExecDestroy. Errors: 1/400 bad exec; 900 by spec 5.2 during a restricting capture."""
        x = self._exec(hexec)
        cap.check_unsafe(self, self._thread(), "cuGraphExecDestroy")
        x.destroyed = True
        x.graph.live_execs -= 1

    @entry
    def graph_launch(self, hexec: int, h: int) -> None:
        """cuGraphLaunch: replay the exec on the stream (spec 9, 3.8).

        Errors: 1/400 bad exec; 1 unfreed graph allocations without AUTO_FREE_ON_LAUNCH; 900 into a
        capturing stream (invalidates) or a CIG stream with HOST/memory/batch nodes; 906/901 by stream rules.
        """
        x = self._exec(hexec)
        s = self._stream(h)
        if s.cig is not None:
            bad = [n for n in x.order if n.type in (gr.HOST, gr.MEM_ALLOC, gr.MEM_FREE, gr.BATCH_MEM_OP)]
            if bad:
                raise DriverError(900, f"cuGraphLaunch onto {s.label()} (CIG capture): the graph holds a "
                                       f"{gr.TYPE_KEYWORDS[bad[0].type]} node, which CIG streams forbid (spec 8.3) "
                                       "[inferred code]")
        if x.unfreed and not (x.flags & 1) and s.capture is None:
            raise DriverError(1, f"exec 0x{x.handle:x} still has {len(x.unfreed)} graph allocation(s) from an earlier "
                                 "launch that were never freed; free them or instantiate with "
                                 "CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH (spec 9)")

        def run() -> str:
            if x.flags & 1:
                for a in x.unfreed:
                    a.buf = None
                x.unfreed.clear()
            x.launches += 1
            n = x.launches
            self.stats["graph_launches"] += 1

            def log(node: gr.ExecNode, note: str) -> None:
                self._log({"source": "graph", "kind": gr.TYPE_KEYWORDS.get(node.type, str(node.type)),
                           "detail": _node_detail(node), "stream": s.handle, "exec_handle": x.handle,
                           "launch": n, "graph_id": node.origin.graph.gid, "node": node.local_id, "note": note})
            gr.run_nodes(self, x.order, log, x)
            return ""
        cap.enqueue(self, s, cap.Op("graph_launch", "cuGraphLaunch", x.graph, run))

    @entry
    def graph_upload(self, hexec: int, h: int) -> None:
        """cuGraphUpload: nothing to upload in a simulator; checks handles and stream rules."""
        self._exec(hexec)
        s = self._stream(h)
        cap.check_legacy_use(self, s, "cuGraphUpload")
        if s.capture is not None and s.capture.status == cap.INVALIDATED:
            raise DriverError(901, f"{s.label()} belongs to an invalidated capture")

    @entry
    def graph_exec_update(self, hexec: int, hgraph: int) -> tuple[int, int, int]:
        """cuGraphExecUpdate: ``(result, error_node, error_from_node)``; raises 910 on failure (spec 9).

        Pairs nodes by creation order (Programming Guide 4.2.3.1): TOPOLOGY_CHANGED (2) when counts or
        dependencies differ, NODE_TYPE_CHANGED (3), FUNCTION_CHANGED (4) for a kernel in another
        function's context... On success the exec takes the new parameters.
        """
        x = self._exec(hexec)
        g = self._graph(hgraph)
        new = g.live_nodes()
        res = self._update_check(x, g, new)
        if res is not None:
            code, enode, why = res
            raise DriverError(910, f"cuGraphExecUpdate: {why} (result {code} "
                                   f"{_UPDATE_NAMES[code]}); the exec is unchanged")
        x.order = gr.freeze(g) or x.order
        x.by_origin = {id(e.origin): e for e in x.order}
        return (0, 0, 0)

    def _update_check(self, x: gr.GraphExec, g: gr.Graph, new: list[gr.Node]) -> tuple[int, int, str] | None:
        sig = gr.topology_signature(g)
        old = x.topology
        if len(sig) != len(old):
            return 2, 0, f"the graph has {len(sig)} nodes but the exec was made from {len(old)} (TOPOLOGY_CHANGED)"
        for i, ((t_new, deps_new), (t_old, deps_old)) in enumerate(zip(sig, old)):
            if deps_new != deps_old:
                return 2, new[i].handle, f"node {i} has dependencies {list(deps_new)} instead of {list(deps_old)} " \
                                         "(TOPOLOGY_CHANGED)"
        for i, ((t_new, _), (t_old, _)) in enumerate(zip(sig, old)):
            if t_new != t_old:
                return 3, new[i].handle, (f"node {i} is {gr.TYPE_KEYWORDS.get(t_new)} in the new graph but "
                                          f"{gr.TYPE_KEYWORDS.get(t_old)} in the exec (NODE_TYPE_CHANGED, error node "
                                          f"0x{new[i].handle:x})")
        return None

    @entry
    def graph_debug_dot_print(self, hgraph: int, path: str, flags: int) -> None:
        """cuGraphDebugDotPrint: write the DOT text of spec 9.1. Errors: 1 bad graph/path; 304 write failure."""
        g = self._graph(hgraph)
        if not path:
            raise DriverError(1, "the DOT path is empty")
        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(gr.dot_text(g, int(flags)))
        except OSError as e:
            raise DriverError(304, f"could not write {path!r}: {e.strerror}") from None

    def dot(self, hgraph: int, flags: int = 0) -> str:
        """The DOT text of a graph (what cuGraphDebugDotPrint writes)."""
        with self._lock:
            return gr.dot_text(self._graph(int(hgraph)), flags)

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


_UPDATE_NAMES = {0: "SUCCESS", 1: "ERROR", 2: "TOPOLOGY_CHANGED", 3: "NODE_TYPE_CHANGED", 4: "FUNCTION_CHANGED",
                 5: "PARAMETERS_CHANGED", 6: "NOT_SUPPORTED", 7: "UNSUPPORTED_FUNCTION_CHANGE",
                 8: "ATTRIBUTES_CHANGED"}


def _node_detail(x: gr.ExecNode) -> str:
    p = x.params
    if x.type == gr.KERNEL:
        return f"{p['name']}<<<{p['grid']},{p['block']},{p['shmem']}>>>"
    if x.type in (gr.MEMCPY, gr.MEMSET):
        return p.describe()
    return x.origin.describe()
