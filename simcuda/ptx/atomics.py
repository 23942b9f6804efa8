"""``atom``/``red``: lanes applied one after another in lane order (lowest lane first), so that duplicates within
one step return the right old values. Every scope (``.cta``/``.gpu``/``.sys``) and ordering is accepted: the lane
set runs in one thread, so every atomic is also sequentially consistent.

Lanes on one word are resolved together (:func:`resolve`: one load and one store per word, scans or closed forms
per op); :func:`reference` is the plain round-by-round definition they are tested against."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from .halves import narrow, widen
from .interface import Unsupported
from .parse import TYPE_SIZES, Ins

_OPS = ("add", "exch", "min", "max", "inc", "dec", "cas", "and", "or", "xor")


def _apply(opn: str, old: Any, v: Any, c: Any) -> Any:
    if opn == "add":
        return old + v
    if opn == "exch":
        return v
    if opn == "min":
        return np.minimum(old, v)
    if opn == "max":
        return np.maximum(old, v)
    if opn == "and":
        return old & v
    if opn == "or":
        return old | v
    if opn == "xor":
        return old ^ v
    if opn == "inc":
        return np.where(old >= v, old.dtype.type(0), old + old.dtype.type(1))
    if opn == "dec":
        return np.where((old == 0) | (old > v), v, old - old.dtype.type(1))
    return np.where(old == v, c, old)  # cas: v = compare, c = new


def half_add(ty: str, old: Any, v: Any) -> Any:
    """``atom.add.noftz`` on f16/bf16 bit patterns (one or two halves of a word): each half added exactly in
    float64 and rounded once to nearest even (f16 by numpy's conversion; bf16 through float32 rounded to odd,
    then to nearest, :func:`simcuda.ptx.halves.narrow`), subnormals kept (``.noftz``)."""
    old = np.asarray(old)
    v = np.asarray(v)
    if ty.endswith("x2"):
        lo = half_add(ty[:-2], (old & np.uint32(0xFFFF)).astype(np.uint16), (v & np.uint32(0xFFFF)).astype(np.uint16))
        hi = half_add(ty[:-2], (old >> np.uint32(16)).astype(np.uint16), (v >> np.uint32(16)).astype(np.uint16))
        return lo.astype(np.uint32) | (hi.astype(np.uint32) << np.uint32(16))
    with np.errstate(all="ignore"):
        if ty == "f16":
            s = old.astype(np.uint16).view(np.float16).astype(np.float64) + \
                v.astype(np.uint16).view(np.float16).astype(np.float64)
            return np.atleast_1d(s.astype(np.float16)).view(np.uint16).reshape(s.shape)
        return narrow(widen(old, True) + widen(v, True), True)


class HalfAdd:
    """The ``apply`` of ``atom.add.noftz`` on f16/bf16 (x2) words: :func:`half_add` of type ``ty``; a class so
    that :func:`resolve` can run one f16 word's lanes as a scalar loop."""

    def __init__(self, ty: str) -> None:
        self.ty = ty

    def __call__(self, _opn: str, old: Any, v: Any, _c: Any) -> Any:
        return half_add(self.ty, old, v)


def _f16_seq(x0: int, v: Any) -> tuple[Any, int]:
    """One f16 word's adds in lane order as a scalar loop (each sum exact in float64, rounded once to f16, as
    :func:`half_add`): the old bit patterns and the final one."""
    ys = v.astype(np.uint16).view(np.float16).astype(np.float64).tolist()
    olds = [0] * len(ys)
    cur = np.uint16(x0).view(np.float16)
    bits = int(x0)
    for i, y in enumerate(ys):
        olds[i] = bits
        cur = np.float16(float(cur) + y)
        bits = int(cur.view(np.uint16))
    return np.asarray(olds, np.uint16), bits


def build_atomic(L: Any, ins: Ins, p: list[str], o: list[str]) -> Any:
    """A closure running one ``atom``/``red`` for the lanes of ``mask``."""
    from .values import _DT
    opn = next((x for x in p[1:] if x in _OPS), None)
    ty = next((x for x in reversed(p) if x in TYPE_SIZES), None)
    if opn is None or ty is None or ("noftz" in p and ty not in ("f16", "bf16", "f16x2", "bf16x2", "f32")):
        raise Unsupported(f"kernel {L.kernel}: {'.'.join(p)} (PTX line {ins.line}) is not supported")
    half = ty in ("f16", "bf16", "f16x2", "bf16x2")
    if half and opn != "add":
        raise Unsupported(f"kernel {L.kernel}: {'.'.join(p)} (PTX line {ins.line}) is not supported")
    dt: Any = np.dtype(_DT[ty if not ty.startswith("b") else "u" + ty[1:]]) if not half else \
        np.dtype(np.uint32 if ty.endswith("x2") else np.uint16)
    space = next((x for x in p if x in ("global", "shared")), "generic")
    is_red = p[0] == "red"
    aop = o[0] if is_red else o[1]
    vals = o[1:] if is_red else o[2:]
    acc = L.mem_access(ins, space, dt, 1, aop)
    gv = L.getter(vals[0], ty if not half else ("b32" if ty.endswith("x2") else "b16"))
    gc = L.getter(vals[1], ty) if opn == "cas" else None
    apply: Any = _apply if not half else HalfAdd(ty)
    setd = None if is_red else L.setter(o[0], ty if not half else ("b32" if ty.endswith("x2") else "b16"))
    n = L.n
    # address of each lane (to find duplicates): reuse the address closure
    sym, base, off = L.address(aop)
    if sym is not None:
        off += L.symbol(sym)
    offu = np.uint64(off % (1 << 64))

    def go(mask: Any) -> None:
        lanes = np.arange(n) if mask is None else np.flatnonzero(mask)
        a = np.broadcast_to(np.asarray(base(), np.uint64) + offu, (n,))[lanes]
        a = _key(L, space, a, lanes)
        v = np.broadcast_to(gv(), (n,))[lanes].astype(dt)
        c = np.broadcast_to(gc(), (n,))[lanes].astype(dt) if gc is not None else None

        def load(idx: np.ndarray) -> Any:
            return _load(acc, lanes[idx], n).astype(dt)

        def store(idx: np.ndarray, vals: Any) -> None:
            _store(acc, lanes[idx], n, vals, dt)
        old_all = resolve(opn, apply, dt, a, v, c, load, store)
        if setd is not None:
            full = np.zeros(n, dt)
            full[lanes] = old_all
            setd(full, mask)
    return go


def reference(opn: str, apply: Any, dt: Any, a: np.ndarray, v: np.ndarray, c: Any, load: Any, store: Any) -> Any:
    """The plain definition of one ``atom`` over lanes ``0 .. len(a)-1`` (lane order): round ``k`` applies the
    ``k``-th lane of every word (one load, ``apply``, one store per round). ``a`` is the word key of each lane,
    ``v``/``c`` its operands, ``load(idx)``/``store(idx, vals)`` read/write the words of lanes ``idx``. Returns the
    old value of each lane. Kept as the reference :func:`resolve` is tested against."""
    old_all = np.zeros(len(a), dt)
    order = np.argsort(a, kind="stable")
    sa = a[order]
    rank = np.arange(len(a)) - np.searchsorted(sa, sa, side="left")
    with np.errstate(all="ignore"):
        for k in range(int(rank.max(initial=-1)) + 1):
            r = order[rank == k]
            old = load(r)
            store(r, apply(opn, old, v[r], c[r] if c is not None else None).astype(dt))
            old_all[r] = old
    return old_all


def resolve(opn: str, apply: Any, dt: Any, a: np.ndarray, v: np.ndarray, c: Any, load: Any, store: Any) -> Any:
    """The same answer as :func:`reference` (each lane's old value as if the lanes ran one after another in lane
    order), computed per word group with one load and one store per word: integer add and xor by prefix scans,
    exch by a shift, inc/dec with one bound per word in closed form, and/or/min/max and float add by an in-order
    ``ufunc.accumulate`` per word (sequential left to right, so float sums round as in lane order), CAS by chasing
    the successful swaps. With many words and few lanes each, the rounds of :func:`reference` run on the loaded
    values instead (no memory traffic per round). Returns the old value of each lane."""
    m = len(a)
    if m == 0:
        return np.zeros(0, dt)
    order = np.argsort(a, kind="stable")
    sa = a[order]
    brk = np.r_[True, sa[1:] != sa[:-1]]
    starts = np.flatnonzero(brk)
    counts = np.diff(np.r_[starts, m])
    ends = starts + counts - 1
    gid = np.cumsum(brk) - 1
    sv = v[order]
    sc = c[order] if c is not None else None
    base = np.asarray(load(order[starts])).astype(dt)
    with np.errstate(all="ignore"):
        old_s, final = _scan(opn, apply, dt, base, sv, sc, starts, counts, ends, gid)
    store(order[starts], np.asarray(final).astype(dt))
    old = np.empty(m, dt)
    old[order] = old_s
    return old


def _scan(opn: str, apply: Any, dt: Any, base: Any, sv: Any, sc: Any, starts: Any, counts: Any, ends: Any,
          gid: Any) -> tuple[Any, Any]:
    """Old values (in group-sorted order) and the final word of each group; see :func:`resolve`."""
    m, g = len(sv), len(starts)
    if g == m:
        return base, apply(opn, base, sv, sc).astype(dt)
    if opn == "exch":
        old = np.empty(m, dt)
        old[1:] = sv[:-1]
        old[starts] = base
        return old, sv[ends]
    if opn in ("add", "xor") and apply is _apply and dt.kind in "iu":
        f = np.add if opn == "add" else np.bitwise_xor
        inv = np.subtract if opn == "add" else np.bitwise_xor
        cs = f.accumulate(sv, dtype=dt)
        before = np.where(starts > 0, cs[np.maximum(starts - 1, 0)], dt.type(0))
        old = f(base[gid], inv(inv(cs, sv), before[gid])).astype(dt)
        return old, f(old[ends], sv[ends]).astype(dt)
    if opn in ("inc", "dec") and dt.kind == "u" and dt.itemsize <= 4 and np.array_equal(sv, sv[starts][gid]):
        return _wrap(opn, dt, base, sv[starts], counts, gid, np.arange(m) - starts[gid])
    old = np.empty(m, dt)
    final = base.copy()
    # words with many lanes (at most sqrt(m) of them) one by one where a word's lanes have a fast sequence, the
    # rest in rounds across words (fewer than sqrt(m) rounds): about 2 sqrt(m) numpy steps in all
    fast = (apply is _apply and (opn in _UFUNCS or opn == "cas")) or \
        (isinstance(apply, HalfAdd) and apply.ty in ("f16", "f16x2"))
    big = np.flatnonzero(counts > math.isqrt(m)) if fast else np.zeros(0, np.int64)
    for k in big.tolist():
        s, e = int(starts[k]), int(ends[k]) + 1
        old[s:e], final[k] = _seq(opn, apply, dt, base[k], sv[s:e], sc[s:e] if sc is not None else None)
    rest = np.setdiff1d(np.arange(g), big, assume_unique=True)
    if len(rest):
        final[rest] = _rounds(opn, apply, dt, base[rest], sv, sc, starts[rest], counts[rest], old)
    return old, final


def _wrap(opn: str, dt: Any, base: Any, b: Any, counts: Any, gid: Any, j: Any) -> tuple[Any, Any]:
    """``atom.inc``/``atom.dec`` with one bound ``b`` per group in closed form: from ``x <= b`` the word steps by
    one modulo ``b + 1`` (inc: ``x >= b ? 0 : x + 1``; dec: ``x == 0 || x > b ? b : x - 1``); from ``x > b`` the
    first step goes to 0 (inc) or ``b`` (dec)."""
    def after(x0: Any, bb: Any, k: Any) -> Any:
        x0, bb, k = x0.astype(np.int64), bb.astype(np.int64), np.asarray(k, np.int64)
        mod = bb + 1
        sign = 1 if opn == "inc" else -1
        inside = (x0 + sign * k) % mod
        start = 0 if opn == "inc" else bb
        outside = np.where(k == 0, x0, (start + sign * (k - 1)) % mod)
        return np.where(x0 <= bb, inside, outside).astype(dt)
    return after(base[gid], b[gid], j), after(base, b, counts)


def _seq(opn: str, apply: Any, dt: Any, x0: Any, v: Any, c: Any) -> tuple[Any, Any]:
    """One word's lanes in order from ``x0``: the old values and the final word."""
    if apply is _apply and opn in _UFUNCS:
        cum = _UFUNCS[opn].accumulate(np.r_[np.asarray([x0], dt), v], dtype=dt)
        return cum[:-1], cum[-1]
    if opn == "cas" and apply is _apply:
        return _cas_chain(dt, x0, v, c)
    if isinstance(apply, HalfAdd) and apply.ty in ("f16", "f16x2"):
        if apply.ty == "f16":
            return _f16_seq(int(x0), v)
        lo, flo = _f16_seq(int(x0) & 0xFFFF, v & np.uint32(0xFFFF))
        hi, fhi = _f16_seq(int(x0) >> 16, v >> np.uint32(16))
        return lo.astype(np.uint32) | (hi.astype(np.uint32) << np.uint32(16)), flo | (fhi << 16)
    cur = np.asarray([x0], dt)
    old = np.empty(len(v), dt)
    for i in range(len(v)):
        old[i] = cur[0]
        cur = np.asarray(apply(opn, cur, v[i:i + 1], c[i:i + 1] if c is not None else None)).astype(dt)
    return old, cur[0]


_UFUNCS: dict[str, Any] = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and,
                           "or": np.bitwise_or, "xor": np.bitwise_xor}


def _cas_chain(dt: Any, x0: Any, cmp: Any, new: Any) -> tuple[Any, Any]:
    """One word's ``atom.cas`` lanes in order from ``x0``: only lanes with ``cmp == word`` and ``new != cmp``
    change the word, and after such a lane at ``j`` the next one is the first ``j' > j`` with ``cmp[j'] == new[j]``;
    those links are found by one sort, then followed (one step per successful swap)."""
    m = len(cmp)
    eff = np.flatnonzero(new != cmp)
    if len(eff) == 0:
        return np.full(m, x0, dt), x0
    perm = np.argsort(cmp[eff], kind="stable")
    vals, idx = cmp[eff][perm], eff[perm]
    blk = np.searchsorted(vals, vals, side="left").astype(np.int64)
    key = blk * (m + 1) + idx

    def first_after(x: Any, j: Any) -> Any:
        """Per query: the first effective lane after ``j`` whose compare value is ``x``, or -1."""
        x = np.asarray(x, dt)
        lo = np.searchsorted(vals, x, side="left")
        hi = np.searchsorted(vals, x, side="right")
        p = np.searchsorted(key, lo.astype(np.int64) * (m + 1) + np.asarray(j, np.int64) + 1, side="left")
        ok = p < hi
        return np.where(ok, idx[np.minimum(p, len(idx) - 1)], -1)
    nxt = np.full(m, -1, np.int64)
    nxt[eff] = first_after(new[eff], eff)
    succ = []
    q = int(first_after(np.asarray([x0], dt), np.asarray([-1]))[0])
    nl = nxt.tolist()
    while q >= 0:
        succ.append(q)
        q = nl[q]
    s = np.asarray(succ, np.int64)
    before = np.zeros(m + 1, np.int64)
    before[s + 1] = 1
    vals_seen = np.r_[np.asarray([x0], dt), new[s]]
    return vals_seen[np.cumsum(before)[:m]], vals_seen[-1]


def _rounds(opn: str, apply: Any, dt: Any, base: Any, sv: Any, sc: Any, starts: Any, counts: Any, old: Any) -> Any:
    """The rounds of :func:`reference` on the loaded words (round ``k``: the ``k``-th lane of every group given by
    ``starts``/``counts``), old values written into ``old``; returns those groups' final words."""
    cur = base.copy()
    for k in range(int(counts.max())):
        gs = np.flatnonzero(counts > k)
        i = starts[gs] + k
        old[i] = cur[gs]
        cur[gs] = apply(opn, cur[gs], sv[i], sc[i] if sc is not None else None).astype(dt)
    return cur


def _key(L: Any, space: str, a: np.ndarray, lanes: np.ndarray) -> Any:
    """A key per lane naming the memory word: shared and local addresses are per block / per lane, so the same
    offset in two blocks is two words."""
    from .values import LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE
    if space == "shared":
        return a + (L.shbase[lanes].astype(np.uint64) << np.uint64(20)) + np.uint64(SHARED_WINDOW)
    if space == "generic":
        sh = (a >= np.uint64(SHARED_WINDOW)) & (a < np.uint64(SHARED_WINDOW + WINDOW_SIZE))
        lo = (a >= np.uint64(LOCAL_WINDOW)) & (a < np.uint64(LOCAL_WINDOW + WINDOW_SIZE))
        if sh.any() or lo.any():
            a = a.copy()
            a[sh] += L.shbase[lanes][sh].astype(np.uint64) << np.uint64(20)
            a[lo] += L.lbase[lanes][lo].astype(np.uint64) << np.uint64(20)
    return a


def _load(acc: Any, lanes: np.ndarray, n: int) -> Any:
    m = np.zeros(n, bool)
    m[lanes] = True
    srt = np.argsort(lanes, kind="stable")
    out = np.asarray(acc(m, None)[0])
    res = np.empty_like(out)
    res[srt] = out
    return res


def _store(acc: Any, lanes: np.ndarray, n: int, vals: Any, dt: Any) -> None:
    m = np.zeros(n, bool)
    m[lanes] = True
    full = np.zeros(n, dt)
    full[lanes] = vals
    acc(m, [full])
