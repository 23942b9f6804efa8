"""PTX inputs the linker tests share (written for these tests): a kernel, and a pair that must be linked."""
from __future__ import annotations

HEADER = ".version 8.0\n.target sm_80\n.address_size 64\n"

#: add1(p, n): p[i] += 1 for the first n threads
ADD1 = (HEADER + """
.visible .entry add1(.param .u64 p, .param .u32 n)
{
 .reg .b32 %r<5>; .reg .b64 %rd<5>; .reg .pred %p<2>;
 ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n];
 mov.u32 %r2, %tid.x; setp.ge.u32 %p1, %r2, %r1; @%p1 bra DONE;
 cvta.to.global.u64 %rd2, %rd1; mul.wide.u32 %rd3, %r2, 4; add.s64 %rd4, %rd2, %rd3;
 ld.global.u32 %r3, [%rd4]; add.s32 %r4, %r3, 1; st.global.u32 [%rd4], %r4;
DONE: ret;
}
""").encode() + b"\0"

#: twice_tid(p): p[i] = twice(i), with ``twice`` declared .extern (defined by TWICE)
CALLER = (HEADER + """
.extern .func (.param .b32 r) twice
(
 .param .b32 x
)
;
.visible .entry twice_tid(.param .u64 p)
{
 .reg .b32 %r<4>; .reg .b64 %rd<4>;
 ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd2, %rd1;
 mov.u32 %r1, %tid.x; mul.wide.u32 %rd3, %r1, 4; add.s64 %rd2, %rd2, %rd3;
 {
 .param .b32 a; .param .b32 b;
 st.param.b32 [a], %r1;
 call.uni (b), twice, (a);
 ld.param.b32 %r2, [b];
 }
 st.global.u32 [%rd2], %r2;
 ret;
}
""").encode() + b"\0"

TWICE = (HEADER + """
.visible .func (.param .b32 r) twice(.param .b32 x)
{
 .reg .b32 %q<3>;
 ld.param.b32 %q1, [x]; add.s32 %q2, %q1, %q1; st.param.b32 [r], %q2;
 ret;
}
""").encode() + b"\0"

#: a module-level statement the PTX grammar does not have (a syntax error on line 4)
BAD = (HEADER + "this is not ptx;\n").encode() + b"\0"
