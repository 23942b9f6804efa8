"""The records of the entry table (:class:`Api`, :class:`Runtime`) and the parser of a row's shape: every simulated
driver entry is described once, as a row saying the core operation that serves it and what it does.

Mirrors: the driver API of cuda-bindings 13.5.0 (``cuda.bindings.driver``), one :class:`Api` row per entry,
in the order of the tuple face. A row says three things, and nothing else says them:

* ``shape``: the core operation and how the entry's arguments reach it, in the C parameter names of the
  real declaration (``cuda/bindings/cydriver.pxd``, :mod:`simcuda._generated.entry_table`):
  ``"stream_end_capture(hStream) -> phGraph"`` calls :meth:`Driver.stream_end_capture` with the converted
  ``hStream`` and writes its result into the output slot ``phGraph``; a quoted argument is a literal
  (``'cuMemAllocManaged'``, the API name for the core's messages), ``name=arg`` a keyword. Several
  outputs come from a tuple result, in order. A shape ending in ``(...)`` names the core operation(s) of
  an entry whose arguments a face converts by hand (struct parameters, buffers, callbacks, kernel
  arguments): what is particular to that face stays in the face, the rest is here.

  Two more forms say how C arrays reach the core, so a face that reads C arguments (the native adapters)
  builds the entry from the row too. ``name[count]`` is the array ``name`` of ``count`` items (``count`` the
  C parameter holding their number): as an argument, the core gets a ``list`` (a handle array gives ``int``
  handles; an edge-data array ``(from_port, to_port, type)`` tuples, all zero when the array is NULL); as an
  output, ``count`` is a pointer read for the room there is and written with the number of items, the
  core's result is a list, and several outputs with the same count share one list of tuples
  (``-> from_[numEdges], to[numEdges], edgeData[numEdges]``): a NULL (first) array only counts, as the
  driver does. ``*name`` passes the value an in/out pointer points to (``*mode``, written back through
  ``-> mode``). A complete call may be followed by `` (...)``: the entry stays particular for the Python
  faces, which convert the wrapper's arguments by hand (their list checks, texts and order), while the call
  (:attr:`Api.call`, :attr:`Api.has_call`) serves faces that read C arguments.

  **Native forms.** A call after which `` (...)`` follows may use more forms, read only by the native
  adapters (:func:`simcuda.faces.native.adapters.builder`), so that they build every entry from its row:

  - ``p.a.b`` (an argument): field ``a.b`` of the struct the C parameter ``p`` points to, read through its
    generated ctypes layout (:mod:`simcuda._generated.cydriver_ctypes`); a handle or pointer field is its
    address (NULL 0), a ``hStream``/``hUploadStream`` field follows the per-thread default stream rule; a NULL
    ``p`` is the core's INVALID_VALUE (``require_arg``), checked when the argument is read
    (``array_create(pAllocateArray.Width, ...)``). As an output (``-> phGraphNode, nodeParams.dptr``), the
    result is written into that field.
  - ``p`` naming a pointer to a struct that has a reader (:data:`simcuda.faces.native.structs.READERS`, one per
    struct, keyed by its C type name: the only place where the core's record differs from the C fields): the
    reader's value (``memcpy(pCopy, None, 'cuMemcpy2D')`` gets a ``CopyParams``); NULL is INVALID_VALUE.
    ``**p`` spreads a reader's dict into keywords (``graph_add_kernel_node(hGraph, deps[n], **nodeParams)``).
  - ``Record(...)`` (a capitalised name: ``CopyParams``, ``MemsetParams`` of :mod:`simcuda._core.memory.memory_model`)
    builds the record the core takes; ``op(...)`` nested is another core operation, whose result is the
    argument (``module_load_data(read_image_file(fname, 'cuModuleLoad'), 'cuModuleLoad')``); ``(a, b)`` and
    ``[a, b]`` are a tuple and a list (``stream_batch_mem_op(stream, [(2, addr, value, flags)], 0, ...)``).
  The Python faces read these forms too (:func:`simcuda.faces.bindings._executor.build`), except a struct field
  as an argument: a struct parameter ``p`` (and ``**p``) through the face's reader of its wrapper struct
  (:attr:`~simcuda.faces.bindings._executor.FaceSpec.readers`), an output field ``p.a.b`` written into the
  face's struct object, records, nested operations, tuples and lists built from the converted arguments, and
  ``-> name[len]`` as the wrapper's ``len``-byte buffer; such a row needs no `` (...)`` for them.
  - By the C type alone, no form needed: a ``const char*`` argument is a ``str`` (None for NULL); a
    ``const char**`` output receives a static C string (NULL after a failed call [I], as ``cuGetErrorName``
    documents); ``-> name[len]`` with ``char* name`` and a by-value ``len`` writes the text NUL-terminated,
    cut to ``len`` bytes; an output pointing to a struct gets the core's ``bytes`` (``CUuuid``).

  What cannot be data (a ``void**`` kernel parameter array decoded by the kernel's types, arrays the driver
  hands out and keeps, tagged unions, a value whose C type depends on another argument, results written back
  on failure) is a **decoder kind**: the row keeps ``op(...)`` and names the kind, ``decoder="node_get(1)"``
  (a name of :data:`simcuda.faces.native.adapters.KINDS`, with literal arguments), and the generator builds the
  adapter with it; no adapter is written per entry (``tests/native/test_native_generated.py``). An older
  variant that no Python wrapper has (``cuCtxCreate_v2``) has its row in :data:`VARIANTS`, by declared name.
* ``doc``: what the entry does, its arguments' meaning, and its errors in the order the core checks
  them, with the spec sections they cite: the only copy of that prose. Every face (the tuple face, the
  ``_v2`` face, the runtime face, the native adapters) shows it under its own generated header.
* the argument kinds are not written here: each face derives them from the real declarations (the
  Python wrapper's signature and docstring types for the Python faces, the C types for the native
  adapters), so a conversion is written once per kind, never per entry.

The rows themselves are in the ``*_rows`` modules, one per concept, and :mod:`simcuda._core.api` puts them
in the tuple face's order. A face builds the function of every row whose shape is complete
(:func:`simcuda.faces.bindings.driver`'s ``_build``); ``tests/faces/test_api_table.py`` checks that every row names
a real core operation and a real entry, and that the built functions behave as the real wrapper does.
"""
from __future__ import annotations

import ast
import functools

import attrs


@attrs.frozen
class Arg:
    """One argument of a shape in the native forms (:attr:`Call.tree`): what the core gets, and from where.

    ``kind``: ``"param"`` (the C parameter ``name``), ``"array"`` (``name[count]``, ``value`` the count
    parameter), ``"read"`` (``*name``), ``"literal"`` (``value``), ``"field"`` (``name.a.b``: the field path
    ``value`` of the struct parameter ``name``), ``"call"`` (``name(...)``: a record the core takes when
    ``name`` is capitalised, else a core operation, with ``items``), ``"tuple"`` / ``"list"`` (``items``),
    ``"spread"`` (``**x``: the keywords of the dict ``items[0]``). ``items``: ``(keyword or None, Arg)`` pairs.
    """

    kind: str
    name: str | None = None
    value: object = None
    items: tuple[tuple[str | None, Arg], ...] = ()


#: argument kinds the first shape forms have (a call of only these is built by the simple adapters)
SIMPLE_KINDS = frozenset({"param", "array", "read", "literal"})


@attrs.frozen
class Call:
    """A parsed :attr:`Api.shape`: the core method, its arguments and the output slots it fills.

    ``args``: ``(keyword or None, C parameter name or None, literal)`` per argument, in order (a literal
    when the parameter name is None; for an argument of the native forms, its :class:`Arg`);
    ``outs``: the output slot names, in the order of the result (a struct field output ``p.a.b`` as that
    text); ``counts``: the array arguments and outputs (``name[count]``), name -> its count parameter;
    ``reads``: the in/out pointers whose value is passed (``*name``); ``tree``: every argument as an
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
        """True when the call has only the first forms (parameters, literals, ``name[count]``, ``*name``)."""
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
class Api:
    """One driver entry: its name, the core operation that serves it (:attr:`shape`), and its description.

    ``name``: the driver API name as the tuple face spells it (``cuStreamBeginCapture``);
    ``shape``: see the module docstring; ``doc``: the entry's description and errors; ``decoder``: the
    native decoder kind for what cannot be data (``"node_get(1)"``; empty: the adapter is built from the call).
    """

    name: str
    shape: str
    doc: str
    decoder: str = ""

    @property
    def particular(self) -> bool:
        """True when a face converts this entry's arguments by hand (the shape ends in ``(...)``)."""
        return self.shape.endswith("(...)")

    @property
    def has_call(self) -> bool:
        """True when the shape spells the core call (complete, or complete then `` (...)``)."""
        return not self.particular or (self.shape != self._head + "(...)" and self.shape.endswith(" (...)"))

    @property
    def _head(self) -> str:
        return self.shape.split("(", 1)[0]

    @property
    def ops(self) -> tuple[str, ...]:
        """The core operation(s) the entry calls (``Driver`` method names): those its call makes, nested ones
        too, or those a particular shape lists (``a/b(...)``)."""
        if self.has_call and "/" not in self._head:
            return self.call.ops
        return tuple(self._head.split("/"))

    @functools.cached_property
    def decoder_kind(self) -> tuple[str, tuple[object, ...]] | None:
        """The native decoder kind :attr:`decoder` names, as ``(kind, literal arguments)``; None when the
        native adapter is built from the call."""
        if not self.decoder:
            return None
        expr = ast.parse(self.decoder, mode="eval").body
        if isinstance(expr, ast.Name):
            return expr.id, ()
        assert isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and not expr.keywords, self.decoder
        return expr.func.id, tuple(ast.literal_eval(a) for a in expr.args)

    @functools.cached_property
    def call(self) -> Call:
        """The parsed shape (ValueError for a particular entry that spells no call)."""
        if not self.has_call:
            raise ValueError(f"{self.name}: its face converts the arguments by hand")
        shape = self.shape.removesuffix(" (...)")
        head, _, outs = shape.partition(" -> ")
        expr = ast.parse(head, mode="eval").body
        assert isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name), self.shape
        counts: dict[str, str] = {}
        reads: set[str] = set()

        def field_path(node: ast.expr) -> tuple[str, tuple[str, ...]] | None:
            path: list[str] = []
            while isinstance(node, ast.Attribute):
                path.insert(0, node.attr)
                node = node.value
            return (node.id, tuple(path)) if path and isinstance(node, ast.Name) else None

        def arg_of(node: ast.expr) -> Arg:
            if isinstance(node, ast.Subscript):  # name[count]: an array and its count parameter
                assert isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Name), self.shape
                counts[node.value.id] = node.slice.id
                return Arg("array", node.value.id, node.slice.id)
            if isinstance(node, ast.Starred):  # *name: the value an in/out pointer points to
                assert isinstance(node.value, ast.Name), self.shape
                reads.add(node.value.id)
                return Arg("read", node.value.id)
            if isinstance(node, ast.Name):
                return Arg("param", node.id)
            if isinstance(node, ast.Attribute):  # p.a.b: a field of the struct parameter p
                fp = field_path(node)
                assert fp is not None, self.shape
                return Arg("field", fp[0], fp[1])
            if isinstance(node, ast.Call):  # Record(...) or core_op(...)
                assert isinstance(node.func, ast.Name), self.shape
                return Arg("call", node.func.id, None, items_of(node.args, node.keywords))
            if isinstance(node, (ast.Tuple, ast.List)):
                return Arg("tuple" if isinstance(node, ast.Tuple) else "list", None, None,
                           tuple((None, arg_of(x)) for x in node.elts))
            return Arg("literal", None, ast.literal_eval(node))

        def items_of(args: list[ast.expr], keywords: list[ast.keyword]) -> tuple[tuple[str | None, Arg], ...]:
            items: list[tuple[str | None, Arg]] = [(None, arg_of(a)) for a in args]
            for k in keywords:  # k.arg None: **x, the keywords of a dict
                items.append((k.arg, arg_of(k.value) if k.arg else Arg("spread", None, None,
                                                                       ((None, arg_of(k.value)),))))
            return tuple(items)

        tree = items_of(expr.args, expr.keywords)
        args = tuple((kw, a.name if a.kind in ("param", "array", "read") else None,
                      a.value if a.kind == "literal" else (None if a.kind in SIMPLE_KINDS else a)) for kw, a in tree)
        out_names: list[str] = []
        fields: dict[str, tuple[str, tuple[str, ...]]] = {}
        for o in (outs.split(",") if outs else []):
            node = ast.parse(o.strip(), mode="eval").body
            fp = field_path(node)
            if fp is not None:  # -> p.a.b: written into a field of the struct parameter p
                slot = o.strip()
                fields[slot] = fp
                out_names.append(slot)
                continue
            a = arg_of(node)
            assert a.kind in ("param", "array", "read") and a.name is not None, self.shape
            out_names.append(a.name)
        return Call(expr.func.id, args, tuple(out_names), counts, frozenset(reads), tree, fields)


@attrs.frozen
class Runtime:
    """One runtime entry (``cuda.bindings.runtime``) that is a driver entry with the runtime's conventions.

    ``name``: the runtime name (``cudaMalloc``); ``driver``: the :class:`Api` row whose rules, errors and
    description it shares (its codes translated to ``cudaError_t`` by value); ``shape``: how the runtime face
    calls the core, in the runtime wrapper's parameter names and the forms of :attr:`Api.shape`: empty for
    the driver row's call with the runtime's parameters in place of the driver's, one for one in order
    (``cudaStreamDestroy(stream)`` is ``stream_destroy(hStream)``); a call of its own where the runtime passes
    something else (its name for the core's messages, ``allow_zero=True``, a literal for a parameter it lacks);
    ``(...)`` when the runtime face writes the function by hand (listed with the reason in
    ``tests/faces/hand_written_exceptions.py``). ``needs``: what the runtime sets up first: ``"ctx"`` (initialise,
    then make the thread's device's primary context current unless a context is current), ``"init"`` (initialise
    only: entries that name their device), ``"none"``. ``doc``: what is particular to the runtime entry, shown
    before the driver row's description.
    """

    name: str
    driver: str
    shape: str = ""
    needs: str = attrs.field(default="ctx", validator=attrs.validators.in_(("ctx", "init", "none")))
    doc: str = ""

    @property
    def particular(self) -> bool:
        """True when the runtime face writes this entry by hand."""
        return self.shape == "(...)"

    @functools.cached_property
    def call(self) -> Call:
        """The runtime's own call (:attr:`shape`), parsed; ValueError when the row uses the driver row's call or
        is written by hand."""
        if not self.shape or self.particular:
            raise ValueError(f"{self.name}: no call of its own")
        return Api(self.name, self.shape, "").call
