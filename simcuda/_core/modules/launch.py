"""The one launch path (issue 18 item 3): how a kernel launch is resolved, checked and enqueued.

Every launch entry reaches :func:`launch` (``cuLaunchKernel``, ``cuLaunchKernelEx``, ``cuLaunchCooperativeKernel``
through :meth:`~simcuda._core.modules.module_entries.Modules.launch_kernel`; the faces' hot path and the native route's
launch memo call it directly, as ``Driver.launch_kernel_fast``), and a kernel node's parameters are checked by
:func:`check_shape` (:meth:`~simcuda._core.graphs.graph_entries.Graphs._kernel_spec`). The resolution, in the order the
driver's checks answer (spec 3 preamble, 3.8):

1. the function: a live function of a loaded module (400 INVALID_HANDLE), whose module's context, for a module
   rather than a library, is not destroyed (201 INVALID_CONTEXT [I]);
2. the stream: :meth:`~simcuda._core.state.DriverState._stream` (400, 709, the context's sticky error);
3. the context: a module's function launches only in its own context (400 [I]); a library's in any;
4. the parameters: the launch record (:class:`~simcuda._core.graphs.nodes.KernelParams`) of the function's last launch
   when the values are the same (its checks already passed), else :func:`check_shape` and, for a cooperative
   launch, :func:`check_cooperative`, then a new record;
5. the capture rules and the stream's work (:func:`simcuda._core.capture.capture_enqueue.enqueue_kernel`).

:func:`launch` tests the common case (a live function and a live stream of one context) in one expression and
falls back to the resolvers only when it fails, so the resolvers say what is wrong. Called from outside the
wrapped entry, it also does the entry wrapper's common path (:func:`simcuda._core.state.entry`: the lock, a
thread with its state, not inside a host function, an initialised open driver without hooks) inline; any other
case goes through the wrapped entry itself, so a hook or a refusal sees the call as every entry's.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..capture import capture_enqueue as capq
from ..contexts.device_attrs import attribute_value
from ..errors import CUresult, DriverError
from ..graphs.nodes import KernelParams, same_values
from ..objects import Device, Function, Stream
from .ptxrun import engine_module


def func_device(drv: Any, f: Function) -> Device:
    """The device whose limits apply to ``f``: its module's context's, device 0's for a library loaded with no
    current context [I]."""
    ctx = f.module.ctx
    return ctx.device if ctx is not None else drv.devices[0]


def kernel_info(f: Function) -> Any:
    """What the image says of ``f`` (:class:`simcuda.ptx.KernelInfo`: ``.maxntid``/``.reqntid``, static shared,
    local and const sizes, the register count), from the engine's parse of its module's PTX
    (:func:`simcuda._core.modules.ptxrun.engine_module`, parsed once per module); None when the module has no PTX (CUDA
    C source, a CUBIN compiled elsewhere), when the engine cannot parse or refuses it (the launch that runs it
    says why) or has not got numpy, or when the PTX has no such ``.entry``: then the device's figures apply."""
    m = f.module
    if m.ptx is None:
        return None
    from ... import ptx
    try:
        eng = engine_module(m)
    except (ImportError, ptx.PtxParseError, ptx.Unsupported):
        return None
    return eng.kernels.get(f.name)


def static_shared(f: Function, info: Any = None) -> int:
    """``f``'s static shared memory in bytes (CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES): its and its module's
    ``.shared`` declarations, aligned (the engine's figure); 0 without an image the simulator reads."""
    info = info if info is not None else kernel_info(f)
    return int(info.static_shared) if info is not None else 0


def max_dynamic_shared(drv: Any, f: Function, info: Any = None) -> int:
    """The dynamic shared memory, in bytes, a launch of ``f`` may ask for
    (``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES``): the value set with ``cuFuncSetAttribute``, else the
    device's per-block default (``MAX_SHARED_MEMORY_PER_BLOCK``, 48 KiB) minus the kernel's static shared
    memory [O: a kernel with static shared memory cannot launch with 48 KiB of dynamic shared memory before it
    opts in: NVIDIA/numba-cuda-mlir#143] (docs/spec-proposals.md P-70). ``info``: :func:`kernel_info` when the
    caller has it."""
    if f.max_dynamic_shared is not None:
        return f.max_dynamic_shared
    return max(0, func_device(drv, f).launch_limits()[7] - static_shared(f, info))


def check_shape(drv: Any, f: Function, grid: Sequence[int], block: Sequence[int], shmem: int, what: str,
                cluster: Sequence[int] | None = None) -> None:
    """The launch limits of ``f`` on its device (cuLaunchKernel's INVALID_VALUE cases, also a kernel node's at
    add and parameter update): no zero dimension; block dimensions and thread count within MAX_BLOCK_DIM_X/Y/Z
    and MAX_THREADS_PER_BLOCK; the kernel's own limits from its image (:func:`kernel_info`): its thread count
    within its ``.maxntid`` (the product of the directive's dimensions), its block exactly its ``.reqntid``
    (spec 17; [I] for the exactness, the PTX ISA's "launched with exactly"); grid dimensions within
    MAX_GRID_DIM_X/Y/Z; ``shmem`` (bytes of dynamic shared memory) within :func:`max_dynamic_shared` (by default
    48 KiB minus the kernel's static shared memory; opt in to more with cuFuncSetAttribute, up to the device's
    MAX_SHARED_MEMORY_PER_BLOCK_OPTIN minus the static size) [O] (docs/spec-proposals.md P-70); the cluster
    shape (``cluster``, cuLaunchKernelEx's, or None) against the kernel's cluster directives and the grid
    (:func:`check_cluster`, P-75). ``what`` names the call in the ``why``.

    Errors: 1 INVALID_VALUE, with a ``why`` naming the limit (and the kernel's directive and PTX line); those of
    :func:`check_cluster` (801, 912)."""
    lim = func_device(drv, f).launch_limits()
    info = kernel_info(f)
    most = lim[6] if info is None or info.max_threads is None else min(lim[6], info.max_threads)
    top = max_dynamic_shared(drv, f, info)
    bx, by, bz = block
    gx, gy, gz = grid
    if (0 < bx <= lim[0] and 0 < by <= lim[1] and 0 < bz <= lim[2] and bx * by * bz <= most
            and 0 < gx <= lim[3] and 0 < gy <= lim[4] and 0 < gz <= lim[5] and shmem <= top
            and cluster is None and not (f.settings and set_cluster_shape(f))
            and (info is None or ((info.reqntid is None or tuple(block) == tuple(info.reqntid))
                                  and info.reqnctapercluster is None and not info.explicitcluster))):
        return  # the common case, in one test; the checks below say what is wrong
    if 0 in grid or 0 in block:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{what} dimensions grid={grid} block={block} contain a zero")
    for i, axis in enumerate("xyz"):
        if block[i] > lim[i]:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{what} blockDim.{axis} {block[i]} exceeds the device's "
                              f"MAX_BLOCK_DIM_{axis.upper()} ({lim[i]})")
    if bx * by * bz > lim[6]:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{what} block {block} has {bx * by * bz} threads; the device allows "
                          f"MAX_THREADS_PER_BLOCK ({lim[6]})")
    if info is not None:
        _check_directives(f, info, tuple(block), what)
    for i, axis in enumerate("xyz"):
        if grid[i] > lim[3 + i]:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{what} gridDim.{axis} {grid[i]} exceeds the device's MAX_GRID_DIM_{axis.upper()} "
                              f"({lim[3 + i]})")
    if shmem > top:
        static = static_shared(f, info)
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{what} of {f.name} asks for {shmem} bytes of dynamic shared memory; the limit is "
                          f"{top} (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES"
                          + (f", beside {static} bytes of static shared memory" if static else "")
                          + "; raise it with cuFuncSetAttribute up to the device's MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"
                          + (" minus the static size" if static else "") + ")")
    check_cluster(drv, f, info, grid, cluster, what)


def check_cluster(drv: Any, f: Function, info: Any, grid: Sequence[int], cluster: Sequence[int] | None,
                  what: str) -> None:
    """A launch's thread-block cluster shape against the kernel's cluster directives (``info``: its
    :func:`kernel_info`, None for a kernel without an image the simulator reads: no directives) and its grid
    (docs/spec-proposals.md P-75). ``cluster``: the shape the launch gives
    (cuLaunchKernelEx's CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION), None when it gives none (every other launch, and
    a kernel node); all zeros is none [I]. The shape that applies is the launch's, else the kernel's
    ``.reqnctapercluster`` (a kernel compiled with ``__cluster_dims__`` launches with it through
    ``cuLaunchKernel`` too [D: CUDA Programming Guide, "Thread Block Clusters"]), else the
    REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH set with cuFuncSetAttribute (:func:`set_cluster_shape`), which stand
    for the directive [I].

    Errors: 801 NOT_SUPPORTED a kernel with cluster directives on a device without cluster launch [I]; the
    others all 912 CUDA_ERROR_INVALID_CLUSTER_SIZE ("a kernel launch error due to cluster misconfiguration"
    [D]; which misconfiguration answers it is [I]): a launch shape with a zero and a non-zero dimension [D: the
    values "must either all be 0 or all be positive"]; a launch shape other than the kernel's
    ``.reqnctapercluster`` (or the set shape); set REQUIRED_CLUSTER_* mixing zero and non-zero values; no shape
    at all for a kernel that declares ``.explicitcluster``; a grid that is not
    a whole number of clusters in each dimension; more CTAs per cluster than the kernel's ``.maxclusterrank``."""
    if cluster is not None and not any(cluster):
        cluster = None
    req = info.reqnctapercluster if info is not None else None
    name = f.name
    if req is None:
        req = set_cluster_shape(f)
        if req is not None and not all(req):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_CLUSTER_SIZE,
                              f"{what} of {name}: the REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH set with cuFuncSetAttribute "
                              f"are {tuple(req)}: they must all be 0 or all be positive [D: checked at launch]")
    if info is None and cluster is None and req is None:
        return
    if cluster is not None:
        if not all(cluster):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_CLUSTER_SIZE,
                              f"{what} of {name}: cluster dimensions {tuple(cluster)} mix zero and non-zero values "
                              "(they must all be 0 or all be positive)")
        if req is not None and tuple(cluster) != tuple(req):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_CLUSTER_SIZE,
                              f"{what} of {name} with cluster dimensions {tuple(cluster)}: the kernel "
                              + (f"declares .reqnctapercluster {','.join(map(str, req))} (PTX line {info.line})"
                                 if info is not None and info.reqnctapercluster is not None else
                                 f"requires {tuple(req)} (REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH set with "
                                 "cuFuncSetAttribute)")
                              + ", so it must be launched with exactly that cluster shape [inferred: the code of a "
                              "cluster misconfiguration]")
    shape = cluster if cluster is not None else req
    if (shape is not None or info.explicitcluster) and not _clusters(func_device(drv, f)):
        raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                          f"{what} of {name}: the kernel declares thread-block clusters "
                          f"({f'PTX line {info.line}' if info is not None else 'its launch'}) and "
                          "the device has no cluster launch (CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH is 0) [inferred: "
                          "a real driver would not load its sm_90 code on this device]")
    if shape is None:
        if info is not None and info.explicitcluster:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_CLUSTER_SIZE,
                              f"{what} of {name} gives no cluster shape: the kernel declares .explicitcluster "
                              f"(PTX line {info.line}) and no .reqnctapercluster, so the launch must give one "
                              "(cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) "
                              "[inferred: the code of a cluster misconfiguration]")
        return
    if any(g % c for g, c in zip(grid, shape)):
        raise DriverError(CUresult.CUDA_ERROR_INVALID_CLUSTER_SIZE,
                          f"{what} of {name}: grid {tuple(grid)} is not a whole number of clusters of "
                          f"{tuple(shape)} blocks in each dimension [inferred: the code of a cluster "
                          "misconfiguration]")
    top = info.maxclusterrank if info is not None else None
    if top is not None and shape[0] * shape[1] * shape[2] > top:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_CLUSTER_SIZE,
                          f"{what} of {name}: a cluster of {tuple(shape)} has {shape[0] * shape[1] * shape[2]} "
                          f"blocks; the kernel declares .maxclusterrank {top} (PTX line {info.line}) "
                          "[inferred: the code of a cluster misconfiguration]")


def set_cluster_shape(f: Function) -> tuple[int, int, int] | None:
    """The cluster shape REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH set on ``f`` with cuFuncSetAttribute (a kernel
    without ``.reqnctapercluster``), None while all three are 0. Its validity is checked at launch
    (:func:`check_cluster`) [D: "The validity of the cluster dimensions is otherwise checked at launch time"]."""
    got = f.settings
    shape = (got.get(REQUIRED_CLUSTER_WIDTH, 0), got.get(REQUIRED_CLUSTER_HEIGHT, 0),
             got.get(REQUIRED_CLUSTER_DEPTH, 0))
    return shape if any(shape) else None


def _clusters(dev: Device) -> bool:
    """Whether ``dev`` launches thread-block clusters (CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH)."""
    spec = dev.spec
    return bool(spec.cluster_launch if spec.cluster_launch is not None else spec.compute_capability[0] >= 9)


def _check_directives(f: Function, info: Any, block: tuple[int, ...], what: str) -> None:
    """The kernel's ``.maxntid``/``.reqntid`` against ``block`` (see :func:`check_shape`). Errors: 1."""
    n = block[0] * block[1] * block[2]
    if info.reqntid is not None and block != tuple(info.reqntid):
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{what} of {f.name} with block {block}: the kernel declares .reqntid "
                          f"{','.join(map(str, info.reqntid))} (PTX line {info.line}), so it must be launched with "
                          "exactly that block shape (spec 17) [inferred: the code of a launch above .maxntid]")
    if info.max_threads is not None and n > info.max_threads:
        directive = ".maxntid " + ",".join(map(str, info.maxntid)) if info.maxntid else ".reqntid"
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{what} of {f.name} with block {block} ({n} threads): the kernel declares {directive} "
                          f"(PTX line {info.line}), at most {info.max_threads} threads per block "
                          "(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK; spec 17)")


def check_cooperative(s: Stream, grid: Sequence[int], block: Sequence[int]) -> None:
    """A cooperative launch on ``s``'s device (cuLaunchCooperativeKernel; COOPERATIVE in cuLaunchKernelEx).

    Errors: 801 NOT_SUPPORTED when the device does not support cooperative launches (``DeviceSpec.
    cooperative_launch``, attribute 95 is 0) [I: the code of a feature the device lacks]; 720
    COOPERATIVE_LAUNCH_TOO_LARGE when the grid has more blocks than can be resident at once: the
    multiprocessor count times the blocks one multiprocessor holds (MAX_BLOCKS_PER_MULTIPROCESSOR, at most
    MAX_THREADS_PER_MULTIPROCESSOR / threads per block) [I: registers and shared memory do not limit here,
    nothing runs on a GPU] (docs/spec-proposals.md P-67)."""
    spec = s.ctx.device.spec
    if not spec.cooperative_launch:
        raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                          "cuLaunchCooperativeKernel: the device does not support cooperative launches "
                          "(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0: DeviceSpec(cooperative_launch=False))")
    threads = block[0] * block[1] * block[2]
    sms = attribute_value(spec, 16)  # MULTIPROCESSOR_COUNT
    per_sm = min(attribute_value(spec, 106), attribute_value(spec, 39) // max(threads, 1))
    most = per_sm * sms
    blocks = grid[0] * grid[1] * grid[2]
    if blocks > most:
        raise DriverError(CUresult.CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
                          f"cuLaunchCooperativeKernel: {blocks} blocks of {threads} threads cannot all be "
                          f"resident at once (at most {per_sm} per multiprocessor x {sms} "
                          f"multiprocessors = {most})")


def resolve(drv: Any, hfunc: int, h: int, call: str) -> tuple[Function, Stream]:
    """The function and stream of a launch, through the driver's resolvers, in the order their codes answer
    (steps 1-3 of the module docstring). Errors: those of
    :meth:`~simcuda._core.handles.Handles.function` and ``_stream``; 400 INVALID_HANDLE for a function of a
    module of another context than the stream's [I: the launch's code for a function handle it cannot use]."""
    f: Function = drv.handles.function(hfunc)
    m = f.module
    mctx = None if m.is_library else m.ctx  # the context the function is valid in (None: any)
    s: Stream = drv._stream(h)
    if mctx is not None and mctx is not s.ctx:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_HANDLE,
                          f"{call}: function {f.name} belongs to a module of context 0x{mctx.handle:x} but "
                          f"{s.label()} to context 0x{s.ctx.handle:x}; a module's functions are valid only in "
                          "its own context [inferred: INVALID_HANDLE, the launch's code for a function handle "
                          "it cannot use]")
    return f, s


def launch_record(drv: Any, f: Function, s: Stream, grid: tuple[int, ...], block: tuple[int, ...], shmem: int,
                  args: list[Any], coop: bool, cluster: tuple[int, int, int] | None = None) -> KernelParams:
    """The launch record of ``f`` on ``s`` (step 4): that of its last launch when the values are the same
    (:func:`~simcuda._core.graphs.nodes.same_values`), else checked (:func:`check_shape`, :func:`check_cooperative`)
    and new, kept as the function's last; ``cluster``: the launch's cluster shape (cuLaunchKernelEx), checked
    with the rest (:func:`check_cluster`; never the last launch's record then). Errors: those of the checks."""
    p: KernelParams | None = f.last_params
    if (cluster is None and p is not None and p.shmem == shmem and p.cooperative is coop and p.priority is s.priority
            and same_values(p.args, args) and same_values(p.grid, grid) and same_values(p.block, block)):
        return p
    check_shape(drv, f, grid, block, shmem, "launch", cluster)
    if coop:
        check_cooperative(s, grid, block)
    p = f.last_params = KernelParams(f, grid, block, int(shmem), args, s.priority, coop)
    return p


class LaunchFlags(int):
    """cuLaunchKernelEx's attribute flags (:data:`PROGRAMMATIC`, :data:`COOPERATIVE`, an ``int``) that also carry
    the cluster shape of its CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (``cluster``, three block counts):
    :func:`launch` checks it against the kernel (:func:`check_cluster`) at every such launch."""

    cluster: tuple[int, int, int]

    def __new__(cls, flags: int, cluster: tuple[int, int, int]) -> LaunchFlags:
        """``flags`` with ``cluster``."""
        made = int.__new__(cls, flags)
        made.cluster = cluster
        return made


#: the flags of a cuLaunchKernelEx's attributes (:meth:`~simcuda._core.arguments.ArgumentRules.
#: check_launch_attributes`), :func:`launch`'s ``programmatic``: PROGRAMMATIC_STREAM_SERIALIZATION, COOPERATIVE
PROGRAMMATIC, COOPERATIVE = 1, 2


#: the default ``call`` of :func:`launch` (compared by identity on the hot path)
_LAUNCH = "cuLaunchKernel"


def launch(drv: Any, hfunc: int, grid: tuple[int, ...], block: tuple[int, ...], shmem: int, h: int,
           args: list[Any], call: str = _LAUNCH, programmatic: int = False, t: Any = None,
           inner: bool = False, again: tuple[KernelParams, Stream] | None = None) -> KernelParams | None:
    """Launch ``hfunc`` on stream ``h``: resolve, check, enqueue (the module docstring's steps), and count the
    launch once the stream took it. The one body of every launch entry.

    ``grid``/``block``: three ``int`` each; ``shmem``: bytes of dynamic shared memory; ``args``: the decoded
    argument values; ``call``: the entry (``cuLaunchCooperativeKernel`` makes a cooperative launch; a failure is
    recorded under it); ``programmatic``: the flags of cuLaunchKernelEx's attributes (False or 0: none):
    :data:`PROGRAMMATIC`, the launch carries PROGRAMMATIC_STREAM_SERIALIZATION: in a capture its dependencies on
    kernel nodes are programmatic edges (:func:`simcuda._core.capture.capture_enqueue.programmatic_deps`, P-16),
    restored when the launch is refused; :data:`COOPERATIVE`, the COOPERATIVE attribute: a cooperative launch. The same
    objects as the function's last launch (``args``, ``grid``, ``block``) reuse its record without comparing
    values.

    ``inner``: called by the wrapped entry (:meth:`~simcuda._core.modules.module_entries.Modules.launch_kernel`), which
    did the entry wrapper's work. Otherwise (the faces' hot path, the native launch memo) this does the
    wrapper's common path inline: a thread with its state (``t``: the caller's
    :meth:`~simcuda._core.threads.Threads.current` kept from an earlier call, a thread's state being one
    object for its life; None looks it up), not inside a host function, an initialised open driver without
    hooks (one flag, ``_common``, kept by init, close and add_hook): the lock, and a failure recorded as the
    wrapper records it. Any other case goes through the wrapped entry, so a hook or a refusal sees the call
    as every entry's.

    ``again``: ``(record, stream)`` that an earlier call with the same arguments returned and resolved (the
    native launch memo): the record is reused without looking the handles up while it is still the function's
    last at the stream's priority and the stream, module and context are live (the function's context cannot
    have changed); otherwise the launch is resolved in full, as any.

    Returns the launch record the stream took, None when the wrapped entry took the launch (``inner`` False).
    Errors: those of :func:`resolve`, :func:`launch_record` and the capture rules (spec 3.8)."""
    lock = drv._lock
    lock.acquire()  # re-entrant: held already when ``inner``
    try:
        if not inner:
            if t is None:
                try:
                    t = drv.threads.tls.state  # the wrapper's look-up (see Threads.current)
                except AttributeError:
                    t = None  # not looked up yet on this thread: the wrapper does it
            if t is None or t.in_host_fn or not drv._common:  # _common: initialised, not closed, no hooks
                if call == "cuLaunchKernel" and not programmatic:  # a hook sees the face's arguments
                    drv.launch_kernel(hfunc, grid, block, shmem, h, args)
                else:
                    drv.launch_kernel(hfunc, grid, block, shmem, h, args, call, programmatic)
                return None
        try:
            if again is not None:  # the record and stream an identical earlier call resolved: still current?
                params, s = again
                f = params.func
                ctx = s.ctx
                if (f.last_params is not params or params.priority is not s.priority or s.destroyed
                        or f.module.unloaded or ctx.destroyed or ctx.fault is not None):
                    again = None  # (a function's context and a stream's cannot change)
            if again is None:
                objs = drv.objects
                f = objs.get(hfunc)
                s = objs.get(h)
                if f.__class__ is Function and s.__class__ is Stream and not s.destroyed:
                    m = f.module
                    ctx = s.ctx
                    if (m.unloaded or ctx.destroyed or ctx.fault is not None
                            or not (m.is_library or m.ctx is None or m.ctx is ctx)):
                        f, s = resolve(drv, hfunc, h, call)  # raises: something named is not live or usable
                else:
                    f, s = resolve(drv, hfunc, h, call)  # a default stream's handle, or it raises
                coop = False if call is _LAUNCH else (call == "cuLaunchCooperativeKernel" or (
                    programmatic is not False and programmatic & COOPERATIVE != 0))
                params = f.last_params  # the same objects again: the same (checked, immutable) record
                if programmatic is not False and programmatic.__class__ is LaunchFlags:  # a cluster shape:
                    # checked at every such launch, its record not reused by a launch without one
                    params = launch_record(drv, f, s, grid, block, shmem, args, coop, programmatic.cluster)
                    f.last_params = None
                elif (params is None or params.args is not args or params.grid is not grid
                        or params.block is not block or params.shmem != shmem or params.cooperative is not coop
                        or params.priority is not s.priority):
                    params = launch_record(drv, f, s, grid, block, shmem, args, coop)
            if programmatic and programmatic & PROGRAMMATIC:
                old = capq.programmatic_deps(s)
                try:
                    capq.enqueue_kernel(drv, s, call, params)
                except DriverError:
                    if old is not None:  # a refused launch leaves the stream's dependencies as they were
                        s.deps = old
                    raise
            else:
                capq.enqueue_kernel(drv, s, call, params)
            drv.counters.kernel_launches += 1  # only a launch the stream took (captured, recorded or run)
            return params
        except DriverError as e:
            if not inner:
                drv._record_failure(t, call, e)
            raise
    finally:
        lock.release()


# ------------------------------------------------------------------ kernel attributes (issue 17 item 3)
#: CUfunction_attribute values
MAX_THREADS_PER_BLOCK, SHARED_SIZE_BYTES, CONST_SIZE_BYTES, LOCAL_SIZE_BYTES, NUM_REGS = 0, 1, 2, 3, 4
PTX_VERSION, BINARY_VERSION, CACHE_MODE_CA, MAX_DYNAMIC_SHARED_SIZE_BYTES = 5, 6, 7, 8
PREFERRED_SHARED_MEMORY_CARVEOUT, CLUSTER_SIZE_MUST_BE_SET = 9, 10
REQUIRED_CLUSTER_WIDTH, REQUIRED_CLUSTER_HEIGHT, REQUIRED_CLUSTER_DEPTH = 11, 12, 13
NON_PORTABLE_CLUSTER_SIZE_ALLOWED, CLUSTER_SCHEDULING_POLICY_PREFERENCE = 14, 15
DEVICE_NODE_UPDATE_SUPPORTED, SHARED_MEMORY_MODE = 16, 17

#: the settable attributes kept as set (beside MAX_DYNAMIC_SHARED_SIZE_BYTES and the carveout), with the values
#: each accepts: the cluster dimensions (any value >= 0), the non-portable switch (0/1), a
#: CUclusterSchedulingPolicy (0-3) and a CUsharedMemoryMode (0-4)
_KEPT: dict[int, range] = {REQUIRED_CLUSTER_WIDTH: range(0, 2 ** 31), REQUIRED_CLUSTER_HEIGHT: range(0, 2 ** 31),
                           REQUIRED_CLUSTER_DEPTH: range(0, 2 ** 31), NON_PORTABLE_CLUSTER_SIZE_ALLOWED: range(2),
                           CLUSTER_SCHEDULING_POLICY_PREFERENCE: range(4), SHARED_MEMORY_MODE: range(5)}


def _arch(text: str | None) -> int | None:
    """The ``sm_XY`` of a PTX ``.target`` line as ``XY`` (``sm_90a``: 90), or None."""
    if not text:
        return None
    found = re.search(r"^\s*\.target\s+sm_(\d+)", text, re.M)
    return int(found.group(1)) if found else None


def function_attribute(drv: Any, f: Function, attrib: int, dev: Device, call: str) -> int:
    """``CUfunction_attribute`` ``attrib`` of ``f`` on device ``dev`` (cuFuncGetAttribute, cuKernelGetAttribute),
    from the image where the module has PTX (:func:`kernel_info`; spec 17) [D cuFuncGetAttribute]:

    * MAX_THREADS_PER_BLOCK: the ``.maxntid``/``.reqntid`` product, at most the device's; the device's without;
    * SHARED_SIZE_BYTES, CONST_SIZE_BYTES, LOCAL_SIZE_BYTES: the declared static ``.shared``, the module's
      ``.const`` and the kernel's ``.local`` bytes (0 without PTX);
    * NUM_REGS: the engine's count of the kernel's non-predicate registers, 16 to 255 [I] (docs/kernels.md), at
      most the kernel's ``.maxnreg`` (read by the engine's parser; a link's ``CU_JIT_MAX_REGISTERS``, such as numba's
      ``max_registers``, arrives as one) [I: a real JIT allocates at most that many]; 0 without PTX;
    * PTX_VERSION: the virtual architecture of the PTX's ``.target`` (``sm_80``: 80) [I: the figure real
      drivers report, not the PTX ISA ``.version``]; BINARY_VERSION: the device's compute capability, the
      architecture the driver compiles the PTX for [I];
    * MAX_DYNAMIC_SHARED_SIZE_BYTES (:func:`max_dynamic_shared`), PREFERRED_SHARED_MEMORY_CARVEOUT (-1 until
      set), NON_PORTABLE_CLUSTER_SIZE_ALLOWED, CLUSTER_SCHEDULING_POLICY_PREFERENCE and SHARED_MEMORY_MODE as
      set (0 until set) [I];
    * REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH: the kernel's ``.reqnctapercluster`` (a ``__cluster_dims__``), else
      as set (0 until set); CLUSTER_SIZE_MUST_BE_SET: 1 when the kernel declares ``.explicitcluster`` (NVRTC
      emits it with ``__cluster_dims__``), else 0 (P-75) [I];
    * CACHE_MODE_CA and DEVICE_NODE_UPDATE_SUPPORTED 0 [I].

    Errors: 1 INVALID_VALUE ``attrib`` is not a CUfunction_attribute (``call`` names the entry)."""
    info = kernel_info(f)
    if attrib == MAX_THREADS_PER_BLOCK:
        top = dev.launch_limits()[6]
        return top if info is None or info.max_threads is None else min(top, int(info.max_threads))
    if attrib in (SHARED_SIZE_BYTES, CONST_SIZE_BYTES, LOCAL_SIZE_BYTES, NUM_REGS):
        if info is None:
            return 0
        if attrib == NUM_REGS:
            return int(info.num_regs)
        return int((info.static_shared, info.const, info.local)[attrib - 1])
    if attrib in (PTX_VERSION, BINARY_VERSION):
        major, minor = dev.spec.compute_capability
        arch = _arch(f.module.ptx) if attrib == PTX_VERSION else None
        return arch if arch is not None else major * 10 + minor
    if attrib == MAX_DYNAMIC_SHARED_SIZE_BYTES:
        return max_dynamic_shared(drv, f, info)
    if attrib == PREFERRED_SHARED_MEMORY_CARVEOUT:
        return f.carveout
    if attrib in _KEPT:
        if attrib <= REQUIRED_CLUSTER_DEPTH and info is not None and info.reqnctapercluster is not None:
            return int(info.reqnctapercluster[attrib - REQUIRED_CLUSTER_WIDTH])
        return f.settings.get(attrib, 0)
    if attrib == CLUSTER_SIZE_MUST_BE_SET:
        return int(info is not None and info.explicitcluster)
    if attrib in (CACHE_MODE_CA, DEVICE_NODE_UPDATE_SUPPORTED):
        return 0
    raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: {attrib} is not a CUfunction_attribute")


def set_function_attribute(drv: Any, f: Function, attrib: int, value: int, dev: Device, call: str) -> None:
    """Set ``CUfunction_attribute`` ``attrib`` of ``f`` to ``value`` (cuFuncSetAttribute, cuKernelSetAttribute;
    ``dev`` the device whose limits apply). Settable: MAX_DYNAMIC_SHARED_SIZE_BYTES (0 to the device's
    MAX_SHARED_MEMORY_PER_BLOCK_OPTIN minus the kernel's static shared memory [D: "the sum of this value and
    the function attribute SHARED_SIZE_BYTES cannot exceed" the opt-in limit]), PREFERRED_SHARED_MEMORY_CARVEOUT
    (-1 to 100), REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH (>= 0), NON_PORTABLE_CLUSTER_SIZE_ALLOWED (0/1),
    CLUSTER_SCHEDULING_POLICY_PREFERENCE (a CUclusterSchedulingPolicy) and SHARED_MEMORY_MODE (a
    CUsharedMemoryMode); a kernel's setting is one per function, not per device [I]. The function's launch
    record is dropped (its launch limits may change).

    Errors: 1 INVALID_VALUE a value out of range, or an attribute that is read-only (0-7, 10, 16) or not a
    CUfunction_attribute [D: "Attempting to set a value on a read-only attribute will result in an error
    (CUDA_ERROR_INVALID_VALUE)"]; 801 NOT_SUPPORTED a cluster attribute (11-15) on a device without cluster
    launch (CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH 0) [I]; 800 NOT_PERMITTED REQUIRED_CLUSTER_WIDTH/HEIGHT/DEPTH of
    a kernel whose image sets its cluster shape (``.reqnctapercluster``) [D: "If the value is set during
    compile time, it cannot be set at runtime. Setting it at runtime will return CUDA_ERROR_NOT_PERMITTED"]."""
    f.last_params = None  # its launch limits may change
    if attrib == MAX_DYNAMIC_SHARED_SIZE_BYTES:
        static = static_shared(f)
        top = dev.launch_limits()[8] - static  # MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        if not 0 <= value <= top:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: MAX_DYNAMIC_SHARED_SIZE_BYTES {value} is outside 0..{top} (the device's "
                              f"MAX_SHARED_MEMORY_PER_BLOCK_OPTIN {top + static}"
                              + (f" minus the kernel's {static} bytes of static shared memory)" if static else ")"))
        f.max_dynamic_shared = value
    elif attrib == PREFERRED_SHARED_MEMORY_CARVEOUT:
        if not -1 <= value <= 100:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: PREFERRED_SHARED_MEMORY_CARVEOUT {value} is outside -1..100")
        f.carveout = value
    elif attrib in _KEPT:
        if attrib <= CLUSTER_SCHEDULING_POLICY_PREFERENCE and not _clusters(dev):
            raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                              f"{call}: cluster attribute {attrib} on a device without cluster launch "
                              "(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH is 0)")
        info = kernel_info(f) if attrib <= REQUIRED_CLUSTER_DEPTH else None
        if info is not None and info.reqnctapercluster is not None:
            raise DriverError(CUresult.CUDA_ERROR_NOT_PERMITTED,
                              f"{call}: the cluster shape of {f.name} is set at compile time (.reqnctapercluster "
                              f"{','.join(map(str, info.reqnctapercluster))}, PTX line {info.line}); "
                              f"attribute {attrib} cannot be set at runtime")
        allowed = _KEPT[attrib]
        if value not in allowed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: value {value} of attribute {attrib} is outside {allowed.start}.."
                              f"{allowed.stop - 1}")
        f.settings[attrib] = value
    else:
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                          f"{call}: attribute {attrib} cannot be set (read-only or not a CUfunction_attribute)")
