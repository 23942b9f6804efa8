"""simcuda: an in-memory simulator of the CUDA driver's stream-capture and graph API.

Code written for NVIDIA's ``cuda.bindings`` runs unmodified on a machine with no GPU:
``simcuda.patch()`` installs the simulated faces under the real module names, and
``simcuda run script.py`` runs a script that way. See README.md and docs/.

Public names:
    Driver, DeviceSpec, Options: the simulated driver and its configuration.
    current_driver(), use(driver), reset(**kwargs): the default driver the faces act on.
    kernel(name): register a Python implementation of a kernel.
    explain(code): the general meaning of a CUresult.
    last_error(): the last failing call's DriverError on this thread (code and why).
    dot(graph, flags=0): the Graphviz text cuGraphDebugDotPrint would write for a graph.
    patch(): install the faces under ``cuda.bindings.*`` (decorator / context manager).
    faults: fault injection (``faults.inject``) and call assertions (``faults.record_calls``,
        ``faults.expect_no_failures``) for testing a program's error paths.
    StreamCapture, StreamGraphCapture, Graph, GraphExec, GraphNode, MemcpyDirection, CudaError: the
        oxicuda-style API.
"""
from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from . import faults
from ._core.errors import DriverError, explain
from ._core.facade import KERNELS, DeviceSpec, Driver, KernelLaunch, LaunchRecord, Options
from ._core.modules.kernels import DECLARED
from ._state import current as current_driver
from ._state import reset, use

__version__ = "0.1.0"

__all__ = [
    "Driver", "DeviceSpec", "Options", "DriverError", "KernelLaunch", "LaunchRecord", "current_driver", "use",
    "reset", "kernel", "explain", "last_error", "dot", "patch", "StreamCapture", "Graph", "GraphExec", "GraphNode",
    "MemcpyDirection", "CudaError", "StreamGraphCapture", "faults",
]


def kernel(name: str, params: Sequence[str] | None = None
           ) -> Callable[[Callable[[KernelLaunch], Any]], Callable[[KernelLaunch], Any]]:
    """Register a Python implementation for the kernel entry ``name`` (every driver uses it).

    The function receives a :class:`KernelLaunch` (``grid``, ``block``, ``shared_mem``, ``args``,
    ``view(ptr, nbytes)``, ``array(ptr, dtype, count)``) and runs once per launch (or per replay of
    a kernel node), against simulated memory. Kernels without one are recorded only.

    ``params`` optionally declares the kernel's C parameter types (``"int16_t"``, ``"__half"``, ``"float*"``,
    ``"char[16]"`` for a 16-byte struct...: the canonical types of :mod:`simcuda._core.modules.param_types`). A
    ``void**`` argument array is read by the module's own types; where the module knows only sizes (a CUBIN
    or PTX that NVIDIA's compiler made and simcuda's NVRTC face did not see) a declared type of the same size
    says how to read the bytes (a ``short`` stays signed, a ``__half`` is a half). Declare before the first
    launch of the function (its readers are built once).

    Example::

        @simcuda.kernel("scale")
        def scale(launch):
            ptr, n = launch.args
            a = launch.array(ptr, "float32", n)
            a *= 2
    """
    if not isinstance(name, str) or not name:
        raise TypeError("simcuda.kernel() needs the kernel's entry name as a non-empty str")
    declared = None if params is None else [str(p) for p in params]

    def register(fn: Callable[[KernelLaunch], Any]) -> Callable[[KernelLaunch], Any]:
        if not callable(fn):
            raise TypeError(f"simcuda.kernel({name!r}) registers a function taking a KernelLaunch, "
                            f"not {type(fn).__name__}")
        KERNELS[name] = fn
        if declared is not None:
            DECLARED[name] = declared
        else:
            DECLARED.pop(name, None)
        return fn
    return register


def last_error() -> DriverError | None:
    """The last failing simulated call on this thread (``.code``, ``.why``), or ``None``."""
    return current_driver().last_error()


def dot(graph: Any, flags: int = 0) -> str:
    """The DOT text ``cuGraphDebugDotPrint(graph, path, flags)`` would write (spec 9.1), as a ``str``.

    Args:
        graph: a graph of the current driver: a face handle (``cuda.bindings.driver.CUgraph``), or its
            ``int`` value (``_v2`` handles are ints already).
        flags: ``CUgraphDebugDot_flags`` bits (an enum member or int); 0 is the default layout.

    Returns: the text, one ``subgraph cluster_<id>`` per graph (child graphs as their own clusters) and
    node statements named ``graph_<id>_node_<local id>``.
    Raises: :class:`DriverError` (INVALID_VALUE) for a NULL or destroyed graph; ``TypeError`` for an
    object that is not a handle, or flags that are not an int.
    """
    if isinstance(flags, bool) or not hasattr(type(flags), "__index__"):
        raise TypeError(f"simcuda.dot() flags are CUgraphDebugDot_flags bits (an int), not {type(flags).__name__}")
    return current_driver().dot(_handle_int(graph), operator.index(flags))


def _handle_int(x: Any) -> int:
    if isinstance(x, int):
        return int(x)
    f = getattr(type(x), "__int__", None)
    if f is None:
        raise TypeError(f"simcuda.dot() needs a graph handle (CUgraph or int), not {type(x).__name__}")
    v: int = f(x)
    return v


def __getattr__(name: str) -> Any:
    # lazy imports keep ``import simcuda`` fast and free of optional dependencies
    if name == "patch":
        from ._patch import patch
        return patch
    if name in ("StreamCapture", "Graph", "GraphExec", "GraphNode", "MemcpyDirection", "CudaError",
                "StreamGraphCapture"):
        from .faces.oxicuda import stream_capture as _oxi
        return getattr(_oxi, name)
    raise AttributeError(f"module 'simcuda' has no attribute {name!r}")
