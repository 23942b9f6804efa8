"""The current default driver that the faces act on (the only global; ``reset`` rebuilds it)."""
from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from ._core.facade import Driver
from ._core.process import renew_lock_after_fork

_T = TypeVar("_T")

_lock = threading.Lock()
renew_lock_after_fork(globals(), "_lock")  # a forked child makes it anew
_current: Driver | None = None


def current() -> Driver:
    """The driver the faces use now (created on first use with default settings)."""
    global _current
    d = _current
    if d is None:
        with _lock:
            if _current is None:
                _current = Driver()
            d = _current
    return d


def face_driver() -> Driver:
    """The current driver as every face acts on it (Python faces and native adapters alike): :func:`current`,
    with the default-stream mode fixed on first use (spec 6.1; ``ValueError`` for a malformed
    ``CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM``, on every call, like the binding)."""
    d = _current
    if d is None or d.per_thread_mode is None:
        d = current()
        d.resolve_per_thread_mode()
    return d


def use(driver: Driver) -> Driver:
    """Make ``driver`` the current default; returns the previous one (or a fresh default)."""
    global _current
    if not isinstance(driver, Driver):
        raise TypeError(f"simcuda.use() needs a simcuda.Driver, got {type(driver).__name__}")
    with _lock:
        old = _current
        _current = driver
    return old if old is not None else Driver()


def reset(**kwargs: Any) -> Driver:
    """Replace the current default with a fresh ``Driver(**kwargs)`` and return it."""
    global _current
    with _lock:
        _current = Driver(**kwargs)
        return _current


class PerDriver(Generic[_T]):
    """Side state a face keeps per driver (the runtime face's per-thread devices, NVRTC's programs, the
    oxicuda face's scratch): made by ``make()`` on a driver's first :meth:`of`, under a lock so two threads
    get the same object, and forgotten with the driver (weakly keyed, so it never keeps a driver alive)."""

    def __init__(self, make: Callable[[], _T]) -> None:
        self._make = make
        self._states: weakref.WeakKeyDictionary[Driver, _T] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        _PER_DRIVER.add(self)

    def after_fork_in_child(self) -> None:
        """A new lock in a forked child (a thread that held the old one at the fork is not there)."""
        self._lock = threading.Lock()

    def of(self, driver: Driver) -> _T:
        """The state of ``driver``, made on first use."""
        st = self._states.get(driver)
        if st is None:
            with self._lock:
                st = self._states.get(driver)
                if st is None:
                    st = self._states[driver] = self._make()
        return st


#: every PerDriver (weakly): their locks are made anew in a forked child (issue 19 item 5)
_PER_DRIVER: weakref.WeakSet[PerDriver[Any]] = weakref.WeakSet()


def _per_driver_after_fork() -> None:
    for pd in list(_PER_DRIVER):
        pd.after_fork_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_per_driver_after_fork)
