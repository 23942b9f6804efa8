"""Graph instantiate / launch / update cost per node (run: python benchmarks/bench_graphs.py [--quick]).

For graphs of 25k, 50k and 100k nodes (12.5k/25k/50k with ``--quick``) it prints the time of
``cuGraphInstantiate``, of one ``cuGraphLaunch`` (the replay, which also appends one launch-log record per
node) and of ``cuGraphExecUpdate`` (best of two), each with µs per node; the garbage collector stays on. The work is linear when µs/node stays flat as N
doubles; the script exits with 1 when the largest graph costs more than 2.5x per node what the smallest does.

Shapes:
  * ``chain``: one captured stream of kernel launches (creation order is topological: the one-pass path);
  * ``fork8``: the same launches spread over 8 forked streams that join at the end;
  * ``shuffled``: hand-built EMPTY nodes whose edges run from later to earlier nodes (the heap path of the
    topological sort).
Targets live here, never in timed unit tests (ARCHITECTURE.md, performance budgets).
"""
from __future__ import annotations

import gc
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))

from _setup import cu, fresh_driver, simcuda  # noqa: E402


def setup() -> object:
    """A fresh driver with a context and the kernel ``k``; returns the function handle."""
    return fresh_driver()[1]


def chain(n: int) -> tuple:
    f = setup()
    _, s = cu.cuStreamCreate(0)
    cu.cuStreamBeginCapture(s, 0)
    for _ in range(n):
        cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, 0, 0)
    return cu.cuStreamEndCapture(s)[1], s


def fork8(n: int, width: int = 8) -> tuple:
    f = setup()
    streams = [cu.cuStreamCreate(0)[1] for _ in range(width)]
    evs = [cu.cuEventCreate(0)[1] for _ in range(width + 1)]
    origin = streams[0]
    cu.cuStreamBeginCapture(origin, 0)
    cu.cuEventRecord(evs[0], origin)
    for s in streams[1:]:
        cu.cuStreamWaitEvent(s, evs[0], 0)
    for _ in range(n // width):
        for s in streams:
            cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, 0, 0)
    for i, s in enumerate(streams[1:], 1):
        cu.cuEventRecord(evs[i], s)
        cu.cuStreamWaitEvent(origin, evs[i], 0)
    return cu.cuStreamEndCapture(origin)[1], origin


def shuffled(n: int) -> tuple:
    setup()
    _, s = cu.cuStreamCreate(0)
    _, g = cu.cuGraphCreate(0)
    nodes = [cu.cuGraphAddEmptyNode(g, None, 0)[1] for _ in range(n)]
    # node i waits for node i + 1: creation order is the reverse of every topological order
    cu.cuGraphAddDependencies(g, nodes[1:], nodes[:-1], None, n - 1)
    return g, s


def measure(make: object, n: int) -> tuple[float, float, float]:
    """Seconds for instantiate, one launch (replay) and an exec update with an identical graph."""
    g, s = make(n)
    g2 = cu.cuGraphClone(g)[1]
    gc.collect()  # start each measurement from the same collector state (the collector stays on)
    t0 = time.perf_counter()
    err, x = cu.cuGraphInstantiate(g, 0)
    t1 = time.perf_counter()
    assert int(err) == 0, err
    cu.cuGraphLaunch(x, s)
    cu.cuStreamSynchronize(s)
    t2 = time.perf_counter()
    tu = []
    for _ in range(2):  # best of two: a full collection of the whole heap can land in one of them
        t = time.perf_counter()
        err, _info = cu.cuGraphExecUpdate(x, g2)
        tu.append(time.perf_counter() - t)
        assert int(err) == 0, err
    assert len(simcuda.current_driver().launch_log) == cu.cuGraphGetNodes(g)[2]  # fork8 makes n // 8 * 8
    return t1 - t0, t2 - t1, min(tu)


def main() -> int:
    quick = "--quick" in sys.argv
    sizes = [12_500, 25_000, 50_000] if quick else [25_000, 50_000, 100_000]
    worst = 0.0
    for name, make in (("chain", chain), ("fork8", fork8), ("shuffled", shuffled)):
        print(f"{name}: cuGraphInstantiate / cuGraphLaunch / cuGraphExecUpdate (linear if µs/node stays flat)")
        per_node = []
        for n in sizes:
            ti, tl, tu = measure(make, n)
            per_node.append((ti + tl) / n)
            print(f"  {n:>7,} nodes: instantiate {ti * 1e3:8.1f} ms ({ti / n * 1e6:5.2f} µs/node)  "
                  f"launch {tl * 1e3:8.1f} ms ({tl / n * 1e6:5.2f} µs/node)  "
                  f"update {tu * 1e3:8.1f} ms ({tu / n * 1e6:5.2f} µs/node)")
        growth = per_node[-1] / per_node[0]
        worst = max(worst, growth)
        print(f"  instantiate+launch µs/node, largest vs smallest: x{growth:.2f}")
    ok = worst <= 2.5
    print("linear: OK" if ok else f"NOT linear: per-node cost grew x{worst:.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
