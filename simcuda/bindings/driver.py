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

import enum as _enum
import functools
import os
import typing as _typing
from collections.abc import Callable as _Callable
from typing import Any, Optional  # noqa: F401  (the real module exports both names)
from typing import ParamSpec as _ParamSpec
from typing import TypeVar as _TypeVar
from typing import cast as _cast

from .. import _state as _st
from .._core.errors import DriverError as _DriverError
from .._core.memory import DEVICE as _DEV
from .._core.memory import HOST as _HOST
from .._core.memory import CopyParams as _CopyParams
from .._core.memory import MemsetParams as _MemsetParams
from .._core.objects import EdgeData as _EdgeData
from .._core.objects import EdgeDataArg as _EdgeDataArg
from .._core.objects import MemOp as _MemOp
from .._generated import driver_enums as _E
from .._generated.driver_outputs import OUTPUTS as _OUTPUTS
from .._generated.driver_outputs import PARAMS as _PARAMS
from . import _driver_types as _T
from . import _kernel_params as _KP

# -- enums and integer constants (generated from the real module) -------------------------------
globals().update(_E.__all_enums__)
globals().update(_E.__int_constants__)

# -- every class of the real module (wrappers, structs, placeholders) ---------------------------
globals().update(_T.build_classes())

if _typing.TYPE_CHECKING:
    from .._core.driver import Driver as _Driver

    # The enums, constants, classes and not-simulated stubs of the real module are put into this namespace at
    # import time (globals().update, install_stubs), which the checker cannot follow: to it, a name it does not
    # find here is Any.
    def __getattr__(name: str) -> Any: ...

CUresult = _E.CUresult
_Result = _T.Result  # what every function returns: (CUresult, *outputs)
_SUCCESS = CUresult.CUDA_SUCCESS
_OK = (_SUCCESS,)
_CUstream = globals()["CUstream"]
_CUevent = globals()["CUevent"]
_CUgraph = globals()["CUgraph"]
_CUgraphNode = globals()["CUgraphNode"]
_CUgraphExec = globals()["CUgraphExec"]
_CUcontext = globals()["CUcontext"]
_CUdevice = globals()["CUdevice"]
_CUdeviceptr = globals()["CUdeviceptr"]
_CUfunction = globals()["CUfunction"]
_CUkernel = globals()["CUkernel"]
_CUmodule = globals()["CUmodule"]
_CUhostFn = globals()["CUhostFn"]
_CUstreamCallback = globals()["CUstreamCallback"]
_cuuint64_t = globals()["cuuint64_t"]
_CUgraphEdgeData = globals()["CUgraphEdgeData"]
_CUgraphExecUpdateResultInfo = globals()["CUgraphExecUpdateResultInfo"]
_mk_stream, _mk_event, _mk_graph = _CUstream._mk, _CUevent._mk, _CUgraph._mk
# cuLaunchKernel reads these wrappers' values inline, as their (inherited) __int__ does
assert _CUstream.__int__ is _T.Wrapper.__int__ and _CUfunction.__int__ is _T.Wrapper.__int__
_mk_node, _mk_exec, _mk_ctx, _mk_dptr = _CUgraphNode._mk, _CUgraphExec._mk, _CUcontext._mk, _CUdeviceptr._mk


def sizeof(objType: Any) -> int:
    """Mirrors ``cuda.bindings.driver.sizeof``: bytes of a struct type. Only ``CUgraphEdgeData`` is known."""
    return _T.struct_sizeof(objType, _CUgraphEdgeData)


# ------------------------------------------------------------------------------ plumbing
_P = _ParamSpec("_P")
_F = _TypeVar("_F", bound=_Callable[..., Any])
#: a conversion the real wrapper applies to one argument (the value, converted, or the same object)
_Conv = _Callable[[Any], Any]
#: the conversions of one function, in the real wrapper's order: (argument index, name, conversion)
_Plan = tuple[tuple[int, str, _Conv], ...]

def _drv() -> _Driver:
    """The current driver, with the default-stream mode fixed on first use (spec 6.1)."""
    d = _st._current
    if d is None or d.per_thread_mode is None:
        d = _st.current()
        d._per_thread_mode()  # ValueError for a malformed variable, on every call, like the binding
    return d


def _header(name: str) -> str:
    sig, outs = _OUTPUTS[name]
    shape = ", ".join(["CUresult"] + [f"{n}: {t}" for n, t in outs])
    nones = ", ".join(["CUresult"] + ["None"] * len(outs))
    return (f"Mirrors ``{sig}`` of cuda.bindings.driver 13.5.\n\n"
            f"Returns ``({shape}{',' if not outs else ''})``; on any error ``({nones}{',' if not outs else ''})``.\n\n")


def _split_params(sig: str) -> list[tuple[str, str, str]]:
    """``[(name, C type, annotation)]`` of a signature line such as ``f(hStream, size_t n, x: Optional[X])``."""
    inner = sig[sig.find("(") + 1:sig.rfind(")")]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    out = []
    for p in parts:
        head, _, ann = p.partition(":")
        words = head.replace("*", " * ").split()
        out.append((words[-1], " ".join(words[:-1]), ann.strip()))
    return out


_C_INT = {"size_t": (64, "size_t"), "unsigned int": (32, "unsigned int"), "unsigned char": (8, "unsigned char"),
          "unsigned short": (16, "unsigned short"), "unsigned long long": (64, "unsigned PY_LONG_LONG"),
          "void_ptr": (64, "unsigned PY_LONG_LONG")}


def _entry_conv(ctype: str, ann: str, name: str, ns: dict[str, Any],
                struct_arg: _Callable[[Any, str, str], Any]) -> _Conv | None:
    """The conversion Cython applies to a typed parameter at function entry, or None for untyped ones."""
    if ctype in _C_INT:
        bits, cname = _C_INT[ctype]
        return lambda x: x if type(x) is int and x >= 0 and not x >> bits else _T.c_uint(x, bits, cname)
    if ctype == "int":
        return lambda x: x if type(x) is int and -0x80000000 <= x <= 0x7FFFFFFF else _T.c_int(x)
    if ctype == "char *":
        return _bytes_arg
    cls = ns.get(ctype) if ctype else None
    if isinstance(cls, type) and not issubclass(cls, (_T.Wrapper, _enum.Enum)) and hasattr(cls, "_fields"):
        return lambda x: struct_arg(x, ctype, name)
    if not ctype and ann and not ann.startswith("Optional") and isinstance(ns.get(ann), type) \
            and issubclass(ns[ann], _enum.Enum):
        def not_none(x: Any) -> Any:
            if x is None:
                raise TypeError(f"Argument '{name}' must not be None")
            return x
        return not_none
    return None


def _tp_name(t: type) -> str:
    """The type name CPython prints for ``t`` in conversion errors: the module-qualified name for the binding's
    own classes (``cuda.bindings.driver.CUstream``, as the real extension types print), else ``__name__``."""
    if t.__module__ in (_T._FACE, "simcuda.bindings.runtime"):
        return f"{t.__module__.replace('simcuda.', 'cuda.')}.{t.__name__}"
    if t.__module__ not in ("builtins", "__main__") and t.__module__.startswith("cuda.bindings"):
        return f"{t.__module__}.{t.__name__}"
    return t.__name__


def _list_message(name: str, cls: type, runtime: bool) -> str:
    if runtime:
        if cls.__name__ == "cudaGraphNode_t":
            return (f"Argument '{name}' is not instance of type (expected "
                    "tuple[cyruntime.cudaGraphNode_t,driver.CUgraphNode] or "
                    "list[cyruntime.cudaGraphNode_t,driver.CUgraphNode]")
        return (f"Argument '{name}' is not instance of type (expected tuple[cyruntime.{cls.__name__},] or "
                f"list[cyruntime.{cls.__name__},]")
    comma = "" if issubclass(cls, _enum.Enum) else ","
    return (f"Argument '{name}' is not instance of type (expected tuple[cydriver.{cls.__name__}{comma}] or "
            f"list[cydriver.{cls.__name__}{comma}]")


def _list_check(cls: type, name: str, runtime: bool = False) -> _Conv:
    """The real wrapper's first step for a ``list[X]`` parameter: every item an ``X`` (any iterable; a
    non-iterable raises ``TypeError: 'int' object is not iterable``), then its ``len()`` (a generator
    raises ``TypeError: object of type 'generator' has no len()``); lists of enums check their items too
    (the real message has no trailing comma there). The runtime's node lists take driver nodes too."""
    ok: Any = (cls, _CUgraphNode) if runtime and cls.__name__ == "cudaGraphNode_t" else cls
    msg = _list_message(name, cls, runtime)

    def check(x: Any) -> Any:
        if x is not None:
            if not all(isinstance(i, ok) for i in x):
                raise TypeError(msg)
            len(x)
        return x
    return check


def _sized(x: Any) -> Any:
    """A ``list[Any]`` parameter (option values): the wrapper takes its ``len()`` (TypeError: object of type
    'int' has no len())."""
    if x is not None:
        len(x)
    return x


def _handle_check(cls: type[_T.Wrapper]) -> _Conv:
    lo, hi = cls._lo, cls._hi

    def check(x: Any) -> Any:
        if not (type(x) is int and lo <= x <= hi) and x is not None and not isinstance(x, cls):
            cls(x)  # TypeError / OverflowError / ValueError exactly as the wrapper's constructor
        return x
    return check


def _conversion_plan(name: str, outputs: dict[str, tuple[str, tuple[tuple[str, str], ...]]] | None = None,
                     params: dict[str, tuple[tuple[str, str], ...]] | None = None, ns: dict[str, Any] | None = None,
                     struct_arg: _Callable[[Any, str, str], Any] | None = None,
                     runtime: bool = False) -> _Plan:
    """The order in which the real wrapper converts ``name``'s arguments (read from its signature and its
    docstring's Parameters): typed parameters at entry (C integers, ``char*``, struct types, enums that
    must not be None), in order; then, in the body, ``list[X]`` parameters and handles together, in
    reverse order (the generated wrappers emit those blocks last parameter first); then option-value lists.
    Buffers, enums' values and ``kernelParams`` are left to the function body, which converts them
    afterwards. Returns ``(index, name, check)`` triples. The runtime face passes its own tables."""
    outputs, params, ns = outputs or _OUTPUTS, params or _PARAMS, ns or globals()
    struct_arg = struct_arg or _struct_arg
    sig = _split_params(outputs[name][0])
    doc_list = params.get(name, ())
    docs = dict(doc_list)
    entry: list[tuple[int, str, _Conv]] = []
    body: list[tuple[int, str, _Conv]] = []
    later: list[tuple[int, str, _Conv]] = []
    for i, (pname, ctype, ann) in enumerate(sig):
        conv = _entry_conv(ctype, ann, pname, ns, struct_arg)
        if conv is not None:
            entry.append((i, pname, conv))
            continue
        dtype = docs.get(pname, docs.get(pname.rstrip("_"), ""))
        if not dtype and len(doc_list) == len(sig):  # the docstring names it differently (graph / hGraph)
            dtype = doc_list[i][1]
        if dtype.startswith("list["):
            cls = ns.get(dtype[5:-1])
            if isinstance(cls, type) and (issubclass(cls, (_T.Wrapper, _enum.Enum)) or hasattr(cls, "_fields")):
                body.append((i, pname, _list_check(cls, pname, runtime)))
            elif dtype == "list[Any]":  # option values: sized after the typed lists, in order
                later.append((i, pname, _sized))
            continue
        for cand in dtype.split(" or "):
            cls = ns.get(cand)
            if isinstance(cls, type) and issubclass(cls, _T.Wrapper):
                body.append((i, pname, _handle_check(cls)))
                break
    return tuple(entry + body[::-1] + later)


def _convert_args(plan: _Plan, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """Apply a :func:`_conversion_plan`; the arguments come back converted where a conversion changed them."""
    n = len(args)
    out = None
    for i, pname, conv in plan:
        if i < n:
            v = args[i]
            w = conv(v)
            if w is not v:
                if out is None:
                    out = list(args)
                out[i] = w
        elif pname in kwargs:
            kwargs[pname] = conv(kwargs[pname])
    return args if out is None else tuple(out)


_arity, _arity_error = _T.arity, _T.arity_error


def _face(fn: _Callable[_P, _Result]) -> _Callable[_P, _Result]:
    """Check the number of arguments and convert them in the real wrapper's order (:func:`_conversion_plan`),
    then turn a ``DriverError`` raised by ``fn`` into ``(CUresult, None, ...)`` of the real length."""
    nones = (None,) * len(_OUTPUTS[fn.__name__][1])
    plan = _conversion_plan(fn.__name__)
    required, total = _arity(_OUTPUTS[fn.__name__][0])

    @functools.wraps(fn)
    def face(*args: Any, **kwargs: Any) -> Any:  # fn's signature, which the arguments are converted for
        if not kwargs and not required <= len(args) <= total:  # the wrapper counts before it converts
            raise _arity_error(fn.__name__, required, total, len(args))
        if plan:
            args = _convert_args(plan, args, kwargs)
        try:
            return fn(*args, **kwargs)
        except _DriverError as e:
            return (e.code, *nones)
    face.__doc__ = _header(fn.__name__) + (fn.__doc__ or "")
    return face


def _doc(fn: _F) -> _F:
    """Prefix the generated header to a hand-inlined (hot path) function's docstring."""
    fn.__doc__ = _header(fn.__name__) + (fn.__doc__ or "")
    return fn


_U64 = 1 << 64


def _h(x: Any, cls: type[_T.Wrapper]) -> int:
    """A handle argument: ``None``, an ``int``, or the wrapper (anything with ``__int__`` goes through ``cls``)."""
    if type(x) is int and 0 <= x <= cls._hi:
        return x
    if x is None:
        return 0
    if isinstance(x, cls):
        return int(x)
    return int(cls(x))  # TypeError: an integer is required / OverflowError, as the real wrapper


def _u(x: Any, bits: int = 32, what: str = "unsigned int") -> int:
    """An unsigned C integer argument (OverflowError for a negative or too wide value, with the real texts)."""
    if type(x) is int and x >= 0 and not x >> bits:
        return x
    return _T.c_uint(x, bits, what)


def _size(x: Any) -> int:
    return _u(x, 64, "size_t")


def _i(x: Any) -> int:
    """A signed C ``int`` argument (OverflowError outside 32 bits, with the real texts)."""
    if type(x) is int and -0x80000000 <= x <= 0x7FFFFFFF:
        return x
    return _T.c_int(x)


def _node_list(x: Any, arg: str, cls: type | None = None) -> list[int]:
    """A sequence of ``CUgraphNode`` (any iterable, as the real check is ``all(isinstance(...) for ...)``;
    ints are refused inside it, and a non-iterable raises ``TypeError: 'int' object is not iterable``)."""
    if x is None:
        return []
    cls = cls or _CUgraphNode
    x = list(x)
    if not all(isinstance(n, cls) for n in x):
        raise TypeError(f"Argument '{arg}' is not instance of type (expected tuple[cydriver.{cls.__name__},] or "
                        f"list[cydriver.{cls.__name__},]")
    return [int(n) for n in x]


def _edge_list(x: Any, arg: str) -> _EdgeDataArg:  # (a fresh list, which _eds_for may pad with None)
    if x is None:
        return []
    x = list(x)
    if not all(isinstance(e, _CUgraphEdgeData) for e in x):
        raise TypeError(f"Argument '{arg}' is not instance of type (expected tuple[cydriver.CUgraphEdgeData,] or "
                        "list[cydriver.CUgraphEdgeData,]")
    return [(e.from_port, e.to_port, e.type) for e in x]


def _eds_for(eds: _EdgeDataArg, n: int, deps: int | None = None) -> _EdgeDataArg:
    """Edge data for ``n`` dependencies: none/empty means all zero; a short list is padded with a
    missing-entry marker that the core rejects as INVALID_VALUE in its own order (spec 3.6) [I].

    ``deps`` (the number of dependency entries that exist) bounds the padding: the core refuses the
    first missing dependency, so entries past it are never read and a huge count costs nothing."""
    if deps is not None:
        n = min(n, deps + 1)
    if not eds:
        return [(0, 0, 0)] * n
    if len(eds) < n:
        return eds + [None] * min(n - len(eds), 1)
    return eds[:n]


def _deps_for(x: Any, n: Any, arg: str = "dependencies") -> list[int]:
    """Dependencies of a graph-building call: the wrapper refuses a count above the list length."""
    deps = _node_list(x, arg)
    n = _size(n)
    if n > len(deps):
        raise RuntimeError(f"List is too small: {len(deps)} < {n}")
    return deps[:n]


def _struct_arg(x: Any, cls_name: str, arg: str) -> Any:
    """A struct argument typed ``Optional[cls]`` by the wrapper: ``None`` or an instance of ``cls`` (or a
    subclass); anything else raises the wrapper's ``TypeError`` (a parent class such as ``..._v2`` too)."""
    if x is None or isinstance(x, globals()[cls_name]):
        return x
    got = _tp_name(type(x))
    raise TypeError(f"Argument '{arg}' has incorrect type (expected cuda.bindings.driver.{cls_name}, got {got})")


def _bytes_arg(x: Any) -> bytes:
    """A ``char*`` argument as Cython converts it: ``bytes`` or ``bytearray`` only (``str``, ``None`` and
    ``memoryview`` raise ``TypeError: expected bytes, str found``); the driver reads it as a C string, so
    it ends at the first NUL byte."""
    if isinstance(x, (bytes, bytearray)):
        return bytes(x).split(b"\0", 1)[0]
    raise TypeError(f"expected bytes, {_tp_name(type(x))} found")


# =========================================================================== init, version, errors
@_face
def cuInit(Flags: Any) -> _Result:
    """Initialise the simulated driver.

    Args: ``Flags`` (unsigned int) must be 0.
    Errors: INVALID_VALUE for non-zero flags; NO_DEVICE (100) on a ``Driver(available=False)``.
    """
    _drv().init(_u(Flags))
    return _OK


@_face
def cuDriverGetVersion() -> _Result:
    """The simulated driver version, 13050 (CUDA 13.5); needs no ``cuInit``."""
    return (_SUCCESS, _drv().driver_get_version())


@_face
def cuGetErrorName(error: Any) -> _Result:
    """The name of a ``CUresult`` as ``bytes`` (``b'CUDA_ERROR_INVALID_VALUE'``); needs no ``cuInit``.

    Errors: INVALID_VALUE for a value that is not a ``CUresult``.
    """
    v = _T.c_enum(error, "error", "cudaError_enum")
    return (_SUCCESS, _drv().get_error_name(v).encode())


@_face
def cuGetErrorString(error: Any) -> _Result:
    """The description of a ``CUresult`` as ``bytes``; needs no ``cuInit``.

    Fidelity: the text is the code's documentation sentence from the cuda-bindings docstring (spec 10),
    not the shorter string of the real ``libcuda``. Errors: INVALID_VALUE for an unknown value.
    """
    v = _T.c_enum(error, "error", "cudaError_enum")
    return (_SUCCESS, _drv().get_error_string(v).encode())


# =========================================================================== devices
@_face
def cuDeviceGet(ordinal: Any) -> _Result:
    """The device with this ordinal. Errors: INVALID_DEVICE (101) out of range; NOT_INITIALIZED."""
    return (_SUCCESS, _CUdevice(_drv().device_get(_i(ordinal))))


@_face
def cuDeviceGetCount() -> _Result:
    """Number of simulated devices (``Driver(devices=[...])``)."""
    return (_SUCCESS, _drv().device_get_count())


@_face
def cuDeviceGetName(length: Any, dev: Any) -> _Result:
    """The device name as ``bytes`` of exactly ``length`` bytes (NUL-terminated, then padding, as the real
    wrapper returns its buffer). Errors: INVALID_DEVICE; INVALID_VALUE for ``length`` <= 0."""
    n = _i(length)
    name = _drv().device_get_name(_h(dev, _CUdevice), n).encode()
    name = name[:n - 1] + b"\0"
    return (_SUCCESS, name + b" " * (n - len(name)))


@_face
def cuDeviceGetAttribute(attrib: Any, dev: Any) -> _Result:
    """A ``CUdevice_attribute`` value (``int``). Errors: INVALID_DEVICE; INVALID_VALUE unknown attribute."""
    return (_SUCCESS, _drv().device_get_attribute(_T.c_enum(attrib, "attrib", "CUdevice_attribute_enum"),
                                                  _h(dev, _CUdevice)))


@_face
def cuDeviceTotalMem(dev: Any) -> _Result:
    """Device memory in bytes (``DeviceSpec.total_mem``). Errors: INVALID_DEVICE."""
    return (_SUCCESS, _drv().device_total_mem(_h(dev, _CUdevice)))


@_face
def cuDeviceComputeCapability(dev: Any) -> _Result:
    """``(major, minor)`` from attributes 75/76 (``DeviceSpec.compute_capability``). Errors: INVALID_DEVICE."""
    d, h = _drv(), _h(dev, _CUdevice)
    major = d.device_get_attribute(_E.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, h)
    minor = d.device_get_attribute(_E.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, h)
    return (_SUCCESS, major, minor)


@_face
def cuDevicePrimaryCtxRetain(dev: Any) -> _Result:
    """Retain (creating on first use) the device's primary context. Errors: INVALID_DEVICE."""
    return (_SUCCESS, _mk_ctx(_drv().device_primary_ctx_retain(_h(dev, _CUdevice))))


@_face
def cuDevicePrimaryCtxRelease(dev: Any) -> _Result:
    """Release one reference. Errors: INVALID_DEVICE; CONTEXT_IS_DESTROYED (709) when not retained.

    Fidelity: the context stays usable after the last release (the simulator only counts references).
    """
    _drv().device_primary_ctx_release(_h(dev, _CUdevice))
    return _OK


@_face
def cuDevicePrimaryCtxGetState(dev: Any) -> _Result:
    """``(flags, active)`` of the primary context. Errors: INVALID_DEVICE."""
    flags, active = _drv().device_primary_ctx_get_state(_h(dev, _CUdevice))
    return (_SUCCESS, flags, active)


# =========================================================================== contexts
@_face
def cuCtxCreate(ctxCreateParams: Any, flags: Any, dev: Any) -> _Result:
    """Create a context on ``dev`` and make it current (pushed on this thread's stack).

    Args: ``ctxCreateParams``: ``None`` or a ``CUctxCreateParams`` (``cigParams`` non-empty makes a CIG
    context, spec 8.1); ``flags``: ``CUctx_flags`` bits; ``dev``: ``CUdevice`` or ordinal.
    Errors: INVALID_DEVICE; INVALID_VALUE both exec-affinity and CIG parameters [I] or a bad CIG data
    type; NOT_SUPPORTED (801) device without CIG support, or coredump flags with CIG [I];
    STREAM_CAPTURE_UNSUPPORTED (900) during a capture that restricts this thread (spec 5.2) [I].
    """
    p = _struct_arg(ctxCreateParams, "CUctxCreateParams", "ctxCreateParams")
    cig, affinity = None, False
    if p is not None:
        affinity = bool(p.execAffinityParams) or p.numExecAffinityParams > 0
        if p.cigParams:
            c = p.cigParams[0]
            cig = (c._raw("sharedDataType"), c.sharedData)
    return (_SUCCESS, _mk_ctx(_drv().ctx_create(_u(flags), _h(dev, _CUdevice), cig=cig, exec_affinity=affinity)))


@_face
def cuCtxDestroy(ctx: Any) -> _Result:
    """Destroy a context and its streams (captures there end as on stream destroy, spec 5.2).

    Errors: INVALID_CONTEXT; CONTEXT_IS_DESTROYED; 900 during a restricting capture [I].
    """
    _drv().ctx_destroy(_h(ctx, _CUcontext))
    return _OK


@_face
def cuCtxSetCurrent(ctx: Any) -> _Result:
    """Replace the top of this thread's context stack (``None``/0 pops it). Errors: INVALID_CONTEXT, 709."""
    _drv().ctx_set_current(_h(ctx, _CUcontext))
    return _OK


@_face
def cuCtxGetCurrent() -> _Result:
    """This thread's current context (``CUcontext(0)`` when none)."""
    return (_SUCCESS, _mk_ctx(_drv().ctx_get_current()))


@_face
def cuCtxPushCurrent(ctx: Any) -> _Result:
    """Push a context on this thread's stack. Errors: INVALID_CONTEXT, 709."""
    _drv().ctx_push_current(_h(ctx, _CUcontext))
    return _OK


@_face
def cuCtxPopCurrent() -> _Result:
    """Pop this thread's current context and return it. Errors: INVALID_CONTEXT when the stack is empty."""
    return (_SUCCESS, _mk_ctx(_drv().ctx_pop_current()))


@_face
def cuCtxGetDevice() -> _Result:
    """The current context's device. Errors: INVALID_CONTEXT."""
    return (_SUCCESS, _CUdevice(_drv().ctx_get_device()))


@_face
def cuCtxSynchronize() -> _Result:
    """Wait for all work of the current context.

    Errors: INVALID_CONTEXT; STREAM_CAPTURE_UNSUPPORTED (900) while a stream of the context is in a
    capture, whatever the thread and mode, invalidating those captures (spec 5.3).
    """
    _drv().ctx_synchronize()
    return _OK


@_face
def cuCtxGetId(ctx: Any) -> _Result:
    """The context's unique id (``int``); ``None``/0 means the current context. Errors: INVALID_CONTEXT."""
    return (_SUCCESS, _drv().ctx_get_id(_h(ctx, _CUcontext)))


@_face
def cuCtxRecordEvent(hCtx: Any, hEvent: Any) -> _Result:
    """Record an event after all work of a context. Errors: 201/709; INVALID_HANDLE; 900 while the
    context has a capturing stream (spec 5.3)."""
    _drv().ctx_record_event(_h(hCtx, _CUcontext), _h(hEvent, _CUevent))
    return _OK


@_face
def cuCtxWaitEvent(hCtx: Any, hEvent: Any) -> _Result:
    """Make a context's future work wait for an event. Errors: 201/709; 400; 900 while the context
    captures or the event belongs to a capture (spec 5.3)."""
    _drv().ctx_wait_event(_h(hCtx, _CUcontext), _h(hEvent, _CUevent))
    return _OK


# =========================================================================== streams
@_face
def cuStreamCreate(Flags: Any) -> _Result:
    """Create a stream. Args: ``Flags``: ``CU_STREAM_DEFAULT`` (0, blocking) or ``CU_STREAM_NON_BLOCKING`` (1).

    Errors: INVALID_CONTEXT (no current context); INVALID_VALUE other flags. Not an unsafe call (spec 5.2).
    """
    return (_SUCCESS, _mk_stream(_drv().stream_create(_u(Flags))))


@_face
def cuStreamCreateWithPriority(flags: Any, priority: Any) -> _Result:
    """Create a stream with a priority (clamped to the device range [-5, 0]). Errors as ``cuStreamCreate``."""
    return (_SUCCESS, _mk_stream(_drv().stream_create(_u(flags), _i(priority))))


@_face
def cuStreamDestroy(hStream: Any) -> _Result:
    """Destroy a stream.

    Mirrors ``cuda.bindings.driver.cuStreamDestroy(hStream)``; returns ``(CUresult,)``.

    Fidelity: during a capture (spec 2.1, 2.2, C-153, C-153b, C-154): destroying the origin terminates
    the capture and discards its graph [I]; destroying a member that is not the origin succeeds and
    leaves the capture's status as it was: the stream leaves the sequence and the nodes it captured
    stay in the graph [O: cuda.core's GraphBuilder.join]. Work of that member that was never joined
    still makes the end UNJOINED (904) [I, spec 4.4].

    Errors: INVALID_HANDLE (garbage); CONTEXT_IS_DESTROYED (destroyed); INVALID_VALUE for the
    legacy/per-thread handles.
    """
    _drv().stream_destroy(_h(hStream, _CUstream))
    return _OK


@_face
def cuStreamQuery(hStream: Any) -> _Result:
    """``(CUDA_SUCCESS,)`` when the stream's work is done, ``(CUDA_ERROR_NOT_READY,)`` while pending
    (``progression="manual"``). Capture rules: 906 on the legacy stream under a blocking capture;
    900 on a capturing stream in every mode (invalidates; 901 when already invalidated); 900 as a
    potentially unsafe call on another stream (spec 6, 5.3, 5.2)."""
    _drv().stream_query(_h(hStream, _CUstream))
    return _OK


@_face
def cuStreamSynchronize(hStream: Any) -> _Result:
    """Wait for the stream's work (runs pending work). Capture rules as ``cuStreamQuery`` (spec 6, 5.3, 5.2)."""
    _drv().stream_synchronize(_h(hStream, _CUstream))
    return _OK


@_face
def cuStreamGetCtx(hStream: Any) -> _Result:
    """The stream's context. Errors: INVALID_CONTEXT (default-stream handle, no context), 400, 709."""
    return (_SUCCESS, _mk_ctx(_drv().stream_get_ctx(_h(hStream, _CUstream))))


@_face
def cuStreamGetId(hStream: Any) -> _Result:
    """The stream's unique id (``int``). Errors: preamble checks (spec 3)."""
    return (_SUCCESS, _drv().stream_get_id(_h(hStream, _CUstream)))


@_face
def cuStreamGetFlags(hStream: Any) -> _Result:
    """The stream's creation flags (``int``). Errors: preamble checks (spec 3)."""
    return (_SUCCESS, _drv().stream_get_flags(_h(hStream, _CUstream)))


@_face
def cuStreamGetPriority(hStream: Any) -> _Result:
    """The stream's priority (``int``). Errors: preamble checks (spec 3)."""
    return (_SUCCESS, _drv().stream_get_priority(_h(hStream, _CUstream)))


@_doc
def cuStreamWaitEvent(hStream: Any, hEvent: Any, Flags: Any) -> _Result:
    """Make ``hStream`` wait for ``hEvent``: fork, join, merge, isolation... (spec 4.1 rows in order).

    Args: ``Flags``: 0 or ``CU_EVENT_WAIT_EXTERNAL`` (1; inside a capture adds a WAIT_EVENT node).
    Errors: INVALID_VALUE bad flags, EXTERNAL outside capture, idle stream on an invalidated capture's
    event; INVALID_HANDLE bad event; 906 legacy stream; 902 MERGE (both invalidated); 905 ISOLATION
    (invalidates); 901 on an invalidated capture.
    """
    fl = Flags if type(Flags) is int and 0 <= Flags <= 0xFFFFFFFF else _u(Flags)  # typed: converted at entry
    he = hEvent if type(hEvent) is int and 0 <= hEvent < _U64 else _h(hEvent, _CUevent)  # handles: last first
    hs = hStream if type(hStream) is int and 0 <= hStream < _U64 else _h(hStream, _CUstream)
    try:
        _drv().stream_wait_event(hs, he, fl)
    except _DriverError as e:
        return (e.code,)
    return _OK


@_face
def cuStreamAddCallback(hStream: Any, callback: Any, userData: Any, flags: Any) -> _Result:
    """Enqueue a ``CUstreamCallback`` (``CUstreamCallback`` or ``int`` address; a Python callable raises
    ``TypeError: an integer is required``). ``userData``: None, int address or buffer (passed as address).

    The callback is called through ctypes as ``void (*)(CUstream, CUresult, void*)`` when the work runs.
    Errors: INVALID_VALUE flags != 0; NOT_SUPPORTED (801) on a capturing stream, invalidating it, and on
    a CIG stream (spec 3.8, 8.3) [I].
    """
    fn = _h(callback, _CUstreamCallback)
    ud = _T.void_ptr(userData)
    _drv().stream_add_callback(_h(hStream, _CUstream), fn, ud, _u(flags))
    return _OK


@_face
def cuStreamAttachMemAsync(hStream: Any, dptr: Any, length: Any, flags: Any) -> _Result:
    """Attach managed memory to a stream (bookkeeping only). Errors: NOT_SUPPORTED (801) on a capturing
    stream, invalidating it (spec 3.8) [I]."""
    _drv().stream_attach_mem_async(_h(hStream, _CUstream), _h(dptr, _CUdeviceptr), _size(length), _u(flags))
    return _OK


# =========================================================================== capture
@_face
def cuStreamBeginCapture(hStream: Any, mode: Any) -> _Result:
    """Begin capturing ``hStream`` into a new graph (spec 3.1).

    Args: ``mode``: ``CUstreamCaptureMode`` (not range-checked by the wrapper: the driver answers).
    Errors, in order: 900 legacy stream (or 0 in legacy mode); INVALID_VALUE mode not 0-2;
    ILLEGAL_STATE (401) stream already in a capture; 900 stream in CIG capture.
    """
    _drv().stream_begin_capture(_h(hStream, _CUstream), _T.c_enum(mode, "mode", "CUstreamCaptureMode_enum"))
    return _OK


@_face
def cuStreamBeginCaptureToGraph(hStream: Any, hGraph: Any, dependencies: Any, dependencyData: Any,
                                numDependencies: Any, mode: Any) -> _Result:
    """Begin capturing into an existing graph, after ``dependencies`` (spec 3.2).

    Args: ``dependencies``: list/tuple of ``CUgraphNode`` or None; ``dependencyData``: list of
    ``CUgraphEdgeData`` or None (None or ``[]`` = all zero; a shorter non-empty list is INVALID_VALUE, no
    state change [I]); ``numDependencies`` > ``len(dependencies)`` raises ``RuntimeError: List is too
    small: 1 < 3`` as in the real wrapper.
    Errors: as ``cuStreamBeginCapture``, plus INVALID_VALUE bad graph, a dependency outside ``hGraph``,
    bad edge data; 401 graph already a capture target. ``cuStreamEndCapture`` returns ``hGraph`` itself.
    """
    deps = _node_list(dependencies, "dependencies")
    eds = _edge_list(dependencyData, "dependencyData")
    n = _size(numDependencies)
    if n > len(deps):
        raise RuntimeError(f"List is too small: {len(deps)} < {n}")
    _drv().stream_begin_capture_to_graph(_h(hStream, _CUstream), _h(hGraph, _CUgraph), deps[:n],
                                         _eds_for(eds, n), _T.c_enum(mode, "mode", "CUstreamCaptureMode_enum"))
    return _OK


@_face
def cuStreamEndCapture(hStream: Any) -> _Result:
    """End the capture begun on ``hStream`` and return its graph (spec 3.3).

    Errors, in order: 401 legacy stream or not capturing; 903 UNMATCHED on a forked member (invalidates);
    908 WRONG_THREAD for a non-RELAXED capture (invalidates) [I]; 901 INVALIDATED (capture ends, no
    graph); 904 UNJOINED (capture ends, no graph) [I]. The graph slot is ``None`` on every error.
    """
    return (_SUCCESS, _mk_graph(_drv().stream_end_capture(_h(hStream, _CUstream))))


@_face
def cuStreamIsCapturing(hStream: Any) -> _Result:
    """The stream's ``CUstreamCaptureStatus`` (NONE, ACTIVE, INVALIDATED; spec 3.4).

    Errors: 906 on the legacy stream while a blocking stream of its context captures (not invalidating).
    """
    return (_SUCCESS, _E.CUstreamCaptureStatus(_drv().stream_is_capturing(_h(hStream, _CUstream))))


@_face
def cuStreamGetCaptureInfo(hStream: Any) -> _Result:
    """Capture status, id, graph, current dependencies with edge data, and their count (spec 3.5).

    Returns ``(res, CUstreamCaptureStatus, cuuint64_t id, CUgraph, list[CUgraphNode],
    list[CUgraphEdgeData], int)``. The id is a ``cuuint64_t``, which has no value equality: compare
    ``int(id)`` (spec 11.1). When the status is not ACTIVE: id 0, ``CUgraph(0)``, empty lists, 0 [I].
    Errors: 906 on the legacy stream under a blocking capture (not invalidating).
    """
    status, cid, g, deps, eds, n = _drv().stream_get_capture_info(_h(hStream, _CUstream))
    return (_SUCCESS, _E.CUstreamCaptureStatus(status), _cuuint64_t._mk(cid), _mk_graph(g),
            [_mk_node(x) for x in deps], [_edge(ed) for ed in eds], n)


def _edge(ed: _EdgeData) -> Any:
    e = _CUgraphEdgeData()
    e._d["from_port"], e._d["to_port"], e._d["type"] = ed[0], ed[1], ed[2]
    return e


@_face
def cuStreamUpdateCaptureDependencies(hStream: Any, dependencies: Any, dependencyData: Any, numDependencies: Any,
                                      flags: Any) -> _Result:
    """Add to or replace the stream's capture dependencies (spec 3.6).

    Args: ``flags``: ``CU_STREAM_ADD_CAPTURE_DEPENDENCIES`` (0) or ``CU_STREAM_SET_CAPTURE_DEPENDENCIES`` (1).
    The wrapper does not check ``numDependencies`` against the list: entries past the end reach the
    driver as invalid handles, so a larger count is INVALID_VALUE (row 5) [I]; None/``[]`` edge data
    is all zero; a shorter non-empty edge-data list is INVALID_VALUE [I].
    Errors, in order: 401 not capturing; 901 invalidated [I]; INVALID_VALUE flags, NULL/foreign
    dependency, bad edge data. Failures do not invalidate the capture.
    """
    deps = _node_list(dependencies, "dependencies")
    eds = _edge_list(dependencyData, "dependencyData")
    deps, eds = _capture_deps(deps, eds, _size(numDependencies))
    _drv().stream_update_capture_dependencies(_h(hStream, _CUstream), deps, eds, _u(flags))
    return _OK


@_face
def cuThreadExchangeStreamCaptureMode(mode: Any) -> _Result:
    """Set this thread's capture interaction mode and return the previous one (spec 3.7).

    Errors: INVALID_VALUE for a mode outside 0-2 (the mode is unchanged).
    """
    m = _T.c_enum(mode, "mode", "CUstreamCaptureMode_enum")
    return (_SUCCESS, _E.CUstreamCaptureMode(_drv().thread_exchange_stream_capture_mode(m)))


@_face
def cuStreamBeginCaptureToCig(hStream: Any, streamCigCaptureParams: Any) -> _Result:
    """Begin recording the stream's kernels and copies into a graphics command list (spec 8.2).

    Args: ``streamCigCaptureParams``: a ``CUstreamCigCaptureParams`` whose ``streamCigParams`` is
    ``[CUstreamCigParam]``; ``None`` or an empty list means NULL.
    Errors, in order: INVALID_VALUE NULL params; INVALID_VALUE legacy stream; INVALID_CONTEXT non-CIG
    context; NOT_SUPPORTED device lacks CIG streams; INVALID_VALUE data type mismatch [I]; INVALID_VALUE
    already in CIG or graph capture.
    """
    p = _struct_arg(streamCigCaptureParams, "CUstreamCigCaptureParams", "streamCigCaptureParams")
    dtype, data = None, 0
    if p is not None and p.streamCigParams:
        c = p.streamCigParams[0]
        dtype, data = c._raw("streamSharedDataType"), c.streamSharedData
    _drv().stream_begin_capture_to_cig(_h(hStream, _CUstream), dtype, data)
    return _OK


@_face
def cuStreamEndCaptureToCig(hStream: Any) -> _Result:
    """End a CIG capture (spec 8.4). Errors: INVALID_VALUE not CIG-capturing; 908 from another thread
    (the CIG capture goes on) unless ``Options(cig_end_any_thread=True)``."""
    _drv().stream_end_capture_to_cig(_h(hStream, _CUstream))
    return _OK


# =========================================================================== events
@_face
def cuEventCreate(Flags: Any) -> _Result:
    """Create an event. Args: ``CUevent_flags`` bits. Errors: INVALID_CONTEXT; INVALID_VALUE unknown bits."""
    return (_SUCCESS, _mk_event(_drv().event_create(_u(Flags))))


@_face
def cuEventDestroy(hEvent: Any) -> _Result:
    """Destroy an event (a captured event's nodes stay in the graph). Errors: INVALID_HANDLE."""
    _drv().event_destroy(_h(hEvent, _CUevent))
    return _OK


@_doc
def cuEventRecord(hEvent: Any, hStream: Any) -> _Result:
    """Record ``hEvent`` on ``hStream`` (spec 4.2): on a capturing stream the event captures the stream's
    current dependencies (no node); otherwise it marks the work so far.

    Errors, in order: INVALID_HANDLE bad event or other context; 906 legacy stream under a blocking
    capture (invalidating); 901 invalidated capture.
    """
    hs = hStream if type(hStream) is int and 0 <= hStream < _U64 else _h(hStream, _CUstream)  # last first
    he = hEvent if type(hEvent) is int and 0 <= hEvent < _U64 else _h(hEvent, _CUevent)
    try:
        _drv().event_record(he, hs)
    except _DriverError as e:
        return (e.code,)
    return _OK


@_face
def cuEventRecordWithFlags(hEvent: Any, hStream: Any, flags: Any) -> _Result:
    """``cuEventRecord`` with ``CUevent_record_flags``: ``CU_EVENT_RECORD_EXTERNAL`` (1) adds an
    EVENT_RECORD node during capture and is INVALID_VALUE outside capture (spec 4.2). Errors as
    ``cuEventRecord`` plus INVALID_VALUE flags not 0/1."""
    _drv().event_record(_h(hEvent, _CUevent), _h(hStream, _CUstream), _u(flags), "cuEventRecordWithFlags")
    return _OK


@_face
def cuEventQuery(hEvent: Any) -> _Result:
    """``(CUDA_SUCCESS,)`` when the event completed, ``(CUDA_ERROR_NOT_READY,)`` while pending.

    Errors: INVALID_HANDLE; CAPTURED_EVENT (907) for an event recorded in an active capture
    (invalidates it); 900 for a RECORDED event during a restricting capture (spec 5.2, 5.3).
    """
    _drv().event_query(_h(hEvent, _CUevent))
    return _OK


@_face
def cuEventSynchronize(hEvent: Any) -> _Result:
    """Wait for an event (runs the work before it). Errors as ``cuEventQuery`` (without NOT_READY)."""
    _drv().event_synchronize(_h(hEvent, _CUevent))
    return _OK


@_face
def cuEventElapsedTime(hStart: Any, hEnd: Any) -> _Result:
    """Milliseconds (``float``) of simulated time between two completed events.

    Mirrors ``cuda.bindings.driver.cuEventElapsedTime(hStart, hEnd)``; returns ``(CUresult, float)``.

    Fidelity (spec 16) [I]: the simulated clock advances 0.001 ms for every operation that runs (each
    eager stream operation, each node a graph replay runs, a child graph's nodes one by one; event
    records and the launch itself do not tick), and an event's time is the clock when its record runs
    (an EVENT_RECORD node when the replay reaches it). Around a replay of N nodes: N * 0.001 ms; with
    nothing between the records: 0.0.

    Errors: INVALID_HANDLE never recorded or DISABLE_TIMING; 907 captured event (invalidates) [I];
    NOT_READY when pending.
    """
    return (_SUCCESS, _drv().event_elapsed_time(_h(hStart, _CUevent), _h(hEnd, _CUevent)))


# =========================================================================== memory
@_face
def cuMemAlloc(bytesize: Any) -> _Result:
    """Allocate ``bytesize`` bytes of simulated device memory; returns a ``CUdeviceptr``.

    Errors: INVALID_CONTEXT; INVALID_VALUE size 0; OUT_OF_MEMORY; 900 during a restricting capture
    (potentially unsafe call, invalidating, spec 5.2).
    """
    return (_SUCCESS, _mk_dptr(_drv().mem_alloc(_size(bytesize))))


@_face
def cuMemAllocPitch(WidthInBytes: Any, Height: Any, ElementSizeBytes: Any) -> _Result:
    """Pitched allocation: ``(CUdeviceptr, pitch)`` with rows padded to 512 bytes. Errors as ``cuMemAlloc``
    plus INVALID_VALUE for an element size other than 4, 8, 16."""
    p, pitch = _drv().mem_alloc_pitch(_size(WidthInBytes), _size(Height), _u(ElementSizeBytes))
    return (_SUCCESS, _mk_dptr(p), pitch)


@_face
def cuMemAllocManaged(bytesize: Any, flags: Any) -> _Result:
    """Managed allocation (simulated as device memory). Errors as ``cuMemAlloc``, plus INVALID_VALUE for
    ``flags`` other than ``CU_MEM_ATTACH_GLOBAL`` (1) or ``CU_MEM_ATTACH_HOST`` (2).
    """
    return (_SUCCESS, _mk_dptr(_drv().mem_alloc(_size(bytesize), "cuMemAllocManaged", managed=True,
                                                flags=_u(flags))))


@_face
def cuMemFree(dptr: Any) -> _Result:
    """Free device memory (``cuMemFree(0)`` succeeds). Errors: INVALID_VALUE not an allocation start or a
    graph allocation; 900 during a restricting capture (spec 5.2; field case C17)."""
    _drv().mem_free(_h(dptr, _CUdeviceptr))
    return _OK


@_face
def cuMemAllocHost(bytesize: Any) -> _Result:
    """Allocate real host memory (a ctypes buffer kept by the driver); returns its address (``int``).

    Errors: INVALID_CONTEXT; INVALID_VALUE size 0; 900 during a restricting capture (spec 5.2).
    """
    return (_SUCCESS, _drv().mem_alloc_host(_size(bytesize)))


@_face
def cuMemHostAlloc(bytesize: Any, Flags: Any) -> _Result:
    """As ``cuMemAllocHost``; ``CU_MEMHOSTALLOC_*`` flags are checked (INVALID_VALUE for other bits) and
    otherwise have no effect."""
    return (_SUCCESS, _drv().mem_alloc_host(_size(bytesize), "cuMemHostAlloc", _u(Flags)))


@_face
def cuMemFreeHost(p: Any) -> _Result:
    """Free memory from ``cuMemAllocHost``/``cuMemHostAlloc`` (``p``: int address or buffer).
    Errors: INVALID_VALUE unknown address; 900 during a restricting capture (spec 5.2)."""
    _drv().mem_free_host(_T.void_ptr(p))
    return _OK


@_face
def cuMemHostRegister(p: Any, bytesize: Any, Flags: Any) -> _Result:
    """Page-lock host memory (bookkeeping only). Errors: INVALID_VALUE NULL pointer, size 0, flag bits outside
    ``CU_MEMHOSTREGISTER_*``; HOST_MEMORY_ALREADY_REGISTERED (712); 900 (spec 5.2)."""
    _drv().mem_host_register(_T.void_ptr(p), _size(bytesize), _u(Flags))
    return _OK


@_face
def cuMemHostUnregister(p: Any) -> _Result:
    """Undo ``cuMemHostRegister``. Errors: HOST_MEMORY_NOT_REGISTERED (713); 900 (spec 5.2)."""
    _drv().mem_host_register(_T.void_ptr(p), 0, 0, unregister=True)
    return _OK


@_face
def cuMemGetInfo() -> _Result:
    """``(free, total)`` bytes of the current context's device. Errors: INVALID_CONTEXT."""
    free, total = _drv().mem_get_info()
    return (_SUCCESS, free, total)


@_face
def cuMemGetAddressRange(dptr: Any) -> _Result:
    """``(CUdeviceptr base, size)`` of the allocation holding ``dptr``. Errors: INVALID_VALUE."""
    base, size = _drv().mem_get_address_range(_h(dptr, _CUdeviceptr))
    return (_SUCCESS, _mk_dptr(base), size)


def _host(x: Any) -> Any:
    return _T.check_void_ptr_obj(x)


def _copy(d: Any, p: _CopyParams, h: Any, call: str) -> _Result:
    d.memcpy(p, h, call)
    return _OK


def _kind_of(d: Any, addr: int) -> str:
    return _DEV if d.is_device_pointer(addr) else _HOST


@_face
def cuMemcpy(dst: Any, src: Any, ByteCount: Any) -> _Result:
    """Synchronous copy between unified addresses (device if inside a simulated allocation, else host).

    Legacy mode: runs on the legacy stream (906 and invalidation under a blocking capture; otherwise a
    potentially unsafe call, spec 6, 5.2). Per-thread mode: spec 6.1. Errors: INVALID_VALUE bad ranges.
    """
    d = _drv()
    a, b = _h(dst, _CUdeviceptr), _h(src, _CUdeviceptr)
    return _copy(d, _CopyParams(_kind_of(d, b), b, _kind_of(d, a), a, _size(ByteCount)), None, "cuMemcpy")


@_face
def cuMemcpyAsync(dst: Any, src: Any, ByteCount: Any, hStream: Any) -> _Result:
    """Asynchronous unified copy: a MEMCPY node during capture (spec 3.8); the source is read when the
    work runs (spec 3.10).

    Mirrors ``cuda.bindings.driver.cuMemcpyAsync(dst, src, ByteCount, hStream)``; returns ``(CUresult,)``.

    Fidelity: each address is resolved by the core when the call is made (inside a live simulated
    allocation: device, else host), and that decides how the bytes move, at once or at replay. A
    captured node records ``CU_MEMORYTYPE_UNIFIED`` for both sides, as ``cuGraphMemcpyNodeGetParams``
    shows (spec 16, 9) [O: cuda-python issue 2649]; the explicit HtoD/DtoH/DtoD copies keep their typed
    sides.

    Errors: INVALID_VALUE bad ranges; the stream's capture rules (spec 3.8).
    """
    d = _drv()
    a, b = _h(dst, _CUdeviceptr), _h(src, _CUdeviceptr)
    return _copy(d, _CopyParams(_kind_of(d, b), b, _kind_of(d, a), a, _size(ByteCount), src_unified=True,
                                dst_unified=True), _h(hStream, _CUstream), "cuMemcpyAsync")


@_face
def cuMemcpyHtoD(dstDevice: Any, srcHost: Any, ByteCount: Any) -> _Result:
    """Synchronous host-to-device copy (``srcHost``: int address, ctypes object or buffer such as numpy/bytes).

    Errors: INVALID_VALUE bad range or short host buffer; legacy-stream/unsafe-call rules (spec 6, 5.2).
    """
    return _copy(_drv(), _CopyParams(_HOST, _host(srcHost), _DEV, _h(dstDevice, _CUdeviceptr), _size(ByteCount)),
                 None, "cuMemcpyHtoD")


@_doc
def cuMemcpyHtoDAsync(dstDevice: Any, srcHost: Any, ByteCount: Any, hStream: Any) -> _Result:
    """Asynchronous host-to-device copy: a MEMCPY node during capture that reads the host buffer when the
    graph runs, not now (spec 3.8, 3.10). Errors: INVALID_VALUE bad range; stream capture rules."""
    n = _size(ByteCount)  # typed: converted at entry; then the handles, last first; then the buffer
    hs = _h(hStream, _CUstream)
    dst = _h(dstDevice, _CUdeviceptr)
    try:
        p = _CopyParams(_HOST, _host(srcHost), _DEV, dst, n)
        _drv().memcpy(p, hs, "cuMemcpyHtoDAsync")
    except _DriverError as e:
        return (e.code,)
    return _OK


@_face
def cuMemcpyDtoH(dstHost: Any, srcDevice: Any, ByteCount: Any) -> _Result:
    """Synchronous device-to-host copy into a writable buffer or an int address. Errors as ``cuMemcpyHtoD``."""
    return _copy(_drv(), _CopyParams(_DEV, _h(srcDevice, _CUdeviceptr), _HOST, _host(dstHost), _size(ByteCount)),
                 None, "cuMemcpyDtoH")


@_face
def cuMemcpyDtoHAsync(dstHost: Any, srcDevice: Any, ByteCount: Any, hStream: Any) -> _Result:
    """Asynchronous device-to-host copy (captured as a MEMCPY node that writes the host buffer at replay)."""
    return _copy(_drv(), _CopyParams(_DEV, _h(srcDevice, _CUdeviceptr), _HOST, _host(dstHost), _size(ByteCount)),
                 _h(hStream, _CUstream), "cuMemcpyDtoHAsync")


@_face
def cuMemcpyDtoD(dstDevice: Any, srcDevice: Any, ByteCount: Any) -> _Result:
    """Synchronous device-to-device copy. Errors as ``cuMemcpyHtoD``."""
    return _copy(_drv(), _CopyParams(_DEV, _h(srcDevice, _CUdeviceptr), _DEV, _h(dstDevice, _CUdeviceptr),
                                     _size(ByteCount)), None, "cuMemcpyDtoD")


@_face
def cuMemcpyDtoDAsync(dstDevice: Any, srcDevice: Any, ByteCount: Any, hStream: Any) -> _Result:
    """Asynchronous device-to-device copy (a MEMCPY node during capture)."""
    return _copy(_drv(), _CopyParams(_DEV, _h(srcDevice, _CUdeviceptr), _DEV, _h(dstDevice, _CUdeviceptr),
                                     _size(ByteCount)), _h(hStream, _CUstream), "cuMemcpyDtoDAsync")


_MT_HOST, _MT_DEVICE, _MT_ARRAY, _MT_UNIFIED = 1, 2, 3, 4
_SIDE_KINDS = {_MT_HOST: _HOST, _MT_DEVICE: _DEV}  # the common memory types, without a core call


def _side(d: Any, st: Any, pre: str, call: str) -> tuple[str, Any, bool]:
    """(kind, address-or-host-object, unified) of one side of a CUDA_MEMCPY2D/3D (the core reads the memory
    type: :meth:`simcuda.Driver.copy_memory_type`)."""
    mt = st._raw(pre + "MemoryType")
    kind = _SIDE_KINDS.get(mt) or d.copy_memory_type(mt, pre, call)
    if kind == _HOST:
        return _HOST, st._raw(pre + "Host"), False
    if kind == _DEV:
        return _DEV, int(st._raw(pre + "Device")), False
    a = int(st._raw(pre + "Device"))
    return _kind_of(d, a), a, True


def _copy_struct(d: Any, p: Any, call: str, three_d: bool) -> _CopyParams:
    _struct_arg(p, "CUDA_MEMCPY3D" if three_d else "CUDA_MEMCPY2D", "pCopy")
    sk, so, su = _side(d, p, "src", call)
    dk, do, du = _side(d, p, "dst", call)
    g = p._d
    if three_d:
        return _CopyParams(sk, so, dk, do, g["WidthInBytes"], g["Height"], g["Depth"], g["srcPitch"], g["srcHeight"],
                           g["dstPitch"], g["dstHeight"], g["srcXInBytes"], g["srcY"], g["srcZ"], g["dstXInBytes"],
                           g["dstY"], g["dstZ"], src_unified=su, dst_unified=du)
    return _CopyParams(sk, so, dk, do, g["WidthInBytes"], g["Height"], 1, g["srcPitch"], 0, g["dstPitch"], 0,
                       g["srcXInBytes"], g["srcY"], 0, g["dstXInBytes"], g["dstY"], 0, src_unified=su, dst_unified=du)


def _pcopy_none(pCopy: Any, call: str) -> None:
    if pCopy is None:
        _drv().require_arg(False, "pCopy", call)


@_face
def cuMemcpy2D(pCopy: Any) -> _Result:
    """Synchronous 2D copy from a ``CUDA_MEMCPY2D`` (host, device or unified sides; arrays are NOT_SUPPORTED).

    Errors: INVALID_VALUE NULL struct, bad memory type, width above a pitch, bad ranges; sync-copy
    capture rules (spec 6).
    """
    _pcopy_none(pCopy, "cuMemcpy2D")
    d = _drv()
    return _copy(d, _copy_struct(d, pCopy, "cuMemcpy2D", False), None, "cuMemcpy2D")


@_face
def cuMemcpy2DUnaligned(pCopy: Any) -> _Result:
    """As ``cuMemcpy2D`` (no alignment rules are simulated)."""
    _pcopy_none(pCopy, "cuMemcpy2DUnaligned")
    d = _drv()
    return _copy(d, _copy_struct(d, pCopy, "cuMemcpy2DUnaligned", False), None, "cuMemcpy2DUnaligned")


@_face
def cuMemcpy2DAsync(pCopy: Any, hStream: Any) -> _Result:
    """Asynchronous 2D copy (a MEMCPY node during capture). Errors as ``cuMemcpy2D`` plus stream rules."""
    _pcopy_none(pCopy, "cuMemcpy2DAsync")
    d = _drv()
    return _copy(d, _copy_struct(d, pCopy, "cuMemcpy2DAsync", False), _h(hStream, _CUstream), "cuMemcpy2DAsync")


@_face
def cuMemcpy3D(pCopy: Any) -> _Result:
    """Synchronous 3D copy from a ``CUDA_MEMCPY3D`` (``srcHeight``/``dstHeight`` rows per slice)."""
    _pcopy_none(pCopy, "cuMemcpy3D")
    d = _drv()
    return _copy(d, _copy_struct(d, pCopy, "cuMemcpy3D", True), None, "cuMemcpy3D")


@_face
def cuMemcpy3DAsync(pCopy: Any, hStream: Any) -> _Result:
    """Asynchronous 3D copy (a MEMCPY node during capture)."""
    _pcopy_none(pCopy, "cuMemcpy3DAsync")
    d = _drv()
    return _copy(d, _copy_struct(d, pCopy, "cuMemcpy3DAsync", True), _h(hStream, _CUstream), "cuMemcpy3DAsync")


_UCHAR, _USHORT, _UINT = (8, "unsigned char"), (16, "unsigned short"), (32, "unsigned int")


def _set(dst: Any, value: Any, vt: tuple[int, str], esize: int, width: Any, height: Any, pitch: Any, h: Any,
         call: str) -> _Result:
    p = _MemsetParams(_h(dst, _CUdeviceptr), _u(value, *vt), esize, _size(width), _size(height), _size(pitch))
    _drv().memset(p, None if h is None else _h(h, _CUstream), call)
    return _OK


@_face
def cuMemsetD8(dstDevice: Any, uc: Any, N: Any) -> _Result:
    """Set ``N`` bytes to ``uc`` (synchronous: legacy-stream/unsafe-call rules, spec 6). Errors: INVALID_VALUE range."""
    return _set(dstDevice, uc, _UCHAR, 1, N, 1, 0, None, "cuMemsetD8")


@_face
def cuMemsetD16(dstDevice: Any, us: Any, N: Any) -> _Result:
    """Set ``N`` 16-bit values (``dstDevice`` 2-byte aligned). Errors: INVALID_VALUE range/alignment."""
    return _set(dstDevice, us, _USHORT, 2, N, 1, 0, None, "cuMemsetD16")


@_face
def cuMemsetD32(dstDevice: Any, ui: Any, N: Any) -> _Result:
    """Set ``N`` 32-bit values (``dstDevice`` 4-byte aligned). Errors: INVALID_VALUE range/alignment."""
    return _set(dstDevice, ui, _UINT, 4, N, 1, 0, None, "cuMemsetD32")


@_face
def cuMemsetD8Async(dstDevice: Any, uc: Any, N: Any, hStream: Any) -> _Result:
    """Asynchronous ``cuMemsetD8``: a MEMSET node during capture (spec 3.8)."""
    return _set(dstDevice, uc, _UCHAR, 1, N, 1, 0, hStream, "cuMemsetD8Async")


@_face
def cuMemsetD16Async(dstDevice: Any, us: Any, N: Any, hStream: Any) -> _Result:
    """Asynchronous ``cuMemsetD16``: a MEMSET node during capture."""
    return _set(dstDevice, us, _USHORT, 2, N, 1, 0, hStream, "cuMemsetD16Async")


@_face
def cuMemsetD32Async(dstDevice: Any, ui: Any, N: Any, hStream: Any) -> _Result:
    """Asynchronous ``cuMemsetD32``: a MEMSET node during capture."""
    return _set(dstDevice, ui, _UINT, 4, N, 1, 0, hStream, "cuMemsetD32Async")


@_face
def cuMemsetD2D8(dstDevice: Any, dstPitch: Any, uc: Any, Width: Any, Height: Any) -> _Result:
    """2D byte memset: ``Height`` rows of ``Width`` bytes, rows ``dstPitch`` bytes apart."""
    return _set(dstDevice, uc, _UCHAR, 1, Width, Height, dstPitch, None, "cuMemsetD2D8")


@_face
def cuMemsetD2D16(dstDevice: Any, dstPitch: Any, us: Any, Width: Any, Height: Any) -> _Result:
    """2D 16-bit memset (``Width`` in elements, ``dstPitch`` in bytes)."""
    return _set(dstDevice, us, _USHORT, 2, Width, Height, dstPitch, None, "cuMemsetD2D16")


@_face
def cuMemsetD2D32(dstDevice: Any, dstPitch: Any, ui: Any, Width: Any, Height: Any) -> _Result:
    """2D 32-bit memset (``Width`` in elements, ``dstPitch`` in bytes)."""
    return _set(dstDevice, ui, _UINT, 4, Width, Height, dstPitch, None, "cuMemsetD2D32")


@_face
def cuMemsetD2D8Async(dstDevice: Any, dstPitch: Any, uc: Any, Width: Any, Height: Any, hStream: Any) -> _Result:
    """Asynchronous ``cuMemsetD2D8`` (a MEMSET node during capture)."""
    return _set(dstDevice, uc, _UCHAR, 1, Width, Height, dstPitch, hStream, "cuMemsetD2D8Async")


@_face
def cuMemsetD2D16Async(dstDevice: Any, dstPitch: Any, us: Any, Width: Any, Height: Any, hStream: Any) -> _Result:
    """Asynchronous ``cuMemsetD2D16`` (a MEMSET node during capture)."""
    return _set(dstDevice, us, _USHORT, 2, Width, Height, dstPitch, hStream, "cuMemsetD2D16Async")


@_face
def cuMemsetD2D32Async(dstDevice: Any, dstPitch: Any, ui: Any, Width: Any, Height: Any, hStream: Any) -> _Result:
    """Asynchronous ``cuMemsetD2D32`` (a MEMSET node during capture)."""
    return _set(dstDevice, ui, _UINT, 4, Width, Height, dstPitch, hStream, "cuMemsetD2D32Async")


@_face
def cuMemAllocAsync(bytesize: Any, hStream: Any) -> _Result:
    """Stream-ordered allocation: during capture a MEM_ALLOC node with a fixed graph-owned address (spec 3.8).

    Errors: INVALID_VALUE size 0; NOT_SUPPORTED on a CIG stream (spec 8.3); stream capture rules.
    """
    return (_SUCCESS, _mk_dptr(_drv().mem_alloc_async(_size(bytesize), _h(hStream, _CUstream))))


@_face
def cuMemFreeAsync(dptr: Any, hStream: Any) -> _Result:
    """Stream-ordered free: during capture a MEM_FREE node; ``dptr`` must be a graph allocation there
    (INVALID_VALUE otherwise, spec 3.8 [I])."""
    _drv().mem_free_async(_h(dptr, _CUdeviceptr), _h(hStream, _CUstream))
    return _OK


# =========================================================================== modules
def _image(image: Any) -> Any:
    """A module image as the real ``void*`` helper takes it: a buffer (bytes, numpy char array) or an ``int``
    address of NUL-terminated text, which the core reads only where it is readable memory (INVALID_VALUE
    otherwise; :mod:`simcuda._core.hostmem`). ``None`` is NULL (an empty image)."""
    x = _T.check_void_ptr_obj(image)
    return b"" if x is None else x


@_face
def cuModuleLoadData(image: Any) -> _Result:
    """Load a module from PTX/CUDA text, CUBIN or fatbin bytes (a buffer such as ``bytes`` or a numpy char
    array, or the int address of NUL-terminated text; ``str`` raises ``TypeError`` as in the real wrapper).

    Errors: INVALID_CONTEXT; INVALID_IMAGE (200) nothing recognisable; 900 during a restricting capture
    (spec 5.2). Kernel entry names (and parameter types when visible) are read from the image.
    """
    return (_SUCCESS, _CUmodule._mk(_drv().module_load_data(_image(image))))


@_face
def cuModuleLoadDataEx(image: Any, numOptions: Any, options: Any, optionValues: Any) -> _Result:
    """As ``cuModuleLoadData``; JIT options are checked like the wrapper checks them (``options`` a list of
    ``CUjit_option``, both lists at least ``numOptions`` long: ``RuntimeError: List is too small``) and
    otherwise ignored."""
    _options(options, optionValues, numOptions)
    return (_SUCCESS, _CUmodule._mk(_drv().module_load_data(_image(image), "cuModuleLoadDataEx")))


def _options(options: Any, values: Any, n: Any) -> None:
    """The wrapper's length checks of an option list and its value list (items were checked by the plan)."""
    n = _u(n)
    for lst in (options, values):
        have = 0 if lst is None else len(list(lst))
        if n > have:
            raise RuntimeError(f"List is too small: {have} < {n}")


@_face
def cuModuleLoadFatBinary(fatCubin: Any) -> _Result:
    """As ``cuModuleLoadData`` for a fatbin image."""
    return (_SUCCESS, _CUmodule._mk(_drv().module_load_data(_image(fatCubin), "cuModuleLoadFatBinary")))


@_face
def cuModuleLoad(fname: Any) -> _Result:
    """Load a module file (``fname``: ``bytes`` path). Errors: FILE_NOT_FOUND (301) unreadable file;
    otherwise as ``cuModuleLoadData``."""
    path = _bytes_arg(fname)
    d = _drv()
    data = d.read_image_file(os.fsdecode(path), "cuModuleLoad")
    return (_SUCCESS, _CUmodule._mk(d.module_load_data(data, "cuModuleLoad")))


@_face
def cuModuleUnload(hmod: Any) -> _Result:
    """Unload a module. Errors: INVALID_HANDLE; 900 during a restricting capture (spec 5.2)."""
    _drv().module_unload(_h(hmod, _CUmodule))
    return _OK


@_face
def cuModuleGetFunction(hmod: Any, name: Any) -> _Result:
    """A kernel of the module (``name``: ``bytes``; ``str`` raises ``TypeError: expected bytes, str found``).

    Errors: INVALID_HANDLE bad module; NOT_FOUND (500) no such entry.
    """
    n = _bytes_arg(name).decode()
    return (_SUCCESS, _CUfunction._mk(_drv().module_get_function(_h(hmod, _CUmodule), n)))


@_face
def cuFuncSetAttribute(hfunc: Any, attrib: Any, value: Any) -> _Result:
    """Set a function attribute. Simulated: ``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`` (the dynamic
    shared memory later launches may ask for: up to the device's ``MAX_SHARED_MEMORY_PER_BLOCK_OPTIN``) and
    ``CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`` (-1 to 100).

    Errors: INVALID_HANDLE bad function; INVALID_VALUE a value out of range or a read-only attribute;
    NOT_SUPPORTED the cluster attributes (not simulated).
    """
    a = _T.c_enum(attrib, "attrib", "CUfunction_attribute_enum")
    _drv().func_set_attribute(_h(hfunc, _CUfunction), a, _i(value))
    return _OK


@_face
def cuFuncGetAttribute(attrib: Any, hfunc: Any) -> _Result:
    """A function attribute (``int``): ``MAX_THREADS_PER_BLOCK`` (the device's), sizes and registers (0: no
    device code is simulated), PTX/binary version (the compute capability), ``MAX_DYNAMIC_SHARED_SIZE_BYTES``
    (48 KiB until raised) and the carveout. Errors: INVALID_HANDLE; NOT_SUPPORTED other attributes."""
    a = _T.c_enum(attrib, "attrib", "CUfunction_attribute_enum")
    return (_SUCCESS, _drv().func_get_attribute(a, _h(hfunc, _CUfunction)))


@_face
def cuFuncGetName(hfunc: Any) -> _Result:
    """The kernel's entry name as ``bytes``. Errors: INVALID_HANDLE."""
    return (_SUCCESS, _drv().func_get_name(_h(hfunc, _CUfunction)).encode())


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
    """Launch a kernel: a KERNEL node during capture (spec 3.8), else it runs now (or when the stream
    progresses): a kernel registered with ``simcuda.kernel(name)`` runs against simulated memory.

    Args: dimensions and ``sharedMemBytes`` (bytes) as unsigned ints; ``kernelParams`` in any form of
    the real binding: ``None``, the ``int`` address of a ``void**`` array (decoded with the parameter
    types read from the module), a buffer of such addresses, or ``(values, types)`` (see
    :mod:`simcuda.bindings._kernel_params`); ``extra`` must be an ``int`` (0).
    Errors: INVALID_HANDLE bad function; INVALID_VALUE zero or oversized dimensions, or ``extra`` set
    together with ``kernelParams``; NOT_SUPPORTED ``extra`` alone (not simulated); stream capture rules.
    """
    global _dims
    c = _dims  # typed parameters first (Cython converts them at entry), then the handles, last first
    if (gridDimX is c[0] and gridDimY is c[1] and gridDimZ is c[2] and blockDimX is c[3] and blockDimY is c[4]
            and blockDimZ is c[5]):  # the last launch's dimensions, converted then: only sharedMemBytes to check
        grid, block = c[6], c[7]
        if sharedMemBytes.__class__ is not int or sharedMemBytes < 0 or sharedMemBytes >> 32:
            sharedMemBytes = _u(sharedMemBytes)
    else:
        try:
            v = gridDimX | gridDimY | gridDimZ | blockDimX | blockDimY | blockDimZ | sharedMemBytes
        except TypeError:
            v = -1
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
    """As ``cuLaunchKernel`` without ``extra`` (cooperative launches are simulated as ordinary ones)."""
    hf, hs = _h(f, _CUfunction), _h(hStream, _CUstream)
    dims = tuple(map(_u, (gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes)))
    d = _drv()
    args = _kernel_args(d, hf, kernelParams, "cuLaunchCooperativeKernel")
    d.launch_kernel(hf, dims[0:3], dims[3:6], dims[6], hs, args, "cuLaunchCooperativeKernel")
    return _OK


@_face
def cuLaunchKernelEx(config: Any, f: Any, kernelParams: Any, extra: Any) -> _Result:
    """Launch from a ``CUlaunchConfig`` (grid, block, shared memory, stream, ``attrs``).

    Fidelity: attributes ``IGNORE``, ``COOPERATIVE`` and ``PRIORITY`` are accepted (no effect); any other
    attribute is NOT_SUPPORTED (not simulated; spec 13.B). Errors otherwise as ``cuLaunchKernel``;
    INVALID_VALUE for a NULL config.
    """
    _struct_arg(config, "CUlaunchConfig", "config")
    extra = _u(extra, 64, "unsigned PY_LONG_LONG")
    _KP.check_form(kernelParams)  # converted before the driver sees the NULL config
    d = _drv()
    d.require_arg(config is not None, "config", "cuLaunchKernelEx")
    hf = _h(f, _CUfunction)
    c = config._d
    d.check_launch_attributes([a._raw("id") for a in config.attrs[:c["numAttrs"]]], "cuLaunchKernelEx")
    d.check_kernel_extra(_KP.given(kernelParams), extra, "cuLaunchKernelEx")
    d.launch_kernel(hf, (c["gridDimX"], c["gridDimY"], c["gridDimZ"]), (c["blockDimX"], c["blockDimY"], c["blockDimZ"]),
                    c["sharedMemBytes"], int(c["hStream"]), _kernel_args(d, hf, kernelParams, "cuLaunchKernelEx"),
                    "cuLaunchKernelEx")
    return _OK


def _host_fn(fn: Any) -> int:
    """``CUhostFn`` or ``int`` address; a callable or CFUNCTYPE object raises ``TypeError`` (spec 3.9)."""
    return _h(fn, _CUhostFn)


@_face
def cuLaunchHostFunc(hStream: Any, fn: Any, userData: Any) -> _Result:
    """Enqueue a host function: a HOST node during capture, called once per replay (spec 3.9).

    Args: ``fn``: ``CUhostFn`` or the ``int`` address of a ``void (*)(void*)`` (for example
    ``ctypes.cast(CFUNCTYPE(None, c_void_p)(py_fn), c_void_p).value``); a Python callable or the
    CFUNCTYPE object raises ``TypeError: an integer is required``. ``userData``: None, int or buffer
    (passed as an address). The simulator keeps no reference to the thunk, like the binding: keep it alive.
    Errors: INVALID_VALUE NULL function; NOT_SUPPORTED on a CIG stream (spec 8.3); stream capture rules.
    CUDA calls made from inside the function return NOT_PERMITTED (800) [I].
    """
    fp = _host_fn(fn)
    _drv().launch_host_func(_h(hStream, _CUstream), fp, _T.void_ptr(userData))
    return _OK


@_face
def cuLaunchHostFunc_v2(hStream: Any, fn: Any, userData: Any, syncMode: Any) -> _Result:
    """``cuLaunchHostFunc`` with a ``CUhostTaskSyncMode`` (0 BLOCKING, 1 SPINWAIT; another value is
    INVALID_VALUE [I]); the mode has no visible effect in the simulator (spec 3.9)."""
    fp = _host_fn(fn)
    _drv().launch_host_func(_h(hStream, _CUstream), fp, _T.void_ptr(userData), _u(syncMode))
    return _OK


# =========================================================================== graphs
# -- graph node parameter structs <-> core parameters -----------------------------------------------
_NT_KERNEL, _NT_MEMCPY, _NT_MEMSET, _NT_HOST, _NT_GRAPH, _NT_EMPTY, _NT_WAIT, _NT_RECORD = 0, 1, 2, 3, 4, 5, 6, 7
_NT_SIGNAL, _NT_EXT_WAIT, _NT_ALLOC, _NT_FREE, _NT_BATCH = 8, 9, 10, 11, 12


def _null(d: Any, x: Any, call: str, arg: str) -> None:
    if x is None:
        d.require_arg(False, arg, call)


def _kernel_spec(d: Any, st: Any, call: str) -> dict[str, Any]:
    """Core kernel spec from a ``CUDA_KERNEL_NODE_PARAMS`` (v1/v2/v3): function (or ``kern``), dims, args."""
    p = st._d
    hf = int(p["func"]) or int(p.get("kern", 0) or 0)
    if p["extra"]:
        d.check_kernel_extra(_KP.given(p["kernelParams"]), p["extra"], call)
    return {"hfunc": hf, "grid": (p["gridDimX"], p["gridDimY"], p["gridDimZ"]),
            "block": (p["blockDimX"], p["blockDimY"], p["blockDimZ"]), "shmem": p["sharedMemBytes"],
            "args": _kernel_args(d, hf, p["kernelParams"], call)}


def _arg_slot(ptype: Any, v: Any) -> Any:
    import ctypes
    import struct as _struct

    from .._core.module import struct_format
    if isinstance(v, ctypes.Structure):
        return v
    if ptype is not None:
        fmt = struct_format(ptype)
        try:
            raw = _struct.pack(fmt, v)
        except (_struct.error, TypeError):
            raw = None
        if raw is not None:
            return ctypes.create_string_buffer(raw, len(raw))
    if isinstance(v, float):
        return ctypes.c_double(v)
    if isinstance(v, bytes):
        return ctypes.create_string_buffer(v, len(v))
    return ctypes.c_uint64(int(v) & (2 ** 64 - 1))


def _kernel_struct(params: Any, cls_name: str = "CUDA_KERNEL_NODE_PARAMS") -> Any:
    """A ``CUDA_KERNEL_NODE_PARAMS`` describing core kernel parameters (a ``KernelParams``); ``kernelParams`` is
    the address of a ``void**`` array owned by the returned struct (as the driver's copy is owned by the node)."""
    import ctypes
    st = globals()[cls_name]()
    f = params.func
    g = st._d
    g["func"] = _CUfunction._mk(f.handle)
    g["gridDimX"], g["gridDimY"], g["gridDimZ"] = params.grid
    g["blockDimX"], g["blockDimY"], g["blockDimZ"] = params.block
    g["sharedMemBytes"] = params.shmem
    g["ctx"] = _mk_ctx(f.module.ctx.handle if f.module.ctx is not None else 0)
    args = params.args
    if args:
        types = f.param_types if len(f.param_types) == len(args) else [None] * len(args)
        slots = [_arg_slot(t, v) for t, v in zip(types, args)]
        arr = (ctypes.c_void_p * len(slots))(*[ctypes.addressof(s) for s in slots])
        object.__setattr__(st, "_keep", (arr, slots))
        g["kernelParams"] = ctypes.addressof(arr)
    return st


def _memcpy_from(d: Any, st: Any, call: str) -> _CopyParams:
    return _copy_struct(d, st, call, True)


def _memcpy_struct(p: _CopyParams) -> Any:
    """A ``CUDA_MEMCPY3D`` describing core copy parameters (host sides keep the object they were given;
    a unified side, spec 16, reports ``CU_MEMORYTYPE_UNIFIED`` with its address in ``*Device``)."""
    st = globals()["CUDA_MEMCPY3D"]()
    g = st._d
    for pre, kind, obj, x, y, z, pitch, height in (
            ("src", p.src_kind, p.src, p.src_x, p.src_y, p.src_z, p.src_pitch, p.src_height),
            ("dst", p.dst_kind, p.dst, p.dst_x, p.dst_y, p.dst_z, p.dst_pitch, p.dst_height)):
        if p.memory_type(pre) == _MT_UNIFIED:
            g[pre + "MemoryType"], g[pre + "Device"] = _MT_UNIFIED, _mk_dptr(int(obj))
        elif kind == _HOST:
            g[pre + "MemoryType"], g[pre + "Host"] = _MT_HOST, obj
        else:
            g[pre + "MemoryType"], g[pre + "Device"] = _MT_DEVICE, _mk_dptr(int(obj))
        g[pre + "XInBytes"], g[pre + "Y"], g[pre + "Z"], g[pre + "Pitch"], g[pre + "Height"] = x, y, z, pitch, height
    g["WidthInBytes"], g["Height"], g["Depth"] = p.width, p.height, p.depth
    return st


def _memset_from(st: Any) -> _MemsetParams:
    m = st._d
    return _MemsetParams(int(m["dst"]), m["value"], m["elementSize"], m["width"], m["height"], m["pitch"])


def _memset_struct(p: _MemsetParams, cls_name: str = "CUDA_MEMSET_NODE_PARAMS") -> Any:
    st = globals()[cls_name]()
    g = st._d
    g["dst"], g["pitch"], g["value"], g["elementSize"] = _mk_dptr(p.dst), p.pitch, p.value, p.element_size
    g["width"], g["height"] = p.width, p.height
    return st


def _host_from(st: Any) -> dict[str, Any]:
    g = st._d
    return {"fn": int(g["fn"]), "user_data": _T.void_ptr(g["userData"]), "sync_mode": g.get("syncMode", 0)}


def _host_struct(p: Any, cls_name: str = "CUDA_HOST_NODE_PARAMS") -> Any:
    st = globals()[cls_name]()
    fn = p.fn
    st._d["fn"] = _CUhostFn._mk(fn if isinstance(fn, int) else 0)
    st._d["userData"] = p.user_data if p.user_data else 0
    if "syncMode" in st._d:
        st._d["syncMode"] = p.sync_mode
    return st


def _alloc_from(d: Any, st: Any, call: str) -> dict[str, Any]:
    g = st._d
    pp = g["poolProps"]._d
    loc = pp["location"]._d
    count = g["accessDescCount"]
    descs = list(g["accessDescs"])
    if count > len(descs):
        d.require_count(count, len(descs), "accessDescCount", call)
    access = [(a._d["location"]._d["type"], a._d["location"]._d["id"], a._d["flags"]) for a in descs[:count]]
    return {"size": g["bytesize"], "location": (loc["type"], loc["id"]), "alloc_type": pp["allocType"],
            "access": access}


def _alloc_struct(p: Any, cls_name: str = "CUDA_MEM_ALLOC_NODE_PARAMS") -> Any:
    st = globals()[cls_name]()
    g = st._d
    pp = g["poolProps"]._d
    pp["allocType"] = 1  # CU_MEM_ALLOCATION_TYPE_PINNED
    pp["location"]._d["type"], pp["location"]._d["id"] = 1, p.device  # CU_MEM_LOCATION_TYPE_DEVICE
    descs = []
    for t, did, fl in p.access:
        a = globals()["CUmemAccessDesc"]()
        a._d["location"]._d["type"], a._d["location"]._d["id"], a._d["flags"] = t, did, fl
        descs.append(a)
    g["accessDescs"], g["accessDescCount"] = descs, len(descs)
    g["bytesize"], g["dptr"] = p.size, _mk_dptr(p.alloc.start)
    return st


def _mem_ops_from(d: Any, params: list[Any], count: int, call: str) -> list[_MemOp]:
    """``(operation, address, value, flags)`` tuples from ``CUstreamBatchMemOpParams`` (union read by type)."""
    if count > len(params):
        d.require_count(count, len(params), "count (of paramArray)", call)
    ops = []
    for u in params[:count]:
        if not isinstance(u, globals()["CUstreamBatchMemOpParams_union"]):
            raise TypeError("Argument 'paramArray' is not instance of type (expected "
                            "tuple[cydriver.CUstreamBatchMemOpParams,] or list[cydriver.CUstreamBatchMemOpParams,]")
        g = u._d
        op = g["operation"] or next((g[k]._d["operation"] for k in ("waitValue", "writeValue", "flushRemoteWrites",
                                                                    "memoryBarrier") if g[k]._d["operation"]), 0)
        if op in (1, 4):
            s = g["waitValue"]._d
        elif op in (2, 5):
            s = g["writeValue"]._d
        elif op == 3:
            ops.append((op, 0, 0, g["flushRemoteWrites"]._d["flags"]))
            continue
        elif op == 6:
            ops.append((op, 0, 0, g["memoryBarrier"]._d["flags"]))
            continue
        else:
            ops.append((op, 0, 0, 0))  # the core refuses unknown or unsimulated types with INVALID_VALUE
            continue
        value = int(s["value"]) if op in (1, 2) else int(s["value64"])
        ops.append((op, int(s["address"]), value, s["flags"]))
    return ops


def _mem_op_struct(op: _MemOp) -> Any:
    u = globals()["CUstreamBatchMemOpParams"]()
    kind, addr, value, flags = op
    u._d["operation"] = kind
    key = {1: "waitValue", 4: "waitValue", 2: "writeValue", 5: "writeValue", 3: "flushRemoteWrites",
           6: "memoryBarrier"}.get(kind)
    if key is not None:
        s = u._d[key]._d
        s["operation"] = kind
        s["flags"] = flags
        if "address" in s:
            s["address"] = _mk_dptr(addr)
            if kind in (1, 2):
                s["value"] = globals()["cuuint32_t"](value)
            else:
                s["value64"] = globals()["cuuint64_t"](value)
    return u


def _batch_from(d: Any, st: Any, call: str) -> dict[str, Any]:
    g = st._d
    return {"ops": _mem_ops_from(d, list(g["paramArray"]), g["count"], call), "flags": g["flags"],
            "ctx": int(g["ctx"])}


def _batch_struct(p: Any, cls_name: str = "CUDA_BATCH_MEM_OP_NODE_PARAMS") -> Any:
    st = globals()[cls_name]()
    g = st._d
    g["ctx"] = _mk_ctx(p.ctx.handle if p.ctx is not None else 0)
    g["paramArray"] = [_mem_op_struct(op) for op in p.ops]
    g["count"], g["flags"] = len(p.ops), p.flags
    return st


def _ext_from(d: Any, st: Any, wait: bool, call: str) -> dict[str, Any]:
    g = st._d
    n = g["numExtSems"]
    sems, params = list(g["extSemArray"]), list(g["paramsArray"])
    if n > len(sems) or n > len(params):
        d.require_count(n, min(len(sems), len(params)), "numExtSems (of extSemArray and paramsArray)", call)
    values = []
    for sp in params[:n]:
        q = sp._d["params"]._d
        km = q["keyedMutex"]._d
        values.append((q["fence"]._d["value"], km["key"], km.get("timeoutMs", 0), sp._d["flags"]))
    return {"sems": [int(s) for s in sems[:n]], "values": values}


def _ext_struct(p: Any, wait: bool, cls_name: str) -> Any:
    st = globals()[cls_name]()
    g = st._d
    g["extSemArray"] = [globals()["CUexternalSemaphore"](h) for h in p.sems]
    pcls = globals()["CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS" if wait else "CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS"]
    out = []
    for fence, key, timeout, flags in p.values:
        sp = pcls()
        q = sp._d["params"]._d
        q["fence"]._d["value"] = fence
        q["keyedMutex"]._d["key"] = key
        if wait:
            q["keyedMutex"]._d["timeoutMs"] = timeout
        sp._d["flags"] = flags
        out.append(sp)
    g["paramsArray"], g["numExtSems"] = out, len(out)
    return st


def _ext_spec(d: Any, nodeParams: Any, wait: bool, call: str) -> dict[str, Any]:
    _null(d, nodeParams, call, "nodeParams")
    return _ext_from(d, nodeParams, wait, call)


# CUgraphNodeParams member per node type: (field, core spec reader)
_GNP_FIELD = {_NT_KERNEL: "kernel", _NT_MEMCPY: "memcpy", _NT_MEMSET: "memset", _NT_HOST: "host", _NT_GRAPH: "graph",
              _NT_EMPTY: None, _NT_WAIT: "eventWait", _NT_RECORD: "eventRecord", _NT_SIGNAL: "extSemSignal",
              _NT_EXT_WAIT: "extSemWait", _NT_ALLOC: "alloc", _NT_FREE: "free", _NT_BATCH: "memOp"}


def _gnp_spec(d: Any, np_: Any, call: str) -> tuple[int, Any]:
    """``(node type, core spec)`` from a ``CUgraphNodeParams`` (a tagged union read by ``type``)."""
    t = np_._d["type"]
    if t not in _GNP_FIELD:
        d.check_node_type(t, call)
    f = _GNP_FIELD[t]
    m: Any = np_._d[f] if f else None  # the member struct (None for an EMPTY node)
    if t == _NT_KERNEL:
        return t, _kernel_spec(d, m, call)
    if t == _NT_MEMCPY:
        return t, _copy_struct(d, m._d["copyParams"], call, True)
    if t == _NT_MEMSET:
        return t, _memset_from(m)
    if t == _NT_HOST:
        return t, _host_from(m)
    if t == _NT_GRAPH:
        return t, (int(m._d["graph"]), m._d["ownership"])
    if t in (_NT_WAIT, _NT_RECORD):
        return t, int(m._d["event"])
    if t in (_NT_SIGNAL, _NT_EXT_WAIT):
        return t, _ext_from(d, m, t == _NT_EXT_WAIT, call)
    if t == _NT_ALLOC:
        return t, _alloc_from(d, m, call)
    if t == _NT_FREE:
        return t, int(m._d["dptr"])
    if t == _NT_BATCH:
        return t, _batch_from(d, m, call)
    return t, None


def _gnp_struct(t: int, p: Any) -> Any:
    """A ``CUgraphNodeParams`` describing a node of type ``t`` with core parameters ``p``."""
    np_ = globals()["CUgraphNodeParams"]()
    g = np_._d
    g["type"] = t
    if t == _NT_KERNEL:
        g["kernel"] = _kernel_struct(p, "CUDA_KERNEL_NODE_PARAMS_v3")
    elif t == _NT_MEMCPY:
        g["memcpy"]._d["copyParams"] = _memcpy_struct(p)
    elif t == _NT_MEMSET:
        g["memset"] = _memset_struct(p, "CUDA_MEMSET_NODE_PARAMS_v2")
    elif t == _NT_HOST:
        g["host"] = _host_struct(p, "CUDA_HOST_NODE_PARAMS_v2")
    elif t == _NT_GRAPH:
        g["graph"]._d["graph"] = _mk_graph(p.graph.handle)
        g["graph"]._d["ownership"] = -1  # CU_GRAPH_CHILD_GRAPH_OWNERSHIP_INVALID: set on query
    elif t in (_NT_WAIT, _NT_RECORD):
        g["eventWait" if t == _NT_WAIT else "eventRecord"]._d["event"] = _mk_event(p.event.handle)
    elif t in (_NT_SIGNAL, _NT_EXT_WAIT):
        g["extSemSignal" if t == _NT_SIGNAL else "extSemWait"] = _ext_struct(
            p, t == _NT_EXT_WAIT, "CUDA_EXT_SEM_WAIT_NODE_PARAMS_v2" if t == _NT_EXT_WAIT else
            "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS_v2")
    elif t == _NT_ALLOC:
        g["alloc"] = _alloc_struct(p, "CUDA_MEM_ALLOC_NODE_PARAMS_v2")
    elif t == _NT_FREE:
        g["free"]._d["dptr"] = _mk_dptr(p.dptr)
    elif t == _NT_BATCH:
        g["memOp"] = _batch_struct(p, "CUDA_BATCH_MEM_OP_NODE_PARAMS_v2")
    return np_


def _node_params(hNode: Any, ntype: Any) -> Any:
    return _drv().graph_node_get_params(_h(hNode, _CUgraphNode), ntype)[1]


def _node_set_typed(hNode: Any, ntype: int, spec: Any) -> _Result:
    _drv().graph_node_set_params(_h(hNode, _CUgraphNode), ntype, spec)
    return _OK


def _exec_set(hGraphExec: Any, hNode: Any, ntype: int, spec: Any) -> _Result:
    _drv().graph_exec_node_set_params(_h(hGraphExec, _CUgraphExec), _h(hNode, _CUgraphNode), ntype, spec)
    return _OK


@_face
def cuGraphCreate(flags: Any) -> _Result:
    """Create an empty graph. Errors: INVALID_VALUE flags != 0."""
    return (_SUCCESS, _mk_graph(_drv().graph_create(_u(flags))))


@_face
def cuGraphDestroy(hGraph: Any) -> _Result:
    """Destroy a graph and its nodes. Errors: INVALID_VALUE bad graph, a capture target (spec 9) [I], or a
    child graph owned by a node."""
    _drv().graph_destroy(_h(hGraph, _CUgraph))
    return _OK


@_face
def cuGraphAddKernelNode(hGraph: Any, dependencies: Any, numDependencies: Any, nodeParams: Any) -> _Result:
    """Add a KERNEL node from ``CUDA_KERNEL_NODE_PARAMS`` (``func`` or ``kern``, grid/block dimensions,
    ``sharedMemBytes`` in bytes, ``kernelParams`` in any form ``cuLaunchKernel`` takes; arguments are copied
    now, as the driver copies them). A kernel registered with ``simcuda.kernel`` runs on every launch.

    Another struct type (also ``CUDA_KERNEL_NODE_PARAMS_v2``/``_v3``) raises ``TypeError`` like the wrapper.
    Errors: INVALID_VALUE NULL params, bad graph/dependency, bad function (the Returns list has no
    INVALID_HANDLE), zero or oversized dimensions, ``kernelParams`` together with ``extra``;
    NOT_SUPPORTED ``extra`` alone (not simulated).
    """
    deps = _deps_for(dependencies, numDependencies)
    _struct_arg(nodeParams, "CUDA_KERNEL_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphAddKernelNode", "nodeParams")
    k = _kernel_spec(d, nodeParams, "cuGraphAddKernelNode")
    return (_SUCCESS, _mk_node(d.graph_add_kernel_node(_h(hGraph, _CUgraph), deps, k["hfunc"], k["grid"], k["block"],
                                                      k["shmem"], k["args"])))


@_face
def cuGraphAddMemcpyNode(hGraph: Any, dependencies: Any, numDependencies: Any, copyParams: Any, ctx: Any) -> _Result:
    """Add a MEMCPY node from a ``CUDA_MEMCPY3D``; host sides are read and written when the graph runs,
    never now (spec 3.10). ``ctx`` is accepted and not checked.

    Errors: INVALID_VALUE NULL params, bad graph/dependency, device ranges outside an allocation, bad
    memory type; NOT_SUPPORTED for CUDA arrays.
    """
    deps = _deps_for(dependencies, numDependencies)
    _h(ctx, _CUcontext)
    _struct_arg(copyParams, "CUDA_MEMCPY3D", "copyParams")
    d = _drv()
    _null(d, copyParams, "cuGraphAddMemcpyNode", "copyParams")
    return (_SUCCESS, _mk_node(d.graph_add_memcpy_node(_h(hGraph, _CUgraph), deps,
                                                      _copy_struct(d, copyParams, "cuGraphAddMemcpyNode", True))))


@_face
def cuGraphAddMemsetNode(hGraph: Any, dependencies: Any, numDependencies: Any, memsetParams: Any, ctx: Any) -> _Result:
    """Add a MEMSET node from ``CUDA_MEMSET_NODE_PARAMS`` (``dst``, ``pitch`` in bytes, ``value``,
    ``elementSize`` 1/2/4 bytes, ``width`` in elements, ``height`` in rows).

    Errors: INVALID_VALUE NULL params, bad graph/dependency, element size, value wider than the element,
    misaligned destination, range outside an allocation.
    """
    deps = _deps_for(dependencies, numDependencies)
    _h(ctx, _CUcontext)
    _struct_arg(memsetParams, "CUDA_MEMSET_NODE_PARAMS", "memsetParams")
    d = _drv()
    _null(d, memsetParams, "cuGraphAddMemsetNode", "memsetParams")
    return (_SUCCESS, _mk_node(d.graph_add_memset_node(_h(hGraph, _CUgraph), deps, _memset_from(memsetParams))))


@_face
def cuGraphAddHostNode(hGraph: Any, dependencies: Any, numDependencies: Any, nodeParams: Any) -> _Result:
    """Add a HOST node from ``CUDA_HOST_NODE_PARAMS`` (``fn``: a ``CUhostFn`` address, ``userData``); the
    function is called through ctypes on every launch (spec 3.9). Keep the ctypes thunk alive.

    Errors: INVALID_VALUE NULL params or function, bad graph/dependency.
    """
    deps = _deps_for(dependencies, numDependencies)
    _struct_arg(nodeParams, "CUDA_HOST_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphAddHostNode", "nodeParams")
    h = _host_from(nodeParams)
    return (_SUCCESS, _mk_node(d.graph_add_host_node(_h(hGraph, _CUgraph), deps, h["fn"], h["user_data"])))


@_face
def cuGraphAddEmptyNode(hGraph: Any, dependencies: Any, numDependencies: Any) -> _Result:
    """Add an EMPTY node (a join point). Errors: INVALID_VALUE bad graph or dependency (also a repeated one)."""
    deps = _deps_for(dependencies, numDependencies)
    return (_SUCCESS, _mk_node(_drv().graph_add_empty_node(_h(hGraph, _CUgraph), deps)))


@_face
def cuGraphAddEventRecordNode(hGraph: Any, dependencies: Any, numDependencies: Any, event: Any) -> _Result:
    """Add an EVENT_RECORD node (the event completes when the node runs).

    Errors: INVALID_VALUE bad graph, dependency or event (the Returns list has no INVALID_HANDLE).
    """
    deps = _deps_for(dependencies, numDependencies)
    return (_SUCCESS, _mk_node(_drv().graph_add_event_node(_h(hGraph, _CUgraph), deps, _h(event, _CUevent), False)))


@_face
def cuGraphAddEventWaitNode(hGraph: Any, dependencies: Any, numDependencies: Any, event: Any) -> _Result:
    """Add a WAIT_EVENT node (replay has nothing to wait for: nodes run in one order).

    Errors: INVALID_VALUE bad graph, dependency or event.
    """
    deps = _deps_for(dependencies, numDependencies)
    return (_SUCCESS, _mk_node(_drv().graph_add_event_node(_h(hGraph, _CUgraph), deps, _h(event, _CUevent), True)))


@_face
def cuGraphAddMemAllocNode(hGraph: Any, dependencies: Any, numDependencies: Any, nodeParams: Any) -> _Result:
    """Add a MEM_ALLOC node from ``CUDA_MEM_ALLOC_NODE_PARAMS`` and write the allocation's fixed address
    into ``nodeParams.dptr`` (as the driver does).

    Fields read: ``bytesize`` (bytes), ``poolProps.allocType`` (PINNED), ``poolProps.location`` (DEVICE,
    ordinal), ``accessDescs[:accessDescCount]``. The memory exists while the graph runs, between this node
    and a MEM_FREE node (or, left unfreed, until cuMemFreeAsync / cuMemFree / the next AUTO_FREE launch).
    Errors: INVALID_VALUE NULL params, bad graph/dependency, size 0, a location other than a device of the
    driver, an allocation type other than PINNED, bad access descriptors, a graph owned by a child node.
    """
    deps = _deps_for(dependencies, numDependencies)
    _struct_arg(nodeParams, "CUDA_MEM_ALLOC_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphAddMemAllocNode", "nodeParams")
    a = _alloc_from(d, nodeParams, "cuGraphAddMemAllocNode")
    node, dptr = d.graph_add_mem_alloc_node(_h(hGraph, _CUgraph), deps, a["size"], a["location"], a["alloc_type"],
                                            a["access"])
    nodeParams._d["dptr"] = _mk_dptr(dptr)
    return (_SUCCESS, _mk_node(node))


@_face
def cuGraphAddMemFreeNode(hGraph: Any, dependencies: Any, numDependencies: Any, dptr: Any) -> _Result:
    """Add a MEM_FREE node for a graph allocation (``dptr``: ``CUdeviceptr`` or ``int``).

    Errors: INVALID_VALUE bad graph/dependency; an address not returned by an allocation node; an
    allocation already freed by a free node (in any graph); in the owning graph a free node not
    ordered after its allocation node [I].
    """
    deps = _deps_for(dependencies, numDependencies)
    return (_SUCCESS, _mk_node(_drv().graph_add_mem_free_node(_h(hGraph, _CUgraph), deps, _h(dptr, _CUdeviceptr))))


@_face
def cuGraphAddBatchMemOpNode(hGraph: Any, dependencies: Any, numDependencies: Any, nodeParams: Any) -> _Result:
    """Add a BATCH_MEM_OP node from ``CUDA_BATCH_MEM_OP_NODE_PARAMS`` (``ctx``, ``count``, ``paramArray``
    of ``CUstreamBatchMemOpParams`` read by ``operation``, ``flags`` 0). The operations are copied.

    Replay: WRITE_VALUE operations store their value; WAIT_VALUE operations evaluate their condition and
    note it in the launch log (the simulator never blocks); barriers and flushes are no-ops.
    Errors: INVALID_VALUE NULL params, count above the list or 256, unknown operation, an address outside
    device memory or misaligned, a value too wide, unknown flags.
    """
    deps = _deps_for(dependencies, numDependencies)
    _struct_arg(nodeParams, "CUDA_BATCH_MEM_OP_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphAddBatchMemOpNode", "nodeParams")
    b = _batch_from(d, nodeParams, "cuGraphAddBatchMemOpNode")
    return (_SUCCESS, _mk_node(d.graph_add_batch_mem_op_node(_h(hGraph, _CUgraph), deps, b["ops"], b["flags"],
                                                            b["ctx"])))


@_face
def cuGraphAddExternalSemaphoresSignalNode(hGraph: Any, dependencies: Any, numDependencies: Any,
                                           nodeParams: Any) -> _Result:
    """Add an EXT_SEMAS_SIGNAL node from ``CUDA_EXT_SEM_SIGNAL_NODE_PARAMS`` (``extSemArray``,
    ``paramsArray``, ``numExtSems``). Recorded with its parameters; replay is a no-op with a note in the
    launch log (external semaphores are not simulated, so handles are not checked beyond NULL).

    Errors: INVALID_VALUE NULL params, no semaphores, a NULL handle, ``numExtSems`` above a list length.
    """
    deps = _deps_for(dependencies, numDependencies)
    _struct_arg(nodeParams, "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS", "nodeParams")
    d = _drv()
    e = _ext_spec(d, nodeParams, False, "cuGraphAddExternalSemaphoresSignalNode")
    return (_SUCCESS, _mk_node(d.graph_add_ext_sem_node(_h(hGraph, _CUgraph), deps, e["sems"], e["values"], False)))


@_face
def cuGraphAddExternalSemaphoresWaitNode(hGraph: Any, dependencies: Any, numDependencies: Any,
                                         nodeParams: Any) -> _Result:
    """Add an EXT_SEMAS_WAIT node from ``CUDA_EXT_SEM_WAIT_NODE_PARAMS``; as the signal node otherwise."""
    deps = _deps_for(dependencies, numDependencies)
    _struct_arg(nodeParams, "CUDA_EXT_SEM_WAIT_NODE_PARAMS", "nodeParams")
    d = _drv()
    e = _ext_spec(d, nodeParams, True, "cuGraphAddExternalSemaphoresWaitNode")
    return (_SUCCESS, _mk_node(d.graph_add_ext_sem_node(_h(hGraph, _CUgraph), deps, e["sems"], e["values"], True)))


def _add_node(name: str, hGraph: Any, dependencies: Any, dependencyData: Any, numDependencies: Any,
              nodeParams: Any) -> _Result:
    deps = _deps_for(dependencies, numDependencies)
    eds = _eds_for(_edge_list(dependencyData, "dependencyData"), len(deps))
    _struct_arg(nodeParams, "CUgraphNodeParams", "nodeParams")
    d = _drv()
    _null(d, nodeParams, name, "nodeParams")
    hg = _h(hGraph, _CUgraph)
    t, spec = _gnp_spec(d, nodeParams, name)
    if t == _NT_KERNEL:
        h = d.graph_add_kernel_node(hg, deps, spec["hfunc"], spec["grid"], spec["block"], spec["shmem"], spec["args"],
                                    eds)
    elif t == _NT_MEMCPY:
        h = d.graph_add_memcpy_node(hg, deps, spec, eds)
    elif t == _NT_MEMSET:
        h = d.graph_add_memset_node(hg, deps, spec, eds)
    elif t == _NT_HOST:
        h = d.graph_add_host_node(hg, deps, spec["fn"], spec["user_data"], spec["sync_mode"], eds)
    elif t == _NT_GRAPH:
        hchild, own = spec
        d.check_child_ownership(own, name)
        h = d.graph_add_child_graph_node(hg, deps, hchild, eds, move=own == 1)
    elif t == _NT_EMPTY:
        h = d.graph_add_empty_node(hg, deps, eds)
    elif t in (_NT_WAIT, _NT_RECORD):
        h = d.graph_add_event_node(hg, deps, spec, t == _NT_WAIT, eds)
    elif t in (_NT_SIGNAL, _NT_EXT_WAIT):
        h = d.graph_add_ext_sem_node(hg, deps, spec["sems"], spec["values"], t == _NT_EXT_WAIT, eds)
    elif t == _NT_ALLOC:
        h, dptr = d.graph_add_mem_alloc_node(hg, deps, spec["size"], spec["location"], spec["alloc_type"],
                                             spec["access"], eds)
        nodeParams._d["alloc"]._d["dptr"] = _mk_dptr(dptr)
    elif t == _NT_FREE:
        h = d.graph_add_mem_free_node(hg, deps, spec, eds)
    else:
        h = d.graph_add_batch_mem_op_node(hg, deps, spec["ops"], spec["flags"], spec["ctx"], eds)
    return (_SUCCESS, _mk_node(h))


@_face
def cuGraphAddNode(hGraph: Any, dependencies: Any, dependencyData: Any, numDependencies: Any,
                   nodeParams: Any) -> _Result:
    """Add a node of any simulated type from a ``CUgraphNodeParams`` tagged union (``type`` selects the
    member: ``kernel``, ``memcpy.copyParams``, ``memset``, ``host``, ``graph`` (ownership CLONE or MOVE),
    ``eventRecord``, ``eventWait``, ``extSemSignal``, ``extSemWait``, ``alloc`` (its ``dptr`` is written
    back), ``free``, ``memOp``; EMPTY needs none), keeping ``dependencyData`` (spec 4.6 step 2).

    Errors: as the typed add calls; INVALID_VALUE an unknown type or ownership, bad edge data (to_port
    must be 0, type 0 or 1); NOT_SUPPORTED conditional, memcpy-batch and other unsimulated types.
    """
    return _add_node("cuGraphAddNode", hGraph, dependencies, dependencyData, numDependencies, nodeParams)


@_face
def cuGraphAddNode_v3(hGraph: Any, dependencies: Any, dependencyData: Any, numDependencies: Any,
                      nodeParams: Any) -> _Result:
    """The same call as ``cuGraphAddNode`` (13.x resolves both to the edge-data ABI)."""
    return _add_node("cuGraphAddNode_v3", hGraph, dependencies, dependencyData, numDependencies, nodeParams)


@_face
def cuGraphAddChildGraphNode(hGraph: Any, dependencies: Any, numDependencies: Any, childGraph: Any) -> _Result:
    """Add a GRAPH node holding a **clone** of ``childGraph`` (spec 4.6, 9); allowed on a capture graph, and
    with a capture graph as ``childGraph`` (cloning only reads it, spec 3.5).

    Errors: INVALID_VALUE bad graphs/dependencies, or a child with MEM_ALLOC/MEM_FREE/CONDITIONAL nodes.
    """
    deps = _deps_for(dependencies, numDependencies)
    return (_SUCCESS, _mk_node(_drv().graph_add_child_graph_node(_h(hGraph, _CUgraph), deps,
                                                                _h(childGraph, _CUgraph))))


@_face
def cuGraphChildGraphNodeGetGraph(hNode: Any) -> _Result:
    """The graph embedded in a GRAPH node (owned by the node). Errors: INVALID_VALUE not a GRAPH node."""
    return (_SUCCESS, _mk_graph(_drv().graph_child_graph_node_get_graph(_h(hNode, _CUgraphNode))))


@_face
def cuGraphNodeGetParams(hNode: Any) -> _Result:
    """A node's parameters as a ``CUgraphNodeParams`` (``type`` plus the member for that type).

    For a GRAPH node ``graph.graph`` is the embedded graph (owned by the node) and ``graph.ownership``
    is ``CU_GRAPH_CHILD_GRAPH_OWNERSHIP_INVALID``, as the driver sets it on query; for a MEM_ALLOC node
    ``alloc.dptr`` is the allocation's address. Errors: INVALID_VALUE bad node.
    """
    t, p = _drv().graph_node_get_params(_h(hNode, _CUgraphNode))
    return (_SUCCESS, _gnp_struct(t, p))


def _node_set(name: str, hNode: Any, nodeParams: Any) -> _Result:
    _struct_arg(nodeParams, "CUgraphNodeParams", "nodeParams")
    d = _drv()
    _null(d, nodeParams, name, "nodeParams")
    t, spec = _gnp_spec(d, nodeParams, name)
    if t == _NT_GRAPH:
        spec = spec[0]
    elif t in (_NT_ALLOC, _NT_FREE):
        spec = None  # refused by the core (not supported for memory nodes)
    d.graph_node_set_params(_h(hNode, _CUgraphNode), t, spec)
    return _OK


@_face
def cuGraphNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    """Set a node's parameters from a ``CUgraphNodeParams`` whose ``type`` must match the node's.

    Execs made earlier are not affected. GRAPH: ``graph.graph`` is cloned into the node (replacing the
    embedded graph). Errors: INVALID_VALUE NULL params, a type mismatch, bad parameters; NOT_SUPPORTED
    for MEM_ALLOC / MEM_FREE nodes (documented as not supported) and unsimulated types.
    """
    return _node_set("cuGraphNodeSetParams", hNode, nodeParams)


@_face
def cuGraphNodeSetParams_v2(hNode: Any, nodeParams: Any) -> _Result:
    """As ``cuGraphNodeSetParams`` (the ``_v2`` entry also takes green contexts, not simulated)."""
    return _node_set("cuGraphNodeSetParams_v2", hNode, nodeParams)


@_face
def cuGraphKernelNodeGetParams(hNode: Any) -> _Result:
    """A kernel node's ``CUDA_KERNEL_NODE_PARAMS``; ``kernelParams`` is the address of a ``void**`` array
    holding copies of the arguments (owned by the returned struct). Errors: INVALID_VALUE bad node or not
    a KERNEL node."""
    return (_SUCCESS, _kernel_struct(_node_params(hNode, _NT_KERNEL)))


@_face
def cuGraphKernelNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    """Set a kernel node's parameters (copied). Errors: INVALID_VALUE NULL params, not a KERNEL node, bad
    dimensions; INVALID_HANDLE a bad function (the Returns list names it)."""
    _struct_arg(nodeParams, "CUDA_KERNEL_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphKernelNodeSetParams", "nodeParams")
    return _node_set_typed(hNode, _NT_KERNEL, _kernel_spec(d, nodeParams, "cuGraphKernelNodeSetParams"))


@_face
def cuGraphMemcpyNodeGetParams(hNode: Any) -> _Result:
    """A memcpy node's ``CUDA_MEMCPY3D`` (host sides are the objects given).

    Mirrors ``cuda.bindings.driver.cuGraphMemcpyNodeGetParams(hNode)``; returns
    ``(CUresult, CUDA_MEMCPY3D)``.

    Fidelity: each side's ``*MemoryType`` is the one the copy was made with: HOST/DEVICE for typed
    copies, ``CU_MEMORYTYPE_UNIFIED`` (address in ``*Device``) for a captured ``cuMemcpyAsync`` and for
    a side set as UNIFIED (spec 16, 9).

    Errors: INVALID_VALUE bad node or not a MEMCPY node.
    """
    return (_SUCCESS, _memcpy_struct(_node_params(hNode, _NT_MEMCPY)))


@_face
def cuGraphMemcpyNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    """Set a memcpy node's ``CUDA_MEMCPY3D``. Errors: INVALID_VALUE NULL params, not a MEMCPY node, bad
    ranges or memory types; NOT_SUPPORTED arrays."""
    _struct_arg(nodeParams, "CUDA_MEMCPY3D", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphMemcpyNodeSetParams", "nodeParams")
    return _node_set_typed(hNode, _NT_MEMCPY, _copy_struct(d, nodeParams, "cuGraphMemcpyNodeSetParams", True))


@_face
def cuGraphMemsetNodeGetParams(hNode: Any) -> _Result:
    """A memset node's ``CUDA_MEMSET_NODE_PARAMS``. Errors: INVALID_VALUE bad node or not a MEMSET node."""
    return (_SUCCESS, _memset_struct(_node_params(hNode, _NT_MEMSET)))


@_face
def cuGraphMemsetNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    """Set a memset node's parameters. Errors: INVALID_VALUE NULL params, not a MEMSET node, bad range,
    element size or value."""
    _struct_arg(nodeParams, "CUDA_MEMSET_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphMemsetNodeSetParams", "nodeParams")
    return _node_set_typed(hNode, _NT_MEMSET, _memset_from(nodeParams))


@_face
def cuGraphHostNodeGetParams(hNode: Any) -> _Result:
    """A host node's ``CUDA_HOST_NODE_PARAMS`` (``fn`` as ``CUhostFn``, ``userData`` as given). Errors:
    INVALID_VALUE."""
    return (_SUCCESS, _host_struct(_node_params(hNode, _NT_HOST)))


@_face
def cuGraphHostNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    """Set a host node's function and user data. Errors: INVALID_VALUE NULL params or function, not a HOST node."""
    _struct_arg(nodeParams, "CUDA_HOST_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphHostNodeSetParams", "nodeParams")
    return _node_set_typed(hNode, _NT_HOST, _host_from(nodeParams))


@_face
def cuGraphEventRecordNodeGetEvent(hNode: Any) -> _Result:
    """The event of an EVENT_RECORD node. Errors: INVALID_VALUE bad node or another type."""
    return (_SUCCESS, _mk_event(_node_params(hNode, _NT_RECORD).event.handle))


@_face
def cuGraphEventRecordNodeSetEvent(hNode: Any, event: Any) -> _Result:
    """Set the event of an EVENT_RECORD node. Errors: INVALID_VALUE bad node or another type; INVALID_HANDLE
    a bad event."""
    return _node_set_typed(hNode, _NT_RECORD, _h(event, _CUevent))


@_face
def cuGraphEventWaitNodeGetEvent(hNode: Any) -> _Result:
    """The event of a WAIT_EVENT node. Errors: INVALID_VALUE bad node or another type."""
    return (_SUCCESS, _mk_event(_node_params(hNode, _NT_WAIT).event.handle))


@_face
def cuGraphEventWaitNodeSetEvent(hNode: Any, event: Any) -> _Result:
    """Set the event of a WAIT_EVENT node. Errors: INVALID_VALUE bad node; INVALID_HANDLE a bad event."""
    return _node_set_typed(hNode, _NT_WAIT, _h(event, _CUevent))


@_face
def cuGraphMemAllocNodeGetParams(hNode: Any) -> _Result:
    """A MEM_ALLOC node's ``CUDA_MEM_ALLOC_NODE_PARAMS`` (``dptr``, ``bytesize``, pinned device pool
    properties, access descriptors). Errors: INVALID_VALUE bad node or another type."""
    return (_SUCCESS, _alloc_struct(_node_params(hNode, _NT_ALLOC)))


@_face
def cuGraphMemFreeNodeGetParams(hNode: Any) -> _Result:
    """The address a MEM_FREE node frees, as ``CUdeviceptr``. Errors: INVALID_VALUE bad node or another type."""
    return (_SUCCESS, _mk_dptr(_node_params(hNode, _NT_FREE).dptr))


@_face
def cuGraphBatchMemOpNodeGetParams(hNode: Any) -> _Result:
    """A BATCH_MEM_OP node's ``CUDA_BATCH_MEM_OP_NODE_PARAMS``. Errors: INVALID_VALUE bad node or another type."""
    return (_SUCCESS, _batch_struct(_node_params(hNode, _NT_BATCH)))


@_face
def cuGraphBatchMemOpNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    """Set a batch mem op node's operations (copied). Errors: INVALID_VALUE as ``cuGraphAddBatchMemOpNode``."""
    _struct_arg(nodeParams, "CUDA_BATCH_MEM_OP_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphBatchMemOpNodeSetParams", "nodeParams")
    return _node_set_typed(hNode, _NT_BATCH, _batch_from(d, nodeParams, "cuGraphBatchMemOpNodeSetParams"))


@_face
def cuGraphExternalSemaphoresSignalNodeGetParams(hNode: Any) -> _Result:
    """An EXT_SEMAS_SIGNAL node's ``CUDA_EXT_SEM_SIGNAL_NODE_PARAMS``. Errors: INVALID_VALUE."""
    return (_SUCCESS, _ext_struct(_node_params(hNode, _NT_SIGNAL), False, "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS"))


@_face
def cuGraphExternalSemaphoresSignalNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    """Set an EXT_SEMAS_SIGNAL node's semaphores and parameters. Errors: INVALID_VALUE."""
    _struct_arg(nodeParams, "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS", "nodeParams")
    spec = _ext_spec(_drv(), nodeParams, False, "cuGraphExternalSemaphoresSignalNodeSetParams")
    return _node_set_typed(hNode, _NT_SIGNAL, spec)


@_face
def cuGraphExternalSemaphoresWaitNodeGetParams(hNode: Any) -> _Result:
    """An EXT_SEMAS_WAIT node's ``CUDA_EXT_SEM_WAIT_NODE_PARAMS``. Errors: INVALID_VALUE."""
    return (_SUCCESS, _ext_struct(_node_params(hNode, _NT_EXT_WAIT), True, "CUDA_EXT_SEM_WAIT_NODE_PARAMS"))


@_face
def cuGraphExternalSemaphoresWaitNodeSetParams(hNode: Any, nodeParams: Any) -> _Result:
    """Set an EXT_SEMAS_WAIT node's semaphores and parameters. Errors: INVALID_VALUE."""
    _struct_arg(nodeParams, "CUDA_EXT_SEM_WAIT_NODE_PARAMS", "nodeParams")
    spec = _ext_spec(_drv(), nodeParams, True, "cuGraphExternalSemaphoresWaitNodeSetParams")
    return _node_set_typed(hNode, _NT_EXT_WAIT, spec)


# -- per-node changes of an executable graph -------------------------------------------------------
_EXEC_LIMITS = ("The exec changes as though ``hNode`` had held the new parameters at instantiation; launches "
                "already enqueued keep what they had (manual progression shows it) and ``hNode`` itself is not "
                "changed. ")


@_face
def cuGraphExecKernelNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> _Result:
    """Set a kernel node's parameters in an exec. All fields may change, but the function's owning context
    may not (Graph Update Limitations).

    Errors: INVALID_VALUE NULL params, a node not in the exec's graph (or destroyed), not a KERNEL node,
    bad function or dimensions, a function of another context.
    """
    _struct_arg(nodeParams, "CUDA_KERNEL_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphExecKernelNodeSetParams", "nodeParams")
    return _exec_set(hGraphExec, hNode, _NT_KERNEL, _kernel_spec(d, nodeParams, "cuGraphExecKernelNodeSetParams"))


@_face
def cuGraphExecMemcpyNodeSetParams(hGraphExec: Any, hNode: Any, copyParams: Any, ctx: Any) -> _Result:
    """Set a memcpy node's ``CUDA_MEMCPY3D`` in an exec. The operands must stay in allocations of the same
    kind and context and keep their memory types; both the old and the new copy must be 1-dimensional to
    change geometry; zero-length copies are refused (the docstring's limits).

    Errors: INVALID_VALUE for any of those, NULL params, or a node not in the exec's graph.
    """
    _h(ctx, _CUcontext)
    _struct_arg(copyParams, "CUDA_MEMCPY3D", "copyParams")
    d = _drv()
    _null(d, copyParams, "cuGraphExecMemcpyNodeSetParams", "copyParams")
    return _exec_set(hGraphExec, hNode, _NT_MEMCPY, _copy_struct(d, copyParams, "cuGraphExecMemcpyNodeSetParams",
                                                                 True))


@_face
def cuGraphExecMemsetNodeSetParams(hGraphExec: Any, hNode: Any, memsetParams: Any, ctx: Any) -> _Result:
    """Set a memset node's parameters in an exec: value and address may change (same kind of allocation,
    same context); 2D memsets may change nothing else, 1D ones not their height; zero sizes are refused.

    Errors: INVALID_VALUE for any of those, NULL params, or a node not in the exec's graph.
    """
    _h(ctx, _CUcontext)
    _struct_arg(memsetParams, "CUDA_MEMSET_NODE_PARAMS", "memsetParams")
    d = _drv()
    _null(d, memsetParams, "cuGraphExecMemsetNodeSetParams", "memsetParams")
    return _exec_set(hGraphExec, hNode, _NT_MEMSET, _memset_from(memsetParams))


@_face
def cuGraphExecHostNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> _Result:
    """Set a host node's function and user data in an exec (no restrictions). Errors: INVALID_VALUE."""
    _struct_arg(nodeParams, "CUDA_HOST_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphExecHostNodeSetParams", "nodeParams")
    return _exec_set(hGraphExec, hNode, _NT_HOST, _host_from(nodeParams))


@_face
def cuGraphExecChildGraphNodeSetParams(hGraphExec: Any, hNode: Any, childGraph: Any) -> _Result:
    """Give a child-graph node of an exec the parameters of ``childGraph``, whose topology and node
    insertion order must match the embedded graph's (checked like ``cuGraphExecUpdate``, recursively).

    Errors: INVALID_VALUE bad handles, a node not in the exec's graph, or a mismatch (the ``why`` names the
    update result, e.g. TOPOLOGY_CHANGED).
    """
    return _exec_set(hGraphExec, hNode, _NT_GRAPH, _h(childGraph, _CUgraph))


@_face
def cuGraphExecEventRecordNodeSetEvent(hGraphExec: Any, hNode: Any, event: Any) -> _Result:
    """Set the event of an EVENT_RECORD node in an exec. Errors: INVALID_VALUE (bad event included)."""
    return _exec_set(hGraphExec, hNode, _NT_RECORD, _h(event, _CUevent))


@_face
def cuGraphExecEventWaitNodeSetEvent(hGraphExec: Any, hNode: Any, event: Any) -> _Result:
    """Set the event of a WAIT_EVENT node in an exec. Errors: INVALID_VALUE (bad event included)."""
    return _exec_set(hGraphExec, hNode, _NT_WAIT, _h(event, _CUevent))


@_face
def cuGraphExecBatchMemOpNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> _Result:
    """Set a batch mem op node's operations in an exec: addresses, values and wait conditions may change;
    count, operation types, flags and context may not. Errors: INVALID_VALUE."""
    _struct_arg(nodeParams, "CUDA_BATCH_MEM_OP_NODE_PARAMS", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphExecBatchMemOpNodeSetParams", "nodeParams")
    return _exec_set(hGraphExec, hNode, _NT_BATCH, _batch_from(d, nodeParams, "cuGraphExecBatchMemOpNodeSetParams"))


@_face
def cuGraphExecExternalSemaphoresSignalNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> _Result:
    """Set an EXT_SEMAS_SIGNAL node's parameters in an exec; ``numExtSems`` cannot change. Errors: INVALID_VALUE."""
    _struct_arg(nodeParams, "CUDA_EXT_SEM_SIGNAL_NODE_PARAMS", "nodeParams")
    return _exec_set(hGraphExec, hNode, _NT_SIGNAL,
                     _ext_spec(_drv(), nodeParams, False, "cuGraphExecExternalSemaphoresSignalNodeSetParams"))


@_face
def cuGraphExecExternalSemaphoresWaitNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> _Result:
    """Set an EXT_SEMAS_WAIT node's parameters in an exec; ``numExtSems`` cannot change. Errors: INVALID_VALUE."""
    _struct_arg(nodeParams, "CUDA_EXT_SEM_WAIT_NODE_PARAMS", "nodeParams")
    return _exec_set(hGraphExec, hNode, _NT_EXT_WAIT,
                     _ext_spec(_drv(), nodeParams, True, "cuGraphExecExternalSemaphoresWaitNodeSetParams"))


@_face
def cuGraphExecNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> _Result:
    """Set a node's parameters in an exec from a ``CUgraphNodeParams`` (``type`` must match), with the limits
    of the per-type exec setters. Errors: INVALID_VALUE; NOT_SUPPORTED for memory and unsimulated nodes."""
    _struct_arg(nodeParams, "CUgraphNodeParams", "nodeParams")
    d = _drv()
    _null(d, nodeParams, "cuGraphExecNodeSetParams", "nodeParams")
    t, spec = _gnp_spec(d, nodeParams, "cuGraphExecNodeSetParams")
    if t == _NT_GRAPH:
        spec = spec[0]
    return _exec_set(hGraphExec, hNode, t, spec)


@_face
def cuGraphNodeSetEnabled(hGraphExec: Any, hNode: Any, isEnabled: Any) -> _Result:
    """Enable (``isEnabled`` != 0) or disable a kernel, memcpy or memset node in an exec; a disabled node runs
    as an empty node and keeps its parameters. Errors: INVALID_VALUE another node type, a node not in the
    exec's graph, bad handles."""
    _drv().graph_node_set_enabled(_h(hGraphExec, _CUgraphExec), _h(hNode, _CUgraphNode), _u(isEnabled))
    return _OK


@_face
def cuGraphNodeGetEnabled(hGraphExec: Any, hNode: Any) -> _Result:
    """Whether a kernel, memcpy or memset node is enabled in an exec (1 or 0). Errors: INVALID_VALUE."""
    return (_SUCCESS, _drv().graph_node_get_enabled(_h(hGraphExec, _CUgraphExec), _h(hNode, _CUgraphNode)))


@_face
def cuGraphNodeFindInClone(hOriginalNode: Any, hClonedGraph: Any) -> _Result:
    """The copy of ``hOriginalNode`` in a graph made by ``cuGraphClone`` of its graph.

    Errors: INVALID_VALUE bad handles, a graph that is not such a clone, a node added after cloning, or a
    copy destroyed since."""
    return (_SUCCESS, _mk_node(_drv().graph_node_find_in_clone(_h(hOriginalNode, _CUgraphNode),
                                                              _h(hClonedGraph, _CUgraph))))


@_face
def cuGraphExecGetFlags(hGraphExec: Any) -> _Result:
    """The flags the exec was instantiated with (``cuuint64_t``), without UPLOAD. Errors: INVALID_VALUE."""
    return (_SUCCESS, globals()["cuuint64_t"](_drv().graph_exec_get_flags(_h(hGraphExec, _CUgraphExec))))


@_face
def cuGraphExecGetId(hGraphExec: Any) -> _Result:
    """The exec's id (``int``; unique among this driver's graph and exec ids). Errors: INVALID_VALUE."""
    return (_SUCCESS, _drv().graph_exec_get_id(_h(hGraphExec, _CUgraphExec)))


# -- stream memory operations and external semaphores (BATCH_MEM_OP / EXT_SEMAS nodes in capture) ---
def _stream_value(name: str, stream: Any, addr: Any, value: Any, flags: Any, op: int, bits: int) -> _Result:
    hs = _h(stream, _CUstream)
    a = _h(addr, _CUdeviceptr)
    v = _h(value, globals()[f"cuuint{bits}_t"])  # a cuuint32_t/cuuint64_t argument: None is 0
    _drv().stream_batch_mem_op(hs, [(op, a, v, _u(flags))], 0, name)
    return _OK


@_face
def cuStreamWriteValue32(stream: Any, addr: Any, value: Any, flags: Any) -> _Result:
    """Write a 32-bit value to device memory in stream order (a BATCH_MEM_OP node during capture, spec 3.8 [I]).

    Args: ``addr`` a ``CUdeviceptr`` (4-byte aligned); ``value`` (``cuuint32_t`` or int); ``flags``
    ``CUstreamWriteValue_flags``. Errors: INVALID_VALUE bad address, alignment or flags; stream capture rules.
    """
    return _stream_value("cuStreamWriteValue32", stream, addr, value, flags, 2, 32)


@_face
def cuStreamWriteValue64(stream: Any, addr: Any, value: Any, flags: Any) -> _Result:
    """As ``cuStreamWriteValue32`` with a 64-bit value (8-byte aligned address)."""
    return _stream_value("cuStreamWriteValue64", stream, addr, value, flags, 5, 64)


@_face
def cuStreamWaitValue32(stream: Any, addr: Any, value: Any, flags: Any) -> _Result:
    """Wait in stream order until ``*addr`` meets a condition (``CUstreamWaitValue_flags``: GEQ cyclic, EQ,
    AND, NOR, plus FLUSH). A BATCH_MEM_OP node during capture (spec 3.8 [I]).

    Fidelity: the simulator never blocks: the condition is evaluated when the work runs and the launch
    log says whether it held. Errors: INVALID_VALUE bad address, alignment or flags; NOT_SUPPORTED on a CIG
    stream (spec 8.3); stream capture rules.
    """
    return _stream_value("cuStreamWaitValue32", stream, addr, value, flags, 1, 32)


@_face
def cuStreamWaitValue64(stream: Any, addr: Any, value: Any, flags: Any) -> _Result:
    """As ``cuStreamWaitValue32`` with a 64-bit value."""
    return _stream_value("cuStreamWaitValue64", stream, addr, value, flags, 4, 64)


@_face
def cuStreamBatchMemOp(stream: Any, count: Any, paramArray: Any, flags: Any) -> _Result:
    """Enqueue ``count`` memory operations (``CUstreamBatchMemOpParams``, read by ``operation``): a
    BATCH_MEM_OP node during capture (spec 3.8 [D]); otherwise writes store and waits are evaluated when
    the work runs. ``count`` above the list raises ``RuntimeError: List is too small`` as the wrapper does.

    Errors: INVALID_VALUE count of 256 or more, unknown operation, bad address/alignment/value, flags != 0;
    NOT_SUPPORTED on a CIG stream (spec 8.3); stream capture rules.
    """
    hs = _h(stream, _CUstream)
    n = _u(count)
    params = [] if paramArray is None else list(paramArray)
    if n > len(params):
        raise RuntimeError(f"List is too small: {len(params)} < {n}")
    d = _drv()
    d.stream_batch_mem_op(hs, _mem_ops_from(d, params, n, "cuStreamBatchMemOp"), _u(flags), "cuStreamBatchMemOp")
    return _OK


def _ext_async(name: str, extSemArray: Any, paramsArray: Any, numExtSems: Any, stream: Any, wait: bool) -> _Result:
    sems = _node_list(extSemArray, "extSemArray", globals()["CUexternalSemaphore"])
    pcls = "CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS" if wait else "CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS"
    params = [] if paramsArray is None else list(paramsArray)
    for p in params:
        _struct_arg(p, pcls, "paramsArray")
    n = _u(numExtSems)
    if n > len(sems):
        raise RuntimeError(f"List is too small: {len(sems)} < {n}")
    if n > len(params):
        raise RuntimeError(f"List is too small: {len(params)} < {n}")
    values = []
    for sp in params[:n]:
        q = sp._d["params"]._d
        km = q["keyedMutex"]._d
        values.append((q["fence"]._d["value"], km["key"], km.get("timeoutMs", 0), sp._d["flags"]))
    _drv().stream_ext_semaphores(_h(stream, _CUstream), sems[:n], values, wait)
    return _OK


@_face
def cuSignalExternalSemaphoresAsync(extSemArray: Any, paramsArray: Any, numExtSems: Any, stream: Any) -> _Result:
    """Signal external semaphores in stream order: an EXT_SEMAS_SIGNAL node during capture (spec 3.8);
    otherwise a no-op noted in the launch log (external semaphores are not simulated; handles are not
    checked beyond NULL). Errors: INVALID_HANDLE a NULL handle or none; stream capture rules."""
    return _ext_async("cuSignalExternalSemaphoresAsync", extSemArray, paramsArray, numExtSems, stream, False)


@_face
def cuWaitExternalSemaphoresAsync(extSemArray: Any, paramsArray: Any, numExtSems: Any, stream: Any) -> _Result:
    """Wait on external semaphores in stream order: an EXT_SEMAS_WAIT node during capture (spec 3.8);
    otherwise a no-op noted in the launch log. Errors as ``cuSignalExternalSemaphoresAsync``."""
    return _ext_async("cuWaitExternalSemaphoresAsync", extSemArray, paramsArray, numExtSems, stream, True)


def _pad_nodes(handles: list[int], n: int, mk: Any = None) -> list[Any]:
    """``n`` node wrappers: the handles, then ``CUgraphNode(0)`` (one shared object) up to ``n``; MemoryError
    at once where the real wrapper's ``calloc`` of the output array fails (:func:`_T.check_calloc`)."""
    mk = mk or _mk_node
    return _T.padded([mk(x) for x in handles[:n]], n, mk(0))


def _pad_edges(edata: list[Any], n: int, mk_edge: Any, cls: type) -> list[Any]:
    """``n`` edge-data structs: the given ones, then zeroed ones (distinct objects for a small padding,
    one shared zero struct beyond 4096 entries, so that a huge count costs one list)."""
    out = [mk_edge(ed) for ed in edata[:n]]
    pad = n - len(out)
    if 0 < pad <= 4096:
        return out + [cls() for _ in range(pad)]
    return _T.padded(out, n, cls())


@_face
def cuGraphGetNodes(hGraph: Any, numNodes: Any = 0) -> _Result:
    """The graph's nodes in creation order [I] (spec 4.5, 9).

    ``numNodes=0`` only counts: ``(res, [], N)``. A larger ``numNodes`` pads the list with
    ``CUgraphNode(0)`` and returns the count N; a smaller one returns that many nodes and that count.
    Errors: INVALID_VALUE bad graph.
    """
    n = _size(numNodes)
    _T.check_calloc(n)
    nodes = _drv().graph_get_nodes(_h(hGraph, _CUgraph))
    return (_SUCCESS, _pad_nodes(nodes, n), len(nodes) if n == 0 or n >= len(nodes) else n)


@_face
def cuGraphGetRootNodes(hGraph: Any, numRootNodes: Any = 0) -> _Result:
    """Nodes with no incoming edge, creation order; count-only and padding as ``cuGraphGetNodes``."""
    n = _size(numRootNodes)
    _T.check_calloc(n)
    nodes = _drv().graph_get_root_nodes(_h(hGraph, _CUgraph))
    return (_SUCCESS, _pad_nodes(nodes, n), len(nodes) if n == 0 or n >= len(nodes) else n)


@_face
def cuGraphGetEdges(hGraph: Any, numEdges: Any = 0) -> _Result:
    """Edges in creation order: ``(res, from, to, edgeData, count)`` with ``to[i]`` depending on ``from[i]``.

    ``numEdges=0`` only counts; a larger value pads with ``CUgraphNode(0)`` and zero edge data.
    Errors: INVALID_VALUE bad graph.
    """
    n = _size(numEdges)
    _T.check_calloc(n)
    edges = _drv().graph_get_edges(_h(hGraph, _CUgraph))
    frm = _pad_nodes([a for a, _, _ in edges], n)
    to = _pad_nodes([b for _, b, _ in edges], n)
    eds = _pad_edges([ed for _, _, ed in edges], n, _edge, _CUgraphEdgeData)
    return (_SUCCESS, frm, to, eds, len(edges) if n == 0 or n >= len(edges) else n)


def _node_deps(hNode: Any, n: Any, dependents: bool) -> _Result:
    n = _size(n)
    _T.check_calloc(n)
    pairs = _drv().graph_node_get_dependencies(_h(hNode, _CUgraphNode), dependents)
    nodes = _pad_nodes([a for a, _ in pairs], n)
    eds = _pad_edges([ed for _, ed in pairs], n, _edge, _CUgraphEdgeData)
    return (_SUCCESS, nodes, eds, len(pairs) if n == 0 or n >= len(pairs) else n)


@_face
def cuGraphNodeGetDependencies(hNode: Any, numDependencies: Any = 0) -> _Result:
    """The node's dependencies with edge data, in edge order: ``(res, nodes, edgeData, count)``."""
    return _node_deps(hNode, numDependencies, False)


@_face
def cuGraphNodeGetDependentNodes(hNode: Any, numDependentNodes: Any = 0) -> _Result:
    """The nodes that depend on this one, with edge data: ``(res, nodes, edgeData, count)``."""
    return _node_deps(hNode, numDependentNodes, True)


@_face
def cuGraphNodeGetType(hNode: Any) -> _Result:
    """The node's ``CUgraphNodeType``. Errors: INVALID_VALUE bad node."""
    return (_SUCCESS, _E.CUgraphNodeType(_drv().graph_node_get_type(_h(hNode, _CUgraphNode))))


@_face
def cuGraphNodeGetContainingGraph(hNode: Any) -> _Result:
    """The graph that holds the node. Errors: INVALID_VALUE."""
    return (_SUCCESS, _mk_graph(_drv().graph_node_get_containing_graph(_h(hNode, _CUgraphNode))))


@_face
def cuGraphNodeGetLocalId(hNode: Any) -> _Result:
    """The node's 0-based creation index in its graph (matches ``node_<id>`` in DOT output)."""
    return (_SUCCESS, _drv().graph_node_get_local_id(_h(hNode, _CUgraphNode)))


@_face
def cuGraphGetId(hGraph: Any) -> _Result:
    """The graph's id (matches ``graph_<id>`` in DOT output)."""
    return (_SUCCESS, _drv().graph_get_id(_h(hGraph, _CUgraph)))


def _dep_pairs(from_: Any, to: Any, edgeData: Any, n: Any, remove: bool,
               node_list: Any = None, edge_list: Any = None) -> tuple[list[int], list[int], _EdgeDataArg]:
    froms, tos = (node_list or _node_list)(from_, "from_"), (node_list or _node_list)(to, "to")
    eds = (edge_list or _edge_list)(edgeData, "edgeData")
    n = _size(n)
    # the wrapper passes the count through unchecked: entries past a list's end reach the driver as NULL
    # (INVALID_VALUE at the first one), so one padding entry per list is enough, whatever the count
    n = min(n, max(len(froms), len(tos), len(eds)) + 1)
    froms = froms[:n] + [0] * max(0, n - len(froms))
    tos = tos[:n] + [0] * max(0, n - len(tos))
    if eds and len(eds) < n:
        eds = eds + [(255, 255, 255) if remove else None] * (n - len(eds))
    return froms, tos, eds[:n]


def _capture_deps(deps: list[int], eds: _EdgeDataArg, n: int) -> tuple[list[int], _EdgeDataArg]:
    """Dependencies and edge data of ``cuStreamUpdateCaptureDependencies`` for count ``n``: the wrapper does
    not check the count, and entries past the list reach the driver as garbage handles, the first of which
    is refused (spec 3.6 row 5); one NULL entry stands for all of them, whatever the count."""
    eds = _eds_for(eds, n, len(deps))
    return ([*deps[:n], 0] if n > len(deps) else deps[:n]), eds


@_face
def cuGraphAddDependencies(hGraph: Any, from_: Any, to: Any, edgeData: Any, numDependencies: Any) -> _Result:
    """Add edges ``from_[i] -> to[i]`` (``edgeData`` None = zero). Errors: INVALID_VALUE a node outside the
    graph or NULL (also counts past the lists), an existing edge, bad edge data."""
    froms, tos, eds = _dep_pairs(from_, to, edgeData, numDependencies, False)
    _drv().graph_add_dependencies(_h(hGraph, _CUgraph), froms, tos, eds)
    return _OK


@_face
def cuGraphRemoveDependencies(hGraph: Any, from_: Any, to: Any, edgeData: Any, numDependencies: Any) -> _Result:
    """Remove edges (recorded, so nodes cut off by graph edits stay exempt from UNJOINED, spec 4.4).
    Errors: INVALID_VALUE a missing edge, or a graph with memory nodes."""
    froms, tos, eds = _dep_pairs(from_, to, edgeData, numDependencies, True)
    # removal pads a short edge-data list with (255, 255, 255), an edge that never exists: never None
    _drv().graph_remove_dependencies(_h(hGraph, _CUgraph), froms, tos, _cast("list[_EdgeData]", eds))
    return _OK


@_face
def cuGraphDestroyNode(hNode: Any) -> _Result:
    """Remove a node and its edges. Errors: INVALID_VALUE during capture of its graph (spec 3.5) or with
    memory nodes."""
    _drv().graph_destroy_node(_h(hNode, _CUgraphNode))
    return _OK


@_face
def cuGraphClone(originalGraph: Any) -> _Result:
    """Deep copy (child graphs included). Errors: INVALID_VALUE, also for MEM_ALLOC/MEM_FREE/CONDITIONAL nodes."""
    return (_SUCCESS, _mk_graph(_drv().graph_clone(_h(originalGraph, _CUgraph))))


@_face
def cuGraphInstantiate(hGraph: Any, flags: Any) -> _Result:
    """Freeze a graph into an executable graph. Args: ``flags``: ``CUgraphInstantiate_flags`` bits (13.x takes
    them; the argument is required, as in the wrapper: one argument raises ``TypeError``).

    Mirrors ``cuda.bindings.driver.cuGraphInstantiate(hGraph, flags)``; returns ``(CUresult, CUgraphExec)``.

    Errors (INVALID_VALUE): ``CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD``, which needs the params form and its
    upload stream (spec 16, 9) [H/D]; unknown flag bits; a capture target [I]; a graph moved into a child-graph node;
    memory nodes while an exec of the graph exists (C-141); DEVICE_LAUNCH with AUTO_FREE_ON_LAUNCH, with no
    kernel/memcpy/memset node, other node types, pageable host copies or several contexts (C-143); a cycle.
    ``cuGraphInstantiateWithParams`` also reports the ``CUgraphInstantiateResult`` and error node.
    """
    return (_SUCCESS, _mk_exec(_drv().graph_instantiate(_h(hGraph, _CUgraph), _u(flags, 64, "unsigned PY_LONG_LONG"))))


@_face
def cuGraphInstantiateWithParams(hGraph: Any, instantiateParams: Any) -> _Result:
    """Instantiate from ``CUDA_GRAPH_INSTANTIATE_PARAMS`` (``flags``; ``hUploadStream`` used with
    ``CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD``) and write ``result_out`` (a ``CUgraphInstantiateResult``) and
    ``hErrNode_out`` into the struct, as the driver does: SUCCESS and NULL on success; on failure ERROR,
    INVALID_STRUCTURE (a cycle; a node on it), NODE_OPERATION_NOT_SUPPORTED (DEVICE_LAUNCH with another node
    type or pageable host memory; that node) or MULTIPLE_CTXS_NOT_SUPPORTED (that node).

    Errors: INVALID_VALUE NULL params and every rule of ``cuGraphInstantiate``; stream errors of the upload
    stream (checked before anything is made).
    """
    _struct_arg(instantiateParams, "CUDA_GRAPH_INSTANTIATE_PARAMS", "instantiateParams")
    d = _drv()
    p = instantiateParams
    _null(d, p, "cuGraphInstantiateWithParams", "instantiateParams")
    try:
        x = d.graph_instantiate_with_params(_h(hGraph, _CUgraph), int(p._raw("flags")), int(p._raw("hUploadStream")))
    except _DriverError as e:
        p._d["result_out"] = getattr(e, "instantiate_result", 1)  # CUDA_GRAPH_INSTANTIATE_ERROR
        p._d["hErrNode_out"] = _mk_node(getattr(e, "err_node", 0))
        raise
    p._d["result_out"] = 0
    p._d["hErrNode_out"] = _mk_node(0)
    return (_SUCCESS, _mk_exec(x))


@_face
def cuGraphLaunch(hGraphExec: Any, hStream: Any) -> _Result:
    """Run an executable graph on a stream (replays nodes in topological order, creation order breaking ties).

    Mirrors ``cuda.bindings.driver.cuGraphLaunch(hGraphExec, hStream)``; returns ``(CUresult,)``.

    Errors: INVALID_VALUE for a NULL or destroyed exec (spec 16, 9), INVALID_HANDLE for a handle that never
    named an exec; INVALID_VALUE unfreed graph allocations without
    AUTO_FREE_ON_LAUNCH; 900 into a capturing stream, invalidating it (spec 3.8) unless
    ``Options(graph_launch_in_capture="child-node")``; 906/901 by the stream rules.
    """
    _drv().graph_launch(_h(hGraphExec, _CUgraphExec), _h(hStream, _CUstream))
    return _OK


@_face
def cuGraphUpload(hGraphExec: Any, hStream: Any) -> _Result:
    """Nothing to upload in a simulator: checks the handles and the stream rules (906 legacy, 901).

    Mirrors ``cuda.bindings.driver.cuGraphUpload(hGraphExec, hStream)``; returns ``(CUresult,)``.

    Errors: INVALID_VALUE for a NULL or destroyed exec (spec 16, 9), INVALID_HANDLE for a handle that never
    named an exec; the stream's preamble errors; 906 on the legacy stream under a blocking capture; 901 on
    a stream of an invalidated capture.
    """
    _drv().graph_upload(_h(hGraphExec, _CUgraphExec), _h(hStream, _CUstream))
    return _OK


@_face
def cuGraphExecDestroy(hGraphExec: Any) -> _Result:
    """Destroy an executable graph. Errors: INVALID_VALUE/INVALID_HANDLE; 900 during a restricting capture
    (potentially unsafe call, spec 5.2)."""
    _drv().graph_exec_destroy(_h(hGraphExec, _CUgraphExec))
    return _OK


@_face
def cuGraphExecUpdate(hGraphExec: Any, hGraph: Any) -> _Result:
    """Update an exec's parameters from a graph of the same topology (spec 9; Programming Guide "Whole Graph
    Update": nodes paired by creation order, dependencies by edge order).

    Returns ``(CUDA_SUCCESS, CUgraphExecUpdateResultInfo(result=SUCCESS, errorNode=0, errorFromNode=0))``.
    On any error, including ``CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE`` (910), the info slot is ``None`` as in
    the real wrapper (spec 11.1, C-138); the driver's result (TOPOLOGY_CHANGED, NODE_TYPE_CHANGED,
    UNSUPPORTED_FUNCTION_CHANGE, PARAMETERS_CHANGED, ATTRIBUTES_CHANGED, NOT_SUPPORTED) and error nodes are
    named in ``simcuda.last_error().why`` and kept in ``simcuda.last_error().update_info``. The exec is
    unchanged on failure. Updating from the graph of a live capture is INVALID_VALUE: an update freezes the
    graph into the exec as instantiation does, which spec 3.2 rules out until the capture ends [inferred].

    Fidelity (spec 16, 9) [I]: when the two graphs created different numbers of nodes (destroyed ones
    included) the result is NOT_SUPPORTED with a NULL error node, as observed on NVIDIA; the same
    created count with different live nodes is TOPOLOGY_CHANGED. The rule is ``graph.plan_update``.
    """
    result, enode, efrom = _drv().graph_exec_update(_h(hGraphExec, _CUgraphExec), _h(hGraph, _CUgraph))
    info = _CUgraphExecUpdateResultInfo()
    info._d["result"] = result
    info._d["errorNode"] = _mk_node(enode)
    info._d["errorFromNode"] = _mk_node(efrom)
    return (_SUCCESS, info)


@_face
def cuGraphDebugDotPrint(hGraph: Any, path: Any, flags: Any) -> _Result:
    """Write the graph as Graphviz DOT (spec 9.1). Args: ``path`` as ``bytes`` (``str`` raises TypeError);
    ``CUgraphDebugDot_flags``. Errors: INVALID_VALUE bad graph or empty path; OPERATING_SYSTEM (304)
    when the file cannot be written."""
    p = _bytes_arg(path)
    _drv().graph_debug_dot_print(_h(hGraph, _CUgraph), os.fsdecode(p), _u(flags))
    return _OK


# =========================================================================== the rest: not simulated
# =========================================================================== libraries and arrays
_CUlibrary = globals()["CUlibrary"]
_CUarray = globals()["CUarray"]


@_face
def cuLibraryLoadData(code: Any, jitOptions: Any, jitOptionsValues: Any, numJitOptions: Any,
                      libraryOptions: Any, libraryOptionValues: Any, numLibraryOptions: Any) -> _Result:
    """Load a library from PTX/CUDA text, CUBIN or fatbin (as ``cuModuleLoadData``; options ignored).

    Errors: INVALID_CONTEXT; INVALID_IMAGE (200); 900 during a restricting capture (spec 5.2) [I].
    Fidelity: the simulator ties the library to the current context (the real one is context-independent).
    """
    _options(libraryOptions, libraryOptionValues, numLibraryOptions)
    _options(jitOptions, jitOptionsValues, numJitOptions)
    return (_SUCCESS, _CUlibrary._mk(_drv().library_load_data(_image(code))))


@_face
def cuLibraryLoadFromFile(fileName: Any, jitOptions: Any, jitOptionsValues: Any, numJitOptions: Any,
                          libraryOptions: Any, libraryOptionValues: Any, numLibraryOptions: Any) -> _Result:
    """Load a library file (``bytes`` path). Errors: FILE_NOT_FOUND (301); otherwise as ``cuLibraryLoadData``."""
    _options(libraryOptions, libraryOptionValues, numLibraryOptions)
    _options(jitOptions, jitOptionsValues, numJitOptions)
    path = os.fsdecode(_bytes_arg(fileName))
    d = _drv()
    data = d.read_image_file(path, "cuLibraryLoadFromFile")
    return (_SUCCESS, _CUlibrary._mk(d.library_load_data(data, "cuLibraryLoadFromFile")))


@_face
def cuLibraryUnload(library: Any) -> _Result:
    """Unload a library. Errors: INVALID_HANDLE; 900 during a restricting capture (spec 5.2) [I]."""
    _drv().library_unload(_h(library, _CUlibrary))
    return _OK


@_face
def cuLibraryGetKernel(library: Any, name: Any) -> _Result:
    """The kernel ``name`` (``bytes``) of a library. Errors: INVALID_HANDLE; NOT_FOUND (500) unknown name."""
    h = _drv().module_get_function(_h(library, _CUlibrary), os.fsdecode(_bytes_arg(name)))
    return (_SUCCESS, globals()["CUkernel"]._mk(h))


@_face
def cuKernelGetFunction(kernel: Any) -> _Result:
    """The function of a kernel in the current context (simulated: the same handle). Errors: INVALID_HANDLE."""
    h = _h(kernel, _CUkernel)
    _drv().func_get_name(h)
    return (_SUCCESS, _CUfunction._mk(h))


@_face
def cuKernelGetName(hfunc: Any) -> _Result:
    """The kernel's entry name as ``bytes``. Errors: INVALID_HANDLE."""
    return (_SUCCESS, _drv().func_get_name(_h(hfunc, _CUkernel)).encode())


@_face
def cuArrayCreate(pAllocateArray: Any) -> _Result:
    """Create a CUDA array from a ``CUDA_ARRAY_DESCRIPTOR`` (bookkeeping only; contents not simulated).

    Errors: INVALID_VALUE NULL descriptor, zero width, bad channel count; INVALID_CONTEXT; 900 during a
    restricting capture (spec 5.2) [H; I].
    """
    a = _struct_arg(pAllocateArray, "CUDA_ARRAY_DESCRIPTOR", "pAllocateArray")
    if a is None:
        _drv().require_arg(False, "pAllocateArray", "cuArrayCreate")
    g = a._d
    h = _drv().array_create(g["Width"], g["Height"], g["Format"], g["NumChannels"])
    return (_SUCCESS, _CUarray._mk(h))


@_face
def cuArrayDestroy(hArray: Any) -> _Result:
    """Destroy a CUDA array. Errors: INVALID_HANDLE; 900 during a restricting capture (spec 5.2) [H; I]."""
    _drv().array_destroy(_h(hArray, _CUarray))
    return _OK


@_face
def cuDevicePrimaryCtxReset(dev: Any) -> _Result:
    """Reset a device's primary context (its streams are destroyed). Errors: INVALID_DEVICE; 900 during a
    restricting capture (spec 5.2) [I]."""
    _drv().device_primary_ctx_reset(_h(dev, _CUdevice))
    return _OK


def _refuse_not_simulated(name: str, why: str) -> Any:
    return _drv().not_simulated(name, why).code


#: real functions this face does not simulate (each returns CUDA_ERROR_NOT_SUPPORTED)
_NOT_SIMULATED: tuple[str, ...] = tuple(_T.install_stubs(globals(), _OUTPUTS, __name__, "CUDA_ERROR_NOT_SUPPORTED",
                                               _refuse_not_simulated))
