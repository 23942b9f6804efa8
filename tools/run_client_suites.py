"""Run NVIDIA's cuda-python examples and cuda.core 1.2.2's own tests on simcuda (the examples on either route, the
tests on the native one), by hand (issue 17, part 4), and print one outcome per file, each failure with its cause,
classified. The measured outcomes are in docs/compatibility.md.

Run: ``python tools/run_client_suites.py --root /work/tmp/clients [--examples-only | --core-only]
[--route native|python] [--match SUBSTR] [--timeout S] [--json FILE] [--logs DIR]``,
or ``python tools/run_client_suites.py --numba [--timeout S]`` for numba-cuda's own tests, which its wheel ships
(``numba.cuda.tests``: nothing to fetch).

``--root`` holds a copy of the needed parts of github.com/NVIDIA/cuda-python (the directory ``cuda-python/``) and a
``MANIFEST.txt`` naming where each file came from (commit per file); nothing fetched is ever committed to this
repository (docs/compatibility.md says how the copy is made). The examples (``cuda_bindings/examples/**/*.py`` and
``cuda_core/examples/*.py``) run each as ``simcuda run --route ROUTE --explain FILE``: their own checks decide
(exit status 0 passes). The bindings examples import their ``common`` package from ``cuda_bindings/examples`` (put
on ``PYTHONPATH``, as their ``pytest.ini`` does) and need ``$CUDA_HOME/include`` (a CUDA toolkit under
``/usr/local`` is used when the environment names none). cuda.core's tests (``cuda_core/tests/**/test_*.py``) run
each file as ``pytest -rfE --simcuda --simcuda-route native FILE`` (with ``$CUDA_PATH`` set to that toolkit, as
their helpers expect); the script prints pytest's counts per file and one classified reason per failed test.

No Python twin is registered: a kernel computes only through the PTX engine. The one ``--kernels`` file given to
``simcuda run`` registers no kernel: it names cuda.pathfinder's ``get_cuda_path_or_home`` under the older spelling
``get_cuda_home_or_path`` that the examples' ``common.py`` imports (a version skew between two NVIDIA packages; the
example files stay unmodified); likewise a pytest plugin (:data:`CORE_ALIAS`) names ``cuda.core.graph.GraphBuilder``
as ``cuda.core.GraphBuilder`` for cuda.core test files written against a release that exported it there.

Causes (:data:`CAUSES`), in the order :func:`classify` tries them: ``timeout``; ``crash`` (killed by a signal);
``simulator bug`` (an exception inside simcuda: the native route answers 999 and prints "internal error in the native
adapter"); ``kernel did not compute`` (simcuda recorded a launch of a kernel with neither a twin nor PTX the engine
runs, typically a CUBIN whose PTX was not intercepted); ``engine unsupported`` (the engine refused a PTX form: 801 with
the engine's why); ``entry answered 801`` (an entry simcuda does not simulate); ``environment`` (a module, file or
device the program needs is missing, or the program needs the other route: not the simulator's doing); ``version drift``
(cuda.core tests only: a name, keyword, property or error text the installed cuda.core lacks, the test being written for
another release); ``wrong result`` (the program ran to its own check and the check failed); ``error`` (anything else:
the last line of output says what).

``--numba`` runs numba-cuda's suite (it needs the package ``filecheck``); ``--per-file`` gives each test file its
own pytest run, ``--budget`` limits the whole run. Every pytest run here is in file order (``-p no:randomly``).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

#: the simcuda command of this interpreter's environment (its console script)
SIMCUDA = str(Path(sys.executable).with_name("simcuda"))
COUNTS = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed|deselected)")
#: the failure causes, in the order :func:`classify` tries them (``pass`` is not a failure)
CAUSES = ("timeout", "crash", "simulator bug", "kernel did not compute", "engine unsupported", "entry answered 801",
          "environment", "version drift", "wrong result", "error")

#: the ``--kernels`` file: registers no kernel, only the cuda.pathfinder spelling the examples' common.py imports
PATHFINDER_ALIAS = """\
from cuda.pathfinder._utils import env_vars
if not hasattr(env_vars, "get_cuda_home_or_path"):
    env_vars.get_cuda_home_or_path = env_vars.get_cuda_path_or_home
"""

#: a pytest plugin for cuda.core's tests (``-p simcuda_client_alias``): registers no kernel; names what tests of
#: a neighbouring cuda.core release import under 1.2.2's spelling: ``cuda.core.graph.GraphBuilder`` as
#: ``cuda.core.GraphBuilder``, and ``cuda.core._utils.version.binding_version()[:2]`` as
#: ``cuda.core._utils.cuda_utils.get_binding_version()`` (renames only; no behaviour is added)
CORE_ALIAS = """\
import cuda.core
import cuda.core._utils.cuda_utils as _cuda_utils
if not hasattr(cuda.core, "GraphBuilder"):
    from cuda.core.graph import GraphBuilder
    cuda.core.GraphBuilder = GraphBuilder
if not hasattr(_cuda_utils, "get_binding_version"):
    from cuda.core._utils.version import binding_version
    _cuda_utils.get_binding_version = lambda: tuple(binding_version()[:2])
"""

_NO_KERNEL = re.compile(r"kernels that could not run \(.*?\)\s*:\s*(.+?)(?:; register|$)", re.M)
#: what the native route prints for an exception inside simcuda (the call answers 999): the entry, then the traceback
#: whose last line names the exception
_INTERNAL = re.compile(r"simcuda: internal error in the native adapter of (\w+):\n(?:.*\n)*?(\w+(?:Error|Exception)"
                       r"[^\n]*)", re.M)
#: ``simcuda run --explain``'s line for the calls the native library answered 801 itself (entries not simulated)
_STUBS = re.compile(r"^\s*calls answered 801 \(CUDA_ERROR_NOT_SUPPORTED\) by the native library, entries not "
                    r"simulated \([^)]*\): (.+)$", re.M)
_EXPLAIN = re.compile(r"^\s*\d+\. (\w+) -> (\w+) \((\d+)\)[^\n]*\n\s*why: ([^\n]*)", re.M)
_ENGINE = re.compile(r"\b(engine|PTX form|instruction|unsupported)\b", re.I)
_ENV = re.compile(r"ModuleNotFoundError|ImportError|No module named|FileNotFoundError|CUDA_HOME|"
                  r"requires? (two|2|multiple) |OpenGL|pyglet|DISPLAY|cannot open display|"
                  r"reached NVIDIA's compiled layer", re.I)
_WRONG = re.compile(r"Result = FAIL|FAILED|Test failed|atomic\w+ failed|AssertionError|assert |"
                    r"Error (inside|outside) tolerence|[Mm]ismatch|not close|Verification error", re.M)


def last_line(text: str) -> str:
    """The last non-empty line of ``text`` before simcuda's summary and explain report (``""`` when none)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    cut = next((i for i, ln in enumerate(lines)
                if ln.startswith(("simcuda summary", "simcuda explain"))),
               len(lines))
    body = lines[:cut] or lines
    return body[-1] if body else ""


def classify(rc: int | None, out: str, err: str, timed_out: bool = False) -> tuple[str, str]:
    """The outcome of one program run: ``("pass", note)`` or ``(cause, detail)`` with ``cause`` one of
    :data:`CAUSES`.

    ``rc`` is the exit status (negative: killed by that signal; ``None`` when it timed out), ``out``/``err`` the
    captured streams (simcuda's summary and ``--explain`` report are on ``err``). A run that exits 0 passes; its
    note says so when a kernel nevertheless did not compute (the program checked nothing that kernel wrote)."""
    text = out + "\n" + err
    no_kernel = _NO_KERNEL.search(err)
    if timed_out or rc is None:
        return "timeout", "no exit within the time limit" + (f"; kernels not computed: {no_kernel.group(1)}"
                                                              if no_kernel else "")
    if rc == 0:
        return "pass", (f"exit 0, but kernels not computed: {no_kernel.group(1)}" if no_kernel else "")
    if rc < 0:
        return "crash", f"killed by signal {-rc}: {last_line(text)[:160]}"
    bug = _INTERNAL.search(err)
    if bug:
        return "simulator bug", f"{bug.group(1)}: {bug.group(2)[:160]} (999 CUDA_ERROR_UNKNOWN)"
    if no_kernel:
        return "kernel did not compute", f"{no_kernel.group(1)} -> {last_line(text)[:120]}"
    for call, name, code, why in _EXPLAIN.findall(err):
        if code == "801":
            if _ENGINE.search(why) and ("PTX" in why or "engine" in why.lower()):
                return "engine unsupported", f"{call}: {why[:200]}"
            return "entry answered 801", f"{call} ({name}): {why[:160]}"
    line = last_line(text)
    stubs = _STUBS.search(err)
    if stubs and ("NOT_SUPPORTED" in line or "NotSupported" in line):
        return "entry answered 801", f"{stubs.group(1)} (not simulated, no why) -> {line[:100]}"
    if "CUDA_ERROR_NOT_SUPPORTED" in line or "cudaErrorNotSupported" in line:
        return "entry answered 801", f"no why recorded (not in --explain): {line[:160]}"
    if _ENV.search(line):
        return "environment", line[:200]
    if _WRONG.search(text):
        return "wrong result", line[:200]
    return "error", line[:200]


#: a failed check whose actual value is zero while a non-zero one was expected: a result the kernel never wrote
_ZERO_ACTUAL = re.compile(r"assert (?:np\.\w+\()?0(?:\.0*)?\)? == (?!0\b)|[Ee]xpected [^,]*[1-9][^,]*, got "
                          r"(?:np\.\w+\()?0(?:\.0*)?\b")
_SUMMARY_LINE = re.compile(r"^(FAILED|ERROR) (\S+?)(?: - (.*))?$", re.M)


def pytest_failures(stdout: str) -> list[tuple[str, str, str]]:
    """The failed or erroring tests of a ``pytest -rfE`` run, from its short test summary: one
    ``(test id, cause, message)`` per test, the cause from :func:`classify_test_message`."""
    rows = []
    for kind, node, msg in _SUMMARY_LINE.findall(stdout):
        msg = (msg or "").strip()
        rows.append((node if kind == "FAILED" else f"{node} (error)", classify_test_message(msg), msg[:200]))
    return rows


def classify_test_message(msg: str) -> str:
    """One failed test's cause (one of :data:`CAUSES`) from pytest's one-line message: ``CUDA_ERROR_NOT_SUPPORTED``
    naming the engine or a PTX form -> engine unsupported, any other 801 -> entry answered 801;
    ``CUDA_ERROR_UNKNOWN`` (999: on the native route, an exception inside simcuda) -> simulator bug; a check whose
    actual value is zero where a non-zero one was expected (``assert np.int32(0) == 4``, ``Expected 42, got 0``)
    -> kernel did not compute; any other failed check -> wrong result; ``Timeout``/``timed out`` -> timeout; a
    missing module or file -> environment; a name, attribute, keyword or message the installed cuda.core does not
    have (``cannot import name``, ``has no attribute``, ``unexpected keyword argument``, ``is not callable``: a
    property the test calls, ``Regex pattern did not match``: another release's error text) -> version drift, the
    test being written for another release (a heuristic: check such rows by hand); else error."""
    m = msg
    if re.search(r"timed? ?out|Timeout", m, re.I):
        return "timeout"
    if "NOT_SUPPORTED" in m or re.search(r"\b801\b", m):
        return "engine unsupported" if re.search(r"engine|PTX|instruction", m) else "entry answered 801"
    if "CUDA_ERROR_UNKNOWN" in m or re.search(r"\b999\b", m):
        return "simulator bug"
    if re.search(r"cannot import name|has no attribute|unexpected keyword argument|object is not callable|"
                 r"Regex pattern did not match", m):
        return "version drift"
    if re.search(r"ModuleNotFoundError|No module named|FileNotFoundError|ImportError", m):
        return "environment"
    if _ZERO_ACTUAL.search(m):
        return "kernel did not compute"
    if re.search(r"AssertionError|assert |Mismatched elements|Arrays are not|allclose", m):
        return "wrong result"
    return "error"


def _cuda_home() -> str | None:
    """A CUDA toolkit folder whose ``include/`` has ``cooperative_groups.h`` (NVIDIA's NVRTC reads the headers the
    examples include): ``$CUDA_HOME``, ``$CUDA_PATH``, else the newest ``/usr/local/cuda*``."""
    for home in [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"),
                 *sorted(Path("/usr/local").glob("cuda*"), reverse=True)]:
        if home and (Path(home) / "include" / "cooperative_groups.h").is_file():
            return str(home)
    return None


#: examples that waive themselves with one device ("Two or more GPUs with Peer-to-Peer access capability are
#: required"): run with that many simulated devices (``simcuda run --devices N``), so that they check something
EXAMPLE_DEVICES = {"simpleP2P_test.py": 2, "isoFDModelling_test.py": 2}


def example_files(repo: Path) -> list[Path]:
    """The example programs of the copy: ``cuda_bindings/examples/**/*.py`` except the ``common`` helpers, then
    ``cuda_core/examples/*.py``; names starting with ``_`` are skipped."""
    files = sorted(repo.glob("cuda_bindings/examples/**/*.py")) + sorted(repo.glob("cuda_core/examples/*.py"))
    return [f for f in files if not f.name.startswith("_") and "common" not in f.relative_to(repo).parts]


def run_examples(repo: Path, timeout: float, route: str = "native", match: str = "",
                 logs: Path | None = None) -> list[dict[str, Any]]:
    """Each example program under ``simcuda run --route ROUTE --explain`` (with ``--devices N`` for those in
    :data:`EXAMPLE_DEVICES`): one row per file with ``file``,
    ``outcome`` (``pass`` or a cause), ``detail`` and ``seconds``; with ``logs``, each run's stdout and stderr are
    also written there (one ``.log`` file per program)."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        alias = Path(tmp) / "pathfinder_alias.py"
        alias.write_text(PATHFINDER_ALIAS)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in [str(repo / "cuda_bindings" / "examples"),
                                                        env.get("PYTHONPATH", "")] if p)
        home = _cuda_home()
        if home:
            env["CUDA_HOME"] = home
        env.pop("SIMCUDA_ROUTE", None)
        for f in example_files(repo):
            rel = str(f.relative_to(repo))
            if match and match not in rel:
                continue
            t = time.perf_counter()
            devices = ["--devices", str(EXAMPLE_DEVICES[f.name])] if f.name in EXAMPLE_DEVICES else []
            try:
                r = subprocess.run([SIMCUDA, "run", "--route", route, *devices, "--explain", "--kernels", str(alias),
                                    str(f)], cwd=f.parent, capture_output=True, text=True, timeout=timeout, env=env)
                out, err = r.stdout, r.stderr
                outcome, detail = classify(r.returncode, out, err)
            except subprocess.TimeoutExpired as e:
                out, err = _text(e.stdout), _text(e.stderr)
                outcome, detail = classify(None, out, err, timed_out=True)
            _write_log(logs, rel, out, err)
            if devices:
                detail = f"({devices[1]} simulated devices) {detail}".strip()
            rows.append({"file": rel, "outcome": outcome, "detail": detail,
                         "seconds": round(time.perf_counter() - t, 1)})
            print(f"{rel:<70} {outcome}{': ' + detail if detail else ''}  ({rows[-1]['seconds']} s)", flush=True)
    return rows


def _write_log(logs: Path | None, rel: str, out: str, err: str) -> None:
    """Keep one run's output as ``logs/<rel with / as __>.log`` (nothing without ``logs``)."""
    if logs is not None:
        logs.mkdir(parents=True, exist_ok=True)
        (logs / (rel.replace("/", "__") + ".log")).write_text(f"--- stdout\n{out}\n--- stderr\n{err}")


def _text(b: Any) -> str:
    return b.decode(errors="replace") if isinstance(b, bytes) else (b or "")


def core_test_files(repo: Path) -> list[Path]:
    """cuda.core's test files of the copy: ``cuda_core/tests/**/test_*.py`` (``cython/`` needs a build: skipped)."""
    return sorted(f for f in (repo / "cuda_core" / "tests").rglob("test_*.py") if "cython" not in f.parts)


def run_core_tests(repo: Path, timeout: float, match: str = "", logs: Path | None = None,
                   test_timeout: float = 120.0) -> list[dict[str, Any]]:
    """Each cuda.core test file under ``pytest -rfE --simcuda --simcuda-route native``, each file limited to
    ``timeout`` seconds and each test to ``test_timeout`` (:data:`_TEST_PLUGIN`: a kernel that never ends fails its
    test with ``TimeoutError``): one row per file with ``file``, ``counts`` (pytest's outcome counts, or
    ``{"timeout": 1}``) and ``failures`` (test id, cause, message)."""
    rows: list[dict[str, Any]] = []
    tests = repo / "cuda_core" / "tests"
    tmp = tempfile.TemporaryDirectory()
    (Path(tmp.name) / "simcuda_client_alias.py").write_text(CORE_ALIAS)
    (Path(tmp.name) / "simcuda_client_plugin.py").write_text(_TEST_PLUGIN)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in [tmp.name, os.environ.get("PYTHONPATH", "")] if p),
               SIMCUDA_TEST_LIMIT=str(int(test_timeout)))
    home = _cuda_home()
    if home:
        env.setdefault("CUDA_PATH", home)
    env.pop("SIMCUDA_ROUTE", None)
    env["COLUMNS"] = "400"  # pytest's short summary keeps each failure's message only when the line fits
    for f in core_test_files(repo):
        rel = str(f.relative_to(tests))
        if match and match not in rel:
            continue
        t = time.perf_counter()
        limit_hits = Path(tmp.name) / "failures.txt"
        limit_hits.write_text("")
        env["SIMCUDA_FAILURES"] = str(limit_hits)
        try:
            r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rfE", "-p", "no:cacheprovider", "-p",
                                "no:randomly", "-p", "simcuda_client_alias", "-p", "simcuda_client_plugin", "--simcuda",
                                "--simcuda-route", "native", rel],
                               cwd=tests, capture_output=True, text=True, timeout=timeout, env=env)
            tail = next((ln for ln in reversed(r.stdout.strip().splitlines()) if COUNTS.search(ln)), "")
            counts = {("error" if k.startswith("error") else k): int(n) for n, k in COUNTS.findall(tail)}
            if not counts:
                counts = {"collection error": 1}
            _write_log(logs, "tests/" + rel, r.stdout, r.stderr)
            timed_out = {ln.partition(" [")[0] for ln in limit_hits.read_text().splitlines() if "per-test limit" in ln}
            failures = [(node, "timeout" if node.split("/")[-1] in timed_out else cause, msg)
                        for node, cause, msg in pytest_failures(r.stdout)]
            if not failures and r.returncode not in (0, 5):
                failures = [(rel, classify(r.returncode, r.stdout, r.stderr)[0], last_line(r.stdout + r.stderr))]
        except subprocess.TimeoutExpired:
            counts, failures = {"timeout": 1}, [(rel, "timeout", f"file did not finish in {timeout:.0f} s")]
        rows.append({"file": rel, "counts": counts, "failures": [list(x) for x in failures],
                     "seconds": round(time.perf_counter() - t, 1)})
        print(f"{rel:<55} " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
              + f"  ({rows[-1]['seconds']} s)", flush=True)
        for node, cause, msg in failures:
            print(f"    {cause:<24} {node.split('::', 1)[-1][:60]}: {msg[:120]}", flush=True)
    tmp.cleanup()
    return rows


def totals(example_rows: list[dict[str, Any]], core_rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The closing note's figures: examples by outcome, cuda.core tests by pytest outcome, and failed tests by
    cause."""
    ex = Counter(r["outcome"] for r in example_rows)
    counts: Counter[str] = Counter()
    causes: Counter[str] = Counter()
    for r in core_rows:
        counts.update(r["counts"])
        causes.update(f[1] for f in r["failures"])
    return {"examples": dict(ex), "examples_total": len(example_rows), "core_tests": dict(counts),
            "core_failure_causes": dict(causes)}


#: a pytest plugin (``-p simcuda_client_plugin``) for the suites this script runs: what numba-cuda's
#: repository-level conftest (not in the wheel) gives its test classes (the option ``--dump-failed-filechecks`` and the
#: class fixture ``initialize_from_pytest_config`` that copies it onto the class; harmless elsewhere); a per-test time
#: limit (SIGALRM, ``$SIMCUDA_TEST_LIMIT`` s: the test fails with TimeoutError and the run goes on); a one-line record
#: of each failure (``$SIMCUDA_FAILURES``) and of every outcome (``$SIMCUDA_OUTCOMES``), written as they happen, so
#: a run cut short keeps what it saw; and a budget for the whole run (``$SIMCUDA_BUDGET_END``, a UNIX time: no test
#: starts after it, and pytest ends with its usual counts line)
_TEST_PLUGIN = """
import os, signal, time, pytest


def pytest_addoption(parser):
    parser.addoption("--dump-failed-filechecks", action="store_true", help="(numba-cuda's test option)")


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    request.cls._dump_failed_filechecks = request.config.getoption("dump_failed_filechecks")


_FIRED = []  # the node ids whose limit fired (the TimeoutError may surface as another error: see below)


def _expired(signum, frame):
    _FIRED.append(True)
    raise TimeoutError("simcuda's per-test limit of %s s" % os.environ["SIMCUDA_TEST_LIMIT"])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    _FIRED.clear()
    signal.signal(signal.SIGALRM, _expired)
    signal.alarm(int(os.environ.get("SIMCUDA_TEST_LIMIT", "0")))
    try:
        yield
    finally:
        signal.alarm(0)


def pytest_runtest_teardown(item, nextitem):
    end = float(os.environ.get("SIMCUDA_BUDGET_END", "0"))
    if end and time.time() > end:
        item.session.shouldstop = "simcuda's budget for the whole run is spent"


def _write(var, line):
    if os.environ.get(var):
        with open(os.environ[var], "a") as fh:
            fh.write(line + "\\n")


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        outcome = "error" if report.failed and report.when != "call" else report.outcome
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.skipped else "xpassed"
        _write("SIMCUDA_OUTCOMES", outcome + " " + report.nodeid)
    if report.failed:
        msg = str(report.longrepr.reprcrash.message) if hasattr(report.longrepr, "reprcrash") else str(report.longrepr)
        first = (msg.splitlines() or [""])[0][:300]
        if report.when == "call" and _FIRED and "per-test limit" not in first:
            # raised inside a driver call, the TimeoutError came back as that call's error (999 on the native route)
            first = "TimeoutError: simcuda's per-test limit fired, surfacing as: " + first
        _write("SIMCUDA_FAILURES", report.nodeid.rsplit("/", 1)[-1] + " [" + report.when + "] :: " + first)
"""
#: pytest's final line, with or without its ``=`` rule (``-q`` drops it): ``11 failed, 231 passed ... in 136.01s``
COUNTS_LINE = re.compile(r"^=*\s*(\d+ (?:passed|failed|skipped|errors?|deselected|xfailed|xpassed)\b.*?) in "
                         r"[\d.]+s\b")


def outcome_counts(lines: list[str]) -> Counter[str]:
    """``{outcome: tests}`` from the plugin's outcome lines (``"passed tests/x.py::t"``): one outcome per test, the
    worst of its phases (a test that failed its call and erred at teardown counts as failed)."""
    rank = {"failed": 0, "error": 1, "xpassed": 2, "xfailed": 3, "skipped": 4, "passed": 5}
    best: dict[str, str] = {}
    for line in lines:
        outcome, _, node = line.partition(" ")
        if node and (node not in best or rank.get(outcome, 9) < rank.get(best[node], 9)):
            best[node] = outcome
    return Counter(best.values())


def run_numba_tests(limit: float, failures: Path, dirs: list[str] | None = None, budget: float | None = None,
                    per_file: bool = False) -> tuple[str, Counter[str], dict[str, Counter[str]]]:
    """numba-cuda's shipped suite (``numba.cuda.tests``) under ``pytest --simcuda`` on the native route, in file
    order (``-p no:randomly``), each test limited to ``limit`` seconds and the whole run to ``budget`` seconds (None:
    no limit): one run over the suite, or one run per sub-directory named in ``dirs`` (``cudapy``, ``cudadrv``...),
    or with ``per_file`` one run per test file of those directories, so that a sticky fault (700 from a kernel's
    out-of-bounds access) stays within its file; the runs after the budget is spent are skipped. Returns pytest's
    final counts line(s) (one per directory; with ``per_file`` the files whose run printed none), the failure
    reasons (their first line, cut to 120 characters) with their counts, read from ``failures`` (one line per
    failure, written as they happen), and ``{directory: outcome counts}`` from the outcome records (which a run cut
    short keeps; written next to ``failures`` as ``<stem>-<directory>-outcomes.txt``)."""
    import numba.cuda.tests as suite
    root = Path(suite.__file__).parent
    outcomes = failures.with_name(f"{failures.stem}-outcomes.txt")
    failures.write_text("")
    lines = []
    per_dir: dict[str, Counter[str]] = {}
    seen: dict[str, list[str]] = {}
    end = time.time() + budget if budget else 0.0
    groups = [root / d for d in dirs] if dirs else [root]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "simcuda_client_plugin.py").write_text(_TEST_PLUGIN)
        env = {**os.environ, "PYTHONPATH": tmp, "SIMCUDA_TEST_LIMIT": str(int(limit)),
               "SIMCUDA_FAILURES": str(failures), "SIMCUDA_OUTCOMES": str(outcomes),
               "SIMCUDA_BUDGET_END": str(end)}
        for group in groups:
            targets = sorted(group.glob("test_*.py")) if per_file else [group]
            for target in targets:
                if end and time.time() > end:
                    lines.append(f"{target.name}: not run (budget spent)")
                    print(lines[-1], flush=True)
                    continue
                outcomes.write_text("")
                r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                                    "no:randomly", "-p", "simcuda_client_plugin", "--import-mode=importlib",
                                    "--continue-on-collection-errors", "--simcuda", "--simcuda-route", "native",
                                    str(target)], cwd=tmp, env=env, capture_output=True, text=True)
                m = next((m for m in map(COUNTS_LINE.search, reversed(r.stdout.splitlines())) if m), None)
                if m is None:  # keep pytest's last words for the report (a crash at exit, an internal error)
                    (failures.parent / f"{failures.stem}-{target.name}-stdout.txt").write_text(r.stdout + r.stderr)
                got = outcomes.read_text().splitlines()
                seen.setdefault(group.name, []).extend(got)
                per_dir[group.name] = per_dir.get(group.name, Counter()) + outcome_counts(got)
                if not per_file or m is None:
                    lines.append(f"{target.name}: {m.group(1) if m else '(no final line)'}"
                                 + (" [stopped: budget spent]" if "budget" in r.stdout else ""))
                    print(lines[-1], flush=True)
            (failures.parent / f"{failures.stem}-{group.name}-outcomes.txt").write_text(
                "\n".join(seen.get(group.name, [])) + "\n")
    causes: Counter[str] = Counter(line.partition(" :: ")[2][:120] for line in failures.read_text().splitlines())
    return "; ".join(lines), causes, per_dir


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run the chosen suites, print per-file outcomes and totals (and write them as JSON
    with ``--json``); 0, or 2 when ``--root`` holds no copy (or, with ``--numba``, when ``filecheck`` is missing)."""
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--root", type=Path, default=Path("/work/tmp/clients"))
    p.add_argument("--examples-only", action="store_true")
    p.add_argument("--core-only", action="store_true")
    p.add_argument("--route", choices=("native", "python"), default="native", help="route for the examples")
    p.add_argument("--match", default="", help="run only files whose relative path contains this")
    p.add_argument("--numba", action="store_true", help="numba-cuda's shipped tests instead")
    p.add_argument("--failures", default="numba-failures.txt", help="with --numba: where each failure is written")
    p.add_argument("--dirs", default="", help="with --numba: sub-directories run one by one (cudapy,cudadrv,...)")
    p.add_argument("--timeout", type=float, default=600.0,
                   help="seconds per example or cuda.core test file; with --numba: per test")
    p.add_argument("--test-timeout", type=float, default=120.0,
                   help="cuda.core tests: seconds per test (a spinning kernel fails its test, not the file)")
    p.add_argument("--per-file", action="store_true",
                   help="with --numba: one pytest run per test file (a sticky fault stays within its file)")
    p.add_argument("--budget", type=float, default=None,
                   help="with --numba: seconds for the whole run (no test starts after; the counts still come)")
    p.add_argument("--json", type=Path, default=None, help="also write the rows and totals to this file")
    p.add_argument("--logs", type=Path, default=None, help="keep each run's output in this folder")
    a = p.parse_args(argv)
    if a.numba:
        import importlib.util
        if importlib.util.find_spec("filecheck") is None:  # numba.cuda.testing imports it at the top
            print("numba-cuda's tests import the package 'filecheck' (numba.cuda.testing): without it every cudapy "
                  "module fails to collect; install it first (pip install filecheck)", file=sys.stderr)
            return 2
        counts, causes, per_dir = run_numba_tests(a.timeout, Path(a.failures), a.dirs.split(",") if a.dirs else None,
                                                  a.budget, a.per_file)
        print("numba-cuda tests: " + counts)
        total: Counter[str] = sum(per_dir.values(), Counter())
        print("outcomes recorded: " + ", ".join(f"{v} {k}" for k, v in sorted(total.items())))
        if a.json:
            a.json.write_text(json.dumps({"counts": counts, "per_dir": {k: dict(v) for k, v in per_dir.items()},
                                          "causes": causes.most_common()}, indent=1))
        for why, n in causes.most_common(25):
            print(f"{n:6d}  {why}")
        return 0
    repo = a.root / "cuda-python"
    if not repo.is_dir():
        print(f"no copy at {repo}: put the parts of github.com/NVIDIA/cuda-python listed in docs/compatibility.md "
              f"there and record where each came from in {a.root / 'MANIFEST.txt'}", file=sys.stderr)
        return 2
    manifest = a.root / "MANIFEST.txt"
    print(f"clients: {manifest.read_text().splitlines()[0] if manifest.exists() else '(no MANIFEST.txt)'}")
    ex_rows: list[dict[str, Any]] = []
    core_rows: list[dict[str, Any]] = []
    if not a.core_only:
        ex_rows = run_examples(repo, a.timeout, a.route, a.match, a.logs)
    if not a.examples_only:
        core_rows = run_core_tests(repo, a.timeout, a.match, a.logs, a.test_timeout)
    tot = totals(ex_rows, core_rows)
    if ex_rows:
        print(f"examples ({a.route} route): {tot['examples'].get('pass', 0)} / {tot['examples_total']} pass; "
              + ", ".join(f"{v} {k}" for k, v in sorted(tot["examples"].items()) if k != "pass"))
    if core_rows:
        print("cuda.core tests: " + ", ".join(f"{v} {k}" for k, v in sorted(tot["core_tests"].items())))
        print("cuda.core failures by cause: "
              + ", ".join(f"{v} {k}" for k, v in sorted(tot["core_failure_causes"].items(), key=lambda x: -x[1])))
    if a.json:
        a.json.write_text(json.dumps({"route": a.route, "examples": ex_rows, "core_tests": core_rows,
                                      "totals": tot}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
