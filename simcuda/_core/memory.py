"""Simulated device memory and host-buffer access.

One flat device address space per :class:`~simcuda._core.driver.Driver`. Each allocation is a
``bytearray`` at a fake, aligned address that is never reused; an interior pointer is found
by bisecting the sorted allocation starts. Host memory handed to copies may be an ``int``
address of real memory, a ``ctypes`` object, or any object with the buffer protocol (numpy
arrays), which are the kinds the real bindings accept.

Nothing here knows about capture: copies and sets are plain functions that the driver calls
when work actually runs (at once, when a stream progresses, or when a graph replays).
"""
from __future__ import annotations

import bisect
import ctypes
from typing import Any

from . import hostmem
from .errors import DriverError

DEVICE_BASE = 0x7F3A_0000_0000
ALIGN = 512
HOST_ALIGN = 64

KIND_DEVICE = "device"
KIND_MANAGED = "managed"
KIND_GRAPH = "graph"  # reserved by a MEM_ALLOC node; backed only while mapped


class Allocation:
    """One device allocation (or a graph-owned reservation)."""

    __slots__ = ("start", "size", "buf", "kind", "ctx", "freed", "graph_node", "free_node", "outstanding")

    def __init__(self, start: int, size: int, kind: str, ctx: Any) -> None:
        self.start = start
        self.size = size
        self.kind = kind
        self.ctx = ctx
        self.freed = False
        self.graph_node = None  # graph allocations: the MEM_ALLOC node that owns the address
        self.free_node = None  # graph allocations: the MEM_FREE node (of any graph) that frees it
        self.outstanding = None  # graph allocations: the exec whose launch allocated it, until freed
        self.buf: bytearray | None = bytearray(size) if kind != KIND_GRAPH else None


class MemorySpace:
    """The simulated unified address space of one driver."""

    def __init__(self) -> None:
        self._starts: list[int] = []
        self._allocs: list[Allocation] = []
        self._next = DEVICE_BASE
        self.in_use = 0
        self.host: dict[int, Any] = {}  # address -> ctypes buffer kept alive (pinned host memory)
        self.registered: dict[int, int] = {}  # host address -> size (cuMemHostRegister)

    # -- device allocations ------------------------------------------------------------------
    def reserve(self, size: int, kind: str, ctx: Any) -> Allocation:
        """Create an allocation of ``size`` bytes at a fresh aligned address."""
        start = self._next
        span = max(size, 1)
        try:
            alloc = Allocation(start, size, kind, ctx)
        except (MemoryError, OverflowError):
            raise DriverError(2, f"the host running the simulator cannot back {size} bytes of simulated device "
                                 "memory (each device allocation is a real zeroed buffer)") from None
        self._next = start + ((span + ALIGN - 1) // ALIGN) * ALIGN + ALIGN  # guard gap
        self._starts.append(start)
        self._allocs.append(alloc)
        if kind != KIND_GRAPH:
            self.in_use += size
        return alloc

    def find(self, addr: int) -> Allocation | None:
        """Return the live allocation containing ``addr`` (graph reservations included)."""
        i = bisect.bisect_right(self._starts, addr) - 1
        if i < 0:
            return None
        a = self._allocs[i]
        if a.freed or not (a.start <= addr < a.start + max(a.size, 1)):
            return None
        return a

    def is_device_address(self, addr: int) -> bool:
        """True when ``addr`` lies in the simulated device range (live or not)."""
        return DEVICE_BASE <= addr < self._next

    def free(self, alloc: Allocation) -> None:
        alloc.freed = True
        if alloc.kind != KIND_GRAPH:
            self.in_use -= alloc.size
        alloc.buf = None

    def device_view(self, addr: int, nbytes: int, what: str = "pointer") -> memoryview:
        """A writable view of ``nbytes`` device bytes at ``addr``.

        Errors: ``CUDA_ERROR_INVALID_VALUE`` when the range is not inside one live, mapped allocation.
        """
        a = self.find(int(addr))
        if a is None:
            raise DriverError(1, f"{what} 0x{int(addr):x} is not inside any live device allocation")
        if a.buf is None:
            raise DriverError(1, f"{what} 0x{int(addr):x} belongs to a graph allocation that is not "
                                 "mapped now (graph-owned memory exists only between its MEM_ALLOC and "
                                 "MEM_FREE nodes while the graph runs; spec field case C31)")
        off = int(addr) - a.start
        if nbytes < 0 or off + nbytes > a.size:
            raise DriverError(1, f"{what} range 0x{int(addr):x}+{nbytes} bytes runs past the end of its "
                                 f"allocation (0x{a.start:x}, {a.size} bytes)")
        return memoryview(a.buf)[off:off + nbytes]

    # -- pinned host memory -----------------------------------------------------------------
    def alloc_host(self, size: int) -> int:
        buf = (ctypes.c_char * max(size, 1))()
        addr = ctypes.addressof(buf)
        self.host[addr] = buf
        return addr

    def free_host(self, addr: int) -> bool:
        return self.host.pop(int(addr), None) is not None


def host_view(obj: Any, nbytes: int, writable: bool, what: str = "host buffer", mem: Any = None) -> memoryview:
    """A byte view of host memory given as an int address, a ctypes object or a buffer.

    Errors: ``CUDA_ERROR_INVALID_VALUE`` for NULL, a buffer shorter than ``nbytes``, a read-only
    buffer used as a copy destination, or an ``int`` address whose range is not readable (writable)
    memory of this process (:mod:`simcuda._core.hostmem`; ``mem`` gives the driver's own host
    allocations).
    """
    if obj is None:
        raise DriverError(1, f"{what} is NULL")
    if isinstance(obj, int):
        if obj == 0:
            raise DriverError(1, f"{what} is NULL")
        if nbytes == 0:
            return memoryview(bytearray(0))
        hostmem.check(mem, obj, nbytes, "w" if writable else "r", what)
        return memoryview((ctypes.c_char * nbytes).from_address(obj)).cast("B")
    try:
        mv = memoryview(obj)
    except TypeError:
        raise DriverError(1, f"{what} of type {type(obj).__name__} is neither an address nor a buffer") from None
    if not mv.contiguous:
        raise DriverError(1, f"{what} is not contiguous")
    mv = mv.cast("B") if mv.format != "B" or mv.ndim != 1 else mv
    if writable and mv.readonly:
        raise DriverError(1, f"{what} is read-only but is the destination of a copy")
    if mv.nbytes < nbytes:
        raise DriverError(1, f"{what} holds {mv.nbytes} bytes but {nbytes} are copied")
    return mv[:nbytes]


def host_address(obj: Any) -> int | None:
    """Best-effort integer address of a host object (for DOT/debug output only)."""
    if isinstance(obj, int):
        return obj
    try:
        return ctypes.addressof(obj)
    except TypeError:
        pass
    iface = getattr(obj, "__array_interface__", None)
    if iface:
        return iface["data"][0]
    return None


# -- copies and sets (run when the work runs, never at capture time: spec section 3.10) ---------
HOST = "host"
DEVICE = "device"


class CopyParams:
    """A 1D/2D/3D copy: the fields of ``CUDA_MEMCPY3D`` that the simulator uses.

    ``src``/``dst`` are device addresses (``int``) when their kind is DEVICE, or host objects
    (int address, ctypes object, buffer) when HOST. Offsets and pitches are in bytes; ``width``
    is in bytes, ``height`` in rows, ``depth`` in slices.

    ``src_unified``/``dst_unified`` say that a side was given as a unified address
    (``CU_MEMORYTYPE_UNIFIED``, as ``cuMemcpyAsync`` gives both, spec 16 / 9): the node's params then
    report that memory type, while ``*_kind`` (resolved when the copy was made: DEVICE inside a live
    allocation, else HOST) decides how the bytes move.
    """

    __slots__ = ("src_kind", "src", "src_x", "src_y", "src_z", "src_pitch", "src_height",
                 "dst_kind", "dst", "dst_x", "dst_y", "dst_z", "dst_pitch", "dst_height",
                 "width", "height", "depth", "src_unified", "dst_unified")

    def __init__(self, src_kind: str, src: Any, dst_kind: str, dst: Any, width: int,
                 height: int = 1, depth: int = 1, src_pitch: int = 0, src_height: int = 0,
                 dst_pitch: int = 0, dst_height: int = 0, src_x: int = 0, src_y: int = 0,
                 src_z: int = 0, dst_x: int = 0, dst_y: int = 0, dst_z: int = 0,
                 src_unified: bool = False, dst_unified: bool = False) -> None:
        self.src_kind, self.src, self.dst_kind, self.dst = src_kind, src, dst_kind, dst
        self.src_unified, self.dst_unified = bool(src_unified), bool(dst_unified)
        self.width, self.height, self.depth = int(width), int(height), int(depth)
        self.src_pitch = int(src_pitch) or self.width
        self.dst_pitch = int(dst_pitch) or self.width
        self.src_height = int(src_height) or self.height
        self.dst_height = int(dst_height) or self.height
        self.src_x, self.src_y, self.src_z = int(src_x), int(src_y), int(src_z)
        self.dst_x, self.dst_y, self.dst_z = int(dst_x), int(dst_y), int(dst_z)

    @property
    def direction(self) -> str:
        """``HtoD``, ``DtoH``, ``DtoD`` or ``HtoH``."""
        return ("H" if self.src_kind == HOST else "D") + "to" + ("H" if self.dst_kind == HOST else "D")

    @property
    def nbytes(self) -> int:
        return self.width * self.height * self.depth

    def span(self, side: str) -> tuple[int, int]:
        """(offset of the first byte, number of bytes touched) on ``side`` ('src' or 'dst')."""
        x, y, z, pitch, h = ((self.src_x, self.src_y, self.src_z, self.src_pitch, self.src_height)
                             if side == "src" else
                             (self.dst_x, self.dst_y, self.dst_z, self.dst_pitch, self.dst_height))
        first = x + y * pitch + z * pitch * h
        last = x + (self.height - 1 + y) * pitch + (self.depth - 1 + z) * pitch * h + self.width
        return first, max(0, last - first)

    def describe(self) -> str:
        return f"{self.direction} {self.nbytes} bytes"

    def memory_type(self, side: str) -> int:
        """The ``CUmemorytype`` of ``side`` ('src' or 'dst') as the node's params report it:
        ``CU_MEMORYTYPE_UNIFIED`` (4) for a unified side, else HOST (1) or DEVICE (2) (spec 16, 9)."""
        if self.src_unified if side == "src" else self.dst_unified:
            return 4
        return 1 if (self.src_kind if side == "src" else self.dst_kind) == HOST else 2


def _side_view(mem: MemorySpace, kind: str, obj: Any, first: int, n: int, writable: bool, what: str) -> memoryview:
    if kind == DEVICE:
        return mem.device_view(int(obj) + first, n, what)
    if isinstance(obj, int):
        return host_view(obj + first, n, writable, what, mem)
    return host_view(obj, first + n, writable, what)[first:]


def check_copy(mem: MemorySpace, p: CopyParams) -> None:
    """Validate a copy's device ranges now (used at enqueue time for device operands)."""
    if p.width < 0 or p.height < 0 or p.depth < 0:
        raise DriverError(1, "copy extent is negative")
    if p.width > p.src_pitch or p.width > p.dst_pitch:
        raise DriverError(1, "copy width in bytes is larger than a pitch")
    for side, kind, obj in (("src", p.src_kind, p.src), ("dst", p.dst_kind, p.dst)):
        if kind == DEVICE and p.nbytes:
            first, n = p.span(side)
            a = mem.find(int(obj))
            if a is None:
                raise DriverError(1, f"copy {side} 0x{int(obj):x} is not inside any live device allocation")
            if int(obj) + first + n > a.start + a.size:
                raise DriverError(1, f"copy {side} range runs past the end of its allocation "
                                     f"(0x{a.start:x}, {a.size} bytes)")
        elif kind == HOST and obj is None:
            raise DriverError(1, f"copy {side} host pointer is NULL")
        elif kind == HOST and isinstance(obj, int) and p.nbytes:
            if obj == 0:
                raise DriverError(1, f"copy {side} host pointer is NULL")
            first, n = p.span(side)
            hostmem.check(mem, obj + first, n, "r" if side == "src" else "w", f"copy {side}")


def do_copy(mem: MemorySpace, p: CopyParams) -> None:
    """Move the bytes of ``p`` now, reading the source as it is at this moment."""
    if p.nbytes == 0:
        return
    sf, sn = p.span("src")
    df, dn = p.span("dst")
    src = _side_view(mem, p.src_kind, p.src, sf, sn, False, "copy source")
    dst = _side_view(mem, p.dst_kind, p.dst, df, dn, True, "copy destination")
    if p.height == 1 and p.depth == 1:
        dst[:p.width] = bytes(src[:p.width])
        return
    w = p.width
    for z in range(p.depth):
        for y in range(p.height):
            so = y * p.src_pitch + z * p.src_pitch * p.src_height
            do = y * p.dst_pitch + z * p.dst_pitch * p.dst_height
            dst[do:do + w] = bytes(src[so:so + w])


class MemsetParams:
    """A 1D/2D memset: ``value`` repeated ``width`` elements of ``element_size`` bytes per row."""

    __slots__ = ("dst", "pitch", "value", "element_size", "width", "height", "given_pitch")

    def __init__(self, dst: int, value: int, element_size: int, width: int, height: int = 1,
                 pitch: int = 0) -> None:
        self.dst, self.value, self.element_size = int(dst), int(value), int(element_size)
        self.width, self.height = int(width), int(height)
        self.given_pitch = int(pitch)  # as the caller gave it (0 for 1D calls)
        self.pitch = int(pitch) or self.width * self.element_size

    def describe(self) -> str:
        return f"{self.width * self.height} x {self.element_size}-byte value 0x{self.value:x}"


def check_memset(mem: MemorySpace, p: MemsetParams) -> None:
    """Validate a memset's element size, value, alignment and device range now (INVALID_VALUE otherwise)."""
    if p.element_size not in (1, 2, 4):
        raise DriverError(1, f"memset element size {p.element_size} is not 1, 2 or 4")
    if p.value < 0 or p.value >= 1 << (8 * p.element_size):
        raise DriverError(1, f"memset value {p.value} does not fit in {p.element_size} bytes")
    if p.dst % p.element_size:
        raise DriverError(1, f"memset destination 0x{p.dst:x} is not aligned to {p.element_size} bytes")
    if p.height > 1 and p.given_pitch < p.width * p.element_size:
        raise DriverError(1, f"2D memset pitch {p.given_pitch} bytes is smaller than a row ({p.width} elements of "
                             f"{p.element_size} bytes): rows would overlap")
    n = (p.height - 1) * p.pitch + p.width * p.element_size if p.height else 0
    if n:
        a = mem.find(p.dst)
        if a is None:
            raise DriverError(1, f"memset destination 0x{p.dst:x} is not inside any live device allocation")
        if p.dst + n > a.start + a.size:
            raise DriverError(1, f"memset range runs past the end of its allocation (0x{a.start:x}, {a.size} bytes)")


def do_memset(mem: MemorySpace, p: MemsetParams) -> None:
    """Write the memset's value into simulated device memory now."""
    if p.width == 0 or p.height == 0:  # nothing to write (check_memset checked nothing either)
        return
    row = p.value.to_bytes(p.element_size, "little") * p.width
    for y in range(p.height):
        if not row:
            break
        view = mem.device_view(p.dst + y * p.pitch, len(row), "memset destination")
        view[:] = row
