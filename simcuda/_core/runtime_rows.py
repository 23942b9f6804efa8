"""The runtime entries that are a driver entry with the runtime's conventions (:class:`simcuda._core.rows.Runtime`),
in the runtime face's order.
"""
from __future__ import annotations

from .events.event_entries import Events
from .graphs.conditional_entries import Conditionals
from .graphs.graph_entries import Graphs
from .memory.memory_entries import Memory
from .memory.vmm_entries import VirtualMemory
from .rows import Runtime, array, call, hand, lit
from .streams.stream_entries import Streams

#: the runtime entries that are a driver entry with the runtime's conventions, in the runtime face's order:
#: the runtime face builds each row that is not particular (:func:`simcuda.faces.bindings.runtime`), and shows the
#: driver row's description, its codes translated to ``cudaError_t``
RUNTIME_ROWS: tuple[Runtime, ...] = (
    Runtime("cudaDriverGetVersion", "cuDriverGetVersion", hand()),
    Runtime("cudaGetDeviceCount", "cuDeviceGetCount", needs="init", doc="""
Number of simulated devices."""),
    Runtime("cudaDeviceGetAttribute", "cuDeviceGetAttribute", needs="init", doc="""
A ``cudaDeviceAttr`` value (``int``); the values equal the driver's ``CUdevice_attribute`` values."""),
    Runtime("cudaDeviceSynchronize", "cuCtxSynchronize", doc="""
Wait for all work of the current device (runs pending work in ``progression="manual"``)."""),
    Runtime("cudaMemGetInfo", "cuMemGetInfo", doc="""
``(cudaSuccess, free, total)`` bytes of the current device."""),
    Runtime("cudaMalloc", "cuMemAlloc", call(Memory.mem_alloc, "size", lit("cudaMalloc"), allow_zero=True,
                                             out="devPtr"), doc="""
Allocate ``size`` bytes of simulated device memory; returns the address as an ``int``.

``size`` 0 succeeds with address 0, as the real runtime does."""),
    Runtime("cudaMallocManaged", "cuMemAllocManaged",
            call(Memory.mem_alloc, "size", lit("cudaMallocManaged"), managed=True, flags="flags", allow_zero=True,
                 out="devPtr"), doc="""
Allocate managed memory (simulated as device memory)."""),
    Runtime("cudaMallocPitch", "cuMemAllocPitch", hand()),
    Runtime("cudaFree", "cuMemFree", call(Memory.mem_free, "devPtr", lit("cudaFree")), doc="""
Free device memory. ``cudaFree(0)`` does nothing and succeeds (programs call it to initialise the runtime)."""),
    Runtime("cudaMallocHost", "cuMemAllocHost",
            call(Memory.mem_alloc_host, "size", lit("cudaMallocHost"), allow_zero=True, out="ptr"), doc="""
Allocate real, page-locked-in-name host memory; returns its address as an ``int`` (valid for ctypes).

``size`` 0 gives address 0."""),
    Runtime("cudaHostAlloc", "cuMemHostAlloc",
            call(Memory.mem_alloc_host, "size", lit("cudaHostAlloc"), "flags", allow_zero=True, out="pHost"), doc="""
As :func:`cudaMallocHost`, with ``cudaHostAlloc*`` flags (accepted; portable/mapped/write-combined make no
difference here)."""),
    Runtime("cudaFreeHost", "cuMemFreeHost", hand()),
    Runtime("cudaHostRegister", "cuMemHostRegister", doc="""
Page-lock existing host memory (bookkeeping only)."""),
    Runtime("cudaHostUnregister", "cuMemHostUnregister", doc="""
Undo :func:`cudaHostRegister`."""),
    Runtime("cudaMemcpy", "cuMemcpy", hand()),
    Runtime("cudaMemcpyAsync", "cuMemcpyAsync", hand()),
    Runtime("cudaMemcpy2D", "cuMemcpy2D", hand()),
    Runtime("cudaMemcpy2DAsync", "cuMemcpy2DAsync", hand()),
    Runtime("cudaMemcpy3D", "cuMemcpy3D", hand()),
    Runtime("cudaMemcpy3DAsync", "cuMemcpy3DAsync", hand()),
    Runtime("cudaMemset", "cuMemsetD8", hand()),
    Runtime("cudaMemsetAsync", "cuMemsetD8Async", hand()),
    Runtime("cudaMemset2D", "cuMemsetD2D8", hand()),
    Runtime("cudaMemset2DAsync", "cuMemsetD2D8Async", hand()),
    Runtime("cudaMallocAsync", "cuMemAllocAsync", doc="""
Stream-ordered allocation: a MEM_ALLOC node with a graph-owned address during capture (spec 3.8)."""),
    Runtime("cudaMallocFromPoolAsync", "cuMemAllocFromPoolAsync", doc="""
Stream-ordered allocation from ``memPool``; a MEM_ALLOC node during capture (spec 3.8)."""),
    Runtime("cudaDeviceGetDefaultMemPool", "cuDeviceGetDefaultMemPool", needs="init", doc="""
The device's default memory pool (a ``cudaMemPool_t``)."""),
    Runtime("cudaDeviceGetMemPool", "cuDeviceGetMemPool", needs="init", doc="""
The device's current memory pool (a ``cudaMemPool_t``)."""),
    Runtime("cudaDeviceSetMemPool", "cuDeviceSetMemPool", needs="init", doc="""
Make ``memPool`` the device's current pool."""),
    Runtime("cudaMemPoolGetAttribute", "cuMemPoolGetAttribute", hand()),
    Runtime("cudaMemPoolSetAttribute", "cuMemPoolSetAttribute", hand()),
    # memory pools and graph memory (memory/pool_entries.py; issue 10)
    Runtime("cudaMemPoolCreate", "cuMemPoolCreate", hand()),
    Runtime("cudaMemPoolDestroy", "cuMemPoolDestroy", needs="init", doc="""
Destroy a pool made by :func:`cudaMemPoolCreate` (a default pool cannot be destroyed)."""),
    Runtime("cudaMemPoolTrimTo", "cuMemPoolTrimTo", needs="init", doc="""
Release the pool's kept memory down to ``minBytesToKeep`` reserved bytes."""),
    Runtime("cudaMemPoolSetAccess", "cuMemPoolSetAccess", hand()),
    Runtime("cudaMemPoolGetAccess", "cuMemPoolGetAccess", hand()),
    Runtime("cudaDeviceGraphMemTrim", "cuDeviceGraphMemTrim", needs="init", doc="""
Give back the device's graph memory that no graph uses now."""),
    Runtime("cudaDeviceGetGraphMemAttribute", "cuDeviceGetGraphMemAttribute", hand()),
    Runtime("cudaDeviceSetGraphMemAttribute", "cuDeviceSetGraphMemAttribute", hand()),
    Runtime("cudaDeviceGetStreamPriorityRange", "cuCtxGetStreamPriorityRange", doc="""
``(least, greatest)`` stream priority of the current device."""),
    Runtime("cudaUserObjectCreate", "cuUserObjectCreate", needs="init", doc="""
``destroy``: a ``cudaHostFn_t`` or an ``int`` address (a Python callable raises ``TypeError``)."""),
    Runtime("cudaUserObjectRetain", "cuUserObjectRetain", needs="init", doc="""
Add references owned by the caller."""),
    Runtime("cudaUserObjectRelease", "cuUserObjectRelease", needs="init", doc="""
Release references owned by the caller."""),
    Runtime("cudaGraphRetainUserObject", "cuGraphRetainUserObject", needs="init", doc="""
The graph takes references (``cudaGraphUserObjectMove`` = 1: the caller's)."""),
    Runtime("cudaGraphReleaseUserObject", "cuGraphReleaseUserObject", needs="init", doc="""
The graph releases references."""),
    Runtime("cudaFreeAsync", "cuMemFreeAsync", doc="""
Stream-ordered free: a MEM_FREE node during capture (the address must be a graph allocation)."""),
    Runtime("cudaStreamCreate", "cuStreamCreate", call(Streams.stream_create, 0, out="pStream"), doc="""
Create a blocking stream (``cudaStreamDefault``) on the current device."""),
    Runtime("cudaStreamCreateWithFlags", "cuStreamCreate", doc="""
Create a stream: ``cudaStreamDefault`` (0) or ``cudaStreamNonBlocking`` (1)."""),
    Runtime("cudaStreamCreateWithPriority", "cuStreamCreateWithPriority", doc="""
Create a stream with a priority (clamped to the range cudaDeviceGetStreamPriorityRange gives)."""),
    Runtime("cudaStreamDestroy", "cuStreamDestroy", doc="""
Destroy a stream (pending work still runs). During a capture: destroying the origin ends the capture without a graph
[I]; destroying a member that is not the origin leaves the capture as it was, the stream leaves it and its nodes
stay (spec 2.2, C-153b); unjoined work of it still makes the end unjoined [I]."""),
    Runtime("cudaStreamSynchronize", "cuStreamSynchronize", doc="""
Wait for the stream's work. Capture rules (spec 6, 5.3, 5.2): 906 on the legacy stream under a blocking capture; 900
on a capturing stream (invalidating it) or as a potentially unsafe call."""),
    Runtime("cudaStreamQuery", "cuStreamQuery", doc="""
``(cudaSuccess,)`` when done, ``(cudaErrorNotReady,)`` while work is pending (``progression="manual"``).

``cudaErrorNotReady`` is not recorded as the last error. Capture rules as :func:`cudaStreamSynchronize`."""),
    Runtime("cudaStreamWaitEvent", "cuStreamWaitEvent", doc="""
Make ``stream`` wait for ``event``: joins captures (fork/join), merges or isolates them (spec 4.1).

Args: ``flags``: ``cudaEventWaitDefault`` (0) or ``cudaEventWaitExternal`` (1)."""),
    Runtime("cudaStreamGetFlags", "cuStreamGetFlags", doc="""
The stream's flags (``int``)."""),
    Runtime("cudaStreamGetPriority", "cuStreamGetPriority", doc="""
The stream's priority (``int``)."""),
    Runtime("cudaStreamGetId", "cuStreamGetId", doc="""
The stream's unique id (``int``; the legacy stream's is 0)."""),
    Runtime("cudaStreamAddCallback", "cuStreamAddCallback", doc="""
Enqueue a ``cudaStreamCallback_t`` (or ``int`` address of ``void (*)(cudaStream_t, cudaError_t, void*)``)."""),
    Runtime("cudaStreamAttachMemAsync", "cuStreamAttachMemAsync", doc="""
Attach managed memory to a stream (bookkeeping only)."""),
    Runtime("cudaEventCreate", "cuEventCreate", call(Events.event_create, 0, out="event"), doc="""
Create an event with default flags (timing enabled)."""),
    Runtime("cudaEventCreateWithFlags", "cuEventCreate", doc="""
Create an event: ``cudaEventDefault``, ``cudaEventBlockingSync``, ``cudaEventDisableTiming``,
``cudaEventInterprocess`` bits."""),
    Runtime("cudaEventRecord", "cuEventRecord", call(Events.event_record, "event", "stream", 0,
                                                     lit("cudaEventRecord")), doc="""
Record ``event`` on ``stream`` (spec 4.2): on a capturing stream it captures the stream's current dependencies (no
node)."""),
    Runtime("cudaEventRecordWithFlags", "cuEventRecordWithFlags",
            call(Events.event_record, "event", "stream", "flags", lit("cudaEventRecordWithFlags")), doc="""
:func:`cudaEventRecord` with ``cudaEventRecordExternal`` (1): an EVENT_RECORD node during capture."""),
    Runtime("cudaEventQuery", "cuEventQuery", doc="""
``(cudaSuccess,)`` when complete, ``(cudaErrorNotReady,)`` while pending."""),
    Runtime("cudaEventSynchronize", "cuEventSynchronize", doc="""
Wait for the event (runs the work before it)."""),
    Runtime("cudaEventElapsedTime", "cuEventElapsedTime", doc="""
Milliseconds (``float``) of simulated time between two completed events: 0.001 ms per operation run between the two
records (eager operations and replayed graph nodes, spec 16) [I]."""),
    Runtime("cudaEventDestroy", "cuEventDestroy", doc="""
Destroy an event (nodes it helped capture stay)."""),
    Runtime("cudaStreamBeginCapture", "cuStreamBeginCapture", doc="""
Begin capturing ``stream`` into a new graph (spec 3.1). ``mode``: ``cudaStreamCaptureMode``."""),
    Runtime("cudaStreamBeginCaptureToGraph", "cuStreamBeginCaptureToGraph", hand()),
    Runtime("cudaStreamEndCapture", "cuStreamEndCapture", doc="""
End the capture begun on ``stream``; returns its ``cudaGraph_t`` (spec 3.3)."""),
    Runtime("cudaStreamIsCapturing", "cuStreamIsCapturing", doc="""
The stream's ``cudaStreamCaptureStatus``."""),
    Runtime("cudaStreamGetCaptureInfo", "cuStreamGetCaptureInfo", hand()),
    Runtime("cudaStreamUpdateCaptureDependencies", "cuStreamUpdateCaptureDependencies", hand()),
    Runtime("cudaThreadExchangeStreamCaptureMode", "cuThreadExchangeStreamCaptureMode",
            call(Streams.thread_exchange_stream_capture_mode, "mode", out="mode"), needs="init", doc="""
Set this thread's capture interaction mode; returns the previous ``cudaStreamCaptureMode`` (spec 3.7)."""),
    Runtime("cudaLaunchHostFunc", "cuLaunchHostFunc", doc="""
Enqueue a host function: a HOST node during capture, called at each replay (spec 3.9).

Args: ``fn``: ``cudaHostFn_t`` or the ``int`` address of a ``void (*)(void*)`` (for example
``ctypes.cast(CFUNCTYPE(None, c_void_p)(f), c_void_p).value``; keep the thunk alive); a Python callable raises
``TypeError: an integer is required``. ``userData``: None, int or buffer (its address)."""),
    Runtime("cudaLaunchHostFunc_v2", "cuLaunchHostFunc_v2", doc="""
:func:`cudaLaunchHostFunc` with a sync mode (0 blocking, 1 spin-wait; no visible effect here)."""),
    Runtime("cudaGraphCreate", "cuGraphCreate", doc="""
Create an empty graph."""),
    Runtime("cudaGraphDestroy", "cuGraphDestroy", doc="""
Destroy a graph and its nodes."""),
    Runtime("cudaGraphAddKernelNode", "cuGraphAddKernelNode"),
    Runtime("cudaGraphAddMemcpyNode", "cuGraphAddMemcpyNode",
            call(Graphs.graph_add_memcpy_node, "graph", array("pDependencies", "numDependencies"), "pCopyParams",
                 out="pGraphNode")),
    Runtime("cudaGraphAddMemcpyNode1D", "cuGraphAddMemcpyNode", hand()),
    Runtime("cudaGraphAddMemsetNode", "cuGraphAddMemsetNode",
            call(Graphs.graph_add_memset_node, "graph", array("pDependencies", "numDependencies"), "pMemsetParams",
                 out="pGraphNode")),
    Runtime("cudaGraphAddHostNode", "cuGraphAddHostNode"),
    Runtime("cudaGraphAddEmptyNode", "cuGraphAddEmptyNode", doc="""
Add an EMPTY node (a join point)."""),
    Runtime("cudaGraphAddChildGraphNode", "cuGraphAddChildGraphNode", doc="""
Add a GRAPH node holding a clone of ``childGraph`` (spec 4.6, 9)."""),
    Runtime("cudaGraphChildGraphNodeGetGraph", "cuGraphChildGraphNodeGetGraph", doc="""
The graph embedded in a GRAPH node."""),
    Runtime("cudaGraphAddEventRecordNode", "cuGraphAddEventRecordNode", doc="""
Add an EVENT_RECORD node."""),
    Runtime("cudaGraphAddEventWaitNode", "cuGraphAddEventWaitNode", doc="""
Add a WAIT_EVENT node."""),
    Runtime("cudaGraphAddDependencies", "cuGraphAddDependencies", hand()),
    Runtime("cudaGraphRemoveDependencies", "cuGraphRemoveDependencies", hand()),
    Runtime("cudaGraphGetNodes", "cuGraphGetNodes"),
    Runtime("cudaGraphGetRootNodes", "cuGraphGetRootNodes"),
    Runtime("cudaGraphGetEdges", "cuGraphGetEdges"),
    Runtime("cudaGraphNodeGetDependencies", "cuGraphNodeGetDependencies"),
    Runtime("cudaGraphNodeGetDependentNodes", "cuGraphNodeGetDependentNodes"),
    Runtime("cudaGraphNodeGetType", "cuGraphNodeGetType", doc="""
The node's ``cudaGraphNodeType`` (the same values as ``CUgraphNodeType``)."""),
    Runtime("cudaGraphNodeGetContainingGraph", "cuGraphNodeGetContainingGraph", doc="""
The graph that holds the node."""),
    Runtime("cudaGraphNodeGetLocalId", "cuGraphNodeGetLocalId", doc="""
The node's 0-based creation index (matches ``node_<id>`` in DOT output)."""),
    Runtime("cudaGraphGetId", "cuGraphGetId", doc="""
The graph's id (matches ``graph_<id>`` in DOT output)."""),
    Runtime("cudaGraphDestroyNode", "cuGraphDestroyNode", doc="""
Remove a node and its edges."""),
    Runtime("cudaGraphClone", "cuGraphClone", doc="""
Deep copy of a graph."""),
    Runtime("cudaGraphInstantiate", "cuGraphInstantiate", doc="""
Freeze a graph into a ``cudaGraphExec_t``. ``flags``: ``cudaGraphInstantiateFlags`` bits.

Mirrors ``cuda.bindings.runtime.cudaGraphInstantiate(graph, flags)``; returns ``(cudaError_t, cudaGraphExec_t)``."""),
    Runtime("cudaGraphInstantiateWithFlags", "cuGraphInstantiate", doc="""
As :func:`cudaGraphInstantiate` (``cudaGraphInstantiateFlagUpload`` is cudaErrorInvalidValue here too, spec 16, 9)."""),
    Runtime("cudaGraphInstantiateWithParams", "cuGraphInstantiateWithParams", hand()),
    Runtime("cudaGraphLaunch", "cuGraphLaunch", doc="""
Run an executable graph on ``stream`` (nodes replay in topological order against simulated memory)."""),
    Runtime("cudaGraphUpload", "cuGraphUpload", doc="""
Nothing to upload in a simulator: checks the handles and the stream rules."""),
    Runtime("cudaGraphExecDestroy", "cuGraphExecDestroy", doc="""
Destroy an executable graph."""),
    Runtime("cudaGraphExecUpdate", "cuGraphExecUpdate", hand()),
    Runtime("cudaGraphDebugDotPrint", "cuGraphDebugDotPrint", hand()),
    # conditional nodes (topic: conditional)
    Runtime("cudaGraphConditionalHandleCreate", "cuGraphConditionalHandleCreate",
            call(Conditionals.graph_conditional_handle_create, "graph", 0, "defaultLaunchValue", "flags",
                 out="pHandle_out"), doc="""
A conditional handle for ``graph`` in the current context (``cudaGraphCondAssignDefault`` = 1: the default is
assigned at the start of every launch)."""),
    Runtime("cudaGraphConditionalHandleCreate_v2", "cuGraphConditionalHandleCreate", doc="""
As :func:`cudaGraphConditionalHandleCreate`, for execution context ``ctx`` (NULL: the current context; the
simulator's execution contexts are its contexts)."""),
    Runtime("cudaGraphAddNode", "cuGraphAddNode", hand()),
    # host-mapped and managed memory, pointer attributes (topic: vmm)
    Runtime("cudaHostGetDevicePointer", "cuMemHostGetDevicePointer",
            call(VirtualMemory.mem_host_get_device_pointer, "pHost", "flags", lit("cudaHostGetDevicePointer"),
                 out="pDevice"), doc="""
The device pointer of pinned, mapped or registered host memory: its host address (unified addressing)."""),
    Runtime("cudaMemPrefetchAsync", "cuMemPrefetchAsync", hand()),
    Runtime("cudaMemAdvise", "cuMemAdvise", hand()),
    Runtime("cudaPointerGetAttributes", "cuPointerGetAttributes", hand()),
    # -- several devices (issue 10) --
    Runtime("cudaDeviceCanAccessPeer", "cuDeviceCanAccessPeer", needs="init", doc="""
1 when ``device`` can reach memory of ``peerDevice`` (two different simulated devices), else 0."""),
    Runtime("cudaDeviceGetP2PAttribute", "cuDeviceGetP2PAttribute", needs="init", doc="""
A ``cudaDeviceP2PAttr`` of the link ``srcDevice`` -> ``dstDevice`` (the values equal the driver's
``CUdevice_P2PAttribute``)."""),
    Runtime("cudaDeviceEnablePeerAccess", "cuCtxEnablePeerAccess", hand()),
    Runtime("cudaDeviceDisablePeerAccess", "cuCtxDisablePeerAccess", hand()),
    Runtime("cudaMemcpyPeer", "cuMemcpyPeer", hand()),
    Runtime("cudaMemcpyPeerAsync", "cuMemcpyPeerAsync", hand()),
    Runtime("cudaDeviceGetPCIBusId", "cuDeviceGetPCIBusId", hand()),
    Runtime("cudaDeviceGetByPCIBusId", "cuDeviceGetByPCIBusId", hand()),
    Runtime("cudaMemcpyBatchAsync", "cuMemcpyBatchAsync", hand()),
    Runtime("cudaMemcpy3DBatchAsync", "cuMemcpy3DBatchAsync", hand()),  # 3D batched copies
)
