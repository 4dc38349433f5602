"""Goodness-of-fit helpers for the statistical tests (DESIGN principle 8).

Every distribution test uses a fixed seed, a false-positive rate of at most ``ALPHA = 1e-6``,
and a power check: the same samples must be rejected against a law whose scale (or epsilon) is
off by 30%, so a test that cannot see a wrong scale fails instead of passing vacuously.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy import stats

ALPHA = 1e-6
MIN_EXPECTED = 5.0


def chi_square_pvalue(counts: Sequence[int], probs: Sequence[float]) -> float:
    """Pearson chi-square p-value of observed ``counts`` against category ``probs``.

    Categories whose expected count is below 5 are pooled into one, so the chi-square
    approximation holds; a pool that is still below 5 is merged into the smallest kept category.
    An observation in a zero-probability category gives p = 0.
    """
    counts = np.asarray(counts, dtype=float)
    probs = np.asarray(probs, dtype=float)
    assert counts.shape == probs.shape
    probs = probs / probs.sum()
    n = counts.sum()
    if np.any((probs == 0) & (counts > 0)):
        return 0.0
    expected = probs * n
    keep = expected >= MIN_EXPECTED
    obs = list(counts[keep])
    exp = list(expected[keep])
    pooled_o, pooled_e = counts[~keep].sum(), expected[~keep].sum()
    if pooled_e > 0:
        if pooled_e >= MIN_EXPECTED or not exp:
            obs.append(pooled_o)
            exp.append(pooled_e)
        else:
            j = int(np.argmin(exp))
            obs[j] += pooled_o
            exp[j] += pooled_e
    obs_a, exp_a = np.array(obs), np.array(exp)
    if len(obs_a) < 2:
        return 1.0
    stat = float(((obs_a - exp_a) ** 2 / exp_a).sum())
    return float(stats.chi2.sf(stat, len(obs_a) - 1))


def assert_fits(counts: Sequence[int], probs: Sequence[float], what: str = "") -> None:
    p = chi_square_pvalue(counts, probs)
    assert p > ALPHA, f"{what}: chi-square rejects the exact law (p = {p:.3g})"


def assert_rejects(counts: Sequence[int], probs: Sequence[float], what: str = "") -> None:
    p = chi_square_pvalue(counts, probs)
    assert p < ALPHA, f"{what}: power check failed, a 30%-off law is not rejected (p = {p:.3g})"


def softmax(scores: Sequence[float], factor: float) -> np.ndarray:
    """``exp(factor * s) / sum``, with ``-inf`` scores getting probability 0 (float64)."""
    s = np.asarray(scores, dtype=float)
    z = factor * (s - np.max(s[np.isfinite(s)]))
    w = np.where(np.isfinite(s), np.exp(z), 0.0)
    return w / w.sum()
