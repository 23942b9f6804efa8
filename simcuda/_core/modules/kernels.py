"""Python kernels: the process-wide registry and what a registered kernel receives."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..memory.memory_model import MemorySpace
    from ..threads import Threads


class KernelHost(Protocol):
    """What a :class:`KernelLaunch` uses of the driver that runs the kernel (a ``simcuda.Driver``)."""

    @property
    def memory(self) -> MemorySpace: ...
    @property
    def threads(self) -> Threads: ...
    def set_conditional(self, cond: dict[int, int] | None, handle: int, value: int) -> None: ...


class KernelLaunch:
    """What a registered Python kernel receives (``simcuda.kernel``).

    Attributes:
        name: the kernel's entry name.
        grid, block: ``(x, y, z)`` dimensions.
        shared_mem: dynamic shared memory in bytes.
        args: the decoded argument values (device pointers as ``int``).
    """

    def __init__(self, driver: KernelHost, name: str, grid: tuple[int, ...], block: tuple[int, ...],
                 shared_mem: int, args: list[Any]) -> None:
        self.driver, self.name, self.grid, self.block, self.shared_mem, self.args = \
            driver, name, grid, block, shared_mem, args

    def view(self, ptr: int, nbytes: int) -> memoryview:
        """A writable byte view of ``nbytes`` at ``ptr``, memory a real kernel could reach there: device, managed,
        mapped graph and accessible VMM memory, and pinned, mapped or registered host memory at its host address
        (:meth:`simcuda._core.memory.memory_model.MemorySpace.kernel_view`; INVALID_VALUE ``DriverError`` otherwise)."""
        return self.driver.memory.kernel_view(int(ptr), nbytes, "kernel argument")

    def array(self, ptr: int, dtype: Any, count: int) -> Any:
        """A writable numpy array of ``count`` elements of ``dtype`` over the memory at ``ptr`` (see :meth:`view`).

        Raises :class:`MissingDependency` (an ``ImportError``) when numpy is not installed: it reaches the caller of
        the launch as it is, not as the kernel's fault (a sticky 719 would blame the kernel for the machine)."""
        try:
            import numpy as np
        except ImportError as e:
            raise MissingDependency("KernelLaunch.array needs numpy, which is not installed here: pip install numpy "
                                    "(or, from a simcuda checkout, its kernels extra: pip install '.[kernels]'); "
                                    "KernelLaunch.view gives the same memory as a memoryview without it") from e
        dt = np.dtype(dtype)
        return np.frombuffer(self.view(ptr, dt.itemsize * count), dtype=dt)

    def set_conditional(self, handle: int, value: int) -> None:
        """The device-side ``cudaGraphSetConditional(handle, value)``: set the condition value of conditional
        ``handle`` (a ``CUgraphConditionalHandle``, as the kernel received it) for the rest of this graph launch;
        the CONDITIONAL node using it reads it when it runs (a WHILE node after each pass of its body, P-25).

        Raises ``ValueError`` outside a graph launch, for a value that is not a conditional handle, or a value
        outside ``unsigned int``.
        """
        self.driver.set_conditional(getattr(self.driver.threads.tls, "cond", None), int(handle), value)


class MissingDependency(ImportError):
    """A Python kernel needs a package that is not installed (numpy for :meth:`KernelLaunch.array`): raised through
    the launch to the program as it is, never turned into the kernel's sticky fault."""


#: kernels registered with ``simcuda.kernel``: name -> Python function(launch)
KERNELS: dict[str, Callable[[KernelLaunch], Any]] = {}
#: C parameter types declared with ``simcuda.kernel(name, params=...)``: name -> canonical types. A module's
#: own types give sizes only where a real compiler made it (a CUBIN, or PTX's ``.u16``); a declared type is read
#: where its size is the module's (:func:`simcuda._core.modules.module_model.merge_param_types`)
DECLARED: dict[str, list[str]] = {}
