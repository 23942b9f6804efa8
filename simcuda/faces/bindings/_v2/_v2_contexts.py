"""The ``_v2`` face's functions of initialisation, devices, contexts, streams, stream capture, events and
several devices (the hand-written ones); users import them from :mod:`simcuda.faces.bindings._v2.driver`.
"""
from __future__ import annotations

import ctypes as _ct
from typing import Any

from ._v2_face import (
    _CCtxCigParam,
    _CCtxCreateParams,
    _CStreamCigCaptureParams,
    _CStreamCigParam,
    _drv,
    _edge_dtype,
    _edge_tuples,
    _face,
    _handles,
    _ip,
    _np,
    _path_buf,
    _readable,
    _struct_at,
    _u,
)


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
