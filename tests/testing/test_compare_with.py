"""CaptureMachine.compare_with: the same programs also run on a second driver, which must agree call by call.

The native route and the real GPU each run in a subprocess of their own: once a ``libcuda.so.1`` is loaded,
NVIDIA's binding keeps it for the life of the process (tests/native/test_native_route.py)."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test

import simcuda
from simcuda.faces import native
from simcuda.faces.bindings import driver as cu
from simcuda.testing import CaptureMachine, Side

RUN = settings(max_examples=60, stateful_step_count=20, deadline=None, database=None,
               suppress_health_check=list(HealthCheck))

#: the program for the subprocesses: the machine with compare_with set, N programs; prints a JSON summary
SCRIPT = textwrap.dedent(r'''
    import json, sys
    import simcuda
    from hypothesis import HealthCheck, Phase, settings
    from hypothesis.stateful import run_state_machine_as_test
    from simcuda.testing import CaptureMachine, Side
    WHERE, N = sys.argv[1], int(sys.argv[2])
    drivers = []

    def run(compare_with):
        class Machine(CaptureMachine):
            pass
        Machine.compare_with = compare_with
        run_state_machine_as_test(Machine, settings=settings(max_examples=N, stateful_step_count=20,
                                  deadline=None, database=None, suppress_health_check=list(HealthCheck)))

    if WHERE == "native":
        with simcuda.patch(route="native"):
            from cuda.bindings import driver as nv

            def side():
                d = simcuda.Driver()
                drivers.append(d)
                return Side(nv, d, "native route")
            run(side)
        begun = sum(d.stats["captures_begun"] for d in drivers)
        print(json.dumps({"ok": True, "module": nv.__file__, "programs": len(drivers), "captures": begun}))
    else:
        try:
            from cuda.bindings import driver as real
            err = real.cuInit(0)[0]
            ok = int(err) == 0 and int(real.cuDeviceGetCount()[1]) > 0
        except Exception as e:  # no driver library, no GPU
            ok, err = False, repr(e)
        if not ok:
            print(json.dumps({"skip": f"no GPU here (cuInit: {err})"}))
            sys.exit(0)
        run(real)
        print(json.dumps({"ok": True}))
''')


def _sub(where: str, n: int) -> dict:
    out = subprocess.run([sys.executable, "-c", SCRIPT, where, str(n)], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def test_compare_with_a_second_simulated_driver():
    """A Side on a second simcuda.Driver runs every call too, and agrees; it sees the same captures begun."""
    drivers: list[simcuda.Driver] = []

    def second() -> Side:
        d = simcuda.Driver()
        drivers.append(d)
        return Side(cu, d, "second driver")

    class Machine(CaptureMachine):
        compare_with = staticmethod(second)

    run_state_machine_as_test(Machine, settings=RUN)
    assert len(drivers) >= RUN.max_examples
    assert sum(d.stats["captures_begun"] for d in drivers) > 0


def test_a_disagreeing_second_driver_is_reported():
    """A second driver that disagrees (here: a simulated one whose unjoined rule is switched off while a call
    runs on it) makes the machine fail, naming that side."""
    from simcuda._core.capture import capture_rules as capture
    real = capture.unjoined

    class Wrong(Side):
        def enter(self) -> None:
            super().enter()
            capture.unjoined = lambda seq: ""

        def leave(self) -> None:
            capture.unjoined = real

    class Machine(CaptureMachine):
        compare_with = staticmethod(lambda: Wrong(cu, simcuda.Driver(), "wrong driver"))

    with pytest.raises(AssertionError, match="wrong driver returned 0, the model predicts 904"):
        run_state_machine_as_test(Machine, settings=settings(RUN, max_examples=1500, phases=[Phase.generate]))
    assert capture.unjoined is real


@pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")
def test_compare_with_the_native_route():
    """NVIDIA's cuda.bindings.driver over the simulated libcuda.so.1 agrees with the Python face and the model
    on 100 programs, and really ran them (captures were begun on its drivers)."""
    got = _sub("native", 100)
    assert got["ok"] and "cuda/bindings" in got["module"].replace("\\", "/")
    assert got["programs"] >= 100 and got["captures"] > 0


def test_compare_with_a_real_gpu():
    """On a machine with a GPU, NVIDIA's driver agrees with the simulator and the model on 200 programs."""
    got = _sub("gpu", 200)
    if "skip" in got:
        pytest.skip(got["skip"])
    assert got["ok"]
