"""Composites accept only bases with a certified guarantee, and carry delta through.

Issue 16, "Composite wrappers trust any epsilon attribute": ``SubsampledERM`` used to accept
scikit-learn's ``SVR(epsilon=0.1)`` (a loss parameter) and an ``ApproximateGibbsERM`` without a
certificate, charging a pure epsilon for both, and dropped the delta of a certified Gibbs
sampler. Every expected guarantee below is computed in the test from the theorems' formulas
(mpmath, 50 digits), never from the estimators' attributes or helpers.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVR

from privlearn import InvalidParameterError
from privlearn._certified import CertifiedRelease, certified_guarantee
from privlearn.accounting import Accountant, Budget
from privlearn.hypotheses import Parities
from privlearn.learners import (
    ApproximateGibbsERM,
    BestSubsetERM,
    BoostedERM,
    ExponentialMechanismERM,
    OutputPerturbationRegressor,
    PrivateTuning,
    SubsampledERM,
    ThresholdCandidates,
)
from privlearn.multi import IndependentMultiLearner, ParityMultiLearner

mpmath.mp.dps = 50


@pytest.fixture(autouse=True)
def _mpmath_precision():
    # Other test modules set mpmath's global precision when they are imported; the exact
    # references here need 50 digits whatever was collected last.
    with mpmath.workdps(50):
        yield


REL = 1e-12  # a charge may exceed the exact value by rounding up, never fall below it


def _exact_at_least(charged: float, exact: mpmath.mpf) -> None:
    """``charged`` is ``exact`` rounded to the safe side (up), by at most a relative REL."""
    assert mpmath.mpf(charged) >= exact, (charged, exact)
    assert mpmath.mpf(charged) <= exact * (1 + REL) + mpmath.mpf(10) ** -300, (charged, exact)


def _bbg_epsilon(eps: mpmath.mpf, gamma: mpmath.mpf) -> mpmath.mpf:
    """Balle, Barthe and Gaboardi (2018), Theorem 9: ln(1 + gamma (e^eps - 1))."""
    return mpmath.log(1 + gamma * (mpmath.exp(eps) - 1))


def _gibbs_delta(eps: float, tv: float) -> mpmath.mpf:
    """A sampler within total variation tv of an eps-DP mechanism: delta = tv (1 + e^eps)."""
    return mpmath.mpf(tv) * (1 + mpmath.exp(mpmath.mpf(eps)))


class Untouchable:
    """Stands for private data that must not be read: any access fails the test."""

    def __getattr__(self, name: str) -> None:
        raise AssertionError(f"the data were read ({name}) before the base was refused")

    def __len__(self) -> int:
        raise AssertionError("the data were read (len) before the base was refused")

    def __array__(self, *args: object, **kwargs: object) -> None:
        raise AssertionError("the data were read (array) before the base was refused")


class ShapeOnly(Untouchable):
    """Private data whose number of records (public) may be read, and nothing else."""

    def __init__(self, n: int) -> None:
        self.__dict__["shape"] = (n, 1)

    def __getattr__(self, name: str) -> None:
        raise AttributeError(name)

    def __len__(self) -> int:
        return int(self.shape[0])

    def __getitem__(self, item: object) -> None:
        raise AssertionError("a record was read before the base was refused")


class EpsilonRegressor(RegressorMixin, BaseEstimator):  # type: ignore[misc]
    """Has ``epsilon``, ``accountant``, ``rng`` and ``label_bound`` parameters, but certifies
    nothing (no ``privacy_guarantee``): not private at all."""

    def __init__(
        self,
        epsilon: float = 1.0,
        alpha: float = 1.0,
        label_bound: float = 1.0,
        accountant: object = None,
        rng: object = None,
    ) -> None:
        self.epsilon = epsilon
        self.alpha = alpha
        self.label_bound = label_bound
        self.accountant = accountant
        self.rng = rng

    def fit(self, X: np.ndarray, y: np.ndarray) -> "EpsilonRegressor":
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.full(len(X), self.mean_)


class ApproximateRegressor(EpsilonRegressor):
    """Certifies ``(epsilon, 1e-3 / n)`` on ``n`` records (a test double for an approximate-DP
    learner whose delta depends on the sample size)."""

    def privacy_guarantee(self, n_samples: int) -> Budget:
        return Budget(self.epsilon, 1e-3 / n_samples)


def _threshold_data(n: int, seed: int = 0):
    g = np.random.default_rng(seed)
    X = g.random((n, 1))
    return X, (X[:, 0] > 0.5).astype(int)


def _em(eps: float = 1.0) -> ExponentialMechanismERM:
    return ExponentialMechanismERM("zero_one", ThresholdCandidates(np.linspace(0, 1, 11)), eps)


def _gibbs(**kw: object) -> ApproximateGibbsERM:
    params = dict(radius=2.0, loss_bound=3.0, steps=20, warmup=0, chains=2)
    params.update(kw)
    return ApproximateGibbsERM("logistic", 1.0, **params)


# --------------------------------------------------------------------------------------------
# SubsampledERM: the reported defects
# --------------------------------------------------------------------------------------------


def test_subsampled_refuses_svr_whose_epsilon_is_a_loss_parameter():
    acct = Accountant(Budget(10.0, 0.5))
    est = SubsampledERM(SVR(epsilon=0.1), 10, accountant=acct)
    with pytest.raises(InvalidParameterError, match=r"^base: .*certified"):
        est.privacy_guarantee(100)
    with pytest.raises(InvalidParameterError, match=r"^base: .*certified"):
        est.fit(Untouchable(), Untouchable())  # refused before the data are read
    assert acct.spent == Budget(0.0) and not hasattr(est, "estimator_")
    # Lemma 29 asks nothing of the base: (0, m/n) for any learner, SVR included.
    X, y = _threshold_data(100)
    anyone = SubsampledERM(SVR(), 10, accounting="lemma29", accountant=acct, rng=0).fit(X, y)
    assert acct.spent == anyone.privacy_ == Budget(0.0, 0.1)


def test_subsampled_refuses_gibbs_without_a_certificate():
    acct = Accountant(Budget(10.0, 0.5))
    for base in (_gibbs(), _gibbs(tv_bound=1e-6)):  # no bound; a bound with an adaptive step
        est = SubsampledERM(base, 10, accountant=acct)
        with pytest.raises(InvalidParameterError, match=r"^base: .*tv_bound"):
            est.privacy_guarantee(100)
        with pytest.raises(InvalidParameterError, match=r"^base: "):
            est.fit(*_threshold_data(100))
        with pytest.raises(InvalidParameterError, match=r"^base: .*tv_bound"):
            est.fit(ShapeOnly(100), ShapeOnly(100))  # refused from n alone
    assert acct.spent == Budget(0.0)
    with pytest.raises(InvalidParameterError, match="tv_bound"):
        _gibbs().privacy_guarantee(100)


@pytest.mark.parametrize("n, m, tv", [(100, 10, 1e-6), (57, 19, 3e-9), (40, 40, 1e-5)])
def test_subsampled_gibbs_carries_the_amplified_delta(n, m, tv):
    acct = Accountant(Budget(10.0, 0.5))
    base = _gibbs(step=0.01, tv_bound=tv)
    est = SubsampledERM(base, m, accountant=acct, rng=1).fit(*_threshold_data(n))
    gamma = mpmath.mpf(m) / n
    _exact_at_least(acct.spent.epsilon, _bbg_epsilon(mpmath.mpf(1), gamma))
    _exact_at_least(acct.spent.delta, gamma * _gibbs_delta(1.0, tv))  # BBG Thm 9: gamma delta
    assert acct.spent == est.privacy_ == est.privacy_guarantee(n)
    assert len(acct.ledger) == 1


def test_subsampled_lemma34_refuses_an_approximate_base():
    base = _gibbs(step=0.01, tv_bound=1e-6)
    for accounting in ("lemma34", "lemma34-relaxed"):
        with pytest.raises(InvalidParameterError, match="pure DP"):
            SubsampledERM(base, 10, accounting=accounting).privacy_guarantee(100)


# --------------------------------------------------------------------------------------------
# Every composite that needs a certified base refuses an uncertified one, before the data
# --------------------------------------------------------------------------------------------


UNCERTIFIED = {
    "SubsampledERM(SVR)": lambda acct: SubsampledERM(SVR(), 5, accountant=acct),
    "SubsampledERM(LogisticRegression)": lambda acct: SubsampledERM(
        LogisticRegression(), 5, accountant=acct
    ),
    "SubsampledERM(EpsilonRegressor)": lambda acct: SubsampledERM(
        EpsilonRegressor(), 5, accountant=acct
    ),
    "BoostedERM(SVR)": lambda acct: BoostedERM(SVR(), 0.2, accountant=acct),
    "PrivateTuning(EpsilonRegressor)": lambda acct: PrivateTuning(
        EpsilonRegressor(), {"alpha": [0.1, 1.0]}, 1.0, accountant=acct
    ),
    "IndependentMultiLearner(SVR)": lambda acct: IndependentMultiLearner(
        SVR(), 1.0, accountant=acct
    ),
}


@pytest.mark.parametrize("name", sorted(UNCERTIFIED))
def test_every_composite_refuses_an_uncertified_base_before_the_data(name):
    acct = Accountant(Budget(10.0, 0.5))
    est = UNCERTIFIED[name](acct)
    with pytest.raises(InvalidParameterError, match=r"^(base|estimator): .*certif"):
        est.fit(Untouchable(), Untouchable())
    assert acct.spent == Budget(0.0)


def test_certified_guarantee_is_the_one_gate():
    assert isinstance(_em(), CertifiedRelease) and not isinstance(SVR(), CertifiedRelease)
    assert certified_guarantee(_em(0.5), 10) == Budget(0.5)
    with pytest.raises(InvalidParameterError, match="^learner: .*SVR"):
        certified_guarantee(SVR(), 10, "learner")
    with pytest.raises(InvalidParameterError, match="^base: .*ExponentialMechanismERM"):
        certified_guarantee(ExponentialMechanismERM, 10)  # the class, not an instance
    with pytest.raises(InvalidParameterError, match="^base: .*accountant"):
        certified_guarantee(
            ExponentialMechanismERM(
                "zero_one", ThresholdCandidates([0.5]), 1.0, accountant=Accountant(Budget(1.0))
            ),
            10,
        )

    class Liar(EpsilonRegressor):
        def privacy_guarantee(self, n_samples: int) -> float:
            return 0.1

    with pytest.raises(InvalidParameterError, match="Budget"):
        certified_guarantee(Liar(), 10)


# --------------------------------------------------------------------------------------------
# Nesting and delta through the composition theorems
# --------------------------------------------------------------------------------------------


def test_nested_subsampling_composes():
    n, m_outer, m_inner, eps = 90, 30, 6, 1.5
    acct = Accountant(Budget(10.0, 0.5))
    est = SubsampledERM(SubsampledERM(_em(eps), m_inner), m_outer, accountant=acct, rng=2)
    est.fit(*_threshold_data(n))
    inner = _bbg_epsilon(mpmath.mpf(eps), mpmath.mpf(m_inner) / m_outer)
    _exact_at_least(acct.spent.epsilon, _bbg_epsilon(inner, mpmath.mpf(m_outer) / n))
    assert acct.spent.delta == 0.0
    assert acct.spent == est.privacy_ == est.privacy_guarantee(n) and len(acct.ledger) == 1
    assert est.estimator_.estimator_.hypothesis_ is est.hypothesis_


def test_nested_subsampling_of_a_certified_gibbs_sampler_multiplies_the_rates():
    n, m_outer, m_inner, tv = 80, 20, 5, 1e-6
    acct = Accountant(Budget(10.0, 0.5))
    est = SubsampledERM(
        SubsampledERM(_gibbs(step=0.01, tv_bound=tv), m_inner), m_outer, accountant=acct, rng=3
    ).fit(*_threshold_data(n))
    g1, g2 = mpmath.mpf(m_inner) / m_outer, mpmath.mpf(m_outer) / n
    _exact_at_least(acct.spent.epsilon, _bbg_epsilon(_bbg_epsilon(mpmath.mpf(1), g1), g2))
    _exact_at_least(acct.spent.delta, g2 * g1 * _gibbs_delta(1.0, tv))
    assert acct.spent == est.privacy_


def test_subsampling_a_boosted_and_a_tuned_learner():
    n, m, eps = 120, 40, 0.8
    acct = Accountant(Budget(10.0))
    boosted = SubsampledERM(BoostedERM(_em(eps), 0.2), m, accountant=acct, rng=4).fit(
        *_threshold_data(n)
    )
    _exact_at_least(boosted.privacy_.epsilon, _bbg_epsilon(mpmath.mpf(eps), mpmath.mpf(m) / n))
    g = np.random.default_rng(5)
    X = g.uniform(-1, 1, (n, 2))
    y = np.clip(X @ [0.5, -0.3], -1, 1)
    tuned = SubsampledERM(
        PrivateTuning(
            OutputPerturbationRegressor(None, data_norm=1.0, label_bound=1.0),
            {"alpha": [0.1, 1.0]},
            eps,
        ),
        m,
        accountant=acct,
        rng=6,
    ).fit(X, y)
    _exact_at_least(tuned.privacy_.epsilon, _bbg_epsilon(mpmath.mpf(eps), mpmath.mpf(m) / n))
    assert [e.budget for e in acct.ledger] == [boosted.privacy_, tuned.privacy_]


def test_private_tuning_carries_the_candidates_delta():
    # n = 103 rows, 2 grid points: chunks of 35, 34, 34 (np.array_split); the candidates train
    # on the first two, so the largest candidate delta is 1e-3 / 34 (parallel composition).
    n, eps = 103, 0.7
    X = np.random.default_rng(7).random((n, 2))
    y = X[:, 0] - 0.5
    acct = Accountant(Budget(10.0, 0.5))
    est = PrivateTuning(
        ApproximateRegressor(epsilon=5.0), {"alpha": [0.1, 1.0]}, eps, accountant=acct, rng=8
    ).fit(X, y)
    assert acct.spent == Budget(eps, 1e-3 / 34)
    assert acct.spent == est.privacy_ == est.privacy_guarantee(n)
    with pytest.raises(InvalidParameterError, match="selection"):
        PrivateTuning(
            ApproximateRegressor(), {"alpha": [1.0]}, eps, selection="paper_not_dp"
        ).privacy_guarantee(n)


# --------------------------------------------------------------------------------------------
# The charge is the reported guarantee
# --------------------------------------------------------------------------------------------


def _fits():
    X, y = _threshold_data(60, seed=9)
    g = np.random.default_rng(10)
    Xr = g.uniform(-1, 1, (60, 2))
    yr = np.clip(Xr @ [0.5, -0.3], -1, 1)
    Xb = g.integers(0, 2, (60, 4)).astype(np.uint8)
    Yb = g.integers(0, 2, (60, 5)).astype(bool)
    return [
        ("ExponentialMechanismERM", lambda a: _em(0.3).set_params(accountant=a), (X, y), {}),
        ("SubsampledERM", lambda a: SubsampledERM(_em(0.9), 12, accountant=a), (X, y), {}),
        (
            "BoostedERM",
            lambda a: BoostedERM(_em(0.6), 0.2, selection_epsilon=0.4, accountant=a),
            (X, y),
            {},
        ),
        (
            "BestSubsetERM",
            lambda a: BestSubsetERM("clipped_squared", 0.5, 1, num=5, accountant=a),
            (Xr, yr),
            {},
        ),
        (
            "ApproximateGibbsERM",
            lambda a: _gibbs(step=0.01, tv_bound=1e-7, accountant=a),
            (X, y),
            {},
        ),
        (
            "OutputPerturbationRegressor",
            lambda a: OutputPerturbationRegressor(
                0.4, accountant=a, data_norm=1.0, label_bound=1.0
            ),
            (Xr, yr),
            {},
        ),
        (
            "PrivateTuning",
            lambda a: PrivateTuning(
                OutputPerturbationRegressor(None, data_norm=1.0, label_bound=1.0),
                {"alpha": [0.1, 1.0]},
                0.5,
                accountant=a,
            ),
            (Xr, yr),
            {},
        ),
        (
            "ParityMultiLearner",
            lambda a: ParityMultiLearner(4, 1.0, 1e-6, accountant=a),
            (Xb, Yb),
            {},
        ),
        (
            "IndependentMultiLearner",
            lambda a: IndependentMultiLearner(
                Parities(4), 1.0, 1e-6, composition="advanced", accountant=a
            ),
            (Xb, Yb),
            {"n_concepts": 5},
        ),
    ]


@pytest.mark.parametrize("case", range(9))
def test_the_charge_is_the_reported_guarantee(case):
    name, make, (X, y), extra = _fits()[case]
    acct = Accountant(Budget(10.0, 0.5))
    est = make(acct).set_params(rng=11).fit(X, y)
    claimed = est.privacy_guarantee(len(X), **extra)
    assert acct.spent == claimed, name
    assert len(acct.ledger) == 1 and acct.ledger[0].budget == claimed
    if hasattr(est, "privacy_"):
        assert est.privacy_ == claimed


def test_multi_learner_guarantees_need_k_where_it_matters():
    with pytest.raises(InvalidParameterError, match="n_concepts"):
        IndependentMultiLearner(Parities(3), 1.0).privacy_guarantee(50)
    assert ParityMultiLearner(3, 1.0, 1e-6).privacy_guarantee(50) == Budget(1.0, 1e-6)
    # fewer rows than one subsample: nothing is computed from the data, nothing is charged
    assert ParityMultiLearner(3, 1.0, 1e-6).privacy_guarantee(5) == Budget(0.0)
    from privlearn.multi import NonPrivateMultiLearner

    with pytest.raises(InvalidParameterError, match="not differentially private"):
        NonPrivateMultiLearner(Parities(3)).privacy_guarantee(50)


# --------------------------------------------------------------------------------------------
# Survivors of the in-diff mutation run over erm_wrappers.py and _certified.py
# --------------------------------------------------------------------------------------------


class DrawingRegressor(ApproximateRegressor):
    """A certified test double whose fit records one draw from its own ``rng`` parameter."""

    def fit(self, X: np.ndarray, y: np.ndarray) -> "DrawingRegressor":
        from privlearn.random import as_generator

        self.draw_ = int(as_generator(self.rng).random_raw())
        return super().fit(X, y)


@pytest.mark.parametrize(
    "make",
    [
        lambda: SubsampledERM(_em()),
        lambda: BestSubsetERM("clipped_squared", 0.5, 1, num=5),
    ],
)
@pytest.mark.parametrize("bad", [0, -3, 2.0, True])
def test_privacy_guarantee_refusals_name_n_samples(make, bad):
    with pytest.raises(InvalidParameterError, match=r"^n_samples: must be an integer >= 1") as info:
        make().privacy_guarantee(bad)
    assert info.value.parameter == "n_samples"


@pytest.mark.parametrize("eps", [0.3, 1.0, 2.5])
def test_subsampled_guarantee_on_one_record_is_the_base_guarantee(eps):
    # n = 1 is a valid dataset size: m = floor(sqrt(1)) = 1, gamma = 1, and Balle, Barthe and
    # Gaboardi's ln(1 + 1 (e^eps - 1)) is eps itself (no amplification, nothing lost).
    got = SubsampledERM(_em(eps)).privacy_guarantee(1)
    _exact_at_least(got.epsilon, _bbg_epsilon(mpmath.mpf(eps), mpmath.mpf(1)))
    assert got.delta == 0.0


@pytest.mark.parametrize("n, m", [(3, 1), (3, 2), (10, 1), (100, 10), (12, 5)])
def test_subsampled_lemma29_delta_is_the_exact_ratio_rounded_up(n, m):
    # Wang, Lei and Fienberg (2016), Lemma 29: (0, m/n) exactly. The charge is the smallest
    # float >= m/n; for 1/3 and 2/3 the nearest float is *below* the ratio, so computing the
    # rate in floating point (and not from the exact m/n) would under-report delta.
    from fractions import Fraction

    exact = Fraction(m, n)
    expected = float(exact)
    if Fraction(expected) < exact:
        expected = math.nextafter(expected, math.inf)
    acct = Accountant(Budget(1.0, 0.9))
    est = SubsampledERM(SVR(), m, accounting="lemma29", accountant=acct, rng=0)
    got = est.privacy_guarantee(n)
    assert got == Budget(0.0, expected) and Fraction(got.delta) >= exact
    X = np.arange(float(n)).reshape(-1, 1)
    est.fit(X, X[:, 0])
    assert acct.spent == est.privacy_ == got and len(acct.ledger) == 1


def test_subsampled_lemma29_has_a_float_below_the_ratio_case():
    # power of the test above: its (3, 1) and (3, 2) cases are ones where float(m / n) < m / n
    from fractions import Fraction

    assert Fraction(1 / 3) < Fraction(1, 3) and Fraction(2 / 3) < Fraction(2, 3)


def test_subsampled_lemma29_charges_only_its_own_accountant():
    # Lemma 29 asks nothing of the base, so a base carrying an accountant is not refused; its
    # copy runs without it: the one charge is the wrapper's (0, m/n), never the base's epsilon too.
    inner, outer = Accountant(Budget(10.0)), Accountant(Budget(10.0, 0.5))
    base = _em(1.0).set_params(accountant=inner)
    est = SubsampledERM(base, 10, accounting="lemma29", accountant=outer, rng=0)
    est.fit(*_threshold_data(100))
    assert inner.spent == Budget(0.0) and len(inner.ledger) == 0
    assert outer.spent == est.privacy_ == Budget(0.0, 0.1) and len(outer.ledger) == 1
    assert est.estimator_.accountant is None


def test_subsampled_base_draws_from_the_wrappers_rng():
    X, y = _threshold_data(50)
    fits = [SubsampledERM(DrawingRegressor(), 10, rng=seed).fit(X, y) for seed in (4, 4, 5)]
    assert fits[0].estimator_.draw_ == fits[1].estimator_.draw_ != fits[2].estimator_.draw_
    assert fits[0].n_features_in_ == 1 and fits[0].subsample_size_ == 10
    X3 = np.hstack([X, X, X])
    assert SubsampledERM(DrawingRegressor(), 10, rng=4).fit(X3, y).n_features_in_ == 3


def test_subsampled_refuses_mismatched_labels_before_charging():
    acct = Accountant(Budget(10.0, 0.5))
    X, y = _threshold_data(30)
    for bad in (y[:-1], y[:5], y.reshape(-1, 1), np.stack([y, y], axis=1)):
        est = SubsampledERM(ApproximateRegressor(), 5, accountant=acct, rng=0)
        with pytest.raises(InvalidParameterError, match=r"^y: must have shape \(30,\)"):
            est.fit(X, bad)
        assert not hasattr(est, "estimator_")
    assert acct.spent == Budget(0.0) and len(acct.ledger) == 0


def _sparse_data(n: int, seed: int = 12):
    g = np.random.default_rng(seed)
    X = g.uniform(-1, 1, (n, 6))
    return X, np.clip(X @ [0.5, -0.3, 0.0, 0.0, 0.0, 0.0], -1, 1)


@pytest.mark.parametrize("eps, split", [(0.5, 0.5), (1.3, 0.2)])
def test_best_subset_guarantee_on_one_record(eps, split):
    # Example 22: basic composition of split * eps and the rest is pure eps-DP, for every n >= 1
    est = BestSubsetERM("clipped_squared", eps, 1, num=5, split=split)
    assert est.privacy_guarantee(1) == est.privacy_guarantee(1000) == Budget(eps, 0.0)


def test_best_subset_is_reproducible_from_its_rng():
    # eps = 1e-3: both exponential-mechanism stages are close to uniform over C(6, 2) = 15
    # supports and 5**2 = 25 grid points, so a stage drawing from fresh entropy instead of the
    # estimator's rng gives 8 identical fits with probability below 15**-7 < 1e-8.
    X, y = _sparse_data(40)
    for seed in (3, 4):
        fits = [
            BestSubsetERM("clipped_squared", 1e-3, 2, num=5, rng=seed).fit(X, y) for _ in range(8)
        ]
        assert len({(f.support_, tuple(f.coef_)) for f in fits}) == 1


def test_best_subset_excess_risk_bound_uses_the_number_of_records():
    # O((s ln d + ln n) / (n eps1)) + O((s ln L + s ln n) / (n eps2)): shrinks as n grows with
    # d fixed (here d = 6 features, n = 50 and 200 records).
    bounds = [
        BestSubsetERM("clipped_squared", 1.0, 2, num=5, rng=0)
        .fit(*_sparse_data(n))
        .excess_risk_bound_
        for n in (50, 200)
    ]
    assert bounds[1] < bounds[0]


def test_best_subset_releases_the_chosen_sparse_model_as_its_hypothesis():
    from privlearn.hypotheses import Halfspace
    from privlearn.learners.erm import LinearModel

    X, y = _sparse_data(40)
    reg = BestSubsetERM("clipped_squared", 1.0, 2, num=5, rng=1).fit(X, y)
    assert reg.hypothesis_ == LinearModel(tuple(float(v) for v in reg.coef_), 0.0)
    assert np.count_nonzero(reg.coef_) <= 2 and reg.n_features_in_ == 6
    clf = BestSubsetERM("zero_one", 1.0, 2, num=5, rng=1).fit(X, (y > 0).astype(int))
    assert clf.hypothesis_ == Halfspace(tuple(float(v) for v in clf.coef_), 0.0)
    assert type(clf.hypothesis_) is Halfspace and type(reg.hypothesis_) is LinearModel


def test_best_subset_excess_risk_bound_adds_a_quantisation_term_only_for_real_losses():
    # Same n, d, s, grid, epsilon and loss bound B = 1: the zero-one risks are exact integers,
    # the clipped squared risks are rounded to fixed point, whose (small, positive) error is
    # added to the bound: 2 B (1 + 1/n) / 2**k with k = 32 fractional bits for n = 40 (losses
    # rounded to multiples of B / 2**k, the two stages' minima each off by at most that).
    n = 40
    X, y = _sparse_data(n)
    exact = BestSubsetERM("zero_one", 1.0, 2, num=5, rng=1).fit(X, (y > 0).astype(int))
    rounded = BestSubsetERM("clipped_squared", 1.0, 2, num=5, loss_bound=1.0, rng=1).fit(X, y)
    gap = rounded.excess_risk_bound_ - exact.excess_risk_bound_
    assert gap == pytest.approx(2.0 * (1 + 1 / n) / 2.0**32, rel=1e-4)  # float cancellation ~1e-6


@pytest.mark.parametrize("sensitivity, factor", [("paper", 2), ("tight", 1)])
def test_best_subset_excess_risk_bound_is_the_sum_of_the_two_stages(sensitivity, factor):
    # Example 22 with the per-dataset exponential-mechanism bound 2 Delta (ln N + 1) / eps per
    # stage, Delta = factor * B / n: stage 1 over C(6, 2) = 15 supports with eps1 = 0.3, stage 2
    # over the 13 points of {-1, -1/2, 0, 1/2, 1}^2 in the unit disc with eps2 = 1 - eps1 = 0.7,
    # plus the fixed-point term 2 B (1 + 1/n) / 2**32. B = 4 (not the default 1).
    n, B = 40, 4.0
    X, y = _sparse_data(n)
    est = BestSubsetERM(
        "clipped_squared", 1.0, 2, num=5, loss_bound=B, sensitivity=sensitivity, split=0.3, rng=1
    ).fit(X, y)
    axis = [-1.0, -0.5, 0.0, 0.5, 1.0]
    G = sum(1 for a in axis for b in axis if a * a + b * b <= 1.0)
    assert G == 13 and math.comb(6, 2) == 15
    delta = factor * B / n
    expected = (
        2 * delta * (math.log(15) + 1) / 0.3
        + 2 * delta * (math.log(G) + 1) / 0.7
        + 2 * B * (1 + 1 / n) / 2.0**32
    )
    assert est.excess_risk_bound_ == pytest.approx(expected, rel=1e-12)


def test_best_subset_predicts_with_the_chosen_model():
    X, y = _sparse_data(40)
    reg = BestSubsetERM("clipped_squared", 1.0, 2, num=5, rng=1).fit(X, y)
    np.testing.assert_array_equal(reg.predict(X), X @ reg.coef_)
    clf = BestSubsetERM("zero_one", 1.0, 2, num=5, rng=1).fit(X, (y > 0).astype(int))
    np.testing.assert_array_equal(clf.predict(X), (X @ clf.coef_ >= 0).astype(int))


def test_boosted_fits_a_base_with_an_unbounded_loss_and_its_declared_bound():
    # The selection scores the base's own loss with the base's declared bound B: a logistic base
    # (unbounded loss, B = 3 declared) must be usable, and charges its epsilon (parallel
    # composition of the parts and of the selection at the base's epsilon).
    from privlearn.learners import LinearCandidates

    X, y = _threshold_data(80)
    coef = np.linspace(-2, 2, 9).reshape(-1, 1)
    base = ExponentialMechanismERM(
        "logistic", LinearCandidates(coef, np.zeros(9)), 0.7, loss_bound=3.0
    )
    acct = Accountant(Budget(10.0))
    est = BoostedERM(base, 0.2, accountant=acct, rng=0).fit(X, y)
    assert acct.spent == est.privacy_ == Budget(0.7) and len(est.estimators_) == 3


def test_boosted_checks_every_label_before_charging():
    # One label 0.5 among 0-1 labels: refused before anything is drawn, wherever the (secret)
    # partition would have put it. If only the base fits checked labels, a label in the validation
    # part (probability 1/(a + 1) = 1/4 per seed, a = ceil(ln 15) = 3) would pass: 40 seeds all
    # refusing then has probability (3/4)**40 < 1e-4.
    X, y = _threshold_data(60)
    y = y.astype(float)
    y[17] = 0.5
    acct = Accountant(Budget(10.0))
    for seed in range(40):
        with pytest.raises(InvalidParameterError, match="^y: "):
            BoostedERM(_em(), 0.2, accountant=acct, rng=seed).fit(X, y)
    assert acct.spent == Budget(0.0)


def test_boosted_base_fits_draw_from_the_wrappers_rng():
    # base epsilon 1e-3: each base run is close to uniform over 11 thresholds, so base runs drawing
    # from fresh entropy would give 8 identical fits with probability below 11**-21.
    X, y = _threshold_data(60)
    for seed in (0, 1):
        fits = [
            BoostedERM(_em(1e-3), 0.2, selection_epsilon=1.0, rng=seed).fit(X, y) for _ in range(8)
        ]
        assert len({tuple(e.hypothesis_ for e in f.estimators_) for f in fits}) == 1


@pytest.mark.parametrize("sensitivity, factor", [("paper", 2), ("tight", 1)])
def test_boosted_selection_is_calibrated_to_the_documented_sensitivity(
    monkeypatch, sensitivity, factor
):
    # Theorem 25's selection: utility q(h) = -((a+1)/n) sum_{val} l(h, z), sensitivity
    # factor (a+1) B / n, so the exponential mechanism sees q / Delta = -sum_{val} l / (factor B).
    # With B = 0.01 every logistic loss of these candidates (|margin| <= 2, so l >= ln(1 + e^-2)
    # > 0.01) is clipped to B: q / Delta = -|val| / factor exactly, whatever the fixed point.
    # Spies on the selection (the real mechanism still draws).
    import inspect

    import privlearn.learners.erm_wrappers as wrappers
    from privlearn.learners import LinearCandidates

    real = wrappers.exponential
    calls = []

    def spy(*args, **kwargs):
        bound = inspect.signature(real).bind(*args, **kwargs)
        bound.apply_defaults()
        calls.append(dict(bound.arguments))
        return real(*args, **kwargs)

    monkeypatch.setattr(wrappers, "exponential", spy)
    X, y = _threshold_data(83)
    coef = np.linspace(-2, 2, 9).reshape(-1, 1)
    base = ExponentialMechanismERM(
        "logistic",
        LinearCandidates(coef, np.zeros(9)),
        0.7,
        loss_bound=0.01,
        sensitivity=sensitivity,
    )
    est = BoostedERM(base, 0.2, selection_epsilon=0.3, rng=0).fit(X, y)
    assert len(calls) == 1 and calls[0]["epsilon"] == 0.3
    n_val = est.part_sizes_[-1]
    assert est.part_sizes_ == [21, 21, 21, 20] and n_val == 20  # n = 83 in a + 1 = 4 parts
    scores = np.asarray(calls[0]["scores"])
    assert scores.shape == (3,)
    np.testing.assert_array_equal(scores / calls[0]["sensitivity"], np.full(3, -n_val / factor))


def test_boosted_selection_draws_from_the_wrappers_rng():
    # selection_epsilon 1e-6: the choice among a = 3 hypotheses is close to uniform, so a selection
    # drawing from fresh entropy would agree across 16 seeded fits with probability below 3**-15.
    X, y = _threshold_data(60)
    for seed in (0, 1):
        chosen = {
            BoostedERM(_em(), 0.2, selection_epsilon=1e-6, rng=seed).fit(X, y).selected_
            for _ in range(16)
        }
        assert len(chosen) == 1


def test_boosted_reports_its_parts_and_selection():
    X, y = _threshold_data(83)
    for sel, expected in (
        (None, 0.6),
        (0.25, 0.25),
        ("paper", (math.log(3 / 0.2) + 1) / math.sqrt(83)),
    ):
        est = BoostedERM(_em(0.6), 0.2, selection_epsilon=sel, rng=2).fit(X, y)
        assert est.n_parts_ == 4 and est.part_sizes_ == [21, 21, 21, 20]  # a = ceil(ln 15) = 3
        assert est.selection_epsilon_ == pytest.approx(expected, rel=1e-15)
        assert est.selected_ in (0, 1, 2) and est.estimator_ is est.estimators_[est.selected_]
        assert est.hypothesis_ == est.estimator_.hypothesis_ and est.n_features_in_ == 1


def test_public_n_samples_names_X_by_default():
    from privlearn._certified import public_n_samples

    assert public_n_samples(np.zeros((7, 2))) == 7
    with pytest.raises(InvalidParameterError, match="^X: ") as info:
        public_n_samples(object())
    assert info.value.parameter == "X"
    with pytest.raises(InvalidParameterError, match="^X: must hold at least one record") as info:
        public_n_samples(np.zeros((0, 2)))
    assert info.value.parameter == "X"
    with pytest.raises(InvalidParameterError, match="^Z: "):
        public_n_samples(np.zeros((0, 2)), "Z")


def test_public_n_samples_accepts_one_record_and_boosted_refuses_a_non_numeric_delta():
    from privlearn._certified import public_n_samples

    assert public_n_samples(np.zeros((1, 3))) == 1 and public_n_samples([[0.5]]) == 1
    for delta in ("0.1", True, False, 0.0, 1.0, None):
        with pytest.raises(InvalidParameterError, match="^delta: must be in"):
            BoostedERM(_em(), delta).privacy_guarantee(100)


def test_boosted_needs_one_record_per_part_and_no_more():
    # delta = 0.2: a = ceil(ln 15) = 3 base parts plus the validation part, so n >= 4
    est = BoostedERM(_em(0.6), 0.2)
    assert est.privacy_guarantee(4) == Budget(0.6)
    for n in (1, 2, 3):
        with pytest.raises(InvalidParameterError, match=r"^X: .*a \+ 1 = 4 records"):
            est.privacy_guarantee(n)
