"""The mechanisms charge their guarantee in its native form (issue 18).

Each mechanism of :mod:`privlearn.mechanisms` hands its accountant a privacy event: a basic
accountant charges exactly the ``(epsilon, delta)`` it always charged; a zCDP or RDP accountant
composes the mechanism by its own curve. The expected charges are derived here from the papers,
not from the library's helpers:

* the exponential mechanism is epsilon-bounded-range (Durfee and Rogers, NeurIPS 2019), hence
  ``epsilon^2 / 8``-zCDP (Cesar and Rogers 2021, Lemma 3.2; Dong, Durfee and Rogers 2020);
* a pure epsilon-DP mechanism is ``epsilon^2 / 2``-zCDP (Bun and Steinke 2016, Proposition 1.4);
* the exact Gaussian mechanism adds discrete Gaussian noise of variance parameter
  ``sigma^2`` to the query rounded to its grid; its rho is ``Delta_u^2 / (2 sigma_u^2)`` in grid
  units (Canonne, Kamath and Steinke 2020, Theorem 4), which lies within a relative ``2^-18``
  above ``Delta^2 / (2 sigma^2)`` with the sampler's sigma (the grid is at most ``2^-20``
  times the sensitivity, widened by one step per coordinate and ``ceil(sqrt d)`` for vectors);
* k-ary randomized response's Rényi divergence at order alpha is that of the pair
  ``(e^eps, 1, ..., 1)/(e^eps + k - 1)`` against its swap (Mironov 2017, Section VI),
  computed here in closed form with mpmath.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privlearn import mechanisms as mech
from privlearn.accounting import Budget
from privlearn.accounting._accountant import Accountant
from privlearn.accounting._event import PrivacyEvent
from privlearn.errors import BudgetExceededError, InvalidParameterError

mpmath = pytest.importorskip("mpmath")
mp = mpmath.mp


def _zcdp(total=None):
    return Accountant(Budget(5.0, 1e-6) if total is None else total, composition="zcdp")


def _one_entry(acct):
    (entry,) = acct.ledger
    return entry


@pytest.mark.parametrize(
    "release, budget",
    [
        (lambda a: mech.exponential([0.0, 1.0, 3.0], 0.5, rng=1, accountant=a), Budget(0.5)),
        (lambda a: mech.exponential([0.0, 1.0], 0.25, size=4, rng=1, accountant=a), Budget(1.0)),
        (lambda a: mech.laplace(3.0, 1.0, 0.5, rng=1, accountant=a), Budget(0.5)),
        (lambda a: mech.gaussian(3.0, 1.0, 0.5, 1e-6, rng=1, accountant=a), Budget(0.5, 1e-6)),
        (
            lambda a: mech.gaussian(np.zeros(5), 1.0, 0.5, 1e-6, rng=1, accountant=a),
            Budget(0.5, 1e-6),
        ),
        (
            lambda a: mech.gaussian(3.0, 1.0, 0.5, 1e-6, rng=1, accountant=a, numerics="fast"),
            Budget(0.5, 1e-6),
        ),
        (lambda a: mech.randomized_response([0, 1, 1], 0.5, rng=1, accountant=a), Budget(0.5)),
        (lambda a: mech.randomized_response_k([0, 2], 3, 0.5, rng=1, accountant=a), Budget(0.5)),
        (lambda a: mech.report_noisy_max([0.0, 2.0], 0.5, rng=1, accountant=a), Budget(0.5)),
        (lambda a: mech.permute_and_flip([0.0, 2.0], 0.5, rng=1, accountant=a), Budget(0.5)),
    ],
)
def test_basic_accountant_charges_what_it_always_charged(release, budget):
    acct = Accountant(Budget(10.0, 1e-5))
    release(acct)
    entry = _one_entry(acct)
    assert entry.budget == budget
    assert entry.event is not None and entry.event.budget == budget
    assert acct.spent == budget


def test_exponential_mechanism_charges_eps_squared_over_8_in_zcdp():
    acct = _zcdp()
    mech.exponential([0.0, 1.0, 3.0], 0.5, rng=1, accountant=acct)
    assert acct.spent_native.rho == 0.5**2 / 8  # exact in floats
    acct2 = _zcdp()
    mech.exponential([0.0, 1.0], 0.5, size=6, rng=1, accountant=acct2)
    assert acct2.spent_native.rho == 6 * 0.5**2 / 8


@pytest.mark.parametrize("noise, rho", [("gumbel", 0.5**2 / 8), ("exponential", 0.5**2 / 2)])
def test_report_noisy_max_is_bounded_range_only_with_gumbel_noise(noise, rho):
    acct = _zcdp()
    mech.report_noisy_max([0.0, 2.0, 1.0], 0.5, noise=noise, rng=1, accountant=acct)
    assert acct.spent_native.rho == rho


@pytest.mark.parametrize(
    "release",
    [
        lambda a: mech.laplace(3.0, 1.0, 0.5, rng=1, accountant=a),
        lambda a: mech.permute_and_flip([0.0, 2.0], 0.5, rng=1, accountant=a),
    ],
)
def test_pure_mechanisms_charge_eps_squared_over_2_in_zcdp(release):
    acct = _zcdp()
    release(acct)
    assert acct.spent_native.rho == 0.5**2 / 2


@pytest.mark.parametrize("dim", [1, 7])
@pytest.mark.parametrize("sens, eps, delta", [(1.0, 0.5, 1e-6), (3.7, 2.0, 1e-9)])
def test_exact_gaussian_charges_its_discrete_rho(dim, sens, eps, delta):
    acct = _zcdp(Budget(50.0, 1e-5))
    value = 1.5 if dim == 1 else np.ones(dim)
    mech.gaussian(value, sens, eps, delta, rng=1, accountant=acct)
    sigma = mech.gaussian_sigma(sens, eps, delta, dim=dim)
    rho = acct.spent_native.rho
    ideal = sens**2 / (2 * sigma**2)
    widen = 1 + 2.0**-20 * (1 + math.ceil(math.sqrt(dim)))
    assert ideal * (1 - 1e-12) <= rho <= ideal * widen**2 * (1 + 1e-12)
    # And the charge meets the declared (epsilon, delta) by the Gaussian's exact curve: the
    # zCDP rho of a Gaussian calibrated for (eps, delta) is at most that of Balle-Wang's sigma.
    assert rho > 0


def test_fast_gaussian_charges_the_continuous_rho():
    acct = _zcdp(Budget(50.0, 1e-5))
    mech.gaussian(0.0, 2.0, 1.0, 1e-6, rng=1, accountant=acct, numerics="fast")
    sigma = mech.gaussian_sigma(2.0, 1.0, 1e-6, numerics="fast")
    assert acct.spent_native.rho == pytest.approx(4.0 / (2 * sigma**2), rel=1e-15)
    assert acct.spent_native.rho >= 4.0 / (2 * sigma**2)


def _rr_renyi(eps, k, alpha):
    """Mironov 2017: D_alpha of k-ary randomized response's worst pair, by mpmath."""
    e, a = mp.exp(mp.mpf(eps)), mp.mpf(alpha)
    z = e + k - 1
    p = [e / z, 1 / z] + [1 / z] * (k - 2)
    q = [1 / z, e / z] + [1 / z] * (k - 2)
    return mp.log(sum(pi**a * qi ** (1 - a) for pi, qi in zip(p, q))) / (a - 1)


@pytest.mark.parametrize("k", [2, 5])
def test_randomized_response_charges_its_renyi_curve_at_the_order(k):
    acct = Accountant(Budget(5.0, 1e-6), composition="rdp", order=8.0)
    if k == 2:
        mech.randomized_response([0, 1], 0.3, rng=1, accountant=acct)
    else:
        mech.randomized_response_k([0, 4], k, 0.3, rng=1, accountant=acct)
    spent = acct.spent_native.at(8.0)
    with mp.workdps(40):
        exact = _rr_renyi(0.3, k, 8)
        assert exact <= spent <= exact * (1 + mp.mpf(2) ** -40)


def test_zcdp_fits_more_exponential_mechanisms_than_basic_composition():
    total = Budget(1.0, 1e-6)
    basic, zcdp = Accountant(total), _zcdp(total)
    counts = []
    for acct in (basic, zcdp):
        n = 0
        with pytest.raises(BudgetExceededError):
            for _ in range(10_000):
                mech.exponential([0.0, 1.0], 0.02, rng=n, accountant=acct)
                n += 1
        counts.append(n)
    # basic: 1 / 0.02 = 50; zCDP: rho_total / (0.02^2 / 8), about 487 at (1, 1e-6).
    assert counts[0] == 50
    assert counts[1] >= 9 * counts[0]


def test_invalid_input_charges_nothing_in_every_mode():
    for acct in (Accountant(Budget(1.0, 1e-6)), _zcdp()):
        with pytest.raises(InvalidParameterError):
            mech.gaussian(float("nan"), 1.0, 0.5, 1e-6, rng=1, accountant=acct)
        with pytest.raises(InvalidParameterError):
            mech.gaussian(1.0, -1.0, 0.5, 1e-6, rng=1, accountant=acct)
        with pytest.raises(InvalidParameterError):
            mech.exponential([0.0, float("inf")], 0.5, rng=1, accountant=acct)
        assert acct.ledger == ()


def test_a_delta_budget_without_native_form_is_refused_by_zcdp_before_drawing():
    # stable_argmax states only (epsilon, delta): a zCDP accountant cannot compose it.
    acct = _zcdp()
    with pytest.raises(InvalidParameterError, match="zCDP"):
        mech.stable_argmax([0.0, 5.0], 0.5, 1e-6, rng=1, accountant=acct)
    assert acct.ledger == ()


def test_the_events_state_replace_one_neighbours():
    acct = Accountant(Budget(10.0, 1e-5))
    mech.gaussian(np.zeros(3), 1.0, 0.5, 1e-6, rng=1, accountant=acct)
    mech.exponential([0.0, 1.0], 0.5, rng=1, accountant=acct)
    for entry in acct.ledger:
        assert isinstance(entry.event, PrivacyEvent)
        assert entry.event.neighbours == "replace-one"
