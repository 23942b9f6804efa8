"""``driver.stats`` counts only what happened: a refused call (906, 901, 900, 401, 1) changes no counter, and a
graph launch counts when its replay runs."""
from __future__ import annotations

import pytest

from simcuda import Driver, DriverError

from .conftest import with_exec

SRC = b'extern "C" __global__ void k() {}'
LEGACY = 1
GLOBAL, RELAXED = 0, 2
NONE, ACTIVE, INVALIDATED = 0, 1, 2


def refused(code, fn, *args):
    """Call ``fn``; assert it raises ``code``."""
    with pytest.raises(DriverError) as ei:
        fn(*args)
    assert int(ei.value.code) == code


def test_graph_launch_refused_906_is_not_counted():
    """cuGraphLaunch on the legacy stream while a blocking stream captures: 906, the capture is invalidated, nothing is
    counted or run."""
    d = with_exec()
    d.stream_begin_capture(d.s, RELAXED)
    before = dict(d.stats)
    refused(906, d.graph_launch, d.x, LEGACY)
    assert d.stats == before and d.stats["graph_launches"] == 0
    assert d.launch_log == [] and d.stream_is_capturing(d.s) == INVALIDATED
    refused(901, d.graph_launch, d.x, d.s)  # into the invalidated capture
    assert d.stats == before


def test_kernel_launch_refused_906_or_901_is_not_counted():
    """cuLaunchKernel refused with 906 (legacy stream) and then 901 (invalidated capture) leaves kernel_launches as it
    was."""
    d = with_exec()
    d.stream_begin_capture(d.s, RELAXED)
    d.launch_kernel(d.f, (1, 1, 1), (1, 1, 1), 0, d.s, [])
    assert d.stats["kernel_launches"] == 1  # captured: counted
    refused(906, d.launch_kernel, d.f, (1, 1, 1), (1, 1, 1), 0, LEGACY, [])
    assert d.stats["kernel_launches"] == 1 and d.stream_is_capturing(d.s) == INVALIDATED
    refused(901, d.launch_kernel, d.f, (1, 1, 1), (1, 1, 1), 0, d.s, [])
    assert d.stats["kernel_launches"] == 1
    refused(901, d.stream_end_capture, d.s)
    assert d.stats["captures_ended"] == 1 and d.stream_is_capturing(d.s) == NONE  # that end ended it
    d.launch_kernel(d.f, (1, 1, 1), (1, 1, 1), 0, d.s, [])
    assert d.stats["kernel_launches"] == 2 and len(d.launch_log) == 1


def test_refused_begin_is_not_counted():
    """cuStreamBeginCapture refused (900 legacy stream, 1 bad mode, 401 already capturing) leaves captures_begun as it
    was."""
    d = with_exec()
    refused(900, d.stream_begin_capture, LEGACY, GLOBAL)
    refused(1, d.stream_begin_capture, d.s, 7)
    assert d.stats["captures_begun"] == 0 and d.stream_is_capturing(d.s) == NONE
    d.stream_begin_capture(d.s, GLOBAL)
    refused(401, d.stream_begin_capture, d.s, GLOBAL)
    g = d.graph_create(0)
    refused(401, d.stream_begin_capture_to_graph, d.s, g, [], [], GLOBAL)
    assert d.stats["captures_begun"] == 1 and d.stream_is_capturing(d.s) == ACTIVE
    d.stream_end_capture(d.s)
    assert d.stats["captures_ended"] == 1


def test_graph_launch_refused_in_capture_is_not_counted():
    """cuGraphLaunch into a capturing stream is 900 and invalidates the capture; graph_launches stays 0."""
    d = with_exec()
    d.stream_begin_capture(d.s, GLOBAL)
    refused(900, d.graph_launch, d.x, d.s)
    assert d.stats["graph_launches"] == 0 and d.stream_is_capturing(d.s) == INVALIDATED


def test_manual_progression_counts_a_graph_launch_when_it_runs():
    """In manual progression an enqueued graph launch is counted when its replay runs (advance), not before."""
    d = Driver(progression="manual")
    d.init(0)
    d.ctx_create(0, 0)
    g = d.graph_create(0)
    d.graph_add_empty_node(g, [])
    x = d.graph_instantiate(g, 0)
    s = d.stream_create(0)
    d.graph_launch(x, s)
    assert d.stats["graph_launches"] == 0 and d.launch_log == []
    d.advance()
    assert d.stats["graph_launches"] == 1 and [r.kind for r in d.launch_log] == ["EMPTY"]
