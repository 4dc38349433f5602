"""The learners charge their guarantee in its native form (issue 18).

A learner whose release is a known mechanism hands its accountant a
:class:`~privlearn.accounting._event.PrivacyEvent` instead of a plain ``Budget``: a basic
accountant charges exactly the ``(epsilon, delta)`` it always charged (the event's declared or
basic budget), and a zCDP, RDP or PLD accountant composes the release by its own curve. The
expected zCDP charges are derived here from the papers, never from the library's helpers:

* an exponential mechanism that is epsilon-DP is epsilon-bounded-range (Durfee and Rogers,
  NeurIPS 2019), hence ``epsilon^2 / 8``-zCDP (Cesar and Rogers, ALT 2021, Lemma 3.2; Dong,
  Durfee and Rogers, ICML 2020);
* a pure epsilon-DP release is ``epsilon^2 / 2``-zCDP (Bun and Steinke, TCC 2016,
  Proposition 1.4);
* zCDP composes additively, also adaptively (Bun and Steinke 2016, Lemma 1.7).

The learners' sensitivities and splits are the papers': Wang, Lei and Fienberg (JMLR 2016)
Algorithm 1 for the exponential-mechanism ERM (one exponential mechanism) and Example 22 for
best-subset selection (two, ``split * epsilon`` then the rest); Hardt, Ligett and McSherry
(NeurIPS 2012) Algorithm 1 for MWEM (``rounds`` exponential mechanisms and Laplace
measurements of ``epsilon / (2 rounds)`` each); Bun, Nissim and Stemmer (seed 002) for the
multi-learners (``k`` exponential mechanisms of the public ``per_concept_`` epsilon);
Dwork and Feldman (COLT 2018) for the noisy vote (one exponential mechanism per answer, on
counts of sensitivity 1). All are stated for replace-one neighbours.

Learners left on ``Budget`` (no native curve beyond what a ``Budget`` already is, or an
``(epsilon, delta)`` proof): output and objective perturbation and the functional mechanism
(pure epsilon-DP, which a pure ``Budget`` already composes as), ``ApproximateGibbsERM``,
``SubsampledERM`` (amplification by subsampling), ``BoostedERM`` and ``PrivateTuning``
(parallel composition over a hidden random partition: a mixture of a bounded-range and a pure
mechanism is not known to be bounded-range), the stability-based learners and the
query-release sessions (their delta comes from a stability argument).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

import privlearn.multi as multi
from privlearn.accounting import Budget
from privlearn.accounting._accountant import Accountant
from privlearn.accounting._event import PrivacyEvent
from privlearn.accounting._zcdp import ZcdpBudget
from privlearn.errors import InvalidParameterError
from privlearn.hypotheses import Points, Thresholds
from privlearn.learners import BestSubsetERM, ContinuousThresholds, ExponentialMechanismERM
from privlearn.prediction import PrivatePredictor, SubsampleAggregatePredictor

# -- data ------------------------------------------------------------------------------------


def _erm_data(flip: bool = False):
    g = np.random.default_rng(5)
    X = g.uniform(-1, 1, (40, 2))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    if flip:  # a replace-one neighbour: the first row replaced
        X = X.copy()
        y = y.copy()
        X[0] = [1.0, 1.0]
        y[0] = 0
    return X, y


def _points_data(flip: bool = False):
    g = np.random.default_rng(7)
    X = g.integers(0, 8, 40)
    Y = X[:, None] == np.array([2, 5, 7])[None, :]
    if flip:
        X = X.copy()
        Y = Y.copy()
        X[0] = 7
        Y[0] = [False, True, True]
    return X, Y


def _line_data(flip: bool = False):
    g = np.random.default_rng(9)
    X = g.random(60)
    y = (X > 0.5).astype(int)
    if flip:
        X = X.copy()
        y = y.copy()
        X[0] = 0.0
        y[0] = 1
    return X, y


MWEM_COUNTS = np.array([8, 2, 5, 0, 10, 5])
MWEM_NEIGHBOUR = np.array([7, 2, 5, 1, 10, 5])  # one record moved from cell 0 to cell 3
MWEM_QUERIES = np.array([[1, 1, 1, 0, 0, 0], [0, 1, 0, 1, 0, 1], [1, 0, 0, 0, 0, 1]])
QUERIES = np.array([0.05, 0.45, 0.55, 0.7, 0.95])

# -- the releases: run(data_flag, accountant) ------------------------------------------------


def erm_continuous(flip, acct):
    X, y = _erm_data(flip)
    return ExponentialMechanismERM(
        "zero_one", ContinuousThresholds(-1.0, 1.0), 0.5, accountant=acct, rng=3
    ).fit(X[:, 0], y)


def best_subset(flip, acct):
    X, y = _erm_data(flip)
    return BestSubsetERM(
        "clipped_squared", 1.0, 1, num=5, loss_bound=1.0, accountant=acct, rng=3
    ).fit(X, y)


def mwem_release(flip, acct):
    counts = MWEM_NEIGHBOUR if flip else MWEM_COUNTS
    return multi.mwem(counts, MWEM_QUERIES, 1.0, rounds=4, rng=3, accountant=acct)


def independent_br(flip, acct):
    X, Y = _points_data(flip)
    return multi.IndependentMultiLearner(
        Points(domain_size=8), 1.0, 1e-3, composition="bounded-range", accountant=acct, rng=3
    ).fit(X, Y)


def independent_basic(flip, acct):
    X, Y = _points_data(flip)
    return multi.IndependentMultiLearner(
        multi.ExponentialLearner(Points(domain_size=8)), 0.6, accountant=acct, rng=3
    ).fit(X, Y)


def sanitizer_mwem(flip, acct):
    X, Y = _points_data(flip)
    return multi.SanitizerMultiLearner(
        Points(domain_size=8),
        1.0,
        1e-3,
        sanitizer="mwem",
        domain=np.arange(8),
        rounds=3,
        sample_size=50,
        composition="bounded-range",
        accountant=acct,
        rng=3,
    ).fit(X, Y)


def noisy_vote(flip, acct):
    X, y = _line_data(flip)
    model = SubsampleAggregatePredictor(
        DecisionTreeClassifier(max_depth=1), 6, 1.0, accountant=acct, rng=3
    ).fit(X[:, None], y)
    model.predict(QUERIES[:, None])
    return model


def rr_vote(flip, acct):
    X, y = _line_data(flip)
    model = SubsampleAggregatePredictor(
        DecisionTreeClassifier(max_depth=1),
        6,
        1.0,
        aggregation="randomized_response",
        accountant=acct,
        rng=3,
    ).fit(X[:, None], y)
    model.predict(QUERIES[:, None])
    return model


def private_predictor(flip, acct):
    X, y = _line_data(flip)
    model = PrivatePredictor(Thresholds(), 1.0, accountant=acct, rng=3).fit(X, y)
    model.predict(QUERIES)
    return model


# -- the expected charges, from the papers ---------------------------------------------------


def br(eps):
    """zCDP of an eps-bounded-range mechanism: eps^2 / 8 (exact rational)."""
    return Fraction(eps) ** 2 / 8


def pure(eps):
    """zCDP of a pure eps-DP release: eps^2 / 2 (exact rational)."""
    return Fraction(eps) ** 2 / 2


def _mwem_rho(epsilon, rounds):
    step = Fraction(epsilon) / (2 * rounds)  # HLM12 Algorithm 1: eps / (2T) per mechanism
    return rounds * (br(step) + pure(step))


# (run, expected basic charge from the fitted model, expected rho from the fitted model's
# public attributes and the papers)
CASES = {
    "EM-ERM continuous thresholds": (erm_continuous, lambda m: Budget(0.5), lambda m: br(0.5)),
    "BestSubsetERM": (best_subset, lambda m: Budget(1.0), lambda m: br(0.5) + br(0.5)),
    "mwem": (mwem_release, lambda m: Budget(1.0), lambda m: _mwem_rho(1.0, 4)),
    "IndependentMultiLearner bounded-range": (
        independent_br,
        lambda m: m.privacy_,
        lambda m: 3 * br(m.per_concept_.epsilon),
    ),
    "IndependentMultiLearner basic": (
        independent_basic,
        lambda m: Budget(0.6),
        lambda m: 3 * br(m.per_concept_.epsilon),
    ),
    "SanitizerMultiLearner mwem": (
        sanitizer_mwem,
        lambda m: m.privacy_,
        lambda m: _mwem_rho(0.5, 3) + 3 * br(m.per_concept_.epsilon),
    ),
    "SubsampleAggregatePredictor noisy_vote": (
        noisy_vote,
        lambda m: Budget(5.0),
        lambda m: 5 * br(1.0),
    ),
    "SubsampleAggregatePredictor randomized_response": (
        rr_vote,
        lambda m: 5 * Budget(m.epsilon_),
        lambda m: 5 * pure(m.epsilon_),
    ),
    "PrivatePredictor corollary1": (
        private_predictor,
        lambda m: 5 * Budget(m.epsilon_),
        lambda m: 5 * pure(m.epsilon_),
    ),
}
IDS = list(CASES)


def _close(value, exact):
    """``value`` (a float rho) is within a relative 1e-12 of the exact rational ``exact``."""
    return abs(Fraction(value) - exact) <= Fraction(1, 10**12) * exact


@pytest.mark.parametrize("name", IDS)
def test_basic_accountant_charges_what_it_always_charged(name):
    run, basic, _ = CASES[name]
    acct = Accountant(Budget(50.0, 1e-2))
    model = run(False, acct)
    (entry,) = acct.ledger
    assert entry.budget == basic(model)
    assert entry.event is not None and entry.event.budget == basic(model)
    assert acct.spent == basic(model)


@pytest.mark.parametrize("name", IDS)
def test_zcdp_charge_is_the_native_curve(name):
    run, _, rho = CASES[name]
    total = ZcdpBudget(10.0)
    acct = Accountant(total, composition="zcdp")
    model = run(False, acct)
    (entry,) = acct.ledger
    expected = rho(model)
    charged = entry.event.to_zcdp().rho
    assert Fraction(charged) >= expected and _close(charged, expected)
    assert _close(acct.spent_native.rho, expected)
    assert _close(10.0 - acct.remaining_native.rho, expected)
    # Power: the pure reading of the same (epsilon) would charge at least 4x (BR) or, for a
    # q-fold composition, q times more; the check above would fail on it.
    assert not _close(entry.budget.epsilon**2 / 2, expected) or entry.budget.delta > 0


@pytest.mark.parametrize("name", IDS)
def test_the_charge_is_the_same_on_neighbouring_datasets(name):
    run = CASES[name][0]
    ledgers = []
    for flip in (False, True):
        for acct in (Accountant(Budget(50.0, 1e-2)), Accountant(ZcdpBudget(10.0), "zcdp")):
            run(flip, acct)
            ledgers.append([(e.label, e.budget, e.kind, e.event) for e in acct.ledger])
    assert ledgers[0] == ledgers[2] and ledgers[1] == ledgers[3]


def test_the_former_charge_of_an_approximate_composite_is_refused_by_zcdp_and_now_fits():
    # IndependentMultiLearner at (1, 1e-3) by bounded-range composition declares a delta > 0:
    # as a Budget, zCDP refuses it; as k bounded-range mechanisms it fits, at k eps0^2 / 8.
    probe = independent_br(False, None)
    acct = Accountant(Budget(3.0, 1e-6), composition="zcdp")
    assert probe.privacy_.delta > 0
    with pytest.raises(InvalidParameterError):
        acct.spend(probe.privacy_, "the former charge")
    assert acct.ledger == ()
    model = independent_br(False, acct)
    rho_total = acct.total_native.rho
    expected = 3 * br(model.per_concept_.epsilon)
    assert _close(rho_total - acct.remaining_native.rho, expected)
    assert model.per_concept_.epsilon > 1.0 / 3  # better than the basic split of epsilon


def test_zcdp_fits_four_times_more_exponential_mechanism_fits_than_the_pure_reading():
    # Four eps-bounded-range fits cost 4 eps^2 / 8 = eps^2 / 2: what one fit charged before.
    acct = Accountant(ZcdpBudget(0.5**2 / 2), composition="zcdp")
    for _ in range(4):
        erm_continuous(False, acct)
    assert len(acct.ledger) == 4
    with pytest.raises(Exception) as err:
        erm_continuous(False, acct)
    assert type(err.value).__name__ == "BudgetExceededError"


@pytest.mark.parametrize(
    "event",
    [
        PrivacyEvent.composed([PrivacyEvent.bounded_range(0.5)] * 2, budget=Budget(0.9, 1e-6)),
        PrivacyEvent.repeated(PrivacyEvent.bounded_range(0.5), 2, budget=Budget(0.9, 1e-6)),
    ],
)
def test_a_declared_budget_of_a_composition_is_what_basic_charges(event):
    assert event.budget == Budget(0.9, 1e-6)
    assert event.declared_budget == Budget(0.9, 1e-6)
    assert event.to_zcdp().rho == 2 * 0.5**2 / 8  # the other forms are the parts'
    plain = PrivacyEvent.repeated(PrivacyEvent.bounded_range(0.5), 2)
    assert plain.budget == Budget(1.0) and plain != event
    acct = Accountant(Budget(1.0, 1e-5))
    acct.spend(event, "declared")
    assert acct.spent == Budget(0.9, 1e-6)
    assert "budget=Budget(epsilon=0.9" in repr(event)


@pytest.mark.parametrize("bad", [0.9, (0.9, 1e-6), "x"])
def test_a_declared_budget_must_be_a_budget(bad):
    for build in (
        lambda: PrivacyEvent.composed([PrivacyEvent.pure(0.5)], budget=bad),
        lambda: PrivacyEvent.repeated(PrivacyEvent.pure(0.5), 2, budget=bad),
    ):
        with pytest.raises(InvalidParameterError) as err:
            build()
        assert err.value.parameter == "budget"


def test_the_learner_events_state_replace_one_neighbours():
    acct = Accountant(Budget(50.0, 1e-2), neighbours="add/remove-one")
    with pytest.raises(InvalidParameterError):
        erm_continuous(False, acct)
    assert acct.ledger == ()
