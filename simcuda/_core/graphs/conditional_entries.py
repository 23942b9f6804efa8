"""Conditional nodes: handles, CONDITIONAL nodes and their bodies, the instantiate checks (P-20..P-31).

What NVIDIA documents (CUDA_CONDITIONAL_NODE_PARAMS, cuGraphConditionalHandleCreate, the Programming Guide's
"Conditional Graph Nodes"; the rules with their evidence tags are in docs/spec-proposals.md, P-20..P-31):

* a handle is made for one graph and context, with a default value and flags (0 or CU_GRAPH_COND_ASSIGN_DEFAULT);
  it belongs to exactly one conditional node, of that graph or of a graph nested in it; it cannot be destroyed;
* a CONDITIONAL node is IF (1 or 2 bodies), WHILE (1) or SWITCH (any size > 0); adding it makes its empty body
  graphs, owned by the node (``phGraph_out``), which the caller fills with the node APIs or
  ``cuStreamBeginCaptureToGraph``;
* a body may hold only kernel, empty, memcpy, memset, child-graph and conditional nodes, at any depth: anything
  else is found when the graph is instantiated (1 INVALID_VALUE, observed for an event-wait node: C-29);
* replay (:func:`simcuda._core.graphs.graph_exec.run_frozen`) reads the handle's value when the node runs; device code
  sets it with ``cudaGraphSetConditional``, which a Python kernel calls as ``launch.set_conditional(handle, value)``.
"""
from __future__ import annotations

from ..arguments import ArgumentRules
from ..errors import CUresult, DriverError
from ..objects import Context, EdgeDataArg
from ..state import entry
from . import graph_build as gb
from . import graph_model as gr
from . import nodes as nd


class Conditionals(ArgumentRules):
    """Conditional handles and nodes of the simulated driver.

    Entries: ``cuGraphConditionalHandleCreate``, ``cuGraphAddNode`` with ``CU_GRAPH_NODE_TYPE_CONDITIONAL``
    (through :meth:`graph_add_conditional_node`); the device-side ``cudaGraphSetConditional`` as
    :meth:`set_conditional` (``KernelLaunch.set_conditional``).
    """
    @entry
    def graph_conditional_handle_create(self, hgraph: int, hctx: int, default: int, flags: int) -> int:
        """cuGraphConditionalHandleCreate (cudaGraphConditionalHandleCreate): a conditional handle for ``hgraph``.

        Args:
            hgraph: the graph that will hold the conditional node using the handle (or a graph nested in it).
            hctx: the context of the handle and its node (0: the current context, as the runtime twin's NULL
                execution context means [D runtime; I for the driver]).
            default: the value assigned at the start of every launch when ``flags`` has ASSIGN_DEFAULT (an
                ``unsigned int``).
            flags: 0 or CU_GRAPH_COND_ASSIGN_DEFAULT (1).
        Returns: the handle (a 64-bit value, unique in the driver).
        Errors: 1 INVALID_VALUE bad graph, flags other than 0 / 1, a default outside ``unsigned int``; 201 / 709
        bad context, or 201 no current context for a NULL one (P-20).
        """
        g = self.handles.graph(hgraph)
        ctx: Context = self.handles.context(hctx) if hctx else self.threads.ctx_current()
        if flags not in (0, nd.COND_ASSIGN_DEFAULT):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              "cuGraphConditionalHandleCreate flags must be 0 or CU_GRAPH_COND_ASSIGN_DEFAULT (1), "
                              f"got {flags} (P-20)")
        if not 0 <= default < 1 << 32:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"defaultLaunchValue {default} does not fit in an unsigned int")
        h = nd.CondHandle(g, ctx, int(default), int(flags))
        h.handle = self.handles.add(h)
        if g.cond_handles is None:
            g.cond_handles = []
        g.cond_handles.append(h)
        return h.handle

    def _cond_handle(self, h: int) -> nd.CondHandle:
        c = self.handles.get(h) if h else None
        if not isinstance(c, nd.CondHandle):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              "the conditional handle is 0" if not h else
                              f"0x{h:x} is not a conditional handle (cuGraphConditionalHandleCreate)"
                              + self.handles.foreign(h))
        return c

    @entry
    def graph_add_conditional_node(self, hgraph: int, deps: list[int], hcond: int, ctype: int, size: int, hctx: int,
                                   eds: EdgeDataArg | None = None) -> tuple[int, list[int]]:
        """cuGraphAddNode (cudaGraphAddNode) with a CONDITIONAL ``CUgraphNodeParams``: the node and its bodies.

        Args:
            hcond: a handle from cuGraphConditionalHandleCreate; ``ctype``: IF 0, WHILE 1, SWITCH 2; ``size``: the
            number of bodies (IF 1 or 2, WHILE 1, SWITCH > 0); ``hctx``: the context (must be the handle's; 0:
            the handle's [I]).
        Returns: ``(node handle, [body graph handles])`` (``phGraph_out``: graphs owned by the node, which
        ``cuGraphDestroy`` refuses; they go with the node).
        Errors: 1 INVALID_VALUE bad graph or dependencies, a handle that is not one, a handle of a graph that
        neither is ``hgraph`` nor holds it, a handle another node uses already, an unknown type, a size the type
        does not allow, a context other than the handle's (P-21); 201 / 709 a bad context.
        """
        g = self.handles.graph(hgraph)
        pairs = gb.deps_of(self.handles, g, deps, eds)
        h = self._cond_handle(hcond)
        ctx = self.handles.context(hctx) if hctx else h.ctx
        if ctype not in nd.COND_TYPE_NAMES:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"conditional node type {ctype} is not a CUgraphConditionalNodeType (IF 0, WHILE 1, "
                              "SWITCH 2)")
        ok = {nd.COND_IF: size in (1, 2), nd.COND_WHILE: size == 1, nd.COND_SWITCH: size > 0}[ctype]
        if not ok:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"size {size} is not allowed for a {nd.COND_TYPE_NAMES[ctype]} node (IF: 1 or 2, WHILE: "
                              "1, SWITCH: more than 0; CUDA_CONDITIONAL_NODE_PARAMS, P-21)")
        if ctx is not h.ctx:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"the node's context 0x{ctx.handle if ctx else 0:x} is not the handle's context "
                              f"0x{h.ctx.handle if h.ctx else 0:x} (CUDA_CONDITIONAL_NODE_PARAMS::ctx, P-21)")
        holder: gr.Graph | None = g
        while holder is not None and holder is not h.graph:
            holder = holder.owner_node.graph if holder.owner_node is not None else None
        if holder is None:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"conditional handle 0x{h.handle:x} was made for graph {h.graph.gid}; a node of graph "
                              f"{g.gid} cannot use it (the handle's graph or a graph nested in it only, P-21)")
        if h.node is not None and not h.node.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"conditional handle 0x{h.handle:x} is used by node {h.node.local_id} of graph "
                              f"{h.node.graph.gid} already; a handle belongs to a single conditional node (P-21)")
        bodies = tuple(self.handles.new_graph(ctx) for _ in range(size))
        node = gb.attach(self.handles, g, gr.CONDITIONAL, nd.ConditionalParams(h, ctype, bodies, ctx), pairs)
        for b in bodies:
            b.owner_node = node
        h.node = node
        return node.handle, [b.handle for b in bodies]

    def set_conditional(self, cond: dict[int, int] | None, handle: int, value: int) -> None:
        """The device-side ``cudaGraphSetConditional(handle, value)``, called by a Python kernel of a replay
        (``KernelLaunch.set_conditional``): the condition value of the replaying launch (``cond``).

        Raises ``ValueError`` (the kernel's fault, raised through the launch like any exception of a kernel) when
        the kernel is not running in a graph launch, ``handle`` is not a conditional handle, or ``value`` does
        not fit in an ``unsigned int`` (P-25).
        """
        if cond is None:
            raise ValueError("set_conditional (cudaGraphSetConditional) is called by a kernel that is not running in "
                             "a graph launch; the call is undefined there (P-25)")
        h = self.handles.get(int(handle))
        if not isinstance(h, nd.CondHandle):
            raise ValueError(f"set_conditional: 0x{int(handle):x} is not a conditional handle "
                             "(cuGraphConditionalHandleCreate)")
        v = int(value)
        if not 0 <= v < 1 << 32:
            raise ValueError(f"set_conditional: value {v} does not fit in an unsigned int")
        cond[h.handle] = v
