"""Tests of privlearn.query_release (seed 004: Nandi and Bassily, ALT 2020).

Parameters against the notes' golden values and identities; the exact accounting chain
(ERRATA C1-C7); sessions (state, hard cap on unstable answers, one charge, reproducibility, bad
input); the relabelled sample is realizable and its labeling follows the exponential mechanism;
utility in the stable regime and on the twin-minima distribution; privacy audits of session
answers, the semi-private learner and the distance-to-instability test on neighbouring inputs,
each with a power check on a deliberately broken variant. Statistical tests use fixed seeds and a
false-positive rate of 1e-6.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

import privlearn.query_release as Q
from privlearn import _core
from privlearn.accounting import (
    Accountant,
    Budget,
    amplify_by_subsampling,
    compose_basic,
    group_privacy,
)
from privlearn.audit import audit
from privlearn.errors import BudgetExceededError, HaltedError, InvalidParameterError
from privlearn.hypotheses import FiniteClass, Halfspaces, Intervals, Points, Thresholds
from privlearn.query_release import _session
from privlearn.query_release._learners import ClassLearner, Voter
from privlearn.random import Generator
from stats_helpers import ALPHA, assert_power_check, chi_square_pvalue, softmax

# --------------------------------------------------------------------------------------------
# Parameters: golden values (notes §4.3, §4.4) and identities (§6.1)
# --------------------------------------------------------------------------------------------

GOLDEN = [
    # (eps, delta, alpha, beta, m), {name: value} with the notes' significant digits
    (
        (1.0, 1e-6, 0.1, 0.1, 1000),
        dict(
            cutoff=25.6413,
            epsilon_prime=1.0,
            epsilon_star=1.0,
            epsilon_hat=0.0689244,
            delta_hat=1.26779e-8,
            noise_scale=1805.65,
            k=2.58048e6,
            threshold=93114.9,
            epsilon_stab=2.769e-4,
        ),
    ),
    (
        (0.5, 1e-5, 0.2, 0.1, 100),
        dict(
            cutoff=7.58961,
            epsilon_prime=0.894427,
            epsilon_star=0.894427,
            epsilon_hat=0.0732772,
            delta_hat=1.67475e-7,
            noise_scale=858.52,
            k=975072,
            threshold=35887.4,
        ),
    ),
]


def _close(got, want):
    """Agreement to the golden value's printed precision (half a unit in its last digit)."""
    digits = len(f"{want:.6g}".replace(".", "").replace("-", "").split("e")[0].lstrip("0"))
    return abs(got - want) <= 0.5 * 10 ** (math.floor(math.log10(abs(want))) - digits + 1) * 1.0001


@pytest.mark.parametrize("args, golden", GOLDEN)
def test_golden_parameters(args, golden):
    p = Q.theory_parameters(*args)
    for name, want in golden.items():
        got = p.subsample_svt.k_real if name == "k" else getattr(p, name)
        assert _close(got, want), f"{name}: {got} vs {want}"
    assert p.k == math.ceil(p.subsample_svt.k_real)
    # A_SubSamp's internal (eps, delta) are (eps_hat, delta_hat)
    inner = Q.subsample_svt_parameters(p.epsilon_hat, p.delta_hat, p.beta, p.m, p.cutoff)
    assert inner == p.subsample_svt


def test_parameters_are_not_monotone_in_m():
    # notes §4.4: (1, 1e-6, 0.1, 0.1); lambda and k fall, then rise
    sweep = {
        10: (3572.9, 3.61e6),
        100: (2437.7, 2.94e6),
        1000: (1805.7, 2.58e6),
        10**4: (4669.2, 7.62e6),
        10**6: (40734.7, 8.40e7),
    }
    lams = []
    for m, (lam, k) in sweep.items():
        p = Q.theory_parameters(1.0, 1e-6, 0.1, 0.1, m)
        assert _close(p.noise_scale, lam) and _close(p.k, k), (m, p.noise_scale, p.k)
        lams.append(p.noise_scale)
    assert lams[0] > lams[2] < lams[4]


@settings(max_examples=60, deadline=None)
@given(
    eps=st.floats(0.01, 1.0),
    delta=st.floats(1e-12, 0.5),
    alpha=st.floats(0.001, 0.99),
    beta=st.floats(0.001, 0.99),
    m=st.integers(1, 10**7),
)
def test_group_privacy_identities(eps, delta, alpha, beta, m):
    p = Q.theory_parameters(eps, delta, alpha, beta, m)
    r = math.log(2 / delta)
    assert p.epsilon_hat * r == pytest.approx(min(1.0, p.epsilon_prime), rel=1e-12)
    assert r * math.exp(min(1.0, p.epsilon_prime)) * p.delta_hat == pytest.approx(
        delta / 2, rel=1e-12
    )
    # epsilon enters only through n'
    q = Q.theory_parameters(eps / 2, delta, alpha, beta, m)
    for name in ("cutoff", "epsilon_hat", "delta_hat", "noise_scale", "k", "threshold"):
        assert getattr(p, name) == getattr(q, name)


def test_cutoff_and_epsilon_hat_are_monotone_in_m():
    ps = [Q.theory_parameters(0.5, 1e-6, 0.05, 0.1, m) for m in range(1, 20000, 97)]
    assert all(a.cutoff <= b.cutoff and a.epsilon_hat <= b.epsilon_hat for a, b in zip(ps, ps[1:]))
    capped = [p.epsilon_hat for p in ps if 0.05 * math.sqrt(p.m * 0.05) >= 1]
    assert capped and max(capped) == min(capped)


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-10])
@pytest.mark.parametrize("alpha, beta, m", [(0.1, 0.1, 1000), (0.2, 0.05, 50), (0.05, 0.1, 10**5)])
def test_theory_chain_is_within_the_budget(eps, delta, alpha, beta, m):
    algo = Q.AgnosticQueryRelease.from_theory(
        Thresholds(), epsilon=eps, delta=delta, alpha=alpha, beta=beta, m=m
    )
    n = math.ceil(56 * algo.k / eps) + 56
    plan = algo.plan(n)
    g = plan.guarantee
    assert plan.privacy <= Budget(eps, delta)
    # each link of the chain (ERRATA C5)
    assert g.resampled.epsilon <= 1.0
    assert g.relabelled.epsilon == 4.0
    assert g.relabelled.delta == pytest.approx(4 * math.e * g.resampled.delta, rel=1e-12)
    assert plan.privacy == amplify_by_subsampling(g.relabelled, plan.n_prime / n, n=n)
    grouped = group_privacy(g.svt.budget, g.multiplicity)
    assert g.resampled.epsilon == grouped.epsilon
    assert g.resampled.delta >= grouped.delta + g.resampling_tail
    # C2 at theory constants: about 0.42 eps_hat for the rounds, delta_stab about delta_hat / 3
    p = Q.theory_parameters(eps, delta, alpha, beta, m, n=n)
    assert g.svt.rounds == min(math.floor(p.cutoff) + 1, m)
    assert g.svt.budget.epsilon <= p.epsilon_hat
    assert g.svt.stable_release_delta <= p.delta_hat / 3 * (1 + 1e-4)  # + discretisation allowance


def test_theory_mode_refuses_epsilon_above_one_and_small_n():
    with pytest.raises(InvalidParameterError, match="epsilon"):
        Q.theory_parameters(1.5, 1e-6, 0.1, 0.1, 100)
    with pytest.raises(InvalidParameterError, match="n"):
        Q.theory_parameters(0.5, 1e-6, 0.1, 0.1, 100, n=50)
    algo = Q.AgnosticQueryRelease.from_theory(
        Thresholds(), epsilon=0.5, delta=1e-6, alpha=0.1, beta=0.1, m=100
    )
    with pytest.raises(InvalidParameterError, match="theory mode needs"):
        algo.plan(10**6)


def test_resampling_tail_is_the_exact_binomial_tail():
    for n in (1, 2, 10, 1000, 10**6):
        for r in range(0, 12):
            exact = stats.binom.sf(r, n, 1 / n)
            got = Q.resampling_tail(n, r)
            assert got >= exact * (1 - 1e-9) and got <= exact * (1 + 1e-9) + 1e-300, (
                n,
                r,
                got,
                exact,
            )


@pytest.mark.parametrize(
    "n_prime, delta", [(10, 0.12), (10, 0.3), (2, 0.3), (1000, 0.8), (10**6, 0.037)]
)
def test_chernoff_step_failures_are_repaired(n_prime, delta):
    # ERRATA C3: the paper's r = floor(ln(2/delta)) misses delta/2 here ...
    r_paper = math.floor(math.log(2 / delta))
    assert Q.resampling_tail(n_prime, r_paper) > delta / 2
    # ... so r0 is larger and eps_hat, delta_hat are recomputed from it
    r0 = Q.resampling_multiplicity(n_prime, delta / 2)
    assert r0 > r_paper and Q.resampling_tail(n_prime, r0) <= delta / 2
    n = math.ceil(56 * n_prime / 1.0)
    p = Q.theory_parameters(1.0, delta, 0.1, 0.1, 1000, n=n)
    assert p.n_prime == n_prime and p.resampling_multiplicity == r0
    assert p.epsilon_hat == pytest.approx(p.epsilon_star / r0)
    assert p.delta_hat == pytest.approx(delta / (2 * r0 * math.exp(p.epsilon_star)))


def test_stable_release_probability_is_the_laplace_difference_tail():
    for lam, w in [(1.0, 0.0), (2.0, 3.0), (10.0, 57.0), (1805.65, 93114.9)]:
        dens = lambda v: stats.laplace.pdf(v, scale=lam) * stats.laplace.sf(w + v, scale=2 * lam)  # noqa: B023
        exact = integrate.quad(dens, -60 * lam, 60 * lam, points=[0.0, -w], limit=400, epsabs=0)[0]
        got = Q.stable_release_probability(w, lam)
        assert got == pytest.approx(exact, rel=1e-7) and got >= exact * (1 - 1e-9)


def test_svt_guarantee_rounds_and_composition():
    g = Q.svt_guarantee(10.0, 4.7, 100, 200.0)
    assert g.rounds == 5 and g.composition == "basic"
    assert g.budget.epsilon == pytest.approx(5 * 2 / 10.0, rel=1e-15) and g.budget.epsilon >= 1.0
    assert g.budget.delta == g.stable_release_delta
    assert g.stable_release_delta == pytest.approx(
        100 * Q.stable_release_probability(200.0, 10.0), rel=1e-4
    )
    assert (
        Q.svt_guarantee(10.0, 4.7, 3, 200.0).rounds == 3
    )  # never more unstable answers than queries
    many = Q.svt_guarantee(1000.0, 5000, 10**6, 5e4, delta_slack=1e-6)
    assert many.composition == "optimal" and many.budget.epsilon < many.rounds * many.round_epsilon
    assert many.budget.delta == pytest.approx(1e-6 + many.stable_release_delta)
    old = Q.svt_guarantee(1000.0, 5000, 10**6, 5e4, delta_slack=1e-6, composition="advanced")
    assert old.composition == "advanced" and many.budget.epsilon < old.budget.epsilon
    assert old.budget.epsilon < old.rounds * old.round_epsilon


def test_practical_calibration_is_tight():
    algo = Q.SubsampleSVT(Thresholds(), epsilon=0.7, delta=1e-6, m=300, k=5000, cutoff=6.5)
    assert algo.privacy <= Budget(0.7, 1e-6)
    lam, w = algo.noise_scale, algo.threshold
    # 7 rounds: basic composition (no slack) leaves all of delta to the stable releases and
    # gives the smallest w + 8 lambda among the candidate slacks
    assert algo.svt.composition == "basic" and algo.svt.composition_delta == 0.0
    assert Q.svt_guarantee(lam * (1 - 1e-9), 6.5, 300, w).budget.epsilon > 0.7
    assert Q.svt_guarantee(lam, 6.5, 300, w * (1 - 1e-6)).budget.delta > 1e-6
    old = Q.SubsampleSVT(
        Thresholds(), epsilon=0.7, delta=1e-6, m=300, k=5000, cutoff=6.5, composition="advanced"
    )
    assert (old.noise_scale, old.threshold) == (lam, w)  # advanced does not beat basic here
    with pytest.raises(InvalidParameterError, match="noise_scale"):
        Q.SubsampleSVT(
            Thresholds(), epsilon=0.7, delta=1e-6, m=300, k=5000, cutoff=6.5, noise_scale=lam * 0.99
        )
    with pytest.raises(InvalidParameterError, match="threshold"):
        Q.SubsampleSVT(
            Thresholds(), epsilon=0.7, delta=1e-6, m=300, k=5000, cutoff=6.5, threshold=w * 0.99
        )
    with pytest.raises(InvalidParameterError, match="k: "):
        Q.SubsampleSVT(Thresholds(), epsilon=0.7, delta=1e-6, m=300, k=2 * int(w), cutoff=6.5)
    theory = Q.SubsampleSVT.from_theory(
        Thresholds(), epsilon=1.0, delta=1e-6, alpha=0.1, beta=0.1, m=1000
    )
    assert (
        theory.privacy <= Budget(1.0, 1e-6)
        and theory.k == Q.subsample_svt_parameters(1.0, 1e-6, 0.1, 1000, theory.cutoff).k
    )


def test_agnostic_practical_chain():
    algo = Q.AgnosticQueryRelease(Thresholds(), epsilon=0.8, delta=1e-6, m=100, k=6000, cutoff=3)
    plan = algo.plan(5_000_000)
    g = plan.guarantee
    assert plan.privacy <= Budget(0.8, 1e-6)
    assert plan.privacy.epsilon > 0.79  # the sample fraction uses the budget
    assert g.resampled.epsilon <= 1.0 and g.resampling_tail <= g.resampled.delta
    assert plan.privacy == amplify_by_subsampling(g.relabelled, plan.n_prime / plan.n, n=plan.n)
    # a sparse-vector stage above Lemma 3.1's (1, delta) precondition is refused (ERRATA C5)
    with pytest.raises(InvalidParameterError, match="noise_scale"):
        Q.AgnosticQueryRelease(
            Thresholds(),
            epsilon=0.8,
            delta=1e-6,
            m=100,
            k=6000,
            cutoff=3,
            noise_scale=plan.noise_scale / 2,
        ).plan(5_000_000)
    with pytest.raises(InvalidParameterError, match="k = 6000"):
        algo.plan(100_000)
    with pytest.raises(InvalidParameterError, match="sample_fraction"):
        Q.AgnosticQueryRelease(
            Thresholds(), epsilon=0.8, delta=1e-6, m=100, k=6000, cutoff=3, sample_fraction=0.5
        ).plan(5_000_000)
    # agnostic_guarantee refuses directly too
    with pytest.raises(InvalidParameterError, match="Lemma 3.1"):
        Q.agnostic_guarantee(Q.svt_guarantee(2.0, 3, 100, 100.0), 1000, 10**5, 1)


def test_universal_composition_and_budget_split():
    n = 4_000_000
    u = Q.UniversalQueryRelease(
        Thresholds(), epsilon=1.0, delta=1e-6, m=500, m_o=50, k=5000, cutoff=2
    )
    first = u.first.plan(n).privacy
    assert u.second is not None and u.second.epsilon == 0.5
    assert u.privacy(n) == compose_basic([first, Budget(0.5)])
    assert u.privacy(n) <= Budget(1.0, 1e-6)
    # m <= m_o: no second stage, the whole budget to the first (ERRATA C7)
    v = Q.UniversalQueryRelease(
        Thresholds(), epsilon=1.0, delta=1e-6, m=50, m_o=50, k=5000, cutoff=2
    )
    assert v.second is None and v.first.epsilon == 1.0 and v.privacy(n) == v.first.plan(n).privacy
    t = Q.UniversalQueryRelease.from_theory(
        Thresholds(), epsilon=0.5, delta=1e-6, alpha=0.1, beta=0.1, m=10**6
    )
    assert (
        t.m_o == Q.universal_m_o(1, 0.1, 0.1) == math.ceil(32 * (math.log(10) + math.log(10)) / 0.1)
    )
    assert t.first.m == t.m_o and t.first.epsilon == 0.25 and t.second.epsilon == 0.25


# --------------------------------------------------------------------------------------------
# The distance to instability (ERRATA C1)
# --------------------------------------------------------------------------------------------


def test_distance_to_instability_has_sensitivity_one_and_certifies_the_majority():
    for k in (1, 2, 7, 10, 101):
        ones = np.arange(k + 1)
        d = _session.distance_to_instability(ones, k)
        assert np.all(np.abs(np.diff(d)) <= 1)  # one vote changes: dist moves by at most 1
        for c in range(k + 1):
            if d[c] >= 1:  # then one changed vote cannot change the majority (nor make a tie)
                for c2 in (c - 1, c + 1):
                    if 0 <= c2 <= k:
                        assert (2 * c2 > k) == (2 * c > k) and 2 * c2 != k
    # the paper's raw gap moves by 2
    assert np.max(np.abs(np.diff(np.abs(2 * np.arange(11) - 10)))) == 2


# --------------------------------------------------------------------------------------------
# Sessions: state, cut-off, charging, errors, reproducibility
# --------------------------------------------------------------------------------------------


class TableVoter(Voter):
    """An ensemble of ``k`` members whose number of 1 votes on query ``i`` is ``ones[i]``."""

    def __init__(self, ones, k):
        self.ones = np.asarray(ones)
        self.k = k
        self.calls = 0

    def votes(self, X):
        self.calls += X.shape[0]
        return self.ones[X[:, 0].astype(int)]


def table_session(ones, k, *, lam, w, cutoff, seed, on_unstable="bottom"):
    m = len(ones)
    svt = Q.svt_guarantee(lam, cutoff, m, w)
    return _session.QuerySession(
        learner=ClassLearner(Thresholds()),
        voter=TableVoter(ones, k),
        svt=svt,
        threshold=w,
        m=m,
        privacy=svt.budget,
        on_unstable=on_unstable,
        rng=Generator(seed),
    )


def realizable(n, g, cut=0.5):
    x = g.random(n)
    return x, x >= cut


class CountingStump:
    """A scikit-learn-style threshold learner that counts its calls (not cloneable by
    scikit-learn: copied)."""

    fits = 0
    rows_predicted = 0

    def fit(self, X, y):
        CountingStump.fits += 1
        self.t_ = float(X[y == 1, 0].min())
        return self

    def predict(self, X):
        CountingStump.rows_predicted += X.shape[0]
        return (X[:, 0] >= self.t_).astype(int)


def test_session_state_and_m_exceeded():
    g = np.random.default_rng(0)
    X, y = realizable(20_000, g)
    algo = Q.SubsampleSVT(Thresholds(), epsilon=1.0, delta=1e-6, m=5, k=1000, cutoff=1)
    s = algo.start(X, y, rng=1)
    assert (s.answered, s.remaining, s.unstable, s.halted) == (0, 5, 0, False)
    assert s.answer(0.9) == 1 and s.answer([0.1]) == 0
    assert s.answered == 2 and s.remaining == 3 and s.statuses == ["stable", "stable"]
    with pytest.raises(HaltedError, match="at most m = 5"):
        s.answer_many(np.array([0.2, 0.3, 0.4, 0.6]))
    assert s.answered == 2  # nothing answered
    out = s.answer_many(np.array([0.05, 0.95, 0.8]))
    assert out.tolist() == [0, 1, 1] and s.remaining == 0
    with pytest.raises(HaltedError):
        s.answer(0.5)
    assert s.privacy == algo.privacy and s.max_unstable == 2


def test_bad_queries_are_refused_before_any_draw():
    g = np.random.default_rng(1)
    X, y = realizable(20_000, g)
    algo = Q.SubsampleSVT(Thresholds(), epsilon=1.0, delta=1e-6, m=10, k=1000, cutoff=3)
    qs = [0.48, 0.52, 0.5, 0.49, 0.51]
    a, b = algo.start(X, y, rng=7), algo.start(X, y, rng=7)
    out_a = [a.answer(q) for q in qs]
    out_b = []
    for q in qs:
        for bad in ([0.1, 0.2], np.nan, "x", [[0.3]] * 2):
            with pytest.raises(InvalidParameterError, match="x"):
                b.answer(bad)
        out_b.append(b.answer(q))
    assert out_a == out_b and a.answered == b.answered == 5
    hs = Q.SubsampleSVT(Halfspaces(2), epsilon=1.0, delta=1e-6, m=10, k=800, cutoff=3)
    X2 = g.random((16_000, 2))
    s = hs.start(X2, X2.sum(axis=1) > 1, rng=0)
    with pytest.raises(InvalidParameterError, match="x: "):
        s.answer([0.5, 0.5, 0.5])
    with pytest.raises(InvalidParameterError, match="X"):
        s.answer_many(np.zeros((2, 3)))
    assert s.answer([0.9, 0.9]) == 1


def test_hard_cap_on_unstable_answers_and_no_data_access_after_it():
    # every query at a tie: dist 0, so the sparse vector answers bottom almost surely
    k, m = 400, 200
    s = table_session(np.full(m, k // 2), k, lam=5.0, w=100.0, cutoff=3.9, seed=3)
    voter = s._voter
    for i in range(m):
        s.answer(float(i))
    assert s.unstable == s.max_unstable == 4 and s.halted
    st_ = s.statuses
    first_cut = st_.index("cutoff")
    assert st_[:first_cut].count("unstable") == 4 and set(st_[first_cut:]) == {"cutoff"}
    assert voter.calls == first_cut  # the ensemble is never consulted after the cut-off
    # a real learner: its predictions stop at the cut-off
    g = np.random.default_rng(2)
    X, y = realizable(10_000, g)
    CountingStump.fits = CountingStump.rows_predicted = 0
    algo = Q.SubsampleSVT(CountingStump(), epsilon=1.0, delta=1e-6, m=50, k=400, cutoff=1)
    sess = algo.start(X[:, None], y, rng=5)
    assert CountingStump.fits <= 400
    before = None
    for v in g.uniform(0.5, 0.55, 50):
        sess.answer(v)  # just above the boundary: the members' cuts disagree
        if sess.halted and before is None:
            before = CountingStump.rows_predicted
    assert sess.unstable <= 2 and sess.halted
    assert CountingStump.rows_predicted == before


def test_accountant_is_charged_once_and_refuses_before_drawing():
    g = np.random.default_rng(3)
    X, y = realizable(20_000, g)
    algo = Q.SubsampleSVT(CountingStump(), epsilon=0.5, delta=1e-6, m=20, k=800, cutoff=1)
    acct = Accountant(Budget(0.4, 1e-6))
    CountingStump.fits = 0
    with pytest.raises(BudgetExceededError):
        algo.start(X[:, None], y, accountant=acct, rng=1)
    assert CountingStump.fits == 0 and acct.spent == Budget(0.0)
    acct = Accountant(Budget(1.0, 1e-5))
    s = algo.start(X[:, None], y, accountant=acct, rng=1)
    s.answer_many(g.random((20, 1)))
    assert len(acct.ledger) == 1 and acct.ledger[0].budget == algo.privacy
    with pytest.raises(InvalidParameterError, match="X"):  # invalid input: nothing charged
        algo.start(np.full((10_000, 1), np.nan), y, accountant=acct, rng=1)
    assert len(acct.ledger) == 1


def test_random_bottom_answers_and_reproducibility():
    k, m = 400, 60
    ones = np.r_[np.full(30, 200), np.full(30, 400)]
    a = table_session(ones, k, lam=5.0, w=100.0, cutoff=5, seed=11, on_unstable="random")
    out = a.answer_many(np.arange(m, dtype=float))
    assert set(out.tolist()) <= {0, 1}
    b = table_session(ones, k, lam=5.0, w=100.0, cutoff=5, seed=11, on_unstable="random")
    assert np.array_equal(out, b.answer_many(np.arange(m, dtype=float)))
    c = table_session(ones, k, lam=5.0, w=100.0, cutoff=5, seed=12, on_unstable="random")
    assert not np.array_equal(out, c.answer_many(np.arange(m, dtype=float)))
    with pytest.raises(InvalidParameterError, match="on_unstable"):
        Q.SubsampleSVT(
            Thresholds(), epsilon=1, delta=1e-6, m=5, k=1000, cutoff=1, on_unstable="coin"
        )


def test_stable_regime_answers_are_the_unanimous_vote():
    g = np.random.default_rng(4)
    X, y = realizable(200_000, g, cut=0.3)
    algo = Q.SubsampleSVT(Thresholds(), epsilon=1.0, delta=1e-6, m=300, k=2000, cutoff=3)
    s = algo.start(X, y, rng=2)
    q = np.r_[g.uniform(0, 0.25, 150), g.uniform(0.35, 1, 150)]
    out = s.answer_many(q)
    assert s.unstable == 0 and np.array_equal(out, (q >= 0.3).astype(np.int8))


def test_scikit_learn_base_learners():
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    g = np.random.default_rng(5)
    X = g.normal(size=(50_000, 2))
    y = X[:, 0] > 0
    y[:300] = True  # some sub-samples may be all one label
    for est in (DecisionTreeClassifier(max_depth=2), LogisticRegression()):
        # epsilon = 4 keeps the ensemble small (k = 172 fits of each classifier)
        algo = Q.SubsampleSVT(est, epsilon=4.0, delta=1e-6, m=40, cutoff=3)
        assert algo.k == 2 * math.ceil(algo.threshold + 8 * algo.noise_scale) + 2
        s = algo.start(X, y, rng=1)
        q = g.normal(size=(40, 2))
        q[:, 0] += np.sign(q[:, 0])  # at least 1 from the boundary
        out = s.answer_many(q)
        truth = (q[:, 0] > 0).astype(np.int8)
        stable = out >= 0
        assert stable.sum() >= 30 and np.mean(out[stable] == truth[stable]) >= 0.9
    with pytest.raises(InvalidParameterError, match="learner"):
        Q.SubsampleSVT(object(), epsilon=1.0, delta=1e-6, m=40, cutoff=3)


def test_finite_and_parity_classes_fall_back_to_predict():
    g = np.random.default_rng(6)
    H = FiniteClass(g.integers(0, 2, size=(30, 50)))
    x = g.integers(0, 50, size=20_000)
    y = H.predict(H.erm(x[:10], g.integers(0, 2, 10)), x)
    algo = Q.SubsampleSVT(H, epsilon=1.0, delta=1e-6, m=20, k=500, cutoff=2)
    out = algo.start(x, y, rng=0).answer_many(np.arange(20))
    assert np.mean(out == H.predict(H.erm(x, y), np.arange(20))) >= 0.9


# --------------------------------------------------------------------------------------------
# A_Relabel
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cls, make",
    [
        (Thresholds(), lambda g, n: g.random(n)),
        (Thresholds("le"), lambda g, n: g.integers(0, 7, n).astype(float)),
        (Thresholds("both"), lambda g, n: g.random(n)),
        (Intervals(), lambda g, n: g.integers(0, 9, n).astype(float)),
        (Halfspaces(2), lambda g, n: g.random((n, 2))),
        (Points(1), lambda g, n: g.integers(0, 5, n).astype(float)),
    ],
)
def test_relabelled_sample_is_realizable(cls, make):
    g = np.random.default_rng(7)
    for rep in range(5):
        X = make(g, 60)
        y = g.random(60) < 0.4
        z = Q.relabel(X, y, cls, rng=rep)
        h = cls.erm(X, z)
        assert np.array_equal(cls.predict(h, X), z)  # zero empirical error: realizable
        d = cls.dichotomies(X)
        assert any(np.array_equal(z, row) for row in d.to_numpy())


def test_threshold_fast_path_equals_the_enumeration():
    g = np.random.default_rng(8)
    for o in ("ge", "le", "both"):
        for n in (1, 5, 40):
            x = np.round(g.random(n) * 6) / 2
            y = g.random(n) < 0.5
            d = Thresholds(o).dichotomies(x)
            fast = _core.threshold_labeling_mistakes(x, y, o)
            assert np.array_equal(fast, d.mistakes(y))
            for i in range(len(d)):
                assert np.array_equal(_core.threshold_labeling(x, o, i), d.label(i))


@pytest.mark.parametrize("cls", [Thresholds(), Intervals()])
def test_relabel_follows_the_exponential_mechanism(cls):
    g = np.random.default_rng(9)
    X = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    y = np.array([0, 1, 0, 1, 1, 0], dtype=bool)
    d = cls.dichotomies(X)
    labels = d.to_numpy()
    mistakes = d.mistakes(y)
    gen = Generator(123)
    draws = 20_000
    counts = np.zeros(len(d), dtype=np.int64)
    index = {row.tobytes(): i for i, row in enumerate(labels)}
    for _ in range(draws):
        counts[index[Q.relabel(X, y, cls, rng=gen).tobytes()]] += 1
    # P(c) ∝ exp(-mistakes(c) / 2); the power check rejects a 30% error in the rate
    assert_power_check(
        lambda f: chi_square_pvalue(counts, softmax(-mistakes, 0.5 * f)), f"relabel {cls}"
    )
    del g


def test_relabel_utility_bound_of_lemma_3_2():
    # eq. (4): err(h_hat; S') - err(ERM; S') <= (2/n')(ln|H~| + ln(3/beta)) except w.p. beta/3
    g = np.random.default_rng(10)
    n, beta, reps = 400, 0.3, 300
    bad = 0
    for rep in range(reps):
        x = g.random(n)
        y = (x >= 0.5) ^ (g.random(n) < 0.2)
        z = Q.relabel(x, y, Thresholds(), rng=rep)
        excess = (np.count_nonzero(z != y) - Thresholds().dichotomies(x).mistakes(y).min()) / n
        bad += excess > 2 / n * (math.log(n + 1) + math.log(3 / beta))
    assert stats.binom.sf(bad - 1, reps, beta / 3) > ALPHA


# --------------------------------------------------------------------------------------------
# Utility: twin minima, agnostic query release, universal release
# --------------------------------------------------------------------------------------------


def twin_minima(n, g):
    x = g.random(n)
    return x, ((x >= 0.3) & (x < 0.5)) | (x >= 0.7)


def test_twin_minima_breaks_subsample_and_aggregate_and_relabelling_fixes_it():
    g = np.random.default_rng(11)
    X, y = twin_minima(3_000_000, g)
    m = 40
    # queries away from both minima's cuts; on [0.35, 0.65] the sub-sample ERMs split
    q = np.r_[g.uniform(0.0, 0.15, 10), g.uniform(0.45, 0.55, 20), g.uniform(0.85, 1.0, 10)]
    g.shuffle(q)
    plain = Q.SubsampleSVT(Thresholds(), epsilon=1.0, delta=1e-6, m=m, k=2000, cutoff=3)
    s = plain.start(X, y, rng=1)
    s.answer_many(q)
    assert s.halted and s.statuses.count("cutoff") > 0
    agn = Q.AgnosticQueryRelease(Thresholds(), epsilon=1.0, delta=1e-6, m=m, cutoff=3)
    a = agn.start(X, y, rng=2)
    out = a.answer_many(q)
    assert a.unstable <= 1 and not a.halted
    plan = a.details
    assert isinstance(plan, Q.ReleasePlan) and plan.privacy <= Budget(1.0, 1e-6)
    # every answer is one of the two optimal thresholds' labels on these queries
    h03, h07 = (q >= 0.3).astype(np.int8), (q >= 0.7).astype(np.int8)
    stable = out >= 0
    assert np.array_equal(out[stable], h03[stable]) or np.array_equal(out[stable], h07[stable])


def test_universal_release_publishes_after_m_o():
    g = np.random.default_rng(12)
    X, y = realizable(6_000_000, g, cut=0.4)
    u = Q.UniversalQueryRelease(
        Thresholds(), epsilon=1.0, delta=1e-6, m=300, m_o=30, cutoff=3, split=0.2
    )
    acct = Accountant(Budget(1.0, 1e-6))
    s = u.start(X, y, accountant=acct, rng=3)
    q = g.random(300)
    first = s.answer_many(q[:30])
    assert not s.published and s.answered == 30
    rest = np.array([s.answer(v) for v in q[30:]])
    assert s.published and s.statuses[30:] == ["published"] * 270
    assert np.mean(rest == (q[30:] >= 0.4)) >= 0.95
    assert np.mean(first[first >= 0] == (q[:30][first >= 0] >= 0.4)) >= 0.9
    assert len(acct.ledger) == 1 and acct.ledger[0].budget == u.privacy(len(X))
    with pytest.raises(HaltedError):
        s.answer(0.5)


# --------------------------------------------------------------------------------------------
# A_SSPP: exact ratios by enumeration, data-independent candidates, audit
# --------------------------------------------------------------------------------------------


def _em_probs(scores, eps):
    return softmax(np.asarray(scores, dtype=float), eps / 2)


def test_semi_private_learner_exact_ratio_on_all_neighbours():
    g = np.random.default_rng(13)
    domain = np.linspace(0, 1, 6)
    X = g.choice(domain, 7)
    y = g.random(7) < 0.5
    pub = g.choice(domain, 5)
    eps = 0.8
    cls = Thresholds("both")
    learner = Q.SemiPrivateLearner(cls, epsilon=eps)
    d = cls.dichotomies(pub)

    worst = worst_broken = 0.0
    X, pub, domain = (cls._check_X(v) for v in (X, pub, domain))
    base = _em_probs(-d.mistakes_on(X, y), eps)
    for i in range(len(X)):
        for xv in domain[:, 0]:
            for yv in (False, True):
                X2, y2 = X.copy(), y.copy()
                X2[i], y2[i] = xv, yv
                other = _em_probs(-d.mistakes_on(X2, y2), eps)
                worst = max(worst, float(np.max(np.abs(np.log(base / other)))))
                # broken: candidates from the dichotomies of the private points (data-dependent)
                bd, bd2 = cls.dichotomies(X), cls.dichotomies(X2)
                hyps = set(bd.hypotheses()) | set(bd2.hypotheses())
                p1 = {h: 0.0 for h in hyps}
                p2 = dict(p1)
                for dd, yy, XX, p in ((bd, y, X, p1), (bd2, y2, X2, p2)):
                    pr = _em_probs(-dd.mistakes_on(XX, yy), eps)
                    for h, v in zip(dd.hypotheses(), pr):
                        p[h] += v
                for h in hyps:
                    if (p1[h] == 0) != (p2[h] == 0):
                        worst_broken = math.inf
    assert worst <= eps * (1 + 1e-12)
    assert worst_broken > eps  # the power check: a data-dependent candidate set is not DP
    # the candidates depend on the public points only (notes §6.2 item 14)
    X3 = g.random(7)
    learner.fit(X3, g.random(7) < 0.5, pub, rng=1)
    assert learner.n_candidates_ == len(d)


def test_semi_private_learner_audit():
    # neighbours: the label of the record at 0.1 flips; public points 0.2 < 0.5 < 0.8. The
    # candidate t = -inf gains a mistake less while the others gain one: a ratio near e^epsilon.
    X = np.array([0.1, 0.3, 0.6, 0.9])
    ya, yb = np.array([0, 0, 1, 1], dtype=bool), np.array([1, 0, 1, 1], dtype=bool)
    pub = np.array([0.2, 0.5, 0.8])

    def run(y, eps_used):
        def sample(g, size):
            gen = Generator(int(g.integers(2**63)))
            learner = Q.SemiPrivateLearner(Thresholds(), epsilon=eps_used)
            return np.array([learner.fit(X, y, pub, rng=gen).hypothesis_.t for _ in range(size)])

        return sample

    ok = audit(run(ya, 1.0), run(yb, 1.0), claimed=1.0, n=20_000, alpha=ALPHA, rng=0)
    assert ok.passed, ok
    # broken: the score's sensitivity is taken as 1/2 (half the noise)
    broken = audit(run(ya, 2.0), run(yb, 2.0), claimed=1.0, n=20_000, alpha=ALPHA, rng=0)
    assert not broken.passed, broken


# --------------------------------------------------------------------------------------------
# A_stab and the session's sparse vector: exactness and audits
# --------------------------------------------------------------------------------------------


def test_distance_to_instability_release_frequency():
    stab = Q.DistanceToInstability(0.5, 4.0)
    gen = Generator(5)
    draws = 20_000
    for dist in (0, 3, 8):
        hits = sum(stab("v", dist, rng=gen) == "v" for _ in range(draws))

        def pval(f, dist=dist, hits=hits):
            z = (4.0 - dist) * 0.5 / f
            p = 0.5 * math.exp(-z) if z >= 0 else 1 - 0.5 * math.exp(z)
            return stats.binomtest(hits, draws, p).pvalue

        assert pval(1.0) > ALPHA and stab.release_probability(dist) == pytest.approx(
            1 - stats.laplace.cdf(4.0 - dist, scale=2.0)
        )
        assert pval(0.7) < ALPHA or pval(1.3) < ALPHA
    assert stab.privacy.epsilon == 0.5 and stab.privacy.delta >= 0.5 * math.exp(-2.0)
    assert stab.privacy.delta == pytest.approx(0.5 * math.exp(-2.0), rel=1e-5)
    acct = Accountant(Budget(0.5, 0.1))
    stab("v", 1, accountant=acct, rng=1)
    assert acct.spent == stab.privacy
    with pytest.raises(InvalidParameterError, match="threshold"):
        Q.DistanceToInstability(1.0, 0.0)


def test_stable_release_probability_of_the_exact_sparse_vector():
    # a query at a tie (dist 0) is released with probability (4e^{-w/2l} - e^{-w/l})/6
    lam, w, runs = 2.0, 3.0, 20_000
    gen = Generator(21)
    released = 0
    for _ in range(runs):
        s = table_session([50], 100, lam=lam, w=w, cutoff=0, seed=0)
        s._rng = gen
        s._sv = _session.SparseVector(-w, s._svt.sampler_epsilon, 1.0, max_positives=1, rng=gen)
        released += s.answer(0.0) is not None
    assert_power_check(
        lambda f: stats.binomtest(released, runs, Q.stable_release_probability(w, lam * f)).pvalue,
        "stable release",
    )


GAPS_A, GAPS_B = [6, 6, 6, 2], [4, 4, 4, 4]  # one member's vote flips on every query
K_AUDIT = 100


def _svt_sampler(gaps, lam, w, broken):
    ones = (K_AUDIT + np.asarray(gaps)) // 2  # majority 1, vote gap as given

    def sample(g, size):
        gen = Generator(int(g.integers(2**63)))
        out = np.empty((size, len(gaps)), dtype=np.int8)
        queries = np.arange(len(gaps), dtype=float)
        svt = Q.svt_guarantee(lam, 0, len(gaps), w)
        for i in range(size):
            s = _session.QuerySession(
                learner=ClassLearner(Thresholds()),
                voter=TableVoter(ones, K_AUDIT),
                svt=svt,
                threshold=w,
                m=len(gaps),
                privacy=svt.budget,
                on_unstable="bottom",
                rng=gen,
            )
            out[i] = s.answer_many(queries)
        return out

    return sample


def test_session_answers_audit(monkeypatch):
    # One round (T = 0), lambda = 2: each AboveThreshold round is 2/lambda = 1-DP. On this pair no
    # query has distance 0 and every majority is the same, so the transcripts obey the pure part
    # of the guarantee: (1, 0). The broken variant uses the paper's raw gap (sensitivity 2).
    lam, w = 2.0, 6.0
    ok = audit(
        _svt_sampler(GAPS_A, lam, w, False),
        _svt_sampler(GAPS_B, lam, w, False),
        claimed=(1.0, 0.0),
        n=80_000,
        alpha=ALPHA,
        rng=1,
    )
    assert ok.passed, ok
    monkeypatch.setattr(_session, "distance_to_instability", lambda ones, k: np.abs(2 * ones - k))
    broken = audit(
        _svt_sampler(GAPS_A, lam, w, True),
        _svt_sampler(GAPS_B, lam, w, True),
        claimed=(1.0, 0.0),
        n=80_000,
        alpha=ALPHA,
        rng=1,
    )
    assert not broken.passed, broken


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(epsilon=0.0), "epsilon"),
        (dict(epsilon=-1.0), "epsilon"),
        (dict(delta=0.0), "delta"),
        (dict(delta=1.0), "delta"),
        (dict(m=0), "m"),
        (dict(k=0), "k"),
        (dict(cutoff=-1.0), "cutoff"),
        (dict(cutoff=float("nan")), "cutoff"),
    ],
)
def test_bad_parameters(kwargs, name):
    base = dict(epsilon=1.0, delta=1e-6, m=10, k=1000, cutoff=2)
    base.update(kwargs)
    with pytest.raises(InvalidParameterError) as err:
        Q.SubsampleSVT(Thresholds(), **base)
    assert err.value.parameter == name


def test_bad_theory_parameters():
    for args, name in [
        ((0.0, 1e-6, 0.1, 0.1, 10), "epsilon"),
        ((0.5, 0.0, 0.1, 0.1, 10), "delta"),
        ((0.5, 1e-6, 1.0, 0.1, 10), "alpha"),
        ((0.5, 1e-6, 0.1, 0.0, 10), "beta"),
        ((0.5, 1e-6, 0.1, 0.1, 0), "m"),
    ]:
        with pytest.raises(InvalidParameterError) as err:
            Q.theory_parameters(*args)
        assert err.value.parameter == name
    with pytest.raises(InvalidParameterError, match="d"):
        Q.theory_parameters(0.5, 1e-6, 0.1, 0.1, 10, d=-1)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: Q.theory_parameters(float("nan"), 1e-6, 0.1, 0.1, 10), "epsilon"),
        (lambda: Q.theory_parameters("1", 1e-6, 0.1, 0.1, 10), "epsilon"),
        (lambda: Q.agnostic_guarantee(Q.svt_guarantee(2.0, 3, 100, 100.0), 1, 0, 1), "n"),
        (lambda: Q.universal_m_o(-1, 0.1, 0.1), "d"),
        (lambda: Q.resampling_multiplicity(0, 0.1), "n_prime"),
    ],
)
def test_accounting_functions_name_the_bad_parameter(call, name):
    with pytest.raises(InvalidParameterError) as err:
        call()
    assert err.value.parameter == name
    assert str(err.value).startswith(f"{name}:")


def test_accounting_edge_values():
    # n' = 1: Bin(1, 1) is always 1, so P(> 0) = 1 and P(> 1) = 0: r0 = 1.
    assert Q.resampling_tail(1, 0) == 1.0 and Q.resampling_tail(1, 1) == 0.0
    assert Q.resampling_multiplicity(1, 0.5) == 1
    # d = 0 is a valid VC dimension: m_o = ceil(32 ln(1/beta) / alpha).
    assert Q.universal_m_o(0, 0.1, 0.1) == math.ceil(32 * math.log(10) / 0.1) == 737


@pytest.mark.parametrize("args", [(1.0, 1e-6, 0.1, 0.1, 1000, 1), (0.5, 1e-5, 0.2, 0.3, 50, 4)])
def test_required_sample_size_follows_lemma_3_5(args):
    # TheoryParameters' docstring: n' = 8000 (d ln(1/a) + ln(m/b)) ln^{3/2}(2/delta)
    # ln(m a / min(delta, b/2)) max(1, sqrt(m) a^{3/2}) / a^2 and n = 56 n' / epsilon.
    eps, delta, a, b, m, d = args
    p = Q.theory_parameters(eps, delta, a, b, m, d=d)
    want = (
        8000
        * (d * math.log(1 / a) + math.log(m / b))
        * math.log(2 / delta) ** 1.5
        * math.log(m * a / min(delta, b / 2))
        * max(1.0, math.sqrt(m) * a**1.5)
        / a**2
    )
    assert p.n_prime_required == pytest.approx(want, rel=1e-12)
    assert p.n_required == pytest.approx(56 * want / eps, rel=1e-12)


def test_bad_training_data():
    algo = Q.SubsampleSVT(Thresholds(), epsilon=1.0, delta=1e-6, m=10, k=1000, cutoff=2)
    g = np.random.default_rng(14)
    X = g.random(5000)
    for Xb, yb, name in [
        (X, np.full(5000, 2), "y"),
        (X, X[:10] > 0.5, "y"),
        (np.where(X > 0.5, np.nan, X), X > 0.5, "X"),
        (np.zeros((5000, 2)), X > 0.5, "X"),
        (X[:0], X[:0] > 0.5, "X"),
        (X[:500], X[:500] > 0.5, "X"),  # fewer records than sub-samples
    ]:
        with pytest.raises(InvalidParameterError) as err:
            algo.start(Xb, yb, rng=0)
        assert err.value.parameter == name
    with pytest.raises(InvalidParameterError, match="accountant"):
        algo.start(X, X > 0.5, accountant="me", rng=0)
    agn = Q.AgnosticQueryRelease(Thresholds(), epsilon=1.0, delta=1e-6, m=10, cutoff=2)
    with pytest.raises(InvalidParameterError, match="fewer than k"):
        agn.start(X, X > 0.5, rng=0)  # n' = 0.03 n < k
    with pytest.raises(InvalidParameterError, match="hypothesis_class"):
        Q.AgnosticQueryRelease("thresholds", epsilon=1.0, delta=1e-6, m=10, k=1000, cutoff=2)
    with pytest.raises(InvalidParameterError, match="sample_fraction"):
        Q.AgnosticQueryRelease(
            Thresholds(), epsilon=1.0, delta=1e-6, m=10, k=1000, cutoff=2, sample_fraction=0
        )
    with pytest.raises(InvalidParameterError, match="X_public"):
        Q.SemiPrivateLearner(Thresholds(), epsilon=1.0).fit(X, X > 0.5, np.zeros((3, 2)))
    with pytest.raises(InvalidParameterError, match="split"):
        Q.UniversalQueryRelease(
            Thresholds(), epsilon=1.0, delta=1e-6, m=10, m_o=5, k=1000, cutoff=2, split=1.0
        )


# --------------------------------------------------------------------------------------------
# Documentation and the experiment
# --------------------------------------------------------------------------------------------


def test_doctests_and_docstrings():
    import doctest
    import inspect

    from privlearn.query_release import (
        _accounting,
        _agnostic,
        _common,
        _relabel,
        _semiprivate,
        _stability,
        _subsample,
        _universal,
    )

    for module in (
        Q,
        _accounting,
        _common,
        _stability,
        _subsample,
        _relabel,
        _agnostic,
        _semiprivate,
        _universal,
    ):
        assert doctest.testmod(module, optionflags=doctest.ELLIPSIS).failed == 0
    for name in Q.__all__:
        obj = getattr(Q, name)
        assert inspect.getdoc(obj), name
    for cls in (
        Q.SubsampleSVT,
        Q.AgnosticQueryRelease,
        Q.UniversalQueryRelease,
        Q.SemiPrivateLearner,
        Q.DistanceToInstability,
    ):
        doc = inspect.getdoc(cls)
        assert (
            "Privacy guarantee" in doc
            and "replace-one" in doc
            and ("Alg." in doc or "Proposition" in doc)
        )


def test_experiment_setting_runs_and_stays_in_budget():
    from privlearn.experiments import get_experiment
    from privlearn.experiments.query_release import ALGORITHMS, Setting, run_setting

    assert get_experiment("query-release").paper
    rows = run_setting(Setting("twin-minima", 3_000_000, (20,), 10, 0), seed=4)
    by_alg = {r[2]: r for r in rows}
    assert set(by_alg) == set(ALGORITHMS)
    for name in ALGORITHMS[:3]:
        eps, delta = by_alg[name][10], by_alg[name][11]
        assert eps <= 1.0 and delta <= 1e-6
    assert by_alg["SubsampleSVT"][8]  # halted: the ensemble splits between the two minima
    assert abs(by_alg["ERM (non-private)"][4] - 0.2) < 0.25
