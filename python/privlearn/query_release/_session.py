"""Online query sessions: one answer per query, in order (Nandi and Bassily, Alg. 1).

Internal module of :mod:`privlearn.query_release`.
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from ..accounting import Budget
from ..errors import HaltedError, InvalidParameterError
from ..mechanisms import SparseVector
from ..random import Generator
from ._accounting import SVTGuarantee
from ._learners import Learner, Voter

__all__ = ["Session", "QuerySession", "ON_UNSTABLE"]

#: What an unstable answer (the paper's ⊥) is reported as.
ON_UNSTABLE = ("bottom", "random")

#: Status of each answer (see :attr:`QuerySession.statuses`).
STABLE, UNSTABLE, CUTOFF, PUBLISHED = "stable", "unstable", "cutoff", "published"

_BLOCK = 256  # queries whose votes are counted together in answer_many


def check_on_unstable(value: Any) -> str:
    if value not in ON_UNSTABLE:
        raise InvalidParameterError(
            f"on_unstable: must be 'bottom' (answer None, the paper's ⊥) or 'random' (a fair "
            f"coin, data-independent), got {value!r}",
            "on_unstable",
        )
    return str(value)


def distance_to_instability(ones: np.ndarray, k: int) -> np.ndarray:
    """``max(0, ceil(gap/2) − 1)`` with ``gap = |2 ones − k|``: the number of sub-samples that
    can change before the majority can change, minus one. Sensitivity 1 under replace-one
    (one sub-sample changes one vote, the gap by at most 2), and ``dist >= 1`` implies
    ``gap >= 3``: the majority is the same on every neighbour (ERRATA C1)."""
    gap = np.abs(2 * ones.astype(np.int64) - k)
    return np.maximum(0, (gap + 1) // 2 - 1)


class Session:
    """What every query session shares: the budget of ``m`` queries, the guarantee, validation
    of the query points before anything is drawn, and :meth:`answer` / :meth:`answer_many`."""

    _m: int
    _privacy: Budget
    _learner: Learner

    @property
    def m(self) -> int:
        """The largest number of queries."""
        return self._m

    @property
    def answered(self) -> int:  # pragma: no cover - interface
        """Queries answered so far."""
        raise NotImplementedError

    @property
    def remaining(self) -> int:
        """Queries that may still be asked (``m - answered``)."""
        return self._m - self.answered

    @property
    def privacy(self) -> Budget:
        """The guarantee of the whole session (charged once, at the start)."""
        return self._privacy

    def _answer_rows(self, X: np.ndarray) -> List[Optional[int]]:  # pragma: no cover - interface
        raise NotImplementedError

    def _check_left(self, count: int) -> None:
        if self.answered + count > self._m:
            raise HaltedError(
                f"this session answers at most m = {self._m} queries; {self.remaining} remain and "
                f"{count} were asked (start a new session with a new budget)"
            )

    def answer(self, x: Any) -> Optional[int]:
        """The label of one query point.

        Parameters
        ----------
        x : array_like
            One point, in the layout of the training data's rows (a number for
            one-dimensional classes).

        Returns
        -------
        int or None
            ``0`` or ``1``, or ``None`` for ⊥ (``on_unstable="bottom"``).

        Raises
        ------
        InvalidParameterError
            If ``x`` is not a valid point (wrong dimension, not finite). Nothing is drawn.
        HaltedError
            If ``m`` queries were already answered.
        """
        row = self._learner.check_query(x)
        self._check_left(1)
        return self._answer_rows(row)[0]

    def answer_many(self, X: Any) -> np.ndarray:
        """Answers the rows of ``X`` in order, one at a time (each answer depends only on the
        queries before it; an ensemble's votes are counted in blocks).

        Returns
        -------
        numpy.ndarray of int8
            The labels, with ``-1`` for ⊥ (``on_unstable="bottom"``).

        Raises
        ------
        InvalidParameterError
            If ``X`` is not a valid array of points.
        HaltedError
            If ``X`` has more rows than :attr:`remaining` (nothing is answered then).
        """
        rows = self._learner.check_X(X)
        self._check_left(rows.shape[0])
        return np.array([-1 if a is None else a for a in self._answer_rows(rows)], dtype=np.int8)


class QuerySession(Session):
    r"""An online classification-query session: ``answer(x)`` labels one query at a time.

    Returned by ``start`` of :class:`~privlearn.query_release.SubsampleSVT`,
    :class:`~privlearn.query_release.AgnosticQueryRelease` and
    :class:`~privlearn.query_release.UniversalQueryRelease`. The whole transcript of up to
    :attr:`m` answers is covered by :attr:`privacy`, which was charged to the accountant once,
    when the session started (before anything was drawn); answering never charges again.

    Answers: ``0`` or ``1``; an unstable answer (the sparse vector's ⊥) is ``None`` when the
    algorithm was configured with ``on_unstable="bottom"`` and a fair coin flip (independent of
    the data) with ``on_unstable="random"``. After :attr:`max_unstable` unstable answers the
    session stops using the data (:attr:`halted`): every later query gets the unstable answer,
    and :attr:`statuses` says so (``"cutoff"``).
    """

    def __init__(
        self,
        *,
        learner: Learner,
        voter: Voter,
        svt: SVTGuarantee,
        threshold: float,
        m: int,
        privacy: Budget,
        on_unstable: str,
        rng: Generator,
        details: Any = None,
    ) -> None:
        self._learner = learner
        self._voter = voter
        self._svt = svt
        self._m = m
        self._privacy = privacy
        self._on_unstable = on_unstable
        self._rng = rng
        self.details = details
        # The sparse vector (Lyu-Su-Li / Dwork-Roth Alg. 2): a positive answer is the paper's ⊥.
        # Queries are -dist against threshold -w, so "above" means dist + noise <= w + noise'.
        self._sv = SparseVector(
            -threshold, svt.sampler_epsilon, 1.0, max_positives=svt.rounds, rng=rng
        )
        self._answered = 0
        self._unstable = 0
        self._statuses: List[str] = []

    # -- state ---------------------------------------------------------------------------------

    @property
    def answered(self) -> int:
        """Queries answered so far."""
        return self._answered

    @property
    def unstable(self) -> int:
        """Unstable answers (⊥) the sparse vector gave so far, at most :attr:`max_unstable`."""
        return self._unstable

    @property
    def max_unstable(self) -> int:
        """``min(floor(T) + 1, m)``: the cut-off on unstable answers."""
        return self._svt.rounds

    @property
    def halted(self) -> bool:
        """Whether the cut-off was reached: later answers do not depend on the data."""
        return self._unstable >= self._svt.rounds

    @property
    def statuses(self) -> List[str]:
        """One entry per answer: ``"stable"`` (the ensemble's majority), ``"unstable"`` (⊥),
        ``"cutoff"`` (after the cut-off, data-independent) or ``"published"`` (a published
        classifier's label, :class:`UniversalQueryRelease`)."""
        return list(self._statuses)

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(answered={self._answered}, m={self._m}, unstable={self._unstable}, "
            f"max_unstable={self.max_unstable}, halted={self.halted}, privacy={self._privacy!r})"
        )

    # -- answering -----------------------------------------------------------------------------

    def _bottom(self) -> Optional[int]:
        if self._on_unstable == "bottom":
            return None
        return int(self._rng.random_raw() & 1)

    def _answer_voted(self, ones: int) -> Optional[int]:
        """The answer for one query whose ensemble gave ``ones`` votes for label 1."""
        k = self._voter.k
        dist = int(distance_to_instability(np.array([ones]), k)[0])
        if self._sv.query(-float(dist)):  # positive: dist + noise <= threshold + noise, ⊥
            self._unstable += 1
            self._statuses.append(UNSTABLE)
            return self._bottom()
        self._statuses.append(STABLE)
        return 1 if 2 * ones > k else 0  # a tie (dist 0) goes to 0

    def _answer_rows(self, X: np.ndarray) -> List[Optional[int]]:
        out: List[Optional[int]] = []
        i = 0
        while i < X.shape[0]:
            if self.halted:
                for _ in range(X.shape[0] - i):
                    self._statuses.append(CUTOFF)
                    out.append(self._bottom())
                    self._answered += 1
                break
            block = X[i : i + _BLOCK]
            votes = self._voter.votes(block)
            for ones in votes:
                if self.halted:
                    break
                out.append(self._answer_voted(int(ones)))
                self._answered += 1
                i += 1
        return out
