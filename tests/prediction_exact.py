"""Exact prediction probabilities of seed 003's algorithms on tiny samples, by enumeration.

Test-only reference code for samples on the grid ``{0, ..., 5}``, written independently of ``privlearn.prediction`` and of its Rust core:
the covers come from :meth:`HypothesisClass.dichotomies` (the public enumeration), every
representative is scored with :meth:`HypothesisClass.predict`, the consistent learners are
:meth:`HypothesisClass.erm`, and every random subset is enumerated. These probabilities are
deterministic functions of the data and are **not private** (ERRATA 003-1): they exist to check
the certificates exactly (spec/003 §6.A) and to test the samplers against them.

The data model of the tiny instances: one-dimensional points on the grid ``{0, ..., 5}``
(spec/003 §8), labels 0/1, neighbours by replacing one example with any grid point and label.
"""

from __future__ import annotations

import itertools
import math
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from privlearn.hypotheses import HypothesisClass

GRID = tuple(float(v) for v in range(6))
QUERIES = np.array([-0.5] + [v / 2 for v in range(0, 12)], dtype=float)

Sample = Tuple[Tuple[float, ...], Tuple[int, ...]]


def em_probabilities(errors: Sequence[float], epsilon: float) -> np.ndarray:
    """``exp(-epsilon e / 2)`` normalised: the exponential mechanism on minus the mistakes."""
    e = np.asarray(errors, dtype=float)
    w = np.exp(-epsilon * (e - e.min()) / 2)
    return w / w.sum()


def vote_probability(c: int, k: int, epsilon: float) -> float:
    """``Pr[1]`` of the private vote with ``c`` of ``k`` votes for 1."""
    return 1.0 / (1.0 + math.exp(epsilon * (k - 2 * c) / 2))


class Reference:
    """Exact probabilities for one hypothesis class on tiny samples (with caches)."""

    def __init__(self, H: HypothesisClass, queries: np.ndarray = QUERIES) -> None:
        self.H = H
        self.queries = queries
        self._reps: Dict[Tuple[float, ...], list] = {}
        self._tables: Dict[Tuple[float, ...], Tuple[np.ndarray, np.ndarray]] = {}

    def reps(self, points: Sequence[float]) -> list:
        """Representatives of the class of labelings of ``points`` (by their set of values)."""
        key = tuple(sorted(set(points)))
        if key not in self._reps:
            self._reps[key] = self.H.dichotomies(np.array(key)).hypotheses()
        return self._reps[key]

    def tables(self, points: Sequence[float]) -> Tuple[np.ndarray, np.ndarray]:
        """The cover's labels on the grid (``(|C|, 6)``) and on the queries (``(|C|, Q)``)."""
        key = tuple(sorted(set(points)))
        if key not in self._tables:
            reps = self.reps(key)
            self._tables[key] = (
                np.array([self.labels(h, GRID) for h in reps]),
                np.array([self.labels(h, self.queries) for h in reps]),
            )
        return self._tables[key]

    def labels(self, h, X) -> np.ndarray:
        return self.H.predict(h, np.asarray(X, dtype=float)).astype(int)

    # -- Theorem 1 / Corollary 1 ---------------------------------------------------------------

    def stable_given(self, X, y, cover_points, epsilon0: float) -> np.ndarray:
        """``p_{S,T}(x)`` for every query: the exponential mechanism over the cover of
        ``cover_points`` scored on ``(X, y)``."""
        grid, lab = self.tables(cover_points)
        idx = np.asarray(X, dtype=int)
        errs = np.sum(grid[:, idx] != np.asarray(y), axis=1)
        return em_probabilities(errs, epsilon0) @ lab

    def stable(
        self,
        sample: Sample,
        m: int,
        epsilon0: float,
        cover_from: Optional[Sample] = None,
        scale: float = 1.0,
    ) -> np.ndarray:
        """``Pr[A(S, x) = 1]`` of the Theorem 1 predictor, every ``m``-subset enumerated; the
        covers come from ``cover_from``'s points when given (the middle term of the proofs)."""
        X, y = sample
        Xc = (cover_from or sample)[0]
        n = len(X)
        total = np.zeros(len(self.queries))
        subsets = list(itertools.combinations(range(n), m))
        for idx in subsets:
            total += self.stable_given(X, y, [Xc[i] for i in idx], epsilon0 * scale)
        return total / len(subsets)

    # -- Theorem 2 ----------------------------------------------------------------------------

    def realizable(self, X, labels, blocks: Sequence[Sequence[int]], epsilon1: float) -> np.ndarray:
        """``q(x)``: the private vote of the blocks' ERMs (consistent learners) on relabelled
        data."""
        k = len(blocks)
        c = np.zeros(len(self.queries), dtype=int)
        for b in blocks:
            g = self.H.erm(np.array([X[i] for i in b]), np.array([labels[i] for i in b]))
            c += self.labels(g, self.queries)
        return np.array([vote_probability(int(ci), k, epsilon1) for ci in c])

    def theorem2_given(
        self, X, y, cover_points, epsilon1: float, blocks, scale: float = 1.0
    ) -> np.ndarray:
        reps = self.reps(cover_points)
        errs = [int(np.sum(self.labels(h, X) != np.asarray(y))) for h in reps]
        pr = em_probabilities(errs, epsilon1 * scale)
        q = np.array(
            [self.realizable(X, self.labels(h, X), blocks, epsilon1 * scale) for h in reps]
        )
        return pr @ q

    def theorem2(
        self,
        sample: Sample,
        m: int,
        epsilon1: float,
        blocks,
        cover_from: Optional[Sample] = None,
        scale: float = 1.0,
    ) -> np.ndarray:
        """``h_S(x)`` (Eqs. (8)-(9)) before the flip, every subset enumerated (the covers from
        ``cover_from``'s points when given; ``scale`` multiplies ``epsilon1``: broken variants)."""
        X, y = sample
        Xc = (cover_from or sample)[0]
        total = np.zeros(len(self.queries))
        subsets = list(itertools.combinations(range(len(X)), m))
        for idx in subsets:
            total += self.theorem2_given(X, y, [Xc[i] for i in idx], epsilon1, blocks, scale)
        return total / len(subsets)


def flipped(p1: np.ndarray, p: float) -> np.ndarray:
    """``Pr[1]`` after flipping with probability ``p``."""
    return p + (1 - 2 * p) * p1


def log_ratio(pa: np.ndarray, pb: np.ndarray) -> float:
    """Largest ``|ln P_a(y) - ln P_b(y)|`` over queries and both labels."""
    out = 0.0
    for a, b in ((pa, pb), (1 - pa, 1 - pb)):
        with np.errstate(divide="ignore"):
            out = max(out, float(np.max(np.abs(np.log(a) - np.log(b)))))
    return out


def random_samples(count: int, n: int, seed: int) -> List[Sample]:
    g = np.random.default_rng(seed)
    return [
        (tuple(float(v) for v in g.integers(0, 6, n)), tuple(int(v) for v in g.integers(0, 2, n)))
        for _ in range(count)
    ]


def neighbours(sample: Sample) -> Iterator[Tuple[int, Sample]]:
    """Every sample obtained by replacing one example with a grid point and a label."""
    X, y = sample
    for i in range(len(X)):
        for v in GRID:
            for lab in (0, 1):
                if (v, lab) != (X[i], y[i]):
                    yield i, (X[:i] + (v,) + X[i + 1 :], y[:i] + (lab,) + y[i + 1 :])


def gaps_ok(R: Sequence[float], others: Sequence[float], budget: int) -> bool:
    """Thresholds: every two thresholds that agree on the points ``R`` disagree on at most
    ``budget`` of ``others`` (each open gap of ``R``, and both ends, holds at most ``budget``)."""
    cuts = sorted(set(R))
    bounds = [-math.inf] + cuts + [math.inf]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        if sum(1 for v in others if lo < v < hi) > budget:
            return False
    return True
