"""``sklearn.base.clone`` of every privlearn estimator shares the accountant and the generator.

Every estimator class (:data:`estimator_cases.ESTIMATOR_CLASSES`: the public classes with
``fit`` of :mod:`privlearn.learners`, :mod:`privlearn.multi` and :mod:`privlearn.prediction`)
clones through one mechanism, :class:`privlearn._certified.SharedCloneMixin` (the learners'
``PrivateEstimatorMixin`` is built on it): the ``accountant`` and ``rng`` parameters are handed
to the clone as they are, every other parameter is cloned as scikit-learn does. An accountant
must see the spends of every copy (pipelines, cross-validation, tuning), so a clone that copied
it would double the budget; a copied ``numpy.random.Generator`` would replay the same noise.
Before the ERM, multi-concept and prediction learners shared the mixin, ``clone`` deep-copied
their accountant, which fails (it holds a lock).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from estimator_cases import CASES, ESTIMATOR_CLASSES, Case, accountant, case_classes
from privlearn._certified import _SHARED_PARAMS, SharedCloneMixin
from privlearn.accounting import Budget

IDS = [c.id for c in CASES]


def test_every_estimator_class_has_a_case() -> None:
    missing = {cls.__name__ for cls in ESTIMATOR_CLASSES} - {cls.__name__ for cls in case_classes()}
    assert not missing, f"estimator classes without a case in estimator_cases: {missing}"


@pytest.mark.parametrize("cls", ESTIMATOR_CLASSES, ids=lambda c: c.__name__)
def test_every_estimator_class_uses_the_shared_clone_mixin(cls: type) -> None:
    assert issubclass(cls, SharedCloneMixin)
    assert set(_SHARED_PARAMS) <= set(cls._shared_params) or cls.__name__ == "ERMClassifier"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_clone_shares_the_accountant_and_the_generator(case: Case) -> None:
    acc = accountant()
    gen = np.random.default_rng(5)
    est = case.build(acc, gen)
    twin = clone(est)
    assert twin is not est and type(twin) is type(est)
    params, twin_params = est.get_params(deep=False), twin.get_params(deep=False)
    assert params.keys() == twin_params.keys()
    if "accountant" in params:
        assert twin_params["accountant"] is acc
    if "rng" in params:
        assert twin_params["rng"] is gen
    for name, value in params.items():
        if name in _SHARED_PARAMS:
            continue
        if hasattr(value, "get_params"):  # an estimator parameter: cloned, unfitted
            assert twin_params[name] is not value
            assert type(twin_params[name]) is type(value)
        elif np.ndim(value) == 0 and isinstance(value, (int, float, str, type(None))):
            assert twin_params[name] == value


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_clone_spends_from_the_same_accountant(case: Case) -> None:
    X, y, X_test = case.data(0)
    acc = accountant()
    est = case.build(acc, 1)
    est.fit(X, y)
    if case.private_predict:
        est.predict(X_test)
    first = [entry.budget for entry in acc.ledger]
    twin = clone(est)
    assert not hasattr(twin, "privacy_") and not hasattr(twin, "coef_")  # unfitted
    twin.fit(X, y)
    if case.private_predict:
        twin.predict(X_test)
    if not case.charges:
        assert acc.spent == Budget(0.0) and not acc.ledger
        return
    assert first, "the original's fit (or predictions) charged nothing"
    # The clone's spends land on the same ledger, entry for entry the original's (same
    # parameters, same public n), so the total is twice one run's.
    assert [entry.budget for entry in acc.ledger] == first + first


def test_a_clone_of_a_clone_still_shares() -> None:
    acc = accountant()
    case = next(c for c in CASES if c.id == "SubsampledERM")
    est = case.build(acc, 0)
    assert clone(clone(est)).accountant is acc
