"""The rule engine, graph model and node kinds run against small fakes of the Protocols they are typed against
(issue 18 item 1: testable without a ``Driver``)."""
from __future__ import annotations

from typing import Any

import pytest

from simcuda._core.capture import capture_enqueue as capq
from simcuda._core.capture import capture_rules as cap
from simcuda._core.config import DeviceSpec, Options
from simcuda._core.errors import DriverError
from simcuda._core.graphs import graph_exec as ge
from simcuda._core.graphs import graph_model as gr
from simcuda._core.graphs import graph_update as gu
from simcuda._core.graphs import nodes as nd
from simcuda._core.logs import Counters
from simcuda._core.objects import USER, Context, Device, Event, Stream, ThreadState


class FakeHandles:
    """A handle table: handles 0x10, 0x20, ... and the graphs and nodes made with them."""

    def __init__(self) -> None:
        self.table: dict[int, Any] = {}
        self.next = 0x10

    def add(self, obj: Any) -> int:
        h, self.next = self.next, self.next + 0x10
        self.table[h] = obj
        return h

    def get(self, h: Any) -> Any:
        return self.table.get(h)

    def new_graph(self, ctx: Context | None = None) -> gr.Graph:
        g = gr.Graph(0, len(self.table) + 1, ctx)
        g.handle = self.add(g)
        return g

    def new_node(self, graph: gr.Graph, ntype: int, params: Any) -> gr.Node:
        n = gr.Node(0, graph, graph.next_local, ntype, params)
        graph.next_local += 1
        n.handle = self.add(n)
        graph.add_node(n)
        return n


class FakeThreads:
    """One thread."""

    def __init__(self) -> None:
        self.me = ThreadState(1, "T1")

    def current(self) -> ThreadState:
        return self.me


class FakeScheduler:
    """A scheduler that refuses to run anything (these tests run no eager work)."""

    def submit(self, stream: Stream, op: capq.Op) -> None:
        raise AssertionError("nothing is submitted in these tests")

    run_now = record_uncaptured = wait_uncaptured = submit

    def run_kernel(self, p: Any) -> str:
        raise AssertionError("no kernel runs in these tests")


class FakeRunner:
    """The scheduler as a replay uses it (:class:`~simcuda._core.graphs.graph_exec.ClockedRunner`): a clock, and
    host functions called at once, in order."""

    def __init__(self) -> None:
        self.clock_ms = 0.0
        self.called: list[Any] = []

    def call_host_fn(self, fn: Any, user_data: Any, callback_args: tuple[int, int] | None = None) -> None:
        self.called.append(user_data)
        fn(user_data)

    def check_host_fn(self, fn: Any, what: str) -> None:
        pass

    def run_kernel(self, p: Any) -> str:
        raise AssertionError("no kernel runs in this replay")

    def complete_event(self, event: Event) -> None:
        raise AssertionError("no event is recorded in this replay")


class FakeReplayHost:
    """What :func:`~simcuda._core.graphs.graph_exec.run_frozen` asks for
    (:class:`~simcuda._core.graphs.graph_exec.RunHost`): a memory (unused by EMPTY and HOST nodes) and the runner."""

    def __init__(self) -> None:
        self.memory: Any = None
        self.scheduler = FakeRunner()


class FakeHost:
    """Everything :class:`~simcuda._core.capture.capture_rules.CaptureHost` asks for, with no scheduler behind it."""

    def __init__(self) -> None:
        self.handles = FakeHandles()
        self.threads = FakeThreads()
        self.captures = cap.CaptureRegistry()
        self.options = Options()
        self.counters = Counters()
        self.discarded: list[gr.Graph] = []
        self.scheduler = FakeScheduler()

    def discard_graph(self, g: gr.Graph) -> None:
        self.discarded.append(g)


def _stream(host: FakeHost) -> Stream:
    ctx = Context(host.handles.add(None), Device(0, DeviceSpec()), 0, 1)
    s = Stream(0, ctx, 0, 0, USER, 1)
    s.handle = host.handles.add(s)
    return s


def test_capture_engine_runs_on_a_fake_host():
    """Begin, two captured nodes and end on a fake host give a two-node chain graph, counted, and no live capture."""
    host = FakeHost()
    s = _stream(host)
    t = host.threads.current()
    seq = cap.begin(host, s, cap.GLOBAL, t)
    assert (seq.status, host.captures.live, host.counters.counts()["captures_begun"]) == (cap.ACTIVE, {seq.id: seq}, 1)
    a = capq.add_node(host, s, nd.EMPTY, nd.NO_PARAMS)
    b = capq.add_node(host, s, nd.EMPTY, nd.NO_PARAMS)
    g = cap.end(host, s, t)
    assert g.nodes == [a, b] and [src for src, _ed in gr.in_edges(b)] == [a]
    assert (host.captures.live, host.captures.ended_graphs, host.counters.counts()["captures_ended"]) == ({}, [g], 1)
    assert s.capture is None and s.deps == [] and host.discarded == []


def test_capture_engine_refuses_a_second_begin_on_a_fake_host():
    """A second begin on a capturing stream is ILLEGAL_STATE (spec 3.1 row 3) and leaves the first capture as it was."""
    host = FakeHost()
    s = _stream(host)
    seq = cap.begin(host, s, cap.GLOBAL, host.threads.current())
    try:
        cap.begin(host, s, cap.GLOBAL, host.threads.current())
    except DriverError as e:
        assert int(e.code) == 401
    else:
        raise AssertionError("the second begin was accepted")
    assert s.capture is seq and host.captures.live == {seq.id: seq} and host.counters.counts()["captures_begun"] == 1


def test_graph_model_clones_on_a_fake_host():
    """clone_graph copies nodes and edges through the fake's handles, leaving the original unchanged."""
    host = FakeHost()
    g = host.handles.new_graph()
    a = host.handles.new_node(g, nd.EMPTY, nd.NO_PARAMS)
    b = host.handles.new_node(g, nd.EMPTY, nd.NO_PARAMS)
    gr.add_edge(g, a, b)
    c = gu.clone_graph(host, g)
    assert c is not g and len(c.nodes) == 2 and host.handles.get(c.handle) is c
    assert [(src.local_id, dst.local_id) for src, dst, _ed in gr.edge_list(c)] == [(0, 1)]
    assert [n.graph for n in g.nodes] == [g, g] and len(gr.edge_list(g)) == 1


def test_node_kind_builds_on_a_fake_host():
    """The EVENT_RECORD kind resolves its event through the fake's handle table; a dead handle gets the given code."""
    host = FakeHost()
    s = _stream(host)
    ev = Event(0, s.ctx, 0)
    ev.handle = host.handles.add(ev)
    kind = nd.KINDS[nd.EVENT_RECORD]
    assert kind.build(host, ev.handle, 1).event is ev  # the fake has only what this kind uses
    try:
        kind.build(host, 0x9990, 400)
    except DriverError as e:
        assert int(e.code) == 400
    else:
        raise AssertionError("a handle naming no event was accepted")


def test_graph_replay_runs_on_a_fake_host():
    """An instantiated EMPTY -> HOST -> EMPTY chain replays in order on a fake host: the host function runs once,
    each node is logged once, and the clock advances one tick per node (spec 16); the graph is unchanged."""
    host = FakeHost()
    g = host.handles.new_graph()
    ran: list[str] = []
    a = host.handles.new_node(g, nd.EMPTY, nd.NO_PARAMS)
    b = host.handles.new_node(g, nd.HOST, nd.HostParams(ran.append, "hello"))
    c = host.handles.new_node(g, nd.EMPTY, nd.NO_PARAMS)
    gr.add_edge(g, a, b)
    gr.add_edge(g, b, c)
    body = ge.freeze(g)
    replay = FakeReplayHost()
    logged: list[tuple[int, int]] = []
    ge.run_frozen(replay, body, lambda x, p, note: logged.append((x.local_id, x.type)))
    assert ran == ["hello"] and replay.scheduler.called == ["hello"]
    assert logged == [(0, nd.EMPTY), (1, nd.HOST), (2, nd.EMPTY)]
    assert replay.scheduler.clock_ms == pytest.approx(3 * ge.TICK_MS)
    assert [n.local_id for n in g.nodes] == [0, 1, 2] and len(gr.edge_list(g)) == 2
