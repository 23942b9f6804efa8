"""The native library ``libcuda.so.1``: load it and fill its entry table, so NVIDIA's own cuda.bindings reaches simcuda.

From cuda.core 0.4 on, and in numba-cuda, driver calls go through cuda-bindings' Cython layer, which no
``sys.modules`` replacement reaches: it finds the driver as the shared library with the soname
``libcuda.so.1`` (through cuda.pathfinder, "already loaded?" first) and resolves every entry through that
library's ``cuGetProcAddress_v2`` (docs/native.md, /work/shared/design/NATIVE.md). ``pip install`` compiles
``libcuda.c`` (a table of (name, version) -> function pointer, with no CUDA semantics) next to this module.

Order matters, and is the caller's to keep:

1. :func:`available` says whether the route can be used here, and why not (not Linux, not built, no compiler
   at install time, a stale build, a cuda-bindings version other than those in :data:`SUPPORTED_BINDINGS`).
   It loads nothing.
2. :func:`load` loads the library by path with ``RTLD_GLOBAL``, so cuda.pathfinder finds it as already loaded.
   Once loaded, the binding keeps using it for the whole process: there is no unload, so a process that
   loaded it cannot also reach a real GPU through cuda.bindings.
3. :func:`set_entry` registers an adapter (a ctypes callback of the entry's C signature). The binding resolves
   all its entries at its first driver call and caches the pointers, but what the library hands out are
   trampolines that read the slot at every call, so an entry registered (or put back) later is seen too.
   :func:`lookup_count` says whether lookups happened. At interpreter exit (``atexit``), and whenever the
   interpreter is finalizing, the trampolines answer ``CUDA_ERROR_DEINITIALIZED`` (4) in C without touching
   Python, as the real driver answers during its shutdown; the entries that free (:data:`RELEASES`) answer
   ``CUDA_SUCCESS`` then.
4. :func:`call_counts` lists the entries the binding called that have no adapter (each answered 801,
   ``CUDA_ERROR_NOT_SUPPORTED``).
"""
from __future__ import annotations

import atexit
import ctypes
import importlib.metadata
import os
import pathlib
import re
import sys
import threading
from typing import Any

from ..._core.process import renew_lock_after_fork
from ..._core.state import DRIVER_VERSION
from ..._generated.entry_table import ENTRIES
from . import _build

__all__ = ["SUPPORTED_BINDINGS", "LIBRARY", "NativeUnavailable", "available", "load", "is_loaded", "index_of",
           "set_entry", "set_launch_memo", "set_layout", "memo_hits", "MEMO_MISS", "REPEAT", "call_counts",
           "not_simulated_calls", "reset_call_counts", "lookup_count", "set_driver_version", "RAISED", "RELEASES",
           "CLOSED_NULL_OUTPUTS", "CLOSED_SUCCESS",
           "hold_exception", "is_shut_down"]

SUPPORTED_BINDINGS = ("13.5",)
"""cuda-bindings releases (``major.minor``; any patch release) whose entry requests the library's table matches:
its table is the request list of cuda-bindings 13.5.0."""

LIBRARY = _build.HERE / _build.LIBRARY
"""Where ``pip install`` puts the library (``simcuda/faces/native/libcuda.so.1``)."""

_lock = threading.Lock()
renew_lock_after_fork(globals(), "_lock")  # a forked child makes it anew
_lib: ctypes.CDLL | None = None
_keep: dict[tuple[int, bool], Any] = {}  # the registered callbacks, so they are not collected while in use
_driver_version = DRIVER_VERSION
_INDEX = {(e.name, e.version): i for i, e in enumerate(ENTRIES)}


class NativeUnavailable(RuntimeError):
    """The native route cannot be used in this process; the message says why."""


def _bindings_version() -> str | None:
    """The installed cuda-bindings version, ``None`` when it is not installed."""
    try:
        return importlib.metadata.version("cuda-bindings")
    except importlib.metadata.PackageNotFoundError:
        return None


def _build_status(folder: pathlib.Path = _build.HERE) -> tuple[str, str, str]:
    """(state, detail, source digest) from ``build-status.txt``; ``("", "", "")`` when there is none."""
    try:
        lines = (folder / _build.STATUS).read_text().splitlines()
    except OSError:
        return "", "", ""
    lines += ["", "", ""]
    return lines[0], lines[1], lines[2]


def available() -> tuple[bool, str]:
    """Whether the native route can be used here: ``(True, where the library is)`` or ``(False, why not)``.

    Checks, without loading anything: the OS (Linux only), that the library was built (with the reason the
    install gave when it was not, e.g. no C compiler), that it was built from the sources now in the package
    (``pip install`` again after editing them), and that the installed cuda-bindings is one of
    :data:`SUPPORTED_BINDINGS`. With any of these failing, the Python faces (``simcuda.patch()``) still work.
    """
    if not sys.platform.startswith("linux"):
        return False, f"the native route needs Linux (this is {sys.platform}); the Python faces work without it"
    state, detail, digest = _build_status(LIBRARY.parent)
    if not LIBRARY.is_file():
        if state == "not built" and detail:
            why = f"libcuda.so.1 was not built at install time: {detail}"
        elif not state:
            why = (f"libcuda.so.1 is not built in {LIBRARY.parent}, and no install wrote a build report there: this "
                   "simcuda may be a source checkout on sys.path rather than the installed package (run from "
                   "another folder, or pip install it with a C compiler on PATH)")
        else:
            why = f"libcuda.so.1 is not built ({LIBRARY} is missing; reinstall simcuda with a C compiler on PATH)"
        return False, why + "; the Python faces work without it"
    current = _build.source_digest()
    if current and digest != current:
        return False, (f"{LIBRARY} was built from other sources than those in the package now; rebuild it "
                       "(pip install again, or python -m simcuda.faces.native._build)")
    version = _bindings_version()
    if version is None:
        return False, "cuda-bindings is not installed (the native route serves NVIDIA's cuda.bindings)"
    if not any(version == s or version.startswith(s + ".") for s in SUPPORTED_BINDINGS):
        return False, (f"cuda-bindings {version} is installed; the native route supports "
                       f"{', '.join(s + '.x' for s in SUPPORTED_BINDINGS)} (its table is the request list of 13.5.0); "
                       "the Python faces work without it")
    return True, str(LIBRARY)


def _foreign_driver_loaded() -> bool:
    """Whether some library with the soname libcuda.so.1 (a real driver) is already in this process."""
    try:
        ctypes.CDLL("libcuda.so.1", mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL)
    except OSError:
        return False
    return True


def load() -> ctypes.CDLL:
    """Load the library (once; later calls return the same handle) and check its table is the package's.

    Raises :class:`NativeUnavailable` when :func:`available` says no, when another ``libcuda.so.1`` (a real
    driver) is already loaded in this process, or when the library's table differs from
    ``simcuda._generated.entry_table``. Loading cannot be undone: the binding keeps this library for the process.
    """
    global _lib, _hold
    with _lock:
        if _lib is not None:
            return _lib
        ok, why = available()
        if not ok:
            raise NativeUnavailable(why)
        if _foreign_driver_loaded():
            raise NativeUnavailable("another libcuda.so.1 (a real CUDA driver?) is already loaded in this process; "
                                    "the native route needs a process of its own")
        lib = ctypes.CDLL(str(LIBRARY), mode=os.RTLD_GLOBAL)
        _declare(lib)
        _check_table(lib)
        lib.simcuda_set_driver_version(_driver_version)
        if lib.simcuda_bind_python() != 0:
            raise NativeUnavailable(f"{LIBRARY} cannot find the Python interpreter's functions in this process "
                                    "(dlsym); the native route needs them")
        _hold = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object)(("simcuda_hold_exception", lib))
        for i, e in enumerate(ENTRIES):
            if e.name in CLOSED_NULL_OUTPUTS:
                lib.simcuda_set_closed_answer(i, 2 + CLOSED_NULL_OUTPUTS[e.name])
            elif RELEASES.search(e.name) or e.name in CLOSED_SUCCESS:
                lib.simcuda_set_closed_answer(i, 1)
        # when the interpreter starts to finalize, every entry starts to answer 4 in C (module teardown and C++
        # destructors free handles after ctypes has stopped running callbacks)
        at_interpreter_end(lib.simcuda_shutdown)
        _lib = lib
        return lib


RELEASES = re.compile(r"^(?!cuGraphAdd)(?!.*GetParams).*(Destroy|Free|Release|Unload|Unregister|Unmap|CloseMemHandle)")
"""The entries that free or destroy something (by name): once the library has shut down (or the interpreter is
finalizing) they answer ``CUDA_SUCCESS`` in C, and every other entry ``CUDA_ERROR_DEINITIALIZED`` (P-78): what
cuda.core's destructors release while Python finalizes goes with the process, as on a real driver, which is
still alive then, and a call that would do anything else never silently succeeds."""

CLOSED_NULL_OUTPUTS = {"cuCtxGetCurrent": 0, "cuCtxPopCurrent": 0}
"""Entries that, once the library has shut down, answer ``CUDA_SUCCESS`` with NULL written through the pointer
parameter at that position: no context is current (what cuda.core's destructors ask before they free, P-78)."""

CLOSED_SUCCESS = frozenset({"cuCtxSetCurrent", "cuCtxPushCurrent"})
"""Entries with no output that answer ``CUDA_SUCCESS`` once the library has shut down, as the releases do: the
context switch cuda.core's destructors make around a free (P-78)."""

RAISED = -2
"""What an adapter returns to hand the exception it gave :func:`hold_exception` to the caller: the library
sets it as the calling thread's pending exception and answers ``CUDA_ERROR_NOT_FOUND`` (500), for which
cuda.bindings' wrappers check and raise it (libcuda.c, "the Python boundary"; checked at :func:`load`)."""

_hold: Any = None  # simcuda_hold_exception, called with the GIL held (a PYFUNCTYPE)


def hold_exception(exc: BaseException) -> int:
    """Keep ``exc`` as the outcome of the calling thread's current entry call and return :data:`RAISED`, the
    adapter's answer for it: the library raises ``exc`` in the caller (cuda.bindings' wrapper raises it as it
    is, so ``except KeyboardInterrupt`` runs). Only for an adapter called by the library; before :func:`load`
    it returns 999 (CUDA_ERROR_UNKNOWN), what the adapter answers then."""
    if _hold is None:
        return 999
    return int(_hold(exc))


def is_shut_down() -> bool:
    """Whether the library has shut down (:func:`at_interpreter_end`'s hook ran): every entry answers 4 in C."""
    return _lib is not None and bool(_lib.simcuda_is_shut_down())


def at_interpreter_end(c_function: Any) -> None:
    """Have the C function ``void f(void)`` called when Python starts to finalize (``atexit``): from then on
    ctypes no longer runs callbacks (a call would get an undefined result), so the library answers in C."""
    atexit.register(c_function)


def is_loaded() -> bool:
    """Whether :func:`load` has loaded the library in this process."""
    return _lib is not None


def _declare(lib: ctypes.CDLL) -> None:
    """Give the library's own functions their C signatures."""
    lib.simcuda_set_closed_answer.argtypes = [ctypes.c_int, ctypes.c_int]
    lib.simcuda_set_closed_answer.restype = ctypes.c_int
    lib.simcuda_set_entry.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p]
    lib.simcuda_set_entry.restype = ctypes.c_int
    lib.simcuda_entry_count.argtypes = []
    lib.simcuda_entry_count.restype = ctypes.c_int
    lib.simcuda_entry_name.argtypes = [ctypes.c_int]
    lib.simcuda_entry_name.restype = ctypes.c_char_p
    lib.simcuda_entry_version.argtypes = [ctypes.c_int]
    lib.simcuda_entry_version.restype = ctypes.c_int
    lib.simcuda_call_counts.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_int]
    lib.simcuda_call_counts.restype = ctypes.c_int
    lib.simcuda_reset_call_counts.argtypes = []
    lib.simcuda_reset_call_counts.restype = None
    lib.simcuda_lookup_count.argtypes = []
    lib.simcuda_lookup_count.restype = ctypes.c_uint64
    lib.simcuda_set_driver_version.argtypes = [ctypes.c_int]
    lib.simcuda_set_driver_version.restype = None
    lib.simcuda_shutdown.argtypes = []
    lib.simcuda_shutdown.restype = None
    for name in ("simcuda_is_shut_down", "simcuda_bind_python", "simcuda_raised"):  # int f(void)
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = [], ctypes.c_int
    lib.simcuda_source_digest.argtypes = []
    lib.simcuda_source_digest.restype = ctypes.c_char_p
    lib.simcuda_launch_memo.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    lib.simcuda_launch_memo.restype = ctypes.c_void_p
    lib.simcuda_memo_slots.argtypes = []
    lib.simcuda_memo_slots.restype = ctypes.c_int
    lib.simcuda_memo_miss.argtypes = []
    lib.simcuda_memo_miss.restype = ctypes.c_int
    lib.simcuda_memo_hits.argtypes = []
    lib.simcuda_memo_hits.restype = ctypes.c_uint64
    lib.simcuda_set_layout.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int,
                                       ctypes.POINTER(ctypes.c_ushort)]
    lib.simcuda_set_layout.restype = ctypes.c_int


def _check_table(lib: ctypes.CDLL) -> None:
    """Raise :class:`NativeUnavailable` unless the library's (name, version) table equals ENTRIES."""
    n = lib.simcuda_entry_count()
    table = [(lib.simcuda_entry_name(i).decode(), lib.simcuda_entry_version(i)) for i in range(n)]
    if table != list(_INDEX):
        raise NativeUnavailable(f"{LIBRARY}'s entry table ({n} entries) is not simcuda._generated.entry_table's "
                                f"({len(ENTRIES)}); rebuild it (pip install again)")
    if lib.simcuda_raised() != RAISED:
        raise NativeUnavailable(f"{LIBRARY}'s boundary answers 'raised' with {lib.simcuda_raised()}, not {RAISED}; "
                                "rebuild it (pip install again)")
    if lib.simcuda_memo_miss() != MEMO_MISS:
        raise NativeUnavailable(f"{LIBRARY}'s launch memo answers 'miss' with {lib.simcuda_memo_miss()}, not "
                                f"{MEMO_MISS}; rebuild it (pip install again)")


def _loaded() -> ctypes.CDLL:
    """The loaded library; :class:`NativeUnavailable` when :func:`load` has not been called."""
    if _lib is None:
        raise NativeUnavailable("the native library is not loaded; call simcuda.faces.native.load() first")
    return _lib


def index_of(name: str, version: int) -> int:
    """The table index of the entry ``name`` requested at ``version`` (``KeyError`` when there is none)."""
    return _INDEX[(name, version)]


def set_entry(index: int, ptds: bool, fn: Any) -> None:
    """Make entry ``index`` answer with ``fn``: a ctypes function pointer (``CFUNCTYPE(...)(callable)``) of the
    entry's C signature, or ``None`` to put back the default (the 801 stub; for ``ptds``, the default slot).

    ``ptds`` selects the slot that lookups with ``CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM`` (flags 2, what
    cuda.bindings passes when ``CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM`` is set) get; an entry with no
    per-thread function answers those lookups from the default slot. A reference to ``fn`` is kept while it is
    registered. Register before the binding's first driver call: it caches the pointers it resolved then.
    """
    lib = _loaded()
    if not 0 <= index < len(ENTRIES):
        raise IndexError(f"entry index {index} is out of range (0 .. {len(ENTRIES) - 1})")
    address = None if fn is None else ctypes.cast(fn, ctypes.c_void_p).value
    if fn is not None and not address:
        raise ValueError(f"{fn!r} is a NULL function pointer")
    with _lock:
        if lib.simcuda_set_entry(index, int(bool(ptds)), address) != 0:
            raise IndexError(f"the library refused entry index {index}")
        if fn is None:
            _keep.pop((index, bool(ptds)), None)
        else:
            _keep[(index, bool(ptds))] = fn


#: the C prototype of a launch memo's repeat function: ``int repeat(unsigned serial)``
REPEAT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint)
_memo_slots_used = 0
_memo_keep: dict[int, tuple[Any, Any]] = {}  # memo slot -> its (full, repeat) callbacks, kept for good


MEMO_MISS = -1
"""What a launch memo's repeat function returns to have the library call the entry's full adapter instead
(the library's ``SIMCUDA_MEMO_MISS``, checked at :func:`load`)."""


def set_launch_memo(index: int, ptds: bool, full: Any, repeat: Any) -> bool:
    """Register entry ``index`` (a ``cuLaunchKernel``-shaped entry) behind the library's launch memo: ``full``
    is its adapter (a ctypes function pointer of the entry's C signature), ``repeat`` a :data:`REPEAT` function
    the library calls instead when a call's arguments (the kernelParams items' bytes by the function's layout,
    :func:`set_layout`) are the bits of the same thread's last call that ``full`` answered ``CUDA_SUCCESS``;
    it receives the layout's serial and returns a ``CUresult``, or :data:`MEMO_MISS` to have ``full`` called.
    The memo decides nothing (libcuda.c, "the launch memo"). Returns False, registering ``full`` alone
    (:func:`set_entry`), when the library's memo slots are all in use."""
    global _memo_slots_used
    lib = _loaded()
    with _lock:
        k = _memo_slots_used
        if k < lib.simcuda_memo_slots():
            _memo_slots_used += 1
        else:
            k = -1
    if k < 0:
        set_entry(index, ptds, full)
        return False
    address = lib.simcuda_launch_memo(k, ctypes.cast(full, ctypes.c_void_p), ctypes.cast(repeat, ctypes.c_void_p))
    if not address:
        raise ValueError(f"the library refused memo slot {k}")
    with _lock:
        _memo_keep[k] = (full, repeat)  # the memo slot calls them for good, whatever the entry's slot holds
    set_entry(index, ptds, ctypes.cast(address, type(full)))
    return True


def memo_hits() -> int:
    """How many calls the launch memo's repeat functions answered (over all threads) since the library loaded."""
    return int(_loaded().simcuda_memo_hits())


def set_layout(handle: int, serial: int, sizes: list[int] | None) -> bool:
    """Tell the launch memo the byte size of each kernelParams item of launches of function ``handle``
    (``None``: forget it); ``serial`` (1 .. 2**32-1) is what the repeat function receives for calls compared by
    it. Returns whether the memo keeps it (at most 32 items, 512 bytes, 4096 functions)."""
    lib = _loaded()
    if sizes is None or len(sizes) > 32 or any(not 0 <= n <= 512 for n in sizes) or sum(sizes) > 512:
        lib.simcuda_set_layout(handle, serial, -1, None)  # (the C side keeps sizes as unsigned short)
        return False
    arr = (ctypes.c_ushort * max(len(sizes), 1))(*sizes)
    return int(lib.simcuda_set_layout(handle, serial, len(sizes), arr)) == 0


def call_counts() -> dict[tuple[str, int], int]:
    """``{(name, version): calls}`` of the entries that were called with no adapter (each call answered 801)."""
    lib = _loaded()
    n = len(ENTRIES)
    buf = (ctypes.c_uint64 * n)()
    lib.simcuda_call_counts(buf, n)
    return {(ENTRIES[i].name, ENTRIES[i].version): int(buf[i]) for i in range(n) if buf[i]}


def not_simulated_calls() -> dict[str, int]:
    """:func:`call_counts` for reports, ``{"cuMemGetMemPool (version 13000)": calls}``; ``{}`` while the library is
    not loaded (this loads nothing). Each call answered 801 in C and recorded no ``why`` (no adapter ran), so the
    driver's error log does not hold it: ``simcuda run --explain`` and ``pytest --simcuda`` list these from here."""
    if not is_loaded():
        return {}
    return {f"{name} (version {version})": n for (name, version), n in sorted(call_counts().items())}


def reset_call_counts() -> None:
    """Set every stub's call counter back to zero."""
    _loaded().simcuda_reset_call_counts()


def lookup_count() -> int:
    """How many pointers the library's ``cuGetProcAddress`` handed out: non-zero means callers may hold cached ones."""
    return int(_loaded().simcuda_lookup_count())


def set_driver_version(version: int) -> None:
    """The version ``cuDriverGetVersion`` reports (default ``DRIVER_VERSION`` of the core, 13050 = CUDA 13.5).

    Takes effect at once when the library is loaded, else at :func:`load`. Lookups asking for a higher
    ``cudaVersion`` then fail with ``CUDA_ERROR_INVALID_VALUE``, as the real driver's do.
    """
    global _driver_version
    with _lock:
        _driver_version = int(version)
        if _lib is not None:
            _lib.simcuda_set_driver_version(_driver_version)
