"""Soak: does memory stay flat over a long mixed workload (issue 19, "When resolved")?

Run: ``python benchmarks/bench_soak.py [--rounds N] [--route python|native|both] [--strict]``

Each round, on one simulated driver: a stream and an event are made; the stream captures (the round's mode in
turn: GLOBAL, THREAD_LOCAL, RELAXED) a host-to-device copy of a numpy array, a memset, a kernel launch and an
event record; the graph is instantiated and launched, every 8th round its exec is updated from the graph
(``cuGraphExecUpdate``) and launched again, every 16th round a graph is also built node by node
(``cuGraphCreate``, a memset node, an empty node) and destroyed; a device allocation is made and freed,
and a stream-ordered one every 4th round; then the exec, the graph, the event and the stream are destroyed.
No ``gc.collect`` and no trimming before a sample: the figures are what the process holds.

It prints the resident set size (``VmRSS``) after round 10,000, round 30,000 and the last, and the sizes of
the driver's tables (the handle table, the destroyed handles remembered by kind, the graph lists, live
captures, the error and launch logs); the launch log is a ring of ``Options.launch_log_limit`` records
(``--launch-log``, 10,000 here: the option's default of 1,000,000 records is not reached in 60,000 rounds, so
with it the log, the simulator's own account of what ran, grows through the whole run by design); PASS when RSS grows less than 10% from round 10,000 to the end (with
fewer than 10,000 rounds, from the first tenth). The Python face (``simcuda.faces.bindings.driver``) always
runs; the native route (NVIDIA's ``cuda.bindings.driver`` over the simulated ``libcuda.so.1``,
``simcuda.patch(route="native")``, docs/native.md) runs when ``cuda.bindings`` and the native library are
there. Each route runs in a process of its own; ``--strict`` exits 1 on a FAIL. Defaults: 60,000 rounds.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _setup import PTX  # noqa: E402  # the benchmarks' empty kernel ``k`` (and the repository on sys.path)


def rss_mib() -> float:
    """The process's resident set size in MiB (``VmRSS`` of ``/proc/self/status``; 0 where there is none)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def tables(drv: Any) -> dict[str, int]:
    """The sizes of the driver's tables."""
    return {"handle_table": len(drv.handles.table), "destroyed_records": getattr(drv.handles, "dead_records", 0),
            "graph_list": len(drv.handles.all_graphs), "capture_graphs": len(drv.captures.ended_graphs),
            "live_captures": len(drv.captures.live), "error_log": len(drv.error_log),
            "launch_log": len(drv.launch_log)}


def _check(res: Any) -> Any:
    """The values of a tuple-returning call whose code must be success (raises ``RuntimeError`` otherwise)."""
    if isinstance(res, tuple):
        code, rest = res[0], res[1:]
    else:
        code, rest = res, ()
    if int(code) != 0:
        raise RuntimeError(f"call failed: {code!r}")
    return rest[0] if len(rest) == 1 else rest


def workload(cu: Any, drv: Any, rounds: int, marks: tuple[int, ...]) -> list[dict[str, Any]]:
    """Run ``rounds`` rounds of the mixed workload through ``cu`` (a ``cuda.bindings.driver``-shaped module) on
    ``drv``; a sample (round, RSS, tables) after each round in ``marks`` and after the last."""
    import numpy as np
    _check(cu.cuInit(0))
    dev = _check(cu.cuDeviceGet(0))
    ctx = _check(cu.cuDevicePrimaryCtxRetain(dev))
    _check(cu.cuCtxSetCurrent(ctx))
    mod = _check(cu.cuModuleLoadData(PTX))
    fn = _check(cu.cuModuleGetFunction(mod, b"k"))
    modes = (cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL,
             cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
             cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED)
    host = np.arange(256, dtype=np.uint32)
    dbuf = _check(cu.cuMemAlloc(host.nbytes))
    samples = []
    for r in range(1, rounds + 1):
        s = _check(cu.cuStreamCreate(1))
        ev = _check(cu.cuEventCreate(0))
        _check(cu.cuStreamBeginCapture(s, modes[r % 3]))
        _check(cu.cuMemcpyHtoDAsync(dbuf, host, host.nbytes, s))
        _check(cu.cuMemsetD8Async(dbuf, r & 0xFF, 16, s))
        _check(cu.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, s, 0, 0))
        _check(cu.cuEventRecord(ev, s))
        g = _check(cu.cuStreamEndCapture(s))
        x = _check(cu.cuGraphInstantiate(g, 0))
        _check(cu.cuGraphLaunch(x, s))
        if r % 8 == 0:
            _check(cu.cuGraphExecUpdate(x, g))
            _check(cu.cuGraphLaunch(x, s))
        if r % 16 == 0:
            g2 = _check(cu.cuGraphCreate(0))
            p = cu.CUDA_MEMSET_NODE_PARAMS()
            p.dst, p.value, p.elementSize, p.width, p.height, p.pitch = dbuf, 7, 1, 8, 1, 8
            m = _check(cu.cuGraphAddMemsetNode(g2, None, 0, p, ctx))
            _check(cu.cuGraphAddEmptyNode(g2, [m], 1))
            _check(cu.cuGraphDestroy(g2))
        a = _check(cu.cuMemAlloc(4096))
        _check(cu.cuMemFree(a))
        if r % 4 == 0:
            b = _check(cu.cuMemAllocAsync(4096, s))
            _check(cu.cuMemFreeAsync(b, s))
        _check(cu.cuStreamSynchronize(s))
        _check(cu.cuGraphExecDestroy(x))
        _check(cu.cuGraphDestroy(g))
        _check(cu.cuEventDestroy(ev))
        _check(cu.cuStreamDestroy(s))
        if r in marks or r == rounds:
            samples.append({"round": r, "rss_mib": round(rss_mib(), 1), "tables": tables(drv)})
    return samples


def child(route: str, rounds: int, log_limit: int | None) -> dict[str, Any]:
    """Run the workload on ``route`` in this process (the driver's launch log keeping ``log_limit`` records); the
    samples (or why the route cannot run)."""
    import simcuda
    marks = (10_000, 30_000) if rounds >= 10_000 else (max(1, rounds // 10),)
    drv = simcuda.Driver(options=simcuda.Options(launch_log_limit=log_limit))
    if route == "python":
        simcuda.use(drv)
        from simcuda.faces.bindings import driver as cu
        return {"route": route, "samples": workload(cu, drv, rounds, marks)}
    from simcuda.faces import native
    ok, why = native.available()
    if not ok:
        return {"route": route, "skipped": why}
    try:
        import cuda.bindings  # noqa: F401
    except ImportError as e:
        return {"route": route, "skipped": f"cuda.bindings is not importable ({e})"}
    with simcuda.patch(driver=drv, route="native"):
        from cuda.bindings import driver as nv
        return {"route": route, "samples": workload(nv, drv, rounds, marks)}


def verdict(samples: list[dict[str, Any]]) -> tuple[bool, float]:
    """PASS (RSS grew less than 10% from the first sample to the last) and the growth in percent."""
    first, last = samples[0]["rss_mib"], samples[-1]["rss_mib"]
    growth = (last - first) / first * 100 if first else 0.0
    return growth < 10.0, growth


def main(argv: list[str] | None = None) -> int:
    """Run the routes asked for, each in a process of its own, and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=60_000, help="rounds of the workload (default 60,000)")
    ap.add_argument("--route", choices=("python", "native", "both"), default="both")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a route FAILs")
    ap.add_argument("--launch-log", type=int, default=10_000,
                    help="Options.launch_log_limit of the driver (default 10,000; the option's own default is "
                         "1,000,000: the log is a bounded ring, and 60,000 rounds make ~230,000 records)")
    ap.add_argument("--child", choices=("python", "native"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.rounds, args.launch_log)))
        return 0
    failed = False
    for route in (("python", "native") if args.route == "both" else (args.route,)):
        out = subprocess.run([sys.executable, __file__, "--child", route, "--rounds", str(args.rounds),
                              "--launch-log", str(args.launch_log)],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print(f"{route}: the run failed (rc {out.returncode}):\n{out.stderr[-3000:]}")
            failed = True
            continue
        res = json.loads(out.stdout.strip().splitlines()[-1])
        if "skipped" in res:
            print(f"{route}: skipped: {res['skipped']}")
            continue
        for smp in res["samples"]:
            print(f"{route}: after round {smp['round']:>6}: RSS {smp['rss_mib']:8.1f} MiB; tables {smp['tables']}")
        ok, growth = verdict(res["samples"])
        print(f"{route}: RSS growth from round {res['samples'][0]['round']} to the end: {growth:+.1f}% "
              f"({'PASS' if ok else 'FAIL'}: less than 10%)")
        failed |= not ok
    return 1 if failed and args.strict else 0


if __name__ == "__main__":
    sys.exit(main())
