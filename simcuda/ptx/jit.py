"""A second, faster engine: the kernel's PTX translated to LLVM IR and compiled by llvmlite (an optional
dependency). The interpreter (:mod:`simcuda.ptx.engine`) stays the reference; ``tests/ptx/engine/test_jit.py``
compares the two.

Scope: kernels whose every instruction is in a small subset (integer and f32/f64 arithmetic, ``fma.rn`` through
LLVM's correctly rounded ``llvm.fma``, ``setp``/``selp``, branches, ``ld``/``st`` of scalars in the param,
global and shared spaces, ``bar.sync``, special registers); anything else raises :class:`Unsupported`, and
:meth:`simcuda.ptx.module.PtxModule.launch` with ``engine="auto"`` then runs the interpreter instead.

Execution: one compiled function runs one block. Each thread keeps its registers and a resume point in a
frame; a pass runs every thread from its resume point until it reaches ``bar.sync`` (resuming after it) or
exits, and passes repeat until every thread has exited: a barrier is passed once every thread has reached it.
Divergence inside a thread is ordinary control flow. Registers live in LLVM locals between barriers (loaded
from and stored to the frame at the boundaries). Global addresses are checked against a table of regions,
filled on a miss by a callback into :meth:`simcuda.ptx.interface.Memory.region`; an access outside every region
faults 700, a misaligned one 716, a shared access past the block's shared memory 700 (spec section 17).
``LaunchStats.lane_instructions`` is not counted by this engine (0).
"""
from __future__ import annotations

import ctypes
import struct
from typing import Any

import numpy as np

from .interface import Fault, LaunchStats, Memory, Unsupported
from .parse import TYPE_SIZES, Func

_LLTY = {1: "i8", 2: "i16", 4: "i32", 8: "i64"}
_FLT = {"f32": "float", "f64": "double"}
_ICMP = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge", "lo": "ult", "ls": "ule",
         "hi": "ugt", "hs": "uge"}
_UCMP = {"lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}
_FCMP = {"eq": "oeq", "ne": "one", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge", "equ": "ueq",
         "neu": "une", "ltu": "ult", "leu": "ule", "gtu": "ugt", "geu": "uge", "num": "ord", "nan": "uno"}
_NREG = 16  # region table entries


def available() -> bool:
    """True when llvmlite can be imported."""
    try:
        import llvmlite.binding  # type: ignore[import-untyped]  # noqa: F401
    except ImportError:
        return False
    return True


_ENGINE: Any = None


def _engine() -> Any:
    global _ENGINE
    if _ENGINE is None:
        import llvmlite.binding as llvm
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        target = llvm.Target.from_default_triple().create_target_machine(opt=3)
        _ENGINE = (llvm, llvm.create_mcjit_compiler(llvm.parse_assembly(""), target), target)
    return _ENGINE


def _ty(parts: list[str]) -> str:
    """The last type suffix of an opcode (``b32`` when it has none)."""
    for p in reversed(parts):
        if p in TYPE_SIZES:
            return p
    return "b32"


class _Gen:
    """The LLVM IR of one kernel (:func:`compile_kernel`)."""

    def __init__(self, f: Func, shared: dict[str, int], params: dict[str, int]) -> None:
        self.f, self.shared, self.params = f, shared, params
        self.lines: list[str] = []
        self.tmp = 0
        self.slot: dict[str, tuple[int, str]] = {}  # register -> (frame offset, llvm type)
        off = 8
        for name, t in f.regs.items():
            lt = "i1" if t == "pred" else _FLT.get(t, _LLTY[TYPE_SIZES[t]])
            size = 1 if t == "pred" else TYPE_SIZES[t]
            off = (off + size - 1) // size * size
            self.slot[name] = (off, lt)
            off += size
        self.frame = (off + 15) // 16 * 16

    def t(self) -> str:
        self.tmp += 1
        return f"%t{self.tmp}"

    def emit(self, s: str) -> None:
        self.lines.append("  " + s)

    # operands
    def read(self, op: str, lt: str) -> str:
        """An LLVM value of type ``lt`` for operand ``op``."""
        op = op.strip()
        if op.startswith("!"):
            v = self.read(op[1:], "i1")
            r = self.t()
            self.emit(f"{r} = xor i1 {v}, true")
            return r
        if op in self.slot:
            _, rt = self.slot[op]
            v = f"%R_{_mangle(op)}"
            r = self.t()
            self.emit(f"{r} = load {rt}, {rt}* {v}")
            return self.convert(r, rt, lt)
        if op in ("%tid.x", "%tid.y", "%tid.z", "%ntid.x", "%ntid.y", "%ntid.z", "%ctaid.x", "%ctaid.y",
                  "%ctaid.z", "%nctaid.x", "%nctaid.y", "%nctaid.z"):
            return self.convert(f"%S_{op[1:].replace('.', '_')}", "i32", lt)
        if op in self.shared:
            return self.convert(str(self.shared[op]), "i64", lt) if lt != "i64" else str(self.shared[op])
        if op[:2] in ("0f", "0F") and len(op) == 10:
            bits = int(op[2:], 16)
            if lt == "float":
                d = struct.unpack("<f", struct.pack("<I", bits))[0]
                return f"0x{struct.unpack('<Q', struct.pack('<d', d))[0]:016X}"
            return str(bits)
        if op[:2] in ("0d", "0D") and len(op) == 18:
            return f"0x{int(op[2:], 16):016X}" if lt == "double" else str(int(op[2:], 16))
        if lt in ("float", "double"):
            d = float(op)
            return f"0x{struct.unpack('<Q', struct.pack('<d', d if lt == 'double' else float(np.float32(d))))[0]:016X}"
        from .parse import parse_int
        try:
            iv = parse_int(op)
        except ValueError:
            raise Unsupported(f"llvm engine: operand {op!r}") from None
        bits = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64}[lt]
        iv &= (1 << bits) - 1
        return str(iv - (1 << bits) if iv >= 1 << (bits - 1) and bits > 1 else iv)

    def convert(self, v: str, src: str, dst: str) -> str:
        """Reinterpret or resize an integer/float value (bit casts between equal sizes, zext/trunc else)."""
        if src == dst:
            return v
        r = self.t()
        sz = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "float": 32, "double": 64}
        if src in ("float", "double") or dst in ("float", "double"):
            if sz[src] == sz[dst]:
                self.emit(f"{r} = bitcast {src} {v} to {dst}")
                return r
            mid = self.convert(v, src, f"i{sz[src]}")
            return self.convert(self.convert(mid, f"i{sz[src]}", f"i{sz[dst]}"), f"i{sz[dst]}", dst)
        op = "zext" if sz[dst] > sz[src] else "trunc"
        self.emit(f"{r} = {op} {src} {v} to {dst}")
        return r

    def write(self, op: str, v: str, lt: str) -> None:
        """Store value ``v`` of type ``lt`` to register ``op`` (resized to the register's storage)."""
        op = op.strip()
        if op not in self.slot:
            raise Unsupported(f"llvm engine: destination {op!r}")
        _, rt = self.slot[op]
        self.emit(f"store {rt} {self.convert(v, lt, rt)}, {rt}* %R_{_mangle(op)}")

    def addr(self, op: str) -> tuple[str | None, str, int]:
        inner = op.strip()[1:-1].replace(" ", "")
        off = 0
        base = inner
        for sep in ("+", "-"):
            k = inner.rfind(sep)
            if k > 0:
                from .parse import parse_int
                base, off = inner[:k], parse_int(inner[k:].lstrip("+"))
                break
        if base in self.slot:
            return None, self.read(base, "i64"), off
        return base, "0", off


def _mangle(name: str) -> str:
    return "".join(c if c.isalnum() else f"_{ord(c):x}" for c in name)


_INT_BIN = {"add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor"}
_F_BIN = {"add": "fadd", "sub": "fsub", "mul": "fmul", "div": "fdiv"}


def compile_kernel(f: Func, shared: dict[str, int], shared_size: int, params: dict[str, int]) -> Any:
    """Compile the flattened kernel ``f`` for a block with ``shared_size`` bytes of shared memory; returns
    (the block function as a ctypes function, the frame size, the LLVM module). Raises :class:`Unsupported`
    for an instruction outside the subset."""
    g = _Gen(f, shared, params)
    body = f.body
    # basic blocks: starts at 0, at every label, after every branch, after every bar.sync
    starts = {0}
    for at in f.labels.values():
        starts.add(at)
    for i, ins in enumerate(body):
        if ins.parts[0] in ("bra", "bar", "barrier", "ret", "exit"):
            starts.add(i + 1)
    starts = {s for s in starts if s <= len(body)}
    order = sorted(starts)
    bid = {s: k for k, s in enumerate(order)}
    label_block = {name: bid[at] for name, at in f.labels.items() if at in bid}
    resume_points: list[int] = [0]
    for k, s in enumerate(order):
        g.lines.append(f"B{k}:")
        end = order[k + 1] if k + 1 < len(order) else len(body)
        falls = True
        for i in range(s, end):
            ins = body[i]
            falls = _one(g, ins, label_block, bid, i, resume_points)
        if falls:
            nxt = bid.get(end)
            g.emit(f"br label %B{nxt}" if nxt is not None else "br label %EXIT")
    regs = list(g.slot.items())
    head = []
    head.append("define void @block(i8* %frames, i64 %nthreads, i8* %shared, i8* %params, i32* %geo, "
                "i64* %regions, i32* %status, i64 (i64, i64)* %resolve) {")
    head.append("entry:")
    for k, nm in enumerate(("ntid_x", "ntid_y", "ntid_z", "ctaid_x", "ctaid_y", "ctaid_z", "nctaid_x", "nctaid_y",
                            "nctaid_z")):
        head.append(f"  %gp{k} = getelementptr i32, i32* %geo, i64 {k}")
        head.append(f"  %S_{nm} = load i32, i32* %gp{k}")
    for name, (_o, lt) in regs:
        head.append(f"  %R_{_mangle(name)} = alloca {lt}")
    head.append("  %alive = alloca i64")
    head.append("  br label %pass")
    head.append("pass:")
    head.append("  store i64 0, i64* %alive")
    head.append("  br label %tloop")
    head.append("tloop:")
    head.append("  %t = phi i64 [0, %pass], [%tn, %tnext]")
    head.append("  %fr = getelementptr i8, i8* %frames, i64 0")
    head.append(f"  %fo = mul i64 %t, {g.frame}")
    head.append("  %fp = getelementptr i8, i8* %frames, i64 %fo")
    head.append("  %rsp = bitcast i8* %fp to i32*")
    head.append("  %rs = load i32, i32* %rsp")
    head.append("  %done = icmp eq i32 %rs, -1")
    head.append("  br i1 %done, label %tnext, label %tload")
    head.append("tload:")
    nx, ny = "%S_ntid_x", "%S_ntid_y"
    head.append("  %tidx32 = trunc i64 %t to i32")
    head.append(f"  %S_tid_x = urem i32 %tidx32, {nx}")
    head.append(f"  %tq = udiv i32 %tidx32, {nx}")
    head.append(f"  %S_tid_y = urem i32 %tq, {ny}")
    head.append(f"  %S_tid_z = udiv i32 %tq, {ny}")
    for name, (o, lt) in regs:
        m = _mangle(name)
        head.append(f"  %lp_{m} = getelementptr i8, i8* %fp, i64 {o}")
        if lt == "i1":
            head.append(f"  %lb_{m} = load i8, i8* %lp_{m}")
            head.append(f"  %lv_{m} = trunc i8 %lb_{m} to i1")
        else:
            head.append(f"  %lc_{m} = bitcast i8* %lp_{m} to {lt}*")
            head.append(f"  %lv_{m} = load {lt}, {lt}* %lc_{m}")
        head.append(f"  store {lt} %lv_{m}, {lt}* %R_{m}")
    head.append("  switch i32 %rs, label %B0 [" + " ".join(f"i32 {k}, label %B{k}" for k in sorted(set(resume_points)))
                + "]")
    save = ["SAVE:", "  %next = phi i32 " + ", ".join(f"[{k}, %SV{k}]" for k in sorted(set(resume_points)) if k) +
            (", " if len(resume_points) > 1 else "") + "[-1, %EXIT]"]
    # EXIT and SVk blocks jump to SAVE, which stores registers and the resume point, then the next thread
    tail = ["EXIT:", "  br label %SAVE"]
    for k in sorted(set(resume_points)):
        if k:
            tail += [f"SV{k}:", "  store i64 1, i64* %alive", "  br label %SAVE"]
    tail += save
    tail.append("  store i32 %next, i32* %rsp")
    for name, (o, lt) in regs:
        m = _mangle(name)
        tail.append(f"  %sv_{m} = load {lt}, {lt}* %R_{m}")
        tail.append(f"  %sp_{m} = getelementptr i8, i8* %fp, i64 {o}")
        if lt == "i1":
            tail.append(f"  %sz_{m} = zext i1 %sv_{m} to i8")
            tail.append(f"  store i8 %sz_{m}, i8* %sp_{m}")
        else:
            tail.append(f"  %sc_{m} = bitcast i8* %sp_{m} to {lt}*")
            tail.append(f"  store {lt} %sv_{m}, {lt}* %sc_{m}")
    tail.append("  %st = load i32, i32* %status")
    tail.append("  %bad = icmp ne i32 %st, 0")
    tail.append("  br i1 %bad, label %FIN, label %tnext")
    tail.append("tnext:")
    tail.append("  %tn = add i64 %t, 1")
    tail.append("  %more = icmp ult i64 %tn, %nthreads")
    tail.append("  br i1 %more, label %tloop, label %pend")
    tail.append("pend:")
    tail.append("  %al = load i64, i64* %alive")
    tail.append("  %again = icmp ne i64 %al, 0")
    tail.append("  br i1 %again, label %pass, label %FIN")
    tail.append("FIN:")
    tail.append("  ret void")
    tail.append("}")
    decls = ["declare float @llvm.fma.f32(float, float, float)", "declare double @llvm.fma.f64(double, double, double)",
             "declare float @llvm.sqrt.f32(float)", "declare double @llvm.sqrt.f64(double)"]
    text = "\n".join(decls + head + g.lines + tail) + "\n"
    for size in (1, 2, 4, 8):
        text = text.replace(f"%SHLIM{size}", str(shared_size - size))
    text = text.replace("%fr = getelementptr i8, i8* %frames, i64 0\n", "")
    llvm, ee, _tm = _engine()
    mod = llvm.parse_assembly(text)
    mod.verify()
    _optimise(llvm, mod, _tm)
    ee.add_module(mod)
    ee.finalize_object()
    addr = ee.get_function_address("block")
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
    return proto(addr), g.frame, mod


def _optimise(llvm: Any, mod: Any, tm: Any) -> None:
    """The new pass manager's default O2 pipeline (llvmlite 0.44+)."""
    pto = llvm.create_pipeline_tuning_options(speed_level=2)
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)


def _one(g: _Gen, ins: Any, label_block: dict[str, int], bid: dict[int, int], i: int,
         resume_points: list[int]) -> bool:
    """Emit one instruction; False when it ends its basic block without falling through."""
    p, o = ins.parts, ins.ops
    op = p[0]
    ty = _ty(p)
    if ins.guard is not None and op != "bra":
        raise Unsupported(f"llvm engine: guarded {'.'.join(p)} (PTX line {ins.line})")
    if op == "bra":
        target = label_block.get(o[0])
        if target is None:
            raise Unsupported(f"llvm engine: branch target {o[0]}")
        nxt = bid.get(i + 1)
        fall = f"%B{nxt}" if nxt is not None else "%EXIT"
        if ins.guard is None:
            g.emit(f"br label %B{target}")
        else:
            c = g.read(("!" if ins.guard[1] else "") + ins.guard[0], "i1")
            g.emit(f"br i1 {c}, label %B{target}, label {fall}")
        return False
    if op in ("ret", "exit"):
        g.emit("br label %EXIT")
        return False
    if op in ("bar", "barrier") and ("sync" in p or len(p) == 2 or "cta" in p):
        nxt = bid[i + 1]
        resume_points.append(nxt)
        g.emit(f"br label %SV{nxt}")
        return False
    if op == "ld" and "param" in p:
        sym, _b, off = g.addr(o[1])
        if sym not in g.params:
            raise Unsupported("llvm engine: ld.param of a non-parameter")
        lt = _FLT.get(ty, _LLTY[TYPE_SIZES[ty]])
        pp, pc, r = g.t(), g.t(), g.t()
        g.emit(f"{pp} = getelementptr i8, i8* %params, i64 {g.params[sym] + off}")
        g.emit(f"{pc} = bitcast i8* {pp} to {lt}*")
        g.emit(f"{r} = load {lt}, {lt}* {pc}")
        g.write(o[0], r, lt)
        return True
    if op in ("ld", "st") and ("global" in p or "shared" in p) and not any(x in p for x in ("v2", "v4")):
        _mem(g, ins, op, p, o, ty)
        return True
    if op == "mov":
        if o[1] in g.shared:
            g.write(o[0], str(g.shared[o[1]]), "i64")
            return True
        lt = _FLT.get(ty, "i1" if ty == "pred" else _LLTY[TYPE_SIZES[ty]])
        g.write(o[0], g.read(o[1], lt), lt)
        return True
    if op == "cvta" and "to" in p and "global" in p:
        g.write(o[0], g.read(o[1], "i64"), "i64")
        return True
    if ty in ("f32", "f64"):
        return _float(g, ins, op, p, o, ty)
    if ty == "pred" or ty in ("f16", "bf16", "f16x2", "bf16x2"):  # 16-bit floats: the interpreter's arithmetic
        raise Unsupported(f"llvm engine: {'.'.join(p)}")  # (simcuda.ptx.halves), not an integer's on their bits
    lt = _LLTY[TYPE_SIZES[ty]]
    signed = ty.startswith("s")
    if op in _INT_BIN or (op == "mul" and "lo" in p) or (op == "mad" and "lo" in p) or op in ("shl", "shr"):
        a = g.read(o[1], lt)
        if op in ("shl", "shr"):
            k = g.read(o[2], "i32")
            kz = g.convert(k, "i32", lt) if lt != "i32" else k
            bits = TYPE_SIZES[ty] * 8
            big = g.t()
            g.emit(f"{big} = icmp uge i32 {k}, {bits}")
            km = g.t()
            g.emit(f"{km} = select i1 {big}, {lt} {bits - 1}, {lt} {kz}")
            r = g.t()
            inst = "shl" if op == "shl" else ("ashr" if signed else "lshr")
            g.emit(f"{r} = {inst} {lt} {a}, {km}")
            if not (op == "shr" and signed):
                r2 = g.t()
                g.emit(f"{r2} = select i1 {big}, {lt} 0, {lt} {r}")
                r = r2
            g.write(o[0], r, lt)
            return True
        b = g.read(o[2], lt)
        r = g.t()
        g.emit(f"{r} = {_INT_BIN.get(op, 'mul')} {lt} {a}, {b}")
        if op == "mad":
            c = g.read(o[3], lt)
            r2 = g.t()
            g.emit(f"{r2} = add {lt} {r}, {c}")
            r = r2
        g.write(o[0], r, lt)
        return True
    if op == "mul" and "wide" in p:
        a, b = g.read(o[1], lt), g.read(o[2], lt)
        wl = _LLTY[TYPE_SIZES[ty] * 2]
        ea, eb, r = g.t(), g.t(), g.t()
        ext = "sext" if signed else "zext"
        g.emit(f"{ea} = {ext} {lt} {a} to {wl}")
        g.emit(f"{eb} = {ext} {lt} {b} to {wl}")
        g.emit(f"{r} = mul {wl} {ea}, {eb}")
        g.write(o[0], r, wl)
        return True
    if op == "setp":
        return _setp(g, p, o, lt, signed)
    if op == "selp":
        a, b, c = g.read(o[1], lt), g.read(o[2], lt), g.read(o[3], "i1")
        r = g.t()
        g.emit(f"{r} = select i1 {c}, {lt} {a}, {lt} {b}")
        g.write(o[0], r, lt)
        return True
    if op in ("min", "max"):
        a, b = g.read(o[1], lt), g.read(o[2], lt)
        c, r = g.t(), g.t()
        cmp = ("slt" if signed else "ult") if op == "min" else ("sgt" if signed else "ugt")
        g.emit(f"{c} = icmp {cmp} {lt} {a}, {b}")
        g.emit(f"{r} = select i1 {c}, {lt} {a}, {lt} {b}")
        g.write(o[0], r, lt)
        return True
    if op == "cvt":
        tys = [x for x in p[1:] if x in TYPE_SIZES]
        if all(x[0] in "usb" for x in tys):
            dl, sl = _LLTY[TYPE_SIZES[tys[0]]], _LLTY[TYPE_SIZES[tys[1]]]
            v = g.read(o[1], sl)
            if TYPE_SIZES[tys[0]] > TYPE_SIZES[tys[1]]:
                r = g.t()
                g.emit(f"{r} = {'sext' if tys[1].startswith('s') else 'zext'} {sl} {v} to {dl}")
                g.write(o[0], r, dl)
            else:
                g.write(o[0], g.convert(v, sl, dl), dl)
            return True
    raise Unsupported(f"llvm engine: {'.'.join(p)} (PTX line {ins.line})")


def _setp(g: _Gen, p: list[str], o: list[str], lt: str, signed: bool) -> bool:
    cmpn = next(x for x in p[1:] if x in _ICMP)
    if len(o) > 3 or "|" in o[0]:
        raise Unsupported("llvm engine: setp with a combining predicate")
    a, b = g.read(o[1], lt), g.read(o[2], lt)
    c = g.t()
    pred = _ICMP[cmpn] if signed or cmpn not in _UCMP else _UCMP[cmpn]
    g.emit(f"{c} = icmp {pred} {lt} {a}, {b}")
    g.write(o[0], c, "i1")
    return True


def _float(g: _Gen, ins: Any, op: str, p: list[str], o: list[str], ty: str) -> bool:
    lt = _FLT[ty]
    if any(x in p for x in ("rz", "rm", "rp", "ftz", "sat", "approx")):
        raise Unsupported(f"llvm engine: {'.'.join(p)}")
    if op in _F_BIN:
        a, b = g.read(o[1], lt), g.read(o[2], lt)
        r = g.t()
        g.emit(f"{r} = {_F_BIN[op]} {lt} {a}, {b}")
        g.write(o[0], r, lt)
        return True
    if op in ("fma", "mad"):
        a, b, c = (g.read(x, lt) for x in o[1:4])
        r = g.t()
        g.emit(f"{r} = call {lt} @llvm.fma.{ty}({lt} {a}, {lt} {b}, {lt} {c})")
        g.write(o[0], r, lt)
        return True
    if op == "neg":
        a = g.read(o[1], lt)
        r = g.t()
        g.emit(f"{r} = fneg {lt} {a}")
        g.write(o[0], r, lt)
        return True
    if op == "setp":
        cmpn = next(x for x in p[1:] if x in _FCMP)
        if len(o) > 3 or "|" in o[0]:
            raise Unsupported("llvm engine: setp with a combining predicate")
        a, b = g.read(o[1], lt), g.read(o[2], lt)
        c = g.t()
        g.emit(f"{c} = fcmp {_FCMP[cmpn]} {lt} {a}, {b}")
        g.write(o[0], c, "i1")
        return True
    if op == "selp":
        a, b, c = g.read(o[1], lt), g.read(o[2], lt), g.read(o[3], "i1")
        r = g.t()
        g.emit(f"{r} = select i1 {c}, {lt} {a}, {lt} {b}")
        g.write(o[0], r, lt)
        return True
    raise Unsupported(f"llvm engine: {'.'.join(p)} (PTX line {ins.line})")


def _mem(g: _Gen, ins: Any, op: str, p: list[str], o: list[str], ty: str) -> None:
    lt = _FLT.get(ty, _LLTY[TYPE_SIZES[ty]])
    size = TYPE_SIZES[ty]
    aop = o[1] if op == "ld" else o[0]
    sym, base, off = g.addr(aop)
    if sym is not None:
        if sym not in g.shared:
            raise Unsupported(f"llvm engine: address of {sym}")
        base, off = "0", off + g.shared[sym]
    a = g.t()
    g.emit(f"{a} = add i64 {base}, {off}")
    ok = g.t()
    mis = g.t()
    g.emit(f"{mis} = and i64 {a}, {size - 1}")
    bad_al = g.t()
    g.emit(f"{bad_al} = icmp ne i64 {mis}, 0")
    lab = g.tmp
    g.emit(f"br i1 {bad_al}, label %F{lab}m, label %F{lab}a")
    g.lines.append(f"F{lab}m:")
    g.emit(f"store i32 {ins.line * 4 + 1}, i32* %status")
    _fault_addr(g, a)
    g.emit("br label %EXIT")
    g.lines.append(f"F{lab}a:")
    if "shared" in p:
        lim = g.t()
        g.emit(f"{lim} = icmp ugt i64 {a}, %SHLIM{size}")
        g.emit(f"br i1 {lim}, label %F{lab}o, label %F{lab}s")
        g.lines.append(f"F{lab}o:")
        g.emit(f"store i32 {ins.line * 4 + 2}, i32* %status")
        _fault_addr(g, a)
        g.emit("br label %EXIT")
        g.lines.append(f"F{lab}s:")
        ptr = g.t()
        g.emit(f"{ptr} = getelementptr i8, i8* %shared, i64 {a}")
    else:
        ptr = _global_ptr(g, a, size, ins, lab)
    del ok
    pc = g.t()
    g.emit(f"{pc} = bitcast i8* {ptr} to {lt}*")
    if op == "ld":
        r = g.t()
        g.emit(f"{r} = load {lt}, {lt}* {pc}")
        g.write(o[0], r, lt)
    else:
        g.emit(f"store {lt} {g.read(o[1], lt)}, {lt}* {pc}")


def _fault_addr(g: _Gen, a: str) -> None:
    slot = g.t()
    g.emit(f"{slot} = getelementptr i64, i64* %regions, i64 {3 * _NREG}")
    g.emit(f"store i64 {a}, i64* {slot}")


def _global_ptr(g: _Gen, a: str, size: int, ins: Any, lab: int) -> str:
    """The host pointer of global address ``a`` (a region-table lookup; on a miss the resolve callback fills
    an entry, or the access faults 700)."""
    g.emit(f"br label %G{lab}l")
    g.lines.append(f"G{lab}l:")
    k = g.t()
    kn = g.t()
    g.emit(f"{k} = phi i64 [0, %F{lab}a], [{kn}, %G{lab}n], [0, %G{lab}r]")
    sp, ep = g.t(), g.t()
    g.emit(f"{sp} = getelementptr i64, i64* %regions, i64 {k}")
    s = g.t()
    g.emit(f"{s} = load i64, i64* {sp}")
    kk = g.t()
    g.emit(f"{kk} = add i64 {k}, {_NREG}")
    g.emit(f"{ep} = getelementptr i64, i64* %regions, i64 {kk}")
    e = g.t()
    g.emit(f"{e} = load i64, i64* {ep}")
    ge, le, last = g.t(), g.t(), g.t()
    g.emit(f"{last} = add i64 {a}, {size}")
    g.emit(f"{ge} = icmp uge i64 {a}, {s}")
    g.emit(f"{le} = icmp ule i64 {last}, {e}")
    both = g.t()
    g.emit(f"{both} = and i1 {ge}, {le}")
    g.emit(f"br i1 {both}, label %G{lab}h, label %G{lab}n")
    g.lines.append(f"G{lab}n:")
    g.emit(f"{kn} = add i64 {k}, 1")
    end = g.t()
    g.emit(f"{end} = icmp ult i64 {kn}, {_NREG}")
    g.emit(f"br i1 {end}, label %G{lab}l, label %G{lab}x")
    g.lines.append(f"G{lab}x:")
    rr = g.t()
    g.emit(f"{rr} = call i64 %resolve(i64 {a}, i64 {size})")
    found = g.t()
    g.emit(f"{found} = icmp ne i64 {rr}, 0")
    g.emit(f"br i1 {found}, label %G{lab}r, label %G{lab}f")
    g.lines.append(f"G{lab}r:")
    g.emit(f"br label %G{lab}l")
    g.lines.append(f"G{lab}f:")
    g.emit(f"store i32 {ins.line * 4}, i32* %status")
    _fault_addr(g, a)
    g.emit("br label %EXIT")
    g.lines.append(f"G{lab}h:")
    hp = g.t()
    kh = g.t()
    g.emit(f"{kh} = add i64 {k}, {2 * _NREG}")
    g.emit(f"{hp} = getelementptr i64, i64* %regions, i64 {kh}")
    h = g.t()
    g.emit(f"{h} = load i64, i64* {hp}")
    d = g.t()
    g.emit(f"{d} = sub i64 {a}, {s}")
    q = g.t()
    g.emit(f"{q} = add i64 {h}, {d}")
    ptr = g.t()
    g.emit(f"{ptr} = inttoptr i64 {q} to i8*")
    return ptr


class JitKernel:
    """A kernel compiled by :func:`compile_kernel` (once per shared-memory size), launched block by block."""

    def __init__(self, f: Func, shared_layout: dict[str, int], shared_size: int, params: dict[str, int]) -> None:
        self.f, self.layout, self.shared_size, self.params = f, shared_layout, shared_size, params
        self._compiled: dict[int, Any] = {}
        self.compiled(max(16, shared_size))  # refuses an unsupported kernel at once

    def compiled(self, shsize: int) -> Any:
        """(block function, frame size, module) for ``shsize`` bytes of shared memory."""
        c = self._compiled.get(shsize)
        if c is None:
            c = self._compiled[shsize] = compile_kernel(self.f, self.layout, shsize, self.params)
        return c

    def launch(self, grid: tuple[int, int, int], block: tuple[int, int, int], dynamic_shared: int, params: bytes,
               memory: Memory, kernel: str) -> LaunchStats:
        """Run every block; raises :class:`Fault` (700, 716) naming the kernel, block, PTX line and address."""
        nt = block[0] * block[1] * block[2]
        shsize = max(16, self.shared_size + dynamic_shared)
        fn, frame, _mod = self.compiled(shsize)
        frames = np.zeros(nt * frame, np.uint8)
        shared = np.zeros(shsize + 16, np.uint8)
        pbuf = np.frombuffer(bytearray(params.ljust(8, b"\0")), np.uint8)
        geo = np.zeros(9, np.int32)
        geo[0:3] = block
        geo[6:9] = grid
        table = np.zeros(3 * _NREG + 1, np.uint64)
        keep: list[Any] = []
        status = np.zeros(1, np.int32)
        nxt = [0]

        def resolve(addr: int, size: int) -> int:
            addr &= 0xFFFFFFFFFFFFFFFF
            r = memory.region(addr)
            if r is None or addr + size > r.start + r.size:
                return 0
            data = r.data
            keep.append(data)
            k = nxt[0] % _NREG
            nxt[0] += 1
            table[k], table[_NREG + k], table[2 * _NREG + k] = r.start, r.start + r.size, data.ctypes.data
            return 1
        cb = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)(resolve)
        cbp = ctypes.cast(cb, ctypes.c_void_p)
        stats = LaunchStats()
        for z in range(grid[2]):
            for y in range(grid[1]):
                for x in range(grid[0]):
                    frames[:] = 0
                    shared[:] = 0
                    geo[3:6] = (x, y, z)
                    fn(frames.ctypes.data, nt, shared.ctypes.data, pbuf.ctypes.data, geo.ctypes.data,
                       table.ctypes.data, status.ctypes.data, cbp)
                    if status[0]:
                        code = {0: 700, 1: 716, 2: 700}[int(status[0]) % 4]
                        line = int(status[0]) // 4
                        a = int(table[3 * _NREG])
                        raise Fault(code, f"kernel {kernel}: block {(x, y, z)}: "
                                          f"{'misaligned' if code == 716 else 'illegal'} access at address "
                                          f"{a:#x}, PTX line {line} (llvm engine)", kernel=kernel,
                                    block=(x, y, z), line=line, address=a)
                    stats.blocks += 1
        return stats
