"""The privacy-guarantees registry (``docs/guarantees/registry.toml``) against the package.

The registry is the single source of the documentation's "privacy guarantees" pages
(``docs/_ext/privlearn_guarantees.py`` generates them). These tests keep it and the code from
drifting apart, without building the docs:

* every public private release (derived from the package itself, not from a list written here)
  has an entry, and every entry names an importable object;
* each entry's ``cite`` string (the theorem or algorithm the page cites) occurs in that object's
  docstring, so the page cannot cite what the code does not;
* every pytest node id an entry lists exists (the test file is parsed with :mod:`ast`; a
  parametrised id's parts must occur in that file);
* every entry lists a calibration test, a neighbour-replay entry and an audit, or says honestly
  in ``missing`` what is absent (the page shows it);
* the cross-references in the text name public, importable objects, and the generator renders
  every entry.

Fast: imports and parsing only (no test is run, no statistics).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List

import pytest

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[1]
REGISTRY = ROOT / "docs" / "guarantees" / "registry.toml"
EXT_DIR = ROOT / "docs" / "_ext"

# The packages whose public names are releases (or theory helpers, which the rule below skips).
RELEASE_PACKAGES = (
    "privlearn.mechanisms",
    "privlearn.learners",
    "privlearn.multi",
    "privlearn.prediction",
    "privlearn.query_release",
    "privlearn.preprocessing",
    "privlearn.pipeline",
)
# Methods through which a class touches private data.
DATA_METHODS = ("fit", "start", "query", "predict")
TEXT_FIELDS = ("claim", "notion", "source", "proof", "numerics", "missing")
TEST_FIELDS = ("calibration", "replay", "audit", "other")
REQUIRED = ("name", "title", "claim", "notion", "source", "cite", "proof", "numerics")


@lru_cache(maxsize=None)
def entries() -> List[Dict[str, Any]]:
    with open(REGISTRY, "rb") as fh:
        return list(tomllib.load(fh)["release"])


def _load_extension() -> Any:
    """The site's generator (``docs/_ext/privlearn_guarantees.py``), imported from its file."""
    spec = importlib.util.spec_from_file_location(
        "privlearn_guarantees", EXT_DIR / "privlearn_guarantees.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXTENSION = _load_extension()
# A registry name to its object (None when it does not import): the generator's own lookup.
_resolve = EXTENSION._resolve


def _params(obj: Any) -> List[str]:
    try:
        target = obj.__init__ if inspect.isclass(obj) else obj
        return list(inspect.signature(target).parameters)
    except (TypeError, ValueError):
        return []


def public_releases() -> List[str]:
    """The package's private releases, by rule:

    * a class with a ``privacy_guarantee``, or one taking ``epsilon`` or ``rng`` with a method
      that reads data (``fit``, ``start``, ``query``, ``predict``);
    * a function taking ``rng`` (it draws randomness: a mechanism, a noise sampler or a
      randomised step of a release), or taking both ``epsilon`` and an ``accountant``.

    Theory helpers (sample sizes, certificates, budgets) take ``epsilon`` but no ``rng``, and
    result classes have no data method, so neither counts.
    """
    found = []
    for pkg in RELEASE_PACKAGES:
        mod = importlib.import_module(pkg)
        for name in mod.__all__:
            obj = getattr(mod, name)
            params = _params(obj)
            if inspect.isclass(obj):
                randomised = "epsilon" in params or "rng" in params
                reads_data = any(hasattr(obj, m) for m in DATA_METHODS)
                if hasattr(obj, "privacy_guarantee") or (randomised and reads_data):
                    found.append(f"{pkg}.{name}")
            elif callable(obj):
                if "rng" in params or ("epsilon" in params and "accountant" in params):
                    found.append(f"{pkg}.{name}")
    return found


def _covered() -> Dict[str, str]:
    """Every object an entry documents (its ``name`` and its ``also``), mapped to the entry."""
    out: Dict[str, str] = {}
    for e in entries():
        for q in [e["name"], *e.get("also", [])]:
            out[q] = e["name"]
    return out


def _norm(text: str) -> str:
    return " ".join(text.replace("``", "").split())


# --------------------------------------------------------------------------------------------
# Shape of the registry
# --------------------------------------------------------------------------------------------


def test_registry_entries_are_complete_and_unique():
    es = entries()
    assert len(es) >= 40
    for e in es:
        for field in REQUIRED:
            assert isinstance(e.get(field), str) and e[field].strip(), (e.get("name"), field)
        for field in TEST_FIELDS:
            assert isinstance(e.get(field, []), list), (e["name"], field)
        unknown = (
            set(e)
            - set(REQUIRED)
            - set(TEST_FIELDS)
            - {
                "missing",
                "also",
                "page",
                "claim_short",
                "notion_short",
                "source_short",
            }
        )
        assert not unknown, (e["name"], unknown)
    names = [e["name"] for e in es]
    assert len(set(names)) == len(names)
    pages = [e.get("page") or e["name"].rpartition(".")[2] for e in es]
    assert len(set(p.lower() for p in pages)) == len(pages)  # case-insensitive file systems
    assert "index" not in pages


def test_every_public_release_has_an_entry():
    covered = _covered()
    releases = public_releases()
    # The rule must find the families (a sanity check of the rule, not a list of releases).
    for expected in (
        "privlearn.mechanisms.laplace",
        "privlearn.learners.AdaSSPRegressor",
        "privlearn.multi.PointMultiLearner",
        "privlearn.prediction.PrivatePredictor",
        "privlearn.query_release.SubsampleSVT",
    ):
        assert expected in releases
    lacking = [r for r in releases if r not in covered]
    assert not lacking, f"releases without a guarantees entry: {lacking}"


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e["name"])
def test_entry_names_an_importable_object(entry):
    for q in [entry["name"], *entry.get("also", [])]:
        assert _resolve(q) is not None, q
        assert callable(_resolve(q)), q


# --------------------------------------------------------------------------------------------
# The cited theorem is the docstring's
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e["name"])
def test_cited_theorem_is_in_the_docstring(entry):
    obj = _resolve(entry["name"])
    doc = _norm(inspect.getdoc(obj) or "")
    cite = _norm(entry["cite"])
    assert cite in doc, f"{entry['name']}: the docstring does not cite {cite!r}"


# --------------------------------------------------------------------------------------------
# The listed tests exist
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _test_file(path: str) -> "tuple[str, Dict[str, ast.AST]]":
    source = (ROOT / path).read_text(encoding="utf-8")
    tree = ast.parse(source)
    defs: Dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[node.name] = node
        elif isinstance(node, ast.ClassDef):
            defs[node.name] = node
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    defs[f"{node.name}::{sub.name}"] = sub
    return source, defs


_NODE = re.compile(r"^(tests/[A-Za-z0-9_/]+\.py)::([A-Za-z0-9_:]+)(?:\[(.+)\])?$")


def check_node_id(node_id: str) -> None:
    """Raise AssertionError unless ``node_id`` names a test function that exists."""
    m = _NODE.match(node_id)
    assert m, f"not a pytest node id: {node_id!r}"
    path, func, param = m.groups()
    assert (ROOT / path).is_file(), f"{node_id}: no file {path}"
    source, defs = _test_file(path)
    assert func in defs, f"{node_id}: no test {func} in {path}"
    name = func.rpartition("::")[2]
    assert name.startswith("test_") or name.startswith("Test"), node_id
    if param is not None:
        fn = defs[func]
        decorated = any("parametrize" in ast.unparse(d) for d in fn.decorator_list)  # type: ignore[attr-defined]
        assert decorated, f"{node_id}: {func} is not parametrised"
        collected = _collected()
        assert node_id in collected, f"{node_id}: pytest collects no such parameter"


@lru_cache(maxsize=None)
def _collected() -> "frozenset[str]":
    """The node ids pytest collects from the test files whose parametrised ids the registry
    lists, in one subprocess (parametrised ids are built at collection, often from names
    computed in the file, so only pytest knows them)."""
    paths = sorted(
        {
            _NODE.match(n).group(1)  # type: ignore[union-attr]
            for e in entries()
            for f in TEST_FIELDS
            for n in e.get(f, [])
            if "[" in n and _NODE.match(n)
        }
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    ids = frozenset(line.strip() for line in proc.stdout.splitlines() if "::" in line)
    assert ids, f"collecting {paths} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return ids


def test_node_id_checker_has_power():
    check_node_id("tests/test_neighbour_replay.py::test_neighbour_replay[SparseVector]")
    for bad in (
        "tests/test_neighbour_replay.py::test_no_such_test",
        "tests/test_no_such_file.py::test_x",
        "tests/test_neighbour_replay.py::test_neighbour_replay[NoSuchEntryAnywhere]",
        "tests/test_neighbour_replay.py::test_registry_names_are_unique[x]",
        "test_neighbour_replay.py::test_neighbour_replay",
    ):
        with pytest.raises(AssertionError):
            check_node_id(bad)


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e["name"])
def test_listed_tests_exist(entry):
    for field in TEST_FIELDS:
        for node_id in entry.get(field, []):
            check_node_id(node_id)


# --------------------------------------------------------------------------------------------
# Every release is tested three ways, or the page says what is missing
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e["name"])
def test_calibration_replay_and_audit_or_an_honest_gap(entry):
    absent = [f for f in ("calibration", "replay", "audit") if not entry.get(f)]
    if absent:
        note = entry.get("missing", "").strip()
        assert note, f"{entry['name']}: no {absent} test and no 'missing' note"


# --------------------------------------------------------------------------------------------
# Cross-references and rendering
# --------------------------------------------------------------------------------------------

_ROLE = re.compile(r"\{py:(class|func|meth|attr|mod|data)\}`~?([^`]+)`")


@pytest.mark.parametrize("entry", entries(), ids=lambda e: e["name"])
def test_cross_references_name_public_objects(entry):
    for field in TEXT_FIELDS:
        for role, target in _ROLE.findall(entry.get(field, "")):
            assert not any(p.startswith("_") for p in target.split(".")), (entry["name"], target)
            obj = _resolve(target)
            assert obj is not None, (entry["name"], target)
            assert (role == "class") == inspect.isclass(obj), (entry["name"], role, target)


@pytest.fixture(scope="module")
def ext():
    return EXTENSION


def test_generator_writes_every_page_and_the_index(ext, tmp_path):
    reg = tmp_path / "registry.toml"
    reg.write_bytes(REGISTRY.read_bytes())
    written = ext.write_pages(reg, tmp_path)
    es = entries()
    assert len(written) == len(es) + 1
    index = (tmp_path / "index.md").read_text(encoding="utf-8")
    for e in es:
        page = ext.page_name(e)
        text = (tmp_path / f"{page}.md").read_text(encoding="utf-8")
        assert f"]({page}.md)" in index and f"\n{page}\n" in index
        assert text.splitlines()[2] == f"# {e['title']}"
        for node_id in (n for f in TEST_FIELDS for n in e.get(f, [])):
            assert f"`{node_id}`" in text
        if e.get("missing"):
            assert "## Gaps" in text
        public = not any(p.startswith("_") for p in e["name"].split("."))
        role = "py:class" if inspect.isclass(_resolve(e["name"])) else "py:func"
        assert (f"{{{role}}}`{e['name']}`" in text) == public
    # Rewriting unchanged pages leaves them untouched (incremental builds stay incremental).
    mtimes = {p: p.stat().st_mtime_ns for p in written}
    ext.write_pages(reg, tmp_path)
    assert all(p.stat().st_mtime_ns == mtimes[p] for p in written)
    # A page whose entry was removed is deleted; other files are kept.
    (tmp_path / "notes.md").write_text("# mine\n", encoding="utf-8")
    data = REGISTRY.read_text(encoding="utf-8")
    first = es[0]
    cut = data.index("[[release]]", data.index(f'name = "{first["name"]}"'))
    head = data[: data.index("[[release]]")]
    reg.write_text(head + data[cut:], encoding="utf-8")
    ext.write_pages(reg, tmp_path)
    assert not (tmp_path / f"{ext.page_name(first)}.md").exists()
    assert (tmp_path / "notes.md").exists()


def test_generator_refuses_an_incomplete_entry(ext, tmp_path):
    reg = tmp_path / "registry.toml"
    reg.write_text('[[release]]\nname = "privlearn.mechanisms.laplace"\ntitle = "x"\n')
    with pytest.raises(ValueError, match="lacks"):
        ext.write_pages(reg, tmp_path)
