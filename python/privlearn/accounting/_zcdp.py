r"""Zero-concentrated differential privacy: :class:`ZcdpBudget` and the mechanisms' rho.

A mechanism is :math:`\rho`-zCDP (Bun and Steinke, "Concentrated Differential Privacy:
Simplifications, Extensions, and Lower Bounds", TCC 2016, Definition 1.1) if for all
neighbouring datasets and every Rényi order :math:`\alpha > 1`,
:math:`D_\alpha(M(x) \| M(x')) \le \rho\alpha`. Composition adds the rhos, also when each
mechanism is chosen from the outputs of the previous ones (their Lemma 1.7). This module holds
the immutable budget, its composition and the rho of the Gaussian mechanism, of pure
:math:`\varepsilon`-DP and of :math:`\varepsilon`-bounded-range mechanisms (the exponential
mechanism). Conversions to :math:`(\varepsilon, \delta)` are in
:mod:`privlearn.accounting._convert`; every rho is rounded *up* to a float.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Iterable, Tuple

from .._validate import check_epsilon, check_integer, check_iterable, check_positive, check_real
from ..errors import InvalidParameterError
from ._neighbours import REPLACE_ONE, _neighbours_arg, _same_neighbours
from ._numerics import _float_up


class ZcdpBudget:
    r"""A :math:`\rho`-zCDP guarantee for a stated neighbouring relation.

    :math:`\rho`-zCDP means :math:`D_\alpha(M(x) \| M(x')) \le \rho\alpha` for every Rényi
    order :math:`\alpha > 1` and all neighbours :math:`x, x'` (Bun and Steinke, TCC 2016,
    Definition 1.1, with :math:`\xi = 0`). Immutable and hashable; ``==`` compares rho and the
    neighbouring notion.

    **Composition.** ``a + b`` is the adaptive composition of an ``a``- and a ``b``-zCDP
    mechanism: :math:`(\rho_a + \rho_b)`-zCDP (Bun and Steinke 2016, Lemma 1.7); ``k * a``
    composes ``a`` with itself ``k`` times. Sums and products are exact, rounded *up* to the
    next float. Both operands must state the same neighbouring notion, else
    :class:`~privlearn.errors.InvalidParameterError`.

    Parameters
    ----------
    rho : float
        Finite, >= 0 (a float exactly: a rational that no float holds is refused).
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"
        The neighbouring relation the guarantee holds for.

    Raises
    ------
    InvalidParameterError
        On a negative, non-finite or non-number rho, or an unknown neighbouring notion.

    Examples
    --------
    >>> ZcdpBudget(0.5) + ZcdpBudget(0.25)
    ZcdpBudget(rho=0.75, neighbours='replace-one')
    """

    __slots__ = ("_rho", "_neighbours")

    _rho: float
    _neighbours: str

    def __init__(self, rho: float, neighbours: str = REPLACE_ONE) -> None:
        object.__setattr__(self, "_rho", check_real(rho, "rho", 0.0, exact=True))
        object.__setattr__(self, "_neighbours", _neighbours_arg(neighbours))

    @classmethod
    def _unchecked(cls, rho: float, neighbours: str) -> "ZcdpBudget":
        self = object.__new__(cls)
        object.__setattr__(self, "_rho", rho + 0.0)
        object.__setattr__(self, "_neighbours", neighbours)
        return self

    @property
    def rho(self) -> float:
        """The rho of the guarantee (finite, >= 0)."""
        return self._rho

    @property
    def neighbours(self) -> str:
        """The neighbouring relation: ``"replace-one"`` or ``"add/remove-one"``."""
        return self._neighbours

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("ZcdpBudget is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("ZcdpBudget is immutable")

    def __reduce__(self) -> Tuple[type, Tuple[float, str]]:
        return (ZcdpBudget, (self._rho, self._neighbours))

    def __repr__(self) -> str:
        return f"ZcdpBudget(rho={self._rho!r}, neighbours={self._neighbours!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ZcdpBudget):
            return NotImplemented
        return self._rho == other._rho and self._neighbours == other._neighbours

    def __hash__(self) -> int:
        return hash((self._rho, self._neighbours))

    def __add__(self, other: object) -> "ZcdpBudget":
        if not isinstance(other, ZcdpBudget):
            return NotImplemented
        return compose_zcdp([self, other])

    def __mul__(self, k: object) -> "ZcdpBudget":
        if isinstance(k, bool) or not hasattr(type(k), "__index__"):
            return NotImplemented
        k = check_integer(k, "k", 0)
        return _zcdp_up(k * Fraction(self._rho), self._neighbours, "k")

    __rmul__ = __mul__


def _zcdp_up(rho: Fraction, neighbours: str, name: str) -> ZcdpBudget:
    """A ZcdpBudget from an exact rho, rounded up; refuses a rho beyond the largest float."""
    value = _float_up(rho)
    if not math.isfinite(value):
        raise InvalidParameterError(f"{name}: the resulting rho does not fit in a float", name)
    return ZcdpBudget._unchecked(value, neighbours)


def compose_zcdp(budgets: Iterable[ZcdpBudget]) -> ZcdpBudget:
    r"""Adaptive composition of zCDP guarantees: the sum of the rhos.

    Running a :math:`\rho_1`-, ..., :math:`\rho_k`-zCDP mechanism in sequence, each possibly
    chosen from the previous outputs, is :math:`(\sum_i \rho_i)`-zCDP (Bun and Steinke, TCC
    2016, Lemma 1.7), for the neighbouring relation that all of them share.

    Parameters
    ----------
    budgets : iterable of ZcdpBudget
        All for the same neighbouring notion (empty: ``ZcdpBudget(0.0)``, replace-one).

    Returns
    -------
    ZcdpBudget
        The exact sum, rounded up to a float. The result does not depend on the order.

    Raises
    ------
    InvalidParameterError
        If an element is not a :class:`ZcdpBudget`, the notions differ, or the sum overflows.
    """
    total = Fraction(0)
    neighbours = None
    for b in check_iterable(budgets, "budgets"):
        if not isinstance(b, ZcdpBudget):
            raise InvalidParameterError(
                f"budgets: every element must be a ZcdpBudget; got {b!r} of type "
                f"{type(b).__name__}",
                "budgets",
            )
        neighbours = (
            b.neighbours
            if neighbours is None
            else _same_neighbours(neighbours, b.neighbours, "budgets")
        )
        total += Fraction(b.rho)
    return _zcdp_up(total, REPLACE_ONE if neighbours is None else neighbours, "budgets")


def zcdp_gaussian(
    sigma: float, sensitivity: float = 1.0, *, neighbours: str = REPLACE_ONE
) -> ZcdpBudget:
    r"""The Gaussian mechanism: :math:`\rho = \Delta^2 / (2\sigma^2)`.

    Adding :math:`N(0, \sigma^2 I)` to a query whose L2 sensitivity under the stated
    neighbouring relation is :math:`\Delta` is :math:`\Delta^2/(2\sigma^2)`-zCDP, and this is
    exact (Bun and Steinke, TCC 2016, Proposition 1.6; the Rényi divergence of two Gaussians,
    Mironov 2017, Proposition 7).

    Parameters
    ----------
    sigma : float
        The standard deviation of the noise, > 0.
    sensitivity : float, default 1.0
        The L2 sensitivity :math:`\Delta` *for the stated neighbouring relation*, > 0 (for
        replace-one it is the largest change from replacing one record).
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"

    Returns
    -------
    ZcdpBudget
        rho computed exactly and rounded up.

    Raises
    ------
    InvalidParameterError
        On a non-positive or non-finite ``sigma`` or ``sensitivity``.

    Examples
    --------
    >>> zcdp_gaussian(1.0)
    ZcdpBudget(rho=0.5, neighbours='replace-one')
    """
    s = check_positive(sigma, "sigma")
    d = check_positive(sensitivity, "sensitivity")
    return _zcdp_up(Fraction(d) ** 2 / (2 * Fraction(s) ** 2), _neighbours_arg(neighbours), "sigma")


def zcdp_pure(epsilon: float, *, neighbours: str = REPLACE_ONE) -> ZcdpBudget:
    r"""A pure :math:`\varepsilon`-DP mechanism is :math:`\varepsilon^2/2`-zCDP.

    Bun and Steinke, TCC 2016, Proposition 1.4 (proved as Proposition 3.3). The constant is the
    best possible for the worst :math:`\varepsilon`-DP mechanism (randomized response) as
    :math:`\varepsilon \to 0`; its exact Rényi curve is
    :func:`privlearn.accounting._rdp.rdp_pure`.

    Parameters
    ----------
    epsilon : float
        The pure-DP parameter, finite and > 0.
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"
        The relation the :math:`\varepsilon`-DP guarantee holds for (kept unchanged).

    Returns
    -------
    ZcdpBudget
        :math:`\rho = \varepsilon^2/2`, rounded up.

    Raises
    ------
    InvalidParameterError
        On an epsilon that is not finite and > 0.
    """
    e = check_epsilon(epsilon)
    return _zcdp_up(Fraction(e) ** 2 / 2, _neighbours_arg(neighbours), "epsilon")


def zcdp_bounded_range(epsilon: float, *, neighbours: str = REPLACE_ONE) -> ZcdpBudget:
    r"""An :math:`\varepsilon`-bounded-range mechanism is :math:`\varepsilon^2/8`-zCDP.

    A mechanism is :math:`\varepsilon`-bounded-range (BR) if for neighbours the privacy-loss
    :math:`\ln(P(y)/Q(y))` ranges over an interval of length at most :math:`\varepsilon`
    (Durfee and Rogers, NeurIPS 2019). The exponential mechanism sampling with probability
    proportional to :math:`\exp(\varepsilon u(x, y) / (2\Delta u))` is
    :math:`\varepsilon`-BR, and every :math:`\varepsilon`-BR mechanism is
    :math:`\varepsilon^2/8`-zCDP (Cesar and Rogers, "Bounding, Concentrating, and Truncating:
    Unifying Privacy Loss Composition for Data Analytics", ALT 2021; used by Dong, Durfee and
    Rogers, ICML 2020), a quarter of the :math:`\varepsilon^2/2` of general pure DP.
    Permute-and-flip is not an exponential mechanism: do not use this for it without a proof.

    Parameters
    ----------
    epsilon : float
        The bounded-range parameter (for the exponential mechanism: its epsilon), > 0.
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"

    Returns
    -------
    ZcdpBudget
        :math:`\rho = \varepsilon^2/8`, rounded up.

    Raises
    ------
    InvalidParameterError
        On an epsilon that is not finite and > 0.
    """
    e = check_epsilon(epsilon)
    return _zcdp_up(Fraction(e) ** 2 / 8, _neighbours_arg(neighbours), "epsilon")
