"""The native route's cost beside its baselines, measured in one run (issue 9).

Run: ``python benchmarks/bench_native.py [--quick] [--strict]``

A captured three-argument ``cuLaunchKernel`` (kernel ``k3(.u64, .u32, .f32)``, arguments
``((dptr, 7, 1.5), (None, ctypes.c_int, ctypes.c_float))``, launch shape ``(1,1,1) x (32,1,1)``) is timed
through:

* ``native``: NVIDIA's own ``cuda.bindings.driver`` over the simulated ``libcuda.so.1``
  (``simcuda.patch(route="native")``): the binding converts the arguments to a ``void**`` array, the library
  compares them with the thread's last call (the launch memo, ``simcuda/faces/native/libcuda.c``) and calls the
  adapter's repeat function, or the adapter itself with all the arguments, and the core captures the node;
* ``native, no memo``: the same through the adapter alone (as with ``SIMCUDA_NATIVE_MEMO=0``), for comparison;
* ``python``: simcuda's Python face (``simcuda.faces.bindings.driver``) on the same simulated driver;
* ``mock``: ``unittest.mock.MagicMock().cuLaunchKernel`` with the same arguments;
* ``binding``: NVIDIA's binding over a library entry that does nothing (the entry's slot put back to the C stub,
  which answers 801 with no Python behind it, for the variant's calls only): the binding's own cost.

Each variant launches a kernel function of its own (a function keeps the record of its last launch, which the
next launch with the same objects reuses; with one function shared, a variant would also pay for comparing its
arguments with another's record). All run in one fresh process, in alternating rounds (CPU time per call; the
order rotates each round), so the load of a shared machine falls on all of them alike; figures are medians
over rounds, also as ratios to ``mock``. Printed with PASS/FAIL: ``native <= binding + python`` (issue 9: the
native route costs at most the binding's own cost plus the Python face's), on the medians, with the share of
rounds in which it held. ``--strict`` exits 1 on a miss. Needs the native library
(``simcuda.faces.native.available()``); without it the script says why and exits 0.
"""
from __future__ import annotations

import argparse
import ctypes
import gc
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

PTX3 = b""".version 8.5
.target sm_90
.address_size 64
.visible .entry k3(.param .u64 p, .param .u32 n, .param .f32 x)
{ ret; }
"""


def _ok(res: tuple) -> object:
    assert int(res[0]) == 0, res
    return res[1] if len(res) == 2 else res[1:]


def _time(fn: object, args: tuple, n: int) -> float:
    t0 = time.process_time()
    for _ in range(n):
        fn(*args)
    return time.process_time() - t0


def _setup(d: object, functions: int) -> tuple:
    """A context, ``functions`` functions of kernel ``k3`` (each of a load of its own), an allocation and a
    capturing stream through binding ``d``: the functions and the launch's other arguments."""
    _ok(d.cuInit(0))
    dev = _ok(d.cuDeviceGet(0))
    _ok(d.cuCtxSetCurrent(_ok(d.cuDevicePrimaryCtxRetain(dev))))
    fs = [_ok(d.cuModuleGetFunction(_ok(d.cuModuleLoadData(PTX3)), b"k3")) for _ in range(functions)]
    dptr = _ok(d.cuMemAlloc(4096))
    s = _ok(d.cuStreamCreate(1))
    _ok(d.cuStreamBeginCapture(s, 0))
    return fs, (1, 1, 1, 32, 1, 1, 0, s, ((dptr, 7, 1.5), (None, ctypes.c_int, ctypes.c_float)), 0)


def child(rounds: int, chunk: int) -> dict[str, list[float]]:
    """Run in a fresh process: every variant's CPU µs per call in each round."""
    import simcuda
    from simcuda.faces.native import _keep, adapters, index_of, set_entry

    idx = index_of("cuLaunchKernel", 4000)
    with simcuda.patch(route="native"):
        from cuda.bindings import driver as nv

        from simcuda.faces.bindings import driver as face
        (f_native, f_plain, f_python, f_binding), rest = _setup(nv, 4)
        memo = _keep[(idx, False)]  # what install() registered: the memo's entry (the adapter behind it)
        plain = adapters.flat_prototype(idx)(adapters.adapter(idx, False))  # the adapter alone

        def use(fn: object) -> object:
            return lambda: set_entry(idx, False, fn)
        (dptr, *vals), types = rest[8]
        pargs = (face.CUfunction(int(f_python)), *rest[:7], face.CUstream(int(rest[7])),
                 ((face.CUdeviceptr(int(dptr)), *vals), types), 0)
        m = mock.MagicMock()
        variants = [("native", use(memo), nv.cuLaunchKernel, (f_native, *rest)),
                    ("native, no memo", use(plain), nv.cuLaunchKernel, (f_plain, *rest)),
                    ("python", use(memo), face.cuLaunchKernel, pargs),
                    ("mock", use(memo), m.cuLaunchKernel, (f_native, *rest)),
                    ("binding", use(None), nv.cuLaunchKernel, (f_binding, *rest))]
        for name, setup, fn, a in variants:  # each path once, checked
            setup()
            assert int(fn(*a)[0]) == (801 if name == "binding" else 0) or name == "mock", name
        use(memo)()
        samples: dict[str, list[float]] = {name: [] for name, *_ in variants}
        for r in range(rounds):
            for name, setup, fn, a in variants[r % len(variants):] + variants[:r % len(variants)]:
                setup()
                gc.collect()
                samples[name].append(_time(fn, a, chunk) / chunk * 1e6)
            use(memo)()
            m.reset_mock()
    return samples


def run_child(rounds: int, chunk: int) -> dict[str, list[float]]:
    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import json, bench_native; "
            f"print(json.dumps(bench_native.child({rounds}, {chunk})))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        raise SystemExit(f"the benchmark's process failed:\n{r.stderr}")
    return dict(json.loads(r.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds and calls")
    ap.add_argument("--strict", action="store_true", help="exit 1 when the target is missed")
    args = ap.parse_args(argv)
    from simcuda.faces import native
    ok, why = native.available()
    if not ok:
        print(f"native route unavailable here: {why}")
        return 0
    rounds, chunk = (15, 2_000) if args.quick else (31, 4_000)
    samples = run_child(rounds, chunk)
    med = {k: statistics.median(v) for k, v in samples.items()}
    print(f"captured 3-argument cuLaunchKernel, CPU µs per call (median of {rounds} rounds of {chunk:,}; "
          "ratio to MagicMock):")
    for k, v in med.items():
        print(f"  {k:26s} {v:8.3f}   {v / med['mock']:.3f}")
    native_r, python_r, binding_r = (med[k] / med["mock"] for k in ("native", "python", "binding"))
    held = sum(n <= b + p for n, b, p in zip(samples["native"], samples["binding"], samples["python"]))
    met = native_r <= binding_r + python_r
    print(f"  native <= binding + python: {native_r:.3f} <= {binding_r + python_r:.3f}  {'PASS' if met else 'FAIL'}"
          f" (held in {held} of {rounds} rounds)")
    return 1 if args.strict and not met else 0


if __name__ == "__main__":
    sys.exit(main())
