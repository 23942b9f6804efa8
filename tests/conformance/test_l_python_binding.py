"""Section L of conformance-cases.md, classic-module cases (spec 11.1). The ``_v2`` cases live elsewhere."""
from __future__ import annotations


def test_c158_not_ready_is_a_plain_result_in_the_classic_binding(cu):
    """cuEventQuery on a pending event returns the 1-tuple (CUDA_ERROR_NOT_READY,) and never raises."""
    d = cu.drv
    with cu.pending(cu.s1):
        cu.ok(cu.rec(cu.e0, cu.s1))
        res = d.cuEventQuery(cu.e0)
        assert res == (d.CUresult.CUDA_ERROR_NOT_READY,)
        cu.err(res, 600)
    cu.ok(d.cuStreamSynchronize(cu.s1))
    cu.ok(d.cuEventQuery(cu.e0))
