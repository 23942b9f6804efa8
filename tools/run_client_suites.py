"""Run NVIDIA's cuda-python examples and cuda.core 1.2.2's own tests on simcuda's native route, by hand
(issue 17, part 4), and print one outcome per file.

Run: ``python tools/run_client_suites.py --root /work/tmp/clients [--examples-only | --core-only] [--timeout S]``,
or ``python tools/run_client_suites.py --numba [--timeout S]`` for numba-cuda's own tests, which its wheel ships
(``numba.cuda.tests``: nothing to fetch).

``--root`` holds a checkout of github.com/NVIDIA/cuda-python (the directory ``cuda-python/``, at the commit that
ships cuda.core 1.2.2) and a ``MANIFEST.txt`` naming its commit; nothing fetched is ever committed to this
repository. The examples (``cuda-python/cuda_bindings/examples/**/*.py`` and ``cuda_core/examples/*.py``) run
each as ``simcuda run --route native python FILE`` (their own checks decide: exit status 0 passes); cuda.core's tests
(``cuda-python/cuda_core/tests/test_*.py``) run each as ``pytest --simcuda --simcuda-route native FILE`` and
the script prints pytest's passed/failed/skipped counts per file. No Python twin is registered: a kernel computes
only through the PTX engine. The totals at the end are what the issue's closing note records.
"""
from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: the simcuda command of this interpreter's environment (its console script)
SIMCUDA = str(Path(sys.executable).with_name("simcuda"))
COUNTS = re.compile(r"(\d+) (passed|failed|skipped|error|errors|xfailed|xpassed)")


def run_examples(repo: Path, timeout: float) -> list[tuple[str, str, float]]:
    """Each example script under simcuda's native route: (relative path, outcome, seconds)."""
    files = sorted(repo.glob("cuda_bindings/examples/**/*.py")) + sorted(repo.glob("cuda_core/examples/*.py"))
    rows = []
    for f in files:
        if f.name.startswith("_") or f.name == "common.py" or "common" in f.parts:
            continue
        t = time.perf_counter()
        try:
            r = subprocess.run([SIMCUDA, "run", "--route", "native", str(f)], cwd=f.parent,
                               capture_output=True, text=True, timeout=timeout)
            outcome = "pass" if r.returncode == 0 else f"FAIL rc={r.returncode}: " + (r.stderr.strip().splitlines()
                                                                                    or [""])[-1][:160]
        except subprocess.TimeoutExpired:
            outcome = f"TIMEOUT after {timeout:.0f} s"
        rows.append((str(f.relative_to(repo)), outcome, time.perf_counter() - t))
        print(f"{rows[-1][0]:<70} {outcome}  ({rows[-1][2]:.1f} s)", flush=True)
    return rows


def run_core_tests(repo: Path, timeout: float) -> dict[str, dict[str, int]]:
    """Each cuda.core test file under ``pytest --simcuda`` on the native route: file -> outcome counts."""
    out: dict[str, dict[str, int]] = {}
    for f in sorted((repo / "cuda_core" / "tests").glob("test_*.py")):
        try:
            r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--simcuda",
                                "--simcuda-route", "native", str(f)], cwd=f.parent, capture_output=True, text=True,
                               timeout=timeout)
            tail = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
            counts = {k.rstrip("s") if k == "errors" else k: int(n) for n, k in COUNTS.findall(tail)}
        except subprocess.TimeoutExpired:
            counts = {"timeout": 1}
        out[f.name] = counts
        print(f"{f.name:<50} " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())), flush=True)
    return out


#: what numba-cuda's repository-level conftest (not in the wheel) gives its test classes (the option
#: ``--dump-failed-filechecks`` and the class fixture ``initialize_from_pytest_config`` that copies it onto the
#: class), plus this script's own per-test time limit (SIGALRM: the test fails with TimeoutError and the run goes on)
#: and a one-line record of each failure, written as it happens (a run cut short keeps what it saw)
_NUMBA_PLUGIN = """
import os, signal, pytest


def pytest_addoption(parser):
    parser.addoption("--dump-failed-filechecks", action="store_true", help="(numba-cuda's test option)")


@pytest.fixture(scope="class")
def initialize_from_pytest_config(request):
    request.cls._dump_failed_filechecks = request.config.getoption("dump_failed_filechecks")


def _expired(signum, frame):
    raise TimeoutError("simcuda's per-test limit of %s s" % os.environ["SIMCUDA_TEST_LIMIT"])


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    signal.signal(signal.SIGALRM, _expired)
    signal.alarm(int(os.environ["SIMCUDA_TEST_LIMIT"]))
    try:
        yield
    finally:
        signal.alarm(0)


def pytest_runtest_logreport(report):
    if report.failed:
        msg = str(report.longrepr.reprcrash.message) if hasattr(report.longrepr, "reprcrash") else str(report.longrepr)
        first = (msg.splitlines() or [""])[0][:300]
        with open(os.environ["SIMCUDA_FAILURES"], "a") as fh:
            fh.write(report.nodeid.rsplit("/", 1)[-1] + " [" + report.when + "] :: " + first + "\\n")
"""
COUNTS_LINE = re.compile(r"=+ (.*) in [\d.]+s")


def run_numba_tests(limit: float, failures: Path,
                    dirs: list[str] | None = None) -> tuple[str, collections.Counter[str]]:
    """numba-cuda's shipped suite (``numba.cuda.tests``) under ``pytest --simcuda`` on the native route, each test
    limited to ``limit`` seconds: one run over the suite, or one run per sub-directory named in ``dirs``
    (``cudapy``, ``cudadrv``...: a sticky context fault then stays within its run). Returns pytest's final counts
    line(s), and the failure reasons (their first line, cut to 120 characters) with their counts, read from
    ``failures`` (one line per failure, written as they happen)."""
    import os

    import numba.cuda.tests as suite
    root = Path(suite.__file__).parent
    failures.write_text("")
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "simcuda_numba_plugin.py").write_text(_NUMBA_PLUGIN)
        env = {**os.environ, "PYTHONPATH": tmp, "SIMCUDA_TEST_LIMIT": str(int(limit)),
               "SIMCUDA_FAILURES": str(failures)}
        for target in ([root / d for d in dirs] if dirs else [root]):
            r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                                "simcuda_numba_plugin", "--import-mode=importlib", "--continue-on-collection-errors",
                                "--simcuda", "--simcuda-route", "native", str(target)], cwd=tmp, env=env,
                               capture_output=True, text=True)
            m = next((m for m in map(COUNTS_LINE.search, reversed(r.stdout.splitlines())) if m), None)
            if m is None:  # keep pytest's last words for the report (a crash at exit, an internal error)
                (failures.parent / f"{failures.stem}-{target.name}-stdout.txt").write_text(r.stdout + r.stderr)
            lines.append(f"{target.name}: {m.group(1) if m else '(no final line)'}")
            print(lines[-1], flush=True)
    causes: collections.Counter[str] = collections.Counter(
        line.partition(" :: ")[2][:120] for line in failures.read_text().splitlines())
    return "; ".join(lines), causes


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, run the chosen suites, print per-file outcomes and totals; 0, or 2 on a bad root."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--root", type=Path, default=Path("/work/tmp/clients"))
    p.add_argument("--examples-only", action="store_true")
    p.add_argument("--core-only", action="store_true")
    p.add_argument("--numba", action="store_true", help="numba-cuda's shipped tests instead (--timeout: per test)")
    p.add_argument("--failures", default="numba-failures.txt", help="with --numba: where each failure is written")
    p.add_argument("--dirs", default="", help="with --numba: sub-directories run one by one (cudapy,cudadrv,...)")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per example or test file")
    a = p.parse_args(argv)
    if a.numba:
        counts, causes = run_numba_tests(a.timeout, Path(a.failures), a.dirs.split(",") if a.dirs else None)
        print("numba-cuda tests: " + counts)
        for why, n in causes.most_common(25):
            print(f"{n:6d}  {why}")
        return 0
    repo = a.root / "cuda-python"
    if not repo.is_dir():
        print(f"no checkout at {repo}: clone github.com/NVIDIA/cuda-python there and record its commit in "
              f"{a.root / 'MANIFEST.txt'}", file=sys.stderr)
        return 2
    manifest = a.root / "MANIFEST.txt"
    print(f"clients: {manifest.read_text().strip() if manifest.exists() else '(no MANIFEST.txt)'}")
    if not a.core_only:
        rows = run_examples(repo, a.timeout)
        print(f"examples: {sum(r[1] == 'pass' for r in rows)} / {len(rows)} pass")
    if not a.examples_only:
        res = run_core_tests(repo, a.timeout)
        total: dict[str, int] = {}
        for c in res.values():
            for k, v in c.items():
                total[k] = total.get(k, 0) + v
        print("cuda.core tests: " + ", ".join(f"{v} {k}" for k, v in sorted(total.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
