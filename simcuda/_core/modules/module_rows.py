"""The entry table's rows of modules, libraries, the linker, functions and kernels, launches, module variables and
parameter info.

Each tuple is one run of :data:`simcuda._core.api.ROWS`, which concatenates the runs of every
``*_rows`` module in the tuple face's order; the forms of a row are described in :mod:`simcuda._core.rows`.
"""
from __future__ import annotations

from ..arguments import ArgumentRules
from ..rows import Api, call, hand, kind, lit, named, result
from ..streams.stream_entries import Streams
from .link_entries import Linking
from .module_entries import Modules
from .symbol_entries import Symbols

#: modules, the linker, functions, launches, host functions
MODULES: tuple[Api, ...] = (
    Api("cuModuleLoadData", hand(call(Modules.module_load_data, "image", lit("cuModuleLoadData"), out="module")),
        """Load a module from PTX/CUDA text, CUBIN or fatbin bytes (a buffer such as ``bytes`` or a numpy char
array, or the int address of NUL-terminated text; ``str`` raises ``TypeError`` as in the real wrapper).

Errors: INVALID_CONTEXT; INVALID_IMAGE (200) nothing recognisable; 900 during a restricting capture
(spec 5.2). Kernel entry names (and parameter types when visible) are read from the image."""),
    Api("cuModuleLoadDataEx", hand(call(Modules.module_load_data, "image", lit("cuModuleLoadDataEx"), out="module")),
        """As ``cuModuleLoadData``; JIT options are checked like the wrapper checks them (``options`` a list of
``CUjit_option``, both lists at least ``numOptions`` long: ``RuntimeError: List is too small``) and
otherwise ignored."""),
    Api("cuModuleLoadFatBinary", hand(call(Modules.module_load_data, "fatCubin", lit("cuModuleLoadFatBinary"),
                                           out="module")),
        """As ``cuModuleLoadData`` for a fatbin image."""),
    Api("cuModuleLoad", hand(call(Modules.module_load_data,
                                  result(ArgumentRules.read_image_file, "fname", lit("cuModuleLoad")),
                                  lit("cuModuleLoad"), out="module")),
        """Load a module file (``fname``: ``bytes`` path). Errors: FILE_NOT_FOUND (301) unreadable file;
otherwise as ``cuModuleLoadData``."""),
    Api("cuLinkCreate", hand(call(Linking.link_create, "numOptions", "options", "optionValues", out="stateOut")),
        """Start a JIT link (``CUlinkState``) in the current context with ``numOptions`` JIT options
(``CUjit_option`` with one value each: log buffers (a writable buffer, or an address) and their sizes, wall time,
compiler options). The logs are filled NUL-terminated and cut to their sizes at ``cuLinkAddData`` and
``cuLinkComplete``; on the native route the sizes filled and the wall time are written back into the
``optionValues`` array, which the caller keeps until ``cuLinkDestroy`` as for the driver (P-72).

Errors: INVALID_CONTEXT no current context [I]; INVALID_VALUE NULL ``options``/``optionValues`` with
``numOptions`` > 0, an unknown option, a value out of its range [I code], a log buffer that is not writable memory.
The Python face also raises the wrapper's ``RuntimeError: List is too small`` (lists shorter than ``numOptions``)."""),
    Api("cuLinkAddData",
        hand(call(Linking.link_add_data, "state", "type", "data", "size", "name", "numOptions", "options",
                  "optionValues")),
        """Add an input (``data``: ``size`` bytes, PTX NUL-terminated; ``type`` a ``CUjitInputType``; ``name`` for
the logs) with its own JIT options. PTX is checked and kept; a CUBIN or fatbin whose PTX is known (simcuda's
images, CUBINs NVRTC compiled in this process) gives its PTX; the rest is refused (docs/kernels.md, "Linking").

Errors (nothing added; the why goes to the error logs): INVALID_HANDLE a bad or destroyed state; INVALID_VALUE
bad options, NULL ``data``, ``size`` 0, an unknown input type; INVALID_PTX (218) PTX with no
``.version``/``.target`` or a syntax error (its line in the why); UNSUPPORTED_PTX_VERSION (222) a newer ISA
[I]; INVALID_IMAGE a CUBIN/fatbin that cannot be read; NOT_SUPPORTED (801) a CUBIN/fatbin with no known PTX,
``CU_JIT_INPUT_OBJECT``, ``CU_JIT_INPUT_LIBRARY`` (libcudadevrt), ``CU_JIT_INPUT_NVVM`` (LTO-IR) [I code]."""),
    Api("cuLinkAddFile", hand(call(Linking.link_add_file, "state", "type", "path", "numOptions", "options",
                                   "optionValues")),
        """Add the input read from file ``path`` (``bytes``), as ``cuLinkAddData``.

Errors: those of ``cuLinkAddData``; FILE_NOT_FOUND (301) a file that cannot be read."""),
    Api("cuLinkComplete", call(Linking.link_complete, "state", out=("cubinOut", "sizeOut")),
        """Link the inputs: ``(cubinOut, sizeOut)``, the address and size of the image, valid until
``cuLinkDestroy``. Several PTX inputs become one module (``.extern`` declarations dropped where another input
defines the symbol); the image is simcuda's form of the linked PTX, which ``cuModuleLoadData(Ex)`` and
``cuLibraryLoadData`` load and whose kernels run on the engine.

Errors: INVALID_HANDLE a bad or destroyed state; INVALID_VALUE no inputs [I code]; INVALID_IMAGE a symbol two
inputs define [I code]."""),
    Api("cuLinkDestroy", call(Linking.link_destroy, "state"),
        """End a link; the images it handed out are freed. Errors: INVALID_HANDLE a bad or destroyed state."""),
    Api("cuModuleUnload", call(Modules.module_unload, "hmod"),
        """Unload a module. Errors: INVALID_HANDLE; 900 during a restricting capture (spec 5.2)."""),
    Api("cuModuleGetFunction", hand(call(Modules.module_get_function, "hmod", "name", out="hfunc")),
        """A kernel of the module (``name``: ``bytes``; ``str`` raises ``TypeError: expected bytes, str found``).

Errors: INVALID_HANDLE bad module; NOT_FOUND (500) no such entry."""),
    Api("cuFuncSetAttribute", call(Modules.func_set_attribute, "hfunc", "attrib", "value"),
        """Set a function attribute: ``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`` (the dynamic shared memory
later launches may ask for: up to the device's ``MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`` minus the kernel's static
shared memory), ``PREFERRED_SHARED_MEMORY_CARVEOUT`` (-1 to 100), the required cluster width/height/depth
(>= 0), ``NON_PORTABLE_CLUSTER_SIZE_ALLOWED`` (0/1), ``CLUSTER_SCHEDULING_POLICY_PREFERENCE`` and
``SHARED_MEMORY_MODE`` (their enums); kept and read back.

Errors: INVALID_HANDLE bad function; INVALID_VALUE a value out of range or a read-only attribute;
NOT_SUPPORTED a cluster attribute on a device without cluster launch [I]."""),
    Api("cuFuncGetAttribute", call(Modules.func_get_attribute, "attrib", "hfunc", out="pi"),
        """A function attribute (``int``), from the kernel's PTX where its module has it (spec 17):
``MAX_THREADS_PER_BLOCK`` (the ``.maxntid``/``.reqntid`` product, else the device's), the static shared,
const and local sizes, ``NUM_REGS`` (the simulator's count [I], docs/kernels.md), ``PTX_VERSION`` (the
``.target`` architecture [I]), ``BINARY_VERSION`` (the device's compute capability),
``MAX_DYNAMIC_SHARED_SIZE_BYTES`` (48 KiB minus the static shared memory until raised), the carveout and the
settable attributes as set. Without PTX the sizes and registers are 0. Errors: INVALID_HANDLE; INVALID_VALUE
not a ``CUfunction_attribute``."""),
    Api("cuFuncSetCacheConfig", call(Modules.func_set_cache_config, "hfunc", "config"),
        """The preferred cache configuration of a function (a ``CUfunc_cache``): kept, no effect (a hint).

Errors: INVALID_HANDLE bad function; INVALID_VALUE not a ``CUfunc_cache``."""),
    Api("cuFuncSetSharedMemConfig", call(Modules.func_set_shared_mem_config, "hfunc", "config"),
        """The shared memory bank size of a function (a ``CUsharedconfig``; deprecated): kept, no effect.

Errors: INVALID_HANDLE bad function; INVALID_VALUE not a ``CUsharedconfig``."""),
    Api("cuFuncGetName", call(Modules.func_get_name, "hfunc", out="name"),
        """The kernel's entry name as ``bytes``. Errors: INVALID_HANDLE."""),
    Api("cuLaunchKernel", hand(ArgumentRules.check_kernel_extra,
                               named(Modules.launch_kernel_fast, "launch_kernel_fast")),
        """Launch a kernel: a KERNEL node during capture (spec 3.8), else it runs now (or when the stream
progresses): a kernel registered with ``simcuda.kernel(name)`` runs against simulated memory.

Args: dimensions and ``sharedMemBytes`` (bytes) as unsigned ints; ``kernelParams`` in any form of
the real binding: ``None``, the ``int`` address of a ``void**`` array (decoded with the parameter
types read from the module), a buffer of such addresses, or ``(values, types)`` (see
:mod:`simcuda.faces.bindings._kernel_params`); ``extra`` must be an ``int`` (0).
Errors: INVALID_HANDLE bad function; INVALID_VALUE zero or oversized dimensions, or ``extra`` set
together with ``kernelParams``; NOT_SUPPORTED ``extra`` alone (not simulated); stream capture rules.""",
        decoder=kind("kernel_launch")),
    Api("cuLaunchCooperativeKernel",
        hand(call(Modules.launch_kernel, "f", ("gridDimX", "gridDimY", "gridDimZ"),
                  ("blockDimX", "blockDimY", "blockDimZ"), "sharedMemBytes", "hStream",
                  result(Modules.packed_kernel_args, "f", "kernelParams"), lit("cuLaunchCooperativeKernel"))),
        """As ``cuLaunchKernel`` without ``extra`` (cooperative launches are simulated as ordinary ones)."""),
    Api("cuLaunchKernelEx", hand(ArgumentRules.check_kernel_extra, ArgumentRules.check_launch_attributes,
                                 Modules.launch_kernel, ArgumentRules.require_arg),
        """Launch from a ``CUlaunchConfig`` (grid, block, shared memory, stream, ``attrs``).

Fidelity: attributes ``IGNORE``, ``COOPERATIVE`` and ``PRIORITY`` are accepted (no effect); any other
attribute is NOT_SUPPORTED (not simulated; spec 13.B). Errors otherwise as ``cuLaunchKernel``;
INVALID_VALUE for a NULL config.""", decoder=kind("kernel_launch_ex")),
    Api("cuLaunchHostFunc", hand(call(Streams.launch_host_func, "hStream", "fn", "userData")),
        """Enqueue a host function: a HOST node during capture, called once per replay (spec 3.9).

Args: ``fn``: ``CUhostFn`` or the ``int`` address of a ``void (*)(void*)`` (for example
``ctypes.cast(CFUNCTYPE(None, c_void_p)(py_fn), c_void_p).value``); a Python callable or the
CFUNCTYPE object raises ``TypeError: an integer is required``. ``userData``: None, int or buffer
(passed as an address). The simulator keeps no reference to the thunk, like the binding: keep it alive.
Errors: INVALID_VALUE NULL function; NOT_SUPPORTED on a CIG stream (spec 8.3); stream capture rules.
CUDA calls made from inside the function return NOT_PERMITTED (800) [I]."""),
    Api("cuLaunchHostFunc_v2", hand(call(Streams.launch_host_func, "hStream", "fn", "userData", "syncMode")),
        """``cuLaunchHostFunc`` with a ``CUhostTaskSyncMode`` (0 BLOCKING, 1 SPINWAIT; another value is
INVALID_VALUE [I]); the mode has no visible effect in the simulator (spec 3.9)."""),
)

#: libraries and their kernels
LIBRARIES: tuple[Api, ...] = (
    Api("cuLibraryLoadData", hand(call(Modules.library_load_data, "code", lit("cuLibraryLoadData"), out="library")),
        """Load a library from PTX/CUDA text, CUBIN or fatbin (as ``cuModuleLoadData``; options ignored).

A library is context-independent: it loads with no current context too, its kernels serve every context, and
its device variables are made per context (``cuLibraryGetGlobal``).
Errors: INVALID_IMAGE (200); 900 during a restricting capture (spec 5.2) [I]."""),
    Api("cuLibraryLoadFromFile",
        hand(call(Modules.library_load_data,
                  result(ArgumentRules.read_image_file, "fileName", lit("cuLibraryLoadFromFile")),
                  lit("cuLibraryLoadFromFile"), out="library")),
        """Load a library file (``bytes`` path). Errors: FILE_NOT_FOUND (301); otherwise as ``cuLibraryLoadData``."""),
    Api("cuLibraryUnload", call(Modules.library_unload, "library"),
        """Unload a library. Errors: INVALID_HANDLE; 900 during a restricting capture (spec 5.2) [I]."""),
    Api("cuLibraryGetKernel", hand(call(Modules.module_get_function, "library", "name", out="pKernel")),
        """The kernel ``name`` (``bytes``) of a library. Errors: INVALID_HANDLE; NOT_FOUND (500) unknown name."""),
    Api("cuKernelGetFunction", call(Symbols.kernel_get_function, "kernel", out="pFunc"),
        """The function of a kernel in the current context (simulated: the same handle). Errors: INVALID_CONTEXT
(201) no current context (709 a destroyed one); INVALID_HANDLE a bad kernel."""),
    Api("cuKernelGetName", call(Modules.func_get_name, "hfunc", out="name"),
        """The kernel's entry name as ``bytes``. Errors: INVALID_HANDLE."""),
)

#: kernel attributes
KERNEL_ATTRIBUTES: tuple[Api, ...] = (
    Api("cuKernelGetAttribute", call(Modules.kernel_get_attribute, "attrib", "kernel", "dev", out="pi"),
        """A kernel attribute on device ``dev``, as ``cuFuncGetAttribute`` (from the kernel's PTX; the device's
limits). Errors: INVALID_HANDLE bad kernel; INVALID_DEVICE; INVALID_VALUE not a ``CUfunction_attribute``."""),
    Api("cuKernelSetAttribute", call(Modules.kernel_set_attribute, "attrib", "val", "kernel", "dev"),
        """Set a kernel attribute with device ``dev``'s limits, as ``cuFuncSetAttribute``; the setting is the
kernel's for every device [I]. Errors: INVALID_HANDLE; INVALID_DEVICE; then as ``cuFuncSetAttribute``."""),
    Api("cuKernelSetCacheConfig", call(Modules.func_set_cache_config, "kernel", "config", "dev",
                                       lit("cuKernelSetCacheConfig")),
        """As ``cuFuncSetCacheConfig`` for a library kernel on device ``dev``. Errors: INVALID_HANDLE;
INVALID_DEVICE; INVALID_VALUE not a ``CUfunc_cache``."""),
)

#: module and library variables, parameter info
SYMBOLS: tuple[Api, ...] = (
    # -- module and library variables, parameter info (issue 10; simcuda/_core/modules/symbol_entries.py) --
    Api("cuModuleGetGlobal", hand(Symbols.module_get_global),
        """``(dptr, bytes)``: the device variable ``name`` (``bytes``) of a module (``__device__``/``__constant__``,
PTX ``.global``/``.const``, a CUBIN's global and constant objects), a device allocation of the module's context
made when it loaded, holding the image's initial value; copies and Python kernels reach it like any allocation.
Errors: INVALID_VALUE a NULL name; INVALID_HANDLE a bad module; NOT_FOUND (500) no such variable.""",
        decoder=kind("module_get_global")),
    Api("cuLibraryGetGlobal", hand(Symbols.library_get_global),
        """``(dptr, bytes)``: the device variable ``name`` of a library in the current context (made there on first
use, with its initial value). Errors: INVALID_VALUE a NULL name; INVALID_HANDLE not a loaded library;
INVALID_CONTEXT (201) no current context; NOT_FOUND (500) no such variable.""",
        decoder=kind("library_get_global")),
    Api("cuFuncGetParamInfo", call(Symbols.func_get_param_info, "func", "paramIndex", out=("paramOffset", "paramSize")),
        """``(paramOffset, paramSize)`` in bytes of parameter ``paramIndex`` in the kernel's device-side parameter
buffer: a CUBIN's own offsets, PTX ``.param`` alignments, else the natural alignment of the parameter types [I].
Errors: INVALID_HANDLE a bad function [I]; INVALID_VALUE ``paramIndex`` past the last parameter (an image
whose parameters cannot be read has none)."""),
    Api("cuKernelGetParamInfo", call(Symbols.func_get_param_info, "kernel", "paramIndex",
                                     call=lit("cuKernelGetParamInfo"), out=("paramOffset", "paramSize")),
        """As ``cuFuncGetParamInfo``, for a library kernel."""),
)
