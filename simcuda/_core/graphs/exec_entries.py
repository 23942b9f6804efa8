"""Executable graphs: instantiate, launch, upload, update, per-node exec params (spec 3.8, 9)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..capture import capture_enqueue as capq
from ..capture import capture_rules as cap
from ..errors import CUresult, DriverError
from ..memory.memory_model import KIND_GRAPH
from ..objects import release_refs, retain_refs
from ..state import entry
from . import graph_build as gb
from . import graph_exec as ge
from . import graph_model as gr
from . import graph_update as gu
from . import nodes as nd
from .graph_entries import Graphs

KERNEL = gr.KERNEL
_INST_NAMES = {0: "SUCCESS", 1: "ERROR", 2: "INVALID_STRUCTURE", 3: "NODE_OPERATION_NOT_SUPPORTED",
               4: "MULTIPLE_CTXS_NOT_SUPPORTED", 5: "CONDITIONAL_HANDLE_UNUSED"}


def _node_detail(x: ge.ExecNode, p: Any) -> str:
    """The launch log's ``detail`` for node ``x`` replayed with parameters ``p``: a kernel's is cached on its
    parameter record, any other's on its exec node (computed once, shared by the records of every launch); the
    text is the kind's :meth:`~simcuda._core.graphs.nodes.NodeKind.log_detail`."""
    if x.type == gr.KERNEL:
        d: str | None = p.detail
        if d is None:
            d = p.detail = nd.KINDS[gr.KERNEL].log_detail(p)
        return d
    d = x.detail
    if d is None:
        d = x.detail = nd.KINDS[x.type].log_detail(p)
    return d



def _launch_logger(launch_log: Any, sh: int, xh: int, n: int) -> Callable[[Any, Any, str], None]:
    """The ``log`` of launch ``n`` of exec ``xh`` on stream ``sh``: one launch-log record per replayed node, the
    records of one detail, kind and graph sharing one row (counted only when the log keeps none)."""
    kinds = gr.TYPE_KEYWORDS
    add, off = launch_log.add, launch_log.limit == 0
    rows: dict[str, tuple[Any, ...]] = {}  # detail -> the row of this launch's records (shared by its nodes)

    def log(node: Any, p: Any, note: str) -> None:  # one record per replayed node (see _log)
        if off:
            launch_log.total += 1
            return
        t = node.type
        detail = p.detail if t == KERNEL else None  # a kernel's, once cached (see _node_detail)
        if detail is None:
            detail = _node_detail(node, p)
        kind = kinds.get(t) or str(t)
        row = rows.get(detail)
        if row is None or row[1] != kind or row[6] != node.gid:
            row = rows[detail] = ("graph", kind, detail, sh, xh, n, node.gid)
        add(row, node.local_id, note)
    return log


class Execs(Graphs):
    """Executable graphs: instantiate, launch, upload, update, per-node exec params of the simulated driver (built
    on the :class:`~simcuda._core.graphs.graph_entries.Graphs` entries: a set-params call builds its node parameters as
    adding the node does, :func:`simcuda._core.graphs.graph_build.build_params`).

    Entries: ``cuGraphInstantiate*``, ``cuGraphLaunch``, ``cuGraphUpload``, ``cuGraphExecUpdate``,
    ``cuGraphExec*SetParams``, ``cuGraphNodeSet/GetEnabled``, ``cuGraphExecDestroy``.
    """
    @entry
    def graph_exec_node_set_params(self, hexec: int, hnode: int, ntype: int, spec: Any) -> None:
        """cuGraphExecNodeSetParams and the per-kind exec setters (cuGraphExecKernelNodeSetParams, ...).

        Changes the node in the exec only (future launches; launches already enqueued keep what they
        had), as though ``hnode`` had held ``spec`` at instantiation. The limits are those of the
        docstrings and the Programming Guide's "Graph Update Limitations": a kernel's function cannot
        move to another context; memcpy memory types and allocation kinds/contexts cannot change, and
        only 1D copies may change geometry; memset destinations must stay the same kind of allocation,
        2D memsets may change only address and value, 1D ones not their height; zero-sized copies and
        sets are refused; the number of external semaphores and the shape of batch mem ops are fixed;
        GRAPH: ``spec`` is a graph of the same topology (checked like cuGraphExecUpdate, recursively).
        Errors: 1 INVALID_VALUE bad exec or node, a node not in the graph the exec was made from (or
        destroyed since), a type mismatch, bad parameters, or a change beyond those limits; 801 for
        MEM_ALLOC / MEM_FREE nodes [I code].
        """
        x, pos, old = self._exec_node(hexec, hnode)
        n = old.origin
        if n.type != ntype:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"node {n.local_id} is {gr.TYPE_KEYWORDS.get(n.type)}, not "
                              f"{gr.TYPE_KEYWORDS.get(ntype)}")
        if not nd.KINDS[ntype].settable:
            raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                              f"node {n.local_id} is {gr.TYPE_KEYWORDS[ntype]}: its parameters cannot be changed in "
                              "an exec")
        if ntype == gr.GRAPH:
            child = self.handles.graph(int(spec))
            cap.check_capture_target(child, "update from")
            assert old.child is not None  # the frozen body of a GRAPH node
            try:
                body = gu.plan_update(old.child, child, self.memory.find, x.flags)
            except gu.UpdateFailure as f:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"cuGraphExecChildGraphNodeSetParams: graph {child.gid} does not match "
                                  f"the child graph of node {n.local_id}: {f.why} "
                                  f"({gr.UPDATE_NAMES[f.result]})") from None
            x.writable_body().order[pos] = old.evolve(child=body)
            return
        params = gb.build_params(self, ntype, spec, 1)
        prob = gu.param_change_problem(ntype, old.params, params, self.memory.find, x.flags, per_node=True)
        if prob is not None:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"node {n.local_id} ({gr.TYPE_KEYWORDS[ntype]}) of exec 0x{x.handle:x}: {prob[1]}")
        x.writable_body().order[pos] = old.evolve(params=params)

    def _exec_node(self, hexec: int, hnode: int) -> tuple[ge.GraphExec, int, ge.ExecNode]:
        x = self.handles.exec(hexec)
        n = self.handles.node(hnode)
        pos = x.body.index.get(id(n))
        if pos is None:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"node {n.local_id} of graph {n.graph.gid} is not a node of graph {x.gid}, from which "
                              f"exec 0x{x.handle:x} was instantiated")
        return x, pos, x.body.order[pos]

    @entry
    def graph_node_set_enabled(self, hexec: int, hnode: int, enabled: int) -> None:
        """cuGraphNodeSetEnabled: enable (``enabled`` != 0) or disable a node in an exec.

        A disabled node runs as an empty node; its parameters are kept, and updates made while it is
        disabled apply once it is enabled again (Programming Guide, "Individual node enable").
        Errors: 1 INVALID_VALUE bad exec or node, a node not in the exec's graph, or a node that is not
        KERNEL, MEMCPY or MEMSET.
        """
        x, pos, old = self._exec_node(hexec, hnode)
        if old.type not in gr.ENABLE_TYPES:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"node {old.local_id} is {gr.TYPE_KEYWORDS[old.type]}; only kernel, memcpy and memset "
                              "nodes can be enabled or disabled")
        x.writable_body().order[pos] = old.evolve(enabled=bool(enabled))

    @entry
    def graph_node_get_enabled(self, hexec: int, hnode: int) -> int:
        """cuGraphNodeGetEnabled: 1 when the node is enabled in the exec, else 0. Errors as SetEnabled."""
        _x, _pos, old = self._exec_node(hexec, hnode)
        if old.type not in gr.ENABLE_TYPES:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"node {old.local_id} is {gr.TYPE_KEYWORDS[old.type]}; only kernel, memcpy and memset "
                              "nodes have an enabled state")
        return int(old.enabled)

    @entry
    def graph_exec_get_flags(self, hexec: int) -> int:
        """cuGraphExecGetFlags: the instantiate flags, without UPLOAD (it does not shape the exec). Errors: 1."""
        return self.handles.exec(hexec).flags & ~2

    @entry
    def graph_exec_get_id(self, hexec: int) -> int:
        """cuGraphExecGetId: the exec's id (unique among graph and exec ids of this driver) [I]. Errors: 1."""
        return self.handles.exec(hexec).exec_id

    # -- instantiate, launch, update -----------------------------------------------------------
    @entry
    def graph_instantiate(self, hgraph: int, flags: int) -> int:
        """cuGraphInstantiate (13.x takes flags) / cuGraphInstantiateWithFlags: freeze a graph into an exec.

        Args: ``flags``: ``CUgraphInstantiate_flags`` bits (AUTO_FREE_ON_LAUNCH 1, UPLOAD 2,
        DEVICE_LAUNCH 4, USE_NODE_PRIORITY 8).
        Returns: the exec handle.
        Errors (all 1 INVALID_VALUE; :meth:`graph_instantiate_with_params` also reports the
        ``CUgraphInstantiateResult`` and error node): UPLOAD (2), which needs the params form and its
        upload stream (spec 16, 9) [H/D]; unknown flag bits; a capture target (spec 9) [I];
        a graph moved into a child-graph node; MEM_ALLOC/MEM_FREE nodes while an exec of the graph
        exists (C-141); DEVICE_LAUNCH with AUTO_FREE_ON_LAUNCH, with a graph without kernel, memcpy or
        memset nodes, with other node types, with copies of pageable host memory, or with nodes of
        several contexts (C-143); a cycle (INVALID_STRUCTURE).
        """
        g = self.handles.graph(hgraph)
        if int(flags) & gr.INSTANTIATE_UPLOAD:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuGraphInstantiate of graph {g.gid} with CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD: that "
                              "flag needs an upload stream, which only cuGraphInstantiateWithParams takes (spec 16, "
                              "9); no exec was made")
        return self._instantiate(g, int(flags)).handle

    @entry
    def graph_instantiate_with_params(self, hgraph: int, flags: int, hupload: int = 0) -> int:
        """cuGraphInstantiateWithParams: as :meth:`graph_instantiate`, plus UPLOAD into ``hupload``.

        Returns: the exec handle (``CUgraphInstantiateResult`` SUCCESS, error node NULL).
        Errors: as :meth:`graph_instantiate`; the raised ``DriverError`` carries ``instantiate_result``
        (ERROR 1, INVALID_STRUCTURE 2, NODE_OPERATION_NOT_SUPPORTED 3, MULTIPLE_CTXS_NOT_SUPPORTED 4) and
        ``err_node`` (a node handle or 0), which the faces write into ``result_out`` / ``hErrNode_out``.
        With UPLOAD the stream is checked first (stream rules of cuGraphUpload), so a failure makes no exec.
        """
        try:
            g = self.handles.graph(hgraph)
            s = None
            if flags & gr.INSTANTIATE_UPLOAD:
                s = self._stream(hupload)
                capq.enqueue(self, s, capq.Op(capq.OPS["upload"], "cuGraphUpload", None, None))
            return self._instantiate(g, int(flags)).handle
        except DriverError as e:
            if not hasattr(e, "instantiate_result"):
                e.instantiate_result, e.err_node = gr.INST_ERROR, 0
            raise

    def _inst_error(self, result: int, node: gr.Node | None, why: str) -> DriverError:
        where = "" if node is None else f", error node {node.local_id} of graph {node.graph.gid}"
        e = DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                        f"{why} (CUgraphInstantiateResult {_INST_NAMES[result]}{where})")
        e.instantiate_result, e.err_node = result, (node.handle if node is not None else 0)
        return e

    def _instantiate(self, g: gr.Graph, flags: int) -> ge.GraphExec:
        if flags & ~0xF:
            raise self._inst_error(gr.INST_ERROR, None, f"instantiate flags 0x{flags:x} have bits outside "
                                                        "CUgraphInstantiate_flags")
        refusal = cap.capture_target_refusal(g, "instantiate")
        if refusal is not None:
            raise self._inst_error(gr.INST_ERROR, None, refusal.why)
        if g.moved:
            raise self._inst_error(gr.INST_ERROR, None, f"graph {g.gid} was moved into a child-graph node and "
                                                        "cannot be instantiated on its own")
        if g.live_execs > 0 and g.has_type_deep(gr.MEM_ALLOC, gr.MEM_FREE):
            raise self._inst_error(gr.INST_ERROR, None, f"graph {g.gid} has memory allocation/free nodes and an "
                                                        "exec of it still exists; only one may exist at a time "
                                                        "(spec 9, C-141)")
        if flags & 4:
            self._device_launch_checks(g, flags)
        if g.cond_handles or g.has_type_deep(gr.CONDITIONAL):  # conditional nodes (P-22, P-23)
            prob = gb.conditional_problem(g)
            if prob is not None:
                raise self._inst_error(*prob)
        try:
            body = ge.freeze(g)
        except gr.GraphCycle as c:
            raise self._inst_error(gr.INST_INVALID_STRUCTURE, c.node, f"graph {c.node.graph.gid} has a cycle "
                                                                      f"through node {c.node.local_id}") from None
        x = ge.GraphExec(0, g, flags, body, self.handles.next_graph_id())
        x.handle = self.handles.add(x)
        x.user_refs = gu.graph_user_refs(g) or None  # the exec's own copy (graphs/userobj_entries.py)
        g.live_execs += 1
        return x

    def _device_launch_checks(self, g: gr.Graph, flags: int) -> None:
        """The DEVICE_LAUNCH restrictions of cuGraphInstantiate (C-143)."""
        if flags & 1:
            raise self._inst_error(gr.INST_ERROR, None, "CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH cannot be "
                                                        "combined with AUTO_FREE_ON_LAUNCH (spec 9)")
        nodes = list(ge.walk_graph(g))
        if not any(nd.KINDS[n.type].device_work for n in nodes):
            raise self._inst_error(gr.INST_ERROR, None, f"a DEVICE_LAUNCH graph cannot be empty: graph {g.gid} has "
                                                        "no kernel, memcpy or memset node (spec 9)")
        ctxs: dict[int, gr.Node] = {}
        for n in nodes:
            if n.type not in gr.DEVICE_LAUNCH_TYPES:
                raise self._inst_error(gr.INST_NODE_OPERATION_NOT_SUPPORTED, n,
                                       f"node {n.local_id} ({gr.TYPE_KEYWORDS[n.type]}) is not allowed in a "
                                       "DEVICE_LAUNCH graph (kernel, memcpy, memset and child graph nodes only)")
            node_ctxs, problem = nd.KINDS[n.type].device_launch_facts(self.memory, n.params)
            if problem is not None:
                raise self._inst_error(gr.INST_NODE_OPERATION_NOT_SUPPORTED, n,
                                       f"{gr.TYPE_KEYWORDS[n.type].lower()} node {n.local_id} {problem}")
            for c in node_ctxs:
                ctxs.setdefault(id(c), n)
                if len(ctxs) > 1:
                    raise self._inst_error(gr.INST_MULTIPLE_CTXS_NOT_SUPPORTED, n,
                                           f"node {n.local_id} uses another context than the rest of the graph; a "
                                           "DEVICE_LAUNCH graph's nodes must reside on a single context")

    @entry
    def graph_exec_destroy(self, hexec: int) -> None:
        """cuGraphExecDestroy. Errors: 1/400 bad exec; 900 by spec 5.2 during a restricting capture (C-175).

        Fidelity: launches still pending (manual progression) or running (another thread destroys the
        exec while a host node or Python kernel of its replay runs) run to completion with the body they
        started with, as NVIDIA frees an exec in flight when it finishes; the handle is refused at once.
        Graph allocations the exec left unfreed stay allocated. The exec's user-object references go now; a
        pending or running launch keeps its own until it completes (graphs/userobj_entries.py).
        """
        x = self.handles.exec(hexec)
        cap.check_unsafe(self, self.threads.current(), "cuGraphExecDestroy")
        x.destroyed = True
        x.graph.live_execs -= 1
        self.handles.forget(x)  # issue 19 item 1: out of the table now (P-79)
        release_refs(x.user_refs, self.scheduler.due_user_objects)

    @entry
    def graph_launch(self, hexec: int, h: int) -> None:
        """cuGraphLaunch: replay the exec on stream ``h`` (spec 9, 3.8).

        Each launch is ordered behind earlier work in the stream and earlier launches of the exec: with
        ``Driver(progression="manual")`` it stays pending until :meth:`advance` or a synchronisation,
        and ``launch_log`` follows that order. The launch runs the exec as it was when the launch was
        enqueued. Replay: nodes in topological order, creation order breaking ties; see ``run_frozen``.
        Graph allocations: a launch maps the exec's MEM_ALLOC addresses (when its nodes run); those not
        freed in the graph stay allocated until cuMemFreeAsync, cuMemFree, a free node of another graph,
        or (AUTO_FREE_ON_LAUNCH) the next launch.
        Errors: 1 NULL or destroyed exec (spec 16, 9), 400 garbage handle; 1 INVALID_VALUE when allocations
        of an earlier launch are unfreed and the exec was instantiated without AUTO_FREE_ON_LAUNCH (C-142);
        900 into a capturing stream, invalidating the capture (spec 3.8), unless
        ``Options(graph_launch_in_capture="child-node")``,
        which adds a GRAPH node holding a copy of the exec's graph as instantiated (1 for an exec with
        memory nodes [I]); 900 onto a CIG stream for graphs with HOST, memory or batch nodes (spec 8.3);
        906/901 by the stream rules.
        """
        x = self.handles.exec_to_run(hexec, "cuGraphLaunch")
        s = self._stream(h)
        body = x.body
        allocs = body.allocs()
        frees = body.frees()

        def prepare(into: object) -> None:  # on an uncaptured stream, before the stream rules (C-142)
            if s.capture is None and s.cig is None and allocs and not x.flags & 1:
                left = [a for a in allocs if a.outstanding is not None]
                if left:
                    raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                      f"exec 0x{x.handle:x} still has {len(left)} graph allocation(s) from an "
                                      f"earlier launch that were never freed (0x{left[0].start:x}...); free them or "
                                      "instantiate with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH (spec 9, "
                                      "C-142)")
        started: list[int] = []
        held = retain_refs(x.user_refs) if x.user_refs else None  # this launch's references, until it has run

        def run() -> str:
            started.append(1)
            x.pending -= 1
            x.running += 1
            try:
                return replay()
            finally:
                x.running -= 1
                if held:
                    release_refs(held, self.scheduler.due_user_objects)

        def replay() -> str:
            self._back_launch(x, allocs)
            x.launches += 1
            n = x.launches
            self.counters.count("graph_launches")
            self._replay_exec(x, body, n, _launch_logger(self.launch_log, s.handle, x.handle, n), s.ctx)
            return ""
        x.pending += 1
        x.shared = True
        try:
            nested = capq.enqueue(self, s, capq.Op(capq.OPS["graph_launch"], "cuGraphLaunch", x, run, prepare))
        except DriverError:
            if not started:
                x.pending -= 1
                release_refs(held, self.scheduler.due_user_objects)
            raise
        if nested is not None or s.cig is not None:  # a child-graph node of a capture (Options), or recorded
            if not started:                         # into the CIG command list: never run here (spec 8.3)
                x.pending -= 1
                release_refs(held, self.scheduler.due_user_objects)
            return
        for a in allocs:
            a.outstanding = x
        for d in frees:
            fa = self.memory.find(d)
            if fa is not None and fa.kind == KIND_GRAPH:
                fa.outstanding = None

    def _back_launch(self, x: ge.GraphExec, allocs: list[Any]) -> None:
        """Map the graph allocations of a launch of ``x`` (unmapping the last launch's first under
        AUTO_FREE_ON_LAUNCH, as though cuMemFreeAsync ran before it). Errors: 2 OUT_OF_MEMORY when the host cannot
        back them; then none stays mapped and no node runs."""
        if x.flags & 1:
            for a in allocs:
                self.memory.unmap(a)
        mapped: list[Any] = []
        try:  # every graph allocation first: a launch the host cannot back runs no node at all
            for a in allocs:
                if not a.mapped:
                    self.memory.map(a)
                    mapped.append(a)
        except MemoryError as e:
            for a in mapped:
                self.memory.unmap(a)
            raise DriverError(CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                              "the host running the simulator cannot back the graph allocations of "
                              f"this launch of exec 0x{x.handle:x} ({e}); no node ran") from None

    def _replay_exec(self, x: ge.GraphExec, body: ge.Frozen, n: int, log: Callable[[Any, Any, str], None],
                     ctx: Any = None) -> None:
        """Replay launch ``n`` of ``x`` in context ``ctx`` (:meth:`_replay_body`). A ``KeyboardInterrupt`` (Ctrl-C
        in a node) ends the replay where it is and propagates; the nodes after it never run, and ``ctx`` gets the
        sticky CUDA_ERROR_LAUNCH_FAILED (719) of an interrupted replay, so no later call reports its streams idle
        as though the replay had completed (P-77; destroying or resetting the context clears it)."""
        try:
            self._replay_body(x, body, n, log)
        except KeyboardInterrupt:
            if ctx is not None and ctx.fault is None:
                ctx.fault = DriverError(CUresult.CUDA_ERROR_LAUNCH_FAILED, f"launch {n} of exec 0x{x.handle:x} was "
                                        "interrupted (KeyboardInterrupt); its remaining nodes did not run (P-77)")
            raise

    def _replay_body(self, x: ge.GraphExec, body: ge.Frozen, n: int, log: Callable[[Any, Any, str], None]) -> None:
        """Replay launch ``n`` of ``x``: ``body`` (``ge.run_frozen``; the exec as it was when the launch was
        enqueued), with this launch's conditional values when it has conditional nodes (P-22: the defaults, or
        what the last launch left). Errors: 702 LAUNCH_TIMEOUT when a WHILE node passes the simulator's limit."""
        handles = body.conds()
        if not handles:
            ge.run_frozen(self, body, log)
            return
        last = x.cond_values
        cond = {h.handle: h.start_value(last.get(h.handle)) for h in handles}
        tls = self.threads.tls
        outer = getattr(tls, "cond", None)
        tls.cond = cond
        try:
            ge.run_frozen(self, body, log, cond)
        except ge.WhileLimit as e:
            raise DriverError(CUresult.CUDA_ERROR_LAUNCH_TIMEOUT, f"launch {n} of exec 0x{x.handle:x}: {e}") \
                from None
        finally:
            tls.cond = outer
            x.cond_values = cond

    @entry
    def graph_upload(self, hexec: int, h: int) -> None:
        """cuGraphUpload: nothing to upload in a simulator; checks the handles and the stream rules.

        Errors: 1 NULL or destroyed exec (spec 16, 9), 400 garbage handle; stream errors; 906 on the legacy
        stream while a blocking stream captures; 901 on a stream of an invalidated capture.
        """
        self.handles.exec_to_run(hexec, "cuGraphUpload")
        capq.enqueue(self, self._stream(h), capq.Op(capq.OPS["upload"], "cuGraphUpload", None, None))

    @entry
    def graph_exec_update(self, hexec: int, hgraph: int) -> tuple[int, int, int]:
        """cuGraphExecUpdate: give an exec the parameters of a graph of the same topology (spec 9).

        Pairing (Programming Guide, "Whole Graph Update"): nodes by creation order, dependencies by edge
        order. Checks, in the docstring's order: NOT_SUPPORTED (6) when the graphs created different numbers
        of nodes, destroyed ones included (error node NULL; spec 16 [I] from NVIDIA observations, against the
        docstring's TOPOLOGY_CHANGED); TOPOLOGY_CHANGED (2) when the created counts match but the live node
        counts differ (error node NULL), the graph has more exit nodes (error node one of them), a node's
        dependency count differs or a dependency differs (error node the node, error-from node the
        dependency); NODE_TYPE_CHANGED (3) (error node from ``hgraph``); per node the "Graph Update Limitations":
        UNSUPPORTED_FUNCTION_CHANGE
        (7) for a kernel function of another context, PARAMETERS_CHANGED (5) for memcpy/memset memory
        kind, context or multi-dimensional geometry changes, a changed number of external semaphores or
        batch-op shape, ATTRIBUTES_CHANGED (8) for a priority change under USE_NODE_PRIORITY [I code];
        NOT_SUPPORTED (6) when the graph has memory nodes and another exec of it exists. Child graphs are
        checked recursively. Host and event nodes may change freely. On success every node takes the
        graph's parameters (enabled states are kept; nodes keep their identity for per-node calls).

        Returns: ``(CU_GRAPH_EXEC_UPDATE_SUCCESS, 0, 0)``.
        Errors: 910 GRAPH_EXEC_UPDATE_FAILURE, with ``update_info = (result, error node, error-from node)``
        on the error and a ``why`` naming the result; the exec is unchanged. 1 INVALID_VALUE for a bad
        exec or graph, a capture target (an update freezes the graph as instantiation does, spec 3.2 [I];
        ``capture.CAPTURE_TARGET_USES``), or a graph moved into a child-graph node (result ERROR).
        FUNCTION_CHANGED (4) is for drivers before 11.2 and never returned.
        """
        try:
            x = self.handles.exec(hexec)
            g = self.handles.graph(hgraph)
            cap.check_capture_target(g, "update from")
            if g.moved:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"graph {g.gid} was moved into a child-graph node and cannot be used to update an "
                                  "exec")
        except DriverError as e:
            e.update_info = (gr.UPD_ERROR, 0, 0)
            raise
        others = g.live_execs - (1 if x.graph is g else 0)
        if others > 0 and g.has_type_deep(gr.MEM_ALLOC, gr.MEM_FREE):
            mn = g.first_of(gr.MEM_ALLOC, gr.MEM_FREE)
            raise self._update_error(x, gu.UpdateFailure(
                gr.UPD_NOT_SUPPORTED, mn, f"graph {g.gid} holds memory nodes and is instantiated as another exec; "
                                          "it cannot be used to update this one (Graph Update Limitations)"))
        try:
            body = gu.plan_update(x.body, g, self.memory.find, x.flags)
        except gu.UpdateFailure as f:
            raise self._update_error(x, f) from None
        x.body = body
        x.shared = False
        new_refs = gu.graph_user_refs(g) or None  # the source graph's references replace the exec's
        release_refs(x.user_refs, self.scheduler.due_user_objects)
        x.user_refs = new_refs
        return (gr.UPD_SUCCESS, 0, 0)

    def _update_error(self, x: ge.GraphExec, f: gu.UpdateFailure) -> DriverError:
        name = gr.UPDATE_NAMES[f.result]
        enode = f.node.handle if f.node is not None else 0
        efrom = f.from_node.handle if f.from_node is not None else 0
        why = (f"cuGraphExecUpdate of exec 0x{x.handle:x}: result CU_GRAPH_EXEC_UPDATE_ERROR_{name} ({f.result}); "
               f"{f.why}; error node "
               + (f"0x{enode:x} (node {f.node.local_id} of graph {f.node.graph.gid})" if f.node is not None else "NULL")
               + (f", error-from node 0x{efrom:x} (node {f.from_node.local_id})" if f.from_node is not None else "")
               + "; the exec is unchanged. Instantiate the new graph instead (cuGraphInstantiate), or change only "
               "parameters, keeping the node types and dependencies the exec was made from")
        e = DriverError(CUresult.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, why)
        e.update_info = (f.result, enode, efrom)
        return e
