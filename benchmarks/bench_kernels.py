"""Speed of real kernels on the PTX engine beside numba's CUDA simulator and numpy, in one run (issue 17, part 5).

Run: ``python benchmarks/bench_kernels.py [--quick] [--rounds N]``

Kernels (CUDA C in tests/kernels/programs/, compiled to PTX by NVIDIA's NVRTC at sm_80 and launched through
simcuda's driver face, no Python twin): vector add of 50,000 floats, a 16x16-tile shared-memory matmul at 64x64
and 256x256; and two kernels the benchmark was not written around: a 256-bin histogram with shared and global
atomics over 200,000 bytes and a 5-point 1-D stencil over 100,000 floats.

For each, three ways are timed: (a) ``numba-sim``: the same algorithm as a numba ``@cuda.jit`` kernel run by
numba's CUDA simulator (a subprocess with ``NUMBA_ENABLE_CUDASIM=1``, default settings; vector add and the 64x64
matmul only: the simulator runs one OS thread per CUDA thread); (b) ``engine``: ``cuLaunchKernel`` +
``cuCtxSynchronize``; the first launch (``cuModuleLoadData`` of the PTX, parse and prepare, launch) is reported
apart from the repeat launches; (c) ``numpy``: the computation done directly. Every launch gets fresh random
inputs (copied in, outside the timed span) and every output is checked (outside the timed span). Figures are
medians over ``--rounds`` runs of wall time (``time.perf_counter``).

ns per lane-instruction: repeat-launch time divided by the lane-instructions the engine counts
(:class:`simcuda.ptx.LaunchStats`, obtained by launching the same PTX once through :mod:`simcuda.ptx` on the
same inputs). Targets printed with PASS/FAIL: engine >= 100x faster than numba's simulator on vector add 50k and
matmul 64x64; <= 10 ns per lane-instruction on the 256x256 matmul. While the engine is absent (the interface
stub) the engine rows print ``absent`` and the targets ``NOT JUDGED``.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import simcuda  # noqa: E402
from simcuda.faces.bindings import driver as cu  # noqa: E402
from simcuda.faces.bindings import nvrtc  # noqa: E402

PROGRAMS = ROOT / "tests" / "kernels" / "programs"
P, I32 = ctypes.c_void_p, ctypes.c_int

EXTRA = b"""
extern "C" __global__ void histogram(const unsigned char *data, unsigned *bins, int n)
{
    __shared__ unsigned local[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 256; i += blockDim.x) atomicAdd(&bins[i], local[i]);
}
extern "C" __global__ void stencil5(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 2 && i < n - 2)
        out[i] = 0.1f * in[i - 2] + 0.2f * in[i - 1] + 0.4f * in[i] + 0.2f * in[i + 1] + 0.1f * in[i + 2];
}
"""

NUMBA_CHILD = r'''
import json, statistics, sys, time
import numpy as np
from numba import cuda, float32
rounds = int(sys.argv[1])
TILE = 16

@cuda.jit
def vector_add(a, b, c, n):
    i = cuda.grid(1)
    if i < n:
        c[i] = a[i] + b[i]

@cuda.jit
def matmul(A, B, C, n):
    As = cuda.shared.array((TILE, TILE), float32)
    Bs = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row, col = cuda.blockIdx.y * TILE + ty, cuda.blockIdx.x * TILE + tx
    acc = float32(0.0)
    for k0 in range(0, n, TILE):
        As[ty, tx] = A[row, k0 + tx]
        Bs[ty, tx] = B[k0 + ty, col]
        cuda.syncthreads()
        for k in range(TILE):
            acc += As[ty, k] * Bs[k, tx]
        cuda.syncthreads()
    C[row, col] = acc

rng = np.random.default_rng(0)
out = {}
times = []
for _ in range(rounds):
    n = 50_000
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    c = np.zeros_like(a)
    t = time.perf_counter(); vector_add[(n + 255) // 256, 256](a, b, c, n); times.append(time.perf_counter() - t)
    assert np.array_equal(c, a + b)
out["vector_add_50k"] = statistics.median(times)
times = []
for _ in range(rounds):
    n = 64
    a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    c = np.zeros_like(a)
    t = time.perf_counter(); matmul[(n // TILE, n // TILE), (TILE, TILE)](a, b, c, n); times.append(time.perf_counter() - t)
    assert np.allclose(c, a @ b, rtol=1e-5, atol=1e-5)
out["matmul_64"] = statistics.median(times)
print(json.dumps(out))
'''


def check(res: Any) -> Any:
    """Unpack ``(status, *outputs)``, raising with the simulator's why on an error."""
    if int(res[0]):
        raise RuntimeError(f"{res[0]!r}: {simcuda.last_error()}")
    return res[1] if len(res) == 2 else res[1:]


def ptx_of(src: bytes, name: str) -> bytes:
    """NVRTC's PTX for ``src`` at sm_80 (NUL-terminated)."""
    prog = check(nvrtc.nvrtcCreateProgram(src, name.encode(), 0, None, None))
    check(nvrtc.nvrtcCompileProgram(prog, 1, [b"--gpu-architecture=sm_80"]))
    size = check(nvrtc.nvrtcGetPTXSize(prog))
    buf = b" " * size
    check(nvrtc.nvrtcGetPTX(prog, buf))
    return buf


def engine_absent() -> str | None:
    """Why the engine cannot be measured (the interface stub), or None."""
    from simcuda import ptx
    try:
        ptx.load(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry probe()\n{\n ret;\n}\n")
    except ptx.Unsupported as exc:
        if "not built yet" in exc.why:
            return exc.why
    return None


class Case:
    """One benchmark kernel: its PTX, launch shape, a maker of fresh inputs, the numpy answer and the checker."""

    def __init__(self, name: str, ptx: bytes, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int],
                 make: Any, answer: Any, close: bool = False) -> None:
        self.name, self.ptx, self.kernel, self.grid, self.block = name, ptx, kernel, grid, block
        self.make, self.answer, self.close = make, answer, close


def cases(rng: np.random.Generator) -> list[Case]:
    """The five kernels, in print order."""
    va = ptx_of((PROGRAMS / "vector_add.cu").read_bytes(), "vector_add.cu")
    mm = ptx_of((PROGRAMS / "matmul.cu").read_bytes(), "matmul.cu")
    ex = ptx_of(EXTRA, "extra.cu")
    n = 50_000

    def vec() -> tuple[list[Any], list[Any], int]:
        a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        return [a, b], [np.zeros_like(a)], n

    def mat(m: int) -> Any:
        def make() -> tuple[list[Any], list[Any], int]:
            return [rng.random((m, m), dtype=np.float32), rng.random((m, m), dtype=np.float32)], \
                [np.zeros((m, m), np.float32)], m
        return make

    def hist() -> tuple[list[Any], list[Any], int]:
        return [rng.integers(0, 256, 200_000, dtype=np.uint8)], [np.zeros(256, np.uint32)], 200_000

    def sten() -> tuple[list[Any], list[Any], int]:
        return [rng.random(100_000, dtype=np.float32)], [np.zeros(100_000, np.float32)], 100_000

    def sten_answer(x: Any) -> Any:
        y = np.zeros_like(x)
        f = np.float32
        y[2:-2] = (f(0.1) * x[:-4] + f(0.2) * x[1:-3] + f(0.4) * x[2:-2] + f(0.2) * x[3:-1] + f(0.1) * x[4:])
        return y

    return [
        Case("vector_add_50k", va, "vector_add", ((n + 255) // 256, 1, 1), (256, 1, 1), vec, lambda a, b: a + b),
        Case("matmul_64", mm, "matmul", (4, 4, 1), (16, 16, 1), mat(64), lambda a, b: a @ b, close=True),
        Case("matmul_256", mm, "matmul", (16, 16, 1), (16, 16, 1), mat(256), lambda a, b: a @ b, close=True),
        Case("histogram_200k", ex, "histogram", (64, 1, 1), (256, 1, 1), hist,
             lambda d: np.bincount(d, minlength=256).astype(np.uint32)),
        Case("stencil5_100k", ex, "stencil5", ((100_000 + 255) // 256, 1, 1), (256, 1, 1), sten, sten_answer,
             close=True),
    ]


def run_engine(case: Case, rounds: int) -> dict[str, float]:
    """First-launch and median repeat-launch seconds of ``case`` through the driver face, outputs checked."""
    simcuda.use(simcuda.Driver())
    check(cu.cuInit(0))
    check(cu.cuCtxSetCurrent(check(cu.cuDevicePrimaryCtxRetain(check(cu.cuDeviceGet(0))))))
    ins, outs, n = case.make()
    dins = [check(cu.cuMemAlloc(a.nbytes)) for a in ins]
    douts = [check(cu.cuMemAlloc(a.nbytes)) for a in outs]
    fn = None
    times: list[float] = []
    first = 0.0
    for r in range(rounds + 1):
        if r:
            ins, outs, n = case.make()
        for d, a in zip(dins + douts, ins + outs):
            check(cu.cuMemcpyHtoD(d, a, a.nbytes))
        args = ((*(int(d) for d in dins + douts), n), (P,) * (len(dins) + len(douts)) + (I32,))
        if fn is None:
            from simcuda import ptx
            if hasattr(ptx, "_CACHE"):
                ptx._CACHE.clear()  # the first launch includes the parse
        t = time.perf_counter()
        if fn is None:
            fn = check(cu.cuModuleGetFunction(check(cu.cuModuleLoadData(case.ptx)), case.kernel.encode()))
        check(cu.cuLaunchKernel(fn, *case.grid, *case.block, 0, 0, args, 0))
        check(cu.cuCtxSynchronize())
        dt = time.perf_counter() - t
        if r:
            times.append(dt)
        else:
            first = dt
        got = np.empty_like(outs[0])
        check(cu.cuMemcpyDtoH(got, douts[0], got.nbytes))
        want = case.answer(*ins)
        ok = np.allclose(got, want, rtol=1e-4, atol=1e-4) if case.close else np.array_equal(got, want)
        if not ok:
            raise AssertionError(f"{case.name}: the engine's output differs from numpy's")
    return {"first": first, "repeat": statistics.median(times)}


def run_direct(case: Case, rounds: int) -> dict[str, float]:
    """Like :func:`run_engine` but through :mod:`simcuda.ptx` itself on a numpy memory (used while the driver does
    not run PTX yet); also returns ``lanes``, the lane-instructions of one launch (LaunchStats)."""
    from simcuda import ptx
    from tests.ptx.isa.conftest import TinyMemory
    text = case.ptx.rstrip(b"\0 ").decode()
    times: list[float] = []
    first, lanes = 0.0, 0
    for r in range(rounds + 1):
        mem = TinyMemory()
        ins, outs, n = case.make()
        bufs = []
        for a in ins + outs:
            b = mem.add(a.nbytes)
            b.data[:] = np.frombuffer(a.tobytes(), np.uint8)
            bufs.append(b)
        params = b"".join(int(b.start).to_bytes(8, "little") for b in bufs) + int(n).to_bytes(4, "little")
        if r == 0 and hasattr(ptx, "_CACHE"):
            ptx._CACHE.clear()  # the first launch includes the parse
        t = time.perf_counter()
        stats = ptx.load(text).launch(case.kernel, case.grid, case.block, 0, params, mem, ptx.Hooks())
        dt = time.perf_counter() - t
        if r:
            times.append(dt)
        else:
            first, lanes = dt, int(stats.lane_instructions)
        got = bufs[len(ins)].data.view(outs[0].dtype).reshape(outs[0].shape)
        want = case.answer(*ins)
        ok = np.allclose(got, want, rtol=1e-4, atol=1e-4) if case.close else np.array_equal(got, want)
        if not ok:
            raise AssertionError(f"{case.name}: the engine's output differs from numpy's")
    return {"first": first, "repeat": statistics.median(times), "lanes": lanes}


def driver_runs_ptx() -> bool:
    """True when the driver face runs a PTX kernel with no twin (the integration is in)."""
    sys.path.insert(0, str(ROOT))
    try:
        from tests.kernels._probe import driver_runs_ptx as probe
    except BaseException:  # the test module skips itself at import while the integration is absent
        return False
    return bool(probe())


def run_numpy(case: Case, rounds: int) -> float:
    """Median seconds of numpy computing ``case`` directly on fresh inputs."""
    times = []
    for _ in range(rounds):
        ins, _, _ = case.make()
        t = time.perf_counter()
        case.answer(*ins)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def run_numba_sim(rounds: int) -> dict[str, float]:
    """Median seconds of numba's CUDA simulator on vector add 50k and matmul 64 (a child process)."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    res = subprocess.run([sys.executable, "-c", NUMBA_CHILD, str(rounds)], env=env, capture_output=True, text=True,
                         timeout=1800)
    if res.returncode:
        raise RuntimeError(f"numba simulator child failed: {res.stderr[-2000:]}")
    out: dict[str, float] = json.loads(res.stdout.strip().splitlines()[-1])
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its table and targets; returns 0 (the exit code does not judge)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="one numba-sim round, three engine rounds")
    p.add_argument("--rounds", type=int, default=None, help="engine and numpy rounds (default 7, quick 3)")
    args = p.parse_args(argv)
    rounds = args.rounds or (3 if args.quick else 7)
    rng = np.random.default_rng(17)
    absent = engine_absent()
    via_driver = not absent and driver_runs_ptx()
    sim = run_numba_sim(1 if args.quick else 3)
    print(f"kernels: medians of {rounds} launches (numba-sim: {1 if args.quick else 3}), wall seconds")
    print(f"{'kernel':<16}{'numba-sim':>11}{'eng first':>11}{'eng repeat':>11}{'numpy':>10}{'sim/eng':>9}"
          f"{'ns/lane-i':>11}")
    verdicts: list[tuple[str, bool | None]] = []
    for case in cases(rng):
        npt = run_numpy(case, rounds)
        s = sim.get(case.name)
        if absent:
            eng, ns = None, None
        else:
            direct = run_direct(case, rounds)
            eng = run_engine(case, rounds) if via_driver else direct
            ns = eng["repeat"] * 1e9 / max(1, direct["lanes"])
        cells = [f"{s:11.3f}" if s is not None else f"{'-':>11}"]
        cells += [f"{eng['first']:11.4f}", f"{eng['repeat']:11.4f}"] if eng else [f"{'absent':>11}"] * 2
        cells.append(f"{npt:10.5f}")
        ratio = s / eng["repeat"] if (s is not None and eng) else None
        cells.append(f"{ratio:9.0f}" if ratio is not None else f"{'-':>9}")
        cells.append(f"{ns:11.2f}" if ns is not None else f"{'-':>11}")
        print(f"{case.name:<16}" + "".join(cells))
        if case.name in ("vector_add_50k", "matmul_64"):
            verdicts.append((f"engine >= 100x numba-sim on {case.name}", None if ratio is None else ratio >= 100))
        if case.name == "matmul_256":
            verdicts.append(("<= 10 ns per lane-instruction on matmul_256", None if ns is None else ns <= 10))
    for what, ok in verdicts:
        print(f"  {'NOT JUDGED' if ok is None else 'PASS' if ok else 'FAIL'}: {what}")
    if absent:
        print(f"  (engine absent: {absent})")
    elif not via_driver:
        print("  (engine timed through simcuda.ptx directly: the driver does not run PTX yet)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
