"""The runtime face built from the table (simcuda/_core/api.py, RUNTIME_ROWS): every row is checked, every row
that is not particular is built by the faces' one executor, and a wrong row fails at import (issue 18, item 2)."""
from __future__ import annotations

import runpy
from pathlib import Path

import pytest

from simcuda import Driver
from simcuda._core.api import API, RUNTIME
from simcuda._core.memory.memory_entries import Memory
from simcuda._core.rows import Runtime, call, lit
from simcuda._core.runtime_rows import RUNTIME_ROWS
from simcuda._generated.driver_outputs import OUTPUTS as DRIVER_OUTPUTS
from simcuda._generated.entry_table import ENTRIES
from simcuda._generated.runtime_outputs import OUTPUTS as RUNTIME_OUTPUTS
from simcuda.faces.bindings import _executor as B
from simcuda.faces.bindings import runtime as rt

ROOT = Path(__file__).resolve().parents[2]


MEASURED: dict[str, dict[str, set[str]]] = runpy.run_path(str(ROOT / "tools" / "measure_faces.py"))["measure"]()


@pytest.mark.parametrize("row", RUNTIME_ROWS, ids=lambda r: r.name)
def test_row_names_a_real_runtime_function_and_a_driver_row(row: Runtime):
    """Each row names a function of the real runtime module and a row of ROWS, and is there once."""
    assert row.name in RUNTIME_OUTPUTS
    assert row.driver in API
    assert sum(r.name == row.name for r in RUNTIME_ROWS) == 1
    assert RUNTIME[row.name] == row.driver


@pytest.mark.parametrize("row", [r for r in RUNTIME_ROWS if not r.particular], ids=lambda r: r.name)
def test_built_row_matches_the_real_signatures(row: Runtime):
    """A built row's call reads only the runtime wrapper's parameters (or the driver row's, one for one with the
    runtime's), names a real core operation, and fills exactly the runtime wrapper's output slots."""
    rsig = B.signature_params(RUNTIME_OUTPUTS[row.name][0])
    if row.shape:
        call, names = row.call, {p for p, _, _ in rsig}
    else:
        call = API[row.driver].call
        dsig = B.signature_params(DRIVER_OUTPUTS[row.driver][0])
        assert len(dsig) == len(rsig), "the driver row's call needs the same parameters, one for one"
        names = {p.partition("=")[0] for p, _, _ in dsig}  # ``size_t numNodes=0``
    assert all(a.kind != "field" for _kw, a in call.tree)  # no form only the native adapters read
    assert {p for _, p, _ in call.args if p is not None} <= names
    ctypes = {q.name: q.ctype for e in ENTRIES if e.python == row.driver for q in e.params}
    written_count = any(o in call.counts and ctypes.get(call.counts[o], "").endswith("*") for o in call.outs)
    assert len(call.outs) + written_count == len(RUNTIME_OUTPUTS[row.name][1])  # an in/out count: the last slot
    assert callable(getattr(Driver, call.op, None))


def test_particular_rows_are_exactly_the_hand_written_ones():
    """A row marked ``hand()`` is written by hand in the runtime face, and every other row is built, not written."""
    hand = MEASURED["runtime"]["hand"]
    assert {r.name for r in RUNTIME_ROWS if r.particular} <= hand
    built = {r.name for r in RUNTIME_ROWS if not r.particular}
    assert built <= MEASURED["runtime"]["built"]
    assert not built & hand
    assert len(built) >= 70


def test_built_functions_show_the_row_and_the_driver_description():
    """The help of a built runtime function is its generated header, its own prose, then the driver row's."""
    doc = rt.cudaMalloc.__doc__
    assert doc.startswith("Mirrors ``cudaMalloc(size_t size)`` of cuda.bindings.runtime 13.5.")
    assert "``size`` 0 succeeds with address 0" in doc
    assert API["cuMemAlloc"].doc in doc
    assert rt.cudaMalloc.__module__ == "simcuda.faces.bindings.runtime"


def test_a_wrong_row_fails_at_import_not_in_a_user_call():
    """A call that reads a parameter the wrapper lacks, fills the wrong number of outputs, or needs another
    arity than the driver row's is refused when the face is built (the AssertionError of the executor)."""
    with pytest.raises(AssertionError, match="not parameters"):
        rt._build(Runtime("cudaMalloc", "cuMemAlloc", call(Memory.mem_alloc, "bytes", lit("cudaMalloc"), out="devPtr")))
    with pytest.raises(AssertionError, match="output slots"):
        rt._build(Runtime("cudaMalloc", "cuMemAlloc", call(Memory.mem_alloc, "size", lit("cudaMalloc"))))
    with pytest.raises(AssertionError, match="give the row a call"):
        rt._build(Runtime("cudaStreamCreate", "cuStreamCreate"))
    with pytest.raises(ValueError):
        Runtime("cudaMalloc", "cuMemAlloc", needs="always")


def test_built_entries_keep_the_runtime_conventions(drv):
    """Built runtime functions set up the primary context, return the runtime's handle classes, translate the
    core's codes to cudaError_t and record the last error, as the hand-written ones did."""
    err, ptr = rt.cudaMalloc(0)
    assert err == rt.cudaError_t.cudaSuccess and ptr == 0
    err, s = rt.cudaStreamCreate()
    assert err == rt.cudaError_t.cudaSuccess and isinstance(s, rt.cudaStream_t)
    assert rt.cudaStreamQuery(s) == (rt.cudaError_t.cudaSuccess,)
    assert rt.cudaStreamDestroy(s) == (rt.cudaError_t.cudaSuccess,)
    assert rt.cudaStreamDestroy(rt.cudaStream_t(0xDEAD)) == (rt.cudaError_t.cudaErrorInvalidResourceHandle,)
    assert rt.cudaGetLastError() == (rt.cudaError_t.cudaErrorInvalidResourceHandle,)
    assert rt.cudaGetLastError() == (rt.cudaError_t.cudaSuccess,)
    err, mode = rt.cudaThreadExchangeStreamCaptureMode(rt.cudaStreamCaptureMode.cudaStreamCaptureModeRelaxed)
    assert err == rt.cudaError_t.cudaSuccess and mode == rt.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal
    assert rt.cudaThreadExchangeStreamCaptureMode(mode)[1] == rt.cudaStreamCaptureMode.cudaStreamCaptureModeRelaxed
    assert drv.ctx_get_current() != 0  # the primary context the first call made current
