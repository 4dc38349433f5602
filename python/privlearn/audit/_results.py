"""The value objects an audit returns: the :class:`Event` whose counts gave an epsilon lower
bound, and the :class:`AuditResult` of a claim's audit (from :func:`~privlearn.audit.audit` or
:func:`~privlearn.audit.audit_prediction_privacy`). They hold numbers only; computing them is
the business of the other modules of :mod:`privlearn.audit`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Event:
    """The event (set of outputs) whose counts gave an epsilon lower bound.

    Attributes
    ----------
    description : str
        The set of outputs, e.g. ``"x > 0.9731"``, ``"x == 2"`` or ``"x in {(0, 1), (1, 1)}"``
        (``x`` is the output, or its statistic).
    numerator : {"a", "b"}
        ``"a"``: the bound is ``ln((P_a(S) - delta) / P_b(S))`` (``S`` is likelier on input
        ``a``); ``"b"``: the reverse.
    count_a, count_b : int
        How many of the samples used for the bound fell in ``S``, on each side.
    n_a, n_b : int
        How many samples were used for the bound on each side (without the selection split).
    bound : float
        The lower confidence bound on epsilon that this event gives (> 0).
    """

    description: str
    numerator: str
    count_a: int
    count_b: int
    n_a: int
    n_b: int
    bound: float

    def __str__(self) -> str:
        other = "b" if self.numerator == "a" else "a"
        return (
            f"{self.description} (P_{self.numerator} vs P_{other}; counts a {self.count_a}/"
            f"{self.n_a}, b {self.count_b}/{self.n_b}; bound {self.bound:.4f})"
        )


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit`.

    Attributes
    ----------
    bound : float
        Lower confidence bound (confidence ``1 - alpha``) on the mechanism's epsilon, at the
        claimed delta; ``0.0`` when no event is significant.
    claimed_epsilon, claimed_delta : float
        The privacy claim under audit.
    passed : bool
        ``bound <= claimed_epsilon``: the samples do not refute the claim. ``False`` refutes it
        with confidence ``1 - alpha``.
    n : int
        Samples drawn on each side.
    event : Event or None
        The event that attained the bound (``None`` when the bound is 0).
    alpha : float
        The probability that a correct mechanism fails the audit (at most).
    """

    bound: float
    claimed_epsilon: float
    claimed_delta: float
    passed: bool
    n: int
    event: Optional[Event]
    alpha: float

    def __str__(self) -> str:
        verdict = "passed" if self.passed else "FAILED"
        claim = f"epsilon={self.claimed_epsilon:g}"
        if self.claimed_delta:
            claim += f", delta={self.claimed_delta:g}"
        where = f"; event: {self.event}" if self.event is not None else ""
        return (
            f"audit {verdict}: epsilon >= {self.bound:.4f} with confidence 1 - {self.alpha:g} "
            f"(claim {claim}; n = {self.n} per side){where}"
        )
