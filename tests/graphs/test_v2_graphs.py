"""The graph functions of the ``cuda.bindings._v2.driver`` face: int handles, helpers with ``.ptr``, raising."""
from __future__ import annotations

import pytest

from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings._v2 import driver as v2

from .conftest import ok


def test_instantiate_with_params_writes_the_struct(env):
    """graph_instantiate_with_params takes the struct's address and writes result_out / h_err_node_out."""
    g = int(env.kernels(1))
    p = v2.GraphInstantiateParams()
    x = v2.graph_instantiate_with_params(g, p.ptr)
    assert x and p.result_out == 0 and p.h_err_node_out == 0
    assert v2.graph_exec_get_flags(x) == 0 and v2.graph_exec_get_id(x) > 0
    hp = v2.HostNodeParams_v1()
    hp.fn = env.host_fn(lambda _u: None)
    host = v2.graph_add_host_node(g, 0, 0, hp.ptr)
    p.flags_ = int(cu.CUgraphInstantiate_flags.CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH)
    with pytest.raises(v2.InvalidValueError):
        v2.graph_instantiate_with_params(g, p)
    assert p.result_out == 3 and p.h_err_node_out == host


def test_host_event_and_memory_nodes(env):
    """Host params round trip through HostNodeParams_v1; event nodes get/set; free nodes report their address."""
    g = v2.graph_create(0)
    calls = []
    hp = v2.HostNodeParams_v1()
    hp.fn = env.host_fn(lambda _u: calls.append(1))
    h = v2.graph_add_host_node(g, 0, 0, hp)
    assert v2.graph_host_node_get_params(h).fn == hp.fn
    r = v2.graph_add_event_record_node(g, [h], 1, int(env.e1))
    v2.graph_event_record_node_set_event(r, int(env.e2))
    assert v2.graph_event_record_node_get_event(r) == int(env.e2)
    w = v2.graph_add_event_wait_node(g, [r], 1, int(env.e2))
    assert v2.graph_event_wait_node_get_event(w) == int(env.e2)
    deps, eds = v2.graph_node_get_dependencies_v2(w)
    assert list(deps) == [r] and len(eds) == 1
    outs, _ = v2.graph_node_get_dependent_nodes_v2(h)
    assert list(outs) == [r]
    x = v2.graph_instantiate_with_flags(g, 0)
    v2.graph_launch(x, int(env.s2))
    assert calls == [1]
    ap = cu.CUDA_MEM_ALLOC_NODE_PARAMS()
    ap.poolProps.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    ap.poolProps.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    ap.bytesize = 64
    gm = ok(cu.cuGraphCreate(0))
    a = ok(cu.cuGraphAddMemAllocNode(gm, None, 0, ap))
    f = v2.graph_add_mem_free_node(int(gm), [int(a)], 1, int(ap.dptr))
    assert v2.graph_mem_free_node_get_params(f) == int(ap.dptr)
    with pytest.raises(v2.InvalidValueError):
        v2.graph_destroy_node(f)


def test_edges_clone_enable_and_child(env):
    """Edge edits with edge data, clone lookup, enabled state and the child graph of a GRAPH node."""
    g = v2.graph_create(0)
    a = v2.graph_add_empty_node(g, 0, 0)
    b = v2.graph_add_empty_node(g, 0, 0)
    ed = v2.GraphEdgeData()
    ed.type = 1
    v2.graph_add_dependencies_v2(g, [a], [b], ed.ptr, 1)
    _deps, eds = v2.graph_node_get_dependencies_v2(b)
    assert int(eds._data["type"][0]) == 1
    with pytest.raises(v2.InvalidValueError):
        v2.graph_remove_dependencies_v2(g, [a], [b], None, 1)  # the edge data differs
    v2.graph_remove_dependencies_v2(g, [a], [b], ed.ptr, 1)
    c = v2.graph_clone(g)
    assert v2.graph_node_get_local_id(v2.graph_node_find_in_clone(b, c)) == 1
    child = int(env.kernels(1))
    cn = v2.graph_add_child_graph_node(g, [b], 1, child)
    emb = v2.graph_child_graph_node_get_graph(cn)
    assert v2.graph_node_get_containing_graph(cn) == g and emb != child
    x = v2.graph_instantiate_with_flags(child, 0)
    (k,) = v2.graph_get_nodes(child)
    v2.graph_node_set_enabled(x, k, 0)
    assert v2.graph_node_get_enabled(x, k) == 0
    with pytest.raises(TypeError):
        v2.graph_node_get_enabled(cu.CUgraphExec(x), k)
    xe = v2.graph_instantiate_with_flags(g, 0)
    v2.graph_exec_child_graph_node_set_params(xe, cn, int(env.kernels(1, env.k2)))
    v2.graph_launch(xe, int(env.s2))
    assert env.d.launch_log[-2].detail.startswith("k2<<<")


def test_helpers_of_the_wrong_kind_raise_type_error(env):
    """Passing one struct helper where another is expected raises TypeError, before the driver."""
    g = v2.graph_create(0)
    with pytest.raises(TypeError):
        v2.graph_add_host_node(g, 0, 0, v2.GraphInstantiateParams())
    with pytest.raises(TypeError):
        v2.graph_instantiate_with_params(g, v2.HostNodeParams_v1())
    with pytest.raises(v2.InvalidValueError):
        v2.graph_add_empty_node(g, [0], 2 ** 40)
