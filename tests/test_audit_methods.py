"""privlearn.audit: the (epsilon, delta), Gaussian-DP and trade-off audits (issue 21).

Every bound is checked against the exact value for laws known in closed form: small discrete
laws (the hockey-stick divergence ``sum_x max(0, P_a(x) - e^eps P_b(x))`` and the best event's
``Phi^-1(P_a(S)) - Phi^-1(P_b(S))`` by enumeration of all events) and Gaussians (the exact
``delta(epsilon)`` of Balle and Wang, ICML 2018, Thm. 8, and ``G_mu`` of Dong, Roth, Su, JRSS-B
2022). The checks "the bound does not exceed the truth" and "a correct claim passes" run at
``alpha = 1e-6`` (so each fails with probability at most 1e-6), and each is paired with a power
check: with many samples the bound comes close to the truth, and a wrong claim is refuted.
Seeds are fixed.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from scipy import special, stats

from privlearn.accounting import Budget
from privlearn.audit import (
    FALSE_POSITIVE_RATE,
    AuditResult,
    GaussianDP,
    TradeoffCurve,
    audit,
    delta_lower_bound,
    epsilon_lower_bound,
    mu_lower_bound,
    tradeoff_curve,
    tradeoff_function,
)
from privlearn.errors import InvalidParameterError

ALPHA = FALSE_POSITIVE_RATE  # 1e-6
N = 1_000_000

# Two laws on {0, 1, 2}.
PA = np.array([0.5, 0.3, 0.2])
PB = np.array([0.2, 0.3, 0.5])


def _discrete(p, n, seed):
    return np.random.default_rng(seed).choice(len(p), size=n, p=p)


def _true_delta(pa, pb, eps):
    """Hockey-stick divergence at e^eps, the larger of both directions."""
    e = math.exp(eps)
    return max(np.maximum(pa - e * pb, 0).sum(), np.maximum(pb - e * pa, 0).sum())


def _best_event_mu(pa, pb):
    """max over all events S (both directions) of Phi^-1(P_a(S)) - Phi^-1(P_b(S))."""
    best = 0.0
    k = len(pa)
    for r in range(1, k):
        for s in itertools.combinations(range(k), r):
            qa, qb = pa[list(s)].sum(), pb[list(s)].sum()
            d = special.ndtri(qa) - special.ndtri(qb)
            best = max(best, abs(d))
    return best


def _gaussian_delta(sigma, eps, sens=1.0):
    """Exact delta(eps) of the Gaussian mechanism (Balle and Wang, ICML 2018, Thm. 8)."""
    m = sens / sigma
    return stats.norm.cdf(m / 2 - eps / m) - math.exp(eps) * stats.norm.cdf(-m / 2 - eps / m)


def _analytic_sigma(eps, delta):
    """The analytic Gaussian calibration by bisection on the exact delta(eps) (decreasing in
    sigma): the smallest sigma with delta(eps) <= delta, up to 1e-12 relative."""
    lo, hi = 1e-3, 1e3
    while hi / lo > 1 + 1e-12:
        mid = math.sqrt(lo * hi)
        if _gaussian_delta(mid, eps) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def _gauss(centre, sigma):
    return lambda g, size: centre + g.normal(0.0, sigma, size=size)


# --------------------------------------------------------------------------------------------
# tradeoff_function and GaussianDP
# --------------------------------------------------------------------------------------------


def test_tradeoff_function_matches_the_closed_forms():
    a = np.linspace(0.0, 1.0, 101)
    # pure epsilon: the two lines through (0, 1) and (1, 0) with slopes -e^eps and -e^-eps
    eps = 0.7
    want = np.maximum.reduce([np.zeros_like(a), 1 - math.exp(eps) * a, math.exp(-eps) * (1 - a)])
    np.testing.assert_allclose(tradeoff_function(eps, a), want)
    np.testing.assert_allclose(tradeoff_function(Budget(eps, 0.0), a), want)
    # (eps, delta): the same lines lowered by delta
    d = 0.05
    f = tradeoff_function((eps, d), a)
    want = np.maximum.reduce(
        [np.zeros_like(a), 1 - d - math.exp(eps) * a, math.exp(-eps) * (1 - d - a)]
    )
    np.testing.assert_allclose(f, want)
    # GDP: the trade-off of N(0, 1) vs N(mu, 1): a test rejecting at x > t has type I
    # 1 - Phi(t) and type II Phi(t - mu)
    t = np.linspace(-4, 5, 50)
    np.testing.assert_allclose(
        tradeoff_function(GaussianDP(1.3), stats.norm.sf(t)), stats.norm.cdf(t - 1.3), atol=1e-12
    )
    assert tradeoff_function(GaussianDP(1.0), [0.0, 1.0]).tolist() == [1.0, 0.0]
    # every curve is symmetric: f(f(a)) = a on the part where f is strictly decreasing
    for claim in (eps, (eps, d), GaussianDP(1.0)):
        f = tradeoff_function(claim, a)
        inner = (f > 0) & (a > 0)
        np.testing.assert_allclose(tradeoff_function(claim, f)[inner], a[inner], atol=1e-9)


@pytest.mark.parametrize("mu", [0, -1.0, math.nan, math.inf, True, "1", None])
def test_gaussian_dp_refuses_bad_mu(mu):
    with pytest.raises(InvalidParameterError) as err:
        GaussianDP(mu)
    assert err.value.parameter == "mu"


def test_tradeoff_function_refuses_bad_input():
    for bad in ([-0.1], [1.5], [math.nan], ["x"]):
        with pytest.raises(InvalidParameterError) as err:
            tradeoff_function(1.0, bad)
        assert err.value.parameter == "type1"
    with pytest.raises(InvalidParameterError) as err:
        tradeoff_function((1.0, 1.0), [0.5])
    assert err.value.parameter == "claimed"


# --------------------------------------------------------------------------------------------
# delta_lower_bound and mu_lower_bound against exact laws
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0])
def test_delta_lower_bound_on_discrete_laws(eps):
    truth = _true_delta(PA, PB, eps)
    a, b = _discrete(PA, N, 1), _discrete(PB, N, 2)
    got = delta_lower_bound(a, b, eps, alpha=ALPHA)
    assert got <= truth  # fails with probability <= 1e-6
    assert got >= truth - 0.02  # power: close with 10^6 samples
    # swapping the sides bounds the same divergence (it is the larger of both directions)
    assert abs(delta_lower_bound(b, a, eps, alpha=ALPHA) - got) < 0.02
    # explicit thresholds (chosen in advance): x <= 0 is the best event
    fixed = delta_lower_bound(a, b, eps, alpha=ALPHA, events=[0.5, 1.5])
    assert truth - 0.01 <= fixed <= truth


def test_delta_lower_bound_is_zero_at_the_true_epsilon():
    eps = math.log(PA[0] / PB[0])  # the largest likelihood ratio: delta(eps) = 0
    a, b = _discrete(PA, N, 3), _discrete(PB, N, 4)
    assert delta_lower_bound(a, b, eps, alpha=ALPHA) == 0.0
    assert delta_lower_bound(a, b, 0.9 * eps, alpha=ALPHA) > 0.0  # power: just below it


def test_mu_lower_bound_on_discrete_laws():
    truth = _best_event_mu(PA, PB)
    a, b = _discrete(PA, N, 5), _discrete(PB, N, 6)
    got = mu_lower_bound(a, b, alpha=ALPHA)
    assert got <= truth
    assert got >= truth - 0.03


def test_mu_lower_bound_on_gaussians():
    g = np.random.default_rng(7)
    a, b = g.normal(1.0, 1.0, N), g.normal(0.0, 1.0, N)  # exactly 1-GDP
    got = mu_lower_bound(a, b, alpha=ALPHA)
    assert 0.9 <= got <= 1.0


def test_the_bounds_agree_at_one_event():
    """At one event, lo - e^eps hi > delta exactly when ln((lo - delta) / hi) > eps."""
    a, b = _discrete(PA, 200_000, 8), _discrete(PB, 200_000, 9)
    for eps in (0.2, 0.5, 0.7):
        d = delta_lower_bound(a, b, eps, alpha=ALPHA, events=[0.5])
        e_at_d = epsilon_lower_bound(a, b, alpha=ALPHA, delta=d * (1 - 1e-9), events=[0.5])
        e_above = epsilon_lower_bound(a, b, alpha=ALPHA, delta=d * 1.001 + 1e-12, events=[0.5])
        assert d > 0 and e_at_d >= eps - 1e-6 and e_above <= eps + 1e-6


# --------------------------------------------------------------------------------------------
# audit(): hockey-stick (Gaussian mechanism, analytic calibration) and Gaussian DP
# --------------------------------------------------------------------------------------------


def test_gaussian_mechanism_hockey_stick_audit():
    eps, delta = 1.0, 1e-2
    sigma = _analytic_sigma(eps, delta)
    assert abs(_gaussian_delta(sigma, eps) - delta) < 1e-9
    run_a, run_b = _gauss(0.0, sigma), _gauss(1.0, sigma)  # sensitivity 1
    ok = audit(run_a, run_b, (eps, delta), n=N, alpha=ALPHA, rng=1)
    assert ok.method == "hockey-stick" and ok.quantity == "delta"
    assert ok.passed and ok.bound <= delta, ok
    assert ok.bound > delta / 2  # the bound is informative
    # the same mechanism claimed with a delta 10x too small is refuted
    bad = audit(run_a, run_b, Budget(eps, delta / 10), n=N, alpha=ALPHA, rng=2)
    assert not bad.passed and bad.bound > delta / 10, bad
    assert bad.event is not None and bad.event.bound == bad.bound
    # the epsilon method is still available for delta claims
    res = audit(run_a, run_b, (eps, delta), n=N, alpha=ALPHA, rng=1, method="epsilon")
    assert res.quantity == "epsilon" and res.passed and res.bound <= eps


def test_gaussian_dp_audit():
    mu = 1.0
    run_a, run_b = _gauss(0.0, 1.0), _gauss(mu, 1.0)
    ok = audit(run_a, run_b, GaussianDP(mu), n=N, alpha=ALPHA, rng=3)
    assert ok.method == "tradeoff" and ok.quantity == "mu" and ok.claimed_mu == mu
    assert ok.claimed_epsilon == math.inf and ok.claimed_delta == 0.0
    assert ok.passed and 0.9 < ok.bound <= mu, ok
    assert isinstance(ok.tradeoff, TradeoffCurve)
    assert ok.tradeoff.worst_violation(GaussianDP(mu)) <= 0
    bad = audit(run_a, run_b, GaussianDP(mu / 2), n=N, alpha=ALPHA, rng=4)
    assert not bad.passed and bad.bound > mu / 2, bad
    assert bad.tradeoff is not None and bad.tradeoff.worst_violation(GaussianDP(mu / 2)) > 0


def test_tradeoff_method_for_an_epsilon_delta_claim():
    sigma = _analytic_sigma(1.0, 1e-2)
    res = audit(
        _gauss(0.0, sigma),
        _gauss(1.0, sigma),
        (1.0, 1e-2),
        n=200_000,
        alpha=ALPHA,
        rng=5,
        method="tradeoff",
    )
    assert res.method == "tradeoff" and res.quantity == "delta" and res.passed
    assert res.tradeoff is not None and res.tradeoff.worst_violation((1.0, 1e-2)) <= 0
    assert res.tradeoff.worst_violation((0.5, 0.0)) > 0  # not pure 0.5-DP
    # statistics and result serialisation
    d = res.to_dict()
    text = json.dumps(d, allow_nan=False)
    assert json.loads(text)["quantity"] == "delta"
    assert len(d["tradeoff"]["type1"]) <= 512 and d["tradeoff"]["worst_violation"] <= 0
    assert "delta at epsilon=1" in str(res) and "passed" in str(res)


def test_pure_claims_keep_the_epsilon_audit():
    res = audit(_gauss(0.0, 1.0), _gauss(1.0, 1.0), 2.0, n=100_000, alpha=ALPHA, rng=6)
    assert res.method == "epsilon" and res.quantity == "epsilon" and res.tradeoff is None
    hs = audit(
        _gauss(0.0, 1.0),
        _gauss(1.0, 1.0),
        2.0,
        n=100_000,
        alpha=ALPHA,
        rng=6,
        method="hockey-stick",
    )
    assert hs.quantity == "delta" and hs.claimed_value == 0.0
    assert not hs.passed  # the Gaussian is not pure DP: delta(2) > 0 is found


def test_audit_result_defaults_and_dict():
    res = AuditResult(0.5, 1.0, 0.0, True, 10, None, 1e-3)
    assert (res.quantity, res.method, res.claimed_mu, res.tradeoff, res.distinguisher) == (
        "epsilon",
        "epsilon",
        None,
        None,
        None,
    )
    d = res.to_dict()
    assert d["verdict"] == "passed" and d["bound"] == 0.5 and d["event"] is None
    json.dumps(d, allow_nan=False)
    g = AuditResult(0.2, math.inf, 0.0, True, 10, None, 1e-3, "mu", "tradeoff", 1.0)
    assert g.to_dict()["claimed_epsilon"] is None and "1-GDP" in str(g)
    assert g.claimed_value == 1.0


# --------------------------------------------------------------------------------------------
# tradeoff_curve
# --------------------------------------------------------------------------------------------


def test_tradeoff_band_contains_the_gaussian_curve():
    mu = 1.0
    g = np.random.default_rng(10)
    curve = tradeoff_curve(g.normal(mu, 1.0, N), g.normal(0.0, 1.0, N), alpha=ALPHA)
    w = math.sqrt(math.log(4 / ALPHA) / (2 * N))  # DKW-Massart, alpha / 2 per side
    assert curve.width_a == pytest.approx(w) and curve.width_b == pytest.approx(w)
    # upper bounds are above the truth everywhere (the band holds), so no violation
    assert curve.worst_violation(GaussianDP(mu)) <= 0
    # ... and the band is tight: the empirical points lie on the true curve within the band
    truth = tradeoff_function(GaussianDP(mu), curve.type1_hat)
    assert np.all(curve.type2_hat >= truth - 2 * w - 0.005)
    inner = (curve.type1_hat > 0.05) & (curve.type1_hat < 0.95)
    assert np.max(np.abs(curve.type2_hat - truth)[inner]) < 4 * w
    # power: a claim 20% too strong is refuted
    assert curve.worst_violation(GaussianDP(0.8 * mu)) > 0
    # the points are a frontier sorted by type I, type II decreasing
    assert np.all(np.diff(curve.type1) >= 0) and np.all(np.diff(curve.type2) < 0)
    assert np.all(curve.type1 >= curve.type1_hat) and np.all(curve.type2 >= curve.type2_hat)
    small = curve.downsampled()
    assert len(small.type1) <= 512 and small.worst_violation(GaussianDP(0.8 * mu)) > 0


def test_tradeoff_curve_on_discrete_laws():
    a, b = _discrete(PA, 100_000, 11), _discrete(PB, 100_000, 12)
    curve = tradeoff_curve(a, b, alpha=ALPHA)
    eps_true = math.log(PA[0] / PB[0])
    assert curve.worst_violation(eps_true) <= 0
    assert curve.worst_violation(0.5 * eps_true) > 0
    # exact points of the threshold tests: x <= 0 rejects b with type I 0.2 and type II 0.5
    i = np.argmin(np.abs(curve.type1_hat - 0.2) + np.abs(curve.type2_hat - 0.5))
    assert abs(curve.type1_hat[i] - 0.2) < 0.01 and abs(curve.type2_hat[i] - 0.5) < 0.01


# --------------------------------------------------------------------------------------------
# bad input: clear errors, before anything is drawn
# --------------------------------------------------------------------------------------------


def _never(g, size):
    raise AssertionError("drawn before the parameters were checked")


@pytest.mark.parametrize(
    "claimed, kwargs, param",
    [
        (GaussianDP(1.0), {"method": "epsilon"}, "method"),
        (GaussianDP(1.0), {"method": "hockey-stick"}, "method"),
        (1.0, {"method": "bogus"}, "method"),
        (1.0, {"method": None}, "method"),
        ((1.0, 2.0), {}, "claimed"),
        ("1", {}, "claimed"),
        (1.0, {"alpha": 0.0}, "alpha"),
        (1.0, {"distinguisher": "bogus"}, "distinguisher"),
    ],
)
def test_audit_refuses_bad_parameters_before_drawing(claimed, kwargs, param):
    with pytest.raises(InvalidParameterError) as err:
        audit(_never, _never, claimed, n=100, **kwargs)
    assert err.value.parameter == param


def test_tradeoff_needs_scalar_numbers():
    def vec(g, size):
        return g.normal(size=(size, 2))

    with pytest.raises(InvalidParameterError) as err:
        audit(vec, vec, GaussianDP(1.0), n=100, rng=0, statistic=lambda y: y > 0)
    assert err.value.parameter == "method"
    with pytest.raises(InvalidParameterError) as err:
        tradeoff_curve(np.zeros((10, 2)), np.zeros((10, 2)))
    assert err.value.parameter == "samples_a"
    with pytest.raises(InvalidParameterError) as err:
        tradeoff_curve(["a", "b"], ["a", "b"])
    assert err.value.parameter == "samples_a"
    with pytest.raises(InvalidParameterError) as err:
        tradeoff_curve([1.0, math.nan], [1.0])
    assert err.value.parameter == "samples_a"
    with pytest.raises(InvalidParameterError) as err:
        tradeoff_curve([1.0], [1.0], alpha=1.0)
    assert err.value.parameter == "alpha"


@pytest.mark.parametrize("eps", [-1.0, math.inf, math.nan, None])
def test_delta_lower_bound_refuses_bad_epsilon(eps):
    with pytest.raises(InvalidParameterError) as err:
        delta_lower_bound([0, 1], [0, 1], eps)
    assert err.value.parameter == "epsilon"


def test_distinguisher_scores_real_vectors_without_a_statistic():
    """Real vector outputs audited through a learned distinguisher's held-out scores: the
    Gaussian mechanism on R^3 with a shift of norm 1 is 1-GDP, not 0.5-GDP."""
    shift = np.array([0.6, 0.8, 0.0])

    def learned(mu, seed):
        def run(centre):
            return lambda g, size: centre + g.normal(0.0, 1.0, size=(size, 3))

        return audit(
            run(0.0),
            run(shift),
            GaussianDP(mu),
            n=100_000,
            alpha=ALPHA,
            rng=seed,
            distinguisher="logistic",
        )

    ok = learned(1.0, 12)
    assert ok.passed and ok.distinguisher is not None and ok.tradeoff is not None, ok
    assert ok.tradeoff.n_a == ok.tradeoff.n_b < 100_000  # only the held-out scores
    bad = learned(0.5, 13)
    assert not bad.passed and bad.bound > 0.5, bad
    assert json.loads(json.dumps(bad.to_dict()))["distinguisher"] == bad.distinguisher
