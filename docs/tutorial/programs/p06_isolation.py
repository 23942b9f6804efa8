"""905 CUDA_ERROR_STREAM_CAPTURE_ISOLATION: a capture waits on work recorded outside any capture.

A capture may depend only on work inside it. An event recorded before the capture began stands for
uncaptured work, and waiting on it would make the graph depend on something outside it. Use
CU_EVENT_WAIT_EXTERNAL to make an external-wait node, or synchronise before the capture begins.
"""
from cuda.bindings import driver as cu

cu.cuInit(0)
cu.cuCtxCreate(None, 0, 0)
stream = cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)[1]
other = cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)[1]
ready = cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING)[1]
buf = cu.cuMemAlloc(1024)[1]

cu.cuMemsetD8Async(buf, 1, 1024, other)
cu.cuEventRecord(ready, other)               # recorded before the capture begins
cu.cuStreamBeginCapture(stream, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL)
cu.cuMemsetD8Async(buf, 2, 512, stream)
print("cuStreamWaitEvent:", cu.cuStreamWaitEvent(stream, ready, 0)[0].name)
print("cuStreamEndCapture:", cu.cuStreamEndCapture(stream)[0].name)
