"""The stateful capture machine: random capture programs run in lockstep on the engine and the model.

:class:`CaptureMachine` is a hypothesis ``RuleBasedStateMachine``. Each rule is one driver call of a capture
program (create streams and events, begin and end captures in any mode, launch, record, wait, synchronise,
allocate, change a thread's capture mode, destroy streams, use the legacy stream), made on one of
:attr:`CaptureMachine.THREADS` real threads. Every call goes to every :class:`Side` (the simulated driver
through ``simcuda.faces.bindings.driver``, and, with :attr:`CaptureMachine.compare_with`, a second driver) and to
the reference :class:`~simcuda.testing.model.CaptureModel`, which was written from the spec and shares no
code with the engine. The machine requires, after every call:

* the same ``CUresult`` from every side, equal to the model's prediction;
* the same capture status of every stream (and of the legacy stream) on every side and in the model, the
  same capture id for all members of a capture and a different one for different captures, and as many
  current dependencies as the model holds;
* after a successful ``cuStreamEndCapture``: the same nodes and edges (by creation index) on every side and
  in the model.
"""
from __future__ import annotations

import functools
import queue
import threading
from collections.abc import Callable, Hashable
from typing import Any, ClassVar, cast

from hypothesis import note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from .model import LEGACY, CaptureModel, Graph

#: a module with one empty kernel ``k``: valid PTX for the real JIT, readable by the simulator
PTX = """.version 8.5
.target sm_90
.address_size 64
.visible .entry k()
{ ret; }
"""

#: ``CUDA_ERROR_NOT_READY``: a query on a real GPU may see work still running; the model's SUCCESS matches it
NOT_READY = 600


class ThreadRunner:
    """A dedicated worker thread fed through a queue: ``runner(fn, *args)`` runs ``fn(*args)`` there, waits for
    it, returns its result and re-raises its exception on the caller's thread. Calls run strictly one after
    another, in the order they are made, so a program interleaves threads deterministically (the capture
    machine's threads, and the conformance suite's second thread).

    Errors: ``TimeoutError`` when the worker does not answer within :attr:`TIMEOUT_S` seconds.
    """

    TIMEOUT_S = 60.0

    def __init__(self, name: str = "T2") -> None:
        self.name = name
        self._q: queue.Queue[Any] = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while True:
            item = self._q.get()
            if item is None:
                return
            fn, box, done = item
            try:
                box["result"] = fn()
            except BaseException as e:  # handed back to the caller
                box["error"] = e
            done.set()

    def __call__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        done = threading.Event()
        box: dict[str, Any] = {}
        self._q.put((lambda: fn(*args, **kwargs), box, done))
        if not done.wait(self.TIMEOUT_S):
            raise TimeoutError(f"{self.name} did not finish {getattr(fn, '__name__', fn)} in {self.TIMEOUT_S} s")
        if "error" in box:
            raise box["error"]
        return box["result"]

    def close(self) -> None:
        """Stop the worker (after the calls already queued)."""
        self._q.put(None)
        self._thread.join(self.TIMEOUT_S)


def _here(fn: Callable[[], Any]) -> Any:
    return fn()


def _entered(side: Side, call: Callable[[Side], Any]) -> Any:
    side.enter()
    try:
        return call(side)
    finally:
        side.leave()


class Side:
    """One driver the machine drives: a ``cuda.bindings.driver``-style module and the handles of the
    program's streams and events on it.

    Args:
        cu: the module (``simcuda.faces.bindings.driver``, or NVIDIA's ``cuda.bindings.driver`` on a GPU or on
            simcuda's native route).
        driver: a :class:`simcuda.Driver` to make current (``simcuda.use``) before each call, or None when
            the module needs no switching (a real GPU).
        name: how failure messages name the side.
    """

    def __init__(self, cu: Any, driver: Any = None, name: str = "") -> None:
        self.cu = cu
        self.driver = driver
        self.name = name or getattr(cu, "__name__", "driver")
        self.streams: dict[Hashable, Any] = {LEGACY: cu.CUstream(1)}  # CU_STREAM_LEGACY (spec 1)
        self.events: dict[Hashable, Any] = {}
        self.ids: dict[int, int] = {}  # model capture key -> this side's capture id
        self.ctx: Any = None
        self.fn: Any = None

    def enter(self) -> None:
        """Make this side's simulated driver current (nothing for a real one)."""
        if self.driver is not None:
            import simcuda
            simcuda.use(self.driver)

    def leave(self) -> None:
        """Called after each call on this side (nothing here; a subclass may undo what its :meth:`enter`
        did)."""

    def setup(self) -> None:
        """cuInit, the primary context of device 0 (made current on the calling thread), and the kernel."""
        cu = self.cu
        assert int(cu.cuInit(0)[0]) == 0, f"{self.name}: cuInit failed"
        err, dev = cu.cuDeviceGet(0)
        assert int(err) == 0, f"{self.name}: cuDeviceGet failed with {int(err)}"
        err, self.ctx = cu.cuDevicePrimaryCtxRetain(dev)
        assert int(err) == 0, f"{self.name}: cuDevicePrimaryCtxRetain failed with {int(err)}"
        self.make_current()
        err, mod = cu.cuModuleLoadData(PTX.encode())
        assert int(err) == 0, f"{self.name}: cuModuleLoadData failed with {int(err)}"
        err, self.fn = cu.cuModuleGetFunction(mod, b"k")
        assert int(err) == 0, f"{self.name}: cuModuleGetFunction failed with {int(err)}"

    def enter_current(self) -> None:
        """:meth:`enter`, then :meth:`make_current` (what each worker thread does first)."""
        self.enter()
        self.make_current()

    def make_current(self) -> None:
        """Make the context current on the calling thread."""
        assert int(self.cu.cuCtxSetCurrent(self.ctx)[0]) == 0, f"{self.name}: cuCtxSetCurrent failed"

    def stream(self, s: Hashable) -> Any:
        """This side's handle of program stream ``s`` (or of :data:`~simcuda.testing.model.LEGACY`)."""
        return self.streams[s]

    def event(self, e: Hashable) -> Any:
        """This side's handle of program event ``e``."""
        return self.events[e]

    def graph(self, g: Any) -> Graph:
        """The nodes and edges of graph ``g`` by creation index (cuGraphNodeGetLocalId, spec 4.5)."""
        cu = self.cu
        err, _nodes, n = cu.cuGraphGetNodes(g)
        assert int(err) == 0
        nodes = cu.cuGraphGetNodes(g, n)[1] if n else []
        index = {}
        for i, node in enumerate(nodes):
            err, local = cu.cuGraphNodeGetLocalId(node)
            # a driver without cuGraphNodeGetLocalId: the order cuGraphGetNodes gives (spec 4.5: creation order
            # is the simulator's choice, so such a comparison may need the graphs compared up to that order)
            index[int(node)] = int(local) if int(err) == 0 else i
        out = cu.cuGraphGetEdges(g)
        n_edges = out[-1]
        edges: list[tuple[int, int]] = []
        if n_edges:
            out = cu.cuGraphGetEdges(g, n_edges)
            edges = [(index[int(a)], index[int(b)]) for a, b in zip(out[1], out[2])]
        return Graph(len(index), sorted(edges))


def _is_capturing(side: Side, s: Hashable) -> Any:
    return side.cu.cuStreamIsCapturing(side.stream(s))


def _capture_info(side: Side, s: Hashable) -> Any:
    return side.cu.cuStreamGetCaptureInfo(side.stream(s))


def _code(result: Any) -> int:
    return int(result[0] if isinstance(result, tuple) else result)


class CaptureMachine(RuleBasedStateMachine):
    """Random capture programs on :attr:`THREADS` threads, checked call by call against the model.

    Class attributes a subclass may change:

    * ``compare_with``: None, a ``cuda.bindings.driver``-style module (every call also runs there, for
      example NVIDIA's module on a machine with a GPU), or a zero-argument callable that returns a
      :class:`Side` (for example one that drives NVIDIA's module over simcuda's native route on a second
      :class:`simcuda.Driver`). Its codes, statuses and graphs must equal the simulator's and the model's.
    * ``model_class``: the :class:`~simcuda.testing.model.CaptureModel` subclass to predict with.
    * ``MAX_STREAMS``: how many live streams a program may hold (it starts with two blocking streams, one
      non-blocking stream and three events).

    A subclass adds rules of its own with hypothesis's ``@rule``; inside one, :meth:`on` runs a call on every
    side and :meth:`expect` compares the codes with the model's prediction (see docs/testing.md).
    """

    compare_with: Any = None
    model_class: type[CaptureModel] = CaptureModel
    THREADS = 3
    MAX_STREAMS = 4

    def __init__(self) -> None:
        super().__init__()
        import simcuda
        from simcuda.faces.bindings import driver as cu
        self.sim = simcuda.Driver()
        self._old = simcuda.use(self.sim)
        self.model = self.model_class()
        self.sides = [Side(cu, self.sim, "simcuda")]
        other = type(self).compare_with
        if other is not None:
            self.sides.append(other() if callable(other) and not hasattr(other, "cuInit") else Side(other))
        self.runners: list[Callable[[Callable[[], Any]], Any]] = [_here]
        self._workers = [ThreadRunner(f"capture-machine-T{i}") for i in range(1, self.THREADS)]
        self.runners.extend(self._workers)
        for side in self.sides:
            side.enter()
            side.setup()
            for r in self._workers:
                r(side.enter_current)
        self._names = 0
        self.live_streams: list[Hashable] = []
        self.live_events: list[Hashable] = []
        self.ids_seen: list[set[int]] = [set() for _ in self.sides]
        for flags in (0, 0, 1):  # every program starts with two blocking streams, a non-blocking one, three events
            self.create_stream(flags)
        for _ in range(3):
            self.create_event()

    def teardown(self) -> None:
        """Stop the worker threads and put back the driver that was current before the machine ran."""
        import simcuda
        try:
            for side in self.sides:
                if side.driver is None:
                    self._clean(side)
        finally:
            for r in self._workers:
                r.close()
            simcuda.use(self._old)

    def _clean(self, side: Side) -> None:
        """A real driver outlives the program: end its open captures (from their begin threads), destroy its
        streams and events, and put thread 0 back in GLOBAL mode, so that the next program starts afresh."""
        cu = side.cu
        for c in list(self.model.live):
            if c.origin in self.live_streams:
                end = functools.partial(cu.cuStreamEndCapture, side.stream(c.origin))
                err, g = self.runners[cast(int, c.thread)](end)
                if int(err) == 0:
                    cu.cuGraphDestroy(g)
        for s in self.live_streams:
            cu.cuStreamDestroy(side.stream(s))
        for e in self.live_events:
            cu.cuEventDestroy(side.event(e))
        cu.cuThreadExchangeStreamCaptureMode(0)

    # -- the tools a rule uses -----------------------------------------------------------------------
    def on(self, t: int, call: Callable[[Side], Any]) -> list[Any]:
        """Run ``call(side)`` on program thread ``t`` for every side; returns the results, side by side."""
        runner = self.runners[t]
        return [runner(functools.partial(_entered, side, call)) for side in self.sides]

    def expect(self, what: str, results: list[Any], code: int, query: bool = False) -> None:
        """Every side's ``CUresult`` (the first item of a result tuple) must be the model's ``code``.
        With ``query``, a real driver's NOT_READY counts as SUCCESS (the work may still run there)."""
        note(f"{what} -> {code}")
        for side, r in zip(self.sides, results):
            got = _code(r)
            if query and got == NOT_READY and side is not self.sides[0]:
                got = 0
            assert got == code, f"{what}: {side.name} returned {got}, the model predicts {code}"

    def _fresh_name(self) -> int:
        self._names += 1
        return self._names

    # -- objects -------------------------------------------------------------------------------------
    def create_stream(self, flags: int) -> int:
        """cuStreamCreate with CU_STREAM_DEFAULT (0, blocking) or CU_STREAM_NON_BLOCKING (1); the new stream's
        name in the program."""
        name = self._fresh_name()
        res = self.on(0, lambda side: side.cu.cuStreamCreate(flags))
        self.expect(f"cuStreamCreate({flags})", res, self.model.create_stream(name, flags == 0))
        for side, r in zip(self.sides, res):
            side.streams[name] = r[1]
        self.live_streams.append(name)
        return name

    def create_event(self) -> int:
        """cuEventCreate(0); the new event's name in the program."""
        name = self._fresh_name()
        res = self.on(0, lambda side: side.cu.cuEventCreate(0))
        self.expect("cuEventCreate(0)", res, self.model.create_event(name))
        for side, r in zip(self.sides, res):
            side.events[name] = r[1]
        self.live_events.append(name)
        return name

    # -- the calls ---------------------------------------------------------------------------------------
    def begin(self, s: Hashable, mode: int, t: int) -> None:
        """cuStreamBeginCapture; a new capture's id is unique on every side."""
        res = self.on(t, lambda side: side.cu.cuStreamBeginCapture(side.stream(s), mode))
        code = self.model.begin(t, s, mode)
        self.expect(f"cuStreamBeginCapture(s{s}, mode {mode}) on T{t}", res, code)
        if code == 0:
            key = self.model.member_of[s].key
            infos = self.on(t, lambda side: side.cu.cuStreamGetCaptureInfo(side.stream(s)))
            for i, (side, info) in enumerate(zip(self.sides, infos)):
                cid = int(info[2])
                assert cid not in self.ids_seen[i], f"{side.name}: capture id {cid} was given out before"
                self.ids_seen[i].add(cid)
                side.ids[key] = cid

    def end(self, s: Hashable, t: int) -> None:
        """cuStreamEndCapture; a graph it returns has the model's nodes and edges on every side."""
        res = self.on(t, lambda side: side.cu.cuStreamEndCapture(side.stream(s)))
        code, graph = self.model.end(t, s)
        self.expect(f"cuStreamEndCapture(s{s}) on T{t}", res, code)
        for side, (_err, g) in zip(self.sides, res):
            if code != 0:
                assert g is None or int(g) == 0, f"{side.name}: a failed end returned a graph"
                continue
            assert graph is not None
            side.enter()
            got = side.graph(g)
            want = Graph(graph.nodes, sorted(graph.edges))
            assert got == want, (f"cuStreamEndCapture(s{s}): {side.name} gave a graph of {got.nodes} nodes with "
                                 f"edges {got.edges}; the model predicts {want.nodes} nodes with edges {want.edges}")
            assert int(side.cu.cuGraphDestroy(g)[0]) == 0

    def exchange_mode(self, t: int, mode: int) -> None:
        """cuThreadExchangeStreamCaptureMode: the previous mode comes back."""
        res = self.on(t, lambda side: side.cu.cuThreadExchangeStreamCaptureMode(mode))
        code, old = self.model.exchange_mode(t, mode)
        self.expect(f"cuThreadExchangeStreamCaptureMode({mode}) on T{t}", res, code)
        for side, r in zip(self.sides, res):
            assert int(r[1]) == old, f"{side.name}: T{t}'s previous mode was {int(r[1])}, the model says {old}"

    def launch(self, s: Hashable, t: int) -> None:
        """cuLaunchKernel of the empty kernel."""
        res = self.on(t, lambda side: side.cu.cuLaunchKernel(side.fn, 1, 1, 1, 1, 1, 1, 0, side.stream(s), 0, 0))
        self.expect(f"cuLaunchKernel(s{s}) on T{t}", res, self.model.launch(t, s))

    def record(self, e: Hashable, s: Hashable, t: int) -> None:
        """cuEventRecord."""
        res = self.on(t, lambda side: side.cu.cuEventRecord(side.event(e), side.stream(s)))
        self.expect(f"cuEventRecord(e{e}, s{s}) on T{t}", res, self.model.record(t, e, s))

    def wait(self, s: Hashable, e: Hashable, t: int) -> None:
        """cuStreamWaitEvent with flags 0: a fork, a join, a merge, an isolation, or an ordinary wait."""
        res = self.on(t, lambda side: side.cu.cuStreamWaitEvent(side.stream(s), side.event(e), 0))
        self.expect(f"cuStreamWaitEvent(s{s}, e{e}) on T{t}", res, self.model.wait(t, s, e))

    def stream_sync(self, s: Hashable, t: int, query: bool) -> None:
        """cuStreamSynchronize or (``query``) cuStreamQuery."""
        name = "cuStreamQuery" if query else "cuStreamSynchronize"
        res = self.on(t, lambda side: getattr(side.cu, name)(side.stream(s)))
        self.expect(f"{name}(s{s}) on T{t}", res, self.model.stream_sync(t, s), query=query)

    def host_call(self, call: str, e: Hashable, t: int) -> None:
        """``call``: cuEventSynchronize or cuEventQuery of ``e``, cuMemAlloc (a potentially unsafe call; the
        memory lives as long as the program's driver) or cuCtxSynchronize."""
        model = self.model
        if call == "cuMemAlloc":
            res, code = self.on(t, lambda side: side.cu.cuMemAlloc(256)), model.mem_alloc(t)
        elif call == "cuCtxSynchronize":
            res, code = self.on(t, lambda side: side.cu.cuCtxSynchronize()), model.ctx_sync(t)
        else:
            res = self.on(t, lambda side: getattr(side.cu, call)(side.event(e)))
            code = model.event_sync(t, e)
        what = f"{call}(e{e}) on T{t}" if call.startswith("cuEvent") else f"{call} on T{t}"
        self.expect(what, res, code, query=call == "cuEventQuery")

    def destroy_stream(self, s: Hashable) -> None:
        """cuStreamDestroy: the origin ends its capture, another member leaves it."""
        res = self.on(0, lambda side: side.cu.cuStreamDestroy(side.stream(s)))
        self.expect(f"cuStreamDestroy(s{s})", res, self.model.destroy_stream(s))
        self.live_streams.remove(s)

    # -- one step of a program ------------------------------------------------------------------------------
    #: how often a step is each kind of call (hypothesis would pick rules uniformly; these weights make
    #: programs that fork, join and end captures often)
    STEP_WEIGHTS: ClassVar[dict[str, int]] = {"launch": 4, "record_wait": 4, "begin": 3, "end": 3, "record": 1,
                                              "wait": 1, "stream_sync": 1, "host_call": 1, "mode": 1, "destroy": 1}

    def _pick(self, items: list[Any]) -> Any:
        """The next choice of this step among ``items`` (decoded from the step's one drawn integer)."""
        self._choice: int
        self._choice, k = divmod(self._choice, len(items))
        return items[k]

    def _stream(self, prefer: list[Hashable] | None = None) -> Hashable:
        """A live stream or (one time in six) the legacy stream; from ``prefer`` three times in four when it
        is not empty."""
        pool = prefer if prefer and self._pick([True, True, True, False]) else \
            [*self.live_streams] * 5 + [LEGACY] * len(self.live_streams)
        s: Hashable = self._pick(pool)
        return s

    def _capturing(self) -> list[Hashable]:
        return [s for s in self.live_streams if self.model.capture_of(s) is not None]

    @rule(choice=st.integers(0, 2**64 - 1))
    def step(self, choice: int) -> None:
        """One step of the program: a call (or an event record followed by a wait), drawn by
        :attr:`STEP_WEIGHTS`, with its arguments, all decoded from one integer (one draw a step keeps
        hypothesis's share of the time small). The calls made are in hypothesis's notes of a failing example."""
        self._choice = choice
        pick = self._pick
        op = pick([op for op, w in self.STEP_WEIGHTS.items() for _ in range(w)])
        t = pick([0, 0, 0, *range(1, self.THREADS)])
        events = self.live_events
        if op == "launch":
            self.launch(self._stream(self._capturing()), t)
        elif op == "record_wait":
            e = pick(events)
            self.record(e, self._stream(self._capturing()), t)
            self.wait(self._stream(), e, t)
        elif op == "begin":
            idle = [s for s in self.live_streams if self.model.capture_of(s) is None]
            self.begin(self._stream(idle), pick([0, 1, 2]), t)
        elif op == "end":
            live = [c for c in self.model.live if c.origin in self.live_streams]
            if live and pick([True, True, True, False]):
                c = pick(live)
                self.end(c.origin, c.thread if pick([True, True, True, False]) else t)
            else:
                self.end(self._stream(), t)
        elif op == "record":
            self.record(pick(events), self._stream(), t)
        elif op == "wait":
            self.wait(self._stream(), pick(events), t)
        elif op == "stream_sync":
            self.stream_sync(self._stream(), t, pick([False, True]))
        elif op == "host_call":
            call = pick(["cuEventSynchronize", "cuEventQuery", "cuMemAlloc", "cuCtxSynchronize"])
            self.host_call(call, pick(events), t)
        elif op == "mode":
            self.exchange_mode(t, pick([0, 1, 2]))
        elif op == "destroy":
            if len(self.live_streams) > 2:
                self.destroy_stream(pick(self.live_streams))
            if len(self.live_streams) < self.MAX_STREAMS:
                self.create_stream(pick([0, 1]))

    # -- after every step ------------------------------------------------------------------------------
    @invariant()
    def statuses_agree(self) -> None:
        """Every stream's capture status (and the legacy stream's code) agrees on every side and with the
        model; members of one capture share its id, and hold as many dependencies as the model says."""
        model = self.model
        for s in (LEGACY, *self.live_streams):
            code, status = model.status(s)
            res = self.on(0, functools.partial(_is_capturing, s=s))
            self.expect(f"cuStreamIsCapturing(s{s})", res, code)
            if code:
                continue
            for side, r in zip(self.sides, res):
                assert int(r[1]) == status, f"s{s}: {side.name} reports status {int(r[1])}, the model {status}"
            c = model.capture_of(s)
            if status != 1 or c is None:
                continue
            deps = len(model.deps_of(s))
            infos = self.on(0, functools.partial(_capture_info, s=s))
            for side, info in zip(self.sides, infos):
                assert int(info[2]) == side.ids[c.key], f"s{s}: {side.name} reports capture id {int(info[2])}, " \
                                                        f"not that of the capture the model has it in"
                assert int(info[-1]) == deps, f"s{s}: {side.name} reports {int(info[-1])} dependencies, the " \
                                              f"model {deps}"
