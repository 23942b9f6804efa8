"""Simulated device memory and host-buffer access.

One device address space per :class:`~simcuda._core.facade.Driver`, in the lazily backed
mappings of :mod:`simcuda._core.process`: an allocation is a page-aligned range of real process
memory at an address that no other driver, earlier or later, ever gets; its pages cost memory only
once touched. Device, managed and (while mapped) graph-owned memory are all readable and writable
through their addresses, so a host write to managed memory through ``ctypes`` and a Python kernel's
``launch.array`` see the same bytes as copies. An interior pointer is found by bisecting the sorted
allocation starts. Host memory handed to copies may be an ``int`` address of real memory, a
``ctypes`` object, or any object with the buffer protocol (numpy arrays), which are the kinds the
real bindings accept.

Nothing here knows about capture: copies and sets are plain functions that the driver calls
when work actually runs (at once, when a stream progresses, or when a graph replays).

Why this file is long (over ~700 lines): the address space, its allocation table, the freed ranges kept for
reuse (bounded, issue 19) and the host-buffer rules of every copy and set are one model with one lock.
"""
from __future__ import annotations

import bisect
import contextlib
import ctypes
import mmap
import threading
import weakref
from typing import TYPE_CHECKING, Any

from .. import process
from ..errors import CUresult, DriverError
from . import hostmem

if TYPE_CHECKING:
    from ..graphs.graph_exec import GraphExec
    from ..graphs.graph_model import Node
    from ..objects import Context, MemPool

HOST_ALIGN = 64

KIND_DEVICE = "device"
KIND_MANAGED = "managed"
KIND_GRAPH = "graph"  # reserved by a MEM_ALLOC node; backed only while mapped
KIND_VMM = "vmm"  # a cuMemMap mapping of cuMemCreate memory in a reserved range; accessible after cuMemSetAccess
#: freed ranges a driver keeps for reuse once the address space is crowded (older frees are not reused: bounded)
HOLES_KEPT = 4096



def not_vmm(a: Any, dptr: int, call: str) -> Any:
    """``a`` (the allocation found at ``dptr``, or None), unless it is virtual memory mapped with cuMemMap, which
    cuMemUnmap and cuMemRelease free: then INVALID_VALUE for ``call`` (cuMemFree, cuMemFreeAsync) [I code]."""
    if a is not None and a.kind == KIND_VMM:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{call}: 0x{int(dptr):x} is virtual memory mapped with cuMemMap; cuMemUnmap and "
                          "cuMemRelease free it, not a device or stream-ordered free [inferred code]")
    return a

class Allocation:
    """One device allocation (or a graph-owned reservation): ``size`` bytes at ``start``.

    ``span`` is the page-rounded address space it holds; ``mapped`` is True while its pages are
    accessible (always for device and managed memory until freed; for a graph allocation only
    between its MEM_ALLOC and MEM_FREE while a launch has it).
    """

    __slots__ = ("start", "size", "span", "kind", "ctx", "freed", "mapped", "graph_node", "free_node",
                 "outstanding", "pool", "buffer_id", "vmm")

    def __init__(self, start: int, size: int, span: int, kind: str, ctx: Context | None) -> None:
        self.start = start
        self.size = size
        self.span = span
        self.kind = kind
        self.ctx = ctx
        self.freed = False
        self.mapped = False
        self.graph_node: Node | None = None  # graph allocations: the MEM_ALLOC node that owns the address
        self.free_node: Node | None = None  # graph allocations: the MEM_FREE node (of any graph) that frees it
        self.outstanding: GraphExec | None = None  # graph allocations: the exec whose launch allocated it, until freed
        self.pool: MemPool | None = None  # stream-ordered allocations: the memory pool it came from
        self.buffer_id = 0  # CU_POINTER_ATTRIBUTE_BUFFER_ID: set when the allocation enters its space's table
        self.vmm: Any = None  # VMM mappings: the mapping record (simcuda._core.memory.vmm_entries.Mapping)


class _Ledger:
    """What a driver's memory holds of the process (its chunks, its counted bytes), for retirement."""

    __slots__ = ("chunks", "committed", "retired")

    def __init__(self) -> None:
        self.chunks: list[process.Chunk] = []
        self.committed = 0
        self.retired = False


def _retire(ledger: _Ledger) -> None:
    if not ledger.retired:
        ledger.retired = True
        process.SPACE.retire(ledger.chunks, ledger.committed)



def _span(addr: int, nbytes: int, start: int, size: int, what: str, where: str) -> memoryview:
    """A writable view of ``nbytes`` at ``addr`` inside the block ``[start, start + size)`` (an allocation, or
    host memory: ``where``). Errors: ``CUDA_ERROR_INVALID_VALUE`` for a negative count or a range that runs past
    the block's end."""
    if nbytes < 0 or addr + nbytes > start + size:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{what} range 0x{addr:x}+{nbytes} bytes runs past the end of its {where} "
                          f"(0x{start:x}, {size} bytes)")
    if nbytes == 0:
        return memoryview(bytearray(0))
    return memoryview((ctypes.c_char * nbytes).from_address(addr)).cast("B")

class MemorySpace:
    """The simulated unified address space of one driver.

    Args:
        serial: the driver's serial (:func:`simcuda._core.process.register_driver`).
        budget: host budget in bytes: allocations of all drivers together may hold at most this many
            bytes; the allocation that would pass it fails with OUT_OF_MEMORY (2).
        lock: the driver's lock, taken by lookups that may run outside a driver entry (Python kernels).
    """

    def __init__(self, serial: int = 0, budget: int | None = None, lock: Any = None) -> None:
        self.serial = serial
        self.budget = default_host_budget() if budget is None else budget
        self._lock = lock if lock is not None else threading.RLock()
        self._starts: list[int] = []
        self._allocs: list[Allocation] = []
        self._ledger = _Ledger()
        self._holes: dict[int, list[int]] = {}  # span -> starts of freed ranges (reused only when crowded)
        self._n_holes = 0  # how many starts _holes keeps (at most HOLES_KEPT: issue 19 item 1)
        self.in_use = 0
        self.host: dict[int, Any] = {}  # address -> ctypes buffer kept alive (pinned host memory)
        self.registered: dict[int, int] = {}  # host address -> size (cuMemHostRegister)
        self.host_info: dict[int, HostRecord] = {}  # host address -> what pinned/registered memory it is (vmm topic)
        self._ids = iter(range(1, 1 << 63))  # buffer ids (CU_POINTER_ATTRIBUTE_BUFFER_ID), never reused
        self._finalizer = weakref.finalize(self, _retire, self._ledger)
        # not at interpreter exit: the process's mappings go with it, and code still running then (a daemon
        # thread, an object torn down late) must not find its memory made inaccessible under it
        self._finalizer.atexit = False

    # -- device allocations ------------------------------------------------------------------
    def reserve(self, size: int, kind: str, ctx: Context | None) -> Allocation:
        """Create an allocation of ``size`` bytes at a fresh page-aligned address, mapped unless ``kind``
        is KIND_GRAPH (graph memory is mapped by :meth:`map`).

        Errors: OUT_OF_MEMORY (2) when the host budget would be passed or the process cannot get the
        address space.
        """
        span = (max(size, 1) + process.PAGE - 1) // process.PAGE * process.PAGE
        with self._lock:
            hole = self._holes.get(span)
            if hole and process.SPACE.crowded():  # address space is scarce: reuse a freed range of this driver
                alloc = Allocation(hole[-1], size, span, kind, ctx)
                if kind != KIND_GRAPH:
                    self._map(alloc)
                hole.pop()
                self._n_holes -= 1
            else:
                chunks = self._ledger.chunks
                c = chunks[-1] if chunks else None
                if c is None or c.top + span > c.end:
                    try:
                        c = process.SPACE.take(span, self.serial)
                    except (MemoryError, OverflowError) as e:
                        raise DriverError(CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                                          f"the host running the simulator cannot reserve {size} bytes of "
                                          f"simulated device address space ({e})") from None
                    chunks.append(c)
                alloc = Allocation(c.top, size, span, kind, ctx)
                if kind != KIND_GRAPH:
                    self._map(alloc)
                c.top += span
            self._insert(alloc)
            if kind != KIND_GRAPH:
                self.in_use += size
            return alloc

    def _insert(self, alloc: Allocation) -> None:
        """Enter ``alloc`` in the sorted allocation table (a reused range replaces its freed entry)."""
        alloc.buffer_id = next(self._ids)
        starts, start = self._starts, alloc.start
        if not starts or start > starts[-1]:  # the common case: a fresh, higher address
            self._allocs.append(alloc)  # before its start: a lock-free bisect never indexes past the list
            starts.append(start)
            return
        i = bisect.bisect_left(starts, start)
        if i < len(starts) and starts[i] == start:
            self._allocs[i] = alloc
        else:
            self._allocs.insert(i, alloc)
            starts.insert(i, start)

    def _map(self, a: Allocation) -> None:
        if not process.SPACE.charge(a.size, self.budget):
            raise DriverError(CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                              f"allocating {a.size} bytes would pass the simulator's host budget of {self.budget} "
                              f"bytes ({process.SPACE.committed} bytes are allocated by the drivers of this process; "
                              "Options(host_memory_budget=...) sets it)")
        self._ledger.committed += a.size
        a.mapped = True

    def _unmap(self, a: Allocation) -> None:
        if a.mapped:
            a.mapped = False
            process.SPACE.drop(a.start, a.span)
            process.SPACE.refund(a.size)
            self._ledger.committed -= a.size

    def map(self, a: Allocation) -> None:
        """Map a graph allocation for a launch (fresh zeroed pages); its device's graph memory counts it
        (``GraphMemory.back``). Raises ``MemoryError`` past the budget."""
        with self._lock:
            if not a.mapped:
                try:
                    self._map(a)
                except DriverError as e:
                    raise MemoryError(e.why) from None
                if a.ctx is not None:
                    a.ctx.device.graph_mem.back(a.start, a.size)

    def unmap(self, a: Allocation) -> None:
        """Unmap a graph allocation (its MEM_FREE ran, or it was freed in stream order): pages dropped."""
        with self._lock:
            self._unmap(a)

    def find(self, addr: int) -> Allocation | None:
        """Return the live allocation containing ``addr`` (graph reservations included)."""
        starts = self._starts
        i = bisect.bisect_right(starts, addr) - 1
        if i < 0:
            return None
        try:
            a = self._allocs[i]
        except IndexError:  # a free took an entry out meanwhile (a reader without the lock)
            return None
        if a.freed or not (a.start <= addr < a.start + max(a.size, 1)):
            return None
        return a

    def unified_side(self, addr: int) -> str:
        """What a unified address is on one side of a copy: ``DEVICE`` inside a live simulated allocation, else
        ``HOST`` (cuMemcpy's rule, and a ``CU_MEMORYTYPE_UNIFIED`` side of a ``CUDA_MEMCPY2D/3D``). Takes the lock."""
        if not isinstance(addr, int):
            return HOST
        with self._lock:
            return DEVICE if self.find(addr) is not None else HOST

    def check_alloc_size(self, size: int, ctx: Context) -> None:
        """The size rules of a new device allocation in ``ctx`` (cuMemAlloc*, cuMemAllocAsync): 1 INVALID_VALUE a
        size that is not positive; 2 OUT_OF_MEMORY when it would take this space past the device's ``total_mem``
        (``DeviceSpec.total_mem``, bytes)."""
        if size <= 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"allocation size {size} must be positive")
        if self.in_use + size > ctx.device.spec.total_mem:
            raise DriverError(CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                              f"allocating {size} bytes would exceed the simulated device's "
                              f"{ctx.device.spec.total_mem} bytes ({self.in_use} in use)")

    def owns(self, addr: int) -> bool:
        """True when ``addr`` lies in this driver's address space (a live allocation or not)."""
        return process.SPACE.owner(addr) == self.serial

    def missing(self, addr: int) -> str:
        """A ``why`` suffix for an address that is no live allocation here: names the driver it came from."""
        return process.foreign(process.SPACE.owner(int(addr)), self.serial, "device address")

    def free(self, alloc: Allocation) -> None:
        """Free a device or managed allocation (or release a graph reservation): its pages are dropped and
        the range reads as zeros; the address is not handed out again unless the process's address space
        is crowded (:meth:`simcuda._core.process.AddressSpace.crowded`), and never to another driver."""
        with self._lock:
            if alloc.freed:
                return
            alloc.freed = True
            if alloc.kind != KIND_GRAPH:
                self.in_use -= alloc.size
            if alloc.pool is not None:
                alloc.pool.give_back(alloc.size)
            self._unmap(alloc)
            self._drop_entry(alloc)
            if self._n_holes < HOLES_KEPT:
                self._holes.setdefault(alloc.span, []).append(alloc.start)
                self._n_holes += 1

    def _drop_entry(self, alloc: Allocation) -> None:
        """Take freed ``alloc`` out of the sorted allocation table (issue 19 item 1: a freed allocation is not kept;
        near the end, where the latest allocations are, this is cheap)."""
        starts = self._starts
        i = bisect.bisect_left(starts, alloc.start)
        if i < len(starts) and self._allocs[i] is alloc:
            del starts[i]  # the starts first: a lock-free reader then misses, never indexes past the list
            del self._allocs[i]

    def after_fork_in_child(self, lock: Any) -> None:
        """In a forked child (issue 19 item 5): lookups take ``lock``, the driver's new lock (the old one may be held
        forever by a thread that does not exist in the child)."""
        self._lock = lock

    def retire(self) -> None:
        """The driver is closed: unmap every chunk it holds (its addresses are never handed out again, and are
        still recognised as its own: :mod:`simcuda._core.process`) and close its pinned host mappings that no
        view still exports (issue 19 item 1: a closed driver leaves no mapping behind)."""
        with self._lock:
            for a in self._allocs:
                a.mapped = False
            self._finalizer()
            for buf in self.host.values():
                with contextlib.suppress(BufferError):  # still exported: it goes with the last view
                    buf.close()

    def device_view(self, addr: int, nbytes: int, what: str = "pointer") -> memoryview:
        """A writable view of ``nbytes`` device bytes at ``addr``.

        Errors: ``CUDA_ERROR_INVALID_VALUE`` when the range is not inside one live, mapped allocation.
        """
        addr = int(addr)
        with self._lock:
            a = self.find(addr)
            if a is None:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{what} 0x{addr:x} is not inside any live device allocation"
                                  + self.missing(addr))
            if not a.mapped and a.kind == KIND_VMM:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{what} 0x{addr:x} is mapped virtual memory (cuMemMap) that no device may access "
                                  "yet: cuMemSetAccess grants access")
            if not a.mapped:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{what} 0x{addr:x} belongs to a graph allocation that is not mapped now "
                                  "(graph-owned memory exists only between its MEM_ALLOC and MEM_FREE nodes while "
                                  "the graph runs; spec field case C31)")
            return _span(addr, nbytes, a.start, a.size, what, "allocation")

    # -- pinned host memory -----------------------------------------------------------------
    def alloc_host(self, size: int) -> int:
        """Pinned host memory (cuMemAllocHost): a private anonymous mapping, zeroed and backed only where
        touched, counted against the host budget like device memory; returns its address.

        Errors: OUT_OF_MEMORY (2) past the host budget or when the process cannot map it.
        """
        n = max(size, 1)
        with self._lock:
            if not process.SPACE.charge(n, self.budget):
                raise DriverError(CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                                  f"allocating {n} bytes of page-locked host memory would pass the simulator's host "
                                  f"budget of {self.budget} bytes (Options(host_memory_budget=...))")
            try:
                buf = mmap.mmap(-1, n)
            except (OSError, ValueError, OverflowError) as e:
                process.SPACE.refund(n)
                raise DriverError(CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                                  f"the process cannot map {n} bytes of host memory ({e})") from None
            addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
            self.host[addr] = buf
            self._ledger.committed += n
            return addr

    def free_host(self, addr: int) -> bool:
        """Free pinned host memory by its address; False when ``addr`` is not one this driver allocated.

        The mapping is closed once no view of it is left (a numpy array the caller still holds keeps it)."""
        with self._lock:
            buf = self.host.pop(int(addr), None)
            if buf is None:
                return False
            self.host_info.pop(int(addr), None)
            process.SPACE.refund(len(buf))
            self._ledger.committed -= len(buf)
            with contextlib.suppress(BufferError):  # still exported (a ctypes or numpy view): it goes with the last
                buf.close()
            return True


    # -- host-mapped memory and virtual memory management (topic: vmm) -------------------------
    def note_host(self, addr: int, size: int, kind: str, flags: int, ctx: Context | None) -> HostRecord:
        """Record pinned (``kind`` ``"pinned"``: cuMemHostAlloc) or registered (``"registered"``: cuMemHostRegister)
        host memory, with its flags and context, under a fresh buffer id; returns the record."""
        rec = HostRecord(int(addr), int(size), kind, int(flags), ctx, next(self._ids))
        with self._lock:
            self.host_info[int(addr)] = rec
        return rec

    def host_lookup(self, addr: int) -> HostRecord | None:
        """The pinned or registered host memory that holds ``addr`` (an interior address too), or None."""
        addr = int(addr)
        with self._lock:
            rec = self.host_info.get(addr)
            if rec is not None:
                return rec
            return next((r for r in self.host_info.values() if r.start <= addr < r.start + max(r.size, 1)), None)

    def kernel_view(self, addr: int, nbytes: int, what: str = "kernel argument") -> memoryview:
        """A writable view of ``nbytes`` at ``addr`` as a kernel reaches them: device, managed, mapped graph and
        accessible VMM memory (:meth:`device_view`), or pinned and registered host memory at its host address,
        which unified addressing maps into every device that can map host memory (CUDA Runtime API, "Unified
        Addressing": host memory from cudaHostAlloc is reachable from kernels at its host address;
        cudaHostRegisterDefault memory is mapped and portable under UVA).

        Errors: ``CUDA_ERROR_INVALID_VALUE`` when the range is none of those (or runs past its end), or lies in host
        memory of a context whose device has ``DeviceSpec.host_mapped_memory`` off.
        """
        addr = int(addr)
        if self.find(addr) is None:
            rec = self.host_lookup(addr)
            if rec is not None:
                if rec.ctx is not None and not rec.ctx.device.spec.host_mapped_memory:
                    raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                      f"{what} 0x{addr:x} is host memory, and the device of its context cannot map "
                                      "host memory (DeviceSpec.host_mapped_memory is off)")
                return _span(addr, nbytes, rec.start, rec.size, what, "host memory")
        return self.device_view(addr, nbytes, what)

    def reserve_range(self, size: int, align: int) -> int:
        """Reserve ``size`` bytes of address space aligned to ``align`` (a power of two) for cuMemAddressReserve:
        no allocation and no memory, only addresses no other allocation gets. Returns the start.

        Errors: OUT_OF_MEMORY (2) when the process cannot get the address space.
        """
        span = (max(size, 1) + process.PAGE - 1) // process.PAGE * process.PAGE
        align = max(int(align), process.PAGE)
        with self._lock:
            chunks = self._ledger.chunks
            c = chunks[-1] if chunks else None
            if c is None or (c.top + align - 1) // align * align + span > c.end:
                try:
                    c = process.SPACE.take(span + align, self.serial)
                except (MemoryError, OverflowError) as e:
                    raise DriverError(CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                                      f"the host running the simulator cannot reserve {size} bytes of simulated "
                                      f"virtual address space ({e})") from None
                chunks.append(c)
            start = (c.top + align - 1) // align * align
            c.top = start + span
            return start

    def insert_mapping(self, start: int, size: int, record: Any) -> Allocation:
        """Enter a VMM mapping of ``size`` bytes at ``start`` (inside a reserved range) in the allocation table,
        not yet accessible (``mapped`` False until cuMemSetAccess); ``record`` is kept as ``Allocation.vmm``."""
        a = Allocation(int(start), int(size), int(size), KIND_VMM, None)
        a.vmm = record
        with self._lock:
            self._insert(a)
        return a

    def remove_mapping(self, a: Allocation) -> None:
        """Take a VMM mapping out of the table (cuMemUnmap) and drop the pages of its range."""
        with self._lock:
            a.freed, a.mapped = True, False
            i = bisect.bisect_left(self._starts, a.start)
            if i < len(self._starts) and self._allocs[i] is a:
                del self._allocs[i]
                del self._starts[i]
            process.SPACE.drop(a.start, a.span)

    def mappings_in(self, start: int, size: int) -> list[Allocation]:
        """The live VMM mappings that overlap ``[start, start + size)``, in address order."""
        with self._lock:
            lo = bisect.bisect_right(self._starts, start) - 1
            out = []
            for a in self._allocs[max(lo, 0):]:
                if a.start >= start + size:
                    break
                if a.kind == KIND_VMM and not a.freed and a.start + a.size > start:
                    out.append(a)
            return out

    def charge_physical(self, size: int) -> None:
        """Count ``size`` bytes of physical memory (cuMemCreate) against the host budget and the device.

        Errors: OUT_OF_MEMORY (2) past the budget."""
        with self._lock:
            if not process.SPACE.charge(size, self.budget):
                raise DriverError(CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                                  f"creating {size} bytes of physical memory would pass the simulator's host budget of "
                                  f"{self.budget} bytes (Options(host_memory_budget=...))")
            self._ledger.committed += size
            self.in_use += size

    def refund_physical(self, size: int) -> None:
        """The physical memory of :meth:`charge_physical` was freed."""
        with self._lock:
            process.SPACE.refund(size)
            self._ledger.committed -= size
            self.in_use -= size


class HostRecord:
    """Pinned or registered host memory as the pointer attributes see it: ``start``, ``size`` bytes, ``kind``
    (``"pinned"`` or ``"registered"``), the ``CU_MEMHOSTALLOC_*`` / ``CU_MEMHOSTREGISTER_*`` ``flags``, the
    context it was allocated or registered in, and its ``buffer_id``."""

    __slots__ = ("start", "size", "kind", "flags", "ctx", "buffer_id")

    def __init__(self, start: int, size: int, kind: str, flags: int, ctx: Context | None, buffer_id: int) -> None:
        self.start, self.size, self.kind, self.flags = start, size, kind, flags
        self.ctx, self.buffer_id = ctx, buffer_id


def host_view(obj: Any, nbytes: int, writable: bool, what: str = "host buffer", mem: Any = None) -> memoryview:
    """A byte view of host memory given as an int address, a ctypes object or a buffer.

    Errors: ``CUDA_ERROR_INVALID_VALUE`` for NULL, a buffer shorter than ``nbytes``, a read-only
    buffer used as a copy destination, or an ``int`` address whose range is not readable (writable)
    memory of this process (:mod:`simcuda._core.memory.hostmem`; ``mem`` gives the driver's own host
    allocations).
    """
    if obj is None:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what} is NULL")
    if isinstance(obj, int):
        if obj == 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what} is NULL")
        if nbytes == 0:
            return memoryview(bytearray(0))
        hostmem.check(mem, obj, nbytes, "w" if writable else "r", what)
        return memoryview((ctypes.c_char * nbytes).from_address(obj)).cast("B")
    try:
        mv = memoryview(obj)
    except TypeError:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what} of type {type(obj).__name__} is "
                                                             "neither an address nor a buffer") from None
    if not mv.contiguous:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what} is not contiguous")
    mv = mv.cast("B") if mv.format != "B" or mv.ndim != 1 else mv
    if writable and mv.readonly:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what} is read-only but is the destination of a copy")
    if mv.nbytes < nbytes:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what} holds {mv.nbytes} bytes but {nbytes} are copied")
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
        return int(iface["data"][0])
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
        """Bytes the copy moves: ``width * height * depth``."""
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
        """How logs and DOT name the copy: ``HtoD 64 bytes``."""
        return f"{self.direction} {self.nbytes} bytes"

    def memory_type(self, side: str) -> int:
        """The ``CUmemorytype`` of ``side`` ('src' or 'dst') as the node's params report it:
        ``CU_MEMORYTYPE_UNIFIED`` (4) for a unified side, else HOST (1) or DEVICE (2) (spec 16, 9)."""
        if self.src_unified if side == "src" else self.dst_unified:
            return 4
        return 1 if (self.src_kind if side == "src" else self.dst_kind) == HOST else 2


def _side_view(mem: MemorySpace, kind: str, obj: Any, first: int, n: int, writable: bool, what: str) -> memoryview:
    if kind == DEVICE:  # pinned/registered host memory at its host or device address too (spec 17)
        return mem.kernel_view(int(obj) + first, n, what)
    if isinstance(obj, int):
        return host_view(obj + first, n, writable, what, mem)
    return host_view(obj, first + n, writable, what)[first:]


def _host_operand(mem: MemorySpace, addr: int, n: int) -> bool:
    """True when ``[addr, addr + n)`` lies in pinned, mapped or registered host memory, which unified addressing
    makes a valid memset/memcpy operand at its host or device address (spec 17, 9) [D UVA]."""
    rec = mem.host_lookup(addr)
    return rec is not None and addr + n <= rec.start + rec.size


def check_copy(mem: MemorySpace, p: CopyParams) -> None:
    """Validate a copy's device ranges now (used at enqueue time for device operands)."""
    if p.width < 0 or p.height < 0 or p.depth < 0:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, "copy extent is negative")
    if p.width > p.src_pitch or p.width > p.dst_pitch:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, "copy width in bytes is larger than a pitch")
    for side, kind, obj in (("src", p.src_kind, p.src), ("dst", p.dst_kind, p.dst)):
        if kind == DEVICE and p.nbytes:
            first, n = p.span(side)
            a = mem.find(int(obj))
            if a is None and _host_operand(mem, int(obj) + first, n):
                continue
            if a is None:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"copy {side} 0x{int(obj):x} is not inside any live device allocation"
                                  + mem.missing(int(obj)))
            if int(obj) + first + n > a.start + a.size:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"copy {side} range runs past the end of its allocation (0x{a.start:x}, {a.size} "
                                  "bytes)")
        elif kind == HOST and obj is None:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"copy {side} host pointer is NULL")
        elif kind == HOST and isinstance(obj, int) and p.nbytes:
            if obj == 0:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"copy {side} host pointer is NULL")
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
        """How logs and DOT name the set: ``16 x 1-byte value 0x7``."""
        return f"{self.width * self.height} x {self.element_size}-byte value 0x{self.value:x}"


def check_memset(mem: MemorySpace, p: MemsetParams) -> None:
    """Validate a memset's element size, value, alignment and device range now (INVALID_VALUE otherwise)."""
    if p.element_size not in (1, 2, 4):
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"memset element size {p.element_size} is not 1, 2 or 4")
    if p.value < 0 or p.value >= 1 << (8 * p.element_size):
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"memset value {p.value} does not fit in "
                                                             f"{p.element_size} bytes")
    if p.dst % p.element_size:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"memset destination 0x{p.dst:x} is not aligned to "
                                                             f"{p.element_size} bytes")
    if p.height > 1 and p.given_pitch < p.width * p.element_size:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"2D memset pitch {p.given_pitch} bytes is smaller than "
                                                             f"a row ({p.width} elements of {p.element_size} bytes): "
                                                             "rows would overlap")
    n = (p.height - 1) * p.pitch + p.width * p.element_size if p.height else 0
    if n:
        a = mem.find(p.dst)
        if a is None and _host_operand(mem, p.dst, n):
            return
        if a is None:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"memset destination 0x{p.dst:x} is not inside any live device allocation"
                              + mem.missing(p.dst))
        if p.dst + n > a.start + a.size:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"memset range runs past the end of its allocation (0x{a.start:x}, {a.size} bytes)")


def do_memset(mem: MemorySpace, p: MemsetParams) -> None:
    """Write the memset's value into simulated device memory now."""
    if p.width == 0 or p.height == 0:  # nothing to write (check_memset checked nothing either)
        return
    row = p.value.to_bytes(p.element_size, "little") * p.width
    for y in range(p.height):
        if not row:
            break
        view = mem.kernel_view(p.dst + y * p.pitch, len(row), "memset destination")  # host memory too (spec 17)
        view[:] = row


def default_host_budget() -> int:
    """The default host budget: three quarters of the memory available now (16 GiB when unknown)."""
    avail = hostmem.available_memory() or hostmem.physical_memory()
    return avail * 3 // 4 if avail else 16 << 30
