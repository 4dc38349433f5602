"""Accounting edge cases found by mutation testing (scripts/mutation, issue 16).

Each test kills mutants of privlearn/accounting.py that survived the rest of the suite: the
delta of open transactions counting against the total, the exact-ratio branch of
``amplify_any_by_subsampling`` (Balle-Barthe-Gaboardi 2018, Theorem 8 / Section 5.4: subsampling
m of n rows without replacement gives (0, m/n)-DP for any mechanism, replace-one) and the
ordering of budgets against other types.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from privlearn.accounting import Accountant, Budget, amplify_any_by_subsampling
from privlearn.errors import BudgetExceededError, InvalidParameterError


def _up(q: Fraction) -> float:
    """The least float >= q (written here, not taken from the library)."""
    x = float(q)
    return x if Fraction(x) >= q else math.nextafter(x, math.inf)


# -- reservations of open transactions --------------------------------------------------------


def test_open_transaction_reserves_its_delta():
    acc = Accountant(Budget(1.0, 1e-5))
    with acc.transaction(Budget(0.1, 6e-6), "first"):
        # While the first is open its delta is reserved: 6e-6 more does not fit in 1e-5.
        assert acc.remaining.delta <= 4e-6 * (1 + 1e-12)
        with pytest.raises(BudgetExceededError):
            with acc.transaction(Budget(0.1, 6e-6), "second"):
                pass  # pragma: no cover
    # Committed: spent 6e-6, nothing reserved any more.
    rem = acc.remaining
    assert 4e-6 * (1 - 1e-12) <= rem.delta <= 4e-6 * (1 + 1e-12)
    with pytest.raises(BudgetExceededError):
        acc.spend(Budget(0.1, 6e-6), "third")


def test_open_transaction_reserves_its_epsilon():
    acc = Accountant(Budget(1.0))
    with acc.transaction(Budget(0.6), "first"):
        assert acc.remaining.epsilon <= 0.4 * (1 + 1e-12)
        with pytest.raises(BudgetExceededError):
            with acc.transaction(Budget(0.6), "second"):
                pass  # pragma: no cover
    assert 0.4 * (1 - 1e-12) <= acc.remaining.epsilon <= 0.4 * (1 + 1e-12)


def test_committed_transaction_is_in_the_ledger():
    acc = Accountant(Budget(1.0, 1e-6))
    with acc.transaction(Budget(0.25, 1e-7), "the release"):
        pass
    (entry,) = acc.ledger
    assert entry.label == "the release"
    assert entry.kind == "spend"
    assert entry.budget == Budget(0.25, 1e-7)


def test_released_transaction_frees_its_reservation():
    acc = Accountant(Budget(1.0, 1e-5))
    with pytest.raises(RuntimeError):
        with acc.transaction(Budget(0.5, 6e-6), "failed"):
            raise RuntimeError("the release failed")
    # Nothing spent, nothing reserved: the whole budget is left.
    assert acc.remaining == Budget(1.0, 1e-5)
    acc.spend(Budget(1.0, 1e-5), "all of it")


def test_transaction_enters_once():
    acc = Accountant(Budget(1.0, 0.0))
    tx = acc.transaction(Budget(0.1), "once")
    with tx:
        pass
    with pytest.raises(RuntimeError):
        with tx:
            pass  # pragma: no cover


# -- amplify_any_by_subsampling with the dataset size ------------------------------------------


def test_subsampling_exact_ratio_rounds_up():
    # m / n = 3 / 10 exactly; the float 0.3 is below 3/10, so the exact ratio rounds up.
    got = amplify_any_by_subsampling(0.3, n=10)
    assert got.epsilon == 0.0
    assert got.delta == _up(Fraction(3, 10))
    assert Fraction(got.delta) >= Fraction(3, 10)
    # Without n, the float rate itself is the (exactly represented) delta.
    assert amplify_any_by_subsampling(0.3).delta == 0.3


def test_subsampling_single_row_sample():
    # m = 1 is a valid sample size.
    assert amplify_any_by_subsampling(0.5, n=2) == Budget(0.0, 0.5)
    assert amplify_any_by_subsampling(0.25, n=4) == Budget(0.0, 0.25)


def test_subsampling_rate_times_n_within_tolerance():
    # rate * n = 3 + 2e-9: a whole m = 3 up to the documented relative 1e-9 of max(1, rate * n).
    got = amplify_any_by_subsampling((3 + 2e-9) / 10, n=10)
    assert got.delta == _up(Fraction(3, 10))


@pytest.mark.parametrize(
    "rate, n",
    [
        (0.35, 10),  # rate * n = 3.5 is not a sample size
        (0.01, 10),  # rate * n = 0.1 rounds to m = 0
        ((1 - 1.5e-9) / 2, 2),  # rate * n is 1.5e-9 away from m = 1: beyond the 1e-9 tolerance
    ],
)
def test_subsampling_refuses_non_whole_sample_sizes(rate, n):
    with pytest.raises(InvalidParameterError):
        amplify_any_by_subsampling(rate, n=n)


@pytest.mark.parametrize("rate", [0.0, -0.1, 1.5, math.inf, math.nan])
def test_subsampling_refuses_rates_outside_unit_interval(rate):
    with pytest.raises(InvalidParameterError):
        amplify_any_by_subsampling(rate)


@pytest.mark.parametrize("n", [0, -3])
def test_subsampling_refuses_empty_datasets(n):
    with pytest.raises(InvalidParameterError):
        amplify_any_by_subsampling(0.5, n=n)


# -- ordering --------------------------------------------------------------------------------


def test_budget_order_against_other_types():
    assert Budget(0.5, 0.0) < Budget(1.0, 0.0)
    assert Budget(1.0, 1e-6) > Budget(1.0, 0.0)
    assert not Budget(1.0, 0.0) < Budget(1.0, 0.0)
    # Budgets are ordered componentwise: (1, 0) and (0.5, 1e-6) are incomparable.
    assert not Budget(1.0, 0.0) > Budget(0.5, 1e-6)
    assert not Budget(0.5, 1e-6) < Budget(1.0, 0.0)
    for op in ("__lt__", "__gt__", "__le__", "__ge__"):
        assert getattr(Budget(1.0), op)(1.0) is NotImplemented
    with pytest.raises(TypeError):
        Budget(1.0) < 1.0  # noqa: B015
    assert len({Budget(1.0, 0.0), Budget(2.0, 0.0), Budget(1.0, 0.0)}) == 2
