"""Readers of a ``void **kernelParams`` array on the native route's launch path, one per kernel function.

Mirrors: what the real driver does with ``cuLaunchKernel``'s ``kernelParams``: it reads ``n`` pointers, then
each argument's bytes by the kernel's parameter types (the image's, as the core parsed them). The values are
those :meth:`simcuda.Driver.packed_kernel_args` gives (ctypes reads by the same types: ``int``, ``bool``,
``float`` of a ``float``'s precision, a 16-bit float marked with its type
(:mod:`simcuda._core.modules.arg_bits`), ``bytes`` of a struct passed by value); this module only reads them for
less, which is what the native route's cost (issue 9, ``benchmarks/bench_native.py``) is mostly made of:

* the memory is read through one ``memoryview`` over the process's address space (:data:`MEMORY`) with
  ``struct.Struct.unpack_from`` at the pointer's address, instead of one ctypes object per pointer array and
  per argument (the same reads of the same bytes, as ctypes' ``from_address`` reads them);
* a function's reader is Python code generated once per signature (:func:`reader`), one ``unpack_from`` per
  argument with no loop;
* when every argument has the bits of the reader's last read, the reader returns the list it returned then,
  so the core reuses that launch's checked parameters by identity, as it does for the Python face that passes
  the same objects again (the values are equal bit for bit: a ``float``'s bits are compared, so ``-0.0`` is
  not ``0.0``, and a NaN's payload counts). The list is never changed once returned (the core treats launch
  arguments as immutable).

A reader returns None for an array with a NULL argument pointer (the caller reads it the general way, which
reads such an argument as 0). Whether the memory is readable is not checked (the caller is NVIDIA's binding,
which packed the array itself, and the real driver trusts it: ``packed_kernel_args``'s rule), but an address
no process can read, below :data:`ADDRESS_LOW` or at :data:`ADDRESS_HIGH` and above, is refused before it is
read, for the array and each argument pointer (:func:`check_address`: CUDA_ERROR_INVALID_VALUE [I: the real
driver reads it and crashes; docs/native.md]).
"""
from __future__ import annotations

import ctypes
import platform
import struct
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from ..._core.errors import CUresult, DriverError
from ..._core.modules.arg_bits import BF16, F16, NaNBits
from ..._core.modules.module_model import struct_format
from ..._core.modules.param_types import bf16_value
from ..._core.process import renew_lock_after_fork

#: the process's address space as bytes: offset ``a`` is address ``a`` (read only by ``unpack_from``)
MEMORY = memoryview((ctypes.c_ubyte * sys.maxsize).from_address(0))

#: the lowest address a process can map (Linux's default ``vm.mmap_min_addr``): the first 64 KiB are never
#: readable, so a pointer below it (1, 0x10...) is refused rather than read
ADDRESS_LOW = 1 << 16
#: the end of the user address space (47 bits on x86-64, 48 on AArch64): a pointer at or above it is refused
ADDRESS_HIGH = 1 << (47 if platform.machine() in ("x86_64", "AMD64", "i686") else 48)


def wild(what: str, addr: int) -> DriverError:
    """The error for a pointer no process can read (:func:`check_address`)."""
    return DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                       f"{what} 0x{addr:x} is not an address a process can read (below 0x{ADDRESS_LOW:x} or at "
                       f"0x{ADDRESS_HIGH:x} and above): refused before reading it [I: the real driver would crash]")


def check_address(addr: int, what: str = "kernelParams") -> None:
    """Raise CUDA_ERROR_INVALID_VALUE (:func:`wild`) for a non-NULL ``addr`` outside
    [:data:`ADDRESS_LOW`, :data:`ADDRESS_HIGH`): what no process can read, refused before it is read."""
    if addr and not ADDRESS_LOW <= addr < ADDRESS_HIGH:
        raise wild(what, addr)


#: the format a floating-point argument's bits are compared by (``float``, ``double``, ``__half``,
#: ``__nv_bfloat16``: a value compare would take ``-0.0`` for ``0.0``)
_BITS = {"f": "I", "d": "Q", "e": "H", "bf16": "H"}

_SIZES = {"f": 4, "d": 8, "e": 2, "bf16": 2}


def _keep(v: float, bits: int, n: int) -> float:
    """A float argument ``v`` read from the ``n`` bytes whose bits are ``bits``: itself, or for a NaN the
    :class:`~simcuda._core.modules.arg_bits.NaNBits` of those bytes (a Python float drops a half's payload and quiets a
    signalling NaN; the kernel is owed the launch's bytes)."""
    return v if v == v else NaNBits.of(v, bits.to_bytes(n, "little"))


_factories: dict[tuple[str, ...], Callable[..., Callable[[int], list[Any] | None]]] = {}
_lock = threading.Lock()
renew_lock_after_fork(globals(), "_lock")  # a forked child makes it anew

Reader = Callable[[int], "list[Any] | None"]


def formats(param_types: Sequence[str]) -> tuple[str, ...]:
    """The ``struct`` format of each C parameter type (:func:`simcuda._core.modules.module_model.struct_format`)."""
    return tuple(struct_format(t) for t in param_types)


def sizes(param_types: Sequence[str]) -> list[int]:
    """The byte size of each parameter (what a reader reads at each argument pointer): the launch memo's layout
    (:func:`simcuda.faces.native.set_layout`)."""
    return [struct.calcsize("=" + _BITS.get(f, f)) for f in formats(param_types)]


def _factory(fmts: tuple[str, ...]) -> Callable[..., Reader]:
    """The generated maker of readers of signature ``fmts`` (one per signature, made once)."""
    n = len(fmts)
    ptrs = ", ".join(f"a{i}" for i in range(n)) + ("," if n == 1 else "")
    keys = "".join(f"k{i}(mv, a{i}), " for i in range(n))
    values = ", ".join(f"keep(BF16(bf16_value(key[{i}][0])), key[{i}][0], 2)" if fmts[i] == "bf16" else
                       f"keep(F16(v{i}(mv, a{i})[0]), key[{i}][0], 2)" if fmts[i] == "e" else
                       f"keep(v{i}(mv, a{i})[0], key[{i}][0], {_SIZES[fmts[i]]})" if fmts[i] in _BITS
                       else f"key[{i}][0]" for i in range(n))
    params = "".join(f", k{i}, v{i}" for i in range(n))
    src = (f"def make(mv, pointers{params}):\n"
           f"    last = ((), None)\n"
           f"    def read(kp):\n"
           f"        nonlocal last\n"
           f"        if not LOW <= kp < HIGH:\n"
           f"            raise wild('kernelParams', kp)\n"
           f"        {ptrs} = p = pointers(mv, kp)\n"
           f"        if 0 in p:\n"
           f"            return None\n"
           f"        if min(p) < LOW or max(p) >= HIGH:\n"
           f"            raise wild('a kernelParams item', min(p) if min(p) < LOW else max(p))\n"
           f"        key = ({keys})\n"
           f"        seen = last\n"
           f"        if key == seen[0]:\n"
           f"            return seen[1]\n"
           f"        args = [{values}]\n"
           f"        last = (key, args)\n"
           f"        return args\n"
           f"    return read\n")
    scope: dict[str, Any] = {"bf16_value": bf16_value, "BF16": BF16, "F16": F16, "keep": _keep, "wild": wild,
                             "LOW": ADDRESS_LOW, "HIGH": ADDRESS_HIGH}
    exec(compile(src, f"<simcuda kernel-argument reader {''.join(fmts)}>", "exec"), scope)
    return scope["make"]  # type: ignore[no-any-return]


def reader(param_types: Sequence[str]) -> Reader:
    """A new reader of ``void**`` arrays of a kernel with C parameter types ``param_types`` (at least one).

    ``reader(kp)`` reads the array at address ``kp`` and returns the argument values as a list (the same list
    as its last call's when the bits are the same), or None when an argument pointer is NULL; an array or
    argument pointer no process can read raises CUDA_ERROR_INVALID_VALUE (:func:`wild`) before it is read. Each kernel
    function has a reader of its own (its last read is its own). Raises
    :class:`simcuda._core.modules.param_types.Unsized` for a type that cannot be sized (the caller then leaves the
    array to the core, which answers 801 for it)."""
    fmts = formats(param_types)
    if not fmts:
        raise ValueError("a kernel with no parameters has nothing to read")
    with _lock:
        make = _factories.get(fmts)
        if make is None:
            make = _factories[fmts] = _factory(fmts)
    unpackers: list[Any] = []
    for f in fmts:  # (a bfloat16's value is made from its bits: its second unpacker is never called)
        unpackers += [struct.Struct("=" + _BITS.get(f, f)).unpack_from,
                      struct.Struct("=" + (f if f != "bf16" else "H")).unpack_from]
    return make(MEMORY, struct.Struct(f"{len(fmts)}P").unpack_from, *unpackers)
