"""The tuple face's functions of initialisation, devices, contexts, streams, stream capture and events (the
hand-written ones: what the table, :mod:`simcuda._core.api`, cannot build); users import them from
:mod:`simcuda.faces.bindings.driver`.
"""
from __future__ import annotations

from typing import Any, Optional  # noqa: F401  (the real module exports both names)

from ..._core.errors import DriverError as _DriverError
from ..._core.objects import EdgeData as _EdgeData
from ..._generated import driver_enums as _E
from . import _driver_types as _T
from ._driver_face import (
    _OK,
    _SUCCESS,
    _U64,
    _bytes_arg,
    _capture_deps,
    _CUdevice,
    _CUevent,
    _CUgraph,
    _CUgraphEdgeData,
    _CUstream,
    _CUstreamCallback,
    _cuuint64_t,
    _doc,
    _drv,
    _edge_list,
    _eds_for,
    _face,
    _h,
    _i,
    _mk_ctx,
    _mk_graph,
    _mk_node,
    _node_list,
    _Result,
    _size,
    _struct_arg,
    _u,
)


# =========================================================================== init, version, errors
# =========================================================================== devices
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


# =========================================================================== several devices (issue 10)
@_face
def cuDeviceGetPCIBusId(length: Any, dev: Any) -> _Result:
    n = _i(length)
    bus = _drv().device_get_pci_bus_id(n, _h(dev, _CUdevice)).encode() + b"\0"
    return (_SUCCESS, bus + b" " * (n - len(bus)))


@_face
def cuDeviceGetByPCIBusId(pciBusId: Any) -> _Result:
    return (_SUCCESS, _CUdevice(_drv().device_get_by_pci_bus_id(_bytes_arg(pciBusId).decode("latin-1"))))
