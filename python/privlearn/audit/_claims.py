"""Privacy claims under audit: a pure ``epsilon``, an ``(epsilon, delta)`` pair (a tuple or any
object with ``.epsilon`` and ``.delta``, such as :class:`~privlearn.accounting.Budget`) or a
Gaussian-DP parameter (:class:`GaussianDP`), parsed into one internal claim object, and the
trade-off function each kind of claim promises (:func:`tradeoff_function`)."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Optional, Tuple

import numpy as np
from scipy import special

from ..errors import InvalidParameterError


@dataclass(frozen=True)
class GaussianDP:
    r"""A ``mu``-Gaussian differential privacy claim (Dong, Roth, Su, JRSS-B 2022, Def. 2.6).

    A mechanism is ``mu``-GDP when, for every pair of neighbouring inputs, distinguishing its
    output on one from its output on the other is at least as hard as distinguishing
    ``N(0, 1)`` from ``N(mu, 1)``: its trade-off function is at least
    ``G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu)`` (see :func:`tradeoff_function`). The
    Gaussian mechanism with sensitivity ``s`` and noise scale ``sigma`` is ``s / sigma``-GDP.

    Parameters
    ----------
    mu : float
        The claimed parameter, finite and ``> 0``.

    Raises
    ------
    InvalidParameterError
        When ``mu`` is not a finite number ``> 0``.

    Examples
    --------
    >>> from privlearn.audit import GaussianDP
    >>> GaussianDP(1.0)
    GaussianDP(mu=1.0)
    """

    mu: float

    def __post_init__(self) -> None:
        mu = self.mu
        if isinstance(mu, bool) or not isinstance(mu, numbers.Real):
            raise InvalidParameterError(f"mu: must be a finite number > 0, got {mu!r}", "mu")
        value = float(mu)
        if not (math.isfinite(value) and value > 0.0):
            raise InvalidParameterError(f"mu: must be a finite number > 0, got {mu!r}", "mu")
        object.__setattr__(self, "mu", value)


@dataclass(frozen=True)
class _Claim:
    """A parsed claim: ``kind`` is ``"pure"`` (``delta == 0``), ``"approx"`` (``delta > 0``)
    or ``"gdp"`` (``epsilon = inf``, ``delta = 0``, ``mu`` set)."""

    kind: str
    epsilon: float
    delta: float
    mu: Optional[float] = None


def _parse_claim(claimed: Any) -> _Claim:
    """The claim ``claimed`` as a :class:`_Claim`; InvalidParameterError naming ``claimed``."""
    if isinstance(claimed, _Claim):
        return claimed
    if isinstance(claimed, GaussianDP):
        return _Claim("gdp", math.inf, 0.0, claimed.mu)
    if hasattr(claimed, "epsilon"):
        eps, delta = claimed.epsilon, getattr(claimed, "delta", 0.0)
    elif isinstance(claimed, tuple) and len(claimed) == 2:
        eps, delta = claimed
    elif isinstance(claimed, numbers.Real) and not isinstance(claimed, bool):
        eps, delta = claimed, 0.0
    else:
        raise InvalidParameterError(
            f"claimed: must be a Budget (with .epsilon and .delta), an (epsilon, delta) tuple, "
            f"a number or a GaussianDP(mu), got {claimed!r}",
            "claimed",
        )
    try:
        eps_f, delta_f = float(eps), float(delta)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"claimed: epsilon and delta must be numbers, got {claimed!r}", "claimed"
        ) from None
    if not (math.isfinite(eps_f) and eps_f >= 0.0):
        raise InvalidParameterError(
            f"claimed: epsilon must be a finite number >= 0, got {eps!r}", "claimed"
        )
    if not (0.0 <= delta_f < 1.0):
        raise InvalidParameterError(f"claimed: delta must be in [0, 1), got {delta!r}", "claimed")
    return _Claim("approx" if delta_f > 0.0 else "pure", eps_f, delta_f)


def _claim(claimed: Any) -> Tuple[float, float]:
    """An ``(epsilon, delta)`` claim as two floats (GaussianDP claims are refused)."""
    c = _parse_claim(claimed)
    if c.kind == "gdp":
        raise InvalidParameterError(
            f"claimed: an (epsilon, delta) claim is needed here, got {claimed!r}", "claimed"
        )
    return c.epsilon, c.delta


def tradeoff_function(claim: Any, type1: Any) -> np.ndarray:
    r"""The trade-off function a privacy claim promises: the least type II error allowed at each
    type I error.

    For a test between a mechanism's outputs on two neighbouring inputs (null ``b``, alternative
    ``a``: type I error ``P_b(reject)``, type II error ``P_a(accept)``), a claim holds exactly when
    every test's type II error is at least ``f(type I error)``, in both directions (Dong, Roth,
    Su, JRSS-B 2022, Def. 2.1--2.3; all three curves below are symmetric):

    - pure ``epsilon``: ``f(a) = max(0, 1 - e^eps a, e^-eps (1 - a))``;
    - ``(epsilon, delta)``: ``f(a) = max(0, 1 - delta - e^eps a, e^-eps (1 - delta - a))``
      (Dong, Roth, Su, Prop. 2.5; Kairouz, Oh, Viswanath, ICML 2015, Thm. 2.1);
    - :class:`GaussianDP` ``mu``: ``f(a) = Phi(Phi^{-1}(1 - a) - mu)`` (Dong, Roth, Su,
      Def. 2.6), computed with :func:`scipy.special.ndtr` and :func:`scipy.special.ndtri`.

    Parameters
    ----------
    claim : float, (epsilon, delta), Budget or GaussianDP
        The privacy claim, as for :func:`~privlearn.audit.audit`.
    type1 : array_like of float
        Type I errors, each in [0, 1].

    Returns
    -------
    numpy.ndarray
        ``f(type1)``, of ``type1``'s shape, in [0, 1].

    Raises
    ------
    InvalidParameterError
        On a bad claim, or type I errors that are NaN or outside [0, 1].

    Examples
    --------
    >>> from privlearn.audit import GaussianDP, tradeoff_function
    >>> tradeoff_function(1.0, [0.0, 0.1, 1.0]).round(4)
    array([1.    , 0.7282, 0.    ])
    >>> tradeoff_function(GaussianDP(1.0), [0.05]).round(4)
    array([0.7405])
    """
    c = _parse_claim(claim)
    try:
        a = np.asarray(type1, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            "type1: must be an array of numbers in [0, 1]", "type1"
        ) from None
    if np.isnan(a).any() or (a < 0.0).any() or (a > 1.0).any():
        raise InvalidParameterError("type1: must be an array of numbers in [0, 1]", "type1")
    if c.kind == "gdp":
        assert c.mu is not None
        return np.asarray(special.ndtr(special.ndtri(1.0 - a) - c.mu), dtype=float)
    e = math.exp(min(c.epsilon, 700.0))  # beyond, f is 0 except at type I errors < 1e-300
    rest = 1.0 - c.delta
    out = np.maximum(np.maximum(rest - e * a, (rest - a) / e), 0.0)
    return np.asarray(out, dtype=float)
