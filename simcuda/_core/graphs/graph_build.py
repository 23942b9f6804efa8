"""Building graphs node by node: a new node's dependencies, its parameters, attaching it; the structure checks of
conditional bodies at instantiation (spec 9; docs/spec-proposals.md P-21..P-23).

The graph entries (:class:`simcuda._core.graphs.graph_entries.Graphs`), the conditional entries
(:class:`simcuda._core.graphs.conditional_entries.Conditionals`) and the exec entries
(:class:`simcuda._core.graphs.exec_entries.Execs`) all add or check nodes through these functions, so the rules are
written once. They use the handle table (:class:`simcuda._core.handles.Handles`) and the node kinds of
:mod:`simcuda._core.graphs.nodes`; they know nothing of captures, streams or the faces.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from ..capture.capture_rules import check_edge_data
from ..errors import CUresult, DriverError
from . import graph_model as gr
from . import nodes as nd

if TYPE_CHECKING:
    from ..handles import Handles
    from ..objects import Dep, EdgeData, EdgeDataArg

#: an instantiate problem: ``(CUgraphInstantiateResult, the node at fault or None, why)``
InstantiateProblem = tuple[int, "gr.Node | None", str]


def edge_data(ed: Sequence[int]) -> EdgeData:
    """Edge data as a graph stores it: a tuple ``(from_port, to_port, type)`` (a list given to the core too)."""
    return cast("EdgeData", tuple(ed))


def deps_of(handles: Handles, g: gr.Graph, deps: Sequence[int], eds: EdgeDataArg | None) -> list[Dep]:
    """The dependencies of a node being added to ``g``: ``(node, edge data)`` pairs.

    Args:
        handles: the driver's handle table (resolves the dependency handles).
        g: the graph the node joins.
        deps: node handles (``CUgraphNode``), each a live node of ``g``, none twice.
        eds: the edge data per dependency (``CUgraphEdgeData``), or None for plain full dependencies; a shorter
            list is padded with None (each checked by :func:`simcuda._core.capture.capture_rules.check_edge_data`).
    Returns: one pair per dependency, in the order given.
    Errors: 1 INVALID_VALUE for a handle that is no live node of ``g`` (a foreign driver's named in the why), a
        repeated dependency, or bad edge data (spec 9).
    """
    nodes: list[gr.Node] = []
    seen: set[int] = set()
    for i, d in enumerate(deps):
        n = handles.get(d) if d else None
        if not isinstance(n, gr.Node) or n.destroyed or n.graph is not g:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"dependencies[{i}] (0x{int(d or 0):x}) is not a live node of graph {g.gid}"
                              + handles.foreign(d))
        if id(n) in seen:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"dependencies[{i}] (node {n.local_id}) is listed twice; dependencies may not have "
                              "duplicate entries")
        seen.add(id(n))
        nodes.append(n)
    if not eds:
        return [(n, gr.ZERO_ED) for n in nodes]
    padded = list(eds)[:len(nodes)]
    padded += [None] * (len(nodes) - len(padded))
    check_edge_data(padded, "dependencyData")
    return [(n, edge_data(ed)) for n, ed in zip(nodes, padded) if ed is not None]  # check_edge_data refused a None


def attach(handles: Handles, g: gr.Graph, ntype: int, params: Any, pairs: Sequence[Dep]) -> gr.Node:
    """A new node of ``g`` of type ``ntype`` with the (already checked) ``params`` record of its kind, and an edge
    from each dependency of ``pairs`` (:func:`deps_of`). Returns the node (its handle is ``node.handle``)."""
    node = handles.new_node(g, ntype, params)
    for d, ed in pairs:
        gr.add_edge(g, d, node, ed)
    return node


def build_params(host: nd.BuildHost, ntype: int, spec: Any, bad_handle_code: int = 1) -> Any:
    """The checked parameter record of a node of type ``ntype`` from a face's ``spec`` (what the add and set-params
    entries take): the record its kind builds (:meth:`simcuda._core.graphs.nodes.NodeKind.build`).

    GRAPH specs are handled by the callers (they clone or move a graph). ``bad_handle_code``: the code of a bad
    handle inside ``spec`` (1 when a node is added, 400 when its parameters are set).
    Errors: those of the kind's ``build``; 801 NOT_SUPPORTED for a type without a kind.
    """
    kind = nd.KINDS.get(ntype)
    if kind is None:
        raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                          f"nodes of type {gr.TYPE_KEYWORDS.get(ntype, ntype)} are not simulated")
    return kind.build(host, spec, bad_handle_code)


def conditional_problem(g: gr.Graph) -> InstantiateProblem | None:
    """The instantiate checks of the conditional nodes in ``g`` (any depth): the first problem found, or None.

    * a body (at any depth, child graphs in it included) holds a node of a type outside
      :data:`~simcuda._core.graphs.nodes.COND_BODY_TYPES`: NODE_OPERATION_NOT_SUPPORTED (3) [I result; code 1
      observed for an event-wait node, C-29] (P-23);
    * a handle made for ``g`` or a graph in it that no node uses: CONDITIONAL_HANDLE_UNUSED (5) ("Handles not
      associated with a conditional node may cause graph instantiation to fail", P-22).
    """
    graphs = [g]
    stack: list[tuple[gr.Graph, gr.Node | None]] = [(g, None)]
    while stack:
        h, body_of = stack.pop()
        for n in h.live_nodes():
            if body_of is not None and n.type not in nd.COND_BODY_TYPES:
                return (gr.INST_NODE_OPERATION_NOT_SUPPORTED, n,
                        f"node {n.local_id} ({gr.TYPE_KEYWORDS.get(n.type)}) of graph {h.gid} is inside the body "
                        f"of conditional node {body_of.local_id} of graph {body_of.graph.gid}; a conditional body "
                        "may hold only kernel, empty, memcpy, memset, child-graph and conditional nodes, at any "
                        "depth (CUDA_CONDITIONAL_NODE_PARAMS::phGraph_out, P-23)")
            if n.type == gr.GRAPH:
                graphs.append(n.params.graph)
                stack.append((n.params.graph, body_of))
            elif n.type == gr.CONDITIONAL:
                for b in n.params.bodies:
                    graphs.append(b)
                    stack.append((b, n))
    for x in graphs:
        for obj in x.cond_handles or ():
            if obj.node is None or obj.node.destroyed:
                return (5, None, f"conditional handle 0x{obj.handle:x} was made for graph {obj.graph.gid} but "
                                 "no conditional node uses it (CONDITIONAL_HANDLE_UNUSED, P-22)")
    return None
