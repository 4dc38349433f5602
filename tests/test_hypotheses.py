"""Tests of privlearn.hypotheses: dichotomy enumeration against brute force (an LP feasibility
test for halfspaces, direct search for the others), closed-form counts, invariances,
representatives, exact ERM and scoring, streaming, and input validation.

Brute force: every one of the 2^n labelings of a small point set is checked for
realizability, and the set of realizable labelings must equal the enumerated one exactly.
"""

from __future__ import annotations

import itertools
import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

from privlearn.errors import InvalidParameterError
from privlearn.hypotheses import (
    Dichotomies,
    FiniteClass,
    FiniteMember,
    Halfspace,
    Halfspaces,
    Interval,
    Intervals,
    Parities,
    Parity,
    Point,
    Points,
    Rectangle,
    Rectangles,
    Threshold,
    Thresholds,
)

# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def label_set(d: Dichotomies):
    return {tuple(r) for r in d.to_numpy().tolist()}


def check_structure(cls, X, d: Dichotomies):
    """No duplicate labeling; every representative reproduces its labeling; the count agrees;
    the packed layout is the project's (LSB-first, zero padding)."""
    labels = d.to_numpy()
    n = labels.shape[1]
    assert len(label_set(d)) == len(d), "duplicate labeling"
    assert cls.count_dichotomies(X) == len(d)
    for i in range(len(d)):
        h = d.hypothesis(i)
        assert np.array_equal(cls.predict(h, X), labels[i]), (i, h)
    words = d.packed.shape[1]
    assert words == -(-n // 64)
    for j in range(n):
        assert np.array_equal(
            (d.packed[:, j // 64] >> np.uint64(j % 64)) & np.uint64(1), labels[:, j]
        )
    if n % 64:
        assert np.all(d.packed[:, -1] >> np.uint64(n % 64) == 0)


def sauer(n, d):
    return sum(math.comb(n, i) for i in range(d + 1))


def all_labelings(n):
    return itertools.product((False, True), repeat=n)


def lp_realizable(X, labels):
    """Is there (w, b) with w.x + b >= 1 on the ones and <= -1 on the zeros? (Strict
    separability of a finite set is separability with a margin, after scaling.)"""
    X = np.asarray(X, dtype=float)
    n, d = X.shape
    s = np.where(labels, 1.0, -1.0)
    # -s_i (w . x_i + b) <= -1
    A = -s[:, None] * np.hstack([X, np.ones((n, 1))])
    res = linprog(
        np.zeros(d + 1), A_ub=A, b_ub=-np.ones(n), bounds=[(None, None)] * (d + 1), method="highs"
    )
    return res.status == 0


def brute_halfspaces(X):
    return {lab for lab in all_labelings(len(X)) if lp_realizable(X, np.array(lab))}


def brute_by(pred_sets, n):
    """Labelings of n points realised by some member of an explicit candidate list."""
    return {tuple(bool(v) for v in p) for p in pred_sets} if n else {()}


def cuts(values):
    v = sorted(set(values))
    return [-math.inf] + [(a + b) / 2 for a, b in zip(v, v[1:])] + v + [math.inf]


def brute_thresholds(x, orientation):
    out = set()
    for t in cuts(x):
        if orientation in ("ge", "both"):
            out.add(tuple(bool(v >= t) for v in x))
        if orientation in ("le", "both"):
            out.add(tuple(bool(v <= t) for v in x))
    return out


def brute_intervals(x):
    cs = cuts(x)
    out = {tuple(False for _ in x)}
    for a in cs:
        for b in cs:
            out.add(tuple(bool(a <= v <= b) for v in x))
    return out


def brute_rectangles(X):
    X = np.asarray(X, dtype=float)
    n = len(X)
    out = set()
    for lab in all_labelings(n):
        sel = X[list(lab)] if n else X
        if not any(lab):
            out.add(lab)
            continue
        lo, hi = sel.min(axis=0), sel.max(axis=0)
        inside = tuple(bool(v) for v in np.all((lo <= X) & (X <= hi), axis=1))
        if inside == lab:
            out.add(lab)
    return out


def exact_halfspaces_2d(X):
    """Independent exact brute force in the plane with rational arithmetic: constants, and for
    every line through two distinct points, its sides plus every prefix/suffix of the points on
    it in their order along the line (the extreme-ray characterisation of separable labelings)."""
    P = [(Fraction(x), Fraction(y)) for x, y in X]
    n = len(P)
    out = {tuple([False] * n), tuple([True] * n)}
    distinct = sorted(set(P))
    for a, b in itertools.combinations(distinct, 2):
        dx, dy = b[0] - a[0], b[1] - a[1]
        side = [dx * (p[1] - a[1]) - dy * (p[0] - a[0]) for p in P]
        on = sorted({P[i] for i in range(n) if side[i] == 0}, key=lambda p: dx * p[0] + dy * p[1])
        for k in range(len(on) + 1):
            for first in (True, False):
                chosen = set(on[:k]) if first else set(on[k:])
                for sgn in (1, -1):
                    out.add(
                        tuple(
                            sgn * side[i] > 0 or (side[i] == 0 and P[i] in chosen) for i in range(n)
                        )
                    )
    return out


# --------------------------------------------------------------------------------------------
# Brute force against every labeling
# --------------------------------------------------------------------------------------------

HALFSPACE_CASES = [
    # (dim, integer points) including degenerate inputs.
    (1, [[0], [3], [1], [3], [2]]),
    (2, [[0, 0], [1, 0], [0, 1], [1, 1], [2, 3], [3, 1], [1, 2]]),
    (2, [[0, 0], [1, 1], [2, 2], [3, 3], [1, 0], [2, 1], [0, 0]]),  # collinear runs, a duplicate
    (2, [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1], [0, 2], [1, 2]]),  # 3x3 grid minus one
    (2, [[0, 0], [2, 0], [4, 0], [1, 0], [3, 0]]),  # all collinear
    (2, [[1, 1], [1, 1], [1, 1]]),  # one point, three times
    (3, [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [2, 1, 0], [1, 0, 2]]),
    (
        3,
        [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 1], [1, 1, 1]],
    ),  # cube
    (3, [[0, 0, 0], [1, 1, 0], [2, 2, 0], [0, 1, 0], [1, 2, 0], [0, 0, 3]]),  # coplanar + apex
    (3, [[0, 0, 0], [1, 2, 3], [2, 4, 6], [3, 6, 9]]),  # collinear in space
    (
        4,
        [
            [0, 0, 0, 0],
            [1, 0, 0, 0],
            [0, 1, 0, 0],
            [0, 0, 1, 0],
            [0, 0, 0, 1],
            [1, 1, 1, 1],
            [1, 1, 0, 0],
        ],
    ),
]


@pytest.mark.parametrize("dim,pts", HALFSPACE_CASES)
def test_halfspaces_match_lp_brute_force(dim, pts):
    X = np.array(pts, dtype=float)
    cls = Halfspaces(dim)
    d = cls.dichotomies(X)
    check_structure(cls, X, d)
    assert label_set(d) == brute_halfspaces(X)
    assert len(d) <= sauer(len(np.unique(X, axis=0)), dim + 1)


def test_lp_brute_force_has_power():
    # The brute force must tell a non-separable labeling (XOR) from a separable one.
    X = np.array([[0, 0], [1, 1], [0, 1], [1, 0]], dtype=float)
    assert not lp_realizable(X, np.array([True, True, False, False]))
    assert lp_realizable(X, np.array([True, False, True, False]))


def test_halfspaces_near_degenerate_match_exact_brute_force():
    # Points that look collinear but are not exactly (binary rounding of 0.1 * i, 0.3 * i),
    # and exactly collinear points whose differences are not representable.
    for X in (
        np.array([[0.1 * i, 0.3 * i] for i in range(6)]),
        np.array([[0.1, 0.2], [0.3, 0.6], [0.1 + 0.1, 0.2 + 0.2], [0.7, 0.1], [0.2, 0.9]]),
        np.array(
            [[1.0, 1.0], [1.0 + 2**-52, 1.0], [1.0, 1.0 + 2**-52], [3.0, 3.0 + 2**-51], [0.0, 0.0]]
        ),
    ):
        cls = Halfspaces(2)
        d = cls.dichotomies(X)
        assert np.all(np.isfinite(d.params))
        check_structure(cls, X, d)
        assert label_set(d) == exact_halfspaces_2d(X)


def test_halfspaces_without_double_representative():
    # Separating A from B (both within 1e-300 of the origin) while putting E = (0.5, 0.5) with A
    # and C = (1e300, 1e300) with B needs a line through the origin's 1e-300-neighbourhood that
    # crosses the diagonal beyond E: its direction is within about 1e-300 radians of the
    # diagonal's, and no pair of doubles (w1, w2) has such a direction. The labeling is still
    # enumerated (exactly); its parameters are NaN and asking for its hypothesis raises.
    from privlearn.errors import PrivlearnError

    X = np.array([[1e-300, 0.0], [0.0, 1e-300], [1e300, 1e300], [-1e300, 2.0], [0.5, 0.5]])
    cls = Halfspaces(2)
    d = cls.dichotomies(X)
    assert label_set(d) == exact_halfspaces_2d(X)
    labels = d.to_numpy()
    missing = [i for i in range(len(d)) if not np.all(np.isfinite(d.params[i]))]
    assert {tuple(int(v) for v in labels[i]) for i in missing} >= {(0, 1, 1, 1, 0), (1, 0, 0, 0, 1)}
    for i in range(len(d)):
        if i in missing:
            with pytest.raises(PrivlearnError):
                d.hypothesis(i)
        else:
            assert np.array_equal(cls.predict(d.hypothesis(i), X), labels[i])


@pytest.mark.parametrize(
    "x",
    [[3.0, 1.0, 2.0, 1.0, 5.0], [0.0, -0.0, 2.0], [7.0], [], [1e308, -1e308, 5e-324, 0.0]],
)
@pytest.mark.parametrize("orientation", ["ge", "le", "both"])
def test_thresholds_match_brute_force(x, orientation):
    cls = Thresholds(orientation)
    d = cls.dichotomies(x)
    check_structure(cls, np.array(x), d)
    assert label_set(d) == brute_thresholds(x, orientation)


@pytest.mark.parametrize("x", [[3.0, 1.0, 2.0, 1.0, 5.0, 2.0], [4.0], [], [0.0, 5e-324, -5e-324]])
def test_intervals_match_brute_force(x):
    cls = Intervals()
    d = cls.dichotomies(x)
    check_structure(cls, np.array(x), d)
    assert label_set(d) == brute_intervals(x)


@pytest.mark.parametrize(
    "dim,pts",
    [
        (2, [[0, 0], [1, 0], [0, 1], [1, 1], [0.5, 0.5], [2, 1], [0.5, 0.5], [1, 2]]),
        (2, [[i % 3, i // 3] for i in range(9)]),
        (1, [[2], [1], [2], [0]]),
        (3, [[0, 0, 0], [1, 1, 1], [1, 0, 0], [0, 1, 1], [0.5, 0.5, 0.5], [1, 1, 0]]),
    ],
)
def test_rectangles_match_brute_force(dim, pts):
    X = np.array(pts, dtype=float)
    cls = Rectangles(dim)
    d = cls.dichotomies(X)
    check_structure(cls, X, d)
    assert label_set(d) == brute_rectangles(X)
    assert len(d) <= sauer(len(X), 2 * dim)


def test_points_match_brute_force():
    x = [2.0, 0.0, 2.0, -0.0, 1.0]
    for cls, extra in (
        (Points(), True),
        (Points(domain_size=3), False),
        (Points(domain_size=4), True),
    ):
        d = cls.dichotomies(x)
        check_structure(cls, np.array(x), d)
        pts = sorted(set(x))
        brute = {tuple(v == p for v in x) for p in pts}
        if extra:
            brute.add(tuple(False for _ in x))
        assert label_set(d) == brute
    X2 = np.array([[0, 1], [0, 1], [1, 0]])
    d = Points(dim=2).dichotomies(X2)
    check_structure(Points(dim=2), X2, d)
    assert len(d) == 3


def test_finite_class_matches_brute_force_and_keeps_lowest_index():
    rng = np.random.default_rng(3)
    H = rng.integers(0, 2, size=(40, 7)).astype(bool)
    x = np.array([0, 3, 3, 6, 2])
    cls = FiniteClass(H)
    d = cls.dichotomies(x)
    check_structure(cls, x, d)
    assert label_set(d) == {tuple(r) for r in H[:, x].tolist()}
    for i in range(len(d)):
        idx = d.hypothesis(i).index
        assert idx == min(r for r in range(40) if np.array_equal(H[r, x], d.label(i)))
    keys = [tuple(int(w) for w in row) for row in d.packed]
    assert keys == sorted(keys)  # lexicographic order of the packed words
    # The same class given as callables.
    calls = FiniteClass([lambda X, r=r: H[r, X] for r in range(40)])
    d2 = calls.dichotomies(x)
    assert np.array_equal(d2.packed, d.packed) and np.array_equal(d2.params, d.params)
    assert calls.vc_dimension is None


def test_finite_vc_dimension_against_brute_force():
    rng = np.random.default_rng(5)
    for _ in range(5):
        H = rng.integers(0, 2, size=(12, 6)).astype(bool)
        brute = max(
            k
            for k in range(7)
            for T in itertools.combinations(range(6), k)
            if len({tuple(r) for r in H[:, list(T)].tolist()}) == 2**k
        )
        assert FiniteClass(H).vc_dimension == brute


def brute_parities(X):
    X = np.asarray(X, dtype=np.int64)
    dim = X.shape[1]
    return {
        tuple(bool(v) for v in (X @ np.array(a)) % 2) for a in itertools.product((0, 1), repeat=dim)
    }


@pytest.mark.parametrize(
    "X",
    [
        np.random.default_rng(1).integers(0, 2, size=(9, 5)),
        np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 1, 1], [1, 1, 0, 0]]),  # rank 2, a duplicate
        np.zeros((4, 3), dtype=int),
        np.zeros((0, 3), dtype=int),
        np.eye(6, dtype=bool),
        np.random.default_rng(2).integers(0, 2, size=(70, 8)),  # two words per labeling
    ],
)
def test_parities_match_brute_force(X):
    dim = X.shape[1]
    cls = Parities(dim)
    d = cls.dichotomies(X)
    check_structure(cls, X, d)
    assert label_set(d) == brute_parities(X)
    rank = cls.rank(X)
    assert len(d) == 2**rank == cls.count_dichotomies(X)
    # Representatives are supported on the pivot columns: the first columns independent over
    # GF(2) of the ones before them (found here by brute force over spans).
    pivots = []
    span = {tuple([0] * X.shape[0])}
    for j in range(dim):
        col = tuple(int(v) for v in X[:, j])
        if col not in span:
            pivots.append(j)
            span |= {tuple((a + b) % 2 for a, b in zip(v, col)) for v in span}
    assert rank == len(pivots)
    for h in d.hypotheses():
        assert set(h.support) <= set(pivots)
    # Labeling 0 is all zeros and consecutive labelings differ by one basis column.
    labels = d.to_numpy()
    assert not labels[0].any()
    for i in range(1, len(d)):
        diff = labels[i] ^ labels[i - 1]
        assert tuple(int(v) for v in diff) in {tuple(int(v) for v in X[:, p]) for p in pivots}


def test_parities_large_rank_stream_and_max_count():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, size=(200, 13))
    cls = Parities(13)
    full = cls.dichotomies(X)
    assert len(full) == 2**13
    chunks = list(cls.iter_dichotomies(X, chunk_size=3000))
    assert cls.iter_dichotomies(X).streamed
    assert np.array_equal(np.concatenate([c.packed for c in chunks]), full.packed)
    assert np.array_equal(np.concatenate([c.params for c in chunks]), full.params)
    with pytest.raises(InvalidParameterError, match="max_count"):
        cls.dichotomies(X, max_count=2**13 - 1)
    big = rng.integers(0, 2, size=(100, 80))
    assert Parities(80).count_dichotomies(big) == 2**80
    with pytest.raises(InvalidParameterError, match="max_count"):
        Parities(80).dichotomies(big)


def test_parities_representatives_depend_on_the_point_set():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, size=(8, 6))
    X2 = np.vstack([X[rng.permutation(8)], X[:3]])  # permuted, with duplicates
    a = {
        h: tuple(lab)
        for h, lab in zip(
            Parities(6).dichotomies(X).hypotheses(), Parities(6).dichotomies(X).to_numpy().tolist()
        )
    }
    b = Parities(6).dichotomies(X2)
    assert set(a) == set(b.hypotheses())
    for h in b.hypotheses():
        assert np.array_equal(Parities(6).predict(h, X), a[h])


def test_parities_erm_equals_brute_force():
    rng = np.random.default_rng(5)
    X = rng.integers(0, 2, size=(12, 5))
    cls = Parities(5)
    d = cls.dichotomies(X)
    for trial in range(5):
        y = rng.integers(0, 2, size=12)
        w = rng.random(12) if trial % 2 else None
        h = cls.erm(X, y, sample_weight=w)
        wf = np.ones(12) if w is None else w
        best = min(
            sum(Fraction(float(wi)) for wi, p, t in zip(wf, (X @ np.array(a)) % 2, y) if p != t)
            for a in itertools.product((0, 1), repeat=5)
        )
        pred = cls.predict(h, X)
        assert sum(Fraction(float(wi)) for wi, p, t in zip(wf, pred, y) if p != bool(t)) == best
        assert h == d.hypothesis(d.argmin(y, w))


# --------------------------------------------------------------------------------------------
# Counts in general position
# --------------------------------------------------------------------------------------------


def cover(m, d):
    return 2 * sum(math.comb(m - 1, k) for k in range(d + 1))


def test_counts_match_closed_forms():
    rng = np.random.default_rng(0)
    x = rng.random(300)
    assert Thresholds().count_dichotomies(x) == len(Thresholds().dichotomies(x)) == 301
    assert Thresholds("both").count_dichotomies(x) == len(Thresholds("both").dichotomies(x)) == 600
    assert Intervals().count_dichotomies(x) == len(Intervals().dichotomies(x)) == 300 * 301 // 2 + 1
    for dim, n in ((1, 50), (2, 200), (3, 14), (4, 9)):
        X = rng.random((n, dim))
        d = Halfspaces(dim).dichotomies(X)
        assert len(d) == Halfspaces(dim).count_dichotomies(X) == cover(n, dim), (dim, n)
        assert len(d) <= sauer(n, dim + 1)
    X = rng.random((120, 2))
    d = Halfspaces(2).dichotomies(X)
    assert len(d) == 120 * 120 - 120 + 2
    assert np.all(np.isfinite(d.params))
    check_structure(Halfspaces(2), X, d)


def test_closed_form_fails_on_degenerate_input():
    # Power check of the count test: collinear points do not reach Cover's count.
    X = np.array([[i, 2 * i] for i in range(10)], dtype=float)
    assert Halfspaces(2).count_dichotomies(X) == 20 != cover(10, 2)


# --------------------------------------------------------------------------------------------
# Invariances and representatives
# --------------------------------------------------------------------------------------------

CLASSES_2D = [
    (Halfspaces(2), lambda rng: rng.integers(0, 4, size=(12, 2)).astype(float)),
    (Rectangles(2), lambda rng: rng.integers(0, 4, size=(9, 2)).astype(float)),
    (Points(dim=2), lambda rng: rng.integers(0, 3, size=(10, 2)).astype(float)),
    (Thresholds("both"), lambda rng: rng.integers(0, 5, size=12).astype(float)),
    (Intervals(), lambda rng: rng.integers(0, 5, size=12).astype(float)),
    (Halfspaces(3), lambda rng: rng.integers(0, 3, size=(8, 3)).astype(float)),
]


@pytest.mark.parametrize("cls,make", CLASSES_2D)
def test_permutation_invariance_and_point_set_representatives(cls, make):
    rng = np.random.default_rng(11)
    X = make(rng)
    perm = rng.permutation(len(X))
    a, b = cls.dichotomies(X), cls.dichotomies(X[perm])
    # The same labelings, permuted, and the same representatives: they depend on the set of
    # points only, not on the row order.
    ra = {h: tuple(lab) for h, lab in zip(a.hypotheses(), a.to_numpy().tolist())}
    rb = {h: tuple(lab) for h, lab in zip(b.hypotheses(), b.to_numpy().tolist())}
    assert ra.keys() == rb.keys()
    for h, lab in ra.items():
        assert tuple(np.array(lab)[perm]) == rb[h]
    # Deterministic: the same input gives the same output, in the same order.
    c = cls.dichotomies(X)
    assert np.array_equal(a.packed, c.packed) and np.array_equal(a.params, c.params, equal_nan=True)


@pytest.mark.parametrize("cls,make", CLASSES_2D)
def test_duplicates_get_equal_labels_and_do_not_count(cls, make):
    rng = np.random.default_rng(12)
    X = make(rng)
    uniq = np.unique(X, axis=0)
    d = cls.dichotomies(X)
    assert len(d) == len(cls.dichotomies(uniq)) == cls.count_dichotomies(uniq)
    labels = d.to_numpy()
    for i in range(len(X)):
        for j in range(i):
            if np.array_equal(X[i], X[j]):
                assert np.array_equal(labels[:, i], labels[:, j])


# --------------------------------------------------------------------------------------------
# Property tests (hypothesis)
# --------------------------------------------------------------------------------------------

small_values = st.lists(st.integers(-3, 3).map(float), min_size=0, max_size=7)
small_points = st.lists(st.tuples(st.integers(-2, 2), st.integers(-2, 2)), min_size=0, max_size=7)


@settings(max_examples=60, deadline=None)
@given(small_values, st.sampled_from(["ge", "le", "both"]))
def test_property_thresholds(x, orientation):
    d = Thresholds(orientation).dichotomies(x)
    assert label_set(d) == brute_thresholds(x, orientation)
    assert len(d) == len(label_set(d))


@settings(max_examples=60, deadline=None)
@given(small_values)
def test_property_intervals(x):
    d = Intervals().dichotomies(x)
    assert label_set(d) == brute_intervals(x)
    assert len(d) == len(label_set(d))


@settings(max_examples=40, deadline=None)
@given(small_points)
def test_property_halfspaces_2d(pts):
    X = np.array(pts, dtype=float).reshape(-1, 2)
    cls = Halfspaces(2)
    d = cls.dichotomies(X)
    assert label_set(d) == exact_halfspaces_2d(X)
    check_structure(cls, X, d)


@settings(max_examples=40, deadline=None)
@given(small_points)
def test_property_rectangles(pts):
    X = np.array(pts, dtype=float).reshape(-1, 2)
    d = Rectangles(2).dichotomies(X)
    assert label_set(d) == brute_rectangles(X)
    assert len(d) == len(label_set(d))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(-2, 2),
            st.integers(-2, 2),
            st.booleans(),
            st.sampled_from([0.0, 0.5, 1.0, 3.0]),
        ),
        min_size=1,
        max_size=7,
    )
)
def test_property_erm_halfspaces(rows):
    X = np.array([[a, b] for a, b, _, _ in rows], dtype=float)
    y = np.array([t for _, _, t, _ in rows])
    w = np.array([v for _, _, _, v in rows])
    h = Halfspaces(2).erm(X, y, sample_weight=w)
    err = lambda lab: sum(Fraction(float(wi)) for wi, a, t in zip(w, lab, y) if a != t)  # noqa: E731
    assert err(Halfspaces(2).predict(h, X)) == min(err(lab) for lab in exact_halfspaces_2d(X))


def test_exact_brute_force_agrees_with_lp():
    # The two brute forces used above agree on integer inputs (the LP is exact there).
    rng = np.random.default_rng(8)
    X = rng.integers(0, 3, size=(7, 2)).astype(float)
    assert exact_halfspaces_2d(X) == brute_halfspaces(X)


# --------------------------------------------------------------------------------------------
# ERM, mistakes
# --------------------------------------------------------------------------------------------


def brute_erm_error(labelings, y, w):
    y = np.asarray(y, dtype=bool)
    return min(
        Fraction(0)
        + sum((Fraction(float(wi)) for wi, a, b in zip(w, lab, y) if a != b), Fraction(0))
        for lab in labelings
    )


ERM_CASES = [
    (
        Thresholds(),
        np.array([3.0, 1.0, 2.0, 1.0, 5.0, 4.0]),
        brute_thresholds([3.0, 1.0, 2.0, 1.0, 5.0, 4.0], "ge"),
    ),
    (
        Intervals(),
        np.array([3.0, 1.0, 2.0, 1.0, 5.0, 4.0]),
        brute_intervals([3.0, 1.0, 2.0, 1.0, 5.0, 4.0]),
    ),
    (Halfspaces(2), np.array(HALFSPACE_CASES[1][1], dtype=float), None),
    (
        Rectangles(2),
        np.array([[0, 0], [1, 0], [0, 1], [1, 1], [0.5, 0.5], [2, 1]], dtype=float),
        brute_rectangles(
            np.array([[0, 0], [1, 0], [0, 1], [1, 1], [0.5, 0.5], [2, 1]], dtype=float)
        ),
    ),
    (
        Points(),
        np.array([1.0, 2.0, 2.0, 3.0, 1.0]),
        {(False,) * 5}
        | {tuple(v == p for v in (1.0, 2.0, 2.0, 3.0, 1.0)) for p in (1.0, 2.0, 3.0)},
    ),
]


@pytest.mark.parametrize("cls,X,brute", ERM_CASES)
def test_erm_equals_brute_force(cls, X, brute):
    rng = np.random.default_rng(4)
    d = cls.dichotomies(X)
    labelings = brute if brute is not None else brute_halfspaces(X)
    for trial in range(6):
        y = rng.integers(0, 2, size=len(X))
        w = (
            rng.choice([0.1, 0.2, 0.3, 1.0, 1e-20, 0.0], size=len(X))
            if trial % 2
            else np.ones(len(X))
        )
        h = cls.erm(X, y, sample_weight=None if trial % 2 == 0 else w)
        pred = cls.predict(h, X)
        err = sum(
            (Fraction(float(wi)) for wi, p, t in zip(w, pred, y) if p != bool(t)), Fraction(0)
        )
        assert err == brute_erm_error(labelings, y, w)
        # Ties go to the first minimal labeling in the order of dichotomies().
        m = d.mistakes(y, None if trial % 2 == 0 else w)
        first = int(np.argmin(m)) if trial % 2 == 0 else d.argmin(y, w)
        assert h == d.hypothesis(first)


def test_planar_rectangle_erm_matches_the_enumeration():
    # Rectangles(2).erm skips the enumeration (an O(n^3) sweep over prefix sums): it must still
    # return the enumeration's first minimal labeling, on ties, duplicates and weights.
    rng = np.random.default_rng(12)
    for trial in range(12):
        X = rng.integers(0, 6, size=(60, 2)) * 0.25
        y = rng.random(60) < 0.3 + 0.05 * trial
        w = rng.choice([0.0, 0.1, 0.3, 1.0, 2.0**-60], size=60) if trial % 2 else None
        d = Rectangles(2).dichotomies(X)
        first = int(np.argmin(d.mistakes(y))) if w is None else d.argmin(y, w)
        assert Rectangles(2).erm(X, y, sample_weight=w) == d.hypothesis(first)


def test_finite_erm_and_mistakes():
    H = np.array([[1, 0, 1, 0], [0, 1, 1, 0], [1, 0, 1, 0], [1, 1, 1, 1]], dtype=bool)
    cls = FiniteClass(H)
    x = np.array([0, 1, 2, 2])
    y = np.array([1, 1, 1, 0])
    h = cls.erm(x, y)
    assert isinstance(h, FiniteMember)
    errors = [(H[r, x] != y.astype(bool)).sum() for r in range(4)]
    assert errors[h.index] == min(errors)
    assert np.array_equal(cls.predict(h, x), H[h.index, x])


def test_mistakes_exact_and_weighted():
    rng = np.random.default_rng(6)
    X = rng.random((70, 2))  # more than 64 points: two words per labeling
    d = Halfspaces(2).dichotomies(X)
    y = rng.integers(0, 2, size=70)
    labels = d.to_numpy()
    assert np.array_equal(d.mistakes(y), (labels != y.astype(bool)).sum(axis=1))
    assert d.mistakes(y).dtype == np.int64
    w = rng.random(70)
    got = d.mistakes(y, w)
    exact = [
        float(sum((Fraction(float(a)) for a, bad in zip(w, row) if bad), Fraction(0)))
        for row in labels[:50] != y.astype(bool)
    ]
    assert got.dtype == np.float64 and list(got[:50]) == exact
    # The naive float sum differs somewhere (so the exactness check has power).
    naive = [(w * bad).sum() for bad in labels[:50] != y.astype(bool)]
    assert naive != exact


def test_erm_weights_compared_exactly():
    # 1 + 2^-80 + 2^-80 > 1 exactly, though in floating point they are equal.
    X = np.array([0.0, 1.0, 2.0])
    y = np.array([1, 0, 0])
    w = np.array([1.0, 2.0**-80, 2.0**-80])
    h = Thresholds("le").erm(X, y, sample_weight=w)
    assert np.array_equal(Thresholds("le").predict(h, X), [True, False, False])


# --------------------------------------------------------------------------------------------
# Exact prediction
# --------------------------------------------------------------------------------------------


def test_halfspace_prediction_is_exact_on_the_boundary():
    # 0.1 + 0.2 - 0.30000000000000004 is exactly -2.7e-17 in real arithmetic (doubles are
    # exact rationals) but rounds to 0 in floating point.
    h = Halfspace((1.0, 1.0), -0.30000000000000004)
    X = np.array([[0.1, 0.2], [0.2, 0.1], [0.15, 0.15000000000000004]])
    got = Halfspaces(2).predict(h, X)
    exact = [sum(Fraction(v) for v in row) + Fraction(h.b) >= 0 for row in X]
    assert list(got) == exact
    naive = [row @ np.array(h.w) + h.b >= 0 for row in X]
    assert naive != exact  # power: floating point gets at least one wrong
    # Points exactly on the boundary are labeled 1.
    assert list(Halfspaces(2).predict(Halfspace((1.0, -1.0), 0.0), [[0.1, 0.1], [3.0, 3.0]])) == [
        True,
        True,
    ]


# --------------------------------------------------------------------------------------------
# Streaming, max_count, API details
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cls,X,streamed",
    [
        (Halfspaces(2), np.random.default_rng(1).random((60, 2)), True),
        (Halfspaces(3), np.random.default_rng(1).random((9, 3)), False),
        (Intervals(), np.random.default_rng(2).random(90), True),
        (Thresholds("both"), np.random.default_rng(2).random(200), True),
        (Rectangles(2), np.random.default_rng(3).random((14, 2)), True),
        (Points(), np.arange(100.0), True),
        (Parities(7), np.random.default_rng(5).integers(0, 2, size=(30, 7)), True),
        (FiniteClass(np.random.default_rng(4).integers(0, 2, size=(300, 9))), np.arange(9), False),
    ],
)
def test_stream_equals_materialised(cls, X, streamed):
    full = cls.dichotomies(X)
    s = cls.iter_dichotomies(X, chunk_size=97)
    assert s.streamed is streamed
    chunks = list(s)
    assert all(len(c) <= 97 for c in chunks)
    assert [c.offset for c in chunks] == list(range(0, len(full), 97))
    assert np.array_equal(np.concatenate([c.packed for c in chunks]), full.packed)
    assert np.array_equal(np.concatenate([c.params for c in chunks]), full.params)
    # Re-iterable, and mistakes over the stream equal those of the whole set.
    assert sum(len(c) for c in s) == len(full) == s.count()
    y = np.arange(len(X)) % 2
    assert np.array_equal(s.mistakes(y), full.mistakes(y))
    views = list(full.chunks(50))
    assert sum(len(v) for v in views) == len(full) and views[-1].offset == 50 * (len(views) - 1)


@pytest.mark.parametrize(
    "cls,X",
    [
        (Halfspaces(2), np.random.default_rng(1).random((30, 2))),
        (Halfspaces(3), np.random.default_rng(1).random((7, 3))),
        (Intervals(), np.arange(10.0)),
        (Thresholds(), np.arange(10.0)),
        (Rectangles(2), np.random.default_rng(2).random((8, 2))),
        (Points(), np.arange(10.0)),
        (FiniteClass(np.eye(6)), np.arange(6)),
        (Parities(4), np.eye(4)),
    ],
)
def test_max_count(cls, X):
    n = cls.count_dichotomies(X)
    assert len(cls.dichotomies(X, max_count=n)) == n
    with pytest.raises(InvalidParameterError, match="max_count"):
        cls.dichotomies(X, max_count=n - 1)


def test_dichotomies_object():
    d = Intervals().dichotomies([3.0, 1.0, 2.0])
    assert d.packed.dtype == np.uint64 and d.packed.shape == (7, 1)
    assert not d.packed.flags.writeable
    assert d.to_numpy().dtype == bool and d.to_numpy().shape == (7, 3)
    assert np.array_equal(d.label(-1), d.to_numpy()[-1])
    assert "7 labelings" in repr(d)
    with pytest.raises(InvalidParameterError):
        d.hypothesis(7)
    empty = Halfspaces(2).dichotomies(np.zeros((0, 2)))
    assert len(empty) == 1 and empty.packed.shape == (1, 0)
    assert empty.to_numpy().shape == (1, 0)
    assert list(empty.mistakes([])) == [0] and list(empty.mistakes([], sample_weight=[])) == [0.0]
    assert Halfspaces(2).erm(np.zeros((0, 2)), []) == empty.hypothesis(0)


@pytest.mark.parametrize(
    "h",
    [
        Threshold(0.5, "le"),
        Interval(-1.0, 2.0),
        Rectangle((0.0, 1.0), (2.0, 3.0)),
        Halfspace((1.0, -2.0), 0.5),
        Point((1.0, 2.0)),
        FiniteMember(3),
        Parity((0, 2), 4),
    ],
)
def test_hypotheses_are_printable_and_picklable(h):
    assert pickle.loads(pickle.dumps(h)) == h
    assert type(h).__name__ in repr(h)
    with pytest.raises(AttributeError):
        h.a = 1  # frozen


def test_classes_pickle_and_compare():
    for c in (
        Thresholds("le"),
        Intervals(),
        Rectangles(3),
        Halfspaces(2),
        Points(domain_size=5),
        Parities(3),
    ):
        assert pickle.loads(pickle.dumps(c)) == c
        assert hash(pickle.loads(pickle.dumps(c))) == hash(c)
    assert Thresholds().vc_dimension == 1 and Thresholds("both").vc_dimension == 2
    assert Intervals().vc_dimension == 2 and Rectangles(3).vc_dimension == 6
    assert Halfspaces(4).vc_dimension == 5 and Points().vc_dimension == 1
    assert Parities(7).vc_dimension == 7


# --------------------------------------------------------------------------------------------
# Input validation
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,param",
    [
        (lambda: Halfspaces(2).dichotomies(np.zeros((3, 3))), "X"),
        (lambda: Halfspaces(2).dichotomies(np.zeros(3)), "X"),
        (lambda: Halfspaces(2).dichotomies([[0.0, np.nan]]), "X"),
        (lambda: Intervals().dichotomies([0.0, np.inf]), "X"),
        (lambda: Intervals().dichotomies(np.zeros((3, 2))), "X"),
        (lambda: Thresholds().dichotomies(["a", "b"]), "X"),
        (lambda: Points().dichotomies(np.array([2**60, 2**60 + 1], dtype=np.int64)), "X"),
        (lambda: Thresholds("gt"), "orientation"),
        (lambda: Halfspaces(0), "dim"),
        (lambda: Rectangles(1.5), "dim"),
        (lambda: Points(dim=2, domain_size=4), "domain_size"),
        (lambda: Points(domain_size=4).dichotomies([0, 4]), "X"),
        (lambda: Points(domain_size=4).dichotomies([0.5]), "X"),
        (lambda: FiniteClass(np.eye(3)).dichotomies([0, 3]), "X"),
        (lambda: FiniteClass([[0, 2]]), "labels"),
        (lambda: FiniteClass([lambda X: [0]]).dichotomies(np.zeros(3)), "labels"),
        (lambda: Intervals().erm([1.0, 2.0], [1]), "y"),
        (lambda: Intervals().erm([1.0, 2.0], [1, 2]), "y"),
        (lambda: Intervals().erm([1.0, 2.0], [1, 0], sample_weight=[1.0, -1.0]), "sample_weight"),
        (lambda: Intervals().erm([1.0, 2.0], [1, 0], sample_weight=[1.0, np.nan]), "sample_weight"),
        (lambda: Intervals().dichotomies([1.0], max_count=-1), "max_count"),
        (lambda: Intervals().iter_dichotomies([1.0], chunk_size=0), "chunk_size"),
        (lambda: Intervals().predict(Threshold(0.0), [1.0]), "h"),
        (lambda: Halfspaces(2).predict(Halfspace((1.0,), 0.0), [[1.0, 2.0]]), "h"),
        (lambda: Halfspaces(2).predict(Halfspace((1.0, math.nan), 0.0), [[1.0, 2.0]]), "h"),
        (lambda: Intervals().dichotomies([1.0, 2.0]).mistakes([1, 0, 1]), "y"),
        (lambda: Parities(2).dichotomies([[0, 2]]), "X"),
        (lambda: Parities(2).dichotomies([[0, 1, 1]]), "X"),
        (lambda: Parities(2).predict(Parity((2,), 2), [[0, 1]]), "h"),
    ],
)
def test_bad_input_names_the_parameter(call, param):
    with pytest.raises(InvalidParameterError) as e:
        call()
    assert e.value.parameter == param
    assert isinstance(e.value, ValueError)


def test_one_dimensional_shapes_accepted():
    a = Intervals().dichotomies([3.0, 1.0])
    b = Intervals().dichotomies([[3.0], [1.0]])
    assert np.array_equal(a.packed, b.packed)
    h = Halfspaces(1).dichotomies([2.0, 1.0, 2.0])
    assert len(h) == 4
    assert Intervals().dichotomies(np.array([3, 1], dtype=np.int32)).n_points == 2
    assert len(Thresholds().dichotomies(np.array([True, False]))) == 3


def test_doctests():
    import doctest

    import privlearn.hypotheses as H

    assert (
        doctest.testmod(H, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE).failed == 0
    )


def test_public_api_is_documented_and_cited():
    import inspect

    import privlearn.hypotheses as H

    assert H.__doc__ and "Bun, Nissim and Stemmer" in H.__doc__
    for name in H.__all__:
        obj = getattr(H, name)
        assert inspect.getdoc(obj), name
    for cls in (
        H.Thresholds,
        H.Intervals,
        H.Rectangles,
        H.Halfspaces,
        H.Parities,
        H.Points,
        H.FiniteClass,
    ):
        doc = inspect.getdoc(cls)
        assert "Order" in doc and "Representative" in doc, cls.__name__
