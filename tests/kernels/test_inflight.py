"""Kernels that spin on the host stay in flight on their stream (issue 17 item 2, docs/spec-proposals.md P-74).

A latch kernel spins until the host writes a flag in pinned host memory. The launch returns CUDA_SUCCESS, queries
answer NOT_READY (600) while it is held, work behind it on its stream (and ordered after it) waits, work on an
unrelated stream runs at once; once the host writes the flag, a synchronisation returns 0 and the work behind it
has run. Checked on the core, the Python face (cuda.bindings.driver through ``simcuda.patch``), the native route
(NVIDIA's compiled cuda.bindings over the simulated libcuda.so.1) and cuda.core's ``launch``.
"""
from __future__ import annotations

import ctypes
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simcuda
from simcuda._core.errors import DriverError
from simcuda._core.modules import ptxrun

#: ``latch(int *flag)`` spins on a volatile load of the flag until it is non-zero; ``latch_oob`` does the same,
#: then stores at address 16 (unmapped: 700); ``put(int *out, int v)`` stores ``v`` at ``out``
PTX = r"""
.version 8.0
.target sm_80
.address_size 64
.visible .entry latch(.param .u64 flag)
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [flag];
$L_spin:
  ld.volatile.u32 %r1, [%rd1];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra $L_spin;
  ret;
}
.visible .entry latch_oob(.param .u64 flag)
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [flag];
$L_wait:
  ld.volatile.u32 %r1, [%rd1];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra $L_wait;
  mov.u64 %rd2, 16;
  st.global.u32 [%rd2], %r1;
  ret;
}
.visible .entry put(.param .u64 out, .param .u32 v)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [v];
  st.global.u32 [%rd1], %r1;
  ret;
}
"""
ROOT = str(Path(__file__).resolve().parents[2])


class Rig:
    """A driver with the latch module loaded, a pinned flag (0), a 4-int device buffer and helpers."""

    def __init__(self, **kw: Any) -> None:
        self.drv = d = simcuda.Driver(**kw)
        d.init(0)
        d.ctx_create(0, 0)
        m = d.module_load_data(PTX.encode() + b"\0")
        self.latch, self.put_fn = d.module_get_function(m, "latch"), d.module_get_function(m, "put")
        self.flag = d.mem_alloc_host(4)
        ctypes.c_int.from_address(self.flag).value = 0
        self.out = d.mem_alloc(16)
        d.memset(_memset(self.out, 0, 4), None, "cuMemsetD32")

    def hold(self, stream: int) -> None:
        """Launch the latch on ``stream``."""
        self.drv.launch_kernel(self.latch, (1, 1, 1), (1, 1, 1), 0, stream, [self.flag])

    def put(self, stream: int, slot: int, value: int) -> None:
        """Launch ``put`` writing ``value`` into int ``slot`` of the buffer on ``stream``."""
        self.drv.launch_kernel(self.put_fn, (1, 1, 1), (1, 1, 1), 0, stream, [self.out + 4 * slot, value])

    def release(self) -> None:
        """The host writes 1 into the pinned flag."""
        ctypes.c_int.from_address(self.flag).value = 1

    def values(self) -> list[int]:
        """The buffer's 4 ints, read directly (no synchronisation)."""
        return [int(x) for x in np.frombuffer(self.drv.memory.kernel_view(self.out, 16), np.int32)]


def _memset(dst: int, value: int, n: int) -> Any:
    from simcuda._core.memory.memory_model import MemsetParams
    return MemsetParams(dst, value, 4, n)


def _code(fn: Any, *args: Any) -> int:
    """The CUresult of a core call: 0, or the DriverError's code."""
    try:
        fn(*args)
    except DriverError as e:
        return int(e.code)
    return 0


def test_latch_held_then_released_on_the_core() -> None:
    """Held: launch 0, query 600, the kernel behind it not run, another stream's ran; released: sync 0, all ran."""
    r = Rig()
    d = r.drv
    s, other = d.stream_create(1), d.stream_create(1)
    assert _code(r.hold, s) == 0
    r.put(s, 0, 7)
    r.put(other, 1, 9)
    assert _code(d.stream_query, s) == 600
    assert _code(d.stream_query, other) == 0
    assert r.values() == [0, 9, 0, 0]
    r.release()
    assert _code(d.stream_synchronize, s) == 0
    assert r.values() == [7, 9, 0, 0]
    assert _code(d.stream_query, s) == 0
    assert d.objects[s].inflight is None
    d.close()


def test_event_record_and_wait_queue_behind_the_held_kernel() -> None:
    """An event recorded behind the latch answers 600; a stream waiting on it holds its later work until the
    latch ends; cuEventSynchronize then returns 0 with the record's time set."""
    r = Rig()
    d = r.drv
    s, waiter = d.stream_create(1), d.stream_create(1)
    ev = d.event_create(0)
    r.hold(s)
    d.event_record(ev, s)
    d.stream_wait_event(waiter, ev, 0)
    r.put(waiter, 2, 5)
    assert _code(d.event_query, ev) == 600
    assert _code(d.stream_query, waiter) == 600
    assert r.values() == [0, 0, 0, 0]
    r.release()
    assert _code(d.event_synchronize, ev) == 0
    assert d.handles.event(ev).time_ms is not None
    assert r.values() == [0, 0, 5, 0]
    assert _code(d.stream_query, waiter) == 0
    d.close()


def test_legacy_stream_waits_for_a_held_blocking_stream() -> None:
    """The legacy stream's implicit synchronisation: work on it queues behind a held blocking stream, work on a
    non-blocking stream does not; cuCtxSynchronize returns 0 once released and everything ran."""
    r = Rig()
    d = r.drv
    blocking, free = d.stream_create(0), d.stream_create(1)
    r.hold(blocking)
    assert _code(d.stream_query, 0) == 600  # the legacy stream waits for the blocking stream's kernel
    r.put(0, 0, 1)  # the legacy stream
    r.put(free, 1, 2)
    r.put(blocking, 3, 4)
    assert _code(d.stream_query, 0) == 600
    assert r.values() == [0, 2, 0, 0]
    r.release()
    assert _code(d.ctx_synchronize) == 0
    assert r.values() == [1, 2, 0, 4]
    d.close()


def test_another_thread_releases_the_latch_while_the_sync_waits() -> None:
    """cuStreamSynchronize resumes the kernel with the lock released: another thread calls the driver meanwhile
    (its query of an unrelated stream answers 0) and writes the flag; the sync returns 0."""
    r = Rig()
    d = r.drv
    s, other = d.stream_create(1), d.stream_create(1)
    r.hold(s)
    r.put(s, 0, 3)
    seen: list[int] = []

    def host() -> None:
        time.sleep(0.3)
        seen.append(_code(d.stream_query, other))
        seen.append(_code(d.stream_query, s))  # the sync's thread runs the kernel: 600, without waiting
        r.release()
    t = threading.Thread(target=host)
    t.start()
    assert _code(d.stream_synchronize, s) == 0
    t.join(10)
    assert seen == [0, 600] and r.values() == [3, 0, 0, 0]
    d.close()


def test_a_fault_after_release_is_answered_by_the_sync_and_sticky() -> None:
    """A released latch that then stores outside every allocation: the resuming cuStreamSynchronize answers 700,
    the launch has ended, and the fault is sticky (the next call answers it too, P-9)."""
    r = Rig()
    d = r.drv
    s = d.stream_create(1)
    oob = d.module_get_function(d.module_load_data(PTX.encode() + b"\0"), "latch_oob")
    d.launch_kernel(oob, (1, 1, 1), (1, 1, 1), 0, s, [r.flag])
    assert _code(d.stream_query, s) == 600
    r.release()
    assert _code(d.stream_synchronize, s) == 700
    assert d.objects[s].inflight is None
    assert _code(d.stream_query, s) == 700 and "faulted" in (d.last_error().why if d.last_error() else "")
    d.close()


def test_interrupted_sync_is_a_sticky_719() -> None:
    """simcuda.ptx's stop request (what Ctrl-C uses) interrupts a sync that resumes a never-released latch: 719,
    sticky, the kernel no longer in flight."""
    r = Rig()
    d = r.drv
    s = d.stream_create(1)
    r.hold(s)
    timer = threading.Timer(0.3, ptxrun.request_stop)
    timer.start()
    try:
        assert _code(d.stream_synchronize, s) == 719
    finally:
        timer.join()
        ptxrun.clear_stop()
    assert d.objects[s].inflight is None
    assert _code(d.stream_query, s) == 719  # sticky
    d.close()


def test_ctrl_c_during_the_sync_ends_the_launch_and_keeps_the_driver_usable() -> None:
    """A KeyboardInterrupt while cuStreamSynchronize resumes the latch propagates; the lock is free, the launch is
    no longer in flight, no sticky error, and the work that waited behind it runs at the next synchronisation."""
    import _thread
    r = Rig()
    d = r.drv
    s = d.stream_create(1)
    r.hold(s)
    r.put(s, 0, 2)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            d.stream_synchronize(s)
    finally:
        timer.join()
    assert d._lock.acquire(blocking=False)
    d._lock.release()
    assert d.objects[s].inflight is None and d.sticky_error() == 0
    assert _code(d.stream_synchronize, s) == 0
    assert r.values() == [2, 0, 0, 0]
    d.close()


def test_close_with_a_never_released_kernel_does_not_hang() -> None:
    """Driver.close() with a latch still in flight returns at once: the kernel is abandoned, the work behind it
    dropped, and later calls answer 4 (DEINITIALIZED)."""
    r = Rig()
    d = r.drv
    s = d.stream_create(1)
    r.hold(s)
    r.put(s, 0, 1)
    assert r.values() == [0, 0, 0, 0]
    t0 = time.monotonic()
    d.close()
    assert time.monotonic() - t0 < 5
    assert _code(d.stream_query, s) == 4
    assert not d.objects[s].deferred and d.objects[s].inflight is None


def test_ctx_destroy_abandons_its_never_released_kernel() -> None:
    """cuCtxDestroy with a latch in flight returns 0 at once: the launch is abandoned and the driver goes on
    (a new context's launch runs)."""
    r = Rig()
    d = r.drv
    s = d.stream_create(1)
    r.hold(s)
    stream = d.objects[s]
    assert _code(d.ctx_destroy, d.ctx_get_current()) == 0
    assert stream.inflight is None and not d.scheduler.holds
    d.ctx_create(0, 0)
    put = d.module_get_function(d.module_load_data(PTX.encode() + b"\0"), "put")
    out = d.mem_alloc(4)
    d.memset(_memset(out, 0, 1), None, "cuMemsetD32")
    d.launch_kernel(put, (1, 1, 1), (1, 1, 1), 0, 0, [out, 5])
    assert _code(d.ctx_synchronize) == 0
    assert int(np.frombuffer(d.memory.kernel_view(out, 4), np.int32)[0]) == 5
    d.close()


def test_graph_replay_of_a_latch_runs_to_completion() -> None:
    """A kernel node in a graph replay is not suspended (P-74): released before the launch, the replay of the
    latch and a put ends inside cuGraphLaunch."""
    r = Rig()
    d = r.drv
    s = d.stream_create(1)
    d.stream_begin_capture(s, 0)
    r.hold(s)
    r.put(s, 0, 8)
    g = d.stream_end_capture(s)
    x = d.graph_instantiate(g, 0)
    r.release()
    assert _code(d.graph_launch, x, s) == 0
    assert r.values() == [8, 0, 0, 0] and _code(d.stream_query, s) == 0
    d.close()


def test_manual_progression_runs_the_released_latch_at_advance() -> None:
    """Under progression='manual' the latch is queued like any work; released, advance() runs it to completion
    and the query answers 0."""
    r = Rig(progression="manual")
    d = r.drv
    s = d.stream_create(1)
    r.hold(s)
    r.put(s, 0, 6)
    assert _code(d.stream_query, s) == 600 and r.values() == [0, 0, 0, 0]
    r.release()
    d.advance()
    assert _code(d.stream_query, s) == 0 and r.values() == [6, 0, 0, 0]
    d.close()


FLOW = r'''
import ctypes, json, simcuda
from tests.kernels.test_inflight import PTX
with simcuda.patch(simcuda.Driver(), route=ROUTE):
    from cuda.bindings import driver as d
    c = lambda r: int(r[0])
    d.cuInit(0)
    _, dev = d.cuDeviceGet(0)
    _, ctx = d.cuDevicePrimaryCtxRetain(dev)
    d.cuCtxSetCurrent(ctx)
    _, m = d.cuModuleLoadData(PTX.encode())
    _, latch = d.cuModuleGetFunction(m, b"latch")
    _, put = d.cuModuleGetFunction(m, b"put")
    _, flag = d.cuMemHostAlloc(4, 0)
    ctypes.c_int.from_address(int(flag)).value = 0
    _, out = d.cuMemAlloc(16)
    out = int(out)
    d.cuMemsetD32(out, 0, 4)
    _, s = d.cuStreamCreate(1)
    _, other = d.cuStreamCreate(1)
    _, waiter = d.cuStreamCreate(1)
    _, ev = d.cuEventCreate(0)
    P, U = ctypes.c_void_p, ctypes.c_uint
    res = {"launch": c(d.cuLaunchKernel(latch, 1, 1, 1, 1, 1, 1, 0, s, ((int(flag),), (P,)), 0)),
           "behind": c(d.cuLaunchKernel(put, 1, 1, 1, 1, 1, 1, 0, s, ((out, 7), (P, U)), 0)),
           "memset_behind": c(d.cuMemsetD32Async(out + 12, 5, 1, s)),
           "record": c(d.cuEventRecord(ev, s)),
           "wait": c(d.cuStreamWaitEvent(waiter, ev, 0)),
           "after_wait": c(d.cuLaunchKernel(put, 1, 1, 1, 1, 1, 1, 0, waiter, ((out + 8, 3), (P, U)), 0)),
           "other": c(d.cuLaunchKernel(put, 1, 1, 1, 1, 1, 1, 0, other, ((out + 4, 9), (P, U)), 0)),
           "query": c(d.cuStreamQuery(s)), "event_query": c(d.cuEventQuery(ev)),
           "waiter_query": c(d.cuStreamQuery(waiter)), "other_query": c(d.cuStreamQuery(other))}
    host = (ctypes.c_int * 4)()
    d.cuMemcpyDtoHAsync(host, out, 16, other)
    d.cuStreamSynchronize(other)
    res["held"] = list(host)
    ctypes.c_int.from_address(int(flag)).value = 1
    res["sync"] = c(d.cuStreamSynchronize(s))
    res["event_sync"] = c(d.cuEventSynchronize(ev))
    res["waiter_sync"] = c(d.cuStreamSynchronize(waiter))
    res["query_after"] = c(d.cuStreamQuery(s))
    d.cuMemcpyDtoH(host, out, 16)
    res["released"] = list(host)
print("OUT=" + json.dumps(res))
'''

WANT = {"launch": 0, "behind": 0, "memset_behind": 0, "record": 0, "wait": 0, "after_wait": 0, "other": 0,
        "query": 600, "event_query": 600, "waiter_query": 600, "other_query": 0, "held": [0, 9, 0, 0],
        "sync": 0, "event_sync": 0, "waiter_sync": 0, "query_after": 0, "released": [7, 9, 3, 5]}


def _run(script: str) -> dict[str, Any]:
    """Run ``script`` in a fresh interpreter from the repository root; its OUT= line."""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-4000:]
    out: dict[str, Any] = json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])
    return out


def test_python_face_latch() -> None:
    """Through cuda.bindings.driver on the Python route: the codes and the buffer's state held and released."""
    assert _run(FLOW.replace("ROUTE", repr("python"))) == WANT


def test_native_route_latch() -> None:
    """NVIDIA's compiled cuda.bindings over the simulated libcuda.so.1: the same codes and states."""
    from simcuda.faces import native
    if not native.available()[0]:
        pytest.skip(f"native route: {native.available()[1]}")
    assert _run(FLOW.replace("ROUTE", repr("native"))) == WANT


CORE = r'''
import ctypes, json
import numpy as np
import simcuda
SRC = """
#include <cuda/atomic>
extern "C" __global__ void latch(int* flag) {
  cuda::atomic_ref<int, cuda::thread_scope_system> signal{*flag};
  while (true) { if (signal.load(cuda::memory_order_acquire)) break; }
}
extern "C" __global__ void put(int* out, int v) { *out = v; }
"""
with simcuda.patch(route="native"):
    from cuda.core import Device, LaunchConfig, LegacyPinnedMemoryResource, Program, ProgramOptions, launch
    from cuda.bindings import driver as cu
    dev = Device()
    dev.set_current()
    arch = "sm_" + "".join(str(v) for v in dev.compute_capability)
    opts = ProgramOptions(std="c++17", arch=arch,
                          include_path=["/usr/local/cuda/include/cccl", "/usr/local/cuda/include"])
    mod = Program(SRC, "c++", opts).compile("cubin")
    latch, put = mod.get_kernel("latch"), mod.get_kernel("put")
    buf = LegacyPinnedMemoryResource().allocate(8)
    arr = np.from_dlpack(buf).view(np.int32)
    arr[:] = 0
    s = dev.create_stream()
    one = LaunchConfig(grid=1, block=1)
    launch(s, one, latch, arr.ctypes.data)
    launch(s, one, put, arr.ctypes.data + 4, np.int32(42))
    res = {"query": int(cu.cuStreamQuery(int(s.handle))[0]), "held": int(arr[1])}
    ctypes.c_int.from_address(arr.ctypes.data).value = 1
    s.sync()
    res.update({"query_after": int(cu.cuStreamQuery(int(s.handle))[0]), "released": int(arr[1])})
print("OUT=" + json.dumps(res))
'''


def test_cuda_core_launch_of_a_latch_on_the_native_route() -> None:
    """cuda.core's launch of an NVRTC-compiled latch (acquire load, system scope, pinned flag): the stream
    answers 600 and the kernel behind it has not run; the host writes the flag, Stream.sync() returns and it ran."""
    from simcuda.faces import native
    if not native.available()[0]:
        pytest.skip(f"native route: {native.available()[1]}")
    if not Path("/usr/local/cuda/include/cccl").is_dir():
        pytest.skip("the CUDA headers (cccl) are not installed")
    assert _run(CORE) == {"query": 600, "held": 0, "query_after": 0, "released": 42}
