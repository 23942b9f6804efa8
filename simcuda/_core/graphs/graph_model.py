"""The graph model: graphs, nodes, edges and their walks (spec 1, 4.5, 9).

Why this file is long (over ~700 lines): the edge forms (ordinary edges, compact chain edges, the pair index) and
every primitive that reads or edits them keep one invariant, so they stay in one module.

The rest of the graph concept builds on this one: :mod:`simcuda._core.graphs.graph_exec` (instantiation and
replay), :mod:`simcuda._core.graphs.graph_update` (copies and exec-update pairing),
:mod:`simcuda._core.graphs.graph_dot` (DOT). These modules know nothing of capture rules or faces; they never raise
``DriverError`` themselves (the driver turns the few failures found here, a cycle or an update mismatch, into codes).

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
  (:func:`chain_node`), and only while the graph
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

Node parameters are the records of :mod:`simcuda._core.graphs.nodes`, one per node kind (never mutated once
stored; a set-params call stores a new record), and everything that differs between kinds (description,
replay, DOT parameter blocks, exec-update checks) is asked of the kind's :class:`~simcuda._core.graphs.nodes.NodeKind`
in :data:`~simcuda._core.graphs.nodes.KINDS`; this module knows the structure only (a GRAPH node's child graph).

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
from typing import TYPE_CHECKING, Any, Protocol

from ..objects import UserRefs
from .nodes import BATCH_MEM_OP as BATCH_MEM_OP
from .nodes import CONDITIONAL as CONDITIONAL
from .nodes import EMPTY as EMPTY
from .nodes import EVENT_RECORD as EVENT_RECORD
from .nodes import EXT_SEMAS_SIGNAL as EXT_SEMAS_SIGNAL
from .nodes import EXT_SEMAS_WAIT as EXT_SEMAS_WAIT
from .nodes import GRAPH as GRAPH
from .nodes import HOST as HOST
from .nodes import KERNEL as KERNEL
from .nodes import (
    KINDS,
)
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

if TYPE_CHECKING:
    from ..capture.capture_rules import CaptureSequence
    from ..objects import Context


class HandleTable(Protocol):
    """Where a node built in place gets its handle (:class:`simcuda._core.handles.Handles` is one)."""

    def add(self, obj: Any) -> int:
        """Register ``obj`` under a new handle and return the handle."""


class GraphMaker(Protocol):
    """What makes graphs and nodes, each with a handle (:class:`simcuda._core.handles.Handles` is one)."""

    def new_graph(self, ctx: Context | None = None) -> Graph:
        """A new empty graph of context ``ctx`` (None: no context), registered under a new handle."""

    def new_node(self, graph: Graph, ntype: int, params: Any) -> Node:
        """A new node of ``graph`` of type ``ntype`` with ``params``, registered under a new handle, with no edges."""


# The node types, update results and kernel records are defined with the kinds (:mod:`simcuda._core.graphs.nodes`);
# the names imported ``as`` themselves above are re-exported for the code and tests that take them from here.

ZERO_ED = (0, 0, 0)
_new = object.__new__

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

    :func:`chain_node` sets the slots itself (no ``__init__`` call) for a node captured in a chain: a new slot
    goes there too (tests/core/test_capture_fast_path.py checks).

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
    :meth:`~simcuda._core.graphs.nodes.NodeKind.describe`; the type keyword for a type without a kind)."""
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


def chain_node(graph: Graph, handles: HandleTable, src: Node, ntype: int, params: Any) -> Node:
    """A new node of ``graph`` of type ``ntype`` with ``params`` (the graph's next local id, a handle from
    ``handles``) whose one dependency is a chain edge from ``src`` (edge data ``ZERO_ED``, the compact form: no
    :class:`Edge`, see the module docstring). The one constructor of a node captured in a chain, the common case
    of a capture and the hot path of a captured launch (:func:`simcuda._core.capture.capture_enqueue.add_node` and
    :func:`~simcuda._core.capture.capture_enqueue.enqueue_kernel` call it). The caller guarantees that the graph has no
    pair index and that ``src`` is a node of ``graph``."""
    lid = graph.next_local
    graph.next_local = lid + 1
    node = _new(Node)  # Node.__init__'s slots, set here without the call (tests/core/test_capture_fast_path.py)
    node.handle = handles.add(node)
    node.graph = graph
    node.local_id = lid
    node.type = ntype
    node.params = params
    node._ins = src
    node._outs = NO_EDGES
    node.destroyed = False
    graph.nodes.append(node)
    if ntype:  # not KERNEL (0): kernels are not counted per type (see Graph)
        tc = graph.type_counts
        tc[ntype] = tc.get(ntype, 0) + 1
    graph.lazy = True
    c = src._outs  # in a chain the source has no out-edge yet; else with_edge adds one
    src._outs = node if c is NO_EDGES else with_edge(c, node)
    return node


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


def in_order(graph: Graph) -> list[Any]:
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
    return [(x._ins, x, ZERO_ED) if x.__class__ is Node else (x.src, x.dst, x.ed) for x in in_order(graph)]


def solid(graph: Graph) -> None:
    """Materialise every chain edge of ``graph`` as an :class:`Edge`, in place: the same edges, each node's edge
    order and the graph's edge order kept (see the module docstring). O(nodes + edges); nothing to do when the
    graph is not ``lazy``."""
    if not graph.lazy:
        return
    order = in_order(graph)
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


def cycle_node(nodes: list[Node]) -> Node:
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
