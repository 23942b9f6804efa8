"""User code (host functions, host nodes, Python kernels) runs without the driver lock: other threads may call
the driver meanwhile, stream order still holds, and a running replay keeps its exec. Every join has a timeout,
so a regression fails in seconds instead of hanging the run."""
from __future__ import annotations

import ctypes
import threading
from typing import Any

from .conftest import OK, R, cu, err, ok

JOIN = 10.0  # seconds: far longer than any of these calls needs


def in_thread(fn: Any) -> dict:
    """Run ``fn()`` on a new thread and wait for it (with a timeout); returns ``{"result"|"error", "alive"}``."""
    out: dict = {}

    def body() -> None:
        try:
            out["result"] = fn()
        except BaseException as e:  # noqa: BLE001 - reported to the test
            out["error"] = e
    t = threading.Thread(target=body, daemon=True)
    t.start()
    t.join(JOIN)
    out["alive"] = t.is_alive()
    return out


def other_thread_calls() -> tuple:
    """What the other thread does: unrelated driver calls that need the lock."""
    ok(cu.cuCtxSetCurrent(CTX[0]))
    s = ok(cu.cuStreamCreate(0))
    p = ok(cu.cuMemAlloc(256))
    return cu.cuStreamQuery(s), cu.cuMemFree(p), cu.cuStreamDestroy(s)


CTX: list = []


def test_host_function_waiting_for_another_threads_call_completes(env):
    """A host function that starts a thread making driver calls, and waits for it, completes: the calls succeed."""
    CTX[:] = [env.ctx]
    seen = []
    fn = env.host_fn(lambda _u: seen.append(in_thread(other_thread_calls)))
    assert cu.cuLaunchHostFunc(env.s1, fn, None) == OK
    assert len(seen) == 1 and not seen[0]["alive"], seen
    assert seen[0]["result"] == (OK, OK, OK)


def test_host_node_in_a_replay_waiting_for_another_thread_completes(menv):
    """A graph's host node (run by a synchronisation, manual progression) may wait for another thread's calls."""
    env = menv
    CTX[:] = [env.ctx]
    seen = []
    fn = env.host_fn(lambda _u: seen.append(in_thread(other_thread_calls)))
    x = ok(cu.cuGraphInstantiate(env.capture(lambda s: ok(cu.cuLaunchHostFunc(s, fn, None))), 0))
    assert cu.cuGraphLaunch(x, env.s1) == OK
    assert seen == []
    assert cu.cuStreamSynchronize(env.s1) == OK
    assert len(seen) == 1 and not seen[0]["alive"] and seen[0]["result"] == (OK, OK, OK)


def test_python_kernel_waiting_for_another_thread_completes(env):
    """A Python kernel that waits for another thread's driver calls completes, eagerly and in a replay."""
    CTX[:] = [env.ctx]
    seen = []
    env.d.kernels["k"] = lambda launch: seen.append(in_thread(other_thread_calls))
    assert env.launch(env.k, env.s1) == OK
    x = ok(cu.cuGraphInstantiate(env.kernels(1), 0))
    assert cu.cuGraphLaunch(x, env.s1) == OK
    assert [(s["alive"], s["result"]) for s in seen] == [(False, (OK, OK, OK))] * 2


def test_calls_from_the_host_function_itself_are_still_refused(env):
    """A driver call made by the host function itself is still refused with 800 (spec 3.9)."""
    codes = []
    fn = env.host_fn(lambda _u: codes.append(cu.cuStreamQuery(env.s2)[0]))
    assert cu.cuLaunchHostFunc(env.s1, fn, None) == OK
    assert codes == [R.CUDA_ERROR_NOT_PERMITTED]


def test_work_enqueued_meanwhile_on_the_busy_stream_runs_after_the_host_function(env):
    """While a host function of s1 runs, another thread's memset on s1 waits behind it (the stream query says
    NOT_READY) and runs when it returns; the launch log keeps stream order."""
    CTX[:] = [env.ctx]
    seen: dict = {}

    def other() -> tuple:
        ok(cu.cuCtxSetCurrent(env.ctx))
        r = cu.cuMemsetD8Async(env.buf, 9, 4, env.s1)
        return r, cu.cuStreamQuery(env.s1), cu.cuStreamQuery(env.s2)

    def host(_u: Any) -> None:
        seen.update(in_thread(other))
        seen["buf during"] = bytes(env.d.memory.device_view(int(env.buf), 4))
    assert cu.cuLaunchHostFunc(env.s1, env.host_fn(host), None) == OK
    assert not seen["alive"]
    assert seen["result"] == (OK, (R.CUDA_ERROR_NOT_READY,), OK)
    assert seen["buf during"] == bytes(4)
    assert env.read(env.buf, 4) == b"\x09" * 4
    assert [r.kind for r in env.d.launch_log] == ["HOST", "MEMSET", "MEMCPY"]


def test_synchronize_from_another_thread_waits_for_the_running_host_function(env):
    """Another thread's cuStreamSynchronize of the stream returns only after the host function has returned."""
    CTX[:] = [env.ctx]
    state = {"host done": False}
    started = threading.Event()
    result: dict = {}

    def other() -> None:
        ok(cu.cuCtxSetCurrent(env.ctx))
        started.set()
        result["code"] = cu.cuStreamSynchronize(env.s1)
        result["host done then"] = state["host done"]

    t = threading.Thread(target=other, daemon=True)

    def host(_u: Any) -> None:
        t.start()
        started.wait(JOIN)
        t.join(0.2)  # it blocks in cuStreamSynchronize until this function returns
        state["host done"] = True
    assert cu.cuLaunchHostFunc(env.s1, env.host_fn(host), None) == OK
    t.join(JOIN)
    assert not t.is_alive()
    assert result == {"code": OK, "host done then": True}


def test_exec_destroyed_during_its_own_replay_finishes_the_replay(env):
    """Another thread destroys the exec while its host node runs: the destroy succeeds, the replay still runs its
    later memset node, and the handle is refused afterwards."""
    CTX[:] = [env.ctx]
    box: dict = {}

    def host(_u: Any) -> None:
        box.update(in_thread(lambda: cu.cuGraphExecDestroy(box["x"])))
    fn = env.host_fn(host)
    g = env.capture(lambda s: (ok(cu.cuLaunchHostFunc(s, fn, None)), ok(cu.cuMemsetD8Async(env.buf, 3, 4, s))))
    box["x"] = ok(cu.cuGraphInstantiate(g, 0))
    assert cu.cuGraphLaunch(box["x"], env.s1) == OK
    assert not box["alive"] and box["result"] == OK
    assert env.read(env.buf, 4) == b"\x03" * 4
    assert [r.kind for r in env.d.launch_log][:2] == ["HOST", "MEMSET"]
    assert cu.cuGraphLaunch(box["x"], env.s1) == (R.CUDA_ERROR_INVALID_VALUE,)  # spec 16
    assert "destroyed" in env.d.last_error().why


def test_exec_params_set_during_a_replay_reach_the_next_launch_only(env):
    """cuGraphExecMemsetNodeSetParams from another thread during a replay leaves the running replay as it was
    and changes the next launch."""
    CTX[:] = [env.ctx]
    box: dict = {"calls": 0}

    def setparams() -> Any:
        ok(cu.cuCtxSetCurrent(env.ctx))
        p = cu.CUDA_MEMSET_NODE_PARAMS()
        p.dst, p.value, p.elementSize, p.width, p.height, p.pitch = env.buf, 2, 1, 4, 1, 0
        return cu.cuGraphExecMemsetNodeSetParams(box["x"], box["node"], p, env.ctx)

    def host(_u: Any) -> None:
        box["calls"] += 1
        if box["calls"] == 1:
            box.update(in_thread(setparams))
    fn = env.host_fn(host)
    g = env.capture(lambda s: (ok(cu.cuLaunchHostFunc(s, fn, None)), ok(cu.cuMemsetD8Async(env.buf, 1, 4, s))))
    box["node"] = env.nodes(g)[1]
    box["x"] = ok(cu.cuGraphInstantiate(g, 0))
    assert cu.cuGraphLaunch(box["x"], env.s1) == OK
    assert not box["alive"] and box["result"] == OK
    assert env.read(env.buf, 4) == b"\x01" * 4
    assert cu.cuGraphLaunch(box["x"], env.s1) == OK
    assert env.read(env.buf, 4) == b"\x02" * 4


def test_is_device_pointer_is_safe_during_concurrent_allocations(env):
    """is_device_pointer, read from another thread while allocations are made, never raises and stays right."""
    stop = threading.Event()
    problems: list = []
    first = int(env.buf)

    def reader() -> None:
        while not stop.is_set():
            try:
                if not env.d.is_device_pointer(first):
                    problems.append("lost")
            except Exception as e:  # noqa: BLE001
                problems.append(e)
    t = threading.Thread(target=reader, daemon=True)
    t.start()
    try:
        ptrs = [ok(cu.cuMemAlloc(64)) for _ in range(3000)]
    finally:
        stop.set()
        t.join(JOIN)
    assert not t.is_alive() and problems == []
    assert all(env.d.is_device_pointer(int(p)) for p in ptrs)
    assert not env.d.is_device_pointer(ctypes.addressof(ctypes.c_int()))
    err(cu.cuMemFree(0xDEAD0000), 1)


def test_refused_calls_of_a_host_function_leave_the_launching_threads_last_error(env):
    """A host function's refused call (800) is its own: the launching thread's last error stays as it was."""
    import simcuda
    codes = []
    fn = env.host_fn(lambda _u: codes.append(cu.cuStreamQuery(env.s2)[0]))
    assert simcuda.last_error() is None or int(simcuda.last_error().code) != 800
    before = simcuda.last_error()
    assert cu.cuLaunchHostFunc(env.s1, fn, None) == OK
    assert codes == [R.CUDA_ERROR_NOT_PERMITTED]
    assert simcuda.last_error() == before
    assert env.d.error_log[-1].code == 800 and "host function" in env.d.error_log[-1].thread


def test_a_launch_the_host_cannot_back_runs_no_node(drv):
    """A graph whose allocation passes the host budget: cuGraphLaunch is OUT_OF_MEMORY, its earlier memset
    node does not run, and no launch is counted or logged."""
    import simcuda
    d = simcuda.Driver(options=simcuda.Options(host_memory_budget=simcuda._core.process.SPACE.committed + (64 << 20)))
    simcuda.use(d)
    ok(cu.cuInit(0))
    ok(cu.cuCtxCreate(None, 0, 0))
    buf = ok(cu.cuMemAllocManaged(16, 1))
    s = ok(cu.cuStreamCreate(0))
    ok(cu.cuStreamBeginCapture(s, 0))
    ok(cu.cuMemsetD8Async(buf, 0x77, 16, s))
    p = ok(cu.cuMemAllocAsync(1 << 30, s))
    ok(cu.cuMemFreeAsync(p, s))
    x = ok(cu.cuGraphInstantiate(ok(cu.cuStreamEndCapture(s)), 0))
    d.launch_log.clear()
    assert cu.cuGraphLaunch(x, s) == (R.CUDA_ERROR_OUT_OF_MEMORY,)
    assert "no node ran" in simcuda.last_error().why
    assert ctypes.string_at(int(buf), 4) == bytes(4)
    assert d.stats["graph_launches"] == 0 and list(d.launch_log) == []


def test_mem_free_runs_the_queued_work_first(menv):
    """Under manual progression cuMemFree synchronises: a queued memset of the memory runs before it goes."""
    env = menv
    p = ok(cu.cuMemAlloc(64))
    ok(cu.cuMemsetD8Async(p, 1, 64, env.s1))
    assert cu.cuMemFree(p) == OK
    assert [r.kind for r in env.d.launch_log] == ["MEMSET"]
    assert cu.cuStreamSynchronize(env.s1) == OK
    assert cu.cuStreamQuery(env.s1) == OK
