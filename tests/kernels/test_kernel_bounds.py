"""``Options.kernel_bounds`` (issue 17 part 3, spec 17): strict (memcheck-like, the default [I]) or GPU-like bounds of
a PTX kernel's global accesses, reached from Python, the environment, ``simcuda run`` and the pytest plugin."""
from __future__ import annotations

import numpy as np
import pytest

import simcuda
from simcuda._core.errors import DriverError

#: ``poke(p, off)``: one thread stores 7 at ``p + off`` (hand-written PTX: no compiler needed)
PTX = b""".version 8.0
.target sm_80
.address_size 64
.visible .entry poke(
\t.param .u64 poke_param_0,
\t.param .u64 poke_param_1
)
{
\t.reg .b32 %r<2>;
\t.reg .b64 %rd<4>;
\tld.param.u64 %rd1, [poke_param_0];
\tld.param.u64 %rd2, [poke_param_1];
\tadd.s64 %rd3, %rd1, %rd2;
\tmov.u32 %r1, 7;
\tst.global.u32 [%rd3], %r1;
\tret;
}
"""


def _poke(drv: simcuda.Driver, off: int) -> tuple[int, int]:
    """Launch ``poke`` on a fresh 64-byte allocation at byte ``off``; (the allocation, the launch's code)."""
    drv.init(0)
    drv.ctx_create(0, 0)
    f = drv.module_get_function(drv.module_load_data(PTX), "poke")
    a = drv.mem_alloc(64)
    drv.memory.kernel_view(a, 64)[:] = bytes(64)
    drv.launch_kernel(f, (1, 1, 1), (1, 1, 1), 0, 0, [a, off])
    try:
        drv.ctx_synchronize()
    except DriverError as e:
        return a, int(e.code)
    return a, 0


@pytest.mark.parametrize("bounds", ["strict", "gpu-like"])
def test_in_bounds_store_lands_either_way(bounds):
    """A store inside the allocation writes its value under both choices."""
    drv = simcuda.Driver(options=simcuda.Options(kernel_bounds=bounds))
    a, code = _poke(drv, 60)
    assert code == 0
    assert np.frombuffer(drv.memory.kernel_view(a, 64), dtype=np.uint32)[15] == 7
    drv.close()


def test_store_past_the_end_inside_the_page_is_a_sticky_700_by_default(monkeypatch):
    """By default a store 4 bytes past a 64-byte allocation (inside its page) faults 700, sticky, naming poke."""
    monkeypatch.delenv("SIMCUDA_KERNEL_BOUNDS", raising=False)
    drv = simcuda.Driver()
    assert drv.options.kernel_bounds == "strict"
    _a, code = _poke(drv, 64)
    assert code == 700
    with pytest.raises(DriverError) as again:
        drv.mem_alloc(64)
    assert int(again.value.code) == 700 and "poke" in again.value.why
    drv.close()


def test_store_past_the_end_inside_the_page_goes_unnoticed_gpu_like():
    """With kernel_bounds="gpu-like" the same store succeeds, writes nothing, and the context goes on."""
    drv = simcuda.Driver(options=simcuda.Options(kernel_bounds="gpu-like"))
    a, code = _poke(drv, 64)
    assert code == 0
    assert bytes(drv.memory.kernel_view(a, 64)) == bytes(64)
    assert drv.mem_alloc(64) != 0
    drv.close()


@pytest.mark.parametrize("bounds", ["strict", "gpu-like"])
def test_store_past_the_mapping_is_a_700_either_way(bounds):
    """A store 16 MiB past the allocation (no mapped page there) faults 700 under both choices."""
    drv = simcuda.Driver(options=simcuda.Options(kernel_bounds=bounds))
    _a, code = _poke(drv, 1 << 24)
    assert code == 700
    drv.close()


def test_environment_variable_sets_the_default(monkeypatch):
    """SIMCUDA_KERNEL_BOUNDS=gpu-like is the default of Options made afterwards; an explicit value wins."""
    monkeypatch.setenv("SIMCUDA_KERNEL_BOUNDS", "gpu-like")
    assert simcuda.Options().kernel_bounds == "gpu-like"
    assert simcuda.Options(kernel_bounds="strict").kernel_bounds == "strict"
    drv = simcuda.Driver()
    assert _poke(drv, 64)[1] == 0
    drv.close()


def test_bad_choice_is_a_value_error(monkeypatch):
    """A kernel_bounds outside its choices, given or from the environment, is a ValueError naming the source."""
    with pytest.raises(ValueError, match="kernel_bounds"):
        simcuda.Options(kernel_bounds="loose")
    monkeypatch.setenv("SIMCUDA_KERNEL_BOUNDS", "loose")
    with pytest.raises(ValueError, match="SIMCUDA_KERNEL_BOUNDS"):
        simcuda.Options()


def test_simcuda_run_flag(tmp_path, monkeypatch):
    """``simcuda run --kernel-bounds gpu-like`` makes the script's driver GPU-like; the default is strict."""
    from simcuda.cli import run_script
    monkeypatch.delenv("SIMCUDA_KERNEL_BOUNDS", raising=False)
    script = tmp_path / "s.py"
    script.write_text("")
    for bounds, want in ((None, "strict"), ("gpu-like", "gpu-like")):
        rc, drv = run_script(str(script), kernel_bounds=bounds)
        assert rc == 0 and drv.options.kernel_bounds == want
        drv.close()


def test_simcuda_run_parser_and_bad_environment(tmp_path, monkeypatch, capsys):
    """The parser takes --kernel-bounds' two choices; a malformed SIMCUDA_KERNEL_BOUNDS is exit code 2 with why."""
    from simcuda.cli import build_parser, main
    ns = build_parser().parse_args(["run", "--kernel-bounds", "gpu-like", "x.py"])
    assert ns.kernel_bounds == "gpu-like"
    script = tmp_path / "s.py"
    script.write_text("")
    monkeypatch.setenv("SIMCUDA_KERNEL_BOUNDS", "loose")
    assert main(["run", "-q", str(script)]) == 2
    assert "SIMCUDA_KERNEL_BOUNDS" in capsys.readouterr().err
