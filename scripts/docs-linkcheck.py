#!/usr/bin/env python3
"""Check every internal link of the built documentation site (no network).

Usage: ``python scripts/docs-linkcheck.py docs/_build/html``

Every ``href`` and ``src`` of every HTML page that is relative (no scheme, no ``//`` host) must
name a file of the site, and a ``#fragment`` on an HTML page must name an ``id`` (or ``name``)
of that page. External links (``https:``, ``mailto:``, ...) are not fetched: CI has no network
beyond the package registries. Exits 1 and lists every broken link when there is one.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: Attributes that hold a URL, per tag.
_URL_ATTRS = {"a": "href", "link": "href", "img": "src", "script": "src", "iframe": "src"}


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[int, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (tag == "a" and name == "name"):
                self.ids.add(value)
            if _URL_ATTRS.get(tag) == name:
                self.links.append((self.getpos()[0], value))


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    page.close()
    return page


def broken_links(root: Path) -> list[str]:
    """Every broken internal link under ``root``, as ``"page:line: url (reason)"``."""
    root = root.resolve()
    pages = {p.resolve(): _parse(p) for p in sorted(root.rglob("*.html"))}
    problems = []
    for path, page in pages.items():
        for line, url in page.links:
            parts = urlsplit(url)
            if parts.scheme or parts.netloc or url.startswith("//"):
                continue  # external: not checked here
            if parts.path:
                target = (path.parent / unquote(parts.path)).resolve()
                if target.is_dir():
                    target = target / "index.html"
            else:
                target = path  # "#anchor" on the same page
            where = f"{path.relative_to(root)}:{line}: {url}"
            try:
                target.relative_to(root)
            except ValueError:
                problems.append(f"{where} (points outside the site)")
                continue
            if not target.is_file():
                problems.append(f"{where} (no such file)")
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if fragment not in ids:
                    problems.append(f"{where} (no anchor #{fragment})")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: docs-linkcheck.py BUILD_DIR", file=sys.stderr)
        return 2
    root = Path(argv[0])
    if not (root / "index.html").is_file():
        print(f"docs-linkcheck: {root}/index.html not found: build the site first", file=sys.stderr)
        return 2
    problems = broken_links(root)
    n_pages = sum(1 for _ in root.rglob("*.html"))
    if problems:
        print(f"docs-linkcheck: {len(problems)} broken internal link(s):", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print(f"docs-linkcheck: {n_pages} pages, every internal link and anchor resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
