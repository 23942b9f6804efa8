"""The runtime face's functions of errors and versions, devices, streams, stream capture and several devices (the
hand-written ones: what the table cannot build); users import them from :mod:`simcuda.bindings.runtime`.
"""
from __future__ import annotations

import ctypes  # noqa: F401  (the real module exposes ``ctypes`` too)
from typing import Any, Optional  # noqa: F401  (the real module exports both names)

from .._generated import runtime_enums as _E
from .._generated.runtime_outputs import ERROR_STRINGS as _ERROR_STRINGS
from . import _args as _A
from . import _build as _B
from . import _driver_types as _T
from ._runtime_face import (
    _NS,
    _OK,
    _RCLS,
    _SUCCESS,
    _cudaGraph_t,
    _cudaStream_t,
    _deps,
    _drv,
    _edge,
    _edge_list,
    _h,
    _mk_graph,
    _mk_node,
    _node_list,
    _primary,
    _ptr,
    _Result,
    _rt,
    _size,
    _state,
    _u,
    cuda_error,
    cudaError_t,
)

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


# =========================================================================== several devices (issue 10)
def _dev_ptr(x: Any) -> int:
    """A device-pointer ``void*`` argument (``int``, a pointer object, None for NULL) as an address; a host buffer
    gives its host address, which the core then refuses as no device memory."""
    from .._core.memory import host_address
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
    ops = _B.memcpy3d_batch_ops(numOps, opList, _NS["cudaMemcpy3DBatchOp"], "cyruntime.cudaMemcpy3DBatchOp")
    _drv().memcpy3d_batch(ops, _u(flags, 64, "unsigned long long"), _h(stream, _cudaStream_t),
                          "cudaMemcpy3DBatchAsync")
    return _OK
