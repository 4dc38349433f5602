r"""Composition theorems for :math:`(\varepsilon, \delta)` guarantees, and group privacy.

The guarantee of several mechanisms run on the same data (:func:`compose_basic`,
:func:`compose_advanced`, :func:`compose_optimal`), of mechanisms run on disjoint parts of it
(:func:`compose_parallel`, used by the composite learners), and of one mechanism for datasets
that differ in ``k`` records (:func:`group_privacy`). Every bound is computed exactly or in
high-precision decimal arithmetic and rounded *up*.
"""

from __future__ import annotations

import decimal
import math
from decimal import Decimal
from fractions import Fraction
from typing import Iterable

from .._validate import check_delta, check_integer
from ..errors import InvalidParameterError
from ._budget import Budget, _budget_arg, _budget_up
from ._numerics import (
    _DIGITS,
    _context,
    _Exact,
    _expm1,
    _inflate,
    _ln_binomial,
    _log1p,
    _overflow_guard,
    _up,
)


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
    k = check_integer(k, "k", 1)
    slack = check_delta(delta_slack, "delta_slack", exact=True)
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
    k = check_integer(k, "k", 1)
    slack = check_delta(delta_slack, "delta_slack", exact=True)
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
# Parallel composition
# --------------------------------------------------------------------------------------------


def compose_parallel(budgets: Iterable[Budget]) -> Budget:
    r"""Parallel composition: mechanisms run on **disjoint** parts of the data, each part chosen
    independently of the data, with guarantees :math:`(\varepsilon_i, \delta_i)`, are jointly
    :math:`(\max_i \varepsilon_i, \max_i \delta_i)`-DP for replace-one neighbours (one record
    lies in one part; McSherry 2009, Theorem 4). Exact (no rounding).
    """
    items = list(budgets)
    if not items or not all(isinstance(b, Budget) for b in items):
        raise InvalidParameterError("budgets: need at least one Budget", "budgets")
    return Budget(max(b.epsilon for b in items), max(b.delta for b in items))


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
    k = check_integer(k, "k", 1)
    if k == 1:
        return budget
    dlt: _Exact = Fraction(0)
    if budget.delta > 0.0:
        with decimal.localcontext(_context(_DIGITS + len(str(k)))):
            dlt = _up(k * ((k - 1) * Decimal(budget.epsilon)).exp() * Decimal(budget.delta))
    return _budget_up(k * Fraction(budget.epsilon), dlt, "k", "group guarantee")
