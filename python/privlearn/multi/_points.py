"""``LearnPoints``: the multi-learner for point functions (seed 002, Theorem 3.13).

:class:`PointMultiLearner` learns ``k`` point functions with a sample size that depends on
neither ``k`` nor the domain: a stability histogram finds the heavy points, and a stable
selection releases each heavy point's label vector.
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from .. import _core
from .._validate import check_delta, check_epsilon, check_probability
from ..accounting import Accountant, Budget
from ..gf2 import _pack
from ..hypotheses import Points
from ..random import Generator, RngLike
from ._base import _MultiLearner
from ._hypotheses import Hypothesis, _point_predictions, _points_hypotheses
from ._inputs import _error, _point_rows
from ._sanitizers import _support


class PointMultiLearner(_MultiLearner):
    r"""``LearnPoints``: private learning of ``k`` point functions with a sample size that
    depends on neither ``k`` nor the domain (Bun, Nissim and Stemmer, Algorithm 5 and
    Theorem 3.13).

    1. The stability histogram (:func:`stability_histogram`, Proposition 2.20) with
       ``(epsilon/2, delta/2)`` releases noisy counts; the *heavy* points are those released with
       a noisy frequency of at least ``alpha/4``.
    2. The quality of a choice of one label vector per heavy point is the smallest number of
       rows that carry it, ``min_x #{i : (x_i, y_i) = (x, v_x)}`` (sensitivity 1); its two best
       values have a closed form, and the stable selection ``A_dist`` (errata 002-1/002-2) with
       ``(epsilon/2, delta/2)`` releases each heavy point's most frequent label vector, or ⊥.
    3. Concept ``j`` gets the point function of the first heavy point (in sorted order) whose
       label vector has a 1 in position ``j``, else the all-zero function :data:`ZERO` (so the
       learner is improper); after ⊥ or with no heavy point every concept gets :data:`ZERO`.

    **Privacy:** ``(epsilon, delta)``-DP for replace-one neighbours (``n`` public): the two
    steps spend ``(epsilon/2, delta/2)`` each (erratum 002-4), and nothing reveals the points
    the histogram did not release (erratum 002-3).

    **Accuracy:** realizable data only (labels of every concept given by a point function):
    with :func:`points_sample_size` examples every concept's error is at most ``alpha`` with
    probability ``1 - beta``, for every ``k`` and every domain. With disagreeing labels at a
    heavy point the gap vanishes and the output is ⊥, as the agnostic lower bound requires.

    Parameters
    ----------
    epsilon : float
    delta : float
        In ``(0, 1)``.
    alpha : float, default 0.1
        Target error, in ``(0, 1]``.
    accountant : Accountant, optional
    rng : None, int or Generator, optional

    Attributes
    ----------
    hypotheses_ : list of Point or ZeroHypothesis
    heavy_points_ : numpy.ndarray
        The heavy points (released by the histogram; a DP output), sorted.
    released_ : bool
        Whether the label vectors were released (false after ⊥ or with no heavy point).
    privacy_ : Budget
    """

    _params = ("epsilon", "delta", "alpha", "accountant", "rng")
    _label = "PointMultiLearner (LearnPoints)"

    def __init__(
        self,
        epsilon: float,
        delta: float,
        alpha: float = 0.1,
        *,
        accountant: Optional[Accountant] = None,
        rng: RngLike = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.alpha = alpha
        self.accountant = accountant
        self.rng = rng

    @property
    def hypothesis_class(self) -> Points:
        """``Points(dim)`` for the dimension of the fitted examples (1 before fitting)."""
        return Points(getattr(self, "n_features_in_", 1))

    def _check_X(self, X: Any) -> np.ndarray:
        return _point_rows(X)

    def _budget(self, k: int, n: int) -> Optional[Budget]:
        check_probability(self.alpha, "alpha", one_ok=True)
        return Budget(check_epsilon(self.epsilon), check_delta(self.delta, zero_ok=False))

    def _learn(self, X: np.ndarray, Y: np.ndarray, gen: Generator) -> List[Hypothesis]:
        keys, ids, _ = _support(X)
        k = Y.shape[1]
        heavy, labels = _core.multi_learn_points(
            ids,
            len(keys),
            _pack(Y),
            k,
            float(self.alpha),
            float(self.epsilon),
            float(self.delta),
            gen,
        )
        self.heavy_points_ = keys[heavy] if X.shape[1] > 1 else keys[heavy][:, 0]
        self.released_ = labels is not None
        return _points_hypotheses(keys, heavy, labels, k)

    def _predict(self, X: np.ndarray) -> np.ndarray:
        if X.shape[1] != self.n_features_in_:
            raise _error(
                "X", f"must have {self.n_features_in_} coordinates per point, got {X.shape[1]}"
            )
        return _point_predictions(self.hypotheses_, X)
