"""The parameter records of graph nodes, one per ``CUgraphNodeType`` the simulator creates (spec 9): what a node's
``params`` holds, never mutated once stored (a set-params call stores a new record). Their kinds, which give them
behaviour, are in :mod:`simcuda._core.graphs.nodes` (MEMCPY and MEMSET records live with the memory model,
:mod:`simcuda._core.memory.memory_model`)."""
from __future__ import annotations

from math import copysign
from typing import TYPE_CHECKING, Any

import attrs

from ..modules import arg_bits
from ..objects import Event

if TYPE_CHECKING:
    from ..memory.memory_model import Allocation
    from ..objects import Context, MemOp
    from .graph_model import Graph


# -------------------------------------------------------------------------- parameter records
class KernelParams:
    """The parameters of a KERNEL node (``CUDA_KERNEL_NODE_PARAMS``, spec 9): ``name``, ``func`` (the
    :class:`~simcuda._core.objects.Function`), ``grid`` and ``block`` (3-tuples), ``shmem`` (bytes),
    ``args`` (the decoded argument values, a list), ``priority`` and ``cooperative``.

    Never mutated once made (a set-params call stores a new record), so launches with the same
    parameters (:func:`same_values`) share one record: a million captured launches of one kernel
    cost one record. ``detail`` caches the launch log's description of the launch (filled on first
    replay, a pure function of the rest); ``packed`` the kernel engine's parameter buffer of ``args``
    (filled on the first run of its PTX, a pure function of ``args`` and the kernel's image).

    Hand-slotted rather than an ``attrs`` class: it is made on the hot path of a captured launch
    (``Driver.launch_kernel_fast``, whenever the parameters change), where a frozen ``attrs`` class
    costs about 2.7x as much to construct (its ``__init__`` goes through ``object.__setattr__``; measured
    with ``timeit``, 0.47 s against 0.17 s per 500,000), and ``detail`` must stay writable as a cache.
    """

    __slots__ = ("name", "func", "grid", "block", "shmem", "args", "priority", "cooperative", "detail", "packed")

    def __init__(self, func: Any, grid: tuple[int, ...], block: tuple[int, ...], shmem: int, args: list[Any],
                 priority: Any = 0,
                 cooperative: bool = False) -> None:
        self.name = func.name
        self.func = func
        self.grid = grid
        self.block = block
        self.shmem = shmem
        self.args = args
        self.priority = priority
        self.cooperative = cooperative
        self.detail: str | None = None
        self.packed: bytes | None = None  # the engine's parameter buffer of args (modules.ptxrun), once made


#: types whose equal values cannot be told apart (immutable, no identity of their own that shows); the marked
#: kernel arguments (:mod:`simcuda._core.modules.arg_bits`) among them, floats compared as floats
_FLOAT_MARKS = frozenset(m for m in arg_bits.MARKS if issubclass(m, float))
_VALUE_TYPES = frozenset({int, bool, str, bytes}) | (arg_bits.MARKS - _FLOAT_MARKS)


def same_values(a: Any, b: Any) -> bool:
    """True when sequences ``a`` and ``b`` are interchangeable as stored parameters: of one class, and item
    by item the same object, or equal values of one type in :data:`_VALUE_TYPES`, or equal floats (plain or
    marked, of one class) of the same sign (``1``, ``True`` and ``1.0`` differ, and so do ``0.0`` and ``-0.0``;
    other objects only by identity)."""
    if a is b:
        return True
    if a.__class__ is not b.__class__ or len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is y:
            continue
        t = x.__class__
        if t is not y.__class__:
            return False
        if t is float or t in _FLOAT_MARKS:
            if x != y or copysign(1.0, x) != copysign(1.0, y):
                return False
        elif t not in _VALUE_TYPES or x != y:
            return False
    return True


@attrs.frozen(slots=True)
class HostParams:
    """A HOST node's parameters (``CUDA_HOST_NODE_PARAMS(_v2)``, spec 3.9): ``fn`` an ``int`` function address
    (``void (*)(void*)``) or a Python callable (core use), ``user_data`` what it is called with, ``sync_mode``
    a ``CUhostTaskSyncMode`` (0 or 1)."""

    fn: Any
    user_data: Any = None
    sync_mode: int = 0


@attrs.frozen(slots=True)
class ChildGraphParams:
    """A GRAPH node's parameters: ``graph``, the embedded :class:`~simcuda._core.graphs.graph_model.Graph` (owned by the
    node: ``cuGraphChildGraphNodeGetGraph`` returns it, not a copy)."""

    graph: Graph


@attrs.frozen(slots=True)
class EventParams:
    """An EVENT_RECORD or WAIT_EVENT node's parameters: ``event``, the
    :class:`~simcuda._core.objects.Event` it records or waits for."""

    event: Event


@attrs.frozen(slots=True)
class EmptyParams:
    """An EMPTY node's parameters: none (use the one instance, :data:`NO_PARAMS`)."""


#: the parameters of every EMPTY node
NO_PARAMS = EmptyParams()


@attrs.frozen(slots=True)
class MemAllocParams:
    """A MEM_ALLOC node's parameters (``CUDA_MEM_ALLOC_NODE_PARAMS``, spec 9): ``alloc`` the graph-owned
    :class:`~simcuda._core.memory.memory_model.Allocation` (its fixed address), ``size`` in bytes, ``device`` the
    ordinal of the location, ``access`` the peer access descriptors ``(location type, id, flags)``."""

    alloc: Allocation
    size: int
    device: int = 0
    access: tuple[tuple[int, ...], ...] = ()


@attrs.frozen(slots=True)
class MemFreeParams:
    """A MEM_FREE node's parameters (``CUDA_MEM_FREE_NODE_PARAMS``): ``dptr``, the graph allocation it frees."""

    dptr: int


@attrs.frozen(slots=True)
class BatchMemOpParams:
    """A BATCH_MEM_OP node's parameters (``CUDA_BATCH_MEM_OP_NODE_PARAMS``), also those of
    ``cuStreamBatchMemOp`` and the WaitValue / WriteValue calls: ``ops`` a tuple of
    ``(CUstreamBatchMemOpType, address, value, flags)``, ``flags`` (0), ``ctx`` the context (or None)."""

    ops: tuple[MemOp, ...]
    flags: int = 0
    ctx: Context | None = None


@attrs.frozen(slots=True)
class ExtSemParams:
    """An EXT_SEMAS_SIGNAL / EXT_SEMAS_WAIT node's parameters: ``sems`` the ``CUexternalSemaphore`` handles,
    ``values`` per semaphore ``(fence value, keyed-mutex key, timeout in ms, flags)``."""

    sems: tuple[int, ...]
    values: tuple[tuple[int, ...], ...]
