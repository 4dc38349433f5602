"""Tests of privlearn.gf2: exact agreement with galois (a test-only dependency) on random and
structured matrices, property tests (A x = b for solutions, A N = 0 for null-space bases,
rank-nullity), larger matrices against an independent numpy elimination, parity learning
against brute force (spec 002, test 20), the rank law of random matrices, and the GF2Matrix
container (conversion, indexing, operators, errors)."""

from __future__ import annotations

import copy
import itertools
import math
import pickle

import galois
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privlearn import InvalidParameterError
from privlearn.gf2 import GF2Matrix, inverse, learn_parity, nullspace, rank, rref, solve
from privlearn.random import Generator
from stats_helpers import assert_fits, assert_rejects

GF = galois.GF(2)

# Shapes that exercise word boundaries, degenerate cases and (rows, cols >= 128) the blocked
# elimination with several strips.
SHAPES = [
    (1, 1),
    (1, 9),
    (9, 1),
    (1, 130),
    (130, 1),
    (7, 5),
    (63, 64),
    (64, 64),
    (65, 65),
    (64, 129),
    (129, 64),
    (100, 300),
    (300, 100),
    (257, 257),
    (200, 520),
]
KINDS = ["random", "sparse", "low_rank", "zero", "identity", "dup_rows", "dup_cols"]


def structured(rows: int, cols: int, kind: str, seed: int) -> np.ndarray:
    """A ``uint8`` matrix of a given structure."""
    g = np.random.default_rng(seed)
    if kind == "random":
        return g.integers(0, 2, (rows, cols), dtype=np.uint8)
    if kind == "sparse":
        return (g.random((rows, cols)) < 0.05).astype(np.uint8)
    if kind == "low_rank":
        r = int(g.integers(0, 5))
        left = g.integers(0, 2, (rows, r))
        right = g.integers(0, 2, (r, cols))
        return ((left @ right) % 2).astype(np.uint8)
    if kind == "zero":
        return np.zeros((rows, cols), dtype=np.uint8)
    if kind == "identity":
        return np.eye(rows, cols, dtype=np.uint8)
    a = g.integers(0, 2, (rows, cols), dtype=np.uint8)
    if kind == "dup_rows":
        src = g.integers(0, max(rows // 3, 1), rows)
        return a[src]
    src = g.integers(0, max(cols // 3, 1), cols)  # dup_cols
    return a[:, src]


def cases():
    for s, (rows, cols) in enumerate(SHAPES):
        for kind in KINDS:
            yield pytest.param(
                rows, cols, kind, 100 * s + KINDS.index(kind), id=f"{rows}x{cols}-{kind}"
            )


# --------------------------------------------------------------------------------------------
# Agreement with galois
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rows,cols,kind,seed", list(cases()))
def test_agrees_with_galois(rows, cols, kind, seed):
    a = structured(rows, cols, kind, seed)
    ga = GF(a)
    r, pivots = rref(a)
    assert np.array_equal(r.to_numpy(), np.asarray(ga.row_reduce()))
    want_rank = int(np.linalg.matrix_rank(ga))
    assert rank(a) == want_rank == len(pivots)
    # Pivots: the leading one of each nonzero row of the reduced form.
    expect = [int(np.flatnonzero(row)[0]) for row in np.asarray(ga.row_reduce()) if row.any()]
    assert pivots.tolist() == expect
    # Null space: the same space as galois's basis (compared through reduced forms).
    n = nullspace(a)
    assert n.shape == (cols, cols - want_rank)
    theirs = ga.null_space()  # basis vectors as rows
    assert theirs.shape[0] == cols - want_rank
    if theirs.shape[0]:
        assert np.array_equal(rref(n.T)[0].to_numpy(), np.asarray(theirs.row_reduce()))
    # Product with a random matrix.
    b = np.random.default_rng(seed + 1).integers(0, 2, (cols, 37), dtype=np.uint8)
    assert np.array_equal((GF2Matrix(a) @ b).to_numpy(), np.asarray(ga @ GF(b)))
    assert np.array_equal(GF2Matrix(a).T.to_numpy(), a.T)


@pytest.mark.parametrize("n", [1, 2, 63, 64, 65, 130, 200])
def test_inverse_and_solve_agree_with_galois(n):
    g = np.random.default_rng(n)
    while True:
        a = g.integers(0, 2, (n, n), dtype=np.uint8)
        if np.linalg.matrix_rank(GF(a)) == n:
            break
    inv = inverse(a)
    assert np.array_equal(inv.to_numpy(), np.asarray(np.linalg.inv(GF(a))))
    b = g.integers(0, 2, (n, 3), dtype=np.uint8)
    x = solve(a, b)
    assert isinstance(x, GF2Matrix)
    assert np.array_equal(x.to_numpy(), np.asarray(np.linalg.solve(GF(a), GF(b))))
    v = solve(a, b[:, 0])
    assert isinstance(v, np.ndarray) and v.dtype == np.uint8
    assert np.array_equal(v, x.to_numpy()[:, 0])


def test_inverse_errors():
    with pytest.raises(InvalidParameterError, match="square") as err:
        inverse(np.ones((3, 4), dtype=np.uint8))
    assert err.value.parameter == "A"
    singular = np.array([[1, 1], [1, 1]], dtype=np.uint8)
    with pytest.raises(InvalidParameterError, match="singular"):
        inverse(singular)
    with pytest.raises(np.linalg.LinAlgError):  # galois agrees that it is singular
        np.linalg.inv(GF(singular))


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------


def matrices(max_rows=80, max_cols=80):
    return st.tuples(
        st.integers(0, max_rows),
        st.integers(0, max_cols),
        st.sampled_from(KINDS),
        st.integers(0, 2**32),
    ).map(lambda t: structured(*t))


@settings(max_examples=150, deadline=None)
@given(a=matrices(), k=st.integers(1, 4), seed=st.integers(0, 2**32), in_span=st.booleans())
def test_solve_properties(a, k, seed, in_span):
    rows, cols = a.shape
    g = np.random.default_rng(seed)
    if in_span:
        b = (a.astype(np.int64) @ g.integers(0, 2, (cols, k)) % 2).astype(np.uint8)
    else:
        b = g.integers(0, 2, (rows, k), dtype=np.uint8)
    x = solve(a, b)
    consistent = rank(np.hstack([a, b])) == rank(a)
    assert (x is not None) == consistent
    if in_span:
        assert x is not None
    if x is not None:
        assert isinstance(x, GF2Matrix) and x.shape == (cols, k)
        assert np.array_equal((GF2Matrix(a) @ x).to_numpy(), b)
        # Free variables are zero: the solution is supported on the pivot columns.
        _, pivots = rref(a)
        free = np.setdiff1d(np.arange(cols), pivots)
        assert not x.to_numpy()[free].any()


@settings(max_examples=150, deadline=None)
@given(a=matrices())
def test_nullspace_and_rank_nullity(a):
    rows, cols = a.shape
    n = nullspace(a)
    r = rank(a)
    assert n.shape == (cols, cols - r)  # rank-nullity
    assert not (GF2Matrix(a) @ n).to_numpy().any()  # A N = 0
    assert rank(n) == cols - r  # independent columns: a basis
    assert rank(a.T) == r  # row rank = column rank


@settings(max_examples=150, deadline=None)
@given(a=matrices())
def test_rref_properties(a):
    r, pivots = rref(a)
    rm = r.to_numpy()
    k = len(pivots)
    assert not rm[k:].any()
    for i, p in enumerate(pivots):
        assert rm[i, :p].sum() == 0 and rm[i, p] == 1
        assert rm[:, p].sum() == 1
    again, piv2 = rref(r)
    assert again == r and piv2.tolist() == pivots.tolist()
    # Same row space: stacking adds no rank.
    assert rank(np.vstack([a, rm])) == k == rank(a)


@settings(max_examples=100, deadline=None)
@given(n=st.integers(0, 70), seed=st.integers(0, 2**32))
def test_inverse_properties(n, seed):
    a = np.random.default_rng(seed).integers(0, 2, (n, n), dtype=np.uint8)
    if rank(a) < n:
        with pytest.raises(InvalidParameterError, match="singular"):
            inverse(a)
        return
    inv = inverse(a)
    assert GF2Matrix(a) @ inv == GF2Matrix.identity(n) == inv @ GF2Matrix(a)


# --------------------------------------------------------------------------------------------
# Larger matrices against an independent numpy elimination
# --------------------------------------------------------------------------------------------


def numpy_rref(a: np.ndarray):
    """Textbook Gauss-Jordan elimination on packed rows (numpy uint8 bytes, row XORs)."""
    rows, cols = a.shape
    m = np.packbits(a, axis=1, bitorder="little")
    pivots = []
    r = 0
    for c in range(cols):
        if r == rows:
            break
        byte, bit = c // 8, np.uint8(1 << (c % 8))
        col = (m[r:, byte] & bit) != 0
        hits = np.flatnonzero(col)
        if hits.size == 0:
            continue
        p = r + hits[0]
        m[[r, p]] = m[[p, r]]
        mask = (m[:, byte] & bit) != 0
        mask[r] = False
        m[mask] ^= m[r]
        pivots.append(c)
        r += 1
    return np.unpackbits(m, axis=1, count=cols, bitorder="little"), pivots


@pytest.mark.parametrize(
    "rows,cols,kind",
    [
        (600, 700, "random"),
        (700, 600, "dup_cols"),
        (1000, 1000, "random"),
        (513, 1500, "dup_rows"),
        (900, 300, "low_rank"),
    ],
)
def test_large_rref_against_numpy_elimination(rows, cols, kind):
    a = structured(rows, cols, kind, rows + cols)
    want, want_piv = numpy_rref(a)
    got, piv = rref(a)
    assert piv.tolist() == want_piv
    assert np.array_equal(got.to_numpy(), want)
    assert rank(a) == len(want_piv)


# --------------------------------------------------------------------------------------------
# Parity learning (spec 002, test 20)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("d", [1, 3, 6, 8])
def test_learn_parity_matches_brute_force(d):
    g = np.random.default_rng(d)
    candidates = np.array(list(itertools.product([0, 1], repeat=d)), dtype=np.int64)  # (2^d, d)
    for trial in range(60):
        n = int(g.integers(1, 2 * d + 3))
        x = g.integers(0, 2, (n, d), dtype=np.uint8)
        if trial % 3 == 0:  # labels of a true parity: always consistent
            y = (x.astype(np.int64) @ g.integers(0, 2, (d, 2)) % 2).astype(np.uint8)
        else:
            y = g.integers(0, 2, (n, 2), dtype=np.uint8)
        # All consistent parities per labelling, by enumeration.
        preds = (x.astype(np.int64) @ candidates.T) % 2  # (n, 2^d)
        ok = [np.flatnonzero((preds == y[:, [j]]).all(axis=0)) for j in range(2)]
        r = rank(x)
        for j in range(2):
            s = learn_parity(x, y[:, j])
            if ok[j].size == 0:
                assert s is None  # inconsistency detected
            else:
                assert s is not None and s.shape == (d,)
                assert int(s @ (1 << np.arange(d)[::-1])) in ok[j]
                assert ok[j].size == 2 ** (d - r)  # unique iff rank = d
        both = learn_parity(x, y)
        if ok[0].size and ok[1].size:
            assert isinstance(both, GF2Matrix) and both.shape == (d, 2)
            assert np.array_equal((GF2Matrix(x) @ both).to_numpy(), y)
        else:
            assert both is None


def test_learn_parity_recovers_target():
    g = np.random.default_rng(7)
    d, k = 40, 5
    s = g.integers(0, 2, (d, k), dtype=np.uint8)
    x = g.integers(0, 2, (d + 20, d), dtype=np.uint8)
    assert rank(x) == d  # fails with probability about 2^-20 for this seed; checked
    y = (x.astype(np.int64) @ s % 2).astype(np.uint8)
    out = learn_parity(x, y)
    assert isinstance(out, GF2Matrix) and np.array_equal(out.to_numpy(), s)
    assert np.array_equal(learn_parity(x, y[:, 2]), s[:, 2])
    # One flipped label on a duplicated example: no parity is consistent.
    x2 = np.vstack([x, x[:1]])
    y2 = np.concatenate([y[:, 0], 1 - y[:1, 0]])
    assert learn_parity(x2, y2) is None


def rank_law(m: int, d: int) -> np.ndarray:
    """P(rank = r), r = 0..min(m, d), of a uniform m x d matrix over GF(2): the number of such
    matrices of rank r is prod_{i<r} (2^m - 2^i)(2^d - 2^i) / (2^r - 2^i) (exact integers)."""
    out = []
    for r in range(min(m, d) + 1):
        num = math.prod((2**m - 2**i) * (2**d - 2**i) for i in range(r))
        den = math.prod(2**r - 2**i for i in range(r))
        assert num % den == 0
        out.append((num // den) / 2 ** (m * d))
    p = np.array(out)
    assert math.isclose(p.sum(), 1.0, rel_tol=1e-12)
    return p


def test_rank_distribution_matches_exact_law():
    """Ranks of random 12 x 10 matrices against the exact law (chi-square at 1e-6), with a power
    check: a rank that silently drops the last row (an off-by-one) must be rejected."""
    m, d, trials = 12, 10, 4000
    big = GF2Matrix.random(m * trials, d, rng=Generator(2002))
    ranks = np.empty(trials, dtype=np.int64)
    broken = np.empty(trials, dtype=np.int64)
    for t in range(trials):
        block = big[t * m : (t + 1) * m]
        ranks[t] = rank(block)
        broken[t] = rank(block[: m - 1])
    law = rank_law(m, d)
    assert_fits(np.bincount(ranks, minlength=d + 1), law, "rank law")
    assert_rejects(np.bincount(broken, minlength=d + 1), law, "rank ignoring the last row")
    # P(rank = d) = prod_{i<d} (1 - 2^(i - m)) (spec 002, section 3.5).
    assert math.isclose(law[d], math.prod(1 - 2.0 ** (i - m) for i in range(d)), rel_tol=1e-12)


# --------------------------------------------------------------------------------------------
# The container
# --------------------------------------------------------------------------------------------


def test_conversions_roundtrip():
    g = np.random.default_rng(1)
    for rows, cols in [(0, 0), (0, 5), (5, 0), (3, 64), (3, 65), (70, 129)]:
        a = g.integers(0, 2, (rows, cols), dtype=np.uint8)
        m = GF2Matrix(a)
        assert m.shape == (rows, cols) and len(m) == rows
        assert np.array_equal(m.to_numpy(), a) and m.to_numpy().dtype == np.uint8
        assert np.array_equal(m.to_numpy(bool), a.astype(bool))
        assert np.array_equal(np.asarray(m), a)
        assert GF2Matrix(a.astype(bool)) == m == GF2Matrix(a.tolist() if rows else a)
        assert GF2Matrix(GF(a)) == m
        assert m.packed.shape == (rows, (cols + 63) // 64) and m.packed.dtype == np.uint64
        assert not m.packed.flags.writeable
        assert GF2Matrix.from_packed(m.packed, cols) == m
        # The packing convention: column j is bit j % 64 of word j // 64.
        for i, j in zip(*np.nonzero(a)):
            assert (int(m.packed[i, j // 64]) >> int(j % 64)) & 1


def test_random_matches_core_stream():
    """GF2Matrix.random draws ceil(cols/64) words per row from the generator, like the Rust
    core's Matrix::random, and masks the padding bits."""
    m = GF2Matrix.random(3, 130, rng=5)
    raw = np.array(Generator(5).random_raw(9), dtype=np.uint64).reshape(3, 3)
    raw[:, 2] &= np.uint64(3)
    assert np.array_equal(m.packed, raw)
    assert GF2Matrix.random(40, 70, rng=9) == GF2Matrix.random(40, 70, rng=9)
    assert GF2Matrix.random(40, 70, rng=9) != GF2Matrix.random(40, 70, rng=10)


def test_copy_equality_and_hash():
    a = GF2Matrix.random(5, 7, rng=1)
    b = a.copy()
    assert a == b and a is not b
    b[0, 0] = not a[0, 0]
    assert a != b
    assert copy.copy(a) == a and copy.deepcopy(a) == a
    assert pickle.loads(pickle.dumps(a)) == a  # joblib workers
    assert GF2Matrix(a) == a
    assert GF2Matrix.zeros(2, 3) != GF2Matrix.zeros(3, 2)
    assert (a == a.to_numpy()) is False  # only matrices compare equal
    with pytest.raises(TypeError):
        hash(a)


def test_indexing():
    a_np = np.random.default_rng(3).integers(0, 2, (9, 140), dtype=np.uint8)
    a = GF2Matrix(a_np)
    assert a[2, 130] == bool(a_np[2, 130]) and isinstance(a[2, 130], bool)
    assert a[-1, -1] == bool(a_np[-1, -1])
    assert np.array_equal(a[3].to_numpy(), a_np[3:4])
    assert np.array_equal(a[:, 5].to_numpy(), a_np[:, 5:6])
    assert np.array_equal(a[2:7, 60:135].to_numpy(), a_np[2:7, 60:135])
    assert np.array_equal(a[::2, ::3].to_numpy(), a_np[::2, ::3])
    assert np.array_equal(a[[0, 4, 4]].to_numpy(), a_np[[0, 4, 4]])
    mask = a_np[:, 0] == 1
    assert np.array_equal(a[mask, 10:12].to_numpy(), a_np[mask, 10:12])
    assert np.array_equal(a[1:3, [0, 139]].to_numpy(), a_np[1:3][:, [0, 139]])
    with pytest.raises(IndexError):
        a[9]
    with pytest.raises(IndexError):
        a[0, 140]
    with pytest.raises(IndexError):
        a[0, 0, 0]
    rows = list(a)  # iteration stops at the end (IndexError)
    assert len(rows) == 9 and rows[4] == a[4]


def test_setitem():
    a_np = np.zeros((5, 100), dtype=np.uint8)
    a = GF2Matrix(a_np)
    a[1, 99] = 1
    a_np[1, 99] = 1
    a[2] = np.ones(100, dtype=np.uint8)
    a_np[2] = 1
    a[:, 3] = [1, 0, 1, 0, 1]
    a_np[:, 3] = [1, 0, 1, 0, 1]
    a[3:5, 50:52] = GF2Matrix([[1, 1], [0, 1]])
    a_np[3:5, 50:52] = [[1, 1], [0, 1]]
    a[2, 0] = False
    a_np[2, 0] = 0
    assert np.array_equal(a.to_numpy(), a_np)
    assert not (a.packed[:, -1] >> np.uint64(36)).any()  # padding stays zero
    with pytest.raises(InvalidParameterError, match="zeros and ones"):
        a[0, 0] = 2
    with pytest.raises(InvalidParameterError):
        a[0:2, 0:2] = np.ones((3, 3), dtype=np.uint8)
    assert np.array_equal(a.to_numpy(), a_np)  # nothing half-applied


def test_operators():
    g = np.random.default_rng(4)
    a_np = g.integers(0, 2, (6, 70), dtype=np.uint8)
    b_np = g.integers(0, 2, (70, 9), dtype=np.uint8)
    a, b = GF2Matrix(a_np), GF2Matrix(b_np)
    want = (a_np.astype(np.int64) @ b_np % 2).astype(np.uint8)
    assert np.array_equal((a @ b).to_numpy(), want)
    assert np.array_equal((a @ b_np).to_numpy(), want)
    assert np.array_equal((a_np @ b).to_numpy(), want)  # numpy defers to __rmatmul__
    x = g.integers(0, 2, 70, dtype=np.uint8)
    assert np.array_equal(a @ x, a_np.astype(np.int64) @ x % 2)
    v = g.integers(0, 2, 6, dtype=np.uint8)
    assert np.array_equal(v @ a, v.astype(np.int64) @ a_np % 2)
    assert (a + a) == GF2Matrix.zeros(6, 70)
    assert np.array_equal(
        (a - GF2Matrix.identity(70)[:6]).to_numpy(), a_np ^ np.eye(6, 70, dtype=np.uint8)
    )
    assert a.T.T == a and a.transpose() == a.T
    with pytest.raises(InvalidParameterError, match="inner dimensions"):
        a @ a
    with pytest.raises(InvalidParameterError, match="shapes differ"):
        a + b


def test_input_validation():
    with pytest.raises(InvalidParameterError, match="zeros and ones") as err:
        rank(np.array([[0, 2]]))
    assert err.value.parameter == "A"
    with pytest.raises(InvalidParameterError, match="dtype float64"):
        rref(np.array([[0.0, 1.0]]))
    with pytest.raises(InvalidParameterError, match="2-dimensional"):
        nullspace(np.zeros(3, dtype=np.uint8))
    with pytest.raises(InvalidParameterError, match="2-dimensional"):
        GF2Matrix(np.zeros((2, 2, 2), dtype=np.uint8))
    with pytest.raises(InvalidParameterError) as err:
        solve(np.eye(3, dtype=np.uint8), np.ones(4, dtype=np.uint8))
    assert err.value.parameter == "b"
    with pytest.raises(InvalidParameterError) as err:
        learn_parity(np.eye(3, dtype=np.uint8), np.ones((2, 1), dtype=np.uint8))
    assert err.value.parameter == "y"
    with pytest.raises(InvalidParameterError) as err:
        GF2Matrix.from_packed(np.array([[1 << 5]], dtype=np.uint64), 5)
    assert err.value.parameter == "words"
    with pytest.raises(InvalidParameterError, match="words each"):
        GF2Matrix.from_packed(np.zeros((2, 2), dtype=np.uint64), 64)
    with pytest.raises(InvalidParameterError) as err:
        GF2Matrix.zeros(-1, 3)
    assert err.value.parameter == "rows"
    with pytest.raises(InvalidParameterError):
        GF2Matrix.random(2, True)
    with pytest.raises(InvalidParameterError) as err:
        GF2Matrix.random(2, 2, rng="x")
    assert err.value.parameter == "rng"


def test_setitem_two_dimensional_views():
    a = GF2Matrix.random(6, 80, rng=3)
    b = a.copy()
    b[:, 7] = a[:, 70]  # a 6 x 1 matrix into one column
    b[2] = a[5]  # a 1 x 80 matrix into one row
    src = a.to_numpy()
    want = src.copy()
    want[:, 7] = src[:, 70]
    want[2] = src[5]
    assert np.array_equal(b.to_numpy(), want)
