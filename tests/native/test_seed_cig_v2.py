"""The seed's call on the native route: NVIDIA's own ``cuda.bindings._v2.driver.stream_begin_capture_to_cig``
(/work/shared/seeds/cuda-bindings-v2-stream_begin_capture_to_cig.txt) over the simulated libcuda.so.1.

A CIG context (``ctx_create_v4`` with ``CtxCreateParams.cig_params``, a D3D12 command queue), a CIG capture
into a D3D12 command list (``StreamCigCaptureParams`` / ``StreamCigParam``), a kernel and a copy recorded, the
forbidden calls refused with the typed exceptions of spec 8.3 (``stream_synchronize``: 900
StreamCaptureUnsupportedError; ``launch_host_func``: 801 NotSupportedError; a second begin: 1, spec 8.2 row 6;
C-126, C-129), the end, and the command list read through simcuda's driver object. The _v2 spellings are
those of the installed module (``[n for n in dir(cuda.bindings._v2.driver) if 'cig' in n.lower()]``).
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from simcuda.faces import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

SCRIPT = r'''
import ctypes, json, simcuda
from simcuda.faces import native
PTX = b".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{ ret; }\n\x00"
Q, L = 0x1000, 0x2000  # a fake ID3D12CommandQueue and ID3D12GraphicsCommandList
out = {}
with simcuda.patch(route="native") as drv:
    import cuda.bindings._v2.driver as v2
    out["module"] = v2.__name__
    v2.init(0)
    dev = v2.device_get(0)
    cig = v2.CtxCigParam()
    cig.shared_data_type = v2.CigDataType.D3D12_COMMAND_QUEUE
    cig.shared_data = Q
    cp = v2.CtxCreateParams()
    cp.cig_params = cig.ptr
    ctx = v2.ctx_create_v4(cp.ptr, 0, dev)
    c = drv.handles.context(ctx)
    out["ctx"] = [bool(c.is_cig), c.cig_data_type, v2.ctx_get_current() == ctx]
    s = v2.stream_create(0)
    f = v2.module_get_function(v2.module_load_data(PTX), b"k")
    a, b = v2.mem_alloc_v2(256), v2.mem_alloc_v2(256)
    param = v2.StreamCigParam()
    param.stream_shared_data_type = v2.StreamCigDataType.D3D12_COMMAND_LIST
    param.stream_shared_data = L
    params = v2.StreamCigCaptureParams()
    params.stream_cig_params = param.ptr
    v2.stream_begin_capture_to_cig(s, params.ptr)
    v2.launch_kernel(f, 1, 1, 1, 32, 1, 1, 0, s, 0, 0)
    v2.memcpy_dtod_async_v2(b, a, 256, s)
    refused = {}
    try:
        v2.stream_synchronize(s)
    except v2.DriverError as e:
        refused["stream_synchronize"] = [type(e).__name__, int(e.status)]
    fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda _p: None)
    try:
        v2.launch_host_func(s, ctypes.cast(fn, ctypes.c_void_p).value, 0)
    except v2.DriverError as e:
        refused["launch_host_func"] = [type(e).__name__, int(e.status)]
    try:
        v2.stream_begin_capture_to_cig(s, params.ptr)
    except v2.DriverError as e:
        refused["stream_begin_capture_to_cig"] = [type(e).__name__, int(e.status)]
    out["refused"] = refused
    out["capturing"] = v2.stream_is_capturing(s)
    st = drv._stream(s)
    out["list"] = [st.cig.data_type, st.cig.data == L] if st.cig is not None else None
    out["ops"] = [k for k, _ in drv.cig_ops(s)]
    v2.stream_end_capture_to_cig(s)
    out["after"] = drv.cig_ops(s)
    try:
        v2.stream_end_capture_to_cig(s)
    except v2.DriverError as e:
        out["end_again"] = [type(e).__name__, int(e.status)]
    v2.stream_synchronize(s)
    out["stubs"] = sorted(f"{n} {v}" for (n, v) in native.call_counts())
print("OUT=" + json.dumps(out))
'''


def test_stream_begin_capture_to_cig_through_nvidias_v2_module():
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    out = json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])
    assert "simcuda" not in out["module"] and "_v2" in out["module"]
    assert out["ctx"] == [True, 1, True]  # CIG_DATA_TYPE_D3D12_COMMAND_QUEUE, made current
    assert out["refused"] == {"stream_synchronize": ["StreamCaptureUnsupportedError", 900],
                              "launch_host_func": ["NotSupportedError", 801],
                              "stream_begin_capture_to_cig": ["InvalidValueError", 1]}
    assert out["capturing"] == 0  # a CIG stream is not in a graph capture (spec 8.3) [I]
    assert out["list"] == [1, True]  # STREAM_CIG_DATA_TYPE_D3D12_COMMAND_LIST, the command list given
    assert out["ops"] == ["kernel", "memcpy"]  # the refused calls recorded nothing
    assert out["after"] == [] and out["end_again"] == ["InvalidValueError", 1]
    assert out["stubs"] == []
