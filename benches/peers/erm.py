"""Exponential-mechanism ERM (seed 000) against vectorised numpy implementations of the same
computation: score every candidate's 0-1 loss on the data, then sample one with the exponential
mechanism.

* 10^6 halfspaces ``1[w . x + b >= 0]`` in R^2 (a data-independent random set) x 10^4 points:
  privlearn's ``ExponentialMechanismERM.fit`` (fused Rust kernel with AVX-512/AVX2 fused
  multiply-adds, parallel over candidates: a single-precision pass whose signs a rounding
  certificate proves exact, a double-precision and then an exact recount of the candidates it
  cannot certify; the draw exact) against
  numpy in blocks of 16 candidates: ``W @ X.T + b`` (BLAS), ``>= 0``, compare with the labels,
  count along the points, then the float exponential mechanism (max, exp, cumsum,
  searchsorted). The target issue 7 sets.
* 10^6 thresholds ``1[x >= t]`` x 10^4 points: privlearn (sort, then a binary search per
  candidate) against numpy's best (``searchsorted`` of the thresholds in the sorted data plus
  cumulative label counts: the same algorithm, reported) and numpy by broadcasting in blocks
  (the direct vectorisation).
"""

from __future__ import annotations

from typing import List

import numpy as np

from privlearn.learners import ExponentialMechanismERM, LinearCandidates, ThresholdCandidates
from privlearn.random import Generator

from .common import Row, best_time


def _numpy_em(scores: np.ndarray, a: float, rng: np.random.Generator) -> int:
    """The float exponential mechanism in numpy: max, exp, cumsum, searchsorted."""
    z = np.exp(a * (scores - scores.max()))
    c = np.cumsum(z)
    return int(np.searchsorted(c, rng.random() * c[-1], side="right"))


def numpy_halfspace_mistakes(
    W: np.ndarray, b: np.ndarray, X: np.ndarray, y: np.ndarray, block: int = 16
) -> np.ndarray:
    """0-1 mistakes of every halfspace (float signs, not exact), by blocks of candidates:
    ``W_block @ X.T + b`` (BLAS), ``>= 0``, ``!= y``, ``count_nonzero`` along the points. The
    block of 16 candidates is the fastest of the sizes and layouts we tried (4 to 4096
    candidates; ``X @ W.T`` or ``W @ X.T``; BLAS or broadcast products): small blocks stay in
    cache."""
    out = np.empty(W.shape[0], dtype=np.int64)
    XT = np.ascontiguousarray(X.T)
    yb = y.astype(bool)[None, :]
    for s in range(0, W.shape[0], block):
        m = W[s : s + block] @ XT
        m += b[s : s + block, None]
        pred = m >= 0
        np.not_equal(pred, yb, out=pred)
        out[s : s + block] = np.count_nonzero(pred, axis=1)
    return out


def numpy_threshold_mistakes_sorted(t: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Mistakes of 1[x >= t] for every t: sort, searchsorted, cumulative label counts."""
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order].astype(np.int64)
    pos = np.concatenate([[0], np.cumsum(ys)])
    k = np.searchsorted(xs, t, side="left")
    below_pos = pos[k]
    return below_pos + (len(x) - k) - (pos[-1] - below_pos)


def numpy_threshold_mistakes_broadcast(
    t: np.ndarray, x: np.ndarray, y: np.ndarray, block: int = 2048
) -> np.ndarray:
    out = np.empty(t.size, dtype=np.int64)
    yb = y.astype(bool)[None, :]
    for s in range(0, t.size, block):
        pred = x[None, :] >= t[s : s + block, None]
        np.not_equal(pred, yb, out=pred)
        out[s : s + block] = np.count_nonzero(pred, axis=1)
    return out


def rows(quick: bool) -> List[Row]:
    reps = 1 if quick else 3
    g = np.random.default_rng(0)
    gen = Generator(1)
    out: List[Row] = []
    n_points = 10_000
    n_cands = 100_000 if quick else 1_000_000
    eps = 1.0
    X = g.uniform(-1, 1, (n_points, 2))
    y = (X @ [1.0, -0.7] + 0.1 > 0).astype(np.int64) ^ (g.random(n_points) < 0.1)
    W = g.normal(size=(n_cands, 2))
    b = g.uniform(-1, 1, n_cands)
    cands = LinearCandidates(W, b)
    est = ExponentialMechanismERM("zero_one", cands, eps, rng=gen)
    # Same scores (up to exactly decided boundary points): a correctness check, not timed.
    assert np.array_equal(-est._scores(X, y)[0], numpy_halfspace_mistakes(W, b, X, y)), (
        "privlearn and numpy disagree on the mistakes"
    )
    t_pl = best_time(lambda: est.fit(X, y), reps)
    nprng = np.random.default_rng(1)
    t_np = best_time(
        lambda: _numpy_em(-numpy_halfspace_mistakes(W, b, X, y).astype(np.float64), eps / 4, nprng),
        reps,
    )
    label = f"EM-ERM, 0-1 loss, {n_cands:.0e} halfspaces in R^2 x 1e4 points".replace("+0", "")
    out.append(
        Row(
            label,
            t_pl,
            "numpy: blocks of 16 candidates, W @ X.T + b, >= 0, != y, count_nonzero; float EM",
            t_np,
            ">= 10x",
        )
    )

    t = np.sort(g.uniform(-0.1, 1.1, n_cands))
    x1 = g.random(n_points)
    y1 = ((x1 > 0.4) ^ (g.random(n_points) < 0.1)).astype(np.int64)
    est1 = ExponentialMechanismERM("zero_one", ThresholdCandidates(t), eps, rng=gen)
    assert np.array_equal(
        -est1._scores(x1.reshape(-1, 1), y1)[0], numpy_threshold_mistakes_sorted(t, x1, y1)
    )
    t_pl1 = best_time(lambda: est1.fit(x1, y1), reps)
    t_sorted = best_time(
        lambda: _numpy_em(
            -numpy_threshold_mistakes_sorted(t, x1, y1).astype(np.float64), eps / 4, nprng
        ),
        reps,
    )
    label1 = f"EM-ERM, 0-1 loss, {n_cands:.0e} thresholds x 1e4 points".replace("+0", "")
    out.append(
        Row(
            label1,
            t_pl1,
            "numpy: broadcast x >= t in blocks, != y, count_nonzero; float EM",
            best_time(
                lambda: _numpy_em(
                    -numpy_threshold_mistakes_broadcast(t, x1, y1).astype(np.float64),
                    eps / 4,
                    nprng,
                ),
                1,
            ),
            ">= 10x",
        )
    )
    out.append(
        Row(
            label1,
            t_pl1,
            "numpy: sort, searchsorted, cumulative counts (same algorithm); float EM",
            t_sorted,
            "reported",
        )
    )
    return out
