"""Memset and memcpy nodes (and their captured forms) on pinned or registered host memory (spec 17, 9) [D UVA]."""
from __future__ import annotations

import ctypes

import simcuda
from simcuda._core.memory.memory_model import DEVICE, CopyParams, MemsetParams


def _ready() -> simcuda.Driver:
    """A driver with a context."""
    d = simcuda.Driver()
    d.init(0)
    d.ctx_create(0, 0)
    return d


def test_a_memset_node_on_pinned_host_memory_is_accepted_and_writes_it_at_replay():
    """A MEMSET node whose destination is cuMemAllocHost memory is added and fills that memory when launched."""
    d = _ready()
    h = d.mem_alloc_host(64)
    g = d.graph_create(0)
    d.graph_add_memset_node(g, [], MemsetParams(h, 7, 1, 64))
    assert ctypes.string_at(h, 64) != b"\x07" * 64  # nothing written before the replay
    s = d.stream_create(0)
    d.graph_launch(d.graph_instantiate(g, 0), s)
    d.stream_synchronize(s)
    assert ctypes.string_at(h, 64) == b"\x07" * 64


def test_a_captured_copy_from_device_memory_into_registered_host_memory_runs_at_replay():
    """A captured copy whose destination is cuMemHostRegister memory (given as a device-side operand) becomes a node
    and copies at replay."""
    d = _ready()
    buf = ctypes.create_string_buffer(32)
    d.mem_host_register(ctypes.addressof(buf), 32, 0)
    src = d.mem_alloc(32)
    d.memset(MemsetParams(src, 0x21, 1, 32), None, "cuMemsetD8")
    s = d.stream_create(0)
    d.stream_begin_capture(s, 0)
    d.memcpy(CopyParams(DEVICE, src, DEVICE, ctypes.addressof(buf), 32), s, "cuMemcpyDtoDAsync")
    g = d.stream_end_capture(s)
    assert len(d.graph_get_nodes(g)) == 1 and buf.raw == b"\0" * 32
    d.graph_launch(d.graph_instantiate(g, 0), s)
    d.stream_synchronize(s)
    assert buf.raw == b"\x21" * 32
