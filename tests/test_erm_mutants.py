"""Tests that pin behaviour of the ERM learners and wrappers found untested by mutation testing
(issue 20: the survivors of learners/erm.py, learners/erm_wrappers.py and _certified.py).

Each expected value is derived here from the documented behaviour (scikit-learn's column-name
bookkeeping, the clipped loss of the docstrings, the zCDP form of a bounded-range mechanism),
never from the module's own helpers."""

from __future__ import annotations

import warnings
from typing import Any, List

import numpy as np
import pandas as pd
import pytest

from privlearn.accounting import Accountant, Budget
from privlearn.accounting._event import PrivacyEvent
from privlearn.errors import InvalidParameterError
from privlearn.learners import (
    BestSubsetERM,
    BoostedERM,
    ContinuousThresholds,
    ExponentialMechanismERM,
    Grid,
    LinearCandidates,
    SubsampledERM,
    erm_wrappers,
)

COLS = ["a", "b"]


def _data(n: int = 60, seed: int = 0) -> Any:
    g = np.random.default_rng(seed)
    X = g.uniform(-1.0, 1.0, (n, 2))
    y = (X[:, 0] + X[:, 1] > 0).astype(np.int64)
    return X, y


def _frame(X: np.ndarray, cols: List[str] = COLS) -> pd.DataFrame:
    return pd.DataFrame(X, columns=cols)


def _em(**kw: Any) -> ExponentialMechanismERM:
    return ExponentialMechanismERM("zero_one", Grid(1.0, 2, num=5), 1.0, rng=0, **kw)


# -- column names (check_feature_names) -------------------------------------------------------


def test_fit_on_a_frame_records_its_columns_for_every_erm_learner() -> None:
    X, y = _data()
    Xf = _frame(X)
    fitted = [
        _em().fit(Xf, y),
        SubsampledERM(_em(), rng=0).fit(Xf, y),
        BoostedERM(_em(), delta=0.5, rng=0).fit(Xf, y),
        BestSubsetERM("clipped_squared", 1.0, 1, num=3, rng=0).fit(Xf, X[:, 0]),
    ]
    for est in fitted:
        assert list(est.feature_names_in_) == COLS, type(est).__name__


def test_refit_on_an_array_forgets_the_columns() -> None:
    # scikit-learn: a fit on an input without names deletes feature_names_in_.
    X, y = _data()
    est = BoostedERM(_em(), delta=0.5, rng=0).fit(_frame(X), y)
    est.fit(X, y)
    assert not hasattr(est, "feature_names_in_")


def test_other_columns_after_a_frame_fit_are_refused_naming_X() -> None:
    X, y = _data()
    em = _em().fit(_frame(X), y)
    best = BestSubsetERM("clipped_squared", 1.0, 1, num=3, rng=0).fit(_frame(X), X[:, 0])
    other = _frame(X, ["b", "a"])
    calls = [
        lambda: em.losses(other, y),
        lambda: em.predict(other),
        lambda: best.predict(other),
    ]
    for call in calls:
        with pytest.raises(InvalidParameterError) as info:
            call()
        assert info.value.parameter == "X"
    # the fitted columns stay those of the fit
    assert list(best.feature_names_in_) == COLS
    # the same columns pass silently
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        em.losses(_frame(X), y)
        best.predict(_frame(X))


# -- feature counts ---------------------------------------------------------------------------


def test_continuous_thresholds_refuse_more_than_one_feature_before_charging() -> None:
    X, y = _data()
    acct = Accountant(Budget(10.0))
    est = ExponentialMechanismERM("zero_one", ContinuousThresholds(), 1.0, accountant=acct, rng=0)
    with pytest.raises(InvalidParameterError) as info:
        est.fit(X, y)
    assert info.value.parameter == "X"
    assert len(acct.ledger) == 0


def test_predict_and_losses_refuse_another_number_of_features() -> None:
    X, y = _data()
    est = _em().fit(X, y)
    X3 = np.c_[X, X[:, 0]]
    for call in (lambda: est.predict(X3), lambda: est.losses(X3, y)):
        with pytest.raises(InvalidParameterError, match=r"must have 2 features \(as in fit\)"):
            call()


def test_continuous_threshold_predicts_its_threshold() -> None:
    g = np.random.default_rng(1)
    x = g.uniform(0.0, 1.0, 80)
    y = (x >= 0.4).astype(np.int64)
    est = ExponentialMechanismERM("zero_one", ContinuousThresholds(), 2.0, rng=3).fit(x, y)
    t = est.hypothesis_.t
    q = np.linspace(0.0, 1.0, 41)
    np.testing.assert_array_equal(est.predict(q), (q >= t).astype(np.int64))


# -- losses() of a user loss and of linear candidates -----------------------------------------


def _user_loss(h: Any, X: np.ndarray, y: np.ndarray) -> Any:
    # a raw value -1, 0.5 or 3 by the label and the side, NaN on the last record
    p = X @ np.asarray(h.coef) + h.intercept
    v = np.where(y > 0.5, np.where(p >= 0, -1.0, 3.0), 0.5)
    v[-1] = np.nan
    return v


def test_losses_of_a_user_loss_are_clipped_to_the_bound_with_nan_as_the_bound() -> None:
    X, y = _data()
    B = 2.0
    est = ExponentialMechanismERM(_user_loss, Grid(1.0, 2, num=5), 1.0, loss_bound=B, rng=0)
    est.fit(X, y)
    raw = _user_loss(est.hypothesis_, X, y)
    expected = np.where(np.isnan(raw), B, np.minimum(np.maximum(raw, 0.0), B))
    got = est.losses(X, y)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, expected)
    assert set(np.unique(expected)) <= {0.0, 0.5, 2.0} and 0.5 in expected


def test_losses_of_a_single_precision_user_loss_are_float64() -> None:
    # The docstring promises floating point losses; the fit reads the user loss as float64, so
    # losses() reports the same float64 values (not float32 ones) for a float32 user loss.
    X, y = _data()

    def f32_loss(h: Any, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        return np.where(y > 0.5, 0.1, 3.0).astype(np.float32)  # 0.1 (float32) or 3 -> B

    est = ExponentialMechanismERM(f32_loss, Grid(1.0, 2, num=5), 1.0, loss_bound=2.0, rng=0)
    got = est.fit(X, y).losses(X, y)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, np.where(y == 1, float(np.float32(0.1)), 2.0))


def test_losses_of_linear_candidates_are_the_clipped_squared_residuals() -> None:
    g = np.random.default_rng(2)
    X = g.uniform(-1.0, 1.0, (50, 2))
    y = X @ np.array([0.5, -0.25]) + 0.1
    coef = np.array([[0.5, -0.25], [1.0, 1.0], [0.0, 0.0]])
    icpt = np.array([0.1, 0.0, 0.0])
    B = 0.5
    est = ExponentialMechanismERM(
        "squared", LinearCandidates(coef, icpt), 1.0, loss_bound=B, rng=0
    ).fit(X, y)
    i = est.candidate_index_
    expected = np.minimum((X @ coef[i] + icpt[i] - y) ** 2, B)
    np.testing.assert_allclose(est.losses(X, y), expected, rtol=1e-12, atol=1e-15)


# -- charges ----------------------------------------------------------------------------------


def test_ledger_labels_of_the_wrappers() -> None:
    X, y = _data()
    acct = Accountant(Budget(10.0))
    BoostedERM(_em(), delta=0.5, accountant=acct, rng=0).fit(X, y)
    BestSubsetERM("clipped_squared", 1.0, 1, num=3, accountant=acct, rng=0).fit(X, X[:, 0])
    SubsampledERM(_em(), accountant=acct, rng=0).fit(X, y)
    assert [e.label for e in acct.ledger] == ["boosted ERM", "best-subset ERM", "subsampled ERM"]


def test_best_subset_charges_two_bounded_range_stages_to_a_zcdp_accountant() -> None:
    # Each stage is an eps_i-bounded-range exponential mechanism: eps_i^2 / 8 zCDP (Cesar and
    # Rogers 2021); a pure eps charge would be eps^2 / 2.
    X, _ = _data()
    eps, split = 1.0, 0.25
    acct = Accountant(Budget(10.0, 1e-6), "zcdp")
    BestSubsetERM("clipped_squared", eps, 1, num=3, split=split, accountant=acct, rng=0).fit(
        X, X[:, 0]
    )
    e1, e2 = eps * split, eps * (1.0 - split)
    assert acct.spent_native.rho == pytest.approx((e1 * e1 + e2 * e2) / 8.0, rel=1e-9)


def test_best_subset_charges_its_documented_event_to_a_planned_pld_accountant() -> None:
    # The docstring: charged once as composed([bounded_range(eps1), bounded_range(eps2)],
    # budget=Budget(epsilon)); a PLD accountant accepts exactly its planned events.
    X, _ = _data()
    br = PrivacyEvent.bounded_range
    planned = PrivacyEvent.composed([br(0.5), br(0.5)], budget=Budget(1.0))
    acct = Accountant(Budget(10.0, 1e-6), "pld", plan=[planned])
    BestSubsetERM("clipped_squared", 1.0, 1, num=3, split=0.5, accountant=acct, rng=0).fit(
        X, X[:, 0]
    )
    assert [e.event for e in acct.ledger] == [planned]


def test_boosted_selection_scores_are_fine_fixed_point_validation_losses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The selection's utility of part i is minus its validation loss; scores / sensitivity must
    # equal that loss / (factor * B) up to a rounding far below one record's loss
    # (sensitivity="tight": B / n per record, factor 1).
    seen: dict = {"losses": []}
    real_exp = erm_wrappers.exponential
    real_losses = ExponentialMechanismERM.losses

    def exp_spy(scores: Any, eps: float, sens: float, **kw: Any) -> Any:
        seen["scores"], seen["sens"] = np.asarray(scores), sens
        return real_exp(scores, eps, sens, **kw)

    def losses_spy(self: Any, X: Any, y: Any) -> np.ndarray:
        out = real_losses(self, X, y)
        seen["losses"].append(out)
        return out

    monkeypatch.setattr(erm_wrappers, "exponential", exp_spy)
    monkeypatch.setattr(ExponentialMechanismERM, "losses", losses_spy)
    g = np.random.default_rng(4)
    X = g.uniform(-1.0, 1.0, (90, 2))
    y = X @ np.array([0.3, 0.6])
    coef = g.uniform(-1.0, 1.0, (6, 2))
    B = 1.0
    base = ExponentialMechanismERM(
        "clipped_squared", LinearCandidates(coef), 1.0, loss_bound=B, sensitivity="tight"
    )
    BoostedERM(base, delta=0.5, rng=0).fit(X, y)
    totals = np.array([float(np.sum(v)) for v in seen["losses"]])
    assert len(totals) == len(seen["scores"]) >= 2
    assert np.all(totals > 0.01)  # real-valued losses, not all 0 or B
    np.testing.assert_allclose(-seen["scores"] * B / seen["sens"], totals, rtol=0, atol=1e-6)


def test_best_subset_refuses_a_split_whose_first_stage_epsilon_underflows() -> None:
    # epsilon * split below the smallest positive float: refused naming split, before the data
    # are read (X here would fail the fit with another parameter) and with nothing charged.
    acct = Accountant(Budget(10.0))
    est = BestSubsetERM("clipped_squared", 0.5, 1, num=3, split=5e-324, accountant=acct)
    for call in (lambda: est.fit([[float("nan"), 0.0]], [0.0]), lambda: est.privacy_guarantee(5)):
        with pytest.raises(InvalidParameterError) as info:
            call()
        assert info.value.parameter == "split"
    assert len(acct.ledger) == 0


# -- the wrappers' forwarded predict and score (issue 20's "no tests" mutants) ----------------


def _wrappers(X: np.ndarray, y: np.ndarray, Xfit: Any) -> List[Any]:
    return [
        SubsampledERM(_em(), rng=0).fit(Xfit, y),
        BoostedERM(_em(), delta=0.5, rng=0).fit(Xfit, y),
    ]


def test_wrappers_predict_refuses_reordered_columns_and_another_feature_count() -> None:
    X, y = _data()
    for est in _wrappers(X, y, _frame(X)):
        with pytest.raises(InvalidParameterError) as info:
            est.predict(_frame(X, ["b", "a"]))
        assert info.value.parameter == "X"
        assert list(est.feature_names_in_) == COLS  # predict never re-records the names
    for est in _wrappers(X, y, X):
        with pytest.raises(InvalidParameterError, match=r"must have 2 features \(as in fit\)"):
            est.predict(np.c_[X, X[:, 0]])


def test_wrappers_score_is_the_accuracy_of_their_predictions() -> None:
    X, y = _data()
    for est in _wrappers(X, y, X):
        expected = float(np.mean(est.predict(X) == y))
        assert est.score(X, y) == expected
