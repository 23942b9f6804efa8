"""Graphs, nodes, edges, executable graphs, replay, exec-update pairing and DOT (spec 1, 4.5, 9, 9.1).

This module knows nothing of capture rules or faces; it never raises ``DriverError`` itself
(the driver turns the few failures found here, a cycle or an update mismatch, into codes).

Theory of operation
-------------------
A :class:`Graph` keeps its nodes and edges in creation order (``cuGraphGetNodes`` and
``cuGraphGetEdges`` return them in that order [I], spec 4.5). A node's ``local_id`` is its 0-based
creation index in its graph [O]. Edges carry edge data as a tuple ``(from_port, to_port, type)``;
``ZERO_ED`` is an ordinary full dependency. Each graph counts its live nodes per type, so the
questions the rules ask ("does it hold MEM_ALLOC nodes?") cost O(1).

Edges cost O(1) each to add, find and remove, whatever the graph's shape (chain, fan-out, fan-in):

* ``Graph.edges`` is an insertion-ordered set (a dict ``Edge -> None``): creation order for
  ``cuGraphGetEdges`` (spec 4.5), O(1) removal.
* ``Node.ins`` / ``Node.outs`` hold the node's edges in edge order: the shared empty tuple
  (``NO_EDGES``) while there are none; the :class:`Edge` itself for one edge (an edge iterates as the
  one-edge sequence of itself, so a chain costs no container per node); a list from the
  second edge on; the first removal from a list longer than ``_SMALL`` turns it into an
  insertion-ordered dict, so removing from a 100k fan-out is O(1) per edge too. Readers only iterate
  them, take ``len`` or test emptiness, which every form supports.
* *Chain edges* (the compact form): a captured node whose only dependency is one full dependency
  (edge data ``ZERO_ED``) on one node, the common case of a capture, gets no :class:`Edge` object and
  no entry in ``Graph.edges``: its raw in-slot ``Node._ins`` holds the source node itself, and the
  source's raw out-slot ``Node._outs`` holds the target node where it would hold the edge (alone or
  as an element of its list or dict). Such an edge sits in the graph's edge order just after its
  target node's creation: each entry of the raw edge set ``Graph._edges`` records, while chain edges
  may exist (``Graph.lazy``), the graph's ``next_local`` when it was added, and the chain edge of node
  ``L`` precedes exactly the entries stamped above ``L``. The public views materialise: reading
  ``Node.ins``, ``Node.outs`` or ``Graph.edges`` first turns every chain edge of the graph into an
  ordinary :class:`Edge` in place (:func:`solid`, O(nodes + edges) once, the order kept), as do the
  pair index (so every edit by handle pair) and :func:`remove_edge`; the graph keeps the ordinary
  form until a capture adds chain edges again. The walks (topological order, topology, freeze, exec
  update, ancestors, the unjoined rule, DOT, clone, ``cuGraphGetEdges`` and the per-node queries)
  read both forms through :func:`in_edges`, :func:`out_edges` and :func:`edge_list` without
  materialising; :func:`detach_node` unlinks both forms. Only a capture makes chain edges
  (:func:`add_chain_edge` and its inline copy in ``capture.enqueue_kernel``), and only while the graph
  has no pair index.
* ``Graph.pairs`` maps ``(src node, dst node)`` to the edge between them, for the duplicate checks of
  ``cuGraphAddDependencies`` and the look-ups of ``cuGraphRemoveDependencies``. It is built on first
  use (:func:`pair_index`, linear once) and kept up to date afterwards, so graphs nobody edits that
  way (captures, clones) never pay its memory. The driver refuses a second edge between the same two
  nodes, but a capture whose dependency list names a node twice (``cuStreamUpdateCaptureDependencies``
  SET, ``cuStreamBeginCaptureToGraph``) still gives its next node two edges from it; the index then
  holds the first and ``Graph.n_dup`` counts the others, so look-ups stay exact in that rare case.

Every walk over nested child graphs (discard, deep type checks, freeze, replay, clone, exec update,
DOT) is iterative, with an explicit stack, so nesting depth is limited only by memory, never by
Python's recursion limit; each visits graphs and nodes in the order the recursive definition would
(the same handles, graph ids, log order, DOT text and first error).

Node parameters are the records of :mod:`simcuda._core.nodes`, one per node kind (never mutated once
stored; a set-params call stores a new record), and everything that differs between kinds (description,
replay, DOT parameter blocks, exec-update checks) is asked of the kind's :class:`~simcuda._core.nodes.NodeKind`
in :data:`~simcuda._core.nodes.KINDS`; this module knows the structure only (a GRAPH node's child graph).

Instantiation *freezes* a graph into a :class:`Frozen` body: ``ExecNode`` records in a topological
order (creation order breaking ties, spec 9), plus what later checks need: the creation-order
topology (for ``cuGraphExecUpdate`` pairing, Programming Guide "Whole Graph Update"), the number
of exit nodes, and the graph allocations the body maps and frees. An ``ExecNode`` shares its node's
parameter object (parameters are never mutated once stored, so a later set-params call on the graph,
which stores a new object, does not reach the exec). Freezing, the topological sort and replay are
linear in nodes + edges and make at most one long-lived object per node (the topology lives in flat
arrays; a body of kernel nodes only, as a loop of captured launches makes, none: see :class:`Frozen`),
which keeps Python's garbage collector cheap on million-node graphs: when creation order is already
topological (every graph capture makes, and most hand-built ones) the sort is a single pass;
otherwise Kahn's algorithm with a heap keyed by local id. Replay (:func:`run_frozen`) walks the body
once against simulated memory.
"""
from __future__ import annotations

import ctypes
import heapq
from array import array
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from . import nodes as nodes_mod
from .nodes import BATCH_MEM_OP as BATCH_MEM_OP
from .nodes import (
    COND_WHILE,
    DOT_ALL,
    DOT_EXTRA_TOPO_INFO,
    DOT_HANDLES,
    DOT_KERNEL_ATTRIBUTES,
    DOT_RUNTIME_TYPES,
    DOT_VERBOSE,
    KINDS,
    NO_PARAMS,
    UPD_NODE_TYPE_CHANGED,
    UPD_TOPOLOGY_CHANGED,
    NodeKind,
    addr,
    cond_pick,
)
from .nodes import CONDITIONAL as CONDITIONAL
from .nodes import EMPTY as EMPTY
from .nodes import EVENT_RECORD as EVENT_RECORD
from .nodes import EXT_SEMAS_SIGNAL as EXT_SEMAS_SIGNAL
from .nodes import EXT_SEMAS_WAIT as EXT_SEMAS_WAIT
from .nodes import GRAPH as GRAPH
from .nodes import HOST as HOST
from .nodes import KERNEL as KERNEL
from .nodes import MEM_ALLOC as MEM_ALLOC
from .nodes import MEM_FREE as MEM_FREE
from .nodes import MEMCPY as MEMCPY
from .nodes import MEMOP_WAIT_VALUE_32 as MEMOP_WAIT_VALUE_32
from .nodes import MEMOP_WRITE_VALUE_32 as MEMOP_WRITE_VALUE_32
from .nodes import MEMSET as MEMSET
from .nodes import TYPE_KEYWORDS as TYPE_KEYWORDS
from .nodes import UPD_ERROR as UPD_ERROR
from .nodes import UPD_NOT_SUPPORTED as UPD_NOT_SUPPORTED
from .nodes import UPD_SUCCESS as UPD_SUCCESS
from .nodes import UPDATE_NAMES as UPDATE_NAMES
from .nodes import WAIT_EVENT as WAIT_EVENT
from .nodes import KernelParams as KernelParams
from .nodes import same_values as same_values
from .objects import UserRefs, retain_refs

if TYPE_CHECKING:
    from .capture import CaptureSequence
    from .memory import Allocation
    from .objects import Context

class GraphMaker(Protocol):
    """What makes graphs and nodes, each with a handle (:class:`simcuda._core.handles.Handles` is one)."""

    def new_graph(self, ctx: Context | None = None) -> Graph: ...
    def new_node(self, graph: Graph, ntype: int, params: Any) -> Node: ...


class GraphHost(Protocol):
    """What the graph model's copies (:func:`clone_graph`, :func:`graph_from_frozen`) use of a driver."""

    @property
    def handles(self) -> GraphMaker: ...


class RunHost(nodes_mod.ReplayHost, Protocol):
    """What a replay (:func:`run_frozen`) uses of a driver: what its node kinds replay against
    (:class:`simcuda._core.nodes.ReplayHost`) and the simulated clock it advances (spec 16)."""

    _clock_ms: float


# The node types, update results and kernel records are defined with the kinds (:mod:`simcuda._core.nodes`);
# the names imported ``as`` themselves above are re-exported for the code and tests that take them from here.

ZERO_ED = (0, 0, 0)

#: node types an exec can enable and disable (Programming Guide, "Individual node enable")
ENABLE_TYPES = tuple(t for t, k in KINDS.items() if k.can_disable)
#: node types a DEVICE_LAUNCH graph may hold (cuGraphInstantiate docstring)
DEVICE_LAUNCH_TYPES = tuple(t for t, k in KINDS.items() if k.device_launch)

# CUgraphInstantiateResult
INST_SUCCESS, INST_ERROR, INST_INVALID_STRUCTURE, INST_NODE_OPERATION_NOT_SUPPORTED = 0, 1, 2, 3
INST_MULTIPLE_CTXS_NOT_SUPPORTED = 4
# CUgraphInstantiate_flags that the rules name
INSTANTIATE_UPLOAD = 2  # CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD: the params form only (spec 16, 9)

HOST_FN_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
#: CUstreamCallback: void (*)(CUstream hStream, CUresult status, void *userData)
STREAM_CALLBACK_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)


def is_full(ed: tuple[int, int, int]) -> bool:
    """A full dependency: type DEFAULT and from_port 0 (spec 4.4)."""
    return ed[2] == 0 and ed[0] == 0


#: the ``ins`` / ``outs`` of a node without edges (see the module docstring)
NO_EDGES: tuple[()] = ()


class Edge:
    """One dependency ``src -> dst`` with its edge data ``(from_port, to_port, type)``.

    An edge is also the one-edge sequence of itself (``iter``, ``len``): the form ``Node.ins`` and
    ``Node.outs`` take for a single edge (see the module docstring). A chain edge (the compact form, see
    the module docstring) has no Edge until something materialises it (:func:`solid`).
    """

    __slots__ = ("src", "dst", "ed")

    def __init__(self, src: Node, dst: Node, ed: tuple[int, int, int]) -> None:
        self.src, self.dst, self.ed = src, dst, ed

    def __iter__(self) -> Any:
        """Iterate as the one-edge sequence ``(self,)``."""
        return iter((self,))

    def __len__(self) -> int:
        """1: the length of the one-edge sequence."""
        return 1


class Node:
    """A graph node: handle, owning graph, local id, ``CUgraphNodeType`` and parameters.

    :func:`simcuda._core.capture.enqueue_kernel` sets the slots itself (no ``__init__`` call) for a
    captured launch: a new slot goes there too (tests/core/test_capture_fast_path.py checks).

    ``_ins`` / ``_outs`` are the raw edge containers, which may hold chain edges in the compact form
    (a node in place of an edge, see the module docstring); the ``ins`` / ``outs`` properties return
    them with every chain edge of the graph materialised first. Code of the core reads the raw slots
    through :func:`in_edges` / :func:`out_edges` (or checks the forms itself) and never materialises.
    """

    __slots__ = ("handle", "graph", "local_id", "type", "params", "_ins", "_outs", "destroyed")

    def __init__(self, handle: int, graph: Graph, local_id: int, ntype: int, params: Any) -> None:
        self.handle = handle
        self.graph = graph
        self.local_id = local_id
        self.type = ntype
        self.params = params
        self._ins: Any = NO_EDGES  # (), an Edge, a list or a dict of edges, or a node: see the module docstring
        self._outs: Any = NO_EDGES  # (), an Edge or node, a list or a dict of edges and nodes
        self.destroyed = False

    @property
    def ins(self) -> Any:
        """The node's dependency edges in edge order (NO_EDGES, an Edge, a list or a dict of Edges), every chain
        edge of its graph materialised first (:func:`solid`)."""
        if self.graph.lazy:
            solid(self.graph)
        return self._ins

    @property
    def outs(self) -> Any:
        """The node's dependent edges in edge order (as :attr:`ins`), chain edges materialised first."""
        if self.graph.lazy:
            solid(self.graph)
        return self._outs

    @property
    def gid(self) -> int:
        """The id of the node's graph."""
        return self.graph.gid

    def describe(self) -> str:
        """Type-specific text used by DOT labels, summaries and the launch log."""
        return describe(self.type, self.params)


def describe(ntype: int, p: Any) -> str:
    """A one-line description of parameters ``p`` of a node of type ``ntype`` (its kind's
    :meth:`~simcuda._core.nodes.NodeKind.describe`; the type keyword for a type without a kind)."""
    kind = KINDS.get(ntype)
    return kind.describe(p) if kind is not None else TYPE_KEYWORDS.get(ntype, str(ntype))


class Graph:
    """A graph (``CUgraph``): nodes and edges in creation order, plus what the rules read.

    ``removed_edges`` lists, in removal order, the edges removed by ``cuGraphRemoveDependencies``
    whose two nodes are both still alive (spec 4.4: they still count for the unjoined rule); edges
    cut by ``cuGraphDestroyNode`` are not remembered.

    ``type_counts`` counts live nodes per type, KERNEL excepted (kernels, the bulk of large graphs,
    cost no count: their number is ``n_live`` minus the others); ``n_dead`` counts destroyed nodes.

    ``_edges`` is the raw edge set: the graph's :class:`Edge` objects in creation order, each mapped to
    None, or, when added while ``lazy`` (chain edges may exist), to the graph's ``next_local`` then
    (see the module docstring); the :attr:`edges` view materialises the chain edges first.
    """

    __slots__ = ("handle", "gid", "nodes", "_edges", "_removed", "capture_target_of", "live_execs",
                 "destroyed", "owner_node", "ctx", "next_local", "type_counts", "n_dead", "clone_map", "moved",
                 "pairs", "n_dup", "user_refs", "lazy", "cond_handles")

    def __init__(self, handle: int, gid: int, ctx: Context | None = None) -> None:
        self.handle = handle
        self.gid = gid
        self.nodes: list[Node] = []
        self._edges: dict[Edge, int | None] = {}  # insertion-ordered set: O(1) removal (values: stamps)
        self._removed: list[Edge] = []
        self.capture_target_of: CaptureSequence | None = None
        self.live_execs = 0
        self.destroyed = False
        self.owner_node: Node | None = None  # set for a child graph owned by a GRAPH node
        self.ctx = ctx
        self.next_local = 0
        self.type_counts: dict[int, int] = {}  # KERNEL excepted: see the class docstring
        self.n_dead = 0
        self.clone_map: dict[int, Node] | None = None  # original node handle -> node (cuGraphClone)
        self.moved = False  # moved into a child-graph node (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE)
        self.pairs: dict[tuple[Node, Node], Edge] | None = None  # built on first use: pair_index()
        self.n_dup = 0  # live edges whose (src, dst) pair already had an edge (capture only)
        self.user_refs: UserRefs | None = None  # user-object references the graph owns (cuGraphRetainUserObject)
        self.lazy = False  # chain edges (the compact form) may exist: see the module docstring
        self.cond_handles: list[Any] | None = None  # CondHandles made for this graph (P-20)

    @property
    def edges(self) -> dict[Edge, Any]:
        """Every edge in creation order, as an insertion-ordered set (``Edge -> None``), chain edges
        materialised first (:func:`solid`); read only (the edge functions of this module change it)."""
        if self.lazy:
            solid(self)
        return self._edges

    @property
    def removed_edges(self) -> list[Edge]:
        """Edges removed by graph edits whose nodes are both alive, in removal order (spec 4.4).

        Linear in the edges ever removed; entries whose node was destroyed since are dropped for good.
        """
        kept = [e for e in self._removed if not (e.src.destroyed or e.dst.destroyed)]
        if len(kept) != len(self._removed):
            self._removed = kept
        return list(kept)

    @removed_edges.setter
    def removed_edges(self, edges: list[Edge]) -> None:
        """Replace the remembered removed edges (in removal order)."""
        self._removed = list(edges)

    @property
    def n_live(self) -> int:
        """The number of live nodes."""
        return len(self.nodes) - self.n_dead

    def add_node(self, n: Node) -> None:
        """Append ``n`` (creation order) and count it."""
        self.nodes.append(n)
        if n.type != KERNEL:
            self.type_counts[n.type] = self.type_counts.get(n.type, 0) + 1

    def drop_node(self, n: Node) -> None:
        """Mark ``n`` destroyed (its edges must already be gone) and uncount it."""
        n.destroyed = True
        if n.type != KERNEL:
            self.type_counts[n.type] -= 1
        self.n_dead += 1

    def live_nodes(self) -> list[Node]:
        """Live nodes in creation order."""
        if not self.n_dead:
            return list(self.nodes)
        return [n for n in self.nodes if not n.destroyed]

    def count_of(self, t: int) -> int:
        """The number of live nodes of type ``t`` directly in this graph (O(1))."""
        if t == KERNEL:
            return self.n_live - sum(self.type_counts.values())
        return self.type_counts.get(t, 0)

    def has_type(self, *types: int) -> bool:
        """True when a live node of one of ``types`` is directly in this graph (O(1))."""
        return any(self.count_of(t) for t in types)

    def has_type_deep(self, *types: int) -> bool:
        """As :meth:`has_type`, looking into child graphs too (iteratively, any nesting depth)."""
        stack = [self]
        while stack:
            g = stack.pop()
            if g.has_type(*types):
                return True
            if g.type_counts.get(GRAPH, 0):
                stack.extend(n.params.graph for n in g.nodes if n.type == GRAPH and not n.destroyed)
        return False

    def first_of(self, *types: int) -> Node | None:
        """The first live node (creation order) of one of ``types``, looking into child graphs."""
        for n in self.nodes:
            if n.destroyed:
                continue
            if n.type in types:
                return n
            if n.type == GRAPH and n.params.graph.has_type_deep(*types):
                return n
        return None


#: ``Node.ins`` / ``Node.outs`` lists longer than this become dicts on their first removal
_SMALL = 16


def add_edge(graph: Graph, src: Node, dst: Node, ed: tuple[int, int, int] = ZERO_ED,
             key: tuple[Node, Node] | None = None) -> Edge:
    """Add ``src -> dst`` (no checks: the caller has made them) in O(1), as an :class:`Edge`.

    ``key`` may pass a ready ``(src, dst)`` tuple for the pair index (saves making another). While the graph
    may hold chain edges (``lazy``) the edge is stamped with ``next_local`` (edge order, see the module
    docstring); a ``dst`` whose dependency is a chain edge has the graph's chain edges materialised first.
    """
    if dst._ins.__class__ is Node:
        solid(graph)
    e = Edge(src, dst, ed)
    graph._edges[e] = graph.next_local if graph.lazy else None
    pairs = graph.pairs
    if pairs is not None and pairs.setdefault(key or (src, dst), e) is not e:
        graph.n_dup += 1
    src._outs = with_edge(src._outs, e)
    dst._ins = with_edge(dst._ins, e)
    return e


def add_chain_edge(graph: Graph, src: Node, dst: Node) -> None:
    """Add ``src -> dst`` with edge data ``ZERO_ED`` as a chain edge (the compact form: no :class:`Edge`, see the
    module docstring). The caller guarantees that ``dst`` is the graph's newest node, made just now and without
    edges, and that the graph has no pair index. :func:`simcuda._core.capture.enqueue_kernel` has its own copy
    for a captured launch: keep them in step."""
    graph.lazy = True
    dst._ins = src
    c = src._outs
    src._outs = dst if c is NO_EDGES else with_edge(c, dst)


def with_edge(c: Any, e: Any) -> Any:
    """A node's raw edge container (NO_EDGES, one Edge or node, a list or a dict; see the module docstring) with
    ``e`` (an Edge, or the target node of a chain edge) added at the end: the container itself when it grows
    in place, else its replacement."""
    if c is NO_EDGES:
        return e
    k = c.__class__
    if k is list:
        c.append(e)
    elif k is Edge or k is Node:
        return [c, e]
    else:
        c[e] = None
    return c


def in_edges(n: Node) -> list[tuple[Node, tuple[int, int, int]]]:
    """``[(source, edge data), ...]`` of ``n``'s dependencies in edge order, either form (never materialises)."""
    c = n._ins
    k = c.__class__
    if k is Node:
        return [(c, ZERO_ED)]
    if k is Edge:
        return [(c.src, c.ed)]
    return [(e.src, e.ed) for e in c]


def out_edges(n: Node) -> list[tuple[Node, tuple[int, int, int]]]:
    """``[(target, edge data), ...]`` of ``n``'s dependents in edge order, either form (never materialises)."""
    c = n._outs
    k = c.__class__
    if k is Node:
        return [(c, ZERO_ED)]
    if k is Edge:
        return [(c.dst, c.ed)]
    return [(x, ZERO_ED) if x.__class__ is Node else (x.dst, x.ed) for x in c]


def _n_in(n: Node) -> int:
    """The number of ``n``'s dependencies (either form)."""
    c = n._ins
    return 1 if c.__class__ is Node else len(c)


def _in_order(graph: Graph) -> list[Any]:
    """Every edge of ``graph`` in creation order: an :class:`Edge`, or the target node of a chain edge (whose
    source is its ``_ins``). Linear in nodes + edges (edges alone when the graph holds no chain edge)."""
    if not graph.lazy:
        return list(graph._edges)
    chain = [n for n in graph.nodes if n._ins.__class__ is Node]  # creation order
    out: list[Any] = []
    j, k = 0, len(chain)
    for e, stamp in graph._edges.items():
        if stamp is not None:  # added while lazy: after the chain edges of the nodes made before it
            while j < k and chain[j].local_id < stamp:
                out.append(chain[j])
                j += 1
        out.append(e)
    out.extend(chain[j:])
    return out


def edge_list(graph: Graph) -> list[tuple[Node, Node, tuple[int, int, int]]]:
    """``[(source, target, edge data), ...]`` of every edge of ``graph`` in creation order (``cuGraphGetEdges``,
    spec 4.5), either form, without materialising chain edges."""
    return [(x._ins, x, ZERO_ED) if x.__class__ is Node else (x.src, x.dst, x.ed) for x in _in_order(graph)]


def solid(graph: Graph) -> None:
    """Materialise every chain edge of ``graph`` as an :class:`Edge`, in place: the same edges, each node's edge
    order and the graph's edge order kept (see the module docstring). O(nodes + edges); nothing to do when the
    graph is not ``lazy``."""
    if not graph.lazy:
        return
    order = _in_order(graph)
    graph.lazy = False
    edges: dict[Edge, int | None] = {}
    sources: dict[int, Node] = {}
    for x in order:
        if x.__class__ is Node:
            src = x._ins
            x._ins = e = Edge(src, x, ZERO_ED)
            sources[id(src)] = src
            edges[e] = None
        else:
            edges[x] = None
    graph._edges = edges
    for src in sources.values():  # a chain target in an out-container becomes its (now materialised) edge
        c = src._outs
        k = c.__class__
        if k is Node:
            src._outs = c._ins
        elif k is list:
            c[:] = [x._ins if x.__class__ is Node else x for x in c]
        elif k is dict:
            src._outs = dict.fromkeys(x._ins if x.__class__ is Node else x for x in c)


def pair_index(graph: Graph) -> dict[tuple[Node, Node], Edge]:
    """``(src, dst) -> edge`` of ``graph`` (the first edge of a pair, edge order), built once in
    O(edges) on first use and kept up to date by :func:`add_edge` / :func:`remove_edge`.

    Building it materialises the graph's chain edges (:func:`solid`); a graph with a pair index gets no new
    chain edges, so its edges stay :class:`Edge` objects."""
    pairs = graph.pairs
    if pairs is None:
        solid(graph)
        pairs = {}
        dup = 0
        for e in graph._edges:
            if pairs.setdefault((e.src, e.dst), e) is not e:
                dup += 1
        graph.pairs, graph.n_dup = pairs, dup
    return pairs


def find_edge(graph: Graph, src: Node, dst: Node, ed: tuple[int, int, int] | None = None) -> Edge | None:
    """The first edge ``src -> dst`` (in ``src``'s edge order), with edge data ``ed`` when given; O(1)
    (O(out-degree of ``src``) only in a graph holding duplicate pairs, see the module docstring)."""
    e = pair_index(graph).get((src, dst))
    if e is None or ed is None or e.ed == ed:
        return e
    if graph.n_dup:
        return next((x for x in src._outs if x.dst is dst and x.ed == ed), None)
    return None


def _unlink(node: Node, attr: str, e: Any) -> None:
    """Remove ``e`` (an Edge, or the node of a chain edge) from ``node._ins`` or ``node._outs`` (``attr``) in
    O(1) (amortised)."""
    c = getattr(node, attr)
    if c.__class__ is Edge or c.__class__ is Node:  # the one edge
        setattr(node, attr, NO_EDGES)
        return
    if c.__class__ is list:
        if len(c) <= _SMALL:
            c.remove(e)
            return
        c = dict.fromkeys(c)
        setattr(node, attr, c)
    del c[e]


def _unindex(graph: Graph, e: Edge) -> None:
    """Drop ``e`` from the pair index (when built), promoting a duplicate of its pair if there is one."""
    pairs = graph.pairs
    if pairs is None:
        return
    key = (e.src, e.dst)
    if pairs.get(key) is not e:
        graph.n_dup -= 1  # e was a duplicate
        return
    nxt = next((x for x in e.src._outs if x.dst is e.dst and x is not e), None) if graph.n_dup else None
    if nxt is None:
        del pairs[key]
    else:
        pairs[key] = nxt
        graph.n_dup -= 1


def remove_edge(graph: Graph, e: Edge, remember: bool = True) -> None:
    """Remove ``e`` (an :class:`Edge` of ``graph``: from :func:`find_edge` or a materialised view) in O(1); with
    ``remember``, keep it in ``removed_edges`` (spec 4.4: removed edges still count for the unjoined rule)."""
    del graph._edges[e]
    _unindex(graph, e)
    _unlink(e.src, "_outs", e)
    _unlink(e.dst, "_ins", e)
    if remember:
        graph._removed.append(e)


def detach_node(graph: Graph, n: Node) -> None:
    """Remove every edge of ``n`` (not remembered in ``removed_edges``), in time linear in its edges; chain
    edges are unlinked in their compact form."""
    c = n._ins
    if c.__class__ is Node:  # the chain edge c -> n
        _unlink(c, "_outs", n)
    else:
        for e in c:
            del graph._edges[e]
            _unindex(graph, e)
            _unlink(e.src, "_outs", e)
    outs: Any = n._outs
    x: Any
    for x in ((outs,) if outs.__class__ is Node else outs):
        if x.__class__ is Node:  # the chain edge n -> x: x's only dependency
            x._ins = NO_EDGES
        else:
            del graph._edges[x]
            _unindex(graph, x)
            _unlink(x.dst, "_ins", x)
    n._ins, n._outs = NO_EDGES, NO_EDGES


class GraphCycle(Exception):
    """Raised by :func:`freeze` when a graph (or a child graph) has a cycle; ``node`` is on it."""

    def __init__(self, node: Node) -> None:
        super().__init__(f"graph {node.graph.gid} has a cycle through node {node.local_id}")
        self.node = node


def topo_order(nodes: list[Node]) -> list[Node] | None:
    """Live nodes in a topological order, creation order (local id) breaking ties; None for a cycle.

    Linear when creation order is already topological (checked in one pass over the edges);
    otherwise Kahn's algorithm with a heap, O((n + e) log n).
    """
    live = [n for n in nodes if not n.destroyed]
    if len(live) == len(nodes):
        live = nodes  # all live: the caller's list (read only)
    forward = True
    for n in live:
        c = n._ins
        k = c.__class__
        if k is Node:  # a chain edge (the compact form)
            if c.local_id >= n.local_id:
                forward = False
                break
            continue
        if k is Edge:  # one edge
            if c.src.local_id >= n.local_id:
                forward = False
                break
            continue
        lid = n.local_id
        for e in c:
            if e.src.local_id >= lid:
                forward = False
                break
        if not forward:
            break
    if forward:
        return live
    indeg = {id(n): _n_in(n) for n in live}
    heap = [(n.local_id, n) for n in live if not n._ins]
    heapq.heapify(heap)
    out: list[Node] = []
    while heap:
        _, n = heapq.heappop(heap)
        out.append(n)
        for d, _ed in out_edges(n):
            k = id(d)
            indeg[k] -= 1
            if indeg[k] == 0:
                heapq.heappush(heap, (d.local_id, d))
    return out if len(out) == len(live) else None


def _cycle_node(nodes: list[Node]) -> Node:
    """A node that Kahn's algorithm could not place (it is on, or behind, a cycle)."""
    placed = {id(n) for n in topo_order_partial(nodes)}
    for n in nodes:
        if not n.destroyed and id(n) not in placed:
            return n
    return nodes[0]


def topo_order_partial(nodes: list[Node]) -> list[Node]:
    """The nodes Kahn's algorithm can place (all of them when there is no cycle)."""
    live = [n for n in nodes if not n.destroyed]
    indeg = {id(n): _n_in(n) for n in live}
    stack = [n for n in live if not n._ins]
    out = []
    while stack:
        n = stack.pop()
        out.append(n)
        for d, _ed in out_edges(n):
            k = id(d)
            indeg[k] -= 1
            if indeg[k] == 0:
                stack.append(d)
    return out


# -------------------------------------------------------------------------- executable graphs
class ExecNode:
    """A node as frozen into an executable graph. Never mutated: updates make a new one.

    ``origin`` is the node of the instantiated graph that per-node calls name (``cuGraphExec*SetParams``,
    ``cuGraphNodeSetEnabled``); it stays the same after ``cuGraphExecUpdate``. ``child`` is the
    :class:`Frozen` body of a GRAPH node; ``bodies`` the frozen body graphs of a CONDITIONAL node.
    ``detail`` caches the launch log's description of a node that is no kernel (a pure function of type
    and parameters, filled on first replay and shared by the records of every launch; a kernel's is
    cached on its :class:`KernelParams`).
    """

    __slots__ = ("origin", "local_id", "type", "params", "child", "enabled", "gid", "detail", "bodies")

    def __init__(self, origin: Node, params: Any, child: Frozen | None, enabled: bool = True,
                 bodies: tuple[Frozen, ...] | None = None) -> None:
        self.origin = origin
        self.bodies = bodies  # a CONDITIONAL node's frozen body graphs (P-24), else None
        self.local_id = origin.local_id
        self.gid = origin.graph.gid
        self.type = origin.type
        self.params = params
        self.child = child
        self.enabled = enabled
        self.detail: str | None = None

    def evolve(self, **changes: Any) -> ExecNode:
        """A copy with some of ``params``, ``child``, ``enabled``, ``bodies`` replaced."""
        return ExecNode(self.origin, changes.get("params", self.params), changes.get("child", self.child),
                        changes.get("enabled", self.enabled), changes.get("bodies", self.bodies))


class Frozen:
    """An instantiated graph body.

    Attributes:
        gid: id of the graph it was made from (DOT ``graph_<gid>``).
        order: ``ExecNode`` list in replay order (topological, creation order breaking ties).
        creation: positions in ``order`` of the nodes in creation order (update pairing).
        topology: :class:`Topology` of the instantiated graph (creation order).
        exits: number of nodes without dependents.
        index: ``id(origin node)`` -> position in ``order`` (built on first use: only the per-node
            calls ask, so a body nobody edits never pays for it).
        created: how many nodes the graph had created when it was frozen, destroyed ones included
            (``Graph.next_local``: the count behind the creation-order pairing of an update, spec 16).

    ``creation`` is a ``range`` when replay order is creation order (every captured graph).

    A body of kernel nodes only (what a loop of captured launches makes) is *compact* when frozen: it
    keeps its nodes and their parameters as two lists (``kernels``: ``(nodes, params)``) instead of an
    ``ExecNode`` per node, so freezing a million-node capture makes no per-node object. ``order``
    makes the ``ExecNode`` list on first use (the per-node calls, updates, copies), exactly as a
    freeze would have, and the body is an ordinary one from then on.
    """

    __slots__ = ("gid", "_order", "kernels", "creation", "topology", "exits", "_index", "_mem", "created", "_conds")

    def __init__(self, gid: int, order: list[ExecNode] | None, creation: list[int] | range, topology: Topology,
                 exits: int, created: int | None = None, kernels: tuple[list[Any], list[Any]] | None = None) -> None:
        self.gid = gid
        self._order = order
        self.kernels = kernels  # compact: (nodes, params) in replay order, all KERNEL and enabled; or None
        self.creation = creation
        self.topology = topology
        self.exits = exits
        self.created = len(creation) if created is None else created
        self._index: dict[int, int] | None = None
        self._mem: tuple[list[Allocation], list[int]] | None = None
        self._conds: list[Any] | None = None

    @property
    def order(self) -> list[ExecNode]:
        """``ExecNode`` list in replay order (made on first use from a compact body)."""
        o = self._order
        if o is None:
            nodes, params = self.kernels  # type: ignore[misc]
            o = self._order = [ExecNode(n, p, None) for n, p in zip(nodes, params)]
            self.kernels = None
        return o

    @order.setter
    def order(self, order: list[ExecNode]) -> None:
        """Replace the node list (the body is no longer compact)."""
        self._order = order
        self.kernels = None

    @property
    def index(self) -> dict[int, int]:
        """``id(origin node)`` -> position in ``order`` (built once, on first use; shared by copies)."""
        if self._index is None:
            k = self.kernels
            if k is not None:
                self._index = {id(n): i for i, n in enumerate(k[0])}
            else:
                self._index = {id(x.origin): i for i, x in enumerate(self.order)}
        return self._index

    @index.setter
    def index(self, index: dict[int, int]) -> None:
        """Share another body's index (the same positions)."""
        self._index = index

    def copy(self) -> Frozen:
        """A copy whose ``order`` list can be changed without touching this one (copy on write).

        Per-node changes never touch MEM_ALLOC / MEM_FREE parameters, so the memory lists are shared.
        """
        f = Frozen.__new__(Frozen)
        f.gid, f._order, f.kernels, f.creation, f.topology, f.exits, f._index, f._mem, f.created = \
            self.gid, list(self.order), None, self.creation, self.topology, self.exits, self.index, self._mem, \
            self.created
        f._conds = None
        return f

    def conds(self) -> list[Any]:
        """The :class:`~simcuda._core.nodes.CondHandle` of every CONDITIONAL node of this body, its child bodies and
        conditional bodies (any depth, replay order); computed once. A compact body has none."""
        if self._conds is None:
            out: list[Any] = []
            if self.kernels is None and any(x.type in (GRAPH, CONDITIONAL) for x in self.order):
                stack = [self]
                while stack:
                    b = stack.pop()
                    for x in b.order:
                        if x.type == GRAPH and x.child is not None:
                            stack.append(x.child)
                        elif x.type == CONDITIONAL:
                            out.append(x.params.handle)
                            stack.extend(x.bodies or ())
            self._conds = out
        return self._conds

    def _memory(self) -> tuple[list[Allocation], list[int]]:
        """``(allocations mapped, addresses freed)`` by the nodes of this body and its child bodies (each kind's
        :meth:`~simcuda._core.nodes.NodeKind.allocation` and :meth:`~simcuda._core.nodes.NodeKind.freed`)."""
        if self._mem is None:
            allocs: list[Allocation] = []
            frees: list[int] = []
            if self.kernels is None and any(x.type in (MEM_ALLOC, MEM_FREE, GRAPH) for x in self.order):
                for x in walk_body(self):
                    kind = KINDS[x.type]
                    a = kind.allocation(x.params)
                    if a is not None:
                        allocs.append(a)
                    f = kind.freed(x.params)
                    if f is not None:
                        frees.append(f)
            self._mem = (allocs, frees)
        return self._mem

    def allocs(self) -> list[Allocation]:
        """Graph allocations mapped by MEM_ALLOC nodes of this body (child bodies included); computed once."""
        return self._memory()[0]

    def frees(self) -> list[int]:
        """Addresses freed by MEM_FREE nodes of this body (child bodies included); computed once."""
        return self._memory()[1]

    def count(self) -> int:
        """Number of nodes, child bodies included."""
        return sum(1 for _ in walk_body(self))


def walk_body(body: Frozen) -> Iterator[ExecNode]:
    """Exec nodes of ``body`` and of its child bodies, depth first (each GRAPH node, then its child's
    nodes, then the next node), replay order; iterative, any nesting depth."""
    stack = [iter(body.order)]
    while stack:
        for x in stack[-1]:
            yield x
            if x.type == GRAPH:
                assert x.child is not None  # a GRAPH node's frozen child body
                stack.append(iter(x.child.order))
                break
        else:
            stack.pop()


def walk_graph(g: Graph) -> Iterator[Node]:
    """Live nodes of ``g`` and of its child graphs, depth first (each GRAPH node, then its child's nodes,
    then the next node), creation order; iterative, any nesting depth."""
    stack = [iter(g.live_nodes())]
    while stack:
        for n in stack[-1]:
            yield n
            if n.type == GRAPH:
                stack.append(iter(n.params.graph.live_nodes()))
                break
        else:
            stack.pop()


class Topology:
    """The shape of a graph in creation order, in flat arrays (no per-node objects).

    ``types[i]`` is node i's type; its dependencies, in edge order, are ``src[off[i]:off[i+1]]``
    (creation indices) with edge data ``eds[off[i]:off[i+1]]`` (the graph's own edge-data tuples);
    ``eds`` is None when every edge is a plain dependency (:data:`ZERO_ED`), as in most graphs.
    """

    __slots__ = ("types", "off", "src", "eds")

    def __init__(self, live: list[Node]) -> None:
        n_live = len(live)
        if not live or live[-1].local_id == n_live - 1:  # no destroyed node: creation index = local id
            pos = None
        else:
            pos = {id(n): i for i, n in enumerate(live)}
        self.types = array("b", [n.type for n in live])
        off = array("i", [0])
        src = array("i")
        eds: list[tuple[int, int, int]] = []
        plain = True  # every edge ZERO_ED so far
        for n in live:
            c = n._ins
            k = c.__class__
            if k is Node:  # a chain edge (the compact form): edge data ZERO_ED
                src.append(c.local_id if pos is None else pos[id(c)])
                eds.append(ZERO_ED)
            elif k is Edge:  # one edge
                src.append(c.src.local_id if pos is None else pos[id(c.src)])
                ed = c.ed
                eds.append(ed)
                if plain and ed != ZERO_ED:
                    plain = False
            else:
                for e in c:
                    src.append(e.src.local_id if pos is None else pos[id(e.src)])
                    ed = e.ed
                    eds.append(ed)
                    if plain and ed != ZERO_ED:
                        plain = False
            off.append(len(src))
        self.off, self.src, self.eds = off, src, (None if plain else eds)

    def __len__(self) -> int:
        return len(self.types)

    def deps(self, i: int) -> list[tuple[int, tuple[int, int, int]]]:
        """``[(dependency creation index, edge data), ...]`` of node ``i``, in edge order."""
        a, b = self.off[i], self.off[i + 1]
        if self.eds is None:
            return [(s, ZERO_ED) for s in self.src[a:b]]
        return list(zip(self.src[a:b], self.eds[a:b]))


def signature(live: list[Node]) -> tuple[Topology, int]:
    """``(topology, exit count)`` of live nodes in creation order (see :class:`Frozen`)."""
    # an exit has no out-edge: its outs is NO_EDGES, or an emptied list or dict (never an Edge; a chain
    # target node is true)
    return Topology(live), sum(1 for n in live if n._outs.__class__ is not Edge and not n._outs)


def freeze(graph: Graph) -> Frozen:
    """Freeze ``graph`` and its child graphs, at any nesting depth. Raises :class:`GraphCycle`.

    Two iterative passes: the graphs are sorted in the order a recursive freeze meets them (a graph,
    then the child graphs of its nodes in replay order, each before the next), so the cycle reported
    is the same; the bodies are then built children first.
    """
    sorted_graphs: list[tuple[Graph, list[Node], list[Node]]] = []
    stack = [graph]
    while stack:
        g = stack.pop()
        live = g.live_nodes()
        order = topo_order(live)
        if order is None:
            raise GraphCycle(_cycle_node(live))
        sorted_graphs.append((g, live, order))
        if g.type_counts.get(GRAPH, 0):
            stack.extend(reversed([n.params.graph for n in order if n.type == GRAPH]))
    bodies: dict[int, Frozen] = {}
    for g, live, order in reversed(sorted_graphs):
        if order is live or (len(order) == len(live) and all(a is b for a, b in zip(order, live))):
            creation: list[int] | range = range(len(order))
        else:
            where = {id(n): i for i, n in enumerate(order)}
            creation = [where[id(n)] for n in live]
        topo, exits = signature(live)
        # parameters shared: stored parameters are never mutated
        if not any(g.type_counts.values()):  # kernel nodes only: compact (see Frozen)
            bodies[id(g)] = Frozen(g.gid, None, creation, topo, exits, g.next_local,
                                   (order, [n.params for n in order]))
            continue
        xs = [ExecNode(n, n.params, bodies.pop(id(n.params.graph)) if n.type == GRAPH else None)
              if n.type != CONDITIONAL else
              ExecNode(n, n.params, None, bodies=tuple(freeze(b) for b in n.params.bodies))  # P-24
              for n in order]
        bodies[id(g)] = Frozen(g.gid, xs, creation, topo, exits, g.next_local)
    return bodies[id(graph)]


class GraphExec:
    """An executable graph (``CUgraphExec``).

    Attributes:
        body: the :class:`Frozen` body launched next.
        flags: the instantiate flags (``CUgraphInstantiate_flags``).
        launches: launches that have run.
        pending: launches enqueued and not yet run (manual progression).
        running: replays running now (user code of a replay runs without the driver lock, so another
            thread may change or destroy the exec meanwhile: the replay keeps the body it started with).
        shared: the current body is referenced by a pending or running launch (copy it before a change).
    """

    __slots__ = ("handle", "graph", "gid", "exec_id", "flags", "body", "destroyed", "launches", "pending",
                 "running", "shared", "user_refs", "cond_values")

    def __init__(self, handle: int, graph: Graph, flags: int, body: Frozen, exec_id: int = 0) -> None:
        self.handle = handle
        self.graph = graph
        self.gid = graph.gid
        self.exec_id = exec_id
        self.flags = flags
        self.body = body
        self.destroyed = False
        self.launches = 0
        self.pending = 0
        self.running = 0
        self.shared = False
        self.user_refs: UserRefs | None = None  # its own copy of its graphs' user-object references (instantiate)
        self.cond_values: dict[int, int] = {}  # conditional handle -> the value the last launch left (P-22)

    @property
    def order(self) -> list[ExecNode]:
        """The body's nodes in replay order."""
        return self.body.order

    def writable_body(self) -> Frozen:
        """The body, copied first when a pending launch still holds it (launches see the state
        at their enqueue; cuGraphExec*SetParams: "already enqueued launches are not affected")."""
        if self.shared and (self.pending or self.running):
            self.body = self.body.copy()
        self.shared = False
        return self.body


# -------------------------------------------------------------------------- simulated time
#: one tick of the simulated clock in milliseconds (spec 16, 2.4, 9) [I]: the clock advances by one tick for
#: every operation that runs, eager or replayed; wall-clock time never enters (the simulator is deterministic)
TICK_MS = 0.001
#: node types whose replay does not advance the clock: EVENT_RECORD reads it, and a child-graph node
#: advances it through its own nodes, one by one (spec 16) [I]
CLOCK_FREE_NODES = tuple(t for t, k in KINDS.items() if not k.ticks)


# -------------------------------------------------------------------------- replay
class WhileLimit(Exception):
    """A WHILE node's body ran :data:`~simcuda._core.nodes.COND_WHILE_LIMIT` times in one replay with its condition
    still non-zero (:func:`run_frozen`); the driver turns it into 702 LAUNCH_TIMEOUT (P-27)."""


def run_frozen(drv: RunHost, body: Frozen, log: Callable[[Any, Any, str], None],
               cond: dict[int, int] | None = None) -> None:
    """Replay ``body`` in order against the driver's memory (spec 9, replay semantics).

    Simulated time (spec 16) [I]: every node the replay runs advances the driver's clock by
    :data:`TICK_MS` before it acts (a disabled node too: it runs as an empty node), except those of
    :data:`CLOCK_FREE_NODES`: an EVENT_RECORD node stamps its event with the clock when the replay
    reaches it, and a child graph's nodes count one by one.

    A GRAPH node logs "child graph ... begins", replays its child body in place, then logs "... ends";
    the walk is iterative (a stack of bodies), so any nesting depth replays. ``log(x, params, note)``
    is called for each node run: ``x`` the ``ExecNode`` (the :class:`Node` of a compact body; both have
    ``type``, ``local_id`` and ``gid``), ``params`` the parameters it ran with.

    A CONDITIONAL node (P-26) reads its handle's value in ``cond`` (handle value -> condition, the launch's
    values: kernels change them through ``KernelLaunch.set_conditional``) when the replay reaches it and
    replays the body :func:`~simcuda._core.nodes.cond_pick` chooses in place, logging "... begins" and
    "... ends"; a WHILE node reads the value again after each pass and replays its body again while it is
    non-zero, up to :data:`~simcuda._core.nodes.COND_WHILE_LIMIT` passes (then :class:`WhileLimit`, P-27).
    """
    kernels = body.kernels
    if kernels is not None:  # a compact body: enabled KERNEL nodes only (see Frozen), no child graph
        for x, p in zip(*kernels):
            drv._clock_ms += TICK_MS
            log(x, p, drv._run_kernel(p))
        return
    values = {} if cond is None else cond
    kinds = KINDS
    stack = [iter(body.order)]
    owners: list[Any] = [None]  # per stack level: None, a GRAPH ExecNode, or [CONDITIONAL ExecNode, body, passes]
    while stack:
        for x in stack[-1]:
            t = x.type
            p = x.params
            kind = kinds[t]
            if kind.ticks:
                drv._clock_ms += TICK_MS
            if not x.enabled:
                log(x, p, "disabled (cuGraphNodeSetEnabled): runs as an empty node")
                continue
            if x.child is not None:  # a GRAPH node: its child body replays in place
                log(x, p, f"child graph graph_{x.child.gid} begins")
                stack.append(iter(x.child.order))
                owners.append(x)
                break  # the child's nodes next; its "ends" record when its body is done
            if t == CONDITIONAL:
                v = values.get(p.handle.handle, 0)
                i = cond_pick(p.ctype, v, len(p.bodies))
                if i is None:
                    log(x, p, f"condition {v}: no body runs")
                    continue
                assert x.bodies is not None  # a CONDITIONAL node's frozen bodies
                b = x.bodies[i]
                log(x, p, f"condition {v}: body {i} (graph_{b.gid}) begins")
                stack.append(iter(b.order))
                owners.append([x, i, 1])
                break
            log(x, p, kind.replay(drv, p))
        else:
            stack.pop()
            owner = owners.pop()
            if owner is None:
                continue
            again = _body_done(owner, values, log)
            if again is not None:  # a WHILE node's body runs another pass
                stack.append(iter(again.order))
                owners.append(owner)


def _body_done(owner: Any, values: dict[int, int], log: Callable[[Any, Any, str], None]) -> Frozen | None:
    """:func:`run_frozen` finished a body that ``owner`` (a GRAPH ExecNode, or ``[CONDITIONAL ExecNode, body
    index, passes]``) started: log its end, or return the body again for a WHILE node whose condition is still
    non-zero (counting the pass). Raises :class:`WhileLimit` past ``COND_WHILE_LIMIT`` passes (P-27)."""
    if owner.__class__ is not list:  # a GRAPH node, with its child body
        if owner.child is not None:
            log(owner, owner.params, f"child graph graph_{owner.child.gid} ends")
        return None
    x, i, passes = owner  # a conditional body has run once more
    p = x.params
    b = x.bodies[i]
    if p.ctype != COND_WHILE:
        log(x, p, f"body {i} (graph_{b.gid}) ends")
        return None
    v = values.get(p.handle.handle, 0)
    if not v:
        log(x, p, f"condition 0 after {passes} pass(es): body {i} (graph_{b.gid}) ends")
        return None
    if passes >= nodes_mod.COND_WHILE_LIMIT:
        raise WhileLimit(f"WHILE node {x.local_id} of graph {x.gid} ran its body graph_{b.gid} {passes} times and "
                         f"the condition is still {v}; the simulator stops a WHILE loop at "
                         f"simcuda._core.nodes.COND_WHILE_LIMIT ({nodes_mod.COND_WHILE_LIMIT}) passes (P-27) "
                         "[inferred]")
    owner[2] = passes + 1
    b2: Frozen = b
    return b2


# -------------------------------------------------------------------------- clone
def clone_graph(drv: GraphHost, g: Graph) -> Graph:
    """Deep copy of ``g`` (child graphs included); local ids restart at 0 in creation order.

    The copy's ``clone_map`` maps each original node's handle to its copy (``cuGraphNodeFindInClone``);
    nested copies get one too. The caller has refused graphs with MEM_ALLOC, MEM_FREE or CONDITIONAL nodes.
    Iterative (a stack of graphs being copied), so any nesting depth is copied; handles and graph ids
    are handed out in the order a recursive copy would use: a graph, then, node by node, the copy of a
    child graph before the GRAPH node holding it.
    """
    # frame: [original, copy, iterator over the original's nodes, id(node) -> copy, GRAPH node waiting]
    frames: list[list[Any]] = [[g, _copy_of(drv, g), iter(g.nodes), {}, None]]
    done: Graph | None = None  # the copy just finished, for the GRAPH node its parent frame waits on
    while frames:
        fr = frames[-1]
        orig, new, it, mapping = fr[0], fr[1], fr[2], fr[3]
        if done is not None:
            n = fr[4]
            m = drv.handles.new_node(new, n.type, KINDS[n.type].copy(n.params, done))
            done.owner_node = m
            mapping[id(n)] = m
            done = None
        for n in it:
            if n.destroyed:
                continue
            if n.type == GRAPH:
                child = n.params.graph
                fr[4] = n
                frames.append([child, _copy_of(drv, child), iter(child.nodes), {}, None])
                break
            mapping[id(n)] = drv.handles.new_node(new, n.type, KINDS[n.type].copy(n.params))
        else:
            for src, dst, ed in edge_list(orig):
                add_edge(new, mapping[id(src)], mapping[id(dst)], ed)
            new.clone_map = {n.handle: mapping[id(n)] for n in orig.nodes if not n.destroyed}
            frames.pop()
            done = new
    assert done is not None
    return done


def find_in_clone(clone: Graph, handle: int) -> Node | None:
    """The copy in ``clone`` of the original node ``handle``, or None (``cuGraphNodeFindInClone``).

    Looks in the clone's own map, then, when ``clone`` is a clone, in the maps of the copies its GRAPH
    nodes embed (nested to any depth, iteratively): a node of an embedded graph of the original is found
    in the clone's embedded copy (spec 17). A graph that is no clone answers None.
    """
    if clone.clone_map is None:
        return None
    stack = [clone]
    while stack:
        g = stack.pop()
        m = (g.clone_map or {}).get(handle)
        if m is not None:
            return m
        stack.extend(n.params.graph for n in g.nodes if n.type == GRAPH and not n.destroyed)
    return None


def _copy_of(drv: GraphHost, g: Graph) -> Graph:
    """A new empty graph for the copy of ``g``, with new references to ``g``'s user objects (a clone copies
    them, cuGraphClone and child-graph nodes alike: a child graph owns its own references)."""
    new = drv.handles.new_graph(g.ctx)
    if g.user_refs:
        new.user_refs = retain_refs(g.user_refs)
    return new


def graph_user_refs(g: Graph) -> UserRefs:
    """New references to the user objects of ``g`` and of every graph nested in it (an exec's own copy)."""
    out: UserRefs = {}
    stack = [g]
    while stack:
        h = stack.pop()
        retain_refs(h.user_refs, out)
        stack.extend(n.params.graph for n in h.nodes if n.type == GRAPH and not n.destroyed)
        stack.extend(b for n in h.nodes if n.type == CONDITIONAL and not n.destroyed for b in n.params.bodies)
    return out


def graph_from_frozen(drv: GraphHost, body: Frozen, ctx: Context | None) -> Graph:
    """A new graph with the nodes and parameters of an executable body (creation order kept).

    A disabled node becomes an EMPTY node. Iterative, any nesting depth; handles and graph ids in the
    order of a recursive build (a graph, then, node by node, a child graph before the GRAPH node
    holding it). Edges are added once every node of the graph exists, node by node in creation order
    and, per node, in its edge order (so edges from a later node to an earlier one work too).
    """
    # frame: [body, graph, iterator over creation positions, nodes made, GRAPH exec node waiting]
    frames: list[list[Any]] = [[body, drv.handles.new_graph(ctx), iter(body.creation), [], None]]
    done: Graph | None = None
    while frames:
        fr = frames[-1]
        b, g, it, made = fr[0], fr[1], fr[2], fr[3]
        if done is not None:
            x = fr[4]
            m = drv.handles.new_node(g, GRAPH, KINDS[GRAPH].copy(x.params, done))
            done.owner_node = m
            made.append(m)
            done = None
        for pos in it:
            x = b.order[pos]
            if x.type == GRAPH and x.enabled:
                fr[4] = x
                frames.append([x.child, drv.handles.new_graph(ctx), iter(x.child.creation), [], None])
                break
            made.append(drv.handles.new_node(g, EMPTY, NO_PARAMS) if not x.enabled else
                        drv.handles.new_node(g, x.type, KINDS[x.type].copy(x.params)))
        else:
            topo = b.topology
            for i, m in enumerate(made):
                for src, ed in topo.deps(i):
                    add_edge(g, made[src], m, ed)
            frames.pop()
            done = g
    assert done is not None
    return done


# -------------------------------------------------------------------------- exec update
class UpdateFailure(Exception):
    """``cuGraphExecUpdate`` cannot update: ``result`` (CUgraphExecUpdateResult), ``node`` and
    ``from_node`` (nodes of the new graph, or None) and a ``why``."""

    def __init__(self, result: int, node: Node | None, why: str, from_node: Node | None = None) -> None:
        super().__init__(why)
        self.result, self.node, self.from_node, self.why = result, node, from_node, why


def param_change_problem(ntype: int, old: Any, new: Any, resolve: Callable[[int], Allocation | None], flags: int,
                         per_node: bool = False) -> tuple[int, str] | None:
    """Whether an exec may take ``new`` in place of ``old`` for a node of ``ntype``.

    Returns ``(CUgraphExecUpdateResult, why)`` or None: the answer of the kind's
    :meth:`~simcuda._core.nodes.NodeKind.update_problem` (NVIDIA's "Graph Update Limitations", Programming
    Guide, and the cuGraphExec*SetParams docstrings); a type without a kind has no restrictions.
    ``per_node`` says the individual set-params calls ask (the rules are the same).
    """
    kind = KINDS.get(ntype)
    return kind.update_problem(old, new, resolve, flags) if kind is not None else None


def _check_update_shape(old: Frozen, g: Graph) -> list[Node]:
    """The whole-graph checks of :func:`plan_update` for one graph (not its children); returns its live nodes.

    Node counts (spec 17, narrowing 16; 9) [I]: the nodes of the two graphs are paired in creation order,
    destroyed nodes keeping their place (``Graph.next_local`` against ``Frozen.created``). When the counts
    differ and a node without a partner is a memcpy node, the result is NOT_SUPPORTED (6) [O: hip-tests
    ``Unit_hipGraphExecUpdate_Negative_Functional_CountDiffer_1/_2``, NVIDIA expectations (b)-(d) of spec
    16]; when they differ otherwise, TOPOLOGY_CHANGED (2) [O: cuda.core's
    ``test_graph_update_topology_mismatch``; D: the cuGraphExecUpdate docstring]; the same created count
    with different live nodes or edges is TOPOLOGY_CHANGED [O: (a), shared]. Error node NULL in every case.
    A destroyed node of the exec's graph is not known to the exec, so it never counts as a memcpy node [I].
    The rule applies to child graphs (recursively) and to cuGraphExecChildGraphNodeSetParams as well [I].
    """
    if g.next_local != old.created:
        paired = min(g.next_local, old.created)
        spare = [x.type for x in g.nodes if x.local_id >= paired]
        if old.kernels is None:
            spare += [x.type for x in old.order if x.local_id >= paired]
        code, name = ((UPD_NOT_SUPPORTED, "a memcpy node") if MEMCPY in spare else
                      (UPD_TOPOLOGY_CHANGED, "no memcpy node"))
        raise UpdateFailure(code, None,
                            f"graph {g.gid} has created {g.next_local} nodes (destroyed ones included) but the "
                            f"exec's graph had created {old.created}; paired by creation order, the nodes left "
                            f"without a partner include {name} (spec 17, 9) [inferred from observations on "
                            "NVIDIA]")
    live = g.live_nodes()
    if len(live) != len(old.creation):
        raise UpdateFailure(UPD_TOPOLOGY_CHANGED, None,
                            f"graph {g.gid} has {len(live)} live nodes but the exec was made from "
                            f"{len(old.creation)}, out of the same number of created nodes (spec 16 (a), 9)")
    topo, exits = signature(live)
    if exits > old.exits:
        old_exit = set(range(len(live))) - set(old.topology.src)
        extra = next((n for i, n in enumerate(live) if not n._outs and i not in old_exit),
                     next(n for n in live if not n._outs))
        raise UpdateFailure(UPD_TOPOLOGY_CHANGED, extra,
                            f"graph {g.gid} has {exits} exit nodes, more than the exec's {old.exits}; node "
                            f"{extra.local_id} is one of them")
    ot = old.topology
    same_deps = topo.off == ot.off and topo.src == ot.src and topo.eds == ot.eds  # one C-level comparison
    for i, n in enumerate([] if same_deps else live):  # only when something differs: find the first node
        new_deps, old_deps = topo.deps(i), ot.deps(i)
        if len(new_deps) != len(old_deps):
            raise UpdateFailure(UPD_TOPOLOGY_CHANGED, n,
                                f"node {n.local_id} of graph {g.gid} has {len(new_deps)} dependencies, its paired "
                                f"node in the exec {len(old_deps)}")
        for j, (a, b) in enumerate(zip(new_deps, old_deps)):
            if a != b:
                src = in_edges(n)[j][0]
                raise UpdateFailure(UPD_TOPOLOGY_CHANGED, n,
                                    f"dependency {j} of node {n.local_id} (node {src.local_id}"
                                    f"{'' if a[1] == ZERO_ED else ' with edge data ' + str(a[1])}) does not match "
                                    f"the paired dependency in the exec (creation index {b[0]}"
                                    f"{'' if b[1] == ZERO_ED else ', edge data ' + str(b[1])})", src)
    for i, n in enumerate([] if topo.types == ot.types else live):
        t_old = ot.types[i]
        if n.type != t_old:
            raise UpdateFailure(UPD_NODE_TYPE_CHANGED, n,
                                f"node {n.local_id} of graph {g.gid} is {TYPE_KEYWORDS.get(n.type)} but its paired "
                                f"node in the exec is {TYPE_KEYWORDS.get(t_old)}")
    return live


def plan_update(old: Frozen, g: Graph, resolve: Callable[[int], Allocation | None], flags: int) -> Frozen:
    """The body an exec would have after ``cuGraphExecUpdate(exec, g)``; raises :class:`UpdateFailure`.

    Nodes are paired by creation order and dependencies by edge order (Programming Guide, "Whole
    Graph Update"); the checks follow the order of the cuGraphExecUpdate docstring: node count,
    exit nodes, dependency counts, dependencies, then node types and parameters. Paired nodes keep
    the exec's identity (``origin``) and enabled state; parameters come from ``g``. A child graph is
    checked, as a graph of its own, when its GRAPH node's turn comes (so the first failure reported is
    the one a recursive check meets first); the walk is iterative, any nesting depth.
    """
    # frame: [old body, graph, live nodes, iterator over (creation index, node), new order, GRAPH node waiting]
    frames: list[list[Any]] = [[old, g, _check_update_shape(old, g), None, list(old.order), None]]
    frames[0][3] = iter(enumerate(frames[0][2]))
    done: Frozen | None = None  # the child body just planned, for the GRAPH node its parent waits on
    while frames:
        fr = frames[-1]
        body, graph, order, it = fr[0], fr[1], fr[4], fr[3]
        if done is not None:
            i, n = fr[5]
            pos = body.creation[i]
            order[pos] = body.order[pos].evolve(params=n.params, child=done)
            done = None
        for i, n in it:
            pos = body.creation[i]
            x = body.order[pos]
            if n.type == GRAPH:
                child_g = n.params.graph
                fr[5] = (i, n)
                live = _check_update_shape(x.child, child_g)
                frames.append([x.child, child_g, live, iter(enumerate(live)), list(x.child.order), None])
                break
            prob = param_change_problem(n.type, x.params, n.params, resolve, flags)
            if prob is not None:
                raise UpdateFailure(prob[0], n, f"node {n.local_id} of graph {graph.gid} "
                                                f"({TYPE_KEYWORDS[n.type]}): {prob[1]}")
            if n.type == CONDITIONAL:  # its bodies are checked as graphs of their own (P-29)
                old_bodies: tuple[Frozen, ...] = x.bodies or ()
                order[pos] = x.evolve(params=n.params, bodies=tuple(
                    plan_update(xb, nb, resolve, flags) for xb, nb in zip(old_bodies, n.params.bodies)))
                continue
            order[pos] = x.evolve(params=n.params, child=None)
        else:
            f = Frozen(body.gid, order, body.creation, body.topology, body.exits, body.created)
            f.index = body.index
            frames.pop()
            done = f
    assert done is not None
    return done


# -------------------------------------------------------------------------- DOT (spec 9.1)


def dot_text(g: Graph, flags: int = 0) -> str:
    """Graphviz text in the layout of spec 9.1: one dashed cluster per graph, child graphs after it.

    * Flags 0: a kernel is a bold octagon labelled ``<local id>\\n<kernel name>``; any other node a
      solid rectangle labelled ``<local id>\\n<TYPE KEYWORD>\\n<description>`` (memcpy: its
      direction; child graph: ``graph_<child id>``).
    * A node whose parameters a flag asks for (``KERNEL_NODE_PARAMS`` for kernels, ``MEMCPY_NODE_PARAMS``
      for copies, ...), or any node with ``HANDLES``, ``EXTRA_TOPO_INFO`` or ``KERNEL_NODE_ATTRIBUTES``
      (kernels), becomes a ``shape="record"`` node: ``{TYPE | {ID | <lid> (topoId: t) | <description>} |
      {{field | ...} | {value | ...}} | ...}``. ``VERBOSE`` acts as every flag together (its docstring).
    * ``HANDLES`` adds the node handle (and a kernel's function handle); ``EXTRA_TOPO_INFO`` adds the
      topological index (counting down from the last node, as in observed dumps) and numbers edges
      with ``headlabel`` (the edge's index among its target's dependencies) and shows non-zero edge data;
      ``RUNTIME_TYPES`` names parameter blocks and copy kinds with the runtime's types.
    * A CONDITIONAL node's body graphs are clusters of their own, after its graph's (as child graphs are);
      CONDITIONAL_NODE_PARAMS shows the handle, type, size, the handle's default and flags, and the bodies
      (P-30). MEMCPY_BATCH and FABRIC_CPY_BATCH flags have nothing to show: the simulator cannot create
      those nodes.

    Fidelity: NVIDIA does not specify the layout (spec 9.1); node names ``graph_<gid>_node_<lid>``,
    cluster names and type keywords match real dumps.
    """
    if flags & DOT_VERBOSE:
        flags |= DOT_ALL
    lines = ["digraph dot {"]
    stack = [g]  # pre-order, iteratively: a cluster, then its children's clusters (each with theirs) in node order
    while stack:
        stack.extend(reversed(_dot_cluster(stack.pop(), flags, lines)))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _esc(s: object) -> str:
    """Escape text for a DOT record label inside a quoted string."""
    s = str(s)
    for a, b in (("\\", "\\\\"), ('"', '\\"'), ("<", "\\<"), (">", "\\>"), ("{", "\\{"), ("}", "\\}"),
                 ("|", "\\|")):
        s = s.replace(a, b)
    return s


def _plain(s: object) -> str:
    """Escape text for a plain quoted DOT label."""
    return str(s).replace("\\", "\\\\").replace('"', '\\"')


def _block(pairs: list[tuple[str, Any]]) -> str:
    names = " | ".join(_esc(k) for k, _ in pairs)
    values = " | ".join(_esc(v) for _, v in pairs)
    return f"{{{{{names}}} | {{{values}}}}}"


def _param_pairs(n: Node, kind: NodeKind, runtime: bool) -> list[tuple[str, Any]]:
    """The parameter block of ``n``: its kind's struct name as the header, then the kind's own lines."""
    names = kind.struct_names
    head = [("params", names[1 if runtime else 0])] if names else []
    return head + kind.dot_pairs(n.params, runtime)


def _dot_node(n: Node, gid: int, flags: int, topo_id: dict[int, int]) -> str:
    kind = KINDS[n.type]
    key = kind.keyword
    name = f"graph_{gid}_node_{n.local_id}"
    kind_flag = kind.dot_flag
    attrs = kind.dot_attributes(n.params) if flags & DOT_KERNEL_ATTRIBUTES else None
    record = flags & (kind_flag | DOT_HANDLES | DOT_EXTRA_TOPO_INFO) or attrs
    if not record:
        if kind.bold:
            return f'"{name}"[style="bold" shape="octagon" label="{n.local_id}\n{_plain(n.describe())}\n"];'
        desc = n.describe()
        desc = "" if desc == key else _plain(desc) + "\n"
        return f'"{name}"[style="solid" shape="rectangle" label="{n.local_id}\n{key}\n{desc}"];'
    ident = f"{n.local_id} (topoId: {topo_id[id(n)]})" if flags & DOT_EXTRA_TOPO_INFO else str(n.local_id)
    desc = _esc(n.describe()) + _esc(kind.dot_launch(n.params))
    parts = [key, f"{{ID | {ident} | {desc}}}"]
    if flags & kind_flag:
        parts.append(_block(_param_pairs(n, kind, bool(flags & DOT_RUNTIME_TYPES))))
    if attrs:
        parts.append(_block(attrs))
    if flags & DOT_HANDLES:
        parts.append(_block([("node handle", addr(n.handle)), *kind.dot_handles(n.params)]))
    label = "{" + " | ".join(parts) + "}"
    style = "bold" if kind.bold else "solid"
    return f'"{name}"[style="{style}" shape="record" label="{label}"];'


def _dot_cluster(g: Graph, flags: int, lines: list[str]) -> list[Graph]:
    """Append the cluster of ``g`` (its nodes and edges) to ``lines``; return its child graphs, node order."""
    gid = g.gid
    lines.append(f"subgraph cluster_{gid} {{")
    lines.append(f'label="graph_{gid}" graph[style="dashed"];')
    live = g.live_nodes()
    topo_id: dict[int, int] = {}
    if flags & DOT_EXTRA_TOPO_INFO:
        order = topo_order(live) or topo_order_partial(live)
        topo_id = {id(n): len(order) - 1 - i for i, n in enumerate(order)}
        for n in live:
            topo_id.setdefault(id(n), -1)
    children = []
    for n in live:
        lines.append(_dot_node(n, gid, flags, topo_id))
        if n.type == GRAPH:
            children.append(n.params.graph)
        elif n.type == CONDITIONAL:  # each body graph is a cluster of its own, after this one (P-30)
            children.extend(n.params.bodies)
    head: dict[int, int] = {}  # id(edge) -> its index among its target's dependencies (a chain edge's: 0)
    if flags & DOT_EXTRA_TOPO_INFO:
        for n in live:
            c = n._ins
            if c.__class__ is not Node:
                for j, e in enumerate(c):
                    head[id(e)] = j
    for x in _in_order(g):
        if x.__class__ is Node:  # a chain edge: x._ins -> x, edge data ZERO_ED
            src, dst, ed, j = x._ins, x, ZERO_ED, 0
        else:
            src, dst, ed = x.src, x.dst, x.ed
            j = head.get(id(x), 0)
        attrs = []
        if flags & DOT_EXTRA_TOPO_INFO:
            attrs.append(f"headlabel={j}")
            if ed != ZERO_ED:
                attrs.append(f'label="ports {ed[0]}->{ed[1]} type {ed[2]}"')
        suffix = f" [{' '.join(attrs)}]" if attrs else ""
        lines.append(f'"graph_{gid}_node_{src.local_id}" -> "graph_{gid}_node_{dst.local_id}"{suffix};')
    lines.append("}")
    return children


def ancestors(nodes: list[Node]) -> set[int]:
    """``id()`` of ``nodes`` and of every node they depend on, transitively."""
    seen: set[int] = set()
    stack = list(nodes)
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        stack.extend(s for s, _ed in in_edges(n))
    return seen


def owns(child: Graph, g: Graph) -> bool:
    """True when ``g`` is (transitively) embedded in ``child``."""
    while g.owner_node is not None:
        g = g.owner_node.graph
        if g is child:
            return True
    return False
