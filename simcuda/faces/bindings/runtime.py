"""Simulated ``cuda.bindings.runtime`` (cudart, cuda-bindings 13.5.0 call shapes): tuple-returning.

Why this file is long (over the 1,000 lines of issue 18 item 4): the native route loads it a second time under
:data:`NATIVE_NAME` (``simcuda._patch``), so that its handle classes derive from NVIDIA's; a function moved to
another module would be shared by both loads and see one set of classes only.

Mirrors: ``cuda.bindings.runtime`` of cuda-bindings 13.5.0 (the legacy name ``cuda.cudart`` under
:func:`simcuda.patch`).

* Every ``cuda*`` function returns a tuple whose first element is a :class:`cudaError_t`, followed
  by its outputs in the order of the real docstring; on an error every output slot is ``None``
  and the length is the same (``make_cuda*`` return the struct itself, as in the real module).
* The runtime acts on the current :class:`simcuda.Driver` through the same core entry points as
  the driver face, so capture rules, codes and ``why`` texts are the driver's. A ``CUresult``
  becomes the ``cudaError_t`` **with the same value** (:data:`CURESULT_TO_CUDA_ERROR`, the one
  mapping table; ``CUDA_ERROR_INVALID_CONTEXT`` 201 is ``cudaErrorDeviceUninitialized`` 201,
  ``CUDA_ERROR_INVALID_HANDLE`` 400 is ``cudaErrorInvalidResourceHandle`` 400, and so on).
* Like the real runtime, the first call that needs a device initialises the driver, retains the
  current device's **primary context** (device 0 unless :func:`cudaSetDevice` chose another) and
  makes it current on the calling thread, unless the thread already has a current context. Driver
  calls made afterwards (``cuModuleLoadData``...) therefore work without ``cuInit``.
* Handle types are the real ones' shape: ``cudaStream_t``, ``cudaEvent_t``, ``cudaGraph_t``,
  ``cudaGraphNode_t``, ``cudaGraphExec_t``, ``cudaFunction_t``... derive from the driver face's
  ``CUstream``, ``CUevent``... (their ``repr`` is the driver's: ``<CUstream 0x...>``), so either
  kind is accepted where the other is expected, as with cuda-bindings.
* ``cudaGetLastError`` / ``cudaPeekAtLastError`` report the last failing runtime call of the
  calling thread (``cudaErrorNotReady`` is not an error and is not recorded).
* Python-level misuse the real wrapper rejects before the library raises the same exception
  (``TypeError: an integer is required`` for a ``str`` handle, ``RuntimeError: List is too small``).
* Every function of the real module exists. Those not simulated return
  ``(cudaErrorNotSupported, None, ...)`` and record a ``why`` (``simcuda.last_error()``).
  ``cudaLaunchKernel`` does not exist in the real 13.x module (kernels are launched with the
  driver's ``cuLaunchKernel``), so it does not exist here either.
"""
from __future__ import annotations

import ctypes  # noqa: F401  (the real module exposes ``ctypes`` too)
import functools
import inspect as _inspect
import os
import threading
import typing as _typing
from collections.abc import Callable as _Callable
from typing import Any, Optional  # noqa: F401  (the real module exports both names)
from typing import ParamSpec as _ParamSpec
from typing import cast as _cast

from ..._core.api import API as _API
from ..._core.api import RUNTIME as _RUNTIME
from ..._core.errors import DriverError as _DriverError
from ..._core.memory.memory_model import DEVICE as _DEV
from ..._core.memory.memory_model import HOST as _HOST
from ..._core.memory.memory_model import CopyParams as _CopyParams
from ..._core.memory.memory_model import MemsetParams as _MemsetParams
from ..._core.objects import POOL_ATTR_U64 as _POOL_ATTR_U64
from ..._core.objects import EdgeData as _EdgeData
from ..._core.objects import EdgeDataArg as _EdgeDataArg
from ..._core.rows import Runtime as _Runtime
from ..._core.runtime_rows import RUNTIME_ROWS as _RUNTIME_ROWS
from ..._generated import runtime_enums as _E
from ..._generated.driver_enums import CUresult as _CUresult
from ..._generated.driver_outputs import OUTPUTS as _DRIVER_OUTPUTS
from ..._generated.runtime_outputs import CLASSES as _CLASSES
from ..._generated.runtime_outputs import DEVICE_PROP as _DEVICE_PROP
from ..._generated.runtime_outputs import ERROR_STRINGS as _ERROR_STRINGS
from ..._generated.runtime_outputs import OUTPUTS as _OUTPUTS
from ..._generated.runtime_outputs import PARAMS as _PARAMS
from ..._state import PerDriver as _PerDriver
from . import _args as _A
from . import _driver_types as _T
from . import _executor as _B
from . import _kernel_params as _KP

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
NATIVE_NAME = "simcuda.faces.bindings._runtime_native"

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
    """Base of the simulated runtime structs: the driver face's :class:`~simcuda.faces.bindings._driver_types.Struct`
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


globals().update(_T.build_face_classes(_CLASSES, _RStruct, _handle_class,
                                       first=("dim3", "cudaPos", "cudaExtent", "cudaPitchedPtr", "CUuuid_st",
                                              "cudaUUID_t")))

if _typing.TYPE_CHECKING:

    # The enums, constants, classes and not-simulated stubs of the real module are put into this namespace at
    # import time (globals().update, install_stubs), which the checker cannot follow: to it, a name it does not
    # find here is Any.
    def __getattr__(name: str) -> Any: ...

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


# =========================================================================== errors and versions
_UNRECOGNIZED = b"unrecognized error code"


def cudaGetErrorName(error: Any) -> _Result:
    """Mirrors ``cudaGetErrorName(error)``: ``(cudaSuccess, b"cudaErrorInvalidValue")``.

    The argument is converted as the real wrapper converts an enum (``int()`` first: ``ValueError`` for
    ``'abc'``, ``TypeError`` for ``None``, ``OverflowError`` beyond 32 bits); a value that is no
    ``cudaError_t`` gives ``(cudaSuccess, b"unrecognized error code")``, as the real runtime does.
    """
    v = _T.c_enum(error, "error", "enum cudaError")
    try:
        return (_SUCCESS, cudaError_t(v).name.encode())
    except ValueError:
        return (_SUCCESS, _UNRECOGNIZED)


def cudaGetErrorString(error: Any) -> _Result:
    """Mirrors ``cudaGetErrorString(error)``: ``(cudaSuccess, b"invalid argument")``.

    The texts are the real runtime's (read from the cuda-bindings wheel into
    :mod:`simcuda._generated.runtime_outputs`); argument conversion and unknown values as
    :func:`cudaGetErrorName`.
    """
    v = _T.c_enum(error, "error", "enum cudaError")
    return (_SUCCESS, _ERROR_STRINGS.get(v, _UNRECOGNIZED.decode()).encode())


def cudaGetLastError() -> _Result:
    """Mirrors ``cudaGetLastError()``: ``(last error of this thread,)`` and resets it to ``cudaSuccess``.

    The last error is the code of the most recent failing runtime call on the calling thread
    (``cudaErrorNotReady`` does not count). A sticky error (a Python kernel's fault, docs/spec-proposals.md P-9)
    is not reset: while the current context has one, every call returns it.
    """
    d = _drv()
    st = _state(d)
    sticky = d.sticky_error()
    if sticky:
        st.last.pop(d.thread_id(), None)
        return (cuda_error(sticky),)
    return (st.last.pop(d.thread_id(), _SUCCESS),)


def cudaPeekAtLastError() -> _Result:
    """Mirrors ``cudaPeekAtLastError()``: like :func:`cudaGetLastError` without resetting it."""
    return (_state(_drv()).last.get(_drv().thread_id(), _SUCCESS),)


@_rt("none")
def cudaDriverGetVersion() -> _Result:
    """The simulated driver's version, 13050 (CUDA 13.5); 0 on a ``Driver(available=False)``, as the
    real call reports when no driver is installed. Needs no device."""
    d = _drv()
    return (_SUCCESS, d.driver_get_version() if d.available else 0)


@_rt("none")
def cudaRuntimeGetVersion() -> _Result:
    """The runtime version, ``CUDART_VERSION`` (13050). Needs no device."""
    return (_SUCCESS, _E.CUDART_VERSION)


def getLocalRuntimeVersion() -> _Result:
    """Mirrors ``getLocalRuntimeVersion()`` of cuda.bindings.runtime 13.5: ``(cudaSuccess, version)``, the
    version of the CUDA runtime library the binding finds locally. The simulated runtime is that library here:
    its ``CUDART_VERSION`` (13050), as :func:`cudaRuntimeGetVersion`. Needs no device and no ``cuInit``;
    numba-cuda reads it at import."""
    return (_SUCCESS, _E.CUDART_VERSION)


# =========================================================================== devices
@_rt("init")
def cudaSetDevice(device: Any) -> _Result:
    """Select the calling thread's device: retains its primary context (once per driver) and makes it
    current on this thread, as the CUDA 12+ runtime does.

    Errors: cudaErrorInvalidDevice (101) for an ordinal out of range (nothing changes).
    """
    dev = _T.to_int(device)
    d = _drv()
    d.device_get(dev)
    st = _state(d)
    h = _primary(d, st, dev)
    d.ctx_set_current(h)
    st.device[d.thread_id()] = dev
    return _OK


@_rt()
def cudaGetDevice() -> _Result:
    """The device of the calling thread's current context (device 0 unless :func:`cudaSetDevice` chose one)."""
    return (_SUCCESS, _drv().ctx_get_device())


@_rt()
def cudaInitDevice(device: Any, deviceFlags: Any, flags: Any) -> _Result:
    """Initialise ``device``'s primary context without making it current.

    Errors: cudaErrorInvalidDevice; cudaErrorInvalidValue for ``flags`` other than 0.
    """
    dev, _df, fl = _T.to_int(device), _u(deviceFlags), _u(flags)
    d = _drv()
    d.device_get(dev)
    d.check_flags(fl, _E.cudaInitDeviceFlagsAreValid, "flags", "cudaInitDevice")
    _primary(d, _state(d), dev)
    return _OK


#: cudaDeviceProp field -> cudaDeviceAttr name(s), where the name is not derived from the field
_PROP_ATTRS: dict[str, str | tuple[str, ...]] = {
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
_ATTR_BY_LOWER = {m.name[len("cudaDevAttr"):].lower(): int(m) for m in _E.cudaDeviceAttr}


def _prop_value(d: Any, dev: int, field: str) -> Any:
    names = _PROP_ATTRS.get(field, field[0].upper() + field[1:])
    if isinstance(names, tuple):
        return [d.device_get_attribute(_ATTR_BY_LOWER[n.lower()], dev) for n in names]
    a = _ATTR_BY_LOWER.get(names.lower())
    return None if a is None else d.device_get_attribute(a, dev)


@_rt("init")
def cudaGetDeviceProperties(device: Any) -> _Result:
    """A ``cudaDeviceProp`` of the simulated device.

    ``name`` is ``bytes`` ending at the first NUL, as the real struct's getter reads its ``char[256]``;
    ``name``, ``totalGlobalMem`` and ``multiProcessorCount``/``major``/``minor`` come from the
    device's :class:`simcuda.DeviceSpec`; every field that has a ``cudaDeviceAttr`` twin holds that
    attribute's value (DeviceSpec defaults); ``uuid`` is a stable hash of the name and ordinal. Other
    fields are 0. Errors: cudaErrorInvalidDevice.
    """
    dev = _T.to_int(device)
    d = _drv()
    name = d.device_get_name(dev).encode()
    p = _RCLS["cudaDeviceProp"]()
    for field, kind, _arg in p._fields:
        if field == "name":
            p._d[field] = name[:255].split(b"\0", 1)[0]  # the char[256] read up to its first NUL, as the real getter
        elif field == "totalGlobalMem":
            p._d[field] = d.device_total_mem(dev)
        elif field == "uuid":
            u = _RCLS["cudaUUID_t"]()
            u._d["bytes"] = d.device_get_uuid(dev)
            p._d[field] = u
        elif kind == "raw":
            v = _prop_value(d, dev, field)
            if v is not None:
                p._d[field] = v
    return (_SUCCESS, p)


@_rt()
def cudaDeviceReset() -> _Result:
    """Synchronise the current device.

    Fidelity: the simulator does not destroy the primary context or free allocations (they stay
    valid); the call only synchronises, with the capture rules of :func:`cudaDeviceSynchronize`.
    """
    _drv().ctx_synchronize()
    return _OK


@_rt()
def cudaGetDeviceFlags() -> _Result:
    """The current device's flags (the primary context's flags, 0 unless set)."""
    d = _drv()
    flags, _active = d.device_primary_ctx_get_state(d.ctx_get_device())
    return (_SUCCESS, flags)


@_rt()
def cudaSetDeviceFlags(flags: Any) -> _Result:
    """Accepted and ignored (no scheduling in a simulator). Errors: cudaErrorInvalidValue for bits
    outside ``cudaDeviceMask``."""
    _drv().check_flags(_u(flags), _E.cudaDeviceMask, "flags", "cudaSetDeviceFlags")
    return _OK


# =========================================================================== memory
@_rt()
def cudaMallocPitch(width: Any, height: Any) -> _Result:
    """Allocate ``height`` rows of ``width`` bytes, rows padded to 512 bytes: ``(cudaSuccess, devPtr, pitch)``."""
    w, h = _size(width), _size(height)
    d = _drv()
    pitch = (w + 511) // 512 * 512
    if w == 0 or h == 0:
        return (_SUCCESS, 0, pitch)
    return (_SUCCESS, d.mem_alloc(pitch * h, "cudaMallocPitch"), pitch)


@_rt()
def cudaFreeHost(ptr: Any) -> _Result:
    """Free memory from :func:`cudaMallocHost`/:func:`cudaHostAlloc` (``None``/0 does nothing)."""
    p = _T.void_ptr(ptr)
    if not p:
        return _OK
    _drv().mem_free_host(p)
    return _OK


@_rt()
def cudaPointerGetAttributes(ptr: Any) -> _Result:
    """``cudaPointerAttributes`` of an address, from the driver's pointer attributes (topic: vmm): device memory
    (``cudaMemoryTypeDevice``, ``devicePointer`` set), managed memory (``cudaMemoryTypeManaged``, both pointers),
    pinned, mapped or registered host memory (``cudaMemoryTypeHost``, both pointers: unified addressing maps it
    into the device at its address), or memory CUDA does not know (``cudaMemoryTypeUnregistered``, device -2,
    both pointers NULL). ``device`` is the device the memory was allocated against; ``localityDomainOrdinal`` -1
    (no allocation is localized to a locality domain)."""
    p = _T.void_ptr(ptr)
    d = _drv()
    a = _RCLS["cudaPointerAttributes"]()
    mtype, managed, dev, dptr, hptr, loc = d.pointer_get_attributes([2, 8, 9, 3, 4, 22], p)
    a._d["type"] = 0 if mtype == 0 else 3 if managed else mtype
    a._d["device"] = dev
    a._d["devicePointer"] = dptr
    a._d["hostPointer"] = hptr
    a._d["localityDomainOrdinal"] = loc if mtype else 0
    return (_SUCCESS, a)


def _mem_location(x: Any, arg: str) -> tuple[int, int]:
    """A ``cudaMemLocation`` argument passed by value: ``(type, id)`` (None raises the wrapper's TypeError)."""
    loc = _struct_type(x, "cudaMemLocation", arg)
    if loc is None:
        raise TypeError(f"Argument '{arg}' must not be None")
    return loc._raw("type"), loc._raw("id")


@_rt()
def cudaMemPrefetchAsync(devPtr: Any, count: Any, location: Any, flags: Any, stream: Any) -> _Result:
    """Prefetch managed memory to ``location`` (a ``cudaMemLocation``) in stream order (recorded; nothing moves)."""
    lt, lid = _mem_location(location, "location")
    _drv().mem_prefetch_async(_T.void_ptr(devPtr), _size(count), lt, lid, _u(flags), _h(stream, _cudaStream_t),
                              "cudaMemPrefetchAsync")
    return _OK


@_rt()
def cudaMemAdvise(devPtr: Any, count: Any, advice: Any, location: Any) -> _Result:
    """Advise about a managed range (``cudaMemoryAdvise``, ``cudaMemLocation``): checked and recorded."""
    lt, lid = _mem_location(location, "location")
    adv = _T.c_enum(advice, "advice", "enum cudaMemoryAdvise")
    _drv().mem_advise(_T.void_ptr(devPtr), _size(count), adv, lt, lid, "cudaMemAdvise")
    return _OK


def _memcpy(call: str, dst: Any, src: Any, count: Any, kind: Any, stream: Any = None, sync: bool = True) -> _Result:
    d = _drv()
    p = _copy_params(d, _ptr(dst), _ptr(src), kind, call, width=_size(count))
    d.memcpy(p, None if sync else _h(stream, _cudaStream_t), call)
    return _OK


@_rt()
def cudaMemcpy(dst: Any, src: Any, count: Any, kind: Any) -> _Result:
    """Synchronous copy of ``count`` bytes. ``dst``/``src``: ``int`` addresses or buffers (numpy arrays,
    ctypes objects, bytes for a source). ``kind``: a ``cudaMemcpyKind``; ``cudaMemcpyDefault`` infers each
    side (an address inside a simulated allocation is device memory).

    Runs on the default stream (legacy, or the per-thread stream in per-thread mode, spec 6.1).
    """
    return _memcpy("cudaMemcpy", dst, src, count, kind)


@_rt()
def cudaMemcpyAsync(dst: Any, src: Any, count: Any, kind: Any, stream: Any) -> _Result:
    """Asynchronous copy on ``stream``: a MEMCPY node during capture (spec 3.8) that reads and writes
    host memory when the graph runs (spec 3.10). Arguments as :func:`cudaMemcpy`.
    """
    return _memcpy("cudaMemcpyAsync", dst, src, count, kind, stream, sync=False)


def _memcpy2d(call: str, dst: Any, dpitch: Any, src: Any, spitch: Any, width: Any, height: Any, kind: Any,
              stream: Any = None, sync: bool = True) -> _Result:
    dp, sp, w, h = _size(dpitch), _size(spitch), _size(width), _size(height)
    if w > dp or w > sp:  # runtime-only code: the driver's cuMemcpy2D gives INVALID_VALUE (the core) for this
        raise _RtError(12, f"{call}: width {w} bytes is larger than a pitch (dpitch {dp}, spitch {sp})")
    d = _drv()
    p = _copy_params(d, _ptr(dst), _ptr(src), kind, call, width=w, height=h, src_pitch=sp, dst_pitch=dp)
    d.memcpy(p, None if sync else _h(stream, _cudaStream_t), call)
    return _OK


@_rt()
def cudaMemcpy2D(dst: Any, dpitch: Any, src: Any, spitch: Any, width: Any, height: Any, kind: Any) -> _Result:
    """Synchronous 2D copy: ``height`` rows of ``width`` bytes, row starts ``spitch``/``dpitch`` bytes apart."""
    return _memcpy2d("cudaMemcpy2D", dst, dpitch, src, spitch, width, height, kind)


@_rt()
def cudaMemcpy2DAsync(dst: Any, dpitch: Any, src: Any, spitch: Any, width: Any, height: Any, kind: Any,
                      stream: Any) -> _Result:
    """Asynchronous :func:`cudaMemcpy2D` on ``stream`` (a MEMCPY node during capture)."""
    return _memcpy2d("cudaMemcpy2DAsync", dst, dpitch, src, spitch, width, height, kind, stream, sync=False)


def _params3d(d: Any, p: Any, call: str) -> _CopyParams:
    """A :class:`CopyParams` from a ``cudaMemcpy3DParms`` (arrays are not simulated)."""
    if p is None:
        d.require_arg(False, "the cudaMemcpy3DParms pointer", call)
    if not isinstance(p, _RCLS["cudaMemcpy3DParms"]):
        raise TypeError(f"Argument 'p' has incorrect type (expected cuda.bindings.runtime.cudaMemcpy3DParms, "
                        f"got {type(p).__name__})")
    if int(p.srcArray) or int(p.dstArray):
        raise d.not_simulated(call, f"{call}: CUDA arrays (srcArray/dstArray) are not simulated")
    sp, dp = p.srcPtr, p.dstPtr
    spos, dpos, ext = p.srcPos, p.dstPos, p.extent
    return _copy_params(d, dp._raw("ptr"), sp._raw("ptr"), p._raw("kind"), call,
                        width=ext.width, height=ext.height, depth=ext.depth,
                        src_pitch=sp.pitch, src_height=sp.ysize, dst_pitch=dp.pitch, dst_height=dp.ysize,
                        src_x=spos.x, src_y=spos.y, src_z=spos.z, dst_x=dpos.x, dst_y=dpos.y, dst_z=dpos.z)


@_rt()
def cudaMemcpy3D(p: Any) -> _Result:
    """Synchronous 3D copy from a ``cudaMemcpy3DParms`` (pitched pointers; ``extent.width`` in bytes)."""
    d = _drv()
    d.memcpy(_params3d(d, p, "cudaMemcpy3D"), None, "cudaMemcpy3D")
    return _OK


@_rt()
def cudaMemcpy3DAsync(p: Any, stream: Any) -> _Result:
    """Asynchronous :func:`cudaMemcpy3D` on ``stream`` (a MEMCPY node during capture)."""
    d = _drv()
    d.memcpy(_params3d(d, p, "cudaMemcpy3DAsync"), _h(stream, _cudaStream_t), "cudaMemcpy3DAsync")
    return _OK


def _memset(call: str, devPtr: Any, value: Any, width: Any, height: Any = 1, pitch: Any = 0, stream: Any = None,
            sync: bool = True) -> _Result:
    v = _T.to_int(value) & 0xFF  # the runtime converts the int value to unsigned char
    p = _MemsetParams(_T.void_ptr(devPtr), v, 1, _size(width), _size(height), _size(pitch))
    _drv().memset(p, None if sync else _h(stream, _cudaStream_t), call)
    return _OK


@_rt()
def cudaMemset(devPtr: Any, value: Any, count: Any) -> _Result:
    """Synchronously set ``count`` bytes at ``devPtr`` to ``value`` (converted to ``unsigned char``)."""
    return _memset("cudaMemset", devPtr, value, count)


@_rt()
def cudaMemsetAsync(devPtr: Any, value: Any, count: Any, stream: Any) -> _Result:
    """Asynchronous :func:`cudaMemset` on ``stream``: a MEMSET node (element size 1) during capture."""
    return _memset("cudaMemsetAsync", devPtr, value, count, stream=stream, sync=False)


@_rt()
def cudaMemset2D(devPtr: Any, pitch: Any, value: Any, width: Any, height: Any) -> _Result:
    """Synchronously set ``height`` rows of ``width`` bytes, ``pitch`` bytes apart."""
    return _memset("cudaMemset2D", devPtr, value, width, height, pitch)


@_rt()
def cudaMemset2DAsync(devPtr: Any, pitch: Any, value: Any, width: Any, height: Any, stream: Any) -> _Result:
    """Asynchronous :func:`cudaMemset2D` on ``stream``."""
    return _memset("cudaMemset2DAsync", devPtr, value, width, height, pitch, stream=stream, sync=False)


def _pool_attr(attr: Any) -> int:
    """``attr`` of the pool-attribute calls: a ``cudaMemPoolAttr`` (the wrapper reads ``attr.value``)."""
    _T.c_enum(attr, "attr", "enum cudaMemPoolAttr")  # the typed parameter's conversion at entry
    if not isinstance(attr, _E.cudaMemPoolAttr):
        raise AttributeError(f"'{_A.type_name(type(attr))}' object has no attribute 'value'")
    return int(attr.value)


@_rt("init")
def cudaMemPoolGetAttribute(memPool: Any, attr: Any) -> _Result:
    """A ``cuuint64_t`` for the byte-count attributes (the values equal the driver's ``CUmemPool_attribute``)."""
    hp = _h(memPool, _cudaMemPool_t)
    a = _pool_attr(attr)
    v = _drv().mem_pool_get_attribute(hp, a)
    return (_SUCCESS, _DRIVER_CLASSES["cuuint64_t"]._mk(v) if a in _POOL_ATTR_U64 else v)


@_rt("init")
def cudaMemPoolSetAttribute(memPool: Any, attr: Any, value: Any) -> _Result:
    """``value``: a ``cuuint64_t`` for the byte-count attributes (a plain ``int`` raises ``AttributeError``)."""
    hp = _h(memPool, _cudaMemPool_t)
    a = _pool_attr(attr)
    if a in _POOL_ATTR_U64:
        value.getPtr  # noqa: B018  # a cuuint64_t, as the wrapper requires (AttributeError otherwise)
    _drv().mem_pool_set_attribute(hp, a, int(value))
    return _OK


# -- memory pools and graph memory (entries/pools.py; issue 10) ----------------------------------------
@_rt("init")
def cudaMemPoolCreate(poolProps: Any) -> _Result:
    """A pool from a ``cudaMemPoolProps`` (``allocType``, ``handleTypes``, ``location``, ``maxSize``, ``usage``)."""
    _struct_type(poolProps, "cudaMemPoolProps", "poolProps")
    d = _drv()
    if poolProps is None:
        d.require_arg(False, "poolProps", "cudaMemPoolCreate")
    loc = poolProps.location
    return (_SUCCESS, _cudaMemPool_t._mk(d.mem_pool_create(
        int(poolProps.allocType), int(poolProps.handleTypes), (int(loc.type), int(loc.id)), int(poolProps.maxSize),
        int(poolProps.usage), (int(loc.localized.deviceId), int(loc.localized.localityDomainId)))))


@_rt("init")
def cudaMemPoolSetAccess(memPool: Any, descList: Any, count: Any) -> _Result:
    """``descList``: ``cudaMemAccessDesc`` items, ``count`` of them used (a shorter list raises ``RuntimeError``)."""
    items = [] if descList is None else list(descList)
    if not all(isinstance(a, _RCLS["cudaMemAccessDesc"]) for a in items):
        raise TypeError("Argument 'descList' is not instance of type (expected tuple[cyruntime.cudaMemAccessDesc,] "
                        "or list[cyruntime.cudaMemAccessDesc,]")
    n = _size(count)
    if n > len(items):
        raise RuntimeError(f"List is too small: {len(items)} < {n}")
    _drv().mem_pool_set_access(_h(memPool, _cudaMemPool_t),
                               [(int(a.location.type), int(a.location.id), int(a.flags)) for a in items[:n]])
    return _OK


@_rt("init")
def cudaMemPoolGetAccess(memPool: Any, location: Any) -> _Result:
    """The ``cudaMemAccessFlags`` of the device ``location`` (a ``cudaMemLocation``) on the pool's memory."""
    hp = _h(memPool, _cudaMemPool_t)
    _struct_type(location, "cudaMemLocation", "location")
    d = _drv()
    if location is None:
        d.require_arg(False, "location", "cudaMemPoolGetAccess")
    return (_SUCCESS, _E.cudaMemAccessFlags(d.mem_pool_get_access(hp, (int(location.type), int(location.id)))))


def _graph_mem_attr(attr: Any) -> int:
    """``attr`` of the graph-memory attribute calls: a ``cudaGraphMemAttributeType`` (the wrapper reads
    ``attr.value``)."""
    _T.c_enum(attr, "attr", "enum cudaGraphMemAttributeType")  # the typed parameter's conversion at entry
    if not isinstance(attr, _E.cudaGraphMemAttributeType):
        raise AttributeError(f"'{_A.type_name(type(attr))}' object has no attribute 'value'")
    return int(attr.value)


@_rt("init")
def cudaDeviceGetGraphMemAttribute(device: Any, attr: Any) -> _Result:
    """A ``cuuint64_t`` of bytes (the values equal the driver's ``CUgraphMem_attribute``)."""
    dev = _T.c_int(device)
    a = _graph_mem_attr(attr)
    return (_SUCCESS, _DRIVER_CLASSES["cuuint64_t"]._mk(_drv().device_get_graph_mem_attribute(dev, a)))


@_rt("init")
def cudaDeviceSetGraphMemAttribute(device: Any, attr: Any, value: Any) -> _Result:
    """``value``: ``cuuint64_t(0)``, which resets a HIGH watermark (a plain ``int`` raises ``AttributeError``)."""
    dev = _T.c_int(device)
    a = _graph_mem_attr(attr)
    value.getPtr  # noqa: B018  # a cuuint64_t, as the wrapper requires (AttributeError otherwise)
    _drv().device_set_graph_mem_attribute(dev, a, int(value))
    return _OK


# =========================================================================== streams
@_rt()
def cudaStreamGetDevice(hStream: Any) -> _Result:
    """The device ordinal of the stream's context."""
    d = _drv()
    hctx = d.stream_get_ctx(_h(hStream, _cudaStream_t))
    d.ctx_push_current(hctx)
    try:
        return (_SUCCESS, d.ctx_get_device())
    finally:
        d.ctx_pop_current()


# =========================================================================== capture
@_rt()
def cudaStreamBeginCaptureToGraph(stream: Any, graph: Any, dependencies: Any, dependencyData: Any,
                                  numDependencies: Any, mode: Any) -> _Result:
    """Begin capturing into an existing graph after ``dependencies`` (spec 3.2); ``dependencyData`` None
    means all-zero edge data. ``numDependencies`` larger than the list raises ``RuntimeError``."""
    deps = _deps(dependencies, numDependencies, "dependencies")
    eds = _edge_list(dependencyData, "dependencyData")
    _drv().stream_begin_capture_to_graph(_h(stream, _cudaStream_t), _h(graph, _cudaGraph_t), deps,
                                         _B.eds_for(eds, len(deps)),
                                         _T.c_enum(mode, "mode", "enum cudaStreamCaptureMode"))
    return _OK


@_rt()
def cudaStreamGetCaptureInfo(stream: Any) -> _Result:
    """``(cudaSuccess, status, id, graph, dependencies, edgeData, numDependencies)`` (spec 3.5).

    The id is a plain ``int`` here (the driver face returns a ``cuuint64_t``); when the status is not
    ACTIVE: id 0, ``cudaGraph_t(0)``, empty lists, 0 [I].
    """
    status, cid, g, deps, eds, n = _drv().stream_get_capture_info(_h(stream, _cudaStream_t))
    return (_SUCCESS, _E.cudaStreamCaptureStatus(status), cid, _mk_graph(g),
            [_mk_node(x) for x in deps], [_edge(ed) for ed in eds], n)


@_rt()
def cudaStreamUpdateCaptureDependencies(stream: Any, dependencies: Any, dependencyData: Any, numDependencies: Any,
                                        flags: Any) -> _Result:
    """Add to (``cudaStreamAddCaptureDependencies``) or replace (``cudaStreamSetCaptureDependencies``) the
    stream's capture dependencies (spec 3.6).
    """
    deps = _node_list(dependencies, "dependencies")
    eds = _edge_list(dependencyData, "dependencyData")
    deps, eds = _B.capture_deps(deps, eds, _size(numDependencies))
    _drv().stream_update_capture_dependencies(_h(stream, _cudaStream_t), deps, eds, _u(flags))
    return _OK


# =========================================================================== graphs
def _struct_type(p: Any, cls_name: str, arg: str) -> Any:
    """The entry check of a struct parameter: ``None`` or an instance, else the wrapper's TypeError."""
    if p is not None and not isinstance(p, _RCLS[cls_name]):
        raise TypeError(f"Argument '{arg}' has incorrect type (expected cuda.bindings.runtime.{cls_name}, "
                        f"got {_A.type_name(type(p))})")
    return p


def _struct_arg(p: Any, cls_name: str, arg: str, call: str) -> Any:
    cls = _RCLS[cls_name]
    if p is not None and not isinstance(p, cls):
        raise TypeError(f"Argument '{arg}' has incorrect type (expected cuda.bindings.runtime.{cls_name}, "
                        f"got {type(p).__name__})")
    if p is None:
        _drv().require_arg(False, arg, call)
    return p


@_rt()
def cudaGraphAddKernelNode(graph: Any, pDependencies: Any, numDependencies: Any, pNodeParams: Any) -> _Result:
    """Add a KERNEL node from ``cudaKernelNodeParams``: ``func`` (a ``CUfunction``/``cudaFunction_t`` or its
    ``int`` handle, from ``cuModuleGetFunction``), ``gridDim``/``blockDim`` (``dim3``), ``sharedMemBytes``
    (bytes), ``kernelParams`` (any form ``cuLaunchKernel`` takes).
    """
    deps = _deps(pDependencies, numDependencies)
    p = _struct_arg(pNodeParams, "cudaKernelNodeParams", "pNodeParams", "cudaGraphAddKernelNode")
    d = _drv()
    hf = int(p.func)
    if p._raw("extra"):
        d.check_kernel_extra(_KP.given(p._raw("kernelParams")), p._raw("extra"), "cudaGraphAddKernelNode")
    args = _KP.kernel_args(d, hf, p._raw("kernelParams"), "cudaGraphAddKernelNode")
    g, b = p.gridDim, p.blockDim
    return (_SUCCESS, _mk_node(d.graph_add_kernel_node(_h(graph, _cudaGraph_t), deps, hf, (g.x, g.y, g.z),
                                                      (b.x, b.y, b.z), p.sharedMemBytes, args)))


@_rt()
def cudaGraphAddMemcpyNode(graph: Any, pDependencies: Any, numDependencies: Any, pCopyParams: Any) -> _Result:
    """Add a MEMCPY node from ``cudaMemcpy3DParms`` (pitched pointers made with ``make_cudaPitchedPtr``,
    positions with ``make_cudaPos``, ``extent`` with ``make_cudaExtent``: width in bytes). Host sides are
    read/written when the graph runs (spec 3.10); ``cudaMemcpyDefault`` infers each side.
    """
    deps = _deps(pDependencies, numDependencies)
    p = _struct_arg(pCopyParams, "cudaMemcpy3DParms", "pCopyParams", "cudaGraphAddMemcpyNode")
    d = _drv()
    return (_SUCCESS, _mk_node(d.graph_add_memcpy_node(_h(graph, _cudaGraph_t), deps,
                                                      _params3d(d, p, "cudaGraphAddMemcpyNode"))))


@_rt()
def cudaGraphAddMemcpyNode1D(graph: Any, pDependencies: Any, numDependencies: Any, dst: Any, src: Any, count: Any,
                             kind: Any) -> _Result:
    """Add a 1D MEMCPY node of ``count`` bytes (arguments as :func:`cudaMemcpy`). This wrapper does not check
    ``numDependencies`` against the list: a larger count reaches the driver as a NULL entry (INVALID_VALUE)."""
    deps = _node_list(pDependencies, "pDependencies")
    n = _size(numDependencies)
    deps = [*deps[:n], 0] if n > len(deps) else deps[:n]
    d = _drv()
    p = _copy_params(d, _ptr(dst), _ptr(src), kind, "cudaGraphAddMemcpyNode1D", width=_size(count))
    return (_SUCCESS, _mk_node(d.graph_add_memcpy_node(_h(graph, _cudaGraph_t), deps, p)))


@_rt()
def cudaGraphAddMemsetNode(graph: Any, pDependencies: Any, numDependencies: Any, pMemsetParams: Any) -> _Result:
    """Add a MEMSET node from ``cudaMemsetParams``: ``dst``, ``pitch`` (bytes, 0 for one row), ``value``,
    ``elementSize`` (1, 2 or 4 bytes), ``width`` (elements), ``height`` (rows).
    """
    deps = _deps(pDependencies, numDependencies)
    m = _struct_arg(pMemsetParams, "cudaMemsetParams", "pMemsetParams", "cudaGraphAddMemsetNode")
    p = _MemsetParams(_T.void_ptr(m._raw("dst")), m.value, m.elementSize, m.width, m.height, m.pitch)
    return (_SUCCESS, _mk_node(_drv().graph_add_memset_node(_h(graph, _cudaGraph_t), deps, p)))


@_rt()
def cudaGraphAddHostNode(graph: Any, pDependencies: Any, numDependencies: Any, pNodeParams: Any) -> _Result:
    """Add a HOST node from ``cudaHostNodeParams`` (``fn``: ``cudaHostFn_t`` address, ``userData``)."""
    deps = _deps(pDependencies, numDependencies)
    p = _struct_arg(pNodeParams, "cudaHostNodeParams", "pNodeParams", "cudaGraphAddHostNode")
    return (_SUCCESS, _mk_node(_drv().graph_add_host_node(_h(graph, _cudaGraph_t), deps, int(p.fn), p.userData)))


def _dep_pairs(from_: Any, to: Any, edgeData: Any, n: Any, remove: bool) -> tuple[list[int], list[int], _EdgeDataArg]:
    return _B.dep_pairs(from_, to, edgeData, n, remove, _node_list, _edge_list)


@_rt()
def cudaGraphAddDependencies(graph: Any, from_: Any, to: Any, edgeData: Any, numDependencies: Any) -> _Result:
    """Add edges ``from_[i] -> to[i]`` (``edgeData`` None: ordinary dependencies)."""
    froms, tos, eds = _dep_pairs(from_, to, edgeData, numDependencies, False)
    _drv().graph_add_dependencies(_h(graph, _cudaGraph_t), froms, tos, eds)
    return _OK


@_rt()
def cudaGraphRemoveDependencies(graph: Any, from_: Any, to: Any, edgeData: Any, numDependencies: Any) -> _Result:
    """Remove edges."""
    froms, tos, eds = _dep_pairs(from_, to, edgeData, numDependencies, True)
    # removal pads a short edge-data list with (255, 255, 255), an edge that never exists: never None
    _drv().graph_remove_dependencies(_h(graph, _cudaGraph_t), froms, tos, _cast("list[_EdgeData]", eds))
    return _OK


def _pad_nodes(handles: list[int], n: int) -> list[Any]:
    return _B.pad_nodes(handles, n, _mk_node)


@_rt()
def cudaGraphGetNodes(graph: Any, numNodes: Any = 0) -> _Result:
    """The graph's nodes in creation order: ``(cudaSuccess, [cudaGraphNode_t], count)``.

    ``numNodes=0`` (the default) only counts: ``([], N)``; a larger value pads the list with
    ``cudaGraphNode_t(0)`` and returns N; a smaller one returns that many nodes and that count.
    """
    n = _size(numNodes)
    _T.check_calloc(n)
    nodes = _drv().graph_get_nodes(_h(graph, _cudaGraph_t))
    return (_SUCCESS, _pad_nodes(nodes, n), len(nodes) if n == 0 or n >= len(nodes) else n)


@_rt()
def cudaGraphGetRootNodes(graph: Any, pNumRootNodes: Any = 0) -> _Result:
    """Nodes with no incoming edge; count-only and padding as :func:`cudaGraphGetNodes`."""
    n = _size(pNumRootNodes)
    _T.check_calloc(n)
    nodes = _drv().graph_get_root_nodes(_h(graph, _cudaGraph_t))
    return (_SUCCESS, _pad_nodes(nodes, n), len(nodes) if n == 0 or n >= len(nodes) else n)


@_rt()
def cudaGraphGetEdges(graph: Any, numEdges: Any = 0) -> _Result:
    """``(cudaSuccess, from, to, edgeData, count)`` in creation order, ``to[i]`` depending on ``from[i]``.

    ``numEdges=0`` only counts; a larger value pads with ``cudaGraphNode_t(0)`` and zero edge data.
    """
    n = _size(numEdges)
    _T.check_calloc(n)
    edges = _drv().graph_get_edges(_h(graph, _cudaGraph_t))
    frm = _pad_nodes([a for a, _, _ in edges], n)
    to = _pad_nodes([b for _, b, _ in edges], n)
    eds = _B.pad_edges([ed for _, _, ed in edges], n, _edge, _cudaGraphEdgeData)
    return (_SUCCESS, frm, to, eds, len(edges) if n == 0 or n >= len(edges) else n)


def _node_deps(node: Any, n: Any, dependents: bool) -> _Result:
    n = _size(n)
    _T.check_calloc(n)
    pairs = _drv().graph_node_get_dependencies(_h(node, _cudaGraphNode_t), dependents)
    nodes = _pad_nodes([a for a, _ in pairs], n)
    eds = _B.pad_edges([ed for _, ed in pairs], n, _edge, _cudaGraphEdgeData)
    return (_SUCCESS, nodes, eds, len(pairs) if n == 0 or n >= len(pairs) else n)


@_rt()
def cudaGraphNodeGetDependencies(node: Any, pNumDependencies: Any = 0) -> _Result:
    """The node's dependencies with edge data: ``(cudaSuccess, nodes, edgeData, count)``."""
    return _node_deps(node, pNumDependencies, False)


@_rt()
def cudaGraphNodeGetDependentNodes(node: Any, pNumDependentNodes: Any = 0) -> _Result:
    """The nodes that depend on this one, with edge data: ``(cudaSuccess, nodes, edgeData, count)``."""
    return _node_deps(node, pNumDependentNodes, True)


@_rt()
def cudaGraphInstantiateWithParams(graph: Any, instantiateParams: Any) -> _Result:
    """Instantiate from ``cudaGraphInstantiateParams`` (``flags``, ``uploadStream`` with the UPLOAD flag);
    writes ``result_out`` and ``errNode_out`` into the struct.

    Mirrors ``cuda.bindings.runtime.cudaGraphInstantiateWithParams(graph, instantiateParams)``; returns
    ``(cudaError_t, cudaGraphExec_t)``.
    """
    p = _struct_arg(instantiateParams, "cudaGraphInstantiateParams", "instantiateParams",
                    "cudaGraphInstantiateWithParams")
    d = _drv()
    flags = int(p.flags)
    try:
        x = d.graph_instantiate_with_params(_h(graph, _cudaGraph_t), flags, int(p.uploadStream))
    except _DriverError as e:
        p._d["result_out"] = getattr(e, "instantiate_result", 1)
        p._d["errNode_out"] = _mk_node(getattr(e, "err_node", 0))
        raise
    p._d["result_out"] = 0
    p._d["errNode_out"] = _mk_node(0)
    return (_SUCCESS, _mk_exec(x))


@_rt()
def cudaGraphExecUpdate(hGraphExec: Any, hGraph: Any) -> _Result:
    """Update an exec from a graph of the same topology: ``(cudaSuccess, cudaGraphExecUpdateResultInfo)``.

    On failure (cudaErrorGraphExecUpdateFailure, 910) the info slot is ``None`` like every output on
    error; the reason (TOPOLOGY_CHANGED, NODE_TYPE_CHANGED...) is in ``simcuda.last_error().why``.
    Graphs that created different numbers of nodes give NOT_SUPPORTED (spec 16) [I].
    """
    result, enode, efrom = _drv().graph_exec_update(_h(hGraphExec, _cudaGraphExec_t), _h(hGraph, _cudaGraph_t))
    info = _RCLS["cudaGraphExecUpdateResultInfo"]()
    info._d["result"] = result
    info._d["errorNode"] = _mk_node(enode)
    info._d["errorFromNode"] = _mk_node(efrom)
    return (_SUCCESS, info)


@_rt()
def cudaGraphDebugDotPrint(graph: Any, path: Any, flags: Any) -> _Result:
    """Write the graph as Graphviz DOT (spec 9.1). ``path``: ``bytes`` (``str`` raises ``TypeError``)."""
    p = _A.bytes_arg(path)
    _drv().graph_debug_dot_print(_h(graph, _cudaGraph_t), os.fsdecode(p), _u(flags))
    return _OK


# =========================================================================== conditional nodes (topic: conditional)
@_rt()
def cudaGraphAddNode(graph: Any, pDependencies: Any, dependencyData: Any, numDependencies: Any,
                     nodeParams: Any) -> _Result:
    """Add a node from a ``cudaGraphNodeParams`` tagged union. Served for ``cudaGraphNodeTypeConditional``
    (``conditional``: ``handle``, ``type``, ``size``, ``ctx``; the body graphs are written back into
    ``conditional.phGraph_out``) and ``cudaGraphNodeTypeEmpty``; the other types are cudaErrorNotSupported here
    (use the typed ``cudaGraphAdd*Node`` calls) [simulator limit]."""
    deps = _deps(pDependencies, numDependencies)
    eds = _B.eds_for(_edge_list(dependencyData, "dependencyData"), len(deps))
    p = _struct_arg(nodeParams, "cudaGraphNodeParams", "nodeParams", "cudaGraphAddNode")
    d = _drv()
    t = int(p._raw("type"))
    hg = _h(graph, _cudaGraph_t)
    if t == 13:
        c = p.conditional._d
        spec = {"handle": int(c["handle"]), "type": int(c["type"]), "size": int(c["size"]), "ctx": int(c["ctx"])}
        h, bodies = d.graph_add_node(hg, deps, t, spec, eds, "cudaGraphAddNode")
        c["phGraph_out"] = [_mk_graph(b) for b in bodies]
        return (_SUCCESS, _mk_node(h))
    if t == 5:
        return (_SUCCESS, _mk_node(d.graph_add_node(hg, deps, t, None, eds, "cudaGraphAddNode")[0]))
    d.check_node_type(t, "cudaGraphAddNode")
    raise d.not_simulated("cudaGraphAddNode", f"cudaGraphAddNode of node type {t}: the runtime face serves "
                                              "conditional and empty nodes only; use the typed cudaGraphAdd*Node "
                                              "calls [simulator limit]")


# =========================================================================== several devices (issue 10)
def _dev_ptr(x: Any) -> int:
    """A device-pointer ``void*`` argument (``int``, a pointer object, None for NULL) as an address; a host buffer
    gives its host address, which the core then refuses as no device memory."""
    from ..._core.memory.memory_model import host_address
    v = _ptr(x)
    if v is None:
        return 0
    return int(v) if isinstance(v, int) else int(host_address(v) or 0)


def _peer_ctx(d: Any, dev: Any) -> int:
    """The primary context of device ``dev`` (an ordinal), retained by the runtime on first use as every runtime
    call that names a device does. Errors: cudaErrorInvalidDevice (101) for a bad ordinal."""
    n = _T.to_int(dev)
    d.device_get(n)
    return _primary(d, _state(d), n)


@_rt()
def cudaDeviceEnablePeerAccess(peerDevice: Any, flags: Any) -> _Result:
    """Let the current device's context reach ``peerDevice``'s primary context (retained on first use).

    Where the runtime differs: cudaErrorInvalidDevice (101) for a bad ordinal, and for ``peerDevice`` the current
    device (cudaDeviceCanAccessPeer says no), where the driver entry answers 201 or 217.
    """
    d = _drv()
    fl = _u(flags)
    d.ctx_enable_peer_access(_peer_ctx(d, peerDevice), fl, call="cudaDeviceEnablePeerAccess")
    return _OK


@_rt()
def cudaDeviceDisablePeerAccess(peerDevice: Any) -> _Result:
    """Undo :func:`cudaDeviceEnablePeerAccess` (cudaErrorInvalidDevice for a bad ordinal)."""
    d = _drv()
    d.ctx_disable_peer_access(_peer_ctx(d, peerDevice), call="cudaDeviceDisablePeerAccess")
    return _OK


@_rt()
def cudaMemcpyPeer(dst: Any, dstDevice: Any, src: Any, srcDevice: Any, count: Any) -> _Result:
    """Synchronous copy of ``count`` bytes from device memory of ``srcDevice`` to ``dstDevice`` (their primary
    contexts; cudaErrorInvalidDevice for a bad ordinal)."""
    d = _drv()
    dp, sp, n = _dev_ptr(dst), _dev_ptr(src), _size(count)
    d.memcpy_peer(dp, _peer_ctx(d, dstDevice), sp, _peer_ctx(d, srcDevice), n, None, "cudaMemcpyPeer")
    return _OK


@_rt()
def cudaMemcpyPeerAsync(dst: Any, dstDevice: Any, src: Any, srcDevice: Any, count: Any, stream: Any) -> _Result:
    """Asynchronous :func:`cudaMemcpyPeer` on ``stream``: a MEMCPY node during capture (spec 3.8)."""
    d = _drv()
    dp, sp, n = _dev_ptr(dst), _dev_ptr(src), _size(count)
    h = _h(stream, _cudaStream_t)
    d.memcpy_peer(dp, _peer_ctx(d, dstDevice), sp, _peer_ctx(d, srcDevice), n, h, "cudaMemcpyPeerAsync")
    return _OK


@_rt("init")
def cudaDeviceGetPCIBusId(length: Any, device: Any) -> _Result:
    """The PCI location as ``bytes`` of ``length`` bytes (NUL-terminated, then padding, as ``cuDeviceGetPCIBusId``
    of the driver face)."""
    n = _T.c_int(length)
    bus = _drv().device_get_pci_bus_id(n, _T.to_int(device)).encode() + b"\0"
    return (_SUCCESS, bus + b" " * (n - len(bus)))


@_rt("init")
def cudaDeviceGetByPCIBusId(pciBusId: Any) -> _Result:
    """The ordinal of the device at ``pciBusId`` (``bytes``; ``str`` raises ``TypeError``)."""
    return (_SUCCESS, _drv().device_get_by_pci_bus_id(_A.bytes_arg(pciBusId).decode("latin-1")))


@_rt()
def cudaMemcpyBatchAsync(dsts: Any, srcs: Any, sizes: Any, count: Any, attrs: Any, attrsIdxs: Any, numAttrs: Any,
                         stream: Any) -> _Result:
    """A batch of copies (``attrs``: ``cudaMemcpyAttributes``); the driver entry's rules."""
    ds, ss, ns, orders, idxs = _B.memcpy_batch_args([_dev_ptr(x) for x in (dsts or [])],
                                                    [_dev_ptr(x) for x in (srcs or [])], sizes, count, attrs,
                                                    attrsIdxs, numAttrs)
    _drv().memcpy_batch(ds, ss, ns, orders, idxs, _h(stream, _cudaStream_t), "cudaMemcpyBatchAsync")
    return _OK


# 3D batched copies (topic: batch3d)
@_rt()
def cudaMemcpy3DBatchAsync(numOps: Any, opList: Any, flags: Any, stream: Any) -> _Result:
    """A batch of 3D copies (``opList``: ``cudaMemcpy3DBatchOp``); the driver entry's rules."""
    ops = _B.memcpy3d_batch_ops(numOps, opList, globals()["cudaMemcpy3DBatchOp"], "cyruntime.cudaMemcpy3DBatchOp")
    _drv().memcpy3d_batch(ops, _u(flags, 64, "unsigned long long"), _h(stream, _cudaStream_t),
                          "cudaMemcpy3DBatchAsync")
    return _OK


# =========================================================================== struct helpers
def make_cudaPos(x: Any, y: Any, z: Any) -> Any:
    """Mirrors ``make_cudaPos(x, y, z)``: a ``cudaPos`` (``x`` in bytes for linear memory, ``y`` rows, ``z`` slices)."""
    p = _RCLS["cudaPos"]()
    p.x, p.y, p.z = _size(x), _size(y), _size(z)
    return p


def make_cudaExtent(w: Any, h: Any, d: Any) -> Any:
    """Mirrors ``make_cudaExtent(w, h, d)``: a ``cudaExtent`` (``width`` in bytes for linear memory)."""
    e = _RCLS["cudaExtent"]()
    e.width, e.height, e.depth = _size(w), _size(h), _size(d)
    return e


def make_cudaPitchedPtr(d: Any, p: Any, xsz: Any, ysz: Any) -> Any:
    """Mirrors ``make_cudaPitchedPtr(d, p, xsz, ysz)``: a ``cudaPitchedPtr``.

    Args: ``d``: None, an ``int`` address or a buffer (a ctypes object, numpy array: its address is
    what ``.ptr`` reads back; the object itself is kept so host memory stays alive and bounds-checked);
    ``p``: pitch in bytes; ``xsz``: logical width in elements; ``ysz``: height in rows. Any other type
    raises ``TypeError`` as in the real wrapper.
    """
    pp = _RCLS["cudaPitchedPtr"]()
    pp.ptr = d
    pp.pitch, pp.xsize, pp.ysize = _size(p), _size(xsz), _size(ysz)
    return pp


# =========================================================================== entries built from the table
#: what the executor (:func:`simcuda.faces.bindings._build.build`) needs to know of this face
_FACE = _B.FaceSpec(__name__, globals(), _OUTPUTS, _PARAMS, lambda t: "enum " + t, _SUCCESS, _drv,
                    handle_types=(_T.Wrapper, _NvHandle), node_array=_deps, docs_by_position=True)


def _build(row: _Runtime) -> _Callable[..., _Result]:
    """The runtime function of a :data:`simcuda._core.api.RUNTIME_ROWS` row, by the faces' one executor: the
    row's own call, or the driver row's with the runtime wrapper's parameters in place of the driver's, one for
    one; then the runtime's set-up, ``cudaError_t`` translation and last error (:func:`_rt`)."""
    if row.shape:
        call, rename = row.call, {}
    else:
        call = _API[row.driver].call
        dsig = _B.signature_params(_DRIVER_OUTPUTS[row.driver][0])
        rsig = _B.signature_params(_OUTPUTS[row.name][0])
        if len(dsig) != len(rsig):
            raise AssertionError(f"{row.name}: {len(rsig)} parameters, {row.driver} {len(dsig)}: give the row a call")
        rename = {d[0]: r[0] for d, r in zip(dsig, rsig)}
    fn = _B.build(_FACE, row.name, call, rename)
    fn.__doc__ = row.doc
    return _rt(row.needs)(fn)


for _row in _RUNTIME_ROWS:
    if not _row.particular:
        globals()[_row.name] = _build(_row)
del _row


# =========================================================================== the rest: not simulated
def _refuse_not_simulated(name: str, why: str) -> cudaError_t:
    d = _drv()
    err = cuda_error(d.not_simulated(name, why).code)
    _record(d, err)
    return err


#: real functions this face does not simulate (each returns cudaErrorNotSupported)
_NOT_SIMULATED: tuple[str, ...] = tuple(_T.install_stubs(globals(), _OUTPUTS, __name__, "cudaErrorNotSupported",
                                               _refuse_not_simulated))
