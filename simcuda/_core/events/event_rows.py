"""The entry table's rows of events.

Each tuple is one run of :data:`simcuda._core.api.ROWS`, which concatenates the runs of every
``*_rows`` module in the tuple face's order; the forms of a row are described in :mod:`simcuda._core.rows`.
"""
from __future__ import annotations

from ..rows import Api, call, hand, lit
from .event_entries import Events

#: events
EVENTS: tuple[Api, ...] = (
    Api("cuEventCreate", call(Events.event_create, "Flags", out="phEvent"),
        """Create an event. Args: ``CUevent_flags`` bits. Errors: INVALID_CONTEXT; INVALID_VALUE unknown bits."""),
    Api("cuEventDestroy", call(Events.event_destroy, "hEvent"),
        """Destroy an event (a captured event's nodes stay in the graph). Errors: INVALID_HANDLE."""),
    Api("cuEventRecord", hand(call(Events.event_record, "hEvent", "hStream")),
        """Record ``hEvent`` on ``hStream`` (spec 4.2): on a capturing stream the event captures the stream's
current dependencies (no node); otherwise it marks the work so far.

Errors, in order: INVALID_HANDLE bad event or other context; 906 legacy stream under a blocking
capture (invalidating); 901 invalidated capture."""),
    Api("cuEventRecordWithFlags", call(Events.event_record, "hEvent", "hStream", "flags",
                                       lit("cuEventRecordWithFlags")),
        """``cuEventRecord`` with ``CUevent_record_flags``: ``CU_EVENT_RECORD_EXTERNAL`` (1) adds an
EVENT_RECORD node during capture and is INVALID_VALUE outside capture (spec 4.2). Errors as
``cuEventRecord`` plus INVALID_VALUE flags not 0/1."""),
    Api("cuEventQuery", call(Events.event_query, "hEvent"),
        """``(CUDA_SUCCESS,)`` when the event completed, ``(CUDA_ERROR_NOT_READY,)`` while pending.

Errors: INVALID_HANDLE; CAPTURED_EVENT (907) for an event recorded in an active capture
(invalidates it); 900 for a RECORDED event during a restricting capture (spec 5.2, 5.3)."""),
    Api("cuEventSynchronize", call(Events.event_synchronize, "hEvent"),
        """Wait for an event (runs the work before it). Errors as ``cuEventQuery`` (without NOT_READY)."""),
    Api("cuEventElapsedTime", call(Events.event_elapsed_time, "hStart", "hEnd", out="pMilliseconds"),
        """Milliseconds (``float``) of simulated time between two completed events.

Mirrors ``cuda.bindings.driver.cuEventElapsedTime(hStart, hEnd)``; returns ``(CUresult, float)``.

Fidelity (spec 16) [I]: the simulated clock advances 0.001 ms for every operation that runs (each
eager stream operation, each node a graph replay runs, a child graph's nodes one by one; event
records and the launch itself do not tick), and an event's time is the clock when its record runs
(an EVENT_RECORD node when the replay reaches it). Around a replay of N nodes: N * 0.001 ms; with
nothing between the records: 0.0.

Errors: INVALID_HANDLE never recorded or DISABLE_TIMING; 907 captured event (invalidates) [I];
NOT_READY when pending."""),
)
