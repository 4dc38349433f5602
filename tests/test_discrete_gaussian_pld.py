"""The discrete Gaussian's PLD for a large sigma in grid units (issue 18).

The exact Gaussian mechanism (``numerics="exact"``) adds discrete Gaussian noise of variance
parameter ``sigma^2 ~ (4e6)^2`` grid units to a query of integer sensitivity ``~1e6`` units, beyond
any enumeration of atoms; ``pld_discrete_gaussian`` then bounds the curve by the Euler-Maclaurin
formula (``_pld._dg_delta_upper``). The references here are independent of privlearn's helpers:

* the exact hockey-stick curve of ``(N_Z(0, s^2), N_Z(D, s^2))`` by direct summation in mpmath,
  ``sum_{k > x1} (g(k) - e^eps g(k + D)) / sum_k g(k)`` with ``x1 = eps s^2 / D - D / 2`` and
  ``g(k) = exp(-k^2 / (2 s^2))`` (Canonne, Kamath and Steinke, NeurIPS 2020, Theorem 7), the
  Gaussian weights by the exact ratio recurrence ``g(k + 1) = g(k) exp(-(2k + 1) / (2 s^2))``;
* the continuous Gaussian's curve (Balle and Wang, ICML 2018, Theorem 8) in mpmath.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from privlearn import _core
from privlearn import mechanisms as mech
from privlearn.accounting._accountant import Accountant
from privlearn.accounting._budget import Budget
from privlearn.accounting._event import PrivacyEvent
from privlearn.accounting._pld import _dg_delta_upper, pld_discrete_gaussian
from privlearn.errors import BudgetExceededError, InvalidParameterError

mp.mp.dps = 32


@functools.lru_cache(maxsize=None)
def _suffix_sums(s: float, lo: int):
    """``(C, T)`` with ``C = sum_k g(k)`` and ``T[i] = sum_{k >= lo + i} g(k)`` for ``lo + i <=
    K``, ``K = ceil(16 s) + 2`` (``g(K) < e^-128``: the rest, below 1e-50 relative, is ignored),
    the weights by the ratio recurrence from ``g(lo)``, the sums accumulated from the top."""
    s2 = mp.mpf(s) ** 2
    top = int(math.ceil(16 * s)) + 2
    g = mp.e ** (-(mp.mpf(lo) ** 2) / (2 * s2))
    r = mp.e ** (-(2 * mp.mpf(lo) + 1) / (2 * s2))
    step = mp.e ** (-1 / s2)
    weights = []
    for _ in range(lo, top + 1):
        weights.append(g)
        g *= r
        r *= step
    tails = [mp.mpf(0)] * (len(weights) + 1)
    for i in range(len(weights) - 1, -1, -1):
        tails[i] = tails[i + 1] + weights[i]
    assert lo <= -top
    return tails[0], tails


def exact_delta(s: float, d: int, eps: float):
    """The exact curve of ``(N_Z(0, s^2), N_Z(d, s^2))`` at ``eps`` (an mpf): ``(P[Y >= y1] -
    e^eps P[Y >= y1 + d])``, ``y1`` the smallest integer above ``x1`` (CKS20 Theorem 7)."""
    e = mp.mpf(eps)
    x1 = e * mp.mpf(s) ** 2 / d - mp.mpf(d) / 2
    y1 = int(mp.floor(x1)) + 1
    lo = -(int(math.ceil(16 * s)) + 2)
    c, tails = _suffix_sums(s, lo)

    def tail(y: int):
        return tails[min(max(y - lo, 0), len(tails) - 1)]

    return (tail(y1) - mp.e**e * tail(y1 + d)) / c


def continuous_delta(mu: float, eps: float):
    """Balle and Wang 2018, Theorem 8: N(0, 1) against N(mu, 1)."""
    m, e = mp.mpf(mu), mp.mpf(eps)
    return mp.ncdf(-e / m + m / 2) - mp.e**e * mp.ncdf(-e / m - m / 2)


def continuous_epsilon(mu: float, delta: float) -> float:
    """The smallest epsilon with continuous_delta(mu, epsilon) <= delta (bisection)."""
    lo, hi = mp.mpf(0), mp.mpf(1)
    while continuous_delta(mu, hi) > delta:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if continuous_delta(mu, mid) > delta else (lo, mid)
    return float(hi)


def _eps_points(s: float, d: int):
    """Epsilons where the exact curve runs from its top down to about 1e-15."""
    mu = d / s
    top = mu * mu / 2 + 8.0 * mu
    return [0.0, 1e-9] + [float(t) for t in np.linspace(0.0, top, 9)[1:]]


# --------------------------------------------------------------------------------------------
# The bound against the exact curve
# --------------------------------------------------------------------------------------------

#: (s, D, stated largest relative excess over the exact curve where it is at least 1e-15).
TIGHTNESS = [
    (50.0, 1, 2.5e-2),
    (50.0, 7, 5e-3),
    (50.0, 60, 5e-3),
    (300.0, 40, 1e-4),
    (300.0, 1, 1e-4),
    (3000.0, 100, 1e-6),
    (3000.0, 2500, 1e-6),
]


@pytest.mark.parametrize("s, d, rel", TIGHTNESS)
def test_bound_is_above_the_exact_curve_and_tight(s, d, rel):
    eps = _eps_points(s, d)
    bound = _dg_delta_upper(np.array(eps), s, d)
    for e, b in zip(eps, bound):
        exact = exact_delta(s, d, e)
        assert b >= exact, (s, d, e)
        if exact >= 1e-15:
            assert b <= exact * (1 + rel) + 2e-12, (s, d, e)


@pytest.mark.parametrize("s, d", [(0.5, 1), (1.0, 2), (3.0, 1), (10.0, 25)])
def test_bound_is_valid_for_small_sigma(s, d):
    """The bound holds for any sigma (it is only loose when sigma is small)."""
    eps = [0.0, 0.1, 0.5, 1.0, 2.0, 4.0]
    bound = _dg_delta_upper(np.array(eps), s, d)
    for e, b in zip(eps, bound):
        assert b >= exact_delta(s, d, e), (s, d, e)


def test_bound_near_integer_thresholds():
    """``x1 = eps s^2 / D - D / 2`` an integer (the boundary term is zero) and just off one."""
    s, d = 100.0, 4
    for x1 in [150, 151, 300]:
        e = (x1 + d / 2) * d / (s * s)
        for t in [math.nextafter(e, 0.0), e, math.nextafter(e, 1.0)]:
            assert _dg_delta_upper(np.array([t]), s, d)[0] >= exact_delta(s, d, t)


def test_larger_shifts_dominate():
    """The curve grows with the shift (CKS20 Theorem 7's form), so the bound at D covers 1..D."""
    s = 40.0
    for e in [0.0, 0.2, 1.0]:
        values = [exact_delta(s, d, e) for d in (1, 2, 5, 9)]
        assert values == sorted(values)
        assert _dg_delta_upper(np.array([e]), s, 9)[0] >= values[-1]


# --------------------------------------------------------------------------------------------
# Large sigma: the curve against the continuous Gaussian's
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("s, d", [(4.4e6, 1_048_577), (4.0e6, 1), (2.0e5, 50_000)])
def test_large_sigma_matches_continuous(s, d):
    """At sigma ~ 4e6 the discrete and continuous curves agree to far below 1/sigma relative
    (Poisson summation and Euler-Maclaurin); the bound is never below the continuous curve
    minus 1e-6 relative, and above it by at most 1e-6 relative plus the 1e-12 float margin
    relative to the terms (~1e-12 absolute)."""
    mu = d / s
    eps = _eps_points(s, d)
    bound = _dg_delta_upper(np.array(eps), s, d)
    for e, b in zip(eps, bound):
        cont = float(continuous_delta(mu, e))
        assert b >= cont * (1 - 1e-6), e
        assert b <= cont * (1 + 1e-6) + 2e-12, e


def test_curve_of_large_sigma():
    """The PLD (connect-the-dots) is never below the continuous Gaussian's curve minus 1e-6
    relative at the grid points, and its epsilon is within the grid step of the continuous."""
    s, d, h = 4.4e6, 1_048_577, 1e-4
    curve = pld_discrete_gaussian(s, sensitivity=d, value_discretization=h)
    mu = d / s
    for e in [0.0, 0.1, 0.5, 1.0, 1.5]:
        assert curve.delta(e) >= float(continuous_delta(mu, e)) * (1 - 1e-6), e
    want = continuous_epsilon(mu, 1e-6)
    assert want - 1e-6 <= curve.epsilon(1e-6) <= want + h


# --------------------------------------------------------------------------------------------
# The exact Gaussian mechanism in a pld accountant
# --------------------------------------------------------------------------------------------


def _exact_gaussian_event(sensitivity: float, epsilon: float, delta: float) -> PrivacyEvent:
    """The exact Gaussian mechanism's event from the sampler's plan (integer sensitivity and
    variance in grid units), sigma rounded down (the safe side)."""
    _step, du, s2 = _core.gaussian_plan(sensitivity, epsilon, delta, 1, "analytic")
    sigma = math.sqrt(s2)
    while Fraction(sigma) ** 2 > s2:
        sigma = math.nextafter(sigma, 0.0)
    return PrivacyEvent.discrete_gaussian(sigma, sensitivity=int(du), budget=Budget(epsilon, delta))


def test_hundred_exact_gaussians_in_a_pld_accountant():
    k, eps, delta, h = 100, 1.0, 1e-6, 1e-4
    event = _exact_gaussian_event(1.0, eps, delta)
    (sigma, du, _dim) = event._params
    mu = du / sigma
    want = continuous_epsilon(mu * math.sqrt(k), delta)  # k Gaussians: mu sqrt(k)
    total = Budget(want + 0.05, delta)
    acct = Accountant(total, composition="pld", plan=[event] * k, value_discretization=h)
    for i in range(k):
        mech.gaussian(0.0, 1.0, eps, delta, rng=i, accountant=acct)
    spent = acct.spent
    assert want - 1e-6 <= spent.epsilon <= want + 0.01
    assert spent.delta <= delta
    with pytest.raises(BudgetExceededError):
        mech.gaussian(0.0, 1.0, eps, delta, rng=k, accountant=acct)
    # Far below the k-fold basic composition's 100.
    assert spent.epsilon < 20.0


def test_vector_event_has_no_pld():
    event = PrivacyEvent.discrete_gaussian(4.0e6, sensitivity=1_000_000, dim=3)
    with pytest.raises(InvalidParameterError, match="not rotation"):
        event.to_pld(1e-4)


@pytest.mark.parametrize(
    "call, param",
    [
        (lambda: pld_discrete_gaussian(float("inf"), sensitivity=5000), "sigma"),
        (lambda: pld_discrete_gaussian(float("nan"), sensitivity=5000), "sigma"),
        (lambda: pld_discrete_gaussian(-4e6, sensitivity=5000), "sigma"),
        (lambda: pld_discrete_gaussian(4e6, sensitivity=0), "sensitivity"),
        (lambda: pld_discrete_gaussian(4e6, sensitivity=1.5), "sensitivity"),
        (lambda: pld_discrete_gaussian(4e6, sensitivity=2**53 + 1), "sensitivity"),
        (lambda: pld_discrete_gaussian(4e6, sensitivity=10**9), "sigma"),  # losses > 700
        (lambda: pld_discrete_gaussian(4e6, sensitivity=10**6, neighbours="x"), "neighbours"),
        (
            lambda: pld_discrete_gaussian(4e6, sensitivity=10**6, value_discretization=0.0),
            "value_discretization",
        ),
    ],
)
def test_bad_input_is_refused(call, param):
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert info.value.parameter == param
