"""DOT pictures (spec 9.1): parsed with a real DOT parser for every CUgraphDebugDot_flags value."""
from __future__ import annotations

import ctypes
import shutil
import subprocess

import pytest

import simcuda
from simcuda.faces.bindings import driver as cu

from .conftest import err, ok

pydot = pytest.importorskip("pydot")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pyparsing's, raised inside pydot
FLAGS = [0] + [int(m) for m in cu.CUgraphDebugDot_flags]
KEYWORDS = {0: "KERNEL", 1: "MEMCPY", 2: "MEMSET", 3: "HOST", 4: "GRAPH", 5: "EMPTY", 6: "WAIT_EVENT",
            7: "EVENT_RECORD", 8: "EXT_SEMAS_SIGNAL", 9: "EXT_SEMAS_WAIT", 10: "MEM_ALLOC", 11: "MEM_FREE",
            12: "BATCH_MEM_OP"}


def fork_join(env):
    """A captured fork/join: A (kernel) forks to B (memset, s1) and C (HtoD copy, s3); D (host) joins."""
    host = ctypes.create_string_buffer(16)
    env._keep.append(host)

    def body(s1):
        ok(env.launch(env.inc, s1, env.inc_args(env.buf)))
        ok(cu.cuEventRecord(env.e1, s1))
        ok(cu.cuStreamWaitEvent(env.s3, env.e1, 0))
        ok(cu.cuMemsetD8Async(env.buf, 1, 8, s1))
        ok(cu.cuMemcpyHtoDAsync(env.buf, host, 16, env.s3))
        ok(cu.cuEventRecord(env.e2, env.s3))
        ok(cu.cuStreamWaitEvent(s1, env.e2, 0))
        ok(cu.cuLaunchHostFunc(s1, env.host_fn(lambda _u: None), None))
    return env.capture(body)


def parse(text):
    (graph,) = pydot.graph_from_dot_data(text)
    return graph


def clusters(graph):
    return {sg.get_name(): sg for sg in graph.get_subgraphs()}


def node_stmts(sg):
    return [n for n in sg.get_nodes() if n.get_name() not in ("node", "edge", "graph")]


@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: f"flags_{f}")
def test_fork_join_parses_with_one_statement_per_node_and_edge(env, flags):
    """Every single flag (and 0): one cluster, one node statement per node carrying its type keyword and
    local id, one edge per graph edge."""
    g = fork_join(env)
    gid = ok(cu.cuGraphGetId(g))
    graph = parse(simcuda.dot(g, flags))
    cl = clusters(graph)
    assert list(cl) == [f"cluster_{gid}"]
    sg = cl[f"cluster_{gid}"]
    nodes = node_stmts(sg)
    assert [n.get_name().strip('"') for n in nodes] == [f"graph_{gid}_node_{i}" for i in range(4)]
    for i, (n, t) in enumerate(zip(nodes, env.types(g))):
        label = n.get("label")
        assert KEYWORDS[t] in label or (t == 0 and "inc" in label)
        assert str(i) in label
    edges = [(e.get_source().strip('"'), e.get_destination().strip('"')) for e in sg.get_edges()]
    frm, to, _eds, ne = ok(cu.cuGraphGetEdges(g, 4))
    def name(n):
        return f"graph_{gid}_node_{ok(cu.cuGraphNodeGetLocalId(n))}"
    want = [(name(a), name(b)) for a, b in zip(frm, to)]
    assert edges == want and ne == 4


def test_default_layout_matches_spec_9_1(env):
    """Flags 0: kernels are bold octagons named by kernel, others solid rectangles with keyword and detail."""
    text = simcuda.dot(fork_join(env), 0)
    assert text.startswith("digraph dot {\nsubgraph cluster_")
    assert 'graph[style="dashed"]' in text
    assert '[style="bold" shape="octagon" label="0\ninc\n"]' in text
    assert 'shape="rectangle" label="2\nMEMCPY\nHtoD 16 bytes\n"' in text


def test_verbose_and_param_flags_add_parameters(env):
    """VERBOSE gives records with every kind's parameters, handles and topo ids; a kind's flag adds only its
    own parameters; HANDLES adds node and function handles; EXTRA_TOPO_INFO numbers edges."""
    g = fork_join(env)
    F = cu.CUgraphDebugDot_flags
    v = simcuda.dot(g, F.CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE)
    assert v.count('shape="record"') == 4
    for field in ("gridDim", "kind | ", "elementSize", "fn | userData", "topoId", "node handle", "func handle"):
        assert field in v
    assert "HtoD (HOST to DEVICE)" in v and "headlabel=" in v
    k = simcuda.dot(g, F.CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_PARAMS)
    assert k.count('shape="record"') == 1 and "CUDA_KERNEL_NODE_PARAMS" in k and "elementSize" not in k
    m = simcuda.dot(g, F.CU_GRAPH_DEBUG_DOT_FLAGS_MEMCPY_NODE_PARAMS | F.CU_GRAPH_DEBUG_DOT_FLAGS_RUNTIME_TYPES)
    assert "cudaMemcpyHostToDevice" in m and "cudaMemcpy3DParms" in m
    h = simcuda.dot(g, F.CU_GRAPH_DEBUG_DOT_FLAGS_HANDLES)
    (A, *_rest) = env.nodes(g)
    assert f"0x{int(A):x}" in h and f"0x{int(env.inc):x}" in h
    t = simcuda.dot(g, F.CU_GRAPH_DEBUG_DOT_FLAGS_EXTRA_TOPO_INFO)
    assert "(topoId: 3)" in t and "headlabel=1" in t


def test_child_graphs_are_their_own_clusters_and_every_kind_parses(env):
    """A graph holding every simulated node kind and a child graph: clusters for both, all parse verbosely."""
    child = env.kernels(2)
    g = ok(cu.cuGraphCreate(0))
    ok(cu.cuGraphAddChildGraphNode(g, None, 0, child))
    ok(cu.cuGraphAddEventRecordNode(g, None, 0, env.e1))
    ok(cu.cuGraphAddEventWaitNode(g, None, 0, env.e1))
    ap = cu.CUDA_MEM_ALLOC_NODE_PARAMS()
    ap.poolProps.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    ap.poolProps.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    ap.bytesize = 32
    a = ok(cu.cuGraphAddMemAllocNode(g, None, 0, ap))
    ok(cu.cuGraphAddMemFreeNode(g, [a], 1, ap.dptr))
    for flags in (0, 1, 1 | 2):
        graph = parse(simcuda.dot(g, flags))
        gid, cid = ok(cu.cuGraphGetId(g)), ok(cu.cuGraphGetId(ok(cu.cuGraphChildGraphNodeGetGraph(env.nodes(g)[0]))))
        cl = clusters(graph)
        assert list(cl) == [f"cluster_{gid}", f"cluster_{cid}"]
        assert len(node_stmts(cl[f"cluster_{cid}"])) == 2 and len(node_stmts(cl[f"cluster_{gid}"])) == 5


def test_debug_dot_print_writes_the_same_text(env, tmp_path):
    """cuGraphDebugDotPrint writes what simcuda.dot returns; simcuda.dot takes an int handle too."""
    g = fork_join(env)
    path = tmp_path / "g.dot"
    ok(cu.cuGraphDebugDotPrint(g, str(path).encode(), 1))
    assert path.read_text() == simcuda.dot(int(g), 1)
    with pytest.raises(TypeError):
        simcuda.dot("graph")
    with pytest.raises(simcuda.DriverError):
        simcuda.dot(0)
    err(cu.cuGraphDebugDotPrint(None, b"x.dot", 0), 1)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
@pytest.mark.parametrize("flags", [0, 1], ids=["default", "verbose"])
def test_graphviz_renders_a_png(env, tmp_path, flags):
    """Graphviz accepts the text (record labels included) and renders a PNG."""
    src = tmp_path / "g.dot"
    out = tmp_path / "g.png"
    src.write_text(simcuda.dot(fork_join(env), flags))
    r = subprocess.run(["dot", "-Tpng", str(src), "-o", str(out)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
