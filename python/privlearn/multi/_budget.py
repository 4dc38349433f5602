r"""Splitting one total budget over ``k`` concepts learned separately (seed 002).

:func:`per_concept_budget` gives each concept's budget and the composed total by one of several
composition theorems, the split :class:`~privlearn.multi.IndependentMultiLearner` and
:class:`~privlearn.multi.SanitizerMultiLearner` run with and charge (Bun, Nissim and Stemmer,
Observation 3.2; errata 002-4, 002-5):

* ``"basic"``: Dwork and Roth (2014), Theorem 3.16;
* ``"advanced"``: Dwork, Rothblum and Vadhan (FOCS 2010), Dwork and Roth Theorem 3.20;
* ``"optimal"``: Kairouz, Oh and Viswanath, "The Composition Theorem for Differential
  Privacy" (ICML 2015), Theorem 3.3 (tight for arbitrary ``(epsilon, delta)``-DP mechanisms);
* ``"bounded-range"``: the adaptive composition of exponential mechanisms through their
  bounded-range property (Durfee and Rogers, NeurIPS 2019; Dong, Durfee and Rogers, "Optimal
  Differential Privacy Composition for Exponential Mechanisms", ICML 2020), as computed by
  :func:`privlearn.accounting._bounded_range.compose_bounded_range`;
* ``"auto"``: the tightest of these that is valid for the base learner.

The splits are functions of public parameters only (``epsilon``, ``delta``, ``k`` and what the
base learner certifies), rounded so that the composed total never exceeds the budget asked for.
Every theorem here holds for *adaptively* chosen mechanisms and for any neighbouring relation
the mechanisms share (replace-one throughout :mod:`privlearn.multi`).
"""

from __future__ import annotations

import functools
import math
from typing import Callable, Tuple

from .._validate import check_choice, check_delta, check_epsilon, check_integer
from ..accounting import Budget, compose_advanced, compose_basic
from ..accounting._bounded_range import compose_bounded_range, max_bounded_range_epsilon
from ..accounting._composition import compose_optimal
from ..accounting._numerics import _largest_fitting
from ..errors import InvalidParameterError
from ._inputs import _error

#: Composition theorems a composite learner can split its budget by.
COMPOSITIONS: Tuple[str, ...] = ("auto", "basic", "advanced", "optimal", "bounded-range")


@functools.lru_cache(maxsize=512)
def _basic_split(epsilon: float, delta: float, k: int) -> Tuple[Budget, Budget]:
    per = Budget(epsilon, delta) / k
    return per, compose_basic([per] * k)


def _fits(total: Callable[[float], Budget], epsilon: float) -> Callable[[float], bool]:
    def fits(e: float) -> bool:
        try:
            return total(e).epsilon <= epsilon
        except InvalidParameterError:  # the bound overflows a float: far too large
            return False

    return fits


def _too_small(k: int, name: str) -> InvalidParameterError:
    return _error("epsilon", f"is too small to split over k = {k} concepts by {name} composition")


@functools.lru_cache(maxsize=512)
def _advanced_split(epsilon: float, delta: float, k: int, pure: bool) -> Tuple[Budget, Budget]:
    slack = delta if pure else delta / 2.0
    per_delta = 0.0 if pure else (Budget(0.0, delta) / (2 * k)).delta

    def total(e: float) -> Budget:
        return compose_advanced(Budget(e, per_delta), k, slack)

    lo = _largest_fitting(epsilon, _fits(total, epsilon))
    if lo == 0.0:
        raise _too_small(k, "advanced")
    return Budget(lo, per_delta), total(lo)


@functools.lru_cache(maxsize=512)
def _optimal_split(epsilon: float, delta: float, k: int, pure: bool) -> Tuple[Budget, Budget]:
    slack = delta if pure else delta / 2.0
    per_delta = 0.0 if pure else (Budget(0.0, delta) / (2 * k)).delta

    def total(e: float) -> Budget:
        return compose_optimal(Budget(e, per_delta), k, slack)

    lo = _largest_fitting((Budget(epsilon) / k).epsilon, _fits(total, epsilon))
    if lo == 0.0:  # pragma: no cover - k * e fits for e = epsilon / k rounded down
        raise _too_small(k, "optimal")
    out = total(lo)
    if out.delta > delta:  # pragma: no cover - 1 - (1 - d0)^k (1 - slack) < k d0 + slack
        raise _too_small(k, "optimal")
    return Budget(lo, per_delta), out


@functools.lru_cache(maxsize=512)
def _bounded_range_split(epsilon: float, delta: float, k: int) -> Tuple[Budget, Budget]:
    per = max_bounded_range_epsilon(Budget(epsilon, delta), k)
    out = compose_bounded_range(per, k, delta)
    if per <= 0.0 or out.epsilon > epsilon:  # pragma: no cover - checked by the inverse
        raise _too_small(k, "bounded-range")
    return Budget(per, 0.0), out


def _merit(per: Budget) -> float:
    """What ``"auto"`` maximises: ``eps_0`` for a pure base learner, and
    ``eps_0 / ln(1/delta_0)`` for an approximate one (the stability learners' sample size
    scales as ``ln(1/delta_0) / eps_0``: Bun, Nissim and Stemmer, Theorems 3.12, 3.13)."""
    if per.delta == 0.0:
        return per.epsilon
    return per.epsilon / -math.log(per.delta)


def _resolve(
    epsilon: float,
    delta: float,
    k: int,
    composition: str,
    pure: bool,
    bounded_range: bool,
) -> Tuple[str, Budget, Budget]:
    """(the composition used, per-concept budget, composed total); arguments validated."""
    epsilon = check_epsilon(epsilon)
    composition = str(check_choice(composition, "composition", COMPOSITIONS))
    k = check_integer(k, "k", 1)
    pure = bool(pure)
    bounded_range = bool(bounded_range)
    if bounded_range and not pure:
        raise _error(
            "bounded_range",
            "a bounded-range base learner is pure epsilon-DP (it ignores delta): pass pure=True",
        )
    if composition == "bounded-range" and not bounded_range:
        raise _error(
            "composition",
            "'bounded-range' composition holds only for base learners whose run on each "
            "concept is one exponential mechanism (epsilon-bounded-range: Durfee and Rogers "
            "2019); this base learner is not one (permute-and-flip, report-noisy-max with "
            "Laplace noise and the stability learners are not known to be bounded-range): use "
            "'optimal' or 'auto'",
        )
    delta = check_delta(delta, zero_ok=not (composition == "advanced" or not pure))
    if composition == "auto":
        basic = ("basic",) + _basic_split(epsilon, 0.0 if pure else delta, k)
        if k == 1 or delta == 0.0:
            # Nothing to compose (k = 1), or a pure total: basic composition is optimal.
            return basic
        if bounded_range:
            best = ("bounded-range",) + _bounded_range_split(epsilon, delta, k)
        else:
            best = ("optimal",) + _optimal_split(epsilon, delta, k, pure)
        return best if _merit(best[1]) > _merit(basic[1]) else basic
    if composition == "basic" or (pure and delta == 0.0):
        # With delta = 0 every theorem here is basic composition (Kairouz, Oh and Viswanath's
        # i = 0; a pure total for bounded-range mechanisms).
        return ("basic",) + _basic_split(epsilon, 0.0 if pure else delta, k)
    if composition == "advanced":
        return ("advanced",) + _advanced_split(epsilon, delta, k, pure)
    if composition == "optimal":
        return ("optimal",) + _optimal_split(epsilon, delta, k, pure)
    return ("bounded-range",) + _bounded_range_split(epsilon, delta, k)


def per_concept_budget(
    epsilon: float,
    delta: float,
    k: int,
    *,
    composition: str = "basic",
    pure: bool = True,
    bounded_range: bool = False,
) -> Tuple[Budget, Budget]:
    r"""Split a total budget over ``k`` concepts learned separately (Bun, Nissim and Stemmer,
    Observation 3.2; errata 002-5).

    Every split below holds for ``k`` mechanisms chosen adaptively (each may depend on the
    outputs of the earlier ones) and for any neighbouring relation they share (replace-one in
    :mod:`privlearn.multi`). The per-concept epsilon is the largest double found by bisection
    (to adjacent doubles; for ``"bounded-range"`` to a relative ``1e-12``, by
    :func:`~privlearn.accounting._bounded_range.max_bounded_range_epsilon`), returning the lower
    end, whose composed total, computed by the named function (exact or high-precision
    arithmetic, rounded *up*), was checked to be at most ``epsilon``; so the total never
    exceeds ``(epsilon, delta)``.

    * ``"basic"``: each concept gets ``(epsilon/k, delta/k)`` (``(epsilon/k, 0)`` for a pure
      base learner), rounded down; the total is their sum (basic composition, Dwork and Roth
      Theorem 3.16), :func:`~privlearn.accounting.compose_basic`.
    * ``"advanced"``: each concept gets ``(eps_0, delta_0)`` with ``delta_0 = delta/(2k)`` and
      slack ``delta' = delta/2`` (for a pure base learner ``delta_0 = 0`` and
      ``delta' = delta``), ``eps_0`` the largest with
      ``sqrt(2k ln(1/delta')) eps_0 + k eps_0 (e^eps_0 - 1) <= epsilon`` as computed by
      :func:`~privlearn.accounting.compose_advanced` (Dwork, Rothblum and Vadhan 2010; Dwork and
      Roth Theorem 3.20).
    * ``"optimal"``: the same ``delta_0`` and slack, ``eps_0`` the largest whose ``k``-fold
      composition fits by :func:`~privlearn.accounting.compose_optimal`, the exact optimal
      composition of ``(eps_0, delta_0)``-DP mechanisms (Kairouz, Oh and Viswanath, ICML 2015,
      Theorem 3.3); the total delta is ``1 - (1 - delta_0)^k (1 - delta') <= delta``. Never
      worse than ``"advanced"``. For arbitrary pure or approximate DP mechanisms no valid
      bound is smaller (the theorem is tight), so Rényi accounting of pure DP cannot improve
      on it.
    * ``"bounded-range"`` (``bounded_range=True`` only): each concept gets ``(eps_0, 0)``,
      ``eps_0`` the largest with
      :func:`~privlearn.accounting._bounded_range.compose_bounded_range` ``(eps_0, k, delta)``
      at most ``epsilon`` (:func:`~privlearn.accounting._bounded_range.max_bounded_range_epsilon`).
      Valid only when each concept's run is one exponential mechanism that is ``eps_0``-DP
      (McSherry and Talwar, weights ``exp(eps_0 u / (2 sensitivity))``): such a mechanism is
      ``eps_0``-bounded-range (Durfee and Rogers, NeurIPS 2019), and ``k`` adaptively chosen
      ``eps_0``-BR mechanisms compose through the exact Rényi curve of a BR mechanism (Dong,
      Durfee and Rogers, ICML 2020, whose ``eps^2/8``-zCDP bound it refines), converted to
      ``(epsilon, delta)`` (Balle et al. 2020, Theorem 21), and never worse than
      Kairouz-Oh-Viswanath's bound for pure DP. At ``k = 1000``, ``(1, 1e-6)``: ``eps_0``
      about 0.01397, against 0.0075 (``"optimal"``), 0.0058 (``"advanced"``) and 0.001
      (``"basic"``).
    * ``"auto"``: ``"basic"`` when ``k = 1`` (nothing to compose) or ``delta = 0`` (a pure
      total: basic composition is then optimal); otherwise ``"bounded-range"`` for a
      bounded-range base learner and ``"optimal"`` for any other, unless that split is not
      better than ``"basic"``'s (then ``"basic"``, which spends no more delta per concept).
      "Better" means a larger ``eps_0`` for a pure base learner, and a larger
      ``eps_0 / ln(1/delta_0)`` for an approximate one (the stability learners' sample size
      scales as ``ln(1/delta_0) / eps_0``): a public criterion. For a pure base learner the
      result gives each concept at least the epsilon of ``"advanced"`` and ``"basic"``.

    With ``delta = 0`` and a pure base learner, ``"optimal"`` and ``"bounded-range"`` are
    basic composition (the only pure bound; Kairouz, Oh and Viswanath's ``i = 0``).

    Parameters
    ----------
    epsilon : float
        Total epsilon, finite and > 0.
    delta : float
        Total delta in ``[0, 1)`` (``> 0`` for advanced composition or an approximate base).
    k : int
        Number of concepts, >= 1.
    composition : {"basic", "advanced", "optimal", "bounded-range", "auto"}, default "basic"
    pure : bool, default True
        Whether the base learner is pure DP (then no delta goes to the concepts).
    bounded_range : bool, default False
        Whether the base learner's run on each concept is one exponential mechanism that is
        ``epsilon``-DP for the epsilon it is given (then it is ``epsilon``-bounded-range).
        Requires ``pure``.

    Returns
    -------
    (Budget, Budget)
        The budget of each concept, and the total guarantee of the ``k`` of them composed (at
        most ``(epsilon, delta)``).

    Raises
    ------
    InvalidParameterError
        On a bad ``epsilon``, ``delta``, ``k`` or ``composition``, on ``"bounded-range"``
        without ``bounded_range=True``, or on ``bounded_range=True`` with ``pure=False``.

    Examples
    --------
    >>> from privlearn.multi import per_concept_budget
    >>> per_concept_budget(1.0, 0.0, 4)
    (Budget(epsilon=0.25, delta=0.0), Budget(epsilon=1.0, delta=0.0))
    >>> each, total = per_concept_budget(1.0, 1e-6, 1000, composition="advanced")
    >>> round(each.epsilon, 6), total.epsilon <= 1.0, total.delta <= 1e-6
    (0.005812, True, True)
    >>> each, total = per_concept_budget(
    ...     1.0, 1e-6, 1000, composition="bounded-range", bounded_range=True
    ... )
    >>> round(each.epsilon, 5), total.epsilon <= 1.0, total.delta <= 1e-6
    (0.01397, True, True)
    """
    _, per, total = _resolve(epsilon, delta, k, composition, pure, bounded_range)
    return per, total
