r"""Privacy-loss distributions (PLDs): the immutable :class:`PldCurve` and the mechanisms' curves.

A *dominating pair* :math:`(P, Q)` of a mechanism has privacy loss :math:`L = \ln(dP/dQ)` under
:math:`P` and hockey-stick curve

.. math::

    \delta(\varepsilon) = E_P\big[(1 - e^{\varepsilon - L})_+\big] + P(L = +\infty),

and the mechanism is :math:`(\varepsilon, \delta(\varepsilon))`-DP for every
:math:`\varepsilon` (Zhu, Dong and Wang, "Optimal Accounting of Differential Privacy via
Characteristic Function", AISTATS 2022, Definition 7; Meiser and Mohammadi, CCS 2018). The
loss of an adaptive composition is the sum of the losses, so composing PLDs is a convolution
(Sommer, Meiser and Mohammadi, PETS 2019; Koskela, Jälkö and Honkela, AISTATS 2020).

**Discretisation (connect-the-dots).** Each constructor evaluates an upper bound of its
mechanism's exact :math:`\delta` at the grid :math:`\varepsilon_i = i h` (``h`` =
``value_discretization``) and the Rust core builds the discrete PLD whose curve is the
piecewise-linear interpolation of these points in :math:`x = e^\varepsilon`: since
:math:`\delta` is convex in :math:`x`, the chords lie above it, so the discrete PLD dominates
the mechanism (Doroshenko, Ghazi, Kamath, Kumar and Manurangsi, "Connect the Dots: Tighter
Discrete Approximations of Privacy Loss Distributions", PETS 2022, Section 3). Mass below the
grid lands on its lowest point, mass above it on :math:`+\infty`: both on the safe side.

**Float error.** The formulas here use numpy and ``scipy.special`` (``ndtr``, ``log_ndtr``,
``expm1``, ``log1p``), each accurate to a few units in the last place. Every grid value is
computed at the float just *below* :math:`i h` (:math:`\delta` is non-increasing) and raised by
:data:`_REL` times the sum of the absolute values of the terms whose difference it is (a
margin of ~ 1e-12 relative to the terms, against a float error of ~ 1e-13 even after
exponentiating a logarithm as large as 700; the thresholds of the formulas are optimal
likelihood-ratio tests, so an error in a threshold lowers the computed value only to second
order, which this margin covers), then clipped to ``[0, 1]``. The Rust core tracks the float
error of the construction, of every FFT convolution (Higham's bound with a generous constant)
and of the read-outs in an explicit absolute bound ``err`` that is added to every reported
delta (see ``rust/core/src/accounting/pld.rs``). After each composition at most
:data:`_TAIL` of mass is truncated per tail, on the safe side (lower tail moved up, upper tail
to :math:`+\infty`).

**Neighbouring notion.** A :class:`PldCurve` states the relation its guarantee is for
(``"replace-one"`` or ``"add/remove-one"``); composing curves of different relations is refused.
Symmetric pairs (Gaussian, Laplace, randomized response, pure and approximate DP) need one PLD;
the Poisson-subsampled mechanisms (add/remove-one) keep two, the *remove* pair
:math:`((1-q)\mu_0 + q\mu_1, \mu_0)` and the *add* pair :math:`(\mu_0, (1-q)\mu_0 + q\mu_1)`,
composed separately; the reported delta is the larger of the two.

**Adaptivity.** PLD composition is valid for a *fixed* sequence of mechanisms (each PLD fixed in
advance, the mechanisms' inputs possibly adaptive); choosing later mechanisms' parameters from
earlier outputs needs a privacy filter, which this module does not provide.
"""

from __future__ import annotations

import math
import threading
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from functools import lru_cache
from typing import Callable, Dict, Iterable, List, Tuple

import numpy as np
from scipy import special

from .. import _core
from .._validate import (
    check_delta,
    check_epsilon,
    check_integer,
    check_probability,
    check_real,
)
from ..errors import InvalidParameterError
from ._budget import Budget
from ._neighbours import ADD_REMOVE_ONE, REPLACE_ONE, _neighbours_arg, _same_neighbours
from ._numerics import _float_up

__all__ = [
    "PldCurve",
    "compose_pld",
    "pld_approx",
    "pld_discrete_gaussian",
    "pld_discrete_laplace",
    "pld_gaussian",
    "pld_laplace",
    "pld_pure",
    "pld_randomized_response",
    "pld_subsampled_gaussian",
    "pld_subsampled_laplace",
]

#: Mass truncated per tail after each composition (moved to the safe side).
_TAIL = 1e-15
#: Relative margin added to each grid value of a closed-form curve, relative to its terms.
_REL = 1e-12
#: Unit roundoff of float64.
_U = 2.0**-53
#: Standard-normal quantile of the truncated tails of Gaussian losses (Phi(-9.5) ~ 1e-21).
_Z = 9.5
#: Largest number of grid points of one constructor.
_MAX_POINTS = 50_000_000
#: Largest absolute loss handled (e**700 is finite).
_MAX_LOSS = 700.0


# --------------------------------------------------------------------------------------------
# The curve
# --------------------------------------------------------------------------------------------

_POOL: "ThreadPoolExecutor | None" = None


def _each(fn: Callable[[int], object], count: int) -> List[object]:
    """``[fn(0), ..., fn(count - 1)]``; two directions run on two threads (the Rust core
    releases the GIL). Called from one of these threads (nested), it runs in the caller's
    thread, so the two-thread pool never waits on itself."""
    global _POOL
    if count == 1 or threading.current_thread().name.startswith("privlearn-pld"):
        return [fn(i) for i in range(count)]
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="privlearn-pld")
    return list(_POOL.map(fn, range(count)))


def _from_parts(dirs: Tuple[object, ...], h: float, neighbours: str) -> "PldCurve":
    self = object.__new__(PldCurve)
    object.__setattr__(self, "_dirs", tuple(dirs))
    object.__setattr__(self, "_h", h)
    object.__setattr__(self, "_neighbours", neighbours)
    return self


def _curve_arg(value: object, name: str) -> "PldCurve":
    if not isinstance(value, PldCurve):
        raise InvalidParameterError(
            f"{name}: must be a PldCurve; got {value!r} of type {type(value).__name__}", name
        )
    return value


class PldCurve:
    r"""A privacy guarantee as discretised privacy-loss distribution(s), safe side included.

    Holds one PLD (a symmetric dominating pair) or two (the *remove* and *add* pairs of an
    add/remove-one mechanism that is not symmetric), all on the grid ``i * h`` with ``h`` =
    :attr:`value_discretization`, for the relation :attr:`neighbours`. Build it with the
    ``pld_*`` constructors of this module; see the module docstring for the method (Doroshenko
    et al., PETS 2022, connect-the-dots) and the error control. Immutable.

    **Composition.** ``a + b`` is the composition of the two mechanisms (a convolution of their
    PLDs, by FFT in the Rust core); ``k * a`` (or ``a * k``, ``k >= 1``) composes ``a`` with
    itself ``k`` times by repeated squaring; :func:`compose_pld` composes many. Both operands
    must have the same :attr:`value_discretization` and :attr:`neighbours`, else
    :class:`~privlearn.errors.InvalidParameterError`. A one-PLD (symmetric) operand serves as
    both directions when composed with a two-PLD one. Composition is valid for a sequence of
    mechanisms fixed in advance (see the module docstring on adaptivity).

    **Read-outs.** :meth:`delta` and :meth:`epsilon` are upper bounds: the discretisation is
    pessimistic and the error bound ``err`` of the float computations is added to every delta.
    """

    __slots__ = ("_dirs", "_h", "_neighbours")

    _dirs: Tuple[_core.PldCore, ...]
    _h: float
    _neighbours: str

    def __init__(self) -> None:
        raise TypeError("PldCurve is built by the pld_* constructors of privlearn.accounting")

    @property
    def value_discretization(self) -> float:
        """The grid step ``h`` of the privacy losses."""
        return self._h

    @property
    def neighbours(self) -> str:
        """The neighbouring relation: ``"replace-one"`` or ``"add/remove-one"``."""
        return self._neighbours

    @property
    def error_bound(self) -> float:
        """The largest absolute error bound ``err`` of the PLDs (already inside every delta)."""
        return max(d.err for d in self._dirs)

    @property
    def directions(self) -> int:
        """Number of PLDs held: 1 (symmetric pair) or 2 (remove and add pairs)."""
        return len(self._dirs)

    def delta(self, epsilon: float) -> float:
        r"""An upper bound of :math:`\delta(\varepsilon)`, the error bound included.

        Parameters
        ----------
        epsilon : float
            Finite (may be negative).

        Returns
        -------
        float
            The largest over the directions of the connect-the-dots curve at ``epsilon`` plus
            the +inf mass, the error bound and a bound on the float error of the sum, in [0, 1].

        Raises
        ------
        InvalidParameterError
            If ``epsilon`` is not a finite number.
        """
        e = check_real(epsilon, "epsilon")
        return max(d.delta(e) for d in self._dirs)

    def epsilon(self, delta: float) -> float:
        r"""The smallest :math:`\varepsilon \ge 0` with :meth:`delta` :math:`\le` ``delta``.

        Solved exactly on the piecewise-linear (in :math:`e^\varepsilon`) curve, checked with
        :meth:`delta` and rounded up; ``inf`` when no finite epsilon reaches ``delta`` (the mass
        at :math:`+\infty` plus the error bound exceed it).

        Parameters
        ----------
        delta : float
            In (0, 1).

        Returns
        -------
        float
            The largest over the directions; >= 0 or ``inf``.

        Raises
        ------
        InvalidParameterError
            If ``delta`` is not in (0, 1).
        """
        d = check_delta(delta, zero_ok=False)
        dirs = self._dirs
        return max(float(e) for e in _each(lambda i: dirs[i].epsilon(d), len(dirs)))  # type: ignore[arg-type]

    def to_dp(self, delta: float) -> Budget:
        r"""The :math:`(\varepsilon, \delta)` guarantee at ``delta``: ``Budget(epsilon(delta),
        delta)``.

        Raises
        ------
        InvalidParameterError
            If ``delta`` is not in (0, 1), or no finite epsilon reaches it.
        """
        d = check_delta(delta, zero_ok=False)
        eps = self.epsilon(d)
        if not math.isfinite(eps):
            raise InvalidParameterError(
                f"delta: the guarantee gives no finite epsilon at delta = {d!r} (the mass at "
                "infinite privacy loss plus the error bound exceed it)",
                "delta",
            )
        return Budget._unchecked(eps, d)

    def _check_compatible(self, other: "PldCurve", name: str) -> None:
        _same_neighbours(self._neighbours, other._neighbours, name)
        if self._h != other._h:
            raise InvalidParameterError(
                f"{name}: cannot compose PLD curves of different value_discretization "
                f"({self._h!r} and {other._h!r}); build them with the same one",
                name,
            )

    def __add__(self, other: object) -> "PldCurve":
        if not isinstance(other, PldCurve):
            return NotImplemented
        return compose_pld([self, other])

    def __mul__(self, k: object) -> "PldCurve":
        if isinstance(k, bool) or not hasattr(type(k), "__index__"):
            return NotImplemented
        kk = check_integer(k, "k", 1)
        if kk == 1:
            return self
        dirs = self._dirs
        return _from_parts(
            tuple(_each(lambda i: dirs[i].self_compose(kk, _TAIL), len(dirs))),
            self._h,
            self._neighbours,
        )

    __rmul__ = __mul__

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("PldCurve is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("PldCurve is immutable")

    def __reduce__(self) -> Tuple[object, Tuple[Tuple[object, ...], float, str]]:
        return (_from_parts, (self._dirs, self._h, self._neighbours))

    def __repr__(self) -> str:
        return (
            f"PldCurve(directions={len(self._dirs)}, value_discretization={self._h!r}, "
            f"neighbours={self._neighbours!r}, atoms={max(len(d) for d in self._dirs)}, "
            f"error_bound={self.error_bound:.3g})"
        )


def compose_pld(curves: Iterable[PldCurve]) -> PldCurve:
    r"""The composition of PLD curves (a fixed sequence of mechanisms).

    The privacy loss of the composition is the sum of the losses, so its PLD is the convolution
    of the PLDs (Sommer, Meiser and Mohammadi, PETS 2019, Theorem 1; Koskela et al., AISTATS
    2020). Repeated curves (the same object) are grouped and self-composed (one FFT power, or
    repeated squaring), the self-compositions running on two threads; then all parts are
    convolved by FFT in rounds, smallest support first, each product truncated on the safe side.
    For two-PLD curves the remove and add directions are composed separately (a symmetric curve
    serves as both).

    Parameters
    ----------
    curves : iterable of PldCurve
        At least one; all with the same ``value_discretization`` and ``neighbours``.

    Returns
    -------
    PldCurve

    Raises
    ------
    InvalidParameterError
        On an empty iterable, a non-curve, or mixed discretisations or neighbouring notions.
    """
    items: List[PldCurve] = []
    for i, c in enumerate(curves):
        items.append(_curve_arg(c, f"curves[{i}]"))
    if not items:
        raise InvalidParameterError("curves: must hold at least one PldCurve", "curves")
    first = items[0]
    for c in items[1:]:
        first._check_compatible(c, "curves")
    if len(items) == 1:
        return first
    return _compose_counted([(c, 1) for c in items])


def _compose_counted(terms: List[Tuple[PldCurve, int]]) -> PldCurve:
    """The composition of ``count`` copies of each ``curve`` of ``terms`` (a non-empty list of
    compatible curves, already checked, counts >= 1). Equal curves (the same object) are grouped
    with the sum of their counts; each direction is then composed by :func:`_compose_cores`
    (the two directions of two-PLD curves on two threads)."""
    counts: Dict[int, int] = {}
    unique: Dict[int, PldCurve] = {}
    for c, k in terms:
        counts[id(c)] = counts.get(id(c), 0) + k
        unique[id(c)] = c
    first = terms[0][0]
    if len(unique) == 1 and counts[id(first)] == 1:
        return first
    ndirs = max(c.directions for c in unique.values())

    def one(direction: int) -> object:
        parts = [
            (c._dirs[min(direction, len(c._dirs) - 1)], counts[key]) for key, c in unique.items()
        ]
        return _compose_cores(parts, parallel=ndirs == 1)

    out = _each(one, ndirs)
    return _from_parts(tuple(out), first._h, first._neighbours)


def _compose_cores(parts: List[Tuple[_core.PldCore, int]], parallel: bool) -> _core.PldCore:
    r"""The composition of ``k`` copies of each PLD of ``parts`` (distinct PLDs, counts >= 1).

    Composition is commutative and associative, so with :math:`m` the smallest count above 1,
    :math:`\bigotimes_i X_i^{\otimes k_i} = (\bigotimes_{k_i > 1} X_i)^{\otimes m} \otimes
    \bigotimes_{k_i > m} X_i^{\otimes (k_i - m)} \otimes \bigotimes_{k_i = 1} X_i`: the
    repeated parts are composed once with each other (small supports) and the product is
    self-composed ``m`` times by one FFT power, instead of ``m``-fold powers of each part that
    are then convolved at full width. The remaining multiple parts are self-composed (on two
    threads when ``parallel``), and everything is composed by :meth:`PldCore.compose_all`
    (rounds of pairwise FFT convolutions, smallest support first). Every step is the Rust
    core's pessimistic composition with its error bound; only the order of the exact
    operations changes."""
    singles = [core for core, k in parts if k == 1]
    multi = [(core, k) for core, k in parts if k > 1]
    if len(multi) >= 2:
        m = min(k for _, k in multi)
        base = _core.PldCore.compose_all([core for core, _ in multi], _TAIL)
        singles.append(base.self_compose(m, _TAIL))
        multi = [(core, k - m) for core, k in multi if k > m]
        singles.extend(core for core, k in multi if k == 1)
        multi = [(core, k) for core, k in multi if k > 1]
    if multi:
        if parallel:
            powered = _each(lambda n: multi[n][0].self_compose(multi[n][1], _TAIL), len(multi))
        else:
            powered = [core.self_compose(k, _TAIL) for core, k in multi]
        singles.extend(powered)  # type: ignore[arg-type]
    return singles[0] if len(singles) == 1 else _core.PldCore.compose_all(singles, _TAIL)


# --------------------------------------------------------------------------------------------
# Grid evaluation helpers
# --------------------------------------------------------------------------------------------


def _h_arg(value: object) -> float:
    return check_real(value, "value_discretization", 0.0, 1.0, lo_open=True)


def _grid(lo_loss: float, hi_loss: float, h: float) -> Tuple[int, int]:
    """Grid indices ``lo..=hi`` covering [lo_loss, hi_loss]."""
    if not (abs(lo_loss) <= _MAX_LOSS and abs(hi_loss) <= _MAX_LOSS):
        raise InvalidParameterError(
            f"value_discretization: the privacy losses of these parameters reach "
            f"{max(abs(lo_loss), abs(hi_loss)):.3g}, beyond the supported {_MAX_LOSS:g}",
            "value_discretization",
        )
    lo = math.floor(lo_loss / h)
    hi = max(math.ceil(hi_loss / h), lo)
    if hi - lo + 1 > _MAX_POINTS:
        raise InvalidParameterError(
            f"value_discretization: {h!r} would need {hi - lo + 1} grid points for these "
            f"parameters (at most {_MAX_POINTS}); use a coarser discretisation",
            "value_discretization",
        )
    return lo, hi


_DeltaFn = Callable[[np.ndarray], np.ndarray]


def _core_from(lo_loss: float, hi_loss: float, h: float, f_pq: _DeltaFn, f_qp: _DeltaFn) -> object:
    r"""The Rust PLD of the pair ``(P, Q)`` on the grid covering ``[lo_loss, hi_loss]``.

    ``f_pq`` and ``f_qp`` return upper bounds of the curves of ``(P, Q)`` and of the swapped
    pair ``(Q, P)`` at any points. The core takes the *excess* ``delta(eps) - (1 - e^eps)_+``:
    at ``eps_i = i h > 0`` that is ``f_pq`` at the float just below ``i h`` (the curve is
    non-increasing); at ``eps_i <= 0`` it is ``e^eps f_qp(-eps)`` (``delta_{P,Q}(eps) = 1 -
    e^eps + e^eps delta_{Q,P}(-eps)``, an increasing function of ``eps``), evaluated at the float
    just above ``i h`` and rounded up; this form has no cancellation where ``delta`` is close
    to ``1 - e^eps``."""
    lo, hi = _grid(lo_loss, hi_loss, h)
    idx = np.arange(lo, hi + 1, dtype=np.float64)
    e = idx * h
    neg = idx <= 0
    out = np.empty_like(e)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        ep = np.nextafter(e[~neg], -np.inf)
        out[~neg] = f_pq(ep)
        en = np.nextafter(e[neg], np.inf)
        out[neg] = np.exp(en) * f_qp(-en) * (1.0 + 8.0 * _U)
    out = np.clip(np.nan_to_num(out, nan=1.0), 0.0, 1.0)
    return _core.PldCore.from_excess(h, lo, np.ascontiguousarray(out))


def _halves(f: _DeltaFn, x: np.ndarray) -> np.ndarray:
    """``f(x)`` for an elementwise ``f``, the two halves of ``x`` on two threads (numpy and
    ``scipy.special`` release the GIL) when ``x`` is long."""
    if len(x) < 20_000:
        return f(x)
    mid = len(x) // 2
    parts = (x[:mid], x[mid:])
    return np.concatenate(_each(lambda i: f(parts[i]), 2))  # type: ignore[arg-type]


def _core_pair(
    pq: Tuple[float, float],
    qp: "Tuple[float, float] | None",
    h: float,
    f_pq: _DeltaFn,
    f_qp: _DeltaFn,
) -> Tuple[object, ...]:
    r"""``(_core_from(*pq, h, f_pq, f_qp), _core_from(*qp, h, f_qp, f_pq))``: the Rust PLDs of a
    pair ``(P, Q)`` and of the swapped pair ``(Q, P)`` on the grids covering the loss ranges
    ``pq`` and ``qp``, with the same values, each curve evaluated once per grid magnitude
    (``qp=None``: the first only; ``f_pq is f_qp``, a symmetric pair: one evaluation serves
    both).

    The excess of ``(P, Q)`` at :math:`-ih < 0` is :math:`e^{\varepsilon} f_{QP}(-\varepsilon)`
    at the float :math:`\varepsilon` just above :math:`-ih`, and :math:`-\varepsilon` is the
    float just below :math:`ih` (float products and ``nextafter`` are symmetric in the sign),
    the very point where the excess of ``(Q, P)`` at :math:`ih` evaluates :math:`f_{QP}`; so
    :math:`f_{QP}` is evaluated once at the floats just below :math:`ih`, :math:`i = 1..n`,
    and serves both grids (and :math:`f_{PQ}` likewise). The long evaluations run on two
    threads, the two cores too."""
    a_lo, a_hi = _grid(pq[0], pq[1], h)
    b_lo, b_hi = (0, 0) if qp is None else _grid(qp[0], qp[1], h)
    n_pq, n_qp = max(a_hi, -b_lo, 0), max(b_hi, -a_lo, 0)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        # Curve values at the floats just below i h (i = 1..n) and at -(smallest float).
        below = np.nextafter(np.arange(1, max(n_pq, n_qp) + 1) * h, -np.inf)
        if f_pq is f_qp:
            v_pq = v_qp = _halves(f_pq, below)
        else:
            v_pq = _halves(f_pq, below[:n_pq])
            v_qp = _halves(f_qp, below[:n_qp])
        tiny = np.array([5e-324])
        zero_pq = float((np.exp(tiny) * f_qp(-tiny) * (1.0 + 8.0 * _U))[0])
        zero_qp = float((np.exp(tiny) * f_pq(-tiny) * (1.0 + 8.0 * _U))[0])

        def excess(lo: int, hi: int, pos: np.ndarray, neg: np.ndarray, zero: float) -> np.ndarray:
            out = np.empty(hi - lo + 1)
            if hi > 0:  # indices max(lo, 1)..hi
                out[max(lo, 1) - lo :] = pos[max(lo, 1) - 1 : hi]
            if lo < 0:  # indices lo..min(hi, -1), i.e. magnitudes -lo down to max(-hi, 1)
                m = np.arange(-lo, max(-hi, 1) - 1, -1)
                out[: len(m)] = np.exp(-below[m - 1]) * neg[m - 1] * (1.0 + 8.0 * _U)
            if lo <= 0 <= hi:
                out[-lo] = zero
            return np.clip(np.nan_to_num(out, nan=1.0), 0.0, 1.0)

        grids = [(a_lo, excess(a_lo, a_hi, v_pq, v_qp, zero_pq))]
        if qp is not None:
            grids.append((b_lo, excess(b_lo, b_hi, v_qp, v_pq, zero_qp)))
    return tuple(
        _each(lambda i: _core.PldCore.from_excess(h, grids[i][0], grids[i][1]), len(grids))
    )


def _symmetric(lo_loss: float, hi_loss: float, h: float, f: _DeltaFn, neighbours: str) -> PldCurve:
    # As _core_from(lo_loss, hi_loss, h, f, f), each |grid index| evaluated once.
    return _from_parts(_core_pair((lo_loss, hi_loss), None, h, f, f), h, neighbours)


def _up(t1: np.ndarray, t2: np.ndarray, rel: float = _REL) -> np.ndarray:
    """Upper bounds of ``t1 - t2`` from computed terms: the margin ``rel * (|t1| + |t2|)``."""
    return np.clip(t1 - t2 + rel * (np.abs(t1) + np.abs(t2)), 0.0, 1.0)


def _atoms_deltas(losses: np.ndarray, pmass: np.ndarray, inf: float, eps: np.ndarray) -> np.ndarray:
    r"""Upper bounds of :math:`\sum_{l_a > \varepsilon} p_a (1 - e^{\varepsilon - l_a}) +
    p_\infty` at the points ``eps`` for a finite list of atoms (any order).

    Suffix sums of :math:`p_a` and :math:`p_a e^{-l_a}` over the atoms sorted by loss give the
    two terms; each sum of ``n`` non-negative floats has relative error below ``n u``, and the
    margin is ``(4 n u + _REL)`` times the sum of the terms."""
    order = np.argsort(losses, kind="stable")
    ls = losses[order]
    ps = pmass[order]
    ptail = np.concatenate([np.cumsum(ps[::-1])[::-1], [0.0]])
    qtail = np.concatenate([np.cumsum((ps * np.exp(-ls))[::-1])[::-1], [0.0]])
    pos = np.searchsorted(ls, eps, side="right")  # first atom with loss > eps
    t1 = ptail[pos]
    t2 = np.exp(eps) * qtail[pos]
    rel = 4.0 * (len(ls) + 4) * _U + _REL
    return np.clip(_up(t1, t2, rel) + inf * (1.0 + 4.0 * _U), 0.0, 1.0)


# --------------------------------------------------------------------------------------------
# Constructors
# --------------------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _gaussian(mu: float, h: float, neighbours: str) -> PldCurve:
    def f(eps: np.ndarray) -> np.ndarray:
        t1 = special.ndtr(-eps / mu + mu / 2.0)
        t2 = np.exp(eps + special.log_ndtr(-eps / mu - mu / 2.0))
        return _up(t1, t2)

    centre = mu * mu / 2.0
    return _symmetric(centre - _Z * mu, centre + _Z * mu, h, f, neighbours)


def pld_gaussian(
    sigma: float,
    *,
    sensitivity: float = 1.0,
    neighbours: str = REPLACE_ONE,
    value_discretization: float = 1e-4,
) -> PldCurve:
    r"""The Gaussian mechanism's PLD: noise :math:`N(0, \sigma^2 I)` on a query of L2
    sensitivity :math:`\Delta`.

    The dominating pair is :math:`(N(0, \sigma^2), N(\Delta, \sigma^2))`, whose loss is
    :math:`N(\mu^2/2, \mu^2)` with :math:`\mu = \Delta/\sigma`, and

    .. math::

        \delta(\varepsilon) = \Phi\Big(-\frac{\varepsilon}{\mu} + \frac{\mu}{2}\Big)
        - e^\varepsilon \Phi\Big(-\frac{\varepsilon}{\mu} - \frac{\mu}{2}\Big)

    (Balle and Wang, "Improving the Gaussian Mechanism for Differential Privacy", ICML 2018,
    Theorem 8; Dong, Roth and Su, "Gaussian Differential Privacy", 2019, Corollary 2.13). The
    pair is symmetric: one PLD serves both orders.

    Parameters
    ----------
    sigma : float
        Standard deviation of the noise, > 0.
    sensitivity : float, default 1.0
        L2 sensitivity under the stated relation, > 0.
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"
        The relation for which ``sensitivity`` holds (recorded in the curve).
    value_discretization : float, default 1e-4
        Grid step ``h`` of the privacy losses, in (0, 1].

    Returns
    -------
    PldCurve
        Grid :math:`\mu^2/2 \pm 9.5\mu` (tails of mass ~1e-21 go to the safe side), values from
        ``scipy.special.ndtr``/``log_ndtr`` raised by the margin of the module docstring, then
        connect-the-dots (pessimistic).

    Raises
    ------
    InvalidParameterError
        On a non-positive or non-finite argument, an unknown relation, or a grid too large.
    """
    s = check_real(sigma, "sigma", 0.0, lo_open=True)
    d = check_real(sensitivity, "sensitivity", 0.0, lo_open=True)
    nb = _neighbours_arg(neighbours)
    h = _h_arg(value_discretization)
    mu = _float_up(Fraction(d) / Fraction(s))  # rounded up: the safe side
    if not (math.isfinite(mu) and mu > 0.0):
        raise InvalidParameterError(
            f"sigma: sensitivity / sigma must be a positive finite number; got {d!r} / {s!r}",
            "sigma",
        )
    return _gaussian(mu, h, nb)


@lru_cache(maxsize=256)
def _laplace(e0: float, h: float, neighbours: str) -> PldCurve:
    # The curve below evaluated on the grid with the margins of _core_from, in Rust
    # (rust/core/src/accounting/pld_build.rs).
    return _from_parts((_core.PldCore.laplace(h, e0),), h, neighbours)


def _div_up(num: float, den: float) -> float:
    """The smallest float >= ``num / den`` (exact), for positive finite floats: the correctly
    rounded quotient, moved up one float when it lies below the exact ratio (an exact integer
    comparison of the three floats' integer ratios; ``Fraction`` outside the normal range)."""
    q = num / den
    if not (2.0**-1000 < q < 2.0**1000):
        return _float_up(Fraction(num) / Fraction(den))
    qn, qd = q.as_integer_ratio()
    nn, nd = num.as_integer_ratio()
    dn, dd = den.as_integer_ratio()
    # q < (nn / nd) / (dn / dd)  <=>  qn nd dn < nn dd qd (positive denominators)
    if qn * nd * dn < nn * dd * qd:
        q = math.nextafter(q, math.inf)
    return q


def _laplace_e0(scale: object, sensitivity: object) -> float:
    """``sensitivity / scale`` rounded up (the safe side), checked."""
    b = check_real(scale, "scale", 0.0, lo_open=True)
    d = check_real(sensitivity, "sensitivity", 0.0, lo_open=True)
    e0 = _div_up(d, b)
    if not (math.isfinite(e0) and e0 > 0.0):
        raise InvalidParameterError(
            f"scale: sensitivity / scale must be a positive finite number; got {d!r} / {b!r}",
            "scale",
        )
    return e0


def _laplace_many(e0s: List[float], h: float, neighbours: str) -> List[PldCurve]:
    """:func:`pld_laplace`'s curves for each ``e0`` of ``e0s`` (from :func:`_laplace_e0`), built
    in one call to the Rust core on all cores (not cached)."""
    cores = _core.PldCore.laplace_many(h, e0s)
    return [_from_parts((c,), h, neighbours) for c in cores]


def pld_laplace(
    scale: float,
    *,
    sensitivity: float = 1.0,
    neighbours: str = REPLACE_ONE,
    value_discretization: float = 1e-4,
) -> PldCurve:
    r"""The (scalar) Laplace mechanism's PLD: noise :math:`\mathrm{Lap}(b)` on a real-valued query
    of sensitivity :math:`\Delta`.

    The dominating pair is :math:`(\mathrm{Lap}(0, b), \mathrm{Lap}(\Delta, b))`; with
    :math:`\varepsilon_0 = \Delta / b` its loss lies in :math:`[-\varepsilon_0,
    \varepsilon_0]` and

    .. math::

        \delta(\varepsilon) = 1 - e^{(\varepsilon - \varepsilon_0)/2}
        \quad (|\varepsilon| \le \varepsilon_0), \qquad
        1 - e^\varepsilon \ (\varepsilon < -\varepsilon_0), \qquad
        0 \ (\varepsilon \ge \varepsilon_0)

    (direct integration of the two densities; the PLD of Koskela et al., AISTATS 2020,
    Section 5, and of dp_accounting's ``from_laplace_mechanism``). Symmetric: one PLD.

    Parameters
    ----------
    scale : float
        The Laplace scale :math:`b`, > 0.
    sensitivity : float, default 1.0
        Sensitivity of the scalar query under the stated relation, > 0.
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"
    value_discretization : float, default 1e-4

    Returns
    -------
    PldCurve
        Exact closed form (``expm1``) raised by the margin, connect-the-dots (grid evaluated in
        the Rust core, ``rust/core/src/accounting/pld_build.rs``).

    Raises
    ------
    InvalidParameterError
        On a non-positive or non-finite argument, an unknown relation, or a grid too large.
    """
    e0 = _laplace_e0(scale, sensitivity)
    nb = _neighbours_arg(neighbours)
    h = _h_arg(value_discretization)
    return _laplace(e0, h, nb)


def _shift_max(
    losses_of: Callable[[int], Tuple[np.ndarray, np.ndarray, float]],
    shifts: int,
    h: float,
    neighbours: str,
) -> PldCurve:
    """The connect-the-dots curve of the pointwise max over the pairs of shifts ``1..shifts``."""
    pairs = [losses_of(d) for d in range(1, shifts + 1)]
    lmin = min(float(p[0].min()) for p in pairs)
    lmax = max(float(p[0].max()) for p in pairs)

    def f(eps: np.ndarray) -> np.ndarray:
        out = np.zeros_like(eps)
        for losses, pmass, inf in pairs:
            out = np.maximum(out, _atoms_deltas(losses, pmass, inf, eps))
        return out

    return _symmetric(lmin, lmax, h, f, neighbours)


#: Largest number of shifts whose atoms are enumerated.
_MAX_SHIFTS = 1000


@lru_cache(maxsize=256)
def _discrete_laplace(scale: float, shifts: int, h: float, neighbours: str) -> PldCurve:
    a = math.exp(-1.0 / scale)

    def pair(d: int) -> Tuple[np.ndarray, np.ndarray, float]:
        # P = DLap(0), Q = DLap(d); loss (|z - d| - |z|) / scale: d/scale for z <= 0,
        # (d - 2z)/scale for 0 < z < d, -d/scale for z >= d.
        z = np.arange(1, d, dtype=np.float64)
        mid = (1.0 - a) / (1.0 + a) * np.exp(-z / scale)
        losses = np.concatenate([[d / scale], (d - 2.0 * z) / scale, [-d / scale]])
        pm = np.concatenate([[1.0 / (1.0 + a)], mid, [math.exp(-d / scale) / (1.0 + a)]])
        return losses, pm, 0.0

    return _shift_max(pair, shifts, h, neighbours)


def pld_discrete_laplace(
    scale: float,
    *,
    sensitivity: int = 1,
    neighbours: str = REPLACE_ONE,
    value_discretization: float = 1e-4,
) -> PldCurve:
    r"""The discrete Laplace (geometric) mechanism's PLD, parameterised as
    :func:`privlearn.mechanisms.discrete_laplace`: noise :math:`P(Z = z) \propto e^{-|z| /
    \mathrm{scale}}` on an integer-valued scalar query of sensitivity :math:`\Delta` (an integer).

    For each shift :math:`d = 1, \dots, \Delta` the pair :math:`(Z, Z + d)` has the finitely many
    losses :math:`(|z - d| - |z|)/\mathrm{scale}` (Ghosh, Roughgarden and Sundararajan, STOC
    2009, the geometric mechanism); its curve is summed exactly over the atoms, and the curve
    used is the pointwise maximum over the shifts (an upper bound for every pair of neighbouring
    values). Each pair is symmetric: one PLD.

    Parameters
    ----------
    scale : float
        > 0 (``epsilon``-DP at ``scale = sensitivity / epsilon``).
    sensitivity : int, default 1
        Integer sensitivity, 1 to 1000.
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"
    value_discretization : float, default 1e-4

    Returns
    -------
    PldCurve
        Atom sums with a margin of ``4 n u`` plus 1e-12 relative to the terms, then
        connect-the-dots.

    Raises
    ------
    InvalidParameterError
        On a bad argument or a grid too large.
    """
    b = check_real(scale, "scale", 0.0, lo_open=True)
    d = check_integer(sensitivity, "sensitivity", 1)
    if d > _MAX_SHIFTS:
        raise InvalidParameterError(
            f"sensitivity: must be at most {_MAX_SHIFTS}; got {d}", "sensitivity"
        )
    nb = _neighbours_arg(neighbours)
    h = _h_arg(value_discretization)
    if not d / b <= _MAX_LOSS:
        raise InvalidParameterError(
            f"scale: sensitivity / scale must be at most {_MAX_LOSS:g}; got {d / b!r}", "scale"
        )
    return _discrete_laplace(b, d, h, nb)


@lru_cache(maxsize=256)
def _discrete_gaussian(sigma: float, shifts: int, h: float, neighbours: str) -> PldCurve:
    s2 = sigma * sigma
    zmax = math.ceil(12.0 * sigma) + 2 + shifts
    zs = np.arange(-zmax, zmax + 1, dtype=np.float64)
    logw = -zs * zs / (2.0 * s2)
    lognorm = float(special.logsumexp(logw))
    # Mass beyond |z| > zmax (each side), bounded by a geometric series, relative to the norm.
    tail = math.exp(-zmax * zmax / (2.0 * s2) - lognorm) / -math.expm1(-zmax / s2)

    def pair(d: int) -> Tuple[np.ndarray, np.ndarray, float]:
        # P = N_Z(0, sigma), Q = N_Z(d, sigma): loss (d^2 - 2 z d) / (2 sigma^2), decreasing in z.
        keep = np.abs(zs) <= zmax - shifts
        z = zs[keep]
        pm = np.exp(logw[keep] - lognorm)
        losses = (d * d - 2.0 * z * d) / (2.0 * s2)
        beyond = float(np.exp(logw[~keep] - lognorm).sum()) if (~keep).any() else 0.0
        # Safe side: the cut mass of the highest losses (z < -zmax') goes to +inf, of the
        # lowest losses (z > zmax') onto the lowest kept atom; plus the mass beyond zmax.
        hi_cut = beyond / 2.0 + tail
        pm = pm.copy()
        pm[-1] += beyond / 2.0 + tail
        return losses, pm, hi_cut

    return _shift_max(pair, shifts, h, neighbours)


#: Euler-Maclaurin remainder constant of order 3, 2 zeta(3) / (2 pi)^3 = 0.0096920449..., rounded up.
_EM3 = 0.0096920450
_SQRT3 = math.sqrt(3.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
#: Largest integer sensitivity of the discrete Gaussian (held exactly in a double).
_MAX_DG_SENSITIVITY = 2**53
#: Sigma from which the Euler-Maclaurin bound replaces the enumeration of atoms.
_DG_ENUMERATE_BELOW = 1000.0


def _dg_tail_parts(
    y: np.ndarray, s: float, shift: np.ndarray
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""For integers ``y``: :math:`e^{\mathrm{shift}} \sum_{k \ge y} e^{-k^2/(2s^2)} /
    (\sqrt{2\pi} s) = q + c + r` with :math:`|r| \le` ``rem``; returns ``(q, c, rem)``.

    Euler-Maclaurin of order 3 on :math:`[y, \infty)` (the terms at infinity vanish):
    :math:`\sum_{k \ge y} g(k) = \int_y^\infty g + g(y)/2 - g'(y)/12 + R` with
    :math:`|R| \le 2\zeta(3)/(2\pi)^3 \int_y^\infty |g'''|`; the last integral is the total
    variation of :math:`g'' = (u^2 - 1) e^{-u^2/2} / s^2` (:math:`u = t/s`), which is monotone
    between the zeros :math:`-\sqrt3, 0, \sqrt3` of :math:`g'''` and is summed exactly
    piecewise. Normalised by :math:`\sqrt{2\pi} s`: :math:`q = \Phi(-u)`,
    :math:`c = \varphi(u)/(2s) + u\varphi(u)/(12 s^2)`, ``rem`` :math:`= 0.00969 \,
    TV/s^3` with the total variation of :math:`(u^2 - 1)\varphi(u)`."""
    u = y / s

    def h(v: np.ndarray) -> np.ndarray:
        return (v * v - 1.0) * np.exp(shift - v * v / 2.0) * _INV_SQRT_2PI

    p1 = np.maximum(u, -_SQRT3)
    p2 = np.maximum(u, 0.0)
    p3 = np.maximum(u, _SQRT3)
    h0, h1, h2, h3 = h(u), h(p1), h(p2), h(p3)
    tv = np.abs(h1 - h0) + np.abs(h2 - h1) + np.abs(h3 - h2) + np.abs(h3)
    q = np.exp(shift + special.log_ndtr(-u))
    ph = np.exp(shift - u * u / 2.0) * _INV_SQRT_2PI
    c = ph / (2.0 * s) + u * ph / (12.0 * s * s)
    return q, c, _EM3 * tv / (s * s * s)


def _dg_delta_upper(eps: np.ndarray, s: float, d: int) -> np.ndarray:
    r"""Upper bound of the hockey-stick curve of :math:`(N_{\mathbb Z}(0, s^2),
    N_{\mathbb Z}(d, s^2))` at the points ``eps`` (any real), for the integer shift ``d``.

    With :math:`g(k) = e^{-k^2/(2s^2)}`, :math:`C = \sum_{k\in\mathbb Z} g(k)` and
    :math:`x_1 = \varepsilon s^2/d - d/2`, the curve is :math:`\max_{y \in \mathbb Z} N(y)/C`,
    :math:`N(y) = \sum_{k \ge y} g(k) - e^\varepsilon \sum_{k \ge y + d} g(k)`, attained at the
    smallest integer :math:`y_1 > x_1` (Canonne, Kamath and Steinke, NeurIPS 2020, Theorem 7;
    the pairs :math:`g(k) - e^\varepsilon g(k + d)` are non-negative exactly for :math:`k >
    x_1`). Each tail sum is bounded by :func:`_dg_tail_parts` (the first from above, the second
    from below), :math:`C \ge \sqrt{2\pi} s` (Poisson summation: :math:`C = \sqrt{2\pi} s (1 +
    2\sum_{j \ge 1} e^{-2\pi^2 s^2 j^2})`), and the bound is the largest over :math:`y \in
    \{y_1 - 1, y_1, y_1 + 1\}` (:math:`y_1` computed in floating point, off by at most one;
    every :math:`N(y) \le N(y_1)`, so the maximum of upper bounds of :math:`N(y)` over a set
    containing :math:`y_1` bounds :math:`N(y_1)`), raised by :data:`_REL` times the sum of the
    absolute values of the terms (scipy's ``log_ndtr`` and ``exp`` to a few ulps; :math:`u =
    y/s` to one ulp, which moves :math:`\Phi(-u)` by a relative :math:`u^2 2^{-53}` below
    1e-13 on the grids used), clipped to ``[0, 1]``."""
    eps = np.asarray(eps, dtype=np.float64)
    fd = float(d)
    x1 = eps * (s * s) / fd - fd / 2.0
    y1 = np.floor(x1) + 1.0
    zero = np.zeros_like(eps)
    best = zero.copy()
    for off in (-1.0, 0.0, 1.0):
        y = y1 + off
        qa, ca, ra = _dg_tail_parts(y, s, zero)
        qb, cb, rb = _dg_tail_parts(y + fd, s, eps)
        pos = qa + np.maximum(ca, 0.0) + ra + rb + np.maximum(-cb, 0.0)
        neg = qb + np.maximum(cb, 0.0) + np.maximum(-ca, 0.0)
        best = np.maximum(best, pos - neg + _REL * (pos + neg))
    return np.clip(np.nan_to_num(best, nan=1.0), 0.0, 1.0)


@lru_cache(maxsize=256)
def _discrete_gaussian_em(sigma: float, d: int, h: float, neighbours: str) -> PldCurve:
    """The PLD of :func:`_dg_delta_upper` (symmetric pair); grid as :func:`_gaussian`'s for
    ``mu = d / sigma`` (rounded up): mass outside it goes to the safe side."""
    mu = _float_up(Fraction(d) / Fraction(sigma))

    def f(eps: np.ndarray) -> np.ndarray:
        return _dg_delta_upper(eps, sigma, d)

    centre = mu * mu / 2.0
    return _symmetric(centre - _Z * mu, centre + _Z * mu, h, f, neighbours)


def pld_discrete_gaussian(
    sigma: float,
    *,
    sensitivity: int = 1,
    neighbours: str = REPLACE_ONE,
    value_discretization: float = 1e-4,
) -> PldCurve:
    r"""The discrete Gaussian mechanism's PLD, parameterised as
    :func:`privlearn.mechanisms.discrete_gaussian`: noise :math:`P(Z = z) \propto
    e^{-z^2/(2\sigma^2)}` on an integer-valued scalar query of sensitivity :math:`\Delta`.

    The pair of a shift :math:`d` is :math:`(Z, Z + d)`, with losses
    :math:`(d^2 - 2zd)/(2\sigma^2)` decreasing in :math:`z`, so its curve is
    :math:`\delta_d(\varepsilon) = \max_a [F(a) - e^\varepsilon F(a - d)]` over integers
    :math:`a` (:math:`F` the distribution function of :math:`Z`; Canonne, Kamath and Steinke,
    "The Discrete Gaussian for Differential Privacy", NeurIPS 2020, Section 2.2 and Theorem 7).
    Each bracket grows with :math:`d`, so :math:`\delta_d \le \delta_\Delta` for
    :math:`1 \le d \le \Delta`; negative shifts and the swapped pair give the same curve (the
    noise is symmetric). Neighbouring notion: the one for which :math:`\Delta` holds, recorded.

    Two evaluations of an upper bound of the curve:

    * ``sigma < 1000`` and ``sensitivity <= 1000``: the atoms :math:`|z| \le 12\sigma + 2` are
      summed exactly (the mass beyond, below 1e-31, is placed on the safe side: half on
      :math:`+\infty`, half on the lowest loss, each bounded by a geometric series), and the
      curve is the pointwise maximum over the shifts :math:`1, \dots, \Delta`; margin
      ``4 n u`` plus 1e-12 relative to the terms;
    * otherwise (the exact :func:`privlearn.mechanisms.gaussian`'s events, :math:`\sigma \sim
      4\cdot 10^6` grid units): the shift :math:`\Delta` only, each tail sum
      :math:`\sum_{k \ge y} e^{-k^2/(2\sigma^2)}` bounded by the Euler-Maclaurin formula of
      order 3 with its remainder bound :math:`2\zeta(3)/(2\pi)^3 \int |g'''|` (upper bound for
      the positive term, lower bound for the subtracted one) and the normaliser bounded below
      by :math:`\sqrt{2\pi}\sigma` (Poisson summation), see :func:`_dg_delta_upper`. Its excess
      over the exact curve (measured where :math:`\delta \ge 10^{-6}`) is a relative 7e-4 at
      :math:`\sigma = 50`, 2e-5 at 300, 2e-9 at 3000, and falls fast with :math:`\sigma`; on the grid
      :math:`\mu^2/2 \pm 9.5\mu`, :math:`\mu = \Delta/\sigma` (outside mass to the safe side).

    Then connect-the-dots (pessimistic). Symmetric: one PLD.

    Parameters
    ----------
    sigma : float
        > 0, finite.
    sensitivity : int, default 1
        Integer sensitivity, 1 to 2**53.
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"
    value_discretization : float, default 1e-4

    Returns
    -------
    PldCurve

    Raises
    ------
    InvalidParameterError
        On a bad argument, losses beyond 700 or a grid too large.
    """
    s = check_real(sigma, "sigma", 0.0, lo_open=True)
    d = check_integer(sensitivity, "sensitivity", 1)
    if d > _MAX_DG_SENSITIVITY:
        raise InvalidParameterError(f"sensitivity: must be at most 2**53; got {d}", "sensitivity")
    nb = _neighbours_arg(neighbours)
    h = _h_arg(value_discretization)
    if s >= _DG_ENUMERATE_BELOW or d > _MAX_SHIFTS:
        mu = d / s
        if not mu * mu / 2.0 + _Z * mu <= _MAX_LOSS:
            raise InvalidParameterError(
                f"sigma: too small for sensitivity {d} (privacy losses beyond {_MAX_LOSS:g})",
                "sigma",
            )
        return _discrete_gaussian_em(s, d, h, nb)
    zmax = 12.0 * s + 2 + d
    if (d * d + 2.0 * zmax * d) / (2.0 * s * s) > _MAX_LOSS:
        raise InvalidParameterError(
            f"sigma: too small for sensitivity {d} (privacy losses beyond {_MAX_LOSS:g})", "sigma"
        )
    return _discrete_gaussian(s, d, h, nb)


#: Largest k of k-ary randomized response (the Rust core takes a 64-bit k).
_MAX_RR_K = 2**62


@lru_cache(maxsize=256)
def _rr(e: float, k: int, inf: float, h: float, neighbours: str) -> PldCurve:
    # P = (e^eps, 1, ..., 1) / Z, Q = (1, e^eps, 1, ..., 1) / Z: losses eps, -eps, 0 (k - 2
    # times), scaled by 1 - inf, plus inf on +inf; each atom split between its two grid points
    # in closed form (connect-the-dots, rust/core/src/accounting/pld_build.rs).
    if k > _MAX_RR_K:
        raise InvalidParameterError(f"k: must be at most 2**62 for PLD accounting; got {k}", "k")
    return _from_parts((_core.PldCore.randomized_response(h, e, k, inf),), h, neighbours)


def _eps_arg(value: object) -> float:
    e = check_epsilon(value)
    if e > _MAX_LOSS:
        raise InvalidParameterError(
            f"epsilon: must be at most {_MAX_LOSS:g} for PLD accounting; got {e!r}", "epsilon"
        )
    return e


def pld_randomized_response(
    epsilon: float,
    k: int = 2,
    *,
    neighbours: str = REPLACE_ONE,
    value_discretization: float = 1e-4,
) -> PldCurve:
    r"""k-ary randomized response's PLD, as :func:`privlearn.mechanisms.randomized_response_k`.

    The true value is reported with probability :math:`e^\varepsilon/(e^\varepsilon + k - 1)`,
    each other value with :math:`1/(e^\varepsilon + k - 1)` (Kairouz, Bonawitz and Ramage, ICML
    2016, k-RR; Warner 1965 for ``k = 2``). Two inputs give :math:`P = (e^\varepsilon, 1, 1,
    \dots)/Z` and :math:`Q = (1, e^\varepsilon, 1, \dots)/Z`: losses :math:`\varepsilon`,
    :math:`-\varepsilon` and :math:`0` (``k - 2`` outputs). Each atom is split between its two
    neighbouring grid points keeping its :math:`P`- and :math:`Q`-mass (connect-the-dots in
    closed form, Doroshenko et al., PETS 2022, Section 3: the chords of the exact curve; computed
    in the Rust core with a ``64u`` float-error bound). Symmetric: one PLD.

    Parameters
    ----------
    epsilon : float
        Finite, > 0 (at most 700).
    k : int, default 2
        Number of values, >= 2.
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"
        The relation of the guarantee (one record's value changes).
    value_discretization : float, default 1e-4

    Returns
    -------
    PldCurve

    Raises
    ------
    InvalidParameterError
        On a bad argument.
    """
    e = _eps_arg(epsilon)
    kk = check_integer(k, "k", 2)
    return _rr(e, kk, 0.0, _h_arg(value_discretization), _neighbours_arg(neighbours))


def pld_pure(
    epsilon: float, *, neighbours: str = REPLACE_ONE, value_discretization: float = 1e-4
) -> PldCurve:
    r"""The PLD of *any* :math:`\varepsilon`-DP mechanism: that of binary randomized response.

    Every :math:`\varepsilon`-DP mechanism is dominated by the pair :math:`P = (e^\varepsilon,
    1)/(1 + e^\varepsilon)`, :math:`Q = (1, e^\varepsilon)/(1 + e^\varepsilon)` (Kairouz, Oh
    and Viswanath, "The Composition Theorem for Differential Privacy", ICML 2015, Theorem 2.1
    with :math:`\delta = 0`; Dong, Roth and Su 2019, Proposition 2.5). Use it for the exponential
    mechanism, report-noisy-max and any other pure-DP release.

    Parameters
    ----------
    epsilon : float
        Finite, > 0 (at most 700).
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"
    value_discretization : float, default 1e-4

    Returns
    -------
    PldCurve

    Raises
    ------
    InvalidParameterError
        On a bad argument.
    """
    e = _eps_arg(epsilon)
    return _rr(e, 2, 0.0, _h_arg(value_discretization), _neighbours_arg(neighbours))


def pld_approx(
    epsilon: float,
    delta: float,
    *,
    neighbours: str = REPLACE_ONE,
    value_discretization: float = 1e-4,
) -> PldCurve:
    r"""The PLD of *any* :math:`(\varepsilon, \delta)`-DP mechanism (Kairouz, Oh, Viswanath).

    Every :math:`(\varepsilon, \delta)`-DP mechanism is dominated by the pair on four outcomes
    :math:`P = (\delta, (1-\delta)e^\varepsilon/(1+e^\varepsilon), (1-\delta)/(1+e^\varepsilon),
    0)`, :math:`Q = (0, (1-\delta)/(1+e^\varepsilon), (1-\delta)e^\varepsilon/(1+e^\varepsilon),
    \delta)` (Kairouz, Oh and Viswanath, ICML 2015, Theorem 2.1): loss :math:`+\infty` with
    probability :math:`\delta`, else randomized response. Symmetric: one PLD.

    Parameters
    ----------
    epsilon : float
        Finite, > 0 (at most 700).
    delta : float
        In [0, 1).
    neighbours : {"replace-one", "add/remove-one"}, default "replace-one"
    value_discretization : float, default 1e-4

    Returns
    -------
    PldCurve

    Raises
    ------
    InvalidParameterError
        On a bad argument.
    """
    e = _eps_arg(epsilon)
    d = check_delta(delta)
    return _rr(e, 2, d, _h_arg(value_discretization), _neighbours_arg(neighbours))


def _mix_log(q: float, r: np.ndarray) -> np.ndarray:
    """``log(1 - q + q e^r)``, stably."""
    return np.logaddexp(math.log1p(-q), math.log(q) + r)


@lru_cache(maxsize=64)
def _subsampled_gaussian(q: float, s: float, h: float) -> PldCurve:
    s2 = s * s
    log1mq = math.log1p(-q)
    logq = math.log(q)

    def f_remove(eps: np.ndarray) -> np.ndarray:
        # P = (1-q) N(0,s^2) + q N(1,s^2), Q = N(0,s^2); L(x) = log(1-q+q e^{(2x-1)/2s^2})
        # increasing in x; L > eps iff x > x* = s^2 log((e^eps - 1 + q)/q) + 1/2.
        above = eps > log1mq
        em = np.expm1(eps)
        w = np.where(above, em + q, 1.0)  # e^eps - 1 + q
        lw = np.log(w)
        xs = s2 * (lw - logq) + 0.5
        t1 = q * special.ndtr((1.0 - xs) / s)
        t2 = np.exp(lw + special.log_ndtr(-xs / s))
        return np.where(above, _up(t1, t2), np.clip(-em, 0.0, 1.0))

    def f_add(eps: np.ndarray) -> np.ndarray:
        # P = N(0,s^2), Q = (1-q) N(0,s^2) + q N(1,s^2); L(x) = -log(1-q+q e^{(2x-1)/2s^2})
        # decreasing; L > eps iff e^{-eps} > 1-q and x < x* = s^2 log((e^{-eps}-1+q)/q) + 1/2.
        inside = eps < -log1mq
        w = np.where(inside, np.expm1(-eps) + q, 1.0)  # e^{-eps} - 1 + q
        xs = s2 * (np.log(w) - logq) + 0.5
        t1 = special.ndtr(xs / s) * -np.expm1(eps + log1mq)
        t2 = np.exp(logq + eps + special.log_ndtr((xs - 1.0) / s))
        return np.where(inside, _up(t1, t2), 0.0)

    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        hi_loss = float(_mix_log(q, np.array((2.0 * (1.0 + _Z * s) - 1.0) / (2.0 * s2))))
        lo_loss = -float(_mix_log(q, np.array((2.0 * _Z * s - 1.0) / (2.0 * s2))))
    # The add pair is the remove pair swapped: both grids from one evaluation of each curve.
    remove, add = _core_pair(
        (log1mq, max(hi_loss, log1mq)), (min(lo_loss, -log1mq), -log1mq), h, f_remove, f_add
    )
    return _from_parts((remove, add), h, ADD_REMOVE_ONE)


def pld_subsampled_gaussian(
    rate: float, sigma: float, *, value_discretization: float = 1e-4
) -> PldCurve:
    r"""The Poisson-subsampled Gaussian mechanism's PLDs (add/remove-one neighbours).

    Each record is kept independently with probability :math:`q` (``rate``), the kept records'
    contributions (each of L2 norm at most :math:`\Delta`) are summed and :math:`N(0,
    \sigma^2\Delta^2 I)` is added (``sigma`` is the noise multiplier). For add/remove-one
    neighbours the mechanism is dominated by the *remove* pair :math:`((1-q)\mu_0 + q\mu_1,
    \mu_0)` and the *add* pair :math:`(\mu_0, (1-q)\mu_0 + q\mu_1)`, :math:`\mu_j = N(j,
    \sigma^2)` (Zhu, Dong and Wang, AISTATS 2022, Proposition 30; Mironov, Talwar and Zhang 2019,
    Section 3), which are not symmetric: both are kept and composed separately, and the reported
    delta is the larger. Each curve is the exact integral over the half-line where the loss
    exceeds :math:`\varepsilon` (the loss is monotone in the output), e.g. for *remove*
    :math:`\delta(\varepsilon) = q\bar\Phi((x^*-1)/\sigma) - (e^\varepsilon - 1 + q)
    \bar\Phi(x^*/\sigma)` with :math:`x^* = \sigma^2\ln((e^\varepsilon - 1 + q)/q) + 1/2`.

    Parameters
    ----------
    rate : float
        The sampling probability :math:`q`, in (0, 1).
    sigma : float
        The noise multiplier, > 0.
    value_discretization : float, default 1e-4

    Returns
    -------
    PldCurve
        Two PLDs, neighbours ``"add/remove-one"``; margins as in the module docstring.

    Raises
    ------
    InvalidParameterError
        On a rate outside (0, 1) (use :func:`pld_gaussian` with ``neighbours="add/remove-one"``
        for ``rate = 1``), a non-positive or non-finite sigma, or a grid too large.
    """
    q = check_probability(rate, "rate")
    s = check_real(sigma, "sigma", 0.0, lo_open=True)
    h = _h_arg(value_discretization)
    return _subsampled_gaussian(q, s, h)


@lru_cache(maxsize=64)
def _subsampled_laplace(q: float, e0: float, h: float) -> PldCurve:
    logq = math.log(q)
    lmin = float(_mix_log(q, np.array(-e0)))
    lmax = float(_mix_log(q, np.array(e0)))

    def f_remove(eps: np.ndarray) -> np.ndarray:
        # L = log(1-q+q e^r), r = (|x| - |x-D|)/b in [-e0, e0], increasing in x. For
        # r* = log((e^eps - 1 + q)/q) in [-e0, e0): delta = q (1 - e^{(r* - e0)/2}).
        rs = np.log(np.expm1(eps) + q) - logq
        inside = q * -np.expm1((rs - e0) / 2.0)
        d = np.where(eps < lmin, -np.expm1(eps), np.where(eps >= lmax, 0.0, inside))
        return _up(d, np.zeros_like(d))

    def f_add(eps: np.ndarray) -> np.ndarray:
        # L = -log(1-q+q e^r), decreasing. For r* = log((e^{-eps} - 1 + q)/q) in (-e0, e0]:
        # delta = q e^{eps + r*} (1 - e^{-(r* + e0)/2}).
        rs = np.log(np.expm1(-eps) + q) - logq
        inside = q * np.exp(eps + rs) * -np.expm1(-(rs + e0) / 2.0)
        d = np.where(eps < -lmax, -np.expm1(eps), np.where(eps >= -lmin, 0.0, inside))
        return _up(d, np.zeros_like(d))

    remove = _core_from(lmin, lmax, h, f_remove, f_add)
    add = _core_from(-lmax, -lmin, h, f_add, f_remove)
    return _from_parts((remove, add), h, ADD_REMOVE_ONE)


def pld_subsampled_laplace(
    rate: float,
    scale: float,
    *,
    sensitivity: float = 1.0,
    value_discretization: float = 1e-4,
) -> PldCurve:
    r"""The Poisson-subsampled (scalar) Laplace mechanism's PLDs (add/remove-one neighbours).

    Each record is kept with probability :math:`q`; the kept records' values (each changing the
    sum by at most :math:`\Delta`) are summed and :math:`\mathrm{Lap}(b)` is added. As for
    :func:`pld_subsampled_gaussian`, the mechanism is dominated by the *remove* pair
    :math:`((1-q)\lambda_0 + q\lambda_\Delta, \lambda_0)` and the *add* pair
    :math:`(\lambda_0, (1-q)\lambda_0 + q\lambda_\Delta)`, :math:`\lambda_m = \mathrm{Lap}(m,
    b)` (Zhu, Dong and Wang, AISTATS 2022, Proposition 30; the Laplace case of Koskela et al.,
    AISTATS 2020). With :math:`\varepsilon_0 = \Delta/b` and :math:`r^*` the threshold of the
    monotone ratio :math:`r = (|x| - |x - \Delta|)/b`, the curves integrate in closed form:
    remove, :math:`\delta = q(1 - e^{(r^* - \varepsilon_0)/2})` with :math:`r^* =
    \ln((e^\varepsilon - 1 + q)/q)`; add, :math:`\delta = q e^{\varepsilon + r^*}(1 -
    e^{-(r^* + \varepsilon_0)/2})` with :math:`r^* = \ln((e^{-\varepsilon} - 1 + q)/q)`, each
    where :math:`|r^*| \le \varepsilon_0` (else :math:`1 - e^\varepsilon` or 0).

    Parameters
    ----------
    rate : float
        In (0, 1).
    scale : float
        The Laplace scale :math:`b`, > 0.
    sensitivity : float, default 1.0
        > 0.
    value_discretization : float, default 1e-4

    Returns
    -------
    PldCurve
        Two PLDs, neighbours ``"add/remove-one"``.

    Raises
    ------
    InvalidParameterError
        On a bad argument or a grid too large.
    """
    q = check_probability(rate, "rate")
    b = check_real(scale, "scale", 0.0, lo_open=True)
    d = check_real(sensitivity, "sensitivity", 0.0, lo_open=True)
    h = _h_arg(value_discretization)
    e0 = _float_up(Fraction(d) / Fraction(b))  # rounded up: the safe side
    if not (math.isfinite(e0) and 0.0 < e0 <= _MAX_LOSS):
        raise InvalidParameterError(
            f"scale: sensitivity / scale must be in (0, {_MAX_LOSS:g}]; got {e0!r}", "scale"
        )
    return _subsampled_laplace(q, e0, h)
