"""The capture state machine is a table the engine executes (``capture.MACHINE``, spec 2.1): changing a row
changes what the driver does."""
from __future__ import annotations

import pytest

from simcuda import Driver, DriverError
from simcuda._core.capture import capture_rules as cap

from .conftest import ready


@pytest.fixture
def d():
    """An initialised driver with a context and two streams ``d.s1``/``d.s2``."""
    drv = ready()
    drv.s1, drv.s2 = drv.stream_create(1), drv.stream_create(1)
    return drv


def fork(d: Driver) -> None:
    """Begin a GLOBAL capture on s1 and fork s2 into it."""
    d.stream_begin_capture(d.s1, cap.GLOBAL)
    e = d.event_create(0)
    d.event_record(e, d.s1)
    d.stream_wait_event(d.s2, e, 0)


def test_every_live_status_answers_every_event():
    """ACTIVE and INVALIDATED have a row for every event but BEGIN; only NONE begins; rows lead to known statuses."""
    events = {cap.USE, cap.VIOLATE, cap.END_ON_MEMBER, cap.END_WRONG_THREAD, cap.END, cap.ORIGIN_DESTROYED,
              cap.MEMBER_DESTROYED}
    for status in (cap.ACTIVE, cap.INVALIDATED):
        assert {e for (s, e) in cap.MACHINE if s == status} >= events
    assert [s for (s, e) in cap.MACHINE if e == cap.BEGIN] == [cap.NONE]
    assert {t.next for t in cap.MACHINE.values()} <= {cap.ACTIVE, cap.INVALIDATED, cap.TERMINATED}


def test_a_changed_row_changes_the_code_of_a_use(d, monkeypatch):
    """The 901 of a use of an invalidated capture comes from the table: a planted row answers its own code."""
    fork(d)
    with pytest.raises(DriverError) as ei:
        d.stream_synchronize(d.s1)
    assert int(ei.value.code) == 900 and d.stream_is_capturing(d.s2) == cap.INVALIDATED
    with pytest.raises(DriverError) as ei:
        d.event_record(d.event_create(0), d.s2)
    assert int(ei.value.code) == 901
    monkeypatch.setitem(cap.MACHINE, (cap.INVALIDATED, cap.USE), cap.Transition(cap.INVALIDATED, 999, "planted"))
    with pytest.raises(DriverError) as ei:
        d.event_record(d.event_create(0), d.s2)
    assert int(ei.value.code) == 999
    assert d.stream_is_capturing(d.s1) == cap.INVALIDATED


def test_a_changed_row_changes_the_next_status(d, monkeypatch):
    """Ending on a member invalidates because the table says so: a planted row that stays ACTIVE keeps it ACTIVE."""
    monkeypatch.setitem(cap.MACHINE, (cap.ACTIVE, cap.END_ON_MEMBER), cap.Transition(cap.ACTIVE, 903, "planted"))
    fork(d)
    with pytest.raises(DriverError) as ei:
        d.stream_end_capture(d.s2)
    assert int(ei.value.code) == 903
    assert d.stream_is_capturing(d.s1) == cap.ACTIVE and d.stream_is_capturing(d.s2) == cap.ACTIVE


def test_end_codes_come_from_the_table(d, monkeypatch):
    """EndCapture of an invalidated capture answers the END row's code, and still terminates it."""
    monkeypatch.setitem(cap.MACHINE, (cap.INVALIDATED, cap.END), cap.Transition(cap.TERMINATED, 902, "planted"))
    fork(d)
    with pytest.raises(DriverError):
        d.stream_synchronize(d.s2)
    with pytest.raises(DriverError) as ei:
        d.stream_end_capture(d.s1)
    assert int(ei.value.code) == 902
    assert d.stream_is_capturing(d.s1) == cap.NONE and d.stream_is_capturing(d.s2) == cap.NONE
    assert not d.captures.live


def invalidate_by_sync(d: Driver) -> None:
    """Fork s2 into a capture on s1 and invalidate it with a synchronisation of s2 (900)."""
    fork(d)
    with pytest.raises(DriverError):
        d.stream_synchronize(d.s2)
    assert d.stream_is_capturing(d.s1) == cap.INVALIDATED


def test_ending_an_invalidated_capture_on_a_member_is_903_and_it_stays_invalidated(d):
    """INVALIDATED + end on a member: 903, still INVALIDATED; the origin then ends it with 901."""
    invalidate_by_sync(d)
    with pytest.raises(DriverError) as ei:
        d.stream_end_capture(d.s2)
    assert int(ei.value.code) == 903 and d.stream_is_capturing(d.s1) == cap.INVALIDATED
    with pytest.raises(DriverError) as ei:
        d.stream_end_capture(d.s1)
    assert int(ei.value.code) == 901 and d.stream_is_capturing(d.s1) == cap.NONE


def test_ending_an_invalidated_capture_from_another_thread_is_908(d):
    """INVALIDATED + end from another thread (GLOBAL): 908, still INVALIDATED."""
    import threading
    invalidate_by_sync(d)
    out: dict = {}
    ctx = d._stream(d.s1).ctx.handle

    def other() -> None:
        d.ctx_set_current(ctx)
        try:
            d.stream_end_capture(d.s1)
        except DriverError as e:
            out["code"] = int(e.code)
    t = threading.Thread(target=other, daemon=True)
    t.start()
    t.join(10)
    assert out == {"code": 908} and d.stream_is_capturing(d.s1) == cap.INVALIDATED


def test_destroying_the_origin_or_a_member_of_an_invalidated_capture(d):
    """INVALIDATED + member destroyed: still INVALIDATED; + origin destroyed: terminated, every stream NONE."""
    invalidate_by_sync(d)
    s3 = d.stream_create(1)
    e = d.event_create(0)
    with pytest.raises(DriverError):
        d.event_record(e, d.s1)  # a use of an invalidated capture: 901
    d.stream_destroy(d.s2)
    assert d.stream_is_capturing(d.s1) == cap.INVALIDATED
    d.stream_destroy(d.s1)
    assert not d.captures.live and d.stream_is_capturing(s3) == cap.NONE


def test_a_second_violation_keeps_the_first_reason(d):
    """A violation of an already invalidated capture does not replace the reason later whys name."""
    invalidate_by_sync(d)
    with pytest.raises(DriverError) as ei:
        d.ctx_synchronize()
    assert "already invalidated" in ei.value.why
    with pytest.raises(DriverError) as ei:
        d.stream_end_capture(d.s1)
    assert int(ei.value.code) == 901 and "cuStreamSynchronize" in ei.value.why
    assert "cuCtxSynchronize" not in ei.value.why
