"""Batch memory operations (``cuStreamBatchMemOp``, BATCH_MEM_OP nodes): their types and wait conditions, and how
they run against a driver's memory (writes store their value, waits evaluate their condition).

Knows nothing of streams, captures or graphs (an operation is ``(type, device address, value, flags)``, as
``simcuda._core.objects.MemOp``): the stream entry and the BATCH_MEM_OP node kind
(:mod:`simcuda._core.graphs.nodes`, which re-exports these names) both run operations through :func:`run_mem_ops`.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from ..errors import CUresult, DriverError

#: one batch memory operation ``(CUstreamBatchMemOpType, device address, value, flags)``
MemOpT = tuple[int, int, int, int]
C = TypeVar("C")


class DeviceBytes(Protocol):
    """The memory operations run against (:class:`simcuda._core.memory.memory_model.MemorySpace` is one)."""

    def device_view(self, addr: int, nbytes: int, what: str = "pointer") -> memoryview: ...


class Span(Protocol):
    """An allocation's extent (:class:`simcuda._core.memory.memory_model.Allocation` is one)."""

    @property
    def start(self) -> int: ...
    @property
    def size(self) -> int: ...


class AllocationFinder(Protocol):
    """The allocation look-up the checks of :func:`check_mem_ops` use
    (:class:`~simcuda._core.memory.memory_model.MemorySpace`)."""

    def find(self, addr: int) -> Span | None: ...


# CUstreamBatchMemOpType
MEMOP_WAIT_VALUE_32, MEMOP_WRITE_VALUE_32, MEMOP_FLUSH_REMOTE_WRITES = 1, 2, 3
MEMOP_WAIT_VALUE_64, MEMOP_WRITE_VALUE_64, MEMOP_BARRIER, MEMOP_ATOMIC_REDUCTION = 4, 5, 6, 8
MEMOP_NAMES = {1: "WAIT_VALUE_32", 2: "WRITE_VALUE_32", 3: "FLUSH_REMOTE_WRITES", 4: "WAIT_VALUE_64",
               5: "WRITE_VALUE_64", 6: "BARRIER", 8: "ATOMIC_REDUCTION"}
#: CUstreamWaitValue_flags: the condition bits and the FLUSH bit
WAIT_CONDITIONS = {0: "GEQ", 1: "EQ", 2: "AND", 3: "NOR"}
WAIT_VALUE_FLUSH = 1 << 30


def run_mem_ops(mem: DeviceBytes, ops: tuple[tuple[int, int, int, int], ...]) -> str:
    """Run batch memory operations: writes store their value, waits evaluate their condition.

    Fidelity: a wait whose condition does not hold would block the GPU stream until another agent
    writes the location; the simulator cannot wait for that, so it goes on and says so in the note.
    """
    notes = []
    for op, address, value, flags in ops:
        if op in (MEMOP_WRITE_VALUE_32, MEMOP_WRITE_VALUE_64):
            n = 4 if op == MEMOP_WRITE_VALUE_32 else 8
            mem.device_view(address, n, "write-value address")[:] = int(value).to_bytes(n, "little")
            notes.append(f"wrote {value} to 0x{address:x}")
        elif op in (MEMOP_WAIT_VALUE_32, MEMOP_WAIT_VALUE_64):
            n = 4 if op == MEMOP_WAIT_VALUE_32 else 8
            cur = int.from_bytes(bytes(mem.device_view(address, n, "wait-value address")), "little")
            ok = wait_condition(cur, int(value), flags & 3, n)
            cond = WAIT_CONDITIONS[flags & 3]
            notes.append(f"wait {cond} {value} at 0x{address:x}: " + ("condition holds" if ok else
                         f"condition does not hold (value {cur}); a GPU would wait here, the simulator goes on"))
        else:
            notes.append(f"{MEMOP_NAMES.get(op, op)}: no-op in the simulator")
    return "; ".join(notes)


def wait_condition(cur: int, value: int, cond: int, nbytes: int) -> bool:
    """``cuStreamWaitValue*`` conditions: GEQ is cyclic ``(int)(cur - value) >= 0``; EQ; AND; NOR."""
    bits = 8 * nbytes
    mask = (1 << bits) - 1
    if cond == 0:
        diff = (cur - value) & mask
        return diff < (1 << (bits - 1))
    if cond == 1:
        return cur == value
    if cond == 2:
        return bool(cur & value)
    return bool(~(cur | value) & mask)


def check_mem_ops(memory: AllocationFinder, ops: Sequence[Sequence[int]], flags: int, context: Callable[[], C],
                  what: str) -> tuple[tuple[MemOpT, ...], C]:
    """Checked batch memory operations (``cuStreamBatchMemOp``, a BATCH_MEM_OP node, the WaitValue / WriteValue
    calls) and their context: ``(operations as (type, address, value, flags) tuples, context)``.

    Args:
        memory: the driver's memory (its allocations hold the addresses of waits and writes).
        ops: ``(CUstreamBatchMemOpType, device address, value, flags)`` per operation, fewer than 256.
        flags: the call's flags (reserved: 0).
        context: called once the flags and count passed: the context of the operations (it raises the
            context's own errors, so they come in the driver's order).
        what: the call or node named in ``why`` texts.
    Errors: 1 INVALID_VALUE flags not 0, 256 operations or more, an unknown operation type, a wait or write
        address outside a device allocation or not aligned to its width, a value wider than it, unknown wait or
        write flags; the errors of ``context``.
    """
    if flags != 0:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{what}: flags must be 0 (reserved), got {flags}")
    if len(ops) > 255:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{what}: {len(ops)} operations; the count must be less than 256")
    ctx = context()
    out = []
    for i, (op, addr, value, fl) in enumerate(ops):
        op, addr, value, fl = int(op), int(addr), int(value), int(fl)
        if op not in MEMOP_NAMES:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{what}: operation {i} has unknown type {op} (CUstreamBatchMemOpType)")
        if op in (MEMOP_WAIT_VALUE_32, MEMOP_WRITE_VALUE_32, MEMOP_WAIT_VALUE_64,
                  MEMOP_WRITE_VALUE_64):
            n = 4 if op in (MEMOP_WAIT_VALUE_32, MEMOP_WRITE_VALUE_32) else 8
            a = memory.find(addr)
            if a is None or addr + n > a.start + a.size:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{what}: operation {i} ({MEMOP_NAMES[op]}) address 0x{addr:x} is not "
                                  "inside a device allocation")
            if addr % n:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{what}: operation {i} address 0x{addr:x} is not {n}-byte aligned")
            if not 0 <= value < 1 << (8 * n):
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{what}: operation {i} value {value} does not fit in {8 * n} bits")
            if op in (MEMOP_WAIT_VALUE_32, MEMOP_WAIT_VALUE_64):
                if fl & ~(3 | WAIT_VALUE_FLUSH):
                    raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                      f"{what}: operation {i} has unknown wait flags 0x{fl:x}")
            elif fl not in (0, 1):
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{what}: operation {i} has unknown write flags 0x{fl:x}")
        out.append((op, addr, value, fl))
    return tuple(out), ctx
