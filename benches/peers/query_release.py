"""The hot paths of private classification-query release (seed 004) against numpy.

There is no library of subsample-and-aggregate query release; the peers are clean vectorised
numpy implementations of the same computations, as a numpy user would write them:

* ensemble votes: ``k = 10^5`` thresholds voting on ``10^4`` queries. privlearn sorts the cut
  points once and binary-searches each query in Rust; the peers are numpy's ``searchsorted`` on
  the same sorted cuts (the same algorithm) and the natural broadcast ``(q >= t).sum``;
* ensemble votes of ``10^4`` halfspaces in the plane on ``10^4`` queries: privlearn decides every
  sign exactly (a filtered predicate); numpy's float matrix product is not exact near the
  boundary (reported);
* the exact ERM of every sub-sample (``10^4`` sub-samples of 100 points): privlearn's prefix
  counts against a row-wise numpy sort with cumulative sums, and against calling
  ``Thresholds().erm`` once per sub-sample;
* the relabelling score (``A_Relabel``): the mistakes of all ``10^6 + 1`` threshold labelings of
  ``10^6`` points, against numpy's sort and cumulative sums;
* the semi-private learner's score: ``1002`` candidate thresholds on ``10^7`` private points
  (``Dichotomies.mistakes_on``, the shared core routine ``representative_mistakes``);
* a uniform subset of ``10^6`` of ``10^7`` indices (exact, from ChaCha20) against numpy's
  ``Generator.choice(replace=False)`` (PCG64, reported).
"""

from __future__ import annotations

from typing import List

import numpy as np

from privlearn import _core
from privlearn.hypotheses import Thresholds

from .common import Row, best_time

GE = ("thresholds", 1, "ge", None)


def numpy_threshold_erm_blocks(x: np.ndarray, y: np.ndarray, blocks: np.ndarray) -> np.ndarray:
    """Exact ERM thresholds ``1[x >= t]`` of each row of ``blocks`` (indices): sort each block,
    mistakes of "zeros on the j smallest" = positives among them + negatives above, first
    minimum; the cut between the j-th and (j+1)-th smallest (ties are not merged: valid on
    distinct values)."""
    xb, yb = x[blocks], y[blocks]
    order = np.argsort(xb, axis=1)
    xs = np.take_along_axis(xb, order, axis=1)
    ys = np.take_along_axis(yb, order, axis=1).astype(np.int64)
    pos_below = np.concatenate([np.zeros((len(xb), 1), np.int64), np.cumsum(ys, axis=1)], axis=1)
    neg_total = (1 - ys).sum(axis=1, keepdims=True)
    neg_below = np.arange(xb.shape[1] + 1)[None, :] - pos_below
    j = np.argmin(pos_below + neg_total - neg_below, axis=1)
    s = xb.shape[1]
    lo = np.where(j > 0, xs[np.arange(len(xb)), np.maximum(j - 1, 0)], -np.inf)
    hi = np.where(j < s, xs[np.arange(len(xb)), np.minimum(j, s - 1)], np.inf)
    return np.where(j == 0, -np.inf, np.where(j == s, np.inf, lo / 2 + hi / 2))


def numpy_threshold_mistakes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Mistakes of every "zeros on the j smallest distinct values" labeling."""
    u, inv = np.unique(x, return_inverse=True)
    pos = np.bincount(inv, weights=y, minlength=len(u)).astype(np.int64)
    cnt = np.bincount(inv, minlength=len(u))
    pos_below = np.concatenate([[0], np.cumsum(pos)])
    neg_below = np.concatenate([[0], np.cumsum(cnt - pos)])
    return pos_below + (neg_below[-1] - neg_below)


def numpy_candidate_mistakes(t: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Mistakes of the thresholds ``1[x >= t]`` on ``(x, y)``: sort, search, prefix counts."""
    order = np.argsort(x)
    xs, ys = x[order], y[order].astype(np.int64)
    pos_below = np.concatenate([[0], np.cumsum(ys)])
    idx = np.searchsorted(xs, t, side="left")
    neg_above = (len(x) - idx) - (pos_below[-1] - pos_below[idx])
    return pos_below[idx] + neg_above


def rows(quick: bool) -> List[Row]:
    reps = 2 if quick else 5
    g = np.random.default_rng(0)
    out: List[Row] = []

    k, q = 100_000, 10_000
    cuts = g.random(k)
    params = np.column_stack([cuts, np.ones(k)])
    queries = g.random((q, 1))
    ens = _core.HypothesisEnsemble(GE, params)
    sorted_cuts = np.sort(cuts)
    ref = np.searchsorted(sorted_cuts, queries[:, 0], side="right")
    assert np.array_equal(ens.votes(queries), ref)
    t_pl = best_time(lambda: ens.votes(queries), reps)
    t_ss = best_time(lambda: np.searchsorted(sorted_cuts, queries[:, 0], side="right"), reps)
    name = "ensemble votes: 10^5 thresholds on 10^4 queries"
    out.append(
        Row(name, t_pl, "numpy searchsorted on the sorted cuts (same algorithm)", t_ss, ">= 1x")
    )
    small = queries[:1000, 0]
    t_bc = best_time(
        lambda: sum(
            (small[s : s + 100, None] >= cuts[None, :]).sum(axis=1).sum()
            for s in range(0, 1000, 100)
        ),
        1,
    )
    out.append(
        Row(name, t_pl, "numpy broadcast (q >= t).sum, per 10^4 queries", t_bc * 10, ">= 100x")
    )
    t_build = best_time(lambda: _core.HypothesisEnsemble(GE, params), reps)
    out.append(
        Row(
            "ensemble of 10^5 thresholds: build (sort the cuts)",
            t_build,
            "numpy sort",
            best_time(lambda: np.sort(cuts), reps),
            "reported",
        )
    )

    kh = 10_000
    W = g.normal(size=(kh, 2))
    B = g.normal(size=kh) * 0.1
    hs = _core.HypothesisEnsemble(("halfspaces", 2, "ge", None), np.column_stack([W, B]))
    Q2 = g.normal(size=(10_000, 2))
    t_hs = best_time(lambda: hs.votes(Q2), reps)
    t_mm = best_time(lambda: ((Q2 @ W.T + B) >= 0).sum(axis=1), reps)
    out.append(
        Row(
            "ensemble votes: 10^4 halfspaces in R^2 on 10^4 queries (exact signs)",
            t_hs,
            "numpy float matmul (not exact at the boundary)",
            t_mm,
            "reported",
        )
    )

    n_blocks, size = 10_000, 100
    x = g.random(n_blocks * size)
    y = x >= 0.5
    y ^= g.random(len(x)) < 0.1
    order = g.permutation(len(x))
    blocks = order.reshape(n_blocks, size)
    fast = _core.threshold_erm_blocks(x, y, order, size, "ge")
    assert np.allclose(fast[:, 0], numpy_threshold_erm_blocks(x, y, blocks))
    t_erm = best_time(lambda: _core.threshold_erm_blocks(x, y, order, size, "ge"), reps)
    t_np_erm = best_time(lambda: numpy_threshold_erm_blocks(x, y, blocks), reps)
    name = "exact ERM of 10^4 sub-samples of 100 points (thresholds)"
    out.append(Row(name, t_erm, "numpy: row-wise sort and cumulative sums", t_np_erm, ">= 1x"))
    X2 = x[:, None]
    t_loop = best_time(lambda: [Thresholds().erm(X2[b], y[b]) for b in blocks[:1000]], 1) * 10
    out.append(Row(name, t_erm, "Thresholds().erm per sub-sample (Python loop)", t_loop, ">= 5x"))

    xr = g.random(1_000_000)
    yr = (xr >= 0.3) ^ (g.random(len(xr)) < 0.2)
    assert np.array_equal(
        _core.threshold_labeling_mistakes(xr, yr, "ge"), numpy_threshold_mistakes(xr, yr)
    )
    t_rl = best_time(lambda: _core.threshold_labeling_mistakes(xr, yr, "ge"), reps)
    t_np_rl = best_time(lambda: numpy_threshold_mistakes(xr, yr), reps)
    out.append(
        Row(
            "relabelling score: mistakes of all 10^6 + 1 threshold labelings of 10^6 points",
            t_rl,
            "numpy: unique, bincount, cumulative sums",
            t_np_rl,
            ">= 1x",
        )
    )

    n_priv = 2_000_000 if quick else 10_000_000
    xs = g.random(n_priv)
    ys = xs >= 0.4
    cand = np.r_[-np.inf, np.sort(g.random(1000)), np.inf]
    cp = np.column_stack([cand, np.ones(len(cand))])
    X1 = xs[:, None]
    assert np.array_equal(
        _core.representative_mistakes(GE, cp, X1, ys), numpy_candidate_mistakes(cand, xs, ys)
    )
    t_sc = best_time(lambda: _core.representative_mistakes(GE, cp, X1, ys), reps)
    t_np_sc = best_time(lambda: numpy_candidate_mistakes(cand, xs, ys), reps)
    out.append(
        Row(
            f"semi-private score: 1002 thresholds on {n_priv:,} private points",
            t_sc,
            "numpy: argsort, searchsorted, cumulative sums",
            t_np_sc,
            ">= 1x",
        )
    )

    t_wor = best_time(lambda: _core.sample_indices(10_000_000, 1_000_000, False, 1), reps)
    t_np_wor = best_time(
        lambda: np.random.default_rng(1).choice(10_000_000, 1_000_000, replace=False), reps
    )
    out.append(
        Row(
            "uniform subset of 10^6 of 10^7 indices (exact, ChaCha20)",
            t_wor,
            "numpy Generator.choice(replace=False) (PCG64)",
            t_np_wor,
            "reported",
        )
    )
    return out
