"""Behaviour of the multi-concept learners' and the predictors' ``fit`` / ``predict`` that the
issue-20 mutation run (shards py-multi and py-prediction) found unpinned by those shards' tests.

* Column-name bookkeeping (scikit-learn's ``feature_names_in_`` contract) on every estimator
  whose ``fit`` / ``predict`` calls ``check_feature_names`` itself: a DataFrame fit records the
  column names, a refit on an array forgets them, and at ``predict`` other columns are refused
  (:class:`~privlearn.errors.InvalidParameterError` naming ``X``) while an array gets
  scikit-learn's warning. The expected behaviour is scikit-learn's documented one, written out
  here, not read from the library.
* :class:`~privlearn.prediction.ERMClassifier`: its hypothesis is an exact empirical risk
  minimiser (checked against a brute-force search over thresholds) and its labels are ``0/1``.
* :class:`~privlearn.prediction.SubsampleAggregatePredictor`: the randomized-response flip
  probability is the docstring's ``p = 1/(k(e^eps - 1) + 2)`` (rounded up), so the certified
  ``epsilon_ = ln(1 + (1 - 2p)/(kp))`` is ``epsilon`` (up to the rounding, never above), and
  ``fit`` takes exactly one draw (the partition's seed) from a caller's generator, leaving the
  rest of its stream to the answers.
* The multi-concept learners' fitted attributes ``n_concepts_`` and ``n_features_in_`` (1 for
  the 1-D domain indices of a :class:`~privlearn.hypotheses.FiniteClass`).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable, List

import numpy as np
import pandas as pd
import pytest

from estimator_cases import parities, thresholds
from privlearn import multi as M
from privlearn import prediction as P
from privlearn.errors import InvalidParameterError
from privlearn.hypotheses import FiniteClass, Parities, Thresholds
from privlearn.random import Generator


def _names(d: int, prefix: str = "x") -> List[str]:
    return [f"{prefix}{i}" for i in range(d)]


FACTORIES: List[Any] = [
    pytest.param(lambda: P.ERMClassifier(Thresholds()), thresholds, id="ERMClassifier"),
    pytest.param(
        lambda: P.SubsampleAggregatePredictor(P.ERMClassifier(Thresholds()), 4, 1.0, rng=0),
        thresholds,
        id="SubsampleAggregatePredictor",
    ),
    pytest.param(lambda: P.StablePredictor(Thresholds(), 0.3, rng=0), thresholds, id="Stable"),
    pytest.param(
        lambda: P.PrivatePredictor(Thresholds(), 1.0, rng=0), thresholds, id="PrivatePredictor"
    ),
    pytest.param(
        lambda: M.NonPrivateMultiLearner(Parities(3)), parities, id="NonPrivateMultiLearner"
    ),
    pytest.param(
        lambda: M.ParityMultiLearner(3, 1.0, 1e-6, rng=0), parities, id="ParityMultiLearner"
    ),
]


@pytest.mark.parametrize("build, data", FACTORIES)
def test_feature_names_are_recorded_checked_and_forgotten(
    build: Callable[[], Any], data: Callable[[int], Any]
) -> None:
    X, y, X_test = data(0)
    d = X.shape[1]
    cols = _names(d)
    yf = pd.DataFrame(y, columns=_names(y.shape[1], "c")) if y.ndim == 2 else pd.Series(y)
    est = build()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a frame fit and a same-columns predict: no warning
        est.fit(pd.DataFrame(X, columns=cols), yf)
        est.predict(pd.DataFrame(X_test, columns=cols))
    assert isinstance(est.feature_names_in_, np.ndarray)
    assert list(est.feature_names_in_) == cols
    # Other column names (or the fitted ones in another order) are refused, naming X.
    bad = [_names(d, "z")] + ([cols[::-1]] if d >= 2 else [])
    for columns in bad:
        with pytest.raises(InvalidParameterError, match="feature names should match") as err:
            est.predict(pd.DataFrame(X_test, columns=columns))
        assert err.value.parameter == "X"
        assert list(est.feature_names_in_) == cols  # predict never re-records the names
    with pytest.warns(UserWarning, match="X does not have valid feature names"):
        est.predict(X_test)
    # A refit on an array forgets the names; a frame at predict then warns.
    est.fit(X, y)
    assert not hasattr(est, "feature_names_in_")
    with pytest.warns(UserWarning, match="X has feature names, but"):
        est.predict(pd.DataFrame(X_test, columns=cols))


def _brute_force_threshold_errors(x: np.ndarray, y: np.ndarray) -> int:
    """Fewest training mistakes of any threshold ``1[x >= t]`` (t over the data and +inf)."""
    cands = np.concatenate([np.unique(x), [np.inf]])
    return int(min(np.sum((x >= t).astype(np.int64) != y) for t in cands))


def test_erm_classifier_is_an_exact_empirical_risk_minimiser() -> None:
    g = np.random.default_rng(11)
    x = g.random(60)
    y = ((x >= 0.45) ^ (g.random(60) < 0.2)).astype(np.int64)  # 20% label noise
    est = P.ERMClassifier(Thresholds()).fit(x.reshape(-1, 1), y)
    assert est.hypothesis_ is not None
    pred = est.predict(x.reshape(-1, 1))
    assert pred.dtype == np.int64 and pred.shape == (60,)
    assert set(np.unique(pred)) <= {0, 1}
    assert int(np.sum(pred != y)) == _brute_force_threshold_errors(x, y)
    # A separable sample is fitted without a mistake, and new points follow the threshold.
    xs = np.linspace(0.0, 1.0, 41)
    ys = (xs >= 0.5).astype(np.int64)
    sep = P.ERMClassifier(Thresholds()).fit(xs.reshape(-1, 1), ys)
    np.testing.assert_array_equal(sep.predict(xs.reshape(-1, 1)), ys)
    np.testing.assert_array_equal(sep.predict(np.array([[0.1], [0.9]])), [0, 1])
    np.testing.assert_array_equal(sep.classes_, [0, 1])


def test_subsample_aggregate_classes_are_0_and_1() -> None:
    X, y, _ = thresholds(0)
    est = P.SubsampleAggregatePredictor(P.ERMClassifier(Thresholds()), 4, 1.0, rng=0).fit(X, y)
    np.testing.assert_array_equal(est.classes_, [0, 1])


@pytest.mark.parametrize("k, eps", [(4, 1.0), (10, 0.5), (3, 2.0)])
def test_randomized_response_flip_probability_and_epsilon(k: int, eps: float) -> None:
    X, y, _ = thresholds(1)
    est = P.SubsampleAggregatePredictor(
        P.ERMClassifier(Thresholds()), k, eps, aggregation="randomized_response", rng=0
    ).fit(X, y)
    p = 1.0 / (k * math.expm1(eps) + 2.0)  # the docstring's flip probability
    # Rounded up to a multiple of 2^-62: equal to p up to float precision, never below it.
    assert est.flip_probability_ == pytest.approx(p, rel=1e-12)
    assert est.flip_probability_ >= p * (1 - 1e-15)
    # ln(1 + (1 - 2p)/(kp)) = ln(e^eps) = eps at the exact p; the float p and the upward
    # rounding of the certified value leave it at most an ulp or so above eps (it is epsilon_,
    # the certified value, that is charged).
    assert est.epsilon_ <= eps * (1 + 1e-12)
    assert est.epsilon_ == pytest.approx(eps, rel=1e-9)


def test_subsample_aggregate_fit_takes_one_draw_from_a_callers_generator() -> None:
    X, y, _ = thresholds(2)
    gen = Generator(123)
    P.SubsampleAggregatePredictor(P.ERMClassifier(Thresholds()), 4, 1.0, rng=gen).fit(X, y)
    ref = Generator(123)
    ref.random_raw(1)  # the partition's seed
    assert list(gen.random_raw(4)) == list(ref.random_raw(4))


def test_multi_learner_fitted_attributes() -> None:
    X, Y, _ = parities(3)
    est = M.NonPrivateMultiLearner(Parities(3)).fit(X, Y)
    assert est.n_concepts_ == Y.shape[1] == 3
    assert est.n_features_in_ == 3
    # A FiniteClass takes 1-D domain indices: one feature.
    labels = np.array([[0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1]])
    x = np.array([0, 1, 2, 3] * 5)
    Yf = np.stack([labels[0][x], labels[2][x]], axis=1).astype(bool)
    fin = M.NonPrivateMultiLearner(FiniteClass(labels)).fit(x, Yf)
    assert fin.n_features_in_ == 1
    assert fin.n_concepts_ == 2
    np.testing.assert_array_equal(fin.predict(x), Yf)
