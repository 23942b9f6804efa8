"""Simulated ``cuda.bindings._v2.nvrtc`` (cuda-bindings 13.5.0): NVRTC's snake_case, raising API.

Mirrors: ``cuda.bindings._v2.nvrtc``, which NVIDIA's 2026 samples import. Every function is a thin shell over
the tuple face :mod:`simcuda.faces.bindings.nvrtc` (the one place where programs are made and "compiled"): it converts
the arguments as the real wrapper does (``intptr_t`` program handles, ``bytes`` sources and option lists), calls
the tuple function, raises the real exception class for a result other than ``NVRTC_SUCCESS`` (``NvrtcError``
and its subclasses, ``e.status`` the ``Result``), and returns the outputs in the real shapes: ``create_program``
an ``int`` handle, ``get_ptx``/``get_cubin``/``get_program_log``... the whole buffer as ``bytes`` (with the
trailing NUL, as the real ones return it), ``version()`` a tuple, ``get_error_string`` a ``str``.

Under :func:`simcuda.patch` this module is ``cuda.bindings._v2.nvrtc``; on the native route NVIDIA's own module
stays where its library loads, as ``cuda.bindings.nvrtc`` does (:func:`simcuda._patch.native_nvrtc`).
"""
from __future__ import annotations

import array as _array
import enum as _enum
import re as _re
from typing import Any

from .. import nvrtc as _T
from ._v2_face import _ip_arg

__all__ = ["NvrtcError", "Result", "InstallHeadersFlag", "BundledHeadersInfo", "create_program", "destroy_program",
           "compile_program", "get_ptx_size", "get_ptx", "get_cubin_size", "get_cubin", "get_ltoir_size", "get_ltoir",
           "get_optix_ir_size", "get_optix_ir", "get_tile_ir_size", "get_tile_ir", "get_program_log_size",
           "get_program_log", "add_name_expression", "get_lowered_name", "version", "get_error_string",
           "get_num_supported_archs", "get_supported_archs", "get_pch_heap_size", "set_pch_heap_size",
           "get_pch_create_status", "get_pch_heap_size_required", "set_flow_callback", "get_bundled_headers_info",
           "install_bundled_headers", "remove_bundled_headers"]

#: ``nvrtcResult`` without its ``NVRTC_`` prefix, as the real ``Result``
Result = _enum.IntEnum("Result", {m.name.removeprefix("NVRTC_"): int(m) for m in _T.nvrtcResult})  # type: ignore[misc]
Result.__module__ = __name__
#: ``nvrtcInstallHeadersFlag`` (bundled headers), as the real ``InstallHeadersFlag``
InstallHeadersFlag = _enum.IntEnum("InstallHeadersFlag", {  # type: ignore[misc]
    n.removeprefix("NVRTC_INSTALL_HEADERS_"): int(getattr(_T, n)) for n in sorted(
        (n for n in _T.__all__ if n.startswith("NVRTC_INSTALL_HEADERS_")), key=lambda n: int(getattr(_T, n)))})
InstallHeadersFlag.__module__ = __name__
BundledHeadersInfo = _T.nvrtcBundledHeadersInfo


class NvrtcError(Exception):
    """An NVRTC call that did not return ``NVRTC_SUCCESS``: ``str(e)`` is the result's name, ``e.status`` its
    value, as in the real module."""

    def __init__(self, status: int) -> None:
        self.status = int(status)
        super().__init__(_T.nvrtcResult(self.status).name)


def _class_name(member: str) -> str:
    """``ERROR_NO_PCH_CREATE_ATTEMPTED`` -> ``NoPchCreateAttemptedError`` (the real classes' names)."""
    words = "".join(w.capitalize() for w in member.removeprefix("ERROR_").split("_"))
    return words if words.endswith("Error") else words + "Error"


#: result value -> its exception class (one per error result, each a subclass of NvrtcError)
_ERRORS: dict[int, type[NvrtcError]] = {}
for _m in Result:
    if _m:
        _cls = type(_class_name(_m.name), (NvrtcError,), {"__doc__": f"``NVRTC_{_m.name}`` ({int(_m)}).",
                                                            "__module__": __name__})
        globals()[_cls.__name__] = _cls
        _ERRORS[int(_m)] = _cls
        __all__.append(_cls.__name__)
del _m, _cls


def _check(res: tuple[Any, ...]) -> tuple[Any, ...]:
    """The outputs of a tuple-face result, or the real exception for its code."""
    code = int(res[0])
    if code:
        raise _ERRORS.get(code, NvrtcError)(code)
    return res[1:]


def _prog(prog: Any) -> int:
    return _ip_arg(prog)


def _name(x: Any) -> bytes:
    """A ``str``/``bytes`` name expression as the C string the tuple face takes."""
    if isinstance(x, str):
        return x.encode()
    if isinstance(x, (bytes, bytearray)):
        return bytes(x)
    raise TypeError(f"expected str or bytes, {type(x).__name__} found")


# ---------------------------------------------------------------------------------------------- programs
def create_program(src: Any, name: Any, headers: Any = None, include_names: Any = None) -> int:
    """Mirrors ``create_program(bytes src, name, headers=None, include_names=None) -> intptr_t``: a new program
    (``name`` None or empty: ``"default_program"``). ``headers`` and ``include_names`` must have the same length
    (``InvalidInputError`` otherwise [I])."""
    hs, ns = list(headers or []), list(include_names or [])
    if len(hs) != len(ns):
        raise _ERRORS[3](3)  # NVRTC_ERROR_INVALID_INPUT
    return int(_check(_T.nvrtcCreateProgram(src, b"" if name is None else name, len(hs), hs, ns))[0])


def destroy_program(prog: Any) -> None:
    """Mirrors ``destroy_program(intptr_t prog)``. ``InvalidProgramError`` for an unknown handle."""
    _check(_T.nvrtcDestroyProgram(_prog(prog)))


def compile_program(prog: Any, options: Any = None) -> None:
    """Mirrors ``compile_program(intptr_t prog, options=None)``: ``options`` a list of ``bytes`` (or None).
    ``CompilationError`` when the (simulated) compile fails; the log says why."""
    opts = list(options or [])
    _check(_T.nvrtcCompileProgram(_prog(prog), len(opts), opts))


def _sized(size_fn: Any, get_fn: Any) -> tuple[Any, Any]:
    """The ``get_X_size``/``get_X`` pair over the tuple face's ``nvrtcGetXSize``/``nvrtcGetX(prog, buffer)``."""
    def size(prog: Any) -> int:
        return int(_check(size_fn(_prog(prog)))[0])

    def get(prog: Any) -> bytes:
        p = _prog(prog)
        buf = bytearray(int(_check(size_fn(p))[0]))
        _check(get_fn(p, buf))
        return bytes(buf)
    return size, get


get_ptx_size, get_ptx = _sized(_T.nvrtcGetPTXSize, _T.nvrtcGetPTX)
get_cubin_size, get_cubin = _sized(_T.nvrtcGetCUBINSize, _T.nvrtcGetCUBIN)
get_ltoir_size, get_ltoir = _sized(_T.nvrtcGetLTOIRSize, _T.nvrtcGetLTOIR)
get_optix_ir_size, get_optix_ir = _sized(_T.nvrtcGetOptiXIRSize, _T.nvrtcGetOptiXIR)
get_tile_ir_size, get_tile_ir = _sized(_T.nvrtcGetTileIRSize, _T.nvrtcGetTileIR)
get_program_log_size, get_program_log = _sized(_T.nvrtcGetProgramLogSize, _T.nvrtcGetProgramLog)
for _n, _f in list(globals().items()):
    if _re.fullmatch(r"get_\w+", _n) and getattr(_f, "__qualname__", "").startswith("_sized"):
        _f.__name__ = _f.__qualname__ = _n
        _what = _n.removeprefix("get_").removesuffix("_size")
        _f.__doc__ = (f"Mirrors ``{_n}(intptr_t prog)``: the size in bytes of the program's {_what} (with its NUL)."
                      if _n.endswith("_size") else
                      f"Mirrors ``{_n}(intptr_t prog) -> bytes``: the program's {_what}, the whole buffer "
                      "(trailing NUL included). ``InvalidProgramError`` for an unknown or uncompiled program.")
del _n, _f, _what


def add_name_expression(prog: Any, name_expression: Any) -> None:
    """Mirrors ``add_name_expression(intptr_t prog, name_expression)`` (a ``str``)."""
    _check(_T.nvrtcAddNameExpression(_prog(prog), _name(name_expression)))


def get_lowered_name(prog: Any, name_expression: Any) -> bytes:
    """Mirrors ``get_lowered_name(intptr_t prog, name_expression) -> bytes``: the kernel's lowered name."""
    out = _check(_T.nvrtcGetLoweredName(_prog(prog), _name(name_expression)))[0]
    return out if isinstance(out, bytes) else str(out).encode()


# ---------------------------------------------------------------------------------------------- the library
def version() -> tuple[int, int]:
    """Mirrors ``version() -> tuple``: ``(major, minor)`` of the simulated NVRTC (13, 5)."""
    major, minor = _check(_T.nvrtcVersion())
    return int(major), int(minor)


def get_error_string(result: Any) -> str:
    """Mirrors ``get_error_string(int result) -> str``: the result's name (``"NVRTC_ERROR_COMPILATION"``)."""
    text = _check(_T.nvrtcGetErrorString(result))[0]
    return text.decode() if isinstance(text, bytes) else str(text)


def get_num_supported_archs() -> int:
    """Mirrors ``get_num_supported_archs() -> int``."""
    return int(_check(_T.nvrtcGetNumSupportedArchs())[0])


def get_supported_archs() -> memoryview:
    """Mirrors ``get_supported_archs()``: the architectures, ascending, as a memoryview of C ints (the real
    function returns a Cython array's memoryview)."""
    return memoryview(_array.array("i", _check(_T.nvrtcGetSupportedArchs())[0]))


def get_pch_heap_size() -> int:
    """Mirrors ``get_pch_heap_size() -> size_t`` (PCH is not simulated: the value last set)."""
    return int(_check(_T.nvrtcGetPCHHeapSize())[0])


def set_pch_heap_size(size: Any) -> None:
    """Mirrors ``set_pch_heap_size(size_t size)``."""
    _check(_T.nvrtcSetPCHHeapSize(size))


def get_pch_create_status(prog: Any) -> int:
    """Mirrors ``get_pch_create_status(intptr_t prog) -> int``: raises ``NoPchCreateAttemptedError`` (no PCH is
    ever made here) or ``InvalidProgramError``."""
    _check(_T.nvrtcGetPCHCreateStatus(_prog(prog)))
    return 0


def get_pch_heap_size_required(prog: Any) -> int:
    """Mirrors ``get_pch_heap_size_required(intptr_t prog) -> size_t``: 0."""
    return int(_check(_T.nvrtcGetPCHHeapSizeRequired(_prog(prog)))[0])


def set_flow_callback(prog: Any, callback: Any, payload: Any) -> None:
    """Mirrors ``set_flow_callback(intptr_t prog, intptr_t callback, intptr_t payload)``: accepted, never called."""
    _check(_T.nvrtcSetFlowCallback(_prog(prog), _ip_arg(callback), _ip_arg(payload)))


def get_bundled_headers_info() -> tuple[Any, ...]:
    """Mirrors ``get_bundled_headers_info() -> tuple``: no bundled headers are simulated."""
    return tuple(_check(_T.nvrtcGetBundledHeadersInfo()))


def install_bundled_headers(install_path: Any, flags: Any) -> bytes:
    """Mirrors ``install_bundled_headers(install_path, unsigned int flags) -> bytes``: not simulated, raises
    ``BuiltinOperationFailureError`` (``InvalidInputError`` for unknown flags)."""
    return bytes(_check(_T.nvrtcInstallBundledHeaders(_name(install_path), flags))[0])


def remove_bundled_headers(install_path: Any) -> bytes:
    """Mirrors ``remove_bundled_headers(install_path) -> bytes``: not simulated, raises
    ``BuiltinOperationFailureError``."""
    return bytes(_check(_T.nvrtcRemoveBundledHeaders(_name(install_path)))[0])
