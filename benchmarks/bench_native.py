"""The native route's cost beside its baselines, measured in one run (issue 9).

Run: ``python benchmarks/bench_native.py [--quick] [--strict]``

A captured three-argument ``cuLaunchKernel`` (kernel ``k3(.u64, .u32, .f32)``, arguments
``((dptr, 7, 1.5), (None, ctypes.c_int, ctypes.c_float))``, launch shape ``(1,1,1) x (32,1,1)``) is timed
through:

* ``native``: NVIDIA's own ``cuda.bindings.driver`` over the simulated ``libcuda.so.1``
  (``simcuda.patch(route="native")``): the binding converts the arguments to a ``void**`` array, the library
  jumps to the ctypes adapter, the adapter decodes the array by the kernel's parameter types and the core
  captures the node;
* ``python``: simcuda's Python face (``simcuda.bindings.driver``) on the same simulated driver, launching the
  same kernel of a second load of the module (a function of its own: see ``_setup``);
* ``mock``: ``unittest.mock.MagicMock().cuLaunchKernel`` with the same arguments;
* ``binding``: NVIDIA's binding over a library entry that does nothing (the C stub answering 801 with no
  Python behind it): the binding's own cost. The binding resolves its entries once per process, so this is
  measured in a second process where ``cuLaunchKernel`` has no adapter, beside a ``mock`` baseline of its own.

Each process times its variants in alternating rounds (CPU time per call, median over rounds, the order
rotating). Ratios to ``mock`` of the same process make the two processes comparable. Printed with PASS/FAIL:
``native <= binding + python`` (issue 9: the native route costs at most the binding's own cost plus the
Python face's), as ratios to MagicMock. ``--strict`` exits 1 on a miss. Needs the native library
(``simcuda.native.available()``); without it the script says why and exits 0.
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


def _setup(d: object) -> tuple:
    """A context, the kernel, an allocation and a capturing stream through face/binding ``d``: the launch's
    arguments, and the same kernel of a second load of the module, for the Python face. Each variant launches
    a function of its own: a function keeps the record of its last launch, which the next launch with the same
    objects reuses, so with one function shared the variant that did not make the record would also pay for
    comparing its arguments with the other's."""
    _ok(d.cuInit(0))
    dev = _ok(d.cuDeviceGet(0))
    _ok(d.cuCtxSetCurrent(_ok(d.cuDevicePrimaryCtxRetain(dev))))
    f, own = (_ok(d.cuModuleGetFunction(_ok(d.cuModuleLoadData(PTX3)), b"k3")) for _ in range(2))
    dptr = _ok(d.cuMemAlloc(4096))
    s = _ok(d.cuStreamCreate(1))
    _ok(d.cuStreamBeginCapture(s, 0))
    return (f, 1, 1, 1, 32, 1, 1, 0, s, ((dptr, 7, 1.5), (None, ctypes.c_int, ctypes.c_float)), 0), own


def child(mode: str, rounds: int, chunk: int) -> dict[str, float]:
    """Run in a fresh process: ``mode`` "native" (native, python, mock) or "binding" (binding, mock)."""
    import simcuda
    from simcuda.native import adapters, index_of, set_entry

    if mode == "binding":  # load the library, register everything but cuLaunchKernel: its C stub answers
        adapters.install()
        for ptds in (False, True):
            set_entry(index_of("cuLaunchKernel", 4000), ptds, None)
    with simcuda.patch(route="native"):
        from cuda.bindings import driver as nv

        from simcuda.bindings import driver as face
        variants = []
        if mode == "native":
            nargs, own = _setup(nv)
            assert int(nv.cuLaunchKernel(*nargs)[0]) == 0
            (dptr, *rest), types = nargs[9]
            pargs = (face.CUfunction(int(own)), *nargs[1:8], face.CUstream(int(nargs[8])), ((face.CUdeviceptr(int(dptr)), *rest), types), 0)
            assert int(face.cuLaunchKernel(*pargs)[0]) == 0
            variants += [("native", nv.cuLaunchKernel, nargs), ("python", face.cuLaunchKernel, pargs)]
        else:
            nargs, _own = _setup(nv)
            assert int(nv.cuLaunchKernel(*nargs)[0]) == 801  # the stub: nothing behind the binding
            variants += [("binding", nv.cuLaunchKernel, nargs)]
        m = mock.MagicMock()
        variants.append(("mock", m.cuLaunchKernel, nargs))
        samples: dict[str, list[float]] = {name: [] for name, *_ in variants}
        for r in range(rounds):
            order = variants[r % len(variants):] + variants[:r % len(variants)]
            for name, fn, a in order:
                gc.collect()
                samples[name].append(_time(fn, a, chunk) / chunk * 1e6)
            m.reset_mock()
    return {k: statistics.median(v) for k, v in samples.items()}


def run_child(mode: str, rounds: int, chunk: int) -> dict[str, float]:
    code = (f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import json, bench_native; "
            f"print(json.dumps(bench_native.child({mode!r}, {rounds}, {chunk})))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise SystemExit(f"the {mode} child failed:\n{r.stderr}")
    return dict(json.loads(r.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds and calls")
    ap.add_argument("--strict", action="store_true", help="exit 1 when the target is missed")
    args = ap.parse_args(argv)
    from simcuda import native
    ok, why = native.available()
    if not ok:
        print(f"native route unavailable here: {why}")
        return 0
    rounds, chunk = (5, 2_000) if args.quick else (9, 10_000)
    a = run_child("native", rounds, chunk)
    b = run_child("binding", rounds, chunk)
    print("captured 3-argument cuLaunchKernel, CPU µs per call (median of rounds):")
    for k, v in [("native", a["native"]), ("python", a["python"]), ("mock", a["mock"]),
                 ("binding (no-op library)", b["binding"]), ("mock (its process)", b["mock"])]:
        print(f"  {k:26s} {v:8.3f}")
    native_r, python_r, binding_r = a["native"] / a["mock"], a["python"] / a["mock"], b["binding"] / b["mock"]
    print(f"  ratios to MagicMock: native {native_r:.3f}, python {python_r:.3f}, binding {binding_r:.3f}")
    met = native_r <= binding_r + python_r
    print(f"  native <= binding + python: {native_r:.3f} <= {binding_r + python_r:.3f}  {'PASS' if met else 'FAIL'}")
    return 1 if args.strict and not met else 0


if __name__ == "__main__":
    sys.exit(main())
