"""CIG (CUDA in Graphics) capture into a command list (spec 8)."""
from __future__ import annotations

from ..errors import DriverError
from ..objects import CigRecord
from ..state import entry
from ..work import Work


class Cig(Work):
    """CIG (CUDA in Graphics) capture into a command list of the simulated driver. Entries: ``cuStreamBeginCaptureToCig``, ``cuStreamEndCaptureToCig``, and ``cig_ops`` (the recorded list)."""
    # ------------------------------------------------------------------ CIG capture (spec 8)
    @entry
    def stream_begin_capture_to_cig(self, h: int, data_type: int | None, data: int) -> None:
        """cuStreamBeginCaptureToCig: spec 8.2 rows in order. ``data_type`` None means NULL params."""
        s = self._stream(h)
        if data_type is None:
            raise DriverError(1, "CUstreamCigCaptureParams (or its streamCigParams) is NULL (spec 8.2 row 1)")
        if s.is_legacy:
            raise DriverError(1, "CIG capture may not begin on the legacy stream (spec 8.2 row 2)")
        if not s.ctx.is_cig:
            raise DriverError(201, f"{s.label()} belongs to context 0x{s.ctx.handle:x}, which was not created in "
                                   "CIG mode (spec 8.2 row 3)")
        spec = s.ctx.device.spec
        if data_type in (1, 2) and not (spec.cig_d3d12_streams if data_type == 1 else spec.cig_vulkan_streams):
            raise DriverError(801, f"device {s.ctx.device.ordinal} lacks CIG stream support for data type "
                                   f"{data_type} (attribute {151 if data_type == 1 else 159}; spec 8.2 row 4)")
        if data_type not in (1, 2) or data_type != s.ctx.cig_data_type:
            raise DriverError(1, f"stream CIG data type {data_type} does not match the context's CIG data type "
                                 f"{s.ctx.cig_data_type} (D3D12 list with D3D12 queue, Vulkan handle with NV blob; "
                                 "spec 8.2 row 5) [inferred]")
        if s.cig is not None or s.capture is not None:
            raise DriverError(1, f"{s.label()} is already in CIG capture or graph capture (spec 8.2 row 6)")
        s.cig = CigRecord(self._thread().tid, data_type, data)

    @entry
    def stream_end_capture_to_cig(self, h: int) -> list[tuple[str, str]]:
        """cuStreamEndCaptureToCig: spec 8.4. Returns the recorded op list (for tests)."""
        s = self._stream(h)
        if s.cig is None:
            raise DriverError(1, f"{s.label()} is not in CIG capture (spec 8.4)")
        t = self._thread()
        if t.tid != s.cig.begin_thread and not self.options.cig_end_any_thread:
            raise DriverError(908, f"cuStreamEndCaptureToCig from thread {t.name}: the CIG capture of {s.label()} "
                                   "was begun on another thread and goes on (spec 8.4) [inferred]")
        ops, s.cig = s.cig.ops, None
        return ops

    def cig_ops(self, h: int) -> list[tuple[str, str]]:
        """The ops recorded so far by a stream's CIG capture (for tests)."""
        with self._lock:
            s = self._stream(h)
            return list(s.cig.ops) if s.cig else []
