"""pytest plugin for simcuda (registered under the ``pytest11`` entry point).

Two ways in:

* ``pytest --simcuda``: the whole session runs on the simulator. The patch (:func:`simcuda.patch`) is entered
  in ``pytest_configure``, before collection, so test modules (and the code they test) that import
  ``cuda.bindings`` or ``cuda.core`` at module top level get the simulated driver, unmodified. The route is
  native where available (NVIDIA's own ``cuda.bindings`` over the simulated ``libcuda.so.1``), else simcuda's
  Python faces (``--simcuda-route`` picks one). Each test gets a fresh driver (``--simcuda-scope``). At the end
  of the run a short report: captures, graphs, graph launches, calls answered "not simulated", kernels that
  ran with no Python implementation.
* per test, without ``--simcuda``: the ``@pytest.mark.simcuda`` marker or the ``patched_cuda`` fixture patch
  for that test only (code under test must then import ``cuda.bindings`` inside the test).

Error paths and assertions (:mod:`simcuda.faults`): ``@pytest.mark.simcuda_fault("cuMemAlloc", 2, nth=3)`` (one
marker per fault, the arguments of :func:`simcuda.faults.inject`) refuses calls for the whole test; the
``simcuda_faults`` fixture does it from inside the test (``simcuda_faults.inject(...)``, ``.record_calls(...)``,
``.expect_no_failures()``), every fault taken off when the test ends. A failed test's report gets a section
``simcuda: failed calls`` listing the non-success calls it made (entry, code, why), as pytest shows captured logs.

Options (command line / ini setting in ``pytest.ini``, ``pyproject.toml``'s ``[tool.pytest.ini_options]``...):

=============================  ========================  ===============================================
option                         ini                       meaning
=============================  ========================  ===============================================
``--simcuda``                  ``simcuda``               patch the whole session
``--simcuda-route``            ``simcuda_route``         auto (default), native or python
``--simcuda-devices N``        ``simcuda_devices``       number of simulated devices (default 1)
``--simcuda-progression``      ``simcuda_progression``   immediate (default) or manual
``--simcuda-kernels FILE``     ``simcuda_kernels``       files registering Python kernels
``--simcuda-scope``            ``simcuda_scope``         driver lifetime: auto, test or session
``--simcuda-kernel-bounds``    ``simcuda_kernel_bounds`` strict or gpu-like PTX bounds
                                                         (``Options.kernel_bounds``; default
                                                         ``$SIMCUDA_KERNEL_BOUNDS``, else strict)
``--simcuda-real``             ``simcuda_real``          leave a working real GPU driver in place
``--simcuda-raise``            ``simcuda_raise``         every failed call raises ``CallFailed`` at the
                                                         call, kernel faults raise at the launch
                                                         (:func:`simcuda.faults.raise_failures`)
=============================  ========================  ===============================================

simcuda is imported lazily, so installing it costs nothing in test sessions that do not use it.
"""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Generator, Iterator
from typing import Any

import pytest

MARKER = "simcuda"
OPTION = "--simcuda"
_SCOPES = ("auto", "test", "session")
_ROUTES = ("auto", "native", "python")
_PROGRESSIONS = ("immediate", "manual")
_BOUNDS = ("strict", "gpu-like")
#: the report is kept here, and carried from pytest-xdist workers to the controller under this key
_REPORT_KEY = "simcuda_report"
FAULT_MARKER = "simcuda_fault"
#: per test: ``(driver, index of its first error_log record made during the test)`` for each driver it used
_DRIVERS = pytest.StashKey[list[tuple[Any, int]]]()
#: how many failed calls a failed test's report section shows in full
_SECTION_LIMIT = 20

_REAL_PROBE = """\
import ctypes, sys
try:
    lib = ctypes.CDLL("libcuda.so.1")
except OSError as e:
    sys.exit(f"no libcuda.so.1: {e}")
n = ctypes.c_int(0)
if lib.cuInit(0) != 0 or lib.cuDeviceGetCount(ctypes.byref(n)) != 0 or n.value < 1:
    sys.exit("libcuda.so.1 loads but cuInit/cuDeviceGetCount find no device")
"""


def pytest_addoption(parser: Any) -> None:
    """The ``--simcuda*`` options and their ini settings."""
    g = parser.getgroup("simcuda", "simcuda: run CUDA tests on the simulated driver")
    g.addoption(OPTION, action="store_true", default=None,
                help="patch cuda.bindings/cuda.core with the simulated driver before collection (ini: simcuda)")
    g.addoption("--simcuda-route", choices=_ROUTES, default=None,
                help="auto (native where available, the default), native or python (ini: simcuda_route)")
    g.addoption("--simcuda-devices", type=int, default=None, metavar="N",
                help="number of simulated devices (default 1; ini: simcuda_devices)")
    g.addoption("--simcuda-progression", choices=_PROGRESSIONS, default=None,
                help="immediate (default) or manual progression of the simulated work (ini: simcuda_progression)")
    g.addoption("--simcuda-kernels", action="append", default=None, metavar="FILE",
                help="a file registering Python kernels with simcuda.kernel(); repeatable (ini: simcuda_kernels)")
    g.addoption("--simcuda-scope", choices=_SCOPES, default=None,
                help="driver lifetime: auto (default), test or session (ini: simcuda_scope)")
    g.addoption("--simcuda-kernel-bounds", choices=_BOUNDS, default=None,
                help="bounds of PTX kernels' global accesses: strict (memcheck-like) or gpu-like (default: "
                     "$SIMCUDA_KERNEL_BOUNDS, else strict; ini: simcuda_kernel_bounds)")
    g.addoption("--simcuda-real", action="store_true", default=None,
                help="leave a working real GPU driver in place instead of patching (ini: simcuda_real)")
    parser.addini("simcuda", "patch the session with the simulated driver (as --simcuda)", type="bool", default=False)
    parser.addini("simcuda_route", "auto, native or python (as --simcuda-route)", default="auto")
    parser.addini("simcuda_devices", "number of simulated devices (as --simcuda-devices)", default="1")
    parser.addini("simcuda_progression", "immediate or manual (as --simcuda-progression)", default="immediate")
    parser.addini("simcuda_kernels", "files registering Python kernels, one per line", type="paths", default=[])
    parser.addini("simcuda_scope", "driver lifetime: auto, test or session (as --simcuda-scope)", default="auto")
    parser.addini("simcuda_kernel_bounds", "strict or gpu-like (as --simcuda-kernel-bounds); empty: "
                  "$SIMCUDA_KERNEL_BOUNDS, else strict", default="")
    parser.addini("simcuda_real", "leave a working real GPU driver in place", type="bool", default=False)
    g.addoption("--simcuda-raise", action="store_true", default=None,
                help="every simulated call that fails raises simcuda.faults.CallFailed where it was made, and a "
                     "kernel's fault raises at its launch, so a test stops at the first failure (ini: simcuda_raise)")
    parser.addini("simcuda_raise", "failed calls raise at the call (as --simcuda-raise)", type="bool", default=False)


class _Session:
    """The ``--simcuda`` session: its settings, the patch, the session driver and the run's report."""

    def __init__(self, config: Any) -> None:
        def pick(opt: str, ini: str) -> Any:
            v = _option(config, opt)
            return config.getini(ini) if v is None else v
        self.route_asked = str(pick("--simcuda-route", "simcuda_route"))
        self.devices = _positive_int(pick("--simcuda-devices", "simcuda_devices"), "simcuda devices")
        self.progression = str(pick("--simcuda-progression", "simcuda_progression"))
        self.scope_asked = str(pick("--simcuda-scope", "simcuda_scope"))
        kernels = _option(config, "--simcuda-kernels")
        self.kernels = [str(k) for k in (kernels if kernels is not None else config.getini("simcuda_kernels"))]
        self.real = bool(pick("--simcuda-real", "simcuda_real"))
        self.raise_failures = bool(pick("--simcuda-raise", "simcuda_raise"))
        self.kernel_bounds = str(pick("--simcuda-kernel-bounds", "simcuda_kernel_bounds") or "") or None
        if self.kernel_bounds is not None and self.kernel_bounds not in _BOUNDS:
            raise pytest.UsageError(f"simcuda kernel bounds must be one of {_BOUNDS}, not {self.kernel_bounds!r}")
        try:
            from simcuda._core.config import Options
            if self.kernel_bounds is None:
                Options()
        except ValueError as e:  # a malformed SIMCUDA_KERNEL_BOUNDS
            raise pytest.UsageError(f"simcuda: {e}") from None
        for value, allowed, what in ((self.route_asked, _ROUTES, "route"), (self.scope_asked, _SCOPES, "scope"),
                                     (self.progression, _PROGRESSIONS, "progression")):
            if value not in allowed:
                raise pytest.UsageError(f"simcuda {what} must be one of {allowed}, not {value!r}")
        for k in self.kernels:
            if not os.path.isfile(k):
                raise pytest.UsageError(f"simcuda kernels file {k!r}: no such file")
        self.patch: Any = None
        self._exported: dict[str, str | None] | None = None
        self.route = ""
        self.scope = ""
        self.real_why = ""
        self.driver: Any = None
        self.report: dict[str, Any] = _empty_report()
        self.left_open: list[tuple[str, int]] = []  # (test id, captures it left open), ended by the plugin

    def start(self) -> None:
        """Enter the patch (unless a real GPU stays in place) and run the kernels files."""
        import runpy

        import simcuda
        from simcuda._patch import route_of
        if self.real:
            probe = subprocess.run([sys.executable, "-c", _REAL_PROBE], capture_output=True, text=True, timeout=120)
            if probe.returncode == 0:
                self.real_why = "a real GPU driver works here (--simcuda-real): the session is not patched"
                return
        try:
            self.route = route_of(self.route_asked)
        except ValueError as e:
            raise pytest.UsageError(f"simcuda: {e}") from None
        self.driver = self.new_driver()
        self.patch = simcuda.patch(driver=self.driver, route=self.route)
        self.patch.__enter__()
        for k in self.kernels:
            runpy.run_path(k, run_name="simcuda_kernels")
        # a Python a test starts (subprocess, multiprocessing spawn) starts on a simulated driver of its own
        from simcuda import inherit
        self._exported = inherit.export(inherit.settings_of(self.route, self.devices, self.progression,
                                                            self.kernel_bounds, self.kernels))

    def new_driver(self, devices: int | None = None, progression: str | None = None) -> Any:
        """A driver with the session's settings (or the marker's), watched by a recorder for the report (graphs
        destroyed before the end are counted too)."""
        import simcuda
        from simcuda._summary import RecordingDriver
        n = self.devices if devices is None else devices
        choices: dict[str, Any] = {"kernel_bounds": self.kernel_bounds} if self.kernel_bounds else {}
        if self.raise_failures:
            choices["kernel_faults"] = "raise"
        drv = RecordingDriver(devices=[simcuda.DeviceSpec() for _ in range(n)],
                              progression=progression or self.progression,
                              options=simcuda.Options(**choices) if choices else None)
        drv.raise_failures = self.raise_failures
        return drv

    def decide_scope(self) -> None:
        """Resolve ``auto`` once the test modules are imported (after collection)."""
        if self.scope_asked != "auto":
            self.scope = self.scope_asked
        else:
            keeps_state = any(m in sys.modules for m in ("cuda.core", "numba.cuda"))
            self.scope = "session" if keeps_state else "test"

    def stop(self) -> None:
        if self.driver is not None:
            self.add(self.driver)
        _merge(self.report, {"not_simulated": _native_stubs(self.route)})
        if self.patch is not None:
            self.patch.__exit__(None, None, None)
            self.patch = None
        if self._exported is not None:
            from simcuda import inherit
            inherit.unexport(self._exported)
            self._exported = None

    def add(self, drv: Any) -> None:
        """Add what driver ``drv`` saw to the report."""
        _merge(self.report, _report_of(drv))


def _native_stubs(route: str | None) -> dict[str, int]:
    """On the native route, the calls the simulated ``libcuda.so.1`` answered 801 in C (entries with no adapter,
    :func:`simcuda.faces.native.not_simulated_calls`): the driver's log never sees them; ``{}`` on the Python route."""
    if route != "native":
        return {}
    from simcuda.faces import native
    return native.not_simulated_calls()


def _positive_int(value: Any, what: str) -> int:
    try:
        n = int(value)
    except (TypeError, ValueError):
        raise pytest.UsageError(f"{what} must be a positive integer, not {value!r}") from None
    if n < 1:
        raise pytest.UsageError(f"{what} must be a positive integer, not {n}")
    return n


def _empty_report() -> dict[str, Any]:
    return {"drivers": 0, "captures_begun": 0, "captures_ended": 0, "graphs": 0, "graph_launches": 0,
            "kernel_launches": 0, "not_simulated": {}, "no_kernel": {}, "internal": {}, "scopes": {}}


def _report_of(drv: Any) -> dict[str, Any]:
    """What one driver saw: its counters, the calls it answered 801 (not simulated), the kernels it ran with no
    Python implementation and the calls answered 999 for an internal error (a simcuda bug)."""
    from simcuda._summary import graph_records
    st = drv.stats
    rep = _empty_report()
    rep.update(drivers=1, captures_begun=st.get("captures_begun", 0), captures_ended=st.get("captures_ended", 0),
               graphs=len(graph_records(drv)), graph_launches=st.get("graph_launches", 0),
               kernel_launches=st.get("kernel_launches", 0), no_kernel=drv.kernels_without_implementation)
    for rec in drv.error_log:
        if rec.code == 801:
            rep["not_simulated"][rec.call] = rep["not_simulated"].get(rec.call, 0) + 1
        elif rec.internal:  # a 999 for an exception inside simcuda (the native route)
            rep["internal"][rec.call] = rep["internal"].get(rec.call, 0) + 1
    return rep


def _merge(into: dict[str, Any], rep: dict[str, Any]) -> None:
    for key, value in rep.items():
        if isinstance(value, dict):
            for name, n in value.items():
                into[key][name] = into[key].get(name, 0) + n
        else:
            into[key] += value


def _option(config: Any, name: str) -> Any:
    """A ``--simcuda*`` option's value (``None`` when not given), also before ``pytest_configure``: from the
    early namespace pytest parses for ``pytest_load_initial_conftests``."""
    dest = name.lstrip("-").replace("-", "_")
    ns = getattr(config, "known_args_namespace", None)
    if ns is not None and getattr(ns, dest, None) is not None:
        return getattr(ns, dest)
    try:
        return config.getoption(dest)
    except (ValueError, AttributeError):
        return None


def _enabled(config: Any) -> bool:
    on = _option(config, OPTION)
    return bool(config.getini("simcuda") if on is None else on)


def _start(config: Any) -> None:
    """Start the ``--simcuda`` session once (the first of the two hooks below that runs)."""
    if getattr(config, "_simcuda_session", None) is None and _enabled(config):
        s = _Session(config)
        config._simcuda_session = s
        s.start()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_load_initial_conftests(early_config: Any, parser: Any, args: Any) -> Generator[None, None, None]:
    """With ``--simcuda``: patch before the first ``conftest.py`` is imported (a conftest, like a test module,
    may import ``cuda.bindings`` at its top level), and before pytest applies the ini's ``filterwarnings``, which
    imports the modules that name warning classes (numba-cuda's pytest.ini names ``numba.cuda`` ones: imported
    before the patch, numba would look for a real driver): a wrapper registered after pytest's own runs first.
    Only plugins installed by entry point see this hook; one given with ``-p`` starts in ``pytest_configure``
    instead."""
    _start(early_config)
    yield


def _session(config: Any) -> _Session | None:
    s: _Session | None = getattr(config, "_simcuda_session", None)
    return s


def pytest_configure(config: Any) -> None:
    """Register the ``simcuda`` marker; with ``--simcuda``, patch before collection."""
    config.addinivalue_line("markers", f"{MARKER}(route=None, devices=None, progression=None): run the test against "
                                       "a fresh simulated CUDA driver, with cuda.bindings patched (route: python, "
                                       "native or auto)")
    config.addinivalue_line("markers", f"{FAULT_MARKER}(entry, code, nth=None, times=None, when=None): refuse calls "
                                       "of a simulated driver entry with code for the whole test "
                                       "(simcuda.faults.inject)")
    _start(config)


#: what the run says when a suite on the Python route imported a library only the native route serves
PYTHON_ROUTE_NOTE = ("simcuda: {names} imported by this suite run(s) on NVIDIA's compiled layer, which the 'python' "
                     "route does not serve: their first driver call fails with NVIDIA's DynamicLibNotFoundError "
                     "(no real libcuda.so.1). Run with --simcuda-route native (or auto, the default), on which "
                     "they run on the simulated driver (docs/native.md)")


def pytest_collection_finish(session: Any) -> None:
    """With ``--simcuda``: resolve the ``auto`` scope, the test modules now imported; on the Python route, say so
    when the suite imported cuda.core or numba-cuda, which need the native route."""
    s = _session(session.config)
    if s is not None and s.patch is not None:
        s.decide_scope()
        if s.route == "python":
            names = [n for n in ("cuda.core", "numba.cuda") if n in sys.modules]
            tr = session.config.pluginmanager.get_plugin("terminalreporter")
            if names and tr is not None:
                tr.write_line(PYTHON_ROUTE_NOTE.format(names=" and ".join(names)), yellow=True)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: Any) -> None:
    """A pytest-xdist worker under ``--simcuda`` hands its report to the controller (before xdist sends it)."""
    s = _session(session.config)
    if s is not None and hasattr(session.config, "workeroutput") and s.patch is not None:
        rep = _empty_report()
        _merge(rep, s.report)
        _merge(rep, _report_of(s.driver))
        rep["scopes"] = {s.scope or s.scope_asked: 1}
        _merge(rep, {"not_simulated": _native_stubs(s.route)})
        session.config.workeroutput[_REPORT_KEY] = rep


def pytest_unconfigure(config: Any) -> None:
    """With ``--simcuda``: end the patch."""
    s = _session(config)
    if s is not None:
        s.stop()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """pytest-xdist controller: add a worker's report to the run's."""
    s = _session(node.config)
    rep = getattr(node, "workeroutput", {}).get(_REPORT_KEY)
    if s is not None and rep:
        _merge(s.report, rep)


def pytest_terminal_summary(terminalreporter: Any, config: Any) -> None:
    """With ``--simcuda``: the run's report (all workers' under pytest-xdist)."""
    s = _session(config)
    if s is None:
        return
    tr = terminalreporter
    tr.section("simcuda")
    if s.real_why:
        tr.write_line(s.real_why)
        return
    rep = _empty_report()  # (stop() adds the session driver's share and the native stubs again at unconfigure)
    _merge(rep, s.report)
    if s.driver is not None:
        _merge(rep, _report_of(s.driver))
    _merge(rep, {"not_simulated": _native_stubs(s.route)})
    workers = sum(rep["scopes"].values())
    scope = (", ".join(f"{k} ({n} worker{'s' if n != 1 else ''})" for k, n in sorted(rep["scopes"].items()))
             if workers else s.scope or s.scope_asked)
    tr.write_line(f"route: {s.route}; driver scope: {scope}; devices: {s.devices}")
    tr.write_line(f"captures: {rep['captures_begun']} begun, {rep['captures_ended']} ended; graphs: {rep['graphs']}; "
                  f"graph launches: {rep['graph_launches']}; kernel launches taken: {rep['kernel_launches']}")
    if s.left_open:
        tr.write_line("captures left open by a test and ended by simcuda (the next test started clean): "
                      + ", ".join(f"{t} x{n}" for t, n in s.left_open))
    for key, title in (("not_simulated", "calls answered 801 (not simulated)"),
                       ("no_kernel",
                        "kernels that could not run (no Python twin, no PTX the engine runs; "
                        "refused or recorded only)"),
                       ("internal", "internal errors (a simcuda bug: please report; each answered 999)")):
        if rep[key]:
            tr.write_line(f"{title}: " + ", ".join(f"{k} x{n}" for k, n in sorted(rep[key].items())))


def _marker(request: Any) -> Any:
    return request.node.get_closest_marker(MARKER)


@pytest.fixture
def simcuda_driver(request: Any) -> Iterator[Any]:
    """A fresh simulated driver (the marker's ``devices``/``progression``, else the session's settings), current
    for the duration of the test, with ``cuda.bindings.*`` patched to it (on the marker's ``route``, else the
    default route; under ``--simcuda`` the session's patch stays). Under ``--simcuda`` in session scope with no
    such marker arguments: the session driver."""
    import simcuda
    s = _session(request.config)
    m = _marker(request)
    kw = {k: m.kwargs[k] for k in ("devices", "progression") if m is not None and m.kwargs.get(k) is not None}
    if s is not None and s.driver is not None and s.scope == "session" and not kw:
        _watch(request, s.driver)
        yield s.driver
        return
    if "devices" in kw:
        n = kw["devices"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise pytest.UsageError(f"@pytest.mark.simcuda(devices=...) needs a positive int, got {n!r}")
    if s is not None and s.driver is not None:
        drv = s.new_driver(kw.get("devices"), kw.get("progression"))
    else:
        n = kw.get("devices", 1)
        drv = simcuda.Driver(devices=[simcuda.DeviceSpec() for _ in range(n)],
                             progression=kw.get("progression", "immediate"))
    old = simcuda.use(drv)
    _watch(request, drv)
    # outside a --simcuda session the driver alone would leave cuda.bindings unpatched: patch for the test too
    unpatched = s is None or s.patch is None
    try:
        if unpatched:
            with simcuda.patch(route=m.kwargs.get("route") if m is not None else None):
                yield drv
        else:
            yield drv
    finally:
        simcuda.use(old)
        if s is not None:
            s.add(drv)


@pytest.fixture
def patched_cuda(simcuda_driver: Any, request: Any) -> Iterator[Any]:
    """``simcuda_driver`` plus ``cuda.bindings.*`` patched to the simulated driver, on the route the test's
    ``simcuda`` marker names (``route=...``), else the session's (under ``--simcuda``) or the default route."""
    import simcuda
    from simcuda._patch import route_of
    m = _marker(request)
    route = m.kwargs.get("route") if m is not None else None
    s = _session(request.config)
    if s is not None and s.patch is not None and route not in (None, "auto") and route_of(route) != s.route:
        pytest.skip(f"@pytest.mark.simcuda(route={route!r}) in a --simcuda session on the {s.route!r} route: the "
                    "session's patch decides the modules (run this test in a session of its own)")
    with simcuda.patch(route=route):
        yield simcuda_driver


@pytest.fixture(autouse=True)
def _simcuda_session_driver(request: Any) -> Iterator[None]:
    """Under ``--simcuda`` in test scope: every test gets a fresh driver with the session's settings."""
    s = _session(request.config)
    if s is None or s.driver is None or "simcuda_driver" in request.fixturenames:
        yield
        return
    if s.scope != "test":
        _watch(request, s.driver)
        yield
        return
    import simcuda
    drv = s.new_driver()
    old = simcuda.use(drv)
    _watch(request, drv)
    try:
        yield
    finally:
        simcuda.use(old)
        s.add(drv)


def _watch(request: Any, drv: Any) -> None:
    """Remember that the test uses ``drv`` from its next error record on (the failed-calls section)."""
    request.node.stash.setdefault(_DRIVERS, []).append((drv, len(drv.error_log)))


def _failed_calls_text(item: Any) -> str:
    """The ``simcuda: failed calls`` section of ``item``'s report: each non-success call the test made on the
    simulated drivers it used, entry, code and why (the first :data:`_SECTION_LIMIT`, then a count per entry and
    code); empty when there was none."""
    records = [r for drv, start in item.stash.get(_DRIVERS, []) for r in drv.error_log[start:]]
    if not records:
        return ""
    from simcuda._summary import _code_name
    lines = [f"{len(records)} simulated call(s) did not return CUDA_SUCCESS during this test:"]
    for r in records[:_SECTION_LIMIT]:
        lines.append(f"  {r.call} -> {_code_name(r.call, r.code)} ({r.code}) [thread {r.thread}]")
        lines.append(f"     why: {r.why}")
    if len(records) > _SECTION_LIMIT:
        from collections import Counter
        rest = Counter((r.call, r.code) for r in records[_SECTION_LIMIT:])
        lines.append(f"  ... and {len(records) - _SECTION_LIMIT} more: "
                     + ", ".join(f"{call} -> {code} x{n}" for (call, code), n in rest.most_common()))
    return "\n".join(lines)


def end_open_captures(drv: Any) -> list[str]:
    """End every capture a test left open on ``drv`` (issue 19 item 7: a test that died inside a capture left it
    open for the next test of a session-scoped driver, whose every ``cuCtxSynchronize`` then answered 900). Each
    is ended by ``cuStreamEndCapture`` on its origin stream (the graph it returns destroyed); one that cannot be
    ended so (begun by a thread other than this one) is terminated as an invalidated capture is, its graph
    discarded. Returns one line per capture ended, for the test's report."""
    from simcuda._core.capture import capture_rules as cap
    from simcuda._core.errors import DriverError
    lines = []
    for seq in list(drv.captures.live.values()):
        what = (f"capture {seq.id} ({cap.MODE_NAMES.get(seq.mode, seq.mode)} mode, begun by thread "
                f"{seq.begin_thread_name} on stream 0x{seq.origin.handle:x})")
        try:
            drv.graph_destroy(drv.stream_end_capture(seq.origin.handle))
            how = "ended (cuStreamEndCapture) and its graph destroyed"
        except DriverError as e:
            how = f"ended: cuStreamEndCapture answered {int(e.code)}"
        if seq.id in drv.captures.live:  # still open: end it as an invalidated capture ends
            with drv._lock:
                seq.status = cap.TERMINATED
                cap.terminate(drv, seq, discard_graph=True)
            how = "terminated (cuStreamEndCapture could not end it here) and its graph discarded"
        lines.append(f"{what} was still open when the test ended: {how}")
    return lines


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Generator[None, Any, None]:
    """A failed test's report gets the ``simcuda: failed calls`` section (shown with the failure, as captured
    logs are), in the phase that failed. After a test's teardown under ``--simcuda`` in session scope: end the
    captures it left open on the session driver (:func:`end_open_captures`), so the next test starts clean, and
    say so in the test's report (a warning of the test, a section and ``user_properties`` of its teardown report)
    and in the run's summary."""
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        text = _failed_calls_text(item)
        if text:
            report.sections.append((f"simcuda: failed calls ({report.when})", text))
    s = _session(item.config)
    if call.when != "teardown" or s is None or s.driver is None or s.scope != "session":
        return
    lines = end_open_captures(s.driver)
    if lines:
        report.sections.append(("simcuda: captures left open", "\n".join(lines)))
        report.user_properties.append(("simcuda_captures_left_open", len(lines)))
        item.warn(pytest.PytestWarning("simcuda: " + "; ".join(lines)))
        s.left_open.append((item.nodeid, len(lines)))


class Faults:
    """The ``simcuda_faults`` fixture: :mod:`simcuda.faults` on the test's current driver, every fault and
    recorder taken off when the test ends."""

    def __init__(self) -> None:
        self._undo: list[Any] = []

    def inject(self, entry: str, code: int, **kwargs: Any) -> Any:
        """:func:`simcuda.faults.inject` on the current driver, until the test ends (or the injection is removed)."""
        from simcuda import faults
        inj = faults.inject(entry, code, **kwargs)
        self._undo.append(inj.remove)
        return inj

    def record_calls(self, *entries: str) -> Any:
        """:func:`simcuda.faults.record_calls` on the current driver, recording until the test ends."""
        from simcuda import faults
        rec = faults.record_calls(*entries)
        self._undo.append(rec.stop)
        return rec

    def expect_no_failures(self) -> Any:
        """:func:`simcuda.faults.expect_no_failures` on the current driver (a context manager)."""
        from simcuda import faults
        return faults.expect_no_failures()

    def close(self) -> None:
        """Take off every fault and recorder (the fixture's teardown)."""
        while self._undo:
            self._undo.pop()()


@pytest.fixture
def simcuda_faults(request: Any) -> Iterator[Faults]:
    """Fault injection and call records for this test (:class:`Faults`), on the driver the test runs on: the
    ``simcuda_driver``/``patched_cuda`` driver when the test uses one, else the session's or the current one."""
    for name in ("simcuda_driver", "_simcuda_session_driver"):
        if name in request.fixturenames:
            request.getfixturevalue(name)
    f = Faults()
    try:
        yield f
    finally:
        f.close()


@pytest.fixture
def _simcuda_marked_faults(request: Any, simcuda_faults: Faults) -> None:
    """The ``simcuda_fault`` markers of the test, each an injection for the whole test."""
    for m in reversed(list(request.node.iter_markers(FAULT_MARKER))):  # closest last: the order written
        if len(m.args) != 2:
            raise pytest.UsageError(f"@pytest.mark.{FAULT_MARKER} needs (entry, code), got {m.args!r}")
        try:
            simcuda_faults.inject(m.args[0], m.args[1], **m.kwargs)
        except (TypeError, ValueError) as e:
            raise pytest.UsageError(f"@pytest.mark.{FAULT_MARKER}{m.args!r}: {e}") from None


def pytest_collection_modifyitems(items: list[Any]) -> None:
    """Give every test marked ``simcuda`` the ``patched_cuda`` fixture, first among its fixtures: the marker's
    driver is in place before the test's own fixtures set it up (a fixture that calls ``cuInit`` and makes a
    context acts on the driver the test then sees). A test marked ``simcuda_fault`` gets the fixture that puts
    its faults on, after the others."""
    for item in items:
        if item.get_closest_marker(MARKER) is not None and "patched_cuda" not in getattr(item, "fixturenames", ()):
            item.fixturenames.insert(0, "patched_cuda")
        names = getattr(item, "fixturenames", None)
        if names is not None and item.get_closest_marker(FAULT_MARKER) is not None:
            names.append("_simcuda_marked_faults")  # after the driver fixtures: the faults go on the test's driver
