"""What the native adapter modules share: the current driver, the arrays kept alive for C, the stream rule.

The leaf the adapters (:mod:`simcuda.faces.native.adapters`) and their decoders (:mod:`.structs`, :mod:`.misc`)
all import, so none of them imports another to reach these (no import cycle, issue 18 item 1).
"""
from __future__ import annotations

from typing import Any

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
