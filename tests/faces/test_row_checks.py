"""A wrong row of the entry table fails when simcuda/_core/api.py is imported (check_row against the generated C
declarations and the driver's operations) or when mypy checks it, not in a user's call (issue 18, item 2): the rows
are typed records (simcuda/_core/rows.py), not text."""
from __future__ import annotations

import attrs
import pytest

from simcuda._core.api import API, ROWS, RUNTIME_ROWS, VARIANTS, check_operations, check_row, check_runtime
from simcuda._core.events.event_entries import Events
from simcuda._core.modules.module_entries import Modules
from simcuda._core.rows import Api, Arg, Runtime, array, call, field, hand, named
from simcuda._core.streams.stream_entries import Streams
from simcuda._generated.entry_table import ENTRIES

BY_PYTHON = {e.python: e for e in ENTRIES if e.python}


def _declared(name: str) -> tuple[tuple[str, str, str], ...]:
    return tuple((p.ctype, p.name, p.direction.value) for p in BY_PYTHON[name].params)


def test_every_row_of_the_table_passes_the_import_check():
    """The rows as committed pass check_row (the import did it already; this names the failing row if not)."""
    for row in ROWS:
        check_row(row, _declared(row.name))
    for rt in RUNTIME_ROWS:
        check_runtime(rt)
    assert set(VARIANTS) <= {e.declared for e in ENTRIES}


def _not_an_entry(self: object, h: int) -> int:
    """A function that no entry group defines."""
    return h


@pytest.mark.parametrize("shape, message", [
    (call(Streams.stream_end_capture, "stream", out="phGraph"), "not parameters of the C declaration"),
    (call(Streams.stream_end_capture, array("hStream", "count"), out="phGraph"), "not parameters of the C decl"),
    (call(Streams.stream_end_capture, "hStream"), "fills the outputs"),
    (call(Streams.stream_end_capture, "hStream", out=("phGraph", "extra")), "not C parameters"),
    (call(Streams.stream_end_capture, "hStream", out=field("pGraph", "x")), "not C parameters"),
    (call(_not_an_entry, "hStream", out="phGraph"), "'_not_an_entry' is not a core operation"),
    (hand(), "names no core operation"),
])
def test_a_wrong_row_is_refused_with_the_row_name(shape, message):
    """A parameter the declaration lacks, missing or extra output slots, or an operation that is no core entry:
    ValueError naming the row, before any face is built from it (the table is unchanged)."""
    before = API["cuStreamEndCapture"]
    row = Api("cuStreamEndCapture", shape, before.doc)
    with pytest.raises(ValueError, match=message) as info:
        check_row(row, _declared("cuStreamEndCapture"))
    assert str(info.value).startswith("cuStreamEndCapture: ")
    assert API["cuStreamEndCapture"] is before and before.call.op == "stream_end_capture"


def test_a_shape_in_the_old_string_notation_is_refused():
    """A row is made of records: a shape written as text (the notation the package no longer parses) is a
    TypeError when the row is made (and a mypy error where it is written), as is a decoder given as text."""
    with pytest.raises(TypeError, match="shape"):
        Api("cuStreamEndCapture", "stream_end_capture(hStream) -> phGraph", "")
    with pytest.raises(TypeError, match="decoder"):
        Api("cuStreamGetCaptureInfo", hand(Streams.stream_get_capture_info), "",
            decoder="capture_info(True)")
    with pytest.raises(TypeError, match="shape"):
        Runtime("cudaStreamDestroy", "cuStreamDestroy", "(...)")
    with pytest.raises(ValueError, match="no C parameter"):
        call(Streams.stream_end_capture, "hStream", out=Arg("literal", None, 1))


def test_a_particular_row_is_checked_where_it_spells_its_call():
    """``hand(call(...))`` is checked like a complete call (the native adapters read it); ``hand(op)`` alone
    has no call to check but its operation."""
    check_row(Api("cuEventRecord", hand(Events.event_record), ""), _declared("cuEventRecord"))
    with pytest.raises(ValueError, match="not parameters"):
        check_row(Api("cuEventRecord", hand(call(Events.event_record, "event", "hStream")), ""),
                  _declared("cuEventRecord"))
    with pytest.raises(ValueError, match="cuEventRecord: '_not_an_entry' is not a core operation"):
        check_row(Api("cuEventRecord", hand(Events.event_record, _not_an_entry), ""), _declared("cuEventRecord"))


def test_a_runtime_row_is_checked():
    """A runtime row names a driver row of the table and, in a call of its own, core operations only."""
    check_runtime(Runtime("cudaStreamDestroy", "cuStreamDestroy"))
    with pytest.raises(ValueError, match="cudaX: the driver row 'cuNoSuch' is not in the table"):
        check_runtime(Runtime("cudaX", "cuNoSuch"))
    with pytest.raises(ValueError, match="cudaX: '_not_an_entry' is not a core operation"):
        check_runtime(Runtime("cudaX", "cuStreamDestroy", call(_not_an_entry, "stream")))


def test_an_alias_is_checked_under_its_name():
    """``named(ref, name)``: an operation bound to a function of another name is checked under ``name``; a wrong
    name is refused."""
    row = API["cuLaunchKernel"]
    assert "launch_kernel_fast" in row.ops
    check_operations(row)
    wrong = attrs.evolve(row, shape=hand(named(Modules.launch_kernel_fast, "launch_kernel_fastest")))
    with pytest.raises(ValueError, match="cuLaunchKernel: 'launch_kernel_fastest' is not a core operation"):
        check_operations(wrong)
