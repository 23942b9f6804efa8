"""Memory types of captured copies (spec 16, 9): cuMemcpyAsync records UNIFIED sides, typed copies keep theirs."""
from __future__ import annotations

import ctypes

from simcuda.faces.bindings import driver as cu

from .conftest import ok

MT = cu.CUmemorytype
UNIFIED, HOST, DEVICE = MT.CU_MEMORYTYPE_UNIFIED, MT.CU_MEMORYTYPE_HOST, MT.CU_MEMORYTYPE_DEVICE


def params_of(env, g):
    """``CUDA_MEMCPY3D`` of every node of ``g``, creation order."""
    return [ok(cu.cuGraphMemcpyNodeGetParams(n)) for n in env.nodes(g)]


def test_unified_value_is_4():
    """CU_MEMORYTYPE_UNIFIED is 4 in the face's enum (spec 10)."""
    assert int(UNIFIED) == 4


def test_captured_memcpy_async_device_to_device_is_unified_both_sides_and_copies_at_replay(env):
    """A captured device-to-device cuMemcpyAsync reports UNIFIED on both sides and moves the bytes read at replay."""
    src = ok(cu.cuMemAlloc(16))
    g = env.capture(lambda s: ok(cu.cuMemcpyAsync(env.buf, src, 16, s)))
    (p,) = params_of(env, g)
    assert (p.srcMemoryType, p.dstMemoryType) == (UNIFIED, UNIFIED)
    assert (int(p.srcDevice), int(p.dstDevice)) == (int(src), int(env.buf))
    assert p.WidthInBytes == 16 and p.Height == 1 and p.Depth == 1
    ok(cu.cuMemsetD8(src, 7, 16))  # after the capture: the replay must read this
    x = ok(cu.cuGraphInstantiate(g, 0))
    ok(cu.cuGraphLaunch(x, env.s1))
    ok(cu.cuStreamSynchronize(env.s1))
    assert env.read(env.buf) == bytes([7] * 16)


def test_captured_memcpy_async_device_to_host_address_is_unified_and_writes_host_at_replay(env):
    """A captured cuMemcpyAsync into a host address reports UNIFIED sides and writes the host buffer only at replay."""
    host = ctypes.create_string_buffer(16)
    ok(cu.cuMemsetD8(env.buf, 3, 16))
    g = env.capture(lambda s: ok(cu.cuMemcpyAsync(ctypes.addressof(host), env.buf, 16, s)))
    (p,) = params_of(env, g)
    assert (p.srcMemoryType, p.dstMemoryType) == (UNIFIED, UNIFIED)
    assert int(p.dstDevice) == ctypes.addressof(host)
    assert host.raw == bytes(16)  # nothing ran yet
    x = ok(cu.cuGraphInstantiate(g, 0))
    ok(cu.cuGraphLaunch(x, env.s1))
    ok(cu.cuStreamSynchronize(env.s1))
    assert host.raw == bytes([3] * 16)


def test_explicit_copies_keep_their_typed_sides(env):
    """Captured HtoDAsync, DtoHAsync and DtoDAsync report HOST/DEVICE sides, not UNIFIED."""
    src = ok(cu.cuMemAlloc(16))
    host = ctypes.create_string_buffer(16)

    def body(s):
        ok(cu.cuMemcpyHtoDAsync(env.buf, host, 16, s))
        ok(cu.cuMemcpyDtoHAsync(host, env.buf, 16, s))
        ok(cu.cuMemcpyDtoDAsync(env.buf, src, 16, s))
    g = env.capture(body)
    got = [(p.srcMemoryType, p.dstMemoryType) for p in params_of(env, g)]
    assert got == [(HOST, DEVICE), (DEVICE, HOST), (DEVICE, DEVICE)]


def test_unified_params_round_trip_through_set_params(env):
    """Params read from a unified node and set on a typed node make that node report UNIFIED too."""
    src = ok(cu.cuMemAlloc(16))
    g = env.capture(lambda s: (ok(cu.cuMemcpyAsync(env.buf, src, 16, s)),
                               ok(cu.cuMemcpyDtoDAsync(src, env.buf, 16, s))))
    unified_node, typed_node = env.nodes(g)
    p = ok(cu.cuGraphMemcpyNodeGetParams(unified_node))
    ok(cu.cuGraphMemcpyNodeSetParams(typed_node, p))
    q = ok(cu.cuGraphMemcpyNodeGetParams(typed_node))
    assert (q.srcMemoryType, q.dstMemoryType) == (UNIFIED, UNIFIED)
    assert (int(q.srcDevice), int(q.dstDevice)) == (int(src), int(env.buf))


def test_generic_node_params_show_unified(env):
    """cuGraphNodeGetParams of a captured cuMemcpyAsync node shows UNIFIED in its copyParams."""
    src = ok(cu.cuMemAlloc(16))
    g = env.capture(lambda s: ok(cu.cuMemcpyAsync(env.buf, src, 16, s)))
    (n,) = env.nodes(g)
    np_ = ok(cu.cuGraphNodeGetParams(n))
    cp = np_.memcpy.copyParams
    assert (cp.srcMemoryType, cp.dstMemoryType) == (UNIFIED, UNIFIED)


def test_uncaptured_memcpy_async_still_copies(env):
    """Outside capture cuMemcpyAsync between device allocations copies at once (immediate progression)."""
    src = ok(cu.cuMemAlloc(16))
    ok(cu.cuMemsetD8(src, 9, 16))
    ok(cu.cuMemcpyAsync(env.buf, src, 16, env.s1))
    assert env.read(env.buf) == bytes([9] * 16)
