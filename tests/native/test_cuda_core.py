"""cuda.core 1.2's documented GraphBuilder workflow, unmodified, on the native route.

NVIDIA's cuda.core compiles with NVIDIA's NVRTC (the nvidia-cuda-nvrtc wheel, no GPU needed), then every driver
call it makes goes through NVIDIA's cuda.bindings Cython layer into the simulated libcuda.so.1. The kernels
run as Python implementations (``simcuda.kernel``). Each case runs in a subprocess of its own (the binding keeps
a loaded libcuda.so.1 for the process).
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap

import pytest

from simcuda.faces import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

WORKFLOW = r'''
import json, struct
import numpy as np
import simcuda

SOURCE = r"""
extern "C" __global__ void fill(int *p, int v, unsigned n) { unsigned i = threadIdx.x; if (i < n) p[i] = v; }
extern "C" __global__ void add(int *dst, const int *a, const int *b, unsigned n) {
    unsigned i = threadIdx.x; if (i < n) dst[i] = a[i] + b[i]; }
"""
N = 64

@simcuda.kernel("fill")
def fill(launch):
    p, v, n = launch.args
    launch.array(p, "int32", n)[:] = v

@simcuda.kernel("add")
def add(launch):
    dst, a, b, n = launch.args
    launch.array(dst, "int32", n)[:] = launch.array(a, "int32", n) + launch.array(b, "int32", n)

out = {}
with simcuda.patch(route="native") as drv:
    from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
    dev = Device()
    dev.set_current()
    stream = dev.create_stream()
    prog = Program(SOURCE, code_type="c++", options=ProgramOptions(arch=f"sm_{dev.arch}"))
    mod = prog.compile(TARGET)
    k_fill, k_add = mod.get_kernel("fill"), mod.get_kernel("add")
    a, b, c = (dev.allocate(N * 4, stream=stream) for _ in range(3))
    stream.sync()
    cfg = LaunchConfig(grid=1, block=N)

    gb = stream.create_graph_builder()
    gb.begin_building()
    left, right = gb.split(2)
    launch(left, cfg, k_fill, a, np.int32(3), np.uint32(N))
    launch(right, cfg, k_fill, b, np.int32(4), np.uint32(N))
    joined = type(gb).join(left, right)
    launch(joined, cfg, k_add, c, a, b, np.uint32(N))
    joined.end_building()
    graph = joined.complete()
    graph.upload(stream)
    graph.launch(stream)
    stream.sync()

    host = np.zeros(N, dtype=np.int32)
    from cuda.bindings import driver as cu
    err, = cu.cuMemcpyDtoH(host.ctypes.data, int(c.handle), N * 4)
    out["copy"] = int(err)
    out["c"] = sorted(set(host.tolist()))
    out["launches"] = drv.stats["graph_launches"]
    kernels = [r for r in drv.launch_log if "fill" in str(r) or "add" in str(r)]
    out["kernels_logged"] = len(kernels)
    joined.debug_dot_print(DOT)  # cuGraphDebugDotPrint of the built graph
    out["dot"] = open(DOT).read()
    for buf in (a, b, c):
        buf.close(stream)
    graph.close()
    stream.sync()
    from simcuda.faces.native import call_counts
    # NVRTC asks the driver for a private export table while it compiles; the 801 answer is harmless (NATIVE.md)
    out["not_simulated"] = sorted(f"{n} {v}" for (n, v) in call_counts() if n != "cuGetExportTable")
print("OUT=" + json.dumps(out))
'''


def run(target: str, tmp_path) -> dict:
    code = WORKFLOW.replace("TARGET", repr(target)).replace("DOT", repr(str(tmp_path / "graph.dot")))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-6000:]
    line = [x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1]
    return dict(json.loads(line[4:]))


@pytest.mark.parametrize("target", ["ptx", "cubin"])
def test_graph_builder_workflow_end_to_end(target, tmp_path):
    """Compile with NVRTC, allocate from the device's memory resource, split into two branches and join them,
    launch kernels with Python implementations, complete, upload, launch, sync, read back."""
    out = run(target, tmp_path)
    assert out["copy"] == 0
    assert out["c"] == [7]  # 3 + 4 in every element: the replay ran fill, fill, then add
    assert out["launches"] == 1 and out["kernels_logged"] == 3
    dot = out["dot"]  # the captured graph: two fill branches joined into one add
    labels = re.findall(r'"graph_1_node_(\d)"\[[^\]]*label="\d\n(\w+)\n"', dot)
    assert sorted(name for _, name in labels) == ["add", "fill", "fill"]
    add = next(i for i, name in labels if name == "add")
    edges = re.findall(r'"graph_1_node_(\d)" -> "graph_1_node_(\d)"', dot)
    assert sorted(edges) == sorted((i, add) for i, name in labels if name == "fill")


def test_nothing_it_called_was_left_unsimulated(tmp_path):
    out = run("ptx", tmp_path)
    assert out["not_simulated"] == [], textwrap.shorten(" ".join(out["not_simulated"]), 300)


def test_the_readme_program_exits_cleanly():
    """README's cuda.core example, left to the interpreter's exit to free its buffer and stream: the process
    ends with code 0 and nothing on stderr (cuda.core frees handles while Python finalizes, when ctypes runs no
    callback any more: the library answers those calls itself, as a real driver that frees them)."""
    code = textwrap.dedent('''
        import simcuda

        @simcuda.kernel("fill")
        def fill(launch):
            p, v, n = launch.args
            launch.array(p, "int32", n)[:] = v

        with simcuda.patch(route="native"):
            from cuda.core import Device, LaunchConfig, Program, ProgramOptions, launch
            import numpy as np
            dev = Device(); dev.set_current(); stream = dev.create_stream()
            src = 'extern "C" __global__ void fill(int *p, int v, unsigned n) { p[threadIdx.x] = v; }'
            kernel = Program(src, code_type="c++", options=ProgramOptions(arch=f"sm_{dev.arch}")).compile(
                "ptx").get_kernel("fill")
            buf = dev.allocate(256, stream=stream)
            launch(stream, LaunchConfig(grid=1, block=64), kernel, buf, np.int32(7), np.uint32(64))
            stream.sync()
            host = np.zeros(64, dtype=np.int32)
            from cuda.bindings import driver as cu
            cu.cuMemcpyDtoH(host.ctypes.data, int(buf.handle), 256)
            print(sorted(set(host.tolist())))
    ''')
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stdout.strip(), r.stderr) == (0, "[7]", "")
