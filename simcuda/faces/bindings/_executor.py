"""The one executor of the Python faces: a face's function built from a table row, and the argument conversions
the tuple face and the runtime face share.

Mirrors: how ``cuda.bindings``' Cython wrappers (the driver module and the runtime module of cuda-bindings 13.5.0)
check and convert their arguments before the library call: the order of the checks
(:func:`conversion_plan`), the C integer, ``char*``, struct, list and handle kinds, the padding of list
arguments a count runs past, and the outputs returned in the real slots.

:func:`build` makes the body of a face function from a row of :mod:`simcuda._core.api` (``ROWS``, or a
``RUNTIME_ROWS`` row for the runtime face: a driver entry with the runtime's conventions); each face wraps it
with its own arity check, error translation (``CUresult`` or ``cudaError_t``) and set-up (the runtime's
implicit primary context). Nothing here decides a code: every rule is the core's. The faces import these
names rather than each other's privates (issue 18, item 2).

Why this file is long (over ~700 lines): it is the one executor of every argument and output form the rows
have (handles, arrays with counts, struct readers, records, nested operations, text buffers, struct fields), kept
together so that a form is converted in one place for all three Python faces.
"""
from __future__ import annotations

import ast
import enum as _enum
import functools
import inspect
from collections.abc import Callable as _Callable
from collections.abc import Mapping
from typing import Any
from typing import cast as _cast

import attrs

from ..._core.modules.param_types import split_params as _split
from ..._core.objects import EdgeDataArg as _EdgeDataArg
from ..._core.rows import Arg, Call
from . import _args as _A
from . import _driver_types as _T

#: a conversion the real wrapper applies to one argument (the value, converted, or the same object)
_Conv = _Callable[[Any], Any]
#: the conversions of one function, in the real wrapper's order: (argument index, name, conversion)
Plan = tuple[tuple[int, str, _Conv], ...]
#: a face's generated signature table: name -> (signature line, ((output name, type text), ...))
Outputs = Mapping[str, tuple[str, tuple[tuple[str, str], ...]]]
#: a face's generated docstring parameter table: name -> ((parameter, type text), ...)
Params = Mapping[str, tuple[tuple[str, str], ...]]
#: a face's struct reader: (driver, the face's struct object, API name) -> what the core takes
Reader = _Callable[[Any, Any, str], Any]


def signature_params(sig: str) -> list[tuple[str, str, str]]:
    """``[(name, C type, annotation)]`` of a signature line such as ``f(hStream, size_t n, x: Optional[X])``."""
    parts = _split(sig[sig.find("(") + 1:sig.rfind(")")])
    out = []
    for p in filter(str.strip, parts):
        head, _, ann = p.partition(":")
        words = head.replace("*", " * ").split()
        out.append((words[-1], " ".join(words[:-1]), ann.strip()))
    return out


C_INT = {"size_t": (64, "size_t"), "unsigned int": (32, "unsigned int"), "unsigned char": (8, "unsigned char"),
          "unsigned short": (16, "unsigned short"), "unsigned long long": (64, "unsigned PY_LONG_LONG"),
          "void_ptr": (64, "unsigned PY_LONG_LONG")}


def entry_conv(ctype: str, ann: str, name: str, ns: dict[str, Any],
                struct_arg: _Callable[[Any, str, str], Any]) -> _Conv | None:
    """The conversion Cython applies to a typed parameter at function entry, or None for untyped ones."""
    if ctype in C_INT:
        bits, cname = C_INT[ctype]
        return lambda x: x if type(x) is int and x >= 0 and not x >> bits else _T.c_uint(x, bits, cname)
    if ctype == "int":
        return lambda x: x if type(x) is int and -0x80000000 <= x <= 0x7FFFFFFF else _T.c_int(x)
    if ctype == "char *":
        return _A.bytes_arg
    cls = ns.get(ctype) if ctype else None
    if isinstance(cls, type) and not issubclass(cls, (_T.Wrapper, _enum.Enum)) and hasattr(cls, "_fields"):
        return lambda x: struct_arg(x, ctype, name)
    if not ctype and ann and not ann.startswith("Optional") and isinstance(ns.get(ann), type) \
            and issubclass(ns[ann], _enum.Enum):
        def not_none(x: Any) -> Any:
            if x is None:
                raise TypeError(f"Argument '{name}' must not be None")
            return x
        return not_none
    return None


def _list_message(name: str, cls: type, runtime: bool) -> str:
    if runtime:
        if cls.__name__ == "cudaGraphNode_t":
            return (f"Argument '{name}' is not instance of type (expected "
                    "tuple[cyruntime.cudaGraphNode_t,driver.CUgraphNode] or "
                    "list[cyruntime.cudaGraphNode_t,driver.CUgraphNode]")
        return (f"Argument '{name}' is not instance of type (expected tuple[cyruntime.{cls.__name__},] or "
                f"list[cyruntime.{cls.__name__},]")
    comma = "" if issubclass(cls, _enum.Enum) else ","
    return (f"Argument '{name}' is not instance of type (expected tuple[cydriver.{cls.__name__}{comma}] or "
            f"list[cydriver.{cls.__name__}{comma}]")


def list_check(cls: type, name: str, runtime: bool = False) -> _Conv:
    """The real wrapper's first step for a ``list[X]`` parameter: every item an ``X`` (any iterable; a
    non-iterable raises ``TypeError: 'int' object is not iterable``), then its ``len()`` (a generator
    raises ``TypeError: object of type 'generator' has no len()``); lists of enums check their items too
    (the real message has no trailing comma there). The runtime's node lists take driver nodes too."""
    ok: Any = cls
    if runtime and cls.__name__ == "cudaGraphNode_t":  # with its driver base: NVIDIA's on the native route
        ok = (cls, _T.build_classes()["CUgraphNode"], *[b for b in cls.__mro__ if b.__name__ == "CUgraphNode"])
    msg = _list_message(name, cls, runtime)

    def check(x: Any) -> Any:
        if x is not None:
            if not all(isinstance(i, ok) for i in x):
                raise TypeError(msg)
            len(x)
        return x
    return check


#: entries whose ``list[int]`` parameters the plan checks as the real wrapper does (batched copies, issue 10)
INT_LISTS_CHECKED = frozenset({"cuMemcpyBatchAsync", "cudaMemcpyBatchAsync"})


def int_list_check(name: str) -> _Conv:
    """A ``list[int]`` parameter as the real wrapper checks it among the typed lists: iterated (None and a
    non-iterable raise ``TypeError: '...' object is not iterable``), every item an ``int``."""
    msg = f"Argument '{name}' is not instance of type (expected tuple[int] or list[int]"

    def check(x: Any) -> Any:
        if not all(isinstance(i, int) for i in x):
            raise TypeError(msg)
        return x
    return check


def sized(x: Any) -> Any:
    """A ``list[Any]`` parameter (option values): the wrapper takes its ``len()`` (TypeError: object of type
    'int' has no len())."""
    if x is not None:
        len(x)
    return x


def handle_check(cls: type[_T.Wrapper]) -> _Conv:
    """The real wrapper's check of a handle parameter: ``None``, an ``int`` in the class's range or an instance
    pass unchanged; anything else goes through ``cls`` (its ``TypeError`` / ``OverflowError``)."""
    lo, hi = cls._lo, cls._hi

    def check(x: Any) -> Any:
        if not (type(x) is int and lo <= x <= hi) and x is not None and not isinstance(x, cls):
            cls(x)  # TypeError / OverflowError / ValueError exactly as the wrapper's constructor
        return x
    return check


def conversion_plan(name: str, outputs: Outputs, params: Params, ns: dict[str, Any],
                    struct_arg: _Callable[[Any, str, str], Any], runtime: bool = False) -> Plan:
    """The order in which the real wrapper converts ``name``'s arguments (read from its signature and its
    docstring's Parameters): typed parameters at entry (C integers, ``char*``, struct types, enums that
    must not be None), in order; then, in the body, ``list[X]`` parameters and handles together, in
    reverse order (the generated wrappers emit those blocks last parameter first); then option-value lists.
    Buffers, enums' values and ``kernelParams`` are left to the function body, which converts them
    afterwards. Returns ``(index, name, check)`` triples. The runtime face passes its own tables."""
    sig = signature_params(outputs[name][0])
    doc_list = params.get(name, ())
    docs = dict(doc_list)
    entry: list[tuple[int, str, _Conv]] = []
    tests: list[tuple[int, str, _Conv]] = []  # struct types passed by value: Cython tests them after the C conversions
    body: list[tuple[int, str, _Conv]] = []
    later: list[tuple[int, str, _Conv]] = []
    for i, (pname, ctype, ann) in enumerate(sig):
        conv = entry_conv(ctype, ann, pname, ns, struct_arg)
        if conv is not None and ann == ctype and hasattr(ns.get(ctype), "_fields"):  # ``CUmemLocation location``
            tests.append((i, pname, by_value_struct(conv, ctype, pname, runtime)))
            continue
        if conv is not None and not ctype:  # an enum annotation (not None): Cython's type test, after the C ones
            tests.append((i, pname, conv))
            continue
        if conv is not None:
            entry.append((i, pname, conv))
            continue
        dtype = docs.get(pname, docs.get(pname.rstrip("_"), ""))
        if not dtype and len(doc_list) == len(sig):  # the docstring names it differently (graph / hGraph)
            dtype = doc_list[i][1]
        if dtype.startswith("list["):
            cls = ns.get(dtype[5:-1])
            if isinstance(cls, type) and (issubclass(cls, (_T.Wrapper, _enum.Enum)) or hasattr(cls, "_fields")):
                body.append((i, pname, list_check(cls, pname, runtime)))
            elif dtype == "list[Any]":  # option values: sized after the typed lists, in order
                later.append((i, pname, sized))
            elif dtype == "list[int]" and name in INT_LISTS_CHECKED:  # with the typed lists (issue 10)
                body.append((i, pname, int_list_check(pname)))
            continue
        for cand in dtype.split(" or "):
            cls = ns.get(cand)
            if isinstance(cls, type) and issubclass(cls, _T.Wrapper):
                body.append((i, pname, handle_check(cls)))
                break
    return tuple(entry + tests + body[::-1] + later)


def by_value_struct(conv: _Conv, ctype: str, name: str, runtime: bool) -> _Conv:
    """A struct parameter passed by value (not ``Optional``): Cython's type test, which refuses None too."""
    mod = "cuda.bindings.runtime" if runtime else "cuda.bindings.driver"

    def check(x: Any) -> Any:
        if x is None:
            raise TypeError(f"Argument '{name}' has incorrect type (expected {mod}.{ctype}, got NoneType)")
        return conv(x)
    return check


def convert_args(plan: Plan, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """Apply a :func:`conversion_plan`; the arguments come back converted where a conversion changed them."""
    n = len(args)
    out = None
    for i, pname, conv in plan:
        if i < n:
            v = args[i]
            w = conv(v)
            if w is not v:
                if out is None:
                    out = list(args)
                out[i] = w
        elif pname in kwargs:
            kwargs[pname] = conv(kwargs[pname])
    return args if out is None else tuple(out)


def eds_for(eds: _EdgeDataArg, n: int, deps: int | None = None) -> _EdgeDataArg:
    """Edge data for ``n`` dependencies: none/empty means all zero; a short list is padded with a
    missing-entry marker that the core rejects as INVALID_VALUE in its own order (spec 3.6) [I].

    ``deps`` (the number of dependency entries that exist) bounds the padding: the core refuses the
    first missing dependency, so entries past it are never read and a huge count costs nothing."""
    if deps is not None:
        n = min(n, deps + 1)
    if not eds:
        return [(0, 0, 0)] * n
    if len(eds) < n:
        return eds + [None] * min(n - len(eds), 1)
    return eds[:n]


def pad_nodes(handles: list[int], n: int, mk: Any) -> list[Any]:
    """``n`` node wrappers: the handles, then ``CUgraphNode(0)`` (one shared object) up to ``n``; MemoryError
    at once where the real wrapper's ``calloc`` of the output array fails (:func:`_T.check_calloc`)."""
    return _T.padded([mk(x) for x in handles[:n]], n, mk(0))


def pad_edges(edata: list[Any], n: int, mk_edge: Any, cls: type) -> list[Any]:
    """``n`` edge-data structs: the given ones, then zeroed ones (distinct objects for a small padding,
    one shared zero struct beyond 4096 entries, so that a huge count costs one list)."""
    out = [mk_edge(ed) for ed in edata[:n]]
    pad = n - len(out)
    if 0 < pad <= 4096:
        return out + [cls() for _ in range(pad)]
    return _T.padded(out, n, cls())


def dep_pairs(from_: Any, to: Any, edgeData: Any, n: Any, remove: bool,
               node_list: Any, edge_list: Any) -> tuple[list[int], list[int], _EdgeDataArg]:
    """The ``from_`` / ``to`` / ``edgeData`` lists of ``cuGraphAddDependencies`` / ``cuGraphRemoveDependencies``
    (and their runtime twins) for count ``n``, read by the face's ``node_list`` / ``edge_list``; missing entries
    are NULL (removal: an edge data that matches none) so that the core refuses the first one (spec 3.6)."""
    froms, tos = node_list(from_, "from_"), node_list(to, "to")
    eds = edge_list(edgeData, "edgeData")
    n = _A.size_t(n)
    # the wrapper passes the count through unchecked: entries past a list's end reach the driver as NULL
    # (INVALID_VALUE at the first one), so one padding entry per list is enough, whatever the count
    n = min(n, max(len(froms), len(tos), len(eds)) + 1)
    froms = froms[:n] + [0] * max(0, n - len(froms))
    tos = tos[:n] + [0] * max(0, n - len(tos))
    if eds and len(eds) < n:
        eds = eds + [(255, 255, 255) if remove else None] * (n - len(eds))
    return froms, tos, eds[:n]


def capture_deps(deps: list[int], eds: _EdgeDataArg, n: int) -> tuple[list[int], _EdgeDataArg]:
    """Dependencies and edge data of ``cuStreamUpdateCaptureDependencies`` for count ``n``: the wrapper does
    not check the count, and entries past the list reach the driver as garbage handles, the first of which
    is refused (spec 3.6 row 5); one NULL entry stands for all of them, whatever the count."""
    eds = eds_for(eds, n, len(deps))
    return ([*deps[:n], 0] if n > len(deps) else deps[:n]), eds


# =========================================================================== the executor: a face's function from a row
@attrs.frozen
class FaceSpec:
    """What the executor needs to know of one Python face to build its functions from table rows.

    ``module``: the face's module name (the built functions' ``__module__``); ``ns``: the face's classes and enums
    by name (the declared types of the real wrapper's parameters and outputs are looked up there); ``outputs`` /
    ``params``: the face's generated signature and docstring tables; ``enum_cname``: the C enum name the real
    wrapper's ``OverflowError`` names for an enum type; ``success``: the face's success code; ``driver``: the
    current driver (:func:`simcuda._state.face_driver`); ``handle_types``, ``node_array``, ``docs_by_position``: see
    the attributes.
    """

    module: str
    ns: Mapping[str, Any]
    outputs: Outputs
    params: Params
    enum_cname: _Callable[[str], str]
    success: Any
    driver: _Callable[[], Any]
    #: the face's handle classes' bases (the native route's runtime classes derive from NVIDIA's driver classes)
    handle_types: tuple[type, ...] = (_T.Wrapper,)
    #: the face's conversion of a handle array and its count (``dependencies[numDependencies]``): the value, the
    #: count and the parameter's name -> a list of ``int`` handles (the real wrapper's list checks and its
    #: ``List is too small``); None: the face builds no entry with an array argument
    node_array: _Callable[[Any, Any, str], list[int]] | None = None
    #: the docstring's Parameters name a parameter differently from the signature (the runtime's ``pool`` for
    #: ``memPool``): take its type by position when both list as many parameters
    docs_by_position: bool = False
    #: the face's struct readers, by the struct type the wrapper declares (``CUDA_KERNEL_NODE_PARAMS``): the driver,
    #: the face's struct object and the API name -> what the core takes for it (a record, or the dict a row spreads
    #: with ``**p``), as :data:`simcuda.faces.native.structs.READERS` reads the C struct; a struct argument without
    #: a reader reaches the core as the face's object
    readers: Mapping[str, Reader] = attrs.field(factory=dict)


def value_conv(face: FaceSpec, doc_type: str, pname: str) -> _Conv:
    """The body conversion of an argument the signature leaves untyped, by the type the real docstring gives
    it: a handle class of the face -> its ``int`` (:func:`simcuda.faces.bindings._args.handle`), an enum -> its
    ``int`` (:func:`_T.c_enum`), a C integer -> checked as the wrapper checks it, ``Any`` (a ``void*``) -> its
    address; anything else passes unchanged."""
    for cand in doc_type.split(" or "):
        cls = face.ns.get(cand)
        if isinstance(cls, type) and issubclass(cls, face.handle_types):
            return functools.partial(_A.handle, cls=_cast("type[_T.Wrapper]", cls))
        if isinstance(cls, type) and issubclass(cls, _enum.Enum):
            cname = face.enum_cname(cand)
            return lambda x: _T.c_enum(x, pname, cname)
    if doc_type in C_INT:
        bits, cname = C_INT[doc_type]
        return lambda x: _A.uint(x, bits, cname)
    if doc_type == "int":
        return _A.int32
    if doc_type == "Any":  # a void*: None, an int address or a buffer (its address)
        return _T.void_ptr
    return lambda x: x


def out_wrap(face: FaceSpec, type_name: str) -> _Conv:
    """How an output of the declared type is returned: a handle through its class (``CUgraph`` ...), an enum
    as its member, ``cuuint64_t`` as that class; ``bytes`` from the core's text (``cuGetErrorName``); a struct
    of one field from the core's ``bytes`` (``CUuuid``); plain values (``int``, ``float``, addresses) unchanged."""
    cls = face.ns.get(type_name)
    if isinstance(cls, type) and issubclass(cls, face.handle_types):
        return _cast(_Conv, getattr(cls, "_mk", cls))
    if isinstance(cls, type) and (issubclass(cls, _enum.Enum) or hasattr(cls, "getPtr")) \
            and len(getattr(cls, "_fields", ())) != 1:
        return cls
    if isinstance(cls, type) and len(getattr(cls, "_fields", ())) == 1:  # CUuuid: its one field holds the bytes
        return functools.partial(_one_field, cls)
    if type_name == "bytes":
        return lambda x: x.encode() if isinstance(x, str) else x
    return lambda x: x


def _one_field(cls: type, x: Any) -> Any:
    st = cls()
    st._d[cls._fields[0][0]] = x  # type: ignore[attr-defined]  # a Struct of the face (checked by out_wrap)
    return st


def text_buffer(x: Any, n: int) -> bytes:
    """A ``char*`` output of ``n`` bytes as the real wrapper returns its buffer (``b" " * n`` filled by the
    driver): the core's text cut to ``n - 1`` bytes, NUL-terminated, then the buffer's padding."""
    t = (x.encode() if isinstance(x, str) else bytes(x))[:n - 1] + b"\0"
    return t + b" " * (n - len(t))


def write_field(obj: Any, path: tuple[str, ...], value: Any) -> None:
    """Write a core result into field ``path`` of the face's struct ``obj`` (``-> nodeParams.dptr``): a handle
    field through its class (``CUdeviceptr``), any other as it is."""
    for f in path[:-1]:
        obj = obj._d[f]
    kind, arg = type(obj)._kinds[path[-1]]
    if kind == "h":
        cls = obj._classes[arg]
        value = getattr(cls, "_mk", cls)(value)
    obj._d[path[-1]] = value


def _c_names(name: str, names: list[str]) -> dict[str, str]:
    """The C parameter names of entry ``name`` that its Python wrapper spells otherwise (``len`` -> ``length``),
    matched by position among the inputs when both have as many."""
    from ..._generated.entry_table import ENTRIES
    entry = next((e for e in ENTRIES if e.python == name), None)
    if entry is None:
        return {}
    inputs = [p.name for p in entry.params if p.direction.value == "in"]
    return {c: p for c, p in zip(inputs, names) if c != p} if len(inputs) == len(names) else {}


#: the records a row may build for the core (``MemsetParams(...)``), by name, as the native route's
def _records() -> dict[str, Any]:
    from ..._core.memory.memory_model import CopyParams, MemsetParams
    return {"CopyParams": CopyParams, "MemsetParams": MemsetParams}


def _reader_conv(face: FaceSpec, name: str, pname: str, reader: Reader) -> _Conv:
    """A struct argument read by the face's reader (:attr:`FaceSpec.readers`); ``None`` (NULL) is the core's
    INVALID_VALUE naming the parameter (``require_arg``), before anything is read."""
    drv = face.driver

    def read(x: Any) -> Any:
        d = drv()
        if x is None:
            d.require_arg(False, pname, name)
        return reader(d, x, name)
    return read


_Getter = _Callable[[tuple[Any, ...]], Any]


def _getter(face: FaceSpec, name: str, a: Arg, index: _Callable[[str | None], int], convs: list[_Conv]) -> _Getter:
    """The value of one argument of a call in the forms the Python faces read beyond the first (nested core
    operations, records, tuples and lists), from the face's arguments."""
    if a.kind == "literal":
        v = a.value
        return lambda args: v
    if a.kind in ("param", "read"):
        i = index(a.name)
        conv = convs[i]
        return lambda args: conv(args[i])
    if a.kind in ("tuple", "list"):
        gs = [_getter(face, name, x, index, convs) for _kw, x in a.items]
        mk: Any = tuple if a.kind == "tuple" else list
        return lambda args: mk(g(args) for g in gs)
    if a.kind == "call" and a.name:
        pos = [_getter(face, name, x, index, convs) for kw, x in a.items if kw is None]
        kws = [(kw, _getter(face, name, x, index, convs)) for kw, x in a.items if kw is not None]
        target = a.name
        records = _records()
        if target[0].isupper() and target not in records:
            raise AssertionError(f"{name}: {target} is no record the core takes")
        drv = face.driver

        def call(args: tuple[Any, ...]) -> Any:
            f = records[target] if target in records else getattr(drv(), target)
            return f(*(g(args) for g in pos), **{k: g(args) for k, g in kws})
        return call
    raise AssertionError(f"{name}: the argument form {a.kind} is read only by the native adapters")


def _out_plan(face: FaceSpec, name: str, call: Call, index: _Callable[[str | None], int]) \
        -> tuple[tuple[int, _Callable[..., Any], int], ...]:
    """Per output slot of the call, in the order of the core's result: ``(kind, conversion, argument index)``:
    kind 0 an output slot of the wrapper, 1 a ``char*`` text of the count argument's bytes, 2 a field of a
    struct argument (written there, not returned), 3 a list sized by its count argument (output lists sharing a
    count come from one list of tuples), 4 that count, returned in the wrapper's last slot."""
    declared = face.outputs[name][1]
    plan: list[tuple[int, _Callable[..., Any], int]] = []
    k = 0
    for o in call.outs:
        if o in call.fields:
            base, path = call.fields[o]
            plan.append((2, functools.partial(write_field, path=path), index(base)))
            continue
        t = declared[k][1] if k < len(declared) else ""
        k += 1
        if o in call.counts and t == "bytes":
            plan.append((1, text_buffer, index(call.counts[o])))
        elif o in call.counts and t.startswith("list["):
            plan.append((3, _list_out(face, name, t), index(call.counts[o])))
        else:
            plan.append((0, out_wrap(face, t), -1))
    lists = [i for kind, _w, i in plan if kind == 3]
    if lists:  # the count the output lists share is written back: the wrapper's last slot
        plan.append((4, lambda x: x, lists[0]))
        k += 1
    if k != len(declared):
        raise AssertionError(f"{name}: the call fills {k} output slots, the wrapper has {len(declared)}")
    return tuple(plan)


def build(face: FaceSpec, name: str, call: Call, rename: Mapping[str, str] | None = None) -> _Callable[..., Any]:
    """The body of face function ``name`` from a row's call (the typed record
    :attr:`simcuda._core.rows.Api.call`, read as it is: no text is parsed): the
    arguments converted by the kinds the real wrapper's signature and docstring give them (:func:`value_conv`),
    passed to the core operation the call names, and its result returned after the success code in the real
    output slots (:func:`out_wrap`). ``rename`` maps the call's parameter names to the face's (a runtime entry
    built from a driver row; a C name the wrapper spells otherwise is matched by position). The face wraps it
    (arity, conversion order, error translation).

    Argument kinds: an array (``array(name, count)``) is a list of handles, converted with its count by the face's
    :attr:`FaceSpec.node_array`; a struct argument with a reader in :attr:`FaceSpec.readers` is what the reader
    gives (``spread(p)`` spreads its dict into keywords); nested core operations, records
    (``record(MemsetParams, ...)``), tuples and lists are built from their arguments. Output kinds: the wrapper's
    slots (:func:`out_wrap`); a ``char*`` output with a by-value length (:func:`text_buffer`); a struct field
    (``field(p, ...)``) written into the argument (:func:`write_field`). A wrong row fails here, at import:
    ``AssertionError`` for a form only the native adapters read, a parameter the wrapper does not have, an array
    the face does not convert, or a number of outputs other than the wrapper's."""
    sig = signature_params(face.outputs[name][0])
    names = [p.partition("=")[0] for p, _, _ in sig]  # ``size_t numNodes=0``: the default is the wrapper's
    rename = {**_c_names(name, names), **(rename or {})}
    doc_type = _doc_types(face, name, len(sig))
    convs = _arg_convs(face, name, sig, doc_type)
    _check_params(face, name, call, names, rename)

    def index(p: str | None) -> int:
        return names.index(rename.get(p, p)) if p is not None else -1
    arrays = _arrays(face, name, call, index, names, doc_type)
    convs = [(lambda x: x) if any(i == a for a, _n in arrays) else c for i, c in enumerate(convs)]  # with the count
    spec = tuple(_spec_item(face, name, kw, a, index, convs) for kw, a in call.tree)
    outs = _out_plan(face, name, call, index)
    prepare = _prepare(face, names, arrays, tuple(i for kind, _w, i in outs if kind == 3))
    simple_outs = all(kind == 0 for kind, _w, _i in outs)
    single = len(call.outs) == 1 or any(kind == 3 for kind, _w, _i in outs)  # the core's result is one value
    wraps = tuple(w for _k, w, _i in outs)
    op, drv, ok = call.op, face.driver, face.success
    success = (ok,)
    signature = inspect.Signature([inspect.Parameter(
        p.partition("=")[0], inspect.Parameter.POSITIONAL_OR_KEYWORD,
        default=ast.literal_eval(p.partition("=")[2]) if "=" in p else inspect.Parameter.empty) for p, _c, _a in sig])
    nparams = len(names)

    def fn(*args: Any, **kwargs: Any) -> Any:
        if kwargs or len(args) < nparams:
            b = signature.bind(*args, **kwargs)
            b.apply_defaults()
            args = b.args
        if prepare is not None:
            args = prepare(args)
        pos: list[Any] = []
        kws: dict[str, Any] = {}
        for kw, i, lit in spec:
            if i >= 0:
                v = convs[i](args[i])
            elif i == -1:
                v = lit
            else:  # a nested form (-2), or a reader's dict spread into keywords (-3)
                v = lit(args)
                if i == -3:
                    kws.update(v)
                    continue
            if kw is None:
                pos.append(v)
            else:
                kws[kw] = v
        r = getattr(drv(), op)(*pos, **kws)
        if not wraps:
            return success
        if simple_outs:
            if len(wraps) == 1:
                return (ok, wraps[0](r))
            return (ok, *(w(v) for w, v in zip(wraps, r)))
        return _results(ok, outs, (r,) if single else r, args)
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = face.module
    fn.__signature__ = signature  # type: ignore[attr-defined]
    return fn


def _doc_types(face: FaceSpec, name: str, n: int) -> _Callable[[int, str], str]:
    """The docstring type of parameter ``(index, name)`` of ``name`` (by position where the face's docstrings name
    parameters otherwise, :attr:`FaceSpec.docs_by_position`); empty when the docstring has none."""
    doc_list = face.params.get(name, ())
    docs = dict(doc_list)
    by_position = face.docs_by_position and len(doc_list) == n

    def doc_type(i: int, p: str) -> str:
        if p in docs:
            return docs[p]
        return doc_list[i][1] if by_position else ""
    return doc_type


def _arg_convs(face: FaceSpec, name: str, sig: list[tuple[str, str, str]],
               doc_type: _Callable[[int, str], str]) -> list[_Conv]:
    """The body conversion of each parameter: none for a typed one (converted at entry, :func:`conversion_plan`)
    unless its struct type has a reader (:func:`_reader_conv`), else by its docstring type (:func:`value_conv`)."""
    convs: list[_Conv] = []
    for i, (p, ctype, _) in enumerate(sig):
        if ctype in face.readers:
            convs.append(_reader_conv(face, name, p, face.readers[ctype]))
        else:
            convs.append((lambda x: x) if ctype else value_conv(face, doc_type(i, p), p))
    return convs


def _check_params(face: FaceSpec, name: str, call: Call, names: list[str], rename: Mapping[str, str]) -> None:
    """Refuse, at import, a call that reads a parameter the wrapper does not have."""
    unknown = [n for _kw, a in call.tree for n in _params_read(a) if rename.get(n, n) not in names]
    if unknown:
        raise AssertionError(f"{name}: the call reads {unknown}, not parameters of {face.outputs[name][0]}")


def _params_read(a: Arg) -> list[str]:
    own = [a.name] if a.kind in ("param", "array", "read") and a.name else []
    return own + [n for _kw, x in a.items for n in _params_read(x)]


def _arrays(face: FaceSpec, name: str, call: Call, index: _Callable[[str | None], int], names: list[str],
            doc_type: _Callable[[int, str], str]) -> tuple[tuple[int, int], ...]:
    """``(array index, count index)`` of the call's handle-array arguments, each checked to be a list of the
    face's handles (an output array is a ``char*`` text, :func:`_out_plan`)."""
    out = []
    for p, count in call.counts.items():
        if p in call.outs:
            continue
        i = index(p)
        item = doc_type(i, names[i])[5:-1] if doc_type(i, names[i]).startswith("list[") else ""
        if face.node_array is None or not isinstance(face.ns.get(item), type) or \
                not issubclass(face.ns[item], face.handle_types):
            raise AssertionError(f"{name}: the array {p}[{count}] is no handle list this face converts")
        out.append((i, index(count)))
    return tuple(out)


def _prepare(face: FaceSpec, names: list[str], arrays: tuple[tuple[int, int], ...],
             sized: tuple[int, ...]) -> _Callable[[tuple[Any, ...]], tuple[Any, ...]] | None:
    """What a built function does to its arguments before the core call: each handle array converted with its
    count (:attr:`FaceSpec.node_array`), then, for output lists, the wrapper's ``calloc`` of the count's room
    (:func:`_T.check_calloc`: MemoryError before the driver is called). None when there is nothing to do."""
    if not arrays and not sized:
        return None
    node_array = face.node_array

    def prepare(args: tuple[Any, ...]) -> tuple[Any, ...]:
        conv = list(args)
        for i, n in arrays:
            conv[i] = node_array(args[i], args[n], names[i])  # type: ignore[misc]  # (checked by _arrays)
        for n in dict.fromkeys(sized):
            _T.check_calloc(args[n])
        return tuple(conv)
    return prepare


def _struct_from(cls: type, values: Any) -> Any:
    """A struct of the face whose first fields take ``values`` in order (``CUgraphEdgeData`` from the core's
    ``(from_port, to_port, type)``)."""
    st = cls()
    for (f, _k, _a), v in zip(cls._fields, values):  # type: ignore[attr-defined]  # a Struct of the face
        st._d[f] = v
    return st


def _list_out(face: FaceSpec, name: str, t: str) -> _Callable[[list[Any], int], list[Any]]:
    """An output list ``list[X]`` sized by its count argument ``n``: the core's items, then padding up to ``n``
    (a handle list with ``X(0)``, :func:`pad_nodes`; a struct list with zeroed structs, :func:`pad_edges`)."""
    cls = face.ns.get(t[5:-1])
    if isinstance(cls, type) and issubclass(cls, face.handle_types):
        mk = getattr(cls, "_mk", cls)
        return lambda items, n: pad_nodes(items, n, mk)
    if isinstance(cls, type) and hasattr(cls, "_fields"):
        return lambda items, n: pad_edges(items, n, functools.partial(_struct_from, cls), cls)
    raise AssertionError(f"{name}: an output list of {t} is no list this face builds")


def _spec_item(face: FaceSpec, name: str, kw: str | None, a: Arg, index: _Callable[[str | None], int],
               convs: list[_Conv]) -> tuple[str | None, int, Any]:
    """One argument of the core call: ``(keyword, argument index, literal)``; index -1 a literal, -2 a nested
    form (the literal is its getter), -3 a reader's dict spread into keywords."""
    if a.kind in ("param", "array", "read"):
        return kw, index(a.name), None
    if a.kind == "literal":
        return kw, -1, a.value
    if a.kind == "spread":
        inner = a.items[0][1]
        if inner.kind != "param":
            raise AssertionError(f"{name}: only a struct argument with a reader can be spread")
        i = index(inner.name)
        conv = convs[i]
        return None, -3, lambda args: conv(args[i])
    return kw, -2, _getter(face, name, a, index, convs)


def _results(ok: Any, outs: tuple[tuple[int, _Callable[..., Any], int], ...], r: tuple[Any, ...],
             args: tuple[Any, ...]) \
        -> tuple[Any, ...]:
    """The success code and the wrapper's outputs of a call with text or struct-field outputs (:func:`_out_plan`)."""
    res = [ok]
    lists = [x for x in outs if x[0] == 3]
    if lists:  # one list from the core: its items, or a column of its tuples per output list
        items = r[0]
        n = args[lists[0][2]]
        cols = [list(c) for c in zip(*items)] if len(lists) > 1 else [items]
        if len(lists) > 1 and not items:
            cols = [[] for _ in lists]
        count = len(items) if n == 0 or n >= len(items) else n
        return (ok, *(w(c, n) for (_k, w, _i), c in zip(lists, cols)), count)
    for (kind, w, i), v in zip(outs, r):
        if kind == 0:
            res.append(w(v))
        elif kind == 1:
            res.append(w(v, args[i]))
        else:
            w(args[i], value=v)
    return tuple(res)


# =========================================================================== batched copies (issue 10)
def _first(x: Any, n: int, what: str, conv: Any) -> list[Any]:
    """The first ``n`` items of a list argument, converted (None counts as empty); ``RuntimeError: List is too
    small`` when it is shorter, as the real wrapper says."""
    items = list(x) if x is not None else []
    if len(items) < n:
        raise RuntimeError(f"List is too small: {len(items)} < {n}")
    return [conv(v) for v in items[:n]]


def memcpy_batch_args(dsts: Any, srcs: Any, sizes: Any, count: Any, attrs: Any, attrsIdxs: Any, numAttrs: Any,
                      order: Any = lambda a: int(a.srcAccessOrder)) -> tuple[list[int], ...]:
    """The lists ``memcpy_batch`` takes from the wrapper's arguments (the runtime face shares it)."""
    n, na = _A.size_t(count), _A.size_t(numAttrs)
    return (_first(dsts, n, "dsts", lambda v: int(v) if not isinstance(v, int) else v),
            _first(srcs, n, "srcs", lambda v: int(v) if not isinstance(v, int) else v),
            _first(sizes, n, "sizes", _A.size_t), _first(attrs, na, "attrs", order),
            _first(attrsIdxs, na, "attrsIdxs", _A.size_t))


# =========================================================================== 3D batched copies (issue 10)
def memcpy3d_batch_ops(numOps: Any, opList: Any, cls: type, cname: str) -> list[Any]:
    """The first ``numOps`` ops of ``opList`` (``cls`` structs: CUDA_MEMCPY3D_BATCH_OP or cudaMemcpy3DBatchOp) as
    the core's ``Op3D`` (the runtime face shares it); the real wrapper's TypeError / ``List is too small``."""
    from ..._core.memory.batch_entries import Op3D, Operand3D
    n = _A.size_t(numOps)
    items = opList if opList is not None else []
    if not isinstance(items, (list, tuple)):
        raise TypeError(f"'{type(items).__module__}.{type(items).__name__}' object is not iterable")
    if not all(isinstance(o, cls) for o in items):
        raise TypeError(f"Argument 'opList' is not instance of type (expected tuple[{cname},] or list[{cname},]")
    if len(items) < n:
        raise RuntimeError(f"List is too small: {len(items)} < {n}")

    def operand(o: Any) -> Any:
        ptr, arr = o.op.ptr, o.op.array
        return Operand3D(int(o._raw("type")), int(ptr.ptr), int(ptr.rowLength), int(ptr.layerHeight), int(arr.array))
    return [Op3D(operand(o.src), operand(o.dst), int(o.extent.width), int(o.extent.height), int(o.extent.depth),
                 int(o._raw("srcAccessOrder")), int(o.flags)) for o in list(items)[:n]]
