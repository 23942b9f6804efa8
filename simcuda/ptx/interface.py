"""The kernel engine's narrow interface: what the simulator hands the engine, and what it gets back.

The engine (this package) knows nothing of drivers, handles, streams or faces. The simulator's core gives it PTX
text (:func:`simcuda.ptx.load`), a launch shape, the kernel's parameter bytes and a :class:`Memory` through which
every global, generic-to-global and host access goes, and gets back :class:`LaunchStats`, or a :class:`Fault`
carrying the ``CUresult`` value a GPU would give (spec section 17) and a ``why``.

Nothing here imports from ``simcuda._core``; the core imports this module, never the reverse.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import attrs

# CUresult values of the faults (spec section 17); plain ints so that the engine needs no generated module
ILLEGAL_ADDRESS = 700
LAUNCH_OUT_OF_RESOURCES = 701
LAUNCH_TIMEOUT = 702  # added in round 2: a grid that spins across lane sets (see simcuda.ptx.engine.run)
ASSERT = 710
MISALIGNED_ADDRESS = 716
LAUNCH_FAILED = 719


class PtxParseError(ValueError):
    """PTX text the engine cannot parse: the core answers ``CUDA_ERROR_INVALID_PTX`` (218) with ``why``
    (``line`` is the 1-based line of the module text, 0 when unknown)."""

    def __init__(self, why: str, line: int = 0) -> None:
        super().__init__(why)
        self.why, self.line = why, line


class Unsupported(Exception):
    """A PTX form the engine refuses (textures, surfaces, tensor-core, TMA or cluster instructions...): the
    core answers ``CUDA_ERROR_NOT_SUPPORTED`` (801) at launch (or at load, when ``at_load``) with ``why``."""

    def __init__(self, why: str, at_load: bool = False) -> None:
        super().__init__(why)
        self.why, self.at_load = why, at_load


class Fault(Exception):
    """A fault a GPU would raise while the kernel runs; ``code`` is the ``CUresult`` value (700, 710, 716,
    719...), ``why`` names the kernel, block, thread, PTX line and address."""

    def __init__(self, code: int, why: str, *, kernel: str = "", block: tuple[int, int, int] | None = None,
                 thread: tuple[int, int, int] | None = None, line: int = 0, address: int | None = None) -> None:
        super().__init__(why)
        self.code, self.why, self.kernel, self.block, self.thread, self.line, self.address = \
            code, why, kernel, block, thread, line, address


@attrs.frozen
class Param:
    """One ``.param`` of an ``.entry``: its name, PTX type (``.u64``, ``.f32``, ``.b8`` array...), size and
    alignment in bytes, and offset in the parameter buffer."""
    name: str
    ptx_type: str
    size: int
    align: int
    offset: int


@attrs.frozen
class KernelInfo:
    """What the image says of one kernel (``cuFuncGetAttribute``'s inputs, spec section 17).

    ``max_threads``: ``.maxntid`` product, or the ``.reqntid`` product, or None (the device's limit applies);
    ``reqntid``: the exact block shape required, or None; ``static_shared``, ``local``, ``const``: bytes;
    ``num_regs``: the simulator's register count [I] (documented in docs/kernels.md); the cluster directives:
    ``reqnctapercluster``, the exact cluster shape (``.reqnctapercluster``) or None; ``explicitcluster``, whether
    a launch must give a cluster shape (``.explicitcluster``); ``maxclusterrank``, the most CTAs per cluster
    (``.maxclusterrank``) or None.
    """
    name: str
    params: tuple[Param, ...]
    param_bytes: int
    max_threads: int | None
    reqntid: tuple[int, int, int] | None
    maxntid: tuple[int, int, int] | None
    static_shared: int
    local: int
    const: int
    num_regs: int
    line: int  # 1-based line of the .entry in the module text
    reqnctapercluster: tuple[int, int, int] | None = None
    explicitcluster: bool = False
    maxclusterrank: int | None = None


class Region(Protocol):
    """A piece of memory the kernel may reach: ``start`` address, ``size`` bytes, and ``data``, a writable
    one-dimensional numpy ``uint8`` array over its bytes (the simulator's backing store, shared, not a copy)."""
    start: int
    size: int
    data: Any


class Memory(Protocol):
    """The simulator's memory as a kernel sees it (device, managed, mapped, VMM, pinned host at its address)."""

    def region(self, addr: int) -> Region | None:
        """The region holding byte ``addr``, or None (unmapped: the engine faults 700)."""

    def gpu_like(self) -> bool:
        """True for GPU-like bounds (an access past an allocation but inside a mapped page goes unnoticed);
        False (the default, [I]) for memcheck-like strictness."""


@attrs.define
class Hooks:
    """Calls a kernel makes that reach outside the engine. Each may be None (then the call is refused with a
    Fault naming it).

    ``printf(text)``: the formatted output of one ``vprintf`` (the core writes it to stdout);
    ``malloc(nbytes) -> addr`` / ``free(addr)``: device heap (``malloc`` in device code);
    ``set_conditional(handle, value)``: ``cudaGraphSetConditional``;
    ``should_stop() -> bool``: polled while lanes spin; True aborts the launch (the host was interrupted).
    """
    printf: Callable[[str], None] | None = None
    malloc: Callable[[int], int] | None = None
    free: Callable[[int], None] | None = None
    set_conditional: Callable[[int, int], None] | None = None
    should_stop: Callable[[], bool] | None = None


@attrs.define
class LaunchStats:
    """What one launch did: ``lane_instructions`` (instructions executed, counted once per active lane),
    ``instructions`` (counted once per warp-step), ``blocks``."""
    lane_instructions: int = 0
    instructions: int = 0
    blocks: int = 0


class Module(Protocol):
    """A parsed PTX module (cached by text): its kernels and module-scope variables."""
    kernels: dict[str, KernelInfo]
    #: module-scope ``.global``/``.const`` variables: name -> (space, size in bytes, initial bytes)
    variables: dict[str, tuple[str, int, bytes]]
    target: str  # the ``.target`` (``sm_80``...)

    def launch(self, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int], dynamic_shared: int,
               params: bytes, memory: Memory, hooks: Hooks, *,
               variables: dict[str, int] | None = None, envreg: dict[int, int] | None = None,
               sm_count: int | None = None) -> LaunchStats:
        """Run every thread of the launch to completion. ``params``: the parameter buffer laid out as
        ``KernelInfo.params`` says; ``variables``: module variable name -> its device address (the core
        allocates them when the module loads); ``envreg`` (optional, added by the engine): values of
        ``%envreg0..31`` (zero unless given; cooperative launches pass the grid-sync workspace there);
        ``sm_count`` (optional): the device's multiprocessor count, read by ``%nsmid``, with ``%smid`` the
        linear block index modulo it [I] (132 unless given).
        Raises :class:`Fault` or :class:`Unsupported`.

        Added in issue 17's second round (the engine's :class:`~simcuda.ptx.module.PtxModule` has them):
        ``start(...)`` (the same arguments; returns a resumable launch, :class:`~simcuda.ptx.module.RunningLaunch`,
        with ``step(slices)``, ``done()``, ``wait(timeout)`` and ``abandon()``: it runs in the caller's thread up
        to its stall checkpoints, so the host can write what a spinning kernel waits for, P-74; optional: the
        core runs a module without it through ``launch``, to completion),
        ``relocate(variables, memory)`` (writes the module's address initialisers, ``relocations``)."""
