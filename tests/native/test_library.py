"""libcuda.so.1 itself, called through ctypes: the lookup rules, the slots, the stubs and the direct exports.

Each test loads the library in a subprocess (tests/native/conftest.py); they skip, with the reason
simcuda.faces.native.available() gives, where the library was not built.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from simcuda._generated.entry_table import ENTRIES

ROOT = Path(__file__).resolve().parents[2]
SUCCESS, SYMBOL_NOT_FOUND, VERSION_NOT_SUFFICIENT = 0, 1, 2


def test_entries_header_is_fresh():
    """simcuda/faces/native/entries.h equals what tools/gen_native_entries.py renders from the entry table."""
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_native_entries.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_load_is_idempotent_and_the_table_is_the_packages(native_run):
    """load() twice gives one handle; the library lists the 526 pairs of ENTRIES in order, with the soname."""
    out = native_run("""
        out["same"] = native.load() is lib
        out["loaded"] = native.is_loaded()
        out["n"] = lib.simcuda_entry_count()
        out["first"] = [lib.simcuda_entry_name(0).decode(), lib.simcuda_entry_version(0)]
        out["noload"] = ctypes.CDLL("libcuda.so.1", mode=os.RTLD_NOLOAD)._handle == lib._handle
    """)
    assert out == {"same": True, "loaded": True, "n": len(ENTRIES), "first": [ENTRIES[0].name, ENTRIES[0].version],
                   "noload": True}


def test_found_at_its_version_and_the_newest_older_variant_above_it(native_run):
    """cuCtxCreate is in the table at 3020, 11040 and 12050: each request gets the newest at or below it."""
    out = native_run("""
        for v in (3020, 11039, 11040, 12049, 12050, 13050):
            out[str(v)] = ask("cuCtxCreate", v)
        i = {v: native.index_of("cuCtxCreate", v) for v in (3020, 11040, 12050)}
        # the stubs are distinct per entry: the pointer says which variant was chosen
        out["ptr"] = {str(v): ask("cuCtxCreate", v)[1] for v in (3020, 11040, 12050)}
    """)
    p = out["ptr"]
    assert len(set(p.values())) == 3
    assert out["3020"] == [0, p["3020"], SUCCESS]
    assert out["11039"] == [0, p["3020"], SUCCESS]
    assert out["11040"] == [0, p["11040"], SUCCESS]
    assert out["12049"] == [0, p["11040"], SUCCESS]
    assert out["12050"] == out["13050"] == [0, p["12050"], SUCCESS]


def test_not_found_and_version_not_sufficient(native_run):
    """An unknown name: CUDA_SUCCESS, NULL, SYMBOL_NOT_FOUND; a name only at higher versions: VERSION_NOT_SUFFICIENT.
    The status-less v1 entry answers both with CUDA_ERROR_NOT_FOUND (500) and NULL."""
    out = native_run("""
        out["unknown"] = ask("cuNoSuchThing", 13000)
        out["too_old"] = ask("cuCtxCreate", 3010)
        out["v1_unknown"] = ask_v1("cuNoSuchThing", 13000)
        out["v1_too_old"] = ask_v1("cuCtxCreate", 3010)
        out["v1_found"] = ask_v1("cuCtxCreate", 12050)[0]
        pfn = ctypes.c_void_p()
        out["no_status"] = v2(b"cuCtxCreate", ctypes.byref(pfn), 12050, 0, None)
    """)
    assert out["unknown"] == [0, None, SYMBOL_NOT_FOUND]
    assert out["too_old"] == [0, None, VERSION_NOT_SUFFICIENT]
    assert out["v1_unknown"] == out["v1_too_old"] == [500, None]
    assert out["v1_found"] == 0 and out["no_status"] == 0


def test_invalid_values_leave_the_outputs_alone(native_run):
    """A version above the reported driver version, flags outside 0..2, a NULL symbol or pfn: 1
    (CUDA_ERROR_INVALID_VALUE) and the status untouched."""
    out = native_run("""
        out["above_driver"] = ask("cuCtxCreate", 13060)
        out["flags"] = ask("cuCtxCreate", 12050, flags=4)
        pfn, status = ctypes.c_void_p(), ctypes.c_int(-1)
        out["null_symbol"] = v2(None, ctypes.byref(pfn), 12050, 0, ctypes.byref(status))
        out["null_pfn"] = v2(b"cuCtxCreate", None, 12050, 0, ctypes.byref(status))
        out["status"] = status.value
    """)
    assert out["above_driver"] == out["flags"] == [1, None, -1]
    assert out["null_symbol"] == out["null_pfn"] == 1 and out["status"] == -1


def test_registered_entry_and_the_per_thread_slot(native_run):
    """set_entry fills the default slot (flags 0 and 1) and the per-thread one (flags 2); flags 2 falls back to
    the default slot where no per-thread function is set; None puts the stub back. The pointers handed out
    are trampolines through the slots: one taken before a registration reaches the function registered later."""
    out = native_run("""
        T = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int))
        def answer(value):
            def cb(s, o):
                o[0] = value
                return 0
            return T(cb)
        legacy, ptds = answer(11), answer(22)
        def call(flags):
            f = T(ask("cuStreamIsCapturing", 13000, flags)[1])
            v = ctypes.c_int(-1)
            return [f(None, ctypes.byref(v)), v.value]
        early = T(ask("cuStreamIsCapturing", 13000, 0)[1])  # taken before anything is registered
        i = native.index_of("cuStreamIsCapturing", 10000)
        out["stub"] = call(0)
        native.set_entry(i, False, legacy)
        out["fallback"] = call(2)
        native.set_entry(i, True, ptds)
        out["flags"] = [call(f) for f in (0, 1, 2)]
        v = ctypes.c_int(-1)
        out["early"] = [early(None, ctypes.byref(v)), v.value]
        native.set_entry(i, False, None)
        native.set_entry(i, True, None)
        out["reset"] = call(2)
        try:
            native.set_entry(len(native.ENTRIES), False, legacy)
        except IndexError:
            out["range"] = "IndexError"
    """)
    assert out["stub"] == [801, -1]
    assert out["fallback"] == [0, 11]
    assert out["flags"] == [[0, 11], [0, 11], [0, 22]]
    assert out["early"] == [0, 11]
    assert out["reset"] == [801, -1] and out["range"] == "IndexError"


def test_after_shutdown_every_entry_answers_deinitialized_in_c(native_run):
    """simcuda_shutdown() (registered with atexit by load()) makes every handed-out entry answer
    CUDA_ERROR_DEINITIALIZED (4) in C, without calling its slot, as the real driver answers while the process
    shuts it down (issue 19 item 4: never a silent success that did nothing); is_shut_down() says so. The entries
    that free answer CUDA_SUCCESS (what cuda.core's destructors free as Python finalizes goes with the process)."""
    out = native_run("""
        T = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int))
        calls = []
        cb = T(lambda s, o: calls.append(1) or 0)
        native.set_entry(native.index_of("cuStreamIsCapturing", 10000), False, cb)
        f = T(ask("cuStreamIsCapturing", 13000, 0)[1])
        out["before"] = [f(None, None), native.is_shut_down()]
        native.load().simcuda_shutdown()
        v = ctypes.c_int(-1)
        out["after"] = [f(None, None), T(ask("cuGraphLaunch", 13000, 0)[1])(None, None),
                        lib.cuDriverGetVersion(ctypes.byref(v)), v.value, native.is_shut_down()]
        out["calls"] = len(calls)
        D = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
        out["releases"] = [D(ask(n, 13000, 0)[1])(None) for n in ("cuStreamDestroy", "cuMemFree", "cuModuleUnload")]
    """)
    assert out["before"] == [0, False] and out["after"] == [4, 4, 4, -1, True] and out["calls"] == 1
    assert out["releases"] == [0, 0, 0]  # what the process frees as it ends goes with it (native.RELEASES, P-78)


def test_a_stub_answers_801_and_counts_its_calls(native_run):
    """An entry with no adapter answers 801 whatever its arguments; call_counts() lists it with its count, only
    the entries called; reset_call_counts() clears them."""
    out = native_run("""
        pfn = ask("cuGraphLaunch", 13000)[1]
        f = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(pfn)
        out["rc"] = [f(None, None), f(1, 2), f(3, 4)]
        g = ctypes.CFUNCTYPE(ctypes.c_int)(ask("cuCtxSynchronize", 2000)[1])
        out["rc"].append(g())
        out["counts"] = sorted([n, v, c] for (n, v), c in native.call_counts().items())
        native.reset_call_counts()
        out["after"] = native.call_counts()
        out["lookups"] = native.lookup_count()
    """)
    assert out["rc"] == [801, 801, 801, 801]
    assert out["counts"] == [["cuCtxSynchronize", 2000, 1], ["cuGraphLaunch", 10000, 3]]
    assert out["after"] == {} and out["lookups"] == 2


def test_direct_exports(native_run):
    """cuDriverGetVersion writes the version set (13050 by default, DRIVER_VERSION of the core), 1 for NULL;
    cuInit and cuGetExportTable answer 801 and count until an adapter is registered; the table's
    cuDriverGetVersion and cuGetProcAddress entries are the library's own functions."""
    out = native_run("""
        v = ctypes.c_int()
        out["version"] = [lib.cuDriverGetVersion(ctypes.byref(v)), v.value]
        native.set_driver_version(12080)
        out["set"] = [lib.cuDriverGetVersion(ctypes.byref(v)), v.value]
        out["lookup_above"] = ask("cuCtxCreate", 12090)[0]
        out["null"] = lib.cuDriverGetVersion(None)
        out["init"] = lib.cuInit(0)
        out["export_table"] = lib.cuGetExportTable(None, None)
        out["counts"] = sorted([n, c] for (n, _v), c in native.call_counts().items())
        addr = lambda name: ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
        entry = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int))(ask("cuDriverGetVersion", 2020)[1])
        v.value = 0
        out["own"] = [entry(ctypes.byref(v)), v.value,
                      ask("cuGetProcAddress", 12000)[1] == addr("cuGetProcAddress_v2")]
        T = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint)
        init = T(lambda flags: 0 if flags == 0 else 1)
        native.set_entry(native.index_of("cuInit", 2000), False, init)
        out["init_registered"] = [lib.cuInit(0), lib.cuInit(5)]
    """)
    from simcuda._core.state import DRIVER_VERSION
    assert out["version"] == [0, DRIVER_VERSION]
    assert out["set"] == [0, 12080] and out["lookup_above"] == 1 and out["null"] == 1
    assert out["init"] == out["export_table"] == 801
    assert out["counts"] == [["cuGetExportTable", 1], ["cuInit", 1]]
    assert out["own"] == [0, 12080, True]
    assert out["init_registered"] == [0, 1]


def test_another_libcuda_already_loaded_is_refused(native_run, tmp_path):
    """With some other libcuda.so.1 already in the process (a real driver), load() refuses: the route needs a
    process of its own."""
    import shutil

    import simcuda.faces.native as native
    other = tmp_path / "libcuda.so.1"
    shutil.copy(native.LIBRARY, other)
    script = f"""
import ctypes, os, simcuda.faces.native as native
ctypes.CDLL({str(other)!r}, mode=os.RTLD_GLOBAL)
try:
    native.load()
except native.NativeUnavailable as e:
    print("REFUSED", e)
"""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "REFUSED" in r.stdout and "process of its own" in r.stdout
