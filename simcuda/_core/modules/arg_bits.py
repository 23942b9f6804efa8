"""Kernel argument values that keep the width the launch gave them (issue 17: arguments reach the engine as bytes).

cuda-bindings' ``(values, types)`` form of ``kernelParams`` packs each argument into a zeroed 8-byte slot by its
ctypes type, and the driver reads as many bytes there as the kernel's parameter has: a ``c_uint`` for an ``.f32``
parameter is the float with those bits, a ``c_float`` for an ``.f64`` one is a double made of the float's four
bytes and four zero bytes. A decoded value alone cannot say that (``-1`` as a ``c_int`` is ``ff ff ff ff 00 00 00
00``, as a ``c_longlong`` eight ``ff``), so the face hands the core these marked values where the plain value would
be ambiguous; :func:`slot` gives their bytes, and the kernel engine's parameter buffer
(:func:`simcuda._core.modules.ptxrun.pack_params`) and a Python twin's values (:func:`simcuda._core.modules.param_types.
as_declared`) are read from them. Plain values keep their meaning: an ``int`` is its 64-bit two's complement
(zero above), a ``float`` the parameter's own float type, ``bytes`` as given.

The ``void**`` readers mark the two 16-bit float types too (:class:`F16`, :class:`BF16`): their values are Python
floats, and a 2-byte parameter cannot say which of the two it is; and a NaN of any float type
(:class:`NaNBits`): its payload and signalling bit do not survive a Python float.

The marks are ``float``/``int`` subclasses, so a Python twin or a log sees the number; they are immutable values,
compared by value and class (:func:`simcuda._core.graphs.nodes.same_values`).
"""
from __future__ import annotations

import struct
from typing import Any

_PACK_F, _PACK_D = struct.Struct("<f").pack, struct.Struct("<d").pack
_PACK_E = struct.Struct("<e").pack
_ZERO4, _ZERO6 = b"\0" * 4, b"\0" * 6


class F32(float):
    """A ``c_float`` argument: its slot is the float32's four bytes, then four zero bytes. (A signalling NaN
    arrives quieted: Python's float conversion quiets it [I].)"""

    __slots__ = ()


class F64(float):
    """A ``c_double`` argument: its slot is the double's eight bytes."""

    __slots__ = ()


class F16(float):
    """A ``__half`` argument read from a ``void**`` array: its bytes are the half's two bytes, then zero bytes."""

    __slots__ = ()


class BF16(float):
    """A ``__nv_bfloat16`` argument read from a ``void**`` array (its value exact in a float32): its bytes are the
    bfloat16's two bytes (the float32's top half), then zero bytes."""

    __slots__ = ()


class NaNBits(float):
    """A NaN argument read from a ``void**`` array (:mod:`simcuda._core.modules.module_entries`'s readers), with the
    bytes it was read from (``raw``, 2, 4 or 8): its slot is those bytes, then zero bytes. A Python float cannot carry a
    half's NaN payload, nor a signalling NaN unquieted, and the kernel is owed the bytes the launch gave."""

    __slots__ = ("raw",)
    raw: bytes

    @classmethod
    def of(cls, value: float, raw: bytes) -> NaNBits:
        """The NaN ``value`` read from the bytes ``raw``."""
        made = cls(value)
        made.raw = bytes(raw)
        return made


class S8(int):
    """A negative ``c_byte`` argument: its slot is the byte's two's complement, then zero bytes."""

    __slots__ = ()


class S16(int):
    """A negative ``c_short`` argument: its slot is the two-byte two's complement, then zero bytes."""

    __slots__ = ()


class S32(int):
    """A negative ``c_int`` argument: its slot is the four-byte two's complement, then zero bytes."""

    __slots__ = ()


#: the marked classes (compared by value and class, as plain ints and floats are)
MARKS = frozenset({F32, F64, F16, BF16, NaNBits, S8, S16, S32})
_WIDTH = {S8: 0xFF, S16: 0xFFFF, S32: 0xFFFFFFFF}


def slot(v: Any) -> bytes | None:
    """The 8 bytes of the binding's slot of a marked value ``v`` (little-endian), None for any other value."""
    t = v.__class__
    if t is F32:
        return _PACK_F(v) + _ZERO4
    if t is F64:
        return _PACK_D(v)
    if t is F16:
        return _PACK_E(v) + _ZERO6
    if t is BF16:
        return _PACK_F(v)[2:] + _ZERO6
    if t is NaNBits:
        raw: bytes = v.raw
        return raw + b"\0" * (8 - len(raw))
    mask = _WIDTH.get(t)
    if mask is None:
        return None
    return (int(v) & mask).to_bytes(8, "little")
