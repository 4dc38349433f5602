r"""Differentially private ``MinMaxScaler`` and ``RobustScaler``: per-feature quantiles chosen by
the exponential mechanism on a public grid inside declared bounds.

The release (one private quantile)
----------------------------------
Every feature ``j`` has declared bounds ``l_j < u_j`` (parameters, never statistics of the data)
and a public grid of ``K = grid_size`` evenly spaced candidates

.. math:: g_{j,k} = l_j + k \, (u_j - l_j) / (K - 1), \qquad k = 0, \dots, K - 1,

computed in floating point as ``l_j + (k (u_j - l_j)) / (K - 1)`` (multiplication first, so that
with ``l_j = 0`` and an exact product the point is the float nearest to ``k u_j / (K - 1)``, the
float a decimal such as ``0.7`` is read as), with the last point set to ``u_j`` exactly; it must
come out finite and strictly increasing, or the bounds and ``grid_size`` are refused before the
data are read. Each value is clipped to ``[l_j, u_j]`` (so values beyond the
bounds count at the ends) and, for a quantile level ``q`` (a percentage ``p``, ``q = p / 100``),
the candidates are scored by **Smith's quantile utility** (Smith, "Privacy-preserving
statistical estimation with optimal convergence rates", STOC 2011, Section 3), here on the public
grid instead of the intervals between data points, and extended to ties:

.. math:: u(g) = -\operatorname{dist}\bigl(t, [c_<(g), c_\le(g)]\bigr)
               = -\max\bigl(c_<(g) - t,\; t - c_\le(g),\; 0\bigr),

          c_<(g) = \#\{i : \mathrm{clip}(x_{ij}) < g\}, \quad
          c_\le(g) = \#\{i : \mathrm{clip}(x_{ij}) \le g\}, \quad t \approx q n:

minus the distance from the target rank ``t`` to the ranks that ``g`` occupies. Where no value
equals ``g`` (then ``c_< = c_<=``) this is Smith's ``-|c_<=(g) - t|``; a candidate that *is* a
repeated value (a 0 or 1 of a binary feature, a declared bound at which values were clipped, a
constant feature) covers all the ranks of its copies, so it scores 0 when the target falls among
them. The plain utility
``-|c_<=(g) - q n|`` would instead score every candidate of the gap above such a value alike
(the count is constant there) and return a point anywhere in the gap: the 1% quantile of a 0/1
feature with 30% ones, bounds ``[0, 1]``, would be uniform on ``[0, 1)``. The output is
``g_{j,k}`` with probability proportional to ``exp(epsilon_i u(g_{j,k}) / 2)``: the exponential
mechanism of McSherry and Talwar ("Mechanism design via differential privacy", FOCS 2007,
Theorem 6) with sensitivity 1.

**Sensitivity (replace-one, n public): exactly 1.** Replacing one row ``x`` by ``x'`` changes
each count at a fixed point ``g`` by one of ``-1, 0, 1`` (``c_<(g)`` by ``[clip(x'_j) < g] -
[clip(x_j) < g]``, ``c_<=(g)`` likewise); the grid (a function of the bounds and ``grid_size``)
and ``t`` (a function of ``q`` and ``n``) are public. Each of ``c_< - t``, ``t - c_<=`` and ``0``
moves by at most 1, hence so does their maximum (if ``a_k' <= a_k + 1`` for every ``k`` then
``max a' <= max a + 1``, and symmetrically). Attained: a row at ``l_j`` replaced by one at
``u_j`` lowers both counts at every candidate strictly between them by one, which moves every
such candidate with ``c <= t`` down by 1 and every one with ``c >= t + 1`` up by 1. The
utility is not monotone in the data (the two groups move in opposite directions), so the
factor-2 saving of a monotone utility does not apply. (Under add/remove neighbours ``t`` would
move too; that notion is not offered.)

**Guarantee.** One quantile release is ``epsilon_i``-DP (pure, replace-one, ``n`` public), and
``epsilon_i``-bounded-range (Durfee and Rogers, "Practical differentially private top-k
selection with pay-what-you-get composition", NeurIPS 2019): its native event is
``PrivacyEvent.bounded_range(epsilon_i)``, which the zCDP / RDP accountants compose tighter than
pure DP. One row moves every feature at once, so there is no parallel composition across
features: a fit releases ``k`` quantile levels of each of the ``d`` features (``k = 2`` for
:class:`MinMaxScaler`; ``k <= 3`` for :class:`RobustScaler`: the distinct levels among the
median and ``quantile_range``), each with the same public share

.. math:: \varepsilon_i = \lfloor \varepsilon / (k d) \rfloor_{\mathrm{fl}}

(the largest float at most ``epsilon / (k d)``, exact rationals), so that by basic composition
(Dwork and Roth, *The algorithmic foundations of differential privacy*, Theorem 3.14) the
``k d`` releases together are ``epsilon``-DP: ``k d epsilon_i <= epsilon`` exactly. The fit
charges **one** ledger entry (label ``"MinMaxScaler"`` or ``"RobustScaler"``): the event
``PrivacyEvent.repeated(PrivacyEvent.bounded_range(epsilon_i), k d, budget=Budget(epsilon))``.
Everything else (sorting the released quantiles, ``scale_``, ``min_``, ``center_``,
``transform``) is post-processing with ``n`` public. The guarantee holds only with ``rng=None``
or an unseeded generator. Whether a fit succeeds, what it charges and the shapes of its
attributes depend on the parameters, ``n`` and ``d`` only.

*Why an equal split.* The error of one release is a rank error of about ``2 ln(K) /
epsilon_i`` (below), the same for every feature and level, so without information about the
data (which the split may not read) no level deserves more. Releasing the ``k`` levels of a
feature jointly (the JointExp mechanism of Gillenwater, Joseph and Kulesza, ICML 2021) would
save the split between levels, but for ``k <= 3`` the saving is at most a factor 3 in
``epsilon`` inside a logarithm-dominated error, and its sampler is not floating-point safe in
privlearn's core; not done here.

**Numerics.** ``t`` is ``q n`` rounded to the nearest multiple of ``2^-10`` (exact rationals,
``q = fl(p / 100)`` from the float percentage ``p``; the target and the unit of
:mod:`privlearn._private_quantile`, whose guarded geometric-grid mechanism the learners' private
bounds use), and the exponential mechanism
(:func:`privlearn.mechanisms.exponential`, ``numerics="exact"``) receives the integer scores
``-max(2^10 c_<(g) - 2^10 t, 2^10 t - 2^10 c_<=(g), 0)`` with sensitivity ``2^10``: integer
scores are sampled exactly (no rounding of a probability; Ilvento, CCS 2020, shows that a
floating-point softmax can leak), so the output law is ``exp(epsilon_i u / 2)`` up to the
sampler's rate rounded *down* and its ``e^-700`` clamp, both of which keep the guarantee. Moving
``t`` by at most ``2^-11`` changes no sensitivity. The counts are exact integers (``numpy.searchsorted`` on the sorted clipped
column, both sides); the grid is a function of public parameters only.

Post-processing
---------------
The ``k`` released values of a feature are **sorted** and assigned to the levels in increasing
order (the true quantiles are non-decreasing in the level; sorting the estimates never
increases their largest distance to a non-decreasing target, by the rearrangement inequality).

* :class:`MinMaxScaler`: levels ``quantile_range = (p_lo, p_hi)`` (percentages): ``data_min_``
  and ``data_max_`` are the sorted pair, ``data_range_ = data_max_ - data_min_``, ``scale_ =
  (f_hi - f_lo) / data_range_`` (a zero range counts as 1, scikit-learn's convention for a
  constant feature), ``min_ = f_lo - data_min_ * scale_``; ``transform`` is ``X * scale_ +
  min_``, clipped to ``feature_range`` with ``clip=True``.
* :class:`RobustScaler`: ``center_`` the private median (``with_centering``), ``scale_`` the
  private ``p_hi`` minus ``p_lo`` quantile (``with_scaling``; 1 where it is 0; divided by
  ``Phi^-1(p_hi/100) - Phi^-1(p_lo/100)`` with ``unit_variance``); ``transform`` is ``(X -
  center_) / scale_``.

Accuracy and defaults
---------------------
With probability at least ``1 - beta`` the released grid point ``g`` has rank error (the
distance of ``q n`` to ``[c_<(g), c_<=(g)]``) at most ``r + 2 (ln K + ln(1/beta)) / epsilon_i``
(McSherry and Talwar, Theorem 8), where ``r`` is the smallest rank error of any grid point
(about the count between two neighbouring grid points). The error is in *ranks*: it is small
when ``n epsilon_i = n epsilon / (k d)`` is large against ``2 ln K`` (14 for ``K = 1000``);
below that the release is close to uniform over the bounds. The grid's spacing ``(u_j - l_j) /
(K - 1)`` adds a value error of at most one step. A value that occurs many times is returned
exactly only if it is a grid point (the bounds always are; for integer data, a ``grid_size`` of
``u - l + 1`` puts every integer on the grid).

**Extreme levels are badly estimated** (the reason for :class:`MinMaxScaler`'s default). At
``q = 0`` every grid point below the smallest value has the best score, 0, so the "private
minimum" is close to uniform on ``[l_j, min_i x_ij]``: its error is of the order of the gap
between the declared lower bound and the data, whatever ``epsilon`` and ``n``; symmetrically at
``q = 1``. At ``q = 0.01`` the candidates below the data score ``-0.01 n``, a margin that
outweighs them only when ``0.01 n epsilon_i / 2`` is well above ``ln K``; the error then
shrinks with ``n epsilon`` down to the distance between the 1% quantile and the minimum.

Measured (``python benches/quantile_scalers.py``, 20 seeded fits per cell, ``grid_size=1000``):
the mean over features of ``(|data_min_ - min| + |data_max_ - max|) / 2`` relative to the true
range ``max - min`` (scikit-learn's statistics), for four ``quantile_range`` values:

==============================  =======  =====  ========  =====  =====
data (bounds)                   epsilon  0-100  0.1-99.9  1-99   5-95
==============================  =======  =====  ========  =====  =====
warfarin age/height/weight      0.1      0.238  0.250     0.225  0.287
(n = 4819, [-5, 8])             1        0.218  0.225     0.220  0.300
warfarin, all 14 (0/1: [0, 1])  0.1      0.265  0.266     0.272  0.275
                                1        0.144  0.135     0.163  0.192
normal (n = 5000, d = 5, +-6)   0.1      0.145  0.137     0.148  0.184
                                1        0.127  0.135     0.158  0.280
normal, loose bounds +-20       0.1      0.947  0.970     0.904  0.961
                                1        1.032  0.983     0.878  0.281
uniform on the bounds [0, 1]    0.1      0.037  0.040     0.044  0.070
                                1        0.004  0.004     0.012  0.052
log-normal ([0, 50])            0.1      0.193  0.196     0.217  0.247
                                1        0.172  0.168     0.245  0.436
==============================  =======  =====  ========  =====  =====

The three ranges up to ``(1, 99)`` are within the noise of each other in total (3.52, 3.51 and
3.49 summed over the rows); ``(1, 99)`` was chosen because it is the best on the loose bounds
(the common case when bounds come from domain knowledge), its error shrinks with ``n epsilon``
(that of ``(0, 100)`` does not), and it cuts only 2% of the values. ``(5, 95)`` wins only with
loose bounds at the larger epsilon. With loose bounds or a small ``n epsilon / d`` use a
narrower range (e.g. ``(5.0, 95.0)``); ``clip=True`` keeps the transformed values inside
``feature_range``. :class:`RobustScaler` (levels 25 / 50 / 75) had, at ``epsilon = 1``, a
``center_`` error of 0.01 to 0.09 of scikit-learn's ``scale_`` and a relative ``scale_`` error
of 0.02 to 0.13 on the same data; at ``epsilon = 0.1`` (``n epsilon / (k d)`` of 33 to 54
ranks) its ``scale_`` was off by 16% (uniform on the bounds) to a factor 9 (loose bounds):
unusable there. ``grid_size=1000`` was kept over 100 and 300: it was as good or better at
``epsilon = 1`` (RobustScaler with bounds ``+-20``: ``center_`` error 0.009 against 0.14 with
100 candidates); at ``epsilon = 0.1`` a coarser grid was better for RobustScaler's ``scale_``
(0.30 against 0.75 on warfarin) but no setting there is accurate.

Comparison: diffprivlib has no private ``MinMaxScaler`` or ``RobustScaler`` (its
``StandardScaler`` is the only private scaler); OpenDP offers quantiles by the exponential
mechanism on a user candidate set, which this mirrors with a fixed evenly spaced grid.

Which library does what: counting is numpy (exact integers); the draws are privlearn's exact
exponential-mechanism sampler (Rust core, through :func:`privlearn.mechanisms.exponential`); the
epsilon split is exact rational arithmetic (:class:`fractions.Fraction`); the input checks,
``feature_names_in_`` and the transformer plumbing are scikit-learn's; ``Phi^-1`` is SciPy's
``norm.ppf``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin

from .._private_quantile import _SCALE, _target
from .._validate import check_boolean, check_epsilon, check_integer, check_real
from ..accounting._accountant import check_accountant
from ..accounting._numerics import _float_down
from ..errors import InvalidParameterError
from ._base import PrivateTransformerMixin
from ._scaler import _bounds_arg, per_feature_bounds

__all__ = ["MinMaxScaler", "RobustScaler"]

#: Default number of evenly spaced candidates per feature (public; an accuracy knob only).
DEFAULT_GRID_SIZE = 1000
#: :class:`MinMaxScaler`'s default ``quantile_range`` (percentages), chosen by measurement on
#: the warfarin features and synthetic data (module docstring, "Accuracy and defaults").
DEFAULT_MINMAX_RANGE = (1.0, 99.0)
#: Smallest and largest ``grid_size`` accepted.
MIN_GRID_SIZE, MAX_GRID_SIZE = 2, 1_000_000


# --------------------------------------------------------------------------------------------
# The mechanism: one private quantile of one feature on a public evenly spaced grid
# --------------------------------------------------------------------------------------------


def quantile_grid(lower: Any, upper: Any, size: int) -> np.ndarray:
    """The public candidates ``l + (k (u - l)) / (size - 1)``, ``k = 0 .. size - 1``, for scalar
    or per-feature bounds (shape ``(size,)`` or ``(d, size)``), the last point ``u`` exactly. A
    function of the bounds and ``size`` only."""
    lo = np.asarray(lower, dtype=np.float64)[..., None]
    hi = np.asarray(upper, dtype=np.float64)[..., None]
    with np.errstate(over="ignore", invalid="ignore"):
        grid = lo + (np.arange(size, dtype=np.float64) * (hi - lo)) / (size - 1)
    grid[..., -1] = hi[..., 0]
    return np.minimum(grid, hi)


def quantile_scores(below: np.ndarray, at_or_below: np.ndarray, n: int, level: float) -> np.ndarray:
    """The integer scores ``-max(2^10 c_< - 2^10 t, 2^10 t - 2^10 c_<=, 0)`` (int64) of the
    utility of the module docstring, from the counts ``c_<(g) = #{i : clip(x_i) < g}`` and
    ``c_<=(g) = #{i : clip(x_i) <= g}`` at the grid points; ``2^10 t`` is ``q n 2^10``
    rounded (the target and the unit are those of :mod:`privlearn._private_quantile`)."""
    t = _target(level, n)
    lower = np.asarray(below, dtype=np.int64) * _SCALE - t
    upper = t - np.asarray(at_or_below, dtype=np.int64) * _SCALE
    return -np.maximum(np.maximum(lower, upper), 0)


def _release_quantiles(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    grids: np.ndarray,
    levels: Sequence[float],
    share: float,
    rng: Any,
) -> np.ndarray:
    """``(d, k)`` grid points: for each feature and level, the exponential mechanism's draw on
    the scores of :func:`quantile_scores` (sensitivity ``2^10``, ``epsilon = share``). Nothing
    is charged (the caller charges the composed event)."""
    from ..mechanisms import exponential

    n, d = X.shape
    out = np.empty((d, len(levels)), dtype=np.float64)
    columns = np.sort(np.clip(X, lo, hi), axis=0)
    for j in range(d):
        column = np.ascontiguousarray(columns[:, j])
        below = np.searchsorted(column, grids[j], side="left")
        at_or_below = np.searchsorted(column, grids[j], side="right")
        for m, level in enumerate(levels):
            scores = quantile_scores(below, at_or_below, n, level)
            index = exponential(scores, share, float(_SCALE), rng=rng, numerics="exact")
            out[j, m] = grids[j][int(index)]
    return out


# --------------------------------------------------------------------------------------------
# Parameter checks (before any data are read)
# --------------------------------------------------------------------------------------------


def _pair(value: object, name: str) -> Tuple[float, float]:
    """A pair of finite numbers."""
    items: Tuple[Any, ...]
    try:
        items = tuple(value)  # type: ignore[arg-type]
    except TypeError:
        items = ()
    if len(items) != 2:
        raise InvalidParameterError(f"{name}: must be a pair of numbers; got {value!r}", name)
    try:
        a = check_real(items[0], name)
        b = check_real(items[1], name)
    except InvalidParameterError:
        raise InvalidParameterError(
            f"{name}: must be a pair of finite numbers; got {value!r}", name
        ) from None
    return a, b


def _quantile_range(value: object) -> Tuple[float, float]:
    """``(p_lo, p_hi)`` percentages with ``0 <= p_lo < p_hi <= 100``."""
    p_lo, p_hi = _pair(value, "quantile_range")
    if not 0.0 <= p_lo < p_hi <= 100.0:
        raise InvalidParameterError(
            "quantile_range: must be percentages (p_lo, p_hi) with 0 <= p_lo < p_hi <= 100; got "
            f"{value!r}",
            "quantile_range",
        )
    return p_lo, p_hi


def _grid_size(value: object) -> int:
    k = check_integer(value, "grid_size", MIN_GRID_SIZE)
    if k > MAX_GRID_SIZE:
        raise InvalidParameterError(f"grid_size: at most {MAX_GRID_SIZE}; got {k}", "grid_size")
    return k


def _checked_grid(lo: np.ndarray, hi: np.ndarray, size: int) -> np.ndarray:
    grid = quantile_grid(lo, hi, size)
    if not np.all(np.isfinite(grid)):
        raise InvalidParameterError(
            f"bounds: a range is too wide for grid_size={size} candidates in floating point",
            "bounds",
        )
    if not np.all(np.diff(grid, axis=-1) > 0):
        raise InvalidParameterError(
            f"bounds: a range is too small for grid_size={size} evenly spaced candidates in "
            "floating point (neighbouring candidates coincide); widen the bounds or lower "
            "grid_size",
            "bounds",
        )
    return grid


class _QuantileScaler(  # type: ignore[misc]
    PrivateTransformerMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    """Shared plumbing: parameter checks, the charge, the release of the quantile levels."""

    _label = ""

    epsilon: Any
    bounds: Any
    grid_size: Any
    accountant: Any
    rng: Any

    # Subclasses: the sorted distinct levels (percentages) a fit releases, from checked options.
    def _levels(self) -> List[float]:  # pragma: no cover - overridden
        raise NotImplementedError

    def _common(self) -> Tuple[float, np.ndarray, np.ndarray, int, np.ndarray]:
        eps = check_epsilon(self.epsilon, exact=True)
        lo, hi = _bounds_arg(self.bounds)
        size = _grid_size(self.grid_size)
        grid = _checked_grid(lo, hi, size)
        check_accountant(self.accountant)
        return eps, lo, hi, size, grid

    def privacy_guarantee(self, n_samples: int) -> Any:
        """``Budget(epsilon)``: what one fit on ``n_samples`` rows charges (pure, replace-one
        neighbours, ``n`` public), from the parameters only.

        Raises
        ------
        InvalidParameterError
            If a parameter is missing or invalid.
        """
        from ..accounting import Budget

        check_integer(n_samples, "n_samples", 1)
        self._levels()
        eps = self._common()[0]
        return Budget(eps)

    def _fit_levels(self, X: Any) -> Tuple[np.ndarray, List[float]]:
        """Check everything, read ``X``, release and charge; returns the ``(d, k)`` sorted
        released values and the levels (percentages, increasing)."""
        from ..accounting import Budget
        from ..accounting._event import PrivacyEvent
        from ..mechanisms import _charged
        from ..random import as_generator

        levels = self._levels()
        eps, lo, hi, size, grid = self._common()
        Xv = self._validate(X, reset=True)
        n, d = int(Xv.shape[0]), int(Xv.shape[1])
        lo_d, hi_d = per_feature_bounds(lo, hi, d)
        grids = np.broadcast_to(grid, (d, size))
        k = len(levels)
        share = _float_down(Fraction(eps) / (k * d))  # the largest float <= eps / (k d)
        if share <= 0.0:
            raise InvalidParameterError(
                f"epsilon: the share epsilon / ({k} levels x {d} features) rounds to 0",
                "epsilon",
            )
        quantiles = [p / 100.0 for p in levels]
        gen = as_generator(self.rng)

        def event() -> Any:
            return PrivacyEvent.repeated(
                PrivacyEvent.bounded_range(share), k * d, budget=Budget(eps)
            )

        def release() -> np.ndarray:
            return _release_quantiles(Xv, lo_d, hi_d, grids, quantiles, share, gen)

        values = _charged(self.accountant, eps, 0.0, self._label, release, event=event)
        self.n_samples_seen_ = n
        return np.sort(values, axis=1), levels

    def _check_fitted(self, attribute: str) -> None:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, attribute)

    def _transformed_input(self, X: Any) -> np.ndarray:
        """``X`` for :meth:`inverse_transform` (transformed data: column names unchecked)."""
        from sklearn.utils import check_array

        try:
            Xv = np.array(check_array(X, dtype=np.float64), copy=True)
        except (TypeError, ValueError) as err:
            raise InvalidParameterError(f"X: {err}", "X") from None
        if Xv.shape[1] != self.n_features_in_:
            raise InvalidParameterError(
                f"X: has {Xv.shape[1]} features, but {self._label} was fitted with "
                f"{self.n_features_in_}",
                "X",
            )
        return Xv


# --------------------------------------------------------------------------------------------
# MinMaxScaler
# --------------------------------------------------------------------------------------------


class MinMaxScaler(_QuantileScaler):
    r"""Scale each feature to ``feature_range`` by a private low and high quantile.

    A drop-in for :class:`sklearn.preprocessing.MinMaxScaler` whose ``data_min_`` and
    ``data_max_`` are private quantiles (by default the 1st and 99th percentiles, not the
    extremes: a private minimum is badly estimated, see the source module
    ``privlearn.preprocessing._quantile_scalers``), each chosen by the exponential mechanism
    with Smith's quantile utility on ``grid_size`` evenly spaced candidates inside the declared
    ``bounds`` (values beyond them count at the ends).

    **Guarantee.** ``fit`` is ``epsilon``-differentially private (pure): each of the ``2 d``
    quantiles is the exponential mechanism (McSherry and Talwar 2007, Theorem 6) with a utility
    of replace-one sensitivity 1, at ``epsilon / (2 d)`` (rounded down), and basic composition
    (Dwork and Roth, Theorem 3.14) gives the total; each part is also bounded-range (Durfee and
    Rogers 2019), the native event charged. Neighbours replace one row, ``n`` public; the
    guarantee holds with ``rng=None`` or an unseeded generator. ``transform`` reads only its own
    input and the released statistics.

    Parameters
    ----------
    epsilon : float
        Privacy parameter of one fit, finite and > 0. Required.
    bounds : (lower, upper)
        Declared range of every feature: two numbers (the same range for all features) or two
        arrays of length ``n_features``; ``upper > lower`` everywhere. The candidates lie in it
        and values are clipped to it. Required, no default.
    feature_range : (float, float), default (0, 1)
        Desired range of the transformed data, ``min < max``.
    quantile_range : (float, float), default (1.0, 99.0)
        Percentages ``(p_lo, p_hi)``, ``0 <= p_lo < p_hi <= 100``: the levels released as
        ``data_min_`` and ``data_max_``. ``(0, 100)`` asks for the private extremes, which are
        close to uniform between the data and the declared bounds (module docstring).
    clip : bool, default False
        Clip the transformed values to ``feature_range`` (scikit-learn's option; with private
        quantiles about ``p_lo + 100 - p_hi`` percent of the training values fall outside).
    grid_size : int, default 1000
        Number of evenly spaced candidates per feature (>= 2): finer candidates cost a rank
        error growing like ``ln(grid_size)``.
    accountant : Accountant, optional
        Charged once per fit (label ``"MinMaxScaler"``) only if the fit succeeds; a spend that
        does not fit raises ``BudgetExceededError`` before anything is drawn. Clones share it.
    rng : None, int or Generator, optional
        Randomness (:mod:`privlearn.random`); an integer seed is reproducible, not private.

    Attributes
    ----------
    data_min_ : ndarray of shape (n_features,)
        Private ``p_lo`` quantile (a grid point in the bounds), at most ``data_max_``.
    data_max_ : ndarray of shape (n_features,)
        Private ``p_hi`` quantile.
    data_range_ : ndarray of shape (n_features,)
        ``data_max_ - data_min_`` (may be 0).
    scale_ : ndarray of shape (n_features,)
        ``(max - min of feature_range) / data_range_``, with a zero range counted as 1.
    min_ : ndarray of shape (n_features,)
        ``feature_range[0] - data_min_ * scale_``.
    n_samples_seen_ : int
        Number of rows (public).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of a DataFrame input.

    Raises
    ------
    InvalidParameterError
        From ``fit``: a missing or invalid parameter (checked before ``X`` is read), or bad
        data (NaN, inf, not 2-d, empty, per-feature bounds of another length than the number of
        columns); nothing is drawn or charged.

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.preprocessing import MinMaxScaler
    >>> X = np.random.default_rng(0).uniform(2, 8, size=(20_000, 2))
    >>> sc = MinMaxScaler(1.0, bounds=(0.0, 10.0), rng=3).fit(X)  # seeded: not private
    >>> low, high = sc.data_min_, sc.data_max_  # about the 1st and 99th percentiles, 2.06 and 7.94
    >>> bool(np.allclose(low, 2.06, atol=0.05)), bool(np.allclose(high, 7.94, atol=0.05))
    (True, True)
    >>> Z = sc.transform(X)
    >>> bool(np.all((Z > -0.05) & (Z < 1.05)))
    True
    """

    _label = "MinMaxScaler"

    def __init__(
        self,
        epsilon: Optional[float],
        *,
        bounds: Any = None,
        feature_range: Tuple[float, float] = (0.0, 1.0),
        quantile_range: Tuple[float, float] = DEFAULT_MINMAX_RANGE,
        clip: bool = False,
        grid_size: int = DEFAULT_GRID_SIZE,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.bounds = bounds
        self.feature_range = feature_range
        self.quantile_range = quantile_range
        self.clip = clip
        self.grid_size = grid_size
        self.accountant = accountant
        self.rng = rng

    def _options(self) -> Tuple[Tuple[float, float], Tuple[float, float], bool]:
        f_lo, f_hi = _pair(self.feature_range, "feature_range")
        if not f_lo < f_hi:
            raise InvalidParameterError(
                f"feature_range: the minimum must be smaller than the maximum; got "
                f"{self.feature_range!r}",
                "feature_range",
            )
        return (f_lo, f_hi), _quantile_range(self.quantile_range), check_boolean(self.clip, "clip")

    def _levels(self) -> List[float]:
        return list(self._options()[1])

    def fit(self, X: Any, y: Any = None) -> "MinMaxScaler":
        """Release the private quantiles of ``X`` (``y`` is ignored), charging ``epsilon`` once.

        Raises
        ------
        InvalidParameterError
            On a bad or missing parameter (before ``X`` is read) or bad data; nothing is drawn
            or charged.
        BudgetExceededError
            If the accountant cannot pay; nothing is drawn.
        """
        (f_lo, f_hi), _, _ = self._options()
        values, _ = self._fit_levels(X)
        self.data_min_ = values[:, 0].copy()
        self.data_max_ = values[:, 1].copy()
        self.data_range_ = self.data_max_ - self.data_min_
        self.scale_ = (f_hi - f_lo) / np.where(self.data_range_ == 0.0, 1.0, self.data_range_)
        self.min_ = f_lo - self.data_min_ * self.scale_
        return self

    def transform(self, X: Any) -> np.ndarray:
        """``X * scale_ + min_``, clipped to ``feature_range`` with ``clip=True``."""
        self._check_fitted("scale_")
        Xv = np.array(self._validate(X, reset=False), copy=True)
        Xv *= self.scale_
        Xv += self.min_
        if check_boolean(self.clip, "clip"):
            f_lo, f_hi = self._options()[0]
            np.clip(Xv, f_lo, f_hi, out=Xv)
        return Xv

    def inverse_transform(self, X: Any) -> np.ndarray:
        """``(X - min_) / scale_``: undo :meth:`transform` (without the clipping)."""
        self._check_fitted("scale_")
        Xv = self._transformed_input(X)
        Xv -= self.min_
        Xv /= self.scale_
        return Xv


# --------------------------------------------------------------------------------------------
# RobustScaler
# --------------------------------------------------------------------------------------------


class RobustScaler(_QuantileScaler):
    r"""Centre each feature by a private median and scale it by a private interquantile range.

    A drop-in for :class:`sklearn.preprocessing.RobustScaler` whose ``center_`` and ``scale_``
    are post-processing of private quantiles, each chosen by the exponential mechanism with
    Smith's quantile utility on ``grid_size`` evenly spaced candidates inside the declared
    ``bounds`` (values beyond them count at the ends; details in the source module
    ``privlearn.preprocessing._quantile_scalers``). A fit releases ``k`` levels per feature:
    the median (``with_centering``) and the two ends of ``quantile_range`` (``with_scaling``),
    without repeats (``k`` is 3, 2 or 1).

    **Guarantee.** ``fit`` is ``epsilon``-differentially private (pure): each of the ``k d``
    quantiles is the exponential mechanism (McSherry and Talwar 2007, Theorem 6) with a utility
    of replace-one sensitivity 1, at ``epsilon / (k d)`` (rounded down), and basic composition
    (Dwork and Roth, Theorem 3.14) gives the total; each part is also bounded-range (Durfee and
    Rogers 2019), the native event charged. Neighbours replace one row, ``n`` public; the
    guarantee holds with ``rng=None`` or an unseeded generator. ``transform`` reads only its own
    input and the released statistics.

    Parameters
    ----------
    epsilon : float
        Privacy parameter of one fit, finite and > 0. Required.
    bounds : (lower, upper)
        Declared range of every feature: two numbers (the same range for all features) or two
        arrays of length ``n_features``; ``upper > lower`` everywhere. Required, no default.
    with_centering : bool, default True
        Release the median as ``center_`` and subtract it in ``transform``.
    with_scaling : bool, default True
        Release the ``quantile_range`` quantiles and divide by their difference. At least one
        of ``with_centering`` and ``with_scaling`` must be true.
    quantile_range : (float, float), default (25.0, 75.0)
        Percentages ``(p_lo, p_hi)``, ``0 <= p_lo < p_hi <= 100`` (scikit-learn's convention).
    unit_variance : bool, default False
        Divide ``scale_`` by ``Phi^-1(p_hi / 100) - Phi^-1(p_lo / 100)`` (standard normal
        quantiles), so that normal data get unit variance; needs ``0 < p_lo`` and ``p_hi <
        100``.
    grid_size : int, default 1000
        Number of evenly spaced candidates per feature (>= 2).
    accountant : Accountant, optional
        Charged once per fit (label ``"RobustScaler"``) only if the fit succeeds; a spend that
        does not fit raises ``BudgetExceededError`` before anything is drawn. Clones share it.
    rng : None, int or Generator, optional
        Randomness (:mod:`privlearn.random`); an integer seed is reproducible, not private.

    Attributes
    ----------
    center_ : ndarray of shape (n_features,) or None
        Private median (``None`` with ``with_centering=False``).
    scale_ : ndarray of shape (n_features,) or None
        Private ``p_hi`` quantile minus private ``p_lo`` quantile (sorted, so >= 0), 1 where it
        is 0, divided by the normal adjustment with ``unit_variance`` (``None`` with
        ``with_scaling=False``).
    n_samples_seen_ : int
        Number of rows (public).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of a DataFrame input.

    Raises
    ------
    InvalidParameterError
        From ``fit``: a missing or invalid parameter (checked before ``X`` is read), or bad
        data; nothing is drawn or charged.

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.preprocessing import RobustScaler
    >>> X = np.random.default_rng(0).normal(5.0, 2.0, size=(20_000, 2))
    >>> sc = RobustScaler(1.0, bounds=(-5.0, 15.0), unit_variance=True, rng=3).fit(X)
    >>> bool(np.allclose(sc.center_, 5.0, atol=0.1)), bool(np.allclose(sc.scale_, 2.0, atol=0.1))
    (True, True)
    """

    _label = "RobustScaler"

    def __init__(
        self,
        epsilon: Optional[float],
        *,
        bounds: Any = None,
        with_centering: bool = True,
        with_scaling: bool = True,
        quantile_range: Tuple[float, float] = (25.0, 75.0),
        unit_variance: bool = False,
        grid_size: int = DEFAULT_GRID_SIZE,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.bounds = bounds
        self.with_centering = with_centering
        self.with_scaling = with_scaling
        self.quantile_range = quantile_range
        self.unit_variance = unit_variance
        self.grid_size = grid_size
        self.accountant = accountant
        self.rng = rng

    def _options(self) -> Tuple[bool, bool, Tuple[float, float], bool]:
        centering = check_boolean(self.with_centering, "with_centering")
        scaling = check_boolean(self.with_scaling, "with_scaling")
        if not (centering or scaling):
            raise InvalidParameterError(
                "with_scaling: with_centering and with_scaling are both False, so a fit would "
                "release nothing; use 'passthrough' (or FunctionTransformer()) for the identity",
                "with_scaling",
            )
        qr = _quantile_range(self.quantile_range)
        unit = check_boolean(self.unit_variance, "unit_variance")
        if unit and scaling and not (qr[0] > 0.0 and qr[1] < 100.0):
            raise InvalidParameterError(
                "quantile_range: unit_variance needs 0 < p_lo and p_hi < 100 (the normal "
                f"quantile of 0 or 100 percent is infinite); got {self.quantile_range!r}",
                "quantile_range",
            )
        return centering, scaling, qr, unit

    def _levels(self) -> List[float]:
        centering, scaling, qr, _ = self._options()
        wanted = ([50.0] if centering else []) + (list(qr) if scaling else [])
        return sorted(set(wanted))

    def fit(self, X: Any, y: Any = None) -> "RobustScaler":
        """Release the private quantiles of ``X`` (``y`` is ignored), charging ``epsilon`` once.

        Raises
        ------
        InvalidParameterError
            On a bad or missing parameter (before ``X`` is read) or bad data; nothing is drawn
            or charged.
        BudgetExceededError
            If the accountant cannot pay; nothing is drawn.
        """
        centering, scaling, (p_lo, p_hi), unit = self._options()
        values, levels = self._fit_levels(X)
        self.center_: Optional[np.ndarray] = (
            values[:, levels.index(50.0)].copy() if centering else None
        )
        self.scale_: Optional[np.ndarray] = None
        if scaling:
            scale = values[:, levels.index(p_hi)] - values[:, levels.index(p_lo)]
            scale = np.where(scale == 0.0, 1.0, scale)
            if unit:
                from scipy.stats import norm

                scale = scale / (norm.ppf(p_hi / 100.0) - norm.ppf(p_lo / 100.0))
            self.scale_ = scale
        return self

    def transform(self, X: Any) -> np.ndarray:
        """``(X - center_) / scale_`` (each part only when released), as scikit-learn's."""
        self._check_fitted("n_samples_seen_")
        Xv = np.array(self._validate(X, reset=False), copy=True)
        if self.center_ is not None:
            Xv -= self.center_
        if self.scale_ is not None:
            Xv /= self.scale_
        return Xv

    def inverse_transform(self, X: Any) -> np.ndarray:
        """``X * scale_ + center_``: undo :meth:`transform`."""
        self._check_fitted("n_samples_seen_")
        Xv = self._transformed_input(X)
        if self.scale_ is not None:
            Xv *= self.scale_
        if self.center_ is not None:
            Xv += self.center_
        return Xv
