"""Every simulated driver entry, described once: the core operation that serves it and what it does.

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
  adapters (:func:`simcuda.native.adapters.builder`), so that they build every entry from its row:

  - ``p.a.b`` (an argument): field ``a.b`` of the struct the C parameter ``p`` points to, read through its
    generated ctypes layout (:mod:`simcuda._generated.cydriver_ctypes`); a handle or pointer field is its
    address (NULL 0), a ``hStream``/``hUploadStream`` field follows the per-thread default stream rule; a NULL
    ``p`` is the core's INVALID_VALUE (``require_arg``), checked when the argument is read
    (``array_create(pAllocateArray.Width, ...)``). As an output (``-> phGraphNode, nodeParams.dptr``), the
    result is written into that field.
  - ``p`` naming a pointer to a struct that has a reader (:data:`simcuda.native.structs.READERS`, one per
    struct, keyed by its C type name: the only place where the core's record differs from the C fields): the
    reader's value (``memcpy(pCopy, None, 'cuMemcpy2D')`` gets a ``CopyParams``); NULL is INVALID_VALUE.
    ``**p`` spreads a reader's dict into keywords (``graph_add_kernel_node(hGraph, deps[n], **nodeParams)``).
  - ``Record(...)`` (a capitalised name: ``CopyParams``, ``MemsetParams`` of :mod:`simcuda._core.memory`)
    builds the record the core takes; ``op(...)`` nested is another core operation, whose result is the
    argument (``module_load_data(read_image_file(fname, 'cuModuleLoad'), 'cuModuleLoad')``); ``(a, b)`` and
    ``[a, b]`` are a tuple and a list (``stream_batch_mem_op(stream, [(2, addr, value, flags)], 0, ...)``).
  - By the C type alone, no form needed: a ``const char*`` argument is a ``str`` (None for NULL); a
    ``const char**`` output receives a static C string (NULL after a failed call [I], as ``cuGetErrorName``
    documents); ``-> name[len]`` with ``char* name`` and a by-value ``len`` writes the text NUL-terminated,
    cut to ``len`` bytes; an output pointing to a struct gets the core's ``bytes`` (``CUuuid``).

  What cannot be data (a ``void**`` kernel parameter array decoded by the kernel's types, arrays the driver
  hands out and keeps, tagged unions, a value whose C type depends on another argument, results written back
  on failure) is a **decoder kind**: the row keeps ``op(...)`` and names the kind, ``decoder="node_get(1)"``
  (a name of :data:`simcuda.native.adapters.KINDS`, with literal arguments), and the generator builds the
  adapter with it; no adapter is written per entry (``tests/native/test_native_generated.py``). An older
  variant that no Python wrapper has (``cuCtxCreate_v2``) has its row in :data:`VARIANTS`, by declared name.
* ``doc``: what the entry does, its arguments' meaning, and its errors in the order the core checks
  them, with the spec sections they cite: the only copy of that prose. Every face (the tuple face, the
  ``_v2`` face, the runtime face, the native adapters) shows it under its own generated header.
* the argument kinds are not written here: each face derives them from the real declarations (the
  Python wrapper's signature and docstring types for the Python faces, the C types for the native
  adapters), so a conversion is written once per kind, never per entry.

A face builds the function of every row whose shape is complete (:func:`simcuda.bindings.driver`'s
``_build``); ``tests/faces/test_api_table.py`` checks that every row names a real core operation and a
real entry, and that the built functions behave as the real wrapper does.
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


ROWS: tuple[Api, ...] = (
    Api("cuInit", "init(Flags)",
        """Initialise the simulated driver.

Args: ``Flags`` (unsigned int) must be 0.
Errors: INVALID_VALUE for non-zero flags; NO_DEVICE (100) on a ``Driver(available=False)``."""),
    Api("cuDriverGetVersion", "driver_get_version() -> driverVersion",
        """The simulated driver version, 13050 (CUDA 13.5); needs no ``cuInit``."""),
    Api("cuGetErrorName", "get_error_name(error) -> pStr (...)",
        """The name of a ``CUresult`` as ``bytes`` (``b'CUDA_ERROR_INVALID_VALUE'``); needs no ``cuInit``.

Errors: INVALID_VALUE for a value that is not a ``CUresult``."""),
    Api("cuGetErrorString", "get_error_string(error) -> pStr (...)",
        """The description of a ``CUresult`` as ``bytes``; needs no ``cuInit``.

Fidelity: the text is the code's documentation sentence from the cuda-bindings docstring (spec 10),
not the shorter string of the real ``libcuda``. Errors: INVALID_VALUE for an unknown value."""),
    Api("cuDeviceGet", "device_get(ordinal) -> device",
        """The device with this ordinal. Errors: INVALID_DEVICE (101) out of range; NOT_INITIALIZED."""),
    Api("cuDeviceGetCount", "device_get_count() -> count",
        """Number of simulated devices (``Driver(devices=[...])``)."""),
    Api("cuDeviceGetUuid", "device_get_uuid(dev) -> uuid (...)",
        """The device's UUID (``CUuuid``, 16 bytes): a stable hash of its name and ordinal, the same every run [I].

Errors: INVALID_DEVICE."""),
    Api("cuDeviceGetName", "device_get_name(dev, len) -> name[len] (...)",
        """The device name as ``bytes`` of exactly ``length`` bytes (NUL-terminated, then padding, as the real
wrapper returns its buffer). Errors: INVALID_DEVICE; INVALID_VALUE for ``length`` <= 0."""),
    Api("cuDeviceGetAttribute", "device_get_attribute(attrib, dev) -> pi",
        """A ``CUdevice_attribute`` value (``int``). Errors: INVALID_DEVICE; INVALID_VALUE unknown attribute."""),
    Api("cuDeviceTotalMem", "device_total_mem(dev) -> bytes",
        """Device memory in bytes (``DeviceSpec.total_mem``). Errors: INVALID_DEVICE."""),
    Api("cuDeviceComputeCapability", "device_compute_capability(dev) -> major, minor (...)",
        """``(major, minor)`` from attributes 75/76 (``DeviceSpec.compute_capability``). Errors: INVALID_DEVICE."""),
    Api("cuDevicePrimaryCtxRetain", "device_primary_ctx_retain(dev) -> pctx",
        """Retain (creating on first use) the device's primary context. Errors: INVALID_DEVICE."""),
    Api("cuDevicePrimaryCtxRelease", "device_primary_ctx_release(dev)",
        """Release one reference. Errors: INVALID_DEVICE; CONTEXT_IS_DESTROYED (709) when not retained.

Fidelity: the context stays usable after the last release (the simulator only counts references)."""),
    Api("cuDevicePrimaryCtxGetState", "device_primary_ctx_get_state(dev) -> flags, active",
        """``(flags, active)`` of the primary context. Errors: INVALID_DEVICE."""),
    Api("cuCtxCreate", "ctx_create(...)",
        """Create a context on ``dev`` and make it current (pushed on this thread's stack).

Args: ``ctxCreateParams``: ``None`` or a ``CUctxCreateParams`` (``cigParams`` non-empty makes a CIG
context, spec 8.1); ``flags``: ``CUctx_flags`` bits; ``dev``: ``CUdevice`` or ordinal.
Errors: INVALID_DEVICE; INVALID_VALUE both exec-affinity and CIG parameters [I] or a bad CIG data
type; NOT_SUPPORTED (801) device without CIG support, or coredump flags with CIG [I];
STREAM_CAPTURE_UNSUPPORTED (900) during a capture that restricts this thread (spec 5.2) [I].""", decoder="ctx_create"),
    Api("cuCtxDestroy", "ctx_destroy(ctx)",
        """Destroy a context and its streams (captures there end as on stream destroy, spec 5.2).

Errors: INVALID_CONTEXT; CONTEXT_IS_DESTROYED; 900 during a restricting capture [I]."""),
    Api("cuCtxSetCurrent", "ctx_set_current(ctx)",
        """Replace the top of this thread's context stack (``None``/0 pops it). Errors: INVALID_CONTEXT, 709."""),
    Api("cuCtxGetCurrent", "ctx_get_current() -> pctx",
        """This thread's current context (``CUcontext(0)`` when none)."""),
    Api("cuCtxPushCurrent", "ctx_push_current(ctx)",
        """Push a context on this thread's stack. Errors: INVALID_CONTEXT, 709."""),
    Api("cuCtxPopCurrent", "ctx_pop_current() -> pctx",
        """Pop this thread's current context and return it. Errors: INVALID_CONTEXT when the stack is empty."""),
    Api("cuCtxGetDevice", "ctx_get_device() -> device",
        """The current context's device. Errors: INVALID_CONTEXT."""),
    Api("cuCtxGetDevice_v2", "ctx_get_device(ctx) -> device",
        """The device of context ``ctx`` (NULL: the current context [I]). Errors: INVALID_CONTEXT."""),
    Api("cuCtxSynchronize", "ctx_synchronize()",
        """Wait for all work of the current context.

Errors: INVALID_CONTEXT; STREAM_CAPTURE_UNSUPPORTED (900) while a stream of the context is in a
capture, whatever the thread and mode, invalidating those captures (spec 5.3)."""),
    Api("cuProfilerStart", "profiler_control('cuProfilerStart')",
        """Enable profile collection for the current context: the simulator attaches no profiler, so this succeeds
and changes nothing [I].

Errors: INVALID_CONTEXT when the calling thread has no current context."""),
    Api("cuProfilerStop", "profiler_control('cuProfilerStop')",
        """Disable profile collection for the current context: a no-op success, as ``cuProfilerStart`` [I].

Errors: INVALID_CONTEXT when the calling thread has no current context."""),
    Api("cuCtxSynchronize_v2", "ctx_synchronize(ctx, call='cuCtxSynchronize_v2')",
        """As ``cuCtxSynchronize``, for context ``ctx`` (NULL: the current context [I]). Errors: INVALID_CONTEXT
for a bad or destroyed context; 900 while a stream of that context captures (spec 5.3)."""),
    Api("cuCtxGetId", "ctx_get_id(ctx) -> ctxId",
        """The context's unique id (``int``); ``None``/0 means the current context. Errors: INVALID_CONTEXT."""),
    Api("cuCtxRecordEvent", "ctx_record_event(hCtx, hEvent)",
        """Record an event after all work of a context. Errors: 201/709; INVALID_HANDLE; 900 while the
context has a capturing stream (spec 5.3)."""),
    Api("cuCtxWaitEvent", "ctx_wait_event(hCtx, hEvent)",
        """Make a context's future work wait for an event. Errors: 201/709; 400; 900 while the context
captures or the event belongs to a capture (spec 5.3)."""),
    Api("cuCtxGetStreamPriorityRange", "ctx_get_stream_priority_range() -> leastPriority, greatestPriority",
        """``(least, greatest)`` stream priority of the current context's device: ``(0, -5)`` by default
(``DeviceSpec.stream_priority_range``); a lower number is a higher priority, and ``cuStreamCreateWithPriority``
clamps into this range. Errors: INVALID_CONTEXT (no current context)."""),
    Api("cuStreamCreate", "stream_create(Flags) -> phStream",
        """Create a stream. Args: ``Flags``: ``CU_STREAM_DEFAULT`` (0, blocking) or ``CU_STREAM_NON_BLOCKING`` (1).

Errors: INVALID_CONTEXT (no current context); INVALID_VALUE other flags. Not an unsafe call (spec 5.2)."""),
    Api("cuStreamCreateWithPriority", "stream_create(flags, priority) -> phStream",
        """Create a stream with a priority, clamped to the device range ``cuCtxGetStreamPriorityRange`` reports
([-5, 0] on the default simulated device). Errors as ``cuStreamCreate``."""),
    Api("cuStreamDestroy", "stream_destroy(hStream)",
        """Destroy a stream.

Mirrors ``cuda.bindings.driver.cuStreamDestroy(hStream)``; returns ``(CUresult,)``.

Fidelity: during a capture (spec 2.1, 2.2, C-153, C-153b, C-154): destroying the origin terminates
the capture and discards its graph [I]; destroying a member that is not the origin succeeds and
leaves the capture's status as it was: the stream leaves the sequence and the nodes it captured
stay in the graph [O: cuda.core's GraphBuilder.join]. Work of that member that was never joined
still makes the end UNJOINED (904) [I, spec 4.4].

Errors: INVALID_HANDLE (garbage); CONTEXT_IS_DESTROYED (destroyed); INVALID_VALUE for the
legacy/per-thread handles."""),
    Api("cuStreamQuery", "stream_query(hStream)",
        """``(CUDA_SUCCESS,)`` when the stream's work is done, ``(CUDA_ERROR_NOT_READY,)`` while pending
(``progression="manual"``). Capture rules: 906 on the legacy stream under a blocking capture;
900 on a capturing stream in every mode (invalidates; 901 when already invalidated); 900 as a
potentially unsafe call on another stream (spec 6, 5.3, 5.2)."""),
    Api("cuStreamSynchronize", "stream_synchronize(hStream)",
        """Wait for the stream's work (runs pending work). Capture rules as ``cuStreamQuery`` (spec 6, 5.3, 5.2)."""),
    Api("cuStreamGetCtx", "stream_get_ctx(hStream) -> pctx",
        """The stream's context. Errors: INVALID_CONTEXT (default-stream handle, no context), 400, 709."""),
    Api("cuStreamGetCtx_v2", "stream_get_ctx_v2(hStream) -> pCtx, pGreenCtx",
        """The stream's context and its green context; green contexts are not simulated, so the second is
always NULL. Errors: as ``cuStreamGetCtx``."""),
    Api("cuStreamGetId", "stream_get_id(hStream) -> streamId",
        """The stream's unique id (``int``). Errors: preamble checks (spec 3)."""),
    Api("cuStreamGetFlags", "stream_get_flags(hStream) -> flags",
        """The stream's creation flags (``int``). Errors: preamble checks (spec 3)."""),
    Api("cuStreamGetPriority", "stream_get_priority(hStream) -> priority",
        """The stream's priority (``int``). Errors: preamble checks (spec 3)."""),
    Api("cuStreamWaitEvent", "stream_wait_event(hStream, hEvent, Flags) (...)",
        """Make ``hStream`` wait for ``hEvent``: fork, join, merge, isolation... (spec 4.1 rows in order).

Args: ``Flags``: 0 or ``CU_EVENT_WAIT_EXTERNAL`` (1; inside a capture adds a WAIT_EVENT node).
Errors: INVALID_VALUE bad flags, EXTERNAL outside capture, idle stream on an invalidated capture's
event; INVALID_HANDLE bad event; 906 legacy stream; 902 MERGE (both invalidated); 905 ISOLATION
(invalidates); 901 on an invalidated capture."""),
    Api("cuStreamAddCallback", "stream_add_callback(hStream, callback, userData, flags) (...)",
        """Enqueue a ``CUstreamCallback`` (``CUstreamCallback`` or ``int`` address; a Python callable raises
``TypeError: an integer is required``). ``userData``: None, int address or buffer (passed as address).

The callback is called through ctypes as ``void (*)(CUstream, CUresult, void*)`` when the work runs.
Errors: INVALID_VALUE flags != 0; NOT_SUPPORTED (801) on a capturing stream, invalidating it, and on
a CIG stream (spec 3.8, 8.3) [I]."""),
    Api("cuStreamAttachMemAsync", "stream_attach_mem_async(hStream, dptr, length, flags)",
        """Attach managed memory to a stream (bookkeeping only). Errors: NOT_SUPPORTED (801) on a capturing
stream, invalidating it (spec 3.8) [I]."""),
    Api("cuStreamBeginCapture", "stream_begin_capture(hStream, mode)",
        """Begin capturing ``hStream`` into a new graph (spec 3.1).

Args: ``mode``: ``CUstreamCaptureMode`` (not range-checked by the wrapper: the driver answers).
Errors, in order: 900 legacy stream (or 0 in legacy mode); INVALID_VALUE mode not 0-2;
ILLEGAL_STATE (401) stream already in a capture; 900 stream in CIG capture."""),
    Api("cuStreamBeginCaptureToGraph",
        "stream_begin_capture_to_graph(hStream, hGraph, dependencies[numDependencies], "
        "dependencyData[numDependencies], mode) (...)",
        """Begin capturing into an existing graph, after ``dependencies`` (spec 3.2).

Args: ``dependencies``: list/tuple of ``CUgraphNode`` or None; ``dependencyData``: list of
``CUgraphEdgeData`` or None (None or ``[]`` = all zero; a shorter non-empty list is INVALID_VALUE, no
state change [I]); ``numDependencies`` > ``len(dependencies)`` raises ``RuntimeError: List is too
small: 1 < 3`` as in the real wrapper.
Errors: as ``cuStreamBeginCapture``, plus INVALID_VALUE bad graph, a dependency outside ``hGraph``,
bad edge data; 401 graph already a capture target. ``cuStreamEndCapture`` returns ``hGraph`` itself."""),
    Api("cuStreamEndCapture", "stream_end_capture(hStream) -> phGraph",
        """End the capture begun on ``hStream`` and return its graph (spec 3.3).

Errors, in order: 401 legacy stream or not capturing; 903 UNMATCHED on a forked member (invalidates);
908 WRONG_THREAD for a non-RELAXED capture (invalidates) [I]; 901 INVALIDATED (capture ends, no
graph); 904 UNJOINED (capture ends, no graph) [I]. The graph slot is ``None`` on every error."""),
    Api("cuStreamIsCapturing", "stream_is_capturing(hStream) -> captureStatus",
        """The stream's ``CUstreamCaptureStatus`` (NONE, ACTIVE, INVALIDATED; spec 3.4).

Errors: 906 on the legacy stream while a blocking stream of its context captures (not invalidating)."""),
    Api("cuStreamGetCaptureInfo", "stream_get_capture_info(...)",
        """Capture status, id, graph, current dependencies with edge data, and their count (spec 3.5).

Returns ``(res, CUstreamCaptureStatus, cuuint64_t id, CUgraph, list[CUgraphNode],
list[CUgraphEdgeData], int)``. The id is a ``cuuint64_t``, which has no value equality: compare
``int(id)`` (spec 11.1). When the status is not ACTIVE: id 0, ``CUgraph(0)``, empty lists, 0 [I].
Errors: 906 on the legacy stream under a blocking capture (not invalidating).""", decoder="capture_info(True)"),
    Api("cuStreamUpdateCaptureDependencies",
        "stream_update_capture_dependencies(hStream, dependencies[numDependencies], "
        "dependencyData[numDependencies], flags) (...)",
        """Add to or replace the stream's capture dependencies (spec 3.6).

Args: ``flags``: ``CU_STREAM_ADD_CAPTURE_DEPENDENCIES`` (0) or ``CU_STREAM_SET_CAPTURE_DEPENDENCIES`` (1).
The wrapper does not check ``numDependencies`` against the list: entries past the end reach the
driver as invalid handles, so a larger count is INVALID_VALUE (row 5) [I]; None/``[]`` edge data
is all zero; a shorter non-empty edge-data list is INVALID_VALUE [I].
Errors, in order: 401 not capturing; 901 invalidated [I]; INVALID_VALUE flags, NULL/foreign
dependency, bad edge data. Failures do not invalidate the capture."""),
    Api("cuThreadExchangeStreamCaptureMode", "thread_exchange_stream_capture_mode(*mode) -> mode (...)",
        """Set this thread's capture interaction mode and return the previous one (spec 3.7).

Errors: INVALID_VALUE for a mode outside 0-2 (the mode is unchanged)."""),
    Api("cuStreamBeginCaptureToCig", "stream_begin_capture_to_cig(...)",
        """Begin recording the stream's kernels and copies into a graphics command list (spec 8.2).

Args: ``streamCigCaptureParams``: a ``CUstreamCigCaptureParams`` whose ``streamCigParams`` is
``[CUstreamCigParam]``; ``None`` or an empty list means NULL.
Errors, in order: INVALID_VALUE NULL params; INVALID_VALUE legacy stream; INVALID_CONTEXT non-CIG
context; NOT_SUPPORTED device lacks CIG streams; INVALID_VALUE data type mismatch [I]; INVALID_VALUE
already in CIG or graph capture.""", decoder="stream_begin_capture_to_cig"),
    Api("cuStreamEndCaptureToCig", "stream_end_capture_to_cig(hStream)",
        """End a CIG capture (spec 8.4). Errors: INVALID_VALUE not CIG-capturing; 908 from another thread
(the CIG capture goes on) unless ``Options(cig_end_any_thread=True)``."""),
    Api("cuEventCreate", "event_create(Flags) -> phEvent",
        """Create an event. Args: ``CUevent_flags`` bits. Errors: INVALID_CONTEXT; INVALID_VALUE unknown bits."""),
    Api("cuEventDestroy", "event_destroy(hEvent)",
        """Destroy an event (a captured event's nodes stay in the graph). Errors: INVALID_HANDLE."""),
    Api("cuEventRecord", "event_record(hEvent, hStream) (...)",
        """Record ``hEvent`` on ``hStream`` (spec 4.2): on a capturing stream the event captures the stream's
current dependencies (no node); otherwise it marks the work so far.

Errors, in order: INVALID_HANDLE bad event or other context; 906 legacy stream under a blocking
capture (invalidating); 901 invalidated capture."""),
    Api("cuEventRecordWithFlags", "event_record(hEvent, hStream, flags, 'cuEventRecordWithFlags')",
        """``cuEventRecord`` with ``CUevent_record_flags``: ``CU_EVENT_RECORD_EXTERNAL`` (1) adds an
EVENT_RECORD node during capture and is INVALID_VALUE outside capture (spec 4.2). Errors as
``cuEventRecord`` plus INVALID_VALUE flags not 0/1."""),
    Api("cuEventQuery", "event_query(hEvent)",
        """``(CUDA_SUCCESS,)`` when the event completed, ``(CUDA_ERROR_NOT_READY,)`` while pending.

Errors: INVALID_HANDLE; CAPTURED_EVENT (907) for an event recorded in an active capture
(invalidates it); 900 for a RECORDED event during a restricting capture (spec 5.2, 5.3)."""),
    Api("cuEventSynchronize", "event_synchronize(hEvent)",
        """Wait for an event (runs the work before it). Errors as ``cuEventQuery`` (without NOT_READY)."""),
    Api("cuEventElapsedTime", "event_elapsed_time(hStart, hEnd) -> pMilliseconds",
        """Milliseconds (``float``) of simulated time between two completed events.

Mirrors ``cuda.bindings.driver.cuEventElapsedTime(hStart, hEnd)``; returns ``(CUresult, float)``.

Fidelity (spec 16) [I]: the simulated clock advances 0.001 ms for every operation that runs (each
eager stream operation, each node a graph replay runs, a child graph's nodes one by one; event
records and the launch itself do not tick), and an event's time is the clock when its record runs
(an EVENT_RECORD node when the replay reaches it). Around a replay of N nodes: N * 0.001 ms; with
nothing between the records: 0.0.

Errors: INVALID_HANDLE never recorded or DISABLE_TIMING; 907 captured event (invalidates) [I];
NOT_READY when pending."""),
    Api("cuMemAlloc", "mem_alloc(bytesize) -> dptr",
        """Allocate ``bytesize`` bytes of simulated device memory; returns a ``CUdeviceptr``.

Errors: INVALID_CONTEXT; INVALID_VALUE size 0; OUT_OF_MEMORY; 900 during a restricting capture
(potentially unsafe call, invalidating, spec 5.2)."""),
    Api("cuMemAllocPitch", "mem_alloc_pitch(WidthInBytes, Height, ElementSizeBytes) -> dptr, pPitch",
        """Pitched allocation: ``(CUdeviceptr, pitch)`` with rows padded to 512 bytes. Errors as ``cuMemAlloc``
plus INVALID_VALUE for an element size other than 4, 8, 16."""),
    Api("cuMemAllocManaged", "mem_alloc(bytesize, 'cuMemAllocManaged', managed=True, flags=flags) -> dptr",
        """Managed allocation (simulated as device memory). Errors as ``cuMemAlloc``, plus INVALID_VALUE for
``flags`` other than ``CU_MEM_ATTACH_GLOBAL`` (1) or ``CU_MEM_ATTACH_HOST`` (2)."""),
    Api("cuMemFree", "mem_free(dptr)",
        """Free device memory (``cuMemFree(0)`` succeeds). Errors: INVALID_VALUE not an allocation start or a
graph allocation; 900 during a restricting capture (spec 5.2; field case C17)."""),
    Api("cuMemAllocHost", "mem_alloc_host(bytesize) -> pp",
        """Allocate real host memory (a ctypes buffer kept by the driver); returns its address (``int``).

Errors: INVALID_CONTEXT; INVALID_VALUE size 0; 900 during a restricting capture (spec 5.2)."""),
    Api("cuMemHostAlloc", "mem_alloc_host(bytesize, 'cuMemHostAlloc', Flags) -> pp",
        """As ``cuMemAllocHost``; ``CU_MEMHOSTALLOC_*`` flags are checked (INVALID_VALUE for other bits) and
otherwise have no effect."""),
    Api("cuMemFreeHost", "mem_free_host(p)",
        """Free memory from ``cuMemAllocHost``/``cuMemHostAlloc`` (``p``: int address or buffer).
Errors: INVALID_VALUE unknown address; 900 during a restricting capture (spec 5.2)."""),
    Api("cuMemHostRegister", "mem_host_register(p, bytesize, Flags) (...)",
        """Page-lock host memory (bookkeeping only). Errors: INVALID_VALUE NULL pointer, size 0, flag bits outside
``CU_MEMHOSTREGISTER_*``; HOST_MEMORY_ALREADY_REGISTERED (712); 900 (spec 5.2)."""),
    Api("cuMemHostUnregister", "mem_host_register(p, 0, 0, unregister=True) (...)",
        """Undo ``cuMemHostRegister``. Errors: HOST_MEMORY_NOT_REGISTERED (713); 900 (spec 5.2)."""),
    Api("cuMemGetInfo", "mem_get_info() -> free, total",
        """``(free, total)`` bytes of the current context's device. Errors: INVALID_CONTEXT."""),
    Api("cuMemGetAddressRange", "mem_get_address_range(dptr) -> pbase, psize",
        """``(CUdeviceptr base, size)`` of the allocation holding ``dptr``. Errors: INVALID_VALUE."""),
    Api("cuMemcpy", "memcpy_unified(dst, src, ByteCount, None, 'cuMemcpy')",
        """Synchronous copy between unified addresses (device if inside a simulated allocation, else host).

Legacy mode: runs on the legacy stream (906 and invalidation under a blocking capture; otherwise a
potentially unsafe call, spec 6, 5.2). Per-thread mode: spec 6.1. Errors: INVALID_VALUE bad ranges."""),
    Api("cuMemcpyAsync", "memcpy_unified(dst, src, ByteCount, hStream, 'cuMemcpyAsync')",
        """Asynchronous unified copy: a MEMCPY node during capture (spec 3.8); the source is read when the
work runs (spec 3.10).

Mirrors ``cuda.bindings.driver.cuMemcpyAsync(dst, src, ByteCount, hStream)``; returns ``(CUresult,)``.

Fidelity: each address is resolved by the core when the call is made (inside a live simulated
allocation: device, else host), and that decides how the bytes move, at once or at replay. A
captured node records ``CU_MEMORYTYPE_UNIFIED`` for both sides, as ``cuGraphMemcpyNodeGetParams``
shows (spec 16, 9) [O: cuda-python issue 2649]; the explicit HtoD/DtoH/DtoD copies keep their typed
sides.

Errors: INVALID_VALUE bad ranges; the stream's capture rules (spec 3.8)."""),
    Api("cuMemcpyHtoD",
        "memcpy(CopyParams('host', srcHost, 'device', dstDevice, ByteCount), None, 'cuMemcpyHtoD') (...)",
        """Synchronous host-to-device copy (``srcHost``: int address, ctypes object or buffer such as numpy/bytes).

Errors: INVALID_VALUE bad range or short host buffer; legacy-stream/unsafe-call rules (spec 6, 5.2)."""),
    Api("cuMemcpyHtoDAsync",
        "memcpy(CopyParams('host', srcHost, 'device', dstDevice, ByteCount), hStream, 'cuMemcpyHtoDAsync') (...)",
        """Asynchronous host-to-device copy: a MEMCPY node during capture that reads the host buffer when the
graph runs, not now (spec 3.8, 3.10). Errors: INVALID_VALUE bad range; stream capture rules."""),
    Api("cuMemcpyDtoH",
        "memcpy(CopyParams('device', srcDevice, 'host', dstHost, ByteCount), None, 'cuMemcpyDtoH') (...)",
        """Synchronous device-to-host copy into a writable buffer or an int address. Errors as ``cuMemcpyHtoD``."""),
    Api("cuMemcpyDtoHAsync",
        "memcpy(CopyParams('device', srcDevice, 'host', dstHost, ByteCount), hStream, 'cuMemcpyDtoHAsync') (...)",
        """Asynchronous device-to-host copy (captured as a MEMCPY node that writes the host buffer at replay)."""),
    Api("cuMemcpyDtoD",
        "memcpy(CopyParams('device', srcDevice, 'device', dstDevice, ByteCount), None, 'cuMemcpyDtoD') (...)",
        """Synchronous device-to-device copy. Errors as ``cuMemcpyHtoD``."""),
    Api("cuMemcpyDtoDAsync",
        "memcpy(CopyParams('device', srcDevice, 'device', dstDevice, ByteCount), hStream, 'cuMemcpyDtoDAsync') (...)",
        """Asynchronous device-to-device copy (a MEMCPY node during capture)."""),
    Api("cuMemcpy2D", "memcpy(pCopy, None, 'cuMemcpy2D') (...)",
        """Synchronous 2D copy from a ``CUDA_MEMCPY2D`` (host, device or unified sides; arrays are NOT_SUPPORTED).

Errors: INVALID_VALUE NULL struct, bad memory type, width above a pitch, bad ranges; sync-copy
capture rules (spec 6)."""),
    Api("cuMemcpy2DUnaligned", "memcpy(pCopy, None, 'cuMemcpy2DUnaligned') (...)",
        """As ``cuMemcpy2D`` (no alignment rules are simulated)."""),
    Api("cuMemcpy2DAsync", "memcpy(pCopy, hStream, 'cuMemcpy2DAsync') (...)",
        """Asynchronous 2D copy (a MEMCPY node during capture). Errors as ``cuMemcpy2D`` plus stream rules."""),
    Api("cuMemcpy3D", "memcpy(pCopy, None, 'cuMemcpy3D') (...)",
        """Synchronous 3D copy from a ``CUDA_MEMCPY3D`` (``srcHeight``/``dstHeight`` rows per slice)."""),
    Api("cuMemcpy3DAsync", "memcpy(pCopy, hStream, 'cuMemcpy3DAsync') (...)",
        """Asynchronous 3D copy (a MEMCPY node during capture)."""),
    Api("cuMemsetD8", "memset(MemsetParams(dstDevice, uc, 1, N), None, 'cuMemsetD8') (...)",
        """Set ``N`` bytes to ``uc`` (synchronous: legacy-stream/unsafe-call rules, spec 6). Errors:
        INVALID_VALUE range."""),
    Api("cuMemsetD16", "memset(MemsetParams(dstDevice, us, 2, N), None, 'cuMemsetD16') (...)",
        """Set ``N`` 16-bit values (``dstDevice`` 2-byte aligned). Errors: INVALID_VALUE range/alignment."""),
    Api("cuMemsetD32", "memset(MemsetParams(dstDevice, ui, 4, N), None, 'cuMemsetD32') (...)",
        """Set ``N`` 32-bit values (``dstDevice`` 4-byte aligned). Errors: INVALID_VALUE range/alignment."""),
    Api("cuMemsetD8Async", "memset(MemsetParams(dstDevice, uc, 1, N), hStream, 'cuMemsetD8Async') (...)",
        """Asynchronous ``cuMemsetD8``: a MEMSET node during capture (spec 3.8)."""),
    Api("cuMemsetD16Async", "memset(MemsetParams(dstDevice, us, 2, N), hStream, 'cuMemsetD16Async') (...)",
        """Asynchronous ``cuMemsetD16``: a MEMSET node during capture."""),
    Api("cuMemsetD32Async", "memset(MemsetParams(dstDevice, ui, 4, N), hStream, 'cuMemsetD32Async') (...)",
        """Asynchronous ``cuMemsetD32``: a MEMSET node during capture."""),
    Api("cuMemsetD2D8", "memset(MemsetParams(dstDevice, uc, 1, Width, Height, dstPitch), None, 'cuMemsetD2D8') (...)",
        """2D byte memset: ``Height`` rows of ``Width`` bytes, rows ``dstPitch`` bytes apart."""),
    Api("cuMemsetD2D16", "memset(MemsetParams(dstDevice, us, 2, Width, Height, dstPitch), None, 'cuMemsetD2D16') (...)",
        """2D 16-bit memset (``Width`` in elements, ``dstPitch`` in bytes)."""),
    Api("cuMemsetD2D32", "memset(MemsetParams(dstDevice, ui, 4, Width, Height, dstPitch), None, 'cuMemsetD2D32') (...)",
        """2D 32-bit memset (``Width`` in elements, ``dstPitch`` in bytes)."""),
    Api("cuMemsetD2D8Async",
        "memset(MemsetParams(dstDevice, uc, 1, Width, Height, dstPitch), hStream, 'cuMemsetD2D8Async') (...)",
        """Asynchronous ``cuMemsetD2D8`` (a MEMSET node during capture)."""),
    Api("cuMemsetD2D16Async",
        "memset(MemsetParams(dstDevice, us, 2, Width, Height, dstPitch), hStream, 'cuMemsetD2D16Async') (...)",
        """Asynchronous ``cuMemsetD2D16`` (a MEMSET node during capture)."""),
    Api("cuMemsetD2D32Async",
        "memset(MemsetParams(dstDevice, ui, 4, Width, Height, dstPitch), hStream, 'cuMemsetD2D32Async') (...)",
        """Asynchronous ``cuMemsetD2D32`` (a MEMSET node during capture)."""),
    # -- stream-ordered memory, memory pools and graph memory (entries/pools.py; issue 10) ----------------
    Api("cuMemAllocAsync", "mem_alloc_async(bytesize, hStream) -> dptr",
        """Stream-ordered allocation from the current pool of the stream's device; during capture a MEM_ALLOC node
with a fixed graph-owned address (spec 3.8), graph memory rather than the pool's.

Errors: INVALID_VALUE size 0 outside capture (during capture size 0 records a zero-size MEM_ALLOC node whose
address may be freed, P-15 [O: cuda.core's graph tests]); NOT_SUPPORTED on a device without memory pools
(``DeviceSpec(memory_pools=False)``, attribute ``MEMORY_POOLS_SUPPORTED`` 0, as such hardware answers
``cudaMallocAsync`` [O]) and on a CIG stream (spec 8.3); OUT_OF_MEMORY past the device's memory or the pool's
``maxSize``; stream capture rules."""),
    Api("cuMemFreeAsync", "mem_free_async(dptr, hStream)",
        """Stream-ordered free: during capture a MEM_FREE node; ``dptr`` must be a graph allocation there
(INVALID_VALUE otherwise, spec 3.8 [I]). Outside capture the pool keeps the freed bytes up to its release
threshold (``RESERVED_MEM_CURRENT``). Errors: NOT_SUPPORTED on a device without memory pools [I]; INVALID_VALUE
not the start of a live allocation."""),
    Api("cuMemAllocFromPoolAsync", "mem_alloc_from_pool_async(bytesize, pool, hStream) -> dptr",
        """Stream-ordered allocation from ``pool``, as ``cuMemAllocAsync``: during capture a MEM_ALLOC node (graph
memory, spec 3.8); otherwise device memory counted in the pool's USED/RESERVED attributes until ``cuMemFreeAsync``
(or ``cuMemFree``) frees it.

Errors: the stream's preamble; INVALID_VALUE a bad or destroyed pool handle or size 0; NOT_SUPPORTED on a device
without memory pools and on a CIG stream (spec 8.3); OUT_OF_MEMORY past the pool's ``maxSize``; the stream's
capture rules."""),
    Api("cuDeviceGetDefaultMemPool", "device_get_default_mem_pool(dev) -> pool_out",
        """The device's default memory pool (the same handle on every call; no context needed).

Errors: INVALID_DEVICE; NOT_SUPPORTED on a device without memory pools [I]."""),
    Api("cuDeviceGetMemPool", "device_get_mem_pool(dev) -> pool",
        """The device's current memory pool, the one ``cuMemAllocAsync`` allocates from: its default pool unless
``cuDeviceSetMemPool`` set another. Errors: INVALID_DEVICE; NOT_SUPPORTED on a device without memory pools [I]."""),
    Api("cuDeviceSetMemPool", "device_set_mem_pool(dev, pool)",
        """Make ``pool`` the device's current memory pool. Errors: INVALID_DEVICE; NOT_SUPPORTED on a device without
memory pools [I]; INVALID_VALUE a bad or destroyed pool handle, or a pool of another device [I code]."""),
    Api("cuMemPoolGetAttribute", "mem_pool_get_attribute(...)",
        """An attribute of a memory pool, any ``CUmemPool_attribute``: ``RELEASE_THRESHOLD`` (default 0),
``RESERVED_MEM_CURRENT``/``HIGH``, ``USED_MEM_CURRENT``/``HIGH`` and ``MAX_POOL_SIZE`` as a ``cuuint64_t`` of bytes;
the reuse flags (default 1), ``ALLOCATION_TYPE`` (PINNED), ``EXPORT_HANDLE_TYPES`` (0), ``LOCATION_ID`` (the device
ordinal), ``LOCATION_TYPE`` (DEVICE), ``HW_DECOMPRESS_ENABLED`` and ``LOCALITY_DOMAIN_ID`` (-1) as an ``int``.
``attr`` must be a ``CUmemPool_attribute`` (a plain ``int`` raises ``AttributeError`` in the wrapper, as in the real
one).

Used counts the live stream-ordered allocations made from the pool (not graph allocations, which come from the
graph memory pool); reserved adds the freed memory the pool keeps, up to its release threshold, until
``cuMemPoolTrimTo`` [I]; the watermarks are the highest values since their last reset.

Errors, in order: INVALID_VALUE a bad or destroyed pool or an unknown attribute; STREAM_CAPTURE_UNSUPPORTED (900)
during a capture that restricts the calling thread (GLOBAL or THREAD_LOCAL mode; fine in RELAXED), for every
attribute, invalidating it, so its end is 901 (spec 16, 5.2) [O: cuda-python issue 2834].""",
        decoder="pool_attribute(False)"),
    Api("cuMemPoolSetAttribute", "mem_pool_set_attribute(...)",
        """Set ``CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`` (``value``: a ``cuuint64_t`` of bytes; a plain ``int``
raises ``AttributeError`` in the wrapper, as in the real one), a reuse flag (an ``int``, non-zero enables), or
reset ``RESERVED_MEM_HIGH`` / ``USED_MEM_HIGH`` to their current values (``value`` must be ``cuuint64_t(0)``).

Fidelity: the threshold decides how much freed memory the pool keeps (read in ``RESERVED_MEM_CURRENT``); the reuse
flags are stored and read back [I].
Errors, in order: INVALID_VALUE a bad or destroyed pool, a read-only attribute (the CURRENT counters, the location,
type, size and decompression attributes) [I code], a non-zero watermark value; 900 during a restricting capture,
invalidating it (spec 16, 5.2).""",
        decoder="pool_attribute(True)"),
    Api("cuMemPoolCreate", "mem_pool_create(...)",
        """Create a memory pool from a ``CUmemPoolProps``: pinned device memory (``allocType``
``CU_MEM_ALLOCATION_TYPE_PINNED``, ``location.type`` ``CU_MEM_LOCATION_TYPE_DEVICE`` and ``location.id`` an ordinal, or
``DEVICE_LOCALITY_DOMAIN`` with ``localized.localityDomainId`` 0), ``maxSize`` bytes at most (0: no maximum),
``usage`` 0 or ``CU_MEM_POOL_CREATE_USAGE_HW_DECOMPRESS``. Its memory is accessible from its device; others get
access with ``cuMemPoolSetAccess``. ``poolProps`` ``None`` is INVALID_VALUE.

Errors, in order (docs/spec-proposals.md P-11): INVALID_VALUE an allocation type that is neither PINNED nor MANAGED,
a location type INVALID, ``HOST_NUMA_CURRENT`` [D] or unknown, an ordinal that is no device [I code], a locality
domain other than 0, handle-type bits outside ``CUmemAllocationHandleType``, handle types on a HOST pool [D], other
usage bits; NOT_SUPPORTED on a device without memory pools, for handle types (the device advertises none in
``MEMPOOL_SUPPORTED_HANDLE_TYPES``) [I], and for HOST, HOST_NUMA and MANAGED pools (not simulated); 900 during a
restricting capture, invalidating it (P-12 [I]).""",
        decoder="mem_pool_create"),
    Api("cuMemPoolDestroy", "mem_pool_destroy(pool)",
        """Destroy a pool made by ``cuMemPoolCreate``: the handle is refused from now on, allocations still live
stay usable until freed [D]; a device whose current pool it was gets its default pool back [D].

Errors: INVALID_VALUE a bad or destroyed handle, or a default pool ("cannot be destroyed" [D]); 900 during a
restricting capture (P-12 [I])."""),
    Api("cuMemPoolTrimTo", "mem_pool_trim_to(pool, minBytesToKeep)",
        """Release the freed memory the pool keeps until it reserves at most ``minBytesToKeep`` bytes; the memory of
live allocations stays (``RESERVED_MEM_CURRENT`` becomes ``max(used, min(reserved, minBytesToKeep))``).

Errors: INVALID_VALUE a bad or destroyed pool; 900 during a restricting capture (P-12 [I])."""),
    Api("cuMemPoolSetAccess", "mem_pool_set_access(...)",
        """Set the access of devices to the pool's memory: ``map`` a list of ``CUmemAccessDesc`` (``location`` a
device, ``flags`` ``PROT_NONE`` or ``PROT_READWRITE``), ``count`` of them used (a list shorter than ``count`` raises
``RuntimeError`` in the wrapper, as in the real one); all or none apply.

Errors, in order (P-11): INVALID_VALUE a bad or destroyed pool, a location that is no device of this driver [I
code], flags that are no ``CUmemAccess_flags``, access other than READWRITE for the pool's own device [I];
NOT_SUPPORTED ``PROT_READ`` [I]; 900 during a restricting capture (P-12 [I]).""",
        decoder="mem_pool_set_access"),
    Api("cuMemPoolGetAccess", "mem_pool_get_access(...)",
        """The ``CUmemAccess_flags`` of the device ``location`` (a ``CUmemLocation``) on the pool's memory:
``PROT_READWRITE`` for the pool's own device, else what ``cuMemPoolSetAccess`` set (``PROT_NONE`` until then).

Errors: INVALID_VALUE a bad or destroyed pool, ``location`` ``None`` or no device of this driver [I code]; 900
during a restricting capture (P-12 [I]).""",
        decoder="mem_pool_get_access"),
    Api("cuDeviceGraphMemTrim", "device_graph_mem_trim(device)",
        """Give back the device's graph memory that no graph uses now: the memory of graph allocations that are no
longer allocated (freed in or after their graph, or their graph destroyed) and that no pending or running launch
needs. ``USED_MEM_CURRENT`` and ``RESERVED_MEM_CURRENT`` drop by it; the watermarks stay.

Errors: INVALID_DEVICE; NOT_SUPPORTED on a device without memory pools [I]; 900 during a restricting capture
(P-12 [I])."""),
    Api("cuDeviceGetGraphMemAttribute", "device_get_graph_mem_attribute(...)",
        """A ``CUgraphMem_attribute`` of the device as a ``cuuint64_t`` of bytes: ``USED_MEM_CURRENT`` (the graph
allocations whose memory a launch backed, kept with the graphs after their free and after their exec is destroyed,
until ``cuDeviceGraphMemTrim``), ``USED_MEM_HIGH``, ``RESERVED_MEM_CURRENT`` (follows used [I]) and
``RESERVED_MEM_HIGH`` (P-13). Graph allocations count from the launch that maps them, not from capture or
instantiation.

Errors: INVALID_DEVICE; NOT_SUPPORTED on a device without memory pools [I]; 900 during a restricting capture
(P-12 [I]). ``attr`` must be a ``CUgraphMem_attribute`` (the wrapper's ``TypeError`` otherwise).""",
        decoder="graph_mem_attribute(False)"),
    Api("cuDeviceSetGraphMemAttribute", "device_set_graph_mem_attribute(...)",
        """Reset ``USED_MEM_HIGH`` or ``RESERVED_MEM_HIGH`` to the current value; ``value`` must be
``cuuint64_t(0)`` (the wrapper reads its ``getPtr``).

Errors: INVALID_DEVICE; NOT_SUPPORTED on a device without memory pools [I]; INVALID_VALUE a CURRENT attribute
(read-only) or a non-zero value [I code]; 900 during a restricting capture (P-12 [I]).""",
        decoder="graph_mem_attribute(True)"),
    Api("cuModuleLoadData", "module_load_data(image, 'cuModuleLoadData') -> module (...)",
        """Load a module from PTX/CUDA text, CUBIN or fatbin bytes (a buffer such as ``bytes`` or a numpy char
array, or the int address of NUL-terminated text; ``str`` raises ``TypeError`` as in the real wrapper).

Errors: INVALID_CONTEXT; INVALID_IMAGE (200) nothing recognisable; 900 during a restricting capture
(spec 5.2). Kernel entry names (and parameter types when visible) are read from the image."""),
    Api("cuModuleLoadDataEx", "module_load_data(image, 'cuModuleLoadDataEx') -> module (...)",
        """As ``cuModuleLoadData``; JIT options are checked like the wrapper checks them (``options`` a list of
``CUjit_option``, both lists at least ``numOptions`` long: ``RuntimeError: List is too small``) and
otherwise ignored."""),
    Api("cuModuleLoadFatBinary", "module_load_data(fatCubin, 'cuModuleLoadFatBinary') -> module (...)",
        """As ``cuModuleLoadData`` for a fatbin image."""),
    Api("cuModuleLoad", "module_load_data(read_image_file(fname, 'cuModuleLoad'), 'cuModuleLoad') -> module (...)",
        """Load a module file (``fname``: ``bytes`` path). Errors: FILE_NOT_FOUND (301) unreadable file;
otherwise as ``cuModuleLoadData``."""),
    Api("cuLinkCreate", "link_create(numOptions, options, optionValues) -> stateOut (...)",
        """Start a JIT link (``CUlinkState``) in the current context with ``numOptions`` JIT options
(``CUjit_option`` with one value each: log buffers (a writable buffer, or an address) and their sizes, wall time,
compiler options). The logs are filled NUL-terminated and cut to their sizes at ``cuLinkAddData`` and
``cuLinkComplete``; on the native route the sizes filled and the wall time are written back into the
``optionValues`` array, which the caller keeps until ``cuLinkDestroy`` as for the driver (P-72).

Errors: INVALID_CONTEXT no current context [I]; INVALID_VALUE NULL ``options``/``optionValues`` with
``numOptions`` > 0, an unknown option, a value out of its range [I code], a log buffer that is not writable memory.
The Python face also raises the wrapper's ``RuntimeError: List is too small`` (lists shorter than ``numOptions``)."""),
    Api("cuLinkAddData",
        "link_add_data(state, type, data, size, name, numOptions, options, optionValues) (...)",
        """Add an input (``data``: ``size`` bytes, PTX NUL-terminated; ``type`` a ``CUjitInputType``; ``name`` for
the logs) with its own JIT options. PTX is checked and kept; a CUBIN or fatbin whose PTX is known (simcuda's
images, CUBINs NVRTC compiled in this process) gives its PTX; the rest is refused (docs/kernels.md, "Linking").

Errors (nothing added; the why goes to the error logs): INVALID_HANDLE a bad or destroyed state; INVALID_VALUE
bad options, NULL ``data``, ``size`` 0, an unknown input type; INVALID_PTX (218) PTX with no
``.version``/``.target`` or a syntax error (its line in the why); UNSUPPORTED_PTX_VERSION (222) a newer ISA
[I]; INVALID_IMAGE a CUBIN/fatbin that cannot be read; NOT_SUPPORTED (801) a CUBIN/fatbin with no known PTX,
``CU_JIT_INPUT_OBJECT``, ``CU_JIT_INPUT_LIBRARY`` (libcudadevrt), ``CU_JIT_INPUT_NVVM`` (LTO-IR) [I code]."""),
    Api("cuLinkAddFile", "link_add_file(state, type, path, numOptions, options, optionValues) (...)",
        """Add the input read from file ``path`` (``bytes``), as ``cuLinkAddData``.

Errors: those of ``cuLinkAddData``; FILE_NOT_FOUND (301) a file that cannot be read."""),
    Api("cuLinkComplete", "link_complete(state) -> cubinOut, sizeOut",
        """Link the inputs: ``(cubinOut, sizeOut)``, the address and size of the image, valid until
``cuLinkDestroy``. Several PTX inputs become one module (``.extern`` declarations dropped where another input
defines the symbol); the image is simcuda's form of the linked PTX, which ``cuModuleLoadData(Ex)`` and
``cuLibraryLoadData`` load and whose kernels run on the engine.

Errors: INVALID_HANDLE a bad or destroyed state; INVALID_VALUE no inputs [I code]; INVALID_IMAGE a symbol two
inputs define [I code]."""),
    Api("cuLinkDestroy", "link_destroy(state)",
        """End a link; the images it handed out are freed. Errors: INVALID_HANDLE a bad or destroyed state."""),
    Api("cuModuleUnload", "module_unload(hmod)",
        """Unload a module. Errors: INVALID_HANDLE; 900 during a restricting capture (spec 5.2)."""),
    Api("cuModuleGetFunction", "module_get_function(hmod, name) -> hfunc (...)",
        """A kernel of the module (``name``: ``bytes``; ``str`` raises ``TypeError: expected bytes, str found``).

Errors: INVALID_HANDLE bad module; NOT_FOUND (500) no such entry."""),
    Api("cuFuncSetAttribute", "func_set_attribute(hfunc, attrib, value)",
        """Set a function attribute: ``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`` (the dynamic shared memory
later launches may ask for: up to the device's ``MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`` minus the kernel's static
shared memory), ``PREFERRED_SHARED_MEMORY_CARVEOUT`` (-1 to 100), the required cluster width/height/depth
(>= 0), ``NON_PORTABLE_CLUSTER_SIZE_ALLOWED`` (0/1), ``CLUSTER_SCHEDULING_POLICY_PREFERENCE`` and
``SHARED_MEMORY_MODE`` (their enums); kept and read back.

Errors: INVALID_HANDLE bad function; INVALID_VALUE a value out of range or a read-only attribute;
NOT_SUPPORTED a cluster attribute on a device without cluster launch [I]."""),
    Api("cuFuncGetAttribute", "func_get_attribute(attrib, hfunc) -> pi",
        """A function attribute (``int``), from the kernel's PTX where its module has it (spec 17):
``MAX_THREADS_PER_BLOCK`` (the ``.maxntid``/``.reqntid`` product, else the device's), the static shared,
const and local sizes, ``NUM_REGS`` (the simulator's count [I], docs/kernels.md), ``PTX_VERSION`` (the
``.target`` architecture [I]), ``BINARY_VERSION`` (the device's compute capability),
``MAX_DYNAMIC_SHARED_SIZE_BYTES`` (48 KiB minus the static shared memory until raised), the carveout and the
settable attributes as set. Without PTX the sizes and registers are 0. Errors: INVALID_HANDLE; INVALID_VALUE
not a ``CUfunction_attribute``."""),
    Api("cuFuncSetCacheConfig", "func_set_cache_config(hfunc, config)",
        """The preferred cache configuration of a function (a ``CUfunc_cache``): kept, no effect (a hint).

Errors: INVALID_HANDLE bad function; INVALID_VALUE not a ``CUfunc_cache``."""),
    Api("cuFuncSetSharedMemConfig", "func_set_shared_mem_config(hfunc, config)",
        """The shared memory bank size of a function (a ``CUsharedconfig``; deprecated): kept, no effect.

Errors: INVALID_HANDLE bad function; INVALID_VALUE not a ``CUsharedconfig``."""),
    Api("cuFuncGetName", "func_get_name(hfunc) -> name (...)",
        """The kernel's entry name as ``bytes``. Errors: INVALID_HANDLE."""),
    Api("cuLaunchKernel", "check_kernel_extra/launch_kernel_fast(...)",
        """Launch a kernel: a KERNEL node during capture (spec 3.8), else it runs now (or when the stream
progresses): a kernel registered with ``simcuda.kernel(name)`` runs against simulated memory.

Args: dimensions and ``sharedMemBytes`` (bytes) as unsigned ints; ``kernelParams`` in any form of
the real binding: ``None``, the ``int`` address of a ``void**`` array (decoded with the parameter
types read from the module), a buffer of such addresses, or ``(values, types)`` (see
:mod:`simcuda.bindings._kernel_params`); ``extra`` must be an ``int`` (0).
Errors: INVALID_HANDLE bad function; INVALID_VALUE zero or oversized dimensions, or ``extra`` set
together with ``kernelParams``; NOT_SUPPORTED ``extra`` alone (not simulated); stream capture rules.""",
        decoder="kernel_launch"),
    Api("cuLaunchCooperativeKernel",
        "launch_kernel(f, (gridDimX, gridDimY, gridDimZ), (blockDimX, blockDimY, blockDimZ), sharedMemBytes, hStream, "
        "packed_kernel_args(f, kernelParams), 'cuLaunchCooperativeKernel') (...)",
        """As ``cuLaunchKernel`` without ``extra`` (cooperative launches are simulated as ordinary ones)."""),
    Api("cuLaunchKernelEx", "check_kernel_extra/check_launch_attributes/launch_kernel/require_arg(...)",
        """Launch from a ``CUlaunchConfig`` (grid, block, shared memory, stream, ``attrs``).

Fidelity: attributes ``IGNORE``, ``COOPERATIVE`` and ``PRIORITY`` are accepted (no effect); any other
attribute is NOT_SUPPORTED (not simulated; spec 13.B). Errors otherwise as ``cuLaunchKernel``;
INVALID_VALUE for a NULL config.""", decoder="kernel_launch_ex"),
    Api("cuLaunchHostFunc", "launch_host_func(hStream, fn, userData) (...)",
        """Enqueue a host function: a HOST node during capture, called once per replay (spec 3.9).

Args: ``fn``: ``CUhostFn`` or the ``int`` address of a ``void (*)(void*)`` (for example
``ctypes.cast(CFUNCTYPE(None, c_void_p)(py_fn), c_void_p).value``); a Python callable or the
CFUNCTYPE object raises ``TypeError: an integer is required``. ``userData``: None, int or buffer
(passed as an address). The simulator keeps no reference to the thunk, like the binding: keep it alive.
Errors: INVALID_VALUE NULL function; NOT_SUPPORTED on a CIG stream (spec 8.3); stream capture rules.
CUDA calls made from inside the function return NOT_PERMITTED (800) [I]."""),
    Api("cuLaunchHostFunc_v2", "launch_host_func(hStream, fn, userData, syncMode) (...)",
        """``cuLaunchHostFunc`` with a ``CUhostTaskSyncMode`` (0 BLOCKING, 1 SPINWAIT; another value is
INVALID_VALUE [I]); the mode has no visible effect in the simulator (spec 3.9)."""),
    Api("cuGraphCreate", "graph_create(flags) -> phGraph",
        """Create an empty graph. Errors: INVALID_VALUE flags != 0."""),
    Api("cuGraphDestroy", "graph_destroy(hGraph)",
        """Destroy a graph and its nodes; the user-object references it (and its child graphs) held are released.
Errors: INVALID_VALUE bad graph, a capture target (spec 9) [I], or a child graph owned by a node."""),
    Api("cuGraphAddKernelNode",
        "graph_add_kernel_node(hGraph, dependencies[numDependencies], **nodeParams) -> phGraphNode (...)",
        """Add a KERNEL node from ``CUDA_KERNEL_NODE_PARAMS`` (``func`` or ``kern``, grid/block dimensions,
``sharedMemBytes`` in bytes, ``kernelParams`` in any form ``cuLaunchKernel`` takes; arguments are copied
now, as the driver copies them). A kernel registered with ``simcuda.kernel`` runs on every launch.

Another struct type (also ``CUDA_KERNEL_NODE_PARAMS_v2``/``_v3``) raises ``TypeError`` like the wrapper.
Errors: INVALID_VALUE NULL params, bad graph/dependency, bad function (the Returns list has no
INVALID_HANDLE), zero or oversized dimensions, ``kernelParams`` together with ``extra``;
NOT_SUPPORTED ``extra`` alone (not simulated)."""),
    Api("cuGraphAddMemcpyNode",
        "graph_add_memcpy_node(hGraph, dependencies[numDependencies], copyParams) -> phGraphNode (...)",
        """Add a MEMCPY node from a ``CUDA_MEMCPY3D``; host sides are read and written when the graph runs,
never now (spec 3.10). ``ctx`` is accepted and not checked.

Errors: INVALID_VALUE NULL params, bad graph/dependency, device ranges outside an allocation, bad
memory type; NOT_SUPPORTED for CUDA arrays."""),
    Api("cuGraphAddMemsetNode",
        "graph_add_memset_node(hGraph, dependencies[numDependencies], memsetParams) -> phGraphNode (...)",
        """Add a MEMSET node from ``CUDA_MEMSET_NODE_PARAMS`` (``dst``, ``pitch`` in bytes, ``value``,
``elementSize`` 1/2/4 bytes, ``width`` in elements, ``height`` in rows).

Errors: INVALID_VALUE NULL params, bad graph/dependency, element size, value wider than the element,
misaligned destination, range outside an allocation."""),
    Api("cuGraphAddHostNode",
        "graph_add_host_node(hGraph, dependencies[numDependencies], **nodeParams) -> phGraphNode (...)",
        """Add a HOST node from ``CUDA_HOST_NODE_PARAMS`` (``fn``: a ``CUhostFn`` address, ``userData``); the
function is called through ctypes on every launch (spec 3.9). Keep the ctypes thunk alive.

Errors: INVALID_VALUE NULL params or function, bad graph/dependency."""),
    Api("cuGraphAddEmptyNode", "graph_add_empty_node(hGraph, dependencies[numDependencies]) -> phGraphNode",
        """Add an EMPTY node (a join point). Errors: INVALID_VALUE bad graph or dependency (also a repeated one)."""),
    Api("cuGraphAddEventRecordNode",
        "graph_add_event_node(hGraph, dependencies[numDependencies], event, False) -> phGraphNode",
        """Add an EVENT_RECORD node (the event completes when the node runs).

Errors: INVALID_VALUE bad graph, dependency or event (the Returns list has no INVALID_HANDLE)."""),
    Api("cuGraphAddEventWaitNode",
        "graph_add_event_node(hGraph, dependencies[numDependencies], event, True) -> phGraphNode",
        """Add a WAIT_EVENT node (replay has nothing to wait for: nodes run in one order).

Errors: INVALID_VALUE bad graph, dependency or event."""),
    Api("cuGraphAddMemAllocNode",
        "graph_add_mem_alloc_node(hGraph, dependencies[numDependencies], **nodeParams) -> phGraphNode, "
        "nodeParams.dptr (...)",
        """Add a MEM_ALLOC node from ``CUDA_MEM_ALLOC_NODE_PARAMS`` and write the allocation's fixed address
into ``nodeParams.dptr`` (as the driver does).

Fields read: ``bytesize`` (bytes), ``poolProps.allocType`` (PINNED), ``poolProps.location`` (DEVICE,
ordinal), ``accessDescs[:accessDescCount]``. The memory exists while the graph runs, between this node
and a MEM_FREE node (or, left unfreed, until cuMemFreeAsync / cuMemFree / the next AUTO_FREE launch).
Errors: INVALID_VALUE NULL params, bad graph/dependency, size 0, a location other than a device of the
driver, an allocation type other than PINNED, bad access descriptors, a graph owned by a child node;
NOT_SUPPORTED on a device without memory pools (``DeviceSpec(memory_pools=False)``) [I]."""),
    Api("cuGraphAddMemFreeNode",
        "graph_add_mem_free_node(hGraph, dependencies[numDependencies], dptr) -> phGraphNode",
        """Add a MEM_FREE node for a graph allocation (``dptr``: ``CUdeviceptr`` or ``int``).

Errors: INVALID_VALUE bad graph/dependency; an address not returned by an allocation node; an
allocation already freed by a free node (in any graph); in the owning graph a free node not
ordered after its allocation node [I]."""),
    Api("cuGraphAddBatchMemOpNode", "graph_add_batch_mem_op_node(...)",
        """Add a BATCH_MEM_OP node from ``CUDA_BATCH_MEM_OP_NODE_PARAMS`` (``ctx``, ``count``, ``paramArray``
of ``CUstreamBatchMemOpParams`` read by ``operation``, ``flags`` 0). The operations are copied.

Replay: WRITE_VALUE operations store their value; WAIT_VALUE operations evaluate their condition and
note it in the launch log (the simulator never blocks); barriers and flushes are no-ops.
Errors: INVALID_VALUE NULL params, count above the list or 256, unknown operation, an address outside
device memory or misaligned, a value too wide, unknown flags.""", decoder="node_add(12)"),
    Api("cuGraphAddExternalSemaphoresSignalNode",
        "graph_add_ext_sem_node(hGraph, dependencies[numDependencies], wait=False, **nodeParams) -> phGraphNode (...)",
        """Add an EXT_SEMAS_SIGNAL node from ``CUDA_EXT_SEM_SIGNAL_NODE_PARAMS`` (``extSemArray``,
``paramsArray``, ``numExtSems``). Recorded with its parameters; replay is a no-op with a note in the
launch log (external semaphores are not simulated, so handles are not checked beyond NULL).

Errors: INVALID_VALUE NULL params, no semaphores, a NULL handle, ``numExtSems`` above a list length."""),
    Api("cuGraphAddExternalSemaphoresWaitNode",
        "graph_add_ext_sem_node(hGraph, dependencies[numDependencies], wait=True, **nodeParams) -> phGraphNode (...)",
        """Add an EXT_SEMAS_WAIT node from ``CUDA_EXT_SEM_WAIT_NODE_PARAMS``; as the signal node otherwise."""),
    Api("cuGraphAddNode",
        "graph_add_batch_mem_op_node/graph_add_child_graph_node/graph_add_conditional_node/graph_add_empty_node/"
        "graph_add_event_node/"
        "graph_add_ext_sem_node/graph_add_host_node/graph_add_kernel_node/graph_add_mem_alloc_node/"
        "graph_add_mem_free_node/graph_add_memcpy_node/graph_add_memset_node(...)",
        """Add a node of any simulated type from a ``CUgraphNodeParams`` tagged union (``type`` selects the
member: ``kernel``, ``memcpy.copyParams``, ``memset``, ``host``, ``graph`` (ownership CLONE or MOVE),
``eventRecord``, ``eventWait``, ``extSemSignal``, ``extSemWait``, ``alloc`` (its ``dptr`` is written
back), ``free``, ``memOp``; EMPTY needs none), keeping ``dependencyData`` (spec 4.6 step 2).

CONDITIONAL (``conditional``: ``handle``, ``type`` IF/WHILE/SWITCH, ``size``, ``ctx``): the node and its
empty body graphs, owned by the node, written back into ``conditional.phGraph_out`` (P-21).

Errors: as the typed add calls; INVALID_VALUE an unknown type or ownership, bad edge data (to_port
must be 0, type 0 or 1), a conditional node's bad handle, type, size or context (P-21); NOT_SUPPORTED
memcpy-batch and other unsimulated types.""", decoder="graph_add_node"),
    Api("cuGraphAddNode_v3",
        "graph_add_batch_mem_op_node/graph_add_child_graph_node/graph_add_conditional_node/graph_add_empty_node/"
        "graph_add_event_node/"
        "graph_add_ext_sem_node/graph_add_host_node/graph_add_kernel_node/graph_add_mem_alloc_node/"
        "graph_add_mem_free_node/graph_add_memcpy_node/graph_add_memset_node(...)",
        """The same call as ``cuGraphAddNode`` (13.x resolves both to the edge-data ABI).""", decoder="graph_add_node"),
    Api("cuGraphAddChildGraphNode",
        "graph_add_child_graph_node(hGraph, dependencies[numDependencies], childGraph) -> phGraphNode",
        """Add a GRAPH node holding a **clone** of ``childGraph`` (spec 4.6, 9); allowed on a capture graph, and
with a capture graph as ``childGraph`` (cloning only reads it, spec 3.5).

Errors: INVALID_VALUE bad graphs/dependencies, or a child with MEM_ALLOC/MEM_FREE/CONDITIONAL nodes."""),
    Api("cuGraphChildGraphNodeGetGraph", "graph_child_graph_node_get_graph(hNode) -> phGraph",
        """The graph embedded in a GRAPH node (owned by the node). Errors: INVALID_VALUE not a GRAPH node."""),
    Api("cuGraphNodeGetParams", "graph_node_get_params(...)",
        """A node's parameters as a ``CUgraphNodeParams`` (``type`` plus the member for that type).

For a GRAPH node ``graph.graph`` is the embedded graph (owned by the node) and ``graph.ownership``
is ``CU_GRAPH_CHILD_GRAPH_OWNERSHIP_INVALID``, as the driver sets it on query; for a MEM_ALLOC node
``alloc.dptr`` is the allocation's address; for a CONDITIONAL node ``conditional`` has its handle, type, size,
context and ``phGraph_out`` its body graphs. Errors: INVALID_VALUE bad node.""", decoder="node_params_get"),
    Api("cuGraphNodeSetParams", "graph_node_set_params(...)",
        """Set a node's parameters from a ``CUgraphNodeParams`` whose ``type`` must match the node's.

Execs made earlier are not affected. GRAPH: ``graph.graph`` is cloned into the node (replacing the
embedded graph). Errors: INVALID_VALUE NULL params, a type mismatch, bad parameters; NOT_SUPPORTED
for MEM_ALLOC / MEM_FREE nodes (documented as not supported), CONDITIONAL nodes (P-29) and unsimulated types.""",
        decoder="node_params_set"),
    Api("cuGraphNodeSetParams_v2", "graph_node_set_params(...)",
        """As ``cuGraphNodeSetParams`` (the ``_v2`` entry also takes green contexts, not simulated).""",
        decoder="node_params_set"),
    Api("cuGraphKernelNodeGetParams", "graph_node_get_params(...)",
        """A kernel node's ``CUDA_KERNEL_NODE_PARAMS``; ``kernelParams`` is the address of a ``void**`` array
holding copies of the arguments (owned by the returned struct). Errors: INVALID_VALUE bad node or not
a KERNEL node.""", decoder="node_get(0)"),
    Api("cuGraphKernelNodeSetParams", "graph_node_set_params(hNode, 0, nodeParams) (...)",
        """Set a kernel node's parameters (copied). Errors: INVALID_VALUE NULL params, not a KERNEL node, bad
dimensions; INVALID_HANDLE a bad function (the Returns list names it)."""),
    Api("cuGraphMemcpyNodeGetParams", "graph_node_get_params(...)",
        """A memcpy node's ``CUDA_MEMCPY3D`` (host sides are the objects given).

Mirrors ``cuda.bindings.driver.cuGraphMemcpyNodeGetParams(hNode)``; returns
``(CUresult, CUDA_MEMCPY3D)``.

Fidelity: each side's ``*MemoryType`` is the one the copy was made with: HOST/DEVICE for typed
copies, ``CU_MEMORYTYPE_UNIFIED`` (address in ``*Device``) for a captured ``cuMemcpyAsync`` and for
a side set as UNIFIED (spec 16, 9).

Errors: INVALID_VALUE bad node or not a MEMCPY node.""", decoder="node_get(1)"),
    Api("cuGraphMemcpyNodeSetParams", "graph_node_set_params(hNode, 1, nodeParams) (...)",
        """Set a memcpy node's ``CUDA_MEMCPY3D``. Errors: INVALID_VALUE NULL params, not a MEMCPY node, bad
ranges or memory types; NOT_SUPPORTED arrays."""),
    Api("cuGraphMemsetNodeGetParams", "graph_node_get_params(...)",
        """A memset node's ``CUDA_MEMSET_NODE_PARAMS``. Errors: INVALID_VALUE bad node or not a MEMSET node.""",
        decoder="node_get(2)"),
    Api("cuGraphMemsetNodeSetParams", "graph_node_set_params(hNode, 2, nodeParams) (...)",
        """Set a memset node's parameters. Errors: INVALID_VALUE NULL params, not a MEMSET node, bad range,
element size or value."""),
    Api("cuGraphHostNodeGetParams", "graph_node_get_params(...)",
        """A host node's ``CUDA_HOST_NODE_PARAMS`` (``fn`` as ``CUhostFn``, ``userData`` as given). Errors:
INVALID_VALUE.""", decoder="node_get(3)"),
    Api("cuGraphHostNodeSetParams", "graph_node_set_params(hNode, 3, nodeParams) (...)",
        """Set a host node's function and user data. Errors: INVALID_VALUE NULL params or function, not a HOST
        node."""),
    Api("cuGraphEventRecordNodeGetEvent", "graph_node_get_params(...)",
        """The event of an EVENT_RECORD node. Errors: INVALID_VALUE bad node or another type.""",
        decoder="node_get_value(7, 'event')"),
    Api("cuGraphEventRecordNodeSetEvent", "graph_node_set_params(hNode, ntype=7, spec=event) (...)",
        """Set the event of an EVENT_RECORD node. Errors: INVALID_VALUE bad node or another type; INVALID_HANDLE
a bad event."""),
    Api("cuGraphEventWaitNodeGetEvent", "graph_node_get_params(...)",
        """The event of a WAIT_EVENT node. Errors: INVALID_VALUE bad node or another type.""",
        decoder="node_get_value(6, 'event')"),
    Api("cuGraphEventWaitNodeSetEvent", "graph_node_set_params(hNode, ntype=6, spec=event) (...)",
        """Set the event of a WAIT_EVENT node. Errors: INVALID_VALUE bad node; INVALID_HANDLE a bad event."""),
    Api("cuGraphMemAllocNodeGetParams", "graph_node_get_params(...)",
        """A MEM_ALLOC node's ``CUDA_MEM_ALLOC_NODE_PARAMS`` (``dptr``, ``bytesize``, pinned device pool
properties, access descriptors). Errors: INVALID_VALUE bad node or another type.""", decoder="node_get(10)"),
    Api("cuGraphMemFreeNodeGetParams", "graph_node_get_params(...)",
        """The address a MEM_FREE node frees, as ``CUdeviceptr``. Errors: INVALID_VALUE bad node or another type.""",
        decoder="node_get_value(11, 'dptr')"),
    Api("cuGraphBatchMemOpNodeGetParams", "graph_node_get_params(...)",
        """A BATCH_MEM_OP node's ``CUDA_BATCH_MEM_OP_NODE_PARAMS``. Errors: INVALID_VALUE bad node or another type.""",
        decoder="node_get(12)"),
    Api("cuGraphBatchMemOpNodeSetParams", "graph_node_set_params(hNode, 12, nodeParams) (...)",
        """Set a batch mem op node's operations (copied). Errors: INVALID_VALUE as ``cuGraphAddBatchMemOpNode``."""),
    Api("cuGraphExternalSemaphoresSignalNodeGetParams", "graph_node_get_params(...)",
        """An EXT_SEMAS_SIGNAL node's ``CUDA_EXT_SEM_SIGNAL_NODE_PARAMS``. Errors: INVALID_VALUE.""",
        decoder="node_get(8)"),
    Api("cuGraphExternalSemaphoresSignalNodeSetParams", "graph_node_set_params(hNode, 8, nodeParams) (...)",
        """Set an EXT_SEMAS_SIGNAL node's semaphores and parameters. Errors: INVALID_VALUE."""),
    Api("cuGraphExternalSemaphoresWaitNodeGetParams", "graph_node_get_params(...)",
        """An EXT_SEMAS_WAIT node's ``CUDA_EXT_SEM_WAIT_NODE_PARAMS``. Errors: INVALID_VALUE.""",
        decoder="node_get(9)"),
    Api("cuGraphExternalSemaphoresWaitNodeSetParams", "graph_node_set_params(hNode, 9, nodeParams) (...)",
        """Set an EXT_SEMAS_WAIT node's semaphores and parameters. Errors: INVALID_VALUE."""),
    Api("cuGraphExecKernelNodeSetParams", "graph_exec_node_set_params(hGraphExec, hNode, 0, nodeParams) (...)",
        """Set a kernel node's parameters in an exec. All fields may change, but the function's owning context
may not (Graph Update Limitations).

Errors: INVALID_VALUE NULL params, a node not in the exec's graph (or destroyed), not a KERNEL node,
bad function or dimensions, a function of another context."""),
    Api("cuGraphExecMemcpyNodeSetParams", "graph_exec_node_set_params(hGraphExec, hNode, 1, copyParams) (...)",
        """Set a memcpy node's ``CUDA_MEMCPY3D`` in an exec. The operands must stay in allocations of the same
kind and context and keep their memory types; both the old and the new copy must be 1-dimensional to
change geometry; zero-length copies are refused (the docstring's limits).

Errors: INVALID_VALUE for any of those, NULL params, or a node not in the exec's graph."""),
    Api("cuGraphExecMemsetNodeSetParams", "graph_exec_node_set_params(hGraphExec, hNode, 2, memsetParams) (...)",
        """Set a memset node's parameters in an exec: value and address may change (same kind of allocation,
same context); 2D memsets may change nothing else, 1D ones not their height; zero sizes are refused.

Errors: INVALID_VALUE for any of those, NULL params, or a node not in the exec's graph."""),
    Api("cuGraphExecHostNodeSetParams", "graph_exec_node_set_params(hGraphExec, hNode, 3, nodeParams) (...)",
        """Set a host node's function and user data in an exec (no restrictions). Errors: INVALID_VALUE."""),
    Api("cuGraphExecChildGraphNodeSetParams",
        "graph_exec_node_set_params(hGraphExec, hNode, ntype=4, spec=childGraph) (...)",
        """Give a child-graph node of an exec the parameters of ``childGraph``, whose topology and node
insertion order must match the embedded graph's (checked like ``cuGraphExecUpdate``, recursively).

Errors: INVALID_VALUE bad handles, a node not in the exec's graph, or a mismatch (the ``why`` names the
update result, e.g. TOPOLOGY_CHANGED)."""),
    Api("cuGraphExecEventRecordNodeSetEvent",
        "graph_exec_node_set_params(hGraphExec, hNode, ntype=7, spec=event) (...)",
        """Set the event of an EVENT_RECORD node in an exec. Errors: INVALID_VALUE (bad event included)."""),
    Api("cuGraphExecEventWaitNodeSetEvent",
        "graph_exec_node_set_params(hGraphExec, hNode, ntype=6, spec=event) (...)",
        """Set the event of a WAIT_EVENT node in an exec. Errors: INVALID_VALUE (bad event included)."""),
    Api("cuGraphExecBatchMemOpNodeSetParams", "graph_exec_node_set_params(hGraphExec, hNode, 12, nodeParams) (...)",
        """Set a batch mem op node's operations in an exec: addresses, values and wait conditions may change;
count, operation types, flags and context may not. Errors: INVALID_VALUE."""),
    Api("cuGraphExecExternalSemaphoresSignalNodeSetParams",
        "graph_exec_node_set_params(hGraphExec, hNode, 8, nodeParams) (...)",
        """Set an EXT_SEMAS_SIGNAL node's parameters in an exec; ``numExtSems`` cannot change. Errors:
        INVALID_VALUE."""),
    Api("cuGraphExecExternalSemaphoresWaitNodeSetParams",
        "graph_exec_node_set_params(hGraphExec, hNode, 9, nodeParams) (...)",
        """Set an EXT_SEMAS_WAIT node's parameters in an exec; ``numExtSems`` cannot change. Errors: INVALID_VALUE."""),
    Api("cuGraphExecNodeSetParams", "graph_exec_node_set_params(...)",
        """Set a node's parameters in an exec from a ``CUgraphNodeParams`` (``type`` must match), with the limits
of the per-type exec setters. Errors: INVALID_VALUE; NOT_SUPPORTED for memory and unsimulated nodes.""",
        decoder="exec_node_params_set"),
    Api("cuGraphNodeSetEnabled", "graph_node_set_enabled(hGraphExec, hNode, isEnabled)",
        """Enable (``isEnabled`` != 0) or disable a kernel, memcpy or memset node in an exec; a disabled node runs
as an empty node and keeps its parameters. Errors: INVALID_VALUE another node type, a node not in the
exec's graph, bad handles."""),
    Api("cuGraphNodeGetEnabled", "graph_node_get_enabled(hGraphExec, hNode) -> isEnabled",
        """Whether a kernel, memcpy or memset node is enabled in an exec (1 or 0). Errors: INVALID_VALUE."""),
    Api("cuGraphNodeFindInClone", "graph_node_find_in_clone(hOriginalNode, hClonedGraph) -> phNode",
        """The copy of ``hOriginalNode`` in a graph made by ``cuGraphClone`` of its graph.

Errors: INVALID_VALUE bad handles, a graph that is not such a clone, a node added after cloning, or a
copy destroyed since."""),
    Api("cuGraphExecGetFlags", "graph_exec_get_flags(hGraphExec) -> flags",
        """The flags the exec was instantiated with (``cuuint64_t``), without UPLOAD. Errors: INVALID_VALUE."""),
    Api("cuGraphExecGetId", "graph_exec_get_id(hGraphExec) -> graphId",
        """The exec's id (``int``; unique among this driver's graph and exec ids). Errors: INVALID_VALUE."""),
    Api("cuStreamWriteValue32",
        "stream_batch_mem_op(stream, [(2, addr, value, flags)], 0, 'cuStreamWriteValue32') (...)",
        """Write a 32-bit value to device memory in stream order (a BATCH_MEM_OP node during capture, spec 3.8 [I]).

Args: ``addr`` a ``CUdeviceptr`` (4-byte aligned); ``value`` (``cuuint32_t`` or int); ``flags``
``CUstreamWriteValue_flags``. Errors: INVALID_VALUE bad address, alignment or flags; stream capture rules."""),
    Api("cuStreamWriteValue64",
        "stream_batch_mem_op(stream, [(5, addr, value, flags)], 0, 'cuStreamWriteValue64') (...)",
        """As ``cuStreamWriteValue32`` with a 64-bit value (8-byte aligned address)."""),
    Api("cuStreamWaitValue32", "stream_batch_mem_op(stream, [(1, addr, value, flags)], 0, 'cuStreamWaitValue32') (...)",
        """Wait in stream order until ``*addr`` meets a condition (``CUstreamWaitValue_flags``: GEQ cyclic, EQ,
AND, NOR, plus FLUSH). A BATCH_MEM_OP node during capture (spec 3.8 [I]).

Fidelity: the simulator never blocks: the condition is evaluated when the work runs and the launch
log says whether it held. Errors: INVALID_VALUE bad address, alignment or flags; NOT_SUPPORTED on a CIG
stream (spec 8.3); stream capture rules."""),
    Api("cuStreamWaitValue64", "stream_batch_mem_op(stream, [(4, addr, value, flags)], 0, 'cuStreamWaitValue64') (...)",
        """As ``cuStreamWaitValue32`` with a 64-bit value."""),
    Api("cuStreamBatchMemOp", "stream_batch_mem_op(...)",
        """Enqueue ``count`` memory operations (``CUstreamBatchMemOpParams``, read by ``operation``): a
BATCH_MEM_OP node during capture (spec 3.8 [D]); otherwise writes store and waits are evaluated when
the work runs. ``count`` above the list raises ``RuntimeError: List is too small`` as the wrapper does.

Errors: INVALID_VALUE count of 256 or more, unknown operation, bad address/alignment/value, flags != 0;
NOT_SUPPORTED on a CIG stream (spec 8.3); stream capture rules.""", decoder="stream_batch_mem_op"),
    Api("cuSignalExternalSemaphoresAsync", "stream_ext_semaphores(...)",
        """Signal external semaphores in stream order: an EXT_SEMAS_SIGNAL node during capture (spec 3.8);
otherwise a no-op noted in the launch log (external semaphores are not simulated; handles are not
checked beyond NULL). Errors: INVALID_HANDLE a NULL handle or none; stream capture rules.""",
        decoder="ext_semaphores_async(False)"),
    Api("cuWaitExternalSemaphoresAsync", "stream_ext_semaphores(...)",
        """Wait on external semaphores in stream order: an EXT_SEMAS_WAIT node during capture (spec 3.8);
otherwise a no-op noted in the launch log. Errors as ``cuSignalExternalSemaphoresAsync``.""",
        decoder="ext_semaphores_async(True)"),
    Api("cuGraphGetNodes", "graph_get_nodes(hGraph) -> nodes[numNodes] (...)",
        """The graph's nodes in creation order [I] (spec 4.5, 9).

``numNodes=0`` only counts: ``(res, [], N)``. A larger ``numNodes`` pads the list with
``CUgraphNode(0)`` and returns the count N; a smaller one returns that many nodes and that count.
Errors: INVALID_VALUE bad graph."""),
    Api("cuGraphGetRootNodes", "graph_get_root_nodes(hGraph) -> rootNodes[numRootNodes] (...)",
        """Nodes with no incoming edge, creation order; count-only and padding as ``cuGraphGetNodes``."""),
    Api("cuGraphGetEdges", "graph_get_edges(hGraph) -> from_[numEdges], to[numEdges], edgeData[numEdges] (...)",
        """Edges in creation order: ``(res, from, to, edgeData, count)`` with ``to[i]`` depending on ``from[i]``.

``numEdges=0`` only counts; a larger value pads with ``CUgraphNode(0)`` and zero edge data.
Errors: INVALID_VALUE bad graph."""),
    Api("cuGraphNodeGetDependencies",
        "graph_node_get_dependencies(hNode, False) -> dependencies[numDependencies], edgeData[numDependencies] (...)",
        """The node's dependencies with edge data, in edge order: ``(res, nodes, edgeData, count)``."""),
    Api("cuGraphNodeGetDependentNodes",
        "graph_node_get_dependencies(hNode, True) -> dependentNodes[numDependentNodes], "
        "edgeData[numDependentNodes] (...)",
        """The nodes that depend on this one, with edge data: ``(res, nodes, edgeData, count)``."""),
    Api("cuGraphNodeGetType", "graph_node_get_type(hNode) -> type",
        """The node's ``CUgraphNodeType``. Errors: INVALID_VALUE bad node."""),
    Api("cuGraphNodeGetContainingGraph", "graph_node_get_containing_graph(hNode) -> phGraph",
        """The graph that holds the node. Errors: INVALID_VALUE."""),
    Api("cuGraphNodeGetLocalId", "graph_node_get_local_id(hNode) -> nodeId",
        """The node's 0-based creation index in its graph (matches ``node_<id>`` in DOT output)."""),
    Api("cuGraphGetId", "graph_get_id(hGraph) -> graphId",
        """The graph's id (matches ``graph_<id>`` in DOT output)."""),
    Api("cuGraphAddDependencies",
        "graph_add_dependencies(hGraph, from_[numDependencies], to[numDependencies], edgeData[numDependencies]) (...)",
        """Add edges ``from_[i] -> to[i]`` (``edgeData`` None = zero). Errors: INVALID_VALUE a node outside the
graph or NULL (also counts past the lists), an existing edge, bad edge data."""),
    Api("cuGraphRemoveDependencies",
        "graph_remove_dependencies(hGraph, from_[numDependencies], to[numDependencies], "
        "edgeData[numDependencies]) (...)",
        """Remove edges (recorded, so nodes cut off by graph edits stay exempt from UNJOINED, spec 4.4).
Errors: INVALID_VALUE a missing edge, or a graph with memory nodes."""),
    Api("cuGraphDestroyNode", "graph_destroy_node(hNode)",
        """Remove a node and its edges. Errors: INVALID_VALUE during capture of its graph (spec 3.5) or with
memory nodes."""),
    Api("cuGraphClone", "graph_clone(originalGraph) -> phGraphClone",
        """Deep copy (child graphs included), with new references to the user objects each graph holds. Errors:
INVALID_VALUE, also for MEM_ALLOC/MEM_FREE/CONDITIONAL nodes."""),
    Api("cuGraphInstantiate", "graph_instantiate(hGraph, flags) -> phGraphExec (...)",
        """Freeze a graph into an executable graph. Args: ``flags``: ``CUgraphInstantiate_flags`` bits (13.x takes
them; the argument is required, as in the wrapper: one argument raises ``TypeError``).

Mirrors ``cuda.bindings.driver.cuGraphInstantiate(hGraph, flags)``; returns ``(CUresult, CUgraphExec)``.

Errors (INVALID_VALUE): ``CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD``, which needs the params form and its
upload stream (spec 16, 9) [H/D]; unknown flag bits; a capture target [I]; a graph moved into a child-graph node;
memory nodes while an exec of the graph exists (C-141); DEVICE_LAUNCH with AUTO_FREE_ON_LAUNCH, with no
kernel/memcpy/memset node, other node types, pageable host copies or several contexts (C-143); a cycle;
a conditional body holding a node other than kernel, empty, memcpy, memset, child graph or conditional, at any
depth (NODE_OPERATION_NOT_SUPPORTED, C-29, P-23); a conditional handle no node uses (CONDITIONAL_HANDLE_UNUSED,
P-22). ``cuGraphInstantiateWithParams`` also reports the ``CUgraphInstantiateResult`` and error node."""),
    Api("cuGraphInstantiateWithParams", "graph_instantiate_with_params(...)",
        """Instantiate from ``CUDA_GRAPH_INSTANTIATE_PARAMS`` (``flags``; ``hUploadStream`` used with
``CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD``) and write ``result_out`` (a ``CUgraphInstantiateResult``) and
``hErrNode_out`` into the struct, as the driver does: SUCCESS and NULL on success; on failure ERROR,
INVALID_STRUCTURE (a cycle; a node on it), NODE_OPERATION_NOT_SUPPORTED (DEVICE_LAUNCH with another node
type or pageable host memory; that node) or MULTIPLE_CTXS_NOT_SUPPORTED (that node).

Errors: INVALID_VALUE NULL params and every rule of ``cuGraphInstantiate``; stream errors of the upload
stream (checked before anything is made).""", decoder="instantiate_with_params"),
    Api("cuGraphLaunch", "graph_launch(hGraphExec, hStream)",
        """Run an executable graph on a stream (replays nodes in topological order, creation order breaking ties).

Mirrors ``cuda.bindings.driver.cuGraphLaunch(hGraphExec, hStream)``; returns ``(CUresult,)``.

Errors: INVALID_VALUE for a NULL or destroyed exec (spec 16, 9), INVALID_HANDLE for a handle that never
named an exec; INVALID_VALUE unfreed graph allocations without
AUTO_FREE_ON_LAUNCH; 900 into a capturing stream, invalidating it (spec 3.8) unless
``Options(graph_launch_in_capture="child-node")``; 906/901 by the stream rules; LAUNCH_TIMEOUT (702) when a
WHILE node's body ran ``simcuda._core.nodes.COND_WHILE_LIMIT`` times in one launch with its condition still set
(P-27) [I]. Conditional nodes replay the body their handle's value selects (P-26)."""),
    Api("cuGraphUpload", "graph_upload(hGraphExec, hStream)",
        """Nothing to upload in a simulator: checks the handles and the stream rules (906 legacy, 901).

Mirrors ``cuda.bindings.driver.cuGraphUpload(hGraphExec, hStream)``; returns ``(CUresult,)``.

Errors: INVALID_VALUE for a NULL or destroyed exec (spec 16, 9), INVALID_HANDLE for a handle that never
named an exec; the stream's preamble errors; 906 on the legacy stream under a blocking capture; 901 on
a stream of an invalidated capture."""),
    Api("cuGraphExecDestroy", "graph_exec_destroy(hGraphExec)",
        """Destroy an executable graph and release its user-object references (a launch still pending or running
keeps its own until it completes). Errors: INVALID_VALUE/INVALID_HANDLE; 900 during a restricting capture
(potentially unsafe call, spec 5.2)."""),
    Api("cuGraphExecUpdate", "graph_exec_update(...)",
        """Update an exec's parameters from a graph of the same topology (spec 9; Programming Guide "Whole Graph
Update": nodes paired by creation order, dependencies by edge order).

Returns ``(CUDA_SUCCESS, CUgraphExecUpdateResultInfo(result=SUCCESS, errorNode=0, errorFromNode=0))``.
On any error, including ``CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE`` (910), the info slot is ``None`` as in
the real wrapper (spec 11.1, C-138); the driver's result (TOPOLOGY_CHANGED, NODE_TYPE_CHANGED,
UNSUPPORTED_FUNCTION_CHANGE, PARAMETERS_CHANGED, ATTRIBUTES_CHANGED, NOT_SUPPORTED) and error nodes are
named in ``simcuda.last_error().why`` and kept in ``simcuda.last_error().update_info``. The exec is
unchanged on failure. Updating from the graph of a live capture is INVALID_VALUE: an update freezes the
graph into the exec as instantiation does, which spec 3.2 rules out until the capture ends [inferred].

Fidelity (spec 16, 9) [I]: when the two graphs created different numbers of nodes (destroyed ones
included) the result is NOT_SUPPORTED with a NULL error node, as observed on NVIDIA; the same
created count with different live nodes is TOPOLOGY_CHANGED. The rule is ``graph.plan_update``. On success the
exec's user-object references are replaced by new ones to those of ``hGraph`` (and its child graphs) [I].
Conditional nodes (P-29): another conditional type or body count is PARAMETERS_CHANGED; the bodies are checked as
graphs of their own; the handle's default value and flags come from ``hGraph``.""", decoder="graph_exec_update"),
    Api("cuGraphDebugDotPrint", "graph_debug_dot_print(hGraph, path, flags) (...)",
        """Write the graph as Graphviz DOT (spec 9.1). Args: ``path`` as ``bytes`` (``str`` raises TypeError);
``CUgraphDebugDot_flags``. Errors: INVALID_VALUE bad graph or empty path; OPERATING_SYSTEM (304)
when the file cannot be written."""),
    Api("cuUserObjectCreate", "user_object_create(ptr, destroy, initialRefcount, flags) -> object_out (...)",
        """Create a user object: ``destroy(ptr)`` runs once its last reference goes. The caller owns the
``initialRefcount`` references it starts with.

Args: ``ptr``: the value handed to ``destroy`` (None, an int address or a buffer, as ``userData`` of
``cuLaunchHostFunc``); ``destroy``: a ``CUhostFn`` or an ``int`` address (a Python callable raises ``TypeError: an
integer is required``, as in the real wrapper); ``flags``: ``CU_USER_OBJECT_NO_DESTRUCTOR_SYNC`` (1), required.

References: graphs take them with ``cuGraphRetainUserObject`` (cuda.core moves the caller's reference to its
capture's graph); a clone copies the graph's; an exec keeps its own copy from instantiate
(replaced by the source graph's at ``cuGraphExecUpdate`` [I]) until it is destroyed; a launch holds the exec's
until the replay has run, so the destructor never runs during a launch that uses the object.
Fidelity [I]: the destructor runs on the calling thread when the call that dropped the last reference ends
(NVIDIA runs it later on an internal thread), outside the driver lock, with every CUDA call from it refused
with NOT_PERMITTED (800, spec 3.9). Not a potentially unsafe call: fine during capture.

Errors: INVALID_VALUE ``flags`` other than 1; ``initialRefcount`` 0 or above INT_MAX [H: hip-tests; I]; a NULL
``destroy`` [H; I]."""),
    Api("cuUserObjectRetain", "user_object_retain(object, count)",
        """Add ``count`` references owned by the caller. Errors: INVALID_VALUE a bad handle, or one whose references
are all gone [I]; ``count`` 0 or above INT_MAX."""),
    Api("cuUserObjectRelease", "user_object_release(object, count)",
        """Release ``count`` of the caller's references; the last reference of all runs the destructor.

Errors (nothing released): INVALID_VALUE a bad or dead handle; ``count`` 0 or above INT_MAX; more references
than the caller holds: undefined behaviour in CUDA, INVALID_VALUE here [I]."""),
    Api("cuGraphRetainUserObject", "graph_retain_user_object(graph, object, count, flags)",
        """The graph takes ``count`` references: new ones (``flags`` 0) or, with ``CU_GRAPH_USER_OBJECT_MOVE``
(1), the caller's. Allowed on the graph of an open capture (cuda.core's GraphBuilder does it) [O].

Errors (nothing changes): INVALID_VALUE a bad graph or object; ``count`` 0 or above INT_MAX; other ``flags``;
with MOVE, more references than the caller holds [I]."""),
    Api("cuGraphReleaseUserObject", "graph_release_user_object(graph, object, count)",
        """The graph releases ``count`` of its references. Execs instantiated from it keep their own copy.

Errors (nothing changes): INVALID_VALUE a bad graph or object; ``count`` 0 or above INT_MAX; more references than
the graph holds: undefined behaviour in CUDA, INVALID_VALUE here [I]."""),
    Api("cuLibraryLoadData", "library_load_data(code, 'cuLibraryLoadData') -> library (...)",
        """Load a library from PTX/CUDA text, CUBIN or fatbin (as ``cuModuleLoadData``; options ignored).

A library is context-independent: it loads with no current context too, its kernels serve every context, and
its device variables are made per context (``cuLibraryGetGlobal``).
Errors: INVALID_IMAGE (200); 900 during a restricting capture (spec 5.2) [I]."""),
    Api("cuLibraryLoadFromFile",
        "library_load_data(read_image_file(fileName, 'cuLibraryLoadFromFile'), "
        "'cuLibraryLoadFromFile') -> library (...)",
        """Load a library file (``bytes`` path). Errors: FILE_NOT_FOUND (301); otherwise as ``cuLibraryLoadData``."""),
    Api("cuLibraryUnload", "library_unload(library)",
        """Unload a library. Errors: INVALID_HANDLE; 900 during a restricting capture (spec 5.2) [I]."""),
    Api("cuLibraryGetKernel", "module_get_function(library, name) -> pKernel (...)",
        """The kernel ``name`` (``bytes``) of a library. Errors: INVALID_HANDLE; NOT_FOUND (500) unknown name."""),
    Api("cuKernelGetFunction", "kernel_get_function(kernel) -> pFunc",
        """The function of a kernel in the current context (simulated: the same handle). Errors: INVALID_CONTEXT
(201) no current context (709 a destroyed one); INVALID_HANDLE a bad kernel."""),
    Api("cuKernelGetName", "func_get_name(hfunc) -> name (...)",
        """The kernel's entry name as ``bytes``. Errors: INVALID_HANDLE."""),
    Api("cuCtxSetLimit", "ctx_set_limit(limit, value)",
        """Set a ``CUlimit`` of the current context: STACK_SIZE, PRINTF_FIFO_SIZE, MALLOC_HEAP_SIZE (the heap of
device-side ``malloc``; only before a kernel of the context used it), the device runtime's sync depth and
pending launch count, MAX_L2_FETCH_GRANULARITY (0-128) and PERSISTING_L2_CACHE_SIZE; kept and read back, only
the heap size has an effect. Errors: INVALID_CONTEXT; UNSUPPORTED_LIMIT (215) the limits 7-10 [I];
INVALID_VALUE not a ``CUlimit``, a value out of range, or the heap size once the heap is in use."""),
    Api("cuCtxGetLimit", "ctx_get_limit(limit) -> pvalue",
        """A ``CUlimit`` of the current context: the value set, else the default (heap 8 MiB, stack 1 KiB, printf
FIFO 1 MiB, sync depth 2, pending launches 2048, L2 fetch granularity 32, persisting L2 0). Errors: as
``cuCtxSetLimit``."""),
    Api("cuKernelGetAttribute", "kernel_get_attribute(attrib, kernel, dev) -> pi",
        """A kernel attribute on device ``dev``, as ``cuFuncGetAttribute`` (from the kernel's PTX; the device's
limits). Errors: INVALID_HANDLE bad kernel; INVALID_DEVICE; INVALID_VALUE not a ``CUfunction_attribute``."""),
    Api("cuKernelSetAttribute", "kernel_set_attribute(attrib, val, kernel, dev)",
        """Set a kernel attribute with device ``dev``'s limits, as ``cuFuncSetAttribute``; the setting is the
kernel's for every device [I]. Errors: INVALID_HANDLE; INVALID_DEVICE; then as ``cuFuncSetAttribute``."""),
    Api("cuKernelSetCacheConfig", "func_set_cache_config(kernel, config, dev, 'cuKernelSetCacheConfig')",
        """As ``cuFuncSetCacheConfig`` for a library kernel on device ``dev``. Errors: INVALID_HANDLE;
INVALID_DEVICE; INVALID_VALUE not a ``CUfunc_cache``."""),
    Api("cuArrayCreate",
        "array_create(pAllocateArray.Width, pAllocateArray.Height, pAllocateArray.Format, "
        "pAllocateArray.NumChannels) -> pHandle (...)",
        """Create a CUDA array from a ``CUDA_ARRAY_DESCRIPTOR`` (bookkeeping only; contents not simulated).

Errors: INVALID_VALUE NULL descriptor, zero width, bad channel count; INVALID_CONTEXT; 900 during a
restricting capture (spec 5.2) [H; I]."""),
    Api("cuArrayDestroy", "array_destroy(hArray)",
        """Destroy a CUDA array. Errors: INVALID_HANDLE; 900 during a restricting capture (spec 5.2) [H; I]."""),
    Api("cuDevicePrimaryCtxReset", "device_primary_ctx_reset(dev)",
        """Reset a device's primary context (its streams are destroyed). Errors: INVALID_DEVICE; 900 during a
restricting capture (spec 5.2) [I]."""),
    # -- conditional nodes (topic: conditional; docs/spec-proposals.md P-20..P-31)
    Api("cuGraphConditionalHandleCreate",
        "graph_conditional_handle_create(hGraph, ctx, defaultLaunchValue, flags) -> pHandle_out",
        """Create a conditional handle for ``hGraph`` (the graph holding, directly or in a nested graph, the one
conditional node that will use it) and context ``ctx`` (NULL: the current context [I]). ``defaultLaunchValue``
is the condition's value at the start of every launch when ``flags`` is ``CU_GRAPH_COND_ASSIGN_DEFAULT`` (1);
with 0 the value at a launch's start is what the previous launch of the exec left (0 at the first) [I: undefined
in CUDA]. Handles cannot be destroyed; a handle no node uses makes instantiation fail (CONDITIONAL_HANDLE_UNUSED).
Kernels set the value with ``cudaGraphSetConditional`` (a Python kernel: ``launch.set_conditional``) (P-20, P-22,
P-25).

Errors: INVALID_VALUE a bad graph, ``flags`` other than 0 or 1; INVALID_CONTEXT / CONTEXT_IS_DESTROYED a bad
context, or no current context for a NULL one."""),
    # -- host-mapped and managed memory, pointer attributes, virtual memory management (topic: vmm) ----------
    Api("cuMemHostGetDevicePointer", "mem_host_get_device_pointer(p, Flags) -> pdptr",
        """The device pointer of pinned or registered host memory (``p``: an int address, ctypes object or buffer
inside memory from ``cuMemHostAlloc``/``cuMemAllocHost``/``cuMemHostRegister``): under unified addressing the
host address itself, which kernels may use (every simulated device has
``CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM``).

Errors: INVALID_CONTEXT; INVALID_VALUE ``Flags`` not 0, ``p`` not such memory, or a device that cannot map host
memory (``DeviceSpec.host_mapped_memory``; the failure cuMemHostAlloc defers to this call) [I code]."""),
    Api("cuMemPrefetchAsync", "mem_prefetch_async(...)",
        """Prefetch managed memory to ``location`` (a ``CUmemLocation``: DEVICE with an ordinal, HOST, HOST_NUMA
node 0, HOST_NUMA_CURRENT) in stream order. Nothing moves (managed memory is one copy here); the prefetch is
recorded (``Driver.prefetches``). During capture it becomes an EMPTY node: CUDA 13.5's ``CUgraphNodeType`` has no
prefetch type (docs/spec-proposals.md P-50) [I].

Errors: the stream's (INVALID_HANDLE, INVALID_CONTEXT...); INVALID_VALUE ``flags`` not 0, a range not inside one
managed allocation, a bad location type; INVALID_DEVICE a device location that does not exist or has no
concurrent managed access; the capture rules of stream work (spec 3.8).""", decoder="mem_prefetch_async"),
    Api("cuMemAdvise", "mem_advise(...)",
        """Advise about a managed range (``CUmem_advise``; ``location`` a ``CUmemLocation``, read by the
PREFERRED_LOCATION and ACCESSED_BY advice). Checked and recorded (``Driver.advice``); nothing else changes.

Errors: INVALID_VALUE an unknown advice, a range not inside one managed allocation, a bad location type;
INVALID_DEVICE a device location that does not exist.""", decoder="mem_advise"),
    Api("cuPointerGetAttribute", "pointer_get_attribute(...)",
        """One ``CUpointer_attribute`` of an address: device, managed, stream-ordered (MEMPOOL_HANDLE its pool),
graph, VMM (RANGE_* the reservation, MAPPING_* the mapping) and pinned, mapped or registered host memory (type
HOST; DEVICE_POINTER the same address). CONTEXT, DEVICE_POINTER, RANGE_START_ADDR and MEMPOOL_HANDLE come back
as ``CUcontext``, ``CUdeviceptr`` and ``CUmemoryPool``; the boolean attributes as ``bool``; the rest as ``int``.

Errors: INVALID_VALUE an address CUDA does not know, HOST_POINTER of device memory; INVALID_CONTEXT
DEVICE_POINTER without a current context; NOT_SUPPORTED P2P_TOKENS (not simulated).""",
        decoder="pointer_get_attribute"),
    Api("cuPointerGetAttributes", "pointer_get_attributes(...)",
        """Several pointer attributes at once (``numAttributes`` of ``attributes``): as ``cuPointerGetAttribute``,
except that an address CUDA does not know gives the NULL defaults (``None``-like 0, ``False``; DEVICE_ORDINAL -2
[I]) with ``CUDA_SUCCESS``, and a value the single call refuses gives 0.

Errors: INVALID_VALUE a value outside ``CUpointer_attribute``, ``numAttributes`` larger than the list.""",
        decoder="pointer_get_attributes"),
    Api("cuMemAddressReserve", "mem_address_reserve(size, alignment, addr, flags) -> ptr",
        """Reserve ``size`` bytes of the simulated address space (aligned to ``alignment``, 0: the 2 MiB granularity;
``addr`` a hint that is not honoured [I]); returns its start. The range holds nothing until ``cuMemMap``.

Errors: INVALID_VALUE ``flags`` not 0, ``size`` 0 or not a multiple of the host page size, ``alignment`` not 0 or
a power of two, ``addr`` not page-aligned; NOT_SUPPORTED without virtual memory management
(``DeviceSpec.virtual_memory``) [I code]; OUT_OF_MEMORY when the host cannot reserve the addresses."""),
    Api("cuMemAddressFree", "mem_address_free(ptr, size)",
        """Free a whole reservation (``ptr`` and ``size`` as ``cuMemAddressReserve`` gave and took them).

Errors: INVALID_VALUE another start or size, a range still mapped [I]; 900 during a restricting capture (P-51)
[I]."""),
    Api("cuMemCreate", "mem_create(...)",
        """Create ``size`` bytes of physical memory described by a ``CUmemAllocationProp`` (type PINNED, location a
device); returns its ``CUmemGenericAllocationHandle``. Counted in ``cuMemGetInfo`` until freed.

Errors: INVALID_VALUE NULL or unsupported ``prop``, ``flags`` not 0, a size that is not a multiple of the
granularity (cuMemGetAllocationGranularity); INVALID_DEVICE a location that is no device; NOT_SUPPORTED
without virtual memory management [I code]; 900 during a restricting capture (P-51) [I]; OUT_OF_MEMORY.""",
        decoder="mem_create"),
    Api("cuMemRelease", "mem_release(handle)",
        """Release a handle from ``cuMemCreate`` (or a reference from ``cuMemRetainAllocationHandle``); the memory
goes once no reference and no mapping is left.

Errors: INVALID_VALUE not a live handle; 900 during a restricting capture (P-51) [I]."""),
    Api("cuMemMap", "mem_map(ptr, size, offset, handle, flags)",
        """Map ``size`` bytes of a handle's memory from ``offset`` at ``ptr`` inside a reservation. The mapping has
no access until ``cuMemSetAccess``.

Errors: INVALID_VALUE a bad handle, ``flags`` not 0, values that are not multiples of the granularity, a range
past the memory, outside one reservation or already mapped in part; 900 during a restricting capture (P-51)
[I]."""),
    Api("cuMemUnmap", "mem_unmap(ptr, size)",
        """Unmap the whole mappings that make up a range; it becomes a reservation again, with no access.

Errors: INVALID_VALUE a range that is not made of whole mappings; 900 during a restricting capture (P-51)
[I]."""),
    Api("cuMemSetAccess", "mem_set_access(...)",
        """Set each device's access (``CUmemAccessDesc``: a DEVICE ``location`` and ``CUmemAccess_flags``) to the
mappings of a range; copies and kernels reach a mapping while some device has READ or READWRITE.

Errors: INVALID_VALUE a range not made of whole mappings, a location type other than DEVICE [I], bad flags,
``count`` larger than the list; INVALID_DEVICE a device that does not exist.""", decoder="mem_set_access"),
    Api("cuMemGetAccess", "mem_get_access(...)",
        """The ``CUmemAccess_flags`` a location (a DEVICE ``CUmemLocation``) has on the mapping holding ``ptr``.

Errors: INVALID_VALUE ``ptr`` not mapped, a NULL location or one that is not a device; INVALID_DEVICE.""",
        decoder="mem_get_access"),
    Api("cuMemGetAllocationGranularity", "mem_get_allocation_granularity(...)",
        """The MINIMUM or RECOMMENDED granularity for a ``CUmemAllocationProp``: 2 MiB for both [I].

Errors: INVALID_VALUE a NULL or unsupported prop, an unknown option; INVALID_DEVICE; NOT_SUPPORTED without
virtual memory management [I code].""", decoder="mem_get_allocation_granularity"),
    Api("cuMemGetAllocationPropertiesFromHandle", "mem_get_allocation_properties_from_handle(...)",
        """The ``CUmemAllocationProp`` a handle's memory was created with. Errors: INVALID_VALUE not a live
handle.""", decoder="mem_get_allocation_properties_from_handle"),
    Api("cuMemRetainAllocationHandle", "mem_retain_allocation_handle(addr) -> handle",
        """The handle of the memory mapped at ``addr`` (any address of a mapping), the value ``cuMemMap`` was
given, with one more reference that ``cuMemRelease`` must drop. Errors: INVALID_VALUE ``addr`` not mapped."""),
    # -- several devices: peer access, peer copies, PCI identity (issue 10; simcuda/_core/entries/peer.py) --
    Api("cuDeviceCanAccessPeer", "device_can_access_peer(dev, peerDev) -> canAccessPeer",
        """1 when contexts on ``dev`` can reach memory of ``peerDev``: any two different simulated devices (one
NVLink island [I]); 0 for a device and itself. Errors: INVALID_DEVICE (101) for either device."""),
    Api("cuDeviceGetP2PAttribute", "device_get_p2p_attribute(attrib, srcDevice, dstDevice) -> value",
        """A ``CUdevice_P2PAttribute`` of the link ``srcDevice`` -> ``dstDevice`` (``int``): PERFORMANCE_RANK 0,
ACCESS_SUPPORTED 1, NATIVE_ATOMIC_SUPPORTED 1, CUDA array ACCESS_SUPPORTED 1, ONLY_PARTIAL_NATIVE_ATOMIC 0 [I:
an NVLink pair]. Errors: INVALID_DEVICE (101) a bad device or the same device twice; INVALID_VALUE an unknown
attribute."""),
    Api("cuCtxEnablePeerAccess", "ctx_enable_peer_access(peerContext, Flags)",
        """Let the current context reach the allocations of ``peerContext`` (one way; the reverse needs its own
call). Bookkeeping only: simulated device memory is one address space, so copies and Python kernels reach it
either way [I]. Errors, in order: INVALID_CONTEXT (201) no current context, a bad ``peerContext`` or the current
context itself; INVALID_VALUE ``Flags`` not 0; PEER_ACCESS_UNSUPPORTED (217) both contexts on one device;
PEER_ACCESS_ALREADY_ENABLED (704). Not a capture-restricted call [I]."""),
    Api("cuCtxDisablePeerAccess", "ctx_disable_peer_access(peerContext)",
        """Undo ``cuCtxEnablePeerAccess`` for ``peerContext``. Errors: INVALID_CONTEXT (201) no current context or a
bad ``peerContext``; PEER_ACCESS_NOT_ENABLED (705) no enabled access from the current context to it."""),
    Api("cuMemcpyPeer", "memcpy_peer(dstDevice, dstContext, srcDevice, srcContext, ByteCount)",
        """Synchronous copy of ``ByteCount`` bytes between device memory of two contexts (no enabled peer access
is needed, as on CUDA). Errors: INVALID_CONTEXT (201) a NULL or bad context (709 destroyed); then as
``cuMemcpyDtoD``: INVALID_VALUE bad ranges, the synchronous-copy capture rules (spec 6). Fidelity: the pointers
are not checked against their contexts [I]."""),
    Api("cuMemcpyPeerAsync",
        "memcpy_peer(dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream, call='cuMemcpyPeerAsync')",
        """Asynchronous copy between device memory of two contexts: stream work, a MEMCPY node (device to device)
during capture (spec 3.8: ``cuMemcpy*Async`` (1D/2D/3D/peer) add a node). Errors: INVALID_CONTEXT (201) a NULL
or bad context; then as ``cuMemcpyDtoDAsync`` (INVALID_VALUE bad ranges; the stream's capture rules)."""),
    Api("cuDeviceGetPCIBusId", "device_get_pci_bus_id(...)",
        """The device's PCI location ``b"dddd:bb:dd.0"`` (domain, bus, device in hex from the PCI_DOMAIN_ID,
PCI_BUS_ID and PCI_DEVICE_ID attributes; the bus is 1 + the ordinal unless ``DeviceSpec.attributes`` sets it
[I]), cut to ``length - 1`` characters and NUL-terminated: the tuple face returns the whole ``length``-byte
buffer as ``cuDeviceGetName`` does. Errors: INVALID_DEVICE (101); INVALID_VALUE ``length`` not positive [I].""",
        decoder="device_get_pci_bus_id"),
    # -- module and library variables, parameter info (issue 10; simcuda/_core/entries/symbols.py) --
    Api("cuModuleGetGlobal", "module_get_global(...)",
        """``(dptr, bytes)``: the device variable ``name`` (``bytes``) of a module (``__device__``/``__constant__``,
PTX ``.global``/``.const``, a CUBIN's global and constant objects), a device allocation of the module's context
made when it loaded, holding the image's initial value; copies and Python kernels reach it like any allocation.
Errors: INVALID_VALUE a NULL name; INVALID_HANDLE a bad module; NOT_FOUND (500) no such variable.""",
        decoder="module_get_global"),
    Api("cuLibraryGetGlobal", "library_get_global(...)",
        """``(dptr, bytes)``: the device variable ``name`` of a library in the current context (made there on first
use, with its initial value). Errors: INVALID_VALUE a NULL name; INVALID_HANDLE not a loaded library;
INVALID_CONTEXT (201) no current context; NOT_FOUND (500) no such variable.""",
        decoder="library_get_global"),
    Api("cuFuncGetParamInfo", "func_get_param_info(func, paramIndex) -> paramOffset, paramSize",
        """``(paramOffset, paramSize)`` in bytes of parameter ``paramIndex`` in the kernel's device-side parameter
buffer: a CUBIN's own offsets, PTX ``.param`` alignments, else the natural alignment of the parameter types [I].
Errors: INVALID_HANDLE a bad function [I]; INVALID_VALUE ``paramIndex`` past the last parameter (an image
whose parameters cannot be read has none)."""),
    Api("cuKernelGetParamInfo", "func_get_param_info(kernel, paramIndex, call='cuKernelGetParamInfo') -> "
        "paramOffset, paramSize",
        """As ``cuFuncGetParamInfo``, for a library kernel."""),
    # -- batched copies (issue 10; simcuda/_core/entries/batch.py) --
    Api("cuMemcpyBatchAsync", "memcpy_batch(...)",
        """A batch of ``count`` unified-address copies on ``hStream`` (CUDA 13 signature: no ``failIdx``), run in
stream order as one piece of work; ``attrs[k]`` (a ``CUmemcpyAttributes``) applies from copy ``attrsIdxs[k]`` on;
a DURING_API_CALL host source is read during the call. During a capture: STREAM_CAPTURE_UNSUPPORTED (900) and
the capture goes on (no graph-node form; P-41) [O: rapidsai/rmm issue 2518].
Errors: the stream's; INVALID_VALUE the legacy NULL stream, no copy, no or too many attributes, attrsIdxs not
starting at 0 / not increasing / past the last copy, an INVALID access order, bad ranges; 900 in a capture;
901 in an invalidated one. A rejected call copies nothing.""",
        decoder="memcpy_batch"),
    # -- 3D batched copies (issue 10; simcuda/_core/entries/batch.py) --
    Api("cuMemcpy3DBatchAsync", "memcpy3d_batch(...)",
        """A batch of ``numOps`` 3D copies (``CUDA_MEMCPY3D_BATCH_OP``: ``src``/``dst`` operands, ``extent`` in
elements, ``srcAccessOrder``, ``flags``) on ``hStream``, run in stream order as one piece of work; pointer operands
copy 1-byte elements with ``rowLength``/``layerHeight`` (0: packed); a DURING_API_CALL host source is read during
the call. During a capture: STREAM_CAPTURE_UNSUPPORTED (900) and the capture goes on (P-41).
Errors: the stream's; INVALID_VALUE the legacy NULL stream, no op, ``flags`` not 0, an INVALID access order, op
flags other than PREFER_OVERLAP_WITH_COMPUTE, an operand type other than POINTER/ARRAY, a zero extent, a rowLength
or layerHeight below the extent, bad ranges; NOT_SUPPORTED (801) a CUDA array operand (array contents are not
simulated); 900 in a capture; 901 in an invalidated one. A rejected call copies nothing.""",
        decoder="memcpy3d_batch"),
    Api("cuDeviceGetByPCIBusId", "device_get_by_pci_bus_id(...)",
        """The device at a PCI location (``bytes``: ``[domain]:[bus]:[device].[function]``, ``[domain]:[bus]:
[device]`` or ``[bus]:[device].[function]``, hexadecimal). Errors: INVALID_VALUE not such a string; INVALID_DEVICE
(101) no simulated device there.""",
        decoder="device_get_by_pci_bus_id"),
)

#: the rows by entry name
API: dict[str, Api] = {r.name: r for r in ROWS}


def _named(arg: Arg) -> list[str]:
    """The C parameter names an argument of a call reads, nested ones too."""
    own = [arg.name] if arg.kind in ("param", "array", "read", "field") and arg.name else []
    return own + [n for _kw, x in arg.items for n in _named(x)]


def check_row(row: Api, declared: tuple[tuple[str, str, str], ...]) -> None:
    """Check a row against the C declaration of its entry (``(C type, name, "in" | "out")`` per parameter, from
    :mod:`simcuda._generated.entry_table`): its shape parses; the arguments of its call name C parameters of the
    declaration; a complete row fills exactly the declared output parameters, in order (the wrapper's output
    slots); a struct-field output is a field of a declared parameter; the decoder kind parses. Raises
    ``ValueError`` naming the row, so that a wrong row fails when the table is imported, not in a user's call.
    """
    names = [n for _t, n, _d in declared]
    outs = [n for _t, n, d in declared if d == "out"]
    try:
        _ = row.decoder_kind, row.ops
        if not row.has_call:
            return
        call = row.call
    except (AssertionError, SyntaxError, ValueError) as e:
        raise ValueError(f"{row.name}: the shape {row.shape!r} does not parse ({e})") from None
    read = [n for _kw, a in call.tree for n in _named(a)]
    if not set(read) <= set(names):
        raise ValueError(f"{row.name}: the call reads {sorted(set(read) - set(names))}, not parameters of the "
                         f"C declaration ({', '.join(names)})")
    slots = [call.fields.get(o, (o,))[0] for o in call.outs]
    if not set(slots) <= set(names):
        raise ValueError(f"{row.name}: the outputs {sorted(set(slots) - set(names))} are not C parameters")
    if not row.particular and list(call.outs) != outs:
        raise ValueError(f"{row.name}: the call fills the outputs {list(call.outs)}, the declaration has {outs}")


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

#: rows of the older variants NVIDIA's binding still requests under a declared C name no Python wrapper has
#: (the native route serves them; the Python faces have only the newest). Keyed by the declared C name.
VARIANTS: dict[str, Api] = {r.name: r for r in (
    Api("cuCtxCreate_v2", "ctx_create(flags, dev) -> pctx",
        """cuCtxCreate as declared before 11040 (``(CUcontext *pctx, unsigned int flags, CUdevice dev)``): no
creation parameters. Errors: those of ``cuCtxCreate``."""),
    Api("cuCtxCreate_v3", "ctx_create(...)",
        """cuCtxCreate as declared from 11040 to 12050 (``(CUcontext *pctx, CUexecAffinityParam *paramsArray, int
numParams, unsigned int flags, CUdevice dev)``): execution-affinity parameters given when ``numParams`` > 0 (or
the array is set), as the 12050 form's ``numExecAffinityParams``. Errors: those of ``cuCtxCreate``.""",
        decoder="ctx_create"),
    Api("cuStreamGetCaptureInfo_v2", "stream_get_capture_info(...)",
        """cuStreamGetCaptureInfo as declared from 11030 to 12030 (no edge-data output). Errors: those of
``cuStreamGetCaptureInfo``.""", decoder="capture_info(False)"),
)}


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


#: the runtime entries that are a driver entry with the runtime's conventions, in the runtime face's order:
#: the runtime face builds each row that is not particular (:func:`simcuda.bindings.runtime`), and shows the
#: driver row's description, its codes translated to ``cudaError_t``
RUNTIME_ROWS: tuple[Runtime, ...] = (
    Runtime("cudaDriverGetVersion", "cuDriverGetVersion", "(...)"),
    Runtime("cudaGetDeviceCount", "cuDeviceGetCount", needs="init", doc="""
Number of simulated devices."""),
    Runtime("cudaDeviceGetAttribute", "cuDeviceGetAttribute", needs="init", doc="""
A ``cudaDeviceAttr`` value (``int``); the values equal the driver's ``CUdevice_attribute`` values."""),
    Runtime("cudaDeviceSynchronize", "cuCtxSynchronize", doc="""
Wait for all work of the current device (runs pending work in ``progression="manual"``)."""),
    Runtime("cudaMemGetInfo", "cuMemGetInfo", doc="""
``(cudaSuccess, free, total)`` bytes of the current device."""),
    Runtime("cudaMalloc", "cuMemAlloc", "mem_alloc(size, 'cudaMalloc', allow_zero=True) -> devPtr", doc="""
Allocate ``size`` bytes of simulated device memory; returns the address as an ``int``.

``size`` 0 succeeds with address 0, as the real runtime does."""),
    Runtime("cudaMallocManaged", "cuMemAllocManaged",
            "mem_alloc(size, 'cudaMallocManaged', managed=True, flags=flags, allow_zero=True) -> devPtr", doc="""
Allocate managed memory (simulated as device memory)."""),
    Runtime("cudaMallocPitch", "cuMemAllocPitch", "(...)"),
    Runtime("cudaFree", "cuMemFree", "mem_free(devPtr, 'cudaFree')", doc="""
Free device memory. ``cudaFree(0)`` does nothing and succeeds (programs call it to initialise the runtime)."""),
    Runtime("cudaMallocHost", "cuMemAllocHost",
            "mem_alloc_host(size, 'cudaMallocHost', allow_zero=True) -> ptr", doc="""
Allocate real, page-locked-in-name host memory; returns its address as an ``int`` (valid for ctypes).

``size`` 0 gives address 0."""),
    Runtime("cudaHostAlloc", "cuMemHostAlloc",
            "mem_alloc_host(size, 'cudaHostAlloc', flags, allow_zero=True) -> pHost", doc="""
As :func:`cudaMallocHost`, with ``cudaHostAlloc*`` flags (accepted; portable/mapped/write-combined make no
difference here)."""),
    Runtime("cudaFreeHost", "cuMemFreeHost", "(...)"),
    Runtime("cudaHostRegister", "cuMemHostRegister", doc="""
Page-lock existing host memory (bookkeeping only)."""),
    Runtime("cudaHostUnregister", "cuMemHostUnregister", doc="""
Undo :func:`cudaHostRegister`."""),
    Runtime("cudaMemcpy", "cuMemcpy", "(...)"),
    Runtime("cudaMemcpyAsync", "cuMemcpyAsync", "(...)"),
    Runtime("cudaMemcpy2D", "cuMemcpy2D", "(...)"),
    Runtime("cudaMemcpy2DAsync", "cuMemcpy2DAsync", "(...)"),
    Runtime("cudaMemcpy3D", "cuMemcpy3D", "(...)"),
    Runtime("cudaMemcpy3DAsync", "cuMemcpy3DAsync", "(...)"),
    Runtime("cudaMemset", "cuMemsetD8", "(...)"),
    Runtime("cudaMemsetAsync", "cuMemsetD8Async", "(...)"),
    Runtime("cudaMemset2D", "cuMemsetD2D8", "(...)"),
    Runtime("cudaMemset2DAsync", "cuMemsetD2D8Async", "(...)"),
    Runtime("cudaMallocAsync", "cuMemAllocAsync", doc="""
Stream-ordered allocation: a MEM_ALLOC node with a graph-owned address during capture (spec 3.8)."""),
    Runtime("cudaMallocFromPoolAsync", "cuMemAllocFromPoolAsync", doc="""
Stream-ordered allocation from ``memPool``; a MEM_ALLOC node during capture (spec 3.8)."""),
    Runtime("cudaDeviceGetDefaultMemPool", "cuDeviceGetDefaultMemPool", needs="init", doc="""
The device's default memory pool (a ``cudaMemPool_t``)."""),
    Runtime("cudaDeviceGetMemPool", "cuDeviceGetMemPool", needs="init", doc="""
The device's current memory pool (a ``cudaMemPool_t``)."""),
    Runtime("cudaDeviceSetMemPool", "cuDeviceSetMemPool", needs="init", doc="""
Make ``memPool`` the device's current pool."""),
    Runtime("cudaMemPoolGetAttribute", "cuMemPoolGetAttribute", "(...)"),
    Runtime("cudaMemPoolSetAttribute", "cuMemPoolSetAttribute", "(...)"),
    # memory pools and graph memory (entries/pools.py; issue 10)
    Runtime("cudaMemPoolCreate", "cuMemPoolCreate", "(...)"),
    Runtime("cudaMemPoolDestroy", "cuMemPoolDestroy", needs="init", doc="""
Destroy a pool made by :func:`cudaMemPoolCreate` (a default pool cannot be destroyed)."""),
    Runtime("cudaMemPoolTrimTo", "cuMemPoolTrimTo", needs="init", doc="""
Release the pool's kept memory down to ``minBytesToKeep`` reserved bytes."""),
    Runtime("cudaMemPoolSetAccess", "cuMemPoolSetAccess", "(...)"),
    Runtime("cudaMemPoolGetAccess", "cuMemPoolGetAccess", "(...)"),
    Runtime("cudaDeviceGraphMemTrim", "cuDeviceGraphMemTrim", needs="init", doc="""
Give back the device's graph memory that no graph uses now."""),
    Runtime("cudaDeviceGetGraphMemAttribute", "cuDeviceGetGraphMemAttribute", "(...)"),
    Runtime("cudaDeviceSetGraphMemAttribute", "cuDeviceSetGraphMemAttribute", "(...)"),
    Runtime("cudaDeviceGetStreamPriorityRange", "cuCtxGetStreamPriorityRange", doc="""
``(least, greatest)`` stream priority of the current device."""),
    Runtime("cudaUserObjectCreate", "cuUserObjectCreate", needs="init", doc="""
``destroy``: a ``cudaHostFn_t`` or an ``int`` address (a Python callable raises ``TypeError``)."""),
    Runtime("cudaUserObjectRetain", "cuUserObjectRetain", needs="init", doc="""
Add references owned by the caller."""),
    Runtime("cudaUserObjectRelease", "cuUserObjectRelease", needs="init", doc="""
Release references owned by the caller."""),
    Runtime("cudaGraphRetainUserObject", "cuGraphRetainUserObject", needs="init", doc="""
The graph takes references (``cudaGraphUserObjectMove`` = 1: the caller's)."""),
    Runtime("cudaGraphReleaseUserObject", "cuGraphReleaseUserObject", needs="init", doc="""
The graph releases references."""),
    Runtime("cudaFreeAsync", "cuMemFreeAsync", doc="""
Stream-ordered free: a MEM_FREE node during capture (the address must be a graph allocation)."""),
    Runtime("cudaStreamCreate", "cuStreamCreate", "stream_create(0) -> pStream", doc="""
Create a blocking stream (``cudaStreamDefault``) on the current device."""),
    Runtime("cudaStreamCreateWithFlags", "cuStreamCreate", doc="""
Create a stream: ``cudaStreamDefault`` (0) or ``cudaStreamNonBlocking`` (1)."""),
    Runtime("cudaStreamCreateWithPriority", "cuStreamCreateWithPriority", doc="""
Create a stream with a priority (clamped to the range cudaDeviceGetStreamPriorityRange gives)."""),
    Runtime("cudaStreamDestroy", "cuStreamDestroy", doc="""
Destroy a stream (pending work still runs). During a capture: destroying the origin ends the capture without a graph
[I]; destroying a member that is not the origin leaves the capture as it was, the stream leaves it and its nodes
stay (spec 2.2, C-153b); unjoined work of it still makes the end unjoined [I]."""),
    Runtime("cudaStreamSynchronize", "cuStreamSynchronize", doc="""
Wait for the stream's work. Capture rules (spec 6, 5.3, 5.2): 906 on the legacy stream under a blocking capture; 900
on a capturing stream (invalidating it) or as a potentially unsafe call."""),
    Runtime("cudaStreamQuery", "cuStreamQuery", doc="""
``(cudaSuccess,)`` when done, ``(cudaErrorNotReady,)`` while work is pending (``progression="manual"``).

``cudaErrorNotReady`` is not recorded as the last error. Capture rules as :func:`cudaStreamSynchronize`."""),
    Runtime("cudaStreamWaitEvent", "cuStreamWaitEvent", doc="""
Make ``stream`` wait for ``event``: joins captures (fork/join), merges or isolates them (spec 4.1).

Args: ``flags``: ``cudaEventWaitDefault`` (0) or ``cudaEventWaitExternal`` (1)."""),
    Runtime("cudaStreamGetFlags", "cuStreamGetFlags", doc="""
The stream's flags (``int``)."""),
    Runtime("cudaStreamGetPriority", "cuStreamGetPriority", doc="""
The stream's priority (``int``)."""),
    Runtime("cudaStreamGetId", "cuStreamGetId", doc="""
The stream's unique id (``int``; the legacy stream's is 0)."""),
    Runtime("cudaStreamAddCallback", "cuStreamAddCallback", doc="""
Enqueue a ``cudaStreamCallback_t`` (or ``int`` address of ``void (*)(cudaStream_t, cudaError_t, void*)``)."""),
    Runtime("cudaStreamAttachMemAsync", "cuStreamAttachMemAsync", doc="""
Attach managed memory to a stream (bookkeeping only)."""),
    Runtime("cudaEventCreate", "cuEventCreate", "event_create(0) -> event", doc="""
Create an event with default flags (timing enabled)."""),
    Runtime("cudaEventCreateWithFlags", "cuEventCreate", doc="""
Create an event: ``cudaEventDefault``, ``cudaEventBlockingSync``, ``cudaEventDisableTiming``,
``cudaEventInterprocess`` bits."""),
    Runtime("cudaEventRecord", "cuEventRecord", "event_record(event, stream, 0, 'cudaEventRecord')", doc="""
Record ``event`` on ``stream`` (spec 4.2): on a capturing stream it captures the stream's current dependencies (no
node)."""),
    Runtime("cudaEventRecordWithFlags", "cuEventRecordWithFlags",
            "event_record(event, stream, flags, 'cudaEventRecordWithFlags')", doc="""
:func:`cudaEventRecord` with ``cudaEventRecordExternal`` (1): an EVENT_RECORD node during capture."""),
    Runtime("cudaEventQuery", "cuEventQuery", doc="""
``(cudaSuccess,)`` when complete, ``(cudaErrorNotReady,)`` while pending."""),
    Runtime("cudaEventSynchronize", "cuEventSynchronize", doc="""
Wait for the event (runs the work before it)."""),
    Runtime("cudaEventElapsedTime", "cuEventElapsedTime", doc="""
Milliseconds (``float``) of simulated time between two completed events: 0.001 ms per operation run between the two
records (eager operations and replayed graph nodes, spec 16) [I]."""),
    Runtime("cudaEventDestroy", "cuEventDestroy", doc="""
Destroy an event (nodes it helped capture stay)."""),
    Runtime("cudaStreamBeginCapture", "cuStreamBeginCapture", doc="""
Begin capturing ``stream`` into a new graph (spec 3.1). ``mode``: ``cudaStreamCaptureMode``."""),
    Runtime("cudaStreamBeginCaptureToGraph", "cuStreamBeginCaptureToGraph", "(...)"),
    Runtime("cudaStreamEndCapture", "cuStreamEndCapture", doc="""
End the capture begun on ``stream``; returns its ``cudaGraph_t`` (spec 3.3)."""),
    Runtime("cudaStreamIsCapturing", "cuStreamIsCapturing", doc="""
The stream's ``cudaStreamCaptureStatus``."""),
    Runtime("cudaStreamGetCaptureInfo", "cuStreamGetCaptureInfo", "(...)"),
    Runtime("cudaStreamUpdateCaptureDependencies", "cuStreamUpdateCaptureDependencies", "(...)"),
    Runtime("cudaThreadExchangeStreamCaptureMode", "cuThreadExchangeStreamCaptureMode",
            "thread_exchange_stream_capture_mode(mode) -> mode", needs="init", doc="""
Set this thread's capture interaction mode; returns the previous ``cudaStreamCaptureMode`` (spec 3.7)."""),
    Runtime("cudaLaunchHostFunc", "cuLaunchHostFunc", doc="""
Enqueue a host function: a HOST node during capture, called at each replay (spec 3.9).

Args: ``fn``: ``cudaHostFn_t`` or the ``int`` address of a ``void (*)(void*)`` (for example
``ctypes.cast(CFUNCTYPE(None, c_void_p)(f), c_void_p).value``; keep the thunk alive); a Python callable raises
``TypeError: an integer is required``. ``userData``: None, int or buffer (its address)."""),
    Runtime("cudaLaunchHostFunc_v2", "cuLaunchHostFunc_v2", doc="""
:func:`cudaLaunchHostFunc` with a sync mode (0 blocking, 1 spin-wait; no visible effect here)."""),
    Runtime("cudaGraphCreate", "cuGraphCreate", doc="""
Create an empty graph."""),
    Runtime("cudaGraphDestroy", "cuGraphDestroy", doc="""
Destroy a graph and its nodes."""),
    Runtime("cudaGraphAddKernelNode", "cuGraphAddKernelNode", "(...)"),
    Runtime("cudaGraphAddMemcpyNode", "cuGraphAddMemcpyNode", "(...)"),
    Runtime("cudaGraphAddMemcpyNode1D", "cuGraphAddMemcpyNode", "(...)"),
    Runtime("cudaGraphAddMemsetNode", "cuGraphAddMemsetNode", "(...)"),
    Runtime("cudaGraphAddHostNode", "cuGraphAddHostNode", "(...)"),
    Runtime("cudaGraphAddEmptyNode", "cuGraphAddEmptyNode", doc="""
Add an EMPTY node (a join point)."""),
    Runtime("cudaGraphAddChildGraphNode", "cuGraphAddChildGraphNode", doc="""
Add a GRAPH node holding a clone of ``childGraph`` (spec 4.6, 9)."""),
    Runtime("cudaGraphChildGraphNodeGetGraph", "cuGraphChildGraphNodeGetGraph", doc="""
The graph embedded in a GRAPH node."""),
    Runtime("cudaGraphAddEventRecordNode", "cuGraphAddEventRecordNode", doc="""
Add an EVENT_RECORD node."""),
    Runtime("cudaGraphAddEventWaitNode", "cuGraphAddEventWaitNode", doc="""
Add a WAIT_EVENT node."""),
    Runtime("cudaGraphAddDependencies", "cuGraphAddDependencies", "(...)"),
    Runtime("cudaGraphRemoveDependencies", "cuGraphRemoveDependencies", "(...)"),
    Runtime("cudaGraphGetNodes", "cuGraphGetNodes", "(...)"),
    Runtime("cudaGraphGetRootNodes", "cuGraphGetRootNodes", "(...)"),
    Runtime("cudaGraphGetEdges", "cuGraphGetEdges", "(...)"),
    Runtime("cudaGraphNodeGetDependencies", "cuGraphNodeGetDependencies", "(...)"),
    Runtime("cudaGraphNodeGetDependentNodes", "cuGraphNodeGetDependentNodes", "(...)"),
    Runtime("cudaGraphNodeGetType", "cuGraphNodeGetType", doc="""
The node's ``cudaGraphNodeType`` (the same values as ``CUgraphNodeType``)."""),
    Runtime("cudaGraphNodeGetContainingGraph", "cuGraphNodeGetContainingGraph", doc="""
The graph that holds the node."""),
    Runtime("cudaGraphNodeGetLocalId", "cuGraphNodeGetLocalId", doc="""
The node's 0-based creation index (matches ``node_<id>`` in DOT output)."""),
    Runtime("cudaGraphGetId", "cuGraphGetId", doc="""
The graph's id (matches ``graph_<id>`` in DOT output)."""),
    Runtime("cudaGraphDestroyNode", "cuGraphDestroyNode", doc="""
Remove a node and its edges."""),
    Runtime("cudaGraphClone", "cuGraphClone", doc="""
Deep copy of a graph."""),
    Runtime("cudaGraphInstantiate", "cuGraphInstantiate", doc="""
Freeze a graph into a ``cudaGraphExec_t``. ``flags``: ``cudaGraphInstantiateFlags`` bits.

Mirrors ``cuda.bindings.runtime.cudaGraphInstantiate(graph, flags)``; returns ``(cudaError_t, cudaGraphExec_t)``."""),
    Runtime("cudaGraphInstantiateWithFlags", "cuGraphInstantiate", doc="""
As :func:`cudaGraphInstantiate` (``cudaGraphInstantiateFlagUpload`` is cudaErrorInvalidValue here too, spec 16, 9)."""),
    Runtime("cudaGraphInstantiateWithParams", "cuGraphInstantiateWithParams", "(...)"),
    Runtime("cudaGraphLaunch", "cuGraphLaunch", doc="""
Run an executable graph on ``stream`` (nodes replay in topological order against simulated memory)."""),
    Runtime("cudaGraphUpload", "cuGraphUpload", doc="""
Nothing to upload in a simulator: checks the handles and the stream rules."""),
    Runtime("cudaGraphExecDestroy", "cuGraphExecDestroy", doc="""
Destroy an executable graph."""),
    Runtime("cudaGraphExecUpdate", "cuGraphExecUpdate", "(...)"),
    Runtime("cudaGraphDebugDotPrint", "cuGraphDebugDotPrint", "(...)"),
    # conditional nodes (topic: conditional)
    Runtime("cudaGraphConditionalHandleCreate", "cuGraphConditionalHandleCreate",
            "graph_conditional_handle_create(graph, 0, defaultLaunchValue, flags) -> pHandle_out", doc="""
A conditional handle for ``graph`` in the current context (``cudaGraphCondAssignDefault`` = 1: the default is
assigned at the start of every launch)."""),
    Runtime("cudaGraphConditionalHandleCreate_v2", "cuGraphConditionalHandleCreate", doc="""
As :func:`cudaGraphConditionalHandleCreate`, for execution context ``ctx`` (NULL: the current context; the
simulator's execution contexts are its contexts)."""),
    Runtime("cudaGraphAddNode", "cuGraphAddNode", "(...)"),
    # host-mapped and managed memory, pointer attributes (topic: vmm)
    Runtime("cudaHostGetDevicePointer", "cuMemHostGetDevicePointer",
            "mem_host_get_device_pointer(pHost, flags, 'cudaHostGetDevicePointer') -> pDevice", doc="""
The device pointer of pinned, mapped or registered host memory: its host address (unified addressing)."""),
    Runtime("cudaMemPrefetchAsync", "cuMemPrefetchAsync", "(...)"),
    Runtime("cudaMemAdvise", "cuMemAdvise", "(...)"),
    Runtime("cudaPointerGetAttributes", "cuPointerGetAttributes", "(...)"),
    # -- several devices (issue 10) --
    Runtime("cudaDeviceCanAccessPeer", "cuDeviceCanAccessPeer", needs="init", doc="""
1 when ``device`` can reach memory of ``peerDevice`` (two different simulated devices), else 0."""),
    Runtime("cudaDeviceGetP2PAttribute", "cuDeviceGetP2PAttribute", needs="init", doc="""
A ``cudaDeviceP2PAttr`` of the link ``srcDevice`` -> ``dstDevice`` (the values equal the driver's
``CUdevice_P2PAttribute``)."""),
    Runtime("cudaDeviceEnablePeerAccess", "cuCtxEnablePeerAccess", "(...)"),
    Runtime("cudaDeviceDisablePeerAccess", "cuCtxDisablePeerAccess", "(...)"),
    Runtime("cudaMemcpyPeer", "cuMemcpyPeer", "(...)"),
    Runtime("cudaMemcpyPeerAsync", "cuMemcpyPeerAsync", "(...)"),
    Runtime("cudaDeviceGetPCIBusId", "cuDeviceGetPCIBusId", "(...)"),
    Runtime("cudaDeviceGetByPCIBusId", "cuDeviceGetByPCIBusId", "(...)"),
    Runtime("cudaMemcpyBatchAsync", "cuMemcpyBatchAsync", "(...)"),
    Runtime("cudaMemcpy3DBatchAsync", "cuMemcpy3DBatchAsync", "(...)"),  # 3D batched copies
)

#: runtime name -> the driver entry it shares its rules with
RUNTIME: dict[str, str] = {r.name: r.driver for r in RUNTIME_ROWS}

_check_table()

