"""What each Python face writes by hand is listed, with a reason, in tests/faces/hand_written_exceptions.py.

A function a face defines with a top-level ``def`` (rather than building it from its row in
simcuda/_core/api.py) must be listed there; a listed function that the face now builds must leave the list.
The counts are those of ``tools/measure_faces.py`` (issue 18, item 2).
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


X = _load(Path(__file__).with_name("hand_written_exceptions.py"), "hand_written_exceptions")
LISTS = {"driver": X.DRIVER, "_v2": X.V2, "runtime": X.RUNTIME}


MEASURED: dict[str, dict[str, set[str]]] = _load(ROOT / "tools" / "measure_faces.py", "measure_faces").measure()


@pytest.mark.parametrize("face", sorted(LISTS))
def test_every_hand_written_function_is_listed_with_a_reason(face):
    """A function the face writes by hand, not listed in hand_written_exceptions.py, fails: build it from its
    row, or list it with the reason particular to this face."""
    missing = sorted(MEASURED[face]["hand"] - set(LISTS[face]))
    assert not missing, f"{face}: hand-written without a listed reason: {missing}"


@pytest.mark.parametrize("face", sorted(LISTS))
def test_every_listed_function_is_still_hand_written(face):
    """A listed function that the face now builds (or no longer has) leaves the list, so the list only shrinks
    to what is written by hand."""
    stale = sorted(set(LISTS[face]) - MEASURED[face]["hand"])
    assert not stale, f"{face}: listed but not hand-written any more: {stale}"


@pytest.mark.parametrize("face", sorted(LISTS))
def test_every_reason_is_a_sentence(face):
    """Each listed function has a non-empty reason."""
    assert all(len(why.split()) >= 3 for why in LISTS[face].values())


def test_the_profiler_entries_are_built_not_written():
    """The worked example of CONTRIBUTING.md is built from its rows in the tuple and _v2 faces."""
    assert {"cuProfilerStart", "cuProfilerStop"} <= MEASURED["driver"]["built"]
    assert {"profiler_start", "profiler_stop"} <= MEASURED["_v2"]["built"]


def test_the_struct_and_record_families_are_built_not_written():
    """The rows with a struct argument read by the face's reader, a record, a struct-field output or a char* buffer
    output are built by the executor in the tuple face."""
    assert {"cuGraphAddKernelNode", "cuGraphAddMemAllocNode", "cuGraphKernelNodeSetParams",
            "cuGraphExecMemcpyNodeSetParams", "cuMemcpy2D", "cuMemsetD2D32Async", "cuDeviceGetName",
            "cuDeviceGetUuid", "cuGetErrorName"} <= MEASURED["driver"]["built"]


def test_built_kinds_behave_as_the_wrapper(simcuda_driver):
    """A char* buffer output is the wrapper's padded buffer; a struct-field output is written into the argument
    (CUdeviceptr); a NULL struct is INVALID_VALUE before the core runs; the _v2 twin of a plain row is built."""
    from simcuda.faces.bindings import driver as cu
    from simcuda.faces.bindings._v2 import driver as v2
    assert cu.cuInit(0) == (cu.CUresult.CUDA_SUCCESS,)
    err, name = cu.cuDeviceGetName(40, 0)
    assert err == cu.CUresult.CUDA_SUCCESS and len(name) == 40 and name.split(b"\0")[0] and b"\0" in name
    assert cu.cuGetErrorName(cu.CUresult.CUDA_ERROR_INVALID_VALUE) == (cu.CUresult.CUDA_SUCCESS,
                                                                       b"CUDA_ERROR_INVALID_VALUE")
    _, ctx = cu.cuDevicePrimaryCtxRetain(0)
    cu.cuCtxSetCurrent(ctx)
    _, g = cu.cuGraphCreate(0)
    p = cu.CUDA_MEM_ALLOC_NODE_PARAMS()
    p.bytesize = 1 << 16
    p.poolProps.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    p.poolProps.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    err, _node = cu.cuGraphAddMemAllocNode(g, None, 0, p)
    assert err == cu.CUresult.CUDA_SUCCESS and isinstance(p.dptr, cu.CUdeviceptr) and int(p.dptr)
    assert cu.cuGraphGetNodes(g)[2] == 1
    assert cu.cuGraphAddKernelNode(g, None, 0, None) == (cu.CUresult.CUDA_ERROR_INVALID_VALUE, None)
    assert cu.cuGraphGetNodes(g)[2] == 1  # nothing added
    assert v2.device_compute_capability(0) == cu.cuDeviceComputeCapability(0)[1:]
