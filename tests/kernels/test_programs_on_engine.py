"""The real programs of tests/kernels/programs/, compiled to PTX by NVIDIA's NVRTC (cuda.bindings.nvrtc, sm_80)
and run by the engine itself (:mod:`simcuda.ptx` on the suite's numpy memory), results checked against numpy: the
engine's half of issue 17 part 4, independent of the driver integration (tests/kernels/test_real_programs.py)."""
from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")
nvrtc = pytest.importorskip("cuda.bindings.nvrtc")
from tests.ptx.isa.conftest import TinyMemory, engine_absent, ptx  # noqa: E402

PROGRAMS = Path(__file__).resolve().parent / "programs"
if engine_absent():
    pytest.skip(engine_absent() or "", allow_module_level=True)


def ptx_of(name: str) -> str:
    """NVRTC's PTX of ``programs/<name>.cu`` at sm_80."""
    _, prog = nvrtc.nvrtcCreateProgram((PROGRAMS / f"{name}.cu").read_bytes(), name.encode(), 0, [], [])
    (err,) = nvrtc.nvrtcCompileProgram(prog, 1, [b"--gpu-architecture=sm_80"])
    assert int(err) == 0
    _, size = nvrtc.nvrtcGetPTXSize(prog)
    buf = b" " * size
    nvrtc.nvrtcGetPTX(prog, buf)
    return buf.rstrip(b"\0 ").decode()


def run(name: str, kernel: str, grid: Any, block: Any, arrays: list[Any], scalars: bytes, shared: int = 0) -> Any:
    """Launch ``kernel`` with each array as a device buffer (pointer params, in order) then ``scalars``; returns
    ``(arrays read back, LaunchStats)``."""
    mem = TinyMemory()
    bufs = []
    for a in arrays:
        b = mem.add(a.nbytes)
        b.data[:] = np.frombuffer(a.tobytes(), np.uint8)
        bufs.append(b)
    params = b"".join(struct.pack("<Q", b.start) for b in bufs) + scalars
    stats = ptx.load(ptx_of(name)).launch(kernel, grid, block, shared, params, mem, ptx.Hooks())
    return [b.data.view(a.dtype).reshape(a.shape).copy() for a, b in zip(arrays, bufs)], stats


def test_vector_add_on_engine() -> None:
    """vector_add over 50,000 floats equals numpy's a + b and counts lane-instructions."""
    rng = np.random.default_rng(1)
    a, b = rng.random(50_000, dtype=np.float32), rng.random(50_000, dtype=np.float32)
    (_, _, c), stats = run("vector_add", "vector_add", (196, 1, 1), (256, 1, 1), [a, b, np.zeros_like(a)],
                           struct.pack("<i", 50_000))
    assert np.array_equal(c, a + b) and stats.lane_instructions > 50_000


def test_tiled_matmul_on_engine() -> None:
    """The shared-memory tiled matmul at 64x64 matches numpy."""
    rng = np.random.default_rng(2)
    a, b = rng.random((64, 64), dtype=np.float32), rng.random((64, 64), dtype=np.float32)
    (_, _, c), _ = run("matmul", "matmul", (4, 4, 1), (16, 16, 1), [a, b, np.zeros_like(a)], struct.pack("<i", 64))
    assert np.allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_async_copy_on_engine() -> None:
    """cp.async to shared with commit/wait and a barrier: tiles come back reversed, * 2 + 1."""
    x = np.random.default_rng(5).integers(-1000, 1000, 1024, dtype=np.int32)
    (_, y), _ = run("async_copy", "async_reverse", (4, 1, 1), (256, 1, 1), [x, np.zeros_like(x)], b"")
    assert np.array_equal(y, (x.reshape(4, 256)[:, ::-1] * 2 + 1).ravel())


def test_reduce_pair_on_engine() -> None:
    """reduce_partial (dynamic shared doubles) then reduce_final (warp shuffles) sum 65,536 floats."""
    x = np.random.default_rng(3).random(1 << 16, dtype=np.float32)
    (_, part), _ = run("graph_reduce", "reduce_partial", (32, 1, 1), (128, 1, 1), [x, np.zeros(32)],
                       struct.pack("<I", 1 << 16), shared=8 * 128)
    (_, res), _ = run("graph_reduce", "reduce_final", (1, 1, 1), (32, 1, 1), [part, np.zeros(1)],
                      struct.pack("<I", 32))
    assert res[0] == pytest.approx(float(x.astype(np.float64).sum()), rel=1e-12)


def test_clock_on_engine() -> None:
    """clock64 after the loop and barrier is later than before it, in every block; the loop's values are exact."""
    (times, sink), _ = run("clock", "timed_loop", (8, 1, 1), (64, 1, 1),
                           [np.zeros(16, np.int64), np.zeros(512, np.float32)], struct.pack("<i", 50))
    t = times.reshape(8, 2)
    assert (t[:, 1] - t[:, 0] > 0).all()
    x = np.arange(64, dtype=np.float32)
    for _ in range(50):
        x = x * np.float32(0.5) + np.float32(1.0)
    assert np.array_equal(sink.reshape(8, 64), np.tile(x, (8, 1)))


def test_system_atomics_on_engine() -> None:
    """System-scope atomics (add, max, min, or, xor, cas) over 512 threads x 3 rounds on one buffer."""
    init = np.array([0, -1, 1, 0, 0, 0], np.int32)
    (got,), _ = run("system_atomics", "system_atomics", (4, 1, 1), (128, 1, 1), [init], struct.pack("<i", 3))
    xor = 0
    for t in range(512):
        xor ^= t
    assert list(got[:5]) == [512 * 3, 511, -511, (1 << 31) - 1, xor] and 1 <= got[5] <= 512
