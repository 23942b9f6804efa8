"""The entry table's rows of graphs: nodes and their parameters, topology, instantiation and launch, exec updates, user
objects, conditional nodes.

Each tuple is one run of :data:`simcuda._core.api.ROWS`, which concatenates the runs of every
``*_rows`` module in the tuple face's order; the forms of a row are described in :mod:`simcuda._core.rows`.
"""
from __future__ import annotations

from ..rows import Api, array, call, field, hand, kind, spread
from .conditional_entries import Conditionals
from .exec_entries import Execs
from .graph_entries import Graphs
from .userobj_entries import UserObjects

#: graphs, their nodes and node parameters, exec node updates
GRAPHS: tuple[Api, ...] = (
    Api("cuGraphCreate", call(Graphs.graph_create, "flags", out="phGraph"),
        """Create an empty graph. Errors: INVALID_VALUE flags != 0."""),
    Api("cuGraphDestroy", call(Graphs.graph_destroy, "hGraph"),
        """Destroy a graph and its nodes; the user-object references it (and its child graphs) held are released.
Errors: INVALID_VALUE bad graph, a capture target (spec 9) [I], or a child graph owned by a node."""),
    Api("cuGraphAddKernelNode",
        call(Graphs.graph_add_kernel_node, "hGraph", array("dependencies", "numDependencies"), spread("nodeParams"),
             out="phGraphNode"),
        """Add a KERNEL node from ``CUDA_KERNEL_NODE_PARAMS`` (``func`` or ``kern``, grid/block dimensions,
``sharedMemBytes`` in bytes, ``kernelParams`` in any form ``cuLaunchKernel`` takes; arguments are copied
now, as the driver copies them). A kernel registered with ``simcuda.kernel`` runs on every launch.

Another struct type (also ``CUDA_KERNEL_NODE_PARAMS_v2``/``_v3``) raises ``TypeError`` like the wrapper.
Errors: INVALID_VALUE NULL params, bad graph/dependency, bad function (the Returns list has no
INVALID_HANDLE), zero or oversized dimensions, ``kernelParams`` together with ``extra``;
NOT_SUPPORTED ``extra`` alone (not simulated)."""),
    Api("cuGraphAddMemcpyNode",
        call(Graphs.graph_add_memcpy_node, "hGraph", array("dependencies", "numDependencies"), "copyParams",
             out="phGraphNode"),
        """Add a MEMCPY node from a ``CUDA_MEMCPY3D``; host sides are read and written when the graph runs,
never now (spec 3.10). ``ctx`` is accepted and not checked.

Errors: INVALID_VALUE NULL params, bad graph/dependency, device ranges outside an allocation, bad
memory type; NOT_SUPPORTED for CUDA arrays."""),
    Api("cuGraphAddMemsetNode",
        call(Graphs.graph_add_memset_node, "hGraph", array("dependencies", "numDependencies"), "memsetParams",
             out="phGraphNode"),
        """Add a MEMSET node from ``CUDA_MEMSET_NODE_PARAMS`` (``dst``, ``pitch`` in bytes, ``value``,
``elementSize`` 1/2/4 bytes, ``width`` in elements, ``height`` in rows).

Errors: INVALID_VALUE NULL params, bad graph/dependency, element size, value wider than the element,
misaligned destination, range outside an allocation."""),
    Api("cuGraphAddHostNode",
        call(Graphs.graph_add_host_node, "hGraph", array("dependencies", "numDependencies"), spread("nodeParams"),
             out="phGraphNode"),
        """Add a HOST node from ``CUDA_HOST_NODE_PARAMS`` (``fn``: a ``CUhostFn`` address, ``userData``); the
function is called through ctypes on every launch (spec 3.9). Keep the ctypes thunk alive.

Errors: INVALID_VALUE NULL params or function, bad graph/dependency."""),
    Api("cuGraphAddEmptyNode", call(Graphs.graph_add_empty_node, "hGraph", array("dependencies", "numDependencies"),
                                    out="phGraphNode"),
        """Add an EMPTY node (a join point). Errors: INVALID_VALUE bad graph or dependency (also a repeated one)."""),
    Api("cuGraphAddEventRecordNode",
        call(Graphs.graph_add_event_node, "hGraph", array("dependencies", "numDependencies"), "event", False,
             out="phGraphNode"),
        """Add an EVENT_RECORD node (the event completes when the node runs).

Errors: INVALID_VALUE bad graph, dependency or event (the Returns list has no INVALID_HANDLE)."""),
    Api("cuGraphAddEventWaitNode",
        call(Graphs.graph_add_event_node, "hGraph", array("dependencies", "numDependencies"), "event", True,
             out="phGraphNode"),
        """Add a WAIT_EVENT node (replay has nothing to wait for: nodes run in one order).

Errors: INVALID_VALUE bad graph, dependency or event."""),
    Api("cuGraphAddMemAllocNode",
        call(Graphs.graph_add_mem_alloc_node, "hGraph", array("dependencies", "numDependencies"), spread("nodeParams"),
             out=("phGraphNode", field("nodeParams", "dptr"))),
        """Add a MEM_ALLOC node from ``CUDA_MEM_ALLOC_NODE_PARAMS`` and write the allocation's fixed address
into ``nodeParams.dptr`` (as the driver does).

Fields read: ``bytesize`` (bytes), ``poolProps.allocType`` (PINNED), ``poolProps.location`` (DEVICE,
ordinal), ``accessDescs[:accessDescCount]``. The memory exists while the graph runs, between this node
and a MEM_FREE node (or, left unfreed, until cuMemFreeAsync / cuMemFree / the next AUTO_FREE launch).
Errors: INVALID_VALUE NULL params, bad graph/dependency, size 0, a location other than a device of the
driver, an allocation type other than PINNED, bad access descriptors, a graph owned by a child node;
NOT_SUPPORTED on a device without memory pools (``DeviceSpec(memory_pools=False)``) [I]."""),
    Api("cuGraphAddMemFreeNode",
        call(Graphs.graph_add_mem_free_node, "hGraph", array("dependencies", "numDependencies"), "dptr",
             out="phGraphNode"),
        """Add a MEM_FREE node for a graph allocation (``dptr``: ``CUdeviceptr`` or ``int``).

Errors: INVALID_VALUE bad graph/dependency; an address not returned by an allocation node; an
allocation already freed by a free node (in any graph); in the owning graph a free node not
ordered after its allocation node [I]."""),
    Api("cuGraphAddBatchMemOpNode", hand(Graphs.graph_add_batch_mem_op_node),
        """Add a BATCH_MEM_OP node from ``CUDA_BATCH_MEM_OP_NODE_PARAMS`` (``ctx``, ``count``, ``paramArray``
of ``CUstreamBatchMemOpParams`` read by ``operation``, ``flags`` 0). The operations are copied.

Replay: WRITE_VALUE operations store their value; WAIT_VALUE operations evaluate their condition and
note it in the launch log (the simulator never blocks); barriers and flushes are no-ops.
Errors: INVALID_VALUE NULL params, count above the list or 256, unknown operation, an address outside
device memory or misaligned, a value too wide, unknown flags.""", decoder=kind("node_add", 12)),
    Api("cuGraphAddExternalSemaphoresSignalNode",
        call(Graphs.graph_add_ext_sem_node, "hGraph", array("dependencies", "numDependencies"), spread("nodeParams"),
             wait=False, out="phGraphNode"),
        """Add an EXT_SEMAS_SIGNAL node from ``CUDA_EXT_SEM_SIGNAL_NODE_PARAMS`` (``extSemArray``,
``paramsArray``, ``numExtSems``). Recorded with its parameters; replay is a no-op with a note in the
launch log (external semaphores are not simulated, so handles are not checked beyond NULL).

Errors: INVALID_VALUE NULL params, no semaphores, a NULL handle, ``numExtSems`` above a list length."""),
    Api("cuGraphAddExternalSemaphoresWaitNode",
        call(Graphs.graph_add_ext_sem_node, "hGraph", array("dependencies", "numDependencies"), spread("nodeParams"),
             wait=True, out="phGraphNode"),
        """Add an EXT_SEMAS_WAIT node from ``CUDA_EXT_SEM_WAIT_NODE_PARAMS``; as the signal node otherwise."""),
    Api("cuGraphAddNode",
        hand(Graphs.graph_add_batch_mem_op_node, Graphs.graph_add_child_graph_node,
             Conditionals.graph_add_conditional_node, Graphs.graph_add_empty_node, Graphs.graph_add_event_node,
             Graphs.graph_add_ext_sem_node, Graphs.graph_add_host_node, Graphs.graph_add_kernel_node,
             Graphs.graph_add_mem_alloc_node, Graphs.graph_add_mem_free_node, Graphs.graph_add_memcpy_node,
             Graphs.graph_add_memset_node),
        """Add a node of any simulated type from a ``CUgraphNodeParams`` tagged union (``type`` selects the
member: ``kernel``, ``memcpy.copyParams``, ``memset``, ``host``, ``graph`` (ownership CLONE or MOVE),
``eventRecord``, ``eventWait``, ``extSemSignal``, ``extSemWait``, ``alloc`` (its ``dptr`` is written
back), ``free``, ``memOp``; EMPTY needs none), keeping ``dependencyData`` (spec 4.6 step 2).

CONDITIONAL (``conditional``: ``handle``, ``type`` IF/WHILE/SWITCH, ``size``, ``ctx``): the node and its
empty body graphs, owned by the node, written back into ``conditional.phGraph_out`` (P-21).

Errors: as the typed add calls; INVALID_VALUE an unknown type or ownership, bad edge data (to_port
must be 0, type 0 or 1), a conditional node's bad handle, type, size or context (P-21); NOT_SUPPORTED
memcpy-batch and other unsimulated types.""", decoder=kind("graph_add_node")),
    Api("cuGraphAddNode_v3",
        hand(Graphs.graph_add_batch_mem_op_node, Graphs.graph_add_child_graph_node,
             Conditionals.graph_add_conditional_node, Graphs.graph_add_empty_node, Graphs.graph_add_event_node,
             Graphs.graph_add_ext_sem_node, Graphs.graph_add_host_node, Graphs.graph_add_kernel_node,
             Graphs.graph_add_mem_alloc_node, Graphs.graph_add_mem_free_node, Graphs.graph_add_memcpy_node,
             Graphs.graph_add_memset_node),
        """The same call as ``cuGraphAddNode`` (13.x resolves both to the edge-data ABI).""",
        decoder=kind("graph_add_node")),
    Api("cuGraphAddChildGraphNode",
        call(Graphs.graph_add_child_graph_node, "hGraph", array("dependencies", "numDependencies"), "childGraph",
             out="phGraphNode"),
        """Add a GRAPH node holding a **clone** of ``childGraph`` (spec 4.6, 9); allowed on a capture graph, and
with a capture graph as ``childGraph`` (cloning only reads it, spec 3.5).

Errors: INVALID_VALUE bad graphs/dependencies, or a child with MEM_ALLOC/MEM_FREE/CONDITIONAL nodes."""),
    Api("cuGraphChildGraphNodeGetGraph", call(Graphs.graph_child_graph_node_get_graph, "hNode", out="phGraph"),
        """The graph embedded in a GRAPH node (owned by the node). Errors: INVALID_VALUE not a GRAPH node."""),
    Api("cuGraphNodeGetParams", hand(Graphs.graph_node_get_params),
        """A node's parameters as a ``CUgraphNodeParams`` (``type`` plus the member for that type).

For a GRAPH node ``graph.graph`` is the embedded graph (owned by the node) and ``graph.ownership``
is ``CU_GRAPH_CHILD_GRAPH_OWNERSHIP_INVALID``, as the driver sets it on query; for a MEM_ALLOC node
``alloc.dptr`` is the allocation's address; for a CONDITIONAL node ``conditional`` has its handle, type, size,
context and ``phGraph_out`` its body graphs. Errors: INVALID_VALUE bad node.""", decoder=kind("node_params_get")),
    Api("cuGraphNodeSetParams", hand(Graphs.graph_node_set_params),
        """Set a node's parameters from a ``CUgraphNodeParams`` whose ``type`` must match the node's.

Execs made earlier are not affected. GRAPH: ``graph.graph`` is cloned into the node (replacing the
embedded graph). Errors: INVALID_VALUE NULL params, a type mismatch, bad parameters; NOT_SUPPORTED
for MEM_ALLOC / MEM_FREE nodes (documented as not supported), CONDITIONAL nodes (P-29) and unsimulated types.""",
        decoder=kind("node_params_set")),
    Api("cuGraphNodeSetParams_v2", hand(Graphs.graph_node_set_params),
        """As ``cuGraphNodeSetParams`` (the ``_v2`` entry also takes green contexts, not simulated).""",
        decoder=kind("node_params_set")),
    Api("cuGraphKernelNodeGetParams", hand(Graphs.graph_node_get_params),
        """A kernel node's ``CUDA_KERNEL_NODE_PARAMS``; ``kernelParams`` is the address of a ``void**`` array
holding copies of the arguments (owned by the returned struct). Errors: INVALID_VALUE bad node or not
a KERNEL node.""", decoder=kind("node_get", 0)),
    Api("cuGraphKernelNodeSetParams", call(Graphs.graph_node_set_params, "hNode", 0, "nodeParams"),
        """Set a kernel node's parameters (copied). Errors: INVALID_VALUE NULL params, not a KERNEL node, bad
dimensions; INVALID_HANDLE a bad function (the Returns list names it)."""),
    Api("cuGraphMemcpyNodeGetParams", hand(Graphs.graph_node_get_params),
        """A memcpy node's ``CUDA_MEMCPY3D`` (host sides are the objects given).

Mirrors ``cuda.bindings.driver.cuGraphMemcpyNodeGetParams(hNode)``; returns
``(CUresult, CUDA_MEMCPY3D)``.

Fidelity: each side's ``*MemoryType`` is the one the copy was made with: HOST/DEVICE for typed
copies, ``CU_MEMORYTYPE_UNIFIED`` (address in ``*Device``) for a captured ``cuMemcpyAsync`` and for
a side set as UNIFIED (spec 16, 9).

Errors: INVALID_VALUE bad node or not a MEMCPY node.""", decoder=kind("node_get", 1)),
    Api("cuGraphMemcpyNodeSetParams", call(Graphs.graph_node_set_params, "hNode", 1, "nodeParams"),
        """Set a memcpy node's ``CUDA_MEMCPY3D``. Errors: INVALID_VALUE NULL params, not a MEMCPY node, bad
ranges or memory types; NOT_SUPPORTED arrays."""),
    Api("cuGraphMemsetNodeGetParams", hand(Graphs.graph_node_get_params),
        """A memset node's ``CUDA_MEMSET_NODE_PARAMS``. Errors: INVALID_VALUE bad node or not a MEMSET node.""",
        decoder=kind("node_get", 2)),
    Api("cuGraphMemsetNodeSetParams", call(Graphs.graph_node_set_params, "hNode", 2, "nodeParams"),
        """Set a memset node's parameters. Errors: INVALID_VALUE NULL params, not a MEMSET node, bad range,
element size or value."""),
    Api("cuGraphHostNodeGetParams", hand(Graphs.graph_node_get_params),
        """A host node's ``CUDA_HOST_NODE_PARAMS`` (``fn`` as ``CUhostFn``, ``userData`` as given). Errors:
INVALID_VALUE.""", decoder=kind("node_get", 3)),
    Api("cuGraphHostNodeSetParams", call(Graphs.graph_node_set_params, "hNode", 3, "nodeParams"),
        """Set a host node's function and user data. Errors: INVALID_VALUE NULL params or function, not a HOST
        node."""),
    Api("cuGraphEventRecordNodeGetEvent", hand(Graphs.graph_node_get_params),
        """The event of an EVENT_RECORD node. Errors: INVALID_VALUE bad node or another type.""",
        decoder=kind("node_get_value", 7, "event")),
    Api("cuGraphEventRecordNodeSetEvent", call(Graphs.graph_node_set_params, "hNode", ntype=7, spec="event"),
        """Set the event of an EVENT_RECORD node. Errors: INVALID_VALUE bad node or another type; INVALID_HANDLE
a bad event."""),
    Api("cuGraphEventWaitNodeGetEvent", hand(Graphs.graph_node_get_params),
        """The event of a WAIT_EVENT node. Errors: INVALID_VALUE bad node or another type.""",
        decoder=kind("node_get_value", 6, "event")),
    Api("cuGraphEventWaitNodeSetEvent", call(Graphs.graph_node_set_params, "hNode", ntype=6, spec="event"),
        """Set the event of a WAIT_EVENT node. Errors: INVALID_VALUE bad node; INVALID_HANDLE a bad event."""),
    Api("cuGraphMemAllocNodeGetParams", hand(Graphs.graph_node_get_params),
        """A MEM_ALLOC node's ``CUDA_MEM_ALLOC_NODE_PARAMS`` (``dptr``, ``bytesize``, pinned device pool
properties, access descriptors). Errors: INVALID_VALUE bad node or another type.""", decoder=kind("node_get", 10)),
    Api("cuGraphMemFreeNodeGetParams", hand(Graphs.graph_node_get_params),
        """The address a MEM_FREE node frees, as ``CUdeviceptr``. Errors: INVALID_VALUE bad node or another type.""",
        decoder=kind("node_get_value", 11, "dptr")),
    Api("cuGraphBatchMemOpNodeGetParams", hand(Graphs.graph_node_get_params),
        """A BATCH_MEM_OP node's ``CUDA_BATCH_MEM_OP_NODE_PARAMS``. Errors: INVALID_VALUE bad node or another type.""",
        decoder=kind("node_get", 12)),
    Api("cuGraphBatchMemOpNodeSetParams", call(Graphs.graph_node_set_params, "hNode", 12, "nodeParams"),
        """Set a batch mem op node's operations (copied). Errors: INVALID_VALUE as ``cuGraphAddBatchMemOpNode``."""),
    Api("cuGraphExternalSemaphoresSignalNodeGetParams", hand(Graphs.graph_node_get_params),
        """An EXT_SEMAS_SIGNAL node's ``CUDA_EXT_SEM_SIGNAL_NODE_PARAMS``. Errors: INVALID_VALUE.""",
        decoder=kind("node_get", 8)),
    Api("cuGraphExternalSemaphoresSignalNodeSetParams", call(Graphs.graph_node_set_params, "hNode", 8, "nodeParams"),
        """Set an EXT_SEMAS_SIGNAL node's semaphores and parameters. Errors: INVALID_VALUE."""),
    Api("cuGraphExternalSemaphoresWaitNodeGetParams", hand(Graphs.graph_node_get_params),
        """An EXT_SEMAS_WAIT node's ``CUDA_EXT_SEM_WAIT_NODE_PARAMS``. Errors: INVALID_VALUE.""",
        decoder=kind("node_get", 9)),
    Api("cuGraphExternalSemaphoresWaitNodeSetParams", call(Graphs.graph_node_set_params, "hNode", 9, "nodeParams"),
        """Set an EXT_SEMAS_WAIT node's semaphores and parameters. Errors: INVALID_VALUE."""),
    Api("cuGraphExecKernelNodeSetParams", call(Execs.graph_exec_node_set_params, "hGraphExec", "hNode", 0,
                                               "nodeParams"),
        """Set a kernel node's parameters in an exec. All fields may change, but the function's owning context
may not (Graph Update Limitations).

Errors: INVALID_VALUE NULL params, a node not in the exec's graph (or destroyed), not a KERNEL node,
bad function or dimensions, a function of another context."""),
    Api("cuGraphExecMemcpyNodeSetParams", call(Execs.graph_exec_node_set_params, "hGraphExec", "hNode", 1,
                                               "copyParams"),
        """Set a memcpy node's ``CUDA_MEMCPY3D`` in an exec. The operands must stay in allocations of the same
kind and context and keep their memory types; both the old and the new copy must be 1-dimensional to
change geometry; zero-length copies are refused (the docstring's limits).

Errors: INVALID_VALUE for any of those, NULL params, or a node not in the exec's graph."""),
    Api("cuGraphExecMemsetNodeSetParams", call(Execs.graph_exec_node_set_params, "hGraphExec", "hNode", 2,
                                               "memsetParams"),
        """Set a memset node's parameters in an exec: value and address may change (same kind of allocation,
same context); 2D memsets may change nothing else, 1D ones not their height; zero sizes are refused.

Errors: INVALID_VALUE for any of those, NULL params, or a node not in the exec's graph."""),
    Api("cuGraphExecHostNodeSetParams", call(Execs.graph_exec_node_set_params, "hGraphExec", "hNode", 3, "nodeParams"),
        """Set a host node's function and user data in an exec (no restrictions). Errors: INVALID_VALUE."""),
    Api("cuGraphExecChildGraphNodeSetParams",
        call(Execs.graph_exec_node_set_params, "hGraphExec", "hNode", ntype=4, spec="childGraph"),
        """Give a child-graph node of an exec the parameters of ``childGraph``, whose topology and node
insertion order must match the embedded graph's (checked like ``cuGraphExecUpdate``, recursively).

Errors: INVALID_VALUE bad handles, a node not in the exec's graph, or a mismatch (the ``why`` names the
update result, e.g. TOPOLOGY_CHANGED)."""),
    Api("cuGraphExecEventRecordNodeSetEvent",
        call(Execs.graph_exec_node_set_params, "hGraphExec", "hNode", ntype=7, spec="event"),
        """Set the event of an EVENT_RECORD node in an exec. Errors: INVALID_VALUE (bad event included)."""),
    Api("cuGraphExecEventWaitNodeSetEvent",
        call(Execs.graph_exec_node_set_params, "hGraphExec", "hNode", ntype=6, spec="event"),
        """Set the event of a WAIT_EVENT node in an exec. Errors: INVALID_VALUE (bad event included)."""),
    Api("cuGraphExecBatchMemOpNodeSetParams", call(Execs.graph_exec_node_set_params, "hGraphExec", "hNode", 12,
                                                   "nodeParams"),
        """Set a batch mem op node's operations in an exec: addresses, values and wait conditions may change;
count, operation types, flags and context may not. Errors: INVALID_VALUE."""),
    Api("cuGraphExecExternalSemaphoresSignalNodeSetParams",
        call(Execs.graph_exec_node_set_params, "hGraphExec", "hNode", 8, "nodeParams"),
        """Set an EXT_SEMAS_SIGNAL node's parameters in an exec; ``numExtSems`` cannot change. Errors:
        INVALID_VALUE."""),
    Api("cuGraphExecExternalSemaphoresWaitNodeSetParams",
        call(Execs.graph_exec_node_set_params, "hGraphExec", "hNode", 9, "nodeParams"),
        """Set an EXT_SEMAS_WAIT node's parameters in an exec; ``numExtSems`` cannot change. Errors: INVALID_VALUE."""),
    Api("cuGraphExecNodeSetParams", hand(Execs.graph_exec_node_set_params),
        """Set a node's parameters in an exec from a ``CUgraphNodeParams`` (``type`` must match), with the limits
of the per-type exec setters. Errors: INVALID_VALUE; NOT_SUPPORTED for memory and unsimulated nodes.""",
        decoder=kind("exec_node_params_set")),
    Api("cuGraphNodeSetEnabled", call(Execs.graph_node_set_enabled, "hGraphExec", "hNode", "isEnabled"),
        """Enable (``isEnabled`` != 0) or disable a kernel, memcpy or memset node in an exec; a disabled node runs
as an empty node and keeps its parameters. Errors: INVALID_VALUE another node type, a node not in the
exec's graph, bad handles."""),
    Api("cuGraphNodeGetEnabled", call(Execs.graph_node_get_enabled, "hGraphExec", "hNode", out="isEnabled"),
        """Whether a kernel, memcpy or memset node is enabled in an exec (1 or 0). Errors: INVALID_VALUE."""),
    Api("cuGraphNodeFindInClone", call(Graphs.graph_node_find_in_clone, "hOriginalNode", "hClonedGraph", out="phNode"),
        """The copy of ``hOriginalNode`` in a graph made by ``cuGraphClone`` of its graph.

Errors: INVALID_VALUE bad handles, a graph that is not such a clone, a node added after cloning, or a
copy destroyed since."""),
    Api("cuGraphExecGetFlags", call(Execs.graph_exec_get_flags, "hGraphExec", out="flags"),
        """The flags the exec was instantiated with (``cuuint64_t``), without UPLOAD. Errors: INVALID_VALUE."""),
    Api("cuGraphExecGetId", call(Execs.graph_exec_get_id, "hGraphExec", out="graphId"),
        """The exec's id (``int``; unique among this driver's graph and exec ids). Errors: INVALID_VALUE."""),
)

#: graph topology, instantiation, launch, update, DOT
TOPOLOGY_AND_EXEC: tuple[Api, ...] = (
    Api("cuGraphGetNodes", call(Graphs.graph_get_nodes, "hGraph", out=array("nodes", "numNodes")),
        """The graph's nodes in creation order [I] (spec 4.5, 9).

``numNodes=0`` only counts: ``(res, [], N)``. A larger ``numNodes`` pads the list with
``CUgraphNode(0)`` and returns the count N; a smaller one returns that many nodes and that count.
Errors: INVALID_VALUE bad graph."""),
    Api("cuGraphGetRootNodes", call(Graphs.graph_get_root_nodes, "hGraph", out=array("rootNodes", "numRootNodes")),
        """Nodes with no incoming edge, creation order; count-only and padding as ``cuGraphGetNodes``."""),
    Api("cuGraphGetEdges", call(Graphs.graph_get_edges, "hGraph",
                                out=(array("from_", "numEdges"), array("to", "numEdges"),
                                     array("edgeData", "numEdges"))),
        """Edges in creation order: ``(res, from, to, edgeData, count)`` with ``to[i]`` depending on ``from[i]``.

``numEdges=0`` only counts; a larger value pads with ``CUgraphNode(0)`` and zero edge data.
Errors: INVALID_VALUE bad graph."""),
    Api("cuGraphNodeGetDependencies",
        call(Graphs.graph_node_get_dependencies, "hNode", False,
             out=(array("dependencies", "numDependencies"), array("edgeData", "numDependencies"))),
        """The node's dependencies with edge data, in edge order: ``(res, nodes, edgeData, count)``."""),
    Api("cuGraphNodeGetDependentNodes",
        call(Graphs.graph_node_get_dependencies, "hNode", True,
             out=(array("dependentNodes", "numDependentNodes"), array("edgeData", "numDependentNodes"))),
        """The nodes that depend on this one, with edge data: ``(res, nodes, edgeData, count)``."""),
    Api("cuGraphNodeGetType", call(Graphs.graph_node_get_type, "hNode", out="type"),
        """The node's ``CUgraphNodeType``. Errors: INVALID_VALUE bad node."""),
    Api("cuGraphNodeGetContainingGraph", call(Graphs.graph_node_get_containing_graph, "hNode", out="phGraph"),
        """The graph that holds the node. Errors: INVALID_VALUE."""),
    Api("cuGraphNodeGetLocalId", call(Graphs.graph_node_get_local_id, "hNode", out="nodeId"),
        """The node's 0-based creation index in its graph (matches ``node_<id>`` in DOT output)."""),
    Api("cuGraphGetId", call(Graphs.graph_get_id, "hGraph", out="graphId"),
        """The graph's id (matches ``graph_<id>`` in DOT output)."""),
    Api("cuGraphAddDependencies",
        hand(call(Graphs.graph_add_dependencies, "hGraph", array("from_", "numDependencies"),
                  array("to", "numDependencies"), array("edgeData", "numDependencies"))),
        """Add edges ``from_[i] -> to[i]`` (``edgeData`` None = zero). Errors: INVALID_VALUE a node outside the
graph or NULL (also counts past the lists), an existing edge, bad edge data."""),
    Api("cuGraphRemoveDependencies",
        hand(call(Graphs.graph_remove_dependencies, "hGraph", array("from_", "numDependencies"),
                  array("to", "numDependencies"), array("edgeData", "numDependencies"))),
        """Remove edges (recorded, so nodes cut off by graph edits stay exempt from UNJOINED, spec 4.4).
Errors: INVALID_VALUE a missing edge, or a graph with memory nodes."""),
    Api("cuGraphDestroyNode", call(Graphs.graph_destroy_node, "hNode"),
        """Remove a node and its edges. Errors: INVALID_VALUE during capture of its graph (spec 3.5) or with
memory nodes."""),
    Api("cuGraphClone", call(Graphs.graph_clone, "originalGraph", out="phGraphClone"),
        """Deep copy (child graphs included), with new references to the user objects each graph holds. Errors:
INVALID_VALUE, also for MEM_ALLOC/MEM_FREE/CONDITIONAL nodes."""),
    Api("cuGraphInstantiate", call(Execs.graph_instantiate, "hGraph", "flags", out="phGraphExec"),
        """Freeze a graph into an executable graph. Args: ``flags``: ``CUgraphInstantiate_flags`` bits (13.x takes
them; the argument is required, as in the wrapper: one argument raises ``TypeError``).

Mirrors ``cuda.bindings.driver.cuGraphInstantiate(hGraph, flags)``; returns ``(CUresult, CUgraphExec)``.

Errors (INVALID_VALUE): ``CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD``, which needs the params form and its
upload stream (spec 16, 9) [H/D]; unknown flag bits; a capture target [I]; a graph moved into a child-graph node;
memory nodes while an exec of the graph exists (C-141); DEVICE_LAUNCH with AUTO_FREE_ON_LAUNCH, with no
kernel/memcpy/memset node, other node types, pageable host copies or several contexts (C-143); a cycle;
a conditional body holding a node other than kernel, empty, memcpy, memset, child graph or conditional, at any
depth (NODE_OPERATION_NOT_SUPPORTED, C-29, P-23); a conditional handle no node uses (CONDITIONAL_HANDLE_UNUSED,
P-22). ``cuGraphInstantiateWithParams`` also reports the ``CUgraphInstantiateResult`` and error node."""),
    Api("cuGraphInstantiateWithParams", hand(Execs.graph_instantiate_with_params),
        """Instantiate from ``CUDA_GRAPH_INSTANTIATE_PARAMS`` (``flags``; ``hUploadStream`` used with
``CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD``) and write ``result_out`` (a ``CUgraphInstantiateResult``) and
``hErrNode_out`` into the struct, as the driver does: SUCCESS and NULL on success; on failure ERROR,
INVALID_STRUCTURE (a cycle; a node on it), NODE_OPERATION_NOT_SUPPORTED (DEVICE_LAUNCH with another node
type or pageable host memory; that node) or MULTIPLE_CTXS_NOT_SUPPORTED (that node).

Errors: INVALID_VALUE NULL params and every rule of ``cuGraphInstantiate``; stream errors of the upload
stream (checked before anything is made).""", decoder=kind("instantiate_with_params")),
    Api("cuGraphLaunch", call(Execs.graph_launch, "hGraphExec", "hStream"),
        """Run an executable graph on a stream (replays nodes in topological order, creation order breaking ties).

Mirrors ``cuda.bindings.driver.cuGraphLaunch(hGraphExec, hStream)``; returns ``(CUresult,)``.

Errors: INVALID_VALUE for a NULL or destroyed exec (spec 16, 9), INVALID_HANDLE for a handle that never
named an exec; INVALID_VALUE unfreed graph allocations without
AUTO_FREE_ON_LAUNCH; 900 into a capturing stream, invalidating it (spec 3.8) unless
``Options(graph_launch_in_capture="child-node")``; 906/901 by the stream rules; LAUNCH_TIMEOUT (702) when a
WHILE node's body ran ``simcuda._core.graphs.nodes.COND_WHILE_LIMIT`` times in one launch with its condition still set
(P-27) [I]. Conditional nodes replay the body their handle's value selects (P-26)."""),
    Api("cuGraphUpload", call(Execs.graph_upload, "hGraphExec", "hStream"),
        """Nothing to upload in a simulator: checks the handles and the stream rules (906 legacy, 901).

Mirrors ``cuda.bindings.driver.cuGraphUpload(hGraphExec, hStream)``; returns ``(CUresult,)``.

Errors: INVALID_VALUE for a NULL or destroyed exec (spec 16, 9), INVALID_HANDLE for a handle that never
named an exec; the stream's preamble errors; 906 on the legacy stream under a blocking capture; 901 on
a stream of an invalidated capture."""),
    Api("cuGraphExecDestroy", call(Execs.graph_exec_destroy, "hGraphExec"),
        """Destroy an executable graph and release its user-object references (a launch still pending or running
keeps its own until it completes). Errors: INVALID_VALUE/INVALID_HANDLE; 900 during a restricting capture
(potentially unsafe call, spec 5.2)."""),
    Api("cuGraphExecUpdate", hand(Execs.graph_exec_update),
        """Update an exec's parameters from a graph of the same topology (spec 9; Programming Guide "Whole Graph
Update": nodes paired by creation order, dependencies by edge order).

Returns ``(CUDA_SUCCESS, CUgraphExecUpdateResultInfo(result=SUCCESS, errorNode=0, errorFromNode=0))``.
On any error, including ``CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE`` (910), the info slot is ``None`` as in
the real wrapper (spec 11.1, C-138); the driver's result (TOPOLOGY_CHANGED, NODE_TYPE_CHANGED,
UNSUPPORTED_FUNCTION_CHANGE, PARAMETERS_CHANGED, ATTRIBUTES_CHANGED, NOT_SUPPORTED) and error nodes are
named in ``simcuda.last_error().why`` and kept in ``simcuda.last_error().update_info``. The exec is
unchanged on failure. Updating from the graph of a live capture is INVALID_VALUE: an update freezes the
graph into the exec as instantiation does, which spec 3.2 rules out until the capture ends [inferred].

Fidelity (spec 16, 9) [I]: when the two graphs created different numbers of nodes (destroyed ones
included) the result is NOT_SUPPORTED with a NULL error node, as observed on NVIDIA; the same
created count with different live nodes is TOPOLOGY_CHANGED. The rule is ``graph.plan_update``. On success the
exec's user-object references are replaced by new ones to those of ``hGraph`` (and its child graphs) [I].
Conditional nodes (P-29): another conditional type or body count is PARAMETERS_CHANGED; the bodies are checked as
graphs of their own; the handle's default value and flags come from ``hGraph``.""", decoder=kind("graph_exec_update")),
    Api("cuGraphDebugDotPrint", hand(call(Graphs.graph_debug_dot_print, "hGraph", "path", "flags")),
        """Write the graph as Graphviz DOT (spec 9.1). Args: ``path`` as ``bytes`` (``str`` raises TypeError);
``CUgraphDebugDot_flags``. Errors: INVALID_VALUE bad graph or empty path; OPERATING_SYSTEM (304)
when the file cannot be written."""),
)

#: user objects
USER_OBJECTS: tuple[Api, ...] = (
    Api("cuUserObjectCreate", hand(call(UserObjects.user_object_create, "ptr", "destroy", "initialRefcount", "flags",
                                        out="object_out")),
        """Create a user object: ``destroy(ptr)`` runs once its last reference goes. The caller owns the
``initialRefcount`` references it starts with.

Args: ``ptr``: the value handed to ``destroy`` (None, an int address or a buffer, as ``userData`` of
``cuLaunchHostFunc``); ``destroy``: a ``CUhostFn`` or an ``int`` address (a Python callable raises ``TypeError: an
integer is required``, as in the real wrapper); ``flags``: ``CU_USER_OBJECT_NO_DESTRUCTOR_SYNC`` (1), required.

References: graphs take them with ``cuGraphRetainUserObject`` (cuda.core moves the caller's reference to its
capture's graph); a clone copies the graph's; an exec keeps its own copy from instantiate
(replaced by the source graph's at ``cuGraphExecUpdate`` [I]) until it is destroyed; a launch holds the exec's
until the replay has run, so the destructor never runs during a launch that uses the object.
Fidelity [I]: the destructor runs on the calling thread when the call that dropped the last reference ends
(NVIDIA runs it later on an internal thread), outside the driver lock, with every CUDA call from it refused
with NOT_PERMITTED (800, spec 3.9). Not a potentially unsafe call: fine during capture.

Errors: INVALID_VALUE ``flags`` other than 1; ``initialRefcount`` 0 or above INT_MAX [H: hip-tests; I]; a NULL
``destroy`` [H; I]."""),
    Api("cuUserObjectRetain", call(UserObjects.user_object_retain, "object", "count"),
        """Add ``count`` references owned by the caller. Errors: INVALID_VALUE a bad handle, or one whose references
are all gone [I]; ``count`` 0 or above INT_MAX."""),
    Api("cuUserObjectRelease", call(UserObjects.user_object_release, "object", "count"),
        """Release ``count`` of the caller's references; the last reference of all runs the destructor.

Errors (nothing released): INVALID_VALUE a bad or dead handle; ``count`` 0 or above INT_MAX; more references
than the caller holds: undefined behaviour in CUDA, INVALID_VALUE here [I]."""),
    Api("cuGraphRetainUserObject", call(UserObjects.graph_retain_user_object, "graph", "object", "count", "flags"),
        """The graph takes ``count`` references: new ones (``flags`` 0) or, with ``CU_GRAPH_USER_OBJECT_MOVE``
(1), the caller's. Allowed on the graph of an open capture (cuda.core's GraphBuilder does it) [O].

Errors (nothing changes): INVALID_VALUE a bad graph or object; ``count`` 0 or above INT_MAX; other ``flags``;
with MOVE, more references than the caller holds [I]."""),
    Api("cuGraphReleaseUserObject", call(UserObjects.graph_release_user_object, "graph", "object", "count"),
        """The graph releases ``count`` of its references. Execs instantiated from it keep their own copy.

Errors (nothing changes): INVALID_VALUE a bad graph or object; ``count`` 0 or above INT_MAX; more references than
the graph holds: undefined behaviour in CUDA, INVALID_VALUE here [I]."""),
)

#: conditional nodes
CONDITIONAL: tuple[Api, ...] = (
    # -- conditional nodes (topic: conditional; docs/spec-proposals.md P-20..P-31)
    Api("cuGraphConditionalHandleCreate",
        call(Conditionals.graph_conditional_handle_create, "hGraph", "ctx", "defaultLaunchValue", "flags",
             out="pHandle_out"),
        """Create a conditional handle for ``hGraph`` (the graph holding, directly or in a nested graph, the one
conditional node that will use it) and context ``ctx`` (NULL: the current context [I]). ``defaultLaunchValue``
is the condition's value at the start of every launch when ``flags`` is ``CU_GRAPH_COND_ASSIGN_DEFAULT`` (1);
with 0 the value at a launch's start is what the previous launch of the exec left (0 at the first) [I: undefined
in CUDA]. Handles cannot be destroyed; a handle no node uses makes instantiation fail (CONDITIONAL_HANDLE_UNUSED).
Kernels set the value with ``cudaGraphSetConditional`` (a Python kernel: ``launch.set_conditional``) (P-20, P-22,
P-25).

Errors: INVALID_VALUE a bad graph, ``flags`` other than 0 or 1; INVALID_CONTEXT / CONTEXT_IS_DESTROYED a bad
context, or no current context for a NULL one."""),
)
