r"""``A_Relabel`` (LabelBoost of Beimel, Nissim and Stemmer, APPROX-RANDOM 2015; Nandi and
Bassily, ALT 2020, Alg. 2): relabel a sample with a hypothesis of the class chosen by the
exponential mechanism among its exactly deduplicated dichotomies on the sample (ERRATA C6).

Internal module of :mod:`privlearn.query_release` (see its documentation).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from ..errors import InvalidParameterError
from ..hypotheses import HypothesisClass, Thresholds
from ..mechanisms import exponential
from ..random import RngLike, as_generator
from ._common import _class_arg
from ._learners import check_labels

__all__ = ["relabel"]


def relabel(
    X: Any, y: Any, hypothesis_class: HypothesisClass, *, rng: RngLike = None
) -> np.ndarray:
    r"""``A_Relabel`` (Nandi and Bassily, Alg. 2; LabelBoost of Beimel, Nissim and Stemmer,
    APPROX-RANDOM 2015): relabel a sample with a hypothesis chosen by the exponential mechanism.

    The candidates are one representative per distinct labeling (dichotomy) of the class on the
    points of ``X`` (exactly deduplicated; ERRATA C6), scored by ``−mistakes`` against ``y``
    with ``ε̃ = 1`` and sensitivity 1: labeling ``c`` is chosen with probability proportional to
    ``exp(−mistakes(c)/2)`` (exact sampler, :func:`privlearn.mechanisms.exponential`), and the
    points are returned with its labels, so the relabelled sample is realizable by the class.
    For :class:`~privlearn.hypotheses.Thresholds` the mistakes of all labelings are computed
    from prefix counts in ``O(n log n)``; other classes stream their labelings
    (``O(|labelings| n / 64)``).

    **Not a private release on its own**: the candidate set depends on the private points.
    Lemma 3.1 (BNS15 Lemma 4.1): running a ``(1, δ)``-DP algorithm on the relabelled sample is
    ``(4, 4eδ)``-DP with respect to the original sample; :class:`AgnosticQueryRelease` does
    this.

    Parameters
    ----------
    X : array_like
        The points (the class's layout).
    y : array_like of 0/1
        Their labels.
    hypothesis_class : HypothesisClass
    rng : None, int or Generator, optional

    Returns
    -------
    numpy.ndarray of bool
        The new labels, one per row of ``X``.
    """
    cls = _class_arg(hypothesis_class)
    Xc = cls._check_X(X)
    n = Xc.shape[0]
    if n == 0:
        raise InvalidParameterError("X: the sample is empty", "X")
    yb = check_labels(y, n)
    gen = as_generator(rng)
    if isinstance(cls, Thresholds):
        x1 = np.ascontiguousarray(Xc[:, 0])
        mistakes = _core.threshold_labeling_mistakes(x1, yb, cls.orientation)
        i = int(exponential(-mistakes, 1.0, 1.0, rng=gen))
        return _core.threshold_labeling(x1, cls.orientation, i)
    stream = cls.iter_dichotomies(Xc)
    mistakes = stream.mistakes(yb)
    i = int(exponential(-mistakes, 1.0, 1.0, rng=gen))
    for d in stream:
        if d.offset <= i < d.offset + len(d):
            return d.label(i - d.offset)
    raise AssertionError("the chosen labeling was not enumerated again")  # pragma: no cover
