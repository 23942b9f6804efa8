"""mkdocs hook: draw a page's Mermaid state diagram (```` ```mermaid ```` + ``stateDiagram-v2``) as an inline SVG.

The site needs no JavaScript and no network for it: the page keeps its Mermaid source (which GitHub renders,
and which tools/gen_state_diagram.py generates from the engine's table), and the built site gets a picture laid
out here. Only what that generator writes is understood: ``A --> B: label`` lines, ``[*]`` as the start (on the
left of an arrow) and the end (on its right).

Layout: the states in a row, in order of first appearance, start first and end last. Parallel transitions share
one arrow with one label line each; a transition to the next state is a straight arrow with its lines above it;
a self-transition is a loop above its state; any other is an arc below the row. A label ``event - details /
result`` is drawn as ``event / result`` (the details are in the tooltip and in the page's table); lines whose
result is not SUCCESS are drawn in red.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any

_FENCE = re.compile(r"^```mermaid\n(stateDiagram-v2\n.*?)^```\n", re.S | re.M)
_ARROW = re.compile(r"^\s*(\S+)\s*-->\s*(\S+)\s*:\s*(.*)$")
START, END = "\0start", "\0end"
CHAR_W, LINE_H, FONT = 7.3, 16, 12       # monospace 12px: ~7.2px a character
NODE_H, PAD = 40, 24


@dataclass
class _Edge:
    src: str
    dst: str
    labels: list[str] = field(default_factory=list)


def _short(label: str) -> str:
    """``event / result`` of ``event - details / result``."""
    head = label.split(" - ", 1)[0]
    return f"{head} / {label.rsplit(' / ', 1)[1]}" if " / " in label and head != label else label


def parse(source: str) -> tuple[list[str], list[_Edge]]:
    """The states in order (start first, end last) and the transitions grouped by (source, destination)."""
    nodes: list[str] = [START]
    edges: dict[tuple[str, str], _Edge] = {}
    for line in source.splitlines()[1:]:
        m = _ARROW.match(line)
        if not m:
            continue
        src = START if m.group(1) == "[*]" else m.group(1)
        dst = END if m.group(2) == "[*]" else m.group(2)
        for n in (src, dst):
            if n not in nodes and n != END:
                nodes.append(n)
        edges.setdefault((src, dst), _Edge(src, dst)).labels.append(m.group(3).strip())
    return [*nodes, END], list(edges.values())


def _width(node: str) -> float:
    return {START: 20.0, END: 26.0}.get(node, len(node) * 8.6 + 28)


def _text_w(lines: list[str]) -> float:
    return max(len(_short(t)) for t in lines) * CHAR_W


def _label(lines: list[str], x: float, y_top: float, anchor: str = "middle") -> list[str]:
    """One ``<text>`` per line, the first line's top at ``y_top``; the full label as the tooltip."""
    out = []
    for i, t in enumerate(lines):
        colour = "#1f3b57" if t.endswith("/ SUCCESS") else "#a3231a"
        out.append(f'<text x="{x:.1f}" y="{y_top + (i + 1) * LINE_H - 4:.1f}" text-anchor="{anchor}" '
                   f'fill="{colour}"><title>{html.escape(t)}</title>{html.escape(_short(t))}</text>')
    return out


def render(source: str, title: str = "state diagram") -> str:
    """The SVG of a ``stateDiagram-v2`` source, one line (a Markdown raw HTML block has no blank line)."""
    nodes, edges = parse(source)
    index = {n: i for i, n in enumerate(nodes)}
    loops = {e.src: e for e in edges if e.src == e.dst}
    nexts = {e.src: e for e in edges if index[e.dst] == index[e.src] + 1}
    arcs = sorted((e for e in edges if e.src != e.dst and e not in nexts.values()),
                  key=lambda e: abs(index[e.dst] - index[e.src]))
    # the space above the arrows: the tallest label of a straight arrow, then the loops and their labels
    above = max([len(e.labels) * LINE_H + 8 for e in nexts.values()] + [0])
    lift = max(40.0, above - NODE_H / 2 + 14)
    loop_h = max([len(e.labels) * LINE_H for e in loops.values()] + [0])
    cy = PAD + loop_h + 6 + lift + NODE_H / 2
    # x positions: each gap fits the straight arrow's label and keeps neighbouring loop labels apart
    xs: list[float] = []
    x = PAD + _width(nodes[0]) / 2
    for i, n in enumerate(nodes):
        if i:
            prev = nodes[i - 1]
            gap = max(60.0, _text_w(nexts[prev].labels) + 24 if prev in nexts else 0.0)
            spill = sum(max(0.0, _text_w(loops[k].labels) / 2 - _width(k) / 2) for k in (prev, n) if k in loops)
            x += _width(prev) / 2 + max(gap, spill + 20) + _width(n) / 2
        xs.append(x)
    body: list[str] = []
    for i, n in enumerate(nodes):
        if n == START:
            body.append(f'<circle cx="{xs[i]:.1f}" cy="{cy:.1f}" r="10" fill="#1f3b57"/>')
        elif n == END:
            body.append(f'<circle cx="{xs[i]:.1f}" cy="{cy:.1f}" r="13" fill="none" stroke="#1f3b57" stroke-width="2"/>'
                        f'<circle cx="{xs[i]:.1f}" cy="{cy:.1f}" r="8" fill="#1f3b57"/>')
        else:
            w = _width(n)
            body.append(f'<rect x="{xs[i] - w / 2:.1f}" y="{cy - NODE_H / 2:.1f}" width="{w:.1f}" height="{NODE_H}" '
                        f'rx="8" fill="#e8f0f8" stroke="#1f3b57" stroke-width="1.5"/>'
                        f'<text x="{xs[i]:.1f}" y="{cy + 5:.1f}" text-anchor="middle" font-size="14" '
                        f'font-weight="bold" fill="#1f3b57">{html.escape(n)}</text>')
    for e in nexts.values():
        a, b = index[e.src], index[e.dst]
        x0, x1 = xs[a] + _width(e.src) / 2 + 2, xs[b] - _width(e.dst) / 2 - 4
        body.append(f'<path d="M{x0:.1f},{cy:.1f} L{x1:.1f},{cy:.1f}" class="arrow"/>')
        body += _label(e.labels, (x0 + x1) / 2, cy - 6 - len(e.labels) * LINE_H)
    for e in loops.values():
        i, top = index[e.src], cy - NODE_H / 2
        x0, x1 = xs[i] - 18, xs[i] + 18
        body.append(f'<path d="M{x0:.1f},{top:.1f} C{x0 - 20:.1f},{top - lift * 1.3:.1f} {x1 + 20:.1f},'
                    f'{top - lift * 1.3:.1f} {x1:.1f},{top - 3:.1f}" class="arrow"/>')
        body += _label(e.labels, xs[i], top - lift - 6 - len(e.labels) * LINE_H)
    depth, bottom = 36.0, cy + NODE_H / 2
    for e in arcs:
        a, b = index[e.src], index[e.dst]
        x0, x1 = xs[a] + (8 if b > a else -8), xs[b] + (-8 if b > a else 8)
        y0 = cy + (13 if e.dst == END else NODE_H / 2) + 3
        c = bottom + depth * 4 / 3
        body.append(f'<path d="M{x0:.1f},{cy + NODE_H / 2:.1f} C{x0:.1f},{c:.1f} {x1:.1f},{c:.1f} {x1:.1f},{y0:.1f}" '
                    f'class="arrow"/>')
        body += _label(e.labels, (x0 + x1) / 2, bottom + depth + 4)
        depth += len(e.labels) * LINE_H + 28
    width = xs[-1] + _width(nodes[-1]) / 2 + PAD
    height = bottom + depth + PAD - 20
    defs = ('<defs><marker id="sd-head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" '
            'orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#1f3b57"/></marker>'
            '<style>.arrow{fill:none;stroke:#1f3b57;stroke-width:1.5;marker-end:url(#sd-head)}</style></defs>')
    return (f'<svg class="state-diagram" xmlns="http://www.w3.org/2000/svg" role="img" viewBox="0 0 {width:.0f} '
            f'{height:.0f}" width="{width:.0f}" font-family="ui-monospace, SFMono-Regular, Menlo, Consolas, '
            f'monospace" font-size="{FONT}"><title>{html.escape(title)}</title>{defs}{"".join(body)}</svg>')


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """mkdocs event: each state diagram of the page becomes its SVG (a figure of its own)."""
    def figure(m: re.Match[str]) -> str:
        return f'<figure class="diagram">{render(m.group(1), page.title or "state diagram")}</figure>\n'
    return _FENCE.sub(figure, markdown)
