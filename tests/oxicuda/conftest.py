"""Fixtures for the oxicuda-style face: a fresh simulated driver per test."""
from __future__ import annotations

from collections.abc import Iterator

import pytest

import simcuda


@pytest.fixture(autouse=True)
def drv() -> Iterator[simcuda.Driver]:
    """A fresh ``simcuda.Driver()``, current (``simcuda.use``) for the test and replaced afterwards."""
    d = simcuda.Driver()
    old = simcuda.use(d)
    try:
        yield d
    finally:
        simcuda.use(old)
