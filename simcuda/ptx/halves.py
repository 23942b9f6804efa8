"""Arithmetic on the 16-bit float types held as bits: ``.bf16``, ``.f16x2`` and ``.bf16x2`` (PTX ISA, "Half
Precision Floating-Point Instructions").

The engine keeps these registers as their bit patterns (``.bf16`` as ``uint16``, the packed pairs as ``uint32``:
element 0 in the low half), so ``add``/``sub``/``mul``/``fma``/``neg``/``abs``/``min``/``max`` on them cannot be the
integer operations of those bits. Each element is widened exactly to float64, the operation done there, and the
result rounded once to the element type, to nearest even (``.rn``, the only rounding these forms have):

* ``add``, ``sub``, ``mul``: the float64 result of two 8- or 11-bit-significand values, rounded to 53 bits, then
  to the element type: the same as rounding the exact result, since 53 >= 2p + 2 (double rounding is innocuous
  for the basic operations); ``.bf16`` goes through float32 rounded to odd, then to nearest even;
* ``fma``: ``a * b`` is exact in float64, ``+ c`` rounded to 53 bits, then to the type [I: a rare double rounding
  remains when ``c`` is more than about 37 bits smaller than ``a * b`` and the product lies on a tie];
* ``.sat`` clamps to [0, 1] (NaN to 0), ``.relu`` clamps negative results to 0 (NaN stays the canonical NaN),
  ``.ftz`` (``.f16``/``.f16x2`` only) flushes subnormal inputs and results to zeros of the same sign;
* ``neg``/``abs`` flip or clear the sign bit; ``min``/``max`` return the other operand when one is NaN (the
  canonical NaN when both are), ``.NaN`` the canonical NaN when either is; -0.0 is below +0.0.

NaN results are the canonical NaNs (``0x7FFF`` for bf16, ``0x7FFF`` for f16) [I: the PTX ISA leaves the payload
unspecified]. Vectorised over lanes with numpy, so a CAS loop that NVRTC emits for a bf16 ``atomicAdd`` below
sm_90 (``fma.rn.bf16 d, a, 1.0, b`` inside ``atom.cas.b16``) computes the right sums.
"""
from __future__ import annotations

from typing import Any

import numpy as np

#: the element types these builders handle: ty -> (elements per register, bfloat16?)
PACKED = {"bf16": (1, True), "f16x2": (2, False), "bf16x2": (2, True)}
#: the operations they build
OPS = frozenset({"add", "sub", "mul", "fma", "neg", "abs", "min", "max"})

_U16, _U32, _U64 = np.uint16, np.uint32, np.uint64


def widen(bits: Any, bf: bool) -> Any:
    """Float64 values of 16-bit float bit patterns ``bits`` (bfloat16 when ``bf``, else IEEE half)."""
    b = np.asarray(bits)
    if bf:
        return (b.astype(_U32) << _U32(16)).view(np.float32).astype(np.float64)
    return b.astype(_U16).view(np.float16).astype(np.float64)


def narrow(x: Any, bf: bool) -> Any:
    """The 16-bit float bit patterns (``uint16``) nearest to float64 values ``x``, ties to even (bfloat16 when
    ``bf``: through float32 rounded to odd, then to nearest even; else numpy's correctly rounded conversion);
    NaN gives the canonical NaN."""
    s = np.atleast_1d(np.asarray(x, np.float64))
    with np.errstate(all="ignore"):
        if not bf:
            r = s.astype(np.float16).view(_U16)
            return np.where(np.isnan(s), _U16(0x7FFF), r).reshape(np.shape(x))
        f = s.astype(np.float32)
        bits = f.view(_U32).copy()
        wide = f.astype(np.float64)
        inexact = (wide != s) & np.isfinite(s)
        toward = np.abs(wide) > np.abs(s)  # rounded away from zero: step back to the truncation
        bits = np.where(inexact & toward, bits - _U32(1), bits)
        bits = np.where(inexact, bits | _U32(1), bits).astype(_U64)  # round to odd
        rb = (bits + _U64(0x7FFF) + ((bits >> _U64(16)) & _U64(1))) >> _U64(16)
        rb = np.where(np.isnan(s), _U64(0x7FFF), rb)
    return rb.astype(_U16).reshape(np.shape(x))


def split(bits: Any, n: int) -> list[Any]:
    """The ``n`` 16-bit elements (``uint16``) of registers ``bits``: the register itself for 1, else low, high."""
    b = np.asarray(bits)
    if n == 1:
        return [b.astype(_U16)]
    w = b.astype(_U32)
    return [(w & _U32(0xFFFF)).astype(_U16), (w >> _U32(16)).astype(_U16)]


def join(parts: list[Any]) -> Any:
    """The register of 16-bit elements ``parts`` (:func:`split`'s inverse)."""
    if len(parts) == 1:
        return parts[0]
    return parts[0].astype(_U32) | (parts[1].astype(_U32) << _U32(16))


def _flush(x: Any, bf: bool) -> Any:
    """``.ftz``: subnormal values (of the element type) to zeros of their sign."""
    tiny = 2.0 ** -126 if bf else 2.0 ** -14
    return np.where((np.abs(x) < tiny) & (x != 0), np.copysign(0.0, x), x)


def _minmax(op: str, nan: bool, a: Any, b: Any) -> Any:
    """``min``/``max`` of float64 values, -0.0 below +0.0, NaN as :mod:`this module <simcuda.ptx.halves>` says."""
    if op == "min":
        pick_a = (a < b) | ((a == b) & np.signbit(a))
    else:
        pick_a = (a > b) | ((a == b) & ~np.signbit(a))
    r = np.where(pick_a, a, b)
    an, bn = np.isnan(a), np.isnan(b)
    if nan:
        return np.where(an | bn, np.nan, r)
    return np.where(an & bn, np.nan, np.where(an, b, np.where(bn, a, r)))


def element_op(op: str, p: list[str], bf: bool, xs: list[Any]) -> Any:
    """The float64 result of ``op`` with modifiers ``p`` on float64 operands ``xs`` (before rounding)."""
    with np.errstate(all="ignore"):
        if op == "add":
            return xs[0] + xs[1]
        if op == "sub":
            return xs[0] - xs[1]
        if op == "mul":
            return xs[0] * xs[1]
        if op == "fma":
            return xs[0] * xs[1] + xs[2]
        return _minmax(op, "NaN" in p, xs[0], xs[1])


def build(L: Any, op: str, p: list[str], o: list[str], ty: str) -> Any:
    """A closure running ``op`` (one of :data:`OPS`) of type ``ty`` (one of :data:`PACKED`) for the lanes of
    ``mask``: operands ``o`` read and written as bit patterns through the launch ``L``'s getters and setter."""
    n, bf = PACKED[ty]
    nargs = {"neg": 1, "abs": 1, "fma": 3}.get(op, 2)
    gets = [L.getter(x, ty) for x in o[1:1 + nargs]]
    s = L.setter(o[0], ty)
    sat, relu, ftz = "sat" in p, "relu" in p, "ftz" in p and not bf
    sign = _U16(0x8000)

    def run(mask: Any) -> None:
        ops = [split(g(), n) for g in gets]
        out = []
        for k in range(n):
            if op == "neg":
                out.append(ops[0][k] ^ sign)
                continue
            if op == "abs":
                out.append(ops[0][k] & _U16(0x7FFF))
                continue
            xs = [widen(a[k], bf) for a in ops]
            if ftz:
                xs = [_flush(x, bf) for x in xs]
            r = element_op(op, p, bf, xs)
            if sat:
                r = np.where(np.isnan(r), 0.0, np.clip(r, 0.0, 1.0))
            if relu:
                r = np.where(r < 0, 0.0, r)
            bits = narrow(r, bf)
            if ftz:
                bits = narrow(_flush(widen(bits, bf), bf), bf)
            out.append(bits)
        s(join(out), mask)
    return run
