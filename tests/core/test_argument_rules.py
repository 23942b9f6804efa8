"""The argument rules the faces report to the core (docs/architecture.md, "Faces translate, never decide").

Each rule is a ``Driver`` entry: it decides the code, records the failure under the calling entry point's
name (``last_error``, ``error_log``) and changes nothing else.
"""
from __future__ import annotations

import pytest

from simcuda import Driver, DriverError

FILE = "/nonexistent/simcuda-test/module.ptx"

#: (method, args, expected code, words the why must contain)
REFUSED = [
    ("require_arg", (False, "pCopy", "cuMemcpy2D"), 1, "pCopy is NULL"),
    ("require_count", (3, 2, "accessDescCount", "cuGraphAddMemAllocNode"), 1, "accessDescCount 3"),
    ("check_flags", (0x100, 0xFF, "flags", "cudaSetDeviceFlags"), 1, "outside 0xff"),
    ("check_host_range", (0, 8, "dependencies (1 handles)", "cuGraphAddEmptyNode"), 1, "NULL"),
    ("read_image_file", (FILE, "cuModuleLoad"), 301, "cannot read"),
    ("copy_memory_type", (3, "src", "cuMemcpy2D"), 801, "CUDA arrays"),
    ("copy_memory_type", (9, "dst", "cuMemcpy3D"), 1, "not a CUmemorytype"),
    ("check_kernel_extra", (True, 0x1000, "cuLaunchKernel"), 1, "both non-NULL"),
    ("check_kernel_extra", (False, 0x1000, "cuLaunchKernel"), 801, "not simulated"),
    ("check_launch_attributes", ([0, 1], "cuLaunchKernelEx"), 801, "attribute 1"),
    # clusters: the default device (compute capability 8.0) has none (CLUSTER_LAUNCH 0)
    ("check_launch_attributes", ([4, 5], "cuLaunchKernelEx"), 801, "without cluster launch"),
    ("check_node_type", (14, "cuGraphAddNode"), 801, "not simulated"),
    ("check_node_type", (99, "cuGraphAddNode"), 1, "not a CUgraphNodeType"),
    ("check_child_ownership", (2, "cuGraphAddNode"), 1, "ownership 2"),
    ("get_error_name", (12345,), 1, "not a CUresult"),
    ("get_error_string", (12345,), 1, "not a CUresult"),
]

#: (method, args, result) of inputs the rules accept
ACCEPTED = [
    ("require_arg", (True, "pCopy", "cuMemcpy2D"), None),
    ("require_count", (2, 2, "count", "cuGraphAddBatchMemOpNode"), None),
    ("check_flags", (0x3, 0xFF, "flags", "cudaSetDeviceFlags"), None),
    ("copy_memory_type", (1, "src", "cuMemcpy2D"), "host"),
    ("copy_memory_type", (2, "src", "cuMemcpy2D"), "device"),
    ("copy_memory_type", (4, "src", "cuMemcpy2D"), "unified"),
    ("check_kernel_extra", (True, 0, "cuLaunchKernel"), None),
    ("check_launch_attributes", ([0, 2, 8], "cuLaunchKernelEx"), False),
    ("check_launch_attributes", ([0, 6], "cuLaunchKernelEx", [1, 1]), True),  # programmatic (P-16)
    ("check_launch_attributes", ([6], "cuLaunchKernelEx", [0]), False),  # attribute 6 with value 0
    ("check_node_type", (12, "cuGraphAddNode"), None),
    ("check_node_type", (13, "cuGraphAddNode"), None),  # CONDITIONAL (P-21)
    ("check_child_ownership", (1, "cuGraphAddNode"), None),
    ("get_error_name", (904,), "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"),
]


def _state(d):
    return sorted(d.handles.table), d.memory.in_use, len(d.launch_log)


@pytest.mark.parametrize(("method", "args", "code", "words"), REFUSED, ids=[f"{r[0]}-{r[2]}" for r in REFUSED])
def test_a_rule_decides_the_code_and_records_it(d, method, args, code, words):
    """A broken rule raises its code with a why, logged under the calling entry's name, and changes nothing."""
    before = _state(d)
    with pytest.raises(DriverError) as info:
        getattr(d, method)(*args)
    assert int(info.value.code) == code and words in info.value.why
    assert d.last_error() == info.value
    call = {"get_error_name": "cuGetErrorName", "get_error_string": "cuGetErrorString"}.get(method, args[-1])
    assert d.error_log[-1].code == code and d.error_log[-1].call == call
    assert _state(d) == before


@pytest.mark.parametrize(("method", "args", "result"), ACCEPTED, ids=[f"{r[0]}-{i}" for i, r in enumerate(ACCEPTED)])
def test_an_input_the_rule_accepts_passes(d, method, args, result):
    """An input that keeps the rule returns normally (the kind, name or None) and logs no error."""
    n = len(d.error_log)
    assert getattr(d, method)(*args) == result
    assert len(d.error_log) == n


def test_the_rules_need_cuinit_except_the_error_names():
    """Before cuInit a rule answers NOT_INITIALIZED like any entry; error names and stubs need no cuInit."""
    drv = Driver()
    with pytest.raises(DriverError) as info:
        drv.require_arg(False, "pCopy", "cuMemcpy2D")
    assert int(info.value.code) == 3
    assert drv.get_error_name(1) == "CUDA_ERROR_INVALID_VALUE"
    e = drv.not_simulated("cuArray3DCreate", "not simulated")
    assert int(e.code) == 801 and drv.error_log[-1].call == "cuArray3DCreate"


def test_sizes_and_lengths_the_runtime_allows(d):
    """allow_zero gives address 0 for a zero-size allocation; without it size 0 and a zero name length are 1."""
    before = d.memory.in_use
    assert d.mem_alloc(0, "cudaMalloc", allow_zero=True) == 0
    assert d.mem_alloc_host(0, "cudaMallocHost", allow_zero=True) == 0
    for fn in (lambda: d.mem_alloc(0), lambda: d.mem_alloc_host(0), lambda: d.device_get_name(0, 0),
               lambda: d.mem_alloc(0, "cudaMallocManaged", managed=True, flags=5, allow_zero=True),
               lambda: d.mem_alloc_host(0, "cudaHostAlloc", 0x8, allow_zero=True)):
        with pytest.raises(DriverError) as info:
            fn()
        assert int(info.value.code) == 1
    assert d.memory.in_use == before and not d.memory.host


def test_module_get_function_takes_null_and_unreadable_names(d):
    """A NULL or unreadable name is INVALID_VALUE, checked before the module handle; no function is made."""
    n = len(d.handles.table)
    for name in (None, 0, -8, 0xDEADBEEF000):
        with pytest.raises(DriverError) as info:
            d.module_get_function(0x1234, name)
        assert int(info.value.code) == 1
    assert len(d.handles.table) == n
