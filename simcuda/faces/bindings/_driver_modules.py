"""The tuple face's functions of modules, the linker, launches, libraries, arrays and module variables (the
hand-written ones); users import them from :mod:`simcuda.faces.bindings.driver`.
"""
from __future__ import annotations

import enum as _enum
import os
from typing import Any, Optional  # noqa: F401  (the real module exports both names)

from ... import _state as _st
from ..._core.errors import DriverError as _DriverError
from . import _driver_types as _T
from . import _kernel_params as _KP
from ._driver_face import (
    _NS,
    _OK,
    _SUCCESS,
    _U64,
    _bytes_arg,
    _CUdeviceptr,
    _CUfunction,
    _CUhostFn,
    _CUmodule,
    _CUstream,
    _doc,
    _drv,
    _face,
    _h,
    _Result,
    _size,
    _struct_arg,
    _u,
)


# =========================================================================== modules
def _image(image: Any) -> Any:
    """A module image as the real ``void*`` helper takes it: a buffer (bytes, numpy char array) or an ``int``
    address of NUL-terminated text, which the core reads only where it is readable memory (INVALID_VALUE
    otherwise; :mod:`simcuda._core.memory.hostmem`). ``None`` is NULL (an empty image)."""
    x = _T.check_void_ptr_obj(image)
    return b"" if x is None else x


@_face
def cuModuleLoadData(image: Any) -> _Result:
    return (_SUCCESS, _CUmodule._mk(_drv().module_load_data(_image(image))))


@_face
def cuModuleLoadDataEx(image: Any, numOptions: Any, options: Any, optionValues: Any) -> _Result:
    _options(options, optionValues, numOptions)
    return (_SUCCESS, _CUmodule._mk(_drv().module_load_data(_image(image), "cuModuleLoadDataEx")))


def _options(options: Any, values: Any, n: Any) -> None:
    """The wrapper's length checks of an option list and its value list (items were checked by the plan)."""
    n = _u(n)
    for lst in (options, values):
        have = 0 if lst is None else len(list(lst))
        if n > have:
            raise RuntimeError(f"List is too small: {have} < {n}")


def _jit(options: Any, values: Any, n: Any) -> tuple[int, list[int], list[Any]]:
    """A JIT option list as the core takes it, after the wrapper's length checks: ``(numOptions, options,
    values)``, the options and enum values (``CUjit_target``...) as ``int``, other values (a log buffer, an
    ``int``, a ``float``) as given (the core writes the logs into a writable buffer)."""
    _options(options, values, n)
    k = _u(n)
    vals = [int(v.value) if isinstance(v, _enum.Enum) else v for v in list(values or [])[:k]]
    return k, [int(o) for o in list(options or [])[:k]], vals


_CUlinkState = _NS["CUlinkState"]


@_face
def cuLinkCreate(numOptions: Any, options: Any, optionValues: Any) -> _Result:
    return (_SUCCESS, _CUlinkState._mk(_drv().link_create(*_jit(options, optionValues, numOptions))))


@_face
def cuLinkAddData(state: Any, typename: Any, data: Any, size: Any, name: Any, numOptions: Any, options: Any,
                  optionValues: Any) -> _Result:
    _drv().link_add_data(_h(state, _CUlinkState), int(typename), _T.check_void_ptr_obj(data), _size(size),
                         _bytes_arg(name).decode("utf-8", "replace"), *_jit(options, optionValues, numOptions))
    return _OK


@_face
def cuLinkAddFile(state: Any, typename: Any, path: Any, numOptions: Any, options: Any, optionValues: Any) -> _Result:
    _drv().link_add_file(_h(state, _CUlinkState), int(typename), os.fsdecode(_bytes_arg(path)),
                         *_jit(options, optionValues, numOptions))
    return _OK


@_face
def cuModuleLoadFatBinary(fatCubin: Any) -> _Result:
    return (_SUCCESS, _CUmodule._mk(_drv().module_load_data(_image(fatCubin), "cuModuleLoadFatBinary")))


@_face
def cuModuleLoad(fname: Any) -> _Result:
    path = _bytes_arg(fname)
    d = _drv()
    data = d.read_image_file(os.fsdecode(path), "cuModuleLoad")
    return (_SUCCESS, _CUmodule._mk(d.module_load_data(data, "cuModuleLoad")))


@_face
def cuModuleGetFunction(hmod: Any, name: Any) -> _Result:
    n = _bytes_arg(name).decode()
    return (_SUCCESS, _CUfunction._mk(_drv().module_get_function(_h(hmod, _CUmodule), n)))


# =========================================================================== launches
_kernel_args = _KP.kernel_args
#: the last launch's six dimensions (converted: plain ints) and its (grid, block) tuples: the same
#: objects again need no conversion and give the same tuples, which lets the core recognise a repeated
#: launch by identity (tuples and ints are immutable); a fresh object first, which no argument is
_NO_DIMS: tuple[Any, ...] = (object(),) * 6 + (None, None)
_dims = _NO_DIMS


@_doc
def cuLaunchKernel(f: Any, gridDimX: Any, gridDimY: Any, gridDimZ: Any, blockDimX: Any, blockDimY: Any,
                   blockDimZ: Any, sharedMemBytes: Any, hStream: Any, kernelParams: Any, extra: Any) -> _Result:
    global _dims
    c = _dims  # typed parameters first (Cython converts them at entry), then the handles, last first
    if (gridDimX is c[0] and gridDimY is c[1] and gridDimZ is c[2] and blockDimX is c[3] and blockDimY is c[4]
            and blockDimZ is c[5]):  # the last launch's dimensions, converted then: only sharedMemBytes to check
        grid, block = c[6], c[7]
        if sharedMemBytes.__class__ is not int or sharedMemBytes < 0 or sharedMemBytes >> 32:
            sharedMemBytes = _u(sharedMemBytes)
    else:
        t = int
        if (type(gridDimX) is t and type(gridDimY) is t and type(gridDimZ) is t and type(blockDimX) is t
                and type(blockDimY) is t and type(blockDimZ) is t and type(sharedMemBytes) is t):
            v = gridDimX | gridDimY | gridDimZ | blockDimX | blockDimY | blockDimZ | sharedMemBytes
        else:
            v = -1  # a bool, an int enum, a numpy integer...: converted to a plain int, as the wrapper does
        if v < 0 or v >> 32:  # not plain unsigned ints: convert each as the wrapper does (OverflowError texts)
            gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes = map(
                _u, (gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes))
            v = 0
        grid, block = (gridDimX, gridDimY, gridDimZ), (blockDimX, blockDimY, blockDimZ)
        # kept only for ints (or bools, int enums: immutable), which need no conversion when passed again
        _dims = (gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, grid, block) if v.__class__ is int \
            else _NO_DIMS
    if type(extra) is not int or extra < 0 or extra >> 64:
        extra = _u(extra, 64, "unsigned PY_LONG_LONG")
    t = type(hStream)  # the wrapper's value read as its __int__ reads it (what _h does for a wrapper)
    if t is _CUstream:
        b = hStream._buf
        hs = hStream._v if b is None else int(b.value)
    else:
        hs = hStream if t is int and 0 <= hStream < _U64 else _h(hStream, _CUstream)
    t = type(f)
    if t is _CUfunction:
        b = f._buf
        hf = f._v if b is None else int(b.value)
    else:
        hf = f if t is int and 0 <= f < _U64 else _h(f, _CUfunction)
    d = _st._current
    if d is None or d.per_thread_mode is None:
        d = _drv()
    try:
        if extra:
            _KP.check_form(kernelParams)  # the wrapper converts kernelParams before the driver sees extra
            d.check_kernel_extra(_KP.given(kernelParams), extra, "cuLaunchKernel")
        if kernelParams is None:
            args = []
        else:
            last = _KP._last  # the check kernel_args starts with, inline (see _kernel_params._last)
            if kernelParams is last[0]:
                for w in last[2]:
                    if w._buf is not None:
                        args = _kernel_args(d, hf, kernelParams)
                        break
                else:
                    args = last[1]
            else:
                args = _kernel_args(d, hf, kernelParams)
        d.launch_kernel_fast(hf, grid, block, sharedMemBytes, hs, args)
    except _DriverError as e:
        return (e.code,)
    return _OK


@_face
def cuLaunchCooperativeKernel(f: Any, gridDimX: Any, gridDimY: Any, gridDimZ: Any, blockDimX: Any, blockDimY: Any,
                              blockDimZ: Any, sharedMemBytes: Any, hStream: Any, kernelParams: Any) -> _Result:
    hf, hs = _h(f, _CUfunction), _h(hStream, _CUstream)
    dims = tuple(map(_u, (gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes)))
    d = _drv()
    args = _kernel_args(d, hf, kernelParams, "cuLaunchCooperativeKernel")
    d.launch_kernel(hf, dims[0:3], dims[3:6], dims[6], hs, args, "cuLaunchCooperativeKernel")
    return _OK


@_face
def cuLaunchKernelEx(config: Any, f: Any, kernelParams: Any, extra: Any) -> _Result:
    _struct_arg(config, "CUlaunchConfig", "config")
    extra = _u(extra, 64, "unsigned PY_LONG_LONG")
    _KP.check_form(kernelParams)  # converted before the driver sees the NULL config
    d = _drv()
    d.require_arg(config is not None, "config", "cuLaunchKernelEx")
    hf = _h(f, _CUfunction)
    c = config._d
    attrs = config.attrs[:c["numAttrs"]]
    # the union member the attribute's id names (the real union shares its bytes; these fields do not)
    programmatic = d.check_launch_attributes([a._raw("id") for a in attrs], "cuLaunchKernelEx",
                                             [a.value.cooperative if a._raw("id") == 2 else
                                              (a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z)
                                              if a._raw("id") == 4 else
                                              a.value.programmaticStreamSerializationAllowed for a in attrs])
    d.check_kernel_extra(_KP.given(kernelParams), extra, "cuLaunchKernelEx")
    d.launch_kernel(hf, (c["gridDimX"], c["gridDimY"], c["gridDimZ"]), (c["blockDimX"], c["blockDimY"], c["blockDimZ"]),
                    c["sharedMemBytes"], int(c["hStream"]), _kernel_args(d, hf, kernelParams, "cuLaunchKernelEx"),
                    "cuLaunchKernelEx", programmatic)
    return _OK


def _host_fn(fn: Any) -> int:
    """``CUhostFn`` or ``int`` address; a callable or CFUNCTYPE object raises ``TypeError`` (spec 3.9)."""
    return _h(fn, _CUhostFn)


@_face
def cuLaunchHostFunc(hStream: Any, fn: Any, userData: Any) -> _Result:
    fp = _host_fn(fn)
    _drv().launch_host_func(_h(hStream, _CUstream), fp, _T.void_ptr(userData))
    return _OK


@_face
def cuLaunchHostFunc_v2(hStream: Any, fn: Any, userData: Any, syncMode: Any) -> _Result:
    fp = _host_fn(fn)
    _drv().launch_host_func(_h(hStream, _CUstream), fp, _T.void_ptr(userData), _u(syncMode))
    return _OK


# =========================================================================== the rest: not simulated
# =========================================================================== libraries and arrays
_CUlibrary = _NS["CUlibrary"]
_CUarray = _NS["CUarray"]


@_face
def cuLibraryLoadData(code: Any, jitOptions: Any, jitOptionsValues: Any, numJitOptions: Any,
                      libraryOptions: Any, libraryOptionValues: Any, numLibraryOptions: Any) -> _Result:
    _options(libraryOptions, libraryOptionValues, numLibraryOptions)
    _options(jitOptions, jitOptionsValues, numJitOptions)
    return (_SUCCESS, _CUlibrary._mk(_drv().library_load_data(_image(code))))


@_face
def cuLibraryLoadFromFile(fileName: Any, jitOptions: Any, jitOptionsValues: Any, numJitOptions: Any,
                          libraryOptions: Any, libraryOptionValues: Any, numLibraryOptions: Any) -> _Result:
    _options(libraryOptions, libraryOptionValues, numLibraryOptions)
    _options(jitOptions, jitOptionsValues, numJitOptions)
    path = os.fsdecode(_bytes_arg(fileName))
    d = _drv()
    data = d.read_image_file(path, "cuLibraryLoadFromFile")
    return (_SUCCESS, _CUlibrary._mk(d.library_load_data(data, "cuLibraryLoadFromFile")))


@_face
def cuLibraryGetKernel(library: Any, name: Any) -> _Result:
    h = _drv().module_get_function(_h(library, _CUlibrary), os.fsdecode(_bytes_arg(name)))
    return (_SUCCESS, _NS["CUkernel"]._mk(h))


@_face
def cuArrayCreate(pAllocateArray: Any) -> _Result:
    a = _struct_arg(pAllocateArray, "CUDA_ARRAY_DESCRIPTOR", "pAllocateArray")
    if a is None:
        _drv().require_arg(False, "pAllocateArray", "cuArrayCreate")
    g = a._d
    h = _drv().array_create(g["Width"], g["Height"], g["Format"], g["NumChannels"])
    return (_SUCCESS, _CUarray._mk(h))


# =========================================================================== module variables (issue 10)
@_face
def cuModuleGetGlobal(hmod: Any, name: Any) -> _Result:
    dptr, n = _drv().module_get_global(_h(hmod, _NS["CUmodule"]), os.fsdecode(_bytes_arg(name)))
    return (_SUCCESS, _CUdeviceptr(dptr), n)


@_face
def cuLibraryGetGlobal(library: Any, name: Any) -> _Result:
    dptr, n = _drv().library_get_global(_h(library, _CUlibrary), os.fsdecode(_bytes_arg(name)))
    return (_SUCCESS, _CUdeviceptr(dptr), n)
