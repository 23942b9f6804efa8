"""Device variables of modules and libraries, kernel parameter layout, and a library's kernels as functions of a
context (issue 10; the image readers are :mod:`simcuda._core.modules.symbols`).

* A **module**'s variables (``__device__``/``__constant__``, PTX ``.global``/``.const``) are device allocations of
  its context, made when it loads, holding their initial values, and freed when it unloads [D: cuModuleGetGlobal
  returns "the base pointer and size of the global"; allocation at load: I]. They are ordinary simulated device
  memory: copies, memsets and Python kernels reach them like any ``cuMemAlloc`` allocation.
* A **library** is context-independent [D: cuLibraryLoadData lists no INVALID_CONTEXT]: it loads with no current
  context, and its variables exist once per context, made on first ``cuLibraryGetGlobal`` in that context (the
  driver documents "the global ... for the requested library and the current context") and freed with the
  library. ``cuKernelGetFunction`` (the kernel's function "for the current context") needs a current context.
* **Parameter info** (``cuFuncGetParamInfo``, ``cuKernelGetParamInfo``): the offset and size of a parameter in the
  device-side parameter buffer, from the image (:func:`simcuda._core.modules.symbols.param_layout`, a CUBIN's own
  offsets).
"""
from __future__ import annotations

from collections.abc import Mapping

from ..errors import CUresult, DriverError
from ..memory import hostmem
from ..objects import Context, Function, Module
from ..state import DriverState, entry
from .symbols import param_layout


class Symbols(DriverState):
    """Module and library variables, parameter info and ``cuKernelGetFunction``.

    Entries: ``cuModuleGetGlobal``, ``cuLibraryGetGlobal``, ``cuFuncGetParamInfo``, ``cuKernelGetParamInfo``,
    ``cuKernelGetFunction``; the variables themselves are the ``variables`` service's
    (:class:`~simcuda._core.modules.variables.ModuleVariables`), which the module loads and unloads of
    :class:`~simcuda._core.modules.module_entries.Modules` keep up to date.
    """

    def module_variable_addresses(self, m: Module, ctx: Context | None,
                                  engine_variables: Mapping[str, tuple[str, int, bytes]]) -> dict[str, int]:
        """The device address of each module-scope ``.global``/``.const`` variable of ``m`` in ``ctx``, for a
        kernel launch that runs its PTX (:func:`simcuda._core.modules.ptxrun.run_ptx`): the allocations made when the
        module loaded (a library's, made in ``ctx`` now if not yet), so the kernel reads and writes the memory
        ``cuModuleGetGlobal``/``cuLibraryGetGlobal`` hand out. ``engine_variables``: the engine's list (name ->
        (space, bytes, initial bytes), :attr:`simcuda.ptx.Module.variables`); a variable the image reader did
        not find is allocated from it (with its initial bytes) and is a variable of the module from then on.
        ``{}`` when ``ctx`` is None or the module is gone. Takes the driver lock."""
        with self._lock:
            facts = self.variables.facts(m)
            if facts is None or ctx is None or ctx.destroyed:
                return {}
            allocs = self.variables.in_context(facts, ctx)
            self.variables.add_engine_variables(facts, allocs, ctx, engine_variables)
            return {name: int(a.start) for name, a in allocs.items()}

    def _symbol_name(self, name: str | int | None, call: str) -> str:
        """A ``char*`` name: ``str``, or (a face that passes the C pointer) None for NULL or the ``int`` address
        of the C string. Errors: 1 INVALID_VALUE NULL or unreadable."""
        if name is None or isinstance(name, int):
            if not name or name < 0:
                raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: the name is NULL" if not name else
                                  f"{call}: the name {name:#x} is not a host address")
            return hostmem.read_c_string(self.memory, name, f"{call} name").decode("utf-8", "replace")
        return name

    def _global(self, m: Module, ctx: Context, name: str, call: str) -> tuple[int, int]:
        facts = self.variables.facts(m)
        var = facts.variables.get(name) if facts is not None else None
        if facts is None or var is None or var.size <= 0:
            known = ", ".join(sorted(facts.variables)) if facts is not None and facts.variables else "none"
            raise DriverError(CUresult.CUDA_ERROR_NOT_FOUND,
                              f"{call}: {'library' if m.is_library else 'module'} 0x{m.handle:x} has no device "
                              f"variable named {name!r} (variables: {known})")
        a = self.variables.in_context(facts, ctx)[name]
        return int(a.start), var.size

    @entry
    def module_get_global(self, h: int, name: str | int | None) -> tuple[int, int]:
        """cuModuleGetGlobal: ``(dptr, bytes)`` of the module's variable ``name``, a device allocation of its
        context holding the image's initial value.

        Errors, in order: 1 INVALID_VALUE a NULL or unreadable name; 400 bad module; 201 a module of a destroyed
        context [I]; 500 NOT_FOUND no such variable."""
        n = self._symbol_name(name, "cuModuleGetGlobal")
        m = self.handles.module(h)
        ctx = m.ctx if m.ctx is not None else self.threads.ctx_current()
        return self._global(m, ctx, n, "cuModuleGetGlobal")

    @entry
    def library_get_global(self, h: int, name: str | int | None) -> tuple[int, int]:
        """cuLibraryGetGlobal: ``(dptr, bytes)`` of the library's variable ``name`` in the current context
        (allocated there on first use, with its initial value).

        Errors, in order: 1 INVALID_VALUE a NULL or unreadable name; 400 not a loaded library; 201 no current
        context (709 a destroyed one); 500 NOT_FOUND no such variable."""
        n = self._symbol_name(name, "cuLibraryGetGlobal")
        m = self.handles.get(h) if h else None
        if not isinstance(m, Module) or m.unloaded or not m.is_library:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE, "cuLibraryGetGlobal: not a loaded library handle")
        return self._global(m, self.threads.ctx_current(), n, "cuLibraryGetGlobal")

    def _param_info(self, f: Function, index: int, call: str) -> tuple[int, int]:
        m = f.module
        facts = self.variables.facts(m)
        layout = facts.offsets.get(f.name) if facts is not None else None
        if not layout or len(layout) != len(f.param_types):
            layout = param_layout(f.param_types, m.source, f.name)
        if not 0 <= int(index) < len(layout):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: paramIndex {index} is past the last parameter of {f.name} "
                              f"({len(layout)} parameter(s) read from the image)")
        return layout[int(index)]

    @entry
    def func_get_param_info(self, h: int, index: int, call: str = "cuFuncGetParamInfo") -> tuple[int, int]:
        """cuFuncGetParamInfo / cuKernelGetParamInfo (``call``): ``(paramOffset, paramSize)`` of parameter
        ``index`` in the device-side parameter buffer, in bytes.

        Errors: 400 INVALID_HANDLE a bad function or kernel [I: the Returns lists name only INVALID_VALUE];
        1 INVALID_VALUE ``index`` not below the number of parameters (none are known for an image whose
        parameters the simulator cannot read)."""
        return self._param_info(self.handles.function(h), index, call)

    @entry
    def kernel_get_function(self, h: int) -> int:
        """cuKernelGetFunction: the function of a library kernel in the current context (simulated: the kernel's
        own handle, valid in every context).

        Errors, in order: 201 INVALID_CONTEXT no current context (709 a destroyed one); 400 INVALID_HANDLE a bad
        kernel."""
        self.threads.ctx_current()
        return self.handles.function(h).handle
