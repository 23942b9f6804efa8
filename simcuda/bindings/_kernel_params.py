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

The core receives a plain list of Python values: ints for pointers and integers, floats,
``bytes`` for ``c_char``, and a ``ctypes.Structure`` as its ``bytes`` at the time of the call (passed by
value: the driver copies the argument bytes at the launch), which is also what a ``void**`` array gives for a
struct parameter (:mod:`simcuda._core.param_types`), so ``launch.args`` is the same for both forms.
"""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Any

from .._core.arg_slots import arg_slot as arg_slot  # re-exported: the tuple face's getters use it
from ._driver_types import Wrapper, buffer_address, c_uint, is_enum_member

if TYPE_CHECKING:
    from .._core.driver import Driver

_SUPPORTED = frozenset({ctypes.c_bool, ctypes.c_char, ctypes.c_wchar, ctypes.c_byte, ctypes.c_ubyte, ctypes.c_short,
                        ctypes.c_ushort, ctypes.c_int, ctypes.c_uint, ctypes.c_long, ctypes.c_ulong,
                        ctypes.c_longlong, ctypes.c_ulonglong, ctypes.c_size_t, ctypes.c_float, ctypes.c_double})
_STRICT = {ctypes.c_int: (-(2 ** 31), 2 ** 31 - 1), ctypes.c_byte: (-128, 127),
           ctypes.c_longlong: (-(2 ** 63), 2 ** 63 - 1)}
_BAD_FORM = ("Argument 'kernelParams' is not a valid type: tuple[tuple[Any, ...], tuple[Any, ...]] or PyObject "
             "implimenting Buffer Protocol or Int")


def _none_typed(value: Any) -> Any:
    gp = getattr(value, "getPtr", None)
    if callable(gp):
        if isinstance(value, Wrapper) or hasattr(type(value), "__int__"):
            return int(value)
        return value
    if isinstance(value, ctypes.Structure):
        return bytes(value)  # by value: its bytes as they are now, as the driver copies them at the launch
    if is_enum_member(value):
        return int(value)
    raise TypeError(f"Provided argument is of type {type(value)} but expected Type {ctypes.Structure}, "
                    f"{ctypes.c_void_p} or CUDA Binding structure with getPtr() attribute")


def one_arg(value: Any, ctype: Any) -> Any:
    """The Python value the kernel sees for one ``(value, type)`` pair."""
    if ctype is None:
        return _none_typed(value)
    if ctype in _SUPPORTED:
        if isinstance(value, ctype):
            return value.value
        if ctype is ctypes.c_double and isinstance(value, ctypes.c_float):
            return value.value
        rng = _STRICT.get(ctype)
        if rng is not None and type(value) is int:
            if not rng[0] <= value <= rng[1]:
                raise OverflowError(f"value too large to convert to {ctype.__name__}")
            return value
        if ctype is ctypes.c_double and type(value) is float:
            return value
        return ctype(value).value
    if ctype is ctypes.c_void_p:
        if isinstance(value, int):
            return int(value)
        if isinstance(value, ctypes.c_void_p):
            return value.value or 0
        gp = getattr(value, "getPtr", None)
        if callable(gp):
            return gp()
        raise TypeError(f"Provided argument is of type {type(value)} but expected Type {int}, {ctypes.c_void_p} "
                        "or CUDA Binding structure with getPtr() attribute")
    raise TypeError(f"Unsupported type: {ctype!r}")


_c_int, _c_float, _c_double, _c_void_p = ctypes.c_int, ctypes.c_float, ctypes.c_double, ctypes.c_void_p
_INT_MIN, _INT_MAX = _STRICT[_c_int]
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
                    if (t is _c_int and _INT_MIN <= v <= _INT_MAX) or t is _c_void_p:
                        out.append(v)
                        continue
                elif c is float:
                    if t is _c_float:
                        out.append(_c_float(v).value)
                        continue
                    if t is _c_double:
                        out.append(v)
                        continue
                out.append(one_arg(v, t))
                fixed = False
            if fixed:
                _last = (kp, out, tuple(read))
            return out
    if isinstance(kp, int):
        kp = c_uint(kp, 64, "unsigned PY_LONG_LONG")  # <void_ptr> of the real helper: OverflowError texts
        return drv.decode_kernel_args(hfunc, kp, call) if kp else []
    if type(kp) is tuple and len(kp) == 2 and isinstance(kp[0], tuple) and isinstance(kp[1], tuple):
        values, types = kp
        if len(values) != len(types):
            raise TypeError("Argument 'kernelParams' has tuples with different length")
        return [one_arg(v, t) for v, t in zip(values, types)]
    try:
        memoryview(kp)
    except TypeError:
        raise TypeError(_BAD_FORM) from None
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
    if type(kp) is tuple and len(kp) == 2 and isinstance(kp[0], tuple) and isinstance(kp[1], tuple):
        if len(kp[0]) != len(kp[1]):
            raise TypeError("Argument 'kernelParams' has tuples with different length")
        for v, t in zip(*kp):
            one_arg(v, t)
        return
    try:
        memoryview(kp)
    except TypeError:
        raise TypeError(_BAD_FORM) from None


def pack(kp: Any) -> Any:
    """A real ``void**`` array for ``(values, types)`` (what ``CUDA_KERNEL_NODE_PARAMS.kernelParams`` reads back)."""
    if type(kp) is not tuple:
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
        else:
            c = t(one_arg(v, t))
        slots.append(c)
        ptrs[i] = ctypes.addressof(c)
    ptrs._simcuda_keep = slots  # type: ignore[attr-defined]  # keeps the slots alive; ctypes arrays take attributes
    return ptrs
