"""mkdocs hook: run the Python examples of the pages that ask for it, so the site does not build with a broken one.

A page that holds ``<!-- examples: run -->`` has each of its ```` ```python ```` blocks executed, in order, in one
namespace, under a fresh simulated driver with ``simcuda.patch()`` active; a block that raises fails the build.
"""
from __future__ import annotations

import re
from typing import Any

MARK = "<!-- examples: run -->"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Run the page's examples when it carries :data:`MARK`; the markdown is returned unchanged."""
    if MARK not in markdown:
        return markdown
    import contextlib
    import io

    import simcuda
    namespace: dict[str, Any] = {"__name__": f"docs_example_{page.file.src_uri}"}
    old = simcuda.use(simcuda.Driver())
    try:
        with simcuda.patch(), contextlib.redirect_stdout(io.StringIO()):
            for i, m in enumerate(_BLOCK.finditer(markdown), 1):
                try:
                    exec(compile(m.group(1), f"{page.file.src_uri} example {i}", "exec"), namespace)
                except Exception as e:
                    raise RuntimeError(f"{page.file.src_uri}: example {i} fails: {type(e).__name__}: {e}") from e
    finally:
        simcuda.use(old)
    return markdown
