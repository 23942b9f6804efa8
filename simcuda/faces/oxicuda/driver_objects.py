"""The oxicuda-style face's driver objects: :class:`Device`, :class:`Context` and :class:`Stream` (oxicuda-driver
0.1.4), each a thin handle on a simulated driver's object, and what the recorders share to begin a capture.

The names users take are importable from :mod:`simcuda.faces.oxicuda.stream_capture`; this module is its part for driver
objects.
"""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from ... import _state
from ..._core.facade import Driver
from .cuda_error import U32, check_uint, translated, try_driver

CAPTURE_MODE_GLOBAL = 0
CAPTURE_MODE_RELAXED = 2
STREAM_NON_BLOCKING = 1


_C = TypeVar("_C")


def begin_capture(cls: type[_C], stream: Any, mode: int) -> tuple[_C, Stream, Driver]:
    """The start both recorders' ``begin`` share: the stream (:func:`as_stream`), oxicuda's ``try_driver``,
    ``cuStreamBeginCapture(stream, mode)`` with its codes translated, and a new ``cls`` object not yet set up."""
    s = as_stream(stream)
    drv = s.driver
    try_driver(drv)
    with translated():
        drv.stream_begin_capture(s.raw(), mode)
    return object.__new__(cls), s, drv


# ================================================================================== driver-side state
class _Scratch:
    """Per-driver resources of this face: kernel functions by name, scratch buffers by size."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.functions: dict[tuple[int, str], int] = {}
        self.device: dict[tuple[int, int, int], int] = {}
        self.host: dict[tuple[int, int], int] = {}
        self.default_ctx: int = 0


_SCRATCH: _state.PerDriver[_Scratch] = _state.PerDriver(_Scratch)


def scratch_buffer(drv: Driver) -> _Scratch:
    return _SCRATCH.of(drv)


@contextlib.contextmanager
def in_context(drv: Driver, ctx: int, relaxed: bool = False) -> Iterator[None]:
    """Run with ``ctx`` current on this thread (pushed and popped if needed), optionally with the
    thread's capture interaction mode exchanged to RELAXED so that set-up calls (cuMemAlloc,
    cuModuleLoadData) are allowed while a GLOBAL capture is live (spec 5.2)."""
    pushed = False
    if drv.ctx_get_current() != ctx:
        drv.ctx_push_current(ctx)
        pushed = True
    old = drv.thread_exchange_stream_capture_mode(CAPTURE_MODE_RELAXED) if relaxed else None
    try:
        yield
    finally:
        if old is not None:
            drv.thread_exchange_stream_capture_mode(old)
        if pushed:
            drv.ctx_pop_current()


# ================================================================================== Device / Context / Stream
class _OnDriver:
    """What the oxicuda objects share: the driver they act on."""

    __slots__ = ("_driver",)
    _driver: Driver | None

    @property
    def driver(self) -> Driver:
        """The simulated driver this object acts on: the one given when it was made, else the current
        one at each call (after ``simcuda.use()`` or ``simcuda.reset()`` a handle of the earlier driver is
        refused by the new one, as an invalid handle, with a ``why`` naming the driver it came from)."""
        return self._driver if self._driver is not None else _state.current()


class Device(_OnDriver):
    """A CUDA device by ordinal (a minimal oxicuda ``Device``).

    Mirrors: ``oxicuda_driver::Device``: ``get``, ``count``, ``name``, ``total_memory``.
    Every constructor first brings the driver up (oxicuda ``try_driver``): ``CudaError.NotInitialized``
    on a ``Driver(available=False)``.

    Args:
        ordinal: the device ordinal (use :meth:`get`, which validates it).
        driver: the simulated driver (default: the current one, ``simcuda.current_driver()``).
    """

    __slots__ = ("_ordinal",)

    def __init__(self, ordinal: int, driver: Driver | None = None) -> None:
        self._ordinal = int(ordinal)
        self._driver = driver

    @classmethod
    def get(cls, ordinal: int = 0) -> Device:
        """``cuDeviceGet``. Errors: ``NotInitialized`` (no driver); ``InvalidDevice`` (bad ordinal)."""
        drv = _state.current()
        try_driver(drv)
        with translated():
            return cls(drv.device_get(check_uint(ordinal, U32, "ordinal")))

    @staticmethod
    def count() -> int:
        """``cuDeviceGetCount``. Errors: ``NotInitialized``."""
        drv = _state.current()
        try_driver(drv)
        with translated():
            return drv.device_get_count()

    def ordinal(self) -> int:
        """The device ordinal."""
        return self._ordinal

    raw = ordinal

    def name(self) -> str:
        """``cuDeviceGetName``."""
        with translated():
            return self.driver.device_get_name(self._ordinal)

    def total_memory(self) -> int:
        """``cuDeviceTotalMem``: bytes."""
        with translated():
            return self.driver.device_total_mem(self._ordinal)

    def __repr__(self) -> str:
        return f"<simcuda.faces.oxicuda.stream_capture.Device {self._ordinal}>"


class Context(_OnDriver):
    """A CUDA context handle (a minimal oxicuda ``Context``).

    Mirrors: ``oxicuda_driver::Context`` (``new``, ``set_current``, ``synchronize``, ``raw``) and
    the primary context (``PrimaryContext``) through :meth:`primary`.

    Args:
        handle: an existing context handle.
        driver: the simulated driver (default: the current one).

    Fidelity: no RAII destroy: Python objects are not destroyed deterministically, so the context
    lives until the driver does (or until ``driver.ctx_destroy(ctx.raw())``).
    """

    __slots__ = ("_handle",)

    def __init__(self, handle: int, driver: Driver | None = None) -> None:
        self._handle = int(handle)
        self._driver = driver

    @classmethod
    def new(cls, device: Device) -> Context:
        """``cuCtxCreate(0, device)``: a new context, pushed current on this thread.

        Errors: ``NotInitialized``; ``InvalidDevice``; capture errors while a capture forbids it.
        """
        drv = device.driver
        try_driver(drv)
        with translated():
            return cls(drv.ctx_create(0, device.ordinal()), device._driver)

    @classmethod
    def primary(cls, device: Device | None = None) -> Context:
        """``cuDevicePrimaryCtxRetain``: the device's primary context (device 0 by default).

        The current context of the thread is not changed. Errors: ``NotInitialized``; ``InvalidDevice``.
        """
        drv = device.driver if device is not None else _state.current()
        try_driver(drv)
        with translated():
            return cls(drv.device_primary_ctx_retain(device.ordinal() if device is not None else 0),
                       device._driver if device is not None else None)

    def raw(self) -> int:
        """The ``CUcontext`` handle (``int``)."""
        return self._handle

    def set_current(self) -> None:
        """``cuCtxSetCurrent``."""
        with translated():
            self.driver.ctx_set_current(self._handle)

    def synchronize(self) -> None:
        """``cuCtxSynchronize`` on this context. Errors: ``StreamCaptureUnsupported`` during its capture."""
        with translated(), in_context(self.driver, self._handle):
            self.driver.ctx_synchronize()

    def __repr__(self) -> str:
        return f"<simcuda.faces.oxicuda.stream_capture.Context 0x{self._handle:x}>"


class Stream(_OnDriver):
    """A CUDA stream for this face (a minimal oxicuda ``Stream``).

    Mirrors: ``oxicuda_driver::Stream``: ``new`` (always ``CU_STREAM_NON_BLOCKING``),
    ``synchronize``, ``raw``. ``Stream(handle)`` wraps an existing simulated stream handle (any
    face's), on the current driver unless ``driver`` is given; APIs taking a stream also accept a
    plain ``int`` handle.

    Args:
        handle: a ``CUstream`` handle of the simulated driver.
        driver: the simulated driver (default: the current one).
    """

    __slots__ = ("_handle", "_ctx")

    def __init__(self, handle: int, driver: Driver | None = None) -> None:
        if isinstance(handle, bool) or not isinstance(handle, int):
            raise TypeError(f"a stream handle must be an int, not {type(handle).__name__}")
        self._handle = handle
        self._driver = driver
        self._ctx = 0

    @classmethod
    def new(cls, ctx: Context | None = None) -> Stream:
        """``cuStreamCreate(CU_STREAM_NON_BLOCKING)`` in ``ctx``.

        Args:
            ctx: the context; by default the primary context of device 0 of the current driver
                (initialised and retained once per driver, as needed).

        Returns: the new stream. The thread's current context is left as it was.
        Errors: ``NotInitialized`` on a driver that is unavailable; any other driver error as its variant.
        """
        drv = ctx.driver if ctx is not None else _state.current()
        bound = ctx._driver if ctx is not None else None
        try_driver(drv)
        with translated():
            if ctx is None:
                sc = scratch_buffer(drv)
                if not sc.default_ctx:
                    sc.default_ctx = drv.device_primary_ctx_retain(0)
                hctx = sc.default_ctx
            else:
                hctx = ctx.raw()
            with in_context(drv, hctx):
                h = drv.stream_create(STREAM_NON_BLOCKING)
        s = cls(h, bound)
        s._ctx = hctx
        return s

    def raw(self) -> int:
        """The ``CUstream`` handle (``int``)."""
        return self._handle

    def context_handle(self) -> int:
        """The handle of the stream's context (``cuStreamGetCtx``). A Python extra."""
        if not self._ctx:
            with translated():
                self._ctx = self.driver.stream_get_ctx(self._handle)
        return self._ctx

    def synchronize(self) -> None:
        """``cuStreamSynchronize``. Errors: ``StreamCaptureUnsupported`` on a capturing stream
        (and the capture is invalidated, spec 6)."""
        with translated():
            self.driver.stream_synchronize(self._handle)

    def __repr__(self) -> str:
        return f"<simcuda.faces.oxicuda.stream_capture.Stream 0x{self._handle:x}>"


def as_stream(stream: Any) -> Stream:
    """A :class:`Stream` from what ``begin`` takes: a Stream, an ``int`` handle, or a driver face's stream handle
    (``cuda.bindings.driver.CUstream``, simcuda's or NVIDIA's on the native route: anything with ``__int__``)."""
    if isinstance(stream, Stream):
        return stream
    if isinstance(stream, bool):
        raise TypeError("expected a simcuda.faces.oxicuda.stream_capture.Stream, a CUstream or an int stream handle, "
                        "not bool")
    if isinstance(stream, int):
        return Stream(stream)
    to_int = getattr(type(stream), "__int__", None)
    if to_int is not None and not isinstance(stream, float):
        return Stream(int(to_int(stream)))
    raise TypeError("expected a simcuda.faces.oxicuda.stream_capture.Stream, a CUstream or an int stream handle, not "
                    f"{type(stream).__name__}")


# ================================================================================== StreamGraphCapture
def driver_available() -> bool:
    """Whether the current simulated driver is usable (``Driver(available=...)``): what oxicuda's
    ``try_driver`` checks; read without a driver call."""
    return bool(_state.current().available)


def destroy_exec(drv_ref: Callable[[], Driver | None], hg: int, hexec: int) -> None:
    """oxicuda 0.5 ``Drop for GraphExec``: destroy the exec, then its graph; errors are ignored (oxicuda logs
    them)."""
    drv = drv_ref()
    if drv is None:
        return
    for destroy, h in ((drv.graph_exec_destroy, hexec), (drv.graph_destroy, hg)):
        with contextlib.suppress(Exception):
            destroy(h)
