"""The C scalars of the simulated binding faces: Cython's integer conversions and the wrapper base class.

What every face (and the ``kernelParams`` packer, :mod:`simcuda.faces.bindings._kernel_params`) converts a C scalar
argument with: :func:`to_int`, :func:`c_uint` and :func:`c_int` with cuda-bindings 13.5's exact error texts,
:class:`Wrapper` (a handle, pointer, id or callback holding one C value) and :func:`is_enum_member`. Kept apart
from the structs of :mod:`simcuda.faces.bindings._driver_types` (which re-exports them) so that the packer, which a
struct's ``kernelParams`` field calls, builds on these alone (tests/test_import_cycles.py).
"""
from __future__ import annotations

import ctypes
from typing import Any

from ..._generated._base import SimEnum


def to_int(x: Any) -> int:
    """Cython-style conversion to a C integer: ``int`` or anything with ``__int__`` (``nb_int``: a float is
    truncated, ``NaN`` raises ``ValueError``), else ``TypeError: an integer is required``. ``__index__``
    alone is not enough, as in the real wrappers."""
    if isinstance(x, int):
        return int(x)
    f = getattr(type(x), "__int__", None)
    if f is None:
        raise TypeError("an integer is required")
    v = f(x)
    if not isinstance(v, int):
        raise TypeError(f"__int__ returned non-int (type {type(v).__name__})")
    return int(v)


def c_uint(x: Any, bits: int = 32, cname: str = "unsigned int") -> int:
    """An unsigned C integer argument converted as Cython does, with its exact ``OverflowError`` texts:
    ``can't convert negative value to <cname>``, ``value too large to convert to <cname>`` (within 64
    bits) and ``Python int too large to convert to C unsigned long`` (beyond 64 bits)."""
    v = x if type(x) is int else to_int(x)
    if v < 0:
        raise OverflowError(f"can't convert negative value to {cname}")
    if v >> bits:
        if v >> 64:
            raise OverflowError("Python int too large to convert to C unsigned long")
        raise OverflowError(f"value too large to convert to {cname}")
    return v


def c_int(x: Any, bits: int = 32, cname: str = "int") -> int:
    """A signed C integer argument converted as Cython does: ``Python int too large to convert to C long``
    outside 64 bits, ``value too large to convert to <cname>`` outside ``bits``."""
    v = x if type(x) is int else to_int(x)
    if not -(1 << 63) <= v < 1 << 63:
        raise OverflowError("Python int too large to convert to C long")
    if not -(1 << (bits - 1)) <= v < 1 << (bits - 1):
        raise OverflowError(f"value too large to convert to {cname}")
    return v


class Wrapper:
    """Base of the simulated wrapper types (a C scalar: handle, pointer, id or callback)."""

    __slots__ = ("_v", "_buf")
    _ctype: Any = ctypes.c_uint64
    _lo, _hi = 0, 2 ** 64 - 1
    _hex = True

    _cname = "unsigned PY_LONG_LONG"

    def __init__(self, init_value: Any = 0, _ptr: Any = 0) -> None:
        v = init_value if type(init_value) is int else to_int(init_value)
        if v < self._lo or v > self._hi:
            if self._lo < 0:
                c_int(v, 32 if self._ctype is ctypes.c_int32 else 64, self._cname)
            c_uint(v, 32 if self._ctype is ctypes.c_uint32 else 64, self._cname)
        self._v = v
        self._buf = None
        if _ptr:
            self._buf = self._ctype.from_address(to_int(_ptr))
            self._buf.value = v

    @classmethod
    def _mk(cls, v: int) -> Wrapper:
        o = object.__new__(cls)
        o._v = v
        o._buf = None
        return o

    def __int__(self) -> int:
        b = self._buf
        return self._v if b is None else int(b.value)

    def getPtr(self) -> int:
        """Address of real memory that holds the C value (allocated on first call)."""
        if self._buf is None:
            self._buf = self._ctype(self._v)
        return ctypes.addressof(self._buf)

    def __repr__(self) -> str:
        v = int(self)
        return f"<{type(self).__name__} 0x{v:x}>" if self._hex else f"<{type(self).__name__} {v}>"


def is_enum_member(x: Any) -> bool:
    """True for members of the binding's enums (the real ``isinstance(value, FastEnum)`` check): simcuda's generated
    :class:`~simcuda._generated._base.SimEnum` members, and NVIDIA's FastEnum members; a user's own
    ``enum.IntEnum`` is not one (the real binding refuses it as a ``kernelParams`` value of type ``None``)."""
    if isinstance(x, SimEnum):
        return True
    return isinstance(x, int) and any(c.__name__ == "FastEnum" and c.__module__.startswith("cuda.bindings")
                                      for c in type(x).__mro__)
