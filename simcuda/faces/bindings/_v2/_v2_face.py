"""The ``_v2`` face's plumbing (simcuda.faces.bindings._v2.driver): its exceptions (one class per code, raised for a
core ``DriverError``), the typed parameters converted as the real wrapper does (:func:`_face`), the table's
descriptions, the struct helpers and the argument decoding. The functions are in the ``_v2_*`` modules by
concept; users import them from :mod:`simcuda.faces.bindings._v2.driver`.
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

from .... import _state as _st
from ...._core.api import API as _API
from ...._core.errors import DriverError as _CoreError
from ...._core.objects import EdgeDataArg as _EdgeDataArg
from ...._core.rows import Api as _Api
from ...._generated import cydriver_ctypes as _C
from ...._generated import v2_enums as _E2
from ...._generated.driver_enums import CUresult as _CUresult
from ...._generated.driver_outputs import V2_FUNCTIONS as _V2_FUNCTIONS
from .. import _driver_types as _T

if _typing.TYPE_CHECKING:
    from ...._core.facade import Driver as _Driver



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


#: the module users import the face from: the ``__module__`` of its exceptions (their repr, pickling)
FACE_MODULE = "simcuda.faces.bindings._v2.driver"
DriverError.__module__ = FACE_MODULE
#: the exception class of each code, and each by name (:mod:`simcuda.faces.bindings._v2.driver` holds them by name)
_BY_CODE: dict[int, type[DriverError]] = {}
EXCEPTIONS: dict[str, type[DriverError]] = {}
for _name, _code in _E2.V2_EXCEPTIONS:
    if _code is None:
        continue
    _cls = type(_name, (DriverError,), {
        "__doc__": f"Raised for ``{_CUresult(_code).name}`` ({_code}).", "__module__": FACE_MODULE})
    EXCEPTIONS[_name] = _BY_CODE[_code] = _cls
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
