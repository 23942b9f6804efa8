"""Running a kernel's PTX with the kernel engine (issue 17): the core's half of :mod:`simcuda.ptx.interface`.

:func:`run_ptx` is called by :meth:`simcuda._core.work.Scheduler.run_kernel` when no Python twin is registered and the
kernel's module has PTX (:func:`simcuda._core.modules.module_model.ptx_of_image`). It builds the parameter buffer from
the launch's decoded argument values laid out at the engine's ``KernelInfo.params`` offsets (once per launch record,
which its repeated launches and graph replays share), hands the engine a
:class:`DriverMemory` over the driver's memory (zero-copy numpy views, looked up once per region and launch), the
addresses of the module's ``.global``/``.const`` variables in the launch's context (allocated with their initial
values when the module loads, :mod:`simcuda._core.modules.symbol_entries`), and the hooks of :func:`engine_hooks`
(``vprintf`` output, the device heap of :class:`DeviceHeap`, ``cudaGraphSetConditional``, the stop poll), and maps
the engine's outcome to the driver's: a :class:`~simcuda.ptx.Fault` to the sticky kernel fault of its code (spec
17), an :class:`~simcuda.ptx.Unsupported` to ``CUDA_ERROR_NOT_SUPPORTED`` (801) with the engine's why.
"""
from __future__ import annotations

import struct
import sys
import threading
from typing import Any

import attrs

from ..errors import CUresult, DriverError
from . import arg_bits

#: struct formats of the PTX scalar float types; every other scalar is packed as an integer of its size
_FLOAT_FORMATS = {".f16": "<e", ".f32": "<f", ".f64": "<d"}

#: the kind of a device allocation (``simcuda._core.memory.memory_model.KIND_DEVICE``; not imported: this module stays
#: out of
#: the core's import cycle, tests/test_import_cycles.py)
KIND_DEVICE = "device"
#: CU_LIMIT_MALLOC_HEAP_SIZE's default, bytes (8 MiB, the driver's documented default)
DEFAULT_HEAP_SIZE = 8 * 1024 * 1024
_HEAP_ALIGN = 16

#: set by :func:`request_stop`: every running launch's stop poll answers True until :func:`clear_stop`
_STOP = threading.Event()


@attrs.define
class _Region:
    """One region the kernel may reach (:class:`simcuda.ptx.interface.Region`)."""
    start: int
    size: int
    data: Any


class DriverMemory:
    """The driver's memory as a kernel sees it (:class:`simcuda.ptx.interface.Memory`): device, managed, mapped
    graph and VMM memory, and pinned/registered host memory at its host address (the regions
    :meth:`simcuda._core.memory.memory_model.MemorySpace.kernel_view` accepts), each a numpy ``uint8`` view over the
    backing store, not a copy, made once per region for the launch this object serves (one per launch). Strict bounds
    (memcheck-like) by default [I]; ``gpu_like=True`` (``Options.kernel_bounds="gpu-like"``) for GPU-like ones."""

    def __init__(self, space: Any, gpu_like: bool = False) -> None:
        self._space = space
        self._gpu_like = gpu_like
        self._seen: list[_Region] = []  # the regions found during this launch, newest first

    def region(self, addr: int) -> _Region | None:
        """The allocation or host buffer holding byte ``addr``, or None when it is unmapped."""
        for r in self._seen:
            if r.start <= addr < r.start + r.size:
                return r
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
        found = _Region(start, size, np.frombuffer(view, dtype=np.uint8))
        self._seen.insert(0, found)
        return found

    def gpu_like(self) -> bool:
        """False (``Options.kernel_bounds="strict"``, the default): an access past an allocation faults even
        inside a mapped page [I]; True (``"gpu-like"``): one inside a page that holds an allocation goes
        unnoticed, as on a GPU (spec 17, issue 17 part 3)."""
        return self._gpu_like


class DeviceHeap:
    """The heap of device-side ``malloc``/``free`` in one context: one device allocation of the context's
    ``CU_LIMIT_MALLOC_HEAP_SIZE`` bytes, made at the first device ``malloc``, carved first-fit in 16-byte aligned
    blocks [I: the alignment CUDA's device malloc guarantees]. ``malloc`` of more than is free returns NULL (0), as
    device ``malloc`` does [D Programming Guide, "Dynamic Global Memory Allocation"]; the heap lives as long as the
    context (its allocation is the context's). Thread-safe (the engine calls it without the driver lock)."""

    def __init__(self, alloc: Any, size: int) -> None:
        self.alloc, self.start, self.size = alloc, int(alloc.start), size
        start = self.start
        self._free: list[tuple[int, int]] = [(start, size)]  # (address, bytes), by address
        self._used: dict[int, int] = {}  # address -> bytes
        self._lock = threading.Lock()

    def malloc(self, nbytes: int) -> int:
        """An address of ``nbytes`` bytes (rounded up to 16) of the heap, or 0 when no free block is large enough
        (``nbytes`` 0 also gives 0 [I])."""
        need = (max(int(nbytes), 0) + _HEAP_ALIGN - 1) // _HEAP_ALIGN * _HEAP_ALIGN
        if need == 0:
            return 0
        with self._lock:
            for i, (addr, n) in enumerate(self._free):
                if n >= need:
                    if n == need:
                        del self._free[i]
                    else:
                        self._free[i] = (addr + need, n - need)
                    self._used[addr] = need
                    return addr
        return 0

    def free(self, addr: int) -> None:
        """Give back a block :meth:`malloc` returned (``free(NULL)`` does nothing, as in C). Raises
        :class:`simcuda.ptx.Fault` 719 LAUNCH_FAILED for an address the heap did not hand out or already took back
        [I: undefined behaviour in CUDA; the simulator stops the kernel with a why]."""
        if not addr:
            return
        with self._lock:
            n = self._used.pop(int(addr), None)
            if n is not None:
                self._free.append((int(addr), n))
                self._free.sort()
                merged: list[tuple[int, int]] = []
                for a, m in self._free:
                    if merged and merged[-1][0] + merged[-1][1] == a:
                        merged[-1] = (merged[-1][0], merged[-1][1] + m)
                    else:
                        merged.append((a, m))
                self._free = merged
                return
        from ...ptx import Fault
        raise Fault(719, f"device free({int(addr):#x}): the address is not a block of the device heap that is "
                         "in use (not returned by malloc, or freed already)", address=int(addr))


def request_stop() -> None:
    """Ask every running kernel launch to stop at its next stop poll (the engine polls while lanes spin): the
    launch ends with ``CUDA_ERROR_LAUNCH_FAILED`` (719, sticky) and a why saying it was interrupted. For a host
    that interrupts a kernel running on another thread (Ctrl-C reaches the main thread only; a
    ``KeyboardInterrupt`` in the thread running the kernel stops that kernel at once). :func:`clear_stop` ends
    the request."""
    _STOP.set()


def clear_stop() -> None:
    """End a :func:`request_stop` (new launches run normally again)."""
    _STOP.clear()


def pack_params(name: str, info: Any, args: list[Any]) -> bytes:
    """The parameter buffer of kernel ``name`` (``info``: its :class:`simcuda.ptx.KernelInfo`): at each
    parameter's offset, the first ``size`` bytes of its argument as the launch gave them, as the driver reads
    ``size`` bytes at each ``kernelParams`` pointer (little-endian; zero bytes where the argument is shorter):

    * a value marked with the width the binding packed it in (:mod:`simcuda._core.modules.arg_bits`: a ``c_float``,
      ``c_double`` or negative narrow integer of a ``(values, types)`` launch, a 16-bit float): its slot, so
      a ``c_float`` for an ``.f64`` parameter is the float's bytes and four zero bytes, as on the GPU;
    * an ``int`` (or ``bool``): its bits, never converted (a ``c_uint`` holding a float's bits for an ``.f32``
      parameter is that float), two's complement in 64 bits, zero above;
    * a ``float``: the parameter's PTX float type (``.f16``/``.f32``/``.f64``) when its size matches, else a
      double's bytes for an 8-byte parameter, a half's for a 2-byte one and a float32's otherwise (a ``void**``
      array read by the kernel's types gives the value in the parameter's own width, so this is its bytes);
    * ``bytes`` (a struct by value): as given;
    * anything else: its ``int`` as an integer.

    Errors: ``CUDA_ERROR_INVALID_VALUE`` when the argument count differs from the kernel's parameter count.
    """
    if len(args) != len(info.params):
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"kernel {name!r} takes {len(info.params)} parameters, the launch gave {len(args)}")
    buf = bytearray(info.param_bytes)
    for p, v in zip(info.params, args):
        size = p.size
        t = v.__class__
        if t is int or t is bool:
            raw = _int_bytes(v, size)
        elif t is float:
            raw = _float_bytes(v, p.ptx_type, size)
        elif t in arg_bits.MARKS:
            raw = arg_bits.slot(v)  # type: ignore[assignment]  # a marked class always has a slot
        elif isinstance(v, (bytes, bytearray, memoryview)):
            raw = bytes(v)
        elif isinstance(v, float):
            raw = _float_bytes(float(v), p.ptx_type, size)
        else:
            raw = _int_bytes(int(v), size)
        buf[p.offset:p.offset + size] = raw[:size].ljust(size, b"\0")
    return bytes(buf)


def _int_bytes(v: int, size: int) -> bytes:
    """An integer argument's bytes: a negative one in 64-bit two's complement (the binding's slot; zero above),
    a non-negative one in full, at least 8 bytes."""
    n = max(size, 8)
    return (v & _M64 if v < 0 else v & ((1 << (8 * n)) - 1)).to_bytes(n, "little")


def _float_bytes(v: float, ptx_type: str, size: int) -> bytes:
    """A float argument's bytes for a parameter of ``ptx_type`` and ``size`` bytes (see :func:`pack_params`); a
    value beyond ``.f16``'s range is its infinity, as the conversion rounds it."""
    fmt = _FLOAT_FORMATS.get(ptx_type)
    if fmt is None or size != struct.calcsize(fmt):
        fmt = "<d" if size == 8 else "<e" if size == 2 else "<f"
    try:
        return struct.pack(fmt, v)
    except OverflowError:  # "<e" only: the nearest half is its infinity
        return struct.pack(fmt, float("inf") if v > 0 else float("-inf"))


_M64 = (1 << 64) - 1


def engine_module(module: Any) -> Any:
    """The engine's parsed module of a loaded :class:`~simcuda._core.objects.Module` (parsed on its first
    launch, kept on it). Raises what :func:`simcuda.ptx.load` raises."""
    if module.engine is None:
        from ... import ptx
        module.engine = ptx.load(module.ptx)
    return module.engine


def heap_of(driver: Any, ctx: Any) -> DeviceHeap:
    """The device heap of context ``ctx`` (:class:`DeviceHeap`), made at its first use with the context's
    ``CU_LIMIT_MALLOC_HEAP_SIZE`` (fixed from then on: cuCtxSetLimit refuses a change, P-71). Called with the
    driver lock held or not: the allocation is made under the lock."""
    heap: DeviceHeap | None = ctx.heap
    if heap is None or heap.alloc.freed:
        with driver._lock:
            heap = ctx.heap
            if heap is None or heap.alloc.freed:  # none yet, or its memory went with a primary context reset
                size = ctx.limits.get(2, DEFAULT_HEAP_SIZE)  # CU_LIMIT_MALLOC_HEAP_SIZE
                a = driver.memory.reserve(max(size, _HEAP_ALIGN), KIND_DEVICE, ctx)
                heap = ctx.heap = DeviceHeap(a, size)
    return heap


class _KernelCalls:
    """The calls a kernel of one launch makes outside the engine (see :func:`engine_hooks`), bound to the driver
    and the launch's context."""

    __slots__ = ("driver", "ctx")

    def __init__(self, driver: Any, ctx: Any) -> None:
        self.driver, self.ctx = driver, ctx

    @staticmethod
    def printf(text: str) -> None:
        """One ``vprintf``'s output, to stdout."""
        sys.stdout.write(text)
        sys.stdout.flush()

    def malloc(self, nbytes: int) -> int:
        """Device ``malloc``: a block of the context's heap, or 0."""
        return heap_of(self.driver, self.ctx).malloc(nbytes)

    def free(self, addr: int) -> None:
        """Device ``free``."""
        heap_of(self.driver, self.ctx).free(addr)

    def set_conditional(self, handle: int, value: int) -> None:
        """Device ``cudaGraphSetConditional``, for the graph launch replaying the kernel on this thread."""
        driver = self.driver
        try:
            driver.set_conditional(getattr(driver.threads.tls, "cond", None), handle, value)
        except ValueError as e:
            from ...ptx import Fault
            raise Fault(719, f"cudaGraphSetConditional: {e}") from None

    def should_stop(self) -> bool:
        """The stop poll: :func:`request_stop` was called, or the driver closed."""
        return _STOP.is_set() or bool(self.driver._closed)


def engine_hooks(driver: Any, ctx: Any) -> Any:
    """The engine's hooks (:class:`simcuda.ptx.Hooks`) for a launch in context ``ctx``: ``vprintf`` output to
    stdout; ``malloc``/``free`` on the context's :class:`DeviceHeap`; ``set_conditional``, the device-side
    ``cudaGraphSetConditional`` of a kernel replayed in a graph launch
    (:meth:`~simcuda._core.graphs.conditional_entries.Conditionals.set_conditional`; outside one, or with a bad handle
    or value, the kernel stops with 719 LAUNCH_FAILED and the why [I: undefined in CUDA]); ``should_stop``, True
    once :func:`request_stop` was called or the driver was closed."""
    hooks = ctx.kernel_hooks if ctx is not None else None
    if hooks is None:
        from ...ptx import Hooks
        c = _KernelCalls(driver, ctx)
        hooks = Hooks(c.printf, c.malloc, c.free, c.set_conditional, c.should_stop)
        if ctx is not None:
            ctx.kernel_hooks = hooks  # made once per context: every call reads its state when it is made
    return hooks


def _launch_context(driver: Any, p: Any) -> Any:
    """The context a launch of ``p`` runs in: its module's; for a library's kernel, the calling thread's current
    context (the one whose stream took the launch, in the simulator's synchronous replay) [I], else the first
    context the library's variables were made in."""
    module = p.func.module
    if not module.is_library and module.ctx is not None:
        return module.ctx
    cur = driver.threads.current().current
    return cur if cur is not None and not cur.destroyed else module.ctx


#: the mark of simcuda's NVRTC face's stand-in PTX (its reader's output when NVIDIA's NVRTC is not there: empty
#: kernel bodies, simcuda.faces.bindings.nvrtc ``_ptx``)
STAND_IN_MARK = "Generated by simcuda's simulated NVRTC"


#: what :func:`stand_in` calls the NVRTC face's stand-in PTX
NVRTC_STAND_IN = "simcuda's NVRTC stand-in PTX"


def stand_in(module: Any) -> str | None:
    """What kind of simcuda stand-in image ``module`` (a loaded :class:`~simcuda._core.objects.Module`) was
    loaded from, or None for a real one: ``"CUDA C source text"`` (simcuda's own fake image: the loader reads
    kernel names from source; its launches are recorded and listed, never refused: a test double) or
    :data:`NVRTC_STAND_IN` (what the NVRTC face made without NVIDIA's NVRTC: empty bodies; its launches are
    refused as a binary image with no PTX is, :func:`unrunnable`) (docs/kernels.md)."""
    if module.ptx is None and module.source is not None:
        return "CUDA C source text"
    if module.ptx is not None and STAND_IN_MARK in module.ptx[:400]:
        return NVRTC_STAND_IN
    return None


#: the codes of :func:`run_ptx` that are refusals of the simulator, not faults a GPU would raise: a PTX form the
#: engine does not run (801), PTX it cannot parse (218), an entry its module lacks (500), argument values that
#: do not match the kernel's parameters (1). They answer the call that
#: runs the kernel and leave the context usable, as :func:`refusal` does (P-69) [I]: on a GPU the module would
#: have run, or failed at load; a sticky error would fail every later call of a test suite's process
REFUSALS = frozenset({CUresult.CUDA_ERROR_NOT_SUPPORTED, CUresult.CUDA_ERROR_INVALID_PTX,
                      CUresult.CUDA_ERROR_NOT_FOUND, CUresult.CUDA_ERROR_INVALID_VALUE})


def refusal(name: str) -> DriverError:
    """The documented refusal of a launch of kernel ``name`` whose module is a binary image (an ELF CUBIN or a
    fatbin) with no PTX simcuda knows, and that has no Python twin: ``CUDA_ERROR_NOT_SUPPORTED`` (801), the
    why naming the kernel and the remedies (docs/kernels.md, "Kernels that cannot run"; P-proposal in
    docs/spec-proposals.md) [I]: a real GPU would run its SASS, which the simulator cannot."""
    note = ""
    compilers = sys.modules.get("simcuda.faces.native.compilers")
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


def stand_in_refusal(name: str) -> DriverError:
    """The refusal (P-69) of a launch of kernel ``name`` whose module is the NVRTC face's stand-in PTX (NVIDIA's
    NVRTC was not there, or could not open a header, and simcuda's reader served the program: the kernel has an
    empty body, so running it would compute nothing): ``CUDA_ERROR_NOT_SUPPORTED`` (801), not sticky, the why
    naming the kernel and the remedies [I]."""
    return DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                       f"kernel {name!r} cannot run: it has no Python twin and its module is {NVRTC_STAND_IN} "
                       "(NVIDIA's NVRTC is not installed, or could not open a header, so simcuda's nvrtc face read "
                       "the source and made kernels with empty bodies: they would compute nothing). Remedies: "
                       "install NVIDIA's NVRTC (pip install nvidia-cuda-nvrtc, or from a simcuda checkout pip install "
                       "'.[kernels]') and compile "
                       "again (with -I for a toolkit's include/ when the program includes headers), register a "
                       f"Python twin (@simcuda.kernel({name!r})), or load the kernel's PTX; "
                       "Options(unrunnable_kernels='record') records such launches without running them")


def unrunnable(driver: Any, p: Any) -> str:
    """A launch ``p`` with no Python twin whose module has no PTX to run (or only a stand-in's): unless
    ``Options(unrunnable_kernels='record')``, raise :func:`refusal` for a real binary image and
    :func:`stand_in_refusal` for the NVRTC face's stand-in PTX; else the launch log's outcome text (the launch
    is recorded only; the caller counts it among the kernels that could not run). CUDA C source text (simcuda's
    own test double) is always recorded only."""
    module = p.func.module if p.func is not None else None
    if module is None:
        return "recorded only (no Python kernel registered)"
    kind = stand_in(module)
    if kind == "CUDA C source text":
        return "recorded only (no Python kernel registered)"
    record = driver.options.unrunnable_kernels != "refuse"
    if kind is not None:
        if not record:
            raise stand_in_refusal(p.name)
        return (f"recorded only (no Python kernel registered; its module is {kind}: "
                "Options(unrunnable_kernels='record'))")
    if not record:
        raise refusal(p.name)
    return "recorded only (no Python kernel registered, no PTX: Options(unrunnable_kernels='record'))"


class Suspended(Exception):
    """Raised by :func:`run_ptx` (with ``suspend=True``) when the kernel reached a stall checkpoint before it
    ended: ``launch`` is the :class:`InFlight` launch the scheduler keeps on its stream (P-74)."""

    def __init__(self, launch: InFlight) -> None:
        super().__init__(f"kernel {launch.name!r} is in flight")
        self.launch = launch


class InFlight:
    """A PTX launch that has not ended: the engine's :class:`~simcuda.ptx.module.RunningLaunch` with what the
    driver needs to resume it and to end it (its name, its context, the cooperative launch's workspace to free).
    :meth:`step` resumes it; the scheduler (:mod:`simcuda._core.work`) calls it from queries and synchronising
    calls, with the driver lock released (docs/spec-proposals.md P-74)."""

    __slots__ = ("name", "ctx", "running", "_workspace", "_memory")

    def __init__(self, name: str, ctx: Any, running: Any, workspace: Any, memory: Any) -> None:
        self.name, self.ctx, self.running = name, ctx, running
        self._workspace, self._memory = workspace, memory

    def step(self, unlocked: Any, slices: int | None) -> bool:
        """Resume the kernel for up to ``slices`` stall checkpoints (None: until it ends), the lock released by
        ``unlocked(fn, *args)``; True once it has ended. Errors: as :func:`run_ptx` (the engine's fault code as a
        :class:`DriverError`, 801 for a refused form; a ``KeyboardInterrupt`` propagates, marked with the
        kernel's name); the launch has ended then too."""
        try:
            done = bool(unlocked(self.running.step, slices))
        except BaseException as e:
            self.release()
            err = engine_error(self.name, e)
            if err is e:
                raise
            raise err from e
        if done:
            self.release()
        return done

    def release(self) -> None:
        """Free what the launch held (a cooperative launch's grid workspace); the launch is over."""
        ws, self._workspace = self._workspace, None
        if ws is not None and not ws.freed:
            self._memory.free(ws)

    def abandon(self) -> None:
        """End the launch where it is, never to resume (the driver closes with the kernel still spinning)."""
        self.running.abandon()
        self.release()


def engine_error(name: str, e: BaseException) -> BaseException:
    """What the driver raises for ``e``, raised by the engine while kernel ``name`` ran: a
    :class:`~simcuda.ptx.Fault` becomes a :class:`DriverError` of its code (700, 710, 716, 719...), an
    :class:`~simcuda.ptx.Unsupported` 801 NOT_SUPPORTED with the engine's why; anything else is ``e`` itself (a
    ``KeyboardInterrupt`` marked with the kernel's name first, read by the native route's C boundary)."""
    from ... import ptx
    if isinstance(e, ptx.Fault):
        return DriverError(CUresult(e.code), f"kernel {name!r} faulted: {e.why}")
    if isinstance(e, ptx.Unsupported):
        return DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED, f"kernel {name!r} uses PTX the engine does not run: "
                                                              f"{e.why}")
    if isinstance(e, KeyboardInterrupt):
        e.__simcuda_kernel__ = name  # type: ignore[attr-defined]
    return e


def run_ptx(driver: Any, p: Any, unlocked: Any, suspend: bool = False) -> tuple[bool, str]:
    """Run the PTX of launch ``p`` (:class:`~simcuda._core.graphs.nodes.KernelParams`) with the engine, the driver
    lock released (``unlocked(fn, *args)``). Returns ``(ran, outcome)``: the launch log's outcome text, and
    False when the kernel was recorded only: the engine refused the whole module at load, or the launch gave
    no argument values for a kernel that has parameters (a NULL ``kernelParams``; recorded only, as before
    issue 17 [I]; the real driver would run it with garbage parameters). Some values, but not one per
    parameter, is refused: INVALID_VALUE from :func:`pack_params` (one of the :data:`REFUSALS`) [I].

    ``suspend`` (an eager launch in immediate progression, :mod:`simcuda._core.work`): the kernel runs to its
    first stall checkpoint (:func:`simcuda.ptx.engine.run`: its lanes spin with nothing changing); if it has
    not ended there, :class:`Suspended` is raised with the :class:`InFlight` launch, which the scheduler keeps
    on the stream (docs/spec-proposals.md P-74). Otherwise (graph replays, manual progression) it runs to
    completion.

    The module's ``.global``/``.const`` variables are reached at their device addresses in the launch's context
    (those ``cuModuleGetGlobal``/``cuLibraryGetGlobal`` return), so host copies see what the kernel wrote.

    Errors (as :class:`DriverError`): the engine's :class:`~simcuda.ptx.Fault` code (700 illegal address, 716
    misaligned, 710 assert, 719 launch failed, an interrupted launch included) with its why, which the caller
    turns into the sticky kernel fault; and the :data:`REFUSALS`, which it does not: 801 NOT_SUPPORTED for a form
    the engine refuses, 218 INVALID_PTX for PTX it cannot parse, 500 NOT_FOUND when the module's PTX has no entry
    of that name. A
    ``KeyboardInterrupt`` while the kernel runs stops it and propagates (marked with the kernel's name, as a
    Python kernel's is); the driver lock is taken back and the driver stays usable.
    """
    from ... import ptx
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
    if not p.args and info.params:  # kernelParams NULL: nothing to run it with [I]
        return False, "recorded only (no argument values for its parameters)"
    params = p.packed
    if params is None:  # the record is immutable and shared by its launches and replays: packed once
        params = p.packed = pack_params(p.name, info, p.args)
    ctx = _launch_context(driver, p)
    variables = driver.module_variable_addresses(module, ctx, eng.variables) if eng.variables else {}
    memory = DriverMemory(driver.memory, gpu_like=driver.options.kernel_bounds == "gpu-like")
    workspace = _grid_workspace(driver, ctx) if p.cooperative else None
    # an ordinary launch passes a NULL workspace (grid.sync traps there, P-71), not none: with no envreg the
    # engine would give one of its own
    ws = int(workspace.start) if workspace is not None else 0
    extra: dict[str, Any] = {"envreg": {1: ws >> 32, 2: ws & 0xFFFFFFFF},
                             "sm_count": ctx.device.spec.multiprocessors if ctx is not None else None}
    if variables:
        extra["variables"] = variables
    hooks = engine_hooks(driver, ctx)
    start = getattr(eng, "start", None) if suspend else None
    if start is None:  # to completion: a replay, manual progression, an engine module with launch() only
        try:
            unlocked(lambda: eng.launch(p.name, tuple(p.grid), tuple(p.block), int(p.shmem), params, memory, hooks,
                                        **extra))
        except BaseException as e:
            err = engine_error(p.name, e)
            if err is e:
                raise
            raise err from e
        finally:
            if workspace is not None and not workspace.freed:
                driver.memory.free(workspace)
        return True, "ran PTX"
    running = start(p.name, tuple(p.grid), tuple(p.block), int(p.shmem), params, memory, hooks, **extra)
    launch = InFlight(p.name, ctx, running, workspace, driver.memory)
    if not launch.step(unlocked, 1):
        raise Suspended(launch)
    return True, "ran PTX"


#: bytes of the grid-synchronisation workspace of a cooperative launch [I: cooperative_groups reads a barrier
#: word at its start; the size is the simulator's]
GRID_WORKSPACE = 256


def _grid_workspace(driver: Any, ctx: Any) -> Any:
    """A zeroed device allocation for a cooperative launch's ``grid.sync()``: cooperative_groups finds it through
    ``%envreg1`` (high 32 bits) and ``%envreg2`` (low 32 bits) and traps when they are 0, as a launch that was
    not cooperative does [O: NVRTC 13.5's PTX for ``this_grid().sync()``]. Freed when the launch ends."""
    a = driver.memory.reserve(GRID_WORKSPACE, KIND_DEVICE, ctx)
    driver.memory.device_view(a.start, GRID_WORKSPACE, "grid workspace")[:] = bytes(GRID_WORKSPACE)
    return a
