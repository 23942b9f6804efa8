"""Property-based conformance: random capture programs keep the capture invariants."""
from hypothesis import HealthCheck, settings

from simcuda.testing import CaptureMachine

CaptureMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=30, deadline=None,
                                            suppress_health_check=[HealthCheck.too_slow])
TestCaptureMachine = CaptureMachine.TestCase
