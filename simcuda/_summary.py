"""What ``simcuda run`` reports after a script: captures, graphs (with node counts and edges), launches.

:class:`Recorder` watches an ordinary :class:`simcuda.Driver` through its entry hooks and remembers
every graph the program built, even after the program destroys it (NVIDIA's samples destroy all their
graphs before exiting): just before ``cuGraphDestroy`` / ``cudaGraphDestroy`` succeeds it keeps a
:class:`GraphRecord` snapshot. It knows how each graph was made (``cuGraphCreate``, stream
capture, ``cuGraphClone``). Nothing here changes what the driver does.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import weakref
from collections import Counter
from typing import Any, TextIO

import attrs

from ._core import graph as gr
from ._core.driver import Driver
from ._core.errors import DriverError
from ._generated.driver_enums import CUresult
from ._generated.runtime_enums import cudaError_t

__all__ = ["GraphRecord", "Recorder", "RecordingDriver", "graph_records", "summary_text", "explain_text", "write_dots"]


@attrs.frozen
class GraphRecord:
    """A snapshot of one graph, for summaries.

    Attributes:
        gid: the graph id (``graph_<gid>`` in DOT text).
        handle: the graph handle.
        origin: ``"stream capture"``, ``"cuGraphCreate"`` or ``"clone of graph N"``.
        nodes: ``(local id, type keyword, description)`` per node, creation order.
        edges: ``(from local id, to local id)`` per edge, creation order.
        dot: the DOT text (default flags) at the time of the snapshot.
        destroyed: whether the program destroyed the graph.
    """

    gid: int
    handle: int
    origin: str
    nodes: tuple[tuple[int, str, str], ...]
    edges: tuple[tuple[int, int], ...]
    dot: str
    destroyed: bool

    def type_counts(self) -> dict[str, int]:
        """Node count per type keyword, most common first (ties by name)."""
        c = Counter(t for _, t, _ in self.nodes)
        return dict(sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))


def _snapshot(g: gr.Graph, origin: str, destroyed: bool) -> GraphRecord:
    live = g.live_nodes()
    return GraphRecord(
        gid=g.gid, handle=g.handle, origin=origin,
        nodes=tuple((n.local_id, gr.TYPE_KEYWORDS.get(n.type, str(n.type)), n.describe()) for n in live),
        edges=tuple((src.local_id, dst.local_id) for src, dst, _ed in gr.edge_list(g)),
        dot=gr.dot_text(g, 0), destroyed=destroyed)


class Recorder:
    """Remembers, for one driver, each graph the program destroys (a :class:`GraphRecord` snapshot taken just
    before ``cuGraphDestroy`` succeeds) and which graphs are clones of which. It observes the driver through
    :meth:`simcuda.Driver.add_hook` and changes nothing the driver does; used by ``simcuda run``.

    Attributes:
        destroyed_graphs: the snapshots, in destroy order.
        clone_of: clone graph id -> source graph id.
    """

    def __init__(self) -> None:
        self.destroyed_graphs: list[GraphRecord] = []
        self.clone_of: dict[int, int] = {}

    def attach(self, drv: Driver) -> Driver:
        """Start recording ``drv`` (returns it); :func:`graph_records` then includes what it recorded."""
        _RECORDERS[drv] = self
        drv.add_hook("graph_clone", after=self._cloned)
        drv.add_hook("graph_destroy", before=self._before_destroy, after=self._destroyed)
        return drv

    def _cloned(self, drv: Driver, args: tuple[Any, ...], kwargs: dict[str, Any], result: int, _token: Any) -> None:
        self.clone_of[drv._graph(result).gid] = drv._graph(int(args[0])).gid

    def _before_destroy(self, drv: Driver, args: tuple[Any, ...], kwargs: dict[str, Any]) -> GraphRecord | None:
        try:
            g = drv._graph(int(args[0]))
        except (DriverError, TypeError, ValueError):
            return None
        return _snapshot(g, self._origin(drv, g), True) if g.owner_node is None else None

    def _destroyed(self, drv: Driver, args: tuple[Any, ...], kwargs: dict[str, Any], result: None,
                   rec: GraphRecord | None) -> None:
        if rec is not None:
            self.destroyed_graphs.append(rec)

    def _origin(self, drv: Driver, g: gr.Graph) -> str:
        if any(c is g for c in drv.graphs_from_captures()):
            return "stream capture"
        src = self.clone_of.get(g.gid)
        return f"clone of graph {src}" if src is not None else "cuGraphCreate"


_RECORDERS: weakref.WeakKeyDictionary[Driver, Recorder] = weakref.WeakKeyDictionary()


def RecordingDriver(*args: Any, **kwargs: Any) -> Driver:
    """A fresh :class:`simcuda.Driver` (same arguments) with a :class:`Recorder` attached; used by ``simcuda run``."""
    return Recorder().attach(Driver(*args, **kwargs))


def graph_records(drv: Driver) -> list[GraphRecord]:
    """Every top-level graph of ``drv``: destroyed ones (when a :class:`Recorder` watches it) and
    live ones, ordered by graph id."""
    rec = _RECORDERS.get(drv)
    recs = list(rec.destroyed_graphs) if rec is not None else []
    captured = drv.graphs_from_captures()
    clone_of = rec.clone_of if rec is not None else {}
    for g in drv.all_graphs():
        seq = g.capture_target_of
        if seq is not None:
            origin = (f"target of capture {seq.id}, still open: cuStreamEndCapture was never called on its "
                      "origin")
        elif any(c is g for c in captured):
            origin = "stream capture"
        elif g.gid in clone_of:
            origin = f"clone of graph {clone_of[g.gid]}"
        else:
            origin = "cuGraphCreate"
        with drv._lock:
            recs.append(_snapshot(g, origin, False))
    return sorted(recs, key=lambda r: r.gid)


def _launches(drv: Driver) -> dict[int, set[tuple[int, int]]]:
    out: dict[int, set[tuple[int, int]]] = {}
    for r in drv.launch_log:
        if r.source == "graph":
            out.setdefault(r.graph_id, set()).add((r.exec_handle, r.launch))
    return out


def summary_text(drv: Driver, title: str = "", explained: bool = False) -> str:
    """The ``simcuda run`` summary: captures begun/ended, each graph with node counts by type and edge
    count, graph launches, failed calls."""
    st = drv.stats
    lines = [f"simcuda summary{': ' + title if title else ''}",
             f"  captures: {st.get('captures_begun', 0)} begun, {st.get('captures_ended', 0)} ended"]
    recs = graph_records(drv)
    launched = _launches(drv)
    lines.append(f"  graphs: {len(recs)}")
    for r in recs:
        counts = ", ".join(f"{k} {v}" for k, v in r.type_counts().items()) or "no nodes"
        runs = len(launched.get(r.gid, ()))
        lines.append(f"    graph {r.gid} ({r.origin}{', destroyed' if r.destroyed else ''}): "
                     f"{len(r.nodes)} node{'s' if len(r.nodes) != 1 else ''} ({counts}), "
                     f"{len(r.edges)} edge{'s' if len(r.edges) != 1 else ''}"
                     + (f", launched {runs} time{'s' if runs != 1 else ''}" if runs else ""))
    lines.append(f"  graph launches: {st.get('graph_launches', 0)}")
    lines.append(f"  kernel launch calls (cuLaunchKernel and friends, captured or not): {st.get('kernel_launches', 0)}")
    missing = drv.kernels_without_implementation
    if missing:
        shown = ", ".join(f"{name} ({n} run{'s' if n != 1 else ''})" for name, n in sorted(missing.items()))
        lines.append(f"  kernels with no Python implementation (recorded only, their results not computed): {shown}; "
                     "register one with simcuda.kernel(name) or --kernels FILE")
    nerr = len(drv.error_log)
    if nerr:
        lines.append(f"  failed calls: {nerr}" + ("" if explained else " (run with --explain to see each one and why)"))
    return "\n".join(lines) + "\n"


def _code_name(call: str, code: int) -> str:
    if call.startswith("cuda") and code in cudaError_t:
        return cudaError_t(code).name
    try:
        return CUresult(code).name
    except ValueError:
        return str(code)


def explain_text(drv: Driver) -> str:
    """Every non-success result of the run, in order, with its code and ``why``."""
    if not drv.error_log:
        return "simcuda explain: every call succeeded\n"
    lines = [f"simcuda explain: {len(drv.error_log)} failed call(s)"]
    for i, rec in enumerate(drv.error_log, 1):
        lines.append(f"  {i}. {rec.call} -> {_code_name(rec.call, rec.code)} ({rec.code}) [thread {rec.thread}]")
        lines.append(f"     why: {rec.why}")
    return "\n".join(lines) + "\n"


def write_dots(drv: Driver, folder: str, png: bool = False, log: TextIO | None = None) -> list[str]:
    """Write ``graph_<id>.dot`` for every graph into ``folder`` (created if needed); with ``png``, also
    render ``graph_<id>.png`` with Graphviz ``dot`` when it is installed (a notice otherwise).

    Returns the paths written.
    """
    os.makedirs(folder, exist_ok=True)
    written = []
    dot_exe = shutil.which("dot") if png else None
    if png and dot_exe is None and log is not None:
        log.write("simcuda: Graphviz 'dot' is not installed; skipping --png (the .dot files are written)\n")
    for r in graph_records(drv):
        path = os.path.join(folder, f"graph_{r.gid}.dot")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(r.dot)
        written.append(path)
        if dot_exe:
            out = path[:-4] + ".png"
            res = subprocess.run([dot_exe, "-Tpng", path, "-o", out], capture_output=True, text=True)
            if res.returncode == 0:
                written.append(out)
            elif log is not None:
                log.write(f"simcuda: dot failed on {path}: {res.stderr.strip()}\n")
    return written
