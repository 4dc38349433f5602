"""Goodness-of-fit helpers for the statistical tests (DESIGN principle 8).

A thin wrapper over the public distribution tests of :mod:`privlearn.audit`. Every distribution
test uses a fixed seed, a false-positive rate of at most ``ALPHA = 1e-6``, and a power check: the
same samples must be rejected against a law whose scale (or epsilon) is off by 30%, so a test
that cannot see a wrong scale fails instead of passing vacuously.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from privlearn import audit as _audit

ALPHA = _audit.FALSE_POSITIVE_RATE
MIN_EXPECTED = 5.0


def chi_square_pvalue(counts: Sequence[int], probs: Sequence[float]) -> float:
    """Pearson chi-square p-value of observed ``counts`` against category ``probs``
    (:func:`privlearn.audit.chi_square_pvalue`: categories with expected count below 5 pooled)."""
    return _audit.chi_square_pvalue(counts, probs, min_expected=MIN_EXPECTED)


def assert_fits(counts: Sequence[int], probs: Sequence[float], what: str = "") -> None:
    p = chi_square_pvalue(counts, probs)
    assert p > ALPHA, f"{what}: chi-square rejects the exact law (p = {p:.3g})"


def assert_rejects(counts: Sequence[int], probs: Sequence[float], what: str = "") -> None:
    p = chi_square_pvalue(counts, probs)
    assert p < ALPHA, f"{what}: power check failed, a 30%-off law is not rejected (p = {p:.3g})"


def assert_ks_fits(samples: Any, cdf: Any, what: str = "") -> None:
    p = _audit.ks_pvalue(samples, cdf)
    assert p > ALPHA, f"{what}: Kolmogorov-Smirnov rejects the exact law (p = {p:.3g})"


def assert_ks_rejects(samples: Any, cdf: Any, what: str = "") -> None:
    p = _audit.ks_pvalue(samples, cdf)
    assert p < ALPHA, f"{what}: power check failed, a 30%-off law is not rejected (p = {p:.3g})"


def assert_power_check(pvalue_at: Callable[[float], float], what: str = "") -> None:
    """``pvalue_at(factor)``: p-value of the same samples against the law with its scale times
    ``factor``; the exact law must fit and both 30%-off laws be rejected."""
    result = _audit.power_check(pvalue_at, alpha=ALPHA)
    assert result.passed, f"{what}: {result}"


def softmax(scores: Sequence[float], factor: float) -> np.ndarray:
    """``exp(factor * s) / sum``, with ``-inf`` scores getting probability 0 (float64)."""
    s = np.asarray(scores, dtype=float)
    z = factor * (s - np.max(s[np.isfinite(s)]))
    w = np.where(np.isfinite(s), np.exp(z), 0.0)
    return w / w.sum()
