"""Host-side values as C sees them: a kernel argument as a ctypes slot, a host buffer as an address.

Core helpers the faces and the native route share (the tuple face's getters, the native decoders): plain
ctypes, no face types, so the native route stands on the core alone (issue 18 item 1).
"""
from __future__ import annotations

import ctypes
import struct
from typing import Any

from .arg_bits import slot
from .module_model import struct_format
from .param_types import bf16_bits, size_of


def buffer_address(obj: Any) -> tuple[int, Any]:
    """``(address, keep_alive)`` of an object with the buffer protocol.

    numpy arrays give their data address; writable buffers their own memory; read-only ones
    (``bytes``) their internal storage through ``c_char_p`` when possible, else a copy.
    """
    iface = getattr(obj, "__array_interface__", None)
    if iface is not None:
        return int(iface["data"][0]), obj
    if isinstance(obj, (ctypes._SimpleCData, ctypes.Structure, ctypes.Array, ctypes.Union)):
        return ctypes.addressof(obj), obj
    if isinstance(obj, bytes):
        return ctypes.cast(ctypes.c_char_p(obj), ctypes.c_void_p).value or 0, obj
    mv = memoryview(obj)
    if not mv.readonly:
        c = (ctypes.c_char * mv.nbytes).from_buffer(mv.cast("B") if mv.format != "B" else mv)
        return ctypes.addressof(c), (c, mv)
    c = (ctypes.c_char * mv.nbytes).from_buffer_copy(mv)
    return ctypes.addressof(c), c


def arg_slot(ptype: str | None, v: Any) -> Any:
    """One kernel argument as a ctypes object to put in a ``kernelParams`` array a getter hands out (the tuple
    face's ``cuGraphKernelNodeGetParams`` and the native decoder both): packed by the kernel's parameter type
    when it has one and can size it (``struct`` format of :func:`simcuda._core.modules.module_model.struct_format`; a
    marked value, :mod:`simcuda._core.modules.arg_bits`, as its slot's bytes), a
    ``ctypes.Structure`` as it is, else a double for a float, the bytes for bytes, an unsigned 64-bit integer
    otherwise."""
    if isinstance(v, ctypes.Structure):
        return v
    marked = slot(v)
    if marked is not None:  # a value that keeps the width its launch gave it: those bytes, the kernel's many
        n = size_of(ptype) if ptype is not None else None
        held = marked[:n].ljust(n, b"\0") if n else marked
        return ctypes.create_string_buffer(held, len(held))
    if ptype is not None:
        try:
            fmt = struct_format(ptype)
            if (v.__class__ is int or v.__class__ is bool) and fmt not in _INTEGER_FORMATS:
                return _int_bits(v, size_of(ptype) or 8)  # a float or byte-array parameter: the int's bits
            raw = (struct.pack("<H", bf16_bits(v)) if fmt == "bf16" else struct.pack(fmt, v))
        except (struct.error, TypeError, ValueError):  # ValueError: a type it cannot size (Unsized)
            raw = None
        if raw is not None:
            return ctypes.create_string_buffer(raw, len(raw))
    if isinstance(v, float):
        return ctypes.c_double(v)
    if isinstance(v, bytes):
        return ctypes.create_string_buffer(v, len(v))
    return ctypes.c_uint64(int(v) & (2 ** 64 - 1))


#: the ``struct`` formats of the integer C types (every other sized type is a float or a byte array)
_INTEGER_FORMATS = frozenset("bBhHiIlLqQ")


def _int_bits(v: int, n: int) -> Any:
    """An ``int`` argument for an ``n``-byte parameter that is not an integer type, as the engine's parameter
    buffer reads it (:func:`simcuda._core.modules.ptxrun.pack_params`: its bits, never a number converted): a negative
    one in 64-bit two's complement, zero bytes above."""
    m = max(n, 8)
    raw = (v & (2 ** 64 - 1) if v < 0 else v & ((1 << (8 * m)) - 1)).to_bytes(m, "little")[:n]
    return ctypes.create_string_buffer(raw, n)
