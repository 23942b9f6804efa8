"""Pre-decoding of PTX instructions into closures over numpy operations (one per instruction, per launch).

Why this file is long (over ~700 lines): it is one pre-decoder per PTX instruction family, each a table of small
closures.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .halves import OPS as HALF_OPS
from .halves import PACKED
from .halves import build as build_halves
from .interface import Unsupported
from .parse import TYPE_SIZES, Ins

_BIN: dict[str, Any] = {"add": np.add, "sub": np.subtract, "and": np.bitwise_and, "or": np.bitwise_or,
                        "xor": np.bitwise_xor, "min": np.minimum, "max": np.maximum, "copysign": None}
_CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
        "ge": np.greater_equal, "lo": np.less, "ls": np.less_equal, "hi": np.greater, "hs": np.greater_equal}
_WIDE = {"s16": np.int32, "u16": np.uint32, "s32": np.int64, "u32": np.uint64}


def _float_minmax(op: str, nan: bool, ty: str, a: Any, b: Any, s: Any) -> Any:
    """``min``/``max`` on floats as the PTX ISA defines them: a NaN operand yields the other operand, two NaNs
    (or any NaN with ``.NaN``) the canonical NaN (``0x7fffffff`` for f32)."""
    f = (np.minimum if nan else np.fmin) if op == "min" else (np.maximum if nan else np.fmax)
    canon = np.array(0x7FFFFFFF, np.uint32).view(np.float32) if ty == "f32" else np.float64("nan")

    def run(mask: Any) -> None:
        with np.errstate(invalid="ignore"):
            r = f(a(), b())
        s(np.where(np.isnan(r), canon, r), mask)
    return run


def _t(parts: list[str]) -> str:
    for p in reversed(parts):
        if p in TYPE_SIZES:
            return p
    return "b32"


def _dt(ty: str) -> Any:
    from .values import _DT
    return np.dtype(_DT[ty])


def compile_ins(L: Any, ins: Ins, labels: dict[str, int]) -> tuple[int, Any]:
    """See :meth:`simcuda.ptx.engine._Launch.compile`."""
    from .values import _REFUSED
    p = ins.parts
    op = p[0]
    full = ".".join(p)
    for r in _REFUSED:
        if full == r or full.startswith(r + "."):
            raise Unsupported(f"kernel {L.kernel}: instruction {full} (PTX line {ins.line}) is not supported by "
                              f"the simulator's engine (textures, surfaces, tensor-core, TMA and cluster "
                              f"instructions are refused)")
    o = ins.ops
    guard = None
    if ins.guard is not None:
        gname, neg = ins.guard
        g0 = L.getter(gname, "pred")
        guard = (lambda: ~g0()) if neg else g0
    if "ftz" in p and op != "cvt" and "f32" in p:
        kind, fn = _build(_Ftz(L), ins, op, p, o, labels)
    else:
        kind, fn = _build(L, ins, op, p, o, labels)
    if kind in (5, 6) and guard is not None:
        call = fn

        def guarded_call(mask: Any, pcs: Any, pc: int) -> None:
            g = np.broadcast_to(guard(), mask.shape)
            pcs[mask & ~g] = pc + 1
            if (mask & g).any():
                call(mask & g, pcs, pc)
        return kind, guarded_call
    if kind == 0 and guard is not None:
        inner = fn

        def guarded(mask: Any) -> None:
            g = guard()
            m = g if mask is None else (mask & g)
            if m.any():
                inner(m)
        return 0, guarded
    if kind == 1:
        return 1, (fn, guard)
    if kind == 2 and guard is not None:
        return 4, guard
    return kind, fn


class _Ftz:
    """The launch as an instruction with ``.ftz`` sees it: its f32 operands are read, and its f32 results
    written, with subnormals flushed to a zero of the same sign (PTX ISA: ``.ftz`` flushes subnormal inputs
    and results); everything else is the launch's."""

    def __init__(self, L: Any) -> None:
        self._L = L

    def __getattr__(self, name: str) -> Any:
        return getattr(self._L, name)

    def getter(self, op: str, ty: str) -> Any:
        g = self._L.getter(op, ty)
        if ty != "f32":
            return g
        return lambda: flush32(g())

    def setter(self, op: str, ty: str) -> Any:
        st = self._L.setter(op, ty)
        if ty != "f32":
            return st
        return lambda val, mask: st(flush32(val), mask)


def _build(L: Any, ins: Ins, op: str, p: list[str], o: list[str], labels: dict[str, int]) -> tuple[int, Any]:
    ty = _t(p)
    if ty in ("f32", "f64") and op in _DIRECTED_OPS and ("rz" in p or "rm" in p or "rp" in p):
        return 0, _directed(L, op, o, ty, next(x for x in p if x in ("rz", "rm", "rp")))
    if op == "__call":
        from .calls import build_realcall
        return 5, build_realcall(L, ins, o)
    if op == "__segret":
        from .calls import build_segret
        return 6, build_segret(L, ins)
    if op == "bra":
        if o[0] not in labels:
            raise Unsupported(f"kernel {L.kernel}: branch target {o[0]} unknown (PTX line {ins.line})")
        return 1, labels[o[0]]
    if op in ("ret", "exit"):
        return 2, None
    if op in ("bar", "barrier", "membar", "fence") or full_is(p, "bar.warp.sync") or op == "griddepcontrol":
        if op in ("bar", "barrier") and len(p) > 1 and p[1] == "red":
            return 0, _bar_red(L, ins, p, o)
        return 3, None
    if op == "trap":
        def trap(mask: Any) -> None:
            raise L.where(ins, mask, None, 719, "trap")
        return 0, trap
    if op in ("ld", "ldu", "st"):
        return 0, _ldst(L, ins, p, o)
    if op == "mov":
        if "v2" in p or "v4" in p:  # element by element
            k = 4 if "v4" in p else 2
            pairs = [(L.setter(d, ty), L.getter(x, ty)) for d, x in zip(L.elements(o[0], k), L.elements(o[1], k))]

            def movv(mask: Any) -> None:
                vals = [g() for _, g in pairs]
                for (st, _), v in zip(pairs, vals):
                    st(v, mask)
            return 0, movv
        if o[1].startswith("{") or o[0].startswith("{"):
            return 0, _mov_vec(L, o, ty)
        src = o[1]
        if src in L.shared_layout or src in L.local_layout or src in L.variables:
            v = np.array(L.symbol(src)).astype(_dt(ty))

            def g() -> Any:
                return v
        else:
            g = L.getter(src, ty)
        s = L.setter(o[0], ty)
        return 0, lambda mask: s(g(), mask)
    if op == "cvta":
        from .values import LOCAL_WINDOW, PARAM_WINDOW, SHARED_WINDOW, WINDOW_SIZE
        to = "to" in p
        space = next(x for x in p if x in ("shared", "local", "global", "const", "param"))
        win = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW}.get(space, 0)
        g = L.getter(o[1], "u64")
        s = L.setter(o[0], ty)
        w = np.uint64(win)
        dt = _dt(ty)
        if space == "param":
            # a kernel parameter's .param address is already its generic one (PARAM_WINDOW); a function's
            # .param variable lives in local memory, so it moves to and from the local window [I]
            pw, lw, ws = np.uint64(PARAM_WINDOW), np.uint64(LOCAL_WINDOW), np.uint64(WINDOW_SIZE)

            def cvta_param(mask: Any) -> None:
                x = np.asarray(g(), np.uint64)
                kp = (x >= pw) & (x < pw + ws)
                if to:
                    r = np.where((x >= lw) & (x < lw + ws), x - lw, x)
                else:
                    r = np.where(kp, x, x + lw)
                s(r.astype(dt), mask)
            return 0, cvta_param
        if win == 0:
            return 0, lambda mask: s(g(), mask)
        if to:
            return 0, lambda mask: s((np.asarray(g(), np.uint64) - w).astype(dt), mask)
        return 0, lambda mask: s(np.asarray(g(), np.uint64) + w, mask)
    if ty in PACKED and op in HALF_OPS:  # bf16, f16x2, bf16x2: registers of bits, element-wise float arithmetic
        return 0, build_halves(L, op, p, o, ty)
    if op in ("addc", "subc", "madc") or (op in ("add", "sub", "mad") and "cc" in p):
        return 0, _carry(L, op, p, o, ty)
    if op in ("bfe", "bfi", "lop3", "shf", "testp", "copysign", "slct", "mbarrier", "bfind"):
        from .more import build_more
        return 0, build_more(L, ins, op, p, o, ty)
    if op in ("add", "sub", "and", "or", "xor", "min", "max") and "cc" not in p:
        f = _BIN[op]
        a, b = L.getter(o[1], ty), L.getter(o[2], ty)
        s = L.setter(o[0], ty)
        if "sat" in p and ty == "s32":
            def sat(mask: Any) -> None:
                r = f(np.asarray(a(), np.int64), np.asarray(b(), np.int64))
                s(np.clip(r, -2 ** 31, 2 ** 31 - 1).astype(np.int32), mask)
            return 0, sat
        if op in ("min", "max") and ty in ("f32", "f64"):
            return 0, _float_minmax(op, "NaN" in p, ty, a, b, s)
        return 0, lambda mask: s(f(a(), b()), mask)
    if op in ("mul", "mad"):
        return 0, _mul(L, ins, op, p, o, ty)
    if op == "fma":
        from .values import fma_f32, fma_f64
        a, b, c = (L.getter(x, ty) for x in o[1:4])
        s = L.setter(o[0], ty)
        ff: Any = fma_f32 if ty == "f32" else fma_f64
        return 0, lambda mask: s(ff(a(), b(), c()), mask)
    if op in ("div", "rem"):
        a, b = L.getter(o[1], ty), L.getter(o[2], ty)
        s = L.setter(o[0], ty)
        if ty.startswith("f"):
            return 0, lambda mask: s(_fdiv(a(), b()), mask)
        return 0, lambda mask: s(_idiv(a(), b(), op, ty), mask)
    if op in ("neg", "abs", "not", "cnot", "popc", "clz", "brev", "sqrt", "rsqrt", "rcp", "sin", "cos", "lg2",
              "ex2", "tanh"):
        return 0, _unary(L, op, o, ty)
    if op in ("shl", "shr"):
        a = L.getter(o[1], ty)
        b = L.getter(o[2], "u32")
        s = L.setter(o[0], ty)
        bits = _dt(ty).itemsize * 8
        signed = ty.startswith("s")
        dt = _dt(ty)

        def shift(mask: Any) -> None:
            x = np.asarray(a())
            k = np.minimum(np.asarray(b(), np.uint32), bits).astype(dt)
            if op == "shl":
                r = np.where(k >= bits, dt.type(0), np.left_shift(x, np.minimum(k, bits - 1).astype(dt)))
            else:
                km = np.minimum(k, bits - 1).astype(dt)
                r = np.right_shift(x, km)
                if not signed:
                    r = np.where(k >= bits, dt.type(0), r)
            s(r.astype(dt), mask)
        return 0, shift
    if op == "setp":
        return 0, _setp(L, p, o, ty)
    if op == "set":
        return 0, _set(L, ins, p, o)
    if op == "selp":
        a, b = L.getter(o[1], ty), L.getter(o[2], ty)
        c = L.getter(o[3], "pred")
        s = L.setter(o[0], ty)
        return 0, lambda mask: s(np.where(c(), a(), b()), mask)
    if op == "cvt":
        return 0, _cvt(L, p, o)
    if op in ("atom", "red"):
        from .atomics import build_atomic
        return 0, build_atomic(L, ins, p, o)
    if op in ("shfl", "vote", "activemask", "redux", "match"):
        from .warp import build_warp
        return 0, build_warp(L, ins, p, o)
    if op == "call":
        from .calls import build_call
        return build_call(L, ins, o)
    if op == "prmt":
        return 0, _prmt(L, p, o)
    if op == "cp" and len(p) > 1 and p[1] == "async":
        if len(p) > 2 and p[2] in ("commit_group", "wait_group", "wait_all"):
            return 3, None
        if len(p) > 2 and p[2] in ("ca", "cg"):
            return 0, _cp_async(L, ins, o)
        if len(p) > 2 and p[2] == "mbarrier":
            # the copies this thread issued are complete already: the implicit pending-count increment and
            # the arrival cancel out; with .noinc only the arrival remains
            if "noinc" not in p:
                return 3, None
            from .more import build_more
            sp = "shared" if any(x.startswith("shared") for x in p) else "generic"
            return 0, build_more(L, ins, "mbarrier", ["mbarrier", "arrive", sp, "b64"], ["_", o[0]], "b64")
    if op in ("nop", "pmevent", "nanosleep"):
        return 3, None
    raise Unsupported(f"kernel {L.kernel}: instruction {'.'.join(p)} (PTX line {ins.line}) is not supported yet")


_DIRECTED_OPS = ("add", "sub", "mul", "fma", "mad", "div", "sqrt", "rcp")


def _two_sum(x: Any, y: Any) -> tuple[Any, Any]:
    s = x + y
    bp = s - x
    return s, (x - (s - bp)) + (y - bp)


def _directed(L: Any, op: str, o: list[str], ty: str, rnd: str) -> Any:
    """``add sub mul fma mad div sqrt rcp`` with ``.rz``/``.rm``/``.rp``: the exact result is held as a float64
    pair ``s + e`` (TwoSum, TwoProduct, or the sign of an exact residual from the correctly rounded
    :func:`~simcuda.ptx.values.fma_f64` for ``div``/``sqrt``/``rcp``), rounded to nearest in the destination
    type and stepped one ulp where that lies on the wrong side (``fma.f64``: exactly, in rationals)."""
    from .values import _split, fma_f64
    srcs = [L.getter(x, ty) for x in o[1:]]
    s_ = L.setter(o[0], ty)
    dt = _dt(ty)

    def exact_pair(v: list[Any]) -> tuple[Any, Any]:
        a = [np.asarray(x, np.float64) for x in v]
        if op == "add":
            return _two_sum(a[0], a[1])
        if op == "sub":
            return _two_sum(a[0], -a[1])
        if op == "mul":
            p = a[0] * a[1]
            if ty == "f32":
                return p, np.zeros_like(p)
            ah, al = _split(a[0])
            bh, bl = _split(a[1])
            return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl
        if op in ("fma", "mad"):
            p = a[0] * a[1]  # exact for f32 operands
            return _two_sum(p, a[2])
        if op in ("div", "rcp"):
            num, den = (a[0], a[1]) if op == "div" else (np.ones_like(a[0]), a[0])
            q = num / den
            return q, np.sign(fma_f64(-q, den, num)) * np.sign(den)
        r = np.sqrt(a[0])
        return r, -np.sign(fma_f64(r, r, -a[0]))

    def go(mask: Any) -> None:
        v = [g() for g in srcs]
        with np.errstate(all="ignore"):
            if ty == "f64" and op in ("fma", "mad"):
                r = _fma64_directed(v, rnd)
            else:
                s, e = exact_pair(v)
                r = np.asarray(s).astype(dt)
                r64 = r.astype(np.float64)
                finite = np.isfinite(s) & np.isfinite(e)
                above = finite & ((r64 > s) | ((r64 == s) & (e < 0)))
                below = finite & ((r64 < s) | ((r64 == s) & (e > 0)))
                inf = dt.type(np.inf)
                if rnd == "rz":
                    r = np.where(above & (r > 0) | below & (r < 0), np.nextafter(r, dt.type(0)), r)
                elif rnd == "rm":
                    r = np.where(above, np.nextafter(r, -inf), r)
                else:
                    r = np.where(below, np.nextafter(r, inf), r)
        s_(np.asarray(r).astype(dt), mask)
    return go


def _fma64_directed(v: list[Any], rnd: str) -> Any:
    """``fma.rz/rm/rp.f64`` lane by lane in rationals (a rare form)."""
    import math
    from fractions import Fraction
    a, b, c = np.broadcast_arrays(*[np.asarray(x, np.float64) for x in v])
    out = np.empty(a.shape, np.float64)
    for k in np.ndindex(a.shape):
        x, y, z = float(a[k]), float(b[k]), float(c[k])
        if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
            out[k] = x * y + z
            continue
        q = Fraction(x) * Fraction(y) + Fraction(z)
        try:
            r = float(q)
        except OverflowError:
            r = math.inf if q > 0 else -math.inf
        above = r == math.inf or (math.isfinite(r) and Fraction(r) > q)
        below = r == -math.inf or (math.isfinite(r) and Fraction(r) < q)
        if above and (rnd == "rm" or (rnd == "rz" and r > 0)):
            r = math.nextafter(r, -math.inf)
        elif below and (rnd == "rp" or (rnd == "rz" and r < 0)):
            r = math.nextafter(r, math.inf)
        out[k] = r
    return out if out.ndim else out[()]


def full_is(p: list[str], s: str) -> bool:
    """Whether the opcode's parts ``p`` spell a form starting with ``s`` (``bar.warp.sync``...)."""
    return ".".join(p).startswith(s)


def _bar_red(L: Any, ins: Ins, p: list[str], o: list[str]) -> Any:
    kind = p[2]
    s = L.setter(o[0], "u32" if kind == "popc" else "pred")
    c = L.getter(o[-1], "pred")

    def red(mask: Any) -> None:
        v = np.broadcast_to(c(), (L.n,)) & (L.alive0 if mask is None else mask)
        per = v.reshape(len(L.blocks), L.tpb)
        act = (L.alive0 if mask is None else mask).reshape(len(L.blocks), L.tpb)
        if kind == "popc":
            r = per.sum(axis=1).astype(np.uint32)
        elif kind == "and":
            r = (per | ~act).all(axis=1)
        else:
            r = per.any(axis=1)
        s(np.repeat(r, L.tpb), mask)
    return red


def _ldst(L: Any, ins: Ins, p: list[str], o: list[str]) -> Any:
    ty = _t(p)
    space = next((x for x in p if x in ("global", "shared", "local", "const", "param")), "generic")
    vec = 4 if "v4" in p else 2 if "v2" in p else 1
    dt = _dt(ty)
    if p[0] == "st":
        acc = L.mem_access(ins, space, dt, vec, o[0])
        src = L.elements(o[1], vec) if vec > 1 else [o[1]]
        gets = [L.getter(x.strip(), ty) for x in src]
        return lambda mask: acc(mask, [g() for g in gets])
    acc = L.mem_access(ins, space, dt, vec, o[1])
    dst = L.elements(o[0], vec) if vec > 1 else [o[0]]
    sets = [L.setter(x.strip(), ty) if x.strip() != "_" else None for x in dst]
    n = L.n

    def ld(mask: Any) -> None:
        vals = acc(mask, None)
        for s, v in zip(sets, vals):
            if s is None:
                continue
            if mask is None or np.ndim(v) == 0:
                s(v, mask)
            else:
                full = np.zeros(n, dtype=dt)
                full[mask] = v
                s(full, mask)
    return ld


def _mul(L: Any, ins: Ins, op: str, p: list[str], o: list[str], ty: str) -> Any:
    a, b = L.getter(o[1], ty), L.getter(o[2], ty)
    c = None
    if op == "mad":
        c = L.getter(o[3], _WIDE_T.get(ty, ty) if "wide" in p else ty)
    if ty.startswith("f"):
        from .values import fma_f32, fma_f64
        s = L.setter(o[0], ty)
        if c is None:
            return lambda mask: s(a() * b(), mask)
        fm: Any = fma_f32 if ty == "f32" else fma_f64
        return lambda mask: s(fm(a(), b(), c()), mask)
    if "wide" in p:
        wt = _WIDE_T[ty]
        wd = _WIDE[ty]
        s = L.setter(o[0], wt)
        if c is None:
            return lambda mask: s(np.asarray(a()).astype(wd) * np.asarray(b()).astype(wd), mask)
        return lambda mask: s(np.asarray(a()).astype(wd) * np.asarray(b()).astype(wd) + c(), mask)
    s = L.setter(o[0], ty)
    if "hi" in p:
        bits = _dt(ty).itemsize * 8
        signed = ty.startswith("s")

        def hi(mask: Any) -> None:
            if bits < 64:
                w = np.int64 if signed else np.uint64
                r = (np.asarray(a()).astype(w) * np.asarray(b()).astype(w)) >> bits
            else:
                r = _mulhi64(np.asarray(a()), np.asarray(b()), signed)
            r = np.asarray(r).astype(_dt(ty))
            s(r if c is None else r + c(), mask)
        return hi
    if c is None:
        return lambda mask: s(a() * b(), mask)
    return lambda mask: s(a() * b() + c(), mask)


_WIDE_T = {"s16": "s32", "u16": "u32", "s32": "s64", "u32": "u64"}


def _mulhi64(a: Any, b: Any, signed: bool) -> Any:
    au = np.asarray(a).view(np.uint64) if np.ndim(a) else np.uint64(np.int64(a).view(np.uint64))
    bu = np.asarray(b).view(np.uint64) if np.ndim(b) else np.uint64(np.int64(b).view(np.uint64))
    m = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    a0, a1 = au & m, au >> s32
    b0, b1 = bu & m, bu >> s32
    lo = a0 * b0
    t = a1 * b0 + (lo >> s32)
    w1 = (t & m) + a0 * b1
    hi = a1 * b1 + (t >> s32) + (w1 >> s32)
    if signed:
        hi = hi - np.where(np.asarray(a).astype(np.int64) < 0, bu, np.uint64(0)) \
            - np.where(np.asarray(b).astype(np.int64) < 0, au, np.uint64(0))
        return hi.view(np.int64)
    return hi


def _fdiv(a: Any, b: Any) -> Any:
    with np.errstate(all="ignore"):
        return np.divide(a, b)


def _idiv(a: Any, b: Any, op: str, ty: str) -> Any:
    a = np.asarray(a)
    b = np.asarray(b)
    dt = _dt(ty)
    bz = b == 0
    bb = np.where(bz, dt.type(1), b)
    with np.errstate(all="ignore"):
        if ty.startswith("s"):
            q = (np.abs(a.astype(np.int64) if dt.itemsize < 8 else a) //
                 np.abs(bb.astype(np.int64) if dt.itemsize < 8 else bb))
            neg = (a < 0) ^ (bb < 0)
            q = np.where(neg, -q, q)
            if op == "div":
                return np.where(bz, dt.type(-1), q.astype(dt))
            r = a - (q * bb).astype(dt)
            return np.where(bz, a, r)
        if op == "div":
            return np.where(bz, ~dt.type(0), a // bb)
        return np.where(bz, a, a % bb)


def _unary(L: Any, op: str, o: list[str], ty: str) -> Any:
    a = L.getter(o[1], ty)
    s = L.setter(o[0], "u32" if op in ("popc", "clz") else ty)
    dt = _dt(ty)
    bits = dt.itemsize * 8

    def go(mask: Any) -> None:
        x = np.asarray(a())
        with np.errstate(all="ignore"):
            if op == "neg":
                r = -x
            elif op == "abs":
                r = np.abs(x)
            elif op == "not":
                r = ~x
            elif op == "cnot":
                r = (x == 0).astype(dt)
            elif op == "popc":
                u = x.astype(np.uint64) if bits == 64 else x.view(np.uint64 if False else x.dtype).astype(np.uint64)
                r = np.zeros(u.shape, np.uint32)
                for _ in range(bits):
                    r += (u & np.uint64(1)).astype(np.uint32)
                    u = u >> np.uint64(1)
            elif op == "clz":
                u = x.astype(np.uint64) if dt.kind == "u" else x.astype(_UNSIGNED[bits]).astype(np.uint64)
                r = np.full(u.shape, bits, np.uint32)
                for k in range(bits):
                    r = np.where((r == bits) & ((u >> np.uint64(bits - 1 - k)) & np.uint64(1) == 1),
                                 np.uint32(k), r)
            elif op == "brev":
                u = x.astype(np.uint64)
                r = np.zeros(u.shape, np.uint64)
                for k in range(bits):
                    r |= ((u >> np.uint64(k)) & np.uint64(1)) << np.uint64(bits - 1 - k)
                r = r.astype(dt)
            elif op == "sqrt":
                r = np.sqrt(x)
            elif op == "rsqrt":
                r = (1 / np.sqrt(x.astype(np.float64))).astype(dt)
            elif op == "rcp":
                r = (1 / x.astype(np.float64)).astype(dt)
            elif op == "sin":
                r = np.sin(x)
            elif op == "cos":
                r = np.cos(x)
            elif op == "lg2":
                r = np.log2(x)
            elif op == "ex2":
                r = np.exp2(x)
            else:
                r = np.tanh(x)
        s(r, mask)
    return go


_UNSIGNED = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def _compare(L: Any, p: list[str], o: list[str], ty: str) -> tuple[Any, Any, Any]:
    """The comparison of ``setp``/``set`` (``o[1] CmpOp o[2]`` on ``ty``; the float forms ordered except the
    ``u`` ones, ``num``/``nan``): ``(cmp, fc, c)``, ``cmp()`` the per-lane result, ``fc`` the combining
    ``.and/.or/.xor`` function (None without one) and ``c`` the getter of its predicate operand ``o[3]``."""
    cmpn = next(x for x in p[1:] if x in _CMP or x in ("equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"))
    comb = next((x for x in p[1:] if x in ("and", "or", "xor")), None)
    a, b = L.getter(o[1], ty), L.getter(o[2], ty)
    c: Any = L.getter(o[3], "pred") if comb else None
    fc: Any = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[comb] if comb else None

    def cmp() -> Any:
        x, y = a(), b()
        with np.errstate(invalid="ignore"):
            if cmpn == "ne" and ty in ("f32", "f64", "f16"):  # ordered: false when either is NaN
                r = np.not_equal(x, y) & ~(np.isnan(x) | np.isnan(y))
            elif cmpn in _CMP:
                r = _CMP[cmpn](x, y)
            elif cmpn == "num":
                r = ~(np.isnan(x) | np.isnan(y))
            elif cmpn == "nan":
                r = np.isnan(x) | np.isnan(y)
            else:
                r = _CMP[cmpn[:2]](x, y) | np.isnan(x) | np.isnan(y)
        return np.broadcast_to(r, (L.n,))
    return cmp, fc, c


def _set(L: Any, ins: Ins, p: list[str], o: list[str]) -> Any:
    """``set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, {!}c}`` (PTX ISA "set", and its half-precision form):
    the comparison of :func:`_compare` on ``stype``, combined with ``c``, written as ``dtype``'s true value
    (1.0 for ``.f32``/``.f16``, all bits set for the integer types) or 0. Packed (``.f16x2``/``.bf16x2``) and
    ``.bf16`` forms are refused (Unsupported, 801)."""
    tys = [x for x in p[1:] if x in TYPE_SIZES]
    dty, sty = tys[0], tys[-1]
    if {dty, sty} & {"f16x2", "bf16x2", "bf16"}:
        raise Unsupported(f"kernel {L.kernel}: instruction {'.'.join(p)} (PTX line {ins.line}) is not supported yet "
                          f"(set on packed or bf16 halves)")
    cmp, fc, c = _compare(L, p, o, sty)
    dt = _dt(dty)
    one = dt.type(1) if dt.kind == "f" else dt.type(-1) if dt.kind == "i" else dt.type(np.iinfo(dt).max)
    zero = dt.type(0)
    s = L.setter(o[0], dty)

    def go(mask: Any) -> None:
        r = cmp()
        if fc is not None:
            r = fc(r, c())
        s(np.where(r, one, zero).astype(dt), mask)
    return go


def _setp(L: Any, p: list[str], o: list[str], ty: str) -> Any:
    cmp, fc, c = _compare(L, p, o, ty)
    dsts = o[0].split("|")
    s1 = L.setter(dsts[0].strip(), "pred")
    s2 = L.setter(dsts[1].strip(), "pred") if len(dsts) > 1 else None

    def go(mask: Any) -> None:
        r = cmp()
        if fc is not None:
            cv = c()
            s1(fc(r, cv), mask)
            if s2:
                s2(fc(~r, cv), mask)
        else:
            s1(r, mask)
            if s2:
                s2(~r, mask)
    return go


def _cvt(L: Any, p: list[str], o: list[str]) -> Any:
    """``cvt{.rnd}{.ftz}{.sat}.dtype.atype``. Float to integer: rounded as ``.rni/.rzi/.rmi/.rpi`` say (``.rzi``
    when none), NaN gives 0 and out-of-range values saturate to the destination's range (the ISA's rule for
    every float-to-integer cvt, 64-bit bounds included). Float to a narrower float and integer to float: rounded
    as ``.rn/.rz/.rm/.rp`` say (``.rn`` when none), the directed modes exactly (see :func:`_round_to`).
    Integer to integer: truncated or sign/zero extended, or clamped with ``.sat``. ``.ftz`` flushes subnormal
    f32 inputs and results to a zero of the same sign."""
    tys = [x for x in p[1:] if x in TYPE_SIZES]
    dty, sty = tys[0], tys[1]
    a = L.getter(o[1], sty)
    s = L.setter(o[0], dty)
    dd = _dt(dty)
    rnd = next((x for x in p if x in ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi")), None)
    sat = "sat" in p
    ftz = "ftz" in p

    bf_in, bf_out = sty == "bf16", dty == "bf16"
    if bf_out:
        dd = np.dtype(np.float32)

    def go(mask: Any) -> None:
        x = np.asarray(a())
        if bf_in:  # bf16 is the high half of a float32
            x = (x.astype(np.uint32) << np.uint32(16)).view(np.float32)
        if ftz and x.dtype == np.float32:
            x = flush32(x)
        with np.errstate(all="ignore"):
            if dd.kind in "iu" and x.dtype.kind == "f":
                f: Any = {"rzi": np.trunc, "rz": np.trunc, "rmi": np.floor, "rm": np.floor, "rpi": np.ceil,
                          "rp": np.ceil}.get(rnd or "rzi", np.rint)
                r = _sat_int(f(x.astype(np.float64)), dd)
            elif dd.kind == "f" and x.dtype.kind == "f":
                if rnd in ("rni", "rzi", "rmi", "rpi"):
                    f2: Any = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}[rnd]
                    r = f2(x).astype(dd)
                elif dd.itemsize < x.dtype.itemsize:
                    r = _round_to(x, dd, rnd)
                else:
                    r = x.astype(dd)
                if sat:
                    r = np.where(np.isnan(r), dd.type(0), np.clip(r, 0, 1)).astype(dd)
            elif dd.kind == "f":  # integer to float
                r = _round_to(x, dd, rnd)
                if sat:
                    r = np.clip(r, 0, 1).astype(dd)
            elif sat:
                r = _clamp_int(x, dd)
            else:
                r = x.astype(dd)
        if ftz and dd == np.float32 and not bf_out:
            r = flush32(r)
        if bf_out:  # round to nearest even into the high half (NaN stays a quiet NaN)
            u = np.atleast_1d(np.asarray(r, np.float32)).view(np.uint32).astype(np.uint64)
            rb = ((u + np.uint64(0x7FFF) + ((u >> np.uint64(16)) & np.uint64(1))) >> np.uint64(16))
            rb = np.where(np.isnan(np.atleast_1d(r)), np.uint64(0x7FC0), rb).astype(np.uint16)
            r = rb if np.ndim(x) else rb[0]
        s(r, mask)
    return go


def flush32(x: Any) -> Any:
    """``.ftz`` on f32 values: a subnormal becomes a zero of the same sign (other values unchanged)."""
    x = np.asarray(x)
    if x.dtype != np.float32:
        return x
    with np.errstate(invalid="ignore"):
        sub = (np.abs(x) < np.float32(1.1754944e-38)) & (x != 0)
    if not np.any(sub):
        return x
    return np.where(sub, np.copysign(np.float32(0), x), x).astype(np.float32)


def _sat_int(y: Any, dd: Any) -> Any:
    """Float values already rounded to integers -> integer type ``dd``: NaN is 0, the rest clamps to the range
    (compared in float64 against bounds that are exact there, so 64-bit bounds do not wrap)."""
    info = np.iinfo(dd)
    hi = y >= float(info.max)  # float(2**63-1) is 2**63: everything at or above saturates
    lo = y <= float(info.min)
    bad = hi | lo | np.isnan(y)
    mid = np.where(bad, 0.0, y).astype(dd)
    return np.where(hi, dd.type(info.max), np.where(lo, dd.type(info.min), mid)).astype(dd)


def _clamp_int(x: Any, dd: Any) -> Any:
    """Integer to integer with ``.sat``: clamped to ``dd``'s range in exact integer arithmetic."""
    di, si = np.iinfo(dd), np.iinfo(x.dtype)
    hi, lo = min(di.max, si.max), max(di.min, si.min)
    wide = np.uint64 if x.dtype.kind == "u" else np.int64
    return np.clip(x.astype(wide), wide(lo), wide(hi)).astype(dd)


def _round_to(x: Any, dd: Any, rnd: str | None) -> Any:
    """``x`` (float, or integer) rounded once to float type ``dd`` in mode ``rn`` (default), ``rz``, ``rm`` or
    ``rp``: numpy's conversion rounds to nearest; a directed mode then steps one ulp toward its direction where
    the nearest value lies on the wrong side of ``x`` (compared exactly: in float64 for 32-bit or float sources,
    as Python integers for 64-bit integers)."""
    r = np.asarray(x.astype(dd))
    if rnd in (None, "rn"):
        return r
    if x.dtype.kind in "iu" and x.dtype.itemsize == 8:
        xs = np.atleast_1d(x).tolist()
        rs = np.atleast_1d(r).tolist()
        above = np.array([float(q) > v for q, v in zip(rs, xs)]).reshape(np.shape(r))
        below = np.array([float(q) < v for q, v in zip(rs, xs)]).reshape(np.shape(r))
    else:
        xe, re_ = x.astype(np.float64), r.astype(np.float64)
        above, below = re_ > xe, re_ < xe
    inf = dd.type(np.inf)
    if rnd == "rz":
        step = np.where(above & (r > 0) | below & (r < 0), True, False)
        return np.where(step, np.nextafter(r, dd.type(0)), r).astype(dd)
    if rnd == "rm":
        return np.where(above, np.nextafter(r, -inf), r).astype(dd)
    return np.where(below, np.nextafter(r, inf), r).astype(dd)


#: prmt's specialised modes: for each selector c[1:0], the source byte of d.b0, d.b1, d.b2, d.b3 (PTX ISA, prmt)
_PRMT_MODES = {"f4e": ((0, 1, 2, 3), (1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)),
               "b4e": ((0, 7, 6, 5), (1, 0, 7, 6), (2, 1, 0, 7), (3, 2, 1, 0)),
               "rc8": ((0, 0, 0, 0), (1, 1, 1, 1), (2, 2, 2, 2), (3, 3, 3, 3)),
               "ecl": ((0, 1, 2, 3), (1, 1, 2, 3), (2, 2, 2, 3), (3, 3, 3, 3)),
               "ecr": ((0, 0, 0, 0), (0, 1, 1, 1), (0, 1, 2, 2), (0, 1, 2, 3)),
               "rc16": ((0, 1, 0, 1), (2, 3, 2, 3), (0, 1, 0, 1), (2, 3, 2, 3))}


def _prmt(L: Any, p: list[str], o: list[str]) -> Any:
    """``prmt.b32{.mode} d, a, b, c``: bytes of ``{b, a}`` picked by ``c``. The generic form takes one nibble
    per destination byte: its 3 low bits select the source byte, its msb replicates that byte's sign bit over the
    byte; a mode takes ``c[1:0]`` and the ISA's table (``_PRMT_MODES``), without sign replication."""
    a, b, c = L.getter(o[1], "u32"), L.getter(o[2], "u32"), L.getter(o[3], "u32")
    s = L.setter(o[0], "u32")
    mode = next((x for x in p[1:] if x in _PRMT_MODES), None)
    u8 = np.uint64(8)
    ff = np.uint64(0xFF)

    def prmt(mask: Any) -> None:
        x = np.asarray(a(), np.uint64) | (np.asarray(b(), np.uint64) << np.uint64(32))
        sel = np.asarray(c(), np.uint64)
        r = np.zeros(np.broadcast(x, sel).shape, np.uint64)
        if mode is not None:
            table = np.array(_PRMT_MODES[mode], np.uint64)
            pick = table[(sel & np.uint64(3)).astype(np.int64)]
        for i in range(4):
            if mode is None:
                nib = (sel >> np.uint64(4 * i)) & np.uint64(0xF)
                byte = (x >> ((nib & np.uint64(7)) * u8)) & ff
                rep = (nib >> np.uint64(3)) & np.uint64(1)
                byte = np.where(rep == 1, np.where(byte >> np.uint64(7) == 1, ff, np.uint64(0)), byte)
            else:
                byte = (x >> (pick[..., i] * u8)) & ff
            r |= byte << np.uint64(8 * i)
        s(r.astype(np.uint32), mask)
    return prmt


def _cp_async(L: Any, ins: Ins, o: list[str]) -> Any:
    """``cp.async.ca/cg.shared.global [dst], [src], size``: copied at issue [I] (a correct program does not touch
    the source or the destination before its ``wait_group``), so commit/wait are no-ops."""
    size = int(o[2], 0)
    vec = size // 4
    dt: Any = np.dtype(np.uint32)
    if size < 4:
        vec, dt = 1, np.dtype(np.uint16 if size == 2 else np.uint8)
    ld = L.mem_access(ins, "global", dt, vec, o[1])
    st = L.mem_access(ins, "shared", dt, vec, o[0])
    n = L.n
    if len(o) > 3 and not o[3].startswith("%p"):
        return _cp_async_zfill(L, ins, o, dt, vec, st)

    def go(mask: Any) -> None:
        vals = ld(mask, None)
        if mask is not None:
            full = []
            for v in vals:
                f = np.zeros(n, dt)
                f[mask] = v
                full.append(f)
            vals = full
        st(mask, vals)
    return go


def _carry(L: Any, op: str, p: list[str], o: list[str], ty: str) -> Any:
    """Carry chains: ``add.cc``/``addc(.cc)``, ``sub.cc``/``subc(.cc)``, ``mad(c).lo/.hi.cc``; the carry flag is one
    per lane (``L.cc``)."""
    bits = _dt(ty).itemsize * 8
    u = np.uint64
    a, b = L.getter(o[1], "u" + str(bits)), L.getter(o[2], "u" + str(bits))
    c: Any = L.getter(o[3], "u" + str(bits)) if op in ("mad", "madc") else None
    s = L.setter(o[0], "u" + str(bits))
    use_in = op.endswith("c")
    set_out = "cc" in p
    hi = "hi" in p
    if not hasattr(L, "cc"):
        L.cc = np.zeros(L.n, np.uint64)
    m64 = (1 << bits) - 1

    def go(mask: Any) -> None:
        x = np.broadcast_to(np.asarray(a()).astype(object if bits == 64 else u), (L.n,))
        y = np.broadcast_to(np.asarray(b()).astype(object if bits == 64 else u), (L.n,))
        cin = L.cc.astype(object if bits == 64 else u) if use_in else 0
        if op in ("mad", "madc"):
            z = np.broadcast_to(np.asarray(c()).astype(object if bits == 64 else u), (L.n,))
            prod = x.astype(object) * y.astype(object)
            part = (prod >> bits) if hi else (prod & m64)
            tot = part + z.astype(object) + (cin if use_in else 0)
        elif op.startswith("sub"):
            tot = x.astype(object) - y.astype(object) - (cin if use_in else 0)
        else:
            tot = x.astype(object) + y.astype(object) + (cin if use_in else 0)
        res = np.array([int(t) & m64 for t in tot], dtype=np.uint64) if bits == 64 else \
            (np.asarray(tot).astype(np.int64) & m64).astype(np.uint64)
        if set_out:
            if op.startswith("sub"):
                carry = np.array([1 if int(t) < 0 else 0 for t in tot], np.uint64)
            else:
                carry = np.array([1 if int(t) > m64 else 0 for t in tot], np.uint64)
            if mask is None:
                L.cc[...] = carry
            else:
                L.cc[mask] = carry[mask]
        s(res.astype(_dt("u" + str(bits))), mask)
    return go


def _mov_vec(L: Any, o: list[str], ty: str) -> Any:
    """``mov.b64 {lo, hi}, x`` (unpack, lowest element first) and ``mov.b64 x, {lo, hi}`` (pack); also b32 of
    two b16 and b64/b32 of four parts."""
    width = _dt(ty).itemsize * 8
    if o[0].startswith("{"):
        parts = [x.strip() for x in o[0].strip("{} ").split(",")]
        k = width // len(parts)
        src = L.getter(o[1], "b" + str(width))
        sets = [L.setter(x, "b" + str(k)) if x != "_" else None for x in parts]
        ud = _dt("b" + str(k))

        def unpack(mask: Any) -> None:
            v = np.asarray(src()).astype(np.uint64)
            for i, st in enumerate(sets):
                if st is not None:
                    st(((v >> np.uint64(i * k)) & np.uint64((1 << k) - 1)).astype(ud), mask)
        return unpack
    parts = [x.strip() for x in o[1].strip("{} ").split(",")]
    k = width // len(parts)
    gets = [L.getter(x, "b" + str(k)) for x in parts]
    dst = L.setter(o[0], "b" + str(width))
    wd = _dt("b" + str(width))

    def pack(mask: Any) -> None:
        r = np.uint64(0)
        for i, g in enumerate(gets):
            r = r | (np.asarray(g()).astype(np.uint64) << np.uint64(i * k))
        dst(np.asarray(r).astype(wd), mask)
    return pack


def _cp_async_zfill(L: Any, ins: Ins, o: list[str], dt: Any, vec: int, st: Any) -> Any:
    """``cp.async ... [dst], [src], cp-size, src-size``: bytes past ``src-size`` are zero-filled, not read
    (element granularity: an element is read when ``src-size`` covers all of it)."""
    n = L.n
    size = dt.itemsize
    lds = []
    for i in range(vec):
        sym, _b, off = L.address(o[1])
        inner = o[1].strip()[1:-1]
        lds.append(L.mem_access(ins, "global", dt, 1, f"[{inner}+{i * size}]" if "+" not in inner and "-" not in
                                inner else f"[{inner.split('+')[0]}+{off + i * size}]"))
        del sym
    gsz = L.getter(o[3], "u32")

    def go(mask: Any) -> None:
        act = L.alive0 if mask is None else mask
        srcsize = np.broadcast_to(np.asarray(gsz(), np.int64), (n,))
        vals = []
        for i, ld in enumerate(lds):
            m = act & (srcsize >= (i + 1) * size)
            f = np.zeros(n, dt)
            if m.any():
                f[m] = ld(m, None)[0]
            vals.append(f)
        st(mask, vals)
    return go
