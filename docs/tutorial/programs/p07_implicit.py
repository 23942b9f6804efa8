"""906 CUDA_ERROR_STREAM_CAPTURE_IMPLICIT: the legacy default stream while a blocking stream captures.

The legacy default stream (handle 0) synchronises implicitly with every blocking stream of its context.
Using it while a blocking stream captures would make the capture wait on uncaptured work, so it is refused and
the capture is invalidated. Create capture streams with CU_STREAM_NON_BLOCKING, or use explicit streams.
"""
from cuda.bindings import driver as cu

cu.cuInit(0)
cu.cuCtxCreate(None, 0, 0)
stream = cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_DEFAULT)[1]   # a blocking stream
buf = cu.cuMemAlloc(1024)[1]

cu.cuStreamBeginCapture(stream, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL)
cu.cuMemsetD8Async(buf, 1, 1024, stream)
print("memset on stream 0:", cu.cuMemsetD8Async(buf, 2, 1024, 0)[0].name)   # 0: the legacy stream
print("cuStreamEndCapture:", cu.cuStreamEndCapture(stream)[0].name)
