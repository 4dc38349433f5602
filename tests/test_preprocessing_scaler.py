"""privlearn.preprocessing.StandardScaler: calibration, audit, bad input, scikit-learn conventions.

The sensitivities are written here from the formulas of the module docstring, never read from
the estimator: replacing one row moves the centred sum ``sum_i (x_ij - m_j)`` by at most
``u_j - l_j`` and the second moment ``sum_i (x_ij - m_j)^2`` by at most ``((u_j - l_j)/2)^2``
(``m_j`` the midpoint); over the features the L1 (Laplace) / L2 (Gaussian) sensitivity is the
sum / root-sum-square. The budget is split in exact halves between the two sums (all of it on
the first with ``with_std=False``).

* **Calibration**: many seeded fits under the sampler tap of ``tests/replay.py``; the value each
  sampler received must be the clipped centred sums computed here, and the noise (output minus
  value) must follow Laplace(``Delta_1 / (epsilon / 2)``) (KS test, false-positive rate 1e-6)
  with a power check (scale 30% off rejected); the Gaussian variant's noise must follow the
  normal law of the standard deviation :func:`privlearn.mechanisms.gaussian_sigma` documents
  for the test's L2 sensitivity and ``(epsilon / 2, delta / 2)``.
* **Audit**: worst-case neighbours (one row at the lower bound against one at the upper bound,
  mean only; a row at the upper bound against one at ``m - r/4`` for both sums, the pair of
  largest privacy loss, about ``0.78 epsilon``) through :func:`privlearn.audit.audit` at
  ``alpha = FALSE_POSITIVE_RATE``, 10^6 samples per side of the release map (the value, the
  sensitivity and the epsilon the fit passed to the sampler, captured by the tap, plus the
  same sampler's noise). Power: the same pipeline fitted at ``2 epsilon`` (half the noise) is
  refuted against the claim ``epsilon``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privlearn.accounting import Accountant, Budget
from privlearn.audit import FALSE_POSITIVE_RATE, audit, ks_pvalue
from privlearn.errors import InvalidParameterError
from privlearn.mechanisms import gaussian_sigma, laplace
from privlearn.preprocessing import StandardScaler
from privlearn.random import Generator
from replay import Tap
from stats_helpers import assert_ks_fits, assert_power_check

EPS = 1.0
LO = np.array([-1.0, 0.0])
HI = np.array([1.0, 4.0])


def _data(n=30, seed=5):
    g = np.random.default_rng(seed)
    X = g.uniform(LO - 0.5, HI + 0.5, size=(n, 2))  # some values outside: clipped
    return X


def _true_sums(X, lo, hi):
    mid = (lo + hi) / 2
    C = np.clip(X, lo, hi) - mid
    return C.sum(axis=0), (C * C).sum(axis=0)


def _noise(make, X, fits, seed):
    """Noise of the two releases over ``fits`` seeded fits (fresh noise each fit)."""
    g = Generator(seed)
    first, second = [], []
    s1, s2 = _true_sums(X, LO, HI)
    with Tap() as tap:
        for _ in range(fits):
            make(g).fit(X)
    calls = [c for c in tap.calls if c.name in ("laplace", "gaussian")]
    assert len(calls) == 2 * fits
    for k, c in enumerate(calls):
        truth = s1 if k % 2 == 0 else s2
        np.testing.assert_allclose(c.value, truth, rtol=1e-12, atol=1e-12)
        (first if k % 2 == 0 else second).append(np.asarray(c.output) - c.value)
    return np.concatenate(first), np.concatenate(second)


def test_laplace_calibration():
    X = _data()
    d1 = float(np.sum(HI - LO))  # L1 sensitivity of the centred sums
    d2 = float(np.sum(((HI - LO) / 2) ** 2))  # L1 sensitivity of the second moments
    n1, n2 = _noise(lambda g: StandardScaler(EPS, bounds=(LO, HI), rng=g), X, fits=3000, seed=11)
    for z, b, what in ((n1, d1 / (EPS / 2), "sum"), (n2, d2 / (EPS / 2), "second moment")):
        assert_ks_fits(z, stats.laplace(scale=b).cdf, what)
        assert_power_check(lambda f, z=z, b=b: ks_pvalue(z, stats.laplace(scale=f * b).cdf), what)


def test_laplace_calibration_mean_only_spends_everything_on_the_mean():
    X = _data()
    d1 = float(np.sum(HI - LO))
    g = Generator(3)
    with Tap() as tap:
        for _ in range(3000):
            StandardScaler(EPS, bounds=(LO, HI), with_std=False, rng=g).fit(X)
    assert all(c.name == "laplace" for c in tap.calls) and len(tap.calls) == 3000
    z = np.concatenate([np.asarray(c.output) - c.value for c in tap.calls])
    assert_ks_fits(z, stats.laplace(scale=d1 / EPS).cdf, "mean only")
    assert_power_check(lambda f: ks_pvalue(z, stats.laplace(scale=f * d1 / EPS).cdf), "mean")


def test_gaussian_calibration():
    X = _data()
    delta = 1e-5
    l2_1 = float(np.sqrt(np.sum((HI - LO) ** 2)))
    l2_2 = float(np.sqrt(np.sum((((HI - LO) / 2) ** 2) ** 2)))
    n1, n2 = _noise(
        lambda g: StandardScaler(EPS, bounds=(LO, HI), delta=delta, rng=g), X, fits=3000, seed=7
    )
    for z, l2, what in ((n1, l2_1, "sum"), (n2, l2_2, "second moment")):
        sigma = gaussian_sigma(l2, EPS / 2, delta / 2, dim=2)
        assert_ks_fits(z, stats.norm(scale=sigma).cdf, what)
        assert_power_check(lambda f, z=z, s=sigma: ks_pvalue(z, stats.norm(scale=f * s).cdf), what)


def test_statistics_are_post_processing_of_the_released_sums():
    X = _data(50)
    with Tap() as tap:
        sc = StandardScaler(EPS, bounds=(LO, HI), rng=4).fit(X)
    o1, o2 = (np.asarray(c.output) for c in tap.calls)
    mid, r = (LO + HI) / 2, (HI - LO) / 2
    np.testing.assert_allclose(sc.mean_, mid + np.clip(o1 / 50, -r, r))
    var = np.clip(o2 / 50 - (o1 / 50) ** 2, 0, r * r)
    np.testing.assert_allclose(sc.var_, var)
    np.testing.assert_allclose(sc.scale_, np.where(var == 0, 1.0, np.sqrt(var)))


# --------------------------------------------------------------------------------------------
# Audit on worst-case neighbours
# --------------------------------------------------------------------------------------------

N_AUDIT = 1_000_000


def _captured(X, **kw):
    """(values, sensitivities, epsilons) the fit passed to the Laplace sampler."""
    with Tap() as tap:
        StandardScaler(bounds=(0.0, 1.0), rng=0, **kw).fit(X)
    return [(c.value.copy(), c.sensitivity, c.epsilon) for c in tap.calls]


def _release_map(calls):
    def run(g, size):
        cols = [value + laplace(np.zeros(size), s, e, rng=g) for value, s, e in calls]
        return np.column_stack(cols)

    return run


def _audit(row_a, row_b, eps_fit, with_std, statistic, seed):
    base = np.linspace(0.1, 0.9, 20)[:, None]
    Xa, Xb = base.copy(), base.copy()
    Xa[0, 0], Xb[0, 0] = row_a, row_b
    ca = _captured(Xa, epsilon=eps_fit, with_std=with_std)
    cb = _captured(Xb, epsilon=eps_fit, with_std=with_std)
    return audit(
        _release_map(ca),
        _release_map(cb),
        Budget(EPS),
        n=N_AUDIT,
        statistic=statistic(ca, cb),
        alpha=FALSE_POSITIVE_RATE,
        rng=seed,
    )


def _loss_statistic(ca, cb):
    """The Laplace privacy-loss direction of the pair, rounded to 1e-9."""

    def stat(o):
        total = np.zeros(o.shape[0])
        for k, ((va, s, e), (vb, _s, _e)) in enumerate(zip(ca, cb)):
            b = s / e
            total += (np.abs(o[:, k] - vb[0]) - np.abs(o[:, k] - va[0])) / b
        return np.round(total, 9)

    return stat


@pytest.mark.parametrize(
    "with_std, row_a, row_b",
    [(False, 0.0, 1.0), (True, 1.0, 0.5 - 0.5 / 4)],
    ids=["mean lower-vs-upper", "both sums upper-vs-m-r/4"],
)
def test_audit_worst_case_neighbours_and_half_noise_power(with_std, row_a, row_b):
    ok = _audit(row_a, row_b, EPS, with_std, _loss_statistic, seed=1)
    assert ok.passed, ok
    broken = _audit(row_a, row_b, 2 * EPS, with_std, _loss_statistic, seed=2)
    assert not broken.passed, f"half the noise not refuted: {broken}"


# --------------------------------------------------------------------------------------------
# Bad input: InvalidParameterError naming the parameter, nothing drawn or charged
# --------------------------------------------------------------------------------------------

BAD = [
    ("missing bounds", dict(bounds=None), _data(), "bounds"),
    ("zero range", dict(bounds=(1.0, 1.0)), _data(), "bounds"),
    ("one zero range", dict(bounds=([0.0, 1.0], [1.0, 1.0])), _data(), "bounds"),
    ("negative range", dict(bounds=(2.0, 1.0)), _data(), "bounds"),
    ("infinite bound", dict(bounds=(0.0, math.inf)), _data(), "bounds"),
    ("not a pair", dict(bounds=(0.0, 1.0, 2.0)), _data(), "bounds"),
    ("2-d bounds", dict(bounds=(np.zeros((2, 2)), np.ones((2, 2)))), _data(), "bounds"),
    ("bounds length", dict(bounds=([0.0, 0.0, 0.0], [1.0, 1.0, 1.0])), _data(), "bounds"),
    ("NaN", dict(bounds=(LO, HI)), np.array([[0.0, 1.0], [np.nan, 2.0]]), "X"),
    ("inf", dict(bounds=(LO, HI)), np.array([[0.0, 1.0], [np.inf, 2.0]]), "X"),
    ("1-d X", dict(bounds=(0.0, 1.0)), np.arange(5.0), "X"),
    ("empty X", dict(bounds=(0.0, 1.0)), np.zeros((0, 2)), "X"),
    ("missing epsilon", dict(epsilon=None, bounds=(0.0, 1.0)), _data(), "epsilon"),
    ("delta 1", dict(delta=1.0, bounds=(0.0, 1.0)), _data(), "delta"),
    ("with_std", dict(with_std="yes", bounds=(0.0, 1.0)), _data(), "with_std"),
]


@pytest.mark.parametrize("kw, X, param", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_is_refused_before_anything_is_drawn_or_charged(kw, X, param):
    acct = Accountant(Budget(100.0, 1e-3))
    kw = {"epsilon": EPS, **kw}
    with Tap() as tap, pytest.raises(InvalidParameterError) as err:
        StandardScaler(accountant=acct, rng=0, **kw).fit(X)
    assert err.value.parameter == param
    assert str(err.value).startswith(param)
    assert acct.ledger == () and tap.calls == []


def test_missing_bounds_is_refused_without_reading_the_data():
    class Untouchable:
        def __array__(self, *a, **k):  # pragma: no cover - must not be called
            raise AssertionError("the data were read")

    with pytest.raises(InvalidParameterError) as err:
        StandardScaler(EPS).fit(Untouchable())
    assert err.value.parameter == "bounds"
    with pytest.raises(InvalidParameterError) as err:
        StandardScaler(EPS, bounds=(0.0, 0.0)).fit(Untouchable())
    assert err.value.parameter == "bounds"


def test_budget_exceeded_draws_nothing():
    from privlearn.errors import BudgetExceededError

    acct = Accountant(Budget(0.5))
    with Tap() as tap, pytest.raises(BudgetExceededError):
        StandardScaler(EPS, bounds=(0.0, 1.0), accountant=acct).fit(_data())
    assert tap.calls == [] and acct.ledger == ()


# --------------------------------------------------------------------------------------------
# scikit-learn conventions and the charge
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("delta", [0.0, 1e-6])
@pytest.mark.parametrize("with_std", [True, False])
def test_charges_once_with_the_documented_label(delta, with_std):
    acct = Accountant(Budget(10.0, 1e-3))
    est = StandardScaler(0.7, bounds=(LO, HI), delta=delta, with_std=with_std, accountant=acct)
    est.fit(_data())
    (entry,) = acct.ledger
    claim = Budget(0.7, delta) if delta else Budget(0.7)
    assert entry.label == "StandardScaler"
    assert entry.budget == claim == est.privacy_guarantee(30)
    assert entry.event.kind == "composed"
    parts = entry.event.params
    assert len(parts) == (2 if with_std else 1)
    if delta == 0:
        assert [p.kind for p in parts] == ["pure"] * len(parts)
    if not with_std:
        assert est.var_ is None and est.scale_ is None


def test_clone_get_params_and_shared_accountant():
    from sklearn.base import clone

    acct = Accountant(Budget(10.0))
    g = Generator(1)
    est = StandardScaler(1.0, bounds=(0.0, 1.0), accountant=acct, rng=g)
    params = est.get_params()
    assert set(params) == {
        "epsilon",
        "bounds",
        "delta",
        "with_mean",
        "with_std",
        "accountant",
        "rng",
    }
    twin = clone(est)
    assert twin.accountant is acct and twin.rng is g
    twin.fit(_data())
    assert len(acct.ledger) == 1


def test_pandas_feature_names_and_shapes():
    pd = pytest.importorskip("pandas")
    X = _data(40)
    df = pd.DataFrame(X, columns=["age", "dose"])
    est = StandardScaler(1.0, bounds=(LO, HI), rng=0).fit(df)
    assert list(est.feature_names_in_) == ["age", "dose"]
    assert list(est.get_feature_names_out()) == ["age", "dose"]
    assert est.n_features_in_ == 2 and est.n_samples_seen_ == 40
    Z = est.transform(df)
    assert Z.shape == (40, 2)
    np.testing.assert_allclose(Z, (X - est.mean_) / est.scale_)
    np.testing.assert_allclose(est.inverse_transform(Z), X)
    # Same seed, same release on the array.
    same = StandardScaler(1.0, bounds=(LO, HI), rng=0).fit(X)
    np.testing.assert_array_equal(same.mean_, est.mean_)
    with pytest.raises(InvalidParameterError) as err:
        est.transform(df[["dose", "age"]])
    assert err.value.parameter == "X"


def test_transform_options_and_fit_transform():
    X = _data(40)
    est = StandardScaler(1.0, bounds=(LO, HI), with_mean=False, rng=0)
    Z = est.fit_transform(X)
    np.testing.assert_allclose(Z, X / est.scale_)
    est2 = StandardScaler(1.0, bounds=(LO, HI), with_std=False, rng=0).fit(X)
    np.testing.assert_allclose(est2.transform(X), X - est2.mean_)
    with pytest.raises(InvalidParameterError):
        est2.transform(np.zeros((3, 5)))


def test_in_a_pipeline_with_a_private_learner():
    from sklearn.pipeline import make_pipeline

    from privlearn.learners import OutputPerturbationRegressor

    acct = Accountant(Budget(10.0))
    X = _data(200)
    y = X[:, 0] - X[:, 1] / 4
    pipe = make_pipeline(
        StandardScaler(1.0, bounds=(LO, HI), accountant=acct, rng=0),
        OutputPerturbationRegressor(1.0, data_norm=3.0, label_bound=2.0, accountant=acct, rng=0),
    )
    pipe.fit(X, y)
    assert [e.label for e in acct.ledger][0] == "StandardScaler"
    assert acct.spent == Budget(2.0)
    assert pipe.predict(X).shape == (200,)
