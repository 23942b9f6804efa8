"""``cuMemGetInfo`` reports what an allocation can get (issue 19 item 7): the smaller of the device's free memory
and the room left in the host budget, so an allocation of ``free`` bytes succeeds and one more page does not."""
from __future__ import annotations

import pytest

import simcuda
from simcuda._core import process
from simcuda._core.errors import CUresult, DriverError


def test_free_memory_is_what_an_allocation_gets_under_the_host_budget():
    """With a host budget 64 MiB above what the process holds, cuMemGetInfo's free is that room (not the
    device's 80 GiB); an allocation of exactly ``free`` succeeds, after which free is 0 and one more byte is
    OUT_OF_MEMORY (2) with nothing allocated."""
    d = simcuda.Driver(options=simcuda.Options(host_memory_budget=process.SPACE.committed + (64 << 20)))
    d.init(0)
    d.ctx_create(0, 0)
    free, total = d.mem_get_info()
    assert free == 64 << 20 and total == 80 << 30
    p = d.mem_alloc(free)
    assert d.mem_get_address_range(p) == (p, free)
    assert d.mem_get_info() == (0, total)
    with pytest.raises(DriverError) as ei:
        d.mem_alloc(1)
    assert ei.value.code == CUresult.CUDA_ERROR_OUT_OF_MEMORY and d.memory.in_use == free
    d.mem_free(p)
    assert d.mem_get_info() == (64 << 20, total)
    d.close()


def test_other_drivers_allocations_count_against_the_room():
    """Another driver's live allocation takes from the room both report (the budget is the process's)."""
    room = 64 << 20
    a = simcuda.Driver(options=simcuda.Options(host_memory_budget=process.SPACE.committed + room))
    b = simcuda.Driver(options=simcuda.Options(host_memory_budget=process.SPACE.committed + room))
    for d in (a, b):
        d.init(0)
        d.ctx_create(0, 0)
    a.mem_alloc(16 << 20)
    assert b.mem_get_info()[0] == room - (16 << 20)
    b.mem_alloc(b.mem_get_info()[0])
    assert a.mem_get_info()[0] == 0 and b.mem_get_info()[0] == 0
    a.close()
    b.close()
