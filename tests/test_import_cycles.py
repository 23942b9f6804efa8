"""No import cycle inside simcuda, of any kind (issue 18 item 1).

Every module of the package is parsed with :mod:`ast` (never imported), and every ``import`` of a simcuda
module is an edge: top-level imports, imports inside functions (lazy) and ``if TYPE_CHECKING:`` imports alike,
since each closes a loop a reader has to hold in mind. A module importing its own parent package is not an
edge (a package's ``__init__`` runs first anyway). The strongly connected components of that graph with more
than one module are the cycles.

The cycles left are listed in :data:`KNOWN` with the reason each is still there; the test fails on a new
cycle, and on a known one that has grown (a module joining it). Removing a cycle needs no change here
(a component that shrank or vanished passes); delete its entry when it is gone.
"""
from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "simcuda"

_CORE = "simcuda._core."

#: cycles not removed yet: (the modules of the component, why it is still there)
KNOWN: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({
        "simcuda._core.capture.capture_enqueue",
        "simcuda._core.capture.capture_rules",
        "simcuda._core.graphs.graph_exec",
        "simcuda._core.graphs.graph_model",
        "simcuda._core.graphs.graph_update",
        "simcuda._core.graphs.node_params",
        "simcuda._core.graphs.nodes",
        "simcuda._core.memory.memory_model",
        "simcuda._core.objects",
    }),
     "the records of the state model name each other's types, in TYPE_CHECKING imports only (no runtime edge): "
     "a stream names its capture, its pending operations (capture_enqueue) and its deps' nodes (objects), "
     "a capture its graph (capture), a graph the capture "
     "it is the target of (graph), a node's parameter record its child graph (node_params), an allocation its "
     "MEM_ALLOC node and exec "
     "(memory), an exec body and an exec update the allocations they map (graph_exec, "
     "graph_update); no module boundary makes it, so the folder layout (issue 18 item 4) keeps it; "
     "it goes when those records stop naming each other's types. The edges that point up the runtime layering "
     "(objects < memory_model < node_params < nodes < graph_model < capture_rules < graph_exec < graph_update < "
     "capture_enqueue), all TYPE_CHECKING: objects -> capture_enqueue (Op: Stream.deferred), capture_rules "
     "(CaptureSequence: Stream.capture, Event.capture), graph_model (Node: Dep); memory_model -> graph_exec "
     "(GraphExec: Allocation.outstanding), graph_model (Node: Allocation.graph_node, free_node); node_params and "
     "nodes -> graph_model (Graph: ChildGraphParams.graph, the conditional bodies, NodeKind.copy); graph_model -> "
     "capture_rules (CaptureSequence: Graph.capture_target_of). The driver, its "
     "services and entry groups are outside every cycle: the rule engine, graph model and node kinds are typed "
     "against Protocols (CaptureHost, GraphHost, RunHost, BuildHost, ReplayHost, KernelHost)"),
)


def _modules() -> dict[str, pathlib.Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    out = {}
    for p in PACKAGE.rglob("*.py"):
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = p
    return out


def _targets(name: str, is_pkg: bool, node: ast.Import | ast.ImportFrom, known: dict[str, pathlib.Path]) -> set[str]:
    """The simcuda modules one import statement names (``from a import b`` names ``a.b`` when it is a module)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = name.split(".") if is_pkg else name.split(".")[:-1]
            base = base[:len(base) - (node.level - 1)]
            mod = ".".join(base + ([node.module] if node.module else []))
        else:
            mod = node.module or ""
        names = [mod] + [f"{mod}.{a.name}" for a in node.names]
    found = set()
    for n in names:
        while n and n not in known:
            n = n.rpartition(".")[0]
        if n.startswith("simcuda"):
            found.add(n)
    return found


def _type_checking_imports(tree: ast.Module) -> set[int]:
    """``id()`` of the import statements under an ``if TYPE_CHECKING:`` block."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out |= {id(n) for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))}
    return out


def import_graph(type_checking: bool = True) -> dict[str, set[str]]:
    """module -> the simcuda modules it imports anywhere in its body (parents of itself left out); without
    ``type_checking``, the imports under ``if TYPE_CHECKING:`` are left out (what runs)."""
    known = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        deps: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        skip = set() if type_checking else _type_checking_imports(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in skip:
                deps |= _targets(name, path.name == "__init__.py", node, known)
        graph[name] = {d for d in deps if d != name and not name.startswith(d + ".")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.add(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    found.append(frozenset(comp))
    return found


def test_finder_sees_a_lazy_cycle():
    """The finder reports a two-module cycle closed by a lazy import, and nothing for a chain."""
    assert cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [frozenset({"a", "b"})]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_native_route_stands_on_the_core():
    """The native route imports no Python face module (issue 18 item 1: the core and the generated layouts)."""
    graph = import_graph()
    native = {m: deps for m, deps in graph.items() if m.startswith("simcuda.faces.native")}
    faces = {(m, d) for m, deps in native.items() for d in deps if d.startswith("simcuda.faces.bindings")}
    assert native and faces == set()


def test_no_new_import_cycle():
    """Every import cycle in simcuda is a known one (or part of one) with a reason; none is new or grown."""
    unexplained = []
    for comp in cycles(import_graph()):
        if not any(comp <= known for known, _why in KNOWN):
            unexplained.append(sorted(comp))
    assert unexplained == [], f"import cycles not in KNOWN: {unexplained}"


def test_the_core_has_no_runtime_cycle():
    """The imports that run (top-level and lazy ones) form no cycle in simcuda._core: the one known cycle there is
    of TYPE_CHECKING imports only."""
    core = [sorted(c) for c in cycles(import_graph(type_checking=False)) if any(m.startswith(_CORE) for m in c)]
    assert core == []
