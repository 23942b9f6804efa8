"""An exception inside simcuda on the native route (a simulator bug) answers 999 and is recorded in the driver's
``error_log`` as an internal error, which ``simcuda run --explain``, the run's summary and the pytest report list."""
from __future__ import annotations

import ctypes
import subprocess
import sys
import textwrap

import pytest

import simcuda
from simcuda import _summary
from simcuda._core.logs import INTERNAL_TITLE
from simcuda._generated.entry_table import ENTRIES
from simcuda.faces import native
from simcuda.faces.native import adapters as A

_KEEP: list[object] = []
_NATIVE = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")


def _c_fn(name: str):
    """The C function pointer of the newest adapter of ``name``."""
    i = max((k for k, e in enumerate(ENTRIES) if e.name == name), key=lambda k: ENTRIES[k].version)
    f = A.c_function(i, False)
    _KEEP.append(f)
    return f


def test_a_core_exception_is_999_and_an_internal_error_record(monkeypatch, capsys):
    """A RuntimeError out of the core's stream_query makes the native cuStreamQuery answer 999, a record marked
    internal (type, message, where) in error_log, listed by --explain's text and the summary."""
    drv = simcuda.reset()
    try:
        assert _c_fn("cuInit")(0) == 0
        h = ctypes.c_void_p()
        assert _c_fn("cuDevicePrimaryCtxRetain")(ctypes.byref(h), 0) == 0
        assert _c_fn("cuCtxSetCurrent")(h) == 0
        s = ctypes.c_void_p()
        assert _c_fn("cuStreamCreate")(ctypes.byref(s), 1) == 0

        def broken(self, h):
            raise RuntimeError("boom")
        monkeypatch.setattr(type(drv), "stream_query", broken)
        before = len(drv.error_log)
        assert _c_fn("cuStreamQuery")(s) == 999
        assert "RuntimeError: boom" in capsys.readouterr().err
        assert len(drv.error_log) == before + 1
        rec = drv.error_log[-1]
        assert (rec.call, rec.code, rec.internal) == ("cuStreamQuery", 999, True)
        assert "simcuda bug" in rec.why and "builtins.RuntimeError: boom" in rec.why
        assert "test_internal_errors.py:" in rec.why and "in broken" in rec.why
        text = _summary.explain_text(drv)
        assert INTERNAL_TITLE in text and "cuStreamQuery" in text and "boom" in text
        assert f"{INTERNAL_TITLE}: 1" in _summary.summary_text(drv, "done")
        monkeypatch.undo()
        assert _c_fn("cuStreamQuery")(s) == 0  # the stream itself is unharmed
    finally:
        simcuda.reset()


def test_a_driver_error_is_not_an_internal_error(monkeypatch):
    """A refusal (DriverError) keeps its code and is not marked internal: only simcuda's own bugs are."""
    drv = simcuda.reset()
    try:
        assert _c_fn("cuInit")(0) == 0
        assert _c_fn("cuStreamQuery")(ctypes.c_void_p(0xDEAD)) not in (0, 999)
        assert drv.error_log and not drv.error_log[-1].internal
        assert INTERNAL_TITLE not in _summary.explain_text(drv)
    finally:
        simcuda.reset()


SCRIPT = textwrap.dedent('''
    import simcuda
    from cuda.bindings import driver
    assert driver.cuInit(0) == (driver.CUresult.CUDA_SUCCESS,)
    err, dev = driver.cuDeviceGet(0)
    err, ctx = driver.cuDevicePrimaryCtxRetain(dev)
    driver.cuCtxSetCurrent(ctx)
    err, s = driver.cuStreamCreate(1)

    def broken(self, h):
        raise RuntimeError("boom in the core")
    simcuda.Driver.stream_query = broken
    (err,) = driver.cuStreamQuery(s)
    assert int(err) == 999, err
''')


@_NATIVE
def test_simcuda_run_explain_lists_the_internal_error(tmp_path):
    """``simcuda run --route native --explain``: NVIDIA's binding gets 999, and the explain text lists the call
    under the internal-errors title with the exception's type and message."""
    script = tmp_path / "s.py"
    script.write_text(SCRIPT)
    r = subprocess.run([sys.executable, "-m", "simcuda.cli", "run", "--route", "native", "--explain", str(script)],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert INTERNAL_TITLE in r.stderr and "RuntimeError: boom in the core" in r.stderr, r.stderr[-3000:]
    assert "every call succeeded" not in r.stderr


@_NATIVE
def test_the_pytest_report_lists_the_internal_error(tmp_path):
    """Under ``pytest --simcuda --simcuda-route native`` the report names the call answered 999 for a bug."""
    body = SCRIPT.replace("from cuda.bindings import driver\n", "from cuda.bindings import driver\n\n"
                          "def test_bug(monkeypatch):\n").replace("simcuda.Driver.stream_query = broken",
                                                                 "monkeypatch.setattr(simcuda.Driver, "
                                                                 "'stream_query', broken)")
    lines = body.splitlines()
    at = lines.index("def test_bug(monkeypatch):")
    body = "\n".join(lines[:at + 1] + ["    " + x for x in lines[at + 1:]]) + "\n"
    (tmp_path / "test_bug.py").write_text(body)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                        "--simcuda", "--simcuda-route", "native", str(tmp_path)],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
    assert "internal errors (a simcuda bug: please report; each answered 999): cuStreamQuery x1" in r.stdout, \
        r.stdout[-3000:]
