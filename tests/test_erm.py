"""Seed 000 learners: utility against the paper's and the per-dataset bounds (exactly where
possible), limits, the Gibbs sampler, candidate sets and scoring, bad input, accounting and the
scikit-learn conventions. Privacy checks are in test_erm_privacy.py."""

from __future__ import annotations

import doctest
import importlib
import math

import numpy as np
import pytest
from scipy.special import logsumexp

from erm_helpers import log_pmf
from privlearn import BudgetExceededError, InvalidParameterError
from privlearn.accounting import Accountant, Budget
from privlearn.hypotheses import Halfspaces, Intervals, Rectangles, Thresholds
from privlearn.learners import (
    ApproximateGibbsERM,
    BestSubsetERM,
    BoostedERM,
    ContinuousThresholds,
    ExponentialMechanismERM,
    FiniteCandidates,
    Grid,
    LinearCandidates,
    ReferenceDichotomies,
    SubsampledERM,
    ThresholdCandidates,
    boosting_excess_risk_bound,
    example20_epsilon,
    example21_epsilon,
    excess_risk_bound,
    linear_loss_bound,
    reference_threshold_grid,
)
from privlearn.learners._erm_losses import _resolve_loss
from privlearn.random import Generator

TOL = 1e-9


def _exact_excess(est, X, y, eps_formula=None):
    """Exact E_h F - min F (risk units, with the regularizer) and the pmf, from the scores."""
    scores, sens, step, _ = est._scores(X, y)
    n = X.shape[0]
    eps = est.epsilon if eps_formula is None else eps_formula
    lp = log_pmf(scores, sens, eps)
    F = -scores.astype(np.float64) * step / n  # risk units: B / 2^k per quantum, over n
    return float(np.exp(lp) @ (F - F.min())), lp, F


def _random_threshold_data(g, n):
    x = g.random(n)
    y = ((x > 0.4) ^ (g.random(n) < 0.15)).astype(int)
    return x.reshape(-1, 1), y


# ---------------------------------------------------------------------------------------------
# Utility
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["paper", "tight"])
@pytest.mark.parametrize("eps", [0.1, 1.0, 5.0])
def test_per_dataset_bound_holds_exactly(mode, eps):
    """E F - F* <= 2Δ(ln N + 1)/eps and P[F - F* > s] <= N exp(-eps s / (2Δ)) on every
    dataset tried (exact, from the pmf)."""
    g = np.random.default_rng(1)
    cands = ThresholdCandidates(np.linspace(0, 1, 41), "both")
    for n in (1, 5, 30, 200):
        X, y = _random_threshold_data(g, n)
        est = ExponentialMechanismERM("zero_one", cands, eps, sensitivity=mode)
        excess, lp, F = _exact_excess(est, X, y)
        bound = excess_risk_bound(n, eps, len(cands), sensitivity=mode)
        assert excess <= bound + TOL
        delta = (2.0 if mode == "paper" else 1.0) / n
        for s in np.linspace(0, 1, 21):
            tail = float(np.exp(lp)[F - F.min() > s].sum())
            assert tail <= len(cands) * math.exp(-eps * s / (2 * delta)) + TOL


def test_per_dataset_bound_power():
    """The same check fails for a mechanism with a quarter of the claimed epsilon on an
    adversarial dataset (a single good candidate among many bad ones)."""
    n, eps = 50, 1.0
    cands = ThresholdCandidates(np.r_[0.5, np.full(200, 2.0)])  # t = 2: predicts 0 everywhere
    X = np.full((n, 1), 0.9)
    y = np.ones(n, dtype=int)  # t = 0.5 is right on all
    est = ExponentialMechanismERM("zero_one", cands, eps, sensitivity="tight")
    good, _, _ = _exact_excess(est, X, y)
    bound = excess_risk_bound(n, eps, len(cands), sensitivity="tight")
    assert good <= bound
    broken, _, _ = _exact_excess(est, X, y, eps_formula=eps / 4)
    assert broken > bound


@pytest.mark.parametrize(
    "loss,cands",
    [
        ("clipped_logistic", Grid(2.0, 2, num=15)),
        (
            "zero_one",
            ReferenceDichotomies(Halfspaces(2), np.random.default_rng(3).uniform(-1, 1, (25, 2))),
        ),
    ],
)
def test_fit_draws_meet_the_per_dataset_bound(loss, cands):
    """Monte Carlo: the mean excess of fitted hypotheses stays below the bound (with a 6-sigma
    margin for the sampling noise); the excess is recomputed from the released hypothesis."""
    g = np.random.default_rng(4)
    X = g.uniform(-1, 1, (300, 2))
    y = (X @ [1.0, -0.5] > 0.1).astype(int) ^ (g.random(300) < 0.1)
    eps = 0.5
    gen = Generator(5)
    est = ExponentialMechanismERM(loss, cands, eps, rng=gen)
    _, lp, F = _exact_excess(est, X, y)
    excess = []
    for _ in range(300):
        est.fit(X, y)
        excess.append(F[est.candidate_index_] - F.min())
    excess = np.array(excess)
    bound = excess_risk_bound(300, eps, len(cands))
    assert excess.mean() + 6 * excess.std() / math.sqrt(excess.size) <= bound + 1e-12
    # And the exact expectation agrees with the draws.
    exact = float(np.exp(lp) @ (F - F.min()))
    assert abs(excess.mean() - exact) <= 6 * excess.std() / math.sqrt(excess.size) + 1e-12


def test_lemma37_rate_monte_carlo():
    """Theorem 19 / Lemma 37 for a finite class (K = N, rho = 0): the mean excess empirical
    risk over datasets is below 9[2 ln n + ln N]/(n eps) (eps < ln n)."""
    g = np.random.default_rng(6)
    cands = ThresholdCandidates(np.linspace(0, 1, 64))
    for n, eps in ((50, 0.5), (400, 0.2), (2000, 1.0)):
        vals = []
        for _ in range(40):
            X, y = _random_threshold_data(g, n)
            vals.append(_exact_excess(ExponentialMechanismERM("zero_one", cands, eps), X, y)[0])
        assert np.mean(vals) <= excess_risk_bound(n, eps, len(cands), kind="lemma37")


def test_lemma8_stability_exact():
    """Lemma 8: |E_{A(Z)} l(h, z) - E_{A(Z')} l(h, z)| <= e^eps - 1 (<= 2 eps for eps <= 1), for
    every test point z, exactly. Power: a mechanism whose sensitivity is off by the factor n
    (risk units used on mistake counts; n = 10) breaks it."""
    cands = ThresholdCandidates([0.3, 0.7])
    X = np.ones((10, 1))
    y = np.ones(10, dtype=int)
    X[0, 0] = 0.4
    X2 = X.copy()
    y2 = y.copy()
    X2[0, 0], y2[0] = 0.6, 0
    zs = [(x, lab) for x in (0.0, 0.5, 0.9) for lab in (0, 1)]

    def gap(eps_formula, eps):
        est = ExponentialMechanismERM("zero_one", cands, eps, sensitivity="tight")
        p = np.exp(_exact_excess(est, X, y, eps_formula)[1])
        q = np.exp(_exact_excess(est, X2, y2, eps_formula)[1])
        worst = 0.0
        for x, lab in zs:
            loss = (x >= cands.t).astype(float) != lab
            worst = max(worst, abs(float(p @ loss - q @ loss)))
        return worst

    for eps in (0.1, 0.5, 1.0, 2.0):
        assert gap(eps, eps) <= math.expm1(eps) + TOL
        if eps <= 1:
            assert gap(eps, eps) <= 2 * eps + TOL
    assert gap(10 * 0.2, 0.2) > math.expm1(0.2)


def test_threshold_impossibility_and_public_reference():
    """Proposition 12: continuous EM on data clustered in a width w << e^{-eps n / 4} around
    1/2 keeps an expected empirical risk near 1/2, whatever w (exact, from the pieces); the
    public-reference grid (Example 24) learns a smooth distribution (excess population risk
    small). Power: with well-spread data the same continuous mechanism learns."""
    eps, n = 1.0, 80
    for w in (1e-3 * math.exp(-eps * n / 4), 1e-5 * math.exp(-eps * n / 4)):
        x = 0.5 + w * np.linspace(-0.5, 0.5, n)
        y = (x > 0.5).astype(int)
        left, _, length, mistakes = ContinuousThresholds().pieces(x, y)
        for sens in (1.0, 2.0):
            logw = -eps / (2 * sens) * mistakes + np.log(length.astype(float))
            expected = float(np.exp(logw - logsumexp(logw)) @ mistakes) / n
            assert expected > 0.4, (w, sens, expected)
    x = np.linspace(0.01, 0.99, n)
    y = (x > 0.5).astype(int)
    _, _, length, mistakes = ContinuousThresholds().pieces(x, y)
    logw = -eps / 4 * mistakes + np.log(length.astype(float))
    assert float(np.exp(logw - logsumexp(logw)) @ mistakes) / n < 0.1
    # Public reference: D has density <= c = 2 on [0, 1]; risk of t is P(between t and 0.5).
    g = np.random.default_rng(7)
    grid = reference_threshold_grid(2.0, 0.02)
    xs = np.sqrt(g.random(4000)) * 0.999  # density 2x on [0, 1]
    ys = (xs > 0.5).astype(int)
    est = ExponentialMechanismERM("zero_one", grid, 1.0, rng=8).fit(xs, ys)
    t = est.hypothesis_.t
    assert abs(t**2 - 0.25) < 0.05  # P_D(between t and 0.5) with CDF x^2


def test_boosting_high_probability_bound():
    """Theorem 25's failure frequency stays below delta (base: finite EM on thresholds; R* = 0
    with noiseless uniform data, so the population risk of t is |t - 0.4|)."""
    g = np.random.default_rng(9)
    n, delta, eps = 600, 0.1, 1.0
    cands = ThresholdCandidates(np.linspace(0, 1, 51))
    base = ExponentialMechanismERM("zero_one", cands, eps)
    est = BoostedERM(base, delta=delta, rng=Generator(10))
    a = math.ceil(math.log(3 / delta))
    part = n // (a + 1)
    xi = excess_risk_bound(part, eps, len(cands), kind="theorem19")
    bound = boosting_excess_risk_bound(n, delta, xi, eps)
    fails = 0
    runs = 60
    for _ in range(runs):
        x = g.random(n)
        y = (x >= 0.4).astype(int)
        est.fit(x, y)
        fails += abs(est.hypothesis_.t - 0.4) > bound
        assert est.privacy_ == Budget(eps)
        assert sorted(est.part_sizes_) == sorted(
            [len(p) for p in np.array_split(np.arange(n), a + 1)]
        )
    assert fails / runs <= delta


@pytest.mark.slow
def test_gibbs_scale_of_the_quadratic_target():
    """ApproximateGibbsERM on a quadratic objective with an interior minimum: E[F - F*] =
    d / (2 beta) (notes §5). Batch means over chains; power: 30% off beta is rejected."""
    d, n = 2, 400
    X = np.zeros((n, d))
    X[: n // 2, 0] = 1.0
    X[n // 2 :, 1] = 1.0
    y = np.zeros(n)
    y[: n // 2] = 0.2
    y[n // 2 :] = -0.1
    # F(w) = ((w0 - 0.2)^2 + (w1 + 0.1)^2) / 2, F* = 0.
    eps = 2.0
    est = ApproximateGibbsERM(
        "squared", eps, radius=3.0, loss_bound=100.0, steps=4000, warmup=1000, chains=8, rng=11
    )
    means = []
    for rep in range(6):
        est.set_params(rng=100 + rep).fit(X, y)
        means.extend(est._diagnostics["mean_objective"])
    means = np.array(means)
    beta = est._diagnostics["beta"]
    se = means.std(ddof=1) / math.sqrt(means.size)

    def z(factor):
        return abs(means.mean() - d / (2 * beta * factor)) / se

    assert z(1.0) < 5, (means.mean(), d / (2 * beta), se)
    assert z(0.7) > 5 and z(1.3) > 5
    assert est._diagnostics["r_hat"] < 1.1


def test_gibbs_reports_no_guarantee():
    g = np.random.default_rng(12)
    X = g.uniform(-1, 1, (100, 2))
    y = (X[:, 0] > 0).astype(int)
    est = ApproximateGibbsERM(
        "logistic", 1.0, radius=2.0, loss_bound=3.0, steps=200, warmup=100, rng=1
    ).fit(X, y)
    assert est.privacy_ is None and not est.dp_certified_
    assert "none" in est.guarantee_ and "A7" in est.guarantee_
    assert np.linalg.norm(est.coef_) <= 2.0
    acct = Accountant(Budget(5.0, 0.1))
    with pytest.raises(InvalidParameterError, match="accountant"):
        ApproximateGibbsERM("logistic", 1.0, radius=2.0, loss_bound=3.0, accountant=acct).fit(X, y)
    with pytest.raises(InvalidParameterError, match="tv_bound"):
        ApproximateGibbsERM("logistic", 1.0, radius=2.0, loss_bound=3.0, tv_bound=1e-6).fit(X, y)
    ok = ApproximateGibbsERM(
        "logistic",
        1.0,
        radius=2.0,
        loss_bound=3.0,
        step=0.01,
        steps=100,
        warmup=0,
        tv_bound=1e-6,
        accountant=acct,
        rng=2,
    ).fit(X, y)
    # delta = tv (1 + e^eps), rounded up: never below the exact value, at most an ulp above
    import mpmath

    with mpmath.workdps(50):
        exact = mpmath.mpf(1e-6) * (1 + mpmath.e)
    assert ok.privacy_.epsilon == 1.0 and ok.dp_certified_
    assert exact <= ok.privacy_.delta <= math.nextafter(float(exact), 1.0)
    assert acct.spent == ok.privacy_
    with pytest.raises(InvalidParameterError, match="loss"):
        ApproximateGibbsERM("zero_one", 1.0).fit(X, y)


# ---------------------------------------------------------------------------------------------
# Limits and invariances
# ---------------------------------------------------------------------------------------------


def test_limits():
    X = np.array([[0.2], [0.7], [0.9]])
    y = np.array([0, 1, 1])
    one = ExponentialMechanismERM("zero_one", ThresholdCandidates([0.5]), 1.0, rng=0).fit(X, y)
    assert one.candidate_index_ == 0
    # Duplicates count with their multiplicity.
    est = ExponentialMechanismERM("zero_one", ThresholdCandidates([0.5, 0.5, 0.8]), 1.0)
    p = np.exp(log_pmf(*est._scores(X, y)[:2], 1.0))
    assert p[0] == pytest.approx(p[1]) and p[0] + p[1] > p[2]
    # Large epsilon: the minimiser, ties split uniformly.
    cands = ThresholdCandidates([0.0, 0.5, 0.6, 1.0])
    gen = Generator(1)
    picks = [
        ExponentialMechanismERM("zero_one", cands, 200.0, rng=gen).fit(X, y).candidate_index_
        for _ in range(400)
    ]
    assert set(picks) == {1, 2} and 120 < picks.count(1) < 280
    # Shift invariance (a constant regularizer, no clipping active) and permutation invariance.
    a = ExponentialMechanismERM("clipped_hinge", Grid(1.0, 1, num=9), 1.0, loss_bound=3.0)
    b = ExponentialMechanismERM(
        "clipped_hinge", Grid(1.0, 1, num=9), 1.0, loss_bound=3.0, regularizer=lambda h: 0.25
    )
    sa, sens, _, _ = a._scores(X, y)
    sb, _, _, _ = b._scores(X, y)
    assert np.allclose(log_pmf(sa, sens, 1.0), log_pmf(sb, sens, 1.0))
    perm = [2, 0, 1]
    assert np.array_equal(a._scores(X[perm], y[perm])[0], sa)
    # Same seed, same output.
    grid = Grid(1.0, 2, num=7)
    Xg = np.random.default_rng(0).uniform(-1, 1, (50, 2))
    yg = (Xg[:, 0] > 0).astype(int)
    h1 = ExponentialMechanismERM("zero_one", grid, 1.0, rng=42).fit(Xg, yg).hypothesis_
    h2 = ExponentialMechanismERM("zero_one", grid, 1.0, rng=42).fit(Xg, yg).hypothesis_
    assert h1 == h2


def test_huge_n_and_beta_give_the_minimiser():
    """n = 2e6 records, beta = eps n / 4 = 5e6: no overflow or NaN; the minimiser is returned."""
    n = 2_000_000
    x = np.linspace(0.0, 1.0, n)
    y = (x >= 0.3).astype(int)
    cands = ThresholdCandidates([0.1, 0.3, 0.5, 0.9])
    for rng in range(5):
        est = ExponentialMechanismERM("zero_one", cands, 10.0, rng=rng).fit(x, y)
        assert est.hypothesis_.t == 0.3
    t = (
        ExponentialMechanismERM("zero_one", ContinuousThresholds(), 10.0, rng=1)
        .fit(x[::20], y[::20])
        .hypothesis_.t
    )
    assert 0.2999 < t <= 0.3000001


# ---------------------------------------------------------------------------------------------
# Candidate sets and scoring
# ---------------------------------------------------------------------------------------------


def test_grid_construction():
    g = Grid(1.0, 2, num=5)
    assert len(g) == 25 and g.coef.min() == -1.0 and g.coef.max() == 1.0  # linspace: no overshoot
    assert g.spacing == 0.5
    gb = Grid(1.0, 2, num=5, ball=True)
    assert np.all(np.linalg.norm(gb.coef, axis=1) <= 1.0 + 1e-12) and len(gb) == 13
    gi = Grid(1.0, 1, num=3, intercept_radius=2.0)
    assert len(gi) == 9 and set(gi.intercept) == {-2.0, 0.0, 2.0}
    with pytest.raises(InvalidParameterError, match="num"):
        Grid(1.0, 10, num=10)


def test_linear_kernel_matches_numpy():
    g = np.random.default_rng(13)
    X = g.uniform(-1, 1, (123, 3))
    y01 = (g.random(123) < 0.5).astype(int)
    yr = g.normal(size=123)
    C = LinearCandidates(g.normal(size=(17, 3)), g.normal(size=17))
    p = X @ C.coef.T + C.intercept  # (n, N)
    s = np.where(y01 > 0.5, 1.0, -1.0)[:, None]
    expected = {
        "hinge": np.maximum(0, 1 - s * p),
        "logistic": np.logaddexp(0, -s * p),
        "zero_one": ((p >= 0) != (y01[:, None] > 0.5)).astype(float),
    }
    for name, vals in expected.items():
        loss = _resolve_loss(name, 2.0)
        tot = C.totals(X, y01, loss, 20) / 2.0**20 * 2.0
        assert np.allclose(tot, np.clip(vals, 0, 2.0).sum(axis=0), atol=123 * 2.0 / 2**21)
    loss = _resolve_loss("squared", 5.0)
    tot = C.totals(X, yr, loss, 20) / 2.0**20 * 5.0
    assert np.allclose(
        tot, np.clip((p - yr[:, None]) ** 2, 0, 5).sum(axis=0), atol=123 * 5.0 / 2**21
    )


@pytest.mark.parametrize(
    "cls,dim", [(Thresholds("both"), 1), (Halfspaces(2), 2), (Intervals(), 1), (Rectangles(2), 2)]
)
def test_reference_dichotomies_score_private_points(cls, dim):
    """Representatives computed on public points, scored on other (private) points, agree with
    the class's own predictions."""
    g = np.random.default_rng(14)
    public = g.random((12, dim)) if dim > 1 else g.random(12)
    private = g.random((40, dim)) if dim > 1 else g.random(40)
    y = (g.random(40) < 0.5).astype(int)
    cands = ReferenceDichotomies(cls, public)
    Xp = private.reshape(40, -1)
    got = cands.totals(Xp, y, _resolve_loss("zero_one", None), 0)
    want = [
        int(np.count_nonzero(cls.predict(cands.hypothesis(i), private) != y.astype(bool)))
        for i in range(len(cands))
    ]
    assert list(got) == want
    est = ExponentialMechanismERM("zero_one", cands, 2.0, rng=1).fit(Xp, y)
    assert np.array_equal(est.predict(Xp), cls.predict(est.hypothesis_, private).astype(int))


def test_finite_candidates_with_a_user_loss():
    """K-means-style user loss on explicit candidates (two centres on a grid)."""
    grid = np.linspace(0, 1, 11)
    centres = [(a, b) for a in grid for b in grid if a <= b]
    loss = lambda h, X, y: np.min((X[:, :1] - np.array(h)[None, :]) ** 2, axis=1)  # noqa: E731
    g = np.random.default_rng(15)
    X = np.r_[g.normal(0.2, 0.03, 200), g.normal(0.8, 0.03, 200)].reshape(-1, 1)
    est = ExponentialMechanismERM(loss, FiniteCandidates(centres), 5.0, loss_bound=1.0, rng=2).fit(
        X, np.zeros(400)
    )
    assert abs(est.hypothesis_[0] - 0.2) <= 0.1 and abs(est.hypothesis_[1] - 0.8) <= 0.1
    with pytest.raises(InvalidParameterError, match="predict"):
        est.predict(X)
    bad = lambda h, X, y: np.zeros(3)  # noqa: E731
    with pytest.raises(InvalidParameterError, match="loss"):
        ExponentialMechanismERM(bad, FiniteCandidates(centres), 1.0, loss_bound=1.0).fit(
            X, np.zeros(400)
        )


def test_best_subset_finds_the_support():
    g = np.random.default_rng(16)
    X = g.uniform(-1, 1, (2000, 10))
    y = np.clip(0.8 * X[:, 3] + 0.05 * g.normal(size=2000), -1, 1)
    est = BestSubsetERM("clipped_squared", 2.0, 1, num=9, rng=3).fit(X, y)
    assert est.support_ == (3,) and np.count_nonzero(est.coef_) == 1
    assert abs(est.coef_[3] - 0.75) <= 0.25
    assert est.predict(X).shape == (2000,)


@pytest.mark.parametrize("eps, split", [(0.1, 0.1), (0.3, 0.7), (0.7, 0.9), (1.0, 0.2)])
def test_best_subset_stage_epsilons_add_up_to_at_most_the_charge(monkeypatch, eps, split):
    # These (eps, split) pairs have float eps*split + eps*(1-split) above eps: the two stages'
    # epsilons must be rounded so that their exact sum (basic composition) is within the charge.
    from fractions import Fraction

    import privlearn.learners.erm_wrappers as wrappers

    seen = []
    real = wrappers.exponential

    def spy(scores, epsilon, sensitivity=1.0, **kw):
        seen.append(epsilon)
        return real(scores, epsilon, sensitivity, **kw)

    monkeypatch.setattr(wrappers, "exponential", spy)
    g = np.random.default_rng(5)
    X = g.uniform(-1, 1, (200, 3))
    y = np.clip(X[:, 0], -1, 1)
    acct = Accountant(Budget(eps))
    BestSubsetERM("clipped_squared", eps, 1, num=3, split=split, accountant=acct, rng=1).fit(X, y)
    assert len(seen) == 2 and min(seen) > 0
    assert Fraction(seen[0]) + Fraction(seen[1]) <= Fraction(acct.spent.epsilon) <= Fraction(eps)


def test_subsampled_defaults_to_sqrt_n():
    base = ExponentialMechanismERM("zero_one", ThresholdCandidates(np.linspace(0, 1, 11)), 1.0)
    X = np.random.default_rng(17).random((100, 1))
    y = (X[:, 0] > 0.5).astype(int)
    est = SubsampledERM(base, rng=1).fit(X, y)
    assert est.subsample_size_ == 10
    assert est.privacy_.epsilon == pytest.approx(math.log1p(0.1 * math.expm1(1.0)))
    assert est.privacy_.epsilon <= 2 / math.sqrt(100) * (math.e - 1 / math.e)  # Lemma 4
    assert not hasattr(est, "indices_") and not hasattr(est, "subsample_")  # the sample is secret
    full = SubsampledERM(base, 100, rng=1).fit(X, y)
    assert full.privacy_ == Budget(1.0)  # m = n: no amplification


# ---------------------------------------------------------------------------------------------
# Theory functions
# ---------------------------------------------------------------------------------------------


def test_bound_functions():
    assert excess_risk_bound(1000, 1.0, 441) == pytest.approx(4 * (math.log(441) + 1) / 1000)
    assert excess_risk_bound(1000, 1.0, 441, sensitivity="tight") == pytest.approx(
        2 * (math.log(441) + 1) / 1000
    )
    assert excess_risk_bound(100, 0.5, 10, regularizer_sup=0.01, loss_bound=2.0) == pytest.approx(
        2 * 4 / 100 * (math.log(10) + 1) / 0.5 + 0.02
    )
    assert excess_risk_bound(100, 1.0, 10, lipschitz=2.0, spacing=0.1, dim=4, p=2) == pytest.approx(
        excess_risk_bound(100, 1.0, 10) + 2.0 * 2.0 * 0.1 / 2
    )
    l37 = excess_risk_bound(500, 0.3, 64, kind="lemma37")
    assert l37 == pytest.approx(9 * (2 * math.log(500) + math.log(64)) / (500 * 0.3))
    assert excess_risk_bound(500, 0.3, 64, kind="theorem19") == pytest.approx(l37 + 0.6)
    assert excess_risk_bound(500, 2.0, kind="theorem19", log_K=3.0, rho=2) == pytest.approx(
        9 * (4 * math.log(500) + 3.0) / 1000 + math.expm1(2.0)
    )
    assert example20_epsilon(1000, 10) == pytest.approx(math.sqrt((10 + math.log(1000)) / 1000))
    assert example21_epsilon(1000, 2, 3.0, 1.0) == pytest.approx(
        math.sqrt((2 * (math.log(3) + math.log(1000)) + 1) / 1000)
    )
    assert linear_loss_bound("hinge", 2, 3) == 7.0
    assert linear_loss_bound("logistic", 1, 2) == pytest.approx(math.log1p(math.exp(2)))
    assert linear_loss_bound("squared", 1, 1, 2) == 9.0
    assert len(reference_threshold_grid(2.0, 0.1)) == 21
    for bad in (
        dict(n=0, epsilon=1.0, n_candidates=3),
        dict(n=5, epsilon=0.0, n_candidates=3),
        dict(n=5, epsilon=1.0),
        dict(n=5, epsilon=1.0, n_candidates=3, kind="nope"),
    ):
        with pytest.raises(InvalidParameterError):
            excess_risk_bound(**bad)


# ---------------------------------------------------------------------------------------------
# Bad input, accounting, conventions
# ---------------------------------------------------------------------------------------------


def _ok_estimator(**kw):
    args = dict(loss="zero_one", hypotheses=ThresholdCandidates([0.2, 0.5]), epsilon=1.0)
    args.update(kw)
    return ExponentialMechanismERM(**args)


X1 = np.array([[0.1], [0.6], [0.9]])
Y1 = np.array([0, 1, 1])


@pytest.mark.parametrize(
    "kw,name",
    [
        (dict(loss="hinge", hypotheses=Grid(1.0, 1, num=3)), "loss_bound"),
        (dict(loss="squared", hypotheses=Grid(1.0, 1, num=3)), "loss_bound"),
        (
            dict(loss=lambda h, X, y: np.zeros(len(X)), hypotheses=FiniteCandidates([1])),
            "loss_bound",
        ),
        (dict(loss="cross_entropy"), "loss"),
        (dict(epsilon=0.0), "epsilon"),
        (dict(epsilon=-1.0), "epsilon"),
        (dict(epsilon=float("nan")), "epsilon"),
        (dict(epsilon=float("inf")), "epsilon"),
        (dict(sensitivity="loose"), "sensitivity"),
        (dict(hypotheses=None), "hypotheses"),
        (dict(hypotheses=Halfspaces(1)), "hypotheses"),
        (dict(loss="hinge", loss_bound=1.0), "loss"),  # thresholds are 0-1 only
        (dict(loss_bound=-1.0), "loss_bound"),
        (dict(regularizer="l2"), "regularizer"),
        (dict(hypotheses=ContinuousThresholds(), regularizer=0.1), "regularizer"),
    ],
)
def test_bad_parameters(kw, name):
    with pytest.raises(InvalidParameterError, match=name) as err:
        _ok_estimator(**kw).fit(X1, Y1)
    assert err.value.args[0].startswith(name) or name in str(err.value)


@pytest.mark.parametrize(
    "X,y,name",
    [
        (np.zeros((0, 1)), np.zeros(0), "X"),
        (np.array([[np.nan], [0.5], [0.2]]), Y1, "X"),
        (np.array([[np.inf], [0.5], [0.2]]), Y1, "X"),
        (X1, np.array([0, 1, np.nan]), "y"),
        (X1, np.array([0, 2, 1]), "y"),
        (X1, np.array([0, 1]), "y"),
        (np.ones((3, 2)), Y1, "X"),
    ],
)
def test_bad_data(X, y, name):
    est = _ok_estimator()
    with pytest.raises(InvalidParameterError, match=name):
        est.fit(X, y)
    assert not hasattr(est, "hypothesis_")  # nothing half-applied


def test_bad_candidate_sets_and_wrappers():
    with pytest.raises(InvalidParameterError, match="coef"):
        LinearCandidates(np.zeros((0, 2)))
    with pytest.raises(InvalidParameterError, match="hypotheses"):
        FiniteCandidates([])
    with pytest.raises(InvalidParameterError, match="thresholds"):
        ThresholdCandidates([np.nan])
    with pytest.raises(InvalidParameterError, match="interval"):
        ContinuousThresholds(1.0, 1.0)
    base = _ok_estimator()
    with pytest.raises(InvalidParameterError, match="m"):
        SubsampledERM(base, 4).fit(X1, Y1)
    with pytest.raises(InvalidParameterError, match="base"):
        SubsampledERM(_ok_estimator(accountant=Accountant(Budget(1.0)))).fit(X1, Y1)
    for delta in (0.0, 1.0, 1.5, -0.1):
        with pytest.raises(InvalidParameterError, match="delta"):
            BoostedERM(base, delta=delta).fit(X1, Y1)
    with pytest.raises(InvalidParameterError, match="X"):
        BoostedERM(base, delta=0.01).fit(X1, Y1)  # a + 1 = 7 parts > 3 records
    with pytest.raises(InvalidParameterError, match="sparsity"):
        BestSubsetERM("clipped_squared", 1.0, 3).fit(np.ones((5, 2)), np.zeros(5))


def test_accounting_charges_once_and_refuses_before_drawing():
    acct = Accountant(Budget(1.0))
    _ok_estimator(epsilon=0.25, accountant=acct, rng=1).fit(X1, Y1)
    assert acct.spent == Budget(0.25) and len(acct.ledger) == 1
    gen = Generator(3)
    with pytest.raises(BudgetExceededError):
        _ok_estimator(epsilon=0.9, accountant=acct, rng=gen).fit(X1, Y1)
    assert gen.random_raw() == Generator(3).random_raw()  # nothing drawn
    with pytest.raises(InvalidParameterError):
        _ok_estimator(epsilon=0.1, accountant=acct).fit(X1[:0], Y1[:0])
    assert acct.spent == Budget(0.25)
    # Wrappers charge their total guarantee, once.
    base = _ok_estimator(epsilon=1.0)
    a2 = Accountant(Budget(3.0))
    X = np.random.default_rng(0).random((50, 1))
    y = (X[:, 0] > 0.5).astype(int)
    sub = SubsampledERM(base, 5, accountant=a2, rng=1).fit(X, y)
    boost = BoostedERM(base, 0.2, accountant=a2, rng=1).fit(X, y)
    best = BestSubsetERM("clipped_squared", 0.5, 1, accountant=a2, rng=1).fit(np.c_[X, X], X[:, 0])
    cont = ExponentialMechanismERM(
        "zero_one", ContinuousThresholds(), 0.25, accountant=a2, rng=1
    ).fit(X, y)
    assert [e.budget for e in a2.ledger] == [
        sub.privacy_,
        boost.privacy_,
        best.privacy_,
        cont.privacy_,
    ]
    assert best.privacy_ == Budget(0.5) and cont.privacy_ == Budget(0.25)


def test_scikit_learn_conventions():
    from sklearn.base import clone
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    est = ExponentialMechanismERM("zero_one", Grid(1.0, 2, num=5), 2.0, rng=3)
    c = clone(est)
    assert c.get_params()["epsilon"] == 2.0 and not hasattr(c, "hypothesis_")
    X = np.random.default_rng(1).uniform(-1, 1, (80, 2))
    y = (X[:, 0] > 0).astype(int)
    pipe = make_pipeline(FunctionTransformer(lambda Z: Z * 0.5), est).fit(X, y)
    assert pipe.predict(X).shape == (80,)
    assert 0.0 <= pipe.score(X, y) <= 1.0
    assert est.n_features_in_ == 2 and est.privacy_ == Budget(2.0)
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        clone(est).predict(X)
    with pytest.raises(InvalidParameterError, match="X"):
        est.predict(np.ones((3, 3)))


@pytest.mark.parametrize(
    "name",
    [
        "privlearn.learners.erm",
        "privlearn.learners._erm_candidates",
        "privlearn.learners._erm_bounds",
        "privlearn.learners.erm_wrappers",
        "privlearn.learners.gibbs",
        "privlearn.accounting",
    ],
)
def test_doctests_and_docstrings(name):
    import inspect

    module = importlib.import_module(name)
    assert (
        doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE).failed
        == 0
    )
    for attr in getattr(module, "__all__", []):
        obj = getattr(module, attr)
        assert inspect.getdoc(obj), f"{name}.{attr}"
    for cls in (ExponentialMechanismERM, SubsampledERM, BoostedERM, BestSubsetERM):
        doc = inspect.getdoc(cls)
        assert "Privacy guarantee" in doc and "replace-one" in doc
