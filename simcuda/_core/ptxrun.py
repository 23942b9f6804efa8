"""Running a kernel's PTX with the kernel engine (issue 17): the core's half of :mod:`simcuda.ptx.interface`.

:func:`run_ptx` is called by :meth:`simcuda._core.work.Work._run_kernel` when no Python twin is registered and the
kernel's module has PTX (:func:`simcuda._core.module.ptx_of_image`). It builds the parameter buffer from the
launch's decoded argument values laid out at the engine's ``KernelInfo.params`` offsets, hands the engine a
:class:`DriverMemory` over the driver's memory (zero-copy numpy views), and maps the engine's outcome to the
driver's: a :class:`~simcuda.ptx.Fault` to the sticky kernel fault of its code (spec 17), an
:class:`~simcuda.ptx.Unsupported` to ``CUDA_ERROR_NOT_SUPPORTED`` (801) with the engine's why.
"""
from __future__ import annotations

import struct
import sys
from typing import Any

import attrs

from .errors import CUresult, DriverError

#: struct formats of the PTX scalar float types; every other scalar is packed as an integer of its size
_FLOAT_FORMATS = {".f16": "<e", ".f32": "<f", ".f64": "<d"}


@attrs.define
class _Region:
    """One region the kernel may reach (:class:`simcuda.ptx.interface.Region`)."""
    start: int
    size: int
    data: Any


class DriverMemory:
    """The driver's memory as a kernel sees it (:class:`simcuda.ptx.interface.Memory`): device, managed, mapped
    graph and VMM memory, and pinned/registered host memory at its host address (the regions
    :meth:`simcuda._core.memory.MemorySpace.kernel_view` accepts), each a numpy ``uint8`` view over the backing
    store, not a copy. Strict bounds (memcheck-like) by default [I]."""

    def __init__(self, space: Any, gpu_like: bool = False) -> None:
        self._space = space
        self._gpu_like = gpu_like

    def region(self, addr: int) -> _Region | None:
        """The allocation or host buffer holding byte ``addr``, or None when it is unmapped."""
        import numpy as np
        space = self._space
        a = space.find(addr)
        if a is not None:
            start, size = a.start, a.size
        else:
            rec = space.host_lookup(addr)
            if rec is None:
                return None
            start, size = rec.start, rec.size
        try:
            view = space.kernel_view(start, size, "kernel access")
        except DriverError:  # freed, unmapped (graph memory outside its lifetime) or host memory it cannot map
            return None
        return _Region(start, size, np.frombuffer(view, dtype=np.uint8))

    def gpu_like(self) -> bool:
        """False: an access past an allocation faults even inside a mapped page [I] (issue 17 part 3)."""
        return self._gpu_like


def pack_params(name: str, info: Any, args: list[Any]) -> bytes:
    """The parameter buffer of kernel ``name`` (``info``: its :class:`simcuda.ptx.KernelInfo`): each decoded
    argument value at its parameter's offset, little-endian; ``bytes`` (a struct by value) as given, floats by
    the parameter's PTX float type, integers (and pointers) two's-complement in its size.

    Errors: ``CUDA_ERROR_INVALID_VALUE`` when the argument count differs from the kernel's parameter count.
    """
    if len(args) != len(info.params):
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"kernel {name!r} takes {len(info.params)} parameters, the launch gave {len(args)}")
    buf = bytearray(info.param_bytes)
    for p, v in zip(info.params, args):
        if isinstance(v, (bytes, bytearray, memoryview)):
            raw = bytes(v)[:p.size].ljust(p.size, b"\0")
        elif p.ptx_type in _FLOAT_FORMATS and p.size == struct.calcsize(_FLOAT_FORMATS[p.ptx_type]):
            raw = struct.pack(_FLOAT_FORMATS[p.ptx_type], float(v))
        elif isinstance(v, float):
            raw = struct.pack("<d" if p.size == 8 else "<f", v)[:p.size].ljust(p.size, b"\0")
        else:
            raw = (int(v) & ((1 << (8 * p.size)) - 1)).to_bytes(p.size, "little")
        buf[p.offset:p.offset + p.size] = raw
    return bytes(buf)


def engine_module(module: Any) -> Any:
    """The engine's parsed module of a loaded :class:`~simcuda._core.objects.Module` (parsed on its first
    launch, kept on it). Raises what :func:`simcuda.ptx.load` raises."""
    if module.engine is None:
        from .. import ptx
        module.engine = ptx.load(module.ptx)
    return module.engine


def _hooks(driver: Any) -> Any:
    """The engine's hooks: ``vprintf`` output to stdout; device malloc/free and set_conditional not yet wired
    (the engine refuses them with a Fault naming them)."""
    from ..ptx import Hooks

    def printf(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()
    return Hooks(printf=printf, should_stop=lambda: False)


def run_ptx(driver: Any, p: Any, unlocked: Any) -> tuple[bool, str]:
    """Run the PTX of launch ``p`` (:class:`~simcuda._core.nodes.KernelParams`) with the engine, the driver
    lock released (``unlocked(fn, *args)``). Returns ``(ran, outcome)``: the launch log's outcome text, and
    False when the kernel was recorded only: the engine refused the whole module at load, or the launch gave
    no argument values matching the kernel's parameters (a NULL ``kernelParams``; recorded only, as before
    issue 17 [I]; the real driver would run it with garbage parameters).

    Errors (as :class:`DriverError`; the caller turns them into the sticky kernel fault): the engine's
    :class:`~simcuda.ptx.Fault` code (700 illegal address, 716 misaligned, 710 assert, 719 launch failed) with
    its why; 801 NOT_SUPPORTED for a form the engine refuses; 218 INVALID_PTX for PTX it cannot parse; 500
    NOT_FOUND when the module's PTX has no entry of that name.
    """
    from .. import ptx
    module = p.func.module
    try:
        eng = engine_module(module)
    except ptx.PtxParseError as e:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_PTX,
                          f"kernel {p.name!r}: the engine cannot parse its module's PTX (line {e.line}): "
                          f"{e.why}") from e
    except ptx.Unsupported as e:  # the engine refused the module (or is not built): recorded only
        return False, f"recorded only (the kernel engine refused its module: {e.why})"
    info = eng.kernels.get(p.name)
    if info is None:
        raise DriverError(CUresult.CUDA_ERROR_NOT_FOUND, f"kernel {p.name!r} is not an .entry of its module's PTX")
    if len(p.args) != len(info.params):  # e.g. kernelParams NULL: nothing to run it with [I]
        return False, "recorded only (no argument values for its parameters)"
    params = pack_params(p.name, info, list(p.args))
    memory = DriverMemory(driver.memory)
    try:
        unlocked(eng.launch, p.name, tuple(p.grid), tuple(p.block), int(p.shmem), params, memory, _hooks(driver))
    except ptx.Fault as e:
        raise DriverError(CUresult(e.code), f"kernel {p.name!r} faulted: {e.why}") from e
    except ptx.Unsupported as e:
        raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                          f"kernel {p.name!r} uses PTX the engine does not run: {e.why}") from e
    return True, "ran PTX"
