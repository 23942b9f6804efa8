"""cuProfilerStart / cuProfilerStop, the worked example of CONTRIBUTING.md: one row each in
simcuda/_core/contexts/context_rows.py and one core function (``profiler_control``); the tuple face, the ``_v2`` face
and the native route build them."""
from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest

import simcuda
from simcuda.faces import native
from simcuda.faces.bindings import driver as d
from simcuda.faces.bindings._v2 import driver as v2

OK, NO_CTX, NOT_INIT = 0, 201, 3


def _codes() -> list[int]:
    """The codes of Start/Stop before cuInit, without a context and with one, on the current driver."""
    out = [int(d.cuProfilerStart()[0])]
    d.cuInit(0)
    out += [int(d.cuProfilerStart()[0]), int(d.cuProfilerStop()[0])]
    _, dev = d.cuDeviceGet(0)
    _, ctx = d.cuDevicePrimaryCtxRetain(dev)
    d.cuCtxSetCurrent(ctx)
    out += [int(d.cuProfilerStart()[0]), int(d.cuProfilerStop()[0]), int(d.cuProfilerStop()[0])]
    return out


def test_tuple_face_gives_the_documented_codes_and_changes_nothing():
    """NOT_INITIALIZED before cuInit, INVALID_CONTEXT with no current context, SUCCESS with one; the context
    stays current and no object is created."""
    drv = simcuda.Driver()
    simcuda.use(drv)
    try:
        assert _codes() == [NOT_INIT, NO_CTX, NO_CTX, OK, OK, OK]
        assert d.cuCtxGetCurrent()[1] is not None and int(d.cuCtxGetCurrent()[1]) != 0
    finally:
        simcuda.reset()


def test_both_python_faces_build_the_entries_from_their_rows():
    """Neither face writes the functions by hand: they are not in the not-simulated lists and _v2 returns None."""
    assert "cuProfilerStart" not in d._NOT_SIMULATED and "cuProfilerStop" not in d._NOT_SIMULATED
    assert "profiler_start" in v2._BUILT and "profiler_stop" in v2._BUILT
    simcuda.use(simcuda.Driver())
    try:
        v2.init(0)
        with pytest.raises(v2.InvalidContextError):
            v2.profiler_start()
        v2.ctx_set_current(v2.device_primary_ctx_retain(v2.device_get(0)))
        assert v2.profiler_start() is None and v2.profiler_stop() is None
    finally:
        simcuda.reset()


#: a fresh interpreter running :func:`_codes` on the route ROUTE
FLOW = "import json, simcuda\n" + inspect.getsource(_codes) + """
with simcuda.patch(simcuda.Driver(), route=ROUTE):
    from cuda.bindings import driver as d
    print(json.dumps(_codes()))
"""


@pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")
def test_the_native_route_gives_the_same_codes():
    """NVIDIA's compiled binding over the simulated libcuda.so.1 gives the same codes as the Python route."""
    got = {}
    for route in ("python", "native"):
        r = subprocess.run([sys.executable, "-c", FLOW.replace("ROUTE", repr(route))], capture_output=True,
                           text=True, timeout=180)
        assert r.returncode == 0, r.stderr
        got[route] = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["native"] == got["python"] == [NOT_INIT, NO_CTX, NO_CTX, OK, OK, OK]
