"""Struct parameters of the native route: C structs read (and written back) through the generated ctypes layouts.

Why this file is long (over ~700 lines): it holds one reader or decoder per C struct the native route takes, each
written as data over the generated layouts.

Mirrors: the struct arguments of the driver entries as ``cuda/bindings/cydriver.pxd`` (cuda-bindings 13.5)
declares them; the layouts are :mod:`simcuda._generated.cydriver_ctypes`, never typed by hand. Each decoder
turns a struct into the same core values the tuple face (:mod:`simcuda.faces.bindings.driver`) makes from the
wrapper's struct object and calls the same core operation: the rules (capture restrictions, CIG checks, the
update rules) are the core's. The struct readers (:data:`READERS`, one per struct) serve the rows whose call
names a struct parameter; the decoder kinds (:data:`KINDS`, merged into :data:`simcuda.faces.native.adapters.KINDS`)
serve the rows that name them.
"""
from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

from ..._core.errors import DriverError
from ..._core.modules.arg_slots import arg_slot, buffer_address
from ..._generated import cydriver_ctypes as C
from ..._generated.entry_table import Entry
from ._shared import KEPT, stream
from ._shared import drv as _drv


def ctx_create_params(addr: int | None) -> tuple[tuple[int, int] | None, bool]:
    """``(cig, exec_affinity)`` of a ``CUctxCreateParams*`` as the tuple face reads a ``CUctxCreateParams``:
    CIG parameters from the first ``cigParams`` entry (``(sharedDataType, sharedData)``), exec affinity when
    its array or its count is set. NULL: neither."""
    if not addr:
        return None, False
    p = C.CUctxCreateParams.from_address(addr)
    affinity = bool(p.execAffinityParams) or p.numExecAffinityParams > 0
    cig = None
    if p.cigParams:
        c = p.cigParams[0]
        cig = (int(c.sharedDataType), int(c.sharedData or 0))
    return cig, affinity


def ctx_create(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuCtxCreate (12050) ``(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags,
    CUdevice dev)``, cuCtxCreate_v3 (11040) ``(CUcontext *pctx, CUexecAffinityParam *paramsArray, int
    numParams, unsigned int flags, CUdevice dev)`` (execution-affinity parameters given when ``numParams`` > 0,
    as the 12050 form's ``numExecAffinityParams``) and cuCtxCreate_v2 (3020) ``(CUcontext *pctx, unsigned int
    flags, CUdevice dev)``."""
    n = len(entry.params)

    def body(out: int | None, *args: Any) -> int:
        d = _drv()
        d.require_arg(bool(out), "pctx", entry.name)
        if n == 5:
            cig, affinity = None, bool(args[0]) or args[1] > 0
        else:
            cig, affinity = ctx_create_params(args[0]) if n == 4 else (None, False)
        flags, dev = args[-2], args[-1]
        ctypes.c_void_p.from_address(out or 0).value = d.ctx_create(flags, dev, cig=cig, exec_affinity=affinity)
        return 0
    return body


def graph_exec_update(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuGraphExecUpdate (12000) ``(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo
    *resultInfo)``: the result info is written on success and, as the driver does, on an update failure
    (910, with the core's ``update_info``)."""
    def body(hexec: int | None, hgraph: int | None, info: int | None) -> int:
        d = _drv()
        d.require_arg(bool(info), "resultInfo", entry.name)
        out = C.CUgraphExecUpdateResultInfo.from_address(info or 0)
        try:
            result, enode, efrom = d.graph_exec_update(hexec or 0, hgraph or 0)
        except DriverError as e:
            got = getattr(e, "update_info", None)
            if got is not None:
                out.result, out.errorNode, out.errorFromNode = got[0], got[1] or None, got[2] or None
            raise
        out.result, out.errorNode, out.errorFromNode = result, enode or None, efrom or None
        return 0
    return body



# ================================================================================ graph node parameters
# The readers below turn a C parameter struct into the core values the tuple face's helpers make from the
# wrapper's struct (simcuda/faces/bindings/driver.py: _kernel_spec, _copy_struct, _memset_from, _host_from,
# _alloc_from, _batch_from, _ext_from, _gnp_spec); the writers are its _*_struct helpers, written into the
# caller's struct. Node types: simcuda._core.graphs.graph_model (CUgraphNodeType).
KERNEL, MEMCPY, MEMSET, HOST, GRAPH, EMPTY, WAIT, RECORD, SIGNAL, EXT_WAIT, ALLOC, FREE, BATCH = range(13)
_HOST_KIND, _DEVICE_KIND = "host", "device"  # simcuda._core.memory.memory_model.HOST / DEVICE
_EDGE_FIELDS = ("from_port", "to_port", "type")


def _addr(st: Any, field: str) -> int:
    """The raw address held by pointer field ``field`` of struct ``st`` (a data or function pointer; NULL 0)."""
    return ctypes.c_void_p.from_address(ctypes.addressof(st) + getattr(type(st), field).offset).value or 0


def _set_addr(st: Any, field: str, value: int | None) -> None:
    """Write an address into pointer field ``field`` of ``st``."""
    ctypes.c_void_p.from_address(ctypes.addressof(st) + getattr(type(st), field).offset).value = value or None


def _handles(addr: int | None, n: int) -> list[int]:
    """A ``const CUgraphNode*`` of ``n`` items as the generic adapters read one (a NULL array with a count
    gives one NULL handle, which the core refuses as it would the first item)."""
    if not addr:
        return [0] if n else []
    return [x or 0 for x in (ctypes.c_void_p * n).from_address(addr)]


def _edges(addr: int | None, n: int) -> list[tuple[int, int, int] | None]:
    """A ``const CUgraphEdgeData*`` of ``n`` items; NULL is all-zero edge data (the face's ``_eds_for``)."""
    if not addr:
        return [(0, 0, 0)] * n
    return [(e.from_port, e.to_port, e.type) for e in (C.CUgraphEdgeData * n).from_address(addr)]


def kernel_spec(d: Any, st: Any, call: str) -> dict[str, Any]:
    """The core kernel spec of a ``CUDA_KERNEL_NODE_PARAMS`` (v1 or the v3 member of ``CUgraphNodeParams``):
    ``func`` (or ``kern``), dimensions, shared memory, and the ``void**`` ``kernelParams`` decoded by the
    kernel's parameter types (checked readable, as the face decodes an address); ``extra`` by the core's rule."""
    hf = st.func or st.kern or 0
    kp, extra = _addr(st, "kernelParams"), _addr(st, "extra")
    if extra:
        d.check_kernel_extra(bool(kp), extra, call)
    return {"hfunc": hf, "grid": (st.gridDimX, st.gridDimY, st.gridDimZ),
            "block": (st.blockDimX, st.blockDimY, st.blockDimZ), "shmem": st.sharedMemBytes,
            "args": d.decode_kernel_args(hf, kp, call) if kp else []}


def _kernel_args_array(hnode: int, params: Any) -> int:
    """The address of a ``void**`` array holding copies of a kernel node's arguments. The driver hands out an
    array that stays valid: it is kept (in ``_shared.KEPT``) for as long as the node keeps these
    parameters, and the same array is handed out again while it does."""
    args = params.args
    if not args:
        return 0
    key = (hnode, "kernelParams")
    kept = KEPT.get(key)
    if kept is not None and kept[0] is params:
        return ctypes.addressof(kept[1])
    f = params.func
    types = f.param_types if len(f.param_types) == len(args) else [None] * len(args)
    slots = [arg_slot(t, v) for t, v in zip(types, args)]
    arr = (ctypes.c_void_p * len(slots))(*[ctypes.addressof(x) for x in slots])
    KEPT[key] = (params, arr, slots)
    return ctypes.addressof(arr)


def write_kernel(st: Any, hnode: int, p: Any) -> None:
    """Fill a ``CUDA_KERNEL_NODE_PARAMS`` (or v3) from a node's ``KernelParams`` (the face's ``_kernel_struct``)."""
    ctypes.memset(ctypes.addressof(st), 0, ctypes.sizeof(st))
    f = p.func
    st.func = f.handle
    st.gridDimX, st.gridDimY, st.gridDimZ = p.grid
    st.blockDimX, st.blockDimY, st.blockDimZ = p.block
    st.sharedMemBytes = p.shmem
    st.ctx = f.module.ctx.handle if f.module.ctx is not None else None
    _set_addr(st, "kernelParams", _kernel_args_array(hnode, p))


def _side(d: Any, st: Any, pre: str, call: str) -> tuple[str, Any, bool]:
    """(kind, address, unified) of one side of a ``CUDA_MEMCPY3D`` (the face's ``_side``)."""
    mt = getattr(st, pre + "MemoryType")
    kind = {1: _HOST_KIND, 2: _DEVICE_KIND}.get(mt) or d.copy_memory_type(mt, pre, call)
    if kind == _HOST_KIND:
        return _HOST_KIND, _addr(st, pre + "Host"), False
    a = int(getattr(st, pre + "Device"))
    if kind == _DEVICE_KIND:
        return _DEVICE_KIND, a, False
    return d.unified_side(a), a, True


def copy3d(d: Any, st: Any, call: str) -> Any:
    """The core ``CopyParams`` of a ``CUDA_MEMCPY3D`` (the face's ``_copy_struct``, 3D)."""
    from ..._core.memory.memory_model import CopyParams
    sk, so, su = _side(d, st, "src", call)
    dk, do, du = _side(d, st, "dst", call)
    return CopyParams(sk, so, dk, do, st.WidthInBytes, st.Height, st.Depth, st.srcPitch, st.srcHeight, st.dstPitch,
                      st.dstHeight, st.srcXInBytes, st.srcY, st.srcZ, st.dstXInBytes, st.dstY, st.dstZ,
                      src_unified=su, dst_unified=du)


def copy2d(d: Any, st: Any, call: str) -> Any:
    """The core ``CopyParams`` of a ``CUDA_MEMCPY2D`` (the face's ``_copy_struct``, 2D: depth 1, no Z or heights)."""
    from ..._core.memory.memory_model import CopyParams
    sk, so, su = _side(d, st, "src", call)
    dk, do, du = _side(d, st, "dst", call)
    return CopyParams(sk, so, dk, do, st.WidthInBytes, st.Height, 1, st.srcPitch, 0, st.dstPitch, 0, st.srcXInBytes,
                      st.srcY, 0, st.dstXInBytes, st.dstY, 0, src_unified=su, dst_unified=du)


def _host_address(obj: Any) -> int:
    """A host side of a stored copy as an address (an ``int`` as the native route stores it, else a buffer's)."""
    if isinstance(obj, int):
        return obj
    if isinstance(obj, ctypes._CData):
        return ctypes.addressof(obj)
    return buffer_address(obj)[0]  # a buffer a Python face stored


def write_copy3d(st: Any, p: Any) -> None:
    """Fill a ``CUDA_MEMCPY3D`` from a node's ``CopyParams`` (the face's ``_memcpy_struct``)."""
    ctypes.memset(ctypes.addressof(st), 0, ctypes.sizeof(st))
    for pre, obj, x, y, z, pitch, height in (
            ("src", p.src, p.src_x, p.src_y, p.src_z, p.src_pitch, p.src_height),
            ("dst", p.dst, p.dst_x, p.dst_y, p.dst_z, p.dst_pitch, p.dst_height)):
        mt = p.memory_type(pre)
        setattr(st, pre + "MemoryType", mt)
        if mt == 1:
            _set_addr(st, pre + "Host", _host_address(obj))
        else:
            setattr(st, pre + "Device", int(obj))
        for field, v in (("XInBytes", x), ("Y", y), ("Z", z), ("Pitch", pitch), ("Height", height)):
            setattr(st, pre + field, v)
    st.WidthInBytes, st.Height, st.Depth = p.width, p.height, p.depth


def memset_params(st: Any) -> Any:
    """The core ``MemsetParams`` of a ``CUDA_MEMSET_NODE_PARAMS`` (or v2; the face's ``_memset_from``)."""
    from ..._core.memory.memory_model import MemsetParams
    return MemsetParams(st.dst, st.value, st.elementSize, st.width, st.height, st.pitch)


def write_memset(st: Any, p: Any) -> None:
    """Fill a ``CUDA_MEMSET_NODE_PARAMS`` (or v2) from a node's ``MemsetParams``."""
    ctypes.memset(ctypes.addressof(st), 0, ctypes.sizeof(st))
    st.dst, st.pitch, st.value, st.elementSize, st.width, st.height = (p.dst, p.pitch, p.value, p.element_size,
                                                                      p.width, p.height)


def host_params(st: Any) -> dict[str, Any]:
    """``fn`` (a function address), ``user_data`` and ``sync_mode`` of a ``CUDA_HOST_NODE_PARAMS`` (or v2)."""
    return {"fn": _addr(st, "fn"), "user_data": st.userData or 0, "sync_mode": getattr(st, "syncMode", 0)}


def write_host(st: Any, p: Any) -> None:
    """Fill a ``CUDA_HOST_NODE_PARAMS`` (or v2) from a node's ``HostParams``."""
    ctypes.memset(ctypes.addressof(st), 0, ctypes.sizeof(st))
    _set_addr(st, "fn", p.fn if isinstance(p.fn, int) else 0)
    ud = p.user_data
    st.userData = (ud if isinstance(ud, int) else _host_address(ud)) or None
    if hasattr(st, "syncMode"):
        st.syncMode = p.sync_mode


def alloc_params(d: Any, st: Any, call: str) -> dict[str, Any]:
    """The core values of a ``CUDA_MEM_ALLOC_NODE_PARAMS`` (or v2; the face's ``_alloc_from``)."""
    pp = st.poolProps
    count, at = st.accessDescCount, _addr(st, "accessDescs")
    if count and not at:
        d.require_count(count, 0, "accessDescCount", call)
    descs = (C.CUmemAccessDesc * count).from_address(at) if count else []
    return {"size": st.bytesize, "location": (pp.location.type, pp.location.id), "alloc_type": pp.allocType,
            "access": [(a.location.type, a.location.id, a.flags) for a in descs]}


def write_alloc(st: Any, hnode: int, p: Any) -> None:
    """Fill a ``CUDA_MEM_ALLOC_NODE_PARAMS`` (or v2) from a node's ``MemAllocParams``; the access descriptor
    array is kept with the node's parameters, as the kernel arguments are."""
    ctypes.memset(ctypes.addressof(st), 0, ctypes.sizeof(st))
    st.poolProps.allocType = 1  # CU_MEM_ALLOCATION_TYPE_PINNED
    st.poolProps.location.type, st.poolProps.location.id = 1, p.device  # CU_MEM_LOCATION_TYPE_DEVICE
    arr = (C.CUmemAccessDesc * max(len(p.access), 1))()
    for k, (t, did, fl) in enumerate(p.access):
        arr[k].location.type, arr[k].location.id, arr[k].flags = t, did, fl
    KEPT[(hnode, "accessDescs")] = arr
    _set_addr(st, "accessDescs", ctypes.addressof(arr) if p.access else 0)
    st.accessDescCount, st.bytesize, st.dptr = len(p.access), p.size, p.alloc.start


def batch_params(d: Any, st: Any, call: str) -> dict[str, Any]:
    """The core values of a ``CUDA_BATCH_MEM_OP_NODE_PARAMS`` (or v2; the face's ``_batch_from``)."""
    return {"ops": mem_ops(d, _addr(st, "paramArray"), st.count, call), "flags": st.flags, "ctx": st.ctx or 0}


def mem_ops(d: Any, at: int | None, n: int, call: str) -> list[tuple[int, int, int, int]]:
    """``(operation, address, value, flags)`` of ``n`` ``CUstreamBatchMemOpParams`` at ``at`` (the union read by
    its ``operation``, which every member starts with; the face's ``_mem_ops_from``); a NULL array with a count
    is the core's ``require_count``."""
    if n and not at:
        d.require_count(n, 0, "count (of paramArray)", call)
    ops = []
    for u in ((C.CUstreamBatchMemOpParams * n).from_address(at or 0) if n else []):
        op = u.operation
        if op in (1, 4, 2, 5):
            s = u.waitValue if op in (1, 4) else u.writeValue
            ops.append((op, int(s.address), int(s.value if op in (1, 2) else s.value64), s.flags))
        elif op == 3:
            ops.append((op, 0, 0, u.flushRemoteWrites.flags))
        elif op == 6:
            ops.append((op, 0, 0, u.memoryBarrier.flags))
        else:
            ops.append((op, 0, 0, 0))  # the core refuses unknown or unsimulated types
    return ops


def write_batch(st: Any, hnode: int, p: Any) -> None:
    """Fill a ``CUDA_BATCH_MEM_OP_NODE_PARAMS`` (or v2) from a node's ``BatchMemOpParams``."""
    ctypes.memset(ctypes.addressof(st), 0, ctypes.sizeof(st))
    arr = (C.CUstreamBatchMemOpParams * max(len(p.ops), 1))()
    for k, (kind, addr, value, flags) in enumerate(p.ops):
        u = arr[k]
        u.operation = kind
        if kind in (1, 4, 2, 5):
            s = u.waitValue if kind in (1, 4) else u.writeValue
            s.operation, s.address, s.flags = kind, addr, flags
            if kind in (1, 2):
                s.value = value
            else:
                s.value64 = value
        elif kind in (3, 6):
            (u.flushRemoteWrites if kind == 3 else u.memoryBarrier).flags = flags
    KEPT[(hnode, "paramArray")] = arr
    st.ctx = p.ctx.handle if p.ctx is not None else None
    _set_addr(st, "paramArray", ctypes.addressof(arr) if p.ops else 0)
    st.count, st.flags = len(p.ops), p.flags


def ext_params(d: Any, st: Any, wait: bool, call: str) -> dict[str, Any]:
    """The core values of a ``CUDA_EXT_SEM_{SIGNAL,WAIT}_NODE_PARAMS`` (or v2; the face's ``_ext_from``)."""
    return ext_semaphores(d, _addr(st, "extSemArray"), _addr(st, "paramsArray"), st.numExtSems, wait, call)


def ext_semaphores(d: Any, sa: int | None, pa: int | None, n: int, wait: bool, call: str) -> dict[str, Any]:
    """``sems`` and ``values`` (``(fence value, keyed-mutex key, timeout, flags)``) of ``n`` external semaphores
    and their ``CUDA_EXTERNAL_SEMAPHORE_{SIGNAL,WAIT}_PARAMS`` (the face's ``_ext_from`` / ``_ext_async``); NULL
    arrays with a count are the core's ``require_count``."""
    if n and not (sa and pa):
        d.require_count(n, 0, "numExtSems (of extSemArray and paramsArray)", call)
    pt = C.CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS if wait else C.CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS
    sems = [x or 0 for x in (ctypes.c_void_p * n).from_address(sa or 0)] if n else []
    values = []
    for sp in ((pt * n).from_address(pa or 0) if n else []):
        q = sp.params
        values.append((q.fence.value, q.keyedMutex.key, q.keyedMutex.timeoutMs if wait else 0, sp.flags))
    return {"sems": sems, "values": values}


def write_ext(st: Any, hnode: int, p: Any, wait: bool) -> None:
    """Fill a ``CUDA_EXT_SEM_{SIGNAL,WAIT}_NODE_PARAMS`` (or v2) from a node's ``ExtSemParams``."""
    ctypes.memset(ctypes.addressof(st), 0, ctypes.sizeof(st))
    pt = C.CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS if wait else C.CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS
    n = len(p.sems)
    sems = (ctypes.c_void_p * max(n, 1))(*p.sems)
    params = (pt * max(n, 1))()
    for k, (fence, key, timeout, flags) in enumerate(p.values):
        params[k].params.fence.value, params[k].params.keyedMutex.key, params[k].flags = fence, key, flags
        if wait:
            params[k].params.keyedMutex.timeoutMs = timeout
    KEPT[(hnode, "extSemArray")] = (sems, params)
    _set_addr(st, "extSemArray", ctypes.addressof(sems) if n else 0)
    _set_addr(st, "paramsArray", ctypes.addressof(params) if n else 0)
    st.numExtSems = n


#: the member of the ``CUgraphNodeParams`` union per node type (None: EMPTY has none)
_MEMBER = {KERNEL: "kernel", MEMCPY: "memcpy", MEMSET: "memset", HOST: "host", GRAPH: "graph", EMPTY: None,
           WAIT: "eventWait", RECORD: "eventRecord", SIGNAL: "extSemSignal", EXT_WAIT: "extSemWait", ALLOC: "alloc",
           FREE: "free", BATCH: "memOp"}
COND = 13  # conditional nodes (topic: conditional): see cond_params / write_cond at the end
_MEMBER[COND] = "conditional"


def node_params(d: Any, np_: Any, call: str) -> tuple[int, Any]:
    """``(node type, core spec)`` of a ``CUgraphNodeParams``, the tagged union read by ``type`` (the face's
    ``_gnp_spec``); an unknown or unsimulated type is the core's ``check_node_type``."""
    t = np_.type
    if t not in _MEMBER:
        d.check_node_type(t, call)
    member = _MEMBER[t]
    m: Any = getattr(np_, member) if member else None
    if t == KERNEL:
        return t, kernel_spec(d, m, call)
    if t == MEMCPY:
        return t, copy3d(d, m.copyParams, call)
    if t == MEMSET:
        return t, memset_params(m)
    if t == HOST:
        return t, host_params(m)
    if t == GRAPH:
        return t, (m.graph or 0, m.ownership)
    if t in (WAIT, RECORD):
        return t, m.event or 0
    if t in (SIGNAL, EXT_WAIT):
        return t, ext_params(d, m, t == EXT_WAIT, call)
    if t == ALLOC:
        return t, alloc_params(d, m, call)
    if t == FREE:
        return t, int(m.dptr)
    if t == BATCH:
        return t, batch_params(d, m, call)
    if t == COND:
        return t, cond_params(m)
    return t, None


def write_node_params(np_: Any, hnode: int, t: int, p: Any) -> None:
    """Fill a ``CUgraphNodeParams`` for a node of type ``t`` with record ``p`` (the face's ``_gnp_struct``)."""
    ctypes.memset(ctypes.addressof(np_), 0, ctypes.sizeof(np_))
    np_.type = t
    if t == KERNEL:
        write_kernel(np_.kernel, hnode, p)
    elif t == MEMCPY:
        write_copy3d(np_.memcpy.copyParams, p)
    elif t == MEMSET:
        write_memset(np_.memset, p)
    elif t == HOST:
        write_host(np_.host, p)
    elif t == GRAPH:
        np_.graph.graph, np_.graph.ownership = p.graph.handle, -1  # OWNERSHIP_INVALID: set on query
    elif t in (WAIT, RECORD):
        (np_.eventWait if t == WAIT else np_.eventRecord).event = p.event.handle
    elif t in (SIGNAL, EXT_WAIT):
        write_ext(np_.extSemWait if t == EXT_WAIT else np_.extSemSignal, hnode, p, t == EXT_WAIT)
    elif t == ALLOC:
        write_alloc(np_.alloc, hnode, p)
    elif t == FREE:
        np_.free.dptr = p.dptr
    elif t == BATCH:
        write_batch(np_.memOp, hnode, p)
    elif t == COND:
        write_cond(np_.conditional, hnode, p)


# ------------------------------------------------------------------------ the entries
Body = Callable[..., int]


def _typed_add(kind: int) -> Callable[[Entry, bool], Body]:
    """cuGraphAdd{Kernel,Memcpy,Memset,Host,MemAlloc,BatchMemOp,ExternalSemaphores*}Node ``(CUgraphNode
    *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, <params>*[,
    CUcontext ctx])``: the params struct read as the tuple face reads it, then its core add; a MEM_ALLOC
    node's address is written back into ``nodeParams.dptr``."""
    def make(entry: Entry, ptds: bool) -> Body:
        call, arg = entry.name, entry.params[4][1]
        struct = getattr(C, entry.params[4][0].replace("const ", "").rstrip("*").strip())

        def body(out: int | None, hg: int | None, deps_at: int | None, n: int, params: int | None,
                 *_ctx: Any) -> int:
            d = _drv()
            d.require_arg(bool(out), "phGraphNode", call)
            deps = _handles(deps_at, n)
            d.require_arg(bool(params), arg, call)
            st = struct.from_address(params)
            g = hg or 0
            if kind == KERNEL:
                k = kernel_spec(d, st, call)
                h = d.graph_add_kernel_node(g, deps, k["hfunc"], k["grid"], k["block"], k["shmem"], k["args"])
            elif kind == MEMCPY:
                h = d.graph_add_memcpy_node(g, deps, copy3d(d, st, call))
            elif kind == MEMSET:
                h = d.graph_add_memset_node(g, deps, memset_params(st))
            elif kind == HOST:
                hp = host_params(st)
                h = d.graph_add_host_node(g, deps, hp["fn"], hp["user_data"])
            elif kind == ALLOC:
                a = alloc_params(d, st, call)
                h, dptr = d.graph_add_mem_alloc_node(g, deps, a["size"], a["location"], a["alloc_type"], a["access"])
                st.dptr = dptr
            elif kind == BATCH:
                b = batch_params(d, st, call)
                h = d.graph_add_batch_mem_op_node(g, deps, b["ops"], b["flags"], b["ctx"])
            else:
                e = ext_params(d, st, kind == EXT_WAIT, call)
                h = d.graph_add_ext_sem_node(g, deps, e["sems"], e["values"], kind == EXT_WAIT)
            ctypes.c_void_p.from_address(out or 0).value = h
            return 0
        return body
    return make


def graph_add_node(entry: Entry, ptds: bool) -> Body:
    """cuGraphAddNode (12030) and cuGraphAddNode_v3 (13041) ``(CUgraphNode *phGraphNode, CUgraph hGraph, const
    CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData, size_t numDependencies,
    CUgraphNodeParams *nodeParams)``: the tagged union read by ``type`` and the core add of that type, with
    the edge data (the face's ``_add_node``); a MEM_ALLOC node's address written back into ``alloc.dptr``."""
    call = entry.name

    def body(out: int | None, hg: int | None, deps_at: int | None, eds_at: int | None, n: int,
             params: int | None) -> int:
        d = _drv()
        d.require_arg(bool(out), "phGraphNode", call)
        deps = _handles(deps_at, n)
        eds = _edges(eds_at, len(deps))
        d.require_arg(bool(params), "nodeParams", call)
        np_ = C.CUgraphNodeParams.from_address(params or 0)
        g = hg or 0
        t, spec = node_params(d, np_, call)
        h, out_ = d.graph_add_node(g, deps, t, spec, eds, call)
        if t == COND:  # the body graphs, in an array the driver owns (phGraph_out, P-21)
            _, p = d.graph_node_get_params(h)
            write_cond(np_.conditional, h, p)
        elif out_ is not None:
            np_.alloc.dptr = out_
        ctypes.c_void_p.from_address(out or 0).value = h
        return 0
    return body


def _typed_get(kind: int) -> Callable[[Entry, bool], Body]:
    """cuGraph{Kernel,Memcpy,Memset,Host,MemAlloc,BatchMemOp,ExternalSemaphores*}NodeGetParams ``(CUgraphNode
    hNode, <params> *nodeParams)``: the node's record (the core's ``graph_node_get_params`` of that type)
    written into the caller's struct; arrays it points to stay valid while the node keeps its parameters."""
    def make(entry: Entry, ptds: bool) -> Body:
        call = entry.name
        struct = getattr(C, entry.params[1][0].rstrip("*").strip())

        def body(hnode: int | None, out: int | None) -> int:
            d = _drv()
            h = hnode or 0
            _t, p = d.graph_node_get_params(h, kind)
            d.require_arg(bool(out), "nodeParams", call)
            st = struct.from_address(out)
            if kind == KERNEL:
                write_kernel(st, h, p)
            elif kind == MEMCPY:
                write_copy3d(st, p)
            elif kind == MEMSET:
                write_memset(st, p)
            elif kind == HOST:
                write_host(st, p)
            elif kind == ALLOC:
                write_alloc(st, h, p)
            elif kind == BATCH:
                write_batch(st, h, p)
            else:
                write_ext(st, h, p, kind == EXT_WAIT)
            return 0
        return body
    return make


def graph_node_get_params(entry: Entry, ptds: bool) -> Body:
    """cuGraphNodeGetParams (13020) ``(CUgraphNode hNode, CUgraphNodeParams *nodeParams)``: ``type`` and the
    member of that type (GRAPH: the embedded graph, ownership INVALID; MEM_ALLOC: its address)."""
    call = entry.name

    def body(hnode: int | None, out: int | None) -> int:
        d = _drv()
        h = hnode or 0
        t, p = d.graph_node_get_params(h)
        d.require_arg(bool(out), "nodeParams", call)
        write_node_params(C.CUgraphNodeParams.from_address(out or 0), h, t, p)
        return 0
    return body


def graph_node_set_params(entry: Entry, ptds: bool) -> Body:
    """cuGraphNodeSetParams (12020) / cuGraphNodeSetParams_v2 (13041) ``(CUgraphNode hNode, CUgraphNodeParams
    *nodeParams)``: GRAPH passes the graph to clone; MEM_ALLOC / MEM_FREE pass no spec (the core refuses
    them, as the face's ``_node_set``)."""
    call = entry.name

    def body(hnode: int | None, params: int | None) -> int:
        d = _drv()
        d.require_arg(bool(params), "nodeParams", call)
        t, spec = node_params(d, C.CUgraphNodeParams.from_address(params or 0), call)
        if t == GRAPH:
            spec = spec[0]
        elif t in (ALLOC, FREE):
            spec = None
        d.graph_node_set_params(hnode or 0, t, spec)
        return 0
    return body


def graph_exec_node_set_params(entry: Entry, ptds: bool) -> Body:
    """cuGraphExecNodeSetParams (12020) ``(CUgraphExec hGraphExec, CUgraphNode hNode, CUgraphNodeParams
    *nodeParams)``."""
    call = entry.name

    def body(hexec: int | None, hnode: int | None, params: int | None) -> int:
        d = _drv()
        d.require_arg(bool(params), "nodeParams", call)
        t, spec = node_params(d, C.CUgraphNodeParams.from_address(params or 0), call)
        if t == GRAPH:
            spec = spec[0]
        d.graph_exec_node_set_params(hexec or 0, hnode or 0, t, spec)
        return 0
    return body


def stream_begin_capture_to_cig(entry: Entry, ptds: bool) -> Body:
    """cuStreamBeginCaptureToCig (13020) ``(CUstream hStream, CUstreamCigCaptureParams
    *streamCigCaptureParams)``: the first ``streamCigParams`` entry's data type and command list; NULL params
    or a NULL ``streamCigParams`` reach the core as None (its INVALID_VALUE, in its order)."""

    def body(h: int | None, params: int | None) -> int:
        d = _drv()
        dtype, data = None, 0
        if params:
            at = _addr(C.CUstreamCigCaptureParams.from_address(params), "streamCigParams")
            if at:
                c = C.CUstreamCigParam.from_address(at)
                dtype, data = int(c.streamSharedDataType), c.streamSharedData or 0
        d.stream_begin_capture_to_cig(stream(h, ptds), dtype, data)
        return 0
    return body


def _typed_get_handle(kind: int, field: str, ctype: Any) -> Callable[[Entry, bool], Body]:
    """cuGraphEvent{Record,Wait}NodeGetEvent ``(CUgraphNode hNode, CUevent *event_out)`` and
    cuGraphMemFreeNodeGetParams ``(CUgraphNode hNode, CUdeviceptr *dptr_out)``: one value of the node's record
    (the core's ``graph_node_get_params`` of that type), the face's ``_node_params(...).event.handle`` / ``.dptr``."""
    def make(entry: Entry, ptds: bool) -> Body:
        call, arg = entry.name, entry.params[1][1]

        def body(hnode: int | None, out: int | None) -> int:
            d = _drv()
            _t, p = d.graph_node_get_params(hnode or 0, kind)
            d.require_arg(bool(out), arg, call)
            v = getattr(p, field)
            ctype.from_address(out or 0).value = v.handle if field == "event" else v
            return 0
        return body
    return make


# ------------------------------------------------------------------------ struct parameters of stream work
def ext_semaphores_async(wait: bool) -> Callable[[Entry, bool], Body]:
    """cuSignalExternalSemaphoresAsync / cuWaitExternalSemaphoresAsync ``(const CUexternalSemaphore *extSemArray,
    const CUDA_EXTERNAL_SEMAPHORE_{SIGNAL,WAIT}_PARAMS *paramsArray, unsigned int numExtSems, CUstream stream)``."""
    def make(entry: Entry, ptds: bool) -> Body:
        call = entry.name

        def body(sa: int | None, pa: int | None, n: int, h: int | None) -> int:
            d = _drv()
            e = ext_semaphores(d, sa, pa, n, wait, call)
            d.stream_ext_semaphores(stream(h, ptds), e["sems"], e["values"], wait)
            return 0
        return body
    return make


def stream_batch_mem_op(entry: Entry, ptds: bool) -> Body:
    """cuStreamBatchMemOp ``(CUstream stream, unsigned int count, CUstreamBatchMemOpParams *paramArray,
    unsigned int flags)``."""
    call = entry.name

    def body(h: int | None, n: int, at: int | None, flags: int) -> int:
        d = _drv()
        d.stream_batch_mem_op(stream(h, ptds), mem_ops(d, at, n, call), flags, call)
        return 0
    return body


#: the reader of each struct a parameter may point to, by its C type name: ``(driver, struct, call)`` -> the value
#: the core takes (a record, a dict of its keywords). Declared once per struct: a row that passes such a
#: parameter by name (``memcpy(pCopy, ...)``, ``graph_add_kernel_node(..., **nodeParams)``) has it read by the
#: struct's reader (NULL: the core's INVALID_VALUE), see simcuda/_core/api.py. A struct whose fields reach the
#: core as they are needs no reader: the row names the fields (``pAllocateArray.Width``).
READERS: dict[str, Callable[[Any, Any, str], Any]] = {
    "CUDA_MEMCPY2D": copy2d,
    "CUDA_MEMCPY3D": copy3d,
    "CUDA_KERNEL_NODE_PARAMS": kernel_spec,
    "CUDA_MEMSET_NODE_PARAMS": lambda d, st, call: memset_params(st),
    "CUDA_HOST_NODE_PARAMS": lambda d, st, call: host_params(st),
    "CUDA_MEM_ALLOC_NODE_PARAMS": alloc_params,
    "CUDA_BATCH_MEM_OP_NODE_PARAMS": batch_params,
    "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS": lambda d, st, call: ext_params(d, st, False, call),
    "CUDA_EXT_SEM_WAIT_NODE_PARAMS": lambda d, st, call: ext_params(d, st, True, call),
}


# ------------------------------------------------------------------------ conditional nodes (topic: conditional)
def cond_params(m: Any) -> dict[str, Any]:
    """The core spec of a ``CUDA_CONDITIONAL_NODE_PARAMS`` (the face's ``_cond_from``): handle, type, size, ctx."""
    return {"handle": int(m.handle), "type": int(m.type), "size": int(m.size), "ctx": m.ctx or 0}


def write_cond(st: Any, hnode: int, p: Any) -> None:
    """Fill ``CUDA_CONDITIONAL_NODE_PARAMS`` ``st`` from a node's ``ConditionalParams``: ``phGraph_out`` points to
    an array of the body graph handles that the library keeps for the node's life ("CUDA-owned array ... valid
    for the lifetime of the conditional node", P-21)."""
    key = (hnode, "phGraph_out")
    arr = KEPT.get(key)
    if arr is None:
        arr = KEPT[key] = (ctypes.c_void_p * len(p.bodies))(*[b.handle for b in p.bodies])
    st.handle = p.handle.handle
    st.type = p.ctype
    st.size = len(p.bodies)
    _set_addr(st, "phGraph_out", ctypes.addressof(arr))
    st.ctx = p.ctx.handle if p.ctx is not None else 0

#: the struct decoder kinds (merged into adapters.KINDS): ``(entry, ptds, *the row's arguments)`` -> the body
KINDS: dict[str, Callable[..., Callable[..., int]]] = {
    "ctx_create": ctx_create,
    "graph_exec_update": graph_exec_update,
    "node_add": lambda entry, ptds, kind: _typed_add(kind)(entry, ptds),
    "node_get": lambda entry, ptds, kind: _typed_get(kind)(entry, ptds),
    "node_get_value": lambda entry, ptds, kind, field: _typed_get_handle(
        kind, field, ctypes.c_void_p if field == "event" else ctypes.c_uint64)(entry, ptds),
    "graph_add_node": graph_add_node,
    "node_params_get": graph_node_get_params,
    "node_params_set": graph_node_set_params,
    "exec_node_params_set": graph_exec_node_set_params,
    "ext_semaphores_async": lambda entry, ptds, wait: ext_semaphores_async(wait)(entry, ptds),
    "stream_batch_mem_op": stream_batch_mem_op,
    "stream_begin_capture_to_cig": stream_begin_capture_to_cig,
}

#: struct decoders written for one declared C name (merged into adapters.PARTICULAR, kept for merges): none are
#: left, and tests/native/test_native_generated.py fails while one is here; a row names a kind of :data:`KINDS`.
DECODERS: dict[str, Callable[[Entry, bool], Callable[..., int]]] = {}


# -- host-mapped and managed memory, pointer attributes, virtual memory management (topic: vmm) --------------
def _alloc_prop(addr: int | None) -> Any:
    """A ``CUmemAllocationProp*`` as the core's ``AllocProp`` (None for NULL), as the tuple face reads the struct."""
    from ..._core.memory.vmm_entries import AllocProp
    if not addr:
        return None
    p = C.CUmemAllocationProp.from_address(addr)
    f = p.allocFlags
    return AllocProp(p.type, p.requestedHandleTypes, p.location.type, p.location.id, f.compressionType,
                     f.gpuDirectRDMACapable, f.usage)


def _stream_of(h: int | None, ptds: bool) -> int:
    return stream(h, ptds)


def mem_prefetch_async(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuMemPrefetchAsync (12020) ``(CUdeviceptr devPtr, size_t count, CUmemLocation location, unsigned int flags,
    CUstream hStream)``: the location is passed by value."""
    def body(dptr: int, count: int, loc: Any, flags: int, h: int | None) -> int:
        _drv().mem_prefetch_async(dptr, count, loc.type, loc.id, flags, _stream_of(h, ptds))
        return 0
    return body


def mem_advise(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuMemAdvise (12020) ``(CUdeviceptr devPtr, size_t count, CUmem_advise advice, CUmemLocation location)``."""
    def body(dptr: int, count: int, advice: int, loc: Any) -> int:
        _drv().mem_advise(dptr, count, advice, loc.type, loc.id)
        return 0
    return body


#: how a pointer attribute's value is written through ``void* data``: the C type of each CUpointer_attribute (the
#: booleans as one byte, the flag masks as 32 bits: the narrowest reading of the documented types, so a value is
#: never written past what the caller holds) [I]
_POINTER_CTYPES: dict[int, Any] = {
    1: ctypes.c_void_p, 2: ctypes.c_uint, 3: ctypes.c_ulonglong, 4: ctypes.c_void_p, 7: ctypes.c_ulonglong,
    9: ctypes.c_int, 11: ctypes.c_ulonglong, 12: ctypes.c_size_t, 14: ctypes.c_uint, 16: ctypes.c_uint,
    17: ctypes.c_void_p, 18: ctypes.c_size_t, 19: ctypes.c_void_p, 20: ctypes.c_ulonglong, 22: ctypes.c_int,
    **{a: ctypes.c_bool for a in (6, 8, 10, 13, 15, 21)}}


def _put_pointer_value(addr: int, attr: int, value: Any) -> None:
    t = _POINTER_CTYPES.get(attr, ctypes.c_ulonglong)
    t.from_address(addr).value = value if t is not ctypes.c_void_p else (int(value) or None)


def pointer_get_attribute(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuPointerGetAttribute ``(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)``: the value written
    as the attribute's C type (:data:`_POINTER_CTYPES`); NULL ``data`` is INVALID_VALUE."""
    def body(data: int | None, attr: int, ptr: int) -> int:
        d = _drv()
        d.require_arg(bool(data), "data", entry.name)
        v = d.pointer_get_attribute(attr, ptr)
        _put_pointer_value(data or 0, attr, v)
        return 0
    return body


def pointer_get_attributes(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuPointerGetAttributes ``(unsigned int numAttributes, CUpointer_attribute *attributes, void **data,
    CUdeviceptr ptr)``: each value written through its own ``data[i]`` (a NULL one is skipped)."""
    def body(n: int, attrs: int | None, data: int | None, ptr: int) -> int:
        d = _drv()
        if n:
            d.require_arg(bool(attrs), "attributes", entry.name)
            d.require_arg(bool(data), "data", entry.name)
        kinds = [int(x) for x in (ctypes.c_int * n).from_address(attrs or 0)] if n else []
        vals = d.pointer_get_attributes(kinds, ptr)
        slots: Any = (ctypes.c_void_p * n).from_address(data or 0) if n else []
        for a, v, slot in zip(kinds, vals, slots):
            if slot:
                _put_pointer_value(slot, a, v)
        return 0
    return body


def mem_create(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuMemCreate ``(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
    unsigned long long flags)``."""
    def body(out: int | None, size: int, prop: int | None, flags: int) -> int:
        d = _drv()
        d.require_arg(bool(out), "handle", entry.name)
        ctypes.c_ulonglong.from_address(out or 0).value = d.mem_create(size, _alloc_prop(prop), flags)
        return 0
    return body


def mem_get_allocation_granularity(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuMemGetAllocationGranularity ``(size_t *granularity, const CUmemAllocationProp *prop,
    CUmemAllocationGranularity_flags option)``."""
    def body(out: int | None, prop: int | None, option: int) -> int:
        d = _drv()
        d.require_arg(bool(out), "granularity", entry.name)
        ctypes.c_size_t.from_address(out or 0).value = d.mem_get_allocation_granularity(_alloc_prop(prop), option)
        return 0
    return body


def mem_set_access(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuMemSetAccess ``(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)``."""
    def body(ptr: int, size: int, desc: int | None, count: int) -> int:
        d = _drv()
        if count:
            d.require_arg(bool(desc), "desc", entry.name)
        arr: Any = (C.CUmemAccessDesc * count).from_address(desc or 0) if count else []
        d.mem_set_access(ptr, size, [(a.location.type, a.location.id, a.flags) for a in arr])
        return 0
    return body


def mem_get_access(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuMemGetAccess ``(unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr)``."""
    def body(out: int | None, loc: int | None, ptr: int) -> int:
        d = _drv()
        d.require_arg(bool(out), "flags", entry.name)
        d.require_arg(bool(loc), "location", entry.name)
        m = C.CUmemLocation.from_address(loc or 0)
        ctypes.c_ulonglong.from_address(out or 0).value = d.mem_get_access(m.type, m.id, ptr)
        return 0
    return body


def mem_get_allocation_properties_from_handle(entry: Entry, ptds: bool) -> Callable[..., int]:
    """cuMemGetAllocationPropertiesFromHandle ``(CUmemAllocationProp *prop, CUmemGenericAllocationHandle
    handle)``: the struct is written whole (zeroed first)."""
    def body(out: int | None, handle: int) -> int:
        d = _drv()
        d.require_arg(bool(out), "prop", entry.name)
        p = d.mem_get_allocation_properties_from_handle(handle)
        ctypes.memset(out or 0, 0, ctypes.sizeof(C.CUmemAllocationProp))
        st = C.CUmemAllocationProp.from_address(out or 0)
        st.type, st.requestedHandleTypes, st.location.type, st.location.id = p.type, p.handle_types, p.loc_type, \
            p.loc_id
        st.allocFlags.compressionType, st.allocFlags.gpuDirectRDMACapable, st.allocFlags.usage = \
            p.compression, p.rdma, p.usage
        return 0
    return body


# the vmm decoder kinds, one per entry they serve: by-value CUmemLocation structs, attribute-typed outputs
KINDS.update({
    "mem_prefetch_async": mem_prefetch_async,
    "mem_advise": mem_advise,
    "pointer_get_attribute": pointer_get_attribute,
    "pointer_get_attributes": pointer_get_attributes,
    "mem_create": mem_create,
    "mem_get_allocation_granularity": mem_get_allocation_granularity,
    "mem_set_access": mem_set_access,
    "mem_get_access": mem_get_access,
    "mem_get_allocation_properties_from_handle": mem_get_allocation_properties_from_handle,
})


# -- memory pools and graph memory (memory/pool_entries.py; issue 10) --------------------------------------------
def mem_pool_create(entry: Entry, ptds: bool) -> Body:
    """cuMemPoolCreate ``(CUmemoryPool *pool, const CUmemPoolProps *poolProps)``: the props' allocation type,
    handle types, location (with its ``localized`` pair), maximum size and usage, as the faces read them."""
    call = entry.name

    def body(out: int | None, props: int | None) -> int:
        d = _drv()
        d.require_arg(bool(out), "pool", call)
        d.require_arg(bool(props), "poolProps", call)
        p = C.CUmemPoolProps.from_address(props or 0)
        loc = p.location
        ctypes.c_void_p.from_address(out or 0).value = d.mem_pool_create(
            p.allocType, p.handleTypes, (loc.type, loc.id), p.maxSize, p.usage,
            (loc.localized.deviceId, loc.localized.localityDomainId))
        return 0
    return body


def mem_pool_set_access(entry: Entry, ptds: bool) -> Body:
    """cuMemPoolSetAccess ``(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)``: ``count`` descriptors
    ``(location type, id, flags)``; a NULL ``map`` with a non-zero count is the core's INVALID_VALUE."""
    call = entry.name

    def body(pool: int | None, at: int | None, count: int) -> int:
        d = _drv()
        if count and not at:
            d.require_arg(False, "map", call)
        descs: Any = (C.CUmemAccessDesc * count).from_address(at) if count and at else []
        d.mem_pool_set_access(pool or 0, [(a.location.type, a.location.id, a.flags) for a in descs])
        return 0
    return body


def mem_pool_get_access(entry: Entry, ptds: bool) -> Body:
    """cuMemPoolGetAccess ``(CUmemAccess_flags *flags, CUmemoryPool memPool, CUmemLocation *location)``."""
    call = entry.name

    def body(out: int | None, pool: int | None, location: int | None) -> int:
        d = _drv()
        d.require_arg(bool(out), "flags", call)
        d.require_arg(bool(location), "location", call)
        loc = C.CUmemLocation.from_address(location or 0)
        ctypes.c_int.from_address(out or 0).value = d.mem_pool_get_access(pool or 0, (loc.type, loc.id))
        return 0
    return body


def graph_mem_attribute(setter: bool) -> Callable[[Entry, bool], Body]:
    """cuDeviceGetGraphMemAttribute / cuDeviceSetGraphMemAttribute ``(CUdevice device, CUgraphMem_attribute attr,
    void *value)``: ``value`` points to a ``cuuint64_t``; NULL is the core's INVALID_VALUE."""
    def make(entry: Entry, ptds: bool) -> Body:
        call = entry.name

        def body(dev: int, attr: int, value: int | None) -> int:
            d = _drv()
            d.require_arg(bool(value), "value", call)
            v = ctypes.c_uint64.from_address(value or 0)
            if setter:
                d.device_set_graph_mem_attribute(dev, attr, v.value)
            else:
                v.value = d.device_get_graph_mem_attribute(dev, attr)
            return 0
        return body
    return make


# the pool decoder kinds (rows name them): a CUmemPoolProps with its nested location, CUmemAccessDesc arrays, the
# graph-memory attribute's cuuint64_t value
KINDS.update({
    "mem_pool_create": mem_pool_create,
    "mem_pool_set_access": mem_pool_set_access,
    "mem_pool_get_access": mem_pool_get_access,
    "graph_mem_attribute": lambda entry, ptds, setter: graph_mem_attribute(setter)(entry, ptds),
})
