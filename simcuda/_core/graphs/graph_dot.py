"""DOT text of a graph (``cuGraphDebugDotPrint``, spec 9): :func:`dot_text` with the verbosity flags of
``CUgraphDebugDot_flags``; each kind's parameter block comes from its
:class:`~simcuda._core.graphs.nodes.NodeKind`. The walk over child graphs is iterative.
"""
from __future__ import annotations

from typing import Any

from .graph_model import ZERO_ED, Graph, Node, in_order, topo_order, topo_order_partial
from .nodes import (
    CONDITIONAL,
    DOT_ALL,
    DOT_EXTRA_TOPO_INFO,
    DOT_HANDLES,
    DOT_KERNEL_ATTRIBUTES,
    DOT_RUNTIME_TYPES,
    DOT_VERBOSE,
    GRAPH,
    KINDS,
    NodeKind,
    addr,
)

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
    for x in in_order(g):
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
