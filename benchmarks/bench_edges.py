"""Edge edits cost per edge (run: python benchmarks/bench_edges.py [--quick]).

What is timed, per shape and size (the garbage collector stays on; nodes are EMPTY nodes made with the
core's internal ``Driver.handles.new_node`` and handle lists wrapped as ``CUgraphNode`` beforehand, neither timed):

* ``chain, one call``: one ``cuGraphAddDependencies`` call (driver face) adding ``n`` edges i -> i+1;
* ``fan-out, one call`` / ``fan-in, one call``: one call adding root -> each of ``n`` nodes / each -> sink;
* ``fan-out, one edge per call``: ``n`` calls, each adding root -> node i (the duplicate check of every
  call looks at a node with up to ``n`` dependents);
* ``fan-out removal, one edge per call``: ``n`` ``cuGraphRemoveDependencies`` calls removing root -> node i
  in creation order (the oldest of the root's edges each time);
* ``fan-out leaf destroy``: ``n`` ``cuGraphDestroyNode`` calls on the leaves of a fan-out;
* ``oxicuda GraphExec.launch``: ``simcuda.faces.oxicuda.stream_capture`` graph of ``n`` kernel nodes in a chain; times
  ``Graph.instantiate()`` (oxicuda's topological sort), the first ``GraphExec.launch`` (lowering to a
  simulated CUgraph: ``n`` kernel nodes, one ``cuGraphAddDependencies`` call with ``n - 1`` edges,
  ``cuGraphInstantiate``, then the replay) and a second launch (replay only); per-node time is of the
  first launch.

Sizes: chain 250k / 500k / 1M edges, the other shapes 25k / 50k / 100k (``--quick``: a tenth of the
chain sizes, a quarter of the others). The cost is linear when µs/edge stays flat as ``n`` grows; the
script exits with 1 when, for some shape, the largest size costs more than 2.5x per edge what the
smallest does. Targets live here, never in timed unit tests (docs/architecture.md, performance budgets).
"""
from __future__ import annotations

import gc
import sys
import time

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))

from _setup import cu, fresh_driver, simcuda  # noqa: E402

from simcuda._core.graphs import graph_model as gr  # noqa: E402

LIMIT = 2.5


def graph_of(n: int) -> tuple:
    """A fresh driver and a graph of ``n`` EMPTY nodes: ``(driver, CUgraph, [CUgraphNode])`` (not timed)."""
    fresh_driver()
    d = simcuda.current_driver()
    h = d.graph_create(0)
    g = d.handles.graph(h)
    nodes = [cu.CUgraphNode(d.handles.new_node(g, gr.EMPTY, {}).handle) for _ in range(n)]
    return d, cu.CUgraph(h), nodes


def timed(fn: object) -> float:
    gc.collect()  # start each measurement from the same collector state (the collector stays on)
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def check(res: tuple) -> None:
    assert int(res[0]) == 0, (res, simcuda.last_error())


def chain(n: int) -> float:
    d, g, ns = graph_of(n + 1)
    t = timed(lambda: check(cu.cuGraphAddDependencies(g, ns[:-1], ns[1:], None, n)))
    assert len(d.handles.graph(int(g)).edges) == n
    return t


def fan_out(n: int) -> float:
    d, g, ns = graph_of(n + 1)
    t = timed(lambda: check(cu.cuGraphAddDependencies(g, ns[:1] * n, ns[1:], None, n)))
    assert len(d.handles.graph(int(g)).nodes[0].outs) == n
    return t


def fan_in(n: int) -> float:
    d, g, ns = graph_of(n + 1)
    t = timed(lambda: check(cu.cuGraphAddDependencies(g, ns[1:], ns[:1] * n, None, n)))
    assert len(d.handles.graph(int(g)).nodes[0].ins) == n
    return t


def one_edge_calls(n: int) -> float:
    d, g, ns = graph_of(n + 1)
    root = [ns[0]]

    def run() -> None:
        for x in ns[1:]:
            check(cu.cuGraphAddDependencies(g, root, [x], None, 1))
    t = timed(run)
    assert len(d.handles.graph(int(g)).nodes[0].outs) == n
    return t


def removals(n: int) -> float:
    d, g, ns = graph_of(n + 1)
    check(cu.cuGraphAddDependencies(g, ns[:1] * n, ns[1:], None, n))
    root = [ns[0]]

    def run() -> None:
        for x in ns[1:]:
            check(cu.cuGraphRemoveDependencies(g, root, [x], None, 1))
    t = timed(run)
    assert not d.handles.graph(int(g)).edges
    return t


def destroys(n: int) -> float:
    d, g, ns = graph_of(n + 1)
    check(cu.cuGraphAddDependencies(g, ns[:1] * n, ns[1:], None, n))

    def run() -> None:
        for x in ns[1:]:
            check(cu.cuGraphDestroyNode(x))
    t = timed(run)
    assert not d.handles.graph(int(g)).edges and d.handles.graph(int(g)).n_live == 1
    return t


def oxicuda_launch(n: int, extra: list) -> float:
    from simcuda.faces.oxicuda.stream_capture import Graph, Stream
    simcuda.use(simcuda.Driver(options=simcuda.Options(launch_log_limit=2 * n)))
    g = Graph.new()
    for i in range(n):
        g.add_kernel_node("k", (1, 1, 1), (1, 1, 1), 0)
        if i:
            g.add_dependency(i - 1, i)
    stream = Stream.new()
    gc.collect()
    t0 = time.perf_counter()
    x = g.instantiate()
    t1 = time.perf_counter()
    x.launch(stream)
    t2 = time.perf_counter()
    x.launch(stream)
    t3 = time.perf_counter()
    log = simcuda.current_driver().launch_log
    assert len(log) == 2 * n and log[-1].launch == 2
    extra.append(f"instantiate {(t1 - t0) * 1e3:7.1f} ms, second launch (replay) {(t3 - t2) * 1e3:7.1f} ms "
                 f"({(t3 - t2) / n * 1e6:4.2f} µs/node)")
    return t2 - t1


def main() -> int:
    quick = "--quick" in sys.argv
    big = [25_000, 50_000, 100_000] if quick else [250_000, 500_000, 1_000_000]
    small = [6_250, 12_500, 25_000] if quick else [25_000, 50_000, 100_000]
    shapes = [
        ("chain, one cuGraphAddDependencies call", chain, big, "edge"),
        ("fan-out (1 root -> n), one call", fan_out, small, "edge"),
        ("fan-in (n -> 1 sink), one call", fan_in, small, "edge"),
        ("fan-out, one edge per cuGraphAddDependencies call", one_edge_calls, small, "edge"),
        ("fan-out removal, one edge per cuGraphRemoveDependencies call", removals, small, "edge"),
        ("fan-out leaf destroy, one cuGraphDestroyNode per leaf", destroys, small, "node"),
        ("oxicuda GraphExec.launch of an n-node chain (first launch: lower + instantiate + replay)",
         oxicuda_launch, small, "node"),
    ]
    worst = 0.0
    rows = []
    for title, fn, sizes, unit in shapes:
        print(title)
        per = []
        for n in sizes:
            extra: list = []
            t = fn(n, extra) if fn is oxicuda_launch else fn(n)
            per.append(t / n)
            print(f"  {n:>9,} {unit}s: {t:8.3f} s  {t / n * 1e6:6.2f} µs/{unit}" + (f"   ({extra[0]})" if extra else ""))
        growth = per[-1] / per[0]
        worst = max(worst, growth)
        rows.append((title, growth))
        print(f"  µs/{unit}, largest vs smallest: x{growth:.2f}")
    ok = worst <= LIMIT
    print("linear: OK" if ok else f"NOT linear: per-edge cost grew x{worst:.2f} (limit x{LIMIT})")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
