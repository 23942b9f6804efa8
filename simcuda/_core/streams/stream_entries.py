"""Streams, stream work and the capture control calls (spec 3, 4, 6)."""
from __future__ import annotations

import contextlib
from typing import Any

from ..capture import capture_enqueue as capq
from ..capture import capture_rules as cap
from ..capture import capture_sync as caps
from ..errors import CUresult, DriverError
from ..graphs import nodes as nd
from ..memory.memops import check_mem_ops
from ..objects import USER, EdgeData, EdgeDataArg, MemOp, SemValue, Stream
from ..state import CU_STREAM_LEGACY, CU_STREAM_PER_THREAD, DriverState, entry


class Streams(DriverState):
    """Streams, stream work and the capture control calls of the simulated driver.

    Entries: ``cuStream*`` (capture begin, end, status, info, dependencies), ``cuLaunchHostFunc``,
    ``cuThreadExchangeStreamCaptureMode``.
    """

    def advance(self) -> None:
        """Run every pending piece of work, in enqueue order (manual progression only).

        Mirrors: the GPU catching up. No effect in immediate mode.
        """
        with self._lock:
            self.scheduler.drain()

    # ------------------------------------------------------------------ streams
    @entry
    def stream_create(self, flags: int, priority: int = 0) -> int:
        """cuStreamCreate / cuStreamCreateWithPriority. Errors: 201 no context; 1 flags not 0/1.

        Priority is clamped to the device range (``DeviceSpec.stream_priority_range``, H100: [-5, 0], the
        range ``cuCtxGetStreamPriorityRange`` reports) as the real driver does.
        """
        ctx = self.threads.ctx_current()
        if flags not in (0, 1):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"stream flags {flags} are not CU_STREAM_DEFAULT (0) or CU_STREAM_NON_BLOCKING (1)")
        least, greatest = ctx.device.spec.priority_range()
        s = Stream(0, ctx, flags, max(greatest, min(least, int(priority))), USER, self.handles.next_stream_id())
        s.handle = self.handles.add(s)
        ctx.streams.append(s)
        return s.handle

    @entry
    def stream_destroy(self, h: int) -> None:
        """cuStreamDestroy. Errors: 400 garbage; 709 destroyed; 1 for the legacy/per-thread handles.

        During a capture (spec 2.1, 2.2, C-153, C-153b, C-154): destroying the origin terminates the
        capture and discards its graph [I]; destroying a member that is not the origin leaves the
        capture's status as it was (the stream leaves it, its nodes stay) [O]; unjoined work of that
        member still makes the end 904 [I]. The rule is :func:`capture.on_stream_destroyed`.
        """
        if h in (0, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD):
            self._stream(h)
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              "the legacy and per-thread default streams cannot be destroyed")
        s = self._stream(h)
        self.scheduler.stream_drain(s)
        cap.on_stream_destroyed(self, s)
        s.destroyed = True
        with contextlib.suppress(ValueError):
            s.ctx.streams.remove(s)

    @entry
    def stream_query(self, h: int) -> None:
        """cuStreamQuery. Raises 600 NOT_READY when work is pending; capture rules of spec 6, 5.3, 5.2.

        A kernel in flight (P-74: its threads spin on something outside it) is resumed for one bounded slice
        first (the kernel its stream's earliest work waits for); 600 while it has not ended, while work waits
        behind it, and, for the legacy stream, while a blocking stream of its context has one in flight (spec 1's
        implicit synchronisation, as for queued work under manual progression)."""
        t = self.threads.current()
        s = self._stream(h, t)
        caps.check_stream_sync(self, s, t, "cuStreamQuery")
        sch = self.scheduler
        if sch.holds:
            sch.query_slice(s)
            if s.inflight is not None or (s.is_legacy and any(o.inflight is not None for o in sch.partners(s))):
                raise DriverError(CUresult.CUDA_ERROR_NOT_READY,
                                  f"{s.label()} waits for a kernel that has not ended (its threads spin, waiting on "
                                  "the host or other work; P-74)")
        if s.busy or s.deferred:
            raise DriverError(CUresult.CUDA_ERROR_NOT_READY, f"{s.label()} is running a host function or Python "
                                                             "kernel (on another thread), or has work waiting "
                                                             "behind one or behind an in-flight kernel")
        if s.pending or (s.is_legacy and self._queue_blocking(s)):
            raise DriverError(CUresult.CUDA_ERROR_NOT_READY, f"{s.label()} still has pending work (manual "
                                                             "progression)")

    @entry
    def stream_synchronize(self, h: int) -> None:
        """cuStreamSynchronize. Capture rules of spec 6, 5.3, 5.2 in that order; runs pending work.

        An in-flight kernel (P-74) the stream's work waits for is resumed until it ends, with the driver lock
        released (another thread may call the driver, and write what it spins on); ``simcuda.ptx``'s stop
        request (Ctrl-C) interrupts it: 719, sticky. A fault of the resumed kernel is answered (sticky)."""
        t = self.threads.current()
        s = self._stream(h, t)
        caps.check_stream_sync(self, s, t, "cuStreamSynchronize")
        if self.scheduler.holds:
            self.scheduler.wait_idle((s,))
            self.scheduler.settle([s, *self.scheduler.partners(s)] if s.is_legacy else [s])
        if s.is_legacy:
            self.scheduler.wait_idle(self._ctx_streams(s.ctx))
            self.scheduler.drain()
        else:
            self.scheduler.wait_idle((s,))
            self.scheduler.stream_drain(s)

    @entry
    def stream_get_ctx(self, h: int) -> int:
        """cuStreamGetCtx."""
        return self._stream(h).ctx.handle

    @entry
    def stream_get_ctx_v2(self, h: int) -> tuple[int, int]:
        """cuStreamGetCtx_v2: ``(context, green context)``; no green contexts are simulated, so the second is
        always NULL (0), as for a stream of a plain context."""
        return self._stream(h).ctx.handle, 0

    @entry
    def stream_get_id(self, h: int) -> int:
        """cuStreamGetId (legacy stream: 0)."""
        return self._stream(h).stream_id

    @entry
    def stream_get_flags(self, h: int) -> int:
        """cuStreamGetFlags."""
        return self._stream(h).flags

    @entry
    def stream_get_priority(self, h: int) -> int:
        """cuStreamGetPriority."""
        return self._stream(h).priority

    @entry
    def stream_wait_event(self, h: int, hevent: int, flags: int) -> None:
        """cuStreamWaitEvent: spec 4.1 rows in order (fork, join, merge, isolation...)."""
        t = self.threads.current()
        s = self._stream(h, t)
        ev = self.handles.event(hevent)
        if flags not in (0, 1):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuStreamWaitEvent flags {flags} are not 0 or CU_EVENT_WAIT_EXTERNAL (1) (spec 4.1 "
                              "row 1)")
        kind = capq.OPS["wait_event_external" if flags == 1 else "wait_event"]
        capq.enqueue(self, s, capq.Op(kind, "cuStreamWaitEvent", nd.EventParams(ev), None))

    @entry
    def stream_add_callback(self, h: int, callback: Any, user_data: Any, flags: int) -> None:
        """cuStreamAddCallback. Errors: 1 flags != 0; 801 on a capturing stream (invalidates, spec 3.8) [I]."""
        s = self._stream(h)
        if flags != 0:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, "cuStreamAddCallback flags must be 0")
        if not callback:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, "cuStreamAddCallback: the callback is NULL")
        self.scheduler.check_host_fn(callback, "cuStreamAddCallback: the callback")

        def run() -> str:
            if isinstance(callback, int):  # CUstreamCallback: void (*)(CUstream, CUresult, void *userData)
                self.scheduler.call_host_fn(callback, user_data, (s.handle, 0))
            return ""
        capq.enqueue(self, s, capq.Op(capq.OPS["callback"], "cuStreamAddCallback", {"fn": callback}, run))

    @entry
    def stream_attach_mem_async(self, h: int, dptr: int, length: int, flags: int) -> None:
        """cuStreamAttachMemAsync. Errors: 1 ``flags`` other than 0 or one of CU_MEM_ATTACH_GLOBAL (1), HOST (2),
        SINGLE (4); 801 on a capturing stream (invalidates, spec 3.8) [I].

        Fidelity: ``flags`` 0 is accepted (as the default attachment) because the spec's case C-075 calls
        ``cuStreamAttachMemAsync(s, managed, 0, 0)`` and expects the capture rule's 801 [I]."""
        s = self._stream(h)
        if flags not in (0, 1, 2, 4):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuStreamAttachMemAsync flags {flags} must be one of CU_MEM_ATTACH_GLOBAL (1), "
                              "CU_MEM_ATTACH_HOST (2), CU_MEM_ATTACH_SINGLE (4)")
        capq.enqueue(self, s, capq.Op(capq.OPS["attach_mem"], "cuStreamAttachMemAsync", {"dptr": dptr}, None))

    # ------------------------------------------------------------------ capture control
    @entry
    def stream_begin_capture(self, h: int, mode: int) -> None:
        """cuStreamBeginCapture: spec 3.1 (900 legacy, 1 mode, 401 already capturing, 900 CIG)."""
        t = self.threads.current()
        s = self._stream(h, t)
        cap.begin(self, s, int(mode), t)

    @entry
    def stream_begin_capture_to_graph(self, h: int, hgraph: int, deps: list[int], eds: EdgeDataArg,
                                      mode: int) -> None:
        """cuStreamBeginCaptureToGraph: spec 3.2. ``deps``/``eds`` are already cut to numDependencies."""
        t = self.threads.current()
        s = self._stream(h, t)
        cap.check_begin_stream(s, int(mode), "cuStreamBeginCaptureToGraph")
        g = self.handles.graph(hgraph)
        nodes = [self.handles.node_or_none(d) for d in deps]
        cap.begin(self, s, int(mode), t, graph=g, deps=nodes, eds=eds)

    @entry
    def stream_end_capture(self, h: int) -> int:
        """cuStreamEndCapture: spec 3.3. Returns the graph handle."""
        t = self.threads.current()
        s = self._stream(h, t)
        return cap.end(self, s, t).handle

    @entry
    def stream_is_capturing(self, h: int) -> int:
        """cuStreamIsCapturing: 0 NONE, 1 ACTIVE, 2 INVALIDATED; 906 on the legacy stream under a blocking
        capture, without invalidating (spec 3.4)."""
        s = self._stream(h)
        cap.check_legacy_use(self, s, "cuStreamIsCapturing", invalidating=False)
        return cap.status_of(s)

    @entry
    def stream_get_capture_info(self, h: int,
                                edge_data: bool = True) -> tuple[int, int, int, list[int], list[EdgeData], int]:
        """cuStreamGetCaptureInfo: ``(status, id, graph, deps, edge_data, n)`` (spec 3.5).

        ``edge_data=False`` is the v2 ABI (deps asked for without edge data): 402 LOSSY_QUERY when a
        current dependency has non-zero edge data (spec 3.5, C-110).
        """
        return cap.capture_info(self, self._stream(h), edge_data)

    @entry
    def stream_update_capture_dependencies(self, h: int, deps: list[int], eds: EdgeDataArg,
                                           flags: int) -> None:
        """cuStreamUpdateCaptureDependencies: spec 3.6 (after the face checked counts)."""
        s = self._stream(h)
        cap.update_deps(self, s, [self.handles.node_or_none(d) for d in deps], eds, int(flags))

    @entry
    def thread_exchange_stream_capture_mode(self, mode: int) -> int:
        """cuThreadExchangeStreamCaptureMode: set this thread's mode, return the old one (spec 3.7)."""
        cap._check_mode(int(mode))
        t = self.threads.current()
        old, t.mode = t.mode, int(mode)
        return old

    def capture_info(self, h: int) -> dict[str, Any] | None:
        """A snapshot of the capture a stream belongs to (for tests and explanations), or None."""
        with self._lock:
            s = self._stream(h)
            seq = s.capture
            if seq is None:
                return None
            return {"id": seq.id, "status": cap.STATUS_NAMES[seq.status], "mode": cap.MODE_NAMES[seq.mode],
                    "origin": seq.origin.handle, "begin_thread": seq.begin_thread_name,
                    "members": [m.handle for m in seq.members], "graph": seq.graph.handle}

    @entry
    def launch_host_func(self, h: int, fn: Any, user_data: Any, sync_mode: int | None = None) -> None:
        """cuLaunchHostFunc / cuLaunchHostFunc_v2: a HOST node during capture (spec 3.9)."""
        s = self._stream(h)
        if sync_mode is not None and sync_mode not in (0, 1):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"syncMode {sync_mode} is not a CUhostTaskSyncMode (0, 1) (spec 3.9) [inferred]")
        if not fn:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, "the host function pointer is NULL")
        self.scheduler.check_host_fn(fn, "cuLaunchHostFunc: the host function")
        params = nd.HostParams(fn, user_data, sync_mode or 0)

        def run() -> str:
            self.scheduler.call_host_fn(fn, user_data)
            return ""
        capq.enqueue(self, s, capq.Op(capq.OPS["host"], "cuLaunchHostFunc", params, run))

    # -- stream work that makes BATCH_MEM_OP and EXT_SEMAS nodes during capture (spec 3.8) --------
    @entry
    def stream_batch_mem_op(self, h: int, ops: list[MemOp], flags: int = 0, call: str = "cuStreamBatchMemOp") -> None:
        """cuStreamBatchMemOp, cuStreamWaitValue32/64, cuStreamWriteValue32/64.

        Args: ``ops``: ``(CUstreamBatchMemOpType, device address, value, flags)`` tuples (fewer than 256);
        ``flags`` must be 0. During capture: a BATCH_MEM_OP node (spec 3.8; [D] for cuStreamBatchMemOp,
        [I] for the WaitValue/WriteValue calls). Otherwise it runs in stream order: writes store their
        value; a wait evaluates its condition and the launch log says whether it holds (the simulator
        never blocks).
        Errors: 1 INVALID_VALUE bad operation, address, alignment, value or flags; 801 on a CIG stream for
        waits and batches (spec 8.3); stream capture rules (901, 906).
        """
        s = self._stream(h)
        checked, ctx = check_mem_ops(self.memory, ops, flags, lambda: self.threads.current().current, call)
        params = nd.BatchMemOpParams(checked, flags, ctx)
        kind = "batch_mem_op" if call == "cuStreamBatchMemOp" else (
            "wait_value" if "Wait" in call else "write_value")
        op = capq.Op(capq.OPS[kind], call, params, lambda: nd.run_mem_ops(self.memory, params.ops))
        capq.enqueue(self, s, op)

    @entry
    def stream_ext_semaphores(self, h: int, sems: list[int], values: list[SemValue],
                              wait: bool) -> None:
        """cuSignalExternalSemaphoresAsync / cuWaitExternalSemaphoresAsync.

        During capture: an EXT_SEMAS_SIGNAL (8) / EXT_SEMAS_WAIT (9) node (spec 3.8). Otherwise a
        no-op in stream order, noted in the launch log.
        Fidelity: external semaphores cannot be imported in the simulator (cuImportExternalSemaphore is
        not simulated), so handles are not checked beyond NULL.
        Errors: 400 INVALID_HANDLE a NULL semaphore handle or no semaphores; stream capture rules.
        """
        s = self._stream(h)
        if not sems or any(int(x) == 0 for x in sems):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE,
                              "a NULL external semaphore handle (or numExtSems 0)")
        params = nd.ExtSemParams(tuple(int(x) for x in sems), tuple(tuple(v) for v in values))
        call = "cuWaitExternalSemaphoresAsync" if wait else "cuSignalExternalSemaphoresAsync"
        op = capq.Op(capq.OPS["ext_wait" if wait else "ext_signal"], call, params,
                    lambda: f"no-op: external semaphores are not simulated ({len(params.sems)} semaphore(s))")
        capq.enqueue(self, s, op)
