"""Simulated ``cuda.bindings.runtime`` (cudart, cuda-bindings 13.5.0 call shapes): tuple-returning.

How it is split (issue 18 item 4): the native route loads this file a second time under :data:`NATIVE_NAME`
(``simcuda._patch``), so that its handle classes derive from NVIDIA's. This file holds what each load builds for
itself: the classes, the per-driver runtime state, the wrapper :func:`_rt`, the functions built from the table. The
hand-written functions are written in :mod:`~simcuda.faces.bindings._runtime_memory` and
:mod:`~simcuda.faces.bindings._runtime_graphs` and copied into each load's namespace
(:func:`~simcuda.faces.bindings._runtime_shared.install`), so that they read that load's classes, at the cost of a
function written here; what reads no class is in :mod:`~simcuda.faces.bindings._runtime_shared`, shared by both.

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
import os  # noqa: F401  (a name of the module since its first version)
import threading  # noqa: F401  (a name of the module since its first version)
import typing as _typing
from collections.abc import Callable as _Callable
from typing import Any, Optional  # noqa: F401  (the real module exports both names)
from typing import ParamSpec as _ParamSpec

from ..._core.api import API as _API
from ..._core.errors import DriverError as _DriverError
from ..._core.rows import Runtime as _Runtime
from ..._core.runtime_rows import RUNTIME_ROWS as _RUNTIME_ROWS
from ..._generated import runtime_enums as _E
from ..._generated.driver_enums import CUresult as _CUresult
from ..._generated.driver_outputs import OUTPUTS as _DRIVER_OUTPUTS
from ..._generated.runtime_outputs import CLASSES as _CLASSES
from ..._generated.runtime_outputs import OUTPUTS as _OUTPUTS
from ..._generated.runtime_outputs import PARAMS as _PARAMS
from ..._state import PerDriver as _PerDriver
from . import _args as _A
from . import _driver_types as _T
from . import _executor as _B
from . import _runtime_graphs as _RG
from . import _runtime_memory as _RM
from . import _runtime_shared as _S
from ._runtime_shared import OK as _OK  # noqa: F401
from ._runtime_shared import STRUCT_SPECS as _SPECS
from ._runtime_shared import SUCCESS as _SUCCESS
from ._runtime_shared import RtError as _RtError
from ._runtime_shared import RtState as _RtState
from ._runtime_shared import description as _description

# -- enums and integer constants (generated from the real module) -------------------------------
globals().update(_E.__all_enums__)
globals().update(_E.__int_constants__)

cudaError_t = _E.cudaError_t
_Result = _T.Result  # what every function returns: (cudaError_t, *outputs)
_P = _ParamSpec("_P")


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


_RStruct._specs = _SPECS  # the field tables (shared by both loads: they name classes, they hold none)


globals().update(_T.build_face_classes(_CLASSES, _RStruct, _handle_class,
                                       first=("dim3", "cudaPos", "cudaExtent", "cudaPitchedPtr", "CUuuid_st",
                                              "cudaUUID_t")))

if _typing.TYPE_CHECKING:

    # The enums, constants, classes and not-simulated stubs of the real module are put into this namespace at
    # import time (globals().update, install_stubs), which the checker cannot follow: to it, a name it does not
    # find here is Any.
    def __getattr__(name: str) -> Any: ...

    # defined by the parts (see "the hand-written functions" below), read by _rt and _FACE
    _struct_type: Any = None
    _deps: Any = None

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


_drv = _A.current_driver


# =========================================================================== the hand-written functions (its parts)
# copied into this namespace, each wrapped in _rt where its part marks it: they read this load's classes
for _part in (_RM, _RG):
    _S.install(globals(), _part, _rt)
del _part


# =========================================================================== entries built from the table
#: what the executor (:func:`simcuda.faces.bindings._executor.build`) needs to know of this face
#: the runtime's struct readers (written in _runtime_graphs, copied into this load by install)
_READERS = {name: globals()[reader] for name, reader in (
    ("cudaKernelNodeParams", "_kernel_reader"), ("cudaMemsetParams", "_memset_reader"),
    ("cudaHostNodeParams", "_host_reader"), ("cudaMemcpy3DParms", "_copy3d_reader"))}
_FACE = _B.FaceSpec(__name__, globals(), _OUTPUTS, _PARAMS, lambda t: "enum " + t, _SUCCESS, _drv,
                    handle_types=(_T.Wrapper, _NvHandle), node_array=_deps, docs_by_position=True, readers=_READERS)


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
        rename = {d[0].partition("=")[0]: r[0].partition("=")[0] for d, r in zip(dsig, rsig)}  # (defaults)
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
