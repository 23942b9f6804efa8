"""The engine tests' one fake of :class:`simcuda.ptx.Memory` (tests/ptx/engine and tests/ptx/isa): numpy-backed
regions in a simulated address space, strict bounds unless ``gpu_like``."""
from __future__ import annotations

from typing import Any

import numpy as np


class Region:
    """One region: ``start`` address, ``size`` bytes, ``data`` its numpy ``uint8`` bytes (shared, not copied)."""

    def __init__(self, start: int, data: np.ndarray) -> None:
        self.start, self.size, self.data = start, len(data), data


class FakeMemory:
    """A :class:`simcuda.ptx.Memory` of :class:`Region` objects placed from ``base`` on, each 64 KiB aligned and
    followed by ``gap`` unmapped bytes (so an access just past one is outside every region)."""

    def __init__(self, gpu_like: bool = False, base: int = 0x7000_0000_0000, gap: int = 0x10000) -> None:
        self.regions: list[Region] = []
        self.next, self.gap, self._gpu = base, gap, gpu_like

    def add(self, nbytes: int) -> Region:
        """Map ``nbytes`` zeroed bytes at the next free address; the region."""
        return self._map(np.zeros(nbytes, dtype=np.uint8))

    def alloc(self, arr: Any) -> int:
        """Map a copy of array ``arr``'s bytes; their address."""
        return self._map(np.frombuffer(bytearray(np.ascontiguousarray(arr).tobytes()), dtype=np.uint8)).start

    def _map(self, data: np.ndarray) -> Region:
        r = Region(self.next, data)
        self.regions.append(r)
        self.next += (len(data) + 0xFFFF) // 0x10000 * 0x10000 + self.gap
        return r

    def get(self, addr: int, dtype: Any, count: int) -> np.ndarray:
        """A copy of ``count`` elements of ``dtype`` at ``addr``."""
        r = self.region(addr)
        assert r is not None
        o = addr - r.start
        return r.data[o:o + count * np.dtype(dtype).itemsize].view(dtype).copy()

    def variables(self, mod: Any) -> dict[str, int]:
        """Map ``mod``'s module variables with their initial bytes; name -> address."""
        return {name: self.alloc(np.frombuffer(init, np.uint8)) for name, (_s, _z, init) in mod.variables.items()}

    def region(self, addr: int) -> Region | None:
        """The region holding byte ``addr``, or None."""
        for r in self.regions:
            if r.start <= addr < r.start + r.size:
                return r
        return None

    def gpu_like(self) -> bool:
        """Whether GPU-like (lenient) bounds were asked for."""
        return self._gpu
