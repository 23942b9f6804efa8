"""Run at the startup of a Python started by a simulated program (simcuda.inherit): start patched, then run the
``sitecustomize`` that this one hides, if there is one further on ``sys.path``."""
from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys


def _chain() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None and spec.origin != os.path.abspath(__file__):
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


if os.environ.get("SIMCUDA_INHERIT"):  # (simcuda.inherit.ENV) nothing is imported unless a setting is there
    try:
        from simcuda.inherit import start_from_environment
    except ImportError:  # simcuda is not importable by this Python (another environment): start as usual
        pass
    else:
        start_from_environment()
_chain()
