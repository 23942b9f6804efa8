"""The runtime face's plumbing (simcuda.bindings.runtime): the ``CUresult`` to ``cudaError_t`` mapping, the classes of
the real module, the runtime's own state per driver (primary contexts, each thread's device and last error), the
set-up, translation and last error every function runs through (:func:`_rt`) and the argument helpers. The
functions are in the ``_runtime_*`` modules by concept; users import them from :mod:`simcuda.bindings.runtime`.
"""
from __future__ import annotations

import ctypes  # noqa: F401  (the real module exposes ``ctypes`` too)
import functools
import inspect as _inspect
import threading
import typing as _typing
from collections.abc import Callable as _Callable
from typing import Any, Optional  # noqa: F401  (the real module exports both names)
from typing import ParamSpec as _ParamSpec

from .._core.api import API as _API
from .._core.api import RUNTIME as _RUNTIME
from .._core.errors import DriverError as _DriverError
from .._core.memory import DEVICE as _DEV
from .._core.memory import HOST as _HOST
from .._core.memory import CopyParams as _CopyParams
from .._core.objects import EdgeData as _EdgeData
from .._core.objects import EdgeDataArg as _EdgeDataArg
from .._generated import runtime_enums as _E
from .._generated.driver_enums import CUresult as _CUresult
from .._generated.runtime_outputs import CLASSES as _CLASSES
from .._generated.runtime_outputs import DEVICE_PROP as _DEVICE_PROP
from .._generated.runtime_outputs import OUTPUTS as _OUTPUTS
from .._generated.runtime_outputs import PARAMS as _PARAMS
from .._state import PerDriver as _PerDriver
from . import _args as _A
from . import _build as _B
from . import _driver_types as _T

# -- enums and integer constants (generated from the real module) -------------------------------
globals().update(_E.__all_enums__)
globals().update(_E.__int_constants__)



cudaError_t = _E.cudaError_t
_Result = _T.Result  # what every function returns: (cudaError_t, *outputs)
_P = _ParamSpec("_P")
_SUCCESS = cudaError_t.cudaSuccess
_OK = (_SUCCESS,)


# =========================================================================== CUresult -> cudaError_t
#: CUresult values that have no cudaError_t member of the same value, and what the runtime face
#: returns for them [inferred: the simulator's core never raises these three codes].
CURESULT_EXCEPTIONS: dict[int, int] = {
    47: 999,   # CUDA_ERROR_MULTICAST_RESOURCE_FULL -> cudaErrorUnknown
    202: 999,  # CUDA_ERROR_CONTEXT_ALREADY_CURRENT (deprecated) -> cudaErrorUnknown
    916: 999,  # CUDA_ERROR_KEY_ROTATION -> cudaErrorUnknown
}

#: The one mapping from driver ``CUresult`` to runtime ``cudaError_t``. Every CUresult value maps
#: to the cudaError_t member with the same value (the CUDA headers keep the values aligned: 1
#: INVALID_VALUE/cudaErrorInvalidValue, 2 OUT_OF_MEMORY/cudaErrorMemoryAllocation, 3
#: NOT_INITIALIZED/cudaErrorInitializationError, 4 DEINITIALIZED/cudaErrorCudartUnloading, 201
#: INVALID_CONTEXT/cudaErrorDeviceUninitialized, 400 INVALID_HANDLE/cudaErrorInvalidResourceHandle,
#: 500 NOT_FOUND/cudaErrorSymbolNotFound, 900-918 the capture codes...), except
#: :data:`CURESULT_EXCEPTIONS`.
CURESULT_TO_CUDA_ERROR: dict[int, cudaError_t] = {
    int(c): cudaError_t(CURESULT_EXCEPTIONS.get(int(c), int(c))) for c in _CUresult
}


def cuda_error(code: int) -> cudaError_t:
    """The ``cudaError_t`` the runtime face returns for a driver ``CUresult`` (see :data:`CURESULT_TO_CUDA_ERROR`)."""
    return CURESULT_TO_CUDA_ERROR[int(code)]


class _RtError(Exception):
    """A runtime-only failure: a ``cudaError_t`` with no ``CUresult`` twin (cudaErrorInvalidMemcpyDirection,
    cudaErrorInvalidPitchValue), for a rule only the runtime has, so no core entry can decide it. The face
    records it through :meth:`simcuda.Driver.refuse`. Nothing else may raise it: every other code comes
    from the core."""

    def __init__(self, err: int, why: str) -> None:
        self.err = cudaError_t(err)
        self.why = why
        super().__init__(f"{self.err.name} ({int(self.err)}): {why}")


# =========================================================================== classes
_DRIVER_CLASSES = _T.build_classes()
_RCLS: dict[str, type[Any]] = {}

#: the module name under which :mod:`simcuda._patch` loads this file a second time for the native route
NATIVE_NAME = "simcuda.bindings._runtime_native"

#: NVIDIA's own ``cuda.bindings.driver`` when this module is the native route's runtime face (``NATIVE_NAME``),
#: else None. There the handle classes with a driver base (``cudaStream_t``, ``cudaGraphNode_t``...) derive from
#: NVIDIA's driver classes, as the real runtime's do, so NVIDIA's driver wrappers take them (its list checks are
#: C-level type checks), and this face takes NVIDIA's driver handles wherever it takes a driver handle.
_NV: Any = None
if __name__ == NATIVE_NAME:
    import importlib as _importlib
    _NV = _importlib.import_module("cuda.bindings.driver")
    if _NV.__name__.startswith("simcuda."):  # by name: NVIDIA's file may sit in a folder called anything
        raise ImportError("the native runtime face needs NVIDIA's own cuda.bindings.driver, not simcuda's face")


class _NvHandle:
    """Mixin of the native route's handle classes (NVIDIA's driver class is the other base): what the face
    calls on its own handle classes (``_mk``, the value range)."""

    __slots__ = ()
    _lo, _hi = 0, 2 ** 64 - 1

    @classmethod
    def _mk(cls, v: int) -> Any:
        return cls(v)  # type: ignore[call-arg]  # (NVIDIA's driver class is the other base)


class _DriverNamedRepr:
    """Mixin: ``repr`` with the driver base's name (the real ``cudaStream_t(5)`` prints ``<CUstream 0x5>``)."""

    __slots__ = ()
    _drv_name = ""
    if _typing.TYPE_CHECKING:  # the driver wrapper it is mixed into
        def __int__(self) -> int: ...

    def __repr__(self) -> str:
        return f"<{self._drv_name} 0x{int(self):x}>"


def _handle_class(name: str, kind: str, detail: tuple[Any, ...], drv_base: str) -> type[Any]:
    if drv_base and _NV is not None:
        return type(name, (_NvHandle, getattr(_NV, drv_base)), {
            "__slots__": (), "__module__": __name__,
            "__doc__": f"{name}(init_value=0, _ptr=0)\n\nSimulated ``cuda.bindings.runtime.{name}`` of the native "
                       f"route: a subclass of NVIDIA's ``cuda.bindings.driver.{drv_base}``, as the real class is."})
    if drv_base:
        base = _DRIVER_CLASSES[drv_base]
        return type(name, (_DriverNamedRepr, base), {
            "__slots__": (), "_drv_name": drv_base,
            "__doc__": f"{name}(init_value=0, _ptr=0)\n\nSimulated ``cuda.bindings.runtime.{name}``: a subclass of the "
                       f"driver face's ``{drv_base}`` (so it is accepted wherever ``{drv_base}`` is, and the other way "
                       f"round), with the same ``repr`` (``<{drv_base} 0x...>``), equality and ``int()``."})
    cls = _T._wrapper_class(name, kind, *detail)
    cls.__doc__ = (f"{name}(init_value=0, _ptr=0)\n\nSimulated ``cuda.bindings.runtime.{name}`` "
                   f"({'hex' if kind != 'value' else 'decimal'} ``repr``; ``int(x)`` gives the value; ``getPtr()`` the "
                   "address of real memory holding it).")
    return cls


class _RStruct(_T.Struct):
    """Base of the simulated runtime structs: the driver face's :class:`~simcuda.bindings._driver_types.Struct`
    (typed fields, no keyword construction, the real ``repr``) with the runtime's enums, classes and field
    tables, and the runtime setter's integer checks and texts.

    ``_fields`` lists ``(name, kind, arg)`` in C declaration order. Kinds used: ``u``/``i`` (unsigned /
    signed integer of ``arg`` bits), ``dim`` (a ``dim3`` component), ``p`` (``void*``: keeps the object
    given, reads back its address), ``fp`` (``void*`` that also takes handle objects such as
    ``CUfunction``), ``h`` (a handle class name), ``e`` (an enum class name), ``s`` (a nested struct class
    name), ``kp`` (kernel parameters, any form ``cuLaunchKernel`` takes), ``x`` (``void**`` given as
    ``int``), ``raw`` (any value, printed as ``repr``), ``name`` (``bytes``, printed decoded), ``hex``
    (``bytes`` printed in hex). ``getPtr()`` is not simulated (``NotImplementedError``).
    """

    __slots__ = ()
    _enums = _E
    _classes = _RCLS
    _face = __name__
    _placeholder = ("raw", 0)
    _placeholder_note = ("Placeholder: the simulator does not read this struct; its fields accept any value and start "
                         "at 0.")
    _str_kinds = frozenset({"u", "i", "dim", "x", "kp"})

    @classmethod
    def _convert(cls, field: str, kind: str, arg: Any, value: Any) -> Any:
        """``value`` converted for field ``field``: the runtime's integer range texts and struct type error,
        else as the driver face converts it."""
        if kind in ("u", "i", "dim"):
            bits = 32 if kind == "dim" else arg
            v = _T.to_int(value)
            lo, hi = (0, 2 ** bits - 1) if kind != "i" else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
            if v < lo:
                raise OverflowError("can't convert negative value to unsigned int")
            if v > hi:
                raise OverflowError("value too large to convert")
            return v
        if kind == "s":
            if not isinstance(value, cls._classes[arg]):
                raise TypeError(f"Argument '{field}' has incorrect type (expected cuda.bindings.runtime.{arg}, "
                                f"got {type(value).__name__})")
            return value
        return super()._convert(field, kind, arg, value)


_U8, _U32, _U64 = ("u", 8), ("u", 32), ("u", 64)

#: field specs (C declaration order, as the real repr prints them) of the structs the simulator reads
_SPECS: dict[str, list[tuple[str, str, Any]]] = {
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
_SPECS.update({
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


_SPECS["cudaDeviceProp"] = _prop_fields()
# conditional nodes (topic: conditional): the members of cudaGraphNodeParams the face reads (``type``,
# ``conditional``); the others stay placeholders (P-21)
_SPECS["cudaConditionalNodeParams"] = [
    ("handle", "h", "cudaGraphConditionalHandle"), ("type", "e", "cudaGraphConditionalNodeType"), ("size", *_U32),
    ("phGraph_out", "l", "cudaGraph_t"), ("ctx", "h", "cudaExecutionContext_t")]
_SPECS["cudaGraphNodeParams"] = [("type", "e", "cudaGraphNodeType")] + [
    (f, "any", None) for f in ("kernel", "memcpy", "memset", "host", "graph", "eventWait", "eventRecord",
                               "extSemSignal", "extSemWait", "alloc", "free")] + [
    ("conditional", "s", "cudaConditionalNodeParams"), ("memcpyBatch", "any", None)]
# 3D batched copies (topic: batch3d): cudaMemcpy3DBatchOp and its nested operands; the nameless union ``op`` and
# its members ``ptr`` / ``array`` are anon_union3 / anon_struct7 / anon_struct8 in the real module
_SPECS.update({
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
_RStruct._specs = _SPECS


#: every class of the real module (wrappers, structs), by name: this module's and its parts'
_RT_CLASSES = _T.build_face_classes(_CLASSES, _RStruct, _handle_class,
                                    first=("dim3", "cudaPos", "cudaExtent", "cudaPitchedPtr", "CUuuid_st",
                                           "cudaUUID_t"))
globals().update(_RT_CLASSES)

if _typing.TYPE_CHECKING:

    # The enums, constants and classes of the real module are put into this namespace at import time
    # (globals().update), which the checker cannot follow: to it, a name it does not find here is Any.
    def __getattr__(name: str) -> Any: ...

#: the face's namespace: the classes and enums of the real module, which the ``_runtime_*`` modules look up by
#: name (``_NS["cudaMemcpy3DBatchOp"]``); :mod:`simcuda.bindings.runtime` holds the same objects
_NS: dict[str, Any] = globals()

_cudaStream_t = _RCLS["cudaStream_t"]
_cudaEvent_t = _RCLS["cudaEvent_t"]
_cudaGraph_t = _RCLS["cudaGraph_t"]
_cudaGraphNode_t = _RCLS["cudaGraphNode_t"]
_cudaGraphExec_t = _RCLS["cudaGraphExec_t"]
_cudaHostFn_t = _RCLS["cudaHostFn_t"]
_cudaMemPool_t = _RCLS["cudaMemPool_t"]
_cudaUserObject_t = _RCLS["cudaUserObject_t"]
_cudaStreamCallback_t = _RCLS["cudaStreamCallback_t"]
_cudaGraphEdgeData = _RCLS["cudaGraphEdgeData"]
#: driver node handles and edge data the runtime's lists take: the face's, and NVIDIA's on the native route
_CUgraphNode: Any = (_DRIVER_CLASSES["CUgraphNode"],) + ((_NV.CUgraphNode,) if _NV is not None else ())
_CUgraphEdgeData: Any = (_DRIVER_CLASSES["CUgraphEdgeData"],) + ((_NV.CUgraphEdgeData,) if _NV is not None else ())
_mk_stream, _mk_event, _mk_graph = _cudaStream_t._mk, _cudaEvent_t._mk, _cudaGraph_t._mk
_mk_node, _mk_exec = _cudaGraphNode_t._mk, _cudaGraphExec_t._mk


def sizeof(objType: Any) -> int:
    """Mirrors ``cuda.bindings.runtime.sizeof``: bytes of a struct type. Only ``cudaGraphEdgeData`` is known."""
    return _T.struct_sizeof(objType, _RCLS["cudaGraphEdgeData_st"])


# =========================================================================== runtime state
class _RtState:
    """The runtime's own facts for one driver: primary contexts it retained, each thread's device
    and last error."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.initialized = False
        self.primary: dict[int, int] = {}
        self.device: dict[int, int] = {}
        self.last: dict[int, cudaError_t] = {}


_STATES: _PerDriver[_RtState] = _PerDriver(_RtState)


def _state(d: Any) -> _RtState:
    return _STATES.of(d)


def _init(d: Any) -> _RtState:
    st = _state(d)
    if not st.initialized:
        d.init(0)
        st.initialized = True
    return st


def _primary(d: Any, st: _RtState, dev: int) -> int:
    h = st.primary.get(dev)
    if h is None:
        h = st.primary[dev] = d.device_primary_ctx_retain(dev)
    return h


def _ensure_ctx(d: Any) -> None:
    """Initialise, and make the thread's device's primary context current unless a context is current."""
    st = _init(d)
    if d.ctx_get_current():
        return
    d.ctx_set_current(_primary(d, st, st.device.get(d.thread_id(), 0)))


def _record(d: Any, err: cudaError_t) -> None:
    if err != _SUCCESS and err != cudaError_t.cudaErrorNotReady:
        _state(d).last[d.thread_id()] = err


def _description(fn: _Callable[..., Any]) -> str:
    """What is particular to the runtime entry (``fn``'s own docstring), then the description of the driver
    entry whose rules it shares (:data:`simcuda._core.api.RUNTIME`), the one copy of that prose."""
    own = _inspect.cleandoc(fn.__doc__ or "")
    base = _RUNTIME.get(fn.__name__)
    if base is None:
        return own
    shared = (f"The rules and errors are those of ``{base}``, each code translated to its ``cudaError_t`` "
              f"(``CURESULT_TO_CUDA_ERROR``):\n\n{_API[base].doc}")
    return f"{own}\n\n{shared}" if own else shared


def _rt(needs: str = "ctx", nouts: int | None = None) -> _Callable[[_Callable[_P, _Result]], _Callable[_P, _Result]]:
    """Decorate a runtime function: context set-up (``needs``: ``"ctx"``, ``"init"`` or ``"none"``),
    ``DriverError`` -> ``(cudaError_t, None, ...)``, and the thread's last error."""
    def deco(fn: _Callable[_P, _Result]) -> _Callable[_P, _Result]:
        n = len(_OUTPUTS[fn.__name__][1]) if nouts is None else nouts
        nones = (None,) * n

        plan: list[_B.Plan] = []
        required, total = _T.arity(_OUTPUTS[fn.__name__][0]) if fn.__name__ in _OUTPUTS else (0, 1 << 30)

        @functools.wraps(fn)
        def face(*args: Any, **kwargs: Any) -> Any:  # fn's signature, which the arguments are converted for
            if not kwargs and not required <= len(args) <= total:  # the wrapper counts before it converts
                raise _T.arity_error(fn.__name__, required, total, len(args))
            if not plan:  # built on first use: the classes it reads exist by then
                plan.append(_B.conversion_plan(fn.__name__, _OUTPUTS, _PARAMS, globals(), _struct_type, True))
            if plan[0]:
                args = _B.convert_args(plan[0], args, kwargs)
            d = _A.current_driver()
            try:
                if needs == "ctx":
                    _ensure_ctx(d)
                elif needs == "init":
                    _init(d)
                return fn(*args, **kwargs)
            except _DriverError as e:
                err = CURESULT_TO_CUDA_ERROR[int(e.code)]
            except _RtError as e:
                err = e.err
                d.refuse(fn.__name__, err, e.why)  # the core's bookkeeping: last_error() and error_log agree
            _record(d, err)
            return (err, *nones)
        sig, outs = _OUTPUTS[fn.__name__]
        shape = ", ".join(["cudaError_t"] + [f"{a}: {t}" for a, t in outs])
        face.__doc__ = (f"Mirrors ``{sig}`` of cuda.bindings.runtime 13.5.\n\nReturns ``({shape}"
                        f"{',' if not outs else ''})``; on any error every output is ``None``.\n\n"
                        + _description(fn))
        return face
    return deco


# =========================================================================== argument helpers
_h = _A.handle
_u = _A.uint
_size = _A.size_t
_drv = _A.current_driver


_DEPS_ERR = ("Argument '{}' is not instance of type (expected tuple[cyruntime.cudaGraphNode_t,driver.CUgraphNode] or "
             "list[cyruntime.cudaGraphNode_t,driver.CUgraphNode]")


def _node_list(x: Any, arg: str) -> list[int]:
    """Any iterable of node handles (``TypeError: 'int' object is not iterable`` otherwise, as the real check)."""
    if x is None:
        return []
    x = list(x)
    if not all(isinstance(n, _CUgraphNode) for n in x):
        raise TypeError(_DEPS_ERR.format(arg))
    return [int(n) for n in x]


def _deps(x: Any, n: Any, arg: str = "pDependencies") -> list[int]:
    deps = _node_list(x, arg)
    n = _size(n)
    if n > len(deps):
        raise RuntimeError(f"List is too small: {len(deps)} < {n}")
    return deps[:n]


def _edge_list(x: Any, arg: str) -> _EdgeDataArg:  # (a fresh list, which may be padded with None)
    if x is None:
        return []
    ok = (_RCLS["cudaGraphEdgeData_st"], *_CUgraphEdgeData)
    x = list(x)
    if not all(isinstance(e, ok) for e in x):
        raise TypeError(f"Argument '{arg}' is not instance of type (expected tuple[cyruntime.cudaGraphEdgeData,] or "
                        "list[cyruntime.cudaGraphEdgeData,]")
    return [(int(e.from_port), int(e.to_port), int(e.type)) for e in x]


def _edge(ed: _EdgeData) -> Any:
    e = _cudaGraphEdgeData()
    e._d["from_port"], e._d["to_port"], e._d["type"] = ed[0], ed[1], ed[2]
    return e


def _ptr(x: Any) -> Any:
    """A ``void*`` argument kept as given (None, int address or buffer), as the core takes host memory."""
    return _T.check_void_ptr_obj(x)


def _side(d: Any, obj: Any, declared: str | None) -> tuple[str, Any]:
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


_KIND_SIDES = {0: (_HOST, _HOST), 1: (_HOST, _DEV), 2: (_DEV, _HOST), 3: (_DEV, _DEV), 4: (None, None)}


def _kind(kind: Any, call: str) -> tuple[str | None, str | None]:
    k = _T.c_enum(kind, "kind", "enum cudaMemcpyKind")
    sides = _KIND_SIDES.get(k)
    if sides is None:  # runtime-only rule and code: the driver's copies have no kind (cudaErrorInvalidMemcpyDirection)
        raise _RtError(21, f"{call}: kind {k} is not a cudaMemcpyKind (0-4)")
    return sides


def _copy_params(d: Any, dst: Any, src: Any, kind: Any, call: str, **geom: Any) -> _CopyParams:
    s_decl, d_decl = _kind(kind, call)
    sk, so = _side(d, src, s_decl)
    dk, do = _side(d, dst, d_decl)
    return _CopyParams(sk, so, dk, do, **geom)


# =========================================================================== graphs
def _struct_type(p: Any, cls_name: str, arg: str) -> Any:
    """The entry check of a struct parameter: ``None`` or an instance, else the wrapper's TypeError."""
    if p is not None and not isinstance(p, _RCLS[cls_name]):
        raise TypeError(f"Argument '{arg}' has incorrect type (expected cuda.bindings.runtime.{cls_name}, "
                        f"got {_A.type_name(type(p))})")
    return p
