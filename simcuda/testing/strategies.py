"""Hypothesis strategies for capture tests: arguments, launch configurations and whole call programs.

Argument strategies (values from the driver face's enums, which mirror ``cuda.bindings``):

* :func:`capture_modes`: ``CUstreamCaptureMode`` values, or (``valid=False``) values that are not one.
* :func:`stream_flags`, :func:`event_flags`: flags ``cuStreamCreate`` / ``cuEventCreate`` accept.
* :func:`kernel_dims`, :func:`launch_configs`: grid and block dimensions and dynamic shared memory,
  valid for the simulated device, or (``valid=False``) with one limit broken.

Program strategies:

* :func:`programs` draws a :class:`Program`: a list of :class:`Call` over named streams, events and threads
  (a capture program, as the stateful machine makes them) together with the ``CUresult`` of every call as the
  reference model (:class:`~simcuda.testing.model.CaptureModel`) predicts it. ``valid=True`` gives programs
  whose every call succeeds and whose captures all end with a graph; ``valid=False`` programs end with one
  call that must fail (``Program.expected[-1]`` is its code); ``valid=None`` mixes both.
* :func:`run_program` runs a program on a driver-face module, each call on its own program thread, and
  returns the codes, for comparison with ``Program.expected``.

docs/testing.md has examples that run.
"""
from __future__ import annotations

import copy
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, cast

from hypothesis import strategies as st

from .model import LEGACY, CaptureModel

#: simulated device limits the launch strategies respect (the default DeviceSpec: 1024 threads a block,
#: block at most 1024 x 1024 x 64, grid at most (2**31 - 1) x 65535 x 65535, 48 KiB of static shared memory)
MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK = (1024, 1024, 64)
MAX_GRID = (2**31 - 1, 65535, 65535)
MAX_SHARED = 48 * 1024


def _face() -> Any:
    from simcuda.faces.bindings import driver
    return driver


def capture_modes(valid: bool = True) -> st.SearchStrategy[int]:
    """``CUstreamCaptureMode`` values GLOBAL, THREAD_LOCAL, RELAXED; with ``valid=False`` ints that are not a
    mode (``cuStreamBeginCapture`` and ``cuThreadExchangeStreamCaptureMode`` return INVALID_VALUE, spec 3.1,
    3.7)."""
    m = _face().CUstreamCaptureMode
    good = sorted(int(v) for v in (m.CU_STREAM_CAPTURE_MODE_GLOBAL, m.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
                                   m.CU_STREAM_CAPTURE_MODE_RELAXED))
    if valid:
        return st.sampled_from(good)
    return st.integers(-(2**31), 2**31 - 1).filter(lambda v: v not in good)


def stream_flags() -> st.SearchStrategy[int]:
    """``CU_STREAM_DEFAULT`` (0, blocking) or ``CU_STREAM_NON_BLOCKING`` (1)."""
    f = _face().CUstream_flags
    return st.sampled_from([int(f.CU_STREAM_DEFAULT), int(f.CU_STREAM_NON_BLOCKING)])


def event_flags() -> st.SearchStrategy[int]:
    """Flags ``cuEventCreate`` accepts: any OR of DEFAULT, BLOCKING_SYNC, DISABLE_TIMING and INTERPROCESS,
    where INTERPROCESS needs DISABLE_TIMING (cuEventCreate docs)."""
    f = _face().CUevent_flags
    blocking, no_timing = int(f.CU_EVENT_BLOCKING_SYNC), int(f.CU_EVENT_DISABLE_TIMING)
    ipc = int(f.CU_EVENT_INTERPROCESS)
    return st.builds(lambda b, n, i: (blocking if b else 0) | (no_timing | ipc if i else (no_timing if n else 0)),
                     st.booleans(), st.booleans(), st.booleans())


def kernel_dims() -> st.SearchStrategy[tuple[int, int, int]]:
    """Small valid grid or block dimensions ``(x, y, z)``."""
    return st.tuples(st.integers(1, 8), st.integers(1, 4), st.integers(1, 2))


@dataclass(frozen=True)
class LaunchConfig:
    """Arguments of ``cuLaunchKernel`` after the function: grid, block, dynamic shared memory (bytes)."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int = 0

    def args(self) -> tuple[int, ...]:
        """``(gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes)``."""
        return (*self.grid, *self.block, self.shared)


def launch_configs(valid: bool = True) -> st.SearchStrategy[LaunchConfig]:
    """:class:`LaunchConfig` values within the device limits above; with ``valid=False`` one limit is broken
    (a zero dimension, a block over a per-axis limit or over 1024 threads, a grid over a per-axis limit, or
    too much shared memory), which ``cuLaunchKernel`` refuses with INVALID_VALUE."""
    @st.composite
    def block(draw: st.DrawFn) -> tuple[int, int, int]:
        x = draw(st.integers(1, MAX_BLOCK[0]))
        y = draw(st.integers(1, min(MAX_BLOCK[1], MAX_THREADS_PER_BLOCK // x)))
        z = draw(st.integers(1, min(MAX_BLOCK[2], MAX_THREADS_PER_BLOCK // (x * y))))
        return x, y, z

    grid = st.tuples(st.integers(1, 2**31 - 1), st.integers(1, 65535), st.integers(1, 65535))
    ok = st.builds(LaunchConfig, grid, block(), st.integers(0, MAX_SHARED))
    if valid:
        return ok

    def broken(cfg: LaunchConfig, how: int, axis: int, data: st.DataObject) -> LaunchConfig:
        g, b = list(cfg.grid), list(cfg.block)
        if how == 0:
            (g if data.draw(st.booleans()) else b)[axis] = 0
        elif how == 1:
            b[axis] = MAX_BLOCK[axis] + data.draw(st.integers(1, 1000))
        elif how == 2:
            b = [32, 32, 2]  # 2048 threads, each axis within its limit
        elif how == 3:
            g[axis] = MAX_GRID[axis] + data.draw(st.integers(1, 1000))
        else:
            return LaunchConfig(cfg.grid, cfg.block, MAX_SHARED + data.draw(st.integers(1, 1 << 20)))
        return LaunchConfig((g[0], g[1], g[2]), (b[0], b[1], b[2]), cfg.shared)

    return st.builds(broken, ok, st.integers(0, 4), st.integers(0, 2), st.data())


# -- whole programs --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    """One call of a :class:`Program`: ``op`` (one of :data:`OPS`), its arguments (stream, event names or
    values) and the program thread that makes it."""

    op: str
    args: tuple[Any, ...] = ()
    thread: int = 0

    def __str__(self) -> str:
        return f"T{self.thread}: {self.op}{self.args}"


#: the operations of a program and the driver call each one is
OPS: dict[str, str] = {
    "stream": "cuStreamCreate(flags) -> the stream named by the first argument",
    "event": "cuEventCreate(0) -> the event named by the first argument",
    "begin": "cuStreamBeginCapture(stream, mode)",
    "end": "cuStreamEndCapture(stream) (the graph is destroyed again)",
    "launch": "cuLaunchKernel of an empty kernel on the stream",
    "record": "cuEventRecord(event, stream)",
    "wait": "cuStreamWaitEvent(stream, event, 0)",
    "sync": "cuStreamSynchronize(stream)",
    "event_sync": "cuEventSynchronize(event)",
    "alloc": "cuMemAlloc(256)",
    "mode": "cuThreadExchangeStreamCaptureMode(mode)",
}


@dataclass
class Program:
    """A call program and the ``CUresult`` the model predicts for each call (``expected[i]`` for
    ``calls[i]``)."""

    calls: list[Call] = field(default_factory=list)
    expected: list[int] = field(default_factory=list)

    def __str__(self) -> str:
        return "\n".join(f"{c}  -> {e}" for c, e in zip(self.calls, self.expected))


def _predict(model: CaptureModel, c: Call) -> int:
    """Apply ``c`` to ``model``; its predicted code."""
    a, t = c.args, c.thread
    if c.op == "stream":
        return model.create_stream(a[0], a[1] == 0)
    if c.op == "event":
        return model.create_event(a[0])
    if c.op == "begin":
        return model.begin(t, a[0], a[1])
    if c.op == "end":
        return model.end(t, a[0])[0]
    if c.op == "launch":
        return model.launch(t, a[0])
    if c.op == "record":
        return model.record(t, a[0], a[1])
    if c.op == "wait":
        return model.wait(t, a[0], a[1])
    if c.op == "sync":
        return model.stream_sync(t, a[0])
    if c.op == "event_sync":
        return model.event_sync(t, a[0])
    if c.op == "alloc":
        return model.mem_alloc(t)
    if c.op == "mode":
        return model.exchange_mode(t, a[0])[0]
    raise ValueError(f"unknown program op {c.op!r}")


def predict(calls: list[Call]) -> list[int]:
    """The codes the model predicts for ``calls``, run from a fresh model."""
    model = CaptureModel()
    return [_predict(model, c) for c in calls]


@st.composite
def _program(draw: st.DrawFn, valid: bool | None, threads: int, max_calls: int) -> Program:
    want_valid = draw(st.booleans()) if valid is None else valid
    model = CaptureModel()
    prog = Program()
    streams: list[Hashable] = ["s1", "s2", "s3"]
    events: list[Hashable] = ["e1", "e2", "e3"]

    def add(c: Call) -> int:
        code = _predict(model, c)
        prog.calls.append(c)
        prog.expected.append(code)
        return code

    for i, s in enumerate(streams):
        add(Call("stream", (s, draw(stream_flags()) if i else 0)))
    for e in events:
        add(Call("event", (e,)))
    thread = st.integers(0, threads - 1)
    stream = st.sampled_from(streams)
    any_stream = st.sampled_from([*streams, LEGACY])
    event = st.sampled_from(events)
    call = st.one_of(
        st.builds(lambda s, m, t: Call("begin", (s, m), t), stream, capture_modes(), thread),
        st.builds(lambda s, t: Call("end", (s,), t), stream, thread),
        st.builds(lambda s, t: Call("launch", (s,), t), any_stream, thread),
        st.builds(lambda e, s, t: Call("record", (e, s), t), event, any_stream, thread),
        st.builds(lambda s, e, t: Call("wait", (s, e), t), any_stream, event, thread),
        st.builds(lambda s, t: Call("sync", (s,), t), any_stream, thread),
        st.builds(lambda e, t: Call("event_sync", (e,), t), event, thread),
        st.builds(lambda t: Call("alloc", (), t), thread),
        st.builds(lambda m, t: Call("mode", (m,), t), capture_modes(), thread),
    )
    n = draw(st.integers(1, max_calls))
    for _ in range(n):
        c = draw(call)
        if want_valid:
            trial = copy.deepcopy(model)
            if _predict(trial, c) != 0:
                continue  # only calls that succeed
        add(c)
    if not want_valid:
        for _ in range(50):  # end with a call that must fail
            c = draw(call)
            if _predict(copy.deepcopy(model), c) != 0:
                add(c)
                return prog
        add(Call("begin", (LEGACY, 0)))  # 900 whatever the state (spec 3.1 row 1)
        return prog
    # close every open capture: join each other member into the origin, then end on the begin thread
    for cap in list(model.live):
        for j, m in enumerate([m for m in cap.deps if m != cap.origin]):
            e = f"join{cap.key}_{j}"
            add(Call("event", (e,)))
            add(Call("record", (e, m)))
            add(Call("wait", (cap.origin, e)))
        add(Call("end", (cap.origin,), cast(int, cap.thread) if cap.mode != 2 else 0))
    assert all(code == 0 for code in prog.expected), "a valid program must succeed call by call"
    return prog


def programs(valid: bool | None = None, threads: int = 2, max_calls: int = 20) -> st.SearchStrategy[Program]:
    """Capture programs over three streams (the first blocking), three events, the legacy stream and
    ``threads`` program threads, with the codes the model predicts.

    Args:
        valid: True: every call succeeds and every capture is joined and ended with a graph; False: the last
            call must fail (its predicted code is not 0); None: either.
        threads: program threads (``Call.thread`` is in ``range(threads)``).
        max_calls: at most this many random calls before the closing ones.
    """
    return _program(valid, threads, max_calls)


def run_program(program: Program | list[Call], cu: Any = None, driver: Any = None) -> list[int]:
    """Run ``program`` on a driver-face module and return each call's ``CUresult`` as an int.

    Args:
        program: a :class:`Program` (or a list of :class:`Call`).
        cu: a ``cuda.bindings.driver``-style module; default ``simcuda.faces.bindings.driver``.
        driver: the :class:`simcuda.Driver` to run on (made current for the run, the previous one put back);
            default a fresh one. Ignored when ``cu`` is given without a driver (a real GPU).
    Program thread 0 is the calling thread; the others are worker threads started for the run.
    """
    import simcuda

    from .machine import Side, ThreadRunner, _here
    calls = program.calls if isinstance(program, Program) else program
    if cu is None:
        from simcuda.faces.bindings import driver as cu
        driver = driver or simcuda.Driver()
    old = simcuda.use(driver) if driver is not None else None
    side = Side(cu, driver)
    threads = 1 + max((c.thread for c in calls), default=0)
    workers = [ThreadRunner(f"program-T{i}") for i in range(1, threads)]
    runners = [_here, *workers]
    try:
        side.setup()
        for r in workers:
            r(side.make_current)
        return [_run(side, runners[c.thread], c) for c in calls]
    finally:
        for r in workers:
            r.close()
        if old is not None:
            simcuda.use(old)


def _run(side: Any, runner: Any, c: Call) -> int:
    cu, a = side.cu, c.args
    if c.op == "stream":
        err, h = runner(lambda: cu.cuStreamCreate(a[1]))
        side.streams[a[0]] = h
        return int(err)
    if c.op == "event":
        err, h = runner(lambda: cu.cuEventCreate(0))
        side.events[a[0]] = h
        return int(err)
    if c.op == "end":
        err, g = runner(lambda: cu.cuStreamEndCapture(side.stream(a[0])))
        if int(err) == 0:
            cu.cuGraphDestroy(g)
        return int(err)
    if c.op == "mode":
        return int(runner(lambda: cu.cuThreadExchangeStreamCaptureMode(a[0]))[0])
    fn = {
        "begin": lambda: cu.cuStreamBeginCapture(side.stream(a[0]), a[1]),
        "launch": lambda: cu.cuLaunchKernel(side.fn, 1, 1, 1, 1, 1, 1, 0, side.stream(a[0]), 0, 0),
        "record": lambda: cu.cuEventRecord(side.event(a[0]), side.stream(a[1])),
        "wait": lambda: cu.cuStreamWaitEvent(side.stream(a[0]), side.event(a[1]), 0),
        "sync": lambda: cu.cuStreamSynchronize(side.stream(a[0])),
        "event_sync": lambda: cu.cuEventSynchronize(side.event(a[0])),
        "alloc": lambda: cu.cuMemAlloc(256),
    }[c.op]
    r = runner(fn)
    return int(r[0] if isinstance(r, tuple) else r)
