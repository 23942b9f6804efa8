"""The entry table (simcuda/_generated/entry_table.py) matches the installed cuda-bindings wheel."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from simcuda._generated.entry_table import ENTRIES
from simcuda.faces.bindings import driver as face

ROOT = Path(__file__).resolve().parent.parent
HAVE_WHEEL = importlib.util.find_spec("cuda.bindings") is not None


@pytest.mark.skipif(not HAVE_WHEEL, reason="cuda-bindings is not installed (it is in the test extra)")
def test_table_is_fresh_against_the_installed_wheel():
    """tools/gen_entry_table.py --check: the table equals what the wheel's cydriver.pxd gives."""
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_entry_table.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_one_row_per_requested_pair_paired_by_position():
    """526 (name, version) pairs, each once; 12 declared names differ from the requested ones."""
    pairs = [(e.name, e.version) for e in ENTRIES]
    assert len(pairs) == 526 and len(set(pairs)) == 526
    renamed = {(e.name, e.version): e.declared for e in ENTRIES if e.name != e.declared}
    assert len(renamed) == 12
    assert renamed[("cuCtxCreate", 3020)] == "cuCtxCreate_v2"
    assert renamed[("cuGraphInstantiateWithFlags", 11040)] == "cuGraphInstantiate"
    variants = {e.declared for e in ENTRIES if e.name == "cuCtxCreate"}
    assert variants == {"cuCtxCreate_v2", "cuCtxCreate_v3", "cuCtxCreate"}


def test_outputs_are_the_parameters_the_wrapper_returns():
    """An output is a C parameter the Python wrapper does not take: cuCtxCreate's pctx, cuStreamGetCaptureInfo's
    six outputs; a variant without a wrapper inherits them by parameter name."""
    by = {(e.name, e.version): e for e in ENTRIES}
    outs = lambda e: [n for _t, n, d in e.params if d == "out"]  # noqa: E731
    assert outs(by[("cuCtxCreate", 12050)]) == ["pctx"]
    assert outs(by[("cuCtxCreate", 3020)]) == ["pctx"]
    assert outs(by[("cuLaunchKernel", 4000)]) == []
    assert len(outs(by[("cuStreamGetCaptureInfo", 12030)])) == 6
    assert outs(by[("cuFuncGetName", 12030)]) == ["name"]  # const char**: the pointer it points to is written


def test_a_pointer_to_const_data_is_an_input():
    """``const char* fname`` (the wrapper's ``char *fname``) and ``const CUdevResource* input`` (its ``input_``)
    are inputs: the callee cannot write through a pointer to const data."""
    by = {(e.name, e.version): e for e in ENTRIES}
    assert by[("cuModuleLoad", 2000)].params == (("CUmodule*", "module", "out"), ("const char*", "fname", "in"))
    single_const_outs = [(e.name, n) for e in ENTRIES for t, n, d in e.params
                         if d == "out" and t.startswith("const ") and t.count("*") == 1]
    assert single_const_outs == []


def test_every_wrapped_entry_exists_in_the_tuple_face():
    """Each declaration with a Python wrapper has a function of that name in simcuda.faces.bindings.driver."""
    missing = [e.python for e in ENTRIES if e.python and not callable(getattr(face, e.python, None))]
    assert missing == []


def test_rows_are_typed_records():
    """Every row of the generated table is an Entry of Param records whose direction is a Direction member, and
    a param still reads as the ``(ctype, name, 'in' | 'out')`` tuple the native adapters unpack."""
    from simcuda._generated.entry_table import ENTRIES, Direction, Entry, Param
    for e in ENTRIES:
        assert isinstance(e, Entry)
        for p in e.params:
            assert isinstance(p, Param) and isinstance(p.direction, Direction)
            ctype, name, direction = p
            assert direction in ("in", "out") and (ctype, name) == (p.ctype, p.name)
        assert all(p.direction is Direction.OUT for p in e.outputs)
