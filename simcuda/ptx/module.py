"""The parsed module as the core sees it (:class:`PtxModule`), with inlining of ``.func`` calls and launch in
chunks of blocks."""
from __future__ import annotations

import itertools
import re
from collections.abc import Generator
from typing import Any

import numpy as np

from .interface import Hooks, KernelInfo, LaunchStats, Memory, Param, Unsupported
from .parse import TYPE_SIZES, Func, Ins, ParsedModule, Var
from .parse import call_names as _call_names
from .parse import call_target as _target
from .values import _REFUSED, FUNC_WINDOW, OWN_WINDOW

_MAX_INLINE = 64
#: seconds a lane set of a grid that runs in several may spin with no thread finishing before Fault 702 [I]
STALL_LIMIT_S = 20.0


def inline(mod: ParsedModule, f: Func, depth: int = 0, stack: tuple[str, ...] = ()) -> Func:
    """A copy of ``f`` whose calls to the module's own ``.func`` are replaced by the callee's body (registers and
    labels renamed, params and return values bound to the caller's ``.param`` variables by name). A call that
    would recurse (its callee is being inlined already: ``stack``) and an indirect call (through a register)
    stay calls, renamed ``__call``: they run as real calls into the function's segment (:func:`segments`)."""
    stack = (*stack, f.name)
    out = Func(f.name, f.entry, f.params, f.rets, regs=dict(f.regs), vregs=dict(f.vregs), locals=list(f.locals),
               maxntid=f.maxntid, reqntid=f.reqntid, line=f.line)
    inv = {v: k for k, v in f.labels.items()}
    labels_at: dict[int, list[str]] = {}
    for name, at in f.labels.items():
        labels_at.setdefault(at, []).append(name)
    count = 0
    seq: list[Ins | None] = [*f.body, None]
    for i, ins in enumerate(seq):
        for name in labels_at.get(i, []):
            out.labels[name] = len(out.body)
        if ins is None:
            break
        callee = _callee(mod, ins)
        if callee is None or callee in stack:
            if ins.parts[0] == "call" and (callee is not None or _target(ins).startswith("%")):
                ins = Ins(["__call", *ins.parts[1:]], ins.ops, ins.guard, ins.line, ins.text)
            out.body.append(ins)
            continue
        if depth > _MAX_INLINE:
            raise Unsupported(f"function {f.name}: calls nest deeper than {_MAX_INLINE}")
        g = inline(mod, mod.funcs[callee], depth + 1, stack)
        count += 1
        pre = f"__inl{depth}_{count}_"
        rets, args = _call_names(ins)
        ren = {p.name: a for p, a in zip(g.params, args)}
        ren.update({p.name: r for p, r in zip(g.rets, rets)})
        for r, ty in g.regs.items():
            out.regs[pre + r] = ty
            ren[r] = pre + r
        for r, k in g.vregs.items():
            out.vregs[pre + r] = k
            ren[r] = pre + r
        for v in g.locals:
            nv = Var(pre + v.name, v.space, v.ptype, v.size, v.align, v.init, v.extern)
            out.locals.append(nv)
            ren[v.name] = nv.name
        for ln in g.labels:
            ren[ln] = pre + ln
        end = pre + "__end"
        base = len(out.body)
        alt = "|".join(re.escape(k) for k in sorted(ren, key=len, reverse=True))
        pat = re.compile(r"(?<![\w$%.])(" + alt + r")(?![\w$])") if ren else None
        sub = _renamer(pat, ren)
        for gi in g.body:
            if gi.parts[0] == "ret":
                out.body.append(Ins(["bra"], [end], gi.guard and (sub(gi.guard[0]), gi.guard[1]), gi.line, gi.text))
                continue
            out.body.append(Ins(gi.parts, [sub(x) for x in gi.ops],
                                (sub(gi.guard[0]), gi.guard[1]) if gi.guard else None, gi.line, gi.text))
        for ln, at in g.labels.items():
            out.labels[pre + ln] = base + at
        out.labels[end] = len(out.body)
        # caller-side param variables must exist as locals (they are declared in the caller's body)
    del inv
    return out


def _renamer(pat: re.Pattern[str] | None, ren: dict[str, str]) -> Any:
    def sub(s: str) -> str:
        return pat.sub(lambda m: ren[m.group(1)], s) if pat else s
    return sub


def segments(mod: ParsedModule, kernel: Func) -> Func:
    """``kernel`` (already inlined) with the functions that its ``__call`` instructions reach appended as
    segments: each function's inlined body with its registers, labels and variables (its params and return
    params among them) renamed ``__seg<k>_...``, its ``ret`` turned into ``__segret``. The segment table is
    kept on the result (``seg_info``: function name -> (start, param variable names, ret variable names,
    register names, local variable names)). Indirect calls reach every function with a body."""
    out = Func(kernel.name, kernel.entry, kernel.params, kernel.rets, regs=dict(kernel.regs),
               vregs=dict(kernel.vregs), locals=list(kernel.locals), body=list(kernel.body),
               labels=dict(kernel.labels), maxntid=kernel.maxntid, reqntid=kernel.reqntid, line=kernel.line)
    info: dict[str, Any] = {}
    todo: list[str] = []

    def want(body: list[Ins]) -> None:
        for ins in body:
            if ins.parts[0] != "__call":
                continue
            t = _target(ins)
            # an indirect call's register may carry an inlining prefix (``__inl0_3_%rd2``): whatever is not a
            # function of the module is a register, and may reach every function with a body
            names = [t] if t in mod.funcs else \
                [n for n, g in mod.funcs.items() if not g.entry and not g.decl_only]
            for nm in names:
                if nm not in info and nm not in todo:
                    todo.append(nm)
    want(out.body)
    k = 0
    while todo:
        name = todo.pop(0)
        g = inline(mod, mod.funcs[name])
        pre = f"__seg{k}_"
        k += 1
        ren: dict[str, str] = {r: pre + r for r in g.regs}
        ren.update({r: pre + r for r in g.vregs})
        vars_ = [*g.params, *g.rets, *g.locals]
        ren.update({v.name: pre + v.name for v in vars_})
        ren.update({ln: pre + ln for ln in g.labels})
        alt = "|".join(re.escape(x) for x in sorted(ren, key=len, reverse=True))
        sub = _renamer(re.compile(r"(?<![\w$%.])(" + alt + r")(?![\w$])") if ren else None, ren)
        start = len(out.body)
        for r, ty in g.regs.items():
            out.regs[pre + r] = ty
        for r, kk in g.vregs.items():
            out.vregs[pre + r] = kk
        seg_locals = [Var(pre + v.name, "local" if v.space == "param" else v.space, v.ptype, v.size, v.align,
                          v.init, v.extern) for v in vars_]
        out.locals += seg_locals
        for gi in g.body:
            parts = ["__segret"] if gi.parts[0] == "ret" else gi.parts
            out.body.append(Ins(parts, [sub(x) for x in gi.ops],
                                (sub(gi.guard[0]), gi.guard[1]) if gi.guard else None, gi.line, gi.text))
        for ln, at in g.labels.items():
            out.labels[pre + ln] = start + at
        info[name] = (start, [pre + v.name for v in g.params], [pre + v.name for v in g.rets],
                      [pre + r for r in g.regs], [v.name for v in seg_locals if v.space in ("local",)])
        want(out.body[start:])
    out.seg_info = info  # type: ignore[attr-defined]
    return out


def _callee(mod: ParsedModule, ins: Ins) -> str | None:
    if ins.parts[0] != "call":
        return None
    name = _target(ins)
    f = mod.funcs.get(name)
    if f is None or f.decl_only or f.entry:
        return None
    return name


class _Own:
    """A buffer the engine owns (a :class:`~simcuda.ptx.interface.Region`)."""

    def __init__(self, start: int, data: np.ndarray) -> None:
        self.start, self.size, self.data = start, len(data), data


class _Overlay:
    """The core's :class:`~simcuda.ptx.interface.Memory` with the engine's own buffers (at OWN_WINDOW) laid
    over it."""

    def __init__(self, memory: Memory, own: list[_Own]) -> None:
        self._memory, self._own = memory, own

    def region(self, addr: int) -> Any:
        """The engine's buffer holding ``addr``, else the core's region."""
        if addr >= OWN_WINDOW:
            for r in self._own:
                if r.start <= addr < r.start + r.size:
                    return r
        return self._memory.region(addr)

    def gpu_like(self) -> bool:
        """As the core's memory says."""
        return self._memory.gpu_like()


class PtxModule:
    """A parsed PTX module: ``kernels`` (name -> :class:`KernelInfo`), ``variables`` (module-scope ``.global`` and
    ``.const`` variables: name -> (space, size, initial bytes)), ``target``.

    ``KernelInfo.num_regs`` [I]: the number of non-predicate ``.reg`` registers the kernel declares (after inlining
    its ``.func`` calls), at least 16 and capped at 255 (the sm_80 per-thread limit) and at the kernel's ``.maxnreg``
    (a real JIT allocates at most that many). ``static_shared``: the
    declared ``.shared`` variables of the kernel and the module, aligned; ``local``: the declared ``.local``
    variables; ``const``: the module's ``.const`` bytes.
    """

    def __init__(self, parsed: ParsedModule) -> None:
        self.parsed = parsed
        self.target = parsed.target
        self.variables: dict[str, tuple[str, int, bytes]] = {
            v.name: (v.space, v.size, v.init or bytes(v.size)) for v in parsed.variables
            if v.space in ("global", "const") and not v.extern}
        #: address initialisers of module variables: name -> ((byte offset, symbol, addend), ...); the core
        #: writes ``init`` bytes (zeros there) and :meth:`relocate` writes the addresses (an addition to the
        #: interface, issue 17 round 2)
        self.relocations: dict[str, tuple[tuple[int, str, int], ...]] = {
            v.name: tuple(v.relocs) for v in parsed.variables if v.relocs and not v.extern}
        #: the address of each function of the module (``mov.u64 %rd, fn``, indirect calls) [I]
        self.func_addresses: dict[str, int] = {
            name: FUNC_WINDOW + 16 * k for k, name in enumerate(parsed.funcs)}
        self._relocated: set[tuple[tuple[str, int], ...]] = set()
        self._own_vars: dict[str, _Own] = {}
        self._jit: dict[str, Any] = {}  # kernel -> its LLVM-engine kernel, or the Unsupported saying why not
        self._flat: dict[str, Func] = {}
        self.kernels: dict[str, KernelInfo] = {}
        for f in parsed.funcs.values():
            if f.entry and not f.decl_only:
                self.kernels[f.name] = self._info(f)

    def _jit_kernel(self, kernel: str, f: Func, shl: dict[str, int], ssize: int, info: KernelInfo,
                    must: bool) -> Any:
        """The kernel compiled by the LLVM engine (cached), or None where it cannot be (``must``: raise the
        :class:`Unsupported` saying why instead)."""
        hit = self._jit.get(kernel)
        if hit is None:
            from . import jit
            if not jit.available():
                hit = Unsupported("the LLVM engine needs llvmlite (pip install llvmlite)")
            elif any(v.space == "shared" and v.extern for v in f.locals + self.parsed.variables):
                hit = Unsupported("the LLVM engine does not run kernels with dynamic shared memory yet")
            else:
                try:
                    hit = jit.JitKernel(f, shl, ssize, {p.name: p.offset for p in info.params})
                except Unsupported as e:
                    hit = e
            self._jit[kernel] = hit
        if isinstance(hit, Unsupported):
            if must:
                raise Unsupported(f"kernel {kernel}: {hit.why}")
            return None
        return hit

    def _own_variables(self, variables: dict[str, int]) -> dict[str, int]:
        """``variables`` completed with engine-owned buffers (initial bytes, kept across launches of this
        module) for the module variables the core gave no address [I]: so a kernel using ``__device__`` or
        ``__constant__`` data runs even where the core does not allocate them (the host cannot reach those)."""
        missing = [k for k in self.variables if k not in variables]
        if not missing:
            return variables
        out = dict(variables)
        for name in missing:
            buf = self._own_vars.get(name)
            if buf is None:
                _space, size, init = self.variables[name]
                start = OWN_WINDOW + sum((b.size + 255) // 256 * 256 for b in self._own_vars.values())
                buf = self._own_vars[name] = _Own(start, np.frombuffer(bytearray(init.ljust(max(size, 1), b"\0")),
                                                                       np.uint8))
            out[name] = buf.start
        return out

    def start(self, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int], dynamic_shared: int,
              params: bytes, memory: Memory, hooks: Hooks, *, variables: dict[str, int] | None = None,
              envreg: dict[int, int] | None = None, sm_count: int | None = None) -> RunningLaunch:
        """:meth:`launch` as a resumable launch (an addition to the interface, issue 17): returns at once, before
        any thread ran, with a :class:`RunningLaunch` whose :meth:`~RunningLaunch.step` runs the kernel in the
        calling thread up to its next stall checkpoint (:func:`simcuda.ptx.engine.run`: its lanes spin with
        nothing changing) or its end. A kernel that spins until the host writes memory it reads (pinned or mapped
        host memory, cuda.core's latch kernel) ends at the first step after the host wrote it, since every step
        reads memory afresh; ``hooks.should_stop`` still interrupts it (Fault 719). A grid larger than one lane
        set has no checkpoints (its stall rule is the 702 of :meth:`launch`). The caller must not free memory the
        kernel reaches before the launch is done (docs/spec-proposals.md P-74)."""
        return RunningLaunch(self._begin(kernel, grid, block, dynamic_shared, params, memory, hooks,
                                         variables=variables, envreg=envreg, sm_count=sm_count))

    def relocate(self, variables: dict[str, int], memory: Memory) -> None:
        """Write the address initialisers of the module's variables (``.global .u64 p = generic(x);``): at
        each variable's address in ``variables`` (name -> device address), the 8-byte address of its symbol
        (a variable of ``variables``, or a function of the module) plus the addend. Done once per distinct
        ``variables`` map; :meth:`launch` calls it, so a core that allocates variables at load may call it
        there instead [I]. A symbol with no address is left zero."""
        key = tuple(sorted(variables.items()))
        if key in self._relocated or not self.relocations:
            return
        self._relocated.add(key)
        for name, rels in self.relocations.items():
            at = variables.get(name)
            if at is None:
                continue
            for off, sym, addend in rels:
                target = variables.get(sym, self.func_addresses.get(sym))
                if target is None:
                    continue
                r = memory.region(at + off)
                if r is None or at + off + 8 > r.start + r.size:
                    continue
                o = at + off - r.start
                r.data[o:o + 8] = np.frombuffer(((target + addend) % (1 << 64)).to_bytes(8, "little"), np.uint8)

    def flat(self, name: str) -> Func:
        """The kernel with its calls inlined (cached)."""
        if name not in self._flat:
            self._flat[name] = segments(self.parsed, inline(self.parsed, self.parsed.funcs[name]))
        return self._flat[name]

    def _info(self, f: Func) -> KernelInfo:
        params = []
        off = 0
        for p in f.params:
            off = (off + p.align - 1) // p.align * p.align
            params.append(Param(p.name, "." + p.ptype, p.size, p.align, off))
            off += p.size
        fl = self.flat(f.name)
        shared = _layout([v for v in fl.locals if v.space == "shared" and not v.extern] +
                         [v for v in self.parsed.variables if v.space == "shared" and not v.extern])[1]
        local = _layout([v for v in fl.locals if v.space == "local"])[1]
        const = sum(v.size for v in self.parsed.variables if v.space == "const")
        mt = f.maxntid or f.reqntid
        return KernelInfo(f.name, tuple(params), off, mt[0] * mt[1] * mt[2] if mt else None, f.reqntid, f.maxntid,
                          shared, local, const, _num_regs(fl, f.maxnreg),
                          f.line, f.reqnctapercluster, f.explicitcluster, f.maxclusterrank)

    def launch(self, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int], dynamic_shared: int,
               params: bytes, memory: Memory, hooks: Hooks, *,
               variables: dict[str, int] | None = None, envreg: dict[int, int] | None = None,
               engine: str | None = None, sm_count: int | None = None) -> LaunchStats:
        """See :meth:`simcuda.ptx.interface.Module.launch`: runs the launch to completion in the calling thread
        (through its stall checkpoints, :meth:`start`). ``engine`` (an addition, issue 17 round 2):
        ``"interp"`` the interpreter (the reference, and the default), ``"llvm"`` the LLVM engine
        (:mod:`simcuda.ptx.jit`; :class:`Unsupported` for a kernel outside its subset or without llvmlite),
        ``"auto"`` the LLVM engine where it can, else the interpreter; None reads ``SIMCUDA_PTX_ENGINE``
        (default ``interp``). The LLVM engine counts no lane instructions. The grid runs in chunks of whole
        blocks of at most
        2**20 lanes each; a grid that fits runs as one lane set (every block co-resident, which ``grid.sync``
        needs); a lane set of a larger grid that spins with no thread finishing for ``STALL_LIMIT_S`` raises
        Fault 702 (its blocks wait for a later lane set's) [I]. Module variables missing from ``variables``
        live in engine-owned memory kept with the module [I]; without ``envreg`` 1 and 2 the engine gives a
        zeroed grid-sync workspace of its own there (so ``grid.sync`` works on any launch that fits) [I]."""
        steps = self._begin(kernel, grid, block, dynamic_shared, params, memory, hooks, variables=variables,
                            envreg=envreg, engine=engine, sm_count=sm_count)
        if isinstance(steps, LaunchStats):
            return steps
        while True:
            try:
                next(steps)
            except StopIteration as done:
                stats: LaunchStats = done.value
                return stats

    def _begin(self, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int], dynamic_shared: int,
               params: bytes, memory: Memory, hooks: Hooks, *,
               variables: dict[str, int] | None = None, envreg: dict[int, int] | None = None,
               engine: str | None = None,
               sm_count: int | None = None) -> LaunchStats | Generator[None, None, LaunchStats]:
        """The launch of :meth:`launch`, set up: its :class:`LaunchStats` when it is over already (a kernel with
        no observable effect, the LLVM engine), else a generator that runs its lane sets, yields at each stall
        checkpoint of a grid that fits one lane set (:func:`simcuda.ptx.engine.run`) and returns the stats."""
        from .engine import _Launch, run
        from .values import MAX_LANES
        if kernel not in self.kernels:
            raise Unsupported(f"no kernel {kernel} in this module")
        f = self.flat(kernel)
        info = self.kernels[kernel]
        shl, ssize = _layout([v for v in f.locals if v.space == "shared" and not v.extern] +
                             [v for v in self.parsed.variables if v.space == "shared" and not v.extern])
        ext = [v for v in f.locals + self.parsed.variables if v.space == "shared" and v.extern]
        for v in ext:
            shl[v.name] = (ssize + 15) // 16 * 16
        if ext:
            ssize = (ssize + 15) // 16 * 16
        variables = self._own_variables(variables or {})
        own = list(self._own_vars.values())
        # the grid-sync workspace of a cooperative launch (%envreg1:%envreg2, high:low) when the core gives none
        envreg = dict(envreg or {})
        if 1 not in envreg and 2 not in envreg:
            ws = _Own(OWN_WINDOW + (1 << 32), np.zeros(256, np.uint8))
            own.append(ws)
            envreg[1], envreg[2] = ws.start >> 32, ws.start & 0xFFFFFFFF
        memory = _Overlay(memory, own)
        if variables:
            self.relocate(variables, memory)
        stats = LaunchStats()
        nt = block[0] * block[1] * block[2]
        tpb = (nt + 31) // 32 * 32
        per = max(1, MAX_LANES // tpb)
        if not has_effects(f):  # nothing it does can be observed: it runs in no time, whatever the grid
            stats.blocks = grid[0] * grid[1] * grid[2]
            return stats
        if engine is None:
            import os
            engine = os.environ.get("SIMCUDA_PTX_ENGINE", "interp")
        if engine in ("llvm", "auto"):
            jk = self._jit_kernel(kernel, f, shl, ssize, info, engine == "llvm")
            if jk is not None:
                done: LaunchStats = jk.launch(grid, block, dynamic_shared,
                                              bytes(params).ljust(info.param_bytes, b"\0"), memory, kernel)
                return done
        nblocks = grid[0] * grid[1] * grid[2]
        params = bytes(params).ljust(info.param_bytes, b"\0")
        return self._chunks(_Launch, run, f, info, grid, block, dynamic_shared, params, memory, hooks, variables,
                            stats, kernel, shl, ssize, envreg, sm_count, per, nblocks)

    def _chunks(self, launch_set: Any, run_set: Any, f: Func, info: KernelInfo, grid: tuple[int, int, int],
                block: tuple[int, int, int], dynamic_shared: int, params: bytes, memory: Memory, hooks: Hooks,
                variables: dict[str, int], stats: LaunchStats, kernel: str, shl: dict[str, int], ssize: int,
                envreg: dict[int, int], sm_count: int | None, per: int,
                nblocks: int) -> Generator[None, None, LaunchStats]:
        """The lane sets of a launch :meth:`_begin` set up, one after another (``launch_set``: the engine's
        ``_Launch``; ``run_set``: :func:`simcuda.ptx.engine.run`), yielding at their stall checkpoints."""
        allb = ((x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0]))
        while chunk := list(itertools.islice(allb, per)):
            L = launch_set(self.parsed, f, grid, block, chunk, dynamic_shared, params, memory, hooks,
                        variables, stats, kernel, shl, ssize)
            L._param_off = {p.name: p.offset for p in info.params}
            L.func_addresses = self.func_addresses
            if getattr(f, "seg_info", None):
                from .calls import CallState
                L.calls = CallState(L, f.seg_info)  # type: ignore[attr-defined]
            for k, ev in (envreg or {}).items():
                L.sreg[f"%envreg{k}"] = np.uint32(ev)
            if sm_count:  # the device's SMs; blocks on them round-robin by linear block index [I]
                sr = L.sreg
                linear = (sr["%ctaid.x"].astype(np.int64) + grid[0] * (sr["%ctaid.y"].astype(np.int64)
                                                                         + grid[1] * sr["%ctaid.z"].astype(np.int64)))
                sr["%nsmid"], sr["%smid"] = np.uint32(sm_count), (linear % sm_count).astype(np.uint32)
            code = [L.compile(ins, f.labels) for ins in f.body]
            yield from run_set(L, code, hooks.should_stop, None if len(chunk) == nblocks else STALL_LIMIT_S)
            stats.blocks += len(chunk)
        return stats


class RunningLaunch:
    """A resumable launch (:meth:`PtxModule.start`): the kernel runs in the thread that calls :meth:`step` or
    :meth:`wait`, in slices that end at its stall checkpoints, so the host may go on between them and write
    memory the kernel spins on (cuda.core's latch kernel waits for a pinned flag)."""

    def __init__(self, steps: LaunchStats | Generator[None, None, LaunchStats]) -> None:
        self._steps: Generator[None, None, LaunchStats] | None = None if isinstance(steps, LaunchStats) else steps
        self._stats: LaunchStats | None = steps if isinstance(steps, LaunchStats) else None
        self._error: BaseException | None = None

    def step(self, slices: int | None = 1) -> bool:
        """Run the kernel for up to ``slices`` stall checkpoints (None: until it ends); True once it has ended.
        Raises what :meth:`PtxModule.launch` raises (:class:`Fault`, :class:`Unsupported`), once; a
        ``KeyboardInterrupt`` (or any exception) while it runs ends the launch (later steps raise it again)."""
        if self._error is not None:
            raise self._error
        steps = self._steps
        if steps is None:
            return True
        passed = 0
        try:
            while slices is None or passed < slices:
                next(steps)
                passed += 1
        except StopIteration as done:
            self._stats, self._steps = done.value, None
            return True
        except BaseException as e:
            self._error, self._steps = e, None
            raise
        return False

    def done(self) -> bool:
        """True once every thread of the launch has finished (or it faulted, or was abandoned)."""
        return self._steps is None

    def abandon(self) -> None:
        """Stop the launch where it is, never to resume (a driver closed with the kernel still spinning)."""
        if self._steps is not None:
            self._steps.close()
            self._steps = None

    def wait(self, timeout: float | None = None) -> LaunchStats | None:
        """Run the launch in the calling thread until it ends, or until ``timeout`` seconds of wall time have
        passed at a stall checkpoint (None: no limit); the launch's :class:`LaunchStats`, or None if it has not
        ended. Raises what :meth:`step` raises."""
        import time
        end = None if timeout is None else time.monotonic() + timeout
        while not self.step(1):
            if end is not None and time.monotonic() >= end:
                return None
        return self._stats


#: opcodes whose effect can outlive the kernel or stop it: stores, atomics, calls (printf, assert, malloc),
#: trap, and loads from memory other than the kernel's parameters (a load can fault); refused forms count too
_EFFECTS = frozenset({"st", "atom", "red", "call", "trap", "brkpt", "cp", "prefetch", "prefetchu", "ld", "ldu"})


def _num_regs(f: Func, maxnreg: int | None) -> int:
    """The register count of the flattened kernel ``f`` (:class:`PtxModule`'s ``num_regs`` [I]), at most ``maxnreg``
    when the kernel declares one (a positive ``.maxnreg``)."""
    n = min(255, max(16, len([r for r in f.regs if f.regs[r] != "pred"])))
    return min(n, maxnreg) if maxnreg is not None and maxnreg > 0 else n


def has_effects(f: Func) -> bool:
    """True when the flattened kernel ``f`` has an instruction that could be observed after it ends (see
    ``_EFFECTS``; ``ld.param`` is not one). A kernel without one is not run: an empty kernel launched on a
    grid of 2**31 blocks ends at once, as nothing of it could be seen (its clock reads, a spin that never ends,
    are not observable either) [I]."""
    for ins in f.body:
        op = ins.parts[0] if ins.parts else ""
        name = ".".join(ins.parts)
        if any(name == r or name.startswith(r + ".") for r in _REFUSED):  # refused at launch: must be seen
            return True
        if op in _EFFECTS and not (op in ("ld", "ldu") and len(ins.parts) > 1 and ins.parts[1] == "param"):
            return True
    return False


def _layout(vs: list[Var]) -> tuple[dict[str, int], int]:
    out: dict[str, int] = {}
    off = 0
    for v in vs:
        off = (off + v.align - 1) // v.align * v.align
        out[v.name] = off
        off += v.size
    return out, off


__all__ = ["PtxModule", "inline", "TYPE_SIZES", "Any"]
