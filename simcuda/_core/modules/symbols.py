"""Module images, part two: device variables (``__device__``/``__constant__``, PTX ``.global``/``.const``) and the
parameter layout of kernels (issue 10).

Mirrors what the real driver knows of an image without running it: the variables it allocates when a module
loads (``cuModuleGetGlobal``/``cuLibraryGetGlobal`` hand out their address and size), and where each kernel
parameter lies in the device-side parameter buffer (``cuFuncGetParamInfo``/``cuKernelGetParamInfo``).

* **Variables** are read from PTX (``[.visible|.weak] .global|.const [.align A] .type name[N]... [= init];``, not
  ``.extern`` ones, which another image defines), from CUDA C source (``__device__``/``__constant__`` scalars and
  arrays of the C types :func:`simcuda._core.modules.module_model.struct_format` knows) and from a CUBIN's symbol table
  (objects in ``.nv.global*``/``.nv.constant<N>`` sections other than bank 0, the kernels' parameter bank), with their
  declared size and, where the image gives one, their initial bytes (PTX and C integer and floating literals,
  PTX's ``0f``/``0d`` hexadecimal floats, a CUBIN's ``.nv.global.init``/``.nv.constant<N>`` contents). Anything
  else starts zeroed, as ``.global`` memory without an initialiser does [D: PTX ISA, "state spaces"].
* **Parameter layout**: a parameter starts at the next multiple of its alignment: a scalar's own size, a pointer
  8, a PTX ``.align A .b8 p[N]`` array A; when the image gives no alignment (``char[N]`` read from a CUBIN's
  sizes or from source), the largest power of two up to 8 dividing N [I]. A CUBIN's EIATTR_KPARAM_INFO records
  carry the real offsets, which are used as they are.
"""
from __future__ import annotations

import re
import struct
from typing import Any

from .module_model import SIM_CUBIN_MAGIC, image_bytes
from .param_types import SCALARS

#: the scalar C types a ``__device__`` variable's initial value is encoded for (the half types are left out: a
#: variable of one is sized by the reader but starts zeroed)
_C_SCALARS = {name: fmt for name, fmt in SCALARS.items() if fmt not in ("e", "bf16")}

#: bytes of a PTX fundamental type by its width suffix
_PTX_WIDTH = {"8": 1, "16": 2, "32": 4, "64": 8}
_PTX_VAR = re.compile(
    r"(?m)^[ \t]*(?P<ext>(?:\.(?:visible|weak|extern)\s+)*)\.(?P<space>global|const)\s+(?:\.align\s+(?P<align>\d+)\s+)?"
    r"(?:\.v(?P<vec>\d)\s+)?\.(?P<type>[a-z]+\d+)\s+(?P<name>[A-Za-z_$%][\w$]*)\s*(?P<dims>(?:\[\s*\d*\s*\])*)"
    r"\s*(?:=\s*(?P<init>[^;]*))?;")
_C_VAR = re.compile(
    r"(?:\b__device__\b|\b__constant__\b)(?:\s+(?:__device__|__constant__|static|const|volatile))*\s+"
    r"(?P<type>(?:unsigned\s+|signed\s+)?(?:long\s+long|long|int|short|char|float|double|bool|size_t|"
    r"u?int(?:8|16|32|64)_t)(?:\s+int)?)\s+(?P<name>[A-Za-z_]\w*)\s*(?P<dims>(?:\[\s*\d+\s*\])*)\s*"
    r"(?:=\s*(?P<init>\{[^;]*\}|[^;{]*))?;")
_PTX_PARAMS = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\)", re.S)
_PTX_PARAM = re.compile(r"\.param\s+(?:\.align\s+(\d+)\s+)?(?:\.ptr\s+[^,]*?)?\.(\w+)\s+[\w$]+\s*(?:\[(\d+)\])?")


class Variable:
    """A device variable of an image: its name, size in bytes and initial bytes (``size`` of them)."""

    __slots__ = ("name", "size", "init")

    def __init__(self, name: str, size: int, init: bytes) -> None:
        self.name, self.size, self.init = name, size, init[:size].ljust(size, b"\0")

    def __repr__(self) -> str:
        return f"Variable({self.name!r}, {self.size}, {self.init!r})"


def _dims(text: str) -> int:
    """The element count of ``[4][2]`` (8); ``[]`` (size from the initialiser) counts as 0."""
    n = 1
    for d in re.findall(r"\[\s*(\d*)\s*\]", text or ""):
        n *= int(d) if d else 0
    return n


def _literals(init: str | None) -> list[str]:
    """The scalar literals of an initialiser (``5``, ``{1, 2, {3}}``); [] when there is none or it is not numeric
    (an address such as ``generic(x)``)."""
    if not init:
        return []
    items = [t.strip() for t in re.split(r"[{},]", init) if t.strip()]
    return items if all(re.fullmatch(r"[-+0-9A-Fa-fxX.eEfFdDuUlL]+", t) for t in items) else []


def _encode(lit: str, kind: str, size: int) -> bytes:
    """One literal as ``size`` little-endian bytes of a ``kind`` (``"f"`` float, ``"i"`` integer) value."""
    t = lit.lower().rstrip("ul") if kind == "i" else lit.lower()
    if kind == "f":
        if re.fullmatch(r"0[fd][0-9a-f]+", t):  # PTX hexadecimal float: the raw bits
            return int(t[2:], 16).to_bytes(size, "little")
        v = float(t.rstrip("f")) if not t.startswith("0x") else float(int(t, 16))
        return struct.pack("<f" if size == 4 else "<d", v)
    v = int(float(t)) if ("." in t or "e" in t) and not t.startswith("0x") else int(t, 0)
    return (v & ((1 << (8 * size)) - 1)).to_bytes(size, "little")


def _ptx_variables(text: str) -> dict[str, Variable]:
    out: dict[str, Variable] = {}
    for m in _PTX_VAR.finditer(text):
        if "extern" in m.group("ext"):
            continue
        ty = m.group("type")
        width = _PTX_WIDTH.get(re.sub(r"^[a-z]+", "", ty))
        if width is None:
            continue  # .texref, .samplerref...: not memory
        width *= int(m.group("vec") or 1)
        lits = _literals(m.group("init"))
        count = _dims(m.group("dims")) if m.group("dims") else 1
        if count == 0:
            count = len(lits)
        elem = _PTX_WIDTH[re.sub(r"^[a-z]+", "", ty)]
        kind = "f" if ty.startswith("f") else "i"
        init = b"".join(_encode(x, kind, elem) for x in lits)
        out[m.group("name")] = Variable(m.group("name"), width * count, init)
    return out


def _c_variables(text: str) -> dict[str, Variable]:
    out: dict[str, Variable] = {}
    text = re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)
    for m in _C_VAR.finditer(text):
        ctype = " ".join(m.group("type").split())
        fmt = _C_SCALARS.get(ctype) or _C_SCALARS.get(ctype.removesuffix(" int"))
        if fmt is None:
            continue
        elem = struct.calcsize("<" + fmt)
        lits = _literals(m.group("init"))
        count = _dims(m.group("dims")) if m.group("dims") else 1
        kind = "f" if fmt in "fd" else "i"
        out[m.group("name")] = Variable(m.group("name"), elem * count, b"".join(_encode(x, kind, elem) for x in lits))
    return out


def _elf_variables(data: bytes) -> dict[str, Variable]:
    """Objects of a CUBIN's symbol table in its global and constant (bank 1 and up) sections."""
    try:
        if data[4] != 2:
            return {}
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
        str_off = secs[shstrndx][4]

        def sname(off: int, base: int) -> str:
            return data[base + off:data.index(b"\0", base + off)].decode("latin-1")
        names = [sname(s[0], str_off) for s in secs]
        out: dict[str, Variable] = {}
        for s in secs:
            if s[1] != 2:  # SHT_SYMTAB
                continue
            strtab = secs[s[6]][4]
            for pos in range(s[4], s[4] + s[5], 24):
                st_name, st_info, _other, st_shndx, st_value, st_size = struct.unpack_from("<IBBHQQ", data, pos)
                if st_info & 0xF != 1 or not 0 < st_shndx < shnum:  # STT_OBJECT in a real section
                    continue
                sec = names[st_shndx]
                if not (sec.startswith(".nv.global") or (sec.startswith(".nv.constant") and sec != ".nv.constant0"
                                                         and not sec.startswith(".nv.constant0."))):
                    continue
                t = secs[st_shndx]
                init = b"" if t[1] == 8 else data[t[4] + st_value:t[4] + st_value + st_size]  # SHT_NOBITS: zeroed
                name = sname(st_name, strtab)
                out[name] = Variable(name, int(st_size), init)
        return out
    except (struct.error, ValueError, IndexError):
        return {}


def image_variables(image: Any) -> dict[str, Variable]:
    """The device variables of a module image (see the module docstring), by name; {} when it has none or is
    not one this reader understands (the load itself is decided by
    :func:`simcuda._core.modules.module_model.parse_image`)."""
    try:
        data = image_bytes(image).rstrip(b"\0")
    except Exception:  # noqa: BLE001 - parse_image reports a bad image; here it simply has no variables
        return {}
    if data.startswith(SIM_CUBIN_MAGIC):
        return _ptx_variables(data[len(SIM_CUBIN_MAGIC):].decode("utf-8", "replace"))
    if data.startswith(b"\x7fELF"):
        return _elf_variables(data)
    if data[:4] == b"\x50\xed\x55\xba":
        pos = data.find(b"\x7fELF")
        found = _ptx_variables(data.decode("latin-1"))
        return found or (_elf_variables(data[pos:]) if pos >= 0 else {})
    text = data.decode("utf-8", "replace")
    if ".entry" in text or ".version" in text or re.search(r"\.(global|const)\s", text):
        return _ptx_variables(text)
    return _c_variables(text)


# ---------------------------------------------------------------------------------------------- parameters
def _align_of(ctype: str) -> tuple[int, int]:
    """``(size, alignment)`` of a parameter C type (:func:`~simcuda._core.modules.module_model.struct_format`'s
    types)."""
    from .module_model import struct_format
    fmt = struct_format(ctype)
    if fmt.endswith("s"):
        n = int(fmt[:-1])
        return n, next(a for a in (8, 4, 2, 1) if n % a == 0)
    n = struct.calcsize("<" + fmt)
    return n, n


def param_layout(types: list[str], source: str | None = None, name: str = "") -> list[tuple[int, int]]:
    """``(offset, size)`` of each parameter of kernel ``name`` whose C types are ``types``: from its PTX
    ``.param`` list when ``source`` is PTX text that declares it (their ``.align``), else by the natural alignment
    of the types (see the module docstring)."""
    sizes: list[tuple[int, int]] | None = None
    if source and name:
        for m in _PTX_PARAMS.finditer(source):
            if m.group(1) == name:
                sizes = []
                for align, ty, count in _PTX_PARAM.findall(m.group(2)):
                    w = _PTX_WIDTH.get(re.sub(r"^[a-z]+", "", ty), 8)
                    n = w * int(count) if count else w
                    sizes.append((n, int(align) if align else w))
                break
    if sizes is None or len(sizes) != len(types):
        sizes = [_align_of(t) for t in types]
    out, off = [], 0
    for n, a in sizes:
        off = (off + a - 1) // a * a
        out.append((off, n))
        off += n
    return out


def elf_param_offsets(data: bytes) -> dict[str, list[tuple[int, int]]]:
    """``{kernel: [(offset, size), ...]}`` from a CUBIN's EIATTR_KPARAM_INFO records (``.nv.info.<kernel>``)."""
    out: dict[str, list[tuple[int, int]]] = {}
    try:
        if not data.startswith(b"\x7fELF") or data[4] != 2:
            return out
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        str_off, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 0x18)
        for i in range(shnum):
            base = shoff + i * shentsize
            name_off, = struct.unpack_from("<I", data, base)
            name = data[str_off + name_off:data.index(b"\0", str_off + name_off)].decode("latin-1")
            if not name.startswith(".nv.info."):
                continue
            off, size = struct.unpack_from("<QQ", data, base + 0x18)
            sec, pos, params = data[off:off + size], 0, {}
            while pos + 2 <= len(sec):
                fmt, attr = sec[pos], sec[pos + 1]
                if fmt == 4:
                    n, = struct.unpack_from("<H", sec, pos + 2)
                    if attr == 0x17 and n >= 12:
                        _index, ordinal, offset, flags = struct.unpack_from("<IHHI", sec, pos + 4)
                        params[ordinal] = (offset, flags >> 18)
                    pos += 4 + n
                elif fmt == 3:
                    pos += 4
                elif fmt == 2:
                    pos += 3
                elif fmt == 1:
                    pos += 2
                else:
                    break
            out[name[9:]] = [params[k] for k in sorted(params)]
    except (struct.error, ValueError, IndexError):
        return {}
    return out
