"""Batched copies: ``cuMemcpyBatchAsync`` (CUDA 12.8; the 13.x signature, without ``failIdx``) and
``cuMemcpy3DBatchAsync`` (issue 10).

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

``cuMemcpy3DBatchAsync`` [D: its docstring in cuda-bindings 13.5]: each ``CUDA_MEMCPY3D_BATCH_OP`` copies an
``extent`` (width x height x depth, in elements, none zero) between two operands; a pointer operand gives its
``rowLength`` (elements, 0 = the width) and ``layerHeight`` (rows, 0 = the height), either at least the extent's;
pointer-to-pointer copies have 1-byte elements. CUDA array operands hold no simulated data, so they answer
NOT_SUPPORTED (801), as ``cuMemcpy3D`` does for ``CU_MEMORYTYPE_ARRAY``. ``flags`` must be 0; each op's own
``flags`` is a ``CUmemcpyFlags`` (DEFAULT 0 or PREFER_OVERLAP_WITH_COMPUTE 1: a hint, ignored) [I: other bits
INVALID_VALUE]. The capture rule is the 1D batch's (P-41).
"""
from __future__ import annotations

import itertools
from typing import NamedTuple

from ..capture import capture_enqueue as capq
from ..errors import CUresult, DriverError
from ..state import DriverState, entry
from .memory_model import HOST, CopyParams, check_copy, do_copy, host_view

#: CUmemcpySrcAccessOrder values a copy may use (STREAM, DURING_API_CALL, ANY)
ACCESS_ORDERS = {1: "STREAM", 2: "DURING_API_CALL", 3: "ANY"}
_DURING_API_CALL = 2


#: CUmemcpy3DOperandType: POINTER, ARRAY
OPERAND_POINTER, OPERAND_ARRAY = 1, 2
#: the CUmemcpyFlags bits an op may set (PREFER_OVERLAP_WITH_COMPUTE, a hint the simulator ignores)
_OP_FLAGS = 0x1


class Operand3D(NamedTuple):
    """One ``CUmemcpy3DOperand`` as the faces read it: ``kind`` (CUmemcpy3DOperandType), for a pointer ``ptr``
    (unified address), ``row_length`` (elements) and ``layer_height`` (rows); for an array ``array`` (handle)."""
    kind: int
    ptr: int = 0
    row_length: int = 0
    layer_height: int = 0
    array: int = 0


class Op3D(NamedTuple):
    """One ``CUDA_MEMCPY3D_BATCH_OP``: operands, extent in elements, ``srcAccessOrder`` and the op's ``flags``."""
    src: Operand3D
    dst: Operand3D
    width: int
    height: int
    depth: int
    order: int
    flags: int = 0


class BatchParams:
    """The copies of one batch, as the launch log and a CIG command list describe them."""

    __slots__ = ("copies",)

    def __init__(self, copies: list[CopyParams]) -> None:
        self.copies = copies

    def describe(self) -> str:
        """``batch of 3 copies, 192 bytes``."""
        return f"batch of {len(self.copies)} copies, {sum(p.nbytes for p in self.copies)} bytes"



def _check_op3d(op: Op3D, where: str) -> None:
    """The per-op rules of cuMemcpy3DBatchAsync, in order, before any range is read (``where`` names the op):
    1 INVALID_VALUE an access order, op flags or operand type outside their sets, a zero extent, a pitch below
    the extent; 801 an array operand."""
    if int(op.order) not in ACCESS_ORDERS:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{where}.srcAccessOrder {op.order} is not STREAM (1), DURING_API_CALL (2) or ANY (3)")
    if int(op.flags) & ~_OP_FLAGS:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{where}.flags {op.flags:#x} is not a CUmemcpyFlags value")
    sides = (("src", op.src), ("dst", op.dst))
    for side, o in sides:
        if int(o.kind) not in (OPERAND_POINTER, OPERAND_ARRAY):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{where}.{side}.type {o.kind} is not POINTER (1) or ARRAY (2)")
    if not (op.width and op.height and op.depth):
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{where}.extent {op.width}x{op.height}x{op.depth} has a zero dimension")
    for side, o in sides:
        if o.kind == OPERAND_POINTER and (0 < o.row_length < op.width or 0 < o.layer_height < op.height):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{where}.{side}: rowLength {o.row_length} / layerHeight {o.layer_height} below "
                              f"the extent's width {op.width} / height {op.height} (0 means packed)")
    for side, o in sides:
        if o.kind == OPERAND_ARRAY:
            raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                              f"{where}.{side} is a CUDA array: array contents are not simulated")


class BatchCopies(DriverState):
    """Batched copies of the simulated driver. Entries: ``cuMemcpyBatchAsync``, ``cuMemcpy3DBatchAsync`` (and their
    runtime twins)."""
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
            side = self.memory.unified_side
            p = CopyParams(side(src), src, side(dst), dst, size, src_unified=True, dst_unified=True)
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
        capq.enqueue(self, s, capq.Op(capq.OPS["memcpy_batch"], call, BatchParams(copies), run))

    # -- cuMemcpy3DBatchAsync (issue 10, P-41) --
    @entry
    def memcpy3d_batch(self, ops: list[Op3D], flags: int, h: int, call: str = "cuMemcpy3DBatchAsync") -> None:
        """cuMemcpy3DBatchAsync: the 3D copies ``ops`` (:class:`Op3D`) on stream ``h`` as one piece of stream work;
        ``flags`` must be 0.

        Errors, in order [I: the docstring's rules, in this order]: the stream's (400, 709); 1 INVALID_VALUE the
        legacy NULL stream, no op, ``flags`` not 0; then per op: an access order other than STREAM,
        DURING_API_CALL or ANY, op flags other than PREFER_OVERLAP_WITH_COMPUTE, an operand type other than
        POINTER or ARRAY, a zero extent, a nonzero rowLength below the width or layerHeight below the height;
        801 an array operand (arrays hold no simulated data); 1 bad ranges; 900 during a capture, which goes on
        (P-41); 901 in an invalidated capture. A rejected call copies nothing."""
        s = self._stream(h)
        if s.is_legacy:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: the legacy NULL stream is not allowed (use another stream, or the per-thread "
                              "stream)")
        if not ops:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: numOps is 0: the batch needs one op")
        if flags:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: flags {flags:#x} must be 0")
        copies = []
        for i, op in enumerate(ops):
            where = f"{call}: opList[{i}]"
            _check_op3d(op, where)
            src, dst = int(op.src.ptr), int(op.dst.ptr)
            side = self.memory.unified_side
            p = CopyParams(side(src), src, side(dst), dst, op.width, op.height, op.depth,
                           src_pitch=op.src.row_length, src_height=op.src.layer_height,
                           dst_pitch=op.dst.row_length, dst_height=op.dst.layer_height,
                           src_unified=True, dst_unified=True)
            check_copy(self.memory, p)
            if int(op.order) == _DURING_API_CALL and p.src_kind == HOST:  # read now, as promised
                _first, n = p.span("src")
                snap = bytes(host_view(p.src, n, False, f"{where}.src", self.memory))
                p = CopyParams(HOST, snap, p.dst_kind, p.dst, p.width, p.height, p.depth, src_pitch=p.src_pitch,
                               src_height=p.src_height, dst_pitch=p.dst_pitch, dst_height=p.dst_height,
                               src_unified=True, dst_unified=True)
            copies.append(p)
        mem = self.memory

        def run() -> None:
            for p in copies:
                do_copy(mem, p)
        capq.enqueue(self, s, capq.Op(capq.OPS["memcpy_batch"], call, BatchParams(copies), run))
