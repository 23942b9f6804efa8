"""``simcuda.patch()``: the faces under NVIDIA's names, nesting, exact restore, with and without cuda-bindings."""
from __future__ import annotations

import asyncio
import importlib
import importlib.abc
import sys

import pytest

import simcuda
import simcuda.faces.bindings.driver as sim_driver
import simcuda.faces.bindings.nvrtc as sim_nvrtc
import simcuda.faces.bindings.runtime as sim_runtime
from simcuda import _patch

NAMES = _patch.PACKAGES + tuple(_patch.FACES)


def cuda_modules() -> dict:
    """The ``sys.modules`` entries the patch touches (absent ones omitted)."""
    return {n: sys.modules[n] for n in NAMES if n in sys.modules}


class _BlockCuda(importlib.abc.MetaPathFinder):
    """A finder that makes ``cuda`` and its submodules unimportable (a machine without cuda-bindings)."""

    def find_spec(self, name, path=None, target=None):
        if name == "cuda" or name.startswith("cuda."):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked by the test)", name=name)
        return None


@pytest.fixture
def no_real_cuda(monkeypatch):
    """Hide NVIDIA's cuda package for the test: no ``cuda*`` in sys.modules and imports blocked."""
    for n in [n for n in sys.modules if n == "cuda" or n.startswith("cuda.")]:
        monkeypatch.delitem(sys.modules, n)
    monkeypatch.setattr(sys, "meta_path", [_BlockCuda(), *sys.meta_path])
    yield


def test_all_import_forms_resolve_to_the_faces():
    """Inside a patch every import form NVIDIA's samples use gives simcuda's faces."""
    with simcuda.patch():
        import cuda.bindings.driver as cuda_drv
        from cuda import cuda, cudart, nvrtc
        from cuda.bindings import driver, runtime
        from cuda.bindings import nvrtc as nvrtc2
        assert cuda_drv is driver is cuda is sim_driver
        assert runtime is cudart is sim_runtime
        assert nvrtc is nvrtc2 is sim_nvrtc
        import cuda.bindings
        assert cuda.bindings.__version__.startswith("13.5")


def test_v2_driver_is_installed_when_simcuda_has_it():
    """``from cuda.bindings._v2 import driver`` gives simcuda's _v2 face."""
    v2 = pytest.importorskip("simcuda.faces.bindings._v2.driver")
    with simcuda.patch():
        from cuda.bindings._v2 import driver
        assert driver is v2
        assert sys.modules["cuda.bindings._v2.driver"] is v2


def test_restore_is_exact_with_the_real_package_imported():
    """With NVIDIA's modules imported first, every sys.modules entry and package attribute comes back."""
    pytest.importorskip("cuda.bindings.driver")
    import cuda
    import cuda.bindings
    import cuda.bindings.driver as real_driver
    before = cuda_modules()
    attrs_before = {k: v for k, v in vars(cuda.bindings).items() if k in ("driver", "runtime", "nvrtc", "_v2")}
    had_cuda_attr = "cuda" in vars(cuda)
    with simcuda.patch():
        import cuda.bindings.driver as d
        assert d is sim_driver
        assert cuda.bindings.driver is sim_driver  # the real package object got the attribute
        assert sys.modules["cuda"] is cuda  # the real namespace package is kept
    assert cuda_modules() == before
    assert {k: v for k, v in vars(cuda.bindings).items() if k in ("driver", "runtime", "nvrtc", "_v2")} == attrs_before
    assert ("cuda" in vars(cuda)) == had_cuda_attr
    import cuda.bindings.driver as again
    assert again is real_driver


def test_real_package_imported_after_the_patch_is_real():
    """Imports after the patch ends give NVIDIA's modules again, not the faces."""
    pytest.importorskip("cuda.bindings.driver")
    with simcuda.patch():
        pass
    import cuda.bindings.driver as d
    assert d is not sim_driver
    assert not d.__name__.startswith("simcuda")  # NVIDIA's module (its file path may contain any word)


def test_pathfinder_stays_importable_under_the_patch():
    """The stand-in ``cuda`` keeps the real namespace path, so ``cuda.pathfinder`` still imports."""
    pytest.importorskip("cuda.pathfinder")
    saved = {n: sys.modules.pop(n) for n in list(sys.modules) if n == "cuda" or n.startswith("cuda.")}
    try:
        with simcuda.patch():
            import cuda.pathfinder
            assert "site-packages" in cuda.pathfinder.__file__ or cuda.pathfinder.__file__
            sys.modules.pop("cuda.pathfinder", None)
    finally:
        for n in [n for n in sys.modules if n == "cuda" or n.startswith("cuda.")]:
            sys.modules.pop(n)
        sys.modules.update(saved)


def test_without_the_real_package(no_real_cuda):
    """On a machine without cuda-bindings the patch creates stand-in packages and removes them after."""
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("cuda.bindings.driver")
    with simcuda.patch():
        from cuda import cuda, cudart
        from cuda.bindings import nvrtc
        assert cuda is sim_driver and cudart is sim_runtime and nvrtc is sim_nvrtc
        assert getattr(sys.modules["cuda"], "__simcuda_stand_in__", False)
    assert not any(n == "cuda" or n.startswith("cuda.") for n in sys.modules)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("cuda.bindings.driver")


def test_nesting_only_outermost_exit_restores(no_real_cuda):
    """An inner exit leaves the faces installed; the outer exit removes them."""
    with simcuda.patch():
        with simcuda.patch():
            assert _patch.active()
        assert sys.modules["cuda.bindings.runtime"] is sim_runtime
        assert _patch.active()
    assert not _patch.active()
    assert "cuda.bindings.runtime" not in sys.modules


def test_exception_inside_restores(no_real_cuda):
    """An exception leaving the block still restores everything."""
    with pytest.raises(ZeroDivisionError), simcuda.patch():
        _ = 1 / 0
    assert "cuda" not in sys.modules and not _patch.active()


def test_driver_argument_is_current_inside_and_restored(no_real_cuda):
    """patch(driver=d) makes d current for the block (yielded by the context manager) and restores the old one."""
    d = simcuda.Driver()
    before = simcuda.current_driver()
    with simcuda.patch(driver=d) as got:
        assert got is d and simcuda.current_driver() is d
        inner = simcuda.Driver()
        with simcuda.patch(driver=inner):
            assert simcuda.current_driver() is inner
        assert simcuda.current_driver() is d
    assert simcuda.current_driver() is before
    with pytest.raises(TypeError):
        simcuda.patch(driver="nope")


def test_decorator_forms(no_real_cuda):
    """@patch(), bare @patch and patch(driver=...) decorate functions (keeping their name) and coroutines."""
    d = simcuda.Driver()

    @simcuda.patch()
    def a(x):
        from cuda.bindings import runtime
        return runtime is sim_runtime, x

    @simcuda.patch
    def b():
        """Doc of b."""
        return "cuda.cudart" in sys.modules

    @simcuda.patch(driver=d)
    def c():
        return simcuda.current_driver()

    @simcuda.patch()
    async def e():
        return "cuda.nvrtc" in sys.modules

    assert a(3) == (True, 3) and a.__name__ == "a"
    assert b() is True and b.__doc__ == "Doc of b."
    assert c() is d and simcuda.current_driver() is not d
    assert asyncio.run(e()) is True
    assert "cuda" not in sys.modules


def test_patched_code_runs_against_the_current_driver(no_real_cuda):
    """Code importing the real names inside the patch drives simcuda's current driver."""
    d = simcuda.Driver()
    with simcuda.patch(driver=d):
        from cuda.bindings import runtime as cudart
        err, s = cudart.cudaStreamCreate()
        assert err == cudart.cudaError_t.cudaSuccess
        assert cudart.cudaStreamBeginCapture(s, 0) == (cudart.cudaError_t.cudaSuccess,)
        assert cudart.cudaStreamEndCapture(s)[0] == cudart.cudaError_t.cudaSuccess
    assert d.stats["captures_ended"] == 1


def test_other_real_submodules_stay_importable_and_are_forgotten_after():
    """Under patch(), a real submodule such as cuda.bindings.utils imports; after the patch it is gone again."""
    import importlib.util
    import sys
    if importlib.util.find_spec("cuda.bindings.utils") is None:
        import pytest
        pytest.skip("NVIDIA's cuda-bindings is not installed")
    before = {n for n in sys.modules if n == "cuda" or n.startswith("cuda.")}
    import simcuda
    with simcuda.patch():
        import cuda.bindings.driver as d
        import cuda.bindings.utils  # noqa: F401
        assert d.__name__ == "simcuda.faces.bindings.driver"
    after = {n for n in sys.modules if n == "cuda" or n.startswith("cuda.")}
    assert after == before


def test_an_inner_patch_cannot_change_the_route():
    """The outermost patch decides the route: an inner one asking for another is refused with the reason, and
    the outer patch goes on unchanged; the same route, no route or "auto" nest as before."""
    import simcuda
    from simcuda import _patch
    with simcuda.patch(route="python"):
        with pytest.raises(RuntimeError, match="the outermost patch decides the route"):
            simcuda.patch(route="native").__enter__()
        assert _patch.current_route() == "python" and _patch._depth == 1
        with simcuda.patch(route="python"), simcuda.patch(), simcuda.patch(route="auto"):
            assert _patch._depth == 4
    assert not _patch.active()


def test_a_bad_route_from_the_environment_says_so(monkeypatch):
    from simcuda import _patch
    monkeypatch.setenv("SIMCUDA_ROUTE", "bogus")
    with pytest.raises(ValueError, match="from the environment variable SIMCUDA_ROUTE"):
        _patch.route_of()


def test_the_default_route_is_auto_in_a_fresh_process():
    """With SIMCUDA_ROUTE unset, ``simcuda.patch()`` takes auto: the native route (NVIDIA's own
    ``cuda.bindings.driver`` on the simulated driver) where the simulated library can be used, else the python
    route; a fresh interpreter, since this suite pins the python route (tests/conftest.py)."""
    import os
    import subprocess

    from simcuda.faces import native
    pytest.importorskip("cuda.bindings.driver")
    code = ("import simcuda\nfrom simcuda import _patch\nwith simcuda.patch():\n"
            "    from cuda.bindings import driver\n"
            "    print(_patch.current_route(), driver.__name__, driver.cuInit(0)[0] == driver.CUresult.CUDA_SUCCESS)\n")
    env = {k: v for k, v in os.environ.items() if k != "SIMCUDA_ROUTE"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    if native.available()[0]:
        assert r.stdout.split() == ["native", "cuda.bindings.driver", "True"]
    else:
        assert r.stdout.split() == ["python", "simcuda.faces.bindings.driver", "True"]


def test_simcuda_helpers_reject_bad_input_with_type_errors():
    """simcuda's own helpers answer a wrong argument with TypeError, never KeyError/AttributeError."""
    d = simcuda.reset()
    d.init(0)
    d.ctx_create(0, 0)
    g = d.graph_create(0)
    assert simcuda.dot(g) == simcuda.dot(g, 0)
    for flags in ("a", None, 1.5, True):
        with pytest.raises(TypeError, match="flags"):
            simcuda.dot(g, flags)
    with pytest.raises(TypeError, match="KernelLaunch"):
        simcuda.kernel("k")(3)
    with pytest.raises(TypeError, match="entry name"):
        simcuda.kernel(3)
