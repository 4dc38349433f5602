"""Tests that kill surviving mutants of the accounting package (issue 18, mutation testing).

Each test pins one observable behaviour that a sampled mutant changed without any other test
noticing: an error's parameter name, the neighbouring relation of a charge, the plan slot given
back by a released transaction, a refused inexact rational, the grid of a self-composed PLD, the
safe side of the atoms' curve and the range of sigma at which the subsampled Gaussian's curve is
computed. Numeric references are derived here in mpmath from the papers' formulas, never from
privlearn's helpers.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from privlearn.accounting._accountant import Accountant
from privlearn.accounting._budget import Budget
from privlearn.accounting._neighbours import ADD_REMOVE_ONE
from privlearn.accounting._pld import _atoms_deltas, pld_discrete_laplace
from privlearn.accounting._rdp import rdp_subsampled_gaussian
from privlearn.accounting._zcdp import ZcdpBudget
from privlearn.errors import InvalidParameterError

# --------------------------------------------------------------------------------------------
# Accountant
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["zcdp", "rdp"])
def test_non_budget_total_is_refused_naming_total(mode: str) -> None:
    # zCDP / RDP filters converting an (epsilon, delta) total name "total" when it is not one.
    with pytest.raises(InvalidParameterError) as info:
        Accountant("one epsilon", composition=mode)  # type: ignore[arg-type]
    assert info.value.parameter == "total"
    assert str(info.value).startswith("total:")


def test_budget_spend_takes_the_accountants_relation_in_zcdp_mode() -> None:
    # A Budget spent on an add/remove-one zCDP filter is an add/remove-one event: it is charged
    # (not refused as a replace-one event), at eps^2 / 2 (Bun and Steinke, TCC 2016, Prop. 1.4).
    acct = Accountant(Budget(1.0, 1e-6), composition="zcdp", neighbours=ADD_REMOVE_ONE)
    entry = acct.spend(Budget(0.1), "query")
    assert entry.event is not None and entry.event.neighbours == ADD_REMOVE_ONE
    assert acct.ledger[-1].label == "query"
    rho = acct.spent_native.rho
    exact = mp.mpf(0.1) ** 2 / 2
    assert exact <= rho <= exact * (1 + 1e-9)


def test_pld_released_transaction_gives_its_slot_back_to_a_direct_spend() -> None:
    # A transaction that raises releases its plan slot; a direct spend then takes the slot and
    # the plan continues with the next event.
    acct = Accountant(Budget(1.0, 1e-6), composition="pld", plan=[Budget(0.1), Budget(0.2)])
    with pytest.raises(RuntimeError):
        with acct.transaction(Budget(0.1), "tried"):
            raise RuntimeError("the block failed")
    acct.spend(Budget(0.1), "first")
    assert acct.remaining_native == (acct.plan or ())[1:]
    acct.spend(Budget(0.2), "second")
    assert acct.remaining_native == ()
    assert [e.label for e in acct.ledger] == ["first", "second"]


# --------------------------------------------------------------------------------------------
# zCDP
# --------------------------------------------------------------------------------------------


def test_zcdp_budget_refuses_an_inexact_rational() -> None:
    with pytest.raises(InvalidParameterError) as info:
        ZcdpBudget(Fraction(1, 3))  # type: ignore[arg-type]
    assert info.value.parameter == "rho"
    quarter = ZcdpBudget(Fraction(1, 4))  # type: ignore[arg-type]
    assert quarter.rho == 0.25


# --------------------------------------------------------------------------------------------
# PLD
# --------------------------------------------------------------------------------------------


def test_pld_discrete_laplace_refuses_zero_scale() -> None:
    with pytest.raises(InvalidParameterError) as info:
        pld_discrete_laplace(0.0)
    assert info.value.parameter == "scale"


def test_pld_self_composition_keeps_the_grid() -> None:
    h = 1e-3
    curve = pld_discrete_laplace(2.0, value_discretization=h)
    three = curve * 3
    assert three.value_discretization == h
    assert (three + curve).value_discretization == h


def test_atoms_deltas_never_below_the_exact_sum_with_infinite_mass() -> None:
    # sum_{l_a > eps} p_a (1 - e^{eps - l_a}) + p_inf, summed in mpmath; above the largest
    # finite loss only p_inf is left, and the bound must not fall below it.
    losses = np.array([0.7, -0.2, 0.3])
    pmass = np.array([0.5, 0.25, 0.25 - 3e-3])
    inf = 3e-3
    eps = np.array([-1.0, -0.2, 0.0, 0.5, 0.7, 0.71, 1.0, 5.0])
    got = _atoms_deltas(losses, pmass, inf, eps)
    for e, g in zip(eps, got):
        exact = mp.fsum(
            mp.mpf(p) * (1 - mp.exp(mp.mpf(e) - mp.mpf(l))) for l, p in zip(losses, pmass) if l > e
        ) + mp.mpf(inf)
        assert g >= exact, (e, g, exact)
        assert g <= exact * (1 + 1e-9), (e, g, exact)


# --------------------------------------------------------------------------------------------
# RDP
# --------------------------------------------------------------------------------------------


def _mp_sgm_rdp(q: float, sigma: float, alpha: int) -> mp.mpf:
    """ln(A_alpha) / (alpha - 1), A_alpha = sum_k C(alpha, k) (1-q)^(alpha-k) q^k
    e^((k^2-k)/(2 sigma^2)) (Mironov, Talwar and Zhang 2019, Section 3.3), by log-sum-exp."""
    with mp.workdps(60):
        qq, s2 = mp.mpf(q), mp.mpf(sigma) ** 2
        logs = [
            mp.log(mp.binomial(alpha, k))
            + (alpha - k) * mp.log(1 - qq)
            + k * mp.log(qq)
            + (k * k - k) / (2 * s2)
            for k in range(alpha + 1)
        ]
        top = max(logs)
        return (top + mp.log(mp.fsum(mp.exp(t - top) for t in logs))) / (alpha - 1)


def test_subsampled_gaussian_curve_at_a_tiny_sigma() -> None:
    # At sigma ~ 4.77e-7 the order-1024 term e^{1024 * 1023 / (2 sigma^2)} is near the top of
    # the decimal range (10^(10^18)); the curve is still computed, and matches mpmath.
    q, sigma = 0.5, 4.771743762274878e-07
    curve = rdp_subsampled_gaussian(q, sigma)
    for alpha in (2, 63, 1024):
        exact = _mp_sgm_rdp(q, sigma, alpha)
        got = curve.at(float(alpha))
        assert got >= exact, (alpha, got, exact)
        assert got <= exact * (1 + 1e-12), (alpha, got, exact)
