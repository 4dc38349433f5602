"""Documentation is part of the contract: doctests run, and every public callable documents
itself (mechanisms also state their privacy guarantee and source)."""

from __future__ import annotations

import doctest
import importlib
import inspect

import pytest

MODULES = [
    "privlearn",
    "privlearn.errors",
    "privlearn.random",
    "privlearn.mechanisms",
    "privlearn.audit",
    "privlearn.audit._lower_bound",
    "privlearn.audit._audit",
    "privlearn.audit._distribution_tests",
    "privlearn.audit._claims",
    "privlearn.audit._tradeoff",
    "privlearn.audit._neighbours",
    "privlearn.audit._report",
    "privlearn.audit._distinguisher",
    "privlearn.preprocessing._scaler",
    "privlearn.preprocessing._quantile_scalers",
    "privlearn.preprocessing._clipper",
    "privlearn.preprocessing._pca",
    "privlearn.pipeline",
    "privlearn.datasets",
    "privlearn.experiments",
    "privlearn.learners",
    "privlearn.learners.output_perturbation",
    "privlearn.learners.objective_perturbation",
    "privlearn.learners.functional",
    "privlearn.learners.tuning",
    "privlearn.attacks.inversion",
    "privlearn.experiments.wu_regression",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests_pass(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


@pytest.mark.parametrize("name", MODULES)
def test_public_callables_have_docstrings(name):
    module = importlib.import_module(name)
    assert module.__doc__
    for attr in getattr(module, "__all__", []):
        obj = getattr(module, attr)
        if inspect.isfunction(obj) or inspect.isclass(obj) or inspect.isbuiltin(obj):
            assert inspect.getdoc(obj), f"{name}.{attr} has no docstring"


def test_mechanisms_state_guarantee_and_source():
    from privlearn import mechanisms

    doc = inspect.getdoc(mechanisms.exponential)
    assert "differentially private" in doc
    assert "McSherry" in doc and "Theorem" in doc
    assert "seed" in doc
