"""Every mechanism spends from an Accountant exactly what its guarantee states, only when it
releases something, and refuses an overspend before anything is drawn."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from privlearn import BudgetExceededError, InvalidParameterError
from privlearn import mechanisms as M
from privlearn.accounting import Accountant, Budget
from privlearn.random import Generator

CALLS = [
    ("exponential", lambda a, g: M.exponential([0.0, 1.0], 0.5, rng=g, accountant=a), Budget(0.5)),
    (
        "exponential x3",
        lambda a, g: M.exponential([0.0, 1.0], 0.5, size=3, rng=g, accountant=a),
        Budget(1.5),
    ),
    ("laplace", lambda a, g: M.laplace(1.0, 1.0, 0.5, rng=g, accountant=a), Budget(0.5)),
    (
        "gaussian",
        lambda a, g: M.gaussian(1.0, 1.0, 0.5, 1e-6, rng=g, accountant=a),
        Budget(0.5, 1e-6),
    ),
    (
        "rr",
        lambda a, g: M.randomized_response([True, False], 0.5, rng=g, accountant=a),
        Budget(0.5),
    ),
    ("krr", lambda a, g: M.randomized_response_k([0, 2], 3, 0.5, rng=g, accountant=a), Budget(0.5)),
    ("rnm", lambda a, g: M.report_noisy_max([0.0, 1.0], 0.5, rng=g, accountant=a), Budget(0.5)),
    ("pf", lambda a, g: M.permute_and_flip([0.0, 1.0], 0.5, rng=g, accountant=a), Budget(0.5)),
    (
        "stable",
        lambda a, g: M.stable_argmax([0, 9], 0.5, 1e-6, rng=g, accountant=a),
        Budget(0.5, 1e-6),
    ),
    ("svt", lambda a, g: M.SparseVector(0.0, 0.5, rng=g, accountant=a), Budget(0.5)),
]


@pytest.mark.parametrize("name,call,cost", CALLS, ids=[c[0] for c in CALLS])
def test_charges_the_stated_budget(name, call, cost):
    acct = Accountant(Budget(2.0, 1e-5))
    call(acct, Generator(1))
    assert acct.spent == cost
    assert [e.budget for e in acct.ledger] == [cost]


@pytest.mark.parametrize("name,call,cost", CALLS, ids=[c[0] for c in CALLS])
def test_overspend_raises_before_drawing(name, call, cost):
    acct = Accountant(Budget(0.1))
    g = Generator(2)
    with pytest.raises(BudgetExceededError):
        call(acct, g)
    assert acct.spent == Budget(0.0) and acct.ledger == ()
    assert g.random_raw() == Generator(2).random_raw()


def test_invalid_input_charges_nothing():
    acct = Accountant(Budget(2.0))
    with pytest.raises(InvalidParameterError):
        M.laplace(float("nan"), 1.0, 0.5, accountant=acct)
    with pytest.raises(InvalidParameterError):
        M.exponential([], 0.5, accountant=acct)
    with pytest.raises(InvalidParameterError):
        M.laplace(1.0, 1.0, -0.5, accountant=acct)
    with pytest.raises(InvalidParameterError, match="accountant"):
        M.laplace(1.0, 1.0, 0.5, accountant="budget")
    assert acct.ledger == ()


def test_spends_compose_until_the_total_is_used():
    acct = Accountant(Budget(1.0))
    for _ in range(10):
        M.laplace(0.0, 1.0, 0.1, accountant=acct)
    with pytest.raises(BudgetExceededError):
        M.laplace(0.0, 1.0, 0.1, accountant=acct)
    assert len(acct.ledger) == 10


LABELS = {
    "exponential": "exponential mechanism",
    "exponential x3": "exponential mechanism",
    "laplace": "laplace",
    "gaussian": "gaussian",
    "rr": "randomized response",
    "krr": "k-ary randomized response",
    "rnm": "report-noisy-max",
    "pf": "permute-and-flip",
    "stable": "stable argmax",
    "svt": "sparse vector",
}


@pytest.mark.parametrize("name,call,cost", CALLS, ids=[c[0] for c in CALLS])
def test_ledger_names_the_mechanism(name, call, cost):
    # The ledger is the user's record of what the budget was spent on: one "spend" entry per
    # release, labelled with the mechanism's name.
    acct = Accountant(Budget(2.0, 1e-5))
    call(acct, Generator(3))
    assert [(e.label, e.kind) for e in acct.ledger] == [(LABELS[name], "spend")]


@pytest.mark.parametrize("size", [0, 1, 2, 3, 7])
def test_exponential_draws_charge_their_exact_composition(size):
    # `size` draws are `size` separate epsilon-DP releases: basic composition (Dwork and Roth,
    # Theorem 3.16) charges size * epsilon, the exact product rounded up to a float (the
    # exponential() docstring). Every count matters, including 2.
    eps = 0.7
    exact = size * Fraction(eps)
    want = float(exact)
    if Fraction(want) < exact:
        want = math.nextafter(want, math.inf)
    acct = Accountant(Budget(10.0))
    out = M.exponential([0.0, 1.0, 2.0], eps, size=size, rng=Generator(4), accountant=acct)
    assert out.shape == (size,)
    assert acct.spent == Budget(want)
    assert [e.budget for e in acct.ledger] == [Budget(want)]
