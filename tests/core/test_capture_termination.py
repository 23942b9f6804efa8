"""How a capture ends, through the core Driver: what termination resets, which graph a failed end discards,
BeginCaptureToGraph onto a graph that is already a capture's target, and the bookkeeping of events and
destroyed streams (the rules of ``_core/capture/capture_rules.py`` that mutation testing found untested;
tools/mutate_capture.py)."""
from __future__ import annotations

import pytest

from simcuda import Driver, DriverError
from simcuda._core.capture import capture_rules as cap
from simcuda._core.objects import CAPTURE_BOUND, CAPTURED, RECORDED

G = 0
ZERO = (0, 0, 0)
PTX = b".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{ ret; }\n"


class Env:
    """A driver with a context, kernel ``k``, blocking streams ``s1..s3``, non-blocking ``n1``, events ``e0..e2``."""

    def __init__(self) -> None:
        d = self.d = Driver()
        d.init(0)
        self.ctx = d.ctx_create(0, 0)
        self.f = d.module_get_function(d.module_load_data(PTX), "k")
        self.s1, self.s2, self.s3 = (d.stream_create(0) for _ in range(3))
        self.n1 = d.stream_create(1)
        self.e0, self.e1, self.e2 = (d.event_create(0) for _ in range(3))

    def k(self, s: int) -> None:
        """Launch ``k`` on ``s``."""
        self.d.launch_kernel(self.f, (1, 1, 1), (1, 1, 1), 0, s, [])

    def seq(self, s: int) -> cap.CaptureSequence:
        """The capture sequence stream ``s`` belongs to (core object)."""
        return self.d.captures.live[self.d.stream_get_capture_info(s)[1]]

    def graph_of(self, s: int) -> int:
        """The handle of the graph stream ``s`` is capturing into."""
        return self.d.stream_get_capture_info(s)[2]

    def deps(self, s: int) -> list[int]:
        """The node handles stream ``s`` currently depends on (cuStreamGetCaptureInfo)."""
        return self.d.stream_get_capture_info(s)[3]

    def fork(self, origin: int, member: int, ev: int) -> None:
        """Fork ``member`` from ``origin`` through event ``ev``."""
        self.d.event_record(ev, origin)
        self.d.stream_wait_event(member, ev, 0)

    def join(self, origin: int, member: int, ev: int) -> None:
        """Join ``member`` back into ``origin`` through event ``ev``."""
        self.d.event_record(ev, member)
        self.d.stream_wait_event(origin, ev, 0)


@pytest.fixture
def env() -> Env:
    """A fresh :class:`Env`."""
    return Env()


def refused(fn, *args) -> DriverError:
    """Call ``fn``; it must raise DriverError, which is returned."""
    with pytest.raises(DriverError) as ei:
        fn(*args)
    return ei.value


def is_live_graph(d: Driver, g: int) -> bool:
    """Whether ``g`` is still a live graph (cuGraphGetNodes succeeds)."""
    try:
        d.graph_get_nodes(g)
    except DriverError as e:
        assert int(e.code) == 1
        return False
    return True


# -- termination resets everything the sequence held (spec 2.1, 2.4) ----------------------------
def test_successful_end_terminates_the_sequence_and_resets_its_streams_and_events(env):
    """After a successful end the sequence is TERMINATED and not live, holds no members or events, its streams are
    reset and its events stay bound to it (spec 17)."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    env.k(env.s1)
    env.fork(env.s1, env.s2, env.e1)
    env.k(env.s2)
    env.join(env.s1, env.s2, env.e2)
    seq = env.seq(env.s1)
    g = d.stream_end_capture(env.s1)
    assert seq.status == cap.TERMINATED and seq.id not in d.captures.live
    assert seq.members == [] and seq.events == []
    for h in (env.s1, env.s2):
        st = d._stream(h)
        assert st.capture is None and st.deps == [] and d.stream_is_capturing(h) == cap.NONE
    for h in (env.e1, env.e2):
        ev = d.handles.event(h)
        assert (ev.state, ev.capture, ev.nodes) == (CAPTURE_BOUND, seq, [])
    assert len(d.graph_get_nodes(g)) == 2


@pytest.mark.parametrize("invalidate", [False, True], ids=["graph", "invalidated"])
def test_events_recorded_in_an_ended_capture_stay_capture_bound(env, invalidate):
    """An event recorded in a capture that ended (with a graph or invalidated) is CAPTURE_BOUND: host query,
    synchronise and elapsed time are 1, a wait from an idle stream 401, a wait in a later capture a no-op (spec 17)."""
    d = env.d
    d.event_record(env.e2, env.s2)
    d.stream_begin_capture(env.s1, G)
    env.k(env.s1)
    d.event_record(env.e1, env.s1)
    if invalidate:
        assert int(refused(d.stream_synchronize, env.s1).code) == 900
        assert int(refused(d.stream_end_capture, env.s1).code) == 901
    else:
        d.graph_launch(d.graph_instantiate(d.stream_end_capture(env.s1), 0), env.s2)  # still bound after the launch
    ev = d.handles.event(env.e1)
    assert ev.state == CAPTURE_BOUND and ev.nodes == []
    for fn, args in ((d.event_query, (env.e1,)), (d.event_synchronize, (env.e1,)),
                     (d.event_elapsed_time, (env.e2, env.e1)), (d.event_elapsed_time, (env.e1, env.e2))):
        e = refused(fn, *args)
        assert int(e.code) == 1 and "spec 17" in e.why
    e = refused(d.stream_wait_event, env.s2, env.e1, 0)  # a stream that is not capturing
    assert int(e.code) == 401 and "spec 17" in e.why
    assert d.stream_is_capturing(env.s2) == cap.NONE and ev.state == CAPTURE_BOUND
    d.stream_begin_capture(env.s3, G)
    d.stream_wait_event(env.s3, env.e1, 0)  # a later capture: neither a merge (902) nor a dependency
    assert d.stream_is_capturing(env.s3) == cap.ACTIVE and env.deps(env.s3) == []
    env.k(env.s3)
    assert len(d.graph_get_nodes(d.stream_end_capture(env.s3))) == 1
    assert ev.state == CAPTURE_BOUND


def test_a_record_outside_capture_overwrites_capture_bound(env):
    """A record on a stream that is not capturing ends CAPTURE_BOUND: the event is RECORDED and usable (spec 17)."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    env.k(env.s1)
    d.event_record(env.e1, env.s1)
    d.stream_end_capture(env.s1)
    d.event_record(env.e1, env.s2)
    ev = d.handles.event(env.e1)
    assert (ev.state, ev.capture) == (RECORDED, None)
    d.event_query(env.e1)
    d.event_synchronize(env.e1)
    d.stream_wait_event(env.s3, env.e1, 0)
    assert d.stream_is_capturing(env.s3) == cap.NONE


def test_a_record_in_a_new_capture_overwrites_capture_bound(env):
    """A record in a new capture makes a CAPTURE_BOUND event CAPTURED by that capture, so a wait forks (spec 17)."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    d.event_record(env.e1, env.s1)
    d.stream_end_capture(env.s1)
    d.stream_begin_capture(env.s1, G)
    env.k(env.s1)
    d.event_record(env.e1, env.s1)
    ev = d.handles.event(env.e1)
    assert ev.state == CAPTURED and ev.capture is env.seq(env.s1)
    d.stream_wait_event(env.s2, env.e1, 0)
    assert d.stream_is_capturing(env.s2) == cap.ACTIVE and len(env.deps(env.s2)) == 1
    env.join(env.s1, env.s2, env.e2)
    d.stream_end_capture(env.s1)


def test_end_on_the_legacy_stream_says_it_never_captures(env):
    """EndCapture and UpdateCaptureDependencies on the legacy stream are 401 by their own row: it is never
    capturing (3.3 row 1, 3.6)."""
    d = env.d
    d.stream_begin_capture(env.n1, G)
    e = refused(d.stream_end_capture, 1)
    assert int(e.code) == 401 and "never capturing" in e.why
    e = refused(d.stream_update_capture_dependencies, 1, [], [], 0)
    assert int(e.code) == 401 and "never capturing" in e.why
    assert d.stream_is_capturing(env.n1) == cap.ACTIVE


def test_capture_statistics_count_every_begin_and_end(env):
    """stats count each begin and each end (success, 901 and 904 alike); only the successful end's graph is listed."""
    d = env.d
    begun, ended = d.stats["captures_begun"], d.stats["captures_ended"]
    d.stream_begin_capture(env.s1, G)
    env.k(env.s1)
    g = d.stream_end_capture(env.s1)
    d.stream_begin_capture(env.s1, G)
    assert int(refused(d.stream_synchronize, env.s1).code) == 900
    assert int(refused(d.stream_end_capture, env.s1).code) == 901
    d.stream_begin_capture(env.s1, G)
    env.fork(env.s1, env.s2, env.e1)
    env.k(env.s2)
    assert int(refused(d.stream_end_capture, env.s1).code) == 904
    assert (d.stats["captures_begun"] - begun, d.stats["captures_ended"] - ended) == (3, 3)
    assert [x.handle for x in d.graphs_from_captures()] == [g]


def test_invalidated_capture_names_its_cause(env):
    """The 901 of a capture invalidated by cuStreamSynchronize names that call, in use and at end (5.1)."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    assert int(refused(d.stream_synchronize, env.s1).code) == 900
    e = refused(env.k, env.s1)
    assert int(e.code) == 901 and "invalidated by cuStreamSynchronize" in e.why
    e = refused(d.stream_end_capture, env.s1)
    assert int(e.code) == 901 and "invalidated earlier by cuStreamSynchronize" in e.why


# -- which graph a failed end discards (spec 2.1, 3.2, 3.3) --------------------------------------
def test_invalidated_end_discards_the_internal_graph(env):
    """EndCapture of an invalidated capture (901) destroys the graph the capture made, and its nodes."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    env.k(env.s1)
    g, node = env.graph_of(env.s1), env.deps(env.s1)[0]
    assert int(refused(d.stream_synchronize, env.s1).code) == 900
    assert int(refused(d.stream_end_capture, env.s1).code) == 901
    assert not is_live_graph(d, g)
    assert int(refused(d.graph_node_get_type, node).code) == 1
    assert d.stream_is_capturing(env.s1) == cap.NONE


def test_unjoined_end_discards_the_internal_graph(env):
    """EndCapture with unjoined work (904) destroys the graph the capture made (4.4)."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    env.fork(env.s1, env.s2, env.e1)
    env.k(env.s2)
    g = env.graph_of(env.s1)
    assert int(refused(d.stream_end_capture, env.s1).code) == 904
    assert not is_live_graph(d, g)
    assert d.stream_is_capturing(env.s2) == cap.NONE


def test_failed_end_keeps_a_user_graph_and_frees_it_as_a_target(env):
    """A failed end of a BeginCaptureToGraph capture (901, 904) leaves the user's graph and its nodes, no longer a
    target (3.2)."""
    d = env.d
    g = d.graph_create(0)
    d.stream_begin_capture_to_graph(env.s1, g, [], [], G)
    env.k(env.s1)
    assert int(refused(d.stream_synchronize, env.s1).code) == 900
    assert int(refused(d.stream_end_capture, env.s1).code) == 901
    assert len(d.graph_get_nodes(g)) == 1
    d.stream_begin_capture_to_graph(env.s1, g, [], [], G)  # not a target any more
    env.fork(env.s1, env.s2, env.e1)
    env.k(env.s2)
    assert int(refused(d.stream_end_capture, env.s1).code) == 904
    assert len(d.graph_get_nodes(g)) == 2
    d.graph_destroy(g)


def test_destroying_the_origin_discards_the_internal_graph(env):
    """cuStreamDestroy of the origin terminates the capture, destroys its graph, and returns members to NONE (2.1,
    C-154) [I]."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    env.k(env.s1)
    env.fork(env.s1, env.s2, env.e1)
    g = env.graph_of(env.s1)
    d.stream_destroy(env.s1)
    assert not is_live_graph(d, g)
    assert d.stream_is_capturing(env.s2) == cap.NONE and d.captures.live == {}


def test_destroyed_member_leaves_the_sequence(env):
    """A destroyed member leaves the sequence: its stream is reset, and the legacy stream no longer conflicts with
    it (2.2, 6)."""
    d = env.d
    d.stream_begin_capture(env.n1, G)
    env.fork(env.n1, env.s2, env.e1)  # a blocking member: the legacy stream would conflict (906)
    env.k(env.s2)
    env.join(env.n1, env.s2, env.e2)
    member = d._stream(env.s2)
    d.stream_destroy(env.s2)
    assert (member.capture, member.deps) == (None, [])
    assert d.capture_info(env.n1)["members"] == [env.n1]
    env.k(1)  # the legacy stream runs: no blocking stream captures any more
    assert d.stream_is_capturing(env.n1) == cap.ACTIVE
    assert len(d.graph_get_nodes(d.stream_end_capture(env.n1))) == 1


# -- BeginCaptureToGraph onto a graph that is already a target (spec 3.2) -------------------------
def test_begin_capture_to_graph_onto_a_live_target_is_illegal_state(env):
    """BeginCaptureToGraph onto the graph of an ACTIVE or INVALIDATED capture is 401 and changes nothing; after its
    end it works (3.2)."""
    d = env.d
    g = d.graph_create(0)
    d.stream_begin_capture_to_graph(env.s1, g, [], [], G)
    env.k(env.s1)
    e = refused(d.stream_begin_capture_to_graph, env.s2, g, [], [], G)
    assert int(e.code) == 401 and e.why.startswith("cuStreamBeginCaptureToGraph") and "already the target" in e.why
    assert d.stream_is_capturing(env.s2) == cap.NONE and d.stream_is_capturing(env.s1) == cap.ACTIVE
    d.stream_begin_capture(env.s3, G)
    internal = env.graph_of(env.s3)
    assert int(refused(d.stream_begin_capture_to_graph, env.s2, internal, [], [], G).code) == 401
    assert int(refused(d.stream_synchronize, env.s1).code) == 900  # now INVALIDATED, still live
    assert int(refused(d.stream_begin_capture_to_graph, env.s2, g, [], [], G).code) == 401
    assert d.stream_is_capturing(env.s2) == cap.NONE and len(d.graph_get_nodes(g)) == 1
    assert int(refused(d.stream_end_capture, env.s1).code) == 901
    d.stream_begin_capture_to_graph(env.s2, g, [], [], G)
    assert d.stream_is_capturing(env.s2) == cap.ACTIVE
    d.stream_end_capture(env.s2)
    d.stream_end_capture(env.s3)


def test_begin_capture_to_graph_dependencies_feed_the_first_node(env):
    """The dependencies given to BeginCaptureToGraph are the stream's deps: the first captured node depends on them
    (3.2)."""
    d = env.d
    g = d.graph_create(0)
    a = d.graph_add_empty_node(g, [])
    d.stream_begin_capture_to_graph(env.s1, g, [a], [ZERO], G)
    assert env.deps(env.s1) == [a]
    env.k(env.s1)
    assert d.stream_end_capture(env.s1) == g
    nodes = d.graph_get_nodes(g)
    assert [(x, y) for x, y, _ in d.graph_get_edges(g)] == [(a, nodes[1])]


def test_second_begin_names_the_streams_role(env):
    """A begin on a stream already capturing is 401 and its why names the stream's role, origin or member (3.1 row
    3)."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    env.fork(env.s1, env.s2, env.e1)
    e = refused(d.stream_begin_capture, env.s1, G)
    assert int(e.code) == 401 and "as its origin" in e.why
    e = refused(d.stream_begin_capture, env.s2, G)
    assert int(e.code) == 401 and "as its member" in e.why
    assert d.stream_is_capturing(env.s1) == d.stream_is_capturing(env.s2) == cap.ACTIVE


# -- event bookkeeping (spec 4.2) ------------------------------------------------------------------
def test_event_recorded_twice_in_a_capture_is_held_once(env):
    """Recording one event many times in a capture keeps it once in the sequence's event list, with the last
    snapshot."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    for _ in range(3):
        env.k(env.s1)
        d.event_record(env.e1, env.s1)
    seq = env.seq(env.s1)
    ev = d.handles.event(env.e1)
    assert seq.events == [ev] and [n.handle for n, _ in ev.nodes] == env.deps(env.s1)
    d.stream_end_capture(env.s1)


def test_event_re_recorded_outside_the_capture_leaves_it(env):
    """An event captured, then recorded on an idle stream, leaves the capture: RECORDED, no nodes, and the end does
    not reset it."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    env.k(env.s1)
    d.event_record(env.e1, env.s1)
    seq = env.seq(env.s1)
    d.event_record(env.e1, env.s3)
    ev = d.handles.event(env.e1)
    assert (ev.state, ev.capture, ev.nodes) == (RECORDED, None, []) and seq.events == []
    d.stream_end_capture(env.s1)
    assert ev.state == RECORDED
    d.event_synchronize(env.e1)


def test_event_moved_to_a_second_capture_survives_the_first_ones_end(env):
    """An event recorded in capture A, then in capture B, stays CAPTURED by B when A ends."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    d.stream_begin_capture(env.s2, G)
    env.k(env.s1)
    d.event_record(env.e1, env.s1)
    env.k(env.s2)
    d.event_record(env.e1, env.s2)
    seq_a, seq_b = env.seq(env.s1), env.seq(env.s2)
    assert seq_a.events == [] and seq_b.events == [d.handles.event(env.e1)]
    d.stream_end_capture(env.s1)
    ev = d.handles.event(env.e1)
    assert ev.state == CAPTURED and ev.capture is seq_b
    d.stream_wait_event(env.s3, env.e1, 0)  # forks into B
    assert d.stream_is_capturing(env.s3) == cap.ACTIVE
    env.join(env.s2, env.s3, env.e2)
    d.stream_end_capture(env.s2)


def test_external_record_in_capture_adds_an_event_record_node(env):
    """cuEventRecordWithFlags(EXTERNAL) in a capture adds an EVENT_RECORD node and captures the event (4.2)."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    env.k(env.s1)
    d.event_record(env.e1, env.s1, 1, "cuEventRecordWithFlags")
    assert d.handles.event(env.e1).state == CAPTURED
    g = d.stream_end_capture(env.s1)
    assert [d.graph_node_get_type(n) for n in d.graph_get_nodes(g)] == [0, 7]


def test_uncaptured_wait_on_a_recorded_event_succeeds_without_capture(env):
    """A wait on an event recorded outside capture, by an idle stream, succeeds and starts no capture (4.1 row 13)."""
    d = env.d
    env.k(env.s3)
    d.event_record(env.e0, env.s3)
    d.stream_wait_event(env.s1, env.e0, 0)
    assert d.stream_is_capturing(env.s1) == cap.NONE and d._stream(env.s1).deps == []
    env.k(env.s1)
    d.stream_synchronize(env.s1)


# -- legacy conflicts name each capture once (spec 6) ---------------------------------------------
def test_legacy_conflict_invalidates_each_capture_once(env):
    """A legacy launch under a capture with two blocking members is 906; the why names that capture once."""
    d = env.d
    d.stream_begin_capture(env.s1, G)
    env.fork(env.s1, env.s2, env.e1)
    sid = d.stream_get_capture_info(env.s1)[1]
    e = refused(env.k, 1)
    assert int(e.code) == 906 and e.why.count(f"capture {sid} (origin") == 1
    assert "already invalidated" not in e.why and d.stream_is_capturing(env.s1) == cap.INVALIDATED
