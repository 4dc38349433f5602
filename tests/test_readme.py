"""The README stays a short front page: its quickstart runs, it is small, and its links resolve.

The manual lives in the documentation site (docs/guide/, built by scripts/build-docs); the
README keeps what a newcomer needs. .ci/run checks separately that it still shows the two
commands verbatim.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

#: The README's size limit (issue 20: "at most about 8 KB").
MAX_BYTES = 8192

#: Inline Markdown links and images: [text](target) or ![alt](target), target up to a space or ")".
_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
#: Reference-style link definitions: [label]: target
_REF = re.compile(r"^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.M)


def _text() -> str:
    return README.read_text(encoding="utf-8")


def _relative_targets(text: str) -> list[str]:
    """Every link target of ``text`` that is not a URL, an e-mail address or a page anchor."""
    targets = _LINK.findall(text) + _REF.findall(text)
    return [t for t in targets if not re.match(r"^([a-z][a-z0-9+.-]*:|#)", t, flags=re.I)]


def test_quickstart_runs(capsys):
    blocks = re.findall(r"```python\n(.*?)```", _text(), flags=re.S)
    assert blocks, "the README has no Python quickstart"
    for code in blocks:
        exec(compile(code, str(README), "exec"), {"__name__": "__readme__"})
    out = capsys.readouterr().out
    assert "private median:" in out


def test_readme_is_short():
    size = README.stat().st_size
    assert size <= MAX_BYTES, (
        f"README.md is {size} bytes (limit {MAX_BYTES}): move the details into docs/guide/"
    )


def _ignored_by_git(paths: list[Path]) -> set[Path]:
    """The paths that git ignores (generated files: absent from a fresh clone); none without git."""
    if not paths or shutil.which("git") is None or not (ROOT / ".git").exists():
        return set()
    rel = [str(p.relative_to(ROOT)) for p in paths]
    run = subprocess.run(
        ["git", "check-ignore", "--no-index", "--", *rel],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    return {(ROOT / line).resolve() for line in run.stdout.splitlines() if line}


def test_relative_links_resolve():
    targets = _relative_targets(_text())
    assert targets, "the README links to no file of the repository (the guide, the licence)"
    broken = []
    found = {}
    for target in targets:
        path = (ROOT / target.split("#", 1)[0]).resolve()
        if ROOT not in path.parents or not path.is_file():
            broken.append(target)
        else:
            found[path] = target
    assert not broken, f"README.md links to files that do not exist in the repository: {broken}"
    generated = sorted(found[p] for p in _ignored_by_git(list(found)))
    assert not generated, f"README.md links to files that git ignores (generated): {generated}"


def test_link_checker_sees_links():
    # The checker itself: it finds inline, image and reference links, and skips URLs and anchors.
    sample = (
        "[a](docs/a.md) ![b](img/b.png) [c](https://example.org) [d](#section) "
        "[e](mailto:x@y.z) [f](docs/f.md#part)\n[g]: docs/g.md\n"
    )
    assert _relative_targets(sample) == ["docs/a.md", "img/b.png", "docs/f.md#part", "docs/g.md"]
