"""``kernelParams`` of ``cuLaunchKernel`` (and kernel nodes), in every form the real binding takes.

The rules are those of cuda-bindings 13.5.0's ``_HelperKernelParams`` / ``_pack_argument``
(``cuda/bindings/_lib/utils.pxi``), restated:

* ``None`` (or ``0``): no arguments.
* an ``int``: the address of a ``void**`` array; the simulator decodes it with the parameter
  types it read from the module (:meth:`simcuda.Driver.decode_kernel_args`).
* an object with the buffer protocol (a numpy array of addresses): the same, at its data address.
* ``(values, types)``, two tuples of equal length (else ``TypeError: Argument 'kernelParams' has
  tuples with different length``). For each pair:

  * type ``None``: the value must have a callable ``getPtr`` (a binding wrapper or struct: the kernel
    sees the wrapped value), be a ``ctypes.Structure`` (passed by value), or be an enum member
    (an ``int``); anything else raises ``TypeError`` (a plain ``ctypes.c_int`` too, as in the real);
  * a supported ctypes scalar type (``c_bool``, ``c_char``, ``c_wchar``, ``c_byte``, ``c_ubyte``,
    ``c_short``, ``c_ushort``, ``c_int``, ``c_uint``, ``c_long``, ``c_ulong``, ``c_longlong``,
    ``c_ulonglong``, ``c_size_t``, ``c_float``, ``c_double``): the value converted by that type
    (``c_int``, ``c_byte``, ``c_longlong`` with a Python int are range-checked, ``c_double`` takes
    a ``c_float`` too);
  * ``c_void_p``: an ``int``, a ``c_void_p`` or an object with ``getPtr`` (then the *address of the
    wrapper's storage*, exactly as the real binding passes it);
  * any other type: ``TypeError: Unsupported type: ...``.

* anything else: ``TypeError: Argument 'kernelParams' is not a valid type: ...``.

The binding packs each scalar into a zeroed 8-byte slot, and the driver reads as many bytes at each pointer as
the kernel's parameter has (so a ``c_uint`` holding a float's bits is that float for an ``.f32`` parameter). The
core receives a list of Python values that keep those bytes: ints for pointers and integers (their bits, never
converted), a ``c_float``/``c_double`` value or a negative ``c_byte``/``c_short``/``c_int`` marked with its width
(:mod:`simcuda._core.modules.arg_bits`: a ``float``/``int`` subclass, so a Python twin sees the number), ``bytes`` for
``c_char``, a ``c_wchar``'s code point, and a ``ctypes.Structure`` (or a binding struct with ``getPtr``, type
``None``) as its ``bytes`` at the time of the call (passed by value: the driver copies the argument bytes at the
launch), which is also what a ``void**`` array gives for a struct parameter (:mod:`simcuda._core.modules.param_types`).
The kernel engine's parameter buffer is made of those bytes (:func:`simcuda._core.modules.ptxrun.pack_params`), the same
bytes the native route's ``void**`` arrays hand it.
"""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any

from ..._core.modules.arg_bits import F32, F64, S8, S16, S32
from ..._core.modules.arg_slots import arg_slot as arg_slot  # re-exported: the tuple face's getters use it
from ..._core.modules.arg_slots import buffer_address
from ._scalars import Wrapper, c_uint, is_enum_member

if TYPE_CHECKING:
    from ..._core.facade import Driver

_SUPPORTED = frozenset({ctypes.c_bool, ctypes.c_char, ctypes.c_wchar, ctypes.c_byte, ctypes.c_ubyte, ctypes.c_short,
                        ctypes.c_ushort, ctypes.c_int, ctypes.c_uint, ctypes.c_long, ctypes.c_ulong,
                        ctypes.c_longlong, ctypes.c_ulonglong, ctypes.c_size_t, ctypes.c_float, ctypes.c_double})
#: the ctypes a Python int is stored into directly (13.5's ``_try_specific_types``): range, and the OverflowError
#: text of Cython's conversion outside it
_STRICT = {ctypes.c_int: (-(2 ** 31), 2 ** 31 - 1, "value too large to convert to int"),
           ctypes.c_byte: (-128, 127, "value too large to convert to int8_t"),
           ctypes.c_longlong: (-(2 ** 63), 2 ** 63 - 1, "Python int too large to convert to C long")}
_U64 = 2 ** 64
_c_int, _c_float, _c_double, _c_void_p = ctypes.c_int, ctypes.c_float, ctypes.c_double, ctypes.c_void_p
#: the signed ctypes narrower than a slot: a negative value of one is marked with its width
_NARROW = {ctypes.c_byte: S8, ctypes.c_short: S16, ctypes.c_int: S32}
_BAD_FORM = ("Argument 'kernelParams' is not a valid type: tuple[tuple[Any, ...], tuple[Any, ...]] or PyObject "
             "implimenting Buffer Protocol or Int")


def _none_typed(value: Any) -> Any:
    gp = getattr(value, "getPtr", None)
    if callable(gp):
        if isinstance(value, Wrapper) or hasattr(type(value), "__int__"):
            return int(value)
        return _storage_bytes(value, gp)
    if isinstance(value, ctypes.Structure):
        return bytes(value)  # by value: its bytes as they are now, as the driver copies them at the launch
    if is_enum_member(value):
        v = int(value)
        return v if v >= 0 else S32(v)  # packed as a C int
    raise TypeError(f"Provided argument is of type {type(value)} but expected Type {ctypes.Structure}, "
                    f"{ctypes.c_void_p} or CUDA Binding structure with getPtr() attribute")


def _storage_bytes(value: Any, gp: Any) -> bytes:
    """The bytes of a binding struct passed by value (type ``None``): the C image its ``getPtr()`` points at,
    as they are at the call (the driver copies the argument then); as many bytes as the image has (8 when its
    size is unknown [I])."""
    addr = int(gp())
    keep = getattr(value, "_keep", None)
    size = ctypes.sizeof(keep) if isinstance(keep, (ctypes.Structure, ctypes.Union, ctypes.Array)) else 8
    return ctypes.string_at(addr, size)


def _marked(ctype: Any, v: Any) -> Any:
    """The value a ctypes scalar ``ctype`` holding ``v`` (its ``.value``) passes: marked with its width where the
    plain value would not say which bytes the binding's slot holds (:mod:`simcuda._core.modules.arg_bits`)."""
    if ctype is _c_float:
        return F32(v)
    if ctype is _c_double:
        return F64(v)
    mark = _NARROW.get(ctype)
    if mark is not None:
        return mark(v) if v < 0 else v
    if ctype is ctypes.c_wchar:
        return ord(v)  # a wchar_t: the code point, in four bytes
    return v


def one_arg(value: Any, ctype: Any) -> Any:
    """The value the kernel sees for one ``(value, type)`` pair, as :func:`_pack_argument` of cuda-bindings 13.5
    packs it: plain where the value says its bytes, marked with its width otherwise (:func:`_marked`)."""
    if ctype is None:
        return _none_typed(value)
    if ctype in _SUPPORTED:
        if isinstance(value, ctype):
            return _marked(ctype, value.value)
        if ctype is ctypes.c_double and isinstance(value, ctypes.c_float):
            return F64(value.value)
        rng = _STRICT.get(ctype)
        if rng is not None and type(value) is int:
            if not rng[0] <= value <= rng[1]:
                raise OverflowError(rng[2])
            return _marked(ctype, value)
        if ctype is ctypes.c_double and type(value) is float:
            return F64(value)
        return _marked(ctype, ctype(value).value)
    if ctype is ctypes.c_void_p:
        if isinstance(value, int):  # a void_ptr (uintptr_t): Cython's OverflowError texts outside it
            return c_uint(int(value), 64, "unsigned PY_LONG_LONG")
        if isinstance(value, ctypes.c_void_p):
            if value.value is None:  # a NULL c_void_p: the real stores its .value, None, in a void_ptr
                raise TypeError("an integer is required")
            return value.value
        gp = getattr(value, "getPtr", None)
        if callable(gp):
            return gp()
        raise TypeError(f"Provided argument is of type {type(value)} but expected Type {int}, {ctypes.c_void_p} "
                        "or CUDA Binding structure with getPtr() attribute")
    raise TypeError(f"Unsupported type: {ctype!r}")


_INT_MIN, _INT_MAX = _STRICT[_c_int][:2]
_wrapper_int = Wrapper.__int__
_wrapper_getptr = Wrapper.getPtr
#: type -> whether its values are wrappers whose None-typed value is their C value (``Wrapper.__int__``)
_PLAIN: dict[type, bool] = {}


def _plain_wrapper(cls: type) -> bool:
    """Whether values of ``cls`` are plain wrappers (see :data:`_PLAIN`), remembered there."""
    ok = _PLAIN[cls] = (issubclass(cls, Wrapper) and cls.__int__ is _wrapper_int
                        and cls.getPtr is _wrapper_getptr)
    return ok


#: the last ``(values, types)`` converted from immutable values only: ``(kp, values the core takes,
#: wrappers read)``. The same tuple again converts to the same list, unless one of those wrappers has
#: since been given real storage (``getPtr``), whose value C code may change. The list is never mutated
#: (the core stores it in immutable parameter records), so it is handed out again as it is.
_last: tuple[Any, Any, tuple[Any, ...]] = (None, None, ())


def kernel_args(drv: Driver, hfunc: int, kp: Any, call: str = "cuLaunchKernel") -> list[Any]:
    """Decode ``kernelParams`` (any accepted form) into the list of values the core takes (``call`` names
    the entry point in the error log when an address form points at unreadable memory).

    ``(values, types)`` pairs of the common kinds (a wrapper with type ``None``, an ``int`` for ``c_int``
    or ``c_void_p``, a ``float`` for ``c_float`` or ``c_double``) are converted inline, exactly as
    :func:`one_arg` converts them; every other pair goes through :func:`one_arg`, in order.
    """
    global _last
    if kp is None:
        return []
    if type(kp) is tuple and len(kp) == 2:
        last = _last
        if kp is last[0]:
            for w in last[2]:
                if w._buf is not None:
                    break
            else:
                cached: list[Any] = last[1]
                return cached
        values, types = kp
        if type(values) is tuple and type(types) is tuple and len(values) == len(types):
            out = []
            read = []
            fixed = True  # every value immutable (or a wrapper without real storage, kept in read)
            for v, t in zip(values, types):
                c = type(v)
                if t is None:
                    if _PLAIN.get(c) or (c not in _PLAIN and _plain_wrapper(c)):
                        b = v._buf
                        if b is None:
                            out.append(v._v)
                            read.append(v)
                        else:
                            out.append(int(b.value))
                            fixed = False
                        continue
                elif c is int:
                    if (t is _c_void_p and 0 <= v < _U64) or (t is _c_int and 0 <= v <= _INT_MAX):
                        out.append(v)
                        continue
                    if t is _c_int and _INT_MIN <= v < 0:
                        out.append(S32(v))
                        continue
                elif c is float:
                    if t is _c_float:
                        out.append(F32(_c_float(v).value))
                        continue
                    if t is _c_double:
                        out.append(F64(v))
                        continue
                out.append(one_arg(v, t))
                fixed = False
            if fixed:
                _last = (kp, out, tuple(read))
            return out
    if isinstance(kp, int):
        kp = c_uint(kp, 64, "unsigned PY_LONG_LONG")  # <void_ptr> of the real helper: OverflowError texts
        return drv.decode_kernel_args(hfunc, kp, call) if kp else []
    if _is_pair(kp):
        values, types = kp
        if len(values) != len(types):
            raise TypeError("Argument 'kernelParams' has tuples with different length")
        return [one_arg(v, t) for v, t in zip(values, types)]
    _check_buffer(kp)
    addr, keep = buffer_address(kp)
    out = drv.decode_kernel_args(hfunc, addr, call)
    del keep
    return out


def given(kp: Any) -> bool:
    """Whether ``kernelParams`` reaches the driver as a non-NULL pointer: anything but ``None`` and ``0``
    (the forms of :func:`kernel_args`)."""
    return not (kp is None or (isinstance(kp, int) and not kp))


def check_form(kp: Any) -> None:
    """Raise the real binding's TypeError for a ``kernelParams`` of a form it refuses."""
    if kp is None:
        return
    if isinstance(kp, int):
        c_uint(kp, 64, "unsigned PY_LONG_LONG")
        return
    if _is_pair(kp):
        if len(kp[0]) != len(kp[1]):
            raise TypeError("Argument 'kernelParams' has tuples with different length")
        for v, t in zip(*kp):
            one_arg(v, t)
        return
    _check_buffer(kp)


def _is_pair(kp: Any) -> bool:
    """Whether ``kp`` is the ``(values, types)`` form: a 2-tuple of tuples, subclasses (a namedtuple) included, as
    the real helper's ``isinstance`` checks take them."""
    return isinstance(kp, tuple) and len(kp) == 2 and isinstance(kp[0], tuple) and isinstance(kp[1], tuple)


class _PyBuffer(ctypes.Structure):
    """CPython's ``Py_buffer`` (what ``PyObject_GetBuffer`` fills)."""
    _fields_ = [("buf", ctypes.c_void_p), ("obj", ctypes.py_object), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int), ("ndim", ctypes.c_int),
                ("format", ctypes.c_char_p), ("shape", ctypes.c_void_p), ("strides", ctypes.c_void_p),
                ("suboffsets", ctypes.c_void_p), ("internal", ctypes.c_void_p)]


#: ``PyBUF_SIMPLE | PyBUF_ANY_CONTIGUOUS``, the flags the real helper asks the buffer for
_ANY_CONTIGUOUS = 0x0080 | 0x0010 | 0x0008
_get_buffer = ctypes.pythonapi.PyObject_GetBuffer
_get_buffer.argtypes = [ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int]
_release_buffer = ctypes.pythonapi.PyBuffer_Release
_release_buffer.argtypes = [ctypes.POINTER(_PyBuffer)]


def _check_buffer(kp: Any) -> None:
    """Raise what the real helper raises for a ``kernelParams`` that is not an address, a pair or a contiguous
    buffer: its ``TypeError`` without the buffer protocol, else the exporter's own error for a contiguous view
    (numpy's ``ValueError: ndarray is not contiguous`` for a strided array), as ``PyObject_GetBuffer`` raises it."""
    try:
        memoryview(kp)
    except TypeError:
        raise TypeError(_BAD_FORM) from None
    view = _PyBuffer()
    _get_buffer(kp, ctypes.byref(view), _ANY_CONTIGUOUS)  # raises the exporter's exception (ctypes.pythonapi)
    _release_buffer(ctypes.byref(view))


def pack(kp: Any) -> Any:
    """A real ``void**`` array for ``(values, types)`` (what ``CUDA_KERNEL_NODE_PARAMS.kernelParams`` reads back)."""
    if not _is_pair(kp):
        return None
    values, types = kp
    if len(values) != len(types):
        raise TypeError("Argument 'kernelParams' has tuples with different length")
    slots: list[Any] = []
    ptrs = (ctypes.c_void_p * max(len(values), 1))()
    for i, (v, t) in enumerate(zip(values, types)):
        if t is None:
            gp = getattr(v, "getPtr", None)
            if callable(gp):
                ptrs[i] = gp()
                slots.append(v)
                continue
            if isinstance(v, ctypes.Structure):
                ptrs[i] = ctypes.addressof(v)
                slots.append(v)
                continue
            c: ctypes._SimpleCData[Any] = ctypes.c_int(int(_none_typed(v)))
        elif t is ctypes.c_void_p:
            c = ctypes.c_void_p(one_arg(v, t))
        elif t is ctypes.c_wchar:
            c = t(chr(one_arg(v, t)))
        else:
            c = t(one_arg(v, t))
        slots.append(c)
        ptrs[i] = ctypes.addressof(c)
    ptrs._simcuda_keep = slots  # type: ignore[attr-defined]  # keeps the slots alive; ctypes arrays take attributes
    return ptrs
