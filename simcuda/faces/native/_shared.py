"""What the native adapter modules share: the current driver, the arrays kept alive for C, the stream rule.

The leaf the adapters (:mod:`simcuda.faces.native.adapters`) and their decoders (:mod:`.structs`, :mod:`.misc`)
all import, so none of them imports another to reach these (no import cycle, issue 18 item 1).
"""
from __future__ import annotations

import contextlib
from typing import Any

from ... import _state
from ..._state import face_driver

CU_STREAM_PER_THREAD = 2

#: arrays handed out to C, kept alive until the same thread (or node) asks the same entry again
KEPT: dict[tuple[int, str], Any] = {}

#: the current simulated driver (the one the Python faces use too: ``simcuda.use``/``reset`` switch both)
drv = face_driver


def stream(h: int | None, ptds: bool) -> int:
    """A stream argument as the core takes it: NULL is the default stream of the entry's mode (the per-thread
    one, ``CU_STREAM_PER_THREAD``, for the ``_ptds`` variants)."""
    return h or (CU_STREAM_PER_THREAD if ptds else 0)


def record_bug(call: str, exc: BaseException) -> None:
    """Record in the current driver's ``error_log`` that ``call`` answered 999 because ``exc`` escaped simcuda (a
    simulator bug: :meth:`simcuda._core.state.DriverState.record_internal_error`); nothing when no driver exists.
    Never raises (it runs inside a C callback's last line of defence)."""
    d = _state._current
    if d is None:
        return
    with contextlib.suppress(BaseException):  # the bug is already being reported on stderr
        d.record_internal_error(call, exc)
