"""Kernel attributes come from the image and the launch checks read them (issue 17 item 3, spec 17).

Hand-written PTX (no NVRTC needed): a kernel with ``.maxntid``, static ``.shared`` and ``.local`` declarations, a
module ``.const`` table, and a kernel with ``.reqntid``. Every test asserts the code and the state afterwards.
"""
from __future__ import annotations

import pytest

import simcuda
from simcuda._core.errors import DriverError

PTX = """.version 8.0
.target sm_80
.address_size 64

.const .align 4 .b8 table[64];

.visible .entry limited(.param .u64 p) .maxntid 64, 1, 1
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b8 buf[1024];
  .local .align 4 .b8 scratch[32];
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  st.shared.u32 [buf], %r1;
  ret;
}

.visible .entry exact(.param .u64 p) .reqntid 32, 2, 1
{
  ret;
}

.visible .entry plain(.param .u64 p)
{
  ret;
}
"""

@pytest.fixture
def env():
    """A driver with a context, the module loaded and its three kernels."""
    d = simcuda.Driver()
    d.init(0)
    d.ctx_create(0, 0)
    m = d.module_load_data(PTX.encode())
    fs = {name: d.module_get_function(m, name) for name in ("limited", "exact", "plain")}
    yield d, m, fs
    d.close()


def _code(fn, *args):
    """The DriverError code ``fn(*args)`` raises (0 when it returns)."""
    try:
        fn(*args)
    except DriverError as e:
        return int(e.code)
    return 0


def test_sizes_and_thread_limit_come_from_the_ptx(env):
    """MAX_THREADS_PER_BLOCK is the .maxntid product; shared, const and local sizes are the declared bytes."""
    d, _m, fs = env
    f = fs["limited"]
    assert d.func_get_attribute(0, f) == 64
    assert d.func_get_attribute(1, f) == 1024
    assert d.func_get_attribute(2, f) == 64
    assert d.func_get_attribute(3, f) == 32
    assert 16 <= d.func_get_attribute(4, f) <= 255
    assert d.func_get_attribute(5, f) == 80  # the .target's virtual architecture
    major, minor = d.devices[0].spec.compute_capability
    assert d.func_get_attribute(6, f) == major * 10 + minor
    assert d.func_get_attribute(0, fs["plain"]) == 1024  # no directive: the device's limit
    assert d.func_get_attribute(0, fs["exact"]) == 64  # .reqntid 32,2,1
    assert d.func_get_attribute(1, fs["plain"]) == 0


def test_default_dynamic_limit_is_48k_minus_static_shared(env):
    """MAX_DYNAMIC_SHARED_SIZE_BYTES starts at 48 KiB minus the static shared bytes; a launch above it is 1."""
    d, _m, fs = env
    f = fs["limited"]
    assert d.func_get_attribute(8, f) == 49152 - 1024
    assert _code(d.launch_kernel, f, (1, 1, 1), (32, 1, 1), 49152 - 1024, 0, [0]) == 0
    assert _code(d.launch_kernel, f, (1, 1, 1), (32, 1, 1), 49152, 0, [0]) == 1
    assert "static shared memory" in d.last_error().why
    assert d.func_get_attribute(8, fs["plain"]) == 49152


def test_opt_in_is_limited_to_the_opt_in_maximum_minus_static(env):
    """cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) accepts up to opt-in minus static; more is 1 and keeps
    the old value; the raised limit lets a larger launch through."""
    d, _m, fs = env
    f = fs["limited"]
    optin = d.device_get_attribute(97, 0)
    assert _code(d.func_set_attribute, f, 8, optin - 1024 + 1) == 1
    assert d.func_get_attribute(8, f) == 49152 - 1024
    d.func_set_attribute(f, 8, optin - 1024)
    assert d.func_get_attribute(8, f) == optin - 1024
    assert _code(d.launch_kernel, f, (1, 1, 1), (32, 1, 1), optin - 1024, 0, [0]) == 0
    assert _code(d.launch_kernel, f, (1, 1, 1), (32, 1, 1), optin - 1023, 0, [0]) == 1


def test_launch_above_maxntid_is_invalid_value_and_runs_nothing(env):
    """A block of 65 threads for a .maxntid 64 kernel is 1 at launch, the why names the directive; the context
    stays usable and a launch within the limit succeeds."""
    d, _m, fs = env
    f = fs["limited"]
    before = d.stats["kernel_launches"]
    assert _code(d.launch_kernel, f, (1, 1, 1), (65, 1, 1), 0, 0, [0]) == 1
    assert ".maxntid 64,1,1" in d.last_error().why
    assert d.stats["kernel_launches"] == before
    assert _code(d.launch_kernel, f, (1, 1, 1), (64, 1, 1), 0, 0, [0]) == 0
    assert _code(d.ctx_synchronize) == 0


def test_reqntid_needs_exactly_that_block(env):
    """A .reqntid 32,2,1 kernel launches with (32,2,1) only: (64,1,1) and (16,2,1) are 1."""
    d, _m, fs = env
    f = fs["exact"]
    assert _code(d.launch_kernel, f, (1, 1, 1), (64, 1, 1), 0, 0, [0]) == 1
    assert ".reqntid 32,2,1" in d.last_error().why
    assert _code(d.launch_kernel, f, (1, 1, 1), (16, 2, 1), 0, 0, [0]) == 1
    assert _code(d.launch_kernel, f, (1, 1, 1), (32, 2, 1), 0, 0, [0]) == 0


def test_every_launch_entry_checks_the_kernel_limits(env):
    """cuLaunchKernel's fast path, a cooperative launch and a kernel node all refuse a block above .maxntid."""
    d, _m, fs = env
    f = fs["limited"]
    s = d.stream_create(0)
    assert _code(d.launch_kernel_fast, f, (1, 1, 1), (128, 1, 1), 0, s, [0]) == 1
    assert _code(d.launch_kernel, f, (1, 1, 1), (128, 1, 1), 0, s, [0], "cuLaunchCooperativeKernel") == 1
    g = d.graph_create(0)
    spec = {"hfunc": f, "grid": (1, 1, 1), "block": (128, 1, 1), "shmem": 0, "args": [0]}
    assert _code(d.graph_add_kernel_node, g, [], f, (1, 1, 1), (128, 1, 1), 0, [0]) == 1
    assert d.graph_get_nodes(g) == []
    del spec
    d.graph_add_kernel_node(g, [], f, (1, 1, 1), (64, 1, 1), 0, [0])
    assert len(d.graph_get_nodes(g)) == 1


def test_read_only_and_unknown_attributes_are_invalid_value(env):
    """Setting NUM_REGS or an unknown attribute is 1; getting an unknown one is 1; the state is unchanged."""
    d, _m, fs = env
    f = fs["limited"]
    regs = d.func_get_attribute(4, f)
    assert _code(d.func_set_attribute, f, 4, 1) == 1
    assert d.func_get_attribute(4, f) == regs
    assert _code(d.func_set_attribute, f, 99, 1) == 1
    assert _code(d.func_get_attribute, 99, f) == 1


def test_cluster_attributes_are_kept_on_a_device_with_clusters():
    """On a compute capability 9.0 device REQUIRED_CLUSTER_WIDTH and the scheduling policy read back as set (0
    first); an out-of-range value is 1 and keeps the old one."""
    d = simcuda.Driver(devices=[simcuda.DeviceSpec(compute_capability=(9, 0))])
    d.init(0)
    d.ctx_create(0, 0)
    f = d.module_get_function(d.module_load_data(PTX.encode()), "plain")
    assert d.func_get_attribute(11, f) == 0
    d.func_set_attribute(f, 11, 2)
    assert d.func_get_attribute(11, f) == 2
    assert _code(d.func_set_attribute, f, 15, 9) == 1
    assert d.func_get_attribute(15, f) == 0
    assert _code(d.func_set_attribute, f, 11, -1) == 1
    assert d.func_get_attribute(11, f) == 2
    d.close()


def test_cluster_attributes_on_a_device_without_clusters_are_801():
    """On a compute capability 8.0 device the cluster attributes cannot be set (801) and read 0."""
    d = simcuda.Driver(devices=[simcuda.DeviceSpec(compute_capability=(8, 0))])
    d.init(0)
    d.ctx_create(0, 0)
    f = d.module_get_function(d.module_load_data(PTX.encode()), "plain")
    assert _code(d.func_set_attribute, f, 11, 2) == 801
    assert d.func_get_attribute(11, f) == 0
    d.close()


def test_kernel_attributes_of_a_library_kernel_per_device(env):
    """cuKernelGetAttribute answers from the image for a library kernel; a bad device is 101; the setter and
    cache config are kept, a bad cache config is 1."""
    d, _m, _fs = env
    lib = d.library_load_data(PTX.encode())
    k = d.module_get_function(lib, "limited")
    assert d.kernel_get_attribute(0, k, 0) == 64
    assert d.kernel_get_attribute(1, k, 0) == 1024
    assert _code(d.kernel_get_attribute, 0, k, 7) == 101
    d.kernel_set_attribute(8, 4096, k, 0)
    assert d.kernel_get_attribute(8, k, 0) == 4096
    d.func_set_cache_config(k, 1, 0, "cuKernelSetCacheConfig")
    assert _code(d.func_set_cache_config, k, 9, 0, "cuKernelSetCacheConfig") == 1
    assert _code(d.func_set_cache_config, k, 1, 5, "cuKernelSetCacheConfig") == 101
    assert _code(d.func_set_cache_config, k, 4) == 1
    d.func_set_cache_config(k, 2)
    assert _code(d.func_set_shared_mem_config, k, 3) == 1
    d.func_set_shared_mem_config(k, 1)


def test_a_module_without_ptx_keeps_the_device_figures():
    """A CUDA C source image (no PTX): MAX_THREADS_PER_BLOCK is the device's, sizes are 0, no kernel limit."""
    d = simcuda.Driver()
    d.init(0)
    d.ctx_create(0, 0)
    f = d.module_get_function(d.module_load_data(b'extern "C" __global__ void k(int *p) {}'), "k")
    assert d.func_get_attribute(0, f) == 1024
    assert d.func_get_attribute(1, f) == 0
    assert d.func_get_attribute(4, f) == 0
    assert _code(d.launch_kernel, f, (1, 1, 1), (1024, 1, 1), 0, 0, [0]) == 0
    d.close()


def test_the_tuple_face_answers_the_new_entries():
    """cuKernelGetAttribute, cuKernelSetAttribute, cuKernelSetCacheConfig, cuFuncSetCacheConfig and
    cuFuncSetSharedMemConfig are built from their rows: codes and values as the core gives them."""
    from simcuda.faces.bindings import driver as cu
    R, A = cu.CUresult, cu.CUfunction_attribute
    d = simcuda.Driver()
    old = simcuda.use(d)
    try:
        assert cu.cuInit(0) == (R.CUDA_SUCCESS,)
        _e, dev = cu.cuDeviceGet(0)
        _e, ctx = cu.cuDevicePrimaryCtxRetain(dev)
        assert cu.cuCtxSetCurrent(ctx) == (R.CUDA_SUCCESS,)
        _e, lib = cu.cuLibraryLoadData(PTX.encode(), [], [], 0, [], [], 0)
        _e, k = cu.cuLibraryGetKernel(lib, b"limited")
        assert cu.cuKernelGetAttribute(A.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, dev) == (R.CUDA_SUCCESS, 64)
        assert cu.cuKernelSetAttribute(A.CU_FUNC_ATTRIBUTE_NUM_REGS, 1, k, dev) == (R.CUDA_ERROR_INVALID_VALUE,)
        assert cu.cuKernelSetAttribute(A.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100, k, dev) == \
            (R.CUDA_SUCCESS,)
        assert cu.cuKernelGetAttribute(A.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k, dev) == \
            (R.CUDA_SUCCESS, 100)
        assert cu.cuKernelSetCacheConfig(k, cu.CUfunc_cache.CU_FUNC_CACHE_PREFER_L1, dev) == (R.CUDA_SUCCESS,)
        _e, m = cu.cuModuleLoadData(PTX.encode())
        _e, f = cu.cuModuleGetFunction(m, b"limited")
        assert cu.cuFuncSetCacheConfig(f, cu.CUfunc_cache.CU_FUNC_CACHE_PREFER_SHARED) == (R.CUDA_SUCCESS,)
        assert cu.cuFuncSetSharedMemConfig(f, cu.CUsharedconfig.CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE) == \
            (R.CUDA_SUCCESS,)
        assert cu.cuFuncGetAttribute(A.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) == (R.CUDA_SUCCESS, 1024)
        assert cu.cuFuncGetAttribute(A.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f) == (R.CUDA_SUCCESS, 32)
    finally:
        simcuda.use(old)
        d.close()


FLOW = r'''
import json, simcuda
from tests.kernels.test_kernel_attributes import PTX
with simcuda.patch(simcuda.Driver(), route=ROUTE):
    from cuda.bindings import driver as d
    A = d.CUfunction_attribute
    d.cuInit(0)
    _, dev = d.cuDeviceGet(0)
    _, ctx = d.cuDevicePrimaryCtxRetain(dev)
    d.cuCtxSetCurrent(ctx)
    _, lib = d.cuLibraryLoadData(PTX.encode(), [], [], 0, [], [], 0)
    _, k = d.cuLibraryGetKernel(lib, b"limited")
    _, m = d.cuModuleLoadData(PTX.encode())
    _, f = d.cuModuleGetFunction(m, b"limited")
    out = [list(map(int, d.cuKernelGetAttribute(A.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, dev))),
           int(d.cuKernelSetAttribute(A.CU_FUNC_ATTRIBUTE_NUM_REGS, 1, k, dev)[0]),
           int(d.cuKernelSetCacheConfig(k, d.CUfunc_cache.CU_FUNC_CACHE_PREFER_L1, dev)[0]),
           list(map(int, d.cuFuncGetAttribute(A.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f))),
           int(d.cuFuncSetCacheConfig(f, d.CUfunc_cache.CU_FUNC_CACHE_PREFER_L1)[0]),
           int(d.cuFuncSetSharedMemConfig(f, d.CUsharedconfig.CU_SHARED_MEM_CONFIG_DEFAULT_BANK_SIZE)[0]),
           int(d.cuCtxSetLimit(d.CUlimit.CU_LIMIT_MALLOC_HEAP_SIZE, 1 << 20)[0]),
           list(map(int, d.cuCtxGetLimit(d.CUlimit.CU_LIMIT_MALLOC_HEAP_SIZE))),
           int(d.cuLaunchKernel(f, 1, 1, 1, 65, 1, 1, 0, 0, 0, 0)[0])]
print(json.dumps(out))
'''


def test_the_native_route_gives_the_same_answers():
    """NVIDIA's compiled binding over the simulated libcuda.so.1 answers the attribute, cache, limit and launch
    check entries as the Python route does."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from simcuda.faces import native
    if not native.available()[0]:
        pytest.skip(f"native route: {native.available()[1]}")
    got = {}
    root = str(Path(__file__).resolve().parents[2])
    for route in ("python", "native"):
        r = subprocess.run([sys.executable, "-c", FLOW.replace("ROUTE", repr(route))], capture_output=True,
                           text=True, timeout=180, cwd=root)
        assert r.returncode == 0, r.stderr
        got[route] = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["native"] == got["python"] == [[0, 64], 1, 0, [0, 1024], 0, 0, 0, [0, 1 << 20], 1]
