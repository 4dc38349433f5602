r"""Fixed-size subsampling: a mechanism run on ``m`` of the ``n`` records drawn without replacement.

The subsample is a uniformly random subset of size ``m`` (the rate :math:`q = m/n`), drawn with
fresh randomness independent of the data and kept secret; the mechanism (Gaussian or Laplace
noise on a query of the subsample) runs on it. The dataset size ``n`` is public, so the natural
neighbouring relation is **replace-one** (substitution): every curve here states
``"replace-one"``, and asking for ``"add/remove-one"`` is refused (the Poisson-subsampled
mechanisms of :mod:`privlearn.accounting._rdp` and :mod:`privlearn.accounting._pld` are the
add/remove-one analysis; there is no silent conversion).

**Sensitivity convention.** As :meth:`PrivacyEvent.gaussian
<privlearn.accounting._event.PrivacyEvent.gaussian>`: ``sigma`` is the standard deviation of the
noise and ``sensitivity`` the L2 sensitivity of the query *on the subsample* under replace-one
(for a sum of per-record contributions clipped to norm ``C`` that is ``2 C``); for Laplace,
``scale`` is the noise scale and ``sensitivity`` the replace-one L1 sensitivity of the scalar
query.

Two forms:

- :func:`rdp_fixed_size_gaussian`, :func:`rdp_fixed_size_laplace`: Rényi curves by Wang, Balle
  and Kasiviswanathan (AISTATS 2019), Theorem 9, from the base mechanism's exact Rényi curve;
- :func:`pld_fixed_size_gaussian`, :func:`pld_fixed_size_laplace`: privacy-loss distributions of
  the symmetric privacy profile of Balle, Barthe and Gaboardi (NeurIPS 2018), Theorem 9, built
  with the connect-the-dots machinery of :mod:`privlearn.accounting._pld`.

Both are rounded to the safe side (see each function).
"""

from __future__ import annotations

import decimal
import math
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Dict, List, Sequence

import numpy as np

from .._validate import check_positive, check_probability
from ..errors import InvalidParameterError
from ._budget import Budget
from ._neighbours import (
    _RDIGITS,
    ADD_REMOVE_ONE,
    REPLACE_ONE,
    _neighbours_arg,
)
from ._numerics import _context, _expm1, _float_up, _log1p
from ._rdp import (
    RDP_ORDERS,
    RdpCurve,
    _chord_curve,
    _curve_values,
    _integer_orders,
    rdp_gaussian,
    rdp_laplace,
)
from ._subsampling import amplify_by_subsampling

if TYPE_CHECKING:  # pragma: no cover
    from ._pld import PldCurve

__all__ = [
    "fixed_size_laplace_epsilon",
    "pld_fixed_size_gaussian",
    "pld_fixed_size_laplace",
    "rdp_fixed_size_gaussian",
    "rdp_fixed_size_laplace",
]

#: Exponents beyond which a base curve's terms are not evaluated (e**1e15 has 4e14 digits of
#: exponent; the base curve, always a valid bound, is used instead).
_MAX_EXPONENT = Decimal(10) ** 15


def _replace_one(value: object) -> str:
    """``"replace-one"``; refuses add/remove-one (fixed-size sampling fixes ``n``)."""
    nb = _neighbours_arg(value)
    if nb == ADD_REMOVE_ONE:
        raise InvalidParameterError(
            "neighbours: fixed-size subsampling (m of n records without replacement) is analysed "
            "for replace-one neighbours only (n is public); got 'add/remove-one' (use the "
            "Poisson-subsampled mechanisms for add/remove-one)",
            "neighbours",
        )
    return REPLACE_ONE


_INTEGERS = _integer_orders()


# --------------------------------------------------------------------------------------------
# RDP: Wang, Balle and Kasiviswanathan (AISTATS 2019), Theorem 9
# --------------------------------------------------------------------------------------------


def _wbk_log_moments(
    q: Decimal,
    cgf_exp: Dict[int, Decimal],
    e2m1: Decimal,
    inf_m1: "Decimal | None",
    orders: Sequence[int],
) -> Dict[int, Decimal]:
    r"""Upper bounds of :math:`(\alpha - 1)\,\varepsilon'(\alpha)` at the integer ``orders``
    (current decimal context), the minimum of Theorem 9 and of the base mechanism's own value.

    ``cgf_exp[j]`` is :math:`e^{(j-1)\varepsilon(j)}` of the base mechanism (``j >= 2``),
    ``e2m1`` is :math:`e^{\varepsilon(2)} - 1` and ``inf_m1`` is
    :math:`e^{\varepsilon(\infty)} - 1` (``None``: infinite). Every term of the sum is positive,
    so there is no cancellation."""
    top = max(orders)

    def cap(j: int) -> Decimal:
        """min(2, (e^{eps(inf)} - 1)^j)."""
        if inf_m1 is None:
            return Decimal(2)
        return min(Decimal(2), inf_m1**j)

    weights = [Decimal(0), Decimal(0)]  # q^j * (the factor of C(alpha, j)), j >= 2
    qj = q * q
    weights.append(qj * min(4 * e2m1, cgf_exp[2] * cap(2)))
    for j in range(3, top + 1):
        qj = qj * q
        weights.append(qj * cgf_exp[j] * cap(j))
    out = {}
    for a in orders:
        s = Decimal(0)
        for j in range(2, a + 1):
            s += math.comb(a, j) * weights[j]
        out[a] = min(_log1p(s), cgf_exp[a].ln())
    return out


def _min_curves(*curves: Sequence[float]) -> List[float]:
    """The pointwise minimum of upper bounds, then the running minimum from the highest order
    down: a Rényi divergence is non-decreasing in its order (van Erven and Harremoës, IEEE
    Trans. Inf. Theory 2014, Theorem 3), so a bound at a higher order holds at every lower one
    (this makes the curve non-decreasing)."""
    out = [min(vals) for vals in zip(*curves)]
    for i in range(len(out) - 2, -1, -1):
        out[i] = min(out[i], out[i + 1])
    return out


def rdp_fixed_size_gaussian(
    rate: float, sigma: float, sensitivity: float = 1.0, *, neighbours: str = REPLACE_ONE
) -> RdpCurve:
    r"""The Gaussian mechanism on a fixed-size subsample (``m`` of ``n`` records drawn without
    replacement, ``rate`` :math:`q = m/n`): its Rényi curve, replace-one neighbours.

    The base mechanism adds :math:`N(0, \sigma^2 I)` to a query of replace-one L2 sensitivity
    :math:`\Delta` on the subsample: :math:`\varepsilon(j) = j c` with
    :math:`c = \Delta^2/(2\sigma^2)` (Mironov, CSF 2017, Proposition 7) and
    :math:`\varepsilon(\infty) = \infty`. Wang, Balle and Kasiviswanathan, "Subsampled Rényi
    Differential Privacy and Analytical Moments Accountant" (AISTATS 2019), Theorem 9, bounds
    the subsampled mechanism at every integer :math:`\alpha \ge 2` by
    :math:`\varepsilon'(\alpha) \le \frac{1}{\alpha-1}\ln(1 + S_\alpha)` with

    .. math::

        S_\alpha = q^2\binom{\alpha}{2}\min\{4(e^{\varepsilon(2)} - 1),\
            e^{\varepsilon(2)}\min\{2, (e^{\varepsilon(\infty)} - 1)^2\}\}
          + \sum_{j=3}^{\alpha} q^j \binom{\alpha}{j} e^{(j-1)\varepsilon(j)}
            \min\{2, (e^{\varepsilon(\infty)} - 1)^j\},

    here :math:`S_\alpha = q^2\binom{\alpha}{2}\min\{4(e^{2c}-1), 2e^{2c}\} + \sum_{j\ge3} 2
    q^j\binom{\alpha}{j} e^{j(j-1)c}`. The log-moment is also at most the base mechanism's,
    :math:`(\alpha - 1)\alpha c`: for replace-one neighbours the two runs are mixtures, with the
    same weights, of the base mechanism on subsamples that are equal or replace-one neighbours
    (couple the subsamples), and :math:`\int p^\alpha q^{1-\alpha}` is jointly convex for
    :math:`\alpha > 1`; the smaller of the two is used. At a fractional order the chord of the
    convex log-moment between the neighbouring integers is used (Theorem 11 of van Erven and
    Harremoës 2014; the paper's Corollary 10), and the final value is at most the base curve
    :func:`~privlearn.accounting._rdp.rdp_gaussian` at that order. At ``rate = 1`` the curve is
    the base curve.

    dp_accounting's ``SampledWithoutReplacementDpEvent`` (``REPLACE_ONE``) uses the paper's
    Theorem 27, a refinement of Theorem 9 for mechanisms such as the Gaussian; this curve is
    therefore at or slightly above dp_accounting's at small orders (a valid, looser bound); the
    PLD form (:func:`pld_fixed_size_gaussian`) is tight.

    Parameters
    ----------
    rate : float
        :math:`q = m/n`, in (0, 1].
    sigma : float
        Standard deviation of the noise, > 0.
    sensitivity : float, default 1.0
        Replace-one L2 sensitivity of the query on the subsample, > 0.
    neighbours : {"replace-one"}, default "replace-one"
        Add/remove-one is refused.

    Returns
    -------
    RdpCurve
        Replace-one. Evaluated in 80-digit decimal arithmetic (all terms positive, no
        cancellation), rounded up with the margin of
        :func:`~privlearn.accounting._neighbours._sum_up`; the minimum of valid upper bounds,
        then the running minimum from the highest order down (a Rényi divergence is
        non-decreasing in the order), so the curve is non-decreasing.

    Raises
    ------
    InvalidParameterError
        On a rate outside (0, 1], a non-positive or non-finite ``sigma`` or ``sensitivity``, or
        ``neighbours="add/remove-one"``.

    Examples
    --------
    >>> rdp_fixed_size_gaussian(0.01, 1.0).at(2.0) < rdp_gaussian(1.0).at(2.0)
    True
    """
    q = check_probability(rate, "rate", one_ok=True)
    s = check_positive(sigma, "sigma")
    d = check_positive(sensitivity, "sensitivity")
    nb = _replace_one(neighbours)
    base = rdp_gaussian(s, d, neighbours=nb)
    if q == 1.0:
        return base
    return _gaussian_curve(q, Fraction(d) ** 2 / (2 * Fraction(s) ** 2), base)


@lru_cache(maxsize=64)
def _gaussian_curve(q: float, c: Fraction, base: RdpCurve) -> RdpCurve:
    with decimal.localcontext(_context(_RDIGITS)):
        cd = Decimal(c.numerator) / Decimal(c.denominator)
        top = max(_INTEGERS)
        if cd * top * (top - 1) > _MAX_EXPONENT:
            return base  # the terms are astronomically large: Theorem 9 cannot beat the base
        cgf_exp = {j: (cd * j * (j - 1)).exp() for j in range(2, top + 1)}
        phi = _wbk_log_moments(Decimal(q), cgf_exp, _expm1(2 * cd), None, _INTEGERS)
        chords = _chord_curve(phi)
    return _curve_values(_min_curves(chords, base.epsilons), REPLACE_ONE)


def _laplace_e0(scale: float, sensitivity: float) -> float:
    """``sensitivity / scale`` rounded up (the safe side), checked finite."""
    e0 = _float_up(Fraction(sensitivity) / Fraction(scale))
    if not (math.isfinite(e0) and e0 > 0.0):
        raise InvalidParameterError(
            f"scale: sensitivity / scale must be a positive finite number; got "
            f"{sensitivity!r} / {scale!r}",
            "scale",
        )
    return e0


def fixed_size_laplace_epsilon(rate: float, scale: float, sensitivity: float = 1.0) -> float:
    r"""The pure-DP epsilon of the Laplace mechanism on a fixed-size subsample (replace-one).

    The base mechanism is :math:`\varepsilon_0`-DP with :math:`\varepsilon_0 = \Delta/b`
    (rounded up); sampling ``m`` of ``n`` records without replacement makes it
    :math:`\ln(1 + q(e^{\varepsilon_0} - 1))`-DP for replace-one neighbours (Balle, Barthe and
    Gaboardi, NeurIPS 2018, Theorem 9, with :math:`\delta = 0`), computed by
    :func:`~privlearn.accounting._subsampling.amplify_by_subsampling` and rounded up.

    Raises
    ------
    InvalidParameterError
        On a rate outside (0, 1] or a non-positive or non-finite ``scale`` or ``sensitivity``.
    """
    q = check_probability(rate, "rate", one_ok=True)
    b = check_positive(scale, "scale")
    d = check_positive(sensitivity, "sensitivity")
    return amplify_by_subsampling(Budget(_laplace_e0(b, d)), q).epsilon


def rdp_fixed_size_laplace(
    rate: float, scale: float, sensitivity: float = 1.0, *, neighbours: str = REPLACE_ONE
) -> RdpCurve:
    r"""The (scalar) Laplace mechanism on a fixed-size subsample: its Rényi curve, replace-one.

    The base mechanism adds :math:`\mathrm{Lap}(b)` to a scalar query of replace-one
    sensitivity :math:`\Delta`; with :math:`\varepsilon_0 = \Delta/b` its exact curve is
    :math:`e^{(j-1)\varepsilon(j)} = \frac{j}{2j-1}e^{(j-1)\varepsilon_0} +
    \frac{j-1}{2j-1}e^{-j\varepsilon_0}` (Mironov, CSF 2017, Proposition 6) and
    :math:`\varepsilon(\infty) = \varepsilon_0`. The curve is Wang, Balle and Kasiviswanathan
    (AISTATS 2019), Theorem 9, as in :func:`rdp_fixed_size_gaussian` (with the factors
    :math:`\min\{2, (e^{\varepsilon_0} - 1)^j\}`, which help when :math:`\varepsilon_0` is
    small), capped at each order by the base curve
    :func:`~privlearn.accounting._rdp.rdp_laplace` (joint convexity, see
    :func:`rdp_fixed_size_gaussian`) and by the subsampled pure-DP epsilon
    :func:`fixed_size_laplace_epsilon` (a Rényi divergence is at most the max-divergence: van
    Erven and Harremoës 2014, Theorem 3). Chord between integers at fractional orders.

    Parameters
    ----------
    rate : float
        :math:`q = m/n`, in (0, 1].
    scale : float
        The Laplace scale :math:`b`, > 0.
    sensitivity : float, default 1.0
        Replace-one sensitivity of the scalar query on the subsample, > 0.
    neighbours : {"replace-one"}, default "replace-one"
        Add/remove-one is refused.

    Returns
    -------
    RdpCurve
        Replace-one. :math:`\varepsilon_0` rounded up (every bound grows with it); the decimal
        evaluation uses ``80 + 2 max(0, ceil(-log10 eps0)) + 10`` digits (the one cancellation,
        in :math:`e^{\varepsilon(2)} - 1`, loses fewer digits than the extra ones), rounded up
        with the margin of :func:`~privlearn.accounting._neighbours._sum_up`; then the running
        minimum from the highest order down, as for :func:`rdp_fixed_size_gaussian`.

    Raises
    ------
    InvalidParameterError
        On a rate outside (0, 1], a non-positive or non-finite ``scale`` or ``sensitivity``, or
        ``neighbours="add/remove-one"``.
    """
    q = check_probability(rate, "rate", one_ok=True)
    b = check_positive(scale, "scale")
    d = check_positive(sensitivity, "sensitivity")
    nb = _replace_one(neighbours)
    e0 = _laplace_e0(b, d)  # rounded up: Theorem 9's terms and the pure epsilon
    base = rdp_laplace(b, d, neighbours=nb)  # the exact ratio d / b
    if q == 1.0:
        return base
    return _laplace_curve(q, e0, base)


@lru_cache(maxsize=64)
def _laplace_curve(q: float, e0: float, base: RdpCurve) -> RdpCurve:
    extra = 2 * max(0, math.ceil(-math.log10(e0))) + 10
    top = max(_INTEGERS)
    pure = amplify_by_subsampling(Budget(e0), q).epsilon
    if e0 * top > 1e15:
        return _curve_values(_min_curves(base.epsilons, [pure] * len(RDP_ORDERS)), REPLACE_ONE)
    with decimal.localcontext(_context(_RDIGITS + extra)):
        e = Decimal(e0)
        cgf_exp = {
            j: (j * ((j - 1) * e).exp() + (j - 1) * (-j * e).exp()) / (2 * j - 1)
            for j in range(2, top + 1)
        }
        e2m1 = (2 * _expm1(e) + _expm1(-2 * e)) / 3  # e^{eps(2)} - 1
        phi = _wbk_log_moments(Decimal(q), cgf_exp, e2m1, _expm1(e), _INTEGERS)
    with decimal.localcontext(_context(_RDIGITS)):
        chords = _chord_curve(phi)
    values = _min_curves(chords, base.epsilons, [pure] * len(RDP_ORDERS))
    return _curve_values(values, REPLACE_ONE)


# --------------------------------------------------------------------------------------------
# PLD: the symmetric privacy profile of Balle, Barthe and Gaboardi (2018), Theorem 9
# --------------------------------------------------------------------------------------------


def _profile_pld(
    q: float,
    hi_base: float,
    base_pos: Callable[[np.ndarray, np.ndarray], np.ndarray],
    h: float,
) -> "PldCurve":
    r"""The PLD of the symmetric profile :math:`\delta'` of a fixed-size-subsampled mechanism.

    ``base_pos(eps_tilde, w)`` returns an upper bound of :math:`q\,\delta(\tilde\varepsilon)`
    (the base curve at :math:`\tilde\varepsilon = \ln(w/q)`, :math:`w = e^{\varepsilon'} - 1 +
    q`) for :math:`\varepsilon' \ge 0`; the curve below 0 follows from the symmetry
    :math:`\delta'(\varepsilon) = 1 - e^\varepsilon + e^\varepsilon \delta'(-\varepsilon)`."""
    from . import _pld

    logq = math.log(q)

    def pos(eps: np.ndarray) -> np.ndarray:
        e = np.maximum(eps, 0.0)
        w = np.expm1(e) + q  # q e^{eps_tilde}
        return base_pos(np.log(w) - logq, w)

    def f(eps: np.ndarray) -> np.ndarray:
        neg = eps < 0.0
        out = pos(np.abs(eps))
        # eps < 0 (only tiny negative arguments from the grid's float steps reach here):
        # delta(eps) = 1 - e^eps + e^eps delta(-eps), a sum of two non-negative terms.
        a = -np.expm1(np.minimum(eps, 0.0))
        b = np.exp(np.minimum(eps, 0.0)) * out
        below = (a + b) * (1.0 + _pld._REL)
        return np.clip(np.where(neg, below, out), 0.0, 1.0)

    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        hi = float(_pld._mix_log(q, np.array(hi_base))) if q < 1.0 else hi_base
    return _pld._from_parts((_pld._core_from(-hi, hi, h, f, f),), h, REPLACE_ONE)


@lru_cache(maxsize=64)
def _fixed_gaussian_pld(q: float, mu: float, h: float) -> "PldCurve":
    from scipy import special

    from . import _pld

    def base_pos(et: np.ndarray, w: np.ndarray) -> np.ndarray:
        # q delta_G(et) = q Phi(-et/mu + mu/2) - q e^et Phi(-et/mu - mu/2), q e^et = w.
        t1 = q * special.ndtr(-et / mu + mu / 2.0)
        t2 = np.exp(np.log(w) + special.log_ndtr(-et / mu - mu / 2.0))
        return _pld._up(t1, t2)

    return _profile_pld(q, mu * mu / 2.0 + _pld._Z * mu, base_pos, h)


def pld_fixed_size_gaussian(
    rate: float,
    sigma: float,
    *,
    sensitivity: float = 1.0,
    neighbours: str = REPLACE_ONE,
    value_discretization: float = 1e-4,
) -> "PldCurve":
    r"""The Gaussian mechanism on a fixed-size subsample: its PLD, replace-one neighbours.

    **Profile.** Balle, Barthe and Gaboardi, "Privacy Amplification by Subsampling: Tight
    Analyses via Couplings and Divergences" (NeurIPS 2018), Theorem 9 (sampling without
    replacement, substitution relation): if the base mechanism is :math:`(\varepsilon,
    \delta)`-DP for replace-one neighbours on subsamples, the subsampled one is
    :math:`(\ln(1 + q(e^\varepsilon - 1)), q\delta)`-DP. Applied at every point of the base
    Gaussian's exact curve :math:`\delta(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) -
    e^\varepsilon\Phi(-\varepsilon/\mu - \mu/2)`, :math:`\mu = \Delta/\sigma` (Balle and Wang,
    ICML 2018, Theorem 8), it gives for :math:`\varepsilon' \ge 0`

    .. math::

        \delta'(\varepsilon') = q\,\delta(\tilde\varepsilon), \qquad
        \tilde\varepsilon = \ln\big(1 + (e^{\varepsilon'} - 1)/q\big),

    which is attained (so tight) by the neighbours whose changed record moves the query by
    :math:`\Delta` while every other record equals the replaced one: the pair
    :math:`((1-q)N(0, \sigma^2) + qN(\Delta, \sigma^2), N(0, \sigma^2))`. Replace-one is
    symmetric, so for :math:`\varepsilon' < 0` the swapped pairs give
    :math:`\delta'(\varepsilon') = 1 - e^{\varepsilon'} + e^{\varepsilon'}\delta'(-\varepsilon')`
    (the identity :math:`H_{e^\varepsilon}(P\|Q) = 1 - e^\varepsilon +
    e^\varepsilon H_{e^{-\varepsilon}}(Q\|P)`). This is the pitfall of Lebeda, Regehr, Kamath
    and Steinke ("Avoiding Pitfalls for Privacy Accounting of Subsampled Mechanisms under
    Composition", 2024): the single pair above is *not* dominating for :math:`\varepsilon' < 0`,
    so it must not be composed alone; the profile here covers both orders of every pair.

    **A dominating pair.** :math:`\delta'` is convex and non-increasing in
    :math:`x = e^{\varepsilon'}`, with :math:`\delta'(x) \ge (1 - x)_+`: on :math:`x \ge 1` it
    is the base curve of an affine function of :math:`x`; on :math:`x < 1` its perspective; at
    :math:`x = 1` the slopes are :math:`-1 + q\,TV + a` (left) and :math:`-a` (right) with
    :math:`a = Q(L > 0) = \bar\Phi(\mu/2)` and :math:`TV = 1 - 2a`, and :math:`q\,TV \le TV`.
    Such a curve is the hockey-stick curve of a pair of distributions (Zhu, Dong and Wang,
    AISTATS 2022, Section 3; Dong, Roth and Su, JRSS-B 2022, Propositions 2.2 and 2.12), and
    that pair dominates the mechanism for all :math:`\varepsilon` (Zhu, Dong and Wang 2022,
    Definition 7), so it composes by convolution. One symmetric PLD.

    **Discretisation and rounding.** As :func:`~privlearn.accounting._pld.pld_gaussian`:
    grid up to :math:`\ln(1 + q(e^{\mu^2/2 + 9.5\mu} - 1))` (beyond it, mass ~1e-21 to
    :math:`+\infty`), values from ``scipy.special.ndtr``/``log_ndtr`` raised by the relative
    margin of :mod:`~privlearn.accounting._pld`, :math:`\mu` rounded up, connect-the-dots
    (pessimistic). At ``rate = 1`` this is :func:`~privlearn.accounting._pld.pld_gaussian`.

    Parameters
    ----------
    rate : float
        :math:`q = m/n`, in (0, 1].
    sigma : float
        Standard deviation of the noise, > 0.
    sensitivity : float, default 1.0
        Replace-one L2 sensitivity of the query on the subsample, > 0.
    neighbours : {"replace-one"}, default "replace-one"
        Add/remove-one is refused.
    value_discretization : float, default 1e-4
        Grid step of the privacy losses, in (0, 1].

    Returns
    -------
    PldCurve
        One PLD, neighbours ``"replace-one"``.

    Raises
    ------
    InvalidParameterError
        On a bad argument, ``neighbours="add/remove-one"`` or a grid too large.
    """
    from . import _pld

    q = check_probability(rate, "rate", one_ok=True)
    s = check_positive(sigma, "sigma")
    d = check_positive(sensitivity, "sensitivity")
    nb = _replace_one(neighbours)
    h = _pld._h_arg(value_discretization)
    if q == 1.0:
        return _pld.pld_gaussian(s, sensitivity=d, neighbours=nb, value_discretization=h)
    mu = _float_up(Fraction(d) / Fraction(s))
    if not (math.isfinite(mu) and mu > 0.0):
        raise InvalidParameterError(
            f"sigma: sensitivity / sigma must be a positive finite number; got {d!r} / {s!r}",
            "sigma",
        )
    return _fixed_gaussian_pld(q, mu, h)


@lru_cache(maxsize=64)
def _fixed_laplace_pld(q: float, e0: float, h: float) -> "PldCurve":
    from . import _pld

    def base_pos(et: np.ndarray, w: np.ndarray) -> np.ndarray:
        # q delta_L(et) = q (1 - e^{(et - e0)/2}) for et < e0, else 0 (et >= 0 here).
        inside = q * -np.expm1(np.minimum(et - e0, 0.0) / 2.0)
        d = np.where(et >= e0, 0.0, inside)
        return _pld._up(d, np.zeros_like(d))

    return _profile_pld(q, e0, base_pos, h)


def pld_fixed_size_laplace(
    rate: float,
    scale: float,
    *,
    sensitivity: float = 1.0,
    neighbours: str = REPLACE_ONE,
    value_discretization: float = 1e-4,
) -> "PldCurve":
    r"""The (scalar) Laplace mechanism on a fixed-size subsample: its PLD, replace-one.

    As :func:`pld_fixed_size_gaussian` (Balle, Barthe and Gaboardi, NeurIPS 2018, Theorem 9,
    applied pointwise; symmetric extension below 0; the same dominating-pair argument, the
    Laplace pair :math:`(\mathrm{Lap}(\Delta, b), \mathrm{Lap}(0, b))` being symmetric with
    :math:`TV = 1 - 2Q(L > 0)`), with the base curve :math:`\delta(\varepsilon) = 1 -
    e^{(\varepsilon - \varepsilon_0)/2}` for :math:`0 \le \varepsilon < \varepsilon_0`, 0 above,
    :math:`\varepsilon_0 = \Delta/b` rounded up (see
    :func:`~privlearn.accounting._pld.pld_laplace`): for :math:`\varepsilon' \ge 0`,
    :math:`\delta'(\varepsilon') = q(1 - e^{(\tilde\varepsilon - \varepsilon_0)/2})`,
    :math:`\tilde\varepsilon = \ln(1 + (e^{\varepsilon'} - 1)/q)`, zero from
    :math:`\varepsilon' = \ln(1 + q(e^{\varepsilon_0} - 1))` (the pure-DP epsilon). Tight for
    :math:`\varepsilon' \ge 0` (attained as for the Gaussian).

    Parameters
    ----------
    rate : float
        :math:`q = m/n`, in (0, 1].
    scale : float
        The Laplace scale :math:`b`, > 0.
    sensitivity : float, default 1.0
        Replace-one sensitivity of the scalar query on the subsample, > 0.
    neighbours : {"replace-one"}, default "replace-one"
        Add/remove-one is refused.
    value_discretization : float, default 1e-4

    Returns
    -------
    PldCurve
        One PLD, neighbours ``"replace-one"``.

    Raises
    ------
    InvalidParameterError
        On a bad argument, ``neighbours="add/remove-one"`` or a grid too large.
    """
    from . import _pld

    q = check_probability(rate, "rate", one_ok=True)
    b = check_positive(scale, "scale")
    d = check_positive(sensitivity, "sensitivity")
    nb = _replace_one(neighbours)
    h = _pld._h_arg(value_discretization)
    if q == 1.0:
        return _pld.pld_laplace(b, sensitivity=d, neighbours=nb, value_discretization=h)
    e0 = _laplace_e0(b, d)
    if e0 > _pld._MAX_LOSS:
        raise InvalidParameterError(
            f"scale: sensitivity / scale must be at most {_pld._MAX_LOSS:g}; got {e0!r}", "scale"
        )
    return _fixed_laplace_pld(q, e0, h)
