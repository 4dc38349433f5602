#!/usr/bin/env python3
"""Screenshot test of the built documentation site in headless Chromium.

Usage: ``python scripts/docs-screenshot.py docs/_build/html [OUT_DIR]``

1. Screenshots the front page and the ``privlearn.mechanisms`` API page (1280x900) into
   ``OUT_DIR`` (default ``docs/_build/screenshots``) and checks that each PNG is not blank: at
   least :data:`MIN_COLOURS` distinct colours, and no single colour covering more than
   :data:`MAX_SHARE` of the pixels (a page that failed to render is one flat colour).
2. Loads ``search.html?q=laplace`` with ``--dump-dom`` (JavaScript runs within a virtual-time
   budget) and checks that the results list links to the mechanisms API page: the search index
   (``searchindex.js``) loaded and answered.

Needs Debian's ``chromium`` (``apt-get install -y chromium``) or another Chromium/Chrome on PATH
(``CHROMIUM`` names one explicitly) and Pillow (a dependency of matplotlib, in the ``plot``
extra). Exits 1 on a failed check, 2 when Chromium or the site is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

#: A rendered page has text, links and code in several colours (and anti-aliasing).
MIN_COLOURS = 16
#: The background may dominate, but not everything.
MAX_SHARE = 0.995
#: The page whose screenshot and search hit are checked besides the front page.
API_PAGE = "api/generated/privlearn.mechanisms.html"
SEARCH_QUERY = "laplace"
_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    """The browser to run: ``$CHROMIUM``, else the first of :data:`_BROWSERS` on PATH."""
    explicit = os.environ.get("CHROMIUM")
    if explicit:
        return shutil.which(explicit) or (explicit if Path(explicit).is_file() else None)
    for name in _BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


def png_problem(path: Path) -> str | None:
    """Why the PNG at ``path`` looks blank (``None`` when it has content)."""
    from PIL import Image

    with Image.open(path) as im:
        rgb = im.convert("RGB")
        width, height = rgb.size
        colours = rgb.getcolors(maxcolors=max(1, width * height)) or []
    if width * height == 0:
        return "empty image"
    counts = Counter({colour: n for n, colour in colours})
    if len(counts) < MIN_COLOURS:
        return f"only {len(counts)} distinct colours (at least {MIN_COLOURS} expected)"
    share = counts.most_common(1)[0][1] / (width * height)
    if share > MAX_SHARE:
        return f"one colour covers {share:.1%} of the image"
    return None


def search_hits(dom: str) -> list[str]:
    """The result links of a dumped search page (the ``<ul class="search">`` list)."""
    match = re.search(r'<ul\b[^>]*\bclass="search"[^>]*>', dom)
    if match is None:
        return []
    end = dom.find("</ul>", match.end())
    return re.findall(r'<a href="([^"]+)"', dom[match.end() : end if end > 0 else None])


def _chromium(browser: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="privlearn-docs-chromium-") as profile:
        cmd = [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            f"--user-data-dir={profile}",
            *args,
        ]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print("usage: docs-screenshot.py BUILD_DIR [OUT_DIR]", file=sys.stderr)
        return 2
    site = Path(argv[0]).resolve()
    out = Path(argv[1]).resolve() if len(argv) == 2 else site.parent / "screenshots"
    browser = find_chromium()
    if browser is None:
        print(
            "docs-screenshot: Chromium not found (install Debian's: apt-get install -y chromium;"
            " or set CHROMIUM to a Chromium/Chrome binary)",
            file=sys.stderr,
        )
        return 2
    for page in ("index.html", API_PAGE, "search.html"):
        if not (site / page).is_file():
            print(
                f"docs-screenshot: {site / page} not found: build the site first", file=sys.stderr
            )
            return 2
    out.mkdir(parents=True, exist_ok=True)
    failures = []

    for page, name in (("index.html", "index.png"), (API_PAGE, "api-mechanisms.png")):
        png = out / name
        png.unlink(missing_ok=True)
        run = _chromium(
            browser, f"--screenshot={png}", "--window-size=1280,900", (site / page).as_uri()
        )
        if not png.is_file():
            failures.append(f"{page}: no screenshot written ({run.stderr.strip()[-500:]})")
            continue
        problem = png_problem(png)
        if problem:
            failures.append(f"{page}: screenshot {png} looks blank: {problem}")
        else:
            print(f"docs-screenshot: {page} rendered -> {png}")

    url = (site / "search.html").as_uri() + f"?q={SEARCH_QUERY}"
    run = _chromium(browser, "--dump-dom", "--virtual-time-budget=15000", url)
    hits = search_hits(run.stdout)
    wanted = [h for h in hits if h.split("#")[0].endswith(API_PAGE)]
    if not wanted:
        failures.append(
            f"search for {SEARCH_QUERY!r}: no result links to {API_PAGE} "
            f"({len(hits)} results; the search index did not load or lacks the API page)"
        )
    else:
        print(f"docs-screenshot: search {SEARCH_QUERY!r}: {len(hits)} results, e.g. {wanted[0]}")

    if failures:
        for f in failures:
            print("docs-screenshot: FAILED: " + f, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
