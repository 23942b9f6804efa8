"""Fault injection and call assertions (simcuda.faults): a chosen entry refused with a chosen code, the Nth time or
by a predicate, on the Python faces, the runtime face and the native route; call records and their assertions;
the hooks come off afterwards, so the driver's common (fast) path is back."""
from __future__ import annotations

import ctypes
import json
import subprocess
import sys

import pytest

import simcuda
from simcuda import faults
from simcuda.faces import native
from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings import nvrtc
from simcuda.faces.bindings import runtime as rt

OOM = cu.CUresult.CUDA_ERROR_OUT_OF_MEMORY
SRC = b'extern "C" __global__ void scale(float* a, int n) { int i = threadIdx.x; if (i < n) a[i] *= 2.0f; }\n'


@pytest.fixture
def drv():
    """A fresh current driver with a current context."""
    d = simcuda.Driver()
    old = simcuda.use(d)
    assert cu.cuInit(0)[0] == 0
    _, ctx = cu.cuDevicePrimaryCtxRetain(0)
    assert cu.cuCtxSetCurrent(ctx)[0] == 0
    yield d
    simcuda.use(old)


def codes(results):
    return [int(r[0]) for r in results]


def test_nth_call_fails_then_the_entry_works_again(drv):
    """nth=3: only the third cuMemAlloc answers OUT_OF_MEMORY, with the injection's why as the thread's last
    error and in the error log; after the block the entry succeeds and the driver is back on its common path."""
    with faults.inject("cuMemAlloc", OOM, nth=3) as inj:
        got = codes([cu.cuMemAlloc(64) for _ in range(5)])
        err = simcuda.last_error()
    assert got == [0, 0, 2, 0, 0]
    assert (inj.calls, inj.fired) == (5, 1)
    assert err is not None and err.code == 2 and "simcuda.inject('cuMemAlloc'" in err.why
    assert [(r.call, r.code) for r in drv.error_log] == [("cuMemAlloc", 2)]
    assert cu.cuMemAlloc(64)[0] == 0
    assert drv.on_common_path()


def test_a_refused_call_does_nothing(drv):
    """A refused cuMemAlloc allocates nothing: the free memory is unchanged and no pointer is handed out."""
    _, free_before, _ = cu.cuMemGetInfo()
    with faults.inject("cuMemAlloc", OOM):
        err, ptr = cu.cuMemAlloc(1 << 20)
    assert err == OOM and ptr is None  # as the real binding: no pointer on a failure
    assert cu.cuMemGetInfo()[1] == free_before


def test_times_and_when(drv):
    """times=2 refuses two calls from nth on; ``when`` refuses only the calls it picks, by the core's arguments."""
    with faults.inject("cuMemAlloc", OOM, nth=2, times=2):
        assert codes([cu.cuMemAlloc(8) for _ in range(5)]) == [0, 2, 2, 0, 0]
    with faults.inject("cuMemAlloc", OOM, when=lambda call: call.args["size"] > 1024) as inj:
        assert codes([cu.cuMemAlloc(8), cu.cuMemAlloc(4096), cu.cuMemAlloc(16)]) == [0, 2, 0]
    assert (inj.calls, inj.fired) == (3, 1)


def test_runtime_face_sees_the_mapped_runtime_code(drv):
    """A fault on cuMemAlloc reaches cudaMalloc (the same core entry) as the runtime's code for it, and a fault
    named by the runtime name refuses the driver entry too."""
    with faults.inject("cuMemAlloc", OOM):
        assert rt.cudaMalloc(64)[0] == rt.cudaError_t.cudaErrorMemoryAllocation
    with faults.inject("cudaMalloc", OOM):
        assert cu.cuMemAlloc(64)[0] == OOM
    assert rt.cudaMalloc(64)[0] == rt.cudaError_t.cudaSuccess


def test_a_fault_on_synchronize(drv):
    """cuStreamSynchronize answering 700 (an illegal address) on demand; other entries untouched."""
    _, s = cu.cuStreamCreate(0)
    with faults.inject("cuStreamSynchronize", cu.CUresult.CUDA_ERROR_ILLEGAL_ADDRESS):
        assert cu.cuStreamSynchronize(s)[0] == cu.CUresult.CUDA_ERROR_ILLEGAL_ADDRESS
        assert cu.cuStreamQuery(s)[0] == 0
    assert cu.cuStreamSynchronize(s)[0] == 0


def test_bad_injections_are_refused(drv):
    """An entry simcuda does not simulate, code 0 and a count below 1 are ValueErrors naming the problem; nothing
    is put on the driver."""
    with pytest.raises(ValueError, match="no driver entry simcuda simulates"):
        faults.inject("cuNoSuchThing", OOM)
    with pytest.raises(ValueError, match="failure code"):
        faults.inject("cuMemAlloc", 0)
    with pytest.raises(ValueError, match="nth"):
        faults.inject("cuMemAlloc", OOM, nth=0)
    with pytest.raises(TypeError):
        faults.inject(42, OOM)  # type: ignore[arg-type]
    assert drv.on_common_path()


def test_record_calls_and_assertions(drv):
    """record_calls keeps each call (core arguments, code, why); assert_called counts by entry and arguments;
    the failures are recorded with their code; assert_not_called and a wrong count raise AssertionError
    listing what was recorded."""
    with faults.record_calls("cuMemAlloc", "cuMemFree") as rec:
        _, p = cu.cuMemAlloc(256)
        cu.cuMemFree(p)
        cu.cuMemFree(p)
    assert [(c.entry, c.code) for c in rec.calls] == [("cuMemAlloc", 0), ("cuMemFree", 0), ("cuMemFree", 1)]
    rec.assert_called("cuMemAlloc", times=1, size=256)
    rec.assert_called("cuMemFree", times=2, dptr=int(p))
    with pytest.raises(AssertionError, match="expected 1 call"):
        rec.assert_called("cuMemFree", times=1)
    with pytest.raises(AssertionError, match="cuMemAlloc"):
        rec.assert_not_called("cuMemAlloc")
    cu.cuMemAlloc(8)  # after the block: not recorded
    assert len(rec.calls) == 3
    assert drv.on_common_path()


def test_injected_failures_are_recorded(drv):
    """A recorder sees a call an injection refused, with the injected code and why."""
    with faults.record_calls("cuMemAlloc") as rec, faults.inject("cuMemAlloc", OOM, nth=2):
        cu.cuMemAlloc(8)
        cu.cuMemAlloc(8)
    assert [c.code for c in rec.calls] == [0, 2]
    assert "simcuda.inject" in rec.calls[1].why


def test_expect_no_failures(drv):
    """A block with a failed call raises AssertionError naming it, code and why; a clean block passes."""
    with faults.expect_no_failures():
        cu.cuMemAlloc(8)
    with pytest.raises(AssertionError, match=r"cuMemFree -> CUDA_ERROR_INVALID_VALUE \(1\)"), \
            faults.expect_no_failures():
        cu.cuMemFree(12345)


def _scale_function():
    """``scale`` compiled by the nvrtc face and loaded: its CUfunction."""
    _, prog = nvrtc.nvrtcCreateProgram(SRC, b"scale.cu", 0, [], [])
    assert nvrtc.nvrtcCompileProgram(prog, 0, [])[0] == 0
    _, size = nvrtc.nvrtcGetPTXSize(prog)
    ptx = b" " * size
    nvrtc.nvrtcGetPTX(prog, ptx)
    _, mod = cu.cuModuleLoadData(ptx)
    _, fn = cu.cuModuleGetFunction(mod, b"scale")
    return fn


def test_assert_launched_counts_kernels_by_name_and_arguments(drv):
    """record_calls() with no entries records the kernel launches: assert_launched counts them by kernel name,
    kernel arguments and dimensions; a launch that was refused does not count."""
    fn = _scale_function()
    _, a = cu.cuMemAlloc(16)
    with faults.record_calls() as rec:
        for n in (4, 4, 2):
            assert cu.cuLaunchKernel(fn, 1, 1, 1, 4, 1, 1, 0, 0, ((a, n), (None, ctypes.c_int)), 0)[0] == 0
        assert cu.cuLaunchKernel(fn, 0, 1, 1, 4, 1, 1, 0, 0, ((a, 1), (None, ctypes.c_int)), 0)[0] != 0
    rec.assert_launched("scale", times=3)
    rec.assert_launched("scale", times=2, args=[int(a), 4])
    rec.assert_launched("scale", times=3, grid=(1, 1, 1), block=(4, 1, 1))
    with pytest.raises(AssertionError, match="expected 1 launch"):
        rec.assert_launched("scale", times=1)
    with pytest.raises(AssertionError):
        rec.assert_launched("other")


NATIVE = r'''
import json, simcuda
from simcuda import faults
with simcuda.patch(route="native"):
    from cuda.bindings import driver as cu
    cu.cuInit(0)
    _, ctx = cu.cuDevicePrimaryCtxRetain(0)
    cu.cuCtxSetCurrent(ctx)
    with faults.inject("cuMemAlloc", cu.CUresult.CUDA_ERROR_OUT_OF_MEMORY, nth=2), \
            faults.record_calls("cuMemAlloc") as rec:
        got = [int(cu.cuMemAlloc(64)[0]) for _ in range(3)]
    raised = None
    with faults.raise_failures():
        try:
            cu.cuMemFree(12345)
        except faults.CallFailed as e:
            raised = [e.entry, e.code]
    print("OUT=" + json.dumps({"got": got, "rec": [c.code for c in rec.calls], "after": int(cu.cuMemAlloc(8)[0]),
                               "raised": raised}))
'''


@pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")
def test_native_route_sees_the_same_faults():
    """On the native route (NVIDIA's own cuda.bindings over the simulated libcuda.so.1), in a fresh interpreter:
    the second cuMemAlloc answers 2, the recorder sees it, and after the block cuMemAlloc succeeds; inside
    raise_failures a failed call raises CallFailed through NVIDIA's binding."""
    r = subprocess.run([sys.executable, "-c", NATIVE], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])
    assert out == {"got": [0, 2, 0], "rec": [0, 2, 0], "after": 0, "raised": ["cuMemFree", 1]}


def test_raise_failures_stops_at_the_first_failed_call(drv):
    """Inside raise_failures every failed call raises CallFailed (entry, code, why) at the call, after it is
    recorded as any failure; the program's ``except Exception`` does not swallow it; after the block the entry
    answers its code again and nothing else changed (successful calls inside returned as usual)."""
    with faults.raise_failures():
        assert cu.cuMemAlloc(64)[0] == 0
        with pytest.raises(faults.CallFailed) as e:
            try:
                cu.cuMemFree(12345)
            except Exception:  # a program's own handler: not where CallFailed goes
                pytest.fail("CallFailed was caught as an Exception")
    assert (e.value.entry, e.value.code) == ("cuMemFree", 1) and "not the start" in e.value.why
    assert [(r.call, r.code) for r in drv.error_log] == [("cuMemFree", 1)]
    assert cu.cuMemFree(12345)[0] == cu.CUresult.CUDA_ERROR_INVALID_VALUE
    assert not drv.raise_failures and drv.options.kernel_faults == "sticky"


def test_raise_failures_raises_a_python_kernels_exception_at_the_launch(drv):
    """With kernels=True (the default) a Python kernel that raises makes its launch raise that exception, not a
    sticky 719; the context stays usable."""
    @simcuda.kernel("boom")
    def boom(launch):
        raise ZeroDivisionError("in the kernel")
    ptx = b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry boom()\n{\n ret;\n}\n"
    _, mod = cu.cuModuleLoadData(ptx)
    _, fn = cu.cuModuleGetFunction(mod, b"boom")
    with faults.raise_failures(), pytest.raises(ZeroDivisionError):
        cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0)
    assert cu.cuCtxSynchronize()[0] == 0


def test_an_nvrtc_compilation_can_be_made_to_fail(drv):
    """inject("nvrtcCompileProgram", NVRTC_ERROR_COMPILATION, nth=2): the second compilation answers 6, the
    others compile; after the block the face's function is the face's again."""
    before = nvrtc.nvrtcCompileProgram
    results = []
    with faults.inject("nvrtcCompileProgram", nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION, nth=2) as inj:
        for _ in range(3):
            _, prog = nvrtc.nvrtcCreateProgram(SRC, b"scale.cu", 0, [], [])
            results.append(int(nvrtc.nvrtcCompileProgram(prog, 0, [])[0]))
    assert results == [0, 6, 0] and (inj.calls, inj.fired) == (3, 1)
    assert nvrtc.nvrtcCompileProgram is before
    with pytest.raises(ValueError, match="NVRTC entries other than"):
        faults.inject("nvrtcGetPTX", 6)


NATIVE_NVRTC = r'''
import json, simcuda
from simcuda import faults
with simcuda.patch(route="native"):
    from cuda.bindings import nvrtc
    src = b'extern "C" __global__ void k(int* a) { a[0] = 1; }'
    got = []
    with faults.inject("nvrtcCompileProgram", nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION):
        _, prog = nvrtc.nvrtcCreateProgram(src, b"k.cu", 0, [], [])
        got.append(int(nvrtc.nvrtcCompileProgram(prog, 0, [])[0]))
    _, prog = nvrtc.nvrtcCreateProgram(src, b"k.cu", 0, [], [])
    got.append(int(nvrtc.nvrtcCompileProgram(prog, 0, [])[0]))
    print("OUT=" + json.dumps({"got": got, "module": nvrtc.__name__}))
'''


@pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")
def test_nvidias_nvrtc_module_meets_an_injected_compile_failure():
    """On the native route a program calling NVIDIA's own cuda.bindings.nvrtc meets the injected
    NVRTC_ERROR_COMPILATION, and compiles again once the injection is off."""
    r = subprocess.run([sys.executable, "-c", NATIVE_NVRTC], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])
    assert out["got"][0] == 6
    if out["module"] == "cuda.bindings.nvrtc" and out["got"][1] != 0:  # NVIDIA's NVRTC needs its library
        pytest.skip("NVIDIA's NVRTC could not compile here")
    assert out["got"][1] == 0


NATIVE_CORE_PROGRAM = r'''
import json, simcuda
from simcuda import faults
from simcuda.faces.native import compilers
with simcuda.patch(route="native"):
    from cuda.core import Device, Program, ProgramOptions
    from cuda.bindings import nvrtc
    d = Device()
    d.set_current()
    src = 'extern "C" __global__ void k(int* a) { a[0] = 1; }'
    opts = ProgramOptions(arch="sm_" + "".join(str(x) for x in d.compute_capability))
    got, seen = [], []
    with faults.inject("nvrtcCompileProgram", nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION, nth=2,
                       when=lambda c: seen.append(c.args["numOptions"]) or True) as inj:
        for _ in range(2):
            try:
                Program(src, "c++", options=opts).compile("cubin")
                got.append("compiled")
            except Exception as e:
                got.append(type(e).__name__ + ": " + str(e)[:200])
    Program(src, "c++", options=opts).compile("cubin")
    got.append("compiled after")
    print("OUT=" + json.dumps({"got": got, "calls": inj.calls, "fired": inj.fired, "seen": seen,
                               "shims": compilers.installed()}))
'''


@pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")
def test_cuda_core_program_meets_an_injected_compile_failure():
    """On the native route cuda.core's Program (which calls NVRTC's C interface from Cython) meets the injected
    compile failure at the second compilation, through simcuda's NVRTC shim: NVRTCError with
    NVRTC_ERROR_COMPILATION, the first and later compilations untouched, each counted once."""
    pytest.importorskip("cuda.core")
    r = subprocess.run([sys.executable, "-c", NATIVE_CORE_PROGRAM], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])
    if "nvrtc" not in out["shims"]:
        pytest.skip("NVIDIA's NVRTC is not installed here: no shim to reach")
    assert out["got"][0] == "compiled"
    assert out["got"][1].startswith("NVRTCError") and "NVRTC_ERROR_COMPILATION" in out["got"][1]
    assert out["got"][2] == "compiled after"
    assert (out["calls"], out["fired"]) == (2, 1)
    assert out["seen"] == [out["seen"][0]] and out["seen"][0] >= 1  # the gate saw the options (the arch at least)
