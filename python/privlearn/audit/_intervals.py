"""Confidence bounds on event probabilities: one-sided Clopper--Pearson (exact binomial) lower
and upper bounds on ``P(S)`` from the count of samples in ``S``, and the lower bounds that a
pair of them gives on the privacy parameters: ``ln((lo(P_num(S)) - delta) / hi(P_den(S)))`` on
epsilon, ``lo(P_num(S)) - e^eps hi(P_den(S))`` on delta (the hockey-stick divergence) and
``Phi^-1(lo(P_num(S))) - Phi^-1(hi(P_den(S)))`` on the Gaussian-DP mu. Every lower bound of
:mod:`privlearn.audit` (and of the attacks and experiments that reuse these bounds) is built
from them."""

from __future__ import annotations

import math

import numpy as np
from scipy import special

# Relative safety margin on the confidence bounds against rounding in the beta quantiles.
_SAFETY = 1e-9


def _cp_lower(k: np.ndarray, n: np.ndarray, a: float) -> np.ndarray:
    """One-sided Clopper-Pearson lower bound on p from k successes in n, level a."""
    k = np.asarray(k, dtype=float)
    n = np.broadcast_to(np.asarray(n, dtype=float), k.shape)
    out = np.zeros(k.shape)
    pos = k > 0
    if np.any(pos):
        out[pos] = special.betaincinv(k[pos], n[pos] - k[pos] + 1.0, a)
    return np.clip(out * (1.0 - _SAFETY), 0.0, 1.0)


def _cp_upper(k: np.ndarray, n: np.ndarray, a: float) -> np.ndarray:
    """One-sided Clopper-Pearson upper bound on p from k successes in n, level a."""
    k = np.asarray(k, dtype=float)
    n = np.broadcast_to(np.asarray(n, dtype=float), k.shape)
    out = np.ones(k.shape)
    lt = k < n
    if np.any(lt):
        out[lt] = 1.0 - special.betaincinv(n[lt] - k[lt], k[lt] + 1.0, a)
    return np.clip(out * (1.0 + _SAFETY) + 1e-300, 0.0, 1.0)


def _log_ratio_bound(k_num, n_num, k_den, n_den, a: float, delta: float) -> np.ndarray:
    """``ln((lo(p_num) - delta) / hi(p_den))``: -inf where ``lo(p_num) <= delta``."""
    lo = _cp_lower(k_num, n_num, a) - delta
    hi = _cp_upper(k_den, n_den, a)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(lo > 0, np.log(np.maximum(lo, 1e-300)) - np.log(hi), -np.inf)
    return np.asarray(out, dtype=float)


def _hockey_stick_bound(k_num, n_num, k_den, n_den, a: float, epsilon: float) -> np.ndarray:
    """``lo(p_num) - e^epsilon hi(p_den)``: a lower bound on delta at epsilon (may be < 0)."""
    lo = _cp_lower(k_num, n_num, a)
    hi = _cp_upper(k_den, n_den, a)
    # e^700 * hi > 1 (hi >= 1e-300): larger epsilons give the same negative bounds
    return np.asarray(lo - math.exp(min(epsilon, 700.0)) * hi, dtype=float)


def _gdp_bound(k_num, n_num, k_den, n_den, a: float) -> np.ndarray:
    """``Phi^-1(lo(p_num)) - Phi^-1(hi(p_den))``: -inf where ``lo(p_num) == 0``."""
    lo = _cp_lower(k_num, n_num, a)
    hi = _cp_upper(k_den, n_den, a)
    with np.errstate(invalid="ignore"):
        out = special.ndtri(lo) - special.ndtri(hi)
    return np.asarray(np.where((lo > 0) & (hi < 1), out, -np.inf), dtype=float)
