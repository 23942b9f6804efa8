"""Fault injection and call assertions: make a chosen driver entry fail, and check what a block of code called.

What moto and fakeredis users reach for first, for the error paths of a program that a working simulator never
takes: ``cuMemAlloc`` answering ``CUDA_ERROR_OUT_OF_MEMORY`` on the third call, ``cuStreamSynchronize``
answering 700, an NVRTC compilation that fails. Everything here observes or refuses calls through the driver's
entry hooks (:meth:`simcuda.Driver.add_hook`), so it works the same on every face and route: the Python faces, the
native route (NVIDIA's own ``cuda.bindings``, cuda.core and numba-cuda over the simulated ``libcuda.so.1``) and
the runtime face, whose calls reach the same core entries (a runtime call answers the runtime code the driver
code maps to, as the real runtime does).

* :func:`inject` refuses calls of one entry with a chosen code: every call, the ``nth`` one, ``times`` calls
  from there, or those a predicate picks. A context manager (or call :meth:`Injection.remove`).
* :func:`record_calls` records the calls of chosen entries (arguments, result code) and asserts on them, in the
  spirit of :meth:`unittest.mock.Mock.assert_called_with`; :meth:`CallRecorder.launches` gives the kernel
  launches by kernel name.
* :func:`expect_no_failures`: a block in which no simulated call may fail (an ``AssertionError`` listing each
  failed call with its code and why).
* :func:`raise_failures`: a block in which every failed call raises :class:`CallFailed` where it was made (entry,
  code, why) instead of returning its code, and a Python kernel's exception is raised at once
  (``Options.kernel_faults="raise"``): a test stops at the first failure (``pytest --simcuda-raise``).

The pytest plugin adds the ``simcuda_faults`` fixture and the ``@pytest.mark.simcuda_fault(...)`` marker, which
use these on the test's driver (docs/testing-on-ci.md).

Entries are named as the driver API names them (``"cuMemAlloc"``, ``"cuLaunchKernel"``; the ``_v2`` spelling
``"cuMemAlloc_v2"`` is the same entry), by a runtime name (``"cudaMalloc"``: the driver entry it maps to), or by
the core method (``"mem_alloc"``). An injected failure is an ordinary refused call: it is the thread's last
error (``simcuda.last_error()``), it is in ``driver.error_log`` with the why, and nothing of the call's work is
done. Fidelity note: injection refuses a call before its body runs, so a fault the real driver reports *after*
doing part of the work (a 700 from a synchronisation whose kernels ran) leaves here the state of a call that did
nothing; what a test observes is the code and the why.
"""
from __future__ import annotations

import inspect
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import attrs

from ._core.errors import CallFailed, CUresult, DriverError
from ._core.process import renew_lock_after_fork

if TYPE_CHECKING:
    from ._core.facade import Driver

__all__ = ["Call", "CallFailed", "CallRecorder", "Injection", "NvrtcInjection", "expect_no_failures", "inject",
           "raise_failures", "record_calls"]


@attrs.frozen
class Call:
    """One call of a core entry, as :class:`CallRecorder` saw it.

    Attributes:
        entry: the driver API name of the call (``"cuMemAlloc"``; for a core method serving several entries, the
            one this call was made as).
        args: the core method's arguments by parameter name (handles as ``int``, sizes in bytes; a launch's
            ``hfunc``, ``grid``, ``block``, ``shmem``, ``h`` (the stream handle) and ``args`` (the kernel
            arguments as values)).
        code: the call's ``CUresult`` as an ``int`` (0 for a success).
        why: the refusal's reason (empty for a success).
        kernel: for a launch, the kernel's name (``None`` otherwise).
    """

    entry: str
    args: dict[str, Any]
    code: int
    why: str = ""
    kernel: str | None = None


def _driver(driver: Driver | None) -> Driver:
    if driver is not None:
        return driver
    from ._state import current
    return current()


def core_method(entry: str) -> tuple[str, str | None]:
    """``(core method, driver API name or None)`` for ``entry``: a driver API name (``cuMemAlloc``, its ``_v2``
    spelling), a runtime name (``cudaMalloc``), or a core method name (``mem_alloc``; then no API name: every call
    of the method counts). Raises ``ValueError`` naming the entry when simcuda simulates no such entry.

    A row naming several core operations (``cuLaunchKernelEx``: its checks, then the launch) is served by the one
    made as that entry: the operation named for it, else the one whose ``call`` argument defaults to it, else the
    last one, not an argument check (``check_*``, ``require_*``), that takes a ``call`` argument."""
    from ._core.api import API, RUNTIME
    from ._core.state import ENTRIES, _c_name
    if not isinstance(entry, str):
        raise TypeError(f"an entry is named by a str (\"cuMemAlloc\"), not {type(entry).__name__}")
    if entry in ENTRIES:
        return entry, None
    name = RUNTIME.get(entry, entry)
    for candidate in (name, name.removesuffix("_v2"), name.removesuffix("_v3")):
        row = API.get(candidate)
        # an operation that is no entry is a fast path of one (``launch_kernel_fast``: hooked calls take the entry)
        ops = [e for e in (_entry_of(op, ENTRIES) for op in (row.ops if row is not None else ())) if e is not None]
        if not ops:
            continue
        defaults = {op: getattr(inspect.signature(ENTRIES[op]).parameters.get("call"), "default", None) for op in ops}
        work = [op for op in ops if not op.startswith(("check_", "require_"))] or ops  # not the argument checks
        chosen = (next((op for op in work if _c_name(op) == candidate), None)
                  or next((op for op in work if defaults[op] == candidate), None)
                  or next((op for op in reversed(work) if defaults[op] is not None), work[0]))
        return chosen, candidate
    raise ValueError(f"{entry!r} is no driver entry simcuda simulates (a driver API name such as 'cuMemAlloc', a "
                     "runtime name such as 'cudaMalloc', or a core method such as 'mem_alloc'; "
                     "docs/supported-api.md lists them)")


def _entry_of(op: str, entries: dict[str, Any]) -> str | None:
    if op in entries:
        return op
    return next((e for e in entries if op.startswith(e + "_")), None)


def _names(api: str | None) -> frozenset[str] | None:
    """The call names that count as entry ``api``: its own, its ``_v2`` spelling, and the runtime entries the
    runtime face serves with it (``cudaMalloc`` for ``cuMemAlloc``); ``None`` (every call) without one."""
    if api is None:
        return None
    from ._core.api import RUNTIME
    return frozenset({api, api + "_v2", *(r for r, d in RUNTIME.items() if d.removesuffix("_v2") == api)})


def _bind(method: str) -> Callable[[tuple[Any, ...], dict[str, Any]], dict[str, Any]]:
    """A function giving a core method's arguments by name from a hooked call's ``(args, kwargs)``."""
    from ._core.state import ENTRIES
    sig = inspect.signature(ENTRIES[method])
    params = list(sig.parameters)[1:]  # without self

    def bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        out = {p: sig.parameters[p].default for p in params
               if sig.parameters[p].default is not inspect.Parameter.empty}
        out.update(zip(params, args))
        out.update(kwargs)
        return out
    return bind


def _call_name(method: str, api: str | None, bound: dict[str, Any]) -> str:
    """The API name a call of ``method`` was made as: its ``call`` argument, else the method's own entry."""
    call = bound.get("call")
    if isinstance(call, str):
        return call
    if api is not None:
        return api
    from ._core.state import _c_name
    return _c_name(method)


class Injection:
    """A fault put on one entry by :func:`inject`: refuses matching calls with :attr:`code`.

    Attributes:
        entry: the entry as given.
        code: the ``CUresult`` (int) refused calls answer.
        calls: how many calls of the entry it has seen since it was put on (matching the predicate or not).
        fired: how many it refused.
    """

    def __init__(self, drv: Driver, entry: str, code: int, nth: int | None, times: int | None,
                 when: Callable[[Call], bool] | None, why: str | None) -> None:
        self.entry = entry
        self.code = int(code)
        self.calls = 0
        self.fired = 0
        self._drv = drv
        self._method, self._api = core_method(entry)
        self._names = _names(self._api)
        self._bind = _bind(self._method)
        self._nth, self._times, self._when = nth, times, when
        self._why = why or (f"injected by simcuda.inject({entry!r}, {_code_text(self.code)}"
                            + (f", nth={nth}" if nth is not None else "") + "): the simulated driver refused this "
                            "call on purpose, to exercise the program's error path")
        self._count_lock = threading.Lock()
        self._hook = self._before  # one bound method, the same for add_hook and remove_hook
        drv.add_hook(self._method, before=self._hook)
        self._active = True

    def _before(self, drv: Driver, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        bound = self._bind(args, kwargs)
        name = _call_name(self._method, self._api, bound)
        if self._names is not None and name not in self._names:
            return None
        with self._count_lock:
            self.calls += 1
            seen = self.calls
            if self._nth is not None and seen < self._nth:
                return None
            if self._times is not None and self.fired >= self._times:
                return None
            if self._when is not None and not self._when(Call(name, bound, 0, "", _kernel_name(drv, bound))):
                return None
            self.fired += 1
        raise DriverError(CUresult(self.code), self._why)

    def remove(self) -> None:
        """Take the fault off (calls of the entry run normally again); removing twice does nothing."""
        if self._active:
            self._drv.remove_hook(self._method, before=self._hook)
            self._active = False

    def __enter__(self) -> Injection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _code_text(code: int) -> str:
    try:
        return f"{CUresult(code).name} ({code})"
    except ValueError:
        return str(code)


def _kernel_name(drv: Driver, bound: dict[str, Any]) -> str | None:
    h = bound.get("hfunc")
    if not isinstance(h, int) or not h:
        return None
    f = drv.objects.get(h)
    name = getattr(f, "name", None)
    return name if isinstance(name, str) else None


def inject(entry: str, code: int, *, nth: int | None = None, times: int | None = None,
           when: Callable[[Call], bool] | None = None, why: str | None = None,
           driver: Driver | None = None) -> Injection | NvrtcInjection:
    """Make calls of ``entry`` fail with ``code``, on ``driver`` (default: the current driver, what the faces act on).

    Args:
        entry: the driver API name (``"cuMemAlloc"``), a runtime name (``"cudaMalloc"``), a core method, or
            ``"nvrtcCompileProgram"`` (:class:`NvrtcInjection`: a compilation that fails, ``code`` an
            ``nvrtcResult`` such as ``NVRTC_ERROR_COMPILATION``, 6).
        code: the ``CUresult`` the refused calls answer (an int or a ``CUresult``; through the runtime face, the
            runtime code it maps to); not 0.
        nth: refuse from the ``nth`` call on (1-based, counted from now); with no ``times``, only that call.
        times: how many calls to refuse (default: all of them, or one with ``nth``).
        when: refuse only the calls for which ``when(call)`` is true; ``call`` is a :class:`Call` (``args`` by the
            core's parameter names, ``kernel`` for a launch). ``nth`` counts every call, ``times`` the refused.
        why: the refusal's why (default: one naming the injection).

    Returns an :class:`Injection` (an :class:`NvrtcInjection` for NVRTC), a context manager; the fault stays
    until it exits or :meth:`Injection.remove`.
    Raises ``ValueError`` for an entry simcuda does not simulate, a success code or a count below 1.

    Example::

        with simcuda.inject("cuMemAlloc", CUresult.CUDA_ERROR_OUT_OF_MEMORY, nth=3):
            run_my_allocator()   # its third cuMemAlloc answers 2
    """
    code = int(code)
    if code == 0:
        raise ValueError("inject() needs a failure code; 0 is CUDA_SUCCESS")
    for what, n in (("nth", nth), ("times", times)):
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            raise ValueError(f"inject({what}=...) needs a positive int, got {n!r}")
    if times is None and nth is not None:
        times = 1
    if isinstance(entry, str) and entry.startswith("nvrtc"):
        return NvrtcInjection(entry, code, nth, times, when)
    return Injection(_driver(driver), entry, code, nth, times, when, why)


#: the NVRTC entries :func:`inject` can refuse, with the number of outputs after the result code
NVRTC_ENTRIES = {"nvrtcCompileProgram": 0}


class NvrtcInjection:
    """A fault put on an NVRTC entry by :func:`inject` (``nvrtcCompileProgram``: a compilation that fails). NVRTC is no
    driver entry, and is reached two ways, both covered:

    * the Python modules, simcuda's NVRTC face (the Python route) and NVIDIA's ``cuda.bindings.nvrtc``: the
      injection wraps the function in each one loaded (the module attribute, which a program calling
      ``nvrtc.nvrtcCompileProgram`` looks up at each call) and answers ``(nvrtcResult(code),)`` for the calls it
      picks;
    * NVRTC's C interface on the native route (cuda.core's ``Program`` and numba-cuda call ``cynvrtc`` from
      Cython): simcuda's ``libnvrtc.so.13`` shim asks a gate before it forwards ``nvrtcCompileProgram``
      (:func:`simcuda.faces.native.compilers.set_gate`), and a picked call returns ``code`` there, so cuda.core
      raises its ``NVRTCError`` as for a real failure. While the shim serves, NVIDIA's module is not wrapped (its
      calls reach the gate), and a call of simcuda's face that the injection let through is not counted again
      when it reaches the shim.

    A refused compilation leaves the program uncompiled (its log is what NVRTC made of nothing). ``when`` gets a
    :class:`Call` with ``args`` ``{"prog", "numOptions", "options"}`` (at the gate: the program handle as an int
    and the options as a list of ``bytes``). Same attributes as :class:`Injection`.
    """

    def __init__(self, entry: str, code: int, nth: int | None, times: int | None,
                 when: Callable[[Call], bool] | None) -> None:
        import sys
        if entry not in NVRTC_ENTRIES:
            raise ValueError(f"inject() refuses NVRTC entries other than {sorted(NVRTC_ENTRIES)}, not {entry!r}")
        self.entry, self.code, self.calls, self.fired = entry, int(code), 0, 0
        self._nth, self._times, self._when = nth, times, when
        self._lock = threading.Lock()
        self._saved: list[tuple[Any, Any]] = []
        self._gated = _nvrtc_gate_add(self)
        for name in ("simcuda.faces.bindings.nvrtc", "cuda.bindings.nvrtc"):
            if self._gated and name == "cuda.bindings.nvrtc":
                continue  # its calls reach the shim's gate
            mod = sys.modules.get(name)
            fn = getattr(mod, entry, None)
            if fn is not None and not getattr(fn, "__simcuda_injected__", False):
                setattr(mod, entry, self._wrap(mod, fn))
                self._saved.append((mod, fn))

    def _wrap(self, mod: Any, fn: Callable[..., Any]) -> Callable[..., Any]:
        def injected(*args: Any) -> Any:
            if self._picks(dict(zip(("prog", "numOptions", "options"), args))):
                return (mod.nvrtcResult(self.code),)
            _passed.inside = getattr(_passed, "inside", 0) + 1  # decided here: the shim's gate lets it through
            try:
                return fn(*args)
            finally:
                _passed.inside -= 1
        injected.__simcuda_injected__ = True  # type: ignore[attr-defined]
        injected.__doc__ = fn.__doc__
        return injected

    def _picks(self, args: dict[str, Any]) -> bool:
        with self._lock:
            self.calls += 1
            if self._nth is not None and self.calls < self._nth:
                return False
            if self._times is not None and self.fired >= self._times:
                return False
            if self._when is not None and not self._when(Call(self.entry, args, 0)):
                return False
            self.fired += 1
            return True

    def remove(self) -> None:
        """Put the NVRTC functions back and leave the shim's gate; removing twice does nothing."""
        while self._saved:
            mod, fn = self._saved.pop()
            setattr(mod, self.entry, fn)
        if self._gated:
            self._gated = False
            _nvrtc_gate_remove(self)

    def __enter__(self) -> NvrtcInjection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


_passed = threading.local()  # .inside: a wrapped Python-module call is running (the gate does not count it again)
_gate_lock = threading.Lock()
renew_lock_after_fork(globals(), "_gate_lock")  # a forked child makes it anew
_gate_users: list[NvrtcInjection] = []  # the NVRTC injections the shim's gate asks, in order


def _nvrtc_gate(what: int, handle: int, num_options: int, options: int) -> int:
    """The shim's gate (:func:`simcuda.faces.native.compilers.set_gate`): the first active injection that picks
    this ``nvrtcCompileProgram`` gives its code; 0 lets the compilation run."""
    import ctypes

    from .faces.native import compilers
    inside: int = getattr(_passed, "inside", 0)
    if what != compilers.NVRTC_COMPILE or inside:
        return 0
    with _gate_lock:
        users = list(_gate_users)
    opts = ctypes.cast(options, ctypes.POINTER(ctypes.c_char_p)) if options else None
    args = {"prog": handle, "numOptions": num_options,
            "options": [opts[i] or b"" for i in range(num_options)] if opts is not None else []}
    for inj in users:
        if inj._picks(args):
            return inj.code
    return 0


def _nvrtc_gate_add(inj: NvrtcInjection) -> bool:
    """Put ``inj`` behind the native NVRTC shim's gate; False when no shim serves (nothing to gate)."""
    import sys
    native = sys.modules.get("simcuda.faces.native.compilers")
    if native is None or "nvrtc" not in native.installed():
        return False
    with _gate_lock:
        _gate_users.append(inj)
        if len(_gate_users) == 1:
            native.set_gate("nvrtc", _nvrtc_gate)
    return True


def _nvrtc_gate_remove(inj: NvrtcInjection) -> None:
    import sys
    native = sys.modules.get("simcuda.faces.native.compilers")
    with _gate_lock:
        if inj in _gate_users:
            _gate_users.remove(inj)
        if not _gate_users and native is not None:
            native.set_gate("nvrtc", None)


class CallRecorder:
    """The calls of chosen entries, recorded by :func:`record_calls` (a context manager).

    Attributes:
        calls: every recorded :class:`Call`, in order (successes and failures).
    """

    def __init__(self, drv: Driver, entries: tuple[str, ...]) -> None:
        self.calls: list[Call] = []
        self._drv = drv
        self._hooks: list[tuple[str, Any, Any]] = []
        self._lock = threading.Lock()
        for entry in entries:
            method, api = core_method(entry)
            after, failed = self._observers(method, api, _names(api), _bind(method))
            drv.add_hook(method, after=after, failed=failed)
            self._hooks.append((method, after, failed))

    def _observers(self, method: str, api: str | None, names: frozenset[str] | None,
                   bind: Callable[..., dict[str, Any]]) -> tuple[Any, Any]:
        def keep(drv: Driver, args: tuple[Any, ...], kwargs: dict[str, Any], code: int, why: str) -> None:
            bound = bind(args, kwargs)
            name = _call_name(method, api, bound)
            if names is None or name in names:
                with self._lock:
                    self.calls.append(Call(name, bound, code, why, _kernel_name(drv, bound)))

        def after(drv: Driver, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any, token: Any) -> None:
            keep(drv, args, kwargs, 0, "")

        def failed(drv: Driver, args: tuple[Any, ...], kwargs: dict[str, Any], e: DriverError, token: Any) -> None:
            keep(drv, args, kwargs, int(e.code), e.why)
        return after, failed

    def stop(self) -> None:
        """Stop recording (the calls recorded so far stay); stopping twice does nothing."""
        for method, after, failed in self._hooks:
            self._drv.remove_hook(method, after=after, failed=failed)
        self._hooks.clear()

    def __enter__(self) -> CallRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def named(self, entry: str) -> list[Call]:
        """The recorded calls made as ``entry`` (an API name; its ``_v2`` spelling and the runtime entries served
        by it count as it)."""
        names = _names(core_method(entry)[1]) or {entry}
        return [c for c in self.calls if c.entry in names or c.entry == entry]

    def launches(self, kernel: str | None = None) -> list[Call]:
        """The recorded kernel launches that the driver took (code 0), of ``kernel`` when given."""
        return [c for c in self.calls if c.kernel is not None and c.code == 0 and kernel in (None, c.kernel)]

    def assert_called(self, entry: str | None = None, *, times: int | None = None, **args: Any) -> None:
        """Assert that calls were recorded (of ``entry`` when given), ``times`` of them when given, counting only
        those whose core arguments equal ``args`` (``assert_called("cuMemAlloc", times=2, size=256)``).
        Raises ``AssertionError`` listing what was recorded."""
        pool = self.calls if entry is None else self.named(entry)
        hits = [c for c in pool if all(c.args.get(k) == v for k, v in args.items())]
        ok = len(hits) == times if times is not None else bool(hits)
        if not ok:
            want = f"{times} call(s)" if times is not None else "a call"
            raise AssertionError(f"expected {want} of {entry or 'the recorded entries'}"
                                 + (f" with {args}" if args else "") + f", got {len(hits)}; recorded: "
                                 + _listing(self.calls))

    def assert_not_called(self, entry: str | None = None) -> None:
        """Assert that no call (of ``entry`` when given) was recorded."""
        pool = self.calls if entry is None else self.named(entry)
        if pool:
            raise AssertionError(f"expected no call of {entry or 'the recorded entries'}; recorded: "
                                 + _listing(pool))

    def assert_launched(self, kernel: str, *, times: int | None = None, args: list[Any] | None = None,
                        grid: tuple[int, ...] | None = None, block: tuple[int, ...] | None = None) -> None:
        """Assert that ``kernel`` was launched (``times`` times when given), counting only launches whose kernel
        arguments equal ``args`` and whose ``grid``/``block`` equal those given (3-tuples)."""
        hits = [c for c in self.launches(kernel)
                if (args is None or list(c.args.get("args") or []) == list(args))
                and (grid is None or tuple(c.args.get("grid") or ()) == tuple(grid))
                and (block is None or tuple(c.args.get("block") or ()) == tuple(block))]
        ok = len(hits) == times if times is not None else bool(hits)
        if not ok:
            want = f"{times} launch(es)" if times is not None else "a launch"
            seen = ", ".join(f"{c.kernel}{tuple(c.args.get('args') or ())}" for c in self.launches()) or "none"
            raise AssertionError(f"expected {want} of kernel {kernel!r}, got {len(hits)}; launches: {seen}")


def _listing(calls: list[Call]) -> str:
    if not calls:
        return "none"
    shown = "; ".join(f"{c.entry}({', '.join(f'{k}={v!r}' for k, v in c.args.items() if k != 'call')})"
                      f" -> {c.code}" for c in calls[:10])
    return shown + (f"; ... {len(calls) - 10} more" if len(calls) > 10 else "")


_LAUNCH_ENTRIES = ("cuLaunchKernel", "cuLaunchKernelEx", "cuLaunchCooperativeKernel")


def record_calls(*entries: str, driver: Driver | None = None) -> CallRecorder:
    """Record the calls of ``entries`` on ``driver`` (default: the current driver) until the returned
    :class:`CallRecorder` exits (or :meth:`CallRecorder.stop`). With no entries, the kernel launch entries.

    Example::

        with simcuda.record_calls("cuMemAlloc", "cuLaunchKernel") as rec:
            run_my_program()
        rec.assert_called("cuMemAlloc", times=2)
        rec.assert_launched("saxpy", times=1)
    """
    return CallRecorder(_driver(driver), tuple(dict.fromkeys(entries or _LAUNCH_ENTRIES)))


@contextmanager
def expect_no_failures(driver: Driver | None = None) -> Iterator[None]:
    """A block in which no call on ``driver`` (default: the current driver) may fail: on leaving it, an
    ``AssertionError`` lists each call that failed inside (entry, code name, why). Calls made by the block that
    raised are listed too (the block's own exception then comes first, with this one as its context)."""
    drv = _driver(driver)
    start = len(drv.error_log)
    yield
    failed = drv.error_log[start:]
    if failed:
        lines = [f"  {r.call} -> {_code_text(r.code)}: {r.why}" for r in failed[:20]]
        more = f"\n  ... {len(failed) - 20} more" if len(failed) > 20 else ""
        raise AssertionError(f"{len(failed)} simulated call(s) failed inside expect_no_failures():\n"
                             + "\n".join(lines) + more)


@contextmanager
def raise_failures(driver: Driver | None = None, kernels: bool = True) -> Iterator[None]:
    """A block in which every call on ``driver`` (default: the current driver) that does not return
    ``CUDA_SUCCESS`` raises :class:`CallFailed` (entry, code, why) where the program made it, after it is recorded
    as any failure (the thread's last error, ``error_log``); with ``kernels``, a Python kernel's or PTX kernel's
    fault raises its exception at the launch instead of becoming a sticky error (``Options.kernel_faults``).
    ``CallFailed`` is a ``BaseException``: the program's own ``except Exception`` does not catch it, and it
    crosses the native route's C boundary as Ctrl-C does. On leaving the block the driver answers codes again."""
    drv = _driver(driver)
    before = (drv.raise_failures, drv.options.kernel_faults)
    drv.raise_failures = True
    if kernels:
        drv.options = attrs.evolve(drv.options, kernel_faults="raise")
    try:
        yield
    finally:
        drv.raise_failures = before[0]
        if kernels:
            drv.options = attrs.evolve(drv.options, kernel_faults=before[1])
