"""``atom``/``red``: lanes applied one after another in lane order (lowest lane first), so that duplicates within
one step return the right old values. Every scope (``.cta``/``.gpu``/``.sys``) and ordering is accepted: the lane
set runs in one thread, so every atomic is also sequentially consistent."""
from __future__ import annotations

from typing import Any

import numpy as np

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
    then to nearest), subnormals kept (``.noftz``)."""
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
        def f(x: Any) -> Any:
            return (x.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
        s = np.atleast_1d(f(old) + f(v))
        r = s.astype(np.float32)
        bits = r.view(np.uint32).copy()
        inexact = (r.astype(np.float64) != s) & np.isfinite(s)
        # round to odd: the truncation toward zero with its last bit set
        toward = np.abs(r.astype(np.float64)) > np.abs(s)
        bits = np.where(inexact & toward, bits - np.uint32(1), bits)
        bits = np.where(inexact, bits | np.uint32(1), bits).astype(np.uint64)
        rb = (bits + np.uint64(0x7FFF) + ((bits >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16)
        rb = np.where(np.isnan(s), np.uint64(0x7FFF), rb)
        return rb.astype(np.uint16).reshape(np.shape(f(old) + f(v)))


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
    apply: Any = _apply if not half else (lambda _op, old, v, _c: half_add(ty, old, v))
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
        old_all = np.zeros(len(lanes), dt)
        uniq, _first, counts = np.unique(a, return_index=True, return_counts=True)
        if len(uniq) == len(a):
            rounds = [np.arange(len(a))]
        elif half:
            order = np.argsort(a, kind="stable")
            first = np.searchsorted(a[order], a[order], side="left")
            rounds = [order[(np.arange(len(a)) - first) == k] for k in range(int(counts.max()))]
        elif opn == "add" and dt.kind in "iu":
            rounds = None
        elif opn in ("add", "min", "max") and len(uniq) <= 64:
            # few words, many lanes each (a float sum into one word): one sequential accumulate per word
            f = {"add": np.add, "min": np.minimum, "max": np.maximum}[opn]
            for addr in uniq:
                r = np.flatnonzero(a == addr)
                base_old = _load(acc, lanes[r[:1]], n)
                with np.errstate(all="ignore"):
                    cum = f.accumulate(np.concatenate([base_old.astype(dt), v[r]]), dtype=dt)
                old_all[r] = cum[:-1]
                _store(acc, lanes[r[:1]], n, cum[-1:], dt)
            rounds = []
        else:
            order = np.argsort(a, kind="stable")
            sa = a[order]
            start = np.searchsorted(sa, sa, side="left")
            rank = np.arange(len(a)) - start
            rounds = [order[rank == k] for k in range(int(counts.max()))]
        with np.errstate(all="ignore"):
            if rounds is None:  # integer add with duplicates: exclusive prefix sums per address
                order = np.argsort(a, kind="stable")
                sa, sv = a[order], v[order]
                cs = np.cumsum(sv, dtype=dt)
                start = np.searchsorted(sa, sa, side="left")
                before = np.where(start > 0, cs[np.maximum(start - 1, 0)], dt.type(0))
                excl = cs - sv - before
                last = np.r_[sa[1:] != sa[:-1], True]
                base_old = _load(acc, lanes[order[last]], n)
                old_by_group = np.repeat(base_old, np.diff(np.r_[np.flatnonzero(np.r_[True, sa[1:] != sa[:-1]]),
                                                                    len(sa)]))
                old_sorted = old_by_group + excl
                _store(acc, lanes[order[last]], n, old_sorted[last] + sv[last], dt)
                old_all[order] = old_sorted
            else:
                for r in rounds:
                    ln = lanes[r]
                    old = _load(acc, ln, n)
                    new = apply(opn, old, v[r], c[r] if c is not None else None).astype(dt)
                    _store(acc, ln, n, new, dt)
                    old_all[r] = old
        if setd is not None:
            full = np.zeros(n, dt)
            full[lanes] = old_all
            setd(full, mask)
    return go


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
