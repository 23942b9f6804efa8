"""The calls the simulated ``libcuda.so.1`` answers 801 itself (entries with no adapter) reach the reports.

Such a call never reaches the Python driver, so its error log does not hold it: before this, ``simcuda run
--explain`` said "every call succeeded" and ``pytest --simcuda`` printed no "calls answered 801" line while the
program stopped on ``CUDA_ERROR_NOT_SUPPORTED`` (found running cuda.core's ``batched_memcpy.py`` example, whose
``ManagedMemoryResource()`` calls ``cuMemGetMemPool``). Each case runs in a subprocess: loading the library cannot
be undone.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import simcuda.faces.native as native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

#: one entry simcuda does not simulate, called through NVIDIA's binding on the native route
SCRIPT = """
from cuda.bindings import driver
assert driver.cuInit(0) == (driver.CUresult.CUDA_SUCCESS,)
loc = driver.CUmemLocation()
loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
loc.id = 0
err, _ = driver.cuMemGetMemPool(loc, driver.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED)
print("code", int(err))
"""

SIMCUDA = str(Path(sys.executable).with_name("simcuda"))


def test_simcuda_run_explain_names_the_entry_the_library_refused(tmp_path: Path) -> None:
    """``simcuda run --route native --explain`` lists the refused entry, with its count, and no longer says that
    every call succeeded."""
    script = tmp_path / "prog.py"
    script.write_text(SCRIPT)
    r = subprocess.run([SIMCUDA, "run", "--route", "native", "--explain", str(script)], capture_output=True,
                       text=True, timeout=180, cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "code 801" in r.stdout
    assert "every call succeeded" not in r.stderr
    assert ("calls answered 801 (CUDA_ERROR_NOT_SUPPORTED) by the native library, entries not simulated "
            "(no why recorded; see docs/supported-api.md): cuMemGetMemPool (version 13000) x1") in r.stderr


def test_pytest_report_lists_the_entry_the_library_refused(tmp_path: Path) -> None:
    """``pytest --simcuda --simcuda-route native`` prints the refused entry in its report: the report is written
    before the session ends, so it reads the library's counters itself."""
    body = "def test_refused():\n" + "".join(f"    {ln}\n" for ln in SCRIPT.strip().splitlines())
    (tmp_path / "test_refused.py").write_text(body)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                        "--simcuda", "--simcuda-route", "native", str(tmp_path)], capture_output=True, text=True,
                       timeout=180, cwd=tmp_path)
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout + r.stderr
    assert "calls answered 801 (not simulated): cuMemGetMemPool (version 13000) x1" in r.stdout
