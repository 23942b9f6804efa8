"""The runtime face's errors, versions, devices, memory and pools
(part of :mod:`simcuda.faces.bindings.runtime`).

Installed into each load of ``runtime.py`` as :mod:`simcuda.faces.bindings._runtime_graphs` says (its docstring
tells why and how); the names bound by the load are declared below for the checker.
"""
from __future__ import annotations

import typing as _typing
from collections.abc import Callable as _Callable
from typing import Any

from ..._core.memory.memory_model import CopyParams as _CopyParams
from ..._core.memory.memory_model import MemsetParams as _MemsetParams
from ..._core.objects import POOL_ATTR_U64 as _POOL_ATTR_U64
from ..._generated import runtime_enums as _E
from ..._generated.runtime_outputs import ERROR_STRINGS as _ERROR_STRINGS
from . import _args as _A
from . import _driver_types as _T
from . import _runtime_shared as _S
from ._runtime_shared import OK as _OK
from ._runtime_shared import SUCCESS as _SUCCESS
from ._runtime_shared import RtError as _RtError
from ._runtime_shared import copy_params as _copy_params
from ._runtime_shared import cudaError_t as cudaError_t
from ._runtime_shared import ptr as _ptr

_Result = _T.Result
_h = _A.handle
_u = _A.uint
_size = _A.size_t
_drv = _A.current_driver
_rt = _S.Marks()

if _typing.TYPE_CHECKING:  # bound by each load of runtime.py (its classes and state) before it installs this part
    _RCLS: dict[str, type[Any]] = {}
    _DRIVER_CLASSES: dict[str, type[Any]] = {}
    _cudaStream_t: Any = None
    _cudaMemPool_t: Any = None
    _state: _Callable[[Any], _S.RtState] = _typing.cast(Any, None)
    _primary: _Callable[[Any, _S.RtState, int], int] = _typing.cast(Any, None)
    _struct_type: Any = None
    cuda_error: Any = None


# =========================================================================== errors and versions
_UNRECOGNIZED = b"unrecognized error code"


def cudaGetErrorName(error: Any) -> _Result:
    """Mirrors ``cudaGetErrorName(error)``: ``(cudaSuccess, b"cudaErrorInvalidValue")``.

    The argument is converted as the real wrapper converts an enum (``int()`` first: ``ValueError`` for
    ``'abc'``, ``TypeError`` for ``None``, ``OverflowError`` beyond 32 bits); a value that is no
    ``cudaError_t`` gives ``(cudaSuccess, b"unrecognized error code")``, as the real runtime does.
    """
    v = _T.c_enum(error, "error", "enum cudaError")
    try:
        return (_SUCCESS, cudaError_t(v).name.encode())
    except ValueError:
        return (_SUCCESS, _UNRECOGNIZED)


def cudaGetErrorString(error: Any) -> _Result:
    """Mirrors ``cudaGetErrorString(error)``: ``(cudaSuccess, b"invalid argument")``.

    The texts are the real runtime's (read from the cuda-bindings wheel into
    :mod:`simcuda._generated.runtime_outputs`); argument conversion and unknown values as
    :func:`cudaGetErrorName`.
    """
    v = _T.c_enum(error, "error", "enum cudaError")
    return (_SUCCESS, _ERROR_STRINGS.get(v, _UNRECOGNIZED.decode()).encode())


def cudaGetLastError() -> _Result:
    """Mirrors ``cudaGetLastError()``: ``(last error of this thread,)`` and resets it to ``cudaSuccess``.

    The last error is the code of the most recent failing runtime call on the calling thread
    (``cudaErrorNotReady`` does not count). A sticky error (a Python kernel's fault, docs/spec-proposals.md P-9)
    is not reset: while the current context has one, every call returns it.
    """
    d = _drv()
    st = _state(d)
    sticky = d.sticky_error()
    if sticky:
        st.last.pop(d.thread_id(), None)
        return (cuda_error(sticky),)
    return (st.last.pop(d.thread_id(), _SUCCESS),)


def cudaPeekAtLastError() -> _Result:
    """Mirrors ``cudaPeekAtLastError()``: like :func:`cudaGetLastError` without resetting it."""
    return (_state(_drv()).last.get(_drv().thread_id(), _SUCCESS),)


@_rt("none")
def cudaDriverGetVersion() -> _Result:
    """The simulated driver's version, 13050 (CUDA 13.5); 0 on a ``Driver(available=False)``, as the
    real call reports when no driver is installed. Needs no device."""
    d = _drv()
    return (_SUCCESS, d.driver_get_version() if d.available else 0)


@_rt("none")
def cudaRuntimeGetVersion() -> _Result:
    """The runtime version, ``CUDART_VERSION`` (13050). Needs no device."""
    return (_SUCCESS, _E.CUDART_VERSION)


def getLocalRuntimeVersion() -> _Result:
    """Mirrors ``getLocalRuntimeVersion()`` of cuda.bindings.runtime 13.5: ``(cudaSuccess, version)``, the
    version of the CUDA runtime library the binding finds locally. The simulated runtime is that library here:
    its ``CUDART_VERSION`` (13050), as :func:`cudaRuntimeGetVersion`. Needs no device and no ``cuInit``;
    numba-cuda reads it at import."""
    return (_SUCCESS, _E.CUDART_VERSION)


# =========================================================================== devices
@_rt("init")
def cudaSetDevice(device: Any) -> _Result:
    """Select the calling thread's device: retains its primary context (once per driver) and makes it
    current on this thread, as the CUDA 12+ runtime does.

    Errors: cudaErrorInvalidDevice (101) for an ordinal out of range (nothing changes).
    """
    dev = _T.to_int(device)
    d = _drv()
    d.device_get(dev)
    st = _state(d)
    h = _primary(d, st, dev)
    d.ctx_set_current(h)
    st.device[d.thread_id()] = dev
    return _OK


@_rt()
def cudaGetDevice() -> _Result:
    """The device of the calling thread's current context (device 0 unless :func:`cudaSetDevice` chose one)."""
    return (_SUCCESS, _drv().ctx_get_device())


@_rt()
def cudaInitDevice(device: Any, deviceFlags: Any, flags: Any) -> _Result:
    """Initialise ``device``'s primary context without making it current.

    Errors: cudaErrorInvalidDevice; cudaErrorInvalidValue for ``flags`` other than 0.
    """
    dev, _df, fl = _T.to_int(device), _u(deviceFlags), _u(flags)
    d = _drv()
    d.device_get(dev)
    d.check_flags(fl, _E.cudaInitDeviceFlagsAreValid, "flags", "cudaInitDevice")
    _primary(d, _state(d), dev)
    return _OK


@_rt("init")
def cudaGetDeviceProperties(device: Any) -> _Result:
    """A ``cudaDeviceProp`` of the simulated device.

    ``name`` is ``bytes`` ending at the first NUL, as the real struct's getter reads its ``char[256]``;
    ``name``, ``totalGlobalMem`` and ``multiProcessorCount``/``major``/``minor`` come from the
    device's :class:`simcuda.DeviceSpec`; every field that has a ``cudaDeviceAttr`` twin holds that
    attribute's value (DeviceSpec defaults); ``uuid`` is a stable hash of the name and ordinal. Other
    fields are 0. Errors: cudaErrorInvalidDevice.
    """
    dev = _T.to_int(device)
    d = _drv()
    name = d.device_get_name(dev).encode()
    p = _RCLS["cudaDeviceProp"]()
    for field, kind, _arg in p._fields:
        if field == "name":
            p._d[field] = name[:255].split(b"\0", 1)[0]  # the char[256] read up to its first NUL, as the real getter
        elif field == "totalGlobalMem":
            p._d[field] = d.device_total_mem(dev)
        elif field == "uuid":
            u = _RCLS["cudaUUID_t"]()
            u._d["bytes"] = d.device_get_uuid(dev)
            p._d[field] = u
        elif kind == "raw":
            v = _S.prop_value(d, dev, field)
            if v is not None:
                p._d[field] = v
    return (_SUCCESS, p)


@_rt()
def cudaDeviceReset() -> _Result:
    """Synchronise the current device.

    Fidelity: the simulator does not destroy the primary context or free allocations (they stay
    valid); the call only synchronises, with the capture rules of :func:`cudaDeviceSynchronize`.
    """
    _drv().ctx_synchronize()
    return _OK


@_rt()
def cudaGetDeviceFlags() -> _Result:
    """The current device's flags (the primary context's flags, 0 unless set)."""
    d = _drv()
    flags, _active = d.device_primary_ctx_get_state(d.ctx_get_device())
    return (_SUCCESS, flags)


@_rt()
def cudaSetDeviceFlags(flags: Any) -> _Result:
    """Accepted and ignored (no scheduling in a simulator). Errors: cudaErrorInvalidValue for bits
    outside ``cudaDeviceMask``."""
    _drv().check_flags(_u(flags), _E.cudaDeviceMask, "flags", "cudaSetDeviceFlags")
    return _OK


# =========================================================================== memory
@_rt()
def cudaMallocPitch(width: Any, height: Any) -> _Result:
    """Allocate ``height`` rows of ``width`` bytes, rows padded to 512 bytes: ``(cudaSuccess, devPtr, pitch)``."""
    w, h = _size(width), _size(height)
    d = _drv()
    pitch = (w + 511) // 512 * 512
    if w == 0 or h == 0:
        return (_SUCCESS, 0, pitch)
    return (_SUCCESS, d.mem_alloc(pitch * h, "cudaMallocPitch"), pitch)


@_rt()
def cudaFreeHost(ptr: Any) -> _Result:
    """Free memory from :func:`cudaMallocHost`/:func:`cudaHostAlloc` (``None``/0 does nothing)."""
    p = _T.void_ptr(ptr)
    if not p:
        return _OK
    _drv().mem_free_host(p)
    return _OK


@_rt()
def cudaPointerGetAttributes(ptr: Any) -> _Result:
    """``cudaPointerAttributes`` of an address, from the driver's pointer attributes (topic: vmm): device memory
    (``cudaMemoryTypeDevice``, ``devicePointer`` set), managed memory (``cudaMemoryTypeManaged``, both pointers),
    pinned, mapped or registered host memory (``cudaMemoryTypeHost``, both pointers: unified addressing maps it
    into the device at its address), or memory CUDA does not know (``cudaMemoryTypeUnregistered``, device -2,
    both pointers NULL). ``device`` is the device the memory was allocated against; ``localityDomainOrdinal`` -1
    (no allocation is localized to a locality domain)."""
    p = _T.void_ptr(ptr)
    d = _drv()
    a = _RCLS["cudaPointerAttributes"]()
    mtype, managed, dev, dptr, hptr, loc = d.pointer_get_attributes([2, 8, 9, 3, 4, 22], p)
    a._d["type"] = 0 if mtype == 0 else 3 if managed else mtype
    a._d["device"] = dev
    a._d["devicePointer"] = dptr
    a._d["hostPointer"] = hptr
    a._d["localityDomainOrdinal"] = loc if mtype else 0
    return (_SUCCESS, a)


def _mem_location(x: Any, arg: str) -> tuple[int, int]:
    """A ``cudaMemLocation`` argument passed by value: ``(type, id)`` (None raises the wrapper's TypeError)."""
    loc = _struct_type(x, "cudaMemLocation", arg)
    if loc is None:
        raise TypeError(f"Argument '{arg}' must not be None")
    return loc._raw("type"), loc._raw("id")


@_rt()
def cudaMemPrefetchAsync(devPtr: Any, count: Any, location: Any, flags: Any, stream: Any) -> _Result:
    """Prefetch managed memory to ``location`` (a ``cudaMemLocation``) in stream order (recorded; nothing moves)."""
    lt, lid = _mem_location(location, "location")
    _drv().mem_prefetch_async(_T.void_ptr(devPtr), _size(count), lt, lid, _u(flags), _h(stream, _cudaStream_t),
                              "cudaMemPrefetchAsync")
    return _OK


@_rt()
def cudaMemAdvise(devPtr: Any, count: Any, advice: Any, location: Any) -> _Result:
    """Advise about a managed range (``cudaMemoryAdvise``, ``cudaMemLocation``): checked and recorded."""
    lt, lid = _mem_location(location, "location")
    adv = _T.c_enum(advice, "advice", "enum cudaMemoryAdvise")
    _drv().mem_advise(_T.void_ptr(devPtr), _size(count), adv, lt, lid, "cudaMemAdvise")
    return _OK


def _memcpy(call: str, dst: Any, src: Any, count: Any, kind: Any, stream: Any = None, sync: bool = True) -> _Result:
    d = _drv()
    p = _copy_params(d, _ptr(dst), _ptr(src), kind, call, width=_size(count))
    d.memcpy(p, None if sync else _h(stream, _cudaStream_t), call)
    return _OK


@_rt()
def cudaMemcpy(dst: Any, src: Any, count: Any, kind: Any) -> _Result:
    """Synchronous copy of ``count`` bytes. ``dst``/``src``: ``int`` addresses or buffers (numpy arrays,
    ctypes objects, bytes for a source). ``kind``: a ``cudaMemcpyKind``; ``cudaMemcpyDefault`` infers each
    side (an address inside a simulated allocation is device memory).

    Runs on the default stream (legacy, or the per-thread stream in per-thread mode, spec 6.1).
    """
    return _memcpy("cudaMemcpy", dst, src, count, kind)


@_rt()
def cudaMemcpyAsync(dst: Any, src: Any, count: Any, kind: Any, stream: Any) -> _Result:
    """Asynchronous copy on ``stream``: a MEMCPY node during capture (spec 3.8) that reads and writes
    host memory when the graph runs (spec 3.10). Arguments as :func:`cudaMemcpy`.
    """
    return _memcpy("cudaMemcpyAsync", dst, src, count, kind, stream, sync=False)


def _memcpy2d(call: str, dst: Any, dpitch: Any, src: Any, spitch: Any, width: Any, height: Any, kind: Any,
              stream: Any = None, sync: bool = True) -> _Result:
    dp, sp, w, h = _size(dpitch), _size(spitch), _size(width), _size(height)
    if w > dp or w > sp:  # runtime-only code: the driver's cuMemcpy2D gives INVALID_VALUE (the core) for this
        raise _RtError(12, f"{call}: width {w} bytes is larger than a pitch (dpitch {dp}, spitch {sp})")
    d = _drv()
    p = _copy_params(d, _ptr(dst), _ptr(src), kind, call, width=w, height=h, src_pitch=sp, dst_pitch=dp)
    d.memcpy(p, None if sync else _h(stream, _cudaStream_t), call)
    return _OK


@_rt()
def cudaMemcpy2D(dst: Any, dpitch: Any, src: Any, spitch: Any, width: Any, height: Any, kind: Any) -> _Result:
    """Synchronous 2D copy: ``height`` rows of ``width`` bytes, row starts ``spitch``/``dpitch`` bytes apart."""
    return _memcpy2d("cudaMemcpy2D", dst, dpitch, src, spitch, width, height, kind)


@_rt()
def cudaMemcpy2DAsync(dst: Any, dpitch: Any, src: Any, spitch: Any, width: Any, height: Any, kind: Any,
                      stream: Any) -> _Result:
    """Asynchronous :func:`cudaMemcpy2D` on ``stream`` (a MEMCPY node during capture)."""
    return _memcpy2d("cudaMemcpy2DAsync", dst, dpitch, src, spitch, width, height, kind, stream, sync=False)


def _params3d(d: Any, p: Any, call: str) -> _CopyParams:
    """A :class:`CopyParams` from a ``cudaMemcpy3DParms`` (arrays are not simulated)."""
    if p is None:
        d.require_arg(False, "the cudaMemcpy3DParms pointer", call)
    if not isinstance(p, _RCLS["cudaMemcpy3DParms"]):
        raise TypeError(f"Argument 'p' has incorrect type (expected cuda.bindings.runtime.cudaMemcpy3DParms, "
                        f"got {type(p).__name__})")
    if int(p.srcArray) or int(p.dstArray):
        raise d.not_simulated(call, f"{call}: CUDA arrays (srcArray/dstArray) are not simulated")
    sp, dp = p.srcPtr, p.dstPtr
    spos, dpos, ext = p.srcPos, p.dstPos, p.extent
    return _copy_params(d, dp._raw("ptr"), sp._raw("ptr"), p._raw("kind"), call,
                        width=ext.width, height=ext.height, depth=ext.depth,
                        src_pitch=sp.pitch, src_height=sp.ysize, dst_pitch=dp.pitch, dst_height=dp.ysize,
                        src_x=spos.x, src_y=spos.y, src_z=spos.z, dst_x=dpos.x, dst_y=dpos.y, dst_z=dpos.z)


@_rt()
def cudaMemcpy3D(p: Any) -> _Result:
    """Synchronous 3D copy from a ``cudaMemcpy3DParms`` (pitched pointers; ``extent.width`` in bytes)."""
    d = _drv()
    d.memcpy(_params3d(d, p, "cudaMemcpy3D"), None, "cudaMemcpy3D")
    return _OK


@_rt()
def cudaMemcpy3DAsync(p: Any, stream: Any) -> _Result:
    """Asynchronous :func:`cudaMemcpy3D` on ``stream`` (a MEMCPY node during capture)."""
    d = _drv()
    d.memcpy(_params3d(d, p, "cudaMemcpy3DAsync"), _h(stream, _cudaStream_t), "cudaMemcpy3DAsync")
    return _OK


def _memset(call: str, devPtr: Any, value: Any, width: Any, height: Any = 1, pitch: Any = 0, stream: Any = None,
            sync: bool = True) -> _Result:
    v = _T.to_int(value) & 0xFF  # the runtime converts the int value to unsigned char
    p = _MemsetParams(_T.void_ptr(devPtr), v, 1, _size(width), _size(height), _size(pitch))
    _drv().memset(p, None if sync else _h(stream, _cudaStream_t), call)
    return _OK


@_rt()
def cudaMemset(devPtr: Any, value: Any, count: Any) -> _Result:
    """Synchronously set ``count`` bytes at ``devPtr`` to ``value`` (converted to ``unsigned char``)."""
    return _memset("cudaMemset", devPtr, value, count)


@_rt()
def cudaMemsetAsync(devPtr: Any, value: Any, count: Any, stream: Any) -> _Result:
    """Asynchronous :func:`cudaMemset` on ``stream``: a MEMSET node (element size 1) during capture."""
    return _memset("cudaMemsetAsync", devPtr, value, count, stream=stream, sync=False)


@_rt()
def cudaMemset2D(devPtr: Any, pitch: Any, value: Any, width: Any, height: Any) -> _Result:
    """Synchronously set ``height`` rows of ``width`` bytes, ``pitch`` bytes apart."""
    return _memset("cudaMemset2D", devPtr, value, width, height, pitch)


@_rt()
def cudaMemset2DAsync(devPtr: Any, pitch: Any, value: Any, width: Any, height: Any, stream: Any) -> _Result:
    """Asynchronous :func:`cudaMemset2D` on ``stream``."""
    return _memset("cudaMemset2DAsync", devPtr, value, width, height, pitch, stream=stream, sync=False)


def _pool_attr(attr: Any) -> int:
    """``attr`` of the pool-attribute calls: a ``cudaMemPoolAttr`` (the wrapper reads ``attr.value``)."""
    _T.c_enum(attr, "attr", "enum cudaMemPoolAttr")  # the typed parameter's conversion at entry
    if not isinstance(attr, _E.cudaMemPoolAttr):
        raise AttributeError(f"'{_A.type_name(type(attr))}' object has no attribute 'value'")
    return int(attr.value)


@_rt("init")
def cudaMemPoolGetAttribute(memPool: Any, attr: Any) -> _Result:
    """A ``cuuint64_t`` for the byte-count attributes (the values equal the driver's ``CUmemPool_attribute``)."""
    hp = _h(memPool, _cudaMemPool_t)
    a = _pool_attr(attr)
    v = _drv().mem_pool_get_attribute(hp, a)
    return (_SUCCESS, _DRIVER_CLASSES["cuuint64_t"]._mk(v) if a in _POOL_ATTR_U64 else v)


@_rt("init")
def cudaMemPoolSetAttribute(memPool: Any, attr: Any, value: Any) -> _Result:
    """``value``: a ``cuuint64_t`` for the byte-count attributes (a plain ``int`` raises ``AttributeError``)."""
    hp = _h(memPool, _cudaMemPool_t)
    a = _pool_attr(attr)
    if a in _POOL_ATTR_U64:
        value.getPtr  # noqa: B018  # a cuuint64_t, as the wrapper requires (AttributeError otherwise)
    _drv().mem_pool_set_attribute(hp, a, int(value))
    return _OK


# -- memory pools and graph memory (entries/pools.py; issue 10) ----------------------------------------
@_rt("init")
def cudaMemPoolCreate(poolProps: Any) -> _Result:
    """A pool from a ``cudaMemPoolProps`` (``allocType``, ``handleTypes``, ``location``, ``maxSize``, ``usage``)."""
    _struct_type(poolProps, "cudaMemPoolProps", "poolProps")
    d = _drv()
    if poolProps is None:
        d.require_arg(False, "poolProps", "cudaMemPoolCreate")
    loc = poolProps.location
    return (_SUCCESS, _cudaMemPool_t._mk(d.mem_pool_create(
        int(poolProps.allocType), int(poolProps.handleTypes), (int(loc.type), int(loc.id)), int(poolProps.maxSize),
        int(poolProps.usage), (int(loc.localized.deviceId), int(loc.localized.localityDomainId)))))


@_rt("init")
def cudaMemPoolSetAccess(memPool: Any, descList: Any, count: Any) -> _Result:
    """``descList``: ``cudaMemAccessDesc`` items, ``count`` of them used (a shorter list raises ``RuntimeError``)."""
    items = [] if descList is None else list(descList)
    if not all(isinstance(a, _RCLS["cudaMemAccessDesc"]) for a in items):
        raise TypeError("Argument 'descList' is not instance of type (expected tuple[cyruntime.cudaMemAccessDesc,] "
                        "or list[cyruntime.cudaMemAccessDesc,]")
    n = _size(count)
    if n > len(items):
        raise RuntimeError(f"List is too small: {len(items)} < {n}")
    _drv().mem_pool_set_access(_h(memPool, _cudaMemPool_t),
                               [(int(a.location.type), int(a.location.id), int(a.flags)) for a in items[:n]])
    return _OK


@_rt("init")
def cudaMemPoolGetAccess(memPool: Any, location: Any) -> _Result:
    """The ``cudaMemAccessFlags`` of the device ``location`` (a ``cudaMemLocation``) on the pool's memory."""
    hp = _h(memPool, _cudaMemPool_t)
    _struct_type(location, "cudaMemLocation", "location")
    d = _drv()
    if location is None:
        d.require_arg(False, "location", "cudaMemPoolGetAccess")
    return (_SUCCESS, _E.cudaMemAccessFlags(d.mem_pool_get_access(hp, (int(location.type), int(location.id)))))


def _graph_mem_attr(attr: Any) -> int:
    """``attr`` of the graph-memory attribute calls: a ``cudaGraphMemAttributeType`` (the wrapper reads
    ``attr.value``)."""
    _T.c_enum(attr, "attr", "enum cudaGraphMemAttributeType")  # the typed parameter's conversion at entry
    if not isinstance(attr, _E.cudaGraphMemAttributeType):
        raise AttributeError(f"'{_A.type_name(type(attr))}' object has no attribute 'value'")
    return int(attr.value)


@_rt("init")
def cudaDeviceGetGraphMemAttribute(device: Any, attr: Any) -> _Result:
    """A ``cuuint64_t`` of bytes (the values equal the driver's ``CUgraphMem_attribute``)."""
    dev = _T.c_int(device)
    a = _graph_mem_attr(attr)
    return (_SUCCESS, _DRIVER_CLASSES["cuuint64_t"]._mk(_drv().device_get_graph_mem_attribute(dev, a)))


@_rt("init")
def cudaDeviceSetGraphMemAttribute(device: Any, attr: Any, value: Any) -> _Result:
    """``value``: ``cuuint64_t(0)``, which resets a HIGH watermark (a plain ``int`` raises ``AttributeError``)."""
    dev = _T.c_int(device)
    a = _graph_mem_attr(attr)
    value.getPtr  # noqa: B018  # a cuuint64_t, as the wrapper requires (AttributeError otherwise)
    _drv().device_set_graph_mem_attribute(dev, a, int(value))
    return _OK


