r"""Amplification by subsampling: the guarantee of a mechanism run on a random subsample.

:func:`amplify_by_subsampling` (Balle, Barthe and Gaboardi 2018, with and without replacement,
and the lemmas of Wang, Lei and Fienberg 2016) turns the guarantee of a mechanism on the
subsample into one on the whole dataset; :func:`amplify_any_by_subsampling` gives the
:math:`(0, m/n)` guarantee of any algorithm, even a non-private one, run on a secret subsample.
Replace-one neighbours throughout; results rounded *up*.
"""

from __future__ import annotations

import decimal
import math
from decimal import Decimal
from fractions import Fraction
from typing import Optional

from .._validate import check_choice, check_integer, check_real
from ..errors import InvalidParameterError
from ._budget import Budget, _budget_arg, _budget_up
from ._numerics import _DIGITS, _context, _expm1, _float_up, _log1p, _overflow_guard, _up

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
    method = check_choice(method, "method", _METHODS)
    gamma_f = check_real(
        rate, "rate", 0.0, math.inf if replacement else 1.0, lo_open=True, exact=True
    )
    size: Optional[int] = None
    if n is not None:
        size = check_integer(n, "n", 1)
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
    gamma_f = check_real(rate, "rate", 0.0, 1.0, lo_open=True, hi_open=True, exact=True)
    gamma = Fraction(gamma_f)
    if n is not None:
        size = check_integer(n, "n", 1)
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
