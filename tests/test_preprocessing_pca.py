"""privlearn.preprocessing.PCA: calibration, audit, bad input, the charge, scikit-learn use.

Everything the tests compare against is written here from the module docstring's derivation,
never read from the estimator's private helpers or attributes other than its outputs:

* each row ``x`` becomes ``y = (x - c) / C`` clipped to norm 1 (``c`` the centre, ``C =
  data_norm``), and the release is the second moment ``A = sum_i y_i y_i^T`` in Frobenius
  coordinates (``A_jj`` and ``sqrt(2) A_jk``) plus i.i.d. Gaussian noise of standard deviation
  ``s``; ``second_moment_ = C^2 (A + E)`` with ``E_jj ~ N(0, s^2)``, ``E_jk ~ N(0, s^2 / 2)``;
* replacing one row moves the Frobenius vector by ``||y y^T - y' y'^T||_F <= sqrt(2)``
  (attained by orthogonal rows at the norm bound);
* ``s = sqrt(2) / sqrt(2 rho)`` with ``rho`` the largest zCDP whose conversion by Canonne,
  Kamath and Steinke (NeurIPS 2020, Corollary 13) is at most ``(epsilon, delta)``: computed here
  by this file's own minimisation over the order and bisection (:func:`_cks_rho`), not by
  privlearn's accounting; with ``centering="private"`` the mean (clipped, midpoint-centred sums,
  L2 sensitivity ``sqrt(sum_j (u_j - l_j)^2)``) gets ``0.4 rho`` and the matrix ``0.6 rho``.
  The library enlarges ``s`` by relative margins of about ``2^-16`` (grid, floating point),
  far below what the tests resolve.

* **Calibration**: many seeded fits on fixed data; the noise (``second_moment_ / C^2`` minus
  the noise-free ``A`` computed here) standardised by the ``s`` derived here must have
  ``sum z^2`` inside the two-sided chi-square interval at false-positive rate ``1e-6`` (and a
  KS fit to the normal law); power: the same statistic refutes a noise scale 10% too large or
  too small (and the KS test a 30% one).
* **Audit**: the worst-case pair ``C e1`` against ``C e2`` (``d = 2``: the Frobenius vector
  moves by its full sensitivity ``sqrt(2)``; ``x' = 0`` would move it by 1 only), the fit's
  sampler calls recorded and redrawn vectorised (4 x 10^5 per side), the log-likelihood-ratio
  statistic, the hockey-stick audit of ``(1, 1e-5)`` at ``alpha = 1e-6``. Power: the fit at the
  larger epsilon whose ``rho`` is four times as large (half the noise, found by this file's
  conversion, epsilon 2.14) is refuted against the claim ``(1, 1e-5)``. Measured: the
  half-noise bound on delta is 2.5e-3 (250 times the claim; 4.1e-3 with 10^6 samples), the
  claimed noise's bound 0.
"""

from __future__ import annotations

import math
from typing import Any, Callable, List, Tuple

import numpy as np
import pytest
from scipy import optimize, stats

from privlearn import _core
from privlearn.accounting import Accountant, Budget
from privlearn.audit import FALSE_POSITIVE_RATE, audit, ks_pvalue
from privlearn.errors import BudgetExceededError, InvalidParameterError
from privlearn.preprocessing import PCA
from privlearn.random import Generator
from replay import Tap
from stats_helpers import assert_ks_fits, assert_power_check

ALPHA = FALSE_POSITIVE_RATE
MEAN_SHARE = 0.4  # documented public split of rho (module docstring)

# --------------------------------------------------------------------------------------------
# The calibration, derived here
# --------------------------------------------------------------------------------------------


def _cks_epsilon(rho: float, delta: float) -> float:
    """``inf_{a > 1} a rho + (ln(1/delta) + (a - 1) ln(1 - 1/a) - ln a) / (a - 1)`` (CKS20
    Corollary 13), minimised over ``t = ln(a - 1)``."""

    def f(t: float) -> float:
        am1 = math.exp(t)
        a = 1.0 + am1
        return a * rho + (math.log(1.0 / delta) + am1 * math.log(am1 / a) - math.log(a)) / am1

    ts = np.linspace(-12.0, 12.0, 2401)
    vals = [f(t) for t in ts]
    i = int(np.argmin(vals))
    res = optimize.minimize_scalar(
        f, bounds=(ts[max(i - 1, 0)], ts[min(i + 1, len(ts) - 1)]), method="bounded"
    )
    return float(min(res.fun, vals[i]))


def _cks_rho(epsilon: float, delta: float) -> float:
    """The largest ``rho`` with ``_cks_epsilon(rho, delta) <= epsilon`` (bisection)."""
    lo, hi = 0.0, 1.0
    while _cks_epsilon(hi, delta) < epsilon:
        hi *= 2.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if _cks_epsilon(mid, delta) <= epsilon:
            lo = mid
        else:
            hi = mid
    return lo


def _clip_rows(X: np.ndarray, centre: Any, C: float) -> np.ndarray:
    Y = (np.asarray(X, dtype=float) - centre) / C
    norms = np.linalg.norm(Y, axis=1)
    return Y / np.maximum(norms, 1.0)[:, None]


def _frobenius(M: np.ndarray) -> np.ndarray:
    r, c = np.triu_indices(M.shape[0])
    return M[r, c] * np.where(r == c, 1.0, math.sqrt(2.0))


def _chi2_pvalue(z: np.ndarray, factor: float) -> float:
    """Two-sided p-value of ``sum (z / factor)^2`` against chi-square with ``len(z)`` degrees."""
    k = z.size
    s = float(np.sum((z / factor) ** 2))
    return float(2 * min(stats.chi2.cdf(s, k), stats.chi2.sf(s, k)))


def _check_noise(z: np.ndarray, what: str) -> None:
    """``z`` standardised by the derived scale: variance by chi-square (fpr 1e-6) with a 10%
    power check, mean by the normal interval, shape by KS (30% power check)."""
    p = _chi2_pvalue(z, 1.0)
    assert p > ALPHA, f"{what}: chi-square rejects the derived scale (p = {p:.3g})"
    for f in (0.9, 1.1):
        pf = _chi2_pvalue(z, f)
        assert pf < ALPHA, f"{what}: a scale {f} x the derived one is not refuted (p = {pf:.3g})"
    zmean = abs(float(np.sum(z))) / math.sqrt(z.size)
    assert zmean < stats.norm.isf(ALPHA / 2), f"{what}: noise mean off ({zmean:.3g} sd)"
    assert_ks_fits(z, stats.norm.cdf, what)
    assert_power_check(lambda f: ks_pvalue(z, stats.norm(scale=f).cdf), what)


def _data(n: int, d: int, seed: int) -> np.ndarray:
    g = np.random.default_rng(seed)
    return g.normal(size=(n, d)) * np.linspace(2.0, 0.5, d) + 0.3


def test_cks_conversion_here_matches_the_known_value():
    """This file's conversion against a value worked out independently: ``rho = 0.5`` at
    ``delta = 1e-5`` converts to about 4.728 (the classic Bun-Steinke bound ``rho + 2 sqrt(rho
    ln(1/delta))`` gives 5.298, an upper bound)."""
    eps = _cks_epsilon(0.5, 1e-5)
    assert 4.72 < eps < 4.735
    assert eps < 0.5 + 2 * math.sqrt(0.5 * math.log(1e5))


def test_gaussian_calibration_declared_centre():
    C, centre, eps, delta, d = 2.0, 0.25, 1.0, 1e-5, 6
    X = _data(40, d, 1)
    X[0] *= 10.0  # beyond the norm bound: clipped
    Y = _clip_rows(X, centre, C)
    truth = _frobenius(Y.T @ Y)
    s = math.sqrt(2.0) / math.sqrt(2.0 * _cks_rho(eps, delta))
    g = Generator(17)
    zs = []
    for _ in range(800):
        est = PCA(eps, delta=delta, data_norm=C, centering=centre, rng=g).fit(X)
        np.testing.assert_array_equal(est.second_moment_, est.second_moment_.T)
        zs.append((_frobenius(est.second_moment_ / C**2) - truth) / s)
    _check_noise(np.concatenate(zs), "second moment, declared centre")


def test_gaussian_calibration_private_centre():
    """The mean (sums of values clipped to the bounds, centred at the midpoints) at ``0.4 rho``,
    then the matrix of the rows centred at the *released* mean at ``0.6 rho``. ``n`` is large
    enough that ``clip(S~ / n, -r, r)`` never binds (the mean's noise sd is at most 1.2% of
    ``r``), so ``mean_ - midpoint`` is ``S~ / n`` and its noise ``(S~ - S) / n``."""
    C, eps, delta, d, n = 3.0, 1.0, 1e-5, 3, 4000
    lo, hi = np.array([-2.0, -1.0, 0.0]), np.array([3.0, 1.0, 5.0])
    g0 = np.random.default_rng(4)
    X = g0.uniform(lo - 0.5, hi + 0.5, size=(n, d))  # some values outside: clipped for the mean
    mid = (lo + hi) / 2
    S = (np.clip(X, lo, hi) - mid).sum(axis=0)
    rho = _cks_rho(eps, delta)
    s_mean = math.sqrt(np.sum((hi - lo) ** 2)) / math.sqrt(2.0 * MEAN_SHARE * rho)
    s_mat = math.sqrt(2.0) / math.sqrt(2.0 * (1 - MEAN_SHARE) * rho)
    g = Generator(23)
    zm, zc = [], []
    for _ in range(1500):
        est = PCA(eps, delta=delta, data_norm=C, centering="private", bounds=(lo, hi), rng=g)
        est.fit(X)
        zm.append(((est.mean_ - mid) * n - S) / s_mean)
        Y = _clip_rows(X, est.mean_, C)
        zc.append((_frobenius(est.second_moment_ / C**2) - _frobenius(Y.T @ Y)) / s_mat)
    _check_noise(np.concatenate(zm), "private mean")
    _check_noise(np.concatenate(zc), "second moment about the private mean")


def test_attributes_are_post_processing_of_the_release():
    X = _data(300, 4, 2)
    n = X.shape[0]
    est = PCA(2.0, n_components=3, data_norm=5.0, rng=1).fit(X)
    M = est.second_moment_
    w, V = np.linalg.eigh(M)
    order = np.argsort(w)[::-1]
    w, V = w[order], V[:, order]
    clipped = np.clip(w, 0, None)
    np.testing.assert_allclose(est.explained_variance_, clipped[:3] / (n - 1), rtol=1e-10)
    np.testing.assert_allclose(est.explained_variance_ratio_, clipped[:3] / clipped.sum())
    np.testing.assert_allclose(est.singular_values_, np.sqrt(clipped[:3]), rtol=1e-10)
    np.testing.assert_allclose(est.noise_variance_, clipped[3] / (n - 1), rtol=1e-10)
    # Components: the eigenvectors, each with its largest-magnitude entry positive.
    for k in range(3):
        v = est.components_[k]
        assert v[np.argmax(np.abs(v))] > 0
        np.testing.assert_allclose(np.abs(v @ V[:, k]), 1.0, rtol=1e-10)
    np.testing.assert_allclose(est.components_ @ est.components_.T, np.eye(3), atol=1e-12)
    np.testing.assert_array_equal(est.mean_, np.zeros(4))
    Z = est.transform(X)
    np.testing.assert_allclose(Z, X @ est.components_.T)
    np.testing.assert_allclose(est.inverse_transform(Z), Z @ est.components_)


# --------------------------------------------------------------------------------------------
# Audit on the worst-case pair, with half-noise power
# --------------------------------------------------------------------------------------------

N_AUDIT = 400_000
CLAIM = Budget(1.0, 1e-5)


class _Recorder:
    """Wraps ``_core.discrete_gaussian`` (the exact sampler of ``gaussian_noise``) and keeps
    each call's integer grid value and grid sigma."""

    def __init__(self) -> None:
        self.calls: List[Tuple[np.ndarray, float]] = []

    def __enter__(self) -> "_Recorder":
        self._dg = _core.discrete_gaussian
        calls, dg = self.calls, self._dg

        def gauss(value: Any, sigma: float, rng: Any) -> Any:
            calls.append((np.array(value, dtype=np.int64).ravel(), float(sigma)))
            return dg(value, sigma, rng)

        _core.discrete_gaussian = gauss
        return self

    def __exit__(self, *exc: Any) -> None:
        _core.discrete_gaussian = self._dg


def _worst_pair() -> Tuple[np.ndarray, np.ndarray]:
    base = np.array([[0.3, 0.1], [-0.2, 0.4], [0.1, -0.5]])
    return np.vstack([base, [1.0, 0.0]]), np.vstack([base, [0.0, 1.0]])


def _recorded(X: np.ndarray, epsilon: float) -> Tuple[np.ndarray, float]:
    with _Recorder() as rec:
        PCA(epsilon, delta=CLAIM.delta, data_norm=1.0, rng=0).fit(X)
    ((value, sigma),) = rec.calls
    return value, sigma


def _pair_audit(epsilon: float, seed: int) -> Any:
    Xa, Xb = _worst_pair()
    a, sa = _recorded(Xa, epsilon)
    b, sb = _recorded(Xb, epsilon)
    assert sa == sb and a.shape == b.shape == (3,)
    moved = a != b
    assert moved.tolist() == [True, False, True]  # the two diagonal entries move
    a, b = a[moved], b[moved]

    def run(means: np.ndarray) -> Callable[..., np.ndarray]:
        def draw(g: np.random.Generator, size: int) -> np.ndarray:
            cols = [
                _core.discrete_gaussian(
                    np.full(size, int(m), dtype=np.int64), sa, int(g.integers(2**62))
                )
                for m in means
            ]
            return np.column_stack(cols).astype(np.float64)

        return draw

    w, mid = (a - b) / sa**2, (a + b) / 2.0

    def llr(o: np.ndarray) -> np.ndarray:
        return np.round((o - mid) @ w, 6)

    return audit(run(a), run(b), CLAIM, n=N_AUDIT, statistic=llr, alpha=ALPHA, rng=seed)


def test_audit_worst_case_pair_and_half_noise_power():
    """The pair moves the released vector by its full sensitivity (``||a - b||`` in grid units
    is ``sqrt(2)`` over the grid step up to the grid rounding); the claim passes, and the fit at
    the epsilon whose CKS ``rho`` is four times as large (half the noise) is refuted."""
    ok = _pair_audit(CLAIM.epsilon, seed=1)
    assert ok.passed, ok
    rho = _cks_rho(CLAIM.epsilon, CLAIM.delta)
    eps_half_noise = _cks_epsilon(4 * rho, CLAIM.delta)
    broken = _pair_audit(eps_half_noise, seed=2)
    assert not broken.passed, f"half the noise not refuted: {broken}"


# --------------------------------------------------------------------------------------------
# Bad input: InvalidParameterError naming the parameter, nothing drawn or charged
# --------------------------------------------------------------------------------------------

GOOD = dict(epsilon=1.0, data_norm=2.0)
X3 = _data(30, 3, 7)

BAD = [
    ("missing data_norm", dict(data_norm=None), X3, "data_norm"),
    ("zero data_norm", dict(data_norm=0.0), X3, "data_norm"),
    ("negative data_norm", dict(data_norm=-1.0), X3, "data_norm"),
    ("infinite data_norm", dict(data_norm=math.inf), X3, "data_norm"),
    ("NaN data_norm", dict(data_norm=math.nan), X3, "data_norm"),
    ("string data_norm", dict(data_norm="1"), X3, "data_norm"),
    ("delta 0", dict(delta=0.0), X3, "delta"),
    ("delta 1", dict(delta=1.0), X3, "delta"),
    ("missing epsilon", dict(epsilon=None), X3, "epsilon"),
    ("n_components 0", dict(n_components=0), X3, "n_components"),
    ("n_components above d", dict(n_components=4), X3, "n_components"),
    ("n_components float", dict(n_components=0.9), X3, "n_components"),
    ("n_components mle", dict(n_components="mle"), X3, "n_components"),
    ("n_components bool", dict(n_components=True), X3, "n_components"),
    ("NaN in X", {}, np.array([[0.0, 1.0], [np.nan, 2.0]]), "X"),
    ("inf in X", {}, np.array([[0.0, 1.0], [np.inf, 2.0]]), "X"),
    ("1-d X", {}, np.arange(5.0), "X"),
    ("empty X", {}, np.zeros((0, 3)), "X"),
    ("centering length", dict(centering=[0.0, 1.0]), X3, "centering"),
    ("centering NaN", dict(centering=math.nan), X3, "centering"),
    ("centering word", dict(centering="mean"), X3, "centering"),
    ("centering None", dict(centering=None), X3, "centering"),
    ("private without bounds", dict(centering="private"), X3, "bounds"),
    ("bounds length", dict(centering="private", bounds=([0.0] * 2, [1.0] * 2)), X3, "bounds"),
    ("bounds zero range", dict(centering="private", bounds=(1.0, 1.0)), X3, "bounds"),
    ("bounds without private", dict(bounds=(0.0, 1.0)), X3, "bounds"),
]


@pytest.mark.parametrize("kw, X, param", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_is_refused_before_anything_is_drawn_or_charged(kw, X, param):
    acct = Accountant(Budget(100.0, 1e-3))
    kw = {**GOOD, **kw}
    with Tap() as tap, pytest.raises(InvalidParameterError) as err:
        PCA(accountant=acct, rng=0, **kw).fit(X)
    assert err.value.parameter == param
    assert str(err.value).startswith(param)
    assert acct.ledger == () and tap.calls == []


def test_delta_zero_message_says_why():
    with pytest.raises(InvalidParameterError, match="Gaussian mechanism"):
        PCA(1.0, data_norm=1.0, delta=0.0).fit(X3)


def test_missing_parameters_are_refused_without_reading_the_data():
    class Untouchable:
        def __array__(self, *a, **k):  # pragma: no cover - must not be called
            raise AssertionError("the data were read")

    for kw, param in [
        (dict(data_norm=None), "data_norm"),
        (dict(data_norm=1.0, delta=0.0), "delta"),
        (dict(data_norm=1.0, centering="private"), "bounds"),
        (dict(data_norm=1.0, n_components=1.5), "n_components"),
    ]:
        with pytest.raises(InvalidParameterError) as err:
            PCA(1.0, **kw).fit(Untouchable())
        assert err.value.parameter == param


def test_budget_exceeded_draws_nothing():
    acct = Accountant(Budget(0.5, 1e-3))
    with Tap() as tap, pytest.raises(BudgetExceededError):
        PCA(1.0, data_norm=2.0, accountant=acct).fit(X3)
    assert tap.calls == [] and acct.ledger == ()


# --------------------------------------------------------------------------------------------
# The charge, scikit-learn conventions, pipelines
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("centering", [0.0, "private"])
def test_charges_once_with_the_documented_label(centering):
    acct = Accountant(Budget(10.0, 1e-3))
    bounds = (-5.0, 5.0) if centering == "private" else None
    est = PCA(0.7, delta=1e-6, data_norm=4.0, centering=centering, bounds=bounds, accountant=acct)
    with Tap() as tap:
        est.fit(X3)
    (entry,) = acct.ledger
    assert entry.label == "PCA"
    assert entry.budget == Budget(0.7, 1e-6) == est.privacy_guarantee(30)
    assert entry.event.kind == "composed"
    parts = entry.event.params
    assert [p.kind for p in parts] == ["discrete_gaussian"] * (2 if centering == "private" else 1)
    assert [c.params["shape"] for c in tap.calls] == ([(3,)] if bounds else []) + [(6,)]
    # The composed zCDP is within the rho the budget converts from (CKS20 Corollary 13).
    assert entry.event.to_zcdp().rho <= _cks_rho(0.7, 1e-6) * (1 + 1e-6)


def test_n_components_default_and_shapes():
    X = _data(4, 6, 3)  # n < d: min(n, d) components by default, as scikit-learn
    est = PCA(1.0, data_norm=3.0, rng=0).fit(X)
    assert est.n_components_ == 4 and est.components_.shape == (4, 6)
    assert est.n_samples_seen_ == 4 and est.n_features_in_ == 6
    est = PCA(1.0, n_components=6, data_norm=3.0, rng=0).fit(X)  # all of d: allowed
    assert est.components_.shape == (6, 6) and est.noise_variance_ == 0.0
    assert est.transform(X).shape == (4, 6)


def test_clone_get_params_and_shared_accountant():
    from sklearn.base import clone

    acct = Accountant(Budget(10.0, 1e-3))
    g = Generator(1)
    est = PCA(1.0, n_components=2, data_norm=2.0, accountant=acct, rng=g)
    assert set(est.get_params()) == {
        "epsilon",
        "n_components",
        "data_norm",
        "delta",
        "centering",
        "bounds",
        "accountant",
        "rng",
    }
    twin = clone(est)
    assert twin.accountant is acct and twin.rng is g
    twin.fit(X3)
    assert len(acct.ledger) == 1


def test_pandas_feature_names_and_same_release_as_the_array():
    pd = pytest.importorskip("pandas")
    X = _data(40, 3, 5)
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    est = PCA(1.0, n_components=2, data_norm=4.0, rng=0).fit(df)
    assert list(est.feature_names_in_) == ["a", "b", "c"]
    assert list(est.get_feature_names_out()) == ["pca0", "pca1"]
    same = PCA(1.0, n_components=2, data_norm=4.0, rng=0).fit(X)
    np.testing.assert_array_equal(same.components_, est.components_)
    with pytest.raises(InvalidParameterError) as err:
        est.transform(df[["b", "a", "c"]])
    assert err.value.parameter == "X"
    with pytest.raises(InvalidParameterError):
        est.inverse_transform(np.zeros((2, 3)))


def test_in_a_private_pipeline_with_a_private_scaler_and_learner():
    from privlearn.learners import OutputPerturbationRegressor
    from privlearn.pipeline import make_private_pipeline
    from privlearn.preprocessing import StandardScaler

    acct = Accountant(Budget(10.0, 1e-3))
    X = _data(400, 4, 6)
    y = np.clip(X[:, 0] / 4, -1, 1)
    pipe = make_private_pipeline(
        StandardScaler(1.0, bounds=(-6.0, 6.0), rng=0),
        PCA(1.0, n_components=2, data_norm=4.0, rng=1),
        OutputPerturbationRegressor(1.0, data_norm=4.0, label_bound=1.0, rng=2),
        accountant=acct,
    )
    pipe.fit(X, y)
    assert pipe.privacy_ == Budget(3.0, 1e-6)
    assert len(acct.ledger) == 1 and acct.spent == Budget(3.0, 1e-6)
    assert pipe.predict(X).shape == (400,)


def test_scikit_learn_pipeline_and_cross_validation_charge_each_fit():
    from sklearn.model_selection import cross_val_score
    from sklearn.pipeline import make_pipeline

    from privlearn.learners import OutputPerturbationRegressor

    acct = Accountant(Budget(100.0, 1e-2))
    X = _data(300, 4, 8)
    y = np.clip(X[:, 0] / 4, -1, 1)
    pipe = make_pipeline(
        PCA(1.0, n_components=2, data_norm=4.0, accountant=acct),
        OutputPerturbationRegressor(1.0, data_norm=4.0, label_bound=1.0, accountant=acct),
    )
    cross_val_score(pipe, X, y, cv=3)
    labels = [e.label for e in acct.ledger]
    assert labels.count("PCA") == 3 and len(labels) == 6


def test_utility_first_component_of_a_dominant_direction():
    """With many rows the private first component is the dominant axis (a sanity check of
    the post-processing, at epsilon 1)."""
    g = np.random.default_rng(9)
    X = g.normal(size=(20_000, 5)) * np.array([3.0, 1.0, 0.5, 0.5, 0.5])
    est = PCA(1.0, n_components=1, data_norm=10.0, rng=4).fit(X)
    assert abs(est.components_[0, 0]) > 0.99


def test_a_data_norm_whose_square_overflows_is_refused_before_drawing():
    from privlearn.accounting import Accountant, Budget
    from privlearn.errors import InvalidParameterError

    acct = Accountant(Budget(10.0, 1e-3))
    X = np.random.default_rng(0).normal(size=(50, 3))
    with pytest.raises(InvalidParameterError, match="data_norm: too large"):
        PCA(1.0, data_norm=1e200, delta=1e-6, accountant=acct).fit(X)
    assert acct.ledger == ()
