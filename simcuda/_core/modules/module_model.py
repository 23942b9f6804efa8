"""Module images: find kernel entry names (and parameter types when visible) in PTX, CUBIN,
fatbin or CUDA C text (docs/architecture.md, "Kernels").

This module does not run device code (the kernel engine, :mod:`simcuda.ptx`, runs the PTX that
:func:`ptx_of_image` finds for an image; :mod:`simcuda._core.modules.ptxrun`). It reads entry names so that
``cuModuleGetFunction`` answers like the real driver (``CUDA_ERROR_NOT_FOUND`` for an unknown
name), and parameter types so that a ``void**`` argument array can be decoded for a
registered Python kernel.
"""
from __future__ import annotations

import hashlib
import re
import struct
import threading
from collections import OrderedDict
from typing import Any

from ..errors import CUresult, DriverError
from ..process import renew_lock_after_fork
from . import param_types

SIM_CUBIN_MAGIC = b"SIMCUDA-CUBIN\n"
PARAMS_TAG = "// simcuda-params "

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


def read_image_file(path: str | None, call: str = "cuModuleLoad") -> bytes:
    """The bytes of a module or library file (cuModuleLoad, cuLibraryLoadFromFile, cuLinkAddFile), ``call`` named in
    the ``why``. Errors: 1 INVALID_VALUE a NULL ``path`` (None, a C caller's); 301 FILE_NOT_FOUND when the file
    cannot be read, as those calls' Returns lists give it."""
    if path is None:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{call}: the file name is NULL (a required pointer argument may not be NULL)")
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as e:
        raise DriverError(CUresult.CUDA_ERROR_FILE_NOT_FOUND, f"{call}: cannot read {path!r}: {e.strerror}") from None


def parse_cuda_source(src: str) -> dict[str, list[str]]:
    """``extern "C" __global__`` (and plain ``__global__``) kernels of CUDA C source, with canonical parameter
    types resolved through the source's own aliases and structs
    (:func:`simcuda._core.modules.param_types.kernel_params`)."""
    return param_types.kernel_params(src)


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
        else:  # EIFMT_NVAL (1): no value; 0: two bytes of padding (after an NVAL at sm_80); else the walk ends
            if fmt not in (0, 1):
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


#: images whose kernels' C parameter types are known beyond their sizes: sha256 of the image (trailing NULs
#: removed) -> entry -> canonical types. simcuda's NVRTC face fills it when NVIDIA's NVRTC compiled the program
#: (:func:`remember_param_types`); bounded, the oldest forgotten first.
_REMEMBERED: OrderedDict[bytes, dict[str, list[str]]] = OrderedDict()
_REMEMBERED_MAX = 512
_REMEMBERED_LOCK = threading.Lock()
renew_lock_after_fork(globals(), "_REMEMBERED_LOCK")  # a forked child makes it anew


def remember_param_types(image: bytes, types: dict[str, list[str]]) -> None:
    """Record the C parameter types of the kernels of ``image`` (a PTX or CUBIN that a real compiler made from a
    source simcuda read): a later load of the same bytes reads each parameter by its declared type where the
    image's own size for it agrees (:func:`parse_image`), so a ``short`` stays signed and a ``__half`` a half."""
    key = hashlib.sha256(bytes(image).rstrip(b"\0")).digest()
    with _REMEMBERED_LOCK:
        _REMEMBERED[key] = types
        _REMEMBERED.move_to_end(key)
        while len(_REMEMBERED) > _REMEMBERED_MAX:
            _REMEMBERED.popitem(last=False)


#: PTX of the CUBINs that simcuda's NVRTC face (or the native route's NVRTC shim) saw compiled: sha256 of the
#: CUBIN (trailing NULs removed) -> the PTX text of the same program, so that a launch of a kernel loaded from the
#: CUBIN can run its PTX (issue 17; a CUBIN itself holds no PTX). Bounded like :data:`_REMEMBERED`.
_PTX_OF: OrderedDict[bytes, str] = OrderedDict()


def remember_ptx(cubin: bytes, ptx: bytes | str) -> None:
    """Record that ``cubin`` was compiled from PTX ``ptx`` (both of one NVRTC program): a later load of the same
    CUBIN bytes gets that PTX (:func:`ptx_of_image`). Bounded: the oldest of 512 is forgotten first."""
    text = ptx.decode("utf-8", "replace") if isinstance(ptx, (bytes, bytearray)) else str(ptx)
    key = hashlib.sha256(bytes(cubin).rstrip(b"\0")).digest()
    with _REMEMBERED_LOCK:
        _PTX_OF[key] = text.rstrip("\0")
        _PTX_OF.move_to_end(key)
        while len(_PTX_OF) > _REMEMBERED_MAX:
            _PTX_OF.popitem(last=False)


def ptx_of_image(image: Any, source: str | None) -> str | None:
    """The PTX text a launch of a kernel of this image runs, or None: the image itself when it is PTX text
    (``.entry``/``.version`` present; simcuda's SIM_CUBIN carries its PTX too), else the PTX remembered for the
    same CUBIN bytes (:func:`remember_ptx`). CUDA C source text handed to the loader (simcuda's own fake image)
    and CUBINs compiled elsewhere (nvcc offline, LTO-IR) have none: their launches are recorded and listed as
    kernels that could not run (docs/kernels.md)."""
    if source is not None:
        return source if (".entry" in source and ".version" in source) else None
    if not _PTX_OF:
        return None
    key = hashlib.sha256(image_bytes(image).rstrip(b"\0")).digest()
    with _REMEMBERED_LOCK:
        return _PTX_OF.get(key)


def merge_param_types(sized: list[str], declared: list[str] | None) -> list[str]:
    """Per parameter, the declared type where its size is the image's size for it, else the image's type
    (a real compiler's sizes are the truth; the declared type only says how to read those bytes)."""
    if not declared or len(declared) != len(sized):
        return sized
    out = []
    for s, d in zip(sized, declared):
        ds, ss = param_types.size_of(d), param_types.size_of(s)
        out.append(d if ds is not None and ds == ss else s)
    return out


_SIZES_ONLY = frozenset(_SIZED.values())


def with_ptx_types(entries: dict[str, list[str]], ptx: str) -> dict[str, list[str]]:
    """``entries`` of a binary image (a CUBIN or fatbin, :func:`parse_image`) typed by the image's known PTX
    (:func:`ptx_of_image`): a parameter the image knows by its size only (an unsigned integer of that size, or
    ``char[N]``) takes the PTX's type of the same size (``.f32`` a ``float``, ``.s32`` an ``int``), so a Python
    twin reads the values its kernel's PTX reads on every route (docs/kernels.md); a type declared beyond the
    sizes (:func:`remember_param_types`) stays. An entry with no types takes the PTX's. Done once per load."""
    typed = parse_ptx(ptx)
    out: dict[str, list[str]] = {}
    for name, sized in entries.items():
        known = typed.get(name)
        if known is None or (sized and len(known) != len(sized)):
            out[name] = sized
        elif not sized:
            out[name] = known
        else:
            out[name] = [k if (s in _SIZES_ONLY or s.startswith("char["))
                         and param_types.size_of(k) == param_types.size_of(s) else s
                         for s, k in zip(sized, known)]
    return out


def _with_remembered(data: bytes, entries: dict[str, list[str]]) -> dict[str, list[str]]:
    with _REMEMBERED_LOCK:
        known = _REMEMBERED.get(hashlib.sha256(data).digest())
    if not known:
        return entries
    return {k: merge_param_types(v, known.get(k)) for k, v in entries.items()}


def parse_image(image: Any) -> tuple[dict[str, list[str]], str | None]:
    """Entry names -> parameter C types (``[]`` when unknown), and the text when it is text. The types of an
    image that simcuda's NVRTC face had NVIDIA's NVRTC compile are the declared ones where the sizes agree
    (:func:`remember_param_types`).

    Errors: ``CUDA_ERROR_INVALID_IMAGE`` (200) when nothing recognisable is found.
    """
    data = image_bytes(image).rstrip(b"\0")
    entries, text = _parse_image(data)
    return (_with_remembered(data, entries) if _REMEMBERED else entries), text


def _parse_image(data: bytes) -> tuple[dict[str, list[str]], str | None]:
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


# ctypes-compatible sizes/formats for decoding a void** argument array: simcuda._core.modules.param_types
def struct_format(ctype: str) -> str:
    """``struct`` format for a C parameter type (:func:`simcuda._core.modules.param_types.struct_format`: pointers
    ``Q``, scalars by their size and sign, ``__half`` ``e``, ``__nv_bfloat16`` ``bf16``, ``char[N]`` and vector
    types ``Ns``, their bytes). Raises :class:`simcuda._core.modules.param_types.Unsized` for a type it cannot size."""
    return param_types.struct_format(ctype)
