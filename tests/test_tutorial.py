"""docs/tutorial/capture-in-ten-programs.md: its ten programs run as they are shown, and the page is fresh."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("gen_tutorial", ROOT / "tools" / "gen_tutorial.py")
assert _spec is not None and _spec.loader is not None
gen = importlib.util.module_from_spec(_spec)
sys.modules["gen_tutorial"] = gen
_spec.loader.exec_module(gen)


def test_each_capture_code_has_one_program():
    """The ten programs make 900, 901, ..., 908 and 910 happen, one each, in that order."""
    codes = [gen._code(p) for p in sorted(gen.PROGRAMS.glob("p*.py"))]
    assert codes == [900, 901, 902, 903, 904, 905, 906, 907, 908, 910]


def test_the_page_and_its_pictures_are_what_the_programs_do():
    """Running every program again gives the committed page (source, output, why) and DOT pictures, each with
    its rendered PNG (python tools/gen_tutorial.py regenerates them)."""
    page, dots = gen.build()
    assert gen.PAGE.read_text() == page, "stale: run python tools/gen_tutorial.py"
    assert len(dots) >= 10
    for name, text in dots.items():
        assert (gen.PICTURES / f"{name}.dot").read_text() == text, name
        assert (gen.PICTURES / f"{name}.png").stat().st_size > 1000, name
        assert f"(pictures/{name}.png)" in page
    assert sorted(p.stem for p in gen.PICTURES.glob("*.dot")) == sorted(dots)  # no picture left over


def test_an_unjoined_picture_marks_the_node_that_was_never_joined():
    """The 904 picture draws the side stream's memset (node 1) red, linked to the note naming the failure."""
    dot = (gen.PICTURES / "p05_unjoined_capture_1_failed.dot").read_text()
    assert '"graph_1_node_1" [color="red", fontcolor="red", penwidth="3"];' in dot
    assert '"capture_1_failure" -> "graph_1_node_1"' in dot
