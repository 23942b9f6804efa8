"""A reference model of the capture rules, written from the spec and not from the engine.

:class:`CaptureModel` predicts the ``CUresult`` of every call of a capture program (and the capture status of
every stream, and the graph a successful end gives) from ``docs/spec/capture-semantics.md`` alone. It imports
nothing of simcuda: it is a second, deliberately different implementation, so that the stateful
:class:`simcuda.testing.CaptureMachine` checks the engine against something other than itself.

How it differs from the engine (``simcuda/_core/capture/capture_rules.py``) on purpose:

* names, not objects: streams, events and threads are the small ints (or strings) the program uses; the
  legacy stream is the name :data:`LEGACY`;
* a capture is a plain record (:class:`Capture`) holding its graph as a node counter and a list of
  ``(src, dst)`` edges; a stream's dependency set is a list of node numbers kept in the capture
  (``Capture.deps[stream]``), not on the stream;
* the potentially unsafe rule of spec 5.2 is the spec's own table (:data:`RESTRICTS`), looked up, not
  a predicate; the unjoined rule of 4.4 is a reverse reachability over the edge list;
* there is no state machine table: a capture is live until :meth:`CaptureModel._terminate` drops it.

Scope (what the machine generates): one context in legacy default-stream mode; blocking and non-blocking
streams; events with flags 0; kernels; event record and wait (flags 0); begin (any mode) and end; stream
and event sync/query; ``cuMemAlloc`` (a potentially unsafe call); ``cuCtxSynchronize``; thread capture
modes; stream destroy; the legacy stream (launch, record, wait, sync). Edge data is always the default,
so part (b) of spec 4.4 never applies. Where the spec leaves a case open, the choice is marked [I] here
and names the spec row it reads.
"""
from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

#: ``CUresult`` values the model predicts (names as in spec section 10)
SUCCESS = 0
INVALID_VALUE = 1
ILLEGAL_STATE = 401
CAPTURE_UNSUPPORTED = 900
CAPTURE_INVALIDATED = 901
CAPTURE_MERGE = 902
CAPTURE_UNMATCHED = 903
CAPTURE_UNJOINED = 904
CAPTURE_ISOLATION = 905
CAPTURE_IMPLICIT = 906
CAPTURED_EVENT = 907
CAPTURE_WRONG_THREAD = 908

#: ``CUstreamCaptureMode``
GLOBAL, THREAD_LOCAL, RELAXED = 0, 1, 2
#: ``CUstreamCaptureStatus``
NONE, ACTIVE, INVALIDATED = 0, 1, 2

#: the name of the context's legacy stream in a model program
LEGACY = "legacy"

#: Spec 5.2's table, as written there: ``RESTRICTS[thread mode][whose][capture's begin mode]`` is True when a
#: potentially unsafe call by a thread in ``thread mode`` is prohibited by a live (ACTIVE or INVALIDATED)
#: capture begun in ``begin mode``, by the same thread (``"own"``) or by another one (``"other"``).
RESTRICTS: dict[int, dict[str, dict[int, bool]]] = {
    GLOBAL: {"own": {GLOBAL: True, THREAD_LOCAL: True, RELAXED: False},
             "other": {GLOBAL: True, THREAD_LOCAL: False, RELAXED: False}},
    THREAD_LOCAL: {"own": {GLOBAL: True, THREAD_LOCAL: True, RELAXED: False},
                   "other": {GLOBAL: False, THREAD_LOCAL: False, RELAXED: False}},
    RELAXED: {"own": {GLOBAL: False, THREAD_LOCAL: False, RELAXED: False},
              "other": {GLOBAL: False, THREAD_LOCAL: False, RELAXED: False}},
}

#: The calls of a model program that are potentially unsafe (spec 5.2) when they are not decided by a
#: capture rule first, and the condition under which each is (the rest of the call's rule is in its method).
UNSAFE_CALLS: dict[str, str] = {
    "cuMemAlloc": "always",
    "cuStreamSynchronize": "on a stream that is not capturing",
    "cuStreamQuery": "on a stream that is not capturing",
    "cuEventSynchronize": "on a RECORDED event",
    "cuEventQuery": "on a RECORDED event",
}


@dataclass(eq=False)
class Capture:
    """One capture sequence of the model (spec 1): its graph is ``nodes`` node numbers and ``edges``."""

    key: int  # the model's own serial number (the engine's id is compared only for equality and uniqueness)
    origin: Hashable
    thread: Hashable
    mode: int
    invalidated: bool = False
    #: member stream -> its dependency set, node numbers in insertion order (spec 3.8); the origin included
    deps: dict[Hashable, list[int]] = field(default_factory=dict)
    nodes: int = 0
    edges: list[tuple[int, int]] = field(default_factory=list)
    #: dependency sets of members destroyed during the capture (spec 2.2: their work still counts in 4.4)
    departed: list[list[int]] = field(default_factory=list)

    @property
    def status(self) -> int:
        """The ``CUstreamCaptureStatus`` every member reports (spec 2.2)."""
        return INVALIDATED if self.invalidated else ACTIVE


@dataclass
class Graph:
    """What a successful end returns: node count and edges as ``(src, dst)`` creation indices."""

    nodes: int
    edges: list[tuple[int, int]]


class CaptureModel:
    """The capture rules of the spec over named streams, events and threads; every method returns the
    ``CUresult`` the driver must give (some also a value), and applies the call's effect to the model."""

    def __init__(self) -> None:
        #: stream name -> blocking (True for flags 0, spec 1); the legacy stream is not listed
        self.streams: dict[Hashable, bool] = {}
        #: stream name -> the live capture it belongs to
        self.member_of: dict[Hashable, Capture] = {}
        #: event name -> None (EMPTY), "recorded", "bound" (CAPTURE_BOUND, spec 17) or (capture, node numbers) for
        #: CAPTURED (spec 2.4)
        self.events: dict[Hashable, object] = {}
        #: thread name -> capture mode (every thread starts GLOBAL, spec 1)
        self.modes: dict[Hashable, int] = {}
        self.live: list[Capture] = []
        self._serial = 0

    # -- objects ---------------------------------------------------------------------------------
    def create_stream(self, s: Hashable, blocking: bool) -> int:
        """cuStreamCreate: a new idle stream."""
        self.streams[s] = blocking
        return SUCCESS

    def create_event(self, e: Hashable) -> int:
        """cuEventCreate: a new EMPTY event."""
        self.events[e] = None
        return SUCCESS

    def mode_of(self, t: Hashable) -> int:
        """The capture mode of thread ``t``."""
        return self.modes.get(t, GLOBAL)

    # -- helpers ---------------------------------------------------------------------------------
    def _invalidate(self, caps: list[Capture]) -> None:
        for c in caps:
            c.invalidated = True

    def _terminate(self, c: Capture) -> None:
        """Spec 2.1: every member back to NONE; the capture's captured events CAPTURE_BOUND (spec 17)."""
        for s in list(c.deps):
            self.member_of.pop(s, None)
        c.deps.clear()
        for e, st in self.events.items():
            if isinstance(st, tuple) and st[0] is c:
                self.events[e] = "bound"
        self.live.remove(c)

    def _blocking_captures(self) -> list[Capture]:
        """Live captures with a blocking member: they make any use of the legacy stream 906 (spec 6)."""
        return [c for c in self.live if any(self.streams.get(m, False) for m in c.deps)]

    def unsafe_call(self, t: Hashable) -> int:
        """Spec 5.2 through :data:`RESTRICTS`: 900 and invalidation of the restricting captures, else 0."""
        row = RESTRICTS[self.mode_of(t)]
        hit = [c for c in self.live if row["own" if c.thread == t else "other"][c.mode]]
        if hit:
            self._invalidate(hit)
            return CAPTURE_UNSUPPORTED
        return SUCCESS

    def _legacy_in_use(self) -> int:
        """Spec 6: the legacy stream used while a blocking stream captures: 906, invalidating those."""
        hit = self._blocking_captures()
        if hit:
            self._invalidate(hit)
            return CAPTURE_IMPLICIT
        return SUCCESS

    def _add_node(self, c: Capture, s: Hashable) -> None:
        """Spec 3.8 "add node": edges from every dependency, then the stream depends on the new node only."""
        n = c.nodes
        c.nodes += 1
        c.edges.extend((d, n) for d in c.deps[s])
        c.deps[s] = [n]

    # -- queries ---------------------------------------------------------------------------------
    def status(self, s: Hashable) -> tuple[int, int]:
        """cuStreamIsCapturing: ``(code, status)``; on the legacy stream 906 (status unspecified) without
        invalidating while a blocking stream captures (spec 3.4); the status is then reported as NONE."""
        if s == LEGACY:
            return (CAPTURE_IMPLICIT if self._blocking_captures() else SUCCESS), NONE
        c = self.member_of.get(s)
        return SUCCESS, (NONE if c is None else c.status)

    def capture_of(self, s: Hashable) -> Capture | None:
        """The live capture ``s`` belongs to, or None."""
        return self.member_of.get(s)

    def deps_of(self, s: Hashable) -> list[int]:
        """The current dependency set of ``s`` (node numbers), empty when it is not capturing."""
        c = self.member_of.get(s)
        return [] if c is None else list(c.deps[s])

    # -- 3.1 / 3.3: begin and end ----------------------------------------------------------------
    def begin(self, t: Hashable, s: Hashable, mode: int) -> int:
        """cuStreamBeginCapture (spec 3.1 rows 1-3, 5)."""
        if s == LEGACY:
            return CAPTURE_UNSUPPORTED
        if mode not in (GLOBAL, THREAD_LOCAL, RELAXED):
            return INVALID_VALUE
        if s in self.member_of:
            return ILLEGAL_STATE
        self._serial += 1
        c = Capture(self._serial, s, t, mode)
        c.deps[s] = []
        self.member_of[s] = c
        self.live.append(c)
        return SUCCESS

    def end(self, t: Hashable, s: Hashable) -> tuple[int, Graph | None]:
        """cuStreamEndCapture (spec 3.3 rows 1-7): ``(code, graph or None)``."""
        c = None if s == LEGACY else self.member_of.get(s)
        if c is None:
            return ILLEGAL_STATE, None
        if c.origin != s:
            c.invalidated = True
            return CAPTURE_UNMATCHED, None
        if c.mode != RELAXED and t != c.thread:
            c.invalidated = True
            return CAPTURE_WRONG_THREAD, None
        if c.invalidated:
            self._terminate(c)
            return CAPTURE_INVALIDATED, None
        if self.is_unjoined(c):
            self._terminate(c)
            return CAPTURE_UNJOINED, None
        graph = Graph(c.nodes, list(c.edges))
        self._terminate(c)
        return SUCCESS, graph

    def is_unjoined(self, c: Capture) -> bool:
        """Spec 4.4 (a): work captured on another member (live or destroyed) that the origin's current
        dependencies do not reach backwards through the graph's edges. (Part (b) needs edge data the model
        never makes.)"""
        preds: dict[int, list[int]] = {}
        for a, b in c.edges:
            preds.setdefault(b, []).append(a)
        reach: set[int] = set()
        todo = list(c.deps[c.origin])
        while todo:
            n = todo.pop()
            if n not in reach:
                reach.add(n)
                todo.extend(preds.get(n, ()))
        others = [d for m, d in c.deps.items() if m != c.origin] + c.departed
        return any(n not in reach for d in others for n in d)

    # -- 3.8: stream work --------------------------------------------------------------------------
    def launch(self, t: Hashable, s: Hashable) -> int:
        """cuLaunchKernel (spec 3.8 order of checks: legacy, invalidated, captured, else it runs)."""
        if s == LEGACY:
            return self._legacy_in_use()
        c = self.member_of.get(s)
        if c is None:
            return SUCCESS
        if c.invalidated:
            return CAPTURE_INVALIDATED
        self._add_node(c, s)
        return SUCCESS

    # -- 4.2: record -------------------------------------------------------------------------------
    def record(self, t: Hashable, e: Hashable, s: Hashable) -> int:
        """cuEventRecord (spec 4.2 rows 3-5, 7)."""
        if s == LEGACY:
            code = self._legacy_in_use()
            if code == SUCCESS:
                self.events[e] = "recorded"
            return code
        c = self.member_of.get(s)
        if c is None:
            self.events[e] = "recorded"
            return SUCCESS
        if c.invalidated:
            return CAPTURE_INVALIDATED
        self.events[e] = (c, list(c.deps[s]))
        return SUCCESS

    # -- 4.1: wait ---------------------------------------------------------------------------------
    def wait(self, t: Hashable, s: Hashable, e: Hashable) -> int:
        """cuStreamWaitEvent with flags 0 (spec 4.1 rows 2, 3, 6-13)."""
        ev = self.events[e]
        captured = ev if isinstance(ev, tuple) else None
        if s == LEGACY:
            code = self._legacy_in_use()
            if code:
                return code
            if captured is not None:  # row 3 [I]
                captured[0].invalidated = True
                return CAPTURE_IMPLICIT
            return ILLEGAL_STATE if ev == "bound" else SUCCESS  # spec 17
        mine = self.member_of.get(s)
        if mine is None:
            if ev == "bound":
                return ILLEGAL_STATE  # spec 17
            if captured is None:
                return SUCCESS  # row 13
            other, nodes = captured
            if other.invalidated:
                return INVALID_VALUE  # row 7
            self.fork(other, s, nodes)  # row 6
            return SUCCESS
        if mine.invalidated:
            return CAPTURE_INVALIDATED  # row 12
        if captured is not None:
            other, nodes = captured
            if other is mine:  # row 8
                self.join(mine, s, nodes)
                return SUCCESS
            mine.invalidated = other.invalidated = True
            return CAPTURE_MERGE  # row 9
        if ev == "recorded":
            mine.invalidated = True
            return CAPTURE_ISOLATION  # row 10
        return SUCCESS  # row 11; a CAPTURE_BOUND event too (spec 17) [I]

    def fork(self, c: Capture, s: Hashable, nodes: list[int]) -> None:
        """Spec 4.1 row 6: the idle stream ``s`` joins ``c`` and depends on the waited event's nodes."""
        c.deps[s] = list(nodes)
        self.member_of[s] = c

    def join(self, c: Capture, s: Hashable, nodes: list[int]) -> None:
        """Spec 4.1 row 8: ``s`` (a member of ``c``) also depends on the event's nodes, without duplicates."""
        have = c.deps[s]
        for n in nodes:
            if n not in have:
                have.append(n)

    # -- 5.2 / 5.3 / 6: synchronisation ----------------------------------------------------------------
    def stream_sync(self, t: Hashable, s: Hashable) -> int:
        """cuStreamSynchronize or cuStreamQuery (spec 6, 5.3 rows 1-2, 5.2)."""
        if s == LEGACY:
            code = self._legacy_in_use()
            if code:
                return code
        else:
            c = self.member_of.get(s)
            if c is not None:
                if c.invalidated:
                    return CAPTURE_INVALIDATED
                c.invalidated = True
                return CAPTURE_UNSUPPORTED
        return self.unsafe_call(t)

    def event_sync(self, t: Hashable, e: Hashable) -> int:
        """cuEventSynchronize or cuEventQuery (spec 5.3 row 907, 5.2; EMPTY is not in the unsafe class).
        An event captured by a capture that is already INVALIDATED still gives 907 (spec 5.1: "query or sync
        on one of S's captured events returns 907")."""
        ev = self.events[e]
        if isinstance(ev, tuple):
            ev[0].invalidated = True
            return CAPTURED_EVENT
        if ev == "recorded":
            return self.unsafe_call(t)
        if ev == "bound":
            return INVALID_VALUE  # spec 17
        return SUCCESS

    def mem_alloc(self, t: Hashable) -> int:
        """cuMemAlloc: potentially unsafe (spec 5.2); never captured."""
        return self.unsafe_call(t)

    def ctx_sync(self, t: Hashable) -> int:
        """cuCtxSynchronize: 900 while any stream of the context is in a live capture, whatever the thread
        and mode, invalidating every such capture (spec 5.3)."""
        if self.live:
            self._invalidate(self.live)
            return CAPTURE_UNSUPPORTED
        return SUCCESS

    def exchange_mode(self, t: Hashable, mode: int) -> tuple[int, int | None]:
        """cuThreadExchangeStreamCaptureMode (spec 3.7): ``(code, previous mode or None)``."""
        if mode not in (GLOBAL, THREAD_LOCAL, RELAXED):
            return INVALID_VALUE, None
        old = self.mode_of(t)
        self.modes[t] = mode
        return SUCCESS, old

    # -- 2.1 / 2.2: destroy --------------------------------------------------------------------------
    def destroy_stream(self, s: Hashable) -> int:
        """cuStreamDestroy: the origin terminates its capture; another member leaves it, its dependency set
        still counting for 4.4 (spec 2.1, 2.2, 5.2 "not in the class")."""
        c = self.member_of.get(s)
        if c is not None:
            if c.origin == s:
                self._terminate(c)
            else:
                c.departed.append(c.deps.pop(s))
                del self.member_of[s]
        del self.streams[s]
        return SUCCESS
