"""903 CUDA_ERROR_STREAM_CAPTURE_UNMATCHED: ending the capture on a stream that joined it, not on its origin.

A stream that waits on an event recorded in a capture joins it (a fork). The capture still belongs to the
stream that began it, its origin: only the origin can end it. Ending it on a forked member fails and
invalidates the capture; the origin then ends it with 901.
"""
from cuda.bindings import driver as cu

cu.cuInit(0)
cu.cuCtxCreate(None, 0, 0)
origin = cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)[1]
side = cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)[1]
fork = cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING)[1]
buf = cu.cuMemAlloc(1024)[1]

cu.cuStreamBeginCapture(origin, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL)
cu.cuMemsetD8Async(buf, 1, 1024, origin)
cu.cuEventRecord(fork, origin)
cu.cuStreamWaitEvent(side, fork, 0)          # side joins the capture
cu.cuMemsetD8Async(buf, 2, 512, side)
print("end on side:", cu.cuStreamEndCapture(side)[0].name)
print("end on origin:", cu.cuStreamEndCapture(origin)[0].name)
