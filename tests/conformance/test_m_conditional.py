"""Conditional nodes (spec 13.B; docs/spec-proposals.md P-20..P-31): cases that need no device code, so that the
same text runs on both CPU routes and on a real GPU. The condition comes from the handle's default value; the
bodies hold memsets captured with cuStreamBeginCaptureToGraph, so the bytes read back say which body ran."""
from __future__ import annotations

import pytest


def _handle(cu, g, default: int, flags: int = 1):
    return cu.ok(cu.drv.cuGraphConditionalHandleCreate(g, cu.ctx, default, flags), "cuGraphConditionalHandleCreate")


def _params(cu, handle, ctype, size: int):
    d = cu.drv
    p = d.CUgraphNodeParams()
    p.type = d.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL
    p.conditional.handle = handle
    p.conditional.type = ctype
    p.conditional.size = size
    p.conditional.ctx = cu.ctx
    return p


def _fill_body(cu, body, offset: int, value: int) -> None:
    """Capture ``cuMemsetD8Async(d + offset, value, 1)`` into ``body``."""
    d = cu.drv
    cu.ok(d.cuStreamBeginCaptureToGraph(cu.s1, body, None, None, 0, cu.G), "cuStreamBeginCaptureToGraph")
    cu.ok(d.cuMemsetD8Async(d.CUdeviceptr(int(cu.d) + offset), value, 1, cu.s1), "cuMemsetD8Async")
    assert int(cu.end_ok(cu.s1)) == int(body)


def _run_and_read(cu, g) -> bytes:
    d = cu.drv
    cu.ok(d.cuMemsetD8(cu.d, 0, 8), "cuMemsetD8")
    x = cu.ok(d.cuGraphInstantiate(g, 0), "cuGraphInstantiate")
    cu.ok(d.cuGraphLaunch(x, cu.s1), "cuGraphLaunch")
    cu.ok(d.cuStreamSynchronize(cu.s1), "cuStreamSynchronize")
    cu.ok(d.cuMemcpyDtoH(cu.h, cu.d, 8), "cuMemcpyDtoH")
    cu.ok(d.cuGraphExecDestroy(x), "cuGraphExecDestroy")
    return bytes(cu.h.raw[:8])


def test_m1_switch_runs_the_body_its_default_selects(cu):
    """SWITCH of 3 bodies, handle default 1 with ASSIGN_DEFAULT: only body 1's memset runs [D]."""
    d = cu.drv
    g = cu.ok(d.cuGraphCreate(0))
    p = _params(cu, _handle(cu, g, 1), d.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_SWITCH, 3)
    cu.ok(d.cuGraphAddNode(g, None, None, 0, p), "cuGraphAddNode")
    bodies = list(p.conditional.phGraph_out)
    assert len(bodies) == 3
    for i, b in enumerate(bodies):
        _fill_body(cu, b, i, 0x10 + i)
    assert _run_and_read(cu, g)[:3] == b"\x00\x11\x00"


def test_m2_if_with_two_bodies_runs_the_else_body_for_zero(cu):
    """IF with 2 bodies, default 0: body 1 (the else branch) runs, body 0 does not [D]."""
    d = cu.drv
    g = cu.ok(d.cuGraphCreate(0))
    p = _params(cu, _handle(cu, g, 0), d.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_IF, 2)
    cu.ok(d.cuGraphAddNode(g, None, None, 0, p), "cuGraphAddNode")
    then_b, else_b = p.conditional.phGraph_out
    _fill_body(cu, then_b, 0, 0x21)
    _fill_body(cu, else_b, 1, 0x22)
    assert _run_and_read(cu, g)[:2] == b"\x00\x22"


def test_m3_switch_past_its_size_runs_no_body(cu):
    """SWITCH of 2 bodies, default 5: no body runs [D]."""
    d = cu.drv
    g = cu.ok(d.cuGraphCreate(0))
    p = _params(cu, _handle(cu, g, 5), d.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_SWITCH, 2)
    cu.ok(d.cuGraphAddNode(g, None, None, 0, p), "cuGraphAddNode")
    for i, b in enumerate(p.conditional.phGraph_out):
        _fill_body(cu, b, i, 0x30 + i)
    assert _run_and_read(cu, g)[:2] == b"\x00\x00"


@pytest.mark.inferred
def test_m4_sizes_a_type_does_not_allow_add_nothing(cu):
    """WHILE with 2 bodies and IF with 3: INVALID_VALUE, no node added [D sizes; I code]."""
    d = cu.drv
    g = cu.ok(d.cuGraphCreate(0))
    h = _handle(cu, g, 0)
    T = d.CUgraphConditionalNodeType
    for ctype, size in ((T.CU_GRAPH_COND_TYPE_WHILE, 2), (T.CU_GRAPH_COND_TYPE_IF, 3)):
        cu.err(d.cuGraphAddNode(g, None, None, 0, _params(cu, h, ctype, size)), 1)
    assert cu.ok(d.cuGraphGetNodes(g))[1] == 0


@pytest.mark.inferred
def test_m5_an_unused_handle_fails_instantiation(cu):
    """A handle made for the graph that no conditional node uses: cuGraphInstantiate is INVALID_VALUE [D "may
    cause graph instantiation to fail"; I that it does]."""
    d = cu.drv
    g = cu.ok(d.cuGraphCreate(0))
    cu.ok(d.cuGraphAddEmptyNode(g, None, 0))
    _handle(cu, g, 0)
    cu.err(d.cuGraphInstantiate(g, 0), 1)


@pytest.mark.inferred
def test_m6_a_body_belongs_to_its_node(cu):
    """cuGraphDestroy of a body: INVALID_VALUE, the body still usable [I]; cuGraphClone of the parent: an error
    [D "not supported"; I code 1]."""
    d = cu.drv
    g = cu.ok(d.cuGraphCreate(0))
    p = _params(cu, _handle(cu, g, 1), d.CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_IF, 1)
    cu.ok(d.cuGraphAddNode(g, None, None, 0, p), "cuGraphAddNode")
    (body,) = p.conditional.phGraph_out
    cu.err(d.cuGraphDestroy(body), 1)
    cu.err(d.cuGraphClone(g), 1)
    _fill_body(cu, body, 0, 0x41)
    assert _run_and_read(cu, g)[:1] == b"\x41"
