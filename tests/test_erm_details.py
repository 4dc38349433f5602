"""Details of the exponential-mechanism ERM and of a few argument checks (mutation survivors of
issue 16): the quantisation term of ``excess_risk_bound_``, parameter names of refused
arguments, the labels a user loss sees, the probability checks of :mod:`privlearn.multi` and the
subset size :class:`~privlearn.prediction.StablePredictor` derives from ``epsilon0``."""

import math

import numpy as np
import pytest

from privlearn.errors import InvalidParameterError
from privlearn.hypotheses import Thresholds
from privlearn.learners.erm import (
    ExponentialMechanismERM,
    LinearCandidates,
    excess_risk_bound,
)
from privlearn.multi import exponential_sample_size, parity_subsamples, points_sample_size
from privlearn.prediction import StablePredictor


def _data(n):
    g = np.random.default_rng(3)
    X = g.normal(size=(n, 2))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    return X, y


CANDS = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.5], [0.5, 0.5]]


def _paper_bound(n, eps, N, B):
    """``2 Delta (ln N + 1) / eps`` with the paper's ``Delta = 2B/n`` (independent formula)."""
    return 2.0 * (2.0 * B / n) * (math.log(N) + 1.0) / eps


def _frac_bits_indep(n):
    """``k = min(32, 52 - bit_length(n))`` (module docstring, "Exactness")."""
    return min(32, 52 - n.bit_length())


# -- the quantisation term of excess_risk_bound_ -------------------------------------------------


def test_zero_one_without_regularizer_has_no_quantisation_term():
    # Mistake counts are exact integers (k = 0): the bound is the per-dataset bound alone.
    n, eps = 40, 2.0
    X, y = _data(n)
    est = ExponentialMechanismERM("zero_one", LinearCandidates(CANDS), eps, rng=1).fit(X, y)
    assert est.excess_risk_bound_ == pytest.approx(_paper_bound(n, eps, len(CANDS), 1.0), rel=1e-12)


@pytest.mark.parametrize("loss, bound", [("clipped_hinge", 1.0), ("clipped_logistic", 2.5)])
def test_other_losses_add_the_quantisation_step(loss, bound):
    # Losses quantised to multiples of B / 2^k: the bound adds B (1 + 1/n) / 2^k.
    n, eps = 40, 2.0
    X, y = _data(n)
    est = ExponentialMechanismERM(loss, LinearCandidates(CANDS), eps, loss_bound=bound, rng=1).fit(
        X, y
    )
    k = _frac_bits_indep(n)
    quant = bound * (1.0 + 1.0 / n) / 2.0**k
    assert quant > 0.0
    expected = _paper_bound(n, eps, len(CANDS), bound) + quant
    assert est.excess_risk_bound_ == pytest.approx(expected, rel=1e-15, abs=0.0)
    assert est.excess_risk_bound_ != _paper_bound(n, eps, len(CANDS), bound)


def test_zero_one_with_regularizer_adds_the_quantisation_step():
    n, eps = 40, 2.0
    X, y = _data(n)
    est = ExponentialMechanismERM(
        "zero_one", LinearCandidates(CANDS), eps, regularizer=0.01, rng=1
    ).fit(X, y)
    quant = (1.0 + 1.0 / n) / 2.0 ** _frac_bits_indep(n)
    expected = _paper_bound(n, eps, len(CANDS), 1.0) + quant
    assert est.excess_risk_bound_ == pytest.approx(expected, rel=1e-15, abs=0.0)


# -- parameter names of refused arguments ----------------------------------------------------------


@pytest.mark.parametrize("kind", ["per-dataset", "lemma37"])
def test_excess_risk_bound_names_n_candidates(kind):
    with pytest.raises(InvalidParameterError) as info:
        excess_risk_bound(100, 1.0, 0, kind=kind)
    assert info.value.parameter == "n_candidates"
    assert str(info.value).startswith("n_candidates")


def test_linear_candidates_names_coef():
    with pytest.raises(InvalidParameterError) as info:
        LinearCandidates([[1.0, np.nan]])
    assert info.value.parameter == "coef"
    assert str(info.value).startswith("coef")


# -- a user loss sees the labels -------------------------------------------------------------------


def test_user_loss_receives_the_labels():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([1.0, 3.0, 5.0, 7.0])  # exactly 2x + 1: the first candidate
    seen = []

    def loss(h, Xs, ys):
        seen.append(ys)
        p = Xs @ np.asarray(h.coef) + h.intercept
        return (p - ys) ** 2

    cands = LinearCandidates([[2.0], [-2.0]], intercept=[1.0, 0.0])
    est = ExponentialMechanismERM(loss, cands, 200.0, loss_bound=1.0, rng=0).fit(X, y)
    assert len(seen) == 2
    for ys in seen:
        np.testing.assert_array_equal(ys, y)
    assert est.candidate_index_ == 0


# -- probability checks of privlearn.multi -------------------------------------------------------


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: parity_subsamples(1.0, 1e-6, beta=1.5), "beta"),
        (lambda: parity_subsamples(1.0, 1e-6, beta=1.0), "beta"),
        (lambda: points_sample_size(1.5, 1.0, 1e-6), "alpha"),
        (lambda: points_sample_size(0.1, 1.0, 1e-6, beta=2.0), "beta"),
        (lambda: exponential_sample_size(8, 1.5, 1.0), "alpha"),
        (lambda: exponential_sample_size(8, 0.1, 1.0, beta=1.5), "beta"),
    ],
)
def test_multi_probabilities_are_at_most_one(call, name):
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert info.value.parameter == name


def test_multi_alpha_one_is_accepted():
    assert points_sample_size(1.0, 1.0, 1e-6) >= 1
    assert exponential_sample_size(8, 1.0, 1.0) >= 1


# -- StablePredictor's subset size from epsilon0 ---------------------------------------------------


def test_stable_predictor_largest_subset_for_epsilon0():
    # gamma = m/n + (1 - m/n) tanh(e0/2) <= 0.2 with n = 100, e0 = 0.1: the largest m is
    # floor(n (gamma - t) / (1 - t)) = floor(15.79...) = 15 (t = tanh(0.05)).
    n, gamma, e0 = 100, 0.2, 0.1
    t = math.tanh(e0 / 2)
    m = math.floor(n * (gamma - t) / (1 - t))
    assert m == 15
    X = np.linspace(0.0, 1.0, n)
    y = (X > 0.4).astype(int)
    clf = StablePredictor(Thresholds(), gamma, epsilon0=e0, rng=0).fit(X, y)
    assert clf.subsample_size_ == m
    assert clf.epsilon0_ == e0
    assert clf.gamma_ <= gamma
    assert clf.gamma_ == pytest.approx(m / n + (1 - m / n) * t, rel=1e-12)
