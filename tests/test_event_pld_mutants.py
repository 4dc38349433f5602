"""Mutation survivors of accounting/_event.py and _fixed_size.py (issue 18, sample 19-b).

Oracles derived here: the Gaussian mechanism's exact curve (Balle and Wang, ICML 2018,
Theorem 8) and the composition of Gaussian mechanisms (Dong, Roth and Su, JRSS-B 2022,
Corollary 3.3: mu = sqrt(sum k_i (Delta_i / sigma_i)^2)) in mpmath; square roots in mpmath.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath as mp
import pytest

from privlearn.accounting._budget import Budget
from privlearn.accounting._event import _DECLARED_RTOL, PrivacyEvent, _gaussian_delta, _sqrt_up
from privlearn.accounting._fixed_size import fixed_size_laplace_epsilon
from privlearn.errors import InvalidParameterError


def gauss_delta(mu, eps) -> mp.mpf:
    """Balle and Wang 2018, Theorem 8, for (N(0,1), N(mu,1)), in 50-digit mpmath."""
    with mp.workdps(50):
        mu, eps = mp.mpf(mu), mp.mpf(eps)
        return mp.ncdf(mu / 2 - eps / mu) - mp.exp(eps) * mp.ncdf(-mu / 2 - eps / mu)


def assert_gaussian_pld(event: PrivacyEvent, mu) -> None:
    """The event's PLD is the Gaussian curve with this mu: never below it (safe side), and
    within the discretisation's slack above it."""
    pld = event.to_pld(1e-4)
    for eps in (0.0, 0.5, 1.0, 2.0):
        exact = gauss_delta(mu, eps)
        got = pld.delta(eps)
        assert exact <= got <= exact * (1 + 1e-8), (eps, float(exact), got)


# --------------------------------------------------------------------------------------------
# _composed_pld: the Gaussian merge (a single Gaussian leaf of count k > 1; the sqrt rounding)
# --------------------------------------------------------------------------------------------


def test_repeated_single_gaussian_pld_is_the_k_fold_composition():
    # 4 compositions of sigma = 2: mu = sqrt(4 (1/2)^2) = 1 (not the one-fold mu = 1/2).
    assert_gaussian_pld(PrivacyEvent.repeated(PrivacyEvent.gaussian(2.0), 4), 1)


def test_composed_gaussians_pld_merges_to_the_root_sum_of_squares():
    # sum of squares 2 (not a perfect square): the rounded-up root must be >= sqrt(2)
    assert_gaussian_pld(
        PrivacyEvent.composed([PrivacyEvent.gaussian(1.0), PrivacyEvent.gaussian(1.0)]),
        mp.sqrt(2),
    )


@pytest.mark.parametrize("x", [Fraction(2), Fraction(1, 3), Fraction(10**20 + 1, 7), Fraction(9)])
def test_sqrt_up_is_the_smallest_float_not_below_the_root(x):
    with mp.workdps(60):
        root = mp.sqrt(mp.mpf(x.numerator) / x.denominator)
        got = _sqrt_up(x)
        assert mp.mpf(got) >= root
        assert mp.mpf(math.nextafter(got, 0.0)) < root


# --------------------------------------------------------------------------------------------
# Declared budgets
# --------------------------------------------------------------------------------------------


def test_gaussian_declared_budget_at_the_tolerance_boundary_is_accepted():
    # The documented check refuses a delta below the mechanism's by MORE than a relative 1e-6:
    # a declared delta with delta * (1 + 1e-6) equal to the (float) true delta is accepted.
    ratio, eps = 1.0, 1.0
    true_delta = _gaussian_delta(ratio, eps)
    # the float helper is Balle-Wang's curve (independent check of what it evaluates)
    assert abs(true_delta - gauss_delta(1 / ratio, eps)) <= 1e-14
    c = 1 + _DECLARED_RTOL
    boundary = None
    d = true_delta / c
    for _ in range(8):
        d = math.nextafter(d, 0.0)
    for _ in range(16):
        if d * c + 1e-300 == true_delta:
            boundary = d
            break
        d = math.nextafter(d, 1.0)
    assert boundary is not None
    ev = PrivacyEvent.gaussian(1.0, budget=Budget(eps, boundary))
    assert ev.budget == Budget(eps, boundary)
    with pytest.raises(InvalidParameterError) as err:
        PrivacyEvent.gaussian(1.0, budget=Budget(eps, math.nextafter(boundary, 0.0) * (1 - 1e-9)))
    assert err.value.parameter == "budget"


def test_subsampled_gaussian_keeps_its_declared_budget():
    ev = PrivacyEvent.subsampled_gaussian(0.01, 1.0, budget=Budget(1.0, 1e-5))
    assert ev.budget == Budget(1.0, 1e-5)
    with pytest.raises(InvalidParameterError) as err:
        _ = PrivacyEvent.subsampled_gaussian(0.01, 1.0).budget
    assert err.value.parameter == "event"


def test_composed_budget_argument_is_named():
    parts = [PrivacyEvent.gaussian(1.0), PrivacyEvent.laplace(1.0)]
    with pytest.raises(InvalidParameterError) as err:
        PrivacyEvent.composed(parts, budget=(1.0, 1e-6))  # type: ignore[arg-type]
    assert err.value.parameter == "budget"
    assert str(err.value).startswith("budget:")


# --------------------------------------------------------------------------------------------
# Argument names
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("sens", [0, -1, 1.5, True])
def test_discrete_laplace_sensitivity_is_named(sens):
    with pytest.raises(InvalidParameterError) as err:
        PrivacyEvent.discrete_laplace(1.0, sensitivity=sens)
    assert err.value.parameter == "sensitivity"
    assert str(err.value).startswith("sensitivity:")


@pytest.mark.parametrize(
    "args,name",
    [
        ((0.0, 1.0, 1.0), "rate"),
        ((1.5, 1.0, 1.0), "rate"),
        ((0.1, 0.0, 1.0), "scale"),
        ((0.1, -1.0, 1.0), "scale"),
        ((0.1, math.nan, 1.0), "scale"),
        ((0.1, 1.0, 0.0), "sensitivity"),
        ((0.1, 1.0, math.inf), "sensitivity"),
    ],
)
def test_fixed_size_laplace_epsilon_names_the_bad_argument(args, name):
    with pytest.raises(InvalidParameterError) as err:
        fixed_size_laplace_epsilon(*args)
    assert err.value.parameter == name
    assert str(err.value).startswith(f"{name}:")
