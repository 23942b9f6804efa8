"""mkdocs hook: turn the Sphinx roles the docstrings use (``:class:`Driver```, ``:meth:`~simcuda.Driver.advance```)
into code spans that link to the API reference where it documents the target.

The docstrings are written for Sphinx-style readers, and pages generated from them (the supported API, the
architecture) carry the same roles; Markdown renders a role as the text ``:class:`` before a code span. This hook
rewrites that rendered form in every page's HTML (after mkdocstrings has rendered the docstrings) into an
``<autoref ... optional>`` marker, which mkdocs-autorefs turns into a link when the target is documented and into
the plain code span otherwise (no warning: most private targets are deliberately not in the reference).

Sphinx's forms are kept: ``~a.b.C`` shows ``C``; ``title <target>`` shows the title; a name without a dot is looked
up as given and then under ``simcuda.``.
"""
from __future__ import annotations

import html
import re
from typing import Any

ROLES = ("attr", "class", "const", "data", "exc", "func", "meth", "mod", "obj")
# the rendered form: ``:class:<code>x</code>`` (the role's backticks became a code span), with an optional
# ``py:`` domain
RENDERED = re.compile(rf":(?:py:)?(?:{'|'.join(ROLES)}):<code>([^<]*)</code>")
_TITLED = re.compile(r"^(.*?)\s*<([^<>]+)>$")


def _parts(text: str) -> tuple[str, str]:
    """``(shown, target)`` of a role's content, unescaped HTML in, plain text out."""
    text = text.strip()
    if m := _TITLED.match(text):
        return m.group(1), m.group(2).lstrip("~").removesuffix("()")
    target = text.lstrip("~").removesuffix("()")
    shown = target.rsplit(".", 1)[-1] + ("()" if text.endswith("()") else "") if text.startswith("~") else text
    return shown, target


def _link(match: re.Match[str]) -> str:
    shown, target = _parts(html.unescape(match.group(1)))
    ident = html.escape(target, quote=True)
    slug = "" if target.startswith("simcuda.") else f' slug="simcuda.{ident}"'
    return f'<autoref identifier="{ident}"{slug} optional><code>{html.escape(shown)}</code></autoref>'


def convert(page_html: str) -> str:
    """The HTML with every Sphinx role replaced by a (linkable) code span."""
    return RENDERED.sub(_link, page_html)


def on_page_content(html_text: str, **_: Any) -> str:
    """mkdocs event: runs on each page's rendered HTML, before mkdocs-autorefs resolves its markers."""
    return convert(html_text)
