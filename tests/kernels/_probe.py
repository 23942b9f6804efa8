"""Whether simcuda's driver runs PTX kernels yet (the engine's integration): one probe kernel, no twin."""
from __future__ import annotations

import ctypes

import numpy as np

import simcuda
from simcuda.faces.bindings import driver as cuda

PROBE = b""".version 8.0
.target sm_80
.address_size 64
.visible .entry probe(.param .u64 out)
{
 .reg .u64 %o; .reg .u32 %v;
 ld.param.u64 %o, [out];
 mov.u32 %v, 42;
 st.global.u32 [%o], %v;
 ret;
}
"""


def driver_runs_ptx() -> bool:
    """True when a PTX kernel launched through the driver face (no twin) computes: the integration is in."""
    old = simcuda.use(simcuda.Driver())
    try:
        cuda.cuInit(0)
        _, dev = cuda.cuDeviceGet(0)
        _, ctx = cuda.cuDevicePrimaryCtxRetain(dev)
        cuda.cuCtxSetCurrent(ctx)
        _, mod = cuda.cuModuleLoadData(PROBE)
        _, fn = cuda.cuModuleGetFunction(mod, b"probe")
        _, d = cuda.cuMemAlloc(4)
        cuda.cuMemsetD32(d, 0, 1)
        cuda.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ((int(d),), (ctypes.c_void_p,)), 0)
        cuda.cuCtxSynchronize()
        out = np.zeros(1, np.uint32)
        cuda.cuMemcpyDtoH(out, d, 4)
        return int(out[0]) == 42
    finally:
        simcuda.use(old)
