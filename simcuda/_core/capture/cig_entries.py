"""CIG (CUDA in Graphics) capture into a command list (spec 8)."""
from __future__ import annotations

from ..state import DriverState, entry
from . import capture_cig as capc


class Cig(DriverState):
    """CIG (CUDA in Graphics) capture into a command list of the simulated driver.

    Entries: ``cuStreamBeginCaptureToCig``, ``cuStreamEndCaptureToCig``, and ``cig_ops`` (the recorded
    list). The rules are the capture engine's (:func:`simcuda._core.capture.capture_cig.begin_cig`, ``end_cig``).
    """

    # ------------------------------------------------------------------ CIG capture (spec 8)
    @entry
    def stream_begin_capture_to_cig(self, h: int, data_type: int | None, data: int) -> None:
        """cuStreamBeginCaptureToCig: begin recording ``h``'s work into a CIG command list (spec 8.2).

        ``data_type`` is the ``CUstreamCigDataType`` (1 D3D12 command list, 2 Vulkan), None for NULL
        parameters; ``data`` the command-list handle. Errors: the stream preamble; then
        :func:`simcuda._core.capture.capture_cig.begin_cig`.
        """
        capc.begin_cig(self._stream(h), data_type, data, self.threads.current())

    @entry
    def stream_end_capture_to_cig(self, h: int) -> list[tuple[str, str]]:
        """cuStreamEndCaptureToCig (spec 8.4). Returns the recorded op list (for tests).

        Errors: the stream preamble; then :func:`simcuda._core.capture.capture_cig.end_cig`.
        """
        return capc.end_cig(self._stream(h), self.threads.current(), self.options.cig_end_any_thread)

    def cig_ops(self, h: int) -> list[tuple[str, str]]:
        """The ops recorded so far by a stream's CIG capture (for tests)."""
        with self._lock:
            s = self._stream(h)
            return list(s.cig.ops) if s.cig else []
