"""The JIT linker: ``cuLinkCreate``, ``cuLinkAddData``, ``cuLinkAddFile``, ``cuLinkComplete``, ``cuLinkDestroy``
(issue 17; the model is :mod:`simcuda._core.modules.linker`).

numba-cuda links the PTX it compiles through these (cuda.core's ``Linker`` on the driver backend, when nvJitLink
is not installed), so a ``@cuda.jit`` kernel reaches the kernel engine through them. What is accepted:

* ``CU_JIT_INPUT_PTX``: checked (``.version``/``.target``, the engine's parser) and kept; several PTX inputs are
  merged into one module as text (:func:`simcuda._core.modules.linker.merge_ptx`);
* ``CU_JIT_INPUT_CUBIN`` and ``CU_JIT_INPUT_FATBINARY`` whose PTX is known: simcuda's own images (a completed
  link's, the Python NVRTC face's) and CUBINs NVIDIA's NVRTC compiled in this process
  (:func:`simcuda._core.modules.module_model.ptx_of_image`);
* refused with ``CUDA_ERROR_NOT_SUPPORTED`` (801) and a why: a CUBIN or fatbin with no known PTX (SASS compiled
  offline), ``CU_JIT_INPUT_OBJECT`` and ``CU_JIT_INPUT_LIBRARY`` (relocatable device code and archives such as
  libcudadevrt hold SASS; device-side launches are not simulated), and ``CU_JIT_INPUT_NVVM`` (LTO-IR: the driver
  deprecated it with CUDA 12.0 [D]; link it with nvJitLink, which gives PTX) [I code for each].

The JIT options of ``cuLinkCreate`` hold for the link; those of ``cuLinkAddData``/``cuLinkAddFile`` for that
input (their log buffers get that input's messages). The compiler options (registers, optimization level,
target, debug and line info, cache mode...) are accepted and checked for range, and change nothing: the engine
runs the PTX as written [I]. ``CUDA_ERROR_JIT_COMPILER_NOT_FOUND`` never happens: the simulator's linker is
always there.
"""
from __future__ import annotations

import ctypes
import os
import time
from typing import Any

from ..errors import CUresult, DriverError
from ..memory import hostmem
from ..state import DRIVER_VERSION, DriverState, entry
from .linker import (
    INPUT_CUBIN,
    INPUT_FATBINARY,
    INPUT_NAMES,
    INPUT_NVVM,
    INPUT_PTX,
    NUM_INPUT_TYPES,
    JitOptions,
    LinkInput,
    LinkState,
    check_ptx,
    image_of,
    merge_ptx,
    read_data,
    read_options,
    wall_float,
    with_max_registers,
)
from .module_model import parse_image, parse_ptx, ptx_of_image, read_image_file, remember_ptx

_REMEDY = ("the simulator runs kernels from PTX: add the PTX instead (NVRTC's nvrtcGetPTX, numba's PTX), or "
           "register a Python twin with @simcuda.kernel (docs/kernels.md)")


class Linking(DriverState):
    """The simulated JIT linker (``CUlinkState`` handles).

    Entries: ``cuLinkCreate``, ``cuLinkAddData``, ``cuLinkAddFile``, ``cuLinkComplete``, ``cuLinkDestroy`` (and
    their ``_v2`` symbols, the same entries).
    """

    def _c_text(self, x: str | int | None, what: str) -> str | None:
        """A ``char*`` argument as text: a ``str`` as it is, an ``int`` the address of a C string (read only where
        readable: INVALID_VALUE otherwise), 0 or None NULL."""
        if isinstance(x, int):
            return hostmem.read_c_string(self.memory, x, what).decode("utf-8", "replace") if x else None
        return x

    @entry
    def link_create(self, num_options: int, options: Any, option_values: Any, call: str = "cuLinkCreate") -> int:
        """cuLinkCreate: a pending JIT link in the current context, with its JIT options.

        Args: ``num_options``: the options' count; ``options``: ``CUjit_option`` values (a list, or the address of
        a C array); ``option_values``: one value per option (a list of the Python face's objects, or the address
        of the ``void*`` array, which the state keeps and writes the logs' sizes and the wall time back into, at
        ``cuLinkAddData``/``cuLinkComplete``, as the driver does: the caller keeps it valid until
        ``cuLinkDestroy`` [O: cuda.core 1.2.2]). Log buffers are filled NUL-terminated, cut to their size.
        Returns: the ``CUlinkState`` handle.
        Errors: INVALID_CONTEXT (201) no current context [I: the default target is the context's device];
        INVALID_VALUE (1) options as :func:`simcuda._core.modules.linker.read_options` checks them (nothing is made).
        """
        ctx = self.threads.ctx_current()
        opts = read_options(self.memory, num_options, options, option_values, call)
        s = LinkState(0, ctx, opts)
        s.handle = self.handles.add(s)
        return s.handle

    @entry
    def link_add_data(self, state: int, input_type: int, data: Any, size: int, name: str | int | None,
                      num_options: int, options: Any, option_values: Any, call: str = "cuLinkAddData") -> None:
        """cuLinkAddData: add one input (``data``: a buffer or the address of ``size`` bytes; PTX NUL-terminated)
        of ``input_type`` (``CUjitInputType``), named ``name`` in the logs, with its own JIT options.

        Errors, in order (nothing added; the why also goes to the error logs of the input's and the link's
        options): INVALID_HANDLE (400) a bad or destroyed state; INVALID_VALUE (1) bad options, NULL ``data``,
        ``size`` 0, an ``input_type`` outside ``CUjitInputType``; INVALID_PTX (218) PTX the JIT would not
        compile; UNSUPPORTED_PTX_VERSION (222); INVALID_IMAGE (200) a CUBIN or fatbin the simulator cannot read;
        NOT_SUPPORTED (801) an input type or image without PTX (module docstring).
        """
        s = self.handles.link_state(state, call)
        opts = read_options(self.memory, num_options, options, option_values, call)
        name = self._c_text(name, f"{call} name")
        self._link_input(s, opts, call, input_type, name or "<unnamed>",
                         lambda: read_data(self.memory, data, size, call))

    @entry
    def link_add_file(self, state: int, input_type: int, path: str | int | None, num_options: int, options: Any,
                      option_values: Any, call: str = "cuLinkAddFile") -> None:
        """cuLinkAddFile: add the input read from file ``path``, as ``cuLinkAddData`` adds it.

        Errors: as ``cuLinkAddData``; INVALID_VALUE a NULL path; FILE_NOT_FOUND (301) a file that cannot be read.
        """
        s = self.handles.link_state(state, call)
        opts = read_options(self.memory, num_options, options, option_values, call)
        path = self._c_text(path, f"{call} path")
        self._link_input(s, opts, call, input_type, os.path.basename(path or ""),
                         lambda: read_image_file(path, call))

    def _link_input(self, s: LinkState, opts: JitOptions, call: str, input_type: int, name: str,
                    read: Any) -> None:
        """Read, check and keep one input; on a refusal the why fills the error logs before it is raised."""
        t0 = time.perf_counter()
        try:
            if not 0 <= int(input_type) < NUM_INPUT_TYPES:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"{call}: input type {input_type} is not a CUjitInputType (0..{NUM_INPUT_TYPES - 1})")
            ptx = self._input_ptx(int(input_type), read(), name, call)
        except DriverError as e:
            for o in (opts, s.options):
                o.report(self.memory, None, f"error   : {e.why}", None)
            raise
        s.inputs.append(LinkInput(int(input_type), name, ptx))
        ms = (time.perf_counter() - t0) * 1e3
        s.wall_ms += ms
        line = f"info    : added {name!r} ({INPUT_NAMES[int(input_type)]}, {len(ptx)} characters of PTX)"
        s.info.append(line)
        opts.report(self.memory, line, "", wall_float(ms))

    @staticmethod
    def _input_ptx(input_type: int, raw: bytes, name: str, call: str) -> str:
        """The PTX text of one input (module docstring: what is accepted, what is refused and why)."""
        kind = INPUT_NAMES[input_type]
        if input_type == INPUT_PTX:
            text = raw.split(b"\0", 1)[0].decode("utf-8", "replace")
            check_ptx(text, name, DRIVER_VERSION)
            return text
        if input_type == INPUT_NVVM:
            raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                              f"{call}: input {name!r} is LTO-IR ({kind}), which the driver's linker no longer "
                              "takes (deprecated since CUDA 12.0); link it with nvJitLink, whose linked PTX the "
                              "simulator runs [inferred code]")
        source = None
        try:
            _entries, source = parse_image(raw)
        except DriverError:
            if input_type in (INPUT_CUBIN, INPUT_FATBINARY):
                raise
        ptx = ptx_of_image(raw, source) if source is None or ".entry" in source or ".func" in source else None
        if ptx:
            return ptx
        what = {INPUT_CUBIN: "a CUBIN with no known PTX (SASS compiled outside this process, e.g. by nvcc)",
                INPUT_FATBINARY: "a fatbin with no known PTX",
                }.get(input_type, "relocatable device code (an object or a library such as libcudadevrt: SASS, "
                                  "and device-side launches are not simulated)")
        raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                          f"{call}: input {name!r} ({kind}) is {what}; {_REMEDY} [inferred code]")

    @entry
    def link_complete(self, state: int) -> tuple[int, int]:
        """cuLinkComplete: link the inputs into one image.

        Returns: ``(cubinOut, sizeOut)``: the address and size in bytes of the image, a buffer the link state
        owns and keeps valid until ``cuLinkDestroy`` [D]; it holds simcuda's image of the linked PTX (with
        ``.maxnreg N`` in each kernel when the link was created with ``CU_JIT_MAX_REGISTERS`` N > 0, which
        ``cuFuncGetAttribute(NUM_REGS)`` honours)
        (:func:`simcuda._core.modules.linker.image_of`), which ``cuModuleLoadData(Ex)``, ``cuLibraryLoadData`` and the
        other loaders read, its kernels running on the engine. Completing again makes another image [I]. The
        info log gets the inputs and kernels, the logs' sizes and the wall time go back into the caller's slots.
        Errors: INVALID_HANDLE (400) a bad or destroyed state; INVALID_VALUE (1) no input was added [I code];
        INVALID_IMAGE (200) two inputs define one symbol (:func:`simcuda._core.modules.linker.merge_ptx`) [I code].
        """
        s = self.handles.link_state(state, "cuLinkComplete")
        t0 = time.perf_counter()
        try:
            if not s.inputs:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  f"cuLinkComplete: {s.label()} has no inputs (cuLinkAddData/cuLinkAddFile first) "
                                  "[inferred code]")
            ptx = merge_ptx(s.inputs)
            ptx = with_max_registers(ptx, s.options.max_registers())
        except DriverError as e:
            s.options.report(self.memory, None, f"error   : {e.why}", None)
            raise
        image = image_of(ptx)
        buf = ctypes.create_string_buffer(image, len(image))
        s.images.append(buf)
        remember_ptx(image, ptx)
        s.wall_ms += (time.perf_counter() - t0) * 1e3
        kernels = ", ".join(sorted(parse_ptx(ptx))) or "none"
        s.info.append(f"info    : linked {len(s.inputs)} input(s) into one PTX module (simcuda's JIT linker); "
                      f"kernels: {kernels}")
        s.options.report(self.memory, "\n".join(s.info), "", wall_float(s.wall_ms))
        return ctypes.addressof(buf), len(image)

    @entry
    def link_destroy(self, state: int) -> None:
        """cuLinkDestroy: end the link; the images ``cuLinkComplete`` handed out are freed [D] (a module loaded
        from one keeps its own copy). Errors: INVALID_HANDLE (400) a bad or already destroyed state."""
        s = self.handles.link_state(state, "cuLinkDestroy")
        s.destroyed = True
        s.images.clear()
        s.inputs.clear()
