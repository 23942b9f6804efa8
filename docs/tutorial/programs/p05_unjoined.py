"""904 CUDA_ERROR_STREAM_CAPTURE_UNJOINED: a forked stream's work never joins back into the origin.

Every forked stream's work must flow back into the origin before the end: record an event on the side
stream and wait on it from the origin. Here the side stream's memset is left dangling, so the end fails, the
capture is over and no graph is returned. The picture marks the node that was never joined.
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
cu.cuStreamWaitEvent(side, fork, 0)          # fork...
cu.cuMemsetD8Async(buf, 2, 512, side)        # ...work on the side stream...
cu.cuMemsetD8Async(buf, 3, 1024, origin)     # ...and no join: the origin never waits on side
print("cuStreamEndCapture:", cu.cuStreamEndCapture(origin)[0].name)
