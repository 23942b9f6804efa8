"""What a user without an optional package meets: a message that names the package and how to install it, at the
point of use, never a bare error or a kernel's sticky fault (issue 21 item 3). Each case runs in a fresh
interpreter in which the package cannot be imported."""
from __future__ import annotations

import subprocess
import sys
import textwrap

BLOCK = "import sys\nsys.modules[{name!r}] = None  # as on a machine without it\n"

KERNEL = textwrap.dedent('''
    import simcuda
    from simcuda.faces.bindings import driver as cu

    @simcuda.kernel("double")
    def double(launch):
        launch.array(launch.args[0], "float32", 4)

    cu.cuInit(0)
    _, ctx = cu.cuDevicePrimaryCtxRetain(0)
    cu.cuCtxSetCurrent(ctx)
    PTX = b".version 8.0\\n.target sm_90\\n.address_size 64\\n.visible .entry double(.param .u64 a)\\n{\\n ret;\\n}\\n"
    _, mod = cu.cuModuleLoadData(PTX)
    _, fn = cu.cuModuleGetFunction(mod, b"double")
    _, a = cu.cuMemAlloc(16)
    try:
        cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ((a,), (None,)), 0)
        print("no error")
    except ImportError as e:
        print("ImportError:", e)
    print("sync", int(cu.cuCtxSynchronize()[0]))
''')


def run(name: str, body: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", BLOCK.format(name=name) + body], capture_output=True, text=True,
                          timeout=120)


def test_launch_array_without_numpy_is_an_import_error_not_a_sticky_fault():
    """A Python kernel's ``launch.array`` without numpy raises ImportError through the launch, saying how to
    install numpy; the context keeps no sticky error (the next synchronisation succeeds)."""
    r = run("numpy", KERNEL)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "ImportError: KernelLaunch.array needs numpy" in r.stdout and "pip install numpy" in r.stdout
    assert "sync 0" in r.stdout


def test_simcuda_testing_without_hypothesis_says_what_to_install():
    """``import simcuda.testing`` without hypothesis: a ModuleNotFoundError naming hypothesis and the install
    command; ``import simcuda`` alone still works."""
    r = run("hypothesis", "import simcuda\nprint('simcuda ok')\nimport simcuda.testing\n")
    assert "simcuda ok" in r.stdout
    assert r.returncode == 1
    assert "ModuleNotFoundError: simcuda.testing needs hypothesis" in r.stderr and "pip install hypothesis" in r.stderr
