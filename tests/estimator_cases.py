"""One small, fast configuration of every privlearn estimator class, with data it fits.

Used by ``tests/test_clone.py`` (``sklearn.base.clone`` shares the accountant and the generator)
and ``tests/test_dataframes.py`` (pandas and polars input, ``feature_names_in_``). Each
:class:`Case` builds its estimator from ``(accountant, rng)`` so that two fits can be compared
seed for seed and charge for charge, and its data from a seed: ``X`` (a 2-D float array),
``y`` (1-D labels, or the ``(n, k)`` label matrix of the multi-concept learners) and a query
set ``X_test`` with the columns of ``X``.

:data:`ESTIMATOR_CLASSES` lists every public class with ``fit`` of :mod:`privlearn.learners`,
:mod:`privlearn.multi` and :mod:`privlearn.prediction` (found by introspection), so that a new
estimator without a case fails :func:`test_clone.test_every_estimator_class_has_a_case`.
(:class:`privlearn.query_release.SemiPrivateLearner` is not a scikit-learn estimator: its
``fit`` takes public points, the accountant and the generator as arguments.)
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Tuple

import numpy as np

from privlearn import learners as L
from privlearn import multi as M
from privlearn import prediction as P
from privlearn.accounting import Accountant, Budget
from privlearn.hypotheses import Parities, Points, Thresholds

Data = Tuple[np.ndarray, np.ndarray, np.ndarray]


def _classes_of(module: Any) -> List[type]:
    return [
        obj
        for name in module.__all__
        for obj in [getattr(module, name)]
        if inspect.isclass(obj) and hasattr(obj, "fit")
    ]


#: Every estimator class (a public class with ``fit``) of the three estimator families.
ESTIMATOR_CLASSES: List[type] = _classes_of(L) + _classes_of(M) + _classes_of(P)


def accountant() -> Accountant:
    """A budget no case exhausts."""
    return Accountant(Budget(1e4, 0.5))


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------


def regression(seed: int, n: int = 400, d: int = 3) -> Data:
    g = np.random.default_rng(seed)
    X = g.normal(size=(n + 20, d)) * 0.4
    y = np.clip(X @ np.linspace(0.5, -0.5, d) + 0.05 * g.normal(size=n + 20), -1, 1)
    return X[:n], y[:n], X[n:]


def classification(seed: int, n: int = 400, d: int = 3) -> Data:
    X, y, Xt = regression(seed, n, d)
    return X, (y > 0).astype(np.int64), Xt


def two_features(seed: int) -> Data:
    return classification(seed, 200, 2)


def thresholds(seed: int) -> Data:
    g = np.random.default_rng(seed)
    X = g.random((420, 1))
    y = (X[:, 0] >= 0.4).astype(np.int64)
    return X[:400], y[:400], X[400:]


def parities(seed: int) -> Data:
    from privlearn.datasets import make_concept_sample

    data = make_concept_sample(Parities(3), 80, n_concepts=3, rng=seed)
    X = np.asarray(data.X, dtype=np.float64)
    return X[:60], np.asarray(data.y)[:60], X[60:]


def points(seed: int) -> Data:
    g = np.random.default_rng(seed)
    X = g.integers(0, 6, size=(420, 1)).astype(np.float64)
    Y = X == np.arange(3)[None, :]
    return X[:400], Y[:400], X[400:]


# --------------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    id: str
    build: Callable[[Optional[Accountant], Any], Any]
    data: Callable[[int], Data]
    #: Whether the estimator takes an accountant (else ``build`` ignores it).
    charges: bool = True
    #: Whether ``predict`` draws randomness and charges per query (the private predictors).
    private_predict: bool = False
    #: The multi-concept learners: ``y`` is an ``(n, k)`` label matrix.
    multi: bool = False

    @property
    def n_features(self) -> int:
        return int(self.data(0)[0].shape[1])


def _em_erm(acc: Optional[Accountant] = None, rng: Any = None) -> Any:
    return L.ExponentialMechanismERM(
        "zero_one", L.Grid(1.0, 2, num=5), 0.5, accountant=acc, rng=rng
    )


def _cases() -> List[Case]:
    reg, clf = regression, classification
    return [
        # seed 001
        Case(
            "OutputPerturbationRegressor",
            lambda a, r: L.OutputPerturbationRegressor(
                1.0, data_norm=1.0, label_bound=1.0, accountant=a, rng=r
            ),
            reg,
        ),
        Case(
            "OutputPerturbationClassifier",
            lambda a, r: L.OutputPerturbationClassifier(
                1.0, classes=[0, 1], data_norm=1.0, accountant=a, rng=r
            ),
            clf,
        ),
        Case(
            "ObjectivePerturbationClassifier",
            lambda a, r: L.ObjectivePerturbationClassifier(
                1.0, classes=[0, 1], data_norm=1.0, accountant=a, rng=r
            ),
            clf,
        ),
        Case(
            "ObjectivePerturbationRegressor",
            lambda a, r: L.ObjectivePerturbationRegressor(
                1.0, data_norm=1.0, label_bound=1.0, accountant=a, rng=r
            ),
            reg,
        ),
        Case(
            "FunctionalMechanismRegressor",
            lambda a, r: L.FunctionalMechanismRegressor(
                1.0, data_norm=1.0, label_bound=1.0, accountant=a, rng=r
            ),
            reg,
        ),
        Case(
            "PrivateTuning",
            lambda a, r: L.PrivateTuning(
                L.OutputPerturbationRegressor(None, data_norm=1.0, label_bound=1.0),
                {"alpha": [0.1, 1.0]},
                1.0,
                accountant=a,
                rng=r,
            ),
            reg,
        ),
        # issue 19
        Case(
            "AdaSSPRegressor",
            lambda a, r: L.AdaSSPRegressor(
                1.0, data_norm=1.0, label_bound=1.0, accountant=a, rng=r
            ),
            reg,
        ),
        Case(
            "AdaSSPRegressor-private-bounds",
            lambda a, r: L.AdaSSPRegressor(
                2.0, data_norm="private", label_bound="private", accountant=a, rng=r
            ),
            reg,
        ),
        Case(
            "BoostedAdaSSPRegressor",
            lambda a, r: L.BoostedAdaSSPRegressor(
                1.0,
                1e-6,
                data_norm=1.0,
                gradient_clip=1.0,
                label_bound=1.0,
                n_rounds=3,
                accountant=a,
                rng=r,
            ),
            reg,
        ),
        Case(
            "TukeyEMRegressor",
            lambda a, r: L.TukeyEMRegressor(10.0, 1e-6, n_models=8, accountant=a, rng=r),
            reg,
        ),
        Case(
            "DPGradientDescentClassifier",
            lambda a, r: L.DPGradientDescentClassifier(
                1.0, 1e-6, data_norm=1.0, classes=[0, 1], max_iter=10, accountant=a, rng=r
            ),
            clf,
        ),
        Case(
            "ObjectivePerturbationLogistic",
            lambda a, r: L.ObjectivePerturbationLogistic(
                1.0, 1e-6, data_norm=1.0, classes=[0, 1], accountant=a, rng=r
            ),
            clf,
        ),
        Case(
            "PrivateLinearRegression",
            lambda a, r: L.PrivateLinearRegression(2.0, accountant=a, rng=r),
            reg,
        ),
        Case(
            "PrivateLogisticRegression",
            lambda a, r: L.PrivateLogisticRegression(2.0, classes=[0, 1], accountant=a, rng=r),
            clf,
        ),
        # seed 000
        Case("ExponentialMechanismERM", _em_erm, two_features),
        Case(
            "SubsampledERM",
            lambda a, r: L.SubsampledERM(_em_erm(), 40, accountant=a, rng=r),
            two_features,
        ),
        Case(
            "BoostedERM",
            lambda a, r: L.BoostedERM(_em_erm(), 0.3, accountant=a, rng=r),
            two_features,
        ),
        Case(
            "BestSubsetERM",
            lambda a, r: L.BestSubsetERM("clipped_squared", 0.5, 1, num=5, accountant=a, rng=r),
            reg,
        ),
        Case(
            "ApproximateGibbsERM",
            lambda a, r: L.ApproximateGibbsERM(
                "clipped_logistic",
                1.0,
                step=0.01,
                tv_bound=1e-6,
                warmup=0,
                steps=20,
                chains=2,
                accountant=a,
                rng=r,
            ),
            two_features,
        ),
        # seed 002
        Case(
            "ParityMultiLearner",
            lambda a, r: M.ParityMultiLearner(3, 1.0, 1e-6, accountant=a, rng=r),
            parities,
            multi=True,
        ),
        Case(
            "IndependentMultiLearner",
            lambda a, r: M.IndependentMultiLearner(Parities(3), 1.0, accountant=a, rng=r),
            parities,
            multi=True,
        ),
        Case(
            "PointMultiLearner",
            lambda a, r: M.PointMultiLearner(1.0, 1e-6, accountant=a, rng=r),
            points,
            multi=True,
        ),
        Case(
            "SanitizerMultiLearner",
            lambda a, r: M.SanitizerMultiLearner(Points(), 1.0, 1e-6, accountant=a, rng=r),
            points,
            multi=True,
        ),
        Case(
            "NonPrivateMultiLearner",
            lambda a, r: M.NonPrivateMultiLearner(Parities(3)),
            parities,
            charges=False,
            multi=True,
        ),
        # seed 003
        Case(
            "StablePredictor",
            lambda a, r: P.StablePredictor(Thresholds(), 0.3, rng=r),
            thresholds,
            charges=False,
        ),
        Case(
            "PrivatePredictor",
            lambda a, r: P.PrivatePredictor(Thresholds(), 1.0, accountant=a, rng=r),
            thresholds,
            private_predict=True,
        ),
        Case(
            "SubsampleAggregatePredictor",
            lambda a, r: P.SubsampleAggregatePredictor(
                P.ERMClassifier(Thresholds()), 4, 1.0, accountant=a, rng=r
            ),
            thresholds,
            private_predict=True,
        ),
        Case(
            "ERMClassifier",
            lambda a, r: P.ERMClassifier(Thresholds()),
            thresholds,
            charges=False,
        ),
    ]


CASES: List[Case] = _cases()


def case_classes() -> set:
    """The estimator classes the cases cover."""
    return {type(c.build(None, 0)) for c in CASES}
