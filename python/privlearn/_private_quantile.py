r"""A differentially private quantile over a public grid: the exponential mechanism with Smith's
quantile utility and privlearn's far-tail guard (issue 19; moved below the algorithm families in
issue 22, so that the learners' private clipping bounds and the private preprocessing of
:mod:`privlearn.preprocessing` share one mechanism).

The learners' ``data_norm="private"`` / ``label_bound="private"`` (the budget plan, the measured
defaults and the charging are in ``privlearn.learners._private_bounds``) and the private
transformers of :mod:`privlearn.preprocessing` release their bounds with
:func:`private_quantile_bound` or :func:`private_quantile_from_counts`. Nothing here charges an
accountant: each caller charges the returned bounded-range event with its own release.

The mechanism (single quantile over a grid)
-------------------------------------------
Candidates: a public, data-independent grid ``g_1 < ... < g_K`` (:data:`DEFAULT_GRID` by
default). For ``n`` non-negative values ``v_i``, a quantile ``q`` and the counts
``c(x) = #{i : v_i <= x}``, the utility of a candidate is the **guarded** quantile utility

.. math:: u(g) = -\max\left(\left|\, c(g) - t \,\right|,\; a(g),\; b(g)\right),
          \qquad t \approx q n,

          a(g) = \#\{i : 2^B g < v_i \le g_K\}, \qquad b(g) = \#\{i : 2^{-B} g_1 < v_i \le 2^{-B} g\},

with ``B =`` :data:`GUARD_DOUBLINGS` (public), and the output is ``g_k`` with probability
proportional to :math:`\exp(\varepsilon u(g_k)/2)`: the exponential mechanism of McSherry and
Talwar ("Mechanism design via differential privacy", FOCS 2007, Theorem 6) with sensitivity 1.
The first term is the quantile utility of Smith ("Privacy-preserving statistical estimation with
optimal convergence rates", STOC 2011, Section 3), here on a finite grid instead of the
intervals between data points (so no public data range and no sampling inside an interval are
needed). **The two guard terms are privlearn's own addition** (issue 19; not from a paper):
``a(g)`` counts the values more than ``2^B`` times above ``g`` and ``b(g)`` those at most
``2^-B g``, so a candidate that lies more than ``B`` doublings below every value, or at least
``B`` doublings above every value, scores ``-n`` instead of the plain utility's ``-q n`` /
``-(1 - q) n`` (see "The guard" below). Both count only values inside ``(2^-B g_1, g_K]``
(``a(g) = max(c(g_K) - c(2^B g), 0)``, ``b(g) = c(2^-B g) - c(2^-B g_1)``): values beyond the
grid's reach are left to the plain term, so a quantile outside the grid still gives the flat
top or bottom of "Known weaknesses" (1) instead of a guard that every candidate fails alike.
Inside that range the two terms are ``n - c(2^B g)`` and ``c(2^-B g)``.

**Sensitivity (replace-one, n public): exactly 1.** Replacing one value ``v_j`` by ``v_j'``
changes every count ``c(x)`` at a fixed point ``x`` by ``[v_j' <= x] - [v_j <= x]``, an element
of ``{-1, 0, 1}``; more generally the number of values in a fixed set moves by at most 1 (one
record's membership changes). The points ``g``, ``2^B g``, ``2^-B g``, ``g_K`` and ``2^-B g_1``
are public (functions of the grid and ``B`` only) and so is the target ``t`` (a function of
``q`` and ``n``). Hence each of the three terms moves by at most 1: ``| |c - t| - |c' - t| | <=
|c - c'| <= 1`` (reverse triangle inequality), and ``a(g)`` and ``b(g)`` are the numbers of
values in the fixed intervals ``(2^B g, g_K]`` and ``(2^-B g_1, 2^-B g]``. The
maximum of functions that each move by at most 1 moves by at most 1 (if ``a_k' <= a_k + 1`` for
every ``k`` then ``max a' <= max a + 1``, and symmetrically), so ``|u(g) - u'(g)| <= 1`` for
every ``g``. The bound is attained (``v_j = 0`` replaced by ``v_j' > 2^B g_K`` moves every
count by one, and a candidate with ``c(g) >= t + 1`` whose near term is the largest then moves
by exactly one). Under add/remove neighbours ``t = q n`` moves as well and the plain
utility's sensitivity is ``max(q, 1 - q)`` (Gillenwater, Joseph and Kulesza, ICML 2021); that
notion is not the library's default and is not offered here. The counts move monotonically, but
``|c - t|`` is not monotone in ``c``, so the factor-2 saving of a monotone utility does not
apply.

**Guarantee.** The release is ``epsilon``-DP (pure, replace-one neighbours, ``n`` public), and
more precisely ``epsilon``-bounded-range (Durfee and Rogers, "Practical differentially private
top-k selection with pay-what-you-get composition", NeurIPS 2019): its native event is
``PrivacyEvent.bounded_range(epsilon)``, which the accountants compose tighter than pure DP
(``epsilon^2/8``-zCDP). The functions here charge nothing: the calling learner charges the event
returned, as one part of its composite release. The guarantee holds only with an unseeded
``rng``.

**Numerics.** ``t`` is ``q n`` rounded to the nearest multiple of ``2^-10`` (public: it depends
on ``q`` and ``n`` only), and the scores are passed to :func:`privlearn.mechanisms.exponential`
as the integers ``-max(|2^10 c(g) - 2^10 t|, 2^10 (n - c(2^B g)), 2^10 c(2^-B g))`` with
sensitivity ``2^10`` and ``numerics="exact"``: integer scores are sampled exactly (no score
grid, no rounding of a probability), so the output law is exactly ``exp(epsilon u / 2)`` up to
the sampler's rate rounded *down* (a smaller privacy loss) and its ``e^-700`` clamp. Moving ``t``
by at most ``2^-11`` changes no sensitivity and no guarantee. The counts at the guard points are
taken at :func:`count_points` ``(grid)`` (the grid and ``2^(+-B)`` times it, all public), on
numpy input by ``searchsorted`` and on Dask input by the same blockwise pass that counts at the
grid (:func:`~._suffstats.norm_counts`); nothing else is read, so the analysis above covers both.

The guard
---------
Beyond the data the plain utility ``-|c(g) - t|`` is flat: every grid point above the largest
value scores ``-(n - t)`` and every point below the smallest ``-t``. The default grid has 319
points over twelve decades, so a flat tail holds 100-300 of them, and its total probability is
about ``K_tail exp(-epsilon (min(q, 1 - q) n - r) / 2)`` (``r`` below): on scikit-learn's
diabetes data (``n = 354``) at the plan's share for ``epsilon = 0.5`` that was ``2.8e-3`` per
bound per fit (issue 19, helper H4), and a bound at ``1e-4`` or ``1e8`` makes a regression fit
explode (MSE ``1e9`` to ``1e20``). With the guard, when every value lies in ``(2^-B g_1,
g_K]`` (on the default grid ``(6.25e-6, 1e8]``), a candidate ``g`` with ``2^B g < min_i v_i``
or ``2^-B g >= max_i v_i`` scores exactly ``-n``. **Far-tail bound.** Let ``r = -max_k u(g_k)``
(the best score's distance from 0) and ``F`` the set of grid points with ``u = -n``; the
normaliser is at least ``exp(-epsilon r / 2)``, so

.. math:: P(\text{output} \in F) \le |F| \, e^{-\varepsilon (n - r)/2} \le K e^{-\varepsilon (n - r)/2}.

``r`` depends on the data: for any grid point ``g_0``, ``r <= max(|c(g_0) - t|, a(g_0),
b(g_0))``; if the values lie within ``B`` doublings of a grid point ``g_0`` next to
the quantile, ``r`` is at most the count between two neighbouring grid points. (The plain
utility's far points score ``-min(t, n - t)``, so its bound is ``K exp(-epsilon (min(q, 1 - q)
n - r_0) / 2)``: the guard replaces ``min(q, 1 - q) n`` by ``n`` in the exponent.)
:func:`far_tail_probability` computes the exact probability from the law (for tests and
measurements; it reads the values, so it is not a release). The points between the data's range
and ``B`` doublings beyond it still have intermediate scores (the guard ramps up there).

**Distortion.** The guard can bind near the target: at the quantile ``g*`` the score is ``-max(|c
- t|, a(g*), b(g*))``, so when more values than the rank error lie ``B``
doublings below ``g*`` (labels dense near 0) the mode moves down, and when many lie ``B``
doublings above (norms spread over decades) it moves up, towards the bulk of the data. The
output's rank error is then about the guard count at the quantile: small at the quantiles the
learners use (0.25 to 0.75; 0.011 on log-normal ``sigma = 1`` values, ``n = 20000``), large at
extreme ones (the 0.99-quantile of the same values came out at rank 0.91, where 7% of the
values lie 16 times below it): not suited to extreme quantiles of widely spread values.

Choosing B
----------
``B`` was chosen on synthetic data only, from the exact law (script ``choose_b.py`` in the issue
19 notes of helper H5), never on the experiment's splits: six families (``|N(0, 1)|``,
``|t_3|`` and uniform labels at the label quantile, chi norms with 10 degrees of freedom,
log-normal norms with ``sigma = 1`` and ``2`` at the norm quantile), ``n = 354`` and ``3000``,
:func:`bounds_plan`'s shares for ``epsilon = 0.5, 1, 2, 5``. Criterion: the smallest ``B`` (the
strongest guard) for which the mean quantile level ``E[c(G)/n]`` of the guarded law moves by at
most 0.05 from the plain law's on every family with a moderate spread (all but log-normal
``sigma = 2``); 0.05 is below the resolution on which the default quantiles were measured (steps
of 0.15 or more, "Recommended defaults"). Largest moves: ``B = 3``: 0.165 (``|t_3|``, ``n =
3000``, ``epsilon = 5``); ``B = 4``: 0.035; ``B = 5``: 0.015. Far-tail probability (below a
quarter of the smallest value or above four times the largest) at ``n = 354``, ``epsilon =
0.5``: plain 5e-4 to 7e-3 per bound; ``B = 3``: at most 5e-5; ``B = 4``: at most 4e-4 (chi
norms; 4e-6 on ``|N(0, 1)|`` labels); ``B = 5``: at most 8e-4. Log-normal norms with ``sigma = 2``
(values over about four decades) are moved by 5 to 9 grid steps upwards (to a larger bound) at
every ``B <= 5``: a known distortion for data spread over many decades.

Accuracy and the grid
---------------------
:data:`DEFAULT_GRID` is ``2^(k/8)`` for every integer ``k`` with ``1e-4 <= 2^(k/8) <= 1e8``
(``k = -106 ... 212``, 319 points): two neighbouring points differ by the factor
``2^(1/8) ~ 1.0905``, so rounding a quantile up to the grid costs at most 9% of the bound. The
released point ``g`` satisfies, with probability at least ``1 - beta``,
``|c(g) - q n| <= -u(g) <= r + 2 (ln K + ln(1/beta)) / epsilon`` (McSherry and Talwar, Theorem 8,
with ``r = -max u`` as in "The guard"; ``K = 319`` gives ``2 (5.77 + ln(1/beta)) / epsilon``
ranks beyond ``r``): the *rank* error is what is controlled, so a small ``n epsilon`` gives a
poor quantile. **Known weaknesses.** (1) A quantile outside the
grid cannot be returned: if it lies above ``g_K`` the best candidates are the points at or above
the largest value within the grid (all with the same utility), so the output is ``g_K`` or
another point of that flat top, and a norm above ``1e8`` is always clipped; symmetrically below
``1e-4``; if no value falls inside the grid at all, every candidate has the same utility and
the output is uniform on the grid. (2) Within ``B`` doublings beyond the data the guard only
ramps up (see "The guard"), and the far tail is small only when ``epsilon (n - r) / 2`` is well
above ``ln K ~ 5.8``. Rescale the data to units of order one, or pass a narrower ``grid`` (it
must still be chosen without looking at the data). The grid is public: a
grid built from the data would void the guarantee.

Which library does what: counting is numpy (``searchsorted`` on the sorted values, exact
integers); the draw is privlearn's exact exponential-mechanism sampler (Rust core), because a
floating-point softmax is not floating-point safe (Ilvento, CCS 2020); the epsilon split is
exact rational arithmetic (:class:`fractions.Fraction`).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Optional, Tuple

import numpy as np

from ._validate import check_epsilon, check_integer, check_real
from .accounting._numerics import _float_down
from .errors import InvalidParameterError
from .mechanisms import exponential

if TYPE_CHECKING:
    from .accounting._event import PrivacyEvent
    from .random import RngLike

__all__ = [
    "DEFAULT_GRID",
    "GUARD_DOUBLINGS",
    "check_grid",
    "check_quantile",
    "count_points",
    "far_tail_probability",
    "geometric_grid",
    "guarded_scores",
    "private_quantile_bound",
    "private_quantile_from_counts",
    "split_epsilon",
]

#: Steps per doubling of :data:`DEFAULT_GRID` (ratio ``2^(1/8)`` between neighbours).
GRID_STEPS_PER_DOUBLING = 8
#: Range covered by :data:`DEFAULT_GRID`.
GRID_LOW, GRID_HIGH = 1e-4, 1e8

#: ``B`` of the guarded utility (module docstring, "The guard"): a grid point scores ``-n`` when
#: every value lies more than ``2^B`` times above it or at least ``2^B`` times below it. Chosen on
#: synthetic data only (see "Choosing B"): the smallest ``B`` whose distortion of the quantile
#: stays within 0.05 in quantile level.
GUARD_DOUBLINGS = 4

# Scores are integers in units of 2^-SCALE_BITS of a count (see the module docstring).
_SCALE_BITS = 10
_SCALE = 1 << _SCALE_BITS


def geometric_grid(
    low: float = GRID_LOW,
    high: float = GRID_HIGH,
    steps_per_doubling: int = GRID_STEPS_PER_DOUBLING,
) -> np.ndarray:
    """The public geometric grid ``2^(k / steps_per_doubling)`` for every integer ``k`` with
    ``low <= 2^(k / steps_per_doubling) <= high`` (float64, strictly increasing).

    Each point is ``2^(r / s) * 2^m`` (``k = m s + r``, ``0 <= r < s``) computed with
    :func:`math.ldexp`, so the grid is the same on every machine. It depends only on its
    arguments, never on data."""
    lo = check_real(low, "low", 0.0, lo_open=True)
    hi = check_real(high, "high", lo)
    s = check_integer(steps_per_doubling, "steps_per_doubling", 1)
    roots = [2.0 ** (r / s) for r in range(s)]
    k_lo = math.floor(math.log2(lo) * s) - 1
    k_hi = math.ceil(math.log2(hi) * s) + 1
    points = []
    for k in range(k_lo, k_hi + 1):
        m, r = divmod(k, s)
        g = math.ldexp(roots[r], m)
        if lo <= g <= hi:
            points.append(g)
    return np.array(points, dtype=np.float64)


#: The default public grid: ``2^(k/8)`` from ``1e-4`` to ``1e8`` (319 points, ratio ~1.0905).
DEFAULT_GRID: np.ndarray = geometric_grid()
DEFAULT_GRID.setflags(write=False)


# --------------------------------------------------------------------------------------------
# Parameter checks (before any data are read)
# --------------------------------------------------------------------------------------------


def check_quantile(quantile: object) -> float:
    """A quantile in the open interval (0, 1)."""
    return check_real(quantile, "quantile", 0.0, 1.0, lo_open=True, hi_open=True)


def check_grid(grid: object) -> np.ndarray:
    """``None`` (the default grid) or a non-empty 1-D array of finite, strictly increasing
    numbers > 0."""
    if grid is None:
        return DEFAULT_GRID
    try:
        g = np.asarray(grid, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError("grid: must be a 1-D array of numbers", "grid") from None
    if g.ndim != 1 or g.size == 0:
        raise InvalidParameterError(
            f"grid: must be a non-empty 1-D array; got shape {g.shape}", "grid"
        )
    if not np.all(np.isfinite(g)) or not np.all(g > 0):
        raise InvalidParameterError("grid: every point must be finite and > 0", "grid")
    if g.size > 1 and not np.all(np.diff(g) > 0):
        raise InvalidParameterError("grid: must be strictly increasing", "grid")
    return g


def split_epsilon(
    epsilon: float, fraction: float, parts: int = 1
) -> Tuple[Tuple[float, ...], float]:
    """Split ``epsilon`` into ``parts`` equal shares taking ``fraction`` of it together (the
    private quantiles of a release), and the rest (moved here from the learners' private bounds
    in issue 22, so that the private preprocessing shares it).

    Returns ``(shares, rest)``: ``shares`` is a tuple of ``parts`` equal floats, each the largest
    float at most ``epsilon * fraction / parts`` (exact rationals), and ``rest`` is the largest
    float at most ``epsilon - sum(shares)``. So the exact sum ``sum(shares) + rest`` is at most
    ``epsilon`` (every share is rounded down), and falls short of it by a few ulps at most.

    Raises
    ------
    InvalidParameterError
        ``epsilon`` not finite and > 0, ``fraction`` outside (0, 1), ``parts`` not an integer
        >= 1, or a share that rounds down to 0.
    """
    e = Fraction(check_epsilon(epsilon, exact=True))
    f = Fraction(check_real(fraction, "fraction", 0.0, 1.0, lo_open=True, hi_open=True))
    k = check_integer(parts, "parts", 1)
    share = _float_down(e * f / k)
    rest = _float_down(e - k * Fraction(share))
    if share <= 0.0 or rest <= 0.0:
        raise InvalidParameterError(
            "fraction: the split leaves a share of epsilon that rounds to 0", "fraction"
        )
    return (share,) * k, rest


# --------------------------------------------------------------------------------------------
# The mechanism
# --------------------------------------------------------------------------------------------


def _target(quantile: float, n: int) -> int:
    """``q n`` in units of ``2^-10``, rounded to the nearest integer (exact rationals)."""
    return round(Fraction(quantile) * n * _SCALE)


def _bounded_range(epsilon: float) -> "PrivacyEvent":
    from .accounting._event import PrivacyEvent

    return PrivacyEvent.bounded_range(epsilon)


def private_quantile_from_counts(
    counts_below: Any,
    n: int,
    *,
    quantile: float,
    epsilon: float,
    rng: "RngLike" = None,
    grid: Optional[Any] = None,
) -> Tuple[float, "PrivacyEvent"]:
    r"""The private ``quantile`` from the counts ``counts_below[k] = #{i : v_i <= grid[k]}``.

    Same mechanism, guarantee and output law as :func:`private_quantile_bound`, for callers that
    compute the counts themselves (blockwise on a Dask array, for instance): the counts must be
    those of ``n`` values at the points :func:`count_points` ``(grid)`` (the public grid and
    its guard points). Nothing is charged.

    Parameters
    ----------
    counts_below : array_like of int, shape (len(count_points(grid)),)
        Non-decreasing integers in ``[0, n]``, one per point of ``count_points(grid)``.
    n : int
        The (public) number of values, >= 1.
    quantile : float
        In (0, 1).
    epsilon : float
        Finite and > 0: the release is ``epsilon``-DP (bounded range), replace-one.
    rng : None, int or Generator, optional
        See :mod:`privlearn.random`. Private only when unseeded.
    grid : array_like, optional
        The public grid (default :data:`DEFAULT_GRID`).

    Returns
    -------
    (float, PrivacyEvent)
        The chosen grid point and ``PrivacyEvent.bounded_range(epsilon)``.
    """
    q = check_quantile(quantile)
    eps = check_epsilon(epsilon, exact=True)
    g = check_grid(grid)
    nn = check_integer(n, "n", 1)
    c = _counts_arg(counts_below, _point_layout(g.tobytes())[0].size, nn)
    return _release(c, nn, q, eps, g, rng)


def private_quantile_bound(
    values: Any,
    *,
    quantile: float,
    epsilon: float,
    rng: "RngLike" = None,
    grid: Optional[Any] = None,
) -> Tuple[float, "PrivacyEvent"]:
    r"""A private ``quantile`` of non-negative ``values`` (row norms, absolute labels), as a
    point of a public grid: the exponential mechanism with the guarded utility
    ``-max(|c(g) - q n|, a(g), b(g))``, ``c(x) = #{i : v_i <= x}``, ``a(g) = #{i : 2^B g < v_i
    <= g_K}``, ``b(g) = #{i : 2^-B g_1 < v_i <= 2^-B g}`` (see the module
    docstring for the derivation of its replace-one sensitivity, 1, and the far-tail bound).

    **Guarantee:** ``epsilon``-DP, pure, replace-one neighbours with ``n`` public;
    ``epsilon``-bounded-range (McSherry and Talwar 2007, Theorem 6; Durfee and Rogers 2019).
    **Nothing is charged**: the caller charges the returned event as part of its release.

    Parameters
    ----------
    values : array_like, shape (n,)
        Finite numbers >= 0, n >= 1.
    quantile : float
        In (0, 1); the target rank is ``quantile * n``.
    epsilon : float
        Finite and > 0.
    rng : None, int or Generator, optional
        See :mod:`privlearn.random`. Private only when unseeded; pass the learner's Generator.
    grid : array_like, optional
        A public, strictly increasing grid of numbers > 0 (default :data:`DEFAULT_GRID`); it
        must not be derived from the data.

    Returns
    -------
    (float, PrivacyEvent)
        The chosen grid point (use it as the clipping bound) and the release's native event
        ``PrivacyEvent.bounded_range(epsilon)``.

    Raises
    ------
    InvalidParameterError
        Empty, non-1-D, non-finite or negative ``values``; ``quantile`` outside (0, 1);
        ``epsilon`` not finite and > 0; a bad ``grid``. Nothing is drawn. (The check of the
        values reads the data: its message carries no value of them.)

    Examples
    --------
    >>> import numpy as np
    >>> norms = np.linspace(0.0, 10.0, 1001)
    >>> bound, event = private_quantile_bound(norms, quantile=0.9, epsilon=1.0, rng=0)
    >>> 7.0 < bound < 11.0  # seeded: reproducible, not private
    True
    """
    q = check_quantile(quantile)
    eps = check_epsilon(epsilon, exact=True)
    g = check_grid(grid)
    v = _values_arg(values)
    counts = np.searchsorted(np.sort(v), count_points(g), side="right").astype(np.int64)
    return _release(counts, int(v.size), q, eps, g, rng)


def _values_arg(values: Any) -> np.ndarray:
    try:
        v = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError("values: must be a 1-D array of numbers", "values") from None
    if v.ndim != 1 or v.size == 0:
        raise InvalidParameterError(
            f"values: must be a non-empty 1-D array; got shape {v.shape}", "values"
        )
    if not np.all(np.isfinite(v)):
        raise InvalidParameterError("values: must be finite (no NaN or infinity)", "values")
    if np.any(v < 0):
        raise InvalidParameterError("values: must be >= 0 (row norms or absolute labels)", "values")
    return v


def _counts_arg(counts: Any, k: int, n: int) -> np.ndarray:
    c = np.asarray(counts)
    if c.shape != (k,):
        raise InvalidParameterError(
            f"counts_below: must have one count per point of count_points(grid), shape ({k},); "
            f"got {c.shape}",
            "counts_below",
        )
    if c.dtype.kind not in "iu":
        if c.dtype.kind != "f" or not np.all(np.isfinite(c)) or not np.all(c == np.round(c)):
            raise InvalidParameterError("counts_below: must be integers", "counts_below")
    c = c.astype(np.int64)
    if np.any(c < 0) or np.any(c > n) or (k > 1 and np.any(np.diff(c) < 0)):
        raise InvalidParameterError(
            "counts_below: must be non-decreasing integers in [0, n]", "counts_below"
        )
    return c


def count_points(grid: Optional[Any] = None) -> np.ndarray:
    """The public points at which the guarded utility needs counts: the grid ``g`` together with
    ``2^B g`` and ``2^-B g`` (``B =`` :data:`GUARD_DOUBLINGS`; the power-of-two scalings of
    :func:`numpy.ldexp`, exact for every normal result; a point that would overflow is the
    largest float, where the count of finite values is ``n`` as at infinity), sorted, without
    repeats. A function of the public grid only. On :data:`DEFAULT_GRID` (8 points per
    doubling) the scaled points are grid points except within ``B`` doublings of either end, so
    this adds ``2 * 8 * B`` points."""
    return _point_layout(check_grid(grid).tobytes())[0].copy()


def _guard_points(grid: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``(2^B g, 2^-B g)`` as :func:`count_points` defines them."""
    big = np.finfo(np.float64).max
    return np.minimum(np.ldexp(grid, GUARD_DOUBLINGS), big), np.ldexp(grid, -GUARD_DOUBLINGS)


@functools.lru_cache(maxsize=16)
def _point_layout(grid_bytes: bytes) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(points, i_g, i_hi, i_lo)`` for a checked grid given by its bytes: the count points and
    where ``g``, ``2^B g`` and ``2^-B g`` sit among them. A function of the public grid only,
    memoised (the grids are small and few: each fit used to rebuild it several times)."""
    g = np.frombuffer(grid_bytes, dtype=np.float64)
    hi, lo = _guard_points(g)
    points = np.unique(np.concatenate([g, hi, lo]))
    out = (points, *(np.searchsorted(points, x) for x in (g, hi, lo)))
    for a in out:
        a.flags.writeable = False
    return out  # type: ignore[return-value]


def _guard_counts(
    counts: np.ndarray, grid: np.ndarray
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(c(g), c(2^B g), c(2^-B g))`` picked from counts at :func:`count_points` ``(grid)``
    (every looked-up point is one of them, exactly)."""
    _, i_g, i_hi, i_lo = _point_layout(grid.tobytes())
    return counts[i_g], counts[i_hi], counts[i_lo]


def guarded_scores(
    c: np.ndarray, c_hi: np.ndarray, c_lo: np.ndarray, n: int, quantile: float
) -> np.ndarray:
    """The integer scores ``2^10 u(g)`` of the guarded utility (module docstring), from the
    counts ``c``, ``c_hi``, ``c_lo`` at ``g``, ``2^B g`` and ``2^-B g`` for every grid point
    (in grid order): ``-max(|2^10 c - 2^10 t|, 2^10 a(g), 2^10 b(g))`` (int64) with the guard
    counts ``a(g) = max(c(g_K) - c(2^B g), 0)`` and ``b(g) = c(2^-B g) - c(2^-B g_1)``."""
    t = _target(quantile, n)
    c, c_hi, c_lo = (np.asarray(x, dtype=np.int64) for x in (c, c_hi, c_lo))
    near = np.abs(c * _SCALE - t)
    above = np.maximum(c[-1] - c_hi, 0)  # #{2^B g < v <= g_K}
    below = c_lo - c_lo[0]  # #{2^-B g_1 < v <= 2^-B g}
    return -np.maximum(near, np.maximum(above, below) * _SCALE)


def far_tail_probability(
    values: Any, *, quantile: float, epsilon: float, grid: Optional[Any] = None, factor: float = 4.0
) -> float:
    """The exact probability (float64, from the law ``exp(epsilon u / 2)``, log-sum-exp) that
    :func:`private_quantile_bound` returns a grid point below ``min(values) / factor`` or above
    ``factor * max(values)``. **Reads the values without noise: a diagnostic for tests and
    measurements, never a release.**"""
    from scipy.special import logsumexp

    q = check_quantile(quantile)
    eps = check_epsilon(epsilon, exact=True)
    g = check_grid(grid)
    f = check_real(factor, "factor", 1.0)
    v = _values_arg(values)
    counts = np.searchsorted(np.sort(v), count_points(g), side="right").astype(np.int64)
    scores = guarded_scores(*_guard_counts(counts, g), int(v.size), q)
    logw = eps * scores.astype(np.float64) / (2.0 * _SCALE)
    logp = logw - logsumexp(logw)
    far = (g < v.min() / f) | (g > f * v.max())
    return float(np.exp(logsumexp(logp[far]))) if np.any(far) else 0.0


def _release(
    counts: np.ndarray, n: int, q: float, eps: float, grid: np.ndarray, rng: "RngLike"
) -> Tuple[float, "PrivacyEvent"]:
    """Draw from counts at :func:`count_points` ``(grid)``."""
    c, c_hi, c_lo = _guard_counts(counts, grid)
    scores = guarded_scores(c, c_hi, c_lo, n, q)
    index = exponential(scores, eps, float(_SCALE), rng=rng, numerics="exact")
    return float(grid[int(index)]), _bounded_range(eps)
