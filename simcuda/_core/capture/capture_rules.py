"""The capture rule engine: capture sequences and every rule that decides a capture call.

This module knows nothing of the faces (``cuda.bindings``-style tuples, ``_v2`` exceptions,
the runtime, oxicuda). It receives resolved core objects from :mod:`simcuda._core.facade`
(which has already made the preamble checks of spec section 3: initialisation, handles,
contexts) and either changes state or raises :class:`DriverError` with a ``why`` naming the
rule.

Theory of operation
-------------------
A *capture sequence* (spec 1) is created by ``cuStreamBeginCapture*`` on an idle stream, its
*origin*. Other streams join it as *members* by waiting on an event recorded inside it
(fork, spec 4.1 row 6). Each member stream carries a dependency set ``deps``; every captured
operation becomes a node whose incoming edges are exactly the stream's ``deps`` (spec 3.8), and
then replaces ``deps``. Events recorded on a member snapshot its ``deps`` (``CAPTURED``); a wait
on such an event merges the snapshot (join) or forks an idle stream. A violation either fails
without effect, or *invalidates* the whole sequence (5.1), which is sticky until the origin's
``cuStreamEndCapture`` terminates it. Ending checks the unjoined rule (4.4) in linear time.

Every stream operation funnels through :func:`enqueue`, which decides: run now, add a node to a
capture, record into a CIG command list, or reject. Kernels, copies and sets (synchronous ones too),
host functions, memory operations, allocation and free, event records and waits, graph launch and
upload all take that one path; how they differ is declared in the operation table :data:`OPS` (one
:class:`OpKind` per kind: its node type, what a capture, a CIG capture and an uncaptured stream do
with it), which :func:`enqueue` reads. New operations are a row of that table.

The transitions of a sequence are the table ``MACHINE`` (spec 2.1): (status, event) -> (next status,
result). The engine executes it (:func:`step`), and ``docs/capture-states.md`` is generated from that
same table by ``tools/gen_state_diagram.py``.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, cast

from ..errors import CUresult, DriverError
from ..graphs.graph_model import ZERO_ED, GraphMaker, HandleTable, Node, in_edges, is_full
from ..objects import CAPTURE_BOUND, CAPTURED

if TYPE_CHECKING:
    from ..config import Options
    from ..graphs.graph_model import Graph
    from ..logs import Counters
    from ..objects import Context, Dep, EdgeData, EdgeDataArg, Event, Stream, ThreadState


# -- statuses (CUstreamCaptureStatus values) ---------------------------------------------------
NONE, ACTIVE, INVALIDATED = 0, 1, 2
TERMINATED = 3  # internal: the sequence is over; its streams report NONE
STATUS_NAMES = {ACTIVE: "ACTIVE", INVALIDATED: "INVALIDATED", TERMINATED: "TERMINATED"}

# -- modes (CUstreamCaptureMode values) --------------------------------------------------------
GLOBAL, THREAD_LOCAL, RELAXED = 0, 1, 2
MODE_NAMES = {GLOBAL: "GLOBAL", THREAD_LOCAL: "THREAD_LOCAL", RELAXED: "RELAXED"}
LIVE = (ACTIVE, INVALIDATED)  # begun and not yet ended (spec 5.2)

# -- the state machine of a capture sequence (spec 2.1) ----------------------------------------
# What can happen to a sequence (the events of the machine).
BEGIN = "begin"  # cuStreamBeginCapture / cuStreamBeginCaptureToGraph on an idle stream
USE = "use"  # a stream op, event record or wait, dependency update on a member stream
VIOLATE = "violate"  # an invalidating violation (5.1, 5.2, 5.3, 6)
END_ON_MEMBER = "end on member"  # cuStreamEndCapture on a member that is not the origin (3.3 row 3)
END_WRONG_THREAD = "end from wrong thread"  # cuStreamEndCapture from another thread, non-RELAXED (3.3 row 4)
END = "end"  # cuStreamEndCapture on the origin from the right thread, everything joined (3.3)
END_UNJOINED = "end unjoined"  # the same with unjoined work (4.4)
ORIGIN_DESTROYED = "origin destroyed"  # cuStreamDestroy of the origin (2.1, C-154) [I]
MEMBER_DESTROYED = "member destroyed"  # cuStreamDestroy of another member (2.2, C-153, C-153b)


class Transition(NamedTuple):
    """One row of :data:`MACHINE`: the next status, the call's result, and the row in words."""

    next: int
    code: CUresult | None  # the CUresult of the call; None: the violation's own code
    what: str


#: The capture state machine (spec 2.1), read by the engine: :func:`step` applies a row and returns
#: its code, and ``docs/capture-states.md`` is generated from this same table. A pair that is not
#: here cannot happen (a TERMINATED sequence has no streams left to act on).
_OK = CUresult.CUDA_SUCCESS
_INVALIDATED = CUresult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED  # 901
_UNMATCHED = CUresult.CUDA_ERROR_STREAM_CAPTURE_UNMATCHED  # 903
_UNJOINED = CUresult.CUDA_ERROR_STREAM_CAPTURE_UNJOINED  # 904
_WRONG_THREAD = CUresult.CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD  # 908
MACHINE: dict[tuple[int, str], Transition] = {
    (NONE, BEGIN): Transition(ACTIVE, _OK, "cuStreamBeginCapture / cuStreamBeginCaptureToGraph on an idle stream"),
    (ACTIVE, USE): Transition(ACTIVE, _OK, "stream ops, event records and joins, UpdateCaptureDependencies"),
    (ACTIVE, VIOLATE): Transition(INVALIDATED, None, "invalidating violation (5.1)"),
    (ACTIVE, END_ON_MEMBER): Transition(INVALIDATED, _UNMATCHED, "EndCapture on a member that is not the origin "
                                                                 "(3.3 row 3)"),
    (ACTIVE, END_WRONG_THREAD): Transition(INVALIDATED, _WRONG_THREAD, "EndCapture from the wrong thread, "
                                                                       "non-RELAXED (3.3 row 4)"),
    (ACTIVE, END): Transition(TERMINATED, _OK, "EndCapture(origin, right thread), all joined: the graph"),
    (ACTIVE, END_UNJOINED): Transition(TERMINATED, _UNJOINED, "EndCapture(origin, right thread), unjoined work "
                                                              "(4.4): NULL graph"),
    (ACTIVE, ORIGIN_DESTROYED): Transition(TERMINATED, _OK, "origin stream destroyed: the graph is discarded"),
    (ACTIVE, MEMBER_DESTROYED): Transition(ACTIVE, _OK, "member stream (not the origin) destroyed: it leaves the "
                                                        "sequence, its nodes stay (2.2)"),
    (INVALIDATED, USE): Transition(INVALIDATED, _INVALIDATED, "further use of a member stream"),
    (INVALIDATED, VIOLATE): Transition(INVALIDATED, None, "a further violation: still invalidated"),
    (INVALIDATED, END_ON_MEMBER): Transition(INVALIDATED, _UNMATCHED, "EndCapture on a member that is not the "
                                                                      "origin"),
    (INVALIDATED, END_WRONG_THREAD): Transition(INVALIDATED, _WRONG_THREAD, "EndCapture from the wrong thread, "
                                                                            "non-RELAXED"),
    (INVALIDATED, END): Transition(TERMINATED, _INVALIDATED, "EndCapture(origin, right thread): NULL graph"),
    (INVALIDATED, ORIGIN_DESTROYED): Transition(TERMINATED, _OK, "origin stream destroyed: the graph is discarded"),
    (INVALIDATED, MEMBER_DESTROYED): Transition(INVALIDATED, _OK, "member stream (not the origin) destroyed: it "
                                                                  "leaves the sequence (2.2)"),
}


def step(seq: CaptureSequence, event: str) -> int | None:
    """Apply the row of :data:`MACHINE` for ``seq``'s status and ``event``: set the next status and return
    the row's code (0 success, None the violation's own code, else the CUresult the call gives)."""
    row = MACHINE[(seq.status, event)]
    seq.status = row.next
    return row.code


class CaptureSequence:
    """One ``cuStreamBeginCapture*`` (spec section 1)."""

    __slots__ = ("id", "origin", "begin_thread", "begin_thread_name", "mode", "graph", "user_owned",
                 "status", "members", "captured", "removed", "ctx", "events", "invalidated_by", "departed")

    def __init__(self, sid: int, origin: Stream, thread: ThreadState, mode: int, graph: Graph,
                 user_owned: bool) -> None:
        self.id = sid
        self.origin = origin
        self.begin_thread = thread.tid
        self.begin_thread_name = thread.name
        self.mode = mode
        self.graph = graph
        self.user_owned = user_owned
        self.status = NONE  # until step(BEGIN)
        self.members = [origin]
        # local ids of the nodes created by stream operations, as runs [start, stop, start, stop, ...]
        # (they are created in increasing local id order, mostly in one run: no per-node cost)
        self.captured: list[int] = []
        self.removed: set[int] = set()  # id() of nodes dropped with SET (spec 4.4)
        self.ctx = origin.ctx
        self.events: list[Event] = []  # events currently CAPTURED by this sequence
        self.invalidated_by = ""
        # members destroyed during the capture: (label, deps at destroy); 4.4 (a) still counts them (2.2) [I]
        self.departed: list[tuple[str, list[Dep]]] = []

    def is_captured(self, node: Any) -> bool:
        """True for a node of this capture's graph that a stream operation created (:func:`add_node`)."""
        return node.graph is self.graph and bisect_right(self.captured, node.local_id) & 1 == 1

    def label(self) -> str:
        """How ``why`` texts name the capture: id, origin, mode, begin thread and status."""
        return (f"capture {self.id} (origin {self.origin.label()}, begun {MODE_NAMES[self.mode]} on thread "
                f"{self.begin_thread_name}, {STATUS_NAMES[self.status]})")


class CaptureRegistry:
    """The captures of one driver (a service of ``DriverState``): the live sequences by id, the next id, and the
    graphs that captures returned (``Driver.graphs_from_captures``)."""

    __slots__ = ("live", "_ids", "ended_graphs", "_prune_at")

    def __init__(self) -> None:
        self.live: dict[int, CaptureSequence] = {}  # begun and not yet terminated, by id
        self._ids = 0
        self.ended_graphs: list[Graph] = []  # the graph of every capture that ended with one and is not destroyed
        self._prune_at = 64

    def ended(self, graph: Graph) -> None:
        """A capture ended with ``graph``: remember it, dropping destroyed ones once the list has doubled (issue 19
        item 1: a destroyed graph is not kept alive by this list; amortised O(1))."""
        graphs = self.ended_graphs
        graphs.append(graph)
        if len(graphs) >= self._prune_at:
            graphs[:] = [g for g in graphs if not g.destroyed]
            self._prune_at = max(64, 2 * len(graphs))

    def forget(self, graph: Graph) -> None:
        """``graph`` was destroyed: no longer among the graphs captures returned (when it is one of the latest;
        an older one goes at the next prune of :meth:`ended`)."""
        graphs = self.ended_graphs
        for i in range(len(graphs) - 1, max(-1, len(graphs) - 65), -1):
            if graphs[i] is graph:
                del graphs[i]
                return

    def open(self, origin: Stream, thread: ThreadState, mode: int, graph: Graph, user_owned: bool) -> CaptureSequence:
        """A new sequence with the next id, registered live (its status is NONE until :func:`step` of BEGIN)."""
        self._ids += 1
        seq = CaptureSequence(self._ids, origin, thread, mode, graph, user_owned)
        self.live[seq.id] = seq
        return seq

    def close(self, seq: CaptureSequence) -> None:
        """``seq`` is no longer live (it terminated)."""
        self.live.pop(seq.id, None)

    def in_ctx(self, ctx: Context) -> list[CaptureSequence]:
        """The live sequences with a member stream of context ``ctx``."""
        return [s for s in self.live.values() if any(m.ctx is ctx for m in s.members)]


class CaptureHandles(GraphMaker, HandleTable, Protocol):
    """The handle table as the rule engine uses it: graphs and nodes, and a handle for a node built in place
    (:func:`simcuda._core.graphs.graph_model.chain_node`; :class:`simcuda._core.handles.Handles` is one)."""


class ThreadLookup(Protocol):
    """The calling thread's state (:class:`simcuda._core.threads.Threads` is one)."""

    def current(self) -> ThreadState:
        """The calling thread's state."""


class CaptureHost(Protocol):
    """What the rule engine uses of a driver: its services (the enqueue path also needs the scheduler that runs
    work: :class:`simcuda._core.capture.capture_enqueue.EnqueueHost`).

    ``Driver`` satisfies it; so may a small fake (tests/core/test_engine_protocols.py).
    """

    @property
    def handles(self) -> CaptureHandles:
        """The handle table: graphs and nodes the engine makes, and handles for them."""

    @property
    def threads(self) -> ThreadLookup:
        """The calling thread's state (its capture mode, its current context)."""

    @property
    def captures(self) -> CaptureRegistry:
        """The live capture sequences, by id."""

    @property
    def options(self) -> Options:
        """The driver's options (the rules some of them relax)."""

    @property
    def counters(self) -> Counters:
        """The driver's statistics counters."""

    def discard_graph(self, g: Graph) -> None:
        """Destroy graph ``g`` of a capture that ends without one (its nodes, their allocations)."""


def err(code: int, why: str) -> DriverError:
    """The refusal with result ``code`` and the rule's ``why`` (what the rule engine raises)."""
    return DriverError(code, why)


# -- invalidation and termination (spec 5.1, 2.1) ----------------------------------------------
def invalidate(seq: CaptureSequence, reason: str) -> str:
    """Mark ``seq`` INVALIDATED (sticky: :data:`MACHINE`, VIOLATE). Returns a sentence for the caller's ``why``."""
    return _apply(seq, VIOLATE, reason)[1]


def _apply(seq: CaptureSequence, event: str, reason: str) -> tuple[int | None, str]:
    """:func:`step` for an event that may invalidate: ``(code, sentence for the why)``; the first invalidation
    remembers ``reason`` (the whys of later calls name it)."""
    was = seq.status
    code = step(seq, event)
    if was == ACTIVE and seq.status == INVALIDATED:
        seq.invalidated_by = reason
        return code, f"capture {seq.id} is now invalidated"
    return code, f"capture {seq.id} was already invalidated"


def refuse_use(seq: CaptureSequence | None, call: str, stream: Stream, cite: str) -> None:
    """A use of a member stream (:data:`MACHINE`, USE): 901 when its capture is INVALIDATED; ``cite`` is the
    spec row the caller applies."""
    if seq is None or seq.status == ACTIVE:  # the common case, without a table look-up
        return
    code = step(seq, USE)
    if code:
        raise err(code, f"{call}: {stream.label()} belongs to capture {seq.id}, which was invalidated by "
                         f"{seq.invalidated_by} ({cite}); end it on its origin to recover")


def terminate(drv: CaptureHost, seq: CaptureSequence, discard_graph: bool) -> None:
    """Clean up after ``seq`` reached TERMINATED (:func:`step`): every member back to NONE, each event it
    captured ``CAPTURE_BOUND`` (spec 17, replacing the reset to EMPTY of 2.4/13.5: it stays so until a record
    overwrites it), the internal graph discarded when ``discard_graph``."""
    for s in seq.members:
        s.capture = None
        s.deps = []
    seq.members = []
    for e in seq.events:
        if e.state == CAPTURED and e.capture is seq:
            e.state = CAPTURE_BOUND
            e.nodes = []
    seq.events = []
    seq.graph.capture_target_of = None
    drv.captures.close(seq)
    if discard_graph and not seq.user_owned:
        drv.discard_graph(seq.graph)


# -- 5.2: the "potentially unsafe" predicate ----------------------------------------------------
def prohibited(drv: CaptureHost, thread: ThreadState) -> list[CaptureSequence]:
    """Sequences that make a potentially unsafe call by ``thread`` prohibited (spec 5.2).

    Returns an empty list when the call is allowed.
    """
    if thread.mode == RELAXED:
        return []
    tid = thread.tid
    out = []
    for s in drv.captures.live.values():
        if s.begin_thread == tid:
            if s.mode != RELAXED:
                out.append(s)  # own non-relaxed captures
        elif thread.mode == GLOBAL and s.mode == GLOBAL:
            out.append(s)  # other threads' GLOBAL captures restrict a GLOBAL thread
    return out


def check_unsafe(drv: CaptureHost, thread: ThreadState, call: str) -> None:
    """Apply 5.2 to a potentially unsafe call: 900 and invalidation of the named captures.

    The ``why`` says, for each capture that forbids the call, which half of the rule applies: the calling
    thread's own non-RELAXED capture (whatever the thread's mode), or another thread's GLOBAL capture (because
    the calling thread is in GLOBAL mode), and the remedy that fits.
    """
    bad = prohibited(drv, thread)
    if not bad:
        return
    reasons = []
    for s in bad:
        if s.begin_thread == thread.tid:
            reasons.append(f"thread {thread.name} began {s.label()} itself, and a {MODE_NAMES[s.mode]} capture "
                           "forbids potentially unsafe calls on the thread that began it, in any mode but RELAXED")
        else:
            reasons.append(f"{s.label()} is a GLOBAL capture of another thread, and thread {thread.name} is in "
                           "GLOBAL mode, which every GLOBAL capture restricts")
    effects = "; ".join(invalidate(s, f"{call} on thread {thread.name}") for s in bad)
    own = any(s.begin_thread == thread.tid for s in bad)
    remedy = ("Make the call before the capture (or after it ends), or switch this thread to RELAXED with "
              "cuThreadExchangeStreamCaptureMode around the call" if own else
              "Switch this thread to RELAXED (or THREAD_LOCAL) with cuThreadExchangeStreamCaptureMode around the "
              "call, begin the other capture in THREAD_LOCAL mode, or make the call before the capture")
    raise err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
              f"{call} is a potentially unsafe call (spec 5.2): {'; '.join(reasons)}; {effects}. {remedy}")


# -- section 6: the legacy stream ----------------------------------------------------------------
def legacy_conflicts(drv: CaptureHost, ctx: Context) -> list[CaptureSequence]:
    """Live sequences with a blocking member in ``ctx`` (spec 6)."""
    out = []
    for s in drv.captures.live.values():
        for m in s.members:
            if m.ctx is ctx and m.blocking:
                out.append(s)
                break
    return out


def check_legacy_use(drv: CaptureHost, stream: Stream, call: str, invalidating: bool = True) -> None:
    """Any use of a context's legacy stream while a blocking stream of it captures: 906 (spec 6)."""
    if not stream.is_legacy:
        return
    bad = legacy_conflicts(drv, stream.ctx)
    if not bad:
        return
    labels = "; ".join(s.label() for s in bad)
    if invalidating:
        effects = "; ".join(invalidate(s, f"{call} on the legacy stream") for s in bad)
    else:
        effects = "nothing is invalidated by this status query (spec 3.4/3.5)"
    raise err(CUresult.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, f"{call} uses {stream.label()}, which synchronises "
                                                            "implicitly with every blocking stream of its context, "
                                                            f"while {labels} has a blocking member (spec 6); "
                                                            f"{effects}. Use a stream created with "
                                                            "CU_STREAM_NON_BLOCKING, or a capturing stream")


# -- 3.1 / 3.2: begin ---------------------------------------------------------------------------
def _check_mode(mode: int) -> None:
    if mode not in (GLOBAL, THREAD_LOCAL, RELAXED):
        raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"capture mode {mode} is not a CUstreamCaptureMode (0 GLOBAL, "
                                                      "1 THREAD_LOCAL, 2 RELAXED)")


def check_edge_data(eds: Sequence[EdgeData | None], what: str) -> None:
    """Edge data given to capture calls: ``to_port`` 0 and a known dependency type (spec 3.2, 3.6 row 6)."""
    for i, ed in enumerate(eds):
        if ed is None:
            raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what}[{i}] is missing: the edge-data list is shorter "
                                                          "than numDependencies, so the driver would read past its "
                                                          "end (spec 3.6) [inferred]")
        if ed[1] != 0:
            raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what}[{i}] has to_port {ed[1]}; edge data given here "
                                                          "must have to_port 0 (spec 3.2, 3.6)")
        if ed[2] not in (0, 1):
            raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what}[{i}] has unknown dependency type {ed[2]} "
                                                          "(CUgraphDependencyType is 0 or 1)")


def check_begin_stream(stream: Stream, mode: int, call: str) -> None:
    """The first rows of 3.1 / 3.2, checked before the graph handle of BeginCaptureToGraph is resolved:
    the legacy stream (900) and the mode (1)."""
    if stream.is_legacy:
        raise err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                  f"{call}: {stream.label()} can never be captured (spec 3.1 row 1); capture a stream made with "
                  "cuStreamCreate instead. Nothing was invalidated")
    _check_mode(mode)


def begin(drv: CaptureHost, stream: Stream, mode: int, thread: ThreadState, graph: Graph | None = None,
          deps: list[Node | None] | None = None, eds: EdgeDataArg | None = None) -> CaptureSequence:
    """cuStreamBeginCapture / cuStreamBeginCaptureToGraph, rows in spec order (3.1, 3.2).

    ``deps`` (ToGraph) are the resolved dependency nodes, ``None`` where a handle named no node."""
    call = "cuStreamBeginCaptureToGraph" if graph is not None else "cuStreamBeginCapture"
    check_begin_stream(stream, mode, call)
    if graph is not None:
        for i, n in enumerate(deps or ()):
            if n is None or n.destroyed or n.graph is not graph:
                raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: dependency {i} is not a node of graph "
                                                              f"{graph.gid} (NULL, destroyed, or of another graph) "
                                                              "(spec 3.2)")
        check_edge_data(eds or [], "dependencyData")
        if graph.capture_target_of is not None and graph.capture_target_of.status in LIVE:
            raise err(CUresult.CUDA_ERROR_ILLEGAL_STATE, f"{call}: graph {graph.gid} is already the target of "
                                                          f"{graph.capture_target_of.label()} (spec 3.2)")
    if stream.capture is not None:
        seq = stream.capture
        role = "origin" if seq.origin is stream else "member"
        raise err(CUresult.CUDA_ERROR_ILLEGAL_STATE, f"{call}: {stream.label()} already belongs to {seq.label()} as "
                                                      f"its {role} (spec 3.1 row 3); end that capture first. The "
                                                      "existing capture is unchanged")
    if stream.cig is not None:
        raise err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                  f"{call}: {stream.label()} is in CIG capture (spec 3.1 row 4, 8.3)")
    user_owned = graph is not None
    if graph is None:
        graph = drv.handles.new_graph(stream.ctx)
    seq = drv.captures.open(stream, thread, mode, graph, user_owned)
    step(seq, BEGIN)
    graph.capture_target_of = seq
    stream.capture = seq
    # checked above: no dependency is None, and check_edge_data refused a missing edge-data entry
    stream.deps = cast("list[Dep]", list(zip(deps, cast("EdgeDataArg", eds)))) if deps else []
    drv.counters.count("captures_begun")
    return seq


# -- 3.3: end ------------------------------------------------------------------------------------
def end(drv: CaptureHost, stream: Stream, thread: ThreadState) -> Graph:
    """cuStreamEndCapture, rows in spec order (3.3). Returns the graph."""
    if stream.is_legacy:
        raise err(CUresult.CUDA_ERROR_ILLEGAL_STATE, f"cuStreamEndCapture: {stream.label()} is never capturing "
                                                      "(spec 3.3 row 1)")
    seq = stream.capture
    if seq is None:
        raise err(CUresult.CUDA_ERROR_ILLEGAL_STATE, f"cuStreamEndCapture: {stream.label()} is not capturing (spec "
                                                      "3.3 row 2)")
    if seq.origin is not stream:
        seq_was = seq.label()  # the status before this call, for the why
        code, eff = _apply(seq, END_ON_MEMBER, "cuStreamEndCapture on a forked member")
        raise err(code or 903, f"cuStreamEndCapture: {stream.label()} is a forked member of {seq_was}, not its "
                                f"origin (spec 3.3 row 3); {eff}. End the capture on {seq.origin.label()}")
    if seq.mode != RELAXED and thread.tid != seq.begin_thread:
        seq_was = seq.label()  # the status before this call, for the why
        code, eff = _apply(seq, END_WRONG_THREAD, "cuStreamEndCapture from the wrong thread")
        raise err(code or 908, f"cuStreamEndCapture from thread {thread.name}: {seq_was} was begun in "
                                f"{MODE_NAMES[seq.mode]} mode and must be ended by its begin thread "
                                f"(spec 3.3 row 4); {eff} [inferred]; thread {seq.begin_thread_name} must still "
                                "end it")
    invalidated = seq.status == INVALIDATED
    bad = "" if invalidated else unjoined(seq)
    code = step(seq, END_UNJOINED if bad else END)  # INVALIDATED: 901; unjoined: 904; else 0
    if code:
        terminate(drv, seq, discard_graph=True)
        drv.counters.count("captures_ended")
        if invalidated:
            raise err(code, f"cuStreamEndCapture: capture {seq.id} was invalidated earlier by "
                             f"{seq.invalidated_by} (spec 3.3 row 5); it is now ended, no graph is returned, "
                             "and every member stream is back to NONE")
        raise err(code, f"cuStreamEndCapture: capture {seq.id} has unjoined work (spec 4.4): {bad}. Join every "
                         "forked stream back into the origin (record an event on it and wait on that event from "
                         "the origin) before ending. The capture is ended and no graph is returned")
    graph = seq.graph
    terminate(drv, seq, discard_graph=False)
    drv.counters.count("captures_ended")
    drv.captures.ended(graph)
    return graph


def unjoined(seq: CaptureSequence) -> str:
    """The unjoined rule of spec 4.4, in time linear in the graph. Returns '' when joined, else the reason."""
    return unjoined_culprit(seq)[0]


def unjoined_culprit(seq: CaptureSequence) -> tuple[str, Node | None]:
    """:func:`unjoined` with the node that breaks the rule: ``(reason, node)``, ``("", None)`` when joined. The
    node is the unjoined captured node (part a) or the source of the dangling half-edge (part b). Reads only.

    Part (a) also reads the deps that members destroyed during the capture had then
    (``seq.departed``, spec 2.2) [I]; part (b) reads live members only (docs/spec-proposals.md P-1).
    """
    found = _dangling_half_edge(seq)
    if found[1] is not None:
        return found
    candidates = _unjoined_candidates(seq)
    if not candidates:
        return "", None
    anc = _origin_ancestors(seq)
    for who, n in candidates:
        if id(n) not in anc:
            return (f"node {n.local_id} ({n.describe()}) captured on {who} is not an ancestor of the "
                    "origin's current work", n)
    return "", None


def _dangling_half_edge(seq: CaptureSequence) -> tuple[str, Node | None]:
    """4.4 (b): a non-full (programmatic or port) half-edge left in any member's deps, the origin's included."""
    for m in seq.members:
        for n, ed in m.deps:
            if not is_full(ed):
                return (f"{m.label()} still holds a non-full (programmatic or port {ed[0]}) half-edge from "
                        f"node {n.local_id}, which can never be dropped at the end of capture", n)
    return "", None


def _unjoined_candidates(seq: CaptureSequence) -> list[tuple[str, Node]]:
    """4.4 (a): captured, never-removed work at the tips of members other than the origin; a member destroyed
    during the capture still counts with the deps it had then (spec 2.2, C-153) [I]."""
    origin = seq.origin
    tips = [(m.label(), m.deps) for m in seq.members if m is not origin] + seq.departed
    return [(who, n) for who, deps in tips for n, _ed in deps if seq.is_captured(n) and id(n) not in seq.removed]


def _origin_ancestors(seq: CaptureSequence) -> set[int]:
    """``id()`` of the nodes the origin's deps reach through full edges, following edges removed by graph edits
    as if present (spec 4.4)."""
    removed_in: dict[int, list[Node]] = {}
    for e in seq.graph.removed_edges:
        if is_full(e.ed):
            removed_in.setdefault(id(e.dst), []).append(e.src)
    anc: set[int] = set()
    stack = [n for n, _ in seq.origin.deps]
    while stack:
        n = stack.pop()
        k = id(n)
        if k in anc:
            continue
        anc.add(k)
        stack.extend(src for src, ed in in_edges(n) if is_full(ed))
        if removed_in:
            stack.extend(removed_in.get(k, ()))
    return anc


# -- 3.2 / 3.5 / 9: what may be done with the graph of a live capture -------------------------------
#: use of a graph -> why it is refused while the graph is the target of a live capture, or None when allowed.
#: Spec 3.5: "everything is allowed except destroying the graph and removing nodes"; spec 3.2: the graph
#: cannot be instantiated until the capture ends. Uses that only read the graph (clone, a copy into a
#: child-graph node, queries) and edits that add to it stay allowed.
CAPTURE_TARGET_USES: dict[str, str | None] = {
    "read": None,  # cuGraphClone, cuGraphAddChildGraphNode (CLONE), cuGraphNodeSetParams of a GRAPH node
    "destroy": "it cannot be destroyed before the capture ends (spec 3.5, 9)",
    "remove node": "nodes cannot be removed during capture (spec 3.5)",
    "instantiate": "it cannot be instantiated before the capture ends (spec 3.2, 9) [inferred code]",
    # an exec update (whole graph, or one child-graph node) freezes the graph's current contents into an
    # exec, exactly as instantiation does, so it is refused for the same reason [inferred]
    "update from": ("an exec cannot be updated from it before the capture ends: an update freezes the graph "
                    "into an exec as instantiation does (spec 3.2) [inferred]"),
    # moving the graph into a node (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE) hands its ownership to the node,
    # which ends it as a graph of its own, as destroying it would (spec 3.5) [inferred]
    "move": "it cannot be moved into a child-graph node before the capture ends (spec 3.5) [inferred]",
}


def capture_target_refusal(graph: Graph, use: str) -> DriverError | None:
    """INVALID_VALUE for ``use`` (a key of :data:`CAPTURE_TARGET_USES`) of ``graph`` while it is the target of a
    live (ACTIVE or INVALIDATED) capture; None when the use is allowed or no capture targets the graph."""
    seq = graph.capture_target_of
    why = CAPTURE_TARGET_USES[use]
    if seq is None or why is None:
        return None
    return err(CUresult.CUDA_ERROR_INVALID_VALUE, f"graph {graph.gid} is the target of {seq.label()}; {why}")


def check_capture_target(graph: Graph, use: str) -> None:
    """Raise :func:`capture_target_refusal` when there is one."""
    e = capture_target_refusal(graph, use)
    if e is not None:
        raise e


# -- 3.4 / 3.5: status queries -------------------------------------------------------------------
def status_of(stream: Stream) -> int:
    """The ``CUstreamCaptureStatus`` a stream reports (spec 2.2): NONE, or its sequence's status."""
    seq = stream.capture
    return NONE if seq is None else seq.status


def capture_info(drv: CaptureHost, stream: Stream,
                 edge_data: bool) -> tuple[int, int, int, list[int], list[EdgeData], int]:
    """cuStreamGetCaptureInfo (spec 3.5): ``(status, id, graph handle, dep handles, edge data, count)``.

    The legacy stream while a blocking stream captures: 906, nothing invalidated (spec 3.5, 6). Not
    ACTIVE: the status and empty fields. ``edge_data=False`` (the query without edge data): 402
    LOSSY_QUERY when a current dependency has non-zero edge data, which that query would drop (C-110).
    """
    check_legacy_use(drv, stream, "cuStreamGetCaptureInfo", invalidating=False)
    seq = stream.capture
    if seq is None or seq.status != ACTIVE:
        return (status_of(stream), 0, 0, [], [], 0)
    if not edge_data:
        lossy = [n.local_id for n, ed in stream.deps if tuple(ed) != ZERO_ED]
        if lossy:
            raise err(CUresult.CUDA_ERROR_LOSSY_QUERY, f"{stream.label()} depends on node(s) {lossy} of graph "
                                                        f"{seq.graph.gid} with non-zero edge data, which a query "
                                                        "without edge data would drop (spec 3.5; use the variant "
                                                        "that returns edge data)")
    return (ACTIVE, seq.id, seq.graph.handle, [n.handle for n, _ in stream.deps], [ed for _, ed in stream.deps],
            len(stream.deps))


# -- 3.6: update dependencies --------------------------------------------------------------------
def update_deps(drv: CaptureHost, stream: Stream, nodes: list[Node | None], eds: EdgeDataArg, flags: int) -> None:
    """cuStreamUpdateCaptureDependencies after argument decoding (rows 1-8 of spec 3.6).

    ``nodes`` entries are resolved Node objects or ``None`` for a NULL/destroyed/unknown handle.
    """
    call = "cuStreamUpdateCaptureDependencies"
    if stream.is_legacy:
        raise err(CUresult.CUDA_ERROR_ILLEGAL_STATE, f"{call}: {stream.label()} is never capturing (spec 3 "
                                                      "preamble, 3.6 row 1)")
    seq = stream.capture
    if seq is None:
        raise err(CUresult.CUDA_ERROR_ILLEGAL_STATE, f"{call}: {stream.label()} is not capturing (spec 3.6 row 1)")
    refuse_use(seq, call, stream, "spec 3.6 row 2 [inferred]")
    if flags not in (0, 1):
        raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: flags {flags} is neither "
                                                      "CU_STREAM_ADD_CAPTURE_DEPENDENCIES (0) nor "
                                                      "CU_STREAM_SET_CAPTURE_DEPENDENCIES (1) (spec 3.6 row 3); the "
                                                      "capture is unchanged")
    for i, n in enumerate(nodes):
        if n is None or n.destroyed or n.graph is not seq.graph:
            raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: dependency {i} is not a node of capture "
                                                          f"{seq.id}'s graph (NULL, destroyed, or from another "
                                                          "graph) (spec 3.6 row 5); the capture is unchanged")
    check_edge_data(eds, "dependencyData")
    # below, checked above: no node is None, and check_edge_data refused a missing edge-data entry
    if flags == 0:
        have = {id(n) for n, _ in stream.deps}
        for n, ed in cast("Iterator[Dep]", zip(nodes, eds)):
            if id(n) not in have:
                stream.deps.append((n, ed))
                have.add(id(n))
    else:
        keep = {id(n) for n in nodes}
        for n, _ in stream.deps:
            if id(n) not in keep:
                seq.removed.add(id(n))
        stream.deps = cast("list[Dep]", list(zip(nodes, eds)))


def capturing_into(stream: Stream) -> CaptureSequence | None:
    """The ACTIVE sequence a stream operation on ``stream`` would add a node to, or None (an idle,
    invalidated, legacy or CIG stream: :func:`enqueue` decides those)."""
    seq = stream.capture
    if seq is None or seq.status != ACTIVE or stream.cig is not None or stream.is_legacy:
        return None
    return seq


# -- stream destruction during capture (spec 2.1, C-153/C-154) --------------------------------------
def on_stream_destroyed(drv: CaptureHost, stream: Stream) -> None:
    """cuStreamDestroy (or a context teardown) of a stream that belongs to a capture (spec 2.1, 2.2, 5.2).

    * The origin: the capture is TERMINATED and its internal graph discarded; every other member goes
      back to NONE (C-154) [I].
    * A member that is not the origin: the capture keeps its status (an ACTIVE one stays ACTIVE, an
      INVALIDATED one stays INVALIDATED); the stream leaves the sequence and the nodes it captured stay
      in the graph (C-153, C-153b) [O: cuda.core's ``GraphBuilder.join`` does this on NVIDIA hardware].
      Its dependency set at that moment is kept in ``seq.departed``, so work it captured and nobody
      joined still makes the end UNJOINED (904) by part (a) of the rule of 4.4 [I, spec 2.2]. Part (b)
      (a dangling non-full half-edge) is not applied to a destroyed member: nothing can consume its
      half-edges any more [I, docs/spec-proposals.md].
    """
    seq = stream.capture
    if seq is None:
        return
    if seq.origin is stream:
        step(seq, ORIGIN_DESTROYED)
        terminate(drv, seq, discard_graph=True)  # [I]
    else:
        step(seq, MEMBER_DESTROYED)
        seq.members.remove(stream)
        if stream.deps:
            seq.departed.append((f"{stream.label()} (destroyed during the capture)", list(stream.deps)))
        stream.capture = None
        stream.deps = []
