"""The entry table's rows of memory: allocations, copies, memsets, stream memory operations, external semaphores, CUDA
arrays, host-mapped and managed memory, pointer attributes, virtual memory management, batched copies.

Each tuple is one run of :data:`simcuda._core.api.ROWS`, which concatenates the runs of every
``*_rows`` module in the tuple face's order; the forms of a row are described in :mod:`simcuda._core.rows`.
"""
from __future__ import annotations

from ..rows import Api, call, field, hand, kind, lit, record
from ..streams.stream_entries import Streams
from .batch_entries import BatchCopies
from .memory_entries import Memory
from .memory_model import CopyParams, MemsetParams
from .vmm_entries import VirtualMemory

#: allocations, copies and memsets
MEMORY: tuple[Api, ...] = (
    Api("cuMemAlloc", call(Memory.mem_alloc, "bytesize", out="dptr"),
        """Allocate ``bytesize`` bytes of simulated device memory; returns a ``CUdeviceptr``.

Errors: INVALID_CONTEXT; INVALID_VALUE size 0; OUT_OF_MEMORY; 900 during a restricting capture
(potentially unsafe call, invalidating, spec 5.2)."""),
    Api("cuMemAllocPitch", call(Memory.mem_alloc_pitch, "WidthInBytes", "Height", "ElementSizeBytes",
                                out=("dptr", "pPitch")),
        """Pitched allocation: ``(CUdeviceptr, pitch)`` with rows padded to 512 bytes. Errors as ``cuMemAlloc``
plus INVALID_VALUE for an element size other than 4, 8, 16."""),
    Api("cuMemAllocManaged", call(Memory.mem_alloc, "bytesize", lit("cuMemAllocManaged"), managed=True, flags="flags",
                                  out="dptr"),
        """Managed allocation (simulated as device memory). Errors as ``cuMemAlloc``, plus INVALID_VALUE for
``flags`` other than ``CU_MEM_ATTACH_GLOBAL`` (1) or ``CU_MEM_ATTACH_HOST`` (2)."""),
    Api("cuMemFree", call(Memory.mem_free, "dptr"),
        """Free device memory (``cuMemFree(0)`` succeeds). Errors: INVALID_VALUE not an allocation start or a
graph allocation; 900 during a restricting capture (spec 5.2; field case C17)."""),
    Api("cuMemAllocHost", call(Memory.mem_alloc_host, "bytesize", out="pp"),
        """Allocate real host memory (a ctypes buffer kept by the driver); returns its address (``int``).

Errors: INVALID_CONTEXT; INVALID_VALUE size 0; 900 during a restricting capture (spec 5.2)."""),
    Api("cuMemHostAlloc", call(Memory.mem_alloc_host, "bytesize", lit("cuMemHostAlloc"), "Flags", out="pp"),
        """As ``cuMemAllocHost``; ``CU_MEMHOSTALLOC_*`` flags are checked (INVALID_VALUE for other bits) and
otherwise have no effect."""),
    Api("cuMemFreeHost", call(Memory.mem_free_host, "p"),
        """Free memory from ``cuMemAllocHost``/``cuMemHostAlloc`` (``p``: int address or buffer).
Errors: INVALID_VALUE unknown address; 900 during a restricting capture (spec 5.2)."""),
    Api("cuMemHostRegister", hand(call(Memory.mem_host_register, "p", "bytesize", "Flags")),
        """Page-lock host memory (bookkeeping only). Errors: INVALID_VALUE NULL pointer, size 0, flag bits outside
``CU_MEMHOSTREGISTER_*``; HOST_MEMORY_ALREADY_REGISTERED (712); 900 (spec 5.2)."""),
    Api("cuMemHostUnregister", hand(call(Memory.mem_host_register, "p", 0, 0, unregister=True)),
        """Undo ``cuMemHostRegister``. Errors: HOST_MEMORY_NOT_REGISTERED (713); 900 (spec 5.2)."""),
    Api("cuMemGetInfo", call(Memory.mem_get_info, out=("free", "total")),
        """``(free, total)`` bytes of the current context's device. Errors: INVALID_CONTEXT."""),
    Api("cuMemGetAddressRange", call(Memory.mem_get_address_range, "dptr", out=("pbase", "psize")),
        """``(CUdeviceptr base, size)`` of the allocation holding ``dptr``. Errors: INVALID_VALUE."""),
    Api("cuMemcpy", call(Memory.memcpy_unified, "dst", "src", "ByteCount", None, lit("cuMemcpy")),
        """Synchronous copy between unified addresses (device if inside a simulated allocation, else host).

Legacy mode: runs on the legacy stream (906 and invalidation under a blocking capture; otherwise a
potentially unsafe call, spec 6, 5.2). Per-thread mode: spec 6.1. Errors: INVALID_VALUE bad ranges."""),
    Api("cuMemcpyAsync", call(Memory.memcpy_unified, "dst", "src", "ByteCount", "hStream", lit("cuMemcpyAsync")),
        """Asynchronous unified copy: a MEMCPY node during capture (spec 3.8); the source is read when the
work runs (spec 3.10).

Mirrors ``cuda.bindings.driver.cuMemcpyAsync(dst, src, ByteCount, hStream)``; returns ``(CUresult,)``.

Fidelity: each address is resolved by the core when the call is made (inside a live simulated
allocation: device, else host), and that decides how the bytes move, at once or at replay. A
captured node records ``CU_MEMORYTYPE_UNIFIED`` for both sides, as ``cuGraphMemcpyNodeGetParams``
shows (spec 16, 9) [O: cuda-python issue 2649]; the explicit HtoD/DtoH/DtoD copies keep their typed
sides.

Errors: INVALID_VALUE bad ranges; the stream's capture rules (spec 3.8)."""),
    Api("cuMemcpyHtoD",
        hand(call(Memory.memcpy, record(CopyParams, lit("host"), "srcHost", lit("device"), "dstDevice", "ByteCount"),
                  None, lit("cuMemcpyHtoD"))),
        """Synchronous host-to-device copy (``srcHost``: int address, ctypes object or buffer such as numpy/bytes).

Errors: INVALID_VALUE bad range or short host buffer; legacy-stream/unsafe-call rules (spec 6, 5.2)."""),
    Api("cuMemcpyHtoDAsync",
        hand(call(Memory.memcpy, record(CopyParams, lit("host"), "srcHost", lit("device"), "dstDevice", "ByteCount"),
                  "hStream", lit("cuMemcpyHtoDAsync"))),
        """Asynchronous host-to-device copy: a MEMCPY node during capture that reads the host buffer when the
graph runs, not now (spec 3.8, 3.10). Errors: INVALID_VALUE bad range; stream capture rules."""),
    Api("cuMemcpyDtoH",
        hand(call(Memory.memcpy, record(CopyParams, lit("device"), "srcDevice", lit("host"), "dstHost", "ByteCount"),
                  None, lit("cuMemcpyDtoH"))),
        """Synchronous device-to-host copy into a writable buffer or an int address. Errors as ``cuMemcpyHtoD``."""),
    Api("cuMemcpyDtoHAsync",
        hand(call(Memory.memcpy, record(CopyParams, lit("device"), "srcDevice", lit("host"), "dstHost", "ByteCount"),
                  "hStream", lit("cuMemcpyDtoHAsync"))),
        """Asynchronous device-to-host copy (captured as a MEMCPY node that writes the host buffer at replay)."""),
    Api("cuMemcpyDtoD",
        call(Memory.memcpy, record(CopyParams, lit("device"), "srcDevice", lit("device"), "dstDevice", "ByteCount"),
             None, lit("cuMemcpyDtoD")),
        """Synchronous device-to-device copy. Errors as ``cuMemcpyHtoD``."""),
    Api("cuMemcpyDtoDAsync",
        call(Memory.memcpy, record(CopyParams, lit("device"), "srcDevice", lit("device"), "dstDevice", "ByteCount"),
             "hStream", lit("cuMemcpyDtoDAsync")),
        """Asynchronous device-to-device copy (a MEMCPY node during capture)."""),
    Api("cuMemcpy2D", call(Memory.memcpy, "pCopy", None, lit("cuMemcpy2D")),
        """Synchronous 2D copy from a ``CUDA_MEMCPY2D`` (host, device or unified sides; arrays are NOT_SUPPORTED).

Errors: INVALID_VALUE NULL struct, bad memory type, width above a pitch, bad ranges; sync-copy
capture rules (spec 6)."""),
    Api("cuMemcpy2DUnaligned", call(Memory.memcpy, "pCopy", None, lit("cuMemcpy2DUnaligned")),
        """As ``cuMemcpy2D`` (no alignment rules are simulated)."""),
    Api("cuMemcpy2DAsync", call(Memory.memcpy, "pCopy", "hStream", lit("cuMemcpy2DAsync")),
        """Asynchronous 2D copy (a MEMCPY node during capture). Errors as ``cuMemcpy2D`` plus stream rules."""),
    Api("cuMemcpy3D", call(Memory.memcpy, "pCopy", None, lit("cuMemcpy3D")),
        """Synchronous 3D copy from a ``CUDA_MEMCPY3D`` (``srcHeight``/``dstHeight`` rows per slice)."""),
    Api("cuMemcpy3DAsync", call(Memory.memcpy, "pCopy", "hStream", lit("cuMemcpy3DAsync")),
        """Asynchronous 3D copy (a MEMCPY node during capture)."""),
    Api("cuMemsetD8", call(Memory.memset, record(MemsetParams, "dstDevice", "uc", 1, "N"), None, lit("cuMemsetD8")),
        """Set ``N`` bytes to ``uc`` (synchronous: legacy-stream/unsafe-call rules, spec 6). Errors:
        INVALID_VALUE range."""),
    Api("cuMemsetD16", call(Memory.memset, record(MemsetParams, "dstDevice", "us", 2, "N"), None, lit("cuMemsetD16")),
        """Set ``N`` 16-bit values (``dstDevice`` 2-byte aligned). Errors: INVALID_VALUE range/alignment."""),
    Api("cuMemsetD32", call(Memory.memset, record(MemsetParams, "dstDevice", "ui", 4, "N"), None, lit("cuMemsetD32")),
        """Set ``N`` 32-bit values (``dstDevice`` 4-byte aligned). Errors: INVALID_VALUE range/alignment."""),
    Api("cuMemsetD8Async", call(Memory.memset, record(MemsetParams, "dstDevice", "uc", 1, "N"), "hStream",
                                lit("cuMemsetD8Async")),
        """Asynchronous ``cuMemsetD8``: a MEMSET node during capture (spec 3.8)."""),
    Api("cuMemsetD16Async", call(Memory.memset, record(MemsetParams, "dstDevice", "us", 2, "N"), "hStream",
                                 lit("cuMemsetD16Async")),
        """Asynchronous ``cuMemsetD16``: a MEMSET node during capture."""),
    Api("cuMemsetD32Async", call(Memory.memset, record(MemsetParams, "dstDevice", "ui", 4, "N"), "hStream",
                                 lit("cuMemsetD32Async")),
        """Asynchronous ``cuMemsetD32``: a MEMSET node during capture."""),
    Api("cuMemsetD2D8", call(Memory.memset, record(MemsetParams, "dstDevice", "uc", 1, "Width", "Height", "dstPitch"),
                             None, lit("cuMemsetD2D8")),
        """2D byte memset: ``Height`` rows of ``Width`` bytes, rows ``dstPitch`` bytes apart."""),
    Api("cuMemsetD2D16", call(Memory.memset, record(MemsetParams, "dstDevice", "us", 2, "Width", "Height", "dstPitch"),
                              None, lit("cuMemsetD2D16")),
        """2D 16-bit memset (``Width`` in elements, ``dstPitch`` in bytes)."""),
    Api("cuMemsetD2D32", call(Memory.memset, record(MemsetParams, "dstDevice", "ui", 4, "Width", "Height", "dstPitch"),
                              None, lit("cuMemsetD2D32")),
        """2D 32-bit memset (``Width`` in elements, ``dstPitch`` in bytes)."""),
    Api("cuMemsetD2D8Async",
        call(Memory.memset, record(MemsetParams, "dstDevice", "uc", 1, "Width", "Height", "dstPitch"), "hStream",
             lit("cuMemsetD2D8Async")),
        """Asynchronous ``cuMemsetD2D8`` (a MEMSET node during capture)."""),
    Api("cuMemsetD2D16Async",
        call(Memory.memset, record(MemsetParams, "dstDevice", "us", 2, "Width", "Height", "dstPitch"), "hStream",
             lit("cuMemsetD2D16Async")),
        """Asynchronous ``cuMemsetD2D16`` (a MEMSET node during capture)."""),
    Api("cuMemsetD2D32Async",
        call(Memory.memset, record(MemsetParams, "dstDevice", "ui", 4, "Width", "Height", "dstPitch"), "hStream",
             lit("cuMemsetD2D32Async")),
        """Asynchronous ``cuMemsetD2D32`` (a MEMSET node during capture)."""),
)

#: stream memory operations and external semaphores
MEMOPS: tuple[Api, ...] = (
    Api("cuStreamWriteValue32",
        hand(call(Streams.stream_batch_mem_op, "stream", [(2, "addr", "value", "flags")], 0,
                  lit("cuStreamWriteValue32"))),
        """Write a 32-bit value to device memory in stream order (a BATCH_MEM_OP node during capture, spec 3.8 [I]).

Args: ``addr`` a ``CUdeviceptr`` (4-byte aligned); ``value`` (``cuuint32_t`` or int); ``flags``
``CUstreamWriteValue_flags``. Errors: INVALID_VALUE bad address, alignment or flags; stream capture rules."""),
    Api("cuStreamWriteValue64",
        hand(call(Streams.stream_batch_mem_op, "stream", [(5, "addr", "value", "flags")], 0,
                  lit("cuStreamWriteValue64"))),
        """As ``cuStreamWriteValue32`` with a 64-bit value (8-byte aligned address)."""),
    Api("cuStreamWaitValue32", hand(call(Streams.stream_batch_mem_op, "stream", [(1, "addr", "value", "flags")], 0,
                                         lit("cuStreamWaitValue32"))),
        """Wait in stream order until ``*addr`` meets a condition (``CUstreamWaitValue_flags``: GEQ cyclic, EQ,
AND, NOR, plus FLUSH). A BATCH_MEM_OP node during capture (spec 3.8 [I]).

Fidelity: the simulator never blocks: the condition is evaluated when the work runs and the launch
log says whether it held. Errors: INVALID_VALUE bad address, alignment or flags; NOT_SUPPORTED on a CIG
stream (spec 8.3); stream capture rules."""),
    Api("cuStreamWaitValue64", hand(call(Streams.stream_batch_mem_op, "stream", [(4, "addr", "value", "flags")], 0,
                                         lit("cuStreamWaitValue64"))),
        """As ``cuStreamWaitValue32`` with a 64-bit value."""),
    Api("cuStreamBatchMemOp", hand(Streams.stream_batch_mem_op),
        """Enqueue ``count`` memory operations (``CUstreamBatchMemOpParams``, read by ``operation``): a
BATCH_MEM_OP node during capture (spec 3.8 [D]); otherwise writes store and waits are evaluated when
the work runs. ``count`` above the list raises ``RuntimeError: List is too small`` as the wrapper does.

Errors: INVALID_VALUE count of 256 or more, unknown operation, bad address/alignment/value, flags != 0;
NOT_SUPPORTED on a CIG stream (spec 8.3); stream capture rules.""", decoder=kind("stream_batch_mem_op")),
    Api("cuSignalExternalSemaphoresAsync", hand(Streams.stream_ext_semaphores),
        """Signal external semaphores in stream order: an EXT_SEMAS_SIGNAL node during capture (spec 3.8);
otherwise a no-op noted in the launch log (external semaphores are not simulated; handles are not
checked beyond NULL). Errors: INVALID_HANDLE a NULL handle or none; stream capture rules.""",
        decoder=kind("ext_semaphores_async", False)),
    Api("cuWaitExternalSemaphoresAsync", hand(Streams.stream_ext_semaphores),
        """Wait on external semaphores in stream order: an EXT_SEMAS_WAIT node during capture (spec 3.8);
otherwise a no-op noted in the launch log. Errors as ``cuSignalExternalSemaphoresAsync``.""",
        decoder=kind("ext_semaphores_async", True)),
)

#: CUDA arrays
ARRAYS: tuple[Api, ...] = (
    Api("cuArrayCreate",
        hand(call(Memory.array_create, field("pAllocateArray", "Width"), field("pAllocateArray", "Height"),
                  field("pAllocateArray", "Format"), field("pAllocateArray", "NumChannels"), out="pHandle")),
        """Create a CUDA array from a ``CUDA_ARRAY_DESCRIPTOR`` (bookkeeping only; contents not simulated).

Errors: INVALID_VALUE NULL descriptor, zero width, bad channel count; INVALID_CONTEXT; 900 during a
restricting capture (spec 5.2) [H; I]."""),
    Api("cuArrayDestroy", call(Memory.array_destroy, "hArray"),
        """Destroy a CUDA array. Errors: INVALID_HANDLE; 900 during a restricting capture (spec 5.2) [H; I]."""),
)

#: host-mapped and managed memory, pointer attributes, virtual memory management
MAPPED_AND_VMM: tuple[Api, ...] = (
    # -- host-mapped and managed memory, pointer attributes, virtual memory management (topic: vmm) ----------
    Api("cuMemHostGetDevicePointer", call(VirtualMemory.mem_host_get_device_pointer, "p", "Flags", out="pdptr"),
        """The device pointer of pinned or registered host memory (``p``: an int address, ctypes object or buffer
inside memory from ``cuMemHostAlloc``/``cuMemAllocHost``/``cuMemHostRegister``): under unified addressing the
host address itself, which kernels may use (every simulated device has
``CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM``).

Errors: INVALID_CONTEXT; INVALID_VALUE ``Flags`` not 0, ``p`` not such memory, or a device that cannot map host
memory (``DeviceSpec.host_mapped_memory``; the failure cuMemHostAlloc defers to this call) [I code]."""),
    Api("cuMemPrefetchAsync", hand(VirtualMemory.mem_prefetch_async),
        """Prefetch managed memory to ``location`` (a ``CUmemLocation``: DEVICE with an ordinal, HOST, HOST_NUMA
node 0, HOST_NUMA_CURRENT) in stream order. Nothing moves (managed memory is one copy here); the prefetch is
recorded (``Driver.prefetches``). During capture it becomes an EMPTY node: CUDA 13.5's ``CUgraphNodeType`` has no
prefetch type (docs/spec-proposals.md P-50) [I].

Errors: the stream's (INVALID_HANDLE, INVALID_CONTEXT...); INVALID_VALUE ``flags`` not 0, a range not inside one
managed allocation, a bad location type; INVALID_DEVICE a device location that does not exist or has no
concurrent managed access; the capture rules of stream work (spec 3.8).""", decoder=kind("mem_prefetch_async")),
    Api("cuMemAdvise", hand(VirtualMemory.mem_advise),
        """Advise about a managed range (``CUmem_advise``; ``location`` a ``CUmemLocation``, read by the
PREFERRED_LOCATION and ACCESSED_BY advice). Checked and recorded (``Driver.advice``); nothing else changes.

Errors: INVALID_VALUE an unknown advice, a range not inside one managed allocation, a bad location type;
INVALID_DEVICE a device location that does not exist.""", decoder=kind("mem_advise")),
    Api("cuPointerGetAttribute", hand(VirtualMemory.pointer_get_attribute),
        """One ``CUpointer_attribute`` of an address: device, managed, stream-ordered (MEMPOOL_HANDLE its pool),
graph, VMM (RANGE_* the reservation, MAPPING_* the mapping) and pinned, mapped or registered host memory (type
HOST; DEVICE_POINTER the same address). CONTEXT, DEVICE_POINTER, RANGE_START_ADDR and MEMPOOL_HANDLE come back
as ``CUcontext``, ``CUdeviceptr`` and ``CUmemoryPool``; the boolean attributes as ``bool``; the rest as ``int``.

Errors: INVALID_VALUE an address CUDA does not know, HOST_POINTER of device memory; INVALID_CONTEXT
DEVICE_POINTER without a current context; NOT_SUPPORTED P2P_TOKENS (not simulated).""",
        decoder=kind("pointer_get_attribute")),
    Api("cuPointerGetAttributes", hand(VirtualMemory.pointer_get_attributes),
        """Several pointer attributes at once (``numAttributes`` of ``attributes``): as ``cuPointerGetAttribute``,
except that an address CUDA does not know gives the NULL defaults (``None``-like 0, ``False``; DEVICE_ORDINAL -2
[I]) with ``CUDA_SUCCESS``, and a value the single call refuses gives 0.

Errors: INVALID_VALUE a value outside ``CUpointer_attribute``, ``numAttributes`` larger than the list.""",
        decoder=kind("pointer_get_attributes")),
    Api("cuMemAddressReserve", call(VirtualMemory.mem_address_reserve, "size", "alignment", "addr", "flags", out="ptr"),
        """Reserve ``size`` bytes of the simulated address space (aligned to ``alignment``, 0: the 2 MiB granularity;
``addr`` a hint that is not honoured [I]); returns its start. The range holds nothing until ``cuMemMap``.

Errors: INVALID_VALUE ``flags`` not 0, ``size`` 0 or not a multiple of the host page size, ``alignment`` not 0 or
a power of two, ``addr`` not page-aligned; NOT_SUPPORTED without virtual memory management
(``DeviceSpec.virtual_memory``) [I code]; OUT_OF_MEMORY when the host cannot reserve the addresses."""),
    Api("cuMemAddressFree", call(VirtualMemory.mem_address_free, "ptr", "size"),
        """Free a whole reservation (``ptr`` and ``size`` as ``cuMemAddressReserve`` gave and took them).

Errors: INVALID_VALUE another start or size, a range still mapped [I]; 900 during a restricting capture (P-51)
[I]."""),
    Api("cuMemCreate", hand(VirtualMemory.mem_create),
        """Create ``size`` bytes of physical memory described by a ``CUmemAllocationProp`` (type PINNED, location a
device); returns its ``CUmemGenericAllocationHandle``. Counted in ``cuMemGetInfo`` until freed.

Errors: INVALID_VALUE NULL or unsupported ``prop``, ``flags`` not 0, a size that is not a multiple of the
granularity (cuMemGetAllocationGranularity); INVALID_DEVICE a location that is no device; NOT_SUPPORTED
without virtual memory management [I code]; 900 during a restricting capture (P-51) [I]; OUT_OF_MEMORY.""",
        decoder=kind("mem_create")),
    Api("cuMemRelease", call(VirtualMemory.mem_release, "handle"),
        """Release a handle from ``cuMemCreate`` (or a reference from ``cuMemRetainAllocationHandle``); the memory
goes once no reference and no mapping is left.

Errors: INVALID_VALUE not a live handle; 900 during a restricting capture (P-51) [I]."""),
    Api("cuMemMap", call(VirtualMemory.mem_map, "ptr", "size", "offset", "handle", "flags"),
        """Map ``size`` bytes of a handle's memory from ``offset`` at ``ptr`` inside a reservation. The mapping has
no access until ``cuMemSetAccess``.

Errors: INVALID_VALUE a bad handle, ``flags`` not 0, values that are not multiples of the granularity, a range
past the memory, outside one reservation or already mapped in part; 900 during a restricting capture (P-51)
[I]."""),
    Api("cuMemUnmap", call(VirtualMemory.mem_unmap, "ptr", "size"),
        """Unmap the whole mappings that make up a range; it becomes a reservation again, with no access.

Errors: INVALID_VALUE a range that is not made of whole mappings; 900 during a restricting capture (P-51)
[I]."""),
    Api("cuMemSetAccess", hand(VirtualMemory.mem_set_access),
        """Set each device's access (``CUmemAccessDesc``: a DEVICE ``location`` and ``CUmemAccess_flags``) to the
mappings of a range; copies and kernels reach a mapping while some device has READ or READWRITE.

Errors: INVALID_VALUE a range not made of whole mappings, a location type other than DEVICE [I], bad flags,
``count`` larger than the list; INVALID_DEVICE a device that does not exist.""", decoder=kind("mem_set_access")),
    Api("cuMemGetAccess", hand(VirtualMemory.mem_get_access),
        """The ``CUmemAccess_flags`` a location (a DEVICE ``CUmemLocation``) has on the mapping holding ``ptr``.

Errors: INVALID_VALUE ``ptr`` not mapped, a NULL location or one that is not a device; INVALID_DEVICE.""",
        decoder=kind("mem_get_access")),
    Api("cuMemGetAllocationGranularity", hand(VirtualMemory.mem_get_allocation_granularity),
        """The MINIMUM or RECOMMENDED granularity for a ``CUmemAllocationProp``: 2 MiB for both [I].

Errors: INVALID_VALUE a NULL or unsupported prop, an unknown option; INVALID_DEVICE; NOT_SUPPORTED without
virtual memory management [I code].""", decoder=kind("mem_get_allocation_granularity")),
    Api("cuMemGetAllocationPropertiesFromHandle", hand(VirtualMemory.mem_get_allocation_properties_from_handle),
        """The ``CUmemAllocationProp`` a handle's memory was created with. Errors: INVALID_VALUE not a live
handle.""", decoder=kind("mem_get_allocation_properties_from_handle")),
    Api("cuMemRetainAllocationHandle", call(VirtualMemory.mem_retain_allocation_handle, "addr", out="handle"),
        """The handle of the memory mapped at ``addr`` (any address of a mapping), the value ``cuMemMap`` was
given, with one more reference that ``cuMemRelease`` must drop. Errors: INVALID_VALUE ``addr`` not mapped."""),
)

#: batched copies
BATCH_COPIES: tuple[Api, ...] = (
    # -- batched copies (issue 10; simcuda/_core/memory/batch_entries.py) --
    Api("cuMemcpyBatchAsync", hand(BatchCopies.memcpy_batch),
        """A batch of ``count`` unified-address copies on ``hStream`` (CUDA 13 signature: no ``failIdx``), run in
stream order as one piece of work; ``attrs[k]`` (a ``CUmemcpyAttributes``) applies from copy ``attrsIdxs[k]`` on;
a DURING_API_CALL host source is read during the call. During a capture: STREAM_CAPTURE_UNSUPPORTED (900) and
the capture goes on (no graph-node form; P-41) [O: rapidsai/rmm issue 2518].
Errors: the stream's; INVALID_VALUE the legacy NULL stream, no copy, no or too many attributes, attrsIdxs not
starting at 0 / not increasing / past the last copy, an INVALID access order, bad ranges; 900 in a capture;
901 in an invalidated one. A rejected call copies nothing.""",
        decoder=kind("memcpy_batch")),
    # -- 3D batched copies (issue 10; simcuda/_core/memory/batch_entries.py) --
    Api("cuMemcpy3DBatchAsync", hand(BatchCopies.memcpy3d_batch),
        """A batch of ``numOps`` 3D copies (``CUDA_MEMCPY3D_BATCH_OP``: ``src``/``dst`` operands, ``extent`` in
elements, ``srcAccessOrder``, ``flags``) on ``hStream``, run in stream order as one piece of work; pointer operands
copy 1-byte elements with ``rowLength``/``layerHeight`` (0: packed); a DURING_API_CALL host source is read during
the call. During a capture: STREAM_CAPTURE_UNSUPPORTED (900) and the capture goes on (P-41).
Errors: the stream's; INVALID_VALUE the legacy NULL stream, no op, ``flags`` not 0, an INVALID access order, op
flags other than PREFER_OVERLAP_WITH_COMPUTE, an operand type other than POINTER/ARRAY, a zero extent, a rowLength
or layerHeight below the extent, bad ranges; NOT_SUPPORTED (801) a CUDA array operand (array contents are not
simulated); 900 in a capture; 901 in an invalidated one. A rejected call copies nothing.""",
        decoder=kind("memcpy3d_batch")),
)
