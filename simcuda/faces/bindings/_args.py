"""Argument conversions the Python faces share (the tuple face and the runtime face), under public names.

Mirrors: how ``cuda.bindings``' Cython wrappers convert a Python argument before the call (handles, C integers,
``char*`` buffers) and the type names they print in the ``TypeError`` / ``OverflowError`` they raise. The
faces import these rather than each other's private helpers (issue 18, item 2); nothing here decides a code.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import _state as _st
from . import _driver_types as _T

if TYPE_CHECKING:
    pass

__all__ = ["bytes_arg", "current_driver", "handle", "int32", "size_t", "type_name", "uint"]


#: the current driver as every face acts on it: the one definition (:func:`simcuda._state.face_driver`)
current_driver = _st.face_driver


def type_name(t: type) -> str:
    """The type name CPython prints for ``t`` in conversion errors: the module-qualified name for the binding's
    own classes (``cuda.bindings.driver.CUstream``, as the real extension types print), else ``__name__``."""
    if t.__module__ in ("simcuda.faces.bindings.driver", "simcuda.faces.bindings.runtime"):
        return f"{t.__module__.replace('simcuda.faces.', 'cuda.')}.{t.__name__}"
    if t.__module__ not in ("builtins", "__main__") and t.__module__.startswith("cuda.bindings"):
        return f"{t.__module__}.{t.__name__}"
    return t.__name__


def handle(x: Any, cls: type[_T.Wrapper]) -> int:
    """A handle argument as an ``int``: ``None`` (0), an ``int``, or the wrapper class ``cls`` (anything else
    with ``__int__`` goes through ``cls``: ``TypeError`` / ``OverflowError`` as the real wrapper)."""
    if type(x) is int and 0 <= x <= cls._hi:
        return x
    if x is None:
        return 0
    if isinstance(x, cls):
        return int(x)
    return int(cls(x))


def uint(x: Any, bits: int = 32, what: str = "unsigned int") -> int:
    """An unsigned C integer argument of ``bits`` bits (``OverflowError`` for a negative or too wide value, with
    the real texts naming the C type ``what``)."""
    if type(x) is int and x >= 0 and not x >> bits:
        return x
    return _T.c_uint(x, bits, what)


def size_t(x: Any) -> int:
    """A ``size_t`` argument (bytes or counts): :func:`uint` on 64 bits."""
    return uint(x, 64, "size_t")


def int32(x: Any) -> int:
    """A signed C ``int`` argument (``OverflowError`` outside 32 bits, with the real texts)."""
    if type(x) is int and -0x80000000 <= x <= 0x7FFFFFFF:
        return x
    return _T.c_int(x)


def bytes_arg(x: Any) -> bytes:
    """A ``char*`` argument as Cython converts it: ``bytes`` or ``bytearray`` only (``str``, ``None`` and
    ``memoryview`` raise ``TypeError: expected bytes, str found``); the driver reads a C string, so it ends at
    the first NUL byte."""
    if isinstance(x, (bytes, bytearray)):
        return bytes(x).split(b"\0", 1)[0]
    raise TypeError(f"expected bytes, {type_name(type(x))} found")
