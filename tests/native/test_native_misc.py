"""Issue 10's entries on the native route (NVIDIA's cuda.bindings over the simulated libcuda.so.1) and the Python
route: the same program gives the same codes and results on both. Each route runs in a subprocess of its own."""
from __future__ import annotations

import json
import struct
import subprocess
import sys

import pytest

from simcuda.faces import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

PEER = r'''
import json, simcuda
out = {}
drv = simcuda.Driver(devices=[simcuda.DeviceSpec(), simcuda.DeviceSpec()])
with simcuda.patch(drv, route=ROUTE):
    from cuda.bindings import driver as d
    codes = []
    def c(r):
        codes.append(int(r[0]))
        return r[1:] if len(r) > 2 else (r[1] if len(r) == 2 else None)
    c(d.cuInit(0))
    out["can"] = [c(d.cuDeviceCanAccessPeer(0, 1)), c(d.cuDeviceCanAccessPeer(1, 1))]
    c(d.cuDeviceCanAccessPeer(0, 7))                                   # 101
    A = d.CUdevice_P2PAttribute
    out["p2p"] = c(d.cuDeviceGetP2PAttribute(A.CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1))
    c(d.cuDeviceGetP2PAttribute(A.CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 1, 1))   # 101
    c0 = c(d.cuDevicePrimaryCtxRetain(0)); c1 = c(d.cuDevicePrimaryCtxRetain(1))
    c(d.cuCtxSetCurrent(c0))
    c(d.cuCtxEnablePeerAccess(c1, 0)); c(d.cuCtxEnablePeerAccess(c1, 0))   # 0, 704
    c(d.cuCtxEnablePeerAccess(c0, 0)); c(d.cuCtxEnablePeerAccess(c1, 3))   # 201, 1 (flags come before 704)
    out["enabled"] = drv.peer_access_enabled(int(c0), int(c1))
    c(d.cuCtxDisablePeerAccess(c1)); c(d.cuCtxDisablePeerAccess(c1))       # 0, 705
    a = c(d.cuMemAlloc(16)); c(d.cuCtxSetCurrent(c1)); b = c(d.cuMemAlloc(16)); c(d.cuCtxSetCurrent(c0))
    c(d.cuMemcpyHtoD(a, b"0123456789abcdef", 16))
    c(d.cuMemcpyPeer(b, c1, a, c0, 8))
    c(d.cuMemcpyPeer(b, 0, a, c0, 8))                                      # 201
    s = c(d.cuStreamCreate(1))
    c(d.cuStreamBeginCapture(s, 0))
    c(d.cuMemcpyPeerAsync(b, c1, a, c0, 16, s))
    g = c(d.cuStreamEndCapture(s))
    out["node"] = [int(c(d.cuGraphNodeGetType(n))) for n in c(d.cuGraphGetNodes(g, 1))[0]]
    buf = bytearray(16); c(d.cuMemcpyDtoH(buf, b, 16)); out["before"] = buf.hex()
    x = c(d.cuGraphInstantiate(g, 0)); c(d.cuGraphLaunch(x, s)); c(d.cuStreamSynchronize(s))
    c(d.cuMemcpyDtoH(buf, b, 16)); out["after"] = buf.hex()
    out["bus"] = c(d.cuDeviceGetPCIBusId(13, 1)).split(b"\0")[0].decode()
    out["by"] = int(c(d.cuDeviceGetByPCIBusId(b"0000:02:00.0")))
    c(d.cuDeviceGetByPCIBusId(b"zz"))                                      # 1
    c(d.cuDeviceGetPCIBusId(13, 9))                                        # 101
    out["codes"] = codes
print(json.dumps(out))
'''


def run(program: str, route: str) -> dict:
    """Run ``program`` on ``route`` in a fresh interpreter and return the JSON it prints last."""
    r = subprocess.run([sys.executable, "-c", program.replace("ROUTE", repr(route))], capture_output=True,
                       text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_peer_family_is_the_same_on_both_routes():
    """Peer access, peer copies (a MEMCPY node in capture) and PCI ids give the same codes and bytes."""
    nat, py = run(PEER, "native"), run(PEER, "python")
    assert nat == py
    assert nat["can"] == [1, 0] and nat["p2p"] == 1 and nat["by"] == 1 and nat["bus"] == "0000:02:00.0"
    assert nat["before"] == b"01234567".hex() + "00" * 8 and nat["after"] == b"0123456789abcdef".hex()
    assert nat["codes"].count(704) == 1 and 705 in nat["codes"] and nat["node"] == [1]


SYMBOLS = r'''
import json, struct, simcuda
out = {}
PTX = b""".version 8.0
.target sm_90
.address_size 64
.visible .global .align 4 .u32 counter = 5;
.visible .entry k(
	.param .u64 k_param_0,
	.param .align 16 .b8 k_param_1[32]
)
{
	ret;
}
"""
with simcuda.patch(route=ROUTE) as drv:
    from cuda.bindings import driver as d
    codes = []
    def c(r):
        codes.append(int(r[0]))
        return r[1:] if len(r) > 2 else (r[1] if len(r) == 2 else None)
    c(d.cuInit(0))
    lib = c(d.cuLibraryLoadData(PTX, None, None, 0, None, None, 0))    # no context: loads
    kern = c(d.cuLibraryGetKernel(lib, b"k"))
    c(d.cuKernelGetFunction(kern))                                      # 201
    c(d.cuLibraryGetGlobal(lib, b"counter"))                            # 201
    out["kinfo"] = c(d.cuKernelGetParamInfo(kern, 1))
    c(d.cuKernelGetParamInfo(kern, 2))                                  # 1
    ctx = c(d.cuDevicePrimaryCtxRetain(0)); c(d.cuCtxSetCurrent(ctx))
    c(d.cuKernelGetFunction(kern))
    p, n = c(d.cuLibraryGetGlobal(lib, b"counter"))
    buf = bytearray(4); c(d.cuMemcpyDtoH(buf, p, 4)); out["lib"] = [n, buf.hex()]
    m = c(d.cuModuleLoadData(PTX))
    p, n = c(d.cuModuleGetGlobal(m, b"counter"))
    c(d.cuMemcpyHtoD(p, struct.pack("<I", 9), 4)); c(d.cuMemcpyDtoH(buf, p, 4)); out["mod"] = [n, buf.hex()]
    c(d.cuModuleGetGlobal(m, b"missing"))                               # 500
    f = c(d.cuModuleGetFunction(m, b"k"))
    out["finfo"] = [list(c(d.cuFuncGetParamInfo(f, i))) for i in range(2)]
    c(d.cuModuleUnload(m)); c(d.cuModuleGetGlobal(m, b"counter"))       # 0, 400
    out["codes"] = codes
print(json.dumps(out))
'''


def test_globals_param_info_and_context_free_libraries_are_the_same_on_both_routes():
    """Library loads without a context, variables, parameter info and their codes agree on both routes."""
    nat, py = run(SYMBOLS, "native"), run(SYMBOLS, "python")
    assert nat == py
    assert nat["lib"] == [4, "05000000"] and nat["mod"] == [4, "09000000"]
    assert nat["kinfo"] == [16, 32] and nat["finfo"] == [[0, 8], [16, 32]]
    assert [x for x in nat["codes"] if x] == [201, 201, 1, 500, 400]


CUBIN = r'''
import json, simcuda
from simcuda import _patch
out = {}
with simcuda.patch(route="native") as drv:
    out["nvrtc"] = _patch.nvrtc_why
    if _patch.nvrtc_why is None:
        from cuda.bindings import driver as d, nvrtc
        src = b"""__device__ int hits = 7; __constant__ double scale[2] = {2.0, 4.0};
extern "C" __global__ void k(int* a, char c, double x, float4 v) { a[0] = hits + c; }"""
        err, prog = nvrtc.nvrtcCreateProgram(src, b"t.cu", 0, [], [])
        nvrtc.nvrtcCompileProgram(prog, 1, [b"-arch=sm_90"])
        err, size = nvrtc.nvrtcGetCUBINSize(prog)
        cubin = b" " * size
        nvrtc.nvrtcGetCUBIN(prog, cubin)
        d.cuInit(0); ctx = d.cuDevicePrimaryCtxRetain(0)[1]; d.cuCtxSetCurrent(ctx)
        err, m = d.cuModuleLoadData(cubin)
        err, p, n = d.cuModuleGetGlobal(m, b"hits")
        buf = bytearray(4); d.cuMemcpyDtoH(buf, p, 4)
        out["hits"] = [int(err), n, buf.hex()]
        err, p, n = d.cuModuleGetGlobal(m, b"scale")
        buf = bytearray(16); d.cuMemcpyDtoH(buf, p, 16)
        out["scale"] = [int(err), n, buf.hex()]
        f = d.cuModuleGetFunction(m, b"k")[1]
        out["params"] = [list(d.cuFuncGetParamInfo(f, i)[1:]) for i in range(4)]
print(json.dumps(out))
'''


def test_a_real_nvrtc_cubin_gives_its_variables_and_parameter_offsets():
    """NVIDIA's NVRTC output (native route): the CUBIN's variables with initial values, EIATTR offsets."""
    out = run(CUBIN, "native")
    if out["nvrtc"] is not None:
        pytest.skip(f"NVIDIA's NVRTC is not available here: {out['nvrtc']}")
    assert out["hits"] == [0, 4, "07000000"]
    assert out["scale"] == [0, 16, struct.pack("<2d", 2.0, 4.0).hex()]
    assert out["params"] == [[0, 8], [8, 1], [16, 8], [32, 16]]


BATCH = r'''
import json, simcuda
out = {}
with simcuda.patch(route=ROUTE) as drv:
    from cuda.bindings import driver as d
    codes = []
    def c(r):
        codes.append(int(r[0]))
        return r[1:] if len(r) > 2 else (r[1] if len(r) == 2 else None)
    c(d.cuInit(0)); c(d.cuCtxSetCurrent(c(d.cuDevicePrimaryCtxRetain(0))))
    s = c(d.cuStreamCreate(1))
    a = c(d.cuMemAlloc(16)); b = c(d.cuMemAlloc(16))
    c(d.cuMemcpyHtoD(a, b"0123456789abcdef", 16)); c(d.cuMemsetD8(b, 0, 16))
    at = d.CUmemcpyAttributes(); at.srcAccessOrder = d.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
    c(d.cuMemcpyBatchAsync([b, d.CUdeviceptr(int(b) + 8)], [a, a], [8, 4], 2, [at], [0], 1, s))
    c(d.cuStreamSynchronize(s))
    buf = bytearray(16); c(d.cuMemcpyDtoH(buf, b, 16)); out["after"] = buf.hex()
    c(d.cuMemcpyBatchAsync([b], [a], [4], 1, [at], [0], 1, d.CUstream(0)))      # 1: legacy stream
    c(d.cuStreamBeginCapture(s, 0))
    c(d.cuMemcpyBatchAsync([b], [a], [4], 1, [at], [0], 1, s))                  # 900
    out["status"] = int(c(d.cuStreamIsCapturing(s)))
    c(d.cuStreamEndCapture(s))
    out["codes"] = codes
print(json.dumps(out))
'''


def test_batched_copies_are_the_same_on_both_routes():
    """cuMemcpyBatchAsync: the same bytes and codes (1 on the legacy stream, 900 in capture) on both routes."""
    nat, py = run(BATCH, "native"), run(BATCH, "python")
    assert nat == py
    assert nat["after"] == (b"01234567" + b"0123").hex() + "00" * 4 and nat["status"] == 1
    assert [x for x in nat["codes"] if x] == [1, 900]


BATCH3D = r'''
import json, simcuda
out = {}
with simcuda.patch(route=ROUTE) as drv:
    from cuda.bindings import driver as d
    codes = []
    def c(r):
        codes.append(int(r[0]))
        return r[1:] if len(r) > 2 else (r[1] if len(r) == 2 else None)
    c(d.cuInit(0)); c(d.cuCtxSetCurrent(c(d.cuDevicePrimaryCtxRetain(0))))
    s = c(d.cuStreamCreate(1))
    a = c(d.cuMemAlloc(64)); b = c(d.cuMemAlloc(64))
    c(d.cuMemcpyHtoD(a, bytes(range(64)), 64)); c(d.cuMemsetD8(b, 0, 64))
    def op(src, dst, w, h, z, srow, slayer, kind=d.CUmemcpy3DOperandType.CU_MEMCPY_OPERAND_TYPE_POINTER):
        o = d.CUDA_MEMCPY3D_BATCH_OP()
        o.src.type = d.CUmemcpy3DOperandType.CU_MEMCPY_OPERAND_TYPE_POINTER
        o.src.op.ptr.ptr = src; o.src.op.ptr.rowLength = srow; o.src.op.ptr.layerHeight = slayer
        o.dst.type = kind; o.dst.op.ptr.ptr = dst
        o.extent.width = w; o.extent.height = h; o.extent.depth = z
        o.srcAccessOrder = d.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
        return o
    c(d.cuMemcpy3DBatchAsync(2, [op(a, b, 2, 2, 2, 8, 4), op(a, d.CUdeviceptr(int(b) + 16), 4, 1, 1, 0, 0)], 0, s))
    c(d.cuStreamSynchronize(s))
    buf = bytearray(20); c(d.cuMemcpyDtoH(buf, b, 20)); out["after"] = buf.hex()
    c(d.cuMemcpy3DBatchAsync(1, [op(a, b, 2, 2, 2, 8, 4)], 0, d.CUstream(0)))      # 1: legacy stream
    c(d.cuMemcpy3DBatchAsync(1, [op(a, b, 2, 2, 2, 1, 4)], 0, s))                  # 1: rowLength below width
    c(d.cuMemcpy3DBatchAsync(1, [op(a, b, 2, 2, 2, 8, 4)], 1, s))                  # 1: flags
    c(d.cuMemcpy3DBatchAsync(1, [op(a, b, 2, 2, 2, 8, 4,
                                    d.CUmemcpy3DOperandType.CU_MEMCPY_OPERAND_TYPE_ARRAY)], 0, s))  # 801
    c(d.cuStreamBeginCapture(s, 0))
    c(d.cuMemcpy3DBatchAsync(1, [op(a, b, 2, 2, 2, 8, 4)], 0, s))                  # 900
    out["status"] = int(c(d.cuStreamIsCapturing(s)))
    c(d.cuStreamEndCapture(s))
    out["codes"] = codes
print(json.dumps(out))
'''


def test_3d_batched_copies_are_the_same_on_both_routes():
    """cuMemcpy3DBatchAsync: the same bytes and codes (1, 801, 900 in a capture that goes on) on both routes."""
    nat, py = run(BATCH3D, "native"), run(BATCH3D, "python")
    assert nat == py
    assert nat["after"] == bytes([0, 1, 8, 9, 32, 33, 40, 41, *[0] * 8, 0, 1, 2, 3]).hex() and nat["status"] == 1
    assert [x for x in nat["codes"] if x] == [1, 1, 1, 801, 900]
