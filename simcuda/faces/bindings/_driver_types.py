"""Wrapper handle types and parameter structs of the simulated ``cuda.bindings.driver``.

Why this file is long (over ~700 lines): it holds every kind of class of the real module (handles, value wrappers,
structs) with its conversion, the one set of rules the Python faces share.

Every class of the real module exists here with the same name and base classes (the list, the
kinds and the value widths are generated from the real wheel into
:mod:`simcuda._generated.driver_outputs`). Observable behaviour copied from cuda-bindings 13.5.0:

* Pointer handles (``CUstream``, ``CUgraph``, ``CUgraphNode``, ``CUcontext`` ...): ``repr`` in hex
  (``<CUstream 0x5>``), value equality within one class (``CUstream(5) == CUstream(5)``, but
  ``CUstream(5) != 5`` and ``!= CUevent(5)``), ``hash`` of the value, ``__index__``, ordering
  raises ``TypeError``.
* Value wrappers (``CUdevice``, ``CUdeviceptr``, ``cuuint64_t``, ``cuuint32_t`` ...): decimal
  ``repr`` (``<CUdevice 0>``), **no** value equality (spec 11.1: compare ``int(id)``), no
  ``__index__``.
* Callback pointers (``CUhostFn``, ``CUstreamCallback`` ...): hex ``repr``, ``__index__``, no value
  equality; a Python callable or a ctypes ``CFUNCTYPE`` object is refused with
  ``TypeError: an integer is required`` (spec 3.9).
* Constructors take ``(init_value=0, _ptr=0)``; anything without ``__int__`` (``str``, ``None``)
  raises ``TypeError: an integer is required``; negative or too wide values raise ``OverflowError``.
  ``getPtr()`` gives the address of real memory holding the value (made on first use); with
  ``_ptr`` the wrapper reads and writes the C value at that address, as the real one does.
* Structs: no keyword arguments (``TypeError: __cinit__() got an unexpected keyword argument
  'to_port'``), typed fields with the real names, and the real ``repr`` (``field : value`` lines,
  nested structs indented by four spaces, void pointers in hex, invalid enums as ``<ValueError>``).

Structs the simulator does not read are placeholders with the real field names; their fields
accept any value and start at 0.
"""
from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from ..._core.modules.arg_slots import buffer_address as buffer_address  # re-exported: the faces' name
from ..._generated import driver_enums as _E
from ..._generated.driver_outputs import CLASSES
from ._scalars import Wrapper as Wrapper  # re-exported: the faces' names
from ._scalars import c_int as c_int
from ._scalars import c_uint as c_uint
from ._scalars import is_enum_member as is_enum_member
from ._scalars import to_int as to_int

__all__ = ["to_int", "void_ptr", "Wrapper", "Struct", "build_classes", "Result"]

#: what every function of a tuple-returning face (driver, runtime, NVRTC) returns: its status (``CUresult``,
#: ``cudaError_t``, ``nvrtcResult``), then its outputs in the order of the real docstring, each ``None`` after
#: an error (the outputs are listed in each function's docstring header)
Result = tuple[Any, ...]

_T = TypeVar("_T")

_VOIDP_ERR = "Provided argument is of type {} but expected Type None, int or object with Buffer Protocol"


def c_enum(x: Any, arg: str, cname: str) -> int:
    """An enum argument of the classic wrappers: ``None`` raises ``TypeError: Argument '<arg>' must not be
    None``; the value goes through Python's ``int()`` (so ``'abc'`` raises ``ValueError: invalid literal
    for int()``, as in the real wrapper), then into the C enum (``OverflowError`` beyond 32 bits)."""
    if x is None:
        raise TypeError(f"Argument '{arg}' must not be None")
    v = x if type(x) is int else int(x)
    if not -(1 << 63) <= v < 1 << 63:
        raise OverflowError("Python int too large to convert to C long")
    if not -(1 << 31) <= v < 1 << 32:
        raise OverflowError(f"value too large to convert to {cname}")
    return v


def check_calloc(n: int, itemsize: int = 8) -> None:
    """The real wrappers ``calloc(n, itemsize)`` an output array before calling the driver and raise
    ``MemoryError: Failed to allocate length x size memory: NxS`` when that fails; after the call they build
    a Python list of ``n`` objects, which for a huge ``n`` exhausts the machine (the process is killed).
    The simulator raises that MemoryError at once when the output list (8 bytes an entry: the padding
    shares one object) would take more than half of the memory available now [inferred threshold]; below
    that the call goes on, as on the real binding."""
    from ..._core.memory.hostmem import available_memory
    limit = available_memory() // 2
    if n * itemsize > (limit or 1 << 40):
        raise MemoryError(f"Failed to allocate length x size memory: {n}x{itemsize}")


def padded(items: list[_T], n: int, filler: _T) -> list[_T]:
    """An output list of exactly ``n`` entries: ``items`` (cut to ``n``), then ``filler`` repeated. The
    repetition shares one object, so a huge count costs one list, never one object per entry."""
    check_calloc(n)
    if n <= len(items):
        return items[:n]
    return items + [filler] * (n - len(items))


def _as_address(x: Any) -> int | None:
    """``<void_ptr>x`` of the real helper: the value when ``x`` converts to an integer in [0, 2**64), else None."""
    if type(x) is int:
        return x if 0 <= x < 1 << 64 else None
    f = getattr(type(x), "__int__", None)
    if f is None:
        return None
    try:
        v = f(x)
    except Exception:  # the real helper catches every failure of the conversion and tries the buffer
        return None
    return int(v) if isinstance(v, int) and 0 <= v < 1 << 64 else None


def void_ptr(x: Any) -> int:
    """A ``void*`` argument as the real helper takes it: None, an int address, or a buffer."""
    x = check_void_ptr_obj(x)
    if x is None:
        return 0
    if isinstance(x, int):
        return x
    return buffer_address(x)[0]


def check_void_ptr_obj(x: Any) -> Any:
    """A ``void*`` argument converted as cuda-bindings' ``_HelperInputVoidPtr`` does, keeping a buffer
    object itself (host buffers of copies are read when the work runs).

    First the conversion to an unsigned 64-bit address is tried (an ``int``, or anything with
    ``__int__``: ``1.5`` is address 1, a ``CUdeviceptr`` its value, a one-element numpy array its
    element, as in the real helper); when it fails (no ``__int__``, a negative or too wide value), ``None``
    is NULL and an object with the buffer protocol is taken as a buffer; anything else raises
    ``TypeError: Provided argument is of type <class '...'> but expected Type None, int or object with
    Buffer Protocol`` (a negative ``int`` included). Returns an ``int``, ``None`` or the buffer object.
    """
    a = _as_address(x)
    if a is not None:
        return a
    if x is None:
        return None
    try:
        memoryview(x)
    except TypeError:
        raise TypeError(_VOIDP_ERR.format(type(x))) from None
    return x


# ---------------------------------------------------------------------------------- wrappers
_CTYPES = {(64, False): ctypes.c_uint64, (64, True): ctypes.c_int64, (32, False): ctypes.c_uint32,
           (32, True): ctypes.c_int32}


class _Index:
    """Mixin: ``__index__`` (pointer handles and callbacks have it; value wrappers do not)."""

    __slots__ = ()
    if TYPE_CHECKING:  # the Wrapper it is mixed into
        def __int__(self) -> int: ...

    def __index__(self) -> int:
        return int(self)


class _Eq:
    """Mixin: value equality within one class, hash of the value, no ordering (pointer handles)."""

    __slots__ = ()
    if TYPE_CHECKING:  # the Wrapper it is mixed into
        def __int__(self) -> int: ...

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, type(self)) or isinstance(self, type(other)):
            return int(self) == int(other)
        return False

    def __ne__(self, other: Any) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(int(self))

    def __lt__(self, other: Any) -> bool:
        return NotImplemented

    __le__ = __gt__ = __ge__ = __lt__


#: the C type names the real wrappers' OverflowError texts use, where not the default of their width
_CNAMES = {"cuuint32_t": "uint32_t", "VdpDevice": "uint32_t", "VdpOutputSurface": "uint32_t",
           "VdpVideoSurface": "uint32_t", "CUlogicalEndpointId": "uint32_t", "cuuint64_t": "uint64_t",
           "CUgraphConditionalHandle": "uint64_t"}


def _wrapper_class(name: str, kind: str, bits: int, signed: bool) -> type[Any]:
    bases: tuple[type, ...] = (
        (_Eq, _Index, Wrapper) if kind == "ptr" else (_Index, Wrapper) if kind == "callback" else (Wrapper,))
    doc = {"ptr": "opaque handle: hex repr, value equality within the class, hashable, __index__",
           "callback": "function pointer: hex repr, __index__, no value equality; callables are refused",
           "value": "C value: decimal repr, no value equality (compare int(x)), no __index__"}[kind]
    ns = {
        "__slots__": (),
        "__module__": _FACE,
        "__doc__": f"{name}(init_value=0, _ptr=0)\n\nSimulated ``cuda.bindings.driver.{name}`` ({doc}).\n"
                   "``int(x)`` gives the value; ``getPtr()`` the address of real memory holding it.",
        "_ctype": _CTYPES[(bits, signed)],
        "_lo": -(2 ** (bits - 1)) if signed else 0,
        "_hi": 2 ** (bits - 1) - 1 if signed else 2 ** bits - 1,
        "_hex": kind != "value",
        "_cname": _CNAMES.get(name, ("int" if signed else "unsigned int") if bits == 32 else
                              ("long" if signed else "unsigned PY_LONG_LONG")),
    }
    if name == "CUstream":
        ns["__cuda_stream__"] = lambda self: (0, int(self))
    return type(name, bases, ns)


# ---------------------------------------------------------------------------------- structs
class _Missing:
    pass


_MISSING = _Missing()

_CLS: dict[str, type[Any]] = {}
_FACE = "simcuda.faces.bindings.driver"  # where the classes are published (pickle finds them there)


class Struct:
    """Base of the simulated parameter structs: typed fields, no keyword construction.

    Subclasses list ``_fields`` as ``(name, kind, arg)`` in C declaration order. Kinds:
    ``u``/``i`` (unsigned/signed integer of ``arg`` bits), ``f`` (float), ``h`` (a wrapper class
    name), ``e`` (an enum class name; stored as int, read back as the enum), ``p`` (``void*``:
    keeps the object, reads back its address), ``fp`` (``void*`` that also takes handle objects
    such as ``CUfunction``), ``x`` (``void_ptr``: int only), ``kp`` (kernel parameters: any form
    ``cuLaunchKernel`` takes), ``s`` (a nested struct class name), ``l`` (a list of struct class
    name), ``dim`` (a ``dim3`` component: unsigned 32 bits, starts at 1), ``raw`` (any value,
    starts at ``arg`` or ``arg()``), ``name`` (``bytes``, printed decoded), ``hex`` (``bytes``
    printed in hex), ``any`` (placeholder: any value).

    The face a struct belongs to is given by class attributes, which a face's own base (the
    runtime's) overrides: ``_enums`` (the module holding the enum classes), ``_classes`` (the face's
    classes by name), ``_specs`` (field tables of the structs the simulator reads), ``_face`` (the
    module the classes are published in), ``_placeholder`` (the ``(kind, arg)`` of a placeholder
    struct's fields), ``_placeholder_note`` (the docstring note of a placeholder struct) and
    ``_str_kinds`` (kinds printed with ``str`` rather than ``repr``).
    """

    __slots__ = ("_d", "_keep")
    _fields: tuple[tuple[str, str, Any], ...] = ()  # (name, kind, arg)
    _kinds: ClassVar[dict[str, tuple[str, Any]]] = {}  # name -> (kind, arg)
    _enums: Any = _E
    _classes: dict[str, type[Any]] = _CLS
    _specs: ClassVar[dict[str, list[tuple[str, str, Any]]]] = {}  # set to SPECS below
    _face = _FACE
    _placeholder: tuple[str, Any] = ("any", None)
    _placeholder_note = "Placeholder: the simulator does not read this struct; its fields accept any value."
    _str_kinds: frozenset[str] = frozenset()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            raise TypeError(f"__cinit__() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if len(args) > 1:
            raise TypeError(f"__cinit__() takes at most 1 positional argument ({len(args)} given)")
        if args and to_int(args[0]):
            raise TypeError(f"simcuda: {type(self).__name__}(_ptr) over existing memory is not simulated; "
                            "create the struct and assign its fields")
        object.__setattr__(self, "_keep", None)
        classes = self._classes
        object.__setattr__(self, "_d", {name: _default(kind, arg, classes) for name, kind, arg in self._fields})

    def __getattr__(self, name: str) -> Any:
        try:
            d = object.__getattribute__(self, "_d")
        except AttributeError:
            raise AttributeError(name) from None
        if name not in d:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        kind, arg = self._kinds[name]
        v = d[name]
        if kind == "e":
            return getattr(self._enums, arg)(v)  # ValueError for a value outside the enum, like the real getter
        if kind in ("p", "fp"):
            return v if isinstance(v, int) else (void_ptr(v) if v is not None else 0)
        if kind == "kp":
            return _kernel_params_address(self, v)
        return v

    def __setattr__(self, name: str, value: Any) -> None:
        spec = self._kinds.get(name)
        if spec is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        self._d[name] = self._convert(name, spec[0], spec[1], value)

    @classmethod
    def _convert(cls, field: str, kind: str, arg: Any, value: Any) -> Any:
        """``value`` converted for field ``field`` of kind ``kind`` (the real setter's checks and errors)."""
        return _convert(kind, arg, value, cls._classes)

    def __dir__(self) -> list[str]:
        return sorted(set(object.__dir__(self)) | {f for f, _, _ in self._fields})

    def _raw(self, name: str) -> Any:
        """The stored value (host objects kept as given; enums as int)."""
        return self._d[name]

    def getPtr(self) -> int:
        """Address of a C image of the struct (only for structs with a known layout)."""
        layout = _LAYOUTS.get(getattr(type(self), "_root", ""))
        if layout is None:
            raise NotImplementedError(f"simcuda: getPtr() of {type(self).__name__} is not simulated")
        c = layout(self)
        object.__setattr__(self, "_keep", c)
        return ctypes.addressof(c)

    def __repr__(self) -> str:
        lines = []
        for name, kind, _arg in self._fields:
            try:
                v = getattr(self, name)
            except ValueError:
                lines.append(f"{name} : <ValueError>")
                continue
            if kind == "s":
                lines.append(f"{name} :")
                lines.extend("    " + ln for ln in repr(v).splitlines())
            elif kind in ("p", "fp"):
                lines.append(f"{name} : 0x{v:x}")
            elif kind == "name":
                text = v.split(b"\0")[0].decode("utf-8", "replace")
                lines.append(f"{name} : {text}")
            elif kind == "hex":
                lines.append(f"{name} : {v.hex()}")
            elif kind in self._str_kinds:
                lines.append(f"{name} : {v}")
            else:
                lines.append(f"{name} : {v!r}")
        return "\n".join(lines)


def _default(kind: str, arg: Any, classes: dict[str, type[Any]] = _CLS) -> Any:
    if kind == "h":
        return classes[arg]._mk(0)
    if kind == "s":
        return classes[arg]()
    if kind == "l":
        return []
    if kind == "f":
        return 0.0
    if kind == "dim":
        return 1
    if kind in ("name", "hex"):
        return bytes(arg or 0)
    if kind == "raw":
        return arg() if callable(arg) else arg
    return 0


_UNAMES = {8: "unsigned char", 16: "unsigned short", 32: "unsigned int", 64: "size_t"}
_INAMES = {8: "signed char", 16: "short", 32: "int", 64: "long"}


def _convert(kind: str, arg: Any, value: Any, classes: dict[str, type[Any]] = _CLS) -> Any:
    if kind == "u":
        return c_uint(value, arg, _UNAMES.get(arg, "unsigned int"))
    if kind == "i":
        return c_int(value, arg, _INAMES.get(arg, "int"))
    if kind == "h":
        cls = classes[arg]
        if isinstance(value, cls):
            return value
        return cls(0 if value is None else value)
    if kind == "e":
        return to_int(value)
    if kind == "p":
        return check_void_ptr_obj(value)
    if kind == "fp":
        if value is None or isinstance(value, int):
            return int(value or 0)
        if hasattr(type(value), "__index__") or isinstance(value, Wrapper):
            return int(value)
        return check_void_ptr_obj(value)
    if kind == "x":
        if not isinstance(value, int):
            raise TypeError("an integer is required")
        return int(value)
    if kind == "kp":
        if value is None:
            return 0
        return value
    if kind == "f":
        return float(value)
    if kind == "s":
        cls = classes[arg]
        if not isinstance(value, cls):
            raise TypeError(f"Argument has incorrect type (expected cuda.bindings.driver.{arg}, "
                            f"got {type(value).__name__})")
        return value
    if kind == "l":
        n = len(value)  # TypeError "object of type ... has no len()" like the real setter
        cls = classes[arg]
        if not all(isinstance(x, cls) for x in value):
            raise TypeError(f"Argument is not instance of type (expected tuple[cydriver.{arg},] or "
                            f"list[cydriver.{arg},]")
        del n
        return list(value)
    return value  # "any": placeholder field


def _kernel_params_address(st: Struct, v: Any) -> int:
    """The ``void**`` address the real setter would store for ``kernelParams``."""
    if isinstance(v, int):
        return v
    if v is None:
        return 0
    from ._kernel_params import pack  # the packing rules live with cuLaunchKernel's
    arr = pack(v)
    object.__setattr__(st, "_keep", arr)
    return ctypes.addressof(arr) if arr is not None else 0


# C layouts for getPtr() of the structs whose address the simulator may be handed back: the generated ones
def _edge_layout(st: Struct) -> Any:
    from ..._generated.cydriver_ctypes import CUgraphEdgeData  # lazy: the layouts module is large
    return CUgraphEdgeData(st.from_port, st.to_port, st.type)


_LAYOUTS: dict[str, Callable[[Struct], Any]] = {}

#: field specs of the structs the simulator reads (C declaration order, as the real repr prints)
_U32, _U64, _U8 = ("u", 32), ("u", 64), ("u", 8)
SPECS: dict[str, list[tuple[str, str, Any]]] = {
    "CUgraphEdgeData_st": [("from_port", *_U8), ("to_port", *_U8), ("type", *_U8)],
    "CUDA_KERNEL_NODE_PARAMS_v2_st": [
        ("func", "h", "CUfunction"), ("gridDimX", *_U32), ("gridDimY", *_U32), ("gridDimZ", *_U32),
        ("blockDimX", *_U32), ("blockDimY", *_U32), ("blockDimZ", *_U32), ("sharedMemBytes", *_U32),
        ("kernelParams", "kp", None), ("extra", "x", None), ("kern", "h", "CUkernel"), ("ctx", "h", "CUcontext")],
    "CUDA_MEMCPY3D_st": [
        ("srcXInBytes", *_U64), ("srcY", *_U64), ("srcZ", *_U64), ("srcLOD", *_U64),
        ("srcMemoryType", "e", "CUmemorytype"), ("srcHost", "p", None), ("srcDevice", "h", "CUdeviceptr"),
        ("srcArray", "h", "CUarray"), ("srcPitch", *_U64), ("srcHeight", *_U64),
        ("dstXInBytes", *_U64), ("dstY", *_U64), ("dstZ", *_U64), ("dstLOD", *_U64),
        ("dstMemoryType", "e", "CUmemorytype"), ("dstHost", "p", None), ("dstDevice", "h", "CUdeviceptr"),
        ("dstArray", "h", "CUarray"), ("dstPitch", *_U64), ("dstHeight", *_U64),
        ("WidthInBytes", *_U64), ("Height", *_U64), ("Depth", *_U64)],
    "CUDA_MEMCPY2D_st": [
        ("srcXInBytes", *_U64), ("srcY", *_U64), ("srcMemoryType", "e", "CUmemorytype"), ("srcHost", "p", None),
        ("srcDevice", "h", "CUdeviceptr"), ("srcArray", "h", "CUarray"), ("srcPitch", *_U64),
        ("dstXInBytes", *_U64), ("dstY", *_U64), ("dstMemoryType", "e", "CUmemorytype"), ("dstHost", "p", None),
        ("dstDevice", "h", "CUdeviceptr"), ("dstArray", "h", "CUarray"), ("dstPitch", *_U64),
        ("WidthInBytes", *_U64), ("Height", *_U64)],
    "CUDA_MEMSET_NODE_PARAMS_st": [
        ("dst", "h", "CUdeviceptr"), ("pitch", *_U64), ("value", *_U32), ("elementSize", *_U32),
        ("width", *_U64), ("height", *_U64)],
    "CUDA_HOST_NODE_PARAMS_st": [("fn", "h", "CUhostFn"), ("userData", "p", None)],
    "CUDA_HOST_NODE_PARAMS_v2_st": [("fn", "h", "CUhostFn"), ("userData", "p", None), ("syncMode", *_U32),
                                    ("ctx", "h", "CUcontext"), ("gCtx", "h", "CUgreenCtx")],
    "CUDA_GRAPH_INSTANTIATE_PARAMS_st": [
        ("flags", "h", "cuuint64_t"), ("hUploadStream", "h", "CUstream"), ("hErrNode_out", "h", "CUgraphNode"),
        ("result_out", "e", "CUgraphInstantiateResult")],
    "CUgraphExecUpdateResultInfo_st": [
        ("result", "e", "CUgraphExecUpdateResult"), ("errorNode", "h", "CUgraphNode"),
        ("errorFromNode", "h", "CUgraphNode")],
    "CUexecAffinitySmCount_st": [("val", *_U32)],
    "CUDA_ARRAY_DESCRIPTOR_st": [("Width", *_U64), ("Height", *_U64), ("Format", "e", "CUarray_format"),
                                 ("NumChannels", *_U32)],
    "CUexecAffinityParam_st": [("type", "e", "CUexecAffinityType"), ("param", "s", "_ExecAffinityUnion")],
    "CUctxCigParam_st": [("sharedDataType", "e", "CUcigDataType"), ("sharedData", "p", None)],
    "CUctxCreateParams_st": [("execAffinityParams", "l", "CUexecAffinityParam"), ("numExecAffinityParams", "i", 32),
                             ("cigParams", "l", "CUctxCigParam")],
    "CUstreamCigParam_st": [("streamSharedDataType", "e", "CUstreamCigDataType"), ("streamSharedData", "p", None)],
    "CUstreamCigCaptureParams_st": [("streamCigParams", "l", "CUstreamCigParam")],
    "CUlaunchAttribute_st": [("id", "e", "CUlaunchAttributeID"), ("value", "s", "CUlaunchAttributeValue")],
    "CUlaunchConfig_st": [
        ("gridDimX", *_U32), ("gridDimY", *_U32), ("gridDimZ", *_U32), ("blockDimX", *_U32), ("blockDimY", *_U32),
        ("blockDimZ", *_U32), ("sharedMemBytes", *_U32), ("hStream", "h", "CUstream"),
        ("attrs", "l", "CUlaunchAttribute"), ("numAttrs", *_U32)],
}
# graph node parameter structs (graph API; field order and kinds as cuda-bindings 13.5.0 prints them)
_KERNEL_V2 = SPECS["CUDA_KERNEL_NODE_PARAMS_v2_st"]
_MEM_ALLOC = [("poolProps", "s", "CUmemPoolProps"), ("accessDescs", "l", "CUmemAccessDesc"),
              ("accessDescCount", *_U64), ("bytesize", *_U64), ("dptr", "h", "CUdeviceptr")]
_MEMOP_VALUE = [("operation", "e", "CUstreamBatchMemOpType"), ("address", "h", "CUdeviceptr"),
                ("value", "h", "cuuint32_t"), ("value64", "h", "cuuint64_t"), ("flags", *_U32),
                ("alias", "h", "CUdeviceptr")]
_BATCH = [("ctx", "h", "CUcontext"), ("count", *_U32), ("paramArray", "l", "CUstreamBatchMemOpParams"),
          ("flags", *_U32)]
_EXT_SIGNAL = [("extSemArray", "l", "CUexternalSemaphore"),
               ("paramsArray", "l", "CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS"), ("numExtSems", *_U32)]
_EXT_WAIT = [("extSemArray", "l", "CUexternalSemaphore"), ("paramsArray", "l", "CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS"),
             ("numExtSems", *_U32)]
_GCTX = [("ctx", "h", "CUcontext"), ("gCtx", "h", "CUgreenCtx")]
SPECS.update({
    "CUDA_KERNEL_NODE_PARAMS_v3_st": _KERNEL_V2,
    "CUDA_MEMSET_NODE_PARAMS_v2_st": SPECS["CUDA_MEMSET_NODE_PARAMS_st"] + [("ctx", "h", "CUcontext")],
    "CUDA_MEMCPY_NODE_PARAMS_st": [("flags", "i", 32), ("copyCtx", "h", "CUcontext"),
                                   ("copyParams", "s", "CUDA_MEMCPY3D")],
    "CUDA_CHILD_GRAPH_NODE_PARAMS_st": [("graph", "h", "CUgraph"),
                                        ("ownership", "e", "CUgraphChildGraphNodeOwnership")],
    "CUDA_EVENT_RECORD_NODE_PARAMS_st": [("event", "h", "CUevent"), *_GCTX],
    "CUDA_EVENT_WAIT_NODE_PARAMS_st": [("event", "h", "CUevent")],
    "CUDA_MEM_FREE_NODE_PARAMS_st": [("dptr", "h", "CUdeviceptr")],
    "CUDA_MEM_ALLOC_NODE_PARAMS_v1_st": _MEM_ALLOC,
    "CUDA_MEM_ALLOC_NODE_PARAMS_v2_st": _MEM_ALLOC,
    "CUmemPoolProps_st": [("allocType", "e", "CUmemAllocationType"), ("handleTypes", "e", "CUmemAllocationHandleType"),
                          ("location", "s", "CUmemLocation"), ("win32SecurityAttributes", "p", None),
                          ("maxSize", *_U64), ("usage", "u", 16), ("gpuDirectRDMACapable", *_U8)],
    "CUmemLocation_st": [("type", "e", "CUmemLocationType"), ("id", "i", 32), ("localized", "s", "anon_struct22")],
    "anon_struct22": [("deviceId", "i", 32), ("localityDomainId", "i", 32)],
    "CUmemAccessDesc_st": [("location", "s", "CUmemLocation"), ("flags", "e", "CUmemAccess_flags")],
    "CUDA_BATCH_MEM_OP_NODE_PARAMS_v1_st": _BATCH,
    "CUDA_BATCH_MEM_OP_NODE_PARAMS_v2_st": _BATCH,
    "CUstreamBatchMemOpParams_union": [
        ("operation", "e", "CUstreamBatchMemOpType"), ("waitValue", "s", "CUstreamMemOpWaitValueParams_st"),
        ("writeValue", "s", "CUstreamMemOpWriteValueParams_st"),
        ("flushRemoteWrites", "s", "CUstreamMemOpFlushRemoteWritesParams_st"),
        ("memoryBarrier", "s", "CUstreamMemOpMemoryBarrierParams_st"),
        ("atomicReduction", "s", "CUstreamMemOpAtomicReductionParams_st"), ("pad", "any", None)],
    "CUstreamMemOpWaitValueParams_st": _MEMOP_VALUE,
    "CUstreamMemOpWriteValueParams_st": _MEMOP_VALUE,
    "CUstreamMemOpFlushRemoteWritesParams_st": [("operation", "e", "CUstreamBatchMemOpType"), ("flags", *_U32)],
    "CUstreamMemOpMemoryBarrierParams_st": [("operation", "e", "CUstreamBatchMemOpType"), ("flags", *_U32)],
    "CUstreamMemOpAtomicReductionParams_st": [
        ("operation", "e", "CUstreamBatchMemOpType"), ("flags", *_U32),
        ("reductionOp", "e", "CUstreamAtomicReductionOpType"), ("dataType", "e", "CUstreamAtomicReductionDataType"),
        ("address", "h", "CUdeviceptr"), ("value", "h", "cuuint64_t"), ("alias", "h", "CUdeviceptr")],
    "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS_st": _EXT_SIGNAL,
    "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS_v2_st": _EXT_SIGNAL + _GCTX,
    "CUDA_EXT_SEM_WAIT_NODE_PARAMS_st": _EXT_WAIT,
    "CUDA_EXT_SEM_WAIT_NODE_PARAMS_v2_st": _EXT_WAIT + _GCTX,
    "CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_st": [("params", "s", "anon_struct16"), ("flags", *_U32)],
    "anon_struct16": [("fence", "s", "anon_struct14"), ("nvSciSync", "s", "anon_union8"),
                      ("keyedMutex", "s", "anon_struct15")],
    "anon_struct14": [("value", *_U64)],
    "anon_union8": [("fence", "p", None)],
    "anon_struct15": [("key", *_U64)],
    "CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS_st": [("params", "s", "anon_struct19"), ("flags", *_U32)],
    "anon_struct19": [("fence", "s", "anon_struct17"), ("nvSciSync", "s", "anon_union9"),
                      ("keyedMutex", "s", "anon_struct18")],
    "anon_struct17": [("value", *_U64)],
    "anon_union9": [("fence", "p", None)],
    "anon_struct18": [("key", *_U64), ("timeoutMs", *_U32)],
    "CUgraphNodeParams_st": [
        ("type", "e", "CUgraphNodeType"), ("kernel", "s", "CUDA_KERNEL_NODE_PARAMS_v3"),
        ("memcpy", "s", "CUDA_MEMCPY_NODE_PARAMS"), ("memset", "s", "CUDA_MEMSET_NODE_PARAMS_v2"),
        ("host", "s", "CUDA_HOST_NODE_PARAMS_v2"), ("graph", "s", "CUDA_CHILD_GRAPH_NODE_PARAMS"),
        ("eventWait", "s", "CUDA_EVENT_WAIT_NODE_PARAMS"), ("eventRecord", "s", "CUDA_EVENT_RECORD_NODE_PARAMS"),
        ("extSemSignal", "s", "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS_v2"),
        ("extSemWait", "s", "CUDA_EXT_SEM_WAIT_NODE_PARAMS_v2"), ("alloc", "s", "CUDA_MEM_ALLOC_NODE_PARAMS_v2"),
        ("free", "s", "CUDA_MEM_FREE_NODE_PARAMS"), ("memOp", "s", "CUDA_BATCH_MEM_OP_NODE_PARAMS_v2"),
        ("conditional", "s", "CUDA_CONDITIONAL_NODE_PARAMS"), ("memcpyBatch", "any", None),
        ("fabricCpyBatch", "any", None),
        ("asBytes", "any", None)],
})

# conditional nodes (topic: conditional): CUDA_CONDITIONAL_NODE_PARAMS (P-21); ``phGraph_out`` the body graphs the
# driver writes on cuGraphAddNode (a CUDA-owned array: the real getter reads ``size`` handles from it)
SPECS["CUDA_CONDITIONAL_NODE_PARAMS"] = [
    ("handle", "h", "CUgraphConditionalHandle"), ("type", "e", "CUgraphConditionalNodeType"), ("size", "u", 32),
    ("phGraph_out", "l", "CUgraph"), ("ctx", "h", "CUcontext")]
# virtual memory management (topic: vmm): field order and kinds as cuda-bindings 13.5.0 prints them
SPECS.update({
    "CUmemAllocationProp_st": [("type", "e", "CUmemAllocationType"),
                               ("requestedHandleTypes", "e", "CUmemAllocationHandleType"),
                               ("location", "s", "CUmemLocation"), ("win32HandleMetaData", "p", None),
                               ("allocFlags", "s", "anon_struct23")],
    "anon_struct23": [("compressionType", *_U8), ("gpuDirectRDMACapable", *_U8), ("usage", "u", 16)],
})

# CUlaunchAttributeValue (cuLaunchKernelEx's attributes, kernel node and stream attributes): the cluster shapes are
# nested structs (the real names of their nameless types: anon_struct1 / anon_struct4); the other members stay
# placeholder fields, as the launch reads only programmaticStreamSerializationAllowed
_LAUNCH_VALUE = ("accessPolicyWindow", "clusterDim", "clusterSchedulingPolicyPreference", "cooperative",
                 "deviceUpdatableKernelNode", "launchCompletionEvent", "memSyncDomain", "memSyncDomainMap",
                 "nvlinkUtilCentricScheduling", "pad", "portableClusterSizeMode", "preferredClusterDim", "priority",
                 "programmaticEvent", "programmaticStreamSerializationAllowed", "sharedMemCarveout",
                 "sharedMemoryMode", "syncPolicy")
_CLUSTER_SHAPES = {"clusterDim": "anon_struct1", "preferredClusterDim": "anon_struct4"}
SPECS.update({
    "CUlaunchAttributeValue_union": [(n, "s", _CLUSTER_SHAPES[n]) if n in _CLUSTER_SHAPES else (n, "any", None)
                                     for n in _LAUNCH_VALUE],
    "anon_struct1": [("x", *_U32), ("y", *_U32), ("z", *_U32)],
    "anon_struct4": [("x", *_U32), ("y", *_U32), ("z", *_U32)],
})

# 3D batched copies (topic: batch3d): CUDA_MEMCPY3D_BATCH_OP and its nested operands (cuMemcpy3DBatchAsync); the
# real names of the nameless union ``op`` and its members ``ptr`` / ``array`` are anon_union16 / anon_struct24 / 25
SPECS.update({
    "CUDA_MEMCPY3D_BATCH_OP_st": [("src", "s", "CUmemcpy3DOperand"), ("dst", "s", "CUmemcpy3DOperand"),
                                  ("extent", "s", "CUextent3D"), ("srcAccessOrder", "e", "CUmemcpySrcAccessOrder"),
                                  ("flags", *_U32)],
    "CUmemcpy3DOperand_st": [("type", "e", "CUmemcpy3DOperandType"), ("op", "s", "anon_union16")],
    "anon_union16": [("ptr", "s", "anon_struct24"), ("array", "s", "anon_struct25")],
    "anon_struct24": [("ptr", "h", "CUdeviceptr"), ("rowLength", *_U64), ("layerHeight", *_U64),
                      ("locHint", "s", "CUmemLocation")],
    "anon_struct25": [("array", "h", "CUarray"), ("offset", "s", "CUoffset3D")],
    "CUextent3D_st": [("width", *_U64), ("height", *_U64), ("depth", *_U64)],
    "CUoffset3D_st": [("x", *_U64), ("y", *_U64), ("z", *_U64)],
})

Struct._specs = SPECS


def struct_class(name: str, bases: tuple[str, ...], fields: tuple[str, ...], base: type[Struct] = Struct) -> type[Any]:
    """The struct class ``name`` of the face whose struct base is ``base``: its fields from
    ``base._specs`` (looked up by the root of ``bases``, then by ``name``), else placeholder fields
    ``fields`` of kind ``base._placeholder``; derived from the face's class of ``bases[0]`` when that
    exists, else from ``base``."""
    classes, specs = base._classes, base._specs
    root = bases[-1] if bases else name
    spec = specs.get(root) or specs.get(name)
    placeholder = spec is None
    if spec is None:
        spec = [(f, *base._placeholder) for f in fields]
    parent = classes[bases[0]] if bases and bases[0] in classes else base
    doc = (f"{name}()\n\nSimulated ``cuda.{base._face.split('.', 1)[1]}.{name}``: create it with no arguments "
           "(keywords raise TypeError, as in the real binding), then assign fields: "
           + ", ".join(f"``{f}``" for f, _, _ in spec) + ".")
    if placeholder:
        doc += "\n\n" + base._placeholder_note
    ns = {"__slots__": (), "__doc__": doc, "_fields": tuple(spec), "_kinds": {f: (k, a) for f, k, a in spec},
          "_root": root, "__module__": base._face}
    return type(name, (parent,), ns)


class _Placeholder:
    """Base of real classes the simulator has no use for (anonymous unions, opaque helpers)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if kwargs:
            raise TypeError(f"__cinit__() got an unexpected keyword argument '{next(iter(kwargs))}'")


def _driver_handle(name: str, kind: str, detail: tuple[Any, ...], drv_base: str) -> type[Any]:
    return _wrapper_class(name, kind, *detail)


def build_face_classes(table: dict[str, tuple[Any, ...]], base: type[Struct] = Struct,
                       handle: Callable[[str, str, tuple[Any, ...], str], type[Any]] = _driver_handle,
                       first: tuple[str, ...] = ()) -> dict[str, type[Any]]:
    """Create every class of a face's generated class table ``table`` (``name -> (bases, kind,
    detail[, driver base])``) into ``base._classes`` and return them, keyed by name.

    Wrapper kinds (and entries with a driver base) derive from the class of their first base when
    there is one, else come from ``handle(name, kind, detail, driver_base)``; structs (kind
    ``struct`` or a name in ``base._specs``) come from :func:`struct_class`, those named in ``first``
    first; the rest are placeholders. Every class is published in module ``base._face``.
    """
    classes, face = base._classes, base._face
    order = sorted(table, key=lambda n: (len(table[n][0]), n))
    for name in order:
        bases, kind, detail = table[name][:3]
        drv = table[name][3] if len(table[name]) > 3 else ""
        if kind in ("ptr", "value", "callback") or drv:
            if bases and bases[0] in classes:
                parent = classes[bases[0]]
                classes[name] = type(name, (parent,), {"__slots__": (), "__doc__": parent.__doc__, "__module__": face})
            else:
                classes[name] = handle(name, kind, detail, drv)
    # structs: nested ones first (a struct's fields may name another struct)
    pending = [n for n in order if n not in classes and (table[n][1] == "struct" or n in base._specs)]
    pending.sort(key=lambda n: (n not in first, len(table[n][0]), n))
    for name in pending:
        bases, _kind, detail = table[name][:3]
        classes[name] = struct_class(name, bases, detail, base)
    for name in order:
        if name not in classes:
            bases = table[name][0]
            parent = classes.get(bases[0], _Placeholder) if bases else _Placeholder
            doc = f"{name}: placeholder for the real class (not simulated)."
            classes[name] = type(name, (parent,), {"__doc__": doc, "__module__": face})
    return dict(classes)


def build_classes() -> dict[str, type[Any]]:
    """Create every class of the real driver module (wrappers, structs, placeholders), keyed by name."""
    if _CLS:
        return dict(_CLS)
    build_face_classes(CLASSES)
    # the nested union of CUexecAffinityParam.param (real name: anon_union4)
    _CLS["_ExecAffinityUnion"] = struct_class("anon_union4", (), ())
    _CLS["_ExecAffinityUnion"]._fields = (("smCount", "s", "CUexecAffinitySmCount"),)
    _CLS["_ExecAffinityUnion"]._kinds = {"smCount": ("s", "CUexecAffinitySmCount")}
    _LAYOUTS["CUgraphEdgeData_st"] = _edge_layout
    return dict(_CLS)


def struct_sizeof(objType: Any, edge: type) -> int:
    """``sizeof(objType)`` of a face: 8 for the graph edge struct ``edge`` and its subclasses; ``TypeError``
    for anything else (``Unknown type`` for a non-type, "not simulated" for other types)."""
    if isinstance(objType, type) and issubclass(objType, edge):
        return 8
    if not isinstance(objType, type):
        raise TypeError(f"Unknown type: {objType}")
    raise TypeError(f"simcuda: sizeof({getattr(objType, '__name__', objType)}) is not simulated")


def not_simulated_stub(name: str, nouts: int, sig: str, face: str, err_name: str,
                       fail: Callable[[str, str], Any]) -> Callable[..., Result]:
    """The stub of a real function ``name`` (signature ``sig``, ``nouts`` outputs) that face ``face``
    does not simulate: it calls ``fail(name, why)``, which records the refusal and returns the error
    code, and returns ``(code, None, ...)``. ``err_name`` names that code in the docstring."""
    nones = (None,) * nouts
    why = f"{name} is not simulated by simcuda; it always returns {err_name} (see docs/supported-api.md)"

    def stub(*args: Any, **kwargs: Any) -> Result:
        return (fail(name, why), *nones)
    stub.__name__ = stub.__qualname__ = name
    stub.__module__ = face
    stub.__doc__ = (f"Not simulated: mirrors ``{sig}`` of cuda.{face.split('.', 1)[1]} 13.5 by name and output count "
                    f"only.\n\nAlways returns ``({err_name}{', None' * nouts})`` and records a ``why`` "
                    "(``simcuda.last_error()``).")
    stub.__simcuda_stub__ = True  # type: ignore[attr-defined]  # a marker attribute on the function object
    return stub


def install_stubs(g: dict[str, Any], outputs: dict[str, tuple[str, tuple[tuple[str, str], ...]]], face: str,
                  err_name: str, fail: Callable[[str, str], Any]) -> list[str]:
    """Put a :func:`not_simulated_stub` into namespace ``g`` for every function of ``outputs`` (``name ->
    (signature, outputs)``) that ``g`` lacks; returns their names."""
    made = []
    for name, (sig, outs) in outputs.items():
        if name not in g:
            g[name] = not_simulated_stub(name, len(outs), sig, face, err_name, fail)
            made.append(name)
    return made


def arity(sig: str) -> tuple[int, int]:
    """``(required, total)`` positional parameters of a real wrapper's signature line such as
    ``cuGraphGetNodes(hGraph, size_t numNodes=0)`` (a parameter with ``=`` has a default)."""
    inner = sig[sig.find("(") + 1:sig.rfind(")")]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        depth += (ch in "[(") - (ch in "])")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    params = [p for p in parts if p.strip()]
    return sum(1 for p in params if "=" not in p), len(params)


def arity_error(name: str, required: int, total: int, given: int) -> TypeError:
    """The ``TypeError`` a Cython wrapper raises for a wrong number of positional arguments, in its words
    (checked against the real wheel by tests/faces/test_arity.py)."""
    if total == 0:
        return TypeError(f"{name}() takes no arguments ({given} given)")
    if given < required:
        bound, n = ("exactly" if required == total else "at least"), required
    else:
        bound, n = ("exactly" if required == total else "at most"), total
    return TypeError(f"{name}() takes {bound} {n} positional argument{'' if n == 1 else 's'} ({given} given)")
