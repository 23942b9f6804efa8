"""Advertise only what is simulated (issue 10 part 1): every ``CUdevice_attribute`` of the default device that
names a capability and is non-zero is mapped to calls that use the feature, and those calls succeed; with the
feature switched off in ``DeviceSpec`` the same calls fail (or lose the feature's effect) as on such hardware.

The walk is mechanical: every attribute whose name matches :data:`CAPABILITY_WORDS` is a capability; every
other non-zero attribute is a limit, a number or a state (:data:`NOT_CAPABILITIES` says why for the names that
could be mistaken for one). A capability must be in :data:`PROBES` (its calls) or in :data:`NO_CALLS` (a
hardware property no driver call exercises, with the reason), else the walk fails.
"""
from __future__ import annotations

import ctypes
import re
from collections.abc import Callable
from typing import Any

import attrs
import pytest

import simcuda
from simcuda._core.config import DeviceSpec
from simcuda._generated.driver_enums import CUdevice_attribute as A
from simcuda.faces.bindings import driver as cu

R = cu.CUresult
#: words that make an attribute name a capability ("is this feature there?") rather than a limit or a number
CAPABILITY_WORDS = re.compile(r"SUPPORTED|CAN_|MANAGED|COOPERATIVE|CLUSTER_LAUNCH|POOLS|PRIORITIES|CIG|CONCURRENT|"
                              r"UNIFIED_ADDRESSING|OVERLAP|ATOMIC|PAGEABLE|HOST_REGISTER|DIRECT|IPC|FABRIC|"
                              r"MULTICAST|TIMELINE|SPARSE|COMPRESSION|DEFERRED|INTEGRATED|TCC")
#: non-zero attributes whose names could read as capabilities but are limits, numbers or states
NOT_CAPABILITIES = {
    "CU_DEVICE_ATTRIBUTE_ECC_ENABLED": "a state of the board (ECC on), not a feature any call uses",
    "CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT": "a number of copy engines",
    "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR": "a version number",
}


class ProbeFailed(AssertionError):
    """A probe's call failed: ``code`` is the CUresult it returned."""

    def __init__(self, call: str, code: Any) -> None:
        super().__init__(f"{call} returned {code!r}: {simcuda.last_error()}")
        self.code = code


def ok(call: str, res: tuple) -> Any:
    """The outputs of a face call, or ProbeFailed with its code."""
    if res[0] != R.CUDA_SUCCESS:
        raise ProbeFailed(call, res[0])
    return None if len(res) == 1 else res[1] if len(res) == 2 else res[1:]


def _module_function() -> Any:
    """A function ``k`` of a freshly loaded module (no parameters)."""
    mod = ok("cuModuleLoadData", cu.cuModuleLoadData(b'extern "C" __global__ void k() {}'))
    return ok("cuModuleGetFunction", cu.cuModuleGetFunction(mod, b"k"))


def _fill_through(dptr: Any, value: int, n: int) -> None:
    """A kernel ``fill(p, v, n)`` (a Python implementation writing ``n`` bytes) launched on ``dptr``."""
    ptx = (b".version 8.0\n.target sm_90\n.address_size 64\n"
           b".visible .entry fill(.param .u64 p, .param .u32 v, .param .u32 n)\n{ ret; }\n")
    simcuda.current_driver().kernels["fill"] = lambda L: L.view(L.args[0], L.args[2]).__setitem__(
        slice(None), bytes([L.args[1]]) * L.args[2])
    f = ok("cuModuleGetFunction", cu.cuModuleGetFunction(ok("cuModuleLoadData", cu.cuModuleLoadData(ptx)), b"fill"))
    args = ((int(dptr), value, n), (ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint))
    ok("cuLaunchKernel", cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, args, 0))
    ok("cuCtxSynchronize", cu.cuCtxSynchronize())


# ------------------------------------------------------------------------------------------------ probes
def probe_mapped() -> None:
    """cuMemHostAlloc(DEVICEMAP), cuMemHostGetDevicePointer, a kernel writing through it seen by the host."""
    p = ok("cuMemHostAlloc", cu.cuMemHostAlloc(64, cu.CU_MEMHOSTALLOC_DEVICEMAP))
    dptr = ok("cuMemHostGetDevicePointer", cu.cuMemHostGetDevicePointer(p, 0))
    _fill_through(dptr, 0x5A, 64)
    assert (ctypes.c_ubyte * 64).from_address(int(p))[:] == [0x5A] * 64
    ok("cuMemFreeHost", cu.cuMemFreeHost(p))


def probe_registered_host_pointer() -> None:
    """cuMemHostRegister(DEVICEMAP) of ordinary host memory; cuMemHostGetDevicePointer gives the host address
    itself, usable by device work (a kernel writing through it, seen by the host)."""
    buf = (ctypes.c_ubyte * 64)()
    ok("cuMemHostRegister", cu.cuMemHostRegister(ctypes.addressof(buf), 64, cu.CU_MEMHOSTREGISTER_DEVICEMAP))
    dptr = ok("cuMemHostGetDevicePointer", cu.cuMemHostGetDevicePointer(ctypes.addressof(buf), 0))
    if int(dptr) != ctypes.addressof(buf):
        raise ProbeFailed("cuMemHostGetDevicePointer (not the host address)", (int(dptr), ctypes.addressof(buf)))
    _fill_through(dptr, 3, 64)
    assert buf[:] == [3] * 64
    ok("cuMemHostUnregister", cu.cuMemHostUnregister(ctypes.addressof(buf)))


def probe_managed() -> None:
    """cuMemAllocManaged(GLOBAL), a memset and a copy back."""
    m = ok("cuMemAllocManaged", cu.cuMemAllocManaged(64, cu.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL))
    ok("cuMemsetD8", cu.cuMemsetD8(m, 7, 64))
    out = bytearray(64)
    ok("cuMemcpyDtoH", cu.cuMemcpyDtoH(out, m, 64))
    assert out == bytes([7]) * 64
    ok("cuMemFree", cu.cuMemFree(m))


def probe_concurrent_managed() -> None:
    """Managed memory advised and prefetched to the device (cuMemAdvise, cuMemPrefetchAsync)."""
    m = ok("cuMemAllocManaged", cu.cuMemAllocManaged(4096, cu.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL))
    loc = cu.CUmemLocation()
    loc.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    loc.id = 0
    ok("cuMemAdvise", cu.cuMemAdvise(m, 4096, cu.CUmem_advise.CU_MEM_ADVISE_SET_READ_MOSTLY, loc))
    ok("cuMemPrefetchAsync", cu.cuMemPrefetchAsync(m, 4096, loc, 0, 0))
    ok("cuStreamSynchronize", cu.cuStreamSynchronize(0))
    ok("cuMemFree", cu.cuMemFree(m))


def probe_vmm() -> None:
    """cuMemCreate, cuMemAddressReserve, cuMemMap, cuMemSetAccess, a memset, then unmap and release."""
    prop = cu.CUmemAllocationProp()
    prop.type = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    prop.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    prop.location.id = 0
    gran = ok("cuMemGetAllocationGranularity", cu.cuMemGetAllocationGranularity(
        prop, cu.CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM))
    h = ok("cuMemCreate", cu.cuMemCreate(gran, prop, 0))
    va = ok("cuMemAddressReserve", cu.cuMemAddressReserve(gran, 0, 0, 0))
    ok("cuMemMap", cu.cuMemMap(va, gran, 0, h, 0))
    desc = cu.CUmemAccessDesc()
    desc.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    desc.location.id = 0
    desc.flags = cu.CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    ok("cuMemSetAccess", cu.cuMemSetAccess(va, gran, [desc], 1))
    ok("cuMemsetD8", cu.cuMemsetD8(va, 1, gran))
    ok("cuMemUnmap", cu.cuMemUnmap(va, gran))
    ok("cuMemRelease", cu.cuMemRelease(h))
    ok("cuMemAddressFree", cu.cuMemAddressFree(va, gran))


def probe_pools() -> None:
    """cuMemPoolCreate, cuMemAllocFromPoolAsync and cuMemFreeAsync on a stream, the device's default pool."""
    props = cu.CUmemPoolProps()
    props.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    props.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    props.location.id = 0
    pool = ok("cuMemPoolCreate", cu.cuMemPoolCreate(props))
    s = ok("cuStreamCreate", cu.cuStreamCreate(1))
    p = ok("cuMemAllocFromPoolAsync", cu.cuMemAllocFromPoolAsync(256, pool, s))
    ok("cuMemFreeAsync", cu.cuMemFreeAsync(p, s))
    ok("cuDeviceGetDefaultMemPool", cu.cuDeviceGetDefaultMemPool(0))
    q = ok("cuMemAllocAsync", cu.cuMemAllocAsync(256, s))
    ok("cuMemFreeAsync", cu.cuMemFreeAsync(q, s))
    ok("cuStreamSynchronize", cu.cuStreamSynchronize(s))
    ok("cuMemPoolDestroy", cu.cuMemPoolDestroy(pool))


def probe_cooperative() -> None:
    """cuLaunchCooperativeKernel, and cuLaunchKernelEx with the COOPERATIVE attribute."""
    f = _module_function()
    ok("cuLaunchCooperativeKernel", cu.cuLaunchCooperativeKernel(f, 2, 1, 1, 32, 1, 1, 0, 0, None))
    _launch_ex(f, cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_COOPERATIVE, "cooperative", 1)


def probe_cluster() -> None:
    """cuLaunchKernelEx with a (2, 1, 1) CLUSTER_DIMENSION on a grid of 4 blocks."""
    _launch_ex(_module_function(), cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, "clusterDim",
               (2, 1, 1))


def _launch_ex(f: Any, attr_id: Any, field: str, value: Any) -> None:
    """cuLaunchKernelEx of ``f`` on 4 blocks of 32 threads with one launch attribute."""
    a = cu.CUlaunchAttribute()
    a.id = attr_id
    if field == "clusterDim":
        dim = a.value.clusterDim
        if hasattr(dim, "x"):  # the real binding's struct; simcuda's face keeps the member as a plain value
            dim.x, dim.y, dim.z = value
    else:
        setattr(a.value, field, value)
    c = cu.CUlaunchConfig()
    c.gridDimX, c.gridDimY, c.gridDimZ = 4, 1, 1
    c.blockDimX, c.blockDimY, c.blockDimZ = 32, 1, 1
    c.attrs = [a]
    c.numAttrs = 1
    ok("cuLaunchKernelEx", cu.cuLaunchKernelEx(c, f, None, 0))


def probe_priorities() -> None:
    """The context's priority range has a higher priority than 0 and a stream created with it keeps it."""
    least, greatest = ok("cuCtxGetStreamPriorityRange", cu.cuCtxGetStreamPriorityRange())
    s = ok("cuStreamCreateWithPriority", cu.cuStreamCreateWithPriority(1, greatest))
    got = ok("cuStreamGetPriority", cu.cuStreamGetPriority(s))
    if not (greatest < least and got == greatest):
        raise ProbeFailed("cuStreamCreateWithPriority (priority not honoured)", (least, greatest, got))


def _cig_probe(ctx_type: Any, stream_type: Any | None) -> Callable[[], None]:
    """A CIG context of ``ctx_type`` (cuCtxCreate with CUctxCigParam); with ``stream_type``, also a CIG capture
    on a stream of it (cuStreamBeginCaptureToCig / cuStreamEndCaptureToCig)."""
    def probe() -> None:
        cig = cu.CUctxCigParam()
        cig.sharedDataType = ctx_type
        cig.sharedData = 0x1000
        p = cu.CUctxCreateParams()
        p.cigParams = [cig]
        ctx = ok("cuCtxCreate (CIG)", cu.cuCtxCreate(p, 0, 0))
        if stream_type is not None:
            s = ok("cuStreamCreate", cu.cuStreamCreate(1))
            sp = cu.CUstreamCigParam()
            sp.streamSharedDataType = stream_type
            sp.streamSharedData = 0x2000
            cp = cu.CUstreamCigCaptureParams()
            cp.streamCigParams = [sp]
            ok("cuStreamBeginCaptureToCig", cu.cuStreamBeginCaptureToCig(s, cp))
            ok("cuStreamEndCaptureToCig", cu.cuStreamEndCaptureToCig(s))
        ok("cuCtxDestroy", cu.cuCtxDestroy(ctx))
    probe.__doc__ = f"A CIG context of data type {ctx_type}" + (" and a CIG capture" if stream_type else "")
    return probe


def probe_unified() -> None:
    """Unified addressing: cuMemGetAddressRange finds a device allocation by an inner address, cuMemcpy copies
    between host and device memory by their addresses alone."""
    d = ok("cuMemAlloc", cu.cuMemAlloc(64))
    h = ok("cuMemAllocHost", cu.cuMemAllocHost(64))
    base, size = ok("cuMemGetAddressRange", cu.cuMemGetAddressRange(int(d) + 8))
    assert int(base) == int(d) and size == 64
    ctypes.memset(int(h), 9, 64)
    ok("cuMemcpy", cu.cuMemcpy(d, int(h), 64))
    out = bytearray(64)
    ok("cuMemcpyDtoH", cu.cuMemcpyDtoH(out, d, 64))
    assert out == bytes([9]) * 64


def probe_concurrent_kernels() -> None:
    """Kernels launched on two non-blocking streams both run (the simulator runs them in order)."""
    f = _module_function()
    for _ in range(2):
        s = ok("cuStreamCreate", cu.cuStreamCreate(1))
        ok("cuLaunchKernel", cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s, None, 0))
    ok("cuCtxSynchronize", cu.cuCtxSynchronize())


def probe_overlap() -> None:
    """An async copy from pinned memory on a stream while a kernel is queued on another."""
    f = _module_function()
    s1, s2 = ok("cuStreamCreate", cu.cuStreamCreate(1)), ok("cuStreamCreate", cu.cuStreamCreate(1))
    d = ok("cuMemAlloc", cu.cuMemAlloc(64))
    h = ok("cuMemAllocHost", cu.cuMemAllocHost(64))
    ok("cuLaunchKernel", cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s1, None, 0))
    ok("cuMemcpyHtoDAsync", cu.cuMemcpyHtoDAsync(d, h, 64, s2))
    ok("cuCtxSynchronize", cu.cuCtxSynchronize())


#: capability attribute -> (its DeviceSpec switch or None, the probe, the code the probe's first call fails with
#: when the switch is off; None: the switch removes the feature's effect rather than failing a call, or there is
#: no switch), and the branch the probe waits for (xfail strict until the lead merges it), or None
PROBES: dict[str, tuple[str | None, Callable[[], None], Any, str | None]] = {
    "CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY": ("host_mapped_memory", probe_mapped, R.CUDA_ERROR_INVALID_VALUE,
                                                None),
    "CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM": (
        "host_mapped_memory", probe_registered_host_pointer, R.CUDA_ERROR_INVALID_VALUE, None),
    "CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY": ("managed_memory", probe_managed, R.CUDA_ERROR_NOT_SUPPORTED, None),
    "CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS": ("managed_memory", probe_concurrent_managed,
                                                      R.CUDA_ERROR_NOT_SUPPORTED, None),
    "CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED": ("virtual_memory", probe_vmm,
                                                                 R.CUDA_ERROR_NOT_SUPPORTED, None),
    "CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED": ("memory_pools", probe_pools, R.CUDA_ERROR_NOT_SUPPORTED, None),
    "CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH": ("cooperative_launch", probe_cooperative, R.CUDA_ERROR_NOT_SUPPORTED,
                                               None),
    "CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH": ("cluster_launch", probe_cluster, R.CUDA_ERROR_NOT_SUPPORTED, None),
    "CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED": ("stream_priorities", probe_priorities, None, None),
    "CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED": (
        "cig_d3d12", _cig_probe(cu.CUcigDataType.CIG_DATA_TYPE_D3D12_COMMAND_QUEUE, None),
        R.CUDA_ERROR_NOT_SUPPORTED, None),
    "CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED": (
        "cig_vulkan", _cig_probe(cu.CUcigDataType.CIG_DATA_TYPE_NV_BLOB, None), R.CUDA_ERROR_NOT_SUPPORTED, None),
    "CU_DEVICE_ATTRIBUTE_D3D12_CIG_STREAMS_SUPPORTED": (
        "cig_d3d12_streams", _cig_probe(cu.CUcigDataType.CIG_DATA_TYPE_D3D12_COMMAND_QUEUE,
                                        cu.CUstreamCigDataType.STREAM_CIG_DATA_TYPE_D3D12_COMMAND_LIST),
        R.CUDA_ERROR_NOT_SUPPORTED, None),
    "CU_DEVICE_ATTRIBUTE_VULKAN_CIG_STREAMS_SUPPORTED": (
        "cig_vulkan_streams", _cig_probe(cu.CUcigDataType.CIG_DATA_TYPE_NV_BLOB,
                                         cu.CUstreamCigDataType.STREAM_CIG_DATA_TYPE_VULKAN_COMMAND_BUFFER_HANDLE_NV),
        R.CUDA_ERROR_NOT_SUPPORTED, None),
    "CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING": (None, probe_unified, None, None),
    "CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS": (None, probe_concurrent_kernels, None, None),
    "CU_DEVICE_ATTRIBUTE_GPU_OVERLAP": (None, probe_overlap, None, None),
}

#: capabilities the default device reports that no driver call exercises, with the reason
NO_CALLS = {
    "CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED": "caching of global loads in L1 is a property of the kernel's "
                                                     "memory accesses; no driver call uses it (H100: 1)",
    "CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED": "caching of local memory in L1 is a property of the kernel's "
                                                    "memory accesses; no driver call uses it (H100: 1)",
}


def _spec_for(name: str) -> DeviceSpec:
    """The device a probe of attribute ``name`` runs on: the default one, the H100 preset for clusters (the
    default compute capability 8.0 device has none)."""
    return DeviceSpec.preset("H100") if name == "CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH" else DeviceSpec()


def _default_values(spec: DeviceSpec | None = None) -> dict[str, int]:
    """Every CUdevice_attribute of the default device (or of ``spec``) with its value."""
    d = simcuda.Driver() if spec is None else simcuda.Driver(devices=[spec])
    d.init(0)
    return {m.name: d.device_get_attribute(int(m), 0) for m in A if m.name != "CU_DEVICE_ATTRIBUTE_MAX"}


def _capabilities() -> list[str]:
    """The names of the non-zero capability attributes of the default device (the walk)."""
    return sorted(n for n, v in _default_values().items()
                  if v and CAPABILITY_WORDS.search(n) and n not in NOT_CAPABILITIES)


def test_the_walk_classifies_every_non_zero_attribute():
    """Each non-zero attribute is a capability (mapped to calls or to a reason there are none) or a limit."""
    caps = _capabilities()
    print("capabilities:", caps)
    print("limits/numbers/states:", sorted(n for n, v in _default_values().items() if v and n not in caps))
    unmapped = [n for n in caps if n not in PROBES and n not in NO_CALLS]
    assert not unmapped, f"capabilities reported by the default device with no probe: {unmapped}"
    assert not set(PROBES) & set(NO_CALLS)
    # the features the issue requires are all among them (the default device is an A100-like 8.0 one, without
    # clusters; the H100 preset has them)
    for name in ("MEMORY_POOLS_SUPPORTED", "MANAGED_MEMORY", "CAN_MAP_HOST_MEMORY",
                 "VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED", "COOPERATIVE_LAUNCH",
                 "STREAM_PRIORITIES_SUPPORTED"):
        assert f"CU_DEVICE_ATTRIBUTE_{name}" in caps
    assert "CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH" not in caps


def _run(spec: DeviceSpec, probe: Callable[[], None]) -> None:
    """Run ``probe`` on a fresh driver of one device ``spec``, with a context current."""
    old = simcuda.use(simcuda.Driver(devices=[spec]))
    try:
        ok("cuInit", cu.cuInit(0))
        ctx = ok("cuCtxCreate", cu.cuCtxCreate(None, 0, 0))
        try:
            probe()
        finally:
            cu.cuCtxDestroy(ctx)
    finally:
        simcuda.use(old)


def _marks(branch: str | None, off: bool = False) -> list[Any]:
    """xfail (strict) while the branch that makes the probe work is not merged (none is, now): ``"vmm"`` both
    tests, ``"vmm-off"`` only the switched-off one (the calls work, the switch does not yet refuse them)."""
    if branch is None or (branch.endswith("-off") and not off):
        return []
    return [pytest.mark.xfail(strict=True, reason=f"needs the {branch.removesuffix('-off')} branch")]


@pytest.mark.parametrize("name", [pytest.param(n, marks=_marks(PROBES[n][3])) for n in sorted(PROBES)])
def test_a_reported_capability_has_its_calls(name):
    """The default device (the H100 preset for clusters) reports the capability and the calls that use it succeed."""
    assert _default_values(_spec_for(name))[name] != 0
    _run(_spec_for(name), PROBES[name][1])


@pytest.mark.parametrize("name", [pytest.param(n, marks=_marks(PROBES[n][3], off=True)) for n in sorted(PROBES)
                                  if PROBES[n][0] is not None])
def test_a_switched_off_capability_fails_as_on_such_hardware(name):
    """With its DeviceSpec switch off the attribute is 0 and the probe fails with the hardware's code."""
    flag, probe, code, _branch = PROBES[name]
    _run(_spec_for(name), probe)  # the calls work where the feature is there: their failure below is the switch's
    spec = attrs.evolve(_spec_for(name), **{flag: False})
    d = simcuda.Driver(devices=[spec])
    d.init(0)
    assert d.device_get_attribute(int(A[name]), 0) == 0
    with pytest.raises(ProbeFailed) as e:
        _run(spec, probe)
    if code is not None:
        assert e.value.code == code


def test_cooperative_launch_too_large():
    """A cooperative grid larger than the blocks that can be resident at once fails with 720."""
    def probe() -> None:
        f = _module_function()
        sms = 108  # the default device's SM count
        ok("cuLaunchCooperativeKernel", cu.cuLaunchCooperativeKernel(f, sms * 2, 1, 1, 1024, 1, 1, 0, 0, None))
        ok("cuLaunchCooperativeKernel", cu.cuLaunchCooperativeKernel(f, sms * 2 + 1, 1, 1, 1024, 1, 1, 0, 0, None))
    with pytest.raises(ProbeFailed) as e:
        _run(DeviceSpec(), probe)
    assert e.value.code == R.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
