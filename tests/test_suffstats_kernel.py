"""The Rust kernel of the exact sufficient statistics (``privlearn_core::suffstats`` through
``learners._suffstats``) against an independent exact reference written here: the per-row map
of the module docstring in Python floats (IEEE operations, one at a time, in the documented
order), the truncation to the columns' grids and the Gram sums in Python integers, the rounding
through ``Fraction`` (one correctly rounded division). Adversarial rows: squared norms exactly on
the clipping threshold and one ulp either side, huge rows (overflowing squared norms), subnormal
and tiny values, negative zero, mixed signs, ``d = 1``, with and without an intercept, bounds at
their floors. Also: numpy and Dask input (uneven chunks) give equal statistics, the bounds'
floors are refused with an error naming the parameter, non-finite values are refused.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from privlearn import InvalidParameterError, _core
from privlearn.learners._suffstats import _column_exponents, sufficient_statistics
from suffstats_helpers import packed as _packed


def _frexp_exponent(v: float) -> int:
    return math.frexp(v)[1]


def _pow2_at_least(bound: float) -> int:
    """The smallest e with 2^e >= bound, from exact rationals."""
    e = 0
    b = Fraction(bound)
    while Fraction(2) ** e < b:
        e += 1
    while Fraction(2) ** (e - 1) >= b:
        e -= 1
    return e


def _row_map(row, label, data_norm, label_bound, intercept):
    """One row clipped (documented float operations) and its label clamped; also checks the
    premise of the sensitivities: the clipped row's exact norm is at most data_norm."""
    d = len(row)
    z = [float(v) if math.isfinite(v) else 0.0 for v in row]

    def squared(values):
        s = values[0] * values[0]
        for v in values[1:]:
            s = s + v * v
        return s

    sq = squared(z)
    if not sq <= 2.0**1000:
        shift = _frexp_exponent(data_norm) + 2 - _frexp_exponent(max(abs(v) for v in z))
        z = [math.ldexp(v, shift) for v in z]
        sq = squared(z)
    margin = (d + 17) * 2.0**-52
    if sq > (data_norm * data_norm) * (1.0 - 2.0 * margin):
        f = (data_norm * (1.0 - margin)) / math.sqrt(sq)
        z = [v * f for v in z]
    assert sum(Fraction(v) ** 2 for v in z) <= Fraction(data_norm) ** 2
    if intercept is not None:
        z.append(intercept)
    lab = float(label) if math.isfinite(label) else 0.0
    z.append(min(max(lab, -label_bound), label_bound))
    return z


def _reference(X, y, data_norm, label_bound, intercept):
    """(exact upper-triangle integers, rounded p x p matrix) from the definition."""
    d = X.shape[1]
    bounds = [data_norm] * d + ([abs(intercept)] if intercept is not None else []) + [label_bound]
    exps = [_pow2_at_least(b) for b in bounds]
    p = len(exps)
    T = [[0] * p for _ in range(p)]
    for row, label in zip(X.tolist(), y.tolist()):
        z = _row_map(row, label, data_norm, label_bound, intercept)
        q = []
        for v, e in zip(z, exps):
            scaled = Fraction(v) * Fraction(2) ** (54 - e)
            t = math.floor(scaled) if scaled >= 0 else math.ceil(scaled)  # toward zero
            assert abs(t) <= 2**54
            q.append(t)
        for j in range(p):
            for k in range(j, p):
                T[j][k] += q[j] * q[k]
    M = np.empty((p, p))
    for j in range(p):
        for k in range(j, p):
            scale = Fraction(2) ** (exps[j] + exps[k] - 108)
            value = Fraction(T[j][k]) * scale
            M[j, k] = M[k, j] = value.numerator / value.denominator  # rounded once
    upper = [T[j][k] for j in range(p) for k in range(j, p)]
    return upper, M, exps


def _on_threshold_rows(data_norm, rng, count=40):
    """2-d rows whose float squared norm is exactly the clipping threshold, and rows one ulp of
    the second entry either side of it."""
    margin = (2 + 17) * 2.0**-52
    thr = (data_norm * data_norm) * (1.0 - 2.0 * margin)
    rows = []
    while len(rows) < count:
        a = float(rng.uniform(0.05, 0.95)) * data_norm
        b0 = math.sqrt(thr - a * a)
        for k in range(-4, 5):
            b = b0
            for _ in range(abs(k)):
                b = math.nextafter(b, math.inf if k > 0 else 0.0)
            if a * a + b * b == thr:
                rows += [[a, b], [-a, math.nextafter(b, math.inf)], [a, -math.nextafter(b, 0.0)]]
                break
    return rows


def _adversarial(d, data_norm, label_bound, seed):
    rng = np.random.default_rng(seed)
    rows = [[0.0] * d, [-0.0] * d, [data_norm] + [0.0] * (d - 1), [-data_norm] + [-0.0] * (d - 1)]
    rows += [[1e300] * d, [-1e300] + [3e299] * (d - 1), [1e150] * d, [5e-324] * d]
    rows += [[-2.5e-310] * d, [data_norm / math.sqrt(d)] * d]
    if d == 2:
        rows += _on_threshold_rows(data_norm, rng)
    for i in range(120):  # a few ulps around the bound, random directions
        v = rng.standard_normal(d)
        v = v / math.sqrt(float(np.sum(v * v))) * data_norm * (1 + (i % 41 - 20) * 2.0**-52)
        rows.append(v.tolist())
    for i in range(120):  # magnitudes from tiny to far beyond the bound
        rows.append((rng.standard_normal(d) * data_norm * 2.0 ** (i % 40 * 3 - 80)).tolist())
    X = np.array(rows, dtype=np.float64)
    labels = [label_bound, -label_bound, 1e300, -1e300, 5e-324, -0.0]
    y = np.concatenate([labels, rng.standard_normal(len(rows) - len(labels)) * label_bound * 2])
    return X, y


CASES = [
    (1, 3.0, 2.5, None),
    (1, 3.0, 2.5, 1.0),
    (2, 1.0, 1.0, None),
    (2, 8.0, 9.0, 1.0),
    (5, 0.7, 2.0**-20, -0.3),
    (3, 2.0**-400, 2.0**-900, 2.0**-900),
    (4, 2.0**40, 3e20, 2.0**40),
]


@pytest.mark.parametrize("d, data_norm, label_bound, intercept", CASES)
def test_kernel_equals_the_exact_reference(d, data_norm, label_bound, intercept):
    X, y = _adversarial(d, data_norm, label_bound, seed=d)
    upper, M, exps = _reference(X, y, data_norm, label_bound, intercept)
    assert exps == _column_exponents(d, data_norm, label_bound, intercept)
    hi, lo, rows, bad_x, bad_y = _core.suffstats_gram(
        X.reshape(-1), y, d, data_norm, label_bound, intercept, exps
    )
    assert (rows, bad_x, bad_y) == (X.shape[0], 0, 0)
    assert all(0 <= v < 2**64 for v in lo)
    assert [(h << 64) + v for h, v in zip(hi, lo)] == upper
    s = sufficient_statistics(
        X, y, data_norm=data_norm, label_bound=label_bound, intercept=intercept
    )
    got = _packed(s)
    assert np.array_equal(got, M)
    # signed zeros too (a negative entry that rounds to zero stays -0.0)
    assert np.array_equal(np.signbit(got), np.signbit(M))


def test_non_finite_values_are_counted_as_zero_and_refused():
    X = np.array([[1.0, np.inf], [np.nan, 2.0], [0.5, 0.5]])
    y = np.array([np.nan, 1.0, -np.inf])
    exps = _column_exponents(2, 3.0, 2.0, None)
    hi, lo, rows, bad_x, bad_y = _core.suffstats_gram(X.reshape(-1), y, 2, 3.0, 2.0, None, exps)
    assert (rows, bad_x, bad_y) == (3, 2, 2)
    Xz = np.where(np.isfinite(X), X, 0.0)
    yz = np.where(np.isfinite(y), y, 0.0)
    upper, _, _ = _reference(Xz, yz, 3.0, 2.0, None)
    assert [(h << 64) + v for h, v in zip(hi, lo)] == upper
    for bad, name in ((X, "X"), (np.ones((3, 2)), "y")):
        with pytest.raises(InvalidParameterError) as err:
            sufficient_statistics(
                bad, y if name == "y" else np.ones(3), data_norm=3.0, label_bound=2.0
            )
        assert err.value.parameter == name


def test_bound_floors_are_refused_naming_the_parameter():
    X, y = np.ones((4, 2)), np.ones(4)
    for kwargs, name in (
        (dict(data_norm=2.0**-401, label_bound=1.0), "data_norm"),
        (dict(data_norm=1.0, label_bound=2.0**-901), "label_bound"),
        (dict(data_norm=1.0, label_bound=1.0, intercept=-(2.0**-901)), "intercept"),
        (dict(data_norm=1.0, label_bound=1.0, intercept=0.0), "intercept"),
    ):
        with pytest.raises(InvalidParameterError) as err:
            sufficient_statistics(X, y, **kwargs)
        assert err.value.parameter == name
    s = sufficient_statistics(X, y, data_norm=2.0**-400, label_bound=2.0**-900)
    assert s.n == 4 and np.all(np.isfinite(s.xtx))
    # the kernel checks its own premises too (exponents, bounds)
    with pytest.raises(InvalidParameterError):
        _core.suffstats_gram(X.reshape(-1), y, 2, 1.0, 1.0, None, [0, 0, 1])
    with pytest.raises(InvalidParameterError):
        _core.suffstats_gram(X.reshape(-1), y, 2, 2.0**-401, 1.0, None, [-401, -401, 0])


@pytest.mark.parametrize("bad", ["X", "y"])
def test_input_that_is_not_an_array_is_refused_naming_it(bad):
    """A list (neither a numpy nor a Dask array) is refused naming the argument, ``X`` or ``y``
    as the signature spells them."""
    X, y = np.ones((4, 2)), np.ones(4)
    args = {"X": X.tolist() if bad == "X" else X, "y": y.tolist() if bad == "y" else y}
    with pytest.raises(InvalidParameterError) as err:
        sufficient_statistics(args["X"], args["y"], data_norm=1.0, label_bound=1.0)
    assert err.value.parameter == bad
    assert str(err.value).startswith(bad + ":")


@pytest.mark.parametrize("bad", ["X", "y"])
def test_non_real_dtype_is_refused_naming_it(bad):
    """A complex array for X or y is refused naming it (real numbers only)."""
    X, y = np.ones((4, 2)), np.ones(4)
    args = {
        "X": X.astype(complex) if bad == "X" else X,
        "y": y.astype(complex) if bad == "y" else y,
    }
    with pytest.raises(InvalidParameterError) as err:
        sufficient_statistics(args["X"], args["y"], data_norm=1.0, label_bound=1.0)
    assert err.value.parameter == bad


def test_numpy_and_dask_inputs_give_equal_statistics():
    da = pytest.importorskip("dask.array")
    import dask

    X, y = _adversarial(3, 2.0, 1.5, seed=11)
    for intercept in (None, 1.0):
        ref = sufficient_statistics(X, y, data_norm=2.0, label_bound=1.5, intercept=intercept)
        _, M, _ = _reference(X, y, 2.0, 1.5, intercept)
        assert np.array_equal(_packed(ref), M)
        for chunks in ((7, 3), (100, 2), ((1, 50, 60, X.shape[0] - 111), 3)):
            with dask.config.set(scheduler="sync"):
                s = sufficient_statistics(
                    da.from_array(X, chunks=chunks),
                    da.from_array(y, chunks=(chunks[0],)),
                    data_norm=2.0,
                    label_bound=1.5,
                    intercept=intercept,
                )
            assert np.array_equal(_packed(s), _packed(ref))
            assert np.array_equal(np.signbit(_packed(s)), np.signbit(_packed(ref)))


def test_rounding_of_wide_entries():
    """``suffstats_round`` on entries beyond 2^127 (many folds of the kernel's accumulator) and
    negative ones: the exact value rounded once."""
    rng = np.random.default_rng(5)
    values, exps = [], []
    for bits in (1, 53, 54, 100, 128, 150, 190):
        for _ in range(10):
            t = int(rng.integers(1, 2**62)) << max(bits - 62, 0)
            values.append(t if rng.random() < 0.5 else -t)
            exps.append(int(rng.integers(-1200, 200)))
    got = _core.suffstats_round([t >> 64 for t in values], [t & (2**64 - 1) for t in values], exps)
    for g, t, e in zip(got.tolist(), values, exps):
        v = Fraction(t) * Fraction(2) ** e
        want = v.numerator / v.denominator
        assert g == want and math.copysign(1.0, g) == math.copysign(1.0, want), (t, e)


def _numpy_norms(X):
    """Row norms as numpy computes them: non-finite entries read as 0, squares added column by
    column (the clipping's order), then ``sqrt``."""
    Z = np.where(np.isfinite(X), X, 0.0)
    with np.errstate(over="ignore"):
        sq = Z[:, 0] * Z[:, 0]
        for j in range(1, Z.shape[1]):
            sq = sq + Z[:, j] * Z[:, j]
    return np.sqrt(sq)


def _searchsorted_counts(values, grid):
    return np.searchsorted(np.sort(values), grid, side="right")


@pytest.mark.parametrize("d", [1, 2, 3, 8, 9, 20])
def test_norm_counts_equal_numpy_norms_at_every_grid_point(d):
    """The Rust counts against numpy's norms (the values the clipping compares) with grid
    points exactly on the norms and one ulp either side: a norm one ulp off would change a
    count. Also unsorted grids with duplicates, negative points, signed zeros, non-finite
    entries, a Fortran-ordered input and a non-contiguous view."""
    from privlearn.learners._suffstats import _counts_part, norm_counts

    X, y = _adversarial(d, 3.0, 2.5, seed=20 + d)
    X[5, 0] = np.nan
    X[9, d - 1] = -np.inf
    y = y.copy()
    y[3] = np.inf
    norms = _numpy_norms(X)
    finite = norms[np.isfinite(norms)]
    grid = np.concatenate(
        [
            [3.0, -1.0, 0.0, -0.0, 3.0, 1e-300, 1e308, 2.5],
            finite,
            np.nextafter(finite, np.inf),
            np.nextafter(finite, -np.inf),
        ]
    )
    np.random.default_rng(d).shuffle(grid)
    labels = np.abs(np.where(np.isfinite(y), y, 0.0))
    cx, bad_x = _core.suffstats_norm_counts(X.reshape(-1), d, grid.tolist())
    assert bad_x == 2 and cx.dtype == np.int64
    assert np.array_equal(cx, _searchsorted_counts(norms, grid))
    cy, bad_y = _core.suffstats_abs_counts(y, grid.tolist())
    assert bad_y == 1 and np.array_equal(cy, _searchsorted_counts(labels, grid))
    for view in (np.asfortranarray(X), np.hstack([X, X])[:, :d]):
        part = _counts_part(view, y, grid, grid)
        assert np.array_equal(part[0], cx) and np.array_equal(part[1], cy)
        assert part[2:] == (X.shape[0], 2, 1)
    finite_rows = np.all(np.isfinite(X), axis=1) & np.isfinite(y)
    counts = norm_counts(X[finite_rows], y[finite_rows], grid_x=grid, grid_y=grid[:7])
    assert np.array_equal(counts.x, _searchsorted_counts(norms[finite_rows], grid))
    assert np.array_equal(counts.y, _searchsorted_counts(labels[finite_rows], grid[:7]))
    with pytest.raises(InvalidParameterError) as err:
        norm_counts(X, grid_x=grid)
    assert err.value.parameter == "X"


def test_the_gram_is_the_same_for_any_number_of_threads():
    """Above the kernel's threshold for threads (``2^22`` products: here 30,011 rows of 20
    features, 253 products a row) the rows are split over threads; the exact integers must not
    change, on numpy input (threads) or Dask input (one thread per chunk)."""
    rng = np.random.default_rng(3)
    n, d = 30_011, 20
    X = rng.standard_normal((n, d)) * 1.3
    X[::97] *= 1e3  # clipped rows
    y = rng.standard_normal(n) * 3.0
    exps = _column_exponents(d, 4.0, 2.5, 1.0)
    one = _core.suffstats_gram(X.reshape(-1), y, d, 4.0, 2.5, 1.0, exps, 1)
    for threads in (2, 3, 64):
        assert _core.suffstats_gram(X.reshape(-1), y, d, 4.0, 2.5, 1.0, exps, threads) == one
    assert _core.suffstats_gram(X.reshape(-1), y, d, 4.0, 2.5, 1.0, exps) == one
    ref = sufficient_statistics(X, y, data_norm=4.0, label_bound=2.5, intercept=1.0)
    da = pytest.importorskip("dask.array")
    import dask

    with dask.config.set(scheduler="threads"):
        s = sufficient_statistics(
            da.from_array(X, chunks=(7_000, 5)),
            da.from_array(y, chunks=(7_000,)),
            data_norm=4.0,
            label_bound=2.5,
            intercept=1.0,
        )
    assert np.array_equal(_packed(s), _packed(ref))
