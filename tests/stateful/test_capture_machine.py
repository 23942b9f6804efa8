"""Property-based conformance: random capture programs run in lockstep on the engine and on the reference model.

The hypothesis profile ``simcuda-model`` (registered here) runs 2,000 programs, the CI budget; set
``SIMCUDA_MODEL_PROFILE=simcuda-model-deep`` for 20,000 longer ones, or ``SIMCUDA_MODEL_EXAMPLES=N`` for N.
"""
from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

from simcuda.testing import CaptureMachine

_QUIET = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
settings.register_profile("simcuda-model", max_examples=2000, stateful_step_count=20, deadline=None,
                          suppress_health_check=_QUIET, database=None)
settings.register_profile("simcuda-model-deep", max_examples=20000, stateful_step_count=40, deadline=None,
                          suppress_health_check=_QUIET, database=None)

_profile = settings.get_profile(os.environ.get("SIMCUDA_MODEL_PROFILE", "simcuda-model"))
if os.environ.get("SIMCUDA_MODEL_EXAMPLES"):
    _profile = settings(_profile, max_examples=int(os.environ["SIMCUDA_MODEL_EXAMPLES"]))


class ModelCheck(CaptureMachine):
    """The shipped machine, unchanged (a subclass, so that setting its test settings touches no other test)."""


ModelCheck.TestCase.settings = settings(_profile, phases=[Phase.explicit, Phase.generate, Phase.shrink])
#: the machine against the engine: no disagreement in the profile's programs
TestCaptureMachine = ModelCheck.TestCase
