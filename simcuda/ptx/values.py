"""The engine's shared values: register dtypes, address windows, refused opcodes, and the exact fused
multiply-adds. A leaf module: the instruction builders (ops, more, atomics, calls) and the scheduler (engine)
import it, never each other in a circle."""
from __future__ import annotations

from typing import Any

import numpy as np

SHARED_WINDOW = 0xFE00_0000_0000_0000
LOCAL_WINDOW = 0xFD00_0000_0000_0000
#: the kernel's parameter buffer: a kernel parameter's address (``mov`` of its name, ``cvta.param``) is here
PARAM_WINDOW = 0xFC00_0000_0000_0000
#: memory the engine owns: module variables the core gave no address, a launch's grid-sync workspace
OWN_WINDOW = 0xFA00_0000_0000_0000
#: addresses of the module's functions (``mov.u64 %rd, fn``, initialisers, indirect ``call``): FUNC_WINDOW + 16*k
FUNC_WINDOW = 0xFB00_0000_0000_0000
WINDOW_SIZE = 1 << 40
EXIT = np.int32(1 << 30)
MAX_LANES = 1 << 20
SPIN_YIELD = 1024
#: cycles per nanosecond of wall time added to %clock/%clock64 [I] (the simulated device's clock rate)
CLOCK_GHZ = 1.41

_DT = {"b8": np.uint8, "u8": np.uint8, "s8": np.int8, "b16": np.uint16, "u16": np.uint16, "s16": np.int16,
       "f16": np.float16, "bf16": np.uint16, "b32": np.uint32, "u32": np.uint32, "s32": np.int32, "f32": np.float32,
       "b64": np.uint64, "u64": np.uint64, "s64": np.int64, "f64": np.float64, "pred": np.bool_,
       "f16x2": np.uint32, "bf16x2": np.uint32}
_STORE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_UNS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_SGN = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}
_REFUSED = ("tex", "tld4", "suld", "sust", "sured", "suq", "txq", "wmma", "mma", "wgmma", "ldmatrix", "stmatrix",
            "cp.async.bulk", "mapa", "getctarank", "barrier.cluster", "multimem", "tcgen05", "elect", "setmaxnreg")

_SPECIAL = ("%tid", "%ntid", "%ctaid", "%nctaid", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid",
            "%clock", "%clock64", "%globaltimer", "%dynamic_smem_size", "%total_smem_size", "%lanemask_eq",
            "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt", "%envreg", "%globaltimer_lo",
            "%globaltimer_hi", "%warpsize")


def fma_f32(a: Any, b: Any, c: Any) -> Any:
    """``fma.rn.f32``: the float64 product is exact; the float64 sum is rounded once more to float32, which is
    the correctly rounded fused result unless the float64 sum lies exactly halfway between two float32 values
    (or in the float32 subnormal range): there the sum is recomputed rounded to odd (TwoSum), then rounded."""
    p = np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)
    c64 = np.asarray(c, dtype=np.float64)
    s = p + c64
    bits = np.atleast_1d(s).view(np.uint64)
    low = bits & np.uint64(0x1FFFFFFF)
    expo = (bits >> np.uint64(52)) & np.uint64(0x7FF)
    if not ((low == np.uint64(0x10000000)).any() or (expo < np.uint64(1023 - 125)).any()):
        return s.astype(np.float32)
    with np.errstate(all="ignore"):
        bp = s - p
        e = (p - (s - bp)) + (c64 - bp)
        bits = bits.copy()
        e1 = np.atleast_1d(e)
        s1 = np.atleast_1d(s)
        fix = (e1 != 0) & ((bits & np.uint64(1)) == 0) & np.isfinite(s1)
        if fix.any():
            same = np.signbit(e1) == np.signbit(s1)
            bits = np.where(fix & same, bits + np.uint64(1), np.where(fix, bits - np.uint64(1), bits))
        r = bits.view(np.float64).astype(np.float32)
    return r if np.ndim(s) else r[0]


def _split(x: Any) -> tuple[Any, Any]:
    t = x * 134217729.0
    hi = t - (t - x)
    return hi, x - hi


def _round_odd_add(x: Any, y: Any) -> Any:
    """``x + y`` rounded to odd (float64): the nearest sum where it is exact, else whichever neighbour of the
    exact sum has an odd last bit (Boldo and Melquiond's rounding to odd)."""
    s = x + y
    bp = s - x
    e = (x - (s - bp)) + (y - bp)
    bits = np.atleast_1d(s).view(np.uint64).copy()
    e1, s1 = np.atleast_1d(e), np.atleast_1d(s)
    fix = (e1 != 0) & ((bits & np.uint64(1)) == 0) & np.isfinite(s1)
    if fix.any():
        same = np.signbit(e1) == np.signbit(s1)
        bits = np.where(fix & same, bits + np.uint64(1), np.where(fix, bits - np.uint64(1), bits))
    return bits.view(np.float64).reshape(np.shape(s))


def fma_f64(a: Any, b: Any, c: Any) -> Any:
    """``fma.rn.f64``, correctly rounded: the product split exactly (Dekker's TwoProduct), added to ``c``
    exactly (TwoSum), the two error terms added rounded to odd, then one rounding to nearest (Boldo and
    Melquiond's emulation, exact when nothing overflows or underflows). Lanes where an intermediate could
    overflow or underflow (huge operands, a tiny product, a result near the subnormal range) are computed
    exactly with rationals instead; infinite and NaN operands follow IEEE ``a*b+c``."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    with np.errstate(all="ignore"):
        p = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        ep = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        th = p + c
        bp = th - p
        tl = (p - (th - bp)) + (c - bp)
        v = _round_odd_add(tl, ep)
        r = np.where(v == 0, th, th + v)
        fin = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
        big = (np.abs(a) > 2.0 ** 995) | (np.abs(b) > 2.0 ** 995) | (np.abs(c) > 2.0 ** 1020)
        tiny = ((np.abs(p) < 2.0 ** -960) & (a != 0) & (b != 0)) | (np.abs(r) < 2.0 ** -960)
        risky = fin & (big | tiny | ~np.isfinite(r))
        r = np.where(fin, r, p + c)
    if np.any(risky):
        r = np.array(r, dtype=np.float64, copy=True)
        shape = r.shape
        r = r.reshape(-1)
        ab = np.broadcast_arrays(a, b, c, p)
        fa, fb, fc, fp = (x.reshape(-1) for x in ab)
        for k in np.flatnonzero(np.broadcast_to(risky, shape).reshape(-1)):
            r[k] = _exact_fma(float(fa[k]), float(fb[k]), float(fc[k]), float(fp[k]))
        r = r.reshape(shape)
    return r if r.ndim else r[()]


def _exact_fma(a: float, b: float, c: float, p: float) -> float:
    """One correctly rounded ``a*b+c`` of finite doubles in rationals (Python's int/int division rounds
    correctly, subnormals included); an exact zero takes IEEE's sign rule; an overflow gives an infinity."""
    from fractions import Fraction
    q = Fraction(a) * Fraction(b) + Fraction(c)
    if q == 0:
        return float(np.float64(p) + np.float64(c)) if p != 0 or c != 0 else \
            (-0.0 if (np.signbit(p) and np.signbit(c)) else 0.0)
    try:
        return float(q)
    except OverflowError:
        return float("inf") if q > 0 else float("-inf")
