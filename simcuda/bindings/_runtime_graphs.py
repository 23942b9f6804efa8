"""The runtime face's functions of graphs and conditional nodes (the hand-written ones); users import them from
:mod:`simcuda.bindings.runtime`.
"""
from __future__ import annotations

import ctypes  # noqa: F401  (the real module exposes ``ctypes`` too)
import os
from typing import Any, Optional  # noqa: F401  (the real module exports both names)
from typing import cast as _cast

from .._core.errors import DriverError as _DriverError
from .._core.memory import MemsetParams as _MemsetParams
from .._core.objects import EdgeData as _EdgeData
from .._core.objects import EdgeDataArg as _EdgeDataArg
from . import _args as _A
from . import _build as _B
from . import _driver_types as _T
from . import _kernel_params as _KP
from ._runtime_face import (
    _OK,
    _RCLS,
    _SUCCESS,
    _copy_params,
    _cudaGraph_t,
    _cudaGraphEdgeData,
    _cudaGraphExec_t,
    _cudaGraphNode_t,
    _deps,
    _drv,
    _edge,
    _edge_list,
    _h,
    _mk_exec,
    _mk_graph,
    _mk_node,
    _node_list,
    _ptr,
    _Result,
    _rt,
    _size,
    _u,
)
from ._runtime_memory import _params3d


def _struct_arg(p: Any, cls_name: str, arg: str, call: str) -> Any:
    cls = _RCLS[cls_name]
    if p is not None and not isinstance(p, cls):
        raise TypeError(f"Argument '{arg}' has incorrect type (expected cuda.bindings.runtime.{cls_name}, "
                        f"got {type(p).__name__})")
    if p is None:
        _drv().require_arg(False, arg, call)
    return p


@_rt()
def cudaGraphAddKernelNode(graph: Any, pDependencies: Any, numDependencies: Any, pNodeParams: Any) -> _Result:
    """Add a KERNEL node from ``cudaKernelNodeParams``: ``func`` (a ``CUfunction``/``cudaFunction_t`` or its
    ``int`` handle, from ``cuModuleGetFunction``), ``gridDim``/``blockDim`` (``dim3``), ``sharedMemBytes``
    (bytes), ``kernelParams`` (any form ``cuLaunchKernel`` takes).
    """
    deps = _deps(pDependencies, numDependencies)
    p = _struct_arg(pNodeParams, "cudaKernelNodeParams", "pNodeParams", "cudaGraphAddKernelNode")
    d = _drv()
    hf = int(p.func)
    if p._raw("extra"):
        d.check_kernel_extra(_KP.given(p._raw("kernelParams")), p._raw("extra"), "cudaGraphAddKernelNode")
    args = _KP.kernel_args(d, hf, p._raw("kernelParams"), "cudaGraphAddKernelNode")
    g, b = p.gridDim, p.blockDim
    return (_SUCCESS, _mk_node(d.graph_add_kernel_node(_h(graph, _cudaGraph_t), deps, hf, (g.x, g.y, g.z),
                                                      (b.x, b.y, b.z), p.sharedMemBytes, args)))


@_rt()
def cudaGraphAddMemcpyNode(graph: Any, pDependencies: Any, numDependencies: Any, pCopyParams: Any) -> _Result:
    """Add a MEMCPY node from ``cudaMemcpy3DParms`` (pitched pointers made with ``make_cudaPitchedPtr``,
    positions with ``make_cudaPos``, ``extent`` with ``make_cudaExtent``: width in bytes). Host sides are
    read/written when the graph runs (spec 3.10); ``cudaMemcpyDefault`` infers each side.
    """
    deps = _deps(pDependencies, numDependencies)
    p = _struct_arg(pCopyParams, "cudaMemcpy3DParms", "pCopyParams", "cudaGraphAddMemcpyNode")
    d = _drv()
    return (_SUCCESS, _mk_node(d.graph_add_memcpy_node(_h(graph, _cudaGraph_t), deps,
                                                      _params3d(d, p, "cudaGraphAddMemcpyNode"))))


@_rt()
def cudaGraphAddMemcpyNode1D(graph: Any, pDependencies: Any, numDependencies: Any, dst: Any, src: Any, count: Any,
                             kind: Any) -> _Result:
    """Add a 1D MEMCPY node of ``count`` bytes (arguments as :func:`cudaMemcpy`). This wrapper does not check
    ``numDependencies`` against the list: a larger count reaches the driver as a NULL entry (INVALID_VALUE)."""
    deps = _node_list(pDependencies, "pDependencies")
    n = _size(numDependencies)
    deps = [*deps[:n], 0] if n > len(deps) else deps[:n]
    d = _drv()
    p = _copy_params(d, _ptr(dst), _ptr(src), kind, "cudaGraphAddMemcpyNode1D", width=_size(count))
    return (_SUCCESS, _mk_node(d.graph_add_memcpy_node(_h(graph, _cudaGraph_t), deps, p)))


@_rt()
def cudaGraphAddMemsetNode(graph: Any, pDependencies: Any, numDependencies: Any, pMemsetParams: Any) -> _Result:
    """Add a MEMSET node from ``cudaMemsetParams``: ``dst``, ``pitch`` (bytes, 0 for one row), ``value``,
    ``elementSize`` (1, 2 or 4 bytes), ``width`` (elements), ``height`` (rows).
    """
    deps = _deps(pDependencies, numDependencies)
    m = _struct_arg(pMemsetParams, "cudaMemsetParams", "pMemsetParams", "cudaGraphAddMemsetNode")
    p = _MemsetParams(_T.void_ptr(m._raw("dst")), m.value, m.elementSize, m.width, m.height, m.pitch)
    return (_SUCCESS, _mk_node(_drv().graph_add_memset_node(_h(graph, _cudaGraph_t), deps, p)))


@_rt()
def cudaGraphAddHostNode(graph: Any, pDependencies: Any, numDependencies: Any, pNodeParams: Any) -> _Result:
    """Add a HOST node from ``cudaHostNodeParams`` (``fn``: ``cudaHostFn_t`` address, ``userData``)."""
    deps = _deps(pDependencies, numDependencies)
    p = _struct_arg(pNodeParams, "cudaHostNodeParams", "pNodeParams", "cudaGraphAddHostNode")
    return (_SUCCESS, _mk_node(_drv().graph_add_host_node(_h(graph, _cudaGraph_t), deps, int(p.fn), p.userData)))


def _dep_pairs(from_: Any, to: Any, edgeData: Any, n: Any, remove: bool) -> tuple[list[int], list[int], _EdgeDataArg]:
    return _B.dep_pairs(from_, to, edgeData, n, remove, _node_list, _edge_list)


@_rt()
def cudaGraphAddDependencies(graph: Any, from_: Any, to: Any, edgeData: Any, numDependencies: Any) -> _Result:
    """Add edges ``from_[i] -> to[i]`` (``edgeData`` None: ordinary dependencies)."""
    froms, tos, eds = _dep_pairs(from_, to, edgeData, numDependencies, False)
    _drv().graph_add_dependencies(_h(graph, _cudaGraph_t), froms, tos, eds)
    return _OK


@_rt()
def cudaGraphRemoveDependencies(graph: Any, from_: Any, to: Any, edgeData: Any, numDependencies: Any) -> _Result:
    """Remove edges."""
    froms, tos, eds = _dep_pairs(from_, to, edgeData, numDependencies, True)
    # removal pads a short edge-data list with (255, 255, 255), an edge that never exists: never None
    _drv().graph_remove_dependencies(_h(graph, _cudaGraph_t), froms, tos, _cast("list[_EdgeData]", eds))
    return _OK


def _pad_nodes(handles: list[int], n: int) -> list[Any]:
    return _B.pad_nodes(handles, n, _mk_node)


@_rt()
def cudaGraphGetNodes(graph: Any, numNodes: Any = 0) -> _Result:
    """The graph's nodes in creation order: ``(cudaSuccess, [cudaGraphNode_t], count)``.

    ``numNodes=0`` (the default) only counts: ``([], N)``; a larger value pads the list with
    ``cudaGraphNode_t(0)`` and returns N; a smaller one returns that many nodes and that count.
    """
    n = _size(numNodes)
    _T.check_calloc(n)
    nodes = _drv().graph_get_nodes(_h(graph, _cudaGraph_t))
    return (_SUCCESS, _pad_nodes(nodes, n), len(nodes) if n == 0 or n >= len(nodes) else n)


@_rt()
def cudaGraphGetRootNodes(graph: Any, pNumRootNodes: Any = 0) -> _Result:
    """Nodes with no incoming edge; count-only and padding as :func:`cudaGraphGetNodes`."""
    n = _size(pNumRootNodes)
    _T.check_calloc(n)
    nodes = _drv().graph_get_root_nodes(_h(graph, _cudaGraph_t))
    return (_SUCCESS, _pad_nodes(nodes, n), len(nodes) if n == 0 or n >= len(nodes) else n)


@_rt()
def cudaGraphGetEdges(graph: Any, numEdges: Any = 0) -> _Result:
    """``(cudaSuccess, from, to, edgeData, count)`` in creation order, ``to[i]`` depending on ``from[i]``.

    ``numEdges=0`` only counts; a larger value pads with ``cudaGraphNode_t(0)`` and zero edge data.
    """
    n = _size(numEdges)
    _T.check_calloc(n)
    edges = _drv().graph_get_edges(_h(graph, _cudaGraph_t))
    frm = _pad_nodes([a for a, _, _ in edges], n)
    to = _pad_nodes([b for _, b, _ in edges], n)
    eds = _B.pad_edges([ed for _, _, ed in edges], n, _edge, _cudaGraphEdgeData)
    return (_SUCCESS, frm, to, eds, len(edges) if n == 0 or n >= len(edges) else n)


def _node_deps(node: Any, n: Any, dependents: bool) -> _Result:
    n = _size(n)
    _T.check_calloc(n)
    pairs = _drv().graph_node_get_dependencies(_h(node, _cudaGraphNode_t), dependents)
    nodes = _pad_nodes([a for a, _ in pairs], n)
    eds = _B.pad_edges([ed for _, ed in pairs], n, _edge, _cudaGraphEdgeData)
    return (_SUCCESS, nodes, eds, len(pairs) if n == 0 or n >= len(pairs) else n)


@_rt()
def cudaGraphNodeGetDependencies(node: Any, pNumDependencies: Any = 0) -> _Result:
    """The node's dependencies with edge data: ``(cudaSuccess, nodes, edgeData, count)``."""
    return _node_deps(node, pNumDependencies, False)


@_rt()
def cudaGraphNodeGetDependentNodes(node: Any, pNumDependentNodes: Any = 0) -> _Result:
    """The nodes that depend on this one, with edge data: ``(cudaSuccess, nodes, edgeData, count)``."""
    return _node_deps(node, pNumDependentNodes, True)


@_rt()
def cudaGraphInstantiateWithParams(graph: Any, instantiateParams: Any) -> _Result:
    """Instantiate from ``cudaGraphInstantiateParams`` (``flags``, ``uploadStream`` with the UPLOAD flag);
    writes ``result_out`` and ``errNode_out`` into the struct.

    Mirrors ``cuda.bindings.runtime.cudaGraphInstantiateWithParams(graph, instantiateParams)``; returns
    ``(cudaError_t, cudaGraphExec_t)``.
    """
    p = _struct_arg(instantiateParams, "cudaGraphInstantiateParams", "instantiateParams",
                    "cudaGraphInstantiateWithParams")
    d = _drv()
    flags = int(p.flags)
    try:
        x = d.graph_instantiate_with_params(_h(graph, _cudaGraph_t), flags, int(p.uploadStream))
    except _DriverError as e:
        p._d["result_out"] = getattr(e, "instantiate_result", 1)
        p._d["errNode_out"] = _mk_node(getattr(e, "err_node", 0))
        raise
    p._d["result_out"] = 0
    p._d["errNode_out"] = _mk_node(0)
    return (_SUCCESS, _mk_exec(x))


@_rt()
def cudaGraphExecUpdate(hGraphExec: Any, hGraph: Any) -> _Result:
    """Update an exec from a graph of the same topology: ``(cudaSuccess, cudaGraphExecUpdateResultInfo)``.

    On failure (cudaErrorGraphExecUpdateFailure, 910) the info slot is ``None`` like every output on
    error; the reason (TOPOLOGY_CHANGED, NODE_TYPE_CHANGED...) is in ``simcuda.last_error().why``.
    Graphs that created different numbers of nodes give NOT_SUPPORTED (spec 16) [I].
    """
    result, enode, efrom = _drv().graph_exec_update(_h(hGraphExec, _cudaGraphExec_t), _h(hGraph, _cudaGraph_t))
    info = _RCLS["cudaGraphExecUpdateResultInfo"]()
    info._d["result"] = result
    info._d["errorNode"] = _mk_node(enode)
    info._d["errorFromNode"] = _mk_node(efrom)
    return (_SUCCESS, info)


@_rt()
def cudaGraphDebugDotPrint(graph: Any, path: Any, flags: Any) -> _Result:
    """Write the graph as Graphviz DOT (spec 9.1). ``path``: ``bytes`` (``str`` raises ``TypeError``)."""
    p = _A.bytes_arg(path)
    _drv().graph_debug_dot_print(_h(graph, _cudaGraph_t), os.fsdecode(p), _u(flags))
    return _OK


# =========================================================================== conditional nodes (topic: conditional)
@_rt()
def cudaGraphAddNode(graph: Any, pDependencies: Any, dependencyData: Any, numDependencies: Any,
                     nodeParams: Any) -> _Result:
    """Add a node from a ``cudaGraphNodeParams`` tagged union. Served for ``cudaGraphNodeTypeConditional``
    (``conditional``: ``handle``, ``type``, ``size``, ``ctx``; the body graphs are written back into
    ``conditional.phGraph_out``) and ``cudaGraphNodeTypeEmpty``; the other types are cudaErrorNotSupported here
    (use the typed ``cudaGraphAdd*Node`` calls) [simulator limit]."""
    deps = _deps(pDependencies, numDependencies)
    eds = _B.eds_for(_edge_list(dependencyData, "dependencyData"), len(deps))
    p = _struct_arg(nodeParams, "cudaGraphNodeParams", "nodeParams", "cudaGraphAddNode")
    d = _drv()
    t = int(p._raw("type"))
    hg = _h(graph, _cudaGraph_t)
    if t == 13:
        c = p.conditional._d
        spec = {"handle": int(c["handle"]), "type": int(c["type"]), "size": int(c["size"]), "ctx": int(c["ctx"])}
        h, bodies = d.graph_add_node(hg, deps, t, spec, eds, "cudaGraphAddNode")
        c["phGraph_out"] = [_mk_graph(b) for b in bodies]
        return (_SUCCESS, _mk_node(h))
    if t == 5:
        return (_SUCCESS, _mk_node(d.graph_add_node(hg, deps, t, None, eds, "cudaGraphAddNode")[0]))
    d.check_node_type(t, "cudaGraphAddNode")
    raise d.not_simulated("cudaGraphAddNode", f"cudaGraphAddNode of node type {t}: the runtime face serves "
                                              "conditional and empty nodes only; use the typed cudaGraphAdd*Node "
                                              "calls [simulator limit]")
