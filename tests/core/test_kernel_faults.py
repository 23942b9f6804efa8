"""A Python kernel that fails behaves as a kernel that faults on a GPU (Options.kernel_faults, default sticky)."""
from __future__ import annotations

import pytest

import simcuda
from simcuda import DriverError, Options
from simcuda._core.errors import CUresult

PTX = b""".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{ ret; }
"""


def setup(options=None, body=None):
    """A driver with a context, a stream and kernel ``k(p)`` whose Python body is ``body``."""
    d = simcuda.Driver(options=options)
    d.init(0)
    ctx = d.ctx_create(0, 0)
    s = d.stream_create(1)
    f = d.module_get_function(d.module_load_data(PTX), "k")
    d.kernels["k"] = body
    return d, ctx, s, f


def launch(d, f, s, ptr):
    d.launch_kernel(f, (1, 1, 1), (1, 1, 1), 0, s, [ptr])


@pytest.mark.parametrize("body, code, what", [
    (lambda L: L.array(L.args[0] + 4096, "int32", 1), 700, "accessed memory outside every simulated allocation"),
    (lambda L: (_ for _ in ()).throw(AssertionError("bad")), 710, "failed an assertion"),
    (lambda L: 1 / 0, 719, "raised ZeroDivisionError"),
])
def test_the_launch_succeeds_and_the_context_keeps_the_error(body, code, what):
    """The launch returns; every later call in the context (a sync, an allocation, another launch) answers the
    sticky code, its why naming the kernel and holding its traceback; a new context is spared only after an
    assert (710), as NVIDIA documents 700 and 719 as needing a new process."""
    d, ctx, s, f = setup(body=body)
    p = d.mem_alloc(64)
    launch(d, f, s, p)  # no exception: the fault is the context's now
    for call in (lambda: d.stream_synchronize(s), lambda: d.ctx_synchronize(), lambda: d.mem_alloc(64),
                 lambda: launch(d, f, s, p)):
        with pytest.raises(DriverError) as e:
            call()
        assert int(e.value.code) == code
        assert "the Python kernel 'k' " + what in e.value.why and "Traceback" in e.value.why
    assert d.ctx_get_current() == ctx
    other = d.ctx_create(0, 0)
    assert d.ctx_get_current() == other
    if code == 710:  # an assert spoils its context only: a new one works
        assert d.mem_alloc(64)
    else:  # 700 and 719 spoil the process (every context, new ones too); simcuda.reset() is the new process
        with pytest.raises(DriverError) as e:
            d.mem_alloc(64)
        assert int(e.value.code) == code


def test_a_fault_in_a_graph_replay_is_sticky_too():
    """A kernel node whose Python kernel fails during cuGraphLaunch: the launch returns, the sync answers 719."""
    d, _ctx, s, f = setup(body=lambda L: 1 / 0)
    p = d.mem_alloc(64)
    d.stream_begin_capture(s, 0)
    launch(d, f, s, p)
    g = d.stream_end_capture(s)
    x = d.graph_instantiate(g, 0)
    d.graph_launch(x, s)
    with pytest.raises(DriverError) as e:
        d.stream_synchronize(s)
    assert e.value.code == CUresult.CUDA_ERROR_LAUNCH_FAILED


def test_resetting_the_primary_context_clears_an_assert():
    """cuDevicePrimaryCtxReset is how a program goes on after a failed device assert (710): the primary context
    works again; after a 719 the reset does not help (the process is spoilt)."""
    d = simcuda.Driver()
    d.init(0)
    ctx = d.device_primary_ctx_retain(0)
    d.ctx_set_current(ctx)
    s = d.stream_create(1)
    f = d.module_get_function(d.module_load_data(PTX), "k")
    d.kernels["k"] = lambda L: (_ for _ in ()).throw(AssertionError("bad"))
    launch(d, f, s, 0)
    with pytest.raises(DriverError):
        d.mem_alloc(64)
    d.device_primary_ctx_reset(0)
    assert d.mem_alloc(64) > 0
    s = d.stream_create(1)
    d.kernels["k"] = lambda L: 1 / 0
    launch(d, f, s, 0)
    d.device_primary_ctx_reset(0)
    with pytest.raises(DriverError) as e:
        d.mem_alloc(64)
    assert int(e.value.code) == 719


def test_raise_lets_the_kernels_exception_out_at_once():
    """Options(kernel_faults="raise"): the launch raises the kernel's own exception and the context is clean."""
    d, _ctx, s, f = setup(options=Options(kernel_faults="raise"), body=lambda L: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        launch(d, f, s, 0)
    d.stream_synchronize(s)


def test_the_runtime_last_error_of_a_faulted_context_is_sticky():
    """cudaGetLastError returns the sticky code on every call while the current context has it (not reset)."""
    from simcuda.faces.bindings import driver as cu
    from simcuda.faces.bindings import runtime as rt
    d, _ctx, s, f = setup(body=lambda L: 1 / 0)
    old = simcuda.use(d)
    try:
        launch(d, f, s, 0)
        for _ in range(2):
            assert rt.cudaGetLastError() == (rt.cudaError_t.cudaErrorLaunchFailure,)
        assert cu.cuCtxSynchronize() == (cu.CUresult.CUDA_ERROR_LAUNCH_FAILED,)
    finally:
        simcuda.use(old)
