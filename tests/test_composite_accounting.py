"""The composites' accounting under issue 18 ("the seeds' composites use it"): query-release
sessions compose their sparse-vector rounds by the tightest valid bound (Kairouz-Oh-Viswanath
optimal composition for adaptively chosen pure-DP rounds), and the learners built on disjoint
parts (BoostedERM, PrivateTuning) or on one subsample (SubsampledERM) charge exactly what they
report.

Reference values are derived here, independently of privlearn's helpers, with mpmath:

* the exact privacy profile of ``k`` adaptively composed ``eps0``-DP mechanisms is that of
  ``k``-fold binary randomized response (Kairouz, Oh and Viswanath, ICML 2015, Theorem 3.3):
  ``delta(eps) = sum_j P_j max(0, 1 - e^{eps - L_j})`` with ``L_j = (k - 2j) eps0`` and
  ``P_j = C(k, j) e^{(k - j) eps0} / (1 + e^{eps0})^k``;
* advanced composition (Dwork, Rothblum and Vadhan 2010; Dwork and Roth, Theorem 3.20):
  ``sqrt(2k ln(1/delta')) eps0 + k eps0 (e^{eps0} - 1)``.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

import privlearn.query_release as Q
from privlearn.accounting import Accountant, Budget
from privlearn.errors import InvalidParameterError
from privlearn.hypotheses import Thresholds
from privlearn.query_release import _accounting as acc
from privlearn.query_release._accounting import theory_cutoff

mpmath.mp.dps = 60


def rr_delta(eps0: float, k: int, eps: float) -> mpmath.mpf:
    """Exact hockey-stick divergence at ``eps`` of k-fold randomized response with ``eps0``."""
    e0 = mpmath.mpf(eps0)
    norm = (1 + mpmath.e**e0) ** k
    total = mpmath.mpf(0)
    for j in range(k + 1):
        loss = (k - 2 * j) * e0
        if loss <= eps:
            break
        p = mpmath.binomial(k, j) * mpmath.e ** ((k - j) * e0) / norm
        total += p * (1 - mpmath.e ** (mpmath.mpf(eps) - loss))
    return total


def advanced_epsilon(eps0: float, k: int, slack: float) -> mpmath.mpf:
    e0 = mpmath.mpf(eps0)
    return mpmath.sqrt(2 * k * mpmath.log(1 / mpmath.mpf(slack))) * e0 + k * e0 * mpmath.expm1(e0)


def kov_inverse(total: float, k: int, slack: float) -> mpmath.mpf:
    """The largest eps0 with rr_delta(eps0, k, total) <= slack (mpmath bisection)."""
    lo, hi = mpmath.mpf(total) / k, mpmath.mpf(total)
    for _ in range(80):
        mid = (lo + hi) / 2
        if rr_delta(float(mid), k, total) <= slack:
            lo = mid
        else:
            hi = mid
    return lo


# --------------------------------------------------------------------------------------------
# The reference itself: golden values and power
# --------------------------------------------------------------------------------------------


def test_reference_matches_kov_closed_form():
    # KOV Theorem 3.3: at eps = (k - 2i) eps0 the profile is delta_i.
    eps0, k = 0.3, 9
    for i in range(1, 4):
        delta_i = (
            sum(
                mpmath.binomial(k, ell)
                * (mpmath.e ** ((k - ell) * eps0) - mpmath.e ** ((k - 2 * i + ell) * eps0))
                for ell in range(i)
            )
            / (1 + mpmath.e**eps0) ** k
        )
        assert rr_delta(eps0, k, (k - 2 * i) * eps0) == pytest.approx(delta_i, rel=1e-30)
    assert rr_delta(eps0, k, k * mpmath.mpf(eps0)) == 0


# --------------------------------------------------------------------------------------------
# The sparse vector's rounds
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "lam, cutoff, m, slack",
    [
        (44.0, 21.6, 800, 5e-7),
        (300.0, 21.6, 800, 1e-9),
        (10.0, 40.0, 10**4, 1e-6),
        (8.0, 5, 6, 0.1),
    ],
)
def test_svt_guarantee_is_kov_exactly_rounded_up(lam, cutoff, m, slack):
    g = Q.svt_guarantee(lam, cutoff, m, 1e4, delta_slack=slack)
    R, e0 = g.rounds, g.round_epsilon
    assert R == min(math.floor(cutoff) + 1, m) and e0 == pytest.approx(2 / lam, rel=1e-15)
    assert g.composition == "optimal" and g.composition_delta == slack
    eps = g.budget.epsilon
    assert rr_delta(e0, R, eps) <= slack  # sound: the rounds are (eps, slack)-DP
    assert rr_delta(e0, R, eps * (1 - 1e-9)) > slack  # tight: nothing smaller holds for all
    assert eps < R * e0 and eps <= advanced_epsilon(e0, R, slack)
    old = Q.svt_guarantee(lam, cutoff, m, 1e4, delta_slack=slack, composition="advanced")
    assert old.budget.epsilon >= eps and old.composition in ("basic", "advanced")
    # power: the exact profile refuses a claim 1% below KOV's
    assert rr_delta(e0, R, 0.99 * eps) > slack


def test_without_slack_the_rounds_compose_basically():
    g = Q.svt_guarantee(44.0, 21.6, 800, 1e4)
    assert g.composition == "basic" and g.composition_delta == 0.0
    assert g.budget.epsilon >= 22 * 2 / 44.0 and g.budget.epsilon == pytest.approx(1.0, rel=1e-14)


@pytest.mark.parametrize(
    "total, rounds, slack", [(1.0, 22, 5e-7), (0.12, 22, 1e-8), (1.0, 172, 5e-7), (1.0, 6, 0.1)]
)
def test_round_epsilon_is_the_kov_inverse(total, rounds, slack):
    e0 = acc.round_epsilon(total, rounds, slack)
    exact = kov_inverse(total, rounds, slack)
    assert e0 <= exact and e0 == pytest.approx(float(exact), rel=1e-10)
    assert rr_delta(e0, rounds, total) <= slack
    old = acc.round_epsilon(total, rounds, slack, "advanced")
    assert e0 >= old >= total / rounds * (1 - 1e-15)  # more budget per round at the same total
    assert advanced_epsilon(old, rounds, slack) <= total * (1 + 1e-12) or old <= total / rounds


def test_round_epsilon_golden_gain_at_the_experiment_settings():
    # m = 800 queries at alpha = beta = 0.1: T = 21.6, 22 rounds, (1, 1e-6) with slack 5e-7.
    rounds = acc._svt_rounds(theory_cutoff(800, 0.1, 0.1), 800)
    assert rounds == 22
    new = acc.round_epsilon(1.0, 22, 5e-7)
    old = acc.round_epsilon(1.0, 22, 5e-7, "advanced")
    assert old == pytest.approx(1 / 22)  # advanced composition does not beat basic here
    assert new == pytest.approx(float(kov_inverse(1.0, 22, 5e-7)), rel=1e-10)
    assert new / old > 1.15


def test_round_epsilon_bad_input():
    for kwargs, name in [
        (dict(epsilon=0.0), "epsilon"),
        (dict(epsilon=math.inf), "epsilon"),
        (dict(rounds=0), "rounds"),
        (dict(rounds=2.5), "rounds"),
        (dict(delta_slack=0.0), "delta_slack"),
        (dict(delta_slack=1.0), "delta_slack"),
        (dict(composition="kov"), "composition"),
    ]:
        args = dict(epsilon=1.0, rounds=5, delta_slack=1e-6, composition="optimal")
        args.update(kwargs)
        with pytest.raises(InvalidParameterError) as err:
            acc.round_epsilon(**args)
        assert err.value.parameter == name
    with pytest.raises(InvalidParameterError, match="composition"):
        Q.svt_guarantee(10.0, 3, 10, 50.0, delta_slack=1e-6, composition="pld")


# --------------------------------------------------------------------------------------------
# The sessions: before / after, ledger, bad input
# --------------------------------------------------------------------------------------------

MS = (10, 100, 400, 800)


@pytest.mark.parametrize("m", MS)
def test_subsample_svt_gains_at_the_experiment_settings(m):
    cutoff = theory_cutoff(m, 0.1, 0.1)
    new = Q.SubsampleSVT(Thresholds(), epsilon=1.0, delta=1e-6, m=m, cutoff=cutoff)
    old = Q.SubsampleSVT(
        Thresholds(), epsilon=1.0, delta=1e-6, m=m, cutoff=cutoff, composition="advanced"
    )
    assert new.privacy <= Budget(1.0, 1e-6) and old.privacy <= Budget(1.0, 1e-6)
    assert new.svt.round_epsilon >= old.svt.round_epsilon  # per-round budget
    assert new.noise_scale <= old.noise_scale
    assert new.threshold + 8 * new.noise_scale <= old.threshold + 8 * old.noise_scale
    assert new.k <= old.k
    if m == 800:  # 22 rounds: KOV allows 2/38.05 per round instead of 2/44
        assert new.svt.composition == "optimal" and new.noise_scale < 0.87 * old.noise_scale
        assert new.k < 0.9 * old.k
        R = new.svt.rounds
        assert rr_delta(new.svt.round_epsilon, R, new.svt.budget.epsilon) <= (
            new.svt.composition_delta
        )


@pytest.mark.parametrize("m", (100, 800))
def test_agnostic_release_gains_at_the_experiment_settings(m):
    cutoff = theory_cutoff(m, 0.1, 0.1)
    n = 30_000_000
    new = Q.AgnosticQueryRelease(Thresholds(), epsilon=1.0, delta=1e-6, m=m, cutoff=cutoff)
    old = Q.AgnosticQueryRelease(
        Thresholds(), epsilon=1.0, delta=1e-6, m=m, cutoff=cutoff, composition="advanced"
    )
    pn, po = new.plan(n), old.plan(n)
    assert pn.privacy <= Budget(1.0, 1e-6) and po.privacy <= Budget(1.0, 1e-6)
    assert pn.guarantee.svt.round_epsilon >= po.guarantee.svt.round_epsilon
    assert pn.threshold + 8 * pn.noise_scale <= po.threshold + 8 * po.noise_scale
    assert pn.k <= po.k
    if m == 800:
        assert pn.k < 0.9 * po.k


def _small_sample(n=3000, seed=5):
    g = np.random.default_rng(seed)
    X = g.random(n)
    return X, X >= 0.5


@pytest.mark.parametrize("composition", ["optimal", "advanced"])
def test_sessions_charge_what_they_report(composition):
    X, y = _small_sample()
    Xb, yb = _small_sample(200_000, 6)
    cases = [
        (
            Q.SubsampleSVT(
                Thresholds(), epsilon=1.0, delta=0.2, m=6, k=150, cutoff=5, composition=composition
            ),
            X,
            y,
        ),
        (
            Q.AgnosticQueryRelease(
                Thresholds(), epsilon=1.0, delta=1e-2, m=6, k=500, cutoff=1, composition=composition
            ),
            Xb,
            yb,
        ),
        (
            Q.UniversalQueryRelease(
                Thresholds(),
                epsilon=1.0,
                delta=1e-2,
                m=6,
                m_o=3,
                k=500,
                cutoff=1,
                composition=composition,
            ),
            Xb,
            yb,
        ),
    ]
    for algo, Xs, ys in cases:
        accountant = Accountant(Budget(5.0, 0.5))
        session = algo.start(Xs, ys, accountant=accountant, rng=3)
        session.answer_many(np.linspace(0, 1, 6))
        (entry,) = accountant.ledger
        assert entry.budget == session.privacy == algo.privacy_guarantee(Xs.shape[0])
        assert session.privacy <= Budget(algo.epsilon, algo.delta)


def test_subsample_svt_many_rounds_with_a_large_delta_uses_kov():
    # 6 rounds at (1, 0.2): KOV at slack 0.025 allows lambda = 5.36 instead of 12 (basic).
    new = Q.SubsampleSVT(Thresholds(), epsilon=1.0, delta=0.2, m=6, cutoff=5)
    old = Q.SubsampleSVT(
        Thresholds(), epsilon=1.0, delta=0.2, m=6, cutoff=5, composition="advanced"
    )
    assert new.svt.composition == "optimal" and old.svt.composition == "basic"
    assert new.noise_scale < 0.5 * old.noise_scale and new.k < 0.6 * old.k
    g = new.svt
    assert rr_delta(g.round_epsilon, 6, g.budget.epsilon) <= g.composition_delta
    assert g.composition_delta + g.stable_release_delta <= 0.2


@pytest.mark.parametrize(
    "make",
    [
        lambda c: Q.SubsampleSVT(
            Thresholds(), epsilon=1.0, delta=0.2, m=6, cutoff=5, composition=c
        ),
        lambda c: Q.AgnosticQueryRelease(
            Thresholds(), epsilon=1.0, delta=1e-2, m=6, cutoff=1, composition=c
        ),
        lambda c: Q.UniversalQueryRelease(
            Thresholds(), epsilon=1.0, delta=1e-2, m=6, m_o=3, cutoff=1, composition=c
        ),
        lambda c: Q.SubsampleSVT.from_theory(
            Thresholds(), epsilon=1.0, delta=1e-6, alpha=0.1, beta=0.1, m=10, composition=c
        ),
    ],
)
@pytest.mark.parametrize("bad", ["kov", "", None, 1, "basic", "pld"])
def test_bad_composition_is_refused_before_anything(make, bad):
    with pytest.raises(InvalidParameterError) as err:
        make(bad)
    assert err.value.parameter == "composition"


# --------------------------------------------------------------------------------------------
# The learners on disjoint parts or one subsample: the charge is the reported guarantee
# --------------------------------------------------------------------------------------------


def _erm_data(n=400, seed=7):
    g = np.random.default_rng(seed)
    X = g.normal(size=(n, 2))
    return X, (X[:, 0] > 0).astype(int)


def test_learners_charge_what_they_report():
    from privlearn.learners import BoostedERM, ExponentialMechanismERM, Grid, SubsampledERM

    X, y = _erm_data()
    base = ExponentialMechanismERM("zero_one", Grid(1.0, 2, num=5), 0.5)
    for make in (
        lambda a: SubsampledERM(base, 40, accountant=a, rng=1),
        lambda a: SubsampledERM(base, 40, accounting="lemma34", accountant=a, rng=1),
        lambda a: BoostedERM(base, 0.3, accountant=a, rng=1),
        lambda a: BoostedERM(base, 0.3, selection_epsilon=0.25, accountant=a, rng=1),
    ):
        accountant = Accountant(Budget(10.0, 0.5))
        est = make(accountant).fit(X, y)
        (entry,) = accountant.ledger
        assert entry.budget == est.privacy_ == est.privacy_guarantee(X.shape[0])
    # parallel composition over disjoint parts is exact: the total is the largest part's
    boosted = BoostedERM(base, 0.3, selection_epsilon=0.25).fit(X, y)
    assert boosted.privacy_ == Budget(0.5)
    sub = SubsampledERM(base, 40).fit(X, y)
    assert sub.privacy_.epsilon == pytest.approx(math.log1p(0.1 * math.expm1(0.5)), rel=1e-12)
    assert sub.privacy_.epsilon >= math.log1p(0.1 * math.expm1(0.5))


def test_private_tuning_charges_what_it_reports():
    from privlearn.learners import PrivateTuning
    from privlearn.learners.output_perturbation import OutputPerturbationRegressor

    g = np.random.default_rng(11)
    X = g.uniform(-1, 1, size=(300, 2)) / math.sqrt(2)
    y = np.clip(X @ np.array([0.5, -0.3]) + 0.05 * g.normal(size=300), -1, 1)
    accountant = Accountant(Budget(5.0))
    tuner = PrivateTuning(
        OutputPerturbationRegressor(epsilon=1.0, label_bound=1.0, data_norm=1.0),
        {"alpha": [0.01, 0.1]},
        0.7,
        accountant=accountant,
        rng=2,
    ).fit(X, y)
    (entry,) = accountant.ledger
    assert entry.budget == tuner.privacy_ == tuner.privacy_guarantee(300) == Budget(0.7)


def test_experiment_answerable_queries_gain():
    # query-release's table: with the ensemble the advanced accounting needs for m = 800
    # queries, KOV optimal composition of the rounds answers 1069 queries (advanced: 806).
    from privlearn.experiments.query_release import _default_k, answerable_queries

    k = _default_k("SubsampleSVT", 800, "advanced", 1)
    assert k == 4244
    old = answerable_queries("SubsampleSVT", k, "advanced", 1)
    new = answerable_queries("SubsampleSVT", k, "optimal", 1)
    assert 800 <= old < 810 and new == 1069
    assert (
        _default_k("SubsampleSVT", new, "optimal", 1)
        <= k
        < _default_k("SubsampleSVT", new + 1, "optimal", 1)
    )
