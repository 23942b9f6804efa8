"""The ``_v2`` face's functions of memory, user objects, memory pools and graph memory (the hand-written
ones); users import them from :mod:`simcuda.faces.bindings._v2.driver`.
"""
from __future__ import annotations

import ctypes as _ct
from typing import Any

from ...._core.memory.memory_model import DEVICE as _DEV
from ...._core.memory.memory_model import HOST as _HOST
from ...._core.memory.memory_model import CopyParams as _CopyParams
from ...._core.memory.memory_model import MemsetParams as _MemsetParams
from ...._core.objects import POOL_ATTR_U64 as _POOL_ATTR_U64
from .. import _driver_types as _T
from .._driver_types import buffer_address as _buffer_address
from ._v2_face import _buf, _drv, _face, _ip, _readable, _u


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


# -- graph memory (memory/pool_entries.py; issue 10) ----------------------------------------------------------
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
