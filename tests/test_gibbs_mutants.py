"""Behaviour pinned for the mutation survivors of ``ApproximateGibbsERM.fit`` and
``DPGradientDescentClassifier.fit`` (issue 20, K1).

The MALA core is observed through a tap on ``privlearn._core.erm_mala`` (every caller reaches it
as ``_core.erm_mala``): the tests check which chains are run, with which step, data, ``beta`` and
starting points, and that the fitted model and diagnostics are the ones the class documents.
Expected values are derived here from the docstring formulas, not from the module's helpers.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privlearn import _core
from privlearn.accounting import Accountant, Budget
from privlearn.errors import InvalidParameterError
from privlearn.learners.gibbs import ApproximateGibbsERM
from privlearn.learners.logistic import DPGradientDescentClassifier, dpgd_step_noise

TARGET_ACCEPTANCE = 0.574  # Roberts and Rosenthal (1998), the documented adaptation target


def _data(n: int = 40, d: int = 3, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * 1.5  # mean squared row norm well above 1
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


@pytest.fixture
def tap(monkeypatch):
    """Every call of ``_core.erm_mala``: ``(args, (states, traces, accepted))``."""
    calls = []
    original = _core.erm_mala

    def tapped(*args):
        out = original(*args)
        calls.append((args, out))
        return out

    monkeypatch.setattr(_core, "erm_mala", tapped)
    return calls


def _gibbs(**kw):
    args = dict(radius=2.0, loss_bound=3.0, rng=3)
    args.update(kw)
    return ApproximateGibbsERM("logistic", 1.0, **args)


@pytest.mark.parametrize(
    "kw, name",
    [
        ({"sensitivity": "bogus"}, "sensitivity"),
        ({"radius": -1.0}, "radius"),
        ({"steps": 0}, "steps"),
        ({"chains": 1}, "chains"),  # at least two chains: r_hat needs them
        ({"step": -0.5}, "step"),
    ],
)
def test_gibbs_bad_parameter_named(kw, name):
    X, y = _data()
    with pytest.raises(InvalidParameterError) as info:
        _gibbs(**kw).fit(X, y)
    assert info.value.parameter == name
    assert str(info.value).startswith(f"{name}:")


def test_gibbs_fixed_step_burn_in_and_release(tap):
    n, p = 40, 3
    X, y = _data(n, p)
    est = _gibbs(step=0.01, warmup=7, steps=5, chains=3, fit_intercept=True, ridge=0.25).fit(X, y)
    # A fixed step: one burn-in call of `warmup` steps, then the `steps` kept; the step is never
    # adapted.
    assert len(tap) == 2
    (burn_args, burn_out), (main_args, main_out) = tap
    Xa = np.hstack([X, np.ones((n, 1))])
    beta = 1.0 * n / (4.0 * 3.0)  # sensitivity="paper": epsilon n / (4 B)
    for args, rounds in ((burn_args, 7), (main_args, 5)):
        np.testing.assert_array_equal(args[0], Xa)
        np.testing.assert_array_equal(args[1], y.astype(np.float64))  # 0/1 labels
        assert args[4] == 0.25  # ridge
        assert args[5] == pytest.approx(beta, rel=1e-12)
        assert args[6] == 2.0  # radius
        assert args[7] == 0.01  # the given step
        assert args[8] == rounds
    np.testing.assert_array_equal(main_args[9], np.asarray(burn_out[0]))  # chains continue
    assert est._diagnostics["step"] == 0.01
    assert est._diagnostics["beta"] == pytest.approx(beta, rel=1e-12)
    # The release is chain 0's final state: coefficients then intercept.
    w0 = np.asarray(main_out[0])[0]
    assert est.coef_.shape == (p,)
    np.testing.assert_array_equal(est.coef_, w0[:-1])
    assert isinstance(est.intercept_, float) and est.intercept_ == w0[-1]
    assert est.n_features_in_ == p
    # Classification loss: predict gives 0/1 labels from the sign of the margin.
    pred = est.predict(X)
    np.testing.assert_array_equal(pred, (X @ w0[:-1] + w0[-1] >= 0).astype(pred.dtype))
    assert set(np.unique(pred)) <= {0, 1}


def test_gibbs_tight_sensitivity_beta(tap):
    n = 40
    X, y = _data(n)
    est = _gibbs(step=0.01, warmup=0, steps=2, sensitivity="tight").fit(X, y)
    assert tap[0][0][5] == pytest.approx(1.0 * n / (2.0 * 3.0), rel=1e-12)
    assert est.n_features_in_ == 3


def _my_r_hat(t):
    m, k = t.shape
    within = t.var(axis=1, ddof=1).mean()
    between = k * t.mean(axis=1).var(ddof=1)
    if within == 0.0:  # every chain stuck: R-hat is 1 if they agree, infinite if not
        return 1.0 if between == 0.0 else math.inf
    return math.sqrt(((k - 1) / k * within + between / k) / within)


def test_gibbs_adaptive_step_schedule(tap):
    n = 40
    X, y = _data(n)
    chains, warmup = 2, 150
    est = _gibbs(step=None, warmup=warmup, steps=4, chains=chains).fit(X, y)
    # Adaptation rounds of at most 100 steps covering exactly `warmup`; no extra burn-in.
    assert [args[8] for args, _ in tap] == [100, 50, 4]
    beta = 1.0 * n / (4.0 * 3.0)
    h = 1.0 / (beta * max(1.0, float(np.mean(np.sum(X * X, axis=1)))))
    assert tap[0][0][7] == pytest.approx(h, rel=1e-12)
    for (args, out), (nxt, _) in zip(tap[:-1], tap[1:]):
        rate = sum(out[2]) / (args[8] * chains)
        assert rate != TARGET_ACCEPTANCE
        h = h * math.exp(2.0 * (rate - TARGET_ACCEPTANCE))
        assert nxt[7] == pytest.approx(h, rel=1e-12)
    assert est._diagnostics["step"] == pytest.approx(h, rel=1e-12)
    # Diagnostics on the second half of the traces (4 draws -> the last 2).
    traces = np.asarray(tap[-1][1][1])
    assert traces.shape == (chains, 4)
    half = traces[:, 2:]
    assert est._diagnostics["mean_objective"] == pytest.approx(list(half.mean(axis=1)), rel=1e-12)
    assert est._diagnostics["r_hat"] == pytest.approx(_my_r_hat(half), rel=1e-12)


def test_gibbs_two_draws_still_give_r_hat(tap):
    X, y = _data()
    est = _gibbs(step=0.01, warmup=0, steps=2, chains=3).fit(X, y)
    traces = np.asarray(tap[-1][1][1])
    assert traces.shape == (3, 2)
    assert est._diagnostics["r_hat"] == pytest.approx(_my_r_hat(traces), rel=1e-12)


def test_gibbs_starts_uniform_in_ball(tap):
    """Chain 0 starts at the origin, the others uniformly in the ball of radius R (documented
    as data-independent starts): ``(|s| / R)^d`` is uniform on [0, 1]."""
    p, R, chains = 5, 4.0, 300
    X, y = _data(60, p, seed=1)
    _gibbs(radius=R, step=1e-3, warmup=0, steps=1, chains=chains, rng=7).fit(X, y)
    starts = np.asarray(tap[0][0][9])
    assert starts.shape == (chains, p)
    np.testing.assert_array_equal(starts[0], np.zeros(p))
    radii = np.linalg.norm(starts[1:], axis=1)
    assert np.all(radii <= R)
    assert radii.max() > R / 2
    assert stats.kstest((radii / R) ** p, "uniform").pvalue > 1e-6


def test_gibbs_feature_names_from_dataframe():
    pd = pytest.importorskip("pandas")
    X, y = _data()
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    est = _gibbs(step=0.01, warmup=0, steps=2).fit(frame, y)
    assert list(est.feature_names_in_) == ["a", "b", "c"]
    est.fit(X, y)  # refit without names: the stale names are dropped
    assert not hasattr(est, "feature_names_in_")


# --------------------------------------------------------------------------------------------
# DPGradientDescentClassifier.fit: the exact-grid row limit, from the public n only
# --------------------------------------------------------------------------------------------


def test_dpgd_row_limit_of_the_noise_grid():
    """The gradient sum in grid units is at most ``n L / 2^k`` (L = 1): the fit refuses ``n``
    with ``n / 2^k >= 2^61``, before the data are read and charging nothing, where ``2^k`` is the
    largest power of two ``<= min(2 L, sigma) 2^-20 / sqrt(d)`` (mechanisms.gaussian_noise)."""
    eps, delta, d = 1e20, 0.5, 1
    sigma, _ = dpgd_step_noise(eps, delta, 1, d)
    step = 2.0 ** math.floor(math.log2(min(2.0, sigma) * 2.0**-20 / math.sqrt(d)))
    limit = 2.0**61 * step
    assert 64 <= limit <= 4096  # a small n reaches it at this absurd epsilon
    n_bad = int(math.ceil(limit)) + 3  # in [2^61, 2^62) grid units
    assert 2.0**61 <= n_bad / step < 2.0**62
    rng = np.random.default_rng(0)
    acct = Accountant(Budget(1e30, 0.9))

    def est():
        return DPGradientDescentClassifier(
            eps,
            delta,
            data_norm=1.0,
            max_iter=1,
            fit_intercept=False,
            classes=[0, 1],
            accountant=acct,
            rng=1,
        )

    X = rng.normal(size=(n_bad, d))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(InvalidParameterError, match="too many rows") as info:
        est().fit(X, y)
    assert info.value.parameter == "X"
    assert acct.spent.epsilon == 0.0
    n_ok = int(math.floor(limit)) - 1
    fitted = est().fit(X[:n_ok], y[:n_ok])
    assert np.all(np.isfinite(fitted.coef_))


def test_gibbs_predict_refuses_another_number_of_features():
    X, y = _data()
    est = _gibbs(step=0.01, warmup=0, steps=2).fit(X, y)
    with pytest.raises(InvalidParameterError) as info:
        est.predict(np.c_[X, X[:, 0]])
    assert info.value.parameter == "X"
