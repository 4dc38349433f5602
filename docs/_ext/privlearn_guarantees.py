"""Sphinx extension: the "privacy guarantees" pages, generated from one registry.

``docs/guarantees/registry.toml`` holds one ``[[release]]`` table per public private release of
privlearn (mechanism, learner, composite): its claim, neighbouring notion, source (paper and
theorem, as cited in the object's docstring), a short proof sketch, the floating-point
treatment, and the pytest node ids of the tests that check it (calibration, neighbour replay,
audit), or an honest ``missing`` note. At ``builder-inited`` this extension writes
``docs/guarantees/index.md`` (the summary table) and one ``docs/guarantees/<name>.md`` per entry
(MyST Markdown; the generated files are git-ignored). A file is rewritten only when its text
changes, so incremental builds stay incremental.

``tests/test_guarantees_registry.py`` checks the registry against the package (every release
has an entry, every cited theorem string is in the object's docstring, every test node id
exists), so the pages and the code cannot drift apart.

Enable it with ``extensions = [..., "privlearn_guarantees"]`` and ``docs/_ext`` on
``sys.path``. Optional setting: ``privlearn_guarantees_dir`` (default ``"guarantees"``, relative
to the source directory).
"""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.9/3.10
    import tomli as tomllib

__all__ = ["load_registry", "render_index", "render_page", "write_pages", "setup"]

TEST_KINDS = (
    ("calibration", "Calibration"),
    ("replay", "Neighbour replay"),
    ("audit", "Audit"),
    ("other", "Other checks"),
)
GENERATED = (
    "<!-- Generated from docs/guarantees/registry.toml by docs/_ext/privlearn_guarantees.py;"
    " edit the registry, not this file. -->"
)
REQUIRED_FIELDS = ("name", "title", "claim", "notion", "source", "cite", "proof", "numerics")


def load_registry(path: "str | Path") -> List[Dict[str, Any]]:
    """The ``[[release]]`` entries of a registry file, in file order."""
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    entries = data.get("release", [])
    if not isinstance(entries, list):
        raise ValueError(f"{path}: 'release' must be an array of tables")
    for e in entries:
        missing = [f for f in REQUIRED_FIELDS if f not in e]
        if missing:
            raise ValueError(f"{path}: entry {e.get('name', '?')!r} lacks {missing}")
    return entries


def _is_public(qualname: str) -> bool:
    return not any(part.startswith("_") for part in qualname.split("."))


def _resolve(qualname: str) -> Optional[Any]:
    module, _, attr = qualname.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError):
        return None


def _api_ref(qualname: str) -> str:
    """A MyST cross-reference to the object (or a literal for a private one)."""
    if not _is_public(qualname):
        return f"`{qualname}` (private helper; see the owning class's API page)"
    obj = _resolve(qualname)
    role = "py:class" if inspect.isclass(obj) else "py:func"
    return f"{{{role}}}`{qualname}`"


def page_name(entry: Dict[str, Any]) -> str:
    """The document name of an entry's page (without suffix)."""
    return str(entry.get("page") or entry["name"].rpartition(".")[2])


def _md_cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _tests_of(entry: Dict[str, Any]) -> Dict[str, List[str]]:
    return {kind: list(entry.get(kind, [])) for kind, _ in TEST_KINDS}


def render_page(entry: Dict[str, Any]) -> str:
    """The MyST page of one entry."""
    name = entry["name"]
    lines = [
        GENERATED,
        "",
        f"# {entry['title']}",
        "",
        f"**Release:** {_api_ref(name)}",
        "",
    ]
    if entry.get("also"):
        refs = ", ".join(_api_ref(q) for q in entry["also"])
        lines += [f"**Also covers:** {refs}", ""]
    lines += [
        "## Claim",
        "",
        entry["claim"].strip(),
        "",
        "## Neighbouring notion",
        "",
        entry["notion"].strip(),
        "",
        "## Source",
        "",
        entry["source"].strip(),
        "",
        f"The docstring cites: *{' '.join(entry['cite'].split())}* "
        "(checked by `tests/test_guarantees_registry.py`).",
        "",
        "## Proof sketch",
        "",
        entry["proof"].strip(),
        "",
        "## Floating-point treatment",
        "",
        entry["numerics"].strip(),
        "",
        "## Tests that check it",
        "",
    ]
    tests = _tests_of(entry)
    for kind, label in TEST_KINDS:
        ids = tests[kind]
        if not ids:
            if kind != "other":
                lines += [f"- **{label}:** none (see *Gaps* below)."]
            continue
        lines += [f"- **{label}:**"]
        lines += [f"  - `{node}`" for node in ids]
    lines.append("")
    if entry.get("missing"):
        lines += ["## Gaps", "", entry["missing"].strip(), ""]
    return "\n".join(lines)


def _claim_short(entry: Dict[str, Any]) -> str:
    return str(entry.get("claim_short") or entry["claim"].split(".")[0])


def render_index(entries: List[Dict[str, Any]]) -> str:
    """The summary page: a table of every entry and a toctree of their pages."""
    lines = [
        GENERATED,
        "",
        "# Privacy guarantees",
        "",
        "One page per private release of privlearn: what it claims, for which neighbouring",
        "datasets, where the proof is (the paper and theorem the docstring cites, or the",
        "derivation in the docstring), how floating point is kept from weakening it, and which",
        "tests check it. privlearn's neighbouring notion is **replace-one** (one record replaced,",
        "the sample size `n` public) unless a page says otherwise; every guarantee assumes",
        "`rng=None` (or an unseeded generator): a known seed lets anyone regenerate the noise.",
        "",
        "Three kinds of tests pin each release: a **calibration** test derives the sensitivity",
        "and the noise law in the test from the paper's formulas (never from the estimator's",
        "attributes); a **neighbour replay** entry (`tests/replay.py`) runs it on replace-one",
        "neighbours with the same seed and checks control flow, charge, shape and the",
        "sensitivity of what reaches the sampler; an **audit** measures a lower bound on epsilon",
        "on worst-case neighbours, with a power check at a fraction of the noise. Gaps are",
        "listed on each page.",
        "",
        "| Release | Claim | Notion | Source | Calibration | Replay | Audit |",
        "|---|---|---|---|---|---|---|",
    ]
    for e in entries:
        tests = _tests_of(e)
        counts = [
            str(len(tests[k])) if tests[k] else "**none**"
            for k in ("calibration", "replay", "audit")
        ]
        lines.append(
            f"| [{_md_cell(e['title'])}]({page_name(e)}.md) | {_md_cell(_claim_short(e))} "
            f"| {_md_cell(e.get('notion_short', e['notion'].split('.')[0]))} "
            f"| {_md_cell(e.get('source_short', e['source']))} | " + " | ".join(counts) + " |"
        )
    gaps = [e for e in entries if e.get("missing")]
    if gaps:
        lines += ["", "## Known gaps", ""]
        lines += [
            f"- [{_md_cell(e['title'])}]({page_name(e)}.md): {' '.join(e['missing'].split())}"
            for e in gaps
        ]
    lines += ["", "```{toctree}", ":hidden:", ""]
    lines += [page_name(e) for e in entries]
    lines += ["```", ""]
    return "\n".join(lines)


def _write_if_changed(path: Path, text: str) -> bool:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def write_pages(registry: "str | Path", outdir: "str | Path") -> List[Path]:
    """Write ``index.md`` and one page per entry into ``outdir``; remove stale pages.

    Returns the paths written (changed or not)."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    entries = load_registry(registry)
    names = [page_name(e) for e in entries]
    if len(set(names)) != len(names) or "index" in names:
        raise ValueError("registry page names must be unique and not 'index'")
    written = []
    for e in entries:
        p = outdir / f"{page_name(e)}.md"
        _write_if_changed(p, render_page(e))
        written.append(p)
    p = outdir / "index.md"
    _write_if_changed(p, render_index(entries))
    written.append(p)
    keep = {w.name for w in written}
    for stale in outdir.glob("*.md"):
        if stale.name not in keep and stale.read_text(encoding="utf-8").startswith(GENERATED):
            stale.unlink()
    return written


def _on_builder_inited(app: Any) -> None:
    outdir = Path(app.srcdir) / app.config.privlearn_guarantees_dir
    write_pages(outdir / "registry.toml", outdir)


def setup(app: Any) -> Dict[str, Any]:
    app.add_config_value("privlearn_guarantees_dir", "guarantees", "env")
    app.connect("builder-inited", _on_builder_inited)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
