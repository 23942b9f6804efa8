"""The _v2 face reads its C structs through the generated layouts (simcuda/_generated/cydriver_ctypes.py), not
hand-typed ones (issue 18): same fields, offsets and sizes, pointer fields as int addresses."""
from __future__ import annotations

import ctypes

import pytest

from simcuda._generated import cydriver_ctypes as C
from simcuda.faces.bindings._v2 import _v2_face
from simcuda.faces.bindings._v2 import driver as v2

LAYOUTS = {"_CStreamCigParam": C.CUstreamCigParam, "_CStreamCigCaptureParams": C.CUstreamCigCaptureParams,
           "_CCtxCigParam": C.CUctxCigParam, "_CCtxCreateParams": C.CUctxCreateParams,
           "_CUpdateInfo": C.CUgraphExecUpdateResultInfo, "_CInstantiateParams": C.CUDA_GRAPH_INSTANTIATE_PARAMS,
           "_CHostNodeParams": C.CUDA_HOST_NODE_PARAMS}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_layout_is_the_generated_one(name):
    """Each _v2 struct layout has the generated struct's field names, offsets and size."""
    mine, generated = getattr(_v2_face, name), LAYOUTS[name]
    assert [f for f, _t in mine._fields_] == [f for f, _t in generated._fields_]
    assert [getattr(mine, f).offset for f, _t in mine._fields_] == [getattr(generated, f).offset
                                                                    for f, _t in generated._fields_]
    assert ctypes.sizeof(mine) == ctypes.sizeof(generated)


def test_pointer_fields_read_and_write_int_addresses():
    """A struct-pointer field of a helper takes and gives back an int address, as the hand-typed layout did."""
    p = v2.CtxCreateParams()
    cig = v2.CtxCigParam()
    p.cig_params = cig.ptr
    assert p.cig_params == cig.ptr and p.exec_affinity_params == 0
    h = v2.GraphInstantiateParams()
    assert h.h_upload_stream == 0 and h.result_out == 0
