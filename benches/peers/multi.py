"""Multi-concept learning (issue 9): ``ParityMultiLearner`` (Bun, Nissim and Stemmer's
``SearchParities``) against the same algorithm written with numpy and with galois.

The task: ``k = 1000`` parities on ``{0,1}^256``, ``epsilon = 1``, ``delta = 1e-6``: ``T = 119``
subsamples of ``259`` rows (``n = 30,821``), and on each one elimination of the augmented matrix
``[A_t | B_t]`` (``259 x 1256`` bits) with pivots in the first 256 columns, a rank and
consistency check, the ``256 x 1000`` solution as the candidate, the counts of equal candidates
and the stable selection. Every side starts from the same numpy arrays (``X`` of ``uint8`` bits,
``Y`` of booleans) and must return the same parities.

Peers (the same algorithm, vectorised as well as each library allows):

* **numpy, packed**: rows as ``uint64`` words (20 per row), one vectorised pivot step per column
  (find the pivot row, swap, XOR it into every row with that bit): the best numpy version;
* **numpy, bytes**: the same on a ``uint8`` matrix of zeros and ones;
* **galois**: ``GF(2)`` arrays and ``FieldArray.row_reduce(ncols=256)`` per subsample, timed once
  on a slice of the subsamples and scaled to all of them (each subsample is the same work).

The candidates' counts and the selection (a few microseconds) are done the same way on every
side (Python dictionary of packed solutions, discrete Laplace noise from privlearn).
"""

from __future__ import annotations

import time
from typing import Dict, List, Optional, Tuple

import numpy as np

from privlearn.mechanisms import stable_argmax
from privlearn.multi import ParityMultiLearner, parity_subsamples

from .common import Row, best_time

DIM, K, EPS, DELTA = 256, 1000, 1.0, 1e-6
TARGET = ">= 20x"


def task(seed: int = 0) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Examples, labels and the target parities (``DIM x K``) of the benchmark."""
    g = np.random.default_rng(seed)
    n = parity_subsamples(EPS, DELTA) * (DIM + 3)
    X = g.integers(0, 2, size=(n, DIM), dtype=np.uint8)
    S = g.integers(0, 2, size=(DIM, K), dtype=np.uint8)
    Y = (X.astype(np.float32) @ S.astype(np.float32)).astype(np.int64) % 2 == 1
    return X, Y, S


def _select(keys: List[Optional[bytes]]) -> Optional[bytes]:
    """The stable selection over the candidates' counts (as the learner does)."""
    counts: Dict[bytes, int] = {}
    for key in keys:
        if key is not None:
            counts[key] = counts.get(key, 0) + 1
    if not counts:
        return None
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    second = ranked[1][1] if len(ranked) > 1 else 0
    return (
        ranked[0][0]
        if stable_argmax([ranked[0][1], second], EPS, DELTA, rng=0) is not None
        else None
    )


def _subsamples(n: int) -> range:
    return range(n // (DIM + 3))


def numpy_packed(X: np.ndarray, Y: np.ndarray) -> Optional[np.ndarray]:
    """SearchParities with numpy on packed ``uint64`` rows."""
    m = DIM + 3
    aug = np.concatenate([X, Y.astype(np.uint8)], axis=1)
    cols = aug.shape[1]
    pad = (-cols) % 64
    bits = np.packbits(np.pad(aug, ((0, 0), (0, pad))), axis=1, bitorder="little")
    words = np.ascontiguousarray(bits).view("<u8")
    keys: List[Optional[bytes]] = []
    for t in _subsamples(X.shape[0]):
        M = words[t * m : (t + 1) * m].copy()
        ok = True
        for c in range(DIM):
            w, b = c // 64, np.uint64(c % 64)
            col = (M[c:, w] >> b) & np.uint64(1)
            p = int(np.argmax(col))
            if not col[p]:
                ok = False
                break
            if p:
                M[[c, c + p]] = M[[c + p, c]]
            hit = ((M[:, w] >> b) & np.uint64(1)).astype(bool)
            hit[c] = False
            M[hit] ^= M[c]
        if ok and M[DIM:].any():
            ok = False
        if not ok:
            keys.append(None)
            continue
        sol = np.unpackbits(M[:DIM].view(np.uint8), axis=1, bitorder="little")[:, DIM : DIM + K]
        keys.append(np.packbits(sol).tobytes())
    best = _select(keys)
    return (
        None
        if best is None
        else np.unpackbits(np.frombuffer(best, np.uint8))[: DIM * K].reshape(DIM, K)
    )


def numpy_bytes(X: np.ndarray, Y: np.ndarray) -> Optional[np.ndarray]:
    """SearchParities with numpy on ``uint8`` zeros and ones."""
    m = DIM + 3
    aug = np.concatenate([X, Y.astype(np.uint8)], axis=1)
    keys: List[Optional[bytes]] = []
    for t in _subsamples(X.shape[0]):
        M = aug[t * m : (t + 1) * m].copy()
        ok = True
        for c in range(DIM):
            p = int(np.argmax(M[c:, c]))
            if not M[c + p, c]:
                ok = False
                break
            if p:
                M[[c, c + p]] = M[[c + p, c]]
            hit = M[:, c].astype(bool)
            hit[c] = False
            M[hit] ^= M[c]
        if ok and M[DIM:].any():
            ok = False
        keys.append(np.packbits(M[:DIM, DIM:]).tobytes() if ok else None)
    best = _select(keys)
    return (
        None
        if best is None
        else np.unpackbits(np.frombuffer(best, np.uint8))[: DIM * K].reshape(DIM, K)
    )


def galois_subsamples(
    X: np.ndarray, Y: np.ndarray, count: int
) -> Tuple[float, List[Optional[bytes]]]:
    """Seconds for the first ``count`` subsamples with galois, and their candidates."""
    import galois

    GF2 = galois.GF(2)
    m = DIM + 3
    aug = np.concatenate([X, Y.astype(np.uint8)], axis=1)
    keys: List[Optional[bytes]] = []
    t0 = time.perf_counter()
    for t in range(count):
        R = np.asarray(GF2(aug[t * m : (t + 1) * m]).row_reduce(ncols=DIM))
        left = R[:, :DIM]
        if not np.array_equal(left[:DIM], np.eye(DIM, dtype=left.dtype)) or R[DIM:].any():
            keys.append(None)
            continue
        keys.append(np.packbits(R[:DIM, DIM:]).tobytes())
    return time.perf_counter() - t0, keys


def rows(quick: bool) -> List[Row]:
    X, Y, S = task()
    n = X.shape[0]
    T = len(_subsamples(n))
    name = f"ParityMultiLearner (SearchParities), k = {K}, dim = {DIM}, n = {n} (T = {T})"
    learner = ParityMultiLearner(DIM, EPS, DELTA, rng=0)
    assert np.array_equal(learner.fit(X, Y).coefficients_, S)
    t_ours = best_time(lambda: learner.fit(X, Y), 3 if quick else 7)
    out: List[Row] = []

    got = numpy_packed(X, Y)
    assert got is not None and np.array_equal(got, S)
    t_np = best_time(lambda: numpy_packed(X, Y), 1 if quick else 2)
    out.append(Row(name, t_ours, "numpy: packed uint64 rows, vectorised pivot steps", t_np, TARGET))

    t_np8 = best_time(lambda: numpy_bytes(X, Y), 1)
    out.append(Row(name, t_ours, "numpy: uint8 bits, vectorised pivot steps", t_np8, TARGET))

    try:
        count = 4 if quick else 16
        t_part, keys = galois_subsamples(X, Y, count)
        target = np.packbits(S).tobytes()
        assert any(k is not None for k in keys) and all(k is None or k == target for k in keys)
        t_gal = t_part * T / count
        out.append(
            Row(
                name,
                t_ours,
                "galois: GF(2) row_reduce(ncols=256) per subsample",
                t_gal,
                TARGET,
                note=f"timed on {count} of the {T} subsamples, scaled",
            )
        )
    except ImportError:
        out.append(Row(name, t_ours, "galois", None, TARGET, note="pip install galois"))

    per = best_time(lambda: learner.fit(X[: DIM + 3], Y[: DIM + 3]), 5)
    out.append(
        Row(
            "ParityMultiLearner, one subsample (259 x 1256 bits), fit from numpy",
            per,
            "-",
            None,
            "reported",
        )
    )
    return out
