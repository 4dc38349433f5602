"""Sufficient statistics of clipped linear-regression data: ``X^T X``, ``X^T y``, ``y^T y`` and
the count, computed from a numpy array or blockwise from a Dask array; and the counts of row
norms and labels below public grid points (the input of the private bounds). Noise is never added
here: the private learners add it once, on the client, to these statistics.

Clipping is a per-row map (each row ``x`` scaled down to L2 norm at most ``data_norm``, each label
clipped to ``[-label_bound, label_bound]``), applied before any sum, so replacing one input row
replaces one summand of every statistic.

Exact statistics, hence the same release on numpy and Dask input
-----------------------------------------------------------------
A floating-point sum depends on its order, and the order depends on the chunking (Dask sums
per-chunk partials in a tree; BLAS blocks its loops by size and alignment). So that the same seed
gives *bit for bit* the same release on numpy and on Dask input, whatever the chunks, the
statistics are computed exactly and rounded once:

1. each value ``z`` of the clipped data ``Z = [X, intercept column, y]`` is truncated toward zero
   to the fixed-point grid ``2^(e - 54)`` of its column, where ``2^e`` is the smallest power of
   two at least the column's bound (``data_norm``, ``|intercept|``, ``label_bound``); an integer
   ``q = trunc(z 2^(54 - e))``, ``|q| <= 2^54``. Values of magnitude ``>= 2^(e-1)`` (and the
   intercept constant) are kept exactly; smaller ones lose the bits below ``2^(e - 54)``. The
   truncation never increases ``|z|``, so every clipped bound still holds;
2. the integer Gram matrix ``T = sum_i q_i q_i^T`` (its upper triangle) is computed exactly in
   integer arithmetic: each product ``q_j q_k`` (``|q_j q_k| <= 2^108``) in 128-bit integers,
   partial sums of at most ``2^18`` rows (``<= 2^126``), each folded into a wider accumulator
   (``hi 2^64 + lo``) that stays exact for any row count. Chunks are then added as Python
   integers (exact, associative);
3. each entry ``T_jk 2^(e_j + e_k - 108)`` is rounded once to the nearest float64 (ties to
   even; results in the subnormal range are rounded once too).

The per-row operations (clipping, truncation) are elementwise with a fixed order of operations,
so a row gives the same integers in any block. The statistics are therefore *equal* on numpy and
Dask input, for any chunking, and ``xtx`` is exactly symmetric.

Which library does what, and why: steps 1-3 are privlearn's own Rust kernel
(``privlearn_core::suffstats``, called through ``privlearn._core.suffstats_gram`` and
``suffstats_round``), one pass over the rows with the GIL released. A float ``X^T X`` from BLAS
(numpy, scikit-learn) is faster but not exact: its rounding depends on the blocking, so it could
give neither the same release on numpy and Dask input nor rows whose clipped bound holds
*exactly* (the premise of every sensitivity below). numpy only converts the input to contiguous
float64, and Dask only distributes the chunks. The clipping is also written in numpy here
(:func:`clip_block`, the same operations in the same order): the tests compare the kernel's
integers with it. Cost on one core (measured on the shared 2-core development machine, median
of repeated calls): about 1 ns per product ``q_j q_k``, ``p (p + 1) / 2`` products a row
(``p = d + 2`` with an intercept), i.e. about 0.25 s per 10^6 rows of 20 features (the kernel
alone) and about 0.6 ms for 3000 rows of 14 features (the whole call); the float64 limb
products through numpy and BLAS that preceded the kernel took about 1 s and 1.1-1.5 ms.
``benches/dask_suffstats.py`` reports the cost at scale.

Clipping keeps a data-independent relative margin ``(d + 17) 2^-52`` (``d`` the number of
features): a row whose float squared norm exceeds ``data_norm^2 (1 - 2 margin)`` is scaled to norm
``data_norm (1 - margin)``, so that the *exact* norm of every clipped (and truncated) row is at
most ``data_norm`` despite the rounding of the norm computation. Each row's contribution to the
statistics is then exactly ``q q^T`` with ``||x|| <= data_norm`` and ``|y| <= label_bound``, the
premise of every sensitivity derived from them. The margin covers relative rounding errors only:
``data_norm`` must be at least ``2^-400`` so that the underflow of a squared norm's tiny terms
(at most ``2^-1074`` each) stays far below ``data_norm^2`` times the margin (with ``data_norm^2``
near the subnormal range a row's float squared norm could fall far below its true value and
escape clipping); ``label_bound`` and ``|intercept|`` must be at least ``2^-900`` (every grid
scale ``2^(54 - e)`` is then a normal float64).

Threads and the counts
----------------------
On numpy input a large Gram is split by rows over threads (scoped threads of the Rust kernel,
``privlearn_core::suffstats::gram_threads``): one thread per ``2^21`` products ``q_j q_k``
(about 2 ms of work at about 1 ns a product, far more than spawning a thread costs), at most
the CPUs this process may use. Below twice that (about 16,500 rows of 20 features or 54,000 rows
of 10 features, with an intercept) the call stays on the calling thread. The integer sums are
exact, so the statistics are the same for every number of threads (tested). On Dask input every
chunk's call uses one thread: the chunks already run in parallel on the workers, and more
threads per task would oversubscribe the cores. (On the shared, loaded 2-core development
machine two threads gave no measurable gain; the gain on an idle multi-core machine is
expected, not measured here.)

The counts of :func:`norm_counts` are also the Rust kernel's (``row_norm_counts``,
``abs_counts``): one pass over the rows, each row's norm (the same double as the clipping's
``sqrt`` of :func:`_squared_norms`) placed by a binary search in the sorted public grid, instead
of numpy's strided column loop and a sort of the norms.

Dask
----
Dask is optional and imported only when a Dask array is passed (a Dask array is recognised
through ``sys.modules``, without importing ``dask``). On Dask input the row chunks are processed
where they live (one task per chunk, a tree of exact integer additions, one ``dask.compute``);
only the small ``p x p`` integer matrices travel. ``X`` chunked along its columns is rechunked to
one column block (each task then holds whole rows: ``rows x d`` floats, the same memory as a
numpy array of that chunk); ``y`` is rechunked to ``X``'s row chunks. A Dask array with unknown
chunk sizes (``nan``, e.g. after boolean indexing) is refused before anything is computed: call
``X.compute_chunk_sizes()`` first (the row count is public under replace-one neighbours).
Non-finite values are counted in the same pass and raise :class:`InvalidParameterError` after
the compute, with a message that holds no data-dependent value; the learners charge only after
the statistics are returned, so nothing is charged.
"""

from __future__ import annotations

import functools
import math
import os
import sys
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from .. import _core
from ..errors import InvalidParameterError

__all__: list = []

#: Bits of the fixed-point grid of each column (relative to the column's power-of-two bound).
_GRID_BITS = 54
#: The smallest ``data_norm`` (the Rust kernel's ``MIN_DATA_NORM``): ``data_norm^2`` times the
#: clipping margin then dwarfs the underflow of a squared norm's terms, so rows with tiny entries
#: are clipped correctly too.
_MIN_DATA_NORM = 2.0**-400
#: The smallest ``label_bound`` and ``|intercept|`` (the kernel's ``MIN_BOUND``): every column's
#: grid scale ``2^(54 - e)`` is then a normal float64.
_MIN_BOUND = 2.0**-900


@dataclass(frozen=True)
class SufficientStatistics:
    """Exact statistics of the clipped data (no noise).

    Attributes
    ----------
    xtx : ndarray of shape (d, d)
        ``X^T X`` of the clipped rows (with the intercept column last, if any).
    xty : ndarray of shape (d,)
        ``X^T y``.
    yty : float
        ``y^T y``.
    n : int
        Number of rows (public under replace-one neighbours).
    """

    xtx: np.ndarray
    xty: np.ndarray
    yty: float
    n: int


@dataclass(frozen=True)
class NormCounts:
    """Counts of the data below public grid points (no noise).

    Attributes
    ----------
    x : ndarray of int64, shape (len(grid_x),), or None
        ``x[k] = #{i : ||x_i||_2 <= grid_x[k]}`` (None when no ``grid_x`` was given).
    y : ndarray of int64, shape (len(grid_y),), or None
        ``y[k] = #{i : |y_i| <= grid_y[k]}`` (None when no ``grid_y`` was given).
    n : int
        Number of rows.
    """

    x: Optional[np.ndarray]
    y: Optional[np.ndarray]
    n: int


# --------------------------------------------------------------------------------------------
# Recognising and checking the input
# --------------------------------------------------------------------------------------------


def is_dask_array(obj: Any) -> bool:
    """Whether ``obj`` is a ``dask.array.Array`` (without importing dask: if ``dask.array`` was
    never imported, no Dask array can exist)."""
    da = sys.modules.get("dask.array")
    return da is not None and isinstance(obj, da.Array)


def _is_dask_collection(obj: Any) -> bool:
    return hasattr(obj, "__dask_graph__") and not isinstance(obj, np.ndarray)


def _refuse_other_collections(value: Any, name: str) -> None:
    if _is_dask_collection(value) and not is_dask_array(value):
        raise InvalidParameterError(
            f"{name}: a Dask collection must be a dask.array.Array; got "
            f"{type(value).__module__}.{type(value).__name__} (convert a Dask DataFrame or "
            f"Series with .to_dask_array(lengths=True))",
            name,
        )


def _check_dtype(value: Any, name: str) -> None:
    if np.dtype(value.dtype).kind not in "fiub":
        raise InvalidParameterError(
            f"{name}: must hold real numbers (float, integer or bool); got dtype {value.dtype}",
            name,
        )


def _known_chunks(value: Any, name: str) -> None:
    if any(isinstance(c, float) and math.isnan(c) for axis in value.chunks for c in axis):
        raise InvalidParameterError(
            f"{name}: a Dask array with unknown chunk sizes (nan) cannot be used: its row count "
            f"must be known before the data are read; call {name}.compute_chunk_sizes() first",
            name,
        )


def _check_dask_single(value: Any, name: str, ndim: int) -> Any:
    """One Dask array checked without computing anything (type, ``ndim``, real dtype, known
    chunk sizes, non-empty); a numpy array is wrapped in one chunk."""
    import dask.array as da

    _refuse_other_collections(value, name)
    if value is None:
        raise InvalidParameterError(f"{name}: is required; got None", name)
    if not is_dask_array(value) and not isinstance(value, np.ndarray):
        raise InvalidParameterError(
            f"{name}: must be a numpy array or a dask.array.Array; got {type(value).__name__}",
            name,
        )
    if value.ndim != ndim:
        shape = "(n_samples, n_features)" if ndim == 2 else "(n_samples,)"
        raise InvalidParameterError(
            f"{name}: expected a {ndim}-d array {shape}; got {value.ndim} dimension(s)", name
        )
    _check_dtype(value, name)
    if not is_dask_array(value):
        value = da.from_array(value, chunks=value.shape)
    _known_chunks(value, name)
    if any(int(s) < 1 for s in value.shape):
        raise InvalidParameterError(
            f"{name}: needs at least one row (and column); got shape {value.shape}", name
        )
    return value


def check_dask_Xy(X: Any, y: Any) -> Tuple[Any, Any]:
    """Check Dask training data without computing anything and return ``(X, y)`` as Dask arrays
    with ``X`` in one column block and ``y`` chunked like ``X``'s rows.

    ``X``: 2-d, real dtype, known chunk sizes, ``n >= 1`` rows and ``d >= 1`` columns; ``y``:
    1-d of length ``n`` (a numpy array for one of them is wrapped with the other's row chunks).
    Finiteness is checked during the statistics' pass. Raises :class:`InvalidParameterError`
    naming ``X`` or ``y``."""
    x_numpy = isinstance(X, np.ndarray)
    X = _check_dask_single(X, "X", 2)
    y = _check_dask_single(y, "y", 1)
    n = int(X.shape[0])
    if int(y.shape[0]) != n:
        raise InvalidParameterError(
            f"y: must have as many rows as X ({n}); got {int(y.shape[0])}", "y"
        )
    if X.numblocks[1] != 1:
        X = X.rechunk({1: -1})
    if x_numpy:  # X follows y's row chunks
        X = X.rechunk((y.chunks[0], X.shape[1]))
    elif y.chunks[0] != X.chunks[0]:
        y = y.rechunk((X.chunks[0],))
    return X, y


def validate_regression_data(estimator: Any, X: Any, y: Any) -> Tuple[Any, Any]:
    """Training data of a sufficient-statistics regressor: numpy-like input through
    :func:`~._base.validate_Xy` (finite, matching lengths, float64), Dask input through
    :func:`check_dask_Xy` (nothing computed; finiteness is checked by
    :func:`sufficient_statistics`). Sets ``estimator.n_features_in_`` in both cases."""
    if is_dask_array(X) or is_dask_array(y) or _is_dask_collection(X) or _is_dask_collection(y):
        X, y = check_dask_Xy(X, y)
        estimator.n_features_in_ = int(X.shape[1])
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
        return X, y
    from ._base import validate_Xy

    return validate_Xy(estimator, X, y, classifier=False)


def _check_bound(value: Any, name: str, floor: float, floor_text: str) -> float:
    v = float(value)
    if not (math.isfinite(v) and v >= floor):
        raise InvalidParameterError(
            f"{name}: must be a finite number >= {floor_text} (and > 0); got {value!r}", name
        )
    return v


def check_bound_floors(
    data_norm: Any, label_bound: Any = None, *, label_name: str = "label_bound"
) -> None:
    """The statistics' floors on declared bounds (``data_norm >= 2^-400``, the label bound
    ``>= 2^-900``: module docstring), for a learner to check before it reads the data, under its
    own parameter names. ``"private"`` and ``None`` are skipped (a released bound is a point of
    a public grid far above the floors)."""
    if not isinstance(data_norm, str) and data_norm is not None:
        _check_bound(data_norm, "data_norm", _MIN_DATA_NORM, "2^-400")
    if not isinstance(label_bound, str) and label_bound is not None:
        _check_bound(label_bound, label_name, _MIN_BOUND, "2^-900")


def _column_exponents(
    d: int, data_norm: float, label_bound: float, c: Optional[float]
) -> List[int]:
    """``e`` per column of ``[X, intercept, y]``: the smallest power of two ``2^e >= bound``."""

    def exponent(bound: float) -> int:
        m, e = math.frexp(bound)  # bound = m 2^e, 0.5 <= m < 1
        return e - 1 if m == 0.5 else e

    cols = [exponent(data_norm)] * d
    if c is not None:
        cols.append(exponent(abs(c)))
    cols.append(exponent(label_bound))
    return cols


# --------------------------------------------------------------------------------------------
# Per-row maps (elementwise, a fixed order of operations: a row gives the same values in any
# block) and the exact per-block kernel
# --------------------------------------------------------------------------------------------


def _squared_norms(X: np.ndarray) -> np.ndarray:
    """``sum_j X[:, j]^2`` added column by column: one fixed sequence of rounded operations per
    row, whatever the block or memory layout (``einsum`` and ``sum`` may reorder by layout)."""
    with np.errstate(over="ignore"):
        sq = X[:, 0] * X[:, 0]
        for j in range(1, X.shape[1]):
            sq += X[:, j] * X[:, j]
    return sq


def _clip_factors(sq: np.ndarray, data_norm: float, d: int) -> np.ndarray:
    """The factor of each row (1.0 for rows inside the bound: multiplying by it is exact)."""
    margin = (d + 17) * 2.0**-52
    over = sq > (data_norm * data_norm) * (1.0 - 2.0 * margin)
    with np.errstate(divide="ignore"):
        return np.where(over, (data_norm * (1.0 - margin)) / np.sqrt(sq), 1.0)


#: Rows whose float squared norm is above this (or overflowed) are first scaled by a power of two.
_HUGE = 2.0**1000


def _tame(rows: np.ndarray, data_norm: float) -> np.ndarray:
    """Rows of squared norm above ``_HUGE`` (possibly ``inf``) scaled by a power of two so that
    their largest entry lies in ``[2^(e+1), 2^(e+2))`` (``2^e >= data_norm`` as in
    :func:`_column_exponents`): their squared norm is then finite and they are still beyond the
    bound, so clipping gives them the same direction and norm as exact arithmetic would, instead
    of scaling them to zero. Row by row, exact (up to the underflow of tiny entries)."""
    top = np.max(np.abs(rows), axis=1)
    shift = (math.frexp(data_norm)[1] + 2) - np.frexp(top)[1]
    return np.ldexp(rows, shift[:, None])


def clip_block(
    X: np.ndarray, y: np.ndarray, data_norm: float, label_bound: float, intercept: Optional[float]
) -> "tuple[np.ndarray, np.ndarray]":
    """One block of rows clipped (rows to L2 norm ``data_norm``, with the margin of the module
    docstring; labels to ``label_bound``), with the constant column ``intercept`` appended when
    it is not ``None``. The same values as the statistics' kernel computes."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    sq = _squared_norms(X)
    huge = ~(sq <= _HUGE)
    if np.any(huge):
        X = np.array(X, copy=True)
        X[huge] = _tame(X[huge], data_norm)
        sq[huge] = _squared_norms(X[huge])
    X = X * _clip_factors(sq, data_norm, X.shape[1])[:, None]
    if intercept is not None:
        X = np.hstack([X, np.full((X.shape[0], 1), float(intercept))])
    return X, np.clip(y, -label_bound, label_bound)


def _gram(
    X: Any,
    y: Any,
    data_norm: float,
    label_bound: float,
    intercept: Optional[float],
    exps: Sequence[int],
    threads: int,
) -> Tuple[List[int], List[int], int, int, int]:
    """``(hi, lo, rows, bad_x, bad_y)`` of one block, from the Rust kernel
    (``privlearn_core::suffstats::exact_gram_threads``): the upper triangle of ``T = sum_i q_i
    q_i^T`` row by row, entry ``k`` equal to ``hi[k] 2^64 + lo[k]`` (``0 <= lo[k] < 2^64``), and
    the counts of non-finite values of ``X`` and ``y`` (read as 0). At most ``threads`` threads
    (module docstring, "Threads"); the result does not depend on them."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64).reshape(-1)
    return _core.suffstats_gram(
        X.reshape(-1), y, int(X.shape[1]), data_norm, label_bound, intercept, list(exps), threads
    )


def _statistics_part(
    X: np.ndarray,
    y: np.ndarray,
    data_norm: float,
    label_bound: float,
    intercept: Optional[float],
    exps: Sequence[int],
) -> Tuple[np.ndarray, int, int, int]:
    """``(T, rows, bad_x, bad_y)`` of one chunk (runs on a Dask worker): ``T`` the upper
    triangle of ``sum_i q_i q_i^T`` (row by row) as an object array of exact Python integers,
    which add exactly across chunks."""
    hi, lo, rows, bad_x, bad_y = _gram(X, y, data_norm, label_bound, intercept, exps, 1)
    T = np.empty(len(hi), dtype=object)
    T[:] = [(h << 64) + l for h, l in zip(hi, lo)]
    return T, rows, bad_x, bad_y


def _add_parts(*parts: Any) -> Any:
    """Elementwise sum of tuples of parts (Python-integer arrays and counts: exact)."""
    out = list(parts[0])
    for part in parts[1:]:
        for k, v in enumerate(part):
            out[k] = out[k] + v
    return tuple(out)


def _tree_sum(parts: List[Any], fan_in: int = 8) -> Any:
    """Sum Dask delayed parts in a tree of ``fan_in``-ary exact additions (on the workers)."""
    from dask import delayed

    while len(parts) > 1:
        parts = [
            delayed(_add_parts, pure=True)(*parts[k : k + fan_in])
            for k in range(0, len(parts), fan_in)
        ]
    return parts[0]


def _raise_non_finite(bad_x: int, bad_y: int) -> None:
    if bad_x:
        raise InvalidParameterError("X: contains NaN or infinity (values must be finite)", "X")
    if bad_y:
        raise InvalidParameterError("y: contains NaN or infinity (values must be finite)", "y")


_LOW = (1 << 64) - 1


def _numpy_threads() -> int:
    """The cap on the kernel's threads for numpy input: the CPUs this process may run on (the
    kernel also caps by ``std::thread::available_parallelism`` and by the work)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _to_float(t: int, exponent: int) -> float:
    """``t 2^exponent`` rounded once to the nearest float64 (ties to even, subnormal results
    rounded once too), by the Rust kernel's rounding (``privlearn_core::suffstats::round_entry``);
    ``t`` is split into ``hi 2^64 + lo``, ``0 <= lo < 2^64`` (``|t| < 2^191``)."""
    return float(_core.suffstats_round([t >> 64], [t & _LOW], [exponent])[0])


def _rounded_matrix(hi: Sequence[int], lo: Sequence[int], exps: Sequence[int]) -> np.ndarray:
    """The symmetric ``p x p`` matrix of the entries ``T_jk 2^(e_j + e_k - 108)``, each rounded
    once to float64, from the upper triangle ``T_jk = hi 2^64 + lo`` (row by row)."""
    p = len(exps)
    rows, cols = triangle_indices(p, 0)
    e = np.asarray(exps, dtype=np.int64)
    exponents = (e[rows] + e[cols] - 2 * _GRID_BITS).tolist()
    values = _core.suffstats_round(list(hi), list(lo), exponents)
    M = np.empty((p, p), dtype=np.float64)
    M[rows, cols] = values
    M[cols, rows] = values
    return M


def sufficient_statistics(
    X: Any, y: Any, *, data_norm: float, label_bound: float, intercept: Optional[float] = None
) -> SufficientStatistics:
    """``X^T X``, ``X^T y``, ``y^T y`` and ``n`` of the clipped data, exact (module docstring).

    Parameters
    ----------
    X : ndarray of shape (n, d) or dask.array.Array
        Numpy input is expected validated (:func:`validate_regression_data`); Dask input is
        checked by :func:`check_dask_Xy` (no compute) and computed blockwise, in one
        ``dask.compute``, where its chunks live.
    y : ndarray of shape (n,) or dask.array.Array
    data_norm, label_bound : float
        The declared bounds (finite; ``data_norm >= 2^-400``, ``label_bound >= 2^-900``, see the
        module docstring): rows are clipped to L2 norm ``data_norm``, labels to
        ``[-label_bound, label_bound]``.
    intercept : float, optional
        If given, a constant column of this value is appended to the clipped rows (last);
        ``|intercept| >= 2^-900``.

    Returns
    -------
    SufficientStatistics
        numpy values, equal bit for bit on numpy and Dask input of the same data.

    Raises
    ------
    InvalidParameterError
        Bad shapes, dtypes, unknown Dask chunk sizes (before any compute); non-finite values
        (after the pass, with a data-independent message); statistics that would overflow
        float64 (``n`` times a squared bound above the largest float; checked before the pass).
    """
    data_norm = _check_bound(data_norm, "data_norm", _MIN_DATA_NORM, "2^-400")
    label_bound = _check_bound(label_bound, "label_bound", _MIN_BOUND, "2^-900")
    if intercept is not None:
        intercept = float(intercept)
        if not (math.isfinite(intercept) and abs(intercept) >= _MIN_BOUND):
            raise InvalidParameterError(
                f"intercept: the constant column must be finite with |intercept| >= 2^-900; "
                f"got {intercept!r}",
                "intercept",
            )
    dask_input = (
        is_dask_array(X) or is_dask_array(y) or _is_dask_collection(X) or _is_dask_collection(y)
    )
    if dask_input:
        X, y = check_dask_Xy(X, y)
    else:
        for value, name in ((X, "X"), (y, "y")):
            if not isinstance(value, np.ndarray):
                raise InvalidParameterError(
                    f"{name}: must be a numpy array or a dask.array.Array; got "
                    f"{type(value).__name__}",
                    name,
                )
        if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0] or X.shape[0] < 1:
            raise InvalidParameterError(
                f"X, y: expected X of shape (n, d) and y of shape (n,) with n >= 1; got "
                f"{X.shape} and {y.shape}",
                "X",
            )
        _check_dtype(X, "X")
        _check_dtype(y, "y")
    n, d = int(X.shape[0]), int(X.shape[1])
    exps = _column_exponents(d, data_norm, label_bound, intercept)
    biggest = max(exps)
    if math.ldexp(float(n), 2 * biggest) > sys.float_info.max / 4:
        raise InvalidParameterError(
            f"data_norm, label_bound: n times the squared bound overflows float64 (n = {n}); "
            f"rescale the data",
            "data_norm",
        )
    if dask_input:
        import dask
        from dask import delayed

        xs = X.to_delayed().reshape(-1)
        ys = y.to_delayed().reshape(-1)
        parts = [
            delayed(_statistics_part, pure=True)(xb, yb, data_norm, label_bound, intercept, exps)
            for xb, yb in zip(xs, ys)
        ]
        ((T, rows, bad_x, bad_y),) = dask.compute(_tree_sum(parts))
        hi = [int(t) >> 64 for t in T]
        lo = [int(t) & _LOW for t in T]
    else:
        hi, lo, rows, bad_x, bad_y = _gram(
            X, y, data_norm, label_bound, intercept, exps, _numpy_threads()
        )
    _raise_non_finite(bad_x, bad_y)
    if rows != n:  # the chunks' rows disagree with the declared shape: Dask metadata is wrong
        raise InvalidParameterError(
            "X: the Dask chunks hold a different number of rows than the array's chunk sizes "
            "declare",
            "X",
        )
    M = _rounded_matrix(hi, lo, exps)
    return SufficientStatistics(M[:-1, :-1].copy(), M[:-1, -1].copy(), float(M[-1, -1]), n)


# --------------------------------------------------------------------------------------------
# Counts below public grids (the input of the private quantiles of the bounds)
# --------------------------------------------------------------------------------------------


def _check_grid(grid: Any, name: str) -> Optional[np.ndarray]:
    if grid is None:
        return None
    g = np.asarray(grid, dtype=np.float64)
    if g.ndim != 1 or g.size < 1 or not np.all(np.isfinite(g)):
        raise InvalidParameterError(
            f"{name}: must be a non-empty 1-d array of finite numbers (a public grid)", name
        )
    return g


def _counts_part(
    X: Optional[np.ndarray],
    y: Optional[np.ndarray],
    grid_x: Optional[np.ndarray],
    grid_y: Optional[np.ndarray],
) -> Tuple[Any, Any, int, int, int]:
    """``(counts_x, counts_y, rows, bad_x, bad_y)`` of one chunk, from the Rust kernel
    (``privlearn_core::suffstats::row_norm_counts`` and ``abs_counts``: one pass, each value
    placed by a binary search in the sorted grid). A row's norm is ``sqrt`` of its squared norm
    summed column by column with non-finite entries read as 0: the same double as
    ``numpy.sqrt(_squared_norms(X))``, the value the clipping compares."""
    cx: Any = 0
    cy: Any = 0
    rows = 0
    bad_x = bad_y = 0
    if X is not None:
        X = np.ascontiguousarray(X, dtype=np.float64)
        rows = int(X.shape[0])
        gx = [] if grid_x is None else grid_x.tolist()
        counts, bad_x = _core.suffstats_norm_counts(X.reshape(-1), int(X.shape[1]), gx)
        if grid_x is not None:
            cx = counts
    if y is not None:
        y = np.ascontiguousarray(y, dtype=np.float64).reshape(-1)
        rows = int(y.shape[0])
        gy = [] if grid_y is None else grid_y.tolist()
        counts, bad_y = _core.suffstats_abs_counts(y, gy)
        if grid_y is not None:
            cy = counts
    return cx, cy, rows, bad_x, bad_y


def norm_counts(X: Any, y: Any = None, *, grid_x: Any = None, grid_y: Any = None) -> NormCounts:
    """Counts of the row norms and labels at or below every point of public grids.

    ``counts.x[k] = #{i : ||x_i||_2 <= grid_x[k]}`` and ``counts.y[k] = #{i : |y_i| <=
    grid_y[k]}`` (no noise; the input of
    :func:`~privlearn._private_quantile.private_quantile_from_counts`). The norms are computed row by row
    in a fixed order (as the clipping of :func:`clip_block` does), so the counts are equal on
    numpy and Dask input. Either grid may be ``None`` (its counts are then ``None``); ``X`` may
    be ``None`` when only labels are counted.

    Parameters
    ----------
    X : ndarray of shape (n, d), dask.array.Array or None
    y : ndarray of shape (n,), dask.array.Array or None
    grid_x, grid_y : array-like of shape (k,), optional
        Public, data-independent grid points (finite).

    Raises
    ------
    InvalidParameterError
        As :func:`sufficient_statistics` (shapes, dtypes, unknown chunk sizes before any
        compute; non-finite values after the pass, with a data-independent message).
    """
    gx = _check_grid(grid_x, "grid_x")
    gy = _check_grid(grid_y, "grid_y")
    if X is None and y is None:
        raise InvalidParameterError("X, y: at least one of them is required", "X")
    if gx is not None and X is None:
        raise InvalidParameterError("X: grid_x was given without X", "X")
    if gy is not None and y is None:
        raise InvalidParameterError("y: grid_y was given without y", "y")
    dask_input = any(is_dask_array(v) or _is_dask_collection(v) for v in (X, y))
    if dask_input:
        import dask
        from dask import delayed

        if X is not None and y is not None:
            X, y = check_dask_Xy(X, y)
        else:
            value, name, ndim = (X, "X", 2) if X is not None else (y, "y", 1)
            value = _check_dask_single(value, name, ndim)
            if X is not None:
                X = value if value.numblocks[1] == 1 else value.rechunk({1: -1})
            else:
                y = value
        n = int((X if X is not None else y).shape[0])
        if X is not None:
            xs = list(X.to_delayed().reshape(-1))
        if y is not None:
            ys = list(y.to_delayed().reshape(-1))
        nb = len(xs) if X is not None else len(ys)
        parts = [
            delayed(_counts_part, pure=True)(
                xs[k] if X is not None else None, ys[k] if y is not None else None, gx, gy
            )
            for k in range(nb)
        ]
        ((cx, cy, rows, bad_x, bad_y),) = dask.compute(_tree_sum(parts))
    else:
        for value, name, ndim in ((X, "X", 2), (y, "y", 1)):
            if value is None:
                continue
            if not isinstance(value, np.ndarray):
                raise InvalidParameterError(
                    f"{name}: must be a numpy array or a dask.array.Array; got "
                    f"{type(value).__name__}",
                    name,
                )
            if value.ndim != ndim or value.shape[0] < 1:
                raise InvalidParameterError(
                    f"{name}: expected a non-empty {ndim}-d array; got shape {value.shape}", name
                )
            _check_dtype(value, name)
        if X is not None and y is not None and X.shape[0] != y.shape[0]:
            raise InvalidParameterError(
                f"y: must have as many rows as X ({X.shape[0]}); got {y.shape[0]}", "y"
            )
        n = int((X if X is not None else y).shape[0])
        cx, cy, rows, bad_x, bad_y = _counts_part(X, y, gx, gy)
    _raise_non_finite(bad_x, bad_y)
    return NormCounts(
        None if gx is None else np.asarray(cx, dtype=np.int64),
        None if gy is None else np.asarray(cy, dtype=np.int64),
        n,
    )


# --------------------------------------------------------------------------------------------
# Layouts of a symmetric statistic (shared by the learners that add noise to X^T X)
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def triangle_indices(p: int, k: int) -> Tuple[np.ndarray, np.ndarray]:
    """``numpy.triu_indices(p, k)``, cached (read-only arrays)."""
    rows, cols = np.triu_indices(p, k)
    rows.flags.writeable = False
    cols.flags.writeable = False
    return rows, cols


def frobenius_vec(M: np.ndarray) -> np.ndarray:
    """Frobenius-isometric coordinates of a symmetric ``p x p`` matrix: the diagonal, then
    ``sqrt(2) M_ij`` for ``i < j`` (row-major), so that the vector's L2 norm is ``||M||_F``; iid
    noise on it is the ``(G + G^T)/2`` layout (diagonal variance ``s^2``, off-diagonal ``s^2/2``)."""
    iu = triangle_indices(M.shape[0], 1)
    return np.concatenate([np.diag(M), math.sqrt(2.0) * M[iu]])


def frobenius_unvec(v: np.ndarray, p: int) -> np.ndarray:
    """The symmetric matrix whose :func:`frobenius_vec` is ``v``."""
    iu = triangle_indices(p, 1)
    M = np.diag(np.asarray(v[:p], dtype=np.float64))
    M[iu] = v[p:] / math.sqrt(2.0)
    M[(iu[1], iu[0])] = M[iu]
    return M
