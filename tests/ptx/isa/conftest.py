"""Helpers of the PTX instruction suite: a tiny numpy-backed :class:`simcuda.ptx.Memory` and a runner that loads a
hand-written PTX module, launches one of its kernels on a fresh output buffer and returns the bytes written.

The suite skips (one clear reason) only while the engine is absent, that is while :func:`simcuda.ptx.load` still
answers the interface stub's ``Unsupported("... not built yet")``; once the engine is built every case must pass.
"""
from __future__ import annotations

import struct
from typing import Any

import attrs
import pytest

np = pytest.importorskip("numpy")
ptx = pytest.importorskip("simcuda.ptx")

#: where the suite's single global buffer lives in the simulated address space (64 KiB aligned)
BASE = 0x7F00_0000_0000

PRELUDE = """.version 8.0
.target sm_80
.address_size 64
"""


@attrs.define
class Buffer:
    """One region of the suite's memory: ``start`` address, ``size`` bytes, ``data`` its numpy ``uint8`` bytes."""
    start: int
    size: int
    data: Any


@attrs.define
class TinyMemory:
    """A :class:`simcuda.ptx.Memory` holding a list of :class:`Buffer` regions (strict bounds unless ``gpu``)."""
    buffers: list[Buffer] = attrs.field(factory=list)
    gpu: bool = False

    def add(self, nbytes: int, start: int | None = None) -> Buffer:
        """Map a zeroed buffer of ``nbytes`` at ``start`` (default: after the last one, 64 KiB aligned)."""
        if start is None:
            start = BASE if not self.buffers else (self.buffers[-1].start + self.buffers[-1].size + 0xFFFF) & ~0xFFFF
        buf = Buffer(start, nbytes, np.zeros(nbytes, dtype=np.uint8))
        self.buffers.append(buf)
        return buf

    def region(self, addr: int) -> Buffer | None:
        """The buffer holding byte ``addr``, or None."""
        for buf in self.buffers:
            if buf.start <= addr < buf.start + buf.size:
                return buf
        return None

    def gpu_like(self) -> bool:
        """True when GPU-like (lenient) bounds were asked for."""
        return self.gpu


def engine_absent() -> str | None:
    """The reason to skip when the engine is not built yet (the interface stub), else None."""
    try:
        ptx.load(PRELUDE + ".visible .entry probe()\n{\n ret;\n}\n")
    except ptx.Unsupported as exc:
        if "not built yet" in exc.why:
            return f"the PTX engine is absent: {exc.why}"
    return None


def run_kernel(text: str, kernel: str = "k", *, out_bytes: int = 256, grid: tuple[int, int, int] = (1, 1, 1),
               block: tuple[int, int, int] = (1, 1, 1), extra_params: bytes = b"",
               memory: TinyMemory | None = None) -> bytes:
    """Load ``text`` (PRELUDE prepended), launch ``kernel`` with one ``.u64`` parameter (a zeroed output buffer of
    ``out_bytes``) followed by ``extra_params``, and return the output buffer's bytes afterwards."""
    reason = engine_absent()
    if reason:
        pytest.skip(reason)
    mem = memory or TinyMemory()
    out = mem.add(out_bytes)
    module = ptx.load(PRELUDE + text)
    module.launch(kernel, grid, block, 0, struct.pack("<Q", out.start) + extra_params, mem, ptx.Hooks())
    return bytes(out.data)
