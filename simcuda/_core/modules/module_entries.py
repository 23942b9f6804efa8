"""Modules, libraries, functions and kernel launches (spec 3.8, 5.2)."""
from __future__ import annotations

import ctypes
import struct
from typing import Any

from ..capture import capture_rules as cap
from ..contexts.device_attrs import attribute_value
from ..errors import CUresult, DriverError
from ..graphs.graph_model import KernelParams, same_values
from ..memory import hostmem
from ..objects import Function, Module, Stream
from ..state import DriverState, entry
from . import launch, param_types
from .arg_bits import BF16, F16, NaNBits
from .kernels import DECLARED
from .module_model import merge_param_types, parse_image, ptx_of_image, struct_format, with_ptx_types

#: the ctypes type that reads one kernel argument of a ``struct`` format (:func:`struct_format`)
_C_READER: dict[str, Any] = {"b": ctypes.c_byte, "B": ctypes.c_ubyte, "?": ctypes.c_bool, "h": ctypes.c_short,
                             "H": ctypes.c_ushort, "i": ctypes.c_int, "I": ctypes.c_uint, "q": ctypes.c_int64,
                             "Q": ctypes.c_uint64, "f": ctypes.c_float, "d": ctypes.c_double}


def _scalar_reader(name: str, size: int, decode: Any) -> Any:
    """A ctypes type of ``size`` bytes whose ``value`` is ``decode(its bytes)``. On a ``c_ubyte`` array: ctypes
    gives every ``c_char`` array type, subclasses too, its own ``value`` (the bytes up to the first NUL),
    which would hide this one."""
    return type(name, (ctypes.c_ubyte * size,), {"value": property(lambda a: decode(bytes(a)))})


def _float_reader(name: str, size: int, decode: Any) -> Any:
    """A :func:`_scalar_reader` of a float type whose NaNs keep their bytes (:class:`~simcuda._core.modules.arg_bits.
    NaNBits`: a Python float would drop a half's payload and quiet a signalling NaN)."""
    def read(raw: bytes) -> Any:
        v = decode(raw)
        return v if v == v else NaNBits.of(v, raw)
    return _scalar_reader(name, size, read)


# (marked: a 2-byte float's value alone does not say which of the two types its bytes are,
# simcuda._core.modules.arg_bits)
_C_READER["e"] = _float_reader("_Half", 2, lambda raw: F16(struct.unpack("<e", raw)[0]))
_C_READER["bf16"] = _float_reader("_BFloat16", 2,
                                  lambda raw: BF16(param_types.bf16_value(int.from_bytes(raw, "little"))))
_C_READER["f"] = _float_reader("_Float", 4, lambda raw: struct.unpack("<f", raw)[0])


def _reader(fmt: str) -> Any:
    """The ctypes type that reads an argument of ``struct`` format ``fmt``; ``Ns`` (a struct passed by value)
    reads its ``N`` bytes, all of them (NULs included)."""
    reader = _C_READER.get(fmt)
    if reader is None:
        n = int(fmt[:-1])
        reader = _C_READER[fmt] = _scalar_reader(f"_Bytes{n}", n, bytes)
    return reader


def _param_reader(f: Function, i: int, ctype: str) -> Any:
    """The reader of parameter ``i`` of ``f`` (type ``ctype``). Errors: 801 NOT_SUPPORTED when the simulator
    cannot size the type (the NVRTC log warned about it): a ``void**`` array cannot be read without the
    sizes, and reading 8 bytes from a smaller holder would hand the kernel garbage [I]."""
    try:
        return _reader(struct_format(ctype))
    except param_types.Unsized:
        raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                          f"simcuda cannot size parameter {i} of kernel {f.name!r} (type {ctype!r}: not a scalar, "
                          "pointer, vector type or struct declared in the program it read), so it cannot read "
                          "that argument from a void** kernelParams array; declare the type in the program, or "
                          "pass kernelParams as (values, ctypes types)") from None


def _readers(f: Function) -> tuple[Any, ...]:
    """``(array type, reader of argument 0, reader of argument 1, ...)`` of ``f``'s ``void**`` array, built
    once per function: the ctypes array of its pointers, and the ctypes type of each argument. Errors: 801 for
    a parameter the simulator cannot size (:func:`_param_reader`)."""
    readers = f.readers
    if readers is None:
        types = merge_param_types(f.param_types, DECLARED.get(f.name))  # simcuda.kernel(name, params=...)
        readers = f.readers = (ctypes.c_void_p * len(types), *(_param_reader(f, i, t) for i, t in enumerate(types)))
    return readers


def _read_packed(f: Function, addr: int) -> list[Any]:
    """The argument values of the ``void**`` array at ``addr`` (a NULL entry reads as 0). When they are the
    values of ``f``'s last launch (:func:`same_values`), that launch's list itself, so the launch reuses its
    checked parameters as it does for a face that passes the same objects again."""
    readers = _readers(f)
    args = [r.from_address(a).value if a else 0 for r, a in zip(readers[1:], readers[0].from_address(addr))]
    last = f.last_params
    return last.args if last is not None and same_values(last.args, args) else args

#: the defaults of the simulated CUlimit values (cuCtxGetLimit), by CUlimit value
_LIMIT_DEFAULTS = {0: 1024, 1: 1 << 20, 2: 8 << 20, 3: 2, 4: 2048, 5: 32, 6: 0}


class Modules(DriverState):
    """Modules, libraries, functions and kernel launches of the simulated driver.

    Entries: ``cuModule*``, ``cuLibrary*``, ``cuFunc*``,
    ``cuLaunchKernel``/``cuLaunchCooperativeKernel`` (the variables and parameter info: :mod:`.symbols`).
    """
    # ------------------------------------------------------------------ the resources kernels use (CUlimit)
    @entry
    def ctx_set_limit(self, limit: int, value: int) -> None:
        """cuCtxSetLimit: set a ``CUlimit`` of the current context (``value`` in bytes or a count). Simulated:
        STACK_SIZE (0), PRINTF_FIFO_SIZE (1), MALLOC_HEAP_SIZE (2: the device heap of device-side ``malloc``,
        :class:`simcuda._core.modules.ptxrun.DeviceHeap`), DEV_RUNTIME_SYNC_DEPTH (3), DEV_RUNTIME_PENDING_LAUNCH_COUNT
        (4), MAX_L2_FETCH_GRANULARITY (5: 0 to 128) and PERSISTING_L2_CACHE_SIZE (6: up to the device's
        MAX_PERSISTING_L2_CACHE_SIZE); kept as given and read back by :meth:`ctx_get_limit` [I: the driver may
        round some up]; only the heap size has an effect.

        Errors, in order: 201 no current context (709 a destroyed one); 215 UNSUPPORTED_LIMIT for the limits 7-10
        (shared memory size, CIG, per-block memory: not simulated) [I]; 1 INVALID_VALUE not a ``CUlimit``, a
        negative value or one above the limit's range, or MALLOC_HEAP_SIZE once a kernel of the context used the
        heap [D: "Setting CU_LIMIT_MALLOC_HEAP_SIZE must be performed before launching any kernel that uses the
        malloc() or free() device system calls, otherwise CUDA_ERROR_INVALID_VALUE will be returned"]."""
        ctx = self.threads.ctx_current()
        self._limit_default(ctx, limit, "cuCtxSetLimit")
        top = {5: 128, 6: attribute_value(ctx.device.spec, 108)}.get(limit, 2 ** 64 - 1)
        if not 0 <= value <= top:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuCtxSetLimit: value {value} of limit {limit} is outside 0..{top}")
        if limit == 2 and ctx.heap is not None and not ctx.heap.alloc.freed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              "cuCtxSetLimit: CU_LIMIT_MALLOC_HEAP_SIZE cannot change once a kernel of the context "
                              "used the device heap (set it before the first launch that calls malloc or free)")
        ctx.limits[limit] = int(value)

    @entry
    def ctx_get_limit(self, limit: int) -> int:
        """cuCtxGetLimit: a ``CUlimit`` of the current context: the value set, else its default (STACK_SIZE 1024,
        PRINTF_FIFO_SIZE 1 MiB, MALLOC_HEAP_SIZE 8 MiB, DEV_RUNTIME_SYNC_DEPTH 2, DEV_RUNTIME_PENDING_LAUNCH_COUNT
        2048, MAX_L2_FETCH_GRANULARITY 32, PERSISTING_L2_CACHE_SIZE 0) [D: the documented defaults; I for the
        stack and granularity]. Errors: as :meth:`ctx_set_limit` for the context and the limit."""
        ctx = self.threads.ctx_current()
        default = self._limit_default(ctx, limit, "cuCtxGetLimit")
        return ctx.limits.get(limit, default)

    def _limit_default(self, ctx: Any, limit: int, call: str) -> int:
        """The default of ``CUlimit`` ``limit``. Errors: 215 for 7-10 (not simulated) [I]; 1 not a CUlimit."""
        if limit in range(7, 11):
            raise DriverError(CUresult.CUDA_ERROR_UNSUPPORTED_LIMIT, f"{call}: limit {limit} is not simulated")
        if limit not in _LIMIT_DEFAULTS:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: {limit} is not a CUlimit")
        return _LIMIT_DEFAULTS[limit]

    # ------------------------------------------------------------------ modules and launches
    @entry
    def module_load_data(self, image: Any, call: str = "cuModuleLoadData") -> int:
        """cuModuleLoadData / cuModuleLoadDataEx / cuModuleLoadFatBinary / cuModuleLoad.

        Errors: 201 no context; 200 unrecognisable image; 900 (spec 5.2).
        """
        t = self.threads.current()
        ctx = self.threads.ctx_current(t)
        return self._load_image(t, ctx, image, call, False)

    def _load_image(self, t: Any, ctx: Any, image: Any, call: str, library: bool) -> int:
        """The load of a module (in ``ctx``) or a library (``ctx`` the current context or None: libraries are
        context-independent): parse, the capture rule (spec 5.2), then the object and its variables (issue 10,
        :meth:`~simcuda._core.modules.variables.ModuleVariables.loaded`)."""
        if isinstance(image, int):  # an address (the real void* form): text, or a CUBIN/fatbin by its header
            image = hostmem.read_image(self.memory, image, f"{call} image") if image else b""
        entries, source = parse_image(image)
        cap.check_unsafe(self, t, call)
        ptx = ptx_of_image(image, source)
        if ptx is not None and source is None:  # a CUBIN whose PTX is known: its parameters typed by it
            entries = with_ptx_types(entries, ptx)
        m = Module(0, ctx, entries, source)
        m.is_library = library
        m.ptx = ptx
        m.handle = self.handles.add(m)
        self.variables.loaded(m, image)
        return m.handle

    @entry
    def module_unload(self, h: int) -> None:
        """cuModuleUnload. Errors: 400 bad handle; 201 its context was destroyed [I]; 900 (spec 5.2: unloads
        during capture break it)."""
        m = self.handles.module(h)
        cap.check_unsafe(self, self.threads.current(), "cuModuleUnload")
        m.unloaded = True
        self.variables.unloaded(m)

    @entry
    def module_get_function(self, h: int, name: str | int | None) -> int:
        """cuModuleGetFunction. ``name``: the entry name, or (as a face that takes a ``char*`` address passes it)
        ``None`` for NULL or the ``int`` address of the C string (read only where readable, :mod:`hostmem`).

        Errors, in order: 1 NULL or unreadable name; 400 bad module; 201 a module of a destroyed context [I];
        500 NOT_FOUND unknown entry name."""
        if name is None or isinstance(name, int):
            if not name or name < 0:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                                  "cuModuleGetFunction: the name is NULL" if not name else
                                  f"cuModuleGetFunction: the name {name:#x} is not a host address")
            name = hostmem.read_c_string(self.memory, name, "cuModuleGetFunction name").decode("utf-8", "replace")
        m = self.handles.module(h)
        f = m.functions.get(name)
        if f is None:
            if name not in m.entries:
                known = ", ".join(sorted(m.entries)) or "none"
                raise DriverError(CUresult.CUDA_ERROR_NOT_FOUND,
                                  f"module 0x{h:x} has no kernel entry named {name!r} (entries: {known})")
            f = Function(0, m, name, m.entries[name])
            f.handle = self.handles.add(f)
            m.functions[name] = f
        return f.handle

    @entry
    def library_load_data(self, image: Any, call: str = "cuLibraryLoadData") -> int:
        """cuLibraryLoadData / cuLibraryLoadFromFile: a context-independent library; it loads with no current
        context too (its Returns list has no INVALID_CONTEXT [D]), its kernels are valid in every context, and its
        variables are made per context (issue 10). Errors: 200 unrecognisable image; 900 by spec 5.2 (library
        loads are potentially unsafe [I])."""
        t = self.threads.current()
        cur = t.current
        return self._load_image(t, cur if cur is not None and not cur.destroyed else None, image, call, True)

    @entry
    def library_unload(self, h: int) -> None:
        """cuLibraryUnload. Errors: 400 bad handle; 900 by spec 5.2 [I]."""
        m = self.objects.get(h) if h else None
        if not isinstance(m, Module) or m.unloaded:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE, "not a loaded library handle")
        cap.check_unsafe(self, self.threads.current(), "cuLibraryUnload")
        m.unloaded = True
        self.variables.unloaded(m)

    @entry
    def func_get_name(self, h: int) -> str:
        """cuFuncGetName."""
        return self.handles.function(h).name

    @entry
    def decode_kernel_args(self, f: Function | int, kernel_params: Any, call: str = "cuLaunchKernel",
                           checked: bool = True) -> list[Any]:
        """Decode an ``int`` address of a ``void**`` array using the kernel's parameter types.

        ``f`` is a :class:`Function` or a function handle; an unknown handle decodes to ``[]``
        (the launch itself then fails with INVALID_HANDLE). ``call`` names the entry point for the
        error log. ``checked=False`` reads the array without first checking that it is readable memory: for a
        caller that built the array itself (the native route, where NVIDIA's binding packs it), as the real
        driver trusts it. Errors: 1 INVALID_VALUE when the array or an argument it points to is not readable
        memory of this process (:mod:`simcuda._core.memory.hostmem`), when ``checked``.
        """
        if not kernel_params:
            return []
        if not isinstance(f, Function):
            found = self.objects.get(f)
            if not isinstance(found, Function):
                return []
            f = found
        if not checked:
            return _read_packed(f, int(kernel_params))
        readers = _readers(f)
        n = len(readers) - 1
        hostmem.check(self.memory, int(kernel_params), n * ctypes.sizeof(ctypes.c_void_p), "r",
                      f"kernelParams of {f.name} ({n} argument pointer(s))")
        for i, (reader, addr) in enumerate(zip(readers[1:], readers[0].from_address(int(kernel_params)))):
            if addr:
                hostmem.check(self.memory, addr, ctypes.sizeof(reader), "r",
                              f"kernelParams[{i}] of {f.name} ({f.param_types[i]})")
        return _read_packed(f, int(kernel_params))

    def packed_kernel_args(self, hfunc: int, kernel_params: int) -> list[Any] | None:
        """The arguments of a ``void**`` array that its caller packed itself (NVIDIA's binding, on the native
        route), read by the kernel's parameter types without the lock or readability checks, as the real
        driver reads it: ``decode_kernel_args(hfunc, kernel_params, checked=False)`` minus the entry's
        bookkeeping, for the launch path. None when ``hfunc`` is no function (the launch then reports it)."""
        f = self.objects.get(hfunc) if hfunc else None
        if f.__class__ is not Function:
            return None
        if not kernel_params:
            return []
        readers = f.readers or _readers(f)  # (inline: this is the native route's launch path)
        ptrs = readers[0].from_address(kernel_params)
        args = [r.from_address(a).value if a else 0 for r, a in zip(readers[1:], ptrs)]
        last = f.last_params
        return last.args if last is not None and same_values(last.args, args) else args

    @entry
    def func_set_attribute(self, h: int, attrib: int, value: int) -> None:
        """cuFuncSetAttribute: :func:`simcuda._core.modules.launch.set_function_attribute` on the function's device.

        Errors: 400 bad function; 1 a value out of range, or an attribute that is read-only or not a
        CUfunction_attribute; 801 a cluster attribute on a device without cluster launch.
        """
        f = self.handles.function(h)
        launch.set_function_attribute(self, f, attrib, value, launch.func_device(self, f), "cuFuncSetAttribute")

    @entry
    def func_get_attribute(self, attrib: int, h: int) -> int:
        """cuFuncGetAttribute: the attribute from the kernel's image where its module has PTX, else the device's
        figures (:func:`simcuda._core.modules.launch.function_attribute`, spec 17).

        Errors: 400 bad function; 1 not a CUfunction_attribute.
        """
        f = self.handles.function(h)
        return launch.function_attribute(self, f, attrib, launch.func_device(self, f), "cuFuncGetAttribute")

    @entry
    def kernel_get_attribute(self, attrib: int, h: int, dev: int) -> int:
        """cuKernelGetAttribute: as :meth:`func_get_attribute` for a library kernel on device ``dev`` (its
        limits apply). Errors, in order: 400 bad kernel; 101 INVALID_DEVICE ``dev``; 1 not a
        CUfunction_attribute."""
        f = self.handles.function(h)
        return launch.function_attribute(self, f, attrib, self._device(dev), "cuKernelGetAttribute")

    @entry
    def kernel_set_attribute(self, attrib: int, value: int, h: int, dev: int) -> None:
        """cuKernelSetAttribute: as :meth:`func_set_attribute` with device ``dev``'s limits; the setting is the
        kernel's for every device [I: the driver keeps one per device]. Errors, in order: 400 bad kernel; 101
        INVALID_DEVICE; then as :meth:`func_set_attribute`."""
        f = self.handles.function(h)
        launch.set_function_attribute(self, f, attrib, value, self._device(dev), "cuKernelSetAttribute")

    @entry
    def func_set_cache_config(self, h: int, config: int, dev: int | None = None,
                              call: str = "cuFuncSetCacheConfig") -> None:
        """cuFuncSetCacheConfig / cuKernelSetCacheConfig (``dev`` given): the preferred L1/shared split, a
        ``CUfunc_cache`` (0 none, 1 shared, 2 L1, 3 equal), kept and without effect (a hint; nothing runs on a
        GPU) [D: "a hint"]. Errors, in order: 400 bad function or kernel; 101 INVALID_DEVICE ``dev``; 1 not a
        CUfunc_cache."""
        f = self.handles.function(h)
        if dev is not None:
            self._device(dev)
        if config not in range(4):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: {config} is not a CUfunc_cache (0-3)")
        f.settings[-1] = config

    @entry
    def func_set_shared_mem_config(self, h: int, config: int) -> None:
        """cuFuncSetSharedMemConfig (deprecated): the shared memory bank size, a ``CUsharedconfig`` (0 default,
        1 four bytes, 2 eight bytes), kept and without effect (devices since compute capability 5.0 have a fixed
        bank size) [D]. Errors: 400 bad function; 1 not a CUsharedconfig."""
        f = self.handles.function(h)
        if config not in range(3):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuFuncSetSharedMemConfig: {config} is not a CUsharedconfig (0-2)")
        f.settings[-2] = config

    @entry
    def launch_kernel(self, hfunc: int, grid: tuple[int, ...], block: tuple[int, ...], shmem: int, h: int,
                      args: list[Any], call: str = "cuLaunchKernel", programmatic: int = False) -> None:
        """cuLaunchKernel (and Ex/Cooperative): a KERNEL node during capture, else runs/records now
        (:func:`simcuda._core.modules.launch.launch`, the one launch path).

        ``programmatic``: cuLaunchKernelEx's attribute flags (``check_launch_attributes``): with
        ``CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`` its dependencies on kernel nodes in a capture are
        programmatic edges (:func:`simcuda._core.capture.capture_enqueue.programmatic_deps`, P-16), outside one it runs
        as any launch; with ``CU_LAUNCH_ATTRIBUTE_COOPERATIVE`` it is a cooperative launch.

        Errors: 400 bad function; 1 zero or oversized dimensions; capture rules via spec 3.8.
        """
        launch.launch(self, hfunc, grid, block, shmem, h, args, call, programmatic, None, True)

    #: ``launch_kernel(hfunc, grid, block, shmem, h, args)`` for the ``cuLaunchKernel`` faces, with the entry
    #: wrapper's common path inline (:func:`simcuda._core.modules.launch.launch`, the same body); returns the launch
    #: record when that path took the launch (for :meth:`relaunch_kernel`), None otherwise. Its optional
    #: ``call, programmatic, t`` are :func:`~simcuda._core.modules.launch.launch`'s
    launch_kernel_fast = launch.launch

    def relaunch_kernel(self, params: KernelParams, s: Stream, hfunc: int, h: int, t: Any = None) -> None:
        """``launch_kernel_fast(hfunc, params.grid, params.block, params.shmem, h, params.args)`` again: for a
        launch whose arguments are, bit for bit, those of an earlier launch for which :meth:`launch_kernel_fast`
        returned ``params``, ``s`` being the stream ``h`` named then: that call on the same path, with ``params``
        and ``s`` as its ``again`` (:func:`simcuda._core.modules.launch.launch`). ``t``: the calling thread's state kept
        from the first call, or None."""
        launch.launch(self, hfunc, params.grid, params.block, params.shmem, h, params.args, "cuLaunchKernel", False, t,
                      False, (params, s))

