"""Simulated ``cuda.bindings._v2.driver`` (cuda-bindings 13.5.0): snake_case functions that raise.

Mirrors: ``cuda.bindings._v2.driver`` of cuda-bindings 13.5.0 (spec section 11.2).

* Handles and addresses are plain ``int`` (``intptr_t``); a wrapper object such as
  ``driver.CUstream(...)`` raises ``TypeError: an integer is required``, as the real module does.
* Success returns the single output, a tuple when there are several, or ``None``. Enum outputs are
  plain ``int``.
* Any other code raises: the ``DriverError`` subclass for that code (``NotReadyError`` for 600
  included), ``args[0] == 'ERROR_STREAM_CAPTURE_UNMATCHED (903)'``, ``.status`` the ``int`` code, and
  pickling through ``__reduce__``. An unknown code gives a plain ``DriverError('Unknown error (N)')``.
  The simulator adds ``.why`` (the core's explanation); the real classes have no such attribute.
* Struct helpers (``StreamCigCaptureParams``, ``StreamCigParam``, ``CtxCigParam``,
  ``CtxCreateParams``, ``GraphEdgeData``) hold real memory and expose ``.ptr`` for the ``intptr_t``
  parameters, so addresses made by other code work the same way.
* Every function of the real module exists; the ones not simulated raise ``NotSupportedError``.

This module only translates arguments and errors; every rule lives in the core
(:class:`simcuda.Driver`), as for the tuple-returning face.
"""
from __future__ import annotations

import types as _types
import typing as _typing
from collections.abc import Callable as _Callable
from typing import Any

from ...._core.rows import Api as _Api
from ...._generated import v2_enums as _E2
from ...._generated.driver_outputs import OUTPUTS as _OUTPUTS
from ...._generated.driver_outputs import V2_FUNCTIONS as _V2_FUNCTIONS
from .. import _driver_types as _T
from .._executor import signature_params as _signature_params
from ._v2_contexts import ctx_create_v4 as ctx_create_v4
from ._v2_contexts import device_get_by_pci_bus_id as device_get_by_pci_bus_id
from ._v2_contexts import device_get_name as device_get_name
from ._v2_contexts import device_get_pci_bus_id as device_get_pci_bus_id
from ._v2_contexts import event_record as event_record
from ._v2_contexts import get_error_name as get_error_name
from ._v2_contexts import get_error_string as get_error_string
from ._v2_contexts import kernel_get_function as kernel_get_function
from ._v2_contexts import library_get_global as library_get_global
from ._v2_contexts import module_get_global_v2 as module_get_global_v2
from ._v2_contexts import stream_begin_capture_to_cig as stream_begin_capture_to_cig
from ._v2_contexts import stream_begin_capture_to_graph as stream_begin_capture_to_graph
from ._v2_contexts import stream_get_capture_info_v2 as stream_get_capture_info_v2
from ._v2_contexts import stream_get_capture_info_v3 as stream_get_capture_info_v3
from ._v2_contexts import stream_update_capture_dependencies_v2 as stream_update_capture_dependencies_v2
from ._v2_contexts import stream_wait_event as stream_wait_event
from ._v2_contexts import thread_exchange_stream_capture_mode as thread_exchange_stream_capture_mode
from ._v2_face import (
    EXCEPTIONS,
    _converters,
    _drv,
    _face,
    _raise,
    _row,
    _snake,
)
from ._v2_face import CtxCigParam as CtxCigParam
from ._v2_face import CtxCreateParams as CtxCreateParams
from ._v2_face import DriverError as DriverError
from ._v2_face import GraphEdgeData as GraphEdgeData
from ._v2_face import GraphExecUpdateResultInfo_v1 as GraphExecUpdateResultInfo_v1
from ._v2_face import GraphInstantiateParams as GraphInstantiateParams
from ._v2_face import HostNodeParams_v1 as HostNodeParams_v1
from ._v2_face import StreamCigCaptureParams as StreamCigCaptureParams
from ._v2_face import StreamCigParam as StreamCigParam
from ._v2_graphs import graph_add_child_graph_node as graph_add_child_graph_node
from ._v2_graphs import graph_add_dependencies_v2 as graph_add_dependencies_v2
from ._v2_graphs import graph_add_empty_node as graph_add_empty_node
from ._v2_graphs import graph_add_event_record_node as graph_add_event_record_node
from ._v2_graphs import graph_add_event_wait_node as graph_add_event_wait_node
from ._v2_graphs import graph_add_host_node as graph_add_host_node
from ._v2_graphs import graph_add_mem_free_node as graph_add_mem_free_node
from ._v2_graphs import graph_debug_dot_print as graph_debug_dot_print
from ._v2_graphs import graph_event_record_node_get_event as graph_event_record_node_get_event
from ._v2_graphs import graph_event_wait_node_get_event as graph_event_wait_node_get_event
from ._v2_graphs import graph_exec_host_node_set_params as graph_exec_host_node_set_params
from ._v2_graphs import graph_exec_update_v2 as graph_exec_update_v2
from ._v2_graphs import graph_get_edges_v2 as graph_get_edges_v2
from ._v2_graphs import graph_get_nodes as graph_get_nodes
from ._v2_graphs import graph_get_root_nodes as graph_get_root_nodes
from ._v2_graphs import graph_host_node_get_params as graph_host_node_get_params
from ._v2_graphs import graph_host_node_set_params as graph_host_node_set_params
from ._v2_graphs import graph_instantiate_with_flags as graph_instantiate_with_flags
from ._v2_graphs import graph_instantiate_with_params as graph_instantiate_with_params
from ._v2_graphs import graph_mem_free_node_get_params as graph_mem_free_node_get_params
from ._v2_graphs import graph_node_get_dependencies_v2 as graph_node_get_dependencies_v2
from ._v2_graphs import graph_node_get_dependent_nodes_v2 as graph_node_get_dependent_nodes_v2
from ._v2_graphs import graph_remove_dependencies_v2 as graph_remove_dependencies_v2
from ._v2_memory import device_get_graph_mem_attribute as device_get_graph_mem_attribute
from ._v2_memory import device_set_graph_mem_attribute as device_set_graph_mem_attribute
from ._v2_memory import mem_free_host as mem_free_host
from ._v2_memory import mem_pool_get_attribute as mem_pool_get_attribute
from ._v2_memory import mem_pool_set_attribute as mem_pool_set_attribute
from ._v2_memory import memcpy_dtod_v2 as memcpy_dtod_v2
from ._v2_memory import memcpy_dtoh_async_v2 as memcpy_dtoh_async_v2
from ._v2_memory import memcpy_dtoh_v2 as memcpy_dtoh_v2
from ._v2_memory import memcpy_htod_async_v2 as memcpy_htod_async_v2
from ._v2_memory import memcpy_htod_v2 as memcpy_htod_v2
from ._v2_memory import memset_d8_async as memset_d8_async
from ._v2_memory import memset_d8_v2 as memset_d8_v2
from ._v2_memory import memset_d32_async as memset_d32_async
from ._v2_memory import memset_d32_v2 as memset_d32_v2
from ._v2_memory import user_object_create as user_object_create
from ._v2_modules import func_get_name as func_get_name
from ._v2_modules import launch_host_func as launch_host_func
from ._v2_modules import launch_kernel as launch_kernel
from ._v2_modules import link_add_data_v2 as link_add_data_v2
from ._v2_modules import link_add_file_v2 as link_add_file_v2
from ._v2_modules import link_complete as link_complete
from ._v2_modules import link_create_v2 as link_create_v2
from ._v2_modules import module_get_function as module_get_function
from ._v2_modules import module_load_data as module_load_data

globals().update(_E2.__all_enums__)
globals().update(_E2.__int_constants__)
globals().update(EXCEPTIONS)  # one class per code (simcuda.faces.bindings._v2._v2_face), by name

# the hand-written functions are written in the _v2_* modules, by concept; they are this module's functions
for _fn in list(globals().values()):
    if isinstance(_fn, _types.FunctionType) and _fn.__module__.startswith(__name__.rpartition(".")[0] + "._v2_"):
        _fn.__module__ = __name__
del _fn

if _typing.TYPE_CHECKING:

    # The enums, constants, exception classes and not-simulated stubs of the real module are put into this
    # namespace at import time (globals().update and the loops below), which the checker cannot follow: to
    # it, a name it does not find here is Any.
    def __getattr__(name: str) -> Any: ...



# ================================================================================ built from the table
def _build(name: str, row: _Api) -> _Callable[..., Any]:
    """The ``_v2`` function of a complete table row: the typed parameters converted as the real wrapper does
    (:func:`_face`), passed to the row's core operation; the single output returned as it is (a tuple when
    there are several), ``None`` when there is none."""
    import inspect

    call = row.call
    names = [n for n, _ in _converters(name)]
    spec = tuple((kw, names.index(_snake(p)) if p is not None else -1, lit) for kw, p, lit in call.args)
    has_out = bool(call.outs)
    op = call.op
    signature = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])

    def fn(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            args = signature.bind(*args, **kwargs).args
        pos: list[Any] = []
        kws: dict[str, Any] = {}
        for kw, i, lit in spec:
            v = lit if i < 0 else args[i]
            if kw is None:
                pos.append(v)
            else:
                kws[kw] = v
        r = getattr(_drv(), op)(*pos, **kws)
        return r if has_out else None
    fn.__name__ = fn.__qualname__ = name
    fn.__signature__ = signature  # type: ignore[attr-defined]
    return _face(fn)


#: the functions built from the table: every real ``_v2`` name whose row (:func:`_row`) is complete and that
#: this module does not write by hand above or below (derived, never a hand-kept list)
_HAND = frozenset(("module_get_global_v2", "library_get_global", "kernel_get_function", "device_get_pci_bus_id",
                   "device_get_by_pci_bus_id"))


def _plain(row: _Api) -> bool:
    """True when this face's builder (:func:`_build`, plain values in and out) serves the row: its call passes
    parameters and literals only (no array, in/out pointer, nested form or struct field), no parameter or
    output is a struct in the tuple face's declaration (a ``_v2`` struct is an address, which only a hand-written
    function reads), and no output is ``bytes`` (the core's text, which this builder would return as ``str``)."""
    call = row.call
    if not call.simple or call.counts or call.reads or call.fields:
        return False
    sig, outs = _OUTPUTS[row.name]
    classes = _T.build_classes()
    structs = [c for _p, c, _a in _signature_params(sig)] + [t for _o, t in outs]
    return not any(hasattr(classes.get(t), "_fields") for t in structs) and all(t != "bytes" for _o, t in outs)


#: (a real name whose signature is another function's, ``graph_instantiate`` for ``graph_instantiate_with_flags``,
#: is an alias the real module keeps as a stub, not built)
_BUILT = tuple(n for n in _V2_FUNCTIONS if n not in globals() and n not in _HAND and (_r := _row(n)) is not None
               and not _r.particular and _plain(_r) and _V2_FUNCTIONS[n].startswith(n + "("))
for _n in _BUILT:
    _r = _row(_n)
    assert _r is not None
    globals()[_n] = _build(_n, _r)
del _n, _r


# ================================================================================ the rest: not simulated
def _stub(name: str) -> Any:
    def stub(*args: Any, **kwargs: Any) -> Any:
        _raise(_drv().not_simulated(name, f"{name} is not simulated by simcuda (cuda.bindings._v2.driver); it "
                                          "always raises NotSupportedError"))
    stub.__name__ = stub.__qualname__ = name
    stub.__doc__ = (f"Not simulated: mirrors ``{_V2_FUNCTIONS[name]}`` by name only; always raises "
                    "``NotSupportedError`` (801) with a ``why``.")
    stub.__simcuda_stub__ = True  # type: ignore[attr-defined]  # a marker attribute on the function object
    return stub


_NOT_SIMULATED = tuple(n for n in _V2_FUNCTIONS if n not in globals())
for _n in _NOT_SIMULATED:
    globals()[_n] = _stub(_n)
del _n
