"""The capture rules of calls that wait for work or read its timing (spec 5.3: forbidden in every mode), and
of the frees and context calls a capture restricts: stream and event synchronisation, elapsed time, context
synchronisation and context events, a stream-ordered free of capture memory.

See :mod:`simcuda._core.capture.capture_rules` for capture sequences and invalidation.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..errors import CUresult
from ..graphs.graph_model import Node
from ..objects import CAPTURE_BOUND, CAPTURED, RECORDED
from .capture_rules import CaptureHost, CaptureSequence, check_legacy_use, check_unsafe, err, invalidate, refuse_use

if TYPE_CHECKING:
    from ..objects import Context, Event, Stream, ThreadState


    # row 11: never recorded, or CAPTURE_BOUND by a capture that has ended (spec 17) [I]: nothing to wait for


# -- 5.3: calls forbidden in every mode ------------------------------------------------------------
def check_stream_sync(drv: CaptureHost, stream: Stream, thread: ThreadState, call: str) -> None:
    """cuStreamSynchronize / cuStreamQuery (spec 6, 5.3, 5.2 in that order)."""
    check_legacy_use(drv, stream, call)
    if stream.cig is not None and call.startswith("cuStreamSynchronize"):
        raise err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                  f"{call} is not allowed on {stream.label()}, which is in CIG capture (spec 8.3)")
    seq = stream.capture
    if seq is not None:
        refuse_use(seq, call, stream, "spec 5.3 [inferred]")
        seq_was = seq.label()  # the status before this call, for the why
        eff = invalidate(seq, call)
        raise err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                  f"{call} on {stream.label()}, a stream of {seq_was}: a capturing stream cannot be synchronised or "
                  f"queried in any mode, RELAXED included (spec 5.3); {eff}. Synchronise after the capture ends "
                  "(and the graph has been launched), or capture on a stream nothing waits on")
    check_unsafe(drv, thread, call)


def check_event_host_wait(drv: CaptureHost, event: Event, thread: ThreadState, call: str) -> None:
    """cuEventQuery / cuEventSynchronize (spec 5.3 row 907, 5.2); INVALID_VALUE on a CAPTURE_BOUND event
    (spec 17: [O] for the synchronize, [I] for the query)."""
    _refuse_capture_bound(event, call)
    if event.state == CAPTURED:
        seq = event.capture
        assert seq is not None  # a CAPTURED event names its capture
        seq_was = seq.label()  # the status before this call, for the why
        eff = invalidate(seq, call)
        raise err(CUresult.CUDA_ERROR_CAPTURED_EVENT, f"{call}: {event.label()} was last recorded in {seq_was}; "
                                                       "such an event cannot be queried or waited on by the host in "
                                                       f"any mode (spec 5.3); {eff}. Query or synchronise it once "
                                                       "the capture has ended and its graph has been launched, or "
                                                       "record a separate event outside the capture for the host")
    if event.state == RECORDED:
        check_unsafe(drv, thread, call)


def _refuse_capture_bound(event: Event, call: str) -> None:
    """INVALID_VALUE for an event bound to a capture that has ended (spec 17); nothing otherwise."""
    if event.state == CAPTURE_BOUND:
        seq = event.capture
        was = seq.label() if seq is not None else "a capture"
        raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: {event.label()} was last recorded in {was}, which "
                                                      "has ended; the event stays bound to that capture's graph "
                                                      "(spec 17) until a record outside any capture overwrites it. "
                                                      "Record a separate event around cuGraphLaunch for the host")


def check_elapsed_time_events(events: Iterable[Event]) -> None:
    """``cuEventElapsedTime`` with an event recorded in a capture: 907, invalidating it (spec 5.3) [I]; one
    bound to a capture that has ended: INVALID_VALUE (spec 17) [I].

    Checked after the documented INVALID_HANDLE for a never-recorded event (the caller's job).
    """
    for e in events:
        _refuse_capture_bound(e, "cuEventElapsedTime")
        if e.state == CAPTURED:
            seq = e.capture
            assert seq is not None  # a CAPTURED event names its capture
            seq_was = seq.label()  # the status before this call, for the why
            eff = invalidate(seq, "cuEventElapsedTime")
            raise err(CUresult.CUDA_ERROR_CAPTURED_EVENT, f"cuEventElapsedTime: {e.label()} was last recorded in "
                                                           f"{seq_was}; its time is not known to the host (spec 5.3) "
                                                           f"[inferred]; {eff}. Time the graph's launch instead, with "
                                                           "events recorded around cuGraphLaunch outside any capture")


def check_free_async_in_capture(seq: CaptureSequence, dptr: int, is_graph_allocation: bool,
                                free_node: Node | None = None) -> None:
    """``cuMemFreeAsync`` during capture frees only graph allocations (spec 3.8), and each only once;
    otherwise INVALID_VALUE and the capture stays ACTIVE [I: code and no invalidation, C-059]."""
    if not is_graph_allocation:
        raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"cuMemFreeAsync during {seq.label()}: 0x{dptr:x} is not a "
                                                      "graph allocation (made by cuMemAllocAsync in a capture or a "
                                                      "MEM_ALLOC node) (spec 3.8) [inferred code]; the capture is "
                                                      "unchanged")
    if free_node is not None and not free_node.destroyed:
        raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"cuMemFreeAsync during {seq.label()}: graph allocation "
                                                      f"0x{dptr:x} is already freed by node {free_node.local_id} of "
                                                      f"graph {free_node.graph.gid}; an allocation can be freed only "
                                                      "once (cuGraphAddMemFreeNode)")


def check_ctx_sync(drv: CaptureHost, ctx: Context, call: str) -> None:
    """cuCtxSynchronize and friends: 900 while any stream of ``ctx`` captures (spec 5.3)."""
    bad = drv.captures.in_ctx(ctx)
    if bad:
        labels = "; ".join(s.label() for s in bad)
        effects = "; ".join(invalidate(s, call) for s in bad)
        raise err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                  f"{call}: context 0x{ctx.handle:x} has streams in {labels}"
                  + f"; a context holding a capturing stream cannot be synchronised from any thread in any mode "
                     f"(spec 5.3); {effects}. Synchronise the context after the capture ends, or synchronise the "
                     "streams that do not capture one by one")


def check_ctx_event(drv: CaptureHost, ctx: Context, event: Event, call: str, wait: bool) -> None:
    """cuCtxRecordEvent / cuCtxWaitEvent (spec 5.3)."""
    bad = drv.captures.in_ctx(ctx)
    if wait and event.state == CAPTURED and event.capture is not None and event.capture not in bad:
        bad.append(event.capture)
    if bad:
        labels = "; ".join(s.label() for s in bad)
        effects = "; ".join(invalidate(s, call) for s in bad)
        raise err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                  f"{call}: conflicts with {labels} (spec 5.3); {effects}. Record or wait on the stream itself "
                  "(cuEventRecord, cuStreamWaitEvent), which a capture turns into nodes")
