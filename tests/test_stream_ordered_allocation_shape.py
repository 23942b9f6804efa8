"""A program of our own with the shape of NVIDIA's streamOrderedAllocation sample, and the sample itself when present.

The program does what the sample does through the runtime face: three ``cudaMallocAsync`` buffers on a
non-blocking stream, two host-to-device copies, a ``vectorAddGPU`` launch (the Python kernel of
``examples/stream_ordered_allocation_kernels.py``), ``cudaFreeAsync`` of the inputs, the copy back and the last
free, then the same twenty times with the default pool's release threshold set to its maximum. The tests check
the sums and what the default pool's counters say: with threshold 0 the freed memory goes back at once; with the
maximum threshold the pool keeps it, and the later iterations reuse it without growing.

The last test runs NVIDIA's sample itself through ``python -m simcuda.cli run`` when a copy is available: set
``SIMCUDA_SAMPLES_DIR`` to a folder holding ``2_Concepts_and_Techniques/streamOrderedAllocation_test.py`` and
``common/`` (or holding such folders one level down); by default ``<repo>/.samples`` is used.
"""
from __future__ import annotations

import ctypes
import os
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

import simcuda
from simcuda.faces.bindings import driver as cuda
from simcuda.faces.bindings import runtime as cudart

np = pytest.importorskip("numpy")

ROOT = Path(__file__).resolve().parent.parent
N = 4096
SOURCE = b'extern "C" __global__ void vectorAddGPU(const float *a, const float *b, float *c, int N) {}'
PA = cudart.cudaMemPoolAttr


def check(res):
    """Unpack a ``(status, *outputs)`` tuple, failing the test with the simulator's why on an error."""
    if int(res[0]):
        err = simcuda.last_error()
        pytest.fail(f"{res[0]!r}: {err.why if err else ''}")
    return None if len(res) == 1 else res[1] if len(res) == 2 else res[1:]


@pytest.fixture
def kernels():
    """The example's ``vectorAddGPU`` registered for the test, the registry restored after it."""
    from simcuda._core.modules.kernels import KERNELS
    saved = KERNELS.get("vectorAddGPU")
    runpy.run_path(str(ROOT / "examples" / "stream_ordered_allocation_kernels.py"))
    yield
    if saved is None:
        KERNELS.pop("vectorAddGPU", None)
    else:
        KERNELS["vectorAddGPU"] = saved


@pytest.fixture
def env(kernels):
    """A fresh driver with the sample's module loaded: ``(function, default pool)``."""
    old = simcuda.use(simcuda.Driver())
    try:
        check(cudart.cudaSetDevice(0))
        mod = check(cuda.cuModuleLoadData(SOURCE))
        yield check(cuda.cuModuleGetFunction(mod, b"vectorAddGPU")), check(cudart.cudaDeviceGetDefaultMemPool(0))
    finally:
        simcuda.use(old)


def pool(p, attr):
    """A byte-count attribute of the pool as an int."""
    return int(check(cudart.cudaMemPoolGetAttribute(p, attr)))


def one_round(f, stream, a, b, c):
    """The sample's round: alloc x3, copy in, add, free the inputs, copy out, free the output."""
    nbytes = a.nbytes
    d_a, d_b, d_c = (check(cudart.cudaMallocAsync(nbytes, stream)) for _ in range(3))
    check(cudart.cudaMemcpyAsync(d_a, a, nbytes, cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, stream))
    check(cudart.cudaMemcpyAsync(d_b, b, nbytes, cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, stream))
    args = ((d_a, d_b, d_c, a.size), (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int))
    check(cuda.cuLaunchKernel(f, (a.size + 255) // 256, 1, 1, 256, 1, 1, 0, stream, args, 0))
    check(cudart.cudaFreeAsync(d_a, stream))
    check(cudart.cudaFreeAsync(d_b, stream))
    check(cudart.cudaMemcpyAsync(c, d_c, nbytes, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream))
    check(cudart.cudaFreeAsync(d_c, stream))
    check(cudart.cudaStreamSynchronize(stream))


def test_basic_round_adds_and_gives_the_memory_back(env):
    """Threshold 0 (the default): the sums are right, and the pool holds nothing once the round is over; its
    watermarks saw the three buffers at once."""
    f, p = env
    rng = np.random.default_rng(0)
    a, b, c = rng.random(N, np.float32), rng.random(N, np.float32), np.zeros(N, np.float32)
    stream = check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
    one_round(f, stream, a, b, c)
    assert np.array_equal(c, a + b)
    assert pool(p, PA.cudaMemPoolAttrUsedMemCurrent) == pool(p, PA.cudaMemPoolAttrReservedMemCurrent) == 0
    assert pool(p, PA.cudaMemPoolAttrUsedMemHigh) == 3 * a.nbytes


def test_post_sync_rounds_keep_the_memory_in_the_pool(env):
    """The maximum release threshold: after the first round the pool keeps the three buffers' memory, and the
    next nineteen rounds reuse it (reserved never grows past three buffers); every round's sums are right; the
    timing events measure a positive time."""
    f, p = env
    rng = np.random.default_rng(1)
    a, b = rng.random(N, np.float32), rng.random(N, np.float32)
    stream = check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
    start, end = check(cudart.cudaEventCreate()), check(cudart.cudaEventCreate())
    check(cudart.cudaMemPoolSetAttribute(p, PA.cudaMemPoolAttrReleaseThreshold,
                                         cuda.cuuint64_t(ctypes.c_uint64(-1).value)))
    check(cudart.cudaEventRecord(start, stream))
    for _ in range(20):
        c = np.zeros(N, np.float32)
        one_round(f, stream, a, b, c)
        assert np.array_equal(c, a + b)
        assert pool(p, PA.cudaMemPoolAttrUsedMemCurrent) == 0
        assert pool(p, PA.cudaMemPoolAttrReservedMemCurrent) == 3 * a.nbytes
    check(cudart.cudaEventRecord(end, stream))
    check(cudart.cudaEventSynchronize(end))
    assert check(cudart.cudaEventElapsedTime(start, end)) > 0
    assert pool(p, PA.cudaMemPoolAttrReservedMemHigh) == 3 * a.nbytes
    check(cudart.cudaMemPoolTrimTo(p, 0))
    assert pool(p, PA.cudaMemPoolAttrReservedMemCurrent) == 0


def test_a_device_without_pools_is_waived(env):
    """The sample's own check: on DeviceSpec(memory_pools=False) the attribute reads 0 (the sample waives), and
    cudaMallocAsync would answer cudaErrorNotSupported."""
    simcuda.use(simcuda.Driver(devices=[simcuda.DeviceSpec(memory_pools=False)]))
    attr = cuda.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED
    assert check(cudart.cudaDeviceGetAttribute(attr, 0)) == 0
    stream = check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
    assert cudart.cudaMallocAsync(64, stream) == (cudart.cudaError_t.cudaErrorNotSupported, None)


def _sample_forms() -> list[Path]:
    base = Path(os.environ.get("SIMCUDA_SAMPLES_DIR", ROOT / ".samples"))
    rel = Path("2_Concepts_and_Techniques") / "streamOrderedAllocation_test.py"
    if (base / rel).is_file():
        return [base]
    return sorted(p for p in base.glob("*") if (p / rel).is_file() and (p / "common").is_dir()) if base.is_dir() else []


#: a --kernels file for a common.py that imports cuda.pathfinder's private ``get_cuda_home_or_path`` (1.9.1 spells
#: it ``get_cuda_path_or_home``): the version skew of two NVIDIA packages; the sample's files stay unmodified
PATHFINDER_ALIAS = """
from cuda.pathfinder._utils import env_vars
if not hasattr(env_vars, "get_cuda_home_or_path"):
    env_vars.get_cuda_home_or_path = env_vars.get_cuda_path_or_home
"""


def _routes() -> list[str]:
    from simcuda.faces import native
    return ["python", "native"] if native.available()[0] else ["python"]


@pytest.mark.skipif(not _sample_forms(), reason="NVIDIA's streamOrderedAllocation sample is not available "
                                                "(set SIMCUDA_SAMPLES_DIR to a cuda_bindings/examples copy)")
@pytest.mark.parametrize("route", _routes())
@pytest.mark.parametrize("form", _sample_forms(), ids=lambda p: p.name)
def test_nvidia_sample_runs_unmodified(form, route, tmp_path):
    """NVIDIA's sample runs under ``simcuda run --route``: both parts print PASSED, exit 0, every call succeeds,
    21 kernel launches."""
    home = tmp_path / "cuda"
    (home / "include").mkdir(parents=True)  # common.py checks that $CUDA_HOME/include exists
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(form)]), CUDA_HOME=str(home))
    env.pop("SIMCUDA_ROUTE", None)
    alias = tmp_path / "pathfinder_alias.py"
    alias.write_text(PATHFINDER_ALIAS)
    kernels = str(ROOT / "examples" / "stream_ordered_allocation_kernels.py")
    cmd = [sys.executable, "-m", "simcuda.cli", "run", "--route", route, "--explain", "--kernels", str(alias),
           "--kernels", kernels, str(form / "2_Concepts_and_Techniques" / "streamOrderedAllocation_test.py")]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(form), timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "basicStreamOrderedAllocation PASSED" in res.stdout
    assert "streamOrderedAllocationPostSync PASSED" in res.stdout
    assert "every call succeeded" in res.stderr
    assert "kernel launches taken (cuLaunchKernel and friends, captured or not; not the refused): 21" in res.stderr
