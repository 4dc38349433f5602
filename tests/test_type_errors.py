"""A wrong *type* for a public numeric argument is an InvalidParameterError naming it (issue 20).

A string for ``epsilon``, a list for ``delta``, ``None`` where a number is required, a dict or a
bool: each raises :class:`~privlearn.errors.InvalidParameterError` with ``.parameter`` the
argument's name and a message starting with ``"<name>:"``, like a value out of range, before
anything is drawn or charged. The error is also a ``TypeError`` and a ``ValueError`` (as
scikit-learn's parameter errors are).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

import numpy as np
import pytest

import privlearn.mechanisms as M
from privlearn import learners as L
from privlearn.accounting import Accountant, Budget
from privlearn.audit import audit
from privlearn.errors import InvalidParameterError

_X = np.random.default_rng(0).uniform(-0.5, 0.5, size=(30, 2))
_Y = _X @ np.array([0.3, 0.2])
_YC = (_Y > 0).astype(int)

BAD: Dict[str, Any] = {
    "str": "1",
    "list": [1.0],
    "None": None,
    "dict": {},
    "bool": True,
    "complex": 1j,
}


def _call(fn: Callable[..., Any], defaults: Dict[str, Any]) -> Callable[..., Any]:
    return lambda **override: fn(**{**defaults, **override})


def _fit(cls: Any, defaults: Dict[str, Any], y: np.ndarray) -> Callable[..., Any]:
    return lambda **override: cls(**{**defaults, **override}).fit(_X, y)


_ACC = {"rng": 0}
# (label, call(**override), numeric parameters, parameters for which None is a valid value)
CASES: List[Tuple[str, Callable[..., Any], List[str], Tuple[str, ...]]] = [
    (
        "exponential",
        _call(M.exponential, dict(scores=[1.0, 2.0], epsilon=1.0, **_ACC)),
        ["epsilon", "sensitivity", "size"],
        ("size",),
    ),
    (
        "laplace",
        _call(M.laplace, dict(value=1.0, sensitivity=1.0, epsilon=1.0, **_ACC)),
        ["sensitivity", "epsilon"],
        (),
    ),
    (
        "gaussian",
        _call(M.gaussian, dict(value=1.0, sensitivity=1.0, epsilon=1.0, delta=1e-6, **_ACC)),
        ["sensitivity", "epsilon", "delta"],
        (),
    ),
    (
        "gaussian_sigma",
        _call(M.gaussian_sigma, dict(sensitivity=1.0, epsilon=1.0, delta=1e-6)),
        ["sensitivity", "epsilon", "delta", "dim"],
        (),
    ),
    (
        "gaussian_noise",
        _call(M.gaussian_noise, dict(value=[1.0], sigma=1.0, sensitivity=1.0, **_ACC)),
        ["sigma", "sensitivity"],
        (),
    ),
    (
        "gaussian_noise_sigma",
        _call(M.gaussian_noise_sigma, dict(sensitivity=1.0, rho=0.5)),
        ["sensitivity", "rho"],
        (),
    ),
    (
        "discrete_laplace",
        _call(M.discrete_laplace, dict(value=[1], scale=1.0, **_ACC)),
        ["scale"],
        (),
    ),
    (
        "discrete_gaussian",
        _call(M.discrete_gaussian, dict(value=[1], sigma=1.0, **_ACC)),
        ["sigma"],
        (),
    ),
    (
        "randomized_response",
        _call(M.randomized_response, dict(bits=[1, 0], epsilon=1.0, **_ACC)),
        ["epsilon"],
        (),
    ),
    (
        "randomized_response_k",
        _call(M.randomized_response_k, dict(values=[1, 0], k=3, epsilon=1.0, **_ACC)),
        ["epsilon", "k"],
        (),
    ),
    (
        "l2_laplace_noise",
        _call(M.l2_laplace_noise, dict(dim=2, scale=1.0, **_ACC)),
        ["dim", "scale", "size"],
        ("size",),
    ),
    (
        "report_noisy_max",
        _call(M.report_noisy_max, dict(scores=[1.0, 2.0], epsilon=1.0, **_ACC)),
        ["epsilon", "sensitivity"],
        (),
    ),
    (
        "permute_and_flip",
        _call(M.permute_and_flip, dict(scores=[1.0, 2.0], epsilon=1.0, **_ACC)),
        ["epsilon", "sensitivity"],
        (),
    ),
    (
        "stable_argmax",
        _call(M.stable_argmax, dict(scores=[1.0, 2.0], epsilon=1.0, delta=1e-6, **_ACC)),
        ["epsilon", "delta", "sensitivity"],
        (),
    ),
    (
        "SparseVector",
        _call(M.SparseVector, dict(threshold=1.0, epsilon=1.0, **_ACC)),
        ["threshold", "epsilon", "sensitivity", "max_positives"],
        (),
    ),
    ("Budget", _call(Budget, dict(epsilon=1.0, delta=0.0)), ["epsilon", "delta"], ()),
    (
        "audit",
        _call(audit, dict(run_a=lambda g: 0, run_b=lambda g: 0, claimed=1.0, n=10, rng=0)),
        ["n", "alpha"],
        (),
    ),
    (
        "OutputPerturbationRegressor",
        _fit(
            L.OutputPerturbationRegressor,
            dict(epsilon=1.0, data_norm=1.0, label_bound=1.0, rng=0),
            _Y,
        ),
        ["epsilon", "alpha", "data_norm", "label_bound", "radius"],
        ("radius",),
    ),
    (
        "ObjectivePerturbationClassifier",
        _fit(
            L.ObjectivePerturbationClassifier,
            dict(epsilon=1.0, data_norm=1.0, classes=[0, 1], rng=0),
            _YC,
        ),
        ["epsilon", "alpha", "data_norm"],
        (),
    ),
    (
        "FunctionalMechanismRegressor",
        _fit(
            L.FunctionalMechanismRegressor,
            dict(epsilon=1.0, data_norm=1.0, label_bound=1.0, rng=0),
            _Y,
        ),
        ["epsilon", "data_norm", "label_bound"],
        (),
    ),
    (
        "AdaSSPRegressor",
        _fit(
            L.AdaSSPRegressor,
            dict(epsilon=1.0, delta=1e-6, data_norm=1.0, label_bound=1.0, rng=0),
            _Y,
        ),
        ["epsilon", "delta", "data_norm", "label_bound"],
        (),
    ),
    (
        "DPGradientDescentClassifier",
        _fit(
            L.DPGradientDescentClassifier,
            dict(epsilon=1.0, delta=1e-6, data_norm=1.0, classes=[0, 1], rng=0),
            _YC,
        ),
        ["epsilon", "delta", "data_norm"],
        (),
    ),
]

PARAMS = [
    pytest.param(call, param, bad, id=f"{label}-{param}-{kind}")
    for label, call, params, none_ok in CASES
    for param in params
    for kind, bad in BAD.items()
    if not (bad is None and param in none_ok)
]


@pytest.mark.parametrize("call, param, bad", PARAMS)
def test_wrong_type_names_the_parameter(call: Callable[..., Any], param: str, bad: Any) -> None:
    with pytest.raises(InvalidParameterError) as info:
        call(**{param: bad})
    assert info.value.parameter == param
    assert str(info.value).startswith(f"{param}:"), str(info.value)
    assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("label, call, params, none_ok", CASES, ids=[c[0] for c in CASES])
def test_the_cases_run_with_good_values(label, call, params, none_ok) -> None:
    """The defaults of each case are valid: the refusals above are about the one bad argument."""
    call()


def test_wrong_type_charges_nothing():
    acc = Accountant(Budget(2.0))
    for bad in ("1", None, [1.0]):
        with pytest.raises(InvalidParameterError):
            M.laplace(1.0, 1.0, bad, rng=0, accountant=acc)
        with pytest.raises(InvalidParameterError):
            M.laplace(1.0, bad, 1.0, rng=0, accountant=acc)
    assert acc.spent == Budget(0.0) and not acc.ledger


def test_numeric_like_values_are_still_accepted():
    """numpy scalars and 0-d arrays keep working (only types that are not numbers are refused)."""
    a = M.laplace(1.0, np.float32(1.0), np.array(1.0), rng=3)
    b = M.laplace(1.0, 1.0, 1.0, rng=3)
    assert a == b
    assert M.gaussian_sigma(1.0, np.float64(1.0), 1e-6, dim=np.int64(2)) == M.gaussian_sigma(
        1.0, 1.0, 1e-6, dim=2
    )
