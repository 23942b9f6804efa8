"""cuMemGetInfo's free figure: the smaller of the device's free memory and the host budget (spec 17) [I]."""
from __future__ import annotations

import simcuda
from simcuda._core.config import Options
from simcuda._core.errors import DriverError


def test_free_is_the_host_budget_when_it_is_smaller_and_that_much_can_be_allocated():
    """With a 64 MiB host budget free is at most what the budget leaves, an allocation of it succeeds, and free
    is then 0 while one more byte fails with OUT_OF_MEMORY."""
    d = simcuda.Driver(options=Options(host_memory_budget=64 * 1024 ** 2))
    d.init(0)
    d.ctx_create(0, 0)
    free, total = d.mem_get_info()
    assert total == 80 * 1024 ** 3 and 0 < free <= 64 * 1024 ** 2
    p = d.mem_alloc(free)
    assert d.mem_get_address_range(p)[1] >= free
    assert d.mem_get_info()[0] == 0
    try:
        d.mem_alloc(1)
    except DriverError as e:
        assert int(e.code) == 2
    else:
        raise AssertionError("an allocation past the host budget succeeded")
    d.mem_free(p)
    assert d.mem_get_info()[0] == free
