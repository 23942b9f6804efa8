"""A numba-cuda ``@cuda.jit`` kernel's PTX (from ``cuda.compile_ptx``, no GPU needed) runs on the engine."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from simcuda.ptx import Hooks, load

from .helpers import Mem


def _array_args(mem: Mem, arr: np.ndarray) -> list[int]:
    """numba's seven parameters of a 1-d C-contiguous array: meminfo, parent, nitems, itemsize, data, shape,
    strides."""
    p = mem.alloc(arr)
    return [0, 0, arr.size, arr.itemsize, p, arr.size, arr.itemsize]


def test_numba_shared_shfl_atomics() -> None:
    """Shared memory, a shfl_down warp reduction and atomics in a numba kernel give numpy's answers."""
    cuda = pytest.importorskip("numba.cuda")
    from numba import float32, int32

    def _kernel(x, out, hist):  # type: ignore[no-untyped-def]
        s = cuda.shared.array(64, float32)
        i = cuda.grid(1)
        t = cuda.threadIdx.x
        s[t] = x[i]
        cuda.syncthreads()
        v = s[63 - t]
        for o in (16, 8, 4, 2, 1):
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, o)
        if t % 32 == 0:
            cuda.atomic.add(out, 0, v)
        cuda.atomic.add(hist, int32(x[i]) % 4, 1)

    ptx, _ = cuda.compile_ptx(_kernel, "float32[::1], float32[::1], int32[::1]", cc=(8, 0))
    mod = load(ptx)
    (name,) = mod.kernels
    mem = Mem()
    x = np.random.randint(0, 50, 256).astype(np.float32)
    args = _array_args(mem, x) + _array_args(mem, np.zeros(1, np.float32)) + _array_args(mem, np.zeros(4, np.int32))
    mod.launch(name, (4, 1, 1), (64, 1, 1), 0, struct.pack("<21Q", *args), mem, Hooks(),
               variables=mem.variables(mod))
    assert mem.get(args[11], np.float32, 1)[0] == x.sum()
    assert list(mem.get(args[18], np.int32, 4)) == list(np.bincount(x.astype(int) % 4, minlength=4))


def test_numba_debug_ptx() -> None:
    """numba's debug PTX (debug=True, opt=False: .local .align, .loc, DWARF .section blocks) parses and runs."""
    cuda = pytest.importorskip("numba.cuda")

    def k(x, out):  # type: ignore[no-untyped-def]
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * 2 + 1
    ptx, _ = cuda.compile_ptx(k, "float32[::1], float32[::1]", cc=(8, 0), debug=True, opt=False)
    mod = load(ptx)
    (name,) = mod.kernels
    mem = Mem()
    x = np.arange(100, dtype=np.float32)
    args = _array_args(mem, x) + _array_args(mem, np.zeros(100, np.float32))
    mod.launch(name, (1, 1, 1), (128, 1, 1), 0, struct.pack("<14Q", *args), mem, Hooks(),
               variables=mem.variables(mod))
    assert np.array_equal(mem.get(args[11], np.float32, 100), x * 2 + 1)
