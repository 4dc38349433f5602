"""Sphinx configuration of privlearn's documentation site.

Build it with ``scripts/build-docs`` (warnings are errors, the doctest builder runs every
executed example, internal links are checked and the front page is screenshot in headless
Chromium). Nothing here reaches the network: no intersphinx, no remote images.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import privlearn

DOCS = Path(__file__).resolve().parent
# docs/_ext holds the project's own Sphinx extensions (privlearn_guarantees: the privacy
# guarantees pages generated from their registry).
sys.path.insert(0, str(DOCS / "_ext"))

project = "privlearn"
author = "the privlearn authors"
copyright = "the privlearn authors"  # noqa: A001 (Sphinx's name)
release = privlearn.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "sphinx_gallery.gen_gallery",
]
# The privacy-guarantees pages come from docs/_ext/privlearn_guarantees.py. Once that file is in
# the repository the extension is always loaded, so a broken import fails the build loudly; the
# toctree entry guarantees/index exists either way.
if (DOCS / "_ext" / "privlearn_guarantees.py").exists():
    extensions.append("privlearn_guarantees")

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "_templates",
    "Thumbs.db",
    ".DS_Store",
    "CONTRIBUTING-docs.md",
    # sphinx-gallery's own by-products that are not pages.
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "auto_examples/*.json",
]
templates_path = ["_templates"]

# Every reference must resolve (nitpicky), except names from packages whose inventories would
# need the network (intersphinx is off) and the informal type words of numpydoc sections.
nitpicky = True
nitpick_ignore_regex = [
    (
        r"py:.*",
        r"(numpy|np|scipy|sklearn|pandas|polars|matplotlib|dask|joblib|typing|collections|"
        r"abc|enum|dataclasses|concurrent|os|pathlib|io|fractions|decimal|numbers)(\..*)?",
    ),
    (
        r"py:.*",
        r"(int|float|str|bool|bytes|object|list|tuple|dict|set|frozenset|callable|None|"
        r"Callable|Iterable|Iterator|Sequence|Mapping|Any|Optional|Union|Literal|Path|Fraction|"
        r"Exception|ValueError|TypeError|RuntimeError|ArithmeticError|NDArray|ArrayLike|"
        r"array-like|array_like|ndarray|Generator|SeedSequence|RandomState|optional|default.*)",
    ),
]

# -- autodoc / autosummary / numpydoc -------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
# A module's members are its __all__ (autosummary's template variables respect it).
autosummary_ignore_module_all = False
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"  # the numpydoc sections carry the types
autodoc_preserve_defaults = False
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# numpydoc's style validation (GL01, SA01, ...) is off: the API's docstrings follow numpydoc's
# sections, and real errors (bad references, duplicate objects, broken toctrees, malformed
# reST) still fail the build through -W.
numpydoc_validation_checks: set[str] = set()

# -- MyST -----------------------------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "dollarmath", "deflist"]
myst_heading_anchors = 3

# -- doctest --------------------------------------------------------------------------------------
# The guide's executed code blocks are {testcode}/{testoutput} and {doctest} directives (see
# docs/CONTRIBUTING-docs.md); `sphinx-build -b doctest` runs them.
# The docstrings' examples (run here too) may use their module's public names unimported, as
# doctest.testmod lets them (tests/test_docs.py): every public module's names are in scope.
doctest_global_setup = """
import numpy as np
import privlearn
from privlearn.errors import *
from privlearn.random import *
from privlearn.gf2 import *
from privlearn.hypotheses import *
from privlearn.datasets import *
from privlearn.mechanisms import *
from privlearn.accounting import *
from privlearn.audit import *
from privlearn.learners import *
from privlearn.multi import *
from privlearn.prediction import *
from privlearn.query_release import *
from privlearn.attacks import *
from privlearn.experiments import *
"""
doctest_test_doctest_blocks = "default"

# -- sphinx-gallery -------------------------------------------------------------------------------
os.environ.setdefault("MPLBACKEND", "Agg")
sphinx_gallery_conf = {
    "examples_dirs": str(DOCS.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    # An example that raises fails the build.
    "only_warn_on_example_error": False,
    "abort_on_example_error": True,
    "plot_gallery": "True",
    "min_reported_time": 1,
    "show_memory": False,
    "show_signature": False,
}

# -- references ---------------------------------------------------------------------------------
# Docstrings name objects where they are defined (``privlearn.accounting._rdp.rdp_pure``), by a
# package-level alias (``privlearn.BudgetExceededError``) or by a short name (``RDP_ORDERS``); the
# pages document them under their public module. A reference that Sphinx cannot resolve is looked
# up among the documented objects: with its private module components dropped, then by ever
# shorter dotted suffixes, preferring the referring page's public module; a single match resolves
# it. A module that has no page of its own (``privlearn.learners.adassp``) resolves to its nearest
# documented parent. A reference to an object that exists in privlearn but has no page (a private
# helper such as ``bounds_plan``) is shown as code without a link. Anything else (a name that does
# not exist, a typo) fails the build. Attribute references (``coef_``, a dataclass field) are not
# checked: numpydoc's Attributes sections make no link targets.
nitpick_ignore_regex += [
    (r"py:.*", r"(time|operator|math|functools|itertools|warnings|inspect|random)\..*"),
    (r"py:attr", r".*"),
    (r"py:.*", r"(.*\.)?_[A-Za-z0-9]\w*"),  # private names
    (r"py:(obj|meth)", r"([A-Za-z]\w*\.)*[a-z]\w*_"),  # fitted attributes: hypotheses_
]


def _public(name: str) -> str:
    return ".".join(p for p in name.split(".") if not p.startswith("_"))


def _documented(objects, target: str, module: str) -> list[str]:  # type: ignore[no-untyped-def]
    parts = _public(target).split(".")
    for start in range(len(parts)):
        wanted = ".".join(parts[start:])
        found = [k for k in objects if k == wanted or k.endswith("." + wanted)]
        if len(found) > 1 and module:
            local = [k for k in found if k.startswith(_public(module) + ".")]
            found = local or found
        if found:
            return found
    return []


def _exists_in_privlearn(target: str, scopes: list[str]) -> bool:
    import importlib

    for full in [scope + "." + target for scope in scopes if scope] + [target]:
        parts = full.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                break
            return parts[0] == "privlearn"
    return False


def _resolve_public(app, env, node, contnode):  # type: ignore[no-untyped-def]
    if node.get("refdomain") != "py":
        return None
    domain = env.get_domain("py")
    objects = domain.objects
    target = node["reftarget"].lstrip("~.")
    module = node.get("py:module") or ""
    candidates = _documented(objects, target, module)
    if not candidates and node.get("reftype") == "mod":
        parts = _public(target).split(".")
        while len(parts) > 1 and not candidates:
            parts.pop()
            name = ".".join(parts)
            if name in objects and objects[name].objtype == "module":
                candidates = [name]
    if len(candidates) == 1:
        return domain.resolve_xref(
            env, node["refdoc"], app.builder, "obj", candidates[0], node, contnode
        )
    # The scopes the name may be relative to: the page's module and the object whose docstring
    # holds the reference (node.source ends with "docstring of privlearn.learners.adassp.X").
    scopes = [module]
    source = str(node.source or "")
    if "docstring of " in source:
        owner = source.rsplit("docstring of ", 1)[1].split(":")[0].split(".")
        scopes += [".".join(owner[:k]) for k in range(len(owner), 0, -1)]
    if not candidates and _exists_in_privlearn(target, scopes):
        return contnode
    return None


def _skip_member(app, what, name, obj, skip, options):  # type: ignore[no-untyped-def]
    # scikit-learn's generated metadata-routing setters (set_fit_request, ...) are not ours.
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):  # type: ignore[no-untyped-def]
    app.connect("missing-reference", _resolve_public)
    app.connect("autodoc-skip-member", _skip_member)


# -- HTML -----------------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"privlearn {release}"
html_show_sourcelink = False
html_copy_source = False
