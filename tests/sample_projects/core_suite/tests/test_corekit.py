import numpy as np
import pytest
from corekit import iota_scaled, scale_graph, to_host


@pytest.mark.parametrize("n", [1, 128, 1000])
def test_iota_scaled(device, stream, kernels, n):
    buf = iota_scaled(device, stream, kernels, n, 3.0)
    assert np.array_equal(to_host(buf, n, stream), 3 * np.arange(n, dtype=np.float32))
    buf.close(stream)


def test_a_graph_built_by_capture_replays(device, stream, kernels):
    n = 256
    buf = iota_scaled(device, stream, kernels, n, 1.0)
    graph = scale_graph(stream, kernels, buf, n, 2.0, times=3)
    graph.upload(stream)
    graph.launch(stream)
    graph.launch(stream)
    assert np.array_equal(to_host(buf, n, stream), 64 * np.arange(n, dtype=np.float32))
    graph.close()
    buf.close(stream)


def test_the_device_reports_its_properties(device):
    assert device.compute_capability >= (7, 0)
    assert device.properties.multiprocessor_count > 0
