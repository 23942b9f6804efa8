"""The C-ABI adapters of the native route: one per (name, version) pair NVIDIA's binding requests.

Mirrors: the C entry points of ``libcuda.so.1`` as ``cuda/bindings/cydriver.pxd`` (cuda-bindings 13.5) declares
them, served by the simulated driver. NVIDIA's Cython layer calls an entry of the simulated library
(``simcuda/native/libcuda.c``), which jumps to the ctypes callback installed here for that (name, version)
pair; the callback decodes the C arguments, calls the core operation the entry table names, writes the outputs
through the out-pointers and returns the ``CUresult``.

* **Built, not written.** :func:`adapter` builds every adapter from two tables: the entry's row in
  :mod:`simcuda._core.api` (the core operation and which C parameters reach it, the same row the Python faces
  read) and its C declaration (:mod:`simcuda._generated.entry_table`, prototypes in
  :mod:`simcuda._generated.cydriver_ctypes`). A C argument is decoded by its declared type: a handle
  (``CUstream``...) is its address as an ``int`` (NULL is 0), integers and enums are their values. An output is
  written through its pointer; a NULL output pointer is the core's INVALID_VALUE (``require_arg``), checked
  before the operation runs.
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
import sys
import traceback
from collections.abc import Callable
from typing import Any

from .. import _state
from .._core.api import API, Api
from .._core.errors import DriverError
from .._core.objects import POOL_ATTR_U64
from .._generated import cydriver_ctypes as C
from .._generated.entry_table import ENTRIES, Entry

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


def _guard(name: str, fn: Callable[..., int]) -> Adapter:
    """Wrap an adapter body: a ``DriverError`` returns its code; any other exception is reported and 999."""
    def adapter(*args: Any) -> int:
        try:
            return fn(*args)
        except DriverError as e:
            return int(e.code)
        except BaseException:  # a simulator bug: loud, and never CUDA_SUCCESS
            print(f"simcuda: internal error in the native adapter of {name}:", file=sys.stderr)
            traceback.print_exc()
            return UNKNOWN
    adapter.__name__ = adapter.__qualname__ = f"native_{name}"
    return adapter


def row_of(entry: Entry) -> Api | None:
    """The table row an entry is served by: the row of its Python wrapper (the declared variant), or None for
    an older variant without one (``cuCtxCreate_v2``...), which needs a :data:`PARTICULAR` decoder."""
    return API.get(entry.python) if entry.python else None


def _build(entry: Entry, row: Api, ptds: bool) -> Callable[..., int]:
    call = row.call
    params = entry.params
    names = [n for _t, n, _d in params]
    streams = {j for j, (t, _n, _d) in enumerate(params) if t == "CUstream"} if ptds else set()
    spec = tuple((kw, names.index(p) if p is not None else -1, lit) for kw, p, lit in call.args)
    outs = tuple(names.index(o) for o in call.outs)
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
            args[outs[0]][0] = r
        elif outs:
            for j, v in zip(outs, r):
                args[j][0] = v
        return 0
    return body


def adapter(index: int, ptds: bool = False) -> Adapter | None:
    """The Python adapter of entry ``index`` of :data:`ENTRIES` (``ptds``: the per-thread-default-stream variant),
    or None when the simulator does not serve it (the library's 801 stub answers)."""
    entry = ENTRIES[index]
    particular = PARTICULAR.get(entry.declared)
    if particular is not None:
        return _guard(entry.name, particular(entry, ptds))
    row = row_of(entry)
    if row is None or row.particular:
        return None
    return _guard(entry.name, _build(entry, row, ptds))


def c_function(index: int, ptds: bool = False) -> Any | None:
    """The adapter of entry ``index`` as a C function pointer of its declared prototype (keep a reference)."""
    fn = adapter(index, ptds)
    return None if fn is None else C.PROTOTYPES[index](fn)


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
                ctypes.cast(p_str, ctypes.POINTER(ctypes.c_void_p))[0] = None
                raise
            ctypes.cast(p_str, ctypes.POINTER(ctypes.c_void_p))[0] = _static(s if isinstance(s, str) else s.decode())
            return 0
        return body
    return make


def _device_get_name(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuDeviceGetName ``(char *name, int len, CUdevice dev)``: the name, NUL-terminated, cut to ``len`` bytes."""
    def body(name: Any, length: int, dev: int) -> int:
        d = _drv()
        d.require_arg(bool(name), "name", entry.name)
        s = d.device_get_name(dev, length).encode()[:max(length - 1, 0)] + b"\0"
        ctypes.memmove(name, s, min(len(s), length))
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
            for ptr, v in ((status, st), (cid, i), (graph, g), (n, count)):
                if ptr:
                    ptr[0] = v
            for out, array, items in ((deps, arr, nodes), (eds, earr, edges)):
                if out:  # a pointer to a pointer: written as an address
                    ctypes.cast(out, ctypes.POINTER(ctypes.c_void_p))[0] = ctypes.addressof(array) if items else None
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
        fn = ctypes.cast(destroy, ctypes.c_void_p).value or 0
        out[0] = d.user_object_create(ptr or 0, fn, initial, flags)
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


#: the declared C name -> the decoder of an entry whose C arguments need more than a type's rule
PARTICULAR: dict[str, Decoder] = {
    "cuGetErrorName": _error_string("get_error_name"),
    "cuGetErrorString": _error_string("get_error_string"),
    "cuDeviceGetName": _device_get_name,
    "cuStreamGetCaptureInfo": _capture_info(True),
    "cuStreamGetCaptureInfo_v2": _capture_info(False),
    "cuUserObjectCreate": _user_object_create,
    "cuMemPoolGetAttribute": _mem_pool_attribute(False),
    "cuMemPoolSetAttribute": _mem_pool_attribute(True),
}


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
