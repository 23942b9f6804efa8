"""Real calls on the engine: recursion and calls through a register (function-pointer tables), compiled by
NVRTC; a call taken by some lanes only, followed by a barrier that the others must not pass early."""
from __future__ import annotations

import numpy as np
import pytest

from simcuda import ptx

from .helpers import Mem, hooks, nvrtc_ptx, params

pytest.importorskip("cuda.bindings.nvrtc")

SRC = r"""
__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ __noinline__ int twice(int x) { return 2 * x; }
__device__ __noinline__ int square(int x) { return x * x; }
typedef int (*op_t)(int);
__device__ op_t ops[2] = {twice, square};
extern "C" __global__ void rec(int* out) {
  int i = threadIdx.x;
  out[i] = fib(i % 12);
  op_t f = ops[i & 1];
  out[32 + i] = f(i);
}
extern "C" __global__ void half_calls(int* out) {
  __shared__ int s[64];
  int i = threadIdx.x;
  s[i] = -1;
  __syncthreads();
  if (i & 1) s[i] = fib(i % 10);
  __syncthreads();
  out[i] = s[i ^ 1];
}
"""


def fib(n: int) -> int:
    """The reference Fibonacci number."""
    return n if n < 2 else fib(n - 1) + fib(n - 2)


@pytest.fixture(scope="module")
def module() -> object:
    """The NVRTC-compiled module."""
    return ptx.load(nvrtc_ptx(SRC))


def test_recursion_and_function_pointer_table(module: object) -> None:
    """fib recurses per lane to different depths; a table of function addresses calls twice or square."""
    m = Mem()
    out = m.alloc(np.zeros(64, np.int32))
    stats = module.launch("rec", (1, 1, 1), (32, 1, 1), 0, params(("Q", out)), m, hooks())  # type: ignore[attr-defined]
    r = m.get(out, np.int32, 64)
    i = np.arange(32)
    assert r[:32].tolist() == [fib(k % 12) for k in range(32)]
    assert np.array_equal(r[32:], np.where(i & 1, i * i, 2 * i)) and stats.blocks == 1


def test_divergent_call_then_barrier(module: object) -> None:
    """Only odd lanes call fib; the even lanes wait at the barrier and then read their neighbour's result."""
    m = Mem()
    out = m.alloc(np.zeros(64, np.int32))
    module.launch("half_calls", (1, 1, 1), (64, 1, 1), 0, params(("Q", out)), m, hooks())  # type: ignore[attr-defined]
    r = m.get(out, np.int32, 64)
    i = np.arange(64)
    assert r[::2].tolist() == [fib(k % 10) for k in i[1::2]] and (r[1::2] == -1).all()


def test_indirect_call_to_a_non_function_faults() -> None:
    """A call through a register holding no function's address faults 719 and names the call."""
    text = """.version 8.0
.target sm_80
.address_size 64
.func (.param .b32 r) f(.param .b32 a)
{
 .reg .b32 %t;
 ld.param.b32 %t, [a];
 st.param.b32 [r], %t;
 ret;
}
.visible .entry k(.param .u64 out)
{
 .reg .u64 %p;
 mov.u64 %p, 12345;
 {
 .param .b32 p0;
 .param .b32 r0;
 st.param.b32 [p0], 1;
 proto : .callprototype (.param .b32 _) _ (.param .b32 _);
 call (r0), %p, (p0), proto;
 }
 ret;
}
"""
    m = Mem()
    out = m.alloc(np.zeros(4, np.int32))
    with pytest.raises(ptx.Fault) as e:
        ptx.load(text).launch("k", (1, 1, 1), (1, 1, 1), 0, params(("Q", out)), m, hooks())
    assert e.value.code == 719 and "no function" in e.value.why
