r"""Conversions of zCDP budgets and RDP curves to :math:`(\varepsilon, \delta)` guarantees.

If a mechanism is :math:`(\alpha, \tau)`-RDP with :math:`\alpha > 1`, then it is
:math:`(\varepsilon, \delta)`-DP for every :math:`\varepsilon \ge 0` with

.. math::

    \delta = \frac{e^{(\alpha-1)(\tau-\varepsilon)}}{\alpha-1}
             \left(1 - \frac{1}{\alpha}\right)^{\alpha},
    \quad\text{equivalently}\quad
    \varepsilon = \tau + \ln\left(1 - \frac{1}{\alpha}\right)
                  - \frac{\ln\delta + \ln\alpha}{\alpha - 1}

(Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
Proposition 12 and, for zCDP with :math:`\tau = \rho\alpha`, Corollary 13; the same bound is
Theorem 21 of Balle, Barthe, Gaboardi, Hsu and Sato, AISTATS 2020, and is used by dp_accounting).
It is never worse than Mironov's :math:`\varepsilon = \tau + \ln(1/\delta)/(\alpha-1)` (CSF 2017,
Proposition 3), nor, for zCDP, than :math:`\rho + 2\sqrt{\rho\ln(1/\delta)}` (Bun and Steinke,
TCC 2016, Proposition 1.3). Any order gives a valid guarantee: the order is chosen in floats
(over the grid for a curve, by a one-dimensional search for zCDP), and the formula is then
evaluated at that order in 80-digit decimal arithmetic with a proven margin and rounded *up*,
so the returned epsilon (or delta) is never below the exact value of the formula at the order
used. The results are :class:`~privlearn.accounting.Budget` s; they hold for the neighbouring
relation of the budget or curve converted.
"""

from __future__ import annotations

import decimal
import math
from decimal import Decimal
from functools import lru_cache
from typing import Any, Callable, List, Optional, Tuple

from .._validate import check_delta, check_epsilon
from ..errors import InvalidParameterError
from ._budget import Budget
from ._neighbours import _MARGIN, _rcontext, _sum_up
from ._numerics import _context, _float_up, _log1p, _overflow_guard
from ._rdp import RDP_ORDERS, RdpCurve
from ._zcdp import ZcdpBudget


def _order_logs_at(am1: Decimal) -> Tuple[Decimal, Decimal, Decimal]:
    """(alpha - 1, ln(1 - 1/alpha), ln(alpha)) for alpha = 1 + am1, in the current context."""
    a = 1 + am1
    return am1, _log1p(-1 / a), a.ln()


@lru_cache(maxsize=4096)
def _order_logs(alpha: float) -> Tuple[Decimal, Decimal, Decimal]:
    """:func:`_order_logs_at` of a float order at 80 digits (alpha - 1 is exact for alpha < 2**53)."""
    with decimal.localcontext(_rcontext()):
        return _order_logs_at(Decimal(alpha) - 1)


def _eps_terms(
    tau: Decimal, logs: Tuple[Decimal, Decimal, Decimal], log_inv_delta: Decimal
) -> List[Decimal]:
    """The terms of the conversion at one order, in the current context: their sum is
    tau + ln(1-1/alpha) + (ln(1/delta) - ln(alpha))/(alpha-1), ``logs`` from
    :func:`_order_logs_at`. The one place of the formula (CKS 2020, Proposition 12)."""
    am1, log_ratio, log_alpha = logs
    return [tau, log_ratio, log_inv_delta / am1, -log_alpha / am1]


def _eps_at(tau: Decimal, alpha: float, log_inv_delta: Decimal) -> float:
    """Upper bound on tau + ln(1-1/alpha) + (ln(1/delta) - ln(alpha))/(alpha-1)."""
    with decimal.localcontext(_rcontext()):
        terms = _eps_terms(tau, _order_logs(alpha), log_inv_delta)
    return _sum_up(terms)


def _eps_at_real_order(tau: Decimal, am1: Decimal, log_inv_delta: Decimal) -> float:
    """:func:`_eps_at` at the real order ``alpha = 1 + am1`` (any ``am1 > 0``, exact)."""
    with decimal.localcontext(_rcontext()):
        terms = _eps_terms(tau, _order_logs_at(am1), log_inv_delta)
    return _sum_up(terms)


def _log_delta_up(tau: Decimal, alpha: float, epsilon: Decimal) -> Decimal:
    """Upper bound on (alpha-1)(tau - epsilon + ln(1-1/alpha)) - ln(alpha), in decimal."""
    am1, log_ratio, log_alpha = _order_logs(alpha)
    with decimal.localcontext(_rcontext()):
        terms = [am1 * tau, -am1 * epsilon, am1 * log_ratio, -log_alpha]
        total = sum(terms, Decimal(0))
        return total + sum((abs(t) for t in terms), Decimal(0)) * _MARGIN


def _exp_up(x: Decimal) -> float:
    """A float >= exp(x), for an upper bound x of the exponent."""
    with decimal.localcontext(_rcontext()):
        if x > 800:
            return math.inf
        return _float_up(x.exp() * (1 + _MARGIN))


def _curve_arg(curve: object) -> RdpCurve:
    if not isinstance(curve, RdpCurve):
        raise InvalidParameterError(
            f"curve: must be an RdpCurve; got {curve!r} of type {type(curve).__name__}", "curve"
        )
    return curve


def _zcdp_arg(budget: object) -> ZcdpBudget:
    if not isinstance(budget, ZcdpBudget):
        raise InvalidParameterError(
            f"budget: must be a ZcdpBudget; got {budget!r} of type {type(budget).__name__}",
            "budget",
        )
    return budget


def _result(epsilon: float, delta: float, name: str) -> Budget:
    if not math.isfinite(epsilon):
        raise InvalidParameterError(
            f"{name}: the guarantee gives no finite epsilon at this delta (every order is "
            "infinite or overflows)",
            name,
        )
    if not delta < 1.0:
        raise InvalidParameterError(
            f"{name}: the guarantee gives delta >= 1 at this epsilon, a vacuous guarantee", name
        )
    return Budget._unchecked(max(epsilon, 0.0), delta)


# --------------------------------------------------------------------------------------------
# RDP curves
# --------------------------------------------------------------------------------------------


def _rdp_to_dp(curve: RdpCurve, delta: float) -> Tuple[Budget, Optional[float]]:
    """:func:`rdp_to_dp` and the order used (None when epsilon is 0 because the curve is 0)."""
    if any(t == 0.0 for t in curve.epsilons):
        return Budget._unchecked(0.0, delta), None
    with decimal.localcontext(_rcontext()):
        log_inv_delta = -Decimal(delta).ln()
    best = math.inf
    best_order: Optional[float] = None
    for alpha, tau in zip(RDP_ORDERS, curve.epsilons):
        if math.isinf(tau):
            continue
        eps = _eps_at(Decimal(tau), alpha, log_inv_delta)
        if eps < best:
            best, best_order = eps, alpha
    return _result(best, delta, "curve"), best_order


@_overflow_guard
def rdp_to_dp(curve: RdpCurve, delta: float) -> Budget:
    r"""The :math:`(\varepsilon, \delta)` guarantee of an RDP curve at a given delta.

    :math:`\varepsilon = \min_\alpha \tau(\alpha) + \ln(1 - 1/\alpha) - (\ln\delta +
    \ln\alpha)/(\alpha-1)` over the orders of the curve (Canonne, Kamath and Steinke, NeurIPS
    2020, Proposition 12; Balle et al., AISTATS 2020, Theorem 21), clipped at 0 (the bound
    holds for every :math:`\varepsilon \ge 0` and :math:`\delta` decreases with
    :math:`\varepsilon`). A curve that is 0 at some order means identical output
    distributions: epsilon 0. The guarantee holds for the curve's neighbouring relation.

    Parameters
    ----------
    curve : RdpCurve
    delta : float
        In (0, 1).

    Returns
    -------
    Budget
        ``(epsilon, delta)``, epsilon rounded up: never below the exact value of the formula
        at the order used.

    Raises
    ------
    InvalidParameterError
        On a non-curve, a delta outside (0, 1), or a curve infinite at every order.

    Examples
    --------
    >>> from privlearn.accounting._rdp import rdp_gaussian
    >>> rdp_to_dp(rdp_gaussian(1.0), 1e-5).epsilon
    4.728...
    """
    c = _curve_arg(curve)
    d = check_delta(delta, zero_ok=False, exact=True)
    return _rdp_to_dp(c, d)[0]


@_overflow_guard
def rdp_delta(curve: RdpCurve, epsilon: float) -> Budget:
    r"""The :math:`(\varepsilon, \delta)` guarantee of an RDP curve at a given epsilon.

    :math:`\delta = \min_\alpha \exp((\alpha-1)(\tau(\alpha) - \varepsilon + \ln(1-1/\alpha))
    - \ln\alpha)` over the orders of the curve (Canonne, Kamath and Steinke, NeurIPS 2020,
    Proposition 12), for the curve's neighbouring relation.

    Parameters
    ----------
    curve : RdpCurve
    epsilon : float
        Finite, >= 0.

    Returns
    -------
    Budget
        ``(epsilon, delta)``, delta rounded up.

    Raises
    ------
    InvalidParameterError
        On a non-curve, a bad epsilon, or a resulting delta >= 1 (vacuous).
    """
    c = _curve_arg(curve)
    e = check_epsilon(epsilon, zero_ok=True, exact=True)
    if any(t == 0.0 for t in c.epsilons):
        return Budget._unchecked(e, 0.0)
    best = math.inf
    for alpha, tau in zip(RDP_ORDERS, c.epsilons):
        if math.isinf(tau):
            continue
        best = min(best, _exp_up(_log_delta_up(Decimal(tau), alpha, Decimal(e))))
    return _result(e, best, "curve")


# --------------------------------------------------------------------------------------------
# Searching the order
# --------------------------------------------------------------------------------------------


def _golden(
    f: Callable[[float], Any], a: float, b: float, *, steps: int = -1, width: float = 0.0
) -> Tuple[float, float, float, Any, float, Any]:
    """Golden-section search for a minimiser of f on [a, b] (only tightness depends on it).

    Stops after ``steps`` steps (``-1``: no limit) or once ``b - a <= width``; returns
    ``(a, b, x1, f(x1), x2, f(x2))`` of the final bracket.
    """
    g = (math.sqrt(5) - 1) / 2
    x1, x2 = b - g * (b - a), a + g * (b - a)
    f1, f2 = f(x1), f(x2)
    while steps != 0 and b - a > width:
        steps -= 1
        if f1 <= f2:
            b, x2, f2 = x2, x1, f1
            x1 = b - g * (b - a)
            f1 = f(x1)
        else:
            a, x1, f1 = x1, x2, f2
            x2 = a + g * (b - a)
            f2 = f(x2)
    return a, b, x1, f1, x2, f2


def _golden_min(f: Callable[[float], float], lo: float, hi: float, steps: int = 120) -> float:
    """A local minimiser of f on [lo, hi]: the midpoint after ``steps`` golden-section steps."""
    a, b, *_ = _golden(f, lo, hi, steps=steps)
    return (a + b) / 2


def _real_order_to_dp(
    tau: Callable[[Decimal], Decimal],
    tau_up: Callable[[Decimal], Decimal],
    delta: float,
    lo: float,
    hi: float,
    digits: int,
) -> float:
    """The conversion of a curve known at every real order, at a numerically optimised order.

    ``tau(c)`` is the curve at order ``alpha = 1 + c`` evaluated in the current context (for
    the search only), ``tau_up(c)`` an upper bound on it, called in the 80-digit context with a
    relative error below 1e-75 (as :func:`_sum_up` requires). The search is on ``ln(alpha -
    1)`` in ``[lo, hi]``: a grid of 49 points, then golden section around the best one until
    the bracket is narrower than 1e-9, on ``tau(c)`` plus the conversion terms
    (:func:`_eps_terms`) at ``digits`` digits; any order gives a valid bound. The formula is
    then evaluated at the order found with ``tau_up`` (:func:`_eps_at_real_order`): a float
    never below the exact bound at that order, clamped at 0.
    """
    with decimal.localcontext(_context(digits)):
        log_inv_delta = -Decimal(delta).ln()

    def f(x: float) -> Decimal:
        with decimal.localcontext(_context(digits)):
            c = Decimal(math.exp(x))
            return sum(_eps_terms(tau(c), _order_logs_at(c), log_inv_delta), Decimal(0))

    grid = [lo + (hi - lo) * i / 48 for i in range(49)]
    values = [f(x) for x in grid]
    i = min(range(len(grid)), key=values.__getitem__)
    _, _, x1, f1, x2, f2 = _golden(
        f, grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)], width=1e-9
    )
    best = min((values[i], grid[i]), (f1, x1), (f2, x2))[1]
    c = Decimal(math.exp(best))
    with decimal.localcontext(_rcontext()):
        upper = tau_up(c)
        log_inv_delta = -Decimal(delta).ln()
    return max(0.0, _eps_at_real_order(upper, c, log_inv_delta))


# --------------------------------------------------------------------------------------------
# zCDP
# --------------------------------------------------------------------------------------------


def _zcdp_eps_float(rho: float, log_inv_delta: float, t: float) -> float:
    """The CKS epsilon at alpha = 1 + e^t, in floats (for the search only)."""
    am1 = math.exp(t)
    alpha = 1 + am1
    return alpha * rho + log_inv_delta / am1 + math.log1p(-1 / alpha) - math.log(alpha) / am1


def _zcdp_to_dp(budget: ZcdpBudget, delta: float) -> Tuple[Budget, Optional[float]]:
    """:func:`zcdp_to_dp` and the order used (None for rho = 0)."""
    rho = budget.rho
    if rho == 0.0:
        return Budget._unchecked(0.0, delta), None
    log_inv = -math.log(delta)
    # Candidates: the classic order 1 + sqrt(ln(1/delta)/rho) (at which the CKS bound is below
    # rho + 2 sqrt(rho ln(1/delta))) and a golden-section minimiser of the CKS bound.
    classic = 1 + math.sqrt(log_inv / rho)
    candidates = [classic]
    try:
        t = _golden_min(lambda u: _zcdp_eps_float(rho, log_inv, u), -20.0, 40.0)
        candidates.append(1 + math.exp(t))
    except (OverflowError, ValueError):  # pragma: no cover - extreme inputs
        pass
    with decimal.localcontext(_rcontext()):
        log_inv_delta = -Decimal(delta).ln()
        r = Decimal(rho)
    best = math.inf
    best_order: Optional[float] = None
    for alpha in candidates:
        if not (math.isfinite(alpha) and 1.0 < alpha < 2.0**52):
            continue
        with decimal.localcontext(_rcontext()):
            tau = Decimal(alpha) * r
        eps = _eps_at(tau, alpha, log_inv_delta)
        if eps < best:
            best, best_order = eps, alpha
    return _result(best, delta, "budget"), best_order


@_overflow_guard
def zcdp_to_dp(budget: ZcdpBudget, delta: float) -> Budget:
    r"""The :math:`(\varepsilon, \delta)` guarantee of a :math:`\rho`-zCDP budget at a delta.

    :math:`\varepsilon = \inf_{\alpha > 1} \alpha\rho + (\ln(1/\delta) + (\alpha-1)\ln(1-1/\alpha)
    - \ln\alpha)/(\alpha-1)` (Canonne, Kamath and Steinke, NeurIPS 2020, Corollary 13),
    evaluated at a numerically chosen order and at :math:`\alpha = 1 + \sqrt{\ln(1/\delta)/\rho}`,
    whichever is smaller; the latter makes the result never worse than the classic
    :math:`\rho + 2\sqrt{\rho\ln(1/\delta)}` (Bun and Steinke, TCC 2016, Proposition 1.3). Clipped
    at 0. Holds for the budget's neighbouring relation.

    Parameters
    ----------
    budget : ZcdpBudget
    delta : float
        In (0, 1).

    Returns
    -------
    Budget
        ``(epsilon, delta)``, epsilon rounded up (never below the formula at the order used).

    Raises
    ------
    InvalidParameterError
        On a non-budget or a delta outside (0, 1).

    Examples
    --------
    >>> from privlearn.accounting._zcdp import ZcdpBudget
    >>> zcdp_to_dp(ZcdpBudget(0.5), 1e-5).epsilon
    4.728...
    """
    b = _zcdp_arg(budget)
    d = check_delta(delta, zero_ok=False, exact=True)
    return _zcdp_to_dp(b, d)[0]


@_overflow_guard
def zcdp_delta(budget: ZcdpBudget, epsilon: float) -> Budget:
    r"""The :math:`(\varepsilon, \delta)` guarantee of a :math:`\rho`-zCDP budget at an epsilon.

    :math:`\delta = \inf_{\alpha > 1} \exp((\alpha-1)(\alpha\rho - \varepsilon) +
    (\alpha-1)\ln(1-1/\alpha) - \ln\alpha)` (Canonne, Kamath and Steinke, NeurIPS 2020,
    Corollary 13), evaluated at a numerically chosen order and at
    :math:`\alpha = (\varepsilon + \rho)/(2\rho)` (the minimiser of the quadratic part), whichever
    is smaller. Holds for the budget's neighbouring relation.

    Parameters
    ----------
    budget : ZcdpBudget
    epsilon : float
        Finite, >= 0.

    Returns
    -------
    Budget
        ``(epsilon, delta)``, delta rounded up.

    Raises
    ------
    InvalidParameterError
        On a non-budget, a bad epsilon, or a resulting delta >= 1 (vacuous).
    """
    b = _zcdp_arg(budget)
    e = check_epsilon(epsilon, zero_ok=True, exact=True)
    rho = b.rho
    if rho == 0.0:
        return Budget._unchecked(e, 0.0)

    def exponent(t: float) -> float:
        am1 = math.exp(t)
        alpha = 1 + am1
        return am1 * (alpha * rho - e) + am1 * math.log1p(-1 / alpha) - math.log(alpha)

    candidates = []
    quad = (e + rho) / (2 * rho)
    if quad > 1.0:
        candidates.append(quad)
    try:
        t = _golden_min(exponent, -20.0, 40.0)
        candidates.append(1 + math.exp(t))
    except (OverflowError, ValueError):  # pragma: no cover - extreme inputs
        pass
    candidates.append(2.0)
    with decimal.localcontext(_rcontext()):
        r = Decimal(rho)
    best = math.inf
    for alpha in candidates:
        if not (math.isfinite(alpha) and 1.0 < alpha < 2.0**52):
            continue
        with decimal.localcontext(_rcontext()):
            tau = Decimal(alpha) * r
        best = min(best, _exp_up(_log_delta_up(tau, alpha, Decimal(e))))
    return _result(e, best, "budget")
