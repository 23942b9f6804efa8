"""The examples of docs/testing.md run: every ``python`` block, in order, in one namespace, on a fresh driver."""
from __future__ import annotations

import pathlib
import re

import simcuda

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "testing.md"


def blocks() -> list[str]:
    """The page's ``python`` code blocks."""
    return re.findall(r"^```python\n(.*?)^```", DOC.read_text(), flags=re.S | re.M)


def test_the_page_has_examples():
    """docs/testing.md shows the machine, a subclass and the strategies; the planted-bug run (it patches the
    private engine, tests/stateful/test_planted_rules.py) is described in prose, not imported in an example."""
    text = "\n".join(blocks())
    for what in ("CaptureMachine", "model_class", "sts.programs", "sts.launch_configs"):
        assert what in text
    assert "simcuda._" not in text and "test_planted_rules.py" in DOC.read_text()


def test_every_python_block_of_docs_testing_runs():
    """Each python block of docs/testing.md runs without an error (their asserts are the checks)."""
    old = simcuda.use(simcuda.Driver())
    try:
        ns: dict[str, object] = {"__name__": "docs_testing"}
        for i, code in enumerate(blocks()):
            exec(compile(code, f"{DOC}:block{i}", "exec"), ns)  # the page's own examples
    finally:
        simcuda.use(old)
