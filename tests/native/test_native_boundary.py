"""The native route's boundary on bad days (issue 19 items 2, 3, 4): pending exceptions, Ctrl-C, wild pointers,
huge counts, and calls made while the process ends.

Every case runs in a subprocess of its own with a timeout (the library stays loaded for the process, and a
crash, a hang or an abort at exit must fail the test, not the suite). The exception cases use a small C helper
compiled here (with the compiler that built the library), which calls an entry of the library with the GIL held
and a Python exception already set, as cuda.core's C++ code does when it frees a resource while its own
exception propagates.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from simcuda.faces import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

ROUTES = ("python", "native")

#: a module with one kernel ``k(u32 n)``, its Python twin recording ``n`` and raising KeyboardInterrupt (as
#: Ctrl-C does) when ``n == STOP``; ``cu``, ``f`` (the function) and ``s`` (a stream) ready
PRELUDE = r'''
import ctypes, json, os, signal, sys, time
import simcuda
ran = []
STOP = int(os.environ.get("STOP", "-1"))
SIGNAL = os.environ.get("SIGNAL") == "1"

@simcuda.kernel("k")
def k(launch):
    n = launch.args[0]
    ran.append(n)
    if n == STOP:
        if SIGNAL:  # a real SIGINT: Python's handler raises KeyboardInterrupt inside the kernel
            os.kill(os.getpid(), signal.SIGINT)
            t = time.time()
            while time.time() - t < 10:
                pass
        raise KeyboardInterrupt

out = {}
patch = simcuda.patch(route=os.environ["ROUTE"])
drv = patch.__enter__()
from cuda.bindings import driver as cu
cu.cuInit(0)
ctx = cu.cuDevicePrimaryCtxRetain(cu.cuDeviceGet(0)[1])[1]
cu.cuCtxSetCurrent(ctx)
PTX = b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u32 n)\n{ ret; }\n"
f = cu.cuModuleGetFunction(cu.cuModuleLoadData(PTX)[1], b"k")[1]
s = cu.cuStreamCreate(0)[1]

def outcome(call):
    try:
        return [int(x) if isinstance(x, int) or hasattr(x, "value") else str(x) for x in call()][:1]
    except BaseException as e:
        return f"{type(e).__name__}: {e}"
'''


def _run(body: str, route: str = "native", timeout: float = 120, **env: str) -> dict[str, Any]:
    """Run PRELUDE + ``body`` on ``route`` in a fresh interpreter; the ``out`` dict it printed last."""
    script = PRELUDE + textwrap.dedent(body) + "\nprint('OUT=' + json.dumps(out), flush=True)\n"
    full = {k: v for k, v in os.environ.items() if k != "CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM"}
    full.update(env, ROUTE=route)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=full, timeout=timeout)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])


# ------------------------------------------------------------------ item 2: errors are never lost

HELPER = r"""
/* Call a two-argument driver entry with the GIL held (a ctypes PyDLL call) and a RuntimeError already set. */
extern void PyErr_SetString(void *type, const char *message);
extern void *PyExc_RuntimeError;
int call_with_pending(int (*entry)(void *, void *), void *a, void *b, int *rc) {
    PyErr_SetString(PyExc_RuntimeError, "pending before the call");
    *rc = entry(a, b);
    return 0;
}
"""


@pytest.fixture(scope="module")
def helper(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The compiled C helper (skips where no C compiler is on PATH)."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler for the helper")
    d = tmp_path_factory.mktemp("helper")
    (d / "helper.c").write_text(HELPER)
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(d / "helper.so"), str(d / "helper.c")], check=True)
    return str(d / "helper.so")


def test_an_entry_called_with_an_exception_pending_does_its_work_and_keeps_it(helper):
    """cuMemAlloc and cuMemFree called while a Python exception is pending (cuda.core freeing a resource while its
    own exception propagates) still allocate and free, answer 0, and leave the caller's exception as it was:
    the binding then raises that RuntimeError, never ``SystemError: error return without exception set``."""
    out = _run(f"""
        import simcuda.faces.native as native
        h = ctypes.PyDLL({helper!r})
        h.call_with_pending.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
        pfn, st = ctypes.c_void_p(), ctypes.c_int()
        addr = {{}}
        for name, version in (("cuMemAlloc", 3020), ("cuMemFree", 3020)):
            native.load().cuGetProcAddress_v2(name.encode(), ctypes.byref(pfn), 13050, 0, ctypes.byref(st))
            addr[name] = pfn.value
        dptr, rc = ctypes.c_uint64(), ctypes.c_int(-1)
        try:
            h.call_with_pending(addr["cuMemAlloc"], ctypes.addressof(dptr), 256, ctypes.byref(rc))
            out["alloc"] = "no exception"
        except BaseException as e:
            out["alloc"] = f"{{type(e).__name__}}: {{e}}"
        out["alloc_rc"] = rc.value
        out["allocated"] = drv.memory.find(dptr.value) is not None
        try:
            h.call_with_pending(addr["cuMemFree"], dptr.value, None, ctypes.byref(rc))
            out["free"] = "no exception"
        except BaseException as e:
            out["free"] = f"{{type(e).__name__}}: {{e}}"
        out["free_rc"] = rc.value
        out["freed"] = drv.memory.find(dptr.value) is None
        out["internal"] = [r.call for r in drv.error_log if r.internal]
    """)
    assert out == {"alloc": "RuntimeError: pending before the call", "alloc_rc": 0, "allocated": True,
                   "free": "RuntimeError: pending before the call", "free_rc": 0, "freed": True, "internal": []}


@pytest.mark.parametrize("route", ROUTES)
def test_keyboard_interrupt_in_a_python_kernel_reaches_the_caller(route):
    """A KeyboardInterrupt raised in a Python kernel reaches the code that called cuLaunchKernel as itself, on both
    routes (``except KeyboardInterrupt`` runs; the native route answered 719 or garbage before), the same launch
    again (the launch memo's path) too, and the driver stays usable (P-71 (5): no sticky error for a launch)."""
    out = _run("""
        kp = ((0,), (ctypes.c_uint,))
        out["first"] = outcome(lambda: cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, kp, 0))
        out["again"] = outcome(lambda: cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, kp, 0))
        out["other"] = outcome(lambda: cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, ((5,), (ctypes.c_uint,)), 0))
        out["sync"] = outcome(lambda: cu.cuStreamSynchronize(s))
        out["ran"] = ran
    """, route, STOP="0")
    assert out == {"first": "KeyboardInterrupt: ", "again": "KeyboardInterrupt: ", "other": [0], "sync": [0],
                   "ran": [0, 0, 5]}


@pytest.mark.parametrize("route", ROUTES)
def test_ctrl_c_in_a_graph_replay_reaches_the_caller_and_the_context_reports_it(route):
    """A real SIGINT while node 2 of a 4-kernel graph replays: cuGraphLaunch raises KeyboardInterrupt on both
    routes, nodes 3 and 4 never run, and the stream does not report idle as though the replay completed: its
    context has the sticky CUDA_ERROR_LAUNCH_FAILED (719) of an interrupted replay (P-77), which resetting the
    primary context clears."""
    out = _run("""
        cu.cuStreamBeginCapture(s, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL)
        for i in range(4):
            cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, ((i,), (ctypes.c_uint,)), 0)
        x = cu.cuGraphInstantiate(cu.cuStreamEndCapture(s)[1], 0)[1]
        out["launch"] = outcome(lambda: cu.cuGraphLaunch(x, s))
        out["ran"] = list(ran)
        out["sync"] = outcome(lambda: cu.cuStreamSynchronize(s))
        out["query"] = outcome(lambda: cu.cuStreamQuery(s))
        why = [r.why for r in drv.error_log if r.call == "cuStreamSynchronize"]
        out["why"] = "interrupted (KeyboardInterrupt)" in why[-1]
        dev = cu.cuDeviceGet(0)[1]
        out["reset"] = outcome(lambda: cu.cuDevicePrimaryCtxReset(dev))
        cu.cuCtxSetCurrent(cu.cuDevicePrimaryCtxRetain(dev)[1])
        out["after_reset"] = outcome(lambda: cu.cuCtxSynchronize())
    """, route, STOP="2", SIGNAL="1")
    assert out == {"launch": "KeyboardInterrupt: ", "ran": [0, 1, 2], "sync": [719], "query": [719], "why": True,
                   "reset": [0], "after_reset": [0]}


# ------------------------------------------------------------------ item 3: check first, never crash or hang

def test_kernel_params_no_process_can_read_are_refused_on_the_native_route():
    """A ``kernelParams`` address (or an argument pointer in it) in the first 64 KiB or past the user address space
    is CUDA_ERROR_INVALID_VALUE on the native route, before anything reads it (it was a segfault), on the
    adapter's path and on the launch memo's (after a good launch of the same function); the good launch runs."""
    out = _run("""
        good = outcome(lambda: cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, ((7,), (ctypes.c_uint,)), 0))
        out["wild"] = [outcome(lambda: cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, kp, 0))
                       for kp in (1, 0x10, 0xFFFF, 1 << 60, (1 << 64) - 8)]
        items = (ctypes.c_void_p * 1)(0x20)
        out["item"] = outcome(lambda: cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, ctypes.addressof(items), 0))
        high = (ctypes.c_void_p * 1)(1 << 62)
        out["high"] = outcome(lambda: cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, ctypes.addressof(high), 0))
        out["good"] = [good, outcome(lambda: cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, ((8,), (ctypes.c_uint,)),
                                                                0))]
        out["ran"] = ran
    """)
    assert out == {"wild": [[1]] * 5, "item": [1], "high": [1], "good": [[0], [0]], "ran": [7, 8]}


@pytest.mark.parametrize("route", ROUTES)
def test_huge_counts_with_null_arrays_are_refused_at_once(route):
    """cuGraphAddDependencies / cuGraphRemoveDependencies with NULL lists and a count of 2**31, and
    cuStreamUpdateCaptureDependencies with a NULL list during a capture: INVALID_VALUE at once on both routes
    (NVIDIA's wrapper passes None and the count through; the native route built a 2**31-item list first and
    did not answer), and the capture goes on."""
    out = _run("""
        t = time.time()
        g = cu.cuGraphCreate(0)[1]
        n = 1 << 31
        out["add"] = outcome(lambda: cu.cuGraphAddDependencies(g, None, None, None, n))
        out["remove"] = outcome(lambda: cu.cuGraphRemoveDependencies(g, None, None, None, n))
        cu.cuStreamBeginCapture(s, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL)
        out["update"] = outcome(lambda: cu.cuStreamUpdateCaptureDependencies(s, None, None, n, 0))
        out["capturing"] = int(cu.cuStreamIsCapturing(s)[1])
        cu.cuStreamEndCapture(s)
        out["fast"] = time.time() - t < 20
    """, route, timeout=60)
    assert out == {"add": [1], "remove": [1], "update": [1], "capturing": 1, "fast": True}


# ------------------------------------------------------------------ item 4: exit

def test_an_atexit_hook_after_shutdown_gets_deinitialized():
    """An atexit hook registered before the library loaded runs after simcuda's shutdown: its cuMemAlloc answers
    CUDA_ERROR_DEINITIALIZED (4), as the real driver answers during shutdown, not a NULL pointer with success;
    its cuMemFree of an earlier allocation answers 0 (a release: what the process frees goes with it, P-78)."""
    script = textwrap.dedent("""
        import atexit, simcuda
        kept = []
        def late():
            from cuda.bindings import driver as cu
            err, ptr = cu.cuMemAlloc(64)
            print("ATEXIT", int(err), ptr, int(cu.cuMemFree(kept[0])[0]), flush=True)
        atexit.register(late)
        with simcuda.patch(route="native"):
            from cuda.bindings import driver as cu
            cu.cuInit(0)
            cu.cuCtxSetCurrent(cu.cuDevicePrimaryCtxRetain(cu.cuDeviceGet(0)[1])[1])
            err, ptr = cu.cuMemAlloc(64)
            kept.append(ptr)
            print("ALLOC", int(err), flush=True)
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["ALLOC", "0", "ATEXIT", "4", "None", "0"], r.stdout + r.stderr


MINIMAL_EXIT = """
import threading, simcuda
simcuda.patch(route="native").__enter__()
from cuda.core import Device
def work():
    d = Device()
    d.set_current()
    s = d.create_stream()
    b = d.allocate(64, stream=s)
    s.sync()
ts = [threading.Thread(target=work) for _ in range(THREADS)]
for t in ts:
    t.start()
for t in ts:
    t.join()
"""


def test_threads_that_used_cuda_core_never_abort_the_exit():
    """30 runs of threads that used cuda.core and exit while cuda.core's thread-local C++ destructors call into the
    library as Python finalizes: every run exits 0 (1 in 30 minimal runs aborted with rc 134, "FATAL: exception
    not rethrown", when a destructor took the GIL during finalization)."""
    pytest.importorskip("cuda.core")
    codes = []
    for _batch in range(10):  # three at a time, each with its timeout
        runs = [subprocess.Popen([sys.executable, "-c", MINIMAL_EXIT.replace("THREADS", "8" if k else "1")],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for k in range(3)]
        for r in runs:
            try:
                _, err = r.communicate(timeout=180)
            except subprocess.TimeoutExpired:
                r.kill()
                _, err = r.communicate()
            codes.append((r.returncode, err[-300:]))
    assert [c for c, _ in codes] == [0] * 30, [c for c in codes if c[0]]
