"""``CU_FUNC_ATTRIBUTE_NUM_REGS`` honours the image's register budget (issue 17 item 3): a kernel's ``.maxnreg`` and
a link's ``CU_JIT_MAX_REGISTERS`` (numba's ``max_registers``) cap the engine's estimate [I]."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

import simcuda
from simcuda import ptx
from simcuda._core.modules.launch import NUM_REGS
from simcuda._core.modules.linker import MAX_REGISTERS, with_max_registers
from simcuda.faces import native

#: ``wide`` declares 100 registers (the estimate is 100); ``capped`` the same with ``.maxnreg 32``
PTX = """.version 8.0
.target sm_80
.address_size 64

.visible .entry wide(.param .u64 p)
{
  .reg .b32 %r<100>;
  ret;
}

.visible .entry capped(.param .u64 p)
.maxntid 64, 1, 1
.maxnreg 32
{
  .reg .b32 %r<100>;
  ret;
}
"""


@pytest.fixture
def drv():
    """A driver with a current context."""
    d = simcuda.Driver()
    d.init(0)
    d.ctx_create(0, 0)
    yield d
    d.close()


def test_maxnreg_caps_the_estimate(drv):
    """NUM_REGS is the estimate (100) without ``.maxnreg`` and the directive's 32 with it."""
    m = drv.module_load_data(PTX.encode())
    assert drv.func_get_attribute(NUM_REGS, drv.module_get_function(m, "wide")) == 100
    assert drv.func_get_attribute(NUM_REGS, drv.module_get_function(m, "capped")) == 32


def test_the_parser_reads_each_kernels_own_maxnreg():
    """The engine's parser caps each kernel's register count at its own ``.maxnreg`` (the smallest when the
    linker added one: ``with_max_registers``), and leaves a kernel without one at its estimate."""
    kernels = ptx.load(PTX).kernels
    assert (kernels["capped"].num_regs, kernels["wide"].num_regs) == (32, 100)
    relinked = ptx.load(with_max_registers(PTX, 20)).kernels
    assert (relinked["capped"].num_regs, relinked["wide"].num_regs) == (20, 20)
    assert ptx.load(with_max_registers(PTX, 64)).kernels["capped"].num_regs == 32


def _link(drv: simcuda.Driver, limit: int | None) -> int:
    """A module loaded from cuLinkComplete's image of PTX, linked with CU_JIT_MAX_REGISTERS ``limit`` (None: no
    options)."""
    opts, vals = ([MAX_REGISTERS], [limit]) if limit is not None else ([], [])
    s = drv.link_create(len(opts), opts, vals)
    drv.link_add_data(s, 1, PTX.encode() + b"\0", len(PTX) + 1, "k.ptx", 0, None, None)
    addr, _size = drv.link_complete(s)
    m = drv.module_load_data(addr)
    drv.link_destroy(s)
    return m


@pytest.mark.parametrize("limit, wide, capped", [(None, 100, 32), (0, 100, 32), (40, 40, 32), (24, 24, 24)])
def test_jit_max_registers_of_a_link_caps_every_kernel(drv, limit, wide, capped):
    """A link created with CU_JIT_MAX_REGISTERS N > 0 caps each kernel's NUM_REGS at N (a smaller .maxnreg of
    the kernel stays); 0 or no option sets no cap."""
    m = _link(drv, limit)
    assert drv.func_get_attribute(NUM_REGS, drv.module_get_function(m, "wide")) == wide
    assert drv.func_get_attribute(NUM_REGS, drv.module_get_function(m, "capped")) == capped


NUMBA = r'''
import json
import simcuda
with simcuda.patch(route="native"):
    from numba import cuda

    @cuda.jit(max_registers=16)
    def small(a):
        a[cuda.grid(1)] += 1.0

    @cuda.jit
    def free(a):
        a[cuda.grid(1)] += 1.0

    import numpy as np
    d = cuda.to_device(np.zeros(32, dtype=np.float32))
    small[1, 32](d)
    free[1, 32](d)
    regs = {k: list(f.get_regs_per_thread().values())[0] for k, f in (("small", small), ("free", free))}
    out = {**regs, "sum": float(d.copy_to_host().sum())}
print("OUT=" + json.dumps(out))
'''


@pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")
def test_numba_max_registers_on_the_native_route():
    """numba's ``@cuda.jit(max_registers=16)`` reaches NUM_REGS (at most 40) through cuLinkCreate; the kernels
    still compute."""
    pytest.importorskip("numba_cuda")
    r = subprocess.run([sys.executable, "-c", NUMBA], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-4000:]
    out = json.loads([x for x in r.stdout.splitlines() if x.startswith("OUT=")][-1][4:])
    assert out["sum"] == 64.0
    assert out["small"] == 16 and out["free"] > 16, out  # the estimate is at least 16
