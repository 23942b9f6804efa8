"""Occupancy: how many blocks of a kernel fit on one multiprocessor, computed as NVIDIA's occupancy calculator
computes it, from the kernel's attributes and the device's limits (issue 20).

Mirrors the arithmetic behind ``cuOccupancyMaxActiveBlocksPerMultiprocessor(WithFlags)``,
``cuOccupancyMaxPotentialBlockSize(WithFlags)`` and ``cuOccupancyAvailableDynamicSMemPerBlock`` (the CUDA
Programming Guide's "Occupancy Calculator", and the occupancy calculator spreadsheet / ``cuda_occupancy.h`` shipped
with the toolkit): a block is resident while the multiprocessor has room for its warps, its registers and its
shared memory, and fewer than its maximum number of blocks. The pure functions here take plain numbers
(:class:`SMLimits`, :class:`KernelUse`); the entries build them from ``CUdevice_attribute`` values and the
kernel's ``CUfunction_attribute`` values (NUM_REGS, SHARED_SIZE_BYTES, MAX_THREADS_PER_BLOCK).

Fidelity [I]: the granularities are those NVIDIA publishes for compute capability 7.0 and later (registers
allocated per warp in units of 256, shared memory in units of 128 bytes, 1 KiB reserved per block from 8.0 on
as ``CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK``), and the shared memory carveout is the largest the
device has (the driver's choice for a kernel without a preference). The kernel's register count is the engine's
estimate (docs/kernels.md, NUM_REGS), so figures for register-bound kernels differ from a real GPU's; figures for
thread- and shared-memory-bound ones are NVIDIA's.
"""
from __future__ import annotations

from collections.abc import Callable

import attrs

#: registers are allocated per warp in units of this many [I: compute capability 7.0 and later]
REG_ALLOC_UNIT = 256
#: shared memory is allocated per block in units of this many bytes [I]
SMEM_ALLOC_UNIT = 128


@attrs.frozen
class SMLimits:
    """What one multiprocessor of a device holds (``CUdevice_attribute`` values).

    Attributes:
        threads: MAX_THREADS_PER_MULTIPROCESSOR.
        blocks: MAX_BLOCKS_PER_MULTIPROCESSOR.
        regs: MAX_REGISTERS_PER_MULTIPROCESSOR.
        regs_per_block: MAX_REGISTERS_PER_BLOCK.
        smem: MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, bytes.
        smem_per_block: MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, bytes (what one block may use at most).
        reserved_smem: RESERVED_SHARED_MEMORY_PER_BLOCK, bytes the system takes per resident block.
        warp_size: WARP_SIZE.
        threads_per_block: MAX_THREADS_PER_BLOCK.
        sms: MULTIPROCESSOR_COUNT.
    """

    threads: int
    blocks: int
    regs: int
    regs_per_block: int
    smem: int
    smem_per_block: int
    reserved_smem: int
    warp_size: int
    threads_per_block: int
    sms: int


@attrs.frozen
class KernelUse:
    """What one block of a kernel needs (``CUfunction_attribute`` values).

    Attributes:
        regs: NUM_REGS, registers per thread (0: unknown, no register limit).
        static_smem: SHARED_SIZE_BYTES, bytes of static shared memory.
        max_threads: MAX_THREADS_PER_BLOCK, the kernel's own limit.
        max_dynamic_smem: MAX_DYNAMIC_SHARED_SIZE_BYTES, the dynamic shared memory a launch may ask for.
    """

    regs: int
    static_smem: int
    max_threads: int
    max_dynamic_smem: int


def _round_up(n: int, unit: int) -> int:
    return -(-n // unit) * unit


def _limit_by_regs(sm: SMLimits, k: KernelUse, warps: int) -> int:
    if k.regs <= 0:
        return sm.blocks
    per_warp = _round_up(k.regs * sm.warp_size, REG_ALLOC_UNIT)
    if per_warp * warps > sm.regs_per_block:
        return 0
    return (sm.regs // per_warp) // warps


def block_smem(sm: SMLimits, k: KernelUse, dynamic: int) -> int:
    """The shared memory one resident block takes, in bytes: static plus dynamic plus the reserved part, rounded
    up to the allocation unit."""
    return _round_up(k.static_smem + dynamic + sm.reserved_smem, SMEM_ALLOC_UNIT)


def max_active_blocks(sm: SMLimits, k: KernelUse, block_size: int, dynamic_smem: int) -> int:
    """The number of blocks of ``block_size`` threads, each with ``dynamic_smem`` bytes of dynamic shared memory,
    that one multiprocessor holds at once: the least of the limits by blocks, warps, registers and shared memory;
    0 when one block does not fit (more threads than the kernel or device allows, more registers than a block may
    have, more shared memory than a block may use)."""
    if block_size <= 0 or block_size > min(k.max_threads, sm.threads_per_block):
        return 0
    if k.static_smem + dynamic_smem > sm.smem_per_block:
        return 0
    warps = -(-block_size // sm.warp_size)
    by_warps = (sm.threads // sm.warp_size) // warps
    smem = block_smem(sm, k, dynamic_smem)
    by_smem = sm.smem // smem if smem else sm.blocks
    return max(0, min(sm.blocks, by_warps, _limit_by_regs(sm, k, warps), by_smem))


def available_dynamic_smem(sm: SMLimits, k: KernelUse, num_blocks: int, block_size: int) -> int:
    """The most dynamic shared memory, in bytes, each block may ask for so that ``num_blocks`` blocks of
    ``block_size`` threads stay resident on one multiprocessor at once (0 when they do not fit even without)."""
    if num_blocks <= 0 or max_active_blocks(sm, k, block_size, 0) < num_blocks:
        return 0
    per_block = (sm.smem // num_blocks) // SMEM_ALLOC_UNIT * SMEM_ALLOC_UNIT  # whole allocation units
    room = per_block - sm.reserved_smem - k.static_smem
    return max(0, min(room, sm.smem_per_block - k.static_smem))


def max_potential_block_size(sm: SMLimits, k: KernelUse, dynamic_smem: int | Callable[[int], int],
                             block_size_limit: int = 0) -> tuple[int, int]:
    """``(min_grid_size, block_size)``: the block size (a multiple of the warp size, at most ``block_size_limit``
    when it is not 0, and the kernel's and device's limits) that gives the most resident threads per
    multiprocessor, the largest such on a tie, and the grid that fills the device with it (blocks per
    multiprocessor times multiprocessors). ``dynamic_smem`` is the bytes per block, or a function of the block
    size giving them (``cuOccupancyMaxPotentialBlockSize``'s ``blockSizeToDynamicSMemSize``). ``(0, 0)`` when no
    block size fits."""
    top = min(k.max_threads, sm.threads_per_block)
    if block_size_limit > 0:
        top = min(top, block_size_limit)
    best = (0, 0, 0)  # (threads resident, block size, blocks per SM)
    size = _round_up(top, sm.warp_size) if top % sm.warp_size else top
    while size > 0:
        b = min(size, top)
        dyn = dynamic_smem(b) if callable(dynamic_smem) else dynamic_smem
        blocks = max_active_blocks(sm, k, b, int(dyn))
        if blocks * b > best[0]:
            best = (blocks * b, b, blocks)
        size -= sm.warp_size
    if best[1] == 0:
        return 0, 0
    return best[2] * sm.sms, best[1]
