"""Fixtures shared by the face tests."""
import pytest

import simcuda


@pytest.fixture
def drv(monkeypatch):
    """A fresh simulated driver installed as the current one (legacy default-stream mode)."""
    monkeypatch.delenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", raising=False)
    d = simcuda.Driver()
    old = simcuda.use(d)
    yield d
    simcuda.use(old)
