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


def fma_f64(a: Any, b: Any, c: Any) -> Any:
    """``fma.rn.f64``: TwoProduct (Dekker) and TwoSum, then one final addition (exact in nearly all cases; an
    intermediate overflow or a result in the subnormal range may differ)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    with np.errstate(all="ignore"):
        p = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        ep = ((ah * bh - p) + ah * bl + al * bh) + al * bl
        s = p + c
        bp = s - p
        es = (p - (s - bp)) + (c - bp)
        r = s + (ep + es)
        r = np.where(np.isfinite(p) & np.isfinite(ep), r, p + c)
    return r if r.ndim else r[()]
