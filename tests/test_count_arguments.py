"""Count arguments (``size``, ``k``, ``rounds``, ``max_positives``, queries, ...) are normalised
once, with the integer protocol (``operator.index``), before anything is charged or drawn, and
the charge is the exact composed guarantee rounded up to the next float (issue 16, "under-charged
size").

The expected charges are computed here from :class:`fractions.Fraction` and
:func:`math.nextafter`, independently of privlearn's own rounding helpers.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import privlearn.multi._sanitizers as mwem_module  # the module where mwem looks up its mechanisms
from privlearn import mechanisms as M
from privlearn._validate import check_integer
from privlearn.accounting import (
    Accountant,
    Budget,
    compose_advanced,
    compose_optimal,
    group_privacy,
)
from privlearn.errors import InvalidParameterError
from privlearn.hypotheses import Thresholds
from privlearn.multi import exponential_sample_size, mwem, per_concept_budget
from privlearn.prediction import ERMClassifier, PrivatePredictor, SubsampleAggregatePredictor
from privlearn.query_release import svt_guarantee
from privlearn.random import Generator

NUMPY_COUNTS = [np.int64, np.int32, np.uint16, np.int8]
# Not counts: bools (an int subclass in Python, np.bool_ in numpy), floats even when whole,
# strings, None-like values, fractions.
NOT_COUNTS = [True, False, np.True_, 3.0, np.float64(3.0), "3", Fraction(3), 3 + 0j]


def smallest_float_at_least(x: Fraction) -> float:
    """The smallest float >= x (x a non-negative rational below the largest float)."""
    f = float(x)  # correctly rounded: within one ulp of x
    if Fraction(f) < x:
        f = math.nextafter(f, math.inf)
    assert Fraction(f) >= x and (f == 0.0 or Fraction(math.nextafter(f, -math.inf)) < x)
    return f


def composed(epsilon: float, k: int) -> float:
    """The epsilon of the k-fold basic composition of epsilon-DP releases, rounded up."""
    return smallest_float_at_least(k * Fraction(epsilon))


def untouched(acct: Accountant) -> bool:
    return len(acct.ledger) == 0 and acct.spent == Budget(0.0) and acct.remaining == acct.total


def same_stream(g: Generator, seed: int) -> bool:
    """Whether ``g`` (made from ``seed``) has drawn nothing yet."""
    return g.random_raw() == Generator(seed).random_raw()


# --------------------------------------------------------------------------------------------
# The rounding itself
# --------------------------------------------------------------------------------------------


def test_seven_tenths_times_three_is_rounded_up_to_the_next_float():
    exact = 3 * Fraction(0.7)
    naive = 0.7 * 3
    assert naive == 2.0999999999999996 and Fraction(naive) < exact  # the old, under-charged value
    expected = smallest_float_at_least(exact)
    assert expected == math.nextafter(naive, math.inf)
    for k in (3, np.int64(3), np.int32(3), np.uint8(3)):
        b = k * Budget(0.7)
        assert b == Budget(0.7) * k == Budget(expected)
        assert Fraction(b.epsilon) >= exact
        assert Fraction(math.nextafter(b.epsilon, -math.inf)) < exact  # and the smallest such
    acct = Accountant(Budget(10.0))
    out = M.exponential([0.0, 1.0, 2.0], 0.7, size=3, rng=1, accountant=acct)
    assert len(out) == 3
    assert acct.spent.epsilon == expected and len(acct.ledger) == 1
    assert Fraction(acct.ledger[0].budget.epsilon) >= exact


@pytest.mark.parametrize("epsilon", [0.7, 0.1, 1 / 3, 0.3, 2.0**-30 * 3])
@pytest.mark.parametrize("k", [1, 2, 3, 7, 10, 1000, 12345])
def test_budget_product_is_the_exact_product_rounded_up(epsilon, k):
    delta = 1e-7
    b = np.int64(k) * Budget(epsilon, delta)
    assert b.epsilon == composed(epsilon, k)
    assert b.delta == smallest_float_at_least(k * Fraction(delta))


def test_budget_product_refuses_non_counts():
    for bad in (True, np.True_, 3.0, np.float64(3.0), Fraction(3)):
        with pytest.raises((TypeError, InvalidParameterError)):
            _ = bad * Budget(1.0)  # type: ignore[operator]
    with pytest.raises(InvalidParameterError, match=r"^k: must be an integer >= 0; got -1$"):
        _ = np.int64(-1) * Budget(1.0)


# --------------------------------------------------------------------------------------------
# The shared check
# --------------------------------------------------------------------------------------------


class _Indexable:
    """Not registered as numbers.Integral, but implements the integer protocol."""

    def __index__(self) -> int:
        return 6


def test_check_integer_uses_the_integer_protocol():
    for t in NUMPY_COUNTS + [np.uint64]:
        v = check_integer(t(5), "size", 0)
        assert v == 5 and type(v) is int
    assert check_integer(np.uint64(2**63 + 1), "size") == 2**63 + 1
    v = check_integer(_Indexable(), "size")
    assert v == 6 and type(v) is int
    for bad in NOT_COUNTS + [None, np.array([3])]:
        with pytest.raises(
            InvalidParameterError, match=r"^size: must be an integer >= 1; got"
        ) as err:
            check_integer(bad, "size")
        assert err.value.parameter == "size"
    with pytest.raises(InvalidParameterError, match=r"^size: must be an integer >= 0; got -1$"):
        check_integer(np.int64(-1), "size", 0)


# --------------------------------------------------------------------------------------------
# Mechanisms
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("t", NUMPY_COUNTS + [int])
@pytest.mark.parametrize("numerics", ["exact", "fast"])
def test_exponential_size_charges_every_draw(t, numerics):
    for epsilon, size in ((0.7, 3), (0.1, 10), (0.3, 7)):
        acct = Accountant(Budget(100.0))
        out = M.exponential(
            [0.0, 1.0, 2.0], epsilon, size=t(size), rng=2, accountant=acct, numerics=numerics
        )
        assert isinstance(out, np.ndarray) and out.shape == (size,)
        assert len(acct.ledger) == 1
        assert acct.spent.epsilon == composed(epsilon, size) and acct.spent.delta == 0.0
        assert Fraction(acct.spent.epsilon) >= size * Fraction(epsilon)


def test_exponential_size_zero_and_none():
    acct = Accountant(Budget(1.0))
    assert M.exponential([0.0, 1.0], 0.5, size=np.int64(0), rng=1, accountant=acct).shape == (0,)
    assert acct.spent == Budget(0.0)
    i = M.exponential([0.0, 1.0], 0.5, rng=1, accountant=acct)
    assert isinstance(i, int) and acct.spent == Budget(0.5)


def test_exponential_size_that_does_not_fit_draws_nothing():
    from privlearn import BudgetExceededError

    acct = Accountant(Budget(2.0))
    g = Generator(5)
    with pytest.raises(BudgetExceededError):
        M.exponential([0.0, 1.0], 0.7, size=np.int64(3), rng=g, accountant=acct)  # 2.1 > 2
    assert untouched(acct) and same_stream(g, 5)


@pytest.mark.parametrize("bad", NOT_COUNTS + [-1, np.int64(-3)], ids=repr)
def test_exponential_refuses_a_bad_size_before_charging(bad):
    acct = Accountant(Budget(100.0))
    g = Generator(7)
    with pytest.raises(InvalidParameterError) as err:
        M.exponential([0.0, 1.0], 0.5, size=bad, rng=g, accountant=acct)
    assert err.value.parameter == "size"
    assert untouched(acct) and same_stream(g, 7)


@pytest.mark.parametrize("t", NUMPY_COUNTS)
def test_randomized_response_k_accepts_numpy_k(t):
    acct = Accountant(Budget(1.0))
    out = M.randomized_response_k([0, 1, 2, 2], t(3), 0.5, rng=1, accountant=acct)
    assert out.shape == (4,) and set(np.unique(out)) <= {0, 1, 2}
    assert acct.spent == Budget(0.5)  # one epsilon-DP release per record, whatever k


@pytest.mark.parametrize("bad", NOT_COUNTS + [1, np.int64(0), -2], ids=repr)
def test_randomized_response_k_refuses_a_bad_k_before_charging(bad):
    acct = Accountant(Budget(1.0))
    g = Generator(3)
    with pytest.raises(InvalidParameterError) as err:
        M.randomized_response_k([0, 1], bad, 0.5, rng=g, accountant=acct)
    assert err.value.parameter == "k"
    assert untouched(acct) and same_stream(g, 3)


@pytest.mark.parametrize("t", NUMPY_COUNTS)
def test_sparse_vector_max_positives(t):
    acct = Accountant(Budget(1.0))
    sv = M.SparseVector(0.0, 0.5, max_positives=t(3), rng=4, accountant=acct)
    assert sv.max_positives == 3
    assert acct.spent == Budget(0.5)  # the whole interaction is epsilon-DP (Dwork-Roth Thm 3.25)
    answers = sv.query_many(np.full(10, 1e9))
    assert answers.tolist() == [True] * 3 and sv.halted and sv.positives == 3


@pytest.mark.parametrize("bad", NOT_COUNTS + [0, np.int64(-1)], ids=repr)
def test_sparse_vector_refuses_a_bad_max_positives_before_charging(bad):
    acct = Accountant(Budget(1.0))
    g = Generator(9)
    with pytest.raises(InvalidParameterError) as err:
        M.SparseVector(0.0, 0.5, max_positives=bad, rng=g, accountant=acct)
    assert err.value.parameter == "max_positives"
    assert untouched(acct) and same_stream(g, 9)


@pytest.mark.parametrize("t", NUMPY_COUNTS)
def test_l2_laplace_noise_counts(t):
    assert M.l2_laplace_noise(t(3), 1.0, size=t(7), rng=1).shape == (7, 3)
    assert M.l2_laplace_noise(t(2), 1.0, rng=1).shape == (2,)
    assert M.l2_laplace_noise(3, 1.0, size=t(0), rng=1).shape == (0, 3)


@pytest.mark.parametrize("bad", NOT_COUNTS + [-1], ids=repr)
def test_l2_laplace_noise_refuses_bad_counts(bad):
    g = Generator(2)
    with pytest.raises(InvalidParameterError) as err:
        M.l2_laplace_noise(3, 1.0, size=bad, rng=g)
    assert err.value.parameter == "size" and same_stream(g, 2)
    if bad != -1:
        with pytest.raises(InvalidParameterError) as err:
            M.l2_laplace_noise(bad, 1.0, rng=g)
        assert err.value.parameter == "dim"


# --------------------------------------------------------------------------------------------
# MWEM: 2 * rounds releases must compose to at most the epsilon charged
# --------------------------------------------------------------------------------------------


def _recorded_mwem(monkeypatch, epsilon, rounds):
    spent = []
    real_exp, real_lap = mwem_module.exponential, mwem_module.laplace

    def exp(scores, eps, sens=1.0, **kw):
        spent.append(eps)
        return real_exp(scores, eps, sens, **kw)

    def lap(value, sens, eps, **kw):
        spent.append(eps)
        return real_lap(value, sens, eps, **kw)

    monkeypatch.setattr(mwem_module, "exponential", exp)
    monkeypatch.setattr(mwem_module, "laplace", lap)
    counts = np.array([5, 0, 3, 2])
    queries = np.array([[1, 0, 1, 0], [0, 1, 1, 0], [1, 1, 1, 1]])
    acct = Accountant(Budget(10.0))
    dist = mwem(counts, queries, epsilon, rounds=rounds, rng=3, accountant=acct)
    return spent, acct, dist


@pytest.mark.parametrize(
    "epsilon,rounds", [(0.1, 7), (0.1, np.int64(11)), (1.0, np.int32(3)), (0.7, 5)]
)
def test_mwem_rounds_compose_within_the_charge(monkeypatch, epsilon, rounds):
    spent, acct, dist = _recorded_mwem(monkeypatch, epsilon, rounds)
    assert len(spent) == 2 * int(rounds)  # one exponential and one Laplace mechanism per round
    assert acct.spent == Budget(epsilon) and len(acct.ledger) == 1
    # basic composition of what was actually run fits in the charge, exactly
    assert sum(Fraction(e) for e in spent) <= Fraction(acct.spent.epsilon)
    assert dist.shape == (4,) and abs(dist.sum() - 1.0) < 1e-12


@pytest.mark.parametrize("bad", NOT_COUNTS + [0, -1], ids=repr)
def test_mwem_refuses_bad_rounds_before_charging(bad):
    acct = Accountant(Budget(1.0))
    with pytest.raises(InvalidParameterError) as err:
        mwem(np.array([1, 2]), np.array([[1, 0]]), 0.5, rounds=bad, rng=1, accountant=acct)
    assert err.value.parameter == "rounds" and untouched(acct)


# --------------------------------------------------------------------------------------------
# Accounting and the theory's functions
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("t", NUMPY_COUNTS)
def test_accounting_functions_accept_numpy_counts(t):
    b = Budget(0.3, 1e-8)
    assert compose_advanced(b, t(20), 1e-6) == compose_advanced(b, 20, 1e-6)
    assert compose_optimal(b, t(20), 1e-6) == compose_optimal(b, 20, 1e-6)
    assert compose_optimal(Budget(0.7), t(3), 0.0).epsilon == composed(0.7, 3)
    g = group_privacy(Budget(0.7), t(3))
    assert g == group_privacy(Budget(0.7), 3) and g.epsilon == composed(0.7, 3)
    assert per_concept_budget(1.0, 0.0, t(3)) == per_concept_budget(1.0, 0.0, 3)
    assert exponential_sample_size(t(16), 0.1, 1.0, k=t(5)) == exponential_sample_size(
        16, 0.1, 1.0, k=5
    )
    assert svt_guarantee(4.0, 2.0, t(10), 30.0) == svt_guarantee(4.0, 2.0, 10, 30.0)


@pytest.mark.parametrize("bad", NOT_COUNTS + [0, -1], ids=repr)
def test_accounting_functions_refuse_bad_counts(bad):
    b = Budget(0.3, 1e-8)
    for call in (
        lambda: compose_advanced(b, bad, 1e-6),
        lambda: compose_optimal(b, bad, 1e-6),
        lambda: group_privacy(b, bad),
        lambda: per_concept_budget(1.0, 0.0, bad),
    ):
        with pytest.raises(InvalidParameterError) as err:
            call()
        assert err.value.parameter == "k"


def test_svt_basic_composition_is_rounded_up():
    g = svt_guarantee(4.0, 2.0, np.int64(10), 30.0)
    assert g.rounds == 3
    assert g.composition == "basic"
    assert g.budget.epsilon == composed(g.round_epsilon, g.rounds)
    assert Fraction(g.round_epsilon) >= Fraction(2) / Fraction(4.0)


# --------------------------------------------------------------------------------------------
# Prediction: q queries cost q * epsilon_, rounded up
# --------------------------------------------------------------------------------------------


def _sample(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = np.sort(rng.uniform(0, 1, n))
    y = (X >= 0.5).astype(np.int64)
    return X, y


@pytest.mark.parametrize("t", [np.int64, np.int32, int])
def test_subsample_aggregate_counts_and_charges(t):
    X, y = _sample()
    acct = Accountant(Budget(100.0))
    clf = SubsampleAggregatePredictor(
        ERMClassifier(Thresholds()), t(5), 0.7, accountant=acct, rng=1
    ).fit(X, y)
    out = clf.predict(np.linspace(0, 1, 3))
    assert out.shape == (3,)
    assert acct.spent.epsilon == composed(0.7, 3)
    clf.predict(np.linspace(0, 1, 4))
    assert acct.spent.epsilon == smallest_float_at_least(
        Fraction(composed(0.7, 3)) + Fraction(composed(0.7, 4))
    )
    assert clf.privacy_spent_.epsilon == composed(0.7, 7)


@pytest.mark.parametrize("bad", NOT_COUNTS + [0, -1], ids=repr)
def test_subsample_aggregate_refuses_bad_teacher_counts(bad):
    X, y = _sample()
    acct = Accountant(Budget(1.0))
    with pytest.raises(InvalidParameterError) as err:
        SubsampleAggregatePredictor(
            ERMClassifier(Thresholds()), bad, 0.5, accountant=acct, rng=1
        ).fit(X, y)
    assert err.value.parameter == "n_teachers" and untouched(acct)


def test_private_predictor_charges_the_rounded_up_composition():
    X, y = _sample(200, 1)
    acct = Accountant(Budget(100.0))
    clf = PrivatePredictor(Thresholds(), 0.7, accountant=acct, rng=0).fit(X, y)
    eps = clf.epsilon_  # the certified per-query epsilon (what one answer costs)
    assert 0.0 < eps <= 0.7
    out = clf.predict(np.linspace(0, 1, 3))
    assert out.shape == (3,)
    assert acct.spent.epsilon == composed(eps, 3)
    assert clf.privacy_spent_.epsilon == composed(eps, 3)
