"""Graph memory allocation nodes of allocType MANAGED (spec 17, 9)."""
from __future__ import annotations

import ctypes

import pytest

import simcuda
from simcuda import DriverError
from simcuda._core.config import DeviceSpec
from simcuda._core.memory.memory_model import MemsetParams


def _ready(spec: DeviceSpec | None = None) -> simcuda.Driver:
    """A driver of one device (``spec`` or the default) with a context."""
    d = simcuda.Driver() if spec is None else simcuda.Driver(devices=[spec])
    d.init(0)
    d.ctx_create(0, 0)
    return d


def test_a_managed_allocation_node_is_accepted_and_runs():
    """allocType MANAGED (2) on a device with managed memory adds a MEM_ALLOC node whose memory is usable."""
    d = _ready()
    g = d.graph_create(0)
    node, p = d.graph_add_mem_alloc_node(g, [], 256, (1, 0), 2)
    assert p != 0 and len(d.graph_get_nodes(g)) == 1
    d.graph_add_memset_node(g, [node], MemsetParams(p, 0x5A, 1, 256))
    s = d.stream_create(0)
    d.graph_launch(d.graph_instantiate(g, 0), s)
    d.stream_synchronize(s)
    host = ctypes.create_string_buffer(256)
    d.memcpy_unified(ctypes.addressof(host), p, 256, None, "cuMemcpy")
    assert host.raw == b"\x5a" * 256


def test_a_managed_allocation_node_is_refused_without_managed_memory():
    """On a device without managed memory allocType MANAGED is INVALID_VALUE and the graph stays empty."""
    d = _ready(DeviceSpec(managed_memory=False))
    g = d.graph_create(0)
    with pytest.raises(DriverError) as ei:
        d.graph_add_mem_alloc_node(g, [], 256, (1, 0), 2)
    assert int(ei.value.code) == 1 and "spec 17" in ei.value.why
    assert d.graph_get_nodes(g) == []
