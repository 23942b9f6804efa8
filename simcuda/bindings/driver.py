"""Simulated ``cuda.bindings.driver`` (cuda-bindings 13.5.0): tuple-returning, never raises for a CUresult.

Mirrors: ``cuda.bindings.driver`` of cuda-bindings 13.5.0 (CUDA 13.x driver API), spec section 11.1.

* Every function returns a tuple whose first element is a ``CUresult``, followed by the outputs in
  the order of the real docstring; on an error every output slot is ``None`` and the length is the
  same. The output counts come from the real docstrings (:mod:`simcuda._generated.driver_outputs`).
* Python-level misuse that the real wrapper rejects before reaching the driver raises the same
  exception here (``TypeError: an integer is required`` for a ``str`` handle, ``RuntimeError: List
  is too small: 1 < 3`` ...). Nothing else raises, except ``ValueError`` for a malformed
  ``CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM`` (spec 6.1), on every call, like the binding.
* This module only translates: it converts arguments to plain values, calls the current
  :class:`simcuda.Driver` (``simcuda.use`` / ``simcuda.reset``), and turns a ``DriverError`` into
  ``(CUresult, None, ...)``. Each rule, code and ``why`` lives in the core; ``simcuda.last_error()``
  gives the ``why`` of the last failure on this thread.
* Every function of the real module exists. The ones that are not simulated return
  ``(CUDA_ERROR_NOT_SUPPORTED, None, ...)`` with a ``why`` that says so (``simcuda.last_error()``).
"""
from __future__ import annotations

import enum as _enum
import functools
import os
import typing as _typing
from collections.abc import Callable as _Callable
from typing import Any, Optional  # noqa: F401  (the real module exports both names)
from typing import ParamSpec as _ParamSpec
from typing import TypeVar as _TypeVar
from typing import cast as _cast

from .. import _state as _st
from .._core.api import API as _API
from .._core.api import ROWS as _ROWS
from .._core.errors import DriverError as _DriverError
from .._core.memory import DEVICE as _DEV
from .._core.memory import HOST as _HOST
from .._core.memory import CopyParams as _CopyParams
from .._core.memory import MemsetParams as _MemsetParams
from .._core.objects import POOL_ATTR_U64 as _POOL_ATTR_U64
from .._core.objects import EdgeData as _EdgeData
from .._core.objects import EdgeDataArg as _EdgeDataArg
from .._core.objects import MemOp as _MemOp
from .._generated import driver_enums as _E
from .._generated.driver_outputs import OUTPUTS as _OUTPUTS
from .._generated.driver_outputs import PARAMS as _PARAMS
from . import _args as _A
from . import _build as _B
from . import _driver_types as _T
from . import _kernel_params as _KP

# -- enums and integer constants (generated from the real module) -------------------------------
globals().update(_E.__all_enums__)
globals().update(_E.__int_constants__)

# -- every class of the real module (wrappers, structs, placeholders) ---------------------------
globals().update(_T.build_classes())

if _typing.TYPE_CHECKING:

    # The enums, constants, classes and not-simulated stubs of the real module are put into this namespace at
    # import time (globals().update, install_stubs), which the checker cannot follow: to it, a name it does not
    # find here is Any.
    def __getattr__(name: str) -> Any: ...

CUresult = _E.CUresult
_Result = _T.Result  # what every function returns: (CUresult, *outputs)
_SUCCESS = CUresult.CUDA_SUCCESS
_OK = (_SUCCESS,)
_CUstream = globals()["CUstream"]
_CUevent = globals()["CUevent"]
_CUgraph = globals()["CUgraph"]
_CUgraphNode = globals()["CUgraphNode"]
_CUgraphExec = globals()["CUgraphExec"]
_CUcontext = globals()["CUcontext"]
_CUdevice = globals()["CUdevice"]
_CUdeviceptr = globals()["CUdeviceptr"]
_CUfunction = globals()["CUfunction"]
_CUkernel = globals()["CUkernel"]
_CUmodule = globals()["CUmodule"]
_CUhostFn = globals()["CUhostFn"]
_CUstreamCallback = globals()["CUstreamCallback"]
_cuuint64_t = globals()["cuuint64_t"]
_CUgraphEdgeData = globals()["CUgraphEdgeData"]
_CUgraphExecUpdateResultInfo = globals()["CUgraphExecUpdateResultInfo"]
_mk_stream, _mk_event, _mk_graph = _CUstream._mk, _CUevent._mk, _CUgraph._mk
# cuLaunchKernel reads these wrappers' values inline, as their (inherited) __int__ does
assert _CUstream.__int__ is _T.Wrapper.__int__ and _CUfunction.__int__ is _T.Wrapper.__int__
_mk_node, _mk_exec, _mk_ctx, _mk_dptr = _CUgraphNode._mk, _CUgraphExec._mk, _CUcontext._mk, _CUdeviceptr._mk


def sizeof(objType: Any) -> int:
    """Mirrors ``cuda.bindings.driver.sizeof``: bytes of a struct type. Only ``CUgraphEdgeData`` is known."""
    return _T.struct_sizeof(objType, _CUgraphEdgeData)


# ------------------------------------------------------------------------------ plumbing
_P = _ParamSpec("_P")
_F = _TypeVar("_F", bound=_Callable[..., Any])
#: a conversion the real wrapper applies to one argument (the value, converted, or the same object)
_Conv = _Callable[[Any], Any]
#: the conversions of one function, in the real wrapper's order: (argument index, name, conversion)
_Plan = tuple[tuple[int, str, _Conv], ...]

# the argument conversions shared with the runtime face (simcuda/bindings/_args.py)
_drv, _tp_name, _h, _u, _size, _i, _bytes_arg = (_A.current_driver, _A.type_name, _A.handle, _A.uint, _A.size_t,
                                                 _A.int32, _A.bytes_arg)


def _header(name: str) -> str:
    sig, outs = _OUTPUTS[name]
    shape = ", ".join(["CUresult"] + [f"{n}: {t}" for n, t in outs])
    nones = ", ".join(["CUresult"] + ["None"] * len(outs))
    return (f"Mirrors ``{sig}`` of cuda.bindings.driver 13.5.\n\n"
            f"Returns ``({shape}{',' if not outs else ''})``; on any error ``({nones}{',' if not outs else ''})``.\n\n")


_split_params = _B.signature_params
_C_INT = _B.C_INT
_convert_args = _B.convert_args
_eds_for, _capture_deps, _pad_edges = _B.eds_for, _B.capture_deps, _B.pad_edges
memcpy_batch_args, memcpy3d_batch_ops = _B.memcpy_batch_args, _B.memcpy3d_batch_ops


def _conversion_plan(name: str) -> _Plan:
    """The tuple face's :func:`simcuda.bindings._build.conversion_plan` of ``name`` (its tables, its classes)."""
    return _B.conversion_plan(name, _OUTPUTS, _PARAMS, globals(), _struct_arg)


_arity, _arity_error = _T.arity, _T.arity_error


def _face(fn: _Callable[_P, _Result]) -> _Callable[_P, _Result]:
    """Check the number of arguments and convert them in the real wrapper's order (:func:`_conversion_plan`),
    then turn a ``DriverError`` raised by ``fn`` into ``(CUresult, None, ...)`` of the real length."""
    nones = (None,) * len(_OUTPUTS[fn.__name__][1])
    plan = _conversion_plan(fn.__name__)
    required, total = _arity(_OUTPUTS[fn.__name__][0])

    @functools.wraps(fn)
    def face(*args: Any, **kwargs: Any) -> Any:  # fn's signature, which the arguments are converted for
        if not kwargs and not required <= len(args) <= total:  # the wrapper counts before it converts
            raise _arity_error(fn.__name__, required, total, len(args))
        if plan:
            args = _convert_args(plan, args, kwargs)
        try:
            return fn(*args, **kwargs)
        except _DriverError as e:
            return (e.code, *nones)
    face.__doc__ = _header(fn.__name__) + _description(fn)
    return face


def _doc(fn: _F) -> _F:
    """Give a hand-inlined (hot path) function its generated header and the table's description."""
    fn.__doc__ = _header(fn.__name__) + _description(fn)
    return fn


def _description(fn: _Callable[..., Any]) -> str:
    """The entry's description from the table (:mod:`simcuda._core.api`), the one copy of that prose."""
    row = _API.get(fn.__name__)
    return row.doc if row is not None else (fn.__doc__ or "")


_U64 = 1 << 64


def _node_list(x: Any, arg: str, cls: type | None = None) -> list[int]:
    """A sequence of ``CUgraphNode`` (any iterable, as the real check is ``all(isinstance(...) for ...)``;
    ints are refused inside it, and a non-iterable raises ``TypeError: 'int' object is not iterable``)."""
    if x is None:
        return []
    cls = cls or _CUgraphNode
    x = list(x)
    if not all(isinstance(n, cls) for n in x):
        raise TypeError(f"Argument '{arg}' is not instance of type (expected tuple[cydriver.{cls.__name__},] or "
                        f"list[cydriver.{cls.__name__},]")
    return [int(n) for n in x]


def _edge_list(x: Any, arg: str) -> _EdgeDataArg:  # (a fresh list, which _eds_for may pad with None)
    if x is None:
        return []
    x = list(x)
    if not all(isinstance(e, _CUgraphEdgeData) for e in x):
        raise TypeError(f"Argument '{arg}' is not instance of type (expected tuple[cydriver.CUgraphEdgeData,] or "
                        "list[cydriver.CUgraphEdgeData,]")
    return [(e.from_port, e.to_port, e.type) for e in x]


def _deps_for(x: Any, n: Any, arg: str = "dependencies") -> list[int]:
    """Dependencies of a graph-building call: the wrapper refuses a count above the list length."""
    deps = _node_list(x, arg)
    n = _size(n)
    if n > len(deps):
        raise RuntimeError(f"List is too small: {len(deps)} < {n}")
    return deps[:n]


def _struct_arg(x: Any, cls_name: str, arg: str) -> Any:
    """A struct argument typed ``Optional[cls]`` by the wrapper: ``None`` or an instance of ``cls`` (or a
    subclass); anything else raises the wrapper's ``TypeError`` (a parent class such as ``..._v2`` too)."""
    if x is None or isinstance(x, globals()[cls_name]):
        return x
    got = _tp_name(type(x))
    raise TypeError(f"Argument '{arg}' has incorrect type (expected cuda.bindings.driver.{cls_name}, got {got})")


# =========================================================================== init, version, errors
@_face
def cuGetErrorName(error: Any) -> _Result:
    v = _T.c_enum(error, "error", "cudaError_enum")
    return (_SUCCESS, _drv().get_error_name(v).encode())


@_face
def cuGetErrorString(error: Any) -> _Result:
    v = _T.c_enum(error, "error", "cudaError_enum")
    return (_SUCCESS, _drv().get_error_string(v).encode())


# =========================================================================== devices
@_face
def cuDeviceGetName(length: Any, dev: Any) -> _Result:
    n = _i(length)
    name = _drv().device_get_name(_h(dev, _CUdevice), n).encode()
    name = name[:n - 1] + b"\0"
    return (_SUCCESS, name + b" " * (n - len(name)))


@_face
def cuDeviceGetUuid(dev: Any) -> _Result:
    u = globals()["CUuuid"]()
    u._d["bytes"] = _drv().device_get_uuid(_h(dev, _CUdevice))
    return (_SUCCESS, u)


@_face
def cuDeviceComputeCapability(dev: Any) -> _Result:
    d, h = _drv(), _h(dev, _CUdevice)
    major = d.device_get_attribute(_E.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, h)
    minor = d.device_get_attribute(_E.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, h)
    return (_SUCCESS, major, minor)


# =========================================================================== contexts
@_face
def cuCtxCreate(ctxCreateParams: Any, flags: Any, dev: Any) -> _Result:
    p = _struct_arg(ctxCreateParams, "CUctxCreateParams", "ctxCreateParams")
    cig, affinity = None, False
    if p is not None:
        affinity = bool(p.execAffinityParams) or p.numExecAffinityParams > 0
        if p.cigParams:
            c = p.cigParams[0]
            cig = (c._raw("sharedDataType"), c.sharedData)
    return (_SUCCESS, _mk_ctx(_drv().ctx_create(_u(flags), _h(dev, _CUdevice), cig=cig, exec_affinity=affinity)))


# =========================================================================== streams
@_doc
def cuStreamWaitEvent(hStream: Any, hEvent: Any, Flags: Any) -> _Result:
    fl = Flags if type(Flags) is int and 0 <= Flags <= 0xFFFFFFFF else _u(Flags)  # typed: converted at entry
    he = hEvent if type(hEvent) is int and 0 <= hEvent < _U64 else _h(hEvent, _CUevent)  # handles: last first
    hs = hStream if type(hStream) is int and 0 <= hStream < _U64 else _h(hStream, _CUstream)
    try:
        _drv().stream_wait_event(hs, he, fl)
    except _DriverError as e:
        return (e.code,)
    return _OK


@_face
def cuStreamAddCallback(hStream: Any, callback: Any, userData: Any, flags: Any) -> _Result:
    fn = _h(callback, _CUstreamCallback)
    ud = _T.void_ptr(userData)
    _drv().stream_add_callback(_h(hStream, _CUstream), fn, ud, _u(flags))
    return _OK


# =========================================================================== capture
@_face
def cuStreamBeginCaptureToGraph(hStream: Any, hGraph: Any, dependencies: Any, dependencyData: Any,
                                numDependencies: Any, mode: Any) -> _Result:
    deps = _node_list(dependencies, "dependencies")
    eds = _edge_list(dependencyData, "dependencyData")
    n = _size(numDependencies)
    if n > len(deps):
        raise RuntimeError(f"List is too small: {len(deps)} < {n}")
    _drv().stream_begin_capture_to_graph(_h(hStream, _CUstream), _h(hGraph, _CUgraph), deps[:n],
                                         _eds_for(eds, n), _T.c_enum(mode, "mode", "CUstreamCaptureMode_enum"))
    return _OK


@_face
def cuStreamGetCaptureInfo(hStream: Any) -> _Result:
    status, cid, g, deps, eds, n = _drv().stream_get_capture_info(_h(hStream, _CUstream))
    return (_SUCCESS, _E.CUstreamCaptureStatus(status), _cuuint64_t._mk(cid), _mk_graph(g),
            [_mk_node(x) for x in deps], [_edge(ed) for ed in eds], n)


def _edge(ed: _EdgeData) -> Any:
    e = _CUgraphEdgeData()
    e._d["from_port"], e._d["to_port"], e._d["type"] = ed[0], ed[1], ed[2]
    return e


@_face
def cuStreamUpdateCaptureDependencies(hStream: Any, dependencies: Any, dependencyData: Any, numDependencies: Any,
                                      flags: Any) -> _Result:
    deps = _node_list(dependencies, "dependencies")
    eds = _edge_list(dependencyData, "dependencyData")
    deps, eds = _capture_deps(deps, eds, _size(numDependencies))
    _drv().stream_update_capture_dependencies(_h(hStream, _CUstream), deps, eds, _u(flags))
    return _OK


@_face
def cuThreadExchangeStreamCaptureMode(mode: Any) -> _Result:
    m = _T.c_enum(mode, "mode", "CUstreamCaptureMode_enum")
    return (_SUCCESS, _E.CUstreamCaptureMode(_drv().thread_exchange_stream_capture_mode(m)))


@_face
def cuStreamBeginCaptureToCig(hStream: Any, streamCigCaptureParams: Any) -> _Result:
    p = _struct_arg(streamCigCaptureParams, "CUstreamCigCaptureParams", "streamCigCaptureParams")
    dtype, data = None, 0
    if p is not None and p.streamCigParams:
        c = p.streamCigParams[0]
        dtype, data = c._raw("streamSharedDataType"), c.streamSharedData
    _drv().stream_begin_capture_to_cig(_h(hStream, _CUstream), dtype, data)
    return _OK


# =========================================================================== events
@_doc
def cuEventRecord(hEvent: Any, hStream: Any) -> _Result:
    hs = hStream if type(hStream) is int and 0 <= hStream < _U64 else _h(hStream, _CUstream)  # last first
    he = hEvent if type(hEvent) is int and 0 <= hEvent < _U64 else _h(hEvent, _CUevent)
    try:
        _drv().event_record(he, hs)
    except _DriverError as e:
        return (e.code,)
    return _OK


# =========================================================================== memory


@_face
def cuMemHostRegister(p: Any, bytesize: Any, Flags: Any) -> _Result:
    _drv().mem_host_register(_T.void_ptr(p), _size(bytesize), _u(Flags))
    return _OK


@_face
def cuMemHostUnregister(p: Any) -> _Result:
    _drv().mem_host_register(_T.void_ptr(p), 0, 0, unregister=True)
    return _OK


def _host(x: Any) -> Any:
    return _T.check_void_ptr_obj(x)


def _copy(d: Any, p: _CopyParams, h: Any, call: str) -> _Result:
    d.memcpy(p, h, call)
    return _OK


@_face
def cuMemcpyHtoD(dstDevice: Any, srcHost: Any, ByteCount: Any) -> _Result:
    return _copy(_drv(), _CopyParams(_HOST, _host(srcHost), _DEV, _h(dstDevice, _CUdeviceptr), _size(ByteCount)),
                 None, "cuMemcpyHtoD")


@_doc
def cuMemcpyHtoDAsync(dstDevice: Any, srcHost: Any, ByteCount: Any, hStream: Any) -> _Result:
    n = _size(ByteCount)  # typed: converted at entry; then the handles, last first; then the buffer
    hs = _h(hStream, _CUstream)
    dst = _h(dstDevice, _CUdeviceptr)
    try:
        p = _CopyParams(_HOST, _host(srcHost), _DEV, dst, n)
        _drv().memcpy(p, hs, "cuMemcpyHtoDAsync")
    except _DriverError as e:
        return (e.code,)
    return _OK


@_face
def cuMemcpyDtoH(dstHost: Any, srcDevice: Any, ByteCount: Any) -> _Result:
    return _copy(_drv(), _CopyParams(_DEV, _h(srcDevice, _CUdeviceptr), _HOST, _host(dstHost), _size(ByteCount)),
                 None, "cuMemcpyDtoH")


@_face
def cuMemcpyDtoHAsync(dstHost: Any, srcDevice: Any, ByteCount: Any, hStream: Any) -> _Result:
    return _copy(_drv(), _CopyParams(_DEV, _h(srcDevice, _CUdeviceptr), _HOST, _host(dstHost), _size(ByteCount)),
                 _h(hStream, _CUstream), "cuMemcpyDtoHAsync")


@_face
def cuMemcpyDtoD(dstDevice: Any, srcDevice: Any, ByteCount: Any) -> _Result:
    return _copy(_drv(), _CopyParams(_DEV, _h(srcDevice, _CUdeviceptr), _DEV, _h(dstDevice, _CUdeviceptr),
                                     _size(ByteCount)), None, "cuMemcpyDtoD")


@_face
def cuMemcpyDtoDAsync(dstDevice: Any, srcDevice: Any, ByteCount: Any, hStream: Any) -> _Result:
    return _copy(_drv(), _CopyParams(_DEV, _h(srcDevice, _CUdeviceptr), _DEV, _h(dstDevice, _CUdeviceptr),
                                     _size(ByteCount)), _h(hStream, _CUstream), "cuMemcpyDtoDAsync")


_MT_HOST, _MT_DEVICE, _MT_ARRAY, _MT_UNIFIED = 1, 2, 3, 4
_SIDE_KINDS = {_MT_HOST: _HOST, _MT_DEVICE: _DEV}  # the common memory types, without a core call


def _side(d: Any, st: Any, pre: str, call: str) -> tuple[str, Any, bool]:
    """(kind, address-or-host-object, unified) of one side of a CUDA_MEMCPY2D/3D (the core reads the memory
    type: :meth:`simcuda.Driver.copy_memory_type`)."""
    mt = st._raw(pre + "MemoryType")
    kind = _SIDE_KINDS.get(mt) or d.copy_memory_type(mt, pre, call)
    if kind == _HOST:
        return _HOST, st._raw(pre + "Host"), False
    if kind == _DEV:
        return _DEV, int(st._raw(pre + "Device")), False
    a = int(st._raw(pre + "Device"))
    return d.unified_side(a), a, True


def _copy_struct(d: Any, p: Any, call: str, three_d: bool) -> _CopyParams:
    _struct_arg(p, "CUDA_MEMCPY3D" if three_d else "CUDA_MEMCPY2D", "pCopy")
    sk, so, su = _side(d, p, "src", call)
    dk, do, du = _side(d, p, "dst", call)
    g = p._d
    if three_d:
        return _CopyParams(sk, so, dk, do, g["WidthInBytes"], g["Height"], g["Depth"], g["srcPitch"], g["srcHeight"],
                           g["dstPitch"], g["dstHeight"], g["srcXInBytes"], g["srcY"], g["srcZ"], g["dstXInBytes"],
                           g["dstY"], g["dstZ"], src_unified=su, dst_unified=du)
    return _CopyParams(sk, so, dk, do, g["WidthInBytes"], g["Height"], 1, g["srcPitch"], 0, g["dstPitch"], 0,
                       g["srcXInBytes"], g["srcY"], 0, g["dstXInBytes"], g["dstY"], 0, src_unified=su, dst_unified=du)


def _pcopy_none(pCopy: Any, call: str) -> None:
    if pCopy is None:
        _drv().require_arg(False, "pCopy", call)


@_face
def cuMemcpy2D(pCopy: Any) -> _Result:
    _pcopy_none(pCopy, "cuMemcpy2D")
    d = _drv()
    return _copy(d, _copy_struct(d, pCopy, "cuMemcpy2D", False), None, "cuMemcpy2D")


@_face
def cuMemcpy2DUnaligned(pCopy: Any) -> _Result:
    _pcopy_none(pCopy, "cuMemcpy2DUnaligned")
    d = _drv()
    return _copy(d, _copy_struct(d, pCopy, "cuMemcpy2DUnaligned", False), None, "cuMemcpy2DUnaligned")


@_face
def cuMemcpy2DAsync(pCopy: Any, hStream: Any) -> _Result:
    _pcopy_none(pCopy, "cuMemcpy2DAsync")
    d = _drv()
    return _copy(d, _copy_struct(d, pCopy, "cuMemcpy2DAsync", False), _h(hStream, _CUstream), "cuMemcpy2DAsync")


@_face
def cuMemcpy3D(pCopy: Any) -> _Result:
    _pcopy_none(pCopy, "cuMemcpy3D")
    d = _drv()
    return _copy(d, _copy_struct(d, pCopy, "cuMemcpy3D", True), None, "cuMemcpy3D")


@_face
def cuMemcpy3DAsync(pCopy: Any, hStream: Any) -> _Result:
    _pcopy_none(pCopy, "cuMemcpy3DAsync")
    d = _drv()
    return _copy(d, _copy_struct(d, pCopy, "cuMemcpy3DAsync", True), _h(hStream, _CUstream), "cuMemcpy3DAsync")


_UCHAR, _USHORT, _UINT = (8, "unsigned char"), (16, "unsigned short"), (32, "unsigned int")


def _set(dst: Any, value: Any, vt: tuple[int, str], esize: int, width: Any, height: Any, pitch: Any, h: Any,
         call: str) -> _Result:
    p = _MemsetParams(_h(dst, _CUdeviceptr), _u(value, *vt), esize, _size(width), _size(height), _size(pitch))
    _drv().memset(p, None if h is None else _h(h, _CUstream), call)
    return _OK


@_face
def cuMemsetD8(dstDevice: Any, uc: Any, N: Any) -> _Result:
    return _set(dstDevice, uc, _UCHAR, 1, N, 1, 0, None, "cuMemsetD8")


@_face
def cuMemsetD16(dstDevice: Any, us: Any, N: Any) -> _Result:
    return _set(dstDevice, us, _USHORT, 2, N, 1, 0, None, "cuMemsetD16")


@_face
def cuMemsetD32(dstDevice: Any, ui: Any, N: Any) -> _Result:
    return _set(dstDevice, ui, _UINT, 4, N, 1, 0, None, "cuMemsetD32")


@_face
def cuMemsetD8Async(dstDevice: Any, uc: Any, N: Any, hStream: Any) -> _Result:
    return _set(dstDevice, uc, _UCHAR, 1, N, 1, 0, hStream, "cuMemsetD8Async")


@_face
def cuMemsetD16Async(dstDevice: Any, us: Any, N: Any, hStream: Any) -> _Result:
    return _set(dstDevice, us, _USHORT, 2, N, 1, 0, hStream, "cuMemsetD16Async")


@_face
def cuMemsetD32Async(dstDevice: Any, ui: Any, N: Any, hStream: Any) -> _Result:
    return _set(dstDevice, ui, _UINT, 4, N, 1, 0, hStream, "cuMemsetD32Async")


@_face
def cuMemsetD2D8(dstDevice: Any, dstPitch: Any, uc: Any, Width: Any, Height: Any) -> _Result:
    return _set(dstDevice, uc, _UCHAR, 1, Width, Height, dstPitch, None, "cuMemsetD2D8")


@_face
def cuMemsetD2D16(dstDevice: Any, dstPitch: Any, us: Any, Width: Any, Height: Any) -> _Result:
    return _set(dstDevice, us, _USHORT, 2, Width, Height, dstPitch, None, "cuMemsetD2D16")


@_face
def cuMemsetD2D32(dstDevice: Any, dstPitch: Any, ui: Any, Width: Any, Height: Any) -> _Result:
    return _set(dstDevice, ui, _UINT, 4, Width, Height, dstPitch, None, "cuMemsetD2D32")


@_face
def cuMemsetD2D8Async(dstDevice: Any, dstPitch: Any, uc: Any, Width: Any, Height: Any, hStream: Any) -> _Result:
    return _set(dstDevice, uc, _UCHAR, 1, Width, Height, dstPitch, hStream, "cuMemsetD2D8Async")


@_face
def cuMemsetD2D16Async(dstDevice: Any, dstPitch: Any, us: Any, Width: Any, Height: Any, hStream: Any) -> _Result:
    return _set(dstDevice, us, _USHORT, 2, Width, Height, dstPitch, hStream, "cuMemsetD2D16Async")


@_face
def cuMemsetD2D32Async(dstDevice: Any, dstPitch: Any, ui: Any, Width: Any, Height: Any, hStream: Any) -> _Result:
    return _set(dstDevice, ui, _UINT, 4, Width, Height, dstPitch, hStream, "cuMemsetD2D32Async")


# =========================================================================== modules
def _image(image: Any) -> Any:
    """A module image as the real ``void*`` helper takes it: a buffer (bytes, numpy char array) or an ``int``
    address of NUL-terminated text, which the core reads only where it is readable memory (INVALID_VALUE
    otherwise; :mod:`simcuda._core.hostmem`). ``None`` is NULL (an empty image)."""
    x = _T.check_void_ptr_obj(image)
    return b"" if x is None else x


@_face
def cuModuleLoadData(image: Any) -> _Result:
    return (_SUCCESS, _CUmodule._mk(_drv().module_load_data(_image(image))))


@_face
def cuModuleLoadDataEx(image: Any, numOptions: Any, options: Any, optionValues: Any) -> _Result:
    _options(options, optionValues, numOptions)
    return (_SUCCESS, _CUmodule._mk(_drv().module_load_data(_image(image), "cuModuleLoadDataEx")))


def _options(options: Any, values: Any, n: Any) -> None:
    """The wrapper's length checks of an option list and its value list (items were checked by the plan)."""
    n = _u(n)
    for lst in (options, values):
        have = 0 if lst is None else len(list(lst))
        if n > have:
            raise RuntimeError(f"List is too small: {have} < {n}")


def _jit(options: Any, values: Any, n: Any) -> tuple[int, list[int], list[Any]]:
    """A JIT option list as the core takes it, after the wrapper's length checks: ``(numOptions, options,
    values)``, the options and enum values (``CUjit_target``...) as ``int``, other values (a log buffer, an
    ``int``, a ``float``) as given (the core writes the logs into a writable buffer)."""
    _options(options, values, n)
    k = _u(n)
    vals = [int(v.value) if isinstance(v, _enum.Enum) else v for v in list(values or [])[:k]]
    return k, [int(o) for o in list(options or [])[:k]], vals


_CUlinkState = globals()["CUlinkState"]


@_face
def cuLinkCreate(numOptions: Any, options: Any, optionValues: Any) -> _Result:
    return (_SUCCESS, _CUlinkState._mk(_drv().link_create(*_jit(options, optionValues, numOptions))))


@_face
def cuLinkAddData(state: Any, typename: Any, data: Any, size: Any, name: Any, numOptions: Any, options: Any,
                  optionValues: Any) -> _Result:
    _drv().link_add_data(_h(state, _CUlinkState), int(typename), _T.check_void_ptr_obj(data), _size(size),
                         _bytes_arg(name).decode("utf-8", "replace"), *_jit(options, optionValues, numOptions))
    return _OK


@_face
def cuLinkAddFile(state: Any, typename: Any, path: Any, numOptions: Any, options: Any, optionValues: Any) -> _Result:
    _drv().link_add_file(_h(state, _CUlinkState), int(typename), os.fsdecode(_bytes_arg(path)),
                         *_jit(options, optionValues, numOptions))
    return _OK


@_face
def cuModuleLoadFatBinary(fatCubin: Any) -> _Result:
    return (_SUCCESS, _CUmodule._mk(_drv().module_load_data(_image(fatCubin), "cuModuleLoadFatBinary")))


@_face
def cuModuleLoad(fname: Any) -> _Result:
    path = _bytes_arg(fname)
    d = _drv()
    data = d.read_image_file(os.fsdecode(path), "cuModuleLoad")
    return (_SUCCESS, _CUmodule._mk(d.module_load_data(data, "cuModuleLoad")))


@_face
def cuModuleGetFunction(hmod: Any, name: Any) -> _Result:
    n = _bytes_arg(name).decode()
    return (_SUCCESS, _CUfunction._mk(_drv().module_get_function(_h(hmod, _CUmodule), n)))


@_face
def cuFuncGetName(hfunc: Any) -> _Result:
    return (_SUCCESS, _drv().func_get_name(_h(hfunc, _CUfunction)).encode())


# =========================================================================== launches
_kernel_args = _KP.kernel_args
#: the last launch's six dimensions (converted: plain ints) and its (grid, block) tuples: the same
#: objects again need no conversion and give the same tuples, which lets the core recognise a repeated
#: launch by identity (tuples and ints are immutable); a fresh object first, which no argument is
_NO_DIMS: tuple[Any, ...] = (object(),) * 6 + (None, None)
_dims = _NO_DIMS


@_doc
def cuLaunchKernel(f: Any, gridDimX: Any, gridDimY: Any, gridDimZ: Any, blockDimX: Any, blockDimY: Any,
                   blockDimZ: Any, sharedMemBytes: Any, hStream: Any, kernelParams: Any, extra: Any) -> _Result:
    global _dims
    c = _dims  # typed parameters first (Cython converts them at entry), then the handles, last first
    if (gridDimX is c[0] and gridDimY is c[1] and gridDimZ is c[2] and blockDimX is c[3] and blockDimY is c[4]
            and blockDimZ is c[5]):  # the last launch's dimensions, converted then: only sharedMemBytes to check
        grid, block = c[6], c[7]
        if sharedMemBytes.__class__ is not int or sharedMemBytes < 0 or sharedMemBytes >> 32:
            sharedMemBytes = _u(sharedMemBytes)
    else:
        t = int
        if (type(gridDimX) is t and type(gridDimY) is t and type(gridDimZ) is t and type(blockDimX) is t
                and type(blockDimY) is t and type(blockDimZ) is t and type(sharedMemBytes) is t):
            v = gridDimX | gridDimY | gridDimZ | blockDimX | blockDimY | blockDimZ | sharedMemBytes
        else:
            v = -1  # a bool, an int enum, a numpy integer...: converted to a plain int, as the wrapper does
        if v < 0 or v >> 32:  # not plain unsigned ints: convert each as the wrapper does (OverflowError texts)
            gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes = map(
                _u, (gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes))
            v = 0
        grid, block = (gridDimX, gridDimY, gridDimZ), (blockDimX, blockDimY, blockDimZ)
        # kept only for ints (or bools, int enums: immutable), which need no conversion when passed again
        _dims = (gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, grid, block) if v.__class__ is int \
            else _NO_DIMS
    if type(extra) is not int or extra < 0 or extra >> 64:
        extra = _u(extra, 64, "unsigned PY_LONG_LONG")
    t = type(hStream)  # the wrapper's value read as its __int__ reads it (what _h does for a wrapper)
    if t is _CUstream:
        b = hStream._buf
        hs = hStream._v if b is None else int(b.value)
    else:
        hs = hStream if t is int and 0 <= hStream < _U64 else _h(hStream, _CUstream)
    t = type(f)
    if t is _CUfunction:
        b = f._buf
        hf = f._v if b is None else int(b.value)
    else:
        hf = f if t is int and 0 <= f < _U64 else _h(f, _CUfunction)
    d = _st._current
    if d is None or d.per_thread_mode is None:
        d = _drv()
    try:
        if extra:
            _KP.check_form(kernelParams)  # the wrapper converts kernelParams before the driver sees extra
            d.check_kernel_extra(_KP.given(kernelParams), extra, "cuLaunchKernel")
        if kernelParams is None:
            args = []
        else:
            last = _KP._last  # the check kernel_args starts with, inline (see _kernel_params._last)
            if kernelParams is last[0]:
                for w in last[2]:
                    if w._buf is not None:
                        args = _kernel_args(d, hf, kernelParams)
                        break
                else:
                    args = last[1]
            else:
                args = _kernel_args(d, hf, kernelParams)
        d.launch_kernel_fast(hf, grid, block, sharedMemBytes, hs, args)
    except _DriverError as e:
        return (e.code,)
    return _OK


@_face
def cuLaunchCooperativeKernel(f: Any, gridDimX: Any, gridDimY: Any, gridDimZ: Any, blockDimX: Any, blockDimY: Any,
                              blockDimZ: Any, sharedMemBytes: Any, hStream: Any, kernelParams: Any) -> _Result:
    hf, hs = _h(f, _CUfunction), _h(hStream, _CUstream)
    dims = tuple(map(_u, (gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes)))
    d = _drv()
    args = _kernel_args(d, hf, kernelParams, "cuLaunchCooperativeKernel")
    d.launch_kernel(hf, dims[0:3], dims[3:6], dims[6], hs, args, "cuLaunchCooperativeKernel")
    return _OK


@_face
def cuLaunchKernelEx(config: Any, f: Any, kernelParams: Any, extra: Any) -> _Result:
    _struct_arg(config, "CUlaunchConfig", "config")
    extra = _u(extra, 64, "unsigned PY_LONG_LONG")
    _KP.check_form(kernelParams)  # converted before the driver sees the NULL config
    d = _drv()
    d.require_arg(config is not None, "config", "cuLaunchKernelEx")
    hf = _h(f, _CUfunction)
    c = config._d
    attrs = config.attrs[:c["numAttrs"]]
    # the union member the attribute's id names (the real union shares its bytes; these fields do not)
    programmatic = d.check_launch_attributes([a._raw("id") for a in attrs], "cuLaunchKernelEx",
                                             [a.value.cooperative if a._raw("id") == 2 else
                                              (a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z)
                                              if a._raw("id") == 4 else
                                              a.value.programmaticStreamSerializationAllowed for a in attrs])
    d.check_kernel_extra(_KP.given(kernelParams), extra, "cuLaunchKernelEx")
    d.launch_kernel(hf, (c["gridDimX"], c["gridDimY"], c["gridDimZ"]), (c["blockDimX"], c["blockDimY"], c["blockDimZ"]),
                    c["sharedMemBytes"], int(c["hStream"]), _kernel_args(d, hf, kernelParams, "cuLaunchKernelEx"),
                    "cuLaunchKernelEx", programmatic)
    return _OK


def _host_fn(fn: Any) -> int:
    """``CUhostFn`` or ``int`` address; a callable or CFUNCTYPE object raises ``TypeError`` (spec 3.9)."""
    return _h(fn, _CUhostFn)


@_face
def cuLaunchHostFunc(hStream: Any, fn: Any, userData: Any) -> _Result:
    fp = _host_fn(fn)
    _drv().launch_host_func(_h(hStream, _CUstream), fp, _T.void_ptr(userData))
    return _OK


@_face
def cuLaunchHostFunc_v2(hStream: Any, fn: Any, userData: Any, syncMode: Any) -> _Result:
    fp = _host_fn(fn)
    _drv().launch_host_func(_h(hStream, _CUstream), fp, _T.void_ptr(userData), _u(syncMode))
    return _OK


# =========================================================================== user objects, memory pools
@_face
def cuUserObjectCreate(ptr: Any, destroy: Any, initialRefcount: Any, flags: Any) -> _Result:
    fp = _host_fn(destroy)
    return (_SUCCESS, globals()["CUuserObject"]._mk(
        _drv().user_object_create(_T.void_ptr(ptr), fp, initialRefcount, flags)))


def _enum_attr(attr: Any, cls: Any, c_name: str) -> int:
    """``attr`` of a call whose wrapper reads ``attr.value`` after the typed parameter's conversion (``c_name``):
    a ``cls`` member; an ``int`` raises ``AttributeError``, as in the real binding."""
    _T.c_enum(attr, "attr", c_name)  # the typed parameter's conversion at entry
    if not isinstance(attr, cls):
        raise AttributeError(f"'{_tp_name(type(attr))}' object has no attribute 'value'")
    return int(attr.value)


def _pool_attr(attr: Any) -> int:
    """``attr`` of the pool-attribute calls (a ``CUmemPool_attribute``)."""
    return _enum_attr(attr, _E.CUmemPool_attribute, "CUmemPool_attribute_enum")


@_face
def cuMemPoolGetAttribute(pool: Any, attr: Any) -> _Result:
    hp = _h(pool, globals()["CUmemoryPool"])
    a = _pool_attr(attr)
    v = _drv().mem_pool_get_attribute(hp, a)
    return (_SUCCESS, _cuuint64_t._mk(v) if a in _POOL_ATTR_U64 else v)


@_face
def cuMemPoolSetAttribute(pool: Any, attr: Any, value: Any) -> _Result:
    hp = _h(pool, globals()["CUmemoryPool"])
    a = _pool_attr(attr)
    if a in _POOL_ATTR_U64:
        value.getPtr  # noqa: B018  # a cuuint64_t, as the wrapper requires (AttributeError otherwise)
        v = int(value)
    else:
        v = int(value)
    _drv().mem_pool_set_attribute(hp, a, v)
    return _OK


# -- memory pools and graph memory (entries/pools.py; issue 10) ----------------------------------------
def _pool_props(d: Any, props: Any) -> dict[str, Any]:
    """The core arguments of a ``CUmemPoolProps`` (NULL is the driver's INVALID_VALUE)."""
    _struct_arg(props, "CUmemPoolProps", "poolProps")
    _null(d, props, "cuMemPoolCreate", "poolProps")
    g = props._d
    loc = g["location"]._d
    lz = loc["localized"]._d
    return {"alloc_type": int(g["allocType"]), "handle_types": int(g["handleTypes"]),
            "location": (int(loc["type"]), int(loc["id"])), "max_size": int(g["maxSize"]), "usage": int(g["usage"]),
            "localized": (int(lz["deviceId"]), int(lz["localityDomainId"]))}


@_face
def cuMemPoolCreate(poolProps: Any) -> _Result:
    d = _drv()
    return (_SUCCESS, globals()["CUmemoryPool"]._mk(d.mem_pool_create(**_pool_props(d, poolProps))))


def _access_descs(x: Any, count: Any, arg: str = "map") -> list[tuple[int, int, int]]:
    """``(location type, id, flags)`` of the first ``count`` items of a ``CUmemAccessDesc`` list (the wrapper's
    list check and ``RuntimeError: List is too small`` when fewer are given)."""
    items = [] if x is None else list(x)
    cls = globals()["CUmemAccessDesc"]
    if not all(isinstance(a, cls) for a in items):
        raise TypeError(f"Argument '{arg}' is not instance of type (expected tuple[cydriver.CUmemAccessDesc,] or "
                        "list[cydriver.CUmemAccessDesc,]")
    n = _size(count)
    if n > len(items):
        raise RuntimeError(f"List is too small: {len(items)} < {n}")
    return [(int(a._d["location"]._d["type"]), int(a._d["location"]._d["id"]), int(a._d["flags"]))
            for a in items[:n]]


@_face
def cuMemPoolSetAccess(pool: Any, map: Any, count: Any) -> _Result:  # noqa: A002  # the real parameter name
    descs = _access_descs(map, count)
    _drv().mem_pool_set_access(_h(pool, globals()["CUmemoryPool"]), descs)
    return _OK


@_face
def cuMemPoolGetAccess(memPool: Any, location: Any) -> _Result:
    hp = _h(memPool, globals()["CUmemoryPool"])
    _struct_arg(location, "CUmemLocation", "location")
    d = _drv()
    _null(d, location, "cuMemPoolGetAccess", "location")
    loc = location._d
    return (_SUCCESS, _E.CUmemAccess_flags(d.mem_pool_get_access(hp, (int(loc["type"]), int(loc["id"])))))


def _graph_mem_attr(attr: Any) -> int:
    """``attr`` of the graph-memory attribute calls (a ``CUgraphMem_attribute``)."""
    return _enum_attr(attr, _E.CUgraphMem_attribute, "CUgraphMem_attribute_enum")


@_face
def cuDeviceGetGraphMemAttribute(device: Any, attr: Any) -> _Result:
    dev = _h(device, globals()["CUdevice"])
    a = _graph_mem_attr(attr)
    return (_SUCCESS, _cuuint64_t._mk(_drv().device_get_graph_mem_attribute(dev, a)))


@_face
def cuDeviceSetGraphMemAttribute(device: Any, attr: Any, value: Any) -> _Result:
    dev = _h(device, globals()["CUdevice"])
    a = _graph_mem_attr(attr)
    value.getPtr  # noqa: B018  # a cuuint64_t, as the wrapper requires (AttributeError otherwise)
    _drv().device_set_graph_mem_attribute(dev, a, int(value))
    return _OK


# =========================================================================== graphs
# -- graph node parameter structs <-> core parameters -----------------------------------------------
_NT_KERNEL, _NT_MEMCPY, _NT_MEMSET, _NT_HOST, _NT_GRAPH, _NT_EMPTY, _NT_WAIT, _NT_RECORD = 0, 1, 2, 3, 4, 5, 6, 7
_NT_SIGNAL, _NT_EXT_WAIT, _NT_ALLOC, _NT_FREE, _NT_BATCH = 8, 9, 10, 11, 12
_NT_COND = 13  # conditional nodes (topic: conditional)


def _null(d: Any, x: Any, call: str, arg: str) -> None:
    if x is None:
        d.require_arg(False, arg, call)


def _kernel_spec(d: Any, st: Any, call: str) -> dict[str, Any]:
    """Core kernel spec from a ``CUDA_KERNEL_NODE_PARAMS`` (v1/v2/v3): function (or ``kern``), dims, args."""
    p = st._d
    hf = int(p["func"]) or int(p.get("kern", 0) or 0)
    if p["extra"]:
        d.check_kernel_extra(_KP.given(p["kernelParams"]), p["extra"], call)
    return {"hfunc": hf, "grid": (p["gridDimX"], p["gridDimY"], p["gridDimZ"]),
            "block": (p["blockDimX"], p["blockDimY"], p["blockDimZ"]), "shmem": p["sharedMemBytes"],
            "args": _kernel_args(d, hf, p["kernelParams"], call)}


def _kernel_struct(params: Any, cls_name: str = "CUDA_KERNEL_NODE_PARAMS") -> Any:
    """A ``CUDA_KERNEL_NODE_PARAMS`` describing core kernel parameters (a ``KernelParams``); ``kernelParams`` is
    the address of a ``void**`` array owned by the returned struct (as the driver's copy is owned by the node)."""
    import ctypes
    st = globals()[cls_name]()
    f = params.func
    g = st._d
    g["func"] = _CUfunction._mk(f.handle)
    g["gridDimX"], g["gridDimY"], g["gridDimZ"] = params.grid
    g["blockDimX"], g["blockDimY"], g["blockDimZ"] = params.block
    g["sharedMemBytes"] = params.shmem
    g["ctx"] = _mk_ctx(f.module.ctx.handle if f.module.ctx is not None else 0)
    args = params.args
    if args:
        types = f.param_types if len(f.param_types) == len(args) else [None] * len(args)
        slots = [_KP.arg_slot(t, v) for t, v in zip(types, args)]
        arr = (ctypes.c_void_p * len(slots))(*[ctypes.addressof(s) for s in slots])
        object.__setattr__(st, "_keep", (arr, slots))
        g["kernelParams"] = ctypes.addressof(arr)
    return st


def _memcpy_from(d: Any, st: Any, call: str) -> _CopyParams:
    return _copy_struct(d, st, call, True)


def _memcpy_struct(p: _CopyParams) -> Any:
    """A ``CUDA_MEMCPY3D`` describing core copy parameters (host sides keep the object they were given;
    a unified side, spec 16, reports ``CU_MEMORYTYPE_UNIFIED`` with its address in ``*Device``)."""
    st = globals()["CUDA_MEMCPY3D"]()
    g = st._d
    for pre, kind, obj, x, y, z, pitch, height in (
            ("src", p.src_kind, p.src, p.src_x, p.src_y, p.src_z, p.src_pitch, p.src_height),
            ("dst", p.dst_kind, p.dst, p.dst_x, p.dst_y, p.dst_z, p.dst_pitch, p.dst_height)):
        if p.memory_type(pre) == _MT_UNIFIED:
            g[pre + "MemoryType"], g[pre + "Device"] = _MT_UNIFIED, _mk_dptr(int(obj))
        elif kind == _HOST:
            g[pre + "MemoryType"], g[pre + "Host"] = _MT_HOST, obj
        else:
            g[pre + "MemoryType"], g[pre + "Device"] = _MT_DEVICE, _mk_dptr(int(obj))
        g[pre + "XInBytes"], g[pre + "Y"], g[pre + "Z"], g[pre + "Pitch"], g[pre + "Height"] = x, y, z, pitch, height
    g["WidthInBytes"], g["Height"], g["Depth"] = p.width, p.height, p.depth
    return st


def _memset_from(st: Any) -> _MemsetParams:
    m = st._d
    return _MemsetParams(int(m["dst"]), m["value"], m["elementSize"], m["width"], m["height"], m["pitch"])


def _memset_struct(p: _MemsetParams, cls_name: str = "CUDA_MEMSET_NODE_PARAMS") -> Any:
    st = globals()[cls_name]()
    g = st._d
    g["dst"], g["pitch"], g["value"], g["elementSize"] = _mk_dptr(p.dst), p.pitch, p.value, p.element_size
    g["width"], g["height"] = p.width, p.height
    return st


def _host_from(st: Any) -> dict[str, Any]:
    g = st._d
    return {"fn": int(g["fn"]), "user_data": _T.void_ptr(g["userData"]), "sync_mode": g.get("syncMode", 0)}


def _host_struct(p: Any, cls_name: str = "CUDA_HOST_NODE_PARAMS") -> Any:
    st = globals()[cls_name]()
    fn = p.fn
    st._d["fn"] = _CUhostFn._mk(fn if isinstance(fn, int) else 0)
    st._d["userData"] = p.user_data if p.user_data else 0
    if "syncMode" in st._d:
        st._d["syncMode"] = p.sync_mode
    return st


def _alloc_from(d: Any, st: Any, call: str) -> dict[str, Any]:
    g = st._d
    pp = g["poolProps"]._d
    loc = pp["location"]._d
    count = g["accessDescCount"]
    descs = list(g["accessDescs"])
    if count > len(descs):
        d.require_count(count, len(descs), "accessDescCount", call)
    access = [(a._d["location"]._d["type"], a._d["location"]._d["id"], a._d["flags"]) for a in descs[:count]]
    return {"size": g["bytesize"], "location": (loc["type"], loc["id"]), "alloc_type": pp["allocType"],
            "access": access}


def _alloc_struct(p: Any, cls_name: str = "CUDA_MEM_ALLOC_NODE_PARAMS") -> Any:
    st = globals()[cls_name]()
    g = st._d
    pp = g["poolProps"]._d
    pp["allocType"] = 1  # CU_MEM_ALLOCATION_TYPE_PINNED
    pp["location"]._d["type"], pp["location"]._d["id"] = 1, p.device  # CU_MEM_LOCATION_TYPE_DEVICE
    descs = []
    for t, did, fl in p.access:
        a = globals()["CUmemAccessDesc"]()
        a._d["location"]._d["type"], a._d["location"]._d["id"], a._d["flags"] = t, did, fl
        descs.append(a)
    g["accessDescs"], g["accessDescCount"] = descs, len(descs)
    g["bytesize"], g["dptr"] = p.size, _mk_dptr(p.alloc.start)
    return st


def _mem_ops_from(d: Any, params: list[Any], count: int, call: str) -> list[_MemOp]:
    """``(operation, address, value, flags)`` tuples from ``CUstreamBatchMemOpParams`` (union read by type)."""
    if count > len(params):
        d.require_count(count, len(params), "count (of paramArray)", call)
    ops = []
    for u in params[:count]:
        if not isinstance(u, globals()["CUstreamBatchMemOpParams_union"]):
            raise TypeError("Argument 'paramArray' is not instance of type (expected "
                            "tuple[cydriver.CUstreamBatchMemOpParams,] or list[cydriver.CUstreamBatchMemOpParams,]")
        g = u._d
        op = g["operation"] or next((g[k]._d["operation"] for k in ("waitValue", "writeValue", "flushRemoteWrites",
                                                                    "memoryBarrier") if g[k]._d["operation"]), 0)
        if op in (1, 4):
            s = g["waitValue"]._d
        elif op in (2, 5):
            s = g["writeValue"]._d
        elif op == 3:
            ops.append((op, 0, 0, g["flushRemoteWrites"]._d["flags"]))
            continue
        elif op == 6:
            ops.append((op, 0, 0, g["memoryBarrier"]._d["flags"]))
            continue
        else:
            ops.append((op, 0, 0, 0))  # the core refuses unknown or unsimulated types with INVALID_VALUE
            continue
        value = int(s["value"]) if op in (1, 2) else int(s["value64"])
        ops.append((op, int(s["address"]), value, s["flags"]))
    return ops


def _mem_op_struct(op: _MemOp) -> Any:
    u = globals()["CUstreamBatchMemOpParams"]()
    kind, addr, value, flags = op
    u._d["operation"] = kind
    key = {1: "waitValue", 4: "waitValue", 2: "writeValue", 5: "writeValue", 3: "flushRemoteWrites",
           6: "memoryBarrier"}.get(kind)
    if key is not None:
        s = u._d[key]._d
        s["operation"] = kind
        s["flags"] = flags
        if "address" in s:
            s["address"] = _mk_dptr(addr)
            if kind in (1, 2):
                s["value"] = globals()["cuuint32_t"](value)
            else:
                s["value64"] = globals()["cuuint64_t"](value)
    return u


def _batch_from(d: Any, st: Any, call: str) -> dict[str, Any]:
    g = st._d
    return {"ops": _mem_ops_from(d, list(g["paramArray"]), g["count"], call), "flags": g["flags"],
            "ctx": int(g["ctx"])}


def _batch_struct(p: Any, cls_name: str = "CUDA_BATCH_MEM_OP_NODE_PARAMS") -> Any:
    st = globals()[cls_name]()
    g = st._d
    g["ctx"] = _mk_ctx(p.ctx.handle if p.ctx is not None else 0)
    g["paramArray"] = [_mem_op_struct(op) for op in p.ops]
    g["count"], g["flags"] = len(p.ops), p.flags
    return st


def _ext_from(d: Any, st: Any, wait: bool, call: str) -> dict[str, Any]:
    g = st._d
    n = g["numExtSems"]
    sems, params = list(g["extSemArray"]), list(g["paramsArray"])
    if n > len(sems) or n > len(params):
        d.require_count(n, min(len(sems), len(params)), "numExtSems (of extSemArray and paramsArray)", call)
    values = []
    for sp in params[:n]:
        q = sp._d["params"]._d
        km = q["keyedMutex"]._d
        values.append((q["fence"]._d["value"], km["key"], km.get("timeoutMs", 0), sp._d["flags"]))
    return {"sems": [int(s) for s in sems[:n]], "values": values}


def _ext_struct(p: Any, wait: bool, cls_name: str) -> Any:
    st = globals()[cls_name]()
    g = st._d
    g["extSemArray"] = [globals()["CUexternalSemaphore"](h) for h in p.sems]
    pcls = globals()["CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS" if wait else "CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS"]
    out = []
    for fence, key, timeout, flags in p.values:
        sp = pcls()
        q = sp._d["params"]._d
        q["fence"]._d["value"] = fence
        q["keyedMutex"]._d["key"] = key
        if wait:
            q["keyedMutex"]._d["timeoutMs"] = timeout
        sp._d["flags"] = flags
        out.append(sp)
    g["paramsArray"], g["numExtSems"] = out, len(out)
    return st


def _ext_spec(d: Any, nodeParams: Any, wait: bool, call: str) -> dict[str, Any]:
    _null(d, nodeParams, call, "nodeParams")
    return _ext_from(d, nodeParams, wait, call)


# CUgraphNodeParams member per node type: (field, core spec reader)
_GNP_FIELD = {_NT_KERNEL: "kernel", _NT_MEMCPY: "memcpy", _NT_MEMSET: "memset", _NT_HOST: "host", _NT_GRAPH: "graph",
              _NT_EMPTY: None, _NT_WAIT: "eventWait", _NT_RECORD: "eventRecord", _NT_SIGNAL: "extSemSignal",
              _NT_EXT_WAIT: "extSemWait", _NT_ALLOC: "alloc", _NT_FREE: "free", _NT_BATCH: "memOp",
              _NT_COND: "conditional"}


def _gnp_spec(d: Any, np_: Any, call: str) -> tuple[int, Any]:
    """``(node type, core spec)`` from a ``CUgraphNodeParams`` (a tagged union read by ``type``)."""
    t = np_._d["type"]
    if t not in _GNP_FIELD:
        d.check_node_type(t, call)
    f = _GNP_FIELD[t]
    m: Any = np_._d[f] if f else None  # the member struct (None for an EMPTY node)
    if t == _NT_KERNEL:
        return t, _kernel_spec(d, m, call)
    if t == _NT_MEMCPY:
        return t, _copy_struct(d, m._d["copyParams"], call, True)
    if t == _NT_MEMSET:
        return t, _memset_from(m)
    if t == _NT_HOST:
        return t, _host_from(m)
    if t == _NT_GRAPH:
        return t, (int(m._d["graph"]), m._d["ownership"])
    if t in (_NT_WAIT, _NT_RECORD):
        return t, int(m._d["event"])
    if t in (_NT_SIGNAL, _NT_EXT_WAIT):
        return t, _ext_from(d, m, t == _NT_EXT_WAIT, call)
    if t == _NT_ALLOC:
        return t, _alloc_from(d, m, call)
    if t == _NT_FREE:
        return t, int(m._d["dptr"])
    if t == _NT_BATCH:
        return t, _batch_from(d, m, call)
    if t == _NT_COND:
        return t, _cond_from(m)
    return t, None


def _gnp_struct(t: int, p: Any) -> Any:
    """A ``CUgraphNodeParams`` describing a node of type ``t`` with core parameters ``p``."""
    np_ = globals()["CUgraphNodeParams"]()
    g = np_._d
    g["type"] = t
    if t == _NT_KERNEL:
        g["kernel"] = _kernel_struct(p, "CUDA_KERNEL_NODE_PARAMS_v3")
    elif t == _NT_MEMCPY:
        g["memcpy"]._d["copyParams"] = _memcpy_struct(p)
    elif t == _NT_MEMSET:
        g["memset"] = _memset_struct(p, "CUDA_MEMSET_NODE_PARAMS_v2")
    elif t == _NT_HOST:
        g["host"] = _host_struct(p, "CUDA_HOST_NODE_PARAMS_v2")
    elif t == _NT_GRAPH:
        g["graph"]._d["graph"] = _mk_graph(p.graph.handle)
        g["graph"]._d["ownership"] = -1  # CU_GRAPH_CHILD_GRAPH_OWNERSHIP_INVALID: set on query
    elif t in (_NT_WAIT, _NT_RECORD):
        g["eventWait" if t == _NT_WAIT else "eventRecord"]._d["event"] = _mk_event(p.event.handle)
    elif t in (_NT_SIGNAL, _NT_EXT_WAIT):
        g["extSemSignal" if t == _NT_SIGNAL else "extSemWait"] = _ext_struct(
            p, t == _NT_EXT_WAIT, "CUDA_EXT_SEM_WAIT_NODE_PARAMS_v2" if t == _NT_EXT_WAIT else
            "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS_v2")
    elif t == _NT_ALLOC:
        g["alloc"] = _alloc_struct(p, "CUDA_MEM_ALLOC_NODE_PARAMS_v2")
    elif t == _NT_FREE:
        g["free"]._d["dptr"] = _mk_dptr(p.dptr)
    elif t == _NT_BATCH:
        g["memOp"] = _batch_struct(p, "CUDA_BATCH_MEM_OP_NODE_PARAMS_v2")
    elif t == _NT_COND:
        _cond_struct(p, g["conditional"])
    return np_


# -- conditional nodes (topic: conditional) -------------------------------------------------------------------------
def _cond_from(m: Any) -> dict[str, Any]:
    """The core spec of a ``CUDA_CONDITIONAL_NODE_PARAMS`` (``graph_add_node``): handle, type, size, context."""
    g = m._d
    return {"handle": int(g["handle"]), "type": int(g["type"]), "size": int(g["size"]), "ctx": int(g["ctx"])}


def _cond_struct(p: Any, st: Any) -> None:
    """Fill ``CUDA_CONDITIONAL_NODE_PARAMS`` ``st`` from a node's ``ConditionalParams`` (cuGraphNodeGetParams)."""
    g = st._d
    g["handle"] = globals()["CUgraphConditionalHandle"](p.handle.handle)
    g["type"] = p.ctype
    g["size"] = len(p.bodies)
    g["phGraph_out"] = [_mk_graph(b.handle) for b in p.bodies]
    g["ctx"] = _mk_ctx(p.ctx.handle if p.ctx is not None else 0)


def _node_params(hNode: Any, ntype: Any) -> Any:
    return _drv().graph_node_get_params(_h(hNode, _CUgraphNode), ntype)[1]


def _node_set_typed(hNode: Any, ntype: int, spec: Any) -> _Result:
    _drv().graph_node_set_params(_h(hNode, _CUgraphNode), ntype, spec)
    return _OK


def _exec_set(hGraphExec: Any, hNode: Any, ntype: int, spec: Any) -> _Result:
    _drv().graph_exec_node_set_params(_h(hGraphExec, _CUgraphExec), _h(hNode, _CUgraphNode), ntype, spec)
    return _OK


@_face
def cuGraphAddKernelNode(hGraph: Any, dependencies: Any, numDependencies: Any, nodeParams: Any) -> _Result:
    deps = _deps_for(dependencies, numDependencies)
    _struct_arg(nodeParams, "CUDA_KERNEL_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphAddKernelNode", "nodeParams")
    k = _kernel_spec(d, nodeParams, "cuGraphAddKernelNode")
    return (_SUCCESS, _mk_node(d.graph_add_kernel_node(_h(hGraph, _CUgraph), deps, k["hfunc"], k["grid"], k["block"],
                                                      k["shmem"], k["args"])))


@_face
def cuGraphAddMemcpyNode(hGraph: Any, dependencies: Any, numDependencies: Any, copyParams: Any, ctx: Any) -> _Result:
    deps = _deps_for(dependencies, numDependencies)
    _h(ctx, _CUcontext)
    _struct_arg(copyParams, "CUDA_MEMCPY3D", "copyParams")
    d = _drv()
    _null(d, copyParams, "cuGraphAddMemcpyNode", "copyParams")
    return (_SUCCESS, _mk_node(d.graph_add_memcpy_node(_h(hGraph, _CUgraph), deps,
                                                      _copy_struct(d, copyParams, "cuGraphAddMemcpyNode", True))))


@_face
def cuGraphAddMemsetNode(hGraph: Any, dependencies: Any, numDependencies: Any, memsetParams: Any, ctx: Any) -> _Result:
    deps = _deps_for(dependencies, numDependencies)
    _h(ctx, _CUcontext)
    _struct_arg(memsetParams, "CUDA_MEMSET_NODE_PARAMS", "memsetParams")
    d = _drv()
    _null(d, memsetParams, "cuGraphAddMemsetNode", "memsetParams")
    return (_SUCCESS, _mk_node(d.graph_add_memset_node(_h(hGraph, _CUgraph), deps, _memset_from(memsetParams))))


@_face
def cuGraphAddHostNode(hGraph: Any, dependencies: Any, numDependencies: Any, nodeParams: Any) -> _Result:
    deps = _deps_for(dependencies, numDependencies)
    _struct_arg(nodeParams, "CUDA_HOST_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphAddHostNode", "nodeParams")
    h = _host_from(nodeParams)
    return (_SUCCESS, _mk_node(d.graph_add_host_node(_h(hGraph, _CUgraph), deps, h["fn"], h["user_data"])))


@_face
def cuGraphAddMemAllocNode(hGraph: Any, dependencies: Any, numDependencies: Any, nodeParams: Any) -> _Result:
    deps = _deps_for(dependencies, numDependencies)
    _struct_arg(nodeParams, "CUDA_MEM_ALLOC_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphAddMemAllocNode", "nodeParams")
    a = _alloc_from(d, nodeParams, "cuGraphAddMemAllocNode")
    node, dptr = d.graph_add_mem_alloc_node(_h(hGraph, _CUgraph), deps, a["size"], a["location"], a["alloc_type"],
                                            a["access"])
    nodeParams._d["dptr"] = _mk_dptr(dptr)
    return (_SUCCESS, _mk_node(node))


@_face
def cuGraphAddBatchMemOpNode(hGraph: Any, dependencies: Any, numDependencies: Any, nodeParams: Any) -> _Result:
    deps = _deps_for(dependencies, numDependencies)
    _struct_arg(nodeParams, "CUDA_BATCH_MEM_OP_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphAddBatchMemOpNode", "nodeParams")
    b = _batch_from(d, nodeParams, "cuGraphAddBatchMemOpNode")
    return (_SUCCESS, _mk_node(d.graph_add_batch_mem_op_node(_h(hGraph, _CUgraph), deps, b["ops"], b["flags"],
                                                            b["ctx"])))


@_face
def cuGraphAddExternalSemaphoresSignalNode(hGraph: Any, dependencies: Any, numDependencies: Any,
                                           nodeParams: Any) -> _Result:
    deps = _deps_for(dependencies, numDependencies)
    _struct_arg(nodeParams, "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS", "nodeParams")
    d = _drv()
    e = _ext_spec(d, nodeParams, False, "cuGraphAddExternalSemaphoresSignalNode")
    return (_SUCCESS, _mk_node(d.graph_add_ext_sem_node(_h(hGraph, _CUgraph), deps, e["sems"], e["values"], False)))


@_face
def cuGraphAddExternalSemaphoresWaitNode(hGraph: Any, dependencies: Any, numDependencies: Any,
                                         nodeParams: Any) -> _Result:
    deps = _deps_for(dependencies, numDependencies)
    _struct_arg(nodeParams, "CUDA_EXT_SEM_WAIT_NODE_PARAMS", "nodeParams")
    d = _drv()
    e = _ext_spec(d, nodeParams, True, "cuGraphAddExternalSemaphoresWaitNode")
    return (_SUCCESS, _mk_node(d.graph_add_ext_sem_node(_h(hGraph, _CUgraph), deps, e["sems"], e["values"], True)))


def _add_node(name: str, hGraph: Any, dependencies: Any, dependencyData: Any, numDependencies: Any,
              nodeParams: Any) -> _Result:
    deps = _deps_for(dependencies, numDependencies)
    eds = _eds_for(_edge_list(dependencyData, "dependencyData"), len(deps))
    _struct_arg(nodeParams, "CUgraphNodeParams", "nodeParams")
    d = _drv()
    _null(d, nodeParams, name, "nodeParams")
    hg = _h(hGraph, _CUgraph)
    t, spec = _gnp_spec(d, nodeParams, name)
    h, out = d.graph_add_node(hg, deps, t, spec, eds, name)
    if t == _NT_COND:  # the body graphs, owned by the node (phGraph_out, P-21)
        nodeParams._d["conditional"]._d["phGraph_out"] = [_mk_graph(b) for b in out]
    elif out is not None:
        nodeParams._d["alloc"]._d["dptr"] = _mk_dptr(out)
    return (_SUCCESS, _mk_node(h))


@_face
def cuGraphAddNode(hGraph: Any, dependencies: Any, dependencyData: Any, numDependencies: Any,
                   nodeParams: Any) -> _Result:
    return _add_node("cuGraphAddNode", hGraph, dependencies, dependencyData, numDependencies, nodeParams)


@_face
def cuGraphAddNode_v3(hGraph: Any, dependencies: Any, dependencyData: Any, numDependencies: Any,
                      nodeParams: Any) -> _Result:
    return _add_node("cuGraphAddNode_v3", hGraph, dependencies, dependencyData, numDependencies, nodeParams)


@_face
def cuGraphNodeGetParams(hNode: Any) -> _Result:
    t, p = _drv().graph_node_get_params(_h(hNode, _CUgraphNode))
    return (_SUCCESS, _gnp_struct(t, p))


def _node_set(name: str, hNode: Any, nodeParams: Any) -> _Result:
    _struct_arg(nodeParams, "CUgraphNodeParams", "nodeParams")
    d = _drv()
    _null(d, nodeParams, name, "nodeParams")
    t, spec = _gnp_spec(d, nodeParams, name)
    if t == _NT_GRAPH:
        spec = spec[0]
    elif t in (_NT_ALLOC, _NT_FREE):
        spec = None  # refused by the core (not supported for memory nodes)
    d.graph_node_set_params(_h(hNode, _CUgraphNode), t, spec)
    return _OK


@_face
def cuGraphNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    return _node_set("cuGraphNodeSetParams", hNode, nodeParams)


@_face
def cuGraphNodeSetParams_v2(hNode: Any, nodeParams: Any) -> _Result:
    return _node_set("cuGraphNodeSetParams_v2", hNode, nodeParams)


@_face
def cuGraphKernelNodeGetParams(hNode: Any) -> _Result:
    return (_SUCCESS, _kernel_struct(_node_params(hNode, _NT_KERNEL)))


@_face
def cuGraphKernelNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    _struct_arg(nodeParams, "CUDA_KERNEL_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphKernelNodeSetParams", "nodeParams")
    return _node_set_typed(hNode, _NT_KERNEL, _kernel_spec(d, nodeParams, "cuGraphKernelNodeSetParams"))


@_face
def cuGraphMemcpyNodeGetParams(hNode: Any) -> _Result:
    return (_SUCCESS, _memcpy_struct(_node_params(hNode, _NT_MEMCPY)))


@_face
def cuGraphMemcpyNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    _struct_arg(nodeParams, "CUDA_MEMCPY3D", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphMemcpyNodeSetParams", "nodeParams")
    return _node_set_typed(hNode, _NT_MEMCPY, _copy_struct(d, nodeParams, "cuGraphMemcpyNodeSetParams", True))


@_face
def cuGraphMemsetNodeGetParams(hNode: Any) -> _Result:
    return (_SUCCESS, _memset_struct(_node_params(hNode, _NT_MEMSET)))


@_face
def cuGraphMemsetNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    _struct_arg(nodeParams, "CUDA_MEMSET_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphMemsetNodeSetParams", "nodeParams")
    return _node_set_typed(hNode, _NT_MEMSET, _memset_from(nodeParams))


@_face
def cuGraphHostNodeGetParams(hNode: Any) -> _Result:
    return (_SUCCESS, _host_struct(_node_params(hNode, _NT_HOST)))


@_face
def cuGraphHostNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    _struct_arg(nodeParams, "CUDA_HOST_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphHostNodeSetParams", "nodeParams")
    return _node_set_typed(hNode, _NT_HOST, _host_from(nodeParams))


@_face
def cuGraphEventRecordNodeGetEvent(hNode: Any) -> _Result:
    return (_SUCCESS, _mk_event(_node_params(hNode, _NT_RECORD).event.handle))


@_face
def cuGraphEventRecordNodeSetEvent(hNode: Any, event: Any) -> _Result:
    return _node_set_typed(hNode, _NT_RECORD, _h(event, _CUevent))


@_face
def cuGraphEventWaitNodeGetEvent(hNode: Any) -> _Result:
    return (_SUCCESS, _mk_event(_node_params(hNode, _NT_WAIT).event.handle))


@_face
def cuGraphEventWaitNodeSetEvent(hNode: Any, event: Any) -> _Result:
    return _node_set_typed(hNode, _NT_WAIT, _h(event, _CUevent))


@_face
def cuGraphMemAllocNodeGetParams(hNode: Any) -> _Result:
    return (_SUCCESS, _alloc_struct(_node_params(hNode, _NT_ALLOC)))


@_face
def cuGraphMemFreeNodeGetParams(hNode: Any) -> _Result:
    return (_SUCCESS, _mk_dptr(_node_params(hNode, _NT_FREE).dptr))


@_face
def cuGraphBatchMemOpNodeGetParams(hNode: Any) -> _Result:
    return (_SUCCESS, _batch_struct(_node_params(hNode, _NT_BATCH)))


@_face
def cuGraphBatchMemOpNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    _struct_arg(nodeParams, "CUDA_BATCH_MEM_OP_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphBatchMemOpNodeSetParams", "nodeParams")
    return _node_set_typed(hNode, _NT_BATCH, _batch_from(d, nodeParams, "cuGraphBatchMemOpNodeSetParams"))


@_face
def cuGraphExternalSemaphoresSignalNodeGetParams(hNode: Any) -> _Result:
    return (_SUCCESS, _ext_struct(_node_params(hNode, _NT_SIGNAL), False, "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS"))


@_face
def cuGraphExternalSemaphoresSignalNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    _struct_arg(nodeParams, "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS", "nodeParams")
    spec = _ext_spec(_drv(), nodeParams, False, "cuGraphExternalSemaphoresSignalNodeSetParams")
    return _node_set_typed(hNode, _NT_SIGNAL, spec)


@_face
def cuGraphExternalSemaphoresWaitNodeGetParams(hNode: Any) -> _Result:
    return (_SUCCESS, _ext_struct(_node_params(hNode, _NT_EXT_WAIT), True, "CUDA_EXT_SEM_WAIT_NODE_PARAMS"))


@_face
def cuGraphExternalSemaphoresWaitNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    _struct_arg(nodeParams, "CUDA_EXT_SEM_WAIT_NODE_PARAMS", "nodeParams")
    spec = _ext_spec(_drv(), nodeParams, True, "cuGraphExternalSemaphoresWaitNodeSetParams")
    return _node_set_typed(hNode, _NT_EXT_WAIT, spec)


# -- per-node changes of an executable graph -------------------------------------------------------
_EXEC_LIMITS = ("The exec changes as though ``hNode`` had held the new parameters at instantiation; launches "
                "already enqueued keep what they had (manual progression shows it) and ``hNode`` itself is not "
                "changed. ")


@_face
def cuGraphExecKernelNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> _Result:
    _struct_arg(nodeParams, "CUDA_KERNEL_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphExecKernelNodeSetParams", "nodeParams")
    return _exec_set(hGraphExec, hNode, _NT_KERNEL, _kernel_spec(d, nodeParams, "cuGraphExecKernelNodeSetParams"))


@_face
def cuGraphExecMemcpyNodeSetParams(hGraphExec: Any, hNode: Any, copyParams: Any, ctx: Any) -> _Result:
    _h(ctx, _CUcontext)
    _struct_arg(copyParams, "CUDA_MEMCPY3D", "copyParams")
    d = _drv()
    _null(d, copyParams, "cuGraphExecMemcpyNodeSetParams", "copyParams")
    return _exec_set(hGraphExec, hNode, _NT_MEMCPY, _copy_struct(d, copyParams, "cuGraphExecMemcpyNodeSetParams",
                                                                 True))


@_face
def cuGraphExecMemsetNodeSetParams(hGraphExec: Any, hNode: Any, memsetParams: Any, ctx: Any) -> _Result:
    _h(ctx, _CUcontext)
    _struct_arg(memsetParams, "CUDA_MEMSET_NODE_PARAMS", "memsetParams")
    d = _drv()
    _null(d, memsetParams, "cuGraphExecMemsetNodeSetParams", "memsetParams")
    return _exec_set(hGraphExec, hNode, _NT_MEMSET, _memset_from(memsetParams))


@_face
def cuGraphExecHostNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> _Result:
    _struct_arg(nodeParams, "CUDA_HOST_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphExecHostNodeSetParams", "nodeParams")
    return _exec_set(hGraphExec, hNode, _NT_HOST, _host_from(nodeParams))


@_face
def cuGraphExecChildGraphNodeSetParams(hGraphExec: Any, hNode: Any, childGraph: Any) -> _Result:
    return _exec_set(hGraphExec, hNode, _NT_GRAPH, _h(childGraph, _CUgraph))


@_face
def cuGraphExecEventRecordNodeSetEvent(hGraphExec: Any, hNode: Any, event: Any) -> _Result:
    return _exec_set(hGraphExec, hNode, _NT_RECORD, _h(event, _CUevent))


@_face
def cuGraphExecEventWaitNodeSetEvent(hGraphExec: Any, hNode: Any, event: Any) -> _Result:
    return _exec_set(hGraphExec, hNode, _NT_WAIT, _h(event, _CUevent))


@_face
def cuGraphExecBatchMemOpNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> _Result:
    _struct_arg(nodeParams, "CUDA_BATCH_MEM_OP_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphExecBatchMemOpNodeSetParams", "nodeParams")
    return _exec_set(hGraphExec, hNode, _NT_BATCH, _batch_from(d, nodeParams, "cuGraphExecBatchMemOpNodeSetParams"))


@_face
def cuGraphExecExternalSemaphoresSignalNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> _Result:
    _struct_arg(nodeParams, "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS", "nodeParams")
    return _exec_set(hGraphExec, hNode, _NT_SIGNAL,
                     _ext_spec(_drv(), nodeParams, False, "cuGraphExecExternalSemaphoresSignalNodeSetParams"))


@_face
def cuGraphExecExternalSemaphoresWaitNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> _Result:
    _struct_arg(nodeParams, "CUDA_EXT_SEM_WAIT_NODE_PARAMS", "nodeParams")
    return _exec_set(hGraphExec, hNode, _NT_EXT_WAIT,
                     _ext_spec(_drv(), nodeParams, True, "cuGraphExecExternalSemaphoresWaitNodeSetParams"))


@_face
def cuGraphExecNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> _Result:
    _struct_arg(nodeParams, "CUgraphNodeParams", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphExecNodeSetParams", "nodeParams")
    t, spec = _gnp_spec(d, nodeParams, "cuGraphExecNodeSetParams")
    if t == _NT_GRAPH:
        spec = spec[0]
    return _exec_set(hGraphExec, hNode, t, spec)


# -- stream memory operations and external semaphores (BATCH_MEM_OP / EXT_SEMAS nodes in capture) ---
def _stream_value(name: str, stream: Any, addr: Any, value: Any, flags: Any, op: int, bits: int) -> _Result:
    hs = _h(stream, _CUstream)
    a = _h(addr, _CUdeviceptr)
    v = _h(value, globals()[f"cuuint{bits}_t"])  # a cuuint32_t/cuuint64_t argument: None is 0
    _drv().stream_batch_mem_op(hs, [(op, a, v, _u(flags))], 0, name)
    return _OK


@_face
def cuStreamWriteValue32(stream: Any, addr: Any, value: Any, flags: Any) -> _Result:
    return _stream_value("cuStreamWriteValue32", stream, addr, value, flags, 2, 32)


@_face
def cuStreamWriteValue64(stream: Any, addr: Any, value: Any, flags: Any) -> _Result:
    return _stream_value("cuStreamWriteValue64", stream, addr, value, flags, 5, 64)


@_face
def cuStreamWaitValue32(stream: Any, addr: Any, value: Any, flags: Any) -> _Result:
    return _stream_value("cuStreamWaitValue32", stream, addr, value, flags, 1, 32)


@_face
def cuStreamWaitValue64(stream: Any, addr: Any, value: Any, flags: Any) -> _Result:
    return _stream_value("cuStreamWaitValue64", stream, addr, value, flags, 4, 64)


@_face
def cuStreamBatchMemOp(stream: Any, count: Any, paramArray: Any, flags: Any) -> _Result:
    hs = _h(stream, _CUstream)
    n = _u(count)
    params = [] if paramArray is None else list(paramArray)
    if n > len(params):
        raise RuntimeError(f"List is too small: {len(params)} < {n}")
    d = _drv()
    d.stream_batch_mem_op(hs, _mem_ops_from(d, params, n, "cuStreamBatchMemOp"), _u(flags), "cuStreamBatchMemOp")
    return _OK


def _ext_async(name: str, extSemArray: Any, paramsArray: Any, numExtSems: Any, stream: Any, wait: bool) -> _Result:
    sems = _node_list(extSemArray, "extSemArray", globals()["CUexternalSemaphore"])
    pcls = "CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS" if wait else "CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS"
    params = [] if paramsArray is None else list(paramsArray)
    for p in params:
        _struct_arg(p, pcls, "paramsArray")
    n = _u(numExtSems)
    if n > len(sems):
        raise RuntimeError(f"List is too small: {len(sems)} < {n}")
    if n > len(params):
        raise RuntimeError(f"List is too small: {len(params)} < {n}")
    values = []
    for sp in params[:n]:
        q = sp._d["params"]._d
        km = q["keyedMutex"]._d
        values.append((q["fence"]._d["value"], km["key"], km.get("timeoutMs", 0), sp._d["flags"]))
    _drv().stream_ext_semaphores(_h(stream, _CUstream), sems[:n], values, wait)
    return _OK


@_face
def cuSignalExternalSemaphoresAsync(extSemArray: Any, paramsArray: Any, numExtSems: Any, stream: Any) -> _Result:
    return _ext_async("cuSignalExternalSemaphoresAsync", extSemArray, paramsArray, numExtSems, stream, False)


@_face
def cuWaitExternalSemaphoresAsync(extSemArray: Any, paramsArray: Any, numExtSems: Any, stream: Any) -> _Result:
    return _ext_async("cuWaitExternalSemaphoresAsync", extSemArray, paramsArray, numExtSems, stream, True)


def _pad_nodes(handles: list[int], n: int, mk: Any = None) -> list[Any]:
    """``n`` ``CUgraphNode`` wrappers (:func:`simcuda.bindings._build.pad_nodes`)."""
    return _B.pad_nodes(handles, n, mk or _mk_node)


@_face
def cuGraphGetNodes(hGraph: Any, numNodes: Any = 0) -> _Result:
    n = _size(numNodes)
    _T.check_calloc(n)
    nodes = _drv().graph_get_nodes(_h(hGraph, _CUgraph))
    return (_SUCCESS, _pad_nodes(nodes, n), len(nodes) if n == 0 or n >= len(nodes) else n)


@_face
def cuGraphGetRootNodes(hGraph: Any, numRootNodes: Any = 0) -> _Result:
    n = _size(numRootNodes)
    _T.check_calloc(n)
    nodes = _drv().graph_get_root_nodes(_h(hGraph, _CUgraph))
    return (_SUCCESS, _pad_nodes(nodes, n), len(nodes) if n == 0 or n >= len(nodes) else n)


@_face
def cuGraphGetEdges(hGraph: Any, numEdges: Any = 0) -> _Result:
    n = _size(numEdges)
    _T.check_calloc(n)
    edges = _drv().graph_get_edges(_h(hGraph, _CUgraph))
    frm = _pad_nodes([a for a, _, _ in edges], n)
    to = _pad_nodes([b for _, b, _ in edges], n)
    eds = _pad_edges([ed for _, _, ed in edges], n, _edge, _CUgraphEdgeData)
    return (_SUCCESS, frm, to, eds, len(edges) if n == 0 or n >= len(edges) else n)


def _node_deps(hNode: Any, n: Any, dependents: bool) -> _Result:
    n = _size(n)
    _T.check_calloc(n)
    pairs = _drv().graph_node_get_dependencies(_h(hNode, _CUgraphNode), dependents)
    nodes = _pad_nodes([a for a, _ in pairs], n)
    eds = _pad_edges([ed for _, ed in pairs], n, _edge, _CUgraphEdgeData)
    return (_SUCCESS, nodes, eds, len(pairs) if n == 0 or n >= len(pairs) else n)


@_face
def cuGraphNodeGetDependencies(hNode: Any, numDependencies: Any = 0) -> _Result:
    return _node_deps(hNode, numDependencies, False)


@_face
def cuGraphNodeGetDependentNodes(hNode: Any, numDependentNodes: Any = 0) -> _Result:
    return _node_deps(hNode, numDependentNodes, True)


def _dep_pairs(from_: Any, to: Any, edgeData: Any, n: Any, remove: bool) -> tuple[list[int], list[int], _EdgeDataArg]:
    return _B.dep_pairs(from_, to, edgeData, n, remove, _node_list, _edge_list)


@_face
def cuGraphAddDependencies(hGraph: Any, from_: Any, to: Any, edgeData: Any, numDependencies: Any) -> _Result:
    froms, tos, eds = _dep_pairs(from_, to, edgeData, numDependencies, False)
    _drv().graph_add_dependencies(_h(hGraph, _CUgraph), froms, tos, eds)
    return _OK


@_face
def cuGraphRemoveDependencies(hGraph: Any, from_: Any, to: Any, edgeData: Any, numDependencies: Any) -> _Result:
    froms, tos, eds = _dep_pairs(from_, to, edgeData, numDependencies, True)
    # removal pads a short edge-data list with (255, 255, 255), an edge that never exists: never None
    _drv().graph_remove_dependencies(_h(hGraph, _CUgraph), froms, tos, _cast("list[_EdgeData]", eds))
    return _OK


@_face
def cuGraphInstantiate(hGraph: Any, flags: Any) -> _Result:
    return (_SUCCESS, _mk_exec(_drv().graph_instantiate(_h(hGraph, _CUgraph), _u(flags, 64, "unsigned PY_LONG_LONG"))))


@_face
def cuGraphInstantiateWithParams(hGraph: Any, instantiateParams: Any) -> _Result:
    _struct_arg(instantiateParams, "CUDA_GRAPH_INSTANTIATE_PARAMS", "instantiateParams")
    d = _drv()
    p = instantiateParams
    _null(d, p, "cuGraphInstantiateWithParams", "instantiateParams")
    try:
        x = d.graph_instantiate_with_params(_h(hGraph, _CUgraph), int(p._raw("flags")), int(p._raw("hUploadStream")))
    except _DriverError as e:
        p._d["result_out"] = getattr(e, "instantiate_result", 1)  # CUDA_GRAPH_INSTANTIATE_ERROR
        p._d["hErrNode_out"] = _mk_node(getattr(e, "err_node", 0))
        raise
    p._d["result_out"] = 0
    p._d["hErrNode_out"] = _mk_node(0)
    return (_SUCCESS, _mk_exec(x))


@_face
def cuGraphExecUpdate(hGraphExec: Any, hGraph: Any) -> _Result:
    result, enode, efrom = _drv().graph_exec_update(_h(hGraphExec, _CUgraphExec), _h(hGraph, _CUgraph))
    info = _CUgraphExecUpdateResultInfo()
    info._d["result"] = result
    info._d["errorNode"] = _mk_node(enode)
    info._d["errorFromNode"] = _mk_node(efrom)
    return (_SUCCESS, info)


@_face
def cuGraphDebugDotPrint(hGraph: Any, path: Any, flags: Any) -> _Result:
    p = _bytes_arg(path)
    _drv().graph_debug_dot_print(_h(hGraph, _CUgraph), os.fsdecode(p), _u(flags))
    return _OK


# =========================================================================== the rest: not simulated
# =========================================================================== libraries and arrays
_CUlibrary = globals()["CUlibrary"]
_CUarray = globals()["CUarray"]


@_face
def cuLibraryLoadData(code: Any, jitOptions: Any, jitOptionsValues: Any, numJitOptions: Any,
                      libraryOptions: Any, libraryOptionValues: Any, numLibraryOptions: Any) -> _Result:
    _options(libraryOptions, libraryOptionValues, numLibraryOptions)
    _options(jitOptions, jitOptionsValues, numJitOptions)
    return (_SUCCESS, _CUlibrary._mk(_drv().library_load_data(_image(code))))


@_face
def cuLibraryLoadFromFile(fileName: Any, jitOptions: Any, jitOptionsValues: Any, numJitOptions: Any,
                          libraryOptions: Any, libraryOptionValues: Any, numLibraryOptions: Any) -> _Result:
    _options(libraryOptions, libraryOptionValues, numLibraryOptions)
    _options(jitOptions, jitOptionsValues, numJitOptions)
    path = os.fsdecode(_bytes_arg(fileName))
    d = _drv()
    data = d.read_image_file(path, "cuLibraryLoadFromFile")
    return (_SUCCESS, _CUlibrary._mk(d.library_load_data(data, "cuLibraryLoadFromFile")))


@_face
def cuLibraryGetKernel(library: Any, name: Any) -> _Result:
    h = _drv().module_get_function(_h(library, _CUlibrary), os.fsdecode(_bytes_arg(name)))
    return (_SUCCESS, globals()["CUkernel"]._mk(h))


@_face
def cuKernelGetName(hfunc: Any) -> _Result:
    return (_SUCCESS, _drv().func_get_name(_h(hfunc, _CUkernel)).encode())


@_face
def cuArrayCreate(pAllocateArray: Any) -> _Result:
    a = _struct_arg(pAllocateArray, "CUDA_ARRAY_DESCRIPTOR", "pAllocateArray")
    if a is None:
        _drv().require_arg(False, "pAllocateArray", "cuArrayCreate")
    g = a._d
    h = _drv().array_create(g["Width"], g["Height"], g["Format"], g["NumChannels"])
    return (_SUCCESS, _CUarray._mk(h))


# =========================================================================== host-mapped and managed memory, pointer
# attributes, virtual memory management (topic: vmm)
def _mem_location(x: Any, arg: str) -> tuple[int, int]:
    """A ``CUmemLocation`` argument passed by value: ``(type, id)`` (None raises the wrapper's TypeError)."""
    loc = _struct_arg(x, "CUmemLocation", arg)
    if loc is None:
        raise TypeError(f"Argument '{arg}' must not be None")
    return loc._raw("type"), loc._raw("id")


def _alloc_prop(x: Any) -> Any:
    """A ``CUmemAllocationProp`` argument (``Optional``): the core's ``AllocProp``, or None for None."""
    from .._core.entries.vmm import AllocProp
    p = _struct_arg(x, "CUmemAllocationProp", "prop")
    if p is None:
        return None
    g, loc, fl = p._d, p._d["location"]._d, p._d["allocFlags"]._d
    return AllocProp(g["type"], g["requestedHandleTypes"], loc["type"], loc["id"], fl["compressionType"],
                     fl["gpuDirectRDMACapable"], fl["usage"])


#: how cuPointerGetAttribute returns a value, by CUpointer_attribute: handle classes, bools, else int
_POINTER_WRAP: dict[int, _Callable[[Any], Any]] = {
    1: lambda v: _mk_ctx(v), 3: lambda v: _mk_dptr(v), 11: lambda v: _mk_dptr(v),
    17: lambda v: globals()["CUmemoryPool"]._mk(v),
    **{a: bool for a in (6, 8, 10, 13, 15, 21)}}


def _pointer_value(attr: int, v: Any) -> Any:
    return _POINTER_WRAP.get(attr, int)(v)


@_face
def cuMemPrefetchAsync(devPtr: Any, count: Any, location: Any, flags: Any, hStream: Any) -> _Result:
    lt, lid = _mem_location(location, "location")
    _drv().mem_prefetch_async(_h(devPtr, _CUdeviceptr), _size(count), lt, lid, _u(flags), _h(hStream, _CUstream))
    return _OK


@_face
def cuMemAdvise(devPtr: Any, count: Any, advice: Any, location: Any) -> _Result:
    lt, lid = _mem_location(location, "location")
    adv = _T.c_enum(advice, "advice", "CUmem_advise_enum")
    _drv().mem_advise(_h(devPtr, _CUdeviceptr), _size(count), adv, lt, lid)
    return _OK


@_face
def cuPointerGetAttribute(attribute: Any, ptr: Any) -> _Result:
    if not hasattr(attribute, "value"):  # the wrapper reads the enum's value: AttributeError otherwise, as there
        raise AttributeError(f"'{_tp_name(type(attribute))}' object has no attribute 'value'")
    a = int(attribute.value)
    return (_SUCCESS, _pointer_value(a, _drv().pointer_get_attribute(a, _h(ptr, _CUdeviceptr))))


@_face
def cuPointerGetAttributes(numAttributes: Any, attributes: Any, ptr: Any) -> _Result:
    n = _u(numAttributes)
    items = [] if attributes is None else list(attributes)
    if n > len(items):
        raise RuntimeError(f"List is too small: {len(items)} < {n}")
    attrs = [int(x) for x in items[:n]]
    vals = _drv().pointer_get_attributes(attrs, _h(ptr, _CUdeviceptr))
    return (_SUCCESS, [_pointer_value(a, v) for a, v in zip(attrs, vals)])


@_face
def cuMemCreate(size: Any, prop: Any, flags: Any) -> _Result:
    h = _drv().mem_create(_size(size), _alloc_prop(prop), _u(flags, 64, "unsigned long long"))
    return (_SUCCESS, globals()["CUmemGenericAllocationHandle"]._mk(h))


@_face
def cuMemGetAllocationGranularity(prop: Any, option: Any) -> _Result:
    opt = _T.c_enum(option, "option", "CUmemAllocationGranularity_flags_enum")
    return (_SUCCESS, _drv().mem_get_allocation_granularity(_alloc_prop(prop), opt))


@_face
def cuMemSetAccess(ptr: Any, size: Any, desc: Any, count: Any) -> _Result:
    n = _size(count)
    items = [] if desc is None else list(desc)
    if n > len(items):
        raise RuntimeError(f"List is too small: {len(items)} < {n}")
    descs = [(a._d["location"]._d["type"], a._d["location"]._d["id"], a._d["flags"]) for a in items[:n]]
    _drv().mem_set_access(_h(ptr, _CUdeviceptr), _size(size), descs)
    return _OK


@_face
def cuMemGetAccess(location: Any, ptr: Any) -> _Result:
    loc = _struct_arg(location, "CUmemLocation", "location")
    p = _h(ptr, _CUdeviceptr)
    if loc is None:
        _drv().require_arg(False, "location", "cuMemGetAccess")
    return (_SUCCESS, _drv().mem_get_access(loc._raw("type"), loc._raw("id"), p))


@_face
def cuMemGetAllocationPropertiesFromHandle(handle: Any) -> _Result:
    p = _drv().mem_get_allocation_properties_from_handle(_h(handle, globals()["CUmemGenericAllocationHandle"]))
    st = globals()["CUmemAllocationProp"]()
    g, loc, fl = st._d, st._d["location"]._d, st._d["allocFlags"]._d
    g["type"], g["requestedHandleTypes"], loc["type"], loc["id"] = p.type, p.handle_types, p.loc_type, p.loc_id
    fl["compressionType"], fl["gpuDirectRDMACapable"], fl["usage"] = p.compression, p.rdma, p.usage
    return (_SUCCESS, st)


# =========================================================================== entries built from the table
_ENUM_CNAME = {"CUresult": "cudaError_enum"}  # the C enum behind a wrapper enum, where it is not "<name>_enum"
#: what the executor (:func:`simcuda.bindings._build.build`) needs to know of this face
_FACE = _B.FaceSpec(__name__, globals(), _OUTPUTS, _PARAMS, lambda t: _ENUM_CNAME.get(t, t + "_enum"), _SUCCESS, _drv,
                    node_array=_deps_for)


def _build(name: str) -> _Callable[..., _Result]:
    """The tuple-face function of a table row with a complete shape (:mod:`simcuda._core.api`), built by the
    faces' one executor (:func:`simcuda.bindings._build.build`) and checked in the real wrapper's order
    (:func:`_face`)."""
    return _face(_B.build(_FACE, name, _API[name].call))


# =========================================================================== several devices (issue 10)
@_face
def cuDeviceGetPCIBusId(length: Any, dev: Any) -> _Result:
    n = _i(length)
    bus = _drv().device_get_pci_bus_id(n, _h(dev, _CUdevice)).encode() + b"\0"
    return (_SUCCESS, bus + b" " * (n - len(bus)))


@_face
def cuDeviceGetByPCIBusId(pciBusId: Any) -> _Result:
    return (_SUCCESS, _CUdevice(_drv().device_get_by_pci_bus_id(_bytes_arg(pciBusId).decode("latin-1"))))


# =========================================================================== module variables (issue 10)
@_face
def cuModuleGetGlobal(hmod: Any, name: Any) -> _Result:
    dptr, n = _drv().module_get_global(_h(hmod, globals()["CUmodule"]), os.fsdecode(_bytes_arg(name)))
    return (_SUCCESS, _CUdeviceptr(dptr), n)


@_face
def cuLibraryGetGlobal(library: Any, name: Any) -> _Result:
    dptr, n = _drv().library_get_global(_h(library, _CUlibrary), os.fsdecode(_bytes_arg(name)))
    return (_SUCCESS, _CUdeviceptr(dptr), n)


# =========================================================================== batched copies (issue 10)


@_face
def cuMemcpyBatchAsync(dsts: Any, srcs: Any, sizes: Any, count: Any, attrs: Any, attrsIdxs: Any, numAttrs: Any,
                       hStream: Any) -> _Result:
    ds, ss, ns, orders, idxs = memcpy_batch_args(dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs)
    _drv().memcpy_batch(ds, ss, ns, orders, idxs, _h(hStream, _CUstream), "cuMemcpyBatchAsync")
    return _OK


# =========================================================================== 3D batched copies (issue 10)


@_face
def cuMemcpy3DBatchAsync(numOps: Any, opList: Any, flags: Any, hStream: Any) -> _Result:
    ops = memcpy3d_batch_ops(numOps, opList, globals()["CUDA_MEMCPY3D_BATCH_OP"], "cydriver.CUDA_MEMCPY3D_BATCH_OP")
    _drv().memcpy3d_batch(ops, _u(flags, 64, "unsigned long long"), _h(hStream, _CUstream), "cuMemcpy3DBatchAsync")
    return _OK


for _row in _ROWS:
    if not _row.particular:
        globals()[_row.name] = _build(_row.name)
del _row


def _refuse_not_simulated(name: str, why: str) -> Any:
    return _drv().not_simulated(name, why).code


#: real functions this face does not simulate (each returns CUDA_ERROR_NOT_SUPPORTED)
_NOT_SIMULATED: tuple[str, ...] = tuple(_T.install_stubs(globals(), _OUTPUTS, __name__, "CUDA_ERROR_NOT_SUPPORTED",
                                               _refuse_not_simulated))
