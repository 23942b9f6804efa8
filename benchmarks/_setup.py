"""Shared set-up of the benchmark scripts: a fresh simulated driver with one context and a kernel."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import simcuda  # noqa: E402
from simcuda.faces.bindings import driver as cu  # noqa: E402

PTX = b""".version 8.5
.target sm_90
.address_size 64
.visible .entry k()
{ ret; }
"""


def fresh_driver() -> tuple:
    """Install a fresh ``simcuda.Driver``, create a context, load kernel ``k``: ``(ctx, function)``."""
    simcuda.use(simcuda.Driver())
    cu.cuInit(0)
    _, ctx = cu.cuCtxCreate(None, 0, 0)
    _, mod = cu.cuModuleLoadData(PTX)
    _, f = cu.cuModuleGetFunction(mod, b"k")
    return ctx, f
