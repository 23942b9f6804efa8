"""NVIDIA's NVRTC as the compiler behind simcuda's NVRTC face (``simcuda.faces.bindings.nvrtc``).

When NVIDIA's ``libnvrtc`` loads (the ``nvidia-cuda-nvrtc`` wheel or a toolkit, found by cuda.pathfinder's
``load_nvidia_dynamic_lib("nvrtc")``, as ``simcuda._patch.native_nvrtc`` finds it for the native route), the
face compiles each program with it: the PTX, the CUBIN, the log and the lowered names (templates included)
are the real compiler's. ``SIMCUDA_NVRTC`` chooses (docs/native.md):

* ``simcuda``: never; simcuda's reader serves every program (nothing is compiled);
* ``nvidia``: always; a program NVIDIA's NVRTC rejects fails as it does;
* unset (``auto``): NVIDIA's when it loads, except that a program it cannot compile only because an
  ``#include`` has no file on the include path (no toolkit ``include/`` given with ``-I``) is served by
  simcuda's reader, with a log line saying so [I]: simcuda's reader never opens headers, and programs
  written for it include ``<cuda_runtime.h>`` freely.

This module calls the C library through ctypes (NVIDIA's Python module may be replaced by simcuda's face
under ``patch()``); it holds no state but the loaded library.
"""
from __future__ import annotations

import ctypes
import os
import threading
from typing import Any

import attrs

from ..._core.process import renew_lock_after_fork

_LOCK = threading.Lock()
renew_lock_after_fork(globals(), "_LOCK")  # a forked child makes it anew
_LIB: list[Any] = []  # [] not tried yet; [None] not loadable; [CDLL]


def mode() -> str:
    """``"simcuda"``, ``"nvidia"`` or ``"auto"``: the ``SIMCUDA_NVRTC`` environment variable, read at each
    compile (anything else reads as ``auto``)."""
    m = os.environ.get("SIMCUDA_NVRTC", "").strip().lower()
    return m if m in ("simcuda", "nvidia") else "auto"


def library() -> Any:
    """NVIDIA's ``libnvrtc`` as a ``ctypes.CDLL``, or None when it does not load (loaded once per process)."""
    with _LOCK:
        if not _LIB:
            try:
                from cuda.pathfinder import load_nvidia_dynamic_lib
                path = load_nvidia_dynamic_lib("nvrtc").abs_path
                lib = ctypes.CDLL(path) if path else None
            except Exception:  # noqa: BLE001 - any failure means: no NVIDIA NVRTC here
                lib = None
            _LIB.append(lib)
        return _LIB[0]


@attrs.define
class Compiled:
    """What NVIDIA's NVRTC made of one program.

    Attributes:
        result: the ``nvrtcResult`` value of ``nvrtcCompileProgram``.
        log: the program log (text).
        ptx: the PTX (bytes, no NUL), ``b""`` on failure.
        cubin: the CUBIN (bytes), ``b""`` for a virtual architecture or on failure.
        lowered: name expression -> lowered name, for those NVRTC resolved.
    """

    result: int
    log: str
    ptx: bytes = b""
    cubin: bytes = b""
    lowered: dict[str, str] = attrs.field(factory=dict)

    def missing_header(self) -> bool:
        """Whether the compile failed only because an ``#include`` could not be opened (a catastrophic error
        naming a source file)."""
        return self.result != 0 and ("cannot open source file" in self.log
                                     or "could not open source file" in self.log)


def _out(lib: Any, prog: Any, size_fn: str, get_fn: str) -> bytes:
    n = ctypes.c_size_t()
    if getattr(lib, size_fn)(prog, ctypes.byref(n)) != 0 or not n.value:
        return b""
    buf = ctypes.create_string_buffer(n.value)
    if getattr(lib, get_fn)(prog, buf) != 0:
        return b""
    return buf.raw[:n.value]


#: the last compiles: (source, name, headers, options, name expressions) -> what NVRTC made of them. A compile
#: is a pure function of these (NVRTC reads no file but the headers the options point at, which a process does
#: not expect to change under it [I]); a compile takes about 0.3 s, a program compiled again costs nothing.
_CACHE: dict[tuple[Any, ...], Compiled] = {}
_CACHE_MAX = 256


def compile_program(lib: Any, src: str, name: str, headers: dict[str, str], options: list[str],
                    name_exprs: list[str]) -> Compiled:
    """Compile ``src`` with NVIDIA's NVRTC (``lib``) and read everything back (the program is destroyed), or
    the result of the same compile made before (:data:`_CACHE`); the caller gets its own copy."""
    key = (src, name, tuple(sorted(headers.items())), tuple(options), tuple(name_exprs))
    with _LOCK:
        got = _CACHE.get(key)
    if got is None:
        got = _compile(lib, src, name, headers, options, name_exprs)
        with _LOCK:
            if len(_CACHE) >= _CACHE_MAX:
                _CACHE.pop(next(iter(_CACHE)))
            _CACHE[key] = got
    return attrs.evolve(got, lowered=dict(got.lowered))


def _compile(lib: Any, src: str, name: str, headers: dict[str, str], options: list[str],
             name_exprs: list[str]) -> Compiled:
    """One compile with NVIDIA's NVRTC."""
    prog = ctypes.c_void_p()
    hnames = list(headers)
    n = len(hnames)
    hsrc = (ctypes.c_char_p * max(n, 1))(*[headers[h].encode() for h in hnames])
    hinc = (ctypes.c_char_p * max(n, 1))(*[h.encode() for h in hnames])
    r = lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), name.encode(), n, hsrc if n else None,
                               hinc if n else None)
    if r != 0:
        return Compiled(r, f"nvrtcCreateProgram failed ({r})\n")
    try:
        for e in name_exprs:
            lib.nvrtcAddNameExpression(prog, e.encode())
        opts = (ctypes.c_char_p * max(len(options), 1))(*[o.encode() for o in options])
        r = lib.nvrtcCompileProgram(prog, len(options), opts)
        log = _out(lib, prog, "nvrtcGetProgramLogSize", "nvrtcGetProgramLog").rstrip(b"\0").decode("utf-8", "replace")
        out = Compiled(r, log)
        if r != 0:
            return out
        out.ptx = _out(lib, prog, "nvrtcGetPTXSize", "nvrtcGetPTX").rstrip(b"\0")
        out.cubin = _out(lib, prog, "nvrtcGetCUBINSize", "nvrtcGetCUBIN")
        for e in name_exprs:
            low = ctypes.c_char_p()
            if lib.nvrtcGetLoweredName(prog, e.encode(), ctypes.byref(low)) == 0 and low.value:
                out.lowered[e] = low.value.decode()
        return out
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
