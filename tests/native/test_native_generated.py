"""Every native adapter comes from the generator: made from its entry's row in simcuda/_core/api.py (its call, or
the decoder kind the row declares) and the C declarations generated from the wheel, never written per entry.

The generated inputs are checked against the installed cuda-bindings wheel elsewhere, so a stale table fails
there: ``tests/test_entry_table.py`` (entry_table.py from cydriver.pxd), ``tests/test_cydriver_ctypes.py``
(cydriver_ctypes.py from cydriver.pxd and the wheel's sizeof) and ``tests/native/test_library.py``
(faces/native/entries.h from the entry table); :func:`test_the_staleness_checks_exist` keeps those checks in place.
"""
from __future__ import annotations

from pathlib import Path

from simcuda._core.api import API, ROWS, VARIANTS
from simcuda._generated import cydriver_ctypes as C
from simcuda._generated.entry_table import ENTRIES
from simcuda.faces.native import adapters as A
from simcuda.faces.native import structs as S

ROOT = Path(__file__).resolve().parents[2]
GENERIC = (A._build, A._build_arrays, A._build_general)


def _served() -> list[int]:
    return [i for i in range(len(ENTRIES)) if A.adapter(i) is not None]


def test_no_decoder_is_written_for_one_entry():
    """The maps of decoders keyed by a declared C name are empty: an entry's C arguments are data (its row's
    call, in the shape's native forms) or a decoder kind its row names (``Api(..., decoder="kind(...)")``)."""
    how = ("make the adapter from the row instead: spell its call in the shape's native forms (simcuda/_core/api.py's "
           "docstring), or register the decoder in adapters.KINDS / structs.KINDS and name it in the row "
           "(Api(..., decoder=\"kind(...)\"))")
    assert A.PARTICULAR == {}, how
    assert S.DECODERS == {}, how


def test_every_served_entry_is_made_from_its_row():
    """Each served (name, version) pair has a row (its Python wrapper's, or an older variant's in VARIANTS);
    the row names a decoder kind that exists, or its call is built by a generic builder."""
    made = {"kind": 0, "built": 0}
    for i in _served():
        e = ENTRIES[i]
        row = A.row_of(e)
        assert row is not None, e.declared
        kind = row.decoder_kind
        if kind is not None:
            assert kind[0] in A.KINDS, (e.declared, kind)
            made["kind"] += 1
        else:
            assert row.has_call and A.builder(e, row) in GENERIC, e.declared
            made["built"] += 1
    assert made["built"] > 3 * made["kind"], made  # data, with a few kinds for what cannot be


def test_a_row_names_a_kind_or_spells_a_call_never_both():
    """A decoder kind is for an entry whose call the shape cannot spell: a row with a kind is ``op(...)``."""
    for row in (*ROWS, *VARIANTS.values()):
        if row.decoder:
            assert not row.has_call, row.name


def test_every_kind_serves_a_row_and_no_kind_is_an_entry_name():
    """No kind is left unused, and none is named after a C entry (a kind is a way of decoding, not an entry)."""
    used = {r.decoder_kind[0] for r in (*ROWS, *VARIANTS.values()) if r.decoder_kind}
    assert used == set(A.KINDS)
    names = {e.name for e in ENTRIES} | {e.declared for e in ENTRIES}
    assert not set(A.KINDS) & names


def test_struct_readers_name_generated_structs_that_entries_take():
    """Each struct reader is keyed by a C struct of the generated declarations that some entry takes by pointer."""
    taken = {A._base(t) for e in ENTRIES for t, _n, _d in e.params if A._struct_of(t) is not None}
    for name in S.READERS:
        assert A._struct_of(name + "*") is getattr(C, name), name
        assert name in taken, name


def test_built_rows_and_kinds_cover_every_row_the_python_face_has():
    """Every row of the table whose Python wrapper is requested by the binding is served on the native route."""
    by_python = {e.python for i, e in enumerate(ENTRIES) if e.python and A.adapter(i) is not None}
    assert set(API) <= by_python


def test_the_staleness_checks_exist():
    """The tests that fail when a generated input is stale against the installed wheel are still there."""
    for path, tool in (("tests/test_entry_table.py", "gen_entry_table.py"),
                       ("tests/test_cydriver_ctypes.py", "gen_cydriver_ctypes.py"),
                       ("tests/native/test_library.py", "gen_native_entries.py")):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert tool in text and '"--check"' in text, path


def test_native_form_adapters_are_generated_source_calling_the_rows_operations():
    """An adapter of the native forms is Python source generated from its row (kept as ``source``) that calls
    the row's core operations, nested ones too, with one argument per C parameter."""
    for i in _served():
        e = ENTRIES[i]
        row = A.row_of(e)
        if row.decoder_kind is None and A.builder(e, row) is A._build_general:
            source = A._build_general(e, row, False).source
            for op in row.call.ops:
                assert f"d.{op}(" in source, (e.declared, op)
            assert source.startswith(f"def body({', '.join(f'a{j}' for j in range(len(e.params)))}):"), e.declared
