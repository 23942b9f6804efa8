"""The class-independent parts of the runtime face (:mod:`simcuda.faces.bindings.runtime`), shared by its loads.

The native route loads ``runtime.py`` a second time (``simcuda._patch``, :data:`runtime.NATIVE_NAME`) so that its
handle classes derive from NVIDIA's driver classes. What reads those classes is built per load; what does not (the
runtime-only error, the struct field tables, the memcpy kinds, the device-property table, the description of a
function) is here, once. :func:`install` is how a load defines the functions of its parts
(:mod:`~simcuda.faces.bindings._runtime_memory`, :mod:`~simcuda.faces.bindings._runtime_graphs`) in its own
namespace, so that they read that load's classes with no extra layer per call.
"""
from __future__ import annotations

import inspect as _inspect
import threading
from collections.abc import Callable
from types import FunctionType, ModuleType
from typing import Any, TypeVar

from ..._core.api import API as _API
from ..._core.api import RUNTIME as _RUNTIME
from ..._core.memory.memory_model import DEVICE as _DEV
from ..._core.memory.memory_model import HOST as _HOST
from ..._core.memory.memory_model import CopyParams as _CopyParams
from ..._generated import runtime_enums as _E
from ..._generated.runtime_outputs import DEVICE_PROP as _DEVICE_PROP
from . import _driver_types as _T

_F = TypeVar("_F", bound=Callable[..., Any])
cudaError_t = _E.cudaError_t
SUCCESS = cudaError_t.cudaSuccess
OK = (SUCCESS,)


class RtError(Exception):
    """A runtime-only failure: a ``cudaError_t`` with no ``CUresult`` twin (cudaErrorInvalidMemcpyDirection,
    cudaErrorInvalidPitchValue), for a rule only the runtime has, so no core entry can decide it. The face
    records it through :meth:`simcuda.Driver.refuse`. Nothing else may raise it: every other code comes
    from the core."""

    def __init__(self, err: int, why: str) -> None:
        self.err = cudaError_t(err)
        self.why = why
        super().__init__(f"{self.err.name} ({int(self.err)}): {why}")



# =========================================================================== parts loaded into each load
class Marks:
    """The ``@_rt(needs)`` decorator of a part of the runtime face: it records ``needs`` (``"ctx"``, ``"init"`` or
    ``"none"``, see ``runtime._rt``) per function name and returns the function unchanged; :func:`install` then wraps
    each copy in the loading module's own ``_rt``."""

    def __init__(self) -> None:
        self.needs: dict[str, str] = {}

    def __call__(self, needs: str = "ctx") -> Callable[[_F], _F]:
        def mark(fn: _F) -> _F:
            self.needs[fn.__name__] = needs
            return fn
        return mark


def install(ns: dict[str, Any], part: ModuleType, rt: Callable[[str], Callable[[Any], Any]]) -> None:
    """Define the functions of ``part`` in ``ns``, the namespace of one load of ``runtime.py``.

    Each top-level function ``part`` defines is copied (its code, defaults and docstring) with ``ns`` as its
    globals: it reads that load's classes (``_cudaStream_t``, ``_RCLS``...), its ``__module__`` is that load's
    name, and a call costs what it cost when the function was written in ``runtime.py`` itself. A function
    ``part`` marked with its :class:`Marks` is wrapped with ``rt(needs)``. The other names of ``part`` (its
    imports of shared helpers) are added to ``ns`` where ``ns`` lacks them; a name ``ns`` binds to another object
    is an ``ImportError`` (the part and the module would read different things under one name).
    """
    marks = next(v for v in vars(part).values() if isinstance(v, Marks))
    for name, value in vars(part).items():
        if name.startswith("__") or isinstance(value, Marks):
            continue
        if isinstance(value, FunctionType) and value.__module__ == part.__name__:
            fn = FunctionType(value.__code__, ns, name, value.__defaults__, value.__closure__)
            fn.__kwdefaults__ = value.__kwdefaults__
            fn.__doc__ = value.__doc__
            fn.__annotations__ = value.__annotations__
            fn.__qualname__ = value.__qualname__
            ns[name] = rt(marks.needs[name])(fn) if name in marks.needs else fn
        elif name not in ns:
            ns[name] = value
        elif ns[name] is not value:
            raise ImportError(f"{part.__name__}.{name} is not the {ns['__name__']}.{name} it replaces")


def description(fn: Callable[..., Any]) -> str:
    """What is particular to the runtime entry (``fn``'s own docstring), then the description of the driver
    entry whose rules it shares (:data:`simcuda._core.api.RUNTIME`), the one copy of that prose."""
    own = _inspect.cleandoc(fn.__doc__ or "")
    base = _RUNTIME.get(fn.__name__)
    if base is None:
        return own
    shared = (f"The rules and errors are those of ``{base}``, each code translated to its ``cudaError_t`` "
              f"(``CURESULT_TO_CUDA_ERROR``):\n\n{_API[base].doc}")
    return f"{own}\n\n{shared}" if own else shared



# =========================================================================== struct field tables
_U8, _U32, _U64 = ("u", 8), ("u", 32), ("u", 64)

#: field specs (C declaration order, as the real repr prints them) of the structs the simulator reads
STRUCT_SPECS: dict[str, list[tuple[str, str, Any]]] = {
    "dim3": [("x", "dim", None), ("y", "dim", None), ("z", "dim", None)],
    "cudaPos": [("x", *_U64), ("y", *_U64), ("z", *_U64)],
    "cudaExtent": [("width", *_U64), ("height", *_U64), ("depth", *_U64)],
    "cudaPitchedPtr": [("ptr", "p", None), ("pitch", *_U64), ("xsize", *_U64), ("ysize", *_U64)],
    "cudaMemcpy3DParms": [
        ("srcArray", "h", "cudaArray_t"), ("srcPos", "s", "cudaPos"), ("srcPtr", "s", "cudaPitchedPtr"),
        ("dstArray", "h", "cudaArray_t"), ("dstPos", "s", "cudaPos"), ("dstPtr", "s", "cudaPitchedPtr"),
        ("extent", "s", "cudaExtent"), ("kind", "e", "cudaMemcpyKind")],
    "cudaMemsetParams": [("dst", "p", None), ("pitch", *_U64), ("value", *_U32), ("elementSize", *_U32),
                         ("width", *_U64), ("height", *_U64)],
    "cudaKernelNodeParams": [("func", "fp", None), ("gridDim", "s", "dim3"), ("blockDim", "s", "dim3"),
                             ("sharedMemBytes", *_U32), ("kernelParams", "kp", None), ("extra", "x", None)],
    "cudaHostNodeParams": [("fn", "h", "cudaHostFn_t"), ("userData", "p", None)],
    "cudaGraphEdgeData_st": [("from_port", *_U8), ("to_port", *_U8), ("type", *_U8)],
    "cudaGraphExecUpdateResultInfo_st": [("result", "e", "cudaGraphExecUpdateResult"),
                                         ("errorNode", "h", "cudaGraphNode_t"),
                                         ("errorFromNode", "h", "cudaGraphNode_t")],
    "cudaGraphInstantiateParams_st": [("flags", *_U64), ("uploadStream", "h", "cudaStream_t"),
                                      ("errNode_out", "h", "cudaGraphNode_t"),
                                      ("result_out", "e", "cudaGraphInstantiateResult")],
    "cudaPointerAttributes": [("type", "e", "cudaMemoryType"), ("device", "i", 32), ("devicePointer", "p", None),
                              ("hostPointer", "p", None), ("localityDomainOrdinal", "i", 32)],
    "CUuuid_st": [("bytes", "hex", 16)],
    # memory pools (entries/pools.py; issue 10)
    "cudaMemPoolProps": [("allocType", "e", "cudaMemAllocationType"),
                         ("handleTypes", "e", "cudaMemAllocationHandleType"), ("location", "s", "cudaMemLocation"),
                         ("win32SecurityAttributes", "p", None), ("maxSize", *_U64), ("usage", "u", 16)],
    "cudaMemLocation": [("type", "e", "cudaMemLocationType"), ("id", "i", 32), ("localized", "s", "anon_struct6")],
    "anon_struct6": [("deviceId", "i", 32), ("localityDomainId", "i", 32)],
    "cudaMemAccessDesc": [("location", "s", "cudaMemLocation"), ("flags", "e", "cudaMemAccessFlags")],
}
# managed memory (topic: vmm): field order and kinds as cuda-bindings 13.5.0 prints them
STRUCT_SPECS.update({
    "cudaMemLocation": [("type", "e", "cudaMemLocationType"), ("id", "i", 32), ("localized", "s", "anon_struct6")],
    "anon_struct6": [("deviceId", "i", 32), ("localityDomainId", "i", 32)],
})


def _prop_fields() -> list[tuple[str, str, Any]]:
    out: list[tuple[str, str, Any]] = []
    for name, kind in _DEVICE_PROP:
        if kind == "int":
            out.append((name, "raw", 0))
        elif kind.startswith("list:"):
            n = int(kind[5:])
            out.append((name, "raw", lambda n=n: [0] * n))
        elif kind.startswith("bytes:"):
            out.append((name, "name" if name == "name" else "hex", 256 if name == "name" else int(kind[6:])))
        else:
            out.append((name, "s", kind[7:]))
    return out


STRUCT_SPECS["cudaDeviceProp"] = _prop_fields()
# conditional nodes (topic: conditional): the members of cudaGraphNodeParams the face reads (``type``,
# ``conditional``); the others stay placeholders (P-21)
STRUCT_SPECS["cudaConditionalNodeParams"] = [
    ("handle", "h", "cudaGraphConditionalHandle"), ("type", "e", "cudaGraphConditionalNodeType"), ("size", *_U32),
    ("phGraph_out", "l", "cudaGraph_t"), ("ctx", "h", "cudaExecutionContext_t")]
STRUCT_SPECS["cudaGraphNodeParams"] = [("type", "e", "cudaGraphNodeType")] + [
    (f, "any", None) for f in ("kernel", "memcpy", "memset", "host", "graph", "eventWait", "eventRecord",
                               "extSemSignal", "extSemWait", "alloc", "free")] + [
    ("conditional", "s", "cudaConditionalNodeParams"), ("memcpyBatch", "any", None)]
# 3D batched copies (topic: batch3d): cudaMemcpy3DBatchOp and its nested operands; the nameless union ``op`` and
# its members ``ptr`` / ``array`` are anon_union3 / anon_struct7 / anon_struct8 in the real module
STRUCT_SPECS.update({
    "cudaMemcpy3DBatchOp": [("src", "s", "cudaMemcpy3DOperand"), ("dst", "s", "cudaMemcpy3DOperand"),
                            ("extent", "s", "cudaExtent"), ("srcAccessOrder", "e", "cudaMemcpySrcAccessOrder"),
                            ("flags", *_U32)],
    "cudaMemcpy3DOperand": [("type", "e", "cudaMemcpy3DOperandType"), ("op", "s", "anon_union3")],
    "anon_union3": [("ptr", "s", "anon_struct7"), ("array", "s", "anon_struct8")],
    "anon_struct7": [("ptr", "p", None), ("rowLength", *_U64), ("layerHeight", *_U64),
                     ("locHint", "s", "cudaMemLocation")],
    "anon_struct8": [("array", "h", "cudaArray_t"), ("offset", "s", "cudaOffset3D")],
    "cudaOffset3D": [("x", *_U64), ("y", *_U64), ("z", *_U64)],
})


# =========================================================================== memcpy sides and kinds
def ptr(x: Any) -> Any:
    """A ``void*`` argument kept as given (None, int address or buffer), as the core takes host memory."""
    return _T.check_void_ptr_obj(x)


def side(d: Any, obj: Any, declared: str | None) -> tuple[str, Any]:
    """``(HOST|DEVICE, object)`` of one copy side; ``declared`` None means infer (cudaMemcpyDefault)."""
    if declared is None:
        return (_DEV, int(obj)) if isinstance(obj, int) and d.is_device_pointer(int(obj)) else (_HOST, obj)
    if declared == _DEV:
        if obj is None:
            return _DEV, 0
        if not isinstance(obj, int):  # the runtime passes the buffer's address on: the core finds no allocation
            return _DEV, _T.buffer_address(obj)[0]
        return _DEV, int(obj)
    return _HOST, obj


KIND_SIDES = {0: (_HOST, _HOST), 1: (_HOST, _DEV), 2: (_DEV, _HOST), 3: (_DEV, _DEV), 4: (None, None)}


def memcpy_kind(kind: Any, call: str) -> tuple[str | None, str | None]:
    k = _T.c_enum(kind, "kind", "enum cudaMemcpyKind")
    sides = KIND_SIDES.get(k)
    if sides is None:  # runtime-only rule and code: the driver's copies have no kind (cudaErrorInvalidMemcpyDirection)
        raise RtError(21, f"{call}: kind {k} is not a cudaMemcpyKind (0-4)")
    return sides


def copy_params(d: Any, dst: Any, src: Any, kind: Any, call: str, **geom: Any) -> _CopyParams:
    s_decl, d_decl = memcpy_kind(kind, call)
    sk, so = side(d, src, s_decl)
    dk, do = side(d, dst, d_decl)
    return _CopyParams(sk, so, dk, do, **geom)



# =========================================================================== device properties
#: cudaDeviceProp field -> cudaDeviceAttr name(s), where the name is not derived from the field
PROP_ATTRS: dict[str, str | tuple[str, ...]] = {
    "maxThreadsDim": ("MaxBlockDimX", "MaxBlockDimY", "MaxBlockDimZ"),
    "maxGridSize": ("MaxGridDimX", "MaxGridDimY", "MaxGridDimZ"),
    "sharedMemPerBlock": "MaxSharedMemoryPerBlock", "regsPerBlock": "MaxRegistersPerBlock",
    "memPitch": "MaxPitch", "totalConstMem": "TotalConstantMemory", "major": "ComputeCapabilityMajor",
    "minor": "ComputeCapabilityMinor", "ECCEnabled": "EccEnabled", "pciBusID": "PciBusId",
    "pciDeviceID": "PciDeviceId", "pciDomainID": "PciDomainId", "memoryBusWidth": "GlobalMemoryBusWidth",
    "sharedMemPerMultiprocessor": "MaxSharedMemoryPerMultiprocessor",
    "regsPerMultiprocessor": "MaxRegistersPerMultiprocessor", "sharedMemPerBlockOptin": "MaxSharedMemoryPerBlockOptin",
    "maxBlocksPerMultiProcessor": "MaxBlocksPerMultiprocessor", "isMultiGpuBoard": "IsMultiGpuBoard",
}
ATTR_BY_LOWER = {m.name[len("cudaDevAttr"):].lower(): int(m) for m in _E.cudaDeviceAttr}


def prop_value(d: Any, dev: int, field: str) -> Any:
    names = PROP_ATTRS.get(field, field[0].upper() + field[1:])
    if isinstance(names, tuple):
        return [d.device_get_attribute(ATTR_BY_LOWER[n.lower()], dev) for n in names]
    a = ATTR_BY_LOWER.get(names.lower())
    return None if a is None else d.device_get_attribute(a, dev)




# =========================================================================== runtime state
class RtState:
    """The runtime's own facts for one driver: primary contexts it retained, each thread's device
    and last error."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.initialized = False
        self.primary: dict[int, int] = {}
        self.device: dict[int, int] = {}
        self.last: dict[int, cudaError_t] = {}

