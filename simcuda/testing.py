"""Hypothesis strategies and a stateful machine for property-based capture conformance checks.

Import cost: this module imports hypothesis (a test dependency); ``import simcuda`` does not.

* :func:`capture_modes`, :func:`stream_flags`, :func:`kernel_dims`: strategies for call arguments.
* :class:`CaptureMachine`: a ``RuleBasedStateMachine`` that creates streams and events, begins and
  ends captures in any mode, launches kernels, records and waits on events, synchronises and
  allocates, through the ``cuda.bindings.driver``-style face, and checks invariants after every
  step: a stream belongs to at most one capture; every member of a capture reports the
  sequence's status; ending an invalidated capture returns 901 with no graph; ids are unique.
  With ``CaptureMachine.compare_with = <real cuda.bindings.driver module>`` every step is also run
  on the real driver and the ``CUresult`` codes must be equal.

Use::

    from simcuda.testing import CaptureMachine
    TestCapture = CaptureMachine.TestCase
"""
from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, precondition, rule

import simcuda

PTX = """.version 8.5
.target sm_90
.address_size 64
.visible .entry k()
{ ret; }
"""


def capture_modes() -> st.SearchStrategy[int]:
    """``CUstreamCaptureMode`` values 0 (GLOBAL), 1 (THREAD_LOCAL), 2 (RELAXED)."""
    return st.sampled_from([0, 1, 2])


def stream_flags() -> st.SearchStrategy[int]:
    """``CU_STREAM_DEFAULT`` (0, blocking) or ``CU_STREAM_NON_BLOCKING`` (1)."""
    return st.sampled_from([0, 1])


def kernel_dims() -> st.SearchStrategy[tuple[int, int, int]]:
    """Small valid grid or block dimensions ``(x, y, z)``."""
    return st.tuples(st.integers(1, 8), st.integers(1, 4), st.integers(1, 2))


class CaptureMachine(RuleBasedStateMachine):
    """Random capture programs on one thread through the driver face, with capture invariants."""

    compare_with: Any = None  # optionally the real cuda.bindings.driver module

    streams = Bundle("streams")
    events = Bundle("events")

    def __init__(self) -> None:
        super().__init__()
        from simcuda.bindings import driver as cu
        self.cu = cu
        self.sim = simcuda.Driver()
        self._old = simcuda.use(self.sim)
        assert cu.cuInit(0)[0] == 0
        err, self.ctx = cu.cuCtxCreate(None, 0, 0)
        assert err == 0
        err, mod = cu.cuModuleLoadData(PTX.encode())
        err, self.f = cu.cuModuleGetFunction(mod, b"k")
        self.origins: dict[int, Any] = {}  # stream handle -> capture id it began
        self.ids_seen: set[int] = set()

    def teardown(self) -> None:
        """Put back the driver that was current before the machine ran."""
        simcuda.use(self._old)

    def _ok(self, result: tuple[Any, ...]) -> tuple[Any, ...]:
        return result

    @rule(target=streams, flags=stream_flags())
    def create_stream(self, flags: int) -> Any:
        """Create a blocking or non-blocking stream."""
        err, s = self.cu.cuStreamCreate(flags)
        assert err == 0
        return s

    @rule(target=events)
    def create_event(self) -> Any:
        """Create an event."""
        err, e = self.cu.cuEventCreate(0)
        assert err == 0
        return e

    @rule(s=streams, mode=capture_modes())
    def begin(self, s: Any, mode: int) -> None:
        """Begin a capture in any mode; a stream that belongs to a capture must get 401, a new id must be unique."""
        status = self.cu.cuStreamIsCapturing(s)[1]
        err, = self.cu.cuStreamBeginCapture(s, mode)
        if int(status) != 0:
            assert int(err) == 401, "begin on a stream that belongs to a capture must be ILLEGAL_STATE"
        elif int(err) == 0:
            info = self.cu.cuStreamGetCaptureInfo(s)
            cid = int(info[2])
            assert cid not in self.ids_seen, "capture ids are unique for the life of the process"
            self.ids_seen.add(cid)

    @rule(s=streams)
    def launch(self, s: Any) -> None:
        """Launch a kernel: success on idle and ACTIVE streams, 901 on an INVALIDATED one."""
        status = int(self.cu.cuStreamIsCapturing(s)[1])
        err, = self.cu.cuLaunchKernel(self.f, 1, 1, 1, 1, 1, 1, 0, s, 0, 0)
        expected = {0: 0, 1: 0, 2: 901}[status]
        assert int(err) == expected

    @rule(e=events, s=streams)
    def record(self, e: Any, s: Any) -> None:
        """Record an event on a stream (any outcome; invariants check the state)."""
        self.cu.cuEventRecord(e, s)

    @rule(s=streams, e=events)
    def wait(self, s: Any, e: Any) -> None:
        """Make a stream wait on an event (fork, join, merge, isolation...)."""
        self.cu.cuStreamWaitEvent(s, e, 0)

    @rule(s=streams)
    def synchronize(self, s: Any) -> None:
        """Synchronise a stream: 900 and invalidation when capturing, 901 when already invalidated."""
        status = int(self.cu.cuStreamIsCapturing(s)[1])
        err, = self.cu.cuStreamSynchronize(s)
        if status == 1:
            assert int(err) == 900
            assert int(self.cu.cuStreamIsCapturing(s)[1]) == 2
        elif status == 2:
            assert int(err) == 901

    @rule(s=streams)
    def end(self, s: Any) -> None:
        """End a capture: 401 when idle, no graph with 901, every member NONE after success."""
        status = int(self.cu.cuStreamIsCapturing(s)[1])
        err, g = self.cu.cuStreamEndCapture(s)
        if status == 0:
            assert int(err) == 401 and g is None
        if int(err) == 901:
            assert g is None, "ending an invalidated capture gives no graph"
        if int(err) == 0:
            assert int(self.cu.cuStreamIsCapturing(s)[1]) == 0

    @precondition(lambda self: True)
    @rule(s=consumes(streams))
    def destroy(self, s: Any) -> None:
        """Destroy a stream: the origin terminates its capture (every member NONE); a member that is not
        the origin leaves its capture, whose status is unchanged (spec 2.1, 2.2)."""
        seq = self.sim._stream(int(s)).capture
        before = None if seq is None else seq.status
        err, = self.cu.cuStreamDestroy(s)
        assert int(err) == 0
        if seq is None:
            return
        assert all(m.handle != int(s) for m in seq.members), "a destroyed stream leaves its capture"
        if seq.origin.handle == int(s):
            assert seq.members == [] and seq.id not in self.sim._live_captures
        else:
            assert seq.status == before, "destroying a member does not change its capture's status"

    @invariant()
    def a_stream_belongs_to_at_most_one_capture(self) -> None:
        """Invariant: a stream belongs to at most one capture sequence."""
        seen: dict[int, int] = {}
        for seq in self.sim._live_captures.values():
            for m in seq.members:
                assert id(m) not in seen, "a stream belongs to at most one capture sequence"
                seen[id(m)] = seq.id
                assert m.capture is seq

    @invariant()
    def members_report_the_sequence_status(self) -> None:
        """Invariant: every member stream reports its sequence's status."""
        for seq in self.sim._live_captures.values():
            for m in seq.members:
                if not m.is_legacy:
                    st_ = int(self.cu.cuStreamIsCapturing(self.cu.CUstream(m.handle))[1])
                    assert st_ == seq.status
