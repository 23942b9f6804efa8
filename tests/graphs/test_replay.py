"""Replay semantics and the launch log (spec 9: topological order, creation order breaking ties)."""
from __future__ import annotations

import numpy as np

from simcuda.faces.bindings import driver as cu

from .conftest import ok


def test_three_launches_increment_a_buffer(env):
    """A captured memset-free graph (copy in, registered kernel, copy out) launched three times: the launch log
    names exec, launch number, graph id, node id, kind and detail, and the bytes grow by one per launch."""
    host = np.zeros(4, np.int32)

    def body(s):
        ok(env.launch(env.inc, s, env.inc_args(env.buf)))
        ok(cu.cuMemcpyDtoHAsync(host, env.buf, 16, s))
    g = env.capture(body)
    gid = ok(cu.cuGraphGetId(g))
    x = ok(cu.cuGraphInstantiate(g, 0))
    for n in (1, 2, 3):
        ok(cu.cuGraphLaunch(x, env.s2))
        ok(cu.cuStreamSynchronize(env.s2))
        assert np.frombuffer(env.read(env.buf), np.int32)[:4].tolist() == [n] * 4
        assert host.tolist() == [n] * 4
        recs = [r for r in env.d.launch_log if r.source == "graph"][-2:]
        assert [(r.source, r.exec_handle, r.launch, r.graph_id, r.node, r.kind) for r in recs] == [
            ("graph", int(x), n, gid, 0, "KERNEL"), ("graph", int(x), n, gid, 1, "MEMCPY")]
        assert recs[0].detail == "inc<<<(1, 1, 1),(1, 1, 1),0>>>" and recs[0].note == "ran Python kernel"
        assert recs[1].detail == "DtoH 16 bytes" and recs[0].stream == int(env.s2)
    assert [r.seq for r in env.d.launch_log] == list(range(9))  # 2 graph records + 1 read per launch


def test_replay_order_is_topological_with_creation_order_ties(env):
    """Nodes run in a topological order; among ready nodes the earlier-created runs first, even when an
    edge added later points from a later node to an earlier one."""
    g = ok(cu.cuGraphCreate(0))
    a = ok(cu.cuGraphAddEmptyNode(g, None, 0))
    b = ok(cu.cuGraphAddEmptyNode(g, None, 0))
    c = ok(cu.cuGraphAddEmptyNode(g, None, 0))
    ok(cu.cuGraphAddDependencies(g, [c], [a], None, 1))  # a waits for c; b is ready first
    ok(cu.cuGraphLaunch(ok(cu.cuGraphInstantiate(g, 0)), env.s2))
    assert [r.node for r in env.d.launch_log] == [1, 2, 0]
    assert b is not None


def test_fork_join_replay(env):
    """A captured fork/join (A; B on s1, C on s2 after A; D joins) replays A, B, C, D in that order."""
    def body(s1):
        ok(env.launch(env.k, s1))
        ok(cu.cuEventRecord(env.e1, s1))
        ok(cu.cuStreamWaitEvent(env.s3, env.e1, 0))
        ok(env.launch(env.k2, s1))
        ok(env.launch(env.k, env.s3))
        ok(cu.cuEventRecord(env.e2, env.s3))
        ok(cu.cuStreamWaitEvent(s1, env.e2, 0))
        ok(env.launch(env.k2, s1))
    g = env.capture(body)
    ok(cu.cuGraphLaunch(ok(cu.cuGraphInstantiate(g, 0)), env.s2))
    assert [(r.node, r.detail.split("<")[0]) for r in env.d.launch_log] == [(0, "k"), (1, "k2"), (2, "k"),
                                                                            (3, "k2")]


def test_child_graph_records_and_event_record_node(env):
    """A child graph replays inside its node (begin/end notes, the child's graph id); an event record node
    completes its event."""
    child = env.capture(lambda s: ok(env.launch(env.inc, s, env.inc_args(env.buf))))
    g = ok(cu.cuGraphCreate(0))
    cn = ok(cu.cuGraphAddChildGraphNode(g, None, 0, child))
    ok(cu.cuGraphAddEventRecordNode(g, [cn], 1, env.e1))
    x = ok(cu.cuGraphInstantiate(g, 0))
    ok(cu.cuGraphLaunch(x, env.s2))
    emb_id = ok(cu.cuGraphGetId(ok(cu.cuGraphChildGraphNodeGetGraph(cn))))
    gid = ok(cu.cuGraphGetId(g))
    log = [(r.kind, r.graph_id, r.node, r.note) for r in env.d.launch_log]
    assert log == [("GRAPH", gid, 0, f"child graph graph_{emb_id} begins"),
                   ("KERNEL", emb_id, 0, "ran Python kernel"),
                   ("GRAPH", gid, 0, f"child graph graph_{emb_id} ends"),
                   ("EVENT_RECORD", gid, 1, "event recorded")]
    assert ok(cu.cuEventQuery(env.e1)) is None
    assert np.frombuffer(env.read(env.buf), np.int32)[:4].tolist() == [1, 1, 1, 1]


def test_unregistered_kernels_are_recorded_only(env):
    """A kernel without a Python implementation is recorded with a note and changes no memory."""
    ok(cu.cuGraphLaunch(ok(cu.cuGraphInstantiate(env.kernels(1), 0)), env.s2))
    assert env.d.launch_log[0].note == "recorded only (no Python kernel registered)"


def test_graph_edits_after_instantiate_do_not_reach_the_exec(env):
    """An exec holds a frozen copy: node parameter changes and new nodes in the graph are not replayed."""
    g = env.capture(lambda s: ok(cu.cuMemsetD32Async(env.buf, 1, 4, s)))
    (node,) = env.nodes(g)
    x = ok(cu.cuGraphInstantiate(g, 0))
    mp = ok(cu.cuGraphMemsetNodeGetParams(node))
    mp.value = 2
    ok(cu.cuGraphMemsetNodeSetParams(node, mp))
    ok(cu.cuGraphAddEmptyNode(g, [node], 1))
    ok(cu.cuGraphLaunch(x, env.s2))
    assert np.frombuffer(env.read(env.buf), np.int32)[:4].tolist() == [1, 1, 1, 1]
    assert [r.source for r in env.d.launch_log] == ["graph", "stream"]  # the replay, then the read
