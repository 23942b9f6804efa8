"""Graphs: creation, nodes of every kind, edges, queries, clone, params, DOT (spec 4.5, 9, 9.1).

Why this file is long (over ~700 lines): it is one entry group (the graph-building entries): one short method per
entry of each node kind, plus the generic node add and the MEM_ALLOC rules.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from ..capture import capture_rules as cap
from ..errors import CUresult, DriverError
from ..memory import hostmem
from ..memory.memory_model import KIND_GRAPH, CopyParams, MemsetParams
from ..modules import launch
from ..objects import Dep, EdgeData, EdgeDataArg, Function, MemOp, SemValue, require_pools
from ..state import entry
from . import graph_build as gb
from . import graph_dot as gd
from . import graph_model as gr
from . import graph_update as gu
from . import nodes as nd
from .conditional_entries import Conditionals


class Graphs(Conditionals):
    """Graphs: creation, nodes of every kind, edges, queries, clone, params, DOT of the simulated driver.

    Entries: ``cuGraphCreate``/``Destroy``, ``cuGraphAdd*Node``, ``cuGraph*Dependencies``,
    ``cuGraphGet*``, ``cuGraphNode*``, ``cuGraphClone``, ``cuGraphDebugDotPrint``; a CONDITIONAL node through the
    :class:`~simcuda._core.graphs.conditional_entries.Conditionals` entries it builds on. Nodes are added through
    :mod:`simcuda._core.graphs.graph_build`.
    """
    # ------------------------------------------------------------------ graphs
    # Graph entry points (spec 9). In every call the handles are checked first, then the arguments,
    # then the state rules; nothing changes until every check has passed (a rejected call changes
    # nothing). Codes come from each call's documented Returns list (INVALID_VALUE for almost all).
    @entry
    def graph_create(self, flags: int) -> int:
        """cuGraphCreate: a new, empty graph (owned by the caller's current context, if any).

        Args:
            flags: must be 0.
        Returns: the graph handle (``int``).
        Errors: 1 INVALID_VALUE when ``flags`` != 0 (spec 9).
        """
        if flags != 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuGraphCreate flags must be 0, got {flags} (spec 9)")
        return self.handles.new_graph(self.threads.current().current).handle

    @entry
    def graph_destroy(self, h: int) -> None:
        """cuGraphDestroy: destroy a graph and its nodes (child graphs included).

        Errors: 1 INVALID_VALUE for a NULL or destroyed graph, a graph that is the target of a
        capture (spec 3.5, 9) [I], or a graph owned by a child-graph node (cloned into it, or moved
        there with ``CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE``).
        Fidelity: execs made from the graph stay usable (they hold frozen copies), as on NVIDIA.
        """
        g = self.handles.graph(h)
        cap.check_capture_target(g, "destroy")
        if g.owner_node is not None:
            what = "conditional node" if g.owner_node.type == gr.CONDITIONAL else "child-graph node"  # P-21
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"graph {g.gid} is owned by {what} {g.owner_node.local_id} of graph "
                              f"{g.owner_node.graph.gid} and cannot be destroyed directly")
        self.discard_graph(g)

    def _kernel_spec(self, hfunc: int, grid: Sequence[int], block: Sequence[int], shmem: int, args: list[Any],
                     bad_function_code: int = 1, priority: int = 0) -> gr.KernelParams:
        f = self.handles.get(hfunc) if hfunc else None
        if not isinstance(f, Function) or f.module.unloaded:
            raise DriverError(bad_function_code, "the kernel node's function is NULL" if not hfunc else
                              f"0x{hfunc:x} is not the handle of a function of a loaded module")
        grid, block = tuple(int(v) for v in grid), tuple(int(v) for v in block)
        launch.check_shape(self, f, grid, block, int(shmem), "kernel node")
        return gr.KernelParams(f, grid, block, int(shmem), list(args), priority)

    def _add(self, hgraph: int, deps: list[int], eds: EdgeDataArg | None, ntype: int, spec: Any) -> int:
        g = self.handles.graph(hgraph)
        pairs = gb.deps_of(self.handles, g, deps, eds)
        params = gb.build_params(self, ntype, spec)
        return gb.attach(self.handles, g, ntype, params, pairs).handle

    @entry
    def graph_add_kernel_node(self, hgraph: int, deps: list[int], hfunc: int, grid: Sequence[int], block: Sequence[int],
                              shmem: int, args: list[Any], eds: EdgeDataArg | None = None) -> int:
        """cuGraphAddKernelNode (and ``cuGraphAddNode`` for KERNEL): add a KERNEL node.

        Args:
            deps: dependency node handles (already cut to numDependencies); ``eds`` their edge data.
            hfunc: a function handle; ``grid``/``block``: ``(x, y, z)``; ``shmem``: dynamic shared memory
                in bytes; ``args``: the decoded argument values.
        Returns: the node handle.
        Errors: 1 INVALID_VALUE for a bad graph or dependency, a bad function (its Returns list has no
        INVALID_HANDLE), a zero or oversized dimension.
        """
        return self._add(hgraph, deps, eds, gr.KERNEL, {"hfunc": hfunc, "grid": grid, "block": block,
                                                         "shmem": shmem, "args": args})

    @entry
    def graph_add_memcpy_node(self, hgraph: int, deps: list[int], p: CopyParams, eds: EdgeDataArg | None = None) -> int:
        """cuGraphAddMemcpyNode: a MEMCPY node; host sides are read and written when the graph runs (3.10).

        Errors: 1 INVALID_VALUE bad graph/dependencies, device ranges outside an allocation.
        """
        return self._add(hgraph, deps, eds, gr.MEMCPY, p)

    @entry
    def graph_add_memset_node(self, hgraph: int, deps: list[int], p: MemsetParams,
                              eds: EdgeDataArg | None = None) -> int:
        """cuGraphAddMemsetNode: a MEMSET node. Errors: 1 bad graph/dependencies, range, element size."""
        return self._add(hgraph, deps, eds, gr.MEMSET, p)

    @entry
    def graph_add_host_node(self, hgraph: int, deps: list[int], fn: Any, user_data: Any, sync_mode: int = 0,
                            eds: EdgeDataArg | None = None) -> int:
        """cuGraphAddHostNode: a HOST node calling ``fn(user_data)`` on every launch (spec 3.9).

        Args: ``fn`` an ``int`` function address (``void (*)(void*)``) or a Python callable (core use);
        ``sync_mode`` a ``CUhostTaskSyncMode`` (0 or 1).
        Errors: 1 INVALID_VALUE NULL function, bad sync mode, bad graph/dependencies.
        """
        return self._add(hgraph, deps, eds, gr.HOST, {"fn": fn, "user_data": user_data, "sync_mode": sync_mode})

    def graph_add_node(self, hgraph: int, deps: list[int], ntype: int, spec: Any, eds: EdgeDataArg,
                       call: str) -> tuple[int, Any]:
        """cuGraphAddNode / cuGraphAddNode_v3: the typed add of node type ``ntype`` (``CUgraphNodeType``) with the
        parameters a face read from ``CUgraphNodeParams`` (``spec``, the shape each typed add takes: a kernel's
        ``{"hfunc", "grid", "block", "shmem", "args"}``, a ``CopyParams``, a ``MemsetParams``, a host node's
        ``{"fn", "user_data", "sync_mode"}``, a child graph's ``(graph, ownership)``, an event, a semaphore
        ``{"sems", "values"}``, an allocation ``{"size", "location", "alloc_type", "access"}``, a freed address,
        a batch ``{"ops", "flags", "ctx"}``, a conditional node's ``{"handle", "type", "size", "ctx"}``).
        Returns ``(node handle, the allocation's address, or a conditional node's body graph handles, or None)``.

        Errors: those of the typed add of that type (``cuGraphAdd*Node``), and for a child graph the ownership
        rule (:meth:`check_child_ownership`)."""
        if ntype == gr.KERNEL:
            return self.graph_add_kernel_node(hgraph, deps, spec["hfunc"], spec["grid"], spec["block"],
                                              spec["shmem"], spec["args"], eds), None
        if ntype == gr.MEMCPY:
            return self.graph_add_memcpy_node(hgraph, deps, spec, eds), None
        if ntype == gr.MEMSET:
            return self.graph_add_memset_node(hgraph, deps, spec, eds), None
        if ntype == gr.HOST:
            return self.graph_add_host_node(hgraph, deps, spec["fn"], spec["user_data"], spec["sync_mode"],
                                            eds), None
        if ntype == gr.GRAPH:
            hchild, own = spec
            self.check_child_ownership(own, call)
            return self.graph_add_child_graph_node(hgraph, deps, hchild, eds, move=own == 1), None
        if ntype == gr.EMPTY:
            return self.graph_add_empty_node(hgraph, deps, eds), None
        if ntype in (gr.WAIT_EVENT, gr.EVENT_RECORD):
            return self.graph_add_event_node(hgraph, deps, spec, ntype == gr.WAIT_EVENT, eds), None
        if ntype in (gr.EXT_SEMAS_SIGNAL, gr.EXT_SEMAS_WAIT):
            return self.graph_add_ext_sem_node(hgraph, deps, spec["sems"], spec["values"],
                                               ntype == gr.EXT_SEMAS_WAIT, eds), None
        if ntype == gr.MEM_ALLOC:
            h, dptr = self.graph_add_mem_alloc_node(hgraph, deps, spec["size"], spec["location"],
                                                    spec["alloc_type"], spec["access"], eds)
            return h, dptr
        if ntype == gr.MEM_FREE:
            return self.graph_add_mem_free_node(hgraph, deps, spec, eds), None
        if ntype == gr.CONDITIONAL:  # conditional nodes (topic: conditional; graphs/conditional_entries.py)
            return self.graph_add_conditional_node(hgraph, deps, spec["handle"], spec["type"], spec["size"],
                                                   spec["ctx"], eds)
        return self.graph_add_batch_mem_op_node(hgraph, deps, spec["ops"], spec["flags"], spec["ctx"], eds), None

    @entry
    def graph_add_empty_node(self, hgraph: int, deps: list[int], eds: EdgeDataArg | None = None) -> int:
        """cuGraphAddEmptyNode: an EMPTY node (a join point). Errors: 1 bad graph/dependencies."""
        return self._add(hgraph, deps, eds, gr.EMPTY, None)

    @entry
    def graph_add_event_node(self, hgraph: int, deps: list[int], hevent: int, wait: bool,
                             eds: EdgeDataArg | None = None) -> int:
        """cuGraphAddEventRecordNode / cuGraphAddEventWaitNode: an EVENT_RECORD or WAIT_EVENT node.

        Replay: a record node completes the event; a wait node has nothing to wait for (replay runs
        in one order). Errors: 1 INVALID_VALUE bad graph, dependencies or event (their Returns lists
        have no INVALID_HANDLE).
        """
        return self._add(hgraph, deps, eds, gr.WAIT_EVENT if wait else gr.EVENT_RECORD, hevent)

    @entry
    def graph_add_batch_mem_op_node(self, hgraph: int, deps: list[int], ops: list[MemOp], flags: int = 0, hctx: int = 0,
                                    eds: EdgeDataArg | None = None) -> int:
        """cuGraphAddBatchMemOpNode: a BATCH_MEM_OP node.

        Args: ``ops``: ``(CUstreamBatchMemOpType, device address, value, flags)`` tuples, fewer than 256;
        ``flags`` must be 0; ``hctx`` a context handle or 0.
        Replay: WRITE_VALUE operations store their value; WAIT_VALUE operations evaluate their
        condition and note it (the simulator cannot block); barriers and flushes are no-ops.
        Errors: 1 INVALID_VALUE bad graph/dependencies, unknown operation, address outside device
        memory or misaligned, value too wide, unknown flags; 201/709 bad context.
        """
        return self._add(hgraph, deps, eds, gr.BATCH_MEM_OP, {"ops": ops, "flags": flags, "ctx": hctx})

    @entry
    def graph_add_ext_sem_node(self, hgraph: int, deps: list[int], sems: list[int], values: list[SemValue],
                               wait: bool, eds: EdgeDataArg | None = None) -> int:
        """cuGraphAddExternalSemaphoresSignalNode / WaitNode: an EXT_SEMAS_SIGNAL (8) / EXT_SEMAS_WAIT (9) node.

        Args: ``sems``: ``CUexternalSemaphore`` handles; ``values``: per semaphore
        ``(fence value, keyed-mutex key, timeout in ms, flags)``.
        Fidelity: external semaphores cannot be imported in the simulator, so handles are recorded
        without a check (only NULL is refused); replay is a no-op with a note in the launch log.
        Errors: 1 INVALID_VALUE bad graph/dependencies, no semaphores, a NULL handle.
        """
        return self._add(hgraph, deps, eds, gr.EXT_SEMAS_WAIT if wait else gr.EXT_SEMAS_SIGNAL,
                         {"sems": sems, "values": values})

    def _memory_node_graph(self, hgraph: int, deps: list[int], eds: EdgeDataArg | None) -> tuple[gr.Graph, list[Dep]]:
        """The graph and dependencies of a new MEM_ALLOC / MEM_FREE node: INVALID_VALUE for a graph owned by a
        child-graph node (memory nodes cannot be added to it)."""
        g = self.handles.graph(hgraph)
        pairs = gb.deps_of(self.handles, g, deps, eds)
        if g.owner_node is not None:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"graph {g.gid} is owned by a child-graph node; allocation and free nodes cannot be "
                              "added to it")
        return g, pairs

    @entry
    def graph_add_mem_alloc_node(self, hgraph: int, deps: list[int], size: int, location: tuple[int, int] = (1, 0),
                                 alloc_type: int = 1, access: Sequence[Sequence[int]] | None = None,
                                 eds: EdgeDataArg | None = None) -> tuple[int, int]:
        """cuGraphAddMemAllocNode: a MEM_ALLOC node owning a fixed virtual address.

        Args:
            size: bytes (> 0). ``location``: ``(CUmemLocationType, id)``; only DEVICE (1) on an existing
            device is simulated. ``alloc_type``: ``CUmemAllocationType`` (PINNED 1; MANAGED 2 on a device
            that reports managed memory, spec 17 [O], simulated as device memory the host can also reach:
            every simulated allocation is host-backed). ``access``:
            ``(location type, id, CUmemAccess_flags)`` for peer access descriptors.
        Returns: ``(node handle, dptr)``. The address stays fixed across instantiations and launches; the
        memory is mapped when the node runs and unmapped by a MEM_FREE node, cuMemFreeAsync or cuMemFree.
        Errors: 1 INVALID_VALUE bad graph/dependencies, size 0, a location other than DEVICE, an allocation
        type other than PINNED or MANAGED (MANAGED on a device without managed memory), an access
        descriptor naming an unknown device, or a graph owned by a child-graph node;
        801 NOT_SUPPORTED a device without memory pools (``DeviceSpec(memory_pools=False)``, P-10 [I]).
        """
        g, pairs = self._memory_node_graph(hgraph, deps, eds)
        if int(size) <= 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"allocation node bytesize {size} must be positive")
        ltype, lid = location
        if ltype != 1 or not 0 <= int(lid) < len(self.devices):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"allocation node location (type {ltype}, id {lid}) is not a device of this driver "
                              "(CU_MEM_LOCATION_TYPE_DEVICE with a valid ordinal) [inferred]")
        managed = self.devices[int(lid)].spec.managed_memory
        if alloc_type != 1 and not (alloc_type == 2 and managed):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"allocation node allocType {alloc_type} is not CU_MEM_ALLOCATION_TYPE_PINNED (1)"
                              + (" or CU_MEM_ALLOCATION_TYPE_MANAGED (2), which a device reporting managed memory "
                                 "accepts (spec 17)" if managed else "; the device has no managed memory, so "
                                 "MANAGED (2) is refused too (spec 17)"))
        require_pools(self.devices[int(lid)], "cuGraphAddMemAllocNode")  # P-10 [I]
        descs = tuple(tuple(int(v) for v in a) for a in (access or []))
        for i, (t, did, fl) in enumerate(descs):
            if t != 1 or not 0 <= did < len(self.devices) or fl not in (0, 1, 3):
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"accessDescs[{i}] (location type {t}, id {did}, flags {fl}) is not valid")
        ctx = self.devices[int(lid)].primary if g.ctx is None else g.ctx
        a = self.memory.reserve(int(size), KIND_GRAPH, ctx)
        node = gb.attach(self.handles, g, gr.MEM_ALLOC, nd.MemAllocParams(a, int(size), int(lid), descs), pairs)
        a.graph_node = node
        return node.handle, a.start

    def _graph_alloc_to_free(self, dptr: int, g: gr.Graph, pairs: list[Dep] | None) -> Any:
        """The graph allocation a new MEM_FREE node (in ``g``, after ``pairs``) frees (cuGraphAddMemFreeNode)."""
        a = self.memory.find(int(dptr))
        if a is None or a.kind != KIND_GRAPH or a.start != int(dptr):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"0x{int(dptr):x} is not an address returned by an allocation node (or cuMemAllocAsync "
                              "during capture); a free node can only free those")
        if a.free_node is not None and not a.free_node.destroyed:
            fg = a.free_node.graph
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"allocation 0x{a.start:x} is already freed by node {a.free_node.local_id} of graph "
                              f"{fg.gid}; an allocation can be freed by only one free node")
        own = a.graph_node.graph if a.graph_node is not None else None
        if pairs is not None and own is g and a.graph_node is not None:
            anc = gr.ancestors([n for n, _ in pairs])
            if id(a.graph_node) not in anc:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"the free node of 0x{a.start:x} must be ordered after its allocation node "
                                  f"{a.graph_node.local_id} in graph {g.gid} [inferred]")
        return a

    @entry
    def graph_add_mem_free_node(self, hgraph: int, deps: list[int], dptr: int, eds: EdgeDataArg | None = None) -> int:
        """cuGraphAddMemFreeNode: a MEM_FREE node for a graph allocation.

        Errors: 1 INVALID_VALUE bad graph/dependencies; an address not returned by an allocation node;
        an allocation already freed by a free node (in this or another graph); in the owning graph, a
        free node not ordered after the allocation node [I]; a graph owned by a child-graph node.
        """
        g, pairs = self._memory_node_graph(hgraph, deps, eds)
        a = self._graph_alloc_to_free(int(dptr), g, pairs)
        node = gb.attach(self.handles, g, gr.MEM_FREE, nd.MemFreeParams(a.start), pairs)
        a.free_node = node
        return node.handle

    def _child_for(self, hchild: int, parent: gr.Graph, move: bool) -> gr.Graph:
        child = self.handles.graph(hchild)
        cap.check_capture_target(child, "move" if move else "read")
        if child.owner_node is not None:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"graph {child.gid} is owned by a child-graph node; it cannot be added to another "
                              "parent")
        if child.has_type_deep(gr.CONDITIONAL):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"graph {child.gid} holds conditional nodes and cannot be a child graph")
        if not move and child.has_type_deep(gr.MEM_ALLOC, gr.MEM_FREE):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"graph {child.gid} holds memory allocation or free nodes; a child graph node can hold "
                              "it only with CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE (cuGraphAddNode)")
        if move:
            if child is parent or gr.owns(child, parent):
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"graph {child.gid} cannot be moved into itself")
            if child.live_execs:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"graph {child.gid} still has {child.live_execs} exec(s); it cannot be moved into "
                                  "a node [inferred]")
        return child

    @entry
    def graph_add_child_graph_node(self, hgraph: int, deps: list[int], hchild: int, eds: EdgeDataArg | None = None,
                                   move: bool = False) -> int:
        """cuGraphAddChildGraphNode (and ``cuGraphAddNode`` for GRAPH): a GRAPH node embedding ``child``.

        The child is **cloned** into the node [D]; with ``move`` (``CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE``)
        the graph itself is moved into the node and its handle becomes owned by it. Allowed on a capture
        graph during capture (spec 4.6).
        Errors: 1 INVALID_VALUE bad graphs/dependencies; ``child`` holds CONDITIONAL nodes, or MEM_ALLOC /
        MEM_FREE nodes without ``move``; ``child`` is a capture target moved with ``move`` (a copy of a capture
        graph is a read and allowed: ``capture.CAPTURE_TARGET_USES``) or already owned by a node.
        """
        g = self.handles.graph(hgraph)
        pairs = gb.deps_of(self.handles, g, deps, eds)
        child = self._child_for(hchild, g, move)
        if not move:  # the embedded clone keeps its clone map: cuGraphNodeFindInClone works on it (spec 17)
            child = gu.clone_graph(self, child)
        node = gb.attach(self.handles, g, gr.GRAPH, nd.ChildGraphParams(child), pairs)
        child.owner_node = node
        child.moved = move
        return node.handle

    @entry
    def graph_child_graph_node_get_graph(self, hnode: int) -> int:
        """cuGraphChildGraphNodeGetGraph: the embedded graph, owned by the node (not a copy).

        Errors: 1 INVALID_VALUE bad node, or not a GRAPH node.
        """
        n = self.handles.node(hnode)
        if n.type != gr.GRAPH:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"node {n.local_id} of graph {n.graph.gid} is {gr.TYPE_KEYWORDS[n.type]}, not a "
                              "child-graph node")
        child: gr.Graph = n.params.graph
        return child.handle

    @entry
    def graph_get_nodes(self, hgraph: int) -> list[int]:
        """cuGraphGetNodes: live node handles in creation order (spec 4.5) [I]. Errors: 1 bad graph."""
        return [n.handle for n in self.handles.graph(hgraph).live_nodes()]

    @entry
    def graph_get_root_nodes(self, hgraph: int) -> list[int]:
        """cuGraphGetRootNodes: nodes with no dependency, creation order. Errors: 1 bad graph."""
        return [n.handle for n in self.handles.graph(hgraph).live_nodes() if not gr.in_edges(n)]

    @entry
    def graph_get_edges(self, hgraph: int) -> list[tuple[int, int, EdgeData]]:
        """cuGraphGetEdges: ``(from, to, edge data)`` in creation order (spec 4.5). Errors: 1 bad graph."""
        return [(src.handle, dst.handle, ed) for src, dst, ed in gr.edge_list(self.handles.graph(hgraph))]

    @entry
    def graph_node_get_type(self, hnode: int) -> int:
        """cuGraphNodeGetType: the ``CUgraphNodeType`` value. Errors: 1 bad node."""
        return self.handles.node(hnode).type

    @entry
    def graph_node_get_dependencies(self, hnode: int, dependents: bool = False) -> list[tuple[int, EdgeData]]:
        """cuGraphNodeGetDependencies / DependentNodes: ``[(node, edge data)]`` in edge order. Errors: 1."""
        n = self.handles.node(hnode)
        if dependents:
            return [(dst.handle, ed) for dst, ed in gr.out_edges(n)]
        return [(src.handle, ed) for src, ed in gr.in_edges(n)]

    @entry
    def graph_node_get_containing_graph(self, hnode: int) -> int:
        """cuGraphNodeGetContainingGraph. Errors: 1 bad node."""
        return self.handles.node(hnode).graph.handle

    @entry
    def graph_get_id(self, hgraph: int) -> int:
        """cuGraphGetId: the graph's id, as in ``graph_<id>`` of DOT output (spec 9). Errors: 1."""
        return self.handles.graph(hgraph).gid

    @entry
    def graph_node_get_local_id(self, hnode: int) -> int:
        """cuGraphNodeGetLocalId: 0-based creation index, as in ``node_<id>`` of DOT output. Errors: 1."""
        return self.handles.node(hnode).local_id

    @entry
    def graph_add_dependencies(self, hgraph: int, froms: list[int], tos: list[int],
                               eds: EdgeDataArg) -> None:
        """cuGraphAddDependencies: add edges ``froms[i] -> tos[i]`` with edge data ``eds`` (empty: zero).

        Args:
            hgraph: the graph handle.
            froms, tos: node handles, paired by position (``zip``: the shorter list decides).
            eds: ``(from_port, to_port, type)`` per edge, or empty for all-zero edge data.

        The edges are appended in the given order, after the graph's existing edges (``cuGraphGetEdges``
        returns creation order, spec 4.5). Each edge costs O(1) whatever the graph's shape: duplicates are
        found in the graph's pair index (:func:`graph.pair_index`) and in a dict of the call's own edges.
        Errors: 1 INVALID_VALUE (checked edge by edge, the first failing edge named): a node handle NULL,
        destroyed or outside the graph, a self edge, an edge between two nodes that already have one
        (whatever its edge data) or one listed twice in this call (spec 9); then bad edge data (a missing
        entry, ``to_port`` not 0, an unknown type). A refused call adds no edge.
        """
        g = self.handles.graph(hgraph)
        index = gr.pair_index(g)
        new: dict[tuple[gr.Node, gr.Node], None] = {}  # insertion-ordered: the edges of this call
        for i, (a, b) in enumerate(zip(froms, tos)):
            na, nb = self.handles.node(a, "from"), self.handles.node(b, "to")
            if na.graph is not g or nb.graph is not g:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"edge {i}: both nodes must belong to graph {g.gid}")
            if na is nb:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"edge {i}: a node cannot depend on itself")
            key = (na, nb)
            if key in index or key in new:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"edge {i}: node {na.local_id} -> node {nb.local_id} already exists")
            new[key] = None
        eds = eds or [gr.ZERO_ED] * len(new)
        cap.check_edge_data([None if ed is None else (0, ed[1], ed[2]) for ed in eds], "edgeData")
        for key, ed in zip(new, eds):
            if ed is not None:  # always: check_edge_data refused a missing entry
                gr.add_edge(g, key[0], key[1], gb.edge_data(ed), key)

    @entry
    def graph_remove_dependencies(self, hgraph: int, froms: list[int], tos: list[int], eds: list[EdgeData]) -> None:
        """cuGraphRemoveDependencies: remove edges (remembered for the unjoined rule, spec 4.4).

        Args:
            hgraph: the graph handle.
            froms, tos: node handles, paired by position.
            eds: the edge data each edge must have, or empty for all-zero edge data.

        Each edge is found in O(1) (the graph's pair index) and removed in O(1), whatever the graph's shape.
        Errors: 1 INVALID_VALUE a graph with allocation/free nodes (spec 9); then, edge by edge, a node
        handle NULL, destroyed or outside the graph, no edge between the two nodes with that edge data, or
        an edge listed twice in this call. A refused call removes nothing.
        """
        g = self.handles.graph(hgraph)
        if g.has_type(gr.MEM_ALLOC, gr.MEM_FREE):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"graph {g.gid} has memory allocation/free nodes; its edges cannot be removed")
        found: dict[gr.Edge, None] = {}  # insertion-ordered set: removal order
        for i, (a, b) in enumerate(zip(froms, tos)):
            na, nb = self.handles.node(a, "from"), self.handles.node(b, "to")
            if na.graph is not g or nb.graph is not g:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"edge {i}: both nodes must belong to graph {g.gid} (node {na.local_id} is in "
                                  f"graph {na.graph.gid}, node {nb.local_id} in graph {nb.graph.gid})")
            ed = eds[i] if eds else gr.ZERO_ED
            match = gr.find_edge(g, na, nb, gb.edge_data(ed))
            if match is None or match in found:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"edge {i}: there is no edge node {na.local_id} -> node {nb.local_id} with that "
                                  "edge data")
            found[match] = None
        for e in found:
            gr.remove_edge(g, e)

    @entry
    def graph_destroy_node(self, hnode: int) -> None:
        """cuGraphDestroyNode: remove a node and its edges.

        Time linear in the node's own edges (plus its child graph, for a GRAPH node): the edges leave the
        graph's edge set, pair index and the neighbours' edge lists in O(1) each; edges removed earlier
        that touch the node stop counting in ``Graph.removed_edges``.
        Errors: 1 INVALID_VALUE bad node; its graph is a capture target (spec 3.5, C-109) or holds
        allocation/free nodes (spec 9).
        """
        n = self.handles.node(hnode)
        g = n.graph
        cap.check_capture_target(g, "remove node")
        if g.has_type(gr.MEM_ALLOC, gr.MEM_FREE):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"graph {g.gid} has memory allocation/free nodes; its nodes cannot be destroyed")
        gr.detach_node(g, n)
        g.drop_node(n)
        if n.type == gr.GRAPH:
            self.discard_graph(n.params.graph)
        elif n.type == gr.CONDITIONAL:  # its bodies go with it; its handle is free for another node [I] (P-21)
            for b in n.params.bodies:
                self.discard_graph(b)

    @entry
    def graph_clone(self, hgraph: int) -> int:
        """cuGraphClone: a deep copy (child graphs included), with parameters copied.

        Returns: the new graph; ``cuGraphNodeFindInClone`` maps original nodes to their copies.
        Errors: 1 INVALID_VALUE bad graph, or a graph holding MEM_ALLOC, MEM_FREE or CONDITIONAL nodes
        (spec 9; cuGraphAddMemAllocNode: "the graph cannot be cloned").
        """
        g = self.handles.graph(hgraph)
        if g.has_type_deep(gr.MEM_ALLOC, gr.MEM_FREE, gr.CONDITIONAL):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"graph {g.gid} holds memory allocation/free or conditional nodes and cannot be cloned "
                              "(spec 9)")
        return gu.clone_graph(self, g).handle

    @entry
    def graph_node_find_in_clone(self, horig: int, hclone: int) -> int:
        """cuGraphNodeFindInClone: the node of a cloned graph that copies ``horig``.

        A clone is a graph made by cuGraphClone, or the graph a child-graph node embeds (cloned from the
        graph it was made from [D cuGraphAddChildGraphNode]). The nodes of a clone's embedded child graphs
        are found too: ``horig`` may be a node of an embedded graph of the original, and the answer is its
        copy in the clone's embedded copy (spec 17, §9 child-graph rule [O]).

        Errors: 1 INVALID_VALUE bad handles; ``hclone`` was not made by cuGraphClone of the original's
        graph (or of a graph embedding it), or the node was added after cloning; the copy has been destroyed.
        """
        orig = self.handles.node(horig)
        clone = self.handles.graph(hclone)
        m = gu.find_in_clone(clone, orig.handle)
        if m is None:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"graph {clone.gid} is not a clone (cuGraphClone, or a child-graph node's embedded "
                              f"graph) of graph {orig.graph.gid} made while node {orig.local_id} was in it")
        if m.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"the copy of node {orig.local_id} in graph {clone.gid} has been destroyed")
        return m.handle

    # -- node parameters ------------------------------------------------------------------------
    def _typed_node(self, hnode: int, ntype: int | tuple[int, ...]) -> gr.Node:
        n = self.handles.node(hnode)
        types = ntype if isinstance(ntype, tuple) else (ntype,)
        if n.type not in types:
            want = " or ".join(gr.TYPE_KEYWORDS.get(t, str(t)) for t in types)
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"node {n.local_id} of graph {n.graph.gid} is {gr.TYPE_KEYWORDS.get(n.type)}, not "
                              f"{want}")
        return n

    @entry
    def graph_node_get_params(self, hnode: int, ntype: int | None = None) -> tuple[int, Any]:
        """cuGraphNodeGetParams and the per-kind getters (cuGraphKernelNodeGetParams, ...).

        Args: ``ntype``: the type the per-kind getter expects (None: any).
        Returns: ``(CUgraphNodeType, params)`` with ``params`` the node's record (:mod:`simcuda._core.graphs.nodes`;
        never mutated once stored, so it is shared, not copied; a GRAPH node's holds the embedded graph).
        Errors: 1 INVALID_VALUE bad node, or a node of another type.
        """
        n = self.handles.node(hnode) if ntype is None else self._typed_node(hnode, ntype)
        return n.type, n.params

    @entry
    def graph_node_set_params(self, hnode: int, ntype: int, spec: Any) -> None:
        """cuGraphNodeSetParams and the per-kind setters (cuGraphKernelNodeSetParams,
        cuGraphEventRecordNodeSetEvent...).

        Args: ``spec`` as the matching add entry takes it (kernel: dict ``hfunc, grid, block, shmem, args``;
        memcpy: CopyParams; memset: MemsetParams; host: dict ``fn, user_data, sync_mode``; events: the
        event handle; GRAPH: a graph handle, cloned into the node; batch/ext-sem: as the add entries).
        Execs already made from the graph are not affected.
        Errors: 1 INVALID_VALUE bad node, type mismatch or bad parameters; 400 INVALID_HANDLE a bad
        function or event (the per-kind setters list it); 801 NOT_SUPPORTED for MEM_ALLOC / MEM_FREE
        nodes ("modifying parameters is not supported", cuGraphNodeSetParams) [I code].
        """
        n = self._typed_node(hnode, ntype)
        if not nd.KINDS[ntype].settable:
            raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                              f"node {n.local_id} is {gr.TYPE_KEYWORDS[ntype]}: modifying the parameters of "
                              "allocation, free and conditional nodes is not supported (cuGraphNodeSetParams; "
                              "P-29 for conditional nodes)")
        if ntype == gr.GRAPH:
            child = self._child_for(int(spec), n.graph, False)
            new = gu.clone_graph(self, child)
            old = n.params.graph
            old.owner_node = None
            self.discard_graph(old)
            new.owner_node = n
            n.params = nd.ChildGraphParams(new)
            return
        n.params = gb.build_params(self, ntype, spec, 400)

    @entry
    def graph_debug_dot_print(self, hgraph: int, path: Any, flags: int) -> None:
        """cuGraphDebugDotPrint: write the DOT text of spec 9.1 (see ``graph.dot_text``) to ``path``.

        Args: ``path``: a ``str``, ``bytes`` (a file-system path), ``None`` (NULL) or the ``int`` address of a
        NUL-terminated path (read only where readable, :mod:`hostmem`).
        Errors: 1 INVALID_VALUE bad graph, NULL, unreadable or empty path; 304 OPERATING_SYSTEM when the file
        cannot be written.
        """
        g = self.handles.graph(hgraph)
        if path is None:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, "the DOT path is NULL")
        if isinstance(path, int):
            path = hostmem.read_c_string(self.memory, path, "the DOT path") if path else None
            if path is None:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, "the DOT path is NULL")
        if isinstance(path, (bytes, bytearray)):
            path = os.fsdecode(bytes(path))
        if not path:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, "the DOT path is empty")
        text = gd.dot_text(g, int(flags))
        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as e:
            raise DriverError(CUresult.CUDA_ERROR_OPERATING_SYSTEM,
                              f"could not write {path!r}: {e.strerror}") from None

    def dot(self, hgraph: int, flags: int = 0) -> str:
        """The DOT text ``cuGraphDebugDotPrint`` would write for graph handle ``hgraph`` (spec 9.1).

        Args: ``flags``: ``CUgraphDebugDot_flags`` bits. Raises ``DriverError`` 1 for a bad graph.
        """
        with self._lock:
            return gd.dot_text(self.handles.graph(int(hgraph)), int(flags))

    # ------------------------------------------------------------------ introspection helpers
    def graphs_from_captures(self) -> list[gr.Graph]:
        """Graphs returned by successful cuStreamEndCapture calls, in order (for summaries)."""
        return list(self.captures.ended_graphs)

    def all_graphs(self) -> list[gr.Graph]:
        """Every graph this driver created that is still alive (child graphs excluded)."""
        return [g for g in self.handles.all_graphs if not g.destroyed and g.owner_node is None]
