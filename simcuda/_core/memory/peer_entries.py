"""Several devices: peer access between contexts, peer copies and the devices' PCI identity (issue 10).

What is simulated [D: the docstrings of cuDeviceCanAccessPeer, cuCtxEnablePeerAccess, cuCtxDisablePeerAccess,
cuDeviceGetP2PAttribute, cuMemcpyPeer, cuDeviceGetPCIBusId, cuDeviceGetByPCIBusId in cuda-bindings 13.5, unless
tagged]:

* every pair of **different** simulated devices can reach each other (``cuDeviceCanAccessPeer`` answers 1, the
  link attributes are those of an NVLink pair of H100s) [I: the simulated machine is one NVLink island]; a device
  and itself answer 0 (there is no peer link to oneself);
* peer access is a one-way link from the current context to a peer context: enabled once
  (``PEER_ACCESS_ALREADY_ENABLED`` 704 the second time), disabled once (``PEER_ACCESS_NOT_ENABLED`` 705 when it
  is not enabled); a destroyed context's links go with it. The link is bookkeeping only: all simulated device
  memory is one unified address space, so a copy or a Python kernel reaches any allocation whether or not a
  link is enabled, as ``cuMemcpyPeer`` does on real hardware (it needs no enabled link);
* ``cuMemcpyPeer`` / ``cuMemcpyPeerAsync`` are device-to-device copies after their contexts are checked: the
  synchronous one follows the synchronous-copy rules (spec 6), the asynchronous one is stream work and a MEMCPY
  node during capture (spec 3.8: "``cuMemcpy*Async`` (1D/2D/3D/peer): add node");
* a device's PCI location is ``domain:bus:device.0`` from its ``PCI_DOMAIN_ID``/``PCI_BUS_ID``/``PCI_DEVICE_ID``
  attributes (the bus is 1 + the ordinal unless ``DeviceSpec.attributes`` sets it [I]), the string real drivers
  format as ``%04x:%02x:%02x.0`` (13 characters with the NUL).
"""
from __future__ import annotations

from ..errors import CUresult, DriverError
from ..objects import Context, Device
from ..state import entry
from . import hostmem
from .memory_entries import Memory
from .memory_model import DEVICE, CopyParams

#: ``CUdevice_P2PAttribute`` values (simcuda._generated.driver_enums) -> the simulated link's value:
#: PERFORMANCE_RANK 0 (the best), ACCESS_SUPPORTED, NATIVE_ATOMIC_SUPPORTED, ACCESS_ACCESS (CUDA array)
#: SUPPORTED, ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED 0 (all atomics are native) [I: an NVLink pair]
P2P_ATTRIBUTES = {1: 0, 2: 1, 3: 1, 4: 1, 5: 0}
_PCI_BUS, _PCI_DEVICE, _PCI_DOMAIN = 33, 34, 50  # CU_DEVICE_ATTRIBUTE_PCI_BUS_ID / _DEVICE_ID / _DOMAIN_ID


def pci_bus(d: Device) -> int:
    """The PCI bus number of a simulated device: ``DeviceSpec.attributes[PCI_BUS_ID]`` when set, else 1 + its
    ordinal, so that several devices have distinct bus ids [I]."""
    return int(d.spec.attributes.get(_PCI_BUS, 1 + d.ordinal))


def pci_bus_id(d: Device) -> str:
    """``"dddd:bb:dd.0"`` (lower-case hex) of a simulated device, as ``cuDeviceGetPCIBusId`` formats it."""
    from ..contexts.device_attrs import attribute_value
    return f"{attribute_value(d.spec, _PCI_DOMAIN):04x}:{pci_bus(d):02x}:{attribute_value(d.spec, _PCI_DEVICE):02x}.0"


class Peers(Memory):
    """Peer access, peer copies and PCI identity of the simulated devices (a peer copy is a copy of the
    :class:`~simcuda._core.memory.memory_entries.Memory` entries, whose ``memcpy`` it calls).

    Entries: ``cuDeviceCanAccessPeer``, ``cuDeviceGetP2PAttribute``, ``cuCtxEnablePeerAccess``,
    ``cuCtxDisablePeerAccess``, ``cuMemcpyPeer``, ``cuMemcpyPeerAsync``, ``cuDeviceGetPCIBusId``,
    ``cuDeviceGetByPCIBusId``.
    """
    def _peer_links(self) -> set[tuple[int, int]]:
        """The enabled links ``(context handle, peer context handle)``, made on first use."""
        links: set[tuple[int, int]] | None = self.__dict__.get("_peer_link_set")
        if links is None:
            links = self.__dict__["_peer_link_set"] = set()
        return links

    @entry
    def device_can_access_peer(self, dev: int, peer_dev: int) -> int:
        """cuDeviceCanAccessPeer: 1 when contexts on ``dev`` can reach memory of ``peer_dev`` (any two different
        simulated devices [I]), 0 for the device itself. Errors: 101 INVALID_DEVICE for either device."""
        a, b = self._device(dev), self._device(peer_dev)
        return int(a is not b)

    @entry
    def device_get_p2p_attribute(self, attrib: int, src: int, dst: int) -> int:
        """cuDeviceGetP2PAttribute: the value of a ``CUdevice_P2PAttribute`` of the link ``src`` -> ``dst``
        (:data:`P2P_ATTRIBUTES`). Errors: 101 INVALID_DEVICE a bad device or the same device twice [D]; 1
        INVALID_VALUE an ``attrib`` that is no ``CUdevice_P2PAttribute``."""
        a, b = self._device(src), self._device(dst)
        if a is b:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_DEVICE,
                              f"cuDeviceGetP2PAttribute: source and destination are the same device {src}; a link "
                              "joins two different devices")
        if int(attrib) not in P2P_ATTRIBUTES:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuDeviceGetP2PAttribute: {attrib} is not a CUdevice_P2PAttribute value")
        return P2P_ATTRIBUTES[int(attrib)]

    def _peer_pair(self, peer: int, call: str) -> tuple[Context, Context]:
        """(current context, peer context) of an enable/disable. Errors: 201 INVALID_CONTEXT no current context, a
        NULL or bad ``peer`` (a destroyed one too: the docstrings list no 709 [I]), or the current context itself
        (enable only, checked by the caller)."""
        me = self.threads.ctx_current()
        c = self.handles.get(peer) if peer else None
        if not isinstance(c, Context) or c.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_CONTEXT,
                              f"{call}: the peer context is NULL" if not peer else
                              f"{call}: 0x{peer:x} is not a live context{self.handles.foreign(peer)}")
        return me, c

    @entry
    def ctx_enable_peer_access(self, peer: int, flags: int, call: str = "cuCtxEnablePeerAccess") -> None:
        """cuCtxEnablePeerAccess (and, ``call`` ``"cudaDeviceEnablePeerAccess"``, the runtime's twin with ``peer``
        the peer device's primary context): let the current context reach ``peer``'s allocations (one way).

        Errors, in order [I: the docstring's list, checked in this order]: 201 INVALID_CONTEXT no current context,
        a bad ``peer``, or ``peer`` the current context itself; 1 INVALID_VALUE ``flags`` not 0; 217
        PEER_ACCESS_UNSUPPORTED when ``cuDeviceCanAccessPeer`` says no (``peer`` on the same device); 704
        PEER_ACCESS_ALREADY_ENABLED. The runtime's twin answers 101 INVALID_DEVICE where the driver answers 201
        (the peer device is the current one) or 217 [D: cudaDeviceEnablePeerAccess]. Nothing changes on an error."""
        runtime = call.startswith("cuda")
        me, c = self._peer_pair(peer, call)
        if c.device is me.device and runtime:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_DEVICE,
                              f"{call}: the peer device {c.device.ordinal} is the current device; "
                              "cudaDeviceCanAccessPeer answers 0 for a device and itself")
        if c is me:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_CONTEXT, f"{call}: the peer context is the current context")
        if int(flags) != 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: flags {flags} must be 0")
        if c.device is me.device:
            raise DriverError(CUresult.CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
                              f"{call}: both contexts are on device {me.device.ordinal}; "
                              "cuDeviceCanAccessPeer answers 0 for a device and itself")
        links = self._peer_links()
        if (me.handle, c.handle) in links:
            raise DriverError(CUresult.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
                              f"{call}: access from context 0x{me.handle:x} (device {me.device.ordinal}) to "
                              f"0x{c.handle:x} (device {c.device.ordinal}) is already enabled")
        links.add((me.handle, c.handle))

    @entry
    def ctx_disable_peer_access(self, peer: int, call: str = "cuCtxDisablePeerAccess") -> None:
        """cuCtxDisablePeerAccess (and the runtime's cudaDeviceDisablePeerAccess, ``peer`` the peer device's primary
        context): undo :meth:`ctx_enable_peer_access` for ``peer``.

        Errors: 201 INVALID_CONTEXT no current context or a bad ``peer``; 705 PEER_ACCESS_NOT_ENABLED no enabled
        link from the current context to ``peer``."""
        me, c = self._peer_pair(peer, call)
        links = self._peer_links()
        if (me.handle, c.handle) not in links:
            raise DriverError(CUresult.CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
                              f"{call}: access from context 0x{me.handle:x} (device {me.device.ordinal}) to "
                              f"0x{c.handle:x} (device {c.device.ordinal}) is not enabled")
        links.discard((me.handle, c.handle))

    def peer_access_enabled(self, ctx: int, peer: int) -> bool:
        """Whether the link ``ctx`` -> ``peer`` (context handles) is enabled and both contexts live (for tests
        and tools; not an entry)."""
        a, b = self.handles.get(ctx), self.handles.get(peer)
        return (isinstance(a, Context) and isinstance(b, Context) and not a.destroyed and not b.destroyed
                and (ctx, peer) in self._peer_links())

    @entry
    def memcpy_peer(self, dst: int, dst_ctx: int, src: int, src_ctx: int, n: int, h: int | None = None,
                    call: str = "cuMemcpyPeer") -> None:
        """cuMemcpyPeer (``h`` None: synchronous, spec 6) / cuMemcpyPeerAsync (stream ``h``; a MEMCPY node during
        capture, spec 3.8): copy ``n`` bytes from ``src`` (device memory of ``src_ctx``) to ``dst`` (device memory
        of ``dst_ctx``).

        Errors: 201 INVALID_CONTEXT a NULL or bad context (709 a destroyed one); then as ``cuMemcpyDtoD`` /
        ``cuMemcpyDtoDAsync`` (1 INVALID_VALUE bad ranges, the stream and capture rules). Fidelity: the pointers
        are not checked against their contexts (simulated device memory is one address space) [I]."""
        for hc, side in ((dst_ctx, "dstContext"), (src_ctx, "srcContext")):
            if not hc:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_CONTEXT, f"{call}: {side} is NULL")
            self.handles.context(hc)
        self.memcpy(CopyParams(DEVICE, int(src), DEVICE, int(dst), int(n)), h, call)

    @entry
    def device_get_pci_bus_id(self, length: int, dev: int) -> str:
        """cuDeviceGetPCIBusId: ``"dddd:bb:dd.0"`` (:func:`pci_bus_id`), cut to ``length - 1`` characters as the
        C call writes at most ``length`` bytes with the NUL. Errors: 1 INVALID_VALUE ``length`` not positive [I];
        101 INVALID_DEVICE."""
        d = self._device(dev)
        if int(length) <= 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuDeviceGetPCIBusId: length {length} must be positive")
        return pci_bus_id(d)[:int(length) - 1]

    @entry
    def device_get_by_pci_bus_id(self, bus_id: str | int | None) -> int:
        """cuDeviceGetByPCIBusId: the device whose PCI location is ``bus_id`` (``[domain]:[bus]:[device].[function]``
        or ``[domain]:[bus]:[device]`` or ``[bus]:[device].[function]``, hexadecimal, any case).

        Errors: 1 INVALID_VALUE a string of no such form; 101 INVALID_DEVICE no simulated device there [I: the
        docstring lists both codes]. ``bus_id`` may also be the ``int`` address of the C string (read where readable,
        :mod:`hostmem`) or None/0 for NULL (1 INVALID_VALUE)."""
        if bus_id is None or isinstance(bus_id, int):
            if not bus_id or bus_id < 0:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, "cuDeviceGetByPCIBusId: pciBusId is NULL"
                                  if not bus_id else f"cuDeviceGetByPCIBusId: {bus_id:#x} is not a host address")
            bus_id = hostmem.read_c_string(self.memory, bus_id, "cuDeviceGetByPCIBusId pciBusId").decode("latin-1")
        text = str(bus_id).strip().lower()
        head, _, fn = text.partition(".")
        parts = head.split(":")
        try:
            if len(parts) == 3:
                loc = (int(parts[0], 16), int(parts[1], 16), int(parts[2], 16))
            elif len(parts) == 2:
                loc = (0, int(parts[0], 16), int(parts[1], 16))
            else:
                raise ValueError
            if fn:
                int(fn, 16)
        except ValueError:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuDeviceGetByPCIBusId: {bus_id!r} is not a PCI bus id "
                              "([domain]:[bus]:[device].[function])") from None
        for d in self.devices:
            dom, bus, dv = (int(x, 16) for x in pci_bus_id(d)[:-2].replace(":", " ").split())
            if (dom, bus, dv) == loc:
                return d.ordinal
        raise DriverError(CUresult.CUDA_ERROR_INVALID_DEVICE,
                          f"cuDeviceGetByPCIBusId: no simulated device at {bus_id!r} (the devices are at "
                          f"{', '.join(pci_bus_id(d) for d in self.devices)})")
