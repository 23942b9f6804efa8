"""The oxicuda-style face: ``StreamCapture``, ``StreamGraphCapture``, ``Graph``, ``GraphExec``, ``GraphNode``,
``CudaError``.

Mirrors the ``graph`` module of the Rust crate ``oxicuda-driver`` 0.1.x (re-exported at its crate
root as ``Graph, GraphExec, GraphNode, MemcpyDirection, StreamCapture``) and its ``CudaError``
enum, in Python, with what 0.5 added to that module (``crates/oxicuda-driver/src/graph.rs``): the
driver-backed ``StreamGraphCapture`` (``begin(stream, mode)``, ``is_active``, ``capture_status``, ``end``
returning an instantiated ``GraphExec``, the capture ended when the object goes away) and
``GraphExec.is_driver_backed``. See ``docs/oxicuda.md`` for a usage page and the list of deviations.

What is real here and what is only recorded
-------------------------------------------
In oxicuda 0.1 ``StreamCapture`` is a *spec recorder*: ``begin`` only checks that libcuda loads,
``record_*`` append node descriptions, ``end`` chains them into a ``Graph``. This face keeps that
record exactly, **and** drives the simulated driver the way the doc comments say a real system
would:

* ``StreamCapture.begin(stream)`` calls ``cuStreamBeginCapture(stream, GLOBAL)`` on the simulated
  stream; ``record_kernel`` / ``record_memcpy`` / ``record_memset`` really enqueue a kernel launch,
  an async copy or an async memset onto the capturing stream (so the simulated capture graph gets
  the same nodes); ``end`` calls ``cuStreamEndCapture`` and returns the oxicuda ``Graph`` (linear
  chain). The simulated ``CUgraph`` it produced is ``Graph.cu_graph``.
* ``GraphExec.launch(stream)`` lowers the oxicuda graph to a simulated ``CUgraph`` (real kernel,
  memcpy, memset and empty nodes, one edge per distinct dependency), instantiates it once per
  driver and context, and calls ``cuGraphLaunch``: the replay shows up in ``driver.launch_log``.

oxicuda nodes carry no pointers and no ``CUfunction``: kernel nodes name a function, copy and set
nodes give a size. So this face keeps, per driver and context, a module per kernel name (a tiny
PTX image whose only entry is that name) and *scratch* buffers per size (device memory and pinned
host memory from ``cuMemAlloc`` / ``cuMemAllocHost``), so that copies and sets really move bytes.
Scratch is set up with the thread's capture mode exchanged to RELAXED (``cuThreadExchange
StreamCaptureMode``), which is how real code allocates while a GLOBAL capture is live; it never
adds a node to any capture.

Errors: the core raises ``DriverError(code, why)``; this face translates it once into the
``CudaError`` variant of that code, keeping ``why``. Python-level misuse that Rust's types would
reject at compile time raises ``TypeError`` (wrong type) or ``OverflowError`` (an integer that does
not fit ``u8``/``u32``/``usize``), as a PyO3 binding of oxicuda would.

This module holds the two recorders and is where users import every name of the face from (``__all__``); its
parts are :mod:`simcuda.faces.oxicuda.cuda_error` (``CudaError``, the translation),
:mod:`simcuda.faces.oxicuda.recorded_graph` (``Graph``, ``GraphNode``, ``MemcpyDirection``, ``GraphExec``) and
:mod:`simcuda.faces.oxicuda.driver_objects` (``Device``, ``Context``, ``Stream``). The face knows the core only through
``Driver``'s public entry points.
"""
from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable
from typing import Any, Literal

from ..._core.errors import DriverError
from ..._core.facade import Driver
from ..._generated.driver_enums import CUresult
from .cuda_error import U32, VARIANTS, CudaError, translate, translated, try_driver
from .driver_objects import CAPTURE_MODE_GLOBAL, Context, Device, Stream, as_stream, begin_capture
from .recorded_graph import (
    NO_ARGS,
    Graph,
    GraphExec,
    GraphNode,
    KernelLaunchNode,
    MemcpyDirection,
    MemcpyNode,
    MemsetNode,
    _no_driver,
    copy_params,
    immutable_launch,
    kernel_function,
    memset_params,
)

__all__ = ["CudaError", "MemcpyDirection", "GraphNode", "Graph", "GraphExec", "StreamCapture", "StreamGraphCapture",
           "Stream", "Context", "Device", "VARIANTS"]

# the classes of the face's parts show (and pickle) under this module, where users import them from
for _cls in (CudaError, MemcpyDirection, GraphNode, Graph, GraphExec, Stream, Context, Device):
    _cls.__module__ = __name__


# ================================================================================== StreamCapture
class StreamCapture:
    """Records operations on a stream into a :class:`Graph`, capturing them on the simulated driver.

    Mirrors: ``oxicuda_driver::graph::StreamCapture`` 0.1.x (``begin``, ``record_kernel``,
    ``record_memcpy``, ``record_memset``, ``recorded_count``, ``is_active``, ``end``). Made only by
    :meth:`begin`. Python courtesies on top: a context manager, and :attr:`graph`.

    Example (the oxicuda doc example)::

        capture = StreamCapture.begin(stream)
        capture.record_kernel("my_kernel", (4, 1, 1), (256, 1, 1), 0)
        capture.record_memcpy(MemcpyDirection.DeviceToHost, 1024)
        graph = capture.end()
        assert graph.node_count() == 2

        with StreamCapture.begin(stream) as cap:   # ends on exit; discards on an exception
            cap.record_memset(4096, 0)
        graph = cap.graph

    Attributes:
        graph: the :class:`Graph` returned by the successful :meth:`end` (or the ``with`` exit),
            else ``None``.
    """

    __slots__ = ("_stream", "_nodes", "_active", "graph", "_last_kernel")
    _stream: Stream
    _nodes: list[GraphNode]
    _active: bool
    graph: Graph | None
    _last_kernel: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("StreamCapture is made by StreamCapture.begin(stream)")

    @classmethod
    def begin(cls, stream: Stream | int) -> StreamCapture:
        """Begin capturing ``stream``: ``cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL)``.

        Args:
            stream: a :class:`Stream`, a driver face's ``CUstream`` (anything with ``__int__``) or an ``int`` stream
                handle of the simulated driver.

        Returns: an active recorder.

        Errors: ``CudaError.NotInitialized`` when the driver is unavailable
        (``Driver(available=False)``: oxicuda's ``try_driver`` fails); then the driver's own codes:
        ``StreamCaptureUnsupported`` (the legacy NULL stream, spec 3.1), ``IllegalState`` (already
        capturing), ``InvalidHandle`` / ``ContextIsDestroyed`` (bad or destroyed stream).

        Fidelity: oxicuda 0.1 ignores the stream and only checks the driver; here the capture is
        real, so the rules of the simulated driver (GLOBAL mode: potentially unsafe calls from
        other threads fail during the capture) apply until :meth:`end`.
        """
        cap, s, _drv = begin_capture(cls, stream, CAPTURE_MODE_GLOBAL)
        cap._stream = s
        cap._nodes = []
        cap._active = True
        cap.graph = None
        # the last record_kernel's (name, grid, block, shared_mem) objects, its node, and the (driver (weakly),
        # context, function) it launched: the same immutable arguments again make the same node
        cap._last_kernel = None
        return cap

    def stream(self) -> Stream:
        """The captured stream. A Python extra."""
        return self._stream

    def record_kernel(self, function_name: str, grid: tuple[int, int, int], block: tuple[int, int, int],
                      shared_mem: int) -> None:
        """Launch kernel ``function_name`` on the capturing stream and record it (oxicuda ``record_kernel``).

        Args:
            function_name: the kernel's entry name (a PTX identifier, for example ``"my_kernel"``).
            grid: grid dimensions ``(x, y, z)`` in blocks.
            block: block dimensions ``(x, y, z)`` in threads.
            shared_mem: dynamic shared memory in bytes.

        Returns: ``None`` (oxicuda returns no node handle). Ignored when the capture has ended, as in
        oxicuda (argument types are still checked).

        Errors (deviation: oxicuda's recorder cannot fail): the simulated ``cuLaunchKernel`` runs
        first and nothing is recorded if it fails: ``InvalidValue`` (a zero dimension, more than 1024
        threads per block), ``NotFound`` (a name that is not a PTX identifier),
        ``StreamCaptureInvalidated`` (the capture was invalidated by another call). ``TypeError`` /
        ``OverflowError`` for argument types.
        """
        last = self._last_kernel
        if (last is not None and function_name is last[0] and grid is last[1] and block is last[2]
                and shared_mem is last[3]):
            node = last[4]  # immutable arguments, converted before: the same (frozen) node
        else:
            node = KernelLaunchNode(function_name, grid, block, shared_mem)
            last = self._last_kernel = ((function_name, grid, block, shared_mem, node, _no_driver, 0, 0)
                                        if immutable_launch(function_name, grid, block, shared_mem) else None)
        if not self._active:
            return
        s = self._stream
        drv = s.driver
        try:
            ctx = s.context_handle()
            if last is not None and last[5]() is drv and ctx == last[6]:
                fn = last[7]
            else:
                fn = kernel_function(drv, ctx, node.function_name)
                if last is not None:
                    self._last_kernel = (*last[:5], weakref.ref(drv), ctx, fn)
            drv.launch_kernel_fast(fn, node.grid, node.block, node.shared_mem, s.raw(), NO_ARGS)
        except DriverError as e:
            raise translate(e) from None
        self._nodes.append(node)

    def record_memcpy(self, direction: MemcpyDirection, size: int) -> None:
        """Enqueue an async copy of ``size`` bytes on the capturing stream and record it
        (oxicuda ``record_memcpy``).

        The copy uses scratch buffers of this face (pinned host memory and device memory of
        ``size`` bytes, reused per size), through ``cuMemcpyHtoDAsync`` / ``DtoHAsync`` /
        ``DtoDAsync``, so the captured MEMCPY node moves real bytes when replayed.

        Args:
            direction: a :class:`MemcpyDirection`.
            size: bytes to copy (``usize``; 0 is allowed).

        Returns: ``None``; ignored after the capture ended. Errors: ``OutOfMemory`` when scratch does
        not fit the simulated device; ``StreamCaptureInvalidated``; ``TypeError`` / ``OverflowError``.
        """
        node = MemcpyNode(direction, size)
        if not self._active:
            return
        s, drv = self._stream, self._stream.driver
        with translated():
            p, call = copy_params(drv, s.context_handle(), node.direction, node.size)
            drv.memcpy(p, s.raw(), call)
        self._nodes.append(node)

    def record_memset(self, size: int, value: int) -> None:
        """Enqueue ``cuMemsetD8Async`` of ``size`` bytes to ``value`` on the capturing stream and
        record it (oxicuda ``record_memset``).

        Args:
            size: bytes to set (``usize``), in a scratch device buffer of that size.
            value: the byte value (``u8``).

        Returns: ``None``; ignored after the capture ended. Errors: as :meth:`record_memcpy`.
        """
        node = MemsetNode(size, value)
        if not self._active:
            return
        s, drv = self._stream, self._stream.driver
        with translated():
            drv.memset(memset_params(drv, s.context_handle(), node.size, node.value), s.raw(), "cuMemsetD8Async")
        self._nodes.append(node)

    def recorded_count(self) -> int:
        """Number of operations recorded so far (oxicuda ``recorded_count``)."""
        return len(self._nodes)

    def is_active(self) -> bool:
        """Whether :meth:`end` has not yet ended the capture (oxicuda ``is_active``).

        Fidelity: this is the recorder's flag, as in oxicuda; a capture that the driver invalidated
        is still "active" until :meth:`end` reports ``StreamCaptureInvalidated``.
        """
        return self._active

    def end(self) -> Graph:
        """End the capture (``cuStreamEndCapture``) and return the recorded operations as a Graph.

        Returns: a :class:`Graph` whose nodes are the recorded operations, chained linearly
        (``i -> i + 1``), as in oxicuda; its ``cu_graph`` is the simulated ``CUgraph`` the driver
        returned (the same nodes, one edge per consecutive pair). Also stored in :attr:`graph`.

        Errors: ``CudaError.StreamCaptureUnmatched`` when this recorder was already ended (oxicuda's
        documented error; Rust makes it unreachable because ``end`` consumes the recorder). Driver
        errors as their variant, e.g. ``StreamCaptureInvalidated`` (an earlier violation invalidated
        the capture: it is now over, no graph) or ``StreamCaptureWrongThread`` (ended from another
        thread: the capture goes on, invalidated, and :meth:`is_active` stays true so that the
        begin thread can end it).
        """
        if not self._active:
            raise CudaError.StreamCaptureUnmatched(
                f"StreamCapture.end(): the capture of {self._stream!r} was already ended by this recorder")
        s, drv = self._stream, self._stream.driver
        try:
            hg = drv.stream_end_capture(s.raw())
        except DriverError as e:
            self._active = self._still_capturing()
            raise translate(e) from None
        self._active = False
        g = Graph()
        g._nodes = list(self._nodes)
        g._deps = [(i, i + 1) for i in range(len(self._nodes) - 1)]
        g.cu_graph = hg
        self.graph = g
        return g

    def _still_capturing(self) -> bool:
        try:
            return self._stream.driver.stream_is_capturing(self._stream.raw()) != 0
        except DriverError:
            return False

    def _discard(self) -> None:
        """End the simulated capture and destroy its graph, ignoring driver errors."""
        drv = self._stream.driver
        try:
            hg = drv.stream_end_capture(self._stream.raw())
        except DriverError:
            self._active = self._still_capturing()
            return
        self._active = False
        with contextlib.suppress(DriverError):
            drv.graph_destroy(hg)

    def __enter__(self) -> StreamCapture:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> Literal[False]:
        """On a normal exit, :meth:`end` (if not ended yet; its errors propagate). On an exception,
        end the simulated capture, discard its graph, and let the exception propagate."""
        if exc_type is None:
            if self._active:
                self.end()
        elif self._active:
            self._discard()
        return False

    def __repr__(self) -> str:
        state = "active" if self._active else "ended"
        return f"<StreamCapture on stream 0x{self._stream.raw():x}, {state}, {len(self._nodes)} recorded>"


def _end_abandoned(drv_ref: Callable[[], Driver | None], stream: int, state: list[bool]) -> None:
    """oxicuda 0.5 ``Drop for StreamGraphCapture``: a capture still active when its object goes away is ended
    (``cuStreamEndCapture``) and the graph the driver hands back destroyed; errors are ignored."""
    drv = drv_ref()
    if drv is None or not state[0]:
        return
    state[0] = False
    with contextlib.suppress(Exception):
        hg = drv.stream_end_capture(stream)
        if hg:
            drv.graph_destroy(hg)


class StreamGraphCapture:
    """Driver-backed stream capture (oxicuda 0.5 ``StreamGraphCapture``): ordinary work submitted to the stream
    between :meth:`begin` and :meth:`end` is captured by the (simulated) driver, and :meth:`end` instantiates
    the captured graph into a launchable :class:`GraphExec`.

    Mirrors: ``oxicuda_driver::graph::StreamGraphCapture<'s>`` of oxicuda-driver 0.5
    (``crates/oxicuda-driver/src/graph.rs``): ``begin(&Stream, CUstreamCaptureMode)``, ``is_active``,
    ``capture_status``, ``end(self) -> GraphExec``, and ``Drop``, which ends a capture still active and destroys
    the graph it returns. In Python the object "goes away" on the exit of a ``with`` block and when it is
    garbage-collected: both end an active capture that way (no :class:`GraphExec` is made; call :meth:`end`
    inside the block to get one).

    Where :class:`StreamCapture` records operation descriptions (``record_*``), this one records nothing
    itself: launch kernels, copies and memsets on the stream through any face of the same driver (the
    ``cuda.bindings`` faces, or the oxicuda ones) and the driver captures them.

    Example::

        with StreamGraphCapture.begin(stream, CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL) as cap:
            cuMemsetD8Async(ptr, 0, 1024, stream.raw())   # captured, not run
            exec_ = cap.end()                             # cuStreamEndCapture + instantiate
        exec_.launch(stream)                              # cuGraphLaunch: now it runs
    """

    __slots__ = ("_stream", "_state", "__weakref__")
    _stream: Stream
    _state: list[bool]  # [active], shared with the finalizer

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("StreamGraphCapture is made by StreamGraphCapture.begin(stream, mode)")

    @classmethod
    def begin(cls, stream: Stream | int, mode: int) -> StreamGraphCapture:
        """Begin capturing ``stream`` in capture ``mode``: ``cuStreamBeginCapture_v2(stream, mode)``.

        Args:
            stream: a :class:`Stream`, a driver face's ``CUstream`` (anything with ``__int__``) or an ``int`` stream
                handle of the simulated driver.
            mode: a ``CUstreamCaptureMode`` (``CU_STREAM_CAPTURE_MODE_GLOBAL`` 0, ``THREAD_LOCAL`` 1,
                ``RELAXED`` 2), as an enum member or ``int`` (oxicuda's ``CUstreamCaptureMode`` is a ``u32``).

        Returns: an active capture.

        Errors: ``NotInitialized`` when the driver is unavailable (``try_driver``); then the driver's codes:
        ``InvalidValue`` (a mode outside the enum), ``StreamCaptureUnsupported`` (the legacy NULL stream, spec
        3.1), ``IllegalState`` (already capturing), ``InvalidHandle`` / ``ContextIsDestroyed``. ``TypeError``
        for a mode that is not an integer, ``OverflowError`` for one that does not fit ``u32``.
        """
        s = as_stream(stream)  # (the stream's errors before the mode's, as oxicuda converts them)
        cap, s, drv = begin_capture(cls, s, _u32(mode, "mode"))
        cap._stream = s
        cap._state = [True]
        weakref.finalize(cap, _end_abandoned, weakref.ref(drv), s.raw(), cap._state)
        return cap

    def is_active(self) -> bool:
        """Whether :meth:`end` has not ended the capture yet (oxicuda 0.5 ``is_active``: the object's own flag;
        a capture the driver invalidated stays active until :meth:`end` reports it)."""
        return self._state[0]

    def capture_status(self) -> Any:
        """The driver's capture status of the stream, ``cuStreamIsCapturing`` (oxicuda 0.5 ``capture_status``).

        Returns: a ``CUstreamCaptureStatus`` (``NONE`` 0, ``ACTIVE`` 1, ``INVALIDATED`` 2; an ``IntEnum``).

        Errors: ``NotInitialized`` when the driver is unavailable; the driver's codes for the stream
        (``InvalidHandle`` for a destroyed one...).
        """
        from ..._generated.driver_enums import CUstreamCaptureStatus
        drv = self._stream.driver
        try_driver(drv)
        with translated():
            return CUstreamCaptureStatus(drv.stream_is_capturing(self._stream.raw()))

    def end(self) -> GraphExec:
        """End the capture (``cuStreamEndCapture``) and instantiate the captured graph (oxicuda 0.5 ``end``).

        Returns: a :class:`GraphExec` that owns the captured ``CUgraph`` and its ``CUgraphExec``
        (``cuGraphInstantiateWithFlags(graph, 0)``): :meth:`GraphExec.launch` replays the captured work with
        ``cuGraphLaunch``; :meth:`GraphExec.node_count` is the captured graph's node count
        (``cuGraphGetNodes``), and its :meth:`GraphExec.graph` a linear chain of that many empty nodes, as
        oxicuda models it (the captured edges are not re-read); :meth:`GraphExec.is_driver_backed` is true.
        Both handles are destroyed when the exec goes away.

        Errors: ``NotInitialized`` (driver); the driver's codes of ``cuStreamEndCapture``:
        ``IllegalState`` when the stream is not capturing (this capture was already ended: oxicuda's ``end``
        consumes the object, so Rust cannot call it twice), ``StreamCaptureInvalidated`` (the capture is over,
        no graph), ``StreamCaptureWrongThread`` (the capture goes on; :meth:`is_active` stays true); the codes
        of instantiation, after which the captured graph is destroyed, as in oxicuda.
        """
        s = self._stream
        drv = s.driver
        try_driver(drv)
        try:
            hg = drv.stream_end_capture(s.raw())
        except DriverError as e:
            if int(e.code) != int(CUresult.CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD):
                self._state[0] = self._state[0] and _capturing(drv, s.raw())
            raise translate(e) from None
        self._state[0] = False
        try:
            try:
                count = len(drv.graph_get_nodes(hg))
            except DriverError:
                count = 0  # oxicuda: query_node_count(...).unwrap_or(0)
            model = Graph()
            for i in range(count):
                model._nodes.append(GraphNode.Empty)
                if i:
                    model._deps.append((i - 1, i))
            order = model.topological_sort()
            hexec = drv.graph_instantiate(hg, 0)
        except DriverError as e:
            with contextlib.suppress(DriverError):
                drv.graph_destroy(hg)
            raise translate(e) from None
        return GraphExec._captured(model, order, drv, hg, hexec)

    def __enter__(self) -> StreamGraphCapture:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> Literal[False]:
        """The object goes away (oxicuda's ``Drop``): a capture still active is ended and its graph destroyed;
        an exception propagates."""
        _end_abandoned(weakref.ref(self._stream.driver), self._stream.raw(), self._state)
        return False

    def __repr__(self) -> str:
        state = "active" if self._state[0] else "ended"
        return f"<StreamGraphCapture on stream 0x{self._stream.raw():x}, {state}>"


def _capturing(drv: Driver, h: int) -> bool:
    """Whether stream ``h`` is still capturing (errors: no)."""
    try:
        return drv.stream_is_capturing(h) != 0
    except DriverError:
        return False


def _u32(v: Any, what: str) -> int:
    """A ``u32`` argument: an ``int`` (or enum member) in [0, 2**32) (TypeError / OverflowError otherwise)."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{what} must be an int (u32), not {type(v).__name__}")
    if not 0 <= int(v) < U32:
        raise OverflowError(f"{what} {int(v)} does not fit u32")
    return int(v)
