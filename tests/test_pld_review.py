"""Review tests of the PLD accounting (issue 18): the safe side under stress.

Every reference value is derived here independently of privlearn's helpers: exact hockey-stick
curves with mpmath (binomial sums for k-fold randomized response, the closed Gaussian curve for
k-fold Gaussians, the optimal likelihood-ratio test for the subsampled Gaussian's two pairs,
atom sums for the discrete Gaussian and Laplace) or, for the k-fold subsampled Gaussian, an
*optimistic* discretisation (every loss rounded down, so its curve is a lower bound of the true
one) composed by numpy's FFT. A reported delta below a reference is an under-report.
"""

from __future__ import annotations

import functools
import math

import mpmath as mp
import numpy as np
import pytest
from scipy import special

from privlearn import _core
from privlearn.accounting import _pld as P

mp.mp.dps = 40


# --------------------------------------------------------------------------------------------
# Independent references
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=None)
def _binomial_atoms(e: float, k: int):
    """(loss, P-mass) of k-fold binary randomized response: losses (2j - k) e, binomial masses
    (by the ratio recurrence, in mpmath)."""
    e_ = mp.mpf(e)
    p = mp.e**e_ / (1 + mp.e**e_)
    mass = (1 - p) ** k
    atoms = []
    for j in range(k + 1):
        atoms.append(((2 * j - k) * e_, mass))
        mass = mass * (k - j) / (j + 1) * p / (1 - p)
    return atoms


def rr_kfold_delta(e: float, k: int, eps: float) -> float:
    """Exact hockey-stick curve of k-fold binary randomized response."""
    return float(
        mp.fsum(m * (1 - mp.e ** (eps - loss)) for loss, m in _binomial_atoms(e, k) if loss > eps)
    )


def gauss_delta(mu: float, eps: float) -> float:
    """Balle and Wang 2018, Theorem 8, for N(0, 1) vs N(mu, 1)."""
    mu_, e = mp.mpf(mu), mp.mpf(eps)
    return float(mp.ncdf(-e / mu_ + mu_ / 2) - mp.e**e * mp.ncdf(-e / mu_ - mu_ / 2))


def subsampled_gaussian_delta(q: float, s: float, eps: float, direction: str) -> float:
    """Remove pair ((1-q) N(0, s^2) + q N(1, s^2), N(0, s^2)) or the swapped (add) pair, by the
    optimal test {x > x*} (remove) or {x < x*} (add), the likelihood ratio being monotone."""
    q_, s_, e = mp.mpf(q), mp.mpf(s), mp.mpf(eps)
    if direction == "remove":
        w = mp.e**e - 1 + q_
        if w <= 0:
            return float(1 - mp.e**e)
        xs = s_**2 * mp.log(w / q_) + mp.mpf(1) / 2
        p_mass = (1 - q_) * mp.ncdf(-xs / s_) + q_ * mp.ncdf(-(xs - 1) / s_)
        return float(p_mass - mp.e**e * mp.ncdf(-xs / s_))
    w = mp.e ** (-e) - 1 + q_
    if w <= 0:
        return 0.0
    xs = s_**2 * mp.log(w / q_) + mp.mpf(1) / 2
    q_mass = (1 - q_) * mp.ncdf(xs / s_) + q_ * mp.ncdf((xs - 1) / s_)
    return float(mp.ncdf(xs / s_) - mp.e**e * q_mass)


def discrete_gaussian_delta(sigma: float, d: int, eps: float) -> float:
    """Sum over z of (P(z) - e^eps P(z - d))_+ for the discrete Gaussian (CKS 2020)."""
    s2 = mp.mpf(sigma) ** 2
    zmax = int(math.ceil(40 * sigma)) + 2 * d + 5
    w = [mp.e ** (-(mp.mpf(z) ** 2) / (2 * s2)) for z in range(-zmax - d, zmax + 1)]
    norm = mp.fsum(w[d:])
    total = mp.mpf(0)
    for i in range(d, len(w)):
        diff = (w[i] - mp.e**eps * w[i - d]) / norm
        if diff > 0:
            total += diff
    return float(total)


def discrete_laplace_delta(b: float, d: int, eps: float) -> float:
    """Sum over z of (P(z) - e^eps P(z - d))_+ for P(z) ~ exp(-|z|/b), summed in closed form
    over z <= 0 and z >= d (constant ratio there) and term by term in between."""
    b_, e = mp.mpf(b), mp.mpf(eps)
    a = mp.e ** (-1 / b_)
    c = (1 - a) / (1 + a)
    low_p = 1 / (1 + a)  # P(z <= 0)
    total = max(low_p - mp.e**e * low_p * mp.e ** (-d / b_), 0)
    for z in range(1, d):
        total += max(c * a**z - mp.e**e * c * a ** (d - z), 0)
    high_p = c * a**d / (1 - a)  # P(z >= d)
    total += max(high_p - mp.e**e * high_p * mp.e ** (d / b_), 0)
    return float(total)


def optimistic_subsampled_gaussian(q: float, s: float, g: float, direction: str):
    """The P-distribution of the loss with every loss rounded *down* to the grid g (tails
    beyond P-mass 1e-18 dropped from below, put on the top point from above): its k-fold
    curve is a lower bound of the true k-fold curve."""
    l1mq = math.log1p(-q)
    cap = 1e-18
    if direction == "remove":
        xtop = 1 + s * -special.ndtri(cap)
        lo = math.floor(l1mq / g)
        hi = math.ceil(math.log(1 - q + q * math.exp((2 * xtop - 1) / (2 * s * s))) / g)
        ls = np.arange(lo, hi + 1) * g
        w = np.expm1(ls) + q
        with np.errstate(divide="ignore", invalid="ignore"):
            xs = s * s * (np.log(w) - math.log(q)) + 0.5
        xs[w <= 0] = -np.inf
        # P(L > l_i) = P(X > x(l_i)) under the mixture.
        sf = (1 - q) * special.ndtr(-xs / s) + q * special.ndtr(-(xs - 1) / s)
        m = np.append(sf[:-1] - sf[1:], sf[-1])
        m[0] += 1.0 - sf[0]
    else:
        xbot = s * -special.ndtri(cap)
        lo = math.floor(-math.log(1 - q + q * math.exp((2 * xbot - 1) / (2 * s * s))) / g)
        hi = math.floor(-l1mq / g)
        ls = np.arange(lo, hi + 1) * g
        xs = s * s * (np.log(np.expm1(-ls) + q) - math.log(q)) + 0.5
        # P(L > l_i) = P(X < x(l_i)) under N(0, s^2); the mass below l_lo is dropped.
        cdf = special.ndtr(xs / s)
        m = np.append(cdf[:-1] - cdf[1:], cdf[-1])
    return lo, np.clip(m, 0.0, None)


def kfold_curve(lo: int, m: np.ndarray, g: float, k: int):
    n = (len(m) - 1) * k + 1
    size = 1 << (n - 1).bit_length()
    mk = np.fft.irfft(np.fft.rfft(m, size) ** k, size)[:n]
    ls = (lo * k + np.arange(n)) * g

    def delta(eps: float) -> float:
        sel = ls > eps
        return float(np.sum(mk[sel] * -np.expm1(eps - ls[sel])))

    return delta


# --------------------------------------------------------------------------------------------
# k-fold randomized response and pure DP (FFT power with Chernoff windows)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("e, k", [(0.1, 1000), (0.37, 100), (0.01, 10000), (1.0, 50)])
def test_rr_kfold_never_below_binomial_sum(e, k):
    curve = P.pld_randomized_response(e) * k
    for eps in [0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 8.0, 20.0, 49.0]:
        assert curve.delta(eps) >= rr_kfold_delta(e, k, eps), eps
    for target in [1e-3, 1e-6, 1e-9]:
        eps = curve.epsilon(target)
        if math.isfinite(eps):
            assert curve.delta(eps) <= target
            assert rr_kfold_delta(e, k, eps) <= target


def test_pure_kfold_by_power_matches_repeated_composition():
    one = P.pld_pure(0.3)
    power = one._dirs[0].self_compose(40, 1e-15)
    chain = _core.PldCore.compose_all([one._dirs[0]] * 40, 1e-15)
    for eps in [0.0, 1.0, 3.0, 6.0, 10.0, 11.9]:
        exact = rr_kfold_delta(0.3, 40, eps)
        assert power.delta(eps) >= exact and chain.delta(eps) >= exact, eps
        assert abs(power.delta(eps) - chain.delta(eps)) <= power.err + chain.err + 1e-9


def test_discrete_laplace_sensitivity_one_kfold_is_binomial():
    # Sensitivity 1: losses +-1/b with P-masses 1/(1+a), a/(1+a): binary RR with eps = 1/b.
    curve = P.pld_discrete_laplace(2.0) * 300
    for eps in [0.0, 2.0, 5.0, 10.0, 20.0]:
        assert curve.delta(eps) >= rr_kfold_delta(0.5, 300, eps), eps


@pytest.mark.xfail(
    strict=True,
    reason="review defect (tightness): the 1e-12 relative margin at the top grid point puts "
    "~1e-12 on +inf per fold (pld_randomized_response(0.1): inf_mass 1.05e-12), so 1000 folds "
    "carry ~1e-9 at +inf and no finite epsilon reaches delta = 1e-9 (exact: 23.28)",
)
def test_rr_kfold_small_delta_is_reachable():
    curve = P.pld_randomized_response(0.1) * 1000
    assert math.isfinite(curve.epsilon(1e-9))


# --------------------------------------------------------------------------------------------
# Gaussian: k-fold against the exact curve, extreme sigma, tiny delta, negative epsilon
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sigma, k, h",
    [
        (1.0, 1, 1e-4),
        (1.0, 10, 1e-4),
        (0.05, 1, 1e-3),
        (0.036, 1, 1e-2),  # losses up to ~700
        (0.2, 30, 1e-3),
        (50.0, 10_000, 1e-4),
        (1000.0, 1_000_000, 1e-4),
        (3.0, 1000, 1e-4),
        (0.5, 2, 1e-4),
    ],
)
def test_gaussian_kfold_never_below_exact(sigma, k, h):
    curve = P.pld_gaussian(sigma, value_discretization=h) * k
    mu = math.sqrt(k) / sigma
    for eps in [-3.0, -0.5, 0.0, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 300.0, 600.0]:
        assert curve.delta(eps) >= gauss_delta(mu, eps), eps
    for target in [1e-3, 1e-6, 1e-9, 1e-12]:
        eps = curve.epsilon(target)
        if math.isfinite(eps):
            assert curve.delta(eps) <= target
            assert gauss_delta(mu, eps) <= target, target


# --------------------------------------------------------------------------------------------
# Subsampled Gaussian: both directions, one fold and k folds
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "q, s, h",
    [(0.01, 1.0, 1e-4), (0.001, 0.5, 1e-4), (0.5, 0.3, 1e-3), (0.9, 2.0, 1e-4), (1e-5, 0.1, 1e-3)],
)
def test_subsampled_gaussian_both_directions_never_below_exact(q, s, h):
    curve = P.pld_subsampled_gaussian(q, s, value_discretization=h)
    assert curve.directions == 2
    for eps in [-2.0, -0.01, 0.0, 0.001, 0.05, 0.3, 1.0, 3.0, 10.0]:
        for i, direction in enumerate(("remove", "add")):
            exact = subsampled_gaussian_delta(q, s, eps, direction)
            assert curve._dirs[i].delta(eps) >= exact, (direction, eps)
        assert curve.delta(eps) >= max(
            subsampled_gaussian_delta(q, s, eps, d) for d in ("remove", "add")
        )


def test_subsampled_gaussian_kfold_power_chain_and_lower_bound():
    q, s, k, g = 0.01, 1.0, 64, 2e-4
    curve = P.pld_subsampled_gaussian(q, s)
    for i, direction in enumerate(("remove", "add")):
        power = curve._dirs[i].self_compose(k, 1e-15)
        chain = _core.PldCore.compose_all([curve._dirs[i]] * k, 1e-15)
        lower = kfold_curve(*optimistic_subsampled_gaussian(q, s, g, direction), g, k)
        for eps in [0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 5.0]:
            lb = lower(eps) - 1e-14  # numpy's FFT rounding
            assert power.delta(eps) >= lb, (direction, eps)
            assert chain.delta(eps) >= lb, (direction, eps)
            assert abs(power.delta(eps) - chain.delta(eps)) <= power.err + chain.err, eps
    composed = curve * k
    assert composed.epsilon(1e-6) == max(
        d.self_compose(k, 1e-15).epsilon(1e-6) for d in curve._dirs
    )


# --------------------------------------------------------------------------------------------
# Discrete Gaussian and discrete Laplace against exact atom sums
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sigma, d", [(0.5, 1), (1.0, 1), (2.0, 3), (0.3, 2), (5.0, 1)])
def test_discrete_gaussian_never_below_exact(sigma, d):
    curve = P.pld_discrete_gaussian(sigma, sensitivity=d)
    for eps in [0.0, 0.05, 0.2, 0.5, 1.0, 2.0, 4.0, 8.0]:
        exact = max(discrete_gaussian_delta(sigma, j, eps) for j in range(1, d + 1))
        assert curve.delta(eps) >= exact, eps
        assert curve.delta(eps) <= exact + 1e-3  # tight (h = 1e-4)


@pytest.mark.parametrize("b, d", [(1.0, 1), (0.5, 3), (2.0, 2), (10.0, 1)])
def test_discrete_laplace_never_below_exact(b, d):
    curve = P.pld_discrete_laplace(b, sensitivity=d)
    for eps in [0.0, 0.05, 0.2, 0.5, 1.0, 2.0, 4.0, 6.0]:
        exact = max(discrete_laplace_delta(b, j, eps) for j in range(1, d + 1))
        assert curve.delta(eps) >= exact, eps


# --------------------------------------------------------------------------------------------
# The exact Gaussian mechanism's event
# --------------------------------------------------------------------------------------------


def test_exact_gaussian_event_has_a_safe_pld():
    from privlearn import mechanisms

    event = mechanisms._gaussian_event(0.0, 1.0, 1.0, 1e-6, "exact", "analytic")
    curve = event.to_pld(1e-4)
    _step, du, s2 = _core.gaussian_plan(1.0, 1.0, 1e-6, 1)
    # At sigma ~ 4.4e6 grid units the discrete Gaussian's curve equals the continuous one's up
    # to a relative ~exp(-2 pi^2 sigma^2) (Poisson summation; Canonne, Kamath, Steinke 2020).
    mu = du / math.sqrt(s2)
    for eps in [0.0, 0.5, 1.0, 2.0]:
        assert curve.delta(eps) >= gauss_delta(mu, eps), eps
    assert curve.epsilon(1e-6) <= 1.0 + 1e-6
