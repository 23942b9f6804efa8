import numpy as np
import pytest
from cuda.bindings import driver
from saxpy_lib import CudaFailure, Saxpy, check, to_device, to_host

N = 1000


def test_saxpy_computes_a_x_plus_y(stream):
    x, y = np.arange(N, dtype=np.float32), np.ones(N, dtype=np.float32)
    dx, dy = to_device(x, stream), to_device(y, stream)
    Saxpy().launch(stream, 2.0, dx, dy, N)
    assert np.array_equal(to_host(dy, N, stream), 2 * x + 1)


def test_a_captured_graph_replays_the_kernel(stream):
    x, y = np.full(N, 3, dtype=np.float32), np.zeros(N, dtype=np.float32)
    dx, dy = to_device(x, stream), to_device(y, stream)
    check(driver.cuStreamSynchronize(stream))
    kernel = Saxpy()
    check(driver.cuStreamBeginCapture(stream, driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    kernel.launch(stream, 1.0, dx, dy, N)
    kernel.launch(stream, 1.0, dx, dy, N)
    graph = check(driver.cuStreamEndCapture(stream))
    nodes = check(driver.cuGraphGetNodes(graph, 0))[1]
    assert nodes == 2
    exe = check(driver.cuGraphInstantiate(graph, 0))
    for _ in range(3):
        check(driver.cuGraphLaunch(exe, stream))
    assert np.array_equal(to_host(dy, N, stream), np.full(N, 18, dtype=np.float32))


def test_a_synchronous_copy_in_a_capture_invalidates_it(stream):
    dy = to_device(np.zeros(4, dtype=np.float32), stream)
    check(driver.cuStreamSynchronize(stream))
    check(driver.cuStreamBeginCapture(stream, driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    with pytest.raises(CudaFailure, match="CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"):
        check(driver.cuMemcpyHtoD(dy, np.ones(4, dtype=np.float32), 16))
    err, _ = driver.cuStreamEndCapture(stream)
    assert err == driver.CUresult.CUDA_ERROR_STREAM_CAPTURE_INVALIDATED


@pytest.mark.parametrize("n", [1, 255, 256, 257])
def test_saxpy_edges_of_the_grid(stream, n):
    x, y = np.ones(n, dtype=np.float32), np.zeros(n, dtype=np.float32)
    dx, dy = to_device(x, stream), to_device(y, stream)
    Saxpy().launch(stream, 5.0, dx, dy, n)
    assert np.array_equal(to_host(dy, n, stream), np.full(n, 5, dtype=np.float32))
