"""The simulator's own logs: what ran (``driver.launch_log``) and what failed (``driver.error_log``)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice
from typing import overload

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

    Fidelity: nothing in CUDA corresponds to the log; it is the simulator's account of what ran.
    """

    __slots__ = ("_buf", "_start", "limit", "total")
    __hash__ = None  # type: ignore[assignment]  # mutable, compares by value

    def __init__(self, limit: int | None = DEFAULT_LAUNCH_LOG_LIMIT) -> None:
        _check_launch_log_limit(None, None, limit)
        self._buf: list[LaunchRecord] = []
        self._start = 0  # index in _buf of the oldest record once the buffer is full
        self.limit = limit
        self.total = 0

    @property
    def dropped(self) -> int:
        """Records made since the last :meth:`clear` that the bound dropped (or the off switch never kept)."""
        return self.total - len(self._buf)

    def append(self, rec: LaunchRecord) -> None:
        """Keep ``rec`` (dropping the oldest record when the log is full) and count it.

        The driver calls this with the record numbered ``seq == self.total``; the record is stored as given.
        """
        self.total += 1
        limit = self.limit
        buf = self._buf
        if limit is None or len(buf) < limit:
            buf.append(rec)
        elif limit:
            buf[self._start] = rec
            self._start = (self._start + 1) % limit

    def clear(self) -> None:
        """Drop every record and restart the count: the next record has ``seq`` 0."""
        self._buf = []
        self._start = 0
        self.total = 0

    def __len__(self) -> int:
        return len(self._buf)

    @overload
    def __getitem__(self, i: int) -> LaunchRecord: ...
    @overload
    def __getitem__(self, i: slice) -> list[LaunchRecord]: ...
    def __getitem__(self, i: int | slice) -> LaunchRecord | list[LaunchRecord]:
        buf, start = self._buf, self._start
        if isinstance(i, slice):
            if not start:
                return buf[i]
            return list(self)[i]
        n = len(buf)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("launch log index out of range")
        return buf[(start + i) % n] if start else buf[i]

    def __iter__(self) -> Iterator[LaunchRecord]:
        buf, start = self._buf, self._start
        if not start:
            return iter(buf)
        return iter(list(islice(buf, start, None)) + buf[:start])

    def __reversed__(self) -> Iterator[LaunchRecord]:
        return reversed(list(self))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (LaunchLog, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __repr__(self) -> str:
        return (f"LaunchLog({len(self)} records kept of {self.total}, limit "
                f"{'none' if self.limit is None else f'{self.limit:,}'})")


@attrs.frozen
class ErrorRecord:
    """A failed core call: its name, code and why (for ``simcuda run --explain``)."""

    call: str
    code: int
    why: str
    thread: str
