"""Hand-written PTX for instruction forms NVRTC rarely emits at these sizes, refusals, spinning and parsing."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from simcuda.ptx import Fault, Hooks, PtxParseError, Unsupported, load

from .helpers import Mem

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"


def _run(body: str, regs: str, nout: int, dtype: object = np.uint32, threads: int = 1,
         hooks: Hooks | None = None, mem: Mem | None = None, extra: bytes = b"") -> np.ndarray:
    text = HEAD + (".visible .entry k(.param .u64 out, .param .u64 arg)\n{\n" + regs + "\n"
                   "  ld.param.u64 %rdo, [out];\n" + body + "\n  ret;\n}\n")
    mem = mem or Mem()
    p = mem.alloc(np.zeros(nout, dtype))
    a = mem.alloc(np.frombuffer(extra or b"\0" * 8, np.uint8))
    load(text).launch("k", (1, 1, 1), (threads, 1, 1), 0, struct.pack("<QQ", p, a), mem, hooks or Hooks())
    return mem.get(p, dtype, nout)


def test_carry_chain_add_sub() -> None:
    """add.cc/addc carry into the high word and sub.cc/subc borrow out of it (64-bit pairs in 32-bit halves)."""
    out = _run("""
  add.cc.u32 %r1, 0xFFFFFFFF, 1;
  addc.u32 %r2, 5, 0;
  sub.cc.u32 %r3, 0, 1;
  subc.u32 %r4, 5, 0;
  st.global.v4.u32 [%rdo], {%r1, %r2, %r3, %r4};""", ".reg .b32 %r<5>;\n.reg .b64 %rdo;", 4)
    assert list(out) == [0, 6, 0xFFFFFFFF, 4]


def test_bit_ops() -> None:
    """bfe (signed and unsigned), bfi, lop3 (0x96 = xor3), shf.l.wrap, brev, popc, clz, prmt."""
    out = _run("""
  bfe.u32 %r1, 0xF0F0, 4, 8;
  bfe.s32 %r2, 0x80, 4, 4;
  bfi.b32 %r3, 0xF, 0, 8, 4;
  lop3.b32 %r4, 0xF0, 0xCC, 0xAA, 0x96;
  shf.l.wrap.b32 %r5, 0x80000000, 1, 1;
  brev.b32 %r6, 1;
  popc.b32 %r7, 0xFF;
  clz.b32 %r8, 1;
  prmt.b32 %r9, 0x33221100, 0x77665544, 0x4321;
  st.global.v4.u32 [%rdo], {%r1, %r2, %r3, %r4};
  st.global.v4.u32 [%rdo+16], {%r5, %r6, %r7, %r8};
  st.global.u32 [%rdo+32], %r9;""", ".reg .b32 %r<10>;\n.reg .b64 %rdo;", 9)
    assert list(out) == [0x0F, 0xFFFFFFF8, 0xF00, 0xF0 ^ 0xCC ^ 0xAA, 3, 0x80000000, 8, 31, 0x44332211]


def test_div_rem_shift_edges() -> None:
    """Signed division truncates, division by zero gives all ones (u32), shr.s32 by >= 32 fills with the sign."""
    out = _run("""
  div.s32 %r1, -7, 2;
  rem.s32 %r2, -7, 2;
  div.u32 %r3, 7, 0;
  shr.s32 %r4, -8, 40;
  st.global.v4.u32 [%rdo], {%r1, %r2, %r3, %r4};""", ".reg .b32 %r<5>;\n.reg .b64 %rdo;", 4, np.int32)
    assert list(out) == [-3, -1, -1, -1]


def test_setp_unordered_and_selp() -> None:
    """setp.ltu is true for NaN operands, setp.lt false; selp picks by the predicate."""
    out = _run("""
  setp.ltu.f32 %p1, 0f7FC00000, 1.0;
  setp.lt.f32 %p2, 0f7FC00000, 1.0;
  selp.u32 %r1, 1, 2, %p1;
  selp.u32 %r2, 1, 2, %p2;
  st.global.v2.u32 [%rdo], {%r1, %r2};""", ".reg .b32 %r<3>;\n.reg .pred %p<3>;\n.reg .b64 %rdo;", 2)
    assert list(out) == [1, 2]


def test_cvt_rounding() -> None:
    """cvt.rni/rzi/rmi/rpi from f32 to s32, and saturation of a large float to s32."""
    out = _run("""
  cvt.rni.s32.f32 %r1, 2.5;
  cvt.rzi.s32.f32 %r2, -2.7;
  cvt.rmi.s32.f32 %r3, -2.2;
  cvt.rpi.s32.f32 %r4, 2.2;
  cvt.rzi.s32.f32 %r5, 0f7F000000;
  st.global.v4.s32 [%rdo], {%r1, %r2, %r3, %r4};
  st.global.s32 [%rdo+16], %r5;""", ".reg .b32 %r<6>;\n.reg .b64 %rdo;", 5, np.int32)
    assert list(out) == [2, -2, -3, 3, 2**31 - 1]


def test_mbarrier_phase() -> None:
    """mbarrier.init(2), two arrivals complete phase 0; test_wait on the first token is then true."""
    text = HEAD + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra SKIP;
  mbarrier.init.shared.b64 [bar], 2;
SKIP:
  bar.sync 0;
  mbarrier.arrive.shared.b64 %rd2, [bar];
WAIT:
  mbarrier.test_wait.shared.b64 %p1, [bar], %rd2;
  @!%p1 bra WAIT;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd3, %rd1, %rd3;
  st.global.u32 [%rd3], 9;
  ret;
}
"""
    mem = Mem()
    p = mem.alloc(np.zeros(2, np.uint32))
    load(text).launch("k", (1, 1, 1), (2, 1, 1), 0, struct.pack("<Q", p), mem, Hooks())
    assert list(mem.get(p, np.uint32, 2)) == [9, 9]


def test_refused_texture_names_line() -> None:
    """A tex instruction is refused with Unsupported naming the instruction and its PTX line."""
    text = HEAD + """.visible .entry k(.param .u64 t)
{
  .reg .f32 %f<5>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [t];
  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f1}];
  ret;
}
"""
    with pytest.raises(Unsupported) as e:
        load(text).launch("k", (1, 1, 1), (1, 1, 1), 0, bytes(8), Mem(), Hooks())
    assert "tex" in e.value.why and "line 9" in e.value.why


def test_should_stop_interrupts_spin() -> None:
    """A kernel spinning on host memory that never changes stops with Fault 719 once should_stop says so."""
    text = HEAD + """.visible .entry k(.param .u64 f)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [f];
L:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.eq.u32 %p1, %r1, 0;
  @%p1 bra L;
  ret;
}
"""
    mem = Mem()
    p = mem.alloc(np.zeros(1, np.uint32))
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 2
    with pytest.raises(Fault) as e:
        load(text).launch("k", (1, 1, 1), (32, 1, 1), 0, struct.pack("<Q", p), mem, Hooks(should_stop=stop))
    assert e.value.code == 719 and len(calls) == 3


def test_clock_advances() -> None:
    """%clock64 read twice around work gives a larger second value."""
    out = _run("""
  mov.u64 %rd1, %clock64;
  add.u64 %rd3, %rd1, 1;
  add.u64 %rd3, %rd3, 1;
  mov.u64 %rd2, %clock64;
  st.global.v2.u64 [%rdo], {%rd1, %rd2};""", ".reg .b64 %rd<4>;\n.reg .b64 %rdo;", 2, np.uint64)
    assert out[1] > out[0]


def test_numba_style_debug_ptx_parses() -> None:
    """Debug directives, `.local .align` arrays, `.loc`/`.file` and a `.func` call parse and run."""
    text = HEAD + """.file 1 "x.py"
.func (.param .b32 r) twice(.param .b32 a)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [a];
  add.s32 %r2, %r1, %r1;
  st.param.b32 [r], %r2;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .local .align 4 .b8 __local_depot0[8];
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  .loc 1 3 0
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 21;
  {
  .param .b32 p0;
  st.param.b32 [p0], %r1;
  .param .b32 rv;
  call.uni (rv), twice, (p0);
  ld.param.b32 %r2, [rv];
  }
  mov.u64 %rd2, __local_depot0;
  st.local.u32 [%rd2+4], %r2;
  ld.local.u32 %r3, [%rd2+4];
  st.global.u32 [%rd1], %r3;
  ret;
}
"""
    mem = Mem()
    p = mem.alloc(np.zeros(1, np.uint32))
    m = load(text)
    assert m.kernels["k"].local == 8
    m.launch("k", (1, 1, 1), (1, 1, 1), 0, struct.pack("<Q", p), mem, Hooks())
    assert mem.get(p, np.uint32, 1)[0] == 42


def test_parse_error_has_line() -> None:
    """Text that is not PTX raises PtxParseError with a line."""
    with pytest.raises(PtxParseError) as e:
        load(HEAD + "garbage here;\n")
    assert e.value.line == 4


def test_half_and_bfloat16_conversions() -> None:
    """cvt to/from f16 and bf16: 1/3 rounds to nearest even in both, and converts back exactly."""
    out = _run("""
  cvt.rn.f16.f32 %h1, 0f3EAAAAAB;
  cvt.rn.bf16.f32 %h2, 0f3EAAAAAB;
  cvt.f32.f16 %f1, %h1;
  cvt.f32.bf16 %f2, %h2;
  st.global.v2.f32 [%rdo], {%f1, %f2};""", ".reg .b16 %h<3>;\n.reg .f32 %f<3>;\n.reg .b64 %rdo;", 2, np.float32)
    assert out[0] == np.float32(np.float16(1 / 3))
    assert out[1] == np.frombuffer(struct.pack("<I", 0x3EAB0000), np.float32)[0]


def test_shared_out_of_range_700() -> None:
    """A shared access past the block's shared window faults 700 naming shared memory and the thread."""
    text = HEAD + """.visible .entry k()
{
  .reg .b32 %r<3>;
  .shared .align 4 .b8 buf[16];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 4;
  st.shared.u32 [%r2], 1;
  ret;
}
"""
    with pytest.raises(Fault) as e:
        load(text).launch("k", (1, 1, 1), (4, 1, 1), 0, b"", Mem(), Hooks())
    assert e.value.code == 700 and "shared" in e.value.why and e.value.thread == (1, 0, 0)


def test_envreg_given_and_default() -> None:
    """%envreg1 reads the value the launch gives; %envreg2 reads zero."""
    text = HEAD + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %envreg1;
  mov.u32 %r2, %envreg2;
  st.global.v2.u32 [%rd1], {%r1, %r2};
  ret;
}
"""
    mem = Mem()
    p = mem.alloc(np.full(2, 9, np.uint32))
    load(text).launch("k", (1, 1, 1), (1, 1, 1), 0, struct.pack("<Q", p), mem, Hooks(), envreg={1: 77})
    assert list(mem.get(p, np.uint32, 2)) == [77, 0]


def test_atomic_duplicates_in_lane_order() -> None:
    """Four lanes on one word: inc wraps at the limit and exch/max return the values in lane order."""
    text = HEAD + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  atom.global.inc.u32 %r2, [%rd1], 2;
  atom.global.exch.b32 %r3, [%rd1+4], %r1;
  atom.relaxed.gpu.global.max.s32 %r4, [%rd1+8], %r1;
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3+16], {%r2, %r3, %r4, %r1};
  ret;
}
"""
    mem = Mem()
    init = np.zeros(20, np.int32)
    init[1], init[2] = 100, -5
    p = mem.alloc(init)
    load(text).launch("k", (1, 1, 1), (4, 1, 1), 0, struct.pack("<Q", p), mem, Hooks())
    out = mem.get(p, np.int32, 20)
    assert list(out[:3]) == [1, 3, 3]
    per = out[4:].reshape(4, 4)
    assert list(per[:, 0]) == [0, 1, 2, 0]
    assert list(per[:, 1]) == [100, 0, 1, 2]
    assert list(per[:, 2]) == [-5, 0, 1, 2]


def test_redux_match_shfl_up_activemask() -> None:
    """redux.sync.add/max, match.any, shfl.sync.up (lane 0 keeps its own value) and activemask over 32 lanes."""
    text = HEAD + """.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<9>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %laneid;
  redux.sync.add.u32 %r2, %r1, -1;
  redux.sync.max.u32 %r3, %r1, -1;
  and.b32 %r8, %r1, 1;
  match.any.sync.b32 %r4, %r8, -1;
  shfl.sync.up.b32 %r5, %r1, 1, 0, -1;
  activemask.b32 %r6;
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r2, %r3, %r4, %r5};
  st.global.u32 [%rd3+16], %r6;
  ret;
}
"""
    mem = Mem()
    p = mem.alloc(np.zeros(32 * 8, np.uint32))
    load(text).launch("k", (1, 1, 1), (32, 1, 1), 0, struct.pack("<Q", p), mem, Hooks())
    out = mem.get(p, np.uint32, 256).reshape(32, 8)
    assert set(out[:, 0]) == {sum(range(32))} and set(out[:, 1]) == {31}
    assert out[0, 2] == 0x55555555 and out[1, 2] == 0xAAAAAAAA
    assert list(out[:, 3]) == [0, *range(31)]
    assert set(out[:, 4]) == {0xFFFFFFFF}


def test_mov_pack_unpack() -> None:
    """mov.b64 {lo, hi} splits a double's bits (lowest first); mov.b64 from {hi, lo} swaps them back."""
    out = _run("""
  mov.b64 {%r1, %r2}, 0d3FF0000000000001;
  mov.b64 %rd1, {%r2, %r1};
  st.global.v2.u32 [%rdo], {%r1, %r2};
  st.global.u64 [%rdo+8], %rd1;""", ".reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n.reg .b64 %rdo;", 4)
    assert list(out) == [1, 0x3FF00000, 0x3FF00000, 1]


def test_clock_timeout_loop_ends() -> None:
    """A loop that waits until %clock64 passes start + 20M cycles ends (the clock follows wall time too)."""
    text = HEAD + """.visible .entry k(.param .u64 out)
{
  .reg .b64 %rd<5>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, %clock64;
  add.u64 %rd3, %rd2, 20000000;
L:
  mov.u64 %rd4, %clock64;
  setp.lt.u64 %p1, %rd4, %rd3;
  @%p1 bra L;
  st.global.u64 [%rd1], %rd4;
  ret;
}
"""
    mem = Mem()
    p = mem.alloc(np.zeros(1, np.uint64))
    load(text).launch("k", (1, 1, 1), (1, 1, 1), 0, struct.pack("<Q", p), mem, Hooks())
    assert mem.get(p, np.uint64, 1)[0] >= 20000000


def test_cp_async_zero_fill() -> None:
    """cp.async with src-size 8 of 16 copies two words and zero-fills the other two."""
    text = HEAD + """.visible .entry k(.param .u64 out, .param .u64 src)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<3>;
  .shared .align 16 .b8 buf[16];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [src];
  mov.u32 %r1, buf;
  cp.async.cg.shared.global [%r1], [%rd2], 16, 8;
  cp.async.wait_all;
  ld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [buf];
  st.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};
  ret;
}
"""
    mem = Mem()
    p = mem.alloc(np.full(4, 7, np.uint32))
    s = mem.alloc(np.array([1, 2, 3, 4], np.uint32))
    load(text).launch("k", (1, 1, 1), (1, 1, 1), 0, struct.pack("<QQ", p, s), mem, Hooks())
    assert list(mem.get(p, np.uint32, 4)) == [1, 2, 0, 0]
