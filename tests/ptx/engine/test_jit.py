"""The LLVM engine (simcuda.ptx.jit, optional: llvmlite) against the interpreter, the reference: NVRTC's vector
add and shared-memory matmul give identical bytes on fresh random inputs; a kernel outside its subset runs on
the interpreter under ``engine="auto"`` and is refused under ``engine="llvm"``; an access outside every
allocation faults 700 on both."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from simcuda import ptx

from .helpers import Mem, hooks, nvrtc_ptx, params

pytest.importorskip("llvmlite")
pytest.importorskip("cuda.bindings.nvrtc")

PROGRAMS = Path(__file__).resolve().parents[2] / "kernels" / "programs"


@pytest.fixture(scope="module")
def module() -> object:
    """vector_add and matmul from the kernel suite's CUDA C, through NVRTC."""
    src = (PROGRAMS / "vector_add.cu").read_text() + (PROGRAMS / "matmul.cu").read_text() + r"""
extern "C" __global__ void count(unsigned* c) { atomicAdd(c, 1u); }
"""
    return ptx.load(nvrtc_ptx(src))


@pytest.mark.parametrize("n", [1000, 50_000])
def test_vector_add_same_bytes(module: object, n: int) -> None:
    """Vector add: the LLVM engine writes exactly the interpreter's bytes (and a + b)."""
    rng = np.random.default_rng(n)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    outs = []
    for engine in ("interp", "llvm"):
        m = Mem()
        pa, pb, pc = m.alloc(a), m.alloc(b), m.alloc(np.zeros(n, np.float32))
        stats = module.launch("vector_add", ((n + 255) // 256, 1, 1), (256, 1, 1), 0,  # type: ignore[attr-defined]
                              params(("Q", pa), ("Q", pb), ("Q", pc), ("i", n)), m, hooks(), engine=engine)
        assert stats.blocks == (n + 255) // 256
        outs.append(m.get(pc, np.float32, n))
    assert outs[0].tobytes() == outs[1].tobytes() and np.array_equal(outs[1], a + b)


@pytest.mark.parametrize("n", [64, 256])
def test_matmul_same_bytes(module: object, n: int) -> None:
    """Shared-memory tiled matmul (bar.sync in a loop, fma.rn): identical bytes from both engines."""
    rng = np.random.default_rng(n)
    A, B = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    outs = []
    for engine in ("interp", "llvm"):
        m = Mem()
        pA, pB, pC = m.alloc(A), m.alloc(B), m.alloc(np.zeros((n, n), np.float32))
        module.launch("matmul", (n // 16, n // 16, 1), (16, 16, 1), 0,  # type: ignore[attr-defined]
                      params(("Q", pA), ("Q", pB), ("Q", pC), ("i", n)), m, hooks(), engine=engine)
        outs.append(m.get(pC, np.float32, n * n))
    assert outs[0].tobytes() == outs[1].tobytes()
    assert np.allclose(outs[1].reshape(n, n), A @ B, rtol=1e-4)


def test_outside_the_subset_auto_falls_back(module: object) -> None:
    """An atomic kernel is outside the LLVM subset: "auto" runs it on the interpreter, "llvm" refuses it."""
    m = Mem()
    c = m.alloc(np.zeros(1, np.uint32))
    module.launch("count", (2, 1, 1), (64, 1, 1), 0, params(("Q", c)), m, hooks(), engine="auto")  # type: ignore[attr-defined]
    assert m.get(c, np.uint32, 1)[0] == 128
    with pytest.raises(ptx.Unsupported) as e:
        module.launch("count", (1, 1, 1), (1, 1, 1), 0, params(("Q", c)), m, hooks(), engine="llvm")  # type: ignore[attr-defined]
    assert "count" in e.value.why and "llvm engine" in e.value.why


def test_out_of_bounds_faults_700_on_both(module: object) -> None:
    """n larger than the buffers: both engines fault 700 at an address past the allocation."""
    for engine in ("interp", "llvm"):
        m = Mem()
        pa, pb, pc = (m.alloc(np.zeros(100, np.float32)) for _ in range(3))
        with pytest.raises(ptx.Fault) as e:
            module.launch("vector_add", (1, 1, 1), (128, 1, 1), 0,  # type: ignore[attr-defined]
                          params(("Q", pa), ("Q", pb), ("Q", pc), ("i", 128)), m, hooks(), engine=engine)
        assert e.value.code == 700 and e.value.address is not None and e.value.address >= pa + 400
