"""The oxicuda-style face: ``StreamCapture``, ``StreamGraphCapture``, ``Graph``, ``GraphExec``, ``GraphNode``,
``CudaError``.

Mirrors the ``graph`` module of the Rust crate ``oxicuda-driver`` 0.1.x (re-exported at its crate
root as ``Graph, GraphExec, GraphNode, MemcpyDirection, StreamCapture``) and its ``CudaError``
enum, in Python, with what 0.5 added to that module (``crates/oxicuda-driver/src/graph.rs``): the
driver-backed ``StreamGraphCapture`` (``begin(stream, mode)``, ``is_active``, ``capture_status``, ``end``
returning an instantiated ``GraphExec``, the capture ended when the object goes away) and
``GraphExec.is_driver_backed``. See ``docs/oxicuda.md`` for a usage page and the list of deviations.

What is real here and what is only recorded
-------------------------------------------
In oxicuda 0.1 ``StreamCapture`` is a *spec recorder*: ``begin`` only checks that libcuda loads,
``record_*`` append node descriptions, ``end`` chains them into a ``Graph``. This face keeps that
record exactly, **and** drives the simulated driver the way the doc comments say a real system
would:

* ``StreamCapture.begin(stream)`` calls ``cuStreamBeginCapture(stream, GLOBAL)`` on the simulated
  stream; ``record_kernel`` / ``record_memcpy`` / ``record_memset`` really enqueue a kernel launch,
  an async copy or an async memset onto the capturing stream (so the simulated capture graph gets
  the same nodes); ``end`` calls ``cuStreamEndCapture`` and returns the oxicuda ``Graph`` (linear
  chain). The simulated ``CUgraph`` it produced is ``Graph.cu_graph``.
* ``GraphExec.launch(stream)`` lowers the oxicuda graph to a simulated ``CUgraph`` (real kernel,
  memcpy, memset and empty nodes, one edge per distinct dependency), instantiates it once per
  driver and context, and calls ``cuGraphLaunch``: the replay shows up in ``driver.launch_log``.

oxicuda nodes carry no pointers and no ``CUfunction``: kernel nodes name a function, copy and set
nodes give a size. So this face keeps, per driver and context, a module per kernel name (a tiny
PTX image whose only entry is that name) and *scratch* buffers per size (device memory and pinned
host memory from ``cuMemAlloc`` / ``cuMemAllocHost``), so that copies and sets really move bytes.
Scratch is set up with the thread's capture mode exchanged to RELAXED (``cuThreadExchange
StreamCaptureMode``), which is how real code allocates while a GLOBAL capture is live; it never
adds a node to any capture.

Errors: the core raises ``DriverError(code, why)``; this face translates it once into the
``CudaError`` variant of that code, keeping ``why``. Python-level misuse that Rust's types would
reject at compile time raises ``TypeError`` (wrong type) or ``OverflowError`` (an integer that does
not fit ``u8``/``u32``/``usize``), as a PyO3 binding of oxicuda would.

This module knows the core only through ``Driver``'s public entry points.
"""
from __future__ import annotations

import contextlib
import enum
import functools
import operator
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar, cast

import attrs

from . import _state
from ._core.driver import Driver
from ._core.errors import MEANINGS, DriverError
from ._core.memory import DEVICE, HOST, CopyParams, MemsetParams
from ._generated.driver_enums import CUresult

__all__ = ["CudaError", "MemcpyDirection", "GraphNode", "Graph", "GraphExec", "StreamCapture", "StreamGraphCapture",
           "Stream", "Context", "Device", "VARIANTS"]

_U8, _U32, _USIZE = 1 << 8, 1 << 32, 1 << 64
_CAPTURE_MODE_GLOBAL = 0
_CAPTURE_MODE_RELAXED = 2
_STREAM_NON_BLOCKING = 1


# ================================================================================== CudaError
#: CUresult codes that oxicuda-driver 0.1.4's ``CudaError::from_raw`` has no variant for, so they
#: become ``Unknown(n)`` (spec oxicuda-api.md, "Gap vs CUDA 13.5"); 0 is success and 999 is
#: ``CUDA_ERROR_UNKNOWN``, which oxicuda also maps to ``Unknown(999)``.
UNKNOWN_IN_OXICUDA = frozenset({0, 36, 47, 226, 227, 721, 916, 917, 918, 919, 999})

#: ``is_fatal()`` variants (oxicuda: device faults and unrecoverable driver/context state).
_FATAL = frozenset({"IllegalAddress", "LaunchFailed", "HardwareStackError", "IllegalInstruction",
                    "MisalignedAddress", "InvalidAddressSpace", "InvalidPc", "Assert", "EccUncorrectable",
                    "NvlinkUncorrectable", "ContextIsDestroyed", "Deinitialized"})
#: ``is_usage_error()`` variants (oxicuda: bad arguments, GPU state intact).
_USAGE = frozenset({"InvalidValue", "InvalidDevice", "InvalidContext", "InvalidHandle", "InvalidImage",
                    "InvalidPtx", "InvalidSource", "InvalidClusterSize", "NoDevice", "UnsupportedLimit",
                    "NotSupported", "NotPermitted"})
_ACRONYMS = frozenset({"GPU", "PTX", "ECC", "NVLINK", "JIT", "MPS", "RPC", "CDP", "PC"})


def _check_uint(value: Any, bound: int, what: str) -> int:
    """``value`` as an int in ``[0, bound)``: TypeError for a non-integer, OverflowError out of range."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}") from None
    if not 0 <= v < bound:
        kind = {_U8: "u8", _U32: "u32", _USIZE: "usize"}.get(bound, f"< {bound}")
        raise OverflowError(f"{what} = {v} does not fit in {kind}")
    return v


class _hybrid:
    """A method usable on a variant class (``CudaError.IllegalAddress.is_fatal()``) and on an instance."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __get__(self, obj: Any, owner: Any) -> Any:
        return functools.partial(self.fn, owner if obj is None else obj)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The function itself (what makes this a wrapper of it)."""
        return self.fn(*args, **kwargs)


class _CudaErrorMeta(type):
    """Metaclass of :class:`CudaError`: variant classes compare equal to their instances."""

    def __call__(cls, *args: Any, **kwargs: Any) -> CudaError:
        if cls.__dict__.get("_is_base"):
            # CudaError(code, why="") builds the variant of ``code``, like CudaError.from_raw
            if not args:
                raise TypeError("CudaError(code, why='') needs the raw CUresult code")
            return _variant(*args, **kwargs)
        made: CudaError = super().__call__(*args, **kwargs)
        return made

    def __eq__(cls, other: Any) -> Any:
        if isinstance(other, CudaError) and cls.__dict__.get("_is_variant"):
            return isinstance(other, cls)
        return NotImplemented

    def __ne__(cls, other: Any) -> Any:
        eq = cls.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = type.__hash__

    def __repr__(cls) -> str:
        return f"{cls.__module__}.{cls.__qualname__}" if cls.__dict__.get("_is_base") else cls.__qualname__

    if TYPE_CHECKING:
        # the variant classes (CudaError.NotInitialized, ...) are set on CudaError from the CUresult enum
        # at import time (_make_variants), which the checker cannot follow
        def __getattr__(cls, name: str) -> type[CudaError]: ...


class CudaError(Exception, metaclass=_CudaErrorMeta):
    """An error of a CUDA driver call, one variant per ``CUresult`` code (oxicuda ``CudaError``).

    Mirrors: ``oxicuda_driver::CudaError`` (``crates/oxicuda-driver/src/error.rs``, 0.1.4): one
    variant per named ``CUresult`` plus ``Unknown(u32)`` for every other code.

    Each variant is a subclass, reachable as ``CudaError.<Variant>`` (``CudaError.NotInitialized``,
    ``CudaError.StreamCaptureUnmatched``, ...); ``CudaError.Unknown(n)`` carries its code. So all of
    these work::

        raise CudaError.NotInitialized                # or CudaError.NotInitialized("why")
        except CudaError as e: assert e == CudaError.StreamCaptureUnmatched
        except CudaError.StreamCaptureUnmatched: ...  # catch one variant
        CudaError.from_raw(903) == CudaError.StreamCaptureUnmatched
        CudaError.IllegalAddress.is_fatal()           # on the variant, as in Rust

    Args (constructing):
        ``CudaError(code, why="")`` -- the variant of the raw ``code`` (same as :meth:`from_raw`);
        ``CudaError.<Variant>(why="")``; ``CudaError.Unknown(code, why="")``.

    Attributes:
        code: the raw ``CUresult`` value (``int``); ``None`` on the ``Unknown`` class itself.
        why: the simulator's explanation (rule, spec section, objects) when the error comes from
            the simulated driver; ``""`` when user code raised it.

    Equality and hashing follow Rust's derived ``PartialEq``/``Hash``: same variant (and, for
    ``Unknown``, same code); ``why`` is ignored. A variant *class* equals each of its instances, and
    ``e == CudaError.Unknown`` is true for every ``Unknown(n)``.

    ``str(e)`` is oxicuda's Display text (``"CUDA: stream capture unmatched"``), followed by
    ``": " + why`` when there is a why; :meth:`display` gives the Display text alone.

    Fidelity notes: variant names and codes are derived from the generated ``CUresult`` enum minus
    the codes oxicuda 0.1.4 has no variant for (36, 47, 226, 227, 721, 916-919: they stay
    ``Unknown(n)``, as in oxicuda). The Display wording is derived from each ``CUresult`` name
    ("CUDA: " + its words in lower case), so a few variants read differently from oxicuda's
    hand-written texts (for example "CUDA: out of memory" for ``OutOfMemory``).
    """

    _is_base = True
    code: Any = None
    _text = "error"
    Unknown: ClassVar[type[_Unknown]]  # set below
    def __init__(self, why: str = "") -> None:
        if not isinstance(why, str):
            raise TypeError(f"why must be a str, not {type(why).__name__}")
        self.why = why
        super().__init__(why)

    # -- constructors ---------------------------------------------------------------------------
    @classmethod
    def from_raw(cls, code: int, why: str = "") -> CudaError:
        """The variant for a raw ``CUresult`` code (oxicuda ``CudaError::from_raw(u32)``).

        Args:
            code: the raw code, ``0 <= code < 2**32``.
            why: optional explanation to carry.

        Returns:
            An instance of the matching variant; ``CudaError.Unknown(code)`` for a code oxicuda
            0.1.4 does not name (including 0, which oxicuda says not to pass, and 999).

        Errors: ``TypeError`` for a non-integer; ``OverflowError`` outside ``u32``.
        """
        return _variant(code, why)

    @classmethod
    def variants(cls) -> tuple[type[CudaError], ...]:
        """Every named variant class, in code order (``Unknown`` excluded). A Python extra."""
        return VARIANTS

    # -- queries (usable on the variant class and on instances) -----------------------------------
    @_hybrid
    def as_raw(self: Any) -> int:
        """The raw ``CUresult`` code (oxicuda ``CudaError::as_raw``); ``Unknown(n).as_raw() == n``.

        Errors: ``TypeError`` on the ``CudaError.Unknown`` class itself, which has no code.
        """
        if self.code is None:
            raise TypeError(f"{self!r} has no code; use CudaError.Unknown(n).as_raw()")
        return int(self.code)

    @_hybrid
    def is_fatal(self: Any) -> bool:
        """True for errors that leave the context unusable (oxicuda ``is_fatal``).

        Those are IllegalAddress, LaunchFailed, HardwareStackError, IllegalInstruction,
        MisalignedAddress, InvalidAddressSpace, InvalidPc, Assert, EccUncorrectable,
        NvlinkUncorrectable, ContextIsDestroyed and Deinitialized; never an ``Unknown``.
        """
        return _variant_name(self) in _FATAL

    @_hybrid
    def is_usage_error(self: Any) -> bool:
        """True for errors caused by bad API usage (oxicuda ``is_usage_error``).

        Those are InvalidValue, InvalidDevice, InvalidContext, InvalidHandle, InvalidImage,
        InvalidPtx, InvalidSource, InvalidClusterSize, NoDevice, UnsupportedLimit, NotSupported
        and NotPermitted; never an ``Unknown``.
        """
        return _variant_name(self) in _USAGE

    @_hybrid
    def display(self: Any) -> str:
        """oxicuda's Display text: ``"CUDA: <text>"``; ``"CUDA: unknown error (code N)"`` for Unknown."""
        if _variant_name(self) == "Unknown":
            return "CUDA: unknown error" if self.code is None else f"CUDA: unknown error (code {self.code})"
        return f"CUDA: {self._text}"

    @property
    def name(self) -> str:
        """The variant name (``"StreamCaptureUnmatched"``, ``"Unknown"``). A Python extra."""
        return _variant_name(self)

    # -- Python protocol ------------------------------------------------------------------------
    def __str__(self) -> str:
        return f"{self.display()}: {self.why}" if self.why else self.display()

    def __repr__(self) -> str:
        cls = type(self).__qualname__
        args = [repr(self.code)] if isinstance(self, CudaError.Unknown) else []
        if self.why:
            args.append(repr(self.why))
        return f"{cls}({', '.join(args)})"

    def __eq__(self, other: Any) -> Any:
        if isinstance(other, CudaError):
            return type(self) is type(other) and self.code == other.code
        if isinstance(other, _CudaErrorMeta):
            return bool(other.__dict__.get("_is_variant")) and isinstance(self, other)
        return NotImplemented

    def __ne__(self, other: Any) -> Any:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash((_variant_name(self), self.code))

    def __reduce__(self) -> Any:
        if isinstance(self, CudaError.Unknown):
            return (CudaError.Unknown, (self.code, self.why))
        return (type(self), (self.why,))


def _variant(code: Any, *args: Any, **kwargs: Any) -> CudaError:
    """What ``CudaError(code, *args, **kwargs)`` makes: the variant of the raw ``code`` (``Unknown(code)`` for a
    code without one), constructed with the other arguments."""
    code = _check_uint(code, _U32, "CudaError code")
    variant = _BY_CODE.get(code)
    if variant is None:
        return _Unknown(code, *args, **kwargs)
    return variant(*args, **kwargs)


def _variant_name(x: Any) -> str:
    cls = x if isinstance(x, type) else type(x)
    return cls.__name__


class _Unknown(CudaError):
    """``CudaError.Unknown(code)``: a code oxicuda 0.1.4 has no variant for (oxicuda ``Unknown(u32)``).

    Args:
        code: the raw ``CUresult`` (``u32``). ``Unknown(3)`` is allowed and differs from
            ``NotInitialized``, as in Rust.
        why: optional explanation.
    """

    _is_base = False
    _is_variant = True
    _text = "unknown error"

    def __init__(self, code: int, why: str = "") -> None:
        self.code = _check_uint(code, _U32, "Unknown code")
        super().__init__(why)


_Unknown.__name__ = "Unknown"
_Unknown.__qualname__ = "CudaError.Unknown"
CudaError.Unknown = _Unknown


def _camel(name: str) -> str:
    return "".join(w.capitalize() for w in name.split("_"))


def _words(name: str) -> str:
    return " ".join(w if w in _ACRONYMS else w.lower() for w in name.split("_"))


def _make_variants() -> tuple[type[CudaError], ...]:
    out = []
    seen: set[int] = set()
    for member in CUresult:
        value = int(member)
        if value in UNKNOWN_IN_OXICUDA or value in seen:
            continue
        seen.add(value)
        base = member.name[len("CUDA_ERROR_"):]
        name = _camel(base)
        meaning = MEANINGS.get(value, "See the CUDA driver documentation for this code.")
        doc = (f"``{member.name}`` ({value}), oxicuda ``CudaError::{name}``. {meaning}\n\n"
               f"Construct with ``CudaError.{name}(why='')``.")
        cls = cast("type[CudaError]", _CudaErrorMeta(name, (CudaError,), {  # a subclass, made by the metaclass
            "__doc__": doc, "__module__": __name__, "__qualname__": f"CudaError.{name}", "_is_base": False,
            "_is_variant": True, "code": value, "_text": _words(base)}))
        setattr(CudaError, name, cls)
        out.append(cls)
    return tuple(out)


#: every named variant class, in code order (``CudaError.Unknown`` excluded)
VARIANTS: tuple[type[CudaError], ...] = _make_variants()
_BY_CODE: dict[int, type[CudaError]] = {v.code: v for v in VARIANTS}


def _translate(e: DriverError) -> CudaError:
    return _variant(int(e.code), e.why)


@contextlib.contextmanager
def _translated() -> Iterator[None]:
    """Turn the core's DriverError into the matching CudaError (the one translation point)."""
    try:
        yield
    except DriverError as e:
        raise _translate(e) from None


def _try_driver(drv: Driver) -> None:
    """oxicuda ``loader::try_driver()``: any failure to bring the driver up is ``NotInitialized``."""
    try:
        drv.init(0)
    except DriverError as e:
        raise CudaError.NotInitialized(
            f"the CUDA driver is not usable: cuInit returned {e.code.name} ({e.why}); oxicuda's "
            "try_driver() reports every driver load/initialisation failure as NotInitialized") from None


_C = TypeVar("_C")


def _begin_capture(cls: type[_C], stream: Any, mode: int) -> tuple[_C, Stream, Driver]:
    """The start both recorders' ``begin`` share: the stream (:func:`_as_stream`), oxicuda's ``try_driver``,
    ``cuStreamBeginCapture(stream, mode)`` with its codes translated, and a new ``cls`` object not yet set up."""
    s = _as_stream(stream)
    drv = s.driver
    _try_driver(drv)
    with _translated():
        drv.stream_begin_capture(s.raw(), mode)
    return object.__new__(cls), s, drv


# ================================================================================== value types
class MemcpyDirection(enum.Enum):
    """Direction of a graph memcpy node (oxicuda ``MemcpyDirection``).

    Members: ``HostToDevice``, ``DeviceToHost``, ``DeviceToDevice``. ``str()`` is oxicuda's
    Display: ``HtoD``, ``DtoH``, ``DtoD``. Values are the matching ``cudaMemcpyKind`` numbers
    (1, 2, 3), a Python choice: the Rust enum has no explicit discriminants. oxicuda has no
    host-to-host direction, so neither does this enum.
    """

    HostToDevice = 1
    DeviceToHost = 2
    DeviceToDevice = 3

    def __str__(self) -> str:
        return _DIRECTION_TEXT[self]

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __repr__(self) -> str:
        return f"MemcpyDirection.{self.name}"


_DIRECTION_TEXT = {MemcpyDirection.HostToDevice: "HtoD", MemcpyDirection.DeviceToHost: "DtoH",
                   MemcpyDirection.DeviceToDevice: "DtoD"}
_DIRECTION_KINDS = {MemcpyDirection.HostToDevice: (HOST, DEVICE, "cuMemcpyHtoDAsync"),
                    MemcpyDirection.DeviceToHost: (DEVICE, HOST, "cuMemcpyDtoHAsync"),
                    MemcpyDirection.DeviceToDevice: (DEVICE, DEVICE, "cuMemcpyDtoDAsync")}


def _dim3(value: Any, what: str) -> tuple[int, int, int]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 3:
        raise TypeError(f"{what} must be a (x, y, z) tuple of three u32, got {value!r}")
    x, y, z = (_check_uint(v, _U32, f"{what}[{i}]") for i, v in enumerate(value))
    return (x, y, z)


def _function_name(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"function_name must be a str, not {type(value).__name__}")
    return value


# the attrs converters of the node fields (named functions, so that the checker sees the field types)
def _grid(value: Any) -> tuple[int, int, int]:
    return _dim3(value, "grid")


def _block(value: Any) -> tuple[int, int, int]:
    return _dim3(value, "block")


def _shared_mem(value: Any) -> int:
    return _check_uint(value, _U32, "shared_mem")


def _byte_count(value: Any) -> int:
    return _check_uint(value, _USIZE, "size")


def _byte_value(value: Any) -> int:
    return _check_uint(value, _U8, "value")


def _direction(value: Any) -> MemcpyDirection:
    if not isinstance(value, MemcpyDirection):
        raise TypeError(f"direction must be a MemcpyDirection, not {type(value).__name__}")
    return value


class GraphNode:
    """One operation of a :class:`Graph` (oxicuda ``GraphNode``), a description without pointers.

    Variants (frozen, hashable records; ``str()`` is oxicuda's Display):

    * ``GraphNode.KernelLaunch(function_name, grid, block, shared_mem)`` (alias
      ``GraphNode.Kernel``): ``grid``/``block`` are ``(x, y, z)`` tuples of ``u32``, ``shared_mem``
      dynamic shared memory in bytes. Display ``Kernel(name, grid=(x,y,z), block=(x,y,z), smem=N)``.
    * ``GraphNode.Memcpy(direction, size)``: ``size`` in bytes. Display ``Memcpy(HtoD, N bytes)``.
    * ``GraphNode.Memset(size, value)``: ``size`` bytes of the byte ``value``. Display
      ``Memset(N bytes, value=0xab)``.
    * ``GraphNode.Empty``: the barrier node, a single value (as Rust's unit variant). Display ``Empty``.

    Errors (constructing): ``TypeError`` for a wrong type or a dimension that is not three
    integers; ``OverflowError`` for an integer outside ``u32`` / ``usize`` / ``u8``.
    """

    __slots__ = ()

    # set below: KernelLaunch, Kernel, Memcpy, Memset, Empty
    KernelLaunch: Any
    Kernel: Any
    Memcpy: Any
    Memset: Any
    Empty: Any


@attrs.frozen(repr=False)
class _KernelLaunch(GraphNode):
    """``GraphNode::KernelLaunch { function_name, grid, block, shared_mem }``."""

    function_name: str = attrs.field(converter=_function_name)
    grid: tuple[int, int, int] = attrs.field(converter=_grid)
    block: tuple[int, int, int] = attrs.field(converter=_block)
    shared_mem: int = attrs.field(default=0, converter=_shared_mem)

    def __str__(self) -> str:
        g, b = self.grid, self.block
        return (f"Kernel({self.function_name}, grid=({g[0]},{g[1]},{g[2]}), block=({b[0]},{b[1]},{b[2]}), "
                f"smem={self.shared_mem})")

    def __repr__(self) -> str:
        return (f"GraphNode.KernelLaunch(function_name={self.function_name!r}, grid={self.grid!r}, "
                f"block={self.block!r}, shared_mem={self.shared_mem!r})")


@attrs.frozen(repr=False)
class _Memcpy(GraphNode):
    """``GraphNode::Memcpy { direction, size }`` (``size`` in bytes)."""

    direction: MemcpyDirection = attrs.field(converter=_direction)
    size: int = attrs.field(converter=_byte_count)

    def __str__(self) -> str:
        return f"Memcpy({self.direction}, {self.size} bytes)"

    def __repr__(self) -> str:
        return f"GraphNode.Memcpy(direction={self.direction!r}, size={self.size!r})"


@attrs.frozen(repr=False)
class _Memset(GraphNode):
    """``GraphNode::Memset { size, value }`` (``size`` bytes of the byte ``value``)."""

    size: int = attrs.field(converter=_byte_count)
    value: int = attrs.field(converter=_byte_value)

    def __str__(self) -> str:
        return f"Memset({self.size} bytes, value=0x{self.value:02x})"

    def __repr__(self) -> str:
        return f"GraphNode.Memset(size={self.size!r}, value={self.value!r})"


@attrs.frozen(repr=False)
class _Empty(GraphNode):
    """``GraphNode::Empty``: a barrier with no work; use the value ``GraphNode.Empty``."""

    def __str__(self) -> str:
        return "Empty"

    def __repr__(self) -> str:
        return "GraphNode.Empty"

    def __reduce__(self) -> Any:
        return "_EMPTY"


for _cls, _name in ((_KernelLaunch, "KernelLaunch"), (_Memcpy, "Memcpy"), (_Memset, "Memset"), (_Empty, "EmptyNode")):
    _cls.__name__ = _name
    _cls.__qualname__ = f"GraphNode.{_name}"
    setattr(GraphNode, _name, _cls)
_EMPTY = _Empty()
GraphNode.Kernel = _KernelLaunch
GraphNode.Empty = _EMPTY


# ================================================================================== Graph
class Graph:
    """A DAG of :class:`GraphNode` with ``(from, to)`` dependency edges (oxicuda ``Graph``).

    Mirrors: ``oxicuda_driver::graph::Graph`` 0.1.x: a pure description. Nodes are addressed by
    their 0-based insertion index.

    Args:
        nodes: optional initial nodes (a Python extra, so that ``repr`` is valid Python).
        dependencies: optional initial ``(from, to)`` edges, checked like :meth:`add_dependency`.

    Errors: ``CudaError.InvalidValue`` for an initial edge out of range or a self-edge;
    ``TypeError`` for a node that is not a ``GraphNode``.

    ``str(g)`` is oxicuda's Display ``Graph(N nodes, M deps)``. ``cu_graph`` is the simulated
    ``CUgraph`` handle that ``cuStreamEndCapture`` returned when the graph came from
    :meth:`StreamCapture.end` (``None`` otherwise); it is a snapshot and does not follow later edits.
    """

    __slots__ = ("_nodes", "_deps", "cu_graph")

    def __init__(self, nodes: Sequence[GraphNode] | None = None,
                 dependencies: Sequence[tuple[int, int]] | None = None) -> None:
        self._nodes: list[GraphNode] = []
        self._deps: list[tuple[int, int]] = []
        self.cu_graph: int | None = None
        for n in nodes or ():
            if not isinstance(n, GraphNode):
                raise TypeError(f"Graph nodes must be GraphNode values, got {type(n).__name__}")
            self._nodes.append(n)
        for edge in dependencies or ():
            a, b = edge
            self.add_dependency(a, b)

    @classmethod
    def new(cls) -> Graph:
        """An empty graph (oxicuda ``Graph::new``)."""
        return cls()

    @classmethod
    def default(cls) -> Graph:
        """An empty graph (oxicuda ``Graph::default``)."""
        return cls()

    def clone(self) -> Graph:
        """An independent copy (oxicuda derives ``Clone``); ``cu_graph`` is copied too."""
        g = Graph()
        g._nodes = list(self._nodes)
        g._deps = list(self._deps)
        g.cu_graph = self.cu_graph
        return g

    __copy__ = clone

    def _add(self, node: GraphNode) -> int:
        self._nodes.append(node)
        return len(self._nodes) - 1

    def add_kernel_node(self, function_name: str, grid: tuple[int, int, int], block: tuple[int, int, int],
                        shared_mem: int) -> int:
        """Append a kernel launch node (oxicuda ``add_kernel_node``).

        Args:
            function_name: the kernel's entry name.
            grid: grid dimensions ``(x, y, z)`` in blocks (``u32`` each).
            block: block dimensions ``(x, y, z)`` in threads (``u32`` each).
            shared_mem: dynamic shared memory in bytes (``u32``).

        Returns: the new node's index (``int``).
        Errors: ``TypeError`` / ``OverflowError`` for argument types (nothing is appended). Zero or
        oversized dimensions are accepted here, as in oxicuda; the simulated driver rejects them
        with ``InvalidValue`` when the graph is launched.
        """
        return self._add(_KernelLaunch(function_name, grid, block, shared_mem))

    def add_memcpy_node(self, direction: MemcpyDirection, size: int) -> int:
        """Append a memcpy node of ``size`` bytes (oxicuda ``add_memcpy_node``). Returns its index.

        Errors: ``TypeError`` (direction not a ``MemcpyDirection``); ``OverflowError`` (size not ``usize``).
        """
        return self._add(_Memcpy(direction, size))

    def add_memset_node(self, size: int, value: int) -> int:
        """Append a node setting ``size`` bytes to the byte ``value`` (oxicuda ``add_memset_node``).

        Returns its index. Errors: ``TypeError``; ``OverflowError`` (size not ``usize``, value not ``u8``).
        """
        return self._add(_Memset(size, value))

    def add_empty_node(self) -> int:
        """Append an empty (barrier) node (oxicuda ``add_empty_node``). Returns its index."""
        return self._add(_EMPTY)

    def add_dependency(self, from_: int, to: int) -> None:
        """Add the edge ``from_ -> to``: ``to`` runs after ``from_`` (oxicuda ``add_dependency``).

        Args:
            from_: index of the node that runs first.
            to: index of the node that waits for it.

        Errors: ``CudaError.InvalidValue`` when an index is not in ``range(node_count())`` (negative
        indices included) or ``from_ == to``; ``TypeError`` for a non-integer index.

        Fidelity: as in oxicuda, duplicate edges are kept (each counts in :meth:`dependency_count`)
        and cycles are not detected here, only by :meth:`topological_sort` / :meth:`instantiate`.
        """
        a = _index(from_, "from")
        b = _index(to, "to")
        n = len(self._nodes)
        if not (0 <= a < n and 0 <= b < n):
            raise CudaError.InvalidValue(
                f"add_dependency({a}, {b}): the graph has {n} node(s), so indices must be in 0..{n - 1}")
        if a == b:
            raise CudaError.InvalidValue(
                f"add_dependency({a}, {b}): a node cannot depend on itself")
        self._deps.append((a, b))

    def node_count(self) -> int:
        """Number of nodes (oxicuda ``node_count``)."""
        return len(self._nodes)

    def dependency_count(self) -> int:
        """Number of dependency edges, duplicates included (oxicuda ``dependency_count``)."""
        return len(self._deps)

    def nodes(self) -> list[GraphNode]:
        """The nodes in insertion order (a new list; oxicuda returns a slice)."""
        return list(self._nodes)

    def dependencies(self) -> list[tuple[int, int]]:
        """The ``(from, to)`` edges in insertion order (a new list; oxicuda returns a slice)."""
        return list(self._deps)

    def get_node(self, index: int) -> GraphNode | None:
        """The node at ``index``, or ``None`` when out of range, negative included (oxicuda ``Option``)."""
        i = _index(index, "index")
        return self._nodes[i] if 0 <= i < len(self._nodes) else None

    def topological_sort(self) -> list[int]:
        """Node indices in an order that respects every edge (oxicuda ``topological_sort``).

        Returns: a list of every index once. The algorithm is oxicuda's: Kahn's algorithm whose work
        list starts as the in-degree-0 nodes in index order and is used as a *stack* (last ready
        first), edges visited in insertion order. For ``0 -> 1, 0 -> 2`` this gives ``[0, 2, 1]``.

        Errors: ``CudaError.InvalidValue`` when the edges form a cycle (the why names the nodes left).
        """
        n = len(self._nodes)
        indeg = [0] * n
        adj: list[list[int]] = [[] for _ in range(n)]
        for a, b in self._deps:
            adj[a].append(b)
            indeg[b] += 1
        stack = [i for i in range(n) if indeg[i] == 0]
        out: list[int] = []
        while stack:
            node = stack.pop()
            out.append(node)
            for nxt in adj[node]:
                if indeg[nxt] > 0:
                    indeg[nxt] -= 1
                    if indeg[nxt] == 0:
                        stack.append(nxt)
        if len(out) != n:
            done = set(out)
            left = [i for i in range(n) if i not in done]
            raise CudaError.InvalidValue(
                f"the graph has a dependency cycle: nodes {left} can never become ready")
        return out

    def instantiate(self) -> GraphExec:
        """Check the graph is a DAG and freeze a copy of it (oxicuda ``instantiate``).

        Returns: a :class:`GraphExec` holding a snapshot of this graph (later edits do not affect
        it) and its :meth:`topological_sort` order.

        Errors: ``CudaError.InvalidValue`` on a cycle.

        Fidelity: as in oxicuda 0.1, no driver is involved here; the simulated ``CUgraph`` and
        ``CUgraphExec`` are built on the first :meth:`GraphExec.launch` on each driver/context.
        """
        order = self.topological_sort()
        return GraphExec._make(self.clone(), order)

    def __str__(self) -> str:
        return f"Graph({len(self._nodes)} nodes, {len(self._deps)} deps)"

    def __repr__(self) -> str:
        return f"Graph(nodes={self._nodes!r}, dependencies={self._deps!r})"

    def __len__(self) -> int:
        return len(self._nodes)


def _index(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            return operator.index(value)
        except TypeError:
            raise TypeError(f"{what} must be an integer node index, not {type(value).__name__}") from None
    return value


# ================================================================================== driver-side state
class _Scratch:
    """Per-driver resources of this face: kernel functions by name, scratch buffers by size."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.functions: dict[tuple[int, str], int] = {}
        self.device: dict[tuple[int, int, int], int] = {}
        self.host: dict[tuple[int, int], int] = {}
        self.default_ctx: int = 0


_SCRATCH: _state.PerDriver[_Scratch] = _state.PerDriver(_Scratch)


def _scratch(drv: Driver) -> _Scratch:
    return _SCRATCH.of(drv)


@contextlib.contextmanager
def _in_context(drv: Driver, ctx: int, relaxed: bool = False) -> Iterator[None]:
    """Run with ``ctx`` current on this thread (pushed and popped if needed), optionally with the
    thread's capture interaction mode exchanged to RELAXED so that set-up calls (cuMemAlloc,
    cuModuleLoadData) are allowed while a GLOBAL capture is live (spec 5.2)."""
    pushed = False
    if drv.ctx_get_current() != ctx:
        drv.ctx_push_current(ctx)
        pushed = True
    old = drv.thread_exchange_stream_capture_mode(_CAPTURE_MODE_RELAXED) if relaxed else None
    try:
        yield
    finally:
        if old is not None:
            drv.thread_exchange_stream_capture_mode(old)
        if pushed:
            drv.ctx_pop_current()


def _ptx_for(name: str) -> bytes:
    return (".version 8.5\n.target sm_90\n.address_size 64\n"
            f"// simcuda oxicuda face: a stand-in module whose only entry is {name!r}\n"
            f".visible .entry {name}()\n{{\n\tret;\n}}\n").encode()


#: the kernel arguments of every launch this face makes (none; never mutated: the driver keeps it as given)
_NO_ARGS: list[Any] = []


def _no_driver() -> None:
    """Stands for a dead weak reference to a driver: none launched yet (``StreamCapture._last_kernel``)."""
    return None


def _immutable_launch(name: Any, grid: Any, block: Any, shared_mem: Any) -> bool:
    """Whether ``record_kernel`` arguments are immutable values (a ``str``, two tuples of three ``int`` and
    an ``int``), so that the same objects again convert to the same node."""
    return (type(name) is str and type(shared_mem) is int and type(grid) is tuple and type(block) is tuple
            and all(type(v) is int for v in grid) and all(type(v) is int for v in block))


def _function(drv: Driver, ctx: int, name: str) -> int:
    """The simulated CUfunction for kernel ``name`` in ``ctx`` (a one-entry module, loaded once)."""
    sc = _scratch(drv)
    key = (ctx, name)
    h = sc.functions.get(key)
    if h is None:
        with sc.lock:
            h = sc.functions.get(key)
            if h is None:
                with _in_context(drv, ctx, relaxed=True):
                    try:
                        mod = drv.module_load_data(_ptx_for(name))
                    except DriverError as e:
                        raise DriverError(int(e.code), f"kernel name {name!r}: {e.why}") from None
                    h = drv.module_get_function(mod, name)  # 500 NOT_FOUND for a non-identifier name
                sc.functions[key] = h
    return h


def _device_buffer(drv: Driver, ctx: int, size: int, slot: int) -> int:
    """A scratch device allocation of at least ``size`` bytes (``slot`` tells the two DtoD sides apart)."""
    sc = _scratch(drv)
    key = (ctx, size, slot)
    p = sc.device.get(key)
    if p is None or not drv.is_device_pointer(p):
        with sc.lock:
            with _in_context(drv, ctx, relaxed=True):
                p = drv.mem_alloc(max(size, 1))
            sc.device[key] = p
    return p


def _host_buffer(drv: Driver, ctx: int, size: int) -> int:
    """A scratch pinned host buffer (``cuMemAllocHost``) of at least ``size`` bytes."""
    sc = _scratch(drv)
    key = (ctx, size)
    p = sc.host.get(key)
    if p is None:
        with sc.lock:
            with _in_context(drv, ctx, relaxed=True):
                p = drv.mem_alloc_host(max(size, 1))
            sc.host[key] = p
    return p


def _copy_params(drv: Driver, ctx: int, direction: MemcpyDirection, size: int) -> tuple[CopyParams, str]:
    src_kind, dst_kind, call = _DIRECTION_KINDS[direction]
    if direction is MemcpyDirection.DeviceToDevice:
        src, dst = _device_buffer(drv, ctx, size, 1), _device_buffer(drv, ctx, size, 0)
    elif direction is MemcpyDirection.HostToDevice:
        src, dst = _host_buffer(drv, ctx, size), _device_buffer(drv, ctx, size, 0)
    else:
        src, dst = _device_buffer(drv, ctx, size, 0), _host_buffer(drv, ctx, size)
    return CopyParams(src_kind, src, dst_kind, dst, size), call


def _memset_params(drv: Driver, ctx: int, size: int, value: int) -> MemsetParams:
    return MemsetParams(_device_buffer(drv, ctx, size, 0), value, 1, size)


# ================================================================================== Device / Context / Stream
class _OnDriver:
    """What the oxicuda objects share: the driver they act on."""

    __slots__ = ("_driver",)
    _driver: Driver | None

    @property
    def driver(self) -> Driver:
        """The simulated driver this object acts on: the one given when it was made, else the current
        one at each call (after ``simcuda.use()`` or ``simcuda.reset()`` a handle of the earlier driver is
        refused by the new one, as an invalid handle, with a ``why`` naming the driver it came from)."""
        return self._driver if self._driver is not None else _state.current()


class Device(_OnDriver):
    """A CUDA device by ordinal (a minimal oxicuda ``Device``).

    Mirrors: ``oxicuda_driver::Device``: ``get``, ``count``, ``name``, ``total_memory``.
    Every constructor first brings the driver up (oxicuda ``try_driver``): ``CudaError.NotInitialized``
    on a ``Driver(available=False)``.

    Args:
        ordinal: the device ordinal (use :meth:`get`, which validates it).
        driver: the simulated driver (default: the current one, ``simcuda.current_driver()``).
    """

    __slots__ = ("_ordinal",)

    def __init__(self, ordinal: int, driver: Driver | None = None) -> None:
        self._ordinal = int(ordinal)
        self._driver = driver

    @classmethod
    def get(cls, ordinal: int = 0) -> Device:
        """``cuDeviceGet``. Errors: ``NotInitialized`` (no driver); ``InvalidDevice`` (bad ordinal)."""
        drv = _state.current()
        _try_driver(drv)
        with _translated():
            return cls(drv.device_get(_check_uint(ordinal, _U32, "ordinal")))

    @staticmethod
    def count() -> int:
        """``cuDeviceGetCount``. Errors: ``NotInitialized``."""
        drv = _state.current()
        _try_driver(drv)
        with _translated():
            return drv.device_get_count()

    def ordinal(self) -> int:
        """The device ordinal."""
        return self._ordinal

    raw = ordinal

    def name(self) -> str:
        """``cuDeviceGetName``."""
        with _translated():
            return self.driver.device_get_name(self._ordinal)

    def total_memory(self) -> int:
        """``cuDeviceTotalMem``: bytes."""
        with _translated():
            return self.driver.device_total_mem(self._ordinal)

    def __repr__(self) -> str:
        return f"<simcuda.capture.Device {self._ordinal}>"


class Context(_OnDriver):
    """A CUDA context handle (a minimal oxicuda ``Context``).

    Mirrors: ``oxicuda_driver::Context`` (``new``, ``set_current``, ``synchronize``, ``raw``) and
    the primary context (``PrimaryContext``) through :meth:`primary`.

    Args:
        handle: an existing context handle.
        driver: the simulated driver (default: the current one).

    Fidelity: no RAII destroy: Python objects are not destroyed deterministically, so the context
    lives until the driver does (or until ``driver.ctx_destroy(ctx.raw())``).
    """

    __slots__ = ("_handle",)

    def __init__(self, handle: int, driver: Driver | None = None) -> None:
        self._handle = int(handle)
        self._driver = driver

    @classmethod
    def new(cls, device: Device) -> Context:
        """``cuCtxCreate(0, device)``: a new context, pushed current on this thread.

        Errors: ``NotInitialized``; ``InvalidDevice``; capture errors while a capture forbids it.
        """
        drv = device.driver
        _try_driver(drv)
        with _translated():
            return cls(drv.ctx_create(0, device.ordinal()), device._driver)

    @classmethod
    def primary(cls, device: Device | None = None) -> Context:
        """``cuDevicePrimaryCtxRetain``: the device's primary context (device 0 by default).

        The current context of the thread is not changed. Errors: ``NotInitialized``; ``InvalidDevice``.
        """
        drv = device.driver if device is not None else _state.current()
        _try_driver(drv)
        with _translated():
            return cls(drv.device_primary_ctx_retain(device.ordinal() if device is not None else 0),
                       device._driver if device is not None else None)

    def raw(self) -> int:
        """The ``CUcontext`` handle (``int``)."""
        return self._handle

    def set_current(self) -> None:
        """``cuCtxSetCurrent``."""
        with _translated():
            self.driver.ctx_set_current(self._handle)

    def synchronize(self) -> None:
        """``cuCtxSynchronize`` on this context. Errors: ``StreamCaptureUnsupported`` during its capture."""
        with _translated(), _in_context(self.driver, self._handle):
            self.driver.ctx_synchronize()

    def __repr__(self) -> str:
        return f"<simcuda.capture.Context 0x{self._handle:x}>"


class Stream(_OnDriver):
    """A CUDA stream for this face (a minimal oxicuda ``Stream``).

    Mirrors: ``oxicuda_driver::Stream``: ``new`` (always ``CU_STREAM_NON_BLOCKING``),
    ``synchronize``, ``raw``. ``Stream(handle)`` wraps an existing simulated stream handle (any
    face's), on the current driver unless ``driver`` is given; APIs taking a stream also accept a
    plain ``int`` handle.

    Args:
        handle: a ``CUstream`` handle of the simulated driver.
        driver: the simulated driver (default: the current one).
    """

    __slots__ = ("_handle", "_ctx")

    def __init__(self, handle: int, driver: Driver | None = None) -> None:
        if isinstance(handle, bool) or not isinstance(handle, int):
            raise TypeError(f"a stream handle must be an int, not {type(handle).__name__}")
        self._handle = handle
        self._driver = driver
        self._ctx = 0

    @classmethod
    def new(cls, ctx: Context | None = None) -> Stream:
        """``cuStreamCreate(CU_STREAM_NON_BLOCKING)`` in ``ctx``.

        Args:
            ctx: the context; by default the primary context of device 0 of the current driver
                (initialised and retained once per driver, as needed).

        Returns: the new stream. The thread's current context is left as it was.
        Errors: ``NotInitialized`` on a driver that is unavailable; any other driver error as its variant.
        """
        drv = ctx.driver if ctx is not None else _state.current()
        bound = ctx._driver if ctx is not None else None
        _try_driver(drv)
        with _translated():
            if ctx is None:
                sc = _scratch(drv)
                if not sc.default_ctx:
                    sc.default_ctx = drv.device_primary_ctx_retain(0)
                hctx = sc.default_ctx
            else:
                hctx = ctx.raw()
            with _in_context(drv, hctx):
                h = drv.stream_create(_STREAM_NON_BLOCKING)
        s = cls(h, bound)
        s._ctx = hctx
        return s

    def raw(self) -> int:
        """The ``CUstream`` handle (``int``)."""
        return self._handle

    def context_handle(self) -> int:
        """The handle of the stream's context (``cuStreamGetCtx``). A Python extra."""
        if not self._ctx:
            with _translated():
                self._ctx = self.driver.stream_get_ctx(self._handle)
        return self._ctx

    def synchronize(self) -> None:
        """``cuStreamSynchronize``. Errors: ``StreamCaptureUnsupported`` on a capturing stream
        (and the capture is invalidated, spec 6)."""
        with _translated():
            self.driver.stream_synchronize(self._handle)

    def __repr__(self) -> str:
        return f"<simcuda.capture.Stream 0x{self._handle:x}>"


def _as_stream(stream: Any) -> Stream:
    """A :class:`Stream` from what ``begin`` takes: a Stream, an ``int`` handle, or a driver face's stream handle
    (``cuda.bindings.driver.CUstream``, simcuda's or NVIDIA's on the native route: anything with ``__int__``)."""
    if isinstance(stream, Stream):
        return stream
    if isinstance(stream, bool):
        raise TypeError("expected a simcuda.capture.Stream, a CUstream or an int stream handle, not bool")
    if isinstance(stream, int):
        return Stream(stream)
    to_int = getattr(type(stream), "__int__", None)
    if to_int is not None and not isinstance(stream, float):
        return Stream(int(to_int(stream)))
    raise TypeError("expected a simcuda.capture.Stream, a CUstream or an int stream handle, not "
                    f"{type(stream).__name__}")


# ================================================================================== GraphExec
class GraphExec:
    """An instantiated graph (oxicuda ``GraphExec``), made by :meth:`Graph.instantiate`.

    Mirrors: ``oxicuda_driver::graph::GraphExec`` 0.1.x: ``launch``, ``graph``,
    ``execution_order``, ``node_count``. Not constructible directly.

    ``str(x)`` is ``GraphExec(N nodes, order=[...])`` and ``repr(x)`` follows oxicuda's ``Debug``
    (oxicuda 0.1 has no Display for it; the ``str`` is a Python extra).
    """

    __slots__ = ("_graph", "_order", "_built", "_lock", "_backed", "_raw", "__weakref__")
    _graph: Graph
    _order: list[int]
    _built: dict[tuple[int, int], tuple[Driver, int, int]]  # (id(driver), ctx) -> (driver, graph, exec)
    _lock: threading.Lock
    _backed: bool
    _raw: tuple[Driver, int, int] | None  # a captured exec's (driver, CUgraph, CUgraphExec), owned

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("GraphExec is made by Graph.instantiate()")

    @classmethod
    def _make(cls, graph: Graph, order: list[int]) -> GraphExec:
        x = object.__new__(cls)
        x._graph = graph
        x._order = order
        x._built = {}  # (id(driver), ctx) -> (driver, graph handle, exec handle)
        x._lock = threading.Lock()
        x._backed = _driver_available()
        x._raw = None
        return x

    @classmethod
    def _captured(cls, graph: Graph, order: list[int], drv: Driver, hg: int, hexec: int) -> GraphExec:
        """The exec :meth:`StreamGraphCapture.end` returns: it owns the captured ``CUgraph`` and its
        ``CUgraphExec`` (destroyed when it goes away, as oxicuda's ``Drop`` does)."""
        x = cls._make(graph, order)
        x._backed = True
        x._raw = (drv, hg, hexec)
        weakref.finalize(x, _destroy_exec, weakref.ref(drv), hg, hexec)
        return x

    def is_driver_backed(self) -> bool:
        """Whether a launch goes through a (simulated) ``CUgraphExec`` (oxicuda 0.5 ``is_driver_backed``).

        Mirrors: ``GraphExec::is_driver_backed`` of oxicuda-driver 0.5 (``crates/oxicuda-driver/src/graph.rs``:
        ``raw_exec.is_some()``). True for the exec of :meth:`StreamGraphCapture.end`, and for one made by
        :meth:`Graph.instantiate` while the current simulated driver was usable (0.5 builds its driver graph
        there; here the simulated ``CUgraphExec`` is built at the first :meth:`launch` on each context, the
        same graph); False when the driver was unavailable (``Driver(available=False)``: 0.5's CPU-only
        exec, whose :meth:`launch` fails).
        """
        return self._backed

    def graph(self) -> Graph:
        """A copy of the graph this exec was made from (oxicuda returns a reference)."""
        return self._graph.clone()

    def execution_order(self) -> list[int]:
        """The cached topological order, node indices (oxicuda ``execution_order``); a new list."""
        return list(self._order)

    def node_count(self) -> int:
        """Number of nodes that a launch runs (oxicuda ``node_count``)."""
        return self._graph.node_count()

    def launch(self, stream: Stream | int) -> None:
        """Replay the graph on ``stream`` through the simulated driver (``cuGraphLaunch``).

        Mirrors: ``GraphExec::launch(&Stream)``, which in oxicuda 0.1 only checks that a driver loads
        and would call ``cuGraphLaunch`` on a real system. Here it really does, on the simulated
        driver of ``stream``: on the first launch per driver and context it lowers the graph to a
        simulated ``CUgraph`` (kernel nodes on a one-entry module named after the kernel, memcpy
        and memset nodes on scratch buffers of the node's size, empty nodes, one edge per distinct
        dependency) and instantiates it; every launch then calls ``cuGraphLaunch``. In immediate
        progression the nodes run at once, in :meth:`execution_order` (the driver nodes are created
        in that order, so the replay order is exactly it); each shows up in ``driver.launch_log``
        with ``source == "graph"`` and ``node`` equal to its position in :meth:`execution_order`.

        Args:
            stream: a :class:`Stream` or an ``int`` stream handle.

        Errors: ``NotInitialized`` when the driver is unavailable; ``InvalidValue`` for a kernel node
        with a zero or oversized dimension; ``NotFound`` for a kernel name that is not a PTX
        identifier; ``OutOfMemory`` when scratch does not fit the simulated device;
        ``StreamCaptureUnsupported`` when ``stream`` is capturing (its capture is invalidated,
        spec 3.8); any other driver error as its variant.
        """
        s = _as_stream(stream)
        drv = s.driver
        _try_driver(drv)
        raw = self._raw
        if raw is not None:  # a captured exec: its own CUgraphExec, on the driver that captured it
            with _translated():
                raw[0].graph_launch(raw[2], s.raw())
            return
        with _translated():
            ctx = s.context_handle()
            hexec = self._exec_for(drv, ctx)
            drv.graph_launch(hexec, s.raw())

    def _exec_for(self, drv: Driver, ctx: int) -> int:
        key = (id(drv), ctx)
        with self._lock:
            got = self._built.get(key)
            if got is not None and got[0] is drv:
                return got[2]
            hg, hexec = self._lower(drv, ctx)
            self._built[key] = (drv, hg, hexec)
            return hexec

    def _lower(self, drv: Driver, ctx: int) -> tuple[int, int]:
        nodes = self._graph._nodes
        hg = 0
        try:
            with _in_context(drv, ctx, relaxed=True):
                hg = drv.graph_create(0)
                handle: dict[int, int] = {}
                for i in self._order:
                    n = nodes[i]
                    if isinstance(n, _KernelLaunch):
                        fn = _function(drv, ctx, n.function_name)
                        h = drv.graph_add_kernel_node(hg, [], fn, n.grid, n.block, n.shared_mem, [])
                    elif isinstance(n, _Memcpy):
                        p, _call = _copy_params(drv, ctx, n.direction, n.size)
                        h = drv.graph_add_memcpy_node(hg, [], p)
                    elif isinstance(n, _Memset):
                        h = drv.graph_add_memset_node(hg, [], _memset_params(drv, ctx, n.size, n.value))
                    else:
                        h = drv.graph_add_empty_node(hg, [])
                    handle[i] = h
                froms, tos, seen = [], [], set()
                for a, b in self._graph._deps:
                    if (a, b) not in seen:  # the driver refuses duplicate edges; they add no ordering
                        seen.add((a, b))
                        froms.append(handle[a])
                        tos.append(handle[b])
                if froms:
                    drv.graph_add_dependencies(hg, froms, tos, [])
                return hg, drv.graph_instantiate(hg, 0)
        except BaseException:
            if hg:
                with contextlib.suppress(DriverError):
                    drv.graph_destroy(hg)
            raise

    def __str__(self) -> str:
        return f"GraphExec({self.node_count()} nodes, order={self._order})"

    def __repr__(self) -> str:
        backed = "true" if self._backed else "false"
        return (f"GraphExec {{ graph: {self._graph!r}, execution_order: {self._order!r}, "
                f"driver_backed: {backed} }}")


# ================================================================================== StreamCapture
class StreamCapture:
    """Records operations on a stream into a :class:`Graph`, capturing them on the simulated driver.

    Mirrors: ``oxicuda_driver::graph::StreamCapture`` 0.1.x (``begin``, ``record_kernel``,
    ``record_memcpy``, ``record_memset``, ``recorded_count``, ``is_active``, ``end``). Made only by
    :meth:`begin`. Python courtesies on top: a context manager, and :attr:`graph`.

    Example (the oxicuda doc example)::

        capture = StreamCapture.begin(stream)
        capture.record_kernel("my_kernel", (4, 1, 1), (256, 1, 1), 0)
        capture.record_memcpy(MemcpyDirection.DeviceToHost, 1024)
        graph = capture.end()
        assert graph.node_count() == 2

        with StreamCapture.begin(stream) as cap:   # ends on exit; discards on an exception
            cap.record_memset(4096, 0)
        graph = cap.graph

    Attributes:
        graph: the :class:`Graph` returned by the successful :meth:`end` (or the ``with`` exit),
            else ``None``.
    """

    __slots__ = ("_stream", "_nodes", "_active", "graph", "_last_kernel")
    _stream: Stream
    _nodes: list[GraphNode]
    _active: bool
    graph: Graph | None
    _last_kernel: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("StreamCapture is made by StreamCapture.begin(stream)")

    @classmethod
    def begin(cls, stream: Stream | int) -> StreamCapture:
        """Begin capturing ``stream``: ``cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_GLOBAL)``.

        Args:
            stream: a :class:`Stream`, a driver face's ``CUstream`` (anything with ``__int__``) or an ``int`` stream
                handle of the simulated driver.

        Returns: an active recorder.

        Errors: ``CudaError.NotInitialized`` when the driver is unavailable
        (``Driver(available=False)``: oxicuda's ``try_driver`` fails); then the driver's own codes:
        ``StreamCaptureUnsupported`` (the legacy NULL stream, spec 3.1), ``IllegalState`` (already
        capturing), ``InvalidHandle`` / ``ContextIsDestroyed`` (bad or destroyed stream).

        Fidelity: oxicuda 0.1 ignores the stream and only checks the driver; here the capture is
        real, so the rules of the simulated driver (GLOBAL mode: potentially unsafe calls from
        other threads fail during the capture) apply until :meth:`end`.
        """
        cap, s, _drv = _begin_capture(cls, stream, _CAPTURE_MODE_GLOBAL)
        cap._stream = s
        cap._nodes = []
        cap._active = True
        cap.graph = None
        # the last record_kernel's (name, grid, block, shared_mem) objects, its node, and the (driver (weakly),
        # context, function) it launched: the same immutable arguments again make the same node
        cap._last_kernel = None
        return cap

    def stream(self) -> Stream:
        """The captured stream. A Python extra."""
        return self._stream

    def record_kernel(self, function_name: str, grid: tuple[int, int, int], block: tuple[int, int, int],
                      shared_mem: int) -> None:
        """Launch kernel ``function_name`` on the capturing stream and record it (oxicuda ``record_kernel``).

        Args:
            function_name: the kernel's entry name (a PTX identifier, for example ``"my_kernel"``).
            grid: grid dimensions ``(x, y, z)`` in blocks.
            block: block dimensions ``(x, y, z)`` in threads.
            shared_mem: dynamic shared memory in bytes.

        Returns: ``None`` (oxicuda returns no node handle). Ignored when the capture has ended, as in
        oxicuda (argument types are still checked).

        Errors (deviation: oxicuda's recorder cannot fail): the simulated ``cuLaunchKernel`` runs
        first and nothing is recorded if it fails: ``InvalidValue`` (a zero dimension, more than 1024
        threads per block), ``NotFound`` (a name that is not a PTX identifier),
        ``StreamCaptureInvalidated`` (the capture was invalidated by another call). ``TypeError`` /
        ``OverflowError`` for argument types.
        """
        last = self._last_kernel
        if (last is not None and function_name is last[0] and grid is last[1] and block is last[2]
                and shared_mem is last[3]):
            node = last[4]  # immutable arguments, converted before: the same (frozen) node
        else:
            node = _KernelLaunch(function_name, grid, block, shared_mem)
            last = self._last_kernel = ((function_name, grid, block, shared_mem, node, _no_driver, 0, 0)
                                        if _immutable_launch(function_name, grid, block, shared_mem) else None)
        if not self._active:
            return
        s = self._stream
        drv = s.driver
        try:
            ctx = s.context_handle()
            if last is not None and last[5]() is drv and ctx == last[6]:
                fn = last[7]
            else:
                fn = _function(drv, ctx, node.function_name)
                if last is not None:
                    self._last_kernel = (*last[:5], weakref.ref(drv), ctx, fn)
            drv.launch_kernel_fast(fn, node.grid, node.block, node.shared_mem, s.raw(), _NO_ARGS)
        except DriverError as e:
            raise _translate(e) from None
        self._nodes.append(node)

    def record_memcpy(self, direction: MemcpyDirection, size: int) -> None:
        """Enqueue an async copy of ``size`` bytes on the capturing stream and record it
        (oxicuda ``record_memcpy``).

        The copy uses scratch buffers of this face (pinned host memory and device memory of
        ``size`` bytes, reused per size), through ``cuMemcpyHtoDAsync`` / ``DtoHAsync`` /
        ``DtoDAsync``, so the captured MEMCPY node moves real bytes when replayed.

        Args:
            direction: a :class:`MemcpyDirection`.
            size: bytes to copy (``usize``; 0 is allowed).

        Returns: ``None``; ignored after the capture ended. Errors: ``OutOfMemory`` when scratch does
        not fit the simulated device; ``StreamCaptureInvalidated``; ``TypeError`` / ``OverflowError``.
        """
        node = _Memcpy(direction, size)
        if not self._active:
            return
        s, drv = self._stream, self._stream.driver
        with _translated():
            p, call = _copy_params(drv, s.context_handle(), node.direction, node.size)
            drv.memcpy(p, s.raw(), call)
        self._nodes.append(node)

    def record_memset(self, size: int, value: int) -> None:
        """Enqueue ``cuMemsetD8Async`` of ``size`` bytes to ``value`` on the capturing stream and
        record it (oxicuda ``record_memset``).

        Args:
            size: bytes to set (``usize``), in a scratch device buffer of that size.
            value: the byte value (``u8``).

        Returns: ``None``; ignored after the capture ended. Errors: as :meth:`record_memcpy`.
        """
        node = _Memset(size, value)
        if not self._active:
            return
        s, drv = self._stream, self._stream.driver
        with _translated():
            drv.memset(_memset_params(drv, s.context_handle(), node.size, node.value), s.raw(), "cuMemsetD8Async")
        self._nodes.append(node)

    def recorded_count(self) -> int:
        """Number of operations recorded so far (oxicuda ``recorded_count``)."""
        return len(self._nodes)

    def is_active(self) -> bool:
        """Whether :meth:`end` has not yet ended the capture (oxicuda ``is_active``).

        Fidelity: this is the recorder's flag, as in oxicuda; a capture that the driver invalidated
        is still "active" until :meth:`end` reports ``StreamCaptureInvalidated``.
        """
        return self._active

    def end(self) -> Graph:
        """End the capture (``cuStreamEndCapture``) and return the recorded operations as a Graph.

        Returns: a :class:`Graph` whose nodes are the recorded operations, chained linearly
        (``i -> i + 1``), as in oxicuda; its ``cu_graph`` is the simulated ``CUgraph`` the driver
        returned (the same nodes, one edge per consecutive pair). Also stored in :attr:`graph`.

        Errors: ``CudaError.StreamCaptureUnmatched`` when this recorder was already ended (oxicuda's
        documented error; Rust makes it unreachable because ``end`` consumes the recorder). Driver
        errors as their variant, e.g. ``StreamCaptureInvalidated`` (an earlier violation invalidated
        the capture: it is now over, no graph) or ``StreamCaptureWrongThread`` (ended from another
        thread: the capture goes on, invalidated, and :meth:`is_active` stays true so that the
        begin thread can end it).
        """
        if not self._active:
            raise CudaError.StreamCaptureUnmatched(
                f"StreamCapture.end(): the capture of {self._stream!r} was already ended by this recorder")
        s, drv = self._stream, self._stream.driver
        try:
            hg = drv.stream_end_capture(s.raw())
        except DriverError as e:
            self._active = self._still_capturing()
            raise _translate(e) from None
        self._active = False
        g = Graph()
        g._nodes = list(self._nodes)
        g._deps = [(i, i + 1) for i in range(len(self._nodes) - 1)]
        g.cu_graph = hg
        self.graph = g
        return g

    def _still_capturing(self) -> bool:
        try:
            return self._stream.driver.stream_is_capturing(self._stream.raw()) != 0
        except DriverError:
            return False

    def _discard(self) -> None:
        """End the simulated capture and destroy its graph, ignoring driver errors."""
        drv = self._stream.driver
        try:
            hg = drv.stream_end_capture(self._stream.raw())
        except DriverError:
            self._active = self._still_capturing()
            return
        self._active = False
        with contextlib.suppress(DriverError):
            drv.graph_destroy(hg)

    def __enter__(self) -> StreamCapture:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> Literal[False]:
        """On a normal exit, :meth:`end` (if not ended yet; its errors propagate). On an exception,
        end the simulated capture, discard its graph, and let the exception propagate."""
        if exc_type is None:
            if self._active:
                self.end()
        elif self._active:
            self._discard()
        return False

    def __repr__(self) -> str:
        state = "active" if self._active else "ended"
        return f"<StreamCapture on stream 0x{self._stream.raw():x}, {state}, {len(self._nodes)} recorded>"


# ================================================================================== StreamGraphCapture
def _driver_available() -> bool:
    """Whether the current simulated driver is usable (``Driver(available=...)``): what oxicuda's
    ``try_driver`` checks; read without a driver call."""
    return bool(_state.current().available)


def _destroy_exec(drv_ref: Callable[[], Driver | None], hg: int, hexec: int) -> None:
    """oxicuda 0.5 ``Drop for GraphExec``: destroy the exec, then its graph; errors are ignored (oxicuda logs
    them)."""
    drv = drv_ref()
    if drv is None:
        return
    for destroy, h in ((drv.graph_exec_destroy, hexec), (drv.graph_destroy, hg)):
        with contextlib.suppress(Exception):
            destroy(h)


def _end_abandoned(drv_ref: Callable[[], Driver | None], stream: int, state: list[bool]) -> None:
    """oxicuda 0.5 ``Drop for StreamGraphCapture``: a capture still active when its object goes away is ended
    (``cuStreamEndCapture``) and the graph the driver hands back destroyed; errors are ignored."""
    drv = drv_ref()
    if drv is None or not state[0]:
        return
    state[0] = False
    with contextlib.suppress(Exception):
        hg = drv.stream_end_capture(stream)
        if hg:
            drv.graph_destroy(hg)


class StreamGraphCapture:
    """Driver-backed stream capture (oxicuda 0.5 ``StreamGraphCapture``): ordinary work submitted to the stream
    between :meth:`begin` and :meth:`end` is captured by the (simulated) driver, and :meth:`end` instantiates
    the captured graph into a launchable :class:`GraphExec`.

    Mirrors: ``oxicuda_driver::graph::StreamGraphCapture<'s>`` of oxicuda-driver 0.5
    (``crates/oxicuda-driver/src/graph.rs``): ``begin(&Stream, CUstreamCaptureMode)``, ``is_active``,
    ``capture_status``, ``end(self) -> GraphExec``, and ``Drop``, which ends a capture still active and destroys
    the graph it returns. In Python the object "goes away" on the exit of a ``with`` block and when it is
    garbage-collected: both end an active capture that way (no :class:`GraphExec` is made; call :meth:`end`
    inside the block to get one).

    Where :class:`StreamCapture` records operation descriptions (``record_*``), this one records nothing
    itself: launch kernels, copies and memsets on the stream through any face of the same driver (the
    ``cuda.bindings`` faces, or the oxicuda ones) and the driver captures them.

    Example::

        with StreamGraphCapture.begin(stream, CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL) as cap:
            cuMemsetD8Async(ptr, 0, 1024, stream.raw())   # captured, not run
            exec_ = cap.end()                             # cuStreamEndCapture + instantiate
        exec_.launch(stream)                              # cuGraphLaunch: now it runs
    """

    __slots__ = ("_stream", "_state", "__weakref__")
    _stream: Stream
    _state: list[bool]  # [active], shared with the finalizer

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("StreamGraphCapture is made by StreamGraphCapture.begin(stream, mode)")

    @classmethod
    def begin(cls, stream: Stream | int, mode: int) -> StreamGraphCapture:
        """Begin capturing ``stream`` in capture ``mode``: ``cuStreamBeginCapture_v2(stream, mode)``.

        Args:
            stream: a :class:`Stream`, a driver face's ``CUstream`` (anything with ``__int__``) or an ``int`` stream
                handle of the simulated driver.
            mode: a ``CUstreamCaptureMode`` (``CU_STREAM_CAPTURE_MODE_GLOBAL`` 0, ``THREAD_LOCAL`` 1,
                ``RELAXED`` 2), as an enum member or ``int`` (oxicuda's ``CUstreamCaptureMode`` is a ``u32``).

        Returns: an active capture.

        Errors: ``NotInitialized`` when the driver is unavailable (``try_driver``); then the driver's codes:
        ``InvalidValue`` (a mode outside the enum), ``StreamCaptureUnsupported`` (the legacy NULL stream, spec
        3.1), ``IllegalState`` (already capturing), ``InvalidHandle`` / ``ContextIsDestroyed``. ``TypeError``
        for a mode that is not an integer, ``OverflowError`` for one that does not fit ``u32``.
        """
        s = _as_stream(stream)  # (the stream's errors before the mode's, as oxicuda converts them)
        cap, s, drv = _begin_capture(cls, s, _u32(mode, "mode"))
        cap._stream = s
        cap._state = [True]
        weakref.finalize(cap, _end_abandoned, weakref.ref(drv), s.raw(), cap._state)
        return cap

    def is_active(self) -> bool:
        """Whether :meth:`end` has not ended the capture yet (oxicuda 0.5 ``is_active``: the object's own flag;
        a capture the driver invalidated stays active until :meth:`end` reports it)."""
        return self._state[0]

    def capture_status(self) -> Any:
        """The driver's capture status of the stream, ``cuStreamIsCapturing`` (oxicuda 0.5 ``capture_status``).

        Returns: a ``CUstreamCaptureStatus`` (``NONE`` 0, ``ACTIVE`` 1, ``INVALIDATED`` 2; an ``IntEnum``).

        Errors: ``NotInitialized`` when the driver is unavailable; the driver's codes for the stream
        (``InvalidHandle`` for a destroyed one...).
        """
        from ._generated.driver_enums import CUstreamCaptureStatus
        drv = self._stream.driver
        _try_driver(drv)
        with _translated():
            return CUstreamCaptureStatus(drv.stream_is_capturing(self._stream.raw()))

    def end(self) -> GraphExec:
        """End the capture (``cuStreamEndCapture``) and instantiate the captured graph (oxicuda 0.5 ``end``).

        Returns: a :class:`GraphExec` that owns the captured ``CUgraph`` and its ``CUgraphExec``
        (``cuGraphInstantiateWithFlags(graph, 0)``): :meth:`GraphExec.launch` replays the captured work with
        ``cuGraphLaunch``; :meth:`GraphExec.node_count` is the captured graph's node count
        (``cuGraphGetNodes``), and its :meth:`GraphExec.graph` a linear chain of that many empty nodes, as
        oxicuda models it (the captured edges are not re-read); :meth:`GraphExec.is_driver_backed` is true.
        Both handles are destroyed when the exec goes away.

        Errors: ``NotInitialized`` (driver); the driver's codes of ``cuStreamEndCapture``:
        ``IllegalState`` when the stream is not capturing (this capture was already ended: oxicuda's ``end``
        consumes the object, so Rust cannot call it twice), ``StreamCaptureInvalidated`` (the capture is over,
        no graph), ``StreamCaptureWrongThread`` (the capture goes on; :meth:`is_active` stays true); the codes
        of instantiation, after which the captured graph is destroyed, as in oxicuda.
        """
        s = self._stream
        drv = s.driver
        _try_driver(drv)
        try:
            hg = drv.stream_end_capture(s.raw())
        except DriverError as e:
            if int(e.code) != int(CUresult.CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD):
                self._state[0] = self._state[0] and _capturing(drv, s.raw())
            raise _translate(e) from None
        self._state[0] = False
        try:
            try:
                count = len(drv.graph_get_nodes(hg))
            except DriverError:
                count = 0  # oxicuda: query_node_count(...).unwrap_or(0)
            model = Graph()
            for i in range(count):
                model._nodes.append(GraphNode.Empty)
                if i:
                    model._deps.append((i - 1, i))
            order = model.topological_sort()
            hexec = drv.graph_instantiate(hg, 0)
        except DriverError as e:
            with contextlib.suppress(DriverError):
                drv.graph_destroy(hg)
            raise _translate(e) from None
        return GraphExec._captured(model, order, drv, hg, hexec)

    def __enter__(self) -> StreamGraphCapture:
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> Literal[False]:
        """The object goes away (oxicuda's ``Drop``): a capture still active is ended and its graph destroyed;
        an exception propagates."""
        _end_abandoned(weakref.ref(self._stream.driver), self._stream.raw(), self._state)
        return False

    def __repr__(self) -> str:
        state = "active" if self._state[0] else "ended"
        return f"<StreamGraphCapture on stream 0x{self._stream.raw():x}, {state}>"


def _capturing(drv: Driver, h: int) -> bool:
    """Whether stream ``h`` is still capturing (errors: no)."""
    try:
        return drv.stream_is_capturing(h) != 0
    except DriverError:
        return False


def _u32(v: Any, what: str) -> int:
    """A ``u32`` argument: an ``int`` (or enum member) in [0, 2**32) (TypeError / OverflowError otherwise)."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{what} must be an int (u32), not {type(v).__name__}")
    if not 0 <= int(v) < _U32:
        raise OverflowError(f"{what} {int(v)} does not fit u32")
    return int(v)
