r"""Interoperability with Google's dp_accounting: privacy events as ``DpEvent`` s and back.

:func:`to_dp_event` exports a :class:`~privlearn.accounting._event.PrivacyEvent` (and
:meth:`Accountant.to_dp_event <privlearn.accounting.Accountant.to_dp_event>` a whole ledger, as
a ``ComposedDpEvent``) so that privlearn's totals can be checked with dp_accounting's RDP and
PLD accountants; :func:`from_dp_event` imports a ``DpEvent``. dp_accounting is an optional
dependency, imported inside the functions (``pip install dp-accounting``).

**Mapping** (parameters rounded so that dp_accounting, given the exported event, never reports
*less* privacy loss than the event has: less noise, more epsilon):

=============================  ================================================================
PrivacyEvent                   DpEvent
=============================  ================================================================
``gaussian(s, sensitivity=D)`` ``GaussianDpEvent(noise_multiplier = s / D)`` (rounded down)
``laplace(b, sensitivity=D)``  ``LaplaceDpEvent(noise_multiplier = b / D)`` (rounded down)
``discrete_laplace(b, D)``     ``DiscreteLaplaceDpEvent(1 / b, D)`` (rounded up)
``discrete_gaussian(s, D)``    ``ZCDpEvent(D**2 / (2 s**2))`` (CKS 2020, Theorem 4; no peer event)
``randomized_response(e, k)``  ``RandomizedResponseDpEvent(k / (e**e + k - 1), k)`` (down)
``pure(e)``                    ``RandomizedResponseDpEvent(2 / (1 + e**e), 2)``: binary
                               randomized response dominates every ``e``-DP mechanism
                               (Kairouz, Oh and Viswanath 2015); ``pure(0)``: ``NoOpDpEvent``
``bounded_range(e)``           ``ZCDpEvent(e**2 / 8)`` (no bounded-range event in
                               dp_accounting; looser than privlearn's exact BR curve)
``zcdp(rho)``                  ``ZCDpEvent(rho)``
``subsampled_gaussian(q, s)``  ``PoissonSampledDpEvent(q, GaussianDpEvent(s))``
``fixed_size_subsampled_``     ``SampledWithoutReplacementDpEvent(n, m, GaussianDpEvent(s / D))``
``gaussian(q, s, D)``          with ``m / n`` the exact ratio of the float ``q``
                               (``q.as_integer_ratio()``), noise rounded down
``fixed_size_subsampled_``     ``SampledWithoutReplacementDpEvent(n, m, LaplaceDpEvent(b / D))``
``laplace(q, b, D)``           (dp_accounting 0.6's accountants cannot compose this one)
``composed(events)``           ``ComposedDpEvent``
``repeated(event, k)``         ``SelfComposedDpEvent(event, k)``
``approx(e, d)``, ``rdp``      refused: dp_accounting has no such event
=============================  ================================================================

**Neighbouring relations.** A ``DpEvent`` carries none; dp_accounting's accountants take one
(``NeighboringRelation.ADD_OR_REMOVE_ONE`` by default, or ``REPLACE_ONE``), and it changes the
dominating pair they build: their ``GaussianDpEvent(z)`` is :math:`N(0, z^2)` against
:math:`N(1, z^2)` under ``ADD_OR_REMOVE_ONE`` but against a shift of 2 under ``REPLACE_ONE``
in the PLD accountant (dp_accounting's sensitivities are per added or removed record).
privlearn's events state their sensitivity *for their own relation*, so their pairs are
dp_accounting's pairs under ``ADD_OR_REMOVE_ONE`` for the shifted-noise events (Gaussian,
Laplace, discrete Laplace, Poisson-subsampled), and under ``REPLACE_ONE`` for
``RandomizedResponseDpEvent`` (the only relation dp_accounting accepts for it).
:func:`neighboring_relation` returns, for an exported event, the relation that reproduces
privlearn's pairs, and refuses an export that mixes the two kinds (check its parts
separately). :func:`from_dp_event` states the ``neighbours`` given to it on every imported
event (except a Poisson-subsampled Gaussian: add/remove-one; a sampled-without-replacement
event: replace-one).

**Sampling without replacement** is analysed for replace-one neighbours only, on both sides:
dp_accounting's RDP accountant accepts ``SampledWithoutReplacementDpEvent`` only under
``REPLACE_ONE``, and reads the inner ``GaussianDpEvent(z)`` as the Gaussian of Rényi curve
:math:`\alpha/(2z^2)`, i.e. :math:`z` = noise over the *replace-one* sensitivity (Wang, Balle
and Kasiviswanathan 2019, Theorem 27), which is privlearn's ``sigma / sensitivity``.
:func:`neighboring_relation` therefore returns ``REPLACE_ONE`` for it, like randomized
response, and refuses a mix with the shifted-noise events. Its PLD accountant (0.6) has no
sampled-without-replacement event.

**A peer defect worked around.** dp_accounting 0.6.0's PLD accountant ignores the count of a
``RandomizedResponseDpEvent`` (``compose(rr, 10)`` and ``SelfComposedDpEvent(rr, 10)`` report
the epsilon of one), so a repeated event containing randomized response is exported as a
``ComposedDpEvent`` of its copies (for up to 100,000 copies; refused beyond).
"""

from __future__ import annotations

import decimal
from decimal import Decimal
from fractions import Fraction
from typing import Any, Iterable

from ..errors import InvalidParameterError
from ._event import PrivacyEvent
from ._neighbours import REPLACE_ONE, _neighbours_arg
from ._numerics import _float_down, _float_up

__all__ = ["from_dp_event", "ledger_to_dp_event", "neighboring_relation", "to_dp_event"]

_DIGITS = 60
_MAX_RR_COPIES = 100_000
_MARGIN = Decimal(10) ** -45  # relative: far above the rounding error of a few 60-digit ops


def _dp_event_module() -> Any:
    try:
        from dp_accounting import dp_event
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "privlearn's dp_accounting interoperability needs the optional package "
            "dp-accounting: pip install dp-accounting"
        ) from exc
    return dp_event


_SHIFTED = ("GaussianDpEvent", "LaplaceDpEvent", "DiscreteLaplaceDpEvent", "PoissonSampledDpEvent")
# Events whose pairs are dp_accounting's under REPLACE_ONE (the only relation it accepts for them).
_REPLACE_ONLY = ("RandomizedResponseDpEvent", "SampledWithoutReplacementDpEvent")


def _leaf_kinds(dp_event: Any) -> set:
    """The class names of the events inside an exported ``DpEvent``."""
    name = type(dp_event).__name__
    if name == "ComposedDpEvent":
        return set().union(*(_leaf_kinds(e) for e in dp_event.events))
    if name == "SelfComposedDpEvent":
        return _leaf_kinds(dp_event.event)
    return {name}


def neighboring_relation(dp_event: Any) -> Any:
    """dp_accounting's ``NeighboringRelation`` under which its accountants build the same
    dominating pairs as privlearn's events for ``dp_event`` (an export of
    :func:`to_dp_event` or :meth:`Accountant.to_dp_event`): ``REPLACE_ONE`` if it contains
    randomized response or sampling without replacement, else ``ADD_OR_REMOVE_ONE`` (see the
    module docstring).

    Raises
    ------
    InvalidParameterError
        If ``dp_event`` mixes randomized response with shifted-noise events (no single
        relation reproduces both pairs: check the parts separately).
    ImportError
        If dp_accounting is not installed.
    """
    try:
        from dp_accounting import NeighboringRelation
    except ImportError as exc:  # pragma: no cover
        raise ImportError(
            "neighboring_relation needs the optional package dp-accounting: "
            "pip install dp-accounting"
        ) from exc
    kinds = _leaf_kinds(dp_event)
    rr = bool(kinds.intersection(_REPLACE_ONLY))
    if rr and kinds.intersection(_SHIFTED):
        raise InvalidParameterError(
            "dp_event: mixes randomized response or sampling without replacement "
            "(dp_accounting: REPLACE_ONE only) with shifted-noise events (privlearn's pairs "
            "are dp_accounting's under ADD_OR_REMOVE_ONE); check the parts separately",
            "dp_event",
        )
    return NeighboringRelation.REPLACE_ONE if rr else NeighboringRelation.ADD_OR_REMOVE_ONE


def _div_down(a: float, b: float) -> float:
    return _float_down(Fraction(a) / Fraction(b))


def _rr_noise_down(epsilon: float, k: int) -> float:
    """dp_accounting's RR noise parameter k / (e^eps + k - 1), rounded down (less noise)."""
    with decimal.localcontext() as ctx:
        ctx.prec = _DIGITS
        p = Decimal(k) / (Decimal(epsilon).exp() + (k - 1))
        return _float_down(p * (1 - _MARGIN))


def _rr_epsilon_up(p: float, k: int) -> float:
    """The epsilon of RR with noise parameter p over k buckets, ln(1 + k (1 - p) / p), up."""
    ratio = k * (1 - Fraction(p)) / Fraction(p)
    with decimal.localcontext() as ctx:
        ctx.prec = _DIGITS
        x = Decimal(ratio.numerator) / Decimal(ratio.denominator)
        return _float_up((1 + x).ln() * (1 + _MARGIN))


def _refuse(event: PrivacyEvent, why: str) -> InvalidParameterError:
    return InvalidParameterError(f"event: {event!r} has no dp_accounting DpEvent ({why})", "event")


def to_dp_event(event: PrivacyEvent) -> Any:
    """The dp_accounting ``DpEvent`` of a privacy event (see the module docstring's mapping).

    Parameters
    ----------
    event : PrivacyEvent

    Returns
    -------
    dp_accounting.dp_event.DpEvent

    Raises
    ------
    InvalidParameterError
        If ``event`` is not a PrivacyEvent, or has no DpEvent (an :math:`(\\varepsilon,
        \\delta)` event with delta > 0, an RDP curve, or a composition containing one).
    ImportError
        If dp_accounting is not installed.
    """
    if not isinstance(event, PrivacyEvent):
        raise InvalidParameterError(
            f"event: must be a PrivacyEvent; got {event!r} of type {type(event).__name__}",
            "event",
        )
    de = _dp_event_module()
    return _export(event, de)


def _export(event: PrivacyEvent, de: Any) -> Any:
    k, p = event.kind, event.params
    if k == "gaussian":
        return de.GaussianDpEvent(noise_multiplier=_div_down(p[0], p[1]))
    if k == "laplace":
        return de.LaplaceDpEvent(noise_multiplier=_div_down(p[0], p[1]))
    if k == "discrete_laplace":
        return de.DiscreteLaplaceDpEvent(
            noise_parameter=_float_up(1 / Fraction(p[0])), sensitivity=int(p[1])
        )
    if k in ("discrete_gaussian", "bounded_range", "zcdp"):
        return de.ZCDpEvent(rho=event.to_zcdp().rho)
    if k == "pure":
        if p[0] == 0.0:
            return de.NoOpDpEvent()
        return de.RandomizedResponseDpEvent(noise_parameter=_rr_noise_down(p[0], 2), num_buckets=2)
    if k == "randomized_response":
        return de.RandomizedResponseDpEvent(
            noise_parameter=_rr_noise_down(p[0], p[1]), num_buckets=int(p[1])
        )
    if k == "subsampled_gaussian":
        return de.PoissonSampledDpEvent(
            sampling_probability=p[0], event=de.GaussianDpEvent(noise_multiplier=p[1])
        )
    if k in ("fixed_size_subsampled_gaussian", "fixed_size_subsampled_laplace"):
        m, n = float(p[0]).as_integer_ratio()  # m / n is exactly the rate
        inner = de.GaussianDpEvent if k == "fixed_size_subsampled_gaussian" else de.LaplaceDpEvent
        return de.SampledWithoutReplacementDpEvent(
            source_dataset_size=n,
            sample_size=m,
            event=inner(noise_multiplier=_div_down(p[1], p[2])),
        )
    if k == "composed":
        return de.ComposedDpEvent(events=[_export(e, de) for e in p])
    if k == "repeated":
        inner, count = _export(p[0], de), int(p[1])
        if "RandomizedResponseDpEvent" in _leaf_kinds(inner):
            if count > _MAX_RR_COPIES:
                raise _refuse(
                    event,
                    f"dp_accounting 0.6 ignores the count of randomized response, and more "
                    f"than {_MAX_RR_COPIES} explicit copies are not exported",
                )
            return de.ComposedDpEvent(events=[inner] * count)
        return de.SelfComposedDpEvent(event=inner, count=count)
    if k == "approx":
        raise _refuse(event, "dp_accounting has no (epsilon, delta) event")
    raise _refuse(event, "dp_accounting has no event for an arbitrary RDP curve")


def ledger_to_dp_event(entries: Iterable[Any]) -> Any:
    """A ``ComposedDpEvent`` of the events of ledger entries (``Accountant.ledger``), in order.

    Raises
    ------
    InvalidParameterError
        If an entry has no event or an event has no DpEvent.
    """
    de = _dp_event_module()
    out = []
    for i, entry in enumerate(entries):
        event = getattr(entry, "event", None)
        if not isinstance(event, PrivacyEvent):
            raise InvalidParameterError(
                f"entries: entry {i} ({entry!r}) records no PrivacyEvent", "entries"
            )
        out.append(_export(event, de))
    return de.ComposedDpEvent(events=out)


def from_dp_event(dp_event: Any, *, neighbours: str = REPLACE_ONE) -> PrivacyEvent:
    """The privacy event of a dp_accounting ``DpEvent``.

    Supported: ``NoOpDpEvent`` (``pure(0)``), ``GaussianDpEvent``, ``LaplaceDpEvent``,
    ``DiscreteLaplaceDpEvent`` (scale ``1 / a`` rounded down), ``RandomizedResponseDpEvent``
    (epsilon ``ln(1 + k (1 - p) / p)`` rounded up), ``ZCDpEvent`` with ``xi = 0``,
    ``PoissonSampledDpEvent`` of a ``GaussianDpEvent`` (add/remove-one),
    ``SampledWithoutReplacementDpEvent`` of a ``GaussianDpEvent`` or ``LaplaceDpEvent``
    (replace-one, rate rounded up), ``ComposedDpEvent``,
    ``SelfComposedDpEvent``. The noise multipliers are read as noise over a sensitivity of 1.

    Parameters
    ----------
    dp_event : dp_accounting.dp_event.DpEvent
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"
        The relation the imported events are stated for (a DpEvent carries none).

    Raises
    ------
    InvalidParameterError
        On any other kind of event (named in the message), a non-private one
        (``NonPrivateDpEvent``, zero noise), or ``xi != 0``.
    ImportError
        If dp_accounting is not installed.
    """
    nb = _neighbours_arg(neighbours)
    de = _dp_event_module()
    return _import(dp_event, de, nb)


def _import(ev: Any, de: Any, nb: str) -> PrivacyEvent:
    name = type(ev).__name__
    if isinstance(ev, de.NoOpDpEvent):
        return PrivacyEvent.pure(0.0, neighbours=nb)
    if isinstance(ev, de.NonPrivateDpEvent):
        raise InvalidParameterError(
            "dp_event: a NonPrivateDpEvent has no privacy guarantee", "dp_event"
        )
    if isinstance(ev, de.GaussianDpEvent):
        return PrivacyEvent.gaussian(ev.noise_multiplier, neighbours=nb)
    if isinstance(ev, de.LaplaceDpEvent):
        return PrivacyEvent.laplace(ev.noise_multiplier, neighbours=nb)
    if isinstance(ev, de.DiscreteLaplaceDpEvent):
        a = ev.noise_parameter
        if not (isinstance(a, (int, float)) and a > 0):
            raise InvalidParameterError(
                f"dp_event: DiscreteLaplaceDpEvent needs noise_parameter > 0; got {a!r}",
                "dp_event",
            )
        return PrivacyEvent.discrete_laplace(
            _float_down(1 / Fraction(a)), sensitivity=ev.sensitivity, neighbours=nb
        )
    if isinstance(ev, de.RandomizedResponseDpEvent):
        p, k = ev.noise_parameter, ev.num_buckets
        if not (isinstance(p, (int, float)) and 0 < p <= 1) or not isinstance(k, int) or k < 1:
            raise InvalidParameterError(
                "dp_event: RandomizedResponseDpEvent needs 0 < noise_parameter <= 1 and "
                f"num_buckets >= 1; got {p!r}, {k!r}",
                "dp_event",
            )
        if k == 1 or p == 1:
            return PrivacyEvent.pure(0.0, neighbours=nb)
        return PrivacyEvent.randomized_response(_rr_epsilon_up(float(p), k), k, neighbours=nb)
    if isinstance(ev, de.ZCDpEvent):
        if ev.xi != 0:
            raise InvalidParameterError(
                f"dp_event: only ZCDpEvent with xi = 0 (rho-zCDP) is supported; got xi={ev.xi!r}",
                "dp_event",
            )
        return PrivacyEvent.zcdp(float(ev.rho), neighbours=nb)
    if isinstance(ev, de.PoissonSampledDpEvent):
        if not isinstance(ev.event, de.GaussianDpEvent):
            raise InvalidParameterError(
                "dp_event: only a PoissonSampledDpEvent of a GaussianDpEvent is supported; "
                f"got one of {type(ev.event).__name__}",
                "dp_event",
            )
        # Stated for add/remove-one (its analysis), whatever ``neighbours`` says.
        return PrivacyEvent.subsampled_gaussian(ev.sampling_probability, ev.event.noise_multiplier)
    if isinstance(ev, de.SampledWithoutReplacementDpEvent):
        return _import_without_replacement(ev, de)
    if isinstance(ev, de.ComposedDpEvent):
        parts = [_import(e, de, nb) for e in ev.events]
        return PrivacyEvent.composed(parts) if parts else PrivacyEvent.pure(0.0, neighbours=nb)
    if isinstance(ev, de.SelfComposedDpEvent):
        if ev.count == 0:
            return PrivacyEvent.pure(0.0, neighbours=nb)
        return PrivacyEvent.repeated(_import(ev.event, de, nb), ev.count)
    raise InvalidParameterError(
        f"dp_event: {name} is not supported (supported: NoOp, Gaussian, Laplace, "
        "DiscreteLaplace, RandomizedResponse, ZCDp with xi = 0, PoissonSampled Gaussian, "
        "SampledWithoutReplacement Gaussian or Laplace, Composed, SelfComposed)",
        "dp_event",
    )


def _import_without_replacement(ev: Any, de: Any) -> PrivacyEvent:
    """A ``SampledWithoutReplacementDpEvent`` of a Gaussian or Laplace event: the fixed-size
    subsampled event (replace-one, its analysis), rate ``sample_size / source_dataset_size``
    rounded up (a larger rate is less private), noise over a sensitivity of 1."""
    n, m = ev.source_dataset_size, ev.sample_size
    if not (isinstance(n, int) and isinstance(m, int) and not isinstance(n, bool) and 1 <= m <= n):
        raise InvalidParameterError(
            "dp_event: SampledWithoutReplacementDpEvent needs integers 1 <= sample_size <= "
            f"source_dataset_size; got {m!r}, {n!r}",
            "dp_event",
        )
    rate = _float_up(Fraction(m, n))
    if isinstance(ev.event, de.GaussianDpEvent):
        return PrivacyEvent.fixed_size_subsampled_gaussian(rate, ev.event.noise_multiplier)
    if isinstance(ev.event, de.LaplaceDpEvent):
        return PrivacyEvent.fixed_size_subsampled_laplace(rate, ev.event.noise_multiplier)
    raise InvalidParameterError(
        "dp_event: only a SampledWithoutReplacementDpEvent of a GaussianDpEvent or a "
        f"LaplaceDpEvent is supported; got one of {type(ev.event).__name__}",
        "dp_event",
    )
