"""Section J of conformance-cases.md: graph-side APIs (spec 3.9, 3.10, 4.5, 5.2, 9, 11.1)."""
from __future__ import annotations

import ctypes

import pytest


def _flag(cu, name):
    return int(getattr(cu.drv.CUgraphInstantiate_flags, "CUDA_GRAPH_INSTANTIATE_FLAG_" + name))


@pytest.mark.inferred
def test_c134_node_and_edge_queries_in_python(cu):
    """cuGraphGetNodes/GetEdges count with 0, pad a longer request with NULL nodes, and list in creation order."""
    d = cu.drv
    g = cu.capture_fork_join()
    nodes, n = cu.ok(d.cuGraphGetNodes(g))
    assert list(nodes) == [] and n == 4
    nodes, n = cu.ok(d.cuGraphGetNodes(g, 4))
    assert n == 4 and len(nodes) == 4
    A, B, C, D = nodes
    assert [cu.ok(d.cuGraphNodeGetLocalId(x)) for x in nodes] == [0, 1, 2, 3]
    padded, n = cu.ok(d.cuGraphGetNodes(g, 6))
    assert n == 4 and len(padded) == 6
    assert [int(x) for x in padded] == [int(A), int(B), int(C), int(D), 0, 0]
    assert padded[4] == d.CUgraphNode(0) and padded[5] == d.CUgraphNode(0)
    frm, to, eds, ne = cu.ok(d.cuGraphGetEdges(g))
    assert list(frm) == [] and list(to) == [] and list(eds) == [] and ne == 4
    frm, to, eds, ne = cu.ok(d.cuGraphGetEdges(g, 4))
    assert ne == 4
    assert [int(x) for x in frm] == [int(A), int(A), int(B), int(C)]
    assert [int(x) for x in to] == [int(B), int(C), int(D), int(D)]
    assert [(e.from_port, e.to_port, e.type) for e in eds] == [(0, 0, 0)] * 4
    roots, nr = cu.ok(d.cuGraphGetRootNodes(g, 1))
    assert nr == 1 and [int(x) for x in roots] == [int(A)]
    t = cu.ok(d.cuGraphNodeGetType(C))
    assert t == d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL


def test_c135_instantiating_and_launching_a_captured_graph(cu):
    """A captured graph instantiates, launches on another stream, and both objects are destroyed cleanly."""
    d = cu.drv
    g = cu.capture_kernels(2)
    x = cu.instantiate(g)
    cu.ok(d.cuGraphLaunch(x, cu.s2))
    cu.ok(d.cuStreamSynchronize(cu.s2))
    cu.ok(d.cuGraphExecDestroy(x))
    cu.ok(d.cuGraphDestroy(g))
    cu.iscap(cu.s2, cu.NONE)


@pytest.mark.inferred
def test_c175_destroying_an_exec_during_a_capture_is_a_potentially_unsafe_call(cu):
    """cuGraphExecDestroy during a GLOBAL capture returns 900 and invalidates it; a RELAXED thread may do it."""
    d = cu.drv
    g = cu.capture_kernels(2)
    x = cu.instantiate(g)
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.err(d.cuGraphExecDestroy(x), 900)
    cu.iscap(cu.s1, cu.INVALIDATED)
    cu.err(cu.end(cu.s1), 901)
    cu.iscap(cu.s1, cu.NONE)
    cu.ok(cu.begin(cu.s1, cu.G))
    assert cu.ok(cu.xchg(cu.R)) == cu.G
    cu.ok(d.cuGraphExecDestroy(x))
    assert cu.ok(cu.xchg(cu.G)) == cu.R
    cu.iscap(cu.s1, cu.ACTIVE)
    g2 = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g2) == ([], [])


def test_c177_a_captured_host_to_device_copy_reads_the_host_buffer_when_the_graph_runs(cu):
    """A captured HtoD copy copies nothing during capture and reads the pageable host buffer at replay time."""
    d = cu.drv
    out = ctypes.create_string_buffer(4)
    cu.ok(d.cuMemsetD8(cu.d, 0, 4))
    ctypes.memmove(cu.h, b"\x01\x01\x01\x01", 4)
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.cpy(cu.s1))                    # X
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.MEMCPY], [])
    cu.ok(d.cuMemcpyDtoH(out, cu.d, 4))
    assert out.raw == b"\x00\x00\x00\x00"   # nothing was copied during the capture
    ctypes.memmove(cu.h, b"\x02\x02\x02\x02", 4)
    x = cu.instantiate(g)
    cu.ok(d.cuGraphLaunch(x, cu.s2))
    cu.ok(d.cuStreamSynchronize(cu.s2))
    cu.ok(d.cuMemcpyDtoH(out, cu.d, 4))
    assert out.raw == b"\x02\x02\x02\x02"


def test_c178_host_functions_through_the_classic_binding(cu):
    """cuLaunchHostFunc takes an int address (a callable raises TypeError); a HOST node runs once per launch."""
    d = cu.drv
    calls = []

    def py_fn(_user_data):
        calls.append(1)
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(py_fn)
    p = ctypes.cast(fn, ctypes.c_void_p).value
    with pytest.raises(TypeError, match="an integer is required"):
        d.cuLaunchHostFunc(cu.s1, py_fn, None)
    with pytest.raises(TypeError, match="an integer is required"):
        d.cuLaunchHostFunc(cu.s1, fn, None)
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(d.cuLaunchHostFunc(cu.s1, p, None))
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    assert cu.shape(g) == ([cu.HOST], [])
    assert calls == []
    x = cu.instantiate(g)
    for _ in range(3):
        cu.ok(d.cuGraphLaunch(x, cu.s2))
    cu.ok(d.cuStreamSynchronize(cu.s2))
    assert len(calls) == 3
    cu.ok(d.cuGraphExecDestroy(x))
    cu.ok(d.cuGraphDestroy(g))
    del fn  # kept alive until the exec and the graph are gone


@pytest.mark.inferred
def test_c178_cuda_call_inside_a_host_function_is_not_permitted(cu):
    """A driver call made from inside a host function returns 800 NOT_PERMITTED (the simulator always refuses it)."""
    d = cu.drv
    seen = []
    p = cu.host_fn(lambda _u: seen.append(d.cuStreamQuery(cu.s2)))
    cu.ok(d.cuLaunchHostFunc(cu.s3, p, None))
    cu.ok(d.cuStreamSynchronize(cu.s3))
    assert len(seen) == 1
    cu.err(seen[0], 800)


def test_c137_updating_an_exec_with_the_same_topology(cu):
    """cuGraphExecUpdate with a graph of the same shape succeeds with result SUCCESS and no error node."""
    d = cu.drv
    x = cu.instantiate(cu.capture_kernels(2))
    g2 = cu.capture_kernels(2)
    info = cu.ok(d.cuGraphExecUpdate(x, g2))
    assert info.result == d.CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_SUCCESS
    assert int(info.errorNode) == 0


def test_c138_updating_an_exec_after_the_topology_changed(cu):
    """cuGraphExecUpdate with a different node count returns (910, None) through the classic binding."""
    d = cu.drv
    x = cu.instantiate(cu.capture_kernels(2))
    g3k = cu.capture_kernels(3)
    res = d.cuGraphExecUpdate(x, g3k)
    cu.err(res, 910)
    assert len(res) == 2 and res[1] is None


def test_c139_updating_an_exec_after_a_node_type_changed(cu):
    """cuGraphExecUpdate with a node of another type in the same place returns (910, None)."""
    d = cu.drv
    x = cu.instantiate(cu.capture_kernels(2))
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.memset(cu.s1))
    cu.ok(cu.K(cu.s1))
    g = cu.end_ok(cu.s1)
    assert cu.types(g) == [cu.MEMSET, cu.KERNEL]
    res = d.cuGraphExecUpdate(x, g)
    cu.err(res, 910)
    assert len(res) == 2 and res[1] is None


def _capture_alloc_kernel_free(cu, free=True):
    d = cu.drv
    cu.ok(cu.begin(cu.s1, cu.G))
    p = cu.ok(d.cuMemAllocAsync(256, cu.s1))
    cu.ok(cu.K(cu.s1))
    if free:
        cu.ok(d.cuMemFreeAsync(p, cu.s1))
    g = cu.end_ok(cu.s1)
    cu.iscap(cu.s1, cu.NONE)
    return g


def test_c141_a_second_exec_of_a_graph_with_allocation_nodes(cu):
    """A graph with memory nodes can have only one exec at a time: a second instantiate returns 1."""
    d = cu.drv
    g57 = _capture_alloc_kernel_free(cu)
    x1 = cu.instantiate(g57)
    res = d.cuGraphInstantiate(g57, 0)
    cu.err(res, 1)
    assert res[1] is None
    cu.ok(d.cuGraphExecDestroy(x1))
    x2 = cu.instantiate(g57)
    cu.ok(d.cuGraphExecDestroy(x2))


def test_c142_relaunching_with_unfreed_allocations(cu):
    """Relaunching an exec whose allocations were never freed returns 1, unless it auto-frees on launch."""
    d = cu.drv
    g = _capture_alloc_kernel_free(cu, free=False)
    x = cu.instantiate(g)
    cu.ok(d.cuGraphLaunch(x, cu.s2))
    cu.err(d.cuGraphLaunch(x, cu.s2), 1)
    cu.ok(d.cuStreamSynchronize(cu.s2))
    cu.ok(d.cuGraphExecDestroy(x))
    x2 = cu.instantiate(g, _flag(cu, "AUTO_FREE_ON_LAUNCH"))
    cu.ok(d.cuGraphLaunch(x2, cu.s2))
    cu.ok(d.cuGraphLaunch(x2, cu.s2))
    cu.ok(d.cuStreamSynchronize(cu.s2))


def test_c143_incompatible_instantiate_flags(cu):
    """DEVICE_LAUNCH refuses AUTO_FREE_ON_LAUNCH, HOST nodes and empty graphs with 1."""
    d = cu.drv
    dev_launch = _flag(cu, "DEVICE_LAUNCH")
    g = cu.capture_kernels(2)
    cu.err(d.cuGraphInstantiate(g, dev_launch | _flag(cu, "AUTO_FREE_ON_LAUNCH")), 1)
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(cu.hostfn(cu.s1))
    g_host = cu.end_ok(cu.s1)
    cu.err(d.cuGraphInstantiate(g_host, dev_launch), 1)
    empty = cu.ok(d.cuGraphCreate(0))
    cu.err(d.cuGraphInstantiate(empty, dev_launch), 1)


@pytest.mark.inferred
def test_c145_using_a_destroyed_graph(cu):
    """A destroyed graph handle is refused with 1 by queries and by a second destroy."""
    cu.skip_unless_ub_allowed()
    d = cu.drv
    g = cu.capture_kernels(2)
    cu.ok(d.cuGraphDestroy(g))
    res = d.cuGraphGetNodes(g)
    cu.err(res, 1)
    assert len(res) == 3
    cu.err(d.cuGraphDestroy(g), 1)


@pytest.mark.inferred
def test_c146_recapture_on_a_graph_with_a_different_topology(cu):
    """Recapturing into a graph with another node type at the same place fails with 918 (at the call or at the end)."""
    d = cu.drv
    g = cu.capture_kernels(2)
    mismatches = []
    cb = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                          ctypes.c_int)(lambda *a: mismatches.append(a) or 0)   # CUgraphRecaptureCallback
    cb_addr = ctypes.cast(cb, ctypes.c_void_p).value
    res = d.cuStreamBeginRecaptureToGraph(cu.s1, cu.G, g, cb_addr, None)
    if cu.name == "fake" and int(res[0]) == 801:
        pytest.skip("cuStreamBeginRecaptureToGraph is not simulated (spec 13.B: recapture not yet specified)")
    cu.ok(res)
    cu.iscap(cu.s1, cu.ACTIVE)
    cu.ok(cu.K(cu.s1))                      # A: matches the first kernel
    r = cu.cpy(cu.s1)                       # X: a MEMCPY where the graph has a KERNEL
    if int(r[0]) == 918:
        cu.err(r, 918)                      # what follows a failed recapture is undefined: not checked
    else:
        cu.ok(r)
        cu.err(cu.end(cu.s1), 918)
        cu.iscap(cu.s1, cu.NONE)
    del cb  # kept alive until the recapture is over
