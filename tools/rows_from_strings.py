"""Rewrite the entry table's rows written in the older string notation into the typed constructors of
:mod:`simcuda._core.rows` (issue 18, item 2: "the table is checked Python").

Usage: python tools/rows_from_strings.py [--check] [FILE...]

With no FILE, every row module: ``simcuda/_core/*/*_rows.py``, ``simcuda/_core/runtime_rows.py`` and the variants
of ``simcuda/_core/api.py``. Each ``Api(name, "shape", doc, decoder="kind(...)")`` and ``Runtime(name, driver,
"shape", ...)`` whose shape (or decoder) is still a string literal is rewritten in place, from the string parsed
with :mod:`ast` as the notation was parsed before (this tool keeps that parser: the package no longer reads
text): ``"op(a, 'x', k=True) -> out"`` becomes ``call(Group.op, "a", lit("x"), k=True, out="out")``, ``name[count]``
``array(...)``, ``*p`` ``read(...)``, ``p.a.b`` ``field(...)``, ``Rec(...)`` ``record(Rec, ...)``, a nested
``op(...)`` ``result(Group.op, ...)``, ``**p`` ``spread(...)``, a trailing `` (...)`` ``hand(call(...))``,
``a/b(...)`` ``hand(Group.a, Group.b)``, a runtime row's ``"(...)"`` ``hand()`` and its ``""`` None, and
``decoder="k(1)"`` ``decoder=kind("k", 1)``. Rows already typed are left as they are, so the tool can run
again after rows in the string notation were merged in. The core operation's class is found in the source of
``simcuda/_core`` (the class whose ``@entry`` method has that name), the record's class likewise; the imports are
added and sorted by ruff. ``--check``: change nothing, exit 1 when a row is still a string.
"""
from __future__ import annotations

import argparse
import ast
import pathlib
import subprocess
import sys
from collections.abc import Iterator

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORE = ROOT / "simcuda" / "_core"
WIDTH = 120


# ---- where the core operations and records are defined (read from the source, nothing imported)

def _is_entry(fn: ast.FunctionDef) -> bool:
    return any((isinstance(d, ast.Name) and d.id == "entry") or (isinstance(d, ast.Attribute) and d.attr == "entry")
               for d in fn.decorator_list)


#: what :func:`definitions` finds: the core operations, the records, the aliased operations
Defs = tuple[dict[str, list[tuple[str, str]]], dict[str, tuple[str, str]], set[str]]


def definitions() -> Defs:
    """``(ops, records, aliases)``: core operation name -> ``[(module, class)]`` of the classes defining it as an
    ``@entry`` method (a plain method, or a class attribute, when no class marks it), record class name ->
    ``(module, class)``, and the operations that are class attributes bound to a function of another name
    (``launch_kernel_fast = launch.launch``: the row writes ``named(Modules.launch_kernel_fast, "...")``)."""
    entries: dict[str, list[tuple[str, str]]] = {}
    plain: dict[str, list[tuple[str, str]]] = {}
    aliases: dict[str, list[tuple[str, str]]] = {}
    records: dict[str, tuple[str, str]] = {}
    for path in sorted(CORE.rglob("*.py")):
        if path.name.endswith("_rows.py") or path.name in ("rows.py", "api.py"):
            continue
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, ast.ClassDef):
                continue
            records.setdefault(node.name, (module, node.name))
            for fn in node.body:
                if isinstance(fn, ast.FunctionDef):
                    (entries if _is_entry(fn) else plain).setdefault(fn.name, []).append((module, node.name))
                elif isinstance(fn, ast.Assign) and len(fn.targets) == 1 and isinstance(fn.targets[0], ast.Name):
                    aliases.setdefault(fn.targets[0].id, []).append((module, node.name))
    ops = {name: entries.get(name) or plain.get(name) or aliases[name] for name in {*entries, *plain, *aliases}}
    return ops, records, set(aliases) - set(entries) - set(plain)


# ---- the older notation, parsed as simcuda/_core/rows.py parsed it, printed as constructors

def _q(text: str) -> str:
    """A string literal in the repository's double quotes."""
    return f'"{text}"' if '"' not in text and "\\" not in text and text.isprintable() else repr(text)


class Expr:
    """An expression to print: ``head(args...)`` (``close`` ends it), or an atom when ``args`` is None."""

    def __init__(self, head: str, args: list[Expr] | None = None, close: str = ")") -> None:
        self.head, self.args, self.close = head, args, close

    def flat(self) -> str:
        if self.args is None:
            return self.head
        close = ",)" if self.head.endswith("(") and self.head.rstrip("(") == "" and len(self.args) == 1 else self.close
        return self.head + ", ".join(a.flat() for a in self.args) + close

    def fmt(self, col: int, tail: int) -> str:
        """The expression starting at column ``col``, wrapped within :data:`WIDTH` with ``tail`` characters after
        it on its last line; continuation lines align with the first argument."""
        text = self.flat()
        if self.args is None or col + len(text) + tail <= WIDTH:
            return text
        inner = col + len(self.head)
        close = self.flat()[len(self.head) + len(", ".join(a.flat() for a in self.args)):]
        lines: list[str] = []
        line, at = "", inner
        for k, a in enumerate(self.args):
            last = k == len(self.args) - 1
            after = len(close) + tail if last else 1
            piece = a.flat()
            if line and at + len(piece) + after > WIDTH:
                lines.append(line.rstrip())
                line, at = "", inner
            piece = a.fmt(at, after)
            line += piece + ("" if last else ", ")
            at = inner + len(piece.rsplit("\n", 1)[-1]) + 2 if "\n" in piece else at + len(piece) + 2
        lines.append(line)
        return self.head + ("\n" + " " * inner).join(lines) + close


class Converter:
    """Prints the constructors of one shape, collecting the names it needs imported."""

    def __init__(self, defs: Defs, row: str) -> None:
        self.ops, self.records, self.aliases = defs
        self.row = row
        self.names: set[str] = set()  # constructors of simcuda._core.rows
        self.classes: set[tuple[str, str]] = set()  # (module, class)

    def fail(self, why: str) -> ValueError:
        return ValueError(f"{self.row}: {why}")

    def op(self, name: str) -> Expr:
        where = self.ops.get(name)
        if not where:
            raise self.fail(f"no class of simcuda/_core defines the core operation {name!r}")
        if len({c for _m, c in where}) > 1:
            raise self.fail(f"the core operation {name!r} is defined by several classes: {where}")
        self.classes.add(where[0])
        if name in self.aliases:  # a class attribute bound to a function of another name
            return self.ctor("named", Expr(f"{where[0][1]}.{name}"), Expr(_q(name)))
        return Expr(f"{where[0][1]}.{name}")

    def ctor(self, name: str, *args: Expr) -> Expr:
        self.names.add(name)
        return Expr(name + "(", list(args))

    def arg(self, node: ast.expr) -> Expr:
        if isinstance(node, ast.Subscript):  # name[count]
            if not (isinstance(node.value, ast.Name) and isinstance(node.slice, ast.Name)):
                raise self.fail("an array is name[count]")
            return self.ctor("array", Expr(_q(node.value.id)), Expr(_q(node.slice.id)))
        if isinstance(node, ast.Starred):  # *name
            if not isinstance(node.value, ast.Name):
                raise self.fail("an in/out pointer is *name")
            return self.ctor("read", Expr(_q(node.value.id)))
        if isinstance(node, ast.Name):
            return Expr(_q(node.id))
        if isinstance(node, ast.Attribute):  # p.a.b
            path: list[str] = []
            base: ast.expr = node
            while isinstance(base, ast.Attribute):
                path.insert(0, base.attr)
                base = base.value
            if not isinstance(base, ast.Name):
                raise self.fail("a struct field is p.a.b")
            return self.ctor("field", *(Expr(_q(n)) for n in (base.id, *path)))
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                raise self.fail("a record or nested operation is Name(...)")
            name = node.func.id
            if name[0].isupper():
                if name not in self.records:
                    raise self.fail(f"no class {name} in simcuda/_core")
                self.classes.add(self.records[name])
                return self.ctor("record", Expr(name), *self.items(node.args, node.keywords))
            return self.ctor("result", self.op(name), *self.items(node.args, node.keywords))
        if isinstance(node, (ast.Tuple, ast.List)):
            items = [self.arg(x) for x in node.elts]
            return Expr("(", items, ")") if isinstance(node, ast.Tuple) else Expr("[", items, "]")
        value = ast.literal_eval(node)
        return self.ctor("lit", Expr(_q(value))) if isinstance(value, str) else Expr(repr(value))

    def literal(self, value: object) -> Expr:
        """A literal argument of a decoder kind, as written."""
        return Expr(_q(value) if isinstance(value, str) else repr(value))

    def items(self, args: list[ast.expr], keywords: list[ast.keyword]) -> list[Expr]:
        """Positional arguments, then the spreads (``**p``), then the keywords: the constructors put a spread after
        the keywords, as the notation wrote it."""
        out = [self.arg(a) for a in args]
        out += [self.ctor("spread", self.arg(k.value)) for k in keywords if k.arg is None]
        for k in keywords:
            if k.arg is not None:
                if k.arg == "out":
                    raise self.fail("a core keyword named 'out' collides with call()'s outputs")
                out.append(Expr(f"{k.arg}={self.arg(k.value).flat()}"))
        return out

    def out(self, text: str) -> Expr:
        node = ast.parse(text.strip(), mode="eval").body
        if not isinstance(node, (ast.Name, ast.Subscript, ast.Starred, ast.Attribute)):
            raise self.fail(f"the output {text.strip()!r} is no parameter, array, in/out pointer or field")
        return self.arg(node)

    def call(self, shape: str) -> Expr:
        head, _, outs = shape.partition(" -> ")
        expr = ast.parse(head, mode="eval").body
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)):
            raise self.fail(f"the shape {shape!r} is no call")
        args = [self.op(expr.func.id), *self.items(expr.args, expr.keywords)]
        slots = [self.out(o) for o in outs.split(",")] if outs else []
        if len(slots) == 1:
            args.append(Expr("out=" + slots[0].flat()))
        elif slots:
            args.append(Expr("out=(", slots, ")"))
        return self.ctor("call", *args)

    def shape(self, shape: str, runtime: bool) -> Expr | None:
        """The constructors of a shape (None: a runtime row's empty shape, the driver row's call)."""
        if runtime and shape == "":
            return None
        if shape == "(...)":
            return self.ctor("hand")
        if shape.endswith("(...)"):
            head = shape.split("(", 1)[0]
            if shape == head + "(...)":  # op(...) or a/b(...): the operations only
                return self.ctor("hand", *(self.op(n) for n in head.split("/")))
            if not shape.endswith(" (...)"):
                raise self.fail(f"the shape {shape!r} does not parse")
            return self.ctor("hand", self.call(shape.removesuffix(" (...)")))
        return self.call(shape)

    def decoder(self, text: str) -> Expr | None:
        if not text:
            return None
        expr = ast.parse(text, mode="eval").body
        if isinstance(expr, ast.Name):
            return self.ctor("kind", Expr(_q(expr.id)))
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and not expr.keywords):
            raise self.fail(f"the decoder {text!r} is no kind(literals)")
        return self.ctor("kind", Expr(_q(expr.func.id)), *(self.literal(ast.literal_eval(a)) for a in expr.args))


# ---- rewriting a module

def _rows(tree: ast.Module) -> Iterator[tuple[ast.Call, bool]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("Api", "Runtime"):
            yield node, node.func.id == "Runtime"


def _string(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _targets(node: ast.Call, runtime: bool) -> list[tuple[ast.expr, str]]:
    """The string arguments of a row to rewrite: ``(node, "shape" | "decoder")``."""
    found: list[tuple[ast.expr, str]] = []
    at = 2 if runtime else 1
    shape = node.args[at] if len(node.args) > at else next((k.value for k in node.keywords if k.arg == "shape"), None)
    if shape is not None and _string(shape) is not None:
        found.append((shape, "shape"))
    decoder = next((k.value for k in node.keywords if k.arg == "decoder"), None)
    if decoder is not None and _string(decoder) is not None:
        found.append((decoder, "decoder"))
    return found


def _offset(lines: list[str], line: int, col: int) -> int:
    """The character offset of (1-based line, UTF-8 byte column) in the text split into ``lines``."""
    text = lines[line - 1]
    return sum(len(x) for x in lines[:line - 1]) + len(text.encode()[:col].decode())


def _import_line(path: pathlib.Path, module: str) -> str:
    """The relative module path from the package of ``path`` to ``module`` (``..memory.memory_entries``)."""
    here = path.relative_to(ROOT).with_suffix("").parts[:-1]
    there = module.split(".")
    common = 0
    while common < min(len(here), len(there)) and here[common] == there[common]:
        common += 1
    return "." * (len(here) - common + 1) + ".".join(there[common:])


def convert(path: pathlib.Path, defs: Defs) -> int:
    """Rewrite the string rows of one module in place; returns how many strings it rewrote."""
    source = path.read_text()
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, str]] = []
    names: set[str] = set()
    classes: set[tuple[str, str]] = set()
    for node, runtime in _rows(tree):
        row = _string(node.args[0]) if node.args else "?"
        conv = Converter(defs, row or "?")
        for target, what in _targets(node, runtime):
            text = _string(target)
            assert text is not None and target.end_lineno is not None and target.end_col_offset is not None
            expr = conv.shape(text, runtime) if what == "shape" else conv.decoder(text)
            start = _offset(lines, target.lineno, target.col_offset)
            end = _offset(lines, target.end_lineno, target.end_col_offset)
            col = start - _offset(lines, target.lineno, 0)
            rest = lines[target.end_lineno - 1][end - _offset(lines, target.end_lineno, 0):].rstrip("\n")
            tail = len(rest)
            text = "None" if expr is None else expr.fmt(col, tail)
            if what == "decoder" and "\n" not in text and col + len(text) + tail > WIDTH:
                start -= len("decoder=")  # decoder=kind(...) on a line of its own
                while source[start - 1] == " ":
                    start -= 1
                text = "\n" + " " * (node.col_offset + 4) + "decoder=" + text
            edits.append((start, end, text))
        names |= conv.names
        classes |= conv.classes
    if not edits:
        return 0
    for start, end, text in sorted(edits, reverse=True):
        source = source[:start] + text + source[end:]
    source = _add_imports(path, source, names, classes)
    path.write_text(source)
    subprocess.run([sys.executable, "-m", "ruff", "check", "--fix", "--select", "I,F401", "-q", str(path)],
                   check=False, cwd=ROOT)
    return len(edits)


def _add_imports(path: pathlib.Path, source: str, names: set[str], classes: set[tuple[str, str]]) -> str:
    """Add the constructors of ``rows`` to the module's ``from .rows import`` line and import the classes the
    rows name, after it (ruff sorts them)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    imp = next(n for n in tree.body if isinstance(n, ast.ImportFrom) and (n.module or "").endswith("rows")
               and n.module in ("rows",) and n.level >= 1)
    have = {a.name for a in imp.names}
    wanted = sorted(have | names, key=lambda n: (not n[:1].isupper(), n))
    prefix = "." * imp.level + "rows"
    new = [f"from {prefix} import {', '.join(wanted)}\n"]
    for module, cls in sorted(classes):
        new.append(f"from {_import_line(path, module)} import {cls}\n")
    assert imp.end_lineno is not None
    lines[imp.lineno - 1:imp.end_lineno] = new
    return "".join(lines)


def files() -> list[pathlib.Path]:
    """The modules that hold rows."""
    return [*sorted(CORE.glob("*/*_rows.py")), CORE / "runtime_rows.py", CORE / "api.py"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when a row is still a string; change nothing")
    ap.add_argument("files", nargs="*", type=pathlib.Path)
    ns = ap.parse_args(argv)
    paths = [p.resolve() for p in ns.files] or files()
    if ns.check:
        left = [f"{p.relative_to(ROOT)}: {_string(n.args[0]) if n.args else '?'}" for p in paths
                for n, rt in _rows(ast.parse(p.read_text())) if _targets(n, rt)]
        print("\n".join(left) or "no row in the string notation")
        return 1 if left else 0
    defs = definitions()
    total = 0
    for p in paths:
        n = convert(p, defs)
        total += n
        if n:
            print(f"{p.relative_to(ROOT)}: {n} strings rewritten")
    print(f"{total} strings rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
