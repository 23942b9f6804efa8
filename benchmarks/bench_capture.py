"""Speed and size targets of simcuda (run: python benchmarks/bench_capture.py [--quick]).

Prints, for the cuda.bindings-style face:
  1. the median cost per captured cuLaunchKernel (µs) over a capture of 100,000 launches, beside the
     cost of the same calls on a unittest.mock.MagicMock (the simulator must be faster);
  2. the time to end a capture of N nodes spread over 8 forked streams, for several N, with the
     time per node (linear: the per-node time stays flat);
  3. instantiate + launch time of an N-node graph for several N (linear).
Targets live here, never in timed unit tests (docs/architecture.md, performance budgets).
"""
from __future__ import annotations

import statistics
import sys
import time
from unittest import mock

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))

from _setup import cu, fresh_driver  # noqa: E402


def setup() -> tuple:
    """A fresh driver with a context and kernel ``k``: ``(ctx, function)``."""
    return fresh_driver()


def per_launch_us(n: int, chunk: int = 1000) -> tuple[float, float]:
    """Median µs per captured launch through the face, and per call on a MagicMock."""
    _, f = setup()
    _, s = cu.cuStreamCreate(0)
    cu.cuStreamBeginCapture(s, 0)
    launch = cu.cuLaunchKernel
    sim = []
    for _ in range(n // chunk):
        t0 = time.perf_counter()
        for _ in range(chunk):
            launch(f, 1, 1, 1, 32, 1, 1, 0, s, 0, 0)
        sim.append((time.perf_counter() - t0) / chunk * 1e6)
    err, g = cu.cuStreamEndCapture(s)
    assert int(err) == 0 and cu.cuGraphGetNodes(g)[2] == n
    m = mock.MagicMock()
    fake = []
    for _ in range(n // chunk):
        t0 = time.perf_counter()
        for _ in range(chunk):
            m.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, 0, 0)
        fake.append((time.perf_counter() - t0) / chunk * 1e6)
    return statistics.median(sim), statistics.median(fake)


def end_capture_seconds(n: int, width: int = 8) -> float:
    """Seconds for cuStreamEndCapture of an n-node capture over ``width`` forked streams."""
    _, f = setup()
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
    t0 = time.perf_counter()
    err, g = cu.cuStreamEndCapture(origin)
    dt = time.perf_counter() - t0
    assert int(err) == 0, err
    return dt


def instantiate_launch_seconds(n: int) -> tuple[float, float]:
    """Seconds to instantiate and to launch (replay) an n-node captured chain."""
    _, f = setup()
    _, s = cu.cuStreamCreate(0)
    cu.cuStreamBeginCapture(s, 0)
    for _ in range(n):
        cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, 0, 0)
    _, g = cu.cuStreamEndCapture(s)
    t0 = time.perf_counter()
    err, x = cu.cuGraphInstantiate(g, 0)
    t1 = time.perf_counter()
    assert int(err) == 0
    cu.cuGraphLaunch(x, s)
    cu.cuStreamSynchronize(s)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1


def main() -> int:
    quick = "--quick" in sys.argv
    n = 20_000 if quick else 100_000
    sim, fake = per_launch_us(n)
    print(f"captured cuLaunchKernel, {n:,} launches: simcuda {sim:.2f} µs/launch (median of 1000-launch chunks); "
          f"MagicMock {fake:.2f} µs/call -> {'OK, faster than the mock' if sim < fake else 'SLOWER than the mock'}")
    sizes = [12_500, 25_000, 50_000] if quick else [25_000, 50_000, 100_000]
    print("cuStreamEndCapture over 8 forked streams (linear if µs/node stays flat):")
    for size in sizes:
        dt = end_capture_seconds(size)
        print(f"  {size:>7,} nodes: {dt * 1e3:8.1f} ms  ({dt / size * 1e6:.2f} µs/node)")
    print("cuGraphInstantiate + cuGraphLaunch of an N-node graph (linear if µs/node stays flat):")
    for size in sizes:
        ti, tl = instantiate_launch_seconds(size)
        print(f"  {size:>7,} nodes: instantiate {ti * 1e3:8.1f} ms ({ti / size * 1e6:.2f} µs/node), "
              f"launch {tl * 1e3:8.1f} ms ({tl / size * 1e6:.2f} µs/node)")
    return 0 if sim < fake else 1


if __name__ == "__main__":
    raise SystemExit(main())
