"""Test helpers for the kernel engine: a tiny numpy-backed Memory and NVRTC compilation to PTX."""
from __future__ import annotations

import struct
from typing import Any

from simcuda.ptx import Hooks
from tests.ptx.memory import FakeMemory

#: the engine tests' memory (one shared fake, tests/ptx/memory.py)
Mem = FakeMemory


def params(*vals: Any) -> bytes:
    """Pack (fmt, value) pairs with natural alignment: 'Q' pointers/u64, 'i' int, 'f' float."""
    out = bytearray()
    for fmt, v in vals:
        size = struct.calcsize(fmt)
        out += b"\0" * ((-len(out)) % size)
        out += struct.pack("<" + fmt, v)
    return bytes(out)


def nvrtc_ptx(src: str, *opts: str) -> str:
    """PTX of CUDA C ``src`` from NVIDIA's NVRTC at compute_80."""
    from cuda.bindings import nvrtc
    err, prog = nvrtc.nvrtcCreateProgram(src.encode(), b"k.cu", 0, [], [])
    o = [b"--gpu-architecture=compute_80", b"-default-device"] + [x.encode() for x in opts]
    (err,) = nvrtc.nvrtcCompileProgram(prog, len(o), o)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, n = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * n
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise RuntimeError(log.decode())
    _, n = nvrtc.nvrtcGetPTXSize(prog)
    buf = b" " * n
    nvrtc.nvrtcGetPTX(prog, buf)
    return buf.decode().rstrip("\0")


def hooks(out: list[str] | None = None) -> Hooks:
    """Hooks collecting printf output into ``out``."""
    return Hooks(printf=(out.append if out is not None else None))
