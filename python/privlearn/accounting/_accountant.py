"""The accountant: :class:`Accountant`, its ledger of :class:`LedgerEntry`, its transactions.

An :class:`Accountant` holds a total :class:`~privlearn.accounting.Budget` for one dataset,
charges spends by basic composition with exact sums (integer multiples of ``2**-1074``), refuses
any spend that would exceed the total before anything is drawn, records every charge in its
ledger, hands sub-budgets to children, and reserves a budget for the duration of a transaction
(:meth:`Accountant.transaction`) that is committed only if its block completes.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from fractions import Fraction
from types import TracebackType
from typing import List, Optional, Tuple, Type

from ..errors import BudgetExceededError, InvalidParameterError
from ._budget import Budget, _budget_arg
from ._numerics import _float_down, _float_up


def check_accountant(value: object, name: str = "accountant") -> "Optional[Accountant]":
    """``value`` if it is ``None`` or an :class:`Accountant` (checked when a release is
    configured, and again by every charge); the one check of an ``accountant=`` argument."""
    if value is not None and not isinstance(value, Accountant):
        raise InvalidParameterError(
            f"{name}: must be None or a privlearn.accounting.Accountant, got {type(value).__name__}",
            name,
        )
    return value


def _label_arg(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidParameterError(
            f"label: must be a str; got {value!r} of type {type(value).__name__}", "label"
        )
    return value


_FIXED_BITS = 1074  # 2**-1074 is the smallest positive float: every float is a multiple


def _fixed(x: float) -> int:
    """A finite float >= 0 as an exact integer multiple of 2**-1074."""
    n, d = x.as_integer_ratio()  # d is a power of two <= 2**1074
    return n << (_FIXED_BITS + 1 - d.bit_length())


def _unfixed(v: int) -> Fraction:
    return Fraction(v, 1 << _FIXED_BITS)


@dataclass(frozen=True)
class LedgerEntry:
    """One charge recorded by an :class:`Accountant`.

    Attributes
    ----------
    label : str
        What the budget was spent on (given by the caller).
    budget : Budget
        The amount charged.
    timestamp : float
        When it was charged, in seconds since the epoch (:func:`time.time`).
    kind : str
        ``"spend"`` for :meth:`Accountant.spend` and for committed transactions
        (:meth:`Accountant.transaction`), ``"child"`` for a sub-budget handed out by
        :meth:`Accountant.child`.
    """

    label: str
    budget: Budget
    timestamp: float
    kind: str = "spend"


class Accountant:
    """Tracks the privacy budget spent on one dataset and refuses to exceed a total.

    Spends compose by **basic composition**: epsilons add and deltas add (Dwork and Roth 2014,
    Theorem 3.16, which holds for adaptively chosen mechanisms). A spend fits when both the
    epsilon *and* the delta already spent and reserved, plus the new one, stay at or below the
    total's; so an accountant with a pure total (``delta = 0``) refuses every spend with
    ``delta > 0``. Sums are exact (floats are exact binary fractions) and :attr:`spent` reports
    them exactly. Decimal fractions such as ``0.1`` are slightly larger as floats, so ten spends
    of ``Budget(0.1)`` add up to a hair over ``1.0``: spends are therefore accepted when they
    exceed the total by at most a relative ``2**-40`` (about ``1e-12``, far below any meaningful
    privacy difference), and :attr:`spent` then shows the exact, slightly larger, sum. Spend
    ``total / k`` to split a total into ``k`` parts that fit exactly.

    For tighter accounting of many homogeneous steps, compute their joint guarantee first (for
    example ``compose_optimal(step, k, delta_slack)``) and spend it once.

    The accountant is thread-safe: a lock makes check-and-charge atomic, so concurrent spends
    can never oversubscribe the total.

    Parameters
    ----------
    total : Budget
        The whole budget available.

    Raises
    ------
    InvalidParameterError
        If ``total`` is not a :class:`Budget`.

    Examples
    --------
    >>> from privlearn.accounting import Accountant, Budget
    >>> acct = Accountant(Budget(1.0))
    >>> for _ in range(4):
    ...     _ = acct.spend(acct.total / 4, "query")
    >>> acct.remaining
    Budget(epsilon=0.0, delta=0.0)
    >>> acct.spend(Budget(0.1), "one too many")
    Traceback (most recent call last):
        ...
    privlearn.errors.BudgetExceededError: spending Budget(epsilon=0.1, delta=0.0) on 'one too many' would exceed the total Budget(epsilon=1.0, delta=0.0); remaining: Budget(epsilon=0.0, delta=0.0)
    """

    def __init__(self, total: Budget) -> None:
        self._total = _budget_arg(total, "total")
        # Exact sums as integer multiples of 2**-1074 (every float is one): fast and exact.
        self._total_eps = _fixed(self._total.epsilon)
        self._total_delta = _fixed(self._total.delta)
        self._spent_eps = 0
        self._spent_delta = 0
        self._reserved_eps = 0
        self._reserved_delta = 0
        self._entries: List[LedgerEntry] = []
        self._lock = threading.Lock()

    # -- state ---------------------------------------------------------------------------------

    @property
    def total(self) -> Budget:
        """The total budget this accountant was created with."""
        return self._total

    @property
    def spent(self) -> Budget:
        """What the committed ledger entries add up to (rounded up).

        Includes sub-budgets handed to children, not reservations of open transactions.
        """
        with self._lock:
            return Budget._unchecked(
                _float_up(_unfixed(self._spent_eps)), _float_up(_unfixed(self._spent_delta))
            )

    @property
    def remaining(self) -> Budget:
        """What can still be spent: the total minus the spent and reserved (rounded down).

        ``accountant.spend(accountant.remaining, label)`` always fits.
        """
        with self._lock:
            return self._remaining_locked()

    @property
    def ledger(self) -> Tuple[LedgerEntry, ...]:
        """The committed entries, oldest first (an immutable snapshot)."""
        with self._lock:
            return tuple(self._entries)

    def __repr__(self) -> str:
        with self._lock:
            spent = Budget._unchecked(
                _float_up(_unfixed(self._spent_eps)), _float_up(_unfixed(self._spent_delta))
            )
            n = len(self._entries)
        return f"Accountant(total={self._total!r}, spent={spent!r}, entries={n})"

    # -- spending ------------------------------------------------------------------------------

    def spend(self, budget: Budget, label: str) -> LedgerEntry:
        """Charge ``budget`` and record it in the ledger under ``label``.

        Parameters
        ----------
        budget : Budget
            The privacy cost of the release being made.
        label : str
            What it is spent on (free text, shown in the ledger).

        Returns
        -------
        LedgerEntry
            The recorded entry.

        Raises
        ------
        BudgetExceededError
            If the spend would take the spent-plus-reserved budget past the total in epsilon
            or in delta. Nothing is charged and the accountant is left exactly as it was.
        InvalidParameterError
            If ``budget`` is not a :class:`Budget` or ``label`` not a str.
        """
        budget = _budget_arg(budget)
        label = _label_arg(label)
        with self._lock:
            self._check_locked(budget, label)
            return self._commit_locked(budget, label, "spend")

    def child(self, budget: Budget, label: str) -> "Accountant":
        """Hand a sub-budget to a learner or a sub-computation.

        ``budget`` is charged to this accountant at once (a ledger entry of kind ``"child"``)
        and a new :class:`Accountant` with total ``budget`` is returned; the child's own
        ledger records what is spent from it. Whatever the child leaves unspent stays charged
        to the parent (the parent cannot know what the child released).

        Raises
        ------
        BudgetExceededError
            If ``budget`` does not fit; nothing is charged.
        InvalidParameterError
            If ``budget`` is not a :class:`Budget` or ``label`` not a str.
        """
        budget = _budget_arg(budget)
        label = _label_arg(label)
        with self._lock:
            self._check_locked(budget, label)
            self._commit_locked(budget, label, "child")
        return Accountant(budget)

    def transaction(self, budget: Budget, label: str) -> "_Transaction":
        """A context manager that charges ``budget`` only if its block completes.

        For mechanism implementers::

            with accountant.transaction(Budget(epsilon), "laplace"):
                values = validate(values)    # may raise: then nothing is charged
                out = draw_noise(values)
            return out

        On entry the budget is checked and reserved (so a concurrent spend cannot take it),
        raising :class:`~privlearn.errors.BudgetExceededError` if it does not fit; the block
        does not run then. When the block exits normally the spend is committed to the ledger;
        when it raises, the reservation is released and the exception propagates. Releasing is
        sound only because nothing computed inside a block that raised leaves it: do not put
        data-dependent values into the exception. The ``as`` target is ``None``.

        Raises
        ------
        InvalidParameterError
            At the call, if ``budget`` is not a :class:`Budget` or ``label`` not a str.
        """
        return _Transaction(self, _budget_arg(budget), _label_arg(label))

    # -- internals (call with the lock held) ---------------------------------------------------

    def _remaining_locked(self) -> Budget:
        return Budget._unchecked(
            _float_down(_unfixed(max(0, self._total_eps - self._spent_eps - self._reserved_eps))),
            _float_down(
                _unfixed(max(0, self._total_delta - self._spent_delta - self._reserved_delta))
            ),
        )

    def _check_locked(self, budget: Budget, label: str) -> None:
        eps = self._spent_eps + self._reserved_eps + _fixed(budget.epsilon)
        dlt = self._spent_delta + self._reserved_delta + _fixed(budget.delta)
        # Relative slack of 2**-40 absorbs the float rounding of decimal inputs (see the class
        # docstring); the ledger keeps the exact sums.
        if eps <= self._total_eps + (self._total_eps >> 40) and dlt <= self._total_delta + (
            self._total_delta >> 40
        ):
            return
        remaining = self._remaining_locked()
        message = (
            f"spending {budget!r} on {label!r} would exceed the total {self._total!r}; "
            f"remaining: {remaining!r}"
        )
        over_eps = eps - self._total_eps
        over_delta = dlt - self._total_delta
        tiny = (over_eps <= 0 or over_eps * 10**9 <= self._total_eps) and (
            over_delta <= 0 or over_delta * 10**9 <= self._total_delta
        )
        if tiny:
            message += " (over by less than a relative 1e-9; split a budget with `budget / k`)"
        raise BudgetExceededError(message, requested=budget, remaining=remaining, label=label)

    def _commit_locked(self, budget: Budget, label: str, kind: str) -> LedgerEntry:
        entry = LedgerEntry(label=label, budget=budget, timestamp=time.time(), kind=kind)
        self._spent_eps += _fixed(budget.epsilon)
        self._spent_delta += _fixed(budget.delta)
        self._entries.append(entry)
        return entry

    def _reserve_locked(self, budget: Budget, sign: int) -> None:
        self._reserved_eps += sign * _fixed(budget.epsilon)
        self._reserved_delta += sign * _fixed(budget.delta)


class _Transaction:
    """The context manager returned by :meth:`Accountant.transaction` (single use)."""

    __slots__ = ("_accountant", "_budget", "_label", "_state")

    def __init__(self, accountant: Accountant, budget: Budget, label: str) -> None:
        self._accountant = accountant
        self._budget = budget
        self._label = label
        self._state = "new"

    def __enter__(self) -> None:
        if self._state != "new":
            raise RuntimeError("an accountant transaction can be entered only once")
        acct = self._accountant
        with acct._lock:
            acct._check_locked(self._budget, self._label)
            acct._reserve_locked(self._budget, +1)
            self._state = "open"

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        acct = self._accountant
        with acct._lock:
            acct._reserve_locked(self._budget, -1)
            if exc_type is None:
                acct._commit_locked(self._budget, self._label, "spend")
                self._state = "committed"
            else:
                self._state = "released"
