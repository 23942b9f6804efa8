"""The oxicuda-style face's graphs: :class:`Graph`, :class:`GraphNode` and :class:`MemcpyDirection` (oxicuda-driver
0.1.4's ``graph`` module), a pure value type, and :class:`GraphExec`, which lowers a recorded graph onto the
simulated driver when it launches (or holds a captured one).

The names users take are importable from :mod:`simcuda.faces.oxicuda.stream_capture`; this module is its part for
graphs.
"""
from __future__ import annotations

import contextlib
import enum
import operator
import threading
import weakref
from collections.abc import Sequence
from typing import Any

import attrs

from ..._core.errors import DriverError
from ..._core.facade import Driver
from ..._core.memory.memory_model import DEVICE, HOST, CopyParams, MemsetParams
from .cuda_error import FACE_MODULE, U8, U32, USIZE, CudaError, check_uint, translated, try_driver
from .driver_objects import Stream, as_stream, destroy_exec, driver_available, in_context, scratch_buffer


# ================================================================================== value types
class MemcpyDirection(enum.Enum):
    """Direction of a graph memcpy node (oxicuda ``MemcpyDirection``).

    Members: ``HostToDevice``, ``DeviceToHost``, ``DeviceToDevice``. ``str()`` is oxicuda's
    Display: ``HtoD``, ``DtoH``, ``DtoD``. Values are the matching ``cudaMemcpyKind`` numbers
    (1, 2, 3), a Python choice: the Rust enum has no explicit discriminants. oxicuda has no
    host-to-host direction, so neither does this enum.
    """

    HostToDevice = 1
    DeviceToHost = 2
    DeviceToDevice = 3

    def __str__(self) -> str:
        return _DIRECTION_TEXT[self]

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"MemcpyDirection.{self.name}"


_DIRECTION_TEXT = {MemcpyDirection.HostToDevice: "HtoD", MemcpyDirection.DeviceToHost: "DtoH",
                   MemcpyDirection.DeviceToDevice: "DtoD"}
DIRECTION_KINDS = {MemcpyDirection.HostToDevice: (HOST, DEVICE, "cuMemcpyHtoDAsync"),
                    MemcpyDirection.DeviceToHost: (DEVICE, HOST, "cuMemcpyDtoHAsync"),
                    MemcpyDirection.DeviceToDevice: (DEVICE, DEVICE, "cuMemcpyDtoDAsync")}


def _dim3(value: Any, what: str) -> tuple[int, int, int]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 3:
        raise TypeError(f"{what} must be a (x, y, z) tuple of three u32, got {value!r}")
    x, y, z = (check_uint(v, U32, f"{what}[{i}]") for i, v in enumerate(value))
    return (x, y, z)


def _function_name(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"function_name must be a str, not {type(value).__name__}")
    return value


# the attrs converters of the node fields (named functions, so that the checker sees the field types)
def _grid(value: Any) -> tuple[int, int, int]:
    return _dim3(value, "grid")


def _block(value: Any) -> tuple[int, int, int]:
    return _dim3(value, "block")


def _shared_mem(value: Any) -> int:
    return check_uint(value, U32, "shared_mem")


def _byte_count(value: Any) -> int:
    return check_uint(value, USIZE, "size")


def _byte_value(value: Any) -> int:
    return check_uint(value, U8, "value")


def _direction(value: Any) -> MemcpyDirection:
    if not isinstance(value, MemcpyDirection):
        raise TypeError(f"direction must be a MemcpyDirection, not {type(value).__name__}")
    return value


class GraphNode:
    """One operation of a :class:`Graph` (oxicuda ``GraphNode``), a description without pointers.

    Variants (frozen, hashable records; ``str()`` is oxicuda's Display):

    * ``GraphNode.KernelLaunch(function_name, grid, block, shared_mem)`` (alias
      ``GraphNode.Kernel``): ``grid``/``block`` are ``(x, y, z)`` tuples of ``u32``, ``shared_mem``
      dynamic shared memory in bytes. Display ``Kernel(name, grid=(x,y,z), block=(x,y,z), smem=N)``.
    * ``GraphNode.Memcpy(direction, size)``: ``size`` in bytes. Display ``Memcpy(HtoD, N bytes)``.
    * ``GraphNode.Memset(size, value)``: ``size`` bytes of the byte ``value``. Display
      ``Memset(N bytes, value=0xab)``.
    * ``GraphNode.Empty``: the barrier node, a single value (as Rust's unit variant). Display ``Empty``.

    Errors (constructing): ``TypeError`` for a wrong type or a dimension that is not three
    integers; ``OverflowError`` for an integer outside ``u32`` / ``usize`` / ``u8``.
    """

    __slots__ = ()

    # set below: KernelLaunch, Kernel, Memcpy, Memset, Empty
    KernelLaunch: Any
    Kernel: Any
    Memcpy: Any
    Memset: Any
    Empty: Any


@attrs.frozen(repr=False)
class KernelLaunchNode(GraphNode):
    """``GraphNode::KernelLaunch { function_name, grid, block, shared_mem }``."""

    function_name: str = attrs.field(converter=_function_name)
    grid: tuple[int, int, int] = attrs.field(converter=_grid)
    block: tuple[int, int, int] = attrs.field(converter=_block)
    shared_mem: int = attrs.field(default=0, converter=_shared_mem)

    def __str__(self) -> str:
        g, b = self.grid, self.block
        return (f"Kernel({self.function_name}, grid=({g[0]},{g[1]},{g[2]}), block=({b[0]},{b[1]},{b[2]}), "
                f"smem={self.shared_mem})")

    def __repr__(self) -> str:
        return (f"GraphNode.KernelLaunch(function_name={self.function_name!r}, grid={self.grid!r}, "
                f"block={self.block!r}, shared_mem={self.shared_mem!r})")


@attrs.frozen(repr=False)
class MemcpyNode(GraphNode):
    """``GraphNode::Memcpy { direction, size }`` (``size`` in bytes)."""

    direction: MemcpyDirection = attrs.field(converter=_direction)
    size: int = attrs.field(converter=_byte_count)

    def __str__(self) -> str:
        return f"Memcpy({self.direction}, {self.size} bytes)"

    def __repr__(self) -> str:
        return f"GraphNode.Memcpy(direction={self.direction!r}, size={self.size!r})"


@attrs.frozen(repr=False)
class MemsetNode(GraphNode):
    """``GraphNode::Memset { size, value }`` (``size`` bytes of the byte ``value``)."""

    size: int = attrs.field(converter=_byte_count)
    value: int = attrs.field(converter=_byte_value)

    def __str__(self) -> str:
        return f"Memset({self.size} bytes, value=0x{self.value:02x})"

    def __repr__(self) -> str:
        return f"GraphNode.Memset(size={self.size!r}, value={self.value!r})"


@attrs.frozen(repr=False)
class _Empty(GraphNode):
    """``GraphNode::Empty``: a barrier with no work; use the value ``GraphNode.Empty``."""

    def __str__(self) -> str:
        return "Empty"

    def __repr__(self) -> str:
        return "GraphNode.Empty"

    def __reduce__(self) -> Any:
        return "_EMPTY"


for _cls, _name in ((KernelLaunchNode, "KernelLaunch"), (MemcpyNode, "Memcpy"), (MemsetNode, "Memset"),
                    (_Empty, "EmptyNode")):
    _cls.__name__ = _name
    _cls.__qualname__ = f"GraphNode.{_name}"
    setattr(GraphNode, _name, _cls)
    # shown (and pickled) as simcuda.faces.oxicuda.stream_capture.GraphNode.<name>; _EMPTY pickles by name here
    if _cls is not _Empty:
        _cls.__module__ = FACE_MODULE
_EMPTY = _Empty()
GraphNode.Kernel = KernelLaunchNode
GraphNode.Empty = _EMPTY


# ================================================================================== Graph
class Graph:
    """A DAG of :class:`GraphNode` with ``(from, to)`` dependency edges (oxicuda ``Graph``).

    Mirrors: ``oxicuda_driver::graph::Graph`` 0.1.x: a pure description. Nodes are addressed by
    their 0-based insertion index.

    Args:
        nodes: optional initial nodes (a Python extra, so that ``repr`` is valid Python).
        dependencies: optional initial ``(from, to)`` edges, checked like :meth:`add_dependency`.

    Errors: ``CudaError.InvalidValue`` for an initial edge out of range or a self-edge;
    ``TypeError`` for a node that is not a ``GraphNode``.

    ``str(g)`` is oxicuda's Display ``Graph(N nodes, M deps)``. ``cu_graph`` is the simulated
    ``CUgraph`` handle that ``cuStreamEndCapture`` returned when the graph came from
    :meth:`StreamCapture.end` (``None`` otherwise); it is a snapshot and does not follow later edits.
    """

    __slots__ = ("_nodes", "_deps", "cu_graph")

    def __init__(self, nodes: Sequence[GraphNode] | None = None,
                 dependencies: Sequence[tuple[int, int]] | None = None) -> None:
        self._nodes: list[GraphNode] = []
        self._deps: list[tuple[int, int]] = []
        self.cu_graph: int | None = None
        for n in nodes or ():
            if not isinstance(n, GraphNode):
                raise TypeError(f"Graph nodes must be GraphNode values, got {type(n).__name__}")
            self._nodes.append(n)
        for edge in dependencies or ():
            a, b = edge
            self.add_dependency(a, b)

    @classmethod
    def new(cls) -> Graph:
        """An empty graph (oxicuda ``Graph::new``)."""
        return cls()

    @classmethod
    def default(cls) -> Graph:
        """An empty graph (oxicuda ``Graph::default``)."""
        return cls()

    def clone(self) -> Graph:
        """An independent copy (oxicuda derives ``Clone``); ``cu_graph`` is copied too."""
        g = Graph()
        g._nodes = list(self._nodes)
        g._deps = list(self._deps)
        g.cu_graph = self.cu_graph
        return g

    __copy__ = clone

    def _add(self, node: GraphNode) -> int:
        self._nodes.append(node)
        return len(self._nodes) - 1

    def add_kernel_node(self, function_name: str, grid: tuple[int, int, int], block: tuple[int, int, int],
                        shared_mem: int) -> int:
        """Append a kernel launch node (oxicuda ``add_kernel_node``).

        Args:
            function_name: the kernel's entry name.
            grid: grid dimensions ``(x, y, z)`` in blocks (``u32`` each).
            block: block dimensions ``(x, y, z)`` in threads (``u32`` each).
            shared_mem: dynamic shared memory in bytes (``u32``).

        Returns: the new node's index (``int``).
        Errors: ``TypeError`` / ``OverflowError`` for argument types (nothing is appended). Zero or
        oversized dimensions are accepted here, as in oxicuda; the simulated driver rejects them
        with ``InvalidValue`` when the graph is launched.
        """
        return self._add(KernelLaunchNode(function_name, grid, block, shared_mem))

    def add_memcpy_node(self, direction: MemcpyDirection, size: int) -> int:
        """Append a memcpy node of ``size`` bytes (oxicuda ``add_memcpy_node``). Returns its index.

        Errors: ``TypeError`` (direction not a ``MemcpyDirection``); ``OverflowError`` (size not ``usize``).
        """
        return self._add(MemcpyNode(direction, size))

    def add_memset_node(self, size: int, value: int) -> int:
        """Append a node setting ``size`` bytes to the byte ``value`` (oxicuda ``add_memset_node``).

        Returns its index. Errors: ``TypeError``; ``OverflowError`` (size not ``usize``, value not ``u8``).
        """
        return self._add(MemsetNode(size, value))

    def add_empty_node(self) -> int:
        """Append an empty (barrier) node (oxicuda ``add_empty_node``). Returns its index."""
        return self._add(_EMPTY)

    def add_dependency(self, from_: int, to: int) -> None:
        """Add the edge ``from_ -> to``: ``to`` runs after ``from_`` (oxicuda ``add_dependency``).

        Args:
            from_: index of the node that runs first.
            to: index of the node that waits for it.

        Errors: ``CudaError.InvalidValue`` when an index is not in ``range(node_count())`` (negative
        indices included) or ``from_ == to``; ``TypeError`` for a non-integer index.

        Fidelity: as in oxicuda, duplicate edges are kept (each counts in :meth:`dependency_count`)
        and cycles are not detected here, only by :meth:`topological_sort` / :meth:`instantiate`.
        """
        a = _index(from_, "from")
        b = _index(to, "to")
        n = len(self._nodes)
        if not (0 <= a < n and 0 <= b < n):
            raise CudaError.InvalidValue(
                f"add_dependency({a}, {b}): the graph has {n} node(s), so indices must be in 0..{n - 1}")
        if a == b:
            raise CudaError.InvalidValue(
                f"add_dependency({a}, {b}): a node cannot depend on itself")
        self._deps.append((a, b))

    def node_count(self) -> int:
        """Number of nodes (oxicuda ``node_count``)."""
        return len(self._nodes)

    def dependency_count(self) -> int:
        """Number of dependency edges, duplicates included (oxicuda ``dependency_count``)."""
        return len(self._deps)

    def nodes(self) -> list[GraphNode]:
        """The nodes in insertion order (a new list; oxicuda returns a slice)."""
        return list(self._nodes)

    def dependencies(self) -> list[tuple[int, int]]:
        """The ``(from, to)`` edges in insertion order (a new list; oxicuda returns a slice)."""
        return list(self._deps)

    def get_node(self, index: int) -> GraphNode | None:
        """The node at ``index``, or ``None`` when out of range, negative included (oxicuda ``Option``)."""
        i = _index(index, "index")
        return self._nodes[i] if 0 <= i < len(self._nodes) else None

    def topological_sort(self) -> list[int]:
        """Node indices in an order that respects every edge (oxicuda ``topological_sort``).

        Returns: a list of every index once. The algorithm is oxicuda's: Kahn's algorithm whose work
        list starts as the in-degree-0 nodes in index order and is used as a *stack* (last ready
        first), edges visited in insertion order. For ``0 -> 1, 0 -> 2`` this gives ``[0, 2, 1]``.

        Errors: ``CudaError.InvalidValue`` when the edges form a cycle (the why names the nodes left).
        """
        n = len(self._nodes)
        indeg = [0] * n
        adj: list[list[int]] = [[] for _ in range(n)]
        for a, b in self._deps:
            adj[a].append(b)
            indeg[b] += 1
        stack = [i for i in range(n) if indeg[i] == 0]
        out: list[int] = []
        while stack:
            node = stack.pop()
            out.append(node)
            for nxt in adj[node]:
                if indeg[nxt] > 0:
                    indeg[nxt] -= 1
                    if indeg[nxt] == 0:
                        stack.append(nxt)
        if len(out) != n:
            done = set(out)
            left = [i for i in range(n) if i not in done]
            raise CudaError.InvalidValue(
                f"the graph has a dependency cycle: nodes {left} can never become ready")
        return out

    def instantiate(self) -> GraphExec:
        """Check the graph is a DAG and freeze a copy of it (oxicuda ``instantiate``).

        Returns: a :class:`GraphExec` holding a snapshot of this graph (later edits do not affect
        it) and its :meth:`topological_sort` order.

        Errors: ``CudaError.InvalidValue`` on a cycle.

        Fidelity: as in oxicuda 0.1, no driver is involved here; the simulated ``CUgraph`` and
        ``CUgraphExec`` are built on the first :meth:`GraphExec.launch` on each driver/context.
        """
        order = self.topological_sort()
        return GraphExec._make(self.clone(), order)

    def __str__(self) -> str:
        return f"Graph({len(self._nodes)} nodes, {len(self._deps)} deps)"

    def __repr__(self) -> str:
        return f"Graph(nodes={self._nodes!r}, dependencies={self._deps!r})"

    def __len__(self) -> int:
        return len(self._nodes)


def _index(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            return operator.index(value)
        except TypeError:
            raise TypeError(f"{what} must be an integer node index, not {type(value).__name__}") from None
    return value


def _ptx_for(name: str) -> bytes:
    return (".version 8.5\n.target sm_90\n.address_size 64\n"
            f"// simcuda oxicuda face: a stand-in module whose only entry is {name!r}\n"
            f".visible .entry {name}()\n{{\n\tret;\n}}\n").encode()


#: the kernel arguments of every launch this face makes (none; never mutated: the driver keeps it as given)
NO_ARGS: list[Any] = []


def _no_driver() -> None:
    """Stands for a dead weak reference to a driver: none launched yet (``StreamCapture._last_kernel``)."""
    return None


def immutable_launch(name: Any, grid: Any, block: Any, shared_mem: Any) -> bool:
    """Whether ``record_kernel`` arguments are immutable values (a ``str``, two tuples of three ``int`` and
    an ``int``), so that the same objects again convert to the same node."""
    return (type(name) is str and type(shared_mem) is int and type(grid) is tuple and type(block) is tuple
            and all(type(v) is int for v in grid) and all(type(v) is int for v in block))


def kernel_function(drv: Driver, ctx: int, name: str) -> int:
    """The simulated CUfunction for kernel ``name`` in ``ctx`` (a one-entry module, loaded once)."""
    sc = scratch_buffer(drv)
    key = (ctx, name)
    h = sc.functions.get(key)
    if h is None:
        with sc.lock:
            h = sc.functions.get(key)
            if h is None:
                with in_context(drv, ctx, relaxed=True):
                    try:
                        mod = drv.module_load_data(_ptx_for(name))
                    except DriverError as e:
                        raise DriverError(int(e.code), f"kernel name {name!r}: {e.why}") from None
                    h = drv.module_get_function(mod, name)  # 500 NOT_FOUND for a non-identifier name
                sc.functions[key] = h
    return h


def _device_buffer(drv: Driver, ctx: int, size: int, slot: int) -> int:
    """A scratch device allocation of at least ``size`` bytes (``slot`` tells the two DtoD sides apart)."""
    sc = scratch_buffer(drv)
    key = (ctx, size, slot)
    p = sc.device.get(key)
    if p is None or not drv.is_device_pointer(p):
        with sc.lock:
            with in_context(drv, ctx, relaxed=True):
                p = drv.mem_alloc(max(size, 1))
            sc.device[key] = p
    return p


def _host_buffer(drv: Driver, ctx: int, size: int) -> int:
    """A scratch pinned host buffer (``cuMemAllocHost``) of at least ``size`` bytes."""
    sc = scratch_buffer(drv)
    key = (ctx, size)
    p = sc.host.get(key)
    if p is None:
        with sc.lock:
            with in_context(drv, ctx, relaxed=True):
                p = drv.mem_alloc_host(max(size, 1))
            sc.host[key] = p
    return p


def copy_params(drv: Driver, ctx: int, direction: MemcpyDirection, size: int) -> tuple[CopyParams, str]:
    src_kind, dst_kind, call = DIRECTION_KINDS[direction]
    if direction is MemcpyDirection.DeviceToDevice:
        src, dst = _device_buffer(drv, ctx, size, 1), _device_buffer(drv, ctx, size, 0)
    elif direction is MemcpyDirection.HostToDevice:
        src, dst = _host_buffer(drv, ctx, size), _device_buffer(drv, ctx, size, 0)
    else:
        src, dst = _device_buffer(drv, ctx, size, 0), _host_buffer(drv, ctx, size)
    return CopyParams(src_kind, src, dst_kind, dst, size), call


def memset_params(drv: Driver, ctx: int, size: int, value: int) -> MemsetParams:
    return MemsetParams(_device_buffer(drv, ctx, size, 0), value, 1, size)


# ================================================================================== GraphExec
class GraphExec:
    """An instantiated graph (oxicuda ``GraphExec``), made by :meth:`Graph.instantiate`.

    Mirrors: ``oxicuda_driver::graph::GraphExec`` 0.1.x: ``launch``, ``graph``,
    ``execution_order``, ``node_count``. Not constructible directly.

    ``str(x)`` is ``GraphExec(N nodes, order=[...])`` and ``repr(x)`` follows oxicuda's ``Debug``
    (oxicuda 0.1 has no Display for it; the ``str`` is a Python extra).
    """

    __slots__ = ("_graph", "_order", "_built", "_lock", "_backed", "_raw", "__weakref__")
    _graph: Graph
    _order: list[int]
    _built: dict[tuple[int, int], tuple[Driver, int, int]]  # (id(driver), ctx) -> (driver, graph, exec)
    _lock: threading.Lock
    _backed: bool
    _raw: tuple[Driver, int, int] | None  # a captured exec's (driver, CUgraph, CUgraphExec), owned

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("GraphExec is made by Graph.instantiate()")

    @classmethod
    def _make(cls, graph: Graph, order: list[int]) -> GraphExec:
        x = object.__new__(cls)
        x._graph = graph
        x._order = order
        x._built = {}  # (id(driver), ctx) -> (driver, graph handle, exec handle)
        x._lock = threading.Lock()
        x._backed = driver_available()
        x._raw = None
        return x

    @classmethod
    def _captured(cls, graph: Graph, order: list[int], drv: Driver, hg: int, hexec: int) -> GraphExec:
        """The exec :meth:`StreamGraphCapture.end` returns: it owns the captured ``CUgraph`` and its
        ``CUgraphExec`` (destroyed when it goes away, as oxicuda's ``Drop`` does)."""
        x = cls._make(graph, order)
        x._backed = True
        x._raw = (drv, hg, hexec)
        weakref.finalize(x, destroy_exec, weakref.ref(drv), hg, hexec)
        return x

    def is_driver_backed(self) -> bool:
        """Whether a launch goes through a (simulated) ``CUgraphExec`` (oxicuda 0.5 ``is_driver_backed``).

        Mirrors: ``GraphExec::is_driver_backed`` of oxicuda-driver 0.5 (``crates/oxicuda-driver/src/graph.rs``:
        ``raw_exec.is_some()``). True for the exec of :meth:`StreamGraphCapture.end`, and for one made by
        :meth:`Graph.instantiate` while the current simulated driver was usable (0.5 builds its driver graph
        there; here the simulated ``CUgraphExec`` is built at the first :meth:`launch` on each context, the
        same graph); False when the driver was unavailable (``Driver(available=False)``: 0.5's CPU-only
        exec, whose :meth:`launch` fails).
        """
        return self._backed

    def graph(self) -> Graph:
        """A copy of the graph this exec was made from (oxicuda returns a reference)."""
        return self._graph.clone()

    def execution_order(self) -> list[int]:
        """The cached topological order, node indices (oxicuda ``execution_order``); a new list."""
        return list(self._order)

    def node_count(self) -> int:
        """Number of nodes that a launch runs (oxicuda ``node_count``)."""
        return self._graph.node_count()

    def launch(self, stream: Stream | int) -> None:
        """Replay the graph on ``stream`` through the simulated driver (``cuGraphLaunch``).

        Mirrors: ``GraphExec::launch(&Stream)``, which in oxicuda 0.1 only checks that a driver loads
        and would call ``cuGraphLaunch`` on a real system. Here it really does, on the simulated
        driver of ``stream``: on the first launch per driver and context it lowers the graph to a
        simulated ``CUgraph`` (kernel nodes on a one-entry module named after the kernel, memcpy
        and memset nodes on scratch buffers of the node's size, empty nodes, one edge per distinct
        dependency) and instantiates it; every launch then calls ``cuGraphLaunch``. In immediate
        progression the nodes run at once, in :meth:`execution_order` (the driver nodes are created
        in that order, so the replay order is exactly it); each shows up in ``driver.launch_log``
        with ``source == "graph"`` and ``node`` equal to its position in :meth:`execution_order`.

        Args:
            stream: a :class:`Stream` or an ``int`` stream handle.

        Errors: ``NotInitialized`` when the driver is unavailable; ``InvalidValue`` for a kernel node
        with a zero or oversized dimension; ``NotFound`` for a kernel name that is not a PTX
        identifier; ``OutOfMemory`` when scratch does not fit the simulated device;
        ``StreamCaptureUnsupported`` when ``stream`` is capturing (its capture is invalidated,
        spec 3.8); any other driver error as its variant.
        """
        s = as_stream(stream)
        drv = s.driver
        try_driver(drv)
        raw = self._raw
        if raw is not None:  # a captured exec: its own CUgraphExec, on the driver that captured it
            with translated():
                raw[0].graph_launch(raw[2], s.raw())
            return
        with translated():
            ctx = s.context_handle()
            hexec = self._exec_for(drv, ctx)
            drv.graph_launch(hexec, s.raw())

    def _exec_for(self, drv: Driver, ctx: int) -> int:
        key = (id(drv), ctx)
        with self._lock:
            got = self._built.get(key)
            if got is not None and got[0] is drv:
                return got[2]
            hg, hexec = self._lower(drv, ctx)
            self._built[key] = (drv, hg, hexec)
            return hexec

    def _lower(self, drv: Driver, ctx: int) -> tuple[int, int]:
        nodes = self._graph._nodes
        hg = 0
        try:
            with in_context(drv, ctx, relaxed=True):
                hg = drv.graph_create(0)
                handle: dict[int, int] = {}
                for i in self._order:
                    n = nodes[i]
                    if isinstance(n, KernelLaunchNode):
                        fn = kernel_function(drv, ctx, n.function_name)
                        h = drv.graph_add_kernel_node(hg, [], fn, n.grid, n.block, n.shared_mem, [])
                    elif isinstance(n, MemcpyNode):
                        p, _call = copy_params(drv, ctx, n.direction, n.size)
                        h = drv.graph_add_memcpy_node(hg, [], p)
                    elif isinstance(n, MemsetNode):
                        h = drv.graph_add_memset_node(hg, [], memset_params(drv, ctx, n.size, n.value))
                    else:
                        h = drv.graph_add_empty_node(hg, [])
                    handle[i] = h
                froms, tos, seen = [], [], set()
                for a, b in self._graph._deps:
                    if (a, b) not in seen:  # the driver refuses duplicate edges; they add no ordering
                        seen.add((a, b))
                        froms.append(handle[a])
                        tos.append(handle[b])
                if froms:
                    drv.graph_add_dependencies(hg, froms, tos, [])
                return hg, drv.graph_instantiate(hg, 0)
        except BaseException:
            if hg:
                with contextlib.suppress(DriverError):
                    drv.graph_destroy(hg)
            raise

    def __str__(self) -> str:
        return f"GraphExec({self.node_count()} nodes, order={self._order})"

    def __repr__(self) -> str:
        backed = "true" if self._backed else "false"
        return (f"GraphExec {{ graph: {self._graph!r}, execution_order: {self._order!r}, "
                f"driver_backed: {backed} }}")
