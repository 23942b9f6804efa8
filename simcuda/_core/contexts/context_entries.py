"""Init, devices, primary contexts and contexts (spec 1, 3 preamble, 5.3, 8.1)."""
from __future__ import annotations

import hashlib

from ..capture import capture_enqueue as capq
from ..capture import capture_rules as cap
from ..capture import capture_sync as caps
from ..errors import CUresult, DriverError
from ..objects import Context, Device
from ..state import DRIVER_VERSION, DriverState, entry


def device_uuid(d: Device) -> bytes:
    """The 16-byte UUID of a simulated device: a stable hash of its name and ordinal [I] (cuDeviceGetUuid and
    the NVML front end's nvmlDeviceGetUUID report the same bytes; NVML needs no cuInit, hence a function)."""
    return hashlib.md5(f"{d.spec.name}/{d.ordinal}".encode()).digest()

class Contexts(DriverState):
    """Init, devices, primary contexts and contexts of the simulated driver.

    Entries: ``cuInit``, ``cuDriverGetVersion``, ``cuDevice*``, ``cuDevicePrimaryCtx*``, ``cuCtx*``.
    """
    # ------------------------------------------------------------------ init, devices
    @entry
    def init(self, flags: int = 0) -> None:
        """cuInit. Errors: 1 for flags != 0; 3 in a forked child of a process that used this driver (P-80); 100
        when the driver is unavailable."""
        if flags != 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"cuInit flags must be 0, got {flags}")
        if self._forked:  # a forked child (issue 19 item 5, P-80)
            raise DriverError(CUresult.CUDA_ERROR_NOT_INITIALIZED, self._forked)
        if not self.available:
            raise DriverError(CUresult.CUDA_ERROR_NO_DEVICE, "the simulated machine has no CUDA-capable device "
                                                             "(Driver(available=False))")
        self._initialized = True
        self._common = not self._closed and not self._hooks

    @entry
    def driver_get_version(self) -> int:
        """cuDriverGetVersion: 13050 (CUDA 13.5)."""
        return DRIVER_VERSION

    @entry
    def device_get_count(self) -> int:
        """cuDeviceGetCount."""
        return len(self.devices)

    @entry
    def device_get(self, ordinal: int) -> int:
        """cuDeviceGet. Errors: 101 for an ordinal out of range."""
        return self._device(ordinal).ordinal

    @entry
    def device_get_uuid(self, dev: int) -> bytes:
        """cuDeviceGetUuid: the device's 16-byte UUID, a stable hash of its name and ordinal (the same bytes every
        run, distinct per device) [I: the simulated device has no hardware UUID]. Errors: 101 bad device."""
        return device_uuid(self._device(dev))

    @entry
    def device_get_name(self, dev: int, length: int | None = None) -> str:
        """cuDeviceGetName. Errors: 101 bad device; 1 a ``length`` (the buffer size, when the face has one)
        that is not positive."""
        name = self._device(dev).spec.name
        if length is not None and length <= 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"cuDeviceGetName: length {length} must be positive")
        return name

    @entry
    def device_total_mem(self, dev: int) -> int:
        """cuDeviceTotalMem: bytes."""
        return self._device(dev).spec.total_mem

    @entry
    def device_get_attribute(self, attrib: int, dev: int) -> int:
        """cuDeviceGetAttribute. Errors: 101 bad device; 1 attribute not a CUdevice_attribute value."""
        from .device_attrs import attribute_value
        d = self._device(dev)
        if int(attrib) == 33:  # CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: distinct per device (several devices, issue 10)
            from ..memory.peer_entries import pci_bus
            return pci_bus(d)
        return attribute_value(d.spec, int(attrib))

    @entry
    def device_compute_capability(self, dev: int) -> tuple[int, int]:
        """cuDeviceComputeCapability: ``(major, minor)``, the attributes COMPUTE_CAPABILITY_MAJOR (75) and _MINOR
        (76) as ``cuDeviceGetAttribute`` gives them. Errors: 101 bad device."""
        return self.device_get_attribute(75, dev), self.device_get_attribute(76, dev)

    @entry
    def device_primary_ctx_retain(self, dev: int) -> int:
        """cuDevicePrimaryCtxRetain: the device's primary context (created on first retain)."""
        d = self._device(dev)
        if d.primary is None or d.primary.destroyed:
            self._ctx_counter += 1
            c = Context(0, d, 0, self._ctx_counter, is_primary=True)
            c.fault = self.scheduler.process_fault  # after a 700/719 kernel fault no context is usable (P-9)
            c.handle = self.handles.add(c)
            d.primary = c
        d.primary_refs += 1
        return d.primary.handle

    @entry
    def device_primary_ctx_release(self, dev: int) -> None:
        """cuDevicePrimaryCtxRelease. Errors: 101; 709 when not retained.

        Fidelity: the context object stays usable after the last release (the real driver frees its
        resources); the simulator only counts references [I].
        """
        d = self._device(dev)
        if d.primary_refs <= 0:
            raise DriverError(CUresult.CUDA_ERROR_CONTEXT_IS_DESTROYED,
                              f"the primary context of device {dev} is not retained")
        d.primary_refs -= 1

    @entry
    def device_primary_ctx_get_state(self, dev: int) -> tuple[int, int]:
        """cuDevicePrimaryCtxGetState: ``(flags, active)``."""
        d = self._device(dev)
        return (d.primary.flags if d.primary else 0, int(d.primary_refs > 0))

    # ------------------------------------------------------------------ contexts
    @entry
    def ctx_create(self, flags: int, dev: int, cig: tuple[int, int] | None = None,
                   exec_affinity: bool = False, cig_params_null: bool = False) -> int:
        """cuCtxCreate (13.x shape): create a context on ``dev`` and push it on this thread.

        Args:
            flags: ``CUctx_flags`` bits.
            dev: device ordinal.
            cig: ``(sharedDataType, sharedData)`` for a CIG context (spec 8.1), else ``None``.
            exec_affinity: whether execution-affinity parameters were given too.
        Errors: 101 bad device; 1 both exec-affinity and CIG parameters [I], an unknown CIG data type;
            801 the device lacks CIG support for that type, or coredump flags with CIG [I];
            900 during a capture that restricts this thread (spec 5.2) [I].
        """
        d = self._device(dev)
        if flags & ~0xFF:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuCtxCreate flags 0x{flags:x} have bits outside CUctx_flags (CU_CTX_FLAGS_MASK 0xff)")
        if cig is not None:
            dtype, data = cig
            if exec_affinity:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  "CUctxCreateParams sets both execAffinityParams and cigParams (undefined "
                                  "behaviour in CUDA; the simulator refuses it, spec 8.1) [inferred]")
            if dtype not in (1, 2):
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"CUctxCigParam.sharedDataType {dtype} is not a CUcigDataType (1 D3D12 command "
                                  "queue, 2 NV blob)")
            supported = d.spec.cig_d3d12 if dtype == 1 else d.spec.cig_vulkan
            if not supported:
                attr = 135 if dtype == 1 else 138
                raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                                  f"device {dev} does not support CIG contexts of data type {dtype} "
                                  f"(CUdevice_attribute {attr} is 0; spec 8.1)")
            if flags & (0x20 | 0x40):
                raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                                  "CU_CTX_COREDUMP_ENABLE / CU_CTX_USER_COREDUMP_ENABLE are not supported for CIG "
                                  "contexts (spec 8.1) [inferred code]")
            if not data:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, "CUctxCigParam.sharedData is NULL")
        t = self.threads.current()
        cap.check_unsafe(self, t, "cuCtxCreate")
        self._ctx_counter += 1
        c = Context(0, d, flags, self._ctx_counter)
        c.fault = self.scheduler.process_fault  # after a 700/719 kernel fault no context is usable (P-9)
        c.handle = self.handles.add(c)
        if cig is not None:
            c.is_cig, c.cig_data_type, c.cig_data = True, cig[0], cig[1]
        t.ctx_stack.append(c)
        return c.handle

    @entry
    def ctx_destroy(self, h: int) -> None:
        """cuCtxDestroy. Errors: 201 bad handle; 709 already destroyed; 900 during a restricting capture [I].

        Destroys the context's streams; captures with members there behave as if those streams were
        destroyed (spec 5.2). The context is removed from the calling thread's stack.
        """
        c = self.handles.context(h)
        t = self.threads.current()
        cap.check_unsafe(self, t, "cuCtxDestroy")
        self.scheduler.abandon_inflight(c)  # kernels never released: abandoned, not waited for (P-74)
        for s in list(c.streams) + list(c.per_thread.values()):
            cap.on_stream_destroyed(self, s)
            s.destroyed = True
        c.destroyed = True
        t.ctx_stack[:] = [x for x in t.ctx_stack if x is not c]

    @entry
    def ctx_set_current(self, h: int) -> None:
        """cuCtxSetCurrent: replace the top of this thread's stack (0 clears it). Errors: 201, 709."""
        t = self.threads.current()
        if not h:
            if t.ctx_stack:
                t.ctx_stack.pop()
            return
        c = self.handles.context(h)
        if t.ctx_stack:
            t.ctx_stack[-1] = c
        else:
            t.ctx_stack.append(c)

    @entry
    def ctx_get_current(self) -> int:
        """cuCtxGetCurrent: the handle, or 0 when none."""
        c = self.threads.current().current
        return c.handle if c is not None else 0

    @entry
    def ctx_push_current(self, h: int) -> None:
        """cuCtxPushCurrent. Errors: 201, 709."""
        self.threads.current().ctx_stack.append(self.handles.context(h))

    @entry
    def ctx_pop_current(self) -> int:
        """cuCtxPopCurrent: returns the popped handle. Errors: 201 when the stack is empty."""
        t = self.threads.current()
        if not t.ctx_stack:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_CONTEXT, f"thread {t.name} has no current context to pop")
        return t.ctx_stack.pop().handle

    @entry
    def ctx_get_device(self, h: int = 0) -> int:
        """cuCtxGetDevice: ordinal of the current context's device; cuCtxGetDevice_v2: of context ``h`` (0: the
        current one [I: as cuCtxGetId reads NULL]). Errors: 201 no current context; 201 a bad or destroyed
        context handle (the resolver's code)."""
        return (self.handles.context(h) if h else self.threads.ctx_current()).device.ordinal

    @entry
    def ctx_get_id(self, h: int) -> int:
        """cuCtxGetId."""
        return (self.handles.context(h) if h else self.threads.ctx_current()).ctx_id

    @entry
    def ctx_get_stream_priority_range(self) -> tuple[int, int]:
        """cuCtxGetStreamPriorityRange: ``(least, greatest)`` stream priority of the current context's device
        (``DeviceSpec.stream_priority_range``, H100: ``(0, -5)``), the range cuStreamCreateWithPriority clamps
        into. Errors: 201 no current context (709 destroyed)."""
        least, greatest = self.threads.ctx_current().device.spec.priority_range()
        return least, greatest

    @entry
    def ctx_synchronize(self, h: int = 0, call: str = "cuCtxSynchronize") -> None:
        """cuCtxSynchronize (the current context) and cuCtxSynchronize_v2 (context ``h``; 0: the current one [I]).
        Errors: 201; 900 while any stream of the context is in a capture (spec 5.3).

        In-flight kernels of the context (P-74) are resumed until they end, the lock released (see
        ``stream_synchronize``), and the work behind them runs; a fault of one is answered (sticky)."""
        ctx = self.handles.context(h) if h else self.threads.ctx_current()
        caps.check_ctx_sync(self, ctx, call)
        self.scheduler.wait_idle(self._ctx_streams(ctx))
        if self.scheduler.holds:
            self.scheduler.settle([*self._ctx_streams(ctx), *self.scheduler.held_in(ctx)])
        self.scheduler.drain()

    @entry
    def profiler_control(self, call: str) -> None:
        """cuProfilerStart and cuProfilerStop (``call`` names which): no profiler is attached to the simulator, so
        both succeed and change nothing [I], once the calling thread has a current context.

        Errors: INVALID_CONTEXT (201) with no current context, CONTEXT_IS_DESTROYED (709) for a destroyed one:
        the documented codes of both entries are SUCCESS and INVALID_CONTEXT."""
        self.threads.ctx_current()

    @entry
    def ctx_record_event(self, hctx: int, hevent: int) -> None:
        """cuCtxRecordEvent. Errors: 201/709 context; 400 event; 900 while the context captures (5.3)."""
        ctx = self.handles.context(hctx)
        ev = self.handles.event(hevent)
        caps.check_ctx_event(self, ctx, ev, "cuCtxRecordEvent", wait=False)
        capq._uncapture_event(ev)
        self.scheduler.drain()
        self.scheduler.complete_event(ev)

    @entry
    def ctx_wait_event(self, hctx: int, hevent: int) -> None:
        """cuCtxWaitEvent. Errors: 201/709; 400; 900 while the context captures or the event is captured."""
        ctx = self.handles.context(hctx)
        ev = self.handles.event(hevent)
        caps.check_ctx_event(self, ctx, ev, "cuCtxWaitEvent", wait=True)

    @entry
    def device_primary_ctx_reset(self, dev: int) -> None:
        """cuDevicePrimaryCtxReset: destroy the primary context's streams and memory bookkeeping, and clear its
        sticky error (a Python kernel that faulted, ``Options.kernel_faults``).

        Errors: 101 bad device; 900 by spec 5.2 (potentially unsafe [I]). Captures with streams in it
        behave as when those streams are destroyed (origin: terminated; member: leaves the capture, 2.2).
        """
        d = self._device(dev)
        t = self.threads.current()
        cap.check_unsafe(self, t, "cuDevicePrimaryCtxReset")
        c = d.primary
        if c is None:
            return
        self.scheduler.abandon_inflight(c)  # kernels never released: abandoned, not waited for (P-74)
        for s in list(c.streams) + list(c.per_thread.values()):
            cap.on_stream_destroyed(self, s)
            s.destroyed = True
        c.streams.clear()
        c.per_thread.clear()
        for a in list(self.memory._allocs):
            if a.ctx is c and not a.freed:
                self.memory.free(a)
        c.fault = self.scheduler.process_fault  # a reset clears a 710; after 700/719 nothing does (P-9)
