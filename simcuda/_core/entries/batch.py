"""Batched copies: ``cuMemcpyBatchAsync`` (CUDA 12.8; the 13.x signature, without ``failIdx``) (issue 10).

What is simulated [D: the cuMemcpyBatchAsync docstring of cuda-bindings 13.5, unless tagged]:

* the batch is stream work: outside a capture its copies run in stream order as one piece of work (their order
  within the batch is unspecified; the simulator runs them in array order [I]);
* every copy needs attributes: ``attrs[k]`` applies to copies ``attrsIdxs[k]`` up to the next index; the first
  index is 0, the indices strictly increase and stay below ``count``, ``numAttrs`` is at most ``count``, and each
  attribute's ``srcAccessOrder`` is STREAM (1), DURING_API_CALL (2) or ANY (3): INVALID_VALUE otherwise;
* a DURING_API_CALL source is read during the call (a host source is snapshot then, as the driver promises all
  source accesses are over when the call returns), the others when the copy runs;
* the legacy NULL stream is refused: INVALID_VALUE [D: "Must not be legacy NULL stream"; the per-thread stream
  is a stream, as cuda.core's ``copy_batch`` notes];
* during a capture the call fails with STREAM_CAPTURE_UNSUPPORTED (900) and the capture stays ACTIVE: there is
  no graph-node form of a batched copy [O: rapidsai/rmm issue 2518 (CUDA 13: 900, the capture not invalidated,
  ``cudaStreamEndCapture`` succeeds without the copy); cuda.core's ``copy_batch`` documents that the driver has
  no graph-node form] (P-41; the rule itself is ``capture.OPS["memcpy_batch"]``).
"""
from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from .. import capture as cap
from ..errors import CUresult, DriverError
from ..memory import HOST, CopyParams, check_copy, do_copy, host_view
from ..state import entry
from ..work import Work

#: CUmemcpySrcAccessOrder values a copy may use (STREAM, DURING_API_CALL, ANY)
ACCESS_ORDERS = {1: "STREAM", 2: "DURING_API_CALL", 3: "ANY"}
_DURING_API_CALL = 2


class BatchParams:
    """The copies of one batch, as the launch log and a CIG command list describe them."""

    __slots__ = ("copies",)

    def __init__(self, copies: list[CopyParams]) -> None:
        self.copies = copies

    def describe(self) -> str:
        """``batch of 3 copies, 192 bytes``."""
        return f"batch of {len(self.copies)} copies, {sum(p.nbytes for p in self.copies)} bytes"


class BatchCopies(Work):
    """Batched copies of the simulated driver. Entries: ``cuMemcpyBatchAsync`` (and ``cudaMemcpyBatchAsync``)."""
    if TYPE_CHECKING:  # defined by the Memory entries; Driver combines both
        def unified_side(self, addr: int) -> str: ...

    @entry
    def memcpy_batch(self, dsts: list[int], srcs: list[int], sizes: list[int], orders: list[int],
                     attr_idxs: list[int], h: int, call: str = "cuMemcpyBatchAsync") -> None:
        """cuMemcpyBatchAsync: copy ``sizes[i]`` bytes from ``srcs[i]`` to ``dsts[i]`` (unified addresses) on
        stream ``h``; ``orders[k]`` is the ``srcAccessOrder`` of attribute entry ``k``, which applies from copy
        ``attr_idxs[k]`` on.

        Errors, in order [I: the docstring's rules, in this order]: the stream's (400, 709); 1 INVALID_VALUE the
        legacy NULL stream, no copy, array lengths that differ, no attributes or more than copies, a first index
        other than 0, indices not strictly increasing or past the last copy, an access order other than STREAM,
        DURING_API_CALL or ANY, bad ranges of any copy; 900 during a capture, which goes on (P-41); 901 in an
        invalidated capture. A rejected call copies nothing."""
        s = self._stream(h)
        if s.is_legacy:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: the legacy NULL stream is not allowed (use another stream, or the per-thread "
                              "stream)")
        n = len(sizes)
        if n == 0 or len(dsts) != n or len(srcs) != n:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: {len(dsts)} destinations, {len(srcs)} sources and {n} sizes: the batch needs "
                              "at least one copy and three arrays of its count")
        if not orders or len(orders) != len(attr_idxs) or len(orders) > n:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: {len(orders)} attribute entries and {len(attr_idxs)} indices for {n} copies: "
                              "every copy needs attributes, numAttrs at most count")
        if attr_idxs[0] != 0 or any(b <= a for a, b in itertools.pairwise(attr_idxs)) or attr_idxs[-1] >= n:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: attrsIdxs {list(attr_idxs)} must start at 0, strictly increase and stay "
                              f"below count ({n})")
        bad = [o for o in orders if int(o) not in ACCESS_ORDERS]
        if bad:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: srcAccessOrder {bad[0]} is not STREAM (1), DURING_API_CALL (2) or ANY (3)")
        order_of = [0] * n
        for k, start in enumerate(attr_idxs):
            end = attr_idxs[k + 1] if k + 1 < len(attr_idxs) else n
            order_of[start:end] = [int(orders[k])] * (end - start)
        copies = []
        for i in range(n):
            src, dst, size = int(srcs[i]), int(dsts[i]), int(sizes[i])
            p = CopyParams(self.unified_side(src), src, self.unified_side(dst), dst, size, src_unified=True,
                           dst_unified=True)
            check_copy(self.memory, p)
            copies.append(p)
        for i, p in enumerate(copies):
            if order_of[i] == _DURING_API_CALL and p.src_kind == HOST and p.nbytes:  # read now, as promised
                snap = bytes(host_view(p.src, p.nbytes, False, f"{call} srcs[{i}]", self.memory))
                copies[i] = CopyParams(HOST, snap, p.dst_kind, p.dst, p.width, src_unified=True, dst_unified=True)
        mem = self.memory

        def run() -> None:
            for p in copies:
                do_copy(mem, p)
        cap.enqueue(self, s, cap.Op(cap.OPS["memcpy_batch"], call, BatchParams(copies), run))
