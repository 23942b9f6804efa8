"""pytest plugin for simcuda (registered under the ``pytest11`` entry point).

Fixtures:
    simcuda_driver: a fresh :class:`simcuda.Driver`, installed as the current default for the test
        and replaced afterwards.
    patched_cuda: like ``simcuda_driver``, and the simulated faces installed under
        ``cuda.bindings.*`` (and the legacy ``cuda.cuda``/``cuda.cudart``/``cuda.nvrtc``) for the
        test; yields the driver.

Marker:
    ``@pytest.mark.simcuda``: run the test with ``patched_cuda`` applied automatically;
    ``@pytest.mark.simcuda(route="native")`` takes that route for the test (``"python"``, ``"native"`` or
    ``"auto"``; without it, ``$SIMCUDA_ROUTE``, else ``"python"``: :func:`simcuda._patch.route_of`);
    ``@pytest.mark.simcuda(devices=2)`` gives the test's driver two devices (the ``simcuda_driver`` fixture reads it
    too; default one). On the
    native route NVIDIA's own ``cuda.bindings.driver`` runs over the simulated ``libcuda.so.1``, and it keeps
    that library for the rest of the pytest process (docs/native.md): a session that also tests a real GPU
    runs those tests in a process of their own. cuda.core and numba-cuda keep their own device and context
    state for the whole process, made from the driver current at their first call: a fresh driver per test
    (what these fixtures give) leaves them holding the handles of a replaced one, so test cuda.core code on the
    native route either in one test per process (a subprocess, as simcuda's own tests do) or under one driver
    for the session (``simcuda.patch(route="native")`` entered once, e.g. in a session fixture).

simcuda is imported lazily, so installing it costs nothing in test sessions that do not use it.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

MARKER = "simcuda"


def pytest_configure(config: Any) -> None:
    """Register the ``simcuda`` marker."""
    config.addinivalue_line("markers", f"{MARKER}(route=None, devices=1): run the test against a fresh simulated "
                                       "CUDA driver, with cuda.bindings patched (route: python, native or auto)")


@pytest.fixture
def simcuda_driver(request: Any) -> Iterator[Any]:
    """A fresh simulated driver, current for the duration of the test: ``N`` default devices when the test's
    ``simcuda`` marker says ``devices=N``, else one."""
    import simcuda
    marker = request.node.get_closest_marker(MARKER)
    n = marker.kwargs.get("devices", 1) if marker is not None else 1
    drv = simcuda.Driver(devices=[simcuda.DeviceSpec() for _ in range(int(n))])
    old = simcuda.use(drv)
    try:
        yield drv
    finally:
        simcuda.use(old)


@pytest.fixture
def patched_cuda(simcuda_driver: Any, request: Any) -> Iterator[Any]:
    """``simcuda_driver`` plus ``cuda.bindings.*`` patched to the simulated driver, on the route the test's
    ``simcuda`` marker names (``route=...``), else the default route."""
    import simcuda
    marker = request.node.get_closest_marker(MARKER)
    route = marker.kwargs.get("route") if marker is not None else None
    with simcuda.patch(route=route):
        yield simcuda_driver


def pytest_collection_modifyitems(items: list[Any]) -> None:
    """Give every test marked ``simcuda`` the ``patched_cuda`` fixture."""
    for item in items:
        if item.get_closest_marker(MARKER) is not None and "patched_cuda" not in getattr(item, "fixturenames", ()):
            item.fixturenames.append("patched_cuda")
