"""privlearn.preprocessing.Clipper: calibration, audit, bad input, charge, scikit-learn conventions.

The output law is written here, never read from the estimator: a private bound is a point of the
public grid ``2^(k/8)``, ``1e-4 <= 2^(k/8) <= 1e8`` (``tests/bounds_reference.py``), drawn with
probability proportional to ``exp(share * u(g) / 2)``, where ``u`` is the guarded quantile
utility ``-max(|c(g) - q n|, #{16 g < v <= g_K}, #{g_1 / 16 < v <= g / 16})`` of the values
``v`` (the row norms, computed here by a plain loop, or the absolute labels) and
``c(x) = #{v <= x}`` (McSherry and Talwar 2007, Theorem 6, with sensitivity 1 under replace-one
neighbours). The share of ``epsilon`` is ``epsilon`` for one private bound and ``epsilon / 2``
for two (the documented fixed split).

* **Calibration**: seeded fits' released bounds against that law (chi-square, false-positive
  rate 1e-6), with power: the law at twice the share, and the laws with the share 30% off, are
  rejected; the scores the fit hands to the sampler (through the tap of ``tests/replay.py``)
  are this utility times the sensitivity the sampler is told, with the share as epsilon.
* **Audit**: worst-case neighbours (twenty grid points hold the target on one side, a record
  moves from below them to above the far point) through :func:`privlearn.audit.audit` at
  ``alpha = 1e-6`` with 10^6 draws per side of the release map captured from the fit (the
  scores, sensitivity and epsilon the sampler received): the claim holds, and the same fit at
  twice the epsilon (half the noise) is refuted against the claim ``epsilon``; for one private
  bound and for both (one record moving its norm and its label).
* Bad input refused before anything is drawn or charged, the one ledger entry, clones sharing
  the accountant, pandas, transform and labels, and use in a private pipeline.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import logsumexp

from bounds_reference import guarded_scores, public_grid
from privlearn.accounting import Accountant, Budget
from privlearn.audit import FALSE_POSITIVE_RATE, audit
from privlearn.errors import BudgetExceededError, InvalidParameterError
from privlearn.mechanisms import exponential
from privlearn.preprocessing import Clipper
from privlearn.random import Generator
from replay import Tap
from stats_helpers import assert_fits, assert_power_check, assert_rejects, chi_square_pvalue

GRID = public_grid()


def _norms(X):
    """Row L2 norms by a plain loop (written here)."""
    return np.array([math.sqrt(sum(float(v) * float(v) for v in row)) for row in X])


def _law(values, q, share):
    """P(g) ∝ exp(share u(g) / 2) on the default grid, u = the guarded utility (counts)."""
    u = guarded_scores(np.asarray(values, dtype=float), q, len(values)) / 1024.0
    logw = share * u / 2.0
    return np.exp(logw - logsumexp(logw))


def _index(value):
    i = int(np.argmin(np.abs(GRID - value)))
    assert value == pytest.approx(GRID[i], rel=1e-15), "released bound is not a grid point"
    return i


# Twelve rows in R^3 with norms spread over two decades, and twelve labels.
_DIRS = np.random.default_rng(8).normal(size=(12, 3))
NORMS = np.array([0.3, 0.5, 0.8, 1.0, 1.3, 1.7, 2.2, 3.0, 4.0, 6.0, 9.0, 15.0])
X_CAL = _DIRS / np.linalg.norm(_DIRS, axis=1)[:, None] * NORMS[:, None]
Y_CAL = np.array([-4.0, 2.5, -0.1, 0.7, 1.1, -1.9, 3.3, 0.05, -7.0, 0.4, 12.0, -0.9])
EPS_CAL = 2.0


@pytest.mark.parametrize(
    "which",
    ["both", "data_norm", "label_bound"],
    ids=["both private", "norm only", "label only"],
)
def test_released_bounds_follow_the_exponential_mechanism(which):
    fits = 12_000 if which == "both" else 8_000
    kw = {
        "both": dict(data_norm="private", label_bound="private"),
        "data_norm": dict(data_norm="private"),
        "label_bound": dict(label_bound="private"),
    }[which]
    share = EPS_CAL / 2 if which == "both" else EPS_CAL
    g = Generator(20220 + len(which))
    out = {"data_norm": [], "label_bound": []}
    for _ in range(fits):
        est = Clipper(EPS_CAL, rng=g, **kw).fit(X_CAL, Y_CAL)
        for name in out:
            if name in kw:
                out[name].append(_index(getattr(est, name + "_")))
    cases = [
        ("data_norm", _norms(X_CAL), 0.25),  # the documented default quantiles
        ("label_bound", np.abs(Y_CAL), 0.75),
    ]
    for name, values, q in cases:
        if name not in kw:
            assert out[name] == []
            continue
        counts = np.bincount(out[name], minlength=GRID.size)
        assert_fits(counts, _law(values, q, share), f"{which}: {name}")
        assert_rejects(counts, _law(values, q, 2 * share), f"{which}: {name} at twice the share")
        assert_power_check(
            lambda f, c=counts, v=values, q=q: chi_square_pvalue(c, _law(v, q, f * share)),
            f"{which}: {name}",
        )


def test_scores_handed_to_the_sampler_are_the_guarded_utility():
    with Tap() as tap:
        Clipper(EPS_CAL, data_norm="private", label_bound="private", norm_quantile=0.4, rng=0).fit(
            X_CAL, Y_CAL
        )
    calls = [c for c in tap.calls if c.name == "exponential"]
    assert len(calls) == 2
    for call, values, q in ((calls[0], _norms(X_CAL), 0.4), (calls[1], np.abs(Y_CAL), 0.75)):
        assert call.epsilon == EPS_CAL / 2  # the documented split: exact halves
        utility = guarded_scores(values, q, 12) / 1024.0
        np.testing.assert_array_equal(call.value / call.sensitivity, utility)


def test_released_bound_is_a_draw_of_the_captured_scores():
    """The release map the audit samples is the fit's: for a seed, the fit's bound is the grid
    point the sampler draws from the captured scores with the same seed."""
    for seed in range(5):
        with Tap() as tap:
            est = Clipper(1.0, data_norm="private", rng=seed).fit(X_CAL)
        (call,) = tap.calls
        i = exponential(call.value.astype(np.int64), call.epsilon, call.sensitivity, rng=seed)
        assert est.data_norm_ == GRID[i]


# --------------------------------------------------------------------------------------------
# Audit on worst-case neighbours
# --------------------------------------------------------------------------------------------

N_AUDIT = 1_000_000
EPS = 1.0
# Twenty grid points with no value between them hold the target count (q n = 2) on A; on B the
# record below them moves above the far point 5.0: all twenty scores fall by one while the far
# point's rises by one (a loss of about 0.95 epsilon per bound, written in the audit below).
AUDIT_GRID = [1.0 + 0.05 * i for i in range(20)] + [5.0]
AUDIT_A = [0.5, 0.5, 2.0, 9.0]
AUDIT_B = [9.0, 0.5, 2.0, 9.0]


def _audit_data(values):
    X = np.zeros((4, 2))
    X[:, 0] = values  # row norms = the values
    y = -np.array(values)  # |y| = the values
    return X, y


def _captured(values, eps, both):
    X, y = _audit_data(values)
    kw = dict(data_norm="private", norm_quantile=0.5)
    if both:
        kw.update(label_bound="private", label_quantile=0.5)
    with Tap() as tap:
        Clipper(eps, grid=AUDIT_GRID, rng=0, **kw).fit(X, y)
    calls = [c for c in tap.calls if c.name == "exponential"]
    assert len(calls) == (2 if both else 1)
    return [(c.value.astype(np.int64), c.epsilon, c.sensitivity) for c in calls]


def _release_map(calls):
    def run(g, size):
        seeds = g.integers(2**63, size=len(calls))
        cols = [
            exponential(s, e, sens, size=size, rng=int(seed))
            for (s, e, sens), seed in zip(calls, seeds)
        ]
        return np.column_stack(cols).astype(np.int64)

    return run


def _log_law(scores, eps, sens):
    logw = eps * scores.astype(np.float64) / (2.0 * sens)
    return logw - logsumexp(logw)


def _loss_statistic(ca, cb):
    """The exact log-likelihood ratio of an output (sum over the releases), rounded to 1e-9."""
    tables = [_log_law(*a) - _log_law(*b) for a, b in zip(ca, cb)]

    def stat(o):
        total = np.zeros(o.shape[0])
        for k, table in enumerate(tables):
            total += table[o[:, k]]
        return np.round(total, 9)

    return stat


@pytest.mark.parametrize("both", [False, True], ids=["norm only", "norm and label"])
def test_audit_worst_case_neighbours_and_half_noise_power(both):
    # The pair's loss, from the formula written here (the utility on AUDIT_GRID by a loop):
    # each bound loses at least 0.9 of its share, so the pair is close to the worst case.
    def u(values):
        c = [sum(v <= g for v in values) for g in AUDIT_GRID]
        top, low = AUDIT_GRID[-1], AUDIT_GRID[0] / 16
        return np.array(
            [
                -max(
                    abs(ci - 2),
                    sum(16 * g < v <= top for v in values),
                    sum(low < v <= g / 16 for v in values),
                )
                for g, ci in zip(AUDIT_GRID, c)
            ],
            dtype=float,
        )

    share = EPS / 2 if both else EPS
    la, lb = (share * u(v) / 2 for v in (AUDIT_A, AUDIT_B))
    loss = np.max(np.abs((la - logsumexp(la)) - (lb - logsumexp(lb))))
    assert 0.9 * share < loss <= share

    ca, cb = _captured(AUDIT_A, EPS, both), _captured(AUDIT_B, EPS, both)
    for (sa, e, sens), (sb, _e, _s) in zip(ca, cb):
        assert e == share and np.max(np.abs(sa - sb)) <= sens  # sensitivity 1 in score units
    good = audit(
        _release_map(ca),
        _release_map(cb),
        Budget(EPS),
        n=N_AUDIT,
        statistic=_loss_statistic(ca, cb) if both else None,
        alpha=FALSE_POSITIVE_RATE,
        rng=11,
    )
    assert good.passed, good
    ca2, cb2 = _captured(AUDIT_A, 2 * EPS, both), _captured(AUDIT_B, 2 * EPS, both)
    bad = audit(
        _release_map(ca2),
        _release_map(cb2),
        Budget(EPS),
        n=N_AUDIT,
        statistic=_loss_statistic(ca2, cb2) if both else None,
        alpha=FALSE_POSITIVE_RATE,
        rng=12,
    )
    assert not bad.passed, f"half the noise (twice epsilon) not refuted: {bad}"


# --------------------------------------------------------------------------------------------
# Bad input: InvalidParameterError naming the parameter, nothing drawn or charged
# --------------------------------------------------------------------------------------------


def _data(n=30, d=3, seed=5):
    g = np.random.default_rng(seed)
    return g.normal(size=(n, d)) * 3.0, g.normal(size=n) * 2.0


X0, Y0 = _data()
P = dict(data_norm="private")
BAD = [
    ("data_norm zero", dict(data_norm=0.0), X0, Y0, "data_norm"),
    ("data_norm negative", dict(data_norm=-1.0), X0, Y0, "data_norm"),
    ("data_norm inf", dict(data_norm=math.inf), X0, Y0, "data_norm"),
    ("data_norm nan", dict(data_norm=math.nan), X0, Y0, "data_norm"),
    ("data_norm bool", dict(data_norm=True), X0, Y0, "data_norm"),
    ("data_norm typo", dict(data_norm="privat"), X0, Y0, "data_norm"),
    ("label_bound zero", dict(data_norm=1.0, label_bound=0.0), X0, Y0, "label_bound"),
    ("no bound at all", dict(), X0, Y0, "data_norm"),
    ("private without epsilon", dict(epsilon=None, **P), X0, Y0, "epsilon"),
    ("label private without epsilon", dict(epsilon=None, label_bound="private"), X0, Y0, "epsilon"),
    ("epsilon zero", dict(epsilon=0.0, **P), X0, Y0, "epsilon"),
    ("epsilon inf", dict(epsilon=math.inf, **P), X0, Y0, "epsilon"),
    ("epsilon bad, declared", dict(epsilon=-1.0, data_norm=1.0), X0, Y0, "epsilon"),
    (
        "epsilon too small to split",
        dict(epsilon=5e-324, label_bound="private", **P),
        X0,
        Y0,
        "epsilon",
    ),
    ("norm_quantile 0", dict(norm_quantile=0.0, **P), X0, Y0, "norm_quantile"),
    ("norm_quantile 1", dict(norm_quantile=1.0, **P), X0, Y0, "norm_quantile"),
    ("label_quantile 1.5", dict(label_quantile=1.5, **P), X0, Y0, "label_quantile"),
    ("rescale without data_norm", dict(rescale=True, label_bound=1.0), X0, Y0, "rescale"),
    ("rescale not bool", dict(rescale="yes", **P), X0, Y0, "rescale"),
    ("grid repeated", dict(grid=[1.0, 1.0], **P), X0, Y0, "grid"),
    ("grid with zero", dict(grid=[0.0, 1.0], **P), X0, Y0, "grid"),
    ("accountant", dict(accountant="acct", **P), X0, Y0, "accountant"),
    ("NaN X", P, np.array([[0.0, 1.0], [np.nan, 2.0]]), None, "X"),
    ("inf X", P, np.array([[0.0, 1.0], [np.inf, 2.0]]), None, "X"),
    ("NaN X declared", dict(data_norm=1.0), np.array([[0.0, 1.0], [np.nan, 2.0]]), None, "X"),
    ("1-d X", P, np.arange(5.0), None, "X"),
    ("empty X", P, np.zeros((0, 2)), None, "X"),
    ("y missing", dict(label_bound="private"), X0, None, "y"),
    ("y NaN", dict(label_bound="private"), X0, np.where(np.arange(30) == 3, np.nan, Y0), "y"),
    ("y inf", dict(label_bound="private"), X0, np.where(np.arange(30) == 3, np.inf, Y0), "y"),
    ("y length", dict(label_bound="private"), X0, Y0[:-1], "y"),
    ("y two columns", dict(label_bound="private"), X0, np.zeros((30, 2)), "y"),
    ("y strings", dict(label_bound="private"), X0, np.array(["a"] * 30), "y"),
]


@pytest.mark.parametrize("kw, X, y, param", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_is_refused_before_anything_is_drawn_or_charged(kw, X, y, param):
    acct = Accountant(Budget(100.0))
    kw = {"epsilon": 1.0, "accountant": acct, **kw}
    with Tap() as tap, pytest.raises(InvalidParameterError) as err:
        Clipper(rng=0, **kw).fit(X, y)
    assert err.value.parameter == param
    assert str(err.value).startswith(param)
    assert acct.ledger == () and tap.calls == []


def test_data_errors_carry_no_value():
    X = X0.copy()
    X[3, 1] = 12345.678
    y = Y0.copy()
    y[4] = np.nan
    y[5] = 98765.4321
    with pytest.raises(InvalidParameterError) as err:
        Clipper(1.0, label_bound="private").fit(X, y)
    assert "98765" not in str(err.value) and "12345" not in str(err.value)


class Untouchable:
    def __array__(self, *a, **k):  # pragma: no cover - must not be called
        raise AssertionError("the data were read")

    def __len__(self):  # pragma: no cover - must not be called
        raise AssertionError("the data were read")


@pytest.mark.parametrize(
    "kw, y, param",
    [
        (dict(epsilon=None, data_norm="private"), None, "epsilon"),
        (dict(), None, "data_norm"),
        (dict(epsilon=1.0, label_bound="private"), None, "y"),
        (dict(epsilon=1.0, data_norm=0.0), None, "data_norm"),
    ],
    ids=["no epsilon", "no bound", "no labels", "zero bound"],
)
def test_parameter_errors_are_raised_without_reading_the_data(kw, y, param):
    with pytest.raises(InvalidParameterError) as err:
        Clipper(**kw).fit(Untouchable(), y)
    assert err.value.parameter == param


def test_labels_are_not_read_unless_the_label_bound_is_private():
    y = np.full(30, np.nan)
    est = Clipper(data_norm=2.0, label_bound=1.0).fit(X0, y)
    assert est.label_bound_ == 1.0
    Clipper(1.0, data_norm="private", rng=0).fit(X0, Untouchable())


def test_budget_exceeded_draws_nothing():
    acct = Accountant(Budget(0.5))
    with Tap() as tap, pytest.raises(BudgetExceededError):
        Clipper(1.0, data_norm="private", accountant=acct).fit(X0)
    assert tap.calls == [] and acct.ledger == ()


def test_extreme_finite_rows_do_not_fail_the_fit():
    """Whether fit succeeds must not depend on the values: rows whose squares overflow or
    underflow give their true norm (or the largest float), not an error."""
    X = np.array([[1e200, 1e200], [1.7e308, -1.7e308], [1e-200, 1e-200], [0.0, 0.0], [3.0, 4.0]])
    est = Clipper(1.0, data_norm="private", rng=0).fit(X)
    assert est.data_norm_ in set(GRID.tolist())
    Z = Clipper(data_norm=5.0).fit(X).transform(X)
    assert np.all(np.isfinite(Z))
    norms = np.sqrt(np.sum((Z / 5.0) ** 2, axis=1)) * 5.0
    np.testing.assert_allclose(norms[[0, 1, 4]], 5.0, rtol=1e-14)
    np.testing.assert_array_equal(Z[2:4], X[2:4])  # inside the ball: unchanged


# --------------------------------------------------------------------------------------------
# The charge
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, shares",
    [
        (dict(data_norm="private", label_bound="private"), [0.35, 0.35]),
        (dict(data_norm="private", label_bound=2.0), [0.7]),
        (dict(label_bound="private"), [0.7]),
    ],
    ids=["both", "norm", "label"],
)
def test_charges_once_with_the_documented_label_and_split(kw, shares):
    acct = Accountant(Budget(10.0))
    est = Clipper(0.7, accountant=acct, rng=0, **kw)
    est.fit(X0, Y0)
    (entry,) = acct.ledger
    assert entry.label == "Clipper"
    assert entry.budget == Budget(0.7) == est.privacy_guarantee(30)
    assert entry.event.kind == "composed"
    parts = entry.event.params
    assert [p.kind for p in parts] == ["bounded_range"] * len(shares)
    assert [p.params[0] for p in parts] == shares
    assert sum(shares) == 0.7  # exact halves


@pytest.mark.parametrize("epsilon", [None, 1.0])
def test_declared_bounds_charge_nothing(epsilon):
    acct = Accountant(Budget(10.0))
    with Tap() as tap:
        est = Clipper(epsilon, data_norm=2.0, label_bound=1.5, accountant=acct, rng=0)
        est.fit(X0, Y0)
    assert acct.ledger == () and tap.calls == []
    assert est.privacy_guarantee(30) == Budget(0.0)
    assert (est.data_norm_, est.label_bound_) == (2.0, 1.5)


def test_privacy_guarantee_refuses_bad_parameters_and_n():
    with pytest.raises(InvalidParameterError):
        Clipper(data_norm="private").privacy_guarantee(10)
    with pytest.raises(InvalidParameterError):
        Clipper(1.0, data_norm="private").privacy_guarantee(0)


def test_default_quantiles_are_the_learners_measured_ones():
    from privlearn.learners._private_bounds import LABEL_QUANTILE, NORM_QUANTILE

    est = Clipper()
    assert (est.norm_quantile, est.label_quantile) == (NORM_QUANTILE, LABEL_QUANTILE)


# --------------------------------------------------------------------------------------------
# Transform, labels, scikit-learn conventions
# --------------------------------------------------------------------------------------------


def test_transform_is_the_documented_per_row_map():
    X = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0], [-6.0, 8.0], [2.0, 0.0]])
    est = Clipper(data_norm=2.0).fit(X)
    Z = est.transform(X)
    want = np.array([[1.2, 1.6], [0.3, 0.4], [0.0, 0.0], [-1.2, 1.6], [2.0, 0.0]])
    np.testing.assert_allclose(Z, want, rtol=1e-15)
    # each output row depends on its input row only
    Z2 = est.transform(X[[4, 0]])
    np.testing.assert_array_equal(Z2, Z[[4, 0]])
    unit = Clipper(data_norm=2.0, rescale=True).fit(X).transform(X)
    np.testing.assert_allclose(unit, want / 2.0, rtol=1e-15)
    assert est.fit_transform(X, np.arange(5.0)).shape == (5, 2)  # y is not returned


def test_label_only_clipper_leaves_rows_alone_and_clips_labels_on_request():
    est = Clipper(label_bound=1.5).fit(X0, Y0)
    np.testing.assert_array_equal(est.transform(X0), X0)
    np.testing.assert_array_equal(est.clip_labels(Y0), np.clip(Y0, -1.5, 1.5))
    with pytest.raises(InvalidParameterError) as err:
        Clipper(data_norm=1.0).fit(X0).clip_labels(Y0)
    assert err.value.parameter == "label_bound"
    with pytest.raises(InvalidParameterError) as err:
        est.clip_labels([1.0, np.nan])
    assert err.value.parameter == "y"


def test_private_bounds_then_transform_and_clip_labels():
    X, y = _data(4000, seed=9)
    est = Clipper(2.0, data_norm="private", label_bound="private", rng=1).fit(X, y)
    norms = np.linalg.norm(X, axis=1)
    # rank error of the quantile: well within 5% of n at n * share = 4000
    assert abs(np.mean(norms <= est.data_norm_) - 0.25) < 0.05
    assert abs(np.mean(np.abs(y) <= est.label_bound_) - 0.75) < 0.05
    Z = est.transform(X)
    assert np.linalg.norm(Z, axis=1).max() <= est.data_norm_ * (1 + 1e-12)
    assert np.abs(est.clip_labels(y)).max() <= est.label_bound_


def test_clone_get_params_and_shared_accountant():
    from sklearn.base import clone

    acct = Accountant(Budget(10.0))
    g = Generator(1)
    est = Clipper(1.0, data_norm="private", accountant=acct, rng=g)
    assert set(est.get_params()) == {
        "epsilon",
        "data_norm",
        "label_bound",
        "norm_quantile",
        "label_quantile",
        "rescale",
        "grid",
        "accountant",
        "rng",
    }
    twin = clone(est)
    assert twin.accountant is acct and twin.rng is g
    twin.fit(X0)
    est.fit(X0)
    assert [e.label for e in acct.ledger] == ["Clipper", "Clipper"]


def test_pandas_feature_names_and_seed_reproducibility():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(X0, columns=["age", "dose", "weight"])
    est = Clipper(1.0, data_norm="private", label_bound="private", rng=0).fit(df, pd.Series(Y0))
    assert list(est.feature_names_in_) == ["age", "dose", "weight"]
    assert list(est.get_feature_names_out()) == ["age", "dose", "weight"]
    assert est.n_features_in_ == 3 and est.n_samples_seen_ == 30
    same = Clipper(1.0, data_norm="private", label_bound="private", rng=0).fit(X0, Y0)
    assert (same.data_norm_, same.label_bound_) == (est.data_norm_, est.label_bound_)
    np.testing.assert_array_equal(est.transform(df), same.transform(X0))
    with pytest.raises(InvalidParameterError) as err:
        est.transform(df[["dose", "age", "weight"]])
    assert err.value.parameter == "X"


def test_tags():
    from sklearn.utils import get_tags

    assert get_tags(Clipper(1.0, label_bound="private")).target_tags.required
    assert not get_tags(Clipper(1.0, data_norm="private")).target_tags.required
    assert get_tags(Clipper(1.0, data_norm="private")).non_deterministic
    assert not get_tags(Clipper(1.0, data_norm="private", rng=3)).non_deterministic
    assert not get_tags(Clipper(data_norm=1.0)).non_deterministic


# --------------------------------------------------------------------------------------------
# Pipelines
# --------------------------------------------------------------------------------------------


def test_in_a_private_pipeline_before_a_private_learner():
    from privlearn.learners import AdaSSPRegressor
    from privlearn.pipeline import make_private_pipeline

    X, _ = _data(2000, seed=3)
    X = X * 50.0
    y = np.clip(X @ np.array([0.01, -0.005, 0.002]), -1.0, 1.0)
    acct = Accountant(Budget(10.0, 1e-5))
    pipe = make_private_pipeline(
        Clipper(0.5, data_norm="private", rescale=True, accountant=acct, rng=0),
        AdaSSPRegressor(1.5, delta=1e-6, data_norm=1.0, label_bound=1.0, accountant=acct, rng=1),
    )
    pipe.fit(X, y)
    assert pipe.privacy_ == Budget(2.0, 1e-6)
    assert [e.label for e in acct.ledger] == ["Clipper", "AdaSSPRegressor"]
    assert np.linalg.norm(pipe[0].transform(X), axis=1).max() <= 1.0 + 1e-12
    assert pipe.predict(X).shape == (2000,)
    assert pipe.privacy_guarantee(2000) == Budget(2.0, 1e-6)


def test_declared_clipper_in_a_pipeline_adds_nothing():
    from privlearn.learners import AdaSSPRegressor
    from privlearn.pipeline import make_private_pipeline

    acct = Accountant(Budget(10.0, 1e-5))
    pipe = make_private_pipeline(
        Clipper(data_norm=3.0, accountant=acct),
        AdaSSPRegressor(1.0, delta=1e-6, data_norm=3.0, label_bound=5.0, accountant=acct, rng=1),
    )
    pipe.fit(X0, Y0)
    assert pipe.privacy_ == Budget(1.0, 1e-6)
    assert [e.label for e in acct.ledger] == ["AdaSSPRegressor"]


@pytest.mark.parametrize("private", [True, False], ids=["private bound", "declared bound"])
def test_under_a_pipeline_accountant_the_pipeline_is_charged_once(private):
    from privlearn.learners import AdaSSPRegressor
    from privlearn.pipeline import make_private_pipeline

    acct = Accountant(Budget(10.0, 1e-5))
    clip = (
        Clipper(0.5, data_norm="private", rescale=True, rng=0)
        if private
        else Clipper(data_norm=1.0, rescale=True)
    )
    pipe = make_private_pipeline(
        clip,
        AdaSSPRegressor(1.5, delta=1e-6, data_norm=1.0, label_bound=5.0, rng=1),
        accountant=acct,
    )
    pipe.fit(X0, Y0)
    want = Budget(2.0, 1e-6) if private else Budget(1.5, 1e-6)
    assert pipe.privacy_ == want
    assert [(e.label, e.budget) for e in acct.ledger] == [("PrivatePipeline", want)]
    assert pipe[0].accountant is None
