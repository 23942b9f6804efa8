"""Module images: find kernel entry names (and parameter types when visible) in PTX, CUBIN,
fatbin or CUDA C text (docs/architecture.md, "Kernels").

The simulator never compiles or runs device code. It reads entry names so that
``cuModuleGetFunction`` answers like the real driver (``CUDA_ERROR_NOT_FOUND`` for an unknown
name), and parameter types so that a ``void**`` argument array can be decoded for a
registered Python kernel.
"""
from __future__ import annotations

import re
import struct
from typing import Any

from .errors import CUresult, DriverError

SIM_CUBIN_MAGIC = b"SIMCUDA-CUBIN\n"
PARAMS_TAG = "// simcuda-params "

_C_KERNEL = re.compile(
    r'__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?'
    r'([A-Za-z_]\w*)\s*\(([^)]*)\)', re.S)
_PTX_ENTRY = re.compile(r'\.entry\s+([A-Za-z_$][\w$]*)\s*\(([^)]*)\)', re.S)
_PTX_PARAM = re.compile(r'\.param\s+(?:\.align\s+\d+\s+)?(?:\.ptr\s+[^,]*?)?\.(\w+)\s+[\w$]+\s*(?:\[(\d+)\])?')
_PTX_BYTES = {"8": 1, "16": 2, "32": 4, "64": 8}
_PTX_SIZES = {"u8": "unsigned char", "s8": "char", "b8": "char", "u16": "unsigned short", "s16": "short",
              "b16": "short", "u32": "unsigned int", "s32": "int", "b32": "int", "f32": "float",
              "u64": "unsigned long long", "s64": "long long", "b64": "unsigned long long", "f64": "double"}


def image_bytes(image: Any) -> bytes:
    """Bytes of an image given as bytes, str, a numpy char/byte array, or a buffer."""
    if isinstance(image, str):
        return image.encode()
    if isinstance(image, (bytes, bytearray, memoryview)):
        return bytes(image)
    tobytes = getattr(image, "tobytes", None)
    if tobytes is not None:
        return bytes(tobytes())
    raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"module image of type {type(image).__name__} is not bytes, "
                                                         "str or an array")


def _split_c_params(params: str) -> list[str]:
    out = []
    for p in params.split(","):
        p = " ".join(p.replace("*", " * ").split())
        if not p or p == "void":
            continue
        words = p.split()
        # drop the parameter name when present (last word that is not '*' and not a type keyword)
        if len(words) > 1 and words[-1] not in ("*",) and words[-1] not in _TYPE_WORDS:
            words = words[:-1]
        words = [w for w in words if w not in ("const", "volatile", "__restrict__", "restrict")]
        out.append(" ".join(words).replace(" *", "*"))
    return out


_TYPE_WORDS = {"int", "unsigned", "float", "double", "char", "short", "long", "size_t", "bool"}


def parse_cuda_source(src: str) -> dict[str, list[str]]:
    """``extern "C" __global__`` (and plain ``__global__``) kernels of CUDA C source."""
    src = re.sub(r"//[^\n]*|/\*.*?\*/", " ", src, flags=re.S)
    return {m.group(1): _split_c_params(m.group(2)) for m in _C_KERNEL.finditer(src)}


def parse_ptx(text: str) -> dict[str, list[str]]:
    """PTX ``.entry`` kernels with parameter types (``// simcuda-params`` lines give exact C types)."""
    entries: dict[str, list[str]] = {}
    for m in _PTX_ENTRY.finditer(text):
        entries[m.group(1)] = [_ptx_param_type(t, count) for t, count in _PTX_PARAM.findall(m.group(2))]
    for line in text.splitlines():  # precise C types left by simcuda's nvrtc
        if line.startswith(PARAMS_TAG):
            name, _, types = line[len(PARAMS_TAG):].partition(":")
            if name.strip() in entries:
                entries[name.strip()] = [t.strip() for t in types.split(",") if t.strip()]
    return entries


def _ptx_param_type(t: str, count: str) -> str:
    """The C type of one PTX ``.param``: a scalar by its PTX type (``.u32`` -> ``unsigned int``); an array
    (``.align 8 .b8 p[16]``, a struct passed by value) as ``char[N]``, its size in bytes."""
    if count:
        return f"char[{int(count) * _PTX_BYTES.get(t[1:], 1)}]"
    return _PTX_SIZES.get(t, "unsigned long long")


#: EIATTR_KPARAM_INFO in a CUBIN's ``.nv.info.<kernel>`` section: one record per kernel parameter
_EIATTR_KPARAM_INFO = 0x17
_SIZED = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}


def _kparam_types(section: bytes) -> list[str]:
    """Parameter types of a kernel from its ``.nv.info.<kernel>`` attributes: each EIATTR_KPARAM_INFO record
    gives a parameter's ordinal and its size in bytes (the top 14 bits of its last word); a CUBIN keeps sizes,
    not C types, so a parameter reads as the unsigned integer of its size, or ``char[N]`` (docs/fidelity.md)."""
    params: dict[int, int] = {}
    pos = 0
    while pos + 2 <= len(section):
        fmt, attr = section[pos], section[pos + 1]
        if fmt == 4:  # EIFMT_SVAL: a u16 size, then the payload
            size, = struct.unpack_from("<H", section, pos + 2)
            if attr == _EIATTR_KPARAM_INFO and size >= 12:
                _index, ordinal, _offset, flags = struct.unpack_from("<IHHI", section, pos + 4)
                params[ordinal] = flags >> 18
            pos += 4 + size
        elif fmt == 3:  # EIFMT_HVAL: a u16 value
            pos += 4
        elif fmt == 2:  # EIFMT_BVAL: a byte
            pos += 3
        else:  # EIFMT_NVAL (1): no value; anything else ends the walk
            if fmt != 1:
                break
            pos += 2
    return [_SIZED.get(n, f"char[{n}]") for _o, n in sorted(params.items())]


def _elf_entries(data: bytes) -> dict[str, list[str]]:
    """Kernel names of a CUBIN (sections named ``.text.<kernel>``) with their parameter types, read from the
    ``.nv.info.<kernel>`` sections when present (:func:`_kparam_types`)."""
    try:
        if data[4] != 2:  # ELFCLASS64 only
            return {}
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        hdr = shoff + shstrndx * shentsize
        str_off, = struct.unpack_from("<Q", data, hdr + 0x18)
        names: dict[str, list[str]] = {}
        info: dict[str, list[str]] = {}
        for i in range(shnum):
            base = shoff + i * shentsize
            name_off, = struct.unpack_from("<I", data, base)
            end = data.index(b"\0", str_off + name_off)
            name = data[str_off + name_off:end].decode("latin-1")
            if name.startswith(".text."):
                names[name[6:]] = []
            elif name.startswith(".nv.info."):
                off, size = struct.unpack_from("<QQ", data, base + 0x18)
                info[name[9:]] = _kparam_types(data[off:off + size])
        return {k: info.get(k, v) for k, v in names.items()}
    except (struct.error, ValueError, IndexError):
        return {}


def parse_image(image: Any) -> tuple[dict[str, list[str]], str | None]:
    """Entry names -> parameter C types (``[]`` when unknown), and the text when it is text.

    Errors: ``CUDA_ERROR_INVALID_IMAGE`` (200) when nothing recognisable is found.
    """
    data = image_bytes(image).rstrip(b"\0")
    if data.startswith(SIM_CUBIN_MAGIC):
        text = data[len(SIM_CUBIN_MAGIC):].decode("utf-8", "replace")
        return parse_ptx(text), text
    if data.startswith(b"\x7fELF"):
        entries = _elf_entries(data)
        if entries:
            return entries, None
        raise DriverError(CUresult.CUDA_ERROR_INVALID_IMAGE, "the ELF image has no .text.<kernel> sections: not a "
                                                             "CUBIN the simulator can read")
    if data[:4] == b"\x50\xed\x55\xba":  # fatbin: look for embedded PTX text or ELF kernels
        text = data.decode("latin-1")
        entries = parse_ptx(text)
        pos = data.find(b"\x7fELF")
        if not entries and pos >= 0:
            entries = _elf_entries(data[pos:])
        if entries:
            return entries, None
        raise DriverError(CUresult.CUDA_ERROR_INVALID_IMAGE, "no kernel entries were found in the fatbin image")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_IMAGE, "the module image is neither PTX/CUDA text "
                                                             "nor a CUBIN/fatbin") from None
    if ".entry" in text or ".version" in text:
        return parse_ptx(text), text
    entries = parse_cuda_source(text)
    if entries:
        return entries, text
    raise DriverError(CUresult.CUDA_ERROR_INVALID_IMAGE, "the module image text has no PTX .entry and no __global__ "
                                                         "kernel")


# ctypes-compatible sizes/formats for decoding a void** argument array
_C_SCALARS = {
    "char": "b", "signed char": "b", "unsigned char": "B", "bool": "?", "short": "h", "unsigned short": "H",
    "int": "i", "unsigned int": "I", "unsigned": "I", "long": "q", "unsigned long": "Q", "long long": "q",
    "unsigned long long": "Q", "size_t": "Q", "float": "f", "double": "d", "int32_t": "i", "uint32_t": "I",
    "int64_t": "q", "uint64_t": "Q",
}


def struct_format(ctype: str) -> str:
    """``struct`` format for a C parameter type (pointers and unknown types: 8-byte unsigned; ``char[N]``, a
    struct passed by value: ``Ns``, its bytes)."""
    if ctype.endswith("*"):
        return "Q"
    if ctype.startswith("char[") and ctype.endswith("]"):
        return f"{int(ctype[5:-1])}s"
    return _C_SCALARS.get(ctype, "Q")
