"""privlearn.preprocessing.MinMaxScaler and RobustScaler: calibration, audit, bad input,
scikit-learn conventions.

The law of one private quantile is written here from the papers' formulas, never read from the
estimator: on the public grid ``g_k = l + k (u - l) / (K - 1)`` (``K = grid_size``), with the
values clipped to ``[l, u]``, ``c_<(g) = #{i : clip(x_i) < g}``, ``c_<=(g) = #{i : clip(x_i) <=
g}`` and Smith's utility extended to ties, ``u(g) = -max(c_<(g) - q n, q n - c_<=(g), 0)`` (minus
the distance from ``q n`` to the ranks ``g`` occupies; ``-|c(g) - q n|`` where no value equals
``g``; replace-one sensitivity 1), the exponential mechanism (McSherry and Talwar 2007) returns
``g_k`` with probability proportional to ``exp(eps_i u(g_k) / 2)``, where ``eps_i = epsilon /
(k d)`` for ``k`` levels on ``d`` features (the equal split of basic composition).

* **Calibration**: many seeded fits; the empirical frequencies of the released grid points are
  compared with that law by a chi-square test (false-positive rate 1e-6 overall, Bonferroni
  over the laws of a test), with a power check: the law at twice ``eps_i`` is rejected by the
  same counts. MinMaxScaler is checked on its fitted ``(data_min_, data_max_)`` (the joint law
  of the sorted pair of two independent releases), RobustScaler with the median only on
  ``center_``, and RobustScaler with three levels on two features through the sampler tap of
  ``tests/replay.py`` (the scores handed to the sampler, divided by the sensitivity it was given,
  must be the utility written here; the draws follow the law).
* **Audit**: worst-case neighbours (a row near the lower bound replaced by one near the upper
  bound, with the other values placed so that the many candidates at the target lose one unit
  of utility while one candidate next to them gains one: the loss of that output is about
  ``0.92 eps_i``, computed here from the law) through
  :func:`privlearn.audit.audit` at ``alpha = FALSE_POSITIVE_RATE``, 10^6 samples per side of
  the release map (the scores, sensitivity and epsilon the fit passed to the sampler, captured
  by the tap and pinned to the fit's output, then the same sampler vectorised). Power: the same
  estimator fitted at ``2 epsilon`` is refuted against the claim ``epsilon``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from privlearn.accounting import Accountant, Budget
from privlearn.audit import FALSE_POSITIVE_RATE, audit
from privlearn.errors import BudgetExceededError, InvalidParameterError
from privlearn.mechanisms import exponential
from privlearn.preprocessing import MinMaxScaler, RobustScaler
from privlearn.random import Generator
from replay import Tap
from stats_helpers import ALPHA, chi_square_pvalue

# --------------------------------------------------------------------------------------------
# The law of one release, written here from the formulas
# --------------------------------------------------------------------------------------------


def grid_of(lo, hi, size):
    return np.array([lo + k * (hi - lo) / (size - 1) for k in range(size)])


def utility(values, lo, hi, size, q):
    """``-max(c_<(g) - q n, q n - c_<=(g), 0)`` at every grid point (plain loops)."""
    clipped = [min(max(float(v), lo), hi) for v in values]
    t = q * len(clipped)
    out = []
    for g in grid_of(lo, hi, size):
        below = sum(1 for v in clipped if v < g)
        at_or_below = sum(1 for v in clipped if v <= g)
        out.append(-max(below - t, t - at_or_below, 0.0))
    return np.array(out)


def law(values, lo, hi, size, q, eps_i):
    """``P(g_k) ∝ exp(eps_i u(g_k) / 2)``."""
    u = utility(values, lo, hi, size, q)
    logw = eps_i * u / 2.0
    w = np.exp(logw - logw.max())
    return w / w.sum()


def sorted_pair_law(p_lo, p_hi):
    """Law of ``(min, max)`` of two independent draws with laws ``p_lo``, ``p_hi``, over the
    cells ``(a, b)``, ``a <= b``, in row-major order."""
    size = len(p_lo)
    cells = []
    for a in range(size):
        for b in range(a, size):
            cells.append(p_lo[a] * p_hi[b] + (p_lo[b] * p_hi[a] if a != b else 0.0))
    return np.array(cells)


def index_of(values, lo, hi, size):
    """Grid index of released values (exact grid points, up to rounding of the grid)."""
    k = np.rint((np.asarray(values) - lo) / (hi - lo) * (size - 1)).astype(int)
    np.testing.assert_allclose(np.asarray(values), grid_of(lo, hi, size)[k], atol=1e-12)
    return k


def assert_law(counts, probs, alpha, what):
    p = chi_square_pvalue(counts, probs)
    assert p > alpha, f"{what}: chi-square rejects the exact law (p = {p:.3g})"


def assert_power(counts, probs_wrong, alpha, what):
    p = chi_square_pvalue(counts, probs_wrong)
    assert p < alpha, f"{what}: the law at twice eps_i is not rejected (p = {p:.3g})"


# Twenty values in [0, 1] and two beyond the bounds (counted at the ends).
VALUES = np.array(
    [-0.3, 0.05, 0.12, 0.18, 0.25, 0.33, 0.37, 0.41, 0.48, 0.52]
    + [0.55, 0.61, 0.66, 0.7, 0.74, 0.79, 0.86, 0.91, 0.97, 1.4]
)


def test_minmax_fitted_pair_follows_the_exponential_mechanism():
    lo, hi, size = 0.0, 1.0, 11
    eps = 2.0  # k = 2 levels, d = 1 feature: eps_i = eps / 2 = 1
    eps_i = eps / 2
    q_lo, q_hi = 0.10, 0.90  # q n = 2 and 18
    X = VALUES[:, None]
    fits = 20_000
    g = Generator(11)
    pairs = []
    for _ in range(fits):
        est = MinMaxScaler(
            eps, bounds=(lo, hi), quantile_range=(10.0, 90.0), grid_size=size, rng=g
        ).fit(X)
        pairs.append((est.data_min_[0], est.data_max_[0]))
    a = index_of([p[0] for p in pairs], lo, hi, size)
    b = index_of([p[1] for p in pairs], lo, hi, size)
    assert np.all(a <= b)
    cell = {}
    for i in range(size):
        for j in range(i, size):
            cell[(i, j)] = len(cell)
    counts = np.bincount([cell[(i, j)] for i, j in zip(a, b)], minlength=len(cell))

    def joint(e):
        return sorted_pair_law(
            law(VALUES, lo, hi, size, q_lo, e), law(VALUES, lo, hi, size, q_hi, e)
        )

    assert_law(counts, joint(eps_i), ALPHA, "MinMaxScaler (data_min_, data_max_)")
    assert_power(counts, joint(2 * eps_i), ALPHA, "MinMaxScaler (data_min_, data_max_)")


def test_robust_median_only_center_follows_the_exponential_mechanism():
    lo, hi, size = 0.0, 1.0, 21
    eps = 0.8  # one level, one feature: eps_i = eps
    X = VALUES[:, None]
    g = Generator(5)
    centers = [
        RobustScaler(eps, bounds=(lo, hi), with_scaling=False, grid_size=size, rng=g)
        .fit(X)
        .center_[0]
        for _ in range(10_000)
    ]
    counts = np.bincount(index_of(centers, lo, hi, size), minlength=size)
    assert_law(counts, law(VALUES, lo, hi, size, 0.5, eps), ALPHA, "median")
    assert_power(counts, law(VALUES, lo, hi, size, 0.5, 2 * eps), ALPHA, "median")


def test_robust_three_levels_two_features_each_release_follows_its_law():
    lo = np.array([0.0, -2.0])
    hi = np.array([1.0, 2.0])
    size = 11
    X = np.column_stack([VALUES, 4.0 * VALUES[::-1] - 2.0])
    eps = 6.0  # k = 3 levels (25, 50, 75), d = 2: eps_i = 1
    eps_i = eps / 6
    levels = (0.25, 0.5, 0.75)  # q n = 5, 10, 15
    fits = 8_000
    g = Generator(3)
    with Tap() as tap:
        for _ in range(fits):
            RobustScaler(eps, bounds=(lo, hi), grid_size=size, rng=g).fit(X)
    calls = tap.calls
    assert len(calls) == 6 * fits and all(c.name == "exponential" for c in calls)
    for k, c in enumerate(calls[:6]):
        j, m = divmod(k, 3)
        u = utility(X[:, j], lo[j], hi[j], size, levels[m])
        # The scores the sampler received, in units of its sensitivity, are the utility.
        np.testing.assert_allclose(c.value / c.sensitivity, u, atol=2.0**-10)
        assert c.epsilon == eps_i
    alpha = ALPHA / 6  # six laws in this test
    for k in range(6):
        j, m = divmod(k, 3)
        drawn = np.array([int(c.output) for c in calls[k::6]])
        counts = np.bincount(drawn, minlength=size)
        what = f"feature {j}, level {levels[m]}"
        assert_law(counts, law(X[:, j], lo[j], hi[j], size, levels[m], eps_i), alpha, what)
        wrong = law(X[:, j], lo[j], hi[j], size, levels[m], 2 * eps_i)
        assert_power(counts, wrong, alpha, what)


def test_minmax_statistics_are_post_processing_of_the_sorted_releases():
    lo, hi, size = 0.0, 1.0, 11
    X = VALUES[:, None]
    g = Generator(9)
    seen_swap = False
    for _ in range(300):
        with Tap() as tap:
            est = MinMaxScaler(
                0.05,  # nearly uniform: the two releases often cross
                bounds=(lo, hi),
                feature_range=(-1.0, 3.0),
                grid_size=size,
                rng=g,
            ).fit(X)
        raw = grid_of(lo, hi, size)[[int(c.output) for c in tap.calls]]
        seen_swap |= bool(raw[0] > raw[1])
        np.testing.assert_allclose(est.data_min_, [raw.min()])
        np.testing.assert_allclose(est.data_max_, [raw.max()])
        rng_ = raw.max() - raw.min()
        np.testing.assert_allclose(est.data_range_, [rng_])
        scale = 4.0 / (rng_ if rng_ != 0 else 1.0)
        np.testing.assert_allclose(est.scale_, [scale])
        np.testing.assert_allclose(est.min_, [-1.0 - raw.min() * scale])
    assert seen_swap


def test_constant_feature_scales_like_scikit_learn():
    from sklearn.preprocessing import MinMaxScaler as SkMinMax
    from sklearn.preprocessing import RobustScaler as SkRobust

    X = np.full((400, 1), 0.5)
    est = MinMaxScaler(50.0, bounds=(0.0, 1.0), grid_size=11, rng=0).fit(X)
    sk = SkMinMax().fit(X)
    assert est.data_min_[0] == est.data_max_[0] == 0.5
    np.testing.assert_allclose(est.scale_, sk.scale_)
    np.testing.assert_allclose(est.min_, sk.min_)
    rob = RobustScaler(50.0, bounds=(0.0, 1.0), grid_size=11, rng=0).fit(X)
    skr = SkRobust().fit(X)
    np.testing.assert_allclose(rob.center_, skr.center_)
    np.testing.assert_allclose(rob.scale_, skr.scale_)


def test_robust_statistics_are_post_processing_of_the_sorted_releases():
    lo, hi, size = 0.0, 1.0, 11
    X = VALUES[:, None]
    g = Generator(2)
    for unit in (False, True):
        for _ in range(100):
            with Tap() as tap:
                est = RobustScaler(
                    0.3,
                    bounds=(lo, hi),
                    quantile_range=(20.0, 90.0),
                    unit_variance=unit,
                    grid_size=size,
                    rng=g,
                ).fit(X)
            raw = np.sort(grid_of(lo, hi, size)[[int(c.output) for c in tap.calls]])
            # levels 20, 50, 90 in increasing order after sorting
            np.testing.assert_allclose(est.center_, [raw[1]])
            scale = raw[2] - raw[0]
            scale = scale if scale != 0 else 1.0
            if unit:
                scale /= stats.norm.ppf(0.9) - stats.norm.ppf(0.2)
            np.testing.assert_allclose(est.scale_, [scale])


# --------------------------------------------------------------------------------------------
# Audit on worst-case neighbours
# --------------------------------------------------------------------------------------------

N_AUDIT = 1_000_000
AUDIT_SIZE = 41  # grid step 0.025 on [0, 1]


def _audit_column(first):
    """Twenty values: ``first`` (the replaced row), 0.005, 0.39, fifteen at 0.41, 0.965, 0.99
    (none on a grid point, so ``c_< = c_<=`` on the grid).

    Counts on the grid: 0 at 0, 2 from 0.025 to 0.375 (fifteen points), 3 at 0.4, 18 from 0.425
    to 0.95 (twenty-two points), 19 at 0.975, 20 at 1. With ``first`` moved from 0.005 to 0.99
    every count from 0.025 to 0.975 falls by one: at the 10% level (q n = 2) the fifteen best
    candidates lose one unit of utility while 0.4 gains one, and at the 90% level (q n = 18)
    the twenty-two best lose one while 0.975 gains one."""
    return np.array([first, 0.005, 0.39] + [0.41] * 15 + [0.965, 0.99])[:, None]


def _captured(est, X):
    with Tap() as tap:
        est.fit(X)
    return [(c.value.astype(np.int64), c.sensitivity, c.epsilon) for c in tap.calls]


def _pin(make, X, calls):
    """The fit's released grid points are the sampler's draws on the captured scores."""
    grid = grid_of(0.0, 1.0, AUDIT_SIZE)
    for seed in range(4):
        est = make(seed).fit(X)
        draws = []
        g = Generator(seed)
        for scores, sens, eps in calls:
            draws.append(grid[exponential(scores, eps, sens, rng=g, numerics="exact")])
        got = est.data_min_ if hasattr(est, "data_min_") else est.center_
        assert got[0] == min(draws)


def _loss_statistic(pa, pb, cell):
    """The log-likelihood ratio of an output (the Neyman-Pearson direction), from the laws
    written here, rounded to 1e-9."""
    llr = np.log(pa) - np.log(pb)

    def stat(o):
        return np.round(llr[cell(o)], 9)

    return stat


def _sampler(calls, sort):
    def run(g, size):
        cols = [
            exponential(s, e, sens, size=size, rng=int(g.integers(2**63))) for s, sens, e in calls
        ]
        out = np.column_stack(cols)
        return np.sort(out, axis=1) if sort else out

    return run


def _audit_minmax(eps_fit, seed):
    Xa, Xb = _audit_column(0.005), _audit_column(0.99)

    def make(eps):
        return lambda rng: MinMaxScaler(
            eps, bounds=(0.0, 1.0), quantile_range=(10.0, 90.0), grid_size=AUDIT_SIZE, rng=rng
        )

    ca, cb = _captured(make(eps_fit)(0), Xa), _captured(make(eps_fit)(0), Xb)
    _pin(make(eps_fit), Xa, ca)
    # The law written here, at the epsilon the fit claims to spend per release.
    eps_i = eps_fit / 2
    size = AUDIT_SIZE

    def joint(values):
        v = values[:, 0]
        return sorted_pair_law(
            law(v, 0.0, 1.0, size, 0.1, eps_i), law(v, 0.0, 1.0, size, 0.9, eps_i)
        )

    pa, pb = joint(Xa), joint(Xb)
    starts = np.cumsum([0] + [size - a for a in range(size)])[:-1]

    def cell(o):
        return starts[o[:, 0]] + (o[:, 1] - o[:, 0])

    return audit(
        _sampler(ca, True),
        _sampler(cb, True),
        Budget(1.0),
        n=N_AUDIT,
        statistic=_loss_statistic(pa, pb, cell),
        alpha=FALSE_POSITIVE_RATE,
        rng=seed,
    ), float(np.max(np.abs(np.log(pa / pb))))


def _audit_median(eps_fit, seed):
    # The median (q n = 10) on the same grid: ten values at 0.005, 0.39 and nine at 0.41; the
    # fifteen candidates of the plateau [0.025, 0.375] (count 10) lose one when a value at
    # 0.005 moves to 0.99, while 0.4 (count 11) gains one.
    Xa = np.array([0.005] * 10 + [0.39] + [0.41] * 9)[:, None]
    Xb = Xa.copy()
    Xb[0, 0] = 0.99

    def make(rng):
        return RobustScaler(
            eps_fit, bounds=(0.0, 1.0), with_scaling=False, grid_size=AUDIT_SIZE, rng=rng
        )

    ca, cb = _captured(make(0), Xa), _captured(make(0), Xb)
    _pin(make, Xa, ca)
    pa = law(Xa[:, 0], 0.0, 1.0, AUDIT_SIZE, 0.5, eps_fit)
    pb = law(Xb[:, 0], 0.0, 1.0, AUDIT_SIZE, 0.5, eps_fit)
    return audit(
        _sampler(ca, False),
        _sampler(cb, False),
        Budget(1.0),
        n=N_AUDIT,
        statistic=_loss_statistic(pa, pb, lambda o: o[:, 0]),
        alpha=FALSE_POSITIVE_RATE,
        rng=seed,
    ), float(np.max(np.abs(np.log(pa / pb))))


@pytest.mark.parametrize("which", ["MinMaxScaler", "RobustScaler median"])
def test_audit_worst_case_neighbours_and_half_noise_power(which):
    run = _audit_minmax if which == "MinMaxScaler" else _audit_median
    ok, loss = run(1.0, seed=1)
    # The pair is close to the worst case: its largest privacy loss, from the law written here.
    assert 0.9 < loss <= 1.0 + 1e-12, loss
    assert ok.passed, ok
    broken, _ = run(2.0, seed=2)  # half the noise, claimed as epsilon = 1
    assert not broken.passed, f"twice the epsilon not refuted: {broken}"


# --------------------------------------------------------------------------------------------
# Bad input: InvalidParameterError naming the parameter, nothing drawn or charged
# --------------------------------------------------------------------------------------------


def _data(n=30, d=2, seed=5):
    return np.random.default_rng(seed).uniform(-0.5, 1.5, size=(n, d))


BAD = [
    ("missing bounds", {}, dict(bounds=None), _data(), "bounds"),
    ("zero range", {}, dict(bounds=(1.0, 1.0)), _data(), "bounds"),
    ("one zero range", {}, dict(bounds=([0.0, 1.0], [1.0, 1.0])), _data(), "bounds"),
    ("negative range", {}, dict(bounds=(2.0, 1.0)), _data(), "bounds"),
    ("infinite bound", {}, dict(bounds=(0.0, math.inf)), _data(), "bounds"),
    ("NaN bound", {}, dict(bounds=(math.nan, 1.0)), _data(), "bounds"),
    ("bounds length", {}, dict(bounds=([0.0] * 3, [1.0] * 3)), _data(), "bounds"),
    ("range too fine", {}, dict(bounds=(1.0, 1.0 + 1e-13)), _data(), "bounds"),
    ("NaN in X", {}, {}, np.array([[0.0, 1.0], [np.nan, 0.5]]), "X"),
    ("inf in X", {}, {}, np.array([[0.0, 1.0], [np.inf, 0.5]]), "X"),
    ("1-d X", {}, {}, np.arange(5.0), "X"),
    ("empty X", {}, {}, np.zeros((0, 2)), "X"),
    ("missing epsilon", {}, dict(epsilon=None), _data(), "epsilon"),
    ("zero epsilon", {}, dict(epsilon=0.0), _data(), "epsilon"),
    ("grid_size 1", {}, dict(grid_size=1), _data(), "grid_size"),
    ("grid_size float", {}, dict(grid_size=100.0), _data(), "grid_size"),
    ("grid_size huge", {}, dict(grid_size=10**7), _data(), "grid_size"),
    ("quantile_range reversed", {}, dict(quantile_range=(90.0, 10.0)), _data(), "quantile_range"),
    ("quantile_range equal", {}, dict(quantile_range=(50.0, 50.0)), _data(), "quantile_range"),
    ("quantile_range > 100", {}, dict(quantile_range=(10.0, 101.0)), _data(), "quantile_range"),
    ("quantile_range fraction?", {}, dict(quantile_range=(-0.1, 0.9)), _data(), "quantile_range"),
    ("quantile_range NaN", {}, dict(quantile_range=(math.nan, 90.0)), _data(), "quantile_range"),
    ("quantile_range one", {}, dict(quantile_range=(10.0,)), _data(), "quantile_range"),
    ("feature_range", {"only": "minmax"}, dict(feature_range=(1.0, 0.0)), _data(), "feature_range"),
    ("clip", {"only": "minmax"}, dict(clip="yes"), _data(), "clip"),
    (
        "both off",
        {"only": "robust"},
        dict(with_centering=False, with_scaling=False),
        _data(),
        "with_scaling",
    ),
    (
        "unit_variance at 0",
        {"only": "robust"},
        dict(unit_variance=True, quantile_range=(0.0, 75.0)),
        _data(),
        "quantile_range",
    ),
    ("with_centering", {"only": "robust"}, dict(with_centering=1), _data(), "with_centering"),
]


def _cases():
    for name, where, kw, X, param in BAD:
        for cls in (MinMaxScaler, RobustScaler):
            only = where.get("only")
            if only and not cls.__name__.lower().startswith(only):
                continue
            yield pytest.param(cls, kw, X, param, id=f"{cls.__name__}-{name}")


@pytest.mark.parametrize("cls, kw, X, param", list(_cases()))
def test_bad_input_is_refused_before_anything_is_drawn_or_charged(cls, kw, X, param):
    acct = Accountant(Budget(100.0))
    kw = {"epsilon": 1.0, "bounds": (0.0, 1.0), **kw}
    with Tap() as tap, pytest.raises(InvalidParameterError) as err:
        cls(accountant=acct, rng=0, **kw).fit(X)
    assert err.value.parameter == param
    assert str(err.value).startswith(param)
    assert acct.ledger == () and tap.calls == []


class Untouchable:
    def __array__(self, *a, **k):  # pragma: no cover - must not be called
        raise AssertionError("the data were read")


@pytest.mark.parametrize("cls", [MinMaxScaler, RobustScaler])
@pytest.mark.parametrize(
    "kw, param",
    [
        (dict(bounds=None), "bounds"),
        (dict(bounds=(0.0, 0.0)), "bounds"),
        (dict(grid_size=0), "grid_size"),
        (dict(quantile_range=(80.0, 20.0)), "quantile_range"),
    ],
)
def test_parameters_are_refused_without_reading_the_data(cls, kw, param):
    with pytest.raises(InvalidParameterError) as err:
        cls(1.0, **{"bounds": (0.0, 1.0), **kw}).fit(Untouchable())
    assert err.value.parameter == param


def test_errors_after_the_data_were_read_carry_no_values():
    X = np.array([[0.123456, 0.654321], [0.777777, np.nan]])
    with pytest.raises(InvalidParameterError) as err:
        MinMaxScaler(1.0, bounds=(0.0, 1.0)).fit(X)
    for token in ("0.123456", "0.654321", "0.777777"):
        assert token not in str(err.value)
    with pytest.raises(InvalidParameterError) as err:
        RobustScaler(1.0, bounds=([0.0] * 3, [1.0] * 3)).fit(X[:1])
    assert "0.123456" not in str(err.value)


@pytest.mark.parametrize("cls", [MinMaxScaler, RobustScaler])
def test_budget_exceeded_draws_nothing(cls):
    acct = Accountant(Budget(0.5))
    with Tap() as tap, pytest.raises(BudgetExceededError):
        cls(1.0, bounds=(0.0, 1.0), accountant=acct).fit(_data())
    assert tap.calls == [] and acct.ledger == ()


# --------------------------------------------------------------------------------------------
# The charge, scikit-learn conventions
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, k",
    [
        (lambda a: MinMaxScaler(0.7, bounds=(0.0, 1.0), accountant=a), 2),
        (lambda a: RobustScaler(0.7, bounds=(0.0, 1.0), accountant=a), 3),
        (lambda a: RobustScaler(0.7, bounds=(0.0, 1.0), with_scaling=False, accountant=a), 1),
        (lambda a: RobustScaler(0.7, bounds=(0.0, 1.0), with_centering=False, accountant=a), 2),
        (
            lambda a: RobustScaler(
                0.7, bounds=(0.0, 1.0), quantile_range=(50.0, 75.0), accountant=a
            ),
            2,
        ),
    ],
    ids=["minmax", "robust", "robust median", "robust scale", "robust 50-75"],
)
def test_charges_once_with_the_documented_label_and_split(make, k):
    from privlearn.accounting._event import PrivacyEvent

    acct = Accountant(Budget(10.0))
    d = 3
    est = make(acct)
    with Tap() as tap:
        est.fit(_data(d=d))
    (entry,) = acct.ledger
    assert entry.label == type(est).__name__
    assert entry.budget == Budget(0.7) == est.privacy_guarantee(30)
    # k levels x d features, each the exponential mechanism at eps / (k d), bounded range.
    assert len(tap.calls) == k * d
    share = {c.epsilon for c in tap.calls}
    assert len(share) == 1
    (e,) = share
    assert e <= 0.7 / (k * d) and k * d * e <= 0.7 and math.isclose(e, 0.7 / (k * d))
    assert entry.event == PrivacyEvent.repeated(
        PrivacyEvent.bounded_range(e), k * d, budget=Budget(0.7)
    )


def test_zcdp_accountant_composes_the_bounded_range_parts():
    acct = Accountant(Budget(10.0, 1e-6), composition="zcdp")
    MinMaxScaler(1.0, bounds=(0.0, 1.0), accountant=acct, rng=0).fit(_data(d=2))
    # four bounded-range releases at 1/4: rho = 4 (1/4)^2 / 8 (Cesar and Rogers 2021), half the
    # rho of four pure 1/4-DP releases (4 (1/4)^2 / 2)
    rho = acct.spent_native
    assert math.isclose(getattr(rho, "rho", rho), 4 * (0.25**2) / 8, rel_tol=1e-9)


@pytest.mark.parametrize("cls", [MinMaxScaler, RobustScaler])
def test_clone_get_params_and_shared_accountant(cls):
    from sklearn.base import clone

    acct = Accountant(Budget(10.0))
    g = Generator(1)
    est = cls(1.0, bounds=(0.0, 1.0), accountant=acct, rng=g)
    params = est.get_params()
    common = {"epsilon", "bounds", "quantile_range", "grid_size", "accountant", "rng"}
    extra = (
        {"feature_range", "clip"}
        if cls is MinMaxScaler
        else {"with_centering", "with_scaling", "unit_variance"}
    )
    assert set(params) == common | extra
    twin = clone(est)
    assert twin.accountant is acct and twin.rng is g
    twin.fit(_data())
    est.fit(_data())
    assert [e.label for e in acct.ledger] == [cls.__name__] * 2


@pytest.mark.parametrize("cls", [MinMaxScaler, RobustScaler])
def test_pandas_feature_names_transform_and_inverse(cls):
    pd = pytest.importorskip("pandas")
    X = _data(40)
    df = pd.DataFrame(X, columns=["age", "dose"])
    est = cls(1.0, bounds=([-1.0, -1.0], [2.0, 2.0]), rng=0).fit(df)
    assert list(est.feature_names_in_) == ["age", "dose"]
    assert list(est.get_feature_names_out()) == ["age", "dose"]
    assert est.n_features_in_ == 2 and est.n_samples_seen_ == 40
    Z = est.transform(df)
    if cls is MinMaxScaler:
        np.testing.assert_allclose(Z, X * est.scale_ + est.min_)
    else:
        np.testing.assert_allclose(Z, (X - est.center_) / est.scale_)
    np.testing.assert_allclose(est.inverse_transform(Z), X)
    same = cls(1.0, bounds=([-1.0, -1.0], [2.0, 2.0]), rng=0).fit(X)
    np.testing.assert_array_equal(same.scale_, est.scale_)
    with pytest.raises(InvalidParameterError) as err:
        est.transform(df[["dose", "age"]])
    assert err.value.parameter == "X"
    with pytest.raises(InvalidParameterError):
        est.inverse_transform(np.zeros((3, 5)))


def test_minmax_clip_and_fit_transform():
    X = _data(200)
    est = MinMaxScaler(2.0, bounds=(-1.0, 2.0), feature_range=(-1.0, 1.0), clip=True, rng=1)
    Z = est.fit_transform(X)
    assert Z.min() >= -1.0 and Z.max() <= 1.0
    raw = X * est.scale_ + est.min_
    np.testing.assert_allclose(Z, np.clip(raw, -1.0, 1.0))


def test_robust_options_and_transform():
    X = _data(200)
    est = RobustScaler(2.0, bounds=(-1.0, 2.0), with_scaling=False, rng=1).fit(X)
    assert est.scale_ is None
    np.testing.assert_allclose(est.transform(X), X - est.center_)
    est = RobustScaler(2.0, bounds=(-1.0, 2.0), with_centering=False, rng=1).fit(X)
    assert est.center_ is None
    np.testing.assert_allclose(est.transform(X), X / est.scale_)
    np.testing.assert_allclose(est.inverse_transform(est.transform(X)), X)


def test_accuracy_on_large_data_is_close_to_scikit_learn():
    from sklearn.preprocessing import RobustScaler as SkRobust

    X = np.random.default_rng(0).normal(0.0, 1.0, size=(20_000, 2))
    est = RobustScaler(2.0, bounds=(-6.0, 6.0), rng=4).fit(X)
    sk = SkRobust().fit(X)
    np.testing.assert_allclose(est.center_, sk.center_, atol=0.05)
    np.testing.assert_allclose(est.scale_, sk.scale_, rtol=0.05)
    mm = MinMaxScaler(2.0, bounds=(-6.0, 6.0), rng=4).fit(X)
    q = np.percentile(X, [1, 99], axis=0)
    np.testing.assert_allclose(mm.data_min_, q[0], atol=0.1)
    np.testing.assert_allclose(mm.data_max_, q[1], atol=0.1)


@pytest.mark.parametrize("cls", [MinMaxScaler, RobustScaler])
def test_in_a_private_pipeline_with_a_private_learner(cls):
    from privlearn.learners import AdaSSPRegressor
    from privlearn.pipeline import make_private_pipeline

    acct = Accountant(Budget(10.0, 1e-3))
    X = _data(300)
    y = X[:, 0] - X[:, 1] / 4
    pipe = make_private_pipeline(
        cls(1.0, bounds=(-0.5, 1.5), accountant=acct, rng=0),
        AdaSSPRegressor(1.0, delta=1e-6, data_norm=3.0, label_bound=2.0, accountant=acct, rng=0),
    )
    assert pipe.privacy_guarantee(300) == Budget(2.0, 1e-6)
    pipe.fit(X, y)
    assert [e.label for e in acct.ledger] == [cls.__name__, "AdaSSPRegressor"]
    assert pipe.privacy_ == Budget(2.0, 1e-6)
    assert pipe.predict(X).shape == (300,)
