"""Traps a user meets before the patch (issue 21 item 3): NVIDIA's driver module imported before a patch on the
Python route is named with what to do, and a --simcuda suite on the Python route that imports cuda.core is told
that it needs the native route. Each in a fresh interpreter."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("cuda.bindings.driver", reason="NVIDIA's cuda-bindings is not installed")

EARLY = textwrap.dedent('''
    import warnings
    import simcuda
    from cuda.bindings import driver as nvidia_driver   # before the patch: NVIDIA's module
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with simcuda.patch(route="python"):
            from cuda.bindings import driver as face
        with simcuda.patch(route="python"):
            pass
    texts = [str(w.message) for w in caught if w.category.__name__ == "EarlyImportWarning"]
    print(len(texts), face.__name__, nvidia_driver.__name__)
    print(texts[0])
''')


def test_nvidia_driver_imported_before_a_python_route_patch_is_named():
    """An EarlyImportWarning per patch, attributed to the user's line, names the module and the remedies
    (import inside the patch, simcuda run / pytest --simcuda, the native route); the patch still installs the
    face."""
    r = subprocess.run([sys.executable, "-c", EARLY], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    first, text = r.stdout.splitlines()[:2]
    assert first == "2 simcuda.faces.bindings.driver cuda.bindings.driver"
    assert "cuda.bindings.driver (NVIDIA's) were imported before simcuda.patch()" in text
    assert "pytest --simcuda" in text and "route='native'" in text


def test_no_warning_when_nothing_was_imported_early():
    """A patch with no early import warns nothing."""
    body = ("import warnings, simcuda\nwarnings.simplefilter('error')\n"
            "with simcuda.patch(route='python'):\n    from cuda.bindings import driver\nprint('ok')\n")
    r = subprocess.run([sys.executable, "-c", body], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout == "ok\n", r.stderr[-2000:]


def test_cuda_core_suite_on_the_python_route_is_told_to_take_the_native_route(tmp_path):
    """``pytest --simcuda --simcuda-route python`` on a suite importing cuda.core: the run says that cuda.core
    needs the native route and how to ask for it."""
    pytest.importorskip("cuda.core", reason="cuda.core is not installed")
    (tmp_path / "test_core.py").write_text("import cuda.core\n\ndef test_nothing():\n    pass\n")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                        "--simcuda", "--simcuda-route", "python", str(tmp_path)], capture_output=True, text=True,
                       timeout=300, cwd=tmp_path)
    assert "simcuda: cuda.core imported by this suite" in r.stdout, r.stdout + r.stderr
    assert "--simcuda-route native" in r.stdout
