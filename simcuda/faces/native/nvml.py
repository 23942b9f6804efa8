"""The NVML front end of the native route: the few NVML calls cuda.core makes, answered from the simulated driver.

Mirrors: NVIDIA's NVML (``libnvidia-ml.so.1``) as cuda.core 1.2's ``system`` module reaches it through
``cuda.bindings.nvml``. cuda.pathfinder finds NVML by its soname, first among the loaded libraries, so
:func:`install` loads simcuda's ``libnvidia-ml.so.1`` (``simcuda/faces/native/libnvml.c``: every NVML function of
cuda-bindings 13.5 exported by name, an empty one answering ``NVML_ERROR_NOT_SUPPORTED``) with ``RTLD_GLOBAL``
and fills the functions below with ctypes callbacks. What they answer:

* ``nvmlInit_v2`` / ``nvmlInitWithFlags`` / ``nvmlShutdown``: success (no state).
* ``nvmlDeviceGetCount_v2``: the simulated devices; ``nvmlDeviceGetHandleByIndex_v2``: a handle per device
  (NVML_ERROR_INVALID_ARGUMENT, 2, out of range); ``nvmlDeviceGetIndex``, ``nvmlDeviceGetName`` (the
  ``DeviceSpec`` name), ``nvmlDeviceGetUUID`` (``GPU-`` and the UUID ``cuDeviceGetUuid`` gives).
* ``nvmlSystemGetCudaDriverVersion(_v2)``: the simulated driver's version (``cuDriverGetVersion``);
  ``nvmlSystemGetDriverVersion``: :data:`KERNEL_DRIVER_VERSION`, the kernel-mode driver the simulated machine
  reports [I: a simulator has none; the number is the one cuda.core's documentation uses as its example];
  ``nvmlSystemGetNVMLVersion``: ``"13." + KERNEL_DRIVER_VERSION`` [I]; ``nvmlSystemGetDriverBranch``: its
  branch, ``r580_00`` [I].
* A buffer too small for a string is NVML_ERROR_INSUFFICIENT_SIZE (7), a NULL output NVML_ERROR_INVALID_ARGUMENT.

Every other NVML function answers NVML_ERROR_NOT_SUPPORTED (3) and is counted (:func:`call_counts`). At
the start of the interpreter's finalization the library starts answering NVML_SUCCESS in C (as ``libcuda.so.1``).
"""
from __future__ import annotations

import ctypes
import os
import threading
import uuid as _uuid
from collections.abc import Callable
from typing import Any

from ..._core.process import renew_lock_after_fork
from . import _build

__all__ = ["install", "is_loaded", "call_counts", "KERNEL_DRIVER_VERSION", "LIBRARY"]

LIBRARY = _build.HERE / "libnvidia-ml.so.1"
KERNEL_DRIVER_VERSION = "580.65.06"
NVML_SUCCESS, NVML_ERROR_INVALID_ARGUMENT, NVML_ERROR_INSUFFICIENT_SIZE = 0, 2, 7
_HANDLE_BASE = 0x4E564D4C0000  # device handles: base + ordinal + 1 (never NULL)

_lock = threading.Lock()
renew_lock_after_fork(globals(), "_lock")  # a forked child makes it anew
_lib: ctypes.CDLL | None = None
_keep: list[Any] = []  # the registered callbacks (ctypes would otherwise free them)


def _driver() -> Any:
    from ... import _state
    return _state.current()


def _device(handle: int | None) -> Any:
    """The simulated device behind an NVML handle, or None."""
    i = (handle or 0) - _HANDLE_BASE - 1
    devices = _driver().devices
    return devices[i] if 0 <= i < len(devices) else None


def _put_string(buf: int | None, length: int, text: str) -> int:
    data = text.encode() + b"\0"
    if not buf:
        return NVML_ERROR_INVALID_ARGUMENT
    if length < len(data):
        return NVML_ERROR_INSUFFICIENT_SIZE
    ctypes.memmove(buf, data, len(data))
    return NVML_SUCCESS


def _put(t: Any, addr: int | None, value: Any) -> int:
    if not addr:
        return NVML_ERROR_INVALID_ARGUMENT
    t.from_address(addr).value = value
    return NVML_SUCCESS


def _uuid_text(dev: Any) -> str:
    from ..._core.contexts.context_entries import device_uuid
    return "GPU-" + str(_uuid.UUID(bytes=device_uuid(dev)))


def _branch(info: int | None, length: int) -> int:
    """nvmlSystemGetDriverBranch: ``nvmlSystemDriverBranchInfo_v1_t`` (``unsigned version; char branch[80]``),
    the branch of :data:`KERNEL_DRIVER_VERSION` (``r580_00``) [I]."""
    if not info:
        return NVML_ERROR_INVALID_ARGUMENT
    return _put_string(info + 4, min(length, 80), f"r{KERNEL_DRIVER_VERSION.split('.')[0]}_00")


_P = ctypes.c_void_p
_U = ctypes.c_uint
#: name -> (argument types, the answer): every answer takes the C arguments as ints (pointers as addresses)
FUNCTIONS: dict[str, tuple[tuple[Any, ...], Callable[..., int]]] = {
    "nvmlInit_v2": ((), lambda: NVML_SUCCESS),
    "nvmlInitWithFlags": ((_U,), lambda flags: NVML_SUCCESS),
    "nvmlShutdown": ((), lambda: NVML_SUCCESS),
    "nvmlDeviceGetCount_v2": ((_P,), lambda out: _put(ctypes.c_uint, out, len(_driver().devices))),
    "nvmlDeviceGetHandleByIndex_v2": ((_U, _P), lambda i, out: (
        _put(ctypes.c_void_p, out, _HANDLE_BASE + i + 1) if i < len(_driver().devices)
        else NVML_ERROR_INVALID_ARGUMENT)),
    "nvmlDeviceGetIndex": ((_P, _P), lambda h, out: (
        NVML_ERROR_INVALID_ARGUMENT if _device(h) is None else _put(ctypes.c_uint, out, _device(h).ordinal))),
    "nvmlDeviceGetName": ((_P, _P, _U), lambda h, buf, n: (
        NVML_ERROR_INVALID_ARGUMENT if _device(h) is None else _put_string(buf, n, _device(h).spec.name))),
    "nvmlDeviceGetUUID": ((_P, _P, _U), lambda h, buf, n: (
        NVML_ERROR_INVALID_ARGUMENT if _device(h) is None else _put_string(buf, n, _uuid_text(_device(h))))),
    "nvmlSystemGetCudaDriverVersion": ((_P,), lambda out: _put(ctypes.c_int, out, _driver().driver_get_version())),
    "nvmlSystemGetCudaDriverVersion_v2": ((_P,), lambda out: _put(ctypes.c_int, out,
                                                                  _driver().driver_get_version())),
    "nvmlSystemGetDriverVersion": ((_P, _U), lambda buf, n: _put_string(buf, n, KERNEL_DRIVER_VERSION)),
    "nvmlSystemGetNVMLVersion": ((_P, _U), lambda buf, n: _put_string(buf, n, "13." + KERNEL_DRIVER_VERSION)),
    "nvmlSystemGetDriverBranch": ((_P, _U), _branch),
}


def _guarded(name: str, fn: Callable[..., int]) -> Callable[..., int]:
    def answer(*args: Any) -> int:
        try:
            return fn(*args)
        except BaseException:  # a simulator bug: loud, and never NVML_SUCCESS
            import sys
            import traceback

            from ._shared import record_bug
            print(f"simcuda: internal error in the NVML answer of {name} (a simcuda bug: please report):",
                  file=sys.stderr)
            traceback.print_exc()
            exc = sys.exc_info()[1]
            if exc is not None:
                record_bug(name, exc)
            return 999  # NVML_ERROR_UNKNOWN
    return answer


def install() -> ctypes.CDLL:
    """Load ``libnvidia-ml.so.1`` by path (``RTLD_GLOBAL``, before cuda.bindings.nvml looks for NVML) and fill
    its functions; idempotent. Raises ``OSError`` when the library was not built (``simcuda.faces.native.available``
    says why)."""
    global _lib
    with _lock:
        if _lib is not None:
            return _lib
        lib = ctypes.CDLL(str(LIBRARY), mode=os.RTLD_GLOBAL)
        lib.simcuda_nvml_set_entry.argtypes = [ctypes.c_int, ctypes.c_void_p]
        lib.simcuda_nvml_name.argtypes = [ctypes.c_int]
        lib.simcuda_nvml_name.restype = ctypes.c_char_p
        index = {lib.simcuda_nvml_name(i).decode(): i for i in range(lib.simcuda_nvml_count())}
        for name, (argtypes, fn) in FUNCTIONS.items():
            cb = ctypes.CFUNCTYPE(ctypes.c_int, *argtypes)(_guarded(name, fn))
            _keep.append(cb)
            lib.simcuda_nvml_set_entry(index[name], ctypes.cast(cb, ctypes.c_void_p))
        from . import at_interpreter_end
        at_interpreter_end(lib.simcuda_nvml_shutdown)
        _lib = lib
        return lib


def is_loaded() -> bool:
    """Whether :func:`install` has loaded the library in this process."""
    return _lib is not None


def call_counts() -> dict[str, int]:
    """``{name: calls}`` of the NVML functions that were called and are not answered (each gave 3)."""
    if _lib is None:
        return {}
    n = _lib.simcuda_nvml_count()
    counts = (ctypes.c_uint64 * n)()
    _lib.simcuda_nvml_call_counts(counts, n)
    return {_lib.simcuda_nvml_name(i).decode(): int(c) for i, c in enumerate(counts) if c}
