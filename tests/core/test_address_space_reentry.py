"""The process address space survives a driver's finalizer running inside its own lock (a garbage collection
during an allocation): the retire re-enters, the allocation goes on, nothing deadlocks."""
from __future__ import annotations

import threading

from simcuda._core import process


def test_a_retire_inside_take_does_not_deadlock() -> None:
    """A chunk retired (as a dropped driver's finalizer does) while take() reserves address space: both finish,
    the new chunk is recorded and the retired bytes leave the count."""
    space = process.AddressSpace()
    space.committed = 64
    real = space._reserve

    def reserve_with_a_collection(span: int) -> tuple[int, object]:
        space.retire([], 64)  # what a collection that drops another driver runs, on this thread
        return real(span)

    space._reserve = reserve_with_a_collection  # type: ignore[method-assign]
    done: list[process.Chunk] = []
    t = threading.Thread(target=lambda: done.append(space.take(1, owner=7)), daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "take() deadlocked on its own lock"
    assert len(done) == 1 and done[0].owner == 7
    assert space.owner(done[0].start) == 7
    assert space.committed == 0
    process.AddressSpace.decommit(done[0].start, done[0].end - done[0].start)
