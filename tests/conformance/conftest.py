"""Conformance suite: one test body, run against the simulator's face and against the real driver.

The fixture ``cu`` is parametrised over two backends (the fakeredis pattern, minus its flaw):

* ``fake``: a fresh :class:`simcuda.Driver` installed with :func:`simcuda.use`, driven through the
  ``cuda.bindings.driver``-style face :mod:`simcuda.faces.bindings.driver`. Skips while that face is not
  importable yet.
* ``real``: NVIDIA's ``cuda.bindings.driver``. ``cuInit(0)`` is tried once; any exception or a
  non-success result (no driver library, no GPU) skips every ``real`` test. The run never aborts.

Both give a :class:`Backend` holding the module (``cu.drv``), the standard setup of
``conformance-cases.md`` (``cuInit``; ``ctx`` current on T1; blocking streams ``s1..s4``, the
non-blocking ``n1``; events ``e0..e4``; ``d = cuMemAlloc(4096)``; a host buffer ``h``; a PTX module
with the kernel ``k``), a second thread ``cu.t2`` that runs calls in a fixed order, and helpers to
check result tuples and read graphs back through the face.

Default-stream mode (spec 6.1): ``cu`` is the bindings' default, legacy mode (the fake forces it;
the real backend has whatever ``CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM`` selected at process
start, so legacy-only cases call ``cu.require_legacy_mode()``). ``cu_pt`` is per-thread mode: the
fake is built with ``Options(per_thread_default_stream=True)``; the real backend skips unless the
variable was set to a non-zero integer before the process started.

Routes (``SIMCUDA_ROUTE``, read through :func:`simcuda._patch.route_of`): with ``python`` (the default) the
``fake`` backend drives simcuda's Python face directly; with ``native`` (``auto`` where the native library is
available) it drives NVIDIA's own ``cuda.bindings.driver`` over the simulated ``libcuda.so.1``, inside
``simcuda.patch(driver=..., route="native")``: the adapters are registered when this conftest is imported,
before any driver call. Both routes must agree case by case (``tests/native/test_conformance_routes.py`` runs
this suite on the native route in a process of its own). In a process where the simulated library is loaded
the ``real`` backend skips: NVIDIA's binding would reach the simulator, not a GPU (NATIVE.md).

Tests whose outcome is undefined behaviour on the real driver (destroyed or garbage handles) skip
on ``real`` unless ``SIMCUDA_CONFORMANCE_UB=1``: such a call may crash the process, so
``tools/conformance_on_gpu.sh`` runs them one per process.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

#: value of the per-thread switch when this process started (the real binding reads it once)
_PT_RAW = os.environ.get("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM")
try:
    REAL_PER_THREAD = bool(int(_PT_RAW)) if _PT_RAW is not None else False
except ValueError:  # the real binding raises on every call then; the real probe skips
    REAL_PER_THREAD = False

def _route() -> str:
    """The route of the ``fake`` backend: ``$SIMCUDA_ROUTE`` as simcuda.patch reads it, ``python`` when it is unset
    (not simcuda.patch's ``auto``: the ``real`` backend needs a process free of the simulated library), ``python``
    without simcuda."""
    try:
        from simcuda._patch import route_of
    except ImportError:
        return "python"
    return route_of(os.environ.get("SIMCUDA_ROUTE") or "python")


#: the route the ``fake`` backend takes (see the module docstring)
ROUTE = _route()

if ROUTE == "native":
    # before any driver call of NVIDIA's binding: it resolves and caches every entry at its first call
    from simcuda.faces.native import adapters as _adapters

    _adapters.install()
    import cuda.bindings.driver  # noqa: F401  imported once, so each test's patch keeps the real package

#: allow cases that are undefined behaviour on the real driver (may crash the process)
REAL_UB_ALLOWED = os.environ.get("SIMCUDA_CONFORMANCE_UB", "") == "1"

#: a module with two kernels, valid PTX for the real JIT and readable by the simulator
PTX = b"""//
// simcuda conformance kernels
//
.version 7.0
.target sm_75
.address_size 64

.visible .entry k()
{
    ret;
}

.visible .entry k2()
{
    ret;
}
\x00"""

HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
STREAM_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)


# ------------------------------------------------------------------------------------------------
# the second thread
# ------------------------------------------------------------------------------------------------
# one worker thread per second thread of a case: simcuda.testing's (the capture machine uses the same)
from simcuda.testing.machine import ThreadRunner  # noqa: E402


# ------------------------------------------------------------------------------------------------
# the backend object
# ------------------------------------------------------------------------------------------------
class Backend:
    """The module under test plus the standard setup and result/graph helpers.

    Attributes:
        name: ``"fake"`` or ``"real"``.
        drv: the ``cuda.bindings.driver``-style module.
        per_thread: whether this backend runs in per-thread default-stream mode (spec 6.1).
        sim: the :class:`simcuda.Driver` (fake only), else ``None``.
        route: the fake backend's route, ``"python"`` or ``"native"`` (see the module docstring); None on real.
        dev, ctx, s1..s4, n1, e0..e4, d, h, mod, k, k2: the standard setup.
        LEG, PTS: ``CU_STREAM_LEGACY`` (1) and ``CU_STREAM_PER_THREAD`` (2).
        G, TL, R: capture modes; NONE, ACTIVE, INVALIDATED: capture statuses; ADD, SET: update flags.
        KERNEL, MEMCPY, ...: ``CUgraphNodeType`` values as ints.
    """

    def __init__(self, name: str, drv: Any, per_thread: bool, sim: Any = None, route: str | None = None) -> None:
        self.name = name
        self.route = route
        self.drv = drv
        self.per_thread = per_thread
        self.sim = sim
        self.PTX = PTX
        self._t2: ThreadRunner | None = None
        self._keep: list[Any] = []  # ctypes thunks and buffers kept alive for the test's life
        self._cleanups: list[Callable[[], Any]] = []
        self._dead: set[int] = set()  # streams the test destroyed (teardown must not touch them)
        self.ctx = None
        d = drv
        self.LEG = d.CU_STREAM_LEGACY
        self.PTS = d.CU_STREAM_PER_THREAD
        M = d.CUstreamCaptureMode
        self.G = M.CU_STREAM_CAPTURE_MODE_GLOBAL
        self.TL = M.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
        self.R = M.CU_STREAM_CAPTURE_MODE_RELAXED
        S = d.CUstreamCaptureStatus
        self.NONE = S.CU_STREAM_CAPTURE_STATUS_NONE
        self.ACTIVE = S.CU_STREAM_CAPTURE_STATUS_ACTIVE
        self.INVALIDATED = S.CU_STREAM_CAPTURE_STATUS_INVALIDATED
        F = d.CUstreamUpdateCaptureDependencies_flags
        self.ADD = F.CU_STREAM_ADD_CAPTURE_DEPENDENCIES
        self.SET = F.CU_STREAM_SET_CAPTURE_DEPENDENCIES
        T = d.CUgraphNodeType
        self.KERNEL = int(T.CU_GRAPH_NODE_TYPE_KERNEL)
        self.MEMCPY = int(T.CU_GRAPH_NODE_TYPE_MEMCPY)
        self.MEMSET = int(T.CU_GRAPH_NODE_TYPE_MEMSET)
        self.HOST = int(T.CU_GRAPH_NODE_TYPE_HOST)
        self.GRAPH = int(T.CU_GRAPH_NODE_TYPE_GRAPH)
        self.EMPTY = int(T.CU_GRAPH_NODE_TYPE_EMPTY)
        self.WAIT_EVENT = int(T.CU_GRAPH_NODE_TYPE_WAIT_EVENT)
        self.EVENT_RECORD = int(T.CU_GRAPH_NODE_TYPE_EVENT_RECORD)
        self.MEM_ALLOC = int(T.CU_GRAPH_NODE_TYPE_MEM_ALLOC)
        self.MEM_FREE = int(T.CU_GRAPH_NODE_TYPE_MEM_FREE)
        self.WAIT_EXTERNAL = d.CUevent_wait_flags.CU_EVENT_WAIT_EXTERNAL
        self.RECORD_EXTERNAL = d.CUevent_record_flags.CU_EVENT_RECORD_EXTERNAL

    # -- setup and teardown ------------------------------------------------------------------
    def setup(self) -> None:
        """The standard setup of conformance-cases.md (every call must succeed)."""
        d = self.drv
        self.ok(d.cuInit(0), "cuInit")
        self.dev = self.ok(d.cuDeviceGet(0), "cuDeviceGet")
        self.ctx = self.ok(d.cuCtxCreate(None, 0, self.dev), "cuCtxCreate")
        blocking = d.CUstream_flags.CU_STREAM_DEFAULT
        self.s1, self.s2, self.s3, self.s4 = (self.ok(d.cuStreamCreate(blocking), "cuStreamCreate")
                                              for _ in range(4))
        self.n1 = self.ok(d.cuStreamCreate(d.CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate")
        self.e0, self.e1, self.e2, self.e3, self.e4 = (
            self.ok(d.cuEventCreate(d.CUevent_flags.CU_EVENT_DEFAULT), "cuEventCreate") for _ in range(5))
        self.d = self.ok(d.cuMemAlloc(4096), "cuMemAlloc")
        self.h = ctypes.create_string_buffer(4096)
        self.mod = self.ok(d.cuModuleLoadData(PTX), "cuModuleLoadData")
        self.k = self.ok(d.cuModuleGetFunction(self.mod, b"k"), "cuModuleGetFunction")
        self.k2 = self.ok(d.cuModuleGetFunction(self.mod, b"k2"), "cuModuleGetFunction")
        self.noop_fn = self.host_fn(lambda _p: None)

    def teardown(self) -> None:
        if self._t2 is not None:
            self._t2.close()
            self._t2 = None
        for fn in reversed(self._cleanups):
            with contextlib.suppress(Exception):
                fn()
        if self.name == "real" and self.ctx is not None:
            self._real_teardown()
        self._keep.clear()

    def _real_teardown(self) -> None:
        """Leave the process as we found it: end open captures, destroy the context, mode GLOBAL."""
        d = self.drv
        try:
            d.cuThreadExchangeStreamCaptureMode(self.R)
            d.cuCtxSetCurrent(self.ctx)
            for s in (self.s1, self.s2, self.s3, self.s4, self.n1, self.PTS):
                if int(s) in self._dead:
                    continue
                r = d.cuStreamIsCapturing(s)
                if r[0] == d.CUresult.CUDA_SUCCESS and r[1] != self.NONE:
                    d.cuStreamEndCapture(s)
            d.cuCtxDestroy(self.ctx)
        finally:
            d.cuThreadExchangeStreamCaptureMode(self.G)

    def forget(self, s: Any) -> None:
        """Record that the test destroyed stream ``s``."""
        self._dead.add(int(s))

    def defer(self, fn: Callable[[], Any]) -> None:
        """Run ``fn`` at teardown (before the context is destroyed), errors ignored."""
        self._cleanups.append(fn)

    @property
    def t2(self) -> ThreadRunner:
        """The second thread T2 (started on first use; a fresh thread for every test)."""
        if self._t2 is None:
            self._t2 = ThreadRunner("T2")
        return self._t2

    def require_legacy_mode(self) -> None:
        """Skip on the real backend when the process runs in per-thread mode (spec 6.1)."""
        if self.name == "real" and REAL_PER_THREAD:
            pytest.skip("legacy-mode case, but CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM selected per-thread mode")

    def skip_unless_ub_allowed(self) -> None:
        """Undefined behaviour on the real driver: may crash the process (see the module docstring)."""
        if self.name == "real" and not REAL_UB_ALLOWED:
            pytest.skip("undefined behaviour on the real driver (may crash the process); "
                        "set SIMCUDA_CONFORMANCE_UB=1 to run it, one case per process")

    # -- result tuples -----------------------------------------------------------------------
    def _why(self) -> str:
        if self.sim is not None and self.sim.error_log:
            rec = self.sim.error_log[-1]
            return f"\n  simulator's last error: {rec.call} -> {rec.code}: {rec.why}"
        return ""

    def ok(self, res: Any, what: str = "") -> Any:
        """Assert ``res`` is a success tuple; return its output (one value, a tuple, or None)."""
        assert isinstance(res, tuple) and res, f"{what}: expected a result tuple, got {res!r}"
        code = res[0]
        assert isinstance(code, self.drv.CUresult), f"{what}: first element {code!r} is not a CUresult"
        assert int(code) == 0, f"{what}: expected CUDA_SUCCESS, got {code!r}{self._why()}"
        if len(res) == 1:
            return None
        if len(res) == 2:
            return res[1]
        return res[1:]

    def err(self, res: Any, code: int, what: str = "") -> None:
        """Assert ``res`` carries the error ``code`` and that every output slot is None (spec 11.1)."""
        assert isinstance(res, tuple) and res, f"{what}: expected a result tuple, got {res!r}"
        got = res[0]
        assert isinstance(got, self.drv.CUresult), f"{what}: first element {got!r} is not a CUresult"
        want = self.drv.CUresult(code)
        assert int(got) == int(code), f"{what}: expected {want!r}, got {got!r}{self._why()}"
        assert all(x is None for x in res[1:]), f"{what}: outputs must be None on error, got {res!r}"

    # -- the case shorthand (conformance-cases.md, Notation) -----------------------------------
    def K(self, s: Any, f: Any = None) -> tuple:
        """``K(X, s)``: launch the kernel ``k`` (1 block of 1 thread) on ``s``."""
        return self.drv.cuLaunchKernel(f if f is not None else self.k, 1, 1, 1, 1, 1, 1, 0, s, 0, 0)

    def cpy(self, s: Any, n: int = 4) -> tuple:
        """``CPY(X, s)``: ``cuMemcpyHtoDAsync(d, h, n, s)``."""
        return self.drv.cuMemcpyHtoDAsync(self.d, self.h, n, s)

    def memset(self, s: Any, n: int = 4) -> tuple:
        """``SET(X, s)``: ``cuMemsetD8Async(d, 0, n, s)``."""
        return self.drv.cuMemsetD8Async(self.d, 0, n, s)

    def hostfn(self, s: Any) -> tuple:
        """``HOST(X, s)``: ``cuLaunchHostFunc(s, noop, None)`` with an int function address (spec 3.9)."""
        return self.drv.cuLaunchHostFunc(s, self.noop_fn, None)

    def host_fn(self, py_fn: Callable[[Any], None]) -> int:
        """An ``int`` address of a ``CFUNCTYPE(None, c_void_p)`` thunk, kept alive for the test."""
        thunk = HOST_FN(py_fn)
        self._keep.append(thunk)
        return ctypes.cast(thunk, ctypes.c_void_p).value

    def stream_callback(self, py_fn: Callable[..., None]) -> int:
        """An ``int`` address of a ``CUstreamCallback`` thunk, kept alive for the test."""
        thunk = STREAM_CALLBACK(py_fn)
        self._keep.append(thunk)
        return ctypes.cast(thunk, ctypes.c_void_p).value

    def begin(self, s: Any, mode: Any) -> tuple:
        return self.drv.cuStreamBeginCapture(s, mode)

    def end(self, s: Any) -> tuple:
        return self.drv.cuStreamEndCapture(s)

    def rec(self, e: Any, s: Any) -> tuple:
        return self.drv.cuEventRecord(e, s)

    def wait(self, s: Any, e: Any) -> tuple:
        return self.drv.cuStreamWaitEvent(s, e, 0)

    def xchg(self, mode: Any) -> tuple:
        return self.drv.cuThreadExchangeStreamCaptureMode(mode)

    def status(self, s: Any) -> Any:
        """``iscap(s)`` that must succeed; returns the status."""
        return self.ok(self.drv.cuStreamIsCapturing(s), "cuStreamIsCapturing")

    def iscap(self, s: Any, expected: Any) -> None:
        """Assert ``cuStreamIsCapturing(s) -> (OK, expected)``."""
        st = self.status(s)
        assert st == expected, f"cuStreamIsCapturing: expected {expected!r}, got {st!r}{self._why()}"

    def info(self, s: Any) -> tuple:
        """``info(s)`` that must succeed: ``(status, id, graph, deps, edgeData, n)``."""
        out = self.ok(self.drv.cuStreamGetCaptureInfo(s), "cuStreamGetCaptureInfo")
        assert len(out) == 6, f"cuStreamGetCaptureInfo must give 6 outputs, got {len(out)}"
        return out

    def capture_id(self, s: Any) -> int:
        """``int(info(s).id)`` (ids have no value equality in the bindings, spec 11.1)."""
        return int(self.info(s)[1])

    def begin_ok(self, s: Any, mode: Any = None) -> None:
        self.ok(self.begin(s, self.G if mode is None else mode), "cuStreamBeginCapture")

    def end_ok(self, s: Any) -> Any:
        """``end(s) -> OK, g`` with a non-NULL graph; returns it."""
        g = self.ok(self.end(s), "cuStreamEndCapture")
        assert g is not None and int(g) != 0, "cuStreamEndCapture succeeded with a NULL graph"
        return g

    def edge_data(self, from_port: int = 0, to_port: int = 0, type_: int = 0) -> Any:
        """A ``CUgraphEdgeData`` built field by field (the structs take no keywords, spec 11.1)."""
        ed = self.drv.CUgraphEdgeData()
        ed.from_port = from_port
        ed.to_port = to_port
        ed.type = type_
        return ed

    def programmatic_edge_data(self) -> Any:
        """The programmatic edge data of C-110 (port PROGRAMMATIC, type PROGRAMMATIC)."""
        d = self.drv
        return self.edge_data(int(d.CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC), 0,
                              int(d.CUgraphDependencyType.CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC))

    @contextlib.contextmanager
    def pending(self, s: Any) -> Iterator[None]:
        """Keep ``s`` busy inside the block: work enqueued on it there stays pending.

        A host function that waits on a gate is enqueued first (outside any capture). On the real
        driver the stream blocks behind it; the simulator is switched to ``progression="manual"``
        for the block (its documented way to model asynchrony). Leaving the block opens the gate and
        lets everything run.
        """
        gate = threading.Event()
        fn = self.host_fn(lambda _p: gate.wait(ThreadRunner.TIMEOUT_S) and None)
        if self.sim is not None:
            self.sim.progression = "manual"
        try:
            self.ok(self.drv.cuLaunchHostFunc(s, fn, None), "cuLaunchHostFunc (gate)")
            yield
        finally:
            gate.set()
            if self.sim is not None:
                self.sim.progression = "immediate"
                self.sim.advance()
            else:
                self.drv.cuStreamSynchronize(s)

    # -- recurring captures ----------------------------------------------------------------------
    def capture_kernels(self, n: int, s: Any = None) -> Any:
        """Capture ``n`` kernels on ``s`` (default ``s1``) in GLOBAL mode; returns the graph (C-001 for n=2)."""
        s = self.s1 if s is None else s
        self.ok(self.begin(s, self.G), "cuStreamBeginCapture")
        for _ in range(n):
            self.ok(self.K(s), "cuLaunchKernel")
        g = self.end_ok(s)
        self.iscap(s, self.NONE)
        return g

    def capture_fork_join(self) -> Any:
        """The Programming Guide's fork/join capture (C-039), every step checked; returns the graph."""
        s1, s2 = self.s1, self.s2
        self.ok(self.begin(s1, self.G))
        self.ok(self.K(s1))                     # A
        self.ok(self.rec(self.e1, s1))
        self.ok(self.wait(s2, self.e1))
        self.iscap(s2, self.ACTIVE)
        _, id1, g1, _, _, _ = self.info(s1)
        st2, id2, g2, _, _, _ = self.info(s2)
        assert st2 == self.ACTIVE and int(id2) == int(id1), "a forked stream must report its origin's capture id"
        assert g2 == g1 and int(g2) == int(g1), "a forked stream must report its origin's capture graph"
        self.ok(self.K(s1))                     # B
        self.ok(self.K(s2))                     # C
        self.ok(self.rec(self.e2, s2))
        self.ok(self.wait(s1, self.e2))
        self.ok(self.K(s1))                     # D
        g = self.end_ok(s1)
        self.iscap(s1, self.NONE)
        self.iscap(s2, self.NONE)
        return g

    # -- reading graphs through the face ---------------------------------------------------------
    def nodes(self, g: Any) -> list:
        """The nodes of ``g`` in creation order (count first, then the list, then sorted by local id)."""
        d = self.drv
        lst, n = self.ok(d.cuGraphGetNodes(g), "cuGraphGetNodes (count)")
        assert list(lst) == [], f"cuGraphGetNodes with numNodes=0 must only count, got {lst!r}"
        if n == 0:
            return []
        lst, n2 = self.ok(d.cuGraphGetNodes(g, n), "cuGraphGetNodes")
        assert n2 == n and len(lst) == n
        return sorted(lst, key=self._creation_index)

    def _creation_index(self, node: Any) -> int:
        r = self.drv.cuGraphNodeGetLocalId(node)
        return int(self.ok(r, "cuGraphNodeGetLocalId"))

    def types(self, g: Any) -> list[int]:
        """Node types of ``g`` as ints, in creation order."""
        return [int(self.ok(self.drv.cuGraphNodeGetType(n), "cuGraphNodeGetType")) for n in self.nodes(g)]

    def edges(self, g: Any, nodes: list | None = None) -> list[tuple[int, int]]:
        """Edges of ``g`` as ``(from_index, to_index)`` (indices in creation order), in the order returned."""
        return [(a, b) for a, b, _ed in self.edges_with_data(g, nodes)]

    def edges_with_data(self, g: Any, nodes: list | None = None) -> list[tuple[int, int, tuple]]:
        d = self.drv
        nodes = self.nodes(g) if nodes is None else nodes
        index = {int(n): i for i, n in enumerate(nodes)}
        out = self.ok(d.cuGraphGetEdges(g), "cuGraphGetEdges (count)")
        frm, to, eds, n = out
        assert list(frm) == [] and list(to) == [] and list(eds) == [], "count-only cuGraphGetEdges returned lists"
        if n == 0:
            return []
        frm, to, eds, n2 = self.ok(d.cuGraphGetEdges(g, n), "cuGraphGetEdges")
        assert n2 == n and len(frm) == len(to) == len(eds) == n
        return [(index[int(a)], index[int(b)], (int(e.from_port), int(e.to_port), int(e.type)))
                for a, b, e in zip(frm, to, eds)]

    def shape(self, g: Any) -> tuple[list[int], list[tuple[int, int]]]:
        """``(node types in creation order, sorted edge index pairs)``."""
        nodes = self.nodes(g)
        types = [int(self.ok(self.drv.cuGraphNodeGetType(n), "cuGraphNodeGetType")) for n in nodes]
        return types, sorted(self.edges(g, nodes))

    def instantiate(self, g: Any, flags: int = 0) -> Any:
        x = self.ok(self.drv.cuGraphInstantiate(g, flags), "cuGraphInstantiate")
        assert x is not None and int(x) != 0
        return x


# ------------------------------------------------------------------------------------------------
# argument cross-check against the real wrapper (SIMCUDA_CONFORMANCE_TYPECHECK=1, fake backend only)
# ------------------------------------------------------------------------------------------------
TYPECHECK = os.environ.get("SIMCUDA_CONFORMANCE_TYPECHECK", "") == "1"


def _to_real(x: Any, real: Any) -> Any:
    """A face object turned into the real binding's object of the same class (handles, enums, structs)."""
    if isinstance(x, (list, tuple)):
        return type(x)(_to_real(v, real) for v in x)
    mod = type(x).__module__ or ""
    if not mod.startswith("simcuda"):
        return x
    cls = getattr(real, type(x).__name__, None)
    if cls is None:
        return x
    if type(x).__name__ == "CUgraphEdgeData":
        ed = cls()
        ed.from_port, ed.to_port, ed.type = int(x.from_port), int(x.to_port), int(x.type)
        return ed
    return cls(int(x))


class _TypecheckedFace:
    """The face, with every ``cu*`` call first given to the real wrapper with the same arguments.

    Without a driver library the real wrapper converts and checks its arguments, then fails to load
    ``libcuda`` (``DynamicLibNotFoundError``). Any other exception from it means the real binding
    rejects arguments that a test passes; the face must then raise the same exception type.
    """

    def __init__(self, face: Any, real: Any) -> None:
        self._face = face
        self._real = real

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._face, name)
        real_fn = getattr(self._real, name, None)
        if not (name.startswith("cu") and callable(attr) and callable(real_fn) and not isinstance(attr, type)):
            return attr

        def checked(*args: Any, **kwargs: Any) -> Any:
            try:
                real_fn(*[_to_real(a, self._real) for a in args], **kwargs)
                real_exc = None
            except Exception as e:
                real_exc = None if type(e).__name__ == "DynamicLibNotFoundError" else e
            try:
                out = attr(*args, **kwargs)
            except Exception as e:
                if real_exc is None:
                    raise AssertionError(f"face {name} raised {type(e).__name__}: {e}, but the real wrapper "
                                         "accepts these arguments") from e
                if type(e) is not type(real_exc):
                    raise AssertionError(f"face {name} raised {type(e).__name__}: {e}; the real wrapper raises "
                                         f"{type(real_exc).__name__}: {real_exc}") from e
                raise
            if real_exc is not None:
                raise AssertionError(f"the real wrapper rejects {name}{tuple(args)!r} with "
                                     f"{type(real_exc).__name__}: {real_exc}, but the face accepted them")
            return out
        return checked


# ------------------------------------------------------------------------------------------------
# fixtures
# ------------------------------------------------------------------------------------------------
_real_probe: dict[str, Any] = {}


def _real_module() -> Any:
    """``cuda.bindings.driver`` after a successful ``cuInit(0)``, or skip (cached)."""
    if "skip" in _real_probe:
        pytest.skip(_real_probe["skip"])
    if "module" in _real_probe:
        return _real_probe["module"]
    try:
        from simcuda.faces import native
    except ImportError:
        native = None
    if native is not None and native.is_loaded():
        _real_probe["skip"] = ("the simulated libcuda.so.1 is loaded in this process: NVIDIA's binding keeps it "
                               "for the process and would reach the simulator, not a GPU; run the real backend "
                               "in a process of its own (SIMCUDA_ROUTE unset or python)")
        pytest.skip(_real_probe["skip"])
    try:
        import cuda.bindings.driver as real
    except Exception as e:  # not installed
        _real_probe["skip"] = f"cuda.bindings is not importable: {type(e).__name__}: {e}"
        pytest.skip(_real_probe["skip"])
    if real.__name__.startswith("simcuda"):
        _real_probe["skip"] = "cuda.bindings.driver is simcuda's face here (simcuda.patch() is active), not NVIDIA's"
        pytest.skip(_real_probe["skip"])
    try:
        res = real.cuInit(0)
        ok = res[0] == real.CUresult.CUDA_SUCCESS
        why = "" if ok else f"cuInit(0) returned {res[0]!r}"
        if ok:
            r2 = real.cuDeviceGetCount()
            ok = r2[0] == real.CUresult.CUDA_SUCCESS and r2[1] > 0
            why = "" if ok else f"cuDeviceGetCount returned {r2!r}"
    except Exception as e:  # no driver library, bad environment, ...
        ok, why = False, f"cuInit(0) raised {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
    if not ok:
        _real_probe["skip"] = f"no usable NVIDIA driver: {why}"
        pytest.skip(_real_probe["skip"])
    _real_probe["module"] = real
    return real


def _make_backend(kind: str, per_thread: bool, stack: contextlib.ExitStack) -> Backend:
    if kind == "fake":
        try:
            import simcuda
            import simcuda.faces.bindings.driver as face
        except ImportError as e:
            pytest.skip(f"the cuda.bindings-style face simcuda.faces.bindings.driver is not importable yet: {e}")
        sim = simcuda.Driver(options=simcuda.Options(per_thread_default_stream=per_thread))
        simcuda.use(sim)
        if ROUTE == "native":
            stack.enter_context(simcuda.patch(driver=sim, route="native"))
            import cuda.bindings.driver as face  # NVIDIA's, over the simulated libcuda.so.1
        elif TYPECHECK:
            import cuda.bindings.driver as real
            face = _TypecheckedFace(face, real)
        return Backend("fake", face, per_thread, sim, route=ROUTE)
    real = _real_module()
    if per_thread and not REAL_PER_THREAD:
        pytest.skip("per-thread-mode case: start the process with CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM=1")
    return Backend("real", real, REAL_PER_THREAD)


def _backend_fixture(request: pytest.FixtureRequest, per_thread: bool) -> Any:
    with contextlib.ExitStack() as stack:
        be = _make_backend(request.param, per_thread, stack)
        try:
            be.setup()
            yield be
        finally:
            be.teardown()
            if be.name == "fake":
                import simcuda
                simcuda.use(simcuda.Driver())  # nothing leaks into the next test


@pytest.fixture(params=["fake", "real"])
def cu(request: pytest.FixtureRequest) -> Any:
    """The backend in the bindings' default (legacy) default-stream mode, set up as in the cases."""
    yield from _backend_fixture(request, per_thread=False)


@pytest.fixture(params=["fake", "real"])
def cu_pt(request: pytest.FixtureRequest) -> Any:
    """The backend in per-thread default-stream mode (spec 6.1), set up as in the cases."""
    yield from _backend_fixture(request, per_thread=True)


@pytest.fixture(autouse=True)
def _record_inferred(request: pytest.FixtureRequest) -> None:
    """Mark [I] cases in the junit XML for tools/conformance_table.py (junit_family xunit1 or legacy only)."""
    if request.node.get_closest_marker("inferred") is None:
        return
    if not getattr(request.config.option, "xmlpath", None):
        return
    if request.config.getini("junit_family") not in ("xunit1", "legacy"):
        return
    request.getfixturevalue("record_property")("inferred", "yes")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """On the native route, list the entries the binding called that have no adapter (the stub answered 801)."""
    if ROUTE != "native":
        return
    from simcuda.faces import native
    counts = native.call_counts()
    names = ", ".join(f"{n}@{v}: {c}" for (n, v), c in sorted(counts.items())) or "none"
    terminalreporter.write_line(f"simcuda native route: entries answered by the 801 stub: {names}")
