"""The non-private baseline: column-wise ERM, **not differentially private** (seed 002).

:class:`NonPrivateMultiLearner` fits each concept by exact empirical risk minimisation; it
certifies no guarantee and is the target of the fingerprinting attack.
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..accounting import Budget
from ..hypotheses import HypothesisClass, check_hypothesis_class
from ..random import Generator
from ._base import _MultiLearner
from ._hypotheses import Hypothesis, _grouped


class NonPrivateMultiLearner(_MultiLearner):
    """Column-wise empirical risk minimisation: **not differentially private**.

    Each concept gets an exact ERM of its label column (``hypothesis_class.erm``): the
    non-private multi-learner of Bun, Nissim and Stemmer's Corollary 2.12, whose sample size
    grows only like ``log k``. It is the baseline of :func:`privlearn.attacks.fingerprinting_attack`,
    which identifies members of its training data. ``privacy_`` is ``None`` (no guarantee) and
    no accountant is involved.

    Parameters
    ----------
    hypothesis_class : HypothesisClass
    """

    _params = ("hypothesis_class",)
    _label = "NonPrivateMultiLearner"
    accountant = None
    rng = None

    def __init__(self, hypothesis_class: HypothesisClass) -> None:
        self.hypothesis_class = hypothesis_class

    def _class(self) -> HypothesisClass:
        return check_hypothesis_class(self.hypothesis_class)

    def _check_X(self, X: Any) -> np.ndarray:
        return self._class()._check_X(X)

    def _budget(self, k: int, n: int) -> Optional[Budget]:
        return None

    def _learn(self, X: np.ndarray, Y: np.ndarray, gen: Generator) -> List[Hypothesis]:
        cls = self._class()
        cols, inverse = np.unique(np.ascontiguousarray(Y.T), axis=0, return_inverse=True)
        fitted = [cls.erm(X, c) for c in cols]
        return [fitted[i] for i in np.asarray(inverse).reshape(-1)]

    def _predict(self, X: np.ndarray) -> np.ndarray:
        cls = self._class()
        return _grouped(self.hypotheses_, lambda h: cls.predict(h, X), X.shape[0])
