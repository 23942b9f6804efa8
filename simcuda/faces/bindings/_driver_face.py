"""The tuple face's plumbing (simcuda.faces.bindings.driver): the classes and enums of the real module, the argument
conversions in the real wrapper's order (:func:`_face`), the generated headers and the table's descriptions, and the
helpers the face's functions share. The functions themselves are in the ``_driver_*`` modules by concept, and
:mod:`simcuda.faces.bindings.driver` is where users import every one of them from.
"""
from __future__ import annotations

import functools
import typing as _typing
from collections.abc import Callable as _Callable
from typing import Any, Optional  # noqa: F401  (the real module exports both names)
from typing import ParamSpec as _ParamSpec
from typing import TypeVar as _TypeVar

from ..._core.api import API as _API
from ..._core.errors import DriverError as _DriverError
from ..._core.objects import EdgeDataArg as _EdgeDataArg
from ..._generated import driver_enums as _E
from ..._generated.driver_outputs import OUTPUTS as _OUTPUTS
from ..._generated.driver_outputs import PARAMS as _PARAMS
from . import _args as _A
from . import _driver_types as _T
from . import _executor as _B

# -- enums and integer constants (generated from the real module) -------------------------------
globals().update(_E.__all_enums__)
globals().update(_E.__int_constants__)

# -- every class of the real module (wrappers, structs, placeholders) ---------------------------
globals().update(_T.build_classes())

if _typing.TYPE_CHECKING:

    # The enums, constants and classes of the real module are put into this namespace at import time
    # (globals().update), which the checker cannot follow: to it, a name it does not find here is Any.
    def __getattr__(name: str) -> Any: ...

#: the face's namespace: the classes and enums of the real module, which the ``_driver_*`` modules look up by
#: name (``_NS["CUmodule"]``); :mod:`simcuda.faces.bindings.driver` holds the same objects
_NS: dict[str, Any] = globals()



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

# the argument conversions shared with the runtime face (simcuda/faces/bindings/_args.py)
_drv, _tp_name, _h, _u, _size, _i, _bytes_arg = (_A.current_driver, _A.type_name, _A.handle, _A.uint, _A.size_t,
                                                 _A.int32, _A.bytes_arg)


def _header(name: str) -> str:
    sig, outs = _OUTPUTS[name]
    shape = ", ".join(["CUresult"] + [f"{n}: {t}" for n, t in outs])
    nones = ", ".join(["CUresult"] + ["None"] * len(outs))
    return (f"Mirrors ``{sig}`` of cuda.bindings.driver 13.5.\n\n"
            f"Returns ``({shape}{',' if not outs else ''})``; on any error ``({nones}{',' if not outs else ''})``.\n\n")


_split_params = _B.signature_params
_C_INT = _B.C_INT
_convert_args = _B.convert_args
_eds_for, _capture_deps, _pad_edges = _B.eds_for, _B.capture_deps, _B.pad_edges
memcpy_batch_args, memcpy3d_batch_ops = _B.memcpy_batch_args, _B.memcpy3d_batch_ops


def _conversion_plan(name: str) -> _Plan:
    """The tuple face's :func:`simcuda.faces.bindings._executor.conversion_plan` of ``name`` (its tables, its
    classes)."""
    return _B.conversion_plan(name, _OUTPUTS, _PARAMS, globals(), _struct_arg)


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
    face.__doc__ = _header(fn.__name__) + _description(fn)
    return face


def _doc(fn: _F) -> _F:
    """Give a hand-inlined (hot path) function its generated header and the table's description."""
    fn.__doc__ = _header(fn.__name__) + _description(fn)
    return fn


def _description(fn: _Callable[..., Any]) -> str:
    """The entry's description from the table (:mod:`simcuda._core.api`), the one copy of that prose."""
    row = _API.get(fn.__name__)
    return row.doc if row is not None else (fn.__doc__ or "")


_U64 = 1 << 64


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


def _null(d: Any, x: Any, call: str, arg: str) -> None:
    if x is None:
        d.require_arg(False, arg, call)
