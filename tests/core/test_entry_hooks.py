"""Entry hooks (``Driver.add_hook``): observe a core entry without subclassing the driver."""
from __future__ import annotations

import pytest

from simcuda import Driver, DriverError
from simcuda._core.state import ENTRIES

from .conftest import ready


def test_before_and_after_see_the_call_and_its_result(d):
    """before gets the arguments and returns a token; after gets the result and that token."""
    seen = []
    d.add_hook("stream_create", before=lambda drv, a, k: ("tok", a),
               after=lambda drv, a, k, r, tok: seen.append((a, r, tok)))
    h = d.stream_create(1, 0)
    assert seen == [((1, 0), h, ("tok", (1, 0)))]
    assert d.stream_get_flags(h) == 1


def test_after_runs_only_when_the_call_succeeds(d):
    """A refused call runs before but not after, and the refusal still reaches the caller and the error log."""
    calls = []
    d.add_hook("stream_destroy", before=lambda drv, a, k: calls.append("before"),
               after=lambda drv, a, k, r, t: calls.append("after"))
    with pytest.raises(DriverError) as ei:
        d.stream_destroy(0xBAD)
    assert int(ei.value.code) == 400 and calls == ["before"]
    assert d.error_log[-1].call == "cuStreamDestroy"
    d.stream_destroy(d.stream_create(0))
    assert calls == ["before", "before", "after"]


def test_failed_runs_only_when_the_body_raises(d):
    """failed gets the DriverError and before's token when the body refuses the call; never on success, and the
    refusal still reaches the caller."""
    seen = []
    d.add_hook("stream_destroy", before=lambda drv, a, k: "tok",
               failed=lambda drv, a, k, e, tok: seen.append((int(e.code), tok)))
    with pytest.raises(DriverError):
        d.stream_destroy(0xBAD)
    d.stream_destroy(d.stream_create(0))
    assert seen == [(400, "tok")]


def test_unknown_entry_name_is_a_value_error(d):
    """add_hook names a registered entry; anything else is ValueError and installs nothing."""
    with pytest.raises(ValueError):
        d.add_hook("stream_frobnicate", after=lambda *a: None)
    assert d._hooks == {}
    assert "stream_create" in ENTRIES and "graph_destroy" in ENTRIES


def test_hooks_belong_to_one_driver(d):
    """A hook on one driver does not observe another driver's calls."""
    seen = []
    d.add_hook("stream_create", after=lambda drv, a, k, r, t: seen.append(drv))
    other = ready()
    other.stream_create(0)
    assert seen == []
    d.stream_create(0)
    assert seen == [d]


@pytest.mark.parametrize("kwargs, exc", [
    ({"devices": []}, ValueError), ({"devices": [{}]}, TypeError), ({"devices": "H100"}, TypeError),
    ({"available": "no"}, TypeError), ({"progression": "lazy"}, ValueError),
    ({"options": {"launch_log_limit": 5}}, TypeError),
])
def test_driver_arguments_are_checked_at_construction(kwargs, exc):
    """Driver(...) refuses a wrong argument at once with TypeError/ValueError, never later as AttributeError."""
    with pytest.raises(exc):
        Driver(**kwargs)
