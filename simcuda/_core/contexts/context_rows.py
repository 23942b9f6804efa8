"""The entry table's rows of initialisation, devices, contexts and their limits, the profiler, several devices (peer
access, PCI identity).

Each tuple is one run of :data:`simcuda._core.api.ROWS`, which concatenates the runs of every
``*_rows`` module in the tuple face's order; the forms of a row are described in :mod:`simcuda._core.rows`.
"""
from __future__ import annotations

from ..arguments import ArgumentRules
from ..memory.peer_entries import Peers
from ..modules.module_entries import Modules
from ..rows import Api, array, call, hand, kind, lit
from .context_entries import Contexts

#: initialisation, devices, contexts, the profiler
DEVICES_AND_CONTEXTS: tuple[Api, ...] = (
    Api("cuInit", call(Contexts.init, "Flags"),
        """Initialise the simulated driver.

Args: ``Flags`` (unsigned int) must be 0.
Errors: INVALID_VALUE for non-zero flags; NO_DEVICE (100) on a ``Driver(available=False)``."""),
    Api("cuDriverGetVersion", call(Contexts.driver_get_version, out="driverVersion"),
        """The simulated driver version, 13050 (CUDA 13.5); needs no ``cuInit``."""),
    Api("cuGetErrorName", call(ArgumentRules.get_error_name, "error", out="pStr"),
        """The name of a ``CUresult`` as ``bytes`` (``b'CUDA_ERROR_INVALID_VALUE'``); needs no ``cuInit``.

Errors: INVALID_VALUE for a value that is not a ``CUresult``."""),
    Api("cuGetErrorString", call(ArgumentRules.get_error_string, "error", out="pStr"),
        """The description of a ``CUresult`` as ``bytes``; needs no ``cuInit``.

Fidelity: the text is the code's documentation sentence from the cuda-bindings docstring (spec 10),
not the shorter string of the real ``libcuda``. Errors: INVALID_VALUE for an unknown value."""),
    Api("cuDeviceGet", call(Contexts.device_get, "ordinal", out="device"),
        """The device with this ordinal. Errors: INVALID_DEVICE (101) out of range; NOT_INITIALIZED."""),
    Api("cuDeviceGetCount", call(Contexts.device_get_count, out="count"),
        """Number of simulated devices (``Driver(devices=[...])``)."""),
    Api("cuDeviceGetUuid", call(Contexts.device_get_uuid, "dev", out="uuid"),
        """The device's UUID (``CUuuid``, 16 bytes): a stable hash of its name and ordinal, the same every run [I].

Errors: INVALID_DEVICE."""),
    Api("cuDeviceGetName", call(Contexts.device_get_name, "dev", "len", out=array("name", "len")),
        """The device name as ``bytes`` of exactly ``length`` bytes (NUL-terminated, then padding, as the real
wrapper returns its buffer). Errors: INVALID_DEVICE; INVALID_VALUE for ``length`` <= 0."""),
    Api("cuDeviceGetAttribute", call(Contexts.device_get_attribute, "attrib", "dev", out="pi"),
        """A ``CUdevice_attribute`` value (``int``). Errors: INVALID_DEVICE; INVALID_VALUE unknown attribute."""),
    Api("cuDeviceTotalMem", call(Contexts.device_total_mem, "dev", out="bytes"),
        """Device memory in bytes (``DeviceSpec.total_mem``). Errors: INVALID_DEVICE."""),
    Api("cuDeviceComputeCapability", call(Contexts.device_compute_capability, "dev", out=("major", "minor")),
        """``(major, minor)`` from attributes 75/76 (``DeviceSpec.compute_capability``). Errors: INVALID_DEVICE."""),
    Api("cuDevicePrimaryCtxRetain", call(Contexts.device_primary_ctx_retain, "dev", out="pctx"),
        """Retain (creating on first use) the device's primary context. Errors: INVALID_DEVICE."""),
    Api("cuDevicePrimaryCtxRelease", call(Contexts.device_primary_ctx_release, "dev"),
        """Release one reference. Errors: INVALID_DEVICE; CONTEXT_IS_DESTROYED (709) when not retained.

Fidelity: the context stays usable after the last release (the simulator only counts references)."""),
    Api("cuDevicePrimaryCtxGetState", call(Contexts.device_primary_ctx_get_state, "dev", out=("flags", "active")),
        """``(flags, active)`` of the primary context. Errors: INVALID_DEVICE."""),
    Api("cuCtxCreate", hand(Contexts.ctx_create),
        """Create a context on ``dev`` and make it current (pushed on this thread's stack).

Args: ``ctxCreateParams``: ``None`` or a ``CUctxCreateParams`` (``cigParams`` non-empty makes a CIG
context, spec 8.1); ``flags``: ``CUctx_flags`` bits; ``dev``: ``CUdevice`` or ordinal.
Errors: INVALID_DEVICE; INVALID_VALUE both exec-affinity and CIG parameters [I] or a bad CIG data
type; NOT_SUPPORTED (801) device without CIG support, or coredump flags with CIG [I];
STREAM_CAPTURE_UNSUPPORTED (900) during a capture that restricts this thread (spec 5.2) [I].""",
        decoder=kind("ctx_create")),
    Api("cuCtxDestroy", call(Contexts.ctx_destroy, "ctx"),
        """Destroy a context and its streams (captures there end as on stream destroy, spec 5.2).

Errors: INVALID_CONTEXT; CONTEXT_IS_DESTROYED; 900 during a restricting capture [I]."""),
    Api("cuCtxSetCurrent", call(Contexts.ctx_set_current, "ctx"),
        """Replace the top of this thread's context stack (``None``/0 pops it). Errors: INVALID_CONTEXT, 709."""),
    Api("cuCtxGetCurrent", call(Contexts.ctx_get_current, out="pctx"),
        """This thread's current context (``CUcontext(0)`` when none)."""),
    Api("cuCtxPushCurrent", call(Contexts.ctx_push_current, "ctx"),
        """Push a context on this thread's stack. Errors: INVALID_CONTEXT, 709."""),
    Api("cuCtxPopCurrent", call(Contexts.ctx_pop_current, out="pctx"),
        """Pop this thread's current context and return it. Errors: INVALID_CONTEXT when the stack is empty."""),
    Api("cuCtxGetDevice", call(Contexts.ctx_get_device, out="device"),
        """The current context's device. Errors: INVALID_CONTEXT."""),
    Api("cuCtxGetDevice_v2", call(Contexts.ctx_get_device, "ctx", out="device"),
        """The device of context ``ctx`` (NULL: the current context [I]). Errors: INVALID_CONTEXT."""),
    Api("cuCtxSynchronize", call(Contexts.ctx_synchronize),
        """Wait for all work of the current context.

Errors: INVALID_CONTEXT; STREAM_CAPTURE_UNSUPPORTED (900) while a stream of the context is in a
capture, whatever the thread and mode, invalidating those captures (spec 5.3)."""),
    Api("cuProfilerStart", call(Contexts.profiler_control, lit("cuProfilerStart")),
        """Enable profile collection for the current context: the simulator attaches no profiler, so this succeeds
and changes nothing [I].

Errors: INVALID_CONTEXT when the calling thread has no current context."""),
    Api("cuProfilerStop", call(Contexts.profiler_control, lit("cuProfilerStop")),
        """Disable profile collection for the current context: a no-op success, as ``cuProfilerStart`` [I].

Errors: INVALID_CONTEXT when the calling thread has no current context."""),
    Api("cuCtxSynchronize_v2", call(Contexts.ctx_synchronize, "ctx", call=lit("cuCtxSynchronize_v2")),
        """As ``cuCtxSynchronize``, for context ``ctx`` (NULL: the current context [I]). Errors: INVALID_CONTEXT
for a bad or destroyed context; 900 while a stream of that context captures (spec 5.3)."""),
    Api("cuCtxGetId", call(Contexts.ctx_get_id, "ctx", out="ctxId"),
        """The context's unique id (``int``); ``None``/0 means the current context. Errors: INVALID_CONTEXT."""),
    Api("cuCtxRecordEvent", call(Contexts.ctx_record_event, "hCtx", "hEvent"),
        """Record an event after all work of a context. Errors: 201/709; INVALID_HANDLE; 900 while the
context has a capturing stream (spec 5.3)."""),
    Api("cuCtxWaitEvent", call(Contexts.ctx_wait_event, "hCtx", "hEvent"),
        """Make a context's future work wait for an event. Errors: 201/709; 400; 900 while the context
captures or the event belongs to a capture (spec 5.3)."""),
    Api("cuCtxGetStreamPriorityRange", call(Contexts.ctx_get_stream_priority_range,
                                            out=("leastPriority", "greatestPriority")),
        """``(least, greatest)`` stream priority of the current context's device: ``(0, -5)`` by default
(``DeviceSpec.stream_priority_range``); a lower number is a higher priority, and ``cuStreamCreateWithPriority``
clamps into this range. Errors: INVALID_CONTEXT (no current context)."""),
)

#: context limits
LIMITS: tuple[Api, ...] = (
    Api("cuCtxSetLimit", call(Modules.ctx_set_limit, "limit", "value"),
        """Set a ``CUlimit`` of the current context: STACK_SIZE, PRINTF_FIFO_SIZE, MALLOC_HEAP_SIZE (the heap of
device-side ``malloc``; only before a kernel of the context used it), the device runtime's sync depth and
pending launch count, MAX_L2_FETCH_GRANULARITY (0-128) and PERSISTING_L2_CACHE_SIZE; kept and read back, only
the heap size has an effect. Errors: INVALID_CONTEXT; UNSUPPORTED_LIMIT (215) the limits 7-10 [I];
INVALID_VALUE not a ``CUlimit``, a value out of range, or the heap size once the heap is in use."""),
    Api("cuCtxGetLimit", call(Modules.ctx_get_limit, "limit", out="pvalue"),
        """A ``CUlimit`` of the current context: the value set, else the default (heap 8 MiB, stack 1 KiB, printf
FIFO 1 MiB, sync depth 2, pending launches 2048, L2 fetch granularity 32, persisting L2 0). Errors: as
``cuCtxSetLimit``."""),
)

#: the primary context's reset
PRIMARY_RESET: tuple[Api, ...] = (
    Api("cuDevicePrimaryCtxReset", call(Contexts.device_primary_ctx_reset, "dev"),
        """Reset a device's primary context (its streams are destroyed). Errors: INVALID_DEVICE; 900 during a
restricting capture (spec 5.2) [I]."""),
)

#: several devices: peer access, peer copies, PCI identity
PEERS: tuple[Api, ...] = (
    # -- several devices: peer access, peer copies, PCI identity (issue 10; simcuda/_core/memory/peer_entries.py) --
    Api("cuDeviceCanAccessPeer", call(Peers.device_can_access_peer, "dev", "peerDev", out="canAccessPeer"),
        """1 when contexts on ``dev`` can reach memory of ``peerDev``: any two different simulated devices (one
NVLink island [I]); 0 for a device and itself. Errors: INVALID_DEVICE (101) for either device."""),
    Api("cuDeviceGetP2PAttribute", call(Peers.device_get_p2p_attribute, "attrib", "srcDevice", "dstDevice",
                                        out="value"),
        """A ``CUdevice_P2PAttribute`` of the link ``srcDevice`` -> ``dstDevice`` (``int``): PERFORMANCE_RANK 0,
ACCESS_SUPPORTED 1, NATIVE_ATOMIC_SUPPORTED 1, CUDA array ACCESS_SUPPORTED 1, ONLY_PARTIAL_NATIVE_ATOMIC 0 [I:
an NVLink pair]. Errors: INVALID_DEVICE (101) a bad device or the same device twice; INVALID_VALUE an unknown
attribute."""),
    Api("cuCtxEnablePeerAccess", call(Peers.ctx_enable_peer_access, "peerContext", "Flags"),
        """Let the current context reach the allocations of ``peerContext`` (one way; the reverse needs its own
call). Bookkeeping only: simulated device memory is one address space, so copies and Python kernels reach it
either way [I]. Errors, in order: INVALID_CONTEXT (201) no current context, a bad ``peerContext`` or the current
context itself; INVALID_VALUE ``Flags`` not 0; PEER_ACCESS_UNSUPPORTED (217) both contexts on one device;
PEER_ACCESS_ALREADY_ENABLED (704). Not a capture-restricted call [I]."""),
    Api("cuCtxDisablePeerAccess", call(Peers.ctx_disable_peer_access, "peerContext"),
        """Undo ``cuCtxEnablePeerAccess`` for ``peerContext``. Errors: INVALID_CONTEXT (201) no current context or a
bad ``peerContext``; PEER_ACCESS_NOT_ENABLED (705) no enabled access from the current context to it."""),
    Api("cuMemcpyPeer", call(Peers.memcpy_peer, "dstDevice", "dstContext", "srcDevice", "srcContext", "ByteCount"),
        """Synchronous copy of ``ByteCount`` bytes between device memory of two contexts (no enabled peer access
is needed, as on CUDA). Errors: INVALID_CONTEXT (201) a NULL or bad context (709 destroyed); then as
``cuMemcpyDtoD``: INVALID_VALUE bad ranges, the synchronous-copy capture rules (spec 6). Fidelity: the pointers
are not checked against their contexts [I]."""),
    Api("cuMemcpyPeerAsync",
        call(Peers.memcpy_peer, "dstDevice", "dstContext", "srcDevice", "srcContext", "ByteCount", "hStream",
             call=lit("cuMemcpyPeerAsync")),
        """Asynchronous copy between device memory of two contexts: stream work, a MEMCPY node (device to device)
during capture (spec 3.8: ``cuMemcpy*Async`` (1D/2D/3D/peer) add a node). Errors: INVALID_CONTEXT (201) a NULL
or bad context; then as ``cuMemcpyDtoDAsync`` (INVALID_VALUE bad ranges; the stream's capture rules)."""),
    Api("cuDeviceGetPCIBusId", hand(Peers.device_get_pci_bus_id),
        """The device's PCI location ``b"dddd:bb:dd.0"`` (domain, bus, device in hex from the PCI_DOMAIN_ID,
PCI_BUS_ID and PCI_DEVICE_ID attributes; the bus is 1 + the ordinal unless ``DeviceSpec.attributes`` sets it
[I]), cut to ``length - 1`` characters and NUL-terminated: the tuple face returns the whole ``length``-byte
buffer as ``cuDeviceGetName`` does. Errors: INVALID_DEVICE (101); INVALID_VALUE ``length`` not positive [I].""",
        decoder=kind("device_get_pci_bus_id")),
)

#: a device by its PCI location
PCI_LOOKUP: tuple[Api, ...] = (
    Api("cuDeviceGetByPCIBusId", hand(Peers.device_get_by_pci_bus_id),
        """The device at a PCI location (``bytes``: ``[domain]:[bus]:[device].[function]``, ``[domain]:[bus]:
[device]`` or ``[bus]:[device].[function]``, hexadecimal). Errors: INVALID_VALUE not such a string; INVALID_DEVICE
(101) no simulated device there.""",
        decoder=kind("device_get_by_pci_bus_id")),
)
