"""The entry table's rows of streams and stream capture (the rules: :mod:`simcuda._core.capture.capture_rules`).

Each tuple is one run of :data:`simcuda._core.api.ROWS`, which concatenates the runs of every
``*_rows`` module in the tuple face's order; the forms of a row are described in :mod:`simcuda._core.rows`.
"""
from __future__ import annotations

from ..capture.cig_entries import Cig
from ..rows import Api, array, call, hand, kind, read
from .stream_entries import Streams

#: streams and stream capture
STREAMS: tuple[Api, ...] = (
    Api("cuStreamCreate", call(Streams.stream_create, "Flags", out="phStream"),
        """Create a stream. Args: ``Flags``: ``CU_STREAM_DEFAULT`` (0, blocking) or ``CU_STREAM_NON_BLOCKING`` (1).

Errors: INVALID_CONTEXT (no current context); INVALID_VALUE other flags. Not an unsafe call (spec 5.2)."""),
    Api("cuStreamCreateWithPriority", call(Streams.stream_create, "flags", "priority", out="phStream"),
        """Create a stream with a priority, clamped to the device range ``cuCtxGetStreamPriorityRange`` reports
([-5, 0] on the default simulated device). Errors as ``cuStreamCreate``."""),
    Api("cuStreamDestroy", call(Streams.stream_destroy, "hStream"),
        """Destroy a stream.

Mirrors ``cuda.bindings.driver.cuStreamDestroy(hStream)``; returns ``(CUresult,)``.

Fidelity: during a capture (spec 2.1, 2.2, C-153, C-153b, C-154): destroying the origin terminates
the capture and discards its graph [I]; destroying a member that is not the origin succeeds and
leaves the capture's status as it was: the stream leaves the sequence and the nodes it captured
stay in the graph [O: cuda.core's GraphBuilder.join]. Work of that member that was never joined
still makes the end UNJOINED (904) [I, spec 4.4].

Errors: INVALID_HANDLE (garbage); CONTEXT_IS_DESTROYED (destroyed); INVALID_VALUE for the
legacy/per-thread handles."""),
    Api("cuStreamQuery", call(Streams.stream_query, "hStream"),
        """``(CUDA_SUCCESS,)`` when the stream's work is done, ``(CUDA_ERROR_NOT_READY,)`` while pending
(``progression="manual"``). Capture rules: 906 on the legacy stream under a blocking capture;
900 on a capturing stream in every mode (invalidates; 901 when already invalidated); 900 as a
potentially unsafe call on another stream (spec 6, 5.3, 5.2)."""),
    Api("cuStreamSynchronize", call(Streams.stream_synchronize, "hStream"),
        """Wait for the stream's work (runs pending work). Capture rules as ``cuStreamQuery`` (spec 6, 5.3, 5.2)."""),
    Api("cuStreamGetCtx", call(Streams.stream_get_ctx, "hStream", out="pctx"),
        """The stream's context. Errors: INVALID_CONTEXT (default-stream handle, no context), 400, 709."""),
    Api("cuStreamGetCtx_v2", call(Streams.stream_get_ctx_v2, "hStream", out=("pCtx", "pGreenCtx")),
        """The stream's context and its green context; green contexts are not simulated, so the second is
always NULL. Errors: as ``cuStreamGetCtx``."""),
    Api("cuStreamGetId", call(Streams.stream_get_id, "hStream", out="streamId"),
        """The stream's unique id (``int``). Errors: preamble checks (spec 3)."""),
    Api("cuStreamGetFlags", call(Streams.stream_get_flags, "hStream", out="flags"),
        """The stream's creation flags (``int``). Errors: preamble checks (spec 3)."""),
    Api("cuStreamGetPriority", call(Streams.stream_get_priority, "hStream", out="priority"),
        """The stream's priority (``int``). Errors: preamble checks (spec 3)."""),
    Api("cuStreamWaitEvent", hand(call(Streams.stream_wait_event, "hStream", "hEvent", "Flags")),
        """Make ``hStream`` wait for ``hEvent``: fork, join, merge, isolation... (spec 4.1 rows in order).

Args: ``Flags``: 0 or ``CU_EVENT_WAIT_EXTERNAL`` (1; inside a capture adds a WAIT_EVENT node).
Errors: INVALID_VALUE bad flags, EXTERNAL outside capture, idle stream on an invalidated capture's
event; INVALID_HANDLE bad event; 906 legacy stream; 902 MERGE (both invalidated); 905 ISOLATION
(invalidates); 901 on an invalidated capture."""),
    Api("cuStreamAddCallback", hand(call(Streams.stream_add_callback, "hStream", "callback", "userData", "flags")),
        """Enqueue a ``CUstreamCallback`` (``CUstreamCallback`` or ``int`` address; a Python callable raises
``TypeError: an integer is required``). ``userData``: None, int address or buffer (passed as address).

The callback is called through ctypes as ``void (*)(CUstream, CUresult, void*)`` when the work runs.
Errors: INVALID_VALUE flags != 0; NOT_SUPPORTED (801) on a capturing stream, invalidating it, and on
a CIG stream (spec 3.8, 8.3) [I]."""),
    Api("cuStreamAttachMemAsync", call(Streams.stream_attach_mem_async, "hStream", "dptr", "length", "flags"),
        """Attach managed memory to a stream (bookkeeping only). Errors: NOT_SUPPORTED (801) on a capturing
stream, invalidating it (spec 3.8) [I]."""),
    Api("cuStreamBeginCapture", call(Streams.stream_begin_capture, "hStream", "mode"),
        """Begin capturing ``hStream`` into a new graph (spec 3.1).

Args: ``mode``: ``CUstreamCaptureMode`` (not range-checked by the wrapper: the driver answers).
Errors, in order: 900 legacy stream (or 0 in legacy mode); INVALID_VALUE mode not 0-2;
ILLEGAL_STATE (401) stream already in a capture; 900 stream in CIG capture."""),
    Api("cuStreamBeginCaptureToGraph",
        hand(call(Streams.stream_begin_capture_to_graph, "hStream", "hGraph", array("dependencies", "numDependencies"),
                  array("dependencyData", "numDependencies"), "mode")),
        """Begin capturing into an existing graph, after ``dependencies`` (spec 3.2).

Args: ``dependencies``: list/tuple of ``CUgraphNode`` or None; ``dependencyData``: list of
``CUgraphEdgeData`` or None (None or ``[]`` = all zero; a shorter non-empty list is INVALID_VALUE, no
state change [I]); ``numDependencies`` > ``len(dependencies)`` raises ``RuntimeError: List is too
small: 1 < 3`` as in the real wrapper.
Errors: as ``cuStreamBeginCapture``, plus INVALID_VALUE bad graph, a dependency outside ``hGraph``,
bad edge data; 401 graph already a capture target. ``cuStreamEndCapture`` returns ``hGraph`` itself."""),
    Api("cuStreamEndCapture", call(Streams.stream_end_capture, "hStream", out="phGraph"),
        """End the capture begun on ``hStream`` and return its graph (spec 3.3).

Errors, in order: 401 legacy stream or not capturing; 903 UNMATCHED on a forked member (invalidates);
908 WRONG_THREAD for a non-RELAXED capture (invalidates) [I]; 901 INVALIDATED (capture ends, no
graph); 904 UNJOINED (capture ends, no graph) [I]. The graph slot is ``None`` on every error."""),
    Api("cuStreamIsCapturing", call(Streams.stream_is_capturing, "hStream", out="captureStatus"),
        """The stream's ``CUstreamCaptureStatus`` (NONE, ACTIVE, INVALIDATED; spec 3.4).

Errors: 906 on the legacy stream while a blocking stream of its context captures (not invalidating)."""),
    Api("cuStreamGetCaptureInfo", hand(Streams.stream_get_capture_info),
        """Capture status, id, graph, current dependencies with edge data, and their count (spec 3.5).

Returns ``(res, CUstreamCaptureStatus, cuuint64_t id, CUgraph, list[CUgraphNode],
list[CUgraphEdgeData], int)``. The id is a ``cuuint64_t``, which has no value equality: compare
``int(id)`` (spec 11.1). When the status is not ACTIVE: id 0, ``CUgraph(0)``, empty lists, 0 [I].
Errors: 906 on the legacy stream under a blocking capture (not invalidating).""", decoder=kind("capture_info", True)),
    Api("cuStreamUpdateCaptureDependencies",
        hand(call(Streams.stream_update_capture_dependencies, "hStream", array("dependencies", "numDependencies"),
                  array("dependencyData", "numDependencies"), "flags")),
        """Add to or replace the stream's capture dependencies (spec 3.6).

Args: ``flags``: ``CU_STREAM_ADD_CAPTURE_DEPENDENCIES`` (0) or ``CU_STREAM_SET_CAPTURE_DEPENDENCIES`` (1).
The wrapper does not check ``numDependencies`` against the list: entries past the end reach the
driver as invalid handles, so a larger count is INVALID_VALUE (row 5) [I]; None/``[]`` edge data
is all zero; a shorter non-empty edge-data list is INVALID_VALUE [I].
Errors, in order: 401 not capturing; 901 invalidated [I]; INVALID_VALUE flags, NULL/foreign
dependency, bad edge data. Failures do not invalidate the capture."""),
    Api("cuThreadExchangeStreamCaptureMode", hand(call(Streams.thread_exchange_stream_capture_mode, read("mode"),
                                                       out="mode")),
        """Set this thread's capture interaction mode and return the previous one (spec 3.7).

Errors: INVALID_VALUE for a mode outside 0-2 (the mode is unchanged)."""),
    Api("cuStreamBeginCaptureToCig", hand(Cig.stream_begin_capture_to_cig),
        """Begin recording the stream's kernels and copies into a graphics command list (spec 8.2).

Args: ``streamCigCaptureParams``: a ``CUstreamCigCaptureParams`` whose ``streamCigParams`` is
``[CUstreamCigParam]``; ``None`` or an empty list means NULL.
Errors, in order: INVALID_VALUE NULL params; INVALID_VALUE legacy stream; INVALID_CONTEXT non-CIG
context; NOT_SUPPORTED device lacks CIG streams; INVALID_VALUE data type mismatch [I]; INVALID_VALUE
already in CIG or graph capture.""", decoder=kind("stream_begin_capture_to_cig")),
    Api("cuStreamEndCaptureToCig", call(Cig.stream_end_capture_to_cig, "hStream"),
        """End a CIG capture (spec 8.4). Errors: INVALID_VALUE not CIG-capturing; 908 from another thread
(the CIG capture goes on) unless ``Options(cig_end_any_thread=True)``."""),
)
