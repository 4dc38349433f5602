r"""Certificates and theory settings for stable and private prediction (seed 003).

Everything here is a function of **public** parameters only (the class, ``n``, the subset size
``m``, the inner privacy parameters, the flip probability, the number of blocks): never of the
data (ERRATA 003-3). Certificates are computed in 50-digit decimal arithmetic and rounded *up*
(a reported stability or epsilon is never below the true bound); parameters chosen to meet a
target are computed in floating point and then checked against the rounded-up certificate.

Neighbouring samples have the same public size ``n`` and differ by replacing one labelled
example (ERRATA 003-5). Dagan and Feldman ("PAC learning with stable and private predictions",
COLT 2020) give their bounds up to constants; the explicit forms below are the project's
(spec/003 §2-§3 and ERRATA 003-3, 003-4, 003-6), with the derivations in the docstrings.
"""

from __future__ import annotations

import decimal
import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, Optional, Tuple, Union

from .._search import first_true
from .._validate import check_delta, check_epsilon, check_integer, check_probability
from ..accounting._numerics import _context, _float_up, _inflate
from ..errors import InvalidParameterError
from ..hypotheses import (
    FiniteClass,
    Halfspaces,
    HypothesisClass,
    Intervals,
    Parities,
    Points,
    Rectangles,
    Thresholds,
    check_hypothesis_class,
)

__all__ = [
    "growth_function",
    "epsilon_net_size",
    "uniform_convergence_size",
    "stable_gamma",
    "corollary1_epsilon",
    "theorem2_epsilon",
    "Theorem2Certificate",
    "randomized_response_epsilon",
    "PredictionSetting",
    "stable_setting",
    "corollary1_setting",
    "theorem2_setting",
]

_DIGITS = 50
#: Flip probabilities are rounded up to multiples of this (exact Bernoulli draws of ``num / 2^62``).
FLIP_DENOMINATOR = 1 << 62
#: Largest inner epsilon chosen automatically (an exponential mechanism this sharp is an argmin).
_EPSILON_CAP = 1000.0

Number = Union[int, float, Fraction]

# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------


def _flip_probability(v: Any, name: str) -> Fraction:
    """A flip probability in ``(0, 1/2]`` as the exact value that is sampled: ``v`` rounded up
    to a multiple of ``2^-62`` (a larger flip probability is more private). A ``Fraction`` is
    compared exactly (never through a float); anything else is checked by
    :func:`~privlearn._validate.check_probability`."""
    if isinstance(v, Fraction):
        if not 0 < v <= Fraction(1, 2):
            raise InvalidParameterError(
                f"{name}: must be a finite number in (0, 0.5]; got {v!r}", name
            )
        f = v
    else:
        f = Fraction(check_probability(v, name, one_ok=True, hi=0.5))
    num = -((-f.numerator * FLIP_DENOMINATOR) // f.denominator)  # ceil
    return Fraction(num, FLIP_DENOMINATOR)


def _subset(n: Any, m: Any) -> Tuple[int, int]:
    n = check_integer(n, "n")
    m = check_integer(m, "subsample_size")
    if m > n:
        raise InvalidParameterError(
            f"subsample_size: must be at most n = {n}, got {m}", "subsample_size"
        )
    return n, m


def _class(h: Any) -> HypothesisClass:
    return check_hypothesis_class(h, "hypotheses")


# --------------------------------------------------------------------------------------------
# Decimal helpers
# --------------------------------------------------------------------------------------------


def _d(x: Number) -> Decimal:
    """``x`` exactly (floats and ints) or to 50 digits (fractions), in the current context."""
    if isinstance(x, Fraction):
        return Decimal(x.numerator) / Decimal(x.denominator)
    return Decimal(x)


def _up_float(x: Decimal) -> float:
    """A float >= x, with a margin far above the arithmetic's accumulated error."""
    return _float_up(_inflate(x))


# --------------------------------------------------------------------------------------------
# Growth functions
# --------------------------------------------------------------------------------------------


def _sauer(m: int, d: int) -> int:
    return sum(math.comb(m, i) for i in range(min(d, m) + 1))


def _cover_count(m: int, dim: int) -> int:
    return 1 if m == 0 else 2 * sum(math.comb(m - 1, i) for i in range(min(dim, m - 1) + 1))


def _vc(h: HypothesisClass) -> int:
    d = h.vc_dimension
    if d is None:
        raise InvalidParameterError(
            "hypotheses: its VC dimension is unknown (a FiniteClass of callables); give the class "
            "as a labeling matrix",
            "hypotheses",
        )
    return int(d)


def growth_function(hypotheses: HypothesisClass, m: int) -> int:
    r"""The growth function :math:`\Pi_C(m)`: the largest number of labelings the class induces on
    ``m`` points (Dagan and Feldman, Lemma 2), exactly where a closed form is known, otherwise the
    Sauer-Shelah bound :math:`\sum_{i \le d} \binom{m}{i}` (an upper bound, which keeps every
    certificate valid).

    ======================  =====================================================================
    class                   :math:`\Pi_C(m)`
    ======================  =====================================================================
    Thresholds ge / le      ``m + 1``
    Thresholds both         ``2m`` (``1`` at ``m = 0``)
    Intervals               ``m (m + 1) / 2 + 1``
    Halfspaces(dim)         Cover (1965): ``2 sum_{i <= dim} C(m - 1, i)`` (``1`` at ``m = 0``)
    Points                  ``m + 1`` (``min(m + 1, M)`` on a domain of ``M`` elements)
    Parities(dim)           ``2^min(m, dim)``
    Rectangles(dim)         Sauer-Shelah with ``d = 2 dim`` (upper bound)
    FiniteClass             ``min(N, Sauer-Shelah)`` (upper bound)
    ======================  =====================================================================

    Parameters
    ----------
    hypotheses : HypothesisClass
    m : int
        Number of points, ``>= 0``.

    Returns
    -------
    int
    """
    h = _class(hypotheses)
    m = check_integer(m, "m", 0)
    if isinstance(h, Thresholds):
        return (2 * m if m else 1) if h.orientation == "both" else m + 1
    if isinstance(h, Intervals):
        return m * (m + 1) // 2 + 1
    if isinstance(h, Halfspaces):
        return _cover_count(m, h.dim)
    if isinstance(h, Points):
        return m + 1 if h.domain_size is None else min(m + 1, h.domain_size)
    if isinstance(h, Parities):
        return 2 ** min(m, h.dim)
    if isinstance(h, Rectangles):
        return _sauer(m, 2 * h.dim)
    if isinstance(h, FiniteClass):
        return min(h.size, _sauer(m, _vc(h))) if h.vc_dimension is not None else h.size
    return _sauer(m, _vc(h))


def _log_growth(h: HypothesisClass, m: int) -> float:
    return math.log(growth_function(h, m))


# --------------------------------------------------------------------------------------------
# Sample sizes: epsilon-nets, uniform convergence
# --------------------------------------------------------------------------------------------


def _first_below(start: int, log_f: Callable[[int], float], log_target: float) -> int:
    """Smallest integer ``m >= start`` with ``log_f(m) <= log_target``, for ``log_f``
    decreasing on ``[start, inf)`` (the result is re-checked)."""
    m = first_true(lambda k: log_f(k) <= log_target, start)
    assert m is not None and log_f(m) <= log_target
    return m


def epsilon_net_size(hypotheses: HypothesisClass, alpha: float, delta: float) -> int:
    r"""A subset size ``m`` at which a uniformly random ``m``-subset is an ``alpha``-net for the
    class with probability at least ``1 - delta`` (Dagan and Feldman, Lemma 1; spec/003 §2).

    Any two hypotheses that agree on an ``alpha``-net ``T`` of ``S`` disagree on at most
    ``alpha n`` points of ``S``. By the double-sampling argument of Haussler and Welzl applied to
    the class of disagreement regions, whose growth is at most :math:`\Pi_C(\cdot)^2`,
    :math:`\Pr[T \text{ is not an } \alpha\text{-net}] \le 2\,\Pi_C(2m)^2\, 2^{-\alpha m/2}` for
    ``m >= 8/alpha``; the bound also holds for samples drawn without replacement (Lemma 1).

    The bound is not monotone in ``m`` (ERRATA 003-6): it increases up to about
    ``5.8 d / alpha`` before it decreases. Since every growth function used here is a sum of
    binomial coefficients of degree at most ``d`` (the VC dimension), the ratio
    :math:`\Pi_C(2m+2)/\Pi_C(2m) \le ((2m+1)/(2m+1-d))^2` shows that the bound decreases for all
    ``m > (8d/(alpha ln 2) + d - 1)/2``; the search runs on that branch only, so the inequality
    holds at the returned ``m`` **and at every larger one**.

    Parameters
    ----------
    hypotheses : HypothesisClass
    alpha, delta : float
        In ``(0, 1)``.

    Returns
    -------
    int
    """
    return _epsilon_net_size(
        _class(hypotheses), check_probability(alpha, "alpha"), check_delta(delta, zero_ok=False)
    )


@lru_cache(maxsize=4096)
def _epsilon_net_size(h: HypothesisClass, a: float, dl: float) -> int:
    d = _vc(h)
    start = max(math.ceil(8.0 / a), math.floor((8 * d / (a * math.log(2)) + d - 1) / 2) + 1, 1)
    ln2 = math.log(2)

    def log_f(m: int) -> float:
        return ln2 + 2 * _log_growth(h, 2 * m) - a * m / 2 * ln2

    return _first_below(start, log_f, math.log(dl) - 1e-12)


def uniform_convergence_size(hypotheses: HypothesisClass, alpha: float, delta: float) -> int:
    r"""A sample size ``n`` at which, with probability at least ``1 - delta``, every hypothesis's
    empirical error is within ``alpha`` of its true error (Dagan and Feldman, Lemma 3; the
    classical Vapnik-Chervonenkis form :math:`4\,\Pi_C(2n)\, e^{-n\alpha^2/8} \le \delta`).

    Searched on the range where the bound decreases, ``n > (16 d/alpha^2 + d - 1)/2`` (the
    argument of :func:`epsilon_net_size`), so it also holds at every larger ``n``.
    """
    return _uc_size(
        _class(hypotheses), check_probability(alpha, "alpha"), check_delta(delta, zero_ok=False)
    )


@lru_cache(maxsize=4096)
def _uc_size(h: HypothesisClass, a: float, dl: float) -> int:
    d = _vc(h)
    start = max(math.floor((16 * d / a**2 + d - 1) / 2) + 1, 1)

    def log_f(n: int) -> float:
        return math.log(4) + _log_growth(h, 2 * n) - n * a * a / 8

    return _first_below(start, log_f, math.log(dl) - 1e-12)


# --------------------------------------------------------------------------------------------
# Certificates
# --------------------------------------------------------------------------------------------


def stable_gamma(n: int, m: int, epsilon0: float) -> float:
    r"""The uniform stability of the Theorem 1 predictor (Dagan and Feldman, Lemma 7; spec/003
    §3.1, certified in ERRATA "checked and correct"):

    .. math:: \gamma = \frac{m}{n} + \left(1 - \frac{m}{n}\right)\tanh\frac{\varepsilon_0}{2}.

    A subset avoiding the replaced example is the same on both samples, and the exponential
    mechanism over it is an :math:`\varepsilon_0`-DP binary answer, which moves a probability by
    at most :math:`\tanh(\varepsilon_0/2)`; the subsets containing it (probability ``m/n``)
    move it by at most 1. Rounded up.
    """
    n, m = _subset(n, m)
    e0 = check_epsilon(epsilon0, "epsilon0")
    with decimal.localcontext(_context(_DIGITS)):
        q = Decimal(m) / Decimal(n)
        t = Decimal(e0).exp()
        tanh = (t - 1) / (t + 1)
        return min(1.0, _up_float(q + (1 - q) * tanh))


def _flip_ratio_bound(q: Decimal, inner: Decimal, p: Decimal) -> Decimal:
    """``e^eps`` of the flipped mixture (see :func:`corollary1_epsilon`), current context."""
    r = inner.exp()
    flip = 1 - 2 * p

    def ratio(a: Decimal, a_tilde: Decimal) -> Decimal:
        return (p + flip * ((1 - q) * a + q)) / (p + flip * (1 - q) * a_tilde)

    return max(
        ratio(Decimal(0), Decimal(0)),
        ratio(r / (1 + r), 1 / (1 + r)),
        ratio(Decimal(1), Decimal(1)),
    )


def _flip_ratio_float(q: float, inner: float, p: float) -> float:
    """The same in floating point (for choosing parameters; certificates use the decimal one)."""
    r = math.exp(min(inner, 700.0))
    flip = 1 - 2 * p

    def ratio(a: float, a_tilde: float) -> float:
        return (p + flip * ((1 - q) * a + q)) / (p + flip * (1 - q) * a_tilde)

    return max(ratio(0.0, 0.0), ratio(r / (1 + r), 1 / (1 + r)), ratio(1.0, 1.0))


def corollary1_epsilon(n: int, m: int, inner_epsilon: float, flip_probability: Number) -> float:
    r"""The per-query privacy of "run the predictor on a random ``m``-subset cover, flip with
    probability ``p``" (Corollary 1; also the direct certificate of Theorem 2's algorithm).

    Let ``q = m/n``. On neighbouring samples, the subsets avoiding the replaced example (weight
    ``1 - q``) are the same on both sides and give answers ``a``, ``ã`` (probabilities of label
    1) of a :math:`c`-DP computation: the exponential mechanism over the same cover, ``c =
    epsilon0`` (for Theorem 2's algorithm the selection and the realizable learner, ``c = 2
    epsilon1``). So :math:`a \le e^c ã`, :math:`ã \le e^c a`, and the same for ``1 - a``,
    ``1 - ã``. The subsets containing it give any ``u, ũ`` in ``[0, 1]``. After the flip the
    answer is ``P = p + (1-2p)((1-q)a + qu)``. The largest ratio :math:`P / \tilde P` over these
    constraints is attained at ``u = 1``, ``ũ = 0`` and, since it is linear-fractional in ``ã``
    between the breakpoints of the constraints, at ``(a, ã)`` equal to ``(0, 0)``,
    ``(e^c, 1)/(1 + e^c)`` or ``(1, 1)``:

    .. math:: e^{\varepsilon} = \max_{(a, ã)} \frac{p + (1-2p)((1-q)a + q)}{p + (1-2p)(1-q)ã},

    the same for both labels and both directions. The constraints imply
    :math:`|P - \tilde P| \le \gamma` of :func:`stable_gamma`, so this is never larger than the
    spec's :math:`\ln(1 + (1-2p)\gamma/p)` (spec/003 §3.2; ERRATA "checked and correct"); it is
    often much smaller, and lets the exponential mechanism run at nearly the whole budget: only
    the subset fraction ``q`` must be paid for by the flip. Rounded up.

    Parameters
    ----------
    n, m : int
        Sample size and subset size.
    inner_epsilon : float
        ``c`` above.
    flip_probability : float or Fraction
        In ``(0, 1/2]``; rounded up to the sampled value (a multiple of ``2^-62``).
    """
    n, m = _subset(n, m)
    c = check_epsilon(inner_epsilon, "inner_epsilon")
    p = _flip_probability(flip_probability, "flip_probability")
    with decimal.localcontext(_context(_DIGITS)):
        r = _flip_ratio_bound(Decimal(m) / Decimal(n), Decimal(c), _d(p))
        return _up_float(r.ln())


def randomized_response_epsilon(n_teachers: int, flip_probability: Number) -> float:
    r"""Per-query privacy of subsample-and-aggregate with randomized response (the baseline of
    Dwork and Feldman 2018 with the flip of Corollary 1; spec/003 §3.0 B2):
    :math:`\ln(1 + (1 - 2p)/(k p))`. The answer ``p + (1-2p) c/k`` is at least ``p`` and one
    replaced example moves ``c`` by at most 1. Rounded up."""
    k = check_integer(n_teachers, "n_teachers")
    p = _flip_probability(flip_probability, "flip_probability")
    with decimal.localcontext(_context(_DIGITS)):
        pd = _d(p)
        return _up_float((1 + (1 - 2 * pd) / (k * pd)).ln())


@dataclass(frozen=True)
class Theorem2Certificate:
    """The per-query privacy of the Theorem 2 predictor and how it was obtained.

    Attributes
    ----------
    epsilon : float
        The certified epsilon: the smaller of the two routes.
    route : str
        ``"direct"`` or ``"net"``, whichever gave ``epsilon``.
    direct : float
        :func:`corollary1_epsilon` with inner epsilon ``2 epsilon1``.
    net : float
        The matching-and-net argument of Lemma 10 (``inf`` when it does not apply).
    disagreement : int or None
        The disagreement budget ``t`` of the net route (``None`` if it does not apply).
    delta_r : float
        The data-independent bound on the probability that the common part of the subsets is
        not a net (``1.0`` if the route does not apply).
    """

    epsilon: float
    route: str
    direct: float
    net: float
    disagreement: Optional[int]
    delta_r: float


def _log_delta_r(h: HypothesisClass, n: int, m: int, t: int) -> Decimal:
    """ln of ERRATA 003-4's bound 2 Pi(2(m-1))^2 2^(-((t-1)/(n-1)) (m-1)/2), current context."""
    ln2 = Decimal(2).ln()
    g = Decimal(growth_function(h, 2 * (m - 1))).ln()
    return ln2 + 2 * g - Decimal(t - 1) * Decimal(m - 1) / (2 * Decimal(n - 1)) * ln2


def _net_valid(n: int, m: int, t: int) -> bool:
    return t >= 2 and m >= 2 and n >= 2 and (m - 1) * (t - 1) >= 8 * (n - 1)


def _net_epsilon(
    h: HypothesisClass, n: int, m: int, e1: float, p: Fraction, t: int
) -> Tuple[float, float]:
    """(epsilon, delta_R) of the net route, or (inf, 1.0) where it does not apply."""
    if not _net_valid(n, m, t):
        return math.inf, 1.0
    with decimal.localcontext(_context(_DIGITS)):
        log_dr = _log_delta_r(h, n, m, t)
        dr = min(Decimal(1), _inflate(log_dr.exp()))
        q = Decimal(m) / Decimal(n)
        c0 = 4 * (2 * Decimal(e1) * t).exp()
        eps_pre = (1 + q * (c0 - 1)).ln() + 2 * Decimal(e1)
        pd = _d(p)
        eps = (eps_pre.exp() + (1 - 2 * pd) * q * dr / pd).ln()
        return _up_float(eps), _float_up(dr)


def _net_epsilon_float(h: HypothesisClass, n: int, m: int, e1: float, p: float, t: int) -> float:
    """The net route's epsilon in floating point (for searches; certificates use the decimal
    one)."""
    if not _net_valid(n, m, t):
        return math.inf
    ln2 = math.log(2)
    log_dr = ln2 + 2 * _log_growth(h, 2 * (m - 1)) - (t - 1) * (m - 1) / (2 * (n - 1)) * ln2
    q = m / n
    eps_pre = math.log1p(q * (4 * math.exp(min(2 * e1 * t, 700.0)) - 1)) + 2 * e1
    return math.log(
        math.exp(min(eps_pre, 700.0)) + (1 - 2 * p) * q * min(1.0, math.exp(min(log_dr, 0.0))) / p
    )


def _best_t(h: HypothesisClass, n: int, m: int, e1: float, p: Fraction) -> Optional[int]:
    """A disagreement budget ``t`` making the net route's epsilon small (data-independent
    search: any ``t`` gives a valid certificate)."""
    if m < 2 or n < 2:
        return None
    t_min = 1 + -((-8 * (n - 1)) // (m - 1))
    if t_min > n:
        return None
    cands = sorted({min(n, max(t_min, int(round(t_min * 1.25**j)))) for j in range(0, 200)})
    best, best_eps = None, math.inf
    for t in cands:
        e = _net_epsilon_float(h, n, m, e1, float(p), t)
        if e < best_eps:
            best, best_eps = t, e
    return best


def theorem2_epsilon(
    hypotheses: HypothesisClass,
    n: int,
    m: int,
    epsilon1: float,
    flip_probability: Number,
    *,
    disagreement: Optional[int] = None,
) -> Theorem2Certificate:
    r"""The per-query privacy of the Theorem 2 predictor (Dagan and Feldman, Lemmas 8, 10, 11),
    from public parameters only: the smaller of two valid certificates.

    **Direct route**: :func:`corollary1_epsilon` with inner epsilon ``2 epsilon1``: for a fixed
    cover the selection is ``epsilon1``-DP and the realizable learner ``A'`` is an
    ``epsilon1``-private prediction on samples that differ in one example (Lemma 11).

    **Net route** (the paper's argument, spec/003 §3.4 with ERRATA 003-3 and 003-4): with
    ``q = m/n`` and a disagreement budget ``t >= 2``, let ``R`` be the common part of two
    subsets that contain the replaced index. If ``R`` is a ``((t-1)/(n-1))``-net of the other
    ``n - 1`` points, the covers match one-to-(at most)-two with matched hypotheses disagreeing
    on at most ``t`` examples, which gives the factor :math:`C_0 = 4 e^{2\varepsilon_1 t}`
    (weights :math:`e^{\varepsilon_1 t/2}`, the learner's group privacy
    :math:`e^{\varepsilon_1 t}`, the matching 2, the normaliser :math:`2e^{\varepsilon_1 t/2}`).
    With the data-independent :math:`\delta_R \le 2\Pi_C(2(m-1))^2\,2^{-\frac{t-1}{n-1}
    \frac{m-1}{2}}`, valid when :math:`(m-1)(t-1) \ge 8(n-1)`:

    .. math::
        \varepsilon_{sub} = \ln(1 + q(C_0 - 1)),\quad
        \varepsilon_{pre} = \varepsilon_{sub} + 2\varepsilon_1,\quad
        \varepsilon = \ln\left(e^{\varepsilon_{pre}} + (1-2p)\, q\, \delta_R / p\right).

    Parameters
    ----------
    hypotheses : HypothesisClass
    n, m : int
    epsilon1 : float
        The selection's and the vote's epsilon.
    flip_probability : float or Fraction
    disagreement : int, optional
        ``t`` for the net route; by default the best of a data-independent search.

    Returns
    -------
    Theorem2Certificate
    """
    h = _class(hypotheses)
    n, m = _subset(n, m)
    e1 = check_epsilon(epsilon1, "epsilon1")
    p = _flip_probability(flip_probability, "flip_probability")
    direct = corollary1_epsilon(n, m, 2 * e1, p)
    t = (
        check_integer(disagreement, "disagreement", 2)
        if disagreement is not None
        else _best_t(h, n, m, e1, p)
    )
    net, dr = _net_epsilon(h, n, m, e1, p, t) if t is not None else (math.inf, 1.0)
    if not math.isfinite(net):
        t = None
    route = "net" if net < direct else "direct"
    return Theorem2Certificate(min(net, direct), route, direct, net, t, dr)


# --------------------------------------------------------------------------------------------
# Choosing parameters that meet a target (float search, rigorous check)
# --------------------------------------------------------------------------------------------


def _largest(
    valid: Callable[[float], bool], guess: float, cap: float = _EPSILON_CAP
) -> Optional[float]:
    """The largest value near ``guess`` (``<= cap``) for which ``valid`` holds, stepping down
    from the float guess until the rigorous check passes."""
    x = min(guess, cap)
    for i in range(200):
        if x <= 0 or not math.isfinite(x):
            return None
        if valid(x):
            return x
        x *= (1 - 1e-9) if i < 20 else 0.5
    return None


def max_epsilon0(n: int, m: int, gamma: float) -> Optional[float]:
    """The largest ``epsilon0`` (capped) with :func:`stable_gamma` ``<= gamma``, or ``None``."""
    q = m / n
    if q >= gamma:
        return None
    r = (gamma - q) / (1 - q)
    guess = _EPSILON_CAP if r >= 1 else 2 * math.atanh(r)
    return _largest(lambda e: stable_gamma(n, m, e) <= gamma, guess)


def max_subset(n: int, epsilon: float, p: Fraction) -> int:
    """The largest ``m`` with ``1 + (1-2p) m/(n p) <= e^epsilon`` (0 if none)."""
    pf = float(p)
    m = min(n, int(math.floor(n * pf * math.expm1(epsilon) / (1 - 2 * pf))) + 1)
    with decimal.localcontext(_context(_DIGITS)):
        pd = _d(p)
        bound = Decimal(epsilon).exp()
        while m > 0 and 1 + (1 - 2 * pd) * Decimal(m) / (Decimal(n) * pd) > bound:
            m -= 1
    return m


def max_inner_epsilon(n: int, m: int, epsilon: float, p: Fraction) -> Optional[float]:
    """The largest inner epsilon ``c`` (capped) with :func:`corollary1_epsilon` ``<= epsilon``,
    or ``None`` if even the subset term exceeds it."""
    if corollary1_epsilon(n, m, 1e-12, p) > epsilon:
        return None
    pf, q, target = float(p), m / n, math.exp(epsilon)
    if _flip_ratio_float(q, _EPSILON_CAP, pf) <= target:
        guess = _EPSILON_CAP
    else:  # the float bound increases with c: bisection
        lo, hi = 0.0, _EPSILON_CAP
        for _ in range(200):
            mid = (lo + hi) / 2
            if _flip_ratio_float(q, mid, pf) <= target:
                lo = mid
            else:
                hi = mid
        guess = lo
    return _largest(lambda c: corollary1_epsilon(n, m, c, p) <= epsilon, guess)


def default_flip_probability(hypotheses: HypothesisClass, n: int, epsilon: float) -> float:
    r"""The practical mode's flip probability
    :math:`p = \min(1/4, \tfrac12\sqrt{d / ((e^\varepsilon - 1) n)})`, from public quantities
    only (``d`` the VC dimension).

    It balances the flip's cost ``p`` against the cover's approximation error, roughly
    ``d / (4m)`` with the subset size ``m ≈ p (e^ε - 1) n`` that :func:`corollary1_epsilon`
    allows (the factor 1/2 was the best of 1, 1/2 and 1/4 for thresholds, intervals and planar
    halfspaces with 10% label noise, ``n`` from 300 to 10^4, ``epsilon = 1``). A heuristic for
    accuracy; privacy holds for any ``p``.
    """
    h = _class(hypotheses)
    n = check_integer(n, "n")
    e = check_epsilon(epsilon)
    d = max(1, _vc(h))
    return min(0.25, 0.5 * math.sqrt(d / (math.expm1(e) * n)))


# --------------------------------------------------------------------------------------------
# Theory settings
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PredictionSetting:
    """Parameters and sample size from the theory's conditions (what a ``theory`` mode uses).

    Attributes
    ----------
    method : str
        ``"stable"`` (Theorem 1), ``"corollary1"`` or ``"theorem2"``.
    alpha : float
        The accuracy target.
    target : float
        ``gamma`` (stable) or ``epsilon`` (private).
    n : int
        The smallest sample size found meeting every condition.
    subsample_size : int
        ``m`` at that ``n``.
    inner_epsilon : float
        ``epsilon0`` (stable, corollary1) or ``epsilon1`` (theorem2).
    flip_probability : float
        ``0`` for the stable predictor.
    n_blocks : int
        Blocks of the realizable learner (theorem2), else 0.
    disagreement : int
        The net route's ``t`` (theorem2), else 0.
    certified : float
        The certified stability or per-query epsilon at ``n``.
    excess_error : float
        The guaranteed bound on ``L_D(A) - opt``.
    failure : float
        The probability over the sample with which the bound may fail.
    """

    method: str
    alpha: float
    target: float
    n: int
    subsample_size: int
    inner_epsilon: float
    flip_probability: float
    n_blocks: int
    disagreement: int
    certified: float
    excess_error: float
    failure: float


def _stable_conditions(
    h: HypothesisClass, alpha: float, gamma: float, n: int
) -> Optional[Tuple[int, float]]:
    """``(m, epsilon0)`` if Lemma 7's conditions hold at ``n`` (with ``m = floor(gamma n / 2)``
    and the largest certified ``epsilon0``), else ``None``."""
    m = int(math.floor(gamma * n / 2))
    if m < 1:
        return None
    e0 = max_epsilon0(n, m, gamma)
    if e0 is None or m < epsilon_net_size(h, alpha, alpha):
        return None
    if n < uniform_convergence_size(h, alpha, alpha):
        return None
    if n * alpha * e0 < 2 * _log_growth(h, m):
        return None
    return m, e0


def _smallest_n(feasible: Callable[[int], Any], start: int) -> int:
    """Smallest ``n >= start`` with ``feasible(n)``, to a relative ``1e-6`` (the conditions are
    monotone in ``n`` up to rounding, and the returned ``n`` is feasible)."""
    n = first_true(feasible, max(1, start), rel=10**6, limit=1 << 80)
    if n is None:
        raise InvalidParameterError(
            "alpha: no sample size below 2^80 meets the conditions", "alpha"
        )
    return n


def stable_setting(hypotheses: HypothesisClass, alpha: float, gamma: float) -> PredictionSetting:
    r"""Theorem 1's sample size and parameters for accuracy ``alpha`` and stability ``gamma``.

    Dagan and Feldman, Lemma 7 and Theorem 1, with the explicit forms of this module: with
    ``m = floor(gamma n / 2)`` and the largest ``epsilon0`` whose :func:`stable_gamma` is at most
    ``gamma``, the smallest ``n`` (up to a relative ``1e-6``) such that

    * ``m >= epsilon_net_size(C, alpha, alpha)`` (the cover holds a hypothesis within ``alpha``
      of the best on ``S``, except with probability ``alpha`` over the subset);
    * ``n >= 2 ln Pi_C(m) / (alpha epsilon0)`` (the exponential mechanism loses at most ``alpha``
      in expectation: ``E[err] <= min err + 2 ln|H| / epsilon0``);
    * ``n >= uniform_convergence_size(C, alpha, alpha)``.

    Then the predictor is ``gamma``-uniformly stable and, with probability at least
    ``1 - alpha`` over ``S``, :math:`L_D(A_S) \le \mathrm{opt} + 5\alpha` (``2 alpha`` from the
    net and its failure, ``alpha`` from the mechanism, ``2 alpha`` from uniform convergence),
    i.e. :math:`n = O(d\log(1/\alpha)/(\alpha\gamma) + d/\alpha^2)`.
    """
    h = _class(hypotheses)
    a = check_probability(alpha, "alpha")
    g = check_probability(gamma, "gamma", one_ok=True)
    start = max(uniform_convergence_size(h, a, a), math.ceil(2 * epsilon_net_size(h, a, a) / g))
    n = _smallest_n(lambda k: _stable_conditions(h, a, g, k) is not None, start)
    m, e0 = _stable_conditions(h, a, g, n)  # type: ignore[misc]
    return PredictionSetting("stable", a, g, n, m, e0, 0.0, 0, 0, stable_gamma(n, m, e0), 5 * a, a)


def corollary1_setting(
    hypotheses: HypothesisClass, alpha: float, epsilon: float
) -> PredictionSetting:
    r"""Corollary 1's sample size and parameters for accuracy ``alpha`` and per-query privacy
    ``epsilon``: Theorem 1 at accuracy ``alpha/2`` and stability ``gamma = alpha epsilon / 2``,
    flipped with probability ``p = alpha/2``. The flip makes every answer at least ``p`` likely,
    turning the additive ``gamma`` into the factor ``1 + (1-2p)gamma/p <= e^epsilon``
    (:func:`corollary1_epsilon` certifies it, usually with room to spare). With probability at
    least ``1 - alpha/2``, :math:`L_D \le \mathrm{opt} + 3\alpha`, so
    :math:`n = \tilde O(d/(\alpha^2\varepsilon))` for ``epsilon <= 1``.
    """
    h = _class(hypotheses)
    a = check_probability(alpha, "alpha")
    e = check_epsilon(epsilon)
    p = _flip_probability(a / 2, "alpha")
    gamma = min(1.0, a * e / 2)
    st = stable_setting(h, a / 2, gamma)
    eps = corollary1_epsilon(st.n, st.subsample_size, st.inner_epsilon, p)
    return PredictionSetting(
        "corollary1",
        a,
        e,
        st.n,
        st.subsample_size,
        st.inner_epsilon,
        float(p),
        0,
        0,
        eps,
        3 * a,
        a / 2,
    )


def _theorem2_at(
    h: HypothesisClass, a: float, e: float, n: int, q: float, s: float, p: Fraction
) -> Optional[PredictionSetting]:
    """The Theorem 2 setting at ``n`` with subset fraction ``q`` and ``epsilon1 t = s``, if every
    condition of Lemma 8 holds, else ``None``."""
    m = int(math.floor(q * n))
    if m < 2:
        return None
    t_min = 1 + -((-8 * (n - 1)) // (m - 1))

    def eps_at(t: int) -> float:
        return _net_epsilon_float(h, n, m, s / t, float(p), t)

    if eps_at(n) > e:
        return None
    t = first_true(lambda k: eps_at(k) <= e, t_min, stop=n)
    assert t is not None
    e1 = s / t
    if m < epsilon_net_size(h, a, a) or n < uniform_convergence_size(h, a, a):
        return None
    if n * a * e1 < 2 * _log_growth(h, m):
        return None
    k = math.ceil(4 * math.log(2 / a) / e1)
    if n // k < epsilon_net_size(h, a / 8, min(0.5, a / k)):
        return None
    cert = theorem2_epsilon(h, n, m, e1, p, disagreement=t)
    if cert.epsilon > e:
        return None
    return PredictionSetting(
        "theorem2", a, e, n, m, e1, float(p), k, t, cert.epsilon, 6.5 * a, 2 * a
    )


def theorem2_setting(
    hypotheses: HypothesisClass, alpha: float, epsilon: float
) -> PredictionSetting:
    r"""Theorem 2's sample size and parameters for accuracy ``alpha`` and per-query privacy
    ``epsilon`` (Dagan and Feldman, Lemma 8, with the net-route certificate of
    :func:`theorem2_epsilon`; flip ``p = alpha/2``).

    The conditions, at subset size ``m`` and selection/vote parameter ``epsilon1``:
    ``n >= uniform_convergence_size(C, alpha, alpha)``; ``m >= epsilon_net_size(C, alpha,
    alpha)``; ``n >= 2 ln Pi_C(m)/(alpha epsilon1)``; the realizable learner has
    ``k = ceil(4 ln(2/alpha)/epsilon1)`` blocks, each of at least
    ``epsilon_net_size(C, alpha/8, alpha/k)`` examples (its error is then at most
    ``4 alpha/8 + e^{-epsilon1 k/4} <= alpha``, for every relabelling at once); and the net
    route certifies ``epsilon``. Then, with probability at least ``1 - 2 alpha``,
    :math:`L_D \le \mathrm{opt} + 6.5\alpha`. The search scans the subset fraction ``q = m/n``
    and the product ``s = epsilon1 t`` on grids and returns the smallest ``n`` found (then ``t``
    is the smallest certifying budget and ``epsilon1 = s/t``).

    The constants are large: as spec/003 §4 warns, even for thresholds at ``alpha = 0.1``,
    ``epsilon = 1`` this asks for ``n`` of order ``10^7`` to ``10^8``. The practical mode of
    :class:`~privlearn.prediction.PrivatePredictor` runs the same algorithm at any ``n`` with
    exact accounting.
    """
    h = _class(hypotheses)
    a = check_probability(alpha, "alpha")
    e = check_epsilon(epsilon)
    p = _flip_probability(a / 2, "alpha")
    best: Optional[PredictionSetting] = None
    start = max(uniform_convergence_size(h, a, a), 16)
    for q in [min(0.5, e) * 2.0**-j for j in range(1, 9)]:
        for s in (0.02, 0.05, 0.1, 0.2, 0.35):
            try:
                n = _smallest_n(lambda k: _theorem2_at(h, a, e, k, q, s, p) is not None, start)  # noqa: B023
            except InvalidParameterError:
                continue
            if best is None or n < best.n:
                best = _theorem2_at(h, a, e, n, q, s, p)
    if best is None:
        raise InvalidParameterError("alpha: no setting found (the target is out of reach)", "alpha")
    return best
