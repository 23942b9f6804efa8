"""cuMemGetAddressRange of pinned host memory: its host address is its device pointer (proposal P-76) [O]."""
from __future__ import annotations

import pytest

from simcuda._core.errors import DriverError

from .conftest import ready

DEVICEMAP = 0x2  # CU_MEMHOSTALLOC_DEVICEMAP


def test_mapped_pinned_memory_answers_its_base_and_size_from_any_interior_address():
    """The device pointer of mapped pinned memory (and an address inside it) gives the allocation's base and
    size, as numba-cuda's ``test_host_alloc_mapped`` needs; the host memory stays readable afterwards."""
    d = ready()
    host = d.mem_alloc_host(40, "cuMemHostAlloc", DEVICEMAP)
    dptr = d.mem_host_get_device_pointer(host, 0)
    assert d.mem_get_address_range(dptr) == (host, 40)
    assert d.mem_get_address_range(dptr + 12) == (host, 40)
    assert d.memory.host_lookup(host).kind == "pinned"


def test_registered_memory_and_unknown_addresses_stay_invalid_value():
    """Registered host memory and an address in no allocation answer INVALID_VALUE (1), naming both kinds."""
    import ctypes
    d = ready()
    buf = ctypes.create_string_buffer(64)
    d.mem_host_register(ctypes.addressof(buf), 64, 0)
    for addr in (ctypes.addressof(buf), 0x1234):
        with pytest.raises(DriverError) as e:
            d.mem_get_address_range(addr)
        assert int(e.value.code) == 1
        assert "device allocation or pinned host allocation" in e.value.why
