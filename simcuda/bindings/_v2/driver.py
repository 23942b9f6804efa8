"""Simulated ``cuda.bindings._v2.driver`` (cuda-bindings 13.5.0): snake_case functions that raise.

Mirrors: ``cuda.bindings._v2.driver`` of cuda-bindings 13.5.0 (spec section 11.2).

* Handles and addresses are plain ``int`` (``intptr_t``); a wrapper object such as
  ``driver.CUstream(...)`` raises ``TypeError: an integer is required``, as the real module does.
* Success returns the single output, a tuple when there are several, or ``None``. Enum outputs are
  plain ``int``.
* Any other code raises: the ``DriverError`` subclass for that code (``NotReadyError`` for 600
  included), ``args[0] == 'ERROR_STREAM_CAPTURE_UNMATCHED (903)'``, ``.status`` the ``int`` code, and
  pickling through ``__reduce__``. An unknown code gives a plain ``DriverError('Unknown error (N)')``.
  The simulator adds ``.why`` (the core's explanation); the real classes have no such attribute.
* Struct helpers (``StreamCigCaptureParams``, ``StreamCigParam``, ``CtxCigParam``,
  ``CtxCreateParams``, ``GraphEdgeData``) hold real memory and expose ``.ptr`` for the ``intptr_t``
  parameters, so addresses made by other code work the same way.
* Every function of the real module exists; the ones not simulated raise ``NotSupportedError``.

This module only translates arguments and errors; every rule lives in the core
(:class:`simcuda.Driver`), as for the tuple-returning face.
"""
from __future__ import annotations

import array as _array
import ctypes as _ct
import functools as _functools
import re as _re
import threading as _threading
import typing as _typing
from collections.abc import Callable as _Callable
from typing import Any, ClassVar
from typing import NoReturn as _NoReturn
from typing import ParamSpec as _ParamSpec
from typing import TypeVar as _TypeVar

from ... import _state as _st
from ..._core.api import API as _API
from ..._core.errors import DriverError as _CoreError
from ..._core.memory import DEVICE as _DEV
from ..._core.memory import HOST as _HOST
from ..._core.memory import CopyParams as _CopyParams
from ..._core.memory import MemsetParams as _MemsetParams
from ..._core.objects import POOL_ATTR_U64 as _POOL_ATTR_U64
from ..._core.objects import EdgeDataArg as _EdgeDataArg
from ..._core.rows import Api as _Api
from ..._generated import cydriver_ctypes as _C
from ..._generated import v2_enums as _E2
from ..._generated.driver_enums import CUresult as _CUresult
from ..._generated.driver_outputs import V2_FUNCTIONS as _V2_FUNCTIONS
from .. import _driver_types as _T
from .. import _kernel_params as _KP
from .._driver_types import buffer_address as _buffer_address

globals().update(_E2.__all_enums__)
globals().update(_E2.__int_constants__)

if _typing.TYPE_CHECKING:
    from ..._core.driver import Driver as _Driver
    from ..._core.objects import Event as _Event

    # The enums, constants, exception classes and not-simulated stubs of the real module are put into this
    # namespace at import time (globals().update and the loops below), which the checker cannot follow: to
    # it, a name it does not find here is Any.
    def __getattr__(name: str) -> Any: ...

_P = _ParamSpec("_P")
_R = _TypeVar("_R")


# ================================================================================ exceptions
class DriverError(Exception):
    """Base of every ``_v2`` driver exception (derives directly from ``Exception``).

    ``DriverError(status)``: ``.status`` is the ``int`` code; ``args[0]`` is
    ``'<CUresult name without CUDA_> (<code>)'``, or ``'Unknown error (N)'`` for a code that is not a
    ``CUresult``. Pickles as ``(cls, (status,))``.
    """

    why: str  # simcuda addition: the core's explanation (set when the face raises it)
    result_info: GraphExecUpdateResultInfo_v1  # graph_exec_update only (simcuda addition)

    def __init__(self, status: Any) -> None:
        self.status = status
        try:
            msg = f"{_CUresult(int(status)).name[len('CUDA_'):]} ({int(status)})"
        except (ValueError, TypeError):
            msg = f"Unknown error ({status})"
        super().__init__(msg)

    def __reduce__(self) -> tuple[type[DriverError], tuple[Any]]:
        return (type(self), (self.status,))


_BY_CODE: dict[int, type[DriverError]] = {}
for _name, _code in _E2.V2_EXCEPTIONS:
    if _code is None:
        continue
    _cls = type(_name, (DriverError,), {
        "__doc__": f"Raised for ``{_CUresult(_code).name}`` ({_code}).", "__module__": __name__})
    globals()[_name] = _cls
    _BY_CODE[_code] = _cls
del _name, _code, _cls


def _raise(e: _CoreError) -> _NoReturn:
    code = int(e.code)
    err = _BY_CODE.get(code, DriverError)(code)
    err.why = e.why  # simcuda addition: the core's explanation
    raise err from None


# ================================================================================ plumbing
_drv: _Callable[[], _Driver] = _st.face_driver  # the current driver (spec 6.1): the one definition


_CALL = _threading.local()  # the driver API name of the face call in progress (for errors the face decides)


def _api_name(name: str) -> str:
    """``mem_free_v2`` -> ``cuMemFree_v2``: the driver API name of a ``_v2`` function."""
    base, _, ver = name.rpartition("_v")
    if not (base and ver.isdigit()):
        base, ver = name, ""
    return "cu" + "".join(w[:1].upper() + w[1:] for w in base.split("_")) + (f"_v{ver}" if ver else "")


def _snake(c_name: str) -> str:
    """``hStream`` -> ``h_stream``: a C parameter name as the ``_v2`` signatures spell it."""
    return _re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", c_name).lower()


def _row(name: str) -> _Api | None:
    """The table row (:mod:`simcuda._core.api`) of a ``_v2`` function: ``stream_begin_capture_v2`` is the entry
    ``cuStreamBeginCapture`` (the suffix names the C symbol's ABI version, not another entry)."""
    api = _api_name(name)
    return (_API.get(api) or _API.get(api.rpartition("_v")[0])
            or _API_BY_LOWER.get(api.lower()))  # acronyms: device_get_p2p_attribute is cuDeviceGetP2PAttribute


#: the rows by lower-case entry name (``cudevicegetpcibusid``), for the names whose acronyms the snake case hides
_API_BY_LOWER = {n.lower(): r for n, r in _API.items()}


def _ip_arg(x: object) -> int:
    """``intptr_t`` as Cython converts it: an ``int`` only (``__int__`` and ``__index__`` objects raise
    ``TypeError: an integer is required``), ``OverflowError`` outside the C ``ssize_t`` range."""
    if type(x) is not int:
        if not isinstance(x, int):
            raise TypeError("an integer is required")
        x = int(x)
    if not -(1 << 63) <= x < 1 << 63:
        raise OverflowError("Python int too large to convert to C ssize_t")
    return x


#: C parameter type of the real signatures -> the conversion the real wrapper applies first
_CONVERT = {
    "intptr_t": _ip_arg,
    "int": lambda x: _T.c_int(x, 32, "int"),
    "unsigned int": lambda x: _T.c_uint(x, 32, "unsigned int"),
    "unsigned char": lambda x: _T.c_uint(x, 8, "unsigned char"),
    "size_t": lambda x: _T.c_uint(x, 64, "size_t"),
    "uint64_t": lambda x: _T.c_uint(x, 64, "uint64_t"),
    "unsigned long long": lambda x: _T.c_uint(x, 64, "unsigned PY_LONG_LONG"),
}


def _converters(name: str) -> list[tuple[str, _Callable[[Any], Any] | None]]:
    """``(parameter name, conversion or None)`` in order, from the real signature of ``name``."""
    sig = _V2_FUNCTIONS.get(name, "")
    inner = sig[sig.find("(") + 1:sig.rfind(")")] if "(" in sig else ""
    out = []
    for part in inner.split(","):
        words = part.split()
        if not words:
            continue
        out.append((words[-1], _CONVERT.get(" ".join(words[:-1]))))
    return out


def _face(fn: _Callable[_P, _R]) -> _Callable[_P, _R]:
    """Convert the typed arguments as the real wrapper does (all of them, in order, before the body runs);
    raise the typed exception for a core ``DriverError``; prefix the real signature to the docstring."""
    api = _api_name(fn.__name__)
    convs = _converters(fn.__name__)
    index = {n: c for n, c in convs}
    sig = _V2_FUNCTIONS.get(fn.__name__, "")
    required, total = _T.arity(sig.split(" -> ")[0]) if sig else (0, 1 << 30)

    @_functools.wraps(fn)
    def face(*args: Any, **kwargs: Any) -> Any:  # fn's signature, which the arguments are converted for
        if not kwargs and not required <= len(args) <= total:  # the wrapper counts before it converts
            raise _T.arity_error(fn.__name__, required, total, len(args))
        _CALL.name = api
        if convs:
            args = tuple(c(a) if c is not None else a for (_, c), a in zip(convs, args)) + args[len(convs):]
            for k, v in kwargs.items():
                c = index.get(k)
                if c is not None:
                    kwargs[k] = c(v)
        try:
            return fn(*args, **kwargs)
        except _CoreError as e:
            _raise(e)
    face.__doc__ = (f"Mirrors ``{_V2_FUNCTIONS.get(fn.__name__, fn.__name__)}`` of cuda.bindings._v2.driver 13.5; "
                    "raises the ``DriverError`` subclass of any non-success code.\n\n" + _description(fn))
    return face


def _description(fn: _Callable[..., Any]) -> str:
    """What is particular to this face (``fn``'s own docstring), then the entry's description from the table
    (:mod:`simcuda._core.api`), the one copy of that prose."""
    row = _row(fn.__name__)
    own = (fn.__doc__ or "").strip()
    if row is None:
        return own
    return f"{own}\n\n{row.doc}" if own else row.doc


def _ip(x: Any) -> int:
    """An ``intptr_t``/``uint64_t`` argument: an ``int`` (wrapper objects raise, as in the real module)."""
    if type(x) is int:
        return x
    if isinstance(x, int):
        return int(x)
    raise TypeError("an integer is required")


def _u(x: Any) -> int:
    """An unsigned C integer (``_face`` has already converted the typed parameters; this serves values taken
    from structs and the like): ``__int__`` objects accepted as Cython does, negative ones refused."""
    return x if type(x) is int and x >= 0 else _T.c_uint(x, 64, "unsigned long long")


def _readable(addr: int, nbytes: int, what: str) -> int:
    """``addr`` after the core has checked that ``nbytes`` there are readable memory of this process (the face
    reads them; INVALID_VALUE otherwise, for the call in progress: :meth:`simcuda.Driver.check_host_range`)."""
    return _drv().check_host_range(addr, nbytes, what, getattr(_CALL, "name", "cu"))


def _i64(values: list[int]) -> memoryview:
    return memoryview(_array.array("q", values))


def _np() -> Any:  # the numpy module
    import numpy  # optional dependency: only the functions that return arrays need it
    return numpy


def _edge_dtype() -> Any:
    np = _np()
    return np.dtype({"names": ["from_port", "to_port", "type", "reserved"],
                     "formats": ["u1", "u1", "u1", ("u1", (5,))]})


# ================================================================================ struct helpers
class _CStruct:
    """A struct helper over real memory: snake_case fields, ``.ptr`` for ``intptr_t`` parameters."""

    _layout: Any = None
    _names: ClassVar[dict[str, str]] = {}  # snake_case field -> C field

    def __init__(self) -> None:
        object.__setattr__(self, "_c", self._layout())

    @property
    def ptr(self) -> int:
        """Address of the C struct."""
        return _ct.addressof(self._c)

    @classmethod
    def from_ptr(cls, ptr: int) -> _CStruct:
        """A helper viewing the struct at ``ptr`` (no copy)."""
        o = cls.__new__(cls)
        object.__setattr__(o, "_c", cls._layout.from_address(_ip(ptr)))
        return o

    def __getattr__(self, name: str) -> Any:
        c = self._names.get(name)
        if c is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        v = getattr(object.__getattribute__(self, "_c"), c)
        return 0 if v is None else v

    def __setattr__(self, name: str, value: Any) -> None:
        c = self._names.get(name)
        if c is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        setattr(self._c, c, _ip(value))


_FUNC_PTR: type = _ct.CFUNCTYPE(None).__bases__[0]  # the base of every ctypes function-pointer type


def _address_layout(generated: Any, name: str) -> Any:
    """The generated ctypes layout of a driver struct (:mod:`simcuda._generated.cydriver_ctypes`, the one the
    native route reads) with each pointer field (a struct pointer, a function pointer) read and written as an
    ``int`` address (``c_void_p``), as this face's helpers take them: the same field names, offsets and size."""
    fields = [(f, _ct.c_void_p if isinstance(t, type) and issubclass(t, (_ct._Pointer, _FUNC_PTR)) else t)
              for f, t in generated._fields_]
    layout = type(name, (_ct.Structure,), {"_fields_": fields, "__doc__": f"``{generated.__name__}`` by address."})
    assert _ct.sizeof(layout) == _ct.sizeof(generated), name
    return layout


_CStreamCigParam = _address_layout(_C.CUstreamCigParam, "_CStreamCigParam")
_CStreamCigCaptureParams = _address_layout(_C.CUstreamCigCaptureParams, "_CStreamCigCaptureParams")
_CCtxCigParam = _address_layout(_C.CUctxCigParam, "_CCtxCigParam")
_CCtxCreateParams = _address_layout(_C.CUctxCreateParams, "_CCtxCreateParams")


class StreamCigParam(_CStruct):
    """StreamCigParam(): an empty-initialised ``CUstreamCigParam`` (``stream_shared_data_type``,
    ``stream_shared_data``); ``.ptr`` is its address."""

    _layout = _CStreamCigParam
    _names: ClassVar[dict[str, str]] = {"stream_shared_data_type": "streamSharedDataType",
                                        "stream_shared_data": "streamSharedData"}


class StreamCigCaptureParams(_CStruct):
    """StreamCigCaptureParams(): a ``CUstreamCigCaptureParams``; ``stream_cig_params`` is the address of a
    ``StreamCigParam`` (its ``.ptr``)."""

    _layout = _CStreamCigCaptureParams
    _names: ClassVar[dict[str, str]] = {"stream_cig_params": "streamCigParams"}


class CtxCigParam(_CStruct):
    """CtxCigParam(): a ``CUctxCigParam`` (``shared_data_type``, ``shared_data``)."""

    _layout = _CCtxCigParam
    _names: ClassVar[dict[str, str]] = {"shared_data_type": "sharedDataType", "shared_data": "sharedData"}


class CtxCreateParams(_CStruct):
    """CtxCreateParams(): a ``CUctxCreateParams`` (``exec_affinity_params``, ``num_exec_affinity_params``,
    ``cig_params``: addresses/counts)."""

    _layout = _CCtxCreateParams
    _names: ClassVar[dict[str, str]] = {"exec_affinity_params": "execAffinityParams",
                                        "num_exec_affinity_params": "numExecAffinityParams", "cig_params": "cigParams"}


class GraphEdgeData:
    """GraphEdgeData(size=1): an array of ``CUgraphEdgeData`` backed by a numpy structured array.

    Fields ``from_port``, ``to_port``, ``type`` read as numpy arrays (scalars when ``size`` is 1) and can
    be assigned; ``.ptr`` is the data address; ``len()`` and indexing give single-struct views.
    """

    def __init__(self, size: int = 1) -> None:
        self._data = _np().zeros(int(size), dtype=_edge_dtype())
        self._single = size == 1

    @staticmethod
    def from_data(data: Any) -> GraphEdgeData:
        """Wrap an existing structured array of the edge-data dtype (no copy)."""
        o = GraphEdgeData.__new__(GraphEdgeData)
        o._data, o._single = data, False
        return o

    @staticmethod
    def from_ptr(ptr: int, size: int = 1) -> GraphEdgeData:
        """View ``size`` structs at the address ``ptr`` (no copy)."""
        np = _np()
        buf = (_ct.c_uint8 * (8 * int(size))).from_address(_ip(ptr))
        o = GraphEdgeData.__new__(GraphEdgeData)
        o._data, o._single = np.frombuffer(buf, dtype=_edge_dtype()), size == 1
        return o

    @property
    def ptr(self) -> int:
        """Address of the first struct."""
        return int(self._data.ctypes.data)

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, i: int) -> GraphEdgeData:
        o = GraphEdgeData.__new__(GraphEdgeData)
        o._data, o._single = self._data[i:i + 1] if i != -1 else self._data[-1:], True
        return o

    def _get(self, f: str) -> Any:
        v = self._data[f]
        return int(v[0]) if self._single else v

    def _set(self, f: str, v: Any) -> None:
        self._data[f] = v

    from_port = property(lambda self: self._get("from_port"), lambda self, v: self._set("from_port", v))
    to_port = property(lambda self: self._get("to_port"), lambda self, v: self._set("to_port", v))
    type = property(lambda self: self._get("type"), lambda self, v: self._set("type", v))


_CUpdateInfo = _address_layout(_C.CUgraphExecUpdateResultInfo, "_CUpdateInfo")
_CInstantiateParams = _address_layout(_C.CUDA_GRAPH_INSTANTIATE_PARAMS, "_CInstantiateParams")
_CHostNodeParams = _address_layout(_C.CUDA_HOST_NODE_PARAMS, "_CHostNodeParams")


class GraphExecUpdateResultInfo_v1(_CStruct):
    """GraphExecUpdateResultInfo_v1(): a ``CUgraphExecUpdateResultInfo`` over real memory: ``result`` (int
    ``GraphExecUpdateResult``), ``error_node``, ``error_from_node`` (int handles); ``.ptr`` its address."""

    _layout = _CUpdateInfo
    _names: ClassVar[dict[str, str]] = {"result": "result", "error_node": "errorNode",
                                        "error_from_node": "errorFromNode"}


class GraphInstantiateParams(_CStruct):
    """GraphInstantiateParams(): a ``CUDA_GRAPH_INSTANTIATE_PARAMS`` (``flags_``, ``h_upload_stream``,
    ``h_err_node_out``, ``result_out``); pass ``.ptr`` (or the helper) to ``graph_instantiate_with_params``,
    which writes ``result_out`` and ``h_err_node_out``."""

    _layout = _CInstantiateParams
    _names: ClassVar[dict[str, str]] = {"flags_": "flags", "h_upload_stream": "hUploadStream",
                                        "h_err_node_out": "hErrNode_out", "result_out": "result_out"}


class HostNodeParams_v1(_CStruct):
    """HostNodeParams_v1(): a ``CUDA_HOST_NODE_PARAMS`` (``fn``: function address, ``user_data``: address)."""

    _layout = _CHostNodeParams
    _names: ClassVar[dict[str, str]] = {"fn": "fn", "user_data": "userData"}


_BUF_ERR = ("buf must be None, a Python int representing the pointer address to a valid buffer, or a contiguous "
            "buffer (a ctypes object, NumPy array, bytes, ...), of size -1")


def _buf(x: Any, writable: bool = False) -> Any:
    """A ``void*`` converted as the real ``get_buffer_pointer(x, size)``: ``None`` (NULL), an ``int`` address
    (``intptr_t``: a negative one passes, then fails as a host address), or a contiguous (writable, for a
    destination) buffer, kept as the object; anything else raises the real ``ValueError: buf must be ...``."""
    if x is None:
        return None
    if isinstance(x, int):
        return _ip_arg(x)
    err = _BUF_ERR.replace("contiguous buffer", "contiguous writable buffer") if writable else _BUF_ERR
    try:
        mv = memoryview(x)
    except TypeError:
        raise ValueError(err) from None
    if not mv.c_contiguous or (writable and mv.readonly):
        raise ValueError(err)
    return x


def _path_buf(path: Any) -> Any:
    """A ``char*`` given as a buffer (:func:`_buf`): None, an int address (the core reads the C string
    there), or the bytes of a contiguous buffer up to the first NUL."""
    x = _buf(path)
    if x is None or isinstance(x, int):
        return x
    return memoryview(x).tobytes().split(b"\0", 1)[0]


def _int_ptr(x: Any) -> int:
    """A struct pointer given as an object: Python's ``int(x)`` (``ValueError`` for ``'abc'``, ``TypeError``
    for an object or a list, as in the real module), then the ``intptr_t`` range."""
    return _ip_arg(x if type(x) is int else int(x))


# ================================================================================ argument decoding
def _handles(deps: Any, n: int) -> list[int]:
    """Node handles: an int address of ``n`` int64 values, or a sequence of ints (numpy arrays too).

    Entries past the end of a sequence reach the core as NULL handles (INVALID_VALUE, spec 3.6) [I].
    """
    if isinstance(deps, int):  # an address of n int64 handles (0: NULL)
        deps = _ip_arg(deps)
        if not deps:
            return [0] * min(n, 1)  # NULL with a count: the first entry is refused (INVALID_VALUE), whatever n is
        return list((_ct.c_int64 * n).from_address(_readable(deps, 8 * n, f"dependencies ({n} handles)"))) if n else []
    try:
        items = iter(deps)
    except TypeError:  # None, a float, a wrapper object: the real tries the int path and fails there
        raise TypeError("an integer is required") from None
    vals = [_ip_arg(x) for x in items][:n]
    return vals + [0] * min(1, n - len(vals))  # the first missing entry is already refused (INVALID_VALUE)


def _edge_tuples(data: Any, n: int, ndeps: int | None = None) -> _EdgeDataArg:
    """Edge data for ``n`` dependencies: None/0 = zeros; an address; ``GraphEdgeData``; a structured array.

    ``ndeps`` (the length of the decoded dependency list) bounds ``n``: the core never reads edge data past
    the first dependency it refuses."""
    if ndeps is not None:
        n = min(n, ndeps)
    if data is None or (isinstance(data, int) and not data):
        return [(0, 0, 0)] * n
    if isinstance(data, GraphEdgeData):
        arr = data._data
    else:  # anything else is an address, through int() as in the real module
        data = _int_ptr(data)
        if not data:
            return [(0, 0, 0)] * n
        arr = GraphEdgeData.from_ptr(_readable(data, 8 * n, f"edge data ({n} structs)"), max(n, 1))._data if n else []
    out = [(int(r["from_port"]), int(r["to_port"]), int(r["type"])) for r in arr][:n]
    return out + [None] * min(1, n - len(out))  # the first missing entry is already refused


def _struct_at(addr_or_obj: Any, layout: Any) -> Any:
    if addr_or_obj is None:
        return None
    if isinstance(addr_or_obj, _CStruct):
        return addr_or_obj._c
    a = _int_ptr(addr_or_obj)
    if not a:
        return None
    return layout.from_address(_readable(a, _ct.sizeof(layout), f"struct {layout.__name__.lstrip('_C')}"))


# ================================================================================ init, devices, contexts
@_face
def get_error_name(error: Any) -> str:
    """The ``CUresult`` name (``'CUDA_ERROR_INVALID_VALUE'``). Raises InvalidValueError for an unknown code."""
    return _drv().get_error_name(int(error))


@_face
def get_error_string(error: Any) -> str:
    """The code's documentation sentence (see the tuple face's ``cuGetErrorString``)."""
    return _drv().get_error_string(int(error))


@_face
def device_get_name(len: Any, dev: Any) -> bytes:  # noqa: A002  (the real parameter name)
    """The device name as ``bytes`` (at most ``len - 1`` characters). A negative ``len`` raises
    ``ValueError: negative count`` as the real wrapper does when it sizes its buffer; 0 is INVALID_VALUE."""
    if len < 0:
        raise ValueError("negative count")
    return _drv().device_get_name(dev, len).encode()[:len - 1]


@_face
def ctx_create_v4(ctx_create_params: Any, flags: Any, dev: Any) -> int:
    """Create a context (``ctx_create_params``: None/0, an address, or ``CtxCreateParams``; a non-NULL
    ``cig_params`` address makes a CIG context, spec 8.1). Errors as ``cuCtxCreate``."""
    p = _struct_at(ctx_create_params, _CCtxCreateParams)
    cig, affinity = None, False
    if p is not None:
        affinity = bool(p.execAffinityParams) or p.numExecAffinityParams > 0
        if p.cigParams:
            c = _CCtxCigParam.from_address(_readable(p.cigParams, _ct.sizeof(_CCtxCigParam), "cigParams"))
            cig = (c.sharedDataType, c.sharedData or 0)
    return _drv().ctx_create(_u(flags), int(dev), cig=cig, exec_affinity=affinity)


# ================================================================================ streams and capture
@_face
def stream_wait_event(h_stream: Any, h_event: Any, flags: Any) -> None:
    """Wait on an event: fork/join/merge/isolation (spec 4.1)."""
    _drv().stream_wait_event(_ip(h_stream), _ip(h_event), _u(flags))


@_face
def stream_begin_capture_to_graph(h_stream: Any, h_graph: Any, dependencies: Any, dependency_data: Any,
                                  num_dependencies: Any, mode: Any) -> None:
    """Begin capturing into ``h_graph`` after ``dependencies`` (an int address of int64 handles or a sequence
    of ints; ``dependency_data`` None, an address, ``GraphEdgeData`` or a structured array) (spec 3.2)."""
    n = _u(num_dependencies)
    deps = _handles(dependencies, n)
    _drv().stream_begin_capture_to_graph(_ip(h_stream), _ip(h_graph), deps,
                                         _edge_tuples(dependency_data, n, len(deps)), int(mode))


@_face
def stream_get_capture_info_v2(h_stream: Any) -> tuple[int, int, int, Any]:
    """``(status, id, graph, deps)`` with ``deps`` a numpy int64 array (v2 ABI, no edge data).

    Raises LossyQueryError (402) when a current dependency has non-zero edge data (spec 3.5, C-110).
    """
    status, cid, g, deps, _eds, _n = _drv().stream_get_capture_info(_ip(h_stream), edge_data=False)
    return (status, cid, g, _np().array(deps, dtype=_np().int64))


@_face
def stream_get_capture_info_v3(h_stream: Any) -> tuple[int, int, int, Any, Any]:
    """``(status, id, graph, deps, edge_data)``: ``deps`` a numpy int64 array, ``edge_data`` a numpy
    structured array with fields ``from_port, to_port, type, reserved(5)`` (u1) (spec 3.5, 11.2)."""
    status, cid, g, deps, eds, _n = _drv().stream_get_capture_info(_ip(h_stream))
    np = _np()
    arr = np.zeros(len(eds), dtype=_edge_dtype())
    for i, ed in enumerate(eds):
        arr[i]["from_port"], arr[i]["to_port"], arr[i]["type"] = ed
    return (status, cid, g, np.array(deps, dtype=np.int64), arr)


@_face
def stream_update_capture_dependencies_v2(h_stream: Any, dependencies: Any, dependency_data: Any,
                                          num_dependencies: Any, flags: Any) -> None:
    """Add (0) or set (1) the stream's capture dependencies (spec 3.6); arguments as
    ``stream_begin_capture_to_graph``."""
    n = _u(num_dependencies)
    deps = _handles(dependencies, n)
    _drv().stream_update_capture_dependencies(_ip(h_stream), deps, _edge_tuples(dependency_data, n, len(deps)),
                                              _u(flags))


@_face
def thread_exchange_stream_capture_mode(mode: Any) -> int:
    """Set this thread's capture mode; returns the previous one as an ``int`` (spec 3.7)."""
    return _drv().thread_exchange_stream_capture_mode(int(mode))


@_face
def stream_begin_capture_to_cig(h_stream: Any, stream_cig_capture_params: Any) -> None:
    """Begin a CIG capture (``stream_cig_capture_params``: None/0, an address or ``StreamCigCaptureParams``
    whose ``stream_cig_params`` is the address of a ``StreamCigParam``) (spec 8.2)."""
    p = _struct_at(stream_cig_capture_params, _CStreamCigCaptureParams)
    dtype, data = None, 0
    if p is not None and p.streamCigParams:
        c = _CStreamCigParam.from_address(_readable(p.streamCigParams, _ct.sizeof(_CStreamCigParam),
                                                    "streamCigParams"))
        dtype, data = c.streamSharedDataType, c.streamSharedData or 0
    _drv().stream_begin_capture_to_cig(_ip(h_stream), dtype, data)


# ================================================================================ events
@_face
def event_record(h_event: Any, h_stream: Any) -> None:
    """Record an event (spec 4.2)."""
    _drv().event_record(_ip(h_event), _ip(h_stream))


# ================================================================================ memory
@_face
def mem_free_host(p: Any) -> None:
    """Free host memory from ``mem_alloc_host_v2`` (``p``: an address or a writable buffer, as the real takes it)."""
    x = _buf(p, writable=True)
    _drv().mem_free_host(0 if x is None else x if isinstance(x, int) else _buffer_address(x)[0])


@_face
def memcpy_htod_v2(dst_device: Any, src_host: Any, byte_count: Any) -> None:
    """Synchronous host-to-device copy (``src_host``: address or buffer)."""
    _drv().memcpy(_CopyParams(_HOST, _buf(src_host), _DEV, _ip(dst_device), _u(byte_count)), None, "cuMemcpyHtoD")


@_face
def memcpy_dtoh_v2(dst_host: Any, src_device: Any, byte_count: Any) -> None:
    """Synchronous device-to-host copy (``dst_host``: address or writable buffer)."""
    _drv().memcpy(_CopyParams(_DEV, _ip(src_device), _HOST, _buf(dst_host, True), _u(byte_count)), None, "cuMemcpyDtoH")


@_face
def memcpy_dtod_v2(dst_device: Any, src_device: Any, byte_count: Any) -> None:
    """Synchronous device-to-device copy."""
    _drv().memcpy(_CopyParams(_DEV, _ip(src_device), _DEV, _ip(dst_device), _u(byte_count)), None, "cuMemcpyDtoD")


@_face
def memcpy_htod_async_v2(dst_device: Any, src_host: Any, byte_count: Any, h_stream: Any) -> None:
    """Asynchronous host-to-device copy (a MEMCPY node during capture, reading the host at replay)."""
    _drv().memcpy(_CopyParams(_HOST, _buf(src_host), _DEV, _ip(dst_device), _u(byte_count)), _ip(h_stream),
                  "cuMemcpyHtoDAsync")


@_face
def memcpy_dtoh_async_v2(dst_host: Any, src_device: Any, byte_count: Any, h_stream: Any) -> None:
    """Asynchronous device-to-host copy (a MEMCPY node during capture)."""
    _drv().memcpy(_CopyParams(_DEV, _ip(src_device), _HOST, _buf(dst_host, True), _u(byte_count)), _ip(h_stream),
                  "cuMemcpyDtoHAsync")


def _memset(dst: Any, v: Any, esize: int, n: Any, h: Any, call: str) -> None:
    _drv().memset(_MemsetParams(_ip(dst), _u(v), esize, _u(n)), None if h is None else _ip(h), call)


@_face
def memset_d8_v2(dst_device: Any, uc: Any, n: Any) -> None:
    """Set ``n`` bytes (synchronous)."""
    _memset(dst_device, uc, 1, n, None, "cuMemsetD8")


@_face
def memset_d32_v2(dst_device: Any, ui: Any, n: Any) -> None:
    """Set ``n`` 32-bit values (synchronous)."""
    _memset(dst_device, ui, 4, n, None, "cuMemsetD32")


@_face
def memset_d8_async(dst_device: Any, uc: Any, n: Any, h_stream: Any) -> None:
    """Set ``n`` bytes on a stream (a MEMSET node during capture)."""
    _memset(dst_device, uc, 1, n, h_stream, "cuMemsetD8Async")


@_face
def memset_d32_async(dst_device: Any, ui: Any, n: Any, h_stream: Any) -> None:
    """Set ``n`` 32-bit values on a stream (a MEMSET node during capture)."""
    _memset(dst_device, ui, 4, n, h_stream, "cuMemsetD32Async")


# ================================================================================ modules and launches
def _image(image: Any) -> Any:
    x = _buf(image)  # an int address (the core reads the text there, only where readable); a str raises
    return b"" if x is None or x == 0 else x


@_face
def module_load_data(image: Any) -> int:
    """Load a module (bytes, str, a buffer, or the address of NUL-terminated text); returns its handle."""
    return _drv().module_load_data(_image(image))


@_face
def link_create_v2(num_options: Any, options: Any, option_values: Any) -> int:
    """``options``/``option_values``: addresses of the C arrays (``CUjit_option``, ``void*``), 0 for NULL; the
    ``option_values`` array is kept and written back into until ``link_destroy``, as by the driver."""
    return _drv().link_create(num_options, options, option_values)


@_face
def link_add_data_v2(state: Any, type: Any, data: Any, size: Any, name: Any, num_options: Any, options: Any,
                     option_values: Any) -> None:
    """``data``: the address of ``size`` bytes; ``name``: a buffer holding the name, its address, or None."""
    _drv().link_add_data(state, type, data, size, _symbol(name), num_options, options, option_values)


@_face
def link_add_file_v2(state: Any, type: Any, path: Any, num_options: Any, options: Any, option_values: Any) -> None:
    """``path``: a buffer holding the file name (or None: InvalidValueError)."""
    _drv().link_add_file(state, type, _symbol(path), num_options, options, option_values)


@_face
def link_complete(state: Any) -> bytes:
    """The linked image, copied into ``bytes`` as the real wrapper returns it."""
    addr, size = _drv().link_complete(state)
    return _ct.string_at(addr, size)


@_face
def module_get_function(hmod: Any, name: Any) -> int:
    """A kernel handle by entry name: a buffer holding it (``bytes``...), the int address of the C string, or
    ``None`` (NULL: InvalidValueError); a ``str`` raises the real ``ValueError``. Raises NotFoundError for an
    unknown name."""
    n = _path_buf(name)  # None (NULL) and int addresses go to the core as they are
    return _drv().module_get_function(hmod, n if n is None or isinstance(n, int) else n.decode("utf-8", "replace"))


@_face
def func_get_name(hfunc: Any) -> bytes:
    """The kernel's entry name."""
    return _drv().func_get_name(_ip(hfunc)).encode()


@_face
def launch_kernel(f: Any, grid_dim_x: Any, grid_dim_y: Any, grid_dim_z: Any, block_dim_x: Any, block_dim_y: Any,
                  block_dim_z: Any, shared_mem_bytes: Any, h_stream: Any, kernel_params: Any, extra: Any) -> None:
    """Launch a kernel (a KERNEL node during capture). ``kernel_params``: None/0, the address of a ``void**``
    array, a buffer of addresses, or ``(values, types)`` as in the tuple face; ``extra`` must be 0."""
    hf = _ip(f)
    d = _drv()
    kp = kernel_params
    if _ip(extra):  # the rule is the core's: 1 with kernel_params too (cuLaunchKernel documentation), else 801
        _KP.check_form(kp)
        d.check_kernel_extra(_KP.given(kp), _ip(extra), "cuLaunchKernel")
    try:
        if isinstance(kp, int):  # an intptr_t address (a negative one fails as a host address)
            kp = _ip_arg(kp)
            args = d.decode_kernel_args(hf, kp, "cuLaunchKernel") if kp else []
        else:
            args = _KP.kernel_args(d, hf, kp, "cuLaunchKernel")
    except TypeError as e:  # the _v2 helper spells its message correctly
        raise TypeError(str(e).replace("implimenting", "implementing")) from None
    d.launch_kernel(hf, (_u(grid_dim_x), _u(grid_dim_y), _u(grid_dim_z)),
                    (_u(block_dim_x), _u(block_dim_y), _u(block_dim_z)), _u(shared_mem_bytes), _ip(h_stream), args)


@_face
def launch_host_func(h_stream: Any, fn: Any, user_data: Any) -> None:
    """Enqueue a host function by address (a HOST node during capture, spec 3.9)."""
    _drv().launch_host_func(_ip(h_stream), _ip(fn), _ip(user_data))


# ================================================================================ graphs
@_face
def graph_get_nodes(h_graph: Any) -> memoryview:
    """The graph's node handles, creation order, as a ``memoryview`` of int64."""
    return _i64(_drv().graph_get_nodes(_ip(h_graph)))


@_face
def graph_get_root_nodes(h_graph: Any) -> memoryview:
    """Root node handles as a ``memoryview`` of int64."""
    return _i64(_drv().graph_get_root_nodes(_ip(h_graph)))


@_face
def graph_get_edges_v2(h_graph: Any) -> tuple[memoryview, memoryview, GraphEdgeData]:
    """``(from, to, edge_data)``: two int64 memoryviews and a ``GraphEdgeData`` array, creation order."""
    edges = _drv().graph_get_edges(_ip(h_graph))
    ed = GraphEdgeData(max(len(edges), 1))
    if edges:
        ed._data["from_port"] = [e[2][0] for e in edges]
        ed._data["to_port"] = [e[2][1] for e in edges]
        ed._data["type"] = [e[2][2] for e in edges]
    else:
        ed = GraphEdgeData.from_data(ed._data[:0])
    ed._single = False
    return (_i64([e[0] for e in edges]), _i64([e[1] for e in edges]), ed)


@_face
def graph_add_empty_node(h_graph: Any, dependencies: Any, num_dependencies: Any) -> int:
    """Add an EMPTY node; returns its handle."""
    n = _u(num_dependencies)
    return _drv().graph_add_empty_node(_ip(h_graph), _handles(dependencies, n))


@_face
def graph_add_child_graph_node(h_graph: Any, dependencies: Any, num_dependencies: Any, child_graph: Any) -> int:
    """Add a GRAPH node holding a clone of ``child_graph`` (spec 4.6)."""
    n = _u(num_dependencies)
    return _drv().graph_add_child_graph_node(_ip(h_graph), _handles(dependencies, n), _ip(child_graph))


@_face
def graph_instantiate_with_flags(h_graph: Any, flags: Any) -> int:
    """Instantiate; returns the exec handle (spec 9). ``GRAPH_INSTANTIATE_FLAG_UPLOAD`` raises InvalidValueError:
    it needs ``graph_instantiate_with_params`` and its upload stream (spec 16, 9)."""
    return _drv().graph_instantiate(_ip(h_graph), _u(flags))


@_face
def graph_exec_update_v2(h_graph_exec: Any, h_graph: Any) -> GraphExecUpdateResultInfo_v1:
    """Update an exec from a graph of the same topology (spec 9; pairing by creation order).

    Returns a ``GraphExecUpdateResultInfo_v1`` (``result`` 0 SUCCESS, ``error_node`` 0) as the real function
    does. On failure raises ``GraphExecUpdateFailureError`` (910); the simulator attaches the driver's
    result info to the exception as ``.result_info`` (a ``GraphExecUpdateResultInfo_v1`` with ``result``
    TOPOLOGY_CHANGED 2, NODE_TYPE_CHANGED 3, PARAMETERS_CHANGED 5, NOT_SUPPORTED 6,
    UNSUPPORTED_FUNCTION_CHANGE 7 or ATTRIBUTES_CHANGED 8 and the error nodes), which the real binding has
    no way to show, and ``.why`` names it. A bad handle raises ``InvalidValueError`` (result ERROR 1).
    """
    try:
        result, enode, efrom = _drv().graph_exec_update(_ip(h_graph_exec), _ip(h_graph))
    except _CoreError as e:
        info = GraphExecUpdateResultInfo_v1()
        info.result, info.error_node, info.error_from_node = getattr(e, "update_info", (1, 0, 0))
        try:
            _raise(e)
        except DriverError as err:
            err.result_info = info
            raise
    info = GraphExecUpdateResultInfo_v1()
    info.result, info.error_node, info.error_from_node = result, enode, efrom
    return info


@_face
def graph_debug_dot_print(h_graph: Any, path: Any, flags: Any) -> None:
    """Write the graph as DOT. ``path`` as the real wrapper takes a buffer: ``None`` (NULL: INVALID_VALUE), an
    ``int`` address of a NUL-terminated path (read only where readable), or a contiguous buffer holding the
    path (``bytes``, ``bytearray``, a numpy or ctypes array; read up to its first NUL). Anything else (a
    ``str`` too) raises the real ``ValueError: buf must be None, a Python int ...``."""
    _drv().graph_debug_dot_print(h_graph, _path_buf(path), flags)



@_face
def graph_add_event_record_node(h_graph: Any, dependencies: Any, num_dependencies: Any, event: Any) -> int:
    """Add an EVENT_RECORD node; returns its handle."""
    n = _u(num_dependencies)
    return _drv().graph_add_event_node(_ip(h_graph), _handles(dependencies, n), _ip(event), False)


@_face
def graph_add_event_wait_node(h_graph: Any, dependencies: Any, num_dependencies: Any, event: Any) -> int:
    """Add a WAIT_EVENT node; returns its handle."""
    n = _u(num_dependencies)
    return _drv().graph_add_event_node(_ip(h_graph), _handles(dependencies, n), _ip(event), True)


def _host_params(node_params: Any) -> Any:
    if isinstance(node_params, _CStruct) and not isinstance(node_params, HostNodeParams_v1):
        raise TypeError(f"node_params must be a HostNodeParams_v1 or an address, not {type(node_params).__name__}")
    c = _struct_at(node_params, _CHostNodeParams)
    if c is None:
        _drv().require_arg(False, "node_params", getattr(_CALL, "name", "cuGraphAddHostNode"))
    return c


@_face
def graph_add_host_node(h_graph: Any, dependencies: Any, num_dependencies: Any, node_params: Any) -> int:
    """Add a HOST node from a ``CUDA_HOST_NODE_PARAMS`` address (or a ``HostNodeParams_v1``); the function
    runs on every launch (spec 3.9)."""
    n = _u(num_dependencies)
    deps = _handles(dependencies, n)
    c = _host_params(node_params)
    return _drv().graph_add_host_node(_ip(h_graph), deps, c.fn or 0, c.userData or 0)


@_face
def graph_host_node_get_params(h_node: Any) -> HostNodeParams_v1:
    """A HOST node's parameters as a ``HostNodeParams_v1``."""
    p = _drv().graph_node_get_params(_ip(h_node), 3)[1]
    out = HostNodeParams_v1()
    out.fn = p.fn if isinstance(p.fn, int) else 0
    out.user_data = p.user_data if isinstance(p.user_data, int) else 0
    return out


@_face
def graph_host_node_set_params(h_node: Any, node_params: Any) -> None:
    """Set a HOST node's function and user data (address of ``CUDA_HOST_NODE_PARAMS`` or the helper)."""
    c = _host_params(node_params)
    _drv().graph_node_set_params(_ip(h_node), 3, {"fn": c.fn or 0, "user_data": c.userData or 0})


@_face
def graph_exec_host_node_set_params(h_graph_exec: Any, h_node: Any, node_params: Any) -> None:
    """Set a HOST node's function and user data in an exec."""
    c = _host_params(node_params)
    _drv().graph_exec_node_set_params(_ip(h_graph_exec), _ip(h_node), 3,
                                      {"fn": c.fn or 0, "user_data": c.userData or 0})


@_face
def graph_add_mem_free_node(h_graph: Any, dependencies: Any, num_dependencies: Any, dptr: Any) -> int:
    """Add a MEM_FREE node for a graph allocation; returns its handle."""
    n = _u(num_dependencies)
    return _drv().graph_add_mem_free_node(_ip(h_graph), _handles(dependencies, n), _ip(dptr))


@_face
def graph_mem_free_node_get_params(h_node: Any) -> int:
    """The address a MEM_FREE node frees."""
    dptr: int = _drv().graph_node_get_params(_ip(h_node), 11)[1].dptr
    return dptr


def _deps_v2(h_node: Any, dependents: bool) -> tuple[memoryview, GraphEdgeData]:
    pairs = _drv().graph_node_get_dependencies(_ip(h_node), dependents)
    ed = GraphEdgeData(max(len(pairs), 1))
    if pairs:
        ed._data["from_port"] = [e[1][0] for e in pairs]
        ed._data["to_port"] = [e[1][1] for e in pairs]
        ed._data["type"] = [e[1][2] for e in pairs]
    else:
        ed = GraphEdgeData.from_data(ed._data[:0])
    ed._single = False
    return (_i64([e[0] for e in pairs]), ed)


@_face
def graph_node_get_dependencies_v2(h_node: Any) -> tuple[memoryview, GraphEdgeData]:
    """``(dependencies, edge_data)``: an int64 memoryview and a ``GraphEdgeData`` array, edge order."""
    return _deps_v2(h_node, False)


@_face
def graph_node_get_dependent_nodes_v2(h_node: Any) -> tuple[memoryview, GraphEdgeData]:
    """``(dependent nodes, edge_data)`` as ``graph_node_get_dependencies_v2``."""
    return _deps_v2(h_node, True)


def _pairs_v2(from_: Any, to: Any, edge_data: Any, n: int) -> tuple[list[int], list[int], _EdgeDataArg]:
    froms, tos = _handles(from_, n), _handles(to, n)
    eds = _edge_tuples(edge_data, n, max(len(froms), len(tos))) if edge_data else []
    return froms, tos, eds


@_face
def graph_add_dependencies_v2(h_graph: Any, from_: Any, to: Any, edge_data: Any, num_dependencies: Any) -> None:
    """Add edges ``from_[i] -> to[i]`` (addresses or sequences of ints; ``edge_data`` optional)."""
    n = _u(num_dependencies)
    _drv().graph_add_dependencies(_ip(h_graph), *_pairs_v2(from_, to, edge_data, n))


@_face
def graph_remove_dependencies_v2(h_graph: Any, from_: Any, to: Any, edge_data: Any, num_dependencies: Any) -> None:
    """Remove edges (INVALID_VALUE for a missing edge or a graph with memory nodes)."""
    n = _u(num_dependencies)
    froms, tos, eds = _pairs_v2(from_, to, edge_data, n)
    _drv().graph_remove_dependencies(_ip(h_graph), froms, tos, [(255, 255, 255) if e is None else e for e in eds])


def _event_of(h_node: Any, ntype: int) -> int:
    event: _Event = _drv().graph_node_get_params(_ip(h_node), ntype)[1].event
    return event.handle


@_face
def graph_event_record_node_get_event(h_node: Any) -> int:
    """The event of an EVENT_RECORD node."""
    return _event_of(h_node, 7)


@_face
def graph_event_record_node_set_event(h_node: Any, event: Any) -> None:
    """Set the event of an EVENT_RECORD node."""
    _drv().graph_node_set_params(_ip(h_node), 7, _ip(event))


@_face
def graph_event_wait_node_get_event(h_node: Any) -> int:
    """The event of a WAIT_EVENT node."""
    return _event_of(h_node, 6)


@_face
def graph_event_wait_node_set_event(h_node: Any, event: Any) -> None:
    """Set the event of a WAIT_EVENT node."""
    _drv().graph_node_set_params(_ip(h_node), 6, _ip(event))


@_face
def graph_exec_event_record_node_set_event(h_graph_exec: Any, h_node: Any, event: Any) -> None:
    """Set an EVENT_RECORD node's event in an exec."""
    _drv().graph_exec_node_set_params(_ip(h_graph_exec), _ip(h_node), 7, _ip(event))


@_face
def graph_exec_event_wait_node_set_event(h_graph_exec: Any, h_node: Any, event: Any) -> None:
    """Set a WAIT_EVENT node's event in an exec."""
    _drv().graph_exec_node_set_params(_ip(h_graph_exec), _ip(h_node), 6, _ip(event))


@_face
def graph_exec_child_graph_node_set_params(h_graph_exec: Any, h_node: Any, child_graph: Any) -> None:
    """Give a child-graph node of an exec the parameters of a graph of the same topology."""
    _drv().graph_exec_node_set_params(_ip(h_graph_exec), _ip(h_node), 4, _ip(child_graph))


def _counted(fn: _Callable[_P, _R]) -> _Callable[_P, _R]:
    """Only the real wrapper's argument count (for a function that converts its arguments itself)."""
    sig = _V2_FUNCTIONS.get(fn.__name__, "")
    required, total = _T.arity(sig.split(" -> ")[0]) if sig else (0, 1 << 30)

    @_functools.wraps(fn)
    def counted(*args: Any, **kwargs: Any) -> Any:
        if not kwargs and not required <= len(args) <= total:
            raise _T.arity_error(fn.__name__, required, total, len(args))
        return fn(*args, **kwargs)
    counted.__doc__ = (f"Mirrors ``{sig}`` of cuda.bindings._v2.driver 13.5; raises the ``DriverError`` subclass "
                       "of any non-success code.\n\n" + _description(fn))
    return counted


@_counted
def graph_instantiate_with_params(h_graph: Any, instantiate_params: Any) -> int:
    """``instantiate_params`` is the address of a ``CUDA_GRAPH_INSTANTIATE_PARAMS`` (or a
    ``GraphInstantiateParams``); ``result_out`` and ``h_err_node_out`` are written into it, on failure too
    (ERROR, INVALID_STRUCTURE, NODE_OPERATION_NOT_SUPPORTED, MULTIPLE_CTXS_NOT_SUPPORTED and the node).
    """
    h_graph = _ip_arg(h_graph)  # intptr_t: converted at entry, as _face does for the other functions
    if isinstance(instantiate_params, _CStruct) and not isinstance(instantiate_params, GraphInstantiateParams):
        raise TypeError("instantiate_params must be a GraphInstantiateParams or an address, not "
                        f"{type(instantiate_params).__name__}")
    c = None
    try:
        c = _struct_at(instantiate_params, _CInstantiateParams)  # an unreadable address: the core's INVALID_VALUE
        if c is None:
            _drv().require_arg(False, "instantiate_params", "cuGraphInstantiateWithParams")
        x = _drv().graph_instantiate_with_params(_ip(h_graph), int(c.flags), int(c.hUploadStream or 0))
    except _CoreError as e:
        if c is not None:
            c.result_out = getattr(e, "instantiate_result", 1)
            c.hErrNode_out = getattr(e, "err_node", 0)
        _raise(e)
    c.result_out, c.hErrNode_out = 0, 0
    return x


# ================================================================================ user objects, memory pools
@_face
def user_object_create(ptr: Any, destroy: Any, initial_refcount: Any, flags: Any) -> int:
    """``destroy`` is a host function address; ``ptr`` the value handed to it (None, an ``int`` address or a
    contiguous writable buffer, as the real wrapper converts a ``void*``)."""
    b = _buf(ptr, writable=True)
    addr = b if b is None or isinstance(b, int) else _T.void_ptr(b)
    return int(_drv().user_object_create(addr, destroy, initial_refcount, flags))


def _check_pool_attr(attr: int) -> None:
    if not 1 <= attr <= 15:  # the CUmemPool_attribute values
        raise TypeError(f"Unsupported memory pool attribute: {attr}")


@_face
def mem_pool_get_attribute(pool: Any, attr: Any) -> int:
    """The attribute's value as an ``int`` (byte counts for the ``cuuint64_t`` attributes); an ``attr`` that is
    no ``CUmemPool_attribute`` raises ``TypeError: Unsupported memory pool attribute``, as the real wrapper."""
    _check_pool_attr(attr)
    return int(_drv().mem_pool_get_attribute(pool, attr))


@_face
def mem_pool_set_attribute(pool: Any, attr: Any, value: Any) -> None:
    """``value`` is the address of the new value: a ``cuuint64_t`` for the byte-count attributes, an ``int``
    (4 bytes) for the others; the core checks that it is readable first (INVALID_VALUE otherwise)."""
    width = 8 if int(attr) in _POOL_ATTR_U64 else 4
    addr = _readable(value, width, "the attribute value")
    v = (_ct.c_uint64 if width == 8 else _ct.c_int).from_address(addr).value
    _drv().mem_pool_set_attribute(pool, attr, v)


# -- graph memory (entries/pools.py; issue 10) ----------------------------------------------------------
def _check_graph_mem_attr(attr: int) -> None:
    if not 0 <= attr <= 3:  # the CUgraphMem_attribute values
        raise TypeError(f"Unsupported graph memory attribute: {attr}")


@_face
def device_get_graph_mem_attribute(device: Any, attr: Any) -> int:
    """The ``CUgraphMem_attribute`` value in bytes, as an ``int``; an ``attr`` that is no ``CUgraphMem_attribute``
    raises ``TypeError: Unsupported graph memory attribute``, as the real wrapper."""
    _check_graph_mem_attr(attr)
    return int(_drv().device_get_graph_mem_attribute(device, attr))


@_face
def device_set_graph_mem_attribute(device: Any, attr: Any, value: Any) -> None:
    """``value`` is the address of a ``cuuint64_t`` (0 resets a HIGH watermark); the core checks it is readable
    first (INVALID_VALUE otherwise)."""
    addr = _readable(value, 8, "the attribute value")
    _drv().device_set_graph_mem_attribute(device, attr, _ct.c_uint64.from_address(addr).value)


# ================================================================================ built from the table
def _build(name: str, row: _Api) -> _Callable[..., Any]:
    """The ``_v2`` function of a complete table row: the typed parameters converted as the real wrapper does
    (:func:`_face`), passed to the row's core operation; the single output returned as it is (a tuple when
    there are several), ``None`` when there is none."""
    import inspect

    call = row.call
    names = [n for n, _ in _converters(name)]
    spec = tuple((kw, names.index(_snake(p)) if p is not None else -1, lit) for kw, p, lit in call.args)
    has_out = bool(call.outs)
    op = call.op
    signature = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])

    def fn(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            args = signature.bind(*args, **kwargs).args
        pos: list[Any] = []
        kws: dict[str, Any] = {}
        for kw, i, lit in spec:
            v = lit if i < 0 else args[i]
            if kw is None:
                pos.append(v)
            else:
                kws[kw] = v
        r = getattr(_drv(), op)(*pos, **kws)
        return r if has_out else None
    fn.__name__ = fn.__qualname__ = name
    fn.__signature__ = signature  # type: ignore[attr-defined]
    return _face(fn)


#: the functions built from the table: every real ``_v2`` name whose row (:func:`_row`) is complete and that
#: this module does not write by hand above or below (derived, never a hand-kept list)
_HAND = frozenset(("module_get_global_v2", "library_get_global", "kernel_get_function", "device_get_pci_bus_id",
                   "device_get_by_pci_bus_id"))
_BUILT = tuple(n for n in _V2_FUNCTIONS
               if n not in globals() and n not in _HAND and (_r := _row(n)) is not None and not _r.particular)
for _n in _BUILT:
    _r = _row(_n)
    assert _r is not None
    globals()[_n] = _build(_n, _r)
del _n, _r


# ================================================================================ several devices (issue 10)
def _symbol(name: Any) -> Any:
    """A ``char*`` name given as a buffer, an int address or None (see :func:`_path_buf`), for the core."""
    n = _path_buf(name)
    return n if n is None or isinstance(n, int) else n.decode("utf-8", "replace")


@_face
def module_get_global_v2(hmod: Any, name: Any) -> tuple[int, int]:
    """``(dptr, bytes)`` of the module's device variable ``name``; raises NotFoundError for an unknown one."""
    return _drv().module_get_global(hmod, _symbol(name))


@_face
def library_get_global(library: Any, name: Any) -> tuple[int, int]:
    """``(dptr, bytes)`` of the library's device variable ``name`` in the current context."""
    return _drv().library_get_global(library, _symbol(name))


@_face
def kernel_get_function(kernel: Any) -> int:
    """The function of a library kernel in the current context (the kernel's own handle here)."""
    return _drv().kernel_get_function(kernel)


@_face
def device_get_pci_bus_id(len: Any, dev: Any) -> bytes:  # noqa: A002  (the real parameter name)
    """The PCI location as ``bytes`` (at most ``len - 1`` characters); a negative ``len`` raises ``ValueError:
    negative count`` as the real wrapper does when it sizes its buffer."""
    if len < 0:
        raise ValueError("negative count")
    return _drv().device_get_pci_bus_id(len, dev).encode()


@_face
def device_get_by_pci_bus_id(pci_bus_id: Any) -> int:
    """The ordinal of the device at ``pci_bus_id``: a ``char*`` as a buffer (``bytes``...), an ``int`` address of
    a C string, or None (NULL: INVALID_VALUE); anything else raises the real ``ValueError: buf must be ...``."""
    x = _path_buf(pci_bus_id)
    return _drv().device_get_by_pci_bus_id(x.decode("latin-1") if isinstance(x, bytes) else x)


# ================================================================================ the rest: not simulated
def _stub(name: str) -> Any:
    def stub(*args: Any, **kwargs: Any) -> Any:
        _raise(_drv().not_simulated(name, f"{name} is not simulated by simcuda (cuda.bindings._v2.driver); it "
                                          "always raises NotSupportedError"))
    stub.__name__ = stub.__qualname__ = name
    stub.__doc__ = (f"Not simulated: mirrors ``{_V2_FUNCTIONS[name]}`` by name only; always raises "
                    "``NotSupportedError`` (801) with a ``why``.")
    stub.__simcuda_stub__ = True  # type: ignore[attr-defined]  # a marker attribute on the function object
    return stub


_NOT_SIMULATED = tuple(n for n in _V2_FUNCTIONS if n not in globals())
for _n in _NOT_SIMULATED:
    globals()[_n] = _stub(_n)
del _n
