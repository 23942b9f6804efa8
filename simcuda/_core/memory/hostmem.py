"""Raw host addresses: is the memory there before the simulator reads, writes or calls it?

Code written for ``cuda.bindings`` hands the driver host memory as bare ``int`` addresses: the
source of ``cuMemcpyHtoD``, a module image for ``cuModuleLoadData``, the ``void**`` array of
``cuLaunchKernel``'s ``kernelParams``, a host function for ``cuLaunchHostFunc``. The real driver
dereferences them; a garbage address is undefined behaviour there (usually a crash of the
process, sometimes ``CUDA_ERROR_INVALID_VALUE``).

Fidelity choice (docs/fidelity.md, "Garbage host addresses"): a simulator can do better than
crash. Before the simulator touches an ``int`` host address it checks that the whole range is
memory of this process with the access it needs, and otherwise the call fails with
``CUDA_ERROR_INVALID_VALUE`` and a ``why`` naming the address:

1. memory the simulator allocated itself (``cuMemAllocHost`` / ``cudaMallocHost``) is accepted
   at once;
2. on Linux, the range must lie in mappings of ``/proc/self/maps`` with the needed permission
   (``r`` to read, ``w`` to write, ``x`` to call). The parse is cached and read again on a miss,
   so memory mapped since is found. Registered memory (``cuMemHostRegister``) is ordinary
   process memory and is judged by the same table;
3. elsewhere (no ``/proc/self/maps``) the address is trusted, as the real driver trusts it.

What stays undefined: memory that was mapped when the cache was read and has been unmapped since
(the check may pass and the access crash, as with the real driver), and memory that is mapped but
holds something else than the caller thinks.
"""
from __future__ import annotations

import bisect
import ctypes
import os
import struct
import threading
from typing import Any

from ..errors import CUresult, DriverError

MAPS_PATH = "/proc/self/maps"
_PERM_WORD = {"r": "readable", "w": "writable", "x": "executable"}


class ProcessMaps:
    """The mappings of this process (``/proc/self/maps``), parsed once and re-read on a miss."""

    def __init__(self, path: str = MAPS_PATH) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._starts: list[int] = []
        self._maps: list[tuple[int, int, str]] = []
        self.available: bool | None = None  # None until the first read
        self.reads = 0

    def after_fork_in_child(self) -> None:
        """In a forked child: a new lock (a thread that held the old one at the fork does not exist there)."""
        self._lock = threading.Lock()

    def _read(self) -> None:
        try:
            with open(self.path, "rb") as fh:
                raw = fh.read()
        except OSError:
            self.available = False
            return
        maps = []
        for line in raw.splitlines():
            parts = line.split(None, 2)
            if len(parts) < 2:
                continue
            lo, _, hi = parts[0].partition(b"-")
            try:
                maps.append((int(lo, 16), int(hi, 16), parts[1][:3].decode("ascii", "replace")))
            except ValueError:
                continue
        maps.sort()
        self._maps = maps
        self._starts = [m[0] for m in maps]
        self.available = True
        self.reads += 1

    def extent(self, addr: int, perm: str) -> int:
        """How many bytes from ``addr`` on are mapped with ``perm`` (0 when ``addr`` itself is not)."""
        maps, starts = self._maps, self._starts
        i = bisect.bisect_right(starts, addr) - 1
        if i < 0:
            return 0
        pos = addr
        while i < len(maps):
            lo, hi, perms = maps[i]
            if not lo <= pos < hi or perm not in perms:
                break
            pos = hi
            i += 1
        return pos - addr

    def covers(self, addr: int, nbytes: int, perm: str) -> bool | None:
        """True when ``[addr, addr + nbytes)`` is mapped with ``perm``; None when the table is unavailable."""
        if self.available is None:
            with self._lock:
                if self.available is None:
                    self._read()
        if not self.available:
            return None
        if self.extent(addr, perm) >= max(nbytes, 1):
            return True
        with self._lock:  # a miss: memory may have been mapped since the last read
            self._read()
        if not self.available:
            return None
        return self.extent(addr, perm) >= max(nbytes, 1)


def physical_memory() -> int:
    """Bytes of physical memory of this machine (0 when the platform cannot tell)."""
    import os
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 0


def available_memory() -> int:
    """Bytes of physical memory available now (0 when the platform cannot tell)."""
    import os
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return 0


#: the process-wide table (mappings belong to the process, not to one driver)
MAPS = ProcessMaps()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=MAPS.after_fork_in_child)


def _in_own_allocation(mem: Any, addr: int, nbytes: int) -> bool:
    """True when the range lies in host memory this driver allocated (cuMemAllocHost)."""
    if mem is None:
        return False
    buf = mem.host.get(addr)
    if buf is not None:
        return nbytes <= len(buf)
    return any(start <= addr and addr + nbytes <= start + len(b) for start, b in mem.host.items())


def problem(mem: Any, addr: int, nbytes: int, perm: str) -> str | None:
    """Why ``nbytes`` at host address ``addr`` cannot be accessed with ``perm`` (``'r'``, ``'w'``, ``'x'``),
    or None when they can (or when the platform cannot tell: then the address is trusted)."""
    if addr <= 0 or addr + nbytes > 1 << 64:
        return "the host address is NULL" if addr == 0 else f"{addr:#x} is not a host address"
    if perm != "x" and _in_own_allocation(mem, addr, nbytes):
        return None
    ok = MAPS.covers(addr, nbytes, perm)
    if ok is None or ok:
        return None
    have = MAPS.extent(addr, perm)
    if have == 0:
        where = ("it is mapped without that permission" if MAPS.extent(addr, "") else "no mapping holds it")
        return (f"host address 0x{addr:x} is not {_PERM_WORD[perm]} memory of this process ({where}, "
                f"{MAPS.path}); the real driver would crash or fail here (docs/fidelity.md)")
    return (f"host range 0x{addr:x}+{nbytes} bytes runs past the end of {_PERM_WORD[perm]} memory ({have} bytes "
            f"from 0x{addr:x} are mapped; {MAPS.path}) (docs/fidelity.md)")


def check(mem: Any, addr: int, nbytes: int, perm: str, what: str) -> None:
    """Raise INVALID_VALUE when ``nbytes`` at ``addr`` cannot be accessed with ``perm`` (see :func:`problem`)."""
    why = problem(mem, int(addr), int(nbytes), perm)
    if why is not None:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what}: {why}")


def read_c_string(mem: Any, addr: int, what: str, chunk: int = 1 << 16) -> bytes:
    """The NUL-terminated bytes at host address ``addr`` (without the NUL), read only where readable.

    Errors: INVALID_VALUE when ``addr`` is not readable, or the bytes run into unreadable memory
    before a NUL.
    """
    addr = int(addr)
    check(mem, addr, 1, "r", what)
    if not MAPS.available:
        return ctypes.string_at(addr)  # no table on this platform: trusted, as the real driver trusts it
    with MAPS._lock:  # the table as it is now: a range unmapped since the last read (a closed driver's chunk,
        MAPS._read()  # an arena Python gave back) must not be read past the text's real mapping
    out = []
    pos = addr
    while True:
        room = MAPS.extent(pos, "r")
        if room == 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{what}: the text at 0x{addr:x} runs into unreadable memory at 0x{pos:x} before its "
                              "terminating NUL (docs/fidelity.md)")
        n = min(room, chunk)
        data = ctypes.string_at(pos, n)
        end = data.find(b"\0")
        if end >= 0:
            out.append(data[:end])
            return b"".join(out)
        out.append(data)
        pos += n


def image_size(head: bytes) -> int | None:
    """The size in bytes of the binary module image whose first 64 bytes are ``head``: an ELF (CUBIN) ends at
    the furthest of its section and program header tables; a fatbin's header gives its header size and the
    size of the data that follows (magic 0xBA55ED50, little-endian). None for text (PTX, CUDA C)."""
    if head[:4] == b"\x7fELF" and len(head) >= 64 and head[4] == 2:
        phoff, shoff = struct.unpack_from("<QQ", head, 0x20)
        phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", head, 0x36)
        return int(max(shoff + shentsize * shnum, phoff + phentsize * phnum, 64))
    if head[:4] == b"\x50\xed\x55\xba" and len(head) >= 16:
        header_size, = struct.unpack_from("<H", head, 6)
        fat_size, = struct.unpack_from("<Q", head, 8)
        return int(header_size + fat_size)
    return None


def read_image(mem: Any, addr: int, what: str) -> bytes:
    """The module image at host address ``addr`` (the ``void*`` of cuModuleLoadData / cuLibraryLoadData): a
    CUBIN or fatbin read to the size its header gives, else NUL-terminated text; read only where readable.

    Errors: INVALID_VALUE when the image is not readable memory of this process.
    """
    addr = int(addr)
    check(mem, addr, 1, "r", what)
    n = next((k for k in (64, 16) if problem(mem, addr, k, "r") is None), 0)
    size = image_size(ctypes.string_at(addr, n)) if n else None
    if size is None:
        return read_c_string(mem, addr, what)
    check(mem, addr, size, "r", what)
    return ctypes.string_at(addr, size)
