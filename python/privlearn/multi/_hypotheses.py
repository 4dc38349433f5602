"""The hypotheses the multi-concept learners output, and their predictions (seed 002).

The all-zero hypothesis :data:`ZERO` (``LearnPoints`` is improper), the decoding of the core's
released bit vectors into :class:`~privlearn.hypotheses.Parity` and
:class:`~privlearn.hypotheses.Point` hypotheses, and the evaluation of ``k`` hypotheses as an
``(m, k)`` prediction matrix with each distinct hypothesis evaluated once. All of it is
post-processing of released outputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np

from ..hypotheses import HypothesisClass, Parity, Point
from ._inputs import _error, _unpack_words

Hypothesis = Any


@dataclass(frozen=True)
class ZeroHypothesis:
    """The constant function 0. ``LearnPoints`` outputs it for a concept whose point is not
    heavy (and for every concept when it releases nothing); it is not a point function, so
    that learner is improper (Bun, Nissim and Stemmer, §3.8)."""


#: The all-zero hypothesis.
ZERO = ZeroHypothesis()


def _parities(coef: np.ndarray) -> List[Parity]:
    """The parities whose indicator vectors are the columns of ``coef`` (``dim x k``)."""
    dim, k = coef.shape
    cols, rows = np.nonzero(np.ascontiguousarray(coef.T))
    bounds = [0, *np.searchsorted(cols, np.arange(1, k)).tolist(), len(cols)]
    flat = rows.tolist()
    return [Parity(tuple(flat[a:b]), dim) for a, b in zip(bounds, bounds[1:])]


def _as_point(key: np.ndarray) -> Point:
    if key.shape[0] == 1 and float(key[0]).is_integer():
        return Point(int(key[0]))
    return Point(tuple(float(v) for v in key))


def _points_hypotheses(
    keys: np.ndarray, heavy: np.ndarray, labels: Optional[np.ndarray], k: int
) -> List[Hypothesis]:
    """``h_j``: the first heavy point (in sorted order) whose released label vector has bit
    ``j``, else the all-zero function (Algorithm 5, step 5)."""
    if labels is None or len(heavy) == 0:
        return [ZERO] * k
    bits = _unpack_words(labels, k).astype(bool)  # (|H|, k)
    has: np.ndarray = np.any(bits, axis=0)
    first = np.argmax(bits, axis=0)
    return [_as_point(keys[heavy[first[j]]]) if has[j] else ZERO for j in range(k)]


def _point_predictions(hyps: Sequence[Hypothesis], X2: np.ndarray) -> np.ndarray:
    """``(n, k)`` predictions of point functions and the all-zero function."""
    out = np.zeros((X2.shape[0], len(hyps)), dtype=bool)
    groups: Dict[Any, List[int]] = {}
    for j, h in enumerate(hyps):
        if isinstance(h, Point):
            groups.setdefault(h.p, []).append(j)
        elif not isinstance(h, ZeroHypothesis):
            raise _error("h", f"must be a Point or ZERO, got {h!r}")
    for p, cols in groups.items():
        coords = np.atleast_1d(np.asarray(p, dtype=np.float64))
        if coords.shape[0] != X2.shape[1]:
            continue  # a point of another dimension matches nothing
        mask = np.all(X2 == coords, axis=1)
        out[:, cols] = mask[:, None]
    return out


def _predictions(cls: HypothesisClass, hyps: Sequence[Hypothesis], X: np.ndarray) -> np.ndarray:
    """``(len(hyps), n)`` boolean predictions."""
    return (
        np.stack([np.asarray(cls.predict(h, X), dtype=bool) for h in hyps])
        if hyps
        else np.zeros((0, len(X)), bool)
    )


def _grouped(
    hyps: Sequence[Hypothesis], predict_one: Callable[[Hypothesis], np.ndarray], m: int
) -> np.ndarray:
    """``(m, k)`` predictions, each distinct hypothesis evaluated once."""
    out = np.zeros((m, len(hyps)), dtype=bool)
    groups: Dict[Any, List[int]] = {}
    for j, h in enumerate(hyps):
        groups.setdefault(h, []).append(j)
    for h, cols in groups.items():
        out[:, cols] = np.asarray(predict_one(h), dtype=bool)[:, None]
    return out
