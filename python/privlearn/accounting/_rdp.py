r"""Rényi differential privacy: the immutable :class:`RdpCurve` and the mechanisms' curves.

A mechanism is :math:`(\alpha, \tau)`-RDP if :math:`D_\alpha(M(x) \| M(x')) \le \tau` for all
neighbours (Mironov, "Rényi Differential Privacy", CSF 2017, Definition 4). An
:class:`RdpCurve` holds an upper bound :math:`\tau(\alpha)` at every order of the fixed grid
:data:`RDP_ORDERS` (dp_accounting's default orders), for one stated neighbouring relation.
Adaptive composition adds the curves order by order (Mironov 2017, Proposition 1). The
constructors give the curves of the Gaussian, Laplace, randomized-response, pure-DP and
bounded-range (exponential) mechanisms, of any zCDP guarantee, and of the Poisson-subsampled
Gaussian. Every value is an upper bound rounded *up* to a float: exact rational arithmetic
where the formula is rational, else 80-digit decimal arithmetic with a proven margin
(:func:`privlearn.accounting._neighbours._sum_up`; the bounded-range curve, whose terms cancel,
with more digits and its own error bound, :func:`_br_renyi_up`). Conversions to
:math:`(\varepsilon, \delta)` are in :mod:`privlearn.accounting._convert`.
"""

from __future__ import annotations

import decimal
import math
from decimal import Decimal
from fractions import Fraction
from typing import Dict, Iterable, List, Sequence, Tuple

from .._validate import (
    check_epsilon,
    check_integer,
    check_iterable,
    check_positive,
    check_probability,
    check_real,
)
from ..errors import InvalidParameterError
from ._neighbours import (
    _RDIGITS,
    ADD_REMOVE_ONE,
    REPLACE_ONE,
    _fsum_up,
    _neighbours_arg,
    _rcontext,
    _same_neighbours,
    _sum_up,
)
from ._numerics import _context, _expm1, _float_up, _log1p, _overflow_guard
from ._zcdp import ZcdpBudget

#: The Rényi orders of every :class:`RdpCurve`: 1.1, 1.2, ..., 10.9 (computed as
#: ``1 + x / 10.0``), the integers 11 to 63, and 128, 256, 512, 1024. These are the default
#: orders of Google's dp_accounting (``DEFAULT_RDP_ORDERS`` in
#: ``dp_accounting/rdp/rdp_privacy_accountant.py``, version 0.6.0), so that curves and
#: conversions can be compared with it order by order.
RDP_ORDERS: Tuple[float, ...] = tuple(
    [1 + x / 10.0 for x in range(1, 100)]
    + [float(a) for a in range(11, 64)]
    + [128.0, 256.0, 512.0, 1024.0]
)

_N = len(RDP_ORDERS)


def _curve_values(values: Sequence[float], neighbours: str) -> "RdpCurve":
    self = object.__new__(RdpCurve)
    object.__setattr__(self, "_eps", tuple(v + 0.0 for v in values))
    object.__setattr__(self, "_neighbours", neighbours)
    return self


class RdpCurve:
    r"""An RDP guarantee: an upper bound :math:`\tau(\alpha)` at each order of :data:`RDP_ORDERS`.

    The mechanism is :math:`(\alpha, \tau(\alpha))`-RDP at every order of the grid (Mironov,
    CSF 2017, Definition 4), for the stated neighbouring relation. Values are floats >= 0 or
    ``inf`` (no bound at that order). Immutable and hashable; ``==`` compares all values and
    the neighbouring notion.

    **Composition.** ``a + b`` is the adaptive composition: :math:`\tau_a(\alpha) +
    \tau_b(\alpha)` at every order (Mironov 2017, Proposition 1); ``k * a`` composes ``a`` with
    itself ``k`` times. Every value is the exact sum (or product) rounded *up* to a float;
    :func:`compose_rdp` rounds a sum of many curves once, so its result does not depend on the
    order or grouping. Both operands must state the same neighbouring notion, else
    :class:`~privlearn.errors.InvalidParameterError`.

    Parameters
    ----------
    epsilons : sequence of float
        :math:`\tau(\alpha)` for each order of :data:`RDP_ORDERS`, in that order; each a float
        >= 0 or ``inf`` (rationals that no float holds are refused).
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"

    Raises
    ------
    InvalidParameterError
        On a wrong length, a negative, NaN or non-number value, or an unknown notion.
    """

    __slots__ = ("_eps", "_neighbours")

    _eps: Tuple[float, ...]
    _neighbours: str

    def __init__(self, epsilons: Sequence[float], neighbours: str = REPLACE_ONE) -> None:
        values = list(epsilons)
        if len(values) != _N:
            raise InvalidParameterError(
                f"epsilons: must give one value per order of RDP_ORDERS ({_N}); got {len(values)}",
                "epsilons",
            )
        checked = []
        for i, v in enumerate(values):
            if isinstance(v, float) and v == math.inf:
                checked.append(math.inf)
            else:
                checked.append(check_real(v, f"epsilons[{i}]", 0.0, exact=True))
        object.__setattr__(self, "_eps", tuple(checked))
        object.__setattr__(self, "_neighbours", _neighbours_arg(neighbours))

    @property
    def orders(self) -> Tuple[float, ...]:
        """The Rényi orders, :data:`RDP_ORDERS`."""
        return RDP_ORDERS

    @property
    def epsilons(self) -> Tuple[float, ...]:
        r""":math:`\tau(\alpha)` at each order (floats >= 0 or ``inf``)."""
        return self._eps

    @property
    def neighbours(self) -> str:
        """The neighbouring relation: ``"replace-one"`` or ``"add/remove-one"``."""
        return self._neighbours

    def at(self, order: float) -> float:
        r""":math:`\tau` at ``order``, which must be one of :data:`RDP_ORDERS`."""
        try:
            return self._eps[RDP_ORDERS.index(order)]
        except ValueError:
            raise InvalidParameterError(
                f"order: must be one of RDP_ORDERS; got {order!r}", "order"
            ) from None

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("RdpCurve is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("RdpCurve is immutable")

    def __reduce__(self) -> Tuple[type, Tuple[Tuple[float, ...], str]]:
        return (RdpCurve, (self._eps, self._neighbours))

    def __repr__(self) -> str:
        shown = ", ".join(f"{a:g}: {self.at(a):.6g}" for a in (2.0, 8.0, 32.0, 1024.0))
        return f"RdpCurve({{{shown}, ...}}, neighbours={self._neighbours!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RdpCurve):
            return NotImplemented
        return self._eps == other._eps and self._neighbours == other._neighbours

    def __hash__(self) -> int:
        return hash((self._eps, self._neighbours))

    def __add__(self, other: object) -> "RdpCurve":
        if not isinstance(other, RdpCurve):
            return NotImplemented
        return compose_rdp([self, other])

    def __mul__(self, k: object) -> "RdpCurve":
        if isinstance(k, bool) or not hasattr(type(k), "__index__"):
            return NotImplemented
        k = check_integer(k, "k", 0)
        if k == 0:
            return _curve_values([0.0] * _N, self._neighbours)
        return _curve_values(
            [v if math.isinf(v) else _float_up(k * Fraction(v)) for v in self._eps],
            self._neighbours,
        )

    __rmul__ = __mul__


def compose_rdp(curves: Iterable[RdpCurve]) -> RdpCurve:
    r"""Adaptive composition of RDP curves: the sum at every order.

    If mechanism :math:`i` is :math:`(\alpha, \tau_i(\alpha))`-RDP (each possibly chosen from
    the previous outputs), their composition is :math:`(\alpha, \sum_i \tau_i(\alpha))`-RDP
    (Mironov, CSF 2017, Proposition 1), for the neighbouring relation they share.

    Parameters
    ----------
    curves : iterable of RdpCurve
        All for the same neighbouring notion (empty: the zero curve, replace-one).

    Returns
    -------
    RdpCurve
        At each order the exact sum of the floats rounded up once (so the result does not
        depend on the order of ``curves``).

    Raises
    ------
    InvalidParameterError
        If an element is not an :class:`RdpCurve` or the neighbouring notions differ.
    """
    items: List[RdpCurve] = []
    neighbours = None
    for c in check_iterable(curves, "curves"):
        if not isinstance(c, RdpCurve):
            raise InvalidParameterError(
                f"curves: every element must be an RdpCurve; got {c!r} of type {type(c).__name__}",
                "curves",
            )
        neighbours = (
            c.neighbours
            if neighbours is None
            else _same_neighbours(neighbours, c.neighbours, "curves")
        )
        items.append(c)
    if neighbours is None:
        return _curve_values([0.0] * _N, REPLACE_ONE)
    if len(items) == 1:
        return items[0]
    columns = zip(*(c._eps for c in items))
    return _curve_values([_fsum_up(col) for col in columns], neighbours)


# --------------------------------------------------------------------------------------------
# Curves of mechanisms
# --------------------------------------------------------------------------------------------


def _exact_curve(factor: Fraction, neighbours: str) -> RdpCurve:
    """The curve ``factor * alpha`` (exact, rounded up)."""
    return _curve_values([_float_up(factor * Fraction(a)) for a in RDP_ORDERS], neighbours)


def rdp_gaussian(
    sigma: float, sensitivity: float = 1.0, *, neighbours: str = REPLACE_ONE
) -> RdpCurve:
    r"""The Gaussian mechanism: :math:`\tau(\alpha) = \alpha\Delta^2/(2\sigma^2)`, exact.

    Adding :math:`N(0, \sigma^2 I)` to a query of L2 sensitivity :math:`\Delta` (under the
    stated neighbouring relation) is :math:`(\alpha, \alpha\Delta^2/(2\sigma^2))`-RDP for
    every :math:`\alpha > 1`, with equality for the worst pair of neighbours (Mironov, CSF
    2017, Proposition 7 and Table II).

    Parameters
    ----------
    sigma : float
        Standard deviation of the noise, > 0.
    sensitivity : float, default 1.0
        L2 sensitivity for the stated relation, > 0.
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"

    Returns
    -------
    RdpCurve
        Computed exactly in rationals, rounded up.

    Raises
    ------
    InvalidParameterError
        On a non-positive or non-finite ``sigma`` or ``sensitivity``.

    Examples
    --------
    >>> rdp_gaussian(1.0).at(2.0)
    1.0
    """
    s = check_positive(sigma, "sigma")
    d = check_positive(sensitivity, "sensitivity")
    return _exact_curve(Fraction(d) ** 2 / (2 * Fraction(s) ** 2), _neighbours_arg(neighbours))


def rdp_zcdp(budget: ZcdpBudget) -> RdpCurve:
    r"""The RDP curve of a :math:`\rho`-zCDP guarantee: :math:`\tau(\alpha) = \rho\alpha`.

    This is the definition of zCDP (Bun and Steinke, TCC 2016, Definition 1.1) read at the
    orders of :data:`RDP_ORDERS`; the neighbouring notion is the budget's.

    Parameters
    ----------
    budget : ZcdpBudget

    Returns
    -------
    RdpCurve
        Exact products rounded up.

    Raises
    ------
    InvalidParameterError
        If ``budget`` is not a :class:`ZcdpBudget`.
    """
    if not isinstance(budget, ZcdpBudget):
        raise InvalidParameterError(
            f"budget: must be a ZcdpBudget; got {budget!r} of type {type(budget).__name__}",
            "budget",
        )
    return _exact_curve(Fraction(budget.rho), budget.neighbours)


def _dec(x: float) -> Decimal:
    return Decimal(x)  # exact


def _pair_curve(e: Decimal, k: int) -> List[float]:
    r"""Upper bounds of :math:`\frac{1}{\alpha-1}\ln\frac{e^{\alpha\epsilon} +
    e^{(1-\alpha)\epsilon} + k - 2}{e^\epsilon + k - 1}` at every order (k-ary randomized
    response with parameter ``e``)."""
    out = []
    with decimal.localcontext(_rcontext()):
        den = (e.exp() + (k - 1)).ln()
        for a in RDP_ORDERS:
            alpha = _dec(a)
            am1 = alpha - 1
            num = ((alpha * e).exp() + (-am1 * e).exp() + (k - 2)).ln()
            out.append(max(_sum_up([num / am1, -den / am1]), 0.0))
    return out


@_overflow_guard
def rdp_randomized_response(
    epsilon: float, k: int = 2, *, neighbours: str = REPLACE_ONE
) -> RdpCurve:
    r"""k-ary randomized response with parameter :math:`\varepsilon`: its exact Rényi curve.

    The mechanism reports its input with probability :math:`e^\varepsilon/(e^\varepsilon+k-1)`
    and each other of the ``k`` values with probability :math:`1/(e^\varepsilon+k-1)` (as
    :func:`privlearn.mechanisms.randomized_response_k`; ``k = 2`` is
    :func:`privlearn.mechanisms.randomized_response`). Two different inputs give the output
    distributions :math:`P = (e^\varepsilon, 1, 1, \dots)/Z` and :math:`Q = (1,
    e^\varepsilon, 1, \dots)/Z`, :math:`Z = e^\varepsilon + k - 1`, whence

    .. math::

        \tau(\alpha) = \frac{1}{\alpha - 1} \ln \frac{e^{\alpha\varepsilon}
        + e^{(1-\alpha)\varepsilon} + k - 2}{e^\varepsilon + k - 1},

    exact for every pair of neighbours whose records differ (for ``k = 2`` this is Mironov, CSF
    2017, Table II, randomized response with :math:`p = e^\varepsilon/(1+e^\varepsilon)`; the
    k-ary form is the same computation, and is dp_accounting's replace-one formula).

    Parameters
    ----------
    epsilon : float
        Finite, > 0.
    k : int, default 2
        Number of values, >= 2.
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"
        The relation of the local-DP guarantee (one record's value changes).

    Returns
    -------
    RdpCurve
        Evaluated in 80-digit decimal arithmetic with a proven margin, rounded up.

    Raises
    ------
    InvalidParameterError
        On an epsilon that is not finite and > 0, or ``k < 2``.
    """
    e = check_epsilon(epsilon)
    kk = check_integer(k, "k", 2)
    return _curve_values(_pair_curve(_dec(e), kk), _neighbours_arg(neighbours))


@_overflow_guard
def rdp_pure(epsilon: float, *, neighbours: str = REPLACE_ONE) -> RdpCurve:
    r"""Any :math:`\varepsilon`-DP mechanism: the tight Rényi curve of pure DP.

    If :math:`M` is :math:`\varepsilon`-DP, then for every :math:`\alpha > 1`

    .. math::

        D_\alpha(M(x) \| M(x')) \le \frac{1}{\alpha-1}
        \ln\frac{e^{\alpha\varepsilon} + e^{(1-\alpha)\varepsilon}}{1 + e^\varepsilon}
        = \frac{1}{\alpha-1}\ln\frac{\sinh(\alpha\varepsilon)
          - \sinh((\alpha-1)\varepsilon)}{\sinh\varepsilon}
        \le \min\left(\varepsilon, \frac{\alpha\varepsilon^2}{2}\right),

    with equality for binary randomized response. This is the bound in the proof of Bun and
    Steinke, TCC 2016, Proposition 3.3 (whose consequence is :math:`\varepsilon^2/2`-zCDP).
    Derivation: with :math:`L = dP/dQ \in [e^{-\varepsilon}, e^\varepsilon]` and
    :math:`E_Q[L] = 1`, :math:`E_Q[L^\alpha]` is a convex function of :math:`L`, maximised
    when :math:`L` takes only the two extreme values, with :math:`Q`-mass
    :math:`1/(1+e^\varepsilon)` on :math:`e^\varepsilon`: that is randomized response.

    Parameters
    ----------
    epsilon : float
        The pure-DP parameter, finite and > 0.
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"

    Returns
    -------
    RdpCurve
        Evaluated in 80-digit decimal arithmetic with a proven margin, rounded up.

    Raises
    ------
    InvalidParameterError
        On an epsilon that is not finite and > 0.
    """
    e = check_epsilon(epsilon)
    return _curve_values(_pair_curve(_dec(e), 2), _neighbours_arg(neighbours))


def _extra_digits(epsilon: float) -> int:
    """Digits lost to cancellation in :func:`_br_renyi`: the divergence is O(eps**2) while its
    terms are O(ln(1/eps))."""
    return 2 * max(0, math.ceil(-math.log10(epsilon))) + 10


def _br_parts(e: Decimal, c: Decimal) -> Tuple[Decimal, Decimal, Decimal, Decimal, Decimal]:
    """(c ln u*, ln(A - B u*), ln(e^eps - 1), A + B u*, A - B u*) of :func:`_br_renyi`."""
    em1 = _expm1(e)  # e^eps - 1
    b = -_expm1(-c * e)  # 1 - e^{-c eps}
    a = em1 + b  # e^eps - e^{-c eps}
    u = c * a / ((c + 1) * b)
    u = min(max(u, Decimal(1)), em1 + 1)
    bu = b * u
    return c * u.ln(), (a - bu).ln(), em1.ln(), a + bu, a - bu


def _br_renyi(e: Decimal, c: Decimal) -> Decimal:
    r"""The largest Rényi divergence of order ``1 + c`` of an ``e``-BR pair (current context).

    For a pair with privacy loss :math:`L \in [t - \varepsilon, t]` and
    :math:`E_P[e^{-L}] = 1`, write :math:`u = e^{-L}`: the divergence is
    :math:`\frac1c \ln E_P[u^{-c}]` with :math:`u^{-c}` convex and :math:`E_P[u] = 1` fixed, so it
    is largest when :math:`L` takes only the two end values: generalised randomized response
    :math:`RR_{\varepsilon,t}` (loss :math:`t` with probability
    :math:`q = (e^\varepsilon - e^t)/(e^\varepsilon - 1)`, else :math:`t - \varepsilon`). Then
    :math:`E_P[e^{cL}] = h(e^t) / (e^\varepsilon - 1)` with :math:`h(u) = u^c (A - B u)`,
    :math:`A = e^\varepsilon - e^{-c\varepsilon}`, :math:`B = 1 - e^{-c\varepsilon}`;
    :math:`h` has one critical point on :math:`[1, e^\varepsilon]` (where it equals
    :math:`e^\varepsilon - 1` at both ends), :math:`u^* = cA / ((c + 1) B)`: the maximum over
    :math:`t \in [0, \varepsilon]` in closed form.
    """
    c_log_u, log_rest, log_em1, _, _ = _br_parts(e, c)
    return (c_log_u + log_rest - log_em1) / c


def _br_renyi_up(epsilon: float, c: Decimal) -> Decimal:
    r"""An upper bound on :func:`_br_renyi` at ``epsilon`` and order ``1 + c`` (``c > 0``).

    Evaluated with ``80 + _extra_digits(epsilon)`` digits; an explicit first-order bound on the
    rounding error is added. With :math:`\eta = 10^{1-p}` (``p`` digits; every decimal
    operation is correctly rounded, relative error :math:`\le \eta/2`): ``e^eps - 1``, ``B`` and
    ``A`` carry relative errors below :math:`10\eta`, :math:`u^*` below :math:`30\eta`;
    :math:`c \ln u` is then off by at most :math:`31\eta\, c (1 + |\ln u|)`,
    :math:`\ln(A - Bu)` by :math:`50\eta (A + Bu)/(A - Bu) + \eta |\ln(A - Bu)|`,
    :math:`\ln(e^\varepsilon - 1)` by :math:`11\eta (1 + |\ln(e^\varepsilon - 1)|)`, and the
    sum by :math:`3\eta` times the sum of the absolute values; an error in :math:`u` moves the
    value off the maximum of the concave :math:`\ln h` by at most
    :math:`\frac12 c (c + 1)(30\eta)^2 \le c (c + 1) \eta` (the derivative vanishes at
    :math:`u^*`), or, at a clamped end, by at most the terms above. The margin added is
    :math:`1000\eta` times the sum of all those scales, divided by ``c``.
    """
    digits = _RDIGITS + _extra_digits(epsilon)
    with decimal.localcontext(_context(digits)):
        c_log_u, log_rest, log_em1, plus, minus = _br_parts(Decimal(epsilon), c)
        value = (c_log_u + log_rest - log_em1) / c
        scale = c * (c + 2) + 1 + 2 * (abs(c_log_u) + abs(log_rest) + abs(log_em1)) + plus / minus
        return value + scale / c * Decimal(10) ** (4 - digits)


@_overflow_guard
def rdp_bounded_range(epsilon: float, *, neighbours: str = REPLACE_ONE) -> RdpCurve:
    r"""An :math:`\varepsilon`-bounded-range mechanism, such as the exponential mechanism.

    A mechanism is :math:`\varepsilon`-bounded-range (:math:`\varepsilon`-BR; Durfee and
    Rogers, NeurIPS 2019) if for all neighbours its privacy loss lies in an interval
    :math:`[t - \varepsilon, t]` of width :math:`\varepsilon`; the exponential mechanism with
    weights :math:`\exp(\varepsilon u / (2\Delta u))` is :math:`\varepsilon`-BR (Durfee and
    Rogers 2019). Its curve is the exact worst case over BR pairs,

    .. math::

        \tau(\alpha) = \max_{t \in [0, \varepsilon]} D_\alpha(RR_{\varepsilon,t})
            = \frac{1}{c}\,
            \ln\frac{u^c\,(e^\varepsilon - e^{-c\varepsilon} - u(1 - e^{-c\varepsilon}))}
                     {e^\varepsilon - 1},
        \quad c = \alpha - 1,\ u = \frac{c\,(e^\varepsilon - e^{-c\varepsilon})}
                                         {\alpha\,(1 - e^{-c\varepsilon})},

    where :math:`RR_{\varepsilon,t}` is the generalised randomized response of Dong, Durfee
    and Rogers (ICML 2020), whose privacy loss takes the two values :math:`t` and
    :math:`t - \varepsilon`. Proof sketch: with :math:`L \in [t - \varepsilon, t]` and
    :math:`E_P[e^{-L}] = 1`, the divergence :math:`\frac{1}{c}\ln E_P[e^{cL}]` is a convex
    function of :math:`e^{-L}` with a fixed mean, so it is largest when :math:`L` takes only
    the two end values (that is :math:`RR_{\varepsilon,t}`, itself :math:`\varepsilon`-BR;
    the loss interval contains 0, so :math:`t \in [0, \varepsilon]`), and the maximum over
    :math:`t` has the closed form above (see :func:`_br_renyi`). It is at most
    :math:`\alpha\varepsilon^2/8`, the :math:`\varepsilon^2/8`-zCDP bound of Cesar and Rogers
    (ALT 2021; see :func:`privlearn.accounting._zcdp.zcdp_bounded_range`), and at most the
    pure-DP curve :func:`rdp_pure` (an :math:`\varepsilon`-BR mechanism is
    :math:`\varepsilon`-DP), and slightly below both.

    Parameters
    ----------
    epsilon : float
        The bounded-range parameter, finite and > 0.
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"

    Returns
    -------
    RdpCurve
        Evaluated in decimal arithmetic with ``80 + 2 * max(0, ceil(-log10(epsilon))) + 10``
        digits and an explicit error margin (:func:`_br_renyi_up`), rounded up.

    Raises
    ------
    InvalidParameterError
        On an epsilon that is not finite and > 0.

    Examples
    --------
    >>> rdp_bounded_range(1.0).at(2.0) < 2.0 / 8
    True
    """
    e = check_epsilon(epsilon)
    nb = _neighbours_arg(neighbours)
    values = [_float_up(_br_renyi_up(e, _dec(a) - 1)) for a in RDP_ORDERS]
    return _curve_values(values, nb)


@_overflow_guard
def rdp_laplace(
    scale: float, sensitivity: float = 1.0, *, neighbours: str = REPLACE_ONE
) -> RdpCurve:
    r"""The Laplace mechanism on a real-valued query: its exact Rényi curve.

    Adding Laplace noise of scale :math:`b` to a real-valued query of sensitivity
    :math:`\Delta` (under the stated relation), with :math:`e = \Delta/b`, is
    :math:`(\alpha, \tau(\alpha))`-RDP with

    .. math::

        \tau(\alpha) = \frac{1}{\alpha-1}\ln\left(\frac{\alpha}{2\alpha-1}e^{(\alpha-1)e}
        + \frac{\alpha-1}{2\alpha-1}e^{-\alpha e}\right)
        = e + \frac{1}{\alpha-1}\ln\left(1 + \frac{(\alpha-1)(e^{(1-2\alpha)e}-1)}
        {2\alpha-1}\right),

    with equality for neighbours whose values differ by exactly :math:`\Delta` (Mironov, CSF
    2017, Proposition 6 and Table II). The second form is the one evaluated.

    Parameters
    ----------
    scale : float
        The scale :math:`b` of the noise, > 0.
    sensitivity : float, default 1.0
        The (L1) sensitivity for the stated relation, > 0.
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"

    Returns
    -------
    RdpCurve
        Evaluated in 80-digit decimal arithmetic with a proven margin, rounded up.

    Raises
    ------
    InvalidParameterError
        On a non-positive or non-finite ``scale`` or ``sensitivity``.
    """
    b = check_positive(scale, "scale")
    d = check_positive(sensitivity, "sensitivity")
    nb = _neighbours_arg(neighbours)
    out = []
    with decimal.localcontext(_rcontext()):
        e = _dec(d) / _dec(b)
        for a in RDP_ORDERS:
            alpha = _dec(a)
            am1 = alpha - 1
            inner = am1 * _expm1((1 - 2 * alpha) * e) / (2 * alpha - 1)  # in (-1/2, 0]
            out.append(max(_sum_up([e, _log1p(inner) / am1]), 0.0))
    return _curve_values(out, nb)


def _sgm_log_moments(q: Decimal, sigma: Decimal, orders: Sequence[int]) -> Dict[int, Decimal]:
    r"""``log A_alpha`` of the sampled Gaussian at integer orders (current context).

    :math:`A_\alpha - 1 = \sum_{k=2}^{\alpha} \binom{\alpha}{k} q^k (1-q)^{\alpha-k}
    (e^{(k^2-k)/(2\sigma^2)} - 1)`: the binomial probabilities sum to 1, the terms k = 0, 1
    vanish, and every remaining term is positive, so there is no cancellation.
    """
    top = max(orders)
    growth = [Decimal(0), Decimal(0)]  # e^{(k^2-k)/(2 sigma^2)} - 1
    two_var = 2 * sigma * sigma
    for k in range(2, top + 1):
        growth.append(_expm1(Decimal(k * k - k) / two_var))
    qpow = [Decimal(1)]
    rpow = [Decimal(1)]
    r = 1 - q
    for _ in range(top):
        qpow.append(qpow[-1] * q)
        rpow.append(rpow[-1] * r)
    out = {}
    for a in orders:
        s = Decimal(0)
        for k in range(2, a + 1):
            s += math.comb(a, k) * qpow[k] * rpow[a - k] * growth[k]
        out[a] = _log1p(s)
    return out


@_overflow_guard
def rdp_subsampled_gaussian(rate: float, sigma: float) -> RdpCurve:
    r"""The Poisson-subsampled Gaussian mechanism (add/remove-one neighbours).

    Each record is kept independently with probability :math:`q` (``rate``), the kept
    records' contributions (each of L2 norm at most :math:`\Delta`) are summed and
    :math:`N(0, \sigma^2\Delta^2 I)` is added: ``sigma`` is the noise multiplier. For
    add/remove-one neighbours the Rényi divergence is at most
    :math:`D_\alpha((1-q)\mu_0 + q\mu_1 \| \mu_0)` with :math:`\mu_j = N(j, \sigma^2)`
    (Mironov, Talwar and Zhang, "Rényi Differential Privacy of the Sampled Gaussian
    Mechanism", 2019, Section 3), and at an integer order :math:`\alpha`

    .. math::

        \tau(\alpha) = \frac{1}{\alpha-1}\ln A_\alpha, \qquad
        A_\alpha = \sum_{k=0}^{\alpha} \binom{\alpha}{k} (1-q)^{\alpha-k} q^k
        e^{(k^2-k)/(2\sigma^2)}

    (their Section 3.3, the computation for integer :math:`\alpha`; the same as
    dp_accounting's ``_compute_log_a_int``). At a fractional order :math:`\alpha` between the
    integers :math:`a < \alpha < a + 1` the curve holds the chord of
    :math:`\varphi(\alpha) = \ln A_\alpha = (\alpha-1) D_\alpha`, which is convex in
    :math:`\alpha` (van Erven and Harremoës, "Rényi Divergence and Kullback-Leibler
    Divergence", IEEE Trans. Inf. Theory 2014, Theorem 11) with :math:`\varphi(1) = 0`:
    :math:`\tau(\alpha) \le ((a + 1 - \alpha)\varphi(a) + (\alpha - a)\varphi(a+1))/(\alpha-1)`,
    a valid upper bound slightly above the exact fractional value.

    **Neighbouring notion.** The analysis is for add/remove-one neighbours, so the curve
    records ``"add/remove-one"`` and cannot be composed with replace-one curves (a replace-one
    pair gives the mixtures :math:`(1-q)\mu_0 + q\mu_u` against :math:`(1-q)\mu_0 + q\mu_v`,
    which this formula does not bound).

    Parameters
    ----------
    rate : float
        The sampling probability :math:`q`, in (0, 1].
    sigma : float
        The noise multiplier, > 0.

    Returns
    -------
    RdpCurve
        Evaluated in 80-digit decimal arithmetic with a proven margin, rounded up.

    Raises
    ------
    InvalidParameterError
        On a rate outside (0, 1] or a non-positive or non-finite sigma.
    """
    q = check_probability(rate, "rate", one_ok=True)
    s = check_positive(sigma, "sigma")
    if q == 1.0:
        return _exact_curve(1 / (2 * Fraction(s) ** 2), ADD_REMOVE_ONE)
    with decimal.localcontext(_rcontext()):
        out = _chord_curve(_sgm_log_moments(_dec(q), _dec(s), _integer_orders()))
    return _curve_values(out, ADD_REMOVE_ONE)


def _integer_orders() -> List[int]:
    """The integers needed for :data:`RDP_ORDERS`: each integer order, and the two integers
    around each fractional one (1 excluded: its log-moment is 0)."""
    need = set()
    for a in RDP_ORDERS:
        lo = math.floor(a)
        need.add(lo)
        if a != lo:
            need.add(lo + 1)
    need.discard(1)
    return sorted(need)


def _chord_curve(phi: Dict[int, Decimal]) -> List[float]:
    r"""The RDP bound at every order of :data:`RDP_ORDERS` from upper bounds ``phi[a]`` of the
    log-moment :math:`\varphi(a) = (a - 1) D_a` at the integers of :func:`_integer_orders`:
    exact at an integer order, the chord of :math:`\varphi` between the two neighbouring
    integers at a fractional one (:math:`\varphi` is convex with :math:`\varphi(1) = 0`; van
    Erven and Harremoës, IEEE Trans. Inf. Theory 2014, Theorem 11; Wang, Balle and
    Kasiviswanathan, AISTATS 2019, Corollary 10). Evaluated in the current decimal context and
    rounded up by :func:`~privlearn.accounting._neighbours._sum_up`."""
    phi = dict(phi)
    phi[1] = Decimal(0)
    out = []
    for a in RDP_ORDERS:
        alpha = Decimal(a)  # exact
        lo = math.floor(a)
        if a == lo:
            out.append(_sum_up([phi[lo] / (alpha - 1)]))
        else:
            w_hi = alpha - lo
            w_lo = 1 - w_hi
            out.append(_sum_up([w_lo * phi[lo] / (alpha - 1), w_hi * phi[lo + 1] / (alpha - 1)]))
    return out
