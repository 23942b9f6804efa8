"""The native route's C-ABI adapters, called through real C function pointers (ctypes), without the library.

Each adapter is what NVIDIA's binding reaches through the simulated ``libcuda.so.1``; here the tests call the
same C function pointers directly, so they run in any process (no library is loaded).
"""
from __future__ import annotations

import ctypes

import pytest

import simcuda
from simcuda._core.api import ROWS
from simcuda._generated import cydriver_ctypes as C
from simcuda._generated.entry_table import ENTRIES
from simcuda.faces.native import adapters as A

_KEEP: list[object] = []


def c_fn(name: str, version: int | None = None, ptds: bool = False):
    """The C function pointer of the adapter of (name, version), the newest version when none is given."""
    i = max((k for k, e in enumerate(ENTRIES) if e.name == name and (version is None or e.version == version)),
            key=lambda k: ENTRIES[k].version)
    f = A.c_function(i, ptds)
    assert f is not None, name
    _KEEP.append(f)
    return f


@pytest.fixture
def ctx():
    drv = simcuda.reset()
    assert c_fn("cuInit")(0) == 0
    h = ctypes.c_void_p()
    assert c_fn("cuDevicePrimaryCtxRetain")(ctypes.byref(h), 0) == 0
    assert c_fn("cuCtxSetCurrent")(h) == 0
    yield drv
    simcuda.reset()


def stream(flags: int = 1) -> ctypes.c_void_p:
    s = ctypes.c_void_p()
    assert c_fn("cuStreamCreate")(ctypes.byref(s), flags) == 0
    return s


def test_every_complete_row_has_an_adapter_built_from_it():
    by_python = {e.python: i for i, e in enumerate(ENTRIES) if e.python}
    for row in ROWS:
        if not row.particular:
            assert A.adapter(by_python[row.name]) is not None, row.name


def test_outputs_are_written_and_codes_returned(ctx):
    s = stream()
    status = ctypes.c_int(7)
    assert c_fn("cuStreamIsCapturing")(s, ctypes.byref(status)) == 0 and status.value == 0
    assert c_fn("cuStreamBeginCapture")(s, 0) == 0
    assert c_fn("cuStreamIsCapturing")(s, ctypes.byref(status)) == 0 and status.value == 1
    assert c_fn("cuStreamBeginCapture")(s, 0) == 401  # already capturing: the core's code
    assert simcuda.last_error().code == 401
    g = ctypes.c_void_p()
    assert c_fn("cuStreamEndCapture")(s, ctypes.byref(g)) == 0 and g.value
    assert c_fn("cuGraphDestroy")(g) == 0
    assert c_fn("cuGraphDestroy")(g) == 1  # a destroyed graph: INVALID_VALUE, as for the Python face


def test_null_output_pointer_is_invalid_value_and_changes_nothing(ctx):
    s = stream()
    assert c_fn("cuStreamIsCapturing")(s, None) == 1
    assert c_fn("cuStreamCreate")(None, 0) == 1
    assert "NULL" in simcuda.last_error().why


def test_per_thread_variant_reads_a_null_stream_as_the_per_thread_stream(ctx):
    assert c_fn("cuStreamBeginCapture")(None, 0) == 900  # the legacy stream cannot capture
    assert c_fn("cuStreamBeginCapture", ptds=True)(None, 0) == 0  # CU_STREAM_PER_THREAD can
    status = ctypes.c_int()
    assert c_fn("cuStreamIsCapturing", ptds=True)(None, ctypes.byref(status)) == 0 and status.value == 1
    g = ctypes.c_void_p()
    assert c_fn("cuStreamEndCapture", ptds=True)(None, ctypes.byref(g)) == 0 and g.value


def test_capture_info_hands_out_arrays_that_stay_valid(ctx):
    s = stream()
    graph = ctypes.c_void_p()
    assert c_fn("cuGraphCreate")(ctypes.byref(graph), 0) == 0
    drv = ctx
    dptr = drv.mem_alloc(64)
    assert c_fn("cuStreamBeginCapture")(s, 0) == 0
    from simcuda.faces.bindings import driver as face
    assert face.cuMemsetD8Async(dptr, 1, 64, face.CUstream(s.value))[0] == 0  # one node, captured
    st, cid, g, n = ctypes.c_int(), ctypes.c_uint64(), ctypes.c_void_p(), ctypes.c_size_t()
    deps, eds = ctypes.POINTER(ctypes.c_void_p)(), ctypes.POINTER(C.CUgraphEdgeData)()
    args = (s, ctypes.byref(st), ctypes.byref(cid), ctypes.byref(g), ctypes.byref(deps), ctypes.byref(eds),
            ctypes.byref(n))
    assert c_fn("cuStreamGetCaptureInfo", 12030)(*args) == 0
    assert (st.value, n.value) == (1, 1) and deps[0] and eds[0].type == 0
    _, _, _, nodes, _, _ = drv.stream_get_capture_info(s.value)
    assert deps[0] == nodes[0]
    # every output is optional
    assert c_fn("cuStreamGetCaptureInfo", 12030)(s, None, None, None, None, None, ctypes.byref(n)) == 0
    # the 11030 variant has no edge data
    assert c_fn("cuStreamGetCaptureInfo", 11030)(s, ctypes.byref(st), None, None, ctypes.byref(deps),
                                                 ctypes.byref(n)) == 0 and deps[0] == nodes[0]


def test_strings_the_driver_hands_out(ctx):
    p = ctypes.c_char_p()
    assert c_fn("cuGetErrorName")(901, ctypes.byref(p)) == 0 and p.value == b"CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"
    assert c_fn("cuGetErrorName")(123456, ctypes.byref(p)) == 1 and p.value is None
    buf = ctypes.create_string_buffer(8)
    assert c_fn("cuDeviceGetName")(buf, 8, 0) == 0 and buf.value == ctx.devices[0].spec.name.encode()[:7]


def test_a_simulator_bug_is_loud_and_never_success(ctx, monkeypatch, capsys):
    monkeypatch.setattr(type(ctx), "stream_query", lambda self, h: 1 / 0)
    assert c_fn("cuStreamQuery")(stream()) == 999
    assert "ZeroDivisionError" in capsys.readouterr().err


def test_every_requested_variant_of_a_simulated_name_is_served():
    """cuCtxCreate at 3020, 11040 and 12050 (three C signatures) each have their adapter; the 11040 form
    (execution-affinity parameters) makes a context like the others."""
    for version in (3020, 11040, 12050):
        assert A.adapter(next(i for i, e in enumerate(ENTRIES) if (e.name, e.version) == ("cuCtxCreate", version)))
    drv = simcuda.reset()
    assert c_fn("cuInit")(0) == 0
    h = ctypes.c_void_p()
    assert c_fn("cuCtxCreate", 11040)(ctypes.byref(h), None, 0, 0, 0) == 0 and h.value
    assert drv.ctx_get_current() == h.value
    assert c_fn("cuCtxCreate", 11040)(None, None, 0, 0, 0) == 1  # NULL pctx
    assert c_fn("cuCtxCreate", 11040)(ctypes.byref(h), None, 0, 0, 7) == 101  # no device 7


def test_native_forms_read_struct_fields_records_and_c_strings(ctx):
    """Adapters built from the native forms of their rows: a struct's fields (cuArrayCreate, NULL is
    INVALID_VALUE), a UUID written as 16 bytes, a text cut to its buffer, a NULL file name, a record built from
    C arguments (a memset then a copy back to the host), and a struct field written back as an output."""
    desc = C.CUDA_ARRAY_DESCRIPTOR(Width=16, Height=2, Format=1, NumChannels=1)
    arr = ctypes.c_void_p()
    assert c_fn("cuArrayCreate")(ctypes.byref(arr), ctypes.byref(desc)) == 0 and arr.value
    assert c_fn("cuArrayCreate")(ctypes.byref(arr), None) == 1 and "pAllocateArray" in simcuda.last_error().why
    uuid = (ctypes.c_ubyte * 16)()
    assert c_fn("cuDeviceGetUuid")(uuid, 0) == 0 and bytes(uuid) == ctx.device_get_uuid(0)
    buf = ctypes.create_string_buffer(b"x" * 4)
    assert c_fn("cuDeviceGetName")(buf, 3, 0) == 0 and buf.raw[:3] == ctx.devices[0].spec.name.encode()[:2] + b"\0"
    assert buf.raw[3:] == b"x\0"  # nothing past the length given
    mod = ctypes.c_void_p()
    assert c_fn("cuModuleLoad")(ctypes.byref(mod), None) == 1 and mod.value is None
    dptr = ctypes.c_uint64()
    assert c_fn("cuMemAlloc")(ctypes.byref(dptr), 64) == 0
    assert c_fn("cuMemsetD32")(dptr, 0x01020304, 16) == 0
    host = (ctypes.c_ubyte * 8)()
    assert c_fn("cuMemcpyDtoH")(host, dptr, 8) == 0 and list(host) == [4, 3, 2, 1] * 2
    maj, mnr = ctypes.c_int(), ctypes.c_int()
    assert c_fn("cuDeviceComputeCapability")(ctypes.byref(maj), ctypes.byref(mnr), 0) == 0
    assert (maj.value, mnr.value) == tuple(ctx.devices[0].spec.compute_capability)
    g, node = ctypes.c_void_p(), ctypes.c_void_p()
    assert c_fn("cuGraphCreate")(ctypes.byref(g), 0) == 0
    ap = C.CUDA_MEM_ALLOC_NODE_PARAMS()
    ap.poolProps.allocType, ap.poolProps.location.type, ap.bytesize = 1, 1, 256
    assert c_fn("cuGraphAddMemAllocNode")(ctypes.byref(node), g, None, 0, ctypes.byref(ap)) == 0
    assert node.value and ap.dptr  # the node's address, written into the struct's field
