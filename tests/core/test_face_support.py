"""Core entry points added or fixed for the driver faces (refuse, lossy query, kernel-arg decoding, callbacks)."""
from __future__ import annotations

import ctypes

import pytest

from simcuda import Driver, DriverError

SRC = b'extern "C" __global__ void k(int n, float f) {}'


@pytest.fixture
def d():
    """An initialised driver with a context, a function ``k(int, float)`` and one stream."""
    drv = Driver()
    drv.init(0)
    drv.ctx_create(0, 0)
    drv.f = drv.module_get_function(drv.module_load_data(SRC), "k")
    drv.s = drv.stream_create(0)
    return drv


def test_refuse_records_the_error_like_a_failed_call(d):
    """refuse() returns the DriverError and stores it as the thread's last error and in the log."""
    e = d.refuse("cuArrayCreate", 801, "not simulated")
    assert int(e.code) == 801 and d.last_error() == e
    assert d.error_log[-1].call == "cuArrayCreate" and d.error_log[-1].code == 801


def test_decode_kernel_args_takes_a_handle(d):
    """decode_kernel_args accepts the function handle; an unknown handle decodes to []."""
    n, f = ctypes.c_int(5), ctypes.c_float(1.5)
    arr = (ctypes.c_void_p * 2)(ctypes.addressof(n), ctypes.addressof(f))
    assert d.decode_kernel_args(d.f, ctypes.addressof(arr)) == [5, 1.5]
    assert d.decode_kernel_args(0x1234, ctypes.addressof(arr)) == []


def test_capture_info_without_edge_data_is_lossy(d):
    """stream_get_capture_info(edge_data=False) raises 402 when a dependency has non-zero edge data (C-110)."""
    d.stream_begin_capture(d.s, 0)
    d.launch_kernel(d.f, (1, 1, 1), (1, 1, 1), 0, d.s, [1, 1.0])
    a = d.stream_get_capture_info(d.s)[3][0]
    assert d.stream_get_capture_info(d.s, edge_data=False)[3] == [a]
    d.stream_update_capture_dependencies(d.s, [a], [(1, 0, 1)], 1)
    with pytest.raises(DriverError) as err:
        d.stream_get_capture_info(d.s, edge_data=False)
    assert int(err.value.code) == 402
    assert d.stream_get_capture_info(d.s)[4] == [(1, 0, 1)]


def test_missing_edge_data_entry_is_invalid_value_without_change(d):
    """A None edge-data entry (list shorter than the count) is INVALID_VALUE after the state checks."""
    with pytest.raises(DriverError) as err:
        d.stream_update_capture_dependencies(d.s, [0], [None], 0)
    assert int(err.value.code) == 401  # not capturing comes first (spec 3.6 row 1)
    d.stream_begin_capture(d.s, 0)
    d.launch_kernel(d.f, (1, 1, 1), (1, 1, 1), 0, d.s, [1, 1.0])
    a = d.stream_get_capture_info(d.s)[3][0]
    with pytest.raises(DriverError) as err:
        d.stream_update_capture_dependencies(d.s, [a], [None], 1)
    assert int(err.value.code) == 1 and "shorter than numDependencies" in err.value.why
    assert d.stream_get_capture_info(d.s)[3] == [a] and d.stream_is_capturing(d.s) == 1


def test_stream_callback_receives_stream_status_and_user_data(d):
    """cuStreamAddCallback calls void (*)(CUstream, CUresult, void*) with all three arguments."""
    got = []
    cb = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)(
        lambda s, status, ud: got.append((s, status, ud)))
    d.stream_add_callback(d.s, ctypes.cast(cb, ctypes.c_void_p).value, 0x77, 0)
    assert got == [(d.s, 0, 0x77)]
