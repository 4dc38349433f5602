"""The learned distinguisher of privlearn.audit (issue 21): ``learned_scores`` and
``audit(distinguisher=...)``.

* Isolation: the distinguisher never sees its evaluation samples (a spy classifier records what
  reaches ``fit``; for every kind, changing held-out samples leaves the other held-out scores
  bit-identical), and the scores are those of the held-out rows, in order.
* Determinism for a fixed ``rng``.
* Power where a natural one-dimensional statistic is blind (a shift along ``(1, -1)`` against
  the sum, a correlation flip against the squared norm).
* Validity with power: correct Gaussian (analytic calibration, Balle and Wang, ICML 2018,
  Theorem 8, solved in the test) and Laplace vector mechanisms are not refuted at
  ``alpha = 1e-6`` with every kind, the same mechanisms with half the noise are.
* Structured outputs (strings, mixed tuples, ragged tuples, unseen categories) and bad
  arguments (raised before anything is drawn).

Fixed seeds; every audit at ``alpha = FALSE_POSITIVE_RATE = 1e-6``. OpenMP (the boosting
classifier's threads) is limited to one thread so that the file's time does not depend on the
machine's load.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LinearRegression, LogisticRegression
from threadpoolctl import threadpool_limits

from privlearn.audit import FALSE_POSITIVE_RATE, audit, delta_lower_bound, epsilon_lower_bound
from privlearn.audit import _distinguisher as dist
from privlearn.audit._distinguisher import check_distinguisher, learned_scores
from privlearn.errors import InvalidParameterError

ALPHA = FALSE_POSITIVE_RATE
KINDS = ["logistic", "boosting", "kde", LogisticRegression()]
KIND_IDS = ["logistic", "boosting", "kde", "sklearn-LogisticRegression"]


@pytest.fixture(autouse=True)
def _one_thread():
    with threadpool_limits(1):
        yield


class Spy(ClassifierMixin, BaseEstimator):
    """A classifier recording every (X, y) passed to fit; its score is the first feature."""

    fits: list = []

    def fit(self, X, y):
        Spy.fits.append((np.array(X, copy=True), np.array(y, copy=True)))
        self.classes_ = np.array([0, 1])
        return self

    def decision_function(self, X):
        return np.asarray(X)[:, 0]


def _with_ids(n, offset, g):
    """n 2-D outputs whose first coordinate is a unique id (offset + index)."""
    return np.column_stack([offset + np.arange(n, dtype=float), g.normal(size=n)])


# --------------------------------------------------------------------------------------------
# (1) the distinguisher never sees its evaluation samples
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fraction", [0.5, 0.3])
def test_spy_fit_sees_only_training_rows_and_scores_follow_held_out_order(fraction):
    g = np.random.default_rng(0)
    na, nb = 1000, 700
    xa, xb = _with_ids(na, 0, g), _with_ids(nb, 10_000, g)
    Spy.fits.clear()
    sa, sb, what = learned_scores(xa, xb, Spy(), rng=1, train_fraction=fraction)
    ta, tb = math.floor(fraction * na), math.floor(fraction * nb)
    assert len(Spy.fits) == 1 and "Spy" in what
    assert sa.shape == (na - ta,) and sb.shape == (nb - tb,)
    # the score is an increasing affine function of the id: recover the map from the scores
    ids_out = np.concatenate([xa[ta:, 0], xb[tb:, 0]])
    scores = np.concatenate([sa, sb])
    slope, intercept = np.polyfit(ids_out, scores, 1)
    assert slope > 0
    np.testing.assert_allclose(
        scores, slope * ids_out + intercept, atol=1e-9 * np.abs(scores).max()
    )
    X, y = Spy.fits[0]
    fit_ids = np.rint((X[:, 0] - intercept) / slope)
    train_a, train_b = xa[:ta, 0], xb[:tb, 0]
    assert sorted(fit_ids.tolist()) == sorted(np.concatenate([train_a, train_b]).tolist())
    assert not set(fit_ids.tolist()) & set(ids_out.tolist())
    # labels: a = 1, b = 0
    np.testing.assert_array_equal(y, np.isin(fit_ids, train_a).astype(y.dtype))


def test_training_cap_subsamples_the_training_part_only(monkeypatch):
    monkeypatch.setattr(dist, "_MAX_TRAIN", 64)
    g = np.random.default_rng(1)
    xa, xb = _with_ids(1000, 0, g), _with_ids(1000, 10_000, g)
    Spy.fits.clear()
    sa, sb, what = learned_scores(xa, xb, Spy(), rng=2)
    assert "64 + 64 samples" in what
    assert sa.shape == (500,) and sb.shape == (500,)
    slope, intercept = np.polyfit(np.concatenate([xa[500:, 0], xb[500:, 0]]), np.r_[sa, sb], 1)
    fit_ids = np.rint((Spy.fits[0][0][:, 0] - intercept) / slope)
    assert len(set(fit_ids.tolist())) == 128
    assert set(fit_ids.tolist()) <= set(xa[:500, 0].tolist()) | set(xb[:500, 0].tolist())


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
def test_held_out_samples_do_not_influence_the_score_function(kind):
    """Changing some held-out samples (wildly) leaves the scores of the others bit-identical,
    and changes their own: the fitted function depends on the training part only, and each
    score on its own sample only."""
    g = np.random.default_rng(2)
    n = 4000
    xa, xb = g.normal(size=(n, 2)), g.normal(size=(n, 2)) + [0.5, 0.0]
    sa, sb, _ = learned_scores(xa, xb, kind, rng=3)
    ya, yb = xa.copy(), xb.copy()
    changed = np.arange(n // 2, n, 3)  # held-out rows
    ya[changed] = 50.0 + 10 * g.normal(size=(len(changed), 2))
    yb[changed] = -7.0
    ta, tb, _ = learned_scores(ya, yb, kind, rng=3)
    keep = np.setdiff1d(np.arange(n // 2, n), changed) - n // 2
    np.testing.assert_array_equal(ta[keep], sa[keep])
    np.testing.assert_array_equal(tb[keep], sb[keep])
    assert np.any(ta[changed - n // 2] != sa[changed - n // 2])
    # a change in the training part does change the function
    za = xa.copy()
    za[: n // 2] += 0.25
    ua, _, _ = learned_scores(za, xb, kind, rng=3)
    assert np.any(ua != sa)


# --------------------------------------------------------------------------------------------
# (2) determinism
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
def test_scores_are_deterministic_for_a_fixed_rng(kind):
    g = np.random.default_rng(4)
    xa, xb = g.normal(size=(6000, 3)), g.normal(size=(6000, 3)) * 1.3
    first = learned_scores(xa, xb, kind, rng=11)
    second = learned_scores(xa, xb, kind, rng=np.random.default_rng(11))
    third = learned_scores(xa, xb, kind, rng=np.random.default_rng(11))
    again = learned_scores(xa, xb, kind, rng=11)
    for u, v in ((first, again), (second, third)):
        np.testing.assert_array_equal(u[0], v[0])
        np.testing.assert_array_equal(u[1], v[1])
        assert u[2] == v[2]
    assert np.all(np.isfinite(first[0])) and first[0].dtype == np.float64


def test_user_classifiers_predict_proba_path_and_pipeline_seeding():
    """A classifier without decision_function is scored by predict_proba[:, 1]; unset
    random_state parameters (also inside a pipeline) are seeded from rng, so scores repeat."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import SGDClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    g = np.random.default_rng(20)
    xa, xb = g.normal(size=(3000, 2)) + [1.5, 0.0], g.normal(size=(3000, 2))
    forest = RandomForestClassifier(n_estimators=10, max_depth=4)
    assert not hasattr(forest, "decision_function")
    sa, sb, what = learned_scores(xa, xb, forest, rng=21)
    assert what.startswith("RandomForestClassifier")
    assert np.all((sa >= 0) & (sa <= 1)) and sa.mean() > sb.mean() + 0.2  # P(a | x), a = 1
    again = learned_scores(xa, xb, forest, rng=21)
    np.testing.assert_array_equal(again[0], sa)
    assert forest.get_params()["random_state"] is None  # the user's estimator is not modified
    pipe = make_pipeline(StandardScaler(), SGDClassifier(max_iter=20, tol=None))
    p1 = learned_scores(xa, xb, pipe, rng=22)
    p2 = learned_scores(xa, xb, pipe, rng=22)
    np.testing.assert_array_equal(p1[0], p2[0])
    assert p1[0].mean() > p1[1].mean()  # decision_function: higher on a


# --------------------------------------------------------------------------------------------
# (3) power where a natural statistic is blind
# --------------------------------------------------------------------------------------------


def _analytic_sigma(epsilon, delta, sensitivity=1.0):
    """Smallest Gaussian sigma giving (epsilon, delta)-DP at this L2 sensitivity (Balle and
    Wang, ICML 2018, Theorem 8: delta(sigma) = Phi(D/(2 sigma) - eps sigma/D)
    - e^eps Phi(-D/(2 sigma) - eps sigma/D)), solved here by bisection."""

    def excess(s):
        u, v = sensitivity / (2 * s), epsilon * s / sensitivity
        return stats.norm.cdf(u - v) - math.exp(epsilon) * stats.norm.cdf(-u - v) - delta

    return optimize.brentq(excess, 1e-3 * sensitivity, 1e3 * sensitivity, xtol=1e-12)


def _gauss(mean, cov_or_sigma):
    mean = np.asarray(mean, dtype=float)
    if np.ndim(cov_or_sigma) == 0:
        return lambda g, size: mean + g.normal(0.0, cov_or_sigma, size=(size, len(mean)))
    cov = np.asarray(cov_or_sigma, dtype=float)
    return lambda g, size: g.multivariate_normal(mean, cov, size=size)


def _laplace(mean, scale):
    mean = np.asarray(mean, dtype=float)
    return lambda g, size: mean + g.laplace(0.0, scale, size=(size, len(mean)))


EPS, DELTA = 2.0, 1e-5
SIGMA = _analytic_sigma(EPS, DELTA)
# blind pairs: (id, run_a, run_b, natural statistic that cannot tell them apart)
BLIND = [
    (  # noise for L2 sensitivity 1, neighbours 2.1 apart along (1, -1): the sum is unchanged
        "shift-along-(1,-1)-vs-sum",
        _gauss([0.0, 0.0], SIGMA),
        _gauss([1.5, -1.5], SIGMA),
        lambda y: y.sum(axis=1),
    ),
    (  # correlation +0.8 against -0.8: same marginals, same law of the squared norm
        "correlation-flip-vs-norm",
        _gauss([0.0, 0.0], [[1.0, 0.8], [0.8, 1.0]]),
        _gauss([0.0, 0.0], [[1.0, -0.8], [-0.8, 1.0]]),
        lambda y: (y**2).sum(axis=1),
    ),
]


@pytest.mark.parametrize("kind", ["logistic", "boosting"])
@pytest.mark.parametrize("case", BLIND, ids=[c[0] for c in BLIND])
def test_distinguisher_finds_a_leak_the_natural_statistic_misses(case, kind):
    _, run_a, run_b, statistic = case
    n = 100_000
    scalar = audit(run_a, run_b, (EPS, DELTA), n=n, statistic=statistic, alpha=ALPHA, rng=5)
    assert scalar.passed and scalar.bound == 0.0, str(scalar)  # the statistic is blind
    learned = audit(run_a, run_b, (EPS, DELTA), n=n, alpha=ALPHA, rng=5, distinguisher=kind)
    assert not learned.passed, str(learned)
    assert learned.quantity == "delta" and learned.bound > 100 * DELTA
    assert learned.distinguisher is not None and learned.distinguisher.startswith(kind)
    # the same through learned_scores and the scalar bounds on the scores: delta at the
    # claimed epsilon, and epsilon at the claimed delta (clearly positive where the statistic
    # gave 0; above the claim with more samples)
    xa, xb = run_a(np.random.default_rng(6), n), run_b(np.random.default_rng(7), n)
    sa, sb, _ = learned_scores(xa, xb, kind, rng=8)
    assert delta_lower_bound(sa, sb, EPS, alpha=ALPHA) > 100 * DELTA
    assert epsilon_lower_bound(sa, sb, alpha=ALPHA, delta=DELTA) > 1.5


# --------------------------------------------------------------------------------------------
# (4) correct mechanisms pass with every kind; half the noise is refuted (power check)
# --------------------------------------------------------------------------------------------

UNIT = np.array([1.0, 1.0]) / math.sqrt(2.0)  # L2 distance 1 between the neighbours' values
HALF = np.array([0.5, 0.5])  # L1 distance 1


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
def test_correct_gaussian_vector_passes_and_half_noise_is_refuted(kind):
    n = 200_000
    ok = audit(
        _gauss([0, 0], SIGMA),
        _gauss(UNIT, SIGMA),
        (EPS, DELTA),
        n=n,
        alpha=ALPHA,
        rng=9,
        distinguisher=kind,
    )
    assert ok.passed, str(ok)
    bad = audit(
        _gauss([0, 0], SIGMA / 2),
        _gauss(UNIT, SIGMA / 2),
        (EPS, DELTA),
        n=n,
        alpha=ALPHA,
        rng=9,
        distinguisher=kind,
    )
    assert not bad.passed, str(bad)


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
def test_correct_laplace_vector_passes_and_half_noise_is_refuted(kind):
    n = 100_000
    ok = audit(
        _laplace([0, 0], 1.0),
        _laplace(HALF, 1.0),
        1.0,
        n=n,
        alpha=ALPHA,
        rng=10,
        distinguisher=kind,
    )
    assert ok.passed and ok.quantity == "epsilon", str(ok)
    bad = audit(
        _laplace([0, 0], 0.5),
        _laplace(HALF, 0.5),
        1.0,
        n=n,
        alpha=ALPHA,
        rng=10,
        distinguisher=kind,
    )
    assert not bad.passed, str(bad)


# --------------------------------------------------------------------------------------------
# (5) structured outputs
# --------------------------------------------------------------------------------------------


def _rr_word(first, epsilon):
    """Randomised response on a word: ``first`` with probability e^eps / (1 + e^eps)."""
    other = "no" if first == "yes" else "yes"
    p = math.exp(epsilon) / (1 + math.exp(epsilon))
    return lambda g, size: np.where(g.random(size) < p, first, other).astype(object)


def _word_and_count(first, count, epsilon):
    """(randomised-response word, count + two-sided geometric noise), each part epsilon-DP:
    the pair is 2 epsilon-DP, and only events on both parts show more than epsilon."""
    word = _rr_word(first, epsilon)

    def run(g, size):
        w = word(g, size)
        q = math.exp(-epsilon)
        noise = g.geometric(1 - q, size) - g.geometric(1 - q, size)
        out = np.empty(size, dtype=object)
        out[:] = list(zip(w.tolist(), (count + noise).tolist()))
        return out

    return run


@pytest.mark.parametrize(
    "kind", ["logistic", LogisticRegression()], ids=["logistic", "sklearn-LogisticRegression"]
)
def test_strings_pass_at_the_right_epsilon_and_fail_below(kind):
    run_a, run_b = _rr_word("yes", 1.0), _rr_word("no", 1.0)
    ok = audit(run_a, run_b, 1.0, n=100_000, alpha=ALPHA, rng=12, distinguisher=kind)
    bad = audit(run_a, run_b, 0.6, n=100_000, alpha=ALPHA, rng=12, distinguisher=kind)
    assert ok.passed and not bad.passed, (str(ok), str(bad))


@pytest.mark.parametrize("kind", ["logistic", "boosting"])
def test_mixed_tuples_combine_both_positions(kind):
    run_a, run_b = _word_and_count("yes", 0, 1.0), _word_and_count("no", 1, 1.0)
    ok = audit(run_a, run_b, 2.0, n=50_000, alpha=ALPHA, rng=13, distinguisher=kind)
    assert ok.passed, str(ok)
    # either part alone shows at most epsilon = 1; a bound above 1.5 needs both
    bad = audit(run_a, run_b, 1.5, n=50_000, alpha=ALPHA, rng=13, distinguisher=kind)
    assert not bad.passed and bad.bound > 1.5, str(bad)


def test_ragged_tuples_and_their_length():
    def run(p):
        def draw(g, size):
            lengths = g.binomial(3, p, size)
            out = np.empty(size, dtype=object)
            out[:] = [tuple(range(k)) for k in lengths.tolist()]
            return out

        return draw

    same = audit(run(0.5), run(0.5), 0.05, n=50_000, alpha=ALPHA, rng=14, distinguisher="logistic")
    assert same.passed, str(same)
    # P(length 3) is 0.729 against 0.001: the epsilon is ln(729) = 6.6
    leak = audit(run(0.9), run(0.1), 3.0, n=50_000, alpha=ALPHA, rng=14, distinguisher="logistic")
    assert not leak.passed and leak.bound > 3.0, str(leak)


def test_unseen_categories_map_to_other_and_multidimensional_arrays_flatten():
    g = np.random.default_rng(15)
    xa = np.array(["x", "y"] * 500, dtype=object)
    xb = np.array(["y", "y", "x", "y"] * 250, dtype=object)
    ya, yb = xa.copy(), xb.copy()
    ya[600:700] = "never seen"
    for i in range(900, 1000):
        yb[i] = ("another", 1)
    sa, sb, _ = learned_scores(xa, xb, "logistic", rng=16)
    ua, ub, _ = learned_scores(ya, yb, "logistic", rng=16)
    assert np.all(np.isfinite(ua)) and np.all(np.isfinite(ub))
    np.testing.assert_array_equal(np.r_[ua[:100], ua[200:]], np.r_[sa[:100], sa[200:]])
    # every unseen value gets the "other" score
    assert len(set(ua[100:200].tolist()) | set(ub[400:].tolist())) == 1
    # numbers in a string array: unicode arrays are categorical too
    va, vb, _ = learned_scores(xa.astype(str), xb.astype(str), "boosting", rng=16)
    assert va.shape == (500,) and vb.shape == (500,)
    # (n, 2, 2) numeric outputs are flattened to 4 features
    za, zb = g.normal(size=(2000, 2, 2)), g.normal(size=(2000, 2, 2))
    for kind in KINDS:
        s1, s2, what = learned_scores(za, zb, kind, rng=17)
        assert s1.shape == (1000,) and s2.shape == (1000,) and "4" in what


def test_infinite_outputs_get_finite_scores():
    g = np.random.default_rng(18)
    xa, xb = g.normal(size=(4000, 2)), g.normal(size=(4000, 2))
    xa[::7, 0] = np.inf
    xb[::5, 1] = -np.inf
    for kind in KINDS:
        sa, sb, _ = learned_scores(xa, xb, kind, rng=19)
        assert np.all(np.isfinite(sa)) and np.all(np.isfinite(sb))


def test_degenerate_coordinates_and_discrete_outputs():
    """Constant and collinear coordinates (a singular covariance) and integer outputs."""
    g = np.random.default_rng(23)
    u, v = g.normal(size=4000), g.normal(size=4000) + 0.5
    xa = np.column_stack([u, 2 * u, np.ones(4000)])
    xb = np.column_stack([v, 2 * v, np.ones(4000)])
    ia, ib = g.integers(0, 3, size=(4000, 2)), g.integers(0, 4, size=(4000, 2))
    for kind in KINDS:
        sa, sb, _ = learned_scores(xa, xb, kind, rng=24)
        assert np.all(np.isfinite(sa)) and sa.mean() > sb.mean()
        ta, tb, _ = learned_scores(ia, ib, kind, rng=24)
        assert np.all(np.isfinite(ta)) and ta.mean() > tb.mean()


# --------------------------------------------------------------------------------------------
# (6) bad arguments, raised before anything is drawn
# --------------------------------------------------------------------------------------------


class _Unclonable(BaseEstimator):
    def __init__(self, a=1):
        self.b = a  # breaks clone's parameter round trip

    def fit(self, X, y):
        return self

    def predict_proba(self, X):
        return np.zeros((len(X), 2))


@pytest.mark.parametrize(
    "bad",
    ["nope", "Logistic", 3, 0.5, object(), LogisticRegression, LinearRegression(), _Unclonable()],
    ids=["unknown", "case", "int", "float", "object", "class", "regressor", "unclonable"],
)
def test_bad_distinguisher_is_refused_before_drawing(bad):
    with pytest.raises(InvalidParameterError) as err:
        check_distinguisher(bad)
    assert err.value.parameter == "distinguisher"
    calls = []

    def run(g, size):
        calls.append(size)
        return g.normal(size=(size, 2))

    with pytest.raises(InvalidParameterError) as err:
        audit(run, run, 1.0, n=1000, rng=0, distinguisher=bad)
    assert err.value.parameter == "distinguisher" and calls == []


def test_valid_specs_and_learned_scores_arguments():
    for spec in ("logistic", "boosting", "kde"):
        assert check_distinguisher(spec) == spec
    est = LogisticRegression(C=0.5)
    assert check_distinguisher(check_distinguisher(est)) is est
    assert check_distinguisher(None) is None
    x = np.random.default_rng(0).normal(size=(100, 2))
    with pytest.raises(InvalidParameterError, match="distinguisher"):
        learned_scores(x, x, None, rng=0)
    for fraction in (0.0, 1.0, 1.5, float("nan"), "half"):
        with pytest.raises(InvalidParameterError) as err:
            learned_scores(x, x, "logistic", rng=0, train_fraction=fraction)
        assert err.value.parameter == "train_fraction"
    with pytest.raises(InvalidParameterError) as err:
        learned_scores(x[:1], x, "logistic", rng=0)  # no training sample on side a
    assert err.value.parameter == "train_fraction"
    bad = x.copy()
    bad[3, 1] = np.nan
    with pytest.raises(InvalidParameterError) as err:
        learned_scores(bad, x, "logistic", rng=0)
    assert err.value.parameter == "samples_a"
    # kde: numeric outputs of at most 5 dimensions
    with pytest.raises(InvalidParameterError) as err:
        learned_scores(np.zeros((100, 6)), np.ones((100, 6)), "kde", rng=0)
    assert err.value.parameter == "distinguisher"
    words = np.array(["a", "b"] * 50, dtype=object)
    with pytest.raises(InvalidParameterError, match="kde"):
        learned_scores(words, words, "kde", rng=0)
