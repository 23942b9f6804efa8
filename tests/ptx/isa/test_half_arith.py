"""Arithmetic on ``.bf16``, ``.f16x2`` and ``.bf16x2`` registers (simcuda.ptx.halves), each against the value the
PTX ISA defines: element-wise IEEE operations rounded once to nearest even, ``.sat``/``.relu``/``.ftz``,
sign-bit ``neg``/``abs``, NaN-aware ``min``/``max``; and the CAS loop NVRTC emits for a bf16 ``atomicAdd`` below
sm_90 (``fma.rn.bf16 d, a, 1.0, b`` in ``atom.cas.b16``) sums every lane's value."""
from __future__ import annotations

import struct

import pytest

from .conftest import PRELUDE, TinyMemory, run_kernel

np = pytest.importorskip("numpy")
ptx = pytest.importorskip("simcuda.ptx")


def _one(ins: str, ty: str, *srcs: int) -> int:
    """The bits ``ins`` (``op d, a[, b[, c]]``) writes for source bit patterns ``srcs`` of type ``ty``."""
    reg = "b16" if ty == "bf16" else "b32"
    movs = "\n".join(f" mov.{reg} %s{i}, {v:#x};" for i, v in enumerate(srcs))
    args = ", ".join(f"%s{i}" for i in range(len(srcs)))
    text = f""".visible .entry k(.param .u64 out)
{{
 .reg .u64 %o; .reg .{reg} %s<4>, %d;
 ld.param.u64 %o, [out];
{movs}
 {ins} %d, {args};
 st.global.{reg} [%o], %d;
 ret;
}}
"""
    out = run_kernel(text)
    return int(struct.unpack_from("<H" if reg == "b16" else "<I", out)[0])


ONE, TWO, HALF_ULP = 0x3F80, 0x4000, 0x3B80  # bf16 1.0, 2.0, 2**-8 (half an ulp of 1.0)


@pytest.mark.parametrize("ins, srcs, want", [
    ("add.rn.bf16", (ONE, TWO), 0x4040),  # 3.0
    ("add.bf16", (ONE, HALF_ULP), ONE),  # a tie rounds to even: 1.0
    ("add.rn.bf16", (0x3F81, HALF_ULP), 0x3F82),  # a tie rounds to even: up
    ("sub.rn.bf16", (ONE, TWO), 0xBF80),  # -1.0
    ("mul.rn.bf16", (0x7F7F, TWO), 0x7F80),  # overflow to +inf
    ("mul.rn.bf16", (0x3FC0, 0x3FC0), 0x4010),  # 1.5 * 1.5 = 2.25
    ("fma.rn.bf16", (ONE, TWO, TWO), 0x4080),  # 1 * 2 + 2 = 4
    ("fma.rn.bf16", (0x7FC0, ONE, ONE), 0x7FFF),  # NaN: the canonical NaN
    ("fma.rn.relu.bf16", (ONE, TWO, 0xC080), 0x0000),  # 2 - 4 < 0: 0
    ("neg.bf16", (ONE,), 0xBF80),
    ("abs.bf16", (0xBF80,), ONE),
    ("min.bf16", (0x8000, 0x0000), 0x8000),  # -0 below +0
    ("max.bf16", (0x8000, 0x0000), 0x0000),
    ("min.bf16", (0x7FC0, TWO), TWO),  # one NaN: the other operand
    ("min.NaN.bf16", (0x7FC0, TWO), 0x7FFF),
])
def test_bf16_scalar(ins: str, srcs: tuple[int, ...], want: int) -> None:
    """A scalar .bf16 operation gives the bits the ISA defines."""
    assert _one(ins, "bf16", *srcs) == want


@pytest.mark.parametrize("ins, srcs, want", [
    ("add.rn.bf16x2", (0x3F804000, 0x40003F80), 0x40404040),  # each half 3.0
    ("fma.rn.bf16x2", (0x3F803F80, 0x40004000, 0x40004000), 0x40804080),
    ("neg.bf16x2", (0x3F80BF80,), 0xBF803F80),
    ("add.f16x2", (0x3C004000, 0x40003C00), 0x42004200),  # f16 3.0 in each half
    ("add.rn.sat.f16x2", (0x3C003C00, 0x3C00BC00), 0x3C000000),  # high 1 + 1 saturates to 1, low 1 - 1 = 0
    ("mul.rn.f16x2", (0x3E003C00, 0x3E004000), 0x40804000),  # 1.5 * 1.5 = 2.25, 1 * 2 = 2
    ("fma.rn.f16x2", (0x3C003C00, 0x40004000, 0x40004000), 0x44004400),
    ("add.ftz.f16x2", (0x00010001, 0x00000000), 0x00000000),  # subnormal inputs flushed
    ("sub.f16x2", (0x3C003C00, 0x3C003C00), 0x00000000),
    ("max.f16x2", (0x7E00C000, 0x3C00BC00), 0x3C00BC00),  # NaN -> other; max(-2, -1) = -1
])
def test_packed_pairs(ins: str, srcs: tuple[int, ...], want: int) -> None:
    """A packed f16x2/bf16x2 operation works on each half alone."""
    assert _one(ins, ins.split(".")[-1], *srcs) == want


CAS_LOOP = """.visible .entry k(.param .u64 out)
{
 .reg .pred %p; .reg .u64 %o; .reg .b16 %one, %x, %new, %old; .reg .b32 %r;
 ld.param.u64 %o, [out];
 mov.b16 %one, 0x3F80;
 ld.global.u16 %x, [%o];
LOOP:
 fma.rn.bf16 %new, %one, %one, %x;
 atom.global.cas.b16 %old, [%o], %x, %new;
 setp.ne.s16 %p, %x, %old;
 mov.u16 %x, %old;
 @%p bra LOOP;
 mov.u32 %r, %tid.x;
 ret;
}
"""


def test_bf16_atomic_add_cas_loop_sums_every_lane() -> None:
    """200 lanes each add 1.0 to one bf16 through the CAS loop: the word holds 200.0 (exact in bf16)."""
    mem = TinyMemory()
    out = mem.add(64)
    ptx.load(PRELUDE + CAS_LOOP).launch("k", (1, 1, 1), (200, 1, 1), 0, struct.pack("<Q", out.start), mem,
                                        ptx.Hooks())
    assert struct.unpack_from("<H", bytes(out.data))[0] == 0x4348  # 200.0


def test_llvm_engine_leaves_16_bit_float_arithmetic_to_the_interpreter() -> None:
    """The LLVM engine refuses bf16/f16x2 arithmetic (it would add their bits as integers); "auto" runs the
    interpreter and gets the ISA's value."""
    pytest.importorskip("llvmlite")
    text = PRELUDE + """.visible .entry k(.param .u64 out)
{
 .reg .u64 %o; .reg .b16 %a, %b, %d;
 ld.param.u64 %o, [out];
 mov.b16 %a, 0x3F80;
 mov.b16 %b, 0x4000;
 add.rn.bf16 %d, %a, %b;
 st.global.b16 [%o], %d;
 ret;
}
"""
    mod = ptx.load(text)
    mem = TinyMemory()
    out = mem.add(64)
    with pytest.raises(ptx.Unsupported, match=r"add\.rn\.bf16"):
        mod.launch("k", (1, 1, 1), (1, 1, 1), 0, struct.pack("<Q", out.start), mem, ptx.Hooks(), engine="llvm")
    mod.launch("k", (1, 1, 1), (1, 1, 1), 0, struct.pack("<Q", out.start), mem, ptx.Hooks(), engine="auto")
    assert struct.unpack_from("<H", bytes(out.data))[0] == 0x4040
