"""Exact output distributions of the seed-000 learners on tiny instances (test oracles).

Every function here computes a *distribution*, never samples: the exponential mechanism's pmf
from the integer scores a learner computes (``_scores``), mixtures over every subsample or
partition, and the continuous threshold mechanism's density from its pieces. The privacy tests
compare these on neighbouring datasets.
"""

from __future__ import annotations

import itertools
from typing import Callable, Dict, Hashable, Iterable, Tuple

import numpy as np
from scipy.special import logsumexp


def log_pmf(scores: np.ndarray, sensitivity: float, epsilon: float) -> np.ndarray:
    """Log-probabilities of the exponential mechanism: ``eps * s / (2 Δ)`` normalised."""
    z = epsilon * (np.asarray(scores, dtype=np.float64) - np.max(scores)) / (2.0 * sensitivity)
    return z - logsumexp(z)


def max_log_ratio(logp: np.ndarray, logq: np.ndarray) -> float:
    """``max |log p - log q|`` over outcomes (``inf`` if the supports differ)."""
    p, q = np.asarray(logp), np.asarray(logq)
    both_zero = np.isneginf(p) & np.isneginf(q)
    diff = np.abs(np.where(both_zero, 0.0, p - q))
    return float(np.max(diff))


def mixture(parts: Iterable[Tuple[float, Dict[Hashable, float]]]) -> Dict[Hashable, float]:
    """Sum of ``weight * pmf`` over ``(weight, pmf)`` pairs (pmfs as dicts)."""
    out: Dict[Hashable, float] = {}
    for w, pmf in parts:
        for k, v in pmf.items():
            out[k] = out.get(k, 0.0) + w * v
    return out


def dict_log_ratio(p: Dict[Hashable, float], q: Dict[Hashable, float]) -> float:
    keys = set(p) | set(q)
    worst = 0.0
    for k in keys:
        a, b = p.get(k, 0.0), q.get(k, 0.0)
        if a == 0.0 and b == 0.0:
            continue
        if a == 0.0 or b == 0.0:
            return float("inf")
        worst = max(worst, abs(float(np.log(a) - np.log(b))))
    return worst


def subsample_pmf(
    pmf_of: Callable[[np.ndarray], Dict[Hashable, float]], n: int, m: int
) -> Dict[Hashable, float]:
    """Output pmf of "uniform m-subset without replacement, then the base" (all C(n, m))."""
    subsets = list(itertools.combinations(range(n), m))
    w = 1.0 / len(subsets)
    return mixture((w, pmf_of(np.array(s))) for s in subsets)


def threshold_log_density(
    left: np.ndarray, length: np.ndarray, mistakes: np.ndarray, epsilon: float, sensitivity: float
):
    """Piece starts and the log-density (w.r.t. the grid's counting measure) on each piece of
    the continuous threshold mechanism."""
    c = epsilon / (2.0 * sensitivity)
    logw = -c * mistakes.astype(np.float64)
    lognorm = logsumexp(logw + np.log(length.astype(np.float64)))
    return left, logw - lognorm


def density_log_ratio(a, b) -> float:
    """``max_t |log p(t) - log q(t)|`` for two piecewise-constant densities given as (starts,
    log-density), evaluated at every start of either (where one of them changes)."""
    (sa, da), (sb, db) = a, b
    worst = 0.0
    for t in np.union1d(sa, sb):
        ia = np.searchsorted(sa, t, side="right") - 1
        ib = np.searchsorted(sb, t, side="right") - 1
        worst = max(worst, abs(float(da[ia] - db[ib])))
    return worst
