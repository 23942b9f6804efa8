"""The two routes answer the same call alike (issue 19 item 6): the shapes a fuzzer found differing, each decided
by NVIDIA's binding and driver, run through NVIDIA's binding on the native route and through simcuda's Python
face, in a subprocess per route.

Where the native route cannot know what the face knows (the length and mutability of a Python object behind a
host pointer), the difference is the documented one (docs/native.md, "What is checked"): the face refuses, the
native route writes where the pointer points, as the real driver does.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from simcuda.faces import native

pytestmark = pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")

PROBE = r'''
import ctypes, json, sys, simcuda
out = {}
def o(name, f):
    try:
        r = f()
        out[name] = int(r[0])
    except BaseException as e:
        out[name] = f"{type(e).__name__}: {e}"[:120]
with simcuda.patch(route=sys.argv[1]) as drv:
    from cuda.bindings import driver as cu
    cu.cuInit(0)
    dev = cu.cuDeviceGet(0)[1]
    cu.cuCtxSetCurrent(cu.cuDevicePrimaryCtxRetain(dev)[1])
    d = cu.cuMemAlloc(64)[1]
    s = cu.cuStreamCreate(0)[1]
    # zero-byte copies with a NULL host pointer: nothing is read or written
    o("htod0_null", lambda: cu.cuMemcpyHtoD(d, None, 0))
    o("dtoh0_null", lambda: cu.cuMemcpyDtoH(None, d, 0))
    o("htod0_null_async", lambda: cu.cuMemcpyHtoDAsync(d, None, 0, s))
    o("dtoh0_null_async", lambda: cu.cuMemcpyDtoHAsync(None, d, 0, s))
    o("htod_null", lambda: cu.cuMemcpyHtoD(d, None, 8))
    # one byte past a pinned allocation (the copy ends one byte past it: the same page)
    h = cu.cuMemAllocHost(64)[1]
    o("pinned_past", lambda: cu.cuMemcpyDtoH(h + 1, d, 64))
    # the wrappers' own argument checks
    o("ctxcreate_none", lambda: cu.cuCtxCreate(None, 0, dev))
    o("ctxcreate_bad", lambda: cu.cuCtxCreate("x", 0, dev))
    o("memcreate_none", lambda: cu.cuMemCreate(0, None, 0))
    o("memcreate_bad", lambda: cu.cuMemCreate(0, "x", 0))
    o("write32_bad", lambda: cu.cuStreamWriteValue32(s, "x", 0, 0))
    o("wait32_bad", lambda: cu.cuStreamWaitValue32(s, "x", 0, 0))
    o("write32_none", lambda: cu.cuStreamWriteValue32(s, None, 0, 0))
    o("funcset_bad", lambda: cu.cuFuncSetAttribute("x", 0, 0))
    o("funcset_none", lambda: cu.cuFuncSetAttribute(None, 0, 0))
    o("modex_none", lambda: cu.cuModuleLoadDataEx(None, 0, None, None))
    o("modex_bad", lambda: cu.cuModuleLoadDataEx(b"x", 1, None, None))
    # cuGraphAddNode passes the count through (the driver refuses the missing entries); the per-type
    # wrappers (cuGraphAddEmptyNode) check it against the list
    g = cu.cuGraphCreate(0)[1]
    e = cu.cuGraphAddEmptyNode(g, None, 0)[1]
    p = cu.CUgraphNodeParams()
    p.type = cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_EMPTY
    o("addnode_none_2", lambda: cu.cuGraphAddNode(g, None, None, 2, p))
    o("addnode_empty_2", lambda: cu.cuGraphAddNode(g, [], None, 2, p))
    o("addnode_one_2", lambda: cu.cuGraphAddNode(g, [e], None, 2, p))
    o("addnode_one_1", lambda: cu.cuGraphAddNode(g, [e], None, 1, p))
    o("addempty_none_2", lambda: cu.cuGraphAddEmptyNode(g, None, 2))
    out["nodes"] = int(cu.cuGraphGetNodes(g)[2])
    # the documented difference: a read-only or too short Python buffer as a copy destination
    o("dtoh_bytes", lambda: cu.cuMemcpyDtoH(bytes(64), d, 64))
print(json.dumps(out))
'''

AGREED = {
    "htod0_null": 0, "dtoh0_null": 0, "htod0_null_async": 0, "dtoh0_null_async": 0, "htod_null": 1,
    "pinned_past": 0,
    "ctxcreate_none": 0,
    "ctxcreate_bad": "TypeError: Argument 'ctxCreateParams' has incorrect type (expected "
                     "cuda.bindings.driver.CUctxCreateParams, got str)",
    "memcreate_none": 1,
    "memcreate_bad": "TypeError: Argument 'prop' has incorrect type (expected "
                     "cuda.bindings.driver.CUmemAllocationProp, got str)",
    "write32_bad": "TypeError: an integer is required", "wait32_bad": "TypeError: an integer is required",
    "write32_none": 1, "funcset_bad": "TypeError: an integer is required", "funcset_none": 400,
    "modex_none": 200, "modex_bad": "RuntimeError: List is too small: 0 < 1",
    "addnode_none_2": 1, "addnode_empty_2": 1, "addnode_one_2": 1, "addnode_one_1": 0,
    "addempty_none_2": "RuntimeError: List is too small: 0 < 2",
    "nodes": 2,
}


def _probe(route: str) -> dict[str, object]:
    r = subprocess.run([sys.executable, "-c", PROBE, route], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_the_routes_agree_on_the_shapes_a_fuzzer_found_differing():
    """Every shape answers the same on both routes, and as NVIDIA's binding and driver decide it: zero-byte copies
    with a NULL host pointer succeed (nothing is touched; a non-zero one is INVALID_VALUE), cuGraphAddNode with
    fewer dependencies than its count is the driver's INVALID_VALUE (the face raised the per-type wrappers'
    RuntimeError), the wrappers' TypeErrors and RuntimeErrors are the same. A read-only ``bytes`` destination
    is the documented difference: the face refuses it, the native route writes where the pointer points."""
    native_out, python_out = _probe("native"), _probe("python")
    assert native_out.pop("dtoh_bytes") == 0 and python_out.pop("dtoh_bytes") == 1
    assert native_out == python_out == AGREED
