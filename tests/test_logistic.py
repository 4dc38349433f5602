"""Private logistic regression (issue 19): DP gradient descent and objective perturbation with
Redberg, Koskela and Wang's RDP analysis (replace-one).

Calibration tests derive the noise law in the test, from the papers' formulas (zCDP of the
Gaussian steps; RKW's Rényi bound with ``L -> 2L`` recomputed with mpmath), never from the
estimator's private helpers; the objective noise ``b`` is recovered from the released model
(``b = -(grad L(theta) + lam theta)``) and tested against ``N(0, sigma^2)`` with a power check
at half the noise; audits run on worst-case neighbours with power checks.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats
from scipy.special import expit

from privlearn import _core
from privlearn.accounting import Accountant, Budget
from privlearn.accounting._calibrate import zcdp_rho_for
from privlearn.accounting._convert import rdp_to_dp, zcdp_to_dp
from privlearn.accounting._rdp import RDP_ORDERS
from privlearn.audit import audit
from privlearn.errors import InvalidParameterError
from privlearn.learners.logistic import DPGradientDescentClassifier, ObjectivePerturbationLogistic
from replay import Tap

ALPHA = 1e-6  # false-positive rate of every statistical test here
B = 2.0


def _data(n=40, d=2, seed=0):
    g = np.random.default_rng(seed)
    X = g.uniform(-1, 1, (n, d))
    X *= np.minimum(1.0, 0.95 * B / np.linalg.norm(X, axis=1))[:, None]
    y = (X[:, 0] + 0.3 * g.normal(size=n) > 0).astype(int)
    return X, y


# --------------------------------------------------------------------------------------------
# Bad input: clear errors, nothing charged
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [DPGradientDescentClassifier, ObjectivePerturbationLogistic])
@pytest.mark.parametrize(
    "kwargs, X_bad, param",
    [
        (dict(data_norm=None), None, "data_norm"),
        (dict(classes=None), None, "classes"),
        (dict(delta=None), None, "delta"),
        (dict(delta=1.0), None, "delta"),
        (dict(delta=0.0), None, "delta"),
        (dict(), "nan", "X"),
        (dict(), "shape", "y"),
        (dict(), "labels", "y"),
    ],
)
def test_bad_input_charges_nothing(cls, kwargs, X_bad, param):
    X, y = _data()
    if X_bad == "nan":
        X = X.copy()
        X[3, 1] = np.nan
    elif X_bad == "shape":
        y = y[:-1]
    elif X_bad == "labels":
        y = y + 5
    acc = Accountant(Budget(10.0, 1e-3))
    args = dict(delta=1e-6, data_norm=B, classes=[0, 1], accountant=acc)
    args.update(kwargs)
    with pytest.raises(InvalidParameterError) as err:
        cls(1.0, **args).fit(X, y)
    assert err.value.parameter == param
    assert acc.spent == Budget(0.0, 0.0) and not acc.ledger


@pytest.mark.parametrize(
    "kwargs, param",
    [
        (dict(alpha=0.0), "alpha"),  # alpha > 0: the strong convexity of the analysis
        (dict(alpha=-1.0), "alpha"),
        (dict(alpha=True), "alpha"),  # exact: a bool is not a number
        (dict(alpha=Fraction(1, 3)), "alpha"),  # exact: a rational is not rounded to a float
        (dict(learning_rate=Fraction(1, 3)), "learning_rate"),
        (dict(max_iter=0), "max_iter"),
        (dict(learning_rate="fast"), "learning_rate"),  # only "auto" among strings
        (dict(learning_rate=0.0), "learning_rate"),
        (dict(learning_rate=-0.5), "learning_rate"),
        (dict(learning_rate=True), "learning_rate"),
    ],
)
def test_dpgd_bad_hyperparameters_charge_nothing(kwargs, param):
    X, y = _data()
    acc = Accountant(Budget(10.0, 1e-3))
    args = dict(delta=1e-6, data_norm=B, classes=[0, 1], accountant=acc, **kwargs)
    with pytest.raises(InvalidParameterError) as err:
        DPGradientDescentClassifier(1.0, **args).fit(X, y)
    assert err.value.parameter == param
    assert str(err.value).startswith(param + ":")
    assert acc.spent == Budget(0.0, 0.0) and not acc.ledger


def test_dpgd_numeric_learning_rate_is_used():
    """A declared step size runs (and is the step: a different one gives another model for the
    same seed and the same noise law)."""
    X, y = _data()
    fits = [
        DPGradientDescentClassifier(
            1.0, delta=1e-6, data_norm=B, classes=[0, 1], learning_rate=lr, max_iter=5, rng=3
        ).fit(X, y)
        for lr in (0.1, 0.2)
    ]
    assert all(np.all(np.isfinite(f.coef_)) for f in fits)
    assert not np.array_equal(fits[0].coef_, fits[1].coef_)


# --------------------------------------------------------------------------------------------
# DP-GD calibration: the sigma the sampler receives, derived from zCDP in the test
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("eps, steps, d", [(0.5, 5, 2), (1.0, 20, 3), (5.0, 3, 5)])
def test_dpgd_step_sigma_from_zcdp(eps, steps, d):
    X, y = _data(d=d)
    dim = d + 1  # the intercept column
    delta = 1e-6
    acc = Accountant(Budget(100.0, 1e-3))
    with Tap() as tap:
        DPGradientDescentClassifier(
            eps, delta, data_norm=B, max_iter=steps, classes=[0, 1], accountant=acc, rng=3
        ).fit(X, y)
    calls = [c for c in tap.calls if c.name == "discrete_gaussian"]
    assert len(calls) == steps
    # Replace-one sensitivity of the gradient sum: 2 R with R = 1 (rows normalised into the
    # unit ball; |l'| <= 1). Grid of gaussian_noise: the largest power of two <= 2 * 2^-20 /
    # sqrt(dim) (sigma > Delta here), sensitivity in grid units ceil(2/step) + ceil(sqrt(dim)).
    step = 2.0 ** math.floor(math.log2(2.0 * 2.0**-20 / math.sqrt(dim)))
    units = math.ceil(2.0 / step) + math.ceil(math.sqrt(dim))
    rho_step = zcdp_rho_for(eps, delta) / steps
    expected = units / math.sqrt(2.0 * rho_step)
    for c in calls:
        assert c.params["sigma"] == pytest.approx(expected, rel=1e-9)
        assert c.params["shape"] == (dim,)
    (entry,) = acc.ledger
    assert entry.budget == Budget(eps, delta)
    assert zcdp_to_dp(entry.event.to_zcdp(), delta).epsilon <= eps
    assert entry.event.to_zcdp().rho == pytest.approx(zcdp_rho_for(eps, delta), rel=1e-8)


# --------------------------------------------------------------------------------------------
# Objective perturbation: the charged curve against RKW's formula (L -> 2L), with mpmath
# --------------------------------------------------------------------------------------------

mpmath.mp.dps = 40


def _rkw_replace_one(alpha_order, sigma, lam, L=1.0, beta=0.25):
    """log(1 + beta/lam) + 2 L^2/sigma^2 + (1/(a-1)) log E exp((a-1)(2L/sigma)|Z|),
    E exp(u|Z|) = 2 exp(u^2/2) Phi(u)."""
    a = mpmath.mpf(alpha_order)
    s = 2 * mpmath.mpf(L) / mpmath.mpf(sigma)
    u = (a - 1) * s
    mgf = 2 * mpmath.exp(u * u / 2) * mpmath.ncdf(u)
    return (
        mpmath.log1p(mpmath.mpf(beta) / lam)
        + 2 * L**2 / mpmath.mpf(sigma) ** 2
        + mpmath.log(mgf) / (a - 1)
    )


def _output_curve(n, lam, dim, order):
    """AMP's output step: tau = 1e-9 n L, sensitivity 2 tau / lam, sigma 1000 times that, on
    gaussian_noise's grid (CKS20: alpha Delta_u^2 / (2 sigma_u^2))."""
    sens = 2.0 * 1e-9 * n / lam
    sigma = 1000.0 * sens
    step = 2.0 ** math.floor(math.log2(min(sens, sigma) * 2.0**-20 / math.sqrt(dim)))
    units = math.ceil(sens / step) + math.ceil(math.sqrt(dim))
    return order * units**2 / (2.0 * (sigma / step) ** 2)


@pytest.mark.parametrize("eps, lam", [(0.5, 30.0), (1.0, 5.0), (5.0, 0.5)])
def test_objpert_charged_curve_is_rkw_replace_one(eps, lam):
    X, y = _data(n=60, d=2)
    delta = 1e-6
    acc = Accountant(Budget(100.0, 1e-3))
    est = ObjectivePerturbationLogistic(
        eps, delta, data_norm=B, alpha=lam, classes=[0, 1], accountant=acc, rng=5
    ).fit(X, y)
    sigma = est.noise_sigma_  # the claimed noise, checked against b itself below
    (entry,) = acc.ledger
    assert entry.budget == Budget(eps, delta)
    charged = entry.event.to_rdp()
    for order, value in zip(RDP_ORDERS, charged.epsilons):
        expected = float(_rkw_replace_one(order, sigma, lam)) + _output_curve(60, lam, 3, order)
        assert expected <= value <= expected * (1 + 1e-9) + 1e-12, order
    assert rdp_to_dp(charged, delta).epsilon <= eps
    # Tight: 1% less noise no longer meets the claim (the calibration is not wasteful).
    from privlearn.accounting._rdp import RdpCurve

    smaller = RdpCurve(
        [
            float(_rkw_replace_one(o, 0.99 * sigma, lam)) + _output_curve(60, lam, 3, o)
            for o in RDP_ORDERS
        ]
    )
    assert rdp_to_dp(smaller, delta).epsilon > eps


def _recover_b(est, X, y, n_lam):
    """b = -(grad L(theta) + lam theta) at the released theta of the normalised problem
    (rows [x, B] / (B sqrt 2), labels +-1; no row is clipped here)."""
    scale = B * math.sqrt(2.0)
    Xn = np.hstack([X, np.full((len(X), 1), B)]) / scale
    w = np.append(est.coef_[0] * scale, est.intercept_[0] * scale / B)
    ys = np.where(y == 1, 1.0, -1.0)
    grad = Xn.T @ (-ys * expit(-ys * (Xn @ w)))
    return -(grad + n_lam * w)


def test_objpert_noise_goodness_of_fit():
    """The recovered b is N(0, sigma^2 I) (KS on the pooled coordinates, 200 fits x 3); the
    same samples reject N(0, (sigma/2)^2) (power)."""
    X, y = _data(n=30, d=2, seed=4)
    lam = 2.0
    samples, sigmas = [], set()
    for seed in range(200):
        est = ObjectivePerturbationLogistic(
            1.0, 1e-6, data_norm=B, alpha=lam, classes=[0, 1], rng=1000 + seed
        ).fit(X, y)
        sigmas.add(est.noise_sigma_)
        samples.append(_recover_b(est, X, y, lam))
    (sigma,) = sigmas
    b = np.concatenate(samples)
    assert stats.kstest(b, stats.norm(scale=sigma).cdf).pvalue > ALPHA
    assert stats.kstest(b, stats.norm(scale=sigma / 2).cdf).pvalue < ALPHA


# --------------------------------------------------------------------------------------------
# Audits on worst-case neighbours (one row, opposite labels), vectorised release maps
# --------------------------------------------------------------------------------------------


def _seed(g):
    return int(g.integers(2**63))


def _solve_1d(b, x, yv, lam):
    """argmin_theta l(theta x yv) + lam theta^2/2 + b theta (one row), by bisection."""
    lo = -(np.abs(b) + 1.0) / lam - 1.0
    hi = -lo
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        g = -yv * x * expit(-yv * x * mid) + lam * mid + b
        lo, hi = np.where(g < 0, mid, lo), np.where(g < 0, hi, mid)
    return 0.5 * (lo + hi)


def test_objpert_audit():
    """One row x = 1 (no intercept, data_norm 1), label +1 vs -1. In one dimension the two
    gradients differ by exactly s(theta) + s(-theta) = 1 = L at every theta (half the bound 2L;
    the bound is not attained by the logistic loss), and RKW's bound also pays the Jacobian and
    folded-normal terms: a quarter of the noise (half the noise at sensitivity 2L) reaches only
    ~0.87 eps here, so the power check uses a fifth. The exact-minimiser map with the learner's
    sigma passes; a fifth of the noise is caught."""
    eps, delta, lam = 1.0, 1e-6, 20.0
    X = np.ones((1, 1))
    est = ObjectivePerturbationLogistic(
        eps, delta, data_norm=1.0, alpha=lam, fit_intercept=False, classes=[-1, 1], rng=1
    ).fit(X, np.array([1]))
    sigma = est.noise_sigma_

    def run(yv, factor):
        def f(g, size):
            b = factor * sigma * np.random.default_rng(_seed(g)).standard_normal(size)
            return _solve_1d(b, 1.0, yv, lam)

        return f

    ok = audit(run(1.0, 1.0), run(-1.0, 1.0), claimed=(eps, delta), n=400_000, alpha=ALPHA, rng=1)
    assert ok.passed, ok
    bad = audit(run(1.0, 0.2), run(-1.0, 0.2), claimed=(eps, delta), n=400_000, alpha=ALPHA, rng=2)
    assert not bad.passed, bad


def test_dpgd_audit():
    """One step from 0 on one row x = 1 (label +1 vs -1): the gradient sums are -+1/2 (|l'(0)| =
    1/2, half the bound 2R: the worst case of the first step). The first step's release map with
    the sigma the sampler received passes; a quarter of the noise (the same privacy loss as half
    the noise at the full sensitivity 2) is caught."""
    eps, delta = 1.0, 1e-6
    X = np.ones((1, 1))
    with Tap() as tap:
        DPGradientDescentClassifier(
            eps, delta, data_norm=1.0, max_iter=1, fit_intercept=False, classes=[-1, 1], rng=1
        ).fit(X, np.array([1]))
    (call,) = [c for c in tap.calls if c.name == "discrete_gaussian"]
    sigma_units = call.params["sigma"]
    step = 2.0 ** math.floor(math.log2(2.0 * 2.0**-20))

    def run(grad, factor):
        def f(g, size):
            ints = np.full(size, int(round(grad / step)), dtype=np.int64)
            return _core.discrete_gaussian(ints, factor * sigma_units, _seed(g)) * step

        return f

    ok = audit(run(-0.5, 1.0), run(0.5, 1.0), claimed=(eps, delta), n=1_000_000, alpha=ALPHA, rng=3)
    assert ok.passed, ok
    bad = audit(
        run(-0.5, 0.25), run(0.5, 0.25), claimed=(eps, delta), n=1_000_000, alpha=ALPHA, rng=4
    )
    assert not bad.passed, bad


def test_privacy_guarantee_and_fit_quality():
    X, y = _data(n=400, d=2, seed=7)
    for cls in (DPGradientDescentClassifier, ObjectivePerturbationLogistic):
        est = cls(5.0, 1e-6, data_norm=B, classes=[0, 1], rng=2)
        assert est.privacy_guarantee(400) == Budget(5.0, 1e-6)
        est.fit(X, y)
        assert est.score(X, y) > 0.8
        p = est.predict_proba(X)
        assert p.shape == (400, 2) and np.allclose(p.sum(axis=1), 1.0)


# --------------------------------------------------------------------------------------------
# DP-GD with data_norm="private": the bound share, the steps' sigma from the rest, one charge
# --------------------------------------------------------------------------------------------


class _Inputs:
    """Records the integer input and the output of every ``_core.discrete_gaussian`` call
    (the tap of tests/replay.py records only its parameters for this sampler)."""

    def __init__(self, monkeypatch):
        self.calls = []
        inner = _core.discrete_gaussian

        def rec(value, sigma, rng):
            out = inner(value, sigma, rng)
            self.calls.append((np.array(value, copy=True), sigma, np.array(out, copy=True)))
            return out

        monkeypatch.setattr(_core, "discrete_gaussian", rec)


def _float_down(x):
    from fractions import Fraction

    f = float(x)
    return math.nextafter(f, -math.inf) if Fraction(f) > x else f


@pytest.mark.parametrize("eps, steps, d", [(0.5, 4, 2), (1.0, 10, 3), (5.0, 2, 4)])
def test_dpgd_private_bound_calibration(eps, steps, d, monkeypatch):
    """The exponential mechanism gets 0.1 epsilon (exact product, rounded down) with the count utility's
    replace-one sensitivity 1 (2^10 in its integer units); the steps get the zCDP left after
    the bound's bounded-range epsilon_b^2/8 (Cesar and Rogers): sigma = units / sqrt(2 (rho -
    epsilon_b^2/8) / T), derived here; one charge of Budget(eps, delta) whose zCDP total
    converts to at most eps; the rows are clipped to the released grid point."""
    from fractions import Fraction

    X, y = _data(n=60, d=d, seed=2)
    X = 3.0 * X  # norms up to 5.7: the bound is not trivially above every row
    dim = d + 1
    delta = 1e-6
    acc = Accountant(Budget(100.0, 1e-3))
    inputs = _Inputs(monkeypatch)
    with Tap() as tap:
        est = DPGradientDescentClassifier(
            eps, delta, data_norm="private", max_iter=steps, classes=[0, 1], accountant=acc, rng=4
        ).fit(X, y)
    (exp_call,) = [c for c in tap.calls if c.name == "exponential"]
    eps_b = _float_down(Fraction(eps) * Fraction(0.1))  # the float 0.1, exact product
    assert exp_call.epsilon == eps_b
    assert exp_call.sensitivity == 2.0**10
    assert tap.calls[0] is exp_call  # the bound is released before any gradient
    calls = [c for c in tap.calls if c.name == "discrete_gaussian"]
    assert len(calls) == steps
    step = 2.0 ** math.floor(math.log2(2.0 * 2.0**-20 / math.sqrt(dim)))
    units = math.ceil(2.0 / step) + math.ceil(math.sqrt(dim))
    rho_rest = zcdp_rho_for(eps, delta) - eps_b**2 / 8.0
    expected = units / math.sqrt(2.0 * rho_rest / steps)
    for c in calls:
        assert c.params["sigma"] == pytest.approx(expected, rel=1e-9)
        assert c.params["sigma"] >= expected * (1 - 1e-12)
    # The released bound is a point of the public grid 2^(k/8), and the first gradient is the
    # one of the rows clipped to it (intercept column = bound, all divided by bound sqrt 2).
    k = 8 * math.log2(est.data_norm_)
    assert k == pytest.approx(round(k), abs=1e-9)
    C = est.data_norm_
    Xc = X * np.minimum(1.0, C / np.linalg.norm(X, axis=1))[:, None]
    Xn = np.hstack([Xc, np.full((len(X), 1), C)]) / (C * math.sqrt(2.0))
    ys = np.where(y == 1, 1.0, -1.0)
    g0 = Xn.T @ (-ys * 0.5)
    assert np.allclose(inputs.calls[0][0] * step, g0, atol=4 * step, rtol=0)
    (entry,) = acc.ledger
    assert entry.budget == Budget(eps, delta)
    rho = entry.event.to_zcdp().rho
    assert rho <= zcdp_rho_for(eps, delta) * (1 + 1e-12)
    assert rho == pytest.approx(zcdp_rho_for(eps, delta), rel=1e-6)
    assert zcdp_to_dp(entry.event.to_zcdp(), delta).epsilon <= eps


@pytest.mark.parametrize(
    "data_norm, X_bad, param",
    [("bogus", None, "data_norm"), ("private", "nan", "X"), ("private", "shape", "y")],
)
def test_dpgd_private_bound_bad_input_charges_nothing(data_norm, X_bad, param):
    X, y = _data()
    if X_bad == "nan":
        X = X.copy()
        X[0, 0] = np.nan
    elif X_bad == "shape":
        y = y[:-1]
    acc = Accountant(Budget(10.0, 1e-3))
    with Tap() as tap, pytest.raises(InvalidParameterError) as err:
        DPGradientDescentClassifier(
            1.0, 1e-6, data_norm=data_norm, classes=[0, 1], accountant=acc, rng=0
        ).fit(X, y)
    assert err.value.parameter == param
    assert acc.spent == Budget(0.0, 0.0) and not acc.ledger and not tap.calls


def test_dpgd_private_bound_all_or_nothing():
    """An accountant that cannot pay the whole fit raises before the bound is drawn."""
    from privlearn.errors import BudgetExceededError

    X, y = _data()
    acc = Accountant(Budget(0.5, 1e-3))
    with Tap() as tap, pytest.raises(BudgetExceededError):
        DPGradientDescentClassifier(
            1.0, 1e-6, data_norm="private", classes=[0, 1], accountant=acc, rng=0
        ).fit(X, y)
    assert not tap.calls and not acc.ledger


def test_dpgd_release_map_is_fit(monkeypatch):
    """Pins the audited map of test_dpgd_audit to the estimator: one step from 0 on the row
    x = 1 (no intercept, data_norm 1, alpha 1e-4, eta = 1/(1/4 + alpha)) releases exactly
    -eta (sampler output * grid step) / n, and the sampler's input is the gradient sum -y/2
    on that grid, with the sigma the audit uses."""
    X = np.ones((1, 1))
    inputs = _Inputs(monkeypatch)
    step = 2.0 ** math.floor(math.log2(2.0 * 2.0**-20))
    eta = 1.0 / (0.25 + 1e-4)
    for label, grad in ((1, -0.5), (-1, 0.5)):
        inputs.calls.clear()
        est = DPGradientDescentClassifier(
            1.0, 1e-6, data_norm=1.0, max_iter=1, fit_intercept=False, classes=[-1, 1], rng=9
        ).fit(X, np.array([label]))
        ((value, sigma, out),) = inputs.calls
        assert value.tolist() == [round(grad / step)]
        assert est.coef_[0, 0] == pytest.approx(-eta * float(out[0]) * step, rel=1e-12)


def test_dpgd_private_bound_fit_quality():
    X, y = _data(n=2000, d=2, seed=8)
    est = DPGradientDescentClassifier(2.0, 1e-6, data_norm="private", classes=[0, 1], rng=3)
    assert est.fit(X, y).score(X, y) > 0.8
    assert 0.1 < est.data_norm_ < 2.0 * B


# --------------------------------------------------------------------------------------------
# DP-GD with center="private": private mean, private centred bound, steps; one charge
# --------------------------------------------------------------------------------------------


def _brute_force_mean_sensitivity(X, C0):
    """max ||mean(D) - mean(D')|| over replace-one neighbours of ``X`` (rows clipped to C0)
    whose replaced row is an extreme point (+-C0 e_j) or a data row."""

    def clipped(A):
        return A * np.minimum(1.0, C0 / np.maximum(np.linalg.norm(A, axis=1), 1e-300))[:, None]

    base = clipped(X)
    cands = [C0 * s * e for e in np.eye(X.shape[1]) for s in (1.0, -1.0)] + list(base)
    m0 = base.mean(axis=0)
    worst = 0.0
    for i in range(len(X)):
        for r in cands:
            D2 = base.copy()
            D2[i] = r
            worst = max(worst, float(np.linalg.norm(clipped(D2).mean(axis=0) - m0)))
    # and both rows replaced by opposite extremes (the pair that attains 2 C0 / n)
    D1, D2 = base.copy(), base.copy()
    D1[0], D2[0] = C0 * np.eye(X.shape[1])[0], -C0 * np.eye(X.shape[1])[0]
    return max(worst, float(np.linalg.norm(D1.mean(axis=0) - D2.mean(axis=0))))


@pytest.mark.parametrize("eps, steps, d", [(1.0, 5, 2), (3.0, 2, 3)])
def test_dpgd_center_calibration(eps, steps, d, monkeypatch):
    """The mean gets 0.2 of rho with the replace-one sensitivity 2 C0 / n (brute-forced here
    over neighbour pairs); then the exponential mechanism gets 0.1 epsilon on the centred norms
    (grid 2^(k/8) in [C0/64, 2 C0]); the steps get rho - rho_mean - epsilon_b^2/8; one charge;
    the first gradient is the one of the centred rows clipped to the released bound."""
    from fractions import Fraction

    n = 50
    X, y = _data(n=n, d=d, seed=5)
    X = X + 0.8  # rows off-centre (norms up to B + 0.8 sqrt(d)): some are clipped to C0 = B
    dim = d + 1
    delta = 1e-6
    acc = Accountant(Budget(100.0, 1e-3))
    inputs = _Inputs(monkeypatch)
    with Tap() as tap:
        est = DPGradientDescentClassifier(
            eps,
            delta,
            data_norm=B,
            center="private",
            max_iter=steps,
            classes=[0, 1],
            accountant=acc,
            rng=6,
        ).fit(X, y)
    rho = zcdp_rho_for(eps, delta)
    sens = _brute_force_mean_sensitivity(X, B)
    assert sens <= 2.0 * B / n * (1 + 1e-12) and sens == pytest.approx(2.0 * B / n)
    gauss = [c for c in tap.calls if c.name == "discrete_gaussian"]
    (exp_call,) = [c for c in tap.calls if c.name == "exponential"]
    assert tap.calls[0] is gauss[0] and tap.calls[1] is exp_call  # mean, bound, then steps
    assert len(gauss) == 1 + steps
    # the mean: grid step 2^floor(log2(min(sens, sigma) 2^-20 / sqrt(d))), sigma > sens here
    step_m = 2.0 ** math.floor(math.log2(sens * 2.0**-20 / math.sqrt(d)))
    units_m = math.ceil(sens / step_m) + math.ceil(math.sqrt(d))
    rho_m = 0.2 * rho
    assert gauss[0].params["sigma"] == pytest.approx(units_m / math.sqrt(2.0 * rho_m), rel=1e-9)
    assert gauss[0].params["shape"] == (d,)
    Xc = X * np.minimum(1.0, B / np.linalg.norm(X, axis=1))[:, None]
    assert np.allclose(inputs.calls[0][0] * step_m, Xc.mean(axis=0), atol=step_m, rtol=0)
    mu = inputs.calls[0][2] * step_m
    assert np.allclose(est.center_, mu, rtol=1e-15, atol=0)
    # the bound: 0.1 epsilon, public grid in [B/64, 2B]
    eps_b = _float_down(Fraction(eps) * Fraction(0.1))
    assert exp_call.epsilon == eps_b
    k = 8 * math.log2(est.data_norm_)
    assert k == pytest.approx(round(k), abs=1e-9)
    assert B / 64 <= est.data_norm_ <= 2 * B
    # the steps
    step = 2.0 ** math.floor(math.log2(2.0 * 2.0**-20 / math.sqrt(dim)))
    units = math.ceil(2.0 / step) + math.ceil(math.sqrt(dim))
    rho_mean_charged = units_m**2 / (2.0 * gauss[0].params["sigma"] ** 2)
    rho_rest = rho - rho_mean_charged - eps_b**2 / 8.0
    expected = units / math.sqrt(2.0 * rho_rest / steps)
    for c in gauss[1:]:
        assert c.params["sigma"] == pytest.approx(expected, rel=1e-9)
        assert c.params["sigma"] >= expected * (1 - 1e-12)
    C = est.data_norm_
    Z = Xc - mu
    Z = Z * np.minimum(1.0, C / np.linalg.norm(Z, axis=1))[:, None]
    Xn = np.hstack([Z, np.full((n, 1), C)]) / (C * math.sqrt(2.0))
    g0 = Xn.T @ (-np.where(y == 1, 1.0, -1.0) * 0.5)
    assert np.allclose(inputs.calls[1][0] * step, g0, atol=4 * step, rtol=0)
    # the model acts on x - mu
    coef_c = est.coef_[0]
    b_c = est.intercept_[0] + coef_c @ mu
    assert np.allclose(est.decision_function(X), (X - mu) @ coef_c + b_c)
    (entry,) = acc.ledger
    assert entry.budget == Budget(eps, delta)
    total = entry.event.to_zcdp().rho
    assert total <= rho * (1 + 1e-12) and total == pytest.approx(rho, rel=1e-6)
    assert zcdp_to_dp(entry.event.to_zcdp(), delta).epsilon <= eps


def test_dpgd_center_mean_audit():
    """The mean release on its worst-case pair (one row +C0 vs -C0, n = 1, d = 1: the means
    differ by exactly the sensitivity 2 C0 / n) with the sigma the sampler received passes the
    mean's own share (0.2 rho, converted by CKS20); half the noise is caught."""
    from privlearn.accounting._event import PrivacyEvent

    eps, delta, C0 = 5.0, 1e-6, 1.0
    with Tap() as tap:
        DPGradientDescentClassifier(
            eps, delta, data_norm=C0, center="private", max_iter=1, classes=[-1, 1], rng=1
        ).fit(np.ones((1, 1)), np.array([1]))
    sigma_units = [c for c in tap.calls if c.name == "discrete_gaussian"][0].params["sigma"]
    step = 2.0 ** math.floor(math.log2(2.0 * C0 * 2.0**-20))
    claim = zcdp_to_dp(PrivacyEvent.zcdp(0.2 * zcdp_rho_for(eps, delta)).to_zcdp(), delta)

    def run(mean, factor):
        def f(g, size):
            ints = np.full(size, int(round(mean / step)), dtype=np.int64)
            return _core.discrete_gaussian(ints, factor * sigma_units, _seed(g)) * step

        return f

    claimed = (claim.epsilon, delta)
    ok = audit(run(C0, 1.0), run(-C0, 1.0), claimed=claimed, n=1_000_000, alpha=ALPHA, rng=5)
    assert ok.passed, ok
    bad = audit(run(C0, 0.5), run(-C0, 0.5), claimed=claimed, n=1_000_000, alpha=ALPHA, rng=6)
    assert not bad.passed, bad


@pytest.mark.parametrize(
    "kwargs, X_bad, param",
    [
        (dict(center="bogus"), None, "center"),
        (dict(center=True), None, "center"),
        (dict(center="private", data_norm="private"), None, "data_norm"),
        (dict(center="private", data_norm=None), None, "data_norm"),
        (dict(center="private"), "nan", "X"),
        (dict(center="private"), "shape", "y"),
        (dict(center="private", delta=1.0), None, "delta"),
    ],
)
def test_dpgd_center_bad_input_charges_nothing(kwargs, X_bad, param):
    X, y = _data()
    if X_bad == "nan":
        X = X.copy()
        X[0, 0] = np.nan
    elif X_bad == "shape":
        y = y[:-1]
    acc = Accountant(Budget(10.0, 1e-3))
    args = dict(delta=1e-6, data_norm=B, classes=[0, 1], accountant=acc, rng=0)
    args.update(kwargs)
    with Tap() as tap, pytest.raises(InvalidParameterError) as err:
        DPGradientDescentClassifier(1.0, **args).fit(X, y)
    assert err.value.parameter == param
    assert acc.spent == Budget(0.0, 0.0) and not acc.ledger and not tap.calls


def test_dpgd_center_all_or_nothing_and_quality():
    from privlearn.errors import BudgetExceededError

    X, y = _data(n=2000, d=2, seed=9)
    X = X + 1.5  # far off-centre: the declared bound must cover the offset
    acc = Accountant(Budget(0.5, 1e-3))
    with Tap() as tap, pytest.raises(BudgetExceededError):
        DPGradientDescentClassifier(
            1.0, 1e-6, data_norm=5.0, center="private", classes=[0, 1], accountant=acc, rng=0
        ).fit(X, y)
    assert not tap.calls and not acc.ledger
    est = DPGradientDescentClassifier(
        2.0, 1e-6, data_norm=5.0, center="private", classes=[0, 1], rng=3
    ).fit(X, y)
    assert est.score(X, y) > 0.8
    assert np.linalg.norm(est.center_ - X.mean(axis=0)) < 0.5
    assert est.data_norm_ < 5.0


# --------------------------------------------------------------------------------------------
# Mutation-testing details (issue 19 sample)
# --------------------------------------------------------------------------------------------


def test_dpgd_sigma_below_the_sensitivity_takes_the_least_noise_grid():
    """When ``rho / steps > 1/2`` the step noise is below the sensitivity ``Delta = 2``, and two
    grids of :func:`privlearn.mechanisms.gaussian_noise` can be self-consistent (``sigma = 2^k
    units / sqrt(2 rho_step)`` with ``2^k`` the grid step of that ``sigma``). The calibration
    starts from the continuous ``sigma = Delta / sqrt(2 rho_step)`` and so returns the smaller
    one (less noise, same guarantee). Here ``sqrt(2 rho_step) = 1 + 1.5 2^-21``: the grid step
    2^-20 (sigma just below 2) and the step 2^-19 (sigma just above 2) are both consistent."""
    from privlearn.learners.logistic import dpgd_step_noise

    delta = 1e-6
    target = (1.0 + 1.5 * 2.0**-21) ** 2 / 2.0
    lo, hi = 1.0, 20.0  # the epsilon whose zCDP total is the target (bisection)
    for _ in range(200):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if zcdp_rho_for(mid, delta) < target else (lo, mid)
    rho = zcdp_rho_for(hi, delta)
    r = math.sqrt(2.0 * rho)
    assert 1.0 + 2.0**-21 < r <= 1.0 + 2.0**-20
    consistent = []
    for k in range(-30, -10):  # dim = 1: step 2^k <= min(2, sigma) 2^-20, units ceil(2/2^k) + 1
        sigma_k = (math.ceil(2.0 / 2.0**k) + 1) * 2.0**k / r
        if 2.0 ** math.floor(math.log2(min(2.0, sigma_k) * 2.0**-20)) == 2.0**k:
            consistent.append(sigma_k)
    assert len(consistent) == 2
    sigma, event = dpgd_step_noise(hi, delta, 1, 1)
    assert sigma == pytest.approx(min(consistent), rel=1e-9)
    assert sigma < 2.0 < max(consistent)


@pytest.mark.parametrize("cls", [DPGradientDescentClassifier, ObjectivePerturbationLogistic])
def test_inexact_rational_epsilon_is_refused(cls):
    """``epsilon`` is taken exactly: a ``Fraction`` that is not a float (1/3) is refused naming
    ``epsilon`` before anything is charged (not rounded); 1/4 is accepted."""
    from fractions import Fraction

    X, y = _data()
    acc = Accountant(Budget(10.0, 1e-3))
    with Tap() as tap, pytest.raises(InvalidParameterError) as err:
        cls(Fraction(1, 3), 1e-6, data_norm=B, classes=[0, 1], accountant=acc, rng=0).fit(X, y)
    assert err.value.parameter == "epsilon"
    assert not acc.ledger and not tap.calls
    cls(Fraction(1, 4), 1e-6, data_norm=B, classes=[0, 1], accountant=acc, rng=0).fit(X, y)
    assert acc.spent.epsilon == pytest.approx(0.25)


def test_dpgd_average_must_be_a_bool_and_the_ledger_label_is_the_class():
    """``average`` is a bool (``"yes"`` refused naming ``average``, nothing charged); a fit's
    one ledger entry is labelled with the estimator's class name."""
    X, y = _data()
    acc = Accountant(Budget(10.0, 1e-3))
    args = dict(delta=1e-6, data_norm=B, classes=[0, 1], accountant=acc, max_iter=2, rng=0)
    with pytest.raises(InvalidParameterError) as err:
        DPGradientDescentClassifier(1.0, average="yes", **args).fit(X, y)
    assert err.value.parameter == "average" and str(err.value).startswith("average:")
    assert not acc.ledger
    DPGradientDescentClassifier(1.0, **args).fit(X, y)
    (entry,) = acc.ledger
    assert entry.label == "DPGradientDescentClassifier"


def test_dpgd_center_bound_is_drawn_on_the_centred_grid():
    """With ``center="private"`` the centred bound is drawn on the public grid of the docstring,
    ``2^(k/8)`` for the integers ``k`` with ``C0/64 <= 2^(k/8) <= 2 C0`` (built here), not on
    the default grid: the exponential mechanism gets one score per point of it, and
    ``data_norm_`` is the point it picked."""
    X, y = _data(n=40, d=2, seed=5)
    X = X + 0.8
    for C0 in (B, 0.7):
        ks = [k for k in range(-200, 200) if C0 / 64 <= 2.0 ** (k / 8) <= 2 * C0]
        grid = [2.0 ** (k / 8) for k in ks]
        with Tap() as tap:
            est = DPGradientDescentClassifier(
                1.0, 1e-6, data_norm=C0, center="private", max_iter=2, classes=[0, 1], rng=3
            ).fit(X, y)
        (exp_call,) = [c for c in tap.calls if c.name == "exponential"]
        assert exp_call.params["shape"] == (len(grid),)
        assert est.data_norm_ == pytest.approx(grid[int(exp_call.output)], rel=1e-15)


def test_dpgd_center_seeded_fit_is_reproducible():
    """A seeded fit with ``center="private"`` draws every release (the mean, the centred bound,
    the steps) from the estimator's generator: six fits with the same seed release the same
    centred bound and model (the bound's law is spread over many grid points at this ``n``, so
    fresh randomness would not repeat it six times)."""
    X, y = _data(n=40, d=2, seed=5)
    X = X + 0.8
    fits = [
        DPGradientDescentClassifier(
            1.0, 1e-6, data_norm=B, center="private", max_iter=2, classes=[0, 1], rng=11
        ).fit(X, y)
        for _ in range(6)
    ]
    assert len({f.data_norm_ for f in fits}) == 1
    assert all(np.array_equal(f.coef_, fits[0].coef_) for f in fits)


def test_dpgd_divergent_step_is_refused_before_the_data_are_read():
    """``learning_rate * alpha > 2`` makes the ridge term diverge (``|1 - eta alpha| > 1``): it
    is refused before the data are read, naming ``learning_rate``, and nothing is charged;
    ``eta alpha = 2`` exactly is accepted."""
    X, y = _data()
    acc = Accountant(Budget(10.0, 1e-3))
    args = dict(data_norm=B, classes=[0, 1], accountant=acc, max_iter=5, rng=1)
    with pytest.raises(InvalidParameterError) as err:
        DPGradientDescentClassifier(1.0, 1e-6, learning_rate=2.0, alpha=1.5, **args).fit(X, y)
    assert err.value.parameter == "learning_rate"
    assert acc.spent == Budget(0.0, 0.0) and not acc.ledger
    DPGradientDescentClassifier(1.0, 1e-6, learning_rate=2.0, alpha=1.0, **args).fit(X, y)
    assert len(acc.ledger) == 1


def test_dpgd_overflow_is_a_charged_solver_error():
    """Iterates beyond the float64 range (a step of 1e307 with noise of scale ~1e4 per row)
    raise a SolverError with a fixed
    message after the budget is charged: whether the fit succeeds is then a function of
    public parameters and noise, never of the data alone, and the charge does not depend on
    it."""
    from privlearn.learners._solvers import SolverError

    X, y = _data()
    acc = Accountant(Budget(10.0, 1e-3))
    with np.errstate(all="ignore"), pytest.raises(SolverError) as err:
        DPGradientDescentClassifier(
            0.001,
            1e-6,
            data_norm=B,
            classes=[0, 1],
            learning_rate=1e307,
            alpha=1e-307,
            max_iter=5,
            accountant=acc,
            rng=1,
        ).fit(X, y)
    assert "float64 range" in str(err.value)
    assert len(acc.ledger) == 1 and acc.spent.epsilon == pytest.approx(0.001)


@pytest.mark.parametrize("average", [False, True])
def test_dpgd_trajectory_recomputed_from_the_update_rule(average, monkeypatch):
    """DP-GD's iterates recomputed here from the docstring, given only the sampler's outputs:
    rows clipped to ``data_norm = C``, augmented by the column ``C``, divided by ``C sqrt 2``;
    ``y`` in ``{-1, +1}`` from the declared classes; ``theta_0 = 0``; each step's sampler input
    is the gradient sum ``sum_i -y_i s(-y_i <theta, x_i>) x_i`` on the grid (checked), its
    output (times the grid step) the released noisy sum ``g_t``; ``theta_{t+1} = theta_t - eta
    (g_t / n + alpha theta_t)``, ``eta = 1 / (1/4 + alpha)``; the last iterate or the average of
    ``theta_1..theta_T``; ``coef_ = theta[:d] / (C sqrt 2)``, ``intercept_ = theta[d] /
    sqrt 2``."""
    n, d, steps, alpha = 30, 2, 6, 0.05
    X, y = _data(n=n, d=d, seed=11)
    X = 1.5 * X  # some rows are clipped
    C = B
    inputs = _Inputs(monkeypatch)
    est = DPGradientDescentClassifier(
        2.0,
        1e-6,
        data_norm=C,
        alpha=alpha,
        max_iter=steps,
        average=average,
        classes=[0, 1],
        rng=7,
    ).fit(X, y)
    assert len(inputs.calls) == steps
    grid_step = 2.0 ** math.floor(math.log2(2.0 * 2.0**-20 / math.sqrt(d + 1)))
    norms = np.linalg.norm(X, axis=1)
    Xc = X * np.minimum(1.0, C / norms)[:, None]
    Xn = np.hstack([Xc, np.full((n, 1), C)]) / (C * math.sqrt(2.0))
    ys = np.where(y == 1, 1.0, -1.0)
    eta = 1.0 / (0.25 + alpha)
    theta = np.zeros(d + 1)
    iterates = []
    for value, _, out in inputs.calls:
        grad = Xn.T @ (-ys * expit(-ys * (Xn @ theta)))
        assert np.allclose(value * grid_step, grad, atol=grid_step, rtol=0)
        released = out * grid_step
        theta = theta - eta * (released / n + alpha * theta)
        iterates.append(theta)
    final = np.mean(iterates, axis=0) if average else theta
    assert np.allclose(est.coef_[0], final[:d] / (C * math.sqrt(2.0)), rtol=1e-9, atol=1e-12)
    assert est.intercept_[0] == pytest.approx(final[d] / math.sqrt(2.0), rel=1e-9, abs=1e-12)
    assert np.any(np.abs(final) > 1e-3)  # not a trivial comparison


# --------------------------------------------------------------------------------------------
# Fit time (issue 19): DP-GD's steps are gaussian_noise's releases with the grid computed once
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma, d", [(37.5, 31), (0.3, 4), (1e4, 1)])
def test_dpgd_step_releases_equal_gaussian_noise(sigma, d):
    """Each DP-GD step is what :func:`privlearn.mechanisms.gaussian_noise` releases (the same
    grid, sampler call and random stream), so its native event is gaussian_noise's: three
    releases with the same seed are bit-identical (sigma above and below the sensitivity 2)."""
    from privlearn.learners.logistic import _GridNoise
    from privlearn.mechanisms import gaussian_noise
    from privlearn.random import as_generator

    g = np.random.default_rng(5)
    values = [g.normal(0.0, 50.0, d) for _ in range(3)]
    ours, ref = as_generator(9), as_generator(9)
    step_noise = _GridNoise(sigma, 2.0, d)
    for v in values:
        expected, _ = gaussian_noise(v, sigma, 2.0, rng=ref)
        assert np.array_equal(step_noise(v, ours), expected)


def test_calibrations_are_memoised_pure_functions():
    """The memoised calibrations return the same values as a fresh search (the cache is keyed
    by the validated public parameters; ``1`` and ``1.0`` share an entry, a bad value is still
    refused)."""
    from privlearn.accounting._calibrate import _rho_for
    from privlearn.learners.logistic import _dpgd_step_noise, dpgd_step_noise

    fresh = _rho_for.__wrapped__(0.7, 1e-6, "replace-one")
    assert zcdp_rho_for(0.7, 1e-6) == fresh == zcdp_rho_for(0.7, 1e-6)
    with pytest.raises(InvalidParameterError):
        zcdp_rho_for(True, 1e-6)
    assert dpgd_step_noise(1, 1e-6, 10, 3) == dpgd_step_noise(1.0, 1e-6, 10, 3)
    assert dpgd_step_noise(1.0, 1e-6, 10, 3) == _dpgd_step_noise.__wrapped__(1.0, 1e-6, 10, 3, None)
