"""The ``_v2`` face's functions of graphs (the hand-written ones); users import them from
:mod:`simcuda.faces.bindings._v2.driver`.
"""
from __future__ import annotations

import functools as _functools
import typing as _typing
from collections.abc import Callable as _Callable
from typing import Any

from ...._core.errors import DriverError as _CoreError
from ...._core.objects import EdgeDataArg as _EdgeDataArg
from ...._generated.driver_outputs import V2_FUNCTIONS as _V2_FUNCTIONS
from .. import _driver_types as _T
from ._v2_face import (
    _CALL,
    _P,
    _R,
    DriverError,
    GraphEdgeData,
    GraphExecUpdateResultInfo_v1,
    GraphInstantiateParams,
    HostNodeParams_v1,
    _CHostNodeParams,
    _CInstantiateParams,
    _CStruct,
    _description,
    _drv,
    _edge_tuples,
    _face,
    _handles,
    _i64,
    _ip,
    _ip_arg,
    _path_buf,
    _raise,
    _struct_at,
    _u,
)

if _typing.TYPE_CHECKING:
    from ...._core.objects import Event as _Event



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
def graph_event_wait_node_get_event(h_node: Any) -> int:
    """The event of a WAIT_EVENT node."""
    return _event_of(h_node, 6)


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
