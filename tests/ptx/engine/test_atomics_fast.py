"""The vectorised atomics (simcuda.ptx.atomics.resolve) against the per-round reference on random lanes: every
op and type resolve handles, many lanes on few words (and many words with few lanes each), NaN for floats."""
from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pytest

from simcuda.ptx.atomics import HalfAdd, _apply, reference, resolve

#: (lanes, words): one word, a few words, many words with few lanes each (the rounds path), all distinct; a
#: negative count of words: one hot word with 60% of the lanes, the rest spread over that many words
SHAPES = [(2000, 1), (1500, 3), (1200, 400), (300, 300), (1, 1), (1500, -300)]


def _rng(case: tuple[Any, ...]) -> Any:
    """A generator seeded from the test case (the same lanes on every run)."""
    return np.random.default_rng(zlib.crc32(repr(case).encode()))


def _words(rng: Any, m: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Random word keys (large, as shared/global keys are) and each lane's word index; all distinct if m == w,
    one hot word if w < 0."""
    keys = rng.choice(1 << 20, size=abs(w), replace=False).astype(np.uint64) << np.uint64(20)
    keys += np.uint64(0x7000_0000_0000)
    if w < 0:
        w = -w
        widx = np.where(rng.random(m) < 0.6, 0, rng.integers(1, w, m))
    else:
        widx = rng.permutation(m) % w if m == w else rng.integers(0, w, m)
    return keys, widx


def _run(fn: Any, opn: str, apply: Any, dt: Any, keys: Any, widx: Any, init: Any, v: Any, c: Any) -> tuple[Any, Any]:
    """Run ``fn`` (resolve or reference) over a copy of ``init`` words; returns (old values, words after)."""
    words = init.copy()

    def load(idx: np.ndarray) -> Any:
        return words[widx[idx]].copy()

    def store(idx: np.ndarray, vals: Any) -> None:
        words[widx[idx]] = vals
    old = fn(opn, apply, dt, keys[widx], v, c, load, store)
    return old, words


def _bits(x: Any) -> Any:
    """Bit patterns of ``x`` (so NaNs compare equal when their bits do)."""
    x = np.ascontiguousarray(x)
    return x.view(f"u{x.dtype.itemsize}")


def _check(opn: str, dt: Any, keys: Any, widx: Any, init: Any, v: Any, c: Any = None, apply: Any = _apply) -> None:
    """resolve and reference agree bit for bit on every old value and on every word afterwards."""
    o1, w1 = _run(resolve, opn, apply, dt, keys, widx, init, v, c)
    o2, w2 = _run(reference, opn, apply, dt, keys, widx, init, v, c)
    assert o1.dtype == o2.dtype == dt
    assert np.array_equal(_bits(o1), _bits(o2)), (opn, dt)
    assert np.array_equal(_bits(w1), _bits(w2)), (opn, dt)


def _ints(rng: Any, dt: Any, size: int) -> Any:
    """Random integers over the whole range of ``dt`` (wraparound exercised)."""
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, size, dtype=dt, endpoint=True)


def _floats(rng: Any, dt: Any, size: int) -> Any:
    """Random floats of mixed sign and magnitude (so the add order shows) with some NaN, inf and -0.0."""
    x = rng.standard_normal(size) * 10.0 ** rng.integers(-8, 9, size)
    x[rng.random(size) < 0.01] = np.nan
    x[rng.random(size) < 0.005] = np.inf
    x[rng.random(size) < 0.01] = -0.0
    return x.astype(dt)


INT_TYPES = [np.int32, np.uint32, np.int64, np.uint64]


@pytest.mark.parametrize("m,w", SHAPES)
@pytest.mark.parametrize("opn", ["add", "min", "max", "exch", "and", "or", "xor"])
@pytest.mark.parametrize("ty", INT_TYPES)
def test_integer_ops_match_reference(opn: str, ty: Any, m: int, w: int) -> None:
    """Integer add/min/max/exch/and/or/xor over the full value range give the reference's olds and words."""
    rng = _rng((opn, ty, m, w))
    dt = np.dtype(ty)
    keys, widx = _words(rng, m, w)
    w = len(keys)
    _check(opn, dt, keys, widx, _ints(rng, dt, w), _ints(rng, dt, m))


@pytest.mark.parametrize("m,w", SHAPES)
@pytest.mark.parametrize("opn", ["add", "min", "max", "exch"])
@pytest.mark.parametrize("ty", [np.float32, np.float64])
def test_float_ops_match_reference(opn: str, ty: Any, m: int, w: int) -> None:
    """Float add (in lane order, NaN and inf included), min, max and exch give the reference's bits."""
    rng = _rng((opn, ty, m, w))
    dt = np.dtype(ty)
    keys, widx = _words(rng, m, w)
    w = len(keys)
    _check(opn, dt, keys, widx, _floats(rng, dt, w), _floats(rng, dt, m))


@pytest.mark.parametrize("m,w", SHAPES)
@pytest.mark.parametrize("opn", ["inc", "dec"])
@pytest.mark.parametrize("bound", ["per_word", "per_lane", "edges"])
def test_inc_dec_match_reference(opn: str, bound: str, m: int, w: int) -> None:
    """atom.inc/atom.dec.u32 wrap like the reference: one bound per word (closed form, words above the bound,
    bounds 0 and 0xFFFFFFFF) and a different bound per lane."""
    rng = _rng((opn, bound, m, w))
    dt = np.dtype(np.uint32)
    keys, widx = _words(rng, m, w)
    w = len(keys)
    if bound == "per_lane":
        b = rng.integers(0, 40, m).astype(dt)
    else:
        bw = rng.integers(0, 300, w).astype(dt)
        if bound == "edges":
            bw[rng.random(w) < 0.5] = 0xFFFFFFFF
            bw[rng.random(w) < 0.3] = 0
        b = bw[widx]
    init = np.where(rng.random(w) < 0.5, rng.integers(0, 600, w), _ints(rng, dt, w)).astype(dt)
    _check(opn, dt, keys, widx, init, b)


@pytest.mark.parametrize("m,w", SHAPES)
@pytest.mark.parametrize("kind", ["small", "chain", "same"])
@pytest.mark.parametrize("ty", [np.uint16, np.uint32, np.uint64])
def test_cas_matches_reference(kind: str, ty: Any, m: int, w: int) -> None:
    """atom.cas: small value ranges (many hits, compare == new included), a lane-order chain (compare lane - 1,
    new lane: every lane swaps) and compare == new everywhere."""
    rng = _rng((kind, ty, m, w))
    dt = np.dtype(ty)
    keys, widx = _words(rng, m, w)
    w = len(keys)
    init = rng.integers(0, 4, w).astype(dt)
    if kind == "small":
        cmp, new = rng.integers(0, 4, m).astype(dt), rng.integers(0, 4, m).astype(dt)
    elif kind == "chain":
        cmp, new = (np.arange(m) - 1).astype(dt), np.arange(m).astype(dt)
        init[:] = np.iinfo(dt).max
    else:
        cmp = rng.integers(0, 4, m).astype(dt)
        new = cmp.copy()
    _check("cas", dt, keys, widx, init, cmp, new)


@pytest.mark.parametrize("m,w", [(600, 1), (500, 3), (400, 150), (900, -100)])
@pytest.mark.parametrize("ty", ["f16", "bf16", "f16x2", "bf16x2"])
def test_half_add_matches_reference(ty: str, m: int, w: int) -> None:
    """atom.add.noftz on f16/bf16 (and x2) bit patterns, NaN included, agrees with the reference."""
    rng = _rng((ty, m, w))
    dt = np.dtype(np.uint32 if ty.endswith("x2") else np.uint16)
    keys, widx = _words(rng, m, w)
    w = len(keys)

    apply = HalfAdd(ty)
    small = np.float16 if ty.startswith("f") else np.float32
    vals = _floats(rng, np.float64, m * 2).astype(np.float32)
    vals[np.abs(vals) > 100] = 1.5
    lo = vals.astype(small).view(np.uint16 if small is np.float16 else np.uint32)
    if small is np.float32:
        lo = (lo >> np.uint32(16)).astype(np.uint16)
    lo = lo.astype(np.uint32)
    v = (lo[:m] | (lo[m:] << np.uint32(16))) if dt.itemsize == 4 else lo[:m]
    _check("add", dt, keys, widx, np.zeros(w, dt), v.astype(dt), apply=apply)


ALL_ATOMICS = r"""
extern "C" __global__ void all_atomics(int* a, unsigned* u, int* o, int loops) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
  for (int i = 0; i < loops; i++) {
    int* r = o + (size_t)i * 10 * n + t;
    r[0 * n] = atomicAddSCOPE(&a[0], 10);
    r[1 * n] = atomicExchSCOPE(&a[1], (int)t);
    r[2 * n] = atomicMaxSCOPE(&a[2], (int)(t * 7919u % 10007u));
    r[3 * n] = atomicMinSCOPE(&a[3], (int)(t * 7919u % 10007u) - 5000);
    r[4 * n] = (int)atomicIncSCOPE(&u[4], 17u);
    r[5 * n] = (int)atomicDecSCOPE(&u[5], 137u);
    r[6 * n] = atomicCASSCOPE(&a[6], (int)t - 1, (int)t);
    r[7 * n] = atomicAndSCOPE(&a[7], (int)~(1u << (t % 32)));
    r[8 * n] = atomicOrSCOPE(&a[8], 1 << (t % 32));
    r[9 * n] = atomicXorSCOPE(&a[9], (int)t);
  }
}
"""


def _model(n: int, loops: int, a0: list[int]) -> tuple[list[int], list[int]]:
    """The kernel's words and old values with the lanes applied one after another in lane order (32-bit wrap)."""
    a = list(a0)
    old = [0] * (loops * 10 * n)
    def s32(x: int) -> int:
        x &= 0xFFFFFFFF
        return x - (1 << 32) if x >= 1 << 31 else x
    for i in range(loops):
        for op in range(10):
            for t in range(n):
                x = a[op]
                old[(i * 10 + op) * n + t] = x
                hv = t * 7919 % 10007
                ux = x & 0xFFFFFFFF
                a[op] = [s32(x + 10), t, max(x, hv), min(x, hv - 5000),
                         s32(0 if ux >= 17 else ux + 1), s32(137 if ux == 0 or ux > 137 else ux - 1),
                         t if x == t - 1 else x, x & s32(~(1 << (t % 32))), x | s32(1 << (t % 32)), x ^ t][op]
    return a, old


@pytest.mark.parametrize("scope", ["", "_block", "_system"])
def test_sixteen_thousand_lanes_on_ten_words(scope: str, capsys: Any) -> None:
    """16,384 threads each doing add/exch/max/min/inc/dec/CAS/and/or/xor on the same ten words, twice, at device, block
    (``.cta``) or system (``.sys``) scope, give every
    lane the old value of the lane-order model and the model's final words; the launch time is printed."""
    import time

    from simcuda.ptx import Hooks, load

    from .helpers import Mem, nvrtc_ptx, params
    pytest.importorskip("cuda.bindings.nvrtc")
    text = nvrtc_ptx(ALL_ATOMICS.replace("SCOPE", scope))
    assert (".sys." in text) == (scope == "_system") and (".cta." in text) == (scope == "_block")
    mod = load(text)
    n, loops = 16384, 2
    a0 = [5, -1, -7, 9, 3, 200, -1, -1, 0, 12345]
    mem = Mem()
    pa = mem.alloc(np.array(a0, np.int32))
    po = mem.alloc(np.zeros(loops * 10 * n, np.int32))
    t0 = time.perf_counter()
    mod.launch("all_atomics", (n // 256, 1, 1), (256, 1, 1), 0,
               params(("Q", pa), ("Q", pa), ("Q", po), ("i", loops)), mem, Hooks())
    dt = time.perf_counter() - t0
    words, old = _model(n, loops, a0)
    assert mem.get(pa, np.int32, 10).tolist() == words
    assert mem.get(po, np.int32, loops * 10 * n).tolist() == old
    with capsys.disabled():
        print(f"\n16,384 lanes x 10 atomics{scope} x {loops} loops on 10 words: {dt * 1e3:.0f} ms")
