"""Graphs, nodes, edges, executable graphs and replay (spec sections 1, 4.5, 9).

A :class:`Graph` keeps its nodes and edges in creation order (``cuGraphGetNodes`` and
``cuGraphGetEdges`` return them in that order [I], spec 4.5). A node's ``local_id`` is its
0-based creation index in its graph [O]. Edges carry edge data as a tuple
``(from_port, to_port, type)``; ``ZERO_ED`` is an ordinary full dependency.

This module knows nothing of capture rules or faces. Replay (``run_exec``) executes nodes in a
topological order, creation order breaking ties, against the driver's simulated memory.
"""
from __future__ import annotations

import ctypes
import heapq
from typing import Any, Callable, Iterable

from .errors import DriverError
from .memory import do_copy, do_memset

ZERO_ED = (0, 0, 0)

# CUgraphNodeType values (spec section 10)
KERNEL, MEMCPY, MEMSET, HOST, GRAPH, EMPTY, WAIT_EVENT, EVENT_RECORD = 0, 1, 2, 3, 4, 5, 6, 7
EXT_SEMAS_SIGNAL, EXT_SEMAS_WAIT, MEM_ALLOC, MEM_FREE, BATCH_MEM_OP, CONDITIONAL = 8, 9, 10, 11, 12, 13

TYPE_KEYWORDS = {
    KERNEL: "KERNEL", MEMCPY: "MEMCPY", MEMSET: "MEMSET", HOST: "HOST", GRAPH: "GRAPH", EMPTY: "EMPTY",
    WAIT_EVENT: "WAIT_EVENT", EVENT_RECORD: "EVENT_RECORD", EXT_SEMAS_SIGNAL: "EXT_SEMAS_SIGNAL",
    EXT_SEMAS_WAIT: "EXT_SEMAS_WAIT", MEM_ALLOC: "MEM_ALLOC", MEM_FREE: "MEM_FREE",
    BATCH_MEM_OP: "BATCH_MEM_OP", CONDITIONAL: "CONDITIONAL",
}

HOST_FN_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
#: CUstreamCallback: void (*)(CUstream hStream, CUresult status, void *userData)
STREAM_CALLBACK_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)


def is_full(ed: tuple[int, int, int]) -> bool:
    """A full dependency: type DEFAULT and from_port 0 (spec 4.4)."""
    return ed[2] == 0 and ed[0] == 0


class Edge:
    __slots__ = ("src", "dst", "ed")

    def __init__(self, src: "Node", dst: "Node", ed: tuple[int, int, int]) -> None:
        self.src, self.dst, self.ed = src, dst, ed


class Node:
    __slots__ = ("handle", "graph", "local_id", "type", "params", "ins", "outs", "destroyed")

    def __init__(self, handle: int, graph: "Graph", local_id: int, ntype: int, params: Any) -> None:
        self.handle = handle
        self.graph = graph
        self.local_id = local_id
        self.type = ntype
        self.params = params
        self.ins: list[Edge] = []
        self.outs: list[Edge] = []
        self.destroyed = False

    def describe(self) -> str:
        """Type-specific text used by DOT labels and summaries."""
        p = self.params
        if self.type == KERNEL:
            return p["name"]
        if self.type in (MEMCPY, MEMSET):
            return p.describe()
        if self.type == GRAPH:
            return f"graph_{p['graph'].gid}"
        if self.type in (EVENT_RECORD, WAIT_EVENT):
            return f"event 0x{p['event'].handle:x}"
        if self.type == MEM_ALLOC:
            return f"0x{p['alloc'].start:x} ({p['alloc'].size} bytes)"
        if self.type == MEM_FREE:
            return f"0x{p['dptr']:x}"
        if self.type == HOST:
            fn = p["fn"]
            return f"fn 0x{fn:x}" if isinstance(fn, int) else getattr(fn, "__name__", "host function")
        return TYPE_KEYWORDS.get(self.type, str(self.type))


class Graph:
    __slots__ = ("handle", "gid", "nodes", "edges", "removed_edges", "capture_target_of", "live_execs",
                 "destroyed", "owner_node", "ctx", "next_local")

    def __init__(self, handle: int, gid: int, ctx: Any = None) -> None:
        self.handle = handle
        self.gid = gid
        self.nodes: list[Node] = []
        self.edges: list[Edge] = []
        self.removed_edges: list[Edge] = []
        self.capture_target_of = None
        self.live_execs = 0
        self.destroyed = False
        self.owner_node: Node | None = None  # set for a child graph owned by a GRAPH node
        self.ctx = ctx
        self.next_local = 0

    def live_nodes(self) -> list[Node]:
        return [n for n in self.nodes if not n.destroyed]

    def has_type(self, *types: int) -> bool:
        return any(n.type in types for n in self.nodes if not n.destroyed)


def add_edge(graph: Graph, src: Node, dst: Node, ed: tuple[int, int, int] = ZERO_ED) -> Edge:
    e = Edge(src, dst, ed)
    graph.edges.append(e)
    src.outs.append(e)
    dst.ins.append(e)
    return e


def remove_edge(graph: Graph, e: Edge) -> None:
    graph.edges.remove(e)
    e.src.outs.remove(e)
    e.dst.ins.remove(e)
    graph.removed_edges.append(e)


def topo_order(nodes: list[Node]) -> list[Node] | None:
    """Kahn's algorithm, creation order (local id) breaking ties; None when there is a cycle."""
    live = [n for n in nodes if not n.destroyed]
    indeg = {id(n): 0 for n in live}
    for n in live:
        for e in n.ins:
            if id(e.src) in indeg:
                indeg[id(n)] += 1
    heap = [(n.local_id, i, n) for i, n in enumerate(live) if indeg[id(n)] == 0]
    heapq.heapify(heap)
    out: list[Node] = []
    while heap:
        _, _, n = heapq.heappop(heap)
        out.append(n)
        for e in n.outs:
            k = id(e.dst)
            if k in indeg:
                indeg[k] -= 1
                if indeg[k] == 0:
                    heapq.heappush(heap, (e.dst.local_id, len(out) + len(heap), e.dst))
    return out if len(out) == len(live) else None


class ExecNode:
    """A node as frozen into an executable graph (parameters copied at instantiate)."""

    __slots__ = ("origin", "local_id", "type", "params", "child")

    def __init__(self, origin: Node, params: Any, child: "list[ExecNode] | None") -> None:
        self.origin = origin
        self.local_id = origin.local_id
        self.type = origin.type
        self.params = params
        self.child = child


class GraphExec:
    __slots__ = ("handle", "graph", "gid", "flags", "order", "destroyed", "launches", "unfreed",
                 "topology", "by_origin")

    def __init__(self, handle: int, graph: Graph, flags: int, order: list[ExecNode], topology: Any) -> None:
        self.handle = handle
        self.graph = graph
        self.gid = graph.gid
        self.flags = flags
        self.order = order
        self.destroyed = False
        self.launches = 0
        self.unfreed: list[Any] = []  # graph allocations mapped by a launch and not freed yet
        self.topology = topology
        self.by_origin = {id(x.origin): x for x in order}


def freeze(graph: Graph) -> list[ExecNode] | None:
    """Topologically ordered copies of a graph's nodes (child graphs frozen recursively)."""
    order = topo_order(graph.nodes)
    if order is None:
        return None
    out = []
    for n in order:
        child = None
        params = n.params
        if n.type == GRAPH:
            child = freeze(params["graph"])
        elif isinstance(params, dict):
            params = dict(params)
        out.append(ExecNode(n, params, child))
    return out


def topology_signature(graph: Graph) -> tuple:
    """Creation-ordered (type, sorted incoming local ids) per node: used by exec update pairing."""
    return tuple((n.type, tuple(sorted(e.src.local_id for e in n.ins))) for n in graph.live_nodes())


def run_nodes(drv: Any, nodes: Iterable[ExecNode], log: Callable[[ExecNode, str], None], exe: GraphExec) -> None:
    """Replay frozen nodes in order against the driver's memory (spec section 9, replay)."""
    mem = drv.memory
    for x in nodes:
        t = x.type
        p = x.params
        note = ""
        if t == KERNEL:
            note = drv._run_kernel(p)
        elif t == MEMCPY:
            do_copy(mem, p)
        elif t == MEMSET:
            do_memset(mem, p)
        elif t == HOST:
            drv._call_host_fn(p["fn"], p["user_data"])
        elif t == GRAPH:
            log(x, "child graph begins")
            run_nodes(drv, x.child or [], log, exe)
            note = "child graph ends"
        elif t == EVENT_RECORD:
            drv._complete_event(p["event"])
        elif t == MEM_ALLOC:
            a = p["alloc"]
            if a.buf is None:
                a.buf = bytearray(a.size)
                exe.unfreed.append(a)
            note = f"mapped 0x{a.start:x}"
        elif t == MEM_FREE:
            a = mem.find(p["dptr"])
            if a is not None and a.buf is not None:
                a.buf = None
                if a in exe.unfreed:
                    exe.unfreed.remove(a)
            note = f"unmapped 0x{p['dptr']:x}"
        elif t in (WAIT_EVENT, EMPTY):
            pass
        else:
            note = "recorded only (not simulated)"
        log(x, note)


def clone_graph(drv: Any, g: Graph) -> Graph:
    """Deep copy of ``g`` (child graphs included); node local ids are kept."""
    new = drv._new_graph(g.ctx)
    mapping: dict[int, Node] = {}
    for n in g.nodes:
        if n.destroyed:
            continue
        params = n.params
        if n.type == GRAPH:
            child = clone_graph(drv, params["graph"])
            params = dict(params, graph=child)
        elif isinstance(params, dict):
            params = dict(params)
        m = drv._new_node(new, n.type, params)
        if n.type == GRAPH:
            params["graph"].owner_node = m
        mapping[id(n)] = m
    for e in g.edges:
        add_edge(new, mapping[id(e.src)], mapping[id(e.dst)], e.ed)
    return new


def dot_text(g: Graph, flags: int = 0) -> str:
    """Graphviz text in the layout of spec 9.1 (cluster per graph, child graphs as clusters)."""
    verbose = bool(flags & 1)
    topo_info = bool(flags & (1 | 16384))
    lines = ["digraph dot {"]
    _dot_cluster(g, verbose, topo_info, lines)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("<", "\\<").replace(">", "\\>") \
        .replace("{", "\\{").replace("}", "\\}").replace("|", "\\|")


def _dot_cluster(g: Graph, verbose: bool, topo_info: bool, lines: list[str]) -> None:
    gid = g.gid
    lines.append(f"subgraph cluster_{gid} {{")
    lines.append(f'label="graph_{gid}" graph[style="dashed"];')
    live = g.live_nodes()
    order = topo_order(live) or live
    topo_id = {id(n): len(order) - 1 - i for i, n in enumerate(order)}
    children = []
    for n in live:
        key = TYPE_KEYWORDS.get(n.type, str(n.type))
        name = f"graph_{gid}_node_{n.local_id}"
        if verbose:
            desc = _esc(n.describe())
            if n.type == KERNEL:
                p = n.params
                extra = f"{desc}{_esc('<<<')}{p['grid']},{p['block']},{p['shmem']}{_esc('>>>')}"
            else:
                extra = desc
            label = (f"{{{key} | {{ID | {n.local_id} (topoId: {topo_id[id(n)]}) | {extra}}} | "
                     f"{{{{node handle}} | {{0x{n.handle:x}}}}}}}")
            lines.append(f'"{name}"[style="solid" shape="record" label="{label}"];')
        elif n.type == KERNEL:
            lines.append(f'"{name}"[style="bold" shape="octagon" label="{n.local_id}\n{_esc(n.describe())}\n"];')
        else:
            lines.append(f'"{name}"[style="solid" shape="rectangle" label="{n.local_id}\n{key}\n{_esc(n.describe())}\n"];')
        if n.type == GRAPH:
            children.append(n.params["graph"])
    for e in g.edges:
        suffix = f" [headlabel={e.ed[1]}]" if topo_info and e.ed != ZERO_ED else ""
        lines.append(f'"graph_{gid}_node_{e.src.local_id}" -> "graph_{gid}_node_{e.dst.local_id}"{suffix};')
    lines.append("}")
    for c in children:
        _dot_cluster(c, verbose, topo_info, lines)
