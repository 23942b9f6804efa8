"""The records of the entry table (:class:`Api`, :class:`Runtime`) and the typed constructors a row's shape is
written with: every simulated driver entry is described once, as a row saying the core operation that serves it
and what it does.

Mirrors: the driver API of cuda-bindings 13.5.0 (``cuda.bindings.driver``), one :class:`Api` row per entry,
in the order of the tuple face. A row says three things, and nothing else says them:

* ``shape``: the core operation and how the entry's arguments reach it, in the C parameter names of the
  real declaration (``cuda/bindings/cydriver.pxd``, :mod:`simcuda._generated.entry_table`), written with the
  constructors of this module, so that mypy checks the operation and the forms and
  :func:`simcuda._core.api.check_row` checks the names (at import, and in ``tests/faces/test_row_checks.py``):

  - ``call(Streams.stream_end_capture, "hStream", out="phGraph")`` (:func:`call`) calls the core operation
    the method names (a reference mypy checks: the entry group's method, from its ``*_entries`` module) with the
    converted ``hStream`` and writes its result into the output slot ``phGraph``. A ``str`` argument is a C
    parameter; a number, ``True``/``False`` or ``None`` is a literal, and :func:`lit` makes any value one
    (``lit("cuMemAllocManaged")``, the API name for the core's messages); a keyword argument is the core's
    keyword (``allow_zero=True``; its value a parameter or a literal as above). ``out=("a", "b")``: several
    outputs come from a tuple result, in order.
  - ``hand(call(...))`` (:func:`hand`): the entry stays particular for the Python faces, which convert the
    wrapper's arguments by hand (their list checks, texts and order), while the call (:attr:`Api.call`,
    :attr:`Api.has_call`) serves faces that read C arguments. ``hand(Contexts.ctx_create)`` (one or more
    operations, no call) names the core operation(s) of an entry whose arguments every face converts by
    hand (struct parameters, buffers, callbacks, kernel arguments): what is particular to that face stays in
    the face, the rest is here.

  Two more forms say how C arrays reach the core, so a face that reads C arguments (the native adapters)
  builds the entry from the row too. ``array("deps", "n")`` (:func:`array`) is the array ``deps`` of ``n``
  items (``n`` the C parameter holding their number): as an argument, the core gets a ``list`` (a handle
  array gives ``int`` handles; an edge-data array ``(from_port, to_port, type)`` tuples, all zero when the
  array is NULL); as an output, ``n`` is a pointer read for the room there is and written with the number of
  items, the core's result is a list, and several outputs with the same count share one list of tuples
  (``out=(array("from_", "numEdges"), array("to", "numEdges"), array("edgeData", "numEdges"))``): a NULL
  (first) array only counts, as the driver does. ``read("mode")`` (:func:`read`) passes the value an in/out
  pointer points to (written back through ``out="mode"``).

  **Native forms.** A call inside :func:`hand` may use more forms, read only by the native adapters
  (:func:`simcuda.faces.native.adapters.builder`), so that they build every entry from its row:

  - ``field("p", "a", "b")`` (:func:`field`, an argument): field ``a.b`` of the struct the C parameter ``p``
    points to, read through its generated ctypes layout (:mod:`simcuda._generated.cydriver_ctypes`); a handle or
    pointer field is its address (NULL 0), a ``hStream``/``hUploadStream`` field follows the per-thread default
    stream rule; a NULL ``p`` is the core's INVALID_VALUE (``require_arg``), checked when the argument is read
    (``call(Memory.array_create, field("pAllocateArray", "Width"), ...)``). As an output
    (``out=("phGraphNode", field("nodeParams", "dptr"))``), the result is written into that field.
  - ``"p"`` naming a pointer to a struct that has a reader (:data:`simcuda.faces.native.structs.READERS`, one per
    struct, keyed by its C type name: the only place where the core's record differs from the C fields): the
    reader's value (``call(Memory.memcpy, "pCopy", None, lit("cuMemcpy2D"))`` gets a ``CopyParams``); NULL is
    INVALID_VALUE. ``spread("p")`` (:func:`spread`) spreads a reader's dict into keywords
    (``call(Graphs.graph_add_kernel_node, "hGraph", array("dependencies", "numDependencies"),
    spread("nodeParams"), out="phGraphNode")``); a spread comes after the keywords.
  - ``record(CopyParams, ...)`` (:func:`record`, the class of :mod:`simcuda._core.memory.memory_model`) builds the
    record the core takes; ``result(ArgumentRules.read_image_file, "fname", lit("cuModuleLoad"))``
    (:func:`result`) is another core operation, whose result is the argument; a Python ``tuple`` or ``list`` of
    arguments is a tuple or a list (``call(Streams.stream_batch_mem_op, "stream", [(2, "addr", "value",
    "flags")], 0, lit("cuStreamWriteValue32"))``).
  The Python faces read these forms too (:func:`simcuda.faces.bindings._executor.build`), except a struct field
  as an argument: a struct parameter ``p`` (and ``spread("p")``) through the face's reader of its wrapper struct
  (:attr:`~simcuda.faces.bindings._executor.FaceSpec.readers`), an output field written into the face's struct
  object, records, nested operations, tuples and lists built from the converted arguments, and a ``char*`` output
  with a by-value length as the wrapper's buffer of that many bytes; such a row needs no :func:`hand` for them.
  - By the C type alone, no form needed: a ``const char*`` argument is a ``str`` (None for NULL); a
    ``const char**`` output receives a static C string (NULL after a failed call [I], as ``cuGetErrorName``
    documents); ``out=array("name", "len")`` with ``char* name`` and a by-value ``len`` writes the text
    NUL-terminated, cut to ``len`` bytes; an output pointing to a struct gets the core's ``bytes`` (``CUuuid``).

  What cannot be data (a ``void**`` kernel parameter array decoded by the kernel's types, arrays the driver
  hands out and keeps, tagged unions, a value whose C type depends on another argument, results written back
  on failure) is a **decoder kind**: the row is ``hand(Op.op)`` and names the kind, ``decoder=kind("node_get",
  1)`` (:func:`kind`: a name of :data:`simcuda.faces.native.adapters.KINDS`, with literal arguments), and the
  generator builds the adapter with it; no adapter is written per entry (``tests/native/test_native_generated.py``).
  An older variant that no Python wrapper has (``cuCtxCreate_v2``) has its row in :data:`VARIANTS`, by declared name.
* ``doc``: what the entry does, its arguments' meaning, and its errors in the order the core checks
  them, with the spec sections they cite: the only copy of that prose. Every face (the tuple face, the
  ``_v2`` face, the runtime face, the native adapters) shows it under its own generated header.
* the argument kinds are not written here: each face derives them from the real declarations (the
  Python wrapper's signature and docstring types for the Python faces, the C types for the native
  adapters), so a conversion is written once per kind, never per entry.

The constructors build the records the executors read (:class:`Call`, :class:`Arg`, :class:`Hand`,
:class:`Kind`); nothing is parsed from text. The rows themselves are in the ``*_rows`` modules, one per concept,
and :mod:`simcuda._core.api` puts them in the tuple face's order. A face builds the function of every row whose
shape is complete (:func:`simcuda.faces.bindings.driver`'s ``_build``); ``tests/faces/test_api_table.py`` checks
that every row names a real core operation and a real entry, and that the built functions behave as the real
wrapper does. ``tools/rows_from_strings.py`` rewrites rows written in the older string notation into these
constructors.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from typing import TypeAlias

    #: what an argument of a row is written as: a C parameter (``str``), a literal (a number, a bool, None), a
    #: form of this module (:class:`Arg`), or a tuple or list of these
    Value: TypeAlias = "str | int | float | Arg | tuple[Value, ...] | list[Value] | None"
    #: an output of a row: a C parameter, ``array(name, count)``, ``read(name)`` or ``field(p, ...)``
    Out: TypeAlias = "str | Arg"

#: a core operation, named by the method of its entry group (``Streams.stream_end_capture``): mypy checks that
#: the method exists, :func:`simcuda._core.api.check_row` that it is a core entry point
Op = Callable[..., object]


@attrs.frozen
class Arg:
    """One argument of a call (:attr:`Call.tree`): what the core gets, and from where.

    ``kind``: ``"param"`` (the C parameter ``name``), ``"array"`` (:func:`array`, ``value`` the count
    parameter), ``"read"`` (:func:`read`), ``"literal"`` (``value``), ``"field"`` (:func:`field`: the field path
    ``value`` of the struct parameter ``name``), ``"call"`` (``name(...)``: a record the core takes when
    ``name`` is capitalised (:func:`record`), else a core operation (:func:`result`), with ``items``), ``"tuple"`` /
    ``"list"`` (``items``), ``"spread"`` (:func:`spread`: the keywords of the dict ``items[0]``). ``items``:
    ``(keyword or None, Arg)`` pairs.
    """

    kind: str
    name: str | None = None
    value: object = None
    items: tuple[tuple[str | None, Arg], ...] = ()


#: argument kinds the first shape forms have (a call of only these is built by the simple adapters)
SIMPLE_KINDS = frozenset({"param", "array", "read", "literal"})


@attrs.frozen
class Call:
    """A row's core call (made by :func:`call`): the core method, its arguments and the output slots it fills.

    ``args``: ``(keyword or None, C parameter name or None, literal)`` per argument, in order (a literal
    when the parameter name is None; for an argument of the native forms, its :class:`Arg`);
    ``outs``: the output slot names, in the order of the result (a struct field output as ``p.a.b``);
    ``counts``: the array arguments and outputs (:func:`array`), name -> its count parameter;
    ``reads``: the in/out pointers whose value is passed (:func:`read`); ``tree``: every argument as an
    :class:`Arg`; ``fields``: the struct field outputs, slot -> ``(parameter, field path)``.
    """

    op: str
    args: tuple[tuple[str | None, str | None, object], ...]
    outs: tuple[str, ...]
    counts: dict[str, str] = attrs.field(factory=dict)
    reads: frozenset[str] = frozenset()
    tree: tuple[tuple[str | None, Arg], ...] = ()
    fields: dict[str, tuple[str, tuple[str, ...]]] = attrs.field(factory=dict)

    @property
    def simple(self) -> bool:
        """True when the call has only the first forms (parameters, literals, arrays, in/out pointers)."""
        return not self.fields and all(a.kind in SIMPLE_KINDS for _kw, a in self.tree)

    @property
    def ops(self) -> tuple[str, ...]:
        """The core operations the call makes: its own, then those nested in its arguments."""
        found = [self.op]

        def walk(a: Arg) -> None:
            if a.kind == "call" and a.name and not a.name[0].isupper():
                found.append(a.name)
            for _kw, x in a.items:
                walk(x)
        for _kw, a in self.tree:
            walk(a)
        return tuple(dict.fromkeys(found))


@attrs.frozen
class Hand:
    """A particular shape (made by :func:`hand`): the Python faces convert the entry's arguments by hand.

    ``ops``: the core operation(s) the entry calls; ``call``: the complete call the faces that read C arguments
    (the native adapters) build the entry from, or None when every face converts by hand.
    """

    ops: tuple[str, ...]
    call: Call | None = None


@attrs.frozen
class Kind:
    """A native decoder kind (made by :func:`kind`): a name of :data:`simcuda.faces.native.adapters.KINDS` and its
    literal arguments."""

    name: str
    args: tuple[object, ...] = ()


@attrs.frozen
class Named:
    """A core operation whose method is a class attribute bound to a function of another name
    (``Modules.launch_kernel_fast`` is :func:`simcuda._core.modules.launch.launch`): the reference (mypy checks
    it) and the name of the attribute, which :func:`simcuda._core.api.check_operations` checks is an operation of
    ``Driver`` (``tests/faces/test_row_checks.py``)."""

    ref: Op
    name: str

    def __call__(self, *args: object, **kwargs: object) -> object:
        """Call the operation (a :data:`Op` like the others)."""
        return self.ref(*args, **kwargs)


def named(ref: Op, name: str) -> Named:
    """The core operation ``ref`` under its attribute ``name`` (see :class:`Named`)."""
    return Named(ref, name)


def _name(op: Op) -> str:
    """The method name of a core operation's reference."""
    if isinstance(op, Named):
        return op.name
    name = getattr(op, "__name__", None)
    if not isinstance(name, str):
        raise TypeError(f"{op!r} names no core operation (write the entry group's method: Streams.stream_create)")
    return name


def _arg(v: Value) -> Arg:
    """The :class:`Arg` of an argument as a row writes it."""
    if isinstance(v, Arg):
        return v
    if isinstance(v, str):
        return Arg("param", v)
    if isinstance(v, (tuple, list)):
        return Arg("tuple" if isinstance(v, tuple) else "list", None, None, tuple((None, _arg(x)) for x in v))
    return Arg("literal", None, v)


def _items(args: tuple[Value, ...], kwargs: dict[str, Value]) -> tuple[tuple[str | None, Arg], ...]:
    """The ``(keyword or None, Arg)`` items of positional and keyword arguments; spreads last."""
    pos = [(None, _arg(a)) for a in args]
    spreads = [(kw, a) for kw, a in pos if a.kind == "spread"]
    return (*((kw, a) for kw, a in pos if a.kind != "spread"), *((k, _arg(v)) for k, v in kwargs.items()), *spreads)


def lit(value: object) -> Arg:
    """A literal argument (``lit("cuMemAllocManaged")``: a text is a C parameter unless written so)."""
    return Arg("literal", None, value)


def array(name: str, count: str) -> Arg:
    """The C array ``name`` of ``count`` items (``count`` the C parameter holding their number); see the module
    docstring for arrays as outputs."""
    return Arg("array", name, count)


def read(name: str) -> Arg:
    """The value the in/out pointer ``name`` points to."""
    return Arg("read", name)


def field(param: str, *path: str) -> Arg:
    """Field ``path`` (``"a", "b"`` for ``a.b``) of the struct the C parameter ``param`` points to."""
    if not path:
        raise ValueError(f"field({param!r}) names no field")
    return Arg("field", param, path)


def spread(value: Value) -> Arg:
    """The keywords of the dict ``value`` (a struct parameter's reader's dict) spread into the core call."""
    return Arg("spread", None, None, ((None, _arg(value)),))


def record(cls: type, *args: Value, **kwargs: Value) -> Arg:
    """The record ``cls(...)`` (a class of :mod:`simcuda._core.memory.memory_model`) the core takes."""
    return Arg("call", cls.__name__, None, _items(args, kwargs))


def result(op: Op, *args: Value, **kwargs: Value) -> Arg:
    """The result of another core operation, as an argument."""
    return Arg("call", _name(op), None, _items(args, kwargs))


def _walk(a: Arg, counts: dict[str, str], reads: set[str]) -> None:
    """Collect the arrays and in/out pointers an argument reads, nested ones too."""
    if a.kind == "array":
        counts[str(a.name)] = str(a.value)
    elif a.kind == "read":
        reads.add(str(a.name))
    for _kw, x in a.items:
        _walk(x, counts, reads)


def call(op: Op, /, *args: Value, out: Out | tuple[Out, ...] = (), **kwargs: Value) -> Call:
    """The core call of a row: ``op`` (the entry group's method) with ``args`` and ``kwargs`` (see the module
    docstring for their forms), filling the output slots ``out`` (one, or a tuple, in the order of the result).

    Raises ``ValueError`` for an output that is no C parameter, array, in/out pointer or struct field.
    """
    tree = _items(args, kwargs)
    counts: dict[str, str] = {}
    reads: set[str] = set()
    for _kw, a in tree:
        _walk(a, counts, reads)
    outs: list[str] = []
    fields: dict[str, tuple[str, tuple[str, ...]]] = {}
    for o in out if isinstance(out, tuple) else (out,):
        a = _arg(o)
        if a.kind == "field" and a.name is not None and isinstance(a.value, tuple):
            slot = ".".join((a.name, *a.value))
            fields[slot] = (a.name, a.value)
            outs.append(slot)
            continue
        if a.kind not in ("param", "array", "read") or a.name is None:
            raise ValueError(f"{_name(op)}: the output {o!r} is no C parameter, array, in/out pointer or field")
        _walk(a, counts, reads)
        outs.append(a.name)
    flat = tuple((kw, a.name if a.kind in ("param", "array", "read") else None,
                  a.value if a.kind == "literal" else (None if a.kind in SIMPLE_KINDS else a)) for kw, a in tree)
    return Call(_name(op), flat, tuple(outs), counts, frozenset(reads), tree, fields)


def hand(*what: Call | Op) -> Hand:
    """A particular shape: ``hand(call(...))`` (the Python faces convert by hand, the call serves the native
    adapters) or ``hand(Op.a, Op.b)`` (the core operations of an entry every face converts by hand); ``hand()``
    alone is a runtime entry written by hand in the runtime face."""
    if len(what) == 1 and isinstance(what[0], Call):
        return Hand(what[0].ops, what[0])
    if any(isinstance(w, Call) for w in what):
        raise ValueError("hand() takes one call, or core operations")
    return Hand(tuple(_name(w) for w in what if not isinstance(w, Call)))


def kind(name: str, *args: object) -> Kind:
    """The native decoder kind ``name`` (of :data:`simcuda.faces.native.adapters.KINDS`) with literal arguments."""
    return Kind(name, args)


@attrs.frozen
class Api:
    """One driver entry: its name, the core operation that serves it (:attr:`shape`), and its description.

    ``name``: the driver API name as the tuple face spells it (``cuStreamBeginCapture``);
    ``shape``: a :func:`call` or a :func:`hand` (see the module docstring; a ``TypeError`` for anything else, text
    included); ``doc``: the entry's description and errors; ``decoder``: the native decoder kind for what cannot
    be data (:func:`kind`; None: the adapter is built from the call).
    """

    name: str
    shape: Call | Hand = attrs.field(validator=attrs.validators.instance_of((Call, Hand)))
    doc: str
    decoder: Kind | None = attrs.field(default=None, validator=attrs.validators.optional(
        attrs.validators.instance_of(Kind)))

    @property
    def particular(self) -> bool:
        """True when a face converts this entry's arguments by hand (the shape is a :func:`hand`)."""
        return isinstance(self.shape, Hand)

    @property
    def has_call(self) -> bool:
        """True when the shape spells the core call (a :func:`call`, or one inside :func:`hand`)."""
        return isinstance(self.shape, Call) or self.shape.call is not None

    @property
    def ops(self) -> tuple[str, ...]:
        """The core operation(s) the entry calls (``Driver`` method names): those its call makes, nested ones
        too, or those a particular shape lists (``hand(Op.a, Op.b)``)."""
        return self.shape.ops

    @property
    def decoder_kind(self) -> tuple[str, tuple[object, ...]] | None:
        """The native decoder kind :attr:`decoder` names, as ``(kind, literal arguments)``; None when the
        native adapter is built from the call."""
        return None if self.decoder is None else (self.decoder.name, self.decoder.args)

    @property
    def call(self) -> Call:
        """The core call (ValueError for a particular entry that spells no call)."""
        shape = self.shape
        if isinstance(shape, Call):
            return shape
        if shape.call is None:
            raise ValueError(f"{self.name}: its face converts the arguments by hand")
        return shape.call


@attrs.frozen
class Runtime:
    """One runtime entry (``cuda.bindings.runtime``) that is a driver entry with the runtime's conventions.

    ``name``: the runtime name (``cudaMalloc``); ``driver``: the :class:`Api` row whose rules, errors and
    description it shares (its codes translated to ``cudaError_t`` by value); ``shape``: how the runtime face
    calls the core, in the runtime wrapper's parameter names and the forms of :attr:`Api.shape`: None for
    the driver row's call with the runtime's parameters in place of the driver's, one for one in order
    (``cudaStreamDestroy(stream)`` is ``stream_destroy(hStream)``); a :func:`call` of its own where the runtime
    passes something else (its name for the core's messages, ``allow_zero=True``, a literal for a parameter it
    lacks); ``hand()`` when the runtime face writes the function by hand (listed with the reason in
    ``tests/faces/hand_written_exceptions.py``). ``needs``: what the runtime sets up first: ``"ctx"`` (initialise,
    then make the thread's device's primary context current unless a context is current), ``"init"`` (initialise
    only: entries that name their device), ``"none"``. ``doc``: what is particular to the runtime entry, shown
    before the driver row's description.
    """

    name: str
    driver: str
    shape: Call | Hand | None = attrs.field(default=None, validator=attrs.validators.optional(
        attrs.validators.instance_of((Call, Hand))))
    needs: str = attrs.field(default="ctx", validator=attrs.validators.in_(("ctx", "init", "none")))
    doc: str = ""

    @property
    def particular(self) -> bool:
        """True when the runtime face writes this entry by hand."""
        return isinstance(self.shape, Hand)

    @property
    def call(self) -> Call:
        """The runtime's own call (:attr:`shape`); ValueError when the row uses the driver row's call or is
        written by hand."""
        if not isinstance(self.shape, Call):
            raise ValueError(f"{self.name}: no call of its own")
        return self.shape
