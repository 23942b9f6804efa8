"""900 CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED: an allocation in the middle of a capture.

A capture records work instead of running it, so a call that would have to run now, or that changes
what memory exists (allocating, freeing, loading a module), cannot be part of one. In GLOBAL mode (the default)
such a "potentially unsafe" call is refused on the capturing thread, and the capture is invalidated: ending it
gives no graph. Allocate before the capture (or use cuMemAllocAsync, which captures as a MEM_ALLOC node).
"""
from cuda.bindings import driver as cu

cu.cuInit(0)
cu.cuCtxCreate(None, 0, 0)
stream = cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)[1]
buf = cu.cuMemAlloc(1024)[1]

cu.cuStreamBeginCapture(stream, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL)
cu.cuMemsetD8Async(buf, 0, 1024, stream)
err, scratch = cu.cuMemAlloc(256)            # cudaMalloc inside a capture: a "potentially unsafe" call
print("cuMemAlloc:", err.name)
print("cuStreamEndCapture:", cu.cuStreamEndCapture(stream)[0].name)
