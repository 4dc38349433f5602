"""Whether a fit succeeds, what it charges, the shape of what it releases and the text of any
error raised after the private data were read never depend on those data (issue 16).

Each test runs the library on two neighbouring datasets (replace-one, same ``n``) and compares
what an observer sees: the exception (type and message) or the success, the accountant's
spend, and the shape of the release. Parameters the rule needs (the classes of a classifier)
are declared; their absence is refused before the data are read (the tests pass data that
raise if touched).
"""

from __future__ import annotations

import numpy as np
import pytest

from privlearn import query_release as Q
from privlearn.accounting import Accountant, Budget
from privlearn.errors import InvalidParameterError, PrivlearnError
from privlearn.learners import (
    ApproximateGibbsERM,
    ObjectivePerturbationClassifier,
    OutputPerturbationClassifier,
    PrivateTuning,
    _solvers,
)
from privlearn.prediction import SubsampleAggregatePredictor

SECRET = 987654321  # a label value that must never appear in a message


class Untouchable:
    """Data that fail loudly if anything reads them."""

    def _read(self, *args, **kwargs):
        raise AssertionError("the data were read before a parameter error that needs no data")

    __array__ = __len__ = __iter__ = __getitem__ = _read

    @property
    def shape(self):
        self._read()


def _neighbours(n=60, d=3, seed=0):
    """``(X, y, y2)``: ``y`` holds both labels, ``y2`` differs in one row and holds one."""
    g = np.random.default_rng(seed)
    X = g.uniform(-1, 1, size=(n, d)) / np.sqrt(d)
    y = np.zeros(n, dtype=int)
    y[0] = 1
    return X, y, np.zeros(n, dtype=int)


def _outcome(fit):
    """What an observer sees of one call: ``("ok", spent, shape)`` or the error's type and text."""
    acct = Accountant(Budget(100.0))
    try:
        out = fit(acct)
    except PrivlearnError as err:
        return ("error", type(err).__name__, str(err), acct.spent)
    return ("ok", acct.spent, out)


CLASSIFIERS = [  # the declared row bound is required (no default); kw may override it
    lambda **kw: OutputPerturbationClassifier(1.0, **{"data_norm": 1.0, **kw}),
    lambda **kw: OutputPerturbationClassifier(
        1.0,
        loss="smoothed_hinge",
        radius=1.0,
        variant="general_convex",
        **{"data_norm": 1.0, **kw},
    ),
    lambda **kw: ObjectivePerturbationClassifier(1.0, **{"data_norm": 1.0, **kw}),
]


# --------------------------------------------------------------------------------------------
# 1. Declared classes; refusals that depend on the declared domain only
# --------------------------------------------------------------------------------------------


def test_private_tuning_classifier_outcome_is_the_same_on_neighbours():
    """Old code: without declared classes the tuner read them from y, fitting (and charging) on
    the neighbour with both labels and refusing the one with a single label. Now the missing
    parameter is refused on both, before the data are read; with classes declared both fit and
    charge the same."""
    X, y, y2 = _neighbours()

    def tuned(labels, **kw):
        def fit(acct):
            est = PrivateTuning(
                OutputPerturbationClassifier(None, data_norm=1.0, **kw),
                {"alpha": [0.1, 1.0]},
                1.0,
                accountant=acct,
                rng=0,
            ).fit(X, labels)
            return (est.classes_.tolist(), est.coef_.shape)

        return fit

    a, b = _outcome(tuned(y)), _outcome(tuned(y2))
    assert a == b
    assert a[0] == "error" and "classes" in a[2] and a[3] == Budget(0.0)
    with pytest.raises(InvalidParameterError) as err:
        PrivateTuning(OutputPerturbationClassifier(None, data_norm=1.0), {"alpha": [0.1]}, 1.0).fit(
            Untouchable(), Untouchable()
        )
    assert err.value.parameter == "classes"
    a, b = _outcome(tuned(y, classes=[0, 1])), _outcome(tuned(y2, classes=[0, 1]))
    assert a == b == ("ok", Budget(1.0), ([0, 1], (1, 3)))


@pytest.mark.parametrize("make", CLASSIFIERS)
def test_classifiers_need_declared_classes_and_fit_every_neighbour(make):
    X, y, y2 = _neighbours()
    with pytest.raises(InvalidParameterError) as err:
        make().fit(Untouchable(), Untouchable())
    assert err.value.parameter == "classes"

    def fit(labels):
        def run(acct):
            est = make(classes=[0, 1], accountant=acct, rng=3).fit(X, labels)
            return (est.classes_.tolist(), est.coef_.shape, est.intercept_.shape)

        return run

    a, b = _outcome(fit(y)), _outcome(fit(y2))
    assert a == b == ("ok", Budget(1.0), ([0, 1], (1, 3), (1,)))


@pytest.mark.parametrize("make", CLASSIFIERS)
def test_labels_outside_the_declared_classes_are_refused_before_any_charge(make):
    X, y, _ = _neighbours()
    bad = y.copy()
    bad[5] = SECRET
    outcome = _outcome(lambda acct: make(classes=[0, 1], accountant=acct, rng=0).fit(X, bad))
    assert outcome[0] == "error" and outcome[3] == Budget(0.0)
    assert str(SECRET) not in outcome[2]


def test_private_tuning_refuses_an_outside_label_wherever_the_partition_puts_it():
    """Old code: a label outside the declared classes was refused only if it fell in a training
    chunk (by a candidate's fit); in the validation chunk the tuner fitted and charged. Now it
    is refused for every partition (every seed), before anything is charged."""
    X, y, _ = _neighbours(n=30)
    bad = y.copy()
    bad[7] = SECRET
    outcomes = {
        _outcome(
            lambda acct, s=seed: PrivateTuning(
                OutputPerturbationClassifier(None, classes=[0, 1], data_norm=1.0),
                {"alpha": [0.1, 1.0]},
                1.0,
                accountant=acct,
                rng=s,
            ).fit(X, bad)
        )
        for seed in range(12)
    }
    assert len(outcomes) == 1
    (outcome,) = outcomes
    assert outcome[0] == "error" and outcome[3] == Budget(0.0) and str(SECRET) not in outcome[2]


# --------------------------------------------------------------------------------------------
# 2. Errors raised after the data were read carry no data-dependent value
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", CLASSIFIERS)
def test_solver_failure_has_the_same_message_and_charge_on_neighbours(make, monkeypatch):
    """Force non-convergence (one Newton step). Old code: the message quoted the last residual
    (a function of the data) and nothing was charged. Now the message is fixed and the budget
    is charged (whether the solver fails may depend on the data)."""
    monkeypatch.setitem(_solvers.newton.__kwdefaults__, "max_iter", 1)
    X, y, _ = _neighbours(n=80)
    y2 = y.copy()
    y2[1], X2 = 1, X.copy()
    X2[1] = [0.9, 0.0, 0.0]  # a different row: the gradients (and residuals) differ
    a = _outcome(lambda acct: make(classes=[0, 1], alpha=1e-3, accountant=acct, rng=0).fit(X, y))
    b = _outcome(lambda acct: make(classes=[0, 1], alpha=1e-3, accountant=acct, rng=0).fit(X2, y2))
    assert a[0] == "error" and a[1] == "SolverError", a
    assert a == b
    assert a[3] == Budget(1.0)


def test_solver_failure_inside_private_tuning(monkeypatch):
    monkeypatch.setitem(_solvers.newton.__kwdefaults__, "max_iter", 1)
    X, y, y2 = _neighbours(n=80)
    outcomes = [
        _outcome(
            lambda acct, labels=labels: PrivateTuning(
                OutputPerturbationClassifier(None, classes=[0, 1], data_norm=1.0),
                {"alpha": [1e-3]},
                1.0,
                accountant=acct,
                rng=0,
            ).fit(X, labels)
        )
        for labels in (y, y2)
    ]
    assert (
        outcomes[0] == outcomes[1]
        and outcomes[0][1] == "SolverError"
        and outcomes[0][3] == Budget(1.0)
    )


# --------------------------------------------------------------------------------------------
# 3. Non-private state is private (no public fitted attribute)
# --------------------------------------------------------------------------------------------


class _OddTeacher:
    """A classifier whose predictions leave {0, 1} when its block holds a row with x > 0.9."""

    def fit(self, X, y):
        self.odd_ = bool(np.any(np.asarray(X)[:, 0] > 0.9))
        return self

    def predict(self, X):
        return np.full(len(X), 2 if self.odd_ else 1)

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self


def test_subsample_aggregate_keeps_the_teachers_private_and_answers_every_neighbour():
    """Old code: the non-private teachers were a public attribute, ``teachers_``, and a teacher
    predicting outside {0, 1} (a property of its block's data) made ``predict`` refuse on one
    neighbour only. Now a vote is 1 iff the teacher predicts 1."""
    g = np.random.default_rng(1)
    X = g.uniform(0, 0.8, size=(40, 2))
    y = (g.random(40) < 0.5).astype(int)
    X2 = X.copy()
    X2[3, 0] = 0.95  # one row replaced: its block's teacher now predicts 2
    outs = []
    for data in (X, X2):
        acct = Accountant(Budget(10.0))
        clf = SubsampleAggregatePredictor(_OddTeacher(), 4, 1.0, accountant=acct, rng=0).fit(
            data, y
        )
        assert not hasattr(clf, "teachers_") and len(clf._teachers) == 4
        outs.append((clf.predict(X[:5]).shape, acct.spent))
    assert outs[0] == outs[1] == ((5,), Budget(5.0))


class _FragileTeacher:
    """A classifier whose ``fit`` (``where="fit"``) or ``predict`` (``where="predict"``) raises,
    or whose ``predict`` returns a wrong shape (``where="shape"``), when its block holds a row
    with x > 0.9: a failure that depends on the private data."""

    def __init__(self, where="fit"):
        self.where = where

    def fit(self, X, y):
        self.odd_ = bool(np.any(np.asarray(X)[:, 0] > 0.9))
        if self.odd_ and self.where == "fit":
            raise ValueError("cannot fit this block")
        return self

    def predict(self, X):
        if self.odd_ and self.where == "predict":
            raise ValueError("cannot predict")
        if self.odd_ and self.where == "shape":
            return np.ones((len(X), 2))
        return np.ones(len(X), dtype=int)

    def get_params(self, deep=True):
        return {"where": self.where}

    def set_params(self, **params):
        self.where = params.get("where", self.where)
        return self


@pytest.mark.parametrize("where", ["fit", "predict", "shape"])
def test_subsample_aggregate_teacher_failures_do_not_depend_on_the_data(where):
    """Old code: a teacher whose fit raised on its block made ``fit`` raise on one neighbour only
    (and a predict that raised or returned a wrong shape made ``predict`` raise). Now such a
    teacher votes 0: both neighbours fit, answer and are charged alike."""
    g = np.random.default_rng(2)
    X = g.uniform(0, 0.8, size=(40, 2))
    y = np.arange(40) % 2
    X2 = X.copy()
    X2[3, 0] = 0.95  # one row replaced: its block's teacher now fails
    outs = []
    votes = []
    for data in (X, X2):
        acct = Accountant(Budget(10.0))
        clf = SubsampleAggregatePredictor(
            _FragileTeacher(where), 4, 1.0, accountant=acct, rng=0
        ).fit(data, y)
        outs.append((clf.predict(X[:5]).shape, acct.spent))
        votes.append(clf._votes(X[:5]).sum(axis=1))
    assert outs[0] == outs[1] == ((5,), Budget(5.0))
    # The failing teacher votes 0: each vote count moves by exactly one (the sensitivity).
    assert np.array_equal(votes[0], np.full(5, 4)) and np.array_equal(votes[1], np.full(5, 3))


def test_query_release_votes_of_odd_members_do_not_refuse():
    g = np.random.default_rng(2)
    X = g.uniform(0, 0.8, size=(2000, 2))
    y = (g.random(2000) < 0.5).astype(int)
    X2 = X.copy()
    X2[3, 0] = 0.95  # one row replaced: its sub-sample's member now predicts 2
    algo = Q.SubsampleSVT(_OddTeacher(), epsilon=1.0, delta=1e-6, m=3, cutoff=1)
    shapes = []
    for data in (X, X2):
        session = algo.start(data, y, rng=0)
        shapes.append(len(session.answer_many(X[:3])))
    assert shapes == [3, 3]


@pytest.mark.parametrize("where", ["fit", "predict", "shape"])
def test_query_release_members_failing_on_their_sub_sample_do_not_refuse(where):
    """Old code: a member whose fit raised on its sub-sample made ``start`` raise on one
    neighbour only (a predict that raised or returned a wrong shape made the answers raise).
    Now such a member votes 0 and both neighbours answer alike."""
    g = np.random.default_rng(2)
    X = g.uniform(0, 0.8, size=(2000, 2))
    y = np.arange(2000) % 2
    X2 = X.copy()
    X2[3, 0] = 0.95  # one row replaced: its sub-sample's member now fails
    algo = Q.SubsampleSVT(_FragileTeacher(where), epsilon=1.0, delta=1e-6, m=3, cutoff=1)
    shapes = []
    for data in (X, X2):
        session = algo.start(data, y, rng=0)
        shapes.append(len(session.answer_many(X[:3])))
    assert shapes == [3, 3]


def test_gibbs_diagnostics_are_private_state():
    g = np.random.default_rng(3)
    X = g.uniform(-1, 1, size=(50, 2)) / 2
    y = (X[:, 0] > 0).astype(int)
    est = ApproximateGibbsERM(
        "logistic", 1.0, radius=1.0, loss_bound=2.0, steps=20, warmup=10, rng=0
    ).fit(X, y)
    assert not hasattr(est, "diagnostics_")
    assert set(est._diagnostics) >= {"acceptance", "r_hat", "step", "mean_objective"}


def test_mechanism_refusals_carry_no_private_value():
    # An out-of-domain value is refused (a dataset outside the declared domain is not an
    # input), but the message names the domain, never the value: two different offending
    # values give the same message, and neither value appears in it.
    from privlearn.mechanisms import SparseVector, randomized_response_k

    messages = set()
    for bad in (SECRET, -SECRET):
        with pytest.raises(InvalidParameterError) as err:
            randomized_response_k([0, 1, bad], 3, 1.0, rng=0)
        messages.add(str(err.value))
    assert len(messages) == 1 and str(SECRET) not in messages.pop()

    messages = set()
    for bad in (float("nan"), float("inf"), -float("inf")):
        sv = SparseVector(0.0, 1.0, max_positives=1, rng=0)
        with pytest.raises(InvalidParameterError) as err:
            sv.query(bad)
        messages.add(str(err.value))
    assert len(messages) == 1  # NaN, +inf and -inf are told apart by nothing in the message
