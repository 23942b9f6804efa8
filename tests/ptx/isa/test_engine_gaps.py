"""PTX forms the engine gained in issue 17's second round, each against the value the PTX ISA defines: vector
registers, kernel parameters through their address (``cvta.param``), address initialisers, f16/bf16 atomics,
``.ftz`` flushing, exact ``fma.rn.f64``, warp instructions with partial member masks, recursion and indirect
calls."""
from __future__ import annotations

import struct

import pytest

from .conftest import PRELUDE, TinyMemory, run_kernel

np = pytest.importorskip("numpy")
ptx = pytest.importorskip("simcuda.ptx")


def words(out: bytes, fmt: str) -> tuple[object, ...]:
    """The leading values of ``out`` unpacked with struct format ``fmt`` (little-endian)."""
    return struct.unpack_from("<" + fmt, out)


def test_vector_registers_load_store_and_elements() -> None:
    """A `.reg .v4 .f32` register is loaded, read by element (.x/.w and .r/.a names) and stored whole."""
    text = """.visible .entry k(.param .u64 out)
{
 .reg .u64 %o; .reg .v4 .f32 %v; .reg .v2 .u32 %w; .reg .f32 %f;
 ld.param.u64 %o, [out];
 mov.v4.f32 %v, {0f3F800000, 0f40000000, 0f40400000, 0f40800000};
 st.global.v4.f32 [%o], %v;
 add.f32 %f, %v.x, %v.a;
 st.global.f32 [%o+16], %f;
 mov.u32 %w.x, 7; mov.u32 %w.y, 9;
 st.global.v2.u32 [%o+24], %w;
 ld.global.v2.u32 %w, [%o+24];
 add.u32 %w.r, %w.x, %w.g;
 st.global.u32 [%o+32], %w.x;
 ret;
}
"""
    out = run_kernel(text)
    assert words(out, "5f4x2I") == (1.0, 2.0, 3.0, 4.0, 5.0, 7, 9) and words(out[32:], "I") == (16,)


def test_kernel_parameter_through_its_address() -> None:
    """`mov` of a kernel parameter's name and `cvta.param` give an address that generic and .param loads read."""
    text = """.visible .entry k(.param .u64 out, .param .u32 n, .param .align 8 .b8 s[16])
{
 .reg .u64 %o, %a, %g; .reg .u32 %r<3>;
 ld.param.u64 %o, [out];
 mov.u64 %a, n;
 cvta.param.u64 %g, %a;
 ld.u32 %r0, [%g];
 mov.u64 %a, s;
 ld.param.u32 %r1, [%a+12];
 cvta.param.u64 %g, %a;
 ld.u32 %r2, [%g+8];
 st.global.u32 [%o], %r0; st.global.u32 [%o+4], %r1; st.global.u32 [%o+8], %r2;
 ret;
}
"""
    extra = struct.pack("<I4x", 1234) + struct.pack("<4I", 10, 11, 12, 13)
    out = run_kernel(text, extra_params=extra)
    assert words(out, "3I") == (1234, 13, 12)


def test_store_to_kernel_parameter_address_faults() -> None:
    """A store through a kernel parameter's generic address faults 700 and names the parameter store [I]."""
    text = """.visible .entry k(.param .u64 out)
{
 .reg .u64 %a, %g;
 mov.u64 %a, out;
 cvta.param.u64 %g, %a;
 st.u32 [%g], 1;
 ret;
}
"""
    with pytest.raises(ptx.Fault) as e:
        run_kernel(text)
    assert e.value.code == 700 and "kernel parameter" in e.value.why


ADDR_MODULE = """.global .align 4 .u32 x = 5;
.global .align 4 .u32 y[2] = {6, 7};
.global .align 8 .u64 p = generic(x);
.global .align 8 .u64 tbl[3] = {generic(y), generic(y)+4, fn};
.func (.param .b32 r) fn(.param .b32 a)
{
 .reg .b32 %t;
 ld.param.b32 %t, [a];
 st.param.b32 [r], %t;
 ret;
}
.visible .entry k(.param .u64 out)
{
 .reg .u64 %o, %a, %f; .reg .u32 %r<3>;
 ld.param.u64 %o, [out];
 ld.global.u64 %a, [p];
 ld.u32 %r0, [%a];
 ld.global.u64 %a, [tbl+8];
 ld.u32 %r1, [%a];
 ld.global.u64 %a, [tbl+16];
 mov.u64 %f, fn;
 setp.eq.u64 %p1, %a, %f;
 selp.u32 %r2, 1, 0, %p1;
 st.global.u32 [%o], %r0; st.global.u32 [%o+4], %r1; st.global.u32 [%o+8], %r2;
 ret;
}
"""


def test_address_initialisers_hold_the_variables_addresses() -> None:
    """`generic(x)`, `generic(y)+4` and a function's name in `.global` initialisers hold those addresses."""
    mem = TinyMemory()
    out = mem.add(64)
    mod = ptx.load(PRELUDE + ADDR_MODULE.replace(".reg .u64 %o,", ".reg .pred %p1; .reg .u64 %o,"))
    assert mod.relocations == {"p": ((0, "x", 0),), "tbl": ((0, "y", 0), (8, "y", 4), (16, "fn", 0))}
    addrs = {}
    for name, (_space, size, init) in mod.variables.items():
        buf = mem.add(size)
        buf.data[:] = np.frombuffer(init, np.uint8)
        addrs[name] = buf.start
    mod.launch("k", (1, 1, 1), (1, 1, 1), 0, struct.pack("<Q", out.start), mem, ptx.Hooks(), variables=addrs)
    assert words(bytes(out.data), "3I") == (5, 7, 1)
    p = mem.region(addrs["p"])
    assert p is not None and words(bytes(p.data), "Q") == (addrs["x"],)


SUB = 2.0 ** -130  # an f32 subnormal


def _f32(x: float) -> tuple[str, str]:
    return ("f32", f"0f{struct.unpack('<I', struct.pack('<f', x))[0]:08X}")


def _f64(x: float) -> tuple[str, str]:
    return ("f64", f"0d{struct.unpack('<Q', struct.pack('<d', x))[0]:016X}")


def _exact64(a: float, b: float, c: float) -> float:
    from fractions import Fraction
    return float(Fraction(a) * Fraction(b) + Fraction(c))


FTZ_CASES = [
    ("add.f32 keeps a subnormal", "add.f32", [_f32(SUB), _f32(0.0)], "f32", struct.pack("<f", SUB)),
    ("add.ftz.f32 flushes the input", "add.ftz.f32", [_f32(SUB), _f32(0.0)], "f32", struct.pack("<f", 0.0)),
    ("mul.ftz.f32 flushes the result, sign kept", "mul.ftz.f32", [_f32(-2.0 ** -70), _f32(2.0 ** -70)], "f32",
     struct.pack("<f", -0.0)),
    ("mul.f32 subnormal result", "mul.rn.f32", [_f32(2.0 ** -70), _f32(2.0 ** -70)], "f32",
     struct.pack("<f", 2.0 ** -140)),
    ("fma.rn.ftz.f32 flushes", "fma.rn.ftz.f32", [_f32(SUB), _f32(1.0), _f32(0.0)], "f32", struct.pack("<f", 0.0)),
    ("setp.gt.ftz.f32 subnormal is zero", "setp.gt.ftz.f32", [_f32(SUB), _f32(0.0)], "pred", struct.pack("<I", 0)),
    ("setp.gt.f32 subnormal", "setp.gt.f32", [_f32(SUB), _f32(0.0)], "pred", struct.pack("<I", 1)),
    ("cvt.ftz.f32.f32 flushes", "cvt.ftz.f32.f32", [_f32(-SUB)], "f32", struct.pack("<f", -0.0)),
    ("max.ftz.f32", "max.ftz.f32", [_f32(SUB), _f32(-1.0)], "f32", struct.pack("<f", 0.0)),
    ("sqrt.approx.ftz.f32 of a subnormal", "sqrt.approx.ftz.f32", [_f32(SUB)], "f32", struct.pack("<f", 0.0)),
    ("fma.rn.f64 subnormal result", "fma.rn.f64", [_f64(2.0 ** -537), _f64(2.0 ** -537), _f64(2.0 ** -1074)],
     "f64", struct.pack("<d", 2.0 ** -1073)),
    ("fma.rn.f64 -0 + -0", "fma.rn.f64", [_f64(-0.0), _f64(1.0), _f64(-0.0)], "f64", struct.pack("<d", -0.0)),
    ("fma.rn.f64 exact cancellation is +0", "fma.rn.f64", [_f64(3.0), _f64(1.0), _f64(-3.0)], "f64",
     struct.pack("<d", 0.0)),
    ("fma.rn.f64 near a tie", "fma.rn.f64", [_f64(1 + 2.0 ** -52), _f64(1 - 2.0 ** -53), _f64(2.0 ** -105)],
     "f64", struct.pack("<d", _exact64(1 + 2.0 ** -52, 1 - 2.0 ** -53, 2.0 ** -105))),
    ("fma.rn.f64 product overflows, c brings it back", "fma.rn.f64", [_f64(2.0 ** 601), _f64(2.0 ** 423),
                                                                     _f64(-(2.0 ** 1023))], "f64",
     struct.pack("<d", 2.0 ** 1023)),
]


@pytest.mark.parametrize(("op", "srcs", "dst", "expected"), [pytest.param(*c[1:], id=c[0]) for c in FTZ_CASES])
def test_ftz_and_exact_fma(op: str, srcs: list[tuple[str, str]], dst: str, expected: bytes) -> None:
    """`.ftz` flushes subnormal f32 inputs and results (sign kept); `fma.rn.f64` rounds once, exactly."""
    from .test_scalar_ops import one_op
    out = run_kernel(one_op(op, srcs, dst))
    assert out[:len(expected)] == expected, (op, out[:len(expected)].hex(), expected.hex())


HALF_ATOMICS = """.visible .entry k(.param .u64 out)
{
 .reg .u64 %o, %q; .reg .b16 %h, %old; .reg .b32 %w, %oldw; .reg .u32 %t; .reg .u64 %off;
 ld.param.u64 %o, [out];
 mov.u32 %t, %tid.x;
 mov.b16 %h, 0x3C00;
 atom.global.add.noftz.f16 %old, [%o], %h;
 mul.wide.u32 %off, %t, 2;
 add.u64 %q, %o, %off;
 st.global.b16 [%q+64], %old;
 mov.b16 %h, 0x3F80;
 atom.global.add.noftz.bf16 %old, [%o+4], %h;
 mov.b16 %h, 0x3C00;
 atom.global.add.noftz.f16 %old, [%o+8], %h;
 mov.b32 %w, 0x38003C00;
 atom.global.add.noftz.f16x2 %oldw, [%o+12], %w;
 mov.b32 %w, 0x3F003F80;
 atom.global.add.noftz.bf16x2 %oldw, [%o+16], %w;
 ret;
}
"""


def test_half_precision_atomic_adds() -> None:
    """f16/bf16 (x2) atomic adds round each sum once to nearest even and return distinct old values."""
    mem = TinyMemory()
    out = mem.add(256)
    out.data[4:6] = np.frombuffer(struct.pack("<H", 0x4380), np.uint8)  # bf16 256.0: 256 + 1 ties back to 256
    out.data[8:10] = np.frombuffer(np.float16(2048).tobytes(), np.uint8)  # f16 2048 + 1 ties back to 2048
    mod = ptx.load(PRELUDE + HALF_ATOMICS)
    mod.launch("k", (1, 1, 1), (32, 1, 1), 0, struct.pack("<Q", out.start), mem, ptx.Hooks())
    data = bytes(out.data)
    f16 = np.frombuffer(data, np.float16)
    assert f16[0] == 32.0
    assert sorted(f16[32:64].tolist()) == [float(k) for k in range(32)]
    assert words(data[4:], "H") == (0x4380,) and f16[4] == 2048.0
    assert f16[6] == 32.0 and f16[7] == 16.0  # f16x2: 32 x 1.0 and 32 x 0.5
    b = words(data[16:], "2H")
    assert b == (0x4200, 0x4180)  # bf16x2: 32 x 1.0 = 32.0 (0x4200), 32 x 0.5 = 16.0 (0x4180)


MASKS = """.visible .entry k(.param .u64 out)
{
 .reg .u64 %o, %q, %off; .reg .u32 %t, %b, %s, %m; .reg .pred %p, %a, %e;
 ld.param.u64 %o, [out];
 mov.u32 %t, %tid.x;
 mul.wide.u32 %off, %t, 16;
 add.u64 %q, %o, %off;
 setp.lt.u32 %p, %t, 8;
 vote.sync.ballot.b32 %b, 1, 0x0000FFFF;
 vote.sync.all.pred %a, %p, 0x000000FF;
 add.u32 %s, %t, 1;
 redux.sync.add.u32 %s, %s, 0x0000000F;
 match.all.sync.b32 %m|%e, 5, 0x00000F0F;
 st.global.u32 [%q], %b;
 selp.u32 %b, 1, 0, %a;
 st.global.u32 [%q+4], %b;
 st.global.u32 [%q+8], %s;
 st.global.u32 [%q+12], %m;
 ret;
}
"""


def test_member_masks_limit_vote_redux_match() -> None:
    """vote/redux/match combine only the executing lanes their membermask names (docs/kernels.md, [I])."""
    out = run_kernel(MASKS, block=(32, 1, 1), out_bytes=32 * 16)
    rows = np.frombuffer(out, np.uint32).reshape(32, 4)
    assert (rows[:, 0] == 0xFFFF).all()  # ballot of 32 true lanes under a 16-lane mask
    assert (rows[:, 1] == 1).all()  # lanes 0..7 all true; the false lanes 8..31 are not named
    assert (rows[:, 2] == 1 + 2 + 3 + 4).all()  # the sum over lanes 0..3
    assert (rows[:, 3] == 0x0F0F).all()


THIRD_DOWN = struct.unpack("<f", struct.pack("<I", 0x3EAAAAAA))[0]  # 1/3 rounded toward zero
THIRD_UP = struct.unpack("<f", struct.pack("<I", 0x3EAAAAAB))[0]  # 1/3 rounded to nearest (and up)
ONE_UP = 1 + 2.0 ** -23

DIRECTED_CASES = [
    ("add.rz.f32 drops the tiny addend", "add.rz.f32", [_f32(1.0), _f32(2.0 ** -40)], "f32", 1.0),
    ("add.rp.f32 rounds up past a tiny addend", "add.rp.f32", [_f32(1.0), _f32(2.0 ** -40)], "f32", ONE_UP),
    ("add.rm.f32 negative tiny", "add.rm.f32", [_f32(1.0), _f32(-(2.0 ** -40))], "f32", 1 - 2.0 ** -24),
    ("sub.rz.f32", "sub.rz.f32", [_f32(1.0), _f32(2.0 ** -40)], "f32", 1 - 2.0 ** -24),
    ("mul.rp.f32", "mul.rp.f32", [_f32(1 + 2.0 ** -12), _f32(1 + 2.0 ** -12)], "f32", 1 + 2.0 ** -11 + 2.0 ** -23),
    ("mul.rz.f32 overflow is max", "mul.rz.f32", [_f32(2.0 ** 100), _f32(2.0 ** 100)], "f32",
     struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]),
    ("div.rz.f32 1/3", "div.rz.f32", [_f32(1.0), _f32(3.0)], "f32", THIRD_DOWN),
    ("div.rp.f32 1/3", "div.rp.f32", [_f32(1.0), _f32(3.0)], "f32", THIRD_UP),
    ("div.rm.f32 -1/3", "div.rm.f32", [_f32(-1.0), _f32(3.0)], "f32", -THIRD_UP),
    ("rcp.rz.f32 3", "rcp.rz.f32", [_f32(3.0)], "f32", THIRD_DOWN),
    ("sqrt.rp.f32 2", "sqrt.rp.f32", [_f32(2.0)], "f32", struct.unpack("<f", struct.pack("<I", 0x3FB504F4))[0]),
    ("sqrt.rz.f32 2", "sqrt.rz.f32", [_f32(2.0)], "f32", struct.unpack("<f", struct.pack("<I", 0x3FB504F3))[0]),
    ("fma.rz.f32", "fma.rz.f32", [_f32(1 + 2.0 ** -12), _f32(1 + 2.0 ** -12), _f32(0.0)], "f32",
     1 + 2.0 ** -11),
    ("add.rz.f64", "add.rz.f64", [_f64(1.0), _f64(2.0 ** -80)], "f64", 1.0),
    ("add.rp.f64", "add.rp.f64", [_f64(1.0), _f64(2.0 ** -80)], "f64", 1 + 2.0 ** -52),
    ("mul.rm.f64", "mul.rm.f64", [_f64(1 + 2.0 ** -30), _f64(-(1 + 2.0 ** -30))], "f64",
     -(1 + 2.0 ** -29 + 2.0 ** -52)),
    ("div.rz.f64 1/3", "div.rz.f64", [_f64(1.0), _f64(3.0)], "f64", float.fromhex("0x1.5555555555555p-2")),
    ("div.rp.f64 1/3", "div.rp.f64", [_f64(1.0), _f64(3.0)], "f64", float.fromhex("0x1.5555555555556p-2")),
    ("fma.rp.f64", "fma.rp.f64", [_f64(1.0), _f64(1.0), _f64(2.0 ** -80)], "f64", 1 + 2.0 ** -52),
    ("fma.rm.f64", "fma.rm.f64", [_f64(1.0), _f64(1.0), _f64(-(2.0 ** -80))], "f64", 1 - 2.0 ** -53),
]


@pytest.mark.parametrize(("op", "srcs", "dst", "value"), [pytest.param(*c[1:], id=c[0]) for c in DIRECTED_CASES])
def test_directed_rounding(op: str, srcs: list[tuple[str, str]], dst: str, value: float) -> None:
    """`.rz/.rm/.rp` arithmetic rounds the exact result toward zero, down or up (PTX ISA rounding modifiers)."""
    from .test_scalar_ops import one_op
    out = run_kernel(one_op(op, srcs, dst))
    want = struct.pack("<f" if dst == "f32" else "<d", value)
    assert out[:len(want)] == want, (op, out[:len(want)].hex(), want.hex())


APPROX = [  # (form, input, reference function, absolute or relative bound, "abs"/"rel")
    ("sin.approx.f32", 1.0, "sin", 2.0 ** -20.5, "abs"),
    ("sin.approx.f32", -3.0, "sin", 2.0 ** -20.5, "abs"),
    ("cos.approx.f32", 2.5, "cos", 2.0 ** -20.5, "abs"),
    ("ex2.approx.f32", 3.3, "exp2", 2.0 ** -22, "rel"),
    ("ex2.approx.ftz.f32", -7.25, "exp2", 2.0 ** -22, "rel"),
    ("lg2.approx.f32", 10.0, "log2", 2.0 ** -22, "abs"),
    ("rsqrt.approx.f32", 5.0, "rsqrt", 2.0 ** -22, "rel"),
    ("rcp.approx.f32", 7.0, "rcp", 2.0 ** -23, "rel"),
    ("tanh.approx.f32", 0.5, "tanh", 2.0 ** -10.987, "rel"),
]


@pytest.mark.parametrize(("op", "x", "ref", "bound", "kind"), APPROX, ids=[f"{a[0]} {a[1]}" for a in APPROX])
def test_approx_within_the_isa_bound(op: str, x: float, ref: str, bound: float, kind: str) -> None:
    """An `.approx` function stays within the maximum error the PTX ISA states for it [I: numpy's is tighter]."""
    import math

    from .test_scalar_ops import one_op
    out = run_kernel(one_op(op, [_f32(x)], "f32"))
    got = struct.unpack("<f", out[:4])[0]
    want = {"sin": math.sin, "cos": math.cos, "exp2": lambda v: 2.0 ** v, "log2": math.log2,
            "rsqrt": lambda v: 1 / math.sqrt(v), "rcp": lambda v: 1 / v, "tanh": math.tanh}[ref](x)
    err = abs(got - want) if kind == "abs" else abs(got - want) / abs(want)
    assert err <= bound, (op, x, got, want)


APPROX_SPECIAL = [
    ("lg2.approx.f32 0 is -inf", "lg2.approx.f32", 0.0, float("-inf")),
    ("ex2.approx.f32 -inf is +0", "ex2.approx.f32", float("-inf"), 0.0),
    ("rsqrt.approx.f32 +0 is +inf", "rsqrt.approx.f32", 0.0, float("inf")),
    ("rcp.approx.f32 -0 is -inf", "rcp.approx.f32", -0.0, float("-inf")),
    ("ex2.approx.f32 200 is +inf", "ex2.approx.f32", 200.0, float("inf")),
]


@pytest.mark.parametrize(("op", "x", "want"), [pytest.param(*c[1:], id=c[0]) for c in APPROX_SPECIAL])
def test_approx_special_values(op: str, x: float, want: float) -> None:
    """`.approx` functions give the ISA's special-value results (infinities and signed zeros)."""
    from .test_scalar_ops import one_op
    src = ("f32", "0fFF800000") if x == float("-inf") else _f32(x)
    out = run_kernel(one_op(op, [src], "f32"))
    assert out[:4] == struct.pack("<f", want)
