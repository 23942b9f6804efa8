"""simcuda.faces.native.available() and the calls that need a loaded library, without loading it (in-process)."""
from __future__ import annotations

import pytest

import simcuda.faces.native as native
from simcuda.faces.native import _build


@pytest.fixture
def elsewhere(tmp_path, monkeypatch):
    """Point the loader at an empty folder of tmp_path (no library, no build report) and a supported binding."""
    monkeypatch.setattr(native, "LIBRARY", tmp_path / "libcuda.so.1")
    monkeypatch.setattr(native, "_bindings_version", lambda: "13.5.0")
    monkeypatch.setattr(native.sys, "platform", "linux")
    return tmp_path


def test_not_linux(monkeypatch):
    """On another OS the route is unavailable and says which OS it saw."""
    monkeypatch.setattr(native.sys, "platform", "darwin")
    ok, why = native.available()
    assert not ok and "Linux" in why and "darwin" in why


def test_not_built_without_a_report(elsewhere):
    """No library and no build report: 'not built', with the path and how to get it."""
    ok, why = native.available()
    assert not ok and "not built" in why and str(elsewhere) in why and "Python faces" in why


def test_not_built_gives_the_install_time_reason(elsewhere):
    """No library, and the install's report says there was no compiler: available() repeats that reason."""
    _build.write_status(elsewhere, False, "no C compiler: CC is unset and neither cc nor gcc is on PATH", "abc")
    ok, why = native.available()
    assert not ok and "not built at install time" in why and "no C compiler" in why


def test_a_stale_build_is_reported(elsewhere):
    """A library built from other sources than the package's (digest mismatch) must be rebuilt."""
    (elsewhere / "libcuda.so.1").write_bytes(b"")
    _build.write_status(elsewhere, True, "built", "0" * 64)
    ok, why = native.available()
    assert not ok and "other sources" in why


@pytest.mark.parametrize(("version", "supported"), [("13.5.0", True), ("13.5.3", True), ("13.50.0", False),
                                                    ("13.4.1", False), ("12.9.0", False), (None, False)])
def test_supported_binding_versions(elsewhere, monkeypatch, version, supported):
    """13.5.x is supported; any other installed cuda-bindings (or none) is named in the reason."""
    (elsewhere / "libcuda.so.1").write_bytes(b"")
    _build.write_status(elsewhere, True, "built", _build.source_digest())
    monkeypatch.setattr(native, "_bindings_version", lambda: version)
    ok, why = native.available()
    assert ok is supported
    if not supported:
        assert ("not installed" in why) if version is None else (version in why and "13.5.x" in why)


def test_calls_before_load_raise():
    """set_entry, call_counts and lookup_count before load() raise NativeUnavailable, loading nothing."""
    if native.is_loaded():
        pytest.skip("the library is loaded in this process")
    for call in (lambda: native.set_entry(0, False, None), native.call_counts, native.lookup_count):
        with pytest.raises(native.NativeUnavailable, match="load"):
            call()
    assert not native.is_loaded()


def test_find_compiler_honours_cc(monkeypatch):
    """CC names the compiler (split like a shell); a CC that is not on PATH is reported, not guessed around;
    without CC and with no cc/gcc on PATH the reason says so."""
    monkeypatch.setenv("CC", "no-such-compiler-xyz -O1")
    argv, why = _build.find_compiler()
    assert argv is None and "no-such-compiler-xyz" in why
    monkeypatch.delenv("CC")
    monkeypatch.setenv("PATH", "")
    argv, why = _build.find_compiler()
    assert argv is None and "CC is unset" in why


def test_build_without_a_compiler_writes_the_reason(tmp_path, monkeypatch):
    """build() with no compiler returns False, writes no library and leaves the reason in build-status.txt."""
    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(_build.sys, "platform", "linux")
    built, why = _build.build(tmp_path, log=False)
    assert not built and "no C compiler" in why
    assert not (tmp_path / "libcuda.so.1").exists()
    assert (tmp_path / "build-status.txt").read_text().splitlines()[:2] == ["not built", why]
