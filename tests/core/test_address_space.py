"""One address space per driver (``simcuda._core.process``): lazily backed, never reused, recognised across
drivers; handles in per-driver ranges; the host budget."""
from __future__ import annotations

import ctypes
import json
import subprocess
import sys
import textwrap

import pytest

import simcuda
from simcuda import Driver, DriverError, Options
from simcuda._core import process
from simcuda._core.process import SPACE
from simcuda.faces.bindings import driver as cu

from .conftest import ready

SUCCESS = cu.CUresult.CUDA_SUCCESS

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="lazily backed mappings: Linux")


def run_child(code: str) -> dict:
    """Run ``code`` in a fresh interpreter (a crash fails the test, not the run); it prints one JSON line."""
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"child exited {out.returncode}: {out.stderr[-2000:]}"
    return json.loads(out.stdout.strip().splitlines()[-1])


def fresh() -> Driver:
    """An initialised driver with a context, current for the faces."""
    d = simcuda.reset()
    assert cu.cuInit(0) == (SUCCESS,)
    assert cu.cuCtxCreate(None, 0, 0)[0] == SUCCESS
    return d


@linux_only
def test_untouched_allocations_cost_no_memory():
    """Eight untouched 2 GiB device allocations raise the peak RSS of a fresh process by less than 100 MB."""
    r = run_child("""
        import json, resource
        import simcuda
        from simcuda.faces.bindings import driver as cu
        simcuda.use(simcuda.Driver(options=simcuda.Options(host_memory_budget=1 << 40)))
        cu.cuInit(0); cu.cuCtxCreate(None, 0, 0)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        codes = [int(cu.cuMemAlloc(2 << 30)[0]) for _ in range(8)]
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        free, total = cu.cuMemGetInfo()[1:]
        print(json.dumps({"codes": codes, "grew_kb": after - before, "used": total - free}))
    """)
    assert r["codes"] == [0] * 8
    assert r["used"] == 8 * (2 << 30)
    assert r["grew_kb"] < 100 * 1024


@linux_only
def test_freed_memory_gives_its_pages_back():
    """Touching 256 MiB of device memory backs it; cuMemFree gives the pages back (current RSS falls again)."""
    r = run_child("""
        import json
        import simcuda
        from simcuda.faces.bindings import driver as cu
        def rss():
            with open("/proc/self/statm") as f:
                return int(f.read().split()[1]) * 4096
        cu.cuInit(0); cu.cuCtxCreate(None, 0, 0)
        n = 256 << 20
        _, p = cu.cuMemAlloc(n)
        base = rss()
        cu.cuMemsetD8(p, 7, n)
        touched = rss()
        code = int(cu.cuMemFree(p)[0])
        print(json.dumps({"base": base, "touched": touched, "after": rss(), "code": code}))
    """)
    assert r["code"] == 0
    assert r["touched"] - r["base"] > 200 << 20
    assert r["after"] - r["base"] < 32 << 20


@linux_only
def test_managed_memory_is_host_accessible():
    """A host write to managed memory through ctypes is read back by cuMemcpyDtoH, and a copy into it is seen
    through ctypes (in a subprocess, so a crash fails this test instead of the run)."""
    r = run_child("""
        import ctypes, json
        from simcuda.faces.bindings import driver as cu
        cu.cuInit(0); cu.cuCtxCreate(None, 0, 0)
        err, m = cu.cuMemAllocManaged(64, cu.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL)
        addr = int(m)
        ctypes.memmove(addr, b"written by the host", 19)
        out = bytearray(19)
        code = int(cu.cuMemcpyDtoH(out, m, 19)[0])
        cu.cuMemcpyHtoD(addr + 32, b"copied", 6)
        back = ctypes.string_at(addr + 32, 6)
        print(json.dumps({"alloc": int(err), "code": code, "out": out.decode(), "back": back.decode()}))
    """)
    assert r == {"alloc": 0, "code": 0, "out": "written by the host", "back": "copied"}


def test_python_kernel_sees_the_bytes_the_host_wrote_to_managed_memory():
    """A Python kernel's launch.view over managed memory reads what the host wrote through the address."""
    d = fresh()
    _, m = cu.cuMemAllocManaged(16, 1)
    ctypes.memmove(int(m), b"0123456789abcdef", 16)
    seen = []
    d.kernels["peek"] = lambda launch: seen.append(bytes(launch.view(launch.args[0], 16)))
    _, mod = cu.cuModuleLoadData(b".visible .entry peek(.param .u64 p)\n")
    _, f = cu.cuModuleGetFunction(mod, b"peek")
    assert cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, ((int(m),), (ctypes.c_void_p,)), 0) == (SUCCESS,)
    assert seen == [b"0123456789abcdef"]


def test_stale_stream_and_pointer_of_an_earlier_driver_are_refused():
    """A stream and a device pointer kept from an earlier Driver are refused by the next one (400 and 1, each
    why naming the driver they came from), and the new driver's own stream and allocation are untouched."""
    old = fresh()
    _, s_old = cu.cuStreamCreate(0)
    _, p_old = cu.cuMemAlloc(4096)
    new = fresh()
    _, s_new = cu.cuStreamCreate(0)
    _, p_new = cu.cuMemAlloc(4096)
    assert int(s_new) != int(s_old) and int(p_new) != int(p_old)
    assert cu.cuStreamBeginCapture(s_old, 0) == (cu.CUresult.CUDA_ERROR_INVALID_HANDLE,)
    why = simcuda.last_error().why
    assert f"driver #{old.serial}" in why and f"driver #{new.serial}" in why
    assert cu.cuStreamIsCapturing(s_new) == (SUCCESS, cu.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE)
    assert cu.cuMemFree(p_old) == (cu.CUresult.CUDA_ERROR_INVALID_VALUE,)
    assert f"driver #{old.serial}" in simcuda.last_error().why
    err, base, size = cu.cuMemGetAddressRange(p_new)
    assert (err, int(base), size) == (SUCCESS, int(p_new), 4096)
    assert cu.cuMemsetD8(p_old, 1, 16) == (cu.CUresult.CUDA_ERROR_INVALID_VALUE,)
    assert "device address of simcuda driver" in simcuda.last_error().why


def test_use_switch_refuses_the_other_drivers_handles_both_ways():
    """After simcuda.use() switches drivers, each driver's handles are refused by the other (naming it)."""
    a = fresh()
    _, ev_a = cu.cuEventCreate(0)
    b = fresh()
    _, ev_b = cu.cuEventCreate(0)
    assert cu.cuEventQuery(ev_a) == (cu.CUresult.CUDA_ERROR_INVALID_HANDLE,)
    assert f"driver #{a.serial} (still alive)" in simcuda.last_error().why
    simcuda.use(a)
    assert cu.cuEventQuery(ev_b) == (cu.CUresult.CUDA_ERROR_INVALID_HANDLE,)
    assert f"driver #{b.serial}" in simcuda.last_error().why
    assert cu.cuEventQuery(ev_a) == (SUCCESS,)


def test_oxicuda_stream_follows_the_current_driver():
    """An oxicuda Stream made on one driver is refused by the next current one (InvalidHandle naming the
    earlier driver) instead of silently acting on the driver it was made on."""
    from simcuda.faces.oxicuda.stream_capture import CudaError, Stream, StreamCapture
    first = simcuda.reset()
    stream = Stream.new()
    assert stream.driver is first
    second = simcuda.reset()
    assert stream.driver is second
    with pytest.raises(CudaError) as ei:
        StreamCapture.begin(stream)
    assert ei.value == CudaError.InvalidHandle
    assert f"driver #{first.serial}" in ei.value.why
    assert not first.captures.live and not second.captures.live


def test_addresses_are_never_reused_and_stay_recognised():
    """A freed allocation's address and a closed driver's addresses never come back; the closed driver is named."""
    d1 = ready()
    p1 = d1.mem_alloc(1 << 20)
    d1.mem_free(p1)
    p2 = d1.mem_alloc(1 << 20)
    assert p2 != p1
    d1.close()
    d2 = ready()
    fresh_ptrs = {d2.mem_alloc(1 << 20) for _ in range(8)}
    assert not fresh_ptrs & {p1, p2}
    assert process.SPACE.owner(p2) == d1.serial
    with pytest.raises(DriverError) as ei:
        d2.mem_free(p2)
    assert int(ei.value.code) == 1 and f"driver #{d1.serial} (closed)" in ei.value.why
    assert d2.memory.in_use == 8 << 20


def test_handles_come_from_per_driver_ranges():
    """The first stream of two drivers made the same way has different handles, each in its driver's range."""
    hs = []
    for _ in range(2):
        d = ready()
        hs.append((d, d.stream_create(0)))
    (d1, h1), (d2, h2) = hs
    assert h1 != h2
    assert process.handle_owner(h1) == d1.serial and process.handle_owner(h2) == d2.serial


def test_thousands_of_drivers_fit():
    """3,000 drivers, each with a touched allocation, fit in one process; the address space only grows forward."""
    starts = []
    for _ in range(3000):
        d = ready()
        p = d.mem_alloc(4096)
        d.memory.device_view(p, 4096)[:4] = b"used"
        starts.append(p)
    assert len(set(starts)) == 3000
    assert process.SPACE.owner(starts[0]) is not None


def test_host_budget_refuses_with_out_of_memory_and_changes_nothing():
    """An allocation that would pass the host budget is OUT_OF_MEMORY with a why; nothing is allocated, and a
    smaller one still succeeds."""
    d = ready(options=Options(host_memory_budget=process.SPACE.committed + (8 << 20)))
    with pytest.raises(DriverError) as ei:
        d.mem_alloc(16 << 20)
    assert int(ei.value.code) == 2 and "host budget" in ei.value.why
    assert d.memory.in_use == 0
    assert d.mem_get_info()[0] == min(d.mem_get_info()[1], d.memory.budget - SPACE.committed)  # spec 17
    p = d.mem_alloc(4 << 20)
    assert d.mem_get_address_range(p) == (p, 4 << 20)


def test_device_size_still_bounds_allocations():
    """Past the simulated device's total memory an allocation is OUT_OF_MEMORY even under a large host budget."""
    d = ready(devices=[simcuda.DeviceSpec(total_mem=1 << 30)], options=Options(host_memory_budget=1 << 40))
    with pytest.raises(DriverError) as ei:
        d.mem_alloc(2 << 30)
    assert int(ei.value.code) == 2 and "simulated device" in ei.value.why


@pytest.mark.parametrize("bad", [-1, 1.5, "1G", True])
def test_host_budget_option_is_validated(bad):
    """Options(host_memory_budget=...) takes None or a non-negative int of bytes, else ValueError at once."""
    with pytest.raises(ValueError):
        Options(host_memory_budget=bad)


def test_graph_allocation_is_mapped_only_while_its_launch_holds_it():
    """A graph allocation's pages are accessible after the launch that maps it and not after its free."""
    d = fresh()
    _, s = cu.cuStreamCreate(0)
    cu.cuStreamBeginCapture(s, 0)
    _, p = cu.cuMemAllocAsync(4096, s)
    cu.cuMemsetD8Async(p, 5, 4096, s)
    _, g = cu.cuStreamEndCapture(s)
    _, x = cu.cuGraphInstantiate(g, 0)
    with pytest.raises(DriverError):
        d.memory.device_view(int(p), 16)
    assert cu.cuGraphLaunch(x, s) == (SUCCESS,)
    assert bytes(d.memory.device_view(int(p), 4)) == b"\x05" * 4
    assert cu.cuMemFreeAsync(p, s) == (SUCCESS,)
    assert not d.memory.find(int(p)).mapped


@linux_only
def test_allocation_churn_keeps_the_process_mappings_few():
    """20,000 small allocations with every other one freed add almost no mappings (frees drop pages without
    splitting mappings), and a freed range reads as zeros."""
    def maps() -> int:
        with open("/proc/self/maps") as f:
            return sum(1 for _ in f)
    d = ready()
    before = maps()
    ps = [d.mem_alloc(4096) for _ in range(20000)]
    d.memory.device_view(ps[-2], 4)[:] = b"ZZZZ"
    for p in ps[::2]:
        d.mem_free(p)
    assert maps() - before < 50
    assert ctypes.string_at(ps[-2], 4) == bytes(4)
    assert d.memory.in_use == 10000 * 4096


def test_crowded_address_space_reuses_a_drivers_own_freed_ranges(monkeypatch):
    """Once the address space is crowded a driver reuses its own freed ranges; the reused address resolves to
    the new allocation, which frees normally."""
    d = ready(options=Options(host_memory_budget=1 << 50))
    p = d.mem_alloc(16 << 30)
    d.mem_free(p)
    monkeypatch.setattr(process.SPACE, "wrapped", True)
    q = d.mem_alloc(16 << 30)
    assert q == p and d.mem_get_address_range(q) == (q, 16 << 30)
    d.mem_free(q)
    assert d.memory.find(q) is None


def test_allocations_below_the_last_one_stay_findable():
    """An allocation entered below the highest one (a chunk the kernel placed lower) is found by address."""
    d = ready()
    hi = d.mem_alloc(4096)
    low = d.memory.reserve(4096, "device", None)
    d.memory._allocs.remove(low)  # move it below, as a chunk placed under the cursor would be
    d.memory._starts.remove(low.start)
    low.start = hi - 4 * process.PAGE
    d.memory._insert(low)
    assert d.memory.find(low.start) is low and d.memory.find(hi) is not low
    assert d.memory._starts == sorted(d.memory._starts)


def test_reset_releases_the_old_drivers_memory_without_the_collector():
    """After a refused call, simcuda.reset() still gives the old driver's budget back at once (the kept last
    error holds no traceback, so no cycle keeps the old driver alive)."""
    r = run_child("""
        import gc, json
        import simcuda
        from simcuda.faces.bindings import driver as cu
        gc.disable()
        codes = []
        for i in range(3):
            simcuda.reset(options=simcuda.Options(host_memory_budget=12 << 30))
            cu.cuInit(0); cu.cuCtxCreate(None, 0, 0)
            codes.append(int(cu.cuMemAlloc(10 << 30)[0]))
            codes.append(int(cu.cuMemFree(12345)[0]))
        print(json.dumps({"codes": codes}))
    """)
    assert r["codes"] == [0, 1] * 3


def test_pinned_host_memory_is_lazy_and_budgeted():
    """cuMemAllocHost memory is counted against the host budget (OUT_OF_MEMORY past it), usable through its
    address, and gives its bytes back when freed."""
    d = ready(options=Options(host_memory_budget=process.SPACE.committed + (64 << 20)))
    h = d.mem_alloc_host(32 << 20)
    ctypes.memmove(h, b"pinned", 6)
    assert ctypes.string_at(h, 6) == b"pinned"
    with pytest.raises(DriverError) as ei:
        d.mem_alloc_host(64 << 20)
    assert int(ei.value.code) == 2 and "host budget" in ei.value.why
    d.mem_free_host(h)
    h2 = d.mem_alloc_host(48 << 20)
    assert h2
