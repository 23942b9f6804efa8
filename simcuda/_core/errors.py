"""The one internal error of the simulated driver, and the general meaning of every code.

The core raises :class:`DriverError` and nothing else for a driver-level failure; each face
translates it exactly once (tuple slot, typed ``_v2`` exception, ``cudaError_t``, oxicuda
``CudaError``). Messages that explain a *code in general* live here (``MEANINGS``); the
per-call ``why`` sentences are written where the rule is applied, and always name the rule
(spec section) and the objects involved.
"""
from __future__ import annotations

from enum import IntEnum

from .._generated.driver_enums import CUresult

_CURESULT_VALUES = frozenset(int(c) for c in CUresult)

__all__ = ["CUresult", "DriverError", "MEANINGS", "explain"]


class CallFailed(BaseException):
    """A simulated call did not return ``CUDA_SUCCESS`` while the driver raises at the call
    (:func:`simcuda.faults.raise_failures`, ``pytest --simcuda-raise``): raised where the program made the call,
    instead of returning the code, so a test stops at the first failure with its entry, code and why.

    A ``BaseException``, as pytest's own outcome exceptions are, so that the program's ``except Exception`` does
    not swallow it, and so that it crosses the native route's C boundary as Ctrl-C does.

    Attributes: ``entry`` (the API name of the call), ``code`` (the ``CUresult`` as an int), ``why``.
    """

    def __init__(self, entry: str, code: int, why: str) -> None:
        super().__init__(f"{entry} -> {_code_name(code)} ({code}): {why}")
        self.entry, self.code, self.why = entry, int(code), why


def _code_name(code: int) -> str:
    try:
        return CUresult(code).name
    except ValueError:
        return str(code)


class DriverError(Exception):
    """A simulated driver call failed with a ``CUresult`` code.

    Mirrors: the non-``CUDA_SUCCESS`` return of any ``cu*`` entry point.

    Attributes:
        code: the :class:`CUresult` member the real driver would return.
        why: one or more sentences naming the rule (with its spec section) and the objects
            involved, for teaching and debugging.
    """

    __slots__ = ("code", "why")
    code: CUresult | IntEnum
    why: str
    # facts that some entries attach for their faces (present only where set, hence ``getattr`` in the faces):
    instantiate_result: int  # cuGraphInstantiate*: the CUgraphInstantiateResult
    err_node: int  # cuGraphInstantiate*: the error node's handle, or 0
    update_info: tuple[int, int, int]  # cuGraphExecUpdate: (CUgraphExecUpdateResult, error node, error-from node)

    def __init__(self, code: int, why: str) -> None:
        # a runtime-only refusal (a cudaError_t with no CUresult twin, e.g. cudaErrorInvalidMemcpyDirection)
        # keeps its cudaError_t member, so last_error() and the error log can record it too
        self.code = code if isinstance(code, IntEnum) and int(code) not in _CURESULT_VALUES else CUresult(code)
        self.why = why
        super().__init__(f"{self.code.name} ({int(self.code)}): {why}")

    def detached(self) -> DriverError:
        """A copy without the traceback (same code, why and attached facts such as ``update_info``), as the
        driver keeps it for ``last_error()``: a kept traceback would hold the frames of the call, and through
        them the driver itself, alive (a reference cycle that keeps a replaced driver's memory counted)."""
        e = DriverError(self.code, self.why)
        e.__dict__.update(self.__dict__)
        return e

    def __eq__(self, other: object) -> bool:
        """Errors are equal when code, why and attached facts are (a :meth:`detached` copy equals its original)."""
        if not isinstance(other, DriverError):
            return NotImplemented
        return (self.code, self.why, self.__dict__) == (other.code, other.why, other.__dict__)

    __hash__ = Exception.__hash__


# General meaning of the codes a capture/graph program meets (paraphrased from the CUDA
# documentation of CUresult; see spec section 10).
MEANINGS: dict[int, str] = {
    0: "The call succeeded.",
    1: "A parameter was out of range, NULL where a value is required, or otherwise not acceptable.",
    2: "The simulated device ran out of memory for the request.",
    3: "cuInit has not been called (or the driver is unavailable), so no driver call can run.",
    4: "The driver is shutting down (the simulated driver was closed).",
    100: "No CUDA-capable device is present.",
    101: "The device ordinal or handle does not name a device.",
    200: "The module image is not a valid PTX/CUBIN/fatbin image.",
    201: "There is no current context on this thread, or the context is not valid for this call.",
    217: "Peer access is not supported between these devices (for example a device and itself).",
    304: "An operating-system call failed (for example the DOT file could not be written).",
    400: "A handle (stream, event, function...) is not valid: never created, or of the wrong kind.",
    401: "The object is not in the state the call needs (for example beginning a capture on a stream "
         "that is already capturing, or ending one that is not).",
    402: "The query would drop edge data; use the variant that returns edge data.",
    500: "A named symbol (kernel entry, global) was not found in the module.",
    600: "The asynchronous work is not finished yet (not an error).",
    700: "A kernel accessed memory it may not (outside every allocation): a sticky error, every later call "
         "answers it until the process starts again (simulated: a Python kernel's access outside simulated "
         "memory; simcuda.reset() is the new process).",
    702: "The work ran past its time limit (simulated: a conditional WHILE node that never ended).",
    704: "Peer access between these contexts is already enabled.",
    705: "Peer access between these contexts was never enabled.",
    710: "A device-side assert failed in a kernel: the context is unusable until it is destroyed or reset "
         "(simulated: a Python kernel raised AssertionError).",
    712: "The host memory range is already registered.",
    713: "The host memory range is not registered.",
    719: "A kernel failed while it ran: a sticky error, every later call answers it until the process starts "
         "again (simulated: a Python kernel raised; its traceback is in the why).",
    720: "A cooperative launch asks for more blocks than can be resident on the device at once.",
    709: "The object (or its context) has been destroyed.",
    800: "The operation is not permitted here (for example a CUDA call from inside a host function).",
    801: "The operation is not supported (in this configuration, or on a capturing/CIG stream).",
    900: "The operation is not permitted while a stream is capturing (or would conflict with a capture).",
    901: "A previous error during capture invalidated the capture sequence; the capture must be ended.",
    902: "The operation would merge two independent capture sequences.",
    903: "The capture was not ended on the stream where it began (its origin stream).",
    904: "The capture has unjoined work: a forked stream's captured work does not rejoin the origin.",
    905: "A capturing stream would depend on uncaptured work (an event recorded outside the capture).",
    906: "The legacy (NULL) stream would implicitly depend on a capturing blocking stream.",
    907: "The event was last recorded in a capturing stream, so it cannot be queried or waited on by the host.",
    908: "A non-RELAXED capture was ended from a thread other than the one that began it.",
    910: "cuGraphExecUpdate could not update the executable graph (see the update result).",
    917: "The stream's green context was destroyed; the stream is detached.",
    918: "Recapture into an existing graph failed.",
    999: "An unknown internal error.",
}


def code_value(code: object) -> int:
    """The number a ``CUresult``/``cudaError_t`` is written as: a member, an ``int``, or a ``str`` that is a
    number (``"904"``, ``"0x388"``), a ``CUresult`` name (``"CUDA_ERROR_STREAM_CAPTURE_UNJOINED"``, or without
    its prefix, any case: ``"stream_capture_unjoined"``) or a ``cudaError_t`` name
    (``"cudaErrorStreamCaptureUnjoined"``).

    Raises ``ValueError`` for a text that is none of these, ``TypeError`` for another type (a ``bool`` too).
    """
    from .._generated.runtime_enums import cudaError_t
    if isinstance(code, bool) or not isinstance(code, (int, str)):
        raise TypeError(f"an error code is an int, a CUresult/cudaError_t member or a name, not {type(code).__name__}")
    if isinstance(code, int):
        return int(code)
    text = code.strip()
    try:
        return int(text, 0)
    except ValueError:
        pass
    for name in (text, "CUDA_ERROR_" + text.upper(), text.upper()):
        if name in CUresult.__members__:
            return int(CUresult[name])
    if text in cudaError_t.__members__:
        return int(cudaError_t[text])
    raise ValueError(f"{code!r} is not a CUresult or cudaError_t name or value")


def explain(code: object) -> str:
    """Return the general meaning of a ``CUresult``, given as a member, a number or a name.

    Mirrors: ``cuGetErrorString`` in spirit, but written for learners (``simcuda explain CODE`` prints the same).

    Args:
        code: a ``CUresult`` member, an ``int``, or a name or number as text (see :func:`code_value`: a
            ``cudaError_t`` name gives the ``CUresult`` of the same number, the two enums share the capture codes).

    Returns:
        ``"NAME (value): meaning"``. Raises ``ValueError`` if ``code`` names no ``CUresult`` value, ``TypeError``
        for an object that is not a code.
    """
    member = CUresult(code_value(code))
    text = MEANINGS.get(int(member), "See the CUDA driver documentation for this code.")
    return f"{member.name} ({int(member)}): {text}"
