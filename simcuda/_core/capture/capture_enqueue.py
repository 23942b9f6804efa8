"""The single enqueue path of the capture rule engine (spec 3.8-3.10) and the event rules it reads (spec 4.1,
4.2): every stream operation goes through :func:`enqueue`, which runs it now, adds a node to a capture, records it
into a CIG command list, or refuses it, as its row of the operation table :data:`OPS` declares.

See :mod:`simcuda._core.capture.capture_rules` (theory of operation) for capture sequences and the state machine.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from ..errors import CUresult
from ..graphs import nodes as _nodes
from ..graphs.graph_exec import walk_body
from ..graphs.graph_model import (
    BATCH_MEM_OP,
    CONDITIONAL,
    EVENT_RECORD,
    GRAPH,
    HOST,
    KERNEL,
    MEM_ALLOC,
    MEM_FREE,
    MEMCPY,
    MEMSET,
    TYPE_KEYWORDS,
    WAIT_EVENT,
    ZERO_ED,
    Node,
    add_edge,
    chain_node,
    is_full,
)
from ..graphs.graph_update import graph_from_frozen
from ..graphs.nodes import ChildGraphParams
from ..objects import CAPTURE_BOUND, CAPTURED, RECORDED, CigRecord
from .capture_rules import (
    ACTIVE,
    CaptureHost,
    CaptureSequence,
    capturing_into,
    check_legacy_use,
    check_unsafe,
    err,
    invalidate,
    refuse_use,
)

if TYPE_CHECKING:
    from ..graphs.graph_exec import GraphExec
    from ..graphs.graph_model import KernelParams
    from ..objects import Event, Stream


class EagerRunner(Protocol):
    """What the enqueue path uses of the scheduler that runs uncaptured work
    (:class:`simcuda._core.work.Scheduler` is one)."""

    def submit(self, stream: Stream, op: Op) -> None:
        """Run ``op`` in ``stream``'s order (now, or when the stream progresses)."""

    def run_now(self, stream: Stream, op: Op) -> None:
        """Run a synchronous ``op``: wait for ``stream``'s earlier work, then run it (spec 6)."""

    def record_uncaptured(self, event: Event, stream: Stream) -> None:
        """Record ``event`` on an uncaptured ``stream`` (it completes when the work before it has run)."""

    def wait_uncaptured(self, stream: Stream, event: Event) -> None:
        """Make an uncaptured ``stream`` wait for ``event``'s recorded work."""

    def run_kernel(self, p: KernelParams) -> str:
        """Run the kernel launch ``p`` now; returns its launch-log text."""


class EnqueueHost(CaptureHost, Protocol):
    """What the enqueue path uses of a driver: the rule engine's services (:class:`CaptureHost`) and the
    scheduler that runs work (:class:`EagerRunner`). ``Driver`` satisfies it."""

    @property
    def scheduler(self) -> EagerRunner:
        """The scheduler that runs uncaptured work."""

# -- 3.8: the single enqueue path --------------------------------------------------------------
# What an ACTIVE capture does with an operation (OpKind.in_capture):
NODE = "node"  # add a node of the kind's node type (spec 3.8)
REFUSE = "refuse"  # refuse it and invalidate the capture (spec 3.8, 5.3, 6.1)
SNAPSHOT = "snapshot"  # an event record: the event takes the stream's deps (spec 4.2), plus a node when it has a type
JOIN = "join"  # a wait: join, merge, isolation (spec 4.1 rows 8-11)
NOTHING = "nothing"  # accepted and nothing recorded (an upload, spec 3.8)
# What a CIG-capturing stream does with it (OpKind.on_cig, spec 8.3), besides NOTHING:
CIG_RECORD = "record"  # append it to the command list
CIG_REFUSE = "refuse"  # refuse it (OpKind.cig_code); the CIG capture goes on
CIG_PASS = "pass"  # as on an uncaptured stream
# What an uncaptured stream does with it (OpKind.eager), besides NOTHING:
SUBMIT = "submit"  # stream order: now, after the stream's user code, or when it progresses (Scheduler.submit)
NOW = "now"  # a synchronous call: it waits for earlier work, then runs (Scheduler.run_now, spec 6)
RECORD = "record"  # an event record completes in stream order (spec 4.2, 16)
FORK = "fork"  # a wait: fork into the event's capture, or an ordinary wait (spec 4.1 rows 6, 7, 13)


def _params_label(op: Op) -> str:
    p = op.params
    return p.describe() if hasattr(p, "describe") else op.kind.name


@attrs.frozen
class OpKind:
    """One kind of stream operation: what each stream state does with it (spec 3.8, 4.1, 4.2, 6, 8.3).

    :func:`enqueue` reads these fields, in the one order of its checks; an operation differs from another
    only by them (and by the ``prepare`` and ``run`` of the :class:`Op` itself).

    * ``name``: the kind, as the launch log (upper case, unless ``log_as``) and CIG command lists show it.
    * ``node_type``: the ``CUgraphNodeType`` of the node it makes in a capture (NODE, or SNAPSHOT with a node).
    * ``in_capture``: NODE, REFUSE (``refusal``: code and ``why`` template, invalidating; ``nests``: a graph
      launch nests as a child-graph node under ``Options(graph_launch_in_capture="child-node")``), SNAPSHOT,
      JOIN or NOTHING; ``cite``: the spec row named when the capture is already invalidated (901).
    * ``on_cig``: CIG_RECORD (``label`` of the entry), CIG_REFUSE (``cig_code``), CIG_PASS or NOTHING;
      ``cig_forbids``: node types a launched graph may not hold there (900).
    * ``eager``: SUBMIT, NOW, RECORD, FORK or NOTHING; ``needs_capture``: the flag that makes it valid only
      on a capturing stream (INVALID_VALUE elsewhere, with ``cite_uncaptured``); ``unsafe``: potentially
      unsafe (spec 5.2) when it is not captured; ``joins``: a wait, which the legacy stream refuses for a
      captured event (spec 4.1 row 3).
    * How it runs: ``ticks`` the simulated clock (spec 16), ``logged`` in the launch log, ``user_code``
      (run with the lock released, its stream busy).
    * ``invalidates``: a REFUSE that invalidates the capture (the spec's rule, 5.1); False for a refusal that
      leaves it ACTIVE (the batched copies, P-41).
    """

    name: str
    node_type: int | None = None
    in_capture: str = NODE
    refusal: tuple[int, str] | None = None
    nests: bool = False
    cite: str = "spec 3.8, 5.1"
    on_cig: str = CIG_PASS
    cig_code: int = 0
    cig_forbids: tuple[int, ...] = ()
    label: Callable[[Op], str] = _params_label
    eager: str = SUBMIT
    needs_capture: tuple[str, str] | None = None
    unsafe: bool = False
    joins: bool = False
    ticks: bool = True
    logged: bool = True
    user_code: bool = False
    log_as: str = ""
    invalidates: bool = True


_IN_CIG = 801  # NOT_SUPPORTED: in the Returns lists of the calls CIG streams refuse (spec 8.3) [inferred code]
_SYNC_REFUSAL = ("{call} is synchronous and would run on {stream}, which is capturing in {seq}: a synchronous call "
                 "on a capturing stream is refused in every mode (spec 6.1, 5.3) [inferred]. Use the call's Async "
                 "form on the capturing stream, which the capture records as a node")


def _kernel_label(op: Op) -> str:
    name: str = op.params.name
    return name


#: The operation table (spec 3.8, 4.1, 4.2, 6, 8.3): every kind of stream operation and what each stream
#: state does with it. Every entry that puts work on a stream makes an :class:`Op` of one of these and
#: calls :func:`enqueue`.
OPS: dict[str, OpKind] = {k.name: k for k in (
    OpKind("kernel", KERNEL, on_cig=CIG_RECORD, label=_kernel_label, user_code=True),
    OpKind("memcpy", MEMCPY, on_cig=CIG_RECORD),
    OpKind("memset", MEMSET, on_cig=CIG_RECORD),
    OpKind("host", HOST, on_cig=CIG_REFUSE, cig_code=_IN_CIG, user_code=True),
    OpKind("mem_alloc", MEM_ALLOC, on_cig=CIG_REFUSE, cig_code=_IN_CIG),
    OpKind("mem_free", MEM_FREE, on_cig=CIG_REFUSE, cig_code=_IN_CIG),
    OpKind("batch_mem_op", BATCH_MEM_OP, on_cig=CIG_REFUSE, cig_code=_IN_CIG),
    OpKind("wait_value", BATCH_MEM_OP, on_cig=CIG_REFUSE, cig_code=_IN_CIG),
    OpKind("write_value", BATCH_MEM_OP),
    OpKind("ext_signal", 8),
    OpKind("ext_wait", 9),
    OpKind("callback", in_capture=REFUSE, on_cig=CIG_REFUSE, cig_code=_IN_CIG, user_code=True,
           refusal=(801, "{call} on {stream} of {seq}: cuStreamAddCallback is not supported on a capturing stream "
                         "(spec 3.8) [inferred code]; use cuLaunchHostFunc, which is captured as a HOST node")),
    OpKind("attach_mem", in_capture=REFUSE,
           refusal=(801, "{call} on {stream} of {seq}: cuStreamAttachMemAsync is not supported on a capturing "
                         "stream (spec 3.8) [inferred code]")),
    OpKind("graph_launch", GRAPH, in_capture=REFUSE, nests=True, on_cig=CIG_RECORD, user_code=True,
           refusal=(900, "{call} on {stream} of {seq}: cuGraphLaunch into a capturing stream is not permitted "
                         "(spec 3.8, 4.6); to nest a graph, add it to the capture graph as a child-graph node "
                         "(cuStreamGetCaptureInfo, cuGraphAddChildGraphNode, cuStreamUpdateCaptureDependencies "
                         "SET)"),
           cig_forbids=(HOST, MEM_ALLOC, MEM_FREE, BATCH_MEM_OP), label=lambda op: f"graph_{op.params.gid}",
           ticks=False, logged=False),
    OpKind("upload", in_capture=NOTHING, on_cig=NOTHING, eager=NOTHING),
    OpKind("event_record", in_capture=SNAPSHOT, cite="spec 4.2 row 5", on_cig=CIG_RECORD, eager=RECORD,
           label=lambda op: op.params.event.label(), ticks=False, logged=False),
    OpKind("event_record_external", EVENT_RECORD, in_capture=SNAPSHOT, cite="spec 4.2 row 5",
           needs_capture=("CU_EVENT_RECORD_EXTERNAL", "spec 4.2 row 6")),
    OpKind("wait_event", in_capture=JOIN, cite="spec 4.1 row 12", eager=FORK, joins=True),
    OpKind("wait_event_external", WAIT_EVENT, cite="spec 4.1 row 12", joins=True,
           needs_capture=("CU_EVENT_WAIT_EXTERNAL", "spec 4.1 row 4")),
    # batched copies (issue 10, P-41): no graph-node form; 900 in a capture, which goes on [O: rmm issue 2518]
    OpKind("memcpy_batch", in_capture=REFUSE, invalidates=False, on_cig=CIG_RECORD,
           refusal=(900, "{call} on {stream} of {seq}: a batched copy cannot be captured (the driver has no graph-node "
                         "form of it; P-41) [O: rapidsai/rmm issue 2518, cuda.core copy_batch]; copy with "
                         "cuMemcpyAsync per buffer to capture it")),
    OpKind("sync_memcpy", in_capture=REFUSE, refusal=(900, _SYNC_REFUSAL), cite="spec 6.1, 5.3 [inferred]",
           eager=NOW, unsafe=True, log_as="MEMCPY"),
    OpKind("sync_memset", in_capture=REFUSE, refusal=(900, _SYNC_REFUSAL), cite="spec 6.1, 5.3 [inferred]",
           eager=NOW, unsafe=True, log_as="MEMSET"),
)}


# -- managed memory (topic: vmm): cuMemPrefetchAsync is stream work; captured, it becomes an EMPTY node, as the
# CUgraphNodeType of CUDA 13.5 has no prefetch type (docs/spec-proposals.md P-50) [inferred]; eagerly it does nothing
# to the bytes (managed memory is one copy here), but it takes its place in stream order and is logged.
OPS["prefetch"] = OpKind("prefetch", _nodes.EMPTY, on_cig=CIG_RECORD, label=lambda op: "prefetch")

class Op:
    """One unit of stream work: its :class:`OpKind`, the call, its ``params`` (the node's parameters when it is
    captured), ``run`` (the work, when it runs eagerly) and ``prepare`` (rules of the op's own arguments that
    depend on whether it becomes a node: called first, with the ACTIVE capture it would be a node of, or None)."""

    __slots__ = ("kind", "call", "params", "run", "prepare")
    params: Any

    def __init__(self, kind: OpKind, call: str, params: Any, run: Callable[[], Any] | None,
                 prepare: Callable[[CaptureSequence | None], None] | None = None) -> None:
        self.kind = kind
        self.call = call
        self.params = params
        self.run = run
        self.prepare = prepare


def enqueue(drv: EnqueueHost, stream: Stream, op: Op) -> Node | None:
    """Decide what a stream operation does, reading its :class:`OpKind` (spec 3.8 order of checks, items 2-5).

    In order: the op's own ``prepare``; the legacy stream (906, spec 6; a wait on a captured event, spec 4.1
    row 3); an op valid only in capture on an uncaptured stream (1, spec 4.1 row 4, 4.2 row 6); a CIG
    capture (spec 8.3); a capture (901 when invalidated, then ``in_capture``); else ``eager`` (the potentially
    unsafe class first, spec 5.2). Returns the new node when the op was captured as one, else ``None``.
    """
    k = op.kind
    if op.prepare is not None:
        op.prepare(capturing_into(stream))
    seq = stream.capture
    if stream.is_legacy:
        check_legacy_use(drv, stream, op.call)
        if k.joins:
            _refuse_legacy_join(stream, op)
    if k.needs_capture is not None and seq is None:
        flag, cite = k.needs_capture
        raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{op.call}: {flag} is only valid on a capturing stream, and "
                                                      f"{stream.label()} is not capturing ({cite})")
    cig = stream.cig
    if cig is not None and _cig_takes(stream, op, cig):
        return None
    if seq is not None:
        return _in_capture(drv, seq, stream, op)
    _eager(drv, stream, op)
    return None


def _cig_takes(stream: Stream, op: Op, cig: CigRecord) -> bool:
    """:func:`enqueue` on a stream in CIG capture (spec 8.3): refuse the op, or record it in the command list
    (True), or do nothing with it (True), or let it pass as on an uncaptured stream (False)."""
    k = op.kind
    if k.on_cig == CIG_REFUSE:
        raise err(k.cig_code, f"{op.call} is not allowed on {stream.label()}, which is in CIG capture (spec "
                               "8.3) [inferred code: 801 is in its Returns list]; the CIG capture goes on")
    if k.cig_forbids:
        _check_cig_graph_launch(stream, op.params, k.cig_forbids)
    if k.on_cig == CIG_RECORD:
        cig.ops.append((k.name, k.label(op)))
        return True
    return k.on_cig == NOTHING


def _in_capture(drv: EnqueueHost, seq: CaptureSequence, stream: Stream, op: Op) -> Node | None:
    """:func:`enqueue` on a capturing stream: 901 when invalidated, then the kind's ``in_capture`` row."""
    k = op.kind
    refuse_use(seq, op.call, stream, k.cite)
    how = k.in_capture
    if how == NODE:
        return add_node(drv, stream, k.node_type, op.params)  # type: ignore[arg-type]  # NODE kinds have one
    if how == SNAPSHOT:
        _capture_event(seq, op.params.event, stream)
        return None if k.node_type is None else add_node(drv, stream, k.node_type, op.params)
    if how == JOIN:
        _join(seq, stream, op)
        return None
    if how == REFUSE:
        if k.nests and drv.options.graph_launch_in_capture == "child-node":
            return _nest_exec(drv, stream, op.params)
        code, why = k.refusal  # type: ignore[misc]  # REFUSE kinds have one
        seq_was = seq.label()  # the status before this call, for the why
        eff = invalidate(seq, op.call) if k.invalidates else f"{seq.label()} goes on (not invalidated)"
        raise err(code, why.format(call=op.call, stream=stream.label(), seq=seq_was) + f"; {eff}")
    return None  # NOTHING


def _eager(drv: EnqueueHost, stream: Stream, op: Op) -> None:
    """:func:`enqueue` on an uncaptured stream: the potentially unsafe class first (spec 5.2), then the kind's
    ``eager`` row (submit in stream order, run now, record an event, fork or wait)."""
    k = op.kind
    if k.unsafe:
        check_unsafe(drv, drv.threads.current(), op.call)
    how = k.eager
    if how == SUBMIT:
        drv.scheduler.submit(stream, op)
    elif how == NOW:
        drv.scheduler.run_now(stream, op)
    elif how == RECORD:
        event = op.params.event
        _uncapture_event(event)
        drv.scheduler.record_uncaptured(event, stream)
    elif how == FORK:
        _fork(drv, stream, op)


def _nest_exec(drv: EnqueueHost, stream: Stream, x: GraphExec) -> Node:
    """``Options(graph_launch_in_capture="child-node")``: a cuGraphLaunch into a capture adds a GRAPH node
    holding a copy of the exec's graph as instantiated (or updated since) [I]; an exec with memory
    allocation or free nodes, or conditional nodes (which a child graph cannot hold, P-21), cannot be nested
    so: INVALID_VALUE, the capture unchanged [I]."""
    if any(n.type in (MEM_ALLOC, MEM_FREE, CONDITIONAL) for n in walk_body(x.body)):
        raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"exec 0x{x.handle:x} holds memory allocation/free or "
                                                      "conditional nodes; it "
                                                      "cannot be nested as a child-graph node of a capture "
                                                      "[inferred]")
    child = graph_from_frozen(drv, x.body, stream.ctx)
    node = add_node(drv, stream, GRAPH, ChildGraphParams(child))
    child.owner_node = node
    return node


def _check_cig_graph_launch(stream: Stream, x: GraphExec, forbidden: tuple[int, ...]) -> None:
    """``cuGraphLaunch`` onto a CIG-capturing stream of a graph holding a node the CIG list forbids: 900
    (cuGraphLaunch's Returns list has no 801) [I] (spec 8.3); the CIG capture goes on."""
    for n in walk_body(x.body):
        if n.type in forbidden:
            raise err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                      f"cuGraphLaunch onto {stream.label()} (CIG capture): the graph holds a "
                      f"{TYPE_KEYWORDS[n.type]} node, which CIG streams forbid (spec 8.3) [inferred code]; the CIG "
                      "capture goes on")


_KERNEL = OPS["kernel"]


#: edge data of a programmatic dependency (``CUgraphEdgeData``): from the kernel's programmatic port
#: (``CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC``, 1), to port 0, type ``CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC`` (1)
PROGRAMMATIC_ED = (1, 0, 1)


def programmatic_deps(stream: Stream) -> list[tuple[Node, Any]] | None:
    """Programmatic dependent launch in a capture (docs/spec-proposals.md P-16) [D/I]: a kernel launched with
    ``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`` on a stream of an ACTIVE capture depends on the KERNEL
    nodes before it through programmatic edges (from their programmatic port, type PROGRAMMATIC), the
    Programming Guide's mapping of the attribute to a graph; dependencies on other nodes, and non-full ones, stay
    as they are. Sets the stream's dependencies and returns the previous list (for the caller to restore if the
    launch is refused), or ``None`` when the stream does not capture (the launch then orders as usual)."""
    if capturing_into(stream) is None:
        return None
    old = stream.deps
    stream.deps = [(n, PROGRAMMATIC_ED if n.type == KERNEL and is_full(ed) else ed) for n, ed in old]
    return old


def enqueue_kernel(drv: EnqueueHost, stream: Stream, call: str, params: KernelParams) -> Node | None:
    """:func:`enqueue` of a kernel launch (``params`` a :class:`~simcuda._core.graphs.graph_model.KernelParams`).

    The common case, a stream of an ACTIVE capture outside CIG capture, adds the node at once, as
    :func:`enqueue` decides it (a legacy stream never captures); only other cases build the :class:`Op`.
    """
    seq = stream.capture
    if seq is not None and seq.status == ACTIVE and stream.cig is None:
        deps = stream.deps
        graph = seq.graph
        if len(deps) != 1 or graph.pairs is not None:
            return add_node(drv, stream, KERNEL, params)
        d, ed = deps[0]
        if ed is not ZERO_ED and ed != ZERO_ED:
            return add_node(drv, stream, KERNEL, params)
        node = chain_node(graph, drv.handles, d, KERNEL, params)  # add_node's chain case, without its checks
        deps[0] = (node, ZERO_ED)
        runs, lid = seq.captured, node.local_id
        if runs and runs[-1] == lid:
            runs[-1] = lid + 1
        else:
            runs += (lid, lid + 1)
        return node
    return enqueue(drv, stream, Op(_KERNEL, call, params, lambda: drv.scheduler.run_kernel(params)))


def add_node(drv: EnqueueHost, stream: Stream, ntype: int, params: Any) -> Node:
    """"Add node N" of spec 3.8: edges from the stream's deps, in order; deps = [N]."""
    seq: CaptureSequence = stream.capture  # type: ignore[assignment]  # the callers' stream is capturing
    graph = seq.graph
    deps = stream.deps
    if len(deps) == 1:  # a chain: the stream's own list (never shared) is reused
        d, ed = deps[0]
        if graph.pairs is None and (ed is ZERO_ED or ed == ZERO_ED):
            node = chain_node(graph, drv.handles, d, ntype, params)  # one full dependency: the compact form
        else:
            node = drv.handles.new_node(graph, ntype, params)
            add_edge(graph, d, node, ed)
        deps[0] = (node, ZERO_ED)
    else:
        node = drv.handles.new_node(graph, ntype, params)
        for d, ed in deps:
            add_edge(graph, d, node, ed)
        stream.deps = [(node, ZERO_ED)]
    runs, lid = seq.captured, node.local_id
    if runs and runs[-1] == lid:
        runs[-1] = lid + 1
    else:
        runs += (lid, lid + 1)
    return node


# -- 4.2: event record (the rows an OpKind with SNAPSHOT or RECORD reads) ----------------------------
def _capture_event(seq: CaptureSequence, event: Event, stream: Stream) -> None:
    _uncapture_event(event)
    event.state = CAPTURED
    event.capture = seq
    event.nodes = list(stream.deps)
    seq.events.append(event)


def _uncapture_event(event: Event) -> None:
    old = event.capture
    if old is not None:
        with contextlib.suppress(ValueError):
            old.events.remove(event)
    event.capture = None
    event.nodes = []


# -- 4.1: stream wait event (the rows an OpKind with ``joins`` reads) ------------------------------------
def _waited(op: Op) -> tuple[Event, CaptureSequence | None]:
    """The event a wait waits on, and the capture it is CAPTURED by (or None)."""
    event: Event = op.params.event
    return event, event.capture if event.state == CAPTURED else None


def _refuse_legacy_join(stream: Stream, op: Op) -> None:
    """Rows 2-3 of spec 4.1: the legacy stream never joins a capture (906, invalidating the event's capture)."""
    event, eseq = _waited(op)
    if eseq is not None:
        eseq_was = eseq.label()  # the status before this call, for the why
        eff = invalidate(eseq, "cuStreamWaitEvent on the legacy stream")
        raise err(CUresult.CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
                  f"{op.call}: {stream.label()} would wait on {event.label()}, captured by {eseq_was}; the legacy "
                  f"stream can never join a capture (spec 4.1 row 3) [inferred]; {eff}")


def _fork(drv: EnqueueHost, stream: Stream, op: Op) -> None:
    """A wait on an uncaptured stream: rows 6 (fork), 7 and 13 (an ordinary wait) of spec 4.1; on a
    CAPTURE_BOUND event ILLEGAL_STATE (spec 17) [O, weaker: a source comment of a real client]."""
    event, eseq = _waited(op)
    if event.state == CAPTURE_BOUND:
        raise err(CUresult.CUDA_ERROR_ILLEGAL_STATE, f"{op.call}: {event.label()} was last recorded in a capture "
                                                      "that has ended, so it is bound to that capture's graph and "
                                                      f"{stream.label()}, which is not capturing, cannot wait on it "
                                                      "(spec 17). Record it again outside the capture (or wait on "
                                                      "an event recorded after the graph's launch)")
    if eseq is not None:
        if eseq.status == ACTIVE:  # row 6: fork
            if stream.cig is not None:
                raise err(CUresult.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                          f"{op.call}: {stream.label()} is in CIG capture and cannot join {eseq.label()}")
            stream.capture = eseq
            stream.deps = list(event.nodes)
            eseq.members.append(stream)
            return
        raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{op.call}: {event.label()} was recorded in {eseq.label()}, "
                                                      f"which is invalidated, so {stream.label()} cannot fork into "
                                                      "it (spec 4.1 row 7) [claimed by HIP to match CUDA]")
    # row 13: ordinary wait
    drv.scheduler.wait_uncaptured(stream, event)


def _join(seq: CaptureSequence, stream: Stream, op: Op) -> None:
    """A wait on a stream of ACTIVE ``seq``: rows 8 (join), 9 (merge), 10 (isolation) and 11 of spec 4.1."""
    event, eseq = _waited(op)
    call = op.call
    if eseq is seq:  # row 8: join
        have = {id(n) for n, _ in stream.deps}
        for n, ed in event.nodes:
            if id(n) not in have:
                stream.deps.append((n, ed))
                have.add(id(n))
        return
    if eseq is not None:  # row 9: merge
        seq_was = seq.label()  # the status before this call, for the why
        e1 = invalidate(seq, "cuStreamWaitEvent merging two captures")
        eseq_was = eseq.label()  # the status before this call, for the why
        e2 = invalidate(eseq, "cuStreamWaitEvent merging two captures")
        raise err(CUresult.CUDA_ERROR_STREAM_CAPTURE_MERGE, f"{call}: {stream.label()} of {seq_was} would wait on "
                                                             f"{event.label()} captured by {eseq_was}; two capture "
                                                             f"sequences cannot merge (spec 4.1 row 9); {e1}; {e2}. "
                                                             "End both on their origins; to order work across them, "
                                                             "capture it as one sequence (fork the second stream from "
                                                             "the first with an event recorded inside the capture), "
                                                             "or order the launches of the two graphs instead")
    if event.state == RECORDED:  # row 10: isolation
        seq_was = seq.label()  # the status before this call, for the why
        eff = invalidate(seq, "cuStreamWaitEvent on uncaptured work")
        raise err(CUresult.CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
                  f"{call}: {stream.label()} of {seq_was} would wait on {event.label()}, which was recorded outside "
                  f"any capture; a capture cannot depend on uncaptured work (spec 4.1 row 10); {eff}. Use "
                  "CU_EVENT_WAIT_EXTERNAL for a wait node, or wait before the capture")
