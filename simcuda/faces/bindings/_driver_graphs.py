"""The tuple face's functions of graphs: adding nodes, node parameters, exec updates, stream memory operations
and external semaphores (the graph-node forms' twins), topology, instantiation (the hand-written ones); users import
them from :mod:`simcuda.faces.bindings.driver`.
"""
from __future__ import annotations

import os
from typing import Any, Optional  # noqa: F401  (the real module exports both names)
from typing import cast as _cast

from ..._core.errors import DriverError as _DriverError
from ..._core.objects import EdgeData as _EdgeData
from ..._core.objects import EdgeDataArg as _EdgeDataArg
from . import _executor as _B
from ._driver_face import (
    _NS,
    _OK,
    _SUCCESS,
    _bytes_arg,
    _CUdeviceptr,
    _CUgraph,
    _CUgraphExec,
    _CUgraphExecUpdateResultInfo,
    _CUgraphNode,
    _CUstream,
    _deps_for,
    _drv,
    _edge_list,
    _eds_for,
    _face,
    _h,
    _mk_dptr,
    _mk_event,
    _mk_exec,
    _mk_graph,
    _mk_node,
    _node_list,
    _null,
    _Result,
    _size,
    _struct_arg,
    _u,
)
from ._driver_node_params import (
    _NT_ALLOC,
    _NT_BATCH,
    _NT_COND,
    _NT_EXT_WAIT,
    _NT_FREE,
    _NT_GRAPH,
    _NT_HOST,
    _NT_KERNEL,
    _NT_MEMCPY,
    _NT_MEMSET,
    _NT_RECORD,
    _NT_SIGNAL,
    _NT_WAIT,
    _alloc_struct,
    _batch_from,
    _batch_struct,
    _exec_set,
    _ext_struct,
    _gnp_spec,
    _gnp_struct,
    _host_struct,
    _kernel_struct,
    _mem_ops_from,
    _memcpy_struct,
    _memset_struct,
    _node_params,
)


@_face
def cuGraphAddBatchMemOpNode(hGraph: Any, dependencies: Any, numDependencies: Any, nodeParams: Any) -> _Result:
    deps = _deps_for(dependencies, numDependencies)
    _struct_arg(nodeParams, "CUDA_BATCH_MEM_OP_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphAddBatchMemOpNode", "nodeParams")
    b = _batch_from(d, nodeParams, "cuGraphAddBatchMemOpNode")
    return (_SUCCESS, _mk_node(d.graph_add_batch_mem_op_node(_h(hGraph, _CUgraph), deps, b["ops"], b["flags"],
                                                            b["ctx"])))


def _add_node(name: str, hGraph: Any, dependencies: Any, dependencyData: Any, numDependencies: Any,
              nodeParams: Any) -> _Result:
    deps = _node_list(dependencies, "dependencies")
    n = _size(numDependencies)
    # NVIDIA's cuGraphAddNode passes the count through (its per-type wrappers check it): entries past the list
    # reach the driver as NULL or garbage handles, the first refused (INVALID_VALUE); one NULL stands for them
    deps = deps[:n] if n <= len(deps) else [*deps, 0]
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
def cuGraphMemcpyNodeGetParams(hNode: Any) -> _Result:
    return (_SUCCESS, _memcpy_struct(_node_params(hNode, _NT_MEMCPY)))


@_face
def cuGraphMemsetNodeGetParams(hNode: Any) -> _Result:
    return (_SUCCESS, _memset_struct(_node_params(hNode, _NT_MEMSET)))


@_face
def cuGraphHostNodeGetParams(hNode: Any) -> _Result:
    return (_SUCCESS, _host_struct(_node_params(hNode, _NT_HOST)))


@_face
def cuGraphEventRecordNodeGetEvent(hNode: Any) -> _Result:
    return (_SUCCESS, _mk_event(_node_params(hNode, _NT_RECORD).event.handle))


@_face
def cuGraphEventWaitNodeGetEvent(hNode: Any) -> _Result:
    return (_SUCCESS, _mk_event(_node_params(hNode, _NT_WAIT).event.handle))


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
def cuGraphExternalSemaphoresSignalNodeGetParams(hNode: Any) -> _Result:
    return (_SUCCESS, _ext_struct(_node_params(hNode, _NT_SIGNAL), False, "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS"))


@_face
def cuGraphExternalSemaphoresWaitNodeGetParams(hNode: Any) -> _Result:
    return (_SUCCESS, _ext_struct(_node_params(hNode, _NT_EXT_WAIT), True, "CUDA_EXT_SEM_WAIT_NODE_PARAMS"))


# -- per-node changes of an executable graph -------------------------------------------------------
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
    v = _h(value, _NS[f"cuuint{bits}_t"])  # a cuuint32_t/cuuint64_t argument: None is 0
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
    sems = _node_list(extSemArray, "extSemArray", _NS["CUexternalSemaphore"])
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
