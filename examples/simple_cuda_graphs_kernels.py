"""Python implementations of the two kernels of NVIDIA's ``simpleCudaGraphs`` sample, for simcuda.

simcuda never runs device code: a launched kernel is recorded, and runs only if a Python
implementation is registered under its entry name with :func:`simcuda.kernel`. This file registers
``reduce`` and ``reduceFinal`` (vectorised with numpy, same results as the CUDA C up to float
rounding order), so replaying the sample's graphs really computes the sum of its input::

    simcuda run --kernels examples/simple_cuda_graphs_kernels.py 3_CUDA_Features/simpleCudaGraphs_test.py

Kernel semantics (from the sample's CUDA C):

* ``reduce(float *in, double *out, size_t N, size_t outSize)``: thread ``g`` of ``G = gridDim.x *
  blockDim.x`` threads sums ``in[g], in[g+G], ...``; each block adds its threads' sums and block
  ``b`` writes ``out[b]`` when ``b < outSize``.
* ``reduceFinal(double *in, double *result, size_t N)``: one block; ``result[0]`` = the sum of
  ``in[0:N]``.

Registering is global (every driver uses ``simcuda.kernel`` registrations), so import this file
only where the sample runs.
"""
from __future__ import annotations

import numpy as np

import simcuda


@simcuda.kernel("reduce")
def reduce(launch: simcuda.KernelLaunch) -> None:
    """``reduce<<<grid, block>>>(in, out, N, outSize)``: per-block partial sums of ``in`` (as float64)."""
    inp, out, n, out_size = launch.args
    blocks, threads = launch.grid[0], launch.block[0]
    total = blocks * threads
    x = launch.array(inp, np.float32, n).astype(np.float64)
    pad = (-n) % total
    if pad:
        x = np.concatenate([x, np.zeros(pad)])
    per_thread = x.reshape(-1, total).sum(axis=0)          # thread g: in[g] + in[g + G] + ...
    per_block = per_thread.reshape(blocks, threads).sum(axis=1)
    k = min(blocks, int(out_size))
    launch.array(out, np.float64, k)[:] = per_block[:k]


@simcuda.kernel("reduceFinal")
def reduce_final(launch: simcuda.KernelLaunch) -> None:
    """``reduceFinal<<<1, block>>>(in, result, N)``: ``result[0] = sum(in[0:N])``."""
    inp, result, n = launch.args
    launch.array(result, np.float64, 1)[0] = launch.array(inp, np.float64, n).sum()
