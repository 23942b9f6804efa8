"""The ``_v2`` face's functions of modules and launches (the hand-written ones); users import them from
:mod:`simcuda.faces.bindings._v2.driver`.
"""
from __future__ import annotations

import ctypes as _ct
from typing import Any

from .. import _kernel_params as _KP
from ._v2_contexts import _symbol
from ._v2_face import _buf, _drv, _face, _ip, _ip_arg, _path_buf, _u


# ================================================================================ modules and launches
def _image(image: Any) -> Any:
    x = _buf(image)  # an int address (the core reads the text there, only where readable); a str raises
    return b"" if x is None or x == 0 else x


@_face
def module_load_data(image: Any) -> int:
    """Load a module (bytes, str, a buffer, or the address of NUL-terminated text); returns its handle."""
    return _drv().module_load_data(_image(image))


@_face
def link_create_v2(num_options: Any, options: Any, option_values: Any) -> int:
    """``options``/``option_values``: addresses of the C arrays (``CUjit_option``, ``void*``), 0 for NULL; the
    ``option_values`` array is kept and written back into until ``link_destroy``, as by the driver."""
    return _drv().link_create(num_options, options, option_values)


@_face
def link_add_data_v2(state: Any, type: Any, data: Any, size: Any, name: Any, num_options: Any, options: Any,
                     option_values: Any) -> None:
    """``data``: the address of ``size`` bytes; ``name``: a buffer holding the name, its address, or None."""
    _drv().link_add_data(state, type, data, size, _symbol(name), num_options, options, option_values)


@_face
def link_add_file_v2(state: Any, type: Any, path: Any, num_options: Any, options: Any, option_values: Any) -> None:
    """``path``: a buffer holding the file name (or None: InvalidValueError)."""
    _drv().link_add_file(state, type, _symbol(path), num_options, options, option_values)


@_face
def link_complete(state: Any) -> bytes:
    """The linked image, copied into ``bytes`` as the real wrapper returns it."""
    addr, size = _drv().link_complete(state)
    return _ct.string_at(addr, size)


@_face
def module_get_function(hmod: Any, name: Any) -> int:
    """A kernel handle by entry name: a buffer holding it (``bytes``...), the int address of the C string, or
    ``None`` (NULL: InvalidValueError); a ``str`` raises the real ``ValueError``. Raises NotFoundError for an
    unknown name."""
    n = _path_buf(name)  # None (NULL) and int addresses go to the core as they are
    return _drv().module_get_function(hmod, n if n is None or isinstance(n, int) else n.decode("utf-8", "replace"))


@_face
def func_get_name(hfunc: Any) -> bytes:
    """The kernel's entry name."""
    return _drv().func_get_name(_ip(hfunc)).encode()


@_face
def launch_kernel(f: Any, grid_dim_x: Any, grid_dim_y: Any, grid_dim_z: Any, block_dim_x: Any, block_dim_y: Any,
                  block_dim_z: Any, shared_mem_bytes: Any, h_stream: Any, kernel_params: Any, extra: Any) -> None:
    """Launch a kernel (a KERNEL node during capture). ``kernel_params``: None/0, the address of a ``void**``
    array, a buffer of addresses, or ``(values, types)`` as in the tuple face; ``extra`` must be 0."""
    hf = _ip(f)
    d = _drv()
    kp = kernel_params
    if _ip(extra):  # the rule is the core's: 1 with kernel_params too (cuLaunchKernel documentation), else 801
        _KP.check_form(kp)
        d.check_kernel_extra(_KP.given(kp), _ip(extra), "cuLaunchKernel")
    try:
        if isinstance(kp, int):  # an intptr_t address (a negative one fails as a host address)
            kp = _ip_arg(kp)
            args = d.decode_kernel_args(hf, kp, "cuLaunchKernel") if kp else []
        else:
            args = _KP.kernel_args(d, hf, kp, "cuLaunchKernel")
    except TypeError as e:  # the _v2 helper spells its message correctly
        raise TypeError(str(e).replace("implimenting", "implementing")) from None
    d.launch_kernel(hf, (_u(grid_dim_x), _u(grid_dim_y), _u(grid_dim_z)),
                    (_u(block_dim_x), _u(block_dim_y), _u(block_dim_z)), _u(shared_mem_bytes), _ip(h_stream), args)


@_face
def launch_host_func(h_stream: Any, fn: Any, user_data: Any) -> None:
    """Enqueue a host function by address (a HOST node during capture, spec 3.9)."""
    _drv().launch_host_func(_ip(h_stream), _ip(fn), _ip(user_data))
