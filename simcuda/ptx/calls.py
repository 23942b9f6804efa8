"""``call`` to the device runtime's functions: ``vprintf``, ``__assertfail``, ``malloc``/``free``,
``cudaGraphSetConditional``. Calls to the module's own ``.func`` are inlined before decoding (see
:func:`simcuda.ptx.inline`), so only these reach here."""
from __future__ import annotations

import re
import struct
from typing import Any

import numpy as np

from .interface import Unsupported
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
        from .engine import _DT
        acc = L.mem_access(ins, "param", np.dtype(_DT[ty]), 1, f"[{args[k]}]")
        return acc(mask, None)[0]

    def ret(mask: Any, val: Any, ty: str = "u64") -> None:
        from .engine import _DT
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
