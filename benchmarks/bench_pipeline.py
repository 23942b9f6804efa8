"""The million-node pipeline of issue 8: capture N three-argument launches, end, instantiate, replay once.

Run: ``python benchmarks/bench_pipeline.py [N ...]`` (default 100000 1000000). Each N runs in a fresh
subprocess (so peak RSS is its own) with the garbage collector on and the launch log at its default
bound (1,000,000 records: every replayed node of a 1M graph is logged). Printed per N: CPU seconds
(``time.process_time``) of each phase and in all, microseconds of CPU per node, and the peak-RSS
growth (``ru_maxrss`` after the replay minus before the capture) in bytes per node.

Targets (issue 8): at 1M, at most 10 s of CPU and 600 bytes per node (stretch 5 s, 300 bytes),
per-node time flat from 100k to 1M. Also ``--launch`` prints the per-launch cost against a
``MagicMock`` call and a plain function (the same arguments), median of several rounds.
"""
from __future__ import annotations

import ctypes
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _child(n: int) -> dict:
    """The pipeline for ``n`` nodes in this (fresh) process: its figures."""
    from _setup import cu, fresh_driver
    _, f = fresh_driver()
    _, s = cu.cuStreamCreate(0)
    _, p = cu.cuMemAlloc(1024)
    args = ((p, 7, 1.5), (None, ctypes.c_int, ctypes.c_float))
    launch = cu.cuLaunchKernel
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.process_time()
    cu.cuStreamBeginCapture(s, 0)
    for _ in range(n):
        launch(f, 1, 1, 1, 32, 1, 1, 0, s, args, 0)
    t1 = time.process_time()
    err, g = cu.cuStreamEndCapture(s)
    assert int(err) == 0, err
    t2 = time.process_time()
    err, x = cu.cuGraphInstantiate(g, 0)
    assert int(err) == 0, err
    t3 = time.process_time()
    err, = cu.cuGraphLaunch(x, s)
    assert int(err) == 0, err
    cu.cuStreamSynchronize(s)
    t4 = time.process_time()
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    from simcuda import _state
    log = _state.current().launch_log
    assert len(log) == min(n, 1_000_000) and log[-1].node == n - 1, (len(log), log[-1])
    return {"n": n, "capture": t1 - t0, "end": t2 - t1, "instantiate": t3 - t2, "replay": t4 - t3,
            "total": t4 - t0, "bytes_per_node": (rss1 - rss0) * 1024 / n}


def run_fresh(n: int) -> dict:
    """Run the pipeline for ``n`` nodes in a fresh interpreter and return its figures."""
    out = subprocess.run([sys.executable, __file__, "--child", str(n)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def launch_ratios(rounds: int = 5, n: int = 20000) -> tuple[float, float, float]:
    """Median µs of a captured launch, of a MagicMock call and of a plain function, same arguments.

    Timed in CPU time of this process (``time.process_time``), so that other processes on a shared
    machine do not count; the garbage collector stays on.
    """
    from unittest import mock

    from _setup import cu, fresh_driver
    _, f = fresh_driver()
    _, s = cu.cuStreamCreate(0)
    _, p = cu.cuMemAlloc(1024)
    args = ((p, 7, 1.5), (None, ctypes.c_int, ctypes.c_float))
    cu.cuStreamBeginCapture(s, 0)
    launch = cu.cuLaunchKernel

    def plain(*a: object) -> None:
        return None
    sims, mocks, plains = [], [], []
    for _ in range(rounds):  # a fresh mock per round (a mock keeps every call), timed after the launches
        for fn, acc in ((launch, sims), (mock.MagicMock(), mocks), (plain, plains)):
            t = time.process_time()
            for _ in range(n):
                fn(f, 1, 1, 1, 32, 1, 1, 0, s, args, 0)
            acc.append((time.process_time() - t) / n * 1e6)
    med = sorted
    return med(sims)[rounds // 2], med(mocks)[rounds // 2], med(plains)[rounds // 2]


def main() -> int:
    """Run the benchmark (see the module docstring)."""
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(_child(int(sys.argv[2]))))
        return 0
    if sys.argv[1:2] == ["--launch"]:
        sim, mm, pl = launch_ratios()
        print(f"captured cuLaunchKernel {sim:.2f} µs, MagicMock {mm:.2f} µs, plain {pl:.3f} µs: "
              f"{sim / mm:.2f}x the mock (target 0.3, stretch 0.2), {sim / pl:.0f}x plain (target 30, stretch 20)")
        return 0
    for n in [int(a) for a in sys.argv[1:]] or [100_000, 1_000_000]:
        r = run_fresh(n)
        print(f"{n:>9,} nodes: capture {r['capture']:.2f} s, end {r['end']:.2f} s, instantiate "
              f"{r['instantiate']:.2f} s, replay {r['replay']:.2f} s; total {r['total']:.2f} s CPU "
              f"({r['total'] / n * 1e6:.2f} µs/node), peak RSS +{r['bytes_per_node']:.0f} bytes/node")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
