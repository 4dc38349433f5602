"""Calibration of composite releases to a total ``(epsilon, delta)`` through zCDP.

A learner that makes several Gaussian releases (sufficient statistics, gradient steps, boosting
rounds) fixes the noise of each and proves its total ``(epsilon, delta)`` by composing their
zCDP guarantees (Bun and Steinke, TCC 2016, Lemma 1.7: rhos add, adaptively) and converting once
(:func:`~privlearn.accounting._convert.zcdp_to_dp`, Canonne, Kamath and Steinke, NeurIPS 2020,
Corollary 13). :func:`zcdp_rho_for` gives the largest total ``rho`` that conversion maps to at most
``epsilon``; the learner splits it between its releases.
"""

from __future__ import annotations

import functools

from .._validate import check_delta, check_epsilon
from ._convert import zcdp_to_dp
from ._neighbours import REPLACE_ONE, _neighbours_arg
from ._zcdp import ZcdpBudget

__all__ = ["zcdp_rho_for"]


def zcdp_rho_for(epsilon: float, delta: float, *, neighbours: str = REPLACE_ONE) -> float:
    r"""The largest ``rho`` (to a relative ``1e-9``) whose ``rho``-zCDP converts to at most
    ``(epsilon, delta)``-DP by :func:`~privlearn.accounting._convert.zcdp_to_dp`.

    The result is *checked*: ``zcdp_to_dp(ZcdpBudget(rho), delta).epsilon <= epsilon`` holds for
    the returned float (the conversion rounds up, so the guarantee is on the safe side), and the
    conversion is monotone in ``rho``, so any smaller ``rho`` also meets it.

    Parameters
    ----------
    epsilon : float
        Finite and > 0.
    delta : float
        In ``(0, 1)``.
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"

    Returns
    -------
    float
        ``rho > 0``.

    Notes
    -----
    The search (about 40 conversions, each a golden-section search over the order) is a pure
    function of the validated public ``(epsilon, delta, neighbours)``; its result is memoised
    (:func:`functools.lru_cache`, 64 entries) so that repeated fits at the same budget (a
    benchmark, a grid search, a cross-validation) do not repeat it. The cached value is the
    same float the search returns.

    Examples
    --------
    >>> rho = zcdp_rho_for(1.0, 1e-6)
    >>> 0.024 < rho < 0.025
    True
    """
    eps = check_epsilon(epsilon, exact=True)
    d = check_delta(delta, zero_ok=False, exact=True)
    return _rho_for(eps, d, _neighbours_arg(neighbours))


@functools.lru_cache(maxsize=64)
def _rho_for(eps: float, d: float, nb: str) -> float:
    """:func:`zcdp_rho_for` on validated floats (memoised: a pure function of its arguments)."""

    def fits(rho: float) -> bool:
        return zcdp_to_dp(ZcdpBudget(rho, neighbours=nb), d).epsilon <= eps

    lo, hi = 0.0, eps  # rho-zCDP implies (rho + 2 sqrt(rho log 1/delta))-DP > rho: rho < eps
    while not fits(hi / 2.0**40) and hi > 1e-300:
        hi /= 2.0**40
    lo = hi / 2.0**40
    if not fits(lo):  # pragma: no cover - eps far below any representable rho
        raise ValueError("epsilon too small to calibrate")
    while hi - lo > 1e-9 * lo:
        mid = (lo + hi) / 2.0
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo
