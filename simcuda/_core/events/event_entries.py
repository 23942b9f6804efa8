"""Events: record, wait, query, timing (spec 2.4, 4.1, 4.2, 5.3)."""
from __future__ import annotations

from ..capture import capture_enqueue as capq
from ..capture import capture_sync as caps
from ..errors import CUresult, DriverError
from ..graphs import nodes as nd
from ..objects import EMPTY, RECORDED, Event
from ..state import DriverState, entry


class Events(DriverState):
    """Events: record, wait, query, timing of the simulated driver. Entries: ``cuEvent*``."""
    # ------------------------------------------------------------------ events
    @entry
    def event_create(self, flags: int) -> int:
        """cuEventCreate. Errors: 201 no context; 1 unknown flag bits."""
        ctx = self.threads.ctx_current()
        if flags & ~0x7:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"event flags 0x{flags:x} have bits outside CUevent_flags")
        e = Event(0, ctx, flags)
        e.handle = self.handles.add(e)
        return e.handle

    @entry
    def event_destroy(self, h: int) -> None:
        """cuEventDestroy. Errors: 400. Destroying a captured event leaves the capture graph as it is."""
        e = self.handles.event(h)
        capq._uncapture_event(e)
        e.destroyed = True

    @entry
    def event_record(self, hevent: int, h: int, flags: int = 0, call: str = "cuEventRecord") -> None:
        """cuEventRecord / cuEventRecordWithFlags: spec 4.2 rows in order."""
        s = self._stream(h)
        e = self.handles.event(hevent)
        if e.ctx is not s.ctx:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE,
                              f"{call}: {e.label()} belongs to context 0x{e.ctx.handle:x} but {s.label()} to context "
                              f"0x{s.ctx.handle:x} (spec 4.2 row 1)")
        if flags not in (0, 1):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: flags {flags} are not 0 or CU_EVENT_RECORD_EXTERNAL (1) (spec 4.2 row 2)")
        kind = capq.OPS["event_record_external" if flags == 1 else "event_record"]
        capq.enqueue(self, s, capq.Op(kind, call, nd.EventParams(e), None))

    @entry
    def event_query(self, h: int) -> None:
        """cuEventQuery: 907 for a captured event (invalidates), 900 by spec 5.2, 600 NOT_READY when pending.

        A record waiting behind an in-flight kernel (P-74) resumes that kernel for one bounded slice first."""
        e = self.handles.event(h)
        caps.check_event_host_wait(self, e, self.threads.current(), "cuEventQuery")
        if e.state == RECORDED and e.pending_on is not None:
            self.scheduler.query_slice(e.pending_on)
        if e.state == RECORDED and e.pending_on is not None:
            raise DriverError(CUresult.CUDA_ERROR_NOT_READY, f"{e.label()} has not completed yet (the work before it "
                                                             "is queued, under manual progression, or waits behind "
                                                             "user code or an in-flight kernel, P-74)")

    @entry
    def event_synchronize(self, h: int) -> None:
        """cuEventSynchronize: as cuEventQuery, then runs the work before the event: an in-flight kernel it
        waits for (P-74) is resumed until it ends, the lock released (see ``stream_synchronize``)."""
        e = self.handles.event(h)
        caps.check_event_host_wait(self, e, self.threads.current(), "cuEventSynchronize")
        if e.state == RECORDED and e.pending_on is not None and self.scheduler.holds:
            self.scheduler.settle_event(e)
        if e.state == RECORDED and e.pending_on is not None:
            self.scheduler.wait_idle((e.pending_on,))
        if e.state == RECORDED and e.pending_on is not None:
            self.scheduler.drain(e.pending_ticket)

    @entry
    def event_elapsed_time(self, h0: int, h1: int) -> float:
        """cuEventElapsedTime: milliseconds of simulated time between two completed events.

        Simulated time (spec 16, 2.4, 9) [I]: the clock advances by ``graph.TICK_MS`` (0.001 ms) for every
        operation that runs: each eager stream operation except event records and the graph launch itself,
        and each node a replay runs (a child graph's nodes one by one; EVENT_RECORD nodes do not tick). An
        event's time is the clock when its record runs, so the result is ``0.001 * (operations run between
        the two records)``: positive around a replay that ran work, 0.0 when nothing ran between them, and
        negative when ``h1`` was recorded first.
        Returns: a ``float`` (milliseconds).
        Errors: 400 never-recorded event or DISABLE_TIMING; 907 captured event (invalidates, spec 5.3) [I];
        600 NOT_READY when either is pending.
        """
        e0, e1 = self.handles.event(h0), self.handles.event(h1)
        for e in (e0, e1):
            if e.state == EMPTY:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE, f"{e.label()} was never recorded")
        caps.check_elapsed_time_events((e0, e1))
        for e in (e0, e1):
            if e.flags & 2:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE,
                                  f"{e.label()} was created with CU_EVENT_DISABLE_TIMING")
            if e.time_ms is None:
                raise DriverError(CUresult.CUDA_ERROR_NOT_READY, f"{e.label()} has not completed yet")
        t0, t1 = e0.time_ms, e1.time_ms
        assert t0 is not None and t1 is not None  # checked just above
        return float(t1 - t0)
