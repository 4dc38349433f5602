"""Argument checks, error messages, defaults and tie-breaks pinned by mutation testing (issue 16).

* ``require_certified`` names the class it was given when handed a class, not an instance;
* ``ParityMultiLearner.privacy_guarantee`` blames ``dim`` for a bad dimension;
* ``PrivatePredictor``'s practical ``theorem2`` mode uses half of Corollary 1's largest inner
  epsilon (the direct certificate runs the selection at ``2 epsilon1``);
* a fitted ``PrivatePredictor`` starts with ``privacy_spent_ == Budget(0)``;
* ``StablePredictor`` refuses ``subsample_size == gamma * n`` (it must be below);
* ``theorem2_epsilon`` with a one-example subset uses the direct route (no net route, no
  division by ``m - 1 = 0``), and its net route takes the smallest disagreement budget when
  the search's float values tie;
* ``svt_guarantee``'s vacuous-delta error names the sparse-vector stage.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privlearn import InvalidParameterError
from privlearn._certified import require_certified
from privlearn.accounting import Budget
from privlearn.datasets import make_concept_sample
from privlearn.hypotheses import Thresholds
from privlearn.learners import ExponentialMechanismERM
from privlearn.multi import ParityMultiLearner
from privlearn.prediction import (
    PrivatePredictor,
    StablePredictor,
    corollary1_epsilon,
    theorem2_epsilon,
)
from privlearn.query_release import svt_guarantee


def _noisy(n, seed):
    s = make_concept_sample(Thresholds(), n, noise=0.1, rng=seed)
    return s.X, s.y


def test_require_certified_names_a_class_passed_instead_of_an_instance():
    with pytest.raises(InvalidParameterError) as e:
        require_certified(ExponentialMechanismERM, "base")
    assert e.value.parameter == "base"
    msg = str(e.value)
    assert msg.startswith("base:")
    assert "got ExponentialMechanismERM, which certifies none" in msg
    # an instance of an uncertified type is named by its type
    with pytest.raises(InvalidParameterError) as e:
        require_certified(object(), "estimator")
    assert e.value.parameter == "estimator"
    assert "got object, which certifies none" in str(e.value)


def test_parity_multi_learner_guarantee_blames_dim():
    for bad in (0, -3, 2.0):
        learner = ParityMultiLearner(bad, 1.0, 1e-6)
        with pytest.raises(InvalidParameterError) as e:
            learner.privacy_guarantee(100)
        assert e.value.parameter == "dim"
        assert str(e.value).startswith("dim:")


def _largest_inner(n, m, epsilon, p):
    """Corollary 1's certificate (docstring of ``corollary1_epsilon``) solved for the inner
    epsilon ``c`` when the middle point ``(a, a~) = (e^c, 1)/(1 + e^c)`` binds:
    ``(p + f((1-q) r/(1+r) + q)) / (p + f(1-q)/(1+r)) = e^epsilon`` with ``f = 1 - 2p``,
    ``q = m/n``, ``r = e^c``, linear in ``r``."""
    q, f, t = m / n, 1 - 2 * p, math.exp(epsilon)
    assert (p + f * q) / p < t and (p + f) / (p + f * (1 - q)) < t
    r = (t * (p + f * (1 - q)) - p - f * q) / (p + f - t * p)
    return math.log(r)


def test_theorem2_practical_inner_epsilon_is_half_the_corollary1_one():
    # Class docstring: inner_epsilon is "the largest the certificate allows (nearly epsilon
    # itself for Corollary 1, half of it for Theorem 2)": the direct certificate of Theorem 2
    # is Corollary 1's with inner epsilon 2 epsilon1.
    n, m, p = 1000, 50, 0.05
    X, y = _noisy(n, 3)
    clf = PrivatePredictor(
        Thresholds(), 1.0, method="theorem2", flip_probability=p, subsample_size=m, rng=0
    ).fit(X, y)
    want = _largest_inner(n, m, 1.0, p) / 2
    assert clf.inner_epsilon_ == pytest.approx(want, rel=1e-7)
    assert clf.inner_epsilon_ <= want * (1 + 1e-12)
    assert corollary1_epsilon(n, m, 2 * clf.inner_epsilon_, p) <= 1.0
    # n_blocks defaults to ceil(4 ln(1/p) / epsilon1)
    assert clf.n_blocks_ == math.ceil(4 * math.log(1 / p) / clf.inner_epsilon_)


def test_private_predictor_starts_with_nothing_spent():
    X, y = _noisy(300, 4)
    clf = PrivatePredictor(Thresholds(), 1.0, rng=0).fit(X, y)
    assert clf.queries_answered_ == 0
    assert isinstance(clf.privacy_spent_, Budget)
    assert clf.privacy_spent_ == Budget(0.0)
    assert clf.privacy_spent_.epsilon == 0.0 and clf.privacy_spent_.delta == 0.0
    clf.predict(np.zeros(0))  # no query: nothing spent
    assert clf.privacy_spent_ == Budget(0.0)
    clf.predict([0.5, 0.7])
    assert clf.queries_answered_ == 2
    clf.fit(X, y)  # a new fit answers nothing yet
    assert clf.queries_answered_ == 0 and clf.privacy_spent_ == Budget(0.0)


def test_stable_predictor_refuses_a_subset_of_exactly_gamma_n():
    # The docstring: subsample_size "must be below gamma n"; 0.25 * 40 = 10 exactly.
    X = np.arange(40) / 40
    y = (X > 0.5).astype(int)
    with pytest.raises(InvalidParameterError) as e:
        StablePredictor(Thresholds(), 0.25, subsample_size=10).fit(X, y)
    assert e.value.parameter == "subsample_size"
    assert str(e.value).startswith("subsample_size: must be at least 1 and below gamma * n = 10")
    clf = StablePredictor(Thresholds(), 0.25, subsample_size=9).fit(X, y)
    assert clf.subsample_size_ == 9 and clf.gamma_ <= 0.25


def test_theorem2_epsilon_with_a_one_example_subset_is_the_direct_route():
    # The net route needs (m - 1)(t - 1) >= 8 (n - 1): impossible with m = 1.
    cert = theorem2_epsilon(Thresholds(), 10, 1, 0.5, 0.25)
    assert cert.route == "direct"
    assert cert.net == math.inf and cert.disagreement is None and cert.delta_r == 1.0
    assert cert.epsilon == cert.direct == corollary1_epsilon(10, 1, 1.0, 0.25)


def test_theorem2_epsilon_net_route_takes_the_smallest_valid_budget_on_ties():
    # With epsilon1 = 50 the net route's C0 = 4 e^{2 epsilon1 t} grows with t (the delta_R term
    # is at most (1-2p) q / p = 1 against e^1900), so the best t is the smallest valid one,
    # (m - 1)(t - 1) >= 8 (n - 1): t = 1 + ceil(8 * 99 / 49) = 18, where
    # eps = ln(1 + q (4 e^{1800} - 1)) + 100 = ln(2) + 1900 (to far below a float ulp).
    n, m, e1, p = 100, 50, 50.0, 0.25
    t = 1 + math.ceil(8 * (n - 1) / (m - 1))
    assert t == 18
    cert = theorem2_epsilon(Thresholds(), n, m, e1, p)
    assert cert.disagreement == t
    want = math.log(m / n) + math.log(4) + 2 * e1 * t + 2 * e1
    assert cert.net == pytest.approx(want, rel=1e-12)
    assert cert.net >= want
    assert cert.route == "direct" and cert.epsilon == cert.direct


def test_svt_guarantee_vacuous_delta_names_the_stage():
    # threshold 0: each dist-0 query is released with probability p(0) = (4 - 1)/6 = 1/2, so
    # two queries give delta_stab = 1.
    with pytest.raises(InvalidParameterError) as e:
        svt_guarantee(1.0, 0.0, 2, 0.0)
    assert e.value.parameter == "threshold"
    msg = str(e.value)
    assert msg.startswith("threshold: the delta of the sparse-vector stage is")
    assert msg.endswith(">= 1, a vacuous guarantee")
