"""The simulated JIT linker (cuLinkCreate/AddData/AddFile/Complete/Destroy) on the Python faces: codes, the state
afterwards, the logs the driver fills, the image valid until cuLinkDestroy, the input types it refuses, and
several PTX inputs merged into one module whose kernels run on the engine (no Python twin)."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

import simcuda
from simcuda._core.modules.linker import LinkState
from simcuda.faces.bindings import driver as d
from simcuda.faces.bindings._v2 import driver as v2
from tests.faces._link_ptx import ADD1, BAD, CALLER, TWICE

R = d.CUresult
J = d.CUjit_option
T = d.CUjitInputType
LOGS = [J.CU_JIT_INFO_LOG_BUFFER, J.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, J.CU_JIT_ERROR_LOG_BUFFER,
        J.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES]


@pytest.fixture
def ctx(drv):
    """The fresh driver with a current context."""
    d.cuInit(0)
    _, dev = d.cuDeviceGet(0)
    d.cuCtxCreate(None, 0, dev)
    return drv


def _text(buf: bytearray) -> str:
    return bytes(buf).split(b"\0", 1)[0].decode()


def _logged_state(size: int = 4096):
    info, err = bytearray(size), bytearray(size)
    e, st = d.cuLinkCreate(4, LOGS, [info, size, err, size])
    assert e == R.CUDA_SUCCESS
    return st, info, err


def _run(mod, name: bytes, n: int, init: np.ndarray, extra: tuple = ()) -> np.ndarray:
    """Launch kernel ``name`` of ``mod`` on one block of ``n`` threads over a copy of ``init``; the result."""
    e, f = d.cuModuleGetFunction(mod, name)
    assert e == R.CUDA_SUCCESS
    _, buf = d.cuMemAlloc(init.nbytes)
    d.cuMemcpyHtoD(buf, init, init.nbytes)
    args = ((buf, *(v for v, _t in extra)), (None, *(t for _v, t in extra)))
    assert d.cuLaunchKernel(f, 1, 1, 1, n, 1, 1, 0, 0, args, 0)[0] == R.CUDA_SUCCESS
    assert d.cuCtxSynchronize()[0] == R.CUDA_SUCCESS
    out = np.empty_like(init)
    d.cuMemcpyDtoH(out, buf, out.nbytes)
    return out


def test_a_ptx_link_fills_the_info_log_and_its_image_runs(ctx):
    """One PTX input links: the info log names the input and the kernel, the image loads and its kernel computes."""
    st, info, err = _logged_state()
    assert d.cuLinkAddData(st, T.CU_JIT_INPUT_PTX, ADD1, len(ADD1), b"add1.ptx", 0, None, None) == (R.CUDA_SUCCESS,)
    e, addr, size = d.cuLinkComplete(st)
    assert e == R.CUDA_SUCCESS and addr and size > len(ADD1) - 1
    assert "add1.ptx" in _text(info) and "kernels: add1" in _text(info) and _text(err) == ""
    e, mod = d.cuModuleLoadData(ctypes.string_at(addr, size))
    assert e == R.CUDA_SUCCESS
    x = np.arange(40, dtype=np.uint32)
    assert (_run(mod, b"add1", 32, x, ((30, ctypes.c_uint32),)) == np.where(x < 30, x + 1, x)).all()


def test_the_image_stays_valid_until_destroy_and_destroy_frees_it(ctx):
    """The image at cubinOut can be loaded by its address until cuLinkDestroy; afterwards the state is gone (400)
    and its images are freed."""
    _, st = d.cuLinkCreate(0, None, None)
    d.cuLinkAddData(st, T.CU_JIT_INPUT_PTX, ADD1, len(ADD1), b"a", 0, None, None)
    addr = d.cuLinkComplete(st)[1]
    e, mod = d.cuModuleLoadData(addr)  # the void* form: the loader reads the image at the address
    assert e == R.CUDA_SUCCESS and d.cuModuleGetFunction(mod, b"add1")[0] == R.CUDA_SUCCESS
    state = ctx.objects[int(st)]
    assert isinstance(state, LinkState) and len(state.images) == 1
    assert d.cuLinkDestroy(st) == (R.CUDA_SUCCESS,)
    assert state.destroyed and state.images == []
    assert d.cuLinkDestroy(st) == (R.CUDA_ERROR_INVALID_HANDLE,)
    assert d.cuLinkComplete(st) == (R.CUDA_ERROR_INVALID_HANDLE, None, None)
    assert d.cuLinkAddData(st, T.CU_JIT_INPUT_PTX, ADD1, len(ADD1), b"a", 0, None, None) == \
        (R.CUDA_ERROR_INVALID_HANDLE,)
    assert "destroyed by cuLinkDestroy" in simcuda.last_error().why
    assert d.cuModuleGetFunction(mod, b"add1")[0] == R.CUDA_SUCCESS  # the module keeps its own copy


def test_a_ptx_syntax_error_is_invalid_ptx_with_the_line_in_the_error_log(ctx):
    """PTX the JIT would not compile: INVALID_PTX (218), the error log names the input and line, nothing added."""
    st, _info, err = _logged_state()
    assert d.cuLinkAddData(st, T.CU_JIT_INPUT_PTX, BAD, len(BAD), b"bad.ptx", 0, None, None) == \
        (R.CUDA_ERROR_INVALID_PTX,)
    assert "bad.ptx" in _text(err) and "line 4" in _text(err)
    assert ctx.objects[int(st)].inputs == []
    no_header = b".entry k() { ret; }\0"
    assert d.cuLinkAddData(st, T.CU_JIT_INPUT_PTX, no_header, len(no_header), b"h", 0, None, None) == \
        (R.CUDA_ERROR_INVALID_PTX,)
    newer = b".version 12.0\n.target sm_80\n.address_size 64\n\0"
    assert d.cuLinkAddData(st, T.CU_JIT_INPUT_PTX, newer, len(newer), b"v", 0, None, None) == \
        (R.CUDA_ERROR_UNSUPPORTED_PTX_VERSION,)
    assert d.cuLinkComplete(st)[0] == R.CUDA_ERROR_INVALID_VALUE  # still no input
    assert "no inputs" in _text(err)


def test_logs_are_cut_to_the_buffer_size_with_their_nul(ctx):
    """A log buffer smaller than the message holds its first size-1 bytes and a NUL; nothing past it is written."""
    info = bytearray(b"\xff" * 32)
    _, st = d.cuLinkCreate(2, [J.CU_JIT_INFO_LOG_BUFFER, J.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES], [info, 16])
    d.cuLinkAddData(st, T.CU_JIT_INPUT_PTX, ADD1, len(ADD1), b"a", 0, None, None)
    assert d.cuLinkComplete(st)[0] == R.CUDA_SUCCESS
    assert info[15] == 0 and len(_text(info)) == 15 and info[16:] == b"\xff" * 16


@pytest.mark.parametrize("kind, data, code", [
    (T.CU_JIT_INPUT_LIBRARY, b"!<arch>\nlibcudadevrt", R.CUDA_ERROR_NOT_SUPPORTED),
    (T.CU_JIT_INPUT_OBJECT, b"\x7fELF\x02rest-of-an-object", R.CUDA_ERROR_NOT_SUPPORTED),
    (T.CU_JIT_INPUT_NVVM, b"BC\xc0\xde-lto-ir", R.CUDA_ERROR_NOT_SUPPORTED),
    (T.CU_JIT_INPUT_CUBIN, b"\x7fELF\x02not-a-cubin-at-all" + b"\0" * 64, R.CUDA_ERROR_INVALID_IMAGE),
])
def test_inputs_without_ptx_are_refused_with_a_why(ctx, kind, data, code):
    """Objects, libraries (libcudadevrt), LTO-IR and unreadable CUBINs are refused, named in the error log."""
    st, _info, err = _logged_state()
    assert d.cuLinkAddData(st, kind, data, len(data), b"input.bin", 0, None, None) == (code,)
    assert ctx.objects[int(st)].inputs == [] and _text(err).startswith("error")
    if code == R.CUDA_ERROR_NOT_SUPPORTED:
        assert "input.bin" in simcuda.last_error().why


def test_a_cubin_whose_ptx_is_known_links(ctx):
    """A completed link's image given back as CU_JIT_INPUT_CUBIN brings its PTX: the second link has the kernel."""
    _, a = d.cuLinkCreate(0, None, None)
    d.cuLinkAddData(a, T.CU_JIT_INPUT_PTX, ADD1, len(ADD1), b"a", 0, None, None)
    _, addr, size = d.cuLinkComplete(a)
    image = ctypes.string_at(addr, size)
    _, b = d.cuLinkCreate(0, None, None)
    assert d.cuLinkAddData(b, T.CU_JIT_INPUT_CUBIN, image, len(image), b"a.cubin", 0, None, None) == \
        (R.CUDA_SUCCESS,)
    _, addr2, size2 = d.cuLinkComplete(b)
    e, mod = d.cuModuleLoadData(ctypes.string_at(addr2, size2))
    assert e == R.CUDA_SUCCESS and d.cuModuleGetFunction(mod, b"add1")[0] == R.CUDA_SUCCESS


def test_two_ptx_inputs_merge_into_one_module_whose_call_resolves(ctx):
    """An .extern function defined by the other input: the merged module has one header and the kernel's call
    runs the other input's function."""
    _, st = d.cuLinkCreate(0, None, None)
    d.cuLinkAddData(st, T.CU_JIT_INPUT_PTX, CALLER, len(CALLER), b"caller.ptx", 0, None, None)
    d.cuLinkAddData(st, T.CU_JIT_INPUT_PTX, TWICE, len(TWICE), b"twice.ptx", 0, None, None)
    e, addr, size = d.cuLinkComplete(st)
    assert e == R.CUDA_SUCCESS
    text = ctypes.string_at(addr, size).decode()
    assert text.count(".version") == 1 and ".extern" not in text
    _, mod = d.cuModuleLoadData(ctypes.string_at(addr, size))
    assert (_run(mod, b"twice_tid", 32, np.zeros(32, np.int32)) == 2 * np.arange(32)).all()


def test_two_strong_definitions_of_one_symbol_do_not_link(ctx):
    """The same function defined (not .weak) by two inputs: INVALID_IMAGE at cuLinkComplete, naming both."""
    _, st = d.cuLinkCreate(0, None, None)
    for name in (b"one.ptx", b"two.ptx"):
        assert d.cuLinkAddData(st, T.CU_JIT_INPUT_PTX, TWICE, len(TWICE), name, 0, None, None)[0] == R.CUDA_SUCCESS
    assert d.cuLinkComplete(st) == (R.CUDA_ERROR_INVALID_IMAGE, None, None)
    assert "one.ptx" in simcuda.last_error().why and "two.ptx" in simcuda.last_error().why


def test_add_file_reads_the_file_and_a_missing_one_is_file_not_found(ctx, tmp_path):
    """cuLinkAddFile takes a PTX file by path (its name in the info log); a missing file is FILE_NOT_FOUND."""
    p = tmp_path / "k.ptx"
    p.write_bytes(ADD1)
    st, info, _err = _logged_state()
    assert d.cuLinkAddFile(st, T.CU_JIT_INPUT_PTX, str(p).encode(), 0, None, None) == (R.CUDA_SUCCESS,)
    assert d.cuLinkAddFile(st, T.CU_JIT_INPUT_PTX, str(tmp_path / "no.ptx").encode(), 0, None, None) == \
        (R.CUDA_ERROR_FILE_NOT_FOUND,)
    assert d.cuLinkComplete(st)[0] == R.CUDA_SUCCESS and "k.ptx" in _text(info)


def test_bad_options_and_arguments_get_the_drivers_codes(ctx):
    """An unknown option, a value out of range, an unknown input type, NULL data or size 0: INVALID_VALUE, and
    no state or input is made; short lists raise the wrapper's RuntimeError."""
    before = len(ctx.objects)
    assert d.cuLinkCreate(1, [J.CU_JIT_OPTIMIZATION_LEVEL], [9]) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert d.cuLinkCreate(1, [J.CU_JIT_TARGET], [12345]) == (R.CUDA_ERROR_INVALID_VALUE, None)
    assert len(ctx.objects) == before
    with pytest.raises(RuntimeError, match="List is too small"):
        d.cuLinkCreate(2, [J.CU_JIT_WALL_TIME], [0.0])
    e, st = d.cuLinkCreate(2, [J.CU_JIT_OPTIMIZATION_LEVEL, J.CU_JIT_TARGET], [4, d.CUjit_target.CU_TARGET_COMPUTE_80])
    assert e == R.CUDA_SUCCESS
    assert d.cuLinkAddData(st, 6, ADD1, len(ADD1), b"a", 0, None, None) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert d.cuLinkAddData(st, T.CU_JIT_INPUT_PTX, None, 10, b"a", 0, None, None) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert d.cuLinkAddData(st, T.CU_JIT_INPUT_PTX, ADD1, 0, b"a", 0, None, None) == (R.CUDA_ERROR_INVALID_VALUE,)
    assert ctx.objects[int(st)].inputs == []


def test_a_link_needs_a_current_context(drv):
    """cuLinkCreate with no current context is INVALID_CONTEXT [I] and makes nothing."""
    d.cuInit(0)
    assert d.cuLinkCreate(0, None, None) == (R.CUDA_ERROR_INVALID_CONTEXT, None)


def test_v2_face_reads_c_arrays_and_writes_the_sizes_back(ctx):
    """_v2 takes the option arrays by address: the logs are filled, the sizes and wall time are written back
    into the value slots, link_complete returns the image as bytes, a destroyed state raises."""
    info = ctypes.create_string_buffer(256)
    keys = (ctypes.c_int * 5)(3, 4, 5, 6, 2)
    vals = (ctypes.c_void_p * 5)(ctypes.addressof(info), 256, 0, 0, None)
    st = v2.link_create_v2(5, ctypes.addressof(keys), ctypes.addressof(vals))
    data = ctypes.create_string_buffer(ADD1, len(ADD1))
    v2.link_add_data_v2(st, 1, ctypes.addressof(data), len(ADD1), b"v2.ptx", 0, 0, 0)
    image = v2.link_complete(st)
    assert isinstance(image, bytes) and b"add1" in image
    text = info.value.decode()
    assert "v2.ptx" in text and vals[1] == len(text) + 1
    assert ctypes.c_float.from_address(ctypes.addressof(vals) + 4 * 8).value >= 0.0
    assert v2.link_destroy(st) is None
    with pytest.raises(v2.InvalidHandleError):
        v2.link_complete(st)
    with pytest.raises(v2.InvalidValueError):
        v2.link_create_v2(1, 0, 0)
