"""Unified memory in use: host-mapped memory, managed-memory hints, pointer attributes, and virtual memory management
(cuMemAddressReserve, cuMemCreate, cuMemMap, cuMemSetAccess...) on the driver's address space (spec 16; issue 10).

Fidelity (docs/spec-proposals.md P-50..P-55):

* Host-mapped memory: under unified addressing every pinned (cuMemHostAlloc) and registered (cuMemHostRegister)
  range is mapped into the device at its host address, whatever the flags (CUDA Runtime API, "Unified Addressing";
  cudaHostRegisterDefault "mapped and portable"), so cuMemHostGetDevicePointer returns the host address itself and
  Python kernels reach the bytes there (:meth:`~simcuda._core.memory.memory_model.MemorySpace.kernel_view`).
* Managed memory is one copy: cuMemPrefetchAsync and cuMemAdvise are checked and recorded
  (:attr:`VirtualMemory.prefetches`, :attr:`VirtualMemory.advice`) and move nothing.
* Physical memory (cuMemCreate) is a shared memory file that cuMemMap maps into the reserved range in place, so
  data survives unmap and remap and two live mappings of one handle see the same bytes, as on the GPU. Where the
  platform has no such file, a mapping copies the bytes in and cuMemUnmap copies them back (two live mappings are
  then two copies) [I]. Access starts as none; cuMemSetAccess with READ or READWRITE for a device makes the mapping
  reachable by copies and kernels (a READ mapping is not write-protected) [I].
"""
from __future__ import annotations

import contextlib
import ctypes
import mmap
import os
import weakref
from typing import Any

from .. import process
from ..capture import capture_enqueue as capq
from ..capture import capture_rules as cap
from ..errors import CUresult, DriverError
from ..graphs import nodes as nd
from ..state import DriverState, entry
from .memory_model import KIND_MANAGED, KIND_VMM, Allocation, HostRecord
from .pointer_attrs import POINTER_READERS, PointerFacts

#: the minimum and recommended granularity of cuMemGetAllocationGranularity, bytes (2 MiB, as H100-class devices
#: report for pinned device memory) [I]
GRANULARITY = 2 << 20
#: CUmemLocationType values (simcuda._generated.driver_enums)
LOC_DEVICE, LOC_HOST, LOC_HOST_NUMA, LOC_HOST_NUMA_CURRENT = 1, 2, 3, 4
#: CUmemAccess_flags values
_ACCESS_FLAGS = (0, 1, 3)
#: CUmem_advise values (1..6) and CUpointer_attribute values (1..22)
_ADVICE = range(1, 7)
_POINTER_ATTRS = range(1, 23)
#: the pointer attributes whose value is a boolean, and those cuPointerGetAttributes documents
BOOL_ATTRS = frozenset({6, 8, 10, 13, 15, 21})
_MULTI_ATTRS = frozenset({1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 21})


class AllocProp:
    """A ``CUmemAllocationProp`` as the core keeps it: ``type`` (CUmemAllocationType), ``handle_types``
    (CUmemAllocationHandleType bits), ``loc_type``/``loc_id`` (its CUmemLocation), and ``allocFlags``'
    ``compression``, ``rdma`` (gpuDirectRDMACapable) and ``usage``."""

    __slots__ = ("type", "handle_types", "loc_type", "loc_id", "compression", "rdma", "usage")

    def __init__(self, type: int, handle_types: int, loc_type: int, loc_id: int, compression: int = 0,
                 rdma: int = 0, usage: int = 0) -> None:
        self.type, self.handle_types, self.loc_type, self.loc_id = int(type), int(handle_types), int(loc_type), \
            int(loc_id)
        self.compression, self.rdma, self.usage = int(compression), int(rdma), int(usage)

    def fields(self) -> tuple[int, ...]:
        """The values in field order: type, handle types, location type and id, compression, RDMA, usage."""
        return (self.type, self.handle_types, self.loc_type, self.loc_id, self.compression, self.rdma, self.usage)


class Physical:
    """Physical memory made by cuMemCreate: ``size`` bytes, its properties, the references to its handle (``refs``:
    cuMemCreate and each cuMemRetainAllocationHandle, less each cuMemRelease) and its live mappings; it is freed once
    both are gone.

    The bytes are a shared memory file (``fd``, :func:`simcuda._core.process.shared_memory`) that each mapping maps
    in place, so every mapping of one handle sees the same bytes, as on the GPU; where the platform has no such file
    (``fd`` None) they are a private buffer (``buf`` at ``addr``) copied into a mapping and back when it goes.
    """

    __slots__ = ("handle", "size", "prop", "refs", "mappings", "fd", "buf", "addr", "block_id", "_fin", "__weakref__")

    def __init__(self, size: int, prop: AllocProp) -> None:
        self.handle = 0
        self.size, self.prop = size, prop
        self.refs, self.mappings = 1, 0
        self.fd = process.shared_memory(size)
        self.buf: mmap.mmap | None = None
        self.addr = 0
        self._fin: weakref.finalize[Any, Any] | None = None
        if self.fd is not None:  # closed by _maybe_free, or when the driver's objects go (once either way)
            self._fin = weakref.finalize(self, _close_fd, self.fd)
        else:
            self.buf = mmap.mmap(-1, size)
            self.addr = ctypes.addressof(ctypes.c_char.from_buffer(self.buf))
        self.block_id = 0

    @property
    def live(self) -> bool:
        """True until the memory is freed."""
        return self.fd is not None or self.buf is not None


def _close_fd(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


class Reservation:
    """An address range of cuMemAddressReserve: ``start``, ``size`` bytes."""

    __slots__ = ("start", "size")

    def __init__(self, start: int, size: int) -> None:
        self.start, self.size = start, size


class Mapping:
    """One cuMemMap: ``phys`` mapped from byte ``offset`` at ``start`` for ``size`` bytes inside ``reservation``;
    ``access``: device ordinal -> CUmemAccess_flags."""

    __slots__ = ("phys", "offset", "reservation", "access")

    def __init__(self, phys: Physical, offset: int, reservation: Reservation) -> None:
        self.phys, self.offset, self.reservation = phys, offset, reservation
        self.access: dict[int, int] = {}


class VirtualMemory(DriverState):
    """Host-mapped memory, managed-memory hints, pointer attributes and virtual memory management.

    Entries: ``cuMemHostGetDevicePointer``, ``cuMemPrefetchAsync``, ``cuMemAdvise``, ``cuPointerGetAttribute(s)``,
    ``cuMemAddressReserve``/``Free``, ``cuMemCreate``/``Release``, ``cuMemMap``/``Unmap``, ``cuMemSetAccess``/
    ``GetAccess``, ``cuMemGetAllocationGranularity``, ``cuMemGetAllocationPropertiesFromHandle``,
    ``cuMemRetainAllocationHandle``.
    """

    def _vmm_state(self) -> tuple[dict[int, Reservation], list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        st = self.__dict__.get("_vmm")
        if st is None:
            st = self.__dict__["_vmm"] = ({}, [], [])
        return st

    @property
    def reservations(self) -> dict[int, Reservation]:
        """Live cuMemAddressReserve ranges, by start address."""
        return self._vmm_state()[0]

    @property
    def prefetches(self) -> list[tuple[Any, ...]]:
        """Each cuMemPrefetchAsync that ran (or was captured): ``(devPtr, count, location type, location id)``."""
        return self._vmm_state()[1]

    @property
    def advice(self) -> list[tuple[Any, ...]]:
        """Each cuMemAdvise accepted: ``(devPtr, count, advice, location type, location id)``."""
        return self._vmm_state()[2]

    # ------------------------------------------------------------------ host-mapped memory
    @entry
    def mem_host_get_device_pointer(self, p: int, flags: int, call: str = "cuMemHostGetDevicePointer") -> int:
        """cuMemHostGetDevicePointer / cudaHostGetDevicePointer: the device address of pinned or registered host
        memory, which is the host address itself (every device has CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM).

        Errors, in order: 201 no context; 1 INVALID_VALUE ``flags`` not 0, ``p`` not inside memory from
        cuMemHostAlloc/cuMemAllocHost/cuMemHostRegister, or a device that cannot map host memory
        (``DeviceSpec.host_mapped_memory``; the docstring defers that failure here, and INVALID_VALUE is the only
        fitting code in its Returns list) [I code].
        """
        ctx = self.threads.ctx_current()
        if flags != 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: Flags {flags} must be 0")
        rec = self.memory.host_lookup(int(p)) if p else None
        if rec is None:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: 0x{int(p or 0):x} is not inside host memory allocated with cuMemHostAlloc/"
                              "cuMemAllocHost or registered with cuMemHostRegister")
        if not ctx.device.spec.host_mapped_memory:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: device {ctx.device.ordinal} cannot map host memory "
                              "(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY is 0; DeviceSpec.host_mapped_memory) "
                              "[inferred code]")
        return int(p)

    # ------------------------------------------------------------------ managed memory hints
    def _managed_range(self, dptr: int, count: int, call: str) -> Allocation:
        a = self.memory.find(int(dptr))
        if a is None or a.kind != KIND_MANAGED:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: 0x{int(dptr):x} is not managed memory (cuMemAllocManaged); the range must "
                              "refer to managed memory" + ("" if a is not None else self.memory.missing(int(dptr))))
        if count <= 0 or int(dptr) + count > a.start + a.size:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: the range 0x{int(dptr):x}+{count} bytes is empty or runs past the end of its "
                              f"managed allocation (0x{a.start:x}, {a.size} bytes)")
        return a

    def _location(self, loc_type: int, loc_id: int, call: str, what: str = "location") -> None:
        if loc_type == LOC_DEVICE:
            d = self._device(int(loc_id)) if 0 <= int(loc_id) < len(self.devices) else None
            if d is None:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_DEVICE,
                                  f"{call}: {what} device {loc_id} does not exist (this driver has "
                                  f"{len(self.devices)} device(s))")
            if not d.spec.managed_memory:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_DEVICE,
                                  f"{call}: device {loc_id} has no concurrent managed access "
                                  "(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS is 0)")
        elif loc_type not in (LOC_HOST, LOC_HOST_NUMA, LOC_HOST_NUMA_CURRENT):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: {what} type {loc_type} is not DEVICE (1), HOST (2), HOST_NUMA (3) or "
                              "HOST_NUMA_CURRENT (4)")
        elif loc_type == LOC_HOST_NUMA and loc_id != 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: host NUMA node {loc_id} does not exist (the simulated host has node 0 only)")

    @entry
    def mem_prefetch_async(self, dptr: int, count: int, loc_type: int, loc_id: int, flags: int, h: int,
                           call: str = "cuMemPrefetchAsync") -> None:
        """cuMemPrefetchAsync (and cudaMemPrefetchAsync): stream work that moves nothing (managed memory is one
        copy); it is recorded in :attr:`prefetches` when it runs. During capture it becomes an EMPTY node (CUDA 13.5
        has no prefetch node type; P-50) [I].

        Errors, in order: the stream's preamble (400, 201...); 1 INVALID_VALUE ``flags`` not 0, a range that is not
        inside one managed allocation, an unknown location type, a host NUMA node other than 0; 101 INVALID_DEVICE a
        device location that does not exist or lacks concurrent managed access; then the stream's capture rules
        (spec 3.8).
        """
        s = self._stream(h)
        if flags != 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: flags {flags} must be 0")
        self._managed_range(dptr, int(count), call)
        self._location(int(loc_type), int(loc_id), call)
        rec = (int(dptr), int(count), int(loc_type), int(loc_id))

        def run() -> str:
            self.prefetches.append(rec)
            return ""
        node = capq.enqueue(self, s, capq.Op(capq.OPS["prefetch"], call, nd.NO_PARAMS, run))
        if node is not None:
            self.prefetches.append(rec)

    @entry
    def mem_advise(self, dptr: int, count: int, advice: int, loc_type: int, loc_id: int,
                   call: str = "cuMemAdvise") -> None:
        """cuMemAdvise (and cudaMemAdvise): the advice is checked and recorded in :attr:`advice`; it changes nothing
        else (managed memory is one copy).

        Errors, in order: 1 INVALID_VALUE an advice outside CUmem_advise, a range not inside one managed allocation;
        for SET/UNSET_PREFERRED_LOCATION and SET/UNSET_ACCESSED_BY the location is checked as cuMemPrefetchAsync
        checks it (1, 101); the READ_MOSTLY advice ignores it.
        """
        if int(advice) not in _ADVICE:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: advice {advice} is not a CUmem_advise")
        self._managed_range(dptr, int(count), call)
        if int(advice) > 2:
            self._location(int(loc_type), int(loc_id), call)
        self.advice.append((int(dptr), int(count), int(advice), int(loc_type), int(loc_id)))

    # ------------------------------------------------------------------ pointer attributes
    def _pointer_facts(self, ptr: int) -> tuple[Allocation | None, HostRecord | None]:
        a = self.memory.find(int(ptr))
        return a, (None if a is not None else self.memory.host_lookup(int(ptr)))

    def _pointer_value(self, attr: int, ptr: int, a: Allocation | None, rec: HostRecord | None, strict: bool) -> Any:
        """One attribute of ``ptr`` (see :meth:`pointer_get_attribute`); ``strict``: raise where the real call
        raises, else the NULL default. ``a`` or ``rec`` is what :meth:`_pointer_facts` found there (one at most)."""
        if a is None and rec is None:
            if strict:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"cuPointerGetAttribute: 0x{int(ptr):x} was not "
                                  "allocated, mapped or registered by CUDA" + self.memory.missing(ptr))
            return -2 if attr == 9 else (False if attr in BOOL_ATTRS else 0)
        read = POINTER_READERS.get(attr)
        if read is None:
            return -1  # 22 LOCALITY_DOMAIN_ORDINAL: no allocation is localized to a locality domain
        return read(PointerFacts(int(ptr), a, rec, strict, self.threads.current().current))

    @entry
    def pointer_get_attribute(self, attr: int, ptr: int) -> Any:
        """cuPointerGetAttribute: one ``CUpointer_attribute`` of ``ptr`` (an ``int`` or ``bool``; the faces give
        CONTEXT, DEVICE_POINTER, RANGE_START_ADDR and MEMPOOL_HANDLE their handle classes).

        Device, managed, graph (MAPPED while a launch holds it), pool, VMM (RANGE_* the reservation, MAPPING_* the
        mapping, CONTEXT NULL [I]), pinned and registered host memory (type HOST, DEVICE_POINTER the address itself)
        are known; BUFFER_ID is unique in the process and never reused; SYNC_MEMOPS is False; ACCESS_FLAGS is
        READWRITE (3) except for VMM memory (its flags for the current device); LOCALITY_DOMAIN_ORDINAL is -1.
        Errors: 1 INVALID_VALUE an unknown attribute, a pointer CUDA does not know, HOST_POINTER of device memory,
        DEVICE_POINTER of host memory a device cannot map; 201 DEVICE_POINTER without a current context; 801
        P2P_TOKENS (not simulated).
        """
        if int(attr) not in _POINTER_ATTRS:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuPointerGetAttribute: {attr} is not a CUpointer_attribute")
        a, rec = self._pointer_facts(int(ptr))
        return self._pointer_value(int(attr), int(ptr), a, rec, True)

    @entry
    def pointer_get_attributes(self, attrs: list[int], ptr: int) -> list[Any]:
        """cuPointerGetAttributes: the values of ``attrs`` for ``ptr`` as :meth:`pointer_get_attribute` gives them,
        except that a pointer CUDA does not know gives the NULL defaults (0, False; DEVICE_ORDINAL -2 [I]) and a
        value the single call refuses gives 0, with CUDA_SUCCESS (cuPointerGetAttributes docstring).

        Errors: 1 INVALID_VALUE an attribute the call does not list (P2P_TOKENS and the MAPPING_*, ACCESS_FLAGS,
        MEMORY_BLOCK_ID, LOCALITY_DOMAIN_ORDINAL ones are accepted too [I]; only values outside CUpointer_attribute
        fail).
        """
        for x in attrs:
            if int(x) not in _POINTER_ATTRS:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"cuPointerGetAttributes: {x} is not a CUpointer_attribute")
        a, rec = self._pointer_facts(int(ptr))
        out = []
        for x in attrs:
            try:
                out.append(self._pointer_value(int(x), int(ptr), a, rec, False))
            except DriverError:
                out.append(0)
        return out

    # ------------------------------------------------------------------ virtual memory management
    def _vmm_supported(self, call: str, ordinal: int | None = None) -> None:
        """801 when the device (``ordinal``, else every device) has no virtual memory management."""
        devs = self.devices if ordinal is None else [self.devices[ordinal]]
        if not all(d.spec.virtual_memory for d in devs):
            raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                              f"{call}: virtual memory management is not supported "
                              "(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED is 0; "
                              "DeviceSpec.virtual_memory) [inferred code: 801 is in its Returns list]")

    def _check_prop(self, prop: AllocProp | None, call: str) -> int:
        """The checks of a CUmemAllocationProp (cuMemCreate, cuMemGetAllocationGranularity); returns the device."""
        if prop is None:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: prop is NULL")
        if prop.type != 1:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: prop.type {prop.type} is not CU_MEM_ALLOCATION_TYPE_PINNED (1) (the only type "
                              "simulated)")
        if prop.loc_type != LOC_DEVICE:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: prop.location.type {prop.loc_type} is not CU_MEM_LOCATION_TYPE_DEVICE (1) "
                              "(host and NUMA locations are not simulated) [inferred code]")
        if not 0 <= prop.loc_id < len(self.devices):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_DEVICE,
                              f"{call}: prop.location.id {prop.loc_id} is not a device (this driver has "
                              f"{len(self.devices)} device(s))")
        if prop.handle_types & ~0xF:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: prop.requestedHandleTypes 0x{prop.handle_types:x} has bits outside "
                              "CUmemAllocationHandleType")
        return prop.loc_id

    def _phys(self, h: int, call: str) -> Physical:
        p = self.handles.get(h) if h else None
        if not isinstance(p, Physical) or p.refs <= 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: 0x{int(h or 0):x} is not a live memory handle from cuMemCreate"
                              + ("" if not h else self.handles.foreign(h)))
        return p

    @entry
    def mem_get_allocation_granularity(self, prop: AllocProp | None, option: int) -> int:
        """cuMemGetAllocationGranularity: 2 MiB for both CU_MEM_ALLOC_GRANULARITY_MINIMUM (0) and RECOMMENDED (1)
        [I: the value H100-class devices report for pinned device memory].

        Errors: 1 INVALID_VALUE a NULL or unsupported prop, an unknown option; 101 a location that is no device;
        801 without virtual memory management.
        """
        dev = self._check_prop(prop, "cuMemGetAllocationGranularity")
        if int(option) not in (0, 1):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuMemGetAllocationGranularity: option {option} is not a "
                              "CUmemAllocationGranularity_flags")
        self._vmm_supported("cuMemGetAllocationGranularity", dev)
        return GRANULARITY

    @entry
    def mem_address_reserve(self, size: int, alignment: int, addr: int, flags: int) -> int:
        """cuMemAddressReserve: a range of ``size`` bytes of the driver's address space, aligned to ``alignment``
        (0: the granularity); ``addr`` is a hint, not honoured [I]. The range holds no memory until cuMemMap.

        Errors: 1 INVALID_VALUE ``flags`` not 0, ``size`` 0 or not a multiple of the host page size, ``alignment``
        neither 0 nor a power of two, ``addr`` not a multiple of the host page size; 801 without virtual memory
        management; 2 OUT_OF_MEMORY when the process cannot get the address space.
        """
        call = "cuMemAddressReserve"
        if flags != 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: flags {flags} must be 0")
        if size <= 0 or size % process.PAGE:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: size {size} must be a positive multiple of the host page size ({process.PAGE})")
        if alignment < 0 or alignment & (alignment - 1):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: alignment {alignment} must be 0 or a power of two")
        if addr % process.PAGE:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: addr 0x{addr:x} must be a multiple of the host page size ({process.PAGE})")
        self._vmm_supported(call)
        start = self.memory.reserve_range(int(size), int(alignment) or GRANULARITY)
        self.reservations[start] = Reservation(start, int(size))
        return start

    @entry
    def mem_address_free(self, ptr: int, size: int) -> None:
        """cuMemAddressFree: free a whole reservation (``ptr`` and ``size`` as cuMemAddressReserve gave and took
        them). Its addresses are not handed out again.

        Errors: 1 INVALID_VALUE not a reservation start, another size, a range still mapped [I]; 900 during a
        restricting capture (P-51) [I].
        """
        call = "cuMemAddressFree"
        r = self.reservations.get(int(ptr))
        if r is None:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: 0x{int(ptr):x} is not the start of a range from cuMemAddressReserve")
        if r.size != int(size):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: size {size} is not the reserved size ({r.size} bytes)")
        if self.memory.mappings_in(r.start, r.size):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: the range 0x{r.start:x} still has mappings; cuMemUnmap them first "
                              "[inferred code]")
        cap.check_unsafe(self, self.threads.current(), call)
        del self.reservations[int(ptr)]

    @entry
    def mem_create(self, size: int, prop: AllocProp | None, flags: int) -> int:
        """cuMemCreate: ``size`` bytes of physical memory on ``prop``'s device; returns its
        ``CUmemGenericAllocationHandle`` (counted in cuMemGetInfo and the host budget until freed).

        Errors, in order: 1 INVALID_VALUE NULL prop, a type other than PINNED, a location other than a device [I],
        unknown handle-type bits, ``flags`` not 0, ``size`` 0 or not a multiple of the granularity; 101 a location id
        that is no device; 801 without virtual memory management [I code]; 900 during a restricting capture (P-51)
        [I]; 2 OUT_OF_MEMORY past the device's memory or the host budget.
        """
        call = "cuMemCreate"
        dev = self._check_prop(prop, call)
        assert prop is not None
        if flags != 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: flags {flags} must be 0")
        if size <= 0 or size % GRANULARITY:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: size {size} must be a positive multiple of the granularity ({GRANULARITY} "
                              "bytes, cuMemGetAllocationGranularity)")
        self._vmm_supported(call, dev)
        cap.check_unsafe(self, self.threads.current(), call)
        spec = self.devices[dev].spec
        if self.memory.in_use + size > spec.total_mem:
            raise DriverError(CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                              f"{call}: {size} bytes would exceed the simulated device's {spec.total_mem} bytes "
                              f"({self.memory.in_use} in use)")
        self.memory.charge_physical(int(size))
        try:
            p = Physical(int(size), AllocProp(*prop.fields()))
        except (OSError, ValueError, OverflowError) as e:
            self.memory.refund_physical(int(size))
            raise DriverError(CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                              f"{call}: the process cannot map {size} bytes of host memory ({e})") from None
        p.block_id = next(self.memory._ids)
        p.handle = self.handles.add(p)
        return p.handle

    def _maybe_free(self, p: Physical) -> None:
        if p.refs <= 0 and p.mappings <= 0 and p.live:
            self.memory.refund_physical(p.size)
            if p._fin is not None:
                p.fd = None
                p._fin()
            buf, p.buf, p.addr = p.buf, None, 0
            if buf is not None:
                with contextlib.suppress(BufferError):  # still exported: it goes with the last view
                    buf.close()

    @entry
    def mem_release(self, handle: int) -> None:
        """cuMemRelease: drop one reference to the handle; the memory is freed once no reference and no mapping is
        left (a mapping keeps it alive after its handle is released).

        Errors: 1 INVALID_VALUE not a live handle (undefined behaviour in the real driver, which lists
        INVALID_VALUE); 900 during a restricting capture (P-51) [I].
        """
        p = self._phys(int(handle), "cuMemRelease")
        cap.check_unsafe(self, self.threads.current(), "cuMemRelease")
        p.refs -= 1
        self._maybe_free(p)

    @entry
    def mem_map(self, ptr: int, size: int, offset: int, handle: int, flags: int) -> None:
        """cuMemMap: map ``size`` bytes of the handle's memory from ``offset`` at ``ptr``, inside a reservation; the
        mapping is not accessible until cuMemSetAccess. The range shows the memory's bytes in place (every
        mapping of the handle shares them; see the module docstring).

        Errors, in order: 1 INVALID_VALUE a bad handle, ``flags`` not 0, ``ptr``/``size``/``offset`` not multiples of
        the granularity, ``size`` 0, ``offset + size`` past the memory, a range not inside one reservation, or one
        that is already mapped in part; 900 during a restricting capture (P-51) [I].
        """
        call = "cuMemMap"
        p = self._phys(int(handle), call)
        ptr, size, offset = int(ptr), int(size), int(offset)
        if flags != 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: flags {flags} must be 0")
        if size <= 0 or ptr % GRANULARITY or size % GRANULARITY or offset % GRANULARITY:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: ptr 0x{ptr:x}, size {size} and offset {offset} must be multiples of the "
                              f"granularity ({GRANULARITY} bytes), size positive")
        if offset + size > p.size:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: offset {offset} + size {size} runs past the memory's {p.size} bytes")
        r = next((r for r in self.reservations.values() if r.start <= ptr and ptr + size <= r.start + r.size), None)
        if r is None:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: 0x{ptr:x}+{size} bytes is not inside one range from cuMemAddressReserve")
        if self.memory.mappings_in(ptr, size):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: 0x{ptr:x}+{size} bytes is already mapped in part (cuMemMap maps only "
                              "reservations that are not mapped)")
        cap.check_unsafe(self, self.threads.current(), call)
        if p.fd is not None:
            if not process.map_shared(ptr, size, p.fd, offset):
                raise DriverError(CUresult.CUDA_ERROR_OUT_OF_MEMORY,
                                  f"{call}: the host could not map {size} bytes at 0x{ptr:x} (mmap failed)")
        else:
            ctypes.memmove(ptr, p.addr + offset, size)
        p.mappings += 1
        self.memory.insert_mapping(ptr, size, Mapping(p, offset, r))

    def _whole_mappings(self, ptr: int, size: int, call: str) -> list[Allocation]:
        """The mappings that make up exactly ``[ptr, ptr + size)``, or INVALID_VALUE."""
        ms = self.memory.mappings_in(int(ptr), int(size))
        pos = int(ptr)
        for a in ms:
            if a.start != pos:
                break
            pos += a.size
        if not ms or pos != int(ptr) + int(size) or size <= 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: 0x{int(ptr):x}+{size} bytes is not a range made of whole cuMemMap mappings "
                              "(a sub-range of a mapping, or an unmapped hole)")
        return ms

    @entry
    def mem_unmap(self, ptr: int, size: int) -> None:
        """cuMemUnmap: unmap the mappings that make up ``[ptr, ptr + size)``: their bytes go back to their memory,
        the range becomes a reservation again (no access), and memory whose handle was released is freed.

        Errors: 1 INVALID_VALUE a range that is not made of whole mappings; 900 during a restricting capture (P-51)
        [I].
        """
        ms = self._whole_mappings(ptr, size, "cuMemUnmap")
        cap.check_unsafe(self, self.threads.current(), "cuMemUnmap")
        self.scheduler.drain()  # work already enqueued that uses the range runs first [I]
        for a in ms:
            m: Mapping = a.vmm
            if m.phys.fd is not None:
                process.unmap_shared(a.start, a.size)
            elif m.phys.buf is not None:
                ctypes.memmove(m.phys.addr + m.offset, a.start, a.size)
            self.memory.remove_mapping(a)
            m.phys.mappings -= 1
            self._maybe_free(m.phys)

    @entry
    def mem_set_access(self, ptr: int, size: int, descs: list[tuple[int, int, int]]) -> None:
        """cuMemSetAccess: for each ``(location type, id, CUmemAccess_flags)`` set that device's access to the
        mappings of ``[ptr, ptr + size)``; a mapping is reachable (copies, kernels) while some device has READ or
        READWRITE.

        Errors: 1 INVALID_VALUE a range not made of whole mappings, a location type other than DEVICE [I], flags
        outside NONE/READ/READWRITE; 101 INVALID_DEVICE a device that does not exist.
        """
        call = "cuMemSetAccess"
        ms = self._whole_mappings(ptr, size, call)
        for t, did, fl in descs:
            if int(t) != LOC_DEVICE:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{call}: location type {t} is not CU_MEM_LOCATION_TYPE_DEVICE (1) (host access to "
                                  "device VMM memory is not simulated) [inferred code]")
            if not 0 <= int(did) < len(self.devices):
                raise DriverError(CUresult.CUDA_ERROR_INVALID_DEVICE,
                                  f"{call}: device {did} does not exist (this driver has {len(self.devices)} "
                                  "device(s))")
            if int(fl) not in _ACCESS_FLAGS:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{call}: flags {fl} are not NONE (0), READ (1) or READWRITE (3)")
        for a in ms:
            m: Mapping = a.vmm
            for _t, did, fl in descs:
                m.access[int(did)] = int(fl)
            a.mapped = any(m.access.values())

    @entry
    def mem_get_access(self, loc_type: int, loc_id: int, ptr: int) -> int:
        """cuMemGetAccess: the CUmemAccess_flags the location (a device) has on the mapping holding ``ptr`` (0 until
        cuMemSetAccess).

        Errors: 1 INVALID_VALUE ``ptr`` not in a mapping, a location type other than DEVICE; 101 a device that does
        not exist.
        """
        call = "cuMemGetAccess"
        if int(loc_type) != LOC_DEVICE:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: location type {loc_type} is not CU_MEM_LOCATION_TYPE_DEVICE (1)")
        if not 0 <= int(loc_id) < len(self.devices):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_DEVICE, f"{call}: device {loc_id} does not exist")
        a = self.memory.find(int(ptr))
        if a is None or a.kind != KIND_VMM:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: 0x{int(ptr):x} is not inside a cuMemMap mapping")
        return int(a.vmm.access.get(int(loc_id), 0))

    @entry
    def mem_get_allocation_properties_from_handle(self, handle: int) -> AllocProp:
        """cuMemGetAllocationPropertiesFromHandle: the properties the handle's memory was made with.

        Errors: 1 INVALID_VALUE not a live handle."""
        p = self._phys(int(handle), "cuMemGetAllocationPropertiesFromHandle")
        return AllocProp(*p.prop.fields())

    @entry
    def mem_retain_allocation_handle(self, addr: int) -> int:
        """cuMemRetainAllocationHandle: the handle of the memory mapped at ``addr`` (any address of a mapping), the
        same value cuMemMap was given, with one more reference (to be released with cuMemRelease).

        Errors: 1 INVALID_VALUE ``addr`` not in a mapping."""
        a = self.memory.find(int(addr))
        if a is None or a.kind != KIND_VMM:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuMemRetainAllocationHandle: 0x{int(addr):x} is not inside a cuMemMap mapping")
        p: Physical = a.vmm.phys
        if p.refs <= 0:  # its handle was released: the mapping gives it back to life, under the same value
            self.handles.put(p.handle, p)
        p.refs += 1
        return p.handle


__all__ = ["GRANULARITY", "AllocProp", "Mapping", "Physical", "Reservation", "VirtualMemory"]
