"""902 CUDA_ERROR_STREAM_CAPTURE_MERGE: one capture waits on an event of another.

Two captures are two separate graphs. Waiting, inside capture B, on an event recorded inside capture A
would join the two sequences into one, which the driver refuses; both captures are invalidated. Fork the second
stream from the first capture instead (one sequence), or order the launches of the two graphs.
"""
from cuda.bindings import driver as cu

cu.cuInit(0)
cu.cuCtxCreate(None, 0, 0)
a = cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)[1]
b = cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)[1]
done_a = cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING)[1]
buf = cu.cuMemAlloc(1024)[1]

cu.cuStreamBeginCapture(a, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED)
cu.cuStreamBeginCapture(b, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED)
cu.cuMemsetD8Async(buf, 1, 512, a)
cu.cuEventRecord(done_a, a)
print("cuStreamWaitEvent:", cu.cuStreamWaitEvent(b, done_a, 0)[0].name)   # b's capture would swallow a's
print("end a:", cu.cuStreamEndCapture(a)[0].name, "| end b:", cu.cuStreamEndCapture(b)[0].name)
