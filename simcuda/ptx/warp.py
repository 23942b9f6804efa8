"""Warp-level instructions: ``shfl.sync``, ``vote.sync``, ``activemask``, ``redux.sync``, ``match.sync``.

Lanes are laid out block by block, each block padded to whole warps, so a warp is 32 consecutive lanes.

Member masks [I] (the ISA leaves these cases undefined; the engine's choices): ``vote``, ``redux`` and ``match``
combine the lanes that run the instruction together *and* are named in ``membermask`` (the mask read from the
warp's first executing lane); a lane of the mask that has exited, or is elsewhere, takes no part (the engine
does not wait for it: its lowest-PC-first order has already run every lane that could reach this instruction
first). An executing lane that its mask does not name still gets the result. ``shfl`` reads the source lane's
register whether or not that lane is named, active or exited (its last value; the ISA: undefined).
``bar.warp.sync`` is only a reconvergence point.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .interface import Unsupported
from .parse import TYPE_SIZES, Ins


def build_warp(L: Any, ins: Ins, p: list[str], o: list[str]) -> Any:
    """A closure for one warp instruction."""
    n = L.n
    lane = np.arange(n, dtype=np.int64) % 32
    wbase = np.arange(n, dtype=np.int64) - lane
    ty = next((x for x in reversed(p) if x in TYPE_SIZES), "b32")

    def active(mask: Any) -> Any:
        return L.alive0 if mask is None else mask

    gm = L.getter(o[-1], "b32") if p[0] in ("vote", "redux", "match") and "sync" in p and len(o) >= 3 else None

    def members(mask: Any) -> Any:
        """The executing lanes that the membermask names (read from each warp's first executing lane)."""
        act = active(mask)
        if gm is None:
            return act
        mv = np.broadcast_to(np.asarray(gm(), np.uint32), (n,)).reshape(-1, 32)
        aw = act.reshape(-1, 32)
        first = np.argmax(aw, axis=1)
        wm = mv[np.arange(len(mv)), first].astype(np.uint64)
        named = ((wm[:, None] >> np.arange(32, dtype=np.uint64)) & np.uint64(1)) == 1
        return (aw & named).reshape(-1)

    if p[0] == "activemask":
        s = L.setter(o[0], "b32")

        def am(mask: Any) -> None:
            s(_ballot(active(mask), active(mask)), mask)
        return am
    if p[0] == "shfl":
        mode = p[2] if p[1] == "sync" else p[1]
        dsts = o[0].split("|")
        sd = L.setter(dsts[0].strip(), "b32")
        sp = L.setter(dsts[1].strip(), "pred") if len(dsts) > 1 else None
        ga, gb, gc = L.getter(o[1], "b32"), L.getter(o[2], "u32"), L.getter(o[3], "u32")

        def shfl(mask: Any) -> None:
            a = np.broadcast_to(ga(), (n,))
            b = np.broadcast_to(np.asarray(gb(), np.int64), (n,)) & 0x1F
            c = np.broadcast_to(np.asarray(gc(), np.int64), (n,))
            cl = c & 0x1F
            seg = (c >> 8) & 0x1F
            maxl = (lane & seg) | (cl & ~seg)
            minl = lane & seg
            if mode == "up":
                j = lane - b
                ok = j >= maxl
            elif mode == "down":
                j = lane + b
                ok = j <= maxl
            elif mode == "bfly":
                j = lane ^ b
                ok = j <= maxl
            else:
                j = minl | (b & ~seg)
                ok = j <= maxl
            j = np.where(ok, j, lane)
            sd(a[wbase + j], mask)
            if sp is not None:
                sp(ok, mask)
        return shfl
    if p[0] == "vote":
        mode = p[2] if p[1] == "sync" else p[1]
        g = L.getter(o[1], "pred")
        s = L.setter(o[0], "b32" if mode == "ballot" else "pred")

        def vote(mask: Any) -> None:
            act = members(mask)
            v = np.broadcast_to(g(), (n,)) & act
            w = v.reshape(-1, 32)
            aw = act.reshape(-1, 32)
            if mode == "ballot":
                s(_ballot(v, act), mask)
                return
            if mode == "all":
                r = (w | ~aw).all(axis=1)
            elif mode == "any":
                r = w.any(axis=1)
            else:
                r = (w | ~aw).all(axis=1) | ~w.any(axis=1)
            s(np.repeat(r, 32), mask)
        return vote
    if p[0] == "redux":
        opn = p[2]
        g = L.getter(o[1], ty)
        s = L.setter(o[0], ty)
        f = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or,
             "xor": np.bitwise_xor}[opn]
        ident = {"add": 0, "min": np.iinfo(np.dtype(g().dtype if hasattr(g(), "dtype") else np.uint32)).max,
                 "max": np.iinfo(np.dtype(g().dtype if hasattr(g(), "dtype") else np.uint32)).min,
                 "and": -1, "or": 0, "xor": 0}[opn]

        def redux(mask: Any) -> None:
            act = members(mask)
            v = np.broadcast_to(g(), (n,))
            dt = v.dtype
            x = np.where(act, v, np.array(ident).astype(dt))
            r = f.reduce(x.reshape(-1, 32), axis=1).astype(dt)
            s(np.repeat(r, 32), mask)
        return redux
    if p[0] == "match":
        g = L.getter(o[1], ty)
        s = L.setter(o[0].split("|")[0].strip(), "b32")
        sp = L.setter(o[0].split("|")[1].strip(), "pred") if "|" in o[0] else None

        def match(mask: Any) -> None:
            act = members(mask)
            v = np.broadcast_to(g(), (n,)).reshape(-1, 32)
            aw = act.reshape(-1, 32)
            eq = (v[:, :, None] == v[:, None, :]) & aw[:, None, :]
            bits = (eq * (np.uint64(1) << np.arange(32, dtype=np.uint64))).sum(axis=2).astype(np.uint32)
            if p[1] == "all" or p[2] == "all":
                same = (eq | ~aw[:, None, :]).all(axis=2)
                bits = np.where(same, bits, 0).astype(np.uint32)
                if sp is not None:
                    sp(same.reshape(-1), mask)
            s(bits.reshape(-1), mask)
        return match
    raise Unsupported(f"kernel {L.kernel}: {'.'.join(p)} (PTX line {ins.line}) is not supported")


def _ballot(v: Any, act: Any) -> Any:
    w = (np.asarray(v) & act).reshape(-1, 32).astype(np.uint64)
    bits = (w << np.arange(32, dtype=np.uint64)).sum(axis=1).astype(np.uint32)
    return np.repeat(bits, 32)
