"""Splitting one total budget over ``k`` concepts learned separately (seed 002).

:func:`per_concept_budget` gives each concept's budget and the composed total by basic or
advanced composition (Bun, Nissim and Stemmer, Observation 3.2; errata 002-4, 002-5), the split
:class:`~privlearn.multi.IndependentMultiLearner` and
:class:`~privlearn.multi.SanitizerMultiLearner` run with and charge. The splits are functions of
public parameters only, rounded so that the composed total never exceeds the budget asked for.
"""

from __future__ import annotations

import functools
from typing import Tuple

from .._validate import check_choice, check_delta, check_epsilon, check_integer
from ..accounting import Budget, compose_advanced, compose_basic
from ..errors import InvalidParameterError
from ._inputs import _error

#: Composition theorems a composite learner can split its budget by.
COMPOSITIONS: Tuple[str, ...] = ("basic", "advanced")


@functools.lru_cache(maxsize=512)
def _basic_split(epsilon: float, delta: float, k: int) -> Tuple[Budget, Budget]:
    per = Budget(epsilon, delta) / k
    return per, compose_basic([per] * k)


@functools.lru_cache(maxsize=512)
def _advanced_split(epsilon: float, delta: float, k: int, pure: bool) -> Tuple[Budget, Budget]:
    slack = delta if pure else delta / 2.0
    per_delta = 0.0 if pure else (Budget(0.0, delta) / (2 * k)).delta

    def total(e: float) -> Budget:
        return compose_advanced(Budget(e, per_delta), k, slack)

    def fits(e: float) -> bool:
        try:
            return total(e).epsilon <= epsilon
        except InvalidParameterError:  # the bound overflows a float: far too large
            return False

    lo, hi = 0.0, epsilon
    while fits(hi):  # only when sqrt(2k ln(1/slack)) < 1
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mid <= lo or mid >= hi:
            break
        if fits(mid):
            lo = mid
        else:
            hi = mid
    if lo == 0.0:
        raise _error(
            "epsilon", f"is too small to split over k = {k} concepts by advanced composition"
        )
    per = Budget(lo, per_delta)
    return per, total(lo)


def per_concept_budget(
    epsilon: float, delta: float, k: int, *, composition: str = "basic", pure: bool = True
) -> Tuple[Budget, Budget]:
    r"""Split a total budget over ``k`` concepts learned separately (Bun, Nissim and Stemmer,
    Observation 3.2; errata 002-5).

    * ``"basic"``: each concept gets ``(epsilon/k, delta/k)`` (``(epsilon/k, 0)`` for a pure
      base learner), rounded down; the total is their sum (basic composition, Dwork and Roth
      Theorem 3.16), :func:`~privlearn.accounting.compose_basic`.
    * ``"advanced"``: each concept gets ``(eps_0, delta_0)`` with ``delta_0 = delta/(2k)`` and
      slack ``delta' = delta/2`` (for a pure base learner ``delta_0 = 0`` and
      ``delta' = delta``), and ``eps_0`` is the largest double (found by bisection) with
      ``sqrt(2k ln(1/delta')) eps_0 + k eps_0 (e^eps_0 - 1) <= epsilon`` as computed by
      :func:`~privlearn.accounting.compose_advanced` (Dwork, Rothblum and Vadhan 2010; Dwork and
      Roth Theorem 3.20), which gives the total. This gives each concept more than basic
      composition's ``epsilon/k`` only when ``k`` exceeds about ``2 ln(1/delta')``.

    Parameters
    ----------
    epsilon : float
        Total epsilon, finite and > 0.
    delta : float
        Total delta in ``[0, 1)`` (``> 0`` for advanced composition or an approximate base).
    k : int
        Number of concepts, >= 1.
    composition : {"basic", "advanced"}
    pure : bool, default True
        Whether the base learner is pure DP (then no delta goes to the concepts).

    Returns
    -------
    (Budget, Budget)
        The budget of each concept, and the total guarantee of the ``k`` of them composed (at
        most ``(epsilon, delta)``).

    Examples
    --------
    >>> from privlearn.multi import per_concept_budget
    >>> per_concept_budget(1.0, 0.0, 4)
    (Budget(epsilon=0.25, delta=0.0), Budget(epsilon=1.0, delta=0.0))
    >>> each, total = per_concept_budget(1.0, 1e-6, 1000, composition="advanced")
    >>> round(each.epsilon, 6), total.epsilon <= 1.0, total.delta <= 1e-6
    (0.005812, True, True)
    """
    epsilon = check_epsilon(epsilon)
    composition = str(check_choice(composition, "composition", COMPOSITIONS))
    k = check_integer(k, "k", 1)
    delta = check_delta(delta, zero_ok=not (composition == "advanced" or not pure))
    if composition == "basic":
        return _basic_split(epsilon, 0.0 if pure else delta, k)
    return _advanced_split(epsilon, delta, k, bool(pure))
