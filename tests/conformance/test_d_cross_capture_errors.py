"""Section D of conformance-cases.md: errors that cross captures (spec 4.1 rows 7, 10, 11, 8)."""
from __future__ import annotations

import pytest


def test_c061_isolation_waiting_on_work_recorded_before_the_capture(cu):
    """A capturing stream waiting on an event recorded before the capture gets 905 and the capture is invalidated."""
    cu.ok(cu.K(cu.s1))                      # P, runs now
    cu.ok(cu.rec(cu.e0, cu.s1))
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(cu.wait(cu.s1, cu.e0), 905)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


def test_c062_isolation_from_a_side_stream_that_is_not_capturing(cu):
    """Waiting on an event recorded by uncaptured work on another stream gets 905 and invalidates the capture."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s2))                      # Q, runs now
    cu.ok(cu.rec(cu.e2, cu.s2))
    cu.err(cu.wait(cu.s1, cu.e2), 905)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.iscap(cu.s2, cu.NONE)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c063_idle_stream_waits_on_an_event_of_an_invalidated_capture(cu):
    """An idle stream cannot fork into an invalidated capture: the wait returns 1 and the stream stays idle."""
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.err(d.cuStreamSynchronize(cu.s1), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.wait(cu.s3, cu.e1), 1)
    cu.iscap(cu.s3, cu.NONE)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)


@pytest.mark.inferred
def test_c065_waiting_on_a_never_recorded_event_during_capture(cu):
    """Waiting on a never-recorded event during capture succeeds and adds nothing to the deps set."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.wait(cu.s1, cu.e3))
    st, _, _, deps, eds, n = cu.info(cu.s1)
    assert st == cu.ACTIVE and list(deps) == [] and list(eds) == [] and n == 0
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([], [])


def test_c066_a_wait_that_joins_nothing_new(cu):
    """Joining an event whose nodes are already in the deps set adds no duplicate."""
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.K(cu.s1))                      # A
    cu.ok(cu.rec(cu.e1, cu.s1))
    cu.ok(cu.wait(cu.s2, cu.e1))
    cu.ok(cu.rec(cu.e2, cu.s2))
    cu.ok(cu.wait(cu.s1, cu.e2))
    _, _, g, deps, eds, n = cu.info(cu.s1)
    A = cu.nodes(g)[0]
    assert [int(x) for x in deps] == [int(A)] and len(eds) == 1 and n == 1
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    cu.iscap(cu.s2, cu.NONE)
    assert cu.shape(g) == ([cu.KERNEL], [])
