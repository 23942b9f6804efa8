"""mkdocs hook: ship the stylesheet of the code highlighting with the site, made from Pygments at build time.

pymdownx.highlight (mkdocs.yml) colours code blocks with Pygments, which writes CSS classes; the colours come from
``css/pygments.css``, generated here from the Pygments style :data:`STYLE`, so the site needs no CDN (the theme's
highlight.js, which loads from one, is switched off).
"""
from __future__ import annotations

from typing import Any

STYLE = "friendly"
PATH = "css/pygments.css"


def on_files(files: Any, config: Any, **_: Any) -> Any:
    """mkdocs event: add the generated stylesheet to the site's files (``extra_css`` links it)."""
    from mkdocs.structure.files import File
    from pygments.formatters import HtmlFormatter

    css = HtmlFormatter(style=STYLE).get_style_defs(".highlight")
    files.append(File.generated(config, PATH, content=css + "\n"))
    return files
