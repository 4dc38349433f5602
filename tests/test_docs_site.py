"""The documentation site's checks, tested without building the site (scripts/build-docs builds it).

The internal-link checker (scripts/docs-linkcheck.py) must catch a planted broken link or anchor,
and the screenshot test (scripts/docs-screenshot.py) must reject a blank screenshot and a search
page whose results do not link to the API page. Only the standard library and Pillow (which
matplotlib, in the test extra, depends on) are needed.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _load(script: str):
    path = ROOT / "scripts" / script
    spec = importlib.util.spec_from_file_location(script.replace("-", "_")[:-3], path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


linkcheck = _load("docs-linkcheck.py")
screenshot = _load("docs-screenshot.py")


def _site(tmp_path: Path, index_body: str) -> Path:
    site = tmp_path / "html"
    (site / "api").mkdir(parents=True)
    (site / "_static").mkdir()
    (site / "_static" / "style.css").write_text("body {}")
    (site / "api" / "page.html").write_text(
        '<html><body><h1 id="top">API</h1><a name="old-anchor"></a>'
        '<a href="../index.html#intro">home</a></body></html>'
    )
    (site / "index.html").write_text(
        '<html><head><link rel="stylesheet" href="_static/style.css"></head><body>'
        f'<p id="intro">x</p>{index_body}</body></html>'
    )
    return site


GOOD_LINKS = (
    '<a href="api/page.html#top">a</a> <a href="api/page.html#old-anchor">b</a> '
    '<a href="#intro">c</a> <a href="#">top</a> <a href="api/">dir</a> '
    '<a href="https://example.org/missing.html">external</a> <a href="mailto:x@y.z">mail</a>'
)


def test_linkcheck_accepts_a_clean_site(tmp_path):
    site = _site(tmp_path, GOOD_LINKS)
    (site / "api" / "index.html").write_text("<html></html>")
    assert linkcheck.broken_links(site) == []
    assert linkcheck.main([str(site)]) == 0


def test_linkcheck_catches_a_planted_broken_link_and_anchor(tmp_path, capsys):
    site = _site(
        tmp_path,
        '<a href="api/page.html#top">fine</a>'
        '<a href="api/missing.html">no file</a>'
        '<a href="api/page.html#nowhere">no anchor</a>'
        '<a href="#also-nowhere">no local anchor</a>'
        '<img src="_static/logo.png">'
        '<a href="../../outside.html">outside</a>',
    )
    problems = linkcheck.broken_links(site)
    joined = "\n".join(problems)
    assert len(problems) == 5, joined
    assert "api/missing.html (no such file)" in joined
    assert "api/page.html#nowhere (no anchor #nowhere)" in joined
    assert "#also-nowhere (no anchor #also-nowhere)" in joined
    assert "_static/logo.png (no such file)" in joined
    assert "outside.html (points outside the site)" in joined
    assert linkcheck.main([str(site)]) == 1
    assert "5 broken internal link(s)" in capsys.readouterr().err


def test_linkcheck_refuses_a_missing_site(tmp_path):
    assert linkcheck.main([str(tmp_path / "nothing")]) == 2


def _png(path: Path, pixels) -> Path:
    from PIL import Image

    height, width = len(pixels), len(pixels[0])
    im = Image.new("RGB", (width, height))
    im.putdata([p for row in pixels for p in row])
    im.save(path)
    return path


def test_screenshot_check_rejects_a_blank_png(tmp_path):
    white = _png(tmp_path / "white.png", [[(255, 255, 255)] * 64 for _ in range(48)])
    assert "distinct colours" in screenshot.png_problem(white)
    # Many colours, but a page that is almost all background is still blank.
    mostly = [[(255, 255, 255)] * 400 for _ in range(400)]
    for i in range(20):
        mostly[0][i] = (i, 2 * i, 3 * i)
    assert "one colour covers" in screenshot.png_problem(_png(tmp_path / "m.png", mostly))


def test_screenshot_check_accepts_a_page_with_content(tmp_path):
    page = [[(255, 255, 255)] * 120 for _ in range(90)]
    for y in range(10, 80, 6):  # "text lines" in several colours
        for x in range(10, 110):
            page[y][x] = ((x * 7) % 256, (y * 3) % 256, (x + y) % 256)
    assert screenshot.png_problem(_png(tmp_path / "page.png", page)) is None


def test_search_hits_parse_the_dumped_results_list():
    dom = (
        '<ul><li><a href="index.html">nav</a></li></ul>'
        '<ul role="list" class="search"><li><a href="api/generated/privlearn.mechanisms.html'
        '#privlearn.mechanisms.laplace">laplace</a></li><li><a href="guide/mechanisms.html">'
        "guide</a></li></ul>"
    )
    hits = screenshot.search_hits(dom)
    assert hits == [
        "api/generated/privlearn.mechanisms.html#privlearn.mechanisms.laplace",
        "guide/mechanisms.html",
    ]
    assert screenshot.search_hits("<ul class='other'></ul>") == []


def test_screenshot_says_clearly_when_chromium_is_missing(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CHROMIUM", str(tmp_path / "no-such-browser"))
    assert screenshot.find_chromium() is None
    assert screenshot.main([str(tmp_path)]) == 2
    assert "apt-get install -y chromium" in capsys.readouterr().err


_UNEXECUTED = re.compile(
    r"^\s*(```|~~~)\s*(python|py|python3|pycon|\{code-block\}\s+(python|py|pycon))\s*$"
)


def test_every_python_example_in_the_pages_is_executed():
    # scripts/build-docs refuses these too: Python in the pages is {testcode} or {doctest}.
    offenders = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        if "_build" in page.parts or page.name == "CONTRIBUTING-docs.md":
            continue
        for no, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if _UNEXECUTED.match(line):
                offenders.append(f"{page.relative_to(ROOT)}:{no}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize("line", ["```python", "  ```py", "~~~pycon", "```{code-block} python"])
def test_the_fence_check_catches_a_planted_python_fence(line):
    assert _UNEXECUTED.match(line)
    assert not _UNEXECUTED.match("```{testcode}")
    assert not _UNEXECUTED.match("```console")


def test_gallery_examples_are_short_scripts_with_a_title():
    examples = sorted((ROOT / "examples").glob("plot_*.py"))
    assert 4 <= len(examples) <= 8
    for ex in examples:
        text = ex.read_text(encoding="utf-8")
        assert text.startswith('"""\n'), ex.name  # sphinx-gallery's title docstring
        assert "rng=None" not in text
