"""Graph, GraphNode, MemcpyDirection and GraphExec of the oxicuda-style face."""
from __future__ import annotations

import copy
import ctypes
import pickle

import pytest

import simcuda
from simcuda.faces.oxicuda import driver_objects as oxicuda_handles
from simcuda.faces.oxicuda.stream_capture import (
    CudaError,
    Graph,
    GraphExec,
    GraphNode,
    MemcpyDirection,
    Stream,
    StreamCapture,
)


# -- Display strings ---------------------------------------------------------------------------
def test_memcpy_direction_display():
    """MemcpyDirection prints as HtoD / DtoH / DtoD and has exactly oxicuda's three members."""
    assert [str(d) for d in MemcpyDirection] == ["HtoD", "DtoH", "DtoD"]
    assert f"{MemcpyDirection.DeviceToDevice}" == "DtoD"
    assert [d.name for d in MemcpyDirection] == ["HostToDevice", "DeviceToHost", "DeviceToDevice"]
    assert repr(MemcpyDirection.HostToDevice) == "MemcpyDirection.HostToDevice"


def test_graph_node_display_strings():
    """Each GraphNode variant prints with oxicuda's Display format."""
    assert str(GraphNode.KernelLaunch("vector_add", (4, 1, 1), (256, 1, 1), 0)) == \
        "Kernel(vector_add, grid=(4,1,1), block=(256,1,1), smem=0)"
    assert str(GraphNode.Memcpy(MemcpyDirection.HostToDevice, 4096)) == "Memcpy(HtoD, 4096 bytes)"
    assert str(GraphNode.Memset(1024, 0xAB)) == "Memset(1024 bytes, value=0xab)"
    assert str(GraphNode.Memset(1, 5)) == "Memset(1 bytes, value=0x05)"
    assert str(GraphNode.Empty) == "Empty"


def test_graph_node_values_are_frozen_comparable_and_repr_roundtrips():
    """GraphNodes compare by value, are hashable and immutable, and their repr evaluates back."""
    k = GraphNode.KernelLaunch("k", [1, 2, 3], (4, 5, 6), 7)
    assert k.grid == (1, 2, 3) and k == GraphNode.Kernel("k", (1, 2, 3), (4, 5, 6), 7)
    assert len({k, GraphNode.Kernel("k", (1, 2, 3), (4, 5, 6), 7), GraphNode.Empty}) == 2
    with pytest.raises(AttributeError):
        k.shared_mem = 1  # type: ignore[misc]
    for node in (k, GraphNode.Memcpy(MemcpyDirection.DeviceToHost, 9), GraphNode.Memset(3, 255), GraphNode.Empty):
        assert eval(repr(node), {"GraphNode": GraphNode, "MemcpyDirection": MemcpyDirection}) == node
        assert pickle.loads(pickle.dumps(node)) == node
        assert isinstance(node, GraphNode)
    assert pickle.loads(pickle.dumps(GraphNode.Empty)) is GraphNode.Empty


def test_graph_node_argument_types():
    """Out-of-range integers raise OverflowError and wrong types TypeError, as Rust's types would refuse."""
    with pytest.raises(OverflowError):
        GraphNode.Memset(4, -1)
    with pytest.raises(OverflowError):
        GraphNode.KernelLaunch("k", (1 << 32, 1, 1), (1, 1, 1), 0)
    with pytest.raises(TypeError):
        GraphNode.KernelLaunch("k", (1.5, 1, 1), (1, 1, 1), 0)
    with pytest.raises(TypeError):
        GraphNode.KernelLaunch("k", "abc", (1, 1, 1), 0)
    with pytest.raises(TypeError):
        GraphNode.Memcpy(1, 4)


def test_graph_display_and_module_example():
    """The oxicuda module example: 3 nodes, 2 deps, Display Graph(3 nodes, 2 deps)."""
    g = Graph.new()
    n0 = g.add_memcpy_node(MemcpyDirection.HostToDevice, 4096)
    n1 = g.add_kernel_node("vector_add", (4, 1, 1), (256, 1, 1), 0)
    n2 = g.add_memcpy_node(MemcpyDirection.DeviceToHost, 4096)
    g.add_dependency(n0, n1)
    g.add_dependency(n1, n2)
    assert (n0, n1, n2) == (0, 1, 2)
    assert g.node_count() == 3 and g.dependency_count() == 2
    assert str(g) == "Graph(3 nodes, 2 deps)"
    assert str(Graph()) == "Graph(0 nodes, 0 deps)" == str(Graph.default())


def test_graph_accessors():
    """nodes(), dependencies() and get_node() return copies / values, None out of range."""
    g = Graph()
    e = g.add_empty_node()
    m = g.add_memset_node(16, 0)
    g.add_dependency(e, m)
    assert g.nodes() == [GraphNode.Empty, GraphNode.Memset(16, 0)]
    g.nodes().clear()
    g.dependencies().clear()
    assert g.node_count() == 2 and g.dependencies() == [(0, 1)]
    assert g.get_node(1) == GraphNode.Memset(16, 0)
    assert g.get_node(2) is None and g.get_node(-1) is None


def test_add_dependency_keeps_duplicates():
    """Duplicate edges are kept and counted, as in oxicuda."""
    g = Graph()
    a, b = g.add_empty_node(), g.add_empty_node()
    g.add_dependency(a, b)
    g.add_dependency(a, b)
    assert g.dependency_count() == 2
    assert g.dependencies() == [(0, 1), (0, 1)]
    assert g.topological_sort() == [0, 1]


def test_add_dependency_out_of_range_or_self_is_invalid_value():
    """An index outside the graph (negative included) or a self-edge raises InvalidValue and adds nothing."""
    g = Graph()
    g.add_empty_node()
    g.add_empty_node()
    for a, b in ((0, 2), (2, 0), (-1, 0), (1, 1), (5, 5)):
        with pytest.raises(CudaError) as ei:
            g.add_dependency(a, b)
        assert ei.value == CudaError.InvalidValue
    assert g.dependency_count() == 0
    with pytest.raises(TypeError):
        g.add_dependency("0", 1)


def test_topological_sort_uses_oxicuda_lifo_order():
    """Kahn's algorithm with a LIFO work list: last ready node first, as oxicuda computes it."""
    g = Graph()
    for _ in range(4):
        g.add_empty_node()
    assert g.topological_sort() == [3, 2, 1, 0]
    g.add_dependency(0, 1)
    g.add_dependency(0, 2)
    g.add_dependency(1, 3)
    g.add_dependency(2, 3)
    assert g.topological_sort() == [0, 2, 1, 3]


def test_topological_sort_cycle_is_invalid_value():
    """A dependency cycle makes topological_sort and instantiate raise InvalidValue."""
    g = Graph()
    for _ in range(3):
        g.add_empty_node()
    g.add_dependency(0, 1)
    g.add_dependency(1, 2)
    g.add_dependency(2, 1)  # cycles are not checked when adding
    with pytest.raises(CudaError.InvalidValue) as ei:
        g.topological_sort()
    assert "cycle" in ei.value.why and "[1, 2]" in ei.value.why
    with pytest.raises(CudaError) as ei2:
        g.instantiate()
    assert ei2.value == CudaError.InvalidValue


def test_graph_repr_is_valid_python_and_clone_is_independent():
    """repr(Graph) evaluates to an equal graph; clone() and copy.copy() are independent copies."""
    g = Graph()
    g.add_kernel_node("k", (1, 1, 1), (2, 1, 1), 0)
    g.add_memset_node(8, 1)
    g.add_dependency(0, 1)
    names = {"Graph": Graph, "GraphNode": GraphNode, "MemcpyDirection": MemcpyDirection}
    back = eval(repr(g), names)
    assert back.nodes() == g.nodes() and back.dependencies() == g.dependencies()
    c = copy.copy(g)
    c.add_empty_node()
    assert g.node_count() == 2 and c.node_count() == 3
    with pytest.raises(CudaError.InvalidValue):
        Graph(nodes=[GraphNode.Empty], dependencies=[(0, 0)])


def test_instantiate_snapshot_and_execution_order():
    """instantiate freezes a copy and its topological order; later edits to the graph do not matter."""
    g = Graph()
    for _ in range(3):
        g.add_empty_node()
    g.add_dependency(2, 0)
    x = g.instantiate()
    assert isinstance(x, GraphExec)
    assert x.execution_order() == g.topological_sort() == [2, 0, 1]
    assert x.node_count() == 3
    g.add_empty_node()
    assert x.node_count() == 3 and str(x.graph()) == "Graph(3 nodes, 1 deps)"
    assert str(x) == "GraphExec(3 nodes, order=[2, 0, 1])"
    assert repr(x).startswith("GraphExec { graph: Graph(")


# -- launch on the simulated driver ------------------------------------------------------------
def test_launch_replays_onto_the_driver_launch_log(drv):
    """launch lowers the graph to a real simulated graph and replays it in execution order."""
    g = Graph()
    h2d = g.add_memcpy_node(MemcpyDirection.HostToDevice, 256)
    k = g.add_kernel_node("vector_add", (4, 1, 1), (64, 1, 1), 0)
    d2h = g.add_memcpy_node(MemcpyDirection.DeviceToHost, 256)
    g.add_dependency(h2d, k)
    g.add_dependency(k, d2h)
    x = g.instantiate()
    stream = Stream.new()
    x.launch(stream)
    log = drv.launch_log
    assert [(r.source, r.kind) for r in log] == [("graph", "MEMCPY"), ("graph", "KERNEL"), ("graph", "MEMCPY")]
    assert [r.detail for r in log] == ["HtoD 256 bytes", "vector_add<<<(4, 1, 1),(64, 1, 1),0>>>", "DtoH 256 bytes"]
    assert all(r.stream == stream.raw() and r.launch == 1 for r in log)
    assert [x.execution_order()[r.node] for r in log] == [h2d, k, d2h]
    x.launch(stream)
    assert len(drv.launch_log) == 6 and drv.launch_log[-1].launch == 2
    assert len({r.exec_handle for r in drv.launch_log}) == 1  # instantiated once, launched twice
    assert drv.stats["graph_launches"] == 2


def test_launch_order_follows_execution_order_for_independent_nodes(drv):
    """Independent nodes replay in oxicuda's execution order (last ready first), not index order."""
    g = Graph()
    g.add_memset_node(4, 1)
    g.add_kernel_node("a", (1, 1, 1), (1, 1, 1), 0)
    g.add_empty_node()
    x = g.instantiate()
    x.launch(Stream.new())
    assert x.execution_order() == [2, 1, 0]
    assert [r.kind for r in drv.launch_log] == ["EMPTY", "KERNEL", "MEMSET"]


def test_launch_moves_real_bytes_through_scratch(drv):
    """A memset then a DtoH copy of the same size leaves the set bytes in the host scratch buffer."""
    g = Graph()
    s = g.add_memset_node(16, 0xAB)
    c = g.add_memcpy_node(MemcpyDirection.DeviceToHost, 16)
    g.add_dependency(s, c)
    stream = Stream.new()
    g.instantiate().launch(stream)
    host = oxicuda_handles.scratch_buffer(drv).host[(stream.context_handle(), 16)]
    assert ctypes.string_at(host, 16) == b"\xab" * 16


def test_launch_runs_registered_python_kernel(drv):
    """A Python kernel registered on the driver under the node's name runs once per launch."""
    calls = []
    drv.kernels["counted"] = lambda launch: calls.append((launch.grid, launch.block, launch.shared_mem))
    g = Graph()
    g.add_kernel_node("counted", (2, 1, 1), (8, 1, 1), 64)
    x = g.instantiate()
    stream = Stream.new()
    x.launch(stream)
    x.launch(stream.raw())
    assert calls == [((2, 1, 1), (8, 1, 1), 64)] * 2
    assert drv.launch_log[0].note == "ran Python kernel"


def test_launch_of_captured_graph_replays_the_capture(drv):
    """A graph from StreamCapture.end instantiates and replays its nodes in order."""
    stream = Stream.new()
    with StreamCapture.begin(stream) as cap:
        cap.record_kernel("my_kernel", (4, 1, 1), (256, 1, 1), 0)
        cap.record_memcpy(MemcpyDirection.DeviceToHost, 1024)
    cap.graph.instantiate().launch(stream)
    assert [r.kind for r in drv.launch_log] == ["KERNEL", "MEMCPY"]


def test_launch_with_duplicate_edges_is_accepted(drv):
    """Duplicate oxicuda edges lower to one driver edge, which the driver would otherwise refuse."""
    g = Graph()
    g.add_empty_node()
    g.add_empty_node()
    g.add_dependency(0, 1)
    g.add_dependency(0, 1)
    g.instantiate().launch(Stream.new())
    assert len(drv.launch_log) == 2


def test_launch_on_unavailable_driver_is_not_initialized():
    """Without a driver, instantiate works (CPU only) but launch raises NotInitialized."""
    simcuda.use(simcuda.Driver(available=False))
    g = Graph()
    g.add_empty_node()
    x = g.instantiate()
    with pytest.raises(CudaError.NotInitialized):
        x.launch(0x1234)


def test_launch_into_capturing_stream_is_unsupported_and_invalidates(drv):
    """Launching into a capturing stream raises StreamCaptureUnsupported and invalidates that capture."""
    g = Graph()
    g.add_memset_node(4, 0)
    x = g.instantiate()
    stream = Stream.new()
    cap = StreamCapture.begin(stream)
    with pytest.raises(CudaError.StreamCaptureUnsupported):
        x.launch(stream)
    with pytest.raises(CudaError.StreamCaptureInvalidated):
        cap.end()


def test_launch_with_bad_kernel_dimensions_is_invalid_value(drv):
    """A zero dimension is accepted by the Graph (as in oxicuda) and refused by the driver at launch."""
    g = Graph()
    g.add_kernel_node("k", (0, 1, 1), (1, 1, 1), 0)
    x = g.instantiate()
    with pytest.raises(CudaError.InvalidValue):
        x.launch(Stream.new())
    assert drv.launch_log == []


def test_launch_needs_a_stream():
    """launch refuses a value that is neither a Stream nor an int handle."""
    g = Graph()
    with pytest.raises(TypeError):
        g.instantiate().launch("stream")
