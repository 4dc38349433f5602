"""What the release algorithms of :mod:`privlearn.query_release` share: the checks of their
budget pair and hypothesis class, and the reading of the private sample (non-empty, 0/1
labels; the points in the class's layout).

Internal module of :mod:`privlearn.query_release` (see its documentation).
"""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from .._validate import check_delta, check_epsilon
from ..errors import InvalidParameterError
from ..hypotheses import HypothesisClass, check_hypothesis_class
from ._learners import ClassLearner, Learner, check_labels


def _budget_pair(epsilon: Any, delta: Any) -> Tuple[float, float]:
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta, zero_ok=False)
    return eps, dlt


def _class_arg(hypothesis_class: Any) -> HypothesisClass:
    return check_hypothesis_class(hypothesis_class)


def _class_view(cls: HypothesisClass, learner: Learner, Xc: np.ndarray, X: Any) -> np.ndarray:
    """The private points in the class's layout (no second copy when the learner is the class)."""
    if isinstance(learner, ClassLearner) and learner.cls == cls:
        return Xc
    return cls._check_X(X)


def _training_data(learner: Learner, X: Any, y: Any) -> Tuple[np.ndarray, np.ndarray]:
    Xc = learner.check_X(X)
    n = Xc.shape[0]
    if n == 0:
        raise InvalidParameterError("X: the private sample is empty", "X")
    return Xc, check_labels(y, n)
