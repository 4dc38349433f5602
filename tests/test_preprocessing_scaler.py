"""privlearn.preprocessing.StandardScaler: calibration, audit, bad input, scikit-learn conventions.

The release and its sensitivities are written here from the formulas of the module docstring,
never read from the estimator: every value is clipped to its feature's bounds ``[l_j, u_j]``,
centred at the midpoint ``m_j`` and divided by the half-range ``r_j``, ``z_ij = (clip(x_ij) -
m_j) / r_j`` in ``[-1, 1]``; the released vectors are the normalised sums ``T1_j = sum_i z_ij``
and ``T2_j = sum_i z_ij^2``. Replacing one row moves every ``T1_j`` by at most 2 and every
``T2_j`` by at most 1, whatever the bounds: over the ``d`` features the L1 (Laplace)
sensitivities are ``2 d`` and ``d``, the L2 (Gaussian) ones ``2 sqrt(d)`` and ``sqrt(d)``. The
budget is split in exact halves between the two sums (all of it on the first with
``with_std=False``, where the released vector is ``V_j = rho_j T1_j``, ``rho = r / ||r||_p``,
of sensitivity 2 in L1 or L2: the same absolute noise on every feature's mean). Post-processing: ``mean_ = m + r clip(T1~/n, -1, 1)``, ``var_ = r^2
clip(T2~/n - (T1~/n)^2, 0, 1)``.

* **Calibration**: many seeded fits under the sampler tap of ``tests/replay.py``; the value each
  sampler received must be the normalised sums computed here, and the noise (output minus
  value) of every feature separately must follow Laplace(``2 d / (epsilon / 2)``) on ``T1`` and
  Laplace(``d / (epsilon / 2)``) on ``T2``, in units of ``r_j`` and ``r_j^2`` (KS test,
  false-positive rate 1e-6), with a power check (scale 30% off rejected); the Gaussian
  variant's noise must follow the normal law of the standard deviation
  :func:`privlearn.mechanisms.gaussian_sigma` documents for the test's L2 sensitivity and
  ``(epsilon / 2, delta / 2)``.
* **Audit**: worst-case neighbours of the normalised release on two features with ranges 1 and
  40 (one row at the lower bounds against one at the upper bounds, mean only: ``V`` moves by
  exactly ``2 ||rho||_1 = 2``, loss ``epsilon``;
  a row at the upper bounds against one at ``m_j - r_j/4`` for both sums, the pair of largest
  privacy loss, ``25/32 epsilon``) through :func:`privlearn.audit.audit` at ``alpha =
  FALSE_POSITIVE_RATE``, 10^6 samples per side of the release map (the value, the sensitivity
  and the epsilon the fit passed to the sampler, captured by the tap, plus the same sampler's
  noise). Power: the same pipeline fitted at ``2 epsilon`` (half the noise) is refuted against
  the claim ``epsilon``.
* **Private bounds** (second half of the file): the released bounds' law (the exponential
  mechanism with the guarded utility of ``tests/bounds_reference.py``, chi-square, with the law
  at twice the share rejected), the budget split written from the formula and read from the
  ledger's composed event, the plan of the fraction, the refusal ``n epsilon_b < 16``, the sums
  normalised by the released bounds with the noise law of declared bounds (Laplace and
  Gaussian; the Gaussian event equal to that of declared bounds), the range always > 0, and an
  audit of the whole fit (quantile and sums) on worst-case neighbours with a power check at
  twice epsilon.
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
D = 2


def _data(n=30, seed=5):
    g = np.random.default_rng(seed)
    X = g.uniform(LO - 0.5, HI + 0.5, size=(n, 2))  # some values outside: clipped
    return X


def _normalised_sums(X, lo, hi):
    """``(T1, T2)``: the sums of ``z = (clip(x) - m) / r`` and of ``z^2`` per feature."""
    mid = lo / 2 + hi / 2
    r = np.maximum(hi - mid, mid - lo)
    Z = (np.clip(X, lo, hi) - mid) / r
    return Z.sum(axis=0), (Z * Z).sum(axis=0)


def _noise(make, X, fits, seed):
    """Noise of the two releases over ``fits`` seeded fits (fresh noise each fit), as arrays of
    shape ``(fits, d)``."""
    g = Generator(seed)
    first, second = [], []
    t1, t2 = _normalised_sums(X, LO, HI)
    with Tap() as tap:
        for _ in range(fits):
            make(g).fit(X)
    calls = [c for c in tap.calls if c.name in ("laplace", "gaussian")]
    assert len(calls) == 2 * fits
    for k, c in enumerate(calls):
        truth = t1 if k % 2 == 0 else t2
        np.testing.assert_allclose(c.value, truth, rtol=1e-12, atol=1e-12)
        (first if k % 2 == 0 else second).append(np.asarray(c.output) - c.value)
    return np.array(first), np.array(second)


def _assert_law_per_feature(z, cdf_at, what):
    """Each feature's noise ``z[:, j]`` follows ``cdf_at(1)``, and the laws with the scale 30%
    off are rejected (``cdf_at(factor)``)."""
    for j in range(z.shape[1]):
        assert_ks_fits(z[:, j], cdf_at(1.0), f"{what}, feature {j}")
        assert_power_check(lambda f, col=z[:, j]: ks_pvalue(col, cdf_at(f)), f"{what}, feature {j}")


def test_laplace_calibration():
    X = _data()
    b1 = 2 * D / (EPS / 2)  # Laplace scale of T1 (L1 sensitivity 2d), in units of r_j
    b2 = D / (EPS / 2)  # of T2 (L1 sensitivity d), in units of r_j^2
    n1, n2 = _noise(lambda g: StandardScaler(EPS, bounds=(LO, HI), rng=g), X, fits=3000, seed=11)
    for z, b, what in ((n1, b1, "T1"), (n2, b2, "T2")):
        _assert_law_per_feature(z, lambda f, b=b: stats.laplace(scale=f * b).cdf, what)


# Centring only: two features of very different ranges (half-ranges 0.5 and 50).
M_LO, M_HI = np.array([0.0, -40.0]), np.array([1.0, 60.0])


def test_laplace_calibration_mean_only_spends_everything_on_the_mean():
    """``with_std=False`` releases ``V_j = rho_j T1_j``, ``rho = r / ||r||_1``, with the L1
    sensitivity ``2 ||rho||_1 = 2`` (up to the documented slack) and the whole epsilon: Laplace
    scale ``b = 2 / epsilon`` on every ``V_j``, hence the noise ``||r||_1 b / n`` on every
    ``mean_j`` in the data's units, the same for both features (KS per feature, with power)."""
    n = 20_000
    g0 = np.random.default_rng(8)
    X = g0.uniform(M_LO, M_HI, size=(n, 2))
    mid, r = (M_LO + M_HI) / 2, (M_HI - M_LO) / 2
    rho = r / r.sum()
    t1, _t2 = _normalised_sums(X, M_LO, M_HI)
    b = 2 / EPS
    g = Generator(3)
    means = []
    with Tap() as tap:
        for _ in range(3000):
            sc = StandardScaler(EPS, bounds=(M_LO, M_HI), with_std=False, rng=g).fit(X)
            means.append(sc.mean_)
    assert all(c.name == "laplace" for c in tap.calls) and len(tap.calls) == 3000
    c0 = tap.calls[0]
    u = 2.0**-53  # the documented slack: 2.02 (B + 1) u n (blocked sums) + 2 u n (product)
    slack = 2.02 * (min(4096, n) + 1) * u * n + 2 * u * n
    assert c0.sensitivity == pytest.approx(2.0 + slack, rel=2e-9) and c0.epsilon == EPS
    for c in tap.calls[:10]:
        np.testing.assert_allclose(c.value, rho * t1, rtol=1e-12, atol=1e-12)
    z = np.array([np.asarray(c.output) - c.value for c in tap.calls])
    _assert_law_per_feature(z, lambda f: stats.laplace(scale=f * b).cdf, "V, mean only")
    # In the data's units: mean_ = m + r clip(V~ / (rho n)), nothing clipped at this n.
    err = np.array(means) - (mid + r * t1 / n)
    scale = r.sum() * b / n  # the same for both features
    _assert_law_per_feature(err, lambda f: stats.laplace(scale=f * scale).cdf, "mean_ only")


def test_gaussian_calibration():
    X = _data()
    delta = 1e-5
    l2_1, l2_2 = 2 * math.sqrt(D), math.sqrt(D)  # L2 sensitivities of T1 and T2
    n1, n2 = _noise(
        lambda g: StandardScaler(EPS, bounds=(LO, HI), delta=delta, rng=g), X, fits=3000, seed=7
    )
    for z, l2, what in ((n1, l2_1, "T1"), (n2, l2_2, "T2")):
        sigma = gaussian_sigma(l2, EPS / 2, delta / 2, dim=D)
        _assert_law_per_feature(z, lambda f, s=sigma: stats.norm(scale=f * s).cdf, what)


def test_statistics_are_post_processing_of_the_released_sums():
    X = _data(50)
    with Tap() as tap:
        sc = StandardScaler(EPS, bounds=(LO, HI), rng=4).fit(X)
    o1, o2 = (np.asarray(c.output) for c in tap.calls)
    mid, r = (LO + HI) / 2, (HI - LO) / 2
    np.testing.assert_allclose(sc.mean_, mid + r * np.clip(o1 / 50, -1, 1))
    v = np.clip(o2 / 50 - (o1 / 50) ** 2, _floor(o1, 50, len(LO), EPS), 1)
    np.testing.assert_allclose(sc.var_, r * r * v)
    np.testing.assert_allclose(sc.scale_, r * np.sqrt(v))


def _floor(o1, n, d, eps):
    """The variance floor, in units of r^2, written from the docstring's formula: the Laplace
    noise standard deviations sqrt(2) Delta / (eps / 2) of the two normalised sums (Delta = 2d
    and d, up to the documented 2.02 (B + 1) u n and 2^-30 slack, within rtol), at n."""
    sd1, sd2 = (math.sqrt(2) * delta / (eps / 2) for delta in (2 * d, d))
    return np.minimum((sd2 + 2 * np.abs(np.clip(o1 / n, -1, 1)) * sd1) / n, 1.0)


def test_a_variance_below_its_noise_level_is_raised_to_it():
    """A constant feature at the midpoint (true variance 0): the released variance is at least
    the floor, equals it whenever the raw estimate is below it, and scale_ is never 1 by
    convention but r sqrt(floor)."""
    n, lo, hi = 2000, np.array([0.0, 0.0]), np.array([2.0, 10.0])
    X = np.column_stack([np.ones(n), np.random.default_rng(5).uniform(0, 10, n)])
    r = (hi - lo) / 2
    hits = 0
    for seed in range(40):
        with Tap() as tap:
            sc = StandardScaler(EPS, bounds=(lo, hi), rng=seed).fit(X)
        o1, o2 = (np.asarray(c.output) for c in tap.calls)
        floor = _floor(o1, n, 2, EPS)
        raw = o2 / n - (o1 / n) ** 2
        v = sc.var_ / (r * r)
        np.testing.assert_allclose(v, np.clip(raw, floor, 1), rtol=1e-6)
        assert np.all(v >= floor * (1 - 1e-6))
        hits += int(raw[0] < floor[0])
        np.testing.assert_allclose(sc.scale_, r * np.sqrt(v), rtol=1e-12)
    assert hits >= 10  # the floor binds for the constant feature (power of the check)


def test_each_feature_is_calibrated_to_its_own_range():
    """A feature with a tiny range next to a huge one: the noise of its released mean, in its
    own units, is ``r_j`` times that of ``T1_j / n`` (Laplace, scale ``2 d / (epsilon / 2)``),
    not that of the huge range."""
    g = np.random.default_rng(3)
    n, lo, hi = 400, np.array([0.0, 0.0]), np.array([1e-3, 1e4])
    X = np.column_stack([g.uniform(0, 1e-3, n), g.uniform(0, 1e4, n)])
    t1, _t2 = _normalised_sums(X, lo, hi)
    r = hi / 2
    gen = Generator(12)
    errs = np.array(
        [StandardScaler(EPS, bounds=(lo, hi), rng=gen).fit(X).mean_ for _ in range(3000)]
    )
    # mean_ = m + r clip(T1~/n, -1, 1): in units of r_j / n, the error is the noise of T1_j.
    z = (errs - (lo + hi) / 2 - r * t1 / n) / (r / n)
    b1 = 2 * 2 / (EPS / 2)
    assert np.all(np.abs(errs - (lo + hi) / 2) < r)  # nothing clipped at this n
    _assert_law_per_feature(z, lambda f: stats.laplace(scale=f * b1).cdf, "mean_")


# --------------------------------------------------------------------------------------------
# Audit on worst-case neighbours
# --------------------------------------------------------------------------------------------

N_AUDIT = 1_000_000
# Two features of very different ranges (1 and 40): the normalisation makes them alike.
A_LO = np.array([0.0, -10.0])
A_HI = np.array([1.0, 30.0])
A_MID, A_R = (A_LO + A_HI) / 2, (A_HI - A_LO) / 2


def _captured(X, **kw):
    """(values, sensitivities, epsilons) the fit passed to the Laplace sampler."""
    with Tap() as tap:
        StandardScaler(bounds=(A_LO, A_HI), rng=0, **kw).fit(X)
    return [(c.value.copy(), c.sensitivity, c.epsilon) for c in tap.calls]


def _release_map(calls):
    def run(g, size):
        cols = [value + laplace(np.zeros((size, value.size)), s, e, rng=g) for value, s, e in calls]
        return np.hstack(cols)

    return run


def _audit(row_a, row_b, eps_fit, with_std, statistic, seed):
    base = A_LO + np.linspace(0.1, 0.9, 20)[:, None] * (A_HI - A_LO)
    Xa, Xb = base.copy(), base.copy()
    Xa[0], Xb[0] = row_a, row_b
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
        col = 0
        for (va, s, e), (vb, _s, _e) in zip(ca, cb):
            b = s / e
            for j in range(va.size):
                total += (np.abs(o[:, col] - vb[j]) - np.abs(o[:, col] - va[j])) / b
                col += 1
        return np.round(total, 9)

    return stat


@pytest.mark.parametrize(
    "with_std, row_a, row_b",
    [(False, A_LO, A_HI), (True, A_HI, A_MID - A_R / 4)],
    ids=["mean lower-vs-upper", "both sums upper-vs-m-r/4"],
)
def test_audit_worst_case_neighbours_and_half_noise_power(with_std, row_a, row_b):
    if not with_std:  # V = rho T1 moves by exactly 2 ||rho||_1 = 2 at this pair: loss epsilon
        base = A_LO + np.linspace(0.1, 0.9, 20)[:, None] * (A_HI - A_LO)
        Xa, Xb = base.copy(), base.copy()
        Xa[0], Xb[0] = row_a, row_b
        ((va, s, e),) = _captured(Xa, epsilon=EPS, with_std=False)
        ((vb, _s, _e),) = _captured(Xb, epsilon=EPS, with_std=False)
        np.testing.assert_allclose(vb - va, 2 * A_R / A_R.sum(), rtol=1e-12)
        assert np.abs(vb - va).sum() * e / s == pytest.approx(EPS, rel=1e-8)
    ok = _audit(row_a, row_b, EPS, with_std, _loss_statistic, seed=1)
    assert ok.passed, ok
    broken = _audit(row_a, row_b, 2 * EPS, with_std, _loss_statistic, seed=2)
    assert not broken.passed, f"half the noise not refuted: {broken}"


def test_worst_pair_loses_25_32_of_epsilon():
    """The documented largest loss of the normalised Laplace release (module docstring, "Not
    tight"), computed here from the noise law above: per feature ``(epsilon / d) (|z - z'| / 4 +
    |z^2 - z'^2| / 2)``, at most 25/32 epsilon, attained at ``z = 1``, ``z' = -1/4``."""
    z = np.linspace(-1, 1, 801)
    Z, T = np.meshgrid(z, z, indexing="ij")
    per = np.abs(Z - T) / 4 + np.abs(Z**2 - T**2) / 2
    assert per.max() == pytest.approx(25 / 32)
    # The captured fit moves the sums by exactly that at the audited pair.
    base = A_LO + np.linspace(0.1, 0.9, 20)[:, None] * (A_HI - A_LO)
    Xa, Xb = base.copy(), base.copy()
    Xa[0], Xb[0] = A_HI, A_MID - A_R / 4
    ca, cb = _captured(Xa, epsilon=EPS), _captured(Xb, epsilon=EPS)
    loss = sum(np.abs(va - vb).sum() * e / s for (va, s, e), (vb, _s, _e) in zip(ca, cb))
    assert loss == pytest.approx(25 / 32 * EPS, rel=1e-9)


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
    # private bounds
    ("private typo", dict(bounds="privat"), _data(), "bounds"),
    ("private side typo", dict(bounds=(0.0, "Private")), _data(), "bounds"),
    ("per-feature typo", dict(bounds=(["private", "x"], 1.0)), _data(), "bounds"),
    ("per-feature None", dict(bounds=([None, 0.0], "private")), _data(), "bounds"),
    ("NaN next to private", dict(bounds=([np.nan, 0.0], "private")), _data(), "bounds"),
    ("huge side next to private", dict(bounds=(1e101, "private")), _data(), "bounds"),
    ("private length", dict(bounds=(["private"] * 3, "private")), _data(), "bounds"),
    ("three private", dict(bounds=("private",) * 3), _data(), "bounds"),
    ("fraction 0", dict(bounds="private", bounds_fraction=0.0), _data(), "bounds_fraction"),
    ("fraction 1", dict(bounds="private", bounds_fraction=1.0), _data(), "bounds_fraction"),
    ("fraction NaN", dict(bounds="private", bounds_fraction=np.nan), _data(), "bounds_fraction"),
    ("fraction str", dict(bounds="private", bounds_fraction="0.2"), _data(), "bounds_fraction"),
    ("quantile 1", dict(bounds="private", bounds_quantile=1.0), _data(), "bounds_quantile"),
    ("quantile -0.5", dict(bounds="private", bounds_quantile=-0.5), _data(), "bounds_quantile"),
    ("quantile None", dict(bounds="private", bounds_quantile=None), _data(), "bounds_quantile"),
    ("private NaN X", dict(bounds="private"), np.array([[0.0, 1.0], [np.nan, 2.0]]), "X"),
    ("private inf X", dict(bounds=(0.0, "private")), np.array([[0.0, np.inf]]), "X"),
    ("private n eps too small", dict(bounds="private"), _data(), "bounds"),
    ("one private side too small", dict(bounds=(0.0, [1.0, "private"])), _data(), "bounds"),
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
    with pytest.raises(InvalidParameterError) as err:
        StandardScaler(EPS, bounds="private", bounds_fraction=2.0).fit(Untouchable())
    assert err.value.parameter == "bounds_fraction"


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
        "bounds_quantile",
        "bounds_fraction",
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


# ============================================================================================
# Private bounds (bounds="private", or "private" for some sides)
# ============================================================================================
#
# Written here from the module docstring, never read from the estimator: a feature with both
# sides private is clipped to [-B, B], B the private q-quantile of |x| on the public grid
# 2^(k/8) in [1e-4, 1e8]; a feature with a declared lower side l and a private upper side gets
# u = l + G, G the private quantile of max(x - l, 0) (a declared upper side u: l = u - G, G of
# max(u - x, 0)). Each quantile is the exponential mechanism with the guarded utility of
# tests/bounds_reference.py (scores in units of 2^-10, sensitivity 2^10) at eps_b = the largest
# float <= bounds_fraction * epsilon / k, k the number of features with a private side; the
# sums get the rest (the largest float <= epsilon - k eps_b) as the declared-bounds fit gets
# epsilon. The plan (bounds_fraction=None): fraction = min(0.5, max(0.1, 32 k / (n epsilon))).
# A fit is refused when n eps_b < 16.

from fractions import Fraction  # noqa: E402

from bounds_reference import guarded_scores, public_grid  # noqa: E402
from privlearn import _core  # noqa: E402
from privlearn.accounting._event import PrivacyEvent  # noqa: E402
from privlearn.mechanisms import exponential  # noqa: E402
from stats_helpers import (  # noqa: E402
    assert_fits,
    assert_rejects,
    chi_square_pvalue,
    softmax,
)

GRID = public_grid()


def _down(x):
    """The largest float <= the rational ``x``."""
    f = float(x)
    return math.nextafter(f, -math.inf) if Fraction(f) > x else f


def _split(eps, fraction, k):
    share = _down(Fraction(eps) * Fraction(fraction) / k)
    return share, _down(Fraction(eps) - k * Fraction(share))


def _plan(eps, n, k):
    return min(0.5, max(0.1, 32 * k / (n * eps)))


# Three features: both sides private, lower 0 declared / upper private, lower private / upper 5
# declared. n = 24.
PB_BOUNDS = (["private", 0.0, "private"], ["private", "private", 5.0])


def _pb_data():
    g = np.random.default_rng(8)
    return np.column_stack(
        [g.normal(0.0, 2.0, 24), g.exponential(3.0, 24), 5.0 - g.exponential(1.0, 24)]
    )


def _pb_values(X):
    """The per-record values each feature's quantile is taken of (the module docstring's map)."""
    return [np.abs(X[:, 0]), np.maximum(X[:, 1] - 0.0, 0.0), np.maximum(5.0 - X[:, 2], 0.0)]


def _grid_index(g):
    """The index of the grid point nearest ``g`` (a released side ``5 - G`` read back as ``5 -
    lower`` is ``G`` up to the rounding of the subtraction; neighbouring points differ by 9%)."""
    k = int(np.argmin(np.abs(GRID - g)))
    assert abs(GRID[k] - g) <= 1e-9 * g + 1e-14, f"{g!r} is not a grid point"
    return k


def test_private_bounds_output_law_and_power():
    X = _pb_data()
    eps, f, q, fits = 6.0, 0.5, 0.9, 3000
    share, _rest = _split(eps, f, 3)
    assert share == 1.0 and 24 * share >= 16  # accepted
    gen = Generator(2024)
    idx = np.empty((fits, 3), dtype=int)
    for t in range(fits):
        sc = StandardScaler(
            eps, bounds=PB_BOUNDS, bounds_quantile=q, bounds_fraction=f, rng=gen
        ).fit(X)
        lo, hi = sc.bounds_
        assert lo[0] == -hi[0] and lo[1] == 0.0 and hi[2] == 5.0
        idx[t] = [_grid_index(hi[0]), _grid_index(hi[1] - 0.0), _grid_index(5.0 - lo[2])]
    for j, v in enumerate(_pb_values(X)):
        scores = guarded_scores(v, q, 24)
        counts = np.bincount(idx[:, j], minlength=GRID.size)
        assert_fits(counts, softmax(scores, share / 2048), f"feature {j}")
        assert_rejects(counts, softmax(scores, 2 * share / 2048), f"feature {j}, 2x share")
        assert_power_check(
            lambda c, counts=counts, scores=scores: chi_square_pvalue(
                counts, softmax(scores, c * share / 2048)
            ),
            f"feature {j}",
        )


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_private_bounds_budget_split_in_the_ledger(delta):
    X = _pb_data()
    eps, f = 8.0, 0.3
    share, rest = _split(eps, f, 3)
    acct = Accountant(Budget(100.0, 1e-3))
    sc = StandardScaler(
        eps, bounds=PB_BOUNDS, bounds_fraction=f, delta=delta, accountant=acct, rng=1
    ).fit(X)
    (entry,) = acct.ledger
    assert entry.label == "StandardScaler"
    assert (
        entry.budget == (Budget(eps, delta) if delta else Budget(eps)) == sc.privacy_guarantee(24)
    )
    parts = entry.event.params
    assert parts[:3] == (PrivacyEvent.bounded_range(share),) * 3
    assert 3 * Fraction(share) + Fraction(rest) <= Fraction(eps)
    if delta == 0:
        assert parts[3:] == (PrivacyEvent.pure(rest / 2),) * 2
    else:  # the Gaussian release of the normalised sums, (rest / 2, delta / 2) each
        assert [p.kind for p in parts[3:]] == ["discrete_gaussian"] * 2
        assert all(p.budget == Budget(rest / 2, delta / 2) for p in parts[3:])
    assert len(parts) == 5


@pytest.mark.parametrize("n, eps, d", [(200, 1.0, 2), (5000, 1.0, 2), (400, 0.5, 3), (60, 8.0, 1)])
def test_private_bounds_plan_of_the_fraction(n, eps, d):
    X = np.random.default_rng(n).normal(size=(n, d))
    acct = Accountant(Budget(100.0))
    StandardScaler(eps, bounds="private", accountant=acct, rng=0).fit(X)
    share, rest = _split(eps, _plan(eps, n, d), d)
    parts = acct.ledger[0].event.params
    assert parts[:d] == (PrivacyEvent.bounded_range(share),) * d
    assert parts[d:] == (PrivacyEvent.pure(rest / 2),) * 2


def test_private_bounds_refused_below_the_minimum_whatever_the_data():
    # n eps_b >= 16 is needed: with d = 2 private features, bounds_fraction 0.5 and n = 64,
    # epsilon = 1 gives eps_b = 0.25 and n eps_b = 16 (accepted); a hair less is refused.
    for X in (np.zeros((64, 2)), np.random.default_rng(0).normal(size=(64, 2))):
        StandardScaler(1.0, bounds="private", bounds_fraction=0.5, rng=0).fit(X)
        acct = Accountant(Budget(10.0))
        with Tap() as tap, pytest.raises(InvalidParameterError) as err:
            StandardScaler(
                math.nextafter(1.0, 0.0),
                bounds="private",
                bounds_fraction=0.5,
                accountant=acct,
                rng=0,
            ).fit(X)
        assert err.value.parameter == "bounds" and "n * epsilon_b" in str(err.value)
        assert tap.calls == [] and acct.ledger == ()


def test_private_bounds_laplace_sums_normalised_by_the_released_bounds():
    """Laplace: given the released bounds, the sums passed to the sampler are the normalised
    sums on those bounds, and their noise is Laplace(2 d / (rest / 2)) on T1 and Laplace(d /
    (rest / 2)) on T2 (d = 3), whatever bounds were released."""
    X = _pb_data()
    eps, f = 6.0, 0.5
    _share, rest = _split(eps, f, 3)
    b1, b2 = 2 * 3 / (rest / 2), 3 / (rest / 2)
    gen = Generator(31)
    z1, z2 = [], []
    for _ in range(2000):
        with Tap() as tap:
            sc = StandardScaler(eps, bounds=PB_BOUNDS, bounds_fraction=f, rng=gen).fit(X)
        lo, hi = sc.bounds_
        lap = [c for c in tap.calls if c.name == "laplace"]
        assert [c.name for c in tap.calls] == ["exponential"] * 3 + ["laplace"] * 2
        t1, t2 = _normalised_sums(X, lo, hi)
        for c, truth, b, z in ((lap[0], t1, b1, z1), (lap[1], t2, b2, z2)):
            np.testing.assert_allclose(c.value, truth, rtol=1e-12, atol=1e-12)
            assert c.epsilon == rest / 2
            assert math.isclose(c.sensitivity / c.epsilon, b, rel_tol=1e-9)
            z.append(np.asarray(c.output) - c.value)
    for z, b, what in ((np.array(z1), b1, "T1"), (np.array(z2), b2, "T2")):  # the 3 pooled
        _assert_law_per_feature(
            z.reshape(-1, 1), lambda c, b=b: stats.laplace(scale=c * b).cdf, what
        )


def test_private_bounds_gaussian_sums_normalised_by_the_released_bounds():
    """delta > 0: given the released bounds, the sums passed to the sampler are the normalised
    sums on those bounds, and their noise is N(0, sigma^2) with sigma that of the L2
    sensitivities 2 sqrt(d) (T1) and sqrt(d) (T2) at (rest / 2, delta / 2), as with declared
    bounds: the noise law does not depend on the released bounds."""
    X = _pb_data()
    eps, f, delta = 6.0, 0.5, 1e-6
    _share, rest = _split(eps, f, 3)
    sigmas = [
        gaussian_sigma(s, rest / 2, delta / 2, dim=3) for s in (2 * math.sqrt(3), math.sqrt(3))
    ]
    gen = Generator(32)
    z1, z2 = [], []
    for _ in range(1500):
        with Tap() as tap:
            sc = StandardScaler(eps, bounds=PB_BOUNDS, bounds_fraction=f, delta=delta, rng=gen).fit(
                X
            )
        lo, hi = sc.bounds_
        gs = [c for c in tap.calls if c.name == "gaussian"]
        for c, truth, z in zip(gs, _normalised_sums(X, lo, hi), (z1, z2)):
            assert c.epsilon == rest / 2
            np.testing.assert_allclose(c.value, truth, rtol=1e-12, atol=1e-12)
            z.append(np.asarray(c.output) - c.value)
    for z, sigma, what in ((np.array(z1), sigmas[0], "T1"), (np.array(z2), sigmas[1], "T2")):
        pooled = z.reshape(-1, 1)  # the same law for the 3 features
        _assert_law_per_feature(pooled, lambda c, s=sigma: stats.norm(scale=c * s).cdf, what)


def test_private_bounds_gaussian_event_is_fixed_before_the_data():
    """The sums' native events with private bounds are those of a declared-bounds fit at
    ``rest`` with the same ``n`` and ``d``, on any data: fixed before the data are read."""
    eps, f, delta = 6.0, 0.5, 1e-6
    _share, rest = _split(eps, f, 3)
    acct = Accountant(Budget(100.0, 1e-3))
    StandardScaler(rest, bounds=(-1.0, 1.0), delta=delta, accountant=acct, rng=0).fit(_pb_data())
    declared = acct.ledger[0].event.params
    for seed in range(3):
        X = np.random.default_rng(seed).normal(0.0, 10.0 ** (2 * seed), size=(24, 3))
        acct = Accountant(Budget(100.0, 1e-3))
        sc = StandardScaler(
            eps, bounds=PB_BOUNDS, bounds_fraction=f, delta=delta, accountant=acct, rng=seed
        )
        sc.fit(X + np.array([0.0, 0.0, 5.0]))
        assert acct.ledger[0].event.params[3:] == declared


def test_private_bounds_range_is_always_positive():
    # All values at 0 (the quantile of |x| is below the grid: its law is flat), a declared side
    # so large that adding a grid point does not change it, and values so far from the declared
    # side that x - l overflows: every fit succeeds with lower < upper.
    cases = [
        (np.zeros((40, 1)), "private"),
        (np.full((40, 1), 1e20), (1e20, "private")),
        (np.full((40, 1), -1e20), ("private", -1e20)),
        (np.full((40, 1), 1.7e308), (-1e100, "private")),
        (np.full((40, 1), 1e100), (-1e100, "private")),
    ]
    for X, bounds in cases:
        for seed in range(5):
            sc = StandardScaler(8.0, bounds=bounds, rng=seed).fit(X)
            lo, hi = sc.bounds_
            assert np.all(lo < hi) and np.all(np.isfinite(hi - lo)), bounds
            assert np.all(np.isfinite(sc.mean_)) and np.all(np.isfinite(sc.scale_))


def test_declared_bounds_are_exposed_and_unchanged():
    sc = StandardScaler(EPS, bounds=(LO, HI), rng=0).fit(_data())
    np.testing.assert_array_equal(sc.bounds_[0], LO)
    np.testing.assert_array_equal(sc.bounds_[1], HI)
    sc = StandardScaler(EPS, bounds=(-1.0, 2.0), rng=0).fit(_data())
    np.testing.assert_array_equal(sc.bounds_[0], [-1.0, -1.0])


# --------------------------------------------------------------------------------------------
# Audit of the whole private-bounds fit on worst-case neighbours
# --------------------------------------------------------------------------------------------
#
# One feature, both sides private (B = private 0.99-quantile of |x|, then the two sums on
# [-B, B] with Laplace noise). Neighbours: a row at x = -0.25 (about m - r/4 for the B of about
# 0.92 the 100 base rows give) against a row at 1e9 (beyond the grid: it moves every count and
# is clipped to B). The release map is the fit's: B's index is drawn by privlearn's exponential
# sampler on the scores the fit passed (captured by the tap), and the sums are those the fit
# passes to the Laplace sampler for that B (captured by forcing the quantile's output to each
# index), plus the same sampler's noise. Statistic: the exact privacy loss of the output.

PB_N = 100


class _Captured:
    def __init__(self, X, eps, f):
        self.X, self.eps, self.f = X, eps, f
        with Tap() as tap:
            self._fit()
        (ex,) = [c for c in tap.calls if c.name == "exponential"]
        self.scores, self.share, self.sens = ex.value.copy(), ex.epsilon, ex.params["sensitivity"]
        w = self.share * self.scores / (2 * self.sens)
        self.logp = w - np.logaddexp.reduce(w)
        self._sums = {}

    def _fit(self):
        return StandardScaler(self.eps, bounds="private", bounds_fraction=self.f, rng=0).fit(self.X)

    def sums(self, k):
        """(value, sensitivity, epsilon) of the two Laplace calls when the quantile is g_k."""
        if k not in self._sums:
            saved = _core.exponential
            _core.exponential = lambda *a, **kw: k
            try:
                with Tap() as tap:
                    self._fit()
            finally:
                _core.exponential = saved
            self._sums[k] = [
                (float(c.value[0]), c.sensitivity, c.epsilon)
                for c in tap.calls
                if c.name == "laplace"
            ]
        return self._sums[k]

    def run(self, g, size):
        k = np.asarray(exponential(self.scores, self.share, self.sens, size=size, rng=g))
        out = np.zeros((size, 3))
        out[:, 0] = k
        for kk in np.unique(k):
            rows = np.flatnonzero(k == kk)
            for col, (v, s, e) in enumerate(self.sums(int(kk)), start=1):
                out[rows, col] = v + laplace(np.zeros(rows.size), s, e, rng=g)
        return out


def _whole_fit_audit(eps_fit, seed):
    base = np.linspace(0.1, 0.9, PB_N)[:, None]
    Xa, Xb = base.copy(), base.copy()
    Xa[0, 0], Xb[0, 0] = -0.25, 1e9
    a, b = _Captured(Xa, eps_fit, 0.2), _Captured(Xb, eps_fit, 0.2)

    def loss(o):
        k = o[:, 0].astype(int)
        total = a.logp[k] - b.logp[k]
        for kk in np.unique(k):
            rows = np.flatnonzero(k == kk)
            for col, ((va, s, e), (vb, _s, _e)) in enumerate(zip(a.sums(kk), b.sums(kk)), 1):
                total[rows] += (np.abs(o[rows, col] - vb) - np.abs(o[rows, col] - va)) * e / s
        return np.round(total, 9)

    return audit(
        a.run,
        b.run,
        Budget(EPS),
        n=N_AUDIT,
        statistic=loss,
        alpha=FALSE_POSITIVE_RATE,
        rng=seed,
    )


def test_audit_private_bounds_whole_fit_and_half_noise_power():
    ok = _whole_fit_audit(EPS, seed=3)
    assert ok.passed, ok
    broken = _whole_fit_audit(2 * EPS, seed=4)
    assert not broken.passed, f"half the noise not refuted: {broken}"


def test_private_bounds_with_pandas_and_in_a_private_pipeline():
    pd = pytest.importorskip("pandas")
    from privlearn.learners import OutputPerturbationRegressor
    from privlearn.pipeline import make_private_pipeline

    g = np.random.default_rng(9)
    X = np.column_stack([g.normal(0.0, 1.0, 2000), g.exponential(2.0, 2000)])
    df = pd.DataFrame(X, columns=["z", "dose"])
    sc = StandardScaler(1.0, bounds=(["private", 0.0], "private"), rng=0).fit(df)
    assert list(sc.get_feature_names_out()) == ["z", "dose"]
    assert sc.bounds_[0][1] == 0.0 and sc.bounds_[0][0] == -sc.bounds_[1][0]
    np.testing.assert_allclose(sc.transform(df), (X - sc.mean_) / sc.scale_)

    acct = Accountant(Budget(10.0))
    y = X[:, 0] - X[:, 1] / 4
    pipe = make_private_pipeline(
        StandardScaler(1.0, bounds="private", rng=0),
        OutputPerturbationRegressor(1.0, data_norm=3.0, label_bound=2.0, rng=0),
        accountant=acct,
    )
    pipe.fit(X, y)
    assert len(acct.ledger) == 1 and acct.spent == Budget(2.0)
