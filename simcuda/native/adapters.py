"""The C-ABI adapters of the native route: one per (name, version) pair NVIDIA's binding requests.

Mirrors: the C entry points of ``libcuda.so.1`` as ``cuda/bindings/cydriver.pxd`` (cuda-bindings 13.5) declares
them, served by the simulated driver. NVIDIA's Cython layer calls an entry of the simulated library
(``simcuda/native/libcuda.c``), which jumps to the ctypes callback installed here for that (name, version)
pair; the callback decodes the C arguments, calls the core operation the entry table names, writes the outputs
through the out-pointers and returns the ``CUresult``.

* **Built where the table says it all.** :func:`adapter` builds an entry's adapter from two tables: its row in
  :mod:`simcuda._core.api` (the core operation and which C parameters reach it, the same row the Python faces
  read) and its C declaration (:mod:`simcuda._generated.entry_table`, prototypes in
  :mod:`simcuda._generated.cydriver_ctypes`). A C argument is decoded by its declared type: a handle
  (``CUstream``...) is its address as an ``int`` (NULL is 0), integers and enums are their values. An output is
  written through its pointer; a NULL output pointer is the core's INVALID_VALUE (``require_arg``), checked
  before the operation runs. Rows whose call has array kinds (``name[count]``: a list read from a C array, or
  an output array with its in/out count) or in/out pointers (``*name``) are built by :func:`_build_arrays`,
  also those that stay particular for the Python faces (``op(...) -> ... (...)``, see :mod:`simcuda._core.api`).
  Every parameter that is a pointer (to data or a function) arrives as an ``int`` address (:func:`flat_prototype`:
  the same C ABI, without a ctypes pointer object per call); outputs are written with :func:`put`.
* **Particular entries** (struct parameters, arrays the driver hands out, strings) have a decoder in
  :data:`PARTICULAR`, keyed by the declared C name: what is particular to the C ABI, no capture rule (those are
  the core's). An entry with neither a complete row nor a decoder is left to the library's not-simulated
  stub, which answers 801 and counts the call.
* **Per-thread default stream.** The binding asks for the per-thread variants (flag 2 of
  ``cuGetProcAddress_v2``) when ``CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM`` is set; those adapters read a
  NULL ``CUstream`` as ``CU_STREAM_PER_THREAD`` (0x2), as the ``_ptsz``/``_ptds`` entries of the real driver do.
* **Errors.** A core ``DriverError`` returns its code. Anything else is a simulator bug: the traceback goes to
  stderr and the adapter returns 999 (CUDA_ERROR_UNKNOWN), never 0 (NATIVE.md: a ctypes callback that raises
  would otherwise return success).
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

from .. import _state
from .._core.api import API, Api
from .._core.errors import DriverError
from .._core.objects import POOL_ATTR_U64, Function
from .._generated import cydriver_ctypes as C
from .._generated.entry_table import ENTRIES, Entry
from . import kernel_args as _kargs
from . import structs as _structs

CU_STREAM_PER_THREAD = 2
UNKNOWN = 999

#: C types that are handles (pointers to opaque structs): the argument is an address, NULL = 0
_HANDLE_TYPES = frozenset(n for n in dir(C) if getattr(C, n) is ctypes.c_void_p and n.startswith("CU"))

#: arrays handed out to C, kept alive until the same thread asks the same entry again
_KEPT: dict[tuple[int, str], Any] = {}

Adapter = Callable[..., int]


def _drv() -> Any:
    """The current simulated driver (the one the Python faces use too: ``simcuda.use``/``reset`` switch both)."""
    d = _state._current
    if d is None or d.per_thread_mode is None:
        d = _state.current()
        d._per_thread_mode()
    return d


LAUNCH_FAILED = 719  # CUDA_ERROR_LAUNCH_FAILED: what a kernel that faults gives


def _bug(name: str) -> int:
    """The answer for an exception other than a ``DriverError`` (the one being handled): a Python kernel that
    raised (the core marks it) is the kernel's fault: its traceback on stderr and CUDA_ERROR_LAUNCH_FAILED
    (719), as a kernel that faults on a GPU [I: the Python faces let the exception itself through, which a C
    caller cannot receive]; Ctrl-C inside it is handed back to the main thread (``_thread.interrupt_main``),
    so it still stops the program. Anything else is a simulator bug: reported as one, and 999 (UNKNOWN)."""
    import _thread
    e = sys.exc_info()[1]
    kernel = getattr(e, "__simcuda_kernel__", None)
    if isinstance(e, KeyboardInterrupt):
        _thread.interrupt_main()
        return LAUNCH_FAILED if kernel is not None else UNKNOWN
    if kernel is not None:
        print(f"simcuda: the Python kernel {kernel!r} raised during {name} (the call answers "
              "CUDA_ERROR_LAUNCH_FAILED on the native route):", file=sys.stderr)
        traceback.print_exc()
        return LAUNCH_FAILED
    print(f"simcuda: internal error in the native adapter of {name}:", file=sys.stderr)
    traceback.print_exc()
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
    """The table row an entry is served by: the row of its Python wrapper (the declared variant), or None for
    an older variant without one (``cuCtxCreate_v2``...), which needs a :data:`PARTICULAR` decoder."""
    return API.get(entry.python) if entry.python else None


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
    data means all-zero edge data)."""
    if not addr:
        if fields:
            return [(0,) * len(fields)] * n
        return [0] if n else []
    arr = (t * n).from_address(addr)
    if fields:
        return [tuple(getattr(x, f) for f in fields) for x in arr]
    return [x or 0 for x in arr]


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
        for kw, j, lit, how in ins:
            if how is None:
                v = lit
            elif how == "array":
                t, fields, c = lit
                v = _read_array(t, fields, args[j], args[c] or 0)
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


def adapter(index: int, ptds: bool = False) -> Adapter | None:
    """The Python adapter of entry ``index`` of :data:`ENTRIES` (``ptds``: the per-thread-default-stream variant),
    or None when the simulator does not serve it (the library's 801 stub answers)."""
    entry = ENTRIES[index]
    particular = PARTICULAR.get(entry.declared)
    if particular is not None:
        body = particular(entry, ptds)
        return body if getattr(body, "guarded", False) else _guard(entry.name, body)
    row = row_of(entry)
    if row is None or not row.has_call:
        return None
    call = row.call
    build = _build_arrays if call.counts or call.reads else _build
    return _guard(entry.name, build(entry, row, ptds))


def c_function(index: int, ptds: bool = False) -> Any | None:
    """The adapter of entry ``index`` as a C function pointer of its declared prototype (keep a reference)."""
    fn = adapter(index, ptds)
    return None if fn is None else flat_prototype(index)(fn)


# ================================================================================ particular entries
Decoder = Callable[[Entry, bool], Callable[..., int]]

_STATIC_STRINGS: dict[bytes, ctypes.Array[ctypes.c_char]] = {}  # C strings the driver hands out, kept forever


def _static(s: str) -> int:
    b = s.encode()
    buf = _STATIC_STRINGS.get(b)
    if buf is None:
        buf = _STATIC_STRINGS[b] = ctypes.create_string_buffer(b)
    return ctypes.addressof(buf)


def _error_string(which: str) -> Decoder:
    """cuGetErrorName / cuGetErrorString: ``(CUresult error, const char **pStr)``; the string is static, as the
    driver's; an unknown code is INVALID_VALUE with ``*pStr`` set to NULL."""
    def make(entry: Entry, ptds: bool) -> Callable[..., int]:
        def body(error: int, p_str: Any) -> int:
            d = _drv()
            if not p_str:
                d.require_arg(False, "pStr", entry.name)
            try:
                s = getattr(d, which)(error)
            except DriverError:
                put(ctypes.c_void_p, p_str, None)
                raise
            put(ctypes.c_void_p, p_str, _static(s if isinstance(s, str) else s.decode()))
            return 0
        return body
    return make


def _get_name(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuFuncGetName / cuKernelGetName ``(const char **name, CUfunction|CUkernel hfunc)``: the kernel's name as a
    static string (kept for the process, as the driver's stays valid while the module is loaded)."""
    def body(out: int | None, h: int | None) -> int:
        d = _drv()
        d.require_arg(bool(out), "name", entry.name)
        put(ctypes.c_void_p, out or 0, _static(d.func_get_name(h or 0)))
        return 0
    return body


def _compute_capability(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuDeviceComputeCapability ``(int *major, int *minor, CUdevice dev)``: the two attributes the face reads
    (CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75, _MINOR 76), written once both are known."""
    def body(major: int | None, minor: int | None, dev: int) -> int:
        d = _drv()
        d.require_arg(bool(major), "major", entry.name)
        d.require_arg(bool(minor), "minor", entry.name)
        a, b = d.device_get_attribute(75, dev), d.device_get_attribute(76, dev)
        put(ctypes.c_int, major or 0, a)
        put(ctypes.c_int, minor or 0, b)
        return 0
    return body


def _device_get_name(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuDeviceGetName ``(char *name, int len, CUdevice dev)``: the name, NUL-terminated, cut to ``len`` bytes."""
    def body(name: Any, length: int, dev: int) -> int:
        d = _drv()
        d.require_arg(bool(name), "name", entry.name)
        s = d.device_get_name(dev, length).encode()[:max(length - 1, 0)] + b"\0"
        ctypes.memmove(name, s, min(len(s), length))
        return 0
    return body


def _device_get_uuid(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuDeviceGetUuid ``(CUuuid *uuid, CUdevice dev)``: the 16 bytes written to ``uuid``."""
    def body(uuid: int | None, dev: int) -> int:
        d = _drv()
        d.require_arg(bool(uuid), "uuid", entry.name)
        ctypes.memmove(uuid or 0, d.device_get_uuid(dev), 16)
        return 0
    return body


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


def _stream(h: int | None, ptds: bool) -> int:
    return h or (CU_STREAM_PER_THREAD if ptds else 0)


def _module_load(method: str, image_at: int, call_name: str | None = None) -> Decoder:
    """cuModuleLoadData / cuModuleLoadDataEx / cuModuleLoadFatBinary / cuLibraryLoadData: the image is the
    ``void*`` at parameter ``image_at`` (text, or a CUBIN/fatbin read to its header's size by the core); the
    JIT and library options are accepted unread, as the Python faces accept them."""
    def make(entry: Entry, ptds: bool) -> Callable[..., int]:
        call = call_name or entry.name

        def body(out: Any, *args: Any) -> int:
            d = _drv()
            d.require_arg(bool(out), "the handle output", call)
            image = args[image_at - 1]
            put(ctypes.c_void_p, out, getattr(d, method)(image or 0, call))
            return 0
        return body
    return make


def _load_from_file(method: str) -> Decoder:
    """cuModuleLoad ``(CUmodule *module, const char *fname)`` and cuLibraryLoadFromFile ``(CUlibrary *library,
    const char *fileName, <JIT and library options>)``: the file's bytes (the core's ``read_image_file``), then
    the load the ``Data`` entries make; the options are accepted unread, as the Python faces accept them."""
    def make(entry: Entry, ptds: bool) -> Callable[..., int]:
        call, out_name, file_name = entry.name, entry.params[0][1], entry.params[1][1]

        def body(out: int | None, fname: bytes | None, *_options: Any) -> int:
            d = _drv()
            d.require_arg(bool(out), out_name, call)
            d.require_arg(fname is not None, file_name, call)
            data = d.read_image_file(os.fsdecode(fname or b""), call)
            put(ctypes.c_void_p, out or 0, getattr(d, method)(data, call))
            return 0
        return body
    return make


def _get_function(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuModuleGetFunction / cuLibraryGetKernel ``(out, module or library, const char *name)``."""
    def body(out: Any, h: int | None, name: bytes | None) -> int:
        d = _drv()
        d.require_arg(bool(out), "the function output", entry.name)
        fname = None if name is None else name.decode("utf-8", "replace")
        put(ctypes.c_void_p, out, d.module_get_function(h or 0, fname))
        return 0
    return body


def _kernel_get_function(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuKernelGetFunction ``(CUfunction *pFunc, CUkernel kernel)``: a library's kernel is its function."""
    def body(out: Any, k: int | None) -> int:
        d = _drv()
        d.require_arg(bool(out), "pFunc", entry.name)
        d.func_get_name(k or 0)  # the kernel handle must be valid
        put(ctypes.c_void_p, out, k)
        return 0
    return body


#: kernel function handle -> (its Function, its reader of void** arrays): :func:`_packed_args`
_READERS: dict[int, tuple[Function, _kargs.Reader]] = {}


def _packed_args(d: Any, hf: int, kp: int) -> list[Any]:
    """The arguments of the ``void**`` array at ``kp`` (not NULL) that NVIDIA's binding packed for function
    ``hf``: the values ``d.packed_kernel_args`` gives, read by the function's reader
    (:mod:`simcuda.native.kernel_args`, made at its first launch and kept in :data:`_READERS`, at most 256
    functions), or by ``packed_kernel_args`` itself for no function, a kernel with no parameters or a NULL
    argument pointer. ``[]`` when ``hf`` is no function (the launch then reports it)."""
    c = _READERS.get(hf)
    fn = d._objs.get(hf) if hf else None  # the core's handle table, read as packed_kernel_args reads it
    if fn is not None and fn.__class__ is Function and fn.param_types:
        if c is None or c[0] is not fn:
            if len(_READERS) >= 256:
                _READERS.clear()
            c = _READERS[hf] = (fn, _kargs.reader(fn.param_types))
        args = c[1](kp)
        if args is not None:
            return args
    return d.packed_kernel_args(hf, kp) or []


def _launch_kernel(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuLaunchKernel: the ``void**`` kernelParams decoded by the kernel's parameter types (the core reads the
    image's), ``extra`` by the core's rule.

    The launch path (issue 9: the native route costs at most the binding's own cost plus the Python face's):
    the array is read by the function's own reader (:mod:`simcuda.native.kernel_args`: the values
    ``packed_kernel_args`` gives, read with one ``unpack_from`` per argument, and the list of the last launch
    again when the bits are the same, so the core reuses its checked parameters as it does for the face), and
    the launch shape is one pair of tuples per shape, so the launch's identity checks hold. Anything else (no
    function, a kernel with no parameters, a NULL argument pointer) is read by ``packed_kernel_args``."""
    call = entry.name
    shapes: dict[tuple[int, ...], tuple[tuple[int, int, int], tuple[int, int, int]]] = {}  # one pair per shape
    readers = _READERS
    default_stream = CU_STREAM_PER_THREAD if ptds else 0

    def body(f: int | None, gx: int, gy: int, gz: int, bx: int, by: int, bz: int, shmem: int, h: int | None,
             kp: int | None, extra: int | None) -> int:
        try:  # its own guard (the hot path: one frame less than _guard's)
            d = _state._current
            if d is None or d.per_thread_mode is None:
                d = _drv()
            if extra:  # the core's rule for a non-NULL extra (with kernelParams too: 1; alone: 801)
                d.check_kernel_extra(bool(kp), extra, call)
            hf = f or 0
            if kp:  # the binding packed the array: read as the driver does
                # (the core's handle table read directly: this is the launch path)
                c = readers.get(hf)
                args = c[1](kp) if c is not None and c[0] is d._objs.get(hf) else None
                if args is None:
                    args = _packed_args(d, hf, kp)
            else:
                args = []
            dims = (gx, gy, gz, bx, by, bz)
            shape = shapes.get(dims)
            if shape is None:  # the same tuple objects again: the launch reuses its checked parameters
                shape = ((gx, gy, gz), (bx, by, bz))
                if len(shapes) < 64:
                    shapes[dims] = shape
            d.launch_kernel_fast(hf, shape[0], shape[1], shmem, h or default_stream, args)
            return 0
        except DriverError as e:
            return int(e.code)
        except BaseException:
            return _bug(call)
    body.guarded = True  # type: ignore[attr-defined]
    return body


def _launch_kernel_ex(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuLaunchKernelEx ``(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra)``."""
    call = entry.name

    def body(config: Any, f: int | None, kp: Any, extra: Any) -> int:
        d = _drv()
        d.require_arg(bool(config), "config", call)
        c = C.CUlaunchConfig.from_address(config)
        ids = [c.attrs[k].id for k in range(c.numAttrs)] if c.numAttrs and c.attrs else []
        d.check_launch_attributes(ids, call)
        kpa = kp or 0
        d.check_kernel_extra(bool(kpa), extra or 0, call)
        args = _packed_args(d, f or 0, kpa) if kpa else []
        d.launch_kernel(f or 0, (c.gridDimX, c.gridDimY, c.gridDimZ), (c.blockDimX, c.blockDimY, c.blockDimZ),
                        c.sharedMemBytes, _stream(c.hStream, ptds), args, call)
        return 0
    return body


def _copy(src: str, dst: str, stream_at: int | None) -> Decoder:
    """cuMemcpy{HtoD,DtoH,DtoD}[Async] and cuMemcpy[Async] ``(dst, src, ByteCount[, hStream])``: the same
    copy record the Python faces make (``HOST`` sides as addresses, which the core checks)."""
    from .._core.memory import DEVICE, HOST, CopyParams
    kinds = {"H": HOST, "D": DEVICE}

    def make(entry: Entry, ptds: bool) -> Callable[..., int]:
        call = entry.name

        def body(dst_p: Any, src_p: Any, n: int, *rest: Any) -> int:
            d = _drv()
            h = None if stream_at is None else _stream(rest[0], ptds)
            a, b = int(dst_p or 0), int(src_p or 0)
            if src == "U":  # unified addressing (cuMemcpy/cuMemcpyAsync): the core decides each side
                d.memcpy_unified(a, b, n, h, call)
            else:
                d.memcpy(CopyParams(kinds[src], b, kinds[dst], a, n), h, call)
            return 0
        return body
    return make


def _user_object_create(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuUserObjectCreate ``(CUuserObject *object_out, void *ptr, CUhostFn destroy, unsigned int initialRefcount,
    unsigned int flags)``: the C function pointer reaches the core as its address (NULL is 0), which the core calls
    through ctypes with ``ptr`` when the last reference goes."""
    def body(out: Any, ptr: int | None, destroy: Any, initial: int, flags: int) -> int:
        d = _drv()
        if not out:
            d.require_arg(False, "object_out", entry.name)
        put(ctypes.c_void_p, out, d.user_object_create(ptr or 0, destroy or 0, initial, flags))
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


def _memset(esize: int, asynchronous: bool) -> Decoder:
    """cuMemsetD8/16/32[Async] ``(CUdeviceptr dstDevice, value, size_t N[, hStream])``."""
    from .._core.memory import MemsetParams

    def make(entry: Entry, ptds: bool) -> Callable[..., int]:
        call = entry.name

        def body(dst: int, value: int, n: int, *rest: Any) -> int:
            d = _drv()
            d.memset(MemsetParams(dst, value, esize, n), _stream(rest[0], ptds) if asynchronous else None, call)
            return 0
        return body
    return make


def _memset2d(esize: int, asynchronous: bool) -> Decoder:
    """cuMemsetD2D8/16/32[Async] ``(CUdeviceptr dstDevice, size_t dstPitch, value, size_t Width, size_t Height[,
    hStream])``: the face's ``_set`` with a width, height and pitch."""
    from .._core.memory import MemsetParams

    def make(entry: Entry, ptds: bool) -> Callable[..., int]:
        call = entry.name

        def body(dst: int, pitch: int, value: int, width: int, height: int, *rest: Any) -> int:
            d = _drv()
            p = MemsetParams(dst, value, esize, width, height, pitch)
            d.memset(p, _stream(rest[0], ptds) if asynchronous else None, call)
            return 0
        return body
    return make


def _stream_value(op: int) -> Decoder:
    """cuStream{Wait,Write}Value{32,64} ``(CUstream stream, CUdeviceptr addr, cuuint32_t|cuuint64_t value,
    unsigned int flags)``: one memory operation of type ``op`` (CUstreamBatchMemOpType), as the face's
    ``_stream_value`` passes it to the core's ``stream_batch_mem_op``."""
    def make(entry: Entry, ptds: bool) -> Callable[..., int]:
        call = entry.name

        def body(h: int | None, addr: int, value: int, flags: int) -> int:
            _drv().stream_batch_mem_op(_stream(h, ptds), [(op, addr or 0, value, flags)], 0, call)
            return 0
        return body
    return make


def _launch_cooperative(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuLaunchCooperativeKernel ``(CUfunction f, grid, block, unsigned int sharedMemBytes, CUstream hStream,
    void **kernelParams)``: the array the binding packed, read as cuLaunchKernelEx reads it, then the core's
    ``launch_kernel`` under this entry's name."""
    call = entry.name

    def body(f: int | None, gx: int, gy: int, gz: int, bx: int, by: int, bz: int, shmem: int, h: int | None,
             kp: int | None) -> int:
        d = _drv()
        args = d.packed_kernel_args(f or 0, kp or 0) or []
        d.launch_kernel(f or 0, (gx, gy, gz), (bx, by, bz), shmem, _stream(h, ptds), args, call)
        return 0
    return body


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


#: the declared C name -> the decoder of an entry whose C arguments need more than a type's rule
PARTICULAR: dict[str, Decoder] = {
    "cuGetErrorName": _error_string("get_error_name"),
    "cuGetErrorString": _error_string("get_error_string"),
    "cuDeviceGetName": _device_get_name,
    "cuDeviceGetUuid": _device_get_uuid,
    "cuStreamGetCaptureInfo": _capture_info(True),
    "cuStreamGetCaptureInfo_v2": _capture_info(False),
    "cuModuleLoadData": _module_load("module_load_data", 1),
    "cuModuleLoadDataEx": _module_load("module_load_data", 1),
    "cuModuleLoadFatBinary": _module_load("module_load_data", 1),
    "cuLibraryLoadData": _module_load("library_load_data", 1),
    "cuModuleGetFunction": _get_function,
    "cuLibraryGetKernel": _get_function,
    "cuKernelGetFunction": _kernel_get_function,
    "cuLaunchKernel": _launch_kernel,
    "cuLaunchKernelEx": _launch_kernel_ex,
    "cuMemcpyHtoD": _copy("H", "D", None),
    "cuMemcpyDtoH": _copy("D", "H", None),
    "cuMemcpyDtoD": _copy("D", "D", None),
    "cuMemcpyHtoDAsync": _copy("H", "D", 3),
    "cuMemcpyDtoHAsync": _copy("D", "H", 3),
    "cuMemcpyDtoDAsync": _copy("D", "D", 3),
    "cuMemcpy": _copy("U", "U", None),
    "cuMemcpyAsync": _copy("U", "U", 3),
    "cuMemsetD8": _memset(1, False),
    "cuMemsetD16": _memset(2, False),
    "cuMemsetD32": _memset(4, False),
    "cuMemsetD8Async": _memset(1, True),
    "cuMemsetD16Async": _memset(2, True),
    "cuMemsetD32Async": _memset(4, True),
    "cuMemsetD2D8": _memset2d(1, False),
    "cuMemsetD2D16": _memset2d(2, False),
    "cuMemsetD2D32": _memset2d(4, False),
    "cuMemsetD2D8Async": _memset2d(1, True),
    "cuMemsetD2D16Async": _memset2d(2, True),
    "cuMemsetD2D32Async": _memset2d(4, True),
    "cuFuncGetName": _get_name,
    "cuKernelGetName": _get_name,
    "cuDeviceComputeCapability": _compute_capability,
    "cuModuleLoad": _load_from_file("module_load_data"),
    "cuLibraryLoadFromFile": _load_from_file("library_load_data"),
    "cuStreamWaitValue32": _stream_value(1),
    "cuStreamWriteValue32": _stream_value(2),
    "cuStreamWaitValue64": _stream_value(4),
    "cuStreamWriteValue64": _stream_value(5),
    "cuLaunchCooperativeKernel": _launch_cooperative,
    "cuGraphInstantiateWithParams": _instantiate_with_params,
    "cuUserObjectCreate": _user_object_create,
    "cuMemPoolGetAttribute": _mem_pool_attribute(False),
    "cuMemPoolSetAttribute": _mem_pool_attribute(True),
}
PARTICULAR.update(_structs.DECODERS)  # struct parameters (simcuda/native/structs.py)


def install() -> int:
    """Load the simulated ``libcuda.so.1`` (:func:`simcuda.native.load`) and register every adapter, in both
    slots, before NVIDIA's binding makes its first call (it caches the pointers then). Idempotent; returns
    the number of (entry, slot) pairs served. Raises :class:`simcuda.native.NativeUnavailable` with the reason
    when the library cannot be used here."""
    from . import load, set_entry

    global _INSTALLED
    load()
    if _INSTALLED:
        return _INSTALLED
    n = 0
    for i in range(len(ENTRIES)):
        for ptds in (False, True):
            f = c_function(i, ptds)
            if f is not None:
                set_entry(i, ptds, f)
                n += 1
    _INSTALLED = n
    return n


_INSTALLED = 0
