"""privlearn.learners: details pinned by mutation testing (issue 16): parameter names in error
messages, ledger labels, documented defaults, the floating-point losses, the grid size limit,
the Gibbs sampler's initial step and the private tuning's method forwarding and row count.
Values are checked against independent derivations from the documented formulas."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from privlearn import InvalidParameterError
from privlearn.accounting import Accountant, Budget
from privlearn.learners import (
    ApproximateGibbsERM,
    BestSubsetERM,
    ExponentialMechanismERM,
    Grid,
    LinearCandidates,
    ObjectivePerturbationClassifier,
    ObjectivePerturbationRegressor,
    OutputPerturbationRegressor,
    PrivateTuning,
    SubsampledERM,
    ThresholdCandidates,
    boosting_excess_risk_bound,
    example21_epsilon,
)


def _refused(call, name):
    """``call()`` raises InvalidParameterError naming ``name`` (attribute and message)."""
    with pytest.raises(InvalidParameterError) as info:
        call()
    assert info.value.parameter == name
    assert str(info.value).startswith(f"{name}:")


# ---------------------------------------------------------------------------------------------
# Exponential-mechanism ERM and its wrappers
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("loss", ["hinge", "clipped_hinge"])
def test_hinge_losses_of_the_released_linear_model(loss):
    """``losses`` is the clipped hinge ``min(max(0, 1 - s (w.x + b)), B)``, s = +-1."""
    g = np.random.default_rng(21)
    X = g.uniform(-2, 2, (60, 2))
    y = (g.random(60) < 0.5).astype(int)
    cands = LinearCandidates(g.normal(size=(7, 2)), g.normal(size=7))
    est = ExponentialMechanismERM(loss, cands, 1.0, loss_bound=2.5, rng=4).fit(X, y)
    s = np.where(y == 1, 1.0, -1.0)
    margin = X @ est.coef_ + est.intercept_
    want = np.minimum(np.maximum(0.0, 1.0 - s * margin), 2.5)
    assert np.allclose(est.losses(X, y), want, rtol=0, atol=1e-12)
    assert est.score(X, y) == pytest.approx(1.0 - want.mean() / 2.5)


def test_example21_epsilon_names_dim():
    # sqrt((d (ln L + ln n) + ln ratio) / n), Example 21
    assert example21_epsilon(100, 2, 3.0) == pytest.approx(
        math.sqrt(2 * (math.log(3.0) + math.log(100)) / 100), rel=1e-15
    )
    _refused(lambda: example21_epsilon(100, 0, 3.0), "dim")


def test_grid_without_intercept_counts_only_the_weight_axes():
    """The size limit is ``num^dim`` (``num^(dim+1)`` only with an intercept axis)."""
    num = 1 << 14  # num^1 = 2^14 points is fine; num^2 = 2^28 is over the 2^26 limit
    g = Grid(1.0, 1, num=num)
    assert len(g) == num and np.all(g.intercept == 0.0)
    with pytest.raises(InvalidParameterError, match=rf"{num}\^2 = {num * num} points") as info:
        Grid(1.0, 1, num=num, intercept_radius=1.0)
    assert info.value.parameter == "num"


def test_boosting_bound_names_its_parameters():
    _refused(lambda: boosting_excess_risk_bound(1, 0.1, 0.0, 1.0), "n")
    _refused(lambda: boosting_excess_risk_bound(1000, 0.1, 0.0, 1.0, loss_bound=0.0), "loss_bound")
    _refused(lambda: boosting_excess_risk_bound(1000, 0.1, 0.0, 1.0, loss_bound=-1.0), "loss_bound")


@pytest.mark.parametrize("mode, factor", [("paper", 2.0), ("tight", 1.0)])
def test_best_subset_zero_one_scores_are_plain_mistake_counts(mode, factor):
    """0-1 losses are not quantised (k = 0): the stage utilities are minus the exact mistake
    counts of ``1[w.x >= 0]`` and the sensitivity is 2 (paper) or 1 (tight) mistakes."""
    g = np.random.default_rng(22)
    X = g.uniform(-1, 1, (50, 3))
    y = (X[:, 1] + 0.3 * g.normal(size=50) > 0).astype(int)
    est = BestSubsetERM("zero_one", 1.0, 1, num=3, sensitivity=mode)
    supports, coef, scores, sens = est._stage_scores(X, y)
    assert sens == factor
    # sparsity 1 on the grid {-1, 0, 1}: w.x is exactly +-x_j or 0
    mistakes = np.array([np.count_nonzero((X @ w >= 0) != (y == 1)) for w in coef])
    assert scores.dtype == np.int64
    assert np.array_equal(scores.ravel(), -mistakes)


def test_subsampled_erm_ledger_label():
    base = ExponentialMechanismERM("zero_one", ThresholdCandidates(np.linspace(0, 1, 11)), 1.0)
    X = np.random.default_rng(23).random((100, 1))
    y = (X[:, 0] > 0.5).astype(int)
    acct = Accountant(Budget(1.0))
    est = SubsampledERM(base, 10, accountant=acct, rng=1).fit(X, y)
    (entry,) = acct.ledger
    assert entry.label == "subsampled ERM" and entry.budget == est.privacy_


# ---------------------------------------------------------------------------------------------
# Approximate Gibbs sampler
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [0.5, 3.0])
def test_gibbs_initial_step(scale):
    """Without warm-up the adaptive step stays at its start, ``1 / (beta max(1, mean ||x||^2))``
    with ``beta = eps n / (4 B)`` (paper sensitivity)."""
    g = np.random.default_rng(24)
    X = scale * g.uniform(-1, 1, (40, 2))
    y = (X[:, 0] > 0).astype(int)
    est = ApproximateGibbsERM("clipped_logistic", 2.0, warmup=0, steps=4, chains=2, rng=5)
    est.fit(X, y)
    beta = 2.0 * 40 / (4 * 1.0)
    mean_sq = float(np.mean(np.sum(X * X, axis=1)))
    assert (mean_sq > 1.0) == (scale > 1.0)
    assert est._diagnostics["beta"] == pytest.approx(beta, rel=1e-15)
    assert est._diagnostics["step"] == pytest.approx(1.0 / (beta * max(1.0, mean_sq)), rel=1e-15)


def test_gibbs_ledger_label_and_warmup_name():
    g = np.random.default_rng(25)
    X = g.uniform(-1, 1, (30, 2))
    y = (X[:, 0] > 0).astype(int)
    acct = Accountant(Budget(2.0, 0.5))
    est = ApproximateGibbsERM(
        "clipped_logistic",
        1.0,
        step=0.05,
        steps=4,
        warmup=2,
        chains=2,
        tv_bound=0.01,
        accountant=acct,
        rng=6,
    ).fit(X, y)
    (entry,) = acct.ledger
    assert entry.label == "approximate Gibbs ERM" and entry.budget == est.privacy_
    _refused(lambda: ApproximateGibbsERM("clipped_logistic", 1.0, warmup=-1).fit(X, y), "warmup")


# ---------------------------------------------------------------------------------------------
# Objective perturbation and private tuning
# ---------------------------------------------------------------------------------------------


def test_objective_perturbation_regressor_huber_default():
    assert (
        ObjectivePerturbationRegressor(1.0, data_norm=1.0, label_bound=1.0).get_params()[
            "huber_delta"
        ]
        == 1.0
    )
    sig = inspect.signature(ObjectivePerturbationRegressor)
    assert sig.parameters["huber_delta"].default == 1.0
    assert "huber_delta : float, default 1.0" in ObjectivePerturbationRegressor.__doc__


def test_private_tuning_forwards_the_estimators_methods():
    g = np.random.default_rng(26)
    X = g.uniform(-1, 1, (300, 2)) / 2
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    base = ObjectivePerturbationClassifier(None, classes=[0, 1], data_norm=1.0)
    assert hasattr(base, "predict_proba") and hasattr(base, "decision_function")
    tuned = PrivateTuning(base, {"alpha": [0.01, 0.1]}, 1.0, rng=7)
    assert hasattr(tuned, "predict_proba") and hasattr(tuned, "decision_function")
    tuned.fit(X, y)
    assert np.array_equal(tuned.predict_proba(X), tuned.best_estimator_.predict_proba(X))
    assert np.array_equal(tuned.decision_function(X), tuned.best_estimator_.decision_function(X))
    # a wrapped estimator without the method: not offered
    reg = PrivateTuning(
        OutputPerturbationRegressor(None, data_norm=1.0, label_bound=1.0), {"alpha": [0.1]}, 1.0
    )
    assert not hasattr(reg, "predict_proba") and not hasattr(reg, "decision_function")


def test_private_tuning_needs_one_row_per_chunk():
    """m grid points need m + 1 chunks, so at least m + 1 rows (and m + 1 rows suffice)."""
    tuned = PrivateTuning(
        OutputPerturbationRegressor(None, data_norm=1.0, label_bound=1.0),
        {"alpha": [0.1, 1.0, 10.0]},
        1.0,
    )
    assert tuned.privacy_guarantee(4) == Budget(1.0)
    _refused(lambda: tuned.privacy_guarantee(3), "X")
    g = np.random.default_rng(27)
    X = g.uniform(-0.5, 0.5, (4, 2))
    y = np.clip(X[:, 0], -1, 1)
    acct = Accountant(Budget(1.0))
    fitted = PrivateTuning(
        OutputPerturbationRegressor(None, data_norm=1.0, label_bound=1.0),
        {"alpha": [0.1, 1.0, 10.0]},
        1.0,
        accountant=acct,
        rng=8,
    ).fit(X, y)
    assert fitted.privacy_ == Budget(1.0) and acct.spent == Budget(1.0)
