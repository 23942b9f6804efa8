"""Entries whose rows became complete (issue 18, item 2): the tuple face builds them from the row, and the _v2
face, which had them as not-simulated stubs, now serves them from the same row."""
from __future__ import annotations

import ctypes

from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings._v2 import driver as v2

OK = cu.CUresult.CUDA_SUCCESS


def _ctx(drv):
    assert cu.cuInit(0) == (OK,)
    err, ctx = cu.cuCtxCreate(None, 0, 0)
    assert err == OK
    return ctx


def test_tuple_face_unified_copy_is_built_and_moves_bytes(drv):
    """cuMemcpy (built from its row) copies host bytes to device memory and back; the row's doc is its help."""
    _ctx(drv)
    err, dptr = cu.cuMemAlloc(8)
    assert err == OK
    src = (ctypes.c_uint8 * 8)(*range(1, 9))
    dst = (ctypes.c_uint8 * 8)()
    assert cu.cuMemcpy(dptr, ctypes.addressof(src), 8) == (OK,)
    assert cu.cuMemcpy(ctypes.addressof(dst), dptr, 8) == (OK,)
    assert list(dst) == list(range(1, 9))
    assert cu.cuMemcpy.__doc__.startswith("Mirrors ``cuMemcpy(dst, src, size_t ByteCount)``")


def test_tuple_face_free_host_is_built_with_the_void_pointer_kind(drv):
    """cuMemFreeHost takes the address cuMemAllocHost gave (a void*), frees it, and refuses it the second time."""
    _ctx(drv)
    err, p = cu.cuMemAllocHost(64)
    assert err == OK
    assert cu.cuMemFreeHost(p) == (OK,)
    err2 = cu.cuMemFreeHost(p)[0]
    assert err2 != OK
    assert drv.last_error() is not None


def test_v2_face_serves_the_unified_copy_from_the_row(drv):
    """_v2's memcpy, a not-simulated stub before, is built from cuMemcpy's row and moves the bytes."""
    _ctx(drv)
    dptr = v2.mem_alloc_v2(4)
    src = (ctypes.c_uint8 * 4)(9, 8, 7, 6)
    dst = (ctypes.c_uint8 * 4)()
    v2.memcpy(int(dptr), ctypes.addressof(src), 4)
    v2.memcpy(ctypes.addressof(dst), int(dptr), 4)
    assert list(dst) == [9, 8, 7, 6]
    assert "memcpy" not in v2._NOT_SIMULATED


def test_graph_node_adders_are_built_with_their_dependency_arrays(drv):
    """cuGraphAddEmptyNode and cudaGraphAddEmptyNode are built from one row: the dependency array and its count
    reach the core as handles (the edge exists afterwards), a count past the list is the wrapper's RuntimeError,
    and a wrong item the wrapper's TypeError."""
    import pytest

    from simcuda.faces.bindings import runtime as rt
    _ctx(drv)
    err, g = cu.cuGraphCreate(0)
    assert err == OK
    err, a = cu.cuGraphAddEmptyNode(g, None, 0)
    assert err == OK
    err, b = cu.cuGraphAddEmptyNode(g, [a], 1)
    assert err == OK and isinstance(b, cu.CUgraphNode)
    assert cu.cuGraphNodeGetDependencies(b, 1)[1] == [a]
    with pytest.raises(RuntimeError, match="List is too small: 1 < 2"):
        cu.cuGraphAddEmptyNode(g, [a], 2)
    with pytest.raises(TypeError, match="expected tuple"):
        cu.cuGraphAddEmptyNode(g, [1], 1)
    err, c = rt.cudaGraphAddEmptyNode(g, [a, b], 2)
    assert err == rt.cudaError_t.cudaSuccess and isinstance(c, rt.cudaGraphNode_t)
    assert rt.cudaGraphNodeGetDependencies(c, 2)[1] == [a, b]
    assert cu.cuGraphAddEmptyNode.__name__ == "cuGraphAddEmptyNode"
