"""The occupancy arithmetic (simcuda._core.modules.occupancy) against figures worked by hand from NVIDIA's
calculator rules, on the default simulated device (A100-like: 2,048 threads, 32 blocks, 65,536 registers and
164 KiB of shared memory per multiprocessor, 108 multiprocessors)."""
from __future__ import annotations

import pytest

from simcuda._core.modules.occupancy import (
    KernelUse,
    SMLimits,
    available_dynamic_smem,
    block_smem,
    max_active_blocks,
    max_potential_block_size,
)

A100 = SMLimits(threads=2048, blocks=32, regs=65536, regs_per_block=65536, smem=167936, smem_per_block=166912,
                reserved_smem=1024, warp_size=32, threads_per_block=1024, sms=108)


def kernel(regs=32, static=0, max_threads=1024, max_dyn=49152):
    return KernelUse(regs=regs, static_smem=static, max_threads=max_threads, max_dynamic_smem=max_dyn)


@pytest.mark.parametrize(("regs", "block", "dyn", "want", "limit"), [
    (32, 256, 0, 8, "warps: 64 warps / 8 per block"),
    (64, 256, 0, 4, "registers: 2,048 per warp, 32 warps"),
    (32, 128, 49152, 3, "shared memory: 50,176 bytes a block with the reserved KiB"),
    (32, 32, 0, 32, "the 32-block cap"),
    (255, 1024, 0, 0, "a block's registers exceed 65,536"),
    (32, 1025, 0, 0, "more threads than a block may have"),
    (0, 256, 0, 8, "no register count: no register limit"),
])
def test_max_active_blocks(regs, block, dyn, want, limit):
    """Blocks per multiprocessor, each case bound by the named limit."""
    assert max_active_blocks(A100, kernel(regs=regs), block, dyn) == want, limit


def test_shared_memory_per_block_over_the_opt_in_limit_fits_nowhere():
    """Static plus dynamic shared memory above MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: no block fits."""
    assert max_active_blocks(A100, kernel(static=1024), 128, 166912) == 0
    assert block_smem(A100, kernel(static=100), 0) == 1152  # 1,124 bytes rounded up to 128


def test_max_potential_block_size_prefers_the_largest_of_equal_occupancy():
    """A light kernel fills the multiprocessor at any block size: the largest (1,024) is chosen, and the grid is
    2 blocks per multiprocessor times 108. Under a limit of 200 threads, 200 (9 blocks: 1,800 threads) and 192
    (10: 1,920) fill less than 128 (16: 2,048), the largest that fills it; a heavy kernel is bound by registers."""
    assert max_potential_block_size(A100, kernel(), 0) == (216, 1024)
    assert max_potential_block_size(A100, kernel(), 0, block_size_limit=200) == (108 * 16, 128)
    assert max_potential_block_size(A100, kernel(regs=128), 0) == (108 * 1, 512)
    assert max_potential_block_size(A100, kernel(max_threads=0), 0) == (0, 0)


def test_max_potential_block_size_with_a_shared_memory_function():
    """Dynamic shared memory given as a function of the block size (blockSizeToDynamicSMemSize): 64 bytes a
    thread makes 1,024-thread blocks take 65 KiB + 1 KiB, two per multiprocessor, so 1,024 still wins."""
    assert max_potential_block_size(A100, kernel(), lambda b: 64 * b) == (216, 1024)


def test_available_dynamic_shared_memory():
    """The dynamic shared memory that keeps num_blocks resident: the multiprocessor's share per block in whole
    allocation units, less the reserved KiB and the static part; 0 when the blocks do not fit anyway."""
    assert available_dynamic_smem(A100, kernel(), 2, 256) == 167936 // 2 - 1024
    assert available_dynamic_smem(A100, kernel(static=2048), 4, 128) == 167936 // 4 - 1024 - 2048
    assert available_dynamic_smem(A100, kernel(), 1, 256) == 166912  # capped by the per-block opt-in limit
    assert available_dynamic_smem(A100, kernel(), 9, 256) == 0  # warps allow 8 blocks of 256 threads
