"""A child forked from a process that used a simulated driver (issue 19 item 5; docs/spec-proposals.md P-80).

NVIDIA documents that CUDA does not support ``fork()`` after initialisation: the child cannot use the parent's
contexts, devices or memory (cuda-python PR #1309); in such children the runtime reports
cudaErrorInitializationError (3). The simulated child answers CUDA_ERROR_NOT_INITIALIZED (3) to every call to
the parent's driver, ``cuInit`` included [I: the driver's code inferred from the runtime's], at once, even when
another thread was inside the driver at the fork (it blocked forever on the driver lock before); a new driver
made in the child works. Each case runs in a subprocess of its own, with a timeout.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

PRELUDE = '''
import os, sys, threading, time
import simcuda
from simcuda.faces.bindings import driver as cu
d = simcuda.Driver()
simcuda.use(d)
cu.cuInit(0)
_, dev = cu.cuDeviceGet(0)
_, ctx = cu.cuDevicePrimaryCtxRetain(dev)
cu.cuCtxSetCurrent(ctx)
_, s = cu.cuStreamCreate(0)
_, p = cu.cuMemAlloc(64)

def child_checks():
    out = [int(cu.cuStreamSynchronize(s)[0]), int(cu.cuInit(0)[0]), int(cu.cuMemAlloc(64)[0]),
           int(cu.cuCtxSynchronize()[0]), int(cu.cuDriverGetVersion()[0])]
    why = d.last_error().why
    d2 = simcuda.Driver()
    d2.init(0)
    d2.ctx_create(0, 0)
    q = d2.mem_alloc(64)
    print("CHILD", out, "fork()" in why and "[I" in why, q != 0, flush=True)
    os._exit(0)

def fork_and_wait():
    pid = os.fork()
    if pid == 0:
        child_checks()
    _, status = os.waitpid(pid, 0)
    print("PARENT", os.waitstatus_to_exitcode(status), int(cu.cuStreamSynchronize(s)[0]), flush=True)
'''

CHILD_LINE = "CHILD [3, 3, 3, 3, 0] True True"


def run(body: str) -> str:
    r = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(body)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout


def test_the_child_of_a_fork_gets_not_initialized_and_the_parent_goes_on():
    """A plain fork after initialisation: every call of the child to the parent's driver answers 3 (cuInit too;
    cuDriverGetVersion, which needs no initialisation, still answers), with a why naming fork; a new driver in
    the child works; the parent's driver is unchanged."""
    out = run("fork_and_wait()\n")
    assert CHILD_LINE in out and "PARENT 0 0" in out, out


def test_a_thread_holding_the_driver_lock_at_the_fork_does_not_block_the_child():
    """Another thread is inside a driver entry (a hook of cuStreamQuery, which runs under the driver's lock) at
    the fork: the child's calls answer 3 at once instead of waiting forever for a lock whose holder does not
    exist in the child."""
    out = run('''
        inside, release = threading.Event(), threading.Event()
        def hold(*_a):
            inside.set()
            release.wait(30)
        d.add_hook("stream_query", before=hold)
        t = threading.Thread(target=lambda: cu.cuStreamQuery(s))
        t.start()
        assert inside.wait(10)
        pid = os.fork()
        if pid == 0:
            child_checks()
        release.set()
        t.join(10)
        _, status = os.waitpid(pid, 0)
        print("PARENT", os.waitstatus_to_exitcode(status), int(cu.cuStreamSynchronize(s)[0]), flush=True)
    ''')
    assert CHILD_LINE in out and "PARENT 0 0" in out, out


def test_a_thread_inside_a_host_function_at_the_fork_does_not_block_the_child():
    """Another thread runs a host function of the stream (user code the driver called; a third thread waits in
    cuStreamSynchronize) at the fork: the child answers 3 at once."""
    out = run('''
        inside, release = threading.Event(), threading.Event()
        import ctypes
        def py(_data):
            inside.set()
            release.wait(30)
        thunk = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(py)
        fn = ctypes.cast(thunk, ctypes.c_void_p).value
        def launch():
            cu.cuCtxSetCurrent(ctx)
            cu.cuLaunchHostFunc(s, fn, None)
        t = threading.Thread(target=launch)
        t.start()
        assert inside.wait(10)
        w = threading.Thread(target=lambda: (cu.cuCtxSetCurrent(ctx), cu.cuStreamSynchronize(s)))
        w.start()
        time.sleep(0.1)
        pid = os.fork()
        if pid == 0:
            child_checks()
        release.set()
        t.join(10)
        w.join(10)
        _, status = os.waitpid(pid, 0)
        print("PARENT", os.waitstatus_to_exitcode(status), int(cu.cuStreamSynchronize(s)[0]), flush=True)
    ''')
    assert CHILD_LINE in out and "PARENT 0 0" in out, out


def test_threads_holding_simcudas_module_locks_at_the_fork_do_not_block_the_child():
    """Other threads hold simcuda's module locks (the patch's, the current driver's, the native library's,
    the compiler shims', the remembered PTX's, a face's per-driver state) at the fork: in the child a new
    driver is made current, patched and used at once (each lock is made anew there)."""
    out = run('''
        from simcuda import _patch, _state, faults
        from simcuda._core.modules import module_model
        from simcuda.faces import native
        from simcuda.faces.native import compilers, kernel_args, nvml
        from simcuda.faces.bindings import runtime as rt  # noqa: F401  (its per-driver state)
        locks = [_patch._lock, _state._lock, module_model._REMEMBERED_LOCK, native._lock, compilers._lock,
                 nvml._lock, kernel_args._lock, faults._gate_lock] + [pd._lock for pd in list(_state._PER_DRIVER)]
        held, release = threading.Event(), threading.Event()
        def hold():
            for lk in locks:
                lk.acquire()
            held.set()
            release.wait(30)
            for lk in reversed(locks):
                lk.release()
        t = threading.Thread(target=hold)
        t.start()
        assert held.wait(10)
        pid = os.fork()
        if pid == 0:
            d2 = simcuda.Driver()
            with simcuda.patch(d2, route="python"):
                from cuda.bindings import driver as cd, runtime as crt
                codes = [int(cd.cuInit(0)[0]), int(crt.cudaMalloc(64)[0]), int(crt.cudaDeviceSynchronize()[0])]
            print("CHILD", codes, len(locks) > 8, flush=True)
            os._exit(0)
        release.set()
        t.join(10)
        _, status = os.waitpid(pid, 0)
        print("PARENT", os.waitstatus_to_exitcode(status), int(cu.cuStreamSynchronize(s)[0]), flush=True)
    ''')
    assert "CHILD [0, 0, 0] True" in out and "PARENT 0 0" in out, out


NATIVE_FORK = '''
import os, sys, threading
import simcuda
from simcuda.faces import native
d = simcuda.Driver()
with simcuda.patch(d, route="native"):
    from cuda.bindings import driver as cu
    cu.cuInit(0)
    _, dev = cu.cuDeviceGet(0)
    _, ctx = cu.cuDevicePrimaryCtxRetain(dev)
    cu.cuCtxSetCurrent(ctx)
    _, s = cu.cuStreamCreate(0)
    inside, release = threading.Event(), threading.Event()
    def hold(*_a):
        inside.set()
        release.wait(30)
    d.add_hook("stream_query", before=hold)
    t = threading.Thread(target=lambda: (cu.cuCtxSetCurrent(ctx), cu.cuStreamQuery(s)))
    t.start()
    assert inside.wait(10)
    pid = os.fork()
    if pid == 0:
        out = [int(cu.cuStreamSynchronize(s)[0]), int(cu.cuInit(0)[0]), int(cu.cuMemAlloc(64)[0]),
               int(cu.cuCtxSynchronize()[0])]
        why = d.last_error().why
        simcuda.use(simcuda.Driver())   # a new driver in the child, through NVIDIA's binding
        fresh = [int(cu.cuInit(0)[0]), int(cu.cuDevicePrimaryCtxRetain(dev)[0])]
        _, ctx2 = cu.cuDevicePrimaryCtxRetain(dev)
        cu.cuCtxSetCurrent(ctx2)
        err, p = cu.cuMemAlloc(64)
        fresh += [int(err), int(cu.cuMemsetD8(p, 7, 64)[0]), int(cu.cuCtxSynchronize()[0])]
        print("CHILD", out, "fork()" in why, fresh, cu.__name__, flush=True)
        os._exit(0)
    release.set()
    t.join(10)
    _, status = os.waitpid(pid, 0)
    d.remove_hook("stream_query", before=hold)
    print("PARENT", os.waitstatus_to_exitcode(status), int(cu.cuStreamSynchronize(s)[0]), flush=True)
'''


def test_a_fork_on_the_native_route_answers_not_initialized_and_a_new_driver_works():
    """On the native route (NVIDIA's binding over the simulated library), with another thread inside the
    driver at the fork: the child's calls to the parent's driver answer 3 at once through NVIDIA's binding,
    with the fork why; a new driver made current in the child serves NVIDIA's binding; the parent goes on."""
    from simcuda.faces import native
    if not native.available()[0]:
        pytest.skip(f"native route: {native.available()[1]}")
    r = subprocess.run([sys.executable, "-c", NATIVE_FORK], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "CHILD [3, 3, 3, 3] True [0, 0, 0, 0, 0] cuda.bindings.driver" in r.stdout, r.stdout + r.stderr[-2000:]
    assert "PARENT 0 0" in r.stdout, r.stdout
