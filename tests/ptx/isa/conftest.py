"""Helpers of the PTX instruction suite: a tiny numpy-backed :class:`simcuda.ptx.Memory` and a runner that loads a
hand-written PTX module, launches one of its kernels on a fresh output buffer and returns the bytes written.

The suite skips (one clear reason) only while the engine is absent, that is while :func:`simcuda.ptx.load` still
answers the interface stub's ``Unsupported("... not built yet")``; once the engine is built every case must pass.
"""
from __future__ import annotations

import struct

import pytest

np = pytest.importorskip("numpy")
ptx = pytest.importorskip("simcuda.ptx")
from tests.ptx.memory import FakeMemory  # noqa: E402  # (needs numpy)

#: where the suite's single global buffer lives in the simulated address space (64 KiB aligned)
BASE = 0x7F00_0000_0000

PRELUDE = """.version 8.0
.target sm_80
.address_size 64
"""


def TinyMemory(gpu: bool = False) -> FakeMemory:  # the suite's name for it
    """The suite's memory: the engine tests' fake (tests/ptx/memory.py), regions from :data:`BASE` on, 64 KiB
    aligned, with no gap between them."""
    return FakeMemory(gpu_like=gpu, base=BASE, gap=0)


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
               memory: FakeMemory | None = None) -> bytes:
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
