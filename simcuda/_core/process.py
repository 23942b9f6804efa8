"""What is process-wide: driver serials, handle ranges, and the simulated device address space.

Every :class:`~simcuda._core.facade.Driver` is an ordinary object, but handles and device
addresses are plain integers that outlive it: a test keeps a stream from an earlier driver, a
program keeps a pointer across ``simcuda.reset()``. So that such a value is *recognised* rather
than silently reaching a live object of the next driver, the two number spaces are shared by the
whole process and only ever move forward:

* **Handles.** Driver number ``k`` (its *serial*, 0 for the first driver of the process) hands out
  handles from ``HANDLE_BASE + k * HANDLE_SPAN`` on, in steps of ``HANDLE_STEP``. :func:`handle_owner`
  tells which driver a handle value came from.
* **Device addresses.** Each driver takes address space for its device allocations in *chunks*
  (:class:`Chunk`), as its allocations need it, never its device's whole size up front. A chunk is
  an anonymous private mapping (``MAP_NORESERVE``) taken at a process-wide cursor that only moves
  forward (from ``ADDRESS_HINT``, far from where Linux places ordinary mappings); no address of it
  is in use until the driver allocates there. The kernel backs a page with memory only once it is
  touched, so an untouched allocation costs no memory. A freed allocation's pages are dropped
  (``madvise``), with no change of protection, so churn never multiplies the process's mappings
  (``vm.max_map_count``); a freed range reads as zeros. Every chunk of a driver that is closed or
  garbage-collected is unmapped (its pages, its mappings and its reservation go: a closed driver leaves
  no mapping behind, issue 19 item 1), but its range is *remembered* (three integers per chunk):
  the cursor never moves back, so simcuda never hands an earlier driver's address out again, and
  :meth:`AddressSpace.owner` still names its driver (touching it from host code faults, as touching
  the memory of a shut-down driver may). Only when the process has used up most of its address space
  (:meth:`AddressSpace.crowded`) does a driver reuse the ranges of its own freed allocations (as the
  real driver reuses freed addresses).
* **Host budget.** The bytes of live allocations of all drivers are counted (:data:`SPACE`
  ``.committed``) against each driver's host budget (``Options.host_memory_budget``), so touching
  every allocated byte cannot exhaust the machine: the allocation that would pass the budget fails
  with ``CUDA_ERROR_OUT_OF_MEMORY`` first.

On a platform without ``mmap`` in its C library (Windows) a chunk is an ordinary zeroed ``ctypes``
buffer (committed at once, and released when its driver goes) and addresses are wherever the
allocator puts them; the rules above then hold only while the buffer lives. This is a fidelity
note, not a supported configuration: the project is tested on Linux.
"""
from __future__ import annotations

import bisect
import ctypes
import ctypes.util
import errno
import functools
import mmap as _mmap
import os
import threading
import weakref
from array import array
from typing import Any

HANDLE_BASE = 0x5A5A_0000_1000
HANDLE_STEP = 0x40
HANDLE_SPAN = 1 << 40  # handle values per driver (2**34 handles at HANDLE_STEP: never exhausted)

PAGE = _mmap.PAGESIZE
ADDRESS_HINT = 0x2000_0000_0000  # 32 TiB: above the brk heap and PIE images, below Linux's mmap area
CHUNK_MIN = 64 << 20  # address space a driver takes at a time (more for a larger allocation)
CHUNK_ALIGN = 2 << 20
CROWDED_AT = 0x6000_0000_0000  # past this cursor (96 TiB) drivers reuse their own freed ranges

_PROT_NONE, _PROT_RW = 0, _mmap.PROT_READ | _mmap.PROT_WRITE
_MAP_PRIVATE = getattr(_mmap, "MAP_PRIVATE", 2)
_MAP_ANONYMOUS = getattr(_mmap, "MAP_ANONYMOUS", getattr(_mmap, "MAP_ANON", 0x20))
_MAP_NORESERVE = getattr(_mmap, "MAP_NORESERVE", 0)
_MAP_FIXED = 0x10
_MAP_FIXED_NOREPLACE = 0x100000  # Linux 4.17+; an older kernel ignores it and treats the address as a hint
_MAP_FAILED = ctypes.c_void_p(-1).value
_MADV_DONTNEED = 4


def _libc() -> Any:
    name = ctypes.util.find_library("c")
    try:
        lib = ctypes.CDLL(name, use_errno=True)
        mm = lib.mmap
    except (OSError, AttributeError, TypeError):
        return None
    mm.restype = ctypes.c_void_p
    mm.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long)
    lib.madvise.restype = ctypes.c_int
    lib.madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    lib.munmap.restype = ctypes.c_int
    lib.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
    return lib


_LIBC = _libc()
_LINUX = __import__("sys").platform.startswith("linux")


def _round_up(n: int, to: int) -> int:
    return (n + to - 1) // to * to


class Chunk:
    """A range of reserved address space owned by one driver: ``[start, end)``; ``top`` is the next free byte."""

    __slots__ = ("start", "end", "top", "owner", "buffer")

    def __init__(self, start: int, end: int, owner: int, buffer: Any = None) -> None:
        self.start, self.end, self.top, self.owner, self.buffer = start, end, start, owner, buffer


class AddressSpace:
    """The process's simulated device address space (one instance: :data:`SPACE`).

    Thread-safe: every method takes its own lock (never the lock of a driver).
    """

    def __init__(self) -> None:
        # re-entrant: a driver dropped while this thread holds the lock (the garbage collector runs its finalizer,
        # which retires its chunks, at any allocation, inside take() too) must not deadlock the process
        self._lock = threading.RLock()
        self.cursor = ADDRESS_HINT
        # every chunk ever taken, live or retired, sorted by start: flat arrays (24 bytes a chunk), so the
        # memory of 200,000 closed drivers stays a few MiB
        self._starts = array("Q")
        self._ends = array("Q")
        self._owners = array("q")
        self.committed = 0  # bytes of live allocations of every driver (the host budget counts these)
        self.wrapped = False  # the kernel put a chunk below the cursor (the hint was not honoured)

    # -- chunks ------------------------------------------------------------------------------
    def take(self, size: int, owner: int) -> Chunk:
        """Take a new chunk of at least ``size`` bytes for driver ``owner`` (no memory yet).

        Raises ``MemoryError`` when the process cannot reserve that much address space.
        """
        span = _round_up(max(size, CHUNK_MIN), CHUNK_ALIGN)
        with self._lock:
            start, buffer = self._reserve(span)
            if start < self.cursor - span:
                self.wrapped = True
            self.cursor = max(self.cursor, start + span)
            chunk = Chunk(start, start + span, owner, buffer)
            i = bisect.bisect_left(self._starts, start)
            self._starts.insert(i, start)
            self._ends.insert(i, start + span)
            self._owners.insert(i, owner)
            return chunk

    def _reserve(self, span: int) -> tuple[int, Any]:
        if _LIBC is None:  # no mmap: a committed buffer (see the module docstring)
            buf = (ctypes.c_char * span)()
            return ctypes.addressof(buf), buf
        flags = _MAP_PRIVATE | _MAP_ANONYMOUS | _MAP_NORESERVE
        if _LINUX:  # at the cursor exactly, stepping past ranges something else holds
            for _ in range(64):
                addr = _LIBC.mmap(self.cursor, span, _PROT_RW, flags | _MAP_FIXED_NOREPLACE, -1, 0)
                if addr not in (None, _MAP_FAILED):
                    return int(addr), None
                if ctypes.get_errno() != errno.EEXIST:
                    break
                self.cursor += span
        addr = _LIBC.mmap(self.cursor, span, _PROT_RW, flags, -1, 0)  # the cursor as a hint
        if addr not in (None, _MAP_FAILED):
            return int(addr), None  # wherever the kernel put it, the range is never handed out again
        raise MemoryError(f"the process cannot reserve {span} bytes of address space "
                          f"(errno {ctypes.get_errno()})")

    def owner(self, addr: int) -> int | None:
        """The serial of the driver whose chunk holds ``addr``, or None when no driver's does."""
        with self._lock:
            i = bisect.bisect_right(self._starts, addr) - 1
            if i >= 0 and addr < self._ends[i]:
                return self._owners[i]
            return None

    def crowded(self) -> bool:
        """True once most of the process's address space is used (or the kernel stopped honouring the cursor):
        drivers then reuse the ranges of their own freed allocations."""
        return self.cursor > CROWDED_AT or self.wrapped

    def after_fork_in_child(self) -> None:
        """In a forked child: a new lock (the thread that held the old one at the fork does not exist there)."""
        self._lock = threading.RLock()

    # -- pages -------------------------------------------------------------------------------
    @staticmethod
    def drop(addr: int, size: int) -> None:
        """Give back the pages of ``[addr, addr + size)`` (page-aligned); the range stays mapped and reads as
        zeros. Where ``madvise`` fails (or there is no mmap), the bytes are zeroed instead."""
        if not size:
            return
        if _LIBC is None or _LIBC.madvise(addr, size, _MADV_DONTNEED) != 0:
            ctypes.memset(addr, 0, size)

    @staticmethod
    def decommit(addr: int, size: int) -> None:
        """Drop the pages of ``[addr, addr + size)`` and make the range inaccessible; it stays reserved."""
        if not size:
            return
        if _LIBC is None:
            ctypes.memset(addr, 0, size)
            return
        flags = _MAP_PRIVATE | _MAP_ANONYMOUS | _MAP_NORESERVE | _MAP_FIXED
        _LIBC.mmap(addr, size, _PROT_NONE, flags, -1, 0)  # replaces the pages with fresh untouched ones

    @staticmethod
    def release(chunk: Chunk) -> None:
        """Unmap the whole of ``chunk`` (pages, mappings and reservation; its range stays remembered, see the module
        docstring). Where ``munmap`` fails, the range is decommitted instead (kept reserved, inaccessible)."""
        if chunk.buffer is not None or _LIBC is None:
            chunk.buffer = None  # the committed buffer of a platform without mmap goes with its last reference
            return
        if _LIBC.munmap(chunk.start, chunk.end - chunk.start) != 0:
            AddressSpace.decommit(chunk.start, chunk.end - chunk.start)

    def retire(self, chunks: list[Chunk], committed: int) -> None:
        """A driver is gone: unmap its chunks (:meth:`release`) and take its bytes from the count."""
        for c in chunks:
            self.release(c)
        chunks.clear()
        with self._lock:
            self.committed -= committed

    def charge(self, size: int, budget: int) -> bool:
        """Count ``size`` more live bytes unless that passes ``budget``; False (nothing counted) when it would."""
        with self._lock:
            if self.committed + size > budget:
                return False
            self.committed += size
            return True

    def refund(self, size: int) -> None:
        """Count ``size`` fewer live bytes (an allocation was freed or unmapped)."""
        with self._lock:
            self.committed -= size


#: the process's address space
SPACE = AddressSpace()


# -- drivers ---------------------------------------------------------------------------------
_drivers_lock = threading.Lock()
_live: dict[int, Any] = {}  # serial -> weakref to the Driver, while it exists (its weakref's callback drops it)
_serials = 0  # drivers registered so far (the next serial)


# -- shared physical memory for virtual memory management (topic: vmm) -------------------------------------------
_MAP_SHARED = getattr(_mmap, "MAP_SHARED", 1)


def shared_memory(size: int) -> int | None:
    """A file descriptor of ``size`` bytes of anonymous shared memory (``memfd_create``), the physical memory of a
    cuMemCreate that :func:`map_shared` maps at several addresses at once; None where the platform has none (then
    the caller copies bytes in and out of the mappings). Raises ``OSError`` when the memory cannot be made."""
    import os
    if _LIBC is None or not _LINUX or not hasattr(os, "memfd_create"):
        return None
    fd = os.memfd_create("simcuda-vmm", getattr(os, "MFD_CLOEXEC", 0))
    try:
        os.ftruncate(fd, size)
    except OSError:
        os.close(fd)
        raise
    return fd


def map_shared(addr: int, size: int, fd: int, offset: int) -> bool:
    """Map ``size`` bytes of ``fd`` from ``offset`` at ``addr`` (page-aligned, inside a chunk), replacing the chunk's
    pages there: every mapping of the same bytes sees every write. False when the kernel refuses."""
    got = _LIBC.mmap(addr, size, _PROT_RW, _MAP_SHARED | _MAP_FIXED, fd, offset)
    return got is not None and int(got) == addr


def unmap_shared(addr: int, size: int) -> None:
    """Give ``[addr, addr + size)`` back to its chunk: fresh, untouched private pages (the shared bytes stay in
    their file)."""
    _LIBC.mmap(addr, size, _PROT_RW, _MAP_PRIVATE | _MAP_ANONYMOUS | _MAP_NORESERVE | _MAP_FIXED, -1, 0)


def register_driver(driver: Any) -> int:
    """Give ``driver`` the next serial (its handle range and its name in ``why`` texts). What the process keeps of
    a driver once it is garbage-collected is its serial only (issue 19 item 1)."""
    global _serials
    with _drivers_lock:
        serial = _serials
        _serials += 1
        _live[serial] = weakref.ref(driver, functools.partial(_gone, serial))
        return serial


def _gone(serial: int, _ref: Any) -> None:
    """The weak reference's callback: driver ``serial`` was garbage-collected."""
    _live.pop(serial, None)


#: the why of every call to a driver of the parent in a forked child (issue 19 item 5; docs/spec-proposals.md P-80)
FORK_WHY = ("this process was forked from one whose simulated driver was in use: NVIDIA documents that CUDA does "
            "not support fork() after initialisation (a forked child cannot use the parent's contexts, "
            "devices or memory: NVIDIA/cuda-python PR #1309); the child's calls "
            "to the parent's driver answer CUDA_ERROR_NOT_INITIALIZED (3), the code the runtime reports as "
            "cudaErrorInitializationError in such children [I: the driver's code inferred from the runtime's]. Use "
            "the 'spawn' start method, or make a new simcuda.Driver in the child (P-80)")
_forked = False


def forked() -> bool:
    """True in a process forked (``os.fork``) from one where simcuda was imported: the parent's drivers answer
    :data:`FORK_WHY` there (issue 19 item 5)."""
    return _forked


def _after_fork_in_child() -> None:
    """``os.register_at_fork(after_in_child=...)``: the child has only the forking thread; a lock another thread
    held at the fork would be held forever. Every lock of this module is made anew, and every driver of the
    parent is told it lives in a forked child (:meth:`simcuda._core.state.DriverState.after_fork_in_child`), so
    each of its entries answers CUDA_ERROR_NOT_INITIALIZED (3) at once, never blocking (P-80)."""
    global _drivers_lock, _forked
    _forked = True
    _drivers_lock = threading.Lock()
    SPACE.after_fork_in_child()
    for ref in list(_live.values()):
        d = ref()
        if d is not None:
            d.after_fork_in_child(FORK_WHY)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def renew_lock_after_fork(namespace: dict[str, Any], name: str, reentrant: bool = False) -> None:
    """In a forked child, replace the module lock ``namespace[name]`` (a module's ``globals()``) by a new
    ``threading.Lock`` (``RLock`` when ``reentrant``): the child has only the forking thread, so a lock another
    thread held at the fork would block the child forever (issue 19 item 5, P-80). For locks of simcuda's
    modules that the child may take again (patching, loading the native library, new drivers)."""
    def renew() -> None:
        namespace[name] = threading.RLock() if reentrant else threading.Lock()
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=renew)


def drivers_registered() -> int:
    """How many drivers the process has registered (the next serial)."""
    return _serials


def handle_base(serial: int) -> int:
    """The first handle value of driver ``serial``."""
    return HANDLE_BASE + serial * HANDLE_SPAN


def handle_owner(h: int) -> int | None:
    """The serial of the driver whose handle range holds ``h``, or None."""
    if not isinstance(h, int) or h < HANDLE_BASE:
        return None
    serial = (h - HANDLE_BASE) // HANDLE_SPAN
    return serial if serial < _serials else None


def describe_driver(serial: int) -> str:
    """How ``why`` texts name driver ``serial``: ``driver #3 (closed)``, ``driver #2 (garbage-collected)``..."""
    ref = _live.get(serial)
    d = ref() if ref is not None else None
    if d is None:
        state = "no longer exists"
    elif getattr(d, "_closed", False):
        state = "closed"
    else:
        state = "still alive"
    return f"simcuda driver #{serial} ({state})"


def foreign(serial: int | None, own: int, what: str) -> str:
    """A ``why`` suffix for a value of another driver, or ``""`` when ``serial`` is None or ``own``.

    ``what`` names the value ("handle", "address"). Handles and addresses never cross drivers: each
    driver has its own range, so a value kept from an earlier driver (``simcuda.reset()``,
    ``simcuda.use()``, an earlier test) is refused as the real driver refuses an invalid one.
    """
    if serial is None or serial == own:
        return ""
    return (f"; it is a {what} of {describe_driver(serial)}, not of this one (simcuda driver #{own}): handles and "
            "device addresses never cross drivers, so one kept from an earlier driver (simcuda.reset(), "
            "simcuda.use(), an earlier test) is invalid here")
