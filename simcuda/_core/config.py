"""Configuration records of a simulated driver: the devices it has and the open choices of the spec."""
from __future__ import annotations

import os
from typing import Any

import attrs

#: the choices of ``Options.kernel_bounds`` (and of ``SIMCUDA_KERNEL_BOUNDS``, ``--kernel-bounds``,
#: ``--simcuda-kernel-bounds``)
KERNEL_BOUNDS = ("strict", "gpu-like")
#: the environment variable that gives ``Options.kernel_bounds`` its default
KERNEL_BOUNDS_ENV = "SIMCUDA_KERNEL_BOUNDS"


def _kernel_bounds_default() -> str:
    """``Options.kernel_bounds``'s default: ``$SIMCUDA_KERNEL_BOUNDS`` when set (not empty), else ``"strict"``."""
    return os.environ.get(KERNEL_BOUNDS_ENV, "").strip().lower() or "strict"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_spec(inst: Any) -> None:
    """Validate a :class:`DeviceSpec` when it is made: ``TypeError`` for a value of the wrong type, ``ValueError``
    for one out of range (so a bad configuration fails here, not later inside a driver call)."""
    if not isinstance(inst.name, str) or not inst.name or "\0" in inst.name:
        raise TypeError(f"DeviceSpec.name must be a non-empty str without NUL, got {inst.name!r}")
    cc = inst.compute_capability
    if not (isinstance(cc, tuple) and len(cc) == 2 and all(_is_int(v) for v in cc)):
        raise TypeError(f"DeviceSpec.compute_capability must be a (major, minor) tuple of ints, got {cc!r}")
    if cc[0] < 1 or cc[1] < 0:
        raise ValueError(f"DeviceSpec.compute_capability must be (major >= 1, minor >= 0), got {cc!r}")
    for field in ("total_mem", "multiprocessors"):
        v = getattr(inst, field)
        if not _is_int(v):
            raise TypeError(f"DeviceSpec.{field} must be an int, got {v!r}")
        if v <= 0:
            raise ValueError(f"DeviceSpec.{field} must be positive, got {v}")
    for field in ("cig_d3d12", "cig_vulkan", "cig_d3d12_streams", "cig_vulkan_streams", "memory_pools",
                  "managed_memory", "host_mapped_memory", "virtual_memory", "cooperative_launch",
                  "stream_priorities"):
        if not isinstance(getattr(inst, field), bool):
            raise TypeError(f"DeviceSpec.{field} must be True or False, got {getattr(inst, field)!r}")
    if inst.cluster_launch is not None and not isinstance(inst.cluster_launch, bool):
        raise TypeError(f"DeviceSpec.cluster_launch must be None, True or False, got {inst.cluster_launch!r}")
    pr = inst.stream_priority_range
    if not (isinstance(pr, tuple) and len(pr) == 2 and all(_is_int(v) for v in pr)):
        raise TypeError(f"DeviceSpec.stream_priority_range must be a (least, greatest) tuple of ints, got {pr!r}")
    if pr[1] > pr[0]:
        raise ValueError(f"DeviceSpec.stream_priority_range: greatest ({pr[1]}) must be <= least ({pr[0]}); "
                         "a lower number is a higher priority")
    if not isinstance(inst.attributes, dict) or not all(_is_int(k) and _is_int(v) for k, v in inst.attributes.items()):
        raise TypeError(f"DeviceSpec.attributes must be a dict of int -> int, got {inst.attributes!r}")


@attrs.frozen
class DeviceSpec:
    """Configuration of one simulated device; the default is an A100-like compute capability 8.0 device.

    Why 8.0 (issue 17, ``shared/design/KERNELS.md``): kernels run (spec 17), and NVRTC compiles for the
    device's compute capability. At 9.0 it lowers ``memcpy_async`` to TMA bulk copies (and may use
    clusters and wgmma), which the kernel engine does not run; at 7.5 cp.async and mbarrier disappear.
    8.0 keeps the PTX within cp.async/mbarrier. The default values follow NVIDIA's published A100-SXM4-80GB
    figures (``deviceQuery`` on that board; the A100 datasheet and the Ampere tuning guide): 108 SMs, 1410 MHz
    clock, 1593 MHz memory clock, 5120-bit bus, 40 MiB L2, 48 KiB shared memory per block by default,
    163 KiB opt-in per block, 164 KiB per SM, 2048 threads and 32 blocks per SM, 65536 registers per SM and
    per block, no thread-block clusters (attribute ``CLUSTER_LAUNCH`` 0, so a cluster launch attribute is
    ``CUDA_ERROR_NOT_SUPPORTED``, 801). The architecture-dependent attribute values come from
    :mod:`~simcuda._core.contexts.device_attrs` by compute capability major. The former default, an H100 (9.0, 132
    SMs), stays available by name: ``DeviceSpec.preset("H100")`` (:data:`PRESETS`).

    Attributes:
        name: the marketing name ``cuDeviceGetName`` returns.
        compute_capability: ``(major, minor)``.
        total_mem: bytes of device memory (allocations beyond it fail with OUT_OF_MEMORY).
        multiprocessors: SM count.
        cig_d3d12, cig_vulkan: CIG context support (attributes 135 and 138).
        cig_d3d12_streams, cig_vulkan_streams: CIG stream support (attributes 151 and 159).
        stream_priority_range: ``(least, greatest)`` stream priorities (``cuCtxGetStreamPriorityRange``; a
            lower number is a higher priority, H100: 0 and -5); ``cuStreamCreateWithPriority`` clamps into it.
        memory_pools: stream-ordered memory pools (attribute 115, ``MEMORY_POOLS_SUPPORTED``); off: every pool
            call and ``cuMemAllocAsync``/``cuMemFreeAsync`` fail with ``CUDA_ERROR_NOT_SUPPORTED``.
        managed_memory: managed (unified) memory (attributes 83 ``MANAGED_MEMORY`` and 89
            ``CONCURRENT_MANAGED_ACCESS``); off: ``cuMemAllocManaged`` fails with NOT_SUPPORTED.
        host_mapped_memory: host memory mapped into the device's address space (attribute 19,
            ``CAN_MAP_HOST_MEMORY``); off: ``DEVICEMAP`` allocations and registrations and
            ``cuMemHostGetDevicePointer`` fail with NOT_SUPPORTED.
        virtual_memory: virtual memory management (attribute 102, ``VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED``);
            off: the ``cuMemCreate``/``cuMemMap`` family fails with NOT_SUPPORTED.
        cooperative_launch: ``cuLaunchCooperativeKernel`` (attribute 95, ``COOPERATIVE_LAUNCH``).
        cluster_launch: thread-block clusters in ``cuLaunchKernelEx`` (attribute 120, ``CLUSTER_LAUNCH``;
            ``None``: compute capability 9.0 or newer).
        stream_priorities: stream priorities (attribute 78, ``STREAM_PRIORITIES_SUPPORTED``); off: the range
            is ``(0, 0)`` and every priority is clamped to 0, as on such hardware.
        attributes: overrides for any ``CUdevice_attribute`` value (int -> int); an override does not switch
            a feature on or off, the flags above do.

    Errors (at construction): ``TypeError`` for a value of the wrong type (a ``bool`` is not an int here),
    ``ValueError`` for one out of range (non-positive memory or SM count, ``greatest > least`` priorities).
    """

    name: str = "NVIDIA A100-SXM4-80GB"
    compute_capability: tuple[int, int] = (8, 0)
    total_mem: int = 80 * 1024 ** 3
    multiprocessors: int = 108
    cig_d3d12: bool = True
    cig_vulkan: bool = True
    cig_d3d12_streams: bool = True
    cig_vulkan_streams: bool = True
    stream_priority_range: tuple[int, int] = (0, -5)
    memory_pools: bool = True
    managed_memory: bool = True
    host_mapped_memory: bool = True
    virtual_memory: bool = True
    cooperative_launch: bool = True
    cluster_launch: bool | None = None
    stream_priorities: bool = True
    attributes: dict[int, int] = attrs.field(factory=dict)

    def priority_range(self) -> tuple[int, int]:
        """``(least, greatest)`` stream priority in effect: ``stream_priority_range``, or ``(0, 0)`` on a device
        without stream priorities (``stream_priorities=False``)."""
        return self.stream_priority_range if self.stream_priorities else (0, 0)

    def __attrs_post_init__(self) -> None:
        _check_spec(self)

    @staticmethod
    def preset(name: str, **changes: Any) -> DeviceSpec:
        """The :data:`PRESETS` device called ``name`` (``"A100"``, the default; ``"H100"``), with ``changes``
        applied (any field). Errors: ``ValueError`` for an unknown name."""
        try:
            base = PRESETS[name]
        except KeyError:
            raise ValueError(f"no DeviceSpec preset {name!r}; known: {sorted(PRESETS)}") from None
        return attrs.evolve(base, **changes)


#: named device presets: "A100" (compute capability 8.0, the default) and "H100" (9.0, 132 SMs)
PRESETS: dict[str, DeviceSpec] = {
    "A100": DeviceSpec(),
    "H100": DeviceSpec(name="NVIDIA H100 80GB HBM3 (simulated)", compute_capability=(9, 0), multiprocessors=132),
}


def _check_launch_log_limit(_inst: Any, _attr: Any, value: Any) -> None:
    """attrs validator of ``Options.launch_log_limit``: ``None`` or an ``int`` >= 0 (not a ``bool``)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"launch_log_limit must be an int >= 0 or None, got {type(value).__name__} {value!r}")
    if value < 0:
        raise ValueError(f"launch_log_limit must be >= 0 (0 turns the launch log off) or None, got {value}")


#: the default bound of ``driver.launch_log`` (records); about 25 MB of compact records at most (logs.LaunchLog)
DEFAULT_LAUNCH_LOG_LIMIT = 1_000_000


@attrs.frozen
class Options:
    """Simulator choices that the spec leaves open (each is a documented fidelity choice).

    Attributes:
        graph_launch_in_capture: ``"reject"`` (default: 900 and invalidation, spec 3.8) or
            ``"child-node"`` (the opt-in: the launch adds a GRAPH node holding a copy of the exec as
            instantiated, or as updated since) [inferred].
        cig_end_any_thread: allow ``cuStreamEndCaptureToCig`` from another thread (spec 8.4, off).
        per_thread_default_stream: ``None`` reads ``CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM``
            when the face first needs the driver (spec 6.1); ``True``/``False`` force the mode.
        host_memory_budget: bytes that the device, managed and mapped graph allocations of all the
            process's drivers may hold together before an allocation of this driver fails with
            ``CUDA_ERROR_OUT_OF_MEMORY`` (2), so that touching simulated memory cannot exhaust the host.
            ``None``: three quarters of the memory available when the driver is made. Counted on
            allocated bytes, touched or not (an untouched allocation costs no memory, but could).
        kernel_faults: what a Python kernel that fails does. ``"sticky"`` (the default) behaves as a kernel that
            faults on a GPU: the launch (or graph launch) returns success, the context takes a sticky error and
            every later call that uses it answers it: ``CUDA_ERROR_ILLEGAL_ADDRESS`` (700) for a memory access
            outside simulated allocations, ``CUDA_ERROR_ASSERT`` (710) for an ``AssertionError`` (a device-side
            ``assert``), ``CUDA_ERROR_LAUNCH_FAILED`` (719) for any other exception, the kernel's traceback in the
            ``why``; destroy the context or reset the primary context to go on. ``"raise"`` (for debugging)
            lets the kernel's exception out of the call that ran it, at once (the native route, which cannot
            raise through C, answers 719 there and prints the traceback).
        unrunnable_kernels: what a launch of a kernel that has no Python twin and whose module is a binary image
            (ELF CUBIN, fatbin) with no PTX known to simcuda, or the NVRTC face's stand-in PTX (made without
            NVIDIA's NVRTC: empty bodies), does when it would run (docs/kernels.md, "Kernels that
            cannot run") [I]. ``"refuse"`` (the default): the call that runs it (the launch, or the graph launch
            that replays its node) answers ``CUDA_ERROR_NOT_SUPPORTED`` (801), not sticky, the why naming the
            kernel and the remedies; ``"record"``: it is recorded only, as before issue 17. Either way it is
            listed among the kernels that could not run. CUDA C source text handed to the loader (simcuda's
            own test double) is always recorded only.
        kernel_bounds: how strictly a PTX kernel's global accesses are checked (spec 17; docs/kernels.md,
            "Faults"). ``"strict"`` (the default) is memcheck-like [I]: any access outside every allocation, one
            byte past its end included, faults: ``CUDA_ERROR_ILLEGAL_ADDRESS`` (700), sticky. ``"gpu-like"``:
            what a GPU notices [I]: an access past an allocation's end but inside a 4 KiB page that holds an
            allocation goes unnoticed (a store is dropped, a load reads 0); one outside such a page still
            faults 700. The default is ``$SIMCUDA_KERNEL_BOUNDS`` when that is set (read when the ``Options``
            is made), else ``"strict"``. Python twins (``@simcuda.kernel``) are not affected.
        launch_log_limit: how many :class:`LaunchRecord` the driver's :class:`LaunchLog` keeps: the most
            recent ``launch_log_limit`` (default 1,000,000); ``0`` keeps none (the log is off, only its
            count goes on); ``None`` keeps every record (memory grows with the work run). The log is the
            simulator's own; nothing in CUDA corresponds to it.

    Errors: ``ValueError`` for a ``graph_launch_in_capture``, ``kernel_faults``, ``unrunnable_kernels`` or
    ``kernel_bounds`` (``SIMCUDA_KERNEL_BOUNDS`` included) other than their choices; ``TypeError`` for a
    non-bool ``cig_end_any_thread`` or ``per_thread_default_stream`` (``None`` allowed); ``TypeError`` for a
    ``launch_log_limit`` that is neither ``None`` nor an ``int`` (a ``bool``
    included), ``ValueError`` for a negative one.
    """

    graph_launch_in_capture: str = "reject"
    kernel_faults: str = "sticky"
    unrunnable_kernels: str = "refuse"
    kernel_bounds: str = attrs.field(factory=_kernel_bounds_default)
    cig_end_any_thread: bool = False
    per_thread_default_stream: Any = None
    launch_log_limit: int | None = attrs.field(default=DEFAULT_LAUNCH_LOG_LIMIT, validator=_check_launch_log_limit)
    host_memory_budget: int | None = attrs.field(default=None)

    def __attrs_post_init__(self) -> None:
        if self.graph_launch_in_capture not in ("reject", "child-node"):
            raise ValueError("Options.graph_launch_in_capture must be 'reject' or 'child-node', "
                             f"got {self.graph_launch_in_capture!r}")
        if self.kernel_faults not in ("sticky", "raise"):
            raise ValueError(f"Options.kernel_faults must be 'sticky' or 'raise', got {self.kernel_faults!r}")
        if self.unrunnable_kernels not in ("refuse", "record"):
            raise ValueError("Options.unrunnable_kernels must be 'refuse' or 'record', "
                             f"got {self.unrunnable_kernels!r}")
        if self.kernel_bounds not in KERNEL_BOUNDS:
            where = f" (from {KERNEL_BOUNDS_ENV})" if os.environ.get(KERNEL_BOUNDS_ENV) == self.kernel_bounds else ""
            raise ValueError(f"Options.kernel_bounds must be 'strict' or 'gpu-like', got {self.kernel_bounds!r}{where}")
        if not isinstance(self.cig_end_any_thread, bool):
            raise TypeError(f"Options.cig_end_any_thread must be True or False, got {self.cig_end_any_thread!r}")
        if self.per_thread_default_stream not in (None, True, False) or _is_int(self.per_thread_default_stream):
            raise TypeError("Options.per_thread_default_stream must be None, True or False, "
                            f"got {self.per_thread_default_stream!r}")

    @host_memory_budget.validator
    def _check_budget(self, _attr: Any, value: Any) -> None:
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise ValueError(f"host_memory_budget must be None or a non-negative int of bytes, got {value!r}")
