"""Private sanitizers of the multi-concept learners: the stability histogram and MWEM (seed 002).

:func:`stability_histogram` (Bun, Nissim and Stemmer, Proposition 2.20) releases the heavy
points of the data with noisy frequencies; :func:`mwem` (Hardt, Ligett and McSherry 2012)
releases a synthetic distribution over a finite domain for a set of counting queries. Both
charge their accountant before anything is drawn. :class:`~privlearn.multi.SanitizerMultiLearner`
runs them on the unlabeled examples; ``LearnPoints`` builds on the histogram.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

import numpy as np

from .. import _core
from .._validate import check_delta, check_epsilon, check_integer
from ..accounting import Accountant, Budget
from ..accounting._event import PrivacyEvent
from ..hypotheses import _points
from ..mechanisms import _charged, exponential, laplace
from ..random import RngLike, as_generator
from ._inputs import _check_rows, _error


@dataclass(frozen=True)
class StabilityHistogram:
    """The output of :func:`stability_histogram`: the released points (sorted, one row each)
    and their noisy frequencies (noisy count / n). Nothing else is released: in particular not
    which other points occur in the data."""

    points: np.ndarray
    frequencies: np.ndarray

    def __len__(self) -> int:
        return int(self.points.shape[0])


def _support(X2: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows (sorted lexicographically: a data-independent order), each row's index
    among them, and the counts."""
    keys, inverse, counts = np.unique(X2, axis=0, return_inverse=True, return_counts=True)
    return keys, np.asarray(inverse).reshape(-1).astype(np.int64), counts.astype(np.uint64)


def stability_histogram(
    X: Any,
    epsilon: float,
    delta: float,
    *,
    rng: RngLike = None,
    accountant: Optional[Accountant] = None,
) -> StabilityHistogram:
    r"""The stability-based sanitizer for point functions (Bun, Nissim and Stemmer,
    Proposition 2.20), with exact discrete Laplace noise.

    For every distinct point ``x`` of the data with count ``c_x``, draws ``Z`` from the discrete
    Laplace law of scale ``2/epsilon`` and releases ``(x, (c_x + Z)/n)`` iff ``c_x + Z >= 1 + t``,
    ``t`` the smallest integer with ``e^{-t/b}/(1 + e^{-1/b}) <= delta/2`` (plus one; erratum
    002-2). Only released points are returned, sorted (erratum 002-3: nothing reveals which
    other points occur). The frequencies answer every point-function counting query: a point
    not returned has answer 0.

    **Privacy:** ``(epsilon, delta)``-DP for replace-one neighbours (``n`` public): replacing a
    row changes two counts by one; a count that stays positive is released through an
    ``epsilon/2``-DP noisy count, and a count that drops from 1 to 0 is released on one side
    only, with probability at most ``delta/2``.

    **Accuracy:** each released frequency is within ``s/n`` of the true one except with
    probability ``2 e^{-s epsilon/2}``; a point whose count exceeds ``1 + t + s`` is released
    except with probability ``e^{-s epsilon/2}``.

    Parameters
    ----------
    X : array_like, shape (n,) or (n, dim)
        The points (finite numbers; rows compared exactly).
    epsilon : float
    delta : float
        In ``(0, 1)``.
    rng : None, int or Generator, optional
    accountant : Accountant, optional
        Charged ``(epsilon, delta)`` before anything is drawn.

    Returns
    -------
    StabilityHistogram
        ``points`` has the layout of ``X`` (``(r,)`` or ``(r, dim)``).
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, zero_ok=False)
    a = np.asarray(X)
    one_d = a.ndim == 1
    X2 = _points(a, 1 if one_d else (a.shape[1] if a.ndim == 2 else -1))
    _check_rows(X2.shape[0])
    keys, _, counts = _support(X2)

    def run() -> Tuple[np.ndarray, np.ndarray]:
        return _core.multi_stability_histogram(counts, epsilon, delta, as_generator(rng))

    idx, noisy = _charged(accountant, epsilon, delta, "stability histogram", run)
    pts = keys[idx]
    return StabilityHistogram(pts[:, 0] if one_d else pts, noisy / float(X2.shape[0]))


def mwem(
    counts: Any,
    queries: Any,
    epsilon: float,
    *,
    rounds: int = 10,
    rng: RngLike = None,
    accountant: Optional[Accountant] = None,
) -> np.ndarray:
    r"""MWEM (Hardt, Ligett and McSherry, "A simple and practical algorithm for differentially
    private data release", NeurIPS 2012, Algorithm 1): a synthetic distribution over a finite
    domain that answers a set of counting queries.

    Starting from the uniform distribution ``A_0`` (scaled to ``n`` records), each of ``rounds``
    rounds picks the query with the largest error ``|q(A) - q(D)|`` by the exponential mechanism
    (``epsilon / (2 rounds)``, scores of sensitivity 1 in record units), measures it with the
    Laplace mechanism (``epsilon / (2 rounds)``, sensitivity 1), and applies the multiplicative
    weights update ``A(x) <- A(x) exp(q(x) (m - q(A)) / (2n))`` for every measurement so far
    (ten passes; post-processing). The result is the average of the rounds' distributions.

    **Privacy:** ``epsilon``-DP (pure) for replace-one neighbours with ``n`` public (Hardt,
    Ligett and McSherry, Theorem 2.1: ``2 rounds`` mechanisms of ``epsilon / (2 rounds)``, basic
    composition): replacing one record changes every counting query by at most 1. The accountant
    is charged the native event :func:`mwem_event` (``rounds`` bounded-range selections and pure
    Laplace measurements, declared budget ``Budget(epsilon)``). The mechanisms
    are the exact ones of :mod:`privlearn.mechanisms`. This is the published substitute for the
    notes' private multiplicative weights allowed by erratum 002-11.

    Parameters
    ----------
    counts : array_like of int, shape (N,)
        The data as a histogram over the domain ``{0, ..., N-1}`` (``n = counts.sum() >= 1``).
    queries : array_like of 0/1, shape (Q, N)
        The counting queries, each the indicator of a subset of the domain.
    epsilon : float
    rounds : int, default 10
        An accuracy knob (any value keeps the guarantee).
    rng : None, int or Generator, optional
    accountant : Accountant, optional
        Charged ``epsilon`` before anything is drawn.

    Returns
    -------
    numpy.ndarray of float64, shape (N,)
        The synthetic distribution (non-negative, sums to 1).
    """
    epsilon = check_epsilon(epsilon)
    rounds = check_integer(rounds, "rounds", 1)
    h = np.asarray(counts)
    if h.ndim != 1 or h.size == 0 or h.dtype.kind not in "iub" or np.any(h < 0):
        raise _error("counts", "must be a non-empty one-dimensional array of non-negative integers")
    h = h.astype(np.float64)
    n = float(h.sum())
    if n < 1:
        raise _error("counts", "must hold at least one record")
    q = np.asarray(queries)
    if q.ndim != 2 or q.shape[1] != h.size or q.shape[0] == 0:
        raise _error("queries", f"must have shape (Q, {h.size}) with Q >= 1, got {q.shape}")
    if q.dtype.kind not in "biuf" or not np.all((q == 0) | (q == 1)):
        raise _error("queries", "must hold 0/1 indicators")
    qf = q.astype(np.float64)
    true = qf @ h
    # 2 * rounds mechanisms of `step` each must compose (basic composition) to at most the
    # epsilon charged: the split is rounded down (a float epsilon / (2 rounds) can round up).
    step = (Budget(epsilon) / (2 * rounds)).epsilon

    def run() -> np.ndarray:
        gen = as_generator(rng)
        a = np.full(h.size, n / h.size)
        measured: List[Tuple[int, float]] = []
        total = np.zeros(h.size)
        for _ in range(rounds):
            err = np.abs(qf @ a - true)
            i = int(exponential(err, step, 1.0, rng=gen))
            m = float(laplace(float(true[i]), 1.0, step, rng=gen))
            measured.append((i, m))
            for _ in range(10):
                for j, mj in measured:
                    a = a * np.exp(qf[j] * (mj - float(qf[j] @ a)) / (2.0 * n))
                    a *= n / a.sum()
            total += a
        return total / total.sum()

    return _charged(
        accountant, epsilon, 0.0, "MWEM", run, event=lambda: mwem_event(epsilon, rounds)
    )


def mwem_event(epsilon: float, rounds: int) -> PrivacyEvent:
    """The native guarantee of :func:`mwem` (replace-one, ``n`` public): ``rounds`` rounds of
    an exponential mechanism (``step``-bounded-range: Durfee and Rogers, NeurIPS 2019) then a
    Laplace measurement (pure ``step``-DP, charged as :func:`privlearn.mechanisms.laplace`
    charges it), ``step = epsilon / (2 rounds)`` rounded down as :func:`mwem` uses it, with the
    declared budget ``Budget(epsilon)`` (basic composition; Hardt, Ligett and McSherry,
    Theorem 2.1)."""
    step = (Budget(epsilon) / (2 * rounds)).epsilon
    one = PrivacyEvent.composed([PrivacyEvent.bounded_range(step), PrivacyEvent.pure(step)])
    return PrivacyEvent.repeated(one, rounds, budget=Budget(epsilon))
