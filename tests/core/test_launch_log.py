"""``driver.launch_log`` is bounded (``Options.launch_log_limit``, :class:`simcuda._core.facade.LaunchLog`): the
bound holds, the most recent records are kept, ``seq`` counts every record made, 0 turns the log off."""
from __future__ import annotations

import pytest

from simcuda import Driver, Options
from simcuda._core.facade import DEFAULT_LAUNCH_LOG_LIMIT, LaunchLog

from .conftest import with_exec

SRC = b'extern "C" __global__ void k() {}'


def launch(d, times):
    """Launch ``d.x`` on ``d.s`` ``times`` times (immediate progression: each replay runs at once)."""
    for _ in range(times):
        d.graph_launch(d.x, d.s)


def test_default_bound_is_at_least_a_million():
    """By default the launch log keeps at least 1,000,000 records."""
    assert Options().launch_log_limit == DEFAULT_LAUNCH_LOG_LIMIT >= 1_000_000
    assert Driver().launch_log.limit == DEFAULT_LAUNCH_LOG_LIMIT


def test_bound_keeps_the_most_recent_records():
    """With launch_log_limit=5 and 12 replayed nodes the log holds the last 5, numbered 7..11, oldest first."""
    d = with_exec(launch_log_limit=5)
    launch(d, 4)
    log = d.launch_log
    assert (len(log), log.total, log.dropped) == (5, 12, 7)
    assert [r.seq for r in log] == [7, 8, 9, 10, 11] and log[0].seq == log.dropped
    assert [(r.launch, r.node) for r in log] == [(3, 1), (3, 2), (4, 0), (4, 1), (4, 2)]
    assert log[-1].launch == 4 and log[-1].node == 2 and log[-5] is log[0]
    assert [r.seq for r in log[1:3]] == [8, 9] and [r.seq for r in reversed(log)] == [11, 10, 9, 8, 7]
    assert log == list(log) and list(log) == log and log != list(log)[1:]
    with pytest.raises(IndexError):
        log[5]
    launch(d, 1)
    assert [r.seq for r in log] == [10, 11, 12, 13, 14] and log.total == 15
    assert d.stats["graph_launches"] == 5  # every launch ran, whatever the log kept


def test_off_switch_logs_nothing_but_counts():
    """launch_log_limit=0 keeps no record of stream work or replays, and the work still runs and is counted."""
    d = with_exec(launch_log_limit=0)
    launch(d, 3)
    buf = d.mem_alloc(16)
    from simcuda._core.memory.memory_model import MemsetParams
    d.memset(MemsetParams(buf, 7, 1, 16, 1, 16), d.s, "cuMemsetD8Async")
    assert d.launch_log == [] and len(d.launch_log) == 0
    assert d.launch_log.total == 10 and d.launch_log.dropped == 10
    assert d.stats["graph_launches"] == 3
    assert bytes(d.memory.device_view(buf, 16, "check")) == b"\x07" * 16


def test_none_keeps_everything_and_clear_restarts_the_count():
    """launch_log_limit=None keeps every record; clear() empties the log and the next record is seq 0."""
    d = with_exec(launch_log_limit=None)
    launch(d, 5)
    assert [r.seq for r in d.launch_log] == list(range(15))
    d.launch_log.clear()
    assert d.launch_log == [] and d.launch_log.total == 0
    launch(d, 1)
    assert [(r.seq, r.launch) for r in d.launch_log] == [(0, 6), (1, 6), (2, 6)]


def test_clear_of_a_wrapped_log():
    """After the ring buffer wrapped, clear() and new records start again in order."""
    d = with_exec(launch_log_limit=4)
    launch(d, 3)
    d.launch_log.clear()
    launch(d, 2)
    assert [r.seq for r in d.launch_log] == [2, 3, 4, 5]
    assert [r.node for r in d.launch_log] == [2, 0, 1, 2]


@pytest.mark.parametrize("bad, exc", [(-1, ValueError), ("10", TypeError), (True, TypeError), (1.5, TypeError)])
def test_bad_limits_are_refused_at_construction(bad, exc):
    """A negative, non-int or bool launch_log_limit raises at Options() (and LaunchLog()) construction."""
    with pytest.raises(exc, match="launch_log_limit"):
        Options(launch_log_limit=bad)
    with pytest.raises(exc, match="launch_log_limit"):
        LaunchLog(bad)


def test_limit_is_fixed_when_the_driver_is_made():
    """launch_log.limit is read-only: the bound a driver was made with cannot be changed under a wrapped log."""
    d = with_exec(launch_log_limit=5)
    with pytest.raises(AttributeError):
        d.launch_log.limit = 8
    assert d.launch_log.limit == 5
