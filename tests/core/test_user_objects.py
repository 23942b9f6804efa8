"""User objects (issue 9): references of callers, graphs, execs and launches, and when the destructor runs."""
from __future__ import annotations

import pytest

from simcuda import Driver
from simcuda._core.errors import CUresult, DriverError
from simcuda._core.objects import UserObject

from .conftest import ready

MOVE = 1


def code(fn, *args):
    """The CUresult a core call raises (0 when it succeeds)."""
    try:
        fn(*args)
    except DriverError as e:
        return int(e.code)
    return 0


def make(d: Driver, log: list, refs: int = 1, ptr: int = 0x1234) -> int:
    """A user object whose destructor appends ``("destroyed", ptr)`` to ``log``."""
    return d.user_object_create(ptr, lambda p: log.append(("destroyed", p)), refs, 1)


def obj(d: Driver, h: int) -> UserObject:
    return d.handles.table[h]


def test_create_gives_the_caller_its_references(d):
    """cuUserObjectCreate: the caller owns initialRefcount references; the object has a live handle."""
    log: list = []
    u = make(d, log, refs=3)
    o = obj(d, u)
    assert (o.refs, o.caller, o.gone, o.ptr) == (3, 3, False, 0x1234) and log == []


@pytest.mark.parametrize("args, why", [((0x1, None, 1, 1), "NULL"), ((0x1, print, 1, 0), "flags"),
                                       ((0x1, print, 1, 2), "flags"), ((0x1, print, 0, 1), "INT_MAX"),
                                       ((0x1, print, 2 ** 31, 1), "INT_MAX")])
def test_create_refuses_bad_arguments_and_makes_nothing(d, args, why):
    """Flags other than NO_DESTRUCTOR_SYNC, a zero or too large refcount, a NULL destructor: INVALID_VALUE."""
    before = len(d.handles.table)
    assert code(d.user_object_create, *args) == CUresult.CUDA_ERROR_INVALID_VALUE
    assert why in d.last_error().why and len(d.handles.table) == before


def test_last_release_runs_the_destructor_with_ptr_once(d):
    """Retain adds caller references; the release of the last one runs destroy(ptr), once."""
    log: list = []
    u = make(d, log)
    d.user_object_retain(u, 2)
    d.user_object_release(u, 2)
    assert log == [] and obj(d, u).refs == 1
    d.user_object_release(u, 1)
    assert log == [("destroyed", 0x1234)] and obj(d, u).gone


@pytest.mark.inferred
def test_releasing_more_than_the_caller_holds_is_refused(d):
    """Undefined in CUDA; INVALID_VALUE here [I], and nothing is released."""
    log: list = []
    u = make(d, log, refs=2)
    assert code(d.user_object_release, u, 3) == CUresult.CUDA_ERROR_INVALID_VALUE
    assert obj(d, u).refs == 2 and log == []
    assert code(d.user_object_release, u, 0) == CUresult.CUDA_ERROR_INVALID_VALUE


@pytest.mark.inferred
def test_a_dead_or_foreign_handle_is_invalid_value(d):
    """After the last release the handle is dead; a handle of another kind or another driver is refused too."""
    log: list = []
    u = make(d, log)
    d.user_object_release(u, 1)
    assert code(d.user_object_retain, u, 1) == CUresult.CUDA_ERROR_INVALID_VALUE
    assert code(d.user_object_retain, d.stream_create(0), 1) == CUresult.CUDA_ERROR_INVALID_VALUE
    other = ready()
    assert code(other.user_object_release, u, 1) == CUresult.CUDA_ERROR_INVALID_VALUE
    assert "driver" in other.last_error().why


def test_graph_retain_makes_new_references_or_moves_the_callers(d):
    """Flags 0 add references to the graph; CU_GRAPH_USER_OBJECT_MOVE hands over the caller's."""
    log: list = []
    u = make(d, log, refs=2)
    g = d.graph_create(0)
    d.graph_retain_user_object(g, u, 1, 0)
    assert (obj(d, u).refs, obj(d, u).caller) == (3, 2)
    d.graph_retain_user_object(g, u, 2, MOVE)
    assert (obj(d, u).refs, obj(d, u).caller) == (3, 0) and d.handles.graph(g).user_refs == {obj(d, u): 3}
    assert code(d.graph_retain_user_object, g, u, 1, MOVE) == CUresult.CUDA_ERROR_INVALID_VALUE  # caller has 0
    assert code(d.graph_retain_user_object, g, u, 1, 2) == CUresult.CUDA_ERROR_INVALID_VALUE
    assert obj(d, u).refs == 3


@pytest.mark.inferred
def test_graph_release_of_more_than_the_graph_holds_is_refused(d):
    """cuGraphReleaseUserObject beyond the graph's references: INVALID_VALUE [I], nothing released."""
    log: list = []
    u = make(d, log)
    g = d.graph_create(0)
    d.graph_retain_user_object(g, u, 1, MOVE)
    assert code(d.graph_release_user_object, g, u, 2) == CUresult.CUDA_ERROR_INVALID_VALUE
    assert code(d.graph_release_user_object, d.graph_create(0), u, 1) == CUresult.CUDA_ERROR_INVALID_VALUE
    assert obj(d, u).refs == 1 and log == []
    d.graph_release_user_object(g, u, 1)
    assert log == [("destroyed", 0x1234)] and not d.handles.graph(g).user_refs


def test_graph_destroy_releases_and_a_clone_keeps_its_own(d):
    """A clone copies the graph's references; destroying each graph releases its own."""
    log: list = []
    u = make(d, log)
    g = d.graph_create(0)
    d.graph_retain_user_object(g, u, 1, MOVE)
    c = d.graph_clone(g)
    assert obj(d, u).refs == 2
    d.graph_destroy(g)
    assert log == []
    d.graph_destroy(c)
    assert log == [("destroyed", 0x1234)]


def test_a_child_graph_node_copies_the_child_graphs_references(d):
    """The child graph cloned into a node has references of its own; an exec of the parent holds them too."""
    log: list = []
    u = make(d, log)
    child = d.graph_create(0)
    d.graph_retain_user_object(child, u, 1, MOVE)
    parent = d.graph_create(0)
    d.graph_add_child_graph_node(parent, [], child)
    d.graph_destroy(child)
    x = d.graph_instantiate(parent, 0)
    d.graph_destroy(parent)
    assert log == [] and obj(d, u).refs == 1  # the exec's copy
    d.graph_exec_destroy(x)
    assert log == [("destroyed", 0x1234)]


def test_an_exec_keeps_its_own_copy_until_it_is_destroyed(d):
    """Instantiate copies the graph's references; releasing the graph's and the caller's leaves the exec's."""
    log: list = []
    u = make(d, log)
    g = d.graph_create(0)
    d.graph_add_empty_node(g, [])
    d.graph_retain_user_object(g, u, 1, 0)
    x = d.graph_instantiate(g, 0)
    d.graph_release_user_object(g, u, 1)
    d.user_object_release(u, 1)
    d.graph_launch(x, d.stream_create(0))
    assert log == [] and obj(d, u).refs == 1
    d.graph_exec_destroy(x)
    assert log == [("destroyed", 0x1234)]


def test_the_destructor_never_runs_during_a_replay_that_holds_it():
    """Manual progression: exec destroyed and last release made while its launch is pending; the replay runs
    its host node first, then the destructor runs after the replay, when the draining call ends."""
    d = ready(progression="manual")
    log: list = []
    u = make(d, log)
    s = d.stream_create(1)
    g = d.graph_create(0)
    d.graph_add_host_node(g, [], lambda _p: log.append("host node"), None)
    d.graph_retain_user_object(g, u, 1, MOVE)
    x = d.graph_instantiate(g, 0)
    d.graph_destroy(g)
    d.graph_launch(x, s)
    d.graph_exec_destroy(x)
    assert log == [] and obj(d, u).refs == 1  # the pending launch holds it
    d.stream_synchronize(s)
    assert log == ["host node", ("destroyed", 0x1234)]


def test_cuda_core_graph_builder_flow(d):
    """cuda.core's sequence: create during capture, retain with MOVE on the capture's graph, end, instantiate,
    release the graph's reference, launch; the destructor runs when the exec goes."""
    log: list = []
    s = d.stream_create(1)
    d.stream_begin_capture(s, 0)
    u = make(d, log)  # not a potentially unsafe call: the capture stays ACTIVE
    g = d.stream_get_capture_info(s)[2]
    d.graph_retain_user_object(g, u, 1, MOVE)
    assert d.stream_is_capturing(s) == 1
    assert d.stream_end_capture(s) == g
    x = d.graph_instantiate_with_params(g, 0)
    d.graph_release_user_object(g, u, 1)
    d.graph_launch(x, s)
    d.stream_synchronize(s)
    assert log == []
    d.graph_destroy(g)
    d.graph_exec_destroy(x)
    assert log == [("destroyed", 0x1234)]


def test_an_invalidated_capture_discards_its_graph_and_references(d):
    """The capture graph discarded at the end of an invalidated capture releases the references it held."""
    log: list = []
    s = d.stream_create(1)
    d.stream_begin_capture(s, 0)
    u = make(d, log)
    d.graph_retain_user_object(d.stream_get_capture_info(s)[2], u, 1, MOVE)
    assert code(d.mem_alloc, 16) == CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED  # invalidates (spec 5.2)
    assert log == []
    assert code(d.stream_end_capture, s) == CUresult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
    assert log == [("destroyed", 0x1234)]


@pytest.mark.inferred
def test_exec_update_replaces_the_execs_references(d):
    """cuGraphExecUpdate gives the exec new references to the source graph's objects and drops its old ones."""
    log: list = []
    a, b = make(d, log, ptr=0xA), make(d, log, ptr=0xB)
    g1, g2 = d.graph_create(0), d.graph_create(0)
    for g, u in ((g1, a), (g2, b)):
        d.graph_add_empty_node(g, [])
        d.graph_retain_user_object(g, u, 1, MOVE)
    x = d.graph_instantiate(g1, 0)
    d.graph_destroy(g1)
    d.graph_exec_update(x, g2)
    assert log == [("destroyed", 0xA)]
    d.graph_destroy(g2)
    d.graph_exec_destroy(x)
    assert log == [("destroyed", 0xA), ("destroyed", 0xB)]


@pytest.mark.inferred
def test_calls_from_a_destructor_are_refused_with_800(d):
    """The destructor runs as a host function: its driver calls answer NOT_PERMITTED and change nothing."""
    seen: list = []

    def destroy(_p):
        seen.append(code(d.stream_create, 0))
    u = d.user_object_create(0, destroy, 1, 1)
    streams = len(d.threads.ctx_current().streams)
    d.user_object_release(u, 1)
    assert seen == [CUresult.CUDA_ERROR_NOT_PERMITTED] and len(d.threads.ctx_current().streams) == streams


def test_a_failing_destructor_is_reported_and_the_release_succeeds(d, capsys):
    """A destructor that raises cannot fail the call that released the object: it is reported on stderr."""
    def destroy(_p):
        raise RuntimeError("boom")
    u = d.user_object_create(0, destroy, 1, 1)
    d.user_object_release(u, 1)
    err = capsys.readouterr().err
    assert "destructor" in err and "boom" in err
