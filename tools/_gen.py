"""What the page and table generators in tools/ share: write the output, or check that it is fresh."""
from __future__ import annotations

import pathlib
import sys


def write_or_check(path: pathlib.Path, text: str, argv: list[str] | None = None) -> int:
    """Write ``text`` to ``path`` (exit status 0), or with ``--check`` in ``argv`` (default ``sys.argv``) only
    compare: 0 when the file already holds ``text``, else 1 and a line saying which generator to run."""
    argv = sys.argv if argv is None else argv
    if "--check" in argv:
        if not path.exists() or path.read_text() != text:
            print(f"{path.name} is out of date; run tools/{pathlib.Path(argv[0]).name}")
            return 1
        return 0
    path.write_text(text)
    print(f"wrote {path}")
    return 0
