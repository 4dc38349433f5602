"""Details of privlearn.prediction that the main tests do not pin (issue 16, mutation survivors).

* Theorem 2's theory mode refuses a small sample with the theory's sample size;
* Theorem 2's setting states the documented accuracy (``6.5 alpha``, failure ``2 alpha``);
* the practical mode's inner epsilon is the largest one Corollary 1 certifies, against the
  closed-form solution of the certificate's formula;
* the sample-size search stops at its documented relative precision;
* ``epsilon_net_size`` refuses ``delta >= 1``.
"""

from __future__ import annotations

import math

import pytest

from privlearn import InvalidParameterError
from privlearn.datasets import make_concept_sample
from privlearn.hypotheses import Thresholds
from privlearn.prediction import (
    PrivatePredictor,
    corollary1_epsilon,
    epsilon_net_size,
    theorem2_setting,
)
from privlearn.prediction._theory import _smallest_n


@pytest.fixture(scope="module")
def theorem2_at_03():
    return theorem2_setting(Thresholds(), 0.3, 1.0)


def _noisy(n, seed):
    s = make_concept_sample(Thresholds(), n, noise=0.1, rng=seed)
    return s.X, s.y


def test_theorem2_theory_mode_refuses_a_small_sample(theorem2_at_03):
    X, y = _noisy(500, 1)
    clf = PrivatePredictor(Thresholds(), 1.0, method="theorem2", alpha=0.3)
    with pytest.raises(InvalidParameterError) as e:
        clf.fit(X, y)
    assert e.value.parameter == "X"
    msg = str(e.value)
    assert msg.startswith("X: the theory mode of theorem2")
    assert f"needs n >= {theorem2_at_03.n} examples, got 500" in msg


def test_theorem2_setting_states_the_documented_accuracy(theorem2_at_03):
    # theorem2_setting's docstring: with probability >= 1 - 2 alpha, L_D <= opt + 6.5 alpha.
    s = theorem2_at_03
    assert s.method == "theorem2" and s.alpha == 0.3
    assert s.excess_error == pytest.approx(6.5 * 0.3, rel=1e-15)
    assert s.failure == pytest.approx(2 * 0.3, rel=1e-15)


def _largest_inner(n, m, epsilon, p):
    """Solve corollary1_epsilon's formula for the inner epsilon ``c`` when the middle point
    ``(a, a~) = (e^c, 1)/(1 + e^c)`` binds: ``(p + f((1-q) r/(1+r) + q)) / (p + f(1-q)/(1+r))
    = e^epsilon`` with ``f = 1 - 2p``, ``q = m/n``, ``r = e^c``, linear in ``r``."""
    q, f, t = m / n, 1 - 2 * p, math.exp(epsilon)
    # The other two points stay below e^epsilon here.
    assert (p + f * q) / p < t and (p + f) / (p + f * (1 - q)) < t
    r = (t * (p + f * (1 - q)) - p - f * q) / (p + f - t * p)
    return math.log(r)


@pytest.mark.parametrize("n, m, p", [(200, 20, 0.1), (1000, 50, 0.05)])
def test_practical_inner_epsilon_is_the_largest_certified(n, m, p):
    X, y = _noisy(n, 2)
    clf = PrivatePredictor(Thresholds(), 1.0, flip_probability=p, subsample_size=m, rng=0).fit(X, y)
    want = _largest_inner(n, m, 1.0, p)
    assert clf.inner_epsilon_ == pytest.approx(want, rel=1e-7)
    assert clf.inner_epsilon_ <= want * (1 + 1e-12)
    assert corollary1_epsilon(n, m, clf.inner_epsilon_, p) <= 1.0


def test_sample_size_search_stops_at_relative_precision():
    # _smallest_n: the smallest feasible n "to a relative 1e-6": the bisection stops once the
    # bracket is at most n / 10^6 wide (each feasibility test of a theorem's conditions is
    # costly), i.e. about log2(10^9 / 2000) ~ 19 halvings here instead of 30 down to width 1.
    target = 2 * 10**9 - 12345
    calls = []

    def feasible(k):
        calls.append(k)
        return k >= target

    n = _smallest_n(feasible, 10**9)
    assert n >= target and n <= target * (1 + 1e-6)
    assert len(calls) <= 24  # start, one doubling, ~19 halvings


def test_epsilon_net_size_refuses_delta_at_least_one():
    for bad in (1.0, 1.5):
        with pytest.raises(InvalidParameterError) as e:
            epsilon_net_size(Thresholds(), 0.1, bad)
        assert e.value.parameter == "delta" and str(e.value).startswith("delta:")
    assert epsilon_net_size(Thresholds(), 0.1, 0.999) >= 1


@pytest.mark.parametrize("k", [3, 7, 10, 17, 40, 59])
def test_randomized_response_certificate_never_exceeds_the_requested_epsilon(k):
    """Randomized-response aggregation flips with p = 1/(k(e^eps - 1) + 2) and certifies
    ln(1 + (1-2p)/(kp)) (Dwork and Feldman 2018; the docstring): that certificate is at most the
    requested epsilon exactly (the float formula used to certify an ulp above it in about half
    of the cases) and within a relative 1e-9 of it, with the flip within 1e-9 of the formula."""
    import mpmath
    import numpy as np
    from sklearn.dummy import DummyClassifier

    from privlearn.prediction import SubsampleAggregatePredictor

    X = np.zeros((60, 1))
    y = np.arange(60) % 2
    for eps in (0.05, 0.1, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0):
        model = SubsampleAggregatePredictor(
            DummyClassifier(), k, eps, aggregation="randomized_response", rng=0
        ).fit(X, y)
        p = model.flip_probability_
        assert p == pytest.approx(1.0 / (k * math.expm1(eps) + 2), rel=1e-9)
        assert model.epsilon_ <= eps
        assert model.epsilon_ == pytest.approx(eps, rel=1e-9)
        with mpmath.workdps(50):  # flip_probability_ is the sampled flip rounded to a float
            certified = mpmath.log(1 + (1 - 2 * mpmath.mpf(p)) / (k * mpmath.mpf(p)))
        assert model.epsilon_ == pytest.approx(float(certified), rel=1e-14)
