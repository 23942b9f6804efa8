"""Simulated ``cuda.bindings.driver`` (cuda-bindings 13.5.0): tuple-returning, never raises for a CUresult.

Mirrors: ``cuda.bindings.driver`` of cuda-bindings 13.5.0 (CUDA 13.x driver API), spec section 11.1.

* Every function returns a tuple whose first element is a ``CUresult``, followed by the outputs in
  the order of the real docstring; on an error every output slot is ``None`` and the length is the
  same. The output counts come from the real docstrings (:mod:`simcuda._generated.driver_outputs`).
* Python-level misuse that the real wrapper rejects before reaching the driver raises the same
  exception here (``TypeError: an integer is required`` for a ``str`` handle, ``RuntimeError: List
  is too small: 1 < 3`` ...). Nothing else raises, except ``ValueError`` for a malformed
  ``CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM`` (spec 6.1), on every call, like the binding.
* This module only translates: it converts arguments to plain values, calls the current
  :class:`simcuda.Driver` (``simcuda.use`` / ``simcuda.reset``), and turns a ``DriverError`` into
  ``(CUresult, None, ...)``. Each rule, code and ``why`` lives in the core; ``simcuda.last_error()``
  gives the ``why`` of the last failure on this thread.
* Every function of the real module exists. The ones that are not simulated return
  ``(CUDA_ERROR_NOT_SUPPORTED, None, ...)`` with a ``why`` that says so (``simcuda.last_error()``).
"""
from __future__ import annotations

import types as _types
import typing as _typing
from collections.abc import Callable as _Callable
from typing import Any, Optional  # noqa: F401  (the real module exports both names)

from ..._core.api import API as _API
from ..._core.api import ROWS as _ROWS
from ..._generated import driver_enums as _E
from ..._generated.driver_outputs import OUTPUTS as _OUTPUTS
from ..._generated.driver_outputs import PARAMS as _PARAMS
from . import _driver_types as _T
from . import _executor as _B
from ._driver_contexts import cuCtxCreate as cuCtxCreate
from ._driver_contexts import cuDeviceGetByPCIBusId as cuDeviceGetByPCIBusId
from ._driver_contexts import cuDeviceGetPCIBusId as cuDeviceGetPCIBusId
from ._driver_contexts import cuEventRecord as cuEventRecord
from ._driver_contexts import cuStreamAddCallback as cuStreamAddCallback
from ._driver_contexts import cuStreamBeginCaptureToCig as cuStreamBeginCaptureToCig
from ._driver_contexts import cuStreamBeginCaptureToGraph as cuStreamBeginCaptureToGraph
from ._driver_contexts import cuStreamGetCaptureInfo as cuStreamGetCaptureInfo
from ._driver_contexts import cuStreamUpdateCaptureDependencies as cuStreamUpdateCaptureDependencies
from ._driver_contexts import cuStreamWaitEvent as cuStreamWaitEvent
from ._driver_contexts import cuThreadExchangeStreamCaptureMode as cuThreadExchangeStreamCaptureMode
from ._driver_face import (
    _SUCCESS,
    _CUfunction,
    _CUstream,
    _deps_for,
    _drv,
    _face,
    _Result,
)
from ._driver_face import memcpy3d_batch_ops as memcpy3d_batch_ops
from ._driver_face import memcpy_batch_args as memcpy_batch_args
from ._driver_face import sizeof as sizeof
from ._driver_graphs import cuGraphAddBatchMemOpNode as cuGraphAddBatchMemOpNode
from ._driver_graphs import cuGraphAddDependencies as cuGraphAddDependencies
from ._driver_graphs import cuGraphAddNode as cuGraphAddNode
from ._driver_graphs import cuGraphAddNode_v3 as cuGraphAddNode_v3
from ._driver_graphs import cuGraphBatchMemOpNodeGetParams as cuGraphBatchMemOpNodeGetParams
from ._driver_graphs import cuGraphDebugDotPrint as cuGraphDebugDotPrint
from ._driver_graphs import cuGraphEventRecordNodeGetEvent as cuGraphEventRecordNodeGetEvent
from ._driver_graphs import cuGraphEventWaitNodeGetEvent as cuGraphEventWaitNodeGetEvent
from ._driver_graphs import cuGraphExecNodeSetParams as cuGraphExecNodeSetParams
from ._driver_graphs import cuGraphExecUpdate as cuGraphExecUpdate
from ._driver_graphs import cuGraphExternalSemaphoresSignalNodeGetParams as cuGraphExternalSemaphoresSignalNodeGetParams
from ._driver_graphs import cuGraphExternalSemaphoresWaitNodeGetParams as cuGraphExternalSemaphoresWaitNodeGetParams
from ._driver_graphs import cuGraphHostNodeGetParams as cuGraphHostNodeGetParams
from ._driver_graphs import cuGraphInstantiateWithParams as cuGraphInstantiateWithParams
from ._driver_graphs import cuGraphKernelNodeGetParams as cuGraphKernelNodeGetParams
from ._driver_graphs import cuGraphMemAllocNodeGetParams as cuGraphMemAllocNodeGetParams
from ._driver_graphs import cuGraphMemcpyNodeGetParams as cuGraphMemcpyNodeGetParams
from ._driver_graphs import cuGraphMemFreeNodeGetParams as cuGraphMemFreeNodeGetParams
from ._driver_graphs import cuGraphMemsetNodeGetParams as cuGraphMemsetNodeGetParams
from ._driver_graphs import cuGraphNodeGetParams as cuGraphNodeGetParams
from ._driver_graphs import cuGraphNodeSetParams as cuGraphNodeSetParams
from ._driver_graphs import cuGraphNodeSetParams_v2 as cuGraphNodeSetParams_v2
from ._driver_graphs import cuGraphRemoveDependencies as cuGraphRemoveDependencies
from ._driver_graphs import cuSignalExternalSemaphoresAsync as cuSignalExternalSemaphoresAsync
from ._driver_graphs import cuStreamBatchMemOp as cuStreamBatchMemOp
from ._driver_graphs import cuStreamWaitValue32 as cuStreamWaitValue32
from ._driver_graphs import cuStreamWaitValue64 as cuStreamWaitValue64
from ._driver_graphs import cuStreamWriteValue32 as cuStreamWriteValue32
from ._driver_graphs import cuStreamWriteValue64 as cuStreamWriteValue64
from ._driver_graphs import cuWaitExternalSemaphoresAsync as cuWaitExternalSemaphoresAsync
from ._driver_memory import cuDeviceGetGraphMemAttribute as cuDeviceGetGraphMemAttribute
from ._driver_memory import cuDeviceSetGraphMemAttribute as cuDeviceSetGraphMemAttribute
from ._driver_memory import cuMemAdvise as cuMemAdvise
from ._driver_memory import cuMemcpy3DBatchAsync as cuMemcpy3DBatchAsync
from ._driver_memory import cuMemcpyBatchAsync as cuMemcpyBatchAsync
from ._driver_memory import cuMemcpyDtoH as cuMemcpyDtoH
from ._driver_memory import cuMemcpyDtoHAsync as cuMemcpyDtoHAsync
from ._driver_memory import cuMemcpyHtoD as cuMemcpyHtoD
from ._driver_memory import cuMemcpyHtoDAsync as cuMemcpyHtoDAsync
from ._driver_memory import cuMemCreate as cuMemCreate
from ._driver_memory import cuMemGetAccess as cuMemGetAccess
from ._driver_memory import cuMemGetAllocationGranularity as cuMemGetAllocationGranularity
from ._driver_memory import cuMemGetAllocationPropertiesFromHandle as cuMemGetAllocationPropertiesFromHandle
from ._driver_memory import cuMemHostRegister as cuMemHostRegister
from ._driver_memory import cuMemHostUnregister as cuMemHostUnregister
from ._driver_memory import cuMemPoolCreate as cuMemPoolCreate
from ._driver_memory import cuMemPoolGetAccess as cuMemPoolGetAccess
from ._driver_memory import cuMemPoolGetAttribute as cuMemPoolGetAttribute
from ._driver_memory import cuMemPoolSetAccess as cuMemPoolSetAccess
from ._driver_memory import cuMemPoolSetAttribute as cuMemPoolSetAttribute
from ._driver_memory import cuMemPrefetchAsync as cuMemPrefetchAsync
from ._driver_memory import cuMemSetAccess as cuMemSetAccess
from ._driver_memory import cuPointerGetAttribute as cuPointerGetAttribute
from ._driver_memory import cuPointerGetAttributes as cuPointerGetAttributes
from ._driver_memory import cuUserObjectCreate as cuUserObjectCreate
from ._driver_modules import cuArrayCreate as cuArrayCreate
from ._driver_modules import cuLaunchCooperativeKernel as cuLaunchCooperativeKernel
from ._driver_modules import cuLaunchHostFunc as cuLaunchHostFunc
from ._driver_modules import cuLaunchHostFunc_v2 as cuLaunchHostFunc_v2
from ._driver_modules import cuLaunchKernel as cuLaunchKernel
from ._driver_modules import cuLaunchKernelEx as cuLaunchKernelEx
from ._driver_modules import cuLibraryGetGlobal as cuLibraryGetGlobal
from ._driver_modules import cuLibraryGetKernel as cuLibraryGetKernel
from ._driver_modules import cuLibraryLoadData as cuLibraryLoadData
from ._driver_modules import cuLibraryLoadFromFile as cuLibraryLoadFromFile
from ._driver_modules import cuLinkAddData as cuLinkAddData
from ._driver_modules import cuLinkAddFile as cuLinkAddFile
from ._driver_modules import cuLinkCreate as cuLinkCreate
from ._driver_modules import cuModuleGetFunction as cuModuleGetFunction
from ._driver_modules import cuModuleGetGlobal as cuModuleGetGlobal
from ._driver_modules import cuModuleLoad as cuModuleLoad
from ._driver_modules import cuModuleLoadData as cuModuleLoadData
from ._driver_modules import cuModuleLoadDataEx as cuModuleLoadDataEx
from ._driver_modules import cuModuleLoadFatBinary as cuModuleLoadFatBinary
from ._driver_node_params import READERS as _READERS

# -- enums and integer constants (generated from the real module) -------------------------------
globals().update(_E.__all_enums__)
globals().update(_E.__int_constants__)

# -- every class of the real module (wrappers, structs, placeholders) ---------------------------
globals().update(_T.build_classes())

if _typing.TYPE_CHECKING:

    # The enums, constants, classes and not-simulated stubs of the real module are put into this namespace at
    # import time (globals().update, install_stubs), which the checker cannot follow: to it, a name it does not
    # find here is Any.
    def __getattr__(name: str) -> Any: ...

# the hand-written functions are written in the _driver_* modules, by concept; they are this module's functions
for _fn in list(globals().values()):
    if isinstance(_fn, _types.FunctionType) and _fn.__module__.startswith(__name__.rpartition(".")[0] + "._driver_"):
        _fn.__module__ = __name__
del _fn

# cuLaunchKernel reads these wrappers' values inline, as their (inherited) __int__ does
assert _CUstream.__int__ is _T.Wrapper.__int__ and _CUfunction.__int__ is _T.Wrapper.__int__


# =========================================================================== entries built from the table
_ENUM_CNAME = {"CUresult": "cudaError_enum"}  # the C enum behind a wrapper enum, where it is not "<name>_enum"
#: what the executor (:func:`simcuda.faces.bindings._executor.build`) needs to know of this face
_FACE = _B.FaceSpec(__name__, globals(), _OUTPUTS, _PARAMS, lambda t: _ENUM_CNAME.get(t, t + "_enum"), _SUCCESS, _drv,
                    node_array=_deps_for, readers=_READERS)


def _build(name: str) -> _Callable[..., _Result]:
    """The tuple-face function of a table row with a complete shape (:mod:`simcuda._core.api`), built by the
    faces' one executor (:func:`simcuda.faces.bindings._executor.build`) and checked in the real wrapper's order
    (:func:`_face`)."""
    return _face(_B.build(_FACE, name, _API[name].call))


for _row in _ROWS:
    if not _row.particular:
        globals()[_row.name] = _build(_row.name)
del _row


def _refuse_not_simulated(name: str, why: str) -> Any:
    return _drv().not_simulated(name, why).code


#: real functions this face does not simulate (each returns CUDA_ERROR_NOT_SUPPORTED)
_NOT_SIMULATED: tuple[str, ...] = tuple(_T.install_stubs(globals(), _OUTPUTS, __name__, "CUDA_ERROR_NOT_SUPPORTED",
                                               _refuse_not_simulated))
