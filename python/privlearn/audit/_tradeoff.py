"""Trade-off audits: the type I and type II errors of the threshold tests between a mechanism's
scalar outputs on two neighbouring inputs, with upper confidence bounds holding for all
thresholds at once (a Dvoretzky--Kiefer--Wolfowitz band with Massart's constant), compared with
the trade-off function a claim promises (:class:`TradeoffCurve`, :func:`tradeoff_curve`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, Optional

import numpy as np

from .._validate import check_integer, check_probability
from ..errors import InvalidParameterError
from ._claims import tradeoff_function
from ._samples import _check_samples

# At most this many thresholds: beyond it, thresholds are pooled order statistics at evenly
# spaced ranks (each empirical CDF then moves by far less than the band's width between two).
_MAX_THRESHOLDS = 1 << 16
# Points of the curve kept for plots and reports.
_PLOT_POINTS = 512


@dataclass(frozen=True, eq=False)
class TradeoffCurve:
    r"""Upper confidence bounds on the errors of threshold tests between two output laws.

    Convention: each test decides between the null hypothesis "the output came from input
    ``b``" and the alternative "from input ``a``", rejecting ``b`` on a set ``S`` (``x <= t`` or
    ``x > t``). Its **type I error** is ``P_b(S)`` (rejecting ``b`` wrongly) and its **type II
    error** ``1 - P_a(S)`` (accepting ``b`` wrongly). The roles of ``a`` and ``b`` need not be
    tried the other way round: swapping them maps the test of ``x > t`` to the point
    ``(type II, type I)`` of the test of ``x <= t``, and every trade-off function of
    :func:`tradeoff_function` is symmetric.

    With probability at least ``1 - alpha`` **every** point's bounds hold together:
    ``type1 >= P_b(S)`` and ``type2 >= 1 - P_a(S)``. If the mechanism satisfies a claim with
    trade-off function ``f`` (non-increasing), then ``f(type1) <= f(P_b(S)) <= 1 - P_a(S) <=
    type2`` at every point, so a point with ``f(type1) > type2``
    (:meth:`worst_violation` ``> 0``) refutes the claim with confidence ``1 - alpha``.

    Attributes
    ----------
    type1, type2 : numpy.ndarray
        Upper confidence bounds on the type I and type II errors, sorted by ``type1``
        (increasing; ``type2`` then decreases): the lower-left frontier of the tests' bounds (a
        test whose two bounds both exceed another's can refute nothing the other does not).
    type1_hat, type2_hat : numpy.ndarray
        The empirical errors of the same tests.
    alpha : float
        Probability that some bound fails (at most).
    n_a, n_b : int
        Samples on each side.
    width_a, width_b : float
        Half-widths of the two DKW bands (on ``P_a`` and ``P_b``).
    """

    type1: np.ndarray
    type2: np.ndarray
    type1_hat: np.ndarray
    type2_hat: np.ndarray
    alpha: float
    n_a: int
    n_b: int
    width_a: float
    width_b: float

    def worst_violation(self, claim: Any) -> float:
        """The largest ``f(type1) - type2`` over the points, for the claim's trade-off function.

        Parameters
        ----------
        claim : float, (epsilon, delta), Budget or GaussianDP
            The claim, as for :func:`~privlearn.audit.tradeoff_function`.

        Returns
        -------
        float
            ``> 0`` refutes the claim with confidence ``1 - alpha``; ``<= 0``: no point of the
            band lies below the claim's curve.

        Examples
        --------
        >>> import numpy as np
        >>> from privlearn.audit import GaussianDP, tradeoff_curve
        >>> g = np.random.default_rng(0)
        >>> curve = tradeoff_curve(g.normal(1.0, 1.0, 100_000), g.normal(0.0, 1.0, 100_000))
        >>> curve.worst_violation(GaussianDP(1.0)) <= 0 < curve.worst_violation(GaussianDP(0.5))
        True
        """
        f = tradeoff_function(claim, self.type1)
        return float(np.max(f - self.type2))

    def downsampled(self, max_points: int = _PLOT_POINTS) -> "TradeoffCurve":
        """The curve with at most ``max_points`` of its points (evenly spread along it, ends
        kept), for plots and reports. Still a valid band: a subset of the tests.

        Examples
        --------
        >>> import numpy as np
        >>> from privlearn.audit import tradeoff_curve
        >>> g = np.random.default_rng(0)
        >>> curve = tradeoff_curve(g.normal(1.0, 1.0, 100_000), g.normal(0.0, 1.0, 100_000))
        >>> len(curve.downsampled(100).type1)
        100
        """
        max_points = check_integer(max_points, "max_points", 2)
        m = len(self.type1)
        if m <= max_points:
            return self
        keep = np.unique(np.round(np.linspace(0, m - 1, max_points)).astype(np.int64))
        return TradeoffCurve(
            self.type1[keep],
            self.type2[keep],
            self.type1_hat[keep],
            self.type2_hat[keep],
            self.alpha,
            self.n_a,
            self.n_b,
            self.width_a,
            self.width_b,
        )

    def to_dict(self, claim: Optional[Any] = None) -> Dict[str, Any]:
        """The band as JSON-ready plain types, with at most 512 points; with a ``claim``, also
        its trade-off function at the points' type I bounds and :meth:`worst_violation` (over
        all points)."""
        small = self.downsampled()
        out: Dict[str, Any] = {
            "alpha": float(self.alpha),
            "n_a": int(self.n_a),
            "n_b": int(self.n_b),
            "width_a": float(self.width_a),
            "width_b": float(self.width_b),
            "points": int(len(self.type1)),
            "type1": small.type1.tolist(),
            "type2": small.type2.tolist(),
            "type1_hat": small.type1_hat.tolist(),
            "type2_hat": small.type2_hat.tolist(),
        }
        if claim is not None:
            out["claim_type2"] = tradeoff_function(claim, small.type1).tolist()
            out["worst_violation"] = self.worst_violation(claim)
        return out


def _dkw_width(n: int, a: float) -> float:
    """Half-width of the two-sided DKW band of n samples holding with probability ``1 - a``:
    ``P(sup_t |F_n(t) - F(t)| > w) <= 2 exp(-2 n w^2)`` (Massart, Ann. Probab. 1990)."""
    return math.sqrt(math.log(2.0 / a) / (2.0 * n))


def tradeoff_curve(samples_a: Any, samples_b: Any, *, alpha: float = 1e-3) -> TradeoffCurve:
    r"""A confidence band on the trade-off curve of a mechanism's scalar outputs on two inputs.

    The tests are the threshold tests ``x <= t`` and ``x > t`` at every threshold ``t`` (the
    distinct sample values; for more than 65536 of them, pooled order statistics at evenly
    spaced ranks), rejecting "the output came from ``b``" (see :class:`TradeoffCurve` for the
    convention). Each side's empirical CDF lies within ``w = sqrt(ln(2 / a) / (2 n))`` of the
    true CDF **at every t at once** with probability ``1 - a`` (the Dvoretzky--Kiefer--Wolfowitz
    inequality with Massart's constant, Ann. Probab. 1990; it holds for any law, and for the
    left limits ``P(x < t)`` too), with ``a = alpha / 2`` per side. Because the band is
    simultaneous over all thresholds, the thresholds may be chosen from the same samples: all
    samples are used, with no selection split, and all bounds of the curve hold together with
    probability at least ``1 - alpha``. Both tail directions come from the same two bands.

    This is the trade-off view of tight audits (Nasr et al., USENIX Security 2023) and of f-DP
    (Dong, Roth, Su, JRSS-B 2022): a claim is refuted when the band lies below its trade-off
    function (:func:`tradeoff_function`) at some point.

    Parameters
    ----------
    samples_a, samples_b : array_like of real
        Independent scalar outputs (or scores) on the two neighbouring inputs; sizes may differ.
    alpha : float, default 1e-3
        Probability, in (0, 1), that some bound of the band fails.

    Returns
    -------
    TradeoffCurve
        The band (upper bounds on both errors), the empirical errors and the widths.

    Raises
    ------
    InvalidParameterError
        On empty, NaN, non-numeric or non-scalar samples, or ``alpha`` outside (0, 1).

    Notes
    -----
    Sorting only: 10^6 samples per side take well under a second.

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.audit import tradeoff_curve
    >>> g = np.random.default_rng(0)
    >>> curve = tradeoff_curve(g.normal(1.0, 1.0, 100_000), g.normal(0.0, 1.0, 100_000))
    >>> round(curve.width_a, 4)
    0.0064
    >>> curve.worst_violation(1.0) > 0     # N(0, 1) vs N(1, 1) is not 1-DP
    True
    """
    alpha = check_probability(alpha, "alpha")
    sides = []
    for name, x in (("samples_a", samples_a), ("samples_b", samples_b)):
        arr = _check_samples(x, name)
        if arr.ndim != 1 or arr.dtype.kind not in "biuf":
            raise InvalidParameterError(
                f"{name}: the trade-off curve needs scalar numeric samples, got {arr.dtype} of "
                f"shape {arr.shape}; project outputs with a statistic or a distinguisher",
                name,
            )
        sides.append(np.sort(arr.astype(float)))
    sa, sb = sides
    na, nb = len(sa), len(sb)
    wa, wb = _dkw_width(na, alpha / 2), _dkw_width(nb, alpha / 2)
    pooled = np.unique(np.concatenate([sa, sb]))
    if len(pooled) > _MAX_THRESHOLDS:
        ranks = np.round(np.linspace(0, len(pooled) - 1, _MAX_THRESHOLDS)).astype(np.int64)
        pooled = pooled[np.unique(ranks)]
    t = np.concatenate([[-np.inf], pooled])
    fa = np.searchsorted(sa, t, side="right") / na
    fb = np.searchsorted(sb, t, side="right") / nb
    # x <= t rejects b: type I P_b(x <= t), type II P_a(x > t); x > t: the complements
    t1_hat = np.concatenate([fb, 1.0 - fb])
    t2_hat = np.concatenate([1.0 - fa, fa])
    t1 = np.minimum(t1_hat + wb, 1.0)
    t2 = np.minimum(t2_hat + wa, 1.0)
    # the lower-left frontier of the upper bounds: by type I, then type II; keep a point only
    # when its type II bound is below every earlier one
    order = np.lexsort((t2, t1))
    t1, t2, t1_hat, t2_hat = t1[order], t2[order], t1_hat[order], t2_hat[order]
    prev_min = np.concatenate([[np.inf], np.minimum.accumulate(t2)[:-1]])
    keep = t2 < prev_min
    return TradeoffCurve(t1[keep], t2[keep], t1_hat[keep], t2_hat[keep], alpha, na, nb, wa, wb)
