"""DeviceSpec's feature switches: each one sets the attributes that advertise the feature."""
from __future__ import annotations

import pytest

import simcuda
from simcuda._core.config import DeviceSpec
from simcuda._generated.driver_enums import CUdevice_attribute as A

FLAGS = {
    "memory_pools": [A.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED],
    "managed_memory": [A.CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, A.CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS],
    "host_mapped_memory": [A.CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY,
                           A.CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM],
    "virtual_memory": [A.CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED],
    "cooperative_launch": [A.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH],
    "cluster_launch": [A.CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH],
    "stream_priorities": [A.CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED],
}


@pytest.mark.parametrize("flag", sorted(FLAGS))
def test_a_feature_switch_sets_its_attributes(flag):
    """The default device (the H100 preset for clusters) advertises the feature; with the switch off it reports 0."""
    base = DeviceSpec.preset("H100") if flag == "cluster_launch" else DeviceSpec()
    on = simcuda.Driver(devices=[base])
    off = simcuda.Driver(devices=[DeviceSpec.preset("H100" if flag == "cluster_launch" else "A100", **{flag: False})])
    on.init(0)
    off.init(0)
    for attr in FLAGS[flag]:
        assert on.device_get_attribute(int(attr), 0) == 1
        assert off.device_get_attribute(int(attr), 0) == 0


def test_without_stream_priorities_the_range_is_zero_and_priorities_clamp_to_it():
    """stream_priorities=False: cuCtxGetStreamPriorityRange gives (0, 0) and a priority of -5 becomes 0."""
    d = simcuda.Driver(devices=[DeviceSpec(stream_priorities=False)])
    d.init(0)
    d.ctx_create(0, 0)
    assert d.ctx_get_stream_priority_range() == (0, 0)
    s = d.stream_create(0, -5)
    assert d.stream_get_priority(s) == 0


@pytest.mark.parametrize("kwargs, error", [
    ({"name": ""}, TypeError), ({"name": 3}, TypeError), ({"compute_capability": "9.0"}, TypeError),
    ({"compute_capability": (0, 0)}, ValueError), ({"total_mem": -1}, ValueError), ({"total_mem": 1.5}, TypeError),
    ({"multiprocessors": True}, TypeError), ({"memory_pools": 1}, TypeError), ({"cluster_launch": "yes"}, TypeError),
    ({"stream_priority_range": (-5, 0)}, ValueError), ({"attributes": {"x": 1}}, TypeError),
])
def test_a_device_spec_validates_its_values_when_made(kwargs, error):
    """A bad DeviceSpec value fails at construction with TypeError/ValueError naming the field."""
    field = next(iter(kwargs))
    with pytest.raises(error, match=f"DeviceSpec.{field}"):
        DeviceSpec(**kwargs)


@pytest.mark.parametrize("kwargs, error", [
    ({"graph_launch_in_capture": "child"}, ValueError), ({"cig_end_any_thread": 1}, TypeError),
    ({"per_thread_default_stream": 1}, TypeError), ({"per_thread_default_stream": "yes"}, TypeError),
])
def test_options_validate_their_values_when_made(kwargs, error):
    """A bad Options value fails at construction, naming the field."""
    field = next(iter(kwargs))
    with pytest.raises(error, match=f"Options.{field}"):
        simcuda.Options(**kwargs)


def test_a_driver_refuses_an_empty_device_list():
    """``Driver(devices=[])`` is a ValueError, not one silent default device."""
    with pytest.raises(ValueError, match="at least one DeviceSpec"):
        simcuda.Driver(devices=[])


def test_the_default_device_is_an_a100_like_compute_capability_8_0_device():
    """The default device reports the A100-SXM4-80GB's figures and no clusters; the H100 preset keeps 9.0."""
    d = simcuda.Driver()
    d.init(0)
    assert d.devices[0].spec.name == "NVIDIA A100-SXM4-80GB"
    want = {A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: 8, A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: 0,
            A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: 108,
            A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: 164 * 1024,
            A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: 163 * 1024,
            A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: 48 * 1024,
            A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: 2048,
            A.CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: 32,
            A.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: 65536,
            A.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: 65536, A.CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: 0,
            A.CU_DEVICE_ATTRIBUTE_CLOCK_RATE: 1410000, A.CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: 1593000,
            A.CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: 5120, A.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: 40 * 1024 ** 2}
    assert {k: d.device_get_attribute(int(k), 0) for k in want} == want
    h = simcuda.Driver(devices=[DeviceSpec.preset("H100")])
    h.init(0)
    assert h.device_get_attribute(int(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), 0) == 9
    assert h.device_get_attribute(int(A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), 0) == 132
    assert h.device_get_attribute(int(A.CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH), 0) == 1
    with pytest.raises(ValueError):
        DeviceSpec.preset("V100")
