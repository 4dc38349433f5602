"""privlearn.attacks.model_inversion (Fredrikson et al. 2014, as used by Wu et al. Section 5.3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privlearn import InvalidParameterError
from privlearn.attacks import model_inversion
from privlearn.datasets import load_warfarin
from privlearn.learners import OutputPerturbationRegressor

VKORC1 = (12, 13)


def _brute_force(w, X, y, cols, prior, sigma):
    """The attack written out target by target (an independent reference)."""
    correct = 0
    for x, t in zip(X, y):
        truth = 0
        for j, c in enumerate(cols):
            if x[c] == 1:
                truth = j + 1
        best, best_score = None, -math.inf
        for v in range(len(cols) + 1):
            xv = x.copy()
            for c in cols:
                xv[c] = 0.0
            if v:
                xv[cols[v - 1]] = 1.0
            score = math.log(prior[v]) - (t - float(xv @ w)) ** 2 / (2 * sigma**2)
            if score > best_score:
                best, best_score = v, score
        correct += best == truth
    return correct / len(y)


def _random_case(seed, n=200, d=6, cols=(3, 4, 5)):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    level = rng.integers(0, len(cols) + 1, n)
    X[:, list(cols)] = 0.0
    for j, c in enumerate(cols):
        X[level == j + 1, c] = 1.0
    w = rng.normal(size=d)
    w[list(cols)] = (-1.5, 1.5, 3.0)  # a strong, level-specific effect on the outcome
    y = X @ w + 0.5 * rng.normal(size=n)
    return X, y, w


@pytest.mark.parametrize("seed", range(4))
def test_matches_brute_force(seed):
    X, y, w = _random_case(seed)
    cols = (3, 4, 5)
    prior = np.array([0.1, 0.2, 0.3, 0.4])
    acc, guesses = model_inversion(
        w, X, y, columns=cols, prior=prior, sigma=0.7, return_guesses=True
    )
    assert acc == pytest.approx(_brute_force(w, X, y, cols, prior, 0.7))
    assert guesses.shape == (200,) and set(np.unique(guesses)) <= {0, 1, 2, 3}
    assert acc > 0.5, "the attribute drives the outcome: inversion beats the prior"


def test_default_prior_and_sigma():
    X, y, w = _random_case(9)
    cols = (3, 4, 5)
    level = np.where(X[:, list(cols)].any(axis=1), X[:, list(cols)].argmax(axis=1) + 1, 0)
    prior = (np.bincount(level, minlength=4) + 1) / (200 + 4)
    sigma = float(np.sqrt(np.mean((X @ w - y) ** 2)))
    assert model_inversion(w, X, y, columns=cols) == model_inversion(
        w, X, y, columns=cols, prior=prior, sigma=sigma
    )


def test_zero_model_guesses_the_prior_mode():
    X, y, _ = _random_case(3)
    prior = [0.1, 0.2, 0.6, 0.1]
    acc, guesses = model_inversion(
        np.zeros(6), X, y, columns=(3, 4, 5), prior=prior, return_guesses=True
    )
    assert np.all(guesses == 2)
    assert acc == pytest.approx(np.mean(X[:, 4] == 1))


def test_column_order_only_relabels():
    X, y, w = _random_case(5)
    a, ga = model_inversion(
        w, X, y, columns=(3, 4, 5), prior=[0.25] * 4, sigma=1.0, return_guesses=True
    )
    b, gb = model_inversion(
        w, X, y, columns=(5, 3, 4), prior=[0.25] * 4, sigma=1.0, return_guesses=True
    )
    assert a == b
    relabel = np.array([0, 2, 3, 1])  # level of column (3, 4, 5)[k - 1] in the second order
    assert np.array_equal(relabel[ga], gb)


def test_estimator_and_coefficients_agree_on_warfarin():
    data = load_warfarin()
    X, y = data.X, data.y
    train, test = slice(0, 3000), slice(3000, None)
    w = np.linalg.lstsq(X[train], y[train], rcond=None)[0]
    sigma = float(np.sqrt(np.mean((X[train] @ w - y[train]) ** 2)))
    acc = model_inversion(w, X[test], y[test], columns=VKORC1, sigma=sigma)
    block = X[test][:, list(VKORC1)]
    level = np.where(block.any(axis=1), block.argmax(axis=1) + 1, 0)
    baseline = np.max(np.bincount(level)) / level.size
    assert acc > baseline + 0.05, (acc, baseline)  # about 0.46 against 0.38
    model = OutputPerturbationRegressor(
        1e12, alpha=1e-7, radius=None, data_norm=8.01, label_bound=8.72, rng=0
    )
    model.fit(X[train], y[train])
    assert np.allclose(model.coef_, w, atol=0.02)
    assert model_inversion(model, X[test], y[test], columns=VKORC1, sigma=sigma) == pytest.approx(
        acc, abs=0.01
    )


@pytest.mark.parametrize(
    "kwargs,name",
    [
        (dict(columns=(6,)), "columns"),
        (dict(columns=()), "columns"),
        (dict(columns=(3, 3)), "columns"),
        (dict(columns=(0, 1)), "columns"),  # not one-hot
        (dict(columns=(3, 4, 5), prior=[0.5, 0.5]), "prior"),
        (dict(columns=(3, 4, 5), prior=[0.5, 0.5, 0.0, 0.0]), "prior"),
        (dict(columns=(3, 4, 5), sigma=0.0), "sigma"),
        (dict(columns=(3, 4, 5), sigma=math.nan), "sigma"),
    ],
)
def test_errors(kwargs, name):
    X, y, w = _random_case(1)
    with pytest.raises(InvalidParameterError) as err:
        model_inversion(w, X, y, **kwargs)
    assert err.value.parameter == name


def test_data_errors():
    X, y, w = _random_case(1)
    for args, name in [
        ((w, X, y[:-1]), "y"),
        ((w, X[0], y), "X"),
        ((w[:3], X, y), "model"),
        ((w, np.where(X == X[0, 0], np.nan, X), y), "X"),
    ]:
        with pytest.raises(InvalidParameterError) as err:
            model_inversion(*args, columns=(3, 4, 5))
        assert err.value.parameter == name
