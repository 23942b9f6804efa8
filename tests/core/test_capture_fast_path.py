"""The hand-inlined hot path of a captured launch (``Driver.launch_kernel_fast`` and the chain case of
``capture.enqueue_kernel``) builds what the general path builds: every slot of the node and edge set, the
same handles, edges, dependencies and captured runs, and the entry wrapper's bookkeeping of a failure."""
from __future__ import annotations

import pytest

from simcuda import Driver, DriverError
from simcuda._core.graphs.graph_model import Edge, Node, pair_index

from .conftest import SRC, ready


def _capture(fast: bool, pairs: bool) -> tuple[Driver, list[tuple]]:
    """Capture a 5-kernel chain on a fresh driver, through the fast path or the wrapper (with the pair
    index built, which the inline path leaves to add_node); a summary of the graph."""
    d = ready()
    f = d.module_get_function(d.module_load_data(SRC), "k")
    s = d.stream_create(0)
    d.stream_begin_capture(s, 0)
    st = d.handles.table[s]
    launch = d.launch_kernel_fast if fast else d.launch_kernel
    args: list = []
    for i in range(5):
        launch(f, (1, 1, 1), (1, 1, 1), 0, s, args)
        if pairs and i == 0:
            pair_index(st.capture.graph)
    g = st.capture.graph
    for n in g.nodes:
        for slot in Node.__slots__:
            getattr(n, slot)  # raises AttributeError for a slot the inline path forgot
    for e in g.edges:
        for slot in Edge.__slots__:
            getattr(e, slot)
    h0 = g.nodes[0].handle  # handle values differ between drivers: compare the sequence
    summary = [(n.handle - h0, n.local_id, n.type, n.params is g.nodes[0].params, n.destroyed,
                [(e.src.local_id, e.ed) for e in n.ins], [(e.dst.local_id, e.ed) for e in n.outs]) for n in g.nodes]
    summary.append((list(st.capture.captured), [(n.local_id, ed) for n, ed in st.deps], d.handles.next_handle - h0,
                    d.stats["kernel_launches"], len(g.edges)))
    return d, summary


@pytest.mark.parametrize("pairs", [False, True])
def test_fast_path_builds_what_the_wrapper_builds(pairs: bool) -> None:
    assert _capture(True, pairs)[1] == _capture(False, pairs)[1]


def test_fast_path_failure_bookkeeping_and_fallbacks() -> None:
    d = ready()
    f = d.module_get_function(d.module_load_data(SRC), "k")
    with pytest.raises(DriverError) as ei:
        d.launch_kernel_fast(f, (1, 1, 1), (1, 1, 1), 0, 0xdead0, [])
    assert ei.value.code == 400
    assert d.last_error() is not None and d.last_error().code == 400
    assert d.error_log[-1].call == "cuLaunchKernel" and d.error_log[-1].code == 400
    seen = []
    d.add_hook("launch_kernel", before=lambda drv, a, kw: seen.append((a, kw)))
    d.launch_kernel_fast(f, (1, 1, 1), (1, 1, 1), 0, 0, [])
    assert seen == [((f, (1, 1, 1), (1, 1, 1), 0, 0, []), {})]  # the wrapper ran, with the face's arguments
    d.close()
    with pytest.raises(DriverError) as ei:
        d.launch_kernel_fast(f, (1, 1, 1), (1, 1, 1), 0, 0, [])
    assert ei.value.code == 4

