"""Values of ``CUdevice_attribute`` for a simulated device (A100-like, compute capability 8.0, by default).

The architecture-dependent figures (shared memory, clocks, L2) follow the compute capability major: 8 the
A100-SXM4-80GB's, 9 and above the H100's (see ``DeviceSpec``).

Attributes a program commonly queries get realistic values; every other valid attribute is 0.
``DeviceSpec.attributes`` overrides any of them.
"""
from __future__ import annotations

from typing import Any

from ..._generated.driver_enums import CUdevice_attribute as A
from ..errors import CUresult, DriverError

_VALID = {int(m) for m in A}


#: (shared per block opt-in, shared per SM, clock kHz, memory clock kHz, L2 bytes) by compute capability major
_ARCH = {8: (166912, 167936, 1410000, 1593000, 40 * 1024 ** 2),
         9: (232448, 233472, 1980000, 2619000, 50 * 1024 ** 2)}


def _defaults(spec: Any) -> dict[int, int]:
    major, minor = spec.compute_capability
    optin, per_sm, clock, mem_clock, l2 = _ARCH[8 if major < 9 else 9]
    return {
        A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: 1024,
        A.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: 1024, A.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: 1024,
        A.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: 64,
        A.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: 2 ** 31 - 1, A.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: 65535,
        A.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: 65535,
        A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: 49152,
        A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: optin,
        A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: per_sm,
        A.CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: 65536,
        A.CU_DEVICE_ATTRIBUTE_WARP_SIZE: 32,
        A.CU_DEVICE_ATTRIBUTE_MAX_PITCH: 2 ** 31 - 1,
        A.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: 65536,
        A.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: 65536,
        A.CU_DEVICE_ATTRIBUTE_CLOCK_RATE: clock,
        A.CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: mem_clock,
        A.CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: 5120,
        A.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: l2,
        A.CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: 512,
        A.CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: 32,
        A.CU_DEVICE_ATTRIBUTE_GPU_OVERLAP: 1,
        A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: spec.multiprocessors,
        A.CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: 0,
        A.CU_DEVICE_ATTRIBUTE_INTEGRATED: 0,
        A.CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: int(spec.host_mapped_memory),
        # vmm topic: registered memory is reachable at its host pointer (cuMemHostGetDevicePointer returns it)
        A.CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: int(spec.host_mapped_memory),
        A.CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: 0,
        A.CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: 1,
        A.CU_DEVICE_ATTRIBUTE_ECC_ENABLED: 1,
        A.CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: 1, A.CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: 0,
        A.CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: 0,
        A.CU_DEVICE_ATTRIBUTE_TCC_DRIVER: 0,
        A.CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: 3,
        A.CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: 1,
        A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: 2048,
        A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: major,
        A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: minor,
        A.CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED: int(spec.stream_priorities),
        A.CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: 1, A.CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: 1,
        A.CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: int(spec.managed_memory),
        A.CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD: 0,
        A.CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: int(spec.managed_memory),
        A.CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: 0,
        A.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: int(spec.cooperative_launch),
        A.CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: 32,
        A.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: int(spec.memory_pools),
        A.CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: int(spec.virtual_memory),
        A.CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED: 0,
        A.CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: int(major >= 9 if spec.cluster_launch is None else spec.cluster_launch),
        A.CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED: int(spec.cig_d3d12),
        A.CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED: int(spec.cig_vulkan),
        A.CU_DEVICE_ATTRIBUTE_D3D12_CIG_STREAMS_SUPPORTED: int(spec.cig_d3d12_streams),
        A.CU_DEVICE_ATTRIBUTE_VULKAN_CIG_STREAMS_SUPPORTED: int(spec.cig_vulkan_streams),
    }


def attribute_value(spec: Any, attrib: int) -> int:
    """The value of ``attrib`` on a device configured by ``spec``.

    Errors: ``CUDA_ERROR_INVALID_VALUE`` when ``attrib`` is not a ``CUdevice_attribute`` value.
    """
    if attrib not in _VALID:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{attrib} is not a CUdevice_attribute value")
    if attrib in spec.attributes:
        return int(spec.attributes[attrib])
    return int(_defaults(spec).get(attrib, 0))
