"""The value objects an audit returns: the :class:`Event` whose counts gave a lower bound, and
the :class:`AuditResult` of a claim's audit (from :func:`~privlearn.audit.audit` or
:func:`~privlearn.audit.audit_prediction_privacy`), with its plain-types form
(:meth:`AuditResult.to_dict`) for JSON reports. They hold numbers only; computing them is the
business of the other modules of :mod:`privlearn.audit`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Optional

if TYPE_CHECKING:  # pragma: no cover
    from ._tradeoff import TradeoffCurve

# How __str__ names what ``AuditResult.bound`` lower-bounds (delta is written with its epsilon).
_QUANTITY_TEXT = {"epsilon": "epsilon", "mu": "Gaussian-DP mu"}


def _num(x: float) -> str:
    """A bound for text: four decimals, or four significant digits below 0.01 (deltas)."""
    return f"{x:.4f}" if abs(x) >= 0.01 or x == 0 else f"{x:.4g}"


def _plain(x: float) -> Optional[float]:
    """A float for JSON: ``None`` for infinities and NaN."""
    x = float(x)
    return x if math.isfinite(x) else None


@dataclass(frozen=True)
class Event:
    """The event (set of outputs) whose counts gave a lower bound.

    Attributes
    ----------
    description : str
        The set of outputs, e.g. ``"x > 0.9731"``, ``"x == 2"`` or ``"x in {(0, 1), (1, 1)}"``
        (``x`` is the output, or its statistic).
    numerator : {"a", "b"}
        ``"a"``: ``S`` is likelier on input ``a`` and the bound compares ``P_a(S)`` with
        ``P_b(S)``: ``ln((P_a(S) - delta) / P_b(S))`` for epsilon, ``P_a(S) - e^eps P_b(S)``
        for delta, ``Phi^-1(P_a(S)) - Phi^-1(P_b(S))`` for mu (each with confidence bounds in
        place of the probabilities); ``"b"``: the reverse.
    count_a, count_b : int
        How many of the samples used for the bound fell in ``S``, on each side.
    n_a, n_b : int
        How many samples were used for the bound on each side (without the selection split).
    bound : float
        The lower confidence bound on the audited quantity that this event gives (> 0).
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
            f"{self.n_a}, b {self.count_b}/{self.n_b}; bound {_num(self.bound)})"
        )

    def to_dict(self) -> Dict[str, Any]:
        """The event as JSON-ready plain types."""
        return {
            "description": self.description,
            "numerator": self.numerator,
            "count_a": int(self.count_a),
            "count_b": int(self.count_b),
            "n_a": int(self.n_a),
            "n_b": int(self.n_b),
            "bound": float(self.bound),
        }


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit`.

    Attributes
    ----------
    bound : float
        Lower confidence bound (confidence ``1 - alpha``) on the mechanism's privacy parameter
        named by ``quantity``: epsilon at the claimed delta, delta at the claimed epsilon (the
        hockey-stick divergence), or the Gaussian-DP mu; ``0.0`` when no event is significant.
    claimed_epsilon, claimed_delta : float
        The privacy claim under audit (``inf`` and ``0.0`` for a :class:`GaussianDP` claim,
        which is no single ``(epsilon, delta)`` pair).
    passed : bool
        ``bound <=`` the claimed value of ``quantity`` (:attr:`claimed_value`): the samples do
        not refute the claim. ``False`` refutes it with confidence ``1 - alpha``.
    n : int
        Samples drawn on each side.
    event : Event or None
        The event that attained the bound (``None`` when the bound is 0).
    alpha : float
        The probability that a correct mechanism fails the audit (at most).
    quantity : {"epsilon", "delta", "mu"}
        What ``bound`` lower-bounds.
    method : {"epsilon", "hockey-stick", "tradeoff"}
        The audit method used (see :func:`audit`).
    claimed_mu : float or None
        The claimed Gaussian-DP parameter (:class:`GaussianDP` claims), else ``None``.
    tradeoff : TradeoffCurve or None
        The trade-off band (``method="tradeoff"``), else ``None``; it is reported, the verdict
        is ``passed``.
    distinguisher : str or None
        The learned distinguisher whose held-out scores were audited, else ``None``.
    """

    bound: float
    claimed_epsilon: float
    claimed_delta: float
    passed: bool
    n: int
    event: Optional[Event]
    alpha: float
    quantity: str = "epsilon"
    method: str = "epsilon"
    claimed_mu: Optional[float] = None
    tradeoff: Optional["TradeoffCurve"] = None
    distinguisher: Optional[str] = None

    @property
    def claimed_value(self) -> float:
        """The claimed value of ``quantity`` (what ``bound`` is compared with)."""
        if self.quantity == "delta":
            return self.claimed_delta
        if self.quantity == "mu":
            return math.inf if self.claimed_mu is None else self.claimed_mu
        return self.claimed_epsilon

    def _claim(self) -> Any:
        """The claim as :func:`~privlearn.audit.tradeoff_function` takes it."""
        if self.claimed_mu is not None:
            from ._claims import GaussianDP

            return GaussianDP(self.claimed_mu)
        return (self.claimed_epsilon, self.claimed_delta)

    def _claim_text(self) -> str:
        if self.claimed_mu is not None:
            return f"{self.claimed_mu:g}-GDP"
        claim = f"epsilon={self.claimed_epsilon:g}"
        if self.claimed_delta:
            claim += f", delta={self.claimed_delta:g}"
        return claim

    def __str__(self) -> str:
        verdict = "passed" if self.passed else "FAILED"
        if self.quantity == "delta":
            what = f"delta at epsilon={self.claimed_epsilon:g} >= {_num(self.bound)}"
        else:
            what = f"{_QUANTITY_TEXT.get(self.quantity, self.quantity)} >= {_num(self.bound)}"
        method = "" if self.method == "epsilon" else f"; method {self.method}"
        extra = ""
        if self.distinguisher is not None:
            extra += f"; distinguisher: {self.distinguisher}"
        if self.tradeoff is not None:
            worst = self.tradeoff.worst_violation(self._claim())
            extra += f"; trade-off band: worst violation of the claim's curve {worst:+.4f}"
        where = f"; event: {self.event}" if self.event is not None else ""
        return (
            f"audit {verdict}: {what} with confidence 1 - {self.alpha:g} "
            f"(claim {self._claim_text()}{method}; n = {self.n} per side)"
            f"{extra}{where}"
        )

    def to_dict(self) -> Dict[str, Any]:
        """The result as JSON-ready plain types (``json.dumps`` takes it as it is).

        Infinite numbers (the ``claimed_epsilon`` of a :class:`GaussianDP` claim) become
        ``None``; ``event`` and ``tradeoff`` become nested dictionaries (the trade-off band with
        at most 512 points, :meth:`TradeoffCurve.to_dict`) or ``None``.
        """
        return {
            "verdict": "passed" if self.passed else "refuted",
            "passed": bool(self.passed),
            "quantity": self.quantity,
            "method": self.method,
            "bound": float(self.bound),
            "claimed_value": _plain(self.claimed_value),
            "claimed_epsilon": _plain(self.claimed_epsilon),
            "claimed_delta": float(self.claimed_delta),
            "claimed_mu": None if self.claimed_mu is None else float(self.claimed_mu),
            "alpha": float(self.alpha),
            "n": int(self.n),
            "event": None if self.event is None else self.event.to_dict(),
            "distinguisher": self.distinguisher,
            "tradeoff": None if self.tradeoff is None else self.tradeoff.to_dict(self._claim()),
            "summary": str(self),
        }
