"""Engine buffers and register scopes, against what the PTX ISA defines: a `.shared` array of any byte size
(8-byte accesses next to it still work, bounds stay the declared size), global stores into a region whose start is
not aligned to the access size, registers declared inside inlined functions, and `.reg` declarations in inner
`{ }` blocks (local to the block, shadowing an outer name)."""
from __future__ import annotations

import struct

import pytest

from tests.ptx.memory import Region

from .conftest import PRELUDE, TinyMemory, run_kernel

np = pytest.importorskip("numpy")
ptx = pytest.importorskip("simcuda.ptx")

SMEM26 = """.shared .align 1 .b8 smem[26];
.visible .entry k(.param .u64 out)
{
 .reg .b64 %rd<4>; .reg .b32 %r<4>; .reg .b16 %h<2>;
 ld.param.u64 %rd1, [out];
 mov.u32 %r1, %ctaid.x;
 mov.u64 %rd2, 0x1122334455667788;
 cvt.u64.u32 %rd3, %r1;
 add.u64 %rd2, %rd2, %rd3;
 st.shared.u64 [smem+16], %rd2;
 mov.u16 %h1, 0xBEEF;
 st.shared.u16 [smem+24], %h1;
 bar.sync 0;
 ld.shared.u64 %rd2, [smem+16];
 ld.shared.u16 %h1, [smem+24];
 mul.wide.u32 %rd3, %r1, 16;
 add.u64 %rd3, %rd1, %rd3;
 st.global.u64 [%rd3], %rd2;
 st.global.u16 [%rd3+8], %h1;
 ret;
}
"""


def test_shared_array_of_26_bytes_takes_8_byte_accesses_per_block() -> None:
    """A `.b8 smem[26]` array takes u64 and u16 accesses inside its 26 bytes, each block its own copy."""
    out = run_kernel(SMEM26, grid=(3, 1, 1), block=(2, 1, 1))
    for b in range(3):
        assert struct.unpack_from("<QH", out, 16 * b) == (0x1122334455667788 + b, 0xBEEF)


def test_shared_access_past_the_declared_26_bytes_faults_700() -> None:
    """A u64 at byte 24 of a 26-byte shared array ends past the declared size: fault 700, nothing written."""
    text = """.shared .align 8 .b8 smem[26];
.visible .entry k(.param .u64 out)
{
 .reg .b64 %rd<3>;
 ld.param.u64 %rd1, [out];
 mov.u64 %rd2, 5;
 st.global.u64 [%rd1], %rd2;
 st.shared.u64 [smem+24], %rd2;
 ret;
}
"""
    mem = TinyMemory()
    with pytest.raises(ptx.Fault) as ei:
        run_kernel(text, memory=mem)
    assert ei.value.code == 700
    assert "shared" in ei.value.why
    assert struct.unpack_from("<Q", bytes(mem.regions[0].data))[0] == 5


def test_global_store_into_region_at_odd_start_writes_the_right_bytes() -> None:
    """A u32 and a v2.u16 stored at aligned addresses of a region that starts at an odd address land on exactly
    those bytes (the region's bytes are not misread as aligned words)."""
    mem = TinyMemory()
    out = mem.add(16)
    odd = Region(mem.next + 1, np.zeros(15, np.uint8))
    mem.regions.append(odd)
    text = """.visible .entry k(.param .u64 out, .param .u64 p)
{
 .reg .b64 %rd<3>; .reg .b32 %r<3>; .reg .b16 %h<3>;
 ld.param.u64 %rd1, [p];
 mov.u32 %r1, 0xA1B2C3D4;
 st.global.u32 [%rd1+3], %r1;
 mov.u16 %h1, 0x0102; mov.u16 %h2, 0x0304;
 st.global.v2.u16 [%rd1+7], {%h1, %h2};
 ld.global.u32 %r2, [%rd1+3];
 ld.param.u64 %rd2, [out];
 st.global.u32 [%rd2], %r2;
 ret;
}
"""
    module = ptx.load(PRELUDE + text)
    module.launch("k", (1, 1, 1), (4, 1, 1), 0, struct.pack("<QQ", out.start, odd.start), mem, ptx.Hooks())
    assert bytes(odd.data[3:11]) == bytes([0xD4, 0xC3, 0xB2, 0xA1, 0x02, 0x01, 0x04, 0x03])
    assert bytes(odd.data[:3]) == b"\0\0\0" and not odd.data[11:].any()
    assert struct.unpack_from("<I", bytes(out.data))[0] == 0xA1B2C3D4


INDIRECT_IN_INLINED = """.func (.param .b32 r) twice(.param .b32 a)
{
 .reg .b32 %r<2>;
 ld.param.b32 %r1, [a];
 shl.b32 %r1, %r1, 1;
 st.param.b32 [r], %r1;
 ret;
}
.func (.param .b32 r) apply(.param .b32 a)
{
 .reg .b64 %rd<3>; .reg .b32 %r<3>;
 ld.param.b32 %r1, [a];
 mov.u64 %rd2, twice;
 {
 .param .b32 p0;
 .param .b32 r0;
 st.param.b32 [p0], %r1;
 proto : .callprototype (.param .b32 _) _ (.param .b32 _);
 call (r0), %rd2, (p0), proto;
 ld.param.b32 %r2, [r0];
 }
 add.s32 %r2, %r2, 1;
 st.param.b32 [r], %r2;
 ret;
}
.visible .entry k(.param .u64 out)
{
 .reg .b64 %rd<3>; .reg .b32 %r<3>;
 ld.param.u64 %rd1, [out];
 mov.u32 %r1, %tid.x;
 {
 .param .b32 q0;
 .param .b32 s0;
 st.param.b32 [q0], %r1;
 call (s0), apply, (q0);
 ld.param.b32 %r2, [s0];
 }
 mul.wide.u32 %rd2, %r1, 4;
 add.u64 %rd2, %rd1, %rd2;
 st.global.u32 [%rd2], %r2;
 ret;
}
"""


def test_indirect_call_through_a_register_of_an_inlined_function() -> None:
    """An inlined `.func` that calls through its own `%rd2` (renamed by inlining) reaches the function whose
    address it holds: each thread stores 2*tid + 1."""
    out = run_kernel(INDIRECT_IN_INLINED, block=(8, 1, 1))
    assert struct.unpack_from("<8i", out) == tuple(2 * t + 1 for t in range(8))
    mod = ptx.load(PRELUDE + INDIRECT_IN_INLINED)
    assert mod.kernels["k"].name == "k"


SCOPED = """.func (.param .b32 res) inner(.param .b32 a)
{
 .reg .b32 %r<2>;
 ld.param.b32 %r1, [a];
 {
 .reg.b32 t;
 add.s32 t, %r1, 100;
 mov.b32 %r1, t;
 }
 st.param.b32 [res], %r1;
 ret;
}
.visible .entry k(.param .u64 out)
{
 .reg .b64 %o; .reg .b32 r; .reg .b32 %x; .reg .pred %p;
 ld.param.u64 %o, [out];
 mov.b32 r, 7;
 {
 .reg .b16 r;
 mov.b16 r, 0x1234;
 {
 .reg .b16 spc, one;
 .reg .pred p;
 mov.b16 spc, 0x1234;
 setp.eq.b16 p, r, spc;
 mov.b16 one, 1;
 @p add.u16 r, r, one;
 }
 st.global.u16 [%o+4], r;
 }
 {
 .reg .b64 r;
 mov.b64 r, 0x0102030405060708;
 st.global.u64 [%o+8], r;
 }
 st.global.u32 [%o], r;
 {
 .param .b32 q0;
 .param .b32 s0;
 st.param.b32 [q0], r;
 call (s0), inner, (q0);
 ld.param.b32 %x, [s0];
 }
 st.global.u32 [%o+16], %x;
 {
 .param .b32 q1;
 .param .b32 s1;
 st.param.b32 [q1], %x;
 call (s1), inner, (q1);
 ld.param.b32 %x, [s1];
 }
 st.global.u32 [%o+20], %x;
 ret;
}
"""


def test_registers_declared_in_inner_blocks_are_local_and_shadow() -> None:
    """A `.reg` in an inner block (also written `.reg.b32`) hides the outer name of another type only inside
    that block, the innermost block sees the enclosing one's names, sibling blocks reuse a name with another
    type, and a `.func` with a scoped register inlines twice."""
    out = run_kernel(SCOPED)
    assert struct.unpack_from("<I", out, 0)[0] == 7  # the outer b32 r, untouched by the inner ones
    assert struct.unpack_from("<H", out, 4)[0] == 0x1235  # the b16 r, incremented under the innermost @p
    assert struct.unpack_from("<Q", out, 8)[0] == 0x0102030405060708
    assert struct.unpack_from("<2I", out, 16) == (107, 207)
    f = ptx.load(PRELUDE + SCOPED).parsed.funcs["k"]
    assert f.regs["r"] == "b32" and "p" not in f.regs and "spc" not in f.regs


SET = """.visible .entry k(.param .u64 out)
{
 .reg .b64 %o; .reg .b16 %h<4>; .reg .b32 %r<8>; .reg .f32 %f<3>; .reg .pred %p;
 ld.param.u64 %o, [out];
 mov.b16 %h1, 0x3800;
 mov.b16 %h2, 0x3800;
 set.eq.f16.f16 %h3, %h1, %h2;
 st.global.u16 [%o], %h3;
 set.lt.f16.f16 %h3, %h1, %h2;
 st.global.u16 [%o+2], %h3;
 mov.b32 %f1, 0f7FC00000;
 mov.f32 %f2, 0f3F800000;
 set.lt.u32.f32 %r1, %f1, %f2;
 set.gtu.u32.f32 %r2, %f1, %f2;
 set.ne.s32.s32 %r3, 3, 4;
 set.ge.f32.s32 %r4, -2, 5;
 setp.ne.s32 %p, 1, 1;
 set.eq.or.u32.f32 %r5, %f2, %f2, !%p;
 set.eq.and.u32.f32 %r6, %f2, %f2, %p;
 st.global.v4.u32 [%o+16], {%r1, %r2, %r3, %r4};
 st.global.v2.u32 [%o+32], {%r5, %r6};
 ret;
}
"""


def test_set_writes_the_destination_types_true_value() -> None:
    """`set` writes 1.0 for .f16/.f32 and all ones for integer types on true, 0 on false; ordered float
    compares are false with a NaN and the `u` ones true; `.and`/`.or` combine with a (negated) predicate."""
    out = run_kernel(SET)
    assert struct.unpack_from("<2H", out, 0) == (0x3C00, 0)
    assert struct.unpack_from("<4I", out, 16) == (0, 0xFFFFFFFF, 0xFFFFFFFF, 0)
    assert struct.unpack_from("<2I", out, 32) == (0xFFFFFFFF, 0)


def test_set_on_packed_halves_is_refused_with_a_why() -> None:
    """`set` on `.f16x2` operands is refused (Unsupported, naming the instruction and line)."""
    text = """.visible .entry k(.param .u64 out)
{
 .reg .b64 %o; .reg .b32 %r<3>;
 ld.param.u64 %o, [out];
 mov.b32 %r1, 0;
 set.eq.f16x2.f16x2 %r2, %r1, %r1;
 st.global.u32 [%o], %r2;
 ret;
}
"""
    with pytest.raises(ptx.Unsupported) as ei:
        run_kernel(text)
    assert "set.eq.f16x2.f16x2" in ei.value.why and "PTX line" in ei.value.why


def test_parameter_past_a_short_parameter_buffer_reads_zero() -> None:
    """A `.param` partly past the end of the bytes a launch gave reads its missing bytes as zeros (the module
    pads the buffer to the image's parameter size) instead of failing the launch: the kernel stores 2 + 5."""
    text = """.visible .entry k(.param .u64 out, .param .u32 a)
{
 .reg .b64 %o; .reg .b32 %r;
 ld.param.u64 %o, [out];
 ld.param.u32 %r, [a];
 add.u32 %r, %r, 5;
 st.global.u32 [%o], %r;
 ret;
}
"""
    out = run_kernel(text, extra_params=b"\x02")  # one byte of the four `a` needs: 2, the rest zeros
    assert struct.unpack_from("<I", out)[0] == 7
