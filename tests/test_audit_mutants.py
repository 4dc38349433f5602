"""Tests that pin behaviour of the auditor (issue 21) found untested by mutation testing
(``scripts/mutation py-audit --in-diff 8757f02 --sample 30``; the survivors and why each test
kills its mutant are listed in scripts/mutation-survivors.md, "Issue 21: the auditor").

Expected values are derived here, independently of the module's helpers: Clopper--Pearson
bounds from :func:`scipy.stats.beta` quantiles, the documented defaults and names of the public
functions, the candidate pairs as the docstring of ``neighbour_candidates`` lists them, and the
report's documented layout. Everything is deterministic (fixed seeds or fixed samples)."""

from __future__ import annotations

import inspect
import math
import os
from pathlib import Path
from typing import Any, List, Tuple

import numpy as np
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression

from privlearn.accounting import Budget
from privlearn.audit import (
    Domain,
    GaussianDP,
    audit,
    audit_prediction_privacy,
    delta_lower_bound,
    epsilon_lower_bound,
    neighbour_candidates,
    tradeoff_curve,
    write_report,
)
from privlearn.errors import InvalidParameterError


def _cp_lo(k: int, n: int, a: float) -> float:
    """One-sided Clopper--Pearson lower bound at level a (the a-quantile of Beta(k, n-k+1))."""
    return 0.0 if k == 0 else float(stats.beta.ppf(a, k, n - k + 1))


def _cp_hi(k: int, n: int, a: float) -> float:
    """One-sided Clopper--Pearson upper bound at level a."""
    return 1.0 if k == n else float(stats.beta.ppf(1.0 - a, k + 1, n - k))


def _laplace(centre: float) -> Any:
    return lambda g, size: centre + g.laplace(0.0, 1.0, size=size)


# --------------------------------------------------------------------------------------------
# _engine: explicit event families
# --------------------------------------------------------------------------------------------


def test_explicit_threshold_reports_the_complement_event_in_the_b_direction():
    """The best test is ``x > 0.5`` with ``b`` as numerator: the event is reported as the
    complement, with the counts of the complement on each side, and the bound is
    ``ln(lo P_b(x > 0.5) / hi P_a(x > 0.5))`` with the Bonferroni level ``alpha / 4`` (one
    event: lower and upper bounds of both sides)."""
    a = np.array([0.0] * 990 + [1.0] * 10)
    b = np.array([0.0] * 500 + [1.0] * 500)
    alpha = 1e-3
    got = audit(
        lambda g, size: a[:size],
        lambda g, size: b[:size],
        0.1,
        n=1000,
        alpha=alpha,
        events=[0.5],
        rng=0,
    )
    ev = got.event
    assert ev is not None
    assert ev.description == "not (x <= 0.5)"
    assert ev.numerator == "b"
    assert (ev.count_a, ev.count_b, ev.n_a, ev.n_b) == (10, 500, 1000, 1000)
    a_each = alpha / 4
    want = math.log(_cp_lo(500, 1000, a_each) / _cp_hi(10, 1000, a_each))
    assert got.bound == pytest.approx(want, rel=1e-6)
    assert epsilon_lower_bound(a, b, alpha=alpha, events=[0.5]) == pytest.approx(want, rel=1e-6)


# --------------------------------------------------------------------------------------------
# _distinguisher: records that do not fit the training structure
# --------------------------------------------------------------------------------------------


def _records(rows: List[Any]) -> np.ndarray:
    out = np.empty(len(rows), dtype=object)
    for i, r in enumerate(rows):
        out[i] = r
    return out


def test_held_out_records_of_another_length_score_as_the_training_mean():
    """Training records are pairs of numbers. The documented encoding gives a held-out output
    without that structure (a 1-tuple, a 3-tuple) the training mean in every numeric
    position, so it scores exactly like the pair at the training mean (computed here from the
    training part: the first half of each side)."""
    from privlearn.audit._distinguisher import learned_scores

    g = np.random.default_rng(5)
    n = 400
    pa = [tuple(v) for v in g.normal(0.0, 1.0, (n, 2)).tolist()]
    pb = [tuple(v) for v in g.normal(1.0, 1.0, (n, 2)).tolist()]
    mean = np.array(pa[: n // 2] + pb[: n // 2]).mean(axis=0)
    pa[-3:] = [(1.0,), (50.0, 70.0, 90.0), tuple(mean.tolist())]
    sa, sb, _ = learned_scores(_records(pa), _records(pb), "logistic", 0)
    assert len(sa) == len(sb) == n // 2
    assert np.all(np.isfinite(sa))
    assert sa[-3] == pytest.approx(sa[-1], abs=1e-9)
    assert sa[-2] == pytest.approx(sa[-1], abs=1e-9)
    assert np.ptp(sa[:-3]) > 0.1  # the mean's score is not the only score


class _Feature(ClassifierMixin, BaseEstimator):
    """A probe "classifier" whose score is one encoded feature (it learns nothing)."""

    def __init__(self, column: int = 0):
        self.column = column

    def fit(self, X: Any, y: Any) -> "_Feature":
        self.classes_ = np.array([0, 1])
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        return np.asarray(X)[:, self.column]


def test_encoding_centres_a_constant_column_and_puts_infinities_beyond_the_range():
    """Numeric features are standardised with the training mean and standard deviation; a
    column constant in training is only centred (a held-out value 2 above the constant is 2,
    not an infinite z-score), and infinities are replaced just beyond the training range:
    +inf above the largest training value, -inf below the smallest."""
    from privlearn.audit._distinguisher import learned_scores

    n = 200
    g = np.random.default_rng(6)
    xa = np.column_stack([np.full(n, 3.0), g.normal(0.0, 1.0, n)])
    xb = np.column_stack([np.full(n, 3.0), g.normal(1.0, 1.0, n)])
    xa[n // 2 :: 3, 0] = 5.0  # held out only
    sa, _, _ = learned_scores(xa, xb, _Feature(0), 0)
    held = xa[n // 2 :, 0]
    np.testing.assert_array_equal(sa, held - 3.0)

    train = np.concatenate([xa[: n // 2, 1], xb[: n // 2, 1]])
    mean, sd = train.mean(), train.std()
    xa[-2:, 1] = [np.inf, -np.inf]
    sa, _, _ = learned_scores(xa, xb, _Feature(1), 0)
    np.testing.assert_allclose(sa[:-2], (xa[n // 2 : -2, 1] - mean) / sd, rtol=1e-12)
    z_lo, z_hi = (train.min() - mean) / sd, (train.max() - mean) / sd
    assert z_hi < sa[-2] < 1e6 and -1e6 < sa[-1] < z_lo


def test_logistic_distinguisher_is_logistic_regression_on_standardised_quadratic_features():
    """The documented "logistic" kind, rebuilt here with scikit-learn: training part
    standardised (mean and deviation of both sides' training rows), squares and pairwise
    products appended (d = 2 <= 8), each feature standardised, LogisticRegression fitted with
    labels a = 1, b = 0; the score is its decision function on the held-out rows."""
    from privlearn.audit._distinguisher import learned_scores

    g = np.random.default_rng(7)
    n, d = 2_000, 2
    xa = g.normal(0.0, 1.0, (n, d))
    xb = g.normal(0.0, 1.0, (n, d)) * [1.0, 3.0] + [0.5, 0.0]
    sa, sb, what = learned_scores(xa, xb, "logistic", 0)
    assert what.startswith("logistic: logistic regression on 2 numeric features with their")

    t = n // 2
    raw = np.vstack([xa[:t], xb[:t]])
    m, s = raw.mean(axis=0), raw.std(axis=0)

    def features(x: np.ndarray) -> np.ndarray:
        z = (x - m) / s
        i, j = np.triu_indices(d)
        return np.hstack([z, z[:, i] * z[:, j]])

    F = features(raw)
    mu, sd = F.mean(axis=0), F.std(axis=0)
    y = np.concatenate([np.ones(t), np.zeros(t)])
    model = LogisticRegression(max_iter=1000).fit((F - mu) / sd, y)
    np.testing.assert_allclose(
        sa, model.decision_function((features(xa[t:]) - mu) / sd), rtol=1e-6, atol=1e-9
    )
    np.testing.assert_allclose(
        sb, model.decision_function((features(xb[t:]) - mu) / sd), rtol=1e-6, atol=1e-9
    )


def test_logistic_description_names_numeric_and_one_hot_features():
    """Records (number, word): one numeric position (squares and products added) and one
    categorical position with one column per training word plus "other"."""
    from privlearn.audit._distinguisher import learned_scores

    g = np.random.default_rng(8)
    n = 300
    words = ["x", "y", "z"]
    xa = _records([(float(v), words[i % 3]) for i, v in enumerate(g.normal(0.0, 1.0, n))])
    xb = _records([(float(v), words[i % 2]) for i, v in enumerate(g.normal(1.0, 1.0, n))])
    _, _, what = learned_scores(xa, xb, "logistic", 0)
    assert what.startswith(
        "logistic: logistic regression on 1 numeric features with their squares and products "
        "and 4 one-hot columns;"
    )


def test_wide_outputs_train_on_at_most_four_million_values_per_side():
    """4000 features: at most 4 * 10^6 / 4000 = 1000 training rows per side (the documented
    floor of 1000 rows), a random subset of the 1008-row training part of each side."""
    from privlearn.audit._distinguisher import learned_scores

    g = np.random.default_rng(9)
    n, w = 1120, 4000
    xa = g.integers(0, 2, (n, w)).astype(bool)
    xb = g.integers(0, 2, (n, w)).astype(bool)
    sa, sb, what = learned_scores(xa, xb, _Feature(0), 0, train_fraction=0.9)
    assert what.endswith("fitted on 1000 + 1000 samples")
    assert len(sa) == len(sb) == n - 1008


# --------------------------------------------------------------------------------------------
# _audit
# --------------------------------------------------------------------------------------------


def test_tradeoff_audit_names_the_side_with_non_numeric_outputs():
    def numbers(g: Any, size: int) -> np.ndarray:
        return g.normal(size=size)

    def words(g: Any, size: int) -> np.ndarray:
        return np.array(["x", "y"])[g.integers(0, 2, size)]

    for run_a, run_b, side in ((numbers, words, "run_b"), (words, numbers, "run_a")):
        with pytest.raises(InvalidParameterError) as err:
            audit(run_a, run_b, GaussianDP(1.0), n=100, rng=0)
        assert err.value.parameter == "method"
        assert f"but {side} gives" in str(err.value)


def test_a_value_seen_once_while_ordering_is_still_a_candidate_event():
    """Unordered outputs: 50 common values on both sides and a value "leak" that only input a
    produces. In the first half of the selection split (the first 5% of the samples, which
    order the values by likelihood ratio) "leak" occurs once; afterwards it is half of a's
    outputs. The single-value event {leak} must be a candidate: the bound is then that of
    the held-out counts 4500/9000 against 0/9000, with a Bonferroni level between alpha / 16
    (8 tests kept) and alpha / 2 (one)."""
    n, alpha = 10_000, 1e-3
    a = [f"c{i % 50}" for i in range(500)] + [
        "leak" if i % 2 == 0 else f"c{(i // 2) % 50}" for i in range(500, n)
    ]
    a[0] = "leak"
    b = [f"c{i % 50}" for i in range(n)]
    got = epsilon_lower_bound(np.array(a), np.array(b), alpha=alpha)
    held = 9_000
    k = sum(1 for v in a[1000:] if v == "leak")
    assert k == 4_500

    def bound(level: float) -> float:
        return math.log(_cp_lo(k, held, level) / _cp_hi(0, held, level))

    assert bound(alpha / 16) * (1 - 1e-6) <= got <= bound(alpha / 2) * (1 + 1e-6)


def test_likelihood_ratio_ties_keep_the_cells_order():
    """Unordered values v00..v39. In the first half of the selection split, the even values
    all have the same estimated ratio P_a / P_b (a tie) and the odd ones a lower one. Later,
    the first ten even values (G) are three times likelier on a, the other even values twice
    likelier on b. The ratio sets are prefixes of the cells ranked by the estimated ratio,
    ties in the cells' (sorted) order, so G is a candidate, and the bound is that of G's
    held-out counts 5400/9000 against 1800/9000 (Bonferroni level between alpha / 16 and
    alpha / 2)."""
    names = [f"v{j:02d}" for j in range(40)]
    even, odd = names[0::2], names[1::2]
    good, other = even[:10], even[10:]
    first_a = [v for v in even for _ in range(15)] + [v for v in odd for _ in range(10)]
    first_b = [v for v in even for _ in range(5)] + [v for v in odd for _ in range(20)]
    cycle_a = [v for v in good for _ in range(12)] + [v for v in other for _ in range(2)]
    cycle_a += [v for v in odd for _ in range(3)]
    cycle_b = [v for v in even for _ in range(4)] + [v for v in odd for _ in range(6)]
    assert len(first_a) == len(first_b) == 500 and len(cycle_a) == len(cycle_b) == 200
    n, alpha = 10_000, 1e-3
    a = first_a + [cycle_a[i % 200] for i in range(500, n)]
    b = first_b + [cycle_b[i % 200] for i in range(500, n)]
    got = epsilon_lower_bound(np.array(a), np.array(b), alpha=alpha)
    ka = sum(1 for v in a[1000:] if v in good)
    kb = sum(1 for v in b[1000:] if v in good)
    assert (ka, kb) == (5_400, 1_800)

    def bound(level: float) -> float:
        return math.log(_cp_lo(ka, 9_000, level) / _cp_hi(kb, 9_000, level))

    assert bound(alpha / 16) * (1 - 1e-6) <= got <= bound(alpha / 2) * (1 + 1e-6)


def test_twenty_samples_per_side_still_choose_events():
    """n = 20: the selection split has 2 samples per side (one orders, one scores), the other
    18 are held out. Disjoint outputs give the bound ln(lo(18/18) / hi(0/18)) at a Bonferroni
    level between alpha / 16 and alpha / 2."""
    alpha = 0.1
    got = epsilon_lower_bound(np.zeros(20), np.ones(20), alpha=alpha)

    def bound(level: float) -> float:
        return math.log(_cp_lo(18, 18, level) / _cp_hi(0, 18, level))

    assert bound(alpha / 16) > 1.0
    assert bound(alpha / 16) * (1 - 1e-6) <= got <= bound(alpha / 2) * (1 + 1e-6)


def test_three_dimensional_outputs_are_refused_naming_samples_a():
    a = np.zeros((10, 2, 2), dtype=np.int64)
    b = np.zeros((10, 2), dtype=np.int64)
    with pytest.raises(InvalidParameterError) as err:
        epsilon_lower_bound(a, b)
    assert err.value.parameter == "samples_a"
    assert str(err.value).startswith("samples_a: outputs must be scalars or vectors")


# --------------------------------------------------------------------------------------------
# _lower_bound: documented defaults
# --------------------------------------------------------------------------------------------


def test_delta_lower_bound_default_alpha_is_one_in_a_thousand():
    g = np.random.default_rng(3)
    a = g.laplace(0.0, 1.0, 20_000)
    b = g.laplace(1.0, 1.0, 20_000)
    default = inspect.signature(delta_lower_bound).parameters["alpha"].default
    assert default == 1e-3
    assert delta_lower_bound(a, b, 0.5) == delta_lower_bound(a, b, 0.5, alpha=1e-3)


# --------------------------------------------------------------------------------------------
# _claims._claim (the (epsilon, delta) parser of audit_prediction_privacy)
# --------------------------------------------------------------------------------------------


def _half_ones(X: Any) -> np.ndarray:
    return (np.arange(len(X)) % 2).astype(np.int64)


def test_prediction_audit_takes_epsilon_delta_claims_and_refuses_gaussian_dp():
    X = np.zeros((1, 1))
    res = audit_prediction_privacy(_half_ones, _half_ones, X, Budget(1.0, 0.0), n=100)
    assert (res.claimed_epsilon, res.claimed_delta, res.passed) == (1.0, 0.0, True)
    res = audit_prediction_privacy(_half_ones, _half_ones, X, (0.5, 0.25), n=100)
    assert (res.claimed_epsilon, res.claimed_delta) == (0.5, 0.25)
    with pytest.raises(InvalidParameterError) as err:
        audit_prediction_privacy(_half_ones, _half_ones, X, GaussianDP(1.0), n=100)
    assert err.value.parameter == "claimed"


# --------------------------------------------------------------------------------------------
# _tradeoff
# --------------------------------------------------------------------------------------------


def test_downsampled_needs_two_points_and_keeps_both_ends():
    g = np.random.default_rng(4)
    curve = tradeoff_curve(g.normal(1.0, 1.0, 5_000), g.normal(0.0, 1.0, 5_000))
    assert len(curve.type1) > 2
    for bad in (1, 0):
        with pytest.raises(InvalidParameterError) as err:
            curve.downsampled(bad)
        assert err.value.parameter == "max_points"
    two = curve.downsampled(2)
    assert two.type1.tolist() == [curve.type1[0], curve.type1[-1]]
    assert two.type2.tolist() == [curve.type2[0], curve.type2[-1]]


def test_tradeoff_curve_names_bad_samples_b():
    for bad in (np.zeros((4, 2)), [0.0, math.nan], ["a", "b"]):
        with pytest.raises(InvalidParameterError) as err:
            tradeoff_curve([0.0, 1.0], bad)
        assert err.value.parameter == "samples_b"
        assert str(err.value).startswith("samples_b:")


# --------------------------------------------------------------------------------------------
# _neighbours
# --------------------------------------------------------------------------------------------


def test_neighbour_candidates_names_a_bad_notion():
    with pytest.raises(InvalidParameterError) as err:
        neighbour_candidates(Domain(0.0, 1.0, rows=2), notion="add-one")
    assert err.value.parameter == "notion"


def test_add_remove_candidates_include_the_corners_of_the_box():
    """With two columns, the empty dataset against one row at each corner (bits: 1 = upper);
    corners 00 and 11 are the lower and upper rows, listed once as ``empty-vs-low`` and
    ``empty-vs-high``."""
    pairs = {
        name: (a, b)
        for name, a, b in neighbour_candidates(
            Domain([0.0, -1.0], [1.0, 2.0], rows=2), notion="add-remove"
        )
    }
    assert "empty-vs-corner 00" not in pairs and "empty-vs-corner 11" not in pairs
    assert pairs["empty-vs-low"][1].tolist() == [[0.0, -1.0]]
    assert pairs["empty-vs-high"][1].tolist() == [[1.0, 2.0]]
    for bits, row in (("01", [0.0, 2.0]), ("10", [1.0, -1.0])):
        a, b = pairs[f"empty-vs-corner {bits}"]
        assert a.shape == (0, 2)
        assert b.tolist() == [row]


# --------------------------------------------------------------------------------------------
# _report
# --------------------------------------------------------------------------------------------


def _laplace_result(**kwargs: Any) -> Any:
    return audit(_laplace(0.0), _laplace(1.0), 1.0, n=20_000, rng=0, **kwargs)


def test_markdown_report_has_an_event_row(tmp_path: Path):
    res = _laplace_result()
    assert res.event is not None
    text = write_report(res, tmp_path)["markdown"].read_text()
    assert f"| event | {str(res.event).replace('|', '/')} |" in text.splitlines()


def test_report_files_are_renamed_from_temporaries_in_the_output_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Atomic writes: each file is written to a temporary file in the output directory (the
    same file system) and renamed into place."""
    moves: List[Tuple[str, str]] = []
    real_replace = os.replace

    def spy(src: Any, dst: Any) -> None:
        moves.append((os.fspath(src), os.fspath(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    out = tmp_path / "report"
    paths = write_report(_laplace_result(), out)
    assert sorted(Path(d).name for _, d in moves) == sorted(p.name for p in paths.values())
    for src, dst in moves:
        assert Path(src).parent == Path(dst).parent == out
        assert Path(src).name.startswith("." + Path(dst).name + ".")
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in paths.values())


def test_tradeoff_plot_shows_the_band_as_points_and_labels_its_axes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    pytest.importorskip("matplotlib")
    import matplotlib.figure

    figures: List[Any] = []

    class Keep(matplotlib.figure.Figure):  # records the figures the report draws
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            figures.append(self)

    monkeypatch.setattr(matplotlib.figure, "Figure", Keep)
    gauss = [lambda g, size, c=c: c + g.normal(0.0, 1.0, size=size) for c in (0.0, 1.0)]
    res = audit(gauss[0], gauss[1], GaussianDP(1.0), n=20_000, rng=0)
    paths = write_report(res, tmp_path)
    assert "plot" in paths and paths["plot"].read_bytes().startswith(b"\x89PNG")
    (fig,) = figures
    (ax,) = fig.axes
    assert ax.get_xlabel() == "type I error" and ax.get_ylabel() == "type II error"
    claim_line, empirical, bounds = ax.lines
    assert claim_line.get_marker() in ("None", None, "")
    for line in (empirical, bounds):  # the tests are points, not a polyline
        assert line.get_marker() == "." and line.get_linestyle() == "None"
    assert "![trade-off curve](tradeoff.png)" in paths["markdown"].read_text()
