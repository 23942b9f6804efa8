"""907 CUDA_ERROR_CAPTURED_EVENT: the host asks about an event recorded inside the capture.

An event recorded during a capture marks a point in the graph, not a moment in time: nothing has run
yet, so the host cannot ask whether it has passed. cuEventQuery and cuEventSynchronize on it are refused (and
the capture invalidated). Query it after the graph has been launched, or record another event for the host.
"""
from cuda.bindings import driver as cu

cu.cuInit(0)
cu.cuCtxCreate(None, 0, 0)
stream = cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)[1]
halfway = cu.cuEventCreate(0)[1]
buf = cu.cuMemAlloc(1024)[1]

cu.cuStreamBeginCapture(stream, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED)
cu.cuMemsetD8Async(buf, 1, 1024, stream)
cu.cuEventRecord(halfway, stream)
print("cuEventQuery:", cu.cuEventQuery(halfway)[0].name)     # nothing has run yet: there is no answer
print("cuStreamEndCapture:", cu.cuStreamEndCapture(stream)[0].name)
