"""The library's launch memo (simcuda/faces/native/libcuda.c, "the launch memo"; simcuda/faces/native/adapters.py,
``_launch_kernel``): a ``cuLaunchKernel`` whose arguments are, bit for bit, the same thread's last successful
call is answered through the adapter's ``repeat`` function, which makes the same core call again.

The memo must change nothing but the cost: the same script runs on the native route with the memo
(``SIMCUDA_NATIVE_MEMO=1``, the default) and without it (``=0``), in subprocesses of their own, and everything
it observes (each call's code, the graphs' nodes and their arguments, what Python kernels saw) must be the
same, while the library's hit counter shows the memo answered the repeats (and only with it on).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from simcuda.faces import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

#: prepended to every script: ``c(result)`` checks a call's CUresult and returns its outputs; ``ready(d)``
#: initialises NVIDIA's binding ``d`` and makes device 0's primary context current on this thread
PRELUDE = r'''
def c(r):
    assert int(r[0]) == 0, r
    return r[1] if len(r) == 2 else r[1:]

def ready(d):
    c(d.cuInit(0))
    c(d.cuCtxSetCurrent(c(d.cuDevicePrimaryCtxRetain(c(d.cuDeviceGet(0))))))
'''


def _out(script: str, memo: str = "1", timeout: float = 180) -> dict:
    """Run :data:`PRELUDE` and ``script`` in a fresh interpreter with ``SIMCUDA_NATIVE_MEMO=memo``; the JSON of
    its ``OUT=`` line."""
    env = {**os.environ, "SIMCUDA_NATIVE_MEMO": memo}
    r = subprocess.run([sys.executable, "-c", PRELUDE + script], capture_output=True, text=True, env=env,
                       timeout=timeout)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])


SCRIPT = r'''
import ctypes, json, math, threading, simcuda
from simcuda.faces import native

PTX = b""".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 n, .param .f32 x)
{ ret; }
.visible .entry bump(.param .u64 p, .param .u32 n, .param .f32 x)
{ ret; }
.visible .entry wide(""" + b", ".join(b".param .u32 a%d" % i for i in range(40)) + b""")
{ ret; }
"""
seen = []

@simcuda.kernel("bump")
def bump(launch):
    ptr, n, x = launch.args
    seen.append([n, x])
    a = launch.array(ptr, "uint32", 1)
    a[0] += n

log = []
def rec(tag, r):
    log.append([tag, int(r[0])])
    return r

def signs(xs, dptr):
    return ["dptr" if a == dptr else ([a, math.copysign(1.0, a)] if isinstance(a, float) else a) for a in xs]

with simcuda.patch(route="native") as drv:
    from cuda.bindings import driver as d
    ready(d)
    mod = c(d.cuModuleLoadData(PTX))
    f, fb, fw = (c(d.cuModuleGetFunction(mod, n)) for n in (b"k", b"bump", b"wide"))
    mod2 = c(d.cuModuleLoadData(PTX)); f2 = c(d.cuModuleGetFunction(mod2, b"k"))
    dptr = c(d.cuMemAlloc(64)); c(d.cuMemsetD8(dptr, 0, 64))
    s, s2, s3 = (c(d.cuStreamCreate(1)) for _ in range(3))
    T = (None, ctypes.c_uint, ctypes.c_float)
    def L(fn, st, vals, grid=1, shmem=0, extra=0):
        return d.cuLaunchKernel(fn, grid, 1, 1, 32, 1, 1, shmem, st, ((dptr, *vals), T), extra)

    c(d.cuStreamBeginCapture(s, 0)); c(d.cuStreamBeginCapture(s2, 0))
    for i in range(4):
        rec("same", L(f, s, (7, 1.5)))
    rec("other bytes", L(f, s, (8, 1.5))); rec("again", L(f, s, (8, 1.5)))
    rec("-0.0", L(f, s, (8, -0.0))); rec("0.0", L(f, s, (8, 0.0))); rec("again", L(f, s, (8, 0.0)))
    rec("other grid", L(f, s, (8, 0.0), grid=2)); rec("again", L(f, s, (8, 0.0), grid=2))
    rec("other stream", L(f, s2, (8, 0.0), grid=2)); rec("again", L(f, s2, (8, 0.0), grid=2))
    rec("back", L(f, s, (8, 0.0), grid=2))
    rec("too much shared memory", L(f, s, (8, 0.0), shmem=1 << 20)); rec("again", L(f, s, (8, 0.0), shmem=1 << 20))
    n, x = ctypes.c_uint(9), ctypes.c_float(2.5)
    arr = (ctypes.c_void_p * 3)(None, ctypes.addressof(n), ctypes.addressof(x))  # a NULL item: read as 0
    for _ in range(2):
        rec("null item", d.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, ctypes.addressof(arr), 0))
    for _ in range(2):
        rec("extra too", L(f, s, (1, 1.0), extra=ctypes.addressof(arr)))
    WT = (ctypes.c_uint,) * 40
    for _ in range(3):
        rec("wide (not remembered)", d.cuLaunchKernel(fw, 1, 1, 1, 32, 1, 1, 0, s, (tuple(range(40)), WT), 0))
    gs = [c(d.cuStreamEndCapture(st)) for st in (s, s2)]

    # outside a capture: a Python kernel runs at every launch, repeats included
    for _ in range(3):
        rec("bump", d.cuLaunchKernel(fb, 1, 1, 1, 1, 1, 1, 0, s3, ((dptr, 5, 0.5), T), 0))
    c(d.cuStreamSynchronize(s3))
    host = (ctypes.c_uint32 * 1)()
    c(d.cuMemcpyDtoH(host, dptr, 4))
    # what the repeated call names is gone: the core's answer, as for any launch
    rec("f2", L(f2, s3, (1, 1.0))); rec("f2 again", L(f2, s3, (1, 1.0)))
    c(d.cuModuleUnload(mod2))
    rec("f2 unloaded", L(f2, s3, (1, 1.0)))
    rec("s3", L(f, s3, (1, 1.0))); rec("s3 again", L(f, s3, (1, 1.0)))
    c(d.cuStreamDestroy(s3))
    rec("s3 destroyed", L(f, s3, (1, 1.0)))

    # two threads, each capturing its own stream (thread-local mode), launching the same function with
    # arguments of their own in turns: each thread's repeats are its own
    barrier = threading.Barrier(2)
    per_thread = {}
    def worker(tag, val):
        ready(d)
        st = c(d.cuStreamCreate(1))
        c(d.cuStreamBeginCapture(st, 1))
        codes = []
        for i in range(6):
            barrier.wait()
            codes.append(int(L(f, st, (val, float(i // 2)))[0]))
        g = c(d.cuStreamEndCapture(st))
        per_thread[tag] = [codes, [signs(nd.params.args, int(dptr)) for nd in drv.handles.graph(int(g)).live_nodes()]]
    ts = [threading.Thread(target=worker, args=(t, v)) for t, v in (("a", 100), ("b", 200))]
    for t in ts: t.start()
    for t in ts: t.join()

    graphs = []
    for g in gs:
        nodes = drv.handles.graph(int(g)).live_nodes()
        graphs.append([[signs(nd.params.args, int(dptr)), list(nd.params.grid)] for nd in nodes])
    out = {"log": log, "graphs": graphs, "seen": seen, "bumped": host[0], "threads": per_thread,
           "hits": native.memo_hits()}

    # a new driver: the repeated call's handles are another driver's now
    s4 = c(d.cuStreamCreate(1))
    rec("before reset", L(f, s4, (3, 3.0))); rec("again", L(f, s4, (3, 3.0)))
    simcuda.reset()
    rec("after reset", L(f, s4, (3, 3.0)))
    out["after_reset"] = log[-1]
print("OUT=" + json.dumps(out))
'''


def test_the_memo_changes_nothing_but_who_answers():
    """With and without the memo, the same codes, graphs, arguments and kernel runs; with it, the repeats
    were answered by the repeat function, without it none was."""
    on, off = _out(SCRIPT, "1"), _out(SCRIPT, "0")
    hits_on, hits_off = on.pop("hits"), off.pop("hits")
    assert on == off
    assert hits_off == 0
    # the calls that repeat the same thread's last successful one, the memo keeping a function's launches from
    # its second (the first registers its layout): 2 "same"; the "again" after "other bytes", "0.0", "other
    # grid" and "other stream"; 1 "bump"; "f2 unloaded", "s3 again" and "s3 destroyed" (the unloaded and the
    # destroyed answered with the core's error); 3 in each thread (its second launch of each value). Not: a
    # failed call's repeat, a NULL item, a non-NULL extra, a 40-parameter kernel.
    assert hits_on == 2 + 4 + 1 + 3 + 6
    codes = dict((tag, code) for tag, code in on["log"])
    assert codes["same"] == codes["again"] == codes["bump"] == 0
    assert codes["too much shared memory"] == 1 and codes["extra too"] == 1
    assert codes["f2 unloaded"] == 400 and codes["s3 destroyed"] == 709  # spec 3 preamble: a destroyed stream
    assert on["after_reset"][1] != 0  # the core's answer for another driver's handles (not initialised: 3)
    g, g2 = on["graphs"]
    assert [a for a, _grid in g[:4]] == [["dptr", 7, [1.5, 1.0]]] * 4
    assert [a for a, _grid in g[4:9]] == [["dptr", 8, [1.5, 1.0]]] * 2 + [["dptr", 8, [0.0, -1.0]]] + \
        [["dptr", 8, [0.0, 1.0]]] * 2
    assert [grid for _a, grid in g[9:12]] == [[2, 1, 1]] * 3
    assert g2 == [[["dptr", 8, [0.0, 1.0]], [2, 1, 1]]] * 2
    assert [a for a, _grid in g[12:14]] == [[0, 9, [2.5, 1.0]]] * 2
    assert [a for a, _grid in g[14:]] == [list(range(40))] * 3
    assert on["seen"] == [[5, 0.5]] * 3 and on["bumped"] == 15
    for tag, val in (("a", 100), ("b", 200)):
        codes_t, args_t = on["threads"][tag]
        assert codes_t == [0] * 6
        assert args_t == [["dptr", val, [float(i // 2), 1.0]] for i in range(6)]


STORAGE = r'''
import ctypes, json, threading, simcuda
from simcuda.faces import native
PTX = b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u32 n)\n{ ret; }\n"
n = ctypes.c_uint32(1)  # the storage kernelParams[0] points at
seen, mode = [], {"bump": False, "race": False}
inside, changed = threading.Event(), threading.Event()

@simcuda.kernel("k")
def k(launch):
    seen.append(launch.args[0])
    if mode["bump"]:
        n.value += 1  # the next launch's value, written during this one
    if mode["race"]:
        mode["race"] = False
        inside.set()
        changed.wait(10)  # another thread writes the storage while this launch runs

def writer():
    inside.wait(10)
    n.value = 10
    changed.set()

with simcuda.patch(route="native"):
    from cuda.bindings import driver as d
    ready(d)
    f = c(d.cuModuleGetFunction(c(d.cuModuleLoadData(PTX)), b"k"))
    kp = (ctypes.c_void_p * 1)(ctypes.addressof(n))
    L = lambda: c(d.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, ctypes.addressof(kp), 0))
    for _ in range(3):
        L()
    mode["bump"] = True
    for _ in range(3):
        L()
    mode["bump"], mode["race"] = False, True
    t = threading.Thread(target=writer)
    t.start()
    L()  # n is 4 when called; 10 once it returns
    t.join()
    L()
    print("OUT=" + json.dumps({"seen": seen, "hits": native.memo_hits()}))
'''


def test_a_launch_reads_its_arguments_when_called():
    """The memo takes the argument bytes before the adapter decodes them, and the adapter decodes that copy:
    a Python kernel that writes its own argument's storage, or another thread writing it during a launch,
    leaves the next launch with the new value, as without the memo (found by a fresh tester: the memo once
    took the bytes after the launch and paired them with the values read before)."""
    on, off = _out(STORAGE, "1", 60), _out(STORAGE, "0", 60)
    assert on["seen"] == off["seen"] == [1, 1, 1, 1, 2, 3, 4, 10]
    assert off["hits"] == 0 and on["hits"] == 2  # the third and fourth launches of 1


KEEP = r'''
import ctypes, gc, json, simcuda
from simcuda.faces import native
from simcuda.faces.native import _keep, index_of, set_entry
PTX = b""".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u32 n)
{ ret; }
"""
with simcuda.patch(route="native"):
    from cuda.bindings import driver as d
    ready(d)
    f = c(d.cuModuleGetFunction(c(d.cuModuleLoadData(PTX)), b"k"))
    s = c(d.cuStreamCreate(1))
    i = index_of("cuLaunchKernel", 4000)
    entry = _keep[(i, False)]
    L = lambda: int(d.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, ((5,), (ctypes.c_uint,)), 0)[0])
    codes = [L(), L()]
    set_entry(i, False, None)  # the stub in the entry's slot: the memo's callbacks must stay alive
    gc.collect()
    codes.append(L())
    set_entry(i, False, entry)
    gc.collect()
    codes += [L(), L()]
    print("OUT=" + json.dumps({"codes": codes, "hits": native.memo_hits()}))
'''


def test_the_memo_outlives_its_entry_slot():
    """Putting another function in the entry's slot and the memo's entry back leaves the memo's callbacks
    alive (a freed ctypes callback would crash the process): the stub answers 801 meanwhile, and the memo
    answers repeats again afterwards (the launch after it is a repeat of the one before the stub: the stub's
    801 went past the memo; the first launch registered the function's layout, the second was kept)."""
    out = _out(KEEP, timeout=60)
    assert out == {"codes": [0, 0, 801, 0, 0], "hits": 2}


LAYOUTS = r'''
import ctypes, json
from simcuda.faces import native
lib = native.load()
out = {
    "zero handle": native.set_layout(0, 1, [8]),
    "33 items": native.set_layout(0x1000, 2, [4] * 33),
    "513 bytes": native.set_layout(0x1000, 3, [513]),
    "32 items, 512 bytes": native.set_layout(0x1000, 4, [16] * 32),
    "a 70000-byte item": native.set_layout(0x2000, 6, [70000]),
    "forget": native.set_layout(0x1000, 5, None),
    "miss": lib.simcuda_memo_miss(),
    "slots": lib.simcuda_memo_slots(),
    "refused slot": lib.simcuda_launch_memo(2, 1, 1),
    "null function": lib.simcuda_launch_memo(0, None, 1),
}
print("OUT=" + json.dumps(out))
'''


def test_what_the_layout_table_keeps():
    """A layout of a NULL handle, more than 32 items or more than 512 bytes (an item too big for the C side's
    sizes included) is not kept (its launches are
    answered in full), nor a memo slot out of range or with a NULL function; the miss answer is -1."""
    out = _out(LAYOUTS, timeout=60)
    assert out == {"zero handle": False, "33 items": False, "513 bytes": False, "32 items, 512 bytes": True,
                   "a 70000-byte item": False, "forget": False, "miss": native.MEMO_MISS, "slots": 2,
                   "refused slot": None, "null function": None}
