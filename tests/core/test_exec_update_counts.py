"""cuGraphExecUpdate when the two graphs created different numbers of nodes (spec 17, narrowing 16; 9)."""
from __future__ import annotations

import pytest

from simcuda import Driver, DriverError
from simcuda._core.graphs import nodes as nd
from simcuda._core.memory.memory_model import DEVICE, CopyParams


def _graph(d: Driver, kinds: str, destroy: int | None = None) -> int:
    """A graph of a chain of nodes, ``e`` EMPTY and ``c`` MEMCPY, node ``destroy`` then destroyed."""
    a, b = d.mem_alloc(64), d.mem_alloc(64)
    g = d.graph_create(0)
    made: list[int] = []
    for k in kinds:
        deps = made[-1:] if made and (destroy is None or len(made) - 1 != destroy) else []
        made.append(d.graph_add_empty_node(g, deps) if k == "e" else
                    d.graph_add_memcpy_node(g, deps, CopyParams(DEVICE, a, DEVICE, b, 16)))
    if destroy is not None:
        d.graph_destroy_node(made[destroy])
    return g


def _update_result(d: Driver, x: int, g: int) -> tuple[int, int]:
    """The 910 failure's (result, error node) of updating exec ``x`` from graph ``g``."""
    with pytest.raises(DriverError) as ei:
        d.graph_exec_update(x, g)
    assert int(ei.value.code) == 910 and ("spec 17" in ei.value.why or "spec 16" in ei.value.why)
    return ei.value.update_info[0], ei.value.update_info[1]


@pytest.mark.parametrize("old, new, result", [
    ("ee", "eee", nd.UPD_TOPOLOGY_CHANGED),   # cuda.core's topology mismatch (kernels there): no memcpy unpartnered
    ("eee", "ee", nd.UPD_TOPOLOGY_CHANGED),
    ("c", "cc", nd.UPD_NOT_SUPPORTED),        # spec 16 (c)
    ("cc", "c", nd.UPD_NOT_SUPPORTED),        # spec 16 (d)
    ("ce", "cec", nd.UPD_NOT_SUPPORTED),
    ("cc", "cce", nd.UPD_TOPOLOGY_CHANGED),   # the unpartnered node is EMPTY
])
def test_counts_differ(d, old, new, result):
    """Different created counts: NOT_SUPPORTED when an unpartnered node is a memcpy node, else TOPOLOGY_CHANGED,
    error node NULL; the exec still launches as it was (spec 17)."""
    x = d.graph_instantiate(_graph(d, old), 0)
    assert _update_result(d, x, _graph(d, new)) == (result, 0)
    s = d.stream_create(0)
    d.graph_launch(x, s)
    d.stream_synchronize(s)


def test_a_destroyed_node_keeps_its_place(d):
    """Spec 16 (a) and (b): same created count with a destroyed node is TOPOLOGY_CHANGED; against an unrelated
    one-node exec the destroyed memcpy node keeps its place and is unpartnered, so NOT_SUPPORTED; node NULL."""
    g = _graph(d, "cc")
    x = d.graph_instantiate(g, 0)
    assert _update_result(d, x, _graph(d, "cc", destroy=1)) == (nd.UPD_TOPOLOGY_CHANGED, 0)
    x1 = d.graph_instantiate(_graph(d, "c"), 0)
    assert _update_result(d, x1, _graph(d, "cc", destroy=0)) == (nd.UPD_NOT_SUPPORTED, 0)
