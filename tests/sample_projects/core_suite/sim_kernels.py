"""numpy implementations of corekit's kernels, for the simulator (a GPU runs the CUDA C)."""
import simcuda


@simcuda.kernel("scale")
def scale(launch):
    x, a, n = launch.args
    launch.array(x, "float32", n)[:] *= a


@simcuda.kernel("iota")
def iota(launch):
    x, n = launch.args
    xs = launch.array(x, "float32", n)
    xs[:] = range(n)
