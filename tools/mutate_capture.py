#!/usr/bin/env python3
"""Mutation testing of the capture rule engine, ``simcuda/_core/capture/capture_rules.py`` (issue 8; not part of CI).

Usage (from the repository root, in the project's virtual environment)::

    python tools/mutate_capture.py                 # every mutant, 2 processes, prints score and survivors
    python tools/mutate_capture.py -j 1            # one process (the machine is shared)
    python tools/mutate_capture.py --only unjoined # mutants whose id contains "unjoined"
    python tools/mutate_capture.py --list          # the mutants, without running anything
    python tools/mutate_capture.py --json out.json # also write every result as JSON

Why a runner of its own: mutmut 3.8 hung while collecting its statistics (in the conformance cases
run on a second thread) and does not mutate module-level tables (``OPS``), and
cosmic-ray runs the whole test command per mutant (759 mutants at ~5 s each is an hour on two
cores). This one needs only the standard library and pytest (the project's ``test`` extra):

* **Mutants.** ``capture.py`` is parsed with :mod:`ast`; each mutant is one change of the tree,
  compiled from the tree (no source rewriting). Operators: comparison flips (``==``/``!=``,
  ``is``/``is not``, ``in``/``not in``, ``<``/``>=`` and the boundary variants), ``and``/``or``
  swaps, ``not`` removal, negation of ``if``/``while``/conditional-expression tests (where a flip does
  not already say the same), integer constants (``0``->``1``, ``1``->``0``, ``n``->``n+1``),
  ``True``/``False``, arithmetic operator swaps, ``break``/``continue`` swaps, deletion of a
  statement (assignment, expression, ``raise``, ``return``, ``if``, ``for``, ``while``: replaced by
  ``pass``), and deletion of one entry of a module-level table (a dict or tuple constant). Not
  mutated: docstrings and other strings (the ``why`` texts), annotations (strings under
  ``from __future__ import annotations``) and ``__slots__``. The state machine ``MACHINE`` is
  mutated like any table: the engine executes it (``capture.step``).
* **Tests.** pytest collects ``tests/core`` and ``tests/conformance`` once, in this process. A
  first child runs every test unmutated under a line tracer (threads included), checks that all
  pass, and records which tests execute which lines of ``capture.py``. Each mutant then runs in a
  child forked from the collected session: the mutated module is executed into the live
  ``simcuda._core.capture.capture_rules`` module (every other module reaches it as ``cap.<name>``; a null mutant,
  the unmutated module executed the same way, must pass first), then only the
  tests that execute the mutated lines run, in collection order, stopping at the first failure
  (``-x``). Mutants of code run at import (tables, default arguments) run every test that touches
  ``capture.py``. A mutant is *killed* when a test fails or errors, when the mutated module fails
  to execute, or when the child runs past its timeout (``--timeout-factor`` times the tests'
  unmutated time, plus ``--timeout-base`` seconds); it *survives* otherwise; a mutant of a line no
  test executes is *uncovered* (counted as surviving).
* **Score** = killed / (mutants - equivalent). Equivalent mutants (a change no test can observe
  because the behaviour is the same) are listed in :data:`EQUIVALENT` with the reason, by the
  mutant's stable id ``scope|operator|code#k`` (``scope`` the enclosing function, ``code`` the
  mutated code, ``k`` counting equal pairs), which survives edits elsewhere in the file.

POSIX only (it forks). The script lowers its own priority (``nice`` 10) unless ``--no-nice``. Exit
status: 0 when the score reaches ``--fail-under`` (default 90), 1 when it does not, 2 when the unmutated
tests fail.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import signal
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "simcuda" / "_core" / "capture" / "capture_rules.py"
MODULE = "simcuda._core.capture.capture_rules"
TEST_DIRS = ("tests/core", "tests/conformance")
#: module-level names never mutated (see the module docstring)
SKIP_NAMES = {"__slots__"}

#: mutant id -> why no test can tell it from the original (an equivalent mutant); see docs/mutation.md
EQUIVALENT: dict[str, str] = {
    "<module>|negate|if TYPE_CHECKING#0":
        "the block only imports names for the type checker; at run time annotations are strings",
    "<module>|drop-entry|MACHINE: (ACTIVE, USE)#0":
        "refuse_use returns before the table look-up for an ACTIVE capture (the hot path); the row documents "
        "the transition for the generated diagram",
    "end|boolop|code or 903  [-> and]#0":
        "the END_ON_MEMBER rows always carry 903, so the fallback (there for the type checker) is never taken",
    "end|constant|code or 903  [903 -> 904]#0": "as above: the fallback is never taken",
    "end|boolop|code or 908  [-> and]#0":
        "the END_WRONG_THREAD rows always carry 908, so the fallback (there for the type checker) is never taken",
    "end|constant|code or 908  [908 -> 909]#0": "as above: the fallback is never taken",
    "on_stream_destroyed|delete|step(seq, MEMBER_DESTROYED)#0":
        "both MEMBER_DESTROYED rows keep the status: applying them changes nothing",
    "on_stream_destroyed|delete|step(seq, ORIGIN_DESTROYED)#0":
        "terminate() right after drops every reference to the sequence, so its status is never read again",
    "<module>|constant|TERMINATED = 3  [3 -> 4]#0":
        "TERMINATED is internal: a terminated sequence's streams report NONE, and 4 differs from 0, 1, 2 as 3 does",
    "<module>|drop-entry|STATUS_NAMES: TERMINATED#0":
        "no label of a terminated sequence is ever made: terminate() drops every reference to it (streams, events, "
        "the graph's capture_target_of, _live_captures), and end()'s texts after terminate() use seq.id only",
    "CaptureSequence.__init__|delete|self.ctx = origin.ctx#0":
        "seq.ctx is never read (a dead attribute): the rules read each member stream's ctx",
    "CaptureSequence.__init__|delete|self.invalidated_by = ''#0":
        "invalidated_by is read only when the status is INVALIDATED, which only invalidate() sets, after assigning it",
    "terminate|boolop|e.state == CAPTURED and e.capture is seq  [-> or]#0":
        "every event in seq.events is CAPTURED by seq: _capture_event puts it there so, and a later record or "
        "destroy takes it out (_uncapture_event), so both halves are always true",
    "begin|delete|return seq#0":
        "the only callers (Driver.stream_begin_capture and stream_begin_capture_to_graph) ignore the result",
    "unjoined|delete|if not candidates:#0":
        "a fast path: with no candidates the walk runs and the final loop finds nothing, returning '' as well",
    "unjoined|delete|return ''#0":
        "the same fast path: falling through, the walk runs and the final loop returns '' as well",
    "unjoined|delete|return ''#1":
        "falling off the end returns None, and the only caller (end) tests the result's truth only",
    "OpKind|constant|cig_code: int = 0  [0 -> 1]#0":
        "the default is never read: cig_code is read only for kinds refused on CIG streams (CIG_REFUSE), and each "
        "of them sets its own",
    "OpKind|constant|False -> True#3":
        "user_code=True for work that calls no user code only marks its stream busy around a run that holds the "
        "driver lock throughout, so no other thread can see it busy",
    "enqueue|delete|if k.on_cig == NOTHING:#0":
        "the only such kind (upload) also does NOTHING on an uncaptured stream, and a CIG stream never belongs to a "
        "capture: falling through returns None as well",
    "enqueue|delete|return None#1": "the same: the upload on a CIG stream falls through to its eager NOTHING",
    "enqueue|delete|return None#2":
        "after a join, falling through reaches the in-capture tests again: JOIN is not REFUSE, so 'return None' "
        "(NOTHING) follows",
    "enqueue|delete|return None#3":
        "an upload into a capture falls through to the eager part: not unsafe, and its eager NOTHING returns None",
    "enqueue|delete|return None#4":
        "the last statement of enqueue: falling off the end returns None too",
    "_uncapture_event|delete|event.capture = None#0":
        "every caller overwrites event.capture next: _capture_event (the new sequence), an uncaptured record "
        "path (Scheduler.record_uncaptured sets None), ctx_record_event (Scheduler.complete_event), event_destroy "
        "(the event is destroyed)",
    "_fork|delete|drv.scheduler.wait_uncaptured(stream, event)#0":
        "Scheduler.wait_uncaptured is a no-op (one global queue already orders the record first)",
}


# -- mutant generation -------------------------------------------------------------------------
class Mutant:
    """One change of the tree: where it is, what it does, and its stable id."""

    __slots__ = ("index", "op", "arg", "scope", "code", "line", "end_line", "import_time", "id")

    def __init__(self, index: int, op: str, arg: Any, scope: str, code: str, line: int, end_line: int,
                 import_time: bool) -> None:
        self.index, self.op, self.arg = index, op, arg
        self.scope, self.code, self.line, self.end_line = scope, code, line, end_line
        self.import_time = import_time
        self.id = ""

    def describe(self) -> str:
        """``line N (scope): op: code`` for the report."""
        return f"line {self.line} ({self.scope}): {self.op}: {self.code}"


_CMP_SWAPS: dict[type, tuple[type, ...]] = {
    ast.Eq: (ast.NotEq,), ast.NotEq: (ast.Eq,), ast.Is: (ast.IsNot,), ast.IsNot: (ast.Is,),
    ast.In: (ast.NotIn,), ast.NotIn: (ast.In,), ast.Lt: (ast.GtE, ast.LtE), ast.LtE: (ast.Gt, ast.Lt),
    ast.Gt: (ast.LtE, ast.GtE), ast.GtE: (ast.Lt, ast.Gt),
}
_CMP_TEXT = {ast.Eq: "==", ast.NotEq: "!=", ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
             ast.NotIn: "not in", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_BIN_SWAPS: dict[type, type] = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv,
                                ast.FloorDiv: ast.Mult, ast.BitOr: ast.BitAnd, ast.BitAnd: ast.BitOr,
                                ast.RShift: ast.LShift, ast.LShift: ast.RShift, ast.Mod: ast.Mult}
_DELETABLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Raise, ast.Return, ast.If, ast.For,
              ast.While, ast.Delete, ast.With, ast.Try)
_FLIP_ONLY = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot, ast.In, ast.NotIn)


def _indexed(tree: ast.AST) -> list[tuple[ast.AST, ast.AST | None, str | None, int | None]]:
    """Every node in a deterministic pre-order: ``(node, parent, field, position in the field's list)``."""
    out: list[tuple[ast.AST, ast.AST | None, str | None, int | None]] = []
    stack: list[tuple[ast.AST, ast.AST | None, str | None, int | None]] = [(tree, None, None, None)]
    while stack:
        node, parent, field, pos = stack.pop()
        out.append((node, parent, field, pos))
        children = []
        for name, value in ast.iter_fields(node):
            if isinstance(value, list):
                children.extend((v, node, name, i) for i, v in enumerate(value) if isinstance(v, ast.AST))
            elif isinstance(value, ast.AST):
                children.append((value, node, name, None))
        stack.extend(reversed(children))
    return out


def _short(node: ast.AST) -> str:
    text = ast.unparse(node).splitlines()[0]
    return text if len(text) <= 90 else text[:87] + "..."


def _is_docstring(node: ast.AST, parent: ast.AST | None, pos: int | None) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str) and pos == 0
            and isinstance(parent, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))


def generate(source: str) -> list[Mutant]:
    """All mutants of ``source``, each with its stable id."""
    tree = ast.parse(source)
    nodes = _indexed(tree)
    index_of = {id(n): i for i, (n, *_r) in enumerate(nodes)}
    info: dict[int, tuple[str, bool, bool]] = {}  # id(node) -> (scope, import-time, skipped)

    def visit(node: ast.AST, scope: str, import_time: bool, skipped: bool) -> None:
        """Note each node's scope, whether it runs at import, and whether it is never mutated."""
        info[id(node)] = (scope, import_time, skipped)
        for name, value in ast.iter_fields(node):
            for child in (value if isinstance(value, list) else [value]):
                if not isinstance(child, ast.AST):
                    continue
                s, it, sk = scope, import_time, skipped
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    s = f"{scope}.{node.name}".lstrip(".")
                    if name == "body":
                        it = False
                    elif name == "returns":
                        sk = True
                if isinstance(node, ast.ClassDef) and name == "body":
                    s = f"{scope}.{node.name}".lstrip(".")
                if isinstance(node, ast.arg) and name == "annotation":
                    sk = True
                if isinstance(node, ast.AnnAssign) and name == "annotation":
                    sk = True
                if isinstance(node, (ast.Assign, ast.AnnAssign)) and it:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    if any(isinstance(t, ast.Name) and t.id in SKIP_NAMES for t in targets):
                        sk = True
                if isinstance(node, (ast.ImportFrom, ast.Import)):
                    sk = True
                visit(child, s, it, sk)

    visit(tree, "", True, False)
    out: list[Mutant] = []

    def add(node: ast.AST, op: str, arg: Any, code: str) -> None:
        """Append the mutant ``op`` of ``node``."""
        scope, import_time, _sk = info[id(node)]
        line = getattr(node, "lineno", 0)
        out.append(Mutant(index_of[id(node)], op, arg, scope or "<module>", code, line,
                          getattr(node, "end_lineno", line) or line, import_time))

    for node, parent, field, pos in nodes:
        _scope, import_time, skipped = info[id(node)]
        if skipped:
            continue
        if isinstance(node, ast.Compare):
            for k, o in enumerate(node.ops):
                for new in _CMP_SWAPS.get(type(o), ()):
                    add(node, "compare", (k, new.__name__), f"{_short(node)}  [{_CMP_TEXT[type(o)]} -> "
                                                            f"{_CMP_TEXT[new]}]")
        elif isinstance(node, ast.BoolOp):
            new = "or" if isinstance(node.op, ast.And) else "and"
            add(node, "boolop", None, f"{_short(node)}  [-> {new}]")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            add(node, "drop-not", None, _short(node))
        elif isinstance(node, ast.BinOp) and type(node.op) in _BIN_SWAPS:
            add(node, "binop", None, f"{_short(node)}  [{type(node.op).__name__} -> "
                                     f"{_BIN_SWAPS[type(node.op)].__name__}]")
        elif isinstance(node, ast.Constant) and not (field == "value" and isinstance(parent, ast.Expr)):
            v = node.value
            if isinstance(v, bool):
                add(node, "constant", not v, f"{v!r} -> {not v!r}")
            elif isinstance(v, int):
                new = {0: 1, 1: 0}.get(v, v + 1)
                where = _short(parent) if parent is not None else str(v)
                where = where if len(where) <= 60 else where[:57] + "..."
                add(node, "constant", new, f"{where}  [{v} -> {new}]")
        elif isinstance(node, (ast.Break, ast.Continue)):
            add(node, "break-continue", None, _short(node))
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            t = node.test
            flip_says_it = (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], _FLIP_ONLY))
            if not flip_says_it and not (isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not)):
                add(node, "negate", None, f"{type(node).__name__.lower()} {_short(t)}")
        if (isinstance(node, _DELETABLE) and isinstance(parent, ast.AST) and pos is not None and not import_time
                and not _is_docstring(node, parent, pos)):
            add(node, "delete", None, _short(node))
        targets = (parent.targets if isinstance(parent, ast.Assign) else [parent.target]
                   if isinstance(parent, ast.AnnAssign) else [])
        if (import_time and isinstance(node, (ast.Dict, ast.Tuple, ast.List)) and field == "value"
                and len(targets) == 1 and isinstance(targets[0], ast.Name)):
            elts = node.keys if isinstance(node, ast.Dict) else node.elts
            for k, e in enumerate(elts):
                label = _short(e) if e is not None else "**"
                add(node, "drop-entry", k, f"{targets[0].id}: {label}")
    seen: Counter[str] = Counter()
    for m in out:
        key = f"{m.scope}|{m.op}|{m.code}"
        m.id = f"{key}#{seen[key]}"
        seen[key] += 1
    return out


def apply(source: str, m: Mutant) -> ast.Module:
    """A fresh tree of ``source`` with mutant ``m`` applied."""
    tree = ast.parse(source)
    node, parent, field, pos = _indexed(tree)[m.index]
    if m.op == "compare":
        k, new = m.arg
        node.ops[k] = getattr(ast, new)()
    elif m.op == "boolop":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif m.op == "drop-not":
        _replace(parent, field, pos, node.operand)
    elif m.op == "binop":
        node.op = _BIN_SWAPS[type(node.op)]()
    elif m.op == "constant":
        node.value = m.arg
    elif m.op == "break-continue":
        _replace(parent, field, pos, ast.Continue() if isinstance(node, ast.Break) else ast.Break())
    elif m.op == "negate":
        node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
    elif m.op == "delete":
        _replace(parent, field, pos, ast.Pass())
    elif m.op == "drop-entry":
        if isinstance(node, ast.Dict):
            del node.keys[m.arg]
            del node.values[m.arg]
        else:
            del node.elts[m.arg]
    else:  # pragma: no cover - a new operator without its application
        raise ValueError(m.op)
    return ast.fix_missing_locations(tree)


def _replace(parent: ast.AST, field: str, pos: int | None, new: ast.AST) -> None:
    if pos is None:
        setattr(parent, field, new)
    else:
        getattr(parent, field)[pos] = new


# -- running -----------------------------------------------------------------------------------
class _Tracer:
    """Records, per test, the lines of ``capture.py`` it executes (on every thread)."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.current: set[int] = set()

    def global_trace(self, frame: Any, event: str, arg: Any) -> Any:
        """The ``sys.settrace`` hook: trace frames of the target file only."""
        if frame.f_code.co_filename == self.filename:
            self.current.add(frame.f_lineno)
            return self.local_trace
        return None

    def local_trace(self, frame: Any, event: str, arg: Any) -> Any:
        """The frame-local hook: record each line."""
        if event == "line":
            self.current.add(frame.f_lineno)
        return self.local_trace


def _run_items(items: list[Any], stop_first: bool, tracer: _Tracer | None = None) -> tuple[bool, list[dict]]:
    """Run ``items`` with pytest's protocol (no reporting); ``(all passed, per-item records)``."""
    from _pytest.runner import runtestprotocol
    records = []
    ok = True
    for i, item in enumerate(items):
        if tracer is not None:
            tracer.current = set()
        t0 = time.perf_counter()
        reports = runtestprotocol(item, log=False, nextitem=items[i + 1] if i + 1 < len(items) else None)
        failed = any(r.failed for r in reports)
        skipped = any(r.skipped for r in reports) and not failed
        records.append({"failed": failed, "skipped": skipped, "seconds": time.perf_counter() - t0,
                        "lines": sorted(tracer.current) if tracer is not None else []})
        if failed:
            ok = False
            if stop_first:
                break
    return ok, records


def _quiet_child() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)


def _baseline(items: list[Any]) -> list[dict]:
    """Run every item unmutated under the tracer in a forked child; its per-item records."""
    fd, path = tempfile.mkstemp(suffix=".json", prefix="mutate_capture_")
    os.close(fd)
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            _quiet_child()
            tracer = _Tracer(str(TARGET))
            threading.settrace(tracer.global_trace)
            sys.settrace(tracer.global_trace)
            _ok, records = _run_items(items, stop_first=False, tracer=tracer)
            sys.settrace(None)
            with open(path, "w") as fh:
                json.dump(records, fh)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    try:
        with open(path) as fh:
            records = json.load(fh)
    except ValueError:
        raise SystemExit(f"the traced baseline run died (exit {os.waitstatus_to_exitcode(status)}); run "
                         f"python -m pytest {' '.join(TEST_DIRS)} to see why") from None
    finally:
        os.unlink(path)
    return records


def _start_mutant(code_obj: Any, items: list[Any]) -> int:
    """Fork a child that installs the mutated module and runs ``items`` (-x); returns its pid.

    Child exit status: 0 all passed (survived), 1 a test failed (killed), 2 the module did not execute.
    """
    pid = os.fork()
    if pid != 0:
        return pid
    status = 2
    try:
        _quiet_child()
        mod = sys.modules[MODULE]
        try:
            exec(code_obj, mod.__dict__)
        except BaseException:
            os._exit(2)
        ok, _records = _run_items(items, stop_first=True)
        status = 0 if ok else 1
    except BaseException:
        status = 1
    finally:
        os._exit(status)


class _Session:
    """The pytest plugin that takes over the run loop: baseline, then every mutant."""

    def __init__(self, args: argparse.Namespace, out: Any) -> None:
        self.args = args
        self.out = out
        self.rc = 0

    def say(self, text: str = "") -> None:
        """Print to the terminal this script started with (pytest may capture sys.stdout)."""
        self.out.write(text + "\n")
        self.out.flush()

    def pytest_runtestloop(self, session: Any) -> bool:
        """Run the mutation analysis instead of the ordinary test loop."""
        try:
            self.rc = self._run(session)
        except KeyboardInterrupt:
            self.say("interrupted")
            self.rc = 130
        return True

    def _run(self, session: Any) -> int:
        a = self.args
        items = list(session.items)
        source = TARGET.read_text()
        mutants = generate(source)
        if a.only:
            mutants = [m for m in mutants if a.only in m.id]
        t_start = time.perf_counter()
        self.say(f"mutate_capture: {len(mutants)} mutants of {TARGET.relative_to(ROOT)}; {len(items)} tests "
                 f"collected from {', '.join(TEST_DIRS)}; {a.jobs} process(es)")
        records = _baseline(items)
        broken = [items[i].nodeid for i, r in enumerate(records) if r["failed"]]
        if broken:
            self.say("the unmutated tests fail, fix them first:\n  " + "\n  ".join(broken))
            return 2
        covering: dict[int, list[int]] = defaultdict(list)
        touching = []
        for i, r in enumerate(records):
            if r["lines"] and not r["skipped"]:
                touching.append(i)
                for ln in r["lines"]:
                    covering[ln].append(i)
        self.say(f"baseline: all pass in {sum(r['seconds'] for r in records):.1f} s; {len(touching)} tests "
                 f"execute capture.py")
        # the null mutant: the unmutated module executed into the live one must pass, or every verdict is void
        pid = _start_mutant(compile(ast.parse(source), str(TARGET), "exec", dont_inherit=True),
                            [items[i] for i in touching])
        null = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        if null != 0:
            self.say(f"the unmutated module, executed into the live one, fails the tests (exit {null}): the runner's "
                     "premise (every module reaches capture.py as cap.<name>) no longer holds")
            return 2
        results: dict[str, str] = {}
        queue = list(mutants)
        running: dict[int, tuple[Mutant, float]] = {}
        done = 0
        while queue or running:
            while queue and len(running) < a.jobs:
                m = queue.pop(0)
                if m.import_time:
                    sel = touching
                else:
                    sel = sorted({i for ln in range(m.line, m.end_line + 1) for i in covering.get(ln, ())})
                if not sel:
                    results[m.id] = "uncovered"
                    continue
                try:
                    code_obj = compile(apply(source, m), str(TARGET), "exec", dont_inherit=True)
                except (SyntaxError, ValueError, TypeError):
                    results[m.id] = "killed (does not compile)"
                    continue
                budget = a.timeout_base + a.timeout_factor * sum(records[i]["seconds"] for i in sel)
                pid = _start_mutant(code_obj, [items[i] for i in sel])
                running[pid] = (m, time.perf_counter() + budget)
            time.sleep(0.005)
            for pid, (m, deadline) in list(running.items()):
                wpid, status = os.waitpid(pid, os.WNOHANG)
                if wpid == 0:
                    if time.perf_counter() > deadline:
                        os.kill(pid, signal.SIGKILL)
                        os.waitpid(pid, 0)
                        results[m.id] = "killed (timeout)"
                        del running[pid]
                    continue
                del running[pid]
                code = os.waitstatus_to_exitcode(status)
                results[m.id] = {0: "survived", 1: "killed", 2: "killed (module does not execute)"}.get(
                    code, f"killed (exit {code})")
            finished = len(results)
            if a.progress and finished // 50 > done // 50:
                self.say(f"  {finished}/{len(mutants)} done, {time.perf_counter() - t_start:.0f} s")
            done = finished
        return self._report(mutants, results, time.perf_counter() - t_start)

    def _report(self, mutants: list[Mutant], results: dict[str, str], seconds: float) -> int:
        a = self.args
        killed = [m for m in mutants if results[m.id].startswith("killed")]
        equivalent = [m for m in mutants if m.id in EQUIVALENT and not results[m.id].startswith("killed")]
        wrongly_listed = [m for m in mutants if m.id in EQUIVALENT and results[m.id].startswith("killed")]
        survivors = [m for m in mutants if not results[m.id].startswith("killed") and m.id not in EQUIVALENT]
        judged = len(mutants) - len(equivalent)
        score = 100.0 * len(killed) / judged if judged else 100.0
        by_kind = Counter(results[m.id] for m in mutants)
        counts = ", ".join(f"{v} {k}" for k, v in sorted(by_kind.items()))
        self.say(f"\n{len(mutants)} mutants in {seconds:.0f} s: {counts}")
        if equivalent:
            self.say(f"\nequivalent ({len(equivalent)}, not counted):")
            for m in equivalent:
                self.say(f"  {m.describe()}\n      id: {m.id}\n      why: {EQUIVALENT[m.id]}")
        if wrongly_listed:
            self.say(f"\nlisted as equivalent but killed ({len(wrongly_listed)}; remove them from EQUIVALENT):")
            for m in wrongly_listed:
                self.say(f"  {m.id}")
        stale = sorted(set(EQUIVALENT) - {m.id for m in mutants}) if not a.only else []
        if stale:
            self.say(f"\nEQUIVALENT ids that match no mutant any more ({len(stale)}):")
            for k in stale:
                self.say(f"  {k}")
        if survivors:
            self.say(f"\nsurvivors ({len(survivors)}):")
            for m in survivors:
                self.say(f"  {m.describe()}  [{results[m.id]}]\n      id: {m.id}")
        self.say(f"\nscore: {len(killed)} killed / {judged} non-equivalent = {score:.1f}% "
                 f"(target {a.fail_under:g}%) in {seconds:.0f} s")
        if a.json:
            Path(a.json).write_text(json.dumps(
                [{"id": m.id, "line": m.line, "scope": m.scope, "op": m.op, "code": m.code,
                  "result": results[m.id], "equivalent": EQUIVALENT.get(m.id)} for m in mutants], indent=1))
        return 0 if score >= a.fail_under else 1


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run (or list) the mutants."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-j", "--jobs", type=int, default=2, help="mutants run at once (default 2)")
    p.add_argument("--only", default="", help="run only mutants whose id contains this text")
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    p.add_argument("--json", default="", help="write every result to this JSON file")
    p.add_argument("--fail-under", type=float, default=90.0, help="score (%%) below which the exit status is 1")
    p.add_argument("--timeout-factor", type=float, default=4.0, help="timeout: this times the tests' own time ...")
    p.add_argument("--timeout-base", type=float, default=10.0, help="... plus this many seconds (default 10)")
    p.add_argument("--progress", action="store_true", help="print a line every 50 mutants")
    p.add_argument("--no-nice", action="store_true", help="keep this process's priority (default: nice 10)")
    a = p.parse_args(argv)
    if a.list:
        for m in generate(TARGET.read_text()):
            if a.only in m.id:
                print(f"{m.describe()}\n    id: {m.id}" + (f"\n    equivalent: {EQUIVALENT[m.id]}"
                                                            if m.id in EQUIVALENT else ""))
        return 0
    try:
        import pytest
    except ImportError:
        print("pytest is needed: pip install -e '.[test]'", file=sys.stderr)
        return 2
    if not a.no_nice:
        os.nice(10)
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    out = os.fdopen(os.dup(1), "w")
    plugin = _Session(a, out)
    rc = pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:randomly", *TEST_DIRS], plugins=[plugin])
    if int(rc) not in (0, 5) and plugin.rc == 0:
        return int(rc)
    return plugin.rc


if __name__ == "__main__":
    raise SystemExit(main())
