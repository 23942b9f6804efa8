"""A Python implementation of the kernel of NVIDIA's ``streamOrderedAllocation`` sample, for simcuda.

simcuda never runs device code: a launched kernel is recorded, and runs only if a Python
implementation is registered under its entry name with :func:`simcuda.kernel`. This file registers
``vectorAddGPU`` (numpy, the same float32 sums as the CUDA C), so the sample's own result check
passes::

    simcuda run --kernels examples/stream_ordered_allocation_kernels.py \\
        2_Concepts_and_Techniques/streamOrderedAllocation_test.py

Kernel semantics (from the sample's CUDA C): ``vectorAddGPU(const float *a, const float *b, float *c,
int N)``: thread ``idx = blockIdx.x * blockDim.x + threadIdx.x`` writes ``c[idx] = a[idx] + b[idx]`` when
``idx < N``; the grid covers ``min(N, gridDim.x * blockDim.x)`` elements.

Registering is global (every driver uses ``simcuda.kernel`` registrations), so import this file
only where the sample runs.
"""
from __future__ import annotations

import numpy as np

import simcuda


@simcuda.kernel("vectorAddGPU")
def vector_add(launch: simcuda.KernelLaunch) -> None:
    """``vectorAddGPU<<<grid, block>>>(a, b, c, N)``: ``c[i] = a[i] + b[i]`` for the ``i < N`` the grid covers."""
    a, b, c, n = launch.args
    k = max(0, min(int(n), launch.grid[0] * launch.block[0]))
    if k:
        out = launch.array(c, np.float32, k)
        np.add(launch.array(a, np.float32, k), launch.array(b, np.float32, k), out=out)
