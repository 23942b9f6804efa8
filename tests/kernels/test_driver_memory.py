"""The kernel engine's view of the driver's memory (simcuda._core.modules.ptxrun.DriverMemory, issue 17): one numpy view
per region and launch, made at the region's first lookup and handed out again after, unmapped addresses None."""
from __future__ import annotations

import pytest

import simcuda
from simcuda._core.modules.ptxrun import DriverMemory

np = pytest.importorskip("numpy")


@pytest.fixture
def space():  # type: ignore[no-untyped-def]
    """``(driver, memory space, two device allocations)`` in a fresh driver with a context."""
    d = simcuda.Driver()
    d.init(0)
    d.ctx_set_current(d.device_primary_ctx_retain(0))
    a, b = d.mem_alloc(256), d.mem_alloc(64)
    yield d, d.memory, (a, b)
    d.close()


def test_region_view_is_made_once_per_launch(space, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Repeated lookups inside one allocation return the same region and view; the backing store is viewed once
    per region, and a second DriverMemory (the next launch) views it afresh."""
    _d, mem, (a, b) = space
    calls: list[int] = []
    real = type(mem).kernel_view
    monkeypatch.setattr(type(mem), "kernel_view", lambda self, *args: calls.append(args[0]) or real(self, *args))
    dm = DriverMemory(mem)
    first = dm.region(a)
    assert first is not None and (first.start, first.size) == (a, 256)
    assert all(dm.region(a + k) is first for k in (0, 1, 100, 255))
    rb = dm.region(b + 8)
    assert rb is not None and rb.start == b and dm.region(b) is rb and dm.region(a + 3) is first
    assert calls == [a, b]
    first.data[5] = 42  # the view is the allocation's memory, not a copy
    assert bytes(mem.device_view(a + 5, 1)) == b"\x2a"
    again = DriverMemory(mem).region(a)
    assert again is not None and again is not first and calls == [a, b, a]


def test_unmapped_and_freed_addresses_have_no_region(space) -> None:  # type: ignore[no-untyped-def]
    """An address outside every allocation, or in a freed one, has no region; the others keep theirs."""
    d, mem, (a, b) = space
    d.mem_free(b)
    dm = DriverMemory(mem)
    assert dm.region(b) is None and dm.region(0x10) is None and dm.region(a + 256 + (1 << 40)) is None
    assert dm.region(a) is not None and dm.gpu_like() is False
