"""The driver's parts keep to their own state (issue 18 item 1, "Services, not a god object").

Two rules, checked on the source with :mod:`ast` (nothing is imported but the driver, to read its MRO):

* **No sibling stubs.** An entry mixin of :class:`simcuda._core.facade.Driver` may not declare, under
  ``if TYPE_CHECKING:``, a stub of a method another class of the driver defines: such a stub hides from mypy that
  the mixin depends on a sibling. A helper two groups share lives in the module that owns its concept (a
  function of a service or of a core module, e.g. :mod:`simcuda._core.graphs.graph_build`), or the group that needs
  another group's public entry names it as a base (``Execs(Graphs)``); with the stubs gone, mypy rejects a call
  to a sibling's method.
* **No writes to another's private state.** No module assigns (or deletes) ``x._name`` where ``x`` is neither
  ``self`` nor ``cls`` and ``_name`` is not an attribute of a class of that same module (its ``__slots__``,
  class body or ``self._name`` writes; a ``Protocol``'s declarations do not count, they describe another's
  object). The writes left are listed in :data:`ALLOWED` with the reason each is still there; the test fails
  on a new one, and on an allowed one that is gone (delete its entry then).
"""
from __future__ import annotations

import ast
import pathlib
import re
from collections.abc import Iterator

from simcuda._core.facade import Driver

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "simcuda"
_SUNDER = re.compile(r"^_[^_].*[^_]_$")  # ``_fields_``, ``_pack_``: ctypes' protocol names, not private state

#: TYPE_CHECKING stubs of another class's method still declared: (file, "Class.method") -> why
STUBS_ALLOWED: dict[tuple[str, str], str] = {
}

#: writes to another object's private attribute still there: (file, "target expression") -> why
ALLOWED: dict[tuple[str, str], str] = {
    ("simcuda/faces/oxicuda/stream_capture.py", "g._deps"):
        "the oxicuda face's recorder fills the chain of the Graph record it builds "
        "(simcuda/faces/oxicuda/recorded_graph.py), both halves of one face split across modules; goes when Graph "
        "takes its chain at construction",
    ("simcuda/faces/bindings/_v2/_v2_graphs.py", "ed._single"):
        "the _v2 face's CUgraphEdgeData array wrapper (_v2_face.py) is filled by the graph entries of the same "
        "face, split across modules; goes when the wrapper has a constructor for a single item",
    ("simcuda/faces/bindings/_kernel_params.py", "ptrs._simcuda_keep"):
        "a simcuda-named attribute on a ctypes array simcuda itself made, keeping the argument slots alive: no "
        "other module's state",
    ("simcuda/faces/bindings/runtime.py", "_RStruct._specs"):
        "the runtime face fills its struct base's spec table at import, once the table is defined below the "
        "class (the faces' redesign, issue 18 item 2, owns the file)",
    ("simcuda/ptx/module.py", "L._param_off"):
        "the engine's module hands each launch chunk its parameter offsets (the kernel engine package, owned "
        "elsewhere)",
    ("simcuda/pytest_plugin.py", "config._simcuda_session"):
        "a simcuda-named attribute on pytest's Config object: the plugin's own session, no other module's state",
}


def _rel(p: pathlib.Path) -> str:
    return p.relative_to(ROOT).as_posix()


def _is_type_checking(test: ast.expr) -> bool:
    return ast.unparse(test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def type_checking_stubs(tree: ast.Module) -> Iterator[tuple[str, str]]:
    """``(class name, method name)`` of each method declared under ``if TYPE_CHECKING:`` in a class body."""
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        for st in cls.body:
            if isinstance(st, ast.If) and _is_type_checking(st.test):
                for d in ast.walk(st):
                    if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        yield cls.name, d.name


def _flat(t: ast.expr) -> Iterator[ast.expr]:
    if isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            yield from _flat(e)
    elif isinstance(t, ast.Starred):
        yield from _flat(t.value)
    else:
        yield t


def _attribute_writes(tree: ast.Module) -> Iterator[ast.Attribute]:
    """Each ``x.attr`` a statement assigns, augments or deletes."""
    for n in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(n, (ast.Assign, ast.Delete)):
            targets = [x for t in n.targets for x in _flat(t)]
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
            targets = list(_flat(n.target))
        for x in targets:
            if isinstance(x, ast.Attribute):
                yield x


def _own_attributes(tree: ast.Module) -> set[str]:
    """The attributes the module's own (non-Protocol) classes have: ``__slots__``, class-body names, ``self.x``
    writes."""
    names = {x.attr for x in _attribute_writes(tree) if isinstance(x.value, ast.Name)
             and x.value.id in ("self", "cls")}
    for c in ast.walk(tree):
        if not isinstance(c, ast.ClassDef) or any("Protocol" in ast.unparse(b) for b in c.bases):
            continue
        for st in c.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                names.add(st.target.id)
            elif isinstance(st, ast.Assign):
                for t in st.targets:
                    if isinstance(t, ast.Name):
                        names.add(t.id)
                        if t.id == "__slots__" and isinstance(st.value, (ast.Tuple, ast.List)):
                            names |= {e.value for e in st.value.elts if isinstance(e, ast.Constant)}
    return names


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and not _SUNDER.match(name)


def foreign_private_writes(tree: ast.Module) -> list[tuple[int, str]]:
    """``(line, target)`` of each write to another object's private attribute (see the module docstring)."""
    own = _own_attributes(tree)
    out = []
    for x in _attribute_writes(tree):
        if not _private(x.attr) or x.attr in own:
            continue
        if isinstance(x.value, ast.Name) and x.value.id in ("self", "cls"):
            continue
        out.append((x.lineno, ast.unparse(x)))
    return out


def _driver_classes() -> dict[str, type]:
    return {k.__name__: k for k in Driver.__mro__ if k is not object}


def test_no_entry_mixin_stubs_a_sibling_method() -> None:
    """No class of the driver declares a TYPE_CHECKING stub of a method another class of the driver defines."""
    classes = _driver_classes()
    files = {pathlib.Path(__import__(k.__module__, fromlist=["_"]).__file__ or "") for k in classes.values()}
    found = {}
    for f in sorted(files):
        for cls, name in type_checking_stubs(ast.parse(f.read_text())):
            if cls not in classes:
                continue
            owners = [k.__name__ for k in Driver.__mro__ if name in vars(k) and k.__name__ != cls]
            if owners:
                found[(_rel(f), f"{cls}.{name}")] = owners
    unexpected = {k: v for k, v in found.items() if k not in STUBS_ALLOWED}
    assert not unexpected, ("TYPE_CHECKING stubs of a sibling's method (move the helper to the module owning its "
                            f"concept, or name the group as a base): {unexpected}")
    gone = set(STUBS_ALLOWED) - set(found)
    assert not gone, f"allowed stubs that are gone (delete their STUBS_ALLOWED entry): {sorted(gone)}"


def test_the_stub_scan_finds_a_stub() -> None:
    """The stub scan reports a method declared under ``if TYPE_CHECKING:`` in a class body, and nothing else."""
    src = ("from typing import TYPE_CHECKING\nclass A:\n    if TYPE_CHECKING:\n        def _helper(self) -> int: ...\n"
           "    def real(self) -> None: ...\n")
    assert list(type_checking_stubs(ast.parse(src))) == [("A", "_helper")]


def test_no_module_writes_another_objects_private_state() -> None:
    """No module of simcuda assigns to another object's private attribute, except the writes ALLOWED lists."""
    found: dict[tuple[str, str], list[int]] = {}
    for p in sorted(PACKAGE.rglob("*.py")):
        if "_generated" in p.parts:
            continue
        for line, target in foreign_private_writes(ast.parse(p.read_text())):
            found.setdefault((_rel(p), target), []).append(line)
    unexpected = {k: v for k, v in found.items() if k not in ALLOWED}
    assert not unexpected, ("writes to another object's private attribute (give its owner a public method, or "
                            f"list it in ALLOWED with the reason): {unexpected}")
    gone = set(ALLOWED) - set(found)
    assert not gone, f"allowed writes that are gone (delete their ALLOWED entry): {sorted(gone)}"
    assert all(why.strip() for why in ALLOWED.values()), "every ALLOWED entry says why"


def test_the_write_scan_tells_own_state_from_anothers() -> None:
    """The write scan reports ``other._x = ...`` but not ``self._x``, an own class's slot, or ctypes' ``_fields_``."""
    src = ("class A:\n    __slots__ = ('_mine',)\n    def f(self, other, a):\n        self._v = 1\n"
           "        a._mine = 2\n        other._theirs = 3\n        other._fields_ = []\n        del other._gone\n")
    assert foreign_private_writes(ast.parse(src)) == [(6, "other._theirs"), (8, "other._gone")]
