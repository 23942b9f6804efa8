"""The node-kind registry (:data:`simcuda._core.nodes.KINDS`): every node type the simulator creates has a kind
with every behaviour and a record of its own, and a new kind is one entry that the graph code, replay, DOT,
exec update and the launch log all reach."""
from __future__ import annotations

from typing import Any

import attrs
import pytest

from simcuda import Driver, DriverError
from simcuda._core import graph as gr
from simcuda._core import nodes as nd
from simcuda._core.memory import DEVICE, CopyParams, MemsetParams

from .conftest import SRC, ready

#: what every kind answers (methods) and says (attributes)
BEHAVIOURS = ("describe", "log_detail", "build", "copy", "replay", "update_problem", "dot_pairs", "dot_launch",
              "dot_attributes", "dot_handles", "allocation", "freed", "device_launch_facts")
FLAGS = ("type", "keyword", "record", "can_disable", "device_launch", "device_work", "ticks", "settable", "dot_flag",
         "struct_names", "bold")
#: records that are not frozen attrs classes, and why: KernelParams is hand-slotted for the launch path,
#: CopyParams and MemsetParams are also the operands of eager copies and sets (memory.py)
HAND_SLOTTED = (nd.KernelParams, CopyParams, MemsetParams)


def _graph_of_every_kind(d: Driver) -> tuple[int, dict[int, Any]]:
    """A graph holding one node of every kind the core entries can add: ``(graph handle, type -> node)``."""
    f = d.module_get_function(d.module_load_data(SRC), "k")
    a, b = d.mem_alloc(64), d.mem_alloc(64)
    g = d.graph_create(0)
    child = d.graph_create(0)
    d.graph_add_empty_node(child, [])
    ev = d.event_create(0)
    hs = [d.graph_add_kernel_node(g, [], f, (1, 1, 1), (1, 1, 1), 0, []),
          d.graph_add_memcpy_node(g, [], CopyParams(DEVICE, a, DEVICE, b, 16)),
          d.graph_add_memset_node(g, [], MemsetParams(a, 7, 1, 16)),
          d.graph_add_host_node(g, [], lambda _u: None, None),
          d.graph_add_child_graph_node(g, [], child),
          d.graph_add_empty_node(g, []),
          d.graph_add_event_node(g, [], ev, True),
          d.graph_add_event_node(g, [], ev, False),
          d.graph_add_ext_sem_node(g, [], [0x1234], [(1, 0, 0, 0)], False),
          d.graph_add_ext_sem_node(g, [], [0x1234], [(1, 0, 0, 0)], True),
          d.graph_add_batch_mem_op_node(g, [], [(nd.MEMOP_WRITE_VALUE_32, a, 5, 0)])]
    alloc, dptr = d.graph_add_mem_alloc_node(g, [], 64)
    hs += [alloc, d.graph_add_mem_free_node(g, [alloc], dptr)]
    nodes = [d._objs[h] for h in hs]
    return g, {n.type: n for n in nodes}


def test_every_created_type_has_a_kind_with_every_behaviour(d: Driver) -> None:
    """Each node type the core creates has a registered kind (its own type, keyword and record) with every
    behaviour, and its nodes hold that kind's record."""
    _g, by_type = _graph_of_every_kind(d)
    assert set(by_type) == set(nd.KINDS)  # the kinds are exactly the types the simulator creates
    for t, kind in nd.KINDS.items():
        assert kind.type == t and kind.keyword == nd.TYPE_KEYWORDS[t]
        for name in FLAGS:
            getattr(kind, name)
        for name in BEHAVIOURS:
            assert callable(getattr(kind, name)), (kind.keyword, name)
        n = by_type[t]
        assert isinstance(n.params, kind.record)
        assert isinstance(kind.describe(n.params), str) and isinstance(kind.log_detail(n.params), str)
        assert isinstance(kind.dot_pairs(n.params, False), list)
        assert kind.update_problem(n.params, n.params, d.memory.find, 0) is None  # unchanged: always allowed
        if t != nd.GRAPH:
            assert kind.copy(n.params) is n.params  # records are never mutated, so copies share them


def test_records_are_frozen_and_distinct(d: Driver) -> None:
    """Every kind has a record class; those that are not hand-slotted are frozen, slotted attrs classes."""
    _g, by_type = _graph_of_every_kind(d)
    for t, kind in nd.KINDS.items():
        rec = by_type[t].params
        if kind.record in HAND_SLOTTED:
            assert hasattr(kind.record, "__slots__")
            continue
        assert attrs.has(kind.record) and "__slots__" in vars(kind.record)
        for field in attrs.fields(kind.record):
            with pytest.raises(attrs.exceptions.FrozenInstanceError):
                setattr(rec, field.name, None)


def test_node_getters_return_the_stored_record(d: Driver) -> None:
    """cuGraphNodeGetParams hands out the node's own record (immutable, so shared)."""
    _g, by_type = _graph_of_every_kind(d)
    for t, n in by_type.items():
        assert d.graph_node_get_params(n.handle) == (t, n.params)
        assert d.graph_node_get_params(n.handle)[1] is n.params


@attrs.frozen(slots=True)
class _CondParams:
    """A made-up record for the test kind."""

    handle: int


class _CondKind(nd.NodeKind):
    """A CONDITIONAL kind, as a new kind would be written: the record, the behaviours that differ, one entry."""

    type, keyword, record = nd.CONDITIONAL, "CONDITIONAL", _CondParams
    dot_flag, struct_names = nd.DOT_CONDITIONAL_PARAMS, ("CUDA_CONDITIONAL_NODE_PARAMS", "cudaConditionalNodeParams")

    def describe(self, p: Any) -> str:
        """``cond <handle>``."""
        return f"cond {p.handle}"

    def replay(self, drv: Any, p: Any) -> str:
        """A note only."""
        return f"evaluated condition {p.handle}"

    def update_problem(self, old: Any, new: Any, resolve: Any, flags: int) -> tuple[int, str] | None:
        """The handle is fixed."""
        return None if old.handle == new.handle else (nd.UPD_PARAMETERS_CHANGED, "the handle changed")

    def dot_pairs(self, p: Any, runtime: bool) -> list[nd.Pair]:
        """handle."""
        return [("handle", p.handle)]


def test_a_new_kind_is_one_registry_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Registering one NodeKind makes its nodes describe, draw, replay, log and update through it, with no other
    change anywhere."""
    monkeypatch.setitem(nd.KINDS, nd.CONDITIONAL, _CondKind())
    d = ready()
    s = d.stream_create(0)

    def graph_with(handle: int) -> int:
        h = d.graph_create(0)
        g = d._objs[h]
        e = d._objs[d.graph_add_empty_node(h, [])]
        gr.add_edge(g, e, d._new_node(g, nd.CONDITIONAL, _CondParams(handle)))
        return h

    h = graph_with(3)
    n = d._objs[h].nodes[1]
    assert n.describe() == "cond 3"
    dot = d.dot(h, nd.DOT_CONDITIONAL_PARAMS)
    assert "CONDITIONAL" in dot and "CUDA_CONDITIONAL_NODE_PARAMS" in dot
    assert "{{params | handle} | {CUDA_CONDITIONAL_NODE_PARAMS | 3}}" in dot
    x = d.graph_instantiate(h, 0)
    d.graph_launch(x, s)
    d.stream_synchronize(s)
    rec = [r for r in d.launch_log if r.kind == "CONDITIONAL"]
    assert [(r.detail, r.note) for r in rec] == [("cond 3", "evaluated condition 3")]
    assert d.graph_exec_update(x, graph_with(3))[0] == gr.UPD_SUCCESS
    with pytest.raises(DriverError) as ei:
        d.graph_exec_update(x, graph_with(4))
    assert ei.value.update_info[0] == nd.UPD_PARAMETERS_CHANGED and "the handle changed" in ei.value.why
