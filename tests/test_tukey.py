"""TukeyEM (Amin et al. 2023 with Brown et al.'s PTR): the PTR noise's calibration through the
tap, the restricted exponential mechanism's level law recomputed in the test (chi-square with a
power check at twice the rate), the charge, bad input, utility."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privlearn.accounting import Accountant, Budget
from privlearn.errors import InvalidParameterError
from privlearn.learners.tukey import TukeyEMRegressor, restricted_sample
from replay import Tap

DELTA = 1e-6


def _data(n=20000, d=5, seed=0):
    g = np.random.default_rng(seed)
    X = g.normal(size=(n, d))
    beta = g.normal(size=d)
    return X, X @ beta + 0.5 + g.normal(size=n), beta


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_ptr_laplace_has_scale_two_over_epsilon(eps):
    X, y, _ = _data(n=2000, d=2)
    with Tap() as tap:
        TukeyEMRegressor(eps, DELTA, rng=0).fit(X, y)
    lap = [c for c in tap.calls if c.name == "laplace"]
    assert len(lap) == 1
    # Laplace(sensitivity 1, epsilon/2): scale 1 / (eps/2) = 2 / eps (not the reference's eps/2)
    assert lap[0].params["sensitivity"] == 1.0
    assert lap[0].params["epsilon"] == eps / 2
    assert lap[0].params["numerics"] == "exact"
    k = float(lap[0].value)
    assert k == int(k) and k >= -1


def _level_probs(sorted_models, t, rate):
    """P(level i) proportional to e^{rate i} (V_i - V_{i+1}), recomputed here for boxes."""
    p, m = sorted_models.shape
    top = (m + 1) // 2
    V = [np.prod(sorted_models[:, m - i] - sorted_models[:, i - 1]) for i in range(1, top + 1)] + [
        0.0
    ]
    w = np.array([math.exp(rate * i) * (V[i - 1] - V[i]) for i in range(t, top + 1)])
    return w / w.sum()


def test_restricted_em_level_law_chi_square_with_power():
    g = np.random.default_rng(3)
    models = g.normal(size=(2, 16))
    sm = np.sort(models, axis=1)
    t, rate = 4, 0.4
    probs = _level_probs(sm, t, rate)
    draws = 4000
    gen = np.random.default_rng(11)
    counts = np.zeros(len(probs))
    depth_ok = True
    for _ in range(draws):
        y, i = restricted_sample(sm, t, rate, gen)
        counts[i - t] += 1
        # the sampled point has approximate Tukey depth exactly i
        depth = min(min(np.sum(sm[j] <= y[j]), np.sum(sm[j] >= y[j])) for j in range(2))
        depth_ok &= depth == i
    assert depth_ok
    keep = probs * draws >= 5
    obs = np.append(counts[keep], counts[~keep].sum())
    exp = np.append(probs[keep], probs[~keep].sum()) * draws
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    assert stats.chisquare(obs, exp).pvalue >= 1e-6
    wrong = _level_probs(sm, t, 2 * rate) * draws  # twice the rate: refused (power)
    wrong = np.append(wrong[keep], wrong[~keep].sum())[: len(obs)]
    wrong *= draws / wrong.sum()
    assert stats.chisquare(obs, wrong).pvalue < 1e-6


def test_points_uniform_inside_the_shell():
    """Within the level, the point is uniform on the shell: in 1-D with depth level i, the
    two side intervals are chosen in proportion to their lengths."""
    sm = np.array([[0.0, 1.0, 3.0, 4.0, 10.0, 11.0, 12.0, 20.0]])
    gen = np.random.default_rng(5)
    left = right = 0
    for _ in range(3000):
        y, i = restricted_sample(sm, 2, 0.0, gen)
        if i == 2:
            assert 1.0 <= y[0] <= 12.0 and not (3.0 < y[0] < 11.0)
            left += y[0] < 5
            right += y[0] > 5
    # lengths 2 (left [1,3]) and 1 (right [11,12])
    assert stats.binomtest(left, left + right, 2 / 3).pvalue >= 1e-6


def test_one_charge_of_epsilon_delta_and_zero_on_failure():
    X, y, _ = _data(n=2000, d=2)
    acc = Accountant(Budget(10, 1e-3))
    m = TukeyEMRegressor(0.5, DELTA, n_models=8, accountant=acc, rng=0).fit(X, y)
    assert [e.budget for e in acc.ledger] == [Budget(0.5, DELTA)]
    assert not m.ptr_passed_  # t = 2: k <= 0 can never clear the threshold
    assert np.all(m.coef_ == 0) and m.intercept_ == 0.0


@pytest.mark.parametrize(
    "kwargs, param",
    [
        (dict(delta=None), "delta"),
        (dict(delta=0.0), "delta"),
        (dict(delta=1.5), "delta"),
        (dict(delta=DELTA, n_models=4), "n_models"),
        (dict(delta=DELTA, n_models="many"), "n_models"),
        (dict(delta=DELTA, n_models=1000), "n_models"),  # floor(300/1000) < p
    ],
)
def test_bad_parameters_charge_nothing(kwargs, param):
    X, y, _ = _data(n=300, d=2)
    acc = Accountant(Budget(10, 1e-3))
    delta = kwargs.pop("delta")
    with pytest.raises(InvalidParameterError) as err:
        TukeyEMRegressor(1.0, delta, accountant=acc, rng=0, **kwargs).fit(X, y)
    assert err.value.parameter == param
    assert len(acc.ledger) == 0


@pytest.mark.parametrize("bad", ["nan", "shape", "y"])
def test_bad_data_charges_nothing(bad):
    X, y, _ = _data(n=300, d=2)
    if bad == "nan":
        y[4] = np.nan
    elif bad == "shape":
        X = X[:, :, None]
    else:
        y = y[:-2]
    acc = Accountant(Budget(10, 1e-3))
    with pytest.raises(InvalidParameterError):
        TukeyEMRegressor(1.0, DELTA, accountant=acc, rng=0).fit(X, y)
    assert len(acc.ledger) == 0


def test_error_for_too_few_rows_quotes_public_sizes_only():
    X, y, _ = _data(n=40, d=5)
    with pytest.raises(InvalidParameterError) as err:
        TukeyEMRegressor(1.0, DELTA, n_models=8, rng=0).fit(X, y)
    msg = str(err.value)
    assert "n = 40" in msg and f"{X[0, 0]:.3}" not in msg


def test_utility_large_n():
    X, y, beta = _data()
    m = TukeyEMRegressor(1.0, DELTA, rng=4).fit(X, y)
    assert m.ptr_passed_
    assert np.abs(m.coef_ - beta).max() < 0.1 and abs(m.intercept_ - 0.5) < 0.1


def test_fit_draws_levels_at_the_rate_the_proof_allows(monkeypatch):
    """End to end through ``fit``: one coefficient, ``n = m`` rows of ``x = 1`` (each batch one
    row, its model its label). The released coefficient's depth among the labels, computed
    here, follows ``P(i) ~ e^{r i} (V_i - V_{i+1})``, ``i >= t``, with the rate derived here from
    the proof, ``r = (epsilon/2 - log(1 + delta))/2`` (the restricted mechanism loses up to
    ``2r + log(1 + delta)`` and gets ``epsilon/2``); twice that rate (the reference code's
    ``epsilon/2``) is refuted."""
    from privlearn.learners import tukey

    monkeypatch.setattr(
        tukey, "batch_models", lambda X, y, b: (y[b[:, 0]] / X[b[:, 0], 0])[:, None]
    )
    m, eps, delta = 160, 4.0, 1e-3
    w = np.concatenate([-np.arange(m // 2, 0, -1) / 2.0, np.arange(m // 2, dtype=float)])
    X = np.ones((m, 1))
    t = (m // 2) // 2
    s = np.sort(w)
    V = [s[m - i] - s[i - 1] for i in range(1, m // 2 + 1)] + [0.0]
    r = (eps / 2 - math.log(1 + delta)) / 2

    def law(rate):
        lw = np.array([rate * i + math.log(V[i - 1] - V[i]) for i in range(t, m // 2 + 1)])
        p = np.exp(lw - lw.max())
        return p / p.sum()

    counts = np.zeros(m // 2 + 1 - t)
    for seed in range(500):
        est = TukeyEMRegressor(eps, delta, n_models=m, fit_intercept=False, rng=seed).fit(X, w)
        assert est.ptr_passed_
        y = est.coef_[0]
        depth = min(np.sum(w <= y), np.sum(w >= y))
        counts[depth - t] += 1
    for rate, should_fit in ((r, True), (2 * r, False)):
        probs = law(rate)
        keep = probs * counts.sum() >= 5
        obs = np.append(counts[keep], counts[~keep].sum())
        exp = np.append(probs[keep], probs[~keep].sum()) * counts.sum()
        if exp[-1] == 0:
            obs, exp = obs[:-1], exp[:-1]
        pval = stats.chisquare(obs, exp).pvalue
        assert (pval >= 1e-6) if should_fit else (pval < 1e-6), (rate, pval)


def test_safety_margin_is_the_largest_k_of_its_definition():
    """``safety_margin`` against its docstring's definition by brute force (every ``k`` and
    ``g``, no binary search): the largest ``k`` in ``0..t-2`` with ``log V_{t-k-1} - rate g <=
    log eta + log V_{t+k+g+1}`` for some ``g >= 1`` with ``V_{t+k+g+1} > 0`` (``V_i = 0`` beyond
    the deepest box), else -1. Random non-increasing log volumes (nested boxes), some ending
    in empty boxes."""
    from privlearn.learners.tukey import safety_margin

    def by_definition(logv, t, rate, eta):
        def log_v(i):
            return float(logv[i - 1]) if i <= len(logv) else -math.inf

        best = -1
        for k in range(0, t - 1):
            for g in range(1, len(logv) + 2):
                hi = log_v(t + k + g + 1)
                if hi > -math.inf and log_v(t - k - 1) - rate * g <= math.log(eta) + hi:
                    best = k
                    break
        return best

    g = np.random.default_rng(11)
    seen = set()
    for _ in range(400):
        size = int(g.integers(3, 30))
        logv = np.cumsum(-g.exponential(g.choice([0.05, 0.5, 3.0]), size)) + 5.0
        if g.uniform() < 0.3:
            logv[int(g.integers(1, size)) :] = -np.inf
        t = int(g.integers(1, size + 1))
        rate, eta = float(g.uniform(0.05, 3.0)), float(g.choice([1e-6, 0.01, 0.5]))
        expected = by_definition(logv, t, rate, eta)
        assert safety_margin(logv, t, rate, eta) == expected
        seen.add(expected >= 0)
    assert seen == {False, True}
