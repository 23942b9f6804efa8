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
import textwrap
import weakref
from collections import Counter
from collections.abc import Callable
from typing import Any, TextIO

import attrs

from ._core.capture import capture_rules as cap
from ._core.errors import DriverError
from ._core.facade import Driver
from ._core.graphs import graph_dot as gd
from ._core.graphs import graph_model as gr
from ._core.logs import INTERNAL_TITLE
from ._generated.driver_enums import CUresult
from ._generated.runtime_enums import cudaError_t

__all__ = ["EXPLAIN_LIMIT", "GRAPH_LIMIT", "GraphRecord", "Recorder", "RecordingDriver", "graph_records",
           "summary_text", "explain_text", "write_dots"]

#: how many failed calls ``--explain`` shows in full (the rest are counted per entry and code)
EXPLAIN_LIMIT = 20
#: how many graphs the summary lists one per line (the rest are counted by how they were made)
GRAPH_LIMIT = 20
#: what ``--png`` says when Graphviz's ``dot`` is missing
GRAPHVIZ_INSTALL = ("install Graphviz (Debian/Ubuntu: apt install graphviz; macOS: brew install graphviz; conda: "
                    "conda install graphviz)")


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
        dot=gd.dot_text(g, 0), destroyed=destroyed)


@attrs.frozen
class FailedCapture:
    """A capture whose ``cuStreamEndCapture`` returned no graph (901 invalidated, 904 unjoined), as it stood
    when the end was called, for pictures.

    Attributes:
        capture_id: the capture sequence's id (``cuStreamGetCaptureInfo``'s id).
        code: the ``CUresult`` the end returned.
        why: the end's ``why``.
        culprit: ``graph_<gid>_node_<id>`` of the node that broke the rule (the unjoined node, or the source of a
            dangling half-edge), or ``None`` (an invalidated capture: the call that broke it made no node).
        anchor: the node the note points at when there is no culprit (the origin's last work), or ``None``.
        graph_dot: the graph's DOT text as the capture had built it.
        note: what failed (the note's text).
        dot: :attr:`graph_dot` with the culprit drawn red and the red note (:meth:`drawn`).
    """

    capture_id: int
    code: int
    why: str
    culprit: str | None
    anchor: str | None
    graph_dot: str
    note: str

    @property
    def dot(self) -> str:
        """The picture: :meth:`drawn` with the texts as they are."""
        return self.drawn()

    def drawn(self, text: Callable[[str], str] = str) -> str:
        """The picture, with ``text`` applied to the graph's DOT and to the note before the note is wrapped (a
        page that shows addresses as ``0x…`` passes its normaliser, so the wrapping does not depend on them)."""
        return _failed_dot(text(self.graph_dot), self.capture_id, self.culprit, self.anchor, text(self.note))


def _failed_dot(base: str, seq_id: int, culprit: str | None, anchor: str | None, note: str) -> str:
    """A failed capture's DOT text: ``base`` (the graph as it stood) with node ``culprit`` drawn red and a red
    note, linked to the culprit (or to ``anchor``, the origin's last work, when no node broke the rule)."""
    text = base.rstrip()
    assert text.endswith("}")
    lines = [f'"capture_{seq_id}_failure" [shape="note", color="red", fontcolor="red", '
             f'label="{_dot_escape(textwrap.fill(note, 60))}"];']
    if culprit is not None:
        lines.append(f'"{culprit}" [color="red", fontcolor="red", penwidth="3"];')
    target = culprit or anchor
    if target is not None:
        lines.append(f'"capture_{seq_id}_failure" -> "{target}" [color="red", style="dashed"];')
    return text[:-1] + "\n".join(lines) + "\n}\n"


def _dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Recorder:
    """Remembers, for one driver, each graph the program destroys (a :class:`GraphRecord` snapshot taken just
    before ``cuGraphDestroy`` succeeds), which graphs are clones of which, and each capture whose end gave no
    graph (a :class:`FailedCapture`). It observes the driver through :meth:`simcuda.Driver.add_hook` and changes
    nothing the driver does; used by ``simcuda run`` and the pytest plugin.

    Attributes:
        destroyed_graphs: the snapshots, in destroy order.
        clone_of: clone graph id -> source graph id.
        failed_captures: the failed captures, in the order their ends were called.
    """

    def __init__(self) -> None:
        self.destroyed_graphs: list[GraphRecord] = []
        self.clone_of: dict[int, int] = {}
        self.failed_captures: list[FailedCapture] = []

    def attach(self, drv: Driver) -> Driver:
        """Start recording ``drv`` (returns it); :func:`graph_records` then includes what it recorded."""
        _RECORDERS[drv] = self
        drv.add_hook("graph_clone", after=self._cloned)
        drv.add_hook("graph_destroy", before=self._before_destroy, after=self._destroyed)
        drv.add_hook("stream_end_capture", before=self._before_end, failed=self._end_failed)
        return drv

    def _before_end(self, drv: Driver, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """When this end will give no graph (the origin's capture is invalidated, or unjoined: the rule's own
        check, read only), the capture's graph drawn as it stands; ``None`` otherwise (nothing is drawn for
        an end that succeeds, so recording costs a capture nothing)."""
        try:
            s = drv._stream(args[0])
        except (DriverError, TypeError, ValueError):
            return None
        seq = s.capture
        if seq is None or seq.origin is not s:
            return None
        culprit = None
        if seq.status == cap.ACTIVE:
            reason, culprit = cap.unjoined_culprit(seq)
            if not reason:
                return None
        g = seq.graph
        name = f"graph_{g.gid}_node_{culprit.local_id}" if culprit is not None else None
        anchor = next((f"graph_{g.gid}_node_{n.local_id}" for n, _ed in s.deps[-1:]), None)
        return seq.id, gd.dot_text(g, 0), name, anchor, seq.invalidated_by

    def _end_failed(self, drv: Driver, args: tuple[Any, ...], kwargs: dict[str, Any], e: DriverError,
                    token: Any) -> None:
        code = int(e.code)
        if token is None or code not in (901, 904):
            return
        seq_id, base, culprit, anchor, invalidated_by = token
        what = f"capture {seq_id} " + (f"invalidated (901) by {invalidated_by}" if code == 901 else
                                       "unjoined (904)")
        self.failed_captures.append(FailedCapture(seq_id, code, e.why, culprit, anchor, base, what + ": " + e.why))

    def _cloned(self, drv: Driver, args: tuple[Any, ...], kwargs: dict[str, Any], result: int, _token: Any) -> None:
        self.clone_of[drv.handles.graph(result).gid] = drv.handles.graph(int(args[0])).gid

    def _before_destroy(self, drv: Driver, args: tuple[Any, ...], kwargs: dict[str, Any]) -> GraphRecord | None:
        try:
            g = drv.handles.graph(int(args[0]))
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
    for r in recs[:GRAPH_LIMIT]:
        counts = ", ".join(f"{k} {v}" for k, v in r.type_counts().items()) or "no nodes"
        runs = len(launched.get(r.gid, ()))
        lines.append(f"    graph {r.gid} ({r.origin}{', destroyed' if r.destroyed else ''}): "
                     f"{_plural(len(r.nodes), 'node')} ({counts}), {_plural(len(r.edges), 'edge')}"
                     + (f", launched {_plural(runs, 'time')}" if runs else ""))
    if len(recs) > GRAPH_LIMIT:
        tally = _graph_tally(recs[GRAPH_LIMIT:], launched)
        lines.append(f"    ... and {len(recs) - GRAPH_LIMIT} more graph(s): {tally} (--dot DIR draws each one)")
    lines.append(f"  graph launches: {st.get('graph_launches', 0)}")
    lines.append("  kernel launches taken (cuLaunchKernel and friends, captured or not; not the refused): "
                 f"{st.get('kernel_launches', 0)}")
    missing = drv.kernels_without_implementation
    if missing:
        shown = ", ".join(f"{name} ({n} run{'s' if n != 1 else ''})" for name, n in sorted(missing.items()))
        lines.append(f"  kernels that could not run (no Python twin and no PTX the engine runs: refused with 801, or "
                     f"recorded only for CUDA C source text; their results not computed): {shown}; "
                     "register a twin with simcuda.kernel(name) or --kernels FILE, "
                     "or compile the kernel through NVRTC in this process (or load its PTX) so that its PTX runs")
    failed = failed_captures(drv)
    if failed:
        lines.append(f"  captures that gave no graph: {len(failed)} ("
                     + ", ".join(f"capture {f.capture_id}: {_code_name('cu', f.code)}" for f in failed)
                     + "; --dot DIR draws each one as it stood, marking what broke the rule)")
    nerr = len(drv.error_log)
    ninternal = sum(1 for rec in drv.error_log if rec.internal)
    if ninternal:
        lines.append(f"  {INTERNAL_TITLE}: {ninternal} (--explain shows each one)")
    if nerr:
        lines.append(f"  failed calls: {nerr}" + ("" if explained else " (run with --explain to see each one and why)"))
    return "\n".join(lines) + "\n"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _graph_tally(recs: list[GraphRecord], launched: dict[int, set[tuple[int, int]]]) -> str:
    """The graphs past :data:`GRAPH_LIMIT`, counted: how many of each origin, how many destroyed and launched,
    and their nodes and edges in all."""
    origins = Counter(r.origin.split(",")[0] for r in recs)
    parts = [", ".join(f"{n} {origin}" for origin, n in origins.most_common())]
    parts.append(f"{sum(r.destroyed for r in recs)} destroyed")
    parts.append(f"{sum(1 for r in recs if launched.get(r.gid))} launched")
    parts.append(f"{_plural(sum(len(r.nodes) for r in recs), 'node')} and "
                 f"{_plural(sum(len(r.edges) for r in recs), 'edge')} in all")
    return "; ".join(parts)


def _code_name(call: str, code: int) -> str:
    if call.startswith("cuda") and code in cudaError_t:
        return cudaError_t(code).name
    try:
        return CUresult(code).name
    except ValueError:
        return str(code)


def explain_text(drv: Driver, not_simulated: dict[str, int] | None = None, limit: int = EXPLAIN_LIMIT) -> str:
    """The non-success results of the run, in order, with their code and ``why``: all of them when there are no
    more than ``limit`` (0: no limit), else a count per entry and code followed by the first ``limit`` in full;
    then, on the native route, the
    calls the simulated ``libcuda.so.1`` answered 801 itself (``not_simulated``: ``{"name (version v)": calls}``
    from :func:`simcuda.faces.native.not_simulated_calls`; entries with no adapter, which record no ``why``); the
    internal errors (calls answered 999 because simcuda raised: a simulator bug) come before them, under
    :data:`~simcuda._core.logs.INTERNAL_TITLE`."""
    stubs = ", ".join(f"{k} x{n}" for k, n in sorted((not_simulated or {}).items()))
    tail = ([f"  calls answered 801 (CUDA_ERROR_NOT_SUPPORTED) by the native library, entries not simulated (no why "
             f"recorded; see docs/supported-api.md): {stubs}"] if stubs else [])
    if not drv.error_log:
        head = "simcuda explain: every call succeeded" if not stubs else "simcuda explain: no failed call recorded"
        return "\n".join([head, *tail]) + "\n"
    log = drv.error_log
    lines = [f"simcuda explain: {len(log)} failed call(s)"]
    shown = log if limit == 0 else log[:limit]
    if len(shown) < len(log):
        tally = Counter((rec.call, rec.code) for rec in log)
        lines.append(f"  by entry and code ({len(tally)} kind(s)):")
        lines.extend(f"    {call} -> {_code_name(call, code)} ({code}): {n}"
                     for (call, code), n in sorted(tally.items(), key=lambda kv: (-kv[1], kv[0])))
        lines.append(f"  the first {len(shown)} in full (--explain-limit N shows more, 0 all):")
    for i, rec in enumerate(shown, 1):
        lines.append(f"  {i}. {rec.call} -> {_code_name(rec.call, rec.code)} ({rec.code}) [thread {rec.thread}]")
        lines.append(f"     why: {rec.why}")
    if len(shown) < len(log):
        lines.append(f"  ... and {len(log) - len(shown)} more (counted above)")
    internal = [rec for rec in log if rec.internal]
    if internal:
        lines.append(f"simcuda explain: {INTERNAL_TITLE}: {len(internal)}")
        lines.extend(f"  {rec.call}: {rec.why}" for rec in internal)
    return "\n".join([*lines, *tail]) + "\n"


def failed_captures(drv: Driver) -> list[FailedCapture]:
    """The captures of ``drv`` whose end gave no graph (901, 904), when a :class:`Recorder` watches it."""
    rec = _RECORDERS.get(drv)
    return list(rec.failed_captures) if rec is not None else []


def write_dots(drv: Driver, folder: str, png: bool = False, log: TextIO | None = None, prefix: str = "") -> list[str]:
    """Write ``<prefix>graph_<id>.dot`` for every graph, and ``<prefix>capture_<id>_failed.dot`` for every capture
    whose end gave
    no graph (:class:`FailedCapture`: the graph as it stood, the node that broke the rule in red, a note naming
    the failure), into ``folder`` (created if needed); with ``png``, also render each as ``.png`` with Graphviz
    ``dot`` when it is installed (a notice saying how to install it otherwise). ``simcuda run`` passes the
    program's name and ``_`` as ``prefix``, so that programs sharing a folder keep their pictures apart.

    Returns the paths written.
    """
    os.makedirs(folder, exist_ok=True)
    written = []
    dot_exe = shutil.which("dot") if png else None
    if png and dot_exe is None and log is not None:
        log.write("simcuda: Graphviz 'dot' is not installed, so no PNG was rendered (the .dot files are written): "
                  f"{GRAPHVIZ_INSTALL}\n")
    pictures = [(f"{prefix}graph_{r.gid}.dot", r.dot) for r in graph_records(drv)]
    pictures += [(f"{prefix}capture_{f.capture_id}_failed.dot", f.dot) for f in failed_captures(drv)]
    for filename, text in pictures:
        path = os.path.join(folder, filename)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        written.append(path)
        if dot_exe:
            out = path[:-4] + ".png"
            res = subprocess.run([dot_exe, "-Tpng", path, "-o", out], capture_output=True, text=True)
            if res.returncode == 0:
                written.append(out)
            elif log is not None:
                log.write(f"simcuda: dot failed on {path}: {res.stderr.strip()}\n")
    return written
