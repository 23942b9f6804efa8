"""y = a*x + y on the GPU, with NVIDIA's cuda.bindings (imported at module top level, as libraries do)."""
import ctypes

import numpy as np
from cuda.bindings import driver, nvrtc

SOURCE = rb"""
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


class CudaFailure(RuntimeError):
    """A driver or NVRTC call that did not succeed."""


def check(result):
    """The values of a cuda.bindings result tuple, or CudaFailure for an error code."""
    err, *values = result
    if int(err) != 0:
        raise CudaFailure(f"{err!r}")
    return values[0] if len(values) == 1 else tuple(values) if values else None


def compile_ptx():
    """The kernel as PTX, compiled by NVRTC."""
    prog = check(nvrtc.nvrtcCreateProgram(SOURCE, b"saxpy.cu", 0, [], []))
    check(nvrtc.nvrtcCompileProgram(prog, 0, []))
    ptx = b" " * check(nvrtc.nvrtcGetPTXSize(prog))
    check(nvrtc.nvrtcGetPTX(prog, ptx))
    return ptx


class Saxpy:
    """A loaded saxpy kernel for the current context."""

    def __init__(self):
        self.module = check(driver.cuModuleLoadData(compile_ptx()))
        self.function = check(driver.cuModuleGetFunction(self.module, b"saxpy"))

    def launch(self, stream, a, x, y, n):
        """Enqueue y = a*x + y for n floats on ``stream`` (device pointers x and y)."""
        args = ((a, int(x), int(y), n), (ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int))
        blocks = (n + 255) // 256
        check(driver.cuLaunchKernel(self.function, blocks, 1, 1, 256, 1, 1, 0, stream, args, 0))


def to_device(host, stream):
    """A device copy of numpy array ``host``."""
    ptr = check(driver.cuMemAlloc(host.nbytes))
    check(driver.cuMemcpyHtoDAsync(ptr, host, host.nbytes, stream))
    return ptr


def to_host(ptr, count, stream):
    """``count`` float32 values from device pointer ``ptr``."""
    out = np.zeros(count, dtype=np.float32)
    check(driver.cuMemcpyDtoHAsync(out, ptr, out.nbytes, stream))
    check(driver.cuStreamSynchronize(stream))
    return out
