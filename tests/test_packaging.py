"""Packaging facts an installed wheel relies on."""
from __future__ import annotations

import importlib.resources
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_package_ships_its_py_typed_marker():
    """``simcuda/py.typed`` exists (PEP 561) and ``pyproject.toml`` puts it in the wheel as package data."""
    assert importlib.resources.files("simcuda").joinpath("py.typed").is_file()
    text = (ROOT / "pyproject.toml").read_text()
    section = re.search(r"^\[tool\.setuptools\.package-data\]\n(.*?)(?:^\[|\Z)", text, re.S | re.M)
    assert section is not None and re.search(r'^simcuda = \[[^\]]*"py\.typed"', section.group(1), re.M)
