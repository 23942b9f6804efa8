"""The threads of one driver and their current contexts (spec section 1, Thread): a service of ``DriverState``.

Python reuses thread idents, so each :class:`~simcuda._core.objects.ThreadState` remembers its thread object:
a new thread with a recycled ident starts afresh (GLOBAL mode, no context; spec 1, 2.5), and
``ThreadState.tid`` is a serial number never reused within the driver. A host function runs with a state of its
own (:meth:`Threads.host_fn_state`), so the calls it makes are refused (spec 3.9) and their errors are its own.

It knows nothing of handles, captures or the faces.
"""
from __future__ import annotations

import threading
import weakref

from .errors import CUresult, DriverError
from .objects import Context, ThreadState


def sticky(ctx: Context) -> DriverError:
    """The sticky error of context ``ctx`` (a Python kernel faulted in it, ``Context.fault``), as a fresh error for
    this call: every call that uses a faulted context answers it, as on a GPU, until the context is destroyed or
    the primary context reset (``Options.kernel_faults``)."""
    f = ctx.fault
    assert f is not None
    return DriverError(f.code, f"context 0x{ctx.handle:x} has a sticky error: {f.why}")


class Threads:
    """Per-thread state of one driver, by thread ident, with a thread-local slot for the fast look-up.

    ``tls.state`` is the calling thread's state once looked up (the entry wrapper reads it first); it lives
    exactly as long as the thread.
    """

    __slots__ = ("_by_ident", "tls", "_serial")

    def __init__(self) -> None:
        self._by_ident: dict[int, ThreadState] = {}
        self.tls = threading.local()
        self._serial = 0

    def current(self) -> ThreadState:
        """The calling thread's state (made on its first call; a recycled ident with a new thread starts afresh)."""
        try:
            cached: ThreadState = self.tls.state
            return cached
        except AttributeError:
            pass
        ident = threading.get_ident()
        t = self._by_ident.get(ident)
        cur = threading.current_thread()
        if t is None or t.thread_ref() is not cur:
            self._serial += 1
            t = self._by_ident[ident] = ThreadState(self._serial, cur.name)
            t.thread_ref = weakref.ref(cur)
        self.tls.state = t
        return t

    def host_fn_state(self, outer: ThreadState) -> ThreadState:
        """A new state for a host function that ``outer``'s thread runs (``in_host_fn`` set: its CUDA calls are
        refused with 800, spec 3.9); install it with :meth:`install`, and ``outer`` again when the call returns."""
        self._serial += 1
        t = ThreadState(self._serial, f"{outer.name} (running a host function)")
        t.thread_ref = outer.thread_ref
        t.in_host_fn = 1
        return t

    def install(self, t: ThreadState) -> None:
        """Make ``t`` the calling thread's state (a host function's, or the one it replaced)."""
        self._by_ident[threading.get_ident()] = self.tls.state = t

    def ctx_current(self, t: ThreadState | None = None) -> Context:
        """The current context of thread ``t`` (default: the calling thread). Errors: 201 INVALID_CONTEXT when it
        has none; 709 CONTEXT_IS_DESTROYED when it was destroyed; the context's sticky error when a kernel
        faulted in it (P-9)."""
        t = t or self.current()
        ctx = t.current
        if ctx is None:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_CONTEXT,
                              f"thread {t.name} has no current context (cuCtxSetCurrent / cuCtxCreate / "
                              "cuDevicePrimaryCtxRetain first)")
        if ctx.destroyed:
            raise DriverError(CUresult.CUDA_ERROR_CONTEXT_IS_DESTROYED,
                              f"the current context 0x{ctx.handle:x} of thread {t.name} was destroyed")
        if ctx.fault is not None:
            raise sticky(ctx)
        return ctx
