"""908 CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD: a worker thread ends a capture the main thread began.

A capture begun in GLOBAL or THREAD_LOCAL mode belongs to the thread that began it: only that thread
may end it. Another thread's end fails and invalidates the capture, which the begin thread must still end.
Begin the capture in RELAXED mode if another thread has to end it.
"""
import threading

from cuda.bindings import driver as cu

cu.cuInit(0)
ctx = cu.cuCtxCreate(None, 0, 0)[1]
stream = cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING)[1]
buf = cu.cuMemAlloc(1024)[1]

cu.cuStreamBeginCapture(stream, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL)
cu.cuMemsetD8Async(buf, 1, 1024, stream)


def worker():
    cu.cuCtxSetCurrent(ctx)
    print("end on the worker:", cu.cuStreamEndCapture(stream)[0].name)


t = threading.Thread(target=worker, name="worker")
t.start()
t.join()
print("end on the main thread:", cu.cuStreamEndCapture(stream)[0].name)
