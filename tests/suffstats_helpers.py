"""Shared by the sufficient-statistics tests: the statistics packed into one matrix."""

from __future__ import annotations

import numpy as np


def packed(s):
    """``[[X^T X, X^T y], [y^T X, y^T y]]`` of a ``SufficientStatistics`` as one matrix (the Gram
    of ``[X, y]``, the layout the kernel sums)."""
    p = s.xtx.shape[0] + 1
    M = np.empty((p, p))
    M[:-1, :-1] = s.xtx
    M[:-1, -1] = M[-1, :-1] = s.xty
    M[-1, -1] = s.yty
    return M
