"""Goodness-of-fit tests of samplers against their exact laws (DESIGN principle 8): the
chi-square test for discrete outputs, the Kolmogorov--Smirnov test for continuous ones, and the
mandatory power check (the same samples must reject the law with its scale off by 30%), at the
test suite's false-positive rate :data:`FALSE_POSITIVE_RATE`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Tuple

import numpy as np
from scipy import stats

from .._validate import check_probability
from ..errors import InvalidParameterError

#: False-positive rate of the distribution tests of the test suite (DESIGN principle 8).
FALSE_POSITIVE_RATE = 1e-6


def chi_square_pvalue(counts: Any, probs: Any, *, min_expected: float = 5.0) -> float:
    """Pearson chi-square goodness-of-fit p-value of observed ``counts`` against exact ``probs``.

    ``probs`` are the category probabilities of the exact law (normalised here, so weights are
    fine). Categories whose expected count is below ``min_expected`` (5) are pooled into one so
    that the chi-square approximation holds; a pool still below 5 is merged into the smallest
    kept category. An observation in a category of probability 0 gives ``p = 0``; fewer than
    two categories after pooling give ``p = 1``.

    Parameters
    ----------
    counts : array_like of int, shape (k,)
        Observed count of each category (>= 0).
    probs : array_like of float, shape (k,)
        Exact probability (or weight, >= 0) of each category.
    min_expected : float, default 5.0
        Pool categories with a smaller expected count.

    Returns
    -------
    float
        The p-value.

    Examples
    --------
    >>> from privlearn.audit import chi_square_pvalue
    >>> chi_square_pvalue([510, 490], [0.5, 0.5]) > 0.5
    True
    """
    c = np.asarray(counts, dtype=float)
    p = np.asarray(probs, dtype=float)
    if c.ndim != 1 or p.shape != c.shape:
        raise InvalidParameterError(
            f"probs: must have the shape of counts (one-dimensional), got {p.shape} and {c.shape}",
            "probs",
        )
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise InvalidParameterError("counts: must be finite and >= 0", "counts")
    if not np.all(np.isfinite(p)) or np.any(p < 0) or p.sum() <= 0:
        raise InvalidParameterError("probs: must be finite, >= 0 and not all 0", "probs")
    p = p / p.sum()
    n = c.sum()
    if np.any((p == 0) & (c > 0)):
        return 0.0
    expected = p * n
    keep = expected >= min_expected
    obs = list(c[keep])
    exp = list(expected[keep])
    pooled_o, pooled_e = c[~keep].sum(), expected[~keep].sum()
    if pooled_e > 0:
        if pooled_e >= min_expected or not exp:
            obs.append(pooled_o)
            exp.append(pooled_e)
        else:
            j = int(np.argmin(exp))
            obs[j] += pooled_o
            exp[j] += pooled_e
    o, e = np.array(obs), np.array(exp)
    if len(o) < 2:
        return 1.0
    stat = float(((o - e) ** 2 / e).sum())
    return float(stats.chi2.sf(stat, len(o) - 1))


def ks_pvalue(samples: Any, cdf: Any) -> float:
    """Kolmogorov--Smirnov goodness-of-fit p-value of ``samples`` against a continuous law.

    Parameters
    ----------
    samples : array_like of float, shape (n,)
        Independent draws (finite or infinite; no NaN).
    cdf : callable or object with a ``cdf`` method
        The exact law's cumulative distribution function, vectorised (e.g.
        ``scipy.stats.laplace(scale=2).cdf``, or the frozen distribution itself).

    Returns
    -------
    float
        The p-value (exact for n <= 10,000, asymptotic above, as in :func:`scipy.stats.kstest`).

    Notes
    -----
    KS assumes a continuous law. For outputs on a lattice (discretised samplers) use
    :func:`chi_square_pvalue` on the lattice points, or a lattice much finer than the sample
    can resolve.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from privlearn.audit import ks_pvalue
    >>> x = np.random.default_rng(0).laplace(0.0, 2.0, size=10_000)
    >>> ks_pvalue(x, stats.laplace(scale=2.0)) > 1e-6, ks_pvalue(x, stats.laplace(scale=1.4)) < 1e-6
    (True, True)
    """
    x = np.asarray(samples, dtype=float)
    if x.ndim != 1 or len(x) == 0:
        raise InvalidParameterError(
            f"samples: must be a non-empty one-dimensional array, got shape {x.shape}", "samples"
        )
    if np.isnan(x).any():
        raise InvalidParameterError("samples: must not contain NaN", "samples")
    f = cdf.cdf if hasattr(cdf, "cdf") else cdf
    if not callable(f):
        raise InvalidParameterError("cdf: must be a callable CDF or have a .cdf method", "cdf")
    return float(stats.kstest(x, f).pvalue)


@dataclass(frozen=True)
class PowerCheck:
    """Outcome of :func:`power_check`.

    Attributes
    ----------
    pvalue : float
        p-value against the exact law.
    off_pvalues : tuple of (float, float)
        ``(factor, p-value)`` against the law with its scale multiplied by each factor.
    alpha : float
        The false-positive rate.
    """

    pvalue: float
    off_pvalues: Tuple[Tuple[float, float], ...]
    alpha: float

    @property
    def fits(self) -> bool:
        """The exact law is not rejected (``pvalue > alpha``)."""
        return self.pvalue > self.alpha

    @property
    def detects(self) -> bool:
        """Every off-scale law is rejected (``p < alpha``)."""
        return all(p < self.alpha for _, p in self.off_pvalues)

    @property
    def passed(self) -> bool:
        """``fits and detects``."""
        return self.fits and self.detects

    def __str__(self) -> str:
        off = ", ".join(f"x{f:g}: p={p:.3g}" for f, p in self.off_pvalues)
        verdict = (
            "passed" if self.passed else ("no power" if self.fits else "rejects the exact law")
        )
        return f"distribution test {verdict}: exact law p={self.pvalue:.3g}; off-scale {off} (alpha {self.alpha:g})"


def power_check(
    pvalue_at: Callable[[float], float],
    *,
    off: float = 0.3,
    alpha: float = FALSE_POSITIVE_RATE,
) -> PowerCheck:
    """A distribution test with its mandatory power check (DESIGN principle 8).

    ``pvalue_at(factor)`` must return the p-value of **the same samples** against the law with
    its scale multiplied by ``factor``. It is called with ``1.0`` (the exact law, which must not
    be rejected: ``p > alpha``) and with ``1 - off`` and ``1 + off`` (which must both be
    rejected: ``p < alpha``). A test that cannot tell a 30% error in the scale passes nothing.

    Parameters
    ----------
    pvalue_at : callable
        ``factor -> p-value``, e.g. ``lambda f: ks_pvalue(x, stats.laplace(scale=f * b))`` or
        ``lambda f: chi_square_pvalue(counts, pmf(f * scale))``.
    off : float, default 0.3
        Relative error of the scale to detect, in (0, 1).
    alpha : float, default 1e-6
        False-positive rate of the test.

    Returns
    -------
    PowerCheck
        ``.passed`` (exact law fits and both off-scale laws are rejected), ``.fits``,
        ``.detects``, the p-values; ``str()`` explains a failure.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from privlearn.audit import ks_pvalue, power_check
    >>> x = np.random.default_rng(1).laplace(0.0, 2.0, size=20_000)
    >>> power_check(lambda f: ks_pvalue(x, stats.laplace(scale=2.0 * f))).passed
    True
    """
    if not callable(pvalue_at):
        raise InvalidParameterError("pvalue_at: must be callable", "pvalue_at")
    off = check_probability(off, "off")
    alpha = check_probability(alpha, "alpha")
    p0 = float(pvalue_at(1.0))
    offs = tuple((f, float(pvalue_at(f))) for f in (1.0 - off, 1.0 + off))
    return PowerCheck(p0, offs, alpha)
