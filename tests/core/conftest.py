"""Helpers shared by the core tests: drivers set up through the core entries directly (no face)."""
from __future__ import annotations

from typing import Any

import pytest

from simcuda import Driver, Options

#: a module with one kernel ``k``
SRC = b'extern "C" __global__ void k() {}'


def ready(**kwargs: Any) -> Driver:
    """A new driver (``Driver(**kwargs)``), initialised, with a context current on this thread."""
    drv = Driver(**kwargs)
    drv.init(0)
    drv.ctx_create(0, 0)
    return drv


def with_exec(**options: Any) -> Driver:
    """:func:`ready`, plus kernel ``d.f``, a blocking stream ``d.s`` and a 3-node exec ``d.x`` (empty, kernel,
    empty)."""
    d = ready(options=Options(**options))
    d.f = d.module_get_function(d.module_load_data(SRC), "k")
    d.s = d.stream_create(0)
    g = d.graph_create(0)
    a = d.graph_add_empty_node(g, [])
    b = d.graph_add_kernel_node(g, [a], d.f, (1, 1, 1), (1, 1, 1), 0, [])
    d.graph_add_empty_node(g, [b])
    d.x = d.graph_instantiate(g, 0)
    return d


@pytest.fixture
def d() -> Driver:
    """An initialised driver with a context."""
    return ready()
