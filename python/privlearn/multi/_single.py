"""Single-concept base learners for :class:`~privlearn.multi.IndependentMultiLearner` (seed 002).

:class:`SingleConceptLearner` is the contract a per-concept learner certifies (one
``(epsilon, delta)``-DP run per label column, with the budget the composition gives it);
:class:`ExponentialLearner` is the exponential mechanism over a finite, data-independent
candidate set, and :class:`StableParityLearner` and :class:`StablePointLearner` run the two
stability learners on one concept at a time. The column-wise exponential mechanism here is also
the selection step of :class:`~privlearn.multi.SanitizerMultiLearner`.
"""

from __future__ import annotations

import abc
from typing import Any, List, Optional, Sequence

import numpy as np

from .. import _core
from .._validate import check_integer, check_probability
from ..gf2 import _pack
from ..hypotheses import (
    FiniteClass,
    HypothesisClass,
    Parities,
    Point,
    Points,
    check_hypothesis_class,
)
from ..mechanisms import exponential
from ..random import Generator, _core_rng
from ._hypotheses import Hypothesis, _parities, _point_predictions, _points_hypotheses, _predictions
from ._inputs import _binary_points, _error, _packed_columns, _point_rows, _unpack_words
from ._sanitizers import _support


class SingleConceptLearner(abc.ABC):
    """A private learner of one concept, run by :class:`IndependentMultiLearner` on each label
    column with the budget the composition gives it.

    Subclasses implement :meth:`learn_columns`, which must learn column ``j`` from
    ``(X, Y[:, j])`` alone with independent randomness, as an ``(epsilon, delta)``-DP
    (replace-one) algorithm, and :meth:`predict`. :attr:`pure` says whether ``delta`` is unused.
    """

    #: Whether the learner is pure DP (ignores ``delta``).
    pure: bool = True

    #: Whether the run on each column is **one exponential mechanism** (McSherry and Talwar,
    #: weights ``exp(epsilon u / (2 sensitivity))``) that is ``epsilon``-DP for the epsilon it
    #: is given, hence ``epsilon``-bounded-range (Durfee and Rogers, NeurIPS 2019): then the
    #: composite learner may compose the ``k`` runs by bounded-range composition (Dong, Durfee
    #: and Rogers, ICML 2020). Permute-and-flip, report-noisy-max with Laplace noise and the
    #: stability learners are not known to be bounded-range and must leave this ``False``.
    bounded_range: bool = False

    @abc.abstractmethod
    def check_X(self, X: Any) -> np.ndarray:
        """Validated examples (no randomness, no privacy cost)."""

    @abc.abstractmethod
    def learn_columns(
        self, X: np.ndarray, Y: np.ndarray, epsilon: float, delta: float, rng: Generator
    ) -> List[Hypothesis]:
        """One hypothesis per column of ``Y``, each an ``(epsilon, delta)``-DP function of
        ``(X, Y[:, j])``."""

    @abc.abstractmethod
    def predict(self, h: Hypothesis, X: np.ndarray) -> np.ndarray:
        """Boolean predictions of ``h`` on validated examples."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _mistakes(pred: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """``(h, k)`` int64: disagreements of each prediction row with each label column (Rust)."""
    return _core.multi_mistakes(_pack(pred), _packed_columns(Y))


def _em_columns(
    candidates: Sequence[Hypothesis], mistakes: np.ndarray, epsilon: float, gen: Generator
) -> List[Hypothesis]:
    """One exponential mechanism per column: candidate ``i`` with probability proportional to
    ``exp(-epsilon mistakes[i, j] / 2)`` (integer scores: sampled exactly)."""
    return [
        candidates[int(exponential(-mistakes[:, j], epsilon, 1.0, rng=gen))]
        for j in range(mistakes.shape[1])
    ]


class ExponentialLearner(SingleConceptLearner):
    r"""The exponential mechanism over a finite candidate set (Kasiviswanathan, Lee, Nissim,
    Raskhodnikova and Smith, "What can we learn privately?", SIAM J. Comput. 2011, Theorem 3.4;
    the per-concept learner of Bun, Nissim and Stemmer's basic strategy, §3.1).

    For a label column ``y``, returns candidate ``h`` with probability proportional to
    ``exp(-epsilon * #{i : h(x_i) != y_i} / 2)``. The mistake count moves by at most 1 when one
    example is replaced, so this is ``epsilon``-DP (pure, replace-one; McSherry and Talwar 2007),
    sampled exactly from the integer counts. It is a proper, agnostic learner: with
    :func:`exponential_sample_size` examples its excess error is at most ``alpha``.

    Each column's run is exactly one exponential mechanism with weights
    ``exp(epsilon u / (2 sensitivity))``, ``u`` = minus the mistakes, sensitivity 1: it is
    ``epsilon``-bounded-range (Durfee and Rogers, NeurIPS 2019: the normalising constants
    cancel in the bounded-range ratio, which is ``exp(epsilon/2 (Δu(y) - Δu(y'))) <=
    e^epsilon``), so :attr:`bounded_range` is ``True`` and
    :class:`IndependentMultiLearner` may compose the ``k`` runs by bounded-range composition.
    (:func:`~privlearn.mechanisms.exponential` rounds the rate down and clamps scores far
    below the best to ``best - 700/rate``; the clamped scores still have sensitivity 1, so the
    sampled law is an exact exponential mechanism with an epsilon at most the one given.) A
    subclass that overrides :meth:`learn_columns` loses the certification unless it sets
    ``bounded_range = True`` itself.

    Parameters
    ----------
    hypothesis_class : HypothesisClass
    candidates : sequence of hypotheses, optional
        A finite candidate set **chosen without looking at the data**. By default the class's
        own finite set: every member of a :class:`~privlearn.hypotheses.FiniteClass` given as a
        matrix (one per distinct labeling of its domain), all ``2^dim`` parities of
        :class:`~privlearn.hypotheses.Parities` (``dim <= 16``), or every point of
        :class:`~privlearn.hypotheses.Points` with a ``domain_size``.
    """

    pure = True
    bounded_range = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "learn_columns" in cls.__dict__ and "bounded_range" not in cls.__dict__:
            cls.bounded_range = False  # a new learning step certifies nothing about its range

    def __init__(
        self, hypothesis_class: HypothesisClass, candidates: Optional[Sequence[Hypothesis]] = None
    ) -> None:
        self.hypothesis_class = check_hypothesis_class(hypothesis_class)
        if candidates is None:
            self.candidates = _default_candidates(hypothesis_class)
        else:
            cands = list(candidates)
            if not cands:
                raise _error("candidates", "must hold at least one hypothesis")
            self.candidates = [hypothesis_class._check_h(h) for h in cands]

    def check_X(self, X: Any) -> np.ndarray:
        return self.hypothesis_class._check_X(X)

    def learn_columns(
        self, X: np.ndarray, Y: np.ndarray, epsilon: float, delta: float, rng: Generator
    ) -> List[Hypothesis]:
        pred = _predictions(self.hypothesis_class, self.candidates, X)
        return _em_columns(self.candidates, _mistakes(pred, Y), epsilon, rng)

    def predict(self, h: Hypothesis, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.hypothesis_class.predict(h, X), dtype=bool)

    def __repr__(self) -> str:
        return f"ExponentialLearner({self.hypothesis_class!r}, {len(self.candidates)} candidates)"


def _default_candidates(cls: HypothesisClass) -> List[Hypothesis]:
    if isinstance(cls, Parities):
        if cls.dim > 16:
            raise _error(
                "candidates", f"all 2^{cls.dim} parities are too many; pass a candidate list"
            )
        # The labelings of e_1..e_dim are all of {0,1}^dim; their representatives are all parities.
        return cls.dichotomies(np.eye(cls.dim, dtype=np.uint8)).hypotheses()
    if isinstance(cls, Points) and cls.domain_size is not None:
        return [Point(i) for i in range(cls.domain_size)]
    if isinstance(cls, FiniteClass) and cls.domain_size is not None:
        return cls.dichotomies(np.arange(cls.domain_size)).hypotheses()
    raise _error(
        "candidates",
        f"{cls!r} has no finite default candidate set; pass a finite list chosen without the data",
    )


class StableParityLearner(SingleConceptLearner):
    """``SearchParities`` (Bun, Nissim and Stemmer, Theorem 3.12) on one concept at a time:
    ``(epsilon, delta)``-DP per concept (see :class:`ParityMultiLearner`). With
    :class:`IndependentMultiLearner` it is the basic strategy for parities under approximate DP,
    whose sample size grows with ``k``, unlike :class:`ParityMultiLearner`'s.

    Parameters
    ----------
    dim : int
    subsample_size : int, optional
        Rows per subsample (default ``dim + 3``).
    """

    pure = False

    def __init__(self, dim: int, subsample_size: Optional[int] = None) -> None:
        self.dim = check_integer(dim, "dim", 1)
        self.subsample_size = (
            None
            if subsample_size is None
            else check_integer(subsample_size, "subsample_size", self.dim)
        )

    def check_X(self, X: Any) -> np.ndarray:
        return _binary_points(X, self.dim)

    def learn_columns(
        self, X: np.ndarray, Y: np.ndarray, epsilon: float, delta: float, rng: Generator
    ) -> List[Hypothesis]:
        xw = _pack(X)
        m = self.subsample_size or self.dim + 3
        gen = _core_rng(rng)  # one stream for every column
        out = []
        for j in range(Y.shape[1]):
            sol, _ = _core.multi_search_parities(
                xw, self.dim, _pack(Y[:, j : j + 1]), 1, m, epsilon, delta, gen
            )
            bits = np.zeros((self.dim, 1), np.uint8) if sol is None else _unpack_words(sol, 1)
            out.extend(_parities(bits))
        return out

    def predict(self, h: Hypothesis, X: np.ndarray) -> np.ndarray:
        return np.asarray(Parities(self.dim).predict(h, X), dtype=bool)

    def __repr__(self) -> str:
        return f"StableParityLearner(dim={self.dim}, subsample_size={self.subsample_size})"


class StablePointLearner(SingleConceptLearner):
    """``LearnPoints`` (Bun, Nissim and Stemmer, Theorem 3.13) on one concept at a time:
    ``(epsilon, delta)``-DP per concept (see :class:`PointMultiLearner`).

    Parameters
    ----------
    alpha : float, default 0.1
        Target error (points of noisy frequency ``>= alpha/4`` are heavy).
    """

    pure = False

    def __init__(self, alpha: float = 0.1) -> None:
        self.alpha = check_probability(alpha, "alpha", one_ok=True)

    def check_X(self, X: Any) -> np.ndarray:
        return _point_rows(X)

    def learn_columns(
        self, X: np.ndarray, Y: np.ndarray, epsilon: float, delta: float, rng: Generator
    ) -> List[Hypothesis]:
        keys, ids, _ = _support(X)
        gen = _core_rng(rng)  # one stream for every column
        out: List[Hypothesis] = []
        for j in range(Y.shape[1]):
            heavy, labels = _core.multi_learn_points(
                ids, len(keys), _pack(Y[:, j : j + 1]), 1, self.alpha, epsilon, delta, gen
            )
            out.append(_points_hypotheses(keys, heavy, labels, 1)[0])
        return out

    def predict(self, h: Hypothesis, X: np.ndarray) -> np.ndarray:
        return _point_predictions([h], X)[:, 0]

    def __repr__(self) -> str:
        return f"StablePointLearner(alpha={self.alpha})"
