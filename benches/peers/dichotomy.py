"""Dichotomy enumeration against clean vectorised numpy implementations (issue 4).

There is no library for enumerating the labelings a class induces (anchors note §4), so the
peers are numpy implementations of the same algorithms, written here as a numpy user would:

* halfspaces in the plane, 1000 random points (999,002 labelings): the rotational sweep emits,
  for each pair ``(i, j)`` at its critical angle, the points left of the directed line
  ``p_i -> p_j`` plus ``p_i``, and the complement. numpy computes those sides for all pairs at
  once (blocks of pairs broadcast against all points), sets the pair's own bit and packs the
  rows (``np.packbits``). In general position (random points) every pair gives a new split, so
  no deduplication is needed; privlearn's sweep is exact on any input.
* intervals, 2000 random points (2,001,001 labelings), two numpy versions of the same
  enumeration: (a) broadcasting, the labeling of interval ``(i, j)`` being ``i <= rank <= j``
  (blocks of left ends, boolean rows packed with ``np.packbits``), the natural vectorisation;
  (b) incremental bitsets exactly as in privlearn, one ``np.bitwise_or.accumulate`` of the
  one-hot packed rows per left end (reported).
* parities, 1024 points of rank 20 (2^20 labelings): the target is absolute (<= 100 ns per
  labeling); numpy's reflected Gray-code construction (``L[2^k:2^{k+1}] = L[:2^k][::-1] ^ b_k``)
  is reported alongside.
* thresholds on 10^5 points and the scoring of every halfspace labeling against labels
  (reported).
"""

from __future__ import annotations

from typing import List

import numpy as np

from privlearn.hypotheses import Halfspaces, Intervals, Parities, Thresholds

from .common import Row, best_time


def _pack(bools: np.ndarray) -> np.ndarray:
    """Boolean rows -> uint64 words, LSB-first (the project's layout)."""
    n = bools.shape[1]
    words = -(-n // 64)
    packed = np.packbits(bools, axis=1, bitorder="little")
    pad = words * 8 - packed.shape[1]
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    return np.ascontiguousarray(packed).view("<u8")


def numpy_halfspaces_2d(X: np.ndarray, block: int = 4096) -> np.ndarray:
    """Labelings of affine halfspaces on points in general position (packed rows)."""
    n = X.shape[0]
    order = np.lexsort((X[:, 0], X[:, 1]))  # pairs i < j in (y, x) order: d = p_j - p_i
    P = X[order]
    inv = np.empty(n, dtype=np.int64)
    inv[order] = np.arange(n)
    i_idx, j_idx = np.triu_indices(n, k=1)
    words = -(-n // 64)
    out = np.empty((2 + 2 * len(i_idx), words), dtype=np.uint64)
    out[0] = 0
    out[1] = _pack(np.ones((1, n), dtype=bool))[0]
    for s in range(0, len(i_idx), block):
        i, j = i_idx[s : s + block], j_idx[s : s + block]
        pi, d = P[i], P[j] - P[i]
        left = d[:, :1] * (X[None, :, 1] - pi[:, 1:]) - d[:, 1:] * (X[None, :, 0] - pi[:, :1]) > 0
        rows = np.arange(len(i))
        left[rows, order[i]] = True
        packed_b = _pack(left)
        left[rows, order[i]] = False
        left = ~left
        left[rows, order[i]] = False
        out[2 + 2 * s : 2 + 2 * (s + len(i)) : 2] = packed_b
        out[3 + 2 * s : 3 + 2 * (s + len(i)) : 2] = _pack(left)
    return out


def numpy_intervals_broadcast(x: np.ndarray, block: int = 64) -> np.ndarray:
    """Labelings of intervals: (i, j) -> i <= rank <= j, by blocks of left ends."""
    vals, rank = np.unique(x, return_inverse=True)
    m = len(vals)
    words = -(-len(x) // 64)
    out = np.zeros((m * (m + 1) // 2 + 1, words), dtype=np.uint64)
    r = 1
    j = np.arange(m)
    for s in range(0, m, block):
        for i in range(s, min(s + block, m)):
            lab = (rank[None, :] >= i) & (rank[None, :] <= j[i:, None])
            out[r : r + m - i] = _pack(lab)
            r += m - i
    return out


def numpy_intervals_incremental(x: np.ndarray) -> np.ndarray:
    """Labelings of intervals by incremental bitsets: one OR-accumulate per left end."""
    vals, rank = np.unique(x, return_inverse=True)
    m = len(vals)
    onehot = _pack(rank[None, :] == np.arange(m)[:, None])
    out = np.zeros((m * (m + 1) // 2 + 1, onehot.shape[1]), dtype=np.uint64)
    r = 1
    for i in range(m):
        np.bitwise_or.accumulate(onehot[i:], axis=0, out=out[r : r + m - i])
        r += m - i
    return out


def numpy_parities(basis: np.ndarray) -> np.ndarray:
    """All labelings spanned by packed basis rows, in reflected Gray-code order."""
    r, words = basis.shape
    out = np.zeros((1 << r, words), dtype=np.uint64)
    for k in range(r):
        h = 1 << k
        np.bitwise_xor(out[:h][::-1], basis[k], out=out[h : 2 * h])
    return out


def parity_points(n: int, rank: int, dim: int, seed: int) -> np.ndarray:
    """``n`` points of ``{0,1}^dim`` spanning rank ``rank`` over GF(2): random combinations of
    ``rank`` random generators."""
    rng = np.random.default_rng(seed)
    gens = rng.integers(0, 2, size=(rank, dim))
    coef = rng.integers(0, 2, size=(n, rank))
    return (coef @ gens) % 2


def rows(quick: bool) -> List[Row]:
    reps = 2 if quick else 5
    out: List[Row] = []
    rng = np.random.default_rng(0)

    X = rng.random((1000, 2))
    t_rs = best_time(lambda: Halfspaces(2).dichotomies(X), reps)
    t_np = best_time(lambda: numpy_halfspaces_2d(X), 1 if quick else 2)
    small = X[:80]
    as_set = lambda a: {tuple(int(w) for w in row) for row in a}  # noqa: E731
    assert as_set(numpy_halfspaces_2d(small)) == as_set(Halfspaces(2).dichotomies(small).packed)
    out.append(
        Row(
            "halfspaces in R^2, 1000 points (999,002 labelings)",
            t_rs,
            "numpy: sides of every pair's line, packbits",
            t_np,
            ">= 30x",
        )
    )
    t_stream = best_time(lambda: sum(len(c) for c in Halfspaces(2).iter_dichotomies(X)), reps)
    out.append(
        Row(
            "halfspaces in R^2, 1000 points, streamed in 64K chunks",
            t_stream,
            "-",
            None,
            "reported",
        )
    )
    t_count = best_time(lambda: Halfspaces(2).count_dichotomies(X), reps)
    out.append(Row("halfspaces in R^2, 1000 points, count only", t_count, "-", None, "reported"))

    x = rng.random(2000)
    t_iv = best_time(lambda: Intervals().dichotomies(x), reps)
    t_np_b = best_time(lambda: numpy_intervals_broadcast(x), 1)
    t_np_i = best_time(lambda: numpy_intervals_incremental(x), 1 if quick else 3)
    assert np.array_equal(
        numpy_intervals_incremental(x[:300]), Intervals().dichotomies(x[:300]).packed
    )
    assert np.array_equal(
        numpy_intervals_broadcast(x[:300]), Intervals().dichotomies(x[:300]).packed
    )
    name = "intervals, 2000 points (2,001,001 labelings)"
    out.append(Row(name, t_iv, "numpy: broadcast i <= rank <= j, packbits", t_np_b, ">= 30x"))
    out.append(
        Row(
            name,
            t_iv,
            "numpy: incremental bitsets (OR-accumulate per left end)",
            t_np_i,
            "reported",
        )
    )

    P = parity_points(1024, 20, 64, seed=1)
    assert Parities(64).rank(P) == 20
    t_par = best_time(lambda: Parities(64).dichotomies(P), reps)
    per_label = t_par / (1 << 20)
    basis = Parities(64).dichotomies(P[:, :64]).packed[[1 << k for k in range(20)]]
    t_np_par = best_time(lambda: numpy_parities(basis), reps)
    out.append(
        Row(
            "parities, 1024 points of rank 20 (2^20 labelings), per labeling",
            per_label,
            "numpy: reflected Gray code, per labeling",
            t_np_par / (1 << 20),
            "<= 100 ns",
        )
    )

    xt = rng.random(100_000)
    t_thr = best_time(lambda: Thresholds().dichotomies(xt), reps)

    def numpy_thresholds() -> np.ndarray:
        order = np.argsort(xt, kind="stable")
        words = -(-len(xt) // 64)
        onehot = np.zeros((len(xt), words), dtype=np.uint64)
        onehot[np.arange(len(xt)), order // 64] = np.left_shift(
            np.uint64(1), (order % 64).astype(np.uint64)
        )
        full = np.bitwise_or.reduce(onehot, axis=0)
        return np.vstack([full, full ^ np.bitwise_xor.accumulate(onehot, axis=0)])

    t_np_thr = best_time(numpy_thresholds, 1)
    out.append(
        Row(
            "thresholds, 10^5 points (10^5 + 1 labelings)",
            t_thr,
            "numpy: XOR-accumulate of one-hot rows",
            t_np_thr,
            "reported",
        )
    )

    d = Halfspaces(2).dichotomies(X)
    y = X[:, 0] > X[:, 1]
    t_mis = best_time(lambda: d.mistakes(y), reps)
    t_np_mis = (
        best_time(lambda: np.bitwise_count(d.packed ^ _pack(y[None, :])[0]).sum(axis=1), reps)
        if hasattr(np, "bitwise_count")
        else None
    )
    out.append(
        Row(
            "mistakes of 999,002 halfspace labelings (1000 points)",
            t_mis,
            "numpy: bitwise_count of XOR",
            t_np_mis,
            "reported",
        )
    )
    return out
