"""Property-based capture conformance: a reference model, a stateful machine and hypothesis strategies.

Import cost: this package imports hypothesis (a test dependency); ``import simcuda`` does not.

* :class:`CaptureModel` (:mod:`simcuda.testing.model`): the capture rules of the spec (modes, threads,
  fork/join, invalidation, the legacy stream, the unjoined rule, the end of a capture) written a second
  time, from ``docs/spec/capture-semantics.md`` and not from the engine, over named streams, events and
  threads. It predicts every call's ``CUresult``, every stream's capture status and every ended graph.
* :class:`CaptureMachine` (:mod:`simcuda.testing.machine`): a hypothesis ``RuleBasedStateMachine`` that runs
  random capture programs on several real threads, in lockstep on the simulator (through
  ``simcuda.faces.bindings.driver``), on the model, and, with ``CaptureMachine.compare_with``, on a second driver
  (NVIDIA's ``cuda.bindings.driver`` on a GPU, or over simcuda's native route), and fails on the first
  disagreement. Subclass it to add rules of your own.
* :mod:`simcuda.testing.strategies`: capture modes, stream and event flags, launch configurations, and
  whole valid or deliberately invalid call programs with the codes the model predicts for them.

Use::

    from simcuda.testing import CaptureMachine
    TestCapture = CaptureMachine.TestCase

docs/testing.md shows the machine, a subclass with a rule of its own, and the strategies.
"""
from __future__ import annotations

try:
    import hypothesis  # noqa: F401 - the package's one dependency beyond simcuda: say so when it is missing
except ImportError as _e:
    raise ModuleNotFoundError(
        "simcuda.testing needs hypothesis, which is not installed here: pip install hypothesis (or, from a "
        "simcuda checkout, its testing extra: pip install '.[testing]'); simcuda itself and its pytest plugin "
        "work without it", name="hypothesis") from _e

from . import strategies
from .machine import PTX, CaptureMachine, Side
from .model import LEGACY, Capture, CaptureModel, Graph
from .strategies import (
                         Call,
                         Program,
                         capture_modes,
                         event_flags,
                         kernel_dims,
                         launch_configs,
                         programs,
                         run_program,
                         stream_flags,
)

__all__ = ["PTX", "CaptureMachine", "Side", "LEGACY", "Capture", "CaptureModel", "Graph", "strategies", "Call",
           "Program", "capture_modes", "event_flags", "kernel_dims", "launch_configs", "programs", "run_program",
           "stream_flags"]
