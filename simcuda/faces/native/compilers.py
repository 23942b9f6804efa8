"""NVIDIA's compilers on the native route: where the PTX of the CUBINs they hand out is taken (issue 17, item 1).

A CUBIN that NVIDIA's NVRTC or nvJitLink makes holds SASS only; the simulator runs a kernel from its PTX
(docs/kernels.md). On the Python route simcuda's NVRTC face sees each compile; on the native route cuda.core and
numba-cuda call NVIDIA's ``cuda.bindings.nvrtc`` / ``cuda.bindings.nvjitlink`` through their Cython layer, which
reaches the C library directly. So the interception is at the C level, the way the simulated driver is found:
cuda.pathfinder looks for a compiler library by soname, "already loaded?" first, and uses what it finds.

:func:`install` (called by ``simcuda.patch(route="native")`` before anything loads NVRTC) does, per compiler:

1. finds the real library's path with cuda.pathfinder's own search of the file system (site-packages wheels,
   conda, ``CUDA_PATH``/``CUDA_HOME``), without loading it;
2. loads simcuda's shim (``simcuda/faces/native/libnvrtc.so.13``, ``libnvJitLink.so.13``, built from
   ``libnvrtc_shim.c`` / ``libnvjitlink_shim.c`` with ``shim.h``; soname that of the real library) by path with
   ``RTLD_GLOBAL``, so cuda.pathfinder later finds it as already loaded;
3. has the shim open the real library by its path (``RTLD_LOCAL``) and forward every function to it;
4. registers :func:`_report`, which the shim calls when a CUBIN is handed out: NVRTC's ``nvrtcGetCUBIN`` with the
   same program's PTX (``nvrtcGetPTX``), nvJitLink's ``nvJitLinkGetLinkedCubin`` with the linked PTX when there
   is one; for a link with link-time optimisation (``-lto`` or an LTO-IR input) with no linked PTX, the linked
   PTX of the same inputs linked again with ``-ptx`` (what nvJitLink makes PTX with; one more link per CUBIN
   taken); else the PTX inputs the link was given (``nvJitLinkAddData``/``AddFile`` of type PTX, and the PTX
   remembered for a CUBIN input). The pair goes to :func:`simcuda._core.modules.module_model.remember_ptx`, so a later
   ``cuModuleLoadData``/``cuLibraryLoadData`` of those CUBIN bytes runs that PTX.

Where a step cannot be done the route still works, with :func:`status` saying why (and a one-line note on
stderr at install): the shim was not built (no C compiler at install time: ``simcuda.faces.native.available`` says
so for the whole route), the real library is not installed (then there is no NVIDIA compiler to intercept), or
it was loaded before the native route was set up (then its CUBINs' PTX cannot be taken: their kernels' launches
are refused as kernels without PTX, docs/kernels.md). Nothing here has CUDA semantics; the shim decides nothing.

Fidelity notes [I]: a link of several PTX inputs with no linked PTX is remembered as their texts joined, the
later modules' ``.version``/``.target``/``.address_size`` lines dropped (what a link of PTX modules makes of
them); NVRTC's and nvJitLink's C clients that call the versioned symbols (``__nvJitLinkCreate_13_5``) rather than
the plain names (what cuda.bindings resolves) are not served by the shim.
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading
from typing import Any

import attrs

from ..._core.process import renew_lock_after_fork
from . import _build

__all__ = ["COMPILERS", "NVRTC_COMPILE", "Compiler", "install", "installed", "reports", "set_gate", "shim_path",
           "status"]


@attrs.frozen
class Compiler:
    """One NVIDIA compiler library the native route intercepts.

    Attributes:
        name: cuda.pathfinder's name for it (``"nvrtc"``, ``"nvJitLink"``).
        soname: the soname simcuda's shim has (the first one cuda.pathfinder tries).
        source: the shim's C source in ``simcuda/faces/native``.
    """

    name: str
    soname: str
    source: str


COMPILERS = (Compiler("nvrtc", "libnvrtc.so.13", "libnvrtc_shim.c"),
             Compiler("nvJitLink", "libnvJitLink.so.13", "libnvjitlink_shim.c"))
"""The compilers :func:`install` intercepts, in install order."""

#: what the shims report (their SHIM_* enums)
NVRTC_CUBIN, JIT_DATA, JIT_FILE, JIT_CUBIN, JIT_DESTROY, JIT_CREATE = 1, 2, 3, 4, 5, 6
#: nvJitLinkInputType values (cuda.bindings.nvjitlink.InputType)
INPUT_CUBIN, INPUT_PTX, INPUT_LTOIR, INPUT_FATBIN, INPUT_ANY = 1, 2, 3, 4, 10
#: the input type nvJitLink reads from a file name's extension (for NVJITLINK_INPUT_ANY)
_BY_EXTENSION = {".ptx": INPUT_PTX, ".ltoir": INPUT_LTOIR, ".cubin": INPUT_CUBIN, ".fatbin": INPUT_FATBIN,
                 ".o": 5, ".a": 6}


@attrs.define
class _Link:
    """What simcuda knows of one nvJitLink handle: its options, and each input as (type, bytes, PTX or b"")."""
    options: list[str] = attrs.field(factory=list)
    inputs: list[tuple[int, bytes, bytes]] = attrs.field(factory=list)

    def lto(self) -> bool:
        """Whether the link optimises at link time (``-lto``, or an LTO-IR input)."""
        return "-lto" in self.options or any(kind == INPUT_LTOIR for kind, _d, _p in self.inputs)

REPORT = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                          ctypes.c_size_t, ctypes.c_int)
"""The C prototype of the shims' report callback (shim.h ``shim_report_fn``)."""

GATE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t)
"""The C prototype of the shims' gate callback (shim.h ``shim_gate_fn``)."""

#: what a shim asks its gate (their SHIM_* gate enums): NVRTC's nvrtcCompileProgram (program, numOptions, options)
NVRTC_COMPILE = 1

_lock = threading.Lock()
renew_lock_after_fork(globals(), "_lock")  # a forked child makes it anew
_gates: dict[str, Any] = {}  # compiler name -> the GATE object registered with its shim (kept alive here)
_status: dict[str, str] = {}  # compiler name -> "intercepting <real path>" or why not
_libs: dict[str, ctypes.CDLL] = {}
_links: dict[int, _Link] = {}  # nvJitLink handle -> what it was given
_counts = {"cubins": 0, "with_ptx": 0, "relinked": 0}
_tls = threading.local()  # .relinking: a re-link for PTX (simcuda's own nvJitLink calls) reports nothing


def shim_path(c: Compiler) -> Any:
    """Where ``pip install`` puts the shim of ``c`` (``simcuda/faces/native/<soname>``)."""
    return _build.HERE / c.soname


def status() -> dict[str, str]:
    """``{compiler name: state}`` after :func:`install`: ``"intercepting <real library path>"``, or why the PTX of
    that compiler's CUBINs is not taken (``{}`` before install)."""
    with _lock:
        return dict(_status)


def reports() -> dict[str, int]:
    """How many CUBINs the shims reported since install (``cubins``), how many came with PTX (``with_ptx``), and
    how many LTO links were linked again for their PTX (``relinked``)."""
    with _lock:
        return dict(_counts)


def _loaded_by_soname(soname: str) -> str | None:
    """The path of the library with soname ``soname`` already in this process, or None."""
    try:
        lib = ctypes.CDLL(soname, mode=os.RTLD_NOLOAD)
    except OSError:
        return None
    try:
        from cuda.pathfinder._dynamic_libs.load_dl_linux import abs_path_for_dynamic_library
        return str(abs_path_for_dynamic_library(soname, lib))
    except Exception:  # noqa: BLE001 - the path is for messages only
        return "(path unknown)"


def real_path(name: str) -> str | None:
    """The real library ``name``'s file as cuda.pathfinder's file-system search finds it (site-packages, conda,
    ``CUDA_PATH``/``CUDA_HOME``), without loading it; None when it finds none (or its private search API, which
    this uses, is not the one of cuda-pathfinder 1.9)."""
    try:
        from cuda.pathfinder._dynamic_libs.lib_descriptor import LIB_DESCRIPTORS
        from cuda.pathfinder._dynamic_libs.search_steps import (
            EARLY_FIND_STEPS,
            LATE_FIND_STEPS,
            SearchContext,
            run_find_steps,
        )
        ctx = SearchContext(LIB_DESCRIPTORS[name])
        found = run_find_steps(ctx, EARLY_FIND_STEPS) or run_find_steps(ctx, LATE_FIND_STEPS)
    except Exception:  # noqa: BLE001 - no pathfinder, another version of it: the compiler is not intercepted
        return None
    return str(found.abs_path) if found is not None else None


def install() -> dict[str, str]:
    """Set up the interception of each of :data:`COMPILERS` (idempotent) and return :func:`status`. Call it
    before anything in the process loads NVRTC or nvJitLink (cuda.pathfinder keeps the first library it finds).
    Never raises: a compiler that cannot be intercepted is noted on stderr (once) and in :func:`status`."""
    with _lock:
        if _status:
            return dict(_status)
        for c in COMPILERS:
            _status[c.name] = _install_one(c)
        notes = {n: s for n, s in _status.items() if not s.startswith(("intercepting", "not installed"))}
    for n, s in notes.items():
        print(f"simcuda: native route: the PTX of {n}'s CUBINs is not taken ({s}); kernels loaded from them are "
              "refused at launch unless a Python twin is registered (docs/kernels.md)", file=sys.stderr)
    return status()


def _install_one(c: Compiler) -> str:
    """Install the shim of ``c``; its :func:`status` text."""
    shim = shim_path(c)
    already = _loaded_by_soname(c.soname)
    if already is not None and os.path.realpath(already) != os.path.realpath(str(shim)):
        return (f"NVIDIA's {c.soname} ({already}) was loaded before the native route was set up: enter "
                "simcuda.patch(route='native') before importing what loads it")
    if not shim.is_file():
        state, detail, _digest = _build_status()
        why = f": {detail}" if state == "not built" and detail else " (reinstall simcuda with a C compiler on PATH)"
        return f"simcuda's shim {shim.name} is not built{why}"
    path = real_path(c.name)
    if path is None:
        return f"not installed (cuda.pathfinder finds no {c.soname}; nothing to intercept)"
    lib = ctypes.CDLL(str(shim), mode=os.RTLD_GLOBAL)
    _declare(lib)
    if lib.simcuda_shim_open(path.encode()) != 0:
        return (f"simcuda's shim could not open NVIDIA's {path}: {lib.simcuda_shim_error().decode()}; its "
                "functions answer an internal error")
    lib.simcuda_shim_set_report(_REPORT)
    from . import at_interpreter_end
    at_interpreter_end(lib.simcuda_shim_shutdown)
    _libs[c.name] = lib
    return f"intercepting {path}"


def _build_status() -> tuple[str, str, str]:
    from . import _build_status
    return _build_status()


def _declare(lib: ctypes.CDLL) -> None:
    """Give a shim's own functions (shim.h) their C signatures, and nvJitLink's that :func:`_relink_for_ptx`
    calls."""
    if hasattr(lib, "nvJitLinkCreate"):
        p, size = ctypes.c_void_p, ctypes.c_size_t
        for name, args in (("nvJitLinkCreate", [ctypes.POINTER(p), ctypes.c_uint32, ctypes.POINTER(ctypes.c_char_p)]),
                           ("nvJitLinkAddData", [p, ctypes.c_int, ctypes.c_char_p, size, ctypes.c_char_p]),
                           ("nvJitLinkComplete", [p]), ("nvJitLinkGetLinkedPtxSize", [p, ctypes.POINTER(size)]),
                           ("nvJitLinkGetLinkedPtx", [p, ctypes.c_char_p]), ("nvJitLinkDestroy", [ctypes.POINTER(p)])):
            getattr(lib, name).argtypes = args
            getattr(lib, name).restype = ctypes.c_int
    lib.simcuda_shim_open.argtypes = [ctypes.c_char_p]
    lib.simcuda_shim_open.restype = ctypes.c_int
    lib.simcuda_shim_error.restype = ctypes.c_char_p
    lib.simcuda_shim_count.restype = ctypes.c_int
    lib.simcuda_shim_name.argtypes = [ctypes.c_int]
    lib.simcuda_shim_name.restype = ctypes.c_char_p
    lib.simcuda_shim_has.argtypes = [ctypes.c_int]
    lib.simcuda_shim_has.restype = ctypes.c_int
    lib.simcuda_shim_not_loaded_calls.restype = ctypes.c_uint64
    lib.simcuda_shim_set_report.argtypes = [ctypes.c_void_p]
    lib.simcuda_shim_set_report.restype = None
    lib.simcuda_shim_shutdown.restype = None
    lib.simcuda_shim_set_gate.argtypes = [ctypes.c_void_p]
    lib.simcuda_shim_set_gate.restype = None


def installed() -> list[str]:
    """The names of the compilers whose shim :func:`install` put in place (C callers of them are reached)."""
    return list(_libs)


def set_gate(name: str, gate: Any) -> bool:
    """Register ``gate(what, handle, a, b) -> int`` with the shim of compiler ``name`` (None takes it off): each gated
    function (:data:`NVRTC_COMPILE`) asks it first, and returns its answer instead of forwarding when it is not 0
    (:func:`simcuda.faces.native.compilers` knows no policy: :func:`simcuda.faults.inject` decides). An exception in
    the gate is a simcuda bug: reported on stderr, and the call goes on. Returns whether that shim is installed
    (False: nothing registered; C callers of that compiler are then not reached)."""
    lib = _libs.get(name)
    if lib is None:
        return False
    if gate is None:
        lib.simcuda_shim_set_gate(None)
        _gates.pop(name, None)
        return True

    def guarded(what: int, handle: int | None, a: int, b: int) -> int:
        try:
            return int(gate(what, handle or 0, a, b))
        except BaseException:  # noqa: BLE001  (never through C)
            import traceback
            print("simcuda: internal error in the compiler shim's gate:", file=sys.stderr)
            traceback.print_exc()
            return 0

    fn = GATE(guarded)
    _gates[name] = fn
    lib.simcuda_shim_set_gate(fn)
    return True


def forwarded(name: str) -> dict[str, bool]:
    """``{function: whether the real library has it}`` for every function the shim of compiler ``name`` exports
    (``{}`` when that shim is not installed)."""
    lib = _libs.get(name)
    if lib is None:
        return {}
    return {lib.simcuda_shim_name(i).decode(): bool(lib.simcuda_shim_has(i)) for i in range(lib.simcuda_shim_count())}


def _ptx_of_link(handle: int) -> str | None:
    """The PTX of the CUBIN link ``handle`` made with no linked PTX: a re-link of its inputs with ``-ptx`` for an
    LTO link (:func:`_relink_for_ptx`), else the PTX its inputs brought (merged by
    :func:`simcuda._core.modules.linker.merge_ptx` when several)."""
    with _lock:
        link = _links.get(handle)
    if link is None:
        return None
    if link.lto():
        return _register_limit(link, _relink_for_ptx(link))
    texts = [ptx.decode("utf-8", "replace").rstrip("\0") for _k, _d, ptx in link.inputs if ptx]
    if not texts:
        return None
    from ..._core.errors import DriverError
    from ..._core.modules.linker import LinkInput, merge_ptx
    try:  # several modules merged as the simulated cuLink* merges them (one header, resolved .extern)
        return _register_limit(link, merge_ptx([LinkInput(1, f"nvJitLink input {i}", t) for i, t in enumerate(texts)]))
    except DriverError:  # a symbol defined twice: nvJitLink linked it, the text merge cannot; PTX unknown
        return None


def _register_limit(link: _Link, ptx: str | None) -> str | None:
    """``ptx`` with the link's ``-maxrregcount=N`` (nvJitLink's register budget per thread; numba's
    ``max_registers``) written into each kernel as ``.maxnreg N``, as the simulated ``cuLinkComplete`` does with
    ``CU_JIT_MAX_REGISTERS`` (:func:`simcuda._core.modules.linker.with_max_registers`), so that
    ``cuFuncGetAttribute(NUM_REGS)`` honours it on both link routes [I]."""
    import contextlib

    from ..._core.modules.linker import with_max_registers
    for o in link.options:
        if ptx and o.startswith("-maxrregcount="):
            with contextlib.suppress(ValueError):  # not a number: nvJitLink refuses the option itself
                ptx = with_max_registers(ptx, int(o.split("=", 1)[1]))
    return ptx


def _relink_for_ptx(link: _Link) -> str | None:
    """The linked PTX of an LTO link: the same inputs linked again by the real nvJitLink with ``-ptx`` added
    (the linked PTX is only made with ``-lto -ptx``, and such a link makes no CUBIN); None when that fails."""
    lib = _libs.get("nvJitLink")
    if lib is None:
        return None
    options = [o for o in link.options if o != "-ptx"] + ["-ptx"]
    if "-lto" not in options:
        options.append("-lto")
    opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
    h = ctypes.c_void_p()
    _tls.relinking = True
    try:
        if lib.nvJitLinkCreate(ctypes.byref(h), len(options), opts) != 0:
            return None
        try:
            for i, (kind, data, _ptx) in enumerate(link.inputs):
                if lib.nvJitLinkAddData(h, kind, data, len(data), f"input{i}".encode()) != 0:
                    return None
            n = ctypes.c_size_t()
            if lib.nvJitLinkComplete(h) != 0 or lib.nvJitLinkGetLinkedPtxSize(h, ctypes.byref(n)) != 0:
                return None
            buf = ctypes.create_string_buffer(n.value)
            if lib.nvJitLinkGetLinkedPtx(h, buf) != 0:
                return None
        finally:
            lib.nvJitLinkDestroy(ctypes.byref(h))
    finally:
        _tls.relinking = False
    with _lock:
        _counts["relinked"] += 1
    return buf.raw.decode("utf-8", "replace").rstrip("\0")


def _link_input(handle: int, kind: int, data: bytes, name: str = "") -> None:
    """Keep an nvJitLink input: its type (read from the name's extension for NVJITLINK_INPUT_ANY), its bytes
    (for an LTO link's re-link), and the PTX it brings: its text (type PTX), or the PTX known for a CUBIN."""
    from ..._core.modules.module_model import ptx_of_image
    if kind == INPUT_ANY:
        kind = _BY_EXTENSION.get(os.path.splitext(name)[1].lower(), kind)
    ptx = b""
    if kind == INPUT_PTX:
        ptx = data
    elif kind in (INPUT_CUBIN, INPUT_FATBIN):
        known = ptx_of_image(data, None)
        ptx = known.encode() if known else b""
    with _lock:
        _links.setdefault(handle, _Link()).inputs.append((kind, data, ptx))


def _on_report(what: int, handle: int, a: bytes, b: bytes | None, extra: int) -> None:
    from ..._core.modules.module_model import remember_ptx
    if getattr(_tls, "relinking", False):
        return
    if what == JIT_CREATE:
        with _lock:
            _links[handle] = _Link(options=[o.decode(errors="replace") for o in a.split(b"\0")[:extra]])
    elif what in (NVRTC_CUBIN, JIT_CUBIN):
        ptx = b.decode("utf-8", "replace") if b else (_ptx_of_link(handle) if what == JIT_CUBIN else None)
        with _lock:
            _counts["cubins"] += 1
            _counts["with_ptx"] += bool(ptx)
        if ptx:
            remember_ptx(a, ptx)
    elif what == JIT_DATA:
        _link_input(handle, extra, a, (b or b"").decode(errors="replace"))
    elif what == JIT_FILE:
        name = a.decode(errors="surrogateescape")
        try:
            with open(name, "rb") as f:
                data = f.read()
        except OSError:
            data = b""
        _link_input(handle, extra, data, name)
    elif what == JIT_DESTROY:
        with _lock:
            _links.pop(handle, None)


def _report(what: int, handle: int | None, a: int | None, na: int, b: int | None, nb: int, extra: int) -> None:
    """The shims' callback (:data:`REPORT`): copy the bytes, then :func:`_on_report`. A failure here is a
    simcuda bug: reported on stderr, never passed to the compiler's caller (whose call succeeded)."""
    try:
        _on_report(what, handle or 0, ctypes.string_at(a, na) if a else b"", ctypes.string_at(b, nb) if b else None,
                   extra)
    except BaseException:  # noqa: BLE001 - a callback cannot raise into C
        import traceback
        print("simcuda: internal error in the compiler shim's report:", file=sys.stderr)
        traceback.print_exc()


_REPORT = REPORT(_report)
