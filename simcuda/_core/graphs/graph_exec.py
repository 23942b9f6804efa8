"""Executable graphs: instantiation freezes a graph into a :class:`Frozen` body, and :func:`run_frozen` replays it
(spec 9, 16).

See :mod:`simcuda._core.graphs.graph_model` (theory of operation) for the graph model the body is frozen from. This
module never raises ``DriverError`` itself: a cycle is :class:`~simcuda._core.graphs.graph_model.GraphCycle`, which the
driver turns into a code.
"""
from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from ..objects import UserRefs
from . import nodes as nodes_mod
from .graph_model import ZERO_ED, Edge, Graph, GraphCycle, Node, cycle_node, topo_order
from .nodes import (
    COND_WHILE,
    CONDITIONAL,
    GRAPH,
    KINDS,
    MEM_ALLOC,
    MEM_FREE,
    cond_pick,
)

if TYPE_CHECKING:
    from ..memory.memory_model import Allocation


class ClockedRunner(nodes_mod.WorkRunner, Protocol):
    """The scheduler as a replay uses it: what its node kinds call (:class:`simcuda._core.graphs.nodes.WorkRunner`)
    and the simulated clock it advances (spec 16); :class:`simcuda._core.work.Scheduler` is one."""

    clock_ms: float
    """The simulated clock in milliseconds, advanced :data:`TICK_MS` per node a replay runs (spec 16)."""


class RunHost(nodes_mod.ReplayHost, Protocol):
    """What a replay (:func:`run_frozen`) uses of a driver: what its node kinds replay against
    (:class:`simcuda._core.graphs.nodes.ReplayHost`), with a scheduler that keeps the simulated clock."""

    @property
    def scheduler(self) -> ClockedRunner: ...


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
        """The :class:`~simcuda._core.graphs.nodes.CondHandle` of every CONDITIONAL node of this body, its child bodies
        and conditional bodies (any depth, replay order); computed once. A compact body has none."""
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
        :meth:`~simcuda._core.graphs.nodes.NodeKind.allocation` and
        :meth:`~simcuda._core.graphs.nodes.NodeKind.freed`)."""
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
            raise GraphCycle(cycle_node(live))
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
    """A WHILE node's body ran :data:`~simcuda._core.graphs.nodes.COND_WHILE_LIMIT` times in one replay with its
    condition still non-zero (:func:`run_frozen`); the driver turns it into 702 LAUNCH_TIMEOUT (P-27)."""


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
    replays the body :func:`~simcuda._core.graphs.nodes.cond_pick` chooses in place, logging "... begins" and
    "... ends"; a WHILE node reads the value again after each pass and replays its body again while it is
    non-zero, up to :data:`~simcuda._core.graphs.nodes.COND_WHILE_LIMIT` passes (then :class:`WhileLimit`, P-27).
    """
    kernels = body.kernels
    sch = drv.scheduler
    if kernels is not None:  # a compact body: enabled KERNEL nodes only (see Frozen), no child graph
        run_kernel = sch.run_kernel
        for x, p in zip(*kernels):
            sch.clock_ms += TICK_MS
            log(x, p, run_kernel(p))
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
                sch.clock_ms += TICK_MS
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
                         f"simcuda._core.graphs.nodes.COND_WHILE_LIMIT ({nodes_mod.COND_WHILE_LIMIT}) passes (P-27) "
                         "[inferred]")
    owner[2] = passes + 1
    b2: Frozen = b
    return b2
