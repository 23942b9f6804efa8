"""The node-kind registry (:data:`simcuda._core.graphs.nodes.KINDS`): every node type the simulator creates has a kind
with every behaviour and a record of its own, and a new kind is one entry that the graph code, replay, DOT,
exec update and the launch log all reach."""
from __future__ import annotations

from typing import Any

import attrs
import pytest

from simcuda import Driver, DriverError
from simcuda._core.graphs import nodes as nd
from simcuda._core.memory.memory_model import DEVICE, CopyParams, MemsetParams

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
          d.graph_add_batch_mem_op_node(g, [], [(nd.MEMOP_WRITE_VALUE_32, a, 5, 0)]),
          d.graph_add_conditional_node(g, [], d.graph_conditional_handle_create(g, 0, 0, 0), nd.COND_IF, 1, 0)[0]]
    alloc, dptr = d.graph_add_mem_alloc_node(g, [], 64)
    hs += [alloc, d.graph_add_mem_free_node(g, [alloc], dptr)]
    nodes = [d.handles.table[h] for h in hs]
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


def test_the_conditional_kind_is_reached_only_through_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CONDITIONAL kind (the last one added, P-20..P-31) answers describe, DOT, the launch log and exec update
    through :data:`KINDS`: replacing its entry with a subclass changes what every one of them says."""

    class Marked(nd.ConditionalKind):
        """The real kind, its description and DOT block marked."""

        def describe(self, p: Any) -> str:
            """``marked <real description>``."""
            return "marked " + super().describe(p)

        def dot_pairs(self, p: Any, runtime: bool) -> list[nd.Pair]:
            """One extra line after the real ones."""
            return [*super().dot_pairs(p, runtime), ("mark", 1)]

        def update_problem(self, old: Any, new: Any, resolve: Any, flags: int) -> tuple[int, str] | None:
            """Refuse any update, naming the mark."""
            return (nd.UPD_PARAMETERS_CHANGED, "the marked kind refuses")

    monkeypatch.setitem(nd.KINDS, nd.CONDITIONAL, Marked())
    d = ready()
    s = d.stream_create(0)

    def graph() -> int:
        h = d.graph_create(0)
        cond = d.graph_conditional_handle_create(h, 0, 1, nd.COND_ASSIGN_DEFAULT)
        d.graph_add_conditional_node(h, [d.graph_add_empty_node(h, [])], cond, nd.COND_IF, 1, 0)
        return h

    h = graph()
    n = d.handles.table[h].nodes[1]
    assert n.describe().startswith("marked IF handle 0x")
    dot = d.dot(h, nd.DOT_CONDITIONAL_PARAMS)
    assert "CUDA_CONDITIONAL_NODE_PARAMS" in dot and "| mark}" in dot and "| 1}}" in dot
    x = d.graph_instantiate(h, 0)
    d.graph_launch(x, s)
    d.stream_synchronize(s)
    rec = [r for r in d.launch_log if r.kind == "CONDITIONAL"]
    assert [r.note for r in rec] == ["condition 1: body 0 (graph_2) begins", "body 0 (graph_2) ends"]
    assert rec[0].detail.startswith("marked IF")
    with pytest.raises(DriverError) as ei:
        d.graph_exec_update(x, graph())
    assert ei.value.update_info[0] == nd.UPD_PARAMETERS_CHANGED and "the marked kind refuses" in ei.value.why
