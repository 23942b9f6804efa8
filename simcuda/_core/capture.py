"""The capture rule engine: capture sequences and every rule that decides a capture call.

This module knows nothing of the faces (``cuda.bindings``-style tuples, ``_v2`` exceptions,
the runtime, oxicuda). It receives resolved core objects from :mod:`simcuda._core.driver`
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

import contextlib
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, cast

import attrs

from . import nodes as _nodes
from .errors import CUresult, DriverError
from .graph import (
    BATCH_MEM_OP,
    CONDITIONAL,
    EVENT_RECORD,
    GRAPH,
    HOST,
    KERNEL,
    MEM_ALLOC,
    MEM_FREE,
    MEMCPY,
    MEMSET,
    NO_EDGES,
    TYPE_KEYWORDS,
    WAIT_EVENT,
    ZERO_ED,
    GraphMaker,
    Node,
    add_chain_edge,
    add_edge,
    in_edges,
    is_full,
    with_edge,
)
from .graph_exec import walk_body
from .graph_update import graph_from_frozen
from .nodes import ChildGraphParams
from .objects import CAPTURE_BOUND, CAPTURED, RECORDED, CigRecord

if TYPE_CHECKING:
    from .config import Options
    from .graph import Graph, KernelParams
    from .graph_exec import GraphExec
    from .logs import Counters
    from .objects import Context, Dep, EdgeData, EdgeDataArg, Event, Stream, ThreadState

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

    __slots__ = ("live", "_ids", "ended_graphs")

    def __init__(self) -> None:
        self.live: dict[int, CaptureSequence] = {}  # begun and not yet terminated, by id
        self._ids = 0
        self.ended_graphs: list[Graph] = []  # the graph of every capture that ended with one, in order

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


class CaptureHandles(GraphMaker, Protocol):
    """The handle table as the rule engine uses it: graphs and nodes, and a handle for a node it builds itself
    (:class:`simcuda._core.handles.Handles` is one)."""

    def add(self, obj: Any) -> int: ...


class ThreadLookup(Protocol):
    """The calling thread's state (:class:`simcuda._core.threads.Threads` is one)."""

    def current(self) -> ThreadState: ...


class CaptureHost(Protocol):
    """What the rule engine uses of a driver: its services and the scheduler that runs work.

    ``Driver`` satisfies it; so may a small fake (tests/core/test_engine_protocols.py). The scheduler's
    methods are :class:`simcuda._core.work.Work`'s.
    """

    @property
    def handles(self) -> CaptureHandles: ...
    @property
    def threads(self) -> ThreadLookup: ...
    @property
    def captures(self) -> CaptureRegistry: ...
    @property
    def options(self) -> Options: ...
    @property
    def counters(self) -> Counters: ...
    def _discard_graph(self, g: Graph) -> None: ...
    def _submit(self, stream: Stream, op: Op) -> None: ...
    def _run_now(self, stream: Stream, op: Op) -> None: ...
    def _record_uncaptured(self, event: Event, stream: Stream) -> None: ...
    def _wait_uncaptured(self, stream: Stream, event: Event) -> None: ...
    def _run_kernel(self, p: KernelParams) -> str: ...


def _err(code: int, why: str) -> DriverError:
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
        raise _err(code, f"{call}: {stream.label()} belongs to capture {seq.id}, which was invalidated by "
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
        drv._discard_graph(seq.graph)


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
    raise _err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
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
    raise _err(CUresult.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, f"{call} uses {stream.label()}, which synchronises "
                                                            "implicitly with every blocking stream of its context, "
                                                            f"while {labels} has a blocking member (spec 6); "
                                                            f"{effects}. Use a stream created with "
                                                            "CU_STREAM_NON_BLOCKING, or a capturing stream")


# -- 3.1 / 3.2: begin ---------------------------------------------------------------------------
def _check_mode(mode: int) -> None:
    if mode not in (GLOBAL, THREAD_LOCAL, RELAXED):
        raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"capture mode {mode} is not a CUstreamCaptureMode (0 GLOBAL, "
                                                      "1 THREAD_LOCAL, 2 RELAXED)")


def check_edge_data(eds: Sequence[EdgeData | None], what: str) -> None:
    """Edge data given to capture calls: ``to_port`` 0 and a known dependency type (spec 3.2, 3.6 row 6)."""
    for i, ed in enumerate(eds):
        if ed is None:
            raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what}[{i}] is missing: the edge-data list is shorter "
                                                          "than numDependencies, so the driver would read past its "
                                                          "end (spec 3.6) [inferred]")
        if ed[1] != 0:
            raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what}[{i}] has to_port {ed[1]}; edge data given here "
                                                          "must have to_port 0 (spec 3.2, 3.6)")
        if ed[2] not in (0, 1):
            raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what}[{i}] has unknown dependency type {ed[2]} "
                                                          "(CUgraphDependencyType is 0 or 1)")


def check_begin_stream(stream: Stream, mode: int, call: str) -> None:
    """The first rows of 3.1 / 3.2, checked before the graph handle of BeginCaptureToGraph is resolved:
    the legacy stream (900) and the mode (1)."""
    if stream.is_legacy:
        raise _err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
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
                raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: dependency {i} is not a node of graph "
                                                              f"{graph.gid} (NULL, destroyed, or of another graph) "
                                                              "(spec 3.2)")
        check_edge_data(eds or [], "dependencyData")
        if graph.capture_target_of is not None and graph.capture_target_of.status in LIVE:
            raise _err(CUresult.CUDA_ERROR_ILLEGAL_STATE, f"{call}: graph {graph.gid} is already the target of "
                                                          f"{graph.capture_target_of.label()} (spec 3.2)")
    if stream.capture is not None:
        seq = stream.capture
        role = "origin" if seq.origin is stream else "member"
        raise _err(CUresult.CUDA_ERROR_ILLEGAL_STATE, f"{call}: {stream.label()} already belongs to {seq.label()} as "
                                                      f"its {role} (spec 3.1 row 3); end that capture first. The "
                                                      "existing capture is unchanged")
    if stream.cig is not None:
        raise _err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
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
        raise _err(CUresult.CUDA_ERROR_ILLEGAL_STATE, f"cuStreamEndCapture: {stream.label()} is never capturing "
                                                      "(spec 3.3 row 1)")
    seq = stream.capture
    if seq is None:
        raise _err(CUresult.CUDA_ERROR_ILLEGAL_STATE, f"cuStreamEndCapture: {stream.label()} is not capturing (spec "
                                                      "3.3 row 2)")
    if seq.origin is not stream:
        seq_was = seq.label()  # the status before this call, for the why
        code, eff = _apply(seq, END_ON_MEMBER, "cuStreamEndCapture on a forked member")
        raise _err(code or 903, f"cuStreamEndCapture: {stream.label()} is a forked member of {seq_was}, not its "
                                f"origin (spec 3.3 row 3); {eff}. End the capture on {seq.origin.label()}")
    if seq.mode != RELAXED and thread.tid != seq.begin_thread:
        seq_was = seq.label()  # the status before this call, for the why
        code, eff = _apply(seq, END_WRONG_THREAD, "cuStreamEndCapture from the wrong thread")
        raise _err(code or 908, f"cuStreamEndCapture from thread {thread.name}: {seq_was} was begun in "
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
            raise _err(code, f"cuStreamEndCapture: capture {seq.id} was invalidated earlier by "
                             f"{seq.invalidated_by} (spec 3.3 row 5); it is now ended, no graph is returned, "
                             "and every member stream is back to NONE")
        raise _err(code, f"cuStreamEndCapture: capture {seq.id} has unjoined work (spec 4.4): {bad}. Join every "
                         "forked stream back into the origin (record an event on it and wait on that event from "
                         "the origin) before ending. The capture is ended and no graph is returned")
    graph = seq.graph
    terminate(drv, seq, discard_graph=False)
    drv.counters.count("captures_ended")
    drv.captures.ended_graphs.append(graph)
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
    return _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"graph {graph.gid} is the target of {seq.label()}; {why}")


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
            raise _err(CUresult.CUDA_ERROR_LOSSY_QUERY, f"{stream.label()} depends on node(s) {lossy} of graph "
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
        raise _err(CUresult.CUDA_ERROR_ILLEGAL_STATE, f"{call}: {stream.label()} is never capturing (spec 3 "
                                                      "preamble, 3.6 row 1)")
    seq = stream.capture
    if seq is None:
        raise _err(CUresult.CUDA_ERROR_ILLEGAL_STATE, f"{call}: {stream.label()} is not capturing (spec 3.6 row 1)")
    refuse_use(seq, call, stream, "spec 3.6 row 2 [inferred]")
    if flags not in (0, 1):
        raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: flags {flags} is neither "
                                                      "CU_STREAM_ADD_CAPTURE_DEPENDENCIES (0) nor "
                                                      "CU_STREAM_SET_CAPTURE_DEPENDENCIES (1) (spec 3.6 row 3); the "
                                                      "capture is unchanged")
    for i, n in enumerate(nodes):
        if n is None or n.destroyed or n.graph is not seq.graph:
            raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: dependency {i} is not a node of capture "
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


# -- 3.8: the single enqueue path --------------------------------------------------------------
# What an ACTIVE capture does with an operation (OpKind.in_capture):
NODE = "node"  # add a node of the kind's node type (spec 3.8)
REFUSE = "refuse"  # refuse it and invalidate the capture (spec 3.8, 5.3, 6.1)
SNAPSHOT = "snapshot"  # an event record: the event takes the stream's deps (spec 4.2), plus a node when it has a type
JOIN = "join"  # a wait: join, merge, isolation (spec 4.1 rows 8-11)
NOTHING = "nothing"  # accepted and nothing recorded (an upload, spec 3.8)
# What a CIG-capturing stream does with it (OpKind.on_cig, spec 8.3), besides NOTHING:
CIG_RECORD = "record"  # append it to the command list
CIG_REFUSE = "refuse"  # refuse it (OpKind.cig_code); the CIG capture goes on
CIG_PASS = "pass"  # as on an uncaptured stream
# What an uncaptured stream does with it (OpKind.eager), besides NOTHING:
SUBMIT = "submit"  # stream order: now, after the stream's user code, or when it progresses (Work._submit)
NOW = "now"  # a synchronous call: it waits for earlier work, then runs (Work._run_now, spec 6)
RECORD = "record"  # an event record completes in stream order (spec 4.2, 16)
FORK = "fork"  # a wait: fork into the event's capture, or an ordinary wait (spec 4.1 rows 6, 7, 13)


def _params_label(op: Op) -> str:
    p = op.params
    return p.describe() if hasattr(p, "describe") else op.kind.name


@attrs.frozen
class OpKind:
    """One kind of stream operation: what each stream state does with it (spec 3.8, 4.1, 4.2, 6, 8.3).

    :func:`enqueue` reads these fields, in the one order of its checks; an operation differs from another
    only by them (and by the ``prepare`` and ``run`` of the :class:`Op` itself).

    * ``name``: the kind, as the launch log (upper case, unless ``log_as``) and CIG command lists show it.
    * ``node_type``: the ``CUgraphNodeType`` of the node it makes in a capture (NODE, or SNAPSHOT with a node).
    * ``in_capture``: NODE, REFUSE (``refusal``: code and ``why`` template, invalidating; ``nests``: a graph
      launch nests as a child-graph node under ``Options(graph_launch_in_capture="child-node")``), SNAPSHOT,
      JOIN or NOTHING; ``cite``: the spec row named when the capture is already invalidated (901).
    * ``on_cig``: CIG_RECORD (``label`` of the entry), CIG_REFUSE (``cig_code``), CIG_PASS or NOTHING;
      ``cig_forbids``: node types a launched graph may not hold there (900).
    * ``eager``: SUBMIT, NOW, RECORD, FORK or NOTHING; ``needs_capture``: the flag that makes it valid only
      on a capturing stream (INVALID_VALUE elsewhere, with ``cite_uncaptured``); ``unsafe``: potentially
      unsafe (spec 5.2) when it is not captured; ``joins``: a wait, which the legacy stream refuses for a
      captured event (spec 4.1 row 3).
    * How it runs: ``ticks`` the simulated clock (spec 16), ``logged`` in the launch log, ``user_code``
      (run with the lock released, its stream busy).
    * ``invalidates``: a REFUSE that invalidates the capture (the spec's rule, 5.1); False for a refusal that
      leaves it ACTIVE (the batched copies, P-41).
    """

    name: str
    node_type: int | None = None
    in_capture: str = NODE
    refusal: tuple[int, str] | None = None
    nests: bool = False
    cite: str = "spec 3.8, 5.1"
    on_cig: str = CIG_PASS
    cig_code: int = 0
    cig_forbids: tuple[int, ...] = ()
    label: Callable[[Op], str] = _params_label
    eager: str = SUBMIT
    needs_capture: tuple[str, str] | None = None
    unsafe: bool = False
    joins: bool = False
    ticks: bool = True
    logged: bool = True
    user_code: bool = False
    log_as: str = ""
    invalidates: bool = True


_IN_CIG = 801  # NOT_SUPPORTED: in the Returns lists of the calls CIG streams refuse (spec 8.3) [inferred code]
_SYNC_REFUSAL = ("{call} is synchronous and would run on {stream}, which is capturing in {seq}: a synchronous call "
                 "on a capturing stream is refused in every mode (spec 6.1, 5.3) [inferred]. Use the call's Async "
                 "form on the capturing stream, which the capture records as a node")


def _kernel_label(op: Op) -> str:
    name: str = op.params.name
    return name


#: The operation table (spec 3.8, 4.1, 4.2, 6, 8.3): every kind of stream operation and what each stream
#: state does with it. Every entry that puts work on a stream makes an :class:`Op` of one of these and
#: calls :func:`enqueue`.
OPS: dict[str, OpKind] = {k.name: k for k in (
    OpKind("kernel", KERNEL, on_cig=CIG_RECORD, label=_kernel_label, user_code=True),
    OpKind("memcpy", MEMCPY, on_cig=CIG_RECORD),
    OpKind("memset", MEMSET, on_cig=CIG_RECORD),
    OpKind("host", HOST, on_cig=CIG_REFUSE, cig_code=_IN_CIG, user_code=True),
    OpKind("mem_alloc", MEM_ALLOC, on_cig=CIG_REFUSE, cig_code=_IN_CIG),
    OpKind("mem_free", MEM_FREE, on_cig=CIG_REFUSE, cig_code=_IN_CIG),
    OpKind("batch_mem_op", BATCH_MEM_OP, on_cig=CIG_REFUSE, cig_code=_IN_CIG),
    OpKind("wait_value", BATCH_MEM_OP, on_cig=CIG_REFUSE, cig_code=_IN_CIG),
    OpKind("write_value", BATCH_MEM_OP),
    OpKind("ext_signal", 8),
    OpKind("ext_wait", 9),
    OpKind("callback", in_capture=REFUSE, on_cig=CIG_REFUSE, cig_code=_IN_CIG, user_code=True,
           refusal=(801, "{call} on {stream} of {seq}: cuStreamAddCallback is not supported on a capturing stream "
                         "(spec 3.8) [inferred code]; use cuLaunchHostFunc, which is captured as a HOST node")),
    OpKind("attach_mem", in_capture=REFUSE,
           refusal=(801, "{call} on {stream} of {seq}: cuStreamAttachMemAsync is not supported on a capturing "
                         "stream (spec 3.8) [inferred code]")),
    OpKind("graph_launch", GRAPH, in_capture=REFUSE, nests=True, on_cig=CIG_RECORD, user_code=True,
           refusal=(900, "{call} on {stream} of {seq}: cuGraphLaunch into a capturing stream is not permitted "
                         "(spec 3.8, 4.6); to nest a graph, add it to the capture graph as a child-graph node "
                         "(cuStreamGetCaptureInfo, cuGraphAddChildGraphNode, cuStreamUpdateCaptureDependencies "
                         "SET)"),
           cig_forbids=(HOST, MEM_ALLOC, MEM_FREE, BATCH_MEM_OP), label=lambda op: f"graph_{op.params.gid}",
           ticks=False, logged=False),
    OpKind("upload", in_capture=NOTHING, on_cig=NOTHING, eager=NOTHING),
    OpKind("event_record", in_capture=SNAPSHOT, cite="spec 4.2 row 5", on_cig=CIG_RECORD, eager=RECORD,
           label=lambda op: op.params.event.label(), ticks=False, logged=False),
    OpKind("event_record_external", EVENT_RECORD, in_capture=SNAPSHOT, cite="spec 4.2 row 5",
           needs_capture=("CU_EVENT_RECORD_EXTERNAL", "spec 4.2 row 6")),
    OpKind("wait_event", in_capture=JOIN, cite="spec 4.1 row 12", eager=FORK, joins=True),
    OpKind("wait_event_external", WAIT_EVENT, cite="spec 4.1 row 12", joins=True,
           needs_capture=("CU_EVENT_WAIT_EXTERNAL", "spec 4.1 row 4")),
    # batched copies (issue 10, P-41): no graph-node form; 900 in a capture, which goes on [O: rmm issue 2518]
    OpKind("memcpy_batch", in_capture=REFUSE, invalidates=False, on_cig=CIG_RECORD,
           refusal=(900, "{call} on {stream} of {seq}: a batched copy cannot be captured (the driver has no graph-node "
                         "form of it; P-41) [O: rapidsai/rmm issue 2518, cuda.core copy_batch]; copy with "
                         "cuMemcpyAsync per buffer to capture it")),
    OpKind("sync_memcpy", in_capture=REFUSE, refusal=(900, _SYNC_REFUSAL), cite="spec 6.1, 5.3 [inferred]",
           eager=NOW, unsafe=True, log_as="MEMCPY"),
    OpKind("sync_memset", in_capture=REFUSE, refusal=(900, _SYNC_REFUSAL), cite="spec 6.1, 5.3 [inferred]",
           eager=NOW, unsafe=True, log_as="MEMSET"),
)}


# -- managed memory (topic: vmm): cuMemPrefetchAsync is stream work; captured, it becomes an EMPTY node, as the
# CUgraphNodeType of CUDA 13.5 has no prefetch type (docs/spec-proposals.md P-50) [inferred]; eagerly it does nothing
# to the bytes (managed memory is one copy here), but it takes its place in stream order and is logged.
OPS["prefetch"] = OpKind("prefetch", _nodes.EMPTY, on_cig=CIG_RECORD, label=lambda op: "prefetch")

class Op:
    """One unit of stream work: its :class:`OpKind`, the call, its ``params`` (the node's parameters when it is
    captured), ``run`` (the work, when it runs eagerly) and ``prepare`` (rules of the op's own arguments that
    depend on whether it becomes a node: called first, with the ACTIVE capture it would be a node of, or None)."""

    __slots__ = ("kind", "call", "params", "run", "prepare")
    params: Any

    def __init__(self, kind: OpKind, call: str, params: Any, run: Callable[[], Any] | None,
                 prepare: Callable[[CaptureSequence | None], None] | None = None) -> None:
        self.kind = kind
        self.call = call
        self.params = params
        self.run = run
        self.prepare = prepare


def enqueue(drv: CaptureHost, stream: Stream, op: Op) -> Node | None:
    """Decide what a stream operation does, reading its :class:`OpKind` (spec 3.8 order of checks, items 2-5).

    In order: the op's own ``prepare``; the legacy stream (906, spec 6; a wait on a captured event, spec 4.1
    row 3); an op valid only in capture on an uncaptured stream (1, spec 4.1 row 4, 4.2 row 6); a CIG
    capture (spec 8.3); a capture (901 when invalidated, then ``in_capture``); else ``eager`` (the potentially
    unsafe class first, spec 5.2). Returns the new node when the op was captured as one, else ``None``.
    """
    k = op.kind
    if op.prepare is not None:
        op.prepare(capturing_into(stream))
    seq = stream.capture
    if stream.is_legacy:
        check_legacy_use(drv, stream, op.call)
        if k.joins:
            _refuse_legacy_join(stream, op)
    if k.needs_capture is not None and seq is None:
        flag, cite = k.needs_capture
        raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{op.call}: {flag} is only valid on a capturing stream, and "
                                                      f"{stream.label()} is not capturing ({cite})")
    cig = stream.cig
    if cig is not None and _cig_takes(stream, op, cig):
        return None
    if seq is not None:
        return _in_capture(drv, seq, stream, op)
    _eager(drv, stream, op)
    return None


def _cig_takes(stream: Stream, op: Op, cig: CigRecord) -> bool:
    """:func:`enqueue` on a stream in CIG capture (spec 8.3): refuse the op, or record it in the command list
    (True), or do nothing with it (True), or let it pass as on an uncaptured stream (False)."""
    k = op.kind
    if k.on_cig == CIG_REFUSE:
        raise _err(k.cig_code, f"{op.call} is not allowed on {stream.label()}, which is in CIG capture (spec "
                               "8.3) [inferred code: 801 is in its Returns list]; the CIG capture goes on")
    if k.cig_forbids:
        _check_cig_graph_launch(stream, op.params, k.cig_forbids)
    if k.on_cig == CIG_RECORD:
        cig.ops.append((k.name, k.label(op)))
        return True
    return k.on_cig == NOTHING


def _in_capture(drv: CaptureHost, seq: CaptureSequence, stream: Stream, op: Op) -> Node | None:
    """:func:`enqueue` on a capturing stream: 901 when invalidated, then the kind's ``in_capture`` row."""
    k = op.kind
    refuse_use(seq, op.call, stream, k.cite)
    how = k.in_capture
    if how == NODE:
        return add_node(drv, stream, k.node_type, op.params)  # type: ignore[arg-type]  # NODE kinds have one
    if how == SNAPSHOT:
        _capture_event(seq, op.params.event, stream)
        return None if k.node_type is None else add_node(drv, stream, k.node_type, op.params)
    if how == JOIN:
        _join(seq, stream, op)
        return None
    if how == REFUSE:
        if k.nests and drv.options.graph_launch_in_capture == "child-node":
            return _nest_exec(drv, stream, op.params)
        code, why = k.refusal  # type: ignore[misc]  # REFUSE kinds have one
        seq_was = seq.label()  # the status before this call, for the why
        eff = invalidate(seq, op.call) if k.invalidates else f"{seq.label()} goes on (not invalidated)"
        raise _err(code, why.format(call=op.call, stream=stream.label(), seq=seq_was) + f"; {eff}")
    return None  # NOTHING


def _eager(drv: CaptureHost, stream: Stream, op: Op) -> None:
    """:func:`enqueue` on an uncaptured stream: the potentially unsafe class first (spec 5.2), then the kind's
    ``eager`` row (submit in stream order, run now, record an event, fork or wait)."""
    k = op.kind
    if k.unsafe:
        check_unsafe(drv, drv.threads.current(), op.call)
    how = k.eager
    if how == SUBMIT:
        drv._submit(stream, op)
    elif how == NOW:
        drv._run_now(stream, op)
    elif how == RECORD:
        event = op.params.event
        _uncapture_event(event)
        drv._record_uncaptured(event, stream)
    elif how == FORK:
        _fork(drv, stream, op)


def _nest_exec(drv: CaptureHost, stream: Stream, x: GraphExec) -> Node:
    """``Options(graph_launch_in_capture="child-node")``: a cuGraphLaunch into a capture adds a GRAPH node
    holding a copy of the exec's graph as instantiated (or updated since) [I]; an exec with memory
    allocation or free nodes, or conditional nodes (which a child graph cannot hold, P-21), cannot be nested
    so: INVALID_VALUE, the capture unchanged [I]."""
    if any(n.type in (MEM_ALLOC, MEM_FREE, CONDITIONAL) for n in walk_body(x.body)):
        raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"exec 0x{x.handle:x} holds memory allocation/free or "
                                                      "conditional nodes; it "
                                                      "cannot be nested as a child-graph node of a capture "
                                                      "[inferred]")
    child = graph_from_frozen(drv, x.body, stream.ctx)
    node = add_node(drv, stream, GRAPH, ChildGraphParams(child))
    child.owner_node = node
    return node


def _check_cig_graph_launch(stream: Stream, x: GraphExec, forbidden: tuple[int, ...]) -> None:
    """``cuGraphLaunch`` onto a CIG-capturing stream of a graph holding a node the CIG list forbids: 900
    (cuGraphLaunch's Returns list has no 801) [I] (spec 8.3); the CIG capture goes on."""
    for n in walk_body(x.body):
        if n.type in forbidden:
            raise _err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                       f"cuGraphLaunch onto {stream.label()} (CIG capture): the graph holds a "
                       f"{TYPE_KEYWORDS[n.type]} node, which CIG streams forbid (spec 8.3) [inferred code]; the CIG "
                       "capture goes on")


_new = object.__new__
_KERNEL = OPS["kernel"]


#: edge data of a programmatic dependency (``CUgraphEdgeData``): from the kernel's programmatic port
#: (``CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC``, 1), to port 0, type ``CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC`` (1)
PROGRAMMATIC_ED = (1, 0, 1)


def programmatic_deps(stream: Stream) -> list[tuple[Node, Any]] | None:
    """Programmatic dependent launch in a capture (docs/spec-proposals.md P-16) [D/I]: a kernel launched with
    ``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`` on a stream of an ACTIVE capture depends on the KERNEL
    nodes before it through programmatic edges (from their programmatic port, type PROGRAMMATIC), the
    Programming Guide's mapping of the attribute to a graph; dependencies on other nodes, and non-full ones, stay
    as they are. Sets the stream's dependencies and returns the previous list (for the caller to restore if the
    launch is refused), or ``None`` when the stream does not capture (the launch then orders as usual)."""
    if capturing_into(stream) is None:
        return None
    old = stream.deps
    stream.deps = [(n, PROGRAMMATIC_ED if n.type == KERNEL and is_full(ed) else ed) for n, ed in old]
    return old


def enqueue_kernel(drv: CaptureHost, stream: Stream, call: str, params: KernelParams) -> Node | None:
    """:func:`enqueue` of a kernel launch (``params`` a :class:`~simcuda._core.graph.KernelParams`).

    The common case, a stream of an ACTIVE capture outside CIG capture, adds the node at once, as
    :func:`enqueue` decides it (a legacy stream never captures); only other cases build the :class:`Op`.
    """
    seq = stream.capture
    if seq is not None and seq.status == ACTIVE and stream.cig is None:
        deps = stream.deps
        graph = seq.graph
        if len(deps) != 1 or graph.pairs is not None:
            return add_node(drv, stream, KERNEL, params)
        d, ed = deps[0]
        if ed is not ZERO_ED and ed != ZERO_ED:
            return add_node(drv, stream, KERNEL, params)
        # the chain case of add_node, with Handles.new_node, graph.add_chain_edge and the Node
        # constructor inline (the hot path of a captured launch; keep them in step): the same handle,
        # node, chain edge and deps (tests/core/test_capture_fast_path.py checks every slot is set)
        lid = graph.next_local
        graph.next_local = lid + 1
        node = _new(Node)  # Node(h, graph, lid, KERNEL, params) with its edge set, without the __init__ calls
        node.handle = drv.handles.add(node)
        node.graph = graph
        node.local_id = lid
        node.type = KERNEL
        node.params = params
        node._outs = NO_EDGES
        node.destroyed = False
        graph.nodes.append(node)  # KERNEL: not counted per type (see Graph)
        graph.lazy = True  # add_chain_edge(graph, d, node): the compact form, no Edge (see graph.py)
        node._ins = d
        c = d._outs  # in a chain the previous node has no out-edge yet; else graph.with_edge adds it
        d._outs = node if c is NO_EDGES else with_edge(c, node)
        deps[0] = (node, ZERO_ED)
        runs = seq.captured
        if runs and runs[-1] == lid:
            runs[-1] = lid + 1
        else:
            runs += (lid, lid + 1)
        return node
    return enqueue(drv, stream, Op(_KERNEL, call, params, lambda: drv._run_kernel(params)))


def add_node(drv: CaptureHost, stream: Stream, ntype: int, params: Any) -> Node:
    """"Add node N" of spec 3.8: edges from the stream's deps, in order; deps = [N]."""
    seq: CaptureSequence = stream.capture  # type: ignore[assignment]  # the callers' stream is capturing
    graph = seq.graph
    node = drv.handles.new_node(graph, ntype, params)
    deps = stream.deps
    if len(deps) == 1:  # a chain: the stream's own list (never shared) is reused
        d, ed = deps[0]
        if graph.pairs is None and (ed is ZERO_ED or ed == ZERO_ED):
            add_chain_edge(graph, d, node)  # one full dependency: the compact form (graph.py)
        else:
            add_edge(graph, d, node, ed)
        deps[0] = (node, ZERO_ED)
    else:
        for d, ed in deps:
            add_edge(graph, d, node, ed)
        stream.deps = [(node, ZERO_ED)]
    runs, lid = seq.captured, node.local_id
    if runs and runs[-1] == lid:
        runs[-1] = lid + 1
    else:
        runs += (lid, lid + 1)
    return node


# -- 4.2: event record (the rows an OpKind with SNAPSHOT or RECORD reads) ----------------------------
def _capture_event(seq: CaptureSequence, event: Event, stream: Stream) -> None:
    _uncapture_event(event)
    event.state = CAPTURED
    event.capture = seq
    event.nodes = list(stream.deps)
    seq.events.append(event)


def _uncapture_event(event: Event) -> None:
    old = event.capture
    if old is not None:
        with contextlib.suppress(ValueError):
            old.events.remove(event)
    event.capture = None
    event.nodes = []


# -- 4.1: stream wait event (the rows an OpKind with ``joins`` reads) ------------------------------------
def _waited(op: Op) -> tuple[Event, CaptureSequence | None]:
    """The event a wait waits on, and the capture it is CAPTURED by (or None)."""
    event: Event = op.params.event
    return event, event.capture if event.state == CAPTURED else None


def _refuse_legacy_join(stream: Stream, op: Op) -> None:
    """Rows 2-3 of spec 4.1: the legacy stream never joins a capture (906, invalidating the event's capture)."""
    event, eseq = _waited(op)
    if eseq is not None:
        eseq_was = eseq.label()  # the status before this call, for the why
        eff = invalidate(eseq, "cuStreamWaitEvent on the legacy stream")
        raise _err(CUresult.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
                   f"{op.call}: {stream.label()} would wait on {event.label()}, captured by {eseq_was}; the legacy "
                   f"stream can never join a capture (spec 4.1 row 3) [inferred]; {eff}")


def _fork(drv: CaptureHost, stream: Stream, op: Op) -> None:
    """A wait on an uncaptured stream: rows 6 (fork), 7 and 13 (an ordinary wait) of spec 4.1; on a
    CAPTURE_BOUND event ILLEGAL_STATE (spec 17) [O, weaker: a source comment of a real client]."""
    event, eseq = _waited(op)
    if event.state == CAPTURE_BOUND:
        raise _err(CUresult.CUDA_ERROR_ILLEGAL_STATE, f"{op.call}: {event.label()} was last recorded in a capture "
                                                      "that has ended, so it is bound to that capture's graph and "
                                                      f"{stream.label()}, which is not capturing, cannot wait on it "
                                                      "(spec 17). Record it again outside the capture (or wait on "
                                                      "an event recorded after the graph's launch)")
    if eseq is not None:
        if eseq.status == ACTIVE:  # row 6: fork
            if stream.cig is not None:
                raise _err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                           f"{op.call}: {stream.label()} is in CIG capture and cannot join {eseq.label()}")
            stream.capture = eseq
            stream.deps = list(event.nodes)
            eseq.members.append(stream)
            return
        raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{op.call}: {event.label()} was recorded in {eseq.label()}, "
                                                      f"which is invalidated, so {stream.label()} cannot fork into "
                                                      "it (spec 4.1 row 7) [claimed by HIP to match CUDA]")
    # row 13: ordinary wait
    drv._wait_uncaptured(stream, event)


def _join(seq: CaptureSequence, stream: Stream, op: Op) -> None:
    """A wait on a stream of ACTIVE ``seq``: rows 8 (join), 9 (merge), 10 (isolation) and 11 of spec 4.1."""
    event, eseq = _waited(op)
    call = op.call
    if eseq is seq:  # row 8: join
        have = {id(n) for n, _ in stream.deps}
        for n, ed in event.nodes:
            if id(n) not in have:
                stream.deps.append((n, ed))
                have.add(id(n))
        return
    if eseq is not None:  # row 9: merge
        seq_was = seq.label()  # the status before this call, for the why
        e1 = invalidate(seq, "cuStreamWaitEvent merging two captures")
        eseq_was = eseq.label()  # the status before this call, for the why
        e2 = invalidate(eseq, "cuStreamWaitEvent merging two captures")
        raise _err(CUresult.CUDA_ERROR_STREAM_CAPTURE_MERGE, f"{call}: {stream.label()} of {seq_was} would wait on "
                                                             f"{event.label()} captured by {eseq_was}; two capture "
                                                             f"sequences cannot merge (spec 4.1 row 9); {e1}; {e2}. "
                                                             "End both on their origins; to order work across them, "
                                                             "capture it as one sequence (fork the second stream from "
                                                             "the first with an event recorded inside the capture), "
                                                             "or order the launches of the two graphs instead")
    if event.state == RECORDED:  # row 10: isolation
        seq_was = seq.label()  # the status before this call, for the why
        eff = invalidate(seq, "cuStreamWaitEvent on uncaptured work")
        raise _err(CUresult.CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
                   f"{call}: {stream.label()} of {seq_was} would wait on {event.label()}, which was recorded outside "
                   f"any capture; a capture cannot depend on uncaptured work (spec 4.1 row 10); {eff}. Use "
                   "CU_EVENT_WAIT_EXTERNAL for a wait node, or wait before the capture")
    # row 11: never recorded, or CAPTURE_BOUND by a capture that has ended (spec 17) [I]: nothing to wait for


# -- 5.3: calls forbidden in every mode ------------------------------------------------------------
def check_stream_sync(drv: CaptureHost, stream: Stream, thread: ThreadState, call: str) -> None:
    """cuStreamSynchronize / cuStreamQuery (spec 6, 5.3, 5.2 in that order)."""
    check_legacy_use(drv, stream, call)
    if stream.cig is not None and call.startswith("cuStreamSynchronize"):
        raise _err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                   f"{call} is not allowed on {stream.label()}, which is in CIG capture (spec 8.3)")
    seq = stream.capture
    if seq is not None:
        refuse_use(seq, call, stream, "spec 5.3 [inferred]")
        seq_was = seq.label()  # the status before this call, for the why
        eff = invalidate(seq, call)
        raise _err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
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
        raise _err(CUresult.CUDA_ERROR_CAPTURED_EVENT, f"{call}: {event.label()} was last recorded in {seq_was}; "
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
        raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: {event.label()} was last recorded in {was}, which "
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
            raise _err(CUresult.CUDA_ERROR_CAPTURED_EVENT, f"cuEventElapsedTime: {e.label()} was last recorded in "
                                                           f"{seq_was}; its time is not known to the host (spec 5.3) "
                                                           f"[inferred]; {eff}. Time the graph's launch instead, with "
                                                           "events recorded around cuGraphLaunch outside any capture")


def capturing_into(stream: Stream) -> CaptureSequence | None:
    """The ACTIVE sequence a stream operation on ``stream`` would add a node to, or None (an idle,
    invalidated, legacy or CIG stream: :func:`enqueue` decides those)."""
    seq = stream.capture
    if seq is None or seq.status != ACTIVE or stream.cig is not None or stream.is_legacy:
        return None
    return seq


def check_free_async_in_capture(seq: CaptureSequence, dptr: int, is_graph_allocation: bool,
                                free_node: Node | None = None) -> None:
    """``cuMemFreeAsync`` during capture frees only graph allocations (spec 3.8), and each only once;
    otherwise INVALID_VALUE and the capture stays ACTIVE [I: code and no invalidation, C-059]."""
    if not is_graph_allocation:
        raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"cuMemFreeAsync during {seq.label()}: 0x{dptr:x} is not a "
                                                      "graph allocation (made by cuMemAllocAsync in a capture or a "
                                                      "MEM_ALLOC node) (spec 3.8) [inferred code]; the capture is "
                                                      "unchanged")
    if free_node is not None and not free_node.destroyed:
        raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"cuMemFreeAsync during {seq.label()}: graph allocation "
                                                      f"0x{dptr:x} is already freed by node {free_node.local_id} of "
                                                      f"graph {free_node.graph.gid}; an allocation can be freed only "
                                                      "once (cuGraphAddMemFreeNode)")


def check_ctx_sync(drv: CaptureHost, ctx: Context, call: str) -> None:
    """cuCtxSynchronize and friends: 900 while any stream of ``ctx`` captures (spec 5.3)."""
    bad = drv.captures.in_ctx(ctx)
    if bad:
        labels = "; ".join(s.label() for s in bad)
        effects = "; ".join(invalidate(s, call) for s in bad)
        raise _err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
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
        raise _err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                   f"{call}: conflicts with {labels} (spec 5.3); {effects}. Record or wait on the stream itself "
                   "(cuEventRecord, cuStreamWaitEvent), which a capture turns into nodes")


# -- 8: CIG capture into a command list --------------------------------------------------------------
def begin_cig(stream: Stream, data_type: int | None, data: int, thread: ThreadState) -> None:
    """cuStreamBeginCaptureToCig, rows of spec 8.2 in order (``data_type`` None: NULL parameters).

    Errors: 1 NULL parameters (row 1); 1 the legacy stream (row 2); 201 a context not made in CIG mode
    (row 3); 801 a device without CIG stream support for that data type (row 4); 1 a data type that is not
    the context's (row 5) [I]; 1 a stream already in CIG or graph capture (row 6).
    """
    if data_type is None:
        raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, "CUstreamCigCaptureParams (or its streamCigParams) is NULL "
                                                      "(spec 8.2 row 1)")
    if stream.is_legacy:
        raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, "CIG capture may not begin on the legacy stream (spec 8.2 row "
                                                      "2)")
    ctx = stream.ctx
    if not ctx.is_cig:
        raise _err(CUresult.CUDA_ERROR_INVALID_CONTEXT, f"{stream.label()} belongs to context 0x{ctx.handle:x}, "
                                                        "which was not created in CIG mode (spec 8.2 row 3)")
    spec = ctx.device.spec
    if data_type in (1, 2) and not (spec.cig_d3d12_streams if data_type == 1 else spec.cig_vulkan_streams):
        raise _err(CUresult.CUDA_ERROR_NOT_SUPPORTED, f"device {ctx.device.ordinal} lacks CIG stream support for "
                                                      f"data type {data_type} (attribute "
                                                      f"{151 if data_type == 1 else 159}; spec 8.2 row 4)")
    if data_type not in (1, 2) or data_type != ctx.cig_data_type:
        raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"stream CIG data type {data_type} does not match the "
                                                      f"context's CIG data type {ctx.cig_data_type} (D3D12 list with "
                                                      "D3D12 queue, Vulkan handle with NV blob; spec 8.2 row 5) "
                                                      "[inferred]")
    if stream.cig is not None or stream.capture is not None:
        raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{stream.label()} is already in CIG capture or graph capture "
                                                      "(spec 8.2 row 6)")
    stream.cig = CigRecord(thread.tid, data_type, data)


def end_cig(stream: Stream, thread: ThreadState, any_thread: bool) -> list[tuple[str, str]]:
    """cuStreamEndCaptureToCig (spec 8.4): the recorded op list; the stream leaves CIG capture.

    Errors: 1 a stream not in CIG capture; 908 from another thread than the one that began it, unless
    ``any_thread`` (``Options.cig_end_any_thread``) [I]: the CIG capture goes on.
    """
    cig = stream.cig
    if cig is None:
        raise _err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{stream.label()} is not in CIG capture (spec 8.4)")
    if thread.tid != cig.begin_thread and not any_thread:
        raise _err(CUresult.CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
                   f"cuStreamEndCaptureToCig from thread {thread.name}: the CIG capture of {stream.label()} was "
                   "begun on another thread and goes on (spec 8.4) [inferred]")
    stream.cig = None
    return cig.ops


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
