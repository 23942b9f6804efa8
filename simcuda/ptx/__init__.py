"""simcuda's kernel engine: PTX parsed once per module and run on the CPU (a vectorised SIMT interpreter).

The engine stands alone: :mod:`simcuda.ptx.interface` is all the simulator's core uses of it, and the engine
imports nothing of the core. It needs numpy (the ``kernels`` extra); without it :func:`load` raises
``ImportError`` naming the extra.
"""
from __future__ import annotations

from .interface import (
    ASSERT,
    ILLEGAL_ADDRESS,
    LAUNCH_FAILED,
    LAUNCH_OUT_OF_RESOURCES,
    MISALIGNED_ADDRESS,
    Fault,
    Hooks,
    KernelInfo,
    LaunchStats,
    Memory,
    Module,
    Param,
    PtxParseError,
    Region,
    Unsupported,
)

__all__ = ["load", "Fault", "Hooks", "KernelInfo", "LaunchStats", "Memory", "Module", "Param", "PtxParseError",
           "Region", "Unsupported", "ASSERT", "ILLEGAL_ADDRESS", "LAUNCH_FAILED", "LAUNCH_OUT_OF_RESOURCES",
           "MISALIGNED_ADDRESS"]


def load(text: str) -> Module:
    """Parse PTX ``text`` into a :class:`Module` (cached by the text: a second load of the same text is free).

    Raises :class:`PtxParseError` for text the engine cannot parse, :class:`Unsupported` for a module that
    uses a form refused at load.
    """
    raise Unsupported("the kernel engine is not built yet", at_load=False)
