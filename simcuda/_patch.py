"""``simcuda.patch()``: install the simulated faces under NVIDIA's module names, and take them away again.

While a patch is active::

    import cuda.bindings.driver as cuda            # simcuda.faces.bindings.driver
    from cuda.bindings import driver, runtime, nvrtc
    from cuda import cuda, cudart, nvrtc            # the legacy (cuda-python 11/12) names
    from cuda.bindings._v2 import driver            # simcuda.faces.bindings._v2.driver

all resolve to simcuda's faces, whether or not NVIDIA's ``cuda-bindings`` is installed.

How: for each of the names below the patch saves the ``sys.modules`` entry (or its absence) and,
for the parent packages, every attribute it is about to set. A parent package that is already
imported (NVIDIA's ``cuda`` namespace package, the real ``cuda.bindings``) is **kept** and given
attributes pointing at the faces; one that is not imported is replaced by a small stand-in
package. The stand-in ``cuda`` keeps the real namespace's ``__path__`` when there is one, so
``import cuda.pathfinder`` and friends still work. On the outermost exit every ``sys.modules``
entry and every attribute is put back exactly as it was (entries that were absent are removed),
so code that imported the real modules before, or imports them after, sees the real modules.

Patches nest: only the outermost exit restores. ``patch(driver=d)`` also makes ``d`` the current
driver for the duration (:func:`simcuda.use`), restoring the previous driver on that level's exit.
The state is process-global (``sys.modules`` is), guarded by a lock.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.machinery
import importlib.util
import inspect
import os
import sys
import threading
import types
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, cast

from ._core.facade import Driver
from ._core.process import renew_lock_after_fork

__all__ = ["patch", "route_of", "current_route", "PACKAGES", "FACES", "ROUTES"]

P = ParamSpec("P")
R = TypeVar("R")

#: parent packages, outermost first
PACKAGES = ("cuda", "cuda.bindings", "cuda.bindings._v2")

#: module name -> simcuda module that replaces it (``cuda.bindings._v2.driver`` only when simcuda has it)
FACES = {
    "cuda.bindings.driver": "simcuda.faces.bindings.driver",
    "cuda.bindings.runtime": "simcuda.faces.bindings.runtime",
    "cuda.bindings.nvrtc": "simcuda.faces.bindings.nvrtc",
    "cuda.bindings._v2.driver": "simcuda.faces.bindings._v2.driver",
    "cuda.bindings._v2.nvrtc": "simcuda.faces.bindings._v2.nvrtc",  # NVIDIA's 2026 samples (issue 10)
    "cuda.cuda": "simcuda.faces.bindings.driver",
    "cuda.cudart": "simcuda.faces.bindings.runtime",
    "cuda.nvrtc": "simcuda.faces.bindings.nvrtc",
}

_MISSING = object()
_lock = threading.RLock()
renew_lock_after_fork(globals(), "_lock", reentrant=True)  # a forked child makes it anew
_depth = 0
_saved_modules: dict[str, Any] = {}
_saved_attrs: list[tuple[Any, str, Any]] = []


#: what the native route leaves to NVIDIA's own modules (they run over the simulated ``libcuda.so.1``)
NATIVE_REAL = ("cuda.bindings.driver", "cuda.bindings._v2.driver")

#: the routes a patch can take (:func:`route_of`)
ROUTES = ("python", "native", "auto")
_route = "python"  # the route of the active patch (the outermost one decides)


def route_of(route: str | None = None) -> str:
    """The route a patch takes: ``route``, else ``$SIMCUDA_ROUTE``, else ``"auto"``.

    ``"python"``: simcuda's Python faces stand in for ``cuda.bindings.driver`` and ``_v2.driver``. ``"native"``:
    NVIDIA's own modules run over the simulated ``libcuda.so.1`` (:mod:`simcuda.faces.native`);
    :class:`simcuda.faces.native.NativeUnavailable` says why when that cannot work here. ``"auto"`` (the default for
    ``simcuda.patch()``, ``simcuda run``, the plugin's marker and ``pytest --simcuda`` alike): native where the
    library is available (:func:`simcuda.faces.native.available`), else python. Every entry the Python faces simulate
    is served natively too, and on the native route cuda.core and numba-cuda run as well. ``"python"`` stays
    selectable for a process that must keep NVIDIA's binding free of the simulated library: one that loaded it
    keeps it for its life, so NVIDIA's binding can then neither reach a real GPU nor fail as it does without a
    driver (simcuda's own test suite pins ``SIMCUDA_ROUTE=python`` for that reason, tests/conftest.py). The runtime
    face is simcuda's on both routes (on the native one its handle classes derive from NVIDIA's driver classes);
    NVRTC is NVIDIA's own on the native route where its library loads (:func:`native_nvrtc`), else simcuda's face.
    """
    r = route or os.environ.get("SIMCUDA_ROUTE") or "auto"
    if r not in ROUTES:
        where = "" if route else " (from the environment variable SIMCUDA_ROUTE)"
        raise ValueError(f"route must be one of {ROUTES}, not {r!r}{where}")
    if r == "auto":
        from .faces import native
        r = "native" if native.available()[0] else "python"
    return r


#: why the native route's NVRTC is simcuda's face (None: NVIDIA's own ``cuda.bindings.nvrtc``); set by ``_faces``
nvrtc_why: str | None = None


def native_nvrtc() -> str | None:
    """None when NVIDIA's own ``cuda.bindings.nvrtc`` can serve the native route (cuda.pathfinder loads
    ``libnvrtc``, from the ``nvidia-cuda-nvrtc`` wheel or a toolkit, and the module imports), else why not.
    Loading the library is what NVIDIA's module does at its first call; NVRTC needs no GPU, and the
    ``cuGetExportTable`` it asks the driver for answers 801, which it tolerates (NATIVE.md). NVIDIA's NVRTC is
    a real compiler: the headers a program includes must exist (``--include-path``). ``SIMCUDA_NVRTC=simcuda``
    keeps simcuda's face (which reads kernel names and parameters without compiling)."""
    if os.environ.get("SIMCUDA_NVRTC", "") == "simcuda":
        return "SIMCUDA_NVRTC=simcuda"
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib
        load_nvidia_dynamic_lib("nvrtc")
        mod = importlib.import_module("cuda.bindings.nvrtc")
    except Exception as e:  # noqa: BLE001 - any failure means: keep simcuda's face, and say why
        return f"{type(e).__name__}: {e}"
    if mod.__name__.startswith("simcuda."):  # by name: NVIDIA's file may sit in a folder called anything
        return "cuda.bindings.nvrtc is simcuda's face here"
    return None


def _native_runtime() -> types.ModuleType:
    """The runtime face built for the native route (``simcuda/faces/bindings/runtime.py`` loaded again as
    :data:`simcuda.faces.bindings.runtime.NATIVE_NAME`): its handle classes derive from NVIDIA's driver classes."""
    from .faces.bindings import runtime
    mod = sys.modules.get(runtime.NATIVE_NAME)
    if mod is None:
        spec = importlib.util.spec_from_file_location(runtime.NATIVE_NAME, runtime.__file__)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[runtime.NATIVE_NAME] = mod
        try:
            spec.loader.exec_module(mod)
        except BaseException:
            del sys.modules[runtime.NATIVE_NAME]
            raise
    return mod


def _faces(route: str = "python") -> dict[str, types.ModuleType]:
    """The modules to install under each name of :data:`FACES`. The native route leaves the driver names
    (:data:`NATIVE_REAL`) to NVIDIA, gives the runtime names the native runtime face, and the NVRTC names
    NVIDIA's own module when :func:`native_nvrtc` says it can serve (else simcuda's face, ``nvrtc_why``)."""
    global nvrtc_why
    out: dict[str, types.ModuleType] = {}
    nvrtc_why = native_nvrtc() if route == "native" else "the python route"
    for name, target in FACES.items():
        if route == "native" and name in NATIVE_REAL:
            continue
        try:
            if route == "native" and target == "simcuda.faces.bindings.runtime":
                out[name] = _native_runtime()
            elif route == "native" and target == "simcuda.faces.bindings.nvrtc" and nvrtc_why is None:
                if name == "cuda.bindings.nvrtc":
                    continue  # NVIDIA's own module stays
            elif route == "native" and target == "simcuda.faces.bindings._v2.nvrtc" and nvrtc_why is None:
                continue  # NVIDIA's own _v2.nvrtc stays too: it loads the same libnvrtc
                out[name] = importlib.import_module("cuda.bindings.nvrtc")  # the legacy cuda.nvrtc name
            else:
                out[name] = importlib.import_module(target)
        except ImportError:
            if name != "cuda.bindings._v2.driver":
                raise
    return out


def _real_cuda_path() -> list[str]:
    """Search locations of an installed ``cuda`` namespace package (without importing it), or ``[]``."""
    mod = sys.modules.get("cuda")
    if mod is not None:
        return list(getattr(mod, "__path__", []) or [])
    try:
        spec = importlib.util.find_spec("cuda")
    except (ImportError, ValueError):
        return []
    return list(spec.submodule_search_locations or []) if spec is not None else []


def _real_package_path(name: str) -> list[str]:
    """Folders of the installed real package ``name`` (``cuda``, ``cuda.bindings``, ``cuda.bindings._v2``),
    found on disk without importing anything, so a stand-in can still load the real package's other
    submodules (``cuda.bindings.utils``, ``cuda.pathfinder``...)."""
    mod = sys.modules.get(name)
    if mod is not None:
        return list(getattr(mod, "__path__", []) or [])
    path = _real_cuda_path()
    for part in name.split(".")[1:]:
        path = [os.path.join(p, part) for p in path if os.path.isdir(os.path.join(p, part))]
    return path


def _stand_in(name: str, path: list[str]) -> types.ModuleType:
    m = types.ModuleType(name, f"simcuda stand-in for the package {name!r} (installed by simcuda.patch())")
    m.__path__ = path
    m.__package__ = name
    # a package's spec, as the import system gives one (importlib.util.find_spec reads it: numba-cuda does)
    m.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
    m.__spec__.submodule_search_locations = list(path)
    # a module takes any attribute; typeshed's ModuleType declares neither of these two
    m.__simcuda_stand_in__ = True  # type: ignore[attr-defined]
    if name == "cuda.bindings":
        from .faces.bindings import __version__
        m.__version__ = __version__  # type: ignore[attr-defined]
    return m


def _set_attr(obj: Any, attr: str, value: Any) -> None:
    _saved_attrs.append((obj, attr, obj.__dict__.get(attr, _MISSING)))
    setattr(obj, attr, value)


_preexisting: set[str] = set()


def _is_cuda_name(n: str) -> bool:
    return n == "cuda" or n.startswith("cuda.")


class EarlyImportWarning(UserWarning):
    """NVIDIA's ``cuda.bindings.driver`` (or ``_v2.driver``) was imported before a patch on the Python route: code
    that took it then still calls NVIDIA's module, which looks for a real ``libcuda.so.1``."""


def _warn_early_imports(route: str) -> None:
    """On the Python route, warn when NVIDIA's own driver modules are already imported: code holding them (a
    module-level ``from cuda.bindings import driver`` imported before the patch) keeps NVIDIA's module, whose
    first call fails with NVIDIA's own error (``DynamicLibNotFoundError`` without a GPU driver)."""
    if route != "python":
        return  # the native route runs NVIDIA's modules themselves on the simulated driver: early imports work
    early = [n for n in NATIVE_REAL
             if n in sys.modules and not getattr(sys.modules[n], "__name__", "simcuda.").startswith("simcuda.")]
    if early:
        import warnings
        warnings.warn(EarlyImportWarning(
            f"{' and '.join(early)} (NVIDIA's) were imported before simcuda.patch() on the 'python' route: code that "
            "imported them then (a module-level `from cuda.bindings import driver`) keeps NVIDIA's module, which "
            "needs a real libcuda.so.1 and fails with NVIDIA's own error. Import that code inside the patch, run "
            "the program with `simcuda run` or the tests with `pytest --simcuda` (both patch before anything is "
            "imported), or take route='native' (or 'auto'), on which NVIDIA's modules run on the simulated "
            "driver"), stacklevel=4)


def _retry_numba_driver_lookup() -> None:
    """numba-cuda looks for ``libcuda`` once, when ``numba.cuda`` is imported, and keeps a failure for good
    (its driver singleton's ``initialization_error``). A suite whose pytest.ini names numba warning classes has
    pytest import ``numba.cuda`` before any plugin can patch (pytest applies ``filterwarnings`` before it loads
    plugins): once the simulated library is loaded, a numba driver that failed only to find the library and was
    never used looks again (its own ``__init__``, which finds the loaded ``libcuda.so.1``)."""
    mod = sys.modules.get("numba.cuda.cudadrv.driver")
    drv = getattr(mod, "driver", None)
    error = getattr(drv, "initialization_error", None)
    if drv is None or not error or getattr(drv, "pid", None) is not None or "cannot be found" not in str(error):
        return
    try:
        type(drv).__init__(drv)
    except Exception:  # noqa: BLE001 - numba's own lookup: its error stays what numba says
        return


def _install(route: str = "python") -> None:
    global _route
    _warn_early_imports(route)
    if route == "native":
        from .faces.native import adapters, compilers, nvml
        adapters.install()  # before the binding's first call: it caches the pointers it resolves then
        nvml.install()  # NVML for cuda.core's system module (found by soname, as the driver)
        compilers.install()  # NVRTC / nvJitLink shims (by soname): the PTX of their CUBINs (issue 17)
        _retry_numba_driver_lookup()
    _route = route
    _preexisting.clear()
    _preexisting.update(n for n in sys.modules if _is_cuda_name(n))
    names = PACKAGES + tuple(FACES)
    for n in names:
        _saved_modules[n] = sys.modules.get(n, _MISSING)
    faces = _faces(route)
    pkgs: dict[str, types.ModuleType] = {}
    for n in PACKAGES:
        existing = sys.modules.get(n)
        if existing is not None and not getattr(existing, "__simcuda_stand_in__", False):
            pkgs[n] = existing  # a real, already imported package: keep it, set attributes on it
        else:
            pkgs[n] = _stand_in(n, _real_package_path(n))
            sys.modules[n] = pkgs[n]
    _set_attr(pkgs["cuda"], "bindings", pkgs["cuda.bindings"])
    _set_attr(pkgs["cuda.bindings"], "_v2", pkgs["cuda.bindings._v2"])
    for name, mod in faces.items():
        sys.modules[name] = mod
        parent, _, leaf = name.rpartition(".")
        _set_attr(pkgs[parent], leaf, mod)


def _restore() -> None:
    while _saved_attrs:
        obj, attr, old = _saved_attrs.pop()
        if old is _MISSING:
            with contextlib.suppress(AttributeError):
                delattr(obj, attr)
        else:
            setattr(obj, attr, old)
    for n, old in _saved_modules.items():
        if old is _MISSING:
            sys.modules.pop(n, None)
        else:
            sys.modules[n] = old
    _saved_modules.clear()
    # real submodules imported through a stand-in during the patch (cuda.bindings.utils...) may hold
    # references to the faces: forget them, so a later import gets a clean real module
    for n in [n for n in sys.modules if _is_cuda_name(n) and n not in _preexisting]:
        del sys.modules[n]
    _preexisting.clear()


def active() -> bool:
    """True while at least one :class:`patch` is active."""
    return _depth > 0


def current_route() -> str | None:
    """The route of the active patch (``"python"`` or ``"native"``), None when no patch is active."""
    return _route if _depth > 0 else None


class patch:
    """Install simcuda's faces as ``cuda.bindings.*`` (and ``cuda.cuda``/``cuda.cudart``/``cuda.nvrtc``).

    Mirrors: nothing in CUDA; shaped like ``moto.mock_aws``. Use it as a context manager (``with
    simcuda.patch() as driver:``) or a decorator (``@simcuda.patch()``, also without the call
    parentheses: ``@simcuda.patch``). The context manager yields the current :class:`simcuda.Driver`.

    Args:
        driver: a :class:`simcuda.Driver` to make current for the duration (restored on exit of this
            level); ``None`` keeps the current default driver.
        route: ``"python"``, ``"native"`` or ``"auto"`` (:func:`route_of`; the outermost patch decides).
            On the native route the simulated library stays loaded after the patch exits, and NVIDIA's
            binding keeps using it for the life of the process (NATIVE.md): a real GPU needs a process of
            its own.

    Nesting: only the outermost exit restores ``sys.modules`` and the package attributes, exactly.
    Thread note: ``sys.modules`` is process-wide, so the patch is too.
    """

    def __init__(self, driver: Driver | Callable[..., Any] | None = None, route: str | None = None) -> None:
        self._fn = None
        self._route = route
        if callable(driver) and not isinstance(driver, Driver):  # bare @simcuda.patch
            self._fn = driver
            driver = None
            functools.update_wrapper(self, self._fn)
        if driver is not None and not isinstance(driver, Driver):
            raise TypeError(f"simcuda.patch(driver=...) needs a simcuda.Driver, got {type(driver).__name__}")
        self._driver = driver
        self._old_driver: list[Driver] = []

    def __enter__(self) -> Driver:
        global _depth
        from . import _state
        with _lock:
            if _depth == 0:
                route = route_of(self._route)  # a bad route is refused before anything changes
                try:
                    _install(route)
                except BaseException:
                    _restore()
                    raise
            elif self._route not in (None, "auto") and route_of(self._route) != _route:
                # an inner patch cannot change the modules the outer one installed (the outermost decides)
                raise RuntimeError(f"simcuda.patch(route={self._route!r}) inside an active patch on the {_route!r} "
                                   f"route: the outermost patch decides the route; start the outer one (or "
                                   f"simcuda run --route, or SIMCUDA_ROUTE) with route={route_of(self._route)!r}")
            _depth += 1
            if self._driver is not None:
                self._old_driver.append(_state.use(self._driver))
            return _state.current()

    def __exit__(self, *exc: Any) -> None:
        global _depth
        from . import _state
        with _lock:
            if self._driver is not None and self._old_driver:
                _state.use(self._old_driver.pop())
            _depth -= 1
            if _depth == 0:
                _restore()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._fn is not None:  # used bare as a decorator: this object is the wrapped function
            with patch(self._driver, self._route):
                return self._fn(*args, **kwargs)
        if len(args) != 1 or kwargs or not callable(args[0]):
            raise TypeError("patch() used as a decorator takes exactly one function")
        return self.decorate(args[0])

    def decorate(self, fn: Callable[P, R]) -> Callable[P, R]:
        """Wrap ``fn`` so that every call runs inside a fresh ``patch(driver)`` (coroutines too)."""
        driver, route = self._driver, self._route
        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def awrapper(*args: P.args, **kwargs: P.kwargs) -> Any:
                with patch(driver, route):
                    return await fn(*args, **kwargs)
            return cast("Callable[P, R]", awrapper)  # fn is a coroutine function: R is the coroutine it returns

        @functools.wraps(fn)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            with patch(driver, route):
                return fn(*args, **kwargs)
        return wrapper
