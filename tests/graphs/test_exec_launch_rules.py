"""Destroyed execs at launch/upload and the UPLOAD instantiate flag (spec 16, 9), through the driver and runtime
faces."""
from __future__ import annotations

import numpy as np
import pytest

from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings import runtime as rt
from simcuda.faces.bindings._v2 import driver as v2

from .conftest import err, ok

IF = cu.CUgraphInstantiate_flags
UPLOAD = IF.CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD
RE = rt.cudaError_t


def memset_graph(env, value):
    """A captured graph of one 4-int memset of ``env.buf`` to ``value``."""
    return env.capture(lambda s: ok(cu.cuMemsetD32Async(env.buf, value, 4, s)))


def buf_ints(env):
    return np.frombuffer(env.read(env.buf), np.int32).tolist()


def rok(res):
    """Assert a runtime success tuple and return its single output (or None)."""
    assert res[0] == RE.cudaSuccess, res
    return None if len(res) == 1 else res[1]


# ------------------------------------------------------------------------- destroyed exec
def test_upload_flag_value_is_2():
    """CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD and cudaGraphInstantiateFlagUpload are 2 (spec 10)."""
    assert int(UPLOAD) == 2 and int(rt.cudaGraphInstantiateFlags.cudaGraphInstantiateFlagUpload) == 2


def test_launching_a_destroyed_exec_is_invalid_value_and_runs_nothing(env):
    """cuGraphLaunch of a destroyed exec is INVALID_VALUE with a why naming the rule, and no node runs."""
    x = ok(cu.cuGraphInstantiate(memset_graph(env, 5), 0))
    ok(cu.cuGraphExecDestroy(x))
    e = err(cu.cuGraphLaunch(x, env.s1), 1)
    assert "destroyed" in e.why and "spec 16" in e.why and f"0x{int(x):x}" in e.why
    ok(cu.cuStreamSynchronize(env.s1))
    assert buf_ints(env) == [0, 0, 0, 0]


def test_uploading_a_destroyed_exec_is_invalid_value(env):
    """cuGraphUpload of a destroyed exec is INVALID_VALUE; the stream stays usable."""
    x = ok(cu.cuGraphInstantiate(memset_graph(env, 5), 0))
    ok(cu.cuGraphExecDestroy(x))
    e = err(cu.cuGraphUpload(x, env.s1), 1)
    assert "cuGraphUpload" in e.why and "destroyed" in e.why
    assert cu.cuStreamQuery(env.s1) == (cu.CUresult.CUDA_SUCCESS,)


def test_garbage_exec_handle_stays_invalid_handle(env):
    """A handle that never named an exec is still INVALID_HANDLE for launch and upload."""
    bogus = cu.CUgraphExec(0xDEAD0)
    err(cu.cuGraphLaunch(bogus, env.s1), 400)
    err(cu.cuGraphUpload(bogus, env.s1), 400)


def test_other_calls_on_a_destroyed_exec_keep_their_codes(env):
    """GetFlags, Update and a second ExecDestroy on a destroyed exec keep INVALID_HANDLE (only launch/upload change)."""
    g = memset_graph(env, 5)
    x = ok(cu.cuGraphInstantiate(g, 0))
    ok(cu.cuGraphExecDestroy(x))
    err(cu.cuGraphExecGetFlags(x), 400)
    err(cu.cuGraphExecUpdate(x, g), 400)
    err(cu.cuGraphExecDestroy(x), 400)


def test_runtime_launch_and_upload_of_a_destroyed_exec_are_cuda_error_invalid_value(env):
    """cudaGraphLaunch and cudaGraphUpload of a destroyed exec return cudaErrorInvalidValue."""
    x = ok(cu.cuGraphInstantiate(memset_graph(env, 5), 0))
    ok(cu.cuGraphExecDestroy(x))
    rx, rs = rt.cudaGraphExec_t(int(x)), rt.cudaStream_t(int(env.s1))
    assert rt.cudaGraphLaunch(rx, rs) == (RE.cudaErrorInvalidValue,)
    assert rt.cudaGraphUpload(rx, rs) == (RE.cudaErrorInvalidValue,)
    assert buf_ints(env) == [0, 0, 0, 0]


def test_v2_launch_of_a_destroyed_exec_raises_invalid_value(env):
    """graph_launch of the _v2 face raises InvalidValueError (status 1) for a destroyed exec."""
    x = ok(cu.cuGraphInstantiate(memset_graph(env, 5), 0))
    ok(cu.cuGraphExecDestroy(x))
    with pytest.raises(v2.InvalidValueError) as ei:
        v2.graph_launch(int(x), int(env.s1))
    assert ei.value.status == 1


# ------------------------------------------------------------------------- UPLOAD flag
def test_instantiate_flags_form_with_upload_is_invalid_value_and_makes_no_exec(env):
    """cuGraphInstantiate(g, UPLOAD) is INVALID_VALUE (alone or with other flags) and makes no exec."""
    g = memset_graph(env, 5)
    e = err(cu.cuGraphInstantiate(g, UPLOAD), 1)
    assert "CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD" in e.why and "cuGraphInstantiateWithParams" in e.why
    err(cu.cuGraphInstantiate(g, int(UPLOAD) | int(IF.CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)), 1)
    assert env.d.handles.table[int(g)].live_execs == 0
    x = ok(cu.cuGraphInstantiate(g, 0))
    ok(cu.cuGraphLaunch(x, env.s1))
    assert buf_ints(env) == [5] * 4


def test_instantiate_with_params_keeps_accepting_upload(env):
    """cuGraphInstantiateWithParams with UPLOAD and an upload stream succeeds (result SUCCESS) and the exec runs."""
    p = cu.CUDA_GRAPH_INSTANTIATE_PARAMS()
    p.flags = UPLOAD
    p.hUploadStream = env.s1
    x = ok(cu.cuGraphInstantiateWithParams(memset_graph(env, 6), p))
    assert p.result_out == cu.CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_SUCCESS
    assert int(ok(cu.cuGraphExecGetFlags(x))) == 0  # UPLOAD does not shape the exec and is not reported
    ok(cu.cuGraphLaunch(x, env.s1))
    assert buf_ints(env) == [6] * 4


def test_v2_instantiate_with_flags_upload_raises_invalid_value(env):
    """graph_instantiate_with_flags of the _v2 face raises InvalidValueError for UPLOAD."""
    g = memset_graph(env, 5)
    with pytest.raises(v2.InvalidValueError):
        v2.graph_instantiate_with_flags(int(g), int(UPLOAD))
    assert env.d.handles.table[int(g)].live_execs == 0


def test_runtime_instantiate_and_with_flags_refuse_upload(env):
    """cudaGraphInstantiate and cudaGraphInstantiateWithFlags with cudaGraphInstantiateFlagUpload are
    cudaErrorInvalidValue."""
    g = rt.cudaGraph_t(int(memset_graph(env, 5)))
    up = rt.cudaGraphInstantiateFlags.cudaGraphInstantiateFlagUpload
    assert rt.cudaGraphInstantiate(g, up) == (RE.cudaErrorInvalidValue, None)
    assert rt.cudaGraphInstantiateWithFlags(g, up) == (RE.cudaErrorInvalidValue, None)
    assert env.d.handles.table[int(g)].live_execs == 0


def test_runtime_instantiate_with_params_accepts_upload(env):
    """cudaGraphInstantiateWithParams with the upload flag and a stream succeeds and the exec runs."""
    g = rt.cudaGraph_t(int(memset_graph(env, 7)))
    params = rt.cudaGraphInstantiateParams()
    params.flags = rt.cudaGraphInstantiateFlags.cudaGraphInstantiateFlagUpload
    params.uploadStream = rt.cudaStream_t(int(env.s1))
    x = rok(rt.cudaGraphInstantiateWithParams(g, params))
    assert params.result_out == rt.cudaGraphInstantiateResult.cudaGraphInstantiateSuccess
    assert rt.cudaGraphLaunch(x, rt.cudaStream_t(int(env.s1))) == (RE.cudaSuccess,)
    assert buf_ints(env) == [7] * 4
