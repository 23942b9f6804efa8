"""Core rules behind the bad-input fixes (tests/faces/test_bad_input.py): each refusal is a DriverError with a
``why``, recorded as the thread's last error, and the state is unchanged."""
from __future__ import annotations

import pytest

from simcuda import DeviceSpec, Driver, DriverError

SRC = b'extern "C" __global__ void k(int n) {}'


@pytest.fixture
def d():
    """An initialised driver with a context ``d.ctx``, a function ``d.f`` and a stream ``d.s``."""
    drv = Driver()
    drv.init(0)
    drv.ctx = drv.ctx_create(0, 0)
    drv.mod = drv.module_load_data(SRC)
    drv.f = drv.module_get_function(drv.mod, "k")
    drv.s = drv.stream_create(0)
    return drv


def refused(d, code, fn, *args, **kw):
    """Call ``fn``; assert it raises ``code``, that the error is the last error and logged; return the why."""
    with pytest.raises(DriverError) as ei:
        fn(*args, **kw)
    assert int(ei.value.code) == code
    assert d.last_error() == ei.value and d.error_log[-1].why == ei.value.why
    return ei.value.why


def test_remove_dependencies_of_another_graphs_nodes(d):
    """graph_remove_dependencies refuses nodes of another graph (INVALID_VALUE), leaving the edge."""
    g, g2 = d.graph_create(0), d.graph_create(0)
    a = d.graph_add_empty_node(g, [])
    b = d.graph_add_empty_node(g, [a])
    refused(d, 1, d.graph_remove_dependencies, g2, [a], [b], [])
    assert len(d.graph_get_edges(g)) == 1


def test_host_allocation_beyond_physical_memory_is_out_of_memory(d):
    """mem_alloc_host beyond physical memory is OUT_OF_MEMORY, allocating nothing."""
    why = refused(d, 2, d.mem_alloc_host, 2 ** 63)
    assert "physical memory" in why and d.memory.host == {}


@pytest.mark.parametrize("grid, block, shmem", [((2 ** 31, 1, 1), (1, 1, 1), 0), ((1, 1, 1), (2048, 1, 1), 0),
                                                ((1, 1, 1), (1, 1, 1), 49153)])
def test_launch_limits(d, grid, block, shmem):
    """launch_kernel checks the device's grid, block and dynamic shared memory limits (INVALID_VALUE)."""
    n = d.stats["kernel_launches"]
    refused(d, 1, d.launch_kernel, d.f, grid, block, shmem, d.s, [0])
    assert d.stats["kernel_launches"] == n and d.launch_log == []


def test_function_attribute_raises_the_shared_memory_limit(d):
    """func_set_attribute(8) lets launches use more dynamic shared memory, up to the opt-in limit."""
    d.func_set_attribute(d.f, 8, 65536)
    d.launch_kernel(d.f, (1, 1, 1), (1, 1, 1), 65536, d.s, [0])
    refused(d, 1, d.func_set_attribute, d.f, 8, 10 ** 9)
    assert d.func_get_attribute(8, d.f) == 65536


def test_launch_limits_come_from_the_device_spec():
    """A device with other attributes has other limits."""
    drv = Driver(devices=[DeviceSpec(attributes={1: 256})])  # MAX_THREADS_PER_BLOCK
    drv.init(0)
    drv.ctx_create(0, 0)
    f = drv.module_get_function(drv.module_load_data(SRC), "k")
    drv.launch_kernel(f, (1, 1, 1), (256, 1, 1), 0, 0, [0])
    refused(drv, 1, drv.launch_kernel, f, (1, 1, 1), (257, 1, 1), 0, 0, [0])


def test_cross_context_launch_is_invalid_handle(d):
    """A function of context 1 launched on a stream of context 2 is INVALID_HANDLE [inferred]."""
    d.ctx_create(0, 0)
    s2 = d.stream_create(0)
    why = refused(d, 400, d.launch_kernel, d.f, (1, 1, 1), (1, 1, 1), 0, s2, [0])
    assert "[inferred" in why and d.launch_log == []


def test_module_of_destroyed_context(d):
    """After ctx_destroy the context's module and functions answer INVALID_CONTEXT [inferred]."""
    d.ctx_destroy(d.ctx)
    refused(d, 201, d.module_get_function, d.mod, "k")
    refused(d, 201, d.func_get_name, d.f)


@pytest.mark.parametrize("call, args", [
    ("ctx_create", (0x100, 0)),
    ("mem_alloc_host", (16, "cuMemHostAlloc", 8)),
    ("mem_host_register", (0x1000, 0, 0)),
    ("mem_host_register", (0x1000, 16, 0x10)),
])
def test_flag_and_size_checks(d, call, args):
    """Unknown flag bits and size 0 are INVALID_VALUE and change nothing."""
    n = len(d.handles.table)
    refused(d, 1, getattr(d, call), *args)
    assert len(d.handles.table) == n and d.memory.registered == {} and d.memory.host == {}


def test_attach_mem_flags(d):
    """stream_attach_mem_async takes 0 or exactly one of GLOBAL, HOST, SINGLE (0 as in case C-075)."""
    m = d.mem_alloc(64, "cuMemAllocManaged", managed=True)
    refused(d, 1, d.stream_attach_mem_async, d.s, m, 0, 3)
    d.stream_attach_mem_async(d.s, m, 0, 0)
    refused(d, 1, d.mem_alloc, 64, "cuMemAllocManaged", True, 4)
    d.stream_attach_mem_async(d.s, m, 0, 4)


def test_refuse_keeps_a_runtime_only_code(d):
    """refuse() with a cudaError_t that has no CUresult twin records that member (last error and log agree)."""
    from simcuda.faces.bindings.runtime import cudaError_t
    e = d.refuse("cudaMemcpy", cudaError_t.cudaErrorInvalidMemcpyDirection, "kind 99")
    assert e.code is cudaError_t.cudaErrorInvalidMemcpyDirection and d.last_error() == e
    assert (d.error_log[-1].call, d.error_log[-1].code) == ("cudaMemcpy", 21)
    assert int(DriverError(1, "x").code) == 1 and type(DriverError(cudaError_t(1), "x").code).__name__ == "CUresult"


def test_dot_print_paths(d, tmp_path):
    """graph_debug_dot_print takes str, bytes, None (NULL: INVALID_VALUE) or a readable C-string address."""
    import ctypes
    g = d.graph_create(0)
    refused(d, 1, d.graph_debug_dot_print, g, None, 0)
    refused(d, 1, d.graph_debug_dot_print, g, 0xDEADBEEF000, 0)
    buf = ctypes.create_string_buffer(str(tmp_path / "a.dot").encode())
    d.graph_debug_dot_print(g, ctypes.addressof(buf), 0)
    d.graph_debug_dot_print(g, str(tmp_path / "b.dot").encode(), 0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.dot", "b.dot"]


def test_capture_target_uses_table(d):
    """capture.capture_target_refusal allows reads and refuses destroy, node removal, instantiate, update, move."""
    from simcuda._core.capture import capture_rules as cap
    d.stream_begin_capture(d.s, 0)
    g = d.handles.table[d.stream_get_capture_info(d.s)[2]]
    assert cap.capture_target_refusal(g, "read") is None
    for use in ("destroy", "remove node", "instantiate", "update from", "move"):
        e = cap.capture_target_refusal(g, use)
        assert int(e.code) == 1 and f"graph {g.gid} is the target of capture" in e.why
    x = d.graph_instantiate(d.graph_create(0), 0)
    refused(d, 1, d.graph_exec_update, x, g.handle)
    clone = d.graph_clone(g.handle)
    d.stream_end_capture(d.s)
    assert cap.capture_target_refusal(g, "instantiate") is None and d.graph_get_nodes(clone) == []
