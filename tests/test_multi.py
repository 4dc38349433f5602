"""privlearn.multi: seed 002's multi-concept learners.

* Accuracy: the parity and point multi-learners learn k = 1000 concepts with the sample size that
  serves k = 1 (their theory sample sizes at failure probability 1e-7 per run, so these
  deterministic, seeded checks would fail by chance with probability below 1e-6); the same
  check on the basic strategy (a broken "multi-learner" for this purpose) fails.
* Accounting: the independent learner's guarantee equals compose_basic / compose_advanced of the
  per-concept budgets, the composite learners charge one total once, and refusals charge nothing
  and draw nothing.
* Privacy audits on neighbouring databases that differ in one row's k labels (privlearn.audit,
  alpha = 1e-6), each with a power check: the same audit catches a broken variant.
* Bad input: clear errors naming the parameter, before anything is drawn.
"""

from __future__ import annotations

import doctest
import importlib
import math
import pkgutil
from fractions import Fraction

import numpy as np
import pytest

import privlearn.multi as multi
from privlearn import BudgetExceededError, InvalidParameterError
from privlearn.accounting import Accountant, Budget, compose_advanced, compose_basic
from privlearn.accounting._bounded_range import compose_bounded_range
from privlearn.audit import audit
from privlearn.datasets import make_concept_sample
from privlearn.hypotheses import FiniteClass, Parities, Parity, Point, Points, Thresholds
from privlearn.multi import (
    ZERO,
    ExponentialLearner,
    IndependentMultiLearner,
    NonPrivateMultiLearner,
    ParityMultiLearner,
    PointMultiLearner,
    SanitizerMultiLearner,
    StableParityLearner,
    StablePointLearner,
    mwem,
    parity_sample_size,
    per_concept_budget,
    points_sample_size,
    stability_histogram,
)
from privlearn.random import Generator

ALPHA = 1e-6
N_AUDIT = 6000  # fits per side: the real learners pass and the broken ones fail with a wide margin


def test_doctests_and_docstrings():
    # privlearn.multi is a package: its doctests live in the private modules too.
    parts = [
        importlib.import_module(f"{multi.__name__}.{m.name}")
        for m in pkgutil.iter_modules(multi.__path__)
    ]
    attempted = 0
    for module in [multi, *parts]:
        assert module.__doc__, module.__name__
        result = doctest.testmod(
            module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
        )
        assert result.failed == 0, module.__name__
        attempted += result.attempted
    assert attempted > 0
    for name in multi.__all__:
        obj = getattr(multi, name)
        if callable(obj):
            assert obj.__doc__, name
    for cls in (
        IndependentMultiLearner,
        SanitizerMultiLearner,
        ParityMultiLearner,
        PointMultiLearner,
    ):
        doc = cls.__doc__
        assert "Privacy" in doc and "replace-one" in doc and "Bun, Nissim and Stemmer" in doc, cls


# ------------------------------------------------------------------------------------------
# Accuracy with the sample size that serves one concept
# ------------------------------------------------------------------------------------------


def test_parity_learner_learns_1000_concepts_with_the_sample_that_serves_one():
    dim, eps, delta = 16, 1.0, 1e-6
    n = parity_sample_size(dim, eps, delta, beta=1e-7)  # the same n for every k
    for seed in range(2):
        for k in (1, 1000):
            data = make_concept_sample(Parities(dim), n, n_concepts=k, rng=100 * seed + k)
            learner = ParityMultiLearner(dim, eps, delta, rng=seed).fit(data.X, data.y)
            assert learner.released_ and learner.hypotheses_ == data.targets, (seed, k)
            assert learner.predict(data.X).shape == (n, k)
            assert np.array_equal(learner.predict(data.X), data.y)


def test_parity_power_check_the_basic_strategy_fails_at_that_sample_size():
    # The same check fails for the basic strategy (SearchParities per concept, budget split):
    # at k = 1000 each concept gets epsilon / 1000 and nothing is released.
    dim, eps, delta = 16, 1.0, 1e-6
    n = parity_sample_size(dim, eps, delta, beta=1e-7)
    data = make_concept_sample(Parities(dim), n, n_concepts=1000, rng=5)
    basic = IndependentMultiLearner(StableParityLearner(dim), eps, delta, rng=0).fit(data.X, data.y)
    assert basic.hypotheses_ != data.targets
    assert np.mean(basic.errors(data.X, data.y) > 0.25) > 0.99


def _zipf_points(M: int, n: int, seed: int):
    g = np.random.default_rng(seed)
    w = 1.0 / np.arange(1, M + 1)
    w /= w.sum()
    return w, g.choice(M, size=n, p=w)


def _point_errors(hyps, targets, w):
    """Exact population errors of point hypotheses against point targets under weights w."""
    out = []
    for h, t in zip(hyps, targets):
        if isinstance(h, Point) and h.p == t:
            out.append(0.0)
        elif isinstance(h, Point):
            out.append(w[t] + w[h.p])
        else:
            assert h is ZERO
            out.append(w[t])
    return np.array(out)


def test_point_learner_learns_1000_concepts_with_the_sample_that_serves_one():
    alpha, eps, delta, M = 0.1, 1.0, 1e-6, 1000
    n = points_sample_size(alpha, eps, delta, beta=1e-7)
    for seed in range(2):
        w, X = _zipf_points(M, n, seed)
        for k in (1, 1000):
            targets = np.random.default_rng(7 + seed).integers(0, 30, size=k)  # heavy and light
            Y = X[:, None] == targets[None, :]
            learner = PointMultiLearner(eps, delta, alpha, rng=seed).fit(X, Y)
            err = _point_errors(learner.hypotheses_, targets, w)
            assert err.max() <= alpha, (seed, k, err.max())
            assert learner.released_
            assert np.array_equal(learner.predict(X), Y & (err == 0)[None, :])


def test_point_power_check_the_basic_strategy_fails_at_that_sample_size():
    alpha, eps, delta, M = 0.1, 1.0, 1e-6, 1000
    n = points_sample_size(alpha, eps, delta, beta=1e-7)
    w, X = _zipf_points(M, n, 0)
    targets = np.random.default_rng(7).integers(0, 30, size=1000)
    Y = X[:, None] == targets[None, :]
    basic = IndependentMultiLearner(StablePointLearner(alpha), eps, delta, rng=0).fit(X, Y)
    assert _point_errors(basic.hypotheses_, targets, w).max() > alpha


def test_theory_sample_sizes():
    assert parity_sample_size(20, 1.0, 1e-6) == 2737  # the notes' example (T = 119)
    assert multi.parity_subsamples(1.0, 1e-6, 1e-7) > multi.parity_subsamples(1.0, 1e-6, 0.05)
    assert multi.parity_subsamples(0.1, 1e-6) > multi.parity_subsamples(1.0, 1e-6)
    a = points_sample_size(0.1, 1.0, 1e-6)
    assert points_sample_size(0.05, 1.0, 1e-6) > a and points_sample_size(0.1, 0.5, 1e-6) > a
    assert multi.exponential_sample_size(256, 0.1, 0.001, k=1000) > multi.exponential_sample_size(
        256, 0.1, 1.0
    )
    with pytest.raises(InvalidParameterError, match="beta"):
        parity_sample_size(4, 1.0, 1e-6, beta=0.0)


# ------------------------------------------------------------------------------------------
# Accounting
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 7, 1000])
def test_per_concept_budget_matches_the_composition_theorems(k):
    each, total = per_concept_budget(1.0, 0.0, k)
    assert total == compose_basic([each] * k) and total <= Budget(1.0)
    each, total = per_concept_budget(1.0, 1e-6, k, pure=False)
    assert total == compose_basic([each] * k) and total <= Budget(1.0, 1e-6)
    for pure in (True, False):
        each, total = per_concept_budget(1.0, 1e-6, k, composition="advanced", pure=pure)
        slack = 1e-6 if pure else 5e-7
        assert each.delta == (0.0 if pure else (Budget(0.0, 1e-6) / (2 * k)).delta)
        assert total == compose_advanced(each, k, slack)
        assert total <= Budget(1.0, 1e-6)
        # The split is tight: the next double up would exceed the total epsilon.
        up = Budget(math.nextafter(each.epsilon, math.inf), each.delta)
        assert compose_advanced(up, k, slack).epsilon > 1.0
    advanced = per_concept_budget(1.0, 1e-6, k, composition="advanced")[0].epsilon
    # Advanced composition beats basic only for k above about 2 ln(1/delta').
    assert (advanced > 1.0 / k) == (k > 2 * math.log(1e6))


def test_independent_learner_accounting_equals_composition():
    data = make_concept_sample(Parities(4), 200, n_concepts=9, rng=1)
    for composition, delta in (("basic", 0.0), ("advanced", 1e-6)):
        acct = Accountant(Budget(2.0, 1e-5))
        learner = IndependentMultiLearner(
            Parities(4), 1.0, delta, composition=composition, accountant=acct, rng=2
        )
        learner.fit(data.X, data.y)
        each = learner.per_concept_
        expected = (
            compose_basic([each] * 9) if composition == "basic" else compose_advanced(each, 9, 1e-6)
        )
        assert learner.privacy_ == expected
        assert acct.spent == expected and len(acct.ledger) == 1
    acct = Accountant(Budget(2.0, 1e-5))
    learner = IndependentMultiLearner(
        StableParityLearner(4), 1.0, 1e-6, composition="advanced", accountant=acct, rng=2
    )
    learner.fit(data.X, data.y)
    assert learner.privacy_ == compose_advanced(learner.per_concept_, 9, 5e-7) == acct.spent


def test_composite_learners_charge_one_total_once():
    w, X = _zipf_points(16, 400, 3)
    Y = X[:, None] == np.arange(5)[None, :]
    acct = Accountant(Budget(10.0, 1e-3))
    PointMultiLearner(1.0, 1e-6, accountant=acct, rng=1).fit(X, Y)
    assert acct.spent == Budget(1.0, 1e-6) and len(acct.ledger) == 1
    s = SanitizerMultiLearner(Points(), 1.0, 1e-6, composition="basic", accountant=acct, rng=1).fit(
        X, Y
    )
    each = s.per_concept_
    assert each == Budget(0.5) / 5
    assert s.privacy_ == compose_basic([Budget(0.5, 1e-6), compose_basic([each] * 5)])
    s2 = SanitizerMultiLearner(
        Points(), 1.0, 1e-6, composition="advanced", accountant=acct, rng=1
    ).fit(X, Y)
    assert s2.privacy_ == compose_basic(
        [Budget(0.5, 5e-7), compose_advanced(s2.per_concept_, 5, 5e-7)]
    )
    assert s2.privacy_ <= Budget(1.0, 1e-6)
    assert [e.budget for e in acct.ledger] == [Budget(1.0, 1e-6), s.privacy_, s2.privacy_]
    # The default ("auto"): bounded-range composition of the 5 exponential mechanisms.
    s3 = SanitizerMultiLearner(Points(), 1.0, 1e-6, accountant=acct, rng=1).fit(X, Y)
    assert s3.composition_ == "bounded-range" and s3.per_concept_.epsilon > 0.1
    assert s3.privacy_ == compose_basic(
        [Budget(0.5, 5e-7), compose_bounded_range(s3.per_concept_.epsilon, 5, 5e-7)]
    )
    assert s3.privacy_ <= Budget(1.0, 1e-6) and acct.ledger[-1].budget == s3.privacy_
    data = make_concept_sample(Parities(3), 60, n_concepts=2, rng=1)
    p = ParityMultiLearner(3, 0.5, 1e-6, accountant=acct, rng=1).fit(data.X, data.y)
    assert p.privacy_ == Budget(0.5, 1e-6) == acct.ledger[-1].budget
    # Fewer rows than one subsample: nothing is computed from the data, nothing is charged.
    before = acct.spent
    p = ParityMultiLearner(3, 0.5, 1e-6, accountant=acct, rng=1).fit(data.X[:5], data.y[:5])
    assert p.privacy_ == Budget(0.0) and not p.released_ and acct.spent == before


def test_refused_spend_charges_and_draws_nothing():
    data = make_concept_sample(Parities(4), 100, n_concepts=3, rng=1)
    acct = Accountant(Budget(0.5, 1e-6))
    gen, twin = Generator(5), Generator(5)
    learners = [
        ParityMultiLearner(4, 1.0, 1e-6, accountant=acct, rng=gen),
        IndependentMultiLearner(Parities(4), 1.0, accountant=acct, rng=gen),
        SanitizerMultiLearner(Parities(4), 1.0, accountant=acct, rng=gen),
    ]
    for learner in learners:
        with pytest.raises(BudgetExceededError):
            learner.fit(data.X, data.y)
        assert not hasattr(learner, "hypotheses_")
    assert acct.spent == Budget(0.0) and acct.ledger == ()
    assert gen.random_raw() == twin.random_raw()


# ------------------------------------------------------------------------------------------
# Privacy audits: neighbours differ in one row's k labels
# ------------------------------------------------------------------------------------------


def _selection_threshold(epsilon: float, delta: float) -> int:
    """The stable selection's release threshold in count units (its documented formula):
    ``2 + t``, ``t`` one more than the smallest integer with ``e^{-t/b}/(1 + e^{-1/b}) <= delta/2``,
    ``b = 2/epsilon`` rounded up to a multiple of ``2^-30``."""
    b = float(math.ceil(Fraction(2) / Fraction(epsilon) * 2**30)) / 2**30
    t = max(1, math.ceil(b * math.log(2.0 / (delta * (1.0 + math.exp(-1.0 / b))))))
    return 2 + t + 1


def _seeded(g) -> int:
    return int(g.integers(2**63))


def _parity_neighbours(theta: int):
    """Subsamples of 2 rows with examples (1,0), (0,1): invertible, so each gives the candidate
    of its labels. ``theta + 1`` subsamples give v, one gives w (gap theta); the neighbour
    changes one row's labels so that a v-subsample gives w (gap theta - 2)."""
    v = [[1, 0], [0, 1]]
    w = [[1, 0], [1, 1]]
    blocks = [v] * (theta + 1) + [w]
    X = np.array([[1, 0], [0, 1]] * len(blocks), dtype=np.uint8)
    Y = np.array([row for b in blocks for row in b], dtype=bool)
    Y2 = Y.copy()
    Y2[1] = w[1]  # the second row of the first v-subsample: one row's k labels
    return X, Y, Y2


def _parity_sampler(X, Y, epsilon):
    def run(g, size):
        learner = ParityMultiLearner(2, epsilon, 1e-3, subsample_size=2, rng=Generator(_seeded(g)))
        out = np.empty(size, dtype=np.int64)
        for i in range(size):
            learner.fit(X, Y)
            out[i] = (
                int(learner.coefficients_[1, 0]) * 2 + int(learner.released_)
                if learner.released_
                else 0
            )
        return out

    return run


@pytest.mark.slow
@pytest.mark.parametrize("factor", [1.0, 2.0], ids=["real", "broken-half-noise"])
def test_parity_learner_audit(factor):
    eps = 1.0 * factor  # broken: A_dist noise at twice the claimed epsilon (sensitivity taken as 1)
    X, Y, Y2 = _parity_neighbours(_selection_threshold(eps, 1e-3))
    res = audit(
        _parity_sampler(X, Y, eps),
        _parity_sampler(X, Y2, eps),
        (1.0, 1e-3),
        n=N_AUDIT,
        alpha=ALPHA,
        rng=1,
    )
    assert res.passed == (factor == 1.0), res


def _points_sampler(Y, epsilon):
    X = np.zeros(Y.shape[0])

    def run(g, size):
        learner = PointMultiLearner(epsilon, 1e-3, 0.1, rng=Generator(_seeded(g)))
        out = np.empty(size, dtype=np.int64)
        for i in range(size):
            learner.fit(X, Y)
            out[i] = int(learner.released_)
        return out

    return run


@pytest.mark.slow
@pytest.mark.parametrize("factor", [1.0, 4.0], ids=["real", "broken-unsplit-half-noise"])
def test_point_learner_audit(factor):
    # All rows at one point: the histogram is the same on both sides and A_dist (epsilon/2) sees
    # label vectors (1,0) x (40 + theta) and (0,1) x 40, gap theta; the neighbour moves one row
    # from the first to the second. Broken: the budget not split between the two steps and the
    # gap's sensitivity taken as 1 (A_dist at 4x its share).
    eps = 1.0 * factor
    theta = _selection_threshold(eps / 2, 1e-3 / 2)
    Y = np.array([[1, 0]] * (40 + theta) + [[0, 1]] * 40, dtype=bool)
    Y2 = Y.copy()
    Y2[0] = [0, 1]
    res = audit(
        _points_sampler(Y, eps),
        _points_sampler(Y2, eps),
        (1.0, 1e-3),
        n=N_AUDIT,
        alpha=ALPHA,
        rng=2,
    )
    assert res.passed == (factor == 1.0), res


def _em_sampler(make, Y):
    X = np.zeros(Y.shape[0], dtype=np.int64)

    def run(g, size):
        learner = make(Generator(_seeded(g)))
        out = np.empty(size, dtype=np.int64)
        for i in range(size):
            learner.fit(X, Y)
            out[i] = sum(isinstance(h, Point) and h.p in (0, (0.0,)) for h in learner.hypotheses_)
        return out

    return run


def _em_neighbours(k: int):
    """50 rows labelled 1 and 50 labelled 0 in each of k columns; the neighbour changes one
    0-row's k labels to 1s."""
    Y = np.zeros((100, k), dtype=bool)
    Y[:50] = True
    Y2 = Y.copy()
    Y2[99] = True
    return Y, Y2


@pytest.mark.slow
@pytest.mark.parametrize("factor", [1.0, 4.0], ids=["real", "broken-unsplit"])
def test_independent_learner_audit(factor):
    # Four concepts; broken: each concept spends the whole epsilon (no split over k).
    Y, Y2 = _em_neighbours(4)
    make = lambda g: IndependentMultiLearner(Points(domain_size=2), factor, rng=g)  # noqa: E731
    res = audit(
        _em_sampler(make, Y), _em_sampler(make, Y2), (1.0, 0.0), n=N_AUDIT, alpha=ALPHA, rng=3
    )
    assert res.passed == (factor == 1.0), res


@pytest.mark.slow
@pytest.mark.parametrize("factor", [1.0, 8.0], ids=["real", "broken-unsplit"])
def test_sanitizer_learner_audit(factor):
    # The sanitizer sees the same points on both sides; each of the 4 exponential mechanisms has
    # epsilon/8. Broken: each spends the whole epsilon.
    Y, Y2 = _em_neighbours(4)
    make = lambda g: SanitizerMultiLearner(Points(), factor, 1e-6, rng=g)  # noqa: E731
    res = audit(
        _em_sampler(make, Y), _em_sampler(make, Y2), (1.0, 1e-6), n=N_AUDIT, alpha=ALPHA, rng=4
    )
    assert res.passed == (factor == 1.0), res


def _histogram_sampler(X, delta):
    def run(g, size):
        gen = Generator(_seeded(g))
        return np.array(
            [int(7.0 in stability_histogram(X, 1.0, delta, rng=gen).points) for _ in range(size)]
        )

    return run


@pytest.mark.slow
@pytest.mark.parametrize("delta", [1e-3, 0.5], ids=["real", "broken-threshold"])
def test_stability_histogram_audit(delta):
    # The point 7 occurs once, or not at all (its row replaced by a copy of the point 1): it may
    # be released with probability at most delta/2. Broken: the threshold of delta = 0.5.
    X = np.array([1.0] * 50 + [2.0] * 20 + [7.0])
    X2 = np.array([1.0] * 51 + [2.0] * 20)
    res = audit(
        _histogram_sampler(X, delta),
        _histogram_sampler(X2, delta),
        (1.0, 1e-3),
        n=N_AUDIT,
        alpha=ALPHA,
        rng=5,
    )
    assert res.passed == (delta == 1e-3), res


def test_parity_learner_release_law_is_the_exact_discrete_laplace_tail():
    # Gap exactly at the threshold: the selection releases iff Z >= 0, Z discrete Laplace of
    # scale b = 2/epsilon: probability 1/(1 + e^{-1/b}). Chi-square against the exact law, and
    # the power check: the same counts reject the law with the scale 30% off either way.
    from stats_helpers import assert_fits, assert_power_check, chi_square_pvalue

    eps = 1.0
    X, Y, _ = _parity_neighbours(_selection_threshold(eps, 1e-3))
    counts = np.bincount(
        _parity_sampler(X, Y, eps)(np.random.default_rng(6), 20_000) > 0, minlength=2
    )[::-1]

    def law(factor: float):
        q = math.exp(-eps / (2.0 * factor))
        return [1.0 / (1.0 + q), q / (1.0 + q)]

    assert_fits(counts, law(1.0), "release law")
    assert_power_check(lambda f: chi_square_pvalue(counts, law(f)), "release law")


@pytest.mark.parametrize("factor", [1.0, 10.0], ids=["real", "broken-unsplit"])
def test_packing_bound_of_theorem_5_1(factor):
    # Errata 002-7: with the k labels of n rows at one point drawn uniformly from {c0, c1}^k, an
    # epsilon-DP k-learner succeeds on all k with average probability at most e^{epsilon n} 2^-k.
    # The bound is not refuted for the exponential-mechanism learner; it is for a broken variant
    # whose concepts each spend the whole epsilon.
    from privlearn.audit._intervals import _cp_lower

    n, k, eps, trials = 2, 10, 1.0, 2000
    g = np.random.default_rng(7)
    learner = IndependentMultiLearner(Points(domain_size=2), eps * factor, rng=Generator(8))
    wins = 0
    for _ in range(trials):
        truth = g.integers(0, 2, size=k).astype(bool)  # 1: the point function at 0
        learner.fit(np.zeros(n, dtype=np.int64), np.tile(truth, (n, 1)))
        wins += all((h == Point(0)) == t for h, t in zip(learner.hypotheses_, truth))
    lower = _cp_lower(np.array([wins]), np.array([trials]), ALPHA)[0]
    assert (lower <= math.exp(eps * n) * 2.0**-k) == (factor == 1.0), (wins, lower)


# ------------------------------------------------------------------------------------------
# Behaviour
# ------------------------------------------------------------------------------------------


def test_stability_histogram_releases_data_points_only_sorted():
    g = np.random.default_rng(0)
    X = g.integers(0, 30, size=(300, 2)).astype(float)
    for seed in range(20):
        h = stability_histogram(X, 1.0, 1e-6, rng=seed)
        rows = {tuple(r) for r in X}
        assert all(tuple(p) in rows for p in h.points)
        assert [tuple(p) for p in h.points] == sorted(tuple(p) for p in h.points)
        assert np.all(h.frequencies > 0)
    assert len(stability_histogram(np.zeros(1000), 1.0, 1e-6, rng=0)) == 1


def test_mwem_answers_queries_and_is_charged():
    counts = np.array([50, 0, 0, 30, 0, 0, 20, 0])
    queries = np.tril(np.ones((8, 8), dtype=np.uint8))  # prefix counts
    acct = Accountant(Budget(5.0))
    dist = mwem(counts, queries, 5.0, rounds=8, rng=0, accountant=acct)
    assert dist.shape == (8,) and np.all(dist >= 0) and math.isclose(dist.sum(), 1.0)
    assert np.max(np.abs(queries @ dist - queries @ counts / 100)) < 0.15
    assert acct.spent == Budget(5.0)
    with pytest.raises(InvalidParameterError, match="queries"):
        mwem(counts, np.ones((2, 3)), 1.0)


def test_sanitizer_learner_with_mwem_learns_thresholds_on_a_grid():
    grid = np.linspace(0.0, 1.0, 32)
    g = np.random.default_rng(1)
    X = g.choice(grid, size=4000)
    cuts = g.choice(grid[4:-4], size=20)
    Y = X[:, None] >= cuts[None, :]
    s = SanitizerMultiLearner(Thresholds(), 20.0, domain=grid, rng=3).fit(X, Y)
    assert s.privacy_ == compose_basic([Budget(10.0), compose_basic([s.per_concept_] * 20)])
    assert len(s.candidates_) <= 33
    assert s.errors(X, Y).max() < 0.1


def test_determinism_and_shared_streams():
    data = make_concept_sample(Parities(5), 300, n_concepts=4, rng=0)
    for make in (
        lambda rng: ParityMultiLearner(5, 1.0, 1e-6, rng=rng),
        lambda rng: IndependentMultiLearner(Parities(5), 2.0, rng=rng),
        lambda rng: SanitizerMultiLearner(Parities(5), 2.0, rng=rng),
    ):
        a = make(11).fit(data.X, data.y).hypotheses_
        assert make(11).fit(data.X, data.y).hypotheses_ == a
        gen = Generator(3)
        make(gen).fit(data.X, data.y)
        assert gen.random_raw() != Generator(3).random_raw()  # the shared stream advanced


def test_bottom_gives_zero_hypotheses_and_predictions():
    g = np.random.default_rng(2)
    X = g.integers(0, 2, size=(200, 6))
    Y = g.integers(0, 2, size=(200, 3))  # labels of no parity
    p = ParityMultiLearner(6, 1.0, 1e-6, rng=0).fit(X, Y)
    assert not p.released_ and p.hypotheses_ == [Parity((), 6)] * 3
    assert not p.predict(X).any()
    q = PointMultiLearner(1.0, 1e-6, rng=0).fit(np.zeros(500), g.integers(0, 2, size=(500, 5)))
    assert not q.released_ and q.hypotheses_ == [ZERO] * 5 and not q.predict(np.zeros(3)).any()


def test_non_private_learner_is_column_erm_and_claims_nothing():
    data = make_concept_sample(Points(domain_size=16), 300, n_concepts=40, rng=4)
    learner = NonPrivateMultiLearner(Points(domain_size=16)).fit(data.X, data.y)
    assert learner.privacy_ is None and "NonPrivate" in type(learner).__name__
    assert "not differentially private" in learner.__doc__
    assert learner.errors(data.X, data.y).max() == 0.0


def test_exponential_learner_candidates():
    assert len(ExponentialLearner(Parities(5)).candidates) == 32
    assert ExponentialLearner(Points(domain_size=7)).candidates == [Point(i) for i in range(7)]
    fc = FiniteClass(np.array([[0, 1, 1], [0, 1, 1], [1, 0, 0]]))
    assert len(ExponentialLearner(fc).candidates) == 2
    with pytest.raises(InvalidParameterError, match="candidates"):
        ExponentialLearner(Thresholds())
    assert (
        len(
            ExponentialLearner(
                Thresholds(), candidates=[Thresholds().erm([0.0, 1.0], [0, 1])]
            ).candidates
        )
        == 1
    )
    with pytest.raises(InvalidParameterError, match="candidates"):
        ExponentialLearner(Thresholds(), candidates=[])


def test_params_follow_scikit_learn_conventions():
    learner = ParityMultiLearner(4, 1.0, 1e-6, rng=3)
    assert learner.get_params()["dim"] == 4
    assert learner.set_params(epsilon=2.0) is learner and learner.epsilon == 2.0
    assert "ParityMultiLearner(dim=4" in repr(learner)
    with pytest.raises(InvalidParameterError, match="alpha"):
        learner.set_params(alpha=0.1)
    with pytest.raises(InvalidParameterError, match="fitted"):
        learner.predict(np.zeros((2, 4)))


BAD_Y = [
    (np.array([[0, 2], [1, 0]]), "binary"),
    (np.zeros((2, 0)), "at least one label column"),
    (np.zeros(2), "shape \\(n, k\\)"),
    (np.zeros((3, 2)), "one row per example"),
    (np.array([["a", "b"], ["c", "d"]]), "binary"),
]


@pytest.mark.parametrize("Y, message", BAD_Y)
def test_bad_labels_give_clear_errors_before_any_draw(Y, message):
    acct = Accountant(Budget(10.0, 1e-3))
    gen = Generator(1)
    learners = [
        ParityMultiLearner(2, 1.0, 1e-6, accountant=acct, rng=gen),
        PointMultiLearner(1.0, 1e-6, accountant=acct, rng=gen),
        IndependentMultiLearner(Parities(2), 1.0, accountant=acct, rng=gen),
        SanitizerMultiLearner(Parities(2), 1.0, accountant=acct, rng=gen),
        NonPrivateMultiLearner(Parities(2)),
    ]
    X = np.array([[0, 1], [1, 1]])
    for learner in learners:
        with pytest.raises(InvalidParameterError, match=message) as err:
            learner.fit(X, Y)
        assert err.value.parameter == "Y"
    assert acct.spent == Budget(0.0) and gen.random_raw() == Generator(1).random_raw()


BITS = np.array([[0, 1], [1, 1], [1, 0]])
REALS = np.array([0.1, 0.2, 0.3])
BAD_PARAMS = [
    (lambda: ParityMultiLearner(2, 0.0, 1e-6), BITS, "epsilon"),
    (lambda: ParityMultiLearner(2, 1.0, 0.0), BITS, "delta"),
    (lambda: ParityMultiLearner(2, 1.0, 1e-6, subsample_size=1), BITS, "subsample_size"),
    (lambda: ParityMultiLearner(0, 1.0, 1e-6), BITS, "dim"),
    (lambda: ParityMultiLearner(2, 1.0, 1e-6, accountant="budget"), BITS, "accountant"),
    (lambda: PointMultiLearner(1.0, 1e-6, alpha=0.0), REALS, "alpha"),
    (lambda: PointMultiLearner(1.0, 1.5), REALS, "delta"),
    (lambda: IndependentMultiLearner(Parities(2), 1.0, composition="kov"), BITS, "composition"),
    (
        lambda: IndependentMultiLearner(
            StableParityLearner(2), 1.0, 1e-6, composition="bounded-range"
        ),
        BITS,
        "composition",
    ),
    (lambda: IndependentMultiLearner(Parities(2), 1.0, composition="advanced"), BITS, "delta"),
    (lambda: IndependentMultiLearner(StableParityLearner(2), 1.0), BITS, "delta"),
    (lambda: IndependentMultiLearner("parities", 1.0), BITS, "base"),
    (lambda: SanitizerMultiLearner(Parities(2), 1.0, sanitizer="points"), BITS, "sanitizer"),
    (lambda: SanitizerMultiLearner(Parities(2), 1.0, sanitizer="best"), BITS, "sanitizer"),
    (lambda: SanitizerMultiLearner(Thresholds(), 1.0), REALS, "domain"),
    (lambda: SanitizerMultiLearner(Points(), 1.0, sanitizer="points"), REALS, "delta"),
    (lambda: SanitizerMultiLearner(Parities(2), 1.0, rounds=0), BITS, "rounds"),
]


@pytest.mark.parametrize("make, X, name", BAD_PARAMS)
def test_bad_parameters_name_the_parameter(make, X, name):
    acct = Accountant(Budget(10.0, 1e-3))
    learner = make()
    if learner.get_params().get("accountant") is None and "accountant" in learner.get_params():
        learner.set_params(accountant=acct)
    with pytest.raises(InvalidParameterError) as err:
        learner.fit(X, np.array([[0], [1], [1]]))
    assert err.value.parameter == name
    assert acct.spent == Budget(0.0)


def test_bad_examples():
    with pytest.raises(InvalidParameterError, match="bits"):
        ParityMultiLearner(2, 1.0, 1e-6).fit(np.array([[0, 2]]), np.array([[1]]))
    with pytest.raises(InvalidParameterError, match="shape"):
        ParityMultiLearner(3, 1.0, 1e-6).fit(np.zeros((2, 2)), np.zeros((2, 1)))
    with pytest.raises(InvalidParameterError, match="finite"):
        PointMultiLearner(1.0, 1e-6).fit(np.array([0.0, np.nan]), np.zeros((2, 1)))
    with pytest.raises(InvalidParameterError, match="at least one example"):
        PointMultiLearner(1.0, 1e-6).fit(np.zeros(0), np.zeros((0, 1)))
    with pytest.raises(InvalidParameterError, match="domain"):
        SanitizerMultiLearner(Thresholds(), 1.0, domain=[0.0, 1.0]).fit(
            np.array([0.5]), np.array([[1]])
        )
    p = PointMultiLearner(1.0, 1e-6, rng=0).fit(np.zeros((10, 2)), np.ones((10, 1)))
    with pytest.raises(InvalidParameterError, match="coordinates"):
        p.predict(np.zeros((3, 3)))
