"""Kernels with nothing observable are not run: an empty kernel on the largest grid ends at once."""
from __future__ import annotations

import pytest

np = pytest.importorskip("numpy")

from simcuda import ptx  # noqa: E402

from .helpers import Mem, hooks, params  # noqa: E402

EMPTY = """
.version 8.0
.target sm_80
.address_size 64
.visible .entry empty(.param .u64 p)
{
    .reg .b64 %rd<2>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    ret;
}
.visible .entry store(.param .u64 p)
{
    .reg .b64 %rd<2>;
    .reg .b32 %r<2>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %ctaid.x;
    st.global.u32 [%rd1], %r1;
    ret;
}
"""


def test_empty_kernel_on_a_huge_grid_ends_at_once() -> None:
    """A kernel that only reads its parameters and registers runs in no time, whatever its grid."""
    m = ptx.load(EMPTY)
    stats = m.launch("empty", (2**31 - 1, 65535, 65535), (1024, 1, 1), 0, params(("Q", 0)), Mem(), hooks())
    assert stats.blocks == (2**31 - 1) * 65535 * 65535
    assert stats.lane_instructions == 0


def test_a_kernel_that_stores_still_runs() -> None:
    """A kernel with a store is run (its last block's store is what memory holds)."""
    mem = Mem()
    out = mem.alloc(np.zeros(1, np.uint32))
    stats = ptx.load(EMPTY).launch("store", (3, 1, 1), (1, 1, 1), 0, params(("Q", out)), mem, hooks())
    assert stats.blocks == 3 and stats.lane_instructions > 0
    assert int(mem.get(out, "uint32", 1)[0]) in (0, 1, 2)
