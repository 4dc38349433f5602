"""The private bounds' public plan, grid and guarded utility written from
:mod:`privlearn.learners._private_bounds`' documentation, independently of the library: the one
reference the learners' calibration tests compare the sampler's inputs with."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

GAP = 16.0  # documented: exp(-GAP) between the quantile and a grid point outside the data
F_MIN, F_MAX = 0.1, 0.5  # documented: the measured share of the budget, the plan's cap
Q_NORM, Q_LABEL = 0.25, 0.75  # documented: the measured quantiles (row norms, |labels|)
GUARD = 16  # documented: the guard looks 2^B = 2^4 times above and below each grid point


def expected_plan(eps, n, k):
    """The plan: each of the ``k`` shares ``eps_b = f eps / k`` must give ``eps_b m n / 2 >=
    GAP`` with ``m = min(q, 1 - q)``; the fraction grows up to F_MAX, then the quantiles move
    towards the median."""
    m = min(Q_NORM, 1 - Q_LABEL) if k == 2 else Q_NORM
    f = max(F_MIN, 2 * GAP * k / (m * n * eps))
    if f <= F_MAX:
        return f, (Q_NORM, Q_LABEL)
    m = min(0.5, 2 * GAP * k / (F_MAX * eps * n))
    return F_MAX, (min(max(Q_NORM, m), 1 - m), min(max(Q_LABEL, m), 1 - m))


def public_grid():
    """2^(k/8) for every integer k with 1e-4 <= 2^(k/8) <= 1e8 (the documented default grid)."""
    return np.array([2.0 ** (k / 8) for k in range(-200, 300) if 1e-4 <= 2.0 ** (k / 8) <= 1e8])


def guarded_scores(v, q, n):
    """The scores ``1024 u(g)`` of the guarded utility ``-max(|c(g) - q n|, #{16 g < v <= g_K},
    #{g_1 / 16 < v <= g / 16})`` on the default grid."""
    grid_ = public_grid()
    counts = np.array([(v <= t).sum() for t in grid_])
    above = np.array([((GUARD * t < v) & (v <= grid_[-1])).sum() for t in grid_])
    below = np.array([((grid_[0] / GUARD < v) & (v <= t / GUARD)).sum() for t in grid_])
    near = np.abs(counts * 1024 - round(Fraction(q) * n * 1024))
    return -np.maximum(near, np.maximum(above, below) * 1024)
