r"""Privacy events: the guarantee of one release in its native form (:class:`PrivacyEvent`).

A :class:`PrivacyEvent` records *what* was released (a Gaussian mechanism of noise ``sigma`` on
a query of sensitivity ``Delta``, an :math:`\varepsilon`-bounded-range mechanism, a
:math:`\rho`-zCDP release, ...) for one stated neighbouring relation, rather than one number
derived from it. Every other form is derived from the native one by the package's own
functions, never by a second copy of a formula:

- :attr:`PrivacyEvent.budget`: the :math:`(\varepsilon, \delta)` charged by basic
  composition (the budget the caller declared, or the pure epsilon);
- :meth:`PrivacyEvent.to_zcdp`: a :class:`~privlearn.accounting._zcdp.ZcdpBudget`;
- :meth:`PrivacyEvent.to_rdp`: an :class:`~privlearn.accounting._rdp.RdpCurve`;
- :meth:`PrivacyEvent.to_pld`: a discretised privacy-loss distribution
  (:mod:`privlearn.accounting._pld`, pessimistic).

A form that does not exist (an :math:`(\varepsilon, \delta)` guarantee with
:math:`\delta > 0` has no zCDP or RDP form; a zCDP guarantee has no PLD) raises
:class:`~privlearn.errors.InvalidParameterError` saying so. Every derived value is rounded to
the safe side by the function that computes it. Events are immutable and hashable, and the
derived forms are cached per event.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Tuple

from .._validate import (
    check_delta,
    check_epsilon,
    check_integer,
    check_positive,
    check_probability,
    check_real,
)
from ..errors import InvalidParameterError
from ._budget import Budget, _budget_arg, _budget_up
from ._fixed_size import (
    _replace_one,
    fixed_size_laplace_epsilon,
    rdp_fixed_size_gaussian,
    rdp_fixed_size_laplace,
)
from ._neighbours import ADD_REMOVE_ONE, REPLACE_ONE, _neighbours_arg, _same_neighbours
from ._numerics import _float_up
from ._rdp import (
    RDP_ORDERS,
    RdpCurve,
    compose_rdp,
    rdp_bounded_range,
    rdp_gaussian,
    rdp_laplace,
    rdp_pure,
    rdp_randomized_response,
    rdp_subsampled_gaussian,
    rdp_zcdp,
)
from ._zcdp import (
    ZcdpBudget,
    compose_zcdp,
    zcdp_bounded_range,
    zcdp_gaussian,
    zcdp_pure,
)

if TYPE_CHECKING:  # pragma: no cover
    from ._pld import PldCurve

__all__ = ["PrivacyEvent"]

#: The kinds of event, in the order of the constructors.
KINDS = (
    "gaussian",
    "laplace",
    "discrete_gaussian",
    "discrete_laplace",
    "pure",
    "approx",
    "bounded_range",
    "randomized_response",
    "zcdp",
    "rdp",
    "subsampled_gaussian",
    "fixed_size_subsampled_gaussian",
    "fixed_size_subsampled_laplace",
    "composed",
    "repeated",
)

# Relative tolerance of the sanity check of a declared budget (see PrivacyEvent.gaussian).
_DECLARED_RTOL = 1e-6


def _ratio_up(num: float, den: float) -> float:
    """num / den rounded up to a float (exact rational division)."""
    return _float_up(Fraction(num) / Fraction(den))


def _gaussian_delta(ratio: float, epsilon: float) -> float:
    r"""The exact delta of the Gaussian mechanism with ``sigma / sensitivity = ratio`` at
    ``epsilon`` (Balle and Wang, ICML 2018, Theorem 8), in floats: only for the sanity check
    of a declared budget, never for accounting."""

    def phi(x: float) -> float:
        return 0.5 * math.erfc(-x / math.sqrt(2.0))

    a = 1.0 / (2.0 * ratio)
    b = epsilon * ratio
    try:
        return phi(a - b) - math.exp(epsilon) * phi(-a - b)
    except OverflowError:
        return 0.0


class PrivacyEvent:
    r"""The privacy guarantee of one release, in its native form.

    Build events with the class methods (:meth:`gaussian`, :meth:`laplace`,
    :meth:`discrete_gaussian`, :meth:`discrete_laplace`, :meth:`pure`, :meth:`approx`,
    :meth:`bounded_range`, :meth:`randomized_response`, :meth:`zcdp`, :meth:`rdp`,
    :meth:`subsampled_gaussian`, :meth:`fixed_size_subsampled_gaussian`,
    :meth:`fixed_size_subsampled_laplace`, :meth:`composed`, :meth:`repeated`,
    :meth:`from_budget`);
    the constructor is private. An event states the neighbouring relation its guarantee holds
    for (:attr:`neighbours`: ``"replace-one"``, privlearn's default, or
    ``"add/remove-one"``); composing events of different relations is refused, and so is
    spending one on an :class:`~privlearn.accounting.Accountant` of the other relation.

    Derived forms (each raises :class:`~privlearn.errors.InvalidParameterError` when the event
    has none): :attr:`budget`, :meth:`to_zcdp`, :meth:`to_rdp`, :meth:`to_pld`. They are
    computed by the package's functions for that notion (``zcdp_gaussian``, ``rdp_laplace``,
    ``pld_gaussian``, ...), each rounded to the safe side, and cached.

    Immutable and hashable: ``==`` compares the kind, every parameter (exactly), the
    neighbouring relation and the declared budget.

    Examples
    --------
    >>> from privlearn.accounting._event import PrivacyEvent
    >>> e = PrivacyEvent.gaussian(2.0)
    >>> e.to_zcdp()
    ZcdpBudget(rho=0.125, neighbours='replace-one')
    >>> PrivacyEvent.repeated(PrivacyEvent.pure(0.5), 4).budget
    Budget(epsilon=2.0, delta=0.0)
    """

    __slots__ = ("_kind", "_params", "_neighbours", "_declared")

    _kind: str
    _params: Tuple[Any, ...]
    _neighbours: str
    _declared: Optional[Budget]

    def __init__(self) -> None:
        raise TypeError(
            "PrivacyEvent: use a constructor such as PrivacyEvent.gaussian(sigma) or "
            "PrivacyEvent.from_budget(budget)"
        )

    @classmethod
    def _make(
        cls,
        kind: str,
        params: Tuple[Any, ...],
        neighbours: str,
        declared: Optional[Budget] = None,
    ) -> "PrivacyEvent":
        self = object.__new__(cls)
        object.__setattr__(self, "_kind", kind)
        object.__setattr__(self, "_params", params)
        object.__setattr__(self, "_neighbours", neighbours)
        object.__setattr__(self, "_declared", declared)
        return self

    # -- constructors --------------------------------------------------------------------------

    @classmethod
    def gaussian(
        cls,
        sigma: float,
        *,
        sensitivity: float = 1.0,
        neighbours: str = REPLACE_ONE,
        budget: Optional[Budget] = None,
    ) -> "PrivacyEvent":
        r"""The Gaussian mechanism: :math:`N(0, \sigma^2 I)` added to a query of L2
        sensitivity ``sensitivity`` under ``neighbours``.

        Forms: :math:`\Delta^2/(2\sigma^2)`-zCDP (Bun and Steinke, TCC 2016, Proposition 1.6),
        the exact RDP curve :math:`\alpha\Delta^2/(2\sigma^2)` (Mironov, CSF 2017,
        Proposition 7), the exact PLD of the pair :math:`N(0, \sigma^2)`,
        :math:`N(\Delta, \sigma^2)`. ``budget`` is the :math:`(\varepsilon, \delta)` the noise
        was calibrated for, charged by basic composition; without it the event has no
        :attr:`budget`. A declared budget is checked against the exact curve of the Gaussian
        mechanism (Balle and Wang, ICML 2018, Theorem 8, evaluated in floats): one whose
        delta is below the mechanism's delta at its epsilon by more than a relative ``1e-6``
        is refused. This is a sanity check against gross mis-declaration (a sensitivity for
        the wrong neighbouring notion, say), not a proof; the caller's calibration is.

        Parameters
        ----------
        sigma : float
            Standard deviation of the noise, > 0.
        sensitivity : float, default 1.0
            L2 sensitivity for ``neighbours``, > 0.
        neighbours : {"replace-one", "add/remove-one"}, default "replace-one"
        budget : Budget, optional
            The :math:`(\varepsilon, \delta)` the noise was calibrated for.

        Raises
        ------
        InvalidParameterError
            On a non-positive or non-finite ``sigma`` or ``sensitivity``, a bad notion, a
            non-Budget ``budget`` or one the mechanism does not meet.
        """
        s = check_positive(sigma, "sigma")
        d = check_positive(sensitivity, "sensitivity")
        nb = _neighbours_arg(neighbours)
        declared = None
        if budget is not None:
            declared = _budget_arg(budget, "budget")
            true_delta = _gaussian_delta(s / d, declared.epsilon)
            if true_delta > declared.delta * (1 + _DECLARED_RTOL) + 1e-300:
                raise InvalidParameterError(
                    f"budget: the Gaussian mechanism with sigma / sensitivity = {s / d!r} is not "
                    f"{declared!r}: its delta at that epsilon is about {true_delta:.6g}",
                    "budget",
                )
        return cls._make("gaussian", (s, d), nb, declared)

    @classmethod
    def laplace(
        cls,
        scale: float,
        *,
        sensitivity: float = 1.0,
        neighbours: str = REPLACE_ONE,
        budget: Optional[Budget] = None,
    ) -> "PrivacyEvent":
        r"""The Laplace mechanism: Laplace noise of scale ``scale`` on a query of L1
        sensitivity ``sensitivity`` under ``neighbours``.

        It is :math:`\varepsilon`-DP with :math:`\varepsilon = \Delta/b` (Dwork, McSherry,
        Nissim and Smith 2006; Dwork and Roth 2014, Theorem 3.6), rounded up. Forms: that pure
        epsilon (or the declared ``budget``, which must not be below it by more than a
        relative ``1e-6``), :math:`\varepsilon^2/2`-zCDP (Bun and Steinke 2016, Proposition
        1.4), the exact RDP curve (Mironov 2017, Proposition 6), the exact PLD.

        Raises
        ------
        InvalidParameterError
            On a non-positive or non-finite ``scale`` or ``sensitivity``, a bad notion, or a
            declared budget below the mechanism's epsilon.
        """
        b = check_positive(scale, "scale")
        d = check_positive(sensitivity, "sensitivity")
        nb = _neighbours_arg(neighbours)
        declared = None
        if budget is not None:
            declared = _budget_arg(budget, "budget")
            eps = d / b
            if declared.epsilon < eps * (1 - _DECLARED_RTOL):
                raise InvalidParameterError(
                    f"budget: the Laplace mechanism with sensitivity / scale = {eps!r} is not "
                    f"{declared!r}",
                    "budget",
                )
        return cls._make("laplace", (b, d), nb, declared)

    @classmethod
    def discrete_gaussian(
        cls,
        sigma: float,
        *,
        sensitivity: int = 1,
        dim: int = 1,
        neighbours: str = REPLACE_ONE,
        budget: Optional[Budget] = None,
    ) -> "PrivacyEvent":
        r"""The discrete Gaussian mechanism on an integer query of L2 sensitivity
        ``sensitivity`` (an integer), with independent noise on each of ``dim`` coordinates.

        :math:`\Delta^2/(2\sigma^2)`-zCDP for any ``dim``, hence that RDP curve: one
        coordinate shifted by an integer :math:`\Delta_i` has Rényi divergence at most
        :math:`\alpha\Delta_i^2/(2\sigma^2)` (Canonne, Kamath and Steinke, NeurIPS 2020,
        Theorem 4), and Rényi divergences of independent coordinates add, so the vector's is
        at most :math:`\alpha\sum_i\Delta_i^2/(2\sigma^2) \le \alpha\Delta^2/(2\sigma^2)`.
        For ``dim = 1`` also its exact PLD; for ``dim > 1`` no PLD form (the privacy loss of a
        vector of discrete Gaussians is not that of one coordinate with sensitivity
        :math:`\Delta`). ``budget``: the declared :math:`(\varepsilon, \delta)` charged by
        basic composition (not checked).
        """
        s = check_positive(sigma, "sigma")
        d = check_integer(sensitivity, "sensitivity", 1)
        m = check_integer(dim, "dim", 1)
        nb = _neighbours_arg(neighbours)
        declared = None if budget is None else _budget_arg(budget, "budget")
        return cls._make("discrete_gaussian", (s, d, m), nb, declared)

    @classmethod
    def discrete_laplace(
        cls, scale: float, *, sensitivity: int = 1, neighbours: str = REPLACE_ONE
    ) -> "PrivacyEvent":
        r"""The discrete Laplace mechanism, :math:`P(Z = z) \propto e^{-|z|/b}`, on an integer
        query of L1 sensitivity ``sensitivity`` (an integer).

        :math:`(\Delta/b)`-DP (Canonne, Kamath and Steinke, NeurIPS 2020, Section 2.2; the
        privacy loss is bounded by :math:`\Delta/b`), rounded up: so the pure-DP zCDP and
        RDP forms (Bun and Steinke 2016, Proposition 3.3) and its exact PLD.
        """
        b = check_positive(scale, "scale")
        d = check_integer(sensitivity, "sensitivity", 1)
        return cls._make("discrete_laplace", (b, d), _neighbours_arg(neighbours))

    @classmethod
    def pure(cls, epsilon: float, *, neighbours: str = REPLACE_ONE) -> "PrivacyEvent":
        r"""Any :math:`\varepsilon`-DP release.

        Forms: ``Budget(epsilon)``, :math:`\varepsilon^2/2`-zCDP (Bun and Steinke 2016,
        Proposition 1.4), the tight pure-DP RDP curve (:func:`~privlearn.accounting.rdp_pure`)
        and the PLD of binary randomized response, which dominates every
        :math:`\varepsilon`-DP mechanism (Kairouz, Oh and Viswanath, ICML 2015).
        """
        e = check_epsilon(epsilon, zero_ok=True, exact=True)
        return cls._make("pure", (e,), _neighbours_arg(neighbours))

    @classmethod
    def approx(
        cls, epsilon: float, delta: float, *, neighbours: str = REPLACE_ONE
    ) -> "PrivacyEvent":
        r"""Any :math:`(\varepsilon, \delta)`-DP release. With ``delta == 0`` this is
        :meth:`pure`. With ``delta > 0`` it has no zCDP or RDP form; its PLD is the worst
        :math:`(\varepsilon, \delta)` pair (Kairouz, Oh and Viswanath 2015)."""
        e = check_epsilon(epsilon, zero_ok=True, exact=True)
        dl = check_delta(delta, exact=True)
        nb = _neighbours_arg(neighbours)
        if dl == 0.0:
            return cls._make("pure", (e,), nb)
        return cls._make("approx", (e, dl), nb)

    @classmethod
    def from_budget(cls, budget: Budget, *, neighbours: str = REPLACE_ONE) -> "PrivacyEvent":
        """:meth:`pure` if ``budget.delta == 0``, else :meth:`approx`."""
        b = _budget_arg(budget)
        return cls.approx(b.epsilon, b.delta, neighbours=neighbours)

    @classmethod
    def bounded_range(cls, epsilon: float, *, neighbours: str = REPLACE_ONE) -> "PrivacyEvent":
        r"""An :math:`\varepsilon`-bounded-range mechanism: the exponential mechanism that is
        :math:`\varepsilon`-DP (Durfee and Rogers, NeurIPS 2019), or report-noisy-max with
        Gumbel noise. Not permute-and-flip (use :meth:`pure`).

        Forms: ``Budget(epsilon)`` (BR implies DP), :math:`\varepsilon^2/8`-zCDP (Cesar and
        Rogers, ALT 2021; Dong, Durfee and Rogers, ICML 2020), the exact worst-case BR Rényi
        curve (:func:`~privlearn.accounting._rdp.rdp_bounded_range`), and as PLD the pure-DP
        one (a BR mechanism has no single dominating pair tighter than binary randomized
        response: its worst pairs :math:`RR_{\varepsilon,t}` vary with ``t``).
        """
        e = check_epsilon(epsilon, exact=True)
        return cls._make("bounded_range", (e,), _neighbours_arg(neighbours))

    @classmethod
    def randomized_response(
        cls, epsilon: float, k: int = 2, *, neighbours: str = REPLACE_ONE
    ) -> "PrivacyEvent":
        r"""k-ary randomized response with parameter :math:`\varepsilon` (reports the true
        value with probability :math:`e^\varepsilon/(e^\varepsilon + k - 1)`): ``epsilon``-DP,
        its exact RDP curve (:func:`~privlearn.accounting._rdp.rdp_randomized_response`) and
        exact PLD."""
        e = check_epsilon(epsilon, exact=True)
        kk = check_integer(k, "k", 2)
        return cls._make("randomized_response", (e, kk), _neighbours_arg(neighbours))

    @classmethod
    def zcdp(cls, rho: Any, *, neighbours: Optional[str] = None) -> "PrivacyEvent":
        r"""A :math:`\rho`-zCDP release (a float rho, or a
        :class:`~privlearn.accounting._zcdp.ZcdpBudget`, whose relation is kept). Its RDP
        curve is :math:`\rho\alpha`; it has no :math:`(\varepsilon, \delta)` budget without a
        chosen delta, and no PLD."""
        if isinstance(rho, ZcdpBudget):
            nb = rho.neighbours if neighbours is None else _neighbours_arg(neighbours)
            _same_neighbours(rho.neighbours, nb, "neighbours")
            return cls._make("zcdp", (rho.rho,), nb)
        r = check_real(rho, "rho", 0.0, exact=True)
        nb = REPLACE_ONE if neighbours is None else _neighbours_arg(neighbours)
        return cls._make("zcdp", (r,), nb)

    @classmethod
    def rdp(cls, curve: RdpCurve) -> "PrivacyEvent":
        """A release with the given Rényi curve (on the grid ``RDP_ORDERS``; its relation is the
        curve's). No zCDP form (the grid does not bound every order), no PLD, no budget."""
        if not isinstance(curve, RdpCurve):
            raise InvalidParameterError(
                f"curve: must be an RdpCurve; got {curve!r} of type {type(curve).__name__}",
                "curve",
            )
        return cls._make("rdp", (curve,), curve.neighbours)

    @classmethod
    def subsampled_gaussian(
        cls, rate: float, sigma: float, *, budget: Optional[Budget] = None
    ) -> "PrivacyEvent":
        r"""The Poisson-subsampled Gaussian mechanism (rate ``q``, noise multiplier ``sigma``),
        for **add/remove-one** neighbours only (Mironov, Talwar and Zhang 2019; see
        :func:`~privlearn.accounting._rdp.rdp_subsampled_gaussian`). Forms: its RDP curve and
        its PLD; no zCDP form; ``budget`` only if declared."""
        q = check_probability(rate, "rate", one_ok=True)
        s = check_positive(sigma, "sigma")
        declared = None if budget is None else _budget_arg(budget, "budget")
        return cls._make("subsampled_gaussian", (q, s), ADD_REMOVE_ONE, declared)

    @classmethod
    def fixed_size_subsampled_gaussian(
        cls,
        rate: float,
        sigma: float,
        *,
        sensitivity: float = 1.0,
        neighbours: str = REPLACE_ONE,
        budget: Optional[Budget] = None,
    ) -> "PrivacyEvent":
        r"""The Gaussian mechanism on a fixed-size subsample: ``m`` of the ``n`` records drawn
        uniformly without replacement (``rate`` :math:`q = m/n`), then :math:`N(0, \sigma^2 I)`
        added to a query of replace-one L2 sensitivity ``sensitivity`` on the subsample (as
        :meth:`gaussian`). For **replace-one** neighbours only (``n`` is public; add/remove-one
        is refused).

        Forms: the RDP curve of Wang, Balle and Kasiviswanathan (AISTATS 2019), Theorem 9
        (:func:`~privlearn.accounting._fixed_size.rdp_fixed_size_gaussian`); the PLD of the
        symmetric profile of Balle, Barthe and Gaboardi (NeurIPS 2018), Theorem 9
        (:func:`~privlearn.accounting._fixed_size.pld_fixed_size_gaussian`); no zCDP form;
        ``budget`` only if declared. A declared budget is checked against the exact profile
        :math:`q\,\delta_G(\ln(1 + (e^\varepsilon - 1)/q))` (evaluated in floats, as for
        :meth:`gaussian`: a sanity check, not a proof).

        Raises
        ------
        InvalidParameterError
            On a rate outside (0, 1], a non-positive or non-finite ``sigma`` or
            ``sensitivity``, ``neighbours="add/remove-one"``, or a declared budget the mechanism
            does not meet.
        """
        q = check_probability(rate, "rate", one_ok=True)
        s = check_positive(sigma, "sigma")
        d = check_positive(sensitivity, "sensitivity")
        nb = _replace_one(neighbours)
        declared = None
        if budget is not None:
            declared = _budget_arg(budget, "budget")
            try:  # the base curve at log(1 + (e^eps - 1) / q), times q (BBG 2018, Theorem 9)
                e_base = math.log1p(math.expm1(declared.epsilon) / q)
                true_delta = q * _gaussian_delta(s / d, e_base)
            except OverflowError:
                true_delta = 0.0
            if true_delta > declared.delta * (1 + _DECLARED_RTOL) + 1e-300:
                raise InvalidParameterError(
                    f"budget: the fixed-size-subsampled Gaussian mechanism with rate {q!r} and "
                    f"sigma / sensitivity = {s / d!r} is not {declared!r}: its delta at that "
                    f"epsilon is about {true_delta:.6g}",
                    "budget",
                )
        return cls._make("fixed_size_subsampled_gaussian", (q, s, d), nb, declared)

    @classmethod
    def fixed_size_subsampled_laplace(
        cls,
        rate: float,
        scale: float,
        *,
        sensitivity: float = 1.0,
        neighbours: str = REPLACE_ONE,
    ) -> "PrivacyEvent":
        r"""The (scalar) Laplace mechanism on a fixed-size subsample (``m`` of ``n`` records
        without replacement, ``rate`` :math:`q = m/n`; scale ``scale``, replace-one sensitivity
        ``sensitivity`` on the subsample). For **replace-one** neighbours only.

        Forms: the pure epsilon :math:`\ln(1 + q(e^{\Delta/b} - 1))` (Balle, Barthe and
        Gaboardi, NeurIPS 2018, Theorem 9; rounded up) as :attr:`budget` and through it the
        pure-DP zCDP form; the RDP curve of Wang, Balle and Kasiviswanathan (AISTATS 2019),
        Theorem 9 (:func:`~privlearn.accounting._fixed_size.rdp_fixed_size_laplace`); the PLD
        (:func:`~privlearn.accounting._fixed_size.pld_fixed_size_laplace`).

        Raises
        ------
        InvalidParameterError
            On a rate outside (0, 1], a non-positive or non-finite ``scale`` or
            ``sensitivity``, or ``neighbours="add/remove-one"``.
        """
        q = check_probability(rate, "rate", one_ok=True)
        b = check_positive(scale, "scale")
        d = check_positive(sensitivity, "sensitivity")
        nb = _replace_one(neighbours)
        fixed_size_laplace_epsilon(q, b, d)  # refuses a ratio that does not fit in a float
        return cls._make("fixed_size_subsampled_laplace", (q, b, d), nb)

    @classmethod
    def composed(
        cls, events: Iterable["PrivacyEvent"], *, budget: Optional[Budget] = None
    ) -> "PrivacyEvent":
        """The (adaptive) composition of ``events``, all for one neighbouring relation (at
        least one event). Each form is the composition of the events' forms (basic
        composition of budgets, sum of rhos, sum of curves, convolution of PLDs).

        ``budget``: the :math:`(\\varepsilon, \\delta)` the caller proved for the composition
        by a theorem tighter than basic composition (Kairouz-Oh-Viswanath, bounded-range
        composition, ...), charged by basic composition instead of the sum of the parts'
        budgets; not checked (the caller's theorem is the proof), and the other forms are
        unchanged."""
        items = tuple(events) if not isinstance(events, PrivacyEvent) else None
        if items is None:
            raise InvalidParameterError("events: must be an iterable of PrivacyEvent", "events")
        if not items:
            raise InvalidParameterError("events: must contain at least one event", "events")
        nb: Optional[str] = None
        for e in items:
            if not isinstance(e, PrivacyEvent):
                raise InvalidParameterError(
                    f"events: every element must be a PrivacyEvent; got {e!r} of type "
                    f"{type(e).__name__}",
                    "events",
                )
            nb = e.neighbours if nb is None else _same_neighbours(nb, e.neighbours, "events")
        assert nb is not None
        declared = None if budget is None else _budget_arg(budget, "budget")
        return cls._make("composed", items, nb, declared)

    @classmethod
    def repeated(
        cls, event: "PrivacyEvent", k: int, *, budget: Optional[Budget] = None
    ) -> "PrivacyEvent":
        """``event`` composed with itself ``k`` times (``k >= 1``, adaptively); ``budget`` as
        for :meth:`composed`."""
        if not isinstance(event, PrivacyEvent):
            raise InvalidParameterError(
                f"event: must be a PrivacyEvent; got {event!r} of type {type(event).__name__}",
                "event",
            )
        kk = check_integer(k, "k", 1)
        declared = None if budget is None else _budget_arg(budget, "budget")
        return cls._make("repeated", (event, kk), event.neighbours, declared)

    # -- attributes ----------------------------------------------------------------------------

    @property
    def kind(self) -> str:
        """The constructor's name: ``"gaussian"``, ``"pure"``, ``"composed"``, ..."""
        return self._kind

    @property
    def params(self) -> Tuple[Any, ...]:
        """The native parameters, in the constructor's order (for ``composed``: the events;
        for ``repeated``: ``(event, k)``; for ``rdp``: ``(curve,)``)."""
        return self._params

    @property
    def neighbours(self) -> str:
        """The neighbouring relation: ``"replace-one"`` or ``"add/remove-one"``."""
        return self._neighbours

    @property
    def declared_budget(self) -> Optional[Budget]:
        """The :math:`(\\varepsilon, \\delta)` declared at construction (``budget=``), if any."""
        return self._declared

    @property
    def budget(self) -> Budget:
        r"""The :math:`(\varepsilon, \delta)` charged by basic composition.

        The declared budget if one was given, else the pure epsilon of a pure-DP event
        (``pure``, ``bounded_range``, ``randomized_response``, ``laplace``,
        ``discrete_laplace``: rounded up), the pair of ``approx``; for ``composed`` and
        ``repeated`` the basic composition of the parts (exact, rounded up).

        Raises
        ------
        InvalidParameterError
            If the event has none (a zCDP or RDP event, a Gaussian without a declared budget).
        """
        return _budget_of(self)

    def has_budget(self) -> bool:
        """Whether :attr:`budget` exists."""
        try:
            _budget_of(self)
        except InvalidParameterError:
            return False
        return True

    def to_zcdp(self) -> ZcdpBudget:
        """The zCDP form (rho rounded up), for this event's relation.

        Raises
        ------
        InvalidParameterError
            If the event has no zCDP form (``approx`` with delta > 0, ``rdp``,
            ``subsampled_gaussian``, or a composition containing one).
        """
        return _zcdp_of(self)

    def to_rdp(self) -> RdpCurve:
        """The RDP curve on ``RDP_ORDERS`` (values rounded up), for this event's relation.

        Raises
        ------
        InvalidParameterError
            If the event has no RDP form (``approx`` with delta > 0, or a composition
            containing one).
        """
        return _rdp_of(self)

    def to_pld(self, value_discretization: float = 1e-4) -> "PldCurve":
        """The privacy-loss distribution (pessimistic discretisation with interval
        ``value_discretization``; :mod:`privlearn.accounting._pld`).

        Raises
        ------
        InvalidParameterError
            If the event has no PLD form (``zcdp``, ``rdp``, or a composition containing one).
        """
        v = check_positive(value_discretization, "value_discretization")
        return _pld_of(self, v)

    # -- dunder --------------------------------------------------------------------------------

    def _key(self) -> Tuple[Any, ...]:
        return (self._kind, self._params, self._neighbours, self._declared)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PrivacyEvent):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("PrivacyEvent is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("PrivacyEvent is immutable")

    def __reduce__(self) -> Tuple[Any, ...]:
        return (PrivacyEvent._make, self._key())

    def __repr__(self) -> str:
        k, p = self._kind, self._params
        tail = "" if self._declared is None else f", budget={self._declared!r}"
        if k == "composed":
            inner = "[" + ", ".join(repr(e) for e in p) + "]"
            return f"PrivacyEvent.composed({inner}{tail})"
        if k == "repeated":
            return f"PrivacyEvent.repeated({p[0]!r}, {p[1]!r}{tail})"
        names = {
            "gaussian": ("sigma", "sensitivity"),
            "laplace": ("scale", "sensitivity"),
            "discrete_gaussian": ("sigma", "sensitivity", "dim"),
            "discrete_laplace": ("scale", "sensitivity"),
            "pure": ("epsilon",),
            "approx": ("epsilon", "delta"),
            "bounded_range": ("epsilon",),
            "randomized_response": ("epsilon", "k"),
            "zcdp": ("rho",),
            "rdp": ("curve",),
            "subsampled_gaussian": ("rate", "sigma"),
            "fixed_size_subsampled_gaussian": ("rate", "sigma", "sensitivity"),
            "fixed_size_subsampled_laplace": ("rate", "scale", "sensitivity"),
        }[k]
        parts = [f"{n}={v!r}" for n, v in zip(names, p)]
        if k != "subsampled_gaussian":
            parts.append(f"neighbours={self._neighbours!r}")
        if self._declared is not None:
            parts.append(f"budget={self._declared!r}")
        return f"PrivacyEvent.{k}({', '.join(parts)})"


def _event_arg(value: object, name: str = "event") -> PrivacyEvent:
    if not isinstance(value, PrivacyEvent):
        raise InvalidParameterError(
            f"{name}: must be a PrivacyEvent; got {value!r} of type {type(value).__name__}", name
        )
    return value


def _no_form(event: PrivacyEvent, form: str, why: str) -> InvalidParameterError:
    return InvalidParameterError(f"event: {event!r} has no {form} form ({why})", "event")


def _pure_epsilon(event: PrivacyEvent) -> Optional[float]:
    """The pure epsilon of a pure-DP event (rounded up), else None."""
    k, p = event._kind, event._params
    if k in ("pure", "bounded_range", "randomized_response"):
        return float(p[0])
    if k in ("laplace", "discrete_laplace"):
        return _ratio_up(p[1], p[0])
    if k == "fixed_size_subsampled_laplace":
        return fixed_size_laplace_epsilon(p[0], p[1], p[2])
    return None


@lru_cache(maxsize=4096)
def _budget_of(event: PrivacyEvent) -> Budget:
    if event._declared is not None:
        return event._declared
    k, p = event._kind, event._params
    eps = _pure_epsilon(event)
    if eps is not None:
        if not math.isfinite(eps):
            raise _no_form(event, "(epsilon, delta)", "its epsilon does not fit in a float")
        return Budget._unchecked(eps, 0.0)
    if k == "approx":
        return Budget._unchecked(p[0], p[1])
    if k == "composed":
        parts = [_budget_of(e) for e in p]
        return _budget_up(
            sum((Fraction(b.epsilon) for b in parts), Fraction(0)),
            sum((Fraction(b.delta) for b in parts), Fraction(0)),
            "events",
            "basic composition of the events",
        )
    if k == "repeated":
        return p[1] * _budget_of(p[0])
    raise _no_form(
        event,
        "(epsilon, delta)",
        "declare one with budget=, or spend it on a zcdp, rdp or pld accountant",
    )


@lru_cache(maxsize=4096)
def _zcdp_of(event: PrivacyEvent) -> ZcdpBudget:
    k, p, nb = event._kind, event._params, event._neighbours
    if k in ("gaussian", "discrete_gaussian"):
        return zcdp_gaussian(p[0], p[1], neighbours=nb)
    if k == "bounded_range":
        return zcdp_bounded_range(p[0], neighbours=nb)
    if k == "zcdp":
        return ZcdpBudget._unchecked(p[0], nb)
    if k == "pure" and p[0] == 0.0:
        return ZcdpBudget._unchecked(0.0, nb)
    eps = _pure_epsilon(event)
    if eps is not None:
        return zcdp_pure(eps, neighbours=nb)
    if k == "composed":
        return compose_zcdp([_zcdp_of(e) for e in p])
    if k == "repeated":
        return p[1] * _zcdp_of(p[0])
    why = {
        "approx": "an (epsilon, delta) guarantee with delta > 0 bounds no Rényi divergence",
        "rdp": "a curve on a grid of orders does not bound every order",
        "subsampled_gaussian": "use its RDP curve or its PLD",
        "fixed_size_subsampled_gaussian": "use its RDP curve or its PLD",
    }[k]
    raise _no_form(event, "zCDP", why)


@lru_cache(maxsize=1024)
def _rdp_of(event: PrivacyEvent) -> RdpCurve:
    k, p, nb = event._kind, event._params, event._neighbours
    if k == "gaussian":
        return rdp_gaussian(p[0], p[1], neighbours=nb)
    if k == "laplace":
        return rdp_laplace(p[0], p[1], neighbours=nb)
    if k in ("discrete_gaussian", "zcdp"):
        return rdp_zcdp(_zcdp_of(event))
    if k == "bounded_range":
        return rdp_bounded_range(p[0], neighbours=nb)
    if k == "randomized_response":
        return rdp_randomized_response(p[0], p[1], neighbours=nb)
    if k == "pure" and p[0] == 0.0:
        return RdpCurve([0.0] * len(RDP_ORDERS), nb)
    if k in ("pure", "discrete_laplace"):
        eps = _pure_epsilon(event)
        assert eps is not None
        return rdp_pure(eps, neighbours=nb)
    if k == "rdp":
        return p[0]  # type: ignore[no-any-return]
    if k == "subsampled_gaussian":
        return rdp_subsampled_gaussian(p[0], p[1])
    if k == "fixed_size_subsampled_gaussian":
        return rdp_fixed_size_gaussian(p[0], p[1], p[2], neighbours=nb)
    if k == "fixed_size_subsampled_laplace":
        return rdp_fixed_size_laplace(p[0], p[1], p[2], neighbours=nb)
    if k == "composed":
        return compose_rdp([_rdp_of(e) for e in p])
    if k == "repeated":
        return p[1] * _rdp_of(p[0])  # type: ignore[no-any-return]
    raise _no_form(
        event, "RDP", "an (epsilon, delta) guarantee with delta > 0 bounds no Rényi divergence"
    )


@lru_cache(maxsize=256)
def _pld_of(event: PrivacyEvent, v: float) -> "PldCurve":
    k, p, nb = event._kind, event._params, event._neighbours
    if k in ("zcdp", "rdp"):
        raise _no_form(
            event,
            "PLD",
            "a zCDP or RDP guarantee determines no dominating pair of distributions",
        )
    from . import _pld  # lazy: the PLD module builds on the Rust core

    kw: dict = {"neighbours": nb, "value_discretization": v}
    if k == "gaussian":
        return _pld.pld_gaussian(p[0], sensitivity=p[1], **kw)
    if k == "laplace":
        return _pld.pld_laplace(p[0], sensitivity=p[1], **kw)
    if k == "discrete_gaussian":
        if p[2] != 1:
            raise _no_form(
                event,
                "PLD",
                "the privacy loss of a vector of discrete Gaussians is not that of one "
                "coordinate with the L2 sensitivity (the discrete Gaussian is not rotation "
                "invariant; Canonne, Kamath and Steinke 2020 bound it only through zCDP); use "
                "its zCDP or RDP form",
            )
        # Any sigma: the exact Gaussian mechanism's events (sigma ~ 4e6 grid units) take the
        # Euler-Maclaurin bound of pld_discrete_gaussian.
        return _pld.pld_discrete_gaussian(p[0], sensitivity=p[1], **kw)
    if k == "discrete_laplace":
        return _pld.pld_discrete_laplace(p[0], sensitivity=p[1], **kw)
    if k in ("pure", "bounded_range"):
        return _pld.pld_pure(p[0], **kw)
    if k == "approx":
        return _pld.pld_approx(p[0], p[1], **kw)
    if k == "randomized_response":
        return _pld.pld_randomized_response(p[0], p[1], **kw)
    if k == "subsampled_gaussian":
        return _pld.pld_subsampled_gaussian(p[0], p[1], value_discretization=v)
    if k in ("fixed_size_subsampled_gaussian", "fixed_size_subsampled_laplace"):
        from . import _fixed_size

        build = (
            _fixed_size.pld_fixed_size_gaussian
            if k == "fixed_size_subsampled_gaussian"
            else _fixed_size.pld_fixed_size_laplace
        )
        return build(p[0], p[1], sensitivity=p[2], **kw)
    assert k in ("composed", "repeated"), k
    return _composed_pld(event, v)


def _sqrt_up(x: Fraction) -> float:
    """The smallest float >= sqrt(x), for an exact ``x > 0``: an integer square root of the
    scaled numerator times denominator (at least 128 bits), rounded up, then :func:`_float_up`."""
    n, d = x.numerator, x.denominator
    nd = n * d
    t = max(0, (130 - nd.bit_length()) // 2 + 1)
    scaled = nd << (2 * t)
    r = math.isqrt(scaled)
    if r * r < scaled:
        r += 1
    return _float_up(Fraction(r, d << t))


def _sum_squares_up(ratios: Dict[Tuple[float, float], int]) -> Fraction:
    r"""An exact upper bound of :math:`\sum k (\Delta/\sigma)^2` over ``{(sigma, Delta): k}``:
    each square, an exact rational of two floats' integer ratios, is rounded *up* to 64
    significant bits (an integer ceiling), and the terms are summed exactly on a common
    power-of-two scale (fast integer additions instead of fractions with growing
    denominators). Relative excess below 2^-63."""
    qs = []
    for (s, d), k in ratios.items():
        nd, dd = d.as_integer_ratio()
        ns, ds = s.as_integer_ratio()
        num = (nd * ds) ** 2 * k
        den = (ns * dd) ** 2
        shift = max(0, 64 - num.bit_length() + den.bit_length())
        qs.append((-((-num << shift) // den), shift))  # ceil(num 2^shift / den)
    top = max(sh for _, sh in qs)
    return Fraction(sum(q << (top - sh) for q, sh in qs), 1 << top)


def _composed_pld(event: PrivacyEvent, v: float) -> "PldCurve":
    r"""The PLD of a ``composed`` or ``repeated`` event: exact algebraic merges first, then one
    composition of the remaining parts.

    The event tree is flattened into leaves with multiplicities (a ``repeated`` part multiplies
    the counts of its parts). **Gaussian merge:** all Gaussian leaves (noise :math:`\sigma_i`,
    sensitivity :math:`\Delta_i`, the one relation of the event) become *one* Gaussian PLD with
    :math:`\mu = \sqrt{\sum_i k_i \mu_i^2}`, :math:`\mu_i = \Delta_i/\sigma_i`. This is
    exact: the dominating pair of the Gaussian mechanism is :math:`(N(0,1), N(\mu_i,1))`, whose
    privacy loss under :math:`P` is :math:`N(\mu_i^2/2, \mu_i^2)`; the loss of a composition is
    the sum of independent losses, :math:`N(\mu^2/2, \mu^2)`, which is the loss of
    :math:`(N(0,1), N(\mu,1))` (Dong, Roth and Su, "Gaussian Differential Privacy", JRSS-B 2022,
    Corollary 3.3: the composition of :math:`\mu_i`-GDP mechanisms is :math:`\mu`-GDP, and the
    Gaussian mechanism is exactly :math:`\mu_i`-GDP). :math:`\sum_i k_i \mu_i^2` is bounded
    above exactly (each term rounded up to 64 significant bits, the sum exact:
    :func:`_sum_squares_up`) and its square root rounded *up* to a float (:func:`_sqrt_up`): a
    larger :math:`\mu` is a less private Gaussian (its :math:`\delta(\varepsilon)` is
    increasing in :math:`\mu`), so the merge is on the safe side, and the one discretisation of
    the merged curve replaces one per mechanism. A single Gaussian
    leaf of count 1 keeps :func:`~privlearn.accounting._pld.pld_gaussian`'s own curve.

    The other leaves are built by their own constructors (equal parameters give the same cached
    curve; several Laplace leaves in one batch, ``_pld._laplace_many``, the same curves built on
    all cores) and passed with their counts to the composition of :mod:`privlearn.accounting._pld`
    (``_compose_counted``): equal curves are grouped, the repeated ones composed with each other
    once and self-composed by their smallest common count, the rest convolved in rounds,
    smallest support first. A leaf without a PLD form (``zcdp``, ``rdp``) raises. All leaves share the event's
    neighbouring relation (checked when the event was built)."""
    from . import _pld

    ratios: Dict[Tuple[float, float], int] = {}
    gaussians: List[Tuple[PrivacyEvent, int]] = []
    counts: Dict[PrivacyEvent, int] = {}
    stack = [(event, 1)]
    while stack:
        e, c = stack.pop()
        if e._kind == "composed":
            stack.extend((x, c) for x in e._params)
        elif e._kind == "repeated":
            stack.append((e._params[0], c * e._params[1]))
        elif e._kind == "gaussian":
            ratios[e._params] = ratios.get(e._params, 0) + c
            gaussians.append((e, c))
        else:
            counts[e] = counts.get(e, 0) + c
    # Laplace leaves: built in one call to the Rust core on all cores (equal e0 once).
    laplace = [e for e in counts if e._kind == "laplace"]
    built: Dict[PrivacyEvent, "PldCurve"] = {}
    if len(laplace) > 1:
        # The leaves' parameters (scale, sensitivity) were checked when the events were built.
        e0s = [_pld._div_up(e._params[1], e._params[0]) for e in laplace]
        unique = sorted(set(e0s))
        by_e0 = dict(zip(unique, _pld._laplace_many(unique, _pld._h_arg(v), event._neighbours)))
        built = {e: by_e0[e0] for e, e0 in zip(laplace, e0s)}
    terms = [(built[e] if e in built else _pld_of(e, v), c) for e, c in counts.items()]
    if len(gaussians) == 1 and gaussians[0][1] == 1:
        terms.append((_pld_of(gaussians[0][0], v), 1))
    elif gaussians:
        mu = _sqrt_up(_sum_squares_up(ratios))
        if not (math.isfinite(mu) and mu > 0.0):
            raise InvalidParameterError(
                f"event: the Gaussian parts of {event!r} compose to mu = sqrt(sum (sensitivity / "
                "sigma)^2) that is not a positive finite float",
                "event",
            )
        terms.append(
            (
                _pld.pld_gaussian(
                    1.0, sensitivity=mu, neighbours=event._neighbours, value_discretization=v
                ),
                1,
            )
        )
    return _pld._compose_counted(terms)
