r"""Private clipping bounds: a differentially private quantile of row norms or labels, chosen by
the exponential mechanism over a public grid (issue 19, ``data_norm="private"`` /
``label_bound="private"``).

A learner that is asked for ``bounds="private"`` spends a declared share of its budget on the
private ``q``-quantile of the row norms ``||x_i||`` (and of the absolute labels ``|y_i|``),
clips every row (label) to the released value and runs the rest of the algorithm with the rest
of the budget. The released bound is a private output, so clipping to it is post-processing and
every downstream sensitivity is computed from the released number, as if it had been declared.

The mechanism (its sensitivity, guarantee, guard, numerics and accuracy) is documented with
its code in :mod:`privlearn._private_quantile` (moved there in issue 22, so that the private
preprocessing shares it); this module holds what is specific to the learners: the budget plan
(:func:`bounds_plan`), the measured defaults below and the charging (:func:`charge_with_bounds`).

Recommended defaults (measured)
-------------------------------
For a learner with total ``epsilon``: ``split_epsilon(epsilon, BOUNDS_FRACTION, 2)`` gives two
equal shares for the row-norm quantile (``NORM_QUANTILE`` of ``||x_i||``, as ``data_norm``) and
the label quantile (``LABEL_QUANTILE`` of ``|y_i|``, as ``label_bound``), and the rest for the
learner; charge the two bounded-range events with the learner's own release (the split shows in
the ledger). The values are data-independent constants chosen by experiment (issue 19, helper
B; script and logs in the issue note): AdaSSP-style sufficient-statistics perturbation (Gaussian,
delta = 1e-6, intercept column equal to the norm bound), 30 random splits, test MSE with the
private bounds divided by the MSE with the best of 29 x 29 hand-picked ``(data_norm,
label_bound)`` pairs (an oracle tuned on the test MSE). Grid searched: fraction in {0.05, 0.1,
0.2, 0.3}, both quantiles in {0.1, 0.25, 0.5, 0.75, 0.9}.

============================  ===========  ===========  ===========
ratio to best hand bounds     eps = 0.5    eps = 1      eps = 2
============================  ===========  ===========  ===========
warfarin (n = 3000), chosen   1.057        1.026        1.016
warfarin, best configuration  1.057        1.020        1.010
synthetic t5 (n = 3000), ch.  1.51         1.19         (not run)
synthetic t5, best config.    1.51         1.13         (not run)
diabetes (n = 353), best any  1.10         1.15         1.18
============================  ===========  ===========  ===========

``(0.1, 0.25, 0.75)`` was the best or within 1% of the best configuration on warfarin at
every epsilon, and the best or near it on the synthetic data (Student-t(5) features, d = 10),
where the oracle (which also tunes the ratio of the two bounds, an implicit rescaling of the
model) is much harder to match. Sufficient-statistics perturbation prefers aggressive row clipping
(a low norm quantile) at these epsilons; at much larger epsilon a higher quantile is better. On
small data (diabetes) every configuration is 10-18% worse than the oracle: the rank error of
the quantile (``2 ln K / epsilon_share``) is a large fraction of ``n``.

**The pure (Laplace) variant** (``PURE_NORM_QUANTILE``, ``PURE_LABEL_QUANTILE``; issue 19,
helper A3): AdaSSP with Laplace noise, 30 splits, quantile pairs ``(0.05, 0.9), (0.1, 0.85),
(0.1, 0.9), (0.15, 0.9), (0.25, 0.75), (0.25, 0.9)`` against an oracle over 8 x 6 hand bounds,
at epsilon 0.5, 1, 2 on Student-t(5) (d = 10, n = 3000), Gaussian (d = 14, n = 3000) and
diabetes (n = 353). Lower norm quantiles with higher label quantiles won on the Gaussian data
(``(0.1, 0.9)``: 1.76 / 1.42 / 1.13 against 1.77 / 1.64 / 1.44) and lost on the Student-t data
at epsilon 2 (2.02 against 1.10); on warfarin (wu-regression splits, 20) ``(0.1, 0.9)`` gives
1.082 / 1.012 / 1.021 against 1.085 / 1.041 / 1.012. No pair is better everywhere, so the pure
variant keeps ``(0.25, 0.75)``; at epsilon 0.5 the gap to the hand bounds on warfarin comes from
the share :func:`bounds_plan` must spend at ``n epsilon = 1500`` (17% at these quantiles, 43%
at ``(0.1, 0.9)``), not from the quantiles.

Which library does what: the epsilon split (:func:`~privlearn._private_quantile.split_epsilon`,
exact rational arithmetic with :class:`fractions.Fraction`) and the quantiles are
:mod:`privlearn._private_quantile`'s (the split moved there in issue 22, shared with the private
preprocessing; it is imported here under its old name).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Tuple, TypeVar, Union, overload

import numpy as np

from .._private_quantile import (
    DEFAULT_GRID,
    check_quantile,
    count_points,
    private_quantile_from_counts,
    split_epsilon,
)
from .._validate import check_epsilon, check_integer, check_real
from ..errors import InvalidParameterError
from ._base import bound_arg

__all__: list = []

T = TypeVar("T")

#: The string that asks for a privately chosen bound.
PRIVATE = "private"


#: Share of the total epsilon spent on the private bounds (both quantiles together; measured,
#: see the module docstring).
BOUNDS_FRACTION = 0.1
#: Quantile of the row norms used as the clipping bound ``data_norm`` (measured).
NORM_QUANTILE = 0.25
#: Quantile of the absolute labels used as ``label_bound`` (measured).
LABEL_QUANTILE = 0.75
#: The quantiles for a learner whose release is pure (Laplace noise, e.g. AdaSSP's
#: ``noise="laplace"``): its noise grows faster with the bounds, so it clips rows harder and
#: labels less (measured; see "Recommended defaults").
PURE_NORM_QUANTILE = 0.25
PURE_LABEL_QUANTILE = 0.75
#: The plan of :func:`bounds_plan`: the smallest gap, in the exponential mechanism's exponent,
#: between the quantile and a grid point outside the data, and the largest share of ``epsilon``
#: the plan gives to the bounds.
BOUNDS_SCORE_GAP = 16.0
BOUNDS_FRACTION_MAX = 0.5
#: The smallest gap the plan accepts at its limits (share :data:`BOUNDS_FRACTION_MAX`,
#: quantiles at the median): below it a grid point far outside the data is within ``e^8`` of
#: the quantile's probability, and with the grid's 319 points a bound far from the data becomes
#: likely (measured: scikit-learn's diabetes data, n = 354, exploded at epsilon = 0.2, gap 4.4,
#: and was fine at epsilon = 0.5, gap 11, on the experiment's 30 splits). :func:`bounds_plan`
#: then refuses ``"private"`` (``n epsilon >= 8 k BOUNDS_MIN_GAP`` is needed for ``k`` private
#: bounds). **The gap is per grid point**: a flat tail holds 100-300 points, so its total
#: probability is about ``K_tail e^-gap``. Computed exactly from the mechanism's law (issue 19,
#: helper H4; 10 splits each), the probability of a row bound below a quarter of the smallest
#: norm / a label bound above four times the largest ``|y|`` is 2.8e-3 / 1.5e-3 per fit on
#: diabetes at epsilon = 0.5 (5.7e-5 / 3.6e-5 at epsilon = 1) and 6.7e-5 / 3.2e-5 on warfarin
#: (n = 3000) at epsilon = 0.2 and 0.5; such a bound makes the MSE explode (1e9 and more), and
#: on 40 other diabetes splits (2 fits each) one such fit at epsilon = 0.5 made the mean MSE
#: 448 times the hand-picked one. Those numbers are for the plain utility; the guard
#: (:data:`GUARD_DOUBLINGS`, issue 19 helper H5) makes the points far outside the data score
#: ``-n`` instead (measured numbers in the module docstring, "The guard"). The plan itself is
#: unchanged: its gap is still computed for the plain utility's ramp just outside the data.
BOUNDS_MIN_GAP = 8.0

# --------------------------------------------------------------------------------------------
# Parameter checks (before any data are read)
# --------------------------------------------------------------------------------------------


def bound_or_private(value: object, name: str) -> Union[float, str]:
    """A declared bound (a finite float > 0) or the string ``"private"``.

    Run before the data are read: ``None`` raises the error of :func:`._base.bound_arg`
    ("a declared bound is required"), extended by the private option; any other string or a
    number that is not finite and > 0 raises :class:`~privlearn.errors.InvalidParameterError`
    naming ``name``."""
    if value is None:
        raise InvalidParameterError(
            f"{name}: a declared bound is required (rows are clipped to it; it must not be "
            f"read from the data), or 'private' to choose it privately with part of the "
            f"budget; got None",
            name,
        )
    if isinstance(value, str):
        if value != PRIVATE:
            raise InvalidParameterError(
                f"{name}: must be a finite number > 0 or 'private'; got {value!r}", name
            )
        return PRIVATE
    return bound_arg(value, name)


def bounds_plan(
    epsilon: float,
    n: int,
    private: Sequence[str],
    quantiles: Tuple[float, float] = (NORM_QUANTILE, LABEL_QUANTILE),
) -> Tuple[float, Tuple[float, float]]:
    """The default share of ``epsilon`` for the private bounds and their quantiles, from the
    public ``epsilon``, ``n`` and which bounds are private (never from the data).

    ``private`` lists the private bounds among ``"data_norm"`` and ``"label_bound"``;
    ``quantiles`` are the wanted ``(row-norm quantile, label quantile)``. Every grid point
    outside the data's range has the utility ``-m n`` with ``m = min(q, 1 - q)`` ("Known
    weaknesses" above), against about 0 at the quantile; a share ``eps_b`` makes each such point
    ``exp(-eps_b m n / 2)`` times less likely. The plan keeps that exponent at least
    :data:`BOUNDS_SCORE_GAP` for each private bound: it starts from :data:`BOUNDS_FRACTION`,
    raises the fraction up to :data:`BOUNDS_FRACTION_MAX` when ``n epsilon`` is small, and if
    that is not enough moves the quantiles towards the median (which raises ``m`` up to 1/2),
    so that no bound lands far outside the data (a bound far below the norms, or labels left
    unclipped up to ``1e8``, make a regression fit explode). Returns ``(fraction, (row-norm
    quantile, label quantile))``; the bounds' shares are then ``split_epsilon(epsilon,
    fraction, len(private))``.

    Raises
    ------
    InvalidParameterError
        ``epsilon`` not finite and > 0, ``n`` not an integer >= 1, a quantile outside (0, 1) or
        an unknown name in ``private``; or ``n epsilon`` too small for any plan to reach
        :data:`BOUNDS_MIN_GAP` (``n epsilon < 8 k BOUNDS_MIN_GAP``: 128 for both bounds, 64
        for one). ``n`` and ``epsilon`` are public, so the refusal reveals nothing.
    """
    eps = check_epsilon(epsilon, exact=True)
    nn = check_integer(n, "n", 1)
    qs = (check_quantile(quantiles[0]), check_quantile(quantiles[1]))
    names = ("data_norm", "label_bound")
    for name in private:
        if name not in names:
            raise InvalidParameterError(
                f"private: the bounds are 'data_norm' and 'label_bound'; got {name!r}", "private"
            )
    k = max(len(private), 1)
    m = min(min(q, 1.0 - q) for q, name in zip(qs, names) if name in private or not private)
    need = 2.0 * BOUNDS_SCORE_GAP / nn  # eps_b * m must be at least this
    f = max(BOUNDS_FRACTION, k * need / (m * eps))
    if f <= BOUNDS_FRACTION_MAX:
        return f, qs
    f = BOUNDS_FRACTION_MAX
    gap = (f * eps / k) * 0.5 * nn / 2.0  # the exponent at the plan's limits (median, max share)
    if gap < BOUNDS_MIN_GAP:
        raise InvalidParameterError(
            f"{private[0] if private else 'bounds'}: a private bound needs n * epsilon >= "
            f"{8 * k * BOUNDS_MIN_GAP:g} for {k} private bound(s) (here n = {nn}, epsilon = "
            f"{eps:g}): the private quantile would be too unreliable; declare the bounds instead",
            private[0] if private else "bounds",
        )
    m_new = min(0.5, k * need / (f * eps))
    lo, hi = m_new, 1.0 - m_new
    return f, (min(max(qs[0], lo), hi), min(max(qs[1], lo), hi))


# --------------------------------------------------------------------------------------------
# For learners: options, plan, release and the two-entry charge (shared by AdaSSP and Boosted
# AdaSSP, which take ``data_norm="private"`` / ``label_bound="private"`` the same way)
# --------------------------------------------------------------------------------------------


def check_bounds_options(
    fraction: object, quantile: object
) -> Tuple[Optional[float], Optional[Tuple[float, float]]]:
    """A learner's ``bounds_fraction`` (``None`` or in (0, 1)) and ``bounds_quantile``
    (``None``, one quantile for both bounds, or a pair ``(row-norm quantile, label quantile)``,
    each in (0, 1)), checked before any data are read. ``None`` means: the public plan of
    :func:`bounds_plan`."""
    f = (
        None
        if fraction is None
        else check_real(fraction, "bounds_fraction", 0.0, 1.0, lo_open=True, hi_open=True)
    )
    if quantile is None:
        return f, None
    pair = tuple(quantile) if isinstance(quantile, (tuple, list)) else (quantile, quantile)
    try:
        if len(pair) != 2:
            raise InvalidParameterError("quantile: a pair must have two entries", "quantile")
        return f, (check_quantile(pair[0]), check_quantile(pair[1]))
    except InvalidParameterError as err:
        raise InvalidParameterError(
            str(err).replace("quantile:", "bounds_quantile:", 1), "bounds_quantile"
        ) from None


def plan_shares(
    epsilon: float,
    n: int,
    private: Sequence[str],
    fraction: Optional[float],
    quantile: Optional[Tuple[float, float]],
    wanted: Tuple[float, float] = (NORM_QUANTILE, LABEL_QUANTILE),
) -> Tuple[Tuple[float, ...], float, Tuple[float, float]]:
    """``(bound shares, rest of epsilon, quantiles)`` from public values only: the declared
    ``fraction`` / ``quantile`` where given, else :func:`bounds_plan` for the ``wanted``
    quantiles (with declared quantiles and no declared fraction: the plan's fraction for those
    quantiles); the shares are :func:`split_epsilon`'s. No private bound: ``((), epsilon, (0.5,
    0.5))``. Raises :class:`~privlearn.errors.InvalidParameterError` where :func:`bounds_plan`
    refuses (``n epsilon`` too small): ``n`` and ``epsilon`` are public."""
    if not private:
        return (), epsilon, (0.5, 0.5)
    plan_f, plan_q = bounds_plan(epsilon, n, private, quantile or wanted)
    f = plan_f if fraction is None else fraction
    q = plan_q if quantile is None else quantile
    shares, rest = split_epsilon(epsilon, f, len(private))
    return shares, rest, q


@overload
def release_bounds(
    X: Any,
    y: Any,
    data_norm: Union[float, str],
    label_bound: Union[float, str],
    shares: Tuple[float, ...],
    quantile: Tuple[float, float],
    rng: Any,
    grid: Optional[np.ndarray] = None,
) -> Tuple[float, float]: ...


@overload
def release_bounds(
    X: Any,
    y: Any,
    data_norm: Union[float, str],
    label_bound: Union[None, float, str],
    shares: Tuple[float, ...],
    quantile: Tuple[float, float],
    rng: Any,
    grid: Optional[np.ndarray] = None,
) -> Tuple[float, Optional[float]]: ...


def release_bounds(
    X: Any,
    y: Any,
    data_norm: Union[float, str],
    label_bound: Union[None, float, str],
    shares: Tuple[float, ...],
    quantile: Tuple[float, float],
    rng: Any,
    grid: Optional[np.ndarray] = None,
) -> Tuple[float, Optional[float]]:
    """``(data_norm, label_bound)``: each declared value as given (``None`` stays ``None``), each
    ``"private"`` one released by :func:`private_quantile_from_counts` (row norms of ``X`` at
    ``quantile[0]``, ``|y|`` at ``quantile[1]``) with the next of ``shares`` (in that order),
    from one :func:`~._suffstats.norm_counts` pass over numpy or Dask input. Nothing is charged:
    the caller charges ``PrivacyEvent.bounded_range(s)`` for each share (see
    :func:`charge_with_bounds`)."""
    from ._suffstats import norm_counts

    if not shares:
        return float(data_norm), None if label_bound is None else float(label_bound)
    g = DEFAULT_GRID if grid is None else grid
    points = count_points(g)  # public: the grid and its guard points 2^(+-B) g
    gx = points if data_norm == PRIVATE else None
    gy = points if label_bound == PRIVATE else None
    counts = norm_counts(X, y, grid_x=gx, grid_y=gy)
    n = int(X.shape[0])
    out: list = []
    i = 0
    for value, c, q in ((data_norm, counts.x, quantile[0]), (label_bound, counts.y, quantile[1])):
        if value == PRIVATE:
            bound, _ = private_quantile_from_counts(
                c, n, quantile=q, epsilon=shares[i], rng=rng, grid=g
            )
            i += 1
            out.append(bound)
        else:
            out.append(None if value is None else float(value))
    return out[0], out[1]


def charge_with_bounds(
    accountant: Any, shares: Tuple[float, ...], event: Any, label: str, body: Callable[[], T]
) -> T:
    """Run ``body`` (which reads the data, releases the private bounds and then the learner's
    statistics) charging, only if it returns, the bounds' bounded-range events as one ledger
    entry ``"<label>: private bounds"`` and ``event`` as another, ``"<label>: statistics"``
    (no share: ``event`` alone, labelled ``label``). Both are reserved before ``body`` runs
    (nested :meth:`~privlearn.accounting.Accountant.transaction`), so a spend that does not fit
    raises before anything is read, and either both are charged or neither. A
    :class:`~._solvers.SolverError` (raised after the data were read) is charged like a release
    and then re-raised, as :func:`._base.charged` does."""
    from ..accounting._event import PrivacyEvent
    from ._solvers import SolverError

    if accountant is None:
        return body()

    def guarded() -> Tuple[Optional[T], Optional[SolverError]]:
        try:
            return body(), None
        except SolverError as err:
            return None, err

    if shares:
        bounds_event = PrivacyEvent.composed([PrivacyEvent.bounded_range(s) for s in shares])
        with accountant.transaction(bounds_event, f"{label}: private bounds"):
            with accountant.transaction(event, f"{label}: statistics"):
                out, failure = guarded()
    else:
        with accountant.transaction(event, label):
            out, failure = guarded()
    if failure is not None:
        raise failure
    return out  # type: ignore[return-value]
