"""The runtime face's streams, capture, graphs, peers and struct helpers
(part of :mod:`simcuda.faces.bindings.runtime`).

Written as an ordinary module (checked by ruff and mypy, read by tools/measure_faces.py) but not used as one: each
load of ``runtime.py`` (the Python face and the native route's second load, ``runtime.NATIVE_NAME``) copies these
functions into its own namespace with :func:`simcuda.faces.bindings._runtime_shared.install`, so that they read
that load's handle classes (``_cudaStream_t``... bound there, declared below for the checker) and carry its
``__module__``. ``@_rt(needs)`` here only records ``needs``; the load wraps each copy in its own ``_rt``.
"""
from __future__ import annotations

import os
import typing as _typing
from collections.abc import Callable as _Callable
from typing import Any
from typing import cast as _cast

from ..._core.errors import DriverError as _DriverError
from ..._core.memory.memory_model import MemsetParams as _MemsetParams
from ..._core.objects import EdgeData as _EdgeData
from ..._core.objects import EdgeDataArg as _EdgeDataArg
from ..._generated import runtime_enums as _E
from . import _args as _A
from . import _driver_types as _T
from . import _executor as _B
from . import _kernel_params as _KP
from . import _runtime_shared as _S
from ._runtime_shared import OK as _OK
from ._runtime_shared import SUCCESS as _SUCCESS
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
    _cudaStream_t: Any = None
    _cudaGraph_t: Any = None
    _cudaGraphNode_t: Any = None
    _cudaGraphExec_t: Any = None
    _cudaGraphEdgeData: Any = None
    _CUgraphNode: Any = None
    _CUgraphEdgeData: Any = None
    _mk_graph: Any = None
    _mk_node: Any = None
    _mk_exec: Any = None
    _state: _Callable[[Any], _S.RtState] = _typing.cast(Any, None)
    _primary: _Callable[[Any, _S.RtState, int], int] = _typing.cast(Any, None)
    _params3d: Any = None


# =========================================================================== argument helpers
_DEPS_ERR = ("Argument '{}' is not instance of type (expected tuple[cyruntime.cudaGraphNode_t,driver.CUgraphNode] or "
             "list[cyruntime.cudaGraphNode_t,driver.CUgraphNode]")


def _node_list(x: Any, arg: str) -> list[int]:
    """Any iterable of node handles (``TypeError: 'int' object is not iterable`` otherwise, as the real check)."""
    if x is None:
        return []
    x = list(x)
    if not all(isinstance(n, _CUgraphNode) for n in x):
        raise TypeError(_DEPS_ERR.format(arg))
    return [int(n) for n in x]


def _deps(x: Any, n: Any, arg: str = "pDependencies") -> list[int]:
    deps = _node_list(x, arg)
    n = _size(n)
    if n > len(deps):
        raise RuntimeError(f"List is too small: {len(deps)} < {n}")
    return deps[:n]


def _edge_list(x: Any, arg: str) -> _EdgeDataArg:  # (a fresh list, which may be padded with None)
    if x is None:
        return []
    ok = (_RCLS["cudaGraphEdgeData_st"], *_CUgraphEdgeData)
    x = list(x)
    if not all(isinstance(e, ok) for e in x):
        raise TypeError(f"Argument '{arg}' is not instance of type (expected tuple[cyruntime.cudaGraphEdgeData,] or "
                        "list[cyruntime.cudaGraphEdgeData,]")
    return [(int(e.from_port), int(e.to_port), int(e.type)) for e in x]


def _edge(ed: _EdgeData) -> Any:
    e = _cudaGraphEdgeData()
    e._d["from_port"], e._d["to_port"], e._d["type"] = ed[0], ed[1], ed[2]
    return e



# =========================================================================== streams
@_rt()
def cudaStreamGetDevice(hStream: Any) -> _Result:
    """The device ordinal of the stream's context."""
    d = _drv()
    hctx = d.stream_get_ctx(_h(hStream, _cudaStream_t))
    d.ctx_push_current(hctx)
    try:
        return (_SUCCESS, d.ctx_get_device())
    finally:
        d.ctx_pop_current()


# =========================================================================== capture
@_rt()
def cudaStreamBeginCaptureToGraph(stream: Any, graph: Any, dependencies: Any, dependencyData: Any,
                                  numDependencies: Any, mode: Any) -> _Result:
    """Begin capturing into an existing graph after ``dependencies`` (spec 3.2); ``dependencyData`` None
    means all-zero edge data. ``numDependencies`` larger than the list raises ``RuntimeError``."""
    deps = _deps(dependencies, numDependencies, "dependencies")
    eds = _edge_list(dependencyData, "dependencyData")
    _drv().stream_begin_capture_to_graph(_h(stream, _cudaStream_t), _h(graph, _cudaGraph_t), deps,
                                         _B.eds_for(eds, len(deps)),
                                         _T.c_enum(mode, "mode", "enum cudaStreamCaptureMode"))
    return _OK


@_rt()
def cudaStreamGetCaptureInfo(stream: Any) -> _Result:
    """``(cudaSuccess, status, id, graph, dependencies, edgeData, numDependencies)`` (spec 3.5).

    The id is a plain ``int`` here (the driver face returns a ``cuuint64_t``); when the status is not
    ACTIVE: id 0, ``cudaGraph_t(0)``, empty lists, 0 [I].
    """
    status, cid, g, deps, eds, n = _drv().stream_get_capture_info(_h(stream, _cudaStream_t))
    return (_SUCCESS, _E.cudaStreamCaptureStatus(status), cid, _mk_graph(g),
            [_mk_node(x) for x in deps], [_edge(ed) for ed in eds], n)


@_rt()
def cudaStreamUpdateCaptureDependencies(stream: Any, dependencies: Any, dependencyData: Any, numDependencies: Any,
                                        flags: Any) -> _Result:
    """Add to (``cudaStreamAddCaptureDependencies``) or replace (``cudaStreamSetCaptureDependencies``) the
    stream's capture dependencies (spec 3.6).
    """
    deps = _node_list(dependencies, "dependencies")
    eds = _edge_list(dependencyData, "dependencyData")
    deps, eds = _B.capture_deps(deps, eds, _size(numDependencies))
    _drv().stream_update_capture_dependencies(_h(stream, _cudaStream_t), deps, eds, _u(flags))
    return _OK


# =========================================================================== graphs
def _struct_type(p: Any, cls_name: str, arg: str) -> Any:
    """The entry check of a struct parameter: ``None`` or an instance, else the wrapper's TypeError."""
    if p is not None and not isinstance(p, _RCLS[cls_name]):
        raise TypeError(f"Argument '{arg}' has incorrect type (expected cuda.bindings.runtime.{cls_name}, "
                        f"got {_A.type_name(type(p))})")
    return p


def _struct_arg(p: Any, cls_name: str, arg: str, call: str) -> Any:
    cls = _RCLS[cls_name]
    if p is not None and not isinstance(p, cls):
        raise TypeError(f"Argument '{arg}' has incorrect type (expected cuda.bindings.runtime.{cls_name}, "
                        f"got {type(p).__name__})")
    if p is None:
        _drv().require_arg(False, arg, call)
    return p


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


# -- the runtime's node parameter structs read for the core (runtime.py's FaceSpec.readers, by struct name) ---------
def _kernel_reader(d: Any, p: Any, call: str) -> dict[str, Any]:
    """The core kernel spec of a ``cudaKernelNodeParams``: ``func`` (a ``CUfunction``/``cudaFunction_t`` or its
    ``int`` handle), ``gridDim``/``blockDim`` (``dim3``), ``sharedMemBytes``, ``kernelParams`` (any form
    ``cuLaunchKernel`` takes)."""
    hf = int(p.func)
    if p._raw("extra"):
        d.check_kernel_extra(_KP.given(p._raw("kernelParams")), p._raw("extra"), call)
    args = _KP.kernel_args(d, hf, p._raw("kernelParams"), call)
    g, b = p.gridDim, p.blockDim
    return {"hfunc": hf, "grid": (g.x, g.y, g.z), "block": (b.x, b.y, b.z), "shmem": p.sharedMemBytes, "args": args}


def _memset_reader(d: Any, m: Any, call: str) -> Any:
    """A ``MemsetParams`` from a ``cudaMemsetParams`` (``dst``, ``pitch`` in bytes, ``value``, ``elementSize``,
    ``width`` in elements, ``height`` in rows)."""
    return _MemsetParams(_T.void_ptr(m._raw("dst")), m.value, m.elementSize, m.width, m.height, m.pitch)


def _host_reader(d: Any, p: Any, call: str) -> dict[str, Any]:
    """The core host node fields of a ``cudaHostNodeParams`` (``fn``: a ``cudaHostFn_t`` address, ``userData``)."""
    return {"fn": int(p.fn), "user_data": p.userData}


def _copy3d_reader(d: Any, p: Any, call: str) -> Any:
    """A ``CopyParams`` from a ``cudaMemcpy3DParms`` (pitched pointers, positions, extent, ``cudaMemcpyKind``)."""
    return _params3d(d, p, call)


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


# =========================================================================== several devices (issue 10)
def _dev_ptr(x: Any) -> int:
    """A device-pointer ``void*`` argument (``int``, a pointer object, None for NULL) as an address; a host buffer
    gives its host address, which the core then refuses as no device memory."""
    from ..._core.memory.memory_model import host_address
    v = _ptr(x)
    if v is None:
        return 0
    return int(v) if isinstance(v, int) else int(host_address(v) or 0)


def _peer_ctx(d: Any, dev: Any) -> int:
    """The primary context of device ``dev`` (an ordinal), retained by the runtime on first use as every runtime
    call that names a device does. Errors: cudaErrorInvalidDevice (101) for a bad ordinal."""
    n = _T.to_int(dev)
    d.device_get(n)
    return _primary(d, _state(d), n)


@_rt()
def cudaDeviceEnablePeerAccess(peerDevice: Any, flags: Any) -> _Result:
    """Let the current device's context reach ``peerDevice``'s primary context (retained on first use).

    Where the runtime differs: cudaErrorInvalidDevice (101) for a bad ordinal, and for ``peerDevice`` the current
    device (cudaDeviceCanAccessPeer says no), where the driver entry answers 201 or 217.
    """
    d = _drv()
    fl = _u(flags)
    d.ctx_enable_peer_access(_peer_ctx(d, peerDevice), fl, call="cudaDeviceEnablePeerAccess")
    return _OK


@_rt()
def cudaDeviceDisablePeerAccess(peerDevice: Any) -> _Result:
    """Undo :func:`cudaDeviceEnablePeerAccess` (cudaErrorInvalidDevice for a bad ordinal)."""
    d = _drv()
    d.ctx_disable_peer_access(_peer_ctx(d, peerDevice), call="cudaDeviceDisablePeerAccess")
    return _OK


@_rt()
def cudaMemcpyPeer(dst: Any, dstDevice: Any, src: Any, srcDevice: Any, count: Any) -> _Result:
    """Synchronous copy of ``count`` bytes from device memory of ``srcDevice`` to ``dstDevice`` (their primary
    contexts; cudaErrorInvalidDevice for a bad ordinal)."""
    d = _drv()
    dp, sp, n = _dev_ptr(dst), _dev_ptr(src), _size(count)
    d.memcpy_peer(dp, _peer_ctx(d, dstDevice), sp, _peer_ctx(d, srcDevice), n, None, "cudaMemcpyPeer")
    return _OK


@_rt()
def cudaMemcpyPeerAsync(dst: Any, dstDevice: Any, src: Any, srcDevice: Any, count: Any, stream: Any) -> _Result:
    """Asynchronous :func:`cudaMemcpyPeer` on ``stream``: a MEMCPY node during capture (spec 3.8)."""
    d = _drv()
    dp, sp, n = _dev_ptr(dst), _dev_ptr(src), _size(count)
    h = _h(stream, _cudaStream_t)
    d.memcpy_peer(dp, _peer_ctx(d, dstDevice), sp, _peer_ctx(d, srcDevice), n, h, "cudaMemcpyPeerAsync")
    return _OK


@_rt("init")
def cudaDeviceGetPCIBusId(length: Any, device: Any) -> _Result:
    """The PCI location as ``bytes`` of ``length`` bytes (NUL-terminated, then padding, as ``cuDeviceGetPCIBusId``
    of the driver face)."""
    n = _T.c_int(length)
    bus = _drv().device_get_pci_bus_id(n, _T.to_int(device)).encode() + b"\0"
    return (_SUCCESS, bus + b" " * (n - len(bus)))


@_rt("init")
def cudaDeviceGetByPCIBusId(pciBusId: Any) -> _Result:
    """The ordinal of the device at ``pciBusId`` (``bytes``; ``str`` raises ``TypeError``)."""
    return (_SUCCESS, _drv().device_get_by_pci_bus_id(_A.bytes_arg(pciBusId).decode("latin-1")))


@_rt()
def cudaMemcpyBatchAsync(dsts: Any, srcs: Any, sizes: Any, count: Any, attrs: Any, attrsIdxs: Any, numAttrs: Any,
                         stream: Any) -> _Result:
    """A batch of copies (``attrs``: ``cudaMemcpyAttributes``); the driver entry's rules."""
    ds, ss, ns, orders, idxs = _B.memcpy_batch_args([_dev_ptr(x) for x in (dsts or [])],
                                                    [_dev_ptr(x) for x in (srcs or [])], sizes, count, attrs,
                                                    attrsIdxs, numAttrs)
    _drv().memcpy_batch(ds, ss, ns, orders, idxs, _h(stream, _cudaStream_t), "cudaMemcpyBatchAsync")
    return _OK


# 3D batched copies (topic: batch3d)
@_rt()
def cudaMemcpy3DBatchAsync(numOps: Any, opList: Any, flags: Any, stream: Any) -> _Result:
    """A batch of 3D copies (``opList``: ``cudaMemcpy3DBatchOp``); the driver entry's rules."""
    ops = _B.memcpy3d_batch_ops(numOps, opList, globals()["cudaMemcpy3DBatchOp"], "cyruntime.cudaMemcpy3DBatchOp")
    _drv().memcpy3d_batch(ops, _u(flags, 64, "unsigned long long"), _h(stream, _cudaStream_t),
                          "cudaMemcpy3DBatchAsync")
    return _OK


# =========================================================================== struct helpers
def make_cudaPos(x: Any, y: Any, z: Any) -> Any:
    """Mirrors ``make_cudaPos(x, y, z)``: a ``cudaPos`` (``x`` in bytes for linear memory, ``y`` rows, ``z`` slices)."""
    p = _RCLS["cudaPos"]()
    p.x, p.y, p.z = _size(x), _size(y), _size(z)
    return p


def make_cudaExtent(w: Any, h: Any, d: Any) -> Any:
    """Mirrors ``make_cudaExtent(w, h, d)``: a ``cudaExtent`` (``width`` in bytes for linear memory)."""
    e = _RCLS["cudaExtent"]()
    e.width, e.height, e.depth = _size(w), _size(h), _size(d)
    return e


def make_cudaPitchedPtr(d: Any, p: Any, xsz: Any, ysz: Any) -> Any:
    """Mirrors ``make_cudaPitchedPtr(d, p, xsz, ysz)``: a ``cudaPitchedPtr``.

    Args: ``d``: None, an ``int`` address or a buffer (a ctypes object, numpy array: its address is
    what ``.ptr`` reads back; the object itself is kept so host memory stays alive and bounds-checked);
    ``p``: pitch in bytes; ``xsz``: logical width in elements; ``ysz``: height in rows. Any other type
    raises ``TypeError`` as in the real wrapper.
    """
    pp = _RCLS["cudaPitchedPtr"]()
    pp.ptr = d
    pp.pitch, pp.xsize, pp.ysize = _size(p), _size(xsz), _size(ysz)
    return pp

