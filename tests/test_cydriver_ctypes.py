"""The ctypes mirror of cydriver.pxd (simcuda/_generated/cydriver_ctypes.py) matches the wheel and the C headers."""
from __future__ import annotations

import ctypes
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import simcuda._generated.cydriver_ctypes as cd
from simcuda._generated.entry_table import ENTRIES

ROOT = Path(__file__).resolve().parent.parent
HAVE_WHEEL = importlib.util.find_spec("cuda.bindings") is not None
WHEEL_135 = HAVE_WHEEL and importlib.metadata.version("cuda-bindings").startswith("13.5.")
needs_wheel = pytest.mark.skipif(not HAVE_WHEEL, reason="cuda-bindings is not installed (it is in the test extra)")

RECORD = (ctypes.Structure, ctypes.Union)
SYNTHETIC = re.compile(r"_anon\d+$")  # the anonymous unions the generator makes (C never names them)


def records(aliases: bool = False) -> dict[str, type[ctypes.Structure] | type[ctypes.Union]]:
    """Every complete record class of the module by its own name (and with ``aliases`` by each typedef name)."""
    return {name: obj for name, obj in vars(cd).items()
            if isinstance(obj, type) and issubclass(obj, RECORD) and "_fields_" in vars(obj)
            and (aliases or obj.__name__ == name)}


def members(cls: type[ctypes.Structure] | type[ctypes.Union], base: int = 0) -> Iterator[tuple[str, int, type]]:
    """``(name, offset, ctypes type)`` of each C member, the members of anonymous unions in place of the union."""
    anonymous = set(getattr(cls, "_anonymous_", ()))
    for name, ftype, *_bits in cls._fields_:
        field = getattr(cls, name)
        if name in anonymous:
            yield from members(ftype, base + field.offset)
        else:
            yield name, base + field.offset, ftype


@pytest.mark.skipif(not WHEEL_135, reason="the module is generated from cuda-bindings 13.5's cydriver.pxd")
def test_module_is_fresh_against_the_installed_wheel():
    """tools/gen_cydriver_ctypes.py --check: the module equals what the wheel's cydriver.pxd gives (the generator
    also refuses to write when a record's size differs from the wheel's own sizeof)."""
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_cydriver_ctypes.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_one_prototype_per_entry_with_the_declared_arity():
    """PROTOTYPES pairs with ENTRIES by position: 526 function types returning CUresult, one argtype per C param."""
    assert len(cd.PROTOTYPES) == len(ENTRIES) == 526
    for proto, entry in zip(cd.PROTOTYPES, ENTRIES, strict=True):
        assert proto._restype_ is cd.CUresult is ctypes.c_int
        assert len(proto._argtypes_) == len(entry.params), entry


def test_every_prototype_wraps_a_python_callable():
    """PROTOTYPES[i](f) makes a C function pointer for every entry (struct-by-value parameters included)."""
    for proto in cd.PROTOTYPES:
        assert ctypes.cast(proto(lambda *args: 0), ctypes.c_void_p).value


def test_a_callback_sees_c_arguments_and_returns_its_code():
    """Called through C, an adapter gets the pointer arguments as ctypes pointers and a struct by value as the
    struct, and its return value is the CUresult the caller sees."""
    by = {(e.name, e.version): i for i, e in enumerate(ENTRIES)}
    got: dict[str, object] = {}

    def get_version(p: ctypes._Pointer[ctypes.c_int]) -> int:
        p[0] = 13050
        return 0

    def advise(ptr: int, count: int, advice: int, loc: cd.CUmemLocation) -> int:
        got["advise"] = (ptr, count, advice, loc.type, loc.id)
        return 1

    version = ctypes.c_int()
    assert cd.PROTOTYPES[by[("cuDriverGetVersion", 2020)]](get_version)(ctypes.byref(version)) == 0
    assert version.value == 13050
    loc = cd.CUmemLocation(type=1, id=3)
    assert cd.PROTOTYPES[by[("cuMemAdvise", 12020)]](advise)(0x1000, 64, 2, loc) == 1
    assert got["advise"] == (0x1000, 64, 2, 1, 3)


def test_handles_scalars_and_function_pointers_have_c_types():
    """Handles are c_void_p, CUdeviceptr is the pxd's unsigned long long, enums are int, callbacks are CFUNCTYPEs."""
    assert cd.CUstream is cd.CUgraph is cd.CUcontext is ctypes.c_void_p
    assert cd.CUdeviceptr is ctypes.c_ulonglong and cd.cuuint64_t is ctypes.c_uint64
    assert cd.CUstreamCaptureStatus is ctypes.c_int
    assert cd.CUhostFn._restype_ is None and cd.CUhostFn._argtypes_ == (ctypes.c_void_p,)
    assert cd.CUstreamCallback._argtypes_ == (ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)


def test_anonymous_unions_overlay_their_members():
    """The unions the pxd flattens overlay in C: CUgraphNodeParams' kernel and memcpy share offset 16, reserved2
    follows the 232-byte union; CUdevResource points to itself after its union."""
    p = cd.CUgraphNodeParams
    assert p.kernel.offset == p.memcpy.offset == p.asBytes.offset == 16 and p.reserved2.offset == 248
    assert ctypes.sizeof(p) == 256
    r = cd.CUdevResource
    assert r.sm.offset == r.wq.offset == 96 and r.nextResource.offset == 136
    node = r()
    node.nextResource = ctypes.pointer(r())
    assert ctypes.sizeof(r) == 144 and node.nextResource.contents.type == 0


@needs_wheel
def test_sizes_match_the_wheel():
    """ctypes.sizeof of every record the wheel can size equals cuda.bindings.driver.sizeof (the wheel's compiled
    sizeof against the 13.5 headers)."""
    from cuda.bindings import driver
    compared, bad = 0, []
    for name, cls in records(aliases=True).items():
        real = getattr(driver, name, None)
        if real is None:
            continue
        try:
            size = driver.sizeof(real)
        except TypeError:
            continue
        compared += 1
        if ctypes.sizeof(cls) != size:
            bad.append((name, ctypes.sizeof(cls), size))
    assert bad == [] and compared >= 240, (compared, bad)


def probe_offset(wrapper: object, name: str, ftype: type, size: int) -> int | None:
    """Where the wheel's struct wrapper keeps member ``name``: from the member's own ``getPtr()`` (nested records,
    handles, function pointers: not pointers, whose wrappers point at the pointee), or by writing a small int and
    finding the byte that changed; None when neither works (enums, arrays)."""
    base = wrapper.getPtr()  # type: ignore[attr-defined]
    try:
        value = getattr(wrapper, name)
    except Exception:  # noqa: BLE001 - a member the wrapper cannot read on a zeroed struct
        return None
    if hasattr(value, "getPtr"):
        if issubclass(ftype, ctypes._Pointer):
            return None
        return int(value.getPtr()) - int(base)
    if type(value) is not int:
        return None
    before = ctypes.string_at(base, size)
    try:
        setattr(wrapper, name, 0x5A)
    except Exception:  # noqa: BLE001
        return None
    after = ctypes.string_at(base, size)
    setattr(wrapper, name, value)
    diff = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    return diff[0] if diff else None


@needs_wheel
def test_member_offsets_match_the_wheel():
    """Every member whose place the wheel's struct wrappers reveal sits at the same offset in ctypes."""
    from cuda.bindings import driver
    compared, bad = 0, []
    for name, cls in records().items():
        real = getattr(driver, name, None)
        if real is None or SYNTHETIC.search(name):
            continue
        try:
            wrapper = real()
        except Exception:  # noqa: BLE001 - the wheel has no standalone wrapper for some nested records
            continue
        for member, offset, ftype in members(cls):
            got = probe_offset(wrapper, member, ftype, ctypes.sizeof(cls))
            if got is None:
                continue
            compared += 1
            if got != offset:
                bad.append((name, member, offset, got))
    assert bad == [] and compared >= 300, (compared, bad)


def cuda_h() -> Path | None:
    for root in [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda", *sorted(Path("/usr/local").glob("cuda-*"))]:
        if root and (Path(root) / "include" / "cuda.h").exists():
            return Path(root) / "include"
    return None


def c_program(classes: dict[str, type[ctypes.Structure] | type[ctypes.Union]]) -> tuple[str, dict[int, str]]:
    """A C++ program printing ``name - sizeof`` and ``name member offsetof`` per record, and line -> record."""
    head = ["#include <cstddef>", "#include <cstdio>", "#include <type_traits>", "#include <cuda.h>", "int main() {"]
    lines, owner = list(head), {}
    for name, cls in classes.items():
        spell = cd.C_NAMES.get(name, name)
        stmts = [f'std::printf("{name} - %zu\\n", sizeof({spell}));']
        stmts += [f'std::printf("{name} {m} %zu\\n", offsetof({spell}, {m}));' for m, _o, _t in members(cls)]
        for s in stmts:
            lines.append("  " + s)
            owner[len(lines)] = name
    lines += ["  return 0;", "}", ""]
    return "\n".join(lines), owner


@pytest.mark.skipif(shutil.which("g++") is None or cuda_h() is None, reason="needs g++ and a CUDA toolkit's cuda.h")
def test_layouts_match_cuda_h(tmp_path: Path):
    """sizeof and every member's offsetof, compiled from the toolkit's cuda.h, equal ctypes' for each record that
    header declares in full (a toolkit older than 13.5 lacks some records and members: those are left out)."""
    include = cuda_h()
    classes = {n: c for n, c in records().items() if not SYNTHETIC.search(n)}
    for _attempt in range(4):
        src, owner = c_program(classes)
        (tmp_path / "layouts.cpp").write_text(src)
        r = subprocess.run(["g++", "-std=c++17", "-w", f"-I{include}", "-o", str(tmp_path / "layouts"),
                            str(tmp_path / "layouts.cpp")], capture_output=True, text=True)
        if r.returncode == 0:
            break
        failed = {owner[int(n)] for n in re.findall(r"layouts\.cpp:(\d+):\d+: error", r.stderr) if int(n) in owner}
        assert failed, r.stderr[-3000:]
        classes = {n: c for n, c in classes.items() if n not in failed}
    else:
        pytest.fail("the layout program did not compile")
    out = subprocess.run([str(tmp_path / "layouts")], capture_output=True, text=True, check=True).stdout
    bad, compared = [], 0
    for line in out.splitlines():
        name, member, value = line.split()
        cls = classes[name]
        mine = ctypes.sizeof(cls) if member == "-" else {m: o for m, o, _t in members(cls)}[member]
        compared += 1
        if mine != int(value):
            bad.append((name, member, mine, int(value)))
    assert bad == [] and len(classes) >= 60, (len(classes), compared, bad)
