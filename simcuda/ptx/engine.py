"""The vectorised SIMT interpreter: every thread of a launch is a lane of numpy arrays.

Why this file is long (over ~700 lines): a launch's state and its one vectorised memory path for every address space
share the per-lane arrays of one class.

One array per PTX register (storage by width: ``bool`` for predicates, ``uint16``/``uint32``/``uint64``; an
instruction views it with its own type), a per-lane PC. Each step runs the instruction at the lowest PC among the
runnable lanes, for exactly those lanes, which reconverges divergent paths; lanes that take a backward branch while
other lanes wait elsewhere are parked until no unparked lane is left (so a spinning lane yields to the lanes it waits
for). ``bar.sync`` needs no work: lanes that reach it run it only once no lane of the lane set is at a lower PC.

Address spaces: global and host memory go through ``Memory.region`` (strict bounds unless ``gpu_like()``, [I]);
shared memory is one array per block of the lane set, local memory one per lane. Generic addresses of shared and
local memory live in windows at :data:`SHARED_WINDOW` and :data:`LOCAL_WINDOW` (above any device address).

Faults (spec section 17): a global access outside every region -> 700; a misaligned access -> 716; a shared or
local access past the window -> 700 [I] (what the GPU gives for shared out of range); ``trap`` -> 719;
``__assertfail`` -> 710.

Floating point: ``fma.rn.f32``/``mad.f32`` are exact (product in float64 is exact, the sum is rounded to odd and
then to float32). ``fma.f64`` is computed as ``a*b+c`` with a TwoProduct correction (Dekker split), exact except when
an intermediate overflows. ``.approx`` functions use numpy's correctly or nearly-correctly rounded ones (they may
differ from the GPU's by ulps); ``.ftz`` is not applied [I].
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .interface import LAUNCH_TIMEOUT, Fault, Hooks, LaunchStats, Memory, Unsupported
from .parse import TYPE_SIZES, Func, Ins, ParsedModule, parse_int
from .values import (
    _DT,
    _SGN,
    _SPECIAL,
    _STORE,
    _UNS,
    CLOCK_GHZ,
    EXIT,
    LOCAL_WINDOW,
    PARAM_WINDOW,
    SHARED_WINDOW,
    SPIN_YIELD,
    WINDOW_SIZE,
)


class _Launch:
    """The state of one lane set (a chunk of blocks) of one launch, and the closures that run it."""

    def __init__(self, mod: ParsedModule, func: Func, grid: tuple[int, int, int], block: tuple[int, int, int],
                 blocks: list[tuple[int, int, int]], dyn: int, params: bytes, memory: Memory, hooks: Hooks,
                 variables: dict[str, int], stats: LaunchStats, kernel: str, shared_layout: dict[str, int],
                 shared_size: int) -> None:
        self.mod, self.func, self.grid, self.block, self.blocks = mod, func, grid, block, blocks
        self.memory, self.hooks, self.variables, self.stats, self.kernel = memory, hooks, variables, stats, kernel
        self.params = params
        self.strict = not memory.gpu_like()
        nt = block[0] * block[1] * block[2]
        self.tpb = tpb = (nt + 31) // 32 * 32
        nb = len(blocks)
        self.n = n = nb * tpb
        self.alive0, self.blk, g, geo = _geometry(grid, block, tuple(blocks))
        b = self.blk
        self.sreg: dict[str, Any] = dict(geo)
        self.sreg.update({"%dynamic_smem_size": np.uint32(dyn), "%total_smem_size": np.uint32(shared_size + dyn)})
        self.sreg["%lanemask_ge"] = ~self.sreg["%lanemask_lt"]
        self.sreg["%lanemask_gt"] = ~self.sreg["%lanemask_le"]
        for e in range(32):
            self.sreg[f"%envreg{e}"] = np.uint32(0)
        self.shared_layout = shared_layout
        # the bounds checks use the declared size; each block's window starts on a 16-byte boundary so the typed
        # views of the backing buffer line up whatever the size (a `.b8 smem[26]` is legal PTX)
        self.shsize = shsize = max(16, shared_size + dyn)
        stride = _pad16(shsize)
        self.shared = np.zeros(nb * stride + 16, dtype=np.uint8)
        self.shbase = (b * stride).astype(np.int64)
        lsize = 16
        self.local_layout: dict[str, int] = {}
        off = 0
        for v in func.locals:
            if v.space in ("local", "param"):
                off = (off + v.align - 1) // v.align * v.align
                self.local_layout[v.name] = off
                off += v.size
        self.lsize = lsize = max(16, (off + 15) // 16 * 16, lsize)
        self.local = np.zeros(n * lsize, dtype=np.uint8)
        self.lbase = g * lsize
        self.regs: dict[str, np.ndarray] = {}
        for name, ty in func.regs.items():
            self.regs[name] = np.zeros(n, dtype=np.bool_ if ty == "pred" else _STORE[TYPE_SIZES[ty]])
        for name, k in func.vregs.items():  # the ISA's other element names of a vector register
            for comp, alias in zip("xyzw"[:k], "rgba", strict=False):
                self.regs[f"{name}.{alias}"] = self.regs[f"{name}.{comp}"]
        self.clock = 0
        import time
        self.t0 = time.perf_counter_ns()
        self.region_cache: list[Any] = []
        self.cp_pending: list[Callable[[], None]] = []
        self._param_off: dict[str, int] = {}
        self.func_addresses: dict[str, int] = {}
        self.calls: Any = None  # a CallState when the kernel makes real calls (simcuda.ptx.calls)

    # --- operands -------------------------------------------------------------------------------------------
    def reg(self, name: str) -> np.ndarray:
        r = self.regs.get(name)
        if r is None:
            raise Unsupported(f"kernel {self.kernel}: register {name} is not declared")
        return r

    def getter(self, op: str, ty: str) -> Callable[[], Any]:
        """A closure returning operand ``op`` read as PTX type ``ty`` (array over lanes or numpy scalar)."""
        op = op.strip()
        dt = _DT[ty]
        if op.startswith("!"):
            inner = self.getter(op[1:], "pred")
            return lambda: ~inner()
        base = op.split(".")[0]
        if op in self.regs:
            arr = self.regs[op]
            if arr.dtype == np.bool_:
                if ty == "pred":
                    return lambda: arr
                return lambda: arr.astype(dt)
            if arr.dtype.itemsize == np.dtype(dt).itemsize:
                v: Any = arr.view(dt)
                return lambda: v
            if np.dtype(dt).kind == "f":
                u = _UNS[np.dtype(dt).itemsize]
                return lambda: arr.astype(u).view(dt)
            if ty.startswith("s"):
                sv = arr.view(_SGN[arr.dtype.itemsize])
                return lambda: sv.astype(dt)
            return lambda: arr.astype(dt)
        if base in _SPECIAL or base.rstrip("0123456789") in _SPECIAL:
            if op in ("%clock", "%clock64"):
                import time
                t0 = self.t0

                def clock() -> Any:
                    # [I] one cycle per instruction step plus wall time at CLOCK_GHZ, so that a timeout loop
                    # written against the device's clock rate ends in about the time it names
                    c = self.clock + int((time.perf_counter_ns() - t0) * CLOCK_GHZ)
                    return np.array(c & 0xFFFFFFFFFFFFFFFF, dtype=np.uint64).astype(dt)
                return clock
            if op.startswith("%globaltimer"):
                import time
                return lambda: np.array(time.monotonic_ns(), dtype=np.uint64).astype(dt)
            val = self.sreg.get(op)
            if val is None:
                raise Unsupported(f"kernel {self.kernel}: special register {op} is not supported")
            c = np.asarray(val).astype(dt) if np.ndim(val) else dt(val)
            return lambda: c
        v = self.immediate(op, ty)
        return lambda: v

    def immediate(self, op: str, ty: str) -> Any:
        dt = _DT[ty]
        if op[:2] in ("0f", "0F") and len(op) == 10:
            bits = np.array(int(op[2:], 16), dtype=np.uint32).view(np.float32)
            return dt(bits) if np.dtype(dt).kind == "f" else np.array(int(op[2:], 16)).astype(dt)
        if op[:2] in ("0d", "0D") and len(op) == 18:
            bits = np.array(int(op[2:], 16), dtype=np.uint64).view(np.float64)
            return dt(bits) if np.dtype(dt).kind == "f" else np.array(int(op[2:], 16)).astype(dt)
        if op in self.func_addresses and op not in self.variables:
            return dt(self.func_addresses[op]) if np.dtype(dt).kind != "f" else dt(0)
        if op in self.variables or op in self.shared_layout or op in self.local_layout or \
                any(v.name == op for v in self.func.params):
            return dt(self.symbol(op)) if np.dtype(dt).kind != "f" else dt(0)
        try:
            if np.dtype(dt).kind == "f":
                return dt(float(op))
            v = parse_int(op)
            return np.array(v % (1 << (8 * np.dtype(dt).itemsize))).astype(_UNS[np.dtype(dt).itemsize]).view(dt)[()] \
                if np.dtype(dt).itemsize < 8 or v >= 0 else np.int64(v).view(dt) if ty != "s64" else np.int64(v)
        except ValueError:
            raise Unsupported(f"kernel {self.kernel}: operand {op!r} is not understood") from None

    def symbol(self, name: str) -> int:
        """The address of a variable in its own space (shared/local offset, global device address)."""
        if name in self.shared_layout:
            return self.shared_layout[name]
        if name in self.local_layout:
            return self.local_layout[name]
        if name in self.variables:
            return self.variables[name]
        for p in self.func.params:
            if p.name == name:
                return PARAM_WINDOW + int(self._param_off[name])
        raise Unsupported(f"kernel {self.kernel}: symbol {name} has no address")

    def setter(self, op: str, ty: str) -> Callable[[Any, Any], None]:
        """A closure writing a value of type ``ty`` to register ``op`` for the lanes of ``mask`` (None: all)."""
        arr = self.reg(op.strip())
        if arr.dtype == np.bool_:
            def setp(val: Any, mask: Any) -> None:
                if mask is None:
                    arr[...] = val
                else:
                    np.copyto(arr, val, where=mask)
            return setp
        dt = np.dtype(_DT[ty])
        if arr.dtype.itemsize == dt.itemsize:
            view = arr.view(dt)

            def set_same(val: Any, mask: Any) -> None:
                if mask is None:
                    view[...] = val
                else:
                    np.copyto(view, val, where=mask, casting="unsafe")
            return set_same
        signed = ty.startswith("s")

        def set_conv(val: Any, mask: Any) -> None:
            v = np.asarray(val)
            if v.dtype.kind == "f":
                v = v.view(_UNS[v.dtype.itemsize])
            elif signed:
                v = v.astype(_SGN[v.dtype.itemsize], copy=False)
                v = v.astype(_SGN[arr.dtype.itemsize]).view(arr.dtype) if v.ndim else \
                    np.array(v).astype(_SGN[arr.dtype.itemsize]).view(arr.dtype)
            v = v.astype(arr.dtype, copy=False)
            if mask is None:
                arr[...] = v
            else:
                np.copyto(arr, v, where=mask, casting="unsafe")
        return set_conv

    def elements(self, op: str, vec: int) -> list[str]:
        """The element operands of a vector operand: ``{a, b, ...}`` or a vector register (``.reg .v4``)."""
        op = op.strip()
        if op.startswith("{"):
            return [x.strip() for x in op.strip("{} ").split(",")]
        k = self.func.vregs.get(op)
        if k is not None:
            return [f"{op}.{c}" for c in "xyzw"[:k]][:vec]
        return [op]

    # --- addresses and memory -----------------------------------------------------------------------------
    def address(self, op: str) -> tuple[str | None, Callable[[], Any], int]:
        """``[base+off]`` -> (symbol name or None, closure giving the base as uint64 lanes, offset)."""
        inner = op.strip()[1:-1].replace(" ", "")
        off = 0
        base = inner
        for sep in ("+", "-"):
            k = inner.rfind(sep)
            if k > 0:
                base, tail = inner[:k], inner[k:]
                try:
                    off = parse_int(tail.replace("+-", "-").lstrip("+"))
                except ValueError:
                    base, off = inner, 0
                break
        if base.endswith("+"):
            base = base[:-1]
        if base in self.regs:
            g = self.getter(base, "u64")
            return None, g, off
        if base.lstrip("-").replace("x", "").isalnum() and base[0].isdigit():
            v = parse_int(base)
            return None, (lambda: np.uint64(v)), off
        return base, (lambda: np.uint64(0)), off

    def where(self, ins: Ins, mask: Any, addr: Any, code: int, why: str) -> Fault:
        """A Fault naming the kernel, the first offending lane's block and thread, line, address."""
        lanes = np.flatnonzero(np.broadcast_to(mask, (self.n,))) if mask is not None else np.arange(self.n)
        k = int(lanes[0]) if len(lanes) else 0
        b = self.blocks[k // self.tpb]
        t = k % self.tpb
        th = (t % self.block[0], t // self.block[0] % self.block[1], t // (self.block[0] * self.block[1]))
        a = int(np.broadcast_to(addr, (self.n,))[k]) if addr is not None else None
        astr = f" at address {a:#x}" if a is not None else ""
        return Fault(code, f"kernel {self.kernel}: block {b}, thread {th}: {why}{astr}, PTX line {ins.line} "
                           f"({ins.text.strip()})", kernel=self.kernel, block=b, thread=th, line=ins.line,
                     address=a)

    def _regions(self, ins: Ins, addrs: np.ndarray, size: int, lanes: np.ndarray
                 ) -> list[tuple[np.ndarray | None, np.ndarray | None, np.ndarray]]:
        """Split global addresses into (selector into ``addrs``, region byte array, byte offsets)."""
        out: list[tuple[np.ndarray | None, np.ndarray | None, np.ndarray]] = []
        rest: np.ndarray | None = None
        pending = addrs
        sel_all = None
        while True:
            hit = None
            if len(pending) == 0:
                break
            for r in self.region_cache:
                lo = int(pending.min())
                if r.start <= lo and int(pending.max()) + size <= r.start + r.size:
                    hit = r
                    break
            if hit is not None:
                out.append((sel_all, hit.data, (pending - np.uint64(hit.start)).view(np.int64)))
                break
            # slow path: find the regions one by one
            a0 = int(pending[0])
            r = self.memory.region(a0)
            if r is None or a0 + size > r.start + r.size:
                if not self.strict and r is None and self.memory.region(a0 & ~0xFFF) is not None:
                    r = None
                elif not self.strict and r is not None:
                    pass
                else:
                    full = np.zeros(self.n, dtype=np.uint64)
                    full[lanes[sel_all] if sel_all is not None else lanes] = pending if sel_all is None else 0
                    m = np.zeros(self.n, dtype=bool)
                    m[(lanes if sel_all is None else lanes[sel_all])[0]] = True
                    full[m] = a0
                    raise self.where(ins, m, full, 700, "global access outside every allocation")
                inside = pending == pending[0]
                idx = np.flatnonzero(inside) if sel_all is None else sel_all[inside]
                out.append((idx, None, np.zeros(len(idx), dtype=np.int64)))
            else:
                if r not in self.region_cache:
                    self.region_cache.insert(0, r)
                    del self.region_cache[8:]
                inside = (pending >= np.uint64(r.start)) & (pending + np.uint64(size) <= np.uint64(r.start + r.size))
                idx = np.flatnonzero(inside) if sel_all is None else sel_all[inside]
                out.append((idx, r.data, (pending[inside] - np.uint64(r.start)).astype(np.int64)))
            keep = ~inside
            rest = np.flatnonzero(keep) if sel_all is None else sel_all[keep]
            pending = pending[keep]
            sel_all = rest
        return out

    def _lanes(self, mask: Any) -> np.ndarray:
        return np.arange(self.n) if mask is None else np.flatnonzero(mask)

    def mem_access(self, ins: Ins, space: str, dt: np.dtype, vec: int, aop: str
                   ) -> Callable[[Any, Any], Any]:
        """A closure ``(mask, values|None) -> values`` loading (values None) or storing ``vec`` elements."""
        sym, base, off = self.address(aop)
        size = dt.itemsize
        total = size * vec
        if sym is not None:
            if space == "param" and any(p.name == sym for p in self.func.params) and sym not in self.local_layout:
                o = self._param_off[sym] + off
                vals = [np.frombuffer(self.params, dtype=dt, count=1, offset=o + i * size)[0] for i in range(vec)]
                return lambda mask, values: vals
            if sym in self.shared_layout:
                space = "shared" if space in ("shared", "generic") else space
                off += self.shared_layout[sym]
            elif sym in self.local_layout:
                space = "local" if space in ("local", "param", "generic") else space
                off += self.local_layout[sym]
            elif sym in self.variables:
                off += self.variables[sym]
                space = "global"
            else:
                raise Unsupported(f"kernel {self.kernel}: unknown symbol {sym} at PTX line {ins.line}")
        via_param = space == "param"
        if space == "param":
            space = "local"
        offu = np.uint64(off % (1 << 64))
        n = self.n
        alm = np.uint64(total - 1)  # vector and scalar access sizes are powers of two
        shift = size.bit_length() - 1

        def addr_of(mask: Any) -> np.ndarray:
            a = np.asarray(base(), dtype=np.uint64) + offu
            a = np.broadcast_to(a, (n,))
            return a if mask is None else a[mask]

        def window(buf: np.ndarray, lbase: np.ndarray, limit: int, name: str) -> Callable[[Any, Any], Any]:
            view = buf.view(dt)

            def go(mask: Any, values: Any) -> Any:
                a = addr_of(mask)
                if space == "generic":
                    a = a - np.uint64(SHARED_WINDOW if name == "shared" else LOCAL_WINDOW)
                lb = lbase if mask is None else lbase[mask]
                if len(a) and int(a.max()) + total > limit:
                    bad = a + np.uint64(total) > np.uint64(limit)
                    m = np.zeros(n, dtype=bool)
                    m[self._lanes(mask)[bad]] = True
                    raise self.where(ins, m, addr_of(None), 700, f"{name} access out of range")
                if np.bitwise_and(a, alm).any():
                    m = np.zeros(n, dtype=bool)
                    m[self._lanes(mask)[np.bitwise_and(a, alm) != 0]] = True
                    raise self.where(ins, m, addr_of(None), 716, f"misaligned {name} access")
                e = (lb + a.astype(np.int64)) >> shift
                if values is None:
                    return [view[e + i] for i in range(vec)]
                for i in range(vec):
                    v = values[i]
                    view[e + i] = v if mask is None or np.ndim(v) == 0 else v[mask]
                return None
            return go

        sh = window(self.shared, self.shbase, self.shsize, "shared")
        lo = window(self.local, self.lbase, self.lsize, "local")
        pbuf = np.frombuffer(self.params, dtype=np.uint8)
        psize = len(self.params)

        def kparam(mask: Any, values: Any) -> Any:
            # the kernel's parameter buffer through its address (read-only [I]: a store faults 700)
            a = addr_of(mask) - np.uint64(PARAM_WINDOW)
            if values is not None:
                raise self.where(ins, mask, addr_of(None), 700, "store to a kernel parameter")
            if len(a) and int(a.max()) + total > psize:
                m = np.zeros(n, dtype=bool)
                m[self._lanes(mask)[a + np.uint64(total) > np.uint64(psize)]] = True
                raise self.where(ins, m, addr_of(None), 700, "kernel parameter access out of range")
            if np.bitwise_and(a, alm).any():
                m = np.zeros(n, dtype=bool)
                m[self._lanes(mask)[np.bitwise_and(a, alm) != 0]] = True
                raise self.where(ins, m, addr_of(None), 716, "misaligned kernel parameter access")
            e = a.astype(np.int64)
            return [pbuf[(e + i * size)[:, None] + np.arange(size)].copy().view(dt).reshape(-1) if len(e) else
                    np.zeros(0, dt) for i in range(vec)]

        def in_param(mask: Any) -> Any:
            a = np.broadcast_to(np.asarray(base(), dtype=np.uint64) + offu, (n,))
            act = np.ones(n, dtype=bool) if mask is None else mask
            return act & (a >= np.uint64(PARAM_WINDOW)) & (a < np.uint64(PARAM_WINDOW + WINDOW_SIZE))

        def glob(mask: Any, values: Any, a: np.ndarray | None = None, lanes: np.ndarray | None = None) -> Any:
            if a is None:
                a = addr_of(mask)
            if lanes is None:
                lanes = self._lanes(mask)
            if np.bitwise_and(a, alm).any():
                m = np.zeros(n, dtype=bool)
                m[lanes[np.bitwise_and(a, alm) != 0]] = True
                raise self.where(ins, m, np.broadcast_to(np.asarray(base(), dtype=np.uint64) + offu, (n,)),
                                 716, "misaligned global access")
            parts = self._regions(ins, a, total, lanes)
            if values is None:
                res = [np.zeros(len(a), dtype=dt) for _ in range(vec)]
                for sel, data, bo in parts:
                    if data is None:
                        continue
                    v = data[: len(data) // size * size].view(dt) if not (bo & (size - 1)).any() else None
                    for i in range(vec):
                        if v is not None:
                            x = v[bo // size + i]
                        else:
                            x = np.array([data[o + i * size:o + (i + 1) * size].view(dt)[0] for o in bo], dtype=dt)
                        if sel is None:
                            res[i] = x
                        else:
                            res[i][sel] = x
                return res
            for sel, data, bo in parts:
                if data is None:
                    continue
                # a region whose start is not aligned to the access size (host memory registered at any address)
                # is written byte by byte, as the load above reads it
                v = data[: len(data) // size * size].view(dt) if not (bo & (size - 1)).any() else None
                for i in range(vec):
                    x = values[i]
                    if np.ndim(x):
                        x = x if mask is None else x[mask]
                        x = x if sel is None else x[sel]
                    if v is not None:
                        v[bo // size + i] = x
                    else:
                        xs = np.ascontiguousarray(np.broadcast_to(np.asarray(x).astype(dt), bo.shape))
                        data[(bo + i * size)[:, None] + np.arange(size)] = xs.view(np.uint8).reshape(len(bo), size)
            return None

        def scatter(mask: Any, parts: list[tuple[Any, Callable[..., Any]]], values: Any) -> Any:
            # generic: route each lane to its window
            res = [np.zeros(n, dtype=dt) for _ in range(vec)] if values is None else None
            for m, fn in parts:
                if not m.any():
                    continue
                r = fn(m, values)
                if res is not None:
                    for i in range(vec):
                        res[i][m] = r[i]
            return None if res is None else (res if mask is None else [x[mask] for x in res])

        if space == "shared":
            return sh
        if via_param and sym is None:
            def par(mask: Any, values: Any) -> Any:  # .param through a register: kernel params or local
                kp = in_param(mask)
                if not kp.any():
                    return lo(mask, values)
                act = np.ones(n, dtype=bool) if mask is None else mask
                return scatter(mask, [(kp, kparam), (act & ~kp, lo)], values)
            return par
        if space == "local":
            return lo
        if space in ("global", "const"):
            return glob
        if space != "generic":
            raise Unsupported(f"kernel {self.kernel}: state space .{space} at PTX line {ins.line}")

        def gen(mask: Any, values: Any) -> Any:
            a = np.broadcast_to(np.asarray(base(), dtype=np.uint64) + offu, (n,))
            act = np.ones(n, dtype=bool) if mask is None else mask
            ins_sh = act & (a >= np.uint64(SHARED_WINDOW)) & (a < np.uint64(SHARED_WINDOW + WINDOW_SIZE))
            ins_lo = act & (a >= np.uint64(LOCAL_WINDOW)) & (a < np.uint64(LOCAL_WINDOW + WINDOW_SIZE))
            if not ins_sh.any() and not ins_lo.any() and not (a >= np.uint64(PARAM_WINDOW)).any():
                return glob(mask, values)
            gl = act & ~ins_sh & ~ins_lo
            kp = in_param(mask)
            if kp.any():
                return scatter(mask, [(ins_sh, sh), (ins_lo, lo), (kp, kparam), (gl & ~kp, glob)], values)
            return scatter(mask, [(ins_sh, sh), (ins_lo, lo), (gl, glob)], values)
        return gen

    # --- instructions ---------------------------------------------------------------------------------------
    def expand(self, vals: Any, mask: Any, dt: Any) -> Any:
        """Compressed per-active-lane values -> a full lane array (inactive lanes zero)."""
        if mask is None:
            return vals
        full = np.zeros(self.n, dtype=dt)
        full[mask] = vals
        return full

    def compile(self, ins: Ins, labels: dict[str, int]) -> tuple[int, Any]:
        """(kind, payload): kind 0 = a closure ``fn(mask)``; 1 = branch (target, pred getter or None);
        2 = exit; 3 = barrier-like no-op."""
        from . import ops
        return ops.compile_ins(self, ins, labels)


@functools.lru_cache(maxsize=4)
def _geometry(grid: tuple[int, int, int], block: tuple[int, int, int], blocks: tuple[tuple[int, int, int], ...]
              ) -> tuple[Any, Any, Any, dict[str, Any]]:
    """Lane geometry of a lane set (cached: repeat launches of one shape reuse it): alive lanes, block index
    per lane, lane index, special registers that depend only on the shape."""
    nt = block[0] * block[1] * block[2]
    tpb = (nt + 31) // 32 * 32
    nb = len(blocks)
    n = nb * tpb
    g = np.arange(n, dtype=np.int64)
    t = g % tpb
    b = g // tpb
    tid = np.minimum(t, nt - 1)
    bl = np.array(blocks, dtype=np.uint32).reshape(nb, 3)
    sreg: dict[str, Any] = {
        "%tid.x": (tid % block[0]).astype(np.uint32), "%tid.y": (tid // block[0] % block[1]).astype(np.uint32),
        "%tid.z": (tid // (block[0] * block[1])).astype(np.uint32),
        "%ctaid.x": bl[b, 0], "%ctaid.y": bl[b, 1], "%ctaid.z": bl[b, 2],
        "%laneid": (t % 32).astype(np.uint32), "%warpid": (t // 32).astype(np.uint32),
    }
    for k, d in zip("xyz", block, strict=True):
        sreg[f"%ntid.{k}"] = np.uint32(d)
    for k, d in zip("xyz", grid, strict=True):
        sreg[f"%nctaid.{k}"] = np.uint32(d)
    lane = (t % 32).astype(np.uint32)
    one = np.uint32(1)
    sreg.update({"%nwarpid": np.uint32(tpb // 32), "%smid": (b % 132).astype(np.uint32),
                      "%nsmid": np.uint32(132), "%gridid": np.uint64(1), "%warpsize": np.uint32(32),
                      "%lanemask_eq": (one << lane), "%lanemask_lt": ((one << lane) - one),
                      "%lanemask_le": ((one << lane) - one) | (one << lane)})
    return t < nt, b, g, sreg


def _read_bytes(self: _Launch, ins: Ins, lane: int, addr: int, size: int) -> bytes:
    """``size`` bytes at generic ``addr`` as lane ``lane`` sees them."""
    if LOCAL_WINDOW <= addr < LOCAL_WINDOW + WINDOW_SIZE:
        o = int(self.lbase[lane]) + addr - LOCAL_WINDOW
        return bytes(self.local[o:o + size])
    if SHARED_WINDOW <= addr < SHARED_WINDOW + WINDOW_SIZE:
        o = int(self.shbase[lane]) + addr - SHARED_WINDOW
        return bytes(self.shared[o:o + size])
    r = self.memory.region(addr)
    if r is None:
        m = np.zeros(self.n, bool)
        m[lane] = True
        raise self.where(ins, m, np.full(self.n, addr, np.uint64), 700, "read outside every allocation")
    o = addr - r.start
    return bytes(r.data[o:o + size])


def _read_cstring(self: _Launch, ins: Ins, lane: int, addr: int) -> str:
    out = bytearray()
    while len(out) < 65536:
        b = _read_bytes(self, ins, lane, addr + len(out), 1)
        if b == b"\0" or not b:
            break
        out += b
    return out.decode("utf-8", "replace")


_Launch.read_bytes = _read_bytes  # type: ignore[attr-defined]
_Launch.read_cstring = _read_cstring  # type: ignore[attr-defined]


def _fingerprint(L: _Launch, pcs: Any, skip: frozenset[str] = frozenset()) -> Any:
    """A cheap digest of the lane set's state: the PCs and every register not in ``skip`` at up to 64 sampled
    lanes (equal digests a few thousand back edges apart mean the lanes spin without changing anything)."""
    idx = np.linspace(0, L.n - 1, num=min(64, L.n)).astype(np.int64)
    parts = [b"" if pcs is None else pcs[idx].tobytes()]
    parts += [r[idx].tobytes() for k, r in L.regs.items() if k not in skip]
    return hash(b"".join(parts))


_REG_TOKEN = re.compile(r"%[\w$.]+")
_CLOCKS = ("%clock", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi")


def clock_registers(f: Func) -> frozenset[str]:
    """The registers of ``f`` whose value may come from a clock (``%clock``, ``%clock64``, ``%globaltimer``),
    directly or through other instructions (a flow-insensitive fixpoint over the body): a timeout loop changes
    them on every turn while it waits, so the stall fingerprint of :func:`run` leaves them out [I]."""
    tainted: set[str] = set()
    changed = True
    while changed:
        changed = False
        for ins in f.body:
            if not ins.ops or ins.ops[0].lstrip().startswith("["):
                continue  # no register destination (a store's address operand, a branch with no operands)
            srcs = " ".join(ins.ops[1:])
            if not any(c in srcs for c in _CLOCKS) and not any(t in tainted for t in _REG_TOKEN.findall(srcs)):
                continue
            for d in _REG_TOKEN.findall(ins.ops[0]):
                if d in f.regs and d not in tainted:
                    tainted.add(d)
                    changed = True
    return frozenset(tainted)


class _Stall:
    """The stall checkpoints of :func:`run`: the last sample (lanes alive, fingerprint) and how many samples in a
    row have repeated it."""

    __slots__ = ("skip", "last", "quiet")

    def __init__(self, skip: frozenset[str]) -> None:
        self.skip, self.quiet = skip, 0
        self.last: Any = None

    def stalled(self, L: _Launch, pcs: Any, lane_count: int) -> bool:
        """Take a sample; True at a checkpoint: :data:`STALL_CHECKS` unchanged samples in a row, and every
        unchanged one after them."""
        now = (lane_count if pcs is None else int((pcs < EXIT).sum()), _fingerprint(L, pcs, self.skip))
        if now != self.last:
            self.last, self.quiet = now, 0
            return False
        self.quiet += 1
        return self.quiet >= STALL_CHECKS


#: back edges between two stall samples of :func:`run` (a power of two)
STALL_SAMPLE = 1024
#: consecutive stall samples with no change before :func:`run` yields (suspends) [I]
STALL_CHECKS = 2


def run(L: _Launch, code: list[tuple[int, Any]], should_stop: Callable[[], bool] | None,
        stall_limit_s: float | None = None) -> Iterator[None]:
    """Run the lane set to completion (see the module docstring for the scheduling rule): a generator that
    yields at each *stall checkpoint* and returns when every lane has exited; the caller resumes it (or
    not) with ``next``, and memory is read afresh after a resume, so a host write made meanwhile is seen.

    Stall checkpoints (``stall_limit_s`` None, the grid fits one lane set): every :data:`STALL_SAMPLE` back
    edges the lanes still alive and a fingerprint of the sampled lanes' PCs and registers (the
    :func:`clock_registers` left out) are taken; after :data:`STALL_CHECKS` samples in a row with no lane
    finishing and the fingerprint unchanged the lanes are taken to spin on something outside the lane set
    (the host, another stream's work) and the run yields, and again at every unchanged sample after that:
    deterministic, no wall clock (docs/spec-proposals.md P-74) [I].
    :meth:`simcuda.ptx.module.PtxModule.launch` resumes at once (run to completion); the driver keeps the
    launch in flight on its stream (:mod:`simcuda._core.work`).

    ``stall_limit_s`` (given when the grid runs in several lane sets; no checkpoints then): when every
    runnable lane has been spinning (taking back edges with no lane finishing and their registers, sampled,
    unchanged) for that long, the lanes are taken to wait for a block of a later lane set, which cannot run
    before this one ends: Fault 702 (``CUDA_ERROR_LAUNCH_TIMEOUT``, what a GPU whose watchdog ends a hung
    kernel gives) [I]."""
    import time
    stalled_since = time.monotonic()
    last_left: Any = None
    stall = _Stall(clock_registers(L.func)) if stall_limit_s is None else None
    limit = stall_limit_s or 0.0
    calls = L.calls
    n = L.n
    alive = L.alive0.copy()
    all_alive = bool(alive.all())
    pc = 0
    mask: Any = None if all_alive else alive
    pcs: Any = None
    parked: Any = None
    stats = L.stats
    lane_count = int(alive.sum())
    count = lane_count
    steps = 0
    backs = 0
    spins = 0
    ncode = len(code)
    while True:
        if pcs is not None:
            cand = pcs if not parked.any() else np.where(parked, EXIT, pcs)
            if calls is not None and calls.depth.any():
                pc, m = calls.select(cand)
            else:
                pc = int(cand.min())
                m = None
            if pc >= EXIT:
                if (pcs >= EXIT).all():
                    break
                parked[:] = False
                backs = 0
                continue
            if m is None:
                m = pcs == pc
            count = int(m.sum())
            if count == int((pcs < EXIT).sum()):
                alive = pcs < EXIT
                lane_count = count
                mask = None if count == n else alive
                pcs = parked = None
            else:
                mask = m
        payload: Any
        if pc >= ncode:
            kind, payload = 2, None
        else:
            kind, payload = code[pc]
        steps += 1
        L.clock += 1
        stats.instructions += 1
        stats.lane_instructions += count
        if kind == 0:
            payload(mask)
            nxt = pc + 1
            if pcs is None:
                pc = nxt
            else:
                pcs[mask] = nxt
            continue
        if kind in (5, 6):  # a real call or a function's ret: per-lane PCs from here on
            if pcs is None:
                pcs = np.full(n, EXIT, dtype=np.int32)
                pcs[alive] = pc
                parked = np.zeros(n, bool)
            payload(alive if mask is None else mask, pcs, pc)
            continue
        if kind == 3:
            if pcs is None:
                pc += 1
            else:
                pcs[mask] = pc + 1
            continue
        if kind == 1:
            target, guard = payload
            back = target <= pc
            if back:
                backs += 1
                spins += 1
                if spins % 4096 == 0 and should_stop is not None and should_stop():
                    raise Fault(719, f"kernel {L.kernel}: interrupted while spinning")
                if stall is not None:
                    if spins % STALL_SAMPLE == 0 and stall.stalled(L, pcs, lane_count):
                        yield  # a stall checkpoint: the caller resumes now or later
                elif spins % 4096 == 0:
                    left = (lane_count if pcs is None else int((pcs < EXIT).sum()), _fingerprint(L, pcs))
                    now = time.monotonic()
                    if left != last_left:
                        last_left, stalled_since = left, now
                    elif now - stalled_since > limit:
                        raise Fault(LAUNCH_TIMEOUT, f"kernel {L.kernel}: the threads of blocks {L.blocks[0]}.."
                                    f"{L.blocks[-1]} spin for {stall_limit_s:g} s with none finishing; the "
                                    f"grid runs in parts of {len(L.blocks)} blocks (at most 2**20 threads at "
                                    f"once), so a block that waits for a later part's block never ends [I]")
                # lanes yield on a back-edge only once they have looped SPIN_YIELD times in a divergent state
                # (a spin-wait); a shorter loop keeps lowest-PC-first order, which reconverges before the join
                back = pcs is not None and backs >= SPIN_YIELD
                if back:
                    backs = 0
            if guard is None:
                take: Any = True
            else:
                g = np.broadcast_to(guard(), (n,))
                take = g if mask is None else (g & mask)
            if pcs is None:
                if take is True:
                    pc = target
                    continue
                act = alive if mask is not None else None
                tk = take if act is None else (take & act)
                nt = int(tk.sum())
                if nt == 0:
                    pc += 1
                    continue
                if nt == lane_count:
                    pc = target
                    continue
                pcs = np.full(n, EXIT, dtype=np.int32)
                pcs[alive] = pc + 1
                pcs[tk] = target
                parked = np.zeros(n, bool)
                continue
            if take is True:
                pcs[mask] = target
                if back:
                    parked[mask] = True
            else:
                nott = mask & ~take
                pcs[take] = target
                pcs[nott] = pc + 1
                if back:
                    parked[take] = True
            continue
        # exit (2) or guarded exit (4)
        if kind == 2:
            ex = alive if mask is None else mask
        else:
            g = np.broadcast_to(payload(), (n,))
            ex = g & (alive if mask is None else mask)
        if pcs is None:
            if kind == 2 or int(ex.sum()) == lane_count:
                break
            pcs = np.full(n, EXIT, dtype=np.int32)
            pcs[alive] = pc + 1
            pcs[ex] = EXIT
            parked = np.zeros(n, bool)
        else:
            pcs[mask] = pc + 1
            pcs[ex] = EXIT


def _pad16(size: int) -> int:
    """``size`` bytes rounded up to a multiple of 16 (the stride of a padded backing buffer)."""
    return (size + 15) // 16 * 16
