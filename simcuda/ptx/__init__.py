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
    LAUNCH_TIMEOUT,
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
           "LAUNCH_TIMEOUT", "MISALIGNED_ADDRESS"]


def load(text: str) -> Module:
    """Parse PTX ``text`` into a :class:`Module` (cached by the text: a second load of the same text is free).

    Raises :class:`PtxParseError` for text the engine cannot parse, :class:`Unsupported` for a module that
    uses a form refused at load.
    """
    try:
        import numpy  # noqa: F401
    except ImportError:
        raise ImportError("the kernel engine needs numpy: pip install numpy (or, from a simcuda checkout, "
                          "pip install '.[kernels]')") from None
    import hashlib
    key = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    from .module import PtxModule
    from .parse import parse
    mod = PtxModule(parse(text))
    _CACHE[key] = mod
    return mod


_CACHE: dict[str, Module] = {}
