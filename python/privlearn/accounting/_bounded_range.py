r"""Composition of bounded-range mechanisms (the exponential mechanism) under adaptive choice.

A mechanism :math:`M` is :math:`\varepsilon`-bounded-range (:math:`\varepsilon`-BR; Durfee and
Rogers, NeurIPS 2019) if for all neighbouring :math:`x, x'` and outputs :math:`y, y'`,
:math:`\ln\frac{P[M(x)=y]}{P[M(x')=y]} - \ln\frac{P[M(x)=y']}{P[M(x')=y']} \le \varepsilon`: the
privacy loss lies in an interval :math:`[t - \varepsilon, t]` of width :math:`\varepsilon`
(not :math:`2\varepsilon` as for pure :math:`\varepsilon`-DP). The exponential mechanism that
is :math:`\varepsilon`-DP is :math:`\varepsilon`-BR. This module turns the BR property into
(epsilon, delta) guarantees for ``k`` such mechanisms chosen **adaptively** (each may depend on
the outputs of the earlier ones), through the exact Rényi curve of a BR mechanism, and inverts
the bound (the largest per-mechanism epsilon that fits a total). High-precision decimal
arithmetic, results rounded to the safe side.
"""

from __future__ import annotations

import math
from decimal import Decimal

from .._validate import check_delta, check_epsilon, check_integer
from ..errors import InvalidParameterError
from ._budget import Budget, _budget_arg
from ._composition import compose_optimal
from ._convert import _real_order_to_dp
from ._numerics import BISECT_RTOL, _largest_fitting, _overflow_guard
from ._rdp import _br_renyi, _br_renyi_up, _extra_digits

# Above this per-mechanism epsilon the Rényi route cannot beat basic composition (and e**eps
# would only cost time): the bound is then min(k * eps, Kairouz-Oh-Viswanath).
_EPS_RDP_MAX = 50.0

#: Above this many mechanisms :func:`compose_bounded_range` skips Kairouz-Oh-Viswanath (whose
#: cost grows like sqrt(k)) and takes basic composition as the second bound.
_KOV_MAX_K = 10**6


@_overflow_guard
def compose_bounded_range(epsilon: float, k: int, delta: float) -> Budget:
    r"""(epsilon, delta) of ``k`` adaptively chosen ``epsilon``-bounded-range mechanisms.

    The bound is the smallest of three valid ones, each rounded *up*:

    1. **Rényi route** (the point of this function). An :math:`\varepsilon`-BR mechanism is
       :math:`(\alpha, R_\varepsilon(\alpha))`-RDP for every :math:`\alpha > 1` with

       .. math::

           R_\varepsilon(\alpha) = \max_{t \in [0, \varepsilon]}
               D_\alpha(RR_{\varepsilon,t}) = \frac{1}{c}\,
               \ln\frac{u^c\,(e^\varepsilon - e^{-c\varepsilon} - u(1 - e^{-c\varepsilon}))}
                        {e^\varepsilon - 1},
           \quad c = \alpha - 1,\ u = \frac{c\,(e^\varepsilon - e^{-c\varepsilon})}
                                            {\alpha\,(1 - e^{-c\varepsilon})},

       where :math:`RR_{\varepsilon,t}` is the generalised randomized response of Dong, Durfee
       and Rogers (2020), whose privacy loss takes the two values :math:`t` and
       :math:`t - \varepsilon`: the curve of
       :func:`privlearn.accounting._rdp.rdp_bounded_range` (the same code, evaluated at every
       real order rather than at the grid), where the proof is sketched. This is exact, not a
       bound: among pairs whose privacy loss lies in :math:`[t - \varepsilon, t]`, the
       two-point one maximises every Rényi divergence (convexity, see
       :func:`privlearn.accounting._rdp._br_renyi`), and :math:`RR_{\varepsilon,t}` is itself
       :math:`\varepsilon`-BR. It is at most :math:`\alpha\varepsilon^2/8`, the
       :math:`\varepsilon^2/8`-zCDP bound of Dong, Durfee and Rogers (2020) and Cesar and
       Rogers (2021), and slightly below it. Rényi DP composes under adaptive choice by
       adding the curves (Mironov, CSF 2017, Proposition 1), and :math:`k R_\varepsilon(\alpha)`
       is converted with Balle, Barthe, Gaboardi, Hsu and Sato (AISTATS 2020, Theorem 21; the
       same conversion as Canonne, Kamath and Steinke 2020 for zCDP):
       :math:`\tilde\varepsilon = k R_\varepsilon(\alpha) + (\ln(1/\delta) + (\alpha - 1)
       \ln(1 - 1/\alpha) - \ln\alpha)/(\alpha - 1)`, at a numerically optimised real
       :math:`\alpha` (every :math:`\alpha` gives a valid bound, so the search need not be
       exact; only the evaluation at the chosen :math:`\alpha` is rounded up), by
       :func:`privlearn.accounting._convert._real_order_to_dp`, the conversion code of
       :func:`~privlearn.accounting._convert.rdp_to_dp` at a real order.
    2. :func:`compose_optimal` of ``k`` pure ``epsilon``-DP mechanisms (an
       :math:`\varepsilon`-BR mechanism is :math:`\varepsilon`-DP), at ``delta_slack = delta``.
    3. Basic composition, ``k * epsilon``.

    So the result is never worse than ``compose_optimal(Budget(epsilon), k, delta)``.

    **Not the optimum of Dong, Durfee and Rogers.** Their ICML 2020 paper ("Optimal
    Differential Privacy Composition for Exponential Mechanisms") gives the *optimal*
    (epsilon, delta) of ``k`` BR mechanisms, efficiently computable (a maximum over the BR
    parameter ``t`` of a binomial sum) for **non-adaptive** composition only; it shows that
    adaptive choice costs strictly more, and its optimal adaptive formula is a recursion
    without an efficient evaluation. That non-adaptive formula is not valid for the adaptive
    use an accountant allows, so it is not used here. Because the composition of ``k`` copies
    of :math:`RR_{\varepsilon,t}` is itself a (non-adaptive) composition of BR mechanisms, the
    non-adaptive optimum is a lower bound on any valid bound: at ``k = 1000``,
    ``delta = 1e-6``, ``epsilon = 0.014``, this function returns about 1.0025, and ``k``
    copies of the worst :math:`RR_{\varepsilon,t}` need a delta above ``1e-6`` at any total
    epsilon below about 0.93: at most about 8 per cent are left to a tighter adaptive
    analysis.

    **Which mechanisms.** Any :math:`\varepsilon`-BR mechanism: the exponential mechanism run
    with the parameter that makes it :math:`\varepsilon`-DP (Durfee and Rogers 2019: it is
    then :math:`\varepsilon`-BR), and report-noisy-max with Gumbel noise (the same
    distribution as the exponential mechanism). **Not** permute-and-flip or report-noisy-max
    with Laplace or exponential noise: no bounded-range result for them was found (they are
    :math:`\varepsilon`-DP, hence :math:`2\varepsilon`-BR only, by the definition); charge them
    through :func:`compose_optimal`, or as ``2 * epsilon``-BR here. The neighbouring relation
    is that of the mechanisms' own guarantees (replace-one throughout privlearn); the
    composition holds for any relation shared by all ``k`` mechanisms.

    **Numerics.** The curve is evaluated with ``80 + 2 * max(0, ceil(-log10(epsilon))) + 10``
    digits (the divergence is of order :math:`\varepsilon^2` while its terms are of order
    :math:`\ln(1/\varepsilon)`) plus an explicit bound on its rounding error
    (:func:`privlearn.accounting._rdp._br_renyi_up`); the conversion terms at 80 digits with the
    margin of :func:`privlearn.accounting._neighbours._sum_up`; the result is rounded up, so it
    is never below the bound at the chosen :math:`\alpha`. The search for :math:`\alpha` uses
    ``20 + 2 * max(0, ceil(-log10(epsilon))) + 10`` digits. About 100 evaluations of the
    curve: a few tens of milliseconds.

    Parameters
    ----------
    epsilon : float
        The bounded-range parameter of each mechanism, >= 0 (an exponential mechanism that is
        ``epsilon``-DP).
    k : int
        Number of mechanisms, >= 1.
    delta : float
        The delta of the total, in (0, 1) (with ``delta = 0`` the answer is ``k * epsilon``,
        basic composition).

    Returns
    -------
    Budget
        ``(total_epsilon, delta)``, the epsilon rounded up.

    Raises
    ------
    InvalidParameterError
        On ``epsilon`` not finite or negative, ``k < 1``, ``delta`` outside (0, 1).

    Examples
    --------
    >>> from privlearn.accounting._bounded_range import compose_bounded_range
    >>> compose_bounded_range(0.014, 1000, 1e-6)
    Budget(epsilon=1.0024..., delta=1e-06)
    """
    epsilon = check_epsilon(epsilon, zero_ok=True)
    k = check_integer(k, "k", 1)
    delta = check_delta(delta, zero_ok=False)
    # KOV walks O(sqrt(k)) terms of a binomial sum: beyond _KOV_MAX_K mechanisms the RDP
    # route is far tighter anyway, and basic composition (k * epsilon) stands in for it.
    if k <= _KOV_MAX_K:
        kov = compose_optimal(Budget(epsilon), k, delta)  # also <= k * epsilon rounded up
    else:
        kov = Budget._unchecked((k * Budget(epsilon)).epsilon, delta)  # rounded up
    if epsilon == 0.0 or epsilon > _EPS_RDP_MAX:
        return kov
    eps = min(kov.epsilon, _rdp_epsilon(epsilon, k, delta))
    return Budget._unchecked(eps, delta)


def _rdp_epsilon(epsilon: float, k: int, delta: float) -> float:
    """The Rényi-route bound (1. in :func:`compose_bounded_range`), clamped at 0, rounded up."""
    # The optimum is near alpha - 1 = sqrt(8 ln(1/delta) / (k eps^2)) (the zCDP optimum):
    # search ln(alpha - 1) in a wide bracket around it (any alpha gives a valid bound).
    centre = 0.5 * (math.log(8.0) + math.log(math.log(1.0 / delta) + 1.0) - math.log(k))
    centre -= math.log(epsilon)
    lo, hi = min(centre - 12.0, -8.0), max(centre + 6.0, 2.0)
    e = Decimal(epsilon)
    return _real_order_to_dp(
        lambda c: k * _br_renyi(e, c),
        lambda c: k * _br_renyi_up(epsilon, c),
        delta,
        lo,
        hi,
        20 + _extra_digits(epsilon),
    )


def max_bounded_range_epsilon(total: Budget, k: int) -> float:
    r"""The largest per-mechanism BR epsilon whose ``k``-fold composition fits in ``total``.

    The inverse of :func:`compose_bounded_range`: the largest float ``epsilon`` found with
    ``compose_bounded_range(epsilon, k, total.delta).epsilon <= total.epsilon``, so ``k``
    adaptively chosen ``epsilon``-BR mechanisms (exponential mechanisms that are each
    ``epsilon``-DP) are together ``total``-DP. With ``total.delta == 0`` it is
    ``total.epsilon / k`` rounded down (basic composition is then optimal).

    Bisection on ``epsilon`` (the bound grows with ``epsilon``), started from the basic split
    ``total.epsilon / k`` (always feasible) and an upper end found by doubling; it stops when
    the bracket is narrower than a relative ``1e-12``. The returned value is the lower end of
    the bracket, for which the composition was computed and checked to fit: the result is
    **always feasible**, and below the exact inverse by at most a relative ``1e-12``.

    Parameters
    ----------
    total : Budget
        The total guarantee to meet.
    k : int
        Number of mechanisms, >= 1.

    Returns
    -------
    float
        The per-mechanism epsilon (rounded down).

    Raises
    ------
    InvalidParameterError
        If ``total`` is not a Budget or ``k < 1``.

    Examples
    --------
    >>> from privlearn.accounting import Budget
    >>> from privlearn.accounting._bounded_range import max_bounded_range_epsilon
    >>> round(max_bounded_range_epsilon(Budget(1.0, 1e-6), 1000), 5)
    0.01397
    """
    total = _budget_arg(total, "total")
    k = check_integer(k, "k", 1)
    split = (total / k).epsilon  # basic composition, rounded down
    if total.delta == 0.0 or total.epsilon == 0.0:
        return split

    def fits(eps: float) -> bool:
        try:
            return compose_bounded_range(eps, k, total.delta).epsilon <= total.epsilon
        except InvalidParameterError:  # epsilon too large for the arithmetic
            return False

    return _largest_fitting(split, fits, BISECT_RTOL)
