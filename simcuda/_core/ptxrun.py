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

from . import param_types
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


def _read_as_integer(declared: list[str] | None, i: int) -> bool:
    """Whether parameter ``i``'s value was read from the launch's bytes as an integer C type (a CUBIN's kernels
    have only sized unsigned types, docs/fidelity.md): an ``int`` value is then the bits the caller passed."""
    if not declared or i >= len(declared):
        return False
    try:
        return param_types.struct_format(declared[i]) in _INTEGER_FORMATS
    except param_types.Unsized:
        return False


_INTEGER_FORMATS = frozenset("bBhHiIlLqQ")


def pack_params(name: str, info: Any, args: list[Any], declared: list[str] | None = None) -> bytes:
    """The parameter buffer of kernel ``name`` (``info``: its :class:`simcuda.ptx.KernelInfo`): each decoded
    argument value at its parameter's offset, little-endian; ``bytes`` (a struct by value) as given, floats by
    the parameter's PTX float type, integers (and pointers) two's-complement in its size. ``declared`` (the
    function's parameter C types) says how the values were read: an ``int`` read as an integer type for a PTX
    float parameter (a CUBIN's kernel on the native route, whose image has sizes only) is the float's bits, not
    a number to convert.

    Errors: ``CUDA_ERROR_INVALID_VALUE`` when the argument count differs from the kernel's parameter count.
    """
    if len(args) != len(info.params):
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"kernel {name!r} takes {len(info.params)} parameters, the launch gave {len(args)}")
    buf = bytearray(info.param_bytes)
    for i, (p, v) in enumerate(zip(info.params, args)):
        if isinstance(v, (bytes, bytearray, memoryview)):
            raw = bytes(v)[:p.size].ljust(p.size, b"\0")
        elif (p.ptx_type in _FLOAT_FORMATS and isinstance(v, int) and not isinstance(v, bool)
              and _read_as_integer(declared, i)):
            raw = (v & ((1 << (8 * p.size)) - 1)).to_bytes(p.size, "little")
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


#: the mark of simcuda's NVRTC face's stand-in PTX (its reader's output when NVIDIA's NVRTC is not there: empty
#: kernel bodies, simcuda.bindings.nvrtc ``_ptx``)
STAND_IN_MARK = "Generated by simcuda's simulated NVRTC"


def stand_in(module: Any) -> str | None:
    """What kind of simcuda stand-in image ``module`` (a loaded :class:`~simcuda._core.objects.Module`) was
    loaded from, or None for a real one: ``"CUDA C source text"`` (simcuda's own fake image: the loader reads
    kernel names from source) or ``"simcuda's NVRTC stand-in PTX"`` (empty bodies). Their launches are recorded
    and listed, never refused: they are test doubles, with no kernel body to run (docs/kernels.md)."""
    if module.ptx is None and module.source is not None:
        return "CUDA C source text"
    if module.ptx is not None and STAND_IN_MARK in module.ptx[:400]:
        return "simcuda's NVRTC stand-in PTX"
    return None


def refusal(name: str) -> DriverError:
    """The documented refusal of a launch of kernel ``name`` whose module is a binary image (an ELF CUBIN or a
    fatbin) with no PTX simcuda knows, and that has no Python twin: ``CUDA_ERROR_NOT_SUPPORTED`` (801), the
    why naming the kernel and the remedies (docs/kernels.md, "Kernels that cannot run"; P-proposal in
    docs/spec-proposals.md) [I]: a real GPU would run its SASS, which the simulator cannot."""
    note = ""
    compilers = sys.modules.get("simcuda.native.compilers")
    if compilers is not None:
        off = {n: s for n, s in compilers.status().items() if not s.startswith("intercepting")}
        if off:
            note = " (on this native route: " + "; ".join(f"{n}: {s}" for n, s in off.items()) + ")"
    return DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                       f"kernel {name!r} cannot run: it has no Python twin and its module is a binary image (an ELF "
                       "CUBIN or a fatbin) whose PTX simcuda does not have; a CUBIN holds no PTX, and simcuda runs "
                       "kernels from PTX. Its PTX is known when the CUBIN was compiled in this process by NVRTC "
                       "(simcuda's nvrtc face, or NVIDIA's NVRTC on the native route), or linked by cuLink from PTX "
                       "or by NVIDIA's nvJitLink on the native route; not for a CUBIN compiled offline (nvcc) or in "
                       f"another process{note}. Remedies: register a Python twin "
                       f"(@simcuda.kernel({name!r})), compile the kernel through NVRTC in this process, or load its "
                       "PTX; Options(unrunnable_kernels='record') records such launches without running them")


def unrunnable(driver: Any, p: Any) -> str:
    """A launch ``p`` with no Python twin whose module has no PTX to run (or only a stand-in's): raise
    :func:`refusal` for a real binary image unless ``Options(unrunnable_kernels='record')``; else the launch
    log's outcome text (the launch is recorded only; the caller counts it among the kernels that could not run)."""
    module = p.func.module if p.func is not None else None
    if module is None:
        return "recorded only (no Python kernel registered)"
    kind = stand_in(module)
    if kind == "CUDA C source text":
        return "recorded only (no Python kernel registered)"
    if kind is not None:
        return f"recorded only (no Python kernel registered; its module is {kind})"
    if driver.options.unrunnable_kernels == "refuse":
        raise refusal(p.name)
    return "recorded only (no Python kernel registered, no PTX: Options(unrunnable_kernels='record'))"


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
    params = pack_params(p.name, info, list(p.args), getattr(p.func, "param_types", None))
    memory = DriverMemory(driver.memory)
    try:
        unlocked(eng.launch, p.name, tuple(p.grid), tuple(p.block), int(p.shmem), params, memory, _hooks(driver))
    except ptx.Fault as e:
        raise DriverError(CUresult(e.code), f"kernel {p.name!r} faulted: {e.why}") from e
    except ptx.Unsupported as e:
        raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                          f"kernel {p.name!r} uses PTX the engine does not run: {e.why}") from e
    return True, "ran PTX"
