"""numpy implementation of saxpy_lib's kernel, for the simulator (a GPU runs the CUDA C)."""
import simcuda


@simcuda.kernel("saxpy")
def saxpy(launch):
    a, x, y, n = launch.args
    xs = launch.array(x, "float32", n)
    ys = launch.array(y, "float32", n)
    ys[:] = a * xs + ys
