"""The simulated JIT linker's model: JIT options, link inputs, and the merge of several PTX inputs (issue 17).

The driver's ``cuLink*`` entries (:mod:`simcuda._core.modules.link_entries`) keep a :class:`LinkState` per handle. What
the model holds [D: the driver API's "Module Management" group, ``CUjit_option`` and ``CUjitInputType``, unless
tagged]:

* the JIT options the caller passed (:class:`JitOptions`): the values are read as the driver reads them, one
  ``void*`` slot per option, a number in the slot or (the log buffers) an address; the info and error log
  buffers are filled NUL-terminated and cut to the size the caller gave, and the number of bytes filled and the
  wall time are written back into the caller's slots (the driver keeps the ``optionValues`` array of
  ``cuLinkCreate`` for the life of the link state and writes there when it fills the logs: cuda.core 1.2.2 keeps
  it alive until ``cuLinkDestroy`` for that reason [O]);
* the inputs, by ``CUjitInputType``, as PTX text: a PTX input is kept as given; a CUBIN (or fatbin) is accepted
  when its PTX is known (simcuda's own image, or a CUBIN NVRTC made in this process: :func:`ptx_of_image`);
* the images :func:`merge_ptx` made at ``cuLinkComplete``: each a buffer the state owns until
  ``cuLinkDestroy`` [D: "cubinOut ... freed when cuLinkDestroy is called"], holding simcuda's image format
  (``SIMCUDA-CUBIN`` then the PTX), which every module loader of the simulator reads, and remembered by its bytes
  (:func:`simcuda._core.modules.module_model.remember_ptx`).

This module decides nothing about handles or errors of a call; it raises :class:`DriverError` with the codes
the entries document.
"""
from __future__ import annotations

import ctypes
import re
import struct
from typing import Any

import attrs

from ..._generated.driver_enums import CUjit_target
from ..errors import CUresult, DriverError
from ..memory import hostmem

# CUjit_option values [D] (the enum of cuda.bindings 13.5)
MAX_REGISTERS, THREADS_PER_BLOCK, WALL_TIME = 0, 1, 2
INFO_LOG_BUFFER, INFO_LOG_BUFFER_SIZE_BYTES, ERROR_LOG_BUFFER, ERROR_LOG_BUFFER_SIZE_BYTES = 3, 4, 5, 6
OPTIMIZATION_LEVEL, TARGET_FROM_CUCONTEXT, TARGET, FALLBACK_STRATEGY = 7, 8, 9, 10
CACHE_MODE, LTO = 14, 20
NUM_OPTIONS = 36
#: values an enumerated option accepts [D]: ``CU_JIT_OPTIMIZATION_LEVEL`` 0..4, ``CUjit_fallback``,
#: ``CUjit_cacheMode``
_RANGES = {OPTIMIZATION_LEVEL: range(5), FALLBACK_STRATEGY: range(2), CACHE_MODE: range(3)}
#: ``CUjit_target`` values (compute capability major*10 + minor, the ``a``/``f`` variants above 0xFFFF), from the
#: binding's enum
_TARGETS = frozenset(int(t.value) for t in CUjit_target)

# CUjitInputType values [D]
INPUT_CUBIN, INPUT_PTX, INPUT_FATBINARY, INPUT_OBJECT, INPUT_LIBRARY, INPUT_NVVM = 0, 1, 2, 3, 4, 5
NUM_INPUT_TYPES = 6
INPUT_NAMES = {INPUT_CUBIN: "CU_JIT_INPUT_CUBIN", INPUT_PTX: "CU_JIT_INPUT_PTX",
               INPUT_FATBINARY: "CU_JIT_INPUT_FATBINARY", INPUT_OBJECT: "CU_JIT_INPUT_OBJECT",
               INPUT_LIBRARY: "CU_JIT_INPUT_LIBRARY", INPUT_NVVM: "CU_JIT_INPUT_NVVM"}

_SLOT = ctypes.sizeof(ctypes.c_void_p)


def _uint(v: Any) -> int:
    """The ``unsigned int`` an option's slot carries (the low 32 bits of the ``void*``; a Python face's ``int``)."""
    if isinstance(v, bool) or not isinstance(v, int):
        try:
            v = int(v)
        except (TypeError, ValueError):
            return 0
    return int(v) & 0xFFFFFFFF


@attrs.define
class LogBuffer:
    """One log buffer of the caller: ``target`` an ``int`` host address or a writable Python buffer (a
    ``bytearray``, a numpy array: what the Python faces pass for a ``char*``), ``size`` its bytes (the
    ``*_SIZE_BYTES`` option), ``slot`` the index of the size option in the caller's values (for the write-back)."""

    target: Any
    size: int
    slot: int | None

    def write(self, mem: Any, text: str) -> int:
        """Write ``text`` NUL-terminated, cut to ``size`` bytes (the NUL included); the bytes written."""
        if self.size <= 0 or self.target is None or self.target == 0:
            return 0
        data = text.encode("utf-8", "replace")[:self.size - 1] + b"\0"
        if isinstance(self.target, int):
            ctypes.memmove(self.target, data, len(data))
            return len(data)
        try:
            view = memoryview(self.target).cast("B")
        except (TypeError, ValueError):
            return 0
        if view.readonly:  # a ``bytes`` object: the simulator does not write into an immutable object [I]
            return 0
        n = min(len(data), len(view))
        view[:n] = data[:n]
        return n


@attrs.define
class JitOptions:
    """The JIT options of one call (``cuLinkCreate`` or one ``cuLinkAddData``/``cuLinkAddFile``): ``values`` the
    option -> slot value, ``info``/``error`` the log buffers, ``slots`` the address of the caller's
    ``optionValues`` array (0 when the face passed Python objects: nothing is written back) and ``index`` the
    option -> its slot index there."""

    values: dict[int, Any] = attrs.field(factory=dict)
    info: LogBuffer | None = None
    error: LogBuffer | None = None
    slots: int = 0
    index: dict[int, int] = attrs.field(factory=dict)

    def max_registers(self) -> int:
        """The ``CU_JIT_MAX_REGISTERS`` value (an ``unsigned int``: registers per thread), 0 when not given."""
        return _uint(self.values.get(MAX_REGISTERS, 0))

    def report(self, mem: Any, info: str | None, error: str | None, wall_ms: float | None) -> None:
        """Fill the log buffers (``info``, ``error``: the texts; None leaves that buffer as it is) and write the
        outputs back into the caller's slots: the bytes each log holds (its NUL included) [I: the driver says
        "amount of log buffer filled"], the wall time in milliseconds (a ``float`` in the slot)."""
        for buf, text in ((self.info, info), (self.error, error)):
            if buf is None or text is None:
                continue
            n = buf.write(mem, text)
            if self.slots and buf.slot is not None:
                ctypes.c_void_p.from_address(self.slots + buf.slot * _SLOT).value = n or None
        if self.slots and wall_ms is not None and WALL_TIME in self.index:
            ctypes.c_float.from_address(self.slots + self.index[WALL_TIME] * _SLOT).value = wall_ms


def _c_array(mem: Any, addr: int, n: int, t: Any, what: str) -> list[Any]:
    """``n`` items of type ``t`` of a C array at host address ``addr`` (readable memory only)."""
    hostmem.check(mem, addr, n * ctypes.sizeof(t), "r", what)
    return [x or 0 for x in (t * n).from_address(addr)]


def read_options(mem: Any, n: int, options: Any, values: Any, call: str) -> JitOptions:
    """The JIT options of a call: ``n`` (``numOptions``) options, each a ``CUjit_option`` value, given as a list
    or the address of a C array of ``CUjit_option``; ``values`` a list (a Python face's objects) or the address of
    the ``void*`` array (read as slots, and written back).

    Errors (INVALID_VALUE [D]): ``options`` or ``values`` NULL (or shorter than ``n``) while ``n`` > 0; an
    option that is not a ``CUjit_option``; a value outside its option's range (optimization level 0..4, a
    ``CUjit_target``, ``CUjit_fallback``, ``CUjit_cacheMode``) [I code]; a log buffer of ``size`` bytes that is
    not writable memory of this process (:mod:`simcuda._core.memory.hostmem`).
    """
    n = int(n or 0)
    out = JitOptions()
    if n == 0:
        return out
    if not options or not values:
        which = "options" if not options else "optionValues"
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: numOptions is {n} but {which} is NULL")
    keys = _c_array(mem, int(options), n, ctypes.c_int, f"{call} options") if isinstance(options, int) \
        else [int(x) for x in list(options)[:n]]
    if isinstance(values, int):
        out.slots = int(values)
        vals: list[Any] = _c_array(mem, out.slots, n, ctypes.c_void_p, f"{call} optionValues")
    else:
        vals = list(values)[:n]
    if len(keys) < n or len(vals) < n:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{call}: numOptions is {n} but {len(keys)} options and {len(vals)} values were given")
    for i, (k, v) in enumerate(zip(keys, vals)):
        if not 0 <= k < NUM_OPTIONS:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: options[{i}] = {k} is not a CUjit_option (0..{NUM_OPTIONS - 1})")
        out.values[k] = v
        out.index[k] = i
        if k in _RANGES and _uint(v) not in _RANGES[k]:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: option {k} value {_uint(v)} is outside {_RANGES[k].start}.."
                              f"{_RANGES[k].stop - 1} [inferred code]")
        if k == TARGET and _uint(v) not in _TARGETS:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: CU_JIT_TARGET value {_uint(v)} is not a CUjit_target [inferred code]")
    for buf_opt, size_opt, attr in ((INFO_LOG_BUFFER, INFO_LOG_BUFFER_SIZE_BYTES, "info"),
                                    (ERROR_LOG_BUFFER, ERROR_LOG_BUFFER_SIZE_BYTES, "error")):
        target = out.values.get(buf_opt)
        size = _uint(out.values.get(size_opt, 0))
        if target is None:
            continue
        if isinstance(target, int) and target and size:
            hostmem.check(mem, target, size, "w", f"{call}: the {attr} log buffer ({size} bytes)")
        setattr(out, attr, LogBuffer(target, size, out.index.get(size_opt)))
    return out


@attrs.define(eq=False)
class LinkInput:
    """One input of a link: its ``CUjitInputType``, its name (for the logs) and its PTX text."""

    type: int
    name: str
    ptx: str


@attrs.define(eq=False)
class LinkState:
    """A pending JIT link (``CUlinkState``): the context it was created in, its options, its inputs, and the
    images made by ``cuLinkComplete`` (C buffers the state owns until ``cuLinkDestroy``)."""

    handle: int
    ctx: Any
    options: JitOptions
    inputs: list[LinkInput] = attrs.field(factory=list)
    images: list[Any] = attrs.field(factory=list)
    destroyed: bool = False
    wall_ms: float = 0.0
    info: list[str] = attrs.field(factory=list)

    def label(self) -> str:
        """How ``why`` texts name this link state."""
        return f"link state 0x{self.handle:x}"


# ---------------------------------------------------------------------------------------------- PTX text
_HEADER = re.compile(r"(?m)^[ \t]*\.(version|target|address_size)[ \t]+([^\n/]*?)[ \t]*(?://[^\n]*)?$\n?")
_FILE = re.compile(r"(?m)^[ \t]*\.file\b[^\n]*\n?")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_FUNC_NAME = re.compile(r"\.(?:func|entry)\s*(?:\([^)]*\))?\s*([A-Za-z_$%][\w$]*)")
_VAR_NAME = re.compile(r"([A-Za-z_$%][\w$]*)\s*(?:\[[^\]]*\])*\s*(?:=|;|$)")


_ENTRY_HEAD = re.compile(r"(\.entry\s+[A-Za-z_$%][\w$]*\s*(?:\([^)]*\))?)")


def with_max_registers(ptx: str, limit: int) -> str:
    """``ptx`` with ``.maxnreg limit`` after each ``.entry``'s parameter list: how the linker hands a link's
    ``CU_JIT_MAX_REGISTERS`` (a register budget per thread [D CUjit_option]) to the kernels it made, where
    ``cuFuncGetAttribute(NUM_REGS)`` reads it (the engine's parser keeps the smallest ``.maxnreg`` of a kernel, so
    one of the kernel's own that is smaller wins) [I]. ``limit`` 0 (or less) sets no budget: ``ptx`` unchanged."""
    if limit <= 0:
        return ptx
    return _ENTRY_HEAD.sub(lambda m: f"{m.group(1)}\n.maxnreg {limit}", ptx)


def ptx_version(text: str) -> tuple[int, int] | None:
    """The ``.version`` of a PTX text as ``(major, minor)``, or None when it has none."""
    m = re.search(r"(?m)^[ \t]*\.version[ \t]+(\d+)\.(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def check_ptx(text: str, name: str, driver_version: int) -> None:
    """A PTX input as the JIT compiler would take it: a ``.version`` and a ``.target`` directive, a version the
    driver knows, text the engine parses (when it is installed).

    Errors: INVALID_PTX (218) no ``.version``/``.target``, or a syntax error the engine's parser finds (its line
    in the why) [D: 218 is "a PTX JIT compilation failed"]; UNSUPPORTED_PTX_VERSION (222) a ``.version`` whose
    major is above the driver's (ISA 9.x for a CUDA 13 driver: major = driver major - 4) [I].
    A form the engine refuses (:class:`simcuda.ptx.Unsupported`) is not a link error: the launch says why.
    """
    for directive in ("version", "target"):
        if not re.search(rf"(?m)^[ \t]*\.{directive}\b", text):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_PTX,
                              f"PTX input {name!r}: no .{directive} directive (a PTX module starts with .version, "
                              ".target and .address_size)")
    v = ptx_version(text)
    top = driver_version // 1000 - 4
    if v is not None and v[0] > top:
        raise DriverError(CUresult.CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
                          f"PTX input {name!r}: .version {v[0]}.{v[1]} is newer than this driver (CUDA "
                          f"{driver_version // 1000}.{driver_version % 1000 // 10}) compiles (PTX ISA {top}.x) "
                          "[inferred]")
    try:
        from ... import ptx as engine
        engine.load(text)
    except ImportError:  # no engine (the kernels extra): the directives are all that is checked
        return
    except engine.PtxParseError as e:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_PTX,
                          f"PTX input {name!r}, line {e.line}: {e.why}" if e.line else
                          f"PTX input {name!r}: {e.why}") from None
    except Exception:  # noqa: BLE001  (a form refused at load, or a symbol another input defines: not here)
        return


def _top_items(text: str) -> list[str]:
    """The top-level statements of a PTX text without its header lines: each ends at a ``;`` or at the ``}``
    closing a body (an initializer's ``= {...};`` stays whole); comments stay with the statement after them."""
    items: list[str] = []
    depth, start, i, n = 0, 0, 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "/" and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c == '"':
            j = text.find('"', i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                k = i + 1
                while k < n and text[k] in " \t\r\n":
                    k += 1
                if k >= n or text[k] != ";":
                    items.append(text[start:i + 1])
                    start = i + 1
        elif c == ";" and depth == 0:
            items.append(text[start:i + 1])
            start = i + 1
        i += 1
    if text[start:].strip():
        items.append(text[start:])
    return items


def _classify(item: str) -> tuple[str, str | None, bool]:
    """``(kind, symbol, weak)`` of a top-level statement: kind ``"extern"`` (a declaration of a symbol defined
    elsewhere), ``"define"`` (a function, kernel or variable with its body or storage), ``"other"``."""
    code = _COMMENT.sub(" ", item).strip()
    if not code:
        return "other", None, False
    head = code.split("{", 1)[0]
    words = head.split()
    m = _FUNC_NAME.search(head)
    if m is not None:
        if ".extern" in words or "{" not in code:
            return "extern", m.group(1), False
        return "define", m.group(1), ".weak" in words
    if any(w in words for w in (".global", ".const", ".shared")):
        v = _VAR_NAME.search(head.split("=", 1)[0].rstrip().rstrip(";") + ";")
        name = v.group(1) if v else None
        return ("extern" if ".extern" in words else "define"), name, ".weak" in words or ".common" in words
    return "other", None, False


def _note_definitions(defined: dict[str, tuple[str, bool]], name: str, items: list[Any]) -> None:
    """Record in ``defined`` (symbol -> (input name, weak)) the definitions among input ``name``'s top-level
    ``items``; a strong definition wins over a weak one. Errors: INVALID_IMAGE (200) a symbol two inputs
    define without ``.weak`` [I code]."""
    for _it, kind, sym, weak in items:
        if kind == "define" and sym:
            seen = defined.get(sym)
            if seen is not None and not weak and not seen[1]:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_IMAGE,
                                  f"symbol {sym!r} is defined by both {seen[0]!r} and {name!r} (a multiple "
                                  "definition: mark one .weak) [inferred code]")
            if seen is None or (seen[1] and not weak):
                defined[sym] = (name, weak)


def merge_ptx(inputs: list[LinkInput]) -> str:
    """One PTX module of the link's inputs: a single input as it is; several merged as text: one header (the
    first input's ``.target`` and ``.address_size``, the highest ``.version``), each ``.extern`` declaration
    dropped where an input defines the symbol or an earlier input declared it already, a second weak (or
    ``.common``) definition dropped, ``.file`` lines of the inputs after the first dropped (their ``.loc`` lines
    then name the first input's files) [I].

    Errors: INVALID_IMAGE (200) a symbol that two inputs define without ``.weak`` (nvlink's multiple definition)
    [I code].
    """
    if len(inputs) == 1:
        return inputs[0].ptx
    versions = [v for v in (ptx_version(i.ptx) for i in inputs) if v is not None]
    header: dict[str, str] = {}
    for m in _HEADER.finditer(inputs[0].ptx):
        header.setdefault(m.group(1), m.group(2).strip())
    if versions:
        top = max(versions)
        header["version"] = f"{top[0]}.{top[1]}"
    parsed = []
    defined: dict[str, tuple[str, bool]] = {}
    for k, inp in enumerate(inputs):
        body = _HEADER.sub("", inp.ptx)
        if k:
            body = _FILE.sub("", body)
        items = [(it, *_classify(it)) for it in _top_items(body)]
        _note_definitions(defined, inp.name, items)
        parsed.append((inp, items))
    out = [f".{d} {header[d]}" for d in ("version", "target", "address_size") if d in header]
    declared: set[str] = set()
    placed: set[str] = set()
    for inp, items in parsed:
        out.append(f"\n// simcuda link input {inp.name!r}")
        for it, kind, sym, _weak in items:
            if kind == "extern" and sym and (sym in defined or sym in declared):
                continue
            if kind == "define" and sym:
                if sym in placed or defined[sym][0] != inp.name:  # the winning definition only, once
                    continue
                placed.add(sym)
            if kind == "extern" and sym:
                declared.add(sym)
            out.append(it.rstrip())
    return "\n".join(out) + "\n"


def image_of(ptx: str) -> bytes:
    """The image ``cuLinkComplete`` hands out for the linked PTX: simcuda's CUBIN form (``SIMCUDA-CUBIN`` then
    the text, NUL-terminated), which every loader of the simulator reads
    (:func:`simcuda._core.modules.module_model.parse_image`)."""
    from .module_model import SIM_CUBIN_MAGIC
    return SIM_CUBIN_MAGIC + ptx.encode("utf-8", "surrogateescape") + b"\0"


def read_data(mem: Any, data: Any, size: int, call: str) -> bytes:
    """The bytes of a link input: ``data`` a buffer (``bytes``, a numpy array...) or the ``int`` address of
    ``size`` bytes (readable memory only). Errors: INVALID_VALUE NULL ``data`` or ``size`` 0 [D]; an address
    that is not readable memory (:mod:`simcuda._core.memory.hostmem`)."""
    size = int(size or 0)
    if data is None or (isinstance(data, int) and data == 0) or size == 0:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{call}: " + ("data is NULL" if not size or data is None or data == 0 else "size is 0"))
    if isinstance(data, int):
        hostmem.check(mem, data, size, "r", f"{call} data ({size} bytes)")
        return ctypes.string_at(data, size)
    from .module_model import image_bytes
    return image_bytes(data)[:size]


def wall_float(value: float) -> float:
    """``value`` as the ``float`` (32-bit) the driver writes for CU_JIT_WALL_TIME."""
    return float(struct.unpack("<f", struct.pack("<f", value))[0])
