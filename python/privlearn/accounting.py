r"""Privacy budgets, the accountant, composition, amplification by subsampling, group privacy.

Every learner and mechanism in privlearn takes ``accountant=``: an :class:`Accountant` holds a
total :class:`Budget` and refuses, before anything is drawn, any spend that would exceed it. The
functions below turn the guarantees of single mechanisms into guarantees of their combinations:

========================================  =====================================================
:func:`compose_basic`                     sum of the budgets (any sequence, adaptive)
:func:`compose_advanced`                  Dwork–Rothblum–Vadhan advanced composition
:func:`compose_optimal`                   the exact optimum of Kairouz–Oh–Viswanath
:func:`amplify_by_subsampling`            Balle–Barthe–Gaboardi (and seed 000's lemmas)
:func:`group_privacy`                     datasets that differ in ``k`` records
========================================  =====================================================

**Neighbouring relation.** As everywhere in privlearn, two datasets are neighbours when they
have the same size ``n`` (which is public) and differ by replacing one record ("substitution",
"replace-one"). Composition and group privacy hold for any neighbouring relation, as long as
every mechanism involved is private with respect to the same one; the subsampling theorems are
stated for replace-one and say so.

**Rounding.** Every bound is computed in high-precision decimal arithmetic (Python's
:mod:`decimal`, 50 or more significant digits) or exactly (:class:`fractions.Fraction`), and the
returned epsilon and delta are rounded *up* to the next float, so a reported guarantee is never
smaller than the true bound. :class:`Accountant` adds spends exactly (floats are exact dyadic
rationals) and accepts them up to a relative ``2**-40`` above the total (the float rounding of
decimal inputs such as ``0.1``), reporting the exact sum; :attr:`Accountant.remaining`
is rounded *down* and ``budget / k`` splits a budget into ``k`` parts rounded down, so spending
them always fits.

This module is pure Python on purpose: it does scalar arithmetic and bookkeeping, not a hot
path (a spend costs a few microseconds; the slowest bound, :func:`compose_optimal`, walks
``O(sqrt(k) * log(1/delta_slack))`` terms of a binomial sum).

Examples
--------
>>> from privlearn.accounting import Accountant, Budget
>>> acct = Accountant(Budget(1.0, 1e-6))
>>> entry = acct.spend(Budget(0.25), "laplace count")
>>> acct.remaining
Budget(epsilon=0.75, delta=1e-06)
>>> learner_budget = acct.child(Budget(0.5, 1e-6), "logistic regression")
>>> acct.remaining
Budget(epsilon=0.25, delta=0.0)
>>> [(e.label, e.kind) for e in acct.ledger]
[('laplace count', 'spend'), ('logistic regression', 'child')]
"""

from __future__ import annotations

import decimal
import math
import numbers
import threading
import time
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache, wraps
from types import TracebackType
from typing import Any, Callable, Iterable, List, Optional, Tuple, Type, TypeVar, Union, cast

from ._validate import check_integer as _integer
from .errors import BudgetExceededError, InvalidParameterError

__all__ = [
    "Budget",
    "LedgerEntry",
    "Accountant",
    "compose_basic",
    "compose_advanced",
    "compose_optimal",
    "amplify_by_subsampling",
    "amplify_any_by_subsampling",
    "group_privacy",
]

_Exact = Union[Fraction, Decimal]


# --------------------------------------------------------------------------------------------
# Validation helpers (messages start with the parameter name, state the range and the value).
# --------------------------------------------------------------------------------------------


def _real(value: object, name: str, allowed: str) -> float:
    """``value`` as a float, refusing non-numbers, bools and rationals a float cannot hold."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"{name}: must be a real number {allowed}; got {value!r} of type "
            f"{type(value).__name__}",
            name,
        )
    try:
        x = float(value)
    except (OverflowError, ValueError, TypeError):
        raise InvalidParameterError(
            f"{name}: must be a real number {allowed}; got {value!r}", name
        ) from None
    if isinstance(value, numbers.Rational) and math.isfinite(x):
        if Fraction(x) != Fraction(int(value.numerator), int(value.denominator)):
            raise InvalidParameterError(
                f"{name}: must be exactly representable as a float (budgets are stored as "
                f"floats and rounding could under-report); got {value!r}",
                name,
            )
    return x + 0.0  # normalises -0.0 to 0.0


def _epsilon_value(value: object, name: str = "epsilon") -> float:
    x = _real(value, name, "that is finite and >= 0")
    if not (math.isfinite(x) and x >= 0.0):
        raise InvalidParameterError(f"{name}: must be finite and >= 0; got {value!r}", name)
    return x


def _delta_value(value: object, name: str = "delta") -> float:
    x = _real(value, name, "in [0, 1)")
    if not (0.0 <= x < 1.0):
        raise InvalidParameterError(f"{name}: must be in [0, 1); got {value!r}", name)
    return x


def _budget_arg(value: object, name: str = "budget") -> "Budget":
    if not isinstance(value, Budget):
        raise InvalidParameterError(
            f"{name}: must be a privlearn.accounting.Budget; got {value!r} of type "
            f"{type(value).__name__}",
            name,
        )
    return value


def _label_arg(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidParameterError(
            f"label: must be a str; got {value!r} of type {type(value).__name__}", "label"
        )
    return value


# --------------------------------------------------------------------------------------------
# Directed rounding to floats.
# --------------------------------------------------------------------------------------------


def _float_up(x: _Exact) -> float:
    """The smallest float >= x (``inf`` if x exceeds the largest float)."""
    try:
        f = float(x)  # correctly rounded for Fraction and Decimal
    except OverflowError:
        return math.inf
    if math.isinf(f):
        return f
    exact = Fraction(f) if isinstance(x, Fraction) else Decimal(f)
    if exact < x:
        f = math.nextafter(f, math.inf)
    return f + 0.0


def _float_down(x: _Exact) -> float:
    """The largest float <= x, for 0 <= x (finite)."""
    f = float(x)
    exact = Fraction(f) if isinstance(x, Fraction) else Decimal(f)
    if exact > x:
        f = math.nextafter(f, -math.inf)
    return max(f, 0.0) + 0.0


# --------------------------------------------------------------------------------------------
# Budget
# --------------------------------------------------------------------------------------------


class Budget:
    r"""A privacy budget or guarantee: :math:`(\varepsilon, \delta)`-differential privacy.

    A mechanism is :math:`(\varepsilon, \delta)`-DP if for all neighbouring datasets
    :math:`x, x'` and all events :math:`S`,
    :math:`\Pr[M(x) \in S] \le e^{\varepsilon} \Pr[M(x') \in S] + \delta`
    (Dwork, Kenthapadi, McSherry, Mironov, Naor 2006). ``delta = 0`` is pure DP.

    Budgets are immutable and hashable. ``==`` is exact equality of both floats.

    **Order.** ``a <= b`` means ``a.epsilon <= b.epsilon and a.delta <= b.delta``: then every
    ``a``-DP mechanism is also ``b``-DP (a smaller budget is a stronger guarantee). This is a
    *partial* order: ``Budget(1, 0)`` and ``Budget(0.5, 1e-6)`` are incomparable, so both
    ``a <= b`` and ``b <= a`` are false; do not sort mixed budgets. ``a < b`` means
    ``a <= b and a != b``.

    **Arithmetic.** ``a + b`` is basic composition, ``(a.epsilon + b.epsilon, a.delta +
    b.delta)``, and ``k * a`` (or ``a * k``) composes ``a`` with itself ``k`` times (``k`` a
    non-negative integer); both are rounded *up* to the next float when the exact result is not
    a float. ``a / k`` splits ``a`` into ``k`` equal parts rounded *down*, so ``k`` spends of
    ``a / k`` never exceed ``a`` (``Budget(1.0) / 10`` has epsilon ``0.09999999999999999``:
    the float ``0.1`` is slightly more than a tenth, and ten of them exceed ``1.0``).

    Parameters
    ----------
    epsilon : float
        Finite and >= 0.
    delta : float, default 0.0
        In [0, 1).

    Raises
    ------
    InvalidParameterError
        On a value outside those ranges, a non-number (or a bool), or a rational number that
        no float represents exactly.

    Examples
    --------
    >>> from privlearn.accounting import Budget
    >>> Budget(0.5) + Budget(0.25, 1e-6)
    Budget(epsilon=0.75, delta=1e-06)
    >>> 3 * Budget(0.5)
    Budget(epsilon=1.5, delta=0.0)
    >>> Budget(0.5) <= Budget(1.0, 1e-6)
    True
    >>> Budget(1.0) <= Budget(0.5, 1e-6) or Budget(0.5, 1e-6) <= Budget(1.0)
    False
    """

    __slots__ = ("_epsilon", "_delta")

    _epsilon: float
    _delta: float

    def __init__(self, epsilon: float, delta: float = 0.0) -> None:
        object.__setattr__(self, "_epsilon", _epsilon_value(epsilon, "epsilon"))
        object.__setattr__(self, "_delta", _delta_value(delta, "delta"))

    @classmethod
    def _unchecked(cls, epsilon: float, delta: float) -> "Budget":
        self = object.__new__(cls)
        object.__setattr__(self, "_epsilon", epsilon + 0.0)
        object.__setattr__(self, "_delta", delta + 0.0)
        return self

    @property
    def epsilon(self) -> float:
        """The epsilon of the guarantee (finite, >= 0)."""
        return self._epsilon

    @property
    def delta(self) -> float:
        """The delta of the guarantee (in [0, 1); 0 for pure DP)."""
        return self._delta

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Budget is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Budget is immutable")

    def __reduce__(self) -> Tuple[type, Tuple[float, float]]:
        return (Budget, (self._epsilon, self._delta))

    def __repr__(self) -> str:
        return f"Budget(epsilon={self._epsilon!r}, delta={self._delta!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Budget):
            return NotImplemented
        return self._epsilon == other._epsilon and self._delta == other._delta

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, Budget):
            return NotImplemented
        return not (self._epsilon == other._epsilon and self._delta == other._delta)

    def __hash__(self) -> int:
        return hash((self._epsilon, self._delta))

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Budget):
            return NotImplemented
        return self._epsilon <= other._epsilon and self._delta <= other._delta

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Budget):
            return NotImplemented
        return other._epsilon <= self._epsilon and other._delta <= self._delta

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Budget):
            return NotImplemented
        return self <= other and self != other

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Budget):
            return NotImplemented
        return self >= other and self != other

    def __add__(self, other: object) -> "Budget":
        if not isinstance(other, Budget):
            return NotImplemented
        return _budget_up(
            Fraction(self._epsilon) + Fraction(other._epsilon),
            Fraction(self._delta) + Fraction(other._delta),
            "other",
            "sum of the budgets",
        )

    def __mul__(self, k: object) -> "Budget":
        # Any integer (int, numpy integer: the operator.index protocol) composes; bools and
        # floats are not counts (TypeError). This is the one k-fold basic composition of the
        # package: exact rational product, rounded up.
        if isinstance(k, bool) or not hasattr(type(k), "__index__"):
            return NotImplemented
        k = _integer(k, "k", 0)
        return _budget_up(
            k * Fraction(self._epsilon), k * Fraction(self._delta), "k", f"{k}-fold composition"
        )

    __rmul__ = __mul__

    def __truediv__(self, k: object) -> "Budget":
        if isinstance(k, bool) or not hasattr(type(k), "__index__"):
            return NotImplemented
        k = _integer(k, "k", 1)
        return Budget._unchecked(
            _float_down(Fraction(self._epsilon) / k), _float_down(Fraction(self._delta) / k)
        )


def _budget_up(epsilon: _Exact, delta: _Exact, name: str, what: str) -> Budget:
    """A Budget from exact (or high-precision) values, rounded up; refuses vacuous results."""
    eps = _float_up(epsilon)
    dlt = _float_up(delta)
    if not math.isfinite(eps):
        raise InvalidParameterError(
            f"{name}: the epsilon of the {what} does not fit in a float (it is about "
            f"{_short(epsilon)})",
            name,
        )
    if dlt >= 1.0:
        raise InvalidParameterError(
            f"{name}: the delta of the {what} is {_short(delta)} >= 1, a vacuous guarantee",
            name,
        )
    return Budget._unchecked(eps, dlt)


def _short(x: _Exact) -> str:
    try:
        return f"{float(x):.6g}"
    except OverflowError:
        return f"{Decimal(x.numerator) / Decimal(x.denominator) if isinstance(x, Fraction) else x:.6e}"


# --------------------------------------------------------------------------------------------
# The accountant
# --------------------------------------------------------------------------------------------

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
            _float_down(_unfixed(max(0, self._total_delta - self._spent_delta - self._reserved_delta))),
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


# --------------------------------------------------------------------------------------------
# High-precision arithmetic
# --------------------------------------------------------------------------------------------

_DIGITS = 50  # significant digits of the decimal computations
_SAFETY = Decimal(10) ** -40  # relative inflation before rounding up (>> accumulated error)


def _context(digits: int) -> decimal.Context:
    return decimal.Context(
        prec=digits,
        rounding=decimal.ROUND_HALF_EVEN,
        Emax=decimal.MAX_EMAX,
        Emin=decimal.MIN_EMIN,
        traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow],
    )


def _inflate(x: Decimal) -> Decimal:
    """Inflate a computed value by the safety margin (far above its accumulated rounding error)."""
    return x + abs(x) * _SAFETY


def _up(x: Decimal) -> Decimal:
    """:func:`_inflate` if any operation in the current decimal context was inexact, else x."""
    return _inflate(x) if decimal.getcontext().flags[decimal.Inexact] else x


def _expm1(x: Decimal) -> Decimal:
    """exp(x) - 1 without cancellation (current context)."""
    if x == 0:
        return Decimal(0)
    if abs(x) >= Decimal("0.5"):
        return x.exp() - 1
    eps = Decimal(10) ** (-(decimal.getcontext().prec + 3))
    term = x
    total = x
    n = 1
    while abs(term) > abs(total) * eps:
        n += 1
        term = term * x / n
        total += term
    return total


def _log1p(x: Decimal) -> Decimal:
    """log(1 + x) for x > -1 without cancellation (current context)."""
    if x == 0:
        return Decimal(0)
    if abs(x) >= Decimal("0.001"):
        return (1 + x).ln()
    eps = Decimal(10) ** (-(decimal.getcontext().prec + 3))
    power = x
    total = x
    n = 1
    while True:
        n += 1
        power = -power * x
        term = power / n
        total += term
        if abs(term) <= abs(total) * eps:
            return total


@lru_cache(maxsize=None)
def _bernoulli_even(count: int) -> Tuple[Fraction, ...]:
    """B_2, B_4, ..., B_{2 count} (exact)."""
    b = [Fraction(1)]
    for m in range(1, 2 * count + 1):
        b.append(-sum((math.comb(m + 1, j) * b[j] for j in range(m)), Fraction(0)) / (m + 1))
    return tuple(b[2 * i] for i in range(1, count + 1))


@lru_cache(maxsize=None)
def _half_log_2pi(digits: int) -> Decimal:
    """(1/2) ln(2 pi) to ``digits`` digits, with pi from Machin's formula."""
    with decimal.localcontext(_context(digits + 10)):

        def arctan_inv(x: int) -> Decimal:
            x2 = x * x
            power = Decimal(1) / x
            total = power
            n = 1
            sign = -1
            eps = Decimal(10) ** -(digits + 12)
            while power > eps:
                power /= x2
                n += 2
                total += sign * power / n
                sign = -sign
            return total

        pi = 4 * (4 * arctan_inv(5) - arctan_inv(239))
        return +((2 * pi).ln() / 2)


_STIRLING_TERMS = 25  # with n >= 100 the truncation error is below 1e-78


def _ln_factorial(n: int) -> Decimal:
    """ln(n!) in the current context (exact product for n < 100, Stirling's series above)."""
    if n < 100:
        return Decimal(math.factorial(n)).ln()
    digits = decimal.getcontext().prec
    z = Decimal(n + 1)
    total = (z - Decimal("0.5")) * z.ln() - z + _half_log_2pi(digits)
    z2 = z * z
    zpow = z
    for m, b in enumerate(_bernoulli_even(_STIRLING_TERMS), start=1):
        total += Decimal(b.numerator) / (Decimal(b.denominator * (2 * m) * (2 * m - 1)) * zpow)
        zpow *= z2
    return total


def _ln_binomial(k: int, j: int) -> Decimal:
    return _ln_factorial(k) - _ln_factorial(j) - _ln_factorial(k - j)


_F = TypeVar("_F", bound=Callable[..., Budget])


def _overflow_guard(func: _F) -> _F:
    """Turn a decimal overflow (an exponential of an absurdly large epsilon) into a clear error."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Budget:
        try:
            return func(*args, **kwargs)
        except decimal.Overflow:
            raise InvalidParameterError(
                f"budget: epsilon is too large for {func.__name__} (e**epsilon overflows even "
                "high-precision arithmetic)",
                "budget",
            ) from None

    return cast(_F, wrapper)


# --------------------------------------------------------------------------------------------
# Composition
# --------------------------------------------------------------------------------------------


def compose_basic(budgets: Iterable[Budget]) -> Budget:
    r"""Basic composition: the sum of the epsilons and the sum of the deltas.

    Running mechanisms that are :math:`(\varepsilon_i, \delta_i)`-DP in sequence, each possibly
    chosen from the outputs of the previous ones, is
    :math:`(\sum_i \varepsilon_i, \sum_i \delta_i)`-DP. Dwork and Roth, "The Algorithmic
    Foundations of Differential Privacy" (2014), Theorem 3.16 (adaptive composition: Dwork,
    Rothblum and Vadhan, FOCS 2010). Holds for any neighbouring relation shared by the
    mechanisms.

    Parameters
    ----------
    budgets : iterable of Budget
        The guarantees of the composed mechanisms (empty: ``Budget(0.0)``).

    Returns
    -------
    Budget
        The exact sums, rounded up to floats.

    Raises
    ------
    InvalidParameterError
        If an element is not a :class:`Budget`, or the deltas sum to 1 or more (a vacuous
        guarantee).

    Examples
    --------
    >>> compose_basic([Budget(0.5), Budget(0.25, 1e-6), Budget(0.25, 1e-6)])
    Budget(epsilon=1.0, delta=2e-06)
    """
    eps = Fraction(0)
    dlt = Fraction(0)
    for b in budgets:
        _budget_arg(b, "budgets")
        eps += Fraction(b.epsilon)
        dlt += Fraction(b.delta)
    return _budget_up(eps, dlt, "budgets", "composition")


@_overflow_guard
def compose_advanced(budget: Budget, k: int, delta_slack: float) -> Budget:
    r"""Advanced composition of ``k`` mechanisms that are each ``budget``-DP.

    The ``k``-fold adaptive composition of :math:`(\varepsilon, \delta)`-DP mechanisms is
    :math:`(\varepsilon', k\delta + \delta_{\mathrm{slack}})`-DP with

    .. math::

        \varepsilon' = \sqrt{2k \ln(1/\delta_{\mathrm{slack}})}\,\varepsilon
                       + k\varepsilon(e^{\varepsilon} - 1).

    Dwork, Rothblum and Vadhan, "Boosting and Differential Privacy" (FOCS 2010), advanced
    composition theorem, in the form of Dwork and Roth (2014), Theorem 3.20. Holds for any neighbouring relation
    shared by the mechanisms. :func:`compose_optimal` is never worse (at the same
    ``delta_slack`` both its epsilon and its delta are at most these), and basic composition
    (``k * budget``) is better when epsilon is large or ``k`` small: take the better one.

    Parameters
    ----------
    budget : Budget
        The guarantee of each mechanism.
    k : int
        Number of mechanisms, >= 1.
    delta_slack : float
        The extra failure probability, in (0, 1).

    Returns
    -------
    Budget
        :math:`(\varepsilon', k\delta + \delta_{\mathrm{slack}})`, rounded up.

    Raises
    ------
    InvalidParameterError
        On ``k < 1``, ``delta_slack`` outside (0, 1), or a resulting delta >= 1.

    Examples
    --------
    >>> compose_advanced(Budget(0.1), 100, 1e-6)
    Budget(epsilon=6.3082..., delta=1e-06)
    """
    budget = _budget_arg(budget)
    k = _integer(k, "k", 1)
    slack = _delta_value(delta_slack, "delta_slack")
    if slack == 0.0:
        raise InvalidParameterError(
            "delta_slack: must be in (0, 1) for advanced composition; got 0.0 "
            "(with no slack, basic composition `k * budget` is the bound)",
            "delta_slack",
        )
    with decimal.localcontext(_context(_DIGITS)):
        e = Decimal(budget.epsilon)
        eps = (2 * k * -Decimal(slack).ln()).sqrt() * e + k * e * _expm1(e)
        eps = _up(eps)
    dlt = k * Fraction(budget.delta) + Fraction(slack)
    return _budget_up(eps, dlt, "k", "advanced composition")


@_overflow_guard
def compose_optimal(budget: Budget, k: int, delta_slack: float) -> Budget:
    r"""The optimal (tight) bound for ``k``-fold composition of ``budget``-DP mechanisms.

    Kairouz, Oh and Viswanath, "The Composition Theorem for Differential Privacy" (ICML 2015;
    IEEE Trans. Inf. Theory 63(6), 2017), Theorem 3.3: the ``k``-fold adaptive composition of
    :math:`(\varepsilon, \delta)`-DP mechanisms is
    :math:`((k - 2i)\varepsilon,\ 1 - (1-\delta)^k (1 - \delta_i))`-DP for every
    :math:`i = 0, \dots, \lfloor k/2 \rfloor`, with

    .. math::

        \delta_i = \frac{\sum_{\ell=0}^{i-1} \binom{k}{\ell}
                   \left(e^{(k-\ell)\varepsilon} - e^{(k-2i+\ell)\varepsilon}\right)}
                   {(1 + e^{\varepsilon})^k},

    and no better guarantee holds for all such mechanisms. Between these points the exact
    privacy region is the intersection of theirs, whose boundary is linear in
    :math:`e^{\tilde\varepsilon}`. This function returns the **smallest**
    :math:`\tilde\varepsilon \ge 0` for which every such composition is
    :math:`(\tilde\varepsilon,\ 1 - (1-\delta)^k(1 - \delta_{\mathrm{slack}}))`-DP: at
    ``delta_slack`` equal to some :math:`\delta_i` it is exactly :math:`(k - 2i)\varepsilon`;
    at ``delta_slack = 0`` it is :math:`k\varepsilon` (basic composition). Holds for any
    neighbouring relation shared by the mechanisms.

    It is never worse than :func:`compose_advanced` at the same ``delta_slack`` (neither in
    epsilon nor in delta), nor than basic composition.

    **Numerics.** The binomial sums are evaluated in decimal arithmetic with
    ``50 + len(str(k))`` significant digits, from the terms that matter (those below
    ``delta_slack * e**-100`` of the sum are bounded, not dropped); the result is inflated by
    a relative 1e-40 and rounded up, so it is never below the true optimum and exceeds it by a
    few units in the last place at most. The cost is about ``sqrt(k) * sqrt(log(1/delta_slack))``
    steps (``k = 10**8``: about a second).

    Parameters
    ----------
    budget : Budget
        The guarantee of each mechanism.
    k : int
        Number of mechanisms, >= 1.
    delta_slack : float
        The :math:`\delta_i` part of the total delta, in [0, 1).

    Returns
    -------
    Budget
        :math:`(\tilde\varepsilon,\ 1 - (1-\delta)^k (1 - \delta_{\mathrm{slack}}))`, rounded up.

    Raises
    ------
    InvalidParameterError
        On ``k < 1`` or ``delta_slack`` outside [0, 1), or a total delta that rounds to 1.

    Examples
    --------
    >>> compose_optimal(Budget(0.1), 100, 1e-6)
    Budget(epsilon=4.7745..., delta=1e-06)
    """
    budget = _budget_arg(budget)
    k = _integer(k, "k", 1)
    slack = _delta_value(delta_slack, "delta_slack")
    epsilon = budget.epsilon
    digits = _DIGITS + len(str(k))
    total_delta: _Exact
    if budget.delta == 0.0:
        total_delta = Fraction(slack)
    elif k <= 256:  # exact rational arithmetic is cheap enough
        total_delta = 1 - (1 - Fraction(budget.delta)) ** k * (1 - Fraction(slack))
    else:
        with decimal.localcontext(_context(digits)):
            # 1 - (1 - delta)^k (1 - slack) = -expm1(k log1p(-delta) + log1p(-slack))
            log_keep = k * _log1p(-Decimal(budget.delta)) + _log1p(-Decimal(slack))
            total_delta = _up(-_expm1(log_keep))
    if slack == 0.0 or epsilon == 0.0:
        # i = 0 of the theorem: k * epsilon (and 0 when epsilon = 0) is exact here.
        return _budget_up(k * Fraction(epsilon), total_delta, "k", "optimal composition")
    eps = _inflate(_kov_epsilon(epsilon, k, slack, digits))
    return _budget_up(eps, total_delta, "k", "optimal composition")


def _kov_epsilon(epsilon: float, k: int, slack: float, digits: int) -> Decimal:
    r"""Smallest eps~ >= 0 with delta_pure(eps~) <= slack, for epsilon > 0, slack > 0.

    The k-fold composition of the pure epsilon-DP worst case (binary randomized response) has
    privacy loss L = (k - 2J) epsilon where J ~ Binomial(k, p), p = 1 / (1 + e^eps), under the
    first distribution; delta_pure(eps~) = sum_{j : L_j > eps~} P_j (1 - e^{eps~ - L_j}). At
    eps~ = (k - 2i) eps this is KOV's delta_i. With r = e^{-2 eps},
    C_i = sum_{j<i} P_j r^{i-j} and delta_i = sum_{j<i} P_j (1 - r^{i-j}):
        delta_{i+1} = delta_i + (1 - r)(P_i + C_i),   C_{i+1} = r (C_i + P_i),
    (all terms positive: no cancellation), and for eps~ = (k - 2i) eps + t, 0 <= t <= 2 eps:
        delta_pure(eps~) = delta_i - (e^t - 1) C_i.
    The crossing is found in the first interval with delta_i > slack.
    """
    i_max = (k + 1) // 2
    j_lo = _kov_window_start(epsilon, k, slack, i_max)
    with decimal.localcontext(_context(digits)):
        e = Decimal(epsilon)
        target = Decimal(slack)
        r = (-2 * e).exp()
        one_minus_r = -_expm1(-2 * e)
        down = (-e).exp()
        log_norm = k * _log1p(down)  # ln((1 + e^eps)^k) - k eps
        while True:
            if j_lo == 0:
                p_j = (-log_norm).exp()  # P_0 = (e^eps / (1 + e^eps))^k
                tail = Decimal(0)
            else:
                # P_j = C(k, j) e^{(k-j) eps} / (1 + e^eps)^k
                p_j = (_ln_binomial(k, j_lo) - j_lo * e - log_norm).exp()
                rho = j_lo * e.exp() / (k - j_lo + 1)  # P_{j-1} / P_j at j = j_lo, decreasing below
                if rho >= 1:
                    j_lo = 0
                    continue
                tail = p_j * rho / (1 - rho)  # >= sum_{j < j_lo} P_j
            delta_i = tail  # upper bound on delta_i (the dropped terms contribute <= tail)
            c_i = Decimal(0)  # lower bound on C_i
            for i in range(j_lo, i_max + 1):
                if delta_i > target:
                    # delta_{i-1} <= target, so the crossing is at t <= 2 eps in this interval
                    if c_i == 0:
                        if j_lo > 0:  # the window started too late: start again from 0
                            break
                        t = 2 * e  # C_i underflowed (e^{-2 eps} below the decimal range)
                    else:
                        t = min(2 * e, _log1p((delta_i - target) / c_i))
                    return max(Decimal(0), (k - 2 * i) * e + t)
                if i == i_max:
                    return Decimal(0)
                delta_i += one_minus_r * (p_j + c_i)
                c_i = r * (c_i + p_j)
                p_j = p_j * (k - i) / (i + 1) * down
            j_lo = 0


def _kov_window_start(epsilon: float, k: int, slack: float, i_max: int) -> int:
    """The largest j below the mode with P_j < slack * e^-100 (in floats; 0 if none)."""
    log_norm = k * math.log1p(math.exp(-epsilon))
    lg_k = math.lgamma(k + 1)

    def log_p(j: int) -> float:
        return lg_k - math.lgamma(j + 1) - math.lgamma(k - j + 1) - j * epsilon - log_norm

    threshold = math.log(slack) - 100.0
    if epsilon > 700.0:  # P_0 carries all but e^-700 of the mass per term: no window needed
        return 0
    mode = min(int((k + 1) / (1.0 + math.exp(epsilon))), i_max)
    if mode <= 0 or log_p(0) > threshold:
        return 0
    lo, hi = 0, mode  # log_p increases on [0, mode]; log_p(lo) <= threshold
    if log_p(hi) <= threshold:
        return 0  # cannot happen (the mode carries >= 1/(k+1) of the mass); be safe
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if log_p(mid) <= threshold:
            lo = mid
        else:
            hi = mid
    return lo


# --------------------------------------------------------------------------------------------
# Amplification by subsampling
# --------------------------------------------------------------------------------------------

_METHODS = ("bbg", "lemma34", "lemma34-relaxed", "lemma31")


@_overflow_guard
def amplify_by_subsampling(
    budget: Budget,
    rate: float,
    *,
    replacement: bool = False,
    method: str = "bbg",
    n: Optional[int] = None,
) -> Budget:
    r"""The guarantee of a mechanism run on a uniformly random subsample of the data.

    ``budget`` is the guarantee of the mechanism ``M`` on datasets of the subsample's size
    ``m`` (replace-one neighbours); the result is the guarantee of "draw a subsample of size
    ``m = rate * n`` from the ``n`` records, run ``M`` on it" with respect to replace-one
    neighbours on the ``n`` records (``n`` public). The subsample must be drawn with fresh
    randomness, independent of the data.

    **Without replacement** (``replacement=False``, ``0 < rate <= 1``), ``method`` chooses the
    bound:

    ``"bbg"`` (default, tight)
        :math:`\varepsilon' = \ln(1 + \gamma(e^{\varepsilon} - 1))`,
        :math:`\delta' = \gamma\delta` with :math:`\gamma` = ``rate``. Balle, Barthe and
        Gaboardi, "Privacy Amplification by Subsampling: Tight Analyses via Couplings and
        Divergences" (NeurIPS 2018), Theorem 9 (sampling without replacement, substitution
        relation). Tight: randomized response on "is the changed record in the sample"
        attains it.
    ``"lemma34"``
        Wang, Lei and Fienberg, "Learning with Differential Privacy" (JMLR 2016), Lemma 34,
        exact form (a corollary of Beimel et al. 2014, Lemma 4.4):
        :math:`\varepsilon' = \ln(1 + \gamma(e^{\varepsilon} - 1))
        - \ln(1 + \gamma(e^{-\varepsilon} - 1))`. Pure DP only (``budget.delta == 0``).
        Never better than ``"bbg"`` (and ``2 epsilon`` at ``rate = 1``).
    ``"lemma34-relaxed"``
        The same lemma's stated bound :math:`\varepsilon' = 2\gamma(e^{\varepsilon} -
        e^{-\varepsilon})`, proven for ``rate <= 1/2`` only (refused above). Pure DP only.
    ``"lemma31"``
        Wang, Lei and Fienberg (2016), Lemma 31 for :math:`(\varepsilon, \delta)`-DP:
        :math:`\varepsilon' = \ln(1 + \gamma e^{\varepsilon}(e^{\varepsilon} - 1))`,
        :math:`\delta' = \gamma e^{\varepsilon}\delta`. Never better than ``"bbg"``.

    **With replacement** (``replacement=True``; only ``method="bbg"``): ``m`` indices are drawn
    independently and uniformly from the ``n`` records (repeats allowed, so ``m`` may exceed
    ``n``); ``n`` must be given and ``m = rate * n`` must be a whole number. ``M`` must be
    ``budget``-DP for replace-one neighbours on multisets of size ``m``. Balle, Barthe and
    Gaboardi (2018), Theorem 10: with :math:`\eta = 1 - (1 - 1/n)^m` (the probability that the
    changed record is drawn at least once),
    :math:`\varepsilon' = \ln(1 + \eta(e^{\varepsilon} - 1))` and
    :math:`\delta' = \sum_{j=1}^{m} \binom{m}{j} n^{-j} (1 - 1/n)^{m-j}\, \delta_{M,j}`, where
    :math:`\delta_{M,j}` bounds the hockey-stick divergence at level :math:`e^{\varepsilon}`
    between ``M``'s outputs on multisets that differ in ``j`` elements (the record drawn ``j``
    times). Here :math:`\delta_{M,j}` is bounded by group privacy (``M`` is
    :math:`(j\varepsilon, \delta_j)`-DP for such pairs, with
    :math:`\delta_j = \delta \sum_{i<j} e^{i\varepsilon}`) and the tight privacy profile of a
    :math:`(j\varepsilon, \delta_j)`-DP pair at level :math:`\varepsilon`:
    :math:`\delta_{M,j} \le \min(1,\ \delta_j + (1 - \delta_j)(e^{j\varepsilon} -
    e^{\varepsilon})/(1 + e^{j\varepsilon}))`. So, unlike sampling without replacement, a
    pure-DP ``M`` gives a delta > 0 once ``m >= 2``.

    Parameters
    ----------
    budget : Budget
        The guarantee of the mechanism on the subsample.
    rate : float
        ``m / n``: in (0, 1] without replacement, > 0 with replacement.
    replacement : bool, default False
        Sampling with replacement (Theorem 10) instead of without (Theorem 9).
    method : {"bbg", "lemma34", "lemma34-relaxed", "lemma31"}, default "bbg"
        The bound, see above (only ``"bbg"`` with replacement).
    n : int, optional
        The dataset size. Required with replacement; without replacement, if given, ``m =
        rate * n`` must be a whole number and the exact ratio ``m / n`` is used.

    Returns
    -------
    Budget
        The amplified guarantee, rounded up.

    Raises
    ------
    InvalidParameterError
        On a ``rate`` or ``n`` outside the ranges above, an unknown ``method``, a pure-DP-only
        method with ``delta > 0``, ``"lemma34-relaxed"`` with ``rate > 1/2``, or a resulting
        delta >= 1.

    Examples
    --------
    >>> amplify_by_subsampling(Budget(1.0, 1e-6), 0.01)
    Budget(epsilon=0.01703..., delta=1e-08)
    >>> amplify_by_subsampling(Budget(1.0), 0.01, method="lemma34-relaxed")
    Budget(epsilon=0.04700..., delta=0.0)
    >>> amplify_by_subsampling(Budget(1.0), 0.01, replacement=True, n=1000)
    Budget(epsilon=0.01696..., delta=2.495...e-05)
    """
    budget = _budget_arg(budget)
    if not isinstance(replacement, bool):
        raise InvalidParameterError(
            f"replacement: must be True or False; got {replacement!r}", "replacement"
        )
    if method not in _METHODS:
        raise InvalidParameterError(
            f"method: must be one of {', '.join(repr(m) for m in _METHODS)}; got {method!r}",
            "method",
        )
    allowed = "> 0" if replacement else "in (0, 1]"
    gamma_f = _real(rate, "rate", allowed)
    if not (math.isfinite(gamma_f) and gamma_f > 0.0 and (replacement or gamma_f <= 1.0)):
        raise InvalidParameterError(f"rate: must be finite and {allowed}; got {rate!r}", "rate")
    size: Optional[int] = None
    if n is not None:
        size = _integer(n, "n", 1)
    elif replacement:
        raise InvalidParameterError(
            "n: the dataset size is required with replacement=True (the bound depends on "
            "n and m = rate * n, not only on their ratio); got None",
            "n",
        )
    gamma = Fraction(gamma_f)
    m = 0
    if size is not None:
        m = round(gamma_f * size)
        if m < 1 or abs(gamma_f * size - m) > 1e-9 * max(1.0, gamma_f * size):
            raise InvalidParameterError(
                f"rate: rate * n must be a whole sample size m >= 1; got rate={rate!r}, "
                f"n={size} (rate * n = {gamma_f * size!r})",
                "rate",
            )
        gamma = Fraction(m, size)
    if replacement:
        if method != "bbg":
            raise InvalidParameterError(
                f"method: only 'bbg' (Balle-Barthe-Gaboardi Theorem 10) covers sampling with "
                f"replacement; got {method!r}",
                "method",
            )
        assert size is not None
        return _amplify_with_replacement(budget, m, size)
    if method in ("lemma34", "lemma34-relaxed") and budget.delta != 0.0:
        raise InvalidParameterError(
            f"budget: method {method!r} (Wang-Lei-Fienberg Lemma 34) applies to pure DP "
            f"(delta = 0) only; got delta={budget.delta!r} (use 'bbg' or 'lemma31')",
            "budget",
        )
    if method == "lemma34-relaxed" and gamma > Fraction(1, 2):
        raise InvalidParameterError(
            f"rate: the relaxed Lemma 34 bound is proven for rate <= 1/2 only; got {rate!r} "
            "(use method='lemma34' or 'bbg')",
            "rate",
        )
    if method == "bbg" and gamma == 1:
        return budget  # no subsampling: the theorem gives back (epsilon, delta) exactly
    with decimal.localcontext(_context(_DIGITS)):
        g = Decimal(gamma.numerator) / Decimal(gamma.denominator)
        e = Decimal(budget.epsilon)
        d = Decimal(budget.delta)
        if method == "bbg":
            eps = _log1p(g * _expm1(e))
            dlt = g * d
        elif method == "lemma34":
            eps = _log1p(g * _expm1(e)) - _log1p(g * _expm1(-e))
            dlt = Decimal(0)
        elif method == "lemma34-relaxed":
            eps = 2 * g * (e.exp() - (-e).exp())
            dlt = Decimal(0)
        else:  # lemma31
            eps = _log1p(g * e.exp() * _expm1(e))
            dlt = g * e.exp() * d
        eps, dlt = _up(eps), _up(dlt)
    return _budget_up(eps, dlt, "budget", f"amplified guarantee ({method})")


def amplify_any_by_subsampling(rate: float, *, n: Optional[int] = None) -> Budget:
    r"""The guarantee of *any* algorithm, even a non-private one, run on a uniformly random
    subsample drawn without replacement: :math:`(0, \gamma)`-DP with :math:`\gamma` = ``rate``.

    Wang, Lei and Fienberg, "Learning with Differential Privacy" (JMLR 2016), Lemma 29: for
    replace-one neighbours differing in record ``i``, the two runs have the same output law
    conditionally on ``i`` not being sampled, which happens with probability ``1 - m/n``; so the
    total variation between them is at most ``m/n``. (With ``m = sqrt(n)`` this is their
    ``(0, 1/sqrt(n))``, which is why ``delta = o(1)`` is trivial, Section 5.4.) The subsample
    must be drawn with fresh randomness and kept secret.

    Parameters
    ----------
    rate : float
        ``m / n`` in (0, 1): rate 1 runs on the whole dataset, which is (0, 1)-DP, no guarantee
        at all, and is refused.
    n : int, optional
        The dataset size; if given, ``m = rate * n`` must be a whole number and the exact ratio
        is used.

    Returns
    -------
    Budget
        ``Budget(0, rate)`` (delta rounded up).

    Examples
    --------
    >>> amplify_any_by_subsampling(0.01)
    Budget(epsilon=0.0, delta=0.01)
    """
    gamma_f = _real(rate, "rate", "in (0, 1)")
    if not (math.isfinite(gamma_f) and 0.0 < gamma_f < 1.0):
        raise InvalidParameterError(
            f"rate: must be finite and in (0, 1) (rate 1 certifies nothing); got {rate!r}", "rate"
        )
    gamma = Fraction(gamma_f)
    if n is not None:
        size = _integer(n, "n", 1)
        m = round(gamma_f * size)
        if m < 1 or m >= size or abs(gamma_f * size - m) > 1e-9 * max(1.0, gamma_f * size):
            raise InvalidParameterError(
                f"rate: rate * n must be a whole sample size 1 <= m < n; got rate={rate!r}, n={size}",
                "rate",
            )
        gamma = Fraction(m, size)
    return Budget(0.0, _float_up(gamma))


def _amplify_with_replacement(budget: Budget, m: int, n: int) -> Budget:
    """Balle-Barthe-Gaboardi 2018, Theorem 10, with the group-privacy profile bound."""
    digits = _DIGITS + len(str(m))
    with decimal.localcontext(_context(digits)):
        e = Decimal(budget.epsilon)
        d = Decimal(budget.delta)
        if n == 1:
            eta = Decimal(1)
        else:
            eta = -_expm1(m * _log1p(Decimal(-1) / n))  # P(the record is drawn at least once)
        eps = _log1p(eta * _expm1(e))
        expm1_e = _expm1(e)

        def profile(j: int) -> Decimal:
            """Upper bound on delta_{M,j}: hockey-stick at level e^eps, distance j."""
            if j == 1:
                return d
            dj = d * (_expm1(j * e) / expm1_e if e > 0 else Decimal(j))
            if dj >= 1:
                return Decimal(1)
            h = -_expm1((1 - j) * e) / (1 + (-j * e).exp())
            return min(Decimal(1), dj + (1 - dj) * h)

        if n == 1:
            dlt = profile(m)
        else:
            # P(K = 1) = m (1/n) (1 - 1/n)^(m-1); then P(K = j + 1) = P(K = j) (m - j) / ((j + 1)(n - 1))
            p = m * ((m - 1) * _log1p(Decimal(-1) / n)).exp() / n
            dlt = Decimal(0)
            covered = Decimal(0)
            mean = Decimal(m) / n
            stop = Decimal(10) ** -(digits - 5)
            for j in range(1, m + 1):
                g = profile(j)
                if g >= 1:
                    break
                dlt += p * g
                covered += p
                if j > mean and p <= stop * max(dlt, stop):
                    break
                p = p * (m - j) / ((j + 1) * (n - 1))
            else:
                covered = eta  # every term was added: no tail
            # the terms not added: P(K >= j) <= eta - covered (each weighted by at most 1),
            # plus an absolute allowance for the rounding of eta - covered
            dlt += max(Decimal(0), eta - covered) + eta * stop
        eps, dlt = _up(eps), _up(dlt)
    return _budget_up(eps, dlt, "budget", "amplified guarantee (with replacement)")


# --------------------------------------------------------------------------------------------
# Group privacy
# --------------------------------------------------------------------------------------------


@_overflow_guard
def group_privacy(budget: Budget, k: int) -> Budget:
    r"""The guarantee for datasets that differ in ``k`` records.

    A :math:`(\varepsilon, \delta)`-DP mechanism is
    :math:`(k\varepsilon,\ k e^{(k-1)\varepsilon}\delta)`-DP for datasets at replace-one
    distance ``k`` (they differ in ``k`` records). Dwork and Roth (2014), Theorem 2.2 for pure
    DP; for :math:`\delta > 0` the same chain argument over the ``k - 1`` intermediate
    datasets gives :math:`\delta \sum_{i<k} e^{i\varepsilon}`, which is at most the delta
    returned here.

    Parameters
    ----------
    budget : Budget
        The guarantee for neighbouring datasets.
    k : int
        The group size, >= 1.

    Returns
    -------
    Budget
        :math:`(k\varepsilon, k e^{(k-1)\varepsilon}\delta)`, rounded up.

    Raises
    ------
    InvalidParameterError
        On ``k < 1`` or a resulting delta >= 1 (a vacuous guarantee) or an epsilon too large
        for a float.

    Examples
    --------
    >>> group_privacy(Budget(0.5, 1e-6), 3)
    Budget(epsilon=1.5, delta=8.154...e-06)
    """
    budget = _budget_arg(budget)
    k = _integer(k, "k", 1)
    if k == 1:
        return budget
    dlt: _Exact = Fraction(0)
    if budget.delta > 0.0:
        with decimal.localcontext(_context(_DIGITS + len(str(k)))):
            dlt = _up(k * ((k - 1) * Decimal(budget.epsilon)).exp() * Decimal(budget.delta))
    return _budget_up(k * Fraction(budget.epsilon), dlt, "k", "group guarantee")
