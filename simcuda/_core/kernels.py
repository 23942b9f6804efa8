"""Python kernels: the process-wide registry and what a registered kernel receives."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .driver import Driver


class KernelLaunch:
    """What a registered Python kernel receives (``simcuda.kernel``).

    Attributes:
        name: the kernel's entry name.
        grid, block: ``(x, y, z)`` dimensions.
        shared_mem: dynamic shared memory in bytes.
        args: the decoded argument values (device pointers as ``int``).
    """

    def __init__(self, driver: Driver, name: str, grid: tuple[int, ...], block: tuple[int, ...],
                 shared_mem: int, args: list[Any]) -> None:
        self.driver, self.name, self.grid, self.block, self.shared_mem, self.args = \
            driver, name, grid, block, shared_mem, args

    def view(self, ptr: int, nbytes: int) -> memoryview:
        """A writable byte view of ``nbytes`` of simulated device memory at ``ptr``."""
        return self.driver.memory.device_view(int(ptr), nbytes, "kernel argument")

    def array(self, ptr: int, dtype: Any, count: int) -> Any:
        """A writable numpy array of ``count`` elements of ``dtype`` over device memory at ``ptr``."""
        import numpy as np
        dt = np.dtype(dtype)
        return np.frombuffer(self.view(ptr, dt.itemsize * count), dtype=dt)


#: kernels registered with ``simcuda.kernel``: name -> Python function(launch)
KERNELS: dict[str, Callable[[KernelLaunch], Any]] = {}
#: C parameter types declared with ``simcuda.kernel(name, params=...)``: name -> canonical types. A module's
#: own types give sizes only where a real compiler made it (a CUBIN, or PTX's ``.u16``); a declared type is read
#: where its size is the module's (:func:`simcuda._core.module.merge_param_types`)
DECLARED: dict[str, list[str]] = {}
