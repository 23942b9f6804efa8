"""Simulated ``cuda.bindings.runtime`` (cudart, cuda-bindings 13.5.0 call shapes): tuple-returning.

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
import types as _types
import typing as _typing
from collections.abc import Callable as _Callable
from typing import Any, Optional  # noqa: F401  (the real module exports both names)

from .._core.api import API as _API
from .._core.rows import Runtime as _Runtime
from .._core.runtime_rows import RUNTIME_ROWS as _RUNTIME_ROWS
from .._generated import runtime_enums as _E
from .._generated.driver_outputs import OUTPUTS as _DRIVER_OUTPUTS
from .._generated.runtime_outputs import OUTPUTS as _OUTPUTS
from .._generated.runtime_outputs import PARAMS as _PARAMS
from . import _build as _B
from . import _driver_types as _T
from ._runtime_devices import cudaDeviceDisablePeerAccess as cudaDeviceDisablePeerAccess
from ._runtime_devices import cudaDeviceEnablePeerAccess as cudaDeviceEnablePeerAccess
from ._runtime_devices import cudaDeviceGetByPCIBusId as cudaDeviceGetByPCIBusId
from ._runtime_devices import cudaDeviceGetPCIBusId as cudaDeviceGetPCIBusId
from ._runtime_devices import cudaDeviceReset as cudaDeviceReset
from ._runtime_devices import cudaDriverGetVersion as cudaDriverGetVersion
from ._runtime_devices import cudaGetDevice as cudaGetDevice
from ._runtime_devices import cudaGetDeviceFlags as cudaGetDeviceFlags
from ._runtime_devices import cudaGetDeviceProperties as cudaGetDeviceProperties
from ._runtime_devices import cudaGetErrorName as cudaGetErrorName
from ._runtime_devices import cudaGetErrorString as cudaGetErrorString
from ._runtime_devices import cudaGetLastError as cudaGetLastError
from ._runtime_devices import cudaInitDevice as cudaInitDevice
from ._runtime_devices import cudaMemcpy3DBatchAsync as cudaMemcpy3DBatchAsync
from ._runtime_devices import cudaMemcpyBatchAsync as cudaMemcpyBatchAsync
from ._runtime_devices import cudaMemcpyPeer as cudaMemcpyPeer
from ._runtime_devices import cudaMemcpyPeerAsync as cudaMemcpyPeerAsync
from ._runtime_devices import cudaPeekAtLastError as cudaPeekAtLastError
from ._runtime_devices import cudaRuntimeGetVersion as cudaRuntimeGetVersion
from ._runtime_devices import cudaSetDevice as cudaSetDevice
from ._runtime_devices import cudaSetDeviceFlags as cudaSetDeviceFlags
from ._runtime_devices import cudaStreamBeginCaptureToGraph as cudaStreamBeginCaptureToGraph
from ._runtime_devices import cudaStreamGetCaptureInfo as cudaStreamGetCaptureInfo
from ._runtime_devices import cudaStreamGetDevice as cudaStreamGetDevice
from ._runtime_devices import cudaStreamUpdateCaptureDependencies as cudaStreamUpdateCaptureDependencies
from ._runtime_devices import getLocalRuntimeVersion as getLocalRuntimeVersion
from ._runtime_face import (
    _RT_CLASSES,
    _SUCCESS,
    _deps,
    _drv,
    _NvHandle,
    _record,
    _Result,
    _rt,
    cudaError_t,
)
from ._runtime_face import CURESULT_EXCEPTIONS as CURESULT_EXCEPTIONS
from ._runtime_face import CURESULT_TO_CUDA_ERROR as CURESULT_TO_CUDA_ERROR
from ._runtime_face import NATIVE_NAME as NATIVE_NAME
from ._runtime_face import cuda_error as cuda_error
from ._runtime_face import sizeof as sizeof
from ._runtime_graphs import cudaGraphAddDependencies as cudaGraphAddDependencies
from ._runtime_graphs import cudaGraphAddHostNode as cudaGraphAddHostNode
from ._runtime_graphs import cudaGraphAddKernelNode as cudaGraphAddKernelNode
from ._runtime_graphs import cudaGraphAddMemcpyNode as cudaGraphAddMemcpyNode
from ._runtime_graphs import cudaGraphAddMemcpyNode1D as cudaGraphAddMemcpyNode1D
from ._runtime_graphs import cudaGraphAddMemsetNode as cudaGraphAddMemsetNode
from ._runtime_graphs import cudaGraphAddNode as cudaGraphAddNode
from ._runtime_graphs import cudaGraphDebugDotPrint as cudaGraphDebugDotPrint
from ._runtime_graphs import cudaGraphExecUpdate as cudaGraphExecUpdate
from ._runtime_graphs import cudaGraphGetEdges as cudaGraphGetEdges
from ._runtime_graphs import cudaGraphGetNodes as cudaGraphGetNodes
from ._runtime_graphs import cudaGraphGetRootNodes as cudaGraphGetRootNodes
from ._runtime_graphs import cudaGraphInstantiateWithParams as cudaGraphInstantiateWithParams
from ._runtime_graphs import cudaGraphNodeGetDependencies as cudaGraphNodeGetDependencies
from ._runtime_graphs import cudaGraphNodeGetDependentNodes as cudaGraphNodeGetDependentNodes
from ._runtime_graphs import cudaGraphRemoveDependencies as cudaGraphRemoveDependencies
from ._runtime_memory import cudaDeviceGetGraphMemAttribute as cudaDeviceGetGraphMemAttribute
from ._runtime_memory import cudaDeviceSetGraphMemAttribute as cudaDeviceSetGraphMemAttribute
from ._runtime_memory import cudaFreeHost as cudaFreeHost
from ._runtime_memory import cudaMallocPitch as cudaMallocPitch
from ._runtime_memory import cudaMemAdvise as cudaMemAdvise
from ._runtime_memory import cudaMemcpy as cudaMemcpy
from ._runtime_memory import cudaMemcpy2D as cudaMemcpy2D
from ._runtime_memory import cudaMemcpy2DAsync as cudaMemcpy2DAsync
from ._runtime_memory import cudaMemcpy3D as cudaMemcpy3D
from ._runtime_memory import cudaMemcpy3DAsync as cudaMemcpy3DAsync
from ._runtime_memory import cudaMemcpyAsync as cudaMemcpyAsync
from ._runtime_memory import cudaMemPoolCreate as cudaMemPoolCreate
from ._runtime_memory import cudaMemPoolGetAccess as cudaMemPoolGetAccess
from ._runtime_memory import cudaMemPoolGetAttribute as cudaMemPoolGetAttribute
from ._runtime_memory import cudaMemPoolSetAccess as cudaMemPoolSetAccess
from ._runtime_memory import cudaMemPoolSetAttribute as cudaMemPoolSetAttribute
from ._runtime_memory import cudaMemPrefetchAsync as cudaMemPrefetchAsync
from ._runtime_memory import cudaMemset as cudaMemset
from ._runtime_memory import cudaMemset2D as cudaMemset2D
from ._runtime_memory import cudaMemset2DAsync as cudaMemset2DAsync
from ._runtime_memory import cudaMemsetAsync as cudaMemsetAsync
from ._runtime_memory import cudaPointerGetAttributes as cudaPointerGetAttributes
from ._runtime_memory import make_cudaExtent as make_cudaExtent
from ._runtime_memory import make_cudaPitchedPtr as make_cudaPitchedPtr
from ._runtime_memory import make_cudaPos as make_cudaPos

# -- enums and integer constants (generated from the real module) -------------------------------
globals().update(_E.__all_enums__)
globals().update(_E.__int_constants__)
globals().update(_RT_CLASSES)

# the hand-written functions are written in the _runtime_* modules, by concept; they are this module's functions
for _fn in list(globals().values()):
    if isinstance(_fn, _types.FunctionType) and _fn.__module__.startswith(__name__.rpartition(".")[0] + "._runtime_"):
        _fn.__module__ = __name__
del _fn

if _typing.TYPE_CHECKING:

    # The enums, constants, classes and not-simulated stubs of the real module are put into this namespace at
    # import time (globals().update, install_stubs), which the checker cannot follow: to it, a name it does not
    # find here is Any.
    def __getattr__(name: str) -> Any: ...


# =========================================================================== entries built from the table
#: what the executor (:func:`simcuda.bindings._build.build`) needs to know of this face
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
