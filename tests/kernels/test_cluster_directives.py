"""Thread-block cluster directives of a kernel's PTX (issue 17, P-75): ``.reqnctapercluster``, ``.explicitcluster``
and ``.maxclusterrank`` are read from the image (``.minnctapersm``/``.maxnctapersm`` parsed and ignored), give
CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH and CLUSTER_SIZE_MUST_BE_SET, and a launch whose cluster
shape contradicts them answers 912 CUDA_ERROR_INVALID_CLUSTER_SIZE, not sticky, with nothing run."""
from __future__ import annotations

import ctypes

import pytest

import simcuda
from simcuda import ptx
from simcuda.faces.bindings import driver as cuda

np = pytest.importorskip("numpy")
from tests.kernels.test_real_programs import check, with_context  # noqa: E402


@pytest.fixture(autouse=True)
def h100():  # type: ignore[no-untyped-def]
    """A fresh driver whose device 0 has thread-block clusters (compute capability 9.0), a context current."""
    yield from with_context(simcuda.Driver(devices=[simcuda.DeviceSpec(name="NVIDIA H100 80GB HBM3",
                                                                      compute_capability=(9, 0))]))

BODY = """{
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  add.u32 %r1, %r1, 1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3+-4], %r1;
  ret;
}
"""
PTX = (".version 8.0\n.target sm_90\n.address_size 64\n"
       # what NVRTC 13.5 emits for __cluster_dims__(2, 1, 1): both directives, on lines of their own
       ".visible .entry fixed(.param .u64 out)\n.explicitcluster\n.reqnctapercluster 2, 1, 1\n" + BODY +
       ".visible .entry explicit(.param .u64 out) .explicitcluster\n" + BODY +
       ".visible .entry ranked(.param .u64 out)\n.maxntid 64, 1, 1\n.minnctapersm 1\n.maxnctapersm 4\n"
       ".maxclusterrank 4\n" + BODY +
       ".visible .entry plain(.param .u64 out)\n" + BODY)
A = cuda.CUfunction_attribute
R = cuda.CUresult


@pytest.fixture
def fns():  # type: ignore[no-untyped-def]
    """The module's four kernels by name, and a 16-int output: ``(functions, output address)``."""
    mod = check(cuda.cuModuleLoadData(PTX.encode()))
    return ({n: check(cuda.cuModuleGetFunction(mod, n.encode())) for n in ("fixed", "explicit", "ranked", "plain")},
            int(check(cuda.cuMemAlloc(64))))


def _out(addr: int):  # type: ignore[no-untyped-def]
    """The 16 ints at ``addr``."""
    got = np.zeros(16, np.int32)
    check(cuda.cuMemcpyDtoH(got, addr, 64))
    return got


def _launch(fn, out: int, grid: int, cluster: tuple[int, int, int] | None = None):  # type: ignore[no-untyped-def]
    """Launch ``fn`` on ``grid`` blocks of 32 threads: cuLaunchKernel, or cuLaunchKernelEx with ``cluster``'s
    CLUSTER_DIMENSION. The launch's code."""
    check(cuda.cuMemsetD32(out, 0, 16))
    params = ((out,), (ctypes.c_void_p,))
    if cluster is None:
        return cuda.cuLaunchKernel(fn, grid, 1, 1, 32, 1, 1, 0, 0, params, 0)[0]
    a = cuda.CUlaunchAttribute()
    a.id = cuda.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z = cluster
    c = cuda.CUlaunchConfig()
    c.gridDimX, c.gridDimY, c.gridDimZ = grid, 1, 1
    c.blockDimX, c.blockDimY, c.blockDimZ = 32, 1, 1
    c.attrs = [a]
    c.numAttrs = 1
    return cuda.cuLaunchKernelEx(c, fn, params, 0)[0]


def test_directives_are_parsed_into_the_kernel_info() -> None:
    """The cluster directives land in KernelInfo, on the .entry line or on lines of their own; the occupancy
    hints are parsed and ignored."""
    k = ptx.load(PTX).kernels
    assert (k["fixed"].reqnctapercluster, k["fixed"].explicitcluster, k["fixed"].maxclusterrank) == ((2, 1, 1), True,
                                                                                                      None)
    assert (k["explicit"].reqnctapercluster, k["explicit"].explicitcluster) == (None, True)
    assert (k["ranked"].maxclusterrank, k["ranked"].maxntid, k["ranked"].explicitcluster) == (4, (64, 1, 1), False)
    assert (k["plain"].reqnctapercluster, k["plain"].explicitcluster, k["plain"].maxclusterrank) == (None, False, None)


def test_cluster_attributes_come_from_the_image(fns) -> None:  # type: ignore[no-untyped-def]
    """REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH read .reqnctapercluster and CLUSTER_SIZE_MUST_BE_SET .explicitcluster;
    a kernel without them reads 0."""
    f, _out_addr = fns
    def get(name: str, attr):  # type: ignore[no-untyped-def]
        return check(cuda.cuFuncGetAttribute(attr, f[name]))
    shape = (A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
             A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH)
    assert [get("fixed", a) for a in shape] == [2, 1, 1]
    assert get("fixed", A.CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET) == 1
    assert get("explicit", A.CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET) == 1
    assert get("plain", A.CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET) == 0
    assert get("plain", A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH) == 0
    assert get("ranked", A.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) == 64


def test_compile_time_cluster_shape_cannot_be_set(fns) -> None:  # type: ignore[no-untyped-def]
    """Setting REQUIRED_CLUSTER_WIDTH of a kernel with .reqnctapercluster answers 800 and changes nothing; a
    kernel without the directive takes the setting."""
    f, _ = fns
    W = A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH
    assert cuda.cuFuncSetAttribute(f["fixed"], W, 4)[0] == R.CUDA_ERROR_NOT_PERMITTED
    assert check(cuda.cuFuncGetAttribute(W, f["fixed"])) == 2
    assert cuda.cuFuncSetAttribute(f["plain"], W, 4)[0] == R.CUDA_SUCCESS
    assert check(cuda.cuFuncGetAttribute(W, f["plain"])) == 4


def test_required_cluster_shape_at_launch(fns) -> None:  # type: ignore[no-untyped-def]
    """A .reqnctapercluster kernel runs through cuLaunchKernel on a whole number of clusters and through
    cuLaunchKernelEx with its own shape; another shape, or a grid that splits a cluster, is 912, not sticky, and
    nothing runs."""
    f, out = fns
    want = np.r_[np.arange(1, 5), np.zeros(12)].astype(np.int32)
    assert _launch(f["fixed"], out, 4) == R.CUDA_SUCCESS
    check(cuda.cuCtxSynchronize())
    assert (_out(out) == want).all()
    assert _launch(f["fixed"], out, 4, (2, 1, 1)) == R.CUDA_SUCCESS
    check(cuda.cuCtxSynchronize())
    assert (_out(out) == want).all()
    for grid, cluster in ((3, None), (4, (4, 1, 1)), (4, (1, 2, 1)), (4, (2, 0, 1))):
        assert _launch(f["fixed"], out, grid, cluster) == R.CUDA_ERROR_INVALID_CLUSTER_SIZE
        assert cuda.cuCtxSynchronize()[0] == R.CUDA_SUCCESS  # not sticky
        assert not _out(out).any()  # nothing ran


def test_explicit_cluster_needs_a_shape_at_every_launch(fns) -> None:  # type: ignore[no-untyped-def]
    """An .explicitcluster kernel without .reqnctapercluster is 912 through cuLaunchKernel, runs with a cluster
    shape, and is 912 again without one after that (the checked launch is not reused)."""
    f, out = fns
    assert _launch(f["explicit"], out, 4) == R.CUDA_ERROR_INVALID_CLUSTER_SIZE
    assert _launch(f["explicit"], out, 4, (2, 1, 1)) == R.CUDA_SUCCESS
    check(cuda.cuCtxSynchronize())
    assert list(_out(out)[:4]) == [1, 2, 3, 4]
    assert _launch(f["explicit"], out, 4) == R.CUDA_ERROR_INVALID_CLUSTER_SIZE
    assert cuda.cuCtxSynchronize()[0] == R.CUDA_SUCCESS and not _out(out).any()


def test_max_cluster_rank_and_plain_kernels(fns) -> None:  # type: ignore[no-untyped-def]
    """A cluster above .maxclusterrank is 912; within it the kernel runs; a kernel without directives runs
    with or without a cluster shape that divides its grid, and a shape that does not is 912."""
    f, out = fns
    assert _launch(f["ranked"], out, 8, (8, 1, 1)) == R.CUDA_ERROR_INVALID_CLUSTER_SIZE
    assert _launch(f["ranked"], out, 8, (4, 1, 1)) == R.CUDA_SUCCESS
    check(cuda.cuCtxSynchronize())
    assert list(_out(out)[:8]) == list(range(1, 9))
    assert _launch(f["plain"], out, 3) == R.CUDA_SUCCESS
    assert _launch(f["plain"], out, 4, (2, 1, 1)) == R.CUDA_SUCCESS
    assert _launch(f["plain"], out, 3, (2, 1, 1)) == R.CUDA_ERROR_INVALID_CLUSTER_SIZE
    assert cuda.cuCtxSynchronize()[0] == R.CUDA_SUCCESS


def test_cluster_kernels_are_refused_on_a_device_without_clusters() -> None:
    """On a compute capability 8.0 device (no cluster launch) a kernel with cluster directives is 801 at launch,
    not sticky; a kernel without them runs."""
    gen = with_context(simcuda.Driver())
    next(gen)
    try:
        mod = check(cuda.cuModuleLoadData(PTX.encode()))
        out = int(check(cuda.cuMemAlloc(64)))
        for name in ("fixed", "explicit"):
            fn = check(cuda.cuModuleGetFunction(mod, name.encode()))
            assert _launch(fn, out, 4) == R.CUDA_ERROR_NOT_SUPPORTED
            assert "cluster" in simcuda.last_error().why
        assert cuda.cuCtxSynchronize()[0] == R.CUDA_SUCCESS and not _out(out).any()
        assert _launch(check(cuda.cuModuleGetFunction(mod, b"plain")), out, 4) == R.CUDA_SUCCESS
        check(cuda.cuCtxSynchronize())
        assert list(_out(out)[:4]) == [1, 2, 3, 4]
    finally:
        gen.close()


def test_a_cluster_shape_set_at_runtime_is_checked_at_launch(fns) -> None:  # type: ignore[no-untyped-def]
    """REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH set with cuFuncSetAttribute on a kernel without the directive are
    checked at launch as the directive is: a grid that splits a cluster or another launch shape is 912, a
    partly set shape is 912, the set shape runs (through cuLaunchKernel too); all three 0 again lifts it."""
    f, out = fns
    plain = f["plain"]
    W, H, D = (A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
               A.CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH)
    check(cuda.cuFuncSetAttribute(plain, W, 2))
    assert _launch(plain, out, 4) == R.CUDA_ERROR_INVALID_CLUSTER_SIZE  # height and depth still 0
    assert "all be 0 or all be positive" in simcuda.last_error().why
    for a in (H, D):
        check(cuda.cuFuncSetAttribute(plain, a, 1))
    assert _launch(plain, out, 3) == R.CUDA_ERROR_INVALID_CLUSTER_SIZE
    assert _launch(plain, out, 4, (4, 1, 1)) == R.CUDA_ERROR_INVALID_CLUSTER_SIZE
    assert "cuFuncSetAttribute" in simcuda.last_error().why
    assert cuda.cuCtxSynchronize()[0] == R.CUDA_SUCCESS and not _out(out).any()
    assert _launch(plain, out, 4) == R.CUDA_SUCCESS and _launch(plain, out, 4, (2, 1, 1)) == R.CUDA_SUCCESS
    check(cuda.cuCtxSynchronize())
    assert list(_out(out)[:4]) == [1, 2, 3, 4]
    for a in (W, H, D):
        check(cuda.cuFuncSetAttribute(plain, a, 0))
    assert _launch(plain, out, 3) == R.CUDA_SUCCESS
    assert cuda.cuCtxSynchronize()[0] == R.CUDA_SUCCESS
