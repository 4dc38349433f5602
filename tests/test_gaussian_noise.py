"""``privlearn.mechanisms.gaussian_noise`` (exact Gaussian noise of a given sigma, with its native
event) and ``privlearn.accounting._calibrate.zcdp_rho_for`` (the composite learners' calibration).

Calibration is pinned independently of the library: the grid step and the integer sensitivity are
recomputed here from the docstring's rule (``2^k <= min(Δ, σ) 2^-20 / sqrt(d)``; ``ceil(Δ/2^k) +
ceil(sqrt(d))``), the noise is tested against ``N(0, σ²)`` (Kolmogorov–Smirnov, fixed seed,
false-positive rate 1e-6) with a power check (a 30%-off scale is rejected, half the noise too),
and ``zcdp_rho_for`` against the closed form ``ε(ρ) = ρ + 2 sqrt(ρ ln(1/δ))`` (Bun–Steinke,
Proposition 1.3), which the tighter CKS20 conversion never exceeds.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from privlearn.accounting import Budget, zcdp_to_dp
from privlearn.accounting._calibrate import zcdp_rho_for
from privlearn.accounting._zcdp import ZcdpBudget
from privlearn.errors import InvalidParameterError
from privlearn.mechanisms import gaussian_noise
from stats_helpers import assert_ks_fits, assert_ks_rejects


def _grid(sigma: float, sensitivity: float, dim: int) -> "tuple[Fraction, int]":
    """The docstring's grid rule, recomputed with exact rationals: the largest power of two at
    most min(Δ, σ) 2^-20 / sqrt(dim), and the rounded value's integer L2 sensitivity."""
    bound_sq = Fraction(min(sensitivity, sigma)) ** 2 * Fraction(1, 2**40) / dim
    k = 0
    while Fraction(2) ** (2 * k) > bound_sq:
        k -= 1
    while Fraction(2) ** (2 * (k + 1)) <= bound_sq:
        k += 1
    step = Fraction(2) ** k
    root = math.isqrt(dim)
    return step, math.ceil(Fraction(sensitivity) / step) + (
        root if root * root == dim else root + 1
    )


@pytest.mark.parametrize(
    "sigma, sensitivity, dim", [(2.0, 1.0, 1), (0.3, 5.0, 7), (1e4, 3.0, 20), (1.5, 1.5, 4)]
)
def test_event_parameters_follow_the_grid_rule(sigma: float, sensitivity: float, dim: int) -> None:
    step, units = _grid(sigma, sensitivity, dim)
    _, event = gaussian_noise(np.zeros(dim) if dim > 1 else 0.0, sigma, sensitivity, rng=1)
    assert event.kind == "discrete_gaussian"
    assert event.neighbours == "replace-one"
    assert Fraction(event.params[0]) == Fraction(sigma) / step
    assert event.params[1] == units and event.params[2] == dim
    # The zCDP charged is the continuous mechanism's, widened by at most a relative 2^-18.
    rho = event.to_zcdp().rho
    assert rho >= sensitivity**2 / (2 * sigma**2)
    assert rho <= sensitivity**2 / (2 * sigma**2) * (1 + 2.0**-18)


def test_noise_is_gaussian_of_the_given_sigma_with_power() -> None:
    sigma = 2.5
    x = np.full(20000, 7.25)
    noisy, _ = gaussian_noise(x, sigma, 1.0, rng=20261127)
    z = noisy - x
    assert_ks_fits(z, stats.norm(scale=sigma).cdf, "gaussian_noise")
    assert_ks_rejects(z, stats.norm(scale=sigma * 1.3).cdf, "gaussian_noise, scale x1.3")
    assert_ks_rejects(z, stats.norm(scale=sigma / 1.3).cdf, "gaussian_noise, scale /1.3")
    assert_ks_rejects(z, stats.norm(scale=sigma / 2).cdf, "gaussian_noise, half the noise")


def test_noise_does_not_depend_on_the_value_beyond_the_grid() -> None:
    a = np.array([0.0, 1.0, -3.5])
    b = a + np.array([0.6, -0.8, 0.0])  # L2 distance 1.0 = the sensitivity
    na, _ = gaussian_noise(a, 1.0, 1.0, rng=5)
    nb, _ = gaussian_noise(b, 1.0, 1.0, rng=5)
    step, _ = _grid(1.0, 1.0, 3)
    # Same seed: the same integer noise, so the outputs differ by the rounded values' difference.
    assert np.all(np.abs((nb - na) - (b - a)) <= float(step) + 1e-15)


def test_scalar_and_shape() -> None:
    v, _ = gaussian_noise(3.0, 1.0, 1.0, rng=0)
    assert isinstance(v, float)
    m, e = gaussian_noise(np.zeros((3, 4)), 1.0, 2.0, rng=0)
    assert m.shape == (3, 4) and e.params[2] == 12


@pytest.mark.parametrize(
    "args, param",
    [
        ((np.array([1.0, np.nan]), 1.0, 1.0), "value"),
        ((1.0, 0.0, 1.0), "sigma"),
        ((1.0, -1.0, 1.0), "sigma"),
        ((1.0, math.inf, 1.0), "sigma"),
        ((1.0, 1.0, 0.0), "sensitivity"),
        ((1e300, 1.0, 1.0), "value"),
    ],
)
def test_bad_input(args: tuple, param: str) -> None:
    with pytest.raises(InvalidParameterError) as err:
        gaussian_noise(*args, rng=0)
    assert err.value.parameter == param


@pytest.mark.parametrize("eps, delta", [(0.1, 1e-6), (1.0, 1e-6), (5.0, 1e-6), (1.0, 1e-10)])
def test_zcdp_rho_for_is_safe_and_nearly_tight(eps: float, delta: float) -> None:
    rho = zcdp_rho_for(eps, delta)
    assert zcdp_to_dp(ZcdpBudget(rho), delta).epsilon <= eps
    # Nearly the largest: a rho 1e-6 larger no longer fits.
    assert zcdp_to_dp(ZcdpBudget(rho * (1 + 1e-6)), delta).epsilon > eps
    # Never worse than the classic conversion eps = rho + 2 sqrt(rho log(1/delta)), solved here.
    log_inv = math.log(1 / delta)
    classic = (math.sqrt(log_inv + eps) - math.sqrt(log_inv)) ** 2
    assert rho >= classic * (1 - 1e-12)
    assert isinstance(Budget(eps, delta), Budget)


def test_zcdp_rho_for_bad_input() -> None:
    for eps, delta, param in [(0.0, 1e-6, "epsilon"), (1.0, 0.0, "delta"), (1.0, 1.0, "delta")]:
        with pytest.raises(InvalidParameterError) as err:
            zcdp_rho_for(eps, delta)
        assert err.value.parameter == param


@pytest.mark.parametrize("sens, rho, dim", [(1.0, 0.5, 1), (2.0, 0.01, 14), (0.3, 3.0, 120)])
def test_sigma_for_rho_and_event(sens: float, rho: float, dim: int) -> None:
    from privlearn.mechanisms import gaussian_noise_event, gaussian_noise_sigma

    sigma = gaussian_noise_sigma(sens, rho, dim)
    step, units = _grid(sigma, sens, dim)  # the grid rule, recomputed here
    achieved = Fraction(units) ** 2 / (2 * (Fraction(sigma) / step) ** 2)
    assert achieved <= Fraction(rho)  # never above the target (safe side)
    assert achieved >= Fraction(rho) * (1 - Fraction(1, 10**12))  # and essentially equal
    event = gaussian_noise_event(sigma, sens, dim)
    _, drawn = gaussian_noise(np.zeros(dim) if dim > 1 else 0.0, sigma, sens, rng=0)
    assert event == drawn
