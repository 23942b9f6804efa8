"""The generated enum modules agree with the cuda-bindings 13.5.0 API data and wheel.

Run with the repository root on ``sys.path`` (e.g. ``PYTHONPATH=. pytest``).
Tests that compare against the real ``cuda.bindings`` modules skip when the
wheel is not installed; tests against the JSON data skip when it is absent.
"""

import importlib
import importlib.util
import json
import os
import pickle
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from simcuda._generated import _base, driver_enums, nvrtc_enums, runtime_enums, v2_enums

REPO_ROOT = Path(__file__).resolve().parent.parent
API_JSON = Path(
    os.environ.get(
        "SIMCUDA_API_JSON",
        REPO_ROOT / "tools" / "data" / "cuda-bindings-13.5.0-api.json",
    )
)

OURS = {
    "cuda.bindings.driver": driver_enums,
    "cuda.bindings.runtime": runtime_enums,
    "cuda.bindings.nvrtc": nvrtc_enums,
    "cuda.bindings._v2.driver": v2_enums,
}
MODULES = sorted(OURS)


@pytest.fixture(scope="module")
def api():
    """The cuda-bindings API JSON, or skip when it is not available."""
    if not API_JSON.is_file():
        pytest.skip(f"API data not found at {API_JSON}")
    with open(API_JSON, encoding="utf-8") as fh:
        return json.load(fh)


def real_module(name):
    """Import a real cuda.bindings module, skipping the test unless cuda-bindings 13.5.x is installed."""
    bindings = pytest.importorskip("cuda.bindings")
    version = getattr(bindings, "__version__", "?")
    if not version.startswith("13.5."):
        pytest.skip(f"installed cuda-bindings is {version}, the data is for 13.5.0")
    return pytest.importorskip(name)


def real_enum_names(mod):
    """Names of the FastEnum classes a real cuda.bindings module exposes."""
    fast_enum = importlib.import_module("cuda.bindings._internal._fast_enum").FastEnum
    return {
        n
        for n, obj in vars(mod).items()
        if isinstance(obj, type) and issubclass(obj, fast_enum) and obj is not fast_enum and not n.startswith("_")
    }


def members(cls):
    """A name -> int mapping of every member name of an enum class, aliases included."""
    return {name: int(member) for name, member in cls.__members__.items()}


# --- the JSON data agrees with the installed wheel ---------------------------------


@pytest.mark.parametrize("modname", MODULES)
def test_json_matches_wheel(api, modname):
    """Every enum and int constant in the JSON exists in the real module with the same names and values."""
    mod = real_module(modname)
    data = api["modules"][modname]
    for enum_name, expected in data["enums"].items():
        assert members(getattr(mod, enum_name)) == expected, enum_name
    for const, value in data["int_constants"].items():
        real = getattr(mod, const)
        assert type(real) is int and real == value, const


@pytest.mark.parametrize("modname", MODULES)
def test_json_lists_every_wheel_enum_and_constant(api, modname):
    """The JSON lists every public enum class and every public plain-int constant of the real module."""
    mod = real_module(modname)
    data = api["modules"][modname]
    assert real_enum_names(mod) == set(data["enums"])
    public_ints = {n for n, obj in vars(mod).items() if type(obj) is int and not n.startswith("_")}
    assert public_ints == set(data["int_constants"])


def test_json_v2_exceptions_match_wheel(api):
    """Every exception class named in the JSON exists in the real _v2 module with the listed mro."""
    mod = real_module("cuda.bindings._v2.driver")
    listed = api["v2_exceptions"]
    for name, mro in listed.items():
        assert [c.__name__ for c in getattr(mod, name).__mro__[1:]] == mro, name
    real = {n for n, obj in vars(mod).items() if isinstance(obj, type) and issubclass(obj, BaseException)}
    assert real == set(listed)


# --- the generated modules agree with the JSON (no wheel needed) -------------------


@pytest.mark.parametrize("modname", MODULES)
def test_generated_matches_json(api, modname):
    """Our module defines exactly the JSON's enums (same members and values) and int constants."""
    ours = OURS[modname]
    data = api["modules"][modname]
    assert set(ours.__all_enums__) == set(data["enums"])
    for enum_name, expected in data["enums"].items():
        cls = getattr(ours, enum_name)
        assert ours.__all_enums__[enum_name] is cls
        assert issubclass(cls, _base.SimEnum) and cls.__name__ == enum_name
        assert members(cls) == expected, enum_name
    assert ours.__int_constants__ == data["int_constants"]
    for const, value in data["int_constants"].items():
        assert type(getattr(ours, const)) is int and getattr(ours, const) == value, const


def test_generated_files_up_to_date(api):
    """Re-running tools/gen_enums.py on the JSON would not change any generated file."""
    spec = importlib.util.spec_from_file_location("_gen_enums_under_test", REPO_ROOT / "tools" / "gen_enums.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    for filename, text in gen.generate(api).items():
        path = REPO_ROOT / "simcuda" / "_generated" / filename
        assert path.read_text(encoding="utf-8") == text, f"{path} is stale; run tools/gen_enums.py"


def test_v2_exceptions_follow_naming_rule(api):
    """V2_EXCEPTIONS names every JSON exception class once and pairs it with the CUresult code its name encodes."""
    table = dict(v2_enums.V2_EXCEPTIONS)
    assert len(table) == len(v2_enums.V2_EXCEPTIONS)
    assert set(table) == set(api["v2_exceptions"])
    assert table["DriverError"] is None
    special = {"FILE_NOT_FOUND": "DriverFileNotFoundError", "TIMEOUT": "DriverTimeoutError",
               "HARDWARE_STACK_ERROR": "HardwareStackError"}
    expected = {"DriverError": None}
    for name, code in api["modules"]["cuda.bindings.driver"]["enums"]["CUresult"].items():
        if name.startswith("CUDA_ERROR_"):
            rest = name[len("CUDA_ERROR_"):]
            cls = special.get(rest) or "".join(p.capitalize() for p in rest.split("_")) + "Error"
            expected[cls] = code
    assert table == expected


# --- the generated modules agree with the installed wheel --------------------------


@pytest.mark.parametrize("modname", MODULES)
def test_enums_match_wheel(api, modname):
    """Every real enum listed in the JSON exists in ours with identical member names and values."""
    mod = real_module(modname)
    ours = OURS[modname]
    for enum_name in sorted(real_enum_names(mod) & set(api["modules"][modname]["enums"])):
        assert members(getattr(ours, enum_name)) == members(getattr(mod, enum_name)), enum_name


@pytest.mark.parametrize("modname", MODULES)
def test_canonical_names_match_wheel(modname):
    """Looking a value up returns the same canonical member name as the real enum, aliases included."""
    mod = real_module(modname)
    ours = OURS[modname]
    for enum_name, cls in ours.__all_enums__.items():
        real_cls = getattr(mod, enum_name)
        assert len(cls) == len(real_cls), enum_name
        assert {int(m) for m in cls} == {int(m) for m in real_cls}, enum_name
        for name in real_cls.__members__:
            value = int(getattr(real_cls, name))
            assert cls(value).name == real_cls(value).name, f"{enum_name}({value})"
            assert getattr(cls, name) is cls(value)


@pytest.mark.parametrize("modname", MODULES)
def test_int_constants_match_wheel(modname):
    """Every module-level int constant of ours equals the real module's, and both are plain ints."""
    mod = real_module(modname)
    for const, value in OURS[modname].__int_constants__.items():
        assert type(getattr(mod, const)) is int and getattr(mod, const) == value, const


@pytest.mark.parametrize("modname", MODULES)
def test_module_level_member_names_match_wheel(modname):
    """An enum member name is a module-level name in ours exactly when it is one in the real module."""
    mod = real_module(modname)
    ours = OURS[modname]
    for enum_name, cls in ours.__all_enums__.items():
        for name in cls.__members__:
            assert hasattr(ours, name) == hasattr(mod, name), f"{enum_name}.{name}"


@pytest.mark.parametrize("modname", MODULES)
def test_text_forms_match_wheel(modname):
    """repr, str, format, %-formatting, name, value and int of every member equal the real enum's."""
    mod = real_module(modname)
    for enum_name, cls in OURS[modname].__all_enums__.items():
        real_cls = getattr(mod, enum_name)
        assert repr(cls) == repr(real_cls)
        for name in real_cls.__members__:
            ours, real = getattr(cls, name), getattr(real_cls, name)
            # printf-style formatting is part of what is compared (UP031 would rewrite it away)
            got = (repr(ours), str(ours), format(ours), format(ours, "d"), format(ours, ">12"), f"{ours}",
                   "%s" % ours, "%d" % ours, ours.name, ours.value, type(ours.value), int(ours))  # noqa: UP031
            want = (repr(real), str(real), format(real), format(real, "d"), format(real, ">12"), f"{real}",
                    "%s" % real, "%d" % real, real.name, real.value, type(real.value), int(real))  # noqa: UP031
            assert got == want, f"{enum_name}.{name}"


def test_lookup_errors_and_membership_match_wheel():
    """Invalid-value errors and value membership tests behave like the real enums."""
    mod = real_module("cuda.bindings.driver")
    for cls, real_cls in ((driver_enums.CUresult, mod.CUresult), (driver_enums.CUctx_flags, mod.CUctx_flags)):
        for probe in (0, 1, 4, 3, 99999, -1, "x", 1.0):
            assert (probe in cls) == (probe in real_cls), (cls, probe)
        with pytest.raises(ValueError) as ours:
            cls(99999)
        with pytest.raises(ValueError) as real:
            real_cls(99999)
        assert str(ours.value) == str(real.value)


def _compiler():
    """Path of a C compiler, or None."""
    return shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc") or shutil.which("cc")


_FAKE_LIBCUDA = r"""
#include <stdint.h>
#include <string.h>
int cuInit(unsigned int flags) { return (int)flags; }
int cuDriverGetVersion(int *v) { *v = 13050; return 0; }
int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status) {
    if (status) *status = 0;
    if (!strcmp(sym, "cuInit")) { *pfn = (void *)cuInit; return 0; }
    if (!strcmp(sym, "cuDriverGetVersion")) { *pfn = (void *)cuDriverGetVersion; return 0; }
    if (!strcmp(sym, "cuGetProcAddress")) { *pfn = (void *)cuGetProcAddress_v2; return 0; }
    *pfn = 0; if (status) *status = 1; return 500;
}
int cuGetProcAddress(const char *sym, void **pfn, int ver, uint64_t flags, int *status) {
    return cuGetProcAddress_v2(sym, pfn, ver, flags, status);
}
"""

_PROBE = r"""
import json, sys
import cuda.bindings._v2.driver as v
def raised(code):
    try:
        v.init(code)
    except v.DriverError as exc:
        return type(exc).__name__
    return None
try:
    ok = raised(0) is None and raised(1) == "InvalidValueError"
except BaseException as exc:
    print(repr(exc), file=sys.stderr); sys.exit(3)
if not ok:
    sys.exit(3)
print(json.dumps({int(m): raised(int(m)) for m in v.Result}))
"""


def test_v2_exception_codes_match_wheel(tmp_path):
    """Each _v2 exception class is the one the real _v2 module raises for its code (probed via a fake libcuda whose
    cuInit returns its argument)."""
    real_module("cuda.bindings._v2.driver")
    cc = _compiler()
    if cc is None:
        pytest.skip("no C compiler to build the fake libcuda")
    (tmp_path / "fake.c").write_text(_FAKE_LIBCUDA)
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(tmp_path / "libcuda.so.1"), str(tmp_path / "fake.c")],
                   check=True, capture_output=True)
    os.symlink("libcuda.so.1", tmp_path / "libcuda.so")
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("LD_LIBRARY_PATH")]))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(_PROBE)], env=env, capture_output=True,
                          text=True, timeout=120)
    if proc.returncode == 3:
        pytest.skip(f"could not drive cuda.bindings with the fake libcuda: {proc.stderr.strip()[-300:]}")
    assert proc.returncode == 0, proc.stderr
    raised = {int(code): cls for code, cls in json.loads(proc.stdout).items()}
    expected = {code: cls for cls, code in v2_enums.V2_EXCEPTIONS if code is not None}
    assert raised.pop(0) is None
    assert raised == expected


# --- behaviour that does not need the wheel ----------------------------------------


def test_enum_text_forms_are_fixed_across_python_versions():
    """Members print as the real FastEnum does, whatever the Python version's IntEnum defaults."""
    x = driver_enums.CUresult.CUDA_ERROR_INVALID_VALUE
    text = "<CUresult.CUDA_ERROR_INVALID_VALUE: 1>"
    assert repr(x) == str(x) == format(x) == format(x, "") == f"{x}" == "%s" % x == text  # noqa: UP031 (tested)
    assert format(x, "d") == "%d" % x == "1" and format(x, ">3") == "  1"  # noqa: UP031 (printf-style is tested)
    assert x.name == "CUDA_ERROR_INVALID_VALUE" and x.value == 1 and type(x.value) is int and int(x) == 1
    assert repr(driver_enums.CUresult) == "<enum 'CUresult'>"
    assert pickle.loads(pickle.dumps(x)) is x
    assert 1 in driver_enums.CUresult and 99999 not in driver_enums.CUresult
    with pytest.raises(ValueError, match=r"^99999 is not a valid CUresult$"):
        driver_enums.CUresult(99999)


def test_aliases_resolve_to_canonical_member():
    """Alias names are the same object as the canonical member, which is what value lookups return."""
    flags = driver_enums.CUctx_flags
    assert flags.CU_CTX_BLOCKING_SYNC is flags.CU_CTX_SCHED_BLOCKING_SYNC is flags(4)
    assert repr(flags(4)) == "<CUctx_flags.CU_CTX_SCHED_BLOCKING_SYNC: 4>"
    assert "CU_CTX_BLOCKING_SYNC" in flags.__members__
    assert v2_enums.Array3dFlags(1).name == "LAYERED"
    assert runtime_enums.cudaFabricOpStatusInfo(0).name == "cudaFabricOpStatusInfoSuccess"
