"""A Python implementation of the kernel of NVIDIA's ``simpleZeroCopy`` sample, for simcuda.

simcuda runs no device code: a launched kernel runs only if a Python implementation is registered under its
entry name with :func:`simcuda.kernel`. This file registers ``vectorAddGPU`` (numpy), so the sample's kernel
really adds its vectors, which live in mapped pinned host memory (``cudaHostAlloc(..., cudaHostAllocMapped)``)
or registered host memory (``use_generic_memory``): ``launch.array`` reaches both at the addresses
``cudaHostGetDevicePointer`` returns, as a kernel on a unified-addressing GPU does::

    simcuda run --kernels examples/simple_zero_copy_kernels.py 0_Introduction/simpleZeroCopy_test.py

Kernel semantics (from the sample's CUDA C): ``vectorAddGPU(float *a, float *b, float *c, int N)``: thread
``idx = blockIdx.x * blockDim.x + threadIdx.x`` writes ``c[idx] = a[idx] + b[idx]`` when ``idx < N``.
"""
from __future__ import annotations

import numpy as np

import simcuda


@simcuda.kernel("vectorAddGPU")
def vector_add_gpu(launch: simcuda.KernelLaunch) -> None:
    """``vectorAddGPU<<<grid, block>>>(a, b, c, N)``: ``c = a + b`` over the first ``min(N, threads)`` floats."""
    a, b, c, n = launch.args
    k = min(int(n), launch.grid[0] * launch.block[0])
    launch.array(c, np.float32, k)[:] = launch.array(a, np.float32, k) + launch.array(b, np.float32, k)
