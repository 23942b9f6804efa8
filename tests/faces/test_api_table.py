"""The entry table (simcuda/_core/api.py): every row is real, every face reads it, and its prose has one copy."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import simcuda
from simcuda._core.api import API, ROWS
from simcuda._core.facade import Driver
from simcuda._generated.driver_outputs import OUTPUTS
from simcuda._generated.entry_table import ENTRIES
from simcuda.faces.bindings import driver as face
from simcuda.faces.bindings._v2 import driver as v2

FACES = Path(simcuda.__file__).parent / "faces" / "bindings"
BY_PYTHON = {e.python: e for e in ENTRIES if e.python}


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_row_names_a_requested_entry_and_real_core_operations(row):
    assert row.name in OUTPUTS and row.name in BY_PYTHON
    for op in row.ops:
        assert callable(getattr(Driver, op, None)), f"{row.name}: Driver has no {op}"


@pytest.mark.parametrize("row", [r for r in ROWS if not r.particular], ids=lambda r: r.name)
def test_complete_shape_uses_the_c_declaration(row):
    """Arguments and outputs are named as in cydriver.pxd, so the native adapters read the same shape."""
    declared = BY_PYTHON[row.name].params
    ins = [n for _t, n, d in declared]
    outs = [n for _t, n, d in declared if d == "out"]
    for _kw, p, _lit in row.call.args:
        assert p is None or p in ins, (row.name, p, ins)
    filled = [o for o in row.call.outs if o not in row.call.fields]  # struct field outputs are written, not returned
    assert filled == outs, (row.name, row.call.outs, outs)
    ctypes = {n: t for t, n, _d in declared}
    written_count = any(o in row.call.counts and ctypes[row.call.counts[o]].endswith("*") for o in filled)
    assert len(filled) + written_count == len(OUTPUTS[row.name][1])  # an in/out count is the wrapper's last slot
    core = inspect.signature(getattr(Driver, row.call.op))
    spread = any(a.kind == "spread" for _kw, a in row.call.tree)  # **p: a reader's keywords, known when called
    bind = core.bind_partial if spread else core.bind
    bind(None, *[0] * sum(kw is None and a.kind != "spread" for kw, a in row.call.tree),
         **{kw: 0 for kw, _p, _l in row.call.args if kw})  # the core accepts the shape's arguments


def _docstrings(path: Path) -> dict[str, str | None]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name: ast.get_docstring(n) for n in tree.body if isinstance(n, ast.FunctionDef)}


def test_tuple_face_functions_carry_no_copy_of_the_description():
    """A hand-written tuple-face function of a table entry has no docstring of its own: its help is the table's."""
    docs = _docstrings(FACES / "driver.py")
    assert [n for n, d in docs.items() if n in API and d] == []


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_every_face_shows_the_table_description(row):
    assert getattr(face, row.name).__doc__.endswith(row.doc)
    names = [n for n in dir(v2) if v2._row(n) is row and inspect.isfunction(getattr(v2, n))]  # not enums (MemAdvise)
    for name in names:
        doc = getattr(v2, name).__doc__
        if "Not simulated" not in doc:
            assert doc.endswith(row.doc), name


def test_complete_rows_are_built_not_written():
    """Every row with a complete shape is served by the built function in the tuple face, and the _v2
    functions built from the table are not also written by hand."""
    written = _docstrings(FACES / "driver.py")
    for row in ROWS:
        if not row.particular:
            assert row.name not in written, row.name
    v2_written = _docstrings(FACES / "_v2" / "driver.py")
    assert not set(v2._BUILT) & set(v2_written)


def test_built_functions_behave_like_the_wrapper():
    """Spot checks of built functions: outputs in the real types, errors as (code, None...), keywords."""
    with simcuda.patch() as drv:
        from cuda.bindings import driver as d
        assert d.cuInit(0) == (d.CUresult.CUDA_SUCCESS,)
        err, dev = d.cuDeviceGet(0)
        assert isinstance(dev, d.CUdevice)
        err, ctx = d.cuDevicePrimaryCtxRetain(dev)
        assert isinstance(ctx, d.CUcontext)
        d.cuCtxSetCurrent(ctx)
        err, s = d.cuStreamCreate(Flags=1)  # keyword form
        assert err == d.CUresult.CUDA_SUCCESS and isinstance(s, d.CUstream)
        assert d.cuStreamIsCapturing(s) == (d.CUresult.CUDA_SUCCESS,
                                            d.CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE)
        assert d.cuStreamBeginCapture(s, 5) == (d.CUresult.CUDA_ERROR_INVALID_VALUE,)
        assert d.cuStreamEndCapture(s) == (d.CUresult.CUDA_ERROR_ILLEGAL_STATE, None)
        assert drv.stats is not None and simcuda.last_error().code == d.CUresult.CUDA_ERROR_ILLEGAL_STATE
        with pytest.raises(TypeError):
            d.cuStreamIsCapturing("not a stream")
        free, total = d.cuMemGetInfo()[1:]
        assert 0 < free <= total


def test_runtime_entries_show_the_driver_description_they_share():
    from simcuda._core.api import RUNTIME
    from simcuda.faces.bindings import runtime
    for rt_name, base in RUNTIME.items():
        assert base in API, (rt_name, base)
        doc = getattr(runtime, rt_name).__doc__
        assert doc.endswith(API[base].doc) and f"those of ``{base}``" in doc, rt_name
    own = _docstrings(FACES / "runtime.py")
    assert [n for n in RUNTIME if own.get(n) and "Errors" in own[n]] == []  # the shared prose has one copy


def _named(arg) -> list[str]:
    """The C parameter names an argument of a shape reads, nested ones too."""
    own = [arg.name] if arg.kind in ("param", "array", "read", "field") else []
    return own + [n for _kw, x in arg.items for n in _named(x)]


@pytest.mark.parametrize("row", [r for r in ROWS if r.particular and r.has_call], ids=lambda r: r.name)
def test_a_particular_row_that_spells_its_call_uses_the_c_declaration(row):
    """``op(args) -> outs (...)``: the Python faces convert by hand, the call (arrays ``name[count]``, in/out
    pointers ``*name``, struct fields, records and nested core calls) names C parameters of the declaration,
    so the native adapters build the entry from it."""
    declared = {n: t for t, n, _d in BY_PYTHON[row.name].params}
    call = row.call
    for _kw, arg in call.tree:
        assert set(_named(arg)) <= set(declared), (row.name, _named(arg))
    for name, count in call.counts.items():
        if declared[name] == "char*" and name in call.outs:  # a text buffer and its size, by value
            assert declared[count] in ("int", "unsigned int", "size_t"), (row.name, name, count)
            continue
        assert declared[name].endswith("*") and declared[count] in ("size_t", "size_t*"), (row.name, name, count)
        assert (declared[count] == "size_t*") == (name in call.outs), (row.name, name)
    for name in call.reads:
        assert declared[name].endswith("*") and name in call.outs, (row.name, name)
    assert {call.fields.get(o, (o,))[0] for o in call.outs} <= set(declared)
    for op in call.ops:
        assert callable(getattr(Driver, op, None)), (row.name, op)
    if not any(a.kind == "spread" for _kw, a in call.tree):
        core = inspect.signature(getattr(Driver, call.op))
        core.bind(None, *[0] * sum(kw is None for kw, _a in call.tree), **{kw: 0 for kw, _a in call.tree if kw})


def _op(self: object, *args: object, **kwargs: object) -> None:
    """A stand-in core operation named ``_op``: the constructors take its name, check_row would refuse it."""


def _read_it(self: object, y: object) -> None:
    """A stand-in nested core operation."""


class Rec:
    """A stand-in record the core takes."""


def test_the_constructors_make_arrays_and_in_out_pointers():
    """``array``, ``read``, a literal and a keyword make the call the executors read: arguments in order, the
    arrays' counts, the in/out pointers, the output slots."""
    from simcuda._core.rows import Api, array, call, hand, lit, read

    c = call(_op, "h", array("deps", "n"), read("mode"), lit("lit"), k=True,
             out=(array("a", "m"), array("b", "m"), "mode"))
    assert c.op == "_op" and c.outs == ("a", "b", "mode")
    assert c.args == ((None, "h", None), (None, "deps", None), (None, "mode", None), (None, None, "lit"),
                      ("k", None, True))
    assert c.counts == {"deps": "n", "a": "m", "b": "m"} and c.reads == {"mode"} and c.simple
    assert not Api("cuY", hand(_op), "").has_call and Api("cuZ", call(_op, "h"), "").has_call
    assert Api("cuW", hand(c), "").has_call and Api("cuW", hand(c), "").particular
    assert call(_op, None, 0, 1.5).args == ((None, None, None), (None, None, 0), (None, None, 1.5))


def test_the_constructors_make_the_native_forms():
    """Struct fields (in and out), records, nested core calls, tuples, lists and spreads make the argument tree
    the native builder reads (a spread after the keywords); the nested core operations count among the row's
    operations; a decoder kind keeps its literal arguments."""
    from simcuda._core.rows import Api, Arg, call, field, hand, kind, record, result, spread

    row = Api("cuX", hand(call(_op, field("p", "a", "b"), record(Rec, "x", 1), result(_read_it, "y"), ("u", "v"),
                               [(2, "w")], spread("q"), k="z", out=("h", field("p", "out")))), "")
    c = row.call
    kinds = [(kw, a.kind, a.name) for kw, a in c.tree]
    assert kinds == [(None, "field", "p"), (None, "call", "Rec"), (None, "call", "_read_it"), (None, "tuple", None),
                     (None, "list", None), ("k", "param", "z"), (None, "spread", None)]
    assert c.tree[0][1].value == ("a", "b") and c.tree[1][1].items == ((None, Arg("param", "x")),
                                                                       (None, Arg("literal", None, 1)))
    assert c.outs == ("h", "p.out") and c.fields == {"p.out": ("p", ("out",))}
    assert not c.simple and row.ops == ("_op", "_read_it")
    assert Api("cuY", hand(_op), "", decoder=kind("node_get", 1)).decoder_kind == ("node_get", (1,))
    assert Api("cuY", hand(_op), "", decoder=kind("kernel_launch")).decoder_kind == ("kernel_launch", ())
    assert Api("cuY", hand(_op), "").decoder_kind is None
    assert hand(_op, _read_it).ops == ("_op", "_read_it") and hand(_op, _read_it).call is None
