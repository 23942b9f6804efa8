"""A Python implementation of the kernel of NVIDIA's ``vectorAddMMAP`` sample, for simcuda.

The sample allocates its vectors with the virtual memory management calls (``cuMemAddressReserve``,
``cuMemCreate``, ``cuMemMap``, ``cuMemSetAccess``); this file registers ``VecAdd_kernel`` (numpy), which reads
and writes them through the mapped addresses, as a kernel does once ``cuMemSetAccess`` grants the device
access::

    simcuda run --kernels examples/vector_add_mmap_kernels.py 0_Introduction/vectorAddMMAP_test.py

Kernel semantics (from the sample's CUDA C): ``VecAdd_kernel(const float *A, const float *B, float *C, int N)``:
thread ``i = blockDim.x * blockIdx.x + threadIdx.x`` writes ``C[i] = A[i] + B[i]`` when ``i < N``.
"""
from __future__ import annotations

import numpy as np

import simcuda


@simcuda.kernel("VecAdd_kernel")
def vec_add(launch: simcuda.KernelLaunch) -> None:
    """``VecAdd_kernel<<<grid, block>>>(A, B, C, N)``: ``C = A + B`` over the first ``min(N, threads)`` floats."""
    a, b, c, n = launch.args
    k = min(int(n), launch.grid[0] * launch.block[0])
    launch.array(c, np.float32, k)[:] = launch.array(a, np.float32, k) + launch.array(b, np.float32, k)
