"""Less travelled paths of the capture rule engine, through the core Driver: the unjoined check's graph walks
(edges removed during capture, revisited nodes), edge data, CIG refusals and records, external semaphores,
cuMemFreeAsync in capture, and the 901 of synchronising calls on an invalidated capture (tools/mutate_capture.py)."""
from __future__ import annotations

import ctypes

import pytest

from simcuda import Driver, DriverError, Options
from simcuda._core.capture import capture_rules as cap
from simcuda._core.graphs.graph_model import MEMOP_WAIT_VALUE_32, MEMOP_WRITE_VALUE_32
from simcuda._core.memory.memory_model import DEVICE, HOST, CopyParams, MemsetParams
from simcuda._core.objects import EMPTY

G = 0
ZERO = (0, 0, 0)
PROGRAMMATIC = (0, 0, 1)  # CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC: not a full dependency
PTX = b".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{ ret; }\n"


def make(cig: bool = False, **options) -> tuple:
    """``(driver, function k, [blocking streams s1..s4], [events e0..e3])``, in a CIG (D3D12) context if asked."""
    d = Driver(options=Options(**options)) if options else Driver()
    d.init(0)
    d.ctx_create(0, 0, cig=(1, 0x1000) if cig else None)
    f = d.module_get_function(d.module_load_data(PTX), "k")
    return d, f, [d.stream_create(0) for _ in range(4)], [d.event_create(0) for _ in range(4)]


def launch(d: Driver, f: int, s: int) -> None:
    """Launch ``k`` on ``s``."""
    d.launch_kernel(f, (1, 1, 1), (1, 1, 1), 0, s, [])


def refused(fn, *args) -> DriverError:
    """Call ``fn``; it must raise DriverError, which is returned."""
    with pytest.raises(DriverError) as ei:
        fn(*args)
    return ei.value


def deps(d: Driver, s: int) -> list[int]:
    """The node handles stream ``s`` depends on (cuStreamGetCaptureInfo)."""
    return d.stream_get_capture_info(s)[3]


def join(d: Driver, origin: int, member: int, ev: int) -> None:
    """Record ``ev`` on ``member`` and make ``origin`` wait on it."""
    d.event_record(ev, member)
    d.stream_wait_event(origin, ev, 0)


# -- the unjoined check (spec 4.4) -----------------------------------------------------------------
def _lattice(d: Driver, f: int, s: list[int], e: list[int], depth: int) -> tuple[int, int, int]:
    """Capture on s[0] a chain of ``depth`` diamonds (fork to s[1], join back), with node X of s[2] joined only
    into the last diamond's C node: the ancestor walk meets revisited nodes long before it reaches X.

    Returns ``(graph, X, C of the last diamond)``; the capture is still open, every stream joined.
    """
    d.stream_begin_capture(s[0], G)
    launch(d, f, s[0])
    d.event_record(e[0], s[0])
    d.stream_wait_event(s[2], e[0], 0)
    launch(d, f, s[2])
    x = deps(d, s[2])[0]
    c_last = 0
    for i in range(depth):
        d.event_record(e[1], s[0])
        d.stream_wait_event(s[1], e[1], 0)
        launch(d, f, s[1])  # B
        if i == depth - 1:
            join(d, s[0], s[2], e[3])  # X feeds the last C only
        launch(d, f, s[0])  # C
        c_last = deps(d, s[0])[0]
        join(d, s[0], s[1], e[2])
        launch(d, f, s[0])  # D
    return d.stream_get_capture_info(s[0])[2], x, c_last


def test_unjoined_walk_goes_on_past_revisited_nodes():
    """A fork joined only below many diamonds is found by the ancestor walk, which skips revisited nodes and goes
    on (4.4)."""
    d, f, s, e = make()
    _lattice(d, f, s, e, 30)
    g = d.stream_end_capture(s[0])
    assert len(d.graph_get_nodes(g)) == 2 + 3 * 30
    assert d.stream_is_capturing(s[2]) == cap.NONE


def test_unjoined_walk_follows_an_edge_removed_during_capture_past_revisited_nodes():
    """An edge removed during capture still joins (4.4): the second walk finds X through it, past revisited nodes."""
    d, f, s, e = make()
    g, x, c_last = _lattice(d, f, s, e, 30)
    d.graph_remove_dependencies(g, [x], [c_last], [ZERO])
    assert d.stream_end_capture(s[0]) == g
    assert (x, c_last) not in [(a, b) for a, b, _ in d.graph_get_edges(g)]


def test_join_edge_removed_during_capture_still_counts():
    """Removing the edge that joined a fork, during the capture, does not make the end UNJOINED (4.4)."""
    d, f, s, e = make()
    d.stream_begin_capture(s[0], G)
    launch(d, f, s[0])
    d.event_record(e[0], s[0])
    d.stream_wait_event(s[1], e[0], 0)
    launch(d, f, s[1])
    x = deps(d, s[1])[0]
    join(d, s[0], s[1], e[1])
    launch(d, f, s[0])
    y = deps(d, s[0])[0]
    g = d.stream_get_capture_info(s[0])[2]
    d.graph_remove_dependencies(g, [x], [y], [ZERO])
    assert d.stream_end_capture(s[0]) == g
    assert len(d.graph_get_edges(g)) == 2


def test_removed_programmatic_edge_does_not_join():
    """A removed edge that was not a full dependency (programmatic) does not join its source: 904 (4.4)."""
    d, f, s, e = make()
    d.stream_begin_capture(s[0], G)
    launch(d, f, s[0])
    a = deps(d, s[0])[0]
    d.event_record(e[0], s[0])
    d.stream_wait_event(s[1], e[0], 0)
    launch(d, f, s[1])
    x = deps(d, s[1])[0]
    d.stream_update_capture_dependencies(s[0], [a, x], [ZERO, PROGRAMMATIC], 1)
    launch(d, f, s[0])
    y = deps(d, s[0])[0]
    g = d.stream_get_capture_info(s[0])[2]
    d.graph_remove_dependencies(g, [x], [y], [PROGRAMMATIC])
    err = refused(d.stream_end_capture, s[0])
    assert int(err.code) == 904 and "not an ancestor" in err.why
    assert d.stream_is_capturing(s[1]) == cap.NONE


def test_dangling_programmatic_half_edge_names_its_port():
    """A capture ending with a non-full half-edge is 904, and the why names the edge's from-port (4.4 b)."""
    d, f, s, _e = make()
    d.stream_begin_capture(s[0], G)
    launch(d, f, s[0])
    a = deps(d, s[0])[0]
    d.stream_update_capture_dependencies(s[0], [a], [(1, 0, 1)], 1)
    err = refused(d.stream_end_capture, s[0])
    assert int(err.code) == 904 and "port 1" in err.why
    assert d.stream_is_capturing(s[0]) == cap.NONE


# -- edge data and UpdateCaptureDependencies (spec 3.6) ----------------------------------------------
def test_edge_data_checks_to_port_and_type_not_from_port():
    """Edge data may have any from-port; a to-port other than 0 or a type other than 0/1 is INVALID_VALUE and
    changes nothing (3.6)."""
    d, f, s, _e = make()
    d.stream_begin_capture(s[0], G)
    launch(d, f, s[0])
    a = deps(d, s[0])[0]
    d.stream_update_capture_dependencies(s[0], [a], [(1, 0, 1)], 1)
    assert d.stream_get_capture_info(s[0])[4] == [(1, 0, 1)]
    for bad, why in (((0, 1, 0), "has to_port 1"), ((0, 0, 2), "unknown dependency type 2")):
        err = refused(d.stream_update_capture_dependencies, s[0], [a], [bad], 1)
        assert int(err.code) == 1 and why in err.why
        assert d.stream_get_capture_info(s[0])[4] == [(1, 0, 1)]
    assert d.stream_is_capturing(s[0]) == cap.ACTIVE


def test_add_dependencies_twice_keeps_one():
    """ADD of a node the stream already depends on, or the same node twice, keeps it once (3.6)."""
    d, f, s, _e = make()
    d.stream_begin_capture(s[0], G)
    launch(d, f, s[0])
    a = deps(d, s[0])[0]
    g = d.stream_get_capture_info(s[0])[2]
    b = d.graph_add_empty_node(g, [])
    d.stream_update_capture_dependencies(s[0], [b, b, a], [ZERO, ZERO, ZERO], 0)
    assert deps(d, s[0]) == [a, b]
    launch(d, f, s[0])
    assert len(d.graph_get_edges(g)) == 2
    d.stream_end_capture(s[0])


# -- external semaphores and memory frees in capture (spec 3.8) -------------------------------------
def test_external_semaphore_calls_are_captured_as_their_node_types():
    """cuSignalExternalSemaphoresAsync and cuWaitExternalSemaphoresAsync in capture add EXT_SEMAS_SIGNAL (8) and
    _WAIT (9) nodes."""
    d, _f, s, _e = make()
    d.stream_begin_capture(s[0], G)
    d.stream_ext_semaphores(s[0], [0x100], [(1, 0)], False)
    d.stream_ext_semaphores(s[0], [0x100], [(1, 0)], True)
    g = d.stream_end_capture(s[0])
    assert [d.graph_node_get_type(n) for n in d.graph_get_nodes(g)] == [8, 9]


def test_graph_allocation_freed_twice_in_capture_is_invalid_value():
    """The second cuMemFreeAsync of one graph allocation in a capture is INVALID_VALUE; the capture keeps one free
    node."""
    d, _f, s, _e = make()
    d.stream_begin_capture(s[0], G)
    p = d.mem_alloc_async(256, s[0])
    d.mem_free_async(p, s[0])
    err = refused(d.mem_free_async, p, s[0])
    assert int(err.code) == 1 and "already freed" in err.why
    assert d.stream_is_capturing(s[0]) == cap.ACTIVE
    g = d.stream_end_capture(s[0])
    assert [d.graph_node_get_type(n) for n in d.graph_get_nodes(g)] == [10, 11]


def test_free_async_on_an_invalidated_capture_is_901():
    """cuMemFreeAsync on a stream whose capture is invalidated is 901, and the allocation stays live (3.8, 5.1)."""
    d, _f, s, _e = make()
    p = d.mem_alloc(256)
    d.stream_begin_capture(s[0], G)
    assert int(refused(d.stream_synchronize, s[0]).code) == 900
    assert int(refused(d.mem_free_async, p, s[0]).code) == 901
    assert d.memory.find(p) is not None
    assert int(refused(d.stream_end_capture, s[0]).code) == 901


# -- synchronising an invalidated capture (spec 5.3, 6.1) ---------------------------------------------
def test_sync_of_an_invalidated_capturing_stream_is_901():
    """cuStreamSynchronize of a stream whose capture is already invalidated is 901, not 900 (5.3) [I]."""
    d, _f, s, _e = make()
    d.stream_begin_capture(s[0], G)
    assert int(refused(d.stream_synchronize, s[0]).code) == 900
    assert int(refused(d.stream_synchronize, s[0]).code) == 901
    assert d.stream_is_capturing(s[0]) == cap.INVALIDATED


def test_synchronous_copy_on_an_invalidated_per_thread_capture_is_901():
    """In per-thread mode a synchronous cuMemcpy on the capturing per-thread stream is 900, then 901 once
    invalidated (6.1) [I]."""
    d, _f, _s, _e = make(per_thread_default_stream=True)
    dptr = d.mem_alloc(64)
    buf = ctypes.create_string_buffer(64)
    d.stream_begin_capture(2, G)  # CU_STREAM_PER_THREAD
    copy = CopyParams(HOST, buf, DEVICE, dptr, 16)
    assert int(refused(d.memcpy, copy, None, "cuMemcpyHtoD").code) == 900
    assert d.stream_is_capturing(2) == cap.INVALIDATED
    err = refused(d.memcpy, copy, None, "cuMemcpyHtoD")
    assert int(err.code) == 901 and "was invalidated by cuMemcpyHtoD" in err.why
    assert int(refused(d.stream_end_capture, 2).code) == 901


def test_ctx_wait_on_an_event_captured_in_another_context_invalidates_that_capture():
    """cuCtxWaitEvent on an event captured in another context's capture is 900 and invalidates that capture (5.3)."""
    d, _f, _s, _e = make()
    ctx_a = d.ctx_get_current()
    d.ctx_create(0, 0)
    sb, eb = d.stream_create(0), d.event_create(0)
    d.stream_begin_capture(sb, G)
    d.event_record(eb, sb)
    d.ctx_set_current(ctx_a)
    assert int(refused(d.ctx_wait_event, ctx_a, eb).code) == 900
    assert d.stream_is_capturing(sb) == cap.INVALIDATED


# -- CIG capture (spec 8.3) ------------------------------------------------------------------------
@pytest.fixture
def cig():
    """A CIG context with a stream ``s`` in CIG capture, ``s2`` idle, a device buffer and kernel ``k``."""
    d, f, s, e = make(cig=True)
    dptr = d.mem_alloc(256)
    d.memory.device_view(dptr, 256)[:] = bytes(256)
    d.stream_begin_capture_to_cig(s[0], 1, 0x2000)
    return d, f, s[0], s[1], e, dptr


def _cig_calls(d: Driver, s: int, dptr: int, seen: list) -> dict:
    """The stream calls a CIG stream refuses (801), by name."""
    return {
        "cuStreamAddCallback": lambda: d.stream_add_callback(s, lambda *a: seen.append(a), None, 0),
        "cuStreamWaitValue32": lambda: d.stream_batch_mem_op(s, [(MEMOP_WAIT_VALUE_32, dptr, 0, 0)], 0,
                                                             "cuStreamWaitValue32"),
        "cuStreamBatchMemOp": lambda: d.stream_batch_mem_op(s, [(MEMOP_WRITE_VALUE_32, dptr, 7, 0)], 0),
        "cuMemAllocAsync": lambda: d.mem_alloc_async(256, s),
        "cuMemFreeAsync": lambda: d.mem_free_async(dptr, s),
    }


@pytest.mark.inferred
@pytest.mark.parametrize("call", ["cuStreamAddCallback", "cuStreamWaitValue32", "cuStreamBatchMemOp",
                                  "cuMemAllocAsync", "cuMemFreeAsync"])
def test_cig_stream_refuses_host_and_memory_operations(cig, call):
    """A CIG stream refuses callbacks, waits/batches of memory operations, and async alloc/free with 801; nothing
    runs and the CIG capture goes on (8.3)."""
    d, f, s, _s2, _e, dptr = cig
    seen: list = []
    err = refused(_cig_calls(d, s, dptr, seen)[call])
    assert int(err.code) == 801 and "CIG capture" in err.why
    assert d.cig_ops(s) == [] and seen == [] and d.launch_log == []
    assert d.memory.find(dptr) is not None and bytes(d.memory.device_view(dptr, 4)) == bytes(4)
    launch(d, f, s)
    assert [k for k, _ in d.stream_end_capture_to_cig(s)] == ["kernel"]


@pytest.mark.inferred
def test_cig_stream_records_copies_sets_kernels_and_graph_launches_without_running_them(cig):
    """A CIG stream records kernels, copies, sets, graph launches and event records, with their labels, and runs
    none of them (8.3)."""
    d, f, s, _s2, e, dptr = cig
    ran: list = []
    d.kernels["k"] = lambda launch_: ran.append(launch_)
    buf = ctypes.create_string_buffer(b"\x05" * 16, 16)
    g = d.graph_create(0)
    d.graph_add_empty_node(g, [])
    x = d.graph_instantiate(g, 0)
    launch(d, f, s)
    d.memcpy(CopyParams(HOST, buf, DEVICE, dptr, 16), s, "cuMemcpyHtoDAsync")
    memset = MemsetParams(dptr + 16, 0xAB, 1, 16)
    d.memset(memset, s, "cuMemsetD8Async")
    d.graph_launch(x, s)
    d.event_record(e[0], s)
    gid = d.handles.graph(g).gid
    assert d.cig_ops(s) == [("kernel", "k"), ("memcpy", CopyParams(HOST, buf, DEVICE, dptr, 16).describe()),
                            ("memset", memset.describe()), ("graph_launch", f"graph_{gid}"),
                            ("event_record", d.handles.event(e[0]).label())]
    assert ran == [] and d.launch_log == [] and bytes(d.memory.device_view(dptr, 32)) == bytes(32)
    assert d.handles.event(e[0]).state == EMPTY  # the record is in the command list; the host-side event is untouched
    assert len(d.stream_end_capture_to_cig(s)) == 5


@pytest.mark.inferred
@pytest.mark.parametrize("node", ["mem_alloc", "mem_free", "batch_mem_op"])
def test_graph_with_memory_nodes_launched_on_cig_stream_is_900(cig, node):
    """cuGraphLaunch onto a CIG stream of a graph holding a MEM_ALLOC, MEM_FREE or BATCH_MEM_OP node is 900; the
    CIG capture goes on (8.3) [I]."""
    d, _f, s, _s2, _e, dptr = cig
    g = d.graph_create(0)
    if node == "batch_mem_op":
        d.graph_add_batch_mem_op_node(g, [], [(MEMOP_WRITE_VALUE_32, dptr, 7, 0)])
    elif node == "mem_alloc":
        d.graph_add_mem_alloc_node(g, [], 256)
    else:  # a free node alone: it frees an allocation made by another graph
        _a, p = d.graph_add_mem_alloc_node(d.graph_create(0), [], 256)
        d.graph_add_mem_free_node(g, [], p)
    x = d.graph_instantiate(g, 0)
    err = refused(d.graph_launch, x, s)
    assert int(err.code) == 900 and "CIG" in err.why
    assert d.cig_ops(s) == [] and d.launch_log == []
    d.stream_end_capture_to_cig(s)


@pytest.mark.inferred
def test_cig_stream_cannot_fork_into_a_capture(cig):
    """A CIG stream waiting on an event captured by an ACTIVE capture is 900; the capture and the CIG capture go on
    unchanged (4.1, 8.3)."""
    d, f, s, s2, e, _dptr = cig
    d.stream_begin_capture(s2, G)
    launch(d, f, s2)
    d.event_record(e[1], s2)
    err = refused(d.stream_wait_event, s, e[1], 0)
    assert int(err.code) == 900 and "CIG capture" in err.why
    assert d.stream_is_capturing(s2) == cap.ACTIVE and d.capture_info(s2)["members"] == [s2]
    assert d.stream_is_capturing(s) == cap.NONE and d.cig_ops(s) == []
    assert len(d.graph_get_nodes(d.stream_end_capture(s2))) == 1
    d.stream_end_capture_to_cig(s)


def test_begin_to_graph_refuses_a_dependency_of_another_graph_or_destroyed():
    """cuStreamBeginCaptureToGraph with a dependency that is not a live node of the target graph (another
    graph's, destroyed, or no node) is INVALID_VALUE and begins nothing (spec 3.2)."""
    d, _f, (s1, *_), _ = make()
    g, other = d.graph_create(0), d.graph_create(0)
    own = d.graph_add_empty_node(g, [])
    foreign = d.graph_add_empty_node(other, [])
    gone = d.graph_add_empty_node(g, [])
    d.graph_destroy_node(gone)
    for bad in (foreign, gone, 0xBAD0):
        assert int(refused(d.stream_begin_capture_to_graph, s1, g, [own, bad], [ZERO, ZERO], G).code) == 1
        assert d.stream_is_capturing(s1) == cap.NONE and d.handles.graph(g).capture_target_of is None
    d.stream_begin_capture_to_graph(s1, g, [own], [ZERO], G)
    assert d.stream_get_capture_info(s1)[3] == [own]


def test_child_node_nesting_refuses_an_exec_with_memory_nodes():
    """With graph_launch_in_capture="child-node", an exec holding MEM_ALLOC/MEM_FREE nodes launched into a capture
    is INVALID_VALUE and the capture stays ACTIVE with no node added; a plain exec becomes a GRAPH node owned by
    that node."""
    d, f, (s1, s2, *_), _ = make(graph_launch_in_capture="child-node")
    d.stream_begin_capture(s2, G)
    p = d.mem_alloc_async(256, s2)
    d.mem_free_async(p, s2)
    x_mem = d.graph_instantiate(d.stream_end_capture(s2), 0)
    d.stream_begin_capture(s2, G)
    launch(d, f, s2)
    x_plain = d.graph_instantiate(d.stream_end_capture(s2), 0)
    d.stream_begin_capture(s1, G)
    assert int(refused(d.graph_launch, x_mem, s1).code) == 1
    assert d.stream_is_capturing(s1) == cap.ACTIVE and d.stream_get_capture_info(s1)[5] == 0
    d.graph_launch(x_plain, s1)
    (node,) = d.stream_get_capture_info(s1)[3]
    child = d.handles.graph(d.graph_child_graph_node_get_graph(node))
    assert child.owner_node is d.handles.node(node)
