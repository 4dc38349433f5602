r"""The accountant: :class:`Accountant`, its ledger of :class:`LedgerEntry`, its transactions.

An :class:`Accountant` holds a total for one dataset and charges spends by one composition
mode: ``"basic"`` (epsilons and deltas add, exact sums as integer multiples of ``2**-1074``),
``"zcdp"`` (a zCDP privacy filter), ``"rdp"`` (a Rényi filter at one order fixed in advance) or
``"pld"`` (privacy-loss distributions, for a plan of events declared up front). In every mode
it refuses any spend that would exceed the total before anything is drawn, records every
charge in its ledger as a :class:`~privlearn.accounting._event.PrivacyEvent`, hands
sub-budgets to children, and reserves a spend for the duration of a transaction
(:meth:`Accountant.transaction`) that is committed only if its block completes.
"""

from __future__ import annotations

import decimal
import functools
import math
import threading
import time
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from types import TracebackType
from typing import Any, List, Optional, Sequence, Tuple, Type, Union

from .._validate import check_choice, check_positive
from ..errors import BudgetExceededError, InvalidParameterError
from ._budget import Budget, _budget_arg
from ._convert import _eps_at, _rdp_to_dp, rdp_to_dp, zcdp_to_dp
from ._event import PrivacyEvent
from ._neighbours import REPLACE_ONE, _neighbours_arg, _rcontext, _same_neighbours
from ._numerics import BISECT_RTOL, _float_down, _float_up, _largest_fitting
from ._rdp import RDP_ORDERS, RdpCurve, compose_rdp, rdp_zcdp
from ._zcdp import ZcdpBudget


def check_accountant(value: object, name: str = "accountant") -> "Optional[Accountant]":
    """``value`` if it is ``None`` or an :class:`Accountant` (checked when a release is
    configured, and again by every charge); the one check of an ``accountant=`` argument."""
    if value is not None and not isinstance(value, Accountant):
        raise InvalidParameterError(
            f"{name}: must be None or a privlearn.accounting.Accountant, got {type(value).__name__}",
            name,
        )
    return value


def _label_arg(value: object) -> str:
    if not isinstance(value, str):
        raise InvalidParameterError(
            f"label: must be a str; got {value!r} of type {type(value).__name__}", "label"
        )
    return value


_FIXED_BITS = 1074  # 2**-1074 is the smallest positive float: every float is a multiple


def _fixed(x: float) -> int:
    """A finite float >= 0 as an exact integer multiple of 2**-1074."""
    n, d = x.as_integer_ratio()  # d is a power of two <= 2**1074
    return n << (_FIXED_BITS + 1 - d.bit_length())


def _unfixed(v: int) -> Fraction:
    return Fraction(v, 1 << _FIXED_BITS)


@dataclass(frozen=True)
class LedgerEntry:
    """One charge recorded by an :class:`Accountant`.

    Attributes
    ----------
    label : str
        What the budget was spent on (given by the caller).
    budget : Budget or None
        The :math:`(\\varepsilon, \\delta)` form of the charge: in ``"basic"`` composition the
        amount charged (always set); in the other modes the event's own
        :attr:`PrivacyEvent.budget <privlearn.accounting._event.PrivacyEvent.budget>` when it
        has one (a pure epsilon or a declared budget), else ``None`` (a zCDP or RDP event, a
        Gaussian without a declared budget: what was charged is :attr:`event` in the mode's
        own notion).
    timestamp : float
        When it was charged, in seconds since the epoch (:func:`time.time`).
    kind : str
        ``"spend"`` for :meth:`Accountant.spend` and for committed transactions
        (:meth:`Accountant.transaction`), ``"child"`` for a sub-budget handed out by
        :meth:`Accountant.child`.
    event : PrivacyEvent or None
        The release in its native form (a :class:`Budget` spend is recorded as
        ``PrivacyEvent.from_budget(budget)``). ``None`` only for entries built by hand.
    """

    label: str
    budget: Optional[Budget]
    timestamp: float
    kind: str = "spend"
    event: Optional[PrivacyEvent] = None


_MODES = ("basic", "zcdp", "rdp", "pld")
_DEFAULT_DISCRETIZATION = 1e-4
# Relative tolerance of the bisection for the zCDP budget of an (epsilon, delta) total.
_SLACK_BITS = 40  # spends may exceed a cap by a relative 2**-40 (see the class docstring)

Spendable = Union[Budget, PrivacyEvent, ZcdpBudget, RdpCurve]
Total = Union[Budget, ZcdpBudget, RdpCurve]


def _with_slack(v: int) -> int:
    return v + (v >> _SLACK_BITS)


class _Charge:
    """What one spend costs, computed before the lock is taken (the forms may be slow)."""

    __slots__ = ("given", "event", "budget", "a", "b")

    def __init__(
        self, given: object, event: PrivacyEvent, budget: Optional[Budget], a: int, b: int
    ) -> None:
        self.given = given  # what the caller passed (reported by BudgetExceededError)
        self.event = event
        self.budget = budget  # the LedgerEntry's budget
        self.a = a  # basic: epsilon; zcdp: rho; rdp: the curve at the order (fixed point)
        self.b = b  # basic: delta; else 0


class Accountant:
    r"""Tracks the privacy spent on one dataset and refuses to exceed a total.

    ``composition`` chooses how spends compose; in every mode a spend that would exceed the
    total raises :class:`~privlearn.errors.BudgetExceededError` *before* anything is charged
    or drawn, nothing is charged on any error, spends are recorded in the :attr:`ledger` as
    :class:`~privlearn.accounting._event.PrivacyEvent` s, :meth:`child` and
    :meth:`transaction` work, and the accountant is thread-safe (a lock makes
    check-and-charge atomic; the events' forms are computed before it is taken).

    A spend is a :class:`Budget`, a :class:`~privlearn.accounting._event.PrivacyEvent`, a
    :class:`~privlearn.accounting._zcdp.ZcdpBudget` or an
    :class:`~privlearn.accounting._rdp.RdpCurve` (the last three are read as
    ``PrivacyEvent.from_budget``, ``PrivacyEvent.zcdp``, ``PrivacyEvent.rdp``). Every event
    states a neighbouring relation; the accountant has one (``neighbours``) and refuses an
    event stated for the other with :class:`~privlearn.errors.InvalidParameterError` (a
    :class:`Budget` carries no relation and is taken to be the accountant's).

    **"basic"** (default): epsilons add and deltas add (Dwork and Roth 2014, Theorem 3.16,
    which holds for adaptively chosen mechanisms and, as a filter, for adaptively chosen
    parameters: Rogers, Roth, Ullman and Vadhan, NeurIPS 2016). A spend fits when both the
    epsilon *and* the delta already spent and reserved, plus the new one, stay at or below the
    total's; so an accountant with a pure total (``delta = 0``) refuses every spend with
    ``delta > 0``. A :class:`~privlearn.accounting._event.PrivacyEvent` is charged its
    ``budget`` (an event without one is refused). Sums are exact (floats are exact binary
    fractions) and :attr:`spent` reports them exactly. Decimal fractions such as ``0.1`` are
    slightly larger as floats, so ten spends of ``Budget(0.1)`` add up to a hair over ``1.0``:
    spends are therefore accepted when they exceed the total by at most a relative ``2**-40``
    (about ``1e-12``, far below any meaningful privacy difference), and :attr:`spent` then
    shows the exact, slightly larger, sum. Spend ``total / k`` to split a total into ``k``
    parts that fit exactly.

    **"zcdp"**: a zCDP *privacy filter*. ``total`` is a
    :class:`~privlearn.accounting._zcdp.ZcdpBudget` (then :attr:`total_native` is it), or an
    :math:`(\varepsilon, \delta)` :class:`Budget` with ``delta > 0``, turned into the largest
    :math:`\rho` (to a relative ``1e-12``, rounded down) whose Canonne-Kamath-Steinke
    conversion (:func:`~privlearn.accounting._convert.zcdp_to_dp`) at ``total.delta`` is at
    most ``total.epsilon`` *including* the ``2**-40`` slack, by bisection. A spend is charged
    its :meth:`~privlearn.accounting._event.PrivacyEvent.to_zcdp` rho and fits iff the exact sum
    of the rhos stays at most :math:`\rho_{total}` (plus the slack). **Adaptive validity**: the
    rhos may be chosen from the earlier outputs. Feldman and Zrnic ("Individual Privacy
    Accounting via a Rényi Filter", NeurIPS 2021) prove that at a fixed order :math:`\alpha`, a
    sequence of adaptively chosen mechanisms, stopped before the sum of their (adaptively
    chosen) RDP parameters at :math:`\alpha` exceeds a budget :math:`B`, is
    :math:`(\alpha, B)`-RDP. Applied at every :math:`\alpha > 1` with
    :math:`B = \rho_{total}\alpha` (a :math:`\rho_i`-zCDP spend is
    :math:`(\alpha, \rho_i\alpha)`-RDP, and the stopping rule "sum of rhos at most
    :math:`\rho_{total}`" is the same at every order), the whole interaction is
    :math:`\rho_{total}`-zCDP, hence ``total``-DP; Whitehouse, Ramdas, Rogers and Wu
    ("Fully-Adaptive Composition in Differential Privacy", ICML 2023) give zCDP filters
    directly. A pure total (``delta = 0``) admits only :math:`\rho = 0` and is refused: use
    ``"basic"``.

    **"rdp"**: a Rényi filter at **one** order :math:`\alpha` fixed at construction: ``order``
    (one of :data:`~privlearn.accounting._rdp.RDP_ORDERS`), or by default the grid order at
    which :math:`\rho_{total}`-zCDP (as in ``"zcdp"``) converts best at ``total.delta``. The
    budget :math:`B` (:attr:`total_native`) is the largest RDP value at :math:`\alpha` whose
    conversion (Canonne, Kamath and Steinke 2020, Proposition 12, rounded up) at
    ``total.delta`` is at most ``total.epsilon`` including the slack; for an
    :class:`~privlearn.accounting._rdp.RdpCurve` total it is the curve's value at ``order``,
    for a ``ZcdpBudget`` total :math:`\rho\alpha` (rounded down); both need ``order``. A spend
    is charged its curve's value at :math:`\alpha` (an infinite value never fits). *Why one
    order*: Feldman and Zrnic's filter theorem holds for an order fixed in advance; the usual
    non-adaptive trick of choosing the best order after composing is not valid when the
    parameters were chosen adaptively, because the order would then depend on the outputs.

    **"pld"**: privacy-loss-distribution composition (Doroshenko, Ghazi, Kamath, Kumar and
    Manurangsi, PETS 2022) has no filter theory: it is valid for a sequence of mechanisms whose
    dominating pairs are fixed in advance (the queries themselves may be adaptive: Zhu, Dong
    and Wang, AISTATS 2022). So the accountant needs the ``plan``: the sequence of events,
    declared at construction; it composes their PLDs (pessimistic discretisation with interval
    ``value_discretization``) and refuses a plan whose epsilon at ``total.delta`` exceeds
    ``total.epsilon``. Each spend must *equal* the next planned event
    (:class:`~privlearn.errors.InvalidParameterError` "not the next planned event" otherwise,
    nothing charged); a spend after the last planned one raises
    :class:`~privlearn.errors.BudgetExceededError`. Spending fewer events than planned is fine
    (a prefix is a post-processing of the whole). A transaction that raises gives its slot
    back if no later slot was taken meanwhile, else the slot is skipped (running nothing at a
    step is dominated by the planned pair).

    **Reports.** :attr:`spent` is a :class:`Budget` in every mode with a :class:`Budget`
    total: in ``"basic"`` the exact sums (rounded up); otherwise the composition of the
    recorded events converted at ``total.delta`` by the mode's own route (zCDP: the summed
    rho; RDP: the summed curves at their best order; PLD: the composed distribution), rounded
    up, ``Budget(0.0)`` before any spend. That is the guarantee of the recorded events as a
    fixed sequence; when parameters were chosen adaptively the guarantee is the total,
    enforced by the filter, which :attr:`spent` never exceeds (beyond the slack).
    :attr:`remaining` is defined in ``"basic"`` only (an :math:`(\varepsilon, \delta)`
    remainder has no meaning when budgets do not subtract); :attr:`remaining_native` works in
    every mode (a :class:`Budget`, a ``ZcdpBudget``, a float RDP value at :attr:`order`, or the
    tuple of planned events not yet spent), and so do :attr:`spent_native` and
    :attr:`total_native`.

    For tighter accounting of many homogeneous steps in ``"basic"``, compute their joint
    guarantee first (for example ``compose_optimal(step, k, delta_slack)``) and spend it once.

    Parameters
    ----------
    total : Budget, ZcdpBudget or RdpCurve
        The whole budget available (a ``ZcdpBudget`` only in ``"zcdp"`` and ``"rdp"``, an
        ``RdpCurve`` only in ``"rdp"``).
    composition : {"basic", "zcdp", "rdp", "pld"}, default "basic"
    plan : sequence of PrivacyEvent or Budget, optional
        ``"pld"`` only, and required there.
    order : float, optional
        ``"rdp"`` only: the Rényi order of the filter (one of ``RDP_ORDERS``).
    value_discretization : float, optional
        ``"pld"`` only: the PLD grid interval (default ``1e-4``).
    neighbours : {"replace-one", "add/remove-one"}, optional
        The relation of the accountant (default: the total's for a ``ZcdpBudget`` or
        ``RdpCurve`` total, else ``"replace-one"``).

    Raises
    ------
    InvalidParameterError
        On an unknown mode, a total of the wrong kind for the mode, ``plan`` / ``order`` /
        ``value_discretization`` given to a mode that does not use them, a missing plan in
        ``"pld"``, a plan that does not fit the total, or a relation that differs from the
        total's or a planned event's.

    Examples
    --------
    >>> from privlearn.accounting import Accountant, Budget
    >>> acct = Accountant(Budget(1.0))
    >>> for _ in range(4):
    ...     _ = acct.spend(acct.total / 4, "query")
    >>> acct.remaining
    Budget(epsilon=0.0, delta=0.0)
    >>> acct.spend(Budget(0.1), "one too many")
    Traceback (most recent call last):
        ...
    privlearn.errors.BudgetExceededError: spending Budget(epsilon=0.1, delta=0.0) on 'one too many' would exceed the total Budget(epsilon=1.0, delta=0.0); remaining: Budget(epsilon=0.0, delta=0.0)
    """

    def __init__(
        self,
        total: Total,
        composition: str = "basic",
        *,
        plan: Optional[Sequence[Union[PrivacyEvent, Budget]]] = None,
        order: Optional[float] = None,
        value_discretization: Optional[float] = None,
        neighbours: Optional[str] = None,
    ) -> None:
        mode = check_choice(composition, "composition", _MODES)
        if plan is not None and mode != "pld":
            raise InvalidParameterError(
                f"plan: only composition='pld' takes a plan (got composition={mode!r})", "plan"
            )
        if order is not None and mode != "rdp":
            raise InvalidParameterError(
                f"order: only composition='rdp' takes an order (got composition={mode!r})",
                "order",
            )
        if value_discretization is not None and mode != "pld":
            raise InvalidParameterError(
                "value_discretization: only composition='pld' takes a value_discretization "
                f"(got composition={mode!r})",
                "value_discretization",
            )
        self._mode = mode
        self._total: Total = total
        self._order: Optional[float] = None
        self._plan: Optional[Tuple[PrivacyEvent, ...]] = None
        self._discretization = _DEFAULT_DISCRETIZATION
        self._plds: List[Any] = []
        self._slots: List[int] = []  # pld: 0 free, 1 reserved, 2 spent, 3 skipped
        self._next = 0  # pld: index of the next planned event
        self._spent_pld: Optional[Tuple[int, Any]] = None  # pld: (n spent, composed) cache
        self._curves: List[RdpCurve] = []  # rdp: the committed curves (for spent)
        self._spent_a = 0
        self._spent_b = 0
        self._reserved_a = 0
        self._reserved_b = 0
        self._entries: List[LedgerEntry] = []
        self._lock = threading.Lock()

        total_nb: Optional[str] = None
        if isinstance(total, (ZcdpBudget, RdpCurve)):
            total_nb = total.neighbours
        if neighbours is None:
            self._neighbours = total_nb or REPLACE_ONE
        else:
            self._neighbours = _neighbours_arg(neighbours)
            if total_nb is not None:
                _same_neighbours(total_nb, self._neighbours, "neighbours")

        if mode == "basic":
            b = _budget_arg(total, "total")
            self._cap_a, self._cap_b = _fixed(b.epsilon), _fixed(b.delta)
        elif mode == "zcdp":
            if isinstance(total, ZcdpBudget):
                self._cap_a = _fixed(total.rho)
            else:
                b = _total_with_delta(total, mode)
                self._cap_a = _fixed(_max_rho(b, self._neighbours))
            self._cap_b = 0
        elif mode == "rdp":
            self._init_rdp(total, order)
        else:
            self._init_pld(total, plan, value_discretization)

    def _init_rdp(self, total: object, order: Optional[float]) -> None:
        if order is not None:
            if order not in RDP_ORDERS or isinstance(order, bool):
                raise InvalidParameterError(
                    f"order: must be one of RDP_ORDERS (1.1, ..., 1024.0); got {order!r}",
                    "order",
                )
            order = float(order)
        if isinstance(total, (ZcdpBudget, RdpCurve)):
            if order is None:
                raise InvalidParameterError(
                    "order: required with a ZcdpBudget or RdpCurve total (the filter's order "
                    "must be fixed before any spend)",
                    "order",
                )
            if isinstance(total, RdpCurve):
                cap = total.at(order)
                if math.isinf(cap):
                    raise InvalidParameterError(
                        f"total: the curve is infinite at order {order!r}", "total"
                    )
            else:
                cap = _float_down(Fraction(total.rho) * Fraction(order))
        else:
            b = _total_with_delta(total, "rdp")
            if order is None:
                rho = _max_rho(b, self._neighbours)
                best = None
                if rho > 0.0:
                    best = _rdp_to_dp(
                        rdp_zcdp(ZcdpBudget._unchecked(rho, self._neighbours)), b.delta
                    )[1]
                order = best if best is not None else 2.0
            cap = _max_rdp_at(b, order)
        self._order = order
        self._cap_a, self._cap_b = _fixed(cap), 0

    def _init_pld(
        self,
        total: object,
        plan: Optional[Sequence[Union[PrivacyEvent, Budget]]],
        value_discretization: Optional[float],
    ) -> None:
        b = _budget_arg(total, "total")
        if value_discretization is not None:
            self._discretization = check_positive(value_discretization, "value_discretization")
        if plan is None:
            raise InvalidParameterError(
                "plan: composition='pld' needs the sequence of events declared up front: PLD "
                "composition is valid only for mechanisms whose privacy parameters are fixed in "
                "advance (there is no PLD privacy filter); use composition='zcdp' or 'rdp' for "
                "adaptively chosen parameters",
                "plan",
            )
        if isinstance(plan, (PrivacyEvent, Budget, str)) or not hasattr(plan, "__iter__"):
            raise InvalidParameterError(
                f"plan: must be a sequence of PrivacyEvent; got {plan!r}", "plan"
            )
        events = tuple(self._event_of(e, "plan") for e in plan)
        plds = [e.to_pld(self._discretization) for e in events]
        if events:
            from ._pld import compose_pld

            eps = compose_pld(plds).epsilon(b.delta)
            if not eps <= b.epsilon:
                raise InvalidParameterError(
                    f"plan: the {len(events)} planned events compose (PLD) to epsilon "
                    f"{eps!r} at delta {b.delta!r}, more than the total {b!r}",
                    "plan",
                )
        self._plan = events
        self._plds = plds
        self._slots = [0] * len(events)
        self._cap_a, self._cap_b = 0, 0

    # -- state ---------------------------------------------------------------------------------

    @property
    def composition(self) -> str:
        """The composition mode: ``"basic"``, ``"zcdp"``, ``"rdp"`` or ``"pld"``."""
        return self._mode

    @property
    def neighbours(self) -> str:
        """The neighbouring relation the accountant accounts for."""
        return self._neighbours

    @property
    def order(self) -> Optional[float]:
        """The Rényi order of an ``"rdp"`` accountant's filter (``None`` in other modes)."""
        return self._order

    @property
    def plan(self) -> Optional[Tuple[PrivacyEvent, ...]]:
        """The planned events of a ``"pld"`` accountant (``None`` in other modes)."""
        return self._plan

    @property
    def total(self) -> Total:
        """The total this accountant was created with."""
        return self._total

    @property
    def total_native(self) -> Union[Budget, ZcdpBudget, float, Tuple[PrivacyEvent, ...]]:
        """The cap in the mode's own notion: the total (``"basic"``), its rho (``"zcdp"``),
        the RDP budget at :attr:`order` (``"rdp"``), the plan (``"pld"``)."""
        if self._mode == "basic":
            assert isinstance(self._total, Budget)
            return self._total
        if self._mode == "zcdp":
            return ZcdpBudget._unchecked(float(_unfixed(self._cap_a)), self._neighbours)
        if self._mode == "rdp":
            return float(_unfixed(self._cap_a))
        assert self._plan is not None
        return self._plan

    @property
    def spent(self) -> Budget:
        """The :math:`(\\varepsilon, \\delta)` of the committed entries (rounded up).

        ``"basic"``: the exact sums. Other modes (with a :class:`Budget` total): the
        composition of the recorded events at ``total.delta`` (see the class docstring).
        Includes sub-budgets handed to children, not reservations of open transactions.

        Raises
        ------
        InvalidParameterError
            For a ``ZcdpBudget`` or ``RdpCurve`` total (no delta to convert at): use
            :attr:`spent_native`.
        """
        if self._mode == "basic":
            with self._lock:
                return Budget._unchecked(
                    _float_up(_unfixed(self._spent_a)), _float_up(_unfixed(self._spent_b))
                )
        if not isinstance(self._total, Budget):
            raise InvalidParameterError(
                "spent: a ZcdpBudget or RdpCurve total has no delta to convert at; use "
                "spent_native",
                "spent",
            )
        delta = self._total.delta
        native = self.spent_native
        if self._mode == "zcdp":
            assert isinstance(native, ZcdpBudget)
            return Budget(0.0) if native.rho == 0.0 else zcdp_to_dp(native, delta)
        if self._mode == "rdp":
            assert isinstance(native, RdpCurve)
            if all(v == 0.0 for v in native.epsilons):
                return Budget(0.0)
            return rdp_to_dp(native, delta)
        if native is None:
            return Budget(0.0)
        return native.to_dp(delta)  # type: ignore[no-any-return,union-attr]

    @property
    def spent_native(self) -> Any:
        """What the committed entries compose to in the mode's own notion: a :class:`Budget`
        (``"basic"``), a ``ZcdpBudget`` (``"zcdp"``), an ``RdpCurve`` (``"rdp"``: the sum of
        the whole curves), a ``PldCurve`` (``"pld"``; ``None`` before any spend)."""
        if self._mode == "basic":
            return self.spent
        if self._mode == "zcdp":
            with self._lock:
                v = self._spent_a
            return ZcdpBudget._unchecked(_float_up(_unfixed(v)), self._neighbours)
        if self._mode == "rdp":
            with self._lock:
                curves = list(self._curves)
            if not curves:
                return RdpCurve([0.0] * len(RDP_ORDERS), self._neighbours)
            return compose_rdp(curves)
        with self._lock:
            done = [p for p, s in zip(self._plds, self._slots) if s == 2]
        if not done:
            return None
        cached = self._spent_pld
        if cached is not None and cached[0] == len(done):
            return cached[1]
        from ._pld import compose_pld

        composed = compose_pld(done)
        self._spent_pld = (len(done), composed)
        return composed

    @property
    def remaining(self) -> Budget:
        """What can still be spent (``"basic"`` only): the total minus the spent and reserved
        (rounded down). ``accountant.spend(accountant.remaining, label)`` always fits.

        Raises
        ------
        InvalidParameterError
            In the other modes, where budgets do not subtract: use :attr:`remaining_native`.
        """
        if self._mode != "basic":
            raise InvalidParameterError(
                f"remaining: not defined under composition={self._mode!r} ((epsilon, delta) "
                "budgets do not subtract); use remaining_native",
                "remaining",
            )
        with self._lock:
            return self._remaining_locked()  # type: ignore[return-value]

    @property
    def remaining_native(self) -> Union[Budget, ZcdpBudget, float, Tuple[PrivacyEvent, ...]]:
        """What can still be spent, in the mode's own notion (rounded down): a :class:`Budget`
        (``"basic"``), a ``ZcdpBudget`` (``"zcdp"``), the RDP value left at :attr:`order`
        (``"rdp"``), the planned events not yet spent or reserved (``"pld"``)."""
        with self._lock:
            return self._remaining_locked()

    @property
    def ledger(self) -> Tuple[LedgerEntry, ...]:
        """The committed entries, oldest first (an immutable snapshot)."""
        with self._lock:
            return tuple(self._entries)

    def __repr__(self) -> str:
        with self._lock:
            n = len(self._entries)
            a, b = self._spent_a, self._spent_b
        if self._mode == "basic":
            spent = Budget._unchecked(_float_up(_unfixed(a)), _float_up(_unfixed(b)))
            return f"Accountant(total={self._total!r}, spent={spent!r}, entries={n})"
        extra = ""
        if self._mode == "zcdp":
            extra = f", spent_rho={_float_up(_unfixed(a))!r}"
        elif self._mode == "rdp":
            extra = f", order={self._order!r}, spent_at_order={_float_up(_unfixed(a))!r}"
        return f"Accountant(total={self._total!r}, composition={self._mode!r}{extra}, entries={n})"

    def to_dp_event(self) -> Any:
        """The committed ledger as one dp_accounting ``ComposedDpEvent`` (see
        :func:`privlearn.accounting._dp_accounting.to_dp_event`; needs dp_accounting)."""
        from ._dp_accounting import ledger_to_dp_event

        return ledger_to_dp_event(self.ledger)

    # -- spending ------------------------------------------------------------------------------

    def spend(self, budget: Spendable, label: str) -> LedgerEntry:
        """Charge ``budget`` and record it in the ledger under ``label``.

        Parameters
        ----------
        budget : Budget, PrivacyEvent, ZcdpBudget or RdpCurve
            The privacy cost of the release being made.
        label : str
            What it is spent on (free text, shown in the ledger).

        Returns
        -------
        LedgerEntry
            The recorded entry.

        Raises
        ------
        BudgetExceededError
            If the spend would take the spent-plus-reserved amount past the total (see the
            class docstring for each mode). Nothing is charged and the accountant is left
            exactly as it was.
        InvalidParameterError
            If ``budget`` is not one of those types, has no form in this mode, is stated for
            another neighbouring relation, or (``"pld"``) is not the next planned event;
            or ``label`` is not a str. Nothing is charged.
        """
        charge = self._charge_of(budget)
        label = _label_arg(label)
        with self._lock:
            slot = self._check_locked(charge, label)
            return self._commit_locked(charge, label, "spend", slot)

    def child(self, budget: Spendable, label: str) -> "Accountant":
        """Hand a sub-budget to a learner or a sub-computation.

        ``budget`` is charged to this accountant at once (a ledger entry of kind ``"child"``)
        and a new :class:`Accountant` in the same mode is returned, whose total is what was
        charged: the :class:`Budget` (``"basic"``); the event's ``ZcdpBudget`` (``"zcdp"``);
        its ``RdpCurve`` with the same :attr:`order` (``"rdp"``); in ``"pld"`` the next planned
        event, whose parts (a ``composed`` event's events, a ``repeated`` event's copies, else
        the event itself) become the child's plan, with total its PLD's epsilon at this
        accountant's delta. The child's own ledger records what is spent from it. Whatever the
        child leaves unspent stays charged to the parent (the parent cannot know what the
        child released).

        Raises
        ------
        BudgetExceededError
            If ``budget`` does not fit; nothing is charged.
        InvalidParameterError
            As for :meth:`spend`.
        """
        charge = self._charge_of(budget)
        label = _label_arg(label)
        event = charge.event
        nb = self._neighbours
        if self._mode == "basic":
            assert charge.budget is not None
            make = functools.partial(Accountant, charge.budget, neighbours=nb)
        elif self._mode == "zcdp":
            make = functools.partial(Accountant, event.to_zcdp(), "zcdp", neighbours=nb)
        elif self._mode == "rdp":
            make = functools.partial(
                Accountant, event.to_rdp(), "rdp", order=self._order, neighbours=nb
            )
        else:
            make = functools.partial(self._pld_child, event)
        with self._lock:
            slot = self._check_locked(charge, label)
            # Built under the lock, before the commit: if it failed nothing would be charged.
            child = make()
            self._commit_locked(charge, label, "child", slot)
        return child

    def _pld_child(self, event: PrivacyEvent) -> "Accountant":
        if event.kind == "composed":
            parts: Tuple[PrivacyEvent, ...] = event.params
        elif event.kind == "repeated":
            parts = (event.params[0],) * event.params[1]
        else:
            parts = (event,)
        assert isinstance(self._total, Budget)
        delta = self._total.delta
        eps = event.to_pld(self._discretization).epsilon(delta)
        child = object.__new__(Accountant)
        Accountant.__init__(child, Budget(0.0), neighbours=self._neighbours)  # fields
        child._mode = "pld"
        child._total = Budget._unchecked(eps, delta)
        child._discretization = self._discretization
        child._plan = parts
        # The parent checked the whole plan, of which these parts are one step.
        child._plds = [e.to_pld(self._discretization) for e in parts]
        child._slots = [0] * len(parts)
        child._cap_a, child._cap_b = 0, 0
        return child

    def transaction(self, budget: Spendable, label: str) -> "_Transaction":
        """A context manager that charges ``budget`` only if its block completes.

        For mechanism implementers::

            with accountant.transaction(Budget(epsilon), "laplace"):
                values = validate(values)    # may raise: then nothing is charged
                out = draw_noise(values)
            return out

        On entry the budget is checked and reserved (so a concurrent spend cannot take it),
        raising :class:`~privlearn.errors.BudgetExceededError` if it does not fit; the block
        does not run then. When the block exits normally the spend is committed to the ledger;
        when it raises, the reservation is released and the exception propagates. Releasing is
        sound only because nothing computed inside a block that raised leaves it: do not put
        data-dependent values into the exception. The ``as`` target is ``None``.

        Raises
        ------
        InvalidParameterError
            At the call, if ``budget`` is not a spendable of this mode or ``label`` not a str.
        """
        return _Transaction(self, self._charge_of(budget), _label_arg(label))

    # -- charges -------------------------------------------------------------------------------

    def _event_of(self, value: object, name: str) -> PrivacyEvent:
        if isinstance(value, PrivacyEvent):
            event = value
        elif isinstance(value, Budget):
            event = PrivacyEvent.from_budget(value, neighbours=self._neighbours)
        elif isinstance(value, ZcdpBudget):
            event = PrivacyEvent.zcdp(value)
        elif isinstance(value, RdpCurve):
            event = PrivacyEvent.rdp(value)
        else:
            raise InvalidParameterError(
                f"{name}: must be a privlearn.accounting.Budget or PrivacyEvent (or a "
                f"ZcdpBudget or RdpCurve); got {value!r} of type {type(value).__name__}",
                name,
            )
        if event.neighbours != self._neighbours:
            raise InvalidParameterError(
                f"{name}: {event!r} is stated for {event.neighbours!r} neighbours, but this "
                f"accountant accounts for {self._neighbours!r} neighbours (convert it first; "
                "no silent mixing)",
                name,
            )
        return event

    def _charge_of(self, value: object) -> _Charge:
        """The charge of a spend, computed without the lock; raises on anything invalid."""
        if self._mode == "basic" and isinstance(value, Budget):  # the fast, historical path
            return _Charge(
                value,
                PrivacyEvent.from_budget(value, neighbours=self._neighbours),
                value,
                _fixed(value.epsilon),
                _fixed(value.delta),
            )
        event = self._event_of(value, "budget")
        if self._mode == "basic":
            b = event.budget
            return _Charge(value, event, b, _fixed(b.epsilon), _fixed(b.delta))
        declared = event.budget if event.has_budget() else None
        if self._mode == "zcdp":
            return _Charge(value, event, declared, _fixed(event.to_zcdp().rho), 0)
        if self._mode == "rdp":
            assert self._order is not None
            tau = event.to_rdp().at(self._order)
            a = -1 if math.isinf(tau) else _fixed(tau)  # -1: never fits
            return _Charge(value, event, declared, a, 0)
        return _Charge(value, event, declared, 0, 0)

    # -- internals (call with the lock held) ---------------------------------------------------

    def _remaining_locked(self) -> Union[Budget, ZcdpBudget, float, Tuple[PrivacyEvent, ...]]:
        a = max(0, self._cap_a - self._spent_a - self._reserved_a)
        if self._mode == "basic":
            b = max(0, self._cap_b - self._spent_b - self._reserved_b)
            return Budget._unchecked(_float_down(_unfixed(a)), _float_down(_unfixed(b)))
        if self._mode == "zcdp":
            return ZcdpBudget._unchecked(_float_down(_unfixed(a)), self._neighbours)
        if self._mode == "rdp":
            return _float_down(_unfixed(a))
        assert self._plan is not None
        return self._plan[self._next :]

    def _check_locked(self, charge: _Charge, label: str) -> int:
        """Raises unless ``charge`` fits; returns the plan slot it takes (``"pld"``), else -1."""
        if self._mode == "pld":
            return self._check_plan_locked(charge, label)
        a = self._spent_a + self._reserved_a + charge.a
        b = self._spent_b + self._reserved_b + charge.b
        # Relative slack of 2**-40 absorbs the float rounding of decimal inputs (see the class
        # docstring); the ledger keeps the exact sums.
        if charge.a >= 0 and a <= _with_slack(self._cap_a) and b <= _with_slack(self._cap_b):
            return -1
        remaining = self._remaining_locked()
        if self._mode == "basic":
            message = (
                f"spending {charge.budget!r} on {label!r} would exceed the total "
                f"{self._total!r}; remaining: {remaining!r}"
            )
        else:
            message = (
                f"spending {charge.event!r} on {label!r} would exceed the total "
                f"{self._total!r} under composition={self._mode!r}; remaining: {remaining!r}"
            )
        over_a = a - self._cap_a
        over_b = b - self._cap_b
        tiny = (
            charge.a >= 0
            and (over_a <= 0 or over_a * 10**9 <= self._cap_a)
            and (over_b <= 0 or over_b * 10**9 <= self._cap_b)
        )
        if tiny:
            message += " (over by less than a relative 1e-9; split a budget with `budget / k`)"
        raise BudgetExceededError(message, requested=charge.given, remaining=remaining, label=label)

    def _check_plan_locked(self, charge: _Charge, label: str) -> int:
        assert self._plan is not None
        i = self._next
        if i >= len(self._plan):
            raise BudgetExceededError(
                f"spending {charge.event!r} on {label!r} would exceed the total "
                f"{self._total!r} under composition='pld': all {len(self._plan)} planned "
                "events are spent",
                requested=charge.given,
                remaining=(),
                label=label,
            )
        if charge.event != self._plan[i]:
            raise InvalidParameterError(
                f"budget: {charge.event!r} (on {label!r}) is not the next planned event "
                f"(plan[{i}] = {self._plan[i]!r}); a 'pld' accountant accepts only its plan, "
                "in order",
                "budget",
            )
        return i

    def _commit_locked(self, charge: _Charge, label: str, kind: str, slot: int) -> LedgerEntry:
        entry = LedgerEntry(
            label=label, budget=charge.budget, timestamp=time.time(), kind=kind, event=charge.event
        )
        self._spent_a += charge.a
        self._spent_b += charge.b
        if self._mode == "rdp":
            self._curves.append(charge.event.to_rdp())  # cached: computed by _charge_of
        elif self._mode == "pld":
            if self._slots[slot] == 0:  # a direct spend (a transaction reserved it already)
                self._next = slot + 1
            self._slots[slot] = 2
        self._entries.append(entry)
        return entry

    def _reserve_locked(self, charge: _Charge, sign: int, slot: int) -> None:
        self._reserved_a += sign * charge.a
        self._reserved_b += sign * charge.b
        if self._mode == "pld":
            if sign > 0:
                self._slots[slot] = 1
                self._next = slot + 1
            else:
                self._slots[slot] = 0


def _total_with_delta(total: object, mode: str) -> Budget:
    b = _budget_arg(total, "total")
    if b.delta == 0.0:
        raise InvalidParameterError(
            f"total: composition={mode!r} needs a total with delta > 0 ({b!r} is pure DP, and "
            "a pure total admits only zero-privacy-loss spends under zCDP or RDP); use "
            "composition='basic'",
            "total",
        )
    return b


def _max_rho(total: Budget, neighbours: str) -> float:
    """The largest rho (to a relative 1e-12, rounded down, checked) whose CKS conversion at
    total.delta, including the 2**-40 slack, is at most total.epsilon."""
    if total.epsilon == 0.0:
        return 0.0

    def fits(rho: float) -> bool:
        with_slack = _float_up(_unfixed(_with_slack(_fixed(rho))))
        try:
            got = zcdp_to_dp(ZcdpBudget._unchecked(with_slack, neighbours), total.delta)
        except InvalidParameterError:  # too large for the arithmetic
            return False
        return got.epsilon <= total.epsilon

    log_inv = -math.log(total.delta)
    seed = (math.sqrt(log_inv + total.epsilon) - math.sqrt(log_inv)) ** 2  # rho + 2 sqrt(rho L)
    while seed > 0.0 and not fits(seed):
        seed /= 2.0
    if seed == 0.0:
        return 0.0
    return _largest_fitting(seed, fits, BISECT_RTOL)


def _max_rdp_at(total: Budget, order: float) -> float:
    """The largest float tau whose conversion at ``order`` (CKS 2020, Proposition 12, rounded
    up by :func:`privlearn.accounting._convert._eps_at`), with the 2**-40 slack, is at most
    total.epsilon; refuses an order at which the conversion alone exceeds it."""
    with decimal.localcontext(_rcontext()):
        log_inv_delta = -Decimal(total.delta).ln()
    offset = _eps_at(Decimal(0), order, log_inv_delta)  # >= the conversion at tau = 0

    def fits(tau: float) -> bool:
        with_slack = _float_up(_unfixed(_with_slack(_fixed(tau))))
        return _eps_at(Decimal(with_slack), order, log_inv_delta) <= total.epsilon

    room = Fraction(total.epsilon) - Fraction(offset)
    if room <= 0:
        raise InvalidParameterError(
            f"order: at order {order!r} the conversion to delta = {total.delta!r} alone costs "
            f"epsilon {offset!r} > {total.epsilon!r}; choose another order (or none)",
            "order",
        )
    tau = _float_down(room / (1 + Fraction(1, 2**_SLACK_BITS)))
    while tau > 0.0 and not fits(tau):
        tau = _float_down(Fraction(tau) * (1 - Fraction(1, 2**45)))
    return tau


class _Transaction:
    """The context manager returned by :meth:`Accountant.transaction` (single use)."""

    __slots__ = ("_accountant", "_charge", "_label", "_state", "_slot")

    def __init__(self, accountant: Accountant, charge: _Charge, label: str) -> None:
        self._accountant = accountant
        self._charge = charge
        self._label = label
        self._state = "new"
        self._slot = -1

    def __enter__(self) -> None:
        if self._state != "new":
            raise RuntimeError("an accountant transaction can be entered only once")
        acct = self._accountant
        with acct._lock:
            self._slot = acct._check_locked(self._charge, self._label)
            acct._reserve_locked(self._charge, +1, self._slot)
            self._state = "open"

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        acct = self._accountant
        with acct._lock:
            if exc_type is None:
                acct._reserved_a -= self._charge.a
                acct._reserved_b -= self._charge.b
                acct._commit_locked(self._charge, self._label, "spend", self._slot)
                self._state = "committed"
            else:
                acct._reserve_locked(self._charge, -1, self._slot)
                if acct._mode == "pld":
                    if acct._next == self._slot + 1:
                        acct._next = self._slot  # give the slot back
                    else:
                        acct._slots[self._slot] = 3  # a later slot is taken: skip this one
                self._state = "released"
