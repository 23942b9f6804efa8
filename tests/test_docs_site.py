"""The documentation site (mkdocs.yml): it builds in strict mode, and strict mode catches what it must."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("mkdocs", reason="mkdocs comes with the test extra")
pytest.importorskip("mkdocstrings_handlers.python", reason="mkdocstrings-python comes with the test extra")


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          capture_output=True, text=True, timeout=300, cwd=config.parent)


def test_the_site_builds_in_strict_mode(tmp_path):
    """Every page, the API reference generated from the docstrings, no broken internal link, and every example
    of the pages marked to run them passing."""
    r = build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert r.returncode == 0, r.stderr[-4000:]
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text()
    assert "simcuda.Driver" in api and "cuStreamBeginCapture" in api
    assert (tmp_path / "site" / "tutorial" / "capture-in-ten-programs" / "index.html").exists()


def small_site(tmp_path: Path, page: str) -> Path:
    """A one-page site with the project's example hook."""
    (tmp_path / "docs" / "_hooks").mkdir(parents=True)
    shutil.copy(ROOT / "docs" / "_hooks" / "run_examples.py", tmp_path / "docs" / "_hooks")
    (tmp_path / "docs" / "index.md").write_text(page)
    cfg = tmp_path / "mkdocs.yml"
    cfg.write_text("site_name: t\nstrict: true\nexclude_docs: |\n  _hooks/\nhooks:\n  - docs/_hooks/run_examples.py\n")
    return cfg


def test_a_broken_internal_link_fails_the_build(tmp_path):
    """A link to a page that does not exist stops a strict build."""
    r = build(small_site(tmp_path, "# t\n\n[gone](nowhere.md)\n"), tmp_path / "site")
    assert r.returncode != 0 and "nowhere.md" in r.stderr


def test_a_failing_example_fails_the_build(tmp_path):
    """On a page marked to run its examples, one that raises stops the build, naming the page and the example;
    the examples run on the simulator (a capture error is a code, not a crash)."""
    good = ("# t\n\n<!-- examples: run -->\n\n```python\nfrom cuda.bindings import driver as cu\n"
            "assert cu.cuInit(0) == (cu.CUresult.CUDA_SUCCESS,)\n```\n")
    assert build(small_site(tmp_path / "a", good), tmp_path / "a" / "site").returncode == 0
    bad = good + "\n```python\nassert cu.cuDeviceGetCount()[1] == 5\n```\n"
    r = build(small_site(tmp_path / "b", bad), tmp_path / "b" / "site")
    assert r.returncode != 0 and "index.md: example 2 fails: AssertionError" in r.stderr
