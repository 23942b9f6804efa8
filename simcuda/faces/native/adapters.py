"""The C-ABI adapters of the native route: one per (name, version) pair NVIDIA's binding requests.

Why this file is long (over ~700 lines): it holds the adapter builders for every form of the table's calls (simple,
arrays, native forms) and the kernel-launch decoder, which share the out-pointer writers.

Mirrors: the C entry points of ``libcuda.so.1`` as ``cuda/bindings/cydriver.pxd`` (cuda-bindings 13.5) declares
them, served by the simulated driver. NVIDIA's Cython layer calls an entry of the simulated library
(``simcuda/faces/native/libcuda.c``), which jumps to the ctypes callback installed here for that (name, version)
pair; the callback decodes the C arguments, calls the core operation the entry table names, writes the outputs
through the out-pointers and returns the ``CUresult``.

* **Made from the table, never per entry.** :func:`adapter` makes an entry's adapter from two tables: its row
  in :mod:`simcuda._core.api` (the core operation and which C parameters reach it, the same row the Python faces
  read) and its C declaration (:mod:`simcuda._generated.entry_table`, prototypes in
  :mod:`simcuda._generated.cydriver_ctypes`, both generated from the wheel's ``cydriver.pxd``). A C argument is
  decoded by its declared type: a handle (``CUstream``...) is its address as an ``int`` (NULL is 0), integers
  and enums are their values. An output is written through its pointer; a NULL output pointer is the core's
  INVALID_VALUE (``require_arg``), checked before the operation runs. :func:`builder` picks the generic
  builder: :func:`_build` for handles, integers and literals; :func:`_build_arrays` for array kinds
  (``name[count]``) and in/out pointers (``*name``); :func:`_build_general` for the native forms (struct
  fields, struct parameters read by their reader in :data:`simcuda.faces.native.structs.READERS`, records and nested
  core calls, tuples and lists, C strings in and out, fixed-size outputs: Python source generated from the row
  and compiled once, kept as the adapter's ``source``). Every parameter that is a pointer
  (to data or a function) arrives as an ``int`` address (:func:`flat_prototype`: the same C ABI, without a
  ctypes pointer object per call); outputs are written with :func:`put`.
* **Decoder kinds** (:data:`KINDS`) for what cannot be data: the row names its kind (``Api.decoder``), with
  literal arguments, and the kind gives the adapter (kernel parameter arrays decoded by the kernel's types,
  arrays the driver hands out, tagged unions, results written back on failure); no capture rule (those are the
  core's). An entry with neither a row that spells its call nor a kind is left to the library's not-simulated
  stub, which answers 801 and counts the call.
* **Per-thread default stream.** The binding asks for the per-thread variants (flag 2 of
  ``cuGetProcAddress_v2``) when ``CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM`` is set; those adapters read a
  NULL ``CUstream`` as ``CU_STREAM_PER_THREAD`` (0x2), as the ``_ptsz``/``_ptds`` entries of the real driver do.
* **Errors.** A core ``DriverError`` returns its code. A ``KeyboardInterrupt`` (any ``BaseException`` that is
  not an ``Exception``) is raised in the caller (:func:`_bug`: the library's boundary leaves it pending).
  Anything else is a simulator bug: the traceback goes to stderr, the driver's ``error_log`` records it as an
  internal error (``simcuda run --explain``, the pytest report), and the adapter returns 999
  (CUDA_ERROR_UNKNOWN), never 0 (NATIVE.md: a ctypes callback that raises would otherwise return success).
* **Lifetime.** The driver keeps the arrays it hands out (capture-info dependency lists) until the next call
  that changes them; :data:`_KEPT` holds them per (thread, entry), so a pointer the binding reads stays valid.
"""
from __future__ import annotations

import ctypes
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

from ... import _state
from ..._core.api import API, VARIANTS
from ..._core.errors import DriverError
from ..._core.modules.kernels import DECLARED
from ..._core.modules.module_model import merge_param_types
from ..._core.modules.param_types import Unsized
from ..._core.objects import POOL_ATTR_U64, Function
from ..._core.rows import Api
from ..._generated import cydriver_ctypes as C
from ..._generated.entry_table import ENTRIES, Entry
from . import kernel_args as _kargs
from . import misc as _misc
from . import structs as _structs
from ._shared import CU_STREAM_PER_THREAD
from ._shared import KEPT as _KEPT
from ._shared import drv as _drv
from ._shared import record_bug as _record_bug
from ._shared import stream as _stream

UNKNOWN = 999

#: C types that are handles (pointers to opaque structs): the argument is an address, NULL = 0
_HANDLE_TYPES = frozenset(n for n in dir(C) if getattr(C, n) is ctypes.c_void_p and n.startswith("CU"))


Adapter = Callable[..., int]


LAUNCH_FAILED = 719  # CUDA_ERROR_LAUNCH_FAILED: what a kernel that faults gives


def _bug(name: str) -> int:
    """The answer for an exception other than a ``DriverError`` (the one being handled).

    * A ``BaseException`` that is not an ``Exception`` (``KeyboardInterrupt``: Ctrl-C in a Python kernel, a
      graph replay or the adapter itself; ``SystemExit``) is the caller's to receive: it is handed to the library
      (:func:`simcuda.faces.native.hold_exception`) and the adapter answers
      :data:`simcuda.faces.native.RAISED`, so the library leaves it pending and the binding's wrapper raises it
      as it is (``except KeyboardInterrupt`` runs), as the Python faces let it through.
    * A Python kernel that raised an ``Exception`` (the core marks it) is the kernel's fault: its traceback on
      stderr and CUDA_ERROR_LAUNCH_FAILED (719), as a kernel that faults on a GPU [I: the Python faces let the
      exception itself through].
    * Anything else is a simulator bug: its traceback on stderr, a record in the current driver's
      ``error_log`` marked ``internal`` (its why the exception's type, message and where,
      :func:`simcuda._core.logs.internal_why`; ``simcuda run --explain`` and the pytest report list it), and
      999 (UNKNOWN)."""
    from . import hold_exception

    e = sys.exc_info()[1]
    if e is not None and not isinstance(e, Exception):
        return hold_exception(e)
    kernel = getattr(e, "__simcuda_kernel__", None)
    if kernel is not None:
        print(f"simcuda: the Python kernel {kernel!r} raised during {name} (the call answers "
              "CUDA_ERROR_LAUNCH_FAILED on the native route):", file=sys.stderr)
        traceback.print_exc()
        return LAUNCH_FAILED
    print(f"simcuda: internal error in the native adapter of {name} (a simcuda bug: please report; the call "
          "answers CUDA_ERROR_UNKNOWN, and the driver's error_log records it):", file=sys.stderr)
    traceback.print_exc()
    if e is not None:
        _record_bug(name, e)
    return UNKNOWN


def _guard(name: str, fn: Callable[..., int]) -> Adapter:
    """Wrap an adapter body: a ``DriverError`` returns its code; any other exception is reported and 999."""
    def adapter(*args: Any) -> int:
        try:
            return fn(*args)
        except DriverError as e:
            return int(e.code)
        except BaseException:  # a simulator bug: loud, and never CUDA_SUCCESS
            return _bug(name)
    adapter.__name__ = adapter.__qualname__ = f"native_{name}"
    return adapter


def row_of(entry: Entry) -> Api | None:
    """The table row an entry is served by: the row of its Python wrapper (the declared variant), or for an
    older variant without one (``cuCtxCreate_v2``...) its row in :data:`simcuda._core.api.VARIANTS`."""
    return API.get(entry.python) if entry.python else VARIANTS.get(entry.declared)


def _is_pointer(t: Any) -> bool:
    """A ctypes argument type that is a pointer (to data or a function): passed as an address."""
    if t is ctypes.c_void_p:
        return True
    return isinstance(t, type) and (issubclass(t, ctypes._Pointer) or hasattr(t, "_flags_"))  # _flags_: a CFUNCTYPE


def flat_prototype(index: int) -> Any:
    """Entry ``index``'s prototype with every pointer parameter (data or function) as ``c_void_p``: the same C
    ABI, and the adapter receives plain ``int`` addresses (None for NULL) instead of ctypes pointer objects,
    which cost more to make on every call than the adapter's whole work on the launch path."""
    proto = C.PROTOTYPES[index]
    return ctypes.CFUNCTYPE(proto._restype_, *[ctypes.c_void_p if _is_pointer(t) else t for t in proto._argtypes_])


def pointee(index: int, param: int) -> Any:
    """The ctypes type an output parameter points to (``c_int`` for ``int*``, ``c_void_p`` for a handle's)."""
    t = C.PROTOTYPES[index]._argtypes_[param]
    inner = getattr(t, "_type_", ctypes.c_void_p)
    return ctypes.c_void_p if isinstance(inner, str) or not isinstance(inner, type) else inner


def put(t: Any, addr: int, value: Any) -> None:
    """Write ``value`` as a ``t`` at ``addr`` (an output the caller allocated)."""
    t.from_address(addr).value = value


def _build(entry: Entry, row: Api, ptds: bool) -> Callable[..., int]:
    call = row.call
    params = entry.params
    names = [n for _t, n, _d in params]
    streams = {j for j, (t, _n, _d) in enumerate(params) if t == "CUstream"} if ptds else set()
    spec = tuple((kw, names.index(p) if p is not None else -1, lit) for kw, p, lit in call.args)
    outs = tuple(names.index(o) for o in call.outs)
    index = ENTRIES.index(entry)
    types = tuple(pointee(index, j) for j in outs)
    op, api = call.op, entry.name

    def body(*args: Any) -> int:
        d = _drv()
        for j in outs:
            if not args[j]:
                d.require_arg(False, names[j], api)
        pos: list[Any] = []
        kws: dict[str, Any] = {}
        for kw, j, lit in spec:
            if j < 0:
                v = lit
            else:
                v = args[j]
                if v is None:
                    v = 0
                if j in streams and v == 0:
                    v = CU_STREAM_PER_THREAD
            if kw is None:
                pos.append(v)
            else:
                kws[kw] = v
        r = getattr(d, op)(*pos, **kws)
        if len(outs) == 1:
            types[0].from_address(args[outs[0]]).value = r
        elif outs:
            for t, j, v in zip(types, outs, r):
                t.from_address(args[j]).value = v
        return 0
    return body


# ================================================================================ array kinds
def _base(ctype: str) -> str:
    """``const CUgraphNode*`` -> ``CUgraphNode``: the item type of an array parameter."""
    return ctype.replace("const ", "").rstrip("*").strip()


def _items(ctype: str) -> tuple[Any, tuple[str, ...]]:
    """The ctypes item type of an array parameter and, for a struct item, the fields a core item carries
    (a struct item is a tuple of its fields but ``reserved``; a handle item an ``int``, NULL 0)."""
    base = _base(ctype)
    t = getattr(C, base, None)
    if base in _HANDLE_TYPES or t is None:
        return ctypes.c_void_p, ()
    if isinstance(t, type) and issubclass(t, ctypes.Structure):
        return t, tuple(f for f, *_ in t._fields_ if f != "reserved")
    return t, ()


def _read_array(t: Any, fields: tuple[str, ...], addr: int | None, n: int) -> list[Any]:
    """``n`` items of an input array at ``addr``. A NULL handle array gives one NULL handle (the core refuses
    it as it would the first item) unless ``n`` is 0; a NULL struct array gives ``n`` zeroed items (NULL edge
    data means all-zero edge data: :func:`_build_arrays` bounds ``n`` by the handle arrays of the call, so a
    huge count with NULL arrays builds no huge list, issue 19 item 3). A non-NULL array is read as the driver
    reads it, ``n`` items (a count past its end reads what follows, as on the real driver: docs/native.md)."""
    if not addr:
        if fields:
            return [(0,) * len(fields)] * n
        return [0] if n else []
    arr = (t * n).from_address(addr)
    if fields:
        return [tuple(getattr(x, f) for f in fields) for x in arr]
    return [x or 0 for x in arr]


def _array_arg(t: Any, fields: tuple[str, ...], addr: int | None, n: int, longest: int) -> tuple[list[Any], int]:
    """An input array of :func:`_build_arrays`' call (:func:`_read_array`) and the longest handle array read so far:
    a NULL struct array (all-zero edge data) gets at most one item more than the handle arrays before it, which
    the core pairs it with (a huge count with NULL arrays builds no huge list, issue 19 item 3)."""
    if fields:
        return _read_array(t, fields, addr, n if addr else min(n, longest + 1)), longest
    v = _read_array(t, fields, addr, n)
    return v, max(longest, len(v))


def _write_array(t: Any, fields: tuple[str, ...], addr: int, items: list[Any], room: int) -> None:
    """Write ``items`` (cut to ``room``) at ``addr`` and clear the rest of the ``room`` entries, as the driver
    pads what the caller allocated beyond the items (NULL handles, zeroed structs)."""
    arr = (t * room).from_address(addr)
    ctypes.memset(addr, 0, ctypes.sizeof(t) * room)
    for k, v in enumerate(items[:room]):
        if fields:
            x = arr[k]
            for f, fv in zip(fields, v):
                setattr(x, f, fv)
        else:
            arr[k] = v or None


def _build_arrays(entry: Entry, row: Api, ptds: bool) -> Callable[..., int]:
    """The adapter of a row whose call has array kinds (``name[count]``) or in/out pointers (``*name``), see
    :mod:`simcuda._core.api`: input arrays are read as lists, outputs with a count are written as arrays
    with the in/out count (a NULL first array only counts), the rest as :func:`_build` does."""
    call = row.call
    params = entry.params
    names = [n for _t, n, _d in params]
    index = ENTRIES.index(entry)
    ctypes_of = {n: t for t, n, _d in params}
    op, api = call.op, entry.name
    streams = {names.index(n) for t, n, _d in params if t == "CUstream"} if ptds else set()
    ins: list[tuple[str | None, int, Any, Any]] = []  # (keyword, parameter or -1, literal, reader)
    for kw, p, lit in call.args:
        if p is None:
            ins.append((kw, -1, lit, None))
        elif p in call.counts:
            t, fields = _items(ctypes_of[p])
            ins.append((kw, names.index(p), (t, fields, names.index(call.counts[p])), "array"))
        elif p in call.reads:
            ins.append((kw, names.index(p), pointee(index, names.index(p)), "read"))
        else:
            ins.append((kw, names.index(p), None, "value"))
    scalars = [(names.index(o), pointee(index, names.index(o))) for o in call.outs if o not in call.counts]
    groups: dict[str, list[tuple[int, Any, tuple[str, ...]]]] = {}
    for o in call.outs:
        if o in call.counts:
            groups.setdefault(call.counts[o], []).append((names.index(o), *_items(ctypes_of[o])))
    arrays = [(names.index(c), outs) for c, outs in groups.items()]
    slots: list[str] = []  # the core's results in order: an output, or a count shared by its arrays' one list
    for o in call.outs:
        key = call.counts.get(o, o)
        if key not in slots:
            slots.append(key)

    def body(*args: Any) -> int:
        d = _drv()
        for j, _t in scalars:
            if not args[j]:
                d.require_arg(False, names[j], api)
        for c, outs in arrays:
            if not args[c]:
                d.require_arg(False, names[c], api)
            present = [bool(args[j]) for j, _t, f in outs if not f]  # node arrays: all or none
            if any(present) and not all(present):
                d.require_arg(False, names[outs[0][0]], api)
        pos: list[Any] = []
        kws: dict[str, Any] = {}
        longest = 0  # the longest handle array read: a NULL struct array needs no more items than it, plus one
        for kw, j, lit, how in ins:
            if how is None:
                v = lit
            elif how == "array":
                t, fields, c = lit
                v, longest = _array_arg(t, fields, args[j], args[c] or 0, longest)
            elif how == "read":
                d.require_arg(bool(args[j]), names[j], api)
                v = lit.from_address(args[j]).value
            else:
                v = args[j] or 0
                if j in streams and v == 0:
                    v = CU_STREAM_PER_THREAD
            if kw is None:
                pos.append(v)
            else:
                kws[kw] = v
        r = getattr(d, op)(*pos, **kws)
        results = dict(zip(slots, [r] if len(slots) == 1 else r)) if slots else {}
        for j, t in scalars:
            t.from_address(args[j]).value = results[names[j]]
        for c, outs in arrays:
            items = results[names[c]]
            room = ctypes.c_size_t.from_address(args[c])
            if not args[outs[0][0]]:  # count only
                room.value = len(items)
                continue
            n = room.value
            for k, (j, t, fields) in enumerate(outs):
                if args[j]:
                    col = items if len(outs) == 1 else [x[k] for x in items]
                    _write_array(t, fields, args[j], col, n)
            room.value = len(items) if n >= len(items) else n
        return 0
    return body


# ================================================================================ the native forms
_STRING_IN = frozenset({"const char*", "char*"})  # a C string argument: bytes (None for NULL) -> str


def _records() -> dict[str, Any]:
    """The records a shape may build for the core (``CopyParams(...)``, ``MemsetParams(...)``), by name."""
    from ..._core.memory.memory_model import CopyParams, MemsetParams
    return {"CopyParams": CopyParams, "MemsetParams": MemsetParams}


def _struct_of(ctype: str) -> Any:
    """The generated ctypes struct a ``[const] T*`` parameter points to, or None (not a struct pointer)."""
    if not ctype.endswith("*") or ctype.endswith("**"):
        return None
    t = getattr(C, _base(ctype), None)
    return t if isinstance(t, type) and issubclass(t, (ctypes.Structure, ctypes.Union)) else None


def _field(obj: Any, path: tuple[str, ...]) -> Any:
    """Field ``path`` of a ctypes struct as the core takes it: a handle or pointer field is its address
    (NULL 0), a nested struct the struct itself, an integer its value."""
    for f in path[:-1]:
        obj = getattr(obj, f)
    v = getattr(obj, path[-1])
    if isinstance(v, ctypes._Pointer):
        return ctypes.cast(v, ctypes.c_void_p).value or 0
    return 0 if v is None else v


def _set_field(obj: Any, path: tuple[str, ...], value: Any) -> None:
    """Write ``value`` into field ``path`` of a ctypes struct (a handle field: NULL for 0)."""
    for f in path[:-1]:
        obj = getattr(obj, f)
    ftype = dict((n, t) for n, t, *_b in type(obj)._fields_).get(path[-1])
    setattr(obj, path[-1], (value or None) if ftype is ctypes.c_void_p else value)


def _struct_at(d: Any, addr: int | None, st: Any, arg: str, call: str) -> Any:
    """The struct ``st`` at ``addr``; a NULL ``addr`` is the core's INVALID_VALUE for ``arg``."""
    if not addr:
        d.require_arg(False, arg, call)
    return st.from_address(addr)


def _read_pointer(d: Any, addr: int | None, t: Any, arg: str, call: str) -> Any:
    """The value an in/out pointer points to (``*name``); NULL is INVALID_VALUE."""
    if not addr:
        d.require_arg(False, arg, call)
    return t.from_address(addr).value


def _build_general(entry: Entry, row: Api, ptds: bool) -> Callable[..., int]:
    """The adapter of a row in the native forms of :mod:`simcuda._core.api` (struct fields, struct
    parameters read by their registered reader, records and nested core calls, tuples and lists, C strings
    in and out, fixed-size outputs), generated as Python source from the row and the C declaration and
    compiled once: each argument an expression of the C arguments ``a0, a1...`` chosen by its form and declared
    C type, each output a write chosen by its type; no interpretation per call."""
    call = row.call
    params = entry.params
    names = [n for _t, n, _d in params]
    ctype = {n: t for t, n, _d in params}
    index = ENTRIES.index(entry)
    api = entry.name
    ns: dict[str, Any] = {"_drv": _drv, "DriverError": DriverError, "api": api, "_fsdecode": os.fsdecode,
                          "_struct_at": _struct_at, "_read_pointer": _read_pointer, "_read_array": _read_array,
                          "_field": _field, "_set_field": _set_field, "_put": put, "_static": _static,
                          "_c_void_p": ctypes.c_void_p, "_memmove": ctypes.memmove, "_text": _text}
    records = _records()

    def const(v: Any) -> str:
        k = f"_k{len(ns)}"
        ns[k] = v
        return k

    def struct_expr(j: int) -> str:
        return f"_struct_at(d, a{j}, {const(_struct_of(params[j][0]))}, {names[j]!r}, api)"

    def expr(x: Any) -> str:
        kind = x.kind
        if kind == "literal":
            return const(x.value)
        if kind == "param":
            j, t = names.index(x.name), ctype[x.name]
            if t in _STRING_IN:
                return f"(None if a{j} is None else _fsdecode(a{j}))"
            if ptds and t == "CUstream":
                return f"(a{j} or {CU_STREAM_PER_THREAD})"
            read = _structs.READERS.get(_base(t)) if _struct_of(t) is not None else None
            if read is not None:  # a struct parameter: its registered reader gives the core's value
                return f"{const(read)}(d, {struct_expr(j)}, api)"
            return f"(a{j} or 0)"
        if kind == "array":
            j, c = names.index(x.name), names.index(x.value)
            t, fields = _items(ctype[x.name])
            return f"_read_array({const(t)}, {const(fields)}, a{j}, a{c} or 0)"
        if kind == "read":
            j = names.index(x.name)
            return f"_read_pointer(d, a{j}, {const(pointee(index, j))}, {names[j]!r}, api)"
        if kind == "field":
            j, path = names.index(x.name), x.value
            e = f"_field({struct_expr(j)}, {path!r})"
            return f"({e} or {CU_STREAM_PER_THREAD})" if ptds and path[-1] in ("hStream", "hUploadStream") else e
        if kind == "tuple":
            return "(" + "".join(expr(y) + ", " for _k, y in x.items) + ")"
        if kind == "list":
            return "[" + ", ".join(expr(y) for _k, y in x.items) + "]"
        if kind == "call":
            target = const(records[x.name]) if x.name in records else f"d.{x.name}"
            return f"{target}({items(x.items)})"
        raise AssertionError(f"{api}: argument kind {kind} outside a call")

    def items(xs: Any) -> str:
        out = []
        for kw, y in xs:
            if y.kind == "spread":
                out.append("**" + expr(y.items[0][1]))
            else:
                out.append(expr(y) if kw is None else f"{kw}={expr(y)}")
        return ", ".join(out)

    lines = [f"def body({', '.join(f'a{j}' for j in range(len(params)))}):", "    d = _drv()"]
    writes: list[str] = []
    strings: list[int] = []  # ``const char**`` outputs: NULL after a failed call
    def read_params(x: Any) -> set[str]:
        own = {x.name} if x.kind in ("param", "field") else set()
        return own.union(*[read_params(y) for _k, y in x.items])
    inputs = set().union(*[read_params(x) for _k, x in call.tree])
    results = ["r"] if len(call.outs) == 1 else [f"r[{k}]" for k in range(len(call.outs))]
    for slot, v in zip(call.outs, results):
        if slot in call.fields:
            base, path = call.fields[slot]
            j = names.index(base)
            if base not in inputs:
                lines.append(f"    if not a{j}: d.require_arg(False, {base!r}, api)")
            writes.append(f"    _set_field({const(_struct_of(ctype[base]))}.from_address(a{j}), {path!r}, {v})")
            continue
        j, t = names.index(slot), ctype[slot]
        lines.append(f"    if not a{j}: d.require_arg(False, {slot!r}, api)")
        if t == "const char**":  # a string the driver hands out: static, as the driver's
            strings.append(j)
            writes.append(f"    _put(_c_void_p, a{j}, _static({v}))")
        elif slot in call.counts:  # char *name, int len: the text NUL-terminated, cut to the buffer
            if t != "char*":
                raise AssertionError(f"{api}: an output array {slot} in the native forms must be a char buffer")
            writes.append(f"    _text(a{j}, a{names.index(call.counts[slot])}, {v})")
        elif _struct_of(t) is not None:  # a fixed-size struct the core gives as bytes (CUuuid)
            writes.append(f"    _memmove(a{j}, bytes({v}), {ctypes.sizeof(_struct_of(t))})")
        else:
            writes.append(f"    {const(pointee(index, j))}.from_address(a{j}).value = {v}")
    invoke = f"d.{call.op}({items(call.tree)})"
    if strings:
        lines += ["    try:", f"        r = {invoke}", "    except DriverError:"]
        lines += [f"        _put(_c_void_p, a{j}, None)" for j in strings] + ["        raise"]
    else:
        lines.append(f"    r = {invoke}" if writes else f"    {invoke}")
    source = "\n".join(lines + writes + ["    return 0", ""])
    exec(compile(source, f"<native adapter of {api}>", "exec"), ns)  # the source is made from the row, above
    body: Callable[..., int] = ns["body"]
    body.source = source  # type: ignore[attr-defined]
    return body


def _text(addr: int, room: int, v: Any) -> None:
    """Write ``v`` (``str`` or ``bytes``) NUL-terminated into the ``room`` bytes at ``addr``, cut to fit."""
    b = (v.encode() if isinstance(v, str) else bytes(v))[:max(room - 1, 0)] + b"\0"
    ctypes.memmove(addr, b, min(len(b), room))


def _needs_general(entry: Entry, call: Any) -> bool:
    """True when an entry's call needs the native forms: the call has them, or a C type the simple adapters
    do not convert (a C string in or out, a struct parameter with a reader, a struct output)."""
    if not call.simple:
        return True
    types = {n: t for t, n, _d in entry.params}
    for _kw, x in call.tree:
        t = types.get(x.name or "", "")
        if x.kind == "param" and (t in _STRING_IN or (_base(t) in _structs.READERS and _struct_of(t) is not None)):
            return True
    for o in call.outs:
        t = types.get(o, "")
        if t == "char*" if o in call.counts else (t == "const char**" or _struct_of(t) is not None):
            return True
    return False


def adapter(index: int, ptds: bool = False) -> Adapter | None:
    """The Python adapter of entry ``index`` of :data:`ENTRIES` (``ptds``: the per-thread-default-stream variant),
    or None when the simulator does not serve it (the library's 801 stub answers). Made from the entry's row
    only: the decoder kind the row declares (:data:`KINDS`), else its call (:func:`_build`,
    :func:`_build_arrays` or :func:`_build_general`)."""
    entry = ENTRIES[index]
    legacy = PARTICULAR.get(entry.declared)
    if legacy is not None:  # a decoder written for one entry (none left: tests/native/test_native_generated.py)
        body = legacy(entry, ptds)
        return body if getattr(body, "guarded", False) else _guard(entry.name, body)
    row = row_of(entry)
    if row is None:
        return None
    kind = row.decoder_kind
    if kind is not None:
        body = KINDS[kind[0]](entry, ptds, *kind[1])
        return body if getattr(body, "guarded", False) else _guard(entry.name, body)
    if not row.has_call:
        return None
    return _guard(entry.name, builder(entry, row)(entry, row, ptds))


def builder(entry: Entry, row: Api) -> Callable[[Entry, Api, bool], Callable[..., int]]:
    """The generic builder that makes an entry's adapter from its row's call."""
    call = row.call
    if _needs_general(entry, call):
        return _build_general
    return _build_arrays if call.counts or call.reads else _build


def c_function(index: int, ptds: bool = False) -> Any | None:
    """The adapter of entry ``index`` as a C function pointer of its declared prototype (keep a reference)."""
    fn = adapter(index, ptds)
    return None if fn is None else flat_prototype(index)(fn)


# ================================================================================ particular entries
Decoder = Callable[[Entry, bool], Callable[..., int]]

_STATIC_STRINGS: dict[bytes, ctypes.Array[ctypes.c_char]] = {}  # C strings the driver hands out, kept forever


def _static(s: str | bytes) -> int:
    """The address of a NUL-terminated copy of ``s``, kept for the process (a string the driver hands out)."""
    b = s.encode() if isinstance(s, str) else bytes(s)
    buf = _STATIC_STRINGS.get(b)
    if buf is None:
        buf = _STATIC_STRINGS[b] = ctypes.create_string_buffer(b)
    return ctypes.addressof(buf)


def _capture_info(edge_data: bool) -> Decoder:
    """cuStreamGetCaptureInfo (12030 with edge data, 11030 without): every output optional (NULL skips it); the
    dependency and edge-data arrays stay valid until this thread asks again, as the driver keeps them."""
    def make(entry: Entry, ptds: bool) -> Callable[..., int]:
        def body(h: int | None, status: Any, cid: Any, graph: Any, deps: Any, *rest: Any) -> int:
            eds, n = (rest[0], rest[1]) if edge_data else (None, rest[0])
            d = _drv()
            hs = h or (CU_STREAM_PER_THREAD if ptds else 0)
            st, i, g, nodes, edges, count = d.stream_get_capture_info(hs, edge_data=edge_data)
            arr = (ctypes.c_void_p * max(len(nodes), 1))(*nodes)
            earr = (C.CUgraphEdgeData * max(len(edges), 1))()
            for k, e in enumerate(edges):
                earr[k].from_port, earr[k].to_port, earr[k].type = e
            _KEPT[(d.thread_id(), entry.name)] = (arr, earr)
            for t, ptr, v in ((ctypes.c_int, status, st), (ctypes.c_uint64, cid, i), (ctypes.c_void_p, graph, g),
                              (ctypes.c_size_t, n, count)):
                if ptr:
                    put(t, ptr, v)
            for out, array, items in ((deps, arr, nodes), (eds, earr, edges)):
                if out:  # a pointer to a pointer: written as an address
                    put(ctypes.c_void_p, out, ctypes.addressof(array) if items else None)
            return 0
        return body
    return make


#: kernel function handle -> (its Function, its reader of void** arrays, its layout's serial for the launch
#: memo, 0 for none): :func:`_packed_args`
_READERS: dict[int, tuple[Function, _kargs.Reader, int]] = {}
_serials = iter(range(1, 1 << 32))  # the launch memo's layout serials (next() is atomic under the GIL)


def _reader_of(hf: int, fn: Function) -> tuple[Function, _kargs.Reader, int]:
    """A new reader for function ``hf`` (kept in :data:`_READERS`, at most 256 functions), with its layout
    registered for the launch memo (:func:`simcuda.faces.native.set_layout`: the byte size of each parameter)."""
    from . import is_loaded, set_layout

    if len(_READERS) >= 256:
        _READERS.clear()
    types = merge_param_types(fn.param_types, DECLARED.get(fn.name))  # as the core reads (simcuda.kernel params)
    try:
        read: _kargs.Reader = _kargs.reader(types)
    except Unsized:  # the core reads it (and answers 801 for what it cannot size)
        none: tuple[Function, _kargs.Reader, int] = (fn, _no_reader, 0)
        _READERS[hf] = none
        return none
    serial = next(_serials)
    if not (is_loaded() and set_layout(hf, serial, _kargs.sizes(types))):
        serial = 0  # not remembered: every launch of it is read in full
    c = _READERS[hf] = (fn, read, serial)
    return c


def _no_reader(kp: int) -> None:
    """The reader of a function whose parameters cannot all be sized: none (the core's packed_kernel_args)."""
    return None


def _packed_args(d: Any, hf: int, kp: int) -> tuple[list[Any], int]:
    """The arguments of the ``void**`` array at ``kp`` (not NULL) that NVIDIA's binding packed for function
    ``hf``, with the function's layout serial (0: none; see :func:`_launch_kernel`): the values
    ``d.packed_kernel_args`` gives, read by the function's reader (:mod:`simcuda.faces.native.kernel_args`, made at
    its first launch by :func:`_reader_of`), or by ``packed_kernel_args`` itself for no function, a kernel
    with no parameters or a NULL argument pointer. ``[]`` when ``hf`` is no function (the launch then
    reports it)."""
    _kargs.check_address(kp)  # refused before anything reads it (the readers check their items)
    c = _READERS.get(hf)
    fn = d.objects.get(hf) if hf else None  # the core's handle table, read as packed_kernel_args reads it
    if fn is not None and fn.__class__ is Function and fn.param_types:
        if c is None or c[0] is not fn:
            c = _reader_of(hf, fn)
        args = c[1](kp)
        if args is not None:
            return args, c[2]
    return d.packed_kernel_args(hf, kp) or [], 0


def _launch_kernel(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuLaunchKernel: the ``void**`` kernelParams decoded by the kernel's parameter types (the core reads the
    image's), ``extra`` by the core's rule.

    The launch path (issue 9: the native route costs at most the binding's own cost plus the Python face's):

    * the array is read by the function's own reader (:mod:`simcuda.faces.native.kernel_args`: the values
      ``packed_kernel_args`` gives, read with one ``unpack_from`` per argument, and the list of the last launch
      again when the bits are the same, so the core reuses its checked parameters as it does for the face), and
      the launch shape is one pair of tuples per shape, so the launch's identity checks hold. Anything else (no
      function, a kernel with no parameters, a NULL argument pointer) is read by ``packed_kernel_args``;
    * the adapter has a ``repeat`` function for the library's launch memo (``libcuda.c``, "the launch memo";
      installed by :func:`install`): when a call's arguments are, bit for bit, the same thread's last call that
      answered ``CUDA_SUCCESS``, the library calls ``repeat(serial)`` instead, which makes that call's core
      call again with the values decoded then, so the core checks everything as for any launch. It answers
      "miss" (and the library calls the adapter itself) unless the driver is the same and ``serial`` is the
      serial of the layout those values were read by (a layout registered again under the handle has a new
      one). Within one driver a handle never names another object (handles are never reused), so the values
      decoded by the function's types still are its arguments (a function unloaded since is the core's 400,
      as for any launch). Every successful call of the adapter records its values for the thread (``serial``
      0 when the library cannot compare them), after the core returned, as the library records its bits after
      the adapter returned: the two records are of the same call, a nested launch on the same thread included.
      The repeat is the same ``launch_kernel_fast`` call (the core's one launch path,
      :func:`simcuda._core.modules.launch.launch`), given the thread's state, the launch record and the stream when the
      core's inline path took the first call (its ``again``: the record is reused while it is the function's
      last, and the liveness test runs as for every launch).
    """
    import threading

    from . import MEMO_MISS as miss

    call = entry.name
    shapes: dict[tuple[int, ...], tuple[tuple[int, int, int], tuple[int, int, int]]] = {}  # one pair per shape
    readers = _READERS
    default_stream = CU_STREAM_PER_THREAD if ptds else 0
    # .m, the thread's last successful call: (driver, serial, the arguments of its launch_kernel_fast call),
    # with, when the core's inline path took it, the thread's state and (launch record, stream object) as
    # ``t`` and ``again`` (None for a default stream's handle, which the handle table does not name)
    last = threading.local()

    def body(f: int | None, gx: int, gy: int, gz: int, bx: int, by: int, bz: int, shmem: int, h: int | None,
             kp: int | None, extra: int | None) -> int:
        try:  # its own guard (the hot path: one frame less than _guard's)
            d = _state._current
            if d is None or d.per_thread_mode is None:
                d = _drv()
            if extra:  # the core's rule for a non-NULL extra (with kernelParams too: 1; alone: 801)
                d.check_kernel_extra(bool(kp), extra, call)
            hf = f or 0
            serial = 0
            if kp:  # the binding packed the array: read as the driver does
                # (the core's handle table read directly: this is the launch path)
                c = readers.get(hf)
                if c is not None and c[0] is d.objects.get(hf):
                    args = c[1](kp)
                    serial = c[2]
                else:
                    args = None
                if args is None:
                    args, serial = _packed_args(d, hf, kp)
            else:
                args = []
            dims = (gx, gy, gz, bx, by, bz)
            shape = shapes.get(dims)
            if shape is None:  # the same tuple objects again: the launch reuses its checked parameters
                shape = ((gx, gy, gz), (bx, by, bz))
                if len(shapes) < 64:
                    shapes[dims] = shape
            hs = h or default_stream
            params = d.launch_kernel_fast(hf, shape[0], shape[1], shmem, hs, args)
            if params is not None:  # the core's inline path took it: its record, stream and thread state
                so = d.objects.get(hs)
                last.m = (d, serial, (hf, shape[0], shape[1], shmem, hs, args, call, False, d.thread_state(), False,
                                      (params, so) if so is not None else None))
            else:
                last.m = (d, serial, (hf, shape[0], shape[1], shmem, hs, args))
            return 0
        except DriverError as e:
            return int(e.code)
        except BaseException:
            return _bug(call)

    def repeat(serial: int) -> int:
        try:
            m = last.m
            d = m[0]
            if serial != m[1] or d is not _state._current:
                return miss
            d.launch_kernel_fast(*m[2])  # type: ignore[union-attr]  # d: a record's
            return 0
        except DriverError as e:
            return int(e.code)
        except AttributeError as e:
            if e.obj is last:  # no record on this thread yet
                return miss
            return _bug(call)
        except BaseException:
            return _bug(call)

    body.guarded = True  # type: ignore[attr-defined]
    body.repeat = repeat  # type: ignore[attr-defined]
    return body


def _launch_kernel_ex(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuLaunchKernelEx ``(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)``: the
    config read through its ctypes layout, its attributes checked by the core, the array read as for
    cuLaunchKernel (:func:`_packed_args`). As in :func:`_launch_kernel`, the launch shape is one pair of tuples
    per shape (so the core reuses its launch record by identity), and the core's checks of a NULL config, a
    non-NULL ``extra`` and the attributes are called only when there is something to check (with none they
    answer nothing and change nothing), unless the driver is off its common path (``Driver.on_common_path``: hooks
    registered, not initialised, closed): then every one, as the Python face calls them, so a hook sees them."""
    call = entry.name
    shapes: dict[tuple[int, ...], tuple[tuple[int, int, int], tuple[int, int, int]]] = {}  # one pair per shape

    def body(config: Any, f: int | None, kp: Any, extra: Any) -> int:
        d = _drv()
        every = not d.on_common_path()  # hooks (or a closed driver...): the face's calls, every one, for what they see
        if every or not config:
            d.require_arg(bool(config), "config", call)
        c = C.CUlaunchConfig.from_address(config)
        programmatic: int = False  # the core's attribute flags
        if every or (c.numAttrs and c.attrs):
            attrs = [c.attrs[k] for k in range(c.numAttrs)] if c.numAttrs and c.attrs else []
            programmatic = d.check_launch_attributes([a.id for a in attrs], call, [
                (a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z) if a.id == 4
                else a.value.programmaticStreamSerializationAllowed for a in attrs])
        kpa = kp or 0
        if every or extra:
            d.check_kernel_extra(bool(kpa), extra or 0, call)
        args = _packed_args(d, f or 0, kpa)[0] if kpa else []
        dims = (c.gridDimX, c.gridDimY, c.gridDimZ, c.blockDimX, c.blockDimY, c.blockDimZ)
        shape = shapes.get(dims)
        if shape is None:
            shape = (dims[:3], dims[3:])
            if len(shapes) < 64:
                shapes[dims] = shape
        d.launch_kernel(f or 0, shape[0], shape[1], c.sharedMemBytes, _stream(c.hStream, ptds), args, call,
                        programmatic)
        return 0
    return body


def _mem_pool_attribute(setter: bool) -> Decoder:
    """cuMemPoolGetAttribute / cuMemPoolSetAttribute ``(CUmemoryPool pool, CUmemPool_attribute attr, void *value)``:
    ``value`` points to a ``cuuint64_t`` for the byte-count attributes, to an ``int`` otherwise; NULL is the core's
    INVALID_VALUE."""
    def make(entry: Entry, ptds: bool) -> Callable[..., int]:
        def body(pool: int | None, attr: int, value: int | None) -> int:
            d = _drv()
            if not value:
                d.require_arg(False, "value", entry.name)
            addr = int(value or 0)
            ctype = ctypes.c_uint64 if attr in POOL_ATTR_U64 else ctypes.c_int
            if setter:
                d.mem_pool_set_attribute(pool or 0, attr, ctype.from_address(addr).value)
            else:
                ctype.from_address(addr).value = d.mem_pool_get_attribute(pool or 0, attr)
            return 0
        return body
    return make


def _instantiate_with_params(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuGraphInstantiateWithParams ``(CUgraphExec *phGraphExec, CUgraph hGraph, CUDA_GRAPH_INSTANTIATE_PARAMS
    *params)``: ``result_out`` and ``hErrNode_out`` written back, on failure too."""
    call = entry.name

    def body(out: Any, g: int | None, params: Any) -> int:
        d = _drv()
        d.require_arg(bool(out), "phGraphExec", call)
        d.require_arg(bool(params), "instantiateParams", call)
        p = C.CUDA_GRAPH_INSTANTIATE_PARAMS.from_address(params)
        try:
            x = d.graph_instantiate_with_params(g or 0, int(p.flags), _stream(p.hUploadStream, ptds))
        except DriverError as e:
            p.result_out = getattr(e, "instantiate_result", 1)
            p.hErrNode_out = getattr(e, "err_node", 0) or None
            raise
        p.result_out, p.hErrNode_out = 0, None
        put(ctypes.c_void_p, out, x)
        return 0
    return body


Kind = Callable[..., Callable[..., int]]

#: the native decoder kinds: what cannot be data (kernel parameter arrays decoded by the kernel's types, arrays
#: the driver hands out, tagged unions, values whose C type depends on another argument, results written back
#: on failure). A row names its kind (``Api.decoder``, with literal arguments); the kind is called as
#: ``KINDS[kind](entry, ptds, *arguments)`` and gives the adapter's body. Struct kinds: simcuda/faces/native/structs.py.
KINDS: dict[str, Kind] = {
    "capture_info": lambda entry, ptds, edge_data: _capture_info(edge_data)(entry, ptds),
    "kernel_launch": _launch_kernel,
    "kernel_launch_ex": _launch_kernel_ex,
    "instantiate_with_params": _instantiate_with_params,
    "pool_attribute": lambda entry, ptds, setter: _mem_pool_attribute(setter)(entry, ptds),
}
KINDS.update(_structs.KINDS)

#: decoders written for one declared C name, outside the table (consulted first, kept for merges): none are
#: left, and tests/native/test_native_generated.py fails while one is here. A new entry declares its decoder
#: kind in its row instead (``Api(..., decoder="kind(...)")``), or is data (the shape's native forms).
PARTICULAR: dict[str, Callable[[Entry, bool], Callable[..., int]]] = {}
PARTICULAR.update(_structs.DECODERS)  # the same, for struct parameters (simcuda/faces/native/structs.py)
KINDS.update(_misc.KINDS)  # issue 10: several devices, globals, param info, batched copies (faces/native/misc.py)


def install() -> int:
    """Load the simulated ``libcuda.so.1`` (:func:`simcuda.faces.native.load`) and register every adapter, in both
    slots, before NVIDIA's binding makes its first call (it caches the pointers then). Idempotent; returns
    the number of (entry, slot) pairs served. Raises :class:`simcuda.faces.native.NativeUnavailable` with the reason
    when the library cannot be used here."""
    from . import REPEAT, load, set_entry, set_launch_memo

    global _INSTALLED
    load()
    if _INSTALLED:
        return _INSTALLED
    n = 0
    for i in range(len(ENTRIES)):
        for ptds in (False, True):
            body = adapter(i, ptds)
            if body is None:
                continue
            full = flat_prototype(i)(body)
            repeat = getattr(body, "repeat", None)
            if repeat is not None and MEMO:  # the launch memo in front (libcuda.c; _launch_kernel)
                set_launch_memo(i, ptds, full, REPEAT(repeat))
            else:
                set_entry(i, ptds, full)
            n += 1
    _INSTALLED = n
    return n


_INSTALLED = 0

#: whether :func:`install` puts the library's launch memo in front of the adapters that have a ``repeat``
#: (``SIMCUDA_NATIVE_MEMO=0`` in the environment: never; the adapter then answers every call itself)
MEMO = os.environ.get("SIMCUDA_NATIVE_MEMO", "1") != "0"
