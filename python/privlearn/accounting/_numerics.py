"""High-precision arithmetic behind the bounds of :mod:`privlearn.accounting`.

Exact values (:class:`fractions.Fraction`) and high-precision ones (:class:`decimal.Decimal`)
rounded to floats in a chosen direction (:func:`_float_up`, :func:`_float_down`); the decimal
context of every bound and the safety margin applied before rounding up (:func:`_context`,
:func:`_inflate`, :func:`_up`); ``expm1`` and ``log1p`` without cancellation; ``ln n!`` and
``ln C(k, j)`` by Stirling's series; and the decorator that turns a decimal overflow into a clear
error. Pure functions of numbers: this module knows nothing of budgets, so every privacy notion
(and the few modules outside the package that compute bounds) can build on it.
"""

from __future__ import annotations

import decimal
import inspect
import math
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache, wraps
from typing import Any, Callable, Tuple, TypeVar, Union, cast

from ..errors import InvalidParameterError

_Exact = Union[Fraction, Decimal]


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


def split_down(total: float, weights: Tuple[float, ...]) -> Tuple[float, ...]:
    """Floats ``e_i``, each the largest float at most ``w_i total / sum(w)`` (exact rationals),
    so that their exact sum is at most ``total``: a budget split that never over-spends. The
    weights are public (> 0); ``total`` is finite and >= 0."""
    t = Fraction(total)
    wsum = sum(Fraction(w) for w in weights)
    return tuple(_float_down(t * Fraction(w) / wsum) for w in weights)


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


_F = TypeVar("_F", bound=Callable[..., Any])


def _overflow_guard(func: _F) -> _F:
    """Turn a decimal overflow (an exponential of an absurdly large epsilon) into a clear error."""

    # The parameter that carries the epsilon: the function's first one ("epsilon", "budget",
    # "curve", ...), named in the error.
    param = next(iter(inspect.signature(func).parameters))

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except decimal.Overflow:
            raise InvalidParameterError(
                f"{param}: epsilon is too large for {func.__name__} (e**epsilon overflows even "
                "high-precision arithmetic)",
                param,
            ) from None

    return cast(_F, wrapper)


#: Relative width at which the budget inversions stop bisecting (the result is the lower,
#: checked end, so it always fits; it is below the exact inverse by at most this).
BISECT_RTOL = 1e-12


def _largest_fitting(start: float, fits: Callable[[float], bool], rtol: float = 0.0) -> float:
    """The largest double ``x`` found with ``fits(x)``: doubling from ``start`` to bracket the
    boundary, then bisection until the bracket is narrower than ``rtol`` times its lower end
    (``rtol = 0``: down to adjacent doubles). The lower end, for which ``fits`` was checked
    (or 0.0 if nothing above 0 fits), is returned: the result always fits. ``fits`` must be
    monotone (true below some point, false above); the one inversion routine of the
    package's budget splits."""
    lo, hi = 0.0, start
    while fits(hi):
        lo, hi = hi, 2.0 * hi
        if not math.isfinite(hi):  # pragma: no cover - every bound grows without limit
            return lo
    while hi - lo > rtol * lo:
        mid = lo + (hi - lo) / 2.0
        if mid <= lo or mid >= hi:
            break
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo
