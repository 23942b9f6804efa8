"""The helpers entry groups share, called where they live (issue 18 item 1: no sibling's private method).

Each is a function or a service method of the module that owns its concept: :mod:`simcuda._core.graphs.graph_build`
(adding nodes, the conditional instantiate checks), :func:`simcuda._core.memory.memops.check_mem_ops`,
:func:`simcuda._core.objects.require_pools`, ``MemorySpace.check_alloc_size`` / ``unified_side``,
:func:`simcuda._core.modules.module_model.read_image_file`, :class:`simcuda._core.modules.variables.ModuleVariables`,
and the NULL streams a context makes (``Context.legacy_stream`` / ``per_thread_stream``, ids from
``Handles.next_stream_id``).
"""
from __future__ import annotations

from typing import Any

import pytest

import simcuda
from simcuda._core.config import DeviceSpec
from simcuda._core.errors import CUresult, DriverError
from simcuda._core.graphs import graph_build as gb
from simcuda._core.graphs import graph_model as gr
from simcuda._core.graphs import nodes as nd
from simcuda._core.memory.memops import MEMOP_WRITE_VALUE_32, check_mem_ops
from simcuda._core.memory.memory_model import DEVICE, HOST, KIND_DEVICE
from simcuda._core.modules.module_model import read_image_file
from simcuda._core.objects import CU_STREAM_LEGACY, CU_STREAM_PER_THREAD, LEGACY, PER_THREAD, Module, require_pools

PTX_VAR = b".version 8.0\n.target sm_90\n.address_size 64\n.visible .global .align 4 .u32 counter = 7;\n"


@pytest.fixture
def d() -> Any:
    """A driver with a current context (its services are what the helpers are given)."""
    drv = simcuda.Driver()
    drv.init(0)
    drv.ctx_create(0, 0)
    return drv


def _code(fn: Any, *args: Any) -> int:
    """The code of the DriverError ``fn(*args)`` raises."""
    with pytest.raises(DriverError) as e:
        fn(*args)
    return int(e.value.code)


def test_deps_of_and_attach_add_a_node_with_its_edges(d: Any) -> None:
    """deps_of turns live node handles into dependencies and attach makes the node with one edge per dependency."""
    g = d.handles.new_graph(None)
    a = gb.attach(d.handles, g, gr.EMPTY, nd.NO_PARAMS, [])
    b = gb.attach(d.handles, g, gr.EMPTY, nd.NO_PARAMS, gb.deps_of(d.handles, g, [a.handle], None))
    assert d.handles.get(b.handle) is b and [n.local_id for n in g.nodes] == [0, 1]
    assert d.graph_get_edges(g.handle) == [(a.handle, b.handle, (0, 0, 0))]


def test_deps_of_refuses_a_repeated_or_foreign_dependency(d: Any) -> None:
    """A dependency listed twice, or a node of another graph, is INVALID_VALUE and no node is added."""
    g, other = d.handles.new_graph(None), d.handles.new_graph(None)
    a = gb.attach(d.handles, g, gr.EMPTY, nd.NO_PARAMS, [])
    x = gb.attach(d.handles, other, gr.EMPTY, nd.NO_PARAMS, [])
    assert _code(gb.deps_of, d.handles, g, [a.handle, a.handle], None) == CUresult.CUDA_ERROR_INVALID_VALUE
    assert _code(gb.deps_of, d.handles, g, [x.handle], None) == CUresult.CUDA_ERROR_INVALID_VALUE
    assert len(g.nodes) == 1 and len(other.nodes) == 1


def test_build_params_refuses_a_type_without_a_kind(d: Any) -> None:
    """A node type the simulator has no kind for is NOT_SUPPORTED (801); a known kind builds its record."""
    assert _code(gb.build_params, d, 99, None) == CUresult.CUDA_ERROR_NOT_SUPPORTED
    assert gb.build_params(d, gr.EMPTY, None) is nd.NO_PARAMS


def test_conditional_problem_finds_an_unused_handle(d: Any) -> None:
    """A conditional handle no node uses is CONDITIONAL_HANDLE_UNUSED (5) at instantiation; a graph without one
    has no problem."""
    hg = d.graph_create(0)
    g = d.handles.graph(hg)
    assert gb.conditional_problem(g) is None
    d.graph_conditional_handle_create(hg, 0, 0, 0)
    result, node, why = gb.conditional_problem(g) or (0, None, "")
    assert result == 5 and node is None and "no conditional node uses it" in why


def test_check_mem_ops_checks_flags_before_the_context_and_ops_after(d: Any) -> None:
    """Flags other than 0 are refused before the context is asked for; a write outside an allocation after it."""
    asked: list[int] = []

    def ctx() -> int:
        asked.append(1)
        return 7

    assert _code(check_mem_ops, d.memory, [], 1, ctx, "t") == CUresult.CUDA_ERROR_INVALID_VALUE and asked == []
    assert _code(check_mem_ops, d.memory, [(MEMOP_WRITE_VALUE_32, 0x10, 1, 0)], 0, ctx, "t") == 1 and asked == [1]
    p = d.mem_alloc(64)
    assert check_mem_ops(d.memory, [(MEMOP_WRITE_VALUE_32, p, 5, 0)], 0, ctx, "t") == (((2, p, 5, 0),), 7)


def test_require_pools_refuses_a_device_without_pools() -> None:
    """A device with memory_pools=False is NOT_SUPPORTED (801) naming the call; one with pools passes."""
    d = simcuda.Driver(devices=[DeviceSpec(memory_pools=False), DeviceSpec()])
    with pytest.raises(DriverError) as e:
        require_pools(d.devices[0], "cuMemAllocAsync")
    assert int(e.value.code) == CUresult.CUDA_ERROR_NOT_SUPPORTED and e.value.why.startswith("cuMemAllocAsync:")
    require_pools(d.devices[1], "cuMemAllocAsync")


def test_memory_space_size_rule_and_unified_side(d: Any) -> None:
    """check_alloc_size refuses 0 bytes (1) and more than the device holds (2); unified_side tells device
    addresses from host ones."""
    ctx = d.threads.ctx_current()
    assert _code(d.memory.check_alloc_size, 0, ctx) == CUresult.CUDA_ERROR_INVALID_VALUE
    assert _code(d.memory.check_alloc_size, ctx.device.spec.total_mem + 1, ctx) == CUresult.CUDA_ERROR_OUT_OF_MEMORY
    p = d.mem_alloc(64)
    assert d.memory.unified_side(p) == DEVICE and d.memory.unified_side(0x1000) == HOST
    assert d.unified_side(p + 63) == DEVICE and d.memory.in_use == 64


def test_read_image_file_codes(tmp_path: Any) -> None:
    """A NULL path is INVALID_VALUE (1), an unreadable one FILE_NOT_FOUND (301), a file its bytes."""
    f = tmp_path / "m.ptx"
    f.write_bytes(PTX_VAR)
    assert read_image_file(str(f), "cuModuleLoad") == PTX_VAR
    assert _code(read_image_file, None, "cuModuleLoad") == CUresult.CUDA_ERROR_INVALID_VALUE
    assert _code(read_image_file, str(tmp_path / "none"), "cuLinkAddFile") == CUresult.CUDA_ERROR_FILE_NOT_FOUND


def test_module_variables_are_allocated_at_load_and_freed_at_unload(d: Any) -> None:
    """The variables service allocates a module's variable in its context with its initial value, and frees it
    when the module goes."""
    ctx = d.threads.ctx_current()
    m = Module(0, ctx, {}, None)
    m.handle = d.handles.add(m)
    d.variables.loaded(m, PTX_VAR)
    facts = d.variables.facts(m)
    assert facts is not None
    a = d.variables.in_context(facts, ctx)["counter"]
    assert a.kind == KIND_DEVICE and bytes(d.memory.device_view(a.start, 4)) == (7).to_bytes(4, "little")
    d.variables.unloaded(m)
    assert d.variables.facts(m) is None and d.memory.find(a.start) is None


def test_a_context_makes_its_null_streams_once(d: Any) -> None:
    """legacy_stream and per_thread_stream make each NULL stream on first use and hand back the same one after;
    the per-thread stream takes the next stream id of the handle table."""
    ctx = d.threads.ctx_current()
    t = d.threads.current()
    legacy = ctx.legacy_stream()
    assert legacy is ctx.legacy_stream() and legacy.kind == LEGACY and legacy.handle == CU_STREAM_LEGACY
    first = d.handles.next_stream_id()
    pt = ctx.per_thread_stream(t, d.handles.next_stream_id)
    assert pt is ctx.per_thread_stream(t, d.handles.next_stream_id) and pt.kind == PER_THREAD
    assert pt.handle == CU_STREAM_PER_THREAD and pt.stream_id == first + 1 and pt.owner == t.name
    assert d.handles.next_stream_id() == first + 2


def test_a_failed_link_add_file_is_recorded_once(d: Any) -> None:
    """cuLinkAddFile of a missing file is FILE_NOT_FOUND (301) with one error_log record (it reads the file through
    read_image_file, not through a second entry), and the link state keeps no input."""
    s = d.link_create(0, None, None)
    assert _code(d.link_add_file, s, 1, "/nonexistent/m.ptx", 0, None, None) == CUresult.CUDA_ERROR_FILE_NOT_FOUND
    assert [(r.call, r.code) for r in d.error_log] == [("cuLinkAddFile", 301)]
    assert d.handles.link_state(s, "t").inputs == []
