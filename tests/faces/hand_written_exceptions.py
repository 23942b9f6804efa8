"""The functions each Python face writes by hand, each with the reason: read by tests/faces/test_hand_written.py.

First written from the code as it stood (issue 18, item 2; tools/measure_faces.py counts them). A reason
``row is particular: ...`` names what the face converts by hand (the row's shape ends in ``(...)``); the others
name the particular thing itself (an output struct the face assembles, a value typed by another argument, a hot
path inlined). Add a function here only with a reason particular to that face."""
from __future__ import annotations

DRIVER: dict[str, str] = {
    'cuArrayCreate': "the row is particular: struct argument pAllocateArray (CUDA_ARRAY_DESCRIPTOR*)",
    'cuCtxCreate': "the row is particular: struct argument ctxCreateParams (CUctxCreateParams*)",
    'cuDeviceGetByPCIBusId': "the row is particular: string argument pciBusId (char*)",
    'cuDeviceGetGraphMemAttribute': "attr read as a CUgraphMem_attribute (its .value), the result as cuuint64_t",
    'cuDeviceGetPCIBusId': "its row names the native decoder kind device_get_pci_bus_id (a row has a kind or a call)",
    'cuDeviceSetGraphMemAttribute': "the row is particular: host buffer or address argument value (void*)",
    'cuEventRecord': "hot path (bench_capture): its conversions inlined and DriverError caught in one frame",
    'cuGraphAddBatchMemOpNode': "the row is particular: array argument dependencies (CUgraphNode*)",
    'cuGraphAddDependencies': "the row is particular: array argument from_ (CUgraphNode*)",
    'cuGraphAddNode': "the row is particular: array argument dependencies (CUgraphNode*)",
    'cuGraphAddNode_v3': "the row is particular: array argument dependencies (CUgraphNode*)",
    'cuGraphBatchMemOpNodeGetParams':
        "output struct CUDA_BATCH_MEM_OP_NODE_PARAMS built from the core's record (decoder kind node_get(12))",
    'cuGraphDebugDotPrint': "the row is particular: string argument path (char*)",
    'cuGraphEventRecordNodeGetEvent': "output: the event of the core's node record (decoder kind node_get_value)",
    'cuGraphEventWaitNodeGetEvent': "output: the event of the core's node record (decoder kind node_get_value)",
    'cuGraphExecNodeSetParams': "the row is particular: struct argument nodeParams (CUgraphNodeParams*)",
    'cuGraphExecUpdate': "output struct CUgraphExecUpdateResultInfo assembled from the core's result triple",
    'cuGraphExternalSemaphoresSignalNodeGetParams':
        "output struct CUDA_EXT_SEM_SIGNAL_NODE_PARAMS built from the core's record (decoder kind node_get(8))",
    'cuGraphExternalSemaphoresWaitNodeGetParams':
        "output struct CUDA_EXT_SEM_WAIT_NODE_PARAMS built from the core's record (decoder kind node_get(9))",
    'cuGraphHostNodeGetParams':
        "output struct CUDA_HOST_NODE_PARAMS built from the core's record (decoder node_get(3))",
    'cuGraphInstantiateWithParams':
        "the row is particular: struct argument instantiateParams",
    'cuGraphKernelNodeGetParams':
        "output struct CUDA_KERNEL_NODE_PARAMS owning a kernelParams array (decoder kind node_get(0))",
    'cuGraphMemAllocNodeGetParams':
        "output struct CUDA_MEM_ALLOC_NODE_PARAMS built from the core's record (decoder kind node_get(10))",
    'cuGraphMemFreeNodeGetParams':
        "output: the address of the core's node record as CUdeviceptr (decoder node_get_value)",
    'cuGraphMemcpyNodeGetParams': "output struct CUDA_MEMCPY3D built from the core's CopyParams (decoder node_get(1))",
    'cuGraphMemsetNodeGetParams': "output struct CUDA_MEMSET_NODE_PARAMS built from the core's record (node_get(2))",
    'cuGraphNodeGetParams': "output: the tagged union CUgraphNodeParams filled by the node's type",
    'cuGraphNodeSetParams': "the row is particular: struct argument nodeParams (CUgraphNodeParams*)",
    'cuGraphNodeSetParams_v2': "the row is particular: struct argument nodeParams (CUgraphNodeParams*)",
    'cuGraphRemoveDependencies': "the row is particular: array argument from_ (CUgraphNode*)",
    'cuLaunchCooperativeKernel': "the row is particular: host buffer or address argument kernelParams (void**)",
    'cuLaunchHostFunc': "the row is particular: callback argument fn (CUhostFn)",
    'cuLaunchHostFunc_v2': "the row is particular: callback argument fn (CUhostFn)",
    'cuLaunchKernel': "the row is particular: host buffer or address argument kernelParams (void**)",
    'cuLaunchKernelEx': "the row is particular: array argument config (CUlaunchConfig*)",
    'cuLibraryGetGlobal': "the row is particular: string argument name (char*)",
    'cuLibraryGetKernel': "the row is particular: string argument name (char*)",
    'cuLinkAddData': "the row is particular: JIT option values typed by their option (log buffers), void* data",
    'cuLinkAddFile': "the row is particular: JIT option values typed by their option (log buffers)",
    'cuLinkCreate': "the row is particular: JIT option values typed by their option (log buffers, enums)",
    'cuLibraryLoadData': "the row is particular: host buffer or address argument code (void*)",
    'cuLibraryLoadFromFile': "the row is particular: string argument fileName (char*)",
    'cuMemAdvise': "struct argument location (CUmemLocation, by value) read as (type, id) by the face",
    'cuMemCreate': "the row is particular: struct argument prop (CUmemAllocationProp*)",
    'cuMemGetAccess': "the row is particular: array argument location (CUmemLocation*)",
    'cuMemGetAllocationGranularity': "the row is particular: struct argument prop (CUmemAllocationProp*)",
    'cuMemGetAllocationPropertiesFromHandle': "output struct CUmemAllocationProp assembled from the core's record",
    'cuMemHostRegister': "the row is particular: host buffer or address argument p (void*)",
    'cuMemHostUnregister': "the row is particular: host buffer or address argument p (void*)",
    'cuMemPoolCreate': "the row is particular: struct argument poolProps (CUmemPoolProps*)",
    'cuMemPoolGetAccess': "the row is particular: array argument location (CUmemLocation*)",
    'cuMemPoolGetAttribute': "the value's type depends on attr: byte counts as cuuint64_t, the rest as int",
    'cuMemPoolSetAccess': "the row is particular: struct argument map (CUmemAccessDesc*)",
    'cuMemPoolSetAttribute': "the row is particular: host buffer or address argument value (void*)",
    'cuMemPrefetchAsync': "struct argument location (CUmemLocation, by value) read as (type, id) by the face",
    'cuMemSetAccess': "the row is particular: struct argument desc (CUmemAccessDesc*)",
    'cuMemcpy3DBatchAsync': "the row is particular: struct argument opList (CUDA_MEMCPY3D_BATCH_OP*)",
    'cuMemcpyBatchAsync': "the row is particular: array argument attrs (CUmemcpyAttributes*)",
    'cuMemcpyDtoH': "the row is particular: host buffer or address argument dstHost (void*)",
    'cuMemcpyDtoHAsync': "the row is particular: host buffer or address argument dstHost (void*)",
    'cuMemcpyHtoD': "the row is particular: host buffer or address argument srcHost (void*)",
    'cuMemcpyHtoDAsync': "the row is particular: host buffer or address argument srcHost (void*)",
    'cuModuleGetFunction': "the row is particular: string argument name (char*)",
    'cuModuleGetGlobal': "the row is particular: string argument name (char*)",
    'cuModuleLoad': "the row is particular: string argument fname (char*)",
    'cuModuleLoadData': "the row is particular: host buffer or address argument image (void*)",
    'cuModuleLoadDataEx': "the row is particular: host buffer or address argument image (void*)",
    'cuModuleLoadFatBinary': "the row is particular: host buffer or address argument fatCubin (void*)",
    'cuPointerGetAttribute': "the wrapper reads attribute.value; the value's type depends on the attribute",
    'cuPointerGetAttributes': "the row is particular: array argument attributes (CUpointer_attribute*)",
    'cuSignalExternalSemaphoresAsync': "the row is particular: array argument extSemArray (CUexternalSemaphore*)",
    'cuStreamAddCallback': "the row is particular: callback argument callback (CUstreamCallback)",
    'cuStreamBatchMemOp': "the row is particular: struct argument paramArray (CUstreamBatchMemOpParams*)",
    'cuStreamBeginCaptureToCig':
        "the row is particular: struct argument streamCigCaptureParams",
    'cuStreamBeginCaptureToGraph': "the row is particular: array argument dependencies (CUgraphNode*)",
    'cuStreamGetCaptureInfo': "six outputs from one core result: the status enum, a cuuint64_t id, node and edge lists",
    'cuStreamUpdateCaptureDependencies': "the row is particular: array argument dependencies (CUgraphNode*)",
    'cuStreamWaitEvent': "hot path (bench_capture): its conversions inlined and DriverError caught in one frame",
    'cuStreamWaitValue32': "value documented as Any but read as a cuuint32_t handle (None is 0)",
    'cuStreamWaitValue64': "value documented as Any but read as a cuuint64_t handle (None is 0)",
    'cuStreamWriteValue32': "value documented as Any but read as a cuuint32_t handle (None is 0)",
    'cuStreamWriteValue64': "value documented as Any but read as a cuuint64_t handle (None is 0)",
    'cuThreadExchangeStreamCaptureMode': "the row is particular: array argument mode (CUstreamCaptureMode*)",
    'cuUserObjectCreate': "the row is particular: host buffer or address argument ptr (void*)",
    'cuWaitExternalSemaphoresAsync': "the row is particular: array argument extSemArray (CUexternalSemaphore*)",
    'sizeof': "the real module's sizeof helper, not a driver entry",
}

V2: dict[str, str] = {
    'get_error_name': "returns a str, where the row's description (the tuple face's) says bytes: its own docstring",
    'get_error_string': "returns a str, where the row's description (the tuple face's) says bytes: its own docstring",
    'link_add_data_v2': "cuLinkAddData's row is particular: the name as a buffer or an address",
    'link_add_file_v2': "cuLinkAddFile's row is particular: the path as a buffer or an address",
    'link_complete': "returns the image copied into bytes, as the real _v2 wrapper does",
    'link_create_v2': "cuLinkCreate's row is particular: the option arrays by address, kept by the state",
    'ctx_create_v4': "cuCtxCreate's row is particular: struct argument ctxCreateParams (CUctxCreateParams*)",
    'device_get_by_pci_bus_id': "cuDeviceGetByPCIBusId's row is particular: string argument pciBusId (char*)",
    'device_get_graph_mem_attribute': "an attr that is no CUgraphMem_attribute raises TypeError; the value as an int",
    'device_get_name': "a negative len raises ValueError: negative count; the name is cut to len - 1 bytes, unpadded",
    'device_get_pci_bus_id': "the _v2 text is cut to len - 1 bytes, unpadded (its row names a native decoder kind)",
    'device_set_graph_mem_attribute':
        "cuDeviceSetGraphMemAttribute's row is particular: host buffer or address argument value (void*)",
    'event_record': "hot path: its conversions inlined, as the tuple face's cuEventRecord",
    'func_get_name': "returns the core's text as bytes; the _v2 builder passes results through unchanged",
    'graph_add_child_graph_node':
        "cuGraphAddChildGraphNode's row is particular: array argument dependencies (CUgraphNode*)",
    'graph_add_dependencies_v2': "cuGraphAddDependencies's row is particular: array argument from_ (CUgraphNode*)",
    'graph_add_empty_node': "cuGraphAddEmptyNode's row is particular: array argument dependencies (CUgraphNode*)",
    'graph_add_event_record_node':
        "cuGraphAddEventRecordNode's row is particular: array argument dependencies (CUgraphNode*)",
    'graph_add_event_wait_node':
        "cuGraphAddEventWaitNode's row is particular: array argument dependencies (CUgraphNode*)",
    'graph_add_host_node': "cuGraphAddHostNode's row is particular: array argument dependencies (CUgraphNode*)",
    'graph_add_mem_free_node': "cuGraphAddMemFreeNode's row is particular: array argument dependencies (CUgraphNode*)",
    'graph_debug_dot_print': "cuGraphDebugDotPrint's row is particular: string argument path (char*)",
    'graph_event_record_node_get_event': "output: the event handle of the core's node record (a decoder-kind row)",
    'graph_event_wait_node_get_event': "output: the event handle of the core's node record (a decoder-kind row)",
    'graph_exec_host_node_set_params':
        "cuGraphExecHostNodeSetParams's row is particular: struct argument nodeParams (CUDA_HOST_NODE_PARAMS*)",
    'graph_exec_update_v2': "output: a GraphExecUpdateResultInfo_v1 struct over real memory, filled by the face",
    'graph_get_edges_v2': "outputs: two int64 memoryviews and a GraphEdgeData array (no count argument in _v2)",
    'graph_get_nodes': "output: an int64 memoryview of the handles (no count argument in _v2)",
    'graph_get_root_nodes': "output: an int64 memoryview of the handles (no count argument in _v2)",
    'graph_host_node_get_params': "output: a HostNodeParams_v1 struct over real memory (a decoder-kind row)",
    'graph_host_node_set_params':
        "cuGraphHostNodeSetParams's row is particular: struct argument nodeParams (CUDA_HOST_NODE_PARAMS*)",
    'graph_instantiate_with_flags': 'the _v2 name of cuGraphInstantiate, whose row is particular',
    'graph_instantiate_with_params':
        "cuGraphInstantiateWithParams's row is particular: struct argument instantiateParams",
    'graph_mem_free_node_get_params': "output: the address of the core's node record (a decoder-kind row)",
    'graph_node_get_dependencies_v2': "outputs: an int64 memoryview and a GraphEdgeData array (no count argument)",
    'graph_node_get_dependent_nodes_v2': "outputs: an int64 memoryview and a GraphEdgeData array (no count argument)",
    'graph_remove_dependencies_v2':
        "cuGraphRemoveDependencies's row is particular: array argument from_ (CUgraphNode*)",
    'kernel_get_function': "its row names the core call by a native decoder kind",
    'launch_host_func': "cuLaunchHostFunc's row is particular: callback argument fn (CUhostFn)",
    'launch_kernel': "cuLaunchKernel's row is particular: host buffer or address argument kernelParams (void**)",
    'library_get_global': "cuLibraryGetGlobal's row is particular: string argument name (char*)",
    'mem_free_host': "cuMemFreeHost's row is particular: host buffer or address argument p (void*)",
    'mem_pool_get_attribute': "an attr that is no CUmemPool_attribute raises TypeError; the value as an int",
    'mem_pool_set_attribute':
        "cuMemPoolSetAttribute's row is particular: host buffer or address argument value (void*)",
    'memcpy_dtod_v2': "its row builds a CopyParams record, which the _v2 builder (plain values) does not",
    'memcpy_dtoh_async_v2': "cuMemcpyDtoHAsync's row is particular: host buffer or address argument dstHost (void*)",
    'memcpy_dtoh_v2': "cuMemcpyDtoH's row is particular: host buffer or address argument dstHost (void*)",
    'memcpy_htod_async_v2': "cuMemcpyHtoDAsync's row is particular: host buffer or address argument srcHost (void*)",
    'memcpy_htod_v2': "cuMemcpyHtoD's row is particular: host buffer or address argument srcHost (void*)",
    'memset_d32_async': "its row builds a MemsetParams record, which the _v2 builder (plain values) does not",
    'memset_d32_v2': "its row builds a MemsetParams record, which the _v2 builder (plain values) does not",
    'memset_d8_async': "its row builds a MemsetParams record, which the _v2 builder (plain values) does not",
    'memset_d8_v2': "its row builds a MemsetParams record, which the _v2 builder (plain values) does not",
    'module_get_function': "cuModuleGetFunction's row is particular: string argument name (char*)",
    'module_get_global_v2': "cuModuleGetGlobal's row is particular: string argument name (char*)",
    'module_load_data': "cuModuleLoadData's row is particular: host buffer or address argument image",
    'stream_begin_capture_to_cig':
        "cuStreamBeginCaptureToCig's row is particular: struct argument streamCigCaptureParams",
    'stream_begin_capture_to_graph':
        "cuStreamBeginCaptureToGraph's row is particular: array argument dependencies (CUgraphNode*)",
    'stream_get_capture_info_v2':
        "four outputs from one core result, dependencies as a numpy int64 array (no edge data)",
    'stream_get_capture_info_v3': "outputs assembled from one core result, edge data as a GraphEdgeData array",
    'stream_update_capture_dependencies_v2':
        "cuStreamUpdateCaptureDependencies's row is particular: array argument dependencies (CUgraphNode*)",
    'stream_wait_event': "hot path: its conversions inlined, as the tuple face's cuStreamWaitEvent",
    'thread_exchange_stream_capture_mode':
        "cuThreadExchangeStreamCaptureMode's row is particular: array argument mode (CUstreamCaptureMode*)",
    'user_object_create': "cuUserObjectCreate's row is particular: host buffer or address argument ptr (void*)",
}

RUNTIME: dict[str, str] = {
    'cudaDeviceDisablePeerAccess':
        "runtime convention: peerDevice is an ordinal, its primary context retained on first use",
    'cudaDeviceEnablePeerAccess':
        "runtime convention: peerDevice is an ordinal, its primary context retained on first use",
    'cudaDeviceGetByPCIBusId': "runtime convention: the device comes back as an int ordinal, the bus id a char* text",
    'cudaDeviceGetGraphMemAttribute':
        "the runtime wrapper reads attr.value (AttributeError otherwise) and returns cuuint64_t",
    'cudaDeviceGetPCIBusId':
        "runtime convention: the device is an int ordinal; the text is NUL-terminated, padded to length bytes",
    'cudaDeviceReset': 'runtime-only entry (no driver row in RUNTIME)',
    'cudaDeviceSetGraphMemAttribute':
        "the runtime wrapper reads attr.value and needs a cuuint64_t value (AttributeError)",
    'cudaDriverGetVersion':
        "runtime convention: 0 on a driver that is not available, where the driver entry fails",
    'cudaFreeHost':
        "runtime convention: a NULL pointer is a no-op success, where the driver's cuMemFreeHost refuses it",
    'cudaGetDevice': 'runtime-only entry (no driver row in RUNTIME)',
    'cudaGetDeviceFlags': 'runtime-only entry (no driver row in RUNTIME)',
    'cudaGetDeviceProperties': 'runtime-only entry (no driver row in RUNTIME)',
    'cudaGetErrorName': 'runtime-only entry (no driver row in RUNTIME)',
    'cudaGetErrorString': 'runtime-only entry (no driver row in RUNTIME)',
    'cudaGetLastError': 'runtime-only entry (no driver row in RUNTIME)',
    'cudaGraphAddDependencies':
        "from_/to/edgeData arrays with one count, padded as the wrapper passes them (dep_pairs)",
    'cudaGraphAddMemcpyNode1D': "runtime-only form: a 1D copy node from dst, src, count and a cudaMemcpyKind",
    'cudaGraphAddNode': "tagged union cudaGraphNodeParams, and results written back into it (conditional bodies)",
    'cudaGraphDebugDotPrint': "char* path given to the core as a file-system str (os.fsdecode)",
    'cudaGraphExecUpdate': "the result comes back as a cudaGraphExecUpdateResultInfo struct built by the face",
    'cudaGraphInstantiateWithParams':
        "struct argument instantiateParams, and result_out / errNode_out written back into it",
    'cudaGraphRemoveDependencies':
        "from_/to/edgeData arrays with one count, padded as the wrapper passes them (dep_pairs)",
    'cudaInitDevice': 'runtime-only entry (no driver row in RUNTIME)',
    'cudaMallocPitch':
        "runtime convention: the runtime computes the pitch (rows padded to 512 bytes) and takes no element size",
    'cudaMemAdvise': "struct argument location (cudaMemLocation, by value) and the cudaMemoryAdvise enum",
    'cudaMemPoolCreate': "struct argument poolProps (cudaMemPoolProps) read into the core's pool properties",
    'cudaMemPoolGetAccess': "struct argument location (cudaMemLocation); the flags come back as cudaMemAccessFlags",
    'cudaMemPoolGetAttribute': "the wrapper reads attr.value; byte-count attributes come back as cuuint64_t",
    'cudaMemPoolSetAccess': "cuMemPoolSetAccess's row is particular: struct argument map (CUmemAccessDesc*)",
    'cudaMemPoolSetAttribute': "the wrapper reads attr.value; byte-count attributes need a cuuint64_t value",
    'cudaMemPrefetchAsync': "struct argument location (cudaMemLocation, by value) and the runtime's call name",
    'cudaMemcpy': "runtime-only rule: cudaMemcpyKind decides each side (cudaErrorInvalidMemcpyDirection)",
    'cudaMemcpy2D':
        "runtime-only form: pitches and sizes as arguments with a cudaMemcpyKind (cudaErrorInvalidPitchValue)",
    'cudaMemcpy2DAsync':
        "runtime-only form: pitches and sizes as arguments with a cudaMemcpyKind (cudaErrorInvalidPitchValue)",
    'cudaMemcpy3D': "struct argument p (cudaMemcpy3DParms: pitched pointers, positions, extent, cudaMemcpyKind)",
    'cudaMemcpy3DAsync': "struct argument p (cudaMemcpy3DParms: pitched pointers, positions, extent, cudaMemcpyKind)",
    'cudaMemcpy3DBatchAsync': "struct array opList (cudaMemcpy3DBatchOp) read into the core's 3D operations",
    'cudaMemcpyAsync': "runtime-only rule: cudaMemcpyKind decides each side (cudaErrorInvalidMemcpyDirection)",
    'cudaMemcpyBatchAsync': "struct array attrs (cudaMemcpyAttributes) and address lists read by the face",
    'cudaMemcpyPeer':
        "runtime convention: devices by ordinal, their primary contexts retained on first use",
    'cudaMemcpyPeerAsync':
        "runtime convention: devices by ordinal, their primary contexts retained on first use",
    'cudaMemset': "runtime convention: an int value converted to unsigned char, element size 1",
    'cudaMemset2D': "runtime convention: an int value converted to unsigned char, element size 1",
    'cudaMemset2DAsync': "runtime convention: an int value converted to unsigned char, element size 1",
    'cudaMemsetAsync': "runtime convention: an int value converted to unsigned char, element size 1",
    'cudaPeekAtLastError': 'runtime-only entry (no driver row in RUNTIME)',
    'cudaPointerGetAttributes': "a cudaPointerAttributes struct assembled from several driver pointer attributes",
    'cudaRuntimeGetVersion': 'runtime-only entry (no driver row in RUNTIME)',
    'cudaSetDevice': 'runtime-only entry (no driver row in RUNTIME)',
    'cudaSetDeviceFlags': 'runtime-only entry (no driver row in RUNTIME)',
    'cudaStreamBeginCaptureToGraph': "dependency and edge-data arrays with one count (edge data padded with zeros)",
    'cudaStreamGetCaptureInfo': "six outputs assembled from one core result (node and edge-data lists)",
    'cudaStreamGetDevice': 'runtime-only entry (no driver row in RUNTIME)',
    'cudaStreamUpdateCaptureDependencies': "dependency and edge-data arrays with a count the wrapper does not check",
    'cuda_error': 'runtime-only entry (no driver row in RUNTIME)',
    'getLocalRuntimeVersion': 'runtime-only entry (no driver row in RUNTIME)',
    'make_cudaExtent': "the real module's struct helper, not an entry",
    'make_cudaPitchedPtr': "the real module's struct helper, not an entry",
    'make_cudaPos': "the real module's struct helper, not an entry",
    'sizeof': "the real module's sizeof helper, not a driver entry",
}
