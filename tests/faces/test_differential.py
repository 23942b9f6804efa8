"""Differential test of the faces: the same bad input through every face that has the entry gives the same code.

"Faces translate, never decide" (docs/architecture.md): the tuple face (``simcuda.faces.bindings.driver``), the
raising ``_v2`` face and the runtime face reach the same core, so a bad argument must give one code
whichever face carries it, and change nothing. The table is generated, not written call by call:

* **Entries.** Every simulated (non-stub) function of each face. A ``_v2`` function pairs with the tuple
  function of its driver API name (``stream_get_capture_info_v3`` -> ``cuStreamGetCaptureInfo_v3``, else
  ``cuStreamGetCaptureInfo``, compared without case: ``memcpy_htod_v2`` -> ``cuMemcpyHtoD``); a runtime
  function with the tuple function ``cu`` + its name without ``cuda`` (``cudaStreamSynchronize`` ->
  ``cuStreamSynchronize``), or with its twin in :data:`RUNTIME_TWINS` where the names differ.
* **Arguments.** Each parameter has a role read from its name (:data:`ROLES`): a stream, an event, a graph,
  a flags word... Every role has a good value and a set of bad ones (:data:`BAD`): a NULL, destroyed or
  never-created handle, an out-of-range enum or flag, a zero-size allocation, a never-created node in a
  dependency list. A function with a required parameter of no known role is left out (it cannot be
  called generically); :func:`test_the_table_covers_enough` keeps the coverage from shrinking unseen.
* **Cases.** For every entry, every role slot that all its faces have, and every bad value of that role:
  one call per face, each on a fresh driver with the same objects, with that one argument bad and the
  others good. The codes must agree (runtime codes through :func:`simcuda.faces.bindings.runtime.cuda_error`,
  the mapping the runtime face uses) and, when the call failed, the driver's state must be as before.
* **Hand-written rows** (:data:`SPECIAL`) for inputs no role can express: ``kernelParams`` together with
  ``extra`` (INVALID_VALUE, cuLaunchKernel's documentation) and ``extra`` alone (NOT_SUPPORTED: not
  simulated), for launches and kernel nodes.

Runtime-only rules that really differ from the driver (``cudaMalloc(0)`` succeeds with NULL...) are listed
in :data:`RUNTIME_RULES` with the code the runtime gives and why; nothing else may differ.
"""
from __future__ import annotations

import ctypes
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

import simcuda
from simcuda.faces.bindings import driver as cu
from simcuda.faces.bindings import runtime as rt
from simcuda.faces.bindings._v2 import driver as v2

R = cu.CUresult
PTX = (b".version 7.0\n.target sm_80\n.address_size 64\n"
       b".visible .entry k(.param .u64 a)\n{ ret; }\n")
GARBAGE = 0xDEADBEEF000  # a handle value and a user-space address that nothing here ever made
HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda _p: None)
STREAM_CB = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)(lambda _s, _e, _p: None)

# ------------------------------------------------------------------------------------------- the data
#: parameter name (as each face spells it) -> role
ROLES: dict[str, str] = {
    **dict.fromkeys(("hStream", "stream", "h_stream"), "stream"),
    **dict.fromkeys(("hEvent", "event", "h_event", "hStart", "start"), "event"),
    **dict.fromkeys(("hEnd", "end"), "event"),
    **dict.fromkeys(("hGraph", "graph", "h_graph", "originalGraph", "original_graph", "hClonedGraph",
                     "h_cloned_graph"), "graph"),
    **dict.fromkeys(("childGraph", "child_graph"), "graph"),
    **dict.fromkeys(("hGraphExec", "graphExec", "h_graph_exec"), "exec"),
    **dict.fromkeys(("hNode", "node", "h_node", "hOriginalNode", "h_original_node"), "node"),
    **dict.fromkeys(("hCtx", "ctx"), "ctx"),
    **dict.fromkeys(("hfunc", "f"), "func"),
    "hmod": "module",
    **dict.fromkeys(("dptr", "devPtr", "dstDevice", "dst_device", "srcDevice", "src_device"), "dptr"),
    **dict.fromkeys(("srcHost", "src_host"), "hostsrc"),
    **dict.fromkeys(("dstHost", "dst_host"), "hostdst"),
    **dict.fromkeys(("ptr",), "hostptr"),
    **dict.fromkeys(("ByteCount", "byte_count", "N", "n", "count"), "nbytes"),
    **dict.fromkeys(("bytesize", "size"), "size"),
    **dict.fromkeys(("uc", "us", "ui", "value"), "value"),
    **dict.fromkeys(("flags", "Flags"), "flags"),
    "mode": "mode",
    **dict.fromkeys(("dev", "device", "ordinal"), "dev"),
    **dict.fromkeys(("attrib", "attr"), "attr"),
    "error": "code",
    **dict.fromkeys(("length", "len"), "namelen"),
    "priority": "priority",
    **dict.fromkeys(("dependencies", "pDependencies"), "deps"),
    "from_": "from", "to": "to",
    **dict.fromkeys(("numDependencies", "num_dependencies"), "ndeps"),
    **dict.fromkeys(("dependencyData", "dependency_data", "edgeData", "edge_data"), "edgedata"),
    **dict.fromkeys(("fn",), "hostfn"),
    "callback": "callback",
    **dict.fromkeys(("userData", "user_data"), "userdata"),
    **dict.fromkeys(("syncMode",), "syncmode"),
    **dict.fromkeys(("isEnabled", "is_enabled"), "enabled"),
    **dict.fromkeys(("ctxCreateParams", "ctx_create_params"), "ctxparams"),
    "image": "image",
    "path": "path",
    "name": "kname",
    **dict.fromkeys(("gridDimX", "gridDimY", "gridDimZ", "blockDimX", "blockDimY", "blockDimZ", "grid_dim_x",
                     "grid_dim_y", "grid_dim_z", "block_dim_x", "block_dim_y", "block_dim_z"), "dim"),
    **dict.fromkeys(("sharedMemBytes", "shared_mem_bytes"), "shmem"),
    **dict.fromkeys(("kernelParams", "kernel_params"), "kparams"),
    "extra": "extra",
    **dict.fromkeys(("nodeParams", "node_params", "pNodeParams", "copyParams", "pCopyParams", "memsetParams",
                     "pMemsetParams", "instantiateParams", "instantiate_params", "pCopy",
                     "streamCigCaptureParams", "stream_cig_capture_params"), "params"),
}

#: (function, parameter) whose role is not the one its name gives
ROLE_OVERRIDES: dict[tuple[str, str], str] = {
    ("cuMemFreeHost", "p"): "hostptr", ("mem_free_host", "p"): "hostptr",
    ("cuMemHostRegister", "p"): "hostptr", ("cuMemHostUnregister", "p"): "hostptr",
    ("cuMemcpy3D", "pCopy"): "params", ("cudaMemcpy3D", "p"): "params",
    ("cuMemcpy3DAsync", "pCopy"): "params", ("cudaMemcpy3DAsync", "p"): "params",
    ("cuStreamAttachMemAsync", "length"): "value", ("cudaStreamAttachMemAsync", "length"): "value",  # 0: whole
    ("cuMemcpy", "dst"): "dptr", ("cuMemcpy", "src"): "dptr",
    ("cuMemcpyAsync", "dst"): "dptr", ("cuMemcpyAsync", "src"): "dptr",
    # graph memory attributes: the Python wrappers take only their enum (an int raises AttributeError, as the
    # real ones) while the _v2 face takes an int, so no generic good value exists: left out (None)
    **dict.fromkeys([(n, "attr") for n in ("cuDeviceGetGraphMemAttribute", "cuDeviceSetGraphMemAttribute",
                                           "cudaDeviceGetGraphMemAttribute", "cudaDeviceSetGraphMemAttribute",
                                           "device_get_graph_mem_attribute", "device_set_graph_mem_attribute")]),
    # several devices (issue 10): the link's ends are devices, not device pointers
    **{(f, p): "dev" for f in ("cuDeviceGetP2PAttribute", "cudaDeviceGetP2PAttribute", "device_get_p2p_attribute")
       for p in ("srcDevice", "dstDevice", "src_device", "dst_device")},
}

#: role -> {bad kind: value (or a function of the environment)}; "null" may be a valid input for some
#: entries (the legacy stream, ``cuMemFree(0)``), so only the other kinds must fail
BAD: dict[str, dict[str, Any]] = {
    "stream": {"destroyed": lambda e: e.dead["stream"], "never-created": GARBAGE},
    "event": {"null": 0, "destroyed": lambda e: e.dead["event"], "never-created": GARBAGE},
    "graph": {"null": 0, "destroyed": lambda e: e.dead["graph"], "never-created": GARBAGE},
    "exec": {"null": 0, "destroyed": lambda e: e.dead["exec"], "never-created": GARBAGE},
    "node": {"null": 0, "destroyed": lambda e: e.dead["node"], "never-created": GARBAGE},
    "ctx": {"destroyed": lambda e: e.dead["ctx"], "never-created": GARBAGE},
    "func": {"null": 0, "never-created": GARBAGE},
    "module": {"null": 0, "unloaded": lambda e: e.dead["module"], "never-created": GARBAGE},
    "dptr": {"freed": lambda e: e.dead["dptr"], "never-allocated": GARBAGE},
    "hostptr": {"null": 0, "never-allocated": GARBAGE},
    "nbytes": {"past-the-allocation": 1 << 20},
    "size": {"zero": 0},
    "flags": {"out-of-range": 0xFFFF0000},
    "mode": {"out-of-range": 7},
    "dev": {"out-of-range": 99, "negative": -1},
    "attr": {"out-of-range": 1_000_000},
    "code": {"unknown": 12345},
    "namelen": {"zero": 0},
    "deps": {"never-created-node": lambda e: [GARBAGE]},
    "from": {"never-created-node": lambda e: [GARBAGE]},
    "to": {"never-created-node": lambda e: [GARBAGE]},
    "hostfn": {"null": 0},
    "callback": {"null": 0},
    "syncmode": {"out-of-range": 7},
    "image": {"not-an-image": b"\x7fELF not a module"},
    "path": {"empty": b""},
    "kname": {"no-such-entry": b"no_such_kernel"},
    "dim": {"zero": 0},
    "shmem": {"beyond-the-limit": 1 << 20},
    "extra": {"with-kernelParams": lambda e: e.extra_addr},  # kernelParams is non-NULL (its good value)
    "params": {"null": None},
}

#: role -> good value (or a function of the environment); a role without one ("params") can only be tested
#: bad: the other roles of its entries are then not tested
GOOD: dict[str, Any] = {
    "stream": lambda e: e.s, "event": lambda e: e.ev, "graph": lambda e: e.g, "exec": lambda e: e.x,
    "node": lambda e: e.n, "ctx": lambda e: e.ctx, "func": lambda e: e.f, "module": lambda e: e.mod,
    "dptr": lambda e: e.dptr, "hostsrc": lambda e: bytes(64), "hostdst": lambda e: bytearray(64),
    "hostptr": lambda e: e.host, "nbytes": 16, "size": 64, "value": 0, "flags": 0, "mode": 0, "dev": 0, "attr": 1,
    "code": 1, "namelen": 32, "priority": 0, "deps": lambda e: [], "from": lambda e: [e.n], "to": lambda e: [e.n2],
    "ndeps": None, "edgedata": None, "hostfn": lambda e: e.host_fn, "callback": lambda e: e.stream_cb,
    "userdata": 0, "syncmode": 0, "enabled": 1, "ctxparams": None, "image": PTX,
    "path": lambda e: e.dot_path, "kname": b"k", "dim": 1, "shmem": 0, "kparams": lambda e: e.kp_addr, "extra": 0,
}
_LISTS = ("deps", "from", "to")

#: (entry, role) -> the good value where the role's usual one is not valid for that entry
GOOD_OVERRIDES: dict[tuple[str, str], Any] = {
    ("cuMemAllocManaged", "flags"): 1,  # CU_MEM_ATTACH_GLOBAL / cudaMemAttachGlobal: 0 is not a valid value
}

#: runtime functions whose driver twin has another name
RUNTIME_TWINS: dict[str, str] = {
    "cudaMalloc": "cuMemAlloc", "cudaFree": "cuMemFree", "cudaMallocHost": "cuMemAllocHost",
    "cudaFreeHost": "cuMemFreeHost", "cudaHostAlloc": "cuMemHostAlloc", "cudaMallocManaged": "cuMemAllocManaged",
    "cudaMallocAsync": "cuMemAllocAsync", "cudaFreeAsync": "cuMemFreeAsync", "cudaHostRegister": "cuMemHostRegister",
    "cudaHostUnregister": "cuMemHostUnregister", "cudaMemset": "cuMemsetD8", "cudaMemsetAsync": "cuMemsetD8Async",
    "cudaDeviceSynchronize": "cuCtxSynchronize", "cudaStreamCreateWithFlags": "cuStreamCreate",
    "cudaEventCreateWithFlags": "cuEventCreate", "cudaGetDeviceCount": "cuDeviceGetCount",
}

#: (runtime function, role, bad kind) -> (the code the runtime gives, why it differs from the driver): rules
#: only the runtime has. Nothing else may differ between the faces.
RUNTIME_RULES: dict[tuple[str, str, str], tuple[Any, str]] = {
    **{(name, "size", "zero"): (rt.cudaError_t.cudaSuccess, "the runtime allocates nothing for size 0 and "
                                                             "returns NULL (cudaMalloc documentation)")
       for name in ("cudaMalloc", "cudaMallocHost", "cudaHostAlloc", "cudaMallocManaged")},
    ("cudaFreeHost", "hostptr", "null"): (rt.cudaError_t.cudaSuccess, "cudaFreeHost(NULL) does nothing"),
    ("cudaGetErrorName", "code", "unknown"): (rt.cudaError_t.cudaSuccess, "the runtime names an unknown code "
                                                                         "'unrecognized error code'"),
    ("cudaGetErrorString", "code", "unknown"): (rt.cudaError_t.cudaSuccess, "as cudaGetErrorName"),
}


#: bad kinds that an entry may accept (when every face does): NULL where NULL is a valid value, flags and
#: codes some entries do not check, and bad values the simulator does not detect (entry, role, kind) -> why
MAY_SUCCEED_KINDS = frozenset({"null", "out-of-range", "zero", "empty", "unknown"})
ACCEPTED: dict[tuple[str, str, str], str] = {
    ("cuMemHostRegister", "hostptr", "never-allocated"): "bookkeeping only: the simulator does not check that the "
                                                         "host range is mapped",
    ("cuStreamAttachMemAsync", "dptr", "freed"): "bookkeeping only: the address is not checked",
    ("cuStreamAttachMemAsync", "dptr", "never-allocated"): "bookkeeping only: the address is not checked",
}


# ------------------------------------------------------------------------------------------- the table
def _public(mod: Any, prefix: str) -> dict[str, Callable]:
    """The simulated (non-stub) public functions of a face whose names start with ``prefix``."""
    out = {}
    for name in dir(mod):
        fn = getattr(mod, name)
        if (name.startswith(prefix) and not name.startswith("_") and callable(fn) and not isinstance(fn, type)
                and getattr(fn, "__module__", "") == mod.__name__ and not getattr(fn, "__simcuda_stub__", False)):
            out[name] = fn
    return out


TUPLE = _public(cu, "cu")
V2 = {n: f for n, f in _public(v2, "").items() if n[:1].islower() and not n.startswith("cu")}
RUNTIME = _public(rt, "cuda")
_TUPLE_LOWER = {n.lower(): n for n in TUPLE}


def v2_twin(name: str) -> str | None:
    """The tuple-face function of a ``_v2`` function: its driver API name, with its version suffix, else without."""
    base, _, ver = name.rpartition("_v")
    if not (base and ver.isdigit()):
        base, ver = name, ""
    api = "cu" + "".join(w[:1].upper() + w[1:] for w in base.split("_"))
    for cand in ((f"{api}_v{ver}",) if ver else ()) + (api,):
        if cand.lower() in _TUPLE_LOWER:
            return _TUPLE_LOWER[cand.lower()]
    return None


def runtime_twin(name: str) -> str | None:
    """The tuple-face function of a runtime function: :data:`RUNTIME_TWINS`, else ``cu`` + the name after ``cuda``."""
    twin = RUNTIME_TWINS.get(name, "cu" + name[4:])
    return twin if twin in TUPLE else None


@dataclass
class Member:
    """One face's function of an entry, with the role of each parameter it must be given."""

    face: str
    name: str
    fn: Callable
    params: list[tuple[str, str]]  # (parameter, role) in order; parameters with defaults of no role are left out


@dataclass
class Entry:
    """An entry point present in two faces or more."""

    key: str
    members: list[Member] = field(default_factory=list)


def _member(face: str, name: str, fn: Callable) -> Member | None:
    """The member for ``fn``, or None when a required parameter has no known role."""
    params = []
    for p in inspect.signature(fn).parameters.values():
        role = ROLE_OVERRIDES.get((name, p.name), ROLES.get(p.name))
        if role is None:
            if p.default is inspect.Parameter.empty:
                return None
            continue
        params.append((p.name, role))
    return Member(face, name, fn, params)


def build_table() -> tuple[list[Entry], list[str]]:
    """Entries of two or more faces, and the names left out (a required parameter of no known role)."""
    groups: dict[str, list[tuple[str, str, Callable]]] = {}
    for name, fn in TUPLE.items():
        groups.setdefault(name, []).append(("tuple", name, fn))
    for name, fn in V2.items():
        twin = v2_twin(name)
        if twin:
            groups[twin].append(("v2", name, fn))
    for name, fn in RUNTIME.items():
        twin = runtime_twin(name)
        if twin:
            groups[twin].append(("runtime", name, fn))
    entries, left_out = [], []
    for key, found in sorted(groups.items()):
        if len({face for face, _, _ in found}) < 2:
            continue
        members = []
        for face, name, fn in found:
            m = _member(face, name, fn)
            if m is None:
                left_out.append(name)
            else:
                members.append(m)
        if len({m.face for m in members}) >= 2:
            entries.append(Entry(key, members))
    return entries, left_out


def _slots(m: Member) -> list[tuple[str, int]]:
    """``(role, occurrence)`` of each parameter of a member (two events: ``("event", 0)``, ``("event", 1)``)."""
    seen: dict[str, int] = {}
    out = []
    for _, role in m.params:
        out.append((role, seen.get(role, 0)))
        seen[role] = seen.get(role, 0) + 1
    return out


@dataclass
class Case:
    """One bad input (``kind`` of the role slot ``slot``) sent through ``members``, the entry's functions that
    have that slot (two faces or more)."""

    entry: Entry
    slot: tuple[str, int]
    kind: str
    members: list[Member]


def build_cases(entries: list[Entry]) -> list[Case]:
    """A :class:`Case` for every role slot that two faces or more of an entry have, and every bad value of it."""
    cases = []
    for e in entries:
        no_good = any(role == "params" for m in e.members for _, role in m.params)
        slots = sorted({s for m in e.members for s in _slots(m)})
        for slot in slots:
            if no_good and slot[0] != "params":
                continue  # no generic good parameter struct: only its NULL is tested
            members = [m for m in e.members if slot in _slots(m)]
            if len({m.face for m in members}) < 2:
                continue
            for kind in BAD.get(slot[0], {}):
                cases.append(Case(e, slot, kind, members))
    return cases


ENTRIES, LEFT_OUT = build_table()
CASES = build_cases(ENTRIES)


# ------------------------------------------------------------------------------------------- running
class Env:
    """A driver with a context, stream, recorded event, graph with two empty nodes, exec, 256 bytes of device
    memory, pinned host memory, a module with kernel ``k``, and one destroyed object of each kind (``dead``)."""


def make_env(tmp_path: Any) -> Env:
    """A fresh current driver holding the objects of :class:`Env` (made through the tuple face)."""
    e = Env()
    e.drv = simcuda.Driver()
    simcuda.use(e.drv)

    def ok(r: tuple) -> Any:
        assert r[0] == R.CUDA_SUCCESS, r
        return r[1] if len(r) > 1 else None
    ok(cu.cuInit(0))
    dead_ctx = ok(cu.cuCtxCreate(None, 0, 0))
    ok(cu.cuCtxDestroy(dead_ctx))
    e.ctx = ok(cu.cuCtxCreate(None, 0, 0))
    e.s = int(ok(cu.cuStreamCreate(0)))
    e.ev = int(ok(cu.cuEventCreate(0)))
    ok(cu.cuEventRecord(e.ev, e.s))
    e.g = int(ok(cu.cuGraphCreate(0)))
    e.n = int(ok(cu.cuGraphAddEmptyNode(e.g, None, 0)))
    e.n2 = int(ok(cu.cuGraphAddEmptyNode(e.g, None, 0)))
    g2 = ok(cu.cuGraphCreate(0))
    ok(cu.cuGraphAddEmptyNode(g2, None, 0))
    e.x = int(ok(cu.cuGraphInstantiate(g2, 0)))
    e.dptr = int(ok(cu.cuMemAlloc(256)))
    e.host = ok(cu.cuMemAllocHost(64))
    e.mod = int(ok(cu.cuModuleLoadData(PTX)))
    e.f = int(ok(cu.cuModuleGetFunction(e.mod, b"k")))
    e.host_fn = ctypes.cast(HOST_FN, ctypes.c_void_p).value
    e.stream_cb = ctypes.cast(STREAM_CB, ctypes.c_void_p).value
    e.dot_path = str(tmp_path / "g.dot").encode()
    e.arg = ctypes.c_uint64(e.dptr)
    e.kparr = (ctypes.c_void_p * 1)(ctypes.addressof(e.arg))
    e.kp_addr = ctypes.addressof(e.kparr)  # a void** array for k(u64)
    e.extra_arr = (ctypes.c_void_p * 1)(0)  # CU_LAUNCH_PARAM_END: only its non-NULL-ness counts
    e.extra_addr = ctypes.addressof(e.extra_arr)
    dead = {}
    dead["stream"] = int(ok(cu.cuStreamCreate(0)))
    ok(cu.cuStreamDestroy(dead["stream"]))
    dead["event"] = int(ok(cu.cuEventCreate(0)))
    ok(cu.cuEventDestroy(dead["event"]))
    dead["graph"] = int(ok(cu.cuGraphCreate(0)))
    ok(cu.cuGraphDestroy(dead["graph"]))
    g3 = ok(cu.cuGraphCreate(0))
    ok(cu.cuGraphAddEmptyNode(g3, None, 0))
    dead["exec"] = int(ok(cu.cuGraphInstantiate(g3, 0)))
    ok(cu.cuGraphExecDestroy(dead["exec"]))
    dead["node"] = int(ok(cu.cuGraphAddEmptyNode(e.g, None, 0)))
    ok(cu.cuGraphDestroyNode(dead["node"]))
    dead["ctx"] = int(dead_ctx)
    dead["dptr"] = int(ok(cu.cuMemAlloc(64)))
    ok(cu.cuMemFree(dead["dptr"]))
    dead["module"] = int(ok(cu.cuModuleLoadData(PTX)))
    ok(cu.cuModuleUnload(dead["module"]))
    e.dead = dead
    return e


def state(d: Any) -> tuple:
    """What a rejected call must leave as it was: every object and whether it is destroyed or unloaded, every
    graph's nodes and edges, live captures, memory in use, host allocations, work run, the current context."""
    objs = tuple(sorted((h, type(o).__name__, getattr(o, "destroyed", None), getattr(o, "unloaded", None))
                        for h, o in d.handles.table.items()))
    graphs = tuple((g.handle, g.n_live, len(g.edges), g.destroyed) for g in d.handles.all_graphs)
    return (objs, graphs, tuple(sorted(d.captures.live)), d.memory.in_use, len(d.memory.host), len(d.launch_log),
            d.ctx_get_current())


def _value(v: Any, e: Env) -> Any:
    return v(e) if callable(v) else v


def render(face: str, role: str, v: Any) -> Any:
    """A role's value in the form ``face`` takes: node lists as the face's node objects, the rest as given
    (all three faces take handles and addresses as ``int``)."""
    if role in _LISTS and v is not None:
        if face == "tuple":
            return [cu.CUgraphNode(h) for h in v]
        if face == "runtime":
            return [rt.cudaGraphNode_t(h) for h in v]
    return v


def call(m: Member, e: Env, key: str, bad: tuple[str, int] | None, kind: str | None) -> Any:
    """Call ``m`` on ``e`` with every parameter good but the ``bad`` slot; the face's raw code: a ``CUresult``
    value (tuple and ``_v2`` faces) or a ``cudaError_t`` (runtime face)."""
    values: dict[str, Any] = {}
    slots = _slots(m)
    for (pname, role), slot in zip(m.params, slots):
        if role == "ndeps":
            continue
        v = _value(BAD[role][kind] if slot == bad else GOOD_OVERRIDES.get((key, role), GOOD[role]), e)
        values[pname] = v
    lists = [values[p] for p, r in m.params if r in _LISTS and values.get(p) is not None]
    args = []
    for pname, role in m.params:
        if role == "ndeps":
            args.append(len(lists[0]) if lists else 0)
        else:
            args.append(render(m.face, role, values[pname]))
    if m.face == "v2":
        try:
            m.fn(*args)
        except v2.DriverError as err:
            return int(err.status)
        return 0
    return m.fn(*args)[0]


def _id(case: Case) -> str:
    role, i = case.slot
    return f"{case.entry.key}-{role}{i or ''}-{case.kind}"


@pytest.fixture
def restore():
    """Put back the driver that was current before the test."""
    old = simcuda.use(simcuda.Driver())
    yield
    simcuda.use(old)


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_every_face_gives_the_same_code_and_changes_nothing(case, tmp_path, restore, monkeypatch):
    """The bad input gives one code through every face of the entry and leaves the driver's state as it was."""
    monkeypatch.delenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", raising=False)
    entry, slot, kind = case.entry, case.slot, case.kind
    got = {}
    e = None
    for m in case.members:
        e = e or make_env(tmp_path)  # a failed call changed nothing (asserted): the next face may reuse the driver
        before = state(e.drv)
        code = call(m, e, entry.key, slot, kind)
        if int(code) != 0:
            assert state(e.drv) == before, f"{m.name} failed with {code!r} but changed the driver's state"
        else:
            e = None
        rule = RUNTIME_RULES.get((m.name, slot[0], kind)) if m.face == "runtime" else None
        if rule is not None:
            assert code == rule[0], (m.name, code, rule)
            continue
        got[m.face, m.name] = code
    driver_codes = {int(c) for (face, _), c in got.items() if face != "runtime"}
    assert len(driver_codes) <= 1, got
    if driver_codes:
        want = driver_codes.pop()
        for (face, name), c in got.items():
            if face == "runtime":
                assert c == rt.cuda_error(want), (name, c, got)
        if kind not in MAY_SUCCEED_KINDS and (entry.key, slot[0], kind) not in ACCEPTED:
            assert want != 0, f"{entry.key}: a {kind} {slot[0]} was accepted by every face"


# ------------------------------------------------------------------------------------------- hand-written rows
def _tuple_kernel_node(e: Env, kp: Any, extra: int) -> Any:
    p = cu.CUDA_KERNEL_NODE_PARAMS()
    p.func = e.f
    p.gridDimX = p.gridDimY = p.gridDimZ = p.blockDimX = p.blockDimY = p.blockDimZ = 1
    p.kernelParams = kp
    p.extra = extra
    return cu.cuGraphAddKernelNode(e.g, None, 0, p)[0]


def _runtime_kernel_node(e: Env, kp: Any, extra: int) -> Any:
    p = rt.cudaKernelNodeParams()
    p.func = e.f
    p.gridDim.x = p.gridDim.y = p.gridDim.z = p.blockDim.x = p.blockDim.y = p.blockDim.z = 1
    p.kernelParams = kp
    p.extra = extra
    return rt.cudaGraphAddKernelNode(e.g, None, 0, p)[0]


def _v2_launch(e: Env, kp: Any, extra: int) -> int:
    try:
        v2.launch_kernel(e.f, 1, 1, 1, 1, 1, 1, 0, e.s, kp, extra)
    except v2.DriverError as err:
        return int(err.status)
    return 0


def _kp_and_extra(e: Env) -> tuple:
    return e.kp_addr, e.extra_addr


def _extra_only(e: Env) -> tuple:
    return 0, e.extra_addr


#: (row, expected CUresult, {(face, function): call(env, kernelParams, extra) -> raw code}, (kernelParams, extra))
SPECIAL = [
    ("launch-kernelParams-with-extra", R.CUDA_ERROR_INVALID_VALUE, _kp_and_extra, {
        ("tuple", "cuLaunchKernel"): lambda e, kp, x: cu.cuLaunchKernel(e.f, 1, 1, 1, 1, 1, 1, 0, e.s, kp, x)[0],
        ("v2", "launch_kernel"): _v2_launch}),
    ("launch-extra-alone", R.CUDA_ERROR_NOT_SUPPORTED, _extra_only, {
        ("tuple", "cuLaunchKernel"): lambda e, kp, x: cu.cuLaunchKernel(e.f, 1, 1, 1, 1, 1, 1, 0, e.s, kp, x)[0],
        ("v2", "launch_kernel"): _v2_launch}),
    ("kernel-node-kernelParams-with-extra", R.CUDA_ERROR_INVALID_VALUE, _kp_and_extra, {
        ("tuple", "cuGraphAddKernelNode"): _tuple_kernel_node,
        ("runtime", "cudaGraphAddKernelNode"): _runtime_kernel_node}),
    ("kernel-node-extra-alone", R.CUDA_ERROR_NOT_SUPPORTED, _extra_only, {
        ("tuple", "cuGraphAddKernelNode"): _tuple_kernel_node,
        ("runtime", "cudaGraphAddKernelNode"): _runtime_kernel_node}),
]


@pytest.mark.parametrize("row", SPECIAL, ids=[r[0] for r in SPECIAL])
def test_kernel_params_with_extra_is_one_code_in_every_face(row, tmp_path, restore, monkeypatch):
    """kernelParams with extra is INVALID_VALUE and extra alone NOT_SUPPORTED in every face; nothing runs or is
    added."""
    monkeypatch.delenv("CUDA_PYTHON_CUDA_PER_THREAD_DEFAULT_STREAM", raising=False)
    _name, want, args, members = row
    for (face, fname), fn in members.items():
        e = make_env(tmp_path)
        before = state(e.drv)
        code = fn(e, *args(e))
        assert code == (rt.cuda_error(want) if face == "runtime" else want), (fname, code)
        assert state(e.drv) == before, fname
        assert e.drv.last_error().code == want, fname


def test_the_table_covers_enough():
    """The generated table keeps at least 60 entries in two or more faces and 300 cases, every face in it."""
    faces = {m.face for e in ENTRIES for m in e.members}
    assert faces == {"tuple", "v2", "runtime"}
    assert len(ENTRIES) >= 60, (len(ENTRIES), LEFT_OUT)
    assert len(CASES) >= 300, len(CASES)
