"""The machine finds planted bugs: a capture rule switched off in the engine makes it fail, and the same rule
switched off in the model as well makes it pass again, which shows that the failure came from the model's own,
independent rule (the model does not read the engine's)."""
from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.errors import Flaky
from hypothesis.stateful import run_state_machine_as_test

from simcuda._core.capture import capture_enqueue as capq
from simcuda._core.capture import capture_rules as capture
from simcuda.testing import CaptureMachine, CaptureModel

#: enough programs to meet each planted bug (measured over 8 seeds each: found after 28-439 programs with the
#: unjoined check off, 12-824 with joins making no edge, 6-101 with forks inheriting nothing); the run stops
#: at the first disagreement and does not shrink it, so a found bug costs no more time
HUNT = settings(max_examples=3000, stateful_step_count=20, deadline=None, database=None,
                phases=[Phase.generate], suppress_health_check=list(HealthCheck))


#: the control runs: fewer programs (each of them must pass, so each costs the whole run)
CONTROL = settings(HUNT, max_examples=250)


def _finds(machine: type[CaptureMachine], how: settings = HUNT) -> str:
    """Run ``machine``; the message of the disagreement it finds, or '' when it finds none."""
    try:
        run_state_machine_as_test(machine, settings=how)
    except (AssertionError, Flaky) as e:
        return str(e)
    return ""


def _unjoined_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Engine: the unjoined check of EndCapture (spec 4.4) never fires."""
    monkeypatch.setattr(capture, "unjoined", lambda seq: "")


def _join_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Engine: a wait on an event of the stream's own capture adds no dependency (spec 4.1 row 8); the other
    rows of the same function (merge, isolation) stay."""
    real = capq._join

    def join(seq: Any, stream: Any, op: Any) -> None:
        if op.params.event.capture is not seq:
            real(seq, stream, op)

    monkeypatch.setattr(capq, "_join", join)


def _fork_inherits_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Engine: a stream forked into a capture starts with no dependencies (spec 4.1 row 6)."""
    real = capq._fork

    def fork(drv: Any, stream: Any, op: Any) -> None:
        real(drv, stream, op)
        if stream.capture is not None:
            stream.deps = []

    monkeypatch.setattr(capq, "_fork", fork)


class _NoUnjoined(CaptureModel):
    def is_unjoined(self, c: Any) -> bool:
        return False


class _NoJoin(CaptureModel):
    def join(self, c: Any, s: Any, nodes: list[int]) -> None:
        return None


class _ForkInheritsNothing(CaptureModel):
    def fork(self, c: Any, s: Any, nodes: list[int]) -> None:
        super().fork(c, s, [])


PLANTED = [("unjoined check off", _unjoined_off, _NoUnjoined, "cuStreamEndCapture"),
           ("event wait makes no edge", _join_off, _NoJoin, ""),
           ("fork inherits no dependencies", _fork_inherits_nothing, _ForkInheritsNothing, "")]


@pytest.mark.parametrize(("name", "plant", "model", "where"), PLANTED, ids=[p[0] for p in PLANTED])
def test_the_machine_finds_a_rule_switched_off_in_the_engine(monkeypatch, name, plant, model, where):
    """With the rule switched off in the engine only, the machine reports a disagreement with the model."""
    plant(monkeypatch)

    class Machine(CaptureMachine):
        pass

    found = _finds(Machine)
    assert found, f"the machine did not find the planted bug ({name})"
    assert where in found


@pytest.mark.parametrize(("name", "plant", "model", "where"), PLANTED, ids=[p[0] for p in PLANTED])
def test_the_same_rule_switched_off_in_the_model_too_hides_it(monkeypatch, name, plant, model, where):
    """With the rule switched off in the model as well, the machine finds nothing: the detection above came from
    the model's own rule."""
    plant(monkeypatch)

    class Machine(CaptureMachine):
        model_class = model

    assert _finds(Machine, CONTROL) == ""
