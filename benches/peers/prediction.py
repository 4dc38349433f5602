"""Stable and private prediction (seed 003) against vectorised numpy.

The hot path of every prediction is scoring each representative of the class :math:`C_{S'}` of
a random subset against the whole sample. No library does this, so the peers are numpy
implementations of the same computation, written as a numpy user would:

* halfspaces in the plane: the ``m^2 - m + 2`` representatives of a 60-point subset scored on
  ``n = 10^4`` points: numpy evaluates ``W X^T + b`` with BLAS in blocks of representatives and
  counts the disagreements (floating point, so not exact at the boundary; privlearn is);
* intervals: the ``m(m+1)/2 + 1`` representatives of a 300-point subset on ``n = 10^6`` points:
  numpy sorts the sample once and uses ``searchsorted`` on prefix counts (the same algorithm);
* one private prediction end to end (Corollary 1 on intervals, ``n = 10^5``, and on planar
  halfspaces, ``n = 10^4``): privlearn's ``PrivatePredictor.predict`` per query, against a
  Python loop over queries that uses privlearn's own enumeration and exact exponential
  mechanism with the numpy scoring above. For intervals the loop does the same work as
  privlearn (numpy's ``searchsorted`` is as fast on sorted keys), so the ratio is reported.
"""

from __future__ import annotations

from typing import List

import numpy as np

from privlearn.hypotheses import Halfspaces, Intervals
from privlearn.mechanisms import exponential
from privlearn.prediction import PrivatePredictor

from .common import Row, best_time


def numpy_halfspace_mistakes(
    params: np.ndarray, X: np.ndarray, y: np.ndarray, block: int = 256
) -> np.ndarray:
    W, b = params[:, :2], params[:, 2]
    out = np.empty(len(params), dtype=np.int64)
    yb = y.astype(bool)
    for s in range(0, len(params), block):
        lab = W[s : s + block] @ X.T + b[s : s + block, None] >= 0
        out[s : s + block] = np.count_nonzero(lab != yb, axis=1)
    return out


class SortedIntervals:
    """numpy scoring of interval representatives ``[a, b]`` on a sorted sample."""

    def __init__(self, x: np.ndarray, y: np.ndarray) -> None:
        order = np.argsort(x, kind="stable")
        self.xs = x[order]
        self.ones = np.concatenate([[0], np.cumsum(y[order])])

    def mistakes(self, params: np.ndarray) -> np.ndarray:
        lo = np.searchsorted(self.xs, params[:, 0], side="left")
        hi = np.searchsorted(self.xs, params[:, 1], side="right")
        hi = np.maximum(hi, lo)
        inside = self.ones[hi] - self.ones[lo]
        return (hi - lo - inside) + (self.ones[-1] - inside)


def _numpy_predict(H, X, y, queries, m, eps0, p, g):
    """One Corollary 1 answer per query, orchestrated in Python with numpy scoring."""
    planar = isinstance(H, Halfspaces)
    scorer = None if planar else SortedIntervals(X, y)
    out = np.empty(len(queries), dtype=np.int64)
    for j, q in enumerate(queries):
        idx = g.choice(len(X), m, replace=False)
        d = H.dichotomies(X[idx])
        errs = numpy_halfspace_mistakes(d.params, X, y) if planar else scorer.mistakes(d.params)
        h = exponential(-errs, eps0, rng=int(g.integers(2**63)))
        label = H.predict(d.hypothesis(h), q[None] if planar else [q])[0]
        out[j] = int(label) ^ int(g.random() < p)
    return out


def rows(quick: bool) -> List[Row]:
    reps = 3 if quick else 7
    g = np.random.default_rng(0)
    out: List[Row] = []

    n = 10_000
    X = g.random((n, 2))
    y = (X.sum(axis=1) > 1) ^ (g.random(n) < 0.1)
    d = Halfspaces(2).dichotomies(X[:60])
    assert np.array_equal(d.mistakes_on(X, y), numpy_halfspace_mistakes(d.params, X, y))
    t_ours = best_time(lambda: d.mistakes_on(X, y), reps)
    t_np = best_time(lambda: numpy_halfspace_mistakes(d.params, X, y), reps)
    out.append(
        Row(
            f"scoring {len(d)} planar halfspace representatives on 10^4 points (exact)",
            t_ours,
            "numpy: W X^T + b (BLAS, float) in blocks, count_nonzero",
            t_np,
            ">= 5x",
            note="includes laying out the points for the exact 0-1 kernel",
        )
    )

    n = 1_000_000
    x = g.random(n)
    yi = ((0.3 <= x) & (x <= 0.7)) ^ (g.random(n) < 0.1)
    d = Intervals().dichotomies(x[:300])
    sc = SortedIntervals(x, yi.astype(np.int64))
    assert np.array_equal(d.mistakes_on(x, yi), sc.mistakes(d.params))
    t_ours = best_time(lambda: d.mistakes_on(x, yi), reps)
    t_np = best_time(lambda: SortedIntervals(x, yi.astype(np.int64)).mistakes(d.params), reps)
    out.append(
        Row(
            f"scoring {len(d)} interval representatives on 10^6 points",
            t_ours,
            "numpy: argsort, cumsum, searchsorted (same algorithm)",
            t_np,
            "reported",
        )
    )

    n, q = 100_000, 200
    x = g.random(n)
    yi = ((0.3 <= x) & (x <= 0.7)) ^ (g.random(n) < 0.1)
    clf = PrivatePredictor(Intervals(), 1.0, rng=0).fit(x, yi)
    queries = g.random(q)
    t_ours = best_time(lambda: clf.predict(queries), reps) / q
    gg = np.random.default_rng(1)
    t_np = (
        best_time(
            lambda: _numpy_predict(
                Intervals(),
                x,
                yi.astype(np.int64),
                queries,
                clf.subsample_size_,
                clf.inner_epsilon_,
                clf.flip_probability_,
                gg,
            ),
            max(1, reps // 2),
        )
        / q
    )
    out.append(
        Row(
            f"one private prediction (Corollary 1, intervals, n = 10^5, m = {clf.subsample_size_})",
            t_ours,
            "Python loop over queries: privlearn enumeration + EM, numpy scoring",
            t_np,
            "reported",
        )
    )

    n, q = 10_000, 20
    X = g.random((n, 2))
    y = (X.sum(axis=1) > 1) ^ (g.random(n) < 0.1)
    clf = PrivatePredictor(Halfspaces(2), 1.0, rng=0).fit(X, y)
    queries = g.random((q, 2))
    t_ours = best_time(lambda: clf.predict(queries), reps) / q
    t_np = (
        best_time(
            lambda: _numpy_predict(
                Halfspaces(2),
                X,
                y,
                queries,
                clf.subsample_size_,
                clf.inner_epsilon_,
                clf.flip_probability_,
                gg,
            ),
            max(1, reps // 2),
        )
        / q
    )
    out.append(
        Row(
            f"one private prediction (Corollary 1, planar halfspaces, n = 10^4, m = {clf.subsample_size_})",
            t_ours,
            "Python loop over queries: privlearn enumeration + EM, numpy BLAS scoring",
            t_np,
            ">= 3x",
        )
    )
    return out
