"""CIG capture into a command list (spec 8): begin and end of a capture to a CIG stream; what the enqueue path
does with a CIG capture's operations is its :data:`~simcuda._core.capture.capture_enqueue.OPS` rows.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import CUresult
from ..objects import CigRecord
from .capture_rules import err

if TYPE_CHECKING:
    from ..objects import Stream, ThreadState


# -- 8: CIG capture into a command list --------------------------------------------------------------
def begin_cig(stream: Stream, data_type: int | None, data: int, thread: ThreadState) -> None:
    """cuStreamBeginCaptureToCig, rows of spec 8.2 in order (``data_type`` None: NULL parameters).

    Errors: 1 NULL parameters (row 1); 1 the legacy stream (row 2); 201 a context not made in CIG mode
    (row 3); 801 a device without CIG stream support for that data type (row 4); 1 a data type that is not
    the context's (row 5) [I]; 1 a stream already in CIG or graph capture (row 6).
    """
    if data_type is None:
        raise err(CUresult.CUDA_ERROR_INVALID_VALUE, "CUstreamCigCaptureParams (or its streamCigParams) is NULL "
                                                      "(spec 8.2 row 1)")
    if stream.is_legacy:
        raise err(CUresult.CUDA_ERROR_INVALID_VALUE, "CIG capture may not begin on the legacy stream (spec 8.2 row "
                                                      "2)")
    ctx = stream.ctx
    if not ctx.is_cig:
        raise err(CUresult.CUDA_ERROR_INVALID_CONTEXT, f"{stream.label()} belongs to context 0x{ctx.handle:x}, "
                                                        "which was not created in CIG mode (spec 8.2 row 3)")
    spec = ctx.device.spec
    if data_type in (1, 2) and not (spec.cig_d3d12_streams if data_type == 1 else spec.cig_vulkan_streams):
        raise err(CUresult.CUDA_ERROR_NOT_SUPPORTED, f"device {ctx.device.ordinal} lacks CIG stream support for "
                                                      f"data type {data_type} (attribute "
                                                      f"{151 if data_type == 1 else 159}; spec 8.2 row 4)")
    if data_type not in (1, 2) or data_type != ctx.cig_data_type:
        raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"stream CIG data type {data_type} does not match the "
                                                      f"context's CIG data type {ctx.cig_data_type} (D3D12 list with "
                                                      "D3D12 queue, Vulkan handle with NV blob; spec 8.2 row 5) "
                                                      "[inferred]")
    if stream.cig is not None or stream.capture is not None:
        raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{stream.label()} is already in CIG capture or graph capture "
                                                      "(spec 8.2 row 6)")
    stream.cig = CigRecord(thread.tid, data_type, data)


def end_cig(stream: Stream, thread: ThreadState, any_thread: bool) -> list[tuple[str, str]]:
    """cuStreamEndCaptureToCig (spec 8.4): the recorded op list; the stream leaves CIG capture.

    Errors: 1 a stream not in CIG capture; 908 from another thread than the one that began it, unless
    ``any_thread`` (``Options.cig_end_any_thread``) [I]: the CIG capture goes on.
    """
    cig = stream.cig
    if cig is None:
        raise err(CUresult.CUDA_ERROR_INVALID_VALUE, f"{stream.label()} is not in CIG capture (spec 8.4)")
    if thread.tid != cig.begin_thread and not any_thread:
        raise err(CUresult.CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
                  f"cuStreamEndCaptureToCig from thread {thread.name}: the CIG capture of {stream.label()} was "
                  "begun on another thread and goes on (spec 8.4) [inferred]")
    stream.cig = None
    return cig.ops
