"""The device variables of loaded modules and libraries: a service of ``DriverState`` (issue 10).

:class:`ModuleVariables` keeps, per loaded module or library, what its image says (its variables and its CUBIN
parameter offsets, read by :mod:`simcuda._core.modules.symbols`) and the allocations made for its variables, per
context: a module's in its own context when it loads, a library's in each context on first use. The module entries call
:meth:`ModuleVariables.loaded` and :meth:`ModuleVariables.unloaded`; the symbol entries and the kernel engine's
launch path read through :meth:`ModuleVariables.facts` and :meth:`ModuleVariables.in_context`.

It knows nothing of threads, handles or the faces; it allocates through the driver's memory space.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import DriverError
from ..memory.memory_model import KIND_DEVICE
from .module_model import image_bytes
from .symbols import Variable, elf_param_offsets, image_variables

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..memory.memory_model import Allocation, MemorySpace
    from ..objects import Context, Module


class ImageFacts:
    """What is kept per module or library: ``variables`` (name -> :class:`~simcuda._core.modules.symbols.Variable`),
    ``offsets`` (kernel name -> its CUBIN's ``(offset, size)`` per parameter) and ``allocs`` (context handle ->
    variable name -> its allocation)."""

    __slots__ = ("variables", "offsets", "allocs")

    def __init__(self, variables: dict[str, Variable], offsets: dict[str, list[tuple[int, int]]]) -> None:
        self.variables = variables
        self.offsets = offsets
        self.allocs: dict[int, dict[str, Allocation]] = {}


class ModuleVariables:
    """The variables of one driver's loaded images, by module handle.

    Args:
        memory: the driver's memory space (the variables are ordinary device allocations in it).
    """

    __slots__ = ("_memory", "_facts")

    def __init__(self, memory: MemorySpace) -> None:
        self._memory = memory
        self._facts: dict[int, ImageFacts] = {}

    def loaded(self, m: Module, image: Any) -> None:
        """Record a freshly loaded module's (or library's) variables and parameter offsets from ``image`` (an
        image the readers cannot read gives none); a module's variables are allocated in its context at once."""
        try:
            data = image_bytes(image)
        except DriverError:
            data = b""
        facts = ImageFacts(image_variables(data), elf_param_offsets(data))
        self._facts[m.handle] = facts
        if not m.is_library and m.ctx is not None:
            self.in_context(facts, m.ctx)

    def unloaded(self, m: Module) -> None:
        """Forget an unloaded module or library and free its variables' allocations, in every context."""
        facts = self._facts.pop(m.handle, None)
        if facts is None:
            return
        for allocs in facts.allocs.values():
            for a in allocs.values():
                if self._memory.find(a.start) is a:
                    self._memory.free(a)

    def facts(self, m: Module) -> ImageFacts | None:
        """What is kept of loaded module or library ``m``, or None (unloaded, or never loaded here)."""
        return self._facts.get(m.handle)

    def in_context(self, facts: ImageFacts, ctx: Context) -> dict[str, Allocation]:
        """The allocations of an image's variables in ``ctx`` (variable name -> allocation), made with their
        initial bytes on first use; variables of size 0 get none."""
        allocs = facts.allocs.get(ctx.handle)
        if allocs is None:
            allocs = facts.allocs[ctx.handle] = {}
            for name, v in facts.variables.items():
                if v.size > 0:
                    allocs[name] = self._allocate(name, v.size, v.init, ctx)
        return allocs

    def add_engine_variables(self, facts: ImageFacts, allocs: dict[str, Allocation], ctx: Context,
                             engine_variables: Mapping[str, tuple[str, int, bytes]]) -> None:
        """Allocate in ``ctx`` (into ``allocs``, the image's allocations there) each variable the kernel engine
        found that the image readers did not (name -> (state space, bytes, initial bytes)); it is a variable of the
        image from then on."""
        for name, (_space, size, init) in engine_variables.items():
            if name not in allocs and size > 0:
                allocs[name] = self._allocate(name, size, init[:size].ljust(size, b"\0"), ctx)
                facts.variables[name] = Variable(name, size, init)

    def _allocate(self, name: str, size: int, init: bytes, ctx: Context) -> Allocation:
        """A device allocation of ``size`` bytes in ``ctx`` holding ``init`` (left zeroed when it is all zero)."""
        a = self._memory.reserve(size, KIND_DEVICE, ctx)
        if any(init):
            self._memory.device_view(a.start, size, f"variable {name}")[:] = init
        return a
