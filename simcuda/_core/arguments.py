"""Argument rules the faces report: facts a face finds in what it unpacks, decided by the core (spec 3).

A face unpacks what the core cannot see (parameter structs, argument forms, files); when what it finds
breaks a rule of the call, it hands the fact to one of these entries and the core decides the code, so
every face returns the same one ("faces translate, never decide", docs/architecture.md).
"""
from __future__ import annotations

from typing import Any

from .errors import CUresult, DriverError
from .memory import hostmem
from .memory.memory_model import DEVICE, HOST
from .modules import launch
from .modules.module_model import read_image_file
from .state import DriverState, entry


class ArgumentRules(DriverState):
    """Argument rules of the simulated driver that the faces report to (``require_arg``, ``check_flags``...)."""

    @entry
    def get_error_name(self, code: int) -> str:
        """cuGetErrorName: the ``CUresult`` name of ``code``. Errors: 1 for a value that is no ``CUresult``."""
        from .errors import CUresult
        try:
            return CUresult(int(code)).name
        except ValueError:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuGetErrorName: {code!r} is not a CUresult value") from None

    @entry
    def get_error_string(self, code: int) -> str:
        """cuGetErrorString: the description of ``code`` (the cuda-bindings docstring sentence, spec 10).
        Errors: 1 for a value that is no ``CUresult``."""
        from .._generated.driver_outputs import ERROR_STRINGS
        from .errors import CUresult
        try:
            member = CUresult(int(code))
        except ValueError:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"cuGetErrorString: {code!r} is not a CUresult value") from None
        return ERROR_STRINGS.get(int(member), member.name)

    @entry
    def require_arg(self, present: bool, arg: str, call: str) -> None:
        """A required pointer argument (a parameter struct, a name, a config) that is NULL is INVALID_VALUE (1),
        as every entry point's Returns list has it for a NULL required pointer."""
        if not present:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: {arg} is NULL (a required pointer argument may not be NULL)")

    @entry
    def require_count(self, count: int, available: int, what: str, call: str) -> None:
        """A count field larger than the array it counts (``accessDescCount``, ``count``, ``numExtSems``) is
        INVALID_VALUE (1): the driver would read past the array [inferred]."""
        if count > available:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: {what} {count} is larger than its array ({available} entries) [inferred: "
                              "INVALID_VALUE]")

    @entry
    def check_flags(self, flags: int, allowed: int, what: str, call: str) -> None:
        """A flags argument with bits outside ``allowed`` is INVALID_VALUE (1), as the entry's Returns list has it."""
        if flags & ~allowed:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: {what} 0x{flags:x} have bits outside 0x{allowed:x}")

    @entry
    def check_host_range(self, addr: int, nbytes: int, what: str, call: str) -> int:
        """``addr`` when ``nbytes`` there are readable memory of this process (the face reads them: a
        dependency array, edge data, a struct given by address); else INVALID_VALUE (1) (:mod:`hostmem`)."""
        hostmem.check(self.memory, int(addr), int(nbytes), "r", f"{call}: {what}")
        return int(addr)

    @entry
    def read_image_file(self, path: str | None, call: str = "cuModuleLoad") -> bytes:
        """The bytes of a module or library file (cuModuleLoad, cuLibraryLoadFromFile). Errors: 1 a NULL
        ``path`` (None, a C caller's); 301 FILE_NOT_FOUND when the file cannot be read, as those calls' Returns
        lists give it (:func:`simcuda._core.modules.module_model.read_image_file`)."""
        return read_image_file(path, call)

    @entry
    def copy_memory_type(self, memory_type: int, side: str, call: str) -> str:
        """The kind of one side of a CUDA_MEMCPY2D/3D from its ``CUmemorytype``: ``"host"`` (1), ``"device"`` (2)
        or ``"unified"`` (4). Errors: 801 CU_MEMORYTYPE_ARRAY (3), CUDA arrays are not simulated; 1 any other
        value (not a CUmemorytype)."""
        kind = {1: HOST, 2: DEVICE, 4: "unified"}.get(memory_type)
        if kind is not None:
            return kind
        if memory_type == 3:
            raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                              f"{call}: CUDA arrays ({side}MemoryType CU_MEMORYTYPE_ARRAY) are not simulated")
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: {side}MemoryType {memory_type} is not a "
                                                             "CUmemorytype (1 host, 2 device, 3 array, 4 unified)")

    @entry
    def check_kernel_extra(self, params_given: bool, extra: int, call: str = "cuLaunchKernel") -> None:
        """The ``extra`` argument of a launch or a kernel node. cuLaunchKernel's documentation: "The error
        CUDA_ERROR_INVALID_VALUE will be returned if kernel parameters are specified with both kernelParams
        and extra (i.e. both kernelParams and extra are non-NULL)": 1 when both are given. ``extra`` alone is
        801: kernel arguments packed in a buffer (CU_LAUNCH_PARAM_BUFFER_POINTER) are not simulated."""
        if not extra:
            return
        if params_given:
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: kernelParams and extra are both non-NULL; kernel parameters may be given "
                              "through one of them only (cuLaunchKernel documentation)")
        raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED, f"{call}: kernel arguments through 'extra' "
                                                             "(CU_LAUNCH_PARAM_BUFFER_POINTER) are not simulated; "
                                                             "pass kernelParams")

    @entry
    def check_launch_attributes(self, ids: list[int], call: str = "cuLaunchKernelEx",
                                programmatic: list[Any] | None = None) -> int:
        """The launch attributes of a CUlaunchConfig: IGNORE (0), COOPERATIVE (2) and PRIORITY (8) are
        accepted (no effect); PROGRAMMATIC_STREAM_SERIALIZATION (6) is accepted (in a capture it makes
        programmatic edges: ``launch_kernel(programmatic=True)``, P-16); CLUSTER_DIMENSION (4) and
        CLUSTER_SCHEDULING_POLICY_PREFERENCE (5) are accepted on a device with cluster launch (attribute 120,
        ``DeviceSpec.cluster_launch``; the launch runs as without them: nothing runs on a GPU) and 801 on one
        without [I]; COOPERATIVE is 801 on a device without cooperative launch (attribute 95) [I]; any other is
        801, not simulated (spec 13.B; docs/spec-proposals.md P-67). The device is the current context's (device
        0 without one: the launch itself then reports the missing context).

        ``programmatic``: each attribute's ``value.programmaticStreamSerializationAllowed`` (the union member read
        for every id; its bytes are ``value.cooperative``'s too), or for CLUSTER_DIMENSION its ``value.clusterDim``
        as ``(x, y, z)``: the launch then checks that shape (:class:`~simcuda._core.modules.launch.LaunchFlags`, P-75).
        Returns the launch's flags, the ``programmatic`` argument of :meth:`launch_kernel`:
        :data:`simcuda._core.modules.launch.PROGRAMMATIC` for attribute 6 with a non-zero value,
        :data:`~simcuda._core.modules.launch.COOPERATIVE` for attribute 2 with a non-zero value (a cooperative launch:
        its grid must fit at once and ``grid.sync()`` works); 0 (False) for none."""
        if not ids:
            return False
        spec = self._launch_spec()
        for a in ids:
            if a in (4, 5):
                on = spec.cluster_launch if spec.cluster_launch is not None else spec.compute_capability[0] >= 9
                if not on:
                    raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                                      f"{call}: launch attribute {a} (thread-block clusters) on a device without "
                                      "cluster launch (CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH is 0)")
                continue
            if a == 2 and not spec.cooperative_launch:
                raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                                  f"{call}: launch attribute 2 (cooperative) on a device without cooperative "
                                  "launch (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0)")
            if a not in (0, 2, 6, 8):
                raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED,
                                  f"{call}: launch attribute {a} is not simulated (spec 13.B)")
        values = list(zip(ids, programmatic or ()))
        flags = (1 if any(a == 6 and v for a, v in values) else 0) | (2 if any(a == 2 and v for a, v in values) else 0)
        shapes = [v for a, v in values if a == 4 and isinstance(v, tuple)]
        if shapes:  # the launch checks the cluster shape against the kernel and its grid (P-75)
            x, y, z = (int(n) for n in shapes[-1])  # the last one given counts [I]
            return launch.LaunchFlags(flags, (x, y, z))
        return flags

    def _launch_spec(self) -> Any:
        """The DeviceSpec of the current context's device (device 0's without a current context)."""
        t = self.threads.current()
        stack = t.ctx_stack
        ctx = stack[-1] if stack else None
        if ctx is not None and not ctx.destroyed:
            return ctx.device.spec
        return self.devices[0].spec

    @entry
    def check_node_type(self, ntype: int, call: str = "cuGraphAddNode") -> None:
        """The ``type`` of a CUgraphNodeParams: the simulated node types are 0-13 (13: CONDITIONAL); the types
        14, 16, 17, 18 are 801, not simulated; any other value is 1, not a CUgraphNodeType."""
        if 0 <= ntype <= 13:
            return
        if ntype in (14, 16, 17, 18):
            raise DriverError(CUresult.CUDA_ERROR_NOT_SUPPORTED, f"{call}: node type {ntype} is not simulated")
        raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE, f"{call}: node type {ntype} is not a CUgraphNodeType")

    @entry
    def check_child_ownership(self, ownership: int, call: str = "cuGraphAddNode") -> None:
        """The ``ownership`` of a child-graph CUgraphNodeParams: CLONE (0) or MOVE (1); anything else is 1."""
        if ownership not in (0, 1):
            raise DriverError(CUresult.CUDA_ERROR_INVALID_VALUE,
                              f"{call}: child graph ownership {ownership} is not CLONE (0) or MOVE (1)")
