"""The simulator's own logs: what ran (``driver.launch_log``) and what failed (``driver.error_log``)."""
from __future__ import annotations

import weakref
from array import array
from collections.abc import Iterator, Sequence
from typing import Any, overload

import attrs

from .config import DEFAULT_LAUNCH_LOG_LIMIT, _check_launch_log_limit


@attrs.frozen
class LaunchRecord:
    """One unit of work that ran (``driver.launch_log``).

    Attributes:
        seq: 0-based number of the record among all the records the driver made since it was created
            or its log was last cleared, dropped ones included (:class:`LaunchLog`), so with a bounded
            log ``launch_log[0].seq`` is how many older records were dropped.
        source: ``"stream"`` (ordinary stream work) or ``"graph"`` (a node replayed by cuGraphLaunch).
        kind: ``KERNEL``, ``MEMCPY``, ``MEMSET``, ``HOST``, ... (graph node type keyword) or the op kind.
        detail: kernel name, copy direction and size, and the like.
        stream: the stream handle the work ran on.
        exec_handle: the graph exec handle (graph work only), else 0.
        launch: the exec's 1-based launch number (graph work only), else 0.
        graph_id: the id of the graph the node belongs to (graph work only), else 0.
        node: the node's local id (graph work only), else -1.
        note: what the simulator did beyond recording (``"ran Python kernel"``, ``"recorded only"``...).
    """

    seq: int
    source: str
    kind: str
    detail: str
    stream: int
    exec_handle: int = 0
    launch: int = 0
    graph_id: int = 0
    node: int = -1
    note: str = ""


class LaunchLog(Sequence[LaunchRecord]):
    """``driver.launch_log``: a :class:`LaunchRecord` per unit of work that ran, oldest first, bounded.

    A read-only sequence (``len``, indexing and slicing, iteration, ``==`` with a list or tuple of
    records, ``clear()``). It keeps the **most recent** ``limit`` records (``Options.launch_log_limit``,
    default 1,000,000): once full, each new record drops the oldest one (a ring buffer, O(1) per
    record), so ``log[-1]`` is always the latest work. ``limit`` 0 keeps nothing (the off switch: no
    record is even built); ``None`` keeps everything.

    Every record made counts, kept or not: :attr:`total` is the number made since the driver was
    created or :meth:`clear` was last called, which is also the next record's ``seq``; :attr:`dropped`
    is ``total - len(log)``. ``clear()`` empties the log and restarts the count (and ``seq``) at 0.

    Storage is compact: a record is kept as three columns, a shared *row* tuple ``(source, kind, detail,
    stream, exec_handle, launch, graph_id)`` (the same tuple for every node of a replay with the same
    description), the node's local id (an ``array``) and the note (a shared string); ``seq`` is its
    place. :class:`LaunchRecord` objects are made when read, and a record read again while the first
    one is still referenced is that same object.

    Fidelity: nothing in CUDA corresponds to the log; it is the simulator's account of what ran.
    """

    __slots__ = ("_rows", "_nodes", "_notes", "_start", "_limit", "total", "_given", "_seen")
    __hash__ = None  # type: ignore[assignment]  # mutable, compares by value

    def __init__(self, limit: int | None = DEFAULT_LAUNCH_LOG_LIMIT) -> None:
        _check_launch_log_limit(None, None, limit)
        self._rows: list[tuple[Any, ...]] = []  # (source, kind, detail, stream, exec_handle, launch, graph_id)
        self._nodes = array("q")
        self._notes: list[str] = []
        self._start = 0  # position of the oldest record once the buffer is full
        self._limit = limit
        self.total = 0
        self._given: dict[int, LaunchRecord] = {}  # seq -> record given to append() (kept as given)
        self._seen: dict[int, Any] = {}  # seq -> weak reference to the record last handed out

    @property
    def dropped(self) -> int:
        """Records made since the last :meth:`clear` that the bound dropped (or the off switch never kept)."""
        return self.total - len(self._nodes)

    @property
    def limit(self) -> int | None:
        """How many records the log keeps (``Options.launch_log_limit``): fixed when the driver is made."""
        return self._limit

    def add(self, row: tuple[Any, ...], node: int, note: str) -> None:
        """Keep the record numbered :attr:`total` (dropping the oldest when the log is full) and count it.

        ``row`` is ``(source, kind, detail, stream, exec_handle, launch, graph_id)`` (share one tuple between
        records that have the same), ``node`` the node's local id (-1 for stream work), ``note`` the note.
        """
        seq = self.total
        self.total = seq + 1
        limit = self._limit
        nodes = self._nodes
        if limit is None or len(nodes) < limit:
            self._rows.append(row)
            nodes.append(node)
            self._notes.append(note)
        elif limit:
            i = self._start
            self._rows[i] = row
            nodes[i] = node
            self._notes[i] = note
            self._start = i + 1 if i + 1 < limit else 0
            if self._given:
                self._given.pop(seq - limit, None)  # the record this one dropped

    def append(self, rec: LaunchRecord) -> None:
        """Keep ``rec`` (dropping the oldest record when the log is full) and count it.

        The driver makes its records with :meth:`add`; a record given here is numbered ``seq ==
        self.total`` by the driver's convention, and is stored as given (reading it back gives ``rec``).
        """
        seq = self.total
        self.add((rec.source, rec.kind, rec.detail, rec.stream, rec.exec_handle, rec.launch, rec.graph_id),
                 rec.node, rec.note)
        if self._limit != 0:
            self._given[seq] = rec

    def clear(self) -> None:
        """Drop every record and restart the count: the next record has ``seq`` 0."""
        self._rows = []
        self._nodes = array("q")
        self._notes = []
        self._start = 0
        self.total = 0
        self._given = {}
        self._seen = {}

    def __len__(self) -> int:
        return len(self._nodes)

    def _record(self, k: int) -> LaunchRecord:
        """The ``k``-th kept record (0 the oldest), as a :class:`LaunchRecord`: the one handed out before
        while it is still referenced, else a new one (remembered weakly)."""
        n = len(self._nodes)
        seq = self.total - n + k
        r: LaunchRecord | None = self._given.get(seq) if self._given else None
        if r is not None:
            return r
        ref = self._seen.get(seq)
        if ref is not None:
            r = ref()
            if r is not None:
                return r
        pos = (self._start + k) % n if self._start else k
        row = self._rows[pos]
        r = LaunchRecord(seq, row[0], row[1], row[2], row[3], row[4], row[5], row[6], self._nodes[pos],
                         self._notes[pos])
        seen = self._seen
        if len(seen) >= 1024 and not len(seen) & (len(seen) - 1):  # at each power of two: drop dead ones
            for key in [key for key, ref in seen.items() if ref() is None]:
                del seen[key]
        seen[seq] = weakref.ref(r)
        return r

    @overload
    def __getitem__(self, i: int) -> LaunchRecord: ...
    @overload
    def __getitem__(self, i: slice) -> list[LaunchRecord]: ...
    def __getitem__(self, i: Any) -> Any:
        n = len(self._nodes)
        if isinstance(i, slice):
            return [self._record(k) for k in range(*i.indices(n))]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("launch log index out of range")
        return self._record(i)

    def __iter__(self) -> Iterator[LaunchRecord]:
        record = self._record
        for k in range(len(self._nodes)):
            yield record(k)

    def __reversed__(self) -> Iterator[LaunchRecord]:
        return reversed(list(self))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (LaunchLog, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __repr__(self) -> str:
        return (f"LaunchLog({len(self)} records kept of {self.total}, limit "
                f"{'none' if self._limit is None else f'{self._limit:,}'})")


@attrs.frozen
class ErrorRecord:
    """A failed core call: its name, code and why (for ``simcuda run --explain``); ``internal`` True for a call
    answered ``CUDA_ERROR_UNKNOWN`` (999) because simcuda itself raised (a simulator bug, :func:`internal_why`)."""

    call: str
    code: int
    why: str
    thread: str
    internal: bool = False


#: the title under which ``simcuda run --explain`` and the pytest report list the internal errors
INTERNAL_TITLE = "internal errors (a simcuda bug: please report)"


def internal_why(exc: BaseException) -> str:
    """The ``why`` of a call answered 999 because ``exc`` (neither a ``DriverError`` nor a kernel's own exception)
    escaped simcuda: says it is a simulator bug, with the exception's type, message and where it was raised (the
    innermost frame of its traceback: file, line, function)."""
    where = ""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None:
        code = tb.tb_frame.f_code
        where = f" at {code.co_filename}:{tb.tb_lineno} in {code.co_name}"
    return (f"a simcuda bug (please report it): {type(exc).__module__}.{type(exc).__qualname__}: {exc}{where}; "
            "the call answered CUDA_ERROR_UNKNOWN (999) and simcuda's state may be inconsistent")


class Counters:
    """The counters of one driver (a service of ``DriverState``; ``Driver.stats`` reads them): captures begun and
    ended, graph launches, and the kernels that ran with no Python implementation (name -> runs).

    A counter changes only when the counted thing happens, never on a refused call (see ``Driver``). The
    kernel-launch counter is a public slot, :attr:`kernel_launches`, that the one launch path increments itself
    (``counters.kernel_launches += 1``: a slot store, the cheapest increment for its hot path); it joins the
    others when they are read (:meth:`counts`).
    """

    __slots__ = ("_counts", "unimplemented", "kernel_launches")

    def __init__(self) -> None:
        self._counts = {"captures_begun": 0, "captures_ended": 0, "graph_launches": 0, "kernel_launches": 0}
        #: kernel name -> runs with no Python kernel registered (``Driver.kernels_without_implementation``)
        self.unimplemented: dict[str, int] = {}
        #: cuLaunchKernel-family calls the stream took (``stats["kernel_launches"]``), counted by the launch path
        self.kernel_launches = 0

    def count(self, name: str) -> None:
        """One more ``name`` (``"captures_begun"``, ``"captures_ended"`` or ``"graph_launches"``)."""
        self._counts[name] += 1

    def counts(self) -> dict[str, int]:
        """The counters, with :attr:`kernel_launches` as the launch path counted them (the same dict on every
        read)."""
        c = self._counts
        c["kernel_launches"] = self.kernel_launches
        return c
