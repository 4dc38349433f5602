"""Per-query charging: the one path by which a private predictor pays for its answers.

Each answer of a private predictor is an ``epsilon_``-private release, so ``q`` answers compose
(basic composition) to ``q * epsilon_``. That amount is charged to the predictor's accountant
before anything is drawn: a batch that does not fit raises
:class:`~privlearn.errors.BudgetExceededError` and draws nothing. Then the answers are counted in
``queries_answered_`` and ``privacy_spent_``. :class:`PerQueryCharging` holds this block
once. :class:`~privlearn.prediction.PrivatePredictor` and
:class:`~privlearn.prediction.SubsampleAggregatePredictor` both inherit it.

Why basic composition (issue 18): the charge is pure (``delta = 0``), and for ``q`` adaptively
chosen ``epsilon``-DP answers no pure guarantee below ``q * epsilon`` holds (Kairouz, Oh and
Viswanath, ICML 2015, Theorem 3.3 at ``delta = 0``: ``q``-fold randomized response), so the
tighter accountants (optimal, Rényi, bounded-range composition of the exponential aggregator)
can only help by spending a ``delta`` per batch, which these predictors do not take.

Native events (issue 18): the charge is the event ``PrivacyEvent.repeated(answer, q)``, where
``answer`` is pure ``epsilon_``-DP, or ``epsilon_``-bounded-range for an answer that is one
exponential mechanism (the noisy vote); a basic accountant charges its budget, ``q * epsilon_``
as above, and a zCDP, RDP or PLD accountant composes the ``q`` answers by their own curves
(``q epsilon_^2 / 2``-zCDP, or ``q epsilon_^2 / 8`` for the noisy vote, rather than
``(q epsilon_)^2 / 2`` for one ``q epsilon_``-DP release). The answers share one random
partition of the records into teachers, drawn independently of the data: given the partition,
the ``q`` answers are an adaptive composition of ``epsilon_``-DP (or bounded-range) mechanisms,
and the mixture over partitions keeps that bound, since the Rényi divergence is jointly
quasi-convex (van Erven and Harremoës, IEEE Trans. Inf. Theory 2014, Section on joint
quasi-convexity) and the hockey-stick divergence, an f-divergence, jointly convex.
"""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from ..accounting import Accountant, Budget
from ..accounting._event import PrivacyEvent
from ..mechanisms import _charged

__all__ = ["PerQueryCharging"]


class PerQueryCharging:
    """Mixin of the predictors whose every answer is an ``epsilon_``-private release.

    The class using it sets ``accountant`` (checked at ``fit`` with
    :func:`privlearn.accounting._accountant.check_accountant`) and ``epsilon_``. It calls
    :meth:`_reset_spending` at the end of ``fit`` and answers through :meth:`_answer`.
    """

    accountant: Optional[Accountant]
    epsilon_: float
    queries_answered_: int
    privacy_spent_: Budget

    def _reset_spending(self) -> None:
        """Nothing answered yet (``fit`` releases nothing)."""
        self.queries_answered_ = 0
        self.privacy_spent_ = Budget(0.0)

    def _answer_event(self) -> PrivacyEvent:
        """One answer's guarantee in its native form: pure ``epsilon_``-DP (replace-one, ``n``
        public). A predictor whose every answer is one exponential mechanism overrides it with
        ``PrivacyEvent.bounded_range(epsilon_)``."""
        return PrivacyEvent.pure(self.epsilon_)

    def _answer(self, q: int, label: str, draw: Callable[[], np.ndarray]) -> np.ndarray:
        """The ``q`` labels that ``draw`` samples, as ``int64``. Before ``draw`` runs, this
        charges ``q * epsilon_`` (the q-fold basic composition, exact and rounded up) to
        ``accountant`` under ``label``, as the native event
        ``PrivacyEvent.repeated(self._answer_event(), q)`` (whose basic budget is that
        amount). Afterwards it adds ``q`` to ``queries_answered_`` and
        sets ``privacy_spent_`` to ``queries_answered_ * epsilon_``. With ``q = 0`` it charges
        nothing and returns an empty array."""
        if q == 0:
            return np.zeros(0, dtype=np.int64)
        total = (q * Budget(self.epsilon_)).epsilon  # q-fold basic composition, rounded up
        out = _charged(
            self.accountant,
            total,
            0.0,
            label,
            draw,
            event=lambda: PrivacyEvent.repeated(self._answer_event(), q),
        )
        self.queries_answered_ += q
        self.privacy_spent_ = self.queries_answered_ * Budget(self.epsilon_)
        return out.astype(np.int64)
