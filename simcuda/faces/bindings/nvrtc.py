"""Simulated ``cuda.bindings.nvrtc`` (NVRTC, the runtime compiler), cuda-bindings 13.5.0 call shapes.

Why this file is long (over ~700 lines): it holds the NVRTC face and the stand-in that reads kernel declarations
when no NVIDIA NVRTC is installed, which share the program objects.

**NVIDIA's NVRTC compiles when it is installed** (``libnvrtc`` of the ``nvidia-cuda-nvrtc`` wheel or a
toolkit; :mod:`simcuda.faces.bindings._real_nvrtc`, ``SIMCUDA_NVRTC`` chooses): the result, log, PTX, CUBIN and
lowered names are then the real compiler's, and the C parameter types this face reads from the source are
remembered for the images it made (:func:`simcuda._core.modules.module_model.remember_param_types`). Otherwise (or for a
program whose headers NVIDIA's NVRTC cannot find, unless ``SIMCUDA_NVRTC=nvidia``) **nothing is compiled**:
``nvrtcCompileProgram`` reads the kernel declarations of the CUDA C source (``__global__`` functions, with
:func:`simcuda._core.modules.module_model.parse_cuda_source`, which sizes parameters from their declared C types:
:mod:`simcuda._core.modules.param_types`), checks what can be checked cheaply (brackets balance, no ``#error``
line), and produces:

* PTX text that :func:`simcuda._core.modules.module_model.parse_image` accepts: a ``.visible .entry name(...)``
  block per kernel with one ``.param`` line per parameter (sized as NVRTC declares it), and a
  ``// simcuda-params name: t1, t2`` line so the exact C parameter types survive (the driver uses them to
  decode ``void**`` argument arrays for Python kernels registered with :func:`simcuda.kernel`). The bodies
  are just ``ret;``. A parameter whose type the reader cannot size is a warning in the log.
* a "CUBIN": :data:`simcuda._core.modules.module_model.SIM_CUBIN_MAGIC` followed by that PTX. It is *not* an ELF
  file; only simcuda's ``cuModuleLoadData`` can load it.

Kernel names follow C++ linkage as real NVRTC does: an ``extern "C"`` kernel keeps its name;
any other kernel gets its Itanium-mangled name (``_Z6reducePfPdmm``), which
``nvrtcGetLoweredName`` returns for the name expression ``"reduce"`` or ``"&reduce"``. A template kernel
produces an entry for each instance a name expression names (``"t<float>"`` -> ``_Z1tIfEvPT_S0_``, type
and integer arguments), as NVRTC instantiates it.

Every function returns a tuple whose first element is an :class:`nvrtcResult`, followed by its
outputs (each ``None`` when the result is not ``NVRTC_SUCCESS``), like the real module.
Programs belong to the current simulated driver (:func:`simcuda.use` starts a fresh set).
"""
from __future__ import annotations

import ctypes
import re
import threading
import warnings
from typing import Any

from ..._core.facade import DRIVER_VERSION
from ..._core.modules import param_types
from ..._core.modules.module_model import (
    PARAMS_TAG,
    SIM_CUBIN_MAGIC,
    merge_param_types,
    parse_cuda_source,
    parse_ptx,
    remember_param_types,
    remember_ptx,
)
from ..._generated.nvrtc_enums import (
    NVRTC_INSTALL_HEADERS_FORCE_OVERWRITE,
    NVRTC_INSTALL_HEADERS_NO_WAIT,
    NVRTC_INSTALL_HEADERS_SKIP_IF_EXISTS,
    nvrtcResult,
)
from ..._state import PerDriver as _PerDriver
from ..._state import current as _current
from . import _real_nvrtc
from ._driver_types import Result as _Result  # what every function returns: (nvrtcResult, *outputs)
from ._driver_types import Wrapper, _Eq, _Index, to_int

__all__ = [
    "nvrtcResult", "nvrtcProgram", "nvrtcBundledHeadersInfo", "nvrtcVersion", "nvrtcGetErrorString",
    "nvrtcGetNumSupportedArchs", "nvrtcGetSupportedArchs", "nvrtcCreateProgram", "nvrtcDestroyProgram",
    "nvrtcCompileProgram", "nvrtcGetPTXSize", "nvrtcGetPTX", "nvrtcGetCUBINSize", "nvrtcGetCUBIN",
    "nvrtcGetLTOIRSize", "nvrtcGetLTOIR", "nvrtcGetOptiXIRSize", "nvrtcGetOptiXIR", "nvrtcGetTileIRSize",
    "nvrtcGetTileIR", "nvrtcGetProgramLogSize", "nvrtcGetProgramLog", "nvrtcAddNameExpression",
    "nvrtcGetLoweredName", "nvrtcGetPCHHeapSize", "nvrtcSetPCHHeapSize", "nvrtcGetPCHCreateStatus",
    "nvrtcGetPCHHeapSizeRequired", "nvrtcSetFlowCallback", "nvrtcGetBundledHeadersInfo",
    "nvrtcInstallBundledHeaders", "nvrtcRemoveBundledHeaders", "NVRTC_INSTALL_HEADERS_FORCE_OVERWRITE",
    "NVRTC_INSTALL_HEADERS_NO_WAIT", "NVRTC_INSTALL_HEADERS_SKIP_IF_EXISTS",
]

_R = nvrtcResult
_OK = nvrtcResult.NVRTC_SUCCESS
#: version reported by nvrtcVersion, the same CUDA release as the simulated driver
VERSION = (DRIVER_VERSION // 1000, (DRIVER_VERSION % 1000) // 10)
#: real architectures NVRTC 13.x accepts for ``--gpu-architecture``
SUPPORTED_ARCHS = [75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121]
#: NVRTC 13.x compiles for this *virtual* architecture when no ``-arch`` option is given
DEFAULT_ARCH = "compute_75"
_PROGRAM_BASE = 0x4E56_5254_0000
_PROGRAM_STEP = 0x40


class nvrtcProgram(_Eq, _Index, Wrapper):
    """nvrtcProgram(init_value=0, _ptr=0)

    Simulated ``cuda.bindings.nvrtc.nvrtcProgram``: an opaque program handle with a hex ``repr``
    (``<nvrtcProgram 0x4e5652540040>``), value equality with other ``nvrtcProgram`` objects (not
    with ``int``), ``hash``, ``__index__``, ``int(p)``, and ``getPtr()``.
    """

    __slots__ = ()


class nvrtcBundledHeadersInfo:
    """Simulated ``cuda.bindings.nvrtc.nvrtcBundledHeadersInfo`` (all fields 0: no bundled headers)."""

    _FIELDS = ("available", "compressedSize", "uncompressedSize", "cudaVersionMajor", "cudaVersionMinor",
               "numFiles")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            raise TypeError(f"__cinit__() got an unexpected keyword argument '{next(iter(kwargs))}'")
        for f in self._FIELDS:
            object.__setattr__(self, f, 0)

    def __repr__(self) -> str:
        return "\n".join(f"{f} : {getattr(self, f)}" for f in self._FIELDS)


# ---------------------------------------------------------------------------------- programs
class _Program:
    __slots__ = ("handle", "src", "name", "headers", "compiled", "ok", "log", "ptx", "virtual", "lowered",
                 "name_exprs", "options", "cubin", "fallback_note")

    def __init__(self, handle: int, src: str, name: str, headers: dict[str, str]) -> None:
        self.handle, self.src, self.name, self.headers = handle, src, name, headers
        self.compiled = False
        self.ok = False
        self.log = ""
        self.ptx = b""
        self.virtual = True
        self.lowered: dict[str, str] = {}
        self.name_exprs: list[str] = []
        self.options: list[str] = []
        self.cubin: bytes | None = None  # NVIDIA's NVRTC's CUBIN when it compiled the program, else None
        self.fallback_note: str | None = None  # why simcuda's reader served a program NVIDIA's NVRTC could not


class _Registry:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.programs: dict[int, _Program] = {}
        self.next = _PROGRAM_BASE
        self.pch_heap = 0


_REGISTRIES: _PerDriver[_Registry] = _PerDriver(_Registry)


def _registry() -> _Registry:
    return _REGISTRIES.of(_current())


def _program(prog: Any) -> _Program | None:
    """The program behind a handle (``nvrtcProgram``, ``int`` or ``None``); ``None`` when unknown."""
    if prog is None:
        return None
    if not isinstance(prog, (int, nvrtcProgram)):
        raise TypeError(f"Argument 'prog' is not instance of type (expected <class 'int'>, or "
                        f"<class 'cuda.bindings.nvrtc.nvrtcProgram'>, found {type(prog)}")
    return _registry().programs.get(int(prog))


def _char_p(x: Any) -> bytes:
    """A ``char*`` argument: bytes only, as Cython converts it."""
    if isinstance(x, (bytes, bytearray)):
        return bytes(x)
    raise TypeError(f"expected bytes, {type(x).__name__} found")


def _bytes_list(x: Any, n: int, what: str) -> list[bytes]:
    if x is None:
        x = []
    if not isinstance(x, (list, tuple)) or not all(isinstance(i, bytes) for i in x):
        raise TypeError(f"Argument '{what}' is not instance of type (expected tuple[bytes] or list[bytes]")
    if n > len(x):
        raise RuntimeError(f"List is too small: {len(x)} < {n}")
    return list(x[:max(n, 0)])


def _write_out(buf: Any, payload: bytes) -> None:
    """Write ``payload`` into the caller's ``char*`` buffer in place, as the C library does.

    ``bytes`` objects are written through their internal storage (the real binding passes that
    storage to NVRTC). Fidelity: at most ``len(buf)`` bytes are written (the real library would
    overrun a short buffer), and ``bytes`` of length 0 or 1 are never written because CPython
    shares them between all users.
    """
    if isinstance(buf, bytearray):
        n = min(len(buf), len(payload))
        buf[:n] = payload[:n]
        return
    if not isinstance(buf, bytes):
        raise TypeError(f"expected bytes, {type(buf).__name__} found")
    n = min(len(buf), len(payload))
    if len(buf) < 2 or n == 0:
        return
    addr = ctypes.cast(ctypes.c_char_p(buf), ctypes.c_void_p).value
    if addr:
        ctypes.memmove(addr, payload, n)


# ---------------------------------------------------------------------------------- source scan
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_STRINGS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_KERNEL_HEAD = re.compile(
    r'__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?'
    r'([A-Za-z_]\w*)\s*\(([^)]*)\)', re.S)
_EXTERN_C_BLOCK = re.compile(r'extern\s+"C"\s*\{')
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
_ERROR_DIRECTIVE = re.compile(r'^\s*#\s*error\b(.*)$', re.M)
_ARCH = re.compile(r'^(?:--gpu-architecture|-arch)(?:=|\s+)((?:sm|compute|lto)_\d+[a-z]?)$')


def _blank_comments(src: str) -> str:
    """Comments replaced by spaces (newlines kept, so line numbers still hold)."""
    return _COMMENTS.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), src)


def _bracket_error(code: str) -> tuple[int, str] | None:
    """``(line, message)`` of the first unbalanced bracket, or None."""
    text = _STRINGS.sub(lambda m: " " * len(m.group(0)), code)
    pairs = {")": "(", "]": "[", "}": "{"}
    stack: list[tuple[str, int]] = []
    line = 1
    for ch in text:
        if ch == "\n":
            line += 1
        elif ch in "([{":
            stack.append((ch, line))
        elif ch in ")]}":
            if not stack or stack[-1][0] != pairs[ch]:
                return line, f'unexpected "{ch}"'
            stack.pop()
    if stack:
        ch, ln = stack[-1]
        closing = {"(": ")", "[": "]", "{": "}"}[ch]
        return ln, f'expected a "{closing}" to match this "{ch}"'
    return None


def _extern_c_spans(code: str) -> list[tuple[int, int]]:
    spans = []
    for m in _EXTERN_C_BLOCK.finditer(code):
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        spans.append((m.end(), i))
    return spans


def _kernels(code: str) -> list[tuple[str, str, bool]]:
    """``(name, raw parameter text, extern "C")`` for each non-template ``__global__`` kernel."""
    spans = _extern_c_spans(code)
    out = []
    for m in _KERNEL_HEAD.finditer(code):
        before = code[:m.start()].rstrip()
        if re.search(r"template\s*<[^;{}]*>$", before):
            continue  # a template: nothing is emitted until it is instantiated
        extern_c = bool(re.search(r'extern\s+"C"$', before)) or any(a <= m.start() < b for a, b in spans)
        out.append((m.group(1), m.group(2), extern_c))
    return out


# Itanium C++ ABI mangling of simple kernel signatures (builtin types, pointers, const)
_BUILTINS = {
    "void": "v", "bool": "b", "char": "c", "signed char": "a", "unsigned char": "h", "short": "s",
    "short int": "s", "unsigned short": "t", "unsigned short int": "t", "int": "i", "signed": "i",
    "signed int": "i", "unsigned": "j", "unsigned int": "j", "long": "l", "long int": "l", "unsigned long": "m",
    "unsigned long int": "m", "long long": "x", "long long int": "x", "unsigned long long": "y",
    "unsigned long long int": "y", "float": "f", "double": "d", "long double": "e", "size_t": "m",
    "ptrdiff_t": "l", "int8_t": "a", "uint8_t": "h", "int16_t": "s", "uint16_t": "t", "int32_t": "i",
    "uint32_t": "j", "int64_t": "l", "uint64_t": "m", "wchar_t": "w", "char16_t": "Ds", "char32_t": "Di",
}
_TYPE_WORDS = {"void", "bool", "char", "short", "int", "long", "signed", "unsigned", "float", "double", "const",
               *[k for k in _BUILTINS if " " not in k]}
_QUALIFIERS = {"volatile", "__restrict__", "restrict", "__restrict", "struct", "class", "register"}


def _parse_param(raw: str, tparams: dict[str, int] | None = None) -> Any:
    """A parameter declaration as a nested type: ``('b', code)``, ``('c', name)``, ``('T', index)`` (a template
    type parameter, from ``tparams``: name -> index), ``('K', t)``, ``('P', t)``."""
    tokens = raw.replace("*", " * ").replace("&", " & ").split()
    tokens = [t for t in tokens if t not in _QUALIFIERS and not t.startswith("__align")]
    # drop the parameter name: a trailing identifier that is not a type word
    if len(tokens) > 1 and re.match(r"^[A-Za-z_]\w*$", tokens[-1]) and tokens[-1] not in _TYPE_WORDS:
        tokens = tokens[:-1]
    base_words, i, base_const = [], 0, False
    while i < len(tokens) and tokens[i] not in ("*", "&"):
        if tokens[i] == "const":
            base_const = True
        else:
            base_words.append(tokens[i])
        i += 1
    base_name = " ".join(base_words)
    t: Any = ("b", _BUILTINS[base_name]) if base_name in _BUILTINS else ("c", base_name.split("::")[-1] or "T")
    if tparams and base_name in tparams:
        t = ("T", tparams[base_name])
    levels = tokens[i:]
    if base_const and levels:
        t = ("K", t)
    j = 0
    while j < len(levels):
        kind = "P" if levels[j] == "*" else "R"
        t = (kind, t)
        j += 1
        if j < len(levels) and levels[j] == "const":
            j += 1
            if j < len(levels):  # const on an inner pointer level; top-level const is not mangled
                t = ("K", t)
    return t


def _seq_id(n: int) -> str:
    if n == 0:
        return "S_"
    digits, n = "", n - 1
    chars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    while True:
        digits = chars[n % 36] + digits
        n //= 36
        if not n:
            break
    return f"S{digits}_"


def _encode(t: Any, subs: list[Any]) -> str:
    if t[0] == "b":
        name: str = t[1]
        return name
    if t in subs:
        return _seq_id(subs.index(t))
    if t[0] == "c":
        s = f"{len(t[1])}{t[1]}"
    elif t[0] == "T":  # a template parameter: T_, T0_, T1_... (a substitution candidate, as a type)
        s = "T_" if t[1] == 0 else f"T{t[1] - 1}_"
    else:
        s = t[0] + _encode(t[1], subs)
    subs.append(t)
    return s


def mangle(name: str, raw_params: str) -> str:
    """The Itanium-ABI name of ``__global__ void name(raw_params)`` at namespace scope.

    Handles builtin types, ``size_t`` and fixed-width integers (as on 64-bit Linux), class
    types by name, pointers, references and ``const`` pointees, with substitutions (``S_``),
    e.g. ``mangle("k", "const float* a, float* b, const float* c") == "_Z1kPKfPfS0_"``.
    """
    params = [p.strip() for p in raw_params.split(",") if p.strip() and p.strip() != "void"]
    subs: list[Any] = []
    body = "".join(_encode(_parse_param(p), subs) for p in params) or "v"
    return f"_Z{len(name)}{name}{body}"


_TEMPLATE_KERNEL = re.compile(
    r'template\s*<([^{};]*?)>\s*__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+'
    r'(?:__launch_bounds__\s*\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\(([^)]*)\)', re.S)


def _templates(code: str) -> dict[str, tuple[list[tuple[str, str]], str]]:
    """Template kernels of ``code``: name -> (template parameters as ``(kind, name)``, kind ``"type"`` for
    ``typename``/``class`` and the declared type for a non-type parameter; the raw parameter list)."""
    out = {}
    for m in _TEMPLATE_KERNEL.finditer(code):
        tps = []
        for tp in param_types.split_params(m.group(1)):
            words = tp.split("=")[0].split()
            if not words:
                continue
            kind = "type" if words[0] in ("typename", "class") else " ".join(words[:-1])
            tps.append((kind, words[-1]))
        out[m.group(2)] = (tps, m.group(3))
    return out


def mangle_template(name: str, tparams: list[tuple[str, str]], args: list[str], raw_params: str) -> str | None:
    """The Itanium-ABI name of the instance ``name<args>`` of ``template <tparams> __global__ void
    name(raw_params)``, or None when an argument is not one this handles (types as :func:`mangle` handles them,
    integer literals for non-type parameters). E.g. ``t<float>`` of ``template <typename T> void t(T *a, T b)``
    is ``_Z1tIfEvPT_S0_``: the template name is the first substitution candidate, template parameters
    in the parameter list are ``T_``, ``T0_``..., and the return type ``v`` is encoded."""
    if len(args) != len(tparams):
        return None
    subs: list[Any] = [("name", name)]
    enc = []
    for (kind, _pname), arg in zip(tparams, args):
        if kind == "type":
            enc.append(_encode(_parse_param(arg), subs))
            continue
        lit = re.fullmatch(r"\s*(-?)\s*(\d+)[uUlL]*\s*", arg)
        code = _BUILTINS.get(" ".join(kind.replace("const", " ").split()))
        if lit is None or code is None:
            return None
        enc.append(f"L{code}{'n' if lit.group(1) else ''}{lit.group(2)}E")
    index = {pname: i for i, (kind, pname) in enumerate(tparams) if kind == "type"}
    params = param_types.split_params(raw_params)
    body = "".join(_encode(_parse_param(p, index), subs) for p in params) or "v"
    return f"_Z{len(name)}{name}I{''.join(enc)}Ev{body}"


def _instance(code: str, expr: str, templates: dict[str, tuple[list[tuple[str, str]], str]]
              ) -> tuple[str, list[str]] | None:
    """``(lowered name, canonical parameter types)`` of a name expression ``name<args>`` (or ``&name<args>``)
    naming an instance of a template kernel of ``code``, or None."""
    m = re.fullmatch(r"\s*&?\s*([A-Za-z_]\w*)\s*<(.*)>\s*", expr, re.S)
    if m is None or m.group(1) not in templates:
        return None
    tparams, raw = templates[m.group(1)]
    args = param_types.split_params(m.group(2))
    low = mangle_template(m.group(1), tparams, args, raw)
    if low is None:
        return None
    decls = param_types.Declarations(code)
    subst = {pname: arg for (kind, pname), arg in zip(tparams, args) if kind == "type"}
    types = []
    for p in param_types.split_params(raw):
        for pname, arg in subst.items():
            p = re.sub(rf"\b{re.escape(pname)}\b", f" {arg} ", p)
        types.append(decls.param(p))
    return low, types


#: PTX type of a scalar parameter by its ``struct`` format; integers are unsigned whatever their C sign, as NVRTC
#: declares them (``int16_t`` is ``.param .u16``; the C type travels in the ``// simcuda-params`` line)
_PTX_PARAM = {"f": ".f32", "d": ".f64", "b": ".u8", "B": ".u8", "?": ".u8", "h": ".u16", "H": ".u16",
              "i": ".u32", "I": ".u32", "q": ".u64", "Q": ".u64"}


def _ptx_param(t: str, name: str) -> str:
    """One ``.param`` line for a parameter of canonical type ``t`` (:mod:`simcuda._core.modules.param_types`): a scalar
    by its PTX type, a 2-byte float or an aggregate as an aligned byte array (as NVCC declares them), a type
    the reader cannot size as ``.u64`` (its launch with a ``void**`` array is refused)."""
    if t.endswith("*"):
        return f"\t.param .u64 {name}"
    try:
        fmt = param_types.struct_format(t)
    except param_types.Unsized:
        return f"\t.param .u64 {name}"
    if fmt in ("e", "bf16"):
        return f"\t.param .align 2 .b8 {name}[2]"
    if fmt.endswith("s"):
        n = int(fmt[:-1])
        align = param_types.VECTORS.get(t, (n, min(n & -n, 16)))[1]
        return f"\t.param .align {align} .b8 {name}[{n}]"
    return f"\t.param {_PTX_PARAM.get(fmt, '.u64')} {name}"


def _ptx(prog: _Program, arch: str, kernels: list[tuple[str, list[str]]]) -> bytes:
    lines = ["//", "// Generated by simcuda's simulated NVRTC: nothing was compiled; the kernel bodies are empty.",
             f"// Program: {prog.name}", "//", "", f".version {VERSION[0] - 4}.{VERSION[1]}",
             f".target {arch.replace('compute_', 'sm_')}", ".address_size 64", ""]
    for entry, types in kernels:
        lines.append(f"\t// .globl\t{entry}")
        lines.append(f"{PARAMS_TAG}{entry}: {', '.join(types)}")
        params = [_ptx_param(t, f"{entry}_param_{i}") for i, t in enumerate(types)]
        lines.append(f".visible .entry {entry}(")
        lines.append(",\n".join(params))
        lines.append(")")
        lines.extend(["{", "\tret;", "}", ""])
    return ("\n".join(lines) + "\n").encode()


def _unsized_notes(prog_name: str, kernels: list[tuple[str, list[str]]]) -> list[str]:
    """A log warning per kernel parameter whose type simcuda's reader cannot size."""
    notes = []
    for entry, types in kernels:
        for i in param_types.unsized(types):
            notes.append(f"{prog_name}: warning: simcuda cannot size parameter {i} of kernel {entry!r} (type "
                         f"{types[i]!r} is not declared in the program): launching it with a void** kernelParams "
                         "array fails with CUDA_ERROR_NOT_SUPPORTED; declare the type in the program or pass "
                         "(values, types)")
    return notes


def _compile_real(prog: _Program, arch: str, options: list[str], text: str, code: str) -> bool:
    """Compile ``prog`` with NVIDIA's NVRTC when it serves (:mod:`simcuda.faces.bindings._real_nvrtc`); True when it
    did (the program's result, log, PTX, CUBIN and lowered names are then the real compiler's), False to let
    simcuda's reader serve. The kernels' declared parameter types, read from the source, are remembered for the
    images it made (:func:`simcuda._core.modules.module_model.remember_param_types`) so a Python kernel gets signed
    shorts and halves rather than bare sizes."""
    prog.fallback_note = None
    mode = _real_nvrtc.mode()
    lib = _real_nvrtc.library() if mode != "simcuda" else None
    if lib is None:
        if mode == "nvidia":
            prog.ok, prog.ptx = False, b""
            prog.log = "simcuda: SIMCUDA_NVRTC=nvidia but NVIDIA's libnvrtc does not load here\n"
            return True
        return False
    got = _real_nvrtc.compile_program(lib, prog.src, prog.name, prog.headers, options, prog.name_exprs)
    if got.missing_header() and mode == "auto":
        prog.fallback_note = (f"{prog.name}: warning: NVIDIA's NVRTC could not open a header (give a toolkit's "
                              "include/ with -I); simcuda's reader served this program, nothing was compiled")
        # the log is read by few programs: say it where a test run shows it too (pytest's warnings summary);
        # its kernels are stand-ins with empty bodies (P-66), refused at launch (P-69)
        warnings.warn(prog.fallback_note + "; its kernels have no bodies and their launches are refused (801) "
                      "(SIMCUDA_NVRTC=nvidia makes this a compile error)", RuntimeWarning, stacklevel=3)
        return False
    prog.ok = got.result == 0
    prog.log = got.log
    prog.ptx = got.ptx
    prog.virtual = not got.cubin
    prog.cubin = got.cubin or None
    prog.lowered = dict(got.lowered)
    if prog.ok:
        declared = parse_cuda_source(code)
        by_entry: dict[str, list[str]] = {}
        for name, raw, extern_c in _kernels(code):
            by_entry[name if extern_c else mangle(name, raw)] = declared.get(name, [])
        for expr, low in got.lowered.items():
            key = expr.strip().lstrip("&").strip().split("<")[0].strip()
            if key in declared:
                by_entry.setdefault(low, declared[key])
        sized = parse_ptx(got.ptx.decode("utf-8", "replace"))
        types = {e: merge_param_types(t, by_entry.get(e)) for e, t in sized.items()}
        remember_param_types(got.ptx, types)
        if got.cubin:
            remember_param_types(got.cubin, types)
            remember_ptx(got.cubin, got.ptx)  # the CUBIN holds no PTX: a launch runs this (issue 17)
    return True


def _compile(prog: _Program, options: list[str]) -> None:
    arch = DEFAULT_ARCH
    for opt in options:
        m = _ARCH.match(opt.strip())
        if m:
            arch = m.group(1)
    prog.options = options
    prog.virtual = not arch.startswith("sm_")
    text = prog.src
    for inc in _INCLUDE.findall(text):  # headers given to nvrtcCreateProgram are part of the program
        if inc in prog.headers:
            text = text + "\n" + prog.headers[inc]
    code = _blank_comments(text)
    errors = []
    for m in _ERROR_DIRECTIVE.finditer(code):
        line = code[:m.start()].count("\n") + 1
        errors.append(f"{prog.name}({line}): error: #error directive:{m.group(1).rstrip()}")
    bad = _bracket_error(code)
    if bad is not None:
        errors.append(f"{prog.name}({bad[0]}): error: {bad[1]}")
    prog.compiled = True
    prog.cubin = None
    if _compile_real(prog, arch, options, text, code):
        return
    if errors:
        n = len(errors)
        prog.ok = False
        prog.log = ("\n".join(errors) + f"\n\n{n} error{'s' if n > 1 else ''} detected in the compilation of "
                    f'"{prog.name}".\n')
        prog.ptx = b""
        return
    types = parse_cuda_source(code)
    kernels = []
    simple: dict[str, str] = {}
    for name, raw, extern_c in _kernels(code):
        entry = name if extern_c else mangle(name, raw)
        simple.setdefault(name, entry)
        kernels.append((entry, types.get(name, [])))
    notes = _unsized_notes(prog.name, kernels)
    if prog.fallback_note:
        notes.insert(0, prog.fallback_note)
    prog.lowered = {}
    templates = _templates(code)
    for expr in prog.name_exprs:
        key = expr.strip().lstrip("&").strip()
        if key in simple:
            prog.lowered[expr] = simple[key]
            continue
        inst = _instance(code, expr, templates)
        if inst is not None:  # an instance of a template kernel: NVRTC instantiates it, so it is an entry
            prog.lowered[expr] = inst[0]
            if inst[0] not in {e for e, _t in kernels}:
                kernels.append(inst)
                notes.extend(_unsized_notes(prog.name, [inst]))
            continue
        notes.append(f"{prog.name}: warning: simcuda could not resolve the name expression {expr!r} "
                     "(non-template __global__ functions and instances of template kernels with type or "
                     "integer arguments are resolved)")
    prog.ok = True
    prog.log = "\n".join(notes) + ("\n" if notes else "")
    prog.ptx = _ptx(prog, arch, kernels)


# ---------------------------------------------------------------------------------- API
def nvrtcGetErrorString(result: Any) -> _Result:
    """Mirrors ``nvrtcGetErrorString(result)``: ``(NVRTC_SUCCESS, b"NVRTC_ERROR_...")``.

    The text is the code's name, as real NVRTC returns it. A value outside ``nvrtcResult``
    raises ``ValueError`` (the real binding converts the argument to the enum first).
    """
    code = nvrtcResult(int(result))
    return (_OK, code.name.encode())


def nvrtcVersion() -> _Result:
    """Mirrors ``nvrtcVersion()``: ``(NVRTC_SUCCESS, major, minor)``, the simulated CUDA release (13, 5).

    A minor version of 1 or more makes NVIDIA's samples use the CUBIN path
    (``nvrtcGetCUBIN``); both paths work here.
    """
    return (_OK, VERSION[0], VERSION[1])


def nvrtcGetNumSupportedArchs() -> _Result:
    """Mirrors ``nvrtcGetNumSupportedArchs()``: ``(NVRTC_SUCCESS, count)`` of :data:`SUPPORTED_ARCHS`."""
    return (_OK, len(SUPPORTED_ARCHS))


def nvrtcGetSupportedArchs() -> _Result:
    """Mirrors ``nvrtcGetSupportedArchs()``: ``(NVRTC_SUCCESS, [75, 80, ...])``, ascending."""
    return (_OK, list(SUPPORTED_ARCHS))


def nvrtcCreateProgram(src: Any, name: Any, numHeaders: int, headers: Any, includeNames: Any) -> _Result:
    """Mirrors ``nvrtcCreateProgram(src, name, numHeaders, headers, includeNames)``: ``(result, nvrtcProgram)``.

    Args:
        src: the CUDA C source, ``bytes`` (a ``str`` raises ``TypeError: expected bytes, str found``).
        name: the program name, ``bytes``; ``b""`` means ``"default_program"`` (used in the log).
        numHeaders: how many of ``headers``/``includeNames`` to use (``RuntimeError: List is too
            small`` when the lists are shorter, as in the real binding).
        headers, includeNames: lists of ``bytes`` (or ``None`` with ``numHeaders == 0``). A header is
            scanned for kernels when the source ``#include``-s it by that name.

    Codes: ``NVRTC_ERROR_INVALID_INPUT`` for ``numHeaders < 0``. Nothing is parsed until
    :func:`nvrtcCompileProgram`.
    """
    src_b = _char_p(src)
    name_b = _char_p(name)
    n = to_int(numHeaders)
    hdrs = _bytes_list(headers, n, "headers")
    names = _bytes_list(includeNames, n, "includeNames")
    if n < 0:
        return (_R.NVRTC_ERROR_INVALID_INPUT, None)
    reg = _registry()
    with reg.lock:
        h = reg.next
        reg.next += _PROGRAM_STEP
        hmap = {k.decode("utf-8", "replace"): v.decode("utf-8", "replace") for k, v in zip(names, hdrs)}
        reg.programs[h] = _Program(h, src_b.decode("utf-8", "replace"),
                                   name_b.decode("utf-8", "replace") or "default_program", hmap)
    return (_OK, nvrtcProgram(h))


def nvrtcDestroyProgram(prog: Any) -> _Result:
    """Mirrors ``nvrtcDestroyProgram(prog)``: ``(result,)``. ``NVRTC_ERROR_INVALID_PROGRAM`` for an unknown handle."""
    p = _program(prog)
    if p is None:
        return (_R.NVRTC_ERROR_INVALID_PROGRAM,)
    reg = _registry()
    with reg.lock:
        reg.programs.pop(p.handle, None)
    return (_OK,)


def nvrtcCompileProgram(prog: Any, numOptions: int, options: Any) -> _Result:
    """Mirrors ``nvrtcCompileProgram(prog, numOptions, options)``: ``(result,)``. Nothing is really compiled.

    Args:
        prog: an ``nvrtcProgram`` (or its ``int`` value).
        numOptions: how many of ``options`` to use.
        options: a list of ``bytes`` options. Every option is accepted; ``--gpu-architecture=`` /
            ``-arch=`` picks the target: ``sm_XY`` gives a CUBIN, ``compute_XY`` (and the default,
            ``compute_75``) only PTX, as in real NVRTC.

    Codes: ``NVRTC_ERROR_INVALID_PROGRAM`` (unknown handle); ``NVRTC_ERROR_COMPILATION`` when the
    source has unbalanced brackets or an ``#error`` line (the log says where, in NVRTC's
    ``name(line): error: ...`` form). Headers in ``#include`` lines are never opened, so
    ``<cuda_runtime.h>`` and friends need no include path. A source with no kernels compiles to
    a module with no entries.
    """
    n = to_int(numOptions)
    opts = _bytes_list(options, n, "options")
    p = _program(prog)
    if p is None:
        return (_R.NVRTC_ERROR_INVALID_PROGRAM,)
    _compile(p, [o.decode("utf-8", "replace") for o in opts])
    return (_OK,) if p.ok else (_R.NVRTC_ERROR_COMPILATION,)


def _compiled(prog: Any) -> tuple[Any, _Program | None]:
    p = _program(prog)
    if p is None:
        return _R.NVRTC_ERROR_INVALID_PROGRAM, None
    if not p.compiled or not p.ok:
        return _R.NVRTC_ERROR_INVALID_PROGRAM, None  # [inferred] no output of a failed or missing compile
    return _OK, p


def nvrtcGetPTXSize(prog: Any) -> _Result:
    """Mirrors ``nvrtcGetPTXSize(prog)``: ``(result, size)`` in bytes, trailing NUL included.

    Codes: ``NVRTC_ERROR_INVALID_PROGRAM`` for an unknown handle, or (simulator's choice) a program
    that was not compiled successfully.
    """
    res, p = _compiled(prog)
    return (res, len(p.ptx) + 1) if p else (res, None)


def nvrtcGetPTX(prog: Any, ptx: Any) -> _Result:
    """Mirrors ``nvrtcGetPTX(prog, ptx)``: ``(result,)``; the PTX (NUL-terminated) is written into ``ptx``.

    ``ptx`` is a ``bytes`` (written in place, like the C library writes through ``char*``) or a
    ``bytearray`` of at least :func:`nvrtcGetPTXSize` bytes. Codes as :func:`nvrtcGetPTXSize`.
    """
    _char_p(ptx)
    res, p = _compiled(prog)
    if p is None:
        return (res,)
    _write_out(ptx, p.ptx + b"\0")
    return (_OK,)


def _cubin(p: _Program) -> bytes:
    """The CUBIN of a compiled program: NVIDIA's NVRTC's when it compiled it, else the simulated one
    (:data:`SIM_CUBIN_MAGIC` + the PTX)."""
    return p.cubin if p.cubin is not None else SIM_CUBIN_MAGIC + p.ptx


def nvrtcGetCUBINSize(prog: Any) -> _Result:
    """Mirrors ``nvrtcGetCUBINSize(prog)``: ``(result, size)``; 0 when compiled for a virtual ``compute_XY`` arch.

    The simulated CUBIN is ``SIM_CUBIN_MAGIC`` + the PTX; only simcuda's ``cuModuleLoadData``
    reads it. Codes as :func:`nvrtcGetPTXSize`.
    """
    res, p = _compiled(prog)
    if p is None:
        return (res, None)
    return (_OK, 0 if p.virtual else len(_cubin(p)))


def nvrtcGetCUBIN(prog: Any, cubin: Any) -> _Result:
    """Mirrors ``nvrtcGetCUBIN(prog, cubin)``: ``(result,)``; the image is written into ``cubin`` in place.

    Codes: ``NVRTC_ERROR_INVALID_INPUT`` when the program was compiled for a virtual architecture
    (no CUBIN exists) [inferred]; otherwise as :func:`nvrtcGetPTXSize`.
    """
    _char_p(cubin)
    res, p = _compiled(prog)
    if p is None:
        return (res,)
    if p.virtual:
        return (_R.NVRTC_ERROR_INVALID_INPUT,)
    _write_out(cubin, _cubin(p))
    return (_OK,)


def _no_ir(prog: Any) -> _Result:
    res, p = _compiled(prog)
    return (res, 0) if p else (res, None)


def nvrtcGetLTOIRSize(prog: Any) -> _Result:
    """Mirrors ``nvrtcGetLTOIRSize(prog)``: ``(result, 0)``: the simulator never produces LTO IR (``-dlto``)."""
    return _no_ir(prog)


def nvrtcGetLTOIR(prog: Any, LTOIR: Any) -> _Result:
    """Mirrors ``nvrtcGetLTOIR(prog, LTOIR)``: ``(NVRTC_ERROR_INVALID_INPUT,)``: no LTO IR is simulated."""
    _char_p(LTOIR)
    res, p = _compiled(prog)
    return (res if p is None else _R.NVRTC_ERROR_INVALID_INPUT,)


def nvrtcGetOptiXIRSize(prog: Any) -> _Result:
    """Mirrors ``nvrtcGetOptiXIRSize(prog)``: ``(result, 0)``: OptiX IR is not simulated."""
    return _no_ir(prog)


def nvrtcGetOptiXIR(prog: Any, optixir: Any) -> _Result:
    """Mirrors ``nvrtcGetOptiXIR(prog, optixir)``: ``(NVRTC_ERROR_INVALID_INPUT,)``: OptiX IR is not simulated."""
    _char_p(optixir)
    res, p = _compiled(prog)
    return (res if p is None else _R.NVRTC_ERROR_INVALID_INPUT,)


def nvrtcGetTileIRSize(prog: Any) -> _Result:
    """Mirrors ``nvrtcGetTileIRSize(prog)``: ``(result, 0)``: Tile IR is not simulated."""
    return _no_ir(prog)


def nvrtcGetTileIR(prog: Any, TileIR: Any) -> _Result:
    """Mirrors ``nvrtcGetTileIR(prog, TileIR)``: ``(NVRTC_ERROR_INVALID_INPUT,)``: Tile IR is not simulated."""
    _char_p(TileIR)
    res, p = _compiled(prog)
    return (res if p is None else _R.NVRTC_ERROR_INVALID_INPUT,)


def nvrtcGetProgramLogSize(prog: Any) -> _Result:
    """Mirrors ``nvrtcGetProgramLogSize(prog)``: ``(result, size)`` in bytes, trailing NUL included (1 when empty).

    Codes: ``NVRTC_ERROR_INVALID_PROGRAM`` for an unknown handle. Before compilation the log is empty.
    """
    p = _program(prog)
    if p is None:
        return (_R.NVRTC_ERROR_INVALID_PROGRAM, None)
    return (_OK, len(p.log.encode()) + 1)


def nvrtcGetProgramLog(prog: Any, log: Any) -> _Result:
    """Mirrors ``nvrtcGetProgramLog(prog, log)``: ``(result,)``; the log (NUL-terminated) is written into ``log``.

    On a failed compile the log lists each error as ``name(line): error: ...``; warnings about
    name expressions the simulator could not resolve appear on success.
    """
    _char_p(log)
    p = _program(prog)
    if p is None:
        return (_R.NVRTC_ERROR_INVALID_PROGRAM,)
    _write_out(log, p.log.encode() + b"\0")
    return (_OK,)


def nvrtcAddNameExpression(prog: Any, name_expression: Any) -> _Result:
    """Mirrors ``nvrtcAddNameExpression(prog, name_expression)``: ``(result,)``.

    Codes: ``NVRTC_ERROR_INVALID_PROGRAM``; ``NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION``
    once the program was compiled.
    """
    expr = _char_p(name_expression).decode("utf-8", "replace")
    p = _program(prog)
    if p is None:
        return (_R.NVRTC_ERROR_INVALID_PROGRAM,)
    if p.compiled:
        return (_R.NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION,)
    if expr not in p.name_exprs:
        p.name_exprs.append(expr)
    return (_OK,)


def nvrtcGetLoweredName(prog: Any, name_expression: Any) -> _Result:
    """Mirrors ``nvrtcGetLoweredName(prog, name_expression)``: ``(result, lowered_name: bytes)``.

    The lowered name of an ``extern "C"`` kernel is its own name; of any other kernel, its
    Itanium-mangled name (:func:`mangle`). Codes: ``NVRTC_ERROR_INVALID_PROGRAM``;
    ``NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION``; ``NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID``
    when the expression was not added before compiling, or names something the simulator does
    not model (templates, variables).
    """
    expr = _char_p(name_expression).decode("utf-8", "replace")
    p = _program(prog)
    if p is None:
        return (_R.NVRTC_ERROR_INVALID_PROGRAM, None)
    if not p.compiled:
        return (_R.NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION, None)
    low = p.lowered.get(expr)
    if low is None:
        return (_R.NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID, None)
    return (_OK, low.encode())


def nvrtcGetPCHHeapSize() -> _Result:
    """Mirrors ``nvrtcGetPCHHeapSize()``: ``(NVRTC_SUCCESS, bytes)``, the value last set (0 at start)."""
    return (_OK, _registry().pch_heap)


def nvrtcSetPCHHeapSize(size: int) -> _Result:
    """Mirrors ``nvrtcSetPCHHeapSize(size)``: ``(NVRTC_SUCCESS,)``; the size is remembered, no PCH is ever made."""
    _registry().pch_heap = to_int(size)
    return (_OK,)


def nvrtcGetPCHCreateStatus(prog: Any) -> _Result:
    """Mirrors ``nvrtcGetPCHCreateStatus(prog)``: ``(NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED,)``: PCH is not simulated."""
    return (_R.NVRTC_ERROR_INVALID_PROGRAM if _program(prog) is None else _R.NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED,)


def nvrtcGetPCHHeapSizeRequired(prog: Any) -> _Result:
    """Mirrors ``nvrtcGetPCHHeapSizeRequired(prog)``: ``(NVRTC_SUCCESS, 0)``: no PCH is ever created."""
    if _program(prog) is None:
        return (_R.NVRTC_ERROR_INVALID_PROGRAM, None)
    return (_OK, 0)


def nvrtcSetFlowCallback(prog: Any, callback: Any, payload: Any) -> _Result:
    """Mirrors ``nvrtcSetFlowCallback(prog, callback, payload)``: ``(result,)``.

    Accepted and never called: the simulated compile is instantaneous and cannot be cancelled.
    """
    return (_R.NVRTC_ERROR_INVALID_PROGRAM if _program(prog) is None else _OK,)


_NO_BUNDLE = b"simcuda: bundled NVRTC headers are not simulated (nothing is compiled, so none are needed)"


def nvrtcGetBundledHeadersInfo() -> _Result:
    """Mirrors ``nvrtcGetBundledHeadersInfo()``: ``(NVRTC_SUCCESS, info, None)`` with ``info.available == 0``."""
    return (_OK, nvrtcBundledHeadersInfo(), None)


def nvrtcInstallBundledHeaders(installPath: Any, flags: int) -> _Result:
    """Mirrors ``nvrtcInstallBundledHeaders(installPath, flags)``: not simulated; nothing is written.

    Returns ``(NVRTC_ERROR_BUILTIN_OPERATION_FAILURE, errorLog)`` with ``errorLog`` saying so, or
    ``(NVRTC_ERROR_INVALID_INPUT, errorLog)`` for flag bits outside ``NVRTC_INSTALL_HEADERS_*``.
    """
    _char_p(installPath)
    if to_int(flags) & ~3:
        return (_R.NVRTC_ERROR_INVALID_INPUT, b"simcuda: unknown nvrtcInstallBundledHeaders flags")
    return (_R.NVRTC_ERROR_BUILTIN_OPERATION_FAILURE, _NO_BUNDLE)


def nvrtcRemoveBundledHeaders(installPath: Any) -> _Result:
    """Mirrors ``nvrtcRemoveBundledHeaders(installPath)``: not simulated; nothing is removed.

    Returns ``(NVRTC_ERROR_BUILTIN_OPERATION_FAILURE, errorLog)``.
    """
    _char_p(installPath)
    return (_R.NVRTC_ERROR_BUILTIN_OPERATION_FAILURE, _NO_BUNDLE)


def sizeof(objType: Any) -> int:
    """Mirrors ``cuda.bindings.nvrtc.sizeof``: the C size of an nvrtc type (8 for ``nvrtcProgram``)."""
    if objType is nvrtcProgram:
        return 8
    raise TypeError(f"Unknown type: {objType}")
