"""Graph copies and exec-update pairing: :func:`clone_graph` / :func:`find_in_clone` (``cuGraphClone``,
``cuGraphNodeFindInClone``), :func:`graph_from_frozen` (an exec's graph), and :func:`plan_update`, the
``cuGraphExecUpdate`` pairing of a graph's nodes with an exec's (Programming Guide "Whole Graph Update", spec 9.1).

Each maps the nodes of one graph onto another's in creation order; every walk is iterative (see
:mod:`simcuda._core.graphs.graph_model`). Nothing here raises ``DriverError``: an update mismatch is an
:class:`UpdateFailure` the driver turns into its result.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..objects import UserRefs, retain_refs
from .graph_exec import Frozen, signature
from .graph_model import ZERO_ED, Graph, GraphMaker, Node, add_edge, edge_list, in_edges
from .nodes import (
    CONDITIONAL,
    EMPTY,
    GRAPH,
    KINDS,
    MEMCPY,
    NO_PARAMS,
    TYPE_KEYWORDS,
    UPD_NODE_TYPE_CHANGED,
    UPD_NOT_SUPPORTED,
    UPD_TOPOLOGY_CHANGED,
)

if TYPE_CHECKING:
    from ..memory.memory_model import Allocation
    from ..objects import Context


class GraphHost(Protocol):
    """What the graph model's copies (:func:`clone_graph`, :func:`graph_from_frozen`) use of a driver."""

    @property
    def handles(self) -> GraphMaker:
        """The handle table that makes the copy's graphs and nodes."""


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
    :meth:`~simcuda._core.graphs.nodes.NodeKind.update_problem` (NVIDIA's "Graph Update Limitations", Programming
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
