"""The kernel engine on hand-written PTX and on NVRTC's PTX of tests/ptx/engine/kernels/basic.cu."""
from __future__ import annotations

import pathlib
import struct
import time

import numpy as np
import pytest

from simcuda.ptx import Fault, Hooks, load

from .helpers import Mem, nvrtc_ptx, params

SRC = (pathlib.Path(__file__).parent / "kernels" / "basic.cu").read_text()


@pytest.fixture(scope="module")
def mod():  # type: ignore[no-untyped-def]
    """The module of basic.cu compiled by NVRTC."""
    pytest.importorskip("cuda.bindings.nvrtc")
    return load(nvrtc_ptx(SRC))


def test_vector_add(mod) -> None:  # type: ignore[no-untyped-def]
    """A 50,000-element vector add gives a + b exactly."""
    mem, n = Mem(), 50000
    a, b = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
    pa, pb, pc = mem.alloc(a), mem.alloc(b), mem.alloc(np.zeros(n, np.float32))
    st = mod.launch("vadd", ((n + 255) // 256, 1, 1), (256, 1, 1), 0,
                    params(("Q", pa), ("Q", pb), ("Q", pc), ("i", n)), mem, Hooks())
    assert np.array_equal(mem.get(pc, np.float32, n), a + b)
    assert st.blocks == 196 and st.lane_instructions > 0


def _mm(mod, n: int) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    mem = Mem()
    A, B = np.random.rand(n, n).astype(np.float32), np.random.rand(n, n).astype(np.float32)
    pa, pb, pc = mem.alloc(A), mem.alloc(B), mem.alloc(np.zeros((n, n), np.float32))
    t0 = time.perf_counter()
    st = mod.launch("mm", (n // 16, n // 16, 1), (16, 16, 1), 0,
                    params(("Q", pa), ("Q", pb), ("Q", pc), ("i", n)), mem, Hooks())
    dt = time.perf_counter() - t0
    C = mem.get(pc, np.float32, n * n).reshape(n, n)
    assert np.allclose(C, A.astype(np.float64) @ B, rtol=1e-4, atol=1e-4)
    return dt, st.lane_instructions


def test_matmul_shared_tiled(mod) -> None:  # type: ignore[no-untyped-def]
    """A shared-memory tiled 64x64 matmul matches numpy."""
    _mm(mod, 64)


def test_matmul_256_speed_figure(mod, capsys) -> None:  # type: ignore[no-untyped-def]
    """The 256x256 matmul is correct; ns per lane-instruction is printed (no timing assert)."""
    dt, li = _mm(mod, 256)
    with capsys.disabled():
        print(f"\n256x256 matmul: {dt * 1e3:.0f} ms, {li} lane-instructions, {dt / li * 1e9:.2f} ns each")


def test_histogram_old_values(mod) -> None:  # type: ignore[no-untyped-def]
    """atomicAdd into 10 bins gives the counts and each lane a distinct old value per bin, in lane order."""
    mem, n = Mem(), 5000
    d = np.random.randint(0, 10, n).astype(np.int32)
    pd, ph, po = mem.alloc(d), mem.alloc(np.zeros(10, np.uint32)), mem.alloc(np.zeros(n, np.uint32))
    mod.launch("hist", ((n + 127) // 128, 1, 1), (128, 1, 1), 0,
               params(("Q", pd), ("Q", ph), ("i", n), ("Q", po)), mem, Hooks())
    assert np.array_equal(mem.get(ph, np.uint32, 10), np.bincount(d, minlength=10))
    old = mem.get(po, np.uint32, n)
    for k in range(10):
        assert np.array_equal(old[d == k], np.arange((d == k).sum()))


def test_atomic_cas_loop(mod) -> None:  # type: ignore[no-untyped-def]
    """An atomicCAS max loop over 1,000 lanes (all on one word) ends with the maximum."""
    mem, n = Mem(), 1000
    d = np.random.randint(-10**6, 10**6, n).astype(np.int32)
    pd, pm = mem.alloc(d), mem.alloc(np.array([-2**31], np.int32))
    mod.launch("casmax", (8, 1, 1), (128, 1, 1), 0, params(("Q", pd), ("Q", pm), ("i", n)), mem, Hooks())
    assert mem.get(pm, np.int32, 1)[0] == d.max()


def test_warp_reduce_shfl(mod) -> None:  # type: ignore[no-untyped-def]
    """A __shfl_down_sync warp reduction gives each warp's sum."""
    mem = Mem()
    d = np.random.randint(0, 100, 256).astype(np.int32)
    pd, po = mem.alloc(d), mem.alloc(np.zeros(8, np.int32))
    mod.launch("warpsum", (2, 1, 1), (128, 1, 1), 0, params(("Q", pd), ("Q", po)), mem, Hooks())
    assert np.array_equal(mem.get(po, np.int32, 8), d.reshape(8, 32).sum(axis=1))


def test_vote_ballot(mod) -> None:  # type: ignore[no-untyped-def]
    """__ballot_sync, __all_sync and __any_sync give each warp's mask and truth values."""
    mem = Mem()
    d = np.ones(128, np.int32)
    d[:32] = np.random.randint(0, 2, 32)
    d[64:96] = 0
    pd, po, pa = mem.alloc(d), mem.alloc(np.zeros(4, np.uint32)), mem.alloc(np.zeros(8, np.int32))
    mod.launch("ballot", (1, 1, 1), (128, 1, 1), 0, params(("Q", pd), ("Q", po), ("Q", pa)), mem, Hooks())
    want = [int(sum(int(d[w * 32 + k] > 0) << k for k in range(32))) for w in range(4)]
    assert list(mem.get(po, np.uint32, 4)) == want
    aa = mem.get(pa, np.int32, 8).reshape(4, 2)
    assert [bool(x) for x in aa[:, 0]] == [all(d[w * 32:(w + 1) * 32] > 0) for w in range(4)]
    assert [bool(x) for x in aa[:, 1]] == [any(d[w * 32:(w + 1) * 32] > 0) for w in range(4)]


def test_divergence_reconverges(mod) -> None:  # type: ignore[no-untyped-def]
    """Three divergent paths (one a loop) reconverge before a warp shuffle."""
    mem = Mem()
    po = mem.alloc(np.zeros(64, np.int32))
    mod.launch("diverge", (1, 1, 1), (64, 1, 1), 0, params(("Q", po)), mem, Hooks())
    v = [i * 10 if i % 3 == 0 else -i if i % 3 == 1 else sum(range(i)) for i in range(64)]
    want = [v[i] + v[(i // 32) * 32] for i in range(64)]
    assert list(mem.get(po, np.int32, 64)) == want


def test_printf(mod) -> None:  # type: ignore[no-untyped-def]
    """vprintf formats the C format string with the argument buffer, once per calling lane."""
    out: list[str] = []
    mem = Mem()
    mod.launch("pf", (1, 1, 1), (4, 1, 1), 0, params(("i", 42), ("d", 2.5)), mem, Hooks(printf=out.append),
               variables=mem.variables(mod))
    assert out == ["x=42 y=2.50 s=ok\n"]


def test_assert_710(mod) -> None:  # type: ignore[no-untyped-def]
    """A failed device assert raises Fault 710 naming the kernel and the expression; a true one passes."""
    mem = Mem()
    v = mem.variables(mod)
    mod.launch("asrt", (1, 1, 1), (32, 1, 1), 0, params(("i", 1)), mem, Hooks(), variables=v)
    with pytest.raises(Fault) as e:
        mod.launch("asrt", (1, 1, 1), (32, 1, 1), 0, params(("i", 0)), mem, Hooks(), variables=v)
    assert e.value.code == 710 and "x == 1" in e.value.why and "asrt" in e.value.why


def test_oob_700(mod) -> None:  # type: ignore[no-untyped-def]
    """A store past the allocation end faults 700 with the address in the why; in bounds it lands."""
    mem = Mem()
    p = mem.alloc(np.zeros(4, np.int32))
    mod.launch("oob", (1, 1, 1), (1, 1, 1), 0, params(("Q", p), ("q", 3)), mem, Hooks())
    assert mem.get(p, np.int32, 4)[3] == 1
    with pytest.raises(Fault) as e:
        mod.launch("oob", (1, 1, 1), (1, 1, 1), 0, params(("Q", p), ("q", 4)), mem, Hooks())
    assert e.value.code == 700 and hex(p + 16) in e.value.why and e.value.address == p + 16


def test_oob_gpu_like_passes(mod) -> None:  # type: ignore[no-untyped-def]
    """With gpu_like() True a store just past the end inside the same page goes unnoticed."""
    mem = Mem(gpu_like=True)
    p = mem.alloc(np.zeros(4, np.int32))
    mod.launch("oob", (1, 1, 1), (1, 1, 1), 0, params(("Q", p), ("q", 4)), mem, Hooks())
    assert list(mem.get(p, np.int32, 4)) == [0, 0, 0, 0]


def test_misaligned_716(mod) -> None:  # type: ignore[no-untyped-def]
    """An int store at an odd address faults 716 and the memory is unchanged."""
    mem = Mem()
    p = mem.alloc(np.zeros(8, np.uint8))
    with pytest.raises(Fault) as e:
        mod.launch("misal", (1, 1, 1), (1, 1, 1), 0, params(("Q", p)), mem, Hooks())
    assert e.value.code == 716 and e.value.block == (0, 0, 0)
    assert not mem.get(p, np.uint8, 8).any()


def test_spin_between_blocks(mod) -> None:  # type: ignore[no-untyped-def]
    """Block 0 spins on a flag block 1 sets; the launch finishes with both writes."""
    mem = Mem()
    pf, po = mem.alloc(np.zeros(1, np.int32)), mem.alloc(np.zeros(2, np.int32))
    mod.launch("spin", (2, 1, 1), (1, 1, 1), 0, params(("Q", pf), ("Q", po)), mem, Hooks())
    assert list(mem.get(po, np.int32, 2)) == [7, 5]


def test_fma_exact(mod) -> None:  # type: ignore[no-untyped-def]
    """fma.rn.f32/f64 round once: cases where a*b+c rounded twice differs from the fused result."""
    mem = Mem()
    e = 2.0 ** -23
    a = np.array([1 + e, 1 + 2 ** -12, 3.0, 0.1], np.float32)
    b = np.array([1 - e, 1 + 2 ** -12, 1 / 3, 10.0], np.float32)
    c = np.array([-1.0, -1.0, -1.0, -1.0], np.float32)
    ed = 2.0 ** -52
    da = np.array([1 + ed, 1 + 2 ** -27, 0.1], np.float64)
    db = np.array([1 - ed, 1 + 2 ** -27, 10.0], np.float64)
    dc = np.array([-1.0, -1.0, -1.0], np.float64)
    ptr = [mem.alloc(x) for x in (a, b, c, np.zeros(4, np.float32), np.resize(da, 4), np.resize(db, 4),
                                  np.resize(dc, 4), np.zeros(4, np.float64))]
    mod.launch("fmas", (1, 1, 1), (3, 1, 1), 0, params(*[("Q", x) for x in ptr]), mem, Hooks())
    from fractions import Fraction as F
    got = mem.get(ptr[3], np.float32, 3)
    for i in range(3):
        exact = F(float(a[i])) * F(float(b[i])) + F(float(c[i]))
        assert got[i] == np.float32(float(exact))  # exact -> float64 is exact here, then one rounding
    gd = mem.get(ptr[7], np.float64, 3)
    for i in range(3):
        assert gd[i] == float(F(float(da[i])) * F(float(db[i])) + F(float(dc[i])))


def test_cp_async_copy(mod) -> None:  # type: ignore[no-untyped-def]
    """cp.async with commit/wait and a barrier copies global to shared."""
    mem = Mem()
    g = np.arange(256, dtype=np.int32)
    pg, po = mem.alloc(g), mem.alloc(np.zeros(256, np.int32))
    mod.launch("cpasync", (1, 1, 1), (256, 1, 1), 0, params(("Q", pg), ("Q", po)), mem, Hooks())
    assert np.array_equal(mem.get(po, np.int32, 256), g[::-1] * 2)


HAND = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 2;
  @%p1 bra SMALL;
  shl.b32 %r2, %r1, 40;
  bra.uni DONE;
SMALL:
  mov.u32 %r2, 0f3F800000;
DONE:
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
"""


def test_hand_written_ptx() -> None:
    """Hand-written PTX: a predicated branch, a shift >= width (clamps to 0), a hex float immediate."""
    mem = Mem()
    p = mem.alloc(np.full(4, 7, np.uint32))
    m = load(HAND)
    assert load(HAND) is m
    m.launch("k", (1, 1, 1), (4, 1, 1), 0, struct.pack("<Q", p), mem, Hooks())
    assert list(mem.get(p, np.uint32, 4)) == [0x3F800000, 0x3F800000, 0, 0]


def test_shared_atomics_per_block(mod) -> None:  # type: ignore[no-untyped-def]
    """Shared-memory atomicAdd histograms are per block; a float atomicAdd from every lane sums exactly."""
    mem = Mem()
    d = np.random.randint(0, 100, 512).astype(np.int32)
    pd, po, pf = mem.alloc(d), mem.alloc(np.zeros(16, np.uint32)), mem.alloc(np.zeros(1, np.float32))
    mod.launch("shist", (4, 1, 1), (128, 1, 1), 0, params(("Q", pd), ("Q", po), ("Q", pf)), mem, Hooks())
    got = mem.get(po, np.uint32, 16).reshape(4, 4)
    want = np.array([np.bincount(d[b * 128:(b + 1) * 128] & 3, minlength=4) for b in range(4)])
    assert np.array_equal(got, want)
    assert mem.get(pf, np.float32, 1)[0] == 256.0


def test_libdevice_math(mod) -> None:  # type: ignore[no-untyped-def]
    """Inlined libdevice sinf/expf/logf/powf and double sin/exp/sqrt/division/convert match numpy closely."""
    mem, n = Mem(), 1000
    x = np.random.rand(n).astype(np.float32) * 3
    dx = np.random.rand(n) * 3
    px, py, pdx, pdy = mem.alloc(x), mem.alloc(np.zeros(n, np.float32)), mem.alloc(dx), mem.alloc(np.zeros(n))
    mod.launch("mth", (4, 1, 1), (256, 1, 1), 0, params(("Q", px), ("Q", py), ("Q", pdx), ("Q", pdy), ("i", n)),
               mem, Hooks(), variables=mem.variables(mod))
    x64 = x.astype(np.float64)
    wy = np.sin(x64) + np.exp(x64) + np.sqrt(x64) + np.log(x64 + 1) + x64 ** 1.5
    assert np.allclose(mem.get(py, np.float32, n), wy, rtol=1e-6, atol=1e-5)
    wd = np.sin(dx) + np.exp(dx) + np.sqrt(dx) / (dx + 1) + np.trunc(dx * 1e6)
    assert np.allclose(mem.get(pdy, np.float64, n), wd, rtol=1e-15, atol=1e-9)
