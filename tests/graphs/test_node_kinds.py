"""Every node kind through the graph API: add, type, get/set parameters, queries, edits (spec 9)."""
from __future__ import annotations

import ctypes
import re

import pytest

import simcuda
from simcuda.faces.bindings import driver as cu

from .conftest import NT, err, ok

INVALID_VALUE, INVALID_HANDLE, NOT_SUPPORTED = 1, 400, 801


def kparams(f, args=None):
    p = cu.CUDA_KERNEL_NODE_PARAMS()
    p.func = f
    p.gridDimX = p.gridDimY = p.gridDimZ = p.blockDimX = p.blockDimY = p.blockDimZ = 1
    p.kernelParams = args
    return p


def memset_params(dst, value=0, n=4, esize=1):
    p = cu.CUDA_MEMSET_NODE_PARAMS()
    p.dst, p.value, p.elementSize, p.width, p.height, p.pitch = dst, value, esize, n, 1, 0
    return p


def copy_params(dst, src_host, n):
    p = cu.CUDA_MEMCPY3D()
    p.srcMemoryType = cu.CUmemorytype.CU_MEMORYTYPE_HOST
    p.srcHost = src_host
    p.dstMemoryType = cu.CUmemorytype.CU_MEMORYTYPE_DEVICE
    p.dstDevice = dst
    p.WidthInBytes, p.Height, p.Depth = n, 1, 1
    return p


def alloc_params(size=64):
    p = cu.CUDA_MEM_ALLOC_NODE_PARAMS()
    p.poolProps.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    p.poolProps.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    p.poolProps.location.id = 0
    p.bytesize = size
    return p


def write_op(addr, value):
    op = cu.CUstreamBatchMemOpParams()
    op.operation = cu.CUstreamBatchMemOpType.CU_STREAM_MEM_OP_WRITE_VALUE_32
    op.writeValue.address = addr
    op.writeValue.value = value
    return op


def ext_signal(handles, fence):
    p = cu.CUDA_EXT_SEM_SIGNAL_NODE_PARAMS()
    sp = cu.CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS()
    sp.params.fence.value = fence
    p.extSemArray = [cu.CUexternalSemaphore(h) for h in handles]
    p.paramsArray = [sp] * len(handles)
    p.numExtSems = len(handles)
    return p


def test_every_node_kind_through_its_add_call(env):
    """Each typed cuGraphAdd*Node makes a node whose cuGraphNodeGetType is that kind, in creation order."""
    g = ok(cu.cuGraphCreate(0))
    host = ctypes.create_string_buffer(8)
    child = ok(cu.cuGraphCreate(0))
    ok(cu.cuGraphAddEmptyNode(child, None, 0))
    made = [
        ok(cu.cuGraphAddKernelNode(g, None, 0, kparams(env.k))),
        ok(cu.cuGraphAddMemcpyNode(g, None, 0, copy_params(env.buf, host, 8), env.ctx)),
        ok(cu.cuGraphAddMemsetNode(g, None, 0, memset_params(env.buf), env.ctx)),
        ok(cu.cuGraphAddHostNode(g, None, 0, _host(env))),
        ok(cu.cuGraphAddChildGraphNode(g, None, 0, child)),
        ok(cu.cuGraphAddEmptyNode(g, None, 0)),
        ok(cu.cuGraphAddEventWaitNode(g, None, 0, env.e1)),
        ok(cu.cuGraphAddEventRecordNode(g, None, 0, env.e2)),
        ok(cu.cuGraphAddExternalSemaphoresSignalNode(g, None, 0, ext_signal([0x77], 3))),
        ok(cu.cuGraphAddExternalSemaphoresWaitNode(g, None, 0, _ext_wait([0x78]))),
    ]
    ap = alloc_params()
    made.append(ok(cu.cuGraphAddMemAllocNode(g, None, 0, ap)))
    made.append(ok(cu.cuGraphAddMemFreeNode(g, [made[-1]], 1, ap.dptr)))
    bp = cu.CUDA_BATCH_MEM_OP_NODE_PARAMS()
    bp.paramArray, bp.count = [write_op(env.buf, 7)], 1
    made.append(ok(cu.cuGraphAddBatchMemOpNode(g, None, 0, bp)))
    assert [int(ok(cu.cuGraphNodeGetType(n))) for n in made] == list(range(13))
    assert [ok(cu.cuGraphNodeGetLocalId(n)) for n in made] == list(range(13))
    assert [int(n) for n in env.nodes(g)] == [int(n) for n in made]
    assert int(ap.dptr) != 0  # the driver writes the fixed address back into nodeParams.dptr


def _host(env, calls=None):
    p = cu.CUDA_HOST_NODE_PARAMS()
    p.fn = env.host_fn(lambda _u: calls.append(1) if calls is not None else None)
    return p


def _ext_wait(handles):
    p = cu.CUDA_EXT_SEM_WAIT_NODE_PARAMS()
    wp = cu.CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS()
    wp.params.fence.value = 9
    p.extSemArray = [cu.CUexternalSemaphore(h) for h in handles]
    p.paramsArray = [wp] * len(handles)
    p.numExtSems = len(handles)
    return p


def test_add_node_generic_keeps_edge_data(env):
    """cuGraphAddNode with CUgraphNodeParams adds the typed node and keeps its dependencies' edge data."""
    g = ok(cu.cuGraphCreate(0))
    a = ok(cu.cuGraphAddKernelNode(g, None, 0, kparams(env.k)))
    np_ = cu.CUgraphNodeParams()
    np_.type = NT.CU_GRAPH_NODE_TYPE_KERNEL
    np_.kernel.func = env.k2
    np_.kernel.gridDimX = np_.kernel.gridDimY = np_.kernel.gridDimZ = 1
    np_.kernel.blockDimX = np_.kernel.blockDimY = np_.kernel.blockDimZ = 1
    ed = cu.CUgraphEdgeData()
    ed.from_port = cu.CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC
    ed.type = cu.CUgraphDependencyType.CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC
    b = ok(cu.cuGraphAddNode(g, [a], [ed], 1, np_))
    deps, eds, n = ok(cu.cuGraphNodeGetDependencies(b, 1))
    assert n == 1 and int(deps[0]) == int(a)
    assert (eds[0].from_port, eds[0].to_port, eds[0].type) == (1, 0, 1)
    back = ok(cu.cuGraphNodeGetParams(b))
    assert back.type == NT.CU_GRAPH_NODE_TYPE_KERNEL and int(back.kernel.func) == int(env.k2)
    e = cu.CUgraphNodeParams()
    e.type = NT.CU_GRAPH_NODE_TYPE_EMPTY
    c = ok(cu.cuGraphAddNode(g, [b], None, 1, e))
    assert ok(cu.cuGraphNodeGetType(c)) == NT.CU_GRAPH_NODE_TYPE_EMPTY


def test_add_node_generic_alloc_writes_dptr_and_free(env):
    """cuGraphAddNode MEM_ALLOC writes alloc.dptr; a MEM_FREE node made the same way frees it."""
    g = ok(cu.cuGraphCreate(0))
    a = cu.CUgraphNodeParams()
    a.type = NT.CU_GRAPH_NODE_TYPE_MEM_ALLOC
    a.alloc.poolProps.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    a.alloc.poolProps.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    a.alloc.bytesize = 256
    na = ok(cu.cuGraphAddNode(g, None, None, 0, a))
    assert int(a.alloc.dptr) != 0
    f = cu.CUgraphNodeParams()
    f.type = NT.CU_GRAPH_NODE_TYPE_MEM_FREE
    f.free.dptr = a.alloc.dptr
    nf = ok(cu.cuGraphAddNode(g, [na], None, 1, f))
    assert int(ok(cu.cuGraphMemFreeNodeGetParams(nf))) == int(a.alloc.dptr)
    got = ok(cu.cuGraphMemAllocNodeGetParams(na))
    assert got.bytesize == 256 and int(got.dptr) == int(a.alloc.dptr)
    assert got.poolProps.location.type == cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE


def test_add_node_generic_refuses_a_conditional_node_without_a_handle(env):
    """CONDITIONAL through cuGraphAddNode with handle 0 is INVALID_VALUE (P-21); nothing is added."""
    g = ok(cu.cuGraphCreate(0))
    p = cu.CUgraphNodeParams()
    p.type = NT.CU_GRAPH_NODE_TYPE_CONDITIONAL
    p.conditional.size = 1
    err(cu.cuGraphAddNode(g, None, None, 0, p), INVALID_VALUE)
    assert ok(cu.cuGraphGetNodes(g))[1] == 0
    assert p.conditional.phGraph_out == []


def test_add_node_generic_refuses_unsimulated_types(env):
    """MEMCPY_BATCH through cuGraphAddNode is NOT_SUPPORTED (not simulated); nothing is added."""
    g = ok(cu.cuGraphCreate(0))
    p = cu.CUgraphNodeParams()
    p.type = NT.CU_GRAPH_NODE_TYPE_MEMCPY_BATCH
    err(cu.cuGraphAddNode(g, None, None, 0, p), NOT_SUPPORTED)
    assert ok(cu.cuGraphGetNodes(g))[1] == 0


def test_struct_type_checks_like_the_wrapper(env):
    """A parent struct class (CUDA_KERNEL_NODE_PARAMS_v2) or an int raises TypeError before the driver."""
    g = ok(cu.cuGraphCreate(0))
    with pytest.raises(TypeError, match=re.escape("expected cuda.bindings.driver.CUDA_KERNEL_NODE_PARAMS")):
        cu.cuGraphAddKernelNode(g, None, 0, cu.CUDA_KERNEL_NODE_PARAMS_v2())
    with pytest.raises(TypeError, match="got int"):
        cu.cuGraphAddMemAllocNode(g, None, 0, 5)
    with pytest.raises(TypeError, match="an integer is required"):
        cu.cuGraphAddMemFreeNode(g, None, 0, "x")
    err(cu.cuGraphAddMemAllocNode(g, None, 0, None), INVALID_VALUE)


def test_kernel_params_round_trip(env):
    """cuGraphKernelNodeGetParams returns func, dimensions and a kernelParams array decoding to the args."""
    g = ok(cu.cuGraphCreate(0))
    n = ok(cu.cuGraphAddKernelNode(g, None, 0, kparams(env.inc, env.inc_args(env.buf, 3))))
    p = ok(cu.cuGraphKernelNodeGetParams(n))
    assert int(p.func) == int(env.inc) and (p.gridDimX, p.blockDimZ) == (1, 1)
    assert env.d.decode_kernel_args(int(env.inc), p.kernelParams) == [int(env.buf), 3]
    p.gridDimX = 4
    ok(cu.cuGraphKernelNodeSetParams(n, p))
    assert ok(cu.cuGraphKernelNodeGetParams(n)).gridDimX == 4
    bad = kparams(cu.CUfunction(0x1234))
    err(cu.cuGraphKernelNodeSetParams(n, bad), INVALID_HANDLE)
    assert ok(cu.cuGraphKernelNodeGetParams(n)).gridDimX == 4  # unchanged
    err(cu.cuGraphAddKernelNode(g, None, 0, bad), INVALID_VALUE)  # its Returns list has no INVALID_HANDLE


def test_memcpy_memset_host_params_round_trip(env):
    """Get/Set of memcpy, memset and host node parameters; a type mismatch is INVALID_VALUE."""
    g = ok(cu.cuGraphCreate(0))
    host = ctypes.create_string_buffer(b"abcd", 4)
    c = ok(cu.cuGraphAddMemcpyNode(g, None, 0, copy_params(env.buf, host, 4), env.ctx))
    got = ok(cu.cuGraphMemcpyNodeGetParams(c))
    assert got.srcMemoryType == cu.CUmemorytype.CU_MEMORYTYPE_HOST and got.srcHost == ctypes.addressof(host)
    assert int(got.dstDevice) == int(env.buf) and got.WidthInBytes == 4
    got.WidthInBytes = 2
    ok(cu.cuGraphMemcpyNodeSetParams(c, got))
    assert ok(cu.cuGraphMemcpyNodeGetParams(c)).WidthInBytes == 2
    s = ok(cu.cuGraphAddMemsetNode(g, None, 0, memset_params(env.buf, 9, 8), env.ctx))
    mp = ok(cu.cuGraphMemsetNodeGetParams(s))
    assert (int(mp.dst), mp.value, mp.width, mp.elementSize) == (int(env.buf), 9, 8, 1)
    mp.value = 300
    err(cu.cuGraphMemsetNodeSetParams(s, mp), INVALID_VALUE)  # does not fit in one byte
    assert ok(cu.cuGraphMemsetNodeGetParams(s)).value == 9
    h = ok(cu.cuGraphAddHostNode(g, None, 0, _host(env)))
    hp = ok(cu.cuGraphHostNodeGetParams(h))
    assert int(hp.fn) != 0
    err(cu.cuGraphHostNodeGetParams(s), INVALID_VALUE)
    err(cu.cuGraphMemsetNodeGetParams(h), INVALID_VALUE)


def test_event_nodes_get_and_set_event(env):
    """Event record/wait nodes return their event; SetEvent changes it; a bad event is INVALID_HANDLE."""
    g = ok(cu.cuGraphCreate(0))
    r = ok(cu.cuGraphAddEventRecordNode(g, None, 0, env.e1))
    w = ok(cu.cuGraphAddEventWaitNode(g, [r], 1, env.e1))
    assert int(ok(cu.cuGraphEventRecordNodeGetEvent(r))) == int(env.e1)
    ok(cu.cuGraphEventWaitNodeSetEvent(w, env.e2))
    assert int(ok(cu.cuGraphEventWaitNodeGetEvent(w))) == int(env.e2)
    err(cu.cuGraphEventRecordNodeSetEvent(r, cu.CUevent(0x999)), INVALID_HANDLE)
    err(cu.cuGraphEventRecordNodeGetEvent(w), INVALID_VALUE)
    err(cu.cuGraphAddEventRecordNode(g, None, 0, cu.CUevent(0x999)), INVALID_VALUE)


def test_batch_and_external_semaphore_params(env):
    """Batch mem op and external semaphore nodes keep their parameters (get/set, generic get)."""
    g = ok(cu.cuGraphCreate(0))
    bp = cu.CUDA_BATCH_MEM_OP_NODE_PARAMS()
    bp.paramArray, bp.count = [write_op(env.buf, 7), write_op(int(env.buf) + 4, 8)], 2
    b = ok(cu.cuGraphAddBatchMemOpNode(g, None, 0, bp))
    got = ok(cu.cuGraphBatchMemOpNodeGetParams(b))
    assert got.count == 2 and int(got.paramArray[1].writeValue.value) == 8
    bad = cu.CUDA_BATCH_MEM_OP_NODE_PARAMS()
    bad.paramArray, bad.count = [write_op(0x10, 1)], 1
    err(cu.cuGraphBatchMemOpNodeSetParams(b, bad), INVALID_VALUE)  # not device memory
    e = ok(cu.cuGraphAddExternalSemaphoresSignalNode(g, None, 0, ext_signal([0x70, 0x71], 5)))
    ep = ok(cu.cuGraphExternalSemaphoresSignalNodeGetParams(e))
    assert ep.numExtSems == 2 and [int(h) for h in ep.extSemArray] == [0x70, 0x71]
    assert ep.paramsArray[0].params.fence.value == 5
    gp = ok(cu.cuGraphNodeGetParams(e))
    assert gp.type == NT.CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL and gp.extSemSignal.numExtSems == 2
    err(cu.cuGraphAddExternalSemaphoresSignalNode(g, None, 0, ext_signal([0], 1)), INVALID_VALUE)


def test_dependency_queries_roots_and_edits(env):
    """Dependencies/dependents with edge data, root nodes, add/remove edges, and their refusals."""
    g = ok(cu.cuGraphCreate(0))
    a = ok(cu.cuGraphAddEmptyNode(g, None, 0))
    b = ok(cu.cuGraphAddEmptyNode(g, None, 0))
    c = ok(cu.cuGraphAddEmptyNode(g, [a, b], 2))
    roots, n = ok(cu.cuGraphGetRootNodes(g, 2))
    assert n == 2 and [int(x) for x in roots] == [int(a), int(b)]
    outs, eds, n = ok(cu.cuGraphNodeGetDependentNodes(a, 1))
    assert n == 1 and int(outs[0]) == int(c)
    ed = cu.CUgraphEdgeData()
    ed.type = cu.CUgraphDependencyType.CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC
    d = ok(cu.cuGraphAddEmptyNode(g, None, 0))
    ok(cu.cuGraphAddDependencies(g, [c], [d], [ed], 1))
    deps, eds, n = ok(cu.cuGraphNodeGetDependencies(d, 1))
    assert int(deps[0]) == int(c) and eds[0].type == 1
    err(cu.cuGraphAddDependencies(g, [c], [d], None, 1), INVALID_VALUE)  # already exists
    err(cu.cuGraphRemoveDependencies(g, [c], [d], None, 1), INVALID_VALUE)  # edge data differs
    ok(cu.cuGraphRemoveDependencies(g, [c], [d], [ed], 1))
    assert ok(cu.cuGraphNodeGetDependencies(d))[2] == 0
    err(cu.cuGraphAddEmptyNode(g, [a, a], 2), INVALID_VALUE)  # duplicate dependency
    assert ok(cu.cuGraphGetNodes(g))[1] == 4  # the refused call added nothing


def test_destroy_node_ids_and_child_graph(env):
    """cuGraphDestroyNode cuts edges; ids match DOT names; a child node embeds a clone of the child."""
    g = ok(cu.cuGraphCreate(0))
    child = ok(cu.cuGraphCreate(0))
    ok(cu.cuGraphAddEmptyNode(child, None, 0))
    a = ok(cu.cuGraphAddEmptyNode(g, None, 0))
    cn = ok(cu.cuGraphAddChildGraphNode(g, [a], 1, child))
    emb = ok(cu.cuGraphChildGraphNodeGetGraph(cn))
    assert int(emb) != int(child) and ok(cu.cuGraphGetNodes(emb))[1] == 1
    ok(cu.cuGraphAddEmptyNode(child, None, 0))  # the original changes; the embedded copy does not
    assert ok(cu.cuGraphGetNodes(emb))[1] == 1
    gid = ok(cu.cuGraphGetId(g))
    assert f'"graph_{gid}_node_1"' in simcuda.dot(g)
    ok(cu.cuGraphDestroyNode(a))
    assert ok(cu.cuGraphNodeGetDependencies(cn))[2] == 0
    err(cu.cuGraphNodeGetType(a), INVALID_VALUE)
    err(cu.cuGraphDestroy(emb), INVALID_VALUE)  # owned by the node
    err(cu.cuGraphChildGraphNodeGetGraph(ok(cu.cuGraphAddEmptyNode(g, None, 0))), INVALID_VALUE)


def test_memory_node_rules(env):
    """Free nodes need a graph allocation, once, after its alloc node; graphs with memory nodes lock edits."""
    g = ok(cu.cuGraphCreate(0))
    ap = alloc_params(128)
    a = ok(cu.cuGraphAddMemAllocNode(g, None, 0, ap))
    err(cu.cuGraphAddMemFreeNode(g, None, 0, env.buf), INVALID_VALUE)  # not from an allocation node
    err(cu.cuGraphAddMemFreeNode(g, None, 0, ap.dptr), INVALID_VALUE)  # not ordered after its alloc node
    f = ok(cu.cuGraphAddMemFreeNode(g, [a], 1, ap.dptr))
    err(cu.cuGraphAddMemFreeNode(g, [f], 1, ap.dptr), INVALID_VALUE)  # freed twice
    err(cu.cuGraphDestroyNode(f), INVALID_VALUE)
    err(cu.cuGraphRemoveDependencies(g, [a], [f], None, 1), INVALID_VALUE)
    err(cu.cuGraphClone(g), INVALID_VALUE)
    child = ok(cu.cuGraphCreate(0))
    err(cu.cuGraphAddChildGraphNode(child, None, 0, g), INVALID_VALUE)
    bad = alloc_params(0)
    err(cu.cuGraphAddMemAllocNode(g, None, 0, bad), INVALID_VALUE)
    bad = alloc_params(16)
    bad.poolProps.location.id = 3
    err(cu.cuGraphAddMemAllocNode(g, None, 0, bad), INVALID_VALUE)
    assert ok(cu.cuGraphGetNodes(g))[1] == 2
    p = cu.CUgraphNodeParams()
    p.type = NT.CU_GRAPH_NODE_TYPE_MEM_FREE
    err(cu.cuGraphNodeSetParams(f, p), NOT_SUPPORTED)


def test_child_graph_move_ownership(env):
    """cuGraphAddNode GRAPH with ownership MOVE embeds the graph itself (memory nodes allowed there)."""
    parent = ok(cu.cuGraphCreate(0))
    child = ok(cu.cuGraphCreate(0))
    ok(cu.cuGraphAddMemAllocNode(child, None, 0, alloc_params()))
    p = cu.CUgraphNodeParams()
    p.type = NT.CU_GRAPH_NODE_TYPE_GRAPH
    p.graph.graph = child
    err(cu.cuGraphAddNode(parent, None, None, 0, p), INVALID_VALUE)  # CLONE refuses memory nodes
    p.graph.ownership = cu.CUgraphChildGraphNodeOwnership.CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE
    n = ok(cu.cuGraphAddNode(parent, None, None, 0, p))
    assert int(ok(cu.cuGraphChildGraphNodeGetGraph(n))) == int(child)
    q = ok(cu.cuGraphNodeGetParams(n))
    assert q.graph.ownership == cu.CUgraphChildGraphNodeOwnership.CU_GRAPH_CHILD_GRAPH_OWNERSHIP_INVALID
    err(cu.cuGraphInstantiate(child, 0), INVALID_VALUE)  # moved: cannot be instantiated on its own
    err(cu.cuGraphDestroy(child), INVALID_VALUE)
    ok(cu.cuGraphInstantiate(parent, 0))


def test_clone_and_find_in_clone(env):
    """cuGraphClone copies nodes, edges and child graphs; cuGraphNodeFindInClone maps nodes to copies."""
    g = env.kernels(3)
    a, b, c = env.nodes(g)
    g2 = ok(cu.cuGraphClone(g))
    b2 = ok(cu.cuGraphNodeFindInClone(b, g2))
    assert int(b2) != int(b) and ok(cu.cuGraphNodeGetLocalId(b2)) == 1
    assert env.types(g2) == env.types(g)
    late = ok(cu.cuGraphAddEmptyNode(g, [c], 1))
    err(cu.cuGraphNodeFindInClone(late, g2), INVALID_VALUE)  # added after cloning
    err(cu.cuGraphNodeFindInClone(a, g), INVALID_VALUE)  # not a clone
    ok(cu.cuGraphDestroyNode(b2))
    err(cu.cuGraphNodeFindInClone(b, g2), INVALID_VALUE)


def test_destroyed_graph_is_invalid_everywhere(env):
    """C-145: every graph call on a destroyed graph is INVALID_VALUE; so is a second destroy."""
    g = env.kernels(1)
    ok(cu.cuGraphDestroy(g))
    err(cu.cuGraphGetNodes(g), INVALID_VALUE)
    err(cu.cuGraphAddEmptyNode(g, None, 0), INVALID_VALUE)
    err(cu.cuGraphInstantiate(g, 0), INVALID_VALUE)
    err(cu.cuGraphDestroy(g), INVALID_VALUE)


def test_counts_past_the_lists_and_required_arguments(env):
    """A dependency count past the lists reaches the driver as NULL entries (INVALID_VALUE, however large);
    cuGraphInstantiate needs its flags argument, as in the 13.x wrapper."""
    g = ok(cu.cuGraphCreate(0))
    a = ok(cu.cuGraphAddEmptyNode(g, None, 0))
    b = ok(cu.cuGraphAddEmptyNode(g, None, 0))
    err(cu.cuGraphAddDependencies(g, [a], [b], None, 2 ** 40), INVALID_VALUE)
    assert ok(cu.cuGraphGetEdges(g))[3] == 0
    with pytest.raises(TypeError):
        cu.cuGraphInstantiate(g)
