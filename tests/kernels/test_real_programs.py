"""Real CUDA C programs (our own sources in tests/kernels/programs/) compiled by NVIDIA's NVRTC through simcuda's
nvrtc face at the simulated device's architecture, loaded as CUBIN and launched through simcuda's driver face with
NO Python twin registered: the results are checked against numpy (issue 17, part 4).

The module skips only while the PTX engine is absent (the interface stub), or when NVRTC is not installed."""
from __future__ import annotations

import ctypes
from pathlib import Path

import pytest

import simcuda
from simcuda.faces.bindings import driver as cuda
from simcuda.faces.bindings import nvrtc

np = pytest.importorskip("numpy")
pytest.importorskip("cuda.bindings.nvrtc")
from tests.kernels._probe import driver_runs_ptx  # noqa: E402
from tests.ptx.isa.conftest import engine_absent  # noqa: E402

PROGRAMS = Path(__file__).resolve().parent / "programs"
P, I32, U32 = ctypes.c_void_p, ctypes.c_int, ctypes.c_uint

if engine_absent():
    pytest.skip(engine_absent() or "", allow_module_level=True)

if not driver_runs_ptx():
    pytest.skip("the driver does not run PTX yet (the integration, branch wt-kint, is not merged)",
                allow_module_level=True)


def check(res):  # type: ignore[no-untyped-def]
    """Unpack a ``(status, *outputs)`` tuple, failing with the simulator's why on an error."""
    if int(res[0]):
        pytest.fail(f"{res[0]!r}: {simcuda.last_error()}")
    return res[1] if len(res) == 2 else res[1:]


@pytest.fixture
def drv():  # type: ignore[no-untyped-def]
    """A fresh driver with a context current on device 0, and no kernel twins."""
    yield from with_context(simcuda.Driver())


def with_context(d):  # type: ignore[no-untyped-def]
    """Make ``d`` the driver in use with device 0's primary context current; yield it, then restore the old."""
    old = simcuda.use(d)
    check(cuda.cuInit(0))
    dev = check(cuda.cuDeviceGet(0))
    ctx = check(cuda.cuDevicePrimaryCtxRetain(dev))
    check(cuda.cuCtxSetCurrent(ctx))
    assert not d.kernels
    yield d
    simcuda.use(old)


def arch() -> bytes:
    """``--gpu-architecture=sm_XY`` for the simulated device 0."""
    A = cuda.CUdevice_attribute
    major = check(cuda.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0))
    minor = check(cuda.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0))
    return f"--gpu-architecture=sm_{major}{minor}".encode()


def load(name: str):  # type: ignore[no-untyped-def]
    """Compile ``programs/<name>.cu`` to CUBIN with NVRTC (simcuda's face) and load it: the module."""
    src = (PROGRAMS / f"{name}.cu").read_bytes()
    prog = check(nvrtc.nvrtcCreateProgram(src, f"{name}.cu".encode(), 0, None, None))
    check(nvrtc.nvrtcCompileProgram(prog, 1, [arch()]))
    size = check(nvrtc.nvrtcGetCUBINSize(prog))
    image = b" " * size
    check(nvrtc.nvrtcGetCUBIN(prog, image))
    return check(cuda.cuModuleLoadData(image))


def to_device(arr):  # type: ignore[no-untyped-def]
    """A device copy of numpy ``arr``: its address."""
    d = check(cuda.cuMemAlloc(arr.nbytes))
    check(cuda.cuMemcpyHtoD(d, arr, arr.nbytes))
    return int(d)


def from_device(d, like):  # type: ignore[no-untyped-def]
    """The device bytes at ``d`` read back as an array shaped like ``like``."""
    out = np.empty_like(like)
    check(cuda.cuMemcpyDtoH(out, d, out.nbytes))
    return out


def launch(fn, grid, block, args, shared=0, stream=0):  # type: ignore[no-untyped-def]
    """cuLaunchKernel with ``args`` ((values), (ctypes types))."""
    check(cuda.cuLaunchKernel(fn, *grid, *block, shared, stream, args, 0))


def test_vector_add(drv) -> None:  # type: ignore[no-untyped-def]
    """vector_add over 50,000 floats (a partial last block) equals numpy's a + b."""
    n, rng = 50_000, np.random.default_rng(1)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    fn = check(cuda.cuModuleGetFunction(load("vector_add"), b"vector_add"))
    da, db, dc = to_device(a), to_device(b), to_device(np.zeros_like(a))
    launch(fn, ((n + 255) // 256, 1, 1), (256, 1, 1), ((da, db, dc, n), (P, P, P, I32)))
    check(cuda.cuCtxSynchronize())
    assert np.array_equal(from_device(dc, a), a + b)


def test_clock_advances(drv) -> None:  # type: ignore[no-untyped-def]
    """clock64 read after a loop and a barrier is later than before it, in every block."""
    fn = check(cuda.cuModuleGetFunction(load("clock"), b"timed_loop"))
    times, sink = to_device(np.zeros(2 * 8, np.int64)), to_device(np.zeros(8 * 64, np.float32))
    launch(fn, (8, 1, 1), (64, 1, 1), ((times, sink, 50), (P, P, I32)))
    check(cuda.cuCtxSynchronize())
    t = from_device(times, np.zeros(16, np.int64)).reshape(8, 2)
    assert (t[:, 1] - t[:, 0] > 0).all()
    x = np.arange(64, dtype=np.float32)
    for _ in range(50):
        x = x * np.float32(0.5) + np.float32(1.0)
    assert np.array_equal(from_device(sink, np.zeros(512, np.float32)).reshape(8, 64), np.tile(x, (8, 1)))


@pytest.mark.parametrize("kind", ["managed", "mapped"])
def test_system_atomics(drv, kind: str) -> None:  # type: ignore[no-untyped-def]
    """System-scope atomics on managed or mapped host memory give the counts, extrema and bit sets expected."""
    fn = check(cuda.cuModuleGetFunction(load("system_atomics"), b"system_atomics"))
    init = np.array([0, -1, 1, 0, 0, 0], np.int32)
    if kind == "managed":
        ptr = check(cuda.cuMemAllocManaged(init.nbytes, cuda.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL.value))
        check(cuda.cuMemcpyHtoD(ptr, init, init.nbytes))
        dptr = int(ptr)
    else:
        host = check(cuda.cuMemHostAlloc(init.nbytes, cuda.CU_MEMHOSTALLOC_DEVICEMAP))
        ctypes.memmove(host, init.ctypes.data, init.nbytes)
        dptr = int(check(cuda.cuMemHostGetDevicePointer(host, 0)))
    threads, rounds = 4 * 128, 3
    launch(fn, (4, 1, 1), (128, 1, 1), ((dptr, rounds), (P, I32)))
    check(cuda.cuCtxSynchronize())
    if kind == "managed":
        got = from_device(ptr, init)
    else:  # mapped: the host reads its own pointer
        got = np.empty_like(init)
        ctypes.memmove(got.ctypes.data, host, init.nbytes)
    xor = 0
    for t in range(threads):
        xor ^= t if rounds % 2 else 0
    assert got[0] == threads * rounds and got[1] == threads - 1 and got[2] == -(threads - 1)
    assert got[3] == (1 << 31) - 1 and got[4] == xor
    assert 1 <= got[5] <= threads


def test_graph_reduce_pair_direct_and_replayed(drv) -> None:  # type: ignore[no-untyped-def]
    """reduce_partial then reduce_final sums 1 << 16 floats; captured into a graph and replayed it sums new input."""
    mod = load("graph_reduce")
    part = check(cuda.cuModuleGetFunction(mod, b"reduce_partial"))
    final = check(cuda.cuModuleGetFunction(mod, b"reduce_final"))
    n, blocks, threads, rng = 1 << 16, 32, 128, np.random.default_rng(2)
    x = rng.random(n, dtype=np.float32)
    dx, dpart, dres = to_device(x), int(check(cuda.cuMemAlloc(8 * blocks))), int(check(cuda.cuMemAlloc(8)))
    stream = check(cuda.cuStreamCreate(0))

    def enqueue() -> None:
        launch(part, (blocks, 1, 1), (threads, 1, 1), ((dx, dpart, n), (P, P, U32)), shared=8 * threads, stream=stream)
        launch(final, (1, 1, 1), (32, 1, 1), ((dpart, dres, blocks), (P, P, U32)), stream=stream)

    enqueue()
    check(cuda.cuStreamSynchronize(stream))
    assert from_device(dres, np.zeros(1))[0] == pytest.approx(float(x.astype(np.float64).sum()), rel=1e-12)
    check(cuda.cuStreamBeginCapture(stream, cuda.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    enqueue()
    graph = check(cuda.cuStreamEndCapture(stream))
    exe = check(cuda.cuGraphInstantiate(graph, 0))
    for seed in (3, 4):
        y = np.random.default_rng(seed).random(n, dtype=np.float32)
        check(cuda.cuMemcpyHtoD(dx, y, y.nbytes))
        check(cuda.cuGraphLaunch(exe, stream))
        check(cuda.cuStreamSynchronize(stream))
        assert from_device(dres, np.zeros(1))[0] == pytest.approx(float(y.astype(np.float64).sum()), rel=1e-12)


def test_async_copy_to_shared(drv) -> None:  # type: ignore[no-untyped-def]
    """cp.async global-to-shared with commit/wait groups and a barrier: each tile comes back reversed, * 2 + 1."""
    fn = check(cuda.cuModuleGetFunction(load("async_copy"), b"async_reverse"))
    x = np.random.default_rng(5).integers(-1000, 1000, 4 * 256, dtype=np.int32)
    dx, dy = to_device(x), to_device(np.zeros_like(x))
    launch(fn, (4, 1, 1), (256, 1, 1), ((dx, dy), (P, P)))
    check(cuda.cuCtxSynchronize())
    assert np.array_equal(from_device(dy, x), (x.reshape(4, 256)[:, ::-1] * 2 + 1).ravel())


@pytest.mark.parametrize("n", [16, 64])
def test_tiled_matmul(drv, n: int) -> None:  # type: ignore[no-untyped-def]
    """The 16x16 shared-memory tiled matmul matches numpy's A @ B (float32, accumulation-order tolerance)."""
    fn = check(cuda.cuModuleGetFunction(load("matmul"), b"matmul"))
    rng = np.random.default_rng(n)
    a, b = rng.random((n, n), dtype=np.float32), rng.random((n, n), dtype=np.float32)
    da, db, dc = to_device(a), to_device(b), to_device(np.zeros_like(a))
    launch(fn, (n // 16, n // 16, 1), (16, 16, 1), ((da, db, dc, n), (P, P, P, I32)))
    check(cuda.cuCtxSynchronize())
    assert np.allclose(from_device(dc, a), a @ b, rtol=1e-5, atol=1e-5)
