"""Exact-arithmetic helpers for the instruction suite's expected values (worked out from the PTX ISA's definitions,
never by running the engine): IEEE binary32/binary64 bit patterns, correct rounding of an exact rational to
binary32 with ties to even, and the PTX immediate spellings (``0fXXXXXXXX``, ``0dXXXXXXXXXXXXXXXX``)."""
from __future__ import annotations

import math
import struct
from fractions import Fraction

NAN32 = 0x7FFFFFFF  # the canonical NaN the ISA names for f32 results


def f32_bits(x: float) -> int:
    """The binary32 bit pattern of ``x`` (which must be exactly representable)."""
    bits: int = struct.unpack("<I", struct.pack("<f", x))[0]
    assert struct.unpack("<f", struct.pack("<I", bits))[0] == x or math.isnan(x), x
    return bits


def f64_bits(x: float) -> int:
    """The binary64 bit pattern of ``x``."""
    bits: int = struct.unpack("<Q", struct.pack("<d", x))[0]
    return bits


def imm32(x: float) -> str:
    """The PTX f32 immediate spelling of ``x`` (exact)."""
    return f"0f{f32_bits(x):08X}"


def imm64(x: float) -> str:
    """The PTX f64 immediate spelling of ``x``."""
    return f"0d{f64_bits(x):016X}"


def round_f32(q: Fraction) -> float:
    """``q`` rounded once to binary32, to nearest with ties to even (normal range only)."""
    if q == 0:
        return 0.0
    sign = -1 if q < 0 else 1
    q = abs(q)
    e = math.floor(math.log2(q.numerator) - math.log2(q.denominator))
    while Fraction(2) ** e > q:
        e -= 1
    while Fraction(2) ** (e + 1) <= q:
        e += 1
    scaled = q / Fraction(2) ** (e - 23)  # in [2^23, 2^24)
    m = math.floor(scaled)
    rest = scaled - m
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and m % 2 == 1):
        m += 1
    return sign * float(Fraction(m) * Fraction(2) ** (e - 23))


def sqrt_fraction(x: int, bits: int = 80) -> Fraction:
    """sqrt(``x``) truncated to ``bits`` fraction bits (irrational for a non-square ``x``: never a rounding tie)."""
    return Fraction(math.isqrt(x << (2 * bits)), 1 << bits)


def pack_u32(*v: int) -> bytes:
    """Little-endian u32 words (each taken modulo 2**32)."""
    return b"".join(struct.pack("<I", x & 0xFFFFFFFF) for x in v)


def pack_u64(*v: int) -> bytes:
    """Little-endian u64 words (each taken modulo 2**64)."""
    return b"".join(struct.pack("<Q", x & 0xFFFFFFFFFFFFFFFF) for x in v)
