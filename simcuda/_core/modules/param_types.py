"""C types of kernel parameters: what a declared type is, how many bytes it has, how a launch reads it.

Two readers use this module (docs/architecture.md, "Kernels"):

* :func:`kernel_params` reads the ``__global__`` kernels of CUDA C text (simcuda's NVRTC face, and
  ``cuModuleLoadData`` of CUDA C) and gives each parameter a *canonical type string*, resolving the
  program's own ``typedef``/``using``/``#define`` aliases and the structs, unions and vector types it passes
  by value;
* :func:`struct_format` turns a canonical type string into the ``struct`` format that reads one argument of
  a ``void**`` ``kernelParams`` array (both routes decode through it: :mod:`simcuda._core.modules.module_entries`).

Canonical type strings, and what a Python kernel (``simcuda.kernel``) then finds in ``launch.args``:

========================================  ===========================================================
``T*`` (any pointer, also ``T[]``)        ``int`` (the address)
``bool``                                  ``bool``
``char``, ``signed char``, ``short``,     ``int`` with the sign of the type (``int16_t`` arrives
``int``, ``long``, ``long long`` and      as ``short``: -5 stays -5; ``uint8_t`` as ``unsigned
their ``unsigned`` forms, the             char``: 200 stays 200); ``long`` is 8 bytes (LP64, as
``<cstdint>`` names, ``size_t`` ...       64-bit Linux)
``float``, ``double``                     ``float``
``__half``                                ``float``: the exact value of the half (IEEE binary16)
``__nv_bfloat16``                         ``float``: the exact value of the bfloat16
``char[N]`` (a struct or union passed     ``bytes``, the argument's ``N`` bytes as the kernel holds
by value, ``__half2``, a vector type      them (decode with ``struct.unpack`` or
such as ``float4``)                       ``numpy.frombuffer``); a CUBIN keeps only sizes, so this is
                                          also what any aggregate of a real CUBIN reads as
anything else (a type the reader cannot   not readable: the NVRTC log warns at compile time and a
size: a template parameter, a type from   launch with a ``void**`` array fails with
a header it does not read)                ``CUDA_ERROR_NOT_SUPPORTED`` saying which parameter
========================================  ===========================================================

[I] ``__half`` as a Python ``float`` rather than ``numpy.float16``: the value is exact either way, a float
needs no numpy in the core, and a ``(values, types)`` launch of the same kernel gives floats too. Structs as
``bytes``: the only form that is the same on every route (a real CUBIN gives sizes, not member types).
"""
from __future__ import annotations

import re
import struct

from . import arg_bits

#: the ``struct`` format of each scalar type name (LP64: ``long`` is 8 bytes); names not here are aliases
#: (:data:`ALIASES`), vector types (:data:`VECTORS`) or aggregates (``char[N]``)
SCALARS: dict[str, str] = {
    "bool": "?", "char": "b", "signed char": "b", "unsigned char": "B", "short": "h", "unsigned short": "H",
    "int": "i", "unsigned int": "I", "long": "q", "unsigned long": "Q", "long long": "q",
    "unsigned long long": "Q", "float": "f", "double": "d", "__half": "e", "__nv_bfloat16": "bf16",
    # names kept as written (they are exact already): the fixed-width and size types of 64-bit Linux
    "unsigned": "I", "int8_t": "b", "uint8_t": "B", "int16_t": "h", "uint16_t": "H", "int32_t": "i",
    "uint32_t": "I", "int64_t": "q", "uint64_t": "Q", "size_t": "Q", "ssize_t": "q", "ptrdiff_t": "q",
    "intptr_t": "q", "uintptr_t": "Q",
}

#: other spellings of scalar types (C keywords in other orders, CUDA and cuda_fp16 names, driver typedefs)
ALIASES: dict[str, str] = {
    "signed": "int", "signed int": "int", "short int": "short", "signed short": "short",
    "signed short int": "short", "unsigned short int": "unsigned short", "long int": "long",
    "signed long": "long", "signed long int": "long", "unsigned long int": "unsigned long",
    "long long int": "long long", "signed long long": "long long", "signed long long int": "long long",
    "unsigned long long int": "unsigned long long", "unsigned char": "unsigned char",
    "int_least8_t": "signed char", "int_fast8_t": "signed char", "uint_least8_t": "unsigned char",
    "uint_fast8_t": "unsigned char", "int_least16_t": "short", "uint_least16_t": "unsigned short",
    "int_least32_t": "int", "uint_least32_t": "unsigned int", "int_least64_t": "long",
    "uint_least64_t": "unsigned long", "int_fast16_t": "long", "uint_fast16_t": "unsigned long",
    "int_fast32_t": "long", "uint_fast32_t": "unsigned long", "int_fast64_t": "long",
    "uint_fast64_t": "unsigned long", "intmax_t": "long", "uintmax_t": "unsigned long",
    "wchar_t": "int", "char16_t": "unsigned short", "char32_t": "unsigned int", "char8_t": "unsigned char",
    "half": "__half", "nv_bfloat16": "__nv_bfloat16", "__bf16": "__nv_bfloat16",
    "CUdeviceptr": "unsigned long long", "CUdeviceptr_v2": "unsigned long long",
    "cudaTextureObject_t": "unsigned long long", "cudaSurfaceObject_t": "unsigned long long",
    "CUtexObject": "unsigned long long", "CUsurfObject": "unsigned long long",
}

#: size and alignment of the aggregates of the CUDA headers a kernel commonly passes by value (vector_types.h,
#: cuda_fp16.h, cuda_bf16.h, cuComplex.h), as NVCC lays them out on 64-bit Linux
VECTORS: dict[str, tuple[int, int]] = {
    "__half2": (4, 4), "half2": (4, 4), "__nv_bfloat162": (4, 4), "nv_bfloat162": (4, 4),
    "__half_raw": (2, 2), "__nv_bfloat16_raw": (2, 2),
    "cuFloatComplex": (8, 8), "cuComplex": (8, 8), "cuDoubleComplex": (16, 16), "dim3": (12, 4),
}
for _base, _size, _aligns in (("char", 1, (1, 2, 1, 4)), ("uchar", 1, (1, 2, 1, 4)), ("short", 2, (2, 4, 2, 8)),
                              ("ushort", 2, (2, 4, 2, 8)), ("int", 4, (4, 8, 4, 16)), ("uint", 4, (4, 8, 4, 16)),
                              ("float", 4, (4, 8, 4, 16)), ("long", 8, (8, 16, 8, 16)),
                              ("ulong", 8, (8, 16, 8, 16)), ("longlong", 8, (8, 16, 8, 16)),
                              ("ulonglong", 8, (8, 16, 8, 16)), ("double", 8, (8, 16, 8, 16))):
    for _n, _align in zip((1, 2, 3, 4), _aligns):
        VECTORS[f"{_base}{_n}"] = (_size * _n if _n != 3 else _size * 3, _align)
VECTORS.update({"double4": (32, 16), "long4": (32, 16), "ulong4": (32, 16), "longlong4": (32, 16),
                "ulonglong4": (32, 16), "double4_16a": (32, 16), "double4_32a": (32, 32),
                "long4_16a": (32, 16), "long4_32a": (32, 32), "ulong4_16a": (32, 16), "ulong4_32a": (32, 32),
                "longlong4_16a": (32, 16), "longlong4_32a": (32, 32), "ulonglong4_16a": (32, 16),
                "ulonglong4_32a": (32, 32)})

_QUALIFIERS = {"const", "volatile", "__restrict__", "restrict", "__restrict", "register", "struct", "union",
               "class", "enum", "typename", "__grid_constant__", "__device__", "__constant__"}
_WORDS = re.compile(r"[A-Za-z_][\w:]*|\*|&|\[[^\]]*\]")


class Unsized(ValueError):
    """A parameter type that the simulator cannot size (not declared in the program it read)."""


def struct_format(ctype: str) -> str:
    """The ``struct`` format of one argument of canonical type ``ctype``: pointers ``Q``; scalars by
    :data:`SCALARS` (``__half`` ``e``; ``__nv_bfloat16`` ``bf16``, read by hand); ``char[N]`` and vector types
    ``Ns`` (their bytes). Raises :class:`Unsized` for a type it does not know (never guesses 8 bytes)."""
    if ctype.endswith("*"):
        return "Q"
    fmt = SCALARS.get(ctype)
    if fmt is not None:
        return fmt
    if ctype.startswith("char[") and ctype.endswith("]"):
        return f"{int(ctype[5:-1])}s"
    alias = ALIASES.get(ctype)
    if alias is not None:
        return SCALARS[alias]
    vec = VECTORS.get(ctype)
    if vec is not None:
        return f"{vec[0]}s"
    raise Unsized(ctype)


def size_of(ctype: str) -> int | None:
    """Bytes of one argument of canonical type ``ctype``, or None when it cannot be sized."""
    try:
        fmt = struct_format(ctype)
    except Unsized:
        return None
    return 2 if fmt == "bf16" else struct.calcsize(fmt)


def _strip_std(name: str) -> str:
    for prefix in ("::", "std::", "cuda::std::"):
        if name.startswith(prefix):
            name = name[len(prefix):]
    return name


class Declarations:
    """The type declarations of one CUDA C program: aliases (``typedef``, ``using``, object-like ``#define``),
    integer macros (array bounds), and the structs and unions it defines, laid out as NVCC does on 64-bit
    Linux (natural alignment, ``__align__(n)``/``alignas(n)``, the size rounded up to the alignment).
    Headers the program does not carry are not read: a type only they declare stays unsized."""

    _TYPEDEF = re.compile(r"\btypedef\s+([^;{}()]+?)\s*([A-Za-z_]\w*)\s*;")
    _USING = re.compile(r"\busing\s+([A-Za-z_]\w*)\s*=\s*([^;{}()]+?)\s*;")
    _DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]+?)[ \t]*$", re.M)
    _AGGREGATE = re.compile(r"\b(typedef\s+)?(struct|union|class)\s+((?:__align__|alignas|__attribute__)\s*"
                            r"\(\(?[^)]*\)?\)\s*)?([A-Za-z_]\w*)?\s*(?::[^{;]*)?\{")

    def __init__(self, code: str) -> None:
        self.aliases: dict[str, str] = {}
        self.numbers: dict[str, int] = {}
        self.bodies: dict[str, tuple[str, str, int]] = {}  # name -> (kind, body, explicit alignment)
        self._layouts: dict[str, tuple[int, int] | None] = {}
        for m in self._DEFINE.finditer(code):
            body = m.group(2).strip()
            if re.fullmatch(r"\(?\s*\d+[uUlL]*\s*\)?", body):
                self.numbers[m.group(1)] = int(re.sub(r"[^\d]", "", body))
            else:
                self.aliases[m.group(1)] = body
        code = self._aggregates(code)
        for m in self._TYPEDEF.finditer(code):
            self.aliases.setdefault(m.group(2), m.group(1))
        for m in self._USING.finditer(code):
            self.aliases.setdefault(m.group(1), m.group(2))

    def _aggregates(self, code: str) -> str:
        """Record each struct/union body; the text with each ``typedef struct {...} Name;`` rewritten to
        ``typedef struct <tag> Name;`` so that the alias pass sees it."""
        out, pos = [], 0
        for m in self._AGGREGATE.finditer(code):
            if m.start() < pos:
                continue
            depth, i = 1, m.end()
            while i < len(code) and depth:
                depth += {"{": 1, "}": -1}.get(code[i], 0)
                i += 1
            body = code[m.end():i - 1]
            align = 0
            if m.group(3):
                n = re.search(r"\d+", m.group(3))
                align = int(n.group(0)) if n else 0
            tag = m.group(4) or f"__anon{len(self.bodies)}"
            self.bodies[tag] = (m.group(2), body, align)
            out.append(code[pos:m.start()])
            out.append(f"{'typedef ' if m.group(1) else ''}struct {tag}")
            pos = i
        out.append(code[pos:])
        return "".join(out)

    def _number(self, text: str) -> int | None:
        text = text.strip()
        if re.fullmatch(r"\d+[uUlL]*", text):
            return int(re.sub(r"[^\d]", "", text))
        return self.numbers.get(text)

    def base(self, words: list[str], seen: frozenset[str] = frozenset()) -> tuple[str, int, int] | None:
        """``(canonical, size, alignment)`` of a type spelled by ``words`` (qualifiers removed, no pointer
        level), or None when it cannot be sized."""
        name = " ".join(_strip_std(w) for w in words)
        if name in seen:
            return None
        if name in SCALARS:
            fmt = SCALARS[name]
            size = 2 if fmt == "bf16" else struct.calcsize(fmt)
            return name, size, size
        if name in self.aliases:
            return self.resolve(self.aliases[name], seen | {name})
        if name in ALIASES:
            return self.base([ALIASES[name]], seen | {name})
        if name in VECTORS:
            size, align = VECTORS[name]
            return name, size, align
        layout = self.layout(name, seen | {name})
        if layout is not None:
            return f"char[{layout[0]}]", layout[0], layout[1]
        return None

    def resolve(self, text: str, seen: frozenset[str] = frozenset()) -> tuple[str, int, int] | None:
        """``(canonical, size, alignment)`` of a type written as ``text`` (an alias target, a field type), or
        None when it cannot be sized. Pointers keep their pointee as written (``float*``)."""
        words = [w for w in _WORDS.findall(text) if w not in _QUALIFIERS and not w.startswith("__align")]
        levels = [w for w in words if w in ("*", "&")]
        base = [w for w in words if w not in ("*", "&") and not w.startswith("[")]
        if levels:
            pointee = self.base(base, seen)
            spelled = pointee[0] if pointee is not None and not pointee[0].startswith("char[") else " ".join(base)
            return spelled + "*" * len(levels), 8, 8
        return self.base(base, seen)

    def layout(self, tag: str, seen: frozenset[str]) -> tuple[int, int] | None:
        """``(size, alignment)`` of the struct or union ``tag`` defined in the program, or None."""
        if tag in self._layouts:
            return self._layouts[tag]
        got = self.bodies.get(tag)
        if got is None:
            return None
        kind, body, explicit = got
        self._layouts[tag] = None  # a self-referencing struct (by value) cannot be sized
        size = align = 0
        for decl in re.sub(r"\{[^{}]*\}", ";", body).split(";"):
            decl = decl.strip()
            if not decl or "(" in decl or decl.startswith(("static", "public:", "private:", "protected:",
                                                           "template", "using", "typedef", "friend")):
                decl = re.sub(r"^(public|private|protected)\s*:\s*", "", decl)
                if not decl or "(" in decl or decl.startswith(("static", "template", "using", "typedef",
                                                               "friend")):
                    continue
            if ":" in decl.replace("::", ""):
                return None  # a bit-field: not laid out here
            head, *more = decl.split(",")
            m = re.match(r"^(.*?)([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)$", head.strip())
            if m is None:
                return None
            ftype = m.group(1)
            base_type = ftype.replace("*", " ")
            fields = [(ftype, m.group(3))]
            for extra in more:
                e = re.match(r"^\s*(\**)\s*[A-Za-z_]\w*\s*((?:\[[^\]]*\]\s*)*)$", extra)
                if e is None:
                    return None
                fields.append((base_type + e.group(1), e.group(2)))
            for ftext, dims in fields:
                got_t = self.resolve(ftext, seen)
                if got_t is None:
                    return None
                _c, fsize, falign = got_t
                for dim in re.findall(r"\[([^\]]*)\]", dims):
                    count = self._number(dim)
                    if count is None:
                        return None
                    fsize *= count
                if kind == "union":
                    size = max(size, fsize)
                else:
                    size = -(-size // falign) * falign + fsize
                align = max(align, falign)
        align = max(align, explicit, 1)
        size = max(-(-size // align) * align, 1 if size == 0 else 0)
        self._layouts[tag] = (size, align)
        return size, align

    def param(self, raw: str) -> str:
        """The canonical type string of one kernel parameter declaration (``const int16_t n``, ``Vec v``,
        ``float a[]``); a type it cannot size stays as written (:func:`struct_format` then refuses it)."""
        raw = raw.split("=")[0].strip()
        words = [w for w in _WORDS.findall(raw) if w not in _QUALIFIERS and not w.startswith("__align")]
        array = bool(words) and words[-1].startswith("[")
        words = [w for w in words if not w.startswith("[")]
        # drop the parameter name: a trailing identifier after at least one type word
        if len(words) > 1 and words[-1] not in ("*", "&") and not self._is_type_word(words[-1], words[:-1]):
            words = words[:-1]
        text = " ".join(words) + ("*" if array else "")
        got = self.resolve(text)
        if got is not None:
            return str(got[0])
        spelled: str = " ".join(w for w in words if w not in ("*", "&"))
        return spelled + "*" * words.count("*")

    @staticmethod
    def _is_type_word(word: str, before: list[str]) -> bool:
        """Whether ``word`` continues a type spelled by ``before`` (``unsigned int``, ``long long``) rather than
        naming the parameter."""
        return (word in ("int", "char", "short", "long", "double") and bool(before)
                and before[-1] in ("unsigned", "signed", "long", "short"))


_KERNEL_HEAD = re.compile(
    r'__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?'
    r'([A-Za-z_]\w*)\s*\(([^)]*)\)', re.S)


def split_params(params: str) -> list[str]:
    """The parameter declarations of a parameter list, split at top-level commas (not those inside
    ``<...>`` or brackets)."""
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in params:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur))
    return [p.strip() for p in out if p.strip() and p.strip() != "void"]


def kernel_params(code: str) -> dict[str, list[str]]:
    """Canonical parameter types of each ``__global__`` kernel of CUDA C ``code`` (comments already removed
    or not: they are removed here), resolved with the program's own declarations (:class:`Declarations`)."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/", " ", code, flags=re.S)
    decls = Declarations(code)
    return {m.group(1): [decls.param(p) for p in split_params(m.group(2))] for m in _KERNEL_HEAD.finditer(code)}


def unsized(types: list[str]) -> list[int]:
    """Indices of the parameters of ``types`` that cannot be sized (:func:`struct_format` refuses them)."""
    return [i for i, t in enumerate(types) if size_of(t) is None]


def bf16_value(raw: int) -> float:
    """The value of a bfloat16 whose bits are ``raw`` (the top half of a float32)."""
    return float(struct.unpack("<f", struct.pack("<I", (raw & 0xFFFF) << 16))[0])


def bf16_bits(value: float) -> int:
    """The bits of ``value`` as a bfloat16, rounded to nearest even (as ``__float2bfloat16`` rounds)."""
    bits: int = struct.unpack("<I", struct.pack("<f", value))[0]
    if (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF:
        return (bits >> 16) | 0x40  # a quiet NaN
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


_INT_BITS = {"b": (8, True), "B": (8, False), "h": (16, True), "H": (16, False), "i": (32, True),
             "I": (32, False), "q": (64, True), "Q": (64, False)}


def _read_slot(fmt: str, raw: bytes) -> object:
    """The value of ``struct`` format ``fmt`` (:func:`struct_format`) in the first bytes of an argument slot
    ``raw`` (8 bytes, :func:`simcuda._core.modules.arg_bits.slot`; zero bytes beyond)."""
    if fmt == "bf16":
        return bf16_value(int.from_bytes(raw[:2], "little"))
    n = struct.calcsize("<" + fmt)
    return struct.unpack("<" + fmt, raw[:n].ljust(n, b"\0"))[0]


def as_declared(types: list[str], args: list[object]) -> list[object]:
    """The arguments as a kernel with parameter types ``types`` reads them: what a Python kernel finds in
    ``launch.args`` whichever way the launch passed them. A ``void**`` array is already read by these types;
    a ``(values, types)`` launch gives the caller's values, which the GPU would see through the kernel's types:
    an integer wraps to the parameter's width and sign (``c_ushort(65531)`` for an ``int16_t`` is -5), an
    integer for a ``float``/``double``/``__half``/``__nv_bfloat16`` is its bits, a marked value
    (:mod:`simcuda._core.modules.arg_bits`, a ``c_float`` or a negative ``c_int``, say) is its slot's bytes read by the
    type (a sizes-only image read as
    integers, or an integer passed for a float parameter), a float for one is rounded to it, a ``bool`` is
    ``bool``, ``bytes`` for an aggregate are cut or zero-padded to its size. Anything else, and every argument
    of a kernel whose types do not match the argument count, stays as given."""
    if len(types) != len(args):
        return list(args)
    out: list[object] = []
    for t, v in zip(types, args):
        try:
            fmt = struct_format(t)
        except Unsized:
            out.append(v)
            continue
        out.append(_as_type(fmt, v))
    return out


def _as_type(fmt: str, v: object) -> object:
    """One argument ``v`` as a parameter of ``struct`` format ``fmt`` reads it (:func:`as_declared`)."""
    raw = arg_bits.slot(v)
    if raw is not None:  # a marked value: its slot's bytes, read by the parameter's type
        return _read_slot(fmt, raw)
    if type(v) is int or type(v) is bool:
        iv = int(v)
        bits = _INT_BITS.get(fmt)
        if bits is not None:
            width, signed = bits
            iv &= (1 << width) - 1
            return iv - (1 << width) if signed and iv >> (width - 1) else iv
        if fmt == "e":
            return struct.unpack("<e", struct.pack("<H", iv & 0xFFFF))[0]
        if fmt in ("f", "d"):  # an integer for a float parameter: the bits the kernel reads as one
            wide = fmt == "d"
            return struct.unpack("<" + fmt, struct.pack("<Q" if wide else "<I",
                                                        iv & ((1 << (64 if wide else 32)) - 1)))[0]
        if fmt == "bf16":
            return bf16_value(iv)
        if fmt == "?":
            return bool(iv)
    elif type(v) is float:
        if fmt == "e":
            try:
                return struct.unpack("<e", struct.pack("<e", v))[0]
            except OverflowError:
                return float("inf") if v > 0 else float("-inf")
        if fmt == "bf16":
            return bf16_value(bf16_bits(v))
    elif isinstance(v, bytes) and fmt.endswith("s"):
        n = int(fmt[:-1])
        return v[:n].ljust(n, b"\0")
    return v
