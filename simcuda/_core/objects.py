"""Records of the simulated driver's objects (spec section 1).

These are mutable, slotted, plain classes: the driver changes them under its lock, and the
hot capture path must stay cheap. Read-only snapshots handed to users (``CaptureInfo``,
``LaunchRecord``) are frozen ``attrs`` classes defined next to the code that makes them.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .errors import CUresult, DriverError

if TYPE_CHECKING:
    from .capture.capture_enqueue import Op
    from .capture.capture_rules import CaptureSequence
    from .config import DeviceSpec
    from .graphs.graph_model import Node

#: edge data ``(from_port, to_port, type)`` (``CUgraphEdgeData``; ``(0, 0, 0)`` is a full dependency)
EdgeData = tuple[int, int, int]
#: edge data as a face hands it to the core, one entry per dependency; ``None`` marks an entry missing from a
#: list shorter than the count (the core refuses it in its own order, spec 3.6)
EdgeDataArg = list["EdgeData | None"]
#: a dependency of a capturing stream, or of a CAPTURED event: a node and its edge data (spec 3.8)
Dep = tuple["Node", EdgeData]
#: one batch memory operation ``(CUstreamBatchMemOpType, device address, value, flags)``
MemOp = tuple[int, int, int, int]
#: the parameters of one external semaphore of a signal or wait ``(fence value, keyed-mutex key, timeout ms, flags)``
SemValue = tuple[int, int, int, int]

# stream kinds
#: the handles of the NULL streams (spec 6): the legacy stream and the per-thread default stream
CU_STREAM_LEGACY, CU_STREAM_PER_THREAD = 1, 2
USER = "user"
LEGACY = "legacy"
PER_THREAD = "per-thread"

# event states (spec 2.4)
EMPTY = "EMPTY"
RECORDED = "RECORDED"
CAPTURED = "CAPTURED"
#: an event whose latest record was made in a capture that has ended (with a graph or invalidated): spec 17
CAPTURE_BOUND = "CAPTURE_BOUND"


class Device:
    """A simulated device: its ordinal, its :class:`DeviceSpec`, its primary context (refcounted) and memory pools."""

    __slots__ = ("ordinal", "spec", "primary", "primary_refs", "_limits", "default_pool", "current_pool",
                 "graph_mem")

    def __init__(self, ordinal: int, spec: DeviceSpec) -> None:
        self.ordinal = ordinal
        self.spec = spec
        self.primary: Context | None = None
        self.primary_refs = 0
        self._limits: tuple[int, ...] | None = None
        self.default_pool: MemPool | None = None  # made on first use (cuDeviceGetDefaultMemPool, cuMemAllocAsync)
        self.current_pool: MemPool | None = None  # cuDeviceSetMemPool; None: the default pool
        self.graph_mem = GraphMemory()  # cuDeviceGetGraphMemAttribute, cuDeviceGraphMemTrim

    def launch_limits(self) -> tuple[int, ...]:
        """``(block x, y, z, grid x, y, z, threads per block, shared per block, shared opt-in)`` from the
        device attributes (computed once: the spec is frozen)."""
        if self._limits is None:
            from .contexts.device_attrs import attribute_value
            self._limits = tuple(attribute_value(self.spec, a) for a in (2, 3, 4, 5, 6, 7, 1, 8, 97))
        return self._limits


class Context:
    """A context (spec 1): device, flags, CIG data, its legacy stream, per-thread streams and user streams."""

    __slots__ = ("handle", "device", "flags", "is_primary", "is_cig", "cig_data_type", "cig_data",
                 "destroyed", "legacy", "per_thread", "streams", "ctx_id", "fault", "limits", "heap",
                 "kernel_hooks")

    def __init__(self, handle: int, device: Device, flags: int, ctx_id: int, is_primary: bool = False) -> None:
        self.handle = handle
        self.device = device
        self.flags = flags
        self.ctx_id = ctx_id
        self.is_primary = is_primary
        self.is_cig = False
        self.cig_data_type = 0
        self.cig_data = 0
        self.destroyed = False
        self.legacy: Stream | None = None
        self.per_thread: dict[int, Stream] = {}
        self.streams: list[Stream] = []  # user streams, creation order
        # the sticky error of a Python kernel that faulted in this context (Scheduler.run_kernel): every later use of
        # the context answers it, as after a kernel fault on a GPU, until the context is destroyed or reset
        self.fault: DriverError | None = None
        self.limits: dict[int, int] = {}  # CUlimit value -> value set with cuCtxSetLimit (simcuda._core.modules.launch)
        self.heap: Any = None  # the device malloc heap (simcuda._core.modules.ptxrun.DeviceHeap), made at its first use
        self.kernel_hooks: Any = None  # the engine's hooks for its launches (modules.ptxrun.engine_hooks)

    def __repr__(self) -> str:
        return f"<context 0x{self.handle:x}{' (primary)' if self.is_primary else ''}{' (CIG)' if self.is_cig else ''}>"

    def legacy_stream(self) -> Stream:
        """The context's legacy NULL stream (``CU_STREAM_LEGACY``, spec 6), made on first use (stream id 0)."""
        s = self.legacy
        if s is None:
            s = self.legacy = Stream(CU_STREAM_LEGACY, self, 0, 0, LEGACY, 0)
        return s

    def per_thread_stream(self, t: ThreadState, new_id: Callable[[], int]) -> Stream:
        """Thread ``t``'s per-thread default stream in this context (``CU_STREAM_PER_THREAD``, spec 6.1), made on
        first use with the stream id ``new_id()`` hands out (:meth:`simcuda._core.handles.Handles.next_stream_id`)
        and named after the thread."""
        s = self.per_thread.get(t.tid)
        if s is None:
            s = self.per_thread[t.tid] = Stream(CU_STREAM_PER_THREAD, self, 0, 0, PER_THREAD, new_id(), owner=t.tid)
            s.owner = t.name
        return s


class Stream:
    """A stream (spec 1): context, flags, priority, kind (user, legacy, per-thread), capture membership and
    dependency set, CIG record, and pending work (manual progression)."""

    __slots__ = ("handle", "ctx", "flags", "priority", "kind", "owner", "destroyed", "capture", "deps",
                 "cig", "stream_id", "pending", "last_done", "busy", "busy_thread", "deferred", "inflight")

    def __init__(self, handle: int, ctx: Context, flags: int, priority: int, kind: str,
                 stream_id: int, owner: int | str | None = None) -> None:
        self.handle = handle
        self.ctx = ctx
        self.flags = flags
        self.priority = priority
        self.kind = kind
        self.owner = owner  # per-thread streams: the thread's name (its serial id until named)
        self.stream_id = stream_id
        self.destroyed = False
        self.capture: CaptureSequence | None = None
        self.deps: list[Dep] = []
        self.cig: CigRecord | None = None
        self.pending: list[int] = []  # tickets of work not yet run (manual progression)
        self.last_done = 0
        self.busy = 0  # > 0 while user code of this stream's work runs outside the driver lock
        self.busy_thread = 0  # the thread running it
        # (ticket, op) enqueued while the stream is held (immediate progression): run after it, in ticket order
        self.deferred: list[tuple[int, Op]] = []
        self.inflight: Any = None  # a PTX launch that has not ended (simcuda._core.modules.ptxrun.InFlight, P-74)

    @property
    def blocking(self) -> bool:
        """Blocking toward the legacy stream (spec section 1: the per-thread stream is blocking)."""
        return self.kind != LEGACY and not (self.flags & 1)

    @property
    def is_legacy(self) -> bool:
        """True for a context's legacy (NULL) stream."""
        return self.kind == LEGACY

    def label(self) -> str:
        """How ``why`` texts name this stream."""
        if self.kind == LEGACY:
            return f"the legacy stream of context 0x{self.ctx.handle:x}"
        if self.kind == PER_THREAD:
            return f"the per-thread stream of thread {self.owner} in context 0x{self.ctx.handle:x}"
        return f"stream 0x{self.handle:x}"


class Event:
    """An event (spec 1, 2.4, 17): EMPTY, RECORDED (real work), CAPTURED (a capture's snapshot of a stream's
    deps) or CAPTURE_BOUND (its latest record was made in a capture that has since ended; ``capture`` names it)."""

    __slots__ = ("handle", "ctx", "flags", "destroyed", "state", "capture", "nodes", "time_ms",
                 "pending_on", "pending_ticket")

    def __init__(self, handle: int, ctx: Context, flags: int) -> None:
        self.handle = handle
        self.ctx = ctx
        self.flags = flags
        self.destroyed = False
        self.state = EMPTY
        self.capture: CaptureSequence | None = None
        self.nodes: list[Dep] = []  # CAPTURED: copy of the recording stream's deps
        self.time_ms: float | None = None
        self.pending_on: Stream | None = None
        self.pending_ticket = 0

    def label(self) -> str:
        """How ``why`` texts name this event."""
        return f"event 0x{self.handle:x}"


class Module:
    """A loaded module or library: entry names with parameter C types, and the functions handed out."""

    __slots__ = ("handle", "ctx", "entries", "functions", "unloaded", "source", "is_library", "ptx", "engine")

    def __init__(self, handle: int, ctx: Context, entries: dict[str, list[str]], source: str | None) -> None:
        self.handle = handle
        self.ctx = ctx
        self.entries = entries  # entry name -> list of parameter C types ([] when unknown)
        self.functions: dict[str, Function] = {}
        self.unloaded = False
        self.source = source
        self.is_library = False  # cuLibraryLoad*: context-independent, unlike a module
        self.ptx: str | None = None  # the PTX its launches run (module_model.ptx_of_image), or None
        self.engine: Any = None  # the engine's parsed module (simcuda.ptx.load), made on the first launch


class Function:
    """A kernel function of a module: its entry name and parameter C types (``[]`` when unknown).

    ``last_params`` is the :class:`~simcuda._core.graphs.graph_model.KernelParams` of its last launch, which the next
    launch with the same parameters shares (launch limits already checked); ``cuFuncSetAttribute``
    drops it, as the limits may change.
    """

    __slots__ = ("handle", "module", "name", "param_types", "max_dynamic_shared", "carveout", "last_params",
                 "readers", "settings")

    def __init__(self, handle: int, module: Module, name: str, param_types: list[str]) -> None:
        self.handle = handle
        self.module = module
        self.name = name
        self.param_types = param_types
        self.readers: tuple[Any, ...] | None = None  # ctypes readers of its arguments (decode_kernel_args)
        self.max_dynamic_shared: int | None = None  # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES once set
        self.carveout = -1  # CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT (-1: no preference)
        self.last_params: Any = None
        #: other settings kept as set: CUfunction_attribute value -> value (simcuda._core.modules.launch), and the cache
        #: and shared memory configurations under -1 and -2
        self.settings: dict[int, int] = {}


class ThreadState:
    """Per-thread facts the rules read (spec section 1, Thread)."""

    __slots__ = ("tid", "name", "ctx_stack", "mode", "in_host_fn", "last_error", "runtime_device", "thread_ref")

    def __init__(self, tid: int, name: str) -> None:
        self.tid = tid
        self.name = name
        self.ctx_stack: list[Context] = []
        self.mode = 0  # CU_STREAM_CAPTURE_MODE_GLOBAL: every thread starts GLOBAL [D]
        self.in_host_fn = 0
        self.last_error: DriverError | None = None
        self.runtime_device = 0
        self.thread_ref: Callable[[], threading.Thread | None] = _no_thread  # a weakref once the driver sets it

    @property
    def current(self) -> Context | None:
        """The thread's current context (top of its stack), or None."""
        return self.ctx_stack[-1] if self.ctx_stack else None


def _no_thread() -> None:
    """The thread of a :class:`ThreadState` whose thread is not known yet: none."""
    return None


class CigRecord:
    """A stream's CIG capture (spec 8.2-8.4): the ordered op list of the command list."""

    __slots__ = ("begin_thread", "data_type", "data", "ops")

    def __init__(self, begin_thread: int, data_type: int, data: int) -> None:
        self.begin_thread = begin_thread
        self.data_type = data_type
        self.data = data
        self.ops: list[tuple[str, str]] = []


class UserObject:
    """A user object (``CUuserObject``): a destructor ``fn(ptr)`` run once its last reference goes.

    ``refs`` counts every reference (the caller's, graphs', execs' and running launches'); ``caller``
    the ones the caller owns (``cuUserObjectCreate``/``Retain`` give them, ``Release`` and a MOVE to a graph
    take them). ``gone`` is set when ``refs`` reached 0: the handle is dead from then on.
    """

    __slots__ = ("handle", "ptr", "fn", "refs", "caller", "gone")

    def __init__(self, handle: int, ptr: Any, fn: Any, refs: int) -> None:
        self.handle = handle
        self.ptr = ptr
        self.fn = fn
        self.refs = refs
        self.caller = refs
        self.gone = False

    def label(self) -> str:
        """How ``why`` texts name this user object."""
        return f"user object 0x{self.handle:x}"


#: user-object references a holder owns (a graph, an exec, a launch): object -> count
UserRefs = dict[UserObject, int]


def retain_refs(refs: UserRefs | None, into: UserRefs | None = None) -> UserRefs:
    """New references for a copy of ``refs`` (a clone, an instantiate, a launch), added to ``into``."""
    out: UserRefs = {} if into is None else into
    if refs:
        for obj, k in refs.items():
            obj.refs += k
            out[obj] = out.get(obj, 0) + k
    return out


def release_refs(refs: UserRefs | None, due: list[UserObject]) -> None:
    """Drop every reference of ``refs``; an object whose last reference went is added to ``due`` (its destructor
    runs when the entry that dropped it ends, outside the lock:
    :meth:`~simcuda._core.work.Scheduler.run_destructors`)."""
    if refs:
        for obj, k in refs.items():
            obj.refs -= k
            if obj.refs <= 0 and not obj.gone:
                obj.gone = True
                due.append(obj)
        refs.clear()


#: the ``CUmemPool_attribute`` values whose value is a ``cuuint64_t`` (the others are ``int`` or an enum)
POOL_ATTR_U64 = frozenset({4, 5, 6, 7, 8, 13})


class MemPool:
    """A memory pool (``CUmemoryPool``) of a device: its default pool, or one made by ``cuMemPoolCreate``.

    ``used``/``used_high``: bytes of live stream-ordered allocations made from the pool and their high
    watermark; ``reserved``/``reserved_high``: the backing memory the pool holds, those allocations and the
    freed memory it keeps (up to ``release_threshold`` after a free, ``cuMemPoolTrimTo`` releases more) [I];
    ``release_threshold``, ``reuse`` (the three reuse flags, attribute -> 0/1): the settable attributes;
    ``alloc_type``, ``handle_types``, ``location`` ``(CUmemLocationType, id)``, ``max_size``, ``usage``: the
    ``CUmemPoolProps`` it was made with (a default pool: pinned, no handle types, its device, 0, 0);
    ``access``: ``cuMemPoolSetAccess`` flags of other devices (ordinal -> ``CUmemAccess_flags``);
    ``destroyed``: ``cuMemPoolDestroy`` ran (its live allocations stay usable until freed).
    """

    __slots__ = ("handle", "device", "is_default", "release_threshold", "reuse", "used", "used_high", "reserved",
                 "reserved_high", "alloc_type", "handle_types", "location", "max_size", "usage", "access",
                 "destroyed")

    def __init__(self, handle: int, device: Device, is_default: bool = True, handle_types: int = 0,
                 max_size: int = 0, usage: int = 0) -> None:
        self.handle = handle
        self.device = device
        self.is_default = is_default
        self.release_threshold = 0
        self.reuse = {1: 1, 2: 1, 3: 1}  # REUSE_FOLLOW_EVENT_DEPENDENCIES, ALLOW_OPPORTUNISTIC, ALLOW_INTERNAL_...
        self.used = self.used_high = self.reserved = self.reserved_high = 0
        self.alloc_type = 1  # CU_MEM_ALLOCATION_TYPE_PINNED
        self.handle_types = handle_types
        self.location = (1, device.ordinal)  # CU_MEM_LOCATION_TYPE_DEVICE
        self.max_size = max_size
        self.usage = usage
        self.access: dict[int, int] = {}
        self.destroyed = False

    def take(self, size: int) -> None:
        """An allocation of ``size`` bytes was made from the pool (from its kept memory first)."""
        self.used += size
        self.reserved = max(self.reserved, self.used)
        self.used_high = max(self.used_high, self.used)
        self.reserved_high = max(self.reserved_high, self.reserved)

    def give_back(self, size: int) -> None:
        """An allocation of ``size`` bytes made from the pool was freed: the pool keeps freed memory up to its
        release threshold and releases the rest (at once: the simulator's frees complete when they run) [I]."""
        self.used -= size
        self.trim_to(self.release_threshold)

    def trim_to(self, keep: int) -> None:
        """Release kept memory until at most ``keep`` bytes are reserved (never below the bytes in use)."""
        self.reserved = max(self.used, min(self.reserved, keep))

    def label(self) -> str:
        """How ``why`` texts name this pool."""
        kind = "the default memory pool" if self.is_default else "memory pool"
        return f"{kind} 0x{self.handle:x} of device {self.device.ordinal}"


def require_pools(dev: Device, call: str) -> None:
    """The rule of every stream-ordered allocation and pool call (and ``cuGraphAddMemAllocNode``) on ``dev``: 801
    NOT_SUPPORTED when the device has no stream-ordered memory pools (``DeviceSpec.memory_pools``; spec proposal
    P-10 [O; I for the other calls]), naming the entry ``call``."""
    if not dev.spec.memory_pools:
        raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                          f"{call}: device {dev.ordinal} does not support stream-ordered memory pools "
                          "(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED is 0: DeviceSpec(memory_pools=False))")


class GraphMemory:
    """The graph memory of a device (``cuDeviceGetGraphMemAttribute``): the graph allocations whose memory a
    launch backed and that keep it (start -> size) until ``cuDeviceGraphMemTrim`` releases the ones no graph
    uses, and the high watermarks of used and reserved bytes (reserved follows used [I])."""

    __slots__ = ("backed", "used", "used_high", "reserved_high")

    def __init__(self) -> None:
        self.backed: dict[int, int] = {}
        self.used = self.used_high = self.reserved_high = 0

    def back(self, start: int, size: int) -> None:
        """A launch mapped the graph allocation at ``start``: its memory is the graphs' until trimmed."""
        if start not in self.backed:
            self.backed[start] = size
            self.used += size
            self.used_high = max(self.used_high, self.used)
            self.reserved_high = max(self.reserved_high, self.used)

    def release(self, start: int) -> None:
        """``cuDeviceGraphMemTrim`` gave the memory of the allocation at ``start`` back."""
        self.used -= self.backed.pop(start)
