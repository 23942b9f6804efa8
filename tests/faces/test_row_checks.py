"""A wrong row of the entry table fails when simcuda/_core/api.py is imported (check_row against the generated C
declarations), not in a user's call (issue 18, item 2)."""
from __future__ import annotations

import pytest

from simcuda._core.api import API, ROWS, VARIANTS, check_row
from simcuda._core.rows import Api
from simcuda._generated.entry_table import ENTRIES

BY_PYTHON = {e.python: e for e in ENTRIES if e.python}


def _declared(name: str) -> tuple[tuple[str, str, str], ...]:
    return tuple((p.ctype, p.name, p.direction.value) for p in BY_PYTHON[name].params)


def test_every_row_of_the_table_passes_the_import_check():
    """The rows as committed pass check_row (the import did it already; this names the failing row if not)."""
    for row in ROWS:
        check_row(row, _declared(row.name))
    assert set(VARIANTS) <= {e.declared for e in ENTRIES}


@pytest.mark.parametrize("shape, message", [
    ("stream_end_capture(stream) -> phGraph", "not parameters of the C declaration"),
    ("stream_end_capture(hStream)", "fills the outputs"),
    ("stream_end_capture(hStream) -> phGraph, extra", "not C parameters"),
    ("stream_end_capture(hStream -> phGraph", "does not parse"),
])
def test_a_wrong_shape_is_refused_with_the_row_name(shape, message):
    """A parameter the declaration lacks, missing or extra output slots, or text that does not parse: ValueError
    naming the row, before any face is built from it."""
    row = Api("cuStreamEndCapture", shape, API["cuStreamEndCapture"].doc)
    with pytest.raises(ValueError, match=message) as info:
        check_row(row, _declared("cuStreamEndCapture"))
    assert str(info.value).startswith("cuStreamEndCapture: ")


def test_a_particular_row_is_checked_where_it_spells_its_call():
    """``op(args) -> outs (...)`` is checked like a complete call (the native adapters read it); ``op(...)`` alone
    has no call to check."""
    check_row(Api("cuEventRecord", "event_record(...)", ""), _declared("cuEventRecord"))
    with pytest.raises(ValueError, match="not parameters"):
        check_row(Api("cuEventRecord", "event_record(event, hStream) (...)", ""), _declared("cuEventRecord"))
