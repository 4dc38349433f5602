"""Sufficient statistics of clipped linear-regression data: ``X^T X``, ``X^T y``, ``y^T y`` and
the count, computed from a numpy array (here) or blockwise from a Dask array (the Dask path: see
:func:`sufficient_statistics`). Noise is never added here: the private learners add it once, on
the client, to these exact statistics (so the same seed gives the same release on numpy and on
Dask input).

Clipping is a per-row map (each row ``x`` scaled down to L2 norm at most ``data_norm``, each label
clipped to ``[-label_bound, label_bound]``), applied before any sum, so replacing one input row
replaces one summand of every statistic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import numpy as np

__all__: list = []


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


def clip_block(
    X: np.ndarray, y: np.ndarray, data_norm: float, label_bound: float, intercept: Optional[float]
) -> "tuple[np.ndarray, np.ndarray]":
    """One block of rows clipped (rows to L2 norm ``data_norm``, labels to ``label_bound``), with
    the constant column ``intercept`` appended when it is not ``None``."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    sq = np.einsum("ij,ij->i", X, X)
    over = sq > data_norm * data_norm
    if np.any(over):
        X = np.array(X, copy=True)
        X[over] *= (data_norm / np.sqrt(sq[over]))[:, None]
    if intercept is not None:
        X = np.hstack([X, np.full((X.shape[0], 1), float(intercept))])
    return X, np.clip(y, -label_bound, label_bound)


def block_statistics(
    X: np.ndarray, y: np.ndarray, data_norm: float, label_bound: float, intercept: Optional[float]
) -> SufficientStatistics:
    """The statistics of one in-memory block (numpy)."""
    Xc, yc = clip_block(X, y, data_norm, label_bound, intercept)
    return SufficientStatistics(Xc.T @ Xc, Xc.T @ yc, float(yc @ yc), int(Xc.shape[0]))


def sufficient_statistics(
    X: Any, y: Any, *, data_norm: float, label_bound: float, intercept: Optional[float] = None
) -> SufficientStatistics:
    """``X^T X``, ``X^T y``, ``y^T y`` and ``n`` of the clipped data.

    ``X`` (n, d) and ``y`` (n,) are numpy arrays (already validated: finite, matching lengths).
    The Dask path (a ``dask.array.Array``, blockwise) is added by the scale-out work of issue 19.
    """
    return block_statistics(X, y, data_norm, label_bound, intercept)
