"""Programmatic dependent launch in a capture (docs/spec-proposals.md P-16)."""
from __future__ import annotations

import pytest

import simcuda
from simcuda.faces.bindings import driver as cu

PTX = b""".version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{ ret; }
"""


def launch_ex(f, s, programmatic):
    """cuLaunchKernelEx of ``f`` on ``s`` with PROGRAMMATIC_STREAM_SERIALIZATION set to ``programmatic``."""
    a = cu.CUlaunchAttribute()
    a.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
    a.value.programmaticStreamSerializationAllowed = int(programmatic)
    c = cu.CUlaunchConfig()
    c.gridDimX = c.gridDimY = c.gridDimZ = 1
    c.blockDimX = c.blockDimY = c.blockDimZ = 1
    c.hStream = s
    c.attrs = [a]
    c.numAttrs = 1
    return cu.cuLaunchKernelEx(c, f, None, 0)


@pytest.fixture
def setup():
    simcuda.use(simcuda.Driver())
    cu.cuInit(0)
    cu.cuCtxCreate(None, 0, 0)
    f = cu.cuModuleGetFunction(cu.cuModuleLoadData(PTX)[1], b"k")[1]
    return f, cu.cuStreamCreate(1)[1]


@pytest.mark.parametrize("programmatic, expected", [(True, (1, 0, 1)), (False, (0, 0, 0))])
def test_a_programmatic_launch_after_a_kernel_is_a_programmatic_edge(setup, programmatic, expected):
    """Captured: kernel, then a kernel launched with the attribute set: one edge, from the first kernel's
    programmatic port with type PROGRAMMATIC; with the attribute 0 a full edge."""
    f, s = setup
    cu.cuStreamBeginCapture(s, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL)
    assert cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, None, 0)[0] == cu.CUresult.CUDA_SUCCESS
    assert launch_ex(f, s, programmatic)[0] == cu.CUresult.CUDA_SUCCESS
    err, g = cu.cuStreamEndCapture(s)
    assert err == cu.CUresult.CUDA_SUCCESS
    err, _f, _t, eds, n = cu.cuGraphGetEdges(g, 1)
    assert (err, n) == (cu.CUresult.CUDA_SUCCESS, 1)
    assert (eds[0].from_port, eds[0].to_port, int(eds[0].type)) == expected
    assert cu.cuGraphInstantiate(g, 0)[0] == cu.CUresult.CUDA_SUCCESS


def test_a_programmatic_launch_after_a_memset_keeps_the_full_edge(setup):
    """Only kernel predecessors become programmatic: after a memset the edge stays full."""
    f, s = setup
    d = cu.cuMemAlloc(64)[1]
    cu.cuStreamBeginCapture(s, cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL)
    cu.cuMemsetD8Async(d, 1, 64, s)
    assert launch_ex(f, s, True)[0] == cu.CUresult.CUDA_SUCCESS
    g = cu.cuStreamEndCapture(s)[1]
    eds = cu.cuGraphGetEdges(g, 1)[3]
    assert (eds[0].from_port, eds[0].to_port, int(eds[0].type)) == (0, 0, 0)


def test_outside_a_capture_a_programmatic_launch_runs(setup):
    """Uncaptured, the attribute changes nothing: the launch runs (is logged) and the stream synchronises."""
    f, s = setup
    assert launch_ex(f, s, True)[0] == cu.CUresult.CUDA_SUCCESS
    assert cu.cuStreamSynchronize(s)[0] == cu.CUresult.CUDA_SUCCESS
    assert len(simcuda.current_driver().launch_log) == 1
