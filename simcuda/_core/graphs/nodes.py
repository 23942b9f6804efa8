"""Node kinds: one ``NodeKind`` per ``CUgraphNodeType``, over its parameter record (spec 1, 9, 9.1, 10; the records
are in :mod:`simcuda._core.graphs.node_params`, imported here so a kind and its record are reached together).

Why this file is long (over ~700 lines): it is the registry of every node kind (one NodeKind per
CUgraphNodeType): a kind's behaviour lives in one place by design.

This module knows nothing of capture rules or faces. It is the one place a node kind's behaviour lives:
:mod:`simcuda._core.graphs.graph_model` and its parts (replay, DOT, exec-update checks, clone, freeze), the graph and
exec entries (node creation and set-params, the launch log, DEVICE_LAUNCH checks) and the faces reach a
kind only through :data:`KINDS`, so adding a node kind is one record class, one :class:`NodeKind`
subclass and one entry in :data:`KINDS` (``tests/core/test_node_kind_registry.py`` checks the registry).

Theory of operation
-------------------
A node's ``params`` is its kind's record, never mutated once stored: a set-params call stores a new
record, so nodes, clones and exec bodies share records freely (a clone or freeze copies nothing but a
GRAPH node's embedded graph, :meth:`NodeKind.copy`). The records, per ``type``:

* KERNEL: :class:`KernelParams` (hand-slotted, see its docstring: launches with the same parameters
  share one record);
* MEMCPY: :class:`~simcuda._core.memory.memory_model.CopyParams`; MEMSET:
  :class:`~simcuda._core.memory.memory_model.MemsetParams` (they are also the operands of eager copies and sets, so they
  live with the memory code);
* HOST: :class:`HostParams`; GRAPH: :class:`ChildGraphParams`; EVENT_RECORD / WAIT_EVENT: :class:`EventParams`;
  EMPTY: :data:`NO_PARAMS`; MEM_ALLOC: :class:`MemAllocParams`; MEM_FREE: :class:`MemFreeParams`;
  BATCH_MEM_OP: :class:`BatchMemOpParams`; EXT_SEMAS_SIGNAL / EXT_SEMAS_WAIT: :class:`ExtSemParams`;
  CONDITIONAL: :class:`ConditionalParams` (its :class:`CondHandle`, type and body graphs, which the node owns as
  a GRAPH node owns its child: the graph code walks into them; P-20..P-31 of docs/spec-proposals.md).

A :class:`NodeKind` answers every per-kind question: how a node describes itself (DOT labels, summaries,
the launch log), how a face's spec becomes a checked record (:meth:`NodeKind.build`), what replay does
(:meth:`NodeKind.replay`), its DOT parameter block, what ``cuGraphExecUpdate`` and the
``cuGraphExec*SetParams`` calls may change (:meth:`NodeKind.update_problem`), and the flags the rules
read (enable/disable, DEVICE_LAUNCH, clock, set-params). Code meeting a type without a kind (MEMCPY_BATCH and
the later types, which the simulator cannot create) falls back to its keyword.
"""
from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

import attrs

from ..errors import CUresult, DriverError
from ..memory.memops import MEMOP_ATOMIC_REDUCTION as MEMOP_ATOMIC_REDUCTION  # the batch memory operations' names
from ..memory.memops import MEMOP_BARRIER as MEMOP_BARRIER
from ..memory.memops import MEMOP_FLUSH_REMOTE_WRITES as MEMOP_FLUSH_REMOTE_WRITES
from ..memory.memops import MEMOP_NAMES as MEMOP_NAMES
from ..memory.memops import MEMOP_WAIT_VALUE_32 as MEMOP_WAIT_VALUE_32
from ..memory.memops import MEMOP_WAIT_VALUE_64 as MEMOP_WAIT_VALUE_64
from ..memory.memops import MEMOP_WRITE_VALUE_32 as MEMOP_WRITE_VALUE_32
from ..memory.memops import MEMOP_WRITE_VALUE_64 as MEMOP_WRITE_VALUE_64
from ..memory.memops import WAIT_CONDITIONS as WAIT_CONDITIONS
from ..memory.memops import WAIT_VALUE_FLUSH as WAIT_VALUE_FLUSH
from ..memory.memops import check_mem_ops as check_mem_ops
from ..memory.memops import run_mem_ops as run_mem_ops
from ..memory.memops import wait_condition as wait_condition
from ..memory.memory_model import HOST as HOST_SIDE
from ..memory.memory_model import CopyParams, MemsetParams, check_copy, check_memset, do_copy, do_memset, host_address
from ..objects import Event
from .node_params import NO_PARAMS as NO_PARAMS
from .node_params import BatchMemOpParams as BatchMemOpParams
from .node_params import ChildGraphParams as ChildGraphParams
from .node_params import EmptyParams as EmptyParams
from .node_params import EventParams as EventParams
from .node_params import ExtSemParams as ExtSemParams
from .node_params import HostParams as HostParams
from .node_params import KernelParams as KernelParams
from .node_params import MemAllocParams as MemAllocParams
from .node_params import MemFreeParams as MemFreeParams
from .node_params import same_values as same_values

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..memory.memory_model import Allocation, MemorySpace
    from ..objects import Context, ThreadState
    from .graph_model import Graph

class HandleLookup(Protocol):
    """The handle table, read-only (:class:`simcuda._core.handles.Handles` is one)."""

    def get(self, h: Any) -> Any: ...
    def context(self, h: int) -> Context: ...


class CallingThread(Protocol):
    """The calling thread's state (:class:`simcuda._core.threads.Threads` is one; the same shape as
    ``simcuda._core.capture.capture_rules.ThreadLookup``, which can become this one: capture.py imports this module)."""

    def current(self) -> ThreadState: ...


class BuildHost(Protocol):
    """What :meth:`NodeKind.build` uses of a driver: its memory, the handle table, the threads (the current
    context), and the argument checks of the graph entries (``simcuda._core.graphs.graph_entries.Graphs``) and the
    scheduler (``Scheduler.check_host_fn``)."""

    @property
    def memory(self) -> MemorySpace: ...
    @property
    def handles(self) -> HandleLookup: ...
    @property
    def threads(self) -> CallingThread: ...
    def _kernel_spec(self, hfunc: int, grid: Sequence[int], block: Sequence[int], shmem: int, args: list[Any],
                     bad_function_code: int = 1, priority: int = 0) -> KernelParams: ...
    @property
    def scheduler(self) -> WorkRunner: ...


class WorkRunner(Protocol):
    """What the node kinds use of the scheduler that runs user code and kernels
    (:class:`simcuda._core.work.Scheduler` is one)."""

    def check_host_fn(self, fn: Any, what: str) -> None: ...
    def run_kernel(self, p: KernelParams) -> str: ...
    def call_host_fn(self, fn: Any, user_data: Any, callback_args: tuple[int, int] | None = None) -> None: ...
    def complete_event(self, event: Event) -> None: ...


class ReplayHost(Protocol):
    """What :meth:`NodeKind.replay` uses of a driver: its memory and the scheduler that runs user code and
    kernels (:class:`WorkRunner`)."""

    @property
    def memory(self) -> MemorySpace: ...
    @property
    def scheduler(self) -> WorkRunner: ...



# CUgraphNodeType values (spec section 10)
KERNEL, MEMCPY, MEMSET, HOST, GRAPH, EMPTY, WAIT_EVENT, EVENT_RECORD = 0, 1, 2, 3, 4, 5, 6, 7
EXT_SEMAS_SIGNAL, EXT_SEMAS_WAIT, MEM_ALLOC, MEM_FREE, BATCH_MEM_OP, CONDITIONAL = 8, 9, 10, 11, 12, 13

TYPE_KEYWORDS = {
    KERNEL: "KERNEL", MEMCPY: "MEMCPY", MEMSET: "MEMSET", HOST: "HOST", GRAPH: "GRAPH", EMPTY: "EMPTY",
    WAIT_EVENT: "WAIT_EVENT", EVENT_RECORD: "EVENT_RECORD", EXT_SEMAS_SIGNAL: "EXT_SEMAS_SIGNAL",
    EXT_SEMAS_WAIT: "EXT_SEMAS_WAIT", MEM_ALLOC: "MEM_ALLOC", MEM_FREE: "MEM_FREE",
    BATCH_MEM_OP: "BATCH_MEM_OP", CONDITIONAL: "CONDITIONAL",
}

# CUgraphExecUpdateResult (spec 10)
UPD_SUCCESS, UPD_ERROR, UPD_TOPOLOGY_CHANGED, UPD_NODE_TYPE_CHANGED, UPD_FUNCTION_CHANGED = 0, 1, 2, 3, 4
UPD_PARAMETERS_CHANGED, UPD_NOT_SUPPORTED, UPD_UNSUPPORTED_FUNCTION_CHANGE, UPD_ATTRIBUTES_CHANGED = 5, 6, 7, 8
UPDATE_NAMES = {0: "SUCCESS", 1: "ERROR", 2: "TOPOLOGY_CHANGED", 3: "NODE_TYPE_CHANGED", 4: "FUNCTION_CHANGED",
                5: "PARAMETERS_CHANGED", 6: "NOT_SUPPORTED", 7: "UNSUPPORTED_FUNCTION_CHANGE",
                8: "ATTRIBUTES_CHANGED"}

# CUgraphDebugDot_flags (spec 9.1)
DOT_VERBOSE, DOT_RUNTIME_TYPES, DOT_KERNEL_PARAMS, DOT_MEMCPY_PARAMS, DOT_MEMSET_PARAMS = 1, 2, 4, 8, 16
DOT_HOST_PARAMS, DOT_EVENT_PARAMS, DOT_EXT_SIGNAL_PARAMS, DOT_EXT_WAIT_PARAMS = 32, 64, 128, 256
DOT_KERNEL_ATTRIBUTES, DOT_HANDLES, DOT_MEM_ALLOC_PARAMS, DOT_MEM_FREE_PARAMS = 512, 1024, 2048, 4096
DOT_BATCH_MEM_OP_PARAMS, DOT_EXTRA_TOPO_INFO, DOT_CONDITIONAL_PARAMS = 8192, 16384, 32768
DOT_MEMCPY_BATCH_PARAMS, DOT_FABRIC_CPY_BATCH_PARAMS = 65536, 131072
#: what VERBOSE means: every flag that adds information (RUNTIME_TYPES only renames, so it stays off:
#: observed verbose dumps print driver names such as ``DtoD (DEVICE to DEVICE)``, spec 9.1)
DOT_ALL = ((1 << 18) - 1) & ~DOT_RUNTIME_TYPES

#: one DOT parameter line: (field name, value)
Pair = tuple[str, Any]


# -------------------------------------------------------------------------- helpers
def addr(v: Any) -> str:
    """An address as DOT prints it: ``0x...`` for an ``int`` or host memory, else the object's type name."""
    if isinstance(v, int):
        return f"0x{v:x}"
    a = host_address(v)
    return f"0x{a:x}" if a is not None else type(v).__name__


def _alloc_facts(resolve: Callable[[int], Allocation | None], address: Any) -> tuple[str | None, int | None]:
    """``(allocation kind, id of its context)`` of the allocation holding ``address``, or ``(None, None)``."""
    a = resolve(int(address)) if isinstance(address, int) else None
    if a is None:
        return (None, None)
    return (a.kind, id(a.ctx))


# -------------------------------------------------------------------------- node kinds
class NodeKind:
    """Everything that differs between node kinds, for one ``CUgraphNodeType``: a base with the defaults.

    Class attributes (data the rules read):
        type: the ``CUgraphNodeType`` value; ``keyword`` its name (DOT, messages).
        record: the parameter record class of the kind.
        can_disable: ``cuGraphNodeSetEnabled`` may disable it (Programming Guide, "Individual node enable").
        device_launch: a DEVICE_LAUNCH graph may hold it (cuGraphInstantiate docstring); ``device_work``:
            it counts as work there (a DEVICE_LAUNCH graph needs a kernel, memcpy or memset node).
        ticks: its replay advances the simulated clock by one tick (spec 16) [I]; EVENT_RECORD reads the
            clock and GRAPH advances it through its own nodes.
        settable: ``cuGraphNodeSetParams`` and ``cuGraphExecNodeSetParams`` may change its parameters.
        dot_flag: the ``CUgraphDebugDot_flags`` bit that adds its parameter block (0: none).
        struct_names: ``(driver name, runtime name)`` of its parameter struct, the block's header (or None).
        bold: DOT draws it bold (a kernel: a bold octagon without parameter blocks).

    Every method takes the kind's record ``p``; the subclasses override what differs.
    """

    type: ClassVar[int]
    keyword: ClassVar[str]
    record: ClassVar[builtins.type[Any]]
    can_disable: ClassVar[bool] = False
    device_launch: ClassVar[bool] = False
    device_work: ClassVar[bool] = False
    ticks: ClassVar[bool] = True
    settable: ClassVar[bool] = True
    dot_flag: ClassVar[int] = 0
    struct_names: ClassVar[tuple[str, str] | None] = None
    bold: ClassVar[bool] = False

    def describe(self, p: Any) -> str:
        """A one-line description (DOT labels, summaries, the launch log): the keyword unless overridden."""
        return self.keyword

    def log_detail(self, p: Any) -> str:
        """The launch log's ``detail`` of a replayed node: :meth:`describe` unless overridden."""
        return self.describe(p)

    def build(self, drv: BuildHost, spec: Any, bad_handle_code: int) -> Any:
        """The checked record for a face's ``spec`` (as the add / set-params entries take it).

        ``bad_handle_code`` is the code for a bad function or event handle (1 for the add and exec calls,
        400 for the graph set-params calls, which list INVALID_HANDLE).
        Errors: 801 NOT_SUPPORTED here (kinds whose nodes are made by their own entries).
        """
        raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED, f"nodes of type {self.keyword} are not simulated")

    def copy(self, p: Any, child: Graph | None = None) -> Any:
        """The parameters of a copy of the node (cuGraphClone, a graph made from an exec body): records are
        never mutated, so the record itself; a GRAPH node's names the copied ``child`` graph."""
        return p

    def replay(self, drv: ReplayHost, p: Any) -> str:
        """Run the node in a graph replay (spec 9) against ``drv``'s memory; returns the launch log's note.

        A GRAPH node never comes here: :func:`~simcuda._core.graphs.graph_exec.run_frozen` replays its child body in
        place.
        """
        return ""

    def update_problem(self, old: Any, new: Any, resolve: Callable[[int], Allocation | None],
                       flags: int) -> tuple[int, str] | None:
        """Whether an exec may take ``new`` in place of ``old`` (cuGraphExecUpdate, cuGraphExec*SetParams):
        ``(CUgraphExecUpdateResult, why)`` or None. ``resolve`` finds the allocation holding an address;
        ``flags`` are the exec's instantiate flags. The default: no restrictions (Graph Update Limitations:
        HOST, EVENT_RECORD, WAIT_EVENT, EMPTY)."""
        return None

    def dot_pairs(self, p: Any, runtime: bool) -> list[Pair]:
        """The DOT parameter block's lines after its header (spec 9.1); ``runtime``: RUNTIME_TYPES names."""
        return []

    def dot_launch(self, p: Any) -> str:
        """Text added to the description in a DOT record node (a kernel: ``<<<(grid),(block),shmem>>>``)."""
        return ""

    def dot_attributes(self, p: Any) -> list[Pair] | None:
        """The block KERNEL_NODE_ATTRIBUTES adds (kernels only), or None."""
        return None

    def dot_handles(self, p: Any) -> list[Pair]:
        """Handles HANDLES adds after the node handle (a kernel: its function handle)."""
        return []

    def allocation(self, p: Any) -> Allocation | None:
        """The graph allocation the node maps when it runs (MEM_ALLOC), else None."""
        return None

    def freed(self, p: Any) -> int | None:
        """The address the node frees when it runs (MEM_FREE), else None."""
        return None

    def device_launch_facts(self, mem: MemorySpace, p: Any) -> tuple[list[Context], str | None]:
        """For DEVICE_LAUNCH instantiation (C-143): the contexts the node's work resides on, and why it cannot
        run in a device launch (or None)."""
        return [], None


class KernelKind(NodeKind):
    """KERNEL (0): a kernel launch (cuGraphAddKernelNode, cuLaunchKernel in capture)."""

    type, keyword, record = KERNEL, "KERNEL", KernelParams
    can_disable = device_launch = device_work = bold = True
    dot_flag, struct_names = DOT_KERNEL_PARAMS, ("CUDA_KERNEL_NODE_PARAMS", "cudaKernelNodeParams")

    def describe(self, p: Any) -> str:
        """The kernel's name."""
        name: str = p.name
        return name

    def log_detail(self, p: Any) -> str:
        """``name<<<grid,block,shmem>>>``."""
        return f"{p.name}<<<{p.grid},{p.block},{p.shmem}>>>"

    def build(self, drv: BuildHost, spec: Any, bad_handle_code: int) -> Any:
        """A :class:`KernelParams` from a dict ``hfunc, grid, block, shmem, args[, priority]``.

        Errors: ``bad_handle_code`` for a NULL or unknown function; launch-shape errors
        (:func:`simcuda._core.modules.launch.check_shape`).
        """
        return drv._kernel_spec(spec["hfunc"], spec["grid"], spec["block"], spec["shmem"], spec["args"],
                                bad_handle_code, int(spec.get("priority", 0)))

    def replay(self, drv: ReplayHost, p: Any) -> str:
        """Run the registered Python kernel, if any (``Scheduler.run_kernel``)."""
        return drv.scheduler.run_kernel(p)

    def update_problem(self, old: Any, new: Any, resolve: Callable[[int], Allocation | None],
                       flags: int) -> tuple[int, str] | None:
        """The function's context cannot change (7), nor cooperativeness (5) [I], nor, with USE_NODE_PRIORITY,
        the priority (8) [I] (Graph Update Limitations)."""
        octx, nctx = old.func.module.ctx, new.func.module.ctx
        if octx is not nctx:
            return (UPD_UNSUPPORTED_FUNCTION_CHANGE,
                    f"the kernel's function {new.name} belongs to context 0x{nctx.handle:x}, the original "
                    f"function {old.name} to context 0x{octx.handle:x}; the owning context of the function "
                    "cannot change (Graph Update Limitations)")
        if bool(old.cooperative) != bool(new.cooperative):
            return (UPD_PARAMETERS_CHANGED, "a cooperative kernel node cannot become non-cooperative or the "
                                            "reverse (cuGraphExecUpdate limitations) [inferred result]")
        if flags & 8 and old.priority != new.priority:
            return (UPD_ATTRIBUTES_CHANGED, "the exec was instantiated with USE_NODE_PRIORITY, so the kernel "
                                            "node's priority attribute cannot change [inferred result]")
        return None

    def dot_pairs(self, p: Any, runtime: bool) -> list[Pair]:
        """func, gridDim, blockDim, sharedMemBytes, kernelParams (large ints as addresses)."""
        return [("func", p.name), ("gridDim", "x".join(map(str, p.grid))),
                ("blockDim", "x".join(map(str, p.block))), ("sharedMemBytes", p.shmem),
                ("kernelParams", ", ".join(addr(a) if isinstance(a, int) and a > 0xFFFF else str(a)
                                           for a in p.args) or "none")]

    def dot_launch(self, p: Any) -> str:
        """``<<<(x,y,z),(x,y,z),shmem>>>``."""
        return f"<<<({','.join(map(str, p.grid))}),({','.join(map(str, p.block))}),{p.shmem}>>>"

    def dot_attributes(self, p: Any) -> list[Pair] | None:
        """priority and cooperative (0 or 1)."""
        return [("priority", p.priority), ("cooperative", int(bool(p.cooperative)))]

    def dot_handles(self, p: Any) -> list[Pair]:
        """The function handle."""
        return [("func handle", addr(p.func.handle))]

    def device_launch_facts(self, mem: MemorySpace, p: Any) -> tuple[list[Context], str | None]:
        """The context of the function's module."""
        return [p.func.module.ctx], None


#: memcpy kinds in DOT: direction -> (driver words, runtime cudaMemcpyKind)
_COPY_KINDS = {"HtoD": ("HOST to DEVICE", "cudaMemcpyHostToDevice"),
               "DtoH": ("DEVICE to HOST", "cudaMemcpyDeviceToHost"),
               "DtoD": ("DEVICE to DEVICE", "cudaMemcpyDeviceToDevice"),
               "HtoH": ("HOST to HOST", "cudaMemcpyHostToHost")}


class MemcpyKind(NodeKind):
    """MEMCPY (1): a copy (cuGraphAddMemcpyNode, cuMemcpy*Async in capture); host sides are read and
    written when the graph runs (spec 3.10)."""

    type, keyword, record = MEMCPY, "MEMCPY", CopyParams
    can_disable = device_launch = device_work = True
    dot_flag, struct_names = DOT_MEMCPY_PARAMS, ("CUDA_MEMCPY3D", "cudaMemcpy3DParms")

    def describe(self, p: Any) -> str:
        """The copy's own description (``CopyParams.describe``)."""
        text: str = p.describe()
        return text

    def build(self, drv: BuildHost, spec: Any, bad_handle_code: int) -> Any:
        """The :class:`~simcuda._core.memory.memory_model.CopyParams` itself, once ``check_copy`` accepts it
        (INVALID_VALUE for device ranges outside an allocation)."""
        check_copy(drv.memory, spec)
        return spec

    def replay(self, drv: ReplayHost, p: Any) -> str:
        """Copy the bytes (``memory.do_copy``)."""
        do_copy(drv.memory, p)
        return ""

    @staticmethod
    def geometry(p: Any) -> tuple[int, ...]:
        """Every extent, pitch and offset of a copy: what a 2D/3D copy may not change in an update."""
        return (p.width, p.height, p.depth, p.src_pitch, p.dst_pitch, p.src_height, p.dst_height, p.src_x,
                p.src_y, p.src_z, p.dst_x, p.dst_y, p.dst_z)

    def update_problem(self, old: Any, new: Any, resolve: Callable[[int], Allocation | None],
                       flags: int) -> tuple[int, str] | None:
        """No zero-length copies; memory types, and the kind and context of device sides, are fixed; only
        1D copies may change geometry (Graph Update Limitations). Result 5 PARAMETERS_CHANGED."""
        if new.nbytes == 0:
            return (UPD_PARAMETERS_CHANGED, "zero-length memcpy operations are not supported in an exec update")
        if (old.src_kind, old.dst_kind) != (new.src_kind, new.dst_kind):
            return (UPD_PARAMETERS_CHANGED, f"the copy's memory types changed ({old.direction} -> "
                                            f"{new.direction}); changing the source or destination memory type "
                                            "is not supported (Graph Update Limitations)")
        for side, o, n, k in (("source", old.src, new.src, old.src_kind), ("destination", old.dst, new.dst,
                                                                           old.dst_kind)):
            if k != HOST_SIDE and _alloc_facts(resolve, o) != _alloc_facts(resolve, n):
                return (UPD_PARAMETERS_CHANGED, f"the new {side} 0x{int(n):x} is not memory of the same kind and "
                                                f"context as the original {side} 0x{int(o):x} (Graph Update "
                                                "Limitations)")
        if not (old.height == old.depth == new.height == new.depth == 1) and (
                self.geometry(old) != self.geometry(new) or old.src != new.src or old.dst != new.dst):
            return (UPD_PARAMETERS_CHANGED, "only 1D memcpy nodes can be changed: the original or the new copy "
                                                "is 2D/3D (Graph Update Limitations)")
        return None

    def dot_pairs(self, p: Any, runtime: bool) -> list[Pair]:
        """kind, src, dst, extent, srcPitch, dstPitch."""
        names = _COPY_KINDS.get(p.direction, (p.direction, p.direction))
        return [("kind", names[1] if runtime else f"{p.direction} ({names[0]})"),
                ("src", addr(p.src)), ("dst", addr(p.dst)),
                ("extent", f"{p.width} x {p.height} x {p.depth}"),
                ("srcPitch", p.src_pitch), ("dstPitch", p.dst_pitch)]

    def device_launch_facts(self, mem: MemorySpace, p: Any) -> tuple[list[Context], str | None]:
        """The contexts of its device sides; pageable host memory cannot be copied in a device launch."""
        ctxs: list[Context] = []
        for kind, obj in ((p.src_kind, p.src), (p.dst_kind, p.dst)):
            if kind == HOST_SIDE:
                if not (isinstance(obj, int) and obj in mem.host):
                    return ctxs, "copies pageable host memory; a DEVICE_LAUNCH graph may copy only device or " \
                                 "pinned host memory"
            else:
                a = mem.find(int(obj))
                if a is not None and a.ctx is not None:
                    ctxs.append(a.ctx)
        return ctxs, None


class MemsetKind(NodeKind):
    """MEMSET (2): a 1D/2D set (cuGraphAddMemsetNode, cuMemsetD*Async in capture)."""

    type, keyword, record = MEMSET, "MEMSET", MemsetParams
    can_disable = device_launch = device_work = True
    dot_flag, struct_names = DOT_MEMSET_PARAMS, ("CUDA_MEMSET_NODE_PARAMS", "cudaMemsetParams")

    def describe(self, p: Any) -> str:
        """The set's own description (``MemsetParams.describe``)."""
        text: str = p.describe()
        return text

    def build(self, drv: BuildHost, spec: Any, bad_handle_code: int) -> Any:
        """The :class:`~simcuda._core.memory.memory_model.MemsetParams` itself once checked: INVALID_VALUE for a zero
        width or height [I for node creation], then ``check_memset`` (element size, value, alignment, range)."""
        if spec.width == 0 or spec.height == 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"memset node of width {spec.width} and height {spec.height}: zero-sized memsets "
                              "are not supported (cuGraphExecMemsetNodeSetParams: 'Zero sized operations are "
                              "not supported') [inferred for node creation]")
        check_memset(drv.memory, spec)
        return spec

    def replay(self, drv: ReplayHost, p: Any) -> str:
        """Set the bytes (``memory.do_memset``)."""
        do_memset(drv.memory, p)
        return ""

    def update_problem(self, old: Any, new: Any, resolve: Callable[[int], Allocation | None],
                       flags: int) -> tuple[int, str] | None:
        """No zero sizes; the destination stays the same kind of allocation in the same context; 2D sets may
        change only address and value, 1D ones not their height (cuGraphExecMemsetNodeSetParams). Result 5."""
        if new.width == 0 or new.height == 0:
            return (UPD_PARAMETERS_CHANGED, "zero-sized memset operations are not supported in an exec update")
        if _alloc_facts(resolve, old.dst) != _alloc_facts(resolve, new.dst):
            return (UPD_PARAMETERS_CHANGED, f"the new destination 0x{new.dst:x} is not the same kind of allocation, "
                                            f"in the same context, as the original 0x{old.dst:x} "
                                            "(cuGraphExecMemsetNodeSetParams)")
        dims_old = (old.width, old.height, old.element_size, old.pitch)
        dims_new = (new.width, new.height, new.element_size, new.pitch)
        if old.height > 1 or new.height > 1:
            if dims_old != dims_new:
                return (UPD_PARAMETERS_CHANGED, "for 2D memsets only the address and the value may change "
                                                "(cuGraphExecMemsetNodeSetParams)")
        elif old.height != new.height:
            return (UPD_PARAMETERS_CHANGED, "a memset's height cannot change (cuGraphExecMemsetNodeSetParams)")
        return None

    def dot_pairs(self, p: Any, runtime: bool) -> list[Pair]:
        """dst, value, elementSize, width, height, pitch."""
        return [("dst", addr(p.dst)), ("value", f"0x{p.value:x}"), ("elementSize", p.element_size),
                ("width", p.width), ("height", p.height), ("pitch", p.pitch)]

    def device_launch_facts(self, mem: MemorySpace, p: Any) -> tuple[list[Context], str | None]:
        """The context of the destination's allocation."""
        a = mem.find(p.dst)
        return ([a.ctx] if a is not None and a.ctx is not None else []), None


class HostKind(NodeKind):
    """HOST (3): a host function (cuGraphAddHostNode, cuLaunchHostFunc in capture; spec 3.9)."""

    type, keyword, record = HOST, "HOST", HostParams
    dot_flag, struct_names = DOT_HOST_PARAMS, ("CUDA_HOST_NODE_PARAMS", "cudaHostNodeParams")

    def describe(self, p: Any) -> str:
        """``fn 0x...`` for a function address, else the callable's ``__name__``."""
        fn = p.fn
        return f"fn 0x{fn:x}" if isinstance(fn, int) else getattr(fn, "__name__", "host function")

    def build(self, drv: BuildHost, spec: Any, bad_handle_code: int) -> Any:
        """A :class:`HostParams` from a dict ``fn, user_data[, sync_mode]``.

        Errors: 1 INVALID_VALUE a NULL function, one outside executable memory, a ``sync_mode`` not 0 or 1.
        """
        if not spec["fn"]:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, "the host node's function is NULL")
        drv.scheduler.check_host_fn(spec["fn"], "the host node's function")
        if spec.get("sync_mode", 0) not in (0, 1):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"syncMode {spec['sync_mode']} is not a CUhostTaskSyncMode (0, 1) (spec 3.9)")
        return HostParams(spec["fn"], spec.get("user_data"), spec.get("sync_mode", 0))

    def replay(self, drv: ReplayHost, p: Any) -> str:
        """Call the function with its user data, as on a thread of the driver's own (spec 3.9)."""
        drv.scheduler.call_host_fn(p.fn, p.user_data)
        return "called host function"

    def dot_pairs(self, p: Any, runtime: bool) -> list[Pair]:
        """fn, userData."""
        return [("fn", addr(p.fn) if isinstance(p.fn, int) else self.describe(p)),
                ("userData", addr(p.user_data) if p.user_data else "0x0")]


class ChildGraphKind(NodeKind):
    """GRAPH (4): a child graph (cuGraphAddChildGraphNode); the graph code walks into it (replay, freeze,
    clone, update, DOT), so most of its behaviour is structure, not kind."""

    type, keyword, record = GRAPH, "GRAPH", ChildGraphParams
    device_launch = True
    ticks = False

    def describe(self, p: Any) -> str:
        """``graph_<child id>``."""
        return f"graph_{p.graph.gid}"

    def copy(self, p: Any, child: Graph | None = None) -> Any:
        """A record naming the copied ``child`` graph."""
        assert child is not None  # a GRAPH node is copied with its child graph
        return ChildGraphParams(child)


class _EventKind(NodeKind):
    """What EVENT_RECORD and WAIT_EVENT share: an event (cuGraphAddEventRecordNode / WaitNode, and
    CU_EVENT_RECORD_EXTERNAL / CU_EVENT_WAIT_EXTERNAL in capture, spec 4.1, 4.2)."""

    record = EventParams
    dot_flag, struct_names = DOT_EVENT_PARAMS, ("CUevent", "cudaEvent_t")

    def describe(self, p: Any) -> str:
        """``event 0x<handle>``."""
        return f"event 0x{p.event.handle:x}"

    def build(self, drv: BuildHost, spec: Any, bad_handle_code: int) -> Any:
        """An :class:`EventParams` from an event handle. Errors: ``bad_handle_code`` a NULL or dead event."""
        ev = drv.handles.get(spec) if spec else None
        if not isinstance(ev, Event) or ev.destroyed:
            raise DriverError(bad_handle_code, "the node's event is NULL" if not spec else
                              f"0x{int(spec):x} is not a live event handle")
        return EventParams(ev)

    def dot_pairs(self, p: Any, runtime: bool) -> list[Pair]:
        """event."""
        return [("event", addr(p.event.handle))]


class EventRecordKind(_EventKind):
    """EVENT_RECORD (7): records an event when the replay reaches it."""

    type, keyword = EVENT_RECORD, "EVENT_RECORD"
    ticks = False  # it reads the clock (spec 16) [I]

    def replay(self, drv: ReplayHost, p: Any) -> str:
        """Complete the event, stamped with the clock."""
        drv.scheduler.complete_event(p.event)
        return "event recorded"


class EventWaitKind(_EventKind):
    """WAIT_EVENT (6): waits for an event."""

    type, keyword = WAIT_EVENT, "WAIT_EVENT"

    def replay(self, drv: ReplayHost, p: Any) -> str:
        """Nothing: replay runs in one order."""
        return "event wait (nothing to wait for in replay order)"


class EmptyKind(NodeKind):
    """EMPTY (5): a join point (cuGraphAddEmptyNode; a disabled node of an exec body copied into a graph)."""

    type, keyword, record = EMPTY, "EMPTY", EmptyParams

    def build(self, drv: BuildHost, spec: Any, bad_handle_code: int) -> Any:
        """:data:`NO_PARAMS` (``spec`` is ignored)."""
        return NO_PARAMS


class _ExtSemKind(NodeKind):
    """EXT_SEMAS_SIGNAL (8) and EXT_SEMAS_WAIT (9): cuGraphAddExternalSemaphores*Node, cuSignal/
    cuWaitExternalSemaphoresAsync in capture.

    Fidelity: external semaphores cannot be imported in the simulator, so replay is a no-op with a note.
    """

    record = ExtSemParams
    what: ClassVar[str]  # "signal" or "wait", for the replay note

    def describe(self, p: Any) -> str:
        """``<n> external semaphore(s)``."""
        return f"{len(p.sems)} external semaphore(s)"

    def build(self, drv: BuildHost, spec: Any, bad_handle_code: int) -> Any:
        """An :class:`ExtSemParams` from a dict ``sems, values``.

        Errors: 1 INVALID_VALUE no semaphores, a NULL handle, a parameter count other than the semaphores'.
        """
        sems = tuple(int(h) for h in spec["sems"])
        values = tuple(tuple(v) for v in spec["values"])
        if not sems:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              "an external semaphore node needs at least one semaphore (numExtSems 0)")
        if any(h == 0 for h in sems):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, "an external semaphore handle is NULL")
        if len(values) != len(sems):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{len(sems)} semaphores but {len(values)} parameter structs")
        return ExtSemParams(sems, values)

    def replay(self, drv: ReplayHost, p: Any) -> str:
        """Nothing (not simulated); the note says so."""
        return (f"no-op: external semaphores are not simulated ({self.what} of {len(p.sems)} semaphore(s) "
                "recorded with their parameters only)")

    def update_problem(self, old: Any, new: Any, resolve: Callable[[int], Allocation | None],
                       flags: int) -> tuple[int, str] | None:
        """The number of semaphores is fixed (Graph Update Limitations). Result 5."""
        if len(old.sems) != len(new.sems):
            return (UPD_PARAMETERS_CHANGED, f"the number of external semaphores changed ({len(old.sems)} -> "
                                            f"{len(new.sems)}), which is not supported (Graph Update Limitations)")
        return None

    def dot_pairs(self, p: Any, runtime: bool) -> list[Pair]:
        """numExtSems, extSemArray, fence values."""
        return [("numExtSems", len(p.sems)), ("extSemArray", ", ".join(addr(s) for s in p.sems) or "none"),
                ("fence values", ", ".join(str(v[0]) for v in p.values) or "none")]


class ExtSemSignalKind(_ExtSemKind):
    """EXT_SEMAS_SIGNAL (8): signals external semaphores."""

    type, keyword, what = EXT_SEMAS_SIGNAL, "EXT_SEMAS_SIGNAL", "signal"
    dot_flag = DOT_EXT_SIGNAL_PARAMS
    struct_names = ("CUDA_EXT_SEM_SIGNAL_NODE_PARAMS", "cudaExternalSemaphoreSignalNodeParams")


class ExtSemWaitKind(_ExtSemKind):
    """EXT_SEMAS_WAIT (9): waits on external semaphores."""

    type, keyword, what = EXT_SEMAS_WAIT, "EXT_SEMAS_WAIT", "wait"
    dot_flag = DOT_EXT_WAIT_PARAMS
    struct_names = ("CUDA_EXT_SEM_WAIT_NODE_PARAMS", "cudaExternalSemaphoreWaitNodeParams")


class MemAllocKind(NodeKind):
    """MEM_ALLOC (10): a graph allocation at a fixed address (cuGraphAddMemAllocNode, cuMemAllocAsync in
    capture); made by its own entries, never set."""

    type, keyword, record = MEM_ALLOC, "MEM_ALLOC", MemAllocParams
    settable = False
    dot_flag, struct_names = DOT_MEM_ALLOC_PARAMS, ("CUDA_MEM_ALLOC_NODE_PARAMS", "cudaMemAllocNodeParams")

    def describe(self, p: Any) -> str:
        """``0x<address> (<size> bytes)``."""
        return f"0x{p.alloc.start:x} ({p.size} bytes)"

    def replay(self, drv: ReplayHost, p: Any) -> str:
        """Map the allocation (MemoryError past the host budget: the driver turns it into OUT_OF_MEMORY)."""
        a = p.alloc
        drv.memory.map(a)
        return f"mapped 0x{a.start:x} ({a.size} bytes)"

    def update_problem(self, old: Any, new: Any, resolve: Callable[[int], Allocation | None],
                       flags: int) -> tuple[int, str] | None:
        """The allocation cannot change [I]. Result 5."""
        if old.alloc is not new.alloc:
            return (UPD_PARAMETERS_CHANGED, f"the allocation node now allocates 0x{new.alloc.start:x} "
                                            f"({new.size} bytes) instead of 0x{old.alloc.start:x} "
                                            f"({old.size} bytes) [inferred]")
        return None

    def dot_pairs(self, p: Any, runtime: bool) -> list[Pair]:
        """dptr, bytesize, device."""
        return [("dptr", addr(p.alloc.start)), ("bytesize", p.size), ("device", p.device)]

    def allocation(self, p: Any) -> Allocation | None:
        """The node's allocation."""
        alloc: Allocation = p.alloc
        return alloc


class MemFreeKind(NodeKind):
    """MEM_FREE (11): frees a graph allocation (cuGraphAddMemFreeNode, cuMemFreeAsync in capture); made by its
    own entries, never set."""

    type, keyword, record = MEM_FREE, "MEM_FREE", MemFreeParams
    settable = False
    dot_flag, struct_names = DOT_MEM_FREE_PARAMS, ("CUDA_MEM_FREE_NODE_PARAMS", "cudaMemFreeNodeParams")

    def describe(self, p: Any) -> str:
        """``0x<address>``."""
        return f"0x{p.dptr:x}"

    def replay(self, drv: ReplayHost, p: Any) -> str:
        """Unmap the allocation (when it is still there)."""
        mem = drv.memory
        a = mem.find(p.dptr)
        if a is not None:
            mem.unmap(a)
        return f"unmapped 0x{p.dptr:x}"

    def update_problem(self, old: Any, new: Any, resolve: Callable[[int], Allocation | None],
                       flags: int) -> tuple[int, str] | None:
        """The address cannot change [I]. Result 5."""
        if old.dptr != new.dptr:
            return (UPD_PARAMETERS_CHANGED, f"the free node now frees 0x{new.dptr:x} instead of "
                                            f"0x{old.dptr:x} [inferred]")
        return None

    def dot_pairs(self, p: Any, runtime: bool) -> list[Pair]:
        """dptr."""
        return [("dptr", addr(p.dptr))]

    def freed(self, p: Any) -> int | None:
        """The freed address."""
        dptr: int = p.dptr
        return dptr


class BatchMemOpKind(NodeKind):
    """BATCH_MEM_OP (12): memory operations (cuGraphAddBatchMemOpNode, cuStreamBatchMemOp and the WaitValue /
    WriteValue calls in capture)."""

    type, keyword, record = BATCH_MEM_OP, "BATCH_MEM_OP", BatchMemOpParams
    dot_flag, struct_names = DOT_BATCH_MEM_OP_PARAMS, ("CUDA_BATCH_MEM_OP_NODE_PARAMS", "cudaBatchMemOpNodeParams")

    def describe(self, p: Any) -> str:
        """The operation names, or ``no operations``."""
        return ", ".join(MEMOP_NAMES.get(op[0], str(op[0])) for op in p.ops) or "no operations"

    def build(self, drv: BuildHost, spec: Any, bad_handle_code: int) -> Any:
        """A :class:`BatchMemOpParams` from a dict ``ops[, flags, ctx]`` (:func:`check_mem_ops` checks it; ``ctx``
        0: the caller's current context, if any)."""
        hctx, flags = spec.get("ctx", 0), spec.get("flags", 0)
        ops, ctx = check_mem_ops(drv.memory, spec["ops"], flags, lambda: drv.handles.context(hctx) if hctx else
                                 drv.threads.current().current, "batch mem op node")
        return BatchMemOpParams(ops, flags, ctx)

    def replay(self, drv: ReplayHost, p: Any) -> str:
        """Writes store their value, waits evaluate their condition (:func:`run_mem_ops`)."""
        return run_mem_ops(drv.memory, p.ops)

    def update_problem(self, old: Any, new: Any, resolve: Callable[[int], Allocation | None],
                       flags: int) -> tuple[int, str] | None:
        """Only addresses, values and wait conditions may change (cuGraphExecBatchMemOpNodeSetParams). Result 5."""
        o_ops, n_ops = old.ops, new.ops
        if (len(o_ops) != len(n_ops) or old.flags != new.flags or old.ctx is not new.ctx
                or any(a[0] != b[0] or (a[3] & ~3) != (b[3] & ~3) for a, b in zip(o_ops, n_ops))):
            return (UPD_PARAMETERS_CHANGED, "a batch mem op node may change only addresses, values and wait "
                                            "conditions; its count, operation types, flags and context are fixed "
                                            "(cuGraphExecBatchMemOpNodeSetParams)")
        return None

    def dot_pairs(self, p: Any, runtime: bool) -> list[Pair]:
        """count, then one line per operation."""
        return [("count", len(p.ops))] + [(f"op {i}", f"{MEMOP_NAMES.get(op, op)} {addr(a)} {v} flags {f}")
                                          for i, (op, a, v, f) in enumerate(p.ops)]


#: the node kinds the simulator creates, by ``CUgraphNodeType``: the one registry the core dispatches through
KINDS: dict[int, NodeKind] = {k.type: k for k in (
    KernelKind(), MemcpyKind(), MemsetKind(), HostKind(), ChildGraphKind(), EmptyKind(), EventWaitKind(),
    EventRecordKind(), ExtSemSignalKind(), ExtSemWaitKind(), MemAllocKind(), MemFreeKind(),
    BatchMemOpKind(),
)}



# -------------------------------------------------------------------------- conditional nodes (topic: conditional)
#: CUgraphConditionalNodeType values
COND_IF, COND_WHILE, COND_SWITCH = 0, 1, 2
COND_TYPE_NAMES = {COND_IF: "IF", COND_WHILE: "WHILE", COND_SWITCH: "SWITCH"}
#: CU_GRAPH_COND_ASSIGN_DEFAULT: the handle's default value is assigned at the start of every launch
COND_ASSIGN_DEFAULT = 1
#: node types a conditional body may hold, at any depth (CUDA_CONDITIONAL_NODE_PARAMS::phGraph_out; Programming
#: Guide, "Conditional Node Body Graph Requirements"; P-23)
COND_BODY_TYPES = (KERNEL, EMPTY, MEMCPY, MEMSET, GRAPH, CONDITIONAL)
#: the most times one replay of a WHILE node runs its body before the replay stops with
#: CUDA_ERROR_LAUNCH_TIMEOUT (a GPU would spin until the watchdog, or forever) [I] (P-27)
COND_WHILE_LIMIT = 1_000_000


class CondHandle:
    """A conditional handle (``CUgraphConditionalHandle``, cuGraphConditionalHandleCreate): made for one graph
    (``graph``) and context (``ctx``), with the value it is given at the start of each launch (``default``) when
    ``flags`` hold CU_GRAPH_COND_ASSIGN_DEFAULT. ``node`` is the one conditional node using it (None until a
    node takes it; the Programming Guide: "The handle must be associated with a single conditional node").
    ``handle`` is its 64-bit value (what kernels receive and pass to ``KernelLaunch.set_conditional``).

    Handles cannot be destroyed (Programming Guide, "Conditional Handles"); one lives as long as the driver.
    """

    __slots__ = ("handle", "graph", "ctx", "default", "flags", "node")

    def __init__(self, graph: Graph, ctx: Context | None, default: int, flags: int) -> None:
        self.handle = 0
        self.graph, self.ctx, self.default, self.flags = graph, ctx, default, flags
        self.node: Any = None

    def start_value(self, previous: int | None) -> int:
        """The value at the start of a launch: the default with ASSIGN_DEFAULT; else what the previous launch of
        the exec left (0 at the first) [I] (NVIDIA: undefined, P-22)."""
        if self.flags & COND_ASSIGN_DEFAULT:
            return self.default
        return previous or 0


@attrs.frozen(slots=True)
class ConditionalParams:
    """A CONDITIONAL node's parameters (``CUDA_CONDITIONAL_NODE_PARAMS``): ``handle`` its :class:`CondHandle`,
    ``ctype`` the ``CUgraphConditionalNodeType`` (IF 0, WHILE 1, SWITCH 2), ``bodies`` the body graphs the node
    owns (``phGraph_out``, ``size`` of them), ``ctx`` the context."""

    handle: CondHandle
    ctype: int
    bodies: tuple[Graph, ...]
    ctx: Context | None = None

    @property
    def size(self) -> int:
        """The number of bodies (``size``)."""
        return len(self.bodies)


def cond_pick(ctype: int, value: int, size: int) -> int | None:
    """The body a conditional node runs for condition ``value``: IF body 0 when non-zero, else body 1 when there
    are two; WHILE body 0 while non-zero; SWITCH body ``value`` when ``value < size`` (CUDA_CONDITIONAL_NODE_PARAMS
    docstring; P-26). None: no body runs."""
    if ctype == COND_SWITCH:
        return value if value < size else None
    if value:
        return 0
    return 1 if ctype == COND_IF and size == 2 else None


class ConditionalKind(NodeKind):
    """CONDITIONAL (13): runs one of its body graphs, or a body repeatedly, by the value of a conditional handle
    (cuGraphAddNode with CU_GRAPH_NODE_TYPE_CONDITIONAL, cuGraphConditionalHandleCreate; P-20..P-31).

    Its bodies are graphs the node owns, like a GRAPH node's child; the graph code walks into them (freeze,
    replay, DOT, exec update). Made by its own entry (the add creates the bodies), never set (P-29).
    """

    type, keyword, record = CONDITIONAL, "CONDITIONAL", ConditionalParams
    settable = False
    dot_flag, struct_names = DOT_CONDITIONAL_PARAMS, ("CUDA_CONDITIONAL_NODE_PARAMS", "cudaConditionalNodeParams")

    def describe(self, p: Any) -> str:
        """``IF handle 0x<handle>`` (``WHILE``, ``SWITCH``)."""
        return f"{COND_TYPE_NAMES.get(p.ctype, p.ctype)} handle 0x{p.handle.handle:x}"

    def update_problem(self, old: Any, new: Any, resolve: Callable[[int], Allocation | None],
                       flags: int) -> tuple[int, str] | None:
        """The conditional type and the number of bodies cannot change ("Changing node parameters is not
        supported", cuGraphExecUpdate limitations); the handle may be another graph's (its default value and
        flags come with it: "Conditional handle flags and default values are updated as part of the graph
        update"); the bodies are checked as graphs of their own (P-29). Result 5."""
        if old.ctype != new.ctype or len(old.bodies) != len(new.bodies):
            return (UPD_PARAMETERS_CHANGED,
                    f"a conditional node's type and body count cannot change ({COND_TYPE_NAMES.get(old.ctype)} with "
                    f"{len(old.bodies)} -> {COND_TYPE_NAMES.get(new.ctype)} with {len(new.bodies)}): changing "
                    "conditional node parameters is not supported (cuGraphExecUpdate)")
        return None

    def dot_pairs(self, p: Any, runtime: bool) -> list[Pair]:
        """handle, type, size, default value and flags of the handle, then each body graph."""
        h = p.handle
        return [("handle", addr(h.handle)), ("type", COND_TYPE_NAMES.get(p.ctype, p.ctype)), ("size", len(p.bodies)),
                ("defaultLaunchValue", h.default), ("flags", h.flags),
                *((f"phGraph_out[{i}]", f"graph_{b.gid}") for i, b in enumerate(p.bodies))]


KINDS[CONDITIONAL] = ConditionalKind()
