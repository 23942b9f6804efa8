"""The entry table: every simulated driver entry, described once (:class:`simcuda._core.rows.Api`), in the
order of the tuple face.

:data:`ROWS` concatenates the runs of rows each ``*_rows`` module holds (one module per concept: contexts, streams,
events, memory, pools, modules, graphs) in the tuple face's order; :data:`API` finds a row by name; :data:`VARIANTS`
holds the older variants the native route serves; :data:`RUNTIME_ROWS` the runtime entries. The forms of a row's
shape (typed records: :func:`~simcuda._core.rows.call`, :func:`~simcuda._core.rows.hand`...) are described in
:mod:`simcuda._core.rows`. Every row is checked against the generated C declarations and the driver's operations
when this module is imported (:func:`check_row`, :func:`check_runtime`); ``tests/faces/test_api_table.py`` checks
that every row names a real core operation and a real entry.
"""
from __future__ import annotations

from .contexts.context_entries import Contexts
from .contexts.context_rows import DEVICES_AND_CONTEXTS, LIMITS, PCI_LOOKUP, PEERS, PRIMARY_RESET
from .events.event_rows import EVENTS
from .facade import Driver
from .graphs.graph_rows import CONDITIONAL, GRAPHS, TOPOLOGY_AND_EXEC, USER_OBJECTS
from .memory.memory_rows import ARRAYS, BATCH_COPIES, MAPPED_AND_VMM, MEMOPS, MEMORY
from .memory.pool_rows import POOLS
from .modules.module_rows import KERNEL_ATTRIBUTES, LIBRARIES, MODULES, SYMBOLS
from .rows import Api, Arg, Call, Runtime, call, hand, kind
from .runtime_rows import RUNTIME_ROWS
from .streams.stream_entries import Streams
from .streams.stream_rows import STREAMS

#: every row, in the tuple face's order
ROWS: tuple[Api, ...] = (
    *DEVICES_AND_CONTEXTS,
    *STREAMS,
    *EVENTS,
    *MEMORY,
    *POOLS,
    *MODULES,
    *GRAPHS,
    *MEMOPS,
    *TOPOLOGY_AND_EXEC,
    *USER_OBJECTS,
    *LIBRARIES,
    *LIMITS,
    *KERNEL_ATTRIBUTES,
    *ARRAYS,
    *PRIMARY_RESET,
    *CONDITIONAL,
    *MAPPED_AND_VMM,
    *PEERS,
    *SYMBOLS,
    *BATCH_COPIES,
    *PCI_LOOKUP,
)


#: the rows by entry name
API: dict[str, Api] = {r.name: r for r in ROWS}


def _named(arg: Arg) -> list[str]:
    """The C parameter names an argument of a call reads, nested ones too."""
    own = [arg.name] if arg.kind in ("param", "array", "read", "field") and arg.name else []
    return own + [n for _kw, x in arg.items for n in _named(x)]


def _operations(row: Api | Runtime) -> tuple[str, ...]:
    """The core operations a row calls (its own call's, nested ones too, or those a particular shape lists)."""
    if isinstance(row, Api):
        return row.ops
    return row.call.ops if isinstance(row.shape, Call) else ()


def check_operations(row: Api | Runtime) -> None:
    """Check that every core operation a row names is one: a public callable of :class:`~simcuda._core.facade.Driver`
    (the rows name it by a reference mypy checks, ``Streams.stream_create``; this catches a reference to a
    function that is no entry group's method, or a :func:`~simcuda._core.rows.named` alias under a wrong name),
    and that a driver row names at least one. Raises ``ValueError`` naming the row."""
    ops = _operations(row)
    if isinstance(row, Api) and not ops:
        raise ValueError(f"{row.name}: the row names no core operation")
    for op in ops:
        if op.startswith("_") or not callable(getattr(Driver, op, None)):
            raise ValueError(f"{row.name}: {op!r} is not a core operation (a public method of Driver)")


def check_row(row: Api, declared: tuple[tuple[str, str, str], ...]) -> None:
    """Check a row against the C declaration of its entry (``(C type, name, "in" | "out")`` per parameter, from
    :mod:`simcuda._generated.entry_table`): its core operations are the driver's (:func:`check_operations`); the
    arguments of its call (and the counts of its arrays) name C parameters of the declaration; a complete row
    fills exactly the declared output parameters, in order (the wrapper's output slots), besides the struct
    fields it writes; a struct-field output
    is a field of a declared parameter.
    Raises ``ValueError`` naming the row, so that a wrong row fails when the table is imported, not in a user's
    call (the forms themselves are typed records: mypy checks them, and the operation's reference).
    """
    check_operations(row)
    if not row.has_call:
        return
    names = [n for _t, n, _d in declared]
    outs = [n for _t, n, d in declared if d == "out"]
    call = row.call
    read = [n for _kw, a in call.tree for n in _named(a)] + list(call.counts.values())
    if not set(read) <= set(names):
        raise ValueError(f"{row.name}: the call reads {sorted(set(read) - set(names))}, not parameters of the "
                         f"C declaration ({', '.join(names)})")
    slots = [call.fields.get(o, (o,))[0] for o in call.outs]
    if not set(slots) <= set(names):
        raise ValueError(f"{row.name}: the outputs {sorted(set(slots) - set(names))} are not C parameters")
    filled = [o for o in call.outs if o not in call.fields]  # a struct field output is written, not returned
    if not row.particular and filled != outs:
        raise ValueError(f"{row.name}: the call fills the outputs {filled}, the declaration has {outs}")


def check_runtime(row: Runtime) -> None:
    """Check a runtime row at import: it names a row of :data:`ROWS` and, where it has a call of its own, core
    operations of the driver (:func:`check_operations`). Its call's parameters are the runtime wrapper's, which the
    runtime face checks when it builds the function. Raises ``ValueError`` naming the row."""
    if row.driver not in API:
        raise ValueError(f"{row.name}: the driver row {row.driver!r} is not in the table")
    check_operations(row)


def _check_table() -> None:
    """Check every row (:func:`check_row`) against the generated C declarations, at import."""
    from .._generated.entry_table import ENTRIES
    by_python = {e.python: e for e in ENTRIES if e.python}
    by_declared = {e.declared: e for e in ENTRIES}
    for table, index in ((ROWS, by_python), (tuple(VARIANTS.values()), by_declared)):
        for row in table:
            entry = index.get(row.name)
            if entry is None:
                raise ValueError(f"{row.name}: not an entry the binding requests (simcuda/_generated/entry_table.py)")
            check_row(row, tuple((p.ctype, p.name, p.direction.value) for p in entry.params))
    for rt in RUNTIME_ROWS:
        check_runtime(rt)

#: rows of the older variants NVIDIA's binding still requests under a declared C name no Python wrapper has
#: (the native route serves them; the Python faces have only the newest). Keyed by the declared C name.
VARIANTS: dict[str, Api] = {r.name: r for r in (
    Api("cuCtxCreate_v2", call(Contexts.ctx_create, "flags", "dev", out="pctx"),
        """cuCtxCreate as declared before 11040 (``(CUcontext *pctx, unsigned int flags, CUdevice dev)``): no
creation parameters. Errors: those of ``cuCtxCreate``."""),
    Api("cuCtxCreate_v3", hand(Contexts.ctx_create),
        """cuCtxCreate as declared from 11040 to 12050 (``(CUcontext *pctx, CUexecAffinityParam *paramsArray, int
numParams, unsigned int flags, CUdevice dev)``): execution-affinity parameters given when ``numParams`` > 0 (or
the array is set), as the 12050 form's ``numExecAffinityParams``. Errors: those of ``cuCtxCreate``.""",
        decoder=kind("ctx_create")),
    Api("cuStreamGetCaptureInfo_v2", hand(Streams.stream_get_capture_info),
        """cuStreamGetCaptureInfo as declared from 11030 to 12030 (no edge-data output). Errors: those of
``cuStreamGetCaptureInfo``.""", decoder=kind("capture_info", False)),
)}



#: runtime name -> the driver entry it shares its rules with
RUNTIME: dict[str, str] = {r.name: r.driver for r in RUNTIME_ROWS}

_check_table()

