"""901 CUDA_ERROR_STREAM_CAPTURE_INVALIDATED: work on a capture that an earlier mistake broke.

Querying or synchronising a capturing stream is refused in every mode (nothing has run; there is no
answer). The refusal invalidates the whole capture sequence, and from then on every use of its streams answers
901, until the origin ends the capture, which returns no graph and puts the streams back to normal.
"""
from cuda.bindings import driver as cu

cu.cuInit(0)
cu.cuCtxCreate(None, 0, 0)
stream = cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)[1]
buf = cu.cuMemAlloc(1024)[1]

cu.cuStreamBeginCapture(stream, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED)
cu.cuMemsetD8Async(buf, 1, 1024, stream)
print("cuStreamQuery:", cu.cuStreamQuery(stream)[0].name)          # asking "is it done?" breaks the capture
print("cuMemsetD8Async:", cu.cuMemsetD8Async(buf, 2, 1024, stream)[0].name)
print("cuStreamEndCapture:", cu.cuStreamEndCapture(stream)[0].name)
