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
