#!/usr/bin/env python3
"""Turn junit XML files from the conformance suite into a Markdown table of agreements per case.

Usage:
    python3 tools/conformance_table.py --out fidelity-run.md RUN=FILE.xml [RUN=FILE.xml ...] [--crashes DIR]
    python3 tools/conformance_table.py --list-ub FILE.xml      # node ids skipped as undefined behaviour

Each ``RUN=FILE.xml`` names one column (for example ``real-legacy=out/legacy.xml``). A test that
passed on the real driver *agrees* with the spec (the simulator is held to the same test); a
failure is a *disagreement*, shown with the first line of its message; skips show their reason.
``--crashes DIR`` adds ``*.crash.json`` records (``{"nodeid": ..., "run": ..., "rc": ...}``) written
by ``tools/conformance_on_gpu.sh`` for cases that killed their process.

Only the standard library is used, so the script runs on a bare GPU machine.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections import OrderedDict
from pathlib import Path

UB_HINT = "SIMCUDA_CONFORMANCE_UB"
CASE_RE = re.compile(r"^test_c(\d+)_")


def case_id(test_name: str, module: str) -> str:
    """``test_c039_x[real]`` -> ``C-039``; field cases (``test_field_cases``) -> ``C07``."""
    m = CASE_RE.match(test_name)
    if not m:
        return "?"
    num = m.group(1)
    if module.endswith("test_field_cases"):
        return f"C{num}"
    return f"C-{num}"


def nodeid(classname: str, name: str) -> str:
    return classname.replace(".", "/") + ".py::" + name


def read_junit(path: Path) -> list[dict]:
    """One dict per testcase: nodeid, module, name, outcome, message, properties."""
    root = ET.parse(path).getroot()
    out = []
    for tc in root.iter("testcase"):
        classname = tc.get("classname", "")
        name = tc.get("name", "")
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            el = tc.find(tag)
            if el is not None:
                outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[tag]
                message = (el.get("message") or el.text or "").strip()
                break
        props = {p.get("name"): p.get("value") for p in tc.iter("property")}
        out.append({"nodeid": nodeid(classname, name), "module": classname.rsplit(".", 1)[-1], "name": name,
                    "outcome": outcome, "message": message, "props": props})
    return out


def first_line(text: str, limit: int = 160) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    line = line.replace("|", "\\|")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def base_name(name: str) -> str:
    """Drop the backend from the parameter id: ``test_x[real-G]`` -> ``test_x[G]``, ``test_x[real]`` -> ``test_x``."""
    m = re.match(r"^(.*?)\[(.*)\]$", name)
    if not m:
        return name
    params = [p for p in m.group(2).split("-") if p not in ("fake", "real")]
    return m.group(1) + (f"[{'-'.join(params)}]" if params else "")


CELL = {"passed": "agrees", "failed": "**disagrees**", "error": "**error**", "skipped": "skipped",
        "crashed": "**crashed**"}


def build_table(runs: OrderedDict[str, list[dict]]) -> str:
    rows: OrderedDict[str, dict] = OrderedDict()
    for run, cases in runs.items():
        for c in cases:
            key = c["module"] + "::" + base_name(c["name"])
            row = rows.setdefault(key, {"case": case_id(c["name"], c["module"]), "test": base_name(c["name"]),
                                        "inferred": False, "cells": {}, "notes": []})
            if c["props"].get("inferred") == "yes":
                row["inferred"] = True
            row["cells"][run] = c["outcome"]
            if c["outcome"] != "passed" and c["message"]:
                row["notes"].append(f"{run}: {first_line(c['message'])}")
    counts = {run: {} for run in runs}
    for row in rows.values():
        for run, outcome in row["cells"].items():
            counts[run][outcome] = counts[run].get(outcome, 0) + 1
    lines = ["| case | test | [I] | " + " | ".join(runs) + " | notes |",
             "|---|---|---|" + "---|" * len(runs) + "---|"]
    for row in sorted(rows.values(), key=lambda r: (r["case"].startswith("C-"), r["case"], r["test"])):
        cells = [CELL.get(row["cells"].get(run, ""), "—") for run in runs]
        lines.append(f"| {row['case']} | `{row['test']}` | {'yes' if row['inferred'] else ''} | "
                     + " | ".join(cells) + " | " + "<br>".join(row["notes"]) + " |")
    summary = ["| run | " + " | ".join(CELL[k] for k in ("passed", "failed", "error", "skipped", "crashed")) + " |",
               "|---|---|---|---|---|---|"]
    for run, c in counts.items():
        summary.append(f"| {run} | " + " | ".join(str(c.get(k, 0)) for k in
                                                  ("passed", "failed", "error", "skipped", "crashed")) + " |")
    return "\n".join(summary) + "\n\n" + "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="*", help="RUN=FILE.xml pairs, one column each")
    ap.add_argument("--out", help="Markdown file to write (default: stdout)")
    ap.add_argument("--title", default="Conformance of the real driver with the spec")
    ap.add_argument("--crashes", help="folder with *.crash.json records")
    ap.add_argument("--list-ub", metavar="XML", help="print node ids skipped as undefined behaviour, then exit")
    args = ap.parse_args(argv)

    if args.list_ub:
        for c in read_junit(Path(args.list_ub)):
            if c["outcome"] == "skipped" and UB_HINT in c["message"]:
                print(c["nodeid"])
        return 0

    runs: OrderedDict[str, list[dict]] = OrderedDict()
    for spec in args.runs:
        run, _, path = spec.partition("=")
        if not path:
            ap.error(f"expected RUN=FILE.xml, got {spec!r}")
        p = Path(path)
        runs.setdefault(run, [])
        if p.exists():
            runs[run].extend(read_junit(p))
    if args.crashes:
        for f in sorted(Path(args.crashes).glob("*.crash.json")):
            rec = json.loads(f.read_text())
            cls, _, name = rec["nodeid"].partition("::")
            module = Path(cls).stem
            runs.setdefault(rec["run"], []).append(
                {"nodeid": rec["nodeid"], "module": module, "name": name, "outcome": "crashed",
                 "message": f"the process died (exit status {rec['rc']}) before writing a result", "props": {}})
    # a UB case re-run on its own replaces its skipped row from the main run of the same column
    for run, cases in runs.items():
        latest: OrderedDict[str, dict] = OrderedDict()
        for c in cases:
            if c["nodeid"] in latest and c["outcome"] == "skipped" and UB_HINT in c["message"]:
                continue
            latest[c["nodeid"]] = c
        runs[run] = list(latest.values())

    text = f"# {args.title}\n\n" + build_table(runs)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
