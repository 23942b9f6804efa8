"""The conformance suite on both CPU routes: simcuda's Python face, and NVIDIA's binding over the simulated library.

Each route runs ``pytest tests/conformance`` in a process of its own (``SIMCUDA_ROUTE`` selects the route of
the ``fake`` backend, tests/conformance/conftest.py): once the simulated ``libcuda.so.1`` is loaded, NVIDIA's
binding keeps it for the life of the process. The two routes must agree case by case: the same cases pass and
the same cases skip. In a process where the simulated library is loaded, every ``real`` case skips, saying why.
"""
from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from simcuda.faces import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

ROOT = Path(__file__).resolve().parents[2]
LOADED = "the simulated libcuda.so.1 is loaded in this process"
STUB_LINE = "simcuda native route: entries answered by the 801 stub: "


def _env(route: str | None) -> dict[str, str]:
    drop = {"SIMCUDA_ROUTE", "CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", "SIMCUDA_CONFORMANCE_TYPECHECK",
            "SIMCUDA_CONFORMANCE_UB"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    if route is not None:
        env["SIMCUDA_ROUTE"] = route
    return env


def _outcomes(xml: Path) -> dict[str, tuple[str, str]]:
    """``{case id: (outcome, message)}`` from a junit XML file (outcome: passed, skipped, failed, error)."""
    out = {}
    for case in ET.parse(xml).getroot().iter("testcase"):
        key = f"{case.get('classname')}::{case.get('name')}"
        outcome, message = "passed", ""
        for tag in ("skipped", "failure", "error"):
            el = case.find(tag)
            if el is not None:
                outcome = {"failure": "failed"}.get(tag, tag)
                message = el.get("message") or ""
                break
        out[key] = (outcome, message)
    return out


def _run(tmp_path: Path, route: str | None, *args: str, prelude: str = "") -> tuple[dict[str, tuple[str, str]], str]:
    xml = tmp_path / f"{route or 'default'}.xml"
    argv = ["tests/conformance", "-q", "-p", "no:cacheprovider", f"--junitxml={xml}", *args]
    code = f"import sys, pytest\n{prelude}\nsys.exit(pytest.main({argv!r}))"
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(route), capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-3000:]
    return _outcomes(xml), r.stdout


@pytest.fixture(scope="module")
def routes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict[str, tuple[str, str]], str]]:
    tmp = tmp_path_factory.mktemp("routes")
    return {route: _run(tmp, route) for route in ("python", "native")}


def test_both_routes_agree_on_every_case(routes):
    py, nat = routes["python"][0], routes["native"][0]
    assert set(py) == set(nat) and py
    fake = sorted(k for k in py if "[fake" in k)
    differ = [(k, py[k], nat[k]) for k in fake if py[k][0] != nat[k][0]]
    assert differ == [], differ
    assert not [k for k, (o, _m) in nat.items() if o in ("failed", "error")]
    assert sum(py[k][0] == "passed" for k in fake) > 150  # the suite really ran on both routes


def test_native_route_leaves_no_case_to_the_not_simulated_stub(routes):
    """Every entry the binding called with no adapter is one the Python face does not simulate either."""
    from simcuda.faces.bindings import driver as face

    line = [x for x in routes["native"][1].splitlines() if x.startswith(STUB_LINE)]
    assert line, routes["native"][1][-2000:]
    listed = line[0][len(STUB_LINE):]
    names = [] if listed == "none" else [item.split("@")[0] for item in listed.split(", ")]
    assert [n for n in names if n not in face._NOT_SIMULATED] == []


def test_real_backend_skips_where_the_simulated_library_is_loaded(routes):
    real = {k: v for k, v in routes["native"][0].items() if "[real" in k}
    assert real and all(o == "skipped" and LOADED in m for o, m in real.values()), real


def test_real_backend_skips_after_a_plain_load_on_the_python_route(tmp_path):
    """Not only the native route: any process that loaded the simulated library keeps the real backend out."""
    out, _ = _run(tmp_path, None, "-k", "c001", prelude="import simcuda.faces.native as n; n.load()")
    real = {k: v for k, v in out.items() if "[real" in k}
    assert real and all(o == "skipped" and LOADED in m for o, m in real.values()), out
    assert any("[fake" in k and o == "passed" for k, (o, _m) in out.items())
