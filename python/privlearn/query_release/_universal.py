r"""Private classification-query release for any number of queries, ``A_UnvPrivCl`` (Nandi and
Bassily, ALT 2020, Alg. 4, Theorem 4.1): :class:`AgnosticQueryRelease` for the first ``m_o``
queries, then :class:`SemiPrivateLearner` on their (public) points for the rest
(:class:`UniversalSession`); the two stages compose basically.

Internal module of :mod:`privlearn.query_release` (see its documentation).
"""

from __future__ import annotations

import math
from typing import Any, List, Optional

import numpy as np

from .._validate import check_integer, check_probability
from ..accounting import Accountant, Budget, compose_basic
from ..accounting._accountant import check_accountant
from ..errors import InvalidParameterError
from ..hypotheses import HypothesisClass
from ..mechanisms import _charged
from ..random import Generator, RngLike, as_generator
from . import _accounting as acc
from ._agnostic import AgnosticQueryRelease
from ._common import _budget_pair, _class_arg, _class_view, _training_data
from ._learners import Learner, as_learner
from ._semiprivate import SemiPrivateLearner
from ._session import PUBLISHED, QuerySession, Session

__all__ = ["UniversalQueryRelease", "UniversalSession"]


class UniversalSession(Session):
    """A session of :class:`UniversalQueryRelease`: the first ``m_o`` queries go to an
    :class:`AgnosticQueryRelease` session; if ``m > m_o``, query ``m_o + 1`` triggers
    :class:`SemiPrivateLearner` on the ``m_o`` answered query points (public) and the private
    sample, and every later query gets the published hypothesis's label (status
    ``"published"``). Same interface as :class:`QuerySession`."""

    def __init__(
        self,
        first: QuerySession,
        m: int,
        m_o: int,
        sspp: Optional[SemiPrivateLearner],
        X: np.ndarray,
        y: np.ndarray,
        privacy: Budget,
        gen: Generator,
        learner: Learner,
    ) -> None:
        self._first = first
        self._m = m
        self._m_o = m_o
        self._sspp = sspp
        self._X = X
        self._y = y
        self._privacy = privacy
        self._gen = gen
        self._learner = learner
        self._public: List[np.ndarray] = []
        self._later: List[str] = []
        self.hypothesis_: Any = None

    @property
    def m_o(self) -> int:
        """Queries answered by the first stage (the public points of the second)."""
        return self._m_o

    @property
    def answered(self) -> int:
        """Queries answered so far (both stages)."""
        return self._first.answered + len(self._later)

    @property
    def unstable(self) -> int:
        """Unstable answers of the first stage."""
        return self._first.unstable

    @property
    def max_unstable(self) -> int:
        """The first stage's cut-off on unstable answers."""
        return self._first.max_unstable

    @property
    def halted(self) -> bool:
        """Whether the first stage reached its cut-off."""
        return self._first.halted

    @property
    def statuses(self) -> List[str]:
        """One status per answer (see :attr:`QuerySession.statuses`)."""
        return self._first.statuses + self._later

    @property
    def published(self) -> bool:
        """Whether the second stage's hypothesis has been chosen."""
        return self.hypothesis_ is not None

    def __repr__(self) -> str:
        return (
            f"UniversalSession(answered={self.answered}, m={self._m}, m_o={self._m_o}, "
            f"unstable={self.unstable}, published={self.published}, privacy={self._privacy!r})"
        )

    def _publish(self) -> None:
        assert self._sspp is not None
        public = np.concatenate(self._public, axis=0)
        self._sspp.fit(self._X, self._y, public, rng=self._gen)
        self.hypothesis_ = self._sspp.hypothesis_
        self._X = self._y = np.zeros(0)  # the private sample is no longer needed

    def _answer_rows(self, rows: np.ndarray) -> List[Optional[int]]:
        out: List[Optional[int]] = []
        first = min(self._first.remaining, rows.shape[0])
        if first:
            head = rows[:first]
            self._public.append(head)
            out.extend(self._first._answer_rows(head))
        rest = rows[first:]
        if rest.shape[0]:
            if self.hypothesis_ is None:
                self._publish()
            assert self._sspp is not None
            cls = self._sspp.hypothesis_class
            labels = cls._predict(self.hypothesis_, cls._check_X(rest))
            out.extend(int(v) for v in labels)
            self._later.extend([PUBLISHED] * rest.shape[0])
        return out


class UniversalQueryRelease:
    r"""Private classification-query release for any number of queries: ``A_UnvPrivCl`` (Nandi
    and Bassily, ALT 2020, Alg. 4, Theorem 4.1).

    The first ``m_o`` queries are answered by :class:`AgnosticQueryRelease`; their points,
    public by the problem's definition, then serve as the unlabelled public data of
    :class:`SemiPrivateLearner`, whose published hypothesis answers every later query. The
    second stage runs only when ``m > m_o`` (ERRATA C7).

    **Privacy guarantee** (replace-one, ``n`` public): both stages read the same private sample,
    so the session is ``(ε₁ + ε₂, δ₁)``-DP by basic composition (the notes' flag on Alg. 4): the
    budget is split, ``ε₂ = split·ε`` to the semi-private learner (pure DP) and the rest of
    ``(ε, δ)`` to the first stage, whose exact guarantee is its :class:`ReleasePlan`'s. When
    ``m <= m_o`` the whole budget goes to the first stage. The total is charged once, when the
    session starts (the second stage's share is charged even if the session ends before query
    ``m_o + 1``).

    Parameters
    ----------
    hypothesis_class : HypothesisClass
    epsilon, delta : float
        The total budget.
    m : int
        The largest number of queries (any number >= 1).
    m_o : int
        Queries answered by the first stage.
    cutoff, k : float, int (optional)
        The first stage's ``A_SubSamp`` knobs (for ``min(m, m_o)`` queries).
    split : float, default 0.5
        Fraction of ``epsilon`` given to the second stage when ``m > m_o``.
    learner, sample_fraction, noise_scale, threshold, on_unstable, composition
        As for :class:`AgnosticQueryRelease`.
    """

    def __init__(
        self,
        hypothesis_class: HypothesisClass,
        *,
        epsilon: float,
        delta: float,
        m: int,
        m_o: int,
        cutoff: float,
        k: Optional[int] = None,
        split: float = 0.5,
        learner: Any = None,
        sample_fraction: Optional[float] = None,
        noise_scale: Optional[float] = None,
        threshold: Optional[float] = None,
        on_unstable: str = "bottom",
        composition: str = "optimal",
    ) -> None:
        self.hypothesis_class = _class_arg(hypothesis_class)
        self.epsilon, self.delta = _budget_pair(epsilon, delta)
        self.m = check_integer(m, "m", 1)
        self.m_o = check_integer(m_o, "m_o", 1)
        s = check_probability(split, "split")
        self.split = s
        two_stages = self.m > self.m_o
        self.epsilon_public = self.epsilon * s if two_stages else 0.0
        eps_first = self.epsilon - self.epsilon_public if two_stages else self.epsilon
        if two_stages and eps_first + self.epsilon_public > self.epsilon:
            eps_first = math.nextafter(eps_first, 0.0)
        self.first = AgnosticQueryRelease(
            hypothesis_class,
            epsilon=eps_first,
            delta=self.delta,
            m=min(self.m, self.m_o),
            k=k,
            cutoff=cutoff,
            learner=learner,
            sample_fraction=sample_fraction,
            noise_scale=noise_scale,
            threshold=threshold,
            on_unstable=on_unstable,
            composition=composition,
        )
        self.second = (
            SemiPrivateLearner(hypothesis_class, epsilon=self.epsilon_public)
            if two_stages
            else None
        )

    @classmethod
    def from_theory(
        cls,
        hypothesis_class: HypothesisClass,
        *,
        epsilon: float,
        delta: float,
        alpha: float,
        beta: float,
        m: int,
        learner: Any = None,
        on_unstable: str = "bottom",
        composition: str = "optimal",
    ) -> "UniversalQueryRelease":
        """The paper's settings: ``m_o = ceil(32 (d ln(1/α) + ln(1/β))/α)`` with ``d`` the
        class's VC dimension, and the first stage's :meth:`AgnosticQueryRelease.from_theory` at
        ``(ε/2, δ, α, β/2)`` (half of ``ε`` and of ``β`` to each stage) when ``m > m_o``."""
        d = hypothesis_class.vc_dimension
        if d is None:
            raise InvalidParameterError(
                "hypothesis_class: its VC dimension is unknown (needed for m_o)", "hypothesis_class"
            )
        m_o = acc.universal_m_o(d, alpha, beta)
        m = check_integer(m, "m", 1)
        two = m > m_o
        out = cls(
            hypothesis_class,
            epsilon=epsilon,
            delta=delta,
            m=m,
            m_o=m_o,
            cutoff=1.0,
            learner=learner,
            on_unstable=on_unstable,
            composition=composition,
        )
        out.first = AgnosticQueryRelease.from_theory(
            hypothesis_class,
            epsilon=out.first.epsilon,
            delta=out.delta,
            alpha=alpha,
            beta=beta / 2 if two else beta,
            m=min(m, m_o),
            learner=learner,
            on_unstable=on_unstable,
            composition=composition,
        )
        return out

    def __repr__(self) -> str:
        return (
            f"UniversalQueryRelease({self.hypothesis_class!r}, epsilon={self.epsilon!r}, "
            f"delta={self.delta!r}, m={self.m}, m_o={self.m_o})"
        )

    def privacy(self, n: int) -> Budget:
        """The exact guarantee of a session on ``n`` private records (basic composition of the
        two stages)."""
        first = self.first.plan(n).privacy
        if self.second is None:
            return first
        return compose_basic([first, self.second.privacy])

    def privacy_guarantee(self, n_samples: int) -> Budget:
        """The guarantee of one session (:meth:`start`) on ``n_samples`` private records:
        :meth:`privacy` (:class:`privlearn._certified.CertifiedRelease`)."""
        return self.privacy(check_integer(n_samples, "n_samples", 1))

    def start(
        self, X: Any, y: Any, *, accountant: Optional[Accountant] = None, rng: RngLike = None
    ) -> UniversalSession:
        """Opens a session; :meth:`privacy` is charged once, before anything is drawn."""
        learner = as_learner(self.first.learner)
        Xc, yb = _training_data(learner, X, y)
        Xh = _class_view(self.hypothesis_class, learner, Xc, X)
        plan = self.first.plan(Xc.shape[0])
        total = (
            plan.privacy
            if self.second is None
            else compose_basic([plan.privacy, self.second.privacy])
        )
        if not total <= Budget(self.epsilon, self.delta):
            raise InvalidParameterError(  # pragma: no cover - the split prevents it
                f"epsilon: the exact guarantee {total!r} exceeds the budget", "epsilon"
            )
        check_accountant(accountant)
        gen = as_generator(rng)

        def run() -> UniversalSession:
            first = self.first._run(learner, Xc, Xh, yb, plan, gen)
            return UniversalSession(
                first, self.m, min(self.m, self.m_o), self.second, Xh, yb, total, gen, learner
            )

        return _charged(
            accountant, total.epsilon, total.delta, "UniversalQueryRelease session", run
        )
