"""Helpers of the native-library tests: every test that loads the library runs in a subprocess of its own.

Loading ``libcuda.so.1`` cannot be undone, and once it is loaded NVIDIA's cuda.bindings uses it for the whole
process; the test process itself must keep whatever driver the other suites see, so it never loads it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Any

import pytest

import simcuda.faces.native as native

#: prelude of every subprocess script: ctypes declarations of the library's cuGetProcAddress exports
PRELUDE = """
import ctypes, json, os, sys
import simcuda.faces.native as native
lib = native.load()
v2 = lib.cuGetProcAddress_v2
v2.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_uint64,
               ctypes.POINTER(ctypes.c_int)]
v1 = lib.cuGetProcAddress
v1.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_uint64]

def ask(symbol, version, flags=0):
    pfn, status = ctypes.c_void_p(), ctypes.c_int(-1)
    rc = v2(symbol.encode(), ctypes.byref(pfn), version, flags, ctypes.byref(status))
    return rc, pfn.value, status.value

def ask_v1(symbol, version, flags=0):
    pfn = ctypes.c_void_p()
    return v1(symbol.encode(), ctypes.byref(pfn), version, flags), pfn.value

out = {}
"""


@pytest.fixture
def native_run():
    """Run a script after :data:`PRELUDE` in a new interpreter and return the ``out`` dict it fills (as JSON).

    Skips, giving :func:`simcuda.faces.native.available`'s reason, when the library cannot be used here.
    """
    ok, why = native.available()
    if not ok:
        pytest.skip(f"native library unavailable: {why}")

    def run(body: str, env: dict[str, str] | None = None) -> dict[str, Any]:
        script = PRELUDE + textwrap.dedent(body) + "\nprint('OUT=' + json.dumps(out))\n"
        full_env = {k: v for k, v in os.environ.items() if k != "CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM"}
        full_env.update(env or {})
        r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=full_env, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        line = [x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1]
        return json.loads(line[4:])

    return run


def run_flow(flow: str, route: str, timeout: float = 180) -> Any:
    """Run program text ``flow`` (its ``ROUTE`` replaced by ``route``) in a fresh interpreter and return the JSON
    its last stdout line holds (a test compares the two routes' results)."""
    r = subprocess.run([sys.executable, "-c", flow.replace("ROUTE", repr(route))], capture_output=True, text=True,
                       timeout=timeout)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])
