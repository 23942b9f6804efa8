"""Raw host addresses (``simcuda._core.memory.hostmem``): checked against the driver's own allocations and the
process's mappings before the simulator reads, writes or calls them."""
from __future__ import annotations

import ctypes

import pytest

from simcuda import Driver, DriverError
from simcuda._core.memory import hostmem
from simcuda._core.memory.memory_model import DEVICE, HOST, CopyParams

GARBAGE = 0xDEADBEEF000


@pytest.fixture
def d():
    """An initialised driver with a context and 64 bytes of device memory (``d.dptr``)."""
    drv = Driver()
    drv.init(0)
    drv.ctx_create(0, 0)
    drv.dptr = drv.mem_alloc(64)
    return drv


def linux_only():
    if not hostmem.MAPS.covers(id(hostmem), 1, "r"):
        pytest.skip("no /proc/self/maps: addresses are trusted on this platform")


def test_core_memcpy_from_unmapped_address_is_invalid_value(d):
    """Driver.memcpy with an unmapped int host source raises INVALID_VALUE and writes nothing."""
    linux_only()
    with pytest.raises(DriverError) as ei:
        d.memcpy(CopyParams(HOST, GARBAGE, DEVICE, d.dptr, 16), None, "cuMemcpyHtoD")
    assert int(ei.value.code) == 1 and "0xdeadbeef000" in ei.value.why
    assert d.last_error() == ei.value and d.error_log[-1].call == "cuMemcpyHtoD"
    assert bytes(d.memory.device_view(d.dptr, 16)) == bytes(16)


def test_own_host_allocation_is_accepted_without_the_table(d, monkeypatch):
    """Memory from mem_alloc_host is accepted even when the mapping table cannot say so."""
    h = d.mem_alloc_host(32)
    monkeypatch.setattr(hostmem.MAPS, "covers", lambda *a: False)
    assert hostmem.problem(d.memory, h + 8, 16, "r") is None
    assert hostmem.problem(d.memory, h + 8, 32, "r") is not None  # runs past it: the table decides


def test_without_a_mapping_table_addresses_are_trusted(tmp_path):
    """On a platform without /proc/self/maps the check passes, as the real driver trusts addresses."""
    maps = hostmem.ProcessMaps(str(tmp_path / "no-such-file"))
    assert maps.covers(GARBAGE, 16, "r") is None
    assert maps.available is False


def test_table_is_reread_on_a_miss(tmp_path):
    """A miss re-reads the table, so memory mapped after the first read is found."""
    f = tmp_path / "maps"
    f.write_text("00001000-00002000 r--p 00000000 00:00 0\n")
    maps = hostmem.ProcessMaps(str(f))
    assert maps.covers(0x1000, 16, "r") is True and maps.reads == 1
    assert maps.covers(0x1000, 16, "w") is False and maps.reads == 2
    f.write_text("00001000-00002000 rw-p 00000000 00:00 0\n00002000-00003000 rw-p 00000000 00:00 0\n")
    assert maps.covers(0x1ff0, 32, "w") is True  # spans two adjacent mappings
    assert maps.extent(0x1000, "w") == 0x2000


def test_read_c_string_stops_at_unreadable_memory(d):
    """read_c_string refuses text that runs into unreadable memory before its NUL."""
    linux_only()
    import mmap
    m = mmap.mmap(-1, 2 * mmap.PAGESIZE)
    m.write(b"x" * mmap.PAGESIZE)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    libc = ctypes.CDLL(None)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    assert libc.mprotect(addr + mmap.PAGESIZE, mmap.PAGESIZE, 0) == 0
    try:
        with pytest.raises(DriverError) as ei:
            hostmem.read_c_string(d.memory, addr, "image")
        assert "before its terminating NUL" in ei.value.why
        m[10] = 0
        assert hostmem.read_c_string(d.memory, addr, "image") == b"x" * 10
    finally:
        libc.mprotect(addr + mmap.PAGESIZE, mmap.PAGESIZE, 3)


def test_host_function_call_checks_executable_memory(d):
    """A host function enqueued at a data address is refused with INVALID_VALUE before anything runs."""
    linux_only()
    buf = ctypes.create_string_buffer(16)
    n = len(d.launch_log)
    with pytest.raises(DriverError) as ei:
        d.launch_host_func(d.stream_create(0), ctypes.addressof(buf), None)
    assert int(ei.value.code) == 1 and "executable" in ei.value.why
    assert len(d.launch_log) == n
