"""910 CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE: updating an executable graph from a graph of another shape.

cuGraphExecUpdate changes an instantiated graph's parameters in place, which is cheaper than
instantiating again, but only when the new graph has the same shape: the same node types, paired in creation
order, with the same dependencies. Here a memset node would become a copy, so the update fails with
NODE_TYPE_CHANGED and the executable graph stays as it was. Instantiate the new graph instead.
"""
from cuda.bindings import driver as cu

cu.cuInit(0)
cu.cuCtxCreate(None, 0, 0)
stream = cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)[1]
buf = cu.cuMemAlloc(1024)[1]
mode = cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL

cu.cuStreamBeginCapture(stream, mode)
cu.cuMemsetD8Async(buf, 1, 1024, stream)
first = cu.cuStreamEndCapture(stream)[1]
exe = cu.cuGraphInstantiate(first, 0)[1]

cu.cuStreamBeginCapture(stream, mode)
cu.cuMemcpyDtoDAsync(buf, int(buf) + 512, 512, stream)  # a copy where the exec has a memset
second = cu.cuStreamEndCapture(stream)[1]
err, info = cu.cuGraphExecUpdate(exe, second)   # on failure the binding gives no result info (None)
print("cuGraphExecUpdate:", err.name)
print("the exec still replays the memset:", cu.cuGraphLaunch(exe, stream)[0].name)
