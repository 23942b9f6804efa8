"""``call`` to the device runtime's functions: ``vprintf``, ``__assertfail``, ``malloc``/``free``,
``cudaGraphSetConditional``; and real calls into the module's own functions. Calls to the module's own
``.func`` are inlined before decoding (:func:`simcuda.ptx.module.inline`) unless they recurse or go through a
register: those run as real calls (:class:`CallState`, :func:`build_realcall`, :func:`build_segret`) into
the function's segment appended to the kernel's code (:func:`simcuda.ptx.module.segments`)."""
from __future__ import annotations

import re
import struct
from typing import Any

import numpy as np

from .interface import Fault, Unsupported
from .parse import Ins


def _names(s: str) -> list[str]:
    return [x.strip() for x in s.strip().strip("()").split(",") if x.strip()]


def build_call(L: Any, ins: Ins, o: list[str]) -> tuple[int, Any]:
    """(kind, closure) for a ``call`` to a device-runtime function."""
    if o[0].strip().startswith("("):
        rets, fname, args = _names(o[0]), o[1].strip(), [a for x in o[2:] for a in _names(x)]
    else:
        rets, fname, args = [], o[0].strip(), [a for x in o[1:] for a in _names(x)]
    hooks = L.hooks

    def argval(mask: Any, k: int, ty: str = "u64") -> Any:
        from .values import _DT
        acc = L.mem_access(ins, "param", np.dtype(_DT[ty]), 1, f"[{args[k]}]")
        return acc(mask, None)[0]

    def ret(mask: Any, val: Any, ty: str = "u64") -> None:
        from .values import _DT
        if rets:
            acc = L.mem_access(ins, "param", np.dtype(_DT[ty]), 1, f"[{rets[0]}]")
            acc(mask, [np.broadcast_to(np.asarray(val).astype(_DT[ty]), (L.n,))])

    def lanes(mask: Any) -> np.ndarray:
        return np.flatnonzero(L.alive0 if mask is None else mask)

    if fname == "vprintf":
        def vprintf(mask: Any) -> None:
            fmt_a = np.broadcast_to(argval(mask, 0), (L.n,)) if mask is None else None
            buf_a = None
            ls = lanes(mask)
            fa = np.zeros(L.n, np.uint64)
            ba = np.zeros(L.n, np.uint64)
            fa[L.alive0 if mask is None else mask] = argval(mask, 0)
            ba[L.alive0 if mask is None else mask] = argval(mask, 1)
            del fmt_a, buf_a
            for k in ls:
                fmt = L.read_cstring(ins, int(k), int(fa[k]))
                text = _format(L, ins, int(k), fmt, int(ba[k]))
                if hooks.printf is None:
                    raise L.where(ins, None, None, 719, "vprintf called but the simulator gave no printf hook")
                hooks.printf(text)
            ret(mask, 0, "s32")
        return 0, vprintf
    if fname == "__assertfail":
        def assertfail(mask: Any) -> None:
            k = int(lanes(mask)[0])
            m = np.zeros(L.n, bool)
            m[k] = True
            msg = L.read_cstring(ins, k, int(argval(m, 0)[0]))
            file = L.read_cstring(ins, k, int(argval(m, 1)[0]))
            line = int(argval(m, 2, "u32")[0])
            func = L.read_cstring(ins, k, int(argval(m, 3)[0]))
            f = L.where(ins, m, None, 710, f"device-side assertion `{msg}` failed in {func} ({file}:{line})")
            raise f
        return 0, assertfail
    if fname in ("malloc", "free", "cudaGraphSetConditional"):
        def heap(mask: Any) -> None:
            out = np.zeros(L.n, np.uint64)
            act = L.alive0 if mask is None else mask
            if fname == "malloc":
                if hooks.malloc is None:
                    raise L.where(ins, mask, None, 719, "malloc in device code needs the simulator's heap hook")
                sizes = np.zeros(L.n, np.uint64)
                sizes[act] = argval(mask, 0)
                for k in np.flatnonzero(act):
                    out[k] = hooks.malloc(int(sizes[k]))
                ret(mask, out)
            elif fname == "free":
                if hooks.free is None:
                    raise L.where(ins, mask, None, 719, "free in device code needs the simulator's heap hook")
                ad = np.zeros(L.n, np.uint64)
                ad[act] = argval(mask, 0)
                for k in np.flatnonzero(act):
                    hooks.free(int(ad[k]))
            else:
                if hooks.set_conditional is None:
                    raise L.where(ins, mask, None, 719, "cudaGraphSetConditional needs the simulator's hook")
                h = np.zeros(L.n, np.uint64)
                v = np.zeros(L.n, np.uint32)
                h[act] = argval(mask, 0)
                v[act] = argval(mask, 1, "u32")
                for k in np.flatnonzero(act):
                    hooks.set_conditional(int(h[k]), int(v[k]))
        return 0, heap
    raise Unsupported(f"kernel {L.kernel}: call to {fname} (PTX line {ins.line}) is not supported")


_SPEC = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?(hh|h|ll|l|z|j|t|L)?([diouxXeEfFgGcspaA%])")


def _format(L: Any, ins: Ins, lane: int, fmt: str, buf: int) -> str:
    """C printf formatting of ``fmt`` with the argument buffer at ``buf`` (each argument aligned to its size)."""
    out: list[str] = []
    pos = 0
    off = 0

    def take(size: int) -> bytes:
        nonlocal off
        off = (off + size - 1) // size * size
        b: bytes = L.read_bytes(ins, lane, buf + off, size)
        off += size
        return b

    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        flags, width, prec, length, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        spec = "%" + flags + (width or "") + ("." + prec if prec is not None else "")
        if conv in "eEfFgGaA":
            v = struct.unpack("<d", take(8))[0]
            out.append((spec + conv) % v if conv not in "aA" else v.hex())
        elif conv == "s":
            out.append((spec + "s") % L.read_cstring(ins, lane, int.from_bytes(take(8), "little")))
        elif conv == "p":
            out.append("0x{:x}".format(int.from_bytes(take(8), "little")))
        elif conv == "c":
            out.append(chr(int.from_bytes(take(4), "little") & 0xFF))
        else:
            size = 8 if length in ("l", "ll", "z", "j", "t") else 4
            v = int.from_bytes(take(size), "little", signed=conv in "di")
            if length == "hh":
                v &= 0xFF
            elif length == "h":
                v &= 0xFFFF
            out.append((spec + conv.replace("u", "d")) % v)
    out.append(fmt[pos:])
    return "".join(out)


class CallState:
    """Real calls (recursion, calls through a register): per lane, the call depth and, per frame, the return
    PC, the call site and the callee; the callee's registers and local frame as they were before the call
    (its previous activation, when it recurses), saved per (depth, callee) and restored by its ``ret``.

    Scheduling with calls: a lane inside a call stands, for the lowest-PC-first rule, just after its call site
    (compared level by level along the stack), so lanes that did not take the call wait for it at their next
    instruction, and the lanes that run together share the whole stack."""

    def __init__(self, L: Any, info: dict[str, Any]) -> None:
        self.L, self.info = L, info
        n = L.n
        self.depth = np.zeros(n, np.int32)
        self.cap = 8
        self.ret = np.zeros((n, self.cap), np.int32)
        self.site = np.zeros((n, self.cap), np.int32)
        self.callee = np.zeros((n, self.cap), np.int32)
        self.names = list(info)
        self.sites: list[list[str]] = []
        self.saved: dict[tuple[int, int], tuple[dict[str, np.ndarray], np.ndarray]] = {}
        self.local2d = L.local.reshape(n, L.lsize)
        self.frames: dict[str, tuple[int, int, list[tuple[int, int]], list[tuple[int, int]]]] = {}
        for name, (_start, pars, rets, _regs, locs) in info.items():
            offs = [(L.local_layout[v], _size(L, v)) for v in locs if v in L.local_layout]
            lo = min((o for o, _ in offs), default=0)
            hi = max((o + z for o, z in offs), default=0)
            self.frames[name] = (lo, hi, [(L.local_layout[v], _size(L, v)) for v in pars],
                                 [(L.local_layout[v], _size(L, v)) for v in rets])
        by_addr = {a: k for k, a in L.func_addresses.items()}
        self.by_addr = by_addr

    def select(self, cand: np.ndarray) -> tuple[int, Any]:
        """The next PC and lanes to run: the lowest key, compared level by level along the call stacks."""
        from .values import EXIT
        sel = cand < EXIT
        if not sel.any():
            return int(EXIT), None
        level = 0
        c64 = cand.astype(np.int64)
        while True:
            if level < self.cap:
                key = np.where(self.depth > level, 2 * self.ret[:, level].astype(np.int64) - 1, 2 * c64)
            else:
                key = 2 * c64
            kmin = int(key[sel].min())
            sel = sel & (key == kmin)
            if kmin % 2 == 0:
                return kmin // 2, sel
            level += 1

    def grow(self, need: int) -> None:
        """Room for ``need`` frames per lane (a GPU's stack overflow, past 1024 frames: Fault 719)."""
        if need <= self.cap:
            return
        if need > 1024:
            raise Fault(719, f"kernel {self.L.kernel}: calls nest deeper than 1024 frames (the call stack "
                             f"overflows)")
        new = max(need, 2 * self.cap)
        for attr in ("ret", "site", "callee"):
            old = getattr(self, attr)
            arr = np.zeros((old.shape[0], new), np.int32)
            arr[:, :self.cap] = old
            setattr(self, attr, arr)
        self.cap = new


def _size(L: Any, name: str) -> int:
    for v in L.func.locals:
        if v.name == name:
            return int(v.size)
    return 8


def build_realcall(L: Any, ins: Ins, o: list[str]) -> Any:
    """The closure ``go(lanes_mask, pcs, pc)`` of a real call (see :class:`CallState`)."""
    from .parse import call_names, call_target
    rets, args = call_names(ins)
    target = call_target(ins)
    cs: CallState = L.calls
    site = len(cs.sites)
    cs.sites.append(rets)
    # indirect through a register, whatever its name after inlining (``__inl0_3_%rd2``), else a function name
    tget = L.getter(target, "u64") if target in L.regs else None
    if tget is None and target not in cs.info:
        raise Unsupported(f"kernel {L.kernel}: call to {target} (PTX line {ins.line}): no body to run")
    arg_src = []
    for a in args:
        if a in L.local_layout:
            arg_src.append(("mem", L.local_layout[a], _size(L, a)))
        else:
            arg_src.append(("val", a, 0))
    n = L.n

    def go(mask: Any, pcs: np.ndarray, pc: int) -> None:
        lanes = np.flatnonzero(mask)
        if tget is None:
            names = np.full(len(lanes), cs.names.index(target), np.int64)
        else:
            addr = np.broadcast_to(np.asarray(tget(), np.uint64), (n,))[lanes]
            names = np.zeros(len(lanes), np.int64)
            for u in np.unique(addr):
                nm = cs.by_addr.get(int(u))
                if nm is None or nm not in cs.info:
                    m = np.zeros(n, bool)
                    m[lanes[addr == u]] = True
                    raise L.where(ins, m, np.full(n, int(u), np.uint64), 719, "indirect call to an address that "
                                  "is no function of the module")
                names[addr == u] = cs.names.index(nm)
        for fi in np.unique(names):
            fname = cs.names[int(fi)]
            sub = lanes[names == fi]
            lo, hi, pars, _r = cs.frames[fname]
            vals = []
            for (kind, x, size), (_poff, psize) in zip(arg_src, pars):
                if kind == "mem":
                    vals.append(cs.local2d[sub, x:x + min(size, psize)].copy())
                else:
                    g = L.getter(x, {1: "b8", 2: "b16", 4: "b32", 8: "b64"}.get(psize, "b32"))
                    v = np.broadcast_to(np.asarray(g()), (n,))[sub]
                    vals.append(np.ascontiguousarray(v).view(np.uint8).reshape(len(sub), -1))
            d = cs.depth[sub]
            cs.grow(int(d.max()) + 1)
            for dv in np.unique(d):
                s2 = sub[d == dv]
                key = (int(dv), int(fi))
                if key not in cs.saved:
                    cs.saved[key] = ({r: np.zeros_like(L.regs[r]) for r in cs.info[fname][3]},
                                     np.zeros((n, max(0, hi - lo)), np.uint8))
                regs, loc = cs.saved[key]
                for r, arr in regs.items():
                    arr[s2] = L.regs[r][s2]
                loc[s2] = cs.local2d[s2, lo:hi]
                cs.ret[s2, dv] = pc + 1
                cs.site[s2, dv] = site
                cs.callee[s2, dv] = fi
            for v, (poff, _psize) in zip(vals, pars):
                cs.local2d[sub, poff:poff + v.shape[1]] = v
            cs.depth[sub] += 1
            pcs[sub] = cs.info[fname][0]
    return go


def build_segret(L: Any, ins: Ins) -> Any:
    """The closure ``go(lanes_mask, pcs, pc)`` of a ``ret`` in a function's segment: the return values go to
    the caller's variables once the callee's previous registers and frame are back."""
    cs: CallState = L.calls
    n = L.n

    def go(mask: Any, pcs: np.ndarray, pc: int) -> None:
        lanes = np.flatnonzero(mask)
        d = cs.depth[lanes] - 1
        if (d < 0).any():
            raise L.where(ins, mask, None, 719, "ret from a function with no caller")
        for dv in np.unique(d):
            s1 = lanes[d == dv]
            for fi in np.unique(cs.callee[s1, dv]):
                sub = s1[cs.callee[s1, dv] == fi]
                fname = cs.names[int(fi)]
                lo, hi, _p, rets = cs.frames[fname]
                out = [cs.local2d[sub, o:o + z].copy() for o, z in rets]
                regs, loc = cs.saved[(int(dv), int(fi))]
                for r, arr in regs.items():
                    L.regs[r][sub] = arr[sub]
                cs.local2d[sub, lo:hi] = loc[sub]
                cs.depth[sub] -= 1
                for st in np.unique(cs.site[sub, dv]):
                    s3 = sub[cs.site[sub, dv] == st]
                    sel = np.isin(sub, s3)
                    for name, val in zip(cs.sites[int(st)], out):
                        if name in L.local_layout:
                            off = L.local_layout[name]
                            k = min(val.shape[1], _size(L, name))
                            cs.local2d[s3, off:off + k] = val[sel, :k]
                        elif name in L.regs:
                            arr = L.regs[name]
                            full = np.zeros((n, arr.dtype.itemsize), np.uint8)
                            full[s3, :min(arr.dtype.itemsize, val.shape[1])] = \
                                val[sel, :min(arr.dtype.itemsize, val.shape[1])]
                            arr[s3] = full.view(arr.dtype).reshape(-1)[s3]
                pcs[sub] = cs.ret[sub, dv]
    return go
