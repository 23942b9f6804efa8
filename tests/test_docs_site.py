"""The documentation site (mkdocs.yml): it builds in strict mode, strict mode catches what it must, and the built
pages read well (highlighted code, the state diagram drawn, the whole public API documented, no raw Sphinx role,
no CDN); the user pages' examples import no private module and those of docs/graphs.md run in a fresh python."""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
pytest.importorskip("mkdocs", reason="mkdocs comes with the test extra")
pytest.importorskip("mkdocstrings_handlers.python", reason="mkdocstrings-python comes with the test extra")
sys.path.insert(0, str(DOCS / "_hooks"))
import sphinx_roles  # noqa: E402  (docs/_hooks/sphinx_roles.py: the roles it converts)
import state_diagram  # noqa: E402  (docs/_hooks/state_diagram.py)

#: the public names of ``simcuda`` the API reference must document (each an anchor of its own)
PUBLIC = ("Driver", "DeviceSpec", "Options", "DriverError", "KernelLaunch", "LaunchRecord", "current_driver", "use",
          "reset", "kernel", "explain", "last_error", "dot")
#: a Sphinx role as Markdown renders it (``:class:<code>x</code>``) or left raw (``:class:`x```)
ROLE = re.compile(rf":(?:py:)?(?:{'|'.join(sphinx_roles.ROLES)}):(?:<code>|`)")
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
#: pages that describe simcuda's insides (or are NVIDIA-facing contracts), not what a user writes
INTERNAL = {"architecture.md", "spec-proposals.md", "mutation.md"}


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
#: what the browser measures on a page once it is laid out, written into the DOM for --dump-dom to return
PROBE = """window.addEventListener("load", () => {
  const r = e => e.getBoundingClientRect();
  const side = document.querySelector(".bs-sidebar"), main = document.querySelector('[role="main"]');
  const kn = document.querySelector(".highlight .kn"), svg = document.querySelector("svg.state-diagram");
  const out = {
    main_left: r(main).left, sidebar_right: side ? r(side).right : 0,
    sidebar_spill: side ? [...side.querySelectorAll("a")].filter(
      a => a.scrollWidth > a.clientWidth + 1 || r(a).right > r(side).right + 1).map(a => a.textContent.trim()) : [],
    main_spill: main.scrollWidth > main.clientWidth + 1,
    keyword: kn ? getComputedStyle(kn).color : null,
    plain: getComputedStyle(document.querySelector(".highlight code") || main).color,
    svg: svg ? [r(svg).width, r(svg).height] : null,
    ids: Object.fromEntries([...document.querySelectorAll('[id^="simcuda."]')].map(e => [e.id, r(e).height])),
  };
  const pre = document.createElement("pre"); pre.id = "probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});"""


def in_browser(site: Path, page: str) -> dict[str, object]:
    """What headless Chromium measures on ``page`` of the built site (1280x900 window, no network)."""
    if CHROMIUM is None:
        pytest.skip("no chromium here (Debian: apt-get install chromium); the browser checks of the site need it")
    src = site / page / "index.html"
    probe = src.with_name("probe.html")
    probe.write_text(src.read_text().replace("</body>", f"<script>{PROBE}</script></body>"))
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                        "--window-size=1280,900", "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r'<pre id="probe">(.*?)</pre>', r.stdout, re.S)
    assert m, r.stderr[-2000:]
    return json.loads(html.unescape(m.group(1)))  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's site, built once for the checks of its pages."""
    out = tmp_path_factory.mktemp("docs") / "site"
    r = build(ROOT / "mkdocs.yml", out)
    assert r.returncode == 0, r.stderr[-4000:]
    return out


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          capture_output=True, text=True, timeout=300, cwd=config.parent)


def test_the_site_builds_in_strict_mode(site):
    """Every page, the API reference generated from the docstrings, no broken internal link, and every example
    of the pages marked to run them passing (the fixture's build is strict and must succeed)."""
    api = (site / "reference" / "api" / "index.html").read_text()
    assert "simcuda.Driver" in api and "cuStreamBeginCapture" in api
    assert (site / "tutorial" / "capture-in-ten-programs" / "index.html").exists()


def test_the_api_reference_documents_every_public_name(site):
    """Each public name of ``simcuda`` (most re-exported from the private core) has its own entry with its
    docstring, not just a mention."""
    api = (site / "reference" / "api" / "index.html").read_text()
    missing = [n for n in PUBLIC if f'id="simcuda.{n}"' not in api]
    assert missing == []
    assert "An in-memory CUDA driver" in api and "launch_log" in api  # the docstring, its sections rendered
    assert 'id="simcuda.DriverError.detached"' in api  # a class's own members come with it


def test_no_sphinx_role_shows_in_the_site(site):
    """Not one ``:meth:`` / ``:class:`` / ``:func:``... reaches a page or the search index as text; where the
    reference documents the target, the code span links to it."""
    found = {str(p.relative_to(site)): len(ROLE.findall(p.read_text()))
             for p in [*site.rglob("*.html"), site / "search" / "search_index.json"]}
    assert {p: n for p, n in found.items() if n} == {}
    api = (site / "reference" / "api" / "index.html").read_text()
    assert re.search(r'<a class="autorefs autorefs-internal"[^>]*href="#simcuda\.Driver"', api)


def test_code_is_highlighted_without_a_cdn(site):
    """Code blocks carry Pygments' classes and the site ships their stylesheet; no page loads anything from
    another host (highlight.js from a CDN was the theme's default)."""
    page = (site / "graphs" / "index.html").read_text()
    assert re.search(r'<div class="language-python highlight"><pre>.*<span class="kn">import</span>', page, re.S)
    assert ".highlight .kn" in (site / "css" / "pygments.css").read_text()
    assert 'href="../css/pygments.css"' in page
    remote = {p.name: re.findall(r'<(?:script|link)[^>]+(?:src|href)="(https?:[^"]+)"', p.read_text())
              for p in site.rglob("*.html")}
    assert {k: v for k, v in remote.items() if v} == {}


def test_the_state_diagram_is_drawn(site):
    """docs/capture-states.md's Mermaid source becomes an SVG in the page: a box per state, the start and end
    markers, one label line per transition of the engine's table (none of the source is left as text)."""
    page = (site / "capture-states" / "index.html").read_text()
    text = re.sub(r"<!--.*?-->", "", page, flags=re.S)  # the theme's HTML comments
    assert "stateDiagram-v2" not in text and "-->" not in text and "--&gt;" not in text
    svg = re.search(r"<svg class=\"state-diagram\".*?</svg>", page, re.S)
    assert svg is not None
    boxes = re.findall(r"<rect [^>]*/><text [^>]*>([A-Z]+)</text>", svg.group(0))
    assert boxes == ["ACTIVE", "INVALIDATED"]
    source = (DOCS / "capture-states.md").read_text()
    transitions = [line for line in source.splitlines() if " --> " in line]
    assert svg.group(0).count("<title>") == len(transitions) + 1  # a tooltip per transition, and the picture's


def test_the_diagram_layout_keeps_labels_inside_the_picture():
    """The drawing's sizes follow its labels: a long label widens the picture, a label line per transition."""
    short = state_diagram.render("stateDiagram-v2\n    [*] --> A: go / SUCCESS\n    A --> [*]: stop / SUCCESS\n")
    long = state_diagram.render("stateDiagram-v2\n    [*] --> A: go - " + "x" * 10 + " / SUCCESS\n"
                                "    A --> [*]: a very long event name indeed / 901\n")
    width = [float(re.search(r'width="(\d+)"', svg).group(1)) for svg in (short, long)]  # type: ignore[union-attr]
    assert width[1] > width[0] + 100
    assert long.count("</text>") == 3 and 'fill="#a3231a"' in long  # A, two labels; the 901 one in red
    assert ">go / SUCCESS<" in long  # the details after " - " go to the tooltip


def test_sphinx_roles_become_code_spans():
    """The role forms Sphinx knows: ``~`` shows the last part, ``title <target>`` the title, a bare name is also
    looked up under ``simcuda.``; the result is an optional autoref (a link only where the target exists)."""
    out = sphinx_roles.convert(":class:<code>~simcuda._core.errors.DriverError</code> and "
                               ":meth:<code>Driver.advance()</code>, "
                               ":func:<code>the patch &lt;simcuda.patch&gt;</code>")
    assert ":class:" not in out and ":meth:" not in out and ":func:" not in out
    assert '<autoref identifier="simcuda._core.errors.DriverError" optional><code>DriverError</code></autoref>' in out
    assert 'identifier="Driver.advance" slug="simcuda.Driver.advance" optional><code>Driver.advance()</code>' in out
    assert 'identifier="simcuda.patch" optional><code>the patch</code>' in out


def user_pages() -> list[Path]:
    """The pages a user reads: docs/*.md and the tutorial, without the internals and the spec."""
    return [p for p in [*DOCS.glob("*.md"), *DOCS.glob("tutorial/*.md")] if p.name not in INTERNAL]


def python_blocks(page: Path) -> list[str]:
    return [m.group(2) for m in _FENCE.finditer(page.read_text()) if m.group(1) in ("python", "py", "pycon")]


def test_user_docs_import_no_private_module():
    """No example of a user page imports ``simcuda._core``, ``simcuda._generated`` or another private module:
    users are shown public names only (``simcuda``, ``simcuda.faces.bindings.driver``, ``simcuda.testing``...)."""
    private = re.compile(r"\bsimcuda\._[a-z]\w*")
    found = {f"{p.name} example {i}": private.findall(b)
             for p in user_pages() for i, b in enumerate(python_blocks(p), 1) if private.search(b)}
    assert found == {}
    assert len(user_pages()) > 10 and any(python_blocks(p) for p in user_pages())


def test_graphs_examples_run_pasted_into_a_fresh_python(tmp_path):
    """Each example of docs/graphs.md, on its own, in a new interpreter (no patch, no other block before it):
    what a reader pasting it gets. The page is also marked to run its examples in the docs build."""
    blocks = python_blocks(DOCS / "graphs.md")
    assert len(blocks) == 3 and "<!-- examples: run -->" in (DOCS / "graphs.md").read_text()
    for i, code in enumerate(blocks, 1):
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert r.returncode == 0, f"graphs.md example {i}: {r.stderr[-2000:]}"
    assert list(tmp_path.iterdir()) == []  # the examples write no file


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


@pytest.mark.parametrize("page", ["tutorial/capture-in-ten-programs", "graphs", "capture-states", "reference/api",
                                  "supported-api"])
def test_in_a_browser_nothing_overlaps(site, page):
    """Laid out by a real browser: the sidebar ends before the article begins, no sidebar entry runs past the
    sidebar (long CUDA_ERROR_... names wrap), and nothing in the article is wider than the article (wide tables
    and code scroll inside themselves)."""
    m = in_browser(site, page)
    assert m["sidebar_right"] <= m["main_left"]  # type: ignore[operator]
    assert m["sidebar_spill"] == [] and m["main_spill"] is False


def test_in_a_browser_code_is_coloured_the_diagram_drawn_and_the_api_documented(site):
    """The browser draws a Python keyword in another colour than plain code, the state diagram as a picture of a
    real size, and gives each public name of the API reference a visible entry."""
    graphs = in_browser(site, "graphs")
    assert graphs["keyword"] is not None and graphs["keyword"] != graphs["plain"]
    width, height = in_browser(site, "capture-states")["svg"]  # type: ignore[misc]
    assert width > 500 and height > 150
    ids = in_browser(site, "reference/api")["ids"]
    assert {n: ids.get(f"simcuda.{n}", 0) > 0 for n in PUBLIC} == dict.fromkeys(PUBLIC, True)  # type: ignore[union-attr]
