"""The handle table of one driver and its resolvers (spec sections 1 and 3): a service of :class:`DriverState`.

A handle is an ``int`` from the driver's own range (:mod:`simcuda._core.process`), never reused within the
driver's life. :class:`Handles` is the only writer of the table: it hands out handles (:meth:`Handles.add`),
makes graphs and nodes (which take a handle each), and turns a handle back into a live object, raising the
code the real driver gives for a NULL, foreign, wrong-kind or destroyed one (the *preamble* of spec 3).
Everything else reads the table through :attr:`Handles.table` (typed read-only in :attr:`Handles.objects`).

What is remembered of a destroyed object is tiny and bounded (issue 19 item 1; docs/spec-proposals.md P-79): a
destroyed stream, event, graph, node or graph exec stays in the table until the table has grown to twice its
size after the last sweep (:meth:`Handles.add`), then the sweep replaces it by a record of its kind (the last
:data:`DEAD_RECORDS` destroyed handles), and beyond those the *range rule* holds: handles only move forward
within a driver, so a handle of this driver's range, below :attr:`Handles.next_handle`, that the table no longer
holds was destroyed. A resolver answers a destroyed handle the code it answered while the object was kept
(:meth:`Handles.destroyed_why`); the why names the kind while a record is kept, and is generic after.

It knows nothing of threads, captures or the faces; it imports only the records it resolves.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import process
from .errors import CUresult, DriverError
from .graphs import graph_exec as ge
from .graphs import graph_model as gr
from .graphs.node_params import NO_PARAMS
from .modules.linker import LinkState
from .objects import Context, Event, Function, Module, Stream

HANDLE_STEP = process.HANDLE_STEP
#: destroyed handles remembered with their kind (older ones fall under the range rule)
DEAD_RECORDS = 4096
#: the table size at which the first sweep of destroyed objects runs (then twice the size it left)
SWEEP_MIN = 4096
#: the kinds a sweep drops once destroyed (what their resolvers name them): the objects a program churns
SWEPT_KINDS: dict[type, str] = {Stream: "stream", Event: "event", gr.Graph: "graph", gr.Node: "graph node",
                                ge.GraphExec: "graph exec"}


def remove_recent(items: list[Any], obj: Any, scan: int = 64) -> bool:
    """Remove ``obj`` (by identity) from ``items`` when it is one of the last ``scan`` entries (where a destroyed
    graph usually is: made, used, destroyed); False when it is not found there (a later prune of destroyed
    entries takes it). O(scan)."""
    for i in range(len(items) - 1, max(-1, len(items) - 1 - scan), -1):
        if items[i] is obj:
            del items[i]
            return True
    return False


def release_graph(g: gr.Graph) -> None:
    """Let go of the parameters of destroyed graph ``g``'s nodes once no exec needs them (``live_execs`` 0): a graph
    and its nodes reference each other, so without this the host arrays of its memcpy nodes would wait for the
    cycle collector (issue 19 item 1). Child-graph and conditional nodes keep theirs (their graphs are destroyed
    with the parent, each released in turn)."""
    if not g.destroyed or g.live_execs > 0:
        return
    for n in g.nodes:
        if n.type != gr.GRAPH and n.type != gr.CONDITIONAL:
            n.params = NO_PARAMS


class Handles:
    """The object table of one driver (handle -> object), the graphs it made, and the handle resolvers.

    Args:
        serial: the driver's serial number (:func:`simcuda._core.process.register_driver`); its handles come
            from that driver's range, so a value of another driver is recognised in ``why`` texts.
    """

    __slots__ = ("serial", "_table", "_next", "_base", "_graph_ids", "_stream_ids", "all_graphs", "objects",
                 "_dead", "_sweep_at", "swept")

    def __init__(self, serial: int) -> None:
        self.serial = serial
        self._table: dict[int, Any] = {}
        self._next = self._base = process.handle_base(serial)
        #: destroyed handles the sweep dropped from the table -> their kind (the newest :data:`DEAD_RECORDS`)
        self._dead: dict[int, str] = {}
        self._sweep_at = SWEEP_MIN
        #: how many destroyed objects the sweeps dropped from the table (read by tests and bench_soak)
        self.swept = 0
        self._graph_ids = 0
        self._stream_ids = 0
        #: every graph made, in creation order (``Driver.all_graphs`` filters the live top-level ones)
        self.all_graphs: list[gr.Graph] = []
        #: the table, typed read-only: the dict itself, not a proxy (a proxy's ``get`` costs the native launch
        #: path ~8%, bench_native); ``Mapping`` lets mypy reject a write from outside
        self.objects: Mapping[int, Any] = self._table

    @property
    def table(self) -> Mapping[int, Any]:
        """The handle table (handle -> object), read-only."""
        return self._table

    @property
    def next_handle(self) -> int:
        """The handle the next :meth:`add` hands out (read-only)."""
        return self._next

    @property
    def dead_records(self) -> int:
        """How many destroyed handles are remembered with their kind (at most :data:`DEAD_RECORDS`)."""
        return len(self._dead)

    def add(self, obj: Any) -> int:
        """Register ``obj`` under the next handle of the driver's range and return that handle (sweeping the
        destroyed objects out of the table first when it has grown to twice its size after the last sweep)."""
        if len(self._table) >= self._sweep_at:
            self.sweep()
        h = self._next
        self._next = h + HANDLE_STEP
        self._table[h] = obj
        return h

    def sweep(self) -> int:
        """Drop every destroyed object of a :data:`SWEPT_KINDS` kind from the table and the graph list, keeping a
        record of its kind (the newest :data:`DEAD_RECORDS`); return how many went. Objects still referenced
        elsewhere (a capture's graph, an exec's body, a node of a live graph) stay alive there; only the handle
        lookup forgets them. Amortised O(1) per handle: the next sweep waits until the table doubles."""
        kinds, table, dead = SWEPT_KINDS, self._table, self._dead
        gone = [(h, kind) for h, o in table.items()
                if (kind := kinds.get(o.__class__)) is not None and o.destroyed]
        for h, kind in gone:
            del table[h]
            dead[h] = kind
        if len(dead) > 2 * DEAD_RECORDS:  # the newest records stay (handles grow: the largest are the newest)
            self._dead = dead = dict(sorted(dead.items())[-DEAD_RECORDS:])
        if gone or len(self.all_graphs) > len(table):
            self.all_graphs[:] = [g for g in self.all_graphs if not g.destroyed]
        self.swept += len(gone)
        self._sweep_at = max(SWEEP_MIN, 2 * len(table))
        return len(gone)

    def forget(self, obj: Any) -> None:
        """Drop the destroyed ``obj`` (a :data:`SWEPT_KINDS` kind) from the table now, keeping the record of its
        kind, and a graph from the graph list: a destroyed graph or exec may reference much memory (the host
        arrays of its memcpy nodes), which must not wait for a sweep. An object already gone is left alone."""
        h = obj.handle
        if self._table.get(h) is obj:
            del self._table[h]
            dead = self._dead
            dead[h] = SWEPT_KINDS[obj.__class__]
            self.swept += 1
            if len(dead) > 2 * DEAD_RECORDS:  # amortised: the newest records stay
                self._dead = dict(sorted(dead.items())[-DEAD_RECORDS:])
        if obj.__class__ is gr.Graph:
            remove_recent(self.all_graphs, obj)
            release_graph(obj)
        elif obj.__class__ is ge.GraphExec and obj.graph.destroyed:
            release_graph(obj.graph)

    def destroyed_why(self, h: Any, kind: str) -> str | None:
        """Why handle ``h``, which the table no longer holds, is refused as a ``kind`` (a :data:`SWEPT_KINDS`
        name): the why of a destroyed ``kind`` when a record says it was one, or when the range rule says it was
        destroyed and no record is left (a generic why, the kind unknown); None when ``h`` is no destroyed handle
        of this driver or was recorded as another kind (then the resolver's not-a-``kind`` answer holds)."""
        if not isinstance(h, int) or h in self._table:
            return None
        was = self._dead.get(h)
        if was is not None:
            return f"{kind} 0x{h:x} was destroyed" if was == kind else None
        if self._base <= h < self._next and (h - self._base) % HANDLE_STEP == 0:
            return (f"0x{h:x} is a handle this driver handed out and no longer holds: a destroyed object (of a kind "
                    f"no longer recorded; answered as a destroyed {kind}, docs/spec-proposals.md P-79) [I]")
        return None

    def put(self, h: int, obj: Any) -> None:
        """Register ``obj`` under a handle :meth:`add` handed out earlier (an object re-made in place, e.g. a
        VMM allocation's properties); a handle this table never handed out raises ``ValueError``."""
        if h not in self._table:
            raise ValueError(f"0x{h:x} was never handed out by this handle table")
        self._table[h] = obj

    def get(self, h: Any) -> Any:
        """The object handle ``h`` names (live, or destroyed and not yet dropped from the table: P-79), or None."""
        return self._table.get(h)

    def foreign(self, h: Any) -> str:
        """A ``why`` suffix naming the driver a handle value came from, when it is another one's (else "")."""
        return process.foreign(process.handle_owner(h), self.serial, "handle")

    # -- graphs and nodes: made here because each takes a handle ---------------------------------
    def next_graph_id(self) -> int:
        """The next id of the driver's graph and exec id sequence (ids name graphs in DOT and ``why`` texts)."""
        self._graph_ids += 1
        return self._graph_ids

    def next_stream_id(self) -> int:
        """The next stream id of the driver (``cuStreamGetId``: user and per-thread streams, from 1; a legacy
        stream's is 0)."""
        self._stream_ids += 1
        return self._stream_ids

    def new_graph(self, ctx: Context | None = None) -> gr.Graph:
        """A new empty graph of context ``ctx`` (None: not tied to one), with a handle and the next graph id."""
        g = gr.Graph(0, self.next_graph_id(), ctx)
        g.handle = self.add(g)
        self.all_graphs.append(g)
        return g

    def new_node(self, graph: gr.Graph, ntype: int, params: Any) -> gr.Node:
        """A new node of ``graph`` (its next local id, a handle; ``Graph.add_node`` inline), with no edges."""
        if len(self._table) >= self._sweep_at:
            self.sweep()
        h = self._next
        self._next = h + HANDLE_STEP
        lid = graph.next_local
        graph.next_local = lid + 1
        n = gr.Node(h, graph, lid, ntype, params)
        self._table[h] = n
        graph.nodes.append(n)
        if ntype:  # not KERNEL (0): kernels are not counted per type (see Graph)
            tc = graph.type_counts
            tc[ntype] = tc.get(ntype, 0) + 1
        return n

    # -- resolvers (the preamble of spec 3) ---------------------------------------------------------
    def event(self, h: int) -> Event:
        """A live event. Errors: 400 NULL, not an event, or destroyed."""
        e = self._table.get(h) if h else None
        if not isinstance(e, Event):
            if (why := self.destroyed_why(h, "event")) is not None:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE, why)
            raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE,
                              f"0x{h:x} is not an event handle{self.foreign(h)}" if h else
                              "the event handle is NULL")
        if e.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE, f"event 0x{h:x} was destroyed")
        return e

    def graph(self, h: int) -> gr.Graph:
        """A live graph. Errors: 1 INVALID_VALUE for NULL, a non-graph or a destroyed graph."""
        g = self._table.get(h) if h else None
        if not isinstance(g, gr.Graph) or g.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, "the graph handle is NULL" if not h else
                              self.destroyed_why(h, "graph") or
                              f"0x{h:x} is not a live graph (never created, or destroyed){self.foreign(h)}")
        return g

    def node(self, h: int, what: str = "node") -> gr.Node:
        """A live graph node (``what`` names it in the ``why``). Errors: 1 INVALID_VALUE for NULL, a non-node or
        a destroyed node."""
        n = self._table.get(h) if h else None
        if not isinstance(n, gr.Node) or n.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"the {what} handle is NULL" if not h else
                              self.destroyed_why(h, "graph node") or
                              f"0x{h:x} is not a live graph node (never created, or destroyed){self.foreign(h)}")
        return n

    def node_or_none(self, h: Any) -> gr.Node | None:
        """The node a handle names (live, or destroyed and still in the table), or None: for rules that give their
        own code for a handle that names no node (the capture engine's dependency checks, spec 3.2, 3.6)."""
        n = self._table.get(h) if h else None
        return n if isinstance(n, gr.Node) else None

    def exec(self, h: int) -> ge.GraphExec:
        """A live graph exec. Errors: 1 INVALID_VALUE for NULL; 400 INVALID_HANDLE for a non-exec or a destroyed
        one."""
        x = self._table.get(h) if h else None
        if not isinstance(x, ge.GraphExec) or x.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE if h else CUresult.CUDA_ERROR_INVALID_VALUE,
                              "the graph exec handle is NULL" if not h else
                              self.destroyed_why(h, "graph exec") or
                              f"0x{h:x} is not a live graph exec (never created, or destroyed){self.foreign(h)}")
        return x

    def exec_to_run(self, h: int, call: str) -> ge.GraphExec:
        """The exec of ``cuGraphLaunch`` / ``cuGraphUpload``: a destroyed exec is INVALID_VALUE there
        (spec 16, 9) [O/H: hip-tests, shared expectation]; otherwise as :meth:`exec` (1 NULL, 400 garbage)."""
        x = self._table.get(h) if h else None
        if (isinstance(x, ge.GraphExec) and x.destroyed) or (
                x is None and h and self.destroyed_why(h, "graph exec") is not None):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: graph exec 0x{h:x} was destroyed; launching or uploading a destroyed exec is "
                              "CUDA_ERROR_INVALID_VALUE (spec 16, 9)")
        return self.exec(h)

    def context(self, h: int) -> Context:
        """A live context. Errors: 201 INVALID_CONTEXT for NULL or a non-context; 709 CONTEXT_IS_DESTROYED."""
        c = self._table.get(h) if h else None
        if not isinstance(c, Context):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_CONTEXT, "the context handle is NULL" if not h else
                              f"0x{h:x} is not a context handle{self.foreign(h)}")
        if c.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_CONTEXT_IS_DESTROYED, f"context 0x{h:x} was destroyed")
        return c

    def function(self, h: int) -> Function:
        """A function of a loaded module. Errors: 400 NULL, not a function, or of an unloaded module; 201
        INVALID_CONTEXT when its module's context was destroyed [inferred code]."""
        f = self._table.get(h) if h else None
        if not isinstance(f, Function):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE, "the function handle is NULL" if not h else
                              f"0x{h:x} is not a function handle{self.foreign(h)}")
        if f.module.unloaded:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE, f"function {f.name} belongs to an unloaded module")
        m = f.module
        if not m.is_library and m.ctx is not None and m.ctx.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_CONTEXT,
                              f"function {f.name} belongs to a module of context 0x{m.ctx.handle:x}, which was "
                              "destroyed (cuCtxDestroy unloads its modules) [inferred code]")
        return f

    def link_state(self, h: int, call: str) -> LinkState:
        """A live JIT link state (``CUlinkState``) for entry ``call``. Errors: 400 INVALID_HANDLE for NULL, another
        object, or one ``cuLinkDestroy`` ended."""
        s = self._table.get(h) if h else None
        if not isinstance(s, LinkState):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE, f"{call}: the link state handle is NULL" if not h
                              else f"{call}: 0x{h:x} is not a link state handle{self.foreign(h)}")
        if s.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE,
                              f"{call}: {s.label()} was destroyed by cuLinkDestroy")
        return s

    def module(self, h: int) -> Module:
        """A loaded module. Errors: 400 bad handle; 201 INVALID_CONTEXT for a module (not a library) whose context
        was destroyed: cuCtxDestroy unloads the context's modules, and INVALID_CONTEXT is the code the module
        calls document (CONTEXT_IS_DESTROYED is not in their Returns lists) [inferred]."""
        m = self._table.get(h) if h else None
        if not isinstance(m, Module) or m.unloaded:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE, "not a loaded module handle")
        if not m.is_library and m.ctx is not None and m.ctx.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_CONTEXT,
                              f"module 0x{h:x} belonged to context 0x{m.ctx.handle:x}, which was destroyed "
                              "(cuCtxDestroy unloads a context's modules) [inferred code]")
        return m
