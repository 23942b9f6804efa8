"""A Python implementation of the kernel of NVIDIA's ``systemWideAtomics`` sample, for simcuda.

The sample's ``atomicKernel(int *atom_arr)`` runs ``gridDim.x * blockDim.x`` threads, each applying ten system-wide
atomics to ``atom_arr[0..9]`` fifty times (``LOOP_NUM``), on managed memory the host reads afterwards. Atomics
serialise the threads' updates in some order; this emulation applies them in one order a GPU may take (thread by
thread, each thread's fifty rounds in turn, in thread order), on 32-bit integers with the CUDA semantics:

* add 10; exchange with ``tid``; max / min with ``tid``;
* ``atomicInc(x, 17)``: ``x = 0 if x >= 17 else x + 1``; ``atomicDec(x, 137)``: ``x = 137 if x == 0 or x > 137
  else x - 1`` (both unsigned);
* ``atomicCAS(x, tid - 1, tid)``: ``x = tid`` when ``x == tid - 1``; and / or / xor with ``2 * tid + 7``,
  ``1 << tid`` (a shift of 32 or more is taken modulo 32, as the GPU's shift does) and ``tid``.

The sample checks only order-independent results (sums, extremes, membership, bit reductions), so any order
gives its expected values. Run it with::

    simcuda run --kernels examples/system_wide_atomics_kernels.py 0_Introduction/systemWideAtomics_test.py
"""
from __future__ import annotations

import numpy as np

import simcuda

LOOP_NUM = 50
_M = 0xFFFFFFFF


@simcuda.kernel("atomicKernel")
def atomic_kernel(launch: simcuda.KernelLaunch) -> None:
    """``atomicKernel<<<grid, block>>>(atom_arr)``: the ten atomics of every thread, in thread order (each thread's
    fifty rounds in turn), computed in closed form where the order does not matter."""
    (ptr,) = launch.args
    arr = launch.array(ptr, np.int32, 10)
    v = [int(x) & _M for x in arr]
    t = launch.grid[0] * launch.block[0]
    n = t * LOOP_NUM  # updates of each element
    if t:
        v[0] = (v[0] + 10 * n) & _M
        v[1] = t - 1
        v[2] = max(_signed(v[2]), t - 1) & _M
        v[3] = min(_signed(v[3]), 0) & _M
        v[4] = _inc(v[4], n, 17)
        v[5] = _dec(v[5], n, 137)
        for tid in range(t):  # compare-and-swap: only each thread's first round can change it
            if v[6] == (tid - 1) & _M:
                v[6] = tid
        for tid in range(t):
            v[7] &= (2 * tid + 7) & _M
            v[8] |= (1 << (tid % 32)) & _M
            if LOOP_NUM % 2:
                v[9] ^= tid
    arr[:] = np.array([_signed(x) for x in v], dtype=np.int32)


def _inc(x: int, n: int, limit: int) -> int:
    """``n`` times ``atomicInc(x, limit)``: ``x = 0 if x >= limit else x + 1`` (a cycle of ``limit + 1``)."""
    if n and x > limit:
        x, n = 0, n - 1
    return x if not n else (x + n) % (limit + 1)


def _dec(x: int, n: int, limit: int) -> int:
    """``n`` times ``atomicDec(x, limit)``: ``x = limit if x == 0 or x > limit else x - 1``."""
    if n and x > limit:
        x, n = limit, n - 1
    return x if not n else (x - n) % (limit + 1)


def _signed(x: int) -> int:
    return x - (1 << 32) if x & 0x80000000 else x
