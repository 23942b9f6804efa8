"""Test helpers for the kernel engine: a tiny numpy-backed Memory and NVRTC compilation to PTX."""
from __future__ import annotations

import struct
from typing import Any

import numpy as np

from simcuda.ptx import Hooks


class Reg:
    """One allocation: start address, size, byte array."""

    def __init__(self, start: int, data: np.ndarray) -> None:
        self.start, self.size, self.data = start, len(data), data


class Mem:
    """A numpy-backed Memory: allocations 64 KiB apart from 0x7000_0000_0000."""

    def __init__(self, gpu_like: bool = False) -> None:
        self.regs: list[Reg] = []
        self.next = 0x7000_0000_0000
        self._gpu = gpu_like

    def alloc(self, arr: Any) -> int:
        """Copy ``arr`` in; return its address."""
        a = np.ascontiguousarray(arr)
        data = np.frombuffer(bytearray(a.tobytes()), dtype=np.uint8)
        r = Reg(self.next, data)
        self.regs.append(r)
        self.next += (len(data) + 0xFFFF) // 0x10000 * 0x10000 + 0x10000
        return r.start

    def get(self, addr: int, dtype: Any, count: int) -> np.ndarray:
        """``count`` elements at ``addr``."""
        r = self.region(addr)
        assert r is not None
        o = addr - r.start
        return r.data[o:o + count * np.dtype(dtype).itemsize].view(dtype).copy()

    def variables(self, mod: Any) -> dict[str, int]:
        """Allocate ``mod``'s module variables with their initial bytes; name -> address."""
        return {name: self.alloc(np.frombuffer(init, np.uint8)) for name, (_s, _z, init) in mod.variables.items()}

    def region(self, addr: int) -> Reg | None:
        for r in self.regs:
            if r.start <= addr < r.start + r.size:
                return r
        return None

    def gpu_like(self) -> bool:
        return self._gpu


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
