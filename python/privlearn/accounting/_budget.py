r"""The privacy budget of pure and approximate differential privacy: :class:`Budget`.

A :class:`Budget` is an :math:`(\varepsilon, \delta)` guarantee (or an amount of it to spend):
an immutable pair of floats with the partial order "is a stronger guarantee than", basic
composition as ``+`` and ``k *``, and splitting as ``/ k``. Results computed exactly or in high
precision become budgets through :func:`_budget_up` (rounded *up*, refusing vacuous results),
and arguments are checked to be budgets by :func:`_budget_arg`.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Tuple

from .._validate import check_delta, check_epsilon, check_integer
from ..errors import InvalidParameterError
from ._numerics import _Exact, _float_down, _float_up


def _budget_arg(value: object, name: str = "budget") -> "Budget":
    if not isinstance(value, Budget):
        raise InvalidParameterError(
            f"{name}: must be a privlearn.accounting.Budget; got {value!r} of type "
            f"{type(value).__name__}",
            name,
        )
    return value


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
        object.__setattr__(
            self, "_epsilon", check_epsilon(epsilon, "epsilon", zero_ok=True, exact=True)
        )
        object.__setattr__(self, "_delta", check_delta(delta, "delta", exact=True))

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
        k = check_integer(k, "k", 0)
        return _budget_up(
            k * Fraction(self._epsilon), k * Fraction(self._delta), "k", f"{k}-fold composition"
        )

    __rmul__ = __mul__

    def __truediv__(self, k: object) -> "Budget":
        if isinstance(k, bool) or not hasattr(type(k), "__index__"):
            return NotImplemented
        k = check_integer(k, "k", 1)
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
        return (
            f"{Decimal(x.numerator) / Decimal(x.denominator) if isinstance(x, Fraction) else x:.6e}"
        )
