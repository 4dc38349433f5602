r"""The semi-private learner ``A_SSPP`` (Alon, Bassily and Moran, NeurIPS 2019; Nandi and
Bassily, ALT 2020, Alg. 7): a pure-DP hypothesis chosen by the exponential mechanism among one
representative per labeling of the class on public unlabelled points, scored on the private
sample.

Internal module of :mod:`privlearn.query_release` (see its documentation).
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .._validate import check_epsilon, check_integer
from ..accounting import Accountant, Budget
from ..accounting._accountant import check_accountant
from ..errors import InvalidParameterError
from ..hypotheses import HypothesisClass
from ..mechanisms import exponential
from ..random import RngLike
from ._common import _class_arg
from ._learners import check_labels

__all__ = ["SemiPrivateLearner"]


class SemiPrivateLearner:
    r"""The semi-private learner ``A_SSPP`` (Alon, Bassily and Moran, NeurIPS 2019; Nandi and
    Bassily, Alg. 7): a hypothesis chosen by the exponential mechanism among one representative
    per labeling of the class on *public* unlabelled points, scored on the private sample.

    The candidates are the distinct labelings of the class on the distinct public points, each
    with its representative (a deterministic function of the public point set only,
    :mod:`privlearn.hypotheses`), so the candidate set does not depend on the private data;
    the score is ``−mistakes`` on the private sample (sensitivity 1), so hypothesis ``h`` is
    chosen with probability proportional to ``exp(−ε mistakes(h)/2)`` (exact sampler).

    **Privacy guarantee:** the released hypothesis is ``ε``-DP (pure; replace-one neighbours of
    the private sample, ``n`` public; the public points carry no privacy constraint) (McSherry
    and Talwar 2007). **Utility** ([ABM19]): with about ``d/α`` public and ``d/(εα²)`` private
    points, the excess error is at most ``α`` with high probability (the candidates form an
    ``α``-cover of the class).

    Parameters
    ----------
    hypothesis_class : HypothesisClass
    epsilon : float
        > 0.

    Attributes
    ----------
    hypothesis_ : hypothesis
        The released hypothesis, after :meth:`fit`.
    n_candidates_ : int
        Number of candidates (labelings of the public points).
    """

    def __init__(self, hypothesis_class: HypothesisClass, *, epsilon: float) -> None:
        self.hypothesis_class = _class_arg(hypothesis_class)
        self.epsilon = check_epsilon(epsilon)

    @property
    def privacy(self) -> Budget:
        """``Budget(epsilon)``."""
        return Budget(self.epsilon)

    def privacy_guarantee(self, n_samples: int) -> Budget:
        """The guarantee of one :meth:`fit` on ``n_samples`` private records (replace-one,
        ``n`` public): :attr:`privacy` (:class:`privlearn._certified.CertifiedRelease`)."""
        check_integer(n_samples, "n_samples", 1)
        return self.privacy

    def fit(
        self,
        X: Any,
        y: Any,
        X_public: Any,
        *,
        accountant: Optional[Accountant] = None,
        rng: RngLike = None,
    ) -> "SemiPrivateLearner":
        """Chooses the hypothesis. ``epsilon`` is charged to ``accountant`` before anything is
        drawn.

        Parameters
        ----------
        X : array_like
            Private points (the class's layout).
        y : array_like of 0/1
            Their labels.
        X_public : array_like
            Public unlabelled points (at least one).
        """
        cls = self.hypothesis_class
        Xc = cls._check_X(X)
        if Xc.shape[0] == 0:
            raise InvalidParameterError("X: the private sample is empty", "X")
        yb = check_labels(y, Xc.shape[0])
        try:
            Xp = cls._check_X(X_public)
        except InvalidParameterError as err:
            raise InvalidParameterError(
                str(err).replace("X:", "X_public:", 1), "X_public"
            ) from None
        if Xp.shape[0] == 0:
            raise InvalidParameterError("X_public: at least one public point is needed", "X_public")
        check_accountant(accountant)
        d = cls.dichotomies(Xp)
        scores = -d.mistakes_on(Xc, yb)
        i = int(exponential(scores, self.epsilon, 1.0, rng=rng, accountant=accountant))
        self.hypothesis_ = d.hypothesis(i)
        self.n_candidates_ = len(d)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """The labels of the released hypothesis on the rows of ``X`` (post-processing)."""
        if not hasattr(self, "hypothesis_"):
            raise InvalidParameterError(
                "this SemiPrivateLearner is not fitted; call fit first", "X"
            )
        return self.hypothesis_class.predict(self.hypothesis_, X)

    def __repr__(self) -> str:
        return f"SemiPrivateLearner({self.hypothesis_class!r}, epsilon={self.epsilon!r})"
