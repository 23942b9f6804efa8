"""simcuda.testing.strategies: the values they draw are what the driver accepts (or refuses), and the programs'
expected codes are the engine's."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

import simcuda
from simcuda.faces.bindings import driver as cu
from simcuda.testing import Side
from simcuda.testing import strategies as sts

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture
def side():
    """A fresh simulated driver with its primary context current and the empty kernel loaded."""
    d = simcuda.Driver()
    old = simcuda.use(d)
    s = Side(cu, d)
    s.setup()
    yield s
    simcuda.use(old)


def test_modes_and_flags_are_accepted(side):
    """Every capture mode, stream flag and event flag drawn is accepted; every invalid mode is INVALID_VALUE."""
    @FAST
    @given(sts.capture_modes(), sts.capture_modes(valid=False), sts.stream_flags(), sts.event_flags())
    def check(mode, bad, sflags, eflags):
        assert int(cu.cuThreadExchangeStreamCaptureMode(mode)[0]) == 0
        assert int(cu.cuThreadExchangeStreamCaptureMode(bad)[0]) == 1
        assert int(cu.cuThreadExchangeStreamCaptureMode(0)[1]) == mode
        err, s = cu.cuStreamCreate(sflags)
        assert int(err) == 0 and int(cu.cuStreamDestroy(s)[0]) == 0
        err, e = cu.cuEventCreate(eflags)
        assert int(err) == 0 and int(cu.cuEventDestroy(e)[0]) == 0
    check()


def test_launch_configurations(side):
    """Valid launch configurations launch; each broken one is refused with INVALID_VALUE."""
    @FAST
    @given(sts.launch_configs(), sts.launch_configs(valid=False), sts.kernel_dims())
    def check(good, bad, dims):
        assert int(cu.cuLaunchKernel(side.fn, *good.args(), cu.CUstream(0), 0, 0)[0]) == 0
        assert int(cu.cuLaunchKernel(side.fn, *bad.args(), cu.CUstream(0), 0, 0)[0]) == 1
        assert int(cu.cuLaunchKernel(side.fn, *dims, *dims, 0, cu.CUstream(0), 0, 0)[0]) == 0
    check()


@FAST
@given(sts.programs(valid=True, threads=3))
def test_valid_programs_succeed_on_the_engine(program):
    """A valid program's calls all succeed, on the model and on the engine."""
    assert set(program.expected) == {0}
    assert sts.run_program(program) == program.expected


@FAST
@given(sts.programs(valid=False, threads=3))
def test_invalid_programs_fail_on_the_engine_where_the_model_says(program):
    """An invalid program ends with a failing call, and the engine returns the model's code for every call."""
    assert program.expected[-1] != 0
    assert sts.run_program(program) == program.expected, str(program)


@FAST
@given(sts.programs())
def test_predict_matches_the_programs_expectations(program):
    """``predict`` replays a program's calls on a fresh model and gives the codes the program carries."""
    assert sts.predict(program.calls) == program.expected
