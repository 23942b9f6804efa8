"""The native route's readers of ``void**`` kernel-argument arrays (simcuda/faces/native/kernel_args.py).

The reader tests run in this process (they load no library); the launch tests run NVIDIA's binding over the
simulated libcuda.so.1 in a subprocess of their own, against the same script on the Python face.
"""
from __future__ import annotations

import ctypes
import json
import math
import subprocess
import sys

import pytest

import simcuda
from simcuda.faces import native
from simcuda.faces.native import kernel_args

TYPES = ["unsigned long long", "unsigned int", "int", "float", "double", "bool", "signed char", "unsigned short",
         "char[16]"]
PTX = ("// simcuda-params k: " + ", ".join(TYPES) + "\n.version 8.0\n.target sm_90\n.address_size 64\n"
       ".visible .entry k(.param .u64 a, .param .u32 b, .param .s32 c, .param .f32 x, .param .f64 y, "
       ".param .u8 z, .param .s8 s, .param .u16 u, .param .align 8 .b8 st[16])\n{ ret; }\n").encode()
CTYPES = [ctypes.c_uint64, ctypes.c_uint, ctypes.c_int, ctypes.c_float, ctypes.c_double, ctypes.c_bool,
          ctypes.c_byte, ctypes.c_ushort, ctypes.c_char * 16]


def _array(values: list) -> tuple:
    """A ``void**`` array of ``values`` (by :data:`CTYPES`) and what keeps it alive."""
    cells = [t(*v) if isinstance(v, bytes) else t(v) for t, v in zip(CTYPES, values)]
    arr = (ctypes.c_void_p * len(cells))(*[ctypes.addressof(c) for c in cells])
    return ctypes.addressof(arr), (arr, cells)


@pytest.fixture
def drv():
    d = simcuda.Driver()
    d.init(0)
    d.ctx_create(0, 0)
    yield d
    d.close()


def _signs(xs: list) -> list:
    return [(x, math.copysign(1.0, x)) if isinstance(x, float) else x for x in xs]


def test_a_reader_gives_the_values_the_core_reads(drv):
    """A reader reads every scalar kind, a bool and a struct passed by value as the core's packed_kernel_args
    does: the same values of the same types."""
    f = drv.module_get_function(drv.module_load_data(PTX), "k")
    values = [2**64 - 1, 7, -3, 1.5, -2.25, True, -5, 65535, tuple(b"0123456789abcdef")]
    kp, keep = _array([*values[:-1], b"0123456789abcdef"])
    got = kernel_args.reader(TYPES)(kp)
    want = drv.packed_kernel_args(f, kp)
    assert got == want == [2**64 - 1, 7, -3, 1.5, -2.25, True, -5, 65535, b"0123456789abcdef"]
    assert [type(v) for v in got] == [type(v) for v in want]
    del keep


def test_the_same_bits_give_the_same_list_and_other_bits_a_new_one():
    """Two reads of arrays with the same bits give the one list the first read made (the core then reuses its
    launch record); an int that changed, 0.0 after -0.0, and a NaN's payload each give a new list."""
    r = kernel_args.reader(["unsigned int", "float"])
    cells = [ctypes.c_uint(7), ctypes.c_float(-0.0)]
    arr = (ctypes.c_void_p * 2)(*[ctypes.addressof(c) for c in cells])
    kp = ctypes.addressof(arr)
    first = r(kp)
    assert r(kp) is first and _signs(first) == [7, (0.0, -1.0)]
    cells[1].value = 0.0
    second = r(kp)
    assert second is not first and _signs(second) == [7, (0.0, 1.0)] and _signs(first) == [7, (0.0, -1.0)]
    cells[0].value = 8
    assert r(kp) == [8, 0.0]
    ctypes.c_uint.from_address(ctypes.addressof(cells[1])).value = 0x7FC00001
    nan1 = r(kp)
    ctypes.c_uint.from_address(ctypes.addressof(cells[1])).value = 0x7FC00002
    nan2 = r(kp)
    assert nan2 is not nan1 and math.isnan(nan1[1]) and math.isnan(nan2[1])
    assert r(kp) is nan2


def test_a_null_argument_pointer_is_left_to_the_core(drv):
    """An array with a NULL argument pointer gives None (the adapter then reads it the core's way, which
    reads that argument as 0); a kernel with no parameters has no reader."""
    arr = (ctypes.c_void_p * 2)(ctypes.addressof(ctypes.c_uint(1)), None)
    assert kernel_args.reader(["unsigned int", "float"])(ctypes.addressof(arr)) is None
    with pytest.raises(ValueError):
        kernel_args.reader([])


def test_each_reader_keeps_its_own_last_read():
    """Two functions of one signature have readers of their own: one's reads do not stand for the other's."""
    a, b = kernel_args.reader(["int"]), kernel_args.reader(["int"])
    x, y = ctypes.c_int(1), ctypes.c_int(1)
    pa = (ctypes.c_void_p * 1)(ctypes.addressof(x))
    pb = (ctypes.c_void_p * 1)(ctypes.addressof(y))
    la = a(ctypes.addressof(pa))
    lb = b(ctypes.addressof(pb))
    assert la == lb == [1] and la is not lb


LAUNCHES = r'''
import ctypes, json, math, sys, simcuda
ROUTE = sys.argv[1]
PTX = b""".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 n, .param .f32 x)
{ ret; }
"""
def signs(xs):
    return [[x, math.copysign(1.0, x)] if isinstance(x, float) else x for x in xs]
with simcuda.patch(route=ROUTE) as drv:
    from cuda.bindings import driver as d
    def c(r):
        assert int(r[0]) == 0, r
        return r[1] if len(r) == 2 else r[1:]
    c(d.cuInit(0)); ctx = c(d.cuDevicePrimaryCtxRetain(c(d.cuDeviceGet(0)))); c(d.cuCtxSetCurrent(ctx))
    f = c(d.cuModuleGetFunction(c(d.cuModuleLoadData(PTX)), b"k"))
    dptr = c(d.cuMemAlloc(64)); s = c(d.cuStreamCreate(1))
    T = (None, ctypes.c_uint, ctypes.c_float)
    c(d.cuStreamBeginCapture(s, 0))
    for vals in [(7, 1.5), (7, 1.5), (8, 1.5), (8, -0.0), (8, 0.0), (8, 0.0)]:
        c(d.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, ((dptr, *vals), T), 0))
    c(d.cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, s, ((dptr, 8, 0.0), T), 0))   # another shape
    n, x = ctypes.c_uint(9), ctypes.c_float(2.5)
    arr = (ctypes.c_void_p * 3)(None, ctypes.addressof(n), ctypes.addressof(x))  # a NULL pointer: reads as 0
    c(d.cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, ctypes.addressof(arr), 0))
    cfg = d.CUlaunchConfig()
    cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1; cfg.blockDimX = 32; cfg.blockDimY = cfg.blockDimZ = 1
    cfg.hStream = s
    c(d.cuLaunchKernelEx(cfg, f, ((dptr, 10, -1.0), T), 0))
    c(d.cuLaunchKernelEx(cfg, f, ((dptr, 10, -1.0), T), 0))
    g = c(d.cuStreamEndCapture(s))
    nodes = drv.handles.graph(int(g)).live_nodes()
    params = [n.params for n in nodes]
    out = {"args": [signs(["dptr" if i == 0 and a == int(dptr) else a for i, a in enumerate(p.args)]) for p in params],
           "grids": [list(p.grid) for p in params],
           "shared": [i for i in range(1, len(params)) if params[i] is params[i - 1]]}
print(json.dumps(out))
'''


@pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")
def test_launches_record_the_same_arguments_on_both_routes():
    """Captured launches through NVIDIA's binding record the arguments the Python face records, bit for bit
    (-0.0 and 0.0 apart), share one launch record where the face shares it, read a NULL argument pointer as 0,
    and cuLaunchKernelEx reads its array the same way."""
    outs = []
    for route in ("native", "python"):
        r = subprocess.run([sys.executable, "-c", LAUNCHES, route], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        outs.append(json.loads(r.stdout.strip().splitlines()[-1]))
    native_out, python_out = outs
    assert native_out == python_out
    p = "dptr"
    assert native_out["args"] == [[p, 7, [1.5, 1.0]], [p, 7, [1.5, 1.0]], [p, 8, [1.5, 1.0]], [p, 8, [0.0, -1.0]],
                                  [p, 8, [0.0, 1.0]], [p, 8, [0.0, 1.0]], [p, 8, [0.0, 1.0]], [0, 9, [2.5, 1.0]],
                                  [p, 10, [-1.0, -1.0]], [p, 10, [-1.0, -1.0]]]
    assert native_out["grids"][6] == [2, 1, 1]
    assert native_out["shared"] == [1, 5, 9]


def test_half_and_bfloat16_are_read_and_compared_by_their_bits():
    """A ``__half`` is compared by its bits (``-0.0`` after ``0.0`` is a new list), and a ``__nv_bfloat16`` is
    read as the core reads it (the top half of a float32)."""
    r = kernel_args.reader(["__half", "__nv_bfloat16"])
    cells = [ctypes.c_uint16(0x0000), ctypes.c_uint16(0x3F80)]  # +0.0, 1.0
    arr = (ctypes.c_void_p * 2)(*[ctypes.addressof(c) for c in cells])
    first = r(ctypes.addressof(arr))
    assert _signs(first) == [(0.0, 1.0), (1.0, 1.0)]
    cells[0].value = 0x8000  # -0.0
    second = r(ctypes.addressof(arr))
    assert second is not first and _signs(second) == [(0.0, -1.0), (1.0, 1.0)]
    assert kernel_args.sizes(["__half", "__nv_bfloat16", "double", "char[12]"]) == [2, 2, 8, 12]
