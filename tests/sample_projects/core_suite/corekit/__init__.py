"""Scaling vectors with cuda.core (imported at module top level, as libraries do)."""
import numpy as np
from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch

SOURCE = r"""
extern "C" __global__ void iota(float *x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = i; }
extern "C" __global__ void scale(float *x, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= a; }
"""


class Kernels:
    """The library's kernels, compiled for ``device``."""

    def __init__(self, device: Device):
        opts = ProgramOptions(arch=f"sm_{device.arch}")
        module = Program(SOURCE, code_type="c++", options=opts).compile("ptx")
        self.iota, self.scale = module.get_kernel("iota"), module.get_kernel("scale")


def config(n: int) -> LaunchConfig:
    return LaunchConfig(grid=(n + 127) // 128, block=128)


def iota_scaled(device, stream, kernels, n, factor):
    """A device buffer holding ``factor * [0, 1, ..., n-1]``, computed by two launches on ``stream``."""
    buf = device.allocate(n * 4, stream=stream)
    launch(stream, config(n), kernels.iota, buf, np.uint32(n))
    launch(stream, config(n), kernels.scale, buf, np.float32(factor), np.uint32(n))
    return buf


def scale_graph(stream, kernels, buf, n, factor, times):
    """A graph that scales ``buf`` by ``factor`` ``times`` times, built by capture (cuda.core's GraphBuilder)."""
    gb = stream.create_graph_builder()
    gb.begin_building()
    for _ in range(times):
        launch(gb, config(n), kernels.scale, buf, np.float32(factor), np.uint32(n))
    gb.end_building()
    return gb.complete()


def to_host(buf, n, stream):
    """``n`` float32 values of device buffer ``buf``."""
    from cuda.bindings import driver
    stream.sync()
    out = np.zeros(n, dtype=np.float32)
    (err,) = driver.cuMemcpyDtoH(out.ctypes.data, int(buf.handle), n * 4)
    assert int(err) == 0, err
    return out
