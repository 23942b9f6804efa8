"""Multi-thread PTX forms against the ISA's definitions: shfl.sync (idx/up/down/bfly, clamps, segments, a partial
member mask), vote.sync with inactive lanes, atom old values with every lane of a warp on one address, atom.cas,
atom.inc's wrap, red, f32 atomic add and bar.red.popc. Each thread writes its result at ``out + 4 * tid``."""
from __future__ import annotations

import struct

from ._vectors import pack_u32
from .conftest import run_kernel

HEAD = """.visible .entry k(.param .u64 out)
{
 .reg .u64 %o<4>; .reg .u32 %t, %v, %r<8>; .reg .pred %p<4>; .reg .f32 %f<4>;
 ld.param.u64 %o0, [out];
 mov.u32 %t, %tid.x;
 mul.wide.u32 %o1, %t, 4;
 add.u64 %o1, %o0, %o1;
"""
TAIL = " ret;\n}\n"


def words(out: bytes, n: int) -> list[int]:
    """The first ``n`` u32 words of ``out``."""
    return list(struct.unpack(f"<{n}I", out[:4 * n]))


def shfl(form: str, b: int, c: int, mask: int = 0xFFFFFFFF, active: int = 32) -> list[int]:
    """Launch one warp where lanes below ``active`` do ``shfl.sync.<form>.b32`` of ``lane * 10 + 1`` with ``b``,
    ``c`` and ``mask`` (lanes above write 0xDEAD); the 32 words written (lanes above ``active`` exit first)."""
    body = (HEAD + f" setp.ge.u32 %p0, %t, {active};\n @%p0 bra SKIP;\n mad.lo.u32 %v, %t, 10, 1;\n"
            f" shfl.sync.{form}.b32 %r0, %v, {b}, {c}, {mask};\n st.global.u32 [%o1+128], %r0;\n"
            " st.global.u32 [%o1], %r0;\n ret;\nSKIP:\n st.global.u32 [%o1], 0xDEAD;\n" + TAIL)
    return words(run_kernel(body, block=(32, 1, 1)), 32)


def val(lane: int) -> int:
    """The value lane ``lane`` offers to the shuffle."""
    return lane * 10 + 1


def test_shfl_idx_full_warp() -> None:
    """shfl.idx with clamp 0x1f reads the named lane (here lane 31 - i)."""
    text = (HEAD + " mad.lo.u32 %v, %t, 10, 1;\n sub.u32 %r1, 31, %t;\n"
            " shfl.sync.idx.b32 %r0, %v, %r1, 0x1f, 0xffffffff;\n st.global.u32 [%o1], %r0;\n" + TAIL)
    assert words(run_kernel(text, block=(32, 1, 1)), 32) == [val(31 - i) for i in range(32)]


def test_shfl_down_clamps_at_the_top() -> None:
    """shfl.down by 4: lanes whose source would pass maxLane (31) keep their own value."""
    assert shfl("down", 4, 0x1F) == [val(i + 4) if i + 4 <= 31 else val(i) for i in range(32)]


def test_shfl_up_clamps_at_the_bottom() -> None:
    """shfl.up by 1 with c = 0: lane 0 (source below minLane 0) keeps its own value."""
    assert shfl("up", 1, 0) == [val(i - 1) if i >= 1 else val(i) for i in range(32)]


def test_shfl_idx_segments_of_eight() -> None:
    """shfl.idx with segmask 0x18 (width 8, c = 0x181f) and b = 0 reads the first lane of each 8-lane segment."""
    assert shfl("idx", 0, 0x181F) == [val(i & ~7) for i in range(32)]


def test_shfl_down_segment_clamp() -> None:
    """shfl.down by 2 within 8-lane segments: a source past the segment's last lane keeps the lane's own value."""
    assert shfl("down", 2, 0x181F) == [val(i + 2) if (i & 7) + 2 <= 7 else val(i) for i in range(32)]


def test_shfl_bfly_partial_mask() -> None:
    """shfl.bfly by 1 among lanes 0..15 only (mask 0xffff, lanes 16..31 exited) exchanges neighbours."""
    assert shfl("bfly", 1, 0x1F, mask=0xFFFF, active=16) == [val(i ^ 1) for i in range(16)] + [0xDEAD] * 16


def test_vote_ballot_with_inactive_lanes() -> None:
    """vote.sync.ballot over lanes 0..19 (the rest exited) sets only active lanes whose predicate holds (odd)."""
    text = (HEAD + " setp.ge.u32 %p0, %t, 20;\n @%p0 bra DONE;\n and.b32 %r1, %t, 1;\n setp.ne.u32 %p1, %r1, 0;\n"
            " vote.sync.ballot.b32 %r0, %p1, 0xfffff;\n st.global.u32 [%o1], %r0;\n"
            " vote.sync.all.pred %p2, %p1, 0xfffff;\n selp.u32 %r2, 1, 0, %p2;\n st.global.u32 [%o1+128], %r2;\n"
            " vote.sync.any.pred %p2, %p1, 0xfffff;\n selp.u32 %r2, 1, 0, %p2;\n st.global.u32 [%o1+256], %r2;\n"
            "DONE:\n" + TAIL)
    out = run_kernel(text, block=(32, 1, 1), out_bytes=512)
    ballot = sum(1 << i for i in range(20) if i % 2)
    assert words(out, 32) == [ballot] * 20 + [0] * 12
    assert words(out[128:], 20) == [0] * 20 and words(out[256:], 20) == [1] * 20


def test_atom_add_old_values_in_one_warp() -> None:
    """64 threads atom.add 1 to one word: it ends at 64 and the old values returned are 0..63, each once."""
    text = (HEAD + " add.u64 %o2, %o0, 512;\n atom.global.add.u32 %r0, [%o2], 1;\n st.global.u32 [%o1], %r0;\n"
            + TAIL)
    out = run_kernel(text, block=(64, 1, 1), out_bytes=1024)
    assert sorted(words(out, 64)) == list(range(64))
    assert words(out[512:], 1) == [64]


def test_atom_cas_one_winner() -> None:
    """32 lanes atom.cas(word, 0, tid + 1): exactly one sees 0 and wins; every other sees the winner's value."""
    text = (HEAD + " add.u64 %o2, %o0, 512;\n add.u32 %r1, %t, 1;\n atom.global.cas.b32 %r0, [%o2], 0, %r1;\n"
            " st.global.u32 [%o1], %r0;\n" + TAIL)
    out = run_kernel(text, block=(32, 1, 1), out_bytes=1024)
    olds, final = words(out, 32), words(out[512:], 1)[0]
    winners = [i for i, v in enumerate(olds) if v == 0]
    assert len(winners) == 1 and final == winners[0] + 1
    assert all(v == final for i, v in enumerate(olds) if i != winners[0])


def test_atom_inc_wraps_at_the_bound() -> None:
    """8 threads atom.inc with bound 4 from 0: new = old >= 4 ? 0 : old + 1, so the olds are {0,1,2,3,4,0,1,2}
    and the word ends at 3."""
    text = (HEAD + " add.u64 %o2, %o0, 512;\n atom.global.inc.u32 %r0, [%o2], 4;\n st.global.u32 [%o1], %r0;\n"
            + TAIL)
    out = run_kernel(text, block=(8, 1, 1), out_bytes=1024)
    assert sorted(words(out, 8)) == [0, 0, 1, 1, 2, 2, 3, 4] and words(out[512:], 1) == [3]


def test_atom_max_signed_and_exch() -> None:
    """atom.max.s32 of tid - 40 over 64 threads leaves 23; the atom.exch old values are a permutation of the
    stored tids plus the initial 0 less the last one, which stays in the word."""
    text = (HEAD + " add.u64 %o2, %o0, 512;\n sub.u32 %r1, %t, 40;\n atom.global.max.s32 %r0, [%o2], %r1;\n"
            " add.u64 %o3, %o0, 516;\n add.u32 %r2, %t, 100;\n atom.global.exch.b32 %r3, [%o3], %r2;\n"
            " st.global.u32 [%o1], %r3;\n" + TAIL)
    out = run_kernel(text, block=(64, 1, 1), out_bytes=1024)
    mx, last = words(out[512:], 2)
    assert mx == 23
    assert sorted([*words(out, 64), last]) == sorted([0, *(100 + i for i in range(64))])


def test_red_add_and_f32_atomic() -> None:
    """red.global.add.u32 of tid over 96 threads sums 0..95; atom.add.f32 of 0.5 by 96 threads gives 48.0."""
    text = (HEAD + " add.u64 %o2, %o0, 512;\n red.global.add.u32 [%o2], %t;\n add.u64 %o3, %o0, 516;\n"
            " atom.global.add.f32 %f0, [%o3], 0f3F000000;\n" + TAIL)
    out = run_kernel(text, block=(96, 1, 1), out_bytes=1024)
    assert words(out[512:], 1) == [sum(range(96))]
    assert struct.unpack("<f", out[516:520])[0] == 48.0


def test_bar_red_popc() -> None:
    """bar.red.popc.u32 over a 100-thread block counts the threads whose predicate (tid < 37) holds, for all."""
    text = (HEAD + " setp.lt.u32 %p0, %t, 37;\n bar.red.popc.u32 %r0, 0, %p0;\n st.global.u32 [%o1], %r0;\n"
            + TAIL)
    assert words(run_kernel(text, block=(100, 1, 1), out_bytes=512), 100) == [37] * 100


def test_bar_red_and_or() -> None:
    """bar.red.and.pred / .or.pred over a 64-thread block (predicate tid != 5): and is false, or is true."""
    text = (HEAD + " setp.ne.u32 %p0, %t, 5;\n bar.red.and.pred %p1, 0, %p0;\n bar.red.or.pred %p2, 0, %p0;\n"
            " selp.u32 %r0, 1, 0, %p1;\n selp.u32 %r1, 2, 0, %p2;\n or.b32 %r0, %r0, %r1;\n"
            " st.global.u32 [%o1], %r0;\n" + TAIL)
    assert words(run_kernel(text, block=(64, 1, 1), out_bytes=512), 64) == [2] * 64


def test_cross_warp_shared_memory_through_bar_sync() -> None:
    """Values written to shared memory before bar.sync are read back reversed after it (128 threads, 4 warps)."""
    text = (".visible .entry k(.param .u64 out)\n{\n .shared .align 4 .b8 sm[512];\n"
            + HEAD.split("{\n", 1)[1] + " mov.u32 %r5, sm;\n mad.lo.u32 %r6, %t, 4, %r5;\n"
            " mul.lo.u32 %v, %t, 3;\n st.shared.u32 [%r6], %v;\n bar.sync 0;\n sub.u32 %r1, 127, %t;\n"
            " mad.lo.u32 %r6, %r1, 4, %r5;\n ld.shared.u32 %r0, [%r6];\n st.global.u32 [%o1], %r0;\n" + TAIL)
    assert words(run_kernel(text, block=(128, 1, 1), out_bytes=512), 128) == [3 * (127 - i) for i in range(128)]


def test_pack_helper_is_little_endian() -> None:
    """The suite's own packing helper writes little-endian words (a check on the vectors, not on the engine)."""
    assert pack_u32(1, 0x01020304) == b"\x01\x00\x00\x00\x04\x03\x02\x01"
