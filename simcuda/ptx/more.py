"""Bit-field, logic and float-class instructions (``bfe``, ``bfi``, ``lop3``, ``shf``, ``testp``, ``copysign``,
``slct``) and ``mbarrier`` (init, inval, arrive, arrive_drop, arrive.expect_tx, test_wait/try_wait with and
without ``.parity``, pending_count; expect_tx and complete_tx count nothing: only the refused bulk copies
would complete transactions [I]); ``cp.async.mbarrier.arrive`` (cp.async copies complete at issue, so the
plain form changes nothing and ``.noinc`` is one arrival).

An mbarrier's 64-bit word holds [I]: bit 63 the phase parity, bits 32..62 the expected count, bits 0..31 the
pending count; ``arrive`` returns the word before the arrival as its state token.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .interface import Unsupported
from .parse import Ins


def build_more(L: Any, ins: Ins, op: str, p: list[str], o: list[str], ty: str) -> Any:
    """A closure for one of the instructions above."""
    from .values import _DT
    dt = np.dtype(_DT[ty])
    bits = dt.itemsize * 8
    n = L.n
    if op == "bfe":
        a, b, c = L.getter(o[1], ty), L.getter(o[2], "u32"), L.getter(o[3], "u32")
        s = L.setter(o[0], ty)

        def bfe(mask: Any) -> None:
            # the ISA's definition: bits [pos, pos+len) of a, the bits past the field (or past the msb) filled
            # with the sign bit a[min(pos+len-1, msb)] for .s types (0 for .u types and len 0)
            x = np.broadcast_to(np.asarray(a()).astype(np.int64 if ty.startswith("s") else np.uint64), (n,))
            pos = np.broadcast_to(np.asarray(b(), np.int64) & 0xFF, (n,))
            ln = np.broadcast_to(np.asarray(c(), np.int64) & 0xFF, (n,))
            xu = x.astype(np.uint64) & np.uint64((1 << bits) - 1 if bits < 64 else 0xFFFFFFFFFFFFFFFF)
            eff = np.clip(bits - pos, 0, ln)  # field bits that lie at or below the msb
            sh = np.minimum(pos, bits - 1).astype(np.uint64)
            lm = np.where(eff >= 64, np.uint64(0xFFFFFFFFFFFFFFFF),
                          (np.uint64(1) << np.minimum(eff, 63).astype(np.uint64)) - np.uint64(1))
            f = (xu >> sh) & lm
            if ty.startswith("s"):
                sbit = np.minimum(pos + ln - 1, bits - 1)
                neg = np.where(ln == 0, False, ((xu >> sbit.astype(np.uint64)) & np.uint64(1)) == 1)
                f = np.where(neg, f | ~lm, f)
            s(f.astype(np.uint64).astype(_DT["u" + str(bits)]).view(dt), mask)
        return bfe
    if op == "bfi":
        a, b = L.getter(o[1], ty), L.getter(o[2], ty)
        c, d = L.getter(o[3], "u32"), L.getter(o[4], "u32")
        s = L.setter(o[0], ty)

        def bfi(mask: Any) -> None:
            x = np.asarray(a()).astype(np.uint64)
            y = np.asarray(b()).astype(np.uint64)
            pos = np.asarray(c(), np.uint64) & np.uint64(0xFF)
            ln = np.asarray(d(), np.uint64) & np.uint64(0xFF)
            lm = np.where(ln >= 64, np.uint64(0xFFFFFFFFFFFFFFFF),
                          (np.uint64(1) << np.minimum(ln, 63)) - np.uint64(1))
            m = np.where(pos >= bits, np.uint64(0), lm << np.minimum(pos, 63))
            r = (y & ~m) | ((x << np.minimum(pos, 63)) & m)
            s(r.astype(dt), mask)
        return bfi
    if op == "lop3":
        a, b, c = L.getter(o[1], "b32"), L.getter(o[2], "b32"), L.getter(o[3], "b32")
        lut = int(o[4], 0)
        s = L.setter(o[0], "b32")

        def lop3(mask: Any) -> None:
            x, y, z = np.asarray(a()), np.asarray(b()), np.asarray(c())
            r = np.zeros(np.broadcast(x, y, z).shape, np.uint32)
            for k in range(8):
                if lut >> k & 1:
                    t = (x if k & 4 else ~x) & (y if k & 2 else ~y) & (z if k & 1 else ~z)
                    r |= t
            s(r, mask)
        return lop3
    if op == "shf":
        a, b, c = L.getter(o[1], "b32"), L.getter(o[2], "b32"), L.getter(o[3], "u32")
        s = L.setter(o[0], "b32")
        left = "l" in p
        clamp = "clamp" in p

        def shf(mask: Any) -> None:
            lo = np.asarray(a()).astype(np.uint64)
            hi = np.asarray(b()).astype(np.uint64)
            k = np.asarray(c()).astype(np.uint64)
            k = np.minimum(k, 32) if clamp else k & np.uint64(31)
            w = (hi << np.uint64(32)) | lo
            r = (w << k) >> np.uint64(32) if left else (w >> k)
            s((r & np.uint64(0xFFFFFFFF)).astype(np.uint32), mask)
        return shf
    if op == "testp":
        a = L.getter(o[1], ty)
        s = L.setter(o[0], "pred")
        what = p[1]

        def testp(mask: Any) -> None:
            x = np.asarray(a())
            with np.errstate(all="ignore"):
                r = {"finite": np.isfinite(x), "infinite": np.isinf(x), "number": ~np.isnan(x),
                     "notanumber": np.isnan(x),
                     "normal": np.isfinite(x) & (np.abs(x) >= np.finfo(dt).tiny),
                     "subnormal": (x != 0) & (np.abs(x) < np.finfo(dt).tiny)}[what]
            s(np.broadcast_to(r, (n,)), mask)
        return testp
    if op == "copysign":
        a, b = L.getter(o[1], ty), L.getter(o[2], ty)
        s = L.setter(o[0], ty)
        return lambda mask: s(np.copysign(b(), a()), mask)
    if op == "slct":
        cty = p[-1]
        a, b, c = L.getter(o[1], ty if ty != cty else p[-2]), L.getter(o[2], p[-2]), L.getter(o[3], cty)
        s = L.setter(o[0], p[-2])
        return lambda mask: s(np.where(np.asarray(c()) >= 0, a(), b()), mask)
    if op == "bfind":
        a = L.getter(o[1], ty)
        s = L.setter(o[0], "u32")
        shiftamt = "shiftamt" in p

        def bfind(mask: Any) -> None:
            # the ISA: the bit position of the most significant non-sign bit (for .s types of a negative
            # value, the most significant 0); 0xFFFFFFFF when there is none; .shiftamt: bits-1 minus it
            x = np.asarray(a())
            u = x.astype(_DT["u" + str(bits)]).astype(np.uint64)
            if ty.startswith("s"):
                u = np.where(x < 0, ~u & np.uint64((1 << bits) - 1 if bits < 64 else 0xFFFFFFFFFFFFFFFF), u)
            pos = np.full(u.shape, -1, np.int64)
            for k in range(bits):
                pos = np.where(((u >> np.uint64(k)) & np.uint64(1)) == 1, k, pos)
            r = np.where(pos < 0, np.int64(0xFFFFFFFF), (bits - 1 - pos) if shiftamt else pos)
            s(r.astype(np.uint32), mask)
        return bfind
    if op == "mbarrier":
        return _mbarrier(L, ins, p, o)
    raise Unsupported(f"kernel {L.kernel}: {'.'.join(p)} (PTX line {ins.line}) is not supported")


def _mbarrier(L: Any, ins: Ins, p: list[str], o: list[str]) -> Any:
    kind = p[1]
    space = "shared" if any(x.startswith("shared") for x in p) else "generic"
    n = L.n
    u64 = np.dtype(np.uint64)
    if kind in ("expect_tx", "complete_tx"):
        # transaction counts come only from bulk (TMA) copies, which the engine refuses: nothing to count [I]
        return lambda mask: None
    if kind == "pending_count":
        st = L.setter(o[0], "u32")
        gs = L.getter(o[1], "b64")
        return lambda mask: st(np.asarray(gs(), np.uint64) & np.uint64(0xFFFFFFFF), mask)
    aop = o[1] if kind in ("arrive", "arrive_drop", "test_wait", "try_wait") else o[0]
    if kind in ("arrive", "arrive_drop") and len(o) == 1:
        aop = o[0]
    acc = L.mem_access(ins, space, u64, 1, aop)
    sym, base, off = L.address(aop)
    if sym is not None:
        off += L.symbol(sym)
    offu = np.uint64(off % (1 << 64))
    PH = np.uint64(1 << 63)

    def lanes_of(mask: Any) -> np.ndarray:
        return np.flatnonzero(L.alive0 if mask is None else mask)

    def m_of(ls: np.ndarray) -> Any:
        m = np.zeros(n, bool)
        m[ls] = True
        return m

    if kind == "inval":
        return lambda mask: acc(mask, [np.zeros(n, np.uint64)])
    if kind == "init":
        cnt = L.getter(o[1], "u32")

        def init(mask: Any) -> None:
            c = np.broadcast_to(np.asarray(cnt(), np.uint64), (n,))
            acc(mask, [(c << np.uint64(32)) | c])
        return init
    if kind in ("arrive", "arrive_drop"):
        sd = L.setter(o[0], "b64") if len(o) > 1 and o[0] != "_" else None
        cnt_g = L.getter(o[2], "u32") if len(o) > 2 and "expect_tx" not in p else None

        def arrive(mask: Any) -> None:
            ls = lanes_of(mask)
            a = np.broadcast_to(np.asarray(base(), np.uint64) + offu, (n,))[ls]
            k = np.broadcast_to(np.asarray(cnt_g() if cnt_g else 1, np.uint64), (n,))[ls]
            tok = np.zeros(n, np.uint64)
            from .atomics import _key
            keys = _key(L, space, a, ls)  # a shared barrier is one word per block
            for addr in np.unique(keys):
                sel = ls[keys == addr]
                m = m_of(sel[:1])
                w = int(np.asarray(acc(m, None)[0])[0])
                for lane, kk in zip(sel, k[keys == addr], strict=True):
                    tok[lane] = w
                    phase, exp, pend = w >> 63, (w >> 32) & 0x7FFFFFFF, w & 0xFFFFFFFF
                    if kind == "arrive_drop":
                        exp -= int(kk)
                    pend -= int(kk)
                    if pend <= 0:
                        phase ^= 1
                        pend = exp
                    w = (phase << 63) | (exp << 32) | pend
                full = np.zeros(n, np.uint64)
                full[sel[0]] = w
                acc(m, [full])
            if sd is not None:
                sd(tok, mask)
        return arrive
    if kind in ("test_wait", "try_wait"):
        sp = L.setter(o[0], "pred")
        parity = "parity" in p
        g = L.getter(o[2], "u32" if parity else "b64")

        def wait(mask: Any) -> None:
            ls = lanes_of(mask)
            w = np.zeros(n, np.uint64)
            w[ls] = acc(mask if mask is not None else None, None)[0] if mask is not None else \
                np.broadcast_to(acc(None, None)[0], (n,))[ls]
            cur = (w & PH) != 0
            if parity:
                want = (np.broadcast_to(np.asarray(g(), np.uint64), (n,)) & np.uint64(1)) != 0
            else:
                want = (np.broadcast_to(np.asarray(g(), np.uint64), (n,)) & PH) != 0
            sp(cur != want, mask)
        return wait
    raise Unsupported(f"kernel {L.kernel}: {'.'.join(p)} (PTX line {ins.line}) is not supported")
