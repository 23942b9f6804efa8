"""Host-mapped and managed memory, pointer attributes and virtual memory management (issue 10 parts 3 and 4):
cases written once, run on the simulator's routes and on a GPU (docs/spec-proposals.md P-50..P-55)."""
from __future__ import annotations

import ctypes

import pytest


def _prop(d, dev):
    p = d.CUmemAllocationProp()
    p.type = d.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    p.location.type = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    p.location.id = int(dev)
    return p


def _loc(d, dev):
    loc = d.CUmemLocation()
    loc.type, loc.id = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, int(dev)
    return loc


def test_v01_mapped_pinned_memory_device_pointer_is_the_host_address(cu):
    """cuMemHostAlloc(DEVICEMAP): the device pointer equals the host pointer; Flags 1 is INVALID_VALUE."""
    d = cu.drv
    p = cu.ok(d.cuMemHostAlloc(4096, d.CU_MEMHOSTALLOC_DEVICEMAP))
    assert int(cu.ok(d.cuMemHostGetDevicePointer(p, 0))) == int(p)
    assert d.cuMemHostGetDevicePointer(p, 1)[0] == d.CUresult.CUDA_ERROR_INVALID_VALUE
    cu.ok(d.cuMemFreeHost(p))


def test_v02_pointer_attributes_of_device_and_host_memory(cu):
    """MEMORY_TYPE DEVICE/HOST, RANGE of the allocation, HOST_POINTER of device memory INVALID_VALUE."""
    d = cu.drv
    A = d.CUpointer_attribute
    assert cu.ok(d.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, cu.d)) == \
        int(d.CUmemorytype.CU_MEMORYTYPE_DEVICE)
    assert cu.ok(d.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_RANGE_SIZE, int(cu.d) + 8)) == 4096
    assert int(cu.ok(d.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, int(cu.d) + 8))) == int(cu.d)
    assert cu.ok(d.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_IS_MANAGED, cu.d)) is False
    assert d.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_HOST_POINTER, cu.d)[0] == d.CUresult.CUDA_ERROR_INVALID_VALUE
    p = cu.ok(d.cuMemAllocHost(64))
    assert cu.ok(d.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p)) == \
        int(d.CUmemorytype.CU_MEMORYTYPE_HOST)
    cu.ok(d.cuMemFreeHost(p))


def test_v03_pointer_attributes_of_unknown_memory(cu):
    """An unregistered host address: the single call is INVALID_VALUE, the plural one succeeds with type 0."""
    d = cu.drv
    A = d.CUpointer_attribute
    addr = ctypes.addressof(cu.h)
    assert d.cuPointerGetAttribute(A.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, addr)[0] == d.CUresult.CUDA_ERROR_INVALID_VALUE
    names = [A.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, A.CU_POINTER_ATTRIBUTE_IS_MANAGED]
    vals = cu.ok(d.cuPointerGetAttributes(2, names, addr))
    assert int(vals[0]) == 0 and not vals[1]


@pytest.mark.inferred
def test_v04_captured_prefetch_is_one_node(cu):
    """P-50: a captured cuMemPrefetchAsync of managed memory adds one node, of type EMPTY (simulator choice)."""
    d = cu.drv
    m = cu.ok(d.cuMemAllocManaged(4096, 1))
    cu.ok(cu.begin(cu.s1, cu.G))
    cu.ok(d.cuMemPrefetchAsync(m, 4096, _loc(d, cu.dev), 0, cu.s1))
    g = cu.end_ok(cu.s1)
    nodes = cu.nodes(g)
    assert len(nodes) == 1
    assert int(cu.ok(d.cuGraphNodeGetType(nodes[0]))) == cu.EMPTY
    cu.ok(d.cuMemFree(m))


def test_v05_vmm_round_trip(cu):
    """Reserve, create, map, set access, copy in and out, unmap, release, free: every call succeeds, data survives."""
    d = cu.drv
    prop = _prop(d, cu.dev)
    gran = cu.ok(d.cuMemGetAllocationGranularity(
        prop, d.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM))
    va = cu.ok(d.cuMemAddressReserve(gran, 0, 0, 0))
    h = cu.ok(d.cuMemCreate(gran, prop, 0))
    cu.ok(d.cuMemMap(va, gran, 0, h, 0))
    assert int(cu.ok(d.cuMemGetAccess(_loc(d, cu.dev), va))) == 0
    desc = d.CUmemAccessDesc()
    desc.location.type, desc.location.id = d.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, int(cu.dev)
    desc.flags = d.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    cu.ok(d.cuMemSetAccess(va, gran, [desc], 1))
    assert int(cu.ok(d.cuMemGetAccess(_loc(d, cu.dev), va))) == 3
    cu.ok(d.cuMemcpyHtoD(va, b"conform!", 8))
    out = ctypes.create_string_buffer(8)
    cu.ok(d.cuMemcpyDtoH(out, va, 8))
    assert out.raw == b"conform!"
    assert int(cu.ok(d.cuMemRetainAllocationHandle(int(va) + 16))) == int(h)
    cu.ok(d.cuMemRelease(h))
    cu.ok(d.cuMemRelease(h))
    cu.ok(d.cuMemUnmap(va, gran))
    cu.ok(d.cuMemAddressFree(va, gran))


def test_v06_vmm_create_size_must_be_granular(cu):
    """cuMemCreate of granularity + 1 bytes is INVALID_VALUE; cuMemMap of a released handle is refused."""
    d = cu.drv
    prop = _prop(d, cu.dev)
    gran = cu.ok(d.cuMemGetAllocationGranularity(
        prop, d.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM))
    assert d.cuMemCreate(gran + 1, prop, 0)[0] == d.CUresult.CUDA_ERROR_INVALID_VALUE
    assert d.cuMemAddressReserve(gran + 1, 0, 0, 0)[0] == d.CUresult.CUDA_ERROR_INVALID_VALUE
