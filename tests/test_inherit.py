"""A Python started by a simulated program starts on a simulated driver of its own (simcuda.inherit): from
``simcuda run`` and from ``pytest --simcuda``, by subprocess and by multiprocessing's spawn method, with the
parent's settings; a project's own sitecustomize still runs; a child can opt out."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from simcuda import inherit
from simcuda.cli import main
from simcuda.faces import native

ROOT = Path(__file__).resolve().parent.parent

CHILD = ("from cuda.bindings import driver as cu; import simcuda; "
         "print('child', int(cu.cuInit(0)[0]), cu.cuDeviceGetCount()[1], cu.__name__)")

PARENT = textwrap.dedent(f'''
    import subprocess, sys
    r = subprocess.run([sys.executable, "-c", {CHILD!r}], capture_output=True, text=True, timeout=120)
    print(r.stdout.strip() or r.stderr[-500:])
''')


def test_simcuda_run_children_start_patched_with_the_same_devices(tmp_path, capfd):
    """A child of a ``simcuda run --devices 2`` script sees two simulated devices through cuda.bindings."""
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    assert main(["run", "-q", "--route", "python", "--devices", "2", str(script)]) == 0
    assert capfd.readouterr().out.strip() == "child 0 2 simcuda.faces.bindings.driver"
    assert inherit.ENV not in os.environ  # the parent's environment is as it was after the run


@pytest.mark.skipif(not native.available()[0], reason=f"native route: {native.available()[1]}")
def test_native_route_children_run_nvidias_binding_on_a_simulated_driver(tmp_path):
    """A child of a ``simcuda run --route native`` script runs NVIDIA's own cuda.bindings.driver, on a simulated
    driver of its own (a real process, as the native library stays loaded in it)."""
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    r = subprocess.run([sys.executable, "-m", "simcuda", "run", "-q", "--route", "native", "--devices", "2",
                        str(script)], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert r.stdout.strip() == "child 0 2 cuda.bindings.driver", r.stdout + r.stderr[-2000:]


SUITE = textwrap.dedent(f'''
    import multiprocessing, subprocess, sys

    def _count(_):
        from cuda.bindings import driver as cu
        cu.cuInit(0)
        return cu.cuDeviceGetCount()[1]

    def test_subprocess_child():
        r = subprocess.run([sys.executable, "-c", {CHILD!r}], capture_output=True, text=True, timeout=120)
        assert r.stdout.strip() == "child 0 3 simcuda.faces.bindings.driver", r.stderr

    def test_spawned_pool():
        with multiprocessing.get_context("spawn").Pool(2) as pool:
            assert pool.map(_count, range(2)) == [3, 3]
''')


def test_pytest_simcuda_children_start_patched(tmp_path):
    """Under ``pytest --simcuda --simcuda-devices 3 --simcuda-route python``, a test's subprocess and a spawn pool's
    workers see three simulated devices, unchanged code."""
    (tmp_path / "test_children.py").write_text(SUITE)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                        "--simcuda", "--simcuda-route", "python", "--simcuda-devices", "3", str(tmp_path)],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert "2 passed" in r.stdout, r.stdout[-3000:] + r.stderr[-2000:]


def test_a_projects_own_sitecustomize_still_runs_and_a_child_may_opt_out(tmp_path):
    """With the settings exported, a sitecustomize already on PYTHONPATH runs after simcuda's; with
    ``SIMCUDA_INHERIT`` empty the child starts unpatched."""
    own = tmp_path / "own"
    own.mkdir()
    (own / "sitecustomize.py").write_text("import builtins\nbuiltins.OWN_SITE = True\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(own), str(ROOT)]))
    inherit.export(inherit.settings_of("python", devices=2), env)
    body = "import builtins, sys; print(getattr(builtins, 'OWN_SITE', False), 'simcuda' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", body], capture_output=True, text=True, env=env, timeout=120)
    assert r.stdout.split() == ["True", "True"], r.stderr[-2000:]
    env[inherit.ENV] = ""
    r = subprocess.run([sys.executable, "-c", body], capture_output=True, text=True, env=env, timeout=120)
    assert r.stdout.split() == ["True", "False"], r.stderr[-2000:]


def test_a_malformed_setting_is_said_and_the_child_starts_unpatched(tmp_path):
    """A child whose inherited settings are malformed says so on stderr and runs its program unpatched."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    inherit.export(inherit.settings_of("python"), env)
    env[inherit.ENV] = "{not json"
    r = subprocess.run([sys.executable, "-c", "print('ran')"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and r.stdout == "ran\n"
    assert "could not start on a simulated driver" in r.stderr
