"""Child processes of a simulated program run on a simulated driver of their own.

When ``simcuda run`` or ``pytest --simcuda`` runs a program, a test or the program itself may start another Python:
``subprocess.run([sys.executable, ...])``, ``multiprocessing`` with the spawn (or forkserver) start method, a
``concurrent.futures.ProcessPoolExecutor`` using one of those. Without a GPU that child would meet the missing
driver. So the parent exports its settings in the environment, and the child, with no change to its code, starts
patched on a fresh simulated driver with the same settings (route, devices, progression, kernel bounds, kernels
files), as a real child process would open the same GPU with a driver of its own. Nothing is shared between the
two drivers (memory, handles, IPC handles: the simulator is per process, as docs/native.md says of IPC).

How: :func:`export` sets :data:`ENV` (the settings as JSON) and puts this package's ``_inherit`` folder first on
``PYTHONPATH``; that folder holds a ``sitecustomize`` module, which every Python runs at startup (``site``), and
which calls :func:`start_from_environment` and then imports the ``sitecustomize`` that was there before, if any,
so a project's own still runs. A forked child (``multiprocessing``'s fork method) copies the parent instead: the
real driver refuses a child forked after initialisation, and so does the simulator (spec-proposals).

A child can opt out with ``SIMCUDA_INHERIT=`` (empty) in its environment.
"""
from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["ENV", "export", "exported", "settings_of", "start_from_environment"]

#: the environment variable holding the parent's settings (JSON), read by a child at startup
ENV = "SIMCUDA_INHERIT"
#: the folder whose ``sitecustomize`` starts a child patched
FOLDER = str(Path(__file__).resolve().parent / "_inherit")
_KEYS = ("route", "devices", "progression", "kernel_bounds", "kernels")

_patch: Any = None  # the child's own patch, kept for the life of the process


def settings_of(route: str, devices: int = 1, progression: str = "immediate", kernel_bounds: str | None = None,
                kernels: Sequence[str] = ()) -> dict[str, Any]:
    """The settings a child gets: the route (``"python"`` or ``"native"``, resolved), the number of devices, the
    progression, the kernel bounds (None: the child's default) and the kernels files (made absolute, as the child
    may start elsewhere)."""
    return {"route": route, "devices": int(devices), "progression": progression, "kernel_bounds": kernel_bounds,
            "kernels": [os.path.abspath(k) for k in kernels]}


def export(settings: Mapping[str, Any], environ: Any = None) -> dict[str, str | None]:
    """Put ``settings`` (:func:`settings_of`) into ``environ`` (default ``os.environ``) so that every Python started
    from now on starts patched; returns what to restore (:func:`unexport`)."""
    env = os.environ if environ is None else environ
    saved = {ENV: env.get(ENV), "PYTHONPATH": env.get("PYTHONPATH")}
    env[ENV] = json.dumps({k: settings.get(k) for k in _KEYS})
    parts = [p for p in (env.get("PYTHONPATH") or "").split(os.pathsep) if p and p != FOLDER]
    env["PYTHONPATH"] = os.pathsep.join([FOLDER, *parts])
    return saved


def unexport(saved: Mapping[str, str | None], environ: Any = None) -> None:
    """Undo :func:`export` (the variables as they were)."""
    env = os.environ if environ is None else environ
    for k, v in saved.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v


@contextmanager
def exported(settings: Mapping[str, Any]) -> Iterator[None]:
    """:func:`export` for the duration of a ``with`` block."""
    saved = export(settings)
    try:
        yield
    finally:
        unexport(saved)


def start_from_environment() -> bool:
    """In a child: when :data:`ENV` holds settings, start a patch on a fresh driver with them and run the kernels
    files (the ``sitecustomize`` of :data:`FOLDER` calls this at startup). Returns whether it did. A malformed
    value, or a route the child cannot take, is said on stderr and the child starts unpatched: a child must never
    fail to start because of its parent's simulator."""
    global _patch
    raw = os.environ.get(ENV)
    if not raw or _patch is not None:
        return False
    try:
        s = json.loads(raw)
        import runpy

        import simcuda
        options = simcuda.Options(kernel_bounds=s["kernel_bounds"]) if s.get("kernel_bounds") else None
        drv = simcuda.Driver(devices=[simcuda.DeviceSpec() for _ in range(int(s.get("devices") or 1))],
                             progression=s.get("progression") or "immediate", options=options)
        p = simcuda.patch(driver=drv, route=s.get("route") or "python")
        p.__enter__()
        _patch = p
        for k in s.get("kernels") or ():
            runpy.run_path(k, run_name="simcuda_kernels")
    except Exception as e:  # noqa: BLE001 - said, and the child goes on unpatched
        print(f"simcuda: this Python was started by a simulated program ({ENV} is set) but could not start on a "
              f"simulated driver: {type(e).__name__}: {e}", file=sys.stderr)
        return False
    return True
