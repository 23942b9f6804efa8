"""Build step of simcuda's native library (the rest of the metadata is in pyproject.toml).

``build_py`` also compiles ``simcuda/faces/native/libcuda.c`` into ``libcuda.so.1`` with the system C compiler:
into the build tree for a normal install, into the source tree for an editable one (where the package
finds it). Without a compiler, or on another OS, the install still succeeds; the reason is printed and kept
in ``simcuda/faces/native/build-status.txt`` for ``simcuda.faces.native.available()`` to report.
"""
from __future__ import annotations

import importlib.util
import pathlib
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent
NATIVE = ROOT / "simcuda" / "faces" / "native"


def _builder():  # type: ignore[no-untyped-def]
    """simcuda/faces/native/_build.py, loaded by path (the package's dependencies need not be importable here)."""
    spec = importlib.util.spec_from_file_location("_simcuda_native_build", NATIVE / "_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


class BuildPyWithNative(build_py):
    """build_py, then the native library next to the package's modules."""

    def run(self) -> None:
        super().run()
        editable = getattr(self, "editable_mode", False)
        target = NATIVE if editable else pathlib.Path(self.build_lib) / "simcuda" / "faces" / "native"
        _builder().build(target, NATIVE)


class PlatformDistribution(Distribution):
    """A wheel that may hold a compiled library is tagged for its platform, not ``py3-none-any``."""

    def has_ext_modules(self) -> bool:
        return sys.platform.startswith("linux")


setup(cmdclass={"build_py": BuildPyWithNative}, distclass=PlatformDistribution)
