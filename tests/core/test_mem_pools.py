"""Default memory pools, their attributes (spec 16: potentially unsafe), allocations from them, and the
stream priority range."""
from __future__ import annotations

import pytest

from simcuda import DeviceSpec, Driver
from simcuda._core.errors import CUresult, DriverError

from .conftest import ready

THRESHOLD, RES_CUR, RES_HIGH, USED_CUR, USED_HIGH = 4, 5, 6, 7, 8


def code(fn, *args):
    """The CUresult a core call raises (0 when it succeeds)."""
    try:
        fn(*args)
    except DriverError as e:
        return int(e.code)
    return 0


def attrs(d: Driver, p: int) -> list[int]:
    return [d.mem_pool_get_attribute(p, a) for a in (THRESHOLD, RES_CUR, RES_HIGH, USED_CUR, USED_HIGH)]


def test_the_default_pool_is_one_handle_and_the_current_pool(d):
    """cuDeviceGetDefaultMemPool gives the same handle each time; cuDeviceGetMemPool gives it too until set."""
    p = d.device_get_default_mem_pool(0)
    assert p == d.device_get_default_mem_pool(0) == d.device_get_mem_pool(0)
    d.device_set_mem_pool(0, p)
    assert d.device_get_mem_pool(0) == p
    assert code(d.device_get_default_mem_pool, 3) == CUresult.CUDA_ERROR_INVALID_DEVICE


def test_a_pool_of_another_device_cannot_be_made_current():
    """cuDeviceSetMemPool with another device's pool: INVALID_VALUE [I code], the current pool unchanged."""
    d = Driver(devices=[DeviceSpec(), DeviceSpec()])
    d.init(0)
    p0, p1 = d.device_get_default_mem_pool(0), d.device_get_default_mem_pool(1)
    assert p0 != p1
    assert code(d.device_set_mem_pool, 0, p1) == CUresult.CUDA_ERROR_INVALID_VALUE
    assert d.device_get_mem_pool(0) == p0


def test_counters_follow_the_stream_ordered_allocations_of_the_pool(d):
    """Used and reserved count live cuMemAllocAsync / cuMemAllocFromPoolAsync bytes; the watermarks stay."""
    p = d.device_get_default_mem_pool(0)
    s = d.stream_create(1)
    assert attrs(d, p) == [0, 0, 0, 0, 0]
    a = d.mem_alloc_async(100, s)
    b = d.mem_alloc_from_pool_async(28, p, s)
    assert attrs(d, p) == [0, 128, 128, 128, 128]
    d.mem_free_async(a, s)
    assert attrs(d, p) == [0, 28, 128, 28, 128]
    d.mem_pool_set_attribute(p, USED_HIGH, 0)
    d.mem_pool_set_attribute(p, RES_HIGH, 0)
    d.mem_free(b)
    assert attrs(d, p) == [0, 0, 28, 0, 28]
    d.mem_alloc(64)  # not stream-ordered: not from the pool
    assert d.mem_pool_get_attribute(p, USED_CUR) == 0


def test_the_release_threshold_is_stored(d):
    """CU_MEMPOOL_ATTR_RELEASE_THRESHOLD reads back what was set (default 0)."""
    p = d.device_get_default_mem_pool(0)
    d.mem_pool_set_attribute(p, THRESHOLD, 1 << 40)
    assert d.mem_pool_get_attribute(p, THRESHOLD) == 1 << 40


@pytest.mark.parametrize("attr, value, expected", [
    (USED_HIGH, 5, CUresult.CUDA_ERROR_INVALID_VALUE),   # a watermark is only reset, with 0
    (USED_CUR, 0, CUresult.CUDA_ERROR_INVALID_VALUE),    # read-only [I code]
    (RES_CUR, 0, CUresult.CUDA_ERROR_INVALID_VALUE),
    (THRESHOLD, -1, CUresult.CUDA_ERROR_INVALID_VALUE),
    (99, 0, CUresult.CUDA_ERROR_INVALID_VALUE),          # no CUmemPool_attribute
    (9, 1, CUresult.CUDA_ERROR_INVALID_VALUE),           # ALLOCATION_TYPE is read-only [I code]
    (14, 0, CUresult.CUDA_ERROR_INVALID_VALUE),          # HW_DECOMPRESS_ENABLED too
])
def test_set_attribute_refusals_change_nothing(d, attr, value, expected):
    """Every refused cuMemPoolSetAttribute leaves the pool as it was."""
    p = d.device_get_default_mem_pool(0)
    assert code(d.mem_pool_set_attribute, p, attr, value) == expected
    assert attrs(d, p) == [0, 0, 0, 0, 0] and d.last_error().why


def test_get_attribute_refusals(d):
    """Unknown attribute or bad pool handle: INVALID_VALUE, with a why naming the other driver for its handles."""
    p = d.device_get_default_mem_pool(0)
    assert code(d.mem_pool_get_attribute, p, 0) == CUresult.CUDA_ERROR_INVALID_VALUE
    assert code(d.mem_pool_get_attribute, p, 16) == CUresult.CUDA_ERROR_INVALID_VALUE
    assert code(d.mem_pool_get_attribute, d.stream_create(0), THRESHOLD) == CUresult.CUDA_ERROR_INVALID_VALUE
    assert code(d.mem_pool_get_attribute, 0, THRESHOLD) == CUresult.CUDA_ERROR_INVALID_VALUE
    other = ready()
    assert code(other.mem_pool_get_attribute, p, THRESHOLD) == CUresult.CUDA_ERROR_INVALID_VALUE
    assert "driver" in other.last_error().why
    assert code(d.mem_alloc_from_pool_async, 16, 0, d.stream_create(0)) == CUresult.CUDA_ERROR_INVALID_VALUE


@pytest.mark.parametrize("call", ["get", "set"])
@pytest.mark.parametrize("mode", [0, 1])  # GLOBAL, THREAD_LOCAL
def test_pool_attributes_are_unsafe_during_a_restricting_capture(d, call, mode):
    """Spec 16: 900 for the call, nothing changes, the capture is invalidated and its end is 901."""
    p = d.device_get_default_mem_pool(0)
    s = d.stream_create(1)
    d.stream_begin_capture(s, mode)
    op = (lambda: d.mem_pool_get_attribute(p, THRESHOLD)) if call == "get" else \
        (lambda: d.mem_pool_set_attribute(p, THRESHOLD, 7))
    assert code(op) == CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
    assert d.stream_is_capturing(s) == 2  # INVALIDATED
    assert code(d.stream_end_capture, s) == CUresult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED
    assert d.mem_pool_get_attribute(p, THRESHOLD) == 0


def test_pool_attributes_are_fine_in_relaxed_mode(d):
    """A RELAXED thread may read and set them during its capture; the capture ends with its graph."""
    p = d.device_get_default_mem_pool(0)
    s = d.stream_create(1)
    d.stream_begin_capture(s, 0)
    d.thread_exchange_stream_capture_mode(2)
    d.mem_pool_set_attribute(p, THRESHOLD, 7)
    assert d.mem_pool_get_attribute(p, THRESHOLD) == 7
    d.thread_exchange_stream_capture_mode(0)
    assert d.stream_end_capture(s)


def test_a_captured_allocation_from_a_pool_is_a_mem_alloc_node(d):
    """cuMemAllocFromPoolAsync during capture adds a MEM_ALLOC node; graph memory is not the pool's."""
    p = d.device_get_default_mem_pool(0)
    s = d.stream_create(1)
    d.stream_begin_capture(s, 0)
    a = d.mem_alloc_from_pool_async(256, p, s)
    d.mem_free_async(a, s)
    g = d.stream_end_capture(s)
    assert [d.graph_node_get_type(n) for n in d.graph_get_nodes(g)] == [10, 11]  # MEM_ALLOC, MEM_FREE
    assert attrs(d, p) == [0, 0, 0, 0, 0]


def test_stream_priority_range_is_the_clamp_of_stream_creation():
    """cuCtxGetStreamPriorityRange gives (least, greatest) of the device; cuStreamCreateWithPriority clamps to it."""
    d = ready()
    assert d.ctx_get_stream_priority_range() == (0, -5)
    assert d.stream_get_priority(d.stream_create(0, -9)) == -5
    d2 = Driver(devices=[DeviceSpec(stream_priority_range=(1, -2))])
    d2.init(0)
    d2.ctx_create(0, 0)
    assert d2.ctx_get_stream_priority_range() == (1, -2)
    assert [d2.stream_get_priority(d2.stream_create(0, q)) for q in (-9, 5, 0)] == [-2, 1, 0]
    d3 = Driver()
    d3.init(0)
    assert code(d3.ctx_get_stream_priority_range) == CUresult.CUDA_ERROR_INVALID_CONTEXT
