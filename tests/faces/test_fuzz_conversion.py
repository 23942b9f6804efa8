"""Slow: every simulated function of the driver, ``_v2`` and runtime faces, one bad argument at a time, against the
real wheel.

For each function a baseline of arguments that the real wrapper converts without complaint is found
(it then fails with ``DynamicLibNotFoundError``: "reached the driver"); then each argument in turn is
replaced by a bad value (negative, too wide, float, str, None, object, list, bytes, a wrapper of
another kind, NaN). The simulated call must raise the same exception class with the same text, or
reach its driver too (return a tuple). It runs in every test run (about 5 s, 100 MB now that device
memory is lazily backed); ``SIMCUDA_FUZZ=0`` skips it, and it skips where cuda-bindings 13.5 is not
installed.
"""
from __future__ import annotations

import os
import re

import pytest

import simcuda
from simcuda.faces.bindings import driver as cu

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.environ.get("SIMCUDA_FUZZ") == "0", reason="fuzz switched off: SIMCUDA_FUZZ=0")]

BAD = ["-1", "2**31", "2**32", "2**63", "2**64", "-2**63-1", "1.5", "'abc'", "None", "object()", "[1]", "b'x'",
       "bytearray(8)", "'1'", "M.CUstream(3)", "M.CUdeviceptr(0)", "float('nan')"]
CANDIDATES = ["0", "None", "[]", "b'x'", "1", "M.CUstream(0)"]


def outcome(fn, args):
    """``('driver',)`` when the call got past argument conversion, else ``(class name, normalised text)``."""
    from simcuda.faces.bindings._v2 import driver as v2
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001
        if type(e).__name__ == "DynamicLibNotFoundError" or isinstance(e, v2.DriverError):
            return ("driver",)
        msg = str(e).replace("simcuda.faces.bindings.", "cuda.bindings.")
        msg = re.sub(r"'(cuda\.bindings\.driver\.)?(\w+)' object is not iterable", r"'\2' object is not iterable", msg)
        msg = re.sub(r" at 0x[0-9a-f]+", "", msg)
        return (type(e).__name__, msg)
    return ("driver",)


def simulated_names():
    from simcuda._generated.driver_outputs import OUTPUTS
    return [n for n in OUTPUTS if not getattr(getattr(cu, n), "__simcuda_stub__", False)]


def simulated_v2_names():
    from simcuda._generated.driver_outputs import V2_FUNCTIONS
    from simcuda.faces.bindings._v2 import driver as v2
    return [n for n in V2_FUNCTIONS if not getattr(getattr(v2, n), "__simcuda_stub__", False)]


def simulated_runtime_names():
    from simcuda._generated.runtime_outputs import OUTPUTS
    from simcuda.faces.bindings import runtime as rt
    return [n for n in OUTPUTS if n.startswith("cuda") and not getattr(getattr(rt, n), "__simcuda_stub__", False)]


@pytest.mark.parametrize("face, name", [("driver", n) for n in simulated_names()]
                         + [("_v2", n) for n in simulated_v2_names()]
                         + [("runtime", n) for n in simulated_runtime_names()])
def test_bad_arguments_convert_like_the_real_wrapper(face, name, monkeypatch):
    """Each bad argument raises what the real wrapper raises, or reaches the simulated driver."""
    import importlib

    from simcuda.faces import native
    if native.is_loaded():  # the real wrapper's calls would reach the simulated library, not "no driver"
        pytest.skip("the simulated libcuda.so.1 was loaded in this process by an earlier test (a native-route "
                    "patch): NVIDIA's wrapper now reaches it instead of failing without a driver; run this file "
                    "in a process of its own")
    mod = {"driver": "cuda.bindings.driver", "_v2": "cuda.bindings._v2.driver",
           "runtime": "cuda.bindings.runtime"}[face]
    real = pytest.importorskip(mod)
    rcu = importlib.import_module("cuda.bindings.driver")
    sim = importlib.import_module("simcuda.faces." + mod.removeprefix("cuda."))
    from simcuda._generated.driver_outputs import OUTPUTS, V2_FUNCTIONS
    from simcuda._generated.runtime_outputs import OUTPUTS as RT_OUTPUTS
    from simcuda.faces.bindings._driver_face import _split_params
    monkeypatch.delenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", raising=False)
    d = simcuda.Driver()
    old = simcuda.use(d)
    try:
        cu.cuInit(0)
        cu.cuCtxCreate(None, 0, 0)
        sig = {"driver": lambda: OUTPUTS[name][0], "_v2": lambda: V2_FUNCTIONS[name].split(" -> ")[0],
               "runtime": lambda: RT_OUTPUTS[name][0]}[face]()
        n = len(_split_params(sig))
        rns, sns = {"M": rcu}, {"M": cu}
        base = ["0"] * n
        for _ in range(2):
            for i in range(n):
                for c in CANDIDATES:
                    trial = [*base[:i], c, *base[i + 1:]]
                    if outcome(getattr(real, name), [eval(a, rns) for a in trial]) == ("driver",):  # noqa: S307
                        base = trial
                        break
        bad = []
        for i in range(n):
            for b in BAD:
                trial = [*base[:i], b, *base[i + 1:]]
                want = outcome(getattr(real, name), [eval(a, rns) for a in trial])  # noqa: S307
                got = outcome(getattr(sim, name), [eval(a, sns) for a in trial])  # noqa: S307
                if got[0] == "MemoryError" and want == ("driver",):
                    continue  # an output array too large for this machine: refused at once (check_calloc) [I]
                if want != got:
                    bad.append(f"{name}({', '.join(trial)}): simulated {got}, real {want}")
        assert not bad, "\n".join(bad)
    finally:
        simcuda.use(old)
