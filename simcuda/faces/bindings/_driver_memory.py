"""The tuple face's functions of memory: allocations, copies and memsets, user objects and memory pools,
host-mapped and managed memory, pointer attributes, virtual memory management, batched copies (the hand-written
ones); users import them from :mod:`simcuda.faces.bindings.driver`.
"""
from __future__ import annotations

from collections.abc import Callable as _Callable
from typing import Any, Optional  # noqa: F401  (the real module exports both names)

from ..._core.errors import DriverError as _DriverError
from ..._core.memory.memory_model import DEVICE as _DEV
from ..._core.memory.memory_model import HOST as _HOST
from ..._core.memory.memory_model import CopyParams as _CopyParams
from ..._core.objects import POOL_ATTR_U64 as _POOL_ATTR_U64
from ..._generated import driver_enums as _E
from . import _driver_types as _T
from ._driver_face import (
    _NS,
    _OK,
    _SUCCESS,
    _CUdeviceptr,
    _CUstream,
    _cuuint64_t,
    _doc,
    _drv,
    _face,
    _h,
    _mk_ctx,
    _mk_dptr,
    _null,
    _Result,
    _size,
    _struct_arg,
    _tp_name,
    _u,
    memcpy3d_batch_ops,
    memcpy_batch_args,
)
from ._driver_modules import _host_fn

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
    """A host pointer of a copy as NVIDIA's wrapper passes it: ``None`` is NULL (0), which a zero-byte copy never
    reads (the core answers it as it answers address 0)."""
    v = _T.check_void_ptr_obj(x)
    return 0 if v is None else v


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


# =========================================================================== user objects, memory pools
@_face
def cuUserObjectCreate(ptr: Any, destroy: Any, initialRefcount: Any, flags: Any) -> _Result:
    fp = _host_fn(destroy)
    return (_SUCCESS, _NS["CUuserObject"]._mk(
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
    hp = _h(pool, _NS["CUmemoryPool"])
    a = _pool_attr(attr)
    v = _drv().mem_pool_get_attribute(hp, a)
    return (_SUCCESS, _cuuint64_t._mk(v) if a in _POOL_ATTR_U64 else v)


@_face
def cuMemPoolSetAttribute(pool: Any, attr: Any, value: Any) -> _Result:
    hp = _h(pool, _NS["CUmemoryPool"])
    a = _pool_attr(attr)
    if a in _POOL_ATTR_U64:
        value.getPtr  # noqa: B018  # a cuuint64_t, as the wrapper requires (AttributeError otherwise)
        v = int(value)
    else:
        v = int(value)
    _drv().mem_pool_set_attribute(hp, a, v)
    return _OK


# -- memory pools and graph memory (memory/pool_entries.py; issue 10) ----------------------------------------
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
    return (_SUCCESS, _NS["CUmemoryPool"]._mk(d.mem_pool_create(**_pool_props(d, poolProps))))


def _access_descs(x: Any, count: Any, arg: str = "map") -> list[tuple[int, int, int]]:
    """``(location type, id, flags)`` of the first ``count`` items of a ``CUmemAccessDesc`` list (the wrapper's
    list check and ``RuntimeError: List is too small`` when fewer are given)."""
    items = [] if x is None else list(x)
    cls = _NS["CUmemAccessDesc"]
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
    _drv().mem_pool_set_access(_h(pool, _NS["CUmemoryPool"]), descs)
    return _OK


@_face
def cuMemPoolGetAccess(memPool: Any, location: Any) -> _Result:
    hp = _h(memPool, _NS["CUmemoryPool"])
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
    dev = _h(device, _NS["CUdevice"])
    a = _graph_mem_attr(attr)
    return (_SUCCESS, _cuuint64_t._mk(_drv().device_get_graph_mem_attribute(dev, a)))


@_face
def cuDeviceSetGraphMemAttribute(device: Any, attr: Any, value: Any) -> _Result:
    dev = _h(device, _NS["CUdevice"])
    a = _graph_mem_attr(attr)
    value.getPtr  # noqa: B018  # a cuuint64_t, as the wrapper requires (AttributeError otherwise)
    _drv().device_set_graph_mem_attribute(dev, a, int(value))
    return _OK


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
    from ..._core.memory.vmm_entries import AllocProp
    p = _struct_arg(x, "CUmemAllocationProp", "prop")
    if p is None:
        return None
    g, loc, fl = p._d, p._d["location"]._d, p._d["allocFlags"]._d
    return AllocProp(g["type"], g["requestedHandleTypes"], loc["type"], loc["id"], fl["compressionType"],
                     fl["gpuDirectRDMACapable"], fl["usage"])


#: how cuPointerGetAttribute returns a value, by CUpointer_attribute: handle classes, bools, else int
_POINTER_WRAP: dict[int, _Callable[[Any], Any]] = {
    1: lambda v: _mk_ctx(v), 3: lambda v: _mk_dptr(v), 11: lambda v: _mk_dptr(v),
    17: lambda v: _NS["CUmemoryPool"]._mk(v),
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
    return (_SUCCESS, _NS["CUmemGenericAllocationHandle"]._mk(h))


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
    p = _drv().mem_get_allocation_properties_from_handle(_h(handle, _NS["CUmemGenericAllocationHandle"]))
    st = _NS["CUmemAllocationProp"]()
    g, loc, fl = st._d, st._d["location"]._d, st._d["allocFlags"]._d
    g["type"], g["requestedHandleTypes"], loc["type"], loc["id"] = p.type, p.handle_types, p.loc_type, p.loc_id
    fl["compressionType"], fl["gpuDirectRDMACapable"], fl["usage"] = p.compression, p.rdma, p.usage
    return (_SUCCESS, st)


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
    ops = memcpy3d_batch_ops(numOps, opList, _NS["CUDA_MEMCPY3D_BATCH_OP"], "cydriver.CUDA_MEMCPY3D_BATCH_OP")
    _drv().memcpy3d_batch(ops, _u(flags, 64, "unsigned long long"), _h(hStream, _CUstream), "cuMemcpy3DBatchAsync")
    return _OK
