"""Print how each Python face gets its functions: built from the entry table, written by hand, or a stub.

Usage: python tools/measure_faces.py

A function is *hand-written* when its module's source defines it with a top-level ``def`` (the names of
``cuda.bindings`` it mirrors: ``cu*`` / ``cuda*`` for the tuple and runtime faces, the ``_v2`` face's
snake_case names); *built* when the module holds it but does not define it and it is no not-simulated stub.
Last line: how many driver entries (by the tuple face's name) are written by hand in two faces or more.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FACES = {"driver": "simcuda.faces.bindings.driver", "_v2": "simcuda.faces.bindings._v2.driver",
         "runtime": "simcuda.faces.bindings.runtime"}
#: the modules a face's hand-written functions are written in, by concept, besides the face's own module (the
#: face imports each of them from there)
PARTS = {"driver": tuple(f"simcuda.faces.bindings._driver_{m}" for m in ("face", "contexts", "memory", "modules",
                                                                    "node_params", "graphs")),
         "_v2": tuple(f"simcuda.faces.bindings._v2._v2_{m}" for m in ("face", "contexts", "memory", "modules",
                                                                      "graphs")),
         # the runtime face's hand-written functions are written in these two and copied into each load of
         # runtime.py (simcuda.faces.bindings._runtime_shared.install)
         "runtime": tuple(f"simcuda.faces.bindings._runtime_{m}" for m in ("memory", "graphs"))}


def hand_written(mod: object, parts: tuple[str, ...] = ()) -> set[str]:
    """Names of public functions a face's source (and the sources of its parts) define at top level."""
    out = set()
    for m in (mod, *(importlib.import_module(p) for p in parts)):
        tree = ast.parse(inspect.getsource(m))  # type: ignore[arg-type]
        out |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
    return out


def measure() -> dict[str, dict[str, set[str]]]:
    """For each face: ``{"hand": ..., "built": ..., "stub": ...}`` sets of public entry names."""
    out: dict[str, dict[str, set[str]]] = {}
    for face, modname in FACES.items():
        mod = importlib.import_module(modname)
        stubs = set(getattr(mod, "_NOT_SIMULATED", ()))
        hand = hand_written(mod, PARTS.get(face, ()))
        public = {n for n, v in vars(mod).items() if callable(v) and not isinstance(v, type)
                  and not n.startswith("_") and getattr(v, "__module__", None) == modname}
        out[face] = {"hand": hand, "built": public - hand - stubs, "stub": stubs}
    return out


def _canon(face: str, name: str) -> str:
    if face == "_v2":
        base = re.sub(r"_v\d+$", "", name)
        return "cu" + "".join(w[:1].upper() + w[1:] for w in base.split("_")).lower()
    if face == "runtime":
        from simcuda._core.api import RUNTIME
        return RUNTIME.get(name, name).lower()
    return re.sub(r"_v\d+$", "", name).lower()


def main() -> None:
    m = measure()
    for face, parts in m.items():
        print(f"{face:8s} hand-written {len(parts['hand']):4d}  built {len(parts['built']):4d}  "
              f"not simulated {len(parts['stub']):4d}")
    seen: dict[str, set[str]] = {}
    for face, parts in m.items():
        for n in parts["hand"]:
            seen.setdefault(_canon(face, n), set()).add(face)
    multi = [k for k, v in seen.items() if len(v) >= 2]
    print(f"entries written by hand in 2+ Python faces: {len(multi)}")


if __name__ == "__main__":
    main()
