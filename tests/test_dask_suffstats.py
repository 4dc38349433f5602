"""Sufficient statistics on Dask input (issue 19, scale-out): exact statistics, equal bit for bit
on numpy and Dask input for any chunking (uneven row chunks, column chunks, intercept, clipping
active), counts below public grids equal, Dask input checked before anything is computed
(unknown chunk sizes, shapes, dtypes), non-finite values refused after the pass with a
data-independent message, Dask imported lazily. With AdaSSP: the same seed gives the same model
and the same ledger on numpy and Dask input, and bad Dask input charges nothing.

The cluster is a ``dask.distributed.LocalCluster`` with two worker processes, started once for
the module. Skipped when dask or distributed is not installed.
"""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from privlearn import InvalidParameterError  # noqa: E402
from privlearn.learners._suffstats import (  # noqa: E402
    clip_block,
    is_dask_array,
    norm_counts,
    sufficient_statistics,
)
from suffstats_helpers import packed as _packed  # noqa: E402

D_NORM, L_BOUND = 3.0, 2.5


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def _data(n: int = 5000, d: int = 6, seed: int = 0):
    """Rows of norms up to ~3x the bound (clipping active), labels beyond the label bound, a few
    adversarial values (tiny, exactly on the bound, far beyond it)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * rng.uniform(0.1, 2.0, size=(n, 1))
    y = rng.standard_normal(n) * 2.0
    X[0] = 1e-300
    X[1] = 0.0
    X[1, 0] = D_NORM  # exactly on the bound
    X[2] = 1e150
    X[3, :] = D_NORM / math.sqrt(d)  # on the bound up to rounding
    X[4, :2] = [1e300, -3e299]  # a squared norm that overflows float64
    y[:3] = [L_BOUND, -1e200, 5e-324]
    return X, y


def _exact_reference(X, y, intercept):
    """The statistics from the module's definition, in rationals: the clipped values truncated
    toward zero to the grid 2^(e - 54) of their column (2^e the smallest power of two >= the
    column's bound), summed exactly, rounded once."""
    Xc, yc = clip_block(X, y, D_NORM, L_BOUND, intercept)
    Z = np.column_stack([Xc, yc])
    bounds = [D_NORM] * X.shape[1] + ([abs(intercept)] if intercept is not None else [])
    bounds.append(L_BOUND)
    exps = [math.ceil(math.log2(b)) for b in bounds]

    def trunc(v: float, e: int) -> Fraction:
        return Fraction(int(Fraction(v) * 2 ** (54 - e))) / Fraction(2) ** (54 - e)

    Q = [[trunc(float(Z[i, j]), exps[j]) for j in range(Z.shape[1])] for i in range(Z.shape[0])]
    p = Z.shape[1]
    M = np.empty((p, p))
    for j in range(p):
        for k in range(p):
            M[j, k] = float(sum(row[j] * row[k] for row in Q))
    return M, Q


@pytest.mark.parametrize("intercept", [None, 3.0, 0.7])
def test_numpy_statistics_are_the_exact_sums_rounded_once(intercept):
    X, y = _data(400, 4, seed=1)
    s = sufficient_statistics(X, y, data_norm=D_NORM, label_bound=L_BOUND, intercept=intercept)
    ref, Q = _exact_reference(X, y, intercept)
    assert np.array_equal(_packed(s), ref)
    assert s.n == 400
    assert np.array_equal(s.xtx, s.xtx.T)
    # every truncated clipped row is within the bounds, exactly
    assert max(sum(v * v for v in row[:4]) for row in Q) <= Fraction(D_NORM) ** 2
    assert max(abs(row[-1]) for row in Q) <= Fraction(L_BOUND)
    # the row whose squared norm overflows is clipped to the bound, in its direction
    Xc, _ = clip_block(X, y, D_NORM, L_BOUND, None)
    assert abs(np.linalg.norm(Xc[4]) - D_NORM) < 1e-12
    assert np.allclose(Xc[4] / D_NORM, X[4] / np.linalg.norm(X[4] / 1e300) / 1e300)
    # and the statistics are those of the plain float products up to float rounding
    Xc, yc = clip_block(X, y, D_NORM, L_BOUND, intercept)
    assert np.allclose(s.xtx, Xc.T @ Xc, rtol=1e-12, atol=1e-12)
    assert np.allclose(s.xty, Xc.T @ yc, rtol=1e-12, atol=1e-12)


def test_to_float_is_the_exact_value_rounded_once():
    """The integer-to-float conversion of the exact sums (``ldexp`` of a correctly rounded
    ``float(int)``, rationals near the subnormal range) equals the rational value rounded once
    to nearest, ties to even: random integers up to 2^170, halfway cases, and exponents whose
    results are normal, subnormal and zero."""
    from privlearn.learners._suffstats import _to_float

    rng = np.random.default_rng(7)

    def reference(t: int, e: int) -> float:
        return float(Fraction(t) * Fraction(2) ** e)  # int / int true division: rounded once

    cases = []
    for bits in (1, 20, 53, 54, 55, 60, 108, 170):
        for _ in range(40):
            t = int(rng.integers(1, 2**62)) << max(bits - 62, 0)
            t = (t | 1) % (1 << bits) or 1
            cases.append(t if rng.random() < 0.7 else -t)
    # exactly halfway between two floats: 54 significant bits ending in 1 (ties to even)
    for m in (2**53 + 1, 2**53 + 3, 2**54 - 1):
        cases += [m, -m, m << 40]
    for t in cases:
        for e in (-200, -108, 0, 30, -1000, -1040, -1074 - t.bit_length() // 2, -1130):
            got, want = _to_float(t, e), reference(t, e)
            assert got == want and math.copysign(1.0, got) == math.copysign(1.0, want), (t, e)
    assert _to_float(0, -50) == 0.0


def test_clipped_rows_are_exactly_within_the_bound():
    """Rows a few ulps around the bound, in many dimensions: the exact (rational) norm of each
    clipped row is at most data_norm (the margin absorbs the rounding of the norm)."""
    rng = np.random.default_rng(2)
    for d in (1, 3, 17, 200):
        base = rng.standard_normal((300, d))
        base /= np.sqrt((base * base).sum(axis=1))[:, None]
        X = base * (D_NORM * (1 + rng.integers(-40, 40, size=(300, 1)) * 2.0**-52))
        Xc, _ = clip_block(X, np.zeros(300), D_NORM, L_BOUND, None)
        worst = max(sum(Fraction(float(v)) ** 2 for v in row) for row in Xc)
        assert worst <= Fraction(D_NORM) ** 2
        # the clipping moves a row by at most a relative 1e-12
        assert np.allclose(Xc, X, rtol=1e-12, atol=0)


def test_numpy_result_does_not_depend_on_layout_or_dtype():
    X, y = _data(3000, 5)
    ref = sufficient_statistics(X, y, data_norm=D_NORM, label_bound=L_BOUND, intercept=1.0)
    for X2 in (np.asfortranarray(X), X[::-1][::-1], np.vstack([X, X])[:3000]):
        s = sufficient_statistics(X2, y, data_norm=D_NORM, label_bound=L_BOUND, intercept=1.0)
        assert np.array_equal(_packed(s), _packed(ref))
    # rows in another order: the same exact sums
    perm = np.random.default_rng(3).permutation(3000)
    s = sufficient_statistics(
        X[perm], y[perm], data_norm=D_NORM, label_bound=L_BOUND, intercept=1.0
    )
    assert np.array_equal(_packed(s), _packed(ref))


def test_dask_statistics_equal_numpy(client):
    X, y = _data(6011, 7)
    for intercept in (None, D_NORM):
        ref = sufficient_statistics(
            X, y, data_norm=D_NORM, label_bound=L_BOUND, intercept=intercept
        )
        chunkings = [
            (da.from_array(X, chunks=(1001, 7)), da.from_array(y, chunks=1001)),
            # uneven row chunks, y chunked differently, X chunked along its columns
            (
                da.from_array(X, chunks=((2000, 1, 11, 3000, 999), (3, 4))),
                da.from_array(y, chunks=2500),
            ),
            (da.from_array(X, chunks=(6011, 7)), y),  # numpy y with a Dask X
            (X, da.from_array(y, chunks=4096)),  # numpy X with a Dask y
        ]
        for Xd, yd in chunkings:
            s = sufficient_statistics(
                Xd, yd, data_norm=D_NORM, label_bound=L_BOUND, intercept=intercept
            )
            assert s.n == ref.n
            assert isinstance(s.xtx, np.ndarray) and isinstance(s.xty, np.ndarray)
            assert np.array_equal(_packed(s), _packed(ref))


def test_dask_statistics_other_dtypes(client):
    rng = np.random.default_rng(4)
    X32 = rng.standard_normal((5000, 3)).astype(np.float32) * 3
    Xi = rng.integers(-3, 4, size=(5000, 3))
    y = rng.standard_normal(5000)
    for X in (X32, Xi):
        ref = sufficient_statistics(X.astype(np.float64), y, data_norm=D_NORM, label_bound=L_BOUND)
        s = sufficient_statistics(
            da.from_array(X, chunks=1234),
            da.from_array(y, chunks=1234),
            data_norm=D_NORM,
            label_bound=L_BOUND,
        )
        assert np.array_equal(_packed(s), _packed(ref))


def test_norm_counts_equal_and_correct(client):
    X, y = _data(10007, 5)
    grid_x = np.geomspace(1e-3, 1e3, 40)
    grid_y = np.concatenate([[0.0], np.geomspace(1e-2, 1e2, 30)])
    ref = norm_counts(X, y, grid_x=grid_x, grid_y=grid_y)
    with np.errstate(over="ignore"):  # the row of 1e300 has norm inf here: beyond every point
        norms = np.sqrt((X * X).sum(axis=1))
    assert ref.n == 10007
    assert np.array_equal(ref.x, [(norms <= g).sum() for g in grid_x])
    assert np.array_equal(ref.y, [(np.abs(y) <= g).sum() for g in grid_y])
    Xd = da.from_array(X, chunks=((1000, 9007), (2, 3)))
    yd = da.from_array(y, chunks=3333)
    got = norm_counts(Xd, yd, grid_x=grid_x, grid_y=grid_y)
    assert np.array_equal(got.x, ref.x) and np.array_equal(got.y, ref.y) and got.n == ref.n
    only_x = norm_counts(Xd, grid_x=grid_x)
    assert only_x.y is None and np.array_equal(only_x.x, ref.x)
    only_y = norm_counts(None, yd, grid_y=grid_y)
    assert only_y.x is None and np.array_equal(only_y.y, ref.y)


def _exploding(shape, chunks):
    """A Dask array whose blocks raise when computed (anything computing it fails loudly)."""

    def boom(block):
        raise RuntimeError("computed")

    return da.zeros(shape, chunks=chunks).map_blocks(boom, dtype=np.float64)


def test_unknown_chunk_sizes_refused_before_compute(client):
    X = _exploding((100, 3), (50, 3))
    unknown = X[X[:, 0] > 0]
    assert math.isnan(unknown.shape[0])
    y = _exploding((100,), 50)
    y_unknown = y[y > 0]
    for Xa, ya, name in ((unknown, y, "X"), (X, y_unknown, "y")):
        with pytest.raises(InvalidParameterError, match="unknown chunk sizes") as err:
            sufficient_statistics(Xa, ya, data_norm=1.0, label_bound=1.0)
        assert err.value.parameter == name
        assert "compute_chunk_sizes" in str(err.value)
    with pytest.raises(InvalidParameterError, match="unknown chunk sizes"):
        norm_counts(unknown, grid_x=[1.0])
    with pytest.raises(InvalidParameterError, match="unknown chunk sizes"):
        norm_counts(None, y_unknown, grid_y=[1.0])


def test_bad_dask_shapes_and_dtypes_refused_before_compute(client):
    X = _exploding((100, 3), (50, 3))
    y = _exploding((100,), 50)
    cases = [
        (X[:, 0], y, "X"),  # 1-d X
        (X, X, "y"),  # 2-d y
        (X, y[:99], "y"),  # lengths differ
        (X.astype(complex), y, "X"),
        (X, y.astype(object), "y"),
        (X[:0], y[:0], "X"),  # empty
        ([[1.0]], y, "X"),  # a list with a Dask y
    ]
    for Xa, ya, name in cases:
        with pytest.raises(InvalidParameterError) as err:
            sufficient_statistics(Xa, ya, data_norm=1.0, label_bound=1.0)
        assert err.value.parameter == name, (err.value, name)


@pytest.mark.parametrize("where", ["X nan", "X inf", "y nan", "y -inf"])
def test_non_finite_values_refused_after_the_pass(client, where):
    X, y = _data(3000, 4)
    bad = np.nan if "nan" in where else (-np.inf if "-" in where else np.inf)
    if where.startswith("X"):
        X[2500, 1] = bad
    else:
        y[17] = bad
    name = where[0]
    for Xa, ya in ((X, y), (da.from_array(X, chunks=700), da.from_array(y, chunks=700))):
        with pytest.raises(InvalidParameterError) as err:
            sufficient_statistics(Xa, ya, data_norm=D_NORM, label_bound=L_BOUND, intercept=1.0)
        assert err.value.parameter == name
        assert str(err.value) == f"{name}: contains NaN or infinity (values must be finite)"
        with pytest.raises(InvalidParameterError) as err:
            norm_counts(Xa, ya, grid_x=[1.0], grid_y=[1.0])
        assert err.value.parameter == name


def test_non_numpy_input_refused():
    for X, y in (([[1.0, 2.0]], np.ones(1)), (np.ones((1, 2)), [1.0])):
        with pytest.raises(InvalidParameterError, match="numpy array or a dask.array.Array"):
            sufficient_statistics(X, y, data_norm=1.0, label_bound=1.0)
    assert not is_dask_array(np.ones(3))
    assert is_dask_array(da.ones(3))


def test_dask_is_imported_lazily_and_optional():
    """Importing the module does not import dask; with dask then made unimportable, numpy input
    works and the error for a non-array is still clear (one subprocess: a fresh interpreter)."""
    code = (
        "import sys\n"
        "import numpy as np\n"
        "from privlearn.learners import _suffstats as s\n"
        "assert 'dask' not in sys.modules, 'dask imported eagerly'\n"
        "sys.modules['dask'] = None  # any 'import dask...' now fails\n"
        "sys.modules['dask.array'] = None\n"
        "st = s.sufficient_statistics(np.ones((3, 2)), np.ones(3), data_norm=1.0,"
        " label_bound=1.0)\n"
        "assert st.n == 3 and st.yty == 3.0 and not s.is_dask_array(np.ones(2))\n"
        "c = s.norm_counts(np.ones((3, 2)), grid_x=[1.0, 2.0])\n"
        "assert list(c.x) == [0, 3]\n"
        "try:\n"
        "    s.sufficient_statistics([[1.0]], np.ones(1), data_norm=1.0, label_bound=1.0)\n"
        "except s.InvalidParameterError as err:\n"
        "    assert 'numpy array or a dask.array.Array' in str(err)\n"
        "else:\n"
        "    raise AssertionError('no error')\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


# ------------------------------------------------------------------------------------------
# With the AdaSSP learner (helper A's learners/adassp.py): same seed, same release and ledger
# ------------------------------------------------------------------------------------------


def _adassp():
    mod = pytest.importorskip("privlearn.learners.adassp")
    return mod.AdaSSPRegressor


def _fit(cls, X, y, seed, accountant=None):
    from privlearn.accounting import Accountant, Budget

    acc = accountant if accountant is not None else Accountant(Budget(10.0, 1e-3))
    est = cls(
        epsilon=1.0, delta=1e-6, data_norm=D_NORM, label_bound=L_BOUND, rng=seed, accountant=acc
    )
    return est.fit(X, y), acc


def _ledger(acc):
    return [(e.label, e.budget, e.kind, repr(e.event)) for e in acc.ledger], acc.spent


def test_adassp_same_seed_same_model_on_numpy_and_dask(client):
    cls = _adassp()
    X, y = _data(6000, 5)
    ref, acc_ref = _fit(cls, X, y, seed=11)
    got, acc = _fit(cls, da.from_array(X, chunks=(1777, 2)), da.from_array(y, chunks=2500), 11)
    assert np.array_equal(got.coef_, ref.coef_)
    assert np.array_equal(np.asarray(got.intercept_), np.asarray(ref.intercept_))
    assert got.n_features_in_ == 5
    assert _ledger(acc) == _ledger(acc_ref)


def test_adassp_private_bounds_same_on_numpy_and_dask(client):
    from privlearn.accounting import Accountant, Budget

    cls = _adassp()
    X, y = _data(6000, 4, seed=5)
    fits = []
    for Xa, ya in ((X, y), (da.from_array(X, chunks=(2500, 3)), da.from_array(y, chunks=999))):
        acc = Accountant(Budget(10.0, 1e-3))
        est = cls(
            epsilon=1.0,
            delta=1e-6,
            data_norm="private",
            label_bound="private",
            rng=7,
            accountant=acc,
        ).fit(Xa, ya)
        fits.append((est, _ledger(acc)))
    (a, la), (b, lb) = fits
    assert (a.data_norm_, a.label_bound_) == (b.data_norm_, b.label_bound_)
    assert np.array_equal(a.coef_, b.coef_) and a.intercept_ == b.intercept_
    assert la == lb


def test_adassp_bad_dask_input_charges_nothing(client):
    from privlearn.accounting import Accountant, Budget

    cls = _adassp()
    X = _exploding((100, 3), (50, 3))
    y = _exploding((100,), 50)
    Xn, yn = _data(2000, 3)
    Xn[5, 0] = np.nan
    bad = [
        (X[X[:, 0] > 0], y),  # unknown chunk sizes: refused before compute
        (da.from_array(Xn, chunks=500), da.from_array(yn, chunks=500)),  # NaN: after the pass
    ]
    for Xa, ya in bad:
        acc = Accountant(Budget(10.0, 1e-3))
        with pytest.raises(InvalidParameterError):
            _fit(cls, Xa, ya, seed=0, accountant=acc)
        assert acc.spent == Budget(0.0) and acc.ledger == ()


# --------------------------------------------------------------------------------------------
# Mutation-testing details (issue 19 sample)
# --------------------------------------------------------------------------------------------


def test_norm_counts_numpy_rows_must_match_and_either_side_alone():
    X = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0], [0.0, 0.0], [1.0, 0.0]])
    y = np.array([0.5, -2.0, 1.5, 0.0])
    with pytest.raises(InvalidParameterError) as err:
        norm_counts(X, y, grid_x=[1.0], grid_y=[1.0])
    assert err.value.parameter == "y" and str(err.value).startswith("y: must have as many rows")
    only_x = norm_counts(X, grid_x=[0.5, 1.0, 5.0, 10.0])  # norms 5, 0.5, 10, 0, 1
    assert only_x.y is None and only_x.n == 5 and only_x.x.tolist() == [2, 3, 4, 5]
    only_y = norm_counts(None, y, grid_y=[0.0, 1.0, 2.0])
    assert only_y.x is None and only_y.n == 4 and only_y.y.tolist() == [1, 2, 4]


def test_numpy_statistics_are_the_exact_sums():
    """The numpy path clips the labels to ``label_bound`` too: the exact reference of the
    module's definition (labels here reach 1e200)."""
    from privlearn.learners._suffstats import sufficient_statistics

    X, y = _data(300, 3, seed=2)
    for intercept in (None, 1.5):
        s = sufficient_statistics(X, y, data_norm=D_NORM, label_bound=L_BOUND, intercept=intercept)
        ref, _ = _exact_reference(X, y, intercept)
        assert np.array_equal(_packed(s), ref) and s.n == 300


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")
def test_values_beyond_float64_are_refused_as_non_finite(client):
    """The statistics are float64: an X entry finite only in a wider float (``longdouble``
    1e400) becomes infinite there and is refused as non-finite (as the learners' numpy path
    refuses it), on numpy and Dask input, instead of being clipped."""
    if np.finfo(np.longdouble).max <= np.finfo(np.float64).max:
        pytest.skip("longdouble is float64 on this platform")
    X = np.ones((40, 2), dtype=np.longdouble)
    X[7, 1] = np.longdouble("1e400")
    y = np.ones(40)
    for Xa, ya in ((X, y), (da.from_array(X, chunks=20), da.from_array(y, chunks=20))):
        with pytest.raises(InvalidParameterError) as err:
            sufficient_statistics(Xa, ya, data_norm=1.0, label_bound=1.0)
        assert err.value.parameter == "X"
        assert str(err.value) == "X: contains NaN or infinity (values must be finite)"


def test_dask_label_chunks_delivered_as_columns_are_flattened(client):
    """A label chunk that computes to a column ``(m, 1)`` under 1-d metadata (e.g. a
    one-column frame's values) is read as its ``m`` labels: the same statistics as numpy."""
    from dask import delayed

    X, y = _data(600, 3, seed=5)
    ref = sufficient_statistics(X, y, data_norm=D_NORM, label_bound=L_BOUND)
    column = da.concatenate(
        [
            da.from_delayed(delayed(np.reshape)(y[k : k + 200], (-1, 1)), (200,), y.dtype)
            for k in range(0, 600, 200)
        ]
    )
    s = sufficient_statistics(
        da.from_array(X, chunks=(200, 3)), column, data_norm=D_NORM, label_bound=L_BOUND
    )
    assert np.array_equal(_packed(s), _packed(ref))
