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
    """The default device advertises the feature; the same device with the switch off reports 0."""
    on = simcuda.Driver()
    off = simcuda.Driver(devices=[DeviceSpec(**{flag: False})])
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
