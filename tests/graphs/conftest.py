"""Fixtures of the graph tests: a fresh simulated driver driven through the ``cuda.bindings.driver`` face."""
from __future__ import annotations

import ctypes
from typing import Any

import pytest

import simcuda
from simcuda.faces.bindings import driver as cu

R = cu.CUresult
OK = (R.CUDA_SUCCESS,)
NT = cu.CUgraphNodeType
SRC = b"""
extern "C" __global__ void k() {}
extern "C" __global__ void k2() {}
extern "C" __global__ void inc(int* p, int n) {}
"""
HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def ok(res: tuple) -> Any:
    """Assert success and return the single output (or the outputs tuple, or None)."""
    assert res[0] == R.CUDA_SUCCESS, (res, simcuda.last_error())
    if len(res) == 1:
        return None
    return res[1] if len(res) == 2 else res[1:]


def err(res: tuple, code: int) -> simcuda.DriverError:
    """Assert the result code (and None in every output slot); return the recorded error."""
    assert int(res[0]) == code, (res, simcuda.last_error())
    assert all(x is None for x in res[1:])
    return simcuda.last_error()


class Env:
    """Initialised driver, a current context, module ``SRC``, streams ``s1``/``s2``, events, ``buf``."""

    d: simcuda.Driver

    def launch(self, f: Any, s: Any, args: Any = None) -> tuple:
        """``cuLaunchKernel(f, 1x1x1, 1x1x1, 0 bytes, s, args)``."""
        return cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, args, 0)

    def inc_args(self, ptr: Any, n: int = 4) -> tuple:
        """``kernelParams`` for ``inc(int* p, int n)``."""
        return ((ptr, n), (None, ctypes.c_int))

    def capture(self, body: Any, s: Any = None) -> Any:
        """Capture ``body(stream)`` on ``s`` (default ``s1``) in GLOBAL mode and return the graph."""
        s = s or self.s1
        ok(cu.cuStreamBeginCapture(s, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
        body(s)
        return ok(cu.cuStreamEndCapture(s))

    def kernels(self, n: int, f: Any = None) -> Any:
        """A captured chain of ``n`` launches of ``f`` (default ``k``)."""
        return self.capture(lambda s: [ok(self.launch(f or self.k, s)) for _ in range(n)])

    def nodes(self, g: Any) -> list:
        return ok(cu.cuGraphGetNodes(g, ok(cu.cuGraphGetNodes(g))[1]))[0]

    def types(self, g: Any) -> list:
        return [int(ok(cu.cuGraphNodeGetType(n))) for n in self.nodes(g)]

    def host_fn(self, py: Any) -> int:
        """An ``int`` address of a ``void (*)(void*)`` calling ``py`` (kept alive by the env)."""
        thunk = HOST_FN(py)
        self._keep.append(thunk)
        return ctypes.cast(thunk, ctypes.c_void_p).value

    def read(self, ptr: Any, n: int = 16) -> bytes:
        out = ctypes.create_string_buffer(n)
        ok(cu.cuMemcpyDtoH(out, ptr, n))
        return out.raw


@pytest.fixture
def drv(monkeypatch: pytest.MonkeyPatch) -> Any:
    """A fresh simulated driver installed as the current one (legacy default-stream mode)."""
    monkeypatch.delenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", raising=False)
    d = simcuda.Driver()
    old = simcuda.use(d)
    yield d
    simcuda.use(old)


def _make_env(d: simcuda.Driver) -> Env:
    e = Env()
    e.d = d
    e._keep = []
    ok(cu.cuInit(0))
    e.ctx = ok(cu.cuCtxCreate(None, 0, cu.CUdevice(0)))
    e.mod = ok(cu.cuModuleLoadData(SRC))
    e.k = ok(cu.cuModuleGetFunction(e.mod, b"k"))
    e.k2 = ok(cu.cuModuleGetFunction(e.mod, b"k2"))
    e.inc = ok(cu.cuModuleGetFunction(e.mod, b"inc"))
    e.s1 = ok(cu.cuStreamCreate(0))
    e.s2 = ok(cu.cuStreamCreate(0))
    e.s3 = ok(cu.cuStreamCreate(0))
    e.e1 = ok(cu.cuEventCreate(0))
    e.e2 = ok(cu.cuEventCreate(0))
    e.buf = ok(cu.cuMemAlloc(64))
    ok(cu.cuMemsetD8(e.buf, 0, 64))

    def inc(launch: Any) -> None:
        ptr, n = launch.args
        launch.array(ptr, "int32", n)[:] += 1
    d.kernels["inc"] = inc
    d.launch_log.clear()  # tests read the log of their own work only
    return e


@pytest.fixture
def env(drv: simcuda.Driver) -> Env:
    """The standard environment on an immediate-progression driver."""
    return _make_env(drv)


@pytest.fixture
def menv(monkeypatch: pytest.MonkeyPatch) -> Env:
    """The standard environment on a ``progression="manual"`` driver."""
    monkeypatch.delenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", raising=False)
    d = simcuda.Driver(progression="manual")
    old = simcuda.use(d)
    yield _make_env(d)
    simcuda.use(old)
