"""Kernels that spin on other threads finish on the engine: libcu++ ``cuda::barrier`` and ``cuda::pipeline``
(NVRTC at sm_80: cp.async, mbarrier, nanosleep), cooperative groups' ``grid.sync()``; a grid too big for one
lane set that spins on a later block ends with Fault 702 instead of hanging."""
from __future__ import annotations

import numpy as np
import pytest

from simcuda import ptx

from .helpers import Mem, hooks, nvrtc_ptx, params

pytest.importorskip("cuda.bindings.nvrtc")

INCLUDES = ("-I/usr/local/cuda/include/cccl", "-I/usr/local/cuda/include", "--std=c++17")

SPIN_SRC = r"""
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void bar_kernel(const float* in, float* out) {
  __shared__ float tile[256];
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, tile, in + blockIdx.x * blockDim.x, sizeof(float) * blockDim.x, bar);
  bar.arrive_and_wait();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[(threadIdx.x + 1) % blockDim.x] * 2.0f;
}
extern "C" __global__ void pipe_kernel(const float* in, float* out, int n) {
  __shared__ float tile[2][128];
  auto block = cg::this_thread_block();
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto pipe = cuda::make_pipeline(block, &state);
  for (int t = 0; t < n / 128; ++t) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, tile[t % 2], in + t * 128, sizeof(float) * 128, pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    out[t * 128 + threadIdx.x] = tile[t % 2][127 - threadIdx.x] + 1.0f;
    pipe.consumer_release();
  }
}
extern "C" __global__ void gsync(int* buf, int* out, int n) {
  cg::grid_group g = cg::this_grid();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[i] = i * 3;
  g.sync();
  out[i] = buf[(i + blockDim.x) % n];
  g.sync();
  buf[i] = 0;
  g.sync();
  out[i] += buf[(i + 2 * blockDim.x) % n];
}
extern "C" __global__ void wait_last(volatile int* flag) {
  if (blockIdx.x == gridDim.x - 1) { if (threadIdx.x == 0) *flag = 1; return; }
  while (*flag == 0) { }
}
"""


@pytest.fixture(scope="module")
def spin_module() -> object:
    """The NVRTC-compiled module of the spinning kernels."""
    return ptx.load(nvrtc_ptx(SPIN_SRC, *INCLUDES))


def test_cuda_barrier_with_memcpy_async(spin_module: object) -> None:
    """cuda::barrier arrive_and_wait after a block-wide memcpy_async: every block's tile is copied and read."""
    m = Mem()
    x = np.random.default_rng(1).random(1024).astype(np.float32)
    a, b = m.alloc(x), m.alloc(np.zeros(1024, np.float32))
    spin_module.launch("bar_kernel", (4, 1, 1), (256, 1, 1), 0, params(("Q", a), ("Q", b)), m, hooks())  # type: ignore[attr-defined]
    assert np.array_equal(m.get(b, np.float32, 1024).reshape(4, 256), np.roll(x.reshape(4, 256), -1, axis=1) * 2)


def test_cuda_pipeline_two_stages(spin_module: object) -> None:
    """A two-stage cuda::pipeline (producer_acquire/commit, consumer_wait/release) moves every tile through."""
    m = Mem()
    x = np.random.default_rng(2).random(1024).astype(np.float32)
    a, b = m.alloc(x), m.alloc(np.zeros(1024, np.float32))
    spin_module.launch("pipe_kernel", (1, 1, 1), (128, 1, 1), 0, params(("Q", a), ("Q", b), ("i", 1024)), m,  # type: ignore[attr-defined]
                       hooks())
    assert np.array_equal(m.get(b, np.float32, 1024).reshape(8, 128), x.reshape(8, 128)[:, ::-1] + 1)


@pytest.mark.parametrize("given", [True, False], ids=["workspace given", "engine workspace"])
def test_grid_sync_three_times(spin_module: object, given: bool) -> None:
    """grid.sync() separates three phases across 8 blocks, with the core's workspace or the engine's own."""
    m = Mem()
    n, nt = 1024, 128
    buf, out, ws = m.alloc(np.zeros(n, np.int32)), m.alloc(np.zeros(n, np.int32)), m.alloc(np.zeros(64, np.uint32))
    env = {1: ws >> 32, 2: ws & 0xFFFFFFFF} if given else None
    spin_module.launch("gsync", (n // nt, 1, 1), (nt, 1, 1), 0, params(("Q", buf), ("Q", out), ("i", n)), m,  # type: ignore[attr-defined]
                       hooks(), envreg=env)
    i = np.arange(n)
    assert np.array_equal(m.get(out, np.int32, n), ((i + nt) % n) * 3)


def test_spin_on_a_later_lane_set_is_fault_702(spin_module: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks that wait for the grid's last block, in a grid run in several lane sets, end with Fault 702."""
    import simcuda.ptx.module as module
    import simcuda.ptx.values as values
    monkeypatch.setattr(values, "MAX_LANES", 64)
    monkeypatch.setattr(module, "STALL_LIMIT_S", 0.5)
    m = Mem()
    flag = m.alloc(np.zeros(1, np.int32))
    with pytest.raises(ptx.Fault) as e:
        spin_module.launch("wait_last", (4, 1, 1), (32, 1, 1), 0, params(("Q", flag)), m, hooks())  # type: ignore[attr-defined]
    assert e.value.code == 702 and "later part" in e.value.why
    assert m.get(flag, np.int32, 1)[0] == 0  # the last block never ran


def test_spin_on_a_later_block_in_one_lane_set_finishes(spin_module: object) -> None:
    """The same kernel on a grid that fits one lane set finishes: the spinning lanes yield to the last block."""
    m = Mem()
    flag = m.alloc(np.zeros(1, np.int32))
    spin_module.launch("wait_last", (4, 1, 1), (32, 1, 1), 0, params(("Q", flag)), m, hooks())  # type: ignore[attr-defined]
    assert m.get(flag, np.int32, 1)[0] == 1


LATCH_SRC = r"""
#include <cuda/atomic>
extern "C" __global__ void latch(int* val, unsigned long long timeout_cycles) {
  cuda::atomic_ref<int, cuda::thread_scope_system> signal{*val};
  unsigned long long start = clock64();
  while (true) {
    if (signal.load(cuda::memory_order_relaxed)) break;
    if (clock64() - start >= timeout_cycles) { signal.store(-1, cuda::memory_order_relaxed); break; }
    __nanosleep(1000000);
  }
}
"""


@pytest.fixture(scope="module")
def latch_module() -> object:
    """A latch kernel like cuda.core's test helper: it spins until the host writes the flag, or times out."""
    return ptx.load(nvrtc_ptx(LATCH_SRC, *INCLUDES))


def test_latch_released_by_the_host_while_it_runs(latch_module: object) -> None:
    """Started on its own thread, the latch kernel sees the host's write to its flag and ends (no timeout)."""
    import time
    m = Mem()
    flag = m.alloc(np.zeros(1, np.int32))
    cycles = int(60 * 1.41e9)  # 60 s at the simulated device's clock rate
    run = latch_module.start("latch", (1, 1, 1), (1, 1, 1), 0, params(("Q", flag), ("Q", cycles)), m,  # type: ignore[attr-defined]
                             hooks())
    time.sleep(0.3)
    assert not run.done()
    r = m.region(flag)
    assert r is not None
    r.data[0:4] = np.frombuffer(np.int32(1).tobytes(), np.uint8)
    stats = run.wait(30)
    assert stats is not None and stats.blocks == 1 and m.get(flag, np.int32, 1)[0] == 1


def test_latch_times_out_by_its_clock(latch_module: object) -> None:
    """Launched in the host's thread, the latch ends by its own clock64 timeout (the clock advances with wall
    time at the device's rate) and stores -1."""
    import time
    m = Mem()
    flag = m.alloc(np.zeros(1, np.int32))
    t0 = time.monotonic()
    latch_module.launch("latch", (1, 1, 1), (1, 1, 1), 0, params(("Q", flag), ("Q", int(0.2 * 1.41e9))), m,  # type: ignore[attr-defined]
                        hooks())
    assert m.get(flag, np.int32, 1)[0] == -1 and time.monotonic() - t0 < 10
