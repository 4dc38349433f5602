r"""AdaSSP: sufficient-statistics perturbation with a privately chosen ridge (Wang, "Revisiting
differentially private linear regression: optimal and adaptive prediction & estimation in
unconstrained optimization", UAI 2018, Algorithm 2; the privacy statement is the paper's
Theorem for Algorithm 2, proved there by the Gaussian mechanism and composition).

The algorithm (normalised units)
--------------------------------
Rows are clipped to the bound ``B_X`` (``data_norm``) and labels to ``B_Y`` (``label_bound``) by
:func:`privlearn.learners._suffstats.sufficient_statistics`; with ``fit_intercept=True`` the
constant column ``B_X`` is appended, so the augmented rows are bounded by ``sqrt(2) B_X``. The
statistics are divided by the squared row bound (``X^T X``) and by row bound times ``B_Y``
(``X^T y``): in these units every row has norm at most 1 and every label magnitude at most 1.
With ``p`` columns (``d`` features, plus one for the intercept):

1. ``lam_min = lambda_min(X^T X)`` (:func:`numpy.linalg.eigvalsh`, clamped at 0) is released
   with noise of scale ``s1`` and shifted down: ``lam~ = max(lam_min + noise - s1 z, 0)``, where
   ``z`` makes ``lam~ <= lam_min`` with probability ``1 - rho/2`` (Gaussian: ``z`` the standard
   normal ``1 - rho/2`` quantile; Laplace: ``z = ln(1/rho)``). Wang shifts by
   ``sqrt(log(6/delta))`` noise standard deviations instead, a far smaller failure
   probability; here the failure probability is the parameter ``rho`` throughout.
2. ``X^T X`` is released with symmetric noise ``E`` of scale ``s2`` and ``X^T y`` with noise
   of scale ``s3``.
3. The ridge ``lam = max(0, t - lam~)``, where ``t`` bounds the operator norm ``||E||`` with
   probability ``1 - rho/2``, so that ``X^T X + E + lam I`` is positive semi-definite with
   probability ``1 - rho`` (Wang's choice of lambda; the bound is expressed through the actual
   ``s2``):

   * Gaussian: ``E = s2 W`` with ``W`` the symmetric matrix whose diagonal is ``N(0, 1)`` and
     off-diagonal ``N(0, 1/2)`` (the layout ``(G + G^T)/2`` of Wang's reference code), a GOE
     matrix; ``E lambda_max(W) <= sqrt(2p)`` (Gordon/Slepian comparison, Davidson and Szarek,
     "Local operator theory, random matrices and Banach spaces", 2001, Theorem 2.11) and
     ``lambda_max`` is 1-Lipschitz in the underlying standard normal vector (the map is a
     Frobenius isometry), so ``t = s2 (sqrt(2p) + sqrt(2 ln(4/rho)))`` holds with probability
     ``1 - rho/2`` (both signs). Wang's ``sqrt(p ln(2 p^2 / rho))`` comes from a union bound over
     the entries and is about twice as large for ``p >= 15``.
   * Laplace: ``E`` has iid Laplace(``s2``) entries on and above the diagonal (variance
     ``2 s2^2``), mirrored; ``t = s2 (2 sqrt(2p) + 2 sqrt(ln(4/rho)))``: the semicircle edge
     ``2 sqrt(2p)`` plus a tail term. This one is not a proved bound, only checked by
     simulation (``p`` from 2 to 60); it only affects utility, never privacy.

4. ``theta = (X^T X + E + lam I)^{-1} (X^T y + noise)`` by :func:`numpy.linalg.lstsq` (SVD), which
   returns for every finite input (a singular or indefinite noisy matrix, which happens with
   probability at most ``rho``, gives the minimum-norm least-squares solution instead of an
   error): whether a fit succeeds never depends on the data.

Everything after the three noisy releases is post-processing.

Sensitivities (replace-one, ``n`` public), re-derived from the paper's add/remove values
--------------------------------------------------------------------------------------------
Wang's constants are the add/remove (zero-out) sensitivities ``B^2``, ``B^2`` and ``B_X B_Y``;
privlearn's neighbours replace one row ``(x, y)`` by ``(x', y')``. In normalised units
(``||x||, ||x'|| <= 1``, ``|y|, |y'| <= 1``), with ``M = x x^T - x' x'^T``:

* ``lambda_min(X^T X)``: **1**. Weyl's inequality: removing ``x' x'^T`` (PSD, norm
  ``||x'||^2 <= 1``) lowers no eigenvalue by more than 1 and raises none, adding ``x x^T``
  raises none by more than 1 and lowers none; so ``|lambda_min(A) - lambda_min(A')| <= 1``.
  Attained by ``A = diag(a, big)`` with ``a >= 1``, ``x = e_2``, ``x' = e_1``.
* ``X^T X`` (Gaussian, L2 of the Frobenius-isometric vector ``(M_ii; sqrt(2) M_ij, i < j)``,
  i.e. ``||M||_F``): ``||M||_F^2 = ||x||^4 + ||x'||^4 - 2 (x.x')^2 <= 2``: **sqrt(2)**, attained
  by ``x = e_1``, ``x' = e_2``. iid noise on that vector is the ``(G + G^T)/2`` layout above.
* ``X^T y`` (Gaussian, L2): ``||x y - x' y'|| <= ||x|| |y| + ||x'|| |y'| <= 2``: **2**, attained
  by ``x' = -x``, ``y' = y``.
* ``X^T X`` (Laplace, L1 of the upper triangle including the diagonal): write
  ``M = (a b^T + b a^T)/2`` with ``a = x + x'``, ``b = x - x'``. Then
  ``sum_{i,j} |M_ij| <= ||a||_1 ||b||_1 <= p ||a|| ||b||`` and ``sum_i |M_ii| = sum_i |a_i b_i|
  <= ||a|| ||b||``, so ``sum_{i<=j} |M_ij| = (sum_{i,j} |M_ij| + sum_i |M_ii|)/2 <= (p + 1)
  ||a|| ||b|| / 2 <= (p + 1) (||a||^2 + ||b||^2)/4 = (p + 1)(||x||^2 + ||x'||^2)/2``:
  **p + 1**. (Not tight: a numerical search finds about ``0.72 (p + 1)`` for ``p <= 5``; the
  constant is the proved one.)
* ``X^T y`` (Laplace, L1): ``||x y - x' y'||_1 <= ||x||_1 + ||x'||_1 <= 2 sqrt(p)``:
  **2 sqrt(p)**, attained by ``x = (1, ..., 1)/sqrt(p) = -x'``, ``y = y'``.
* ``lambda_min`` (Laplace, a scalar): **1**, as above.

Floating point (``u = 2^-53``, the unit roundoff). The statistics are exact sums ``S`` rounded
once to float64 and divided once by the normalising constant ``c`` (``fl(B B)``, ``fl(B C)``;
with the intercept ``B = fl(C_x fl(sqrt 2))``), which is public, the same on both sides, and
within a relative ``5u`` of its exact value; the Frobenius vector's off-diagonal coordinates are
then multiplied by ``fl(sqrt 2)``. (i) The exact ``S / c`` has sensitivity at most ``Delta (1 +
5u) + O(u^2)``, i.e. ``Delta`` plus at most ``7.1 u`` (``sqrt(2) 5u``, ``2 3u``). (ii) Each
computed coordinate is within a relative ``4u`` of ``S / c`` (sum, division, and for the
off-diagonal Frobenius coordinates the rounded ``sqrt 2`` and its product), and ``||S / c|| <=
n (1 + 5u)`` (``||X^T X||_F <= trace``, ``||X^T y|| <= sum ||x_i|| |y_i|``): both sides
together move by at most ``8.1 u n`` more. So two neighbours' computed statistics differ by at
most ``Delta + 15.2 u n < Delta + 16 u n = Delta + 2^-49 n`` (``n >= 1``; the ``0.8 u n`` left
over covers the absolute error of subnormal entries, at most ``p^2 2^-1074`` per side), which
is added to the L2 sensitivity the noise is calibrated to (:data:`FLOAT_SLACK` ``= 2^-49``). The
Laplace variant's L1 sensitivities get it as ``(p + 1)(1 + 2^-49 n)`` and ``2 sqrt(p) + 2^-49 n
p``: the L1 norms of the normalised statistics are at most ``p n`` and ``sqrt(p) n``, each
coordinate (no ``sqrt 2`` here) is within a relative ``2u`` on each side, and ``c``'s rounding
(``5u`` for ``X^T X``, ``3u`` for ``X^T y``) scales the exact sensitivity, so the excess is at
most ``4u p n + 5u (p + 1) <= 16 u n (p + 1)`` and ``4u sqrt(p) n + 6u sqrt(p) <= 16 u n p``.
The eigenvalue gets ``2^-44 p n`` (backward error of the symmetric eigensolver, generously).
These are data-independent (``n`` and ``p`` are public).

Calibration and guarantee
-------------------------
**Gaussian** (``noise="gaussian"``): ``(epsilon, delta)``-DP, replace-one, ``n`` public. The
statistics' share ``eps_s`` of ``epsilon`` (all of it unless a bound is private) gives the total
zCDP ``r = zcdp_rho_for(eps_s, delta)`` (:mod:`privlearn.accounting._calibrate`: the largest
``r`` whose Canonne-Kamath-Steinke conversion is at most ``(eps_s, delta)``), split with the
data-independent weights :data:`GAUSSIAN_WEIGHTS` into ``r_i``, and ``s_i = Delta_i /
sqrt(2 r_i)`` (slightly enlarged, :data:`GRID_MARGIN`, so that the exact samplers' grid keeps the
sum of the released events' zCDP at most ``r``). Each release is drawn by
:func:`privlearn.mechanisms.gaussian_noise` (exact discrete Gaussian); the three native events
are composed (zCDP adds: Bun and Steinke, TCC 2016, Lemma 1.7) and charged once as
``PrivacyEvent.composed(..., budget=Budget(eps_s, delta))``.

*Why not Wang's constant.* Algorithm 2 uses noise ``sqrt(log(6/delta)) / (eps/3)`` times the
add/remove sensitivity for each of the three releases, as if each were an ``(eps/3,
delta/3)`` Gaussian mechanism. The research note of issue 19 (section 1.4) found that the
per-piece claim fails for ``eps >= 1`` (the formula is not the classical Gaussian mechanism's)
and that, with the replace-one sensitivities, the composed total fails at ``eps = 3`` and ``10``
(``delta = 1e-6``). Calibrating the noise of the three releases jointly through zCDP, with the
replace-one sensitivities above, gives a guarantee that holds at every ``epsilon``, and less noise.

**Laplace** (``noise="laplace"``): ``epsilon``-DP (pure), replace-one, ``n`` public. The
statistics' share is split with :data:`LAPLACE_WEIGHTS` into ``eps_1 + eps_2 + eps_3 <= eps_s``
(exact rationals), and each release is privlearn's exact Laplace mechanism
(:func:`privlearn.mechanisms.laplace`'s sampler) with the L1 sensitivities above and its
``eps_i``; basic composition; charged once as ``PrivacyEvent.composed(pure events,
budget=Budget(eps_s))``. ``delta`` is not used (a pure guarantee is an ``(epsilon, delta)``
guarantee for every delta).

**Private bounds** (``data_norm="private"`` and/or ``label_bound="private"``): a share
``bounds_fraction`` of ``epsilon`` is split evenly between the private bounds
(:func:`privlearn.learners._private_bounds.split_epsilon`); each is the exponential mechanism's
quantile of the row norms (of ``X``, before the intercept column) or of ``|y|`` over a public
grid (:mod:`privlearn.learners._private_bounds`), an ``eps_b``-bounded-range release. By
default the share and the quantiles come from :func:`bounds_plan`: the measured defaults of
:mod:`~privlearn.learners._private_bounds` (fraction 0.1, row-norm quantile 0.25, label quantile
0.75) when ``n epsilon`` is large enough, otherwise a larger share (up to one half) and quantiles
closer to the median, so that a grid point far outside the data (which would clip everything to
``1e-4`` or leave labels unclipped up to ``1e8``, and make the fit explode) stays
``exp(-16)``-unlikely against the quantile. The plan reads ``epsilon``, ``n`` and which bounds
are private, all public; declared ``bounds_fraction`` / ``bounds_quantile`` override it.
Clipping to a released bound is post-processing, so everything
above applies with the released values. The bounds are charged as one ledger entry (label
``"AdaSSPRegressor: private bounds"``) and the statistics as another (``"AdaSSPRegressor:
statistics"``); both are reserved before any data are read (nested
:meth:`~privlearn.accounting.Accountant.transaction`), so either both are charged or neither.
Total: ``(epsilon, delta)`` (Gaussian) or ``epsilon`` (Laplace) by basic composition of the two
entries.

In every case the guarantee holds only with ``rng=None`` or an unseeded generator. What a fit
charges, whether it succeeds and the shape of its output depend on the parameters and on ``n``
and ``d`` only. A ``"pld"`` accountant cannot charge the Gaussian variant (a vector discrete
Gaussian has no PLD form): use ``"basic"``, ``"zcdp"`` or ``"rdp"``.

Which library does what: the statistics are privlearn's (``learners._suffstats``: exact, on
numpy or Dask input), the noise is privlearn's exact samplers (Rust core), the eigenvalue and the
solve are numpy's LAPACK (``eigvalsh``, ``lstsq``), the Gaussian quantile is scipy's
(``scipy.stats.norm.isf``), and the calibration is privlearn's accounting (zCDP, exact rationals).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, List, Optional, Tuple, Union

import numpy as np
from sklearn.base import BaseEstimator

from .. import _core
from .._validate import check_choice, check_delta, check_epsilon, check_real
from ..accounting._accountant import check_accountant
from ..accounting._numerics import split_down
from ..errors import InvalidParameterError
from ..mechanisms import gaussian_noise_event
from . import _base
from ._base import LinearRegressorMixin, PrivateEstimatorMixin
from ._private_bounds import bounds_plan  # the plan lives with the mechanism's constants
from ._suffstats import frobenius_unvec as _unvec
from ._suffstats import frobenius_vec as _vec
from ._suffstats import triangle_indices as _triu

__all__ = ["AdaSSPRegressor", "AdaSSPStatistics", "adassp_calibration", "bounds_plan"]

NOISES = ("gaussian", "laplace")
#: Shares of the statistics' zCDP budget for (lambda_min, X^T X, X^T y), Gaussian variant
#: (data-independent; chosen on synthetic data and scikit-learn's diabetes data).
GAUSSIAN_WEIGHTS = (0.1, 0.45, 0.45)
#: Shares of the statistics' epsilon for (lambda_min, X^T X, X^T y), Laplace variant.
LAPLACE_WEIGHTS = (0.1, 0.45, 0.45)
#: Relative enlargement of the Gaussian sigmas: the exact sampler's grid raises each release's
#: zCDP by a relative 2^-18 at most (``privlearn.mechanisms.gaussian_noise``), covered by this.
GRID_MARGIN = 2.0**-16
#: Floating-point slack of the matrix and vector statistics' sensitivity, times ``n``
#: (module docstring); the eigenvalue's is ``EIG_SLACK * p * n``.
FLOAT_SLACK = 2.0**-49
EIG_SLACK = 2.0**-44
#: Default failure probability of the shift and the ridge (Wang's choice).
DEFAULT_RHO = 0.05

LABEL = "AdaSSPRegressor"


@dataclass(frozen=True)
class AdaSSPStatistics:
    """The released (noisy) statistics of one fit, in normalised units (rows of norm at most 1,
    labels in ``[-1, 1]``; see :mod:`privlearn.learners.adassp`). Post-processing of the
    private release: safe to keep or publish.

    Attributes
    ----------
    xtx : ndarray of shape (p, p)
        Noisy ``X^T X`` (symmetric), intercept column last if any.
    xty : ndarray of shape (p,)
        Noisy ``X^T y``.
    lambda_min : float
        Noisy ``lambda_min(X^T X)`` (before the shift and the clamp at 0).
    n : int
        Number of rows (public).
    """

    xtx: np.ndarray
    xty: np.ndarray
    lambda_min: float
    n: int


@dataclass(frozen=True)
class _Calibration:
    noise: str
    p: int
    scales: Tuple[float, ...]  # s1, s2, s3 (std or Laplace scale), normalised units
    sensitivities: Tuple[float, ...]  # incl. the floating-point slack
    epsilons: Tuple[float, ...]  # Laplace only (zeros for Gaussian)
    budget: Any  # Budget of the statistics' release
    event: Any  # the composed PrivacyEvent charged for the statistics
    parts: Tuple[Any, ...]  # the per-release events


def _upper(M: np.ndarray) -> np.ndarray:
    """The upper triangle including the diagonal, each entry once (row-major)."""
    return M[_triu(M.shape[0], 0)]


def _from_upper(v: np.ndarray, p: int) -> np.ndarray:
    iu = _triu(p, 0)
    M = np.zeros((p, p))
    M[iu] = v
    return M + np.triu(M, 1).T


@lru_cache(maxsize=256)
def adassp_calibration(
    epsilon: float, delta: float, n: int, p: int, *, noise: str = "gaussian"
) -> _Calibration:
    """The noise scales, sensitivities and events of AdaSSP's three releases for the statistics'
    budget ``(epsilon, delta)`` (``delta`` unused for ``noise="laplace"``), ``n`` rows and ``p``
    columns (intercept included), in normalised units. Public parameters only (cached: the
    zCDP calibration is a bisection)."""
    from ..accounting import Budget
    from ..accounting._calibrate import zcdp_rho_for
    from ..accounting._event import PrivacyEvent

    float_slack = FLOAT_SLACK * n
    sens_lam = 1.0 + EIG_SLACK * p * n
    if noise == "gaussian":
        rho = zcdp_rho_for(epsilon, delta)
        sens = (sens_lam, math.sqrt(2.0) + float_slack, 2.0 + float_slack)
        dims = (1, p * (p + 1) // 2, p)
        margin = 1.0 + GRID_MARGIN
        for _ in range(8):
            shares = split_down(rho, GAUSSIAN_WEIGHTS)
            scales = tuple(s / math.sqrt(2.0 * r) * margin for s, r in zip(sens, shares))
            parts = tuple(gaussian_noise_event(s, d, m) for s, d, m in zip(scales, sens, dims))
            budget = Budget(epsilon, delta)
            event = PrivacyEvent.composed(parts, budget=budget)
            if event.to_zcdp().rho <= rho:
                return _Calibration(
                    noise,
                    p,
                    scales,
                    sens,
                    (0.0, 0.0, 0.0),
                    budget,
                    event,
                    parts,
                )
            margin *= 1.0 + GRID_MARGIN  # pragma: no cover - the first margin suffices
        raise AssertionError("AdaSSP calibration exceeds its zCDP budget")  # pragma: no cover
    sens = (sens_lam, (p + 1.0) * (1.0 + float_slack), 2.0 * math.sqrt(p) + float_slack * p)
    eps_i = split_down(epsilon, LAPLACE_WEIGHTS)
    scales = tuple(s / e for s, e in zip(sens, eps_i))
    parts = tuple(PrivacyEvent.pure(e) for e in eps_i)
    budget = Budget(epsilon)
    event = PrivacyEvent.composed(parts, budget=budget)
    return _Calibration(noise, p, scales, sens, eps_i, budget, event, parts)


def _operator_bound(cal: _Calibration, rho: float) -> float:
    """``t``: bounds the noise matrix's operator norm with probability ``1 - rho/2``."""
    p, s2 = cal.p, cal.scales[1]
    if cal.noise == "gaussian":
        return s2 * (math.sqrt(2.0 * p) + math.sqrt(2.0 * math.log(4.0 / rho)))
    return s2 * (2.0 * math.sqrt(2.0 * p) + 2.0 * math.sqrt(math.log(4.0 / rho)))


def _shift(cal: _Calibration, rho: float) -> float:
    """The downward shift of the noisy ``lambda_min`` (exceeded with probability ``rho/2``)."""
    if cal.noise == "gaussian":
        return cal.scales[0] * _normal_isf(rho / 2.0)
    return cal.scales[0] * math.log(1.0 / rho)


@lru_cache(maxsize=64)
def _normal_isf(q: float) -> float:
    """The standard normal upper ``q`` quantile (scipy; cached: scipy's call costs about as much
    as the rest of a small fit's post-processing)."""
    from scipy.stats import norm

    return float(norm.isf(q))


def _check_grid_range(cal: _Calibration, n: int) -> None:
    """Refuse (before any data are read) an ``n`` so large that a statistic could leave the
    exact samplers' integer grid (``|value| / step < 2^61``); statistics are at most ``n``."""
    for s, d, m, e in zip(cal.scales, cal.sensitivities, (1, cal.p * cal.p, cal.p), cal.epsilons):
        if cal.noise == "gaussian":
            step = min(d, s) * 2.0**-20 / math.sqrt(m)
        else:
            step = min(d, d / e) * 2.0**-20 / m
        if n / step >= 2.0**60:
            raise InvalidParameterError(
                f"epsilon: with n = {n} rows the noise is too small for the exact samplers' grid; "
                "use a smaller epsilon",
                "epsilon",
            )


def _lambda_min(A: np.ndarray) -> float:
    try:
        return max(float(np.linalg.eigvalsh(A)[0]), 0.0)
    except np.linalg.LinAlgError:  # pragma: no cover - LAPACK on a finite symmetric matrix
        return 0.0


def _solve(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.lstsq(A, b, rcond=None)[0]
    except np.linalg.LinAlgError:  # pragma: no cover - SVD of a finite matrix
        return np.zeros_like(b)


def _release(
    cal: _Calibration, A: np.ndarray, b: np.ndarray, n: int, gen: Any
) -> Tuple[AdaSSPStatistics, List[Any]]:
    """The three noisy releases of the normalised statistics ``A = X^T X``, ``b = X^T y``."""
    p = cal.p
    lam = _lambda_min(A)
    if cal.noise == "gaussian":
        from ..mechanisms import gaussian_noise

        lam_n, e1 = gaussian_noise(lam, cal.scales[0], cal.sensitivities[0], rng=gen)
        v, e2 = gaussian_noise(_vec(A), cal.scales[1], cal.sensitivities[1], rng=gen)
        b_n, e3 = gaussian_noise(b, cal.scales[2], cal.sensitivities[2], rng=gen)
        A_n = _unvec(np.asarray(v), p)
        events = [e1, e2, e3]
    else:
        e = cal.epsilons
        lam_n = _core.laplace(lam, cal.sensitivities[0], e[0], gen, "exact")
        u = _core.laplace(_upper(A), cal.sensitivities[1], e[1], gen, "exact")
        b_n = _core.laplace(b, cal.sensitivities[2], e[2], gen, "exact")
        A_n = _from_upper(np.asarray(u, dtype=np.float64), p)
        events = list(cal.parts)
    stats = AdaSSPStatistics(A_n, np.asarray(b_n, dtype=np.float64), float(lam_n), n)
    return stats, events


def _solve_released(
    cal: _Calibration, stats: AdaSSPStatistics, rho: float
) -> Tuple[np.ndarray, float, float]:
    """``(theta, ridge, lam~)`` from the released statistics (post-processing)."""
    lam_t = max(stats.lambda_min - _shift(cal, rho), 0.0)
    ridge = max(0.0, _operator_bound(cal, rho) - lam_t)
    theta = _solve(stats.xtx + ridge * np.eye(cal.p), stats.xty)
    return theta, ridge, lam_t


class AdaSSPRegressor(PrivateEstimatorMixin, LinearRegressorMixin, BaseEstimator):
    r"""Private linear regression by AdaSSP (Wang, UAI 2018, Algorithm 2): noisy ``X^T X``,
    ``X^T y`` and ``lambda_min(X^T X)``, and ridge regression on them with a privately chosen
    ridge (details, replace-one sensitivities and calibration in
    :mod:`privlearn.learners.adassp`).

    **Guarantee.** ``noise="gaussian"``: ``fit`` is ``(epsilon, delta)``-differentially private;
    ``noise="laplace"``: ``epsilon``-differentially private (pure). Replace-one neighbours,
    ``n`` public, with ``rng=None`` or an unseeded generator. The noise is calibrated through
    zCDP with the replace-one sensitivities, not with Wang's constant (see the module
    docstring for why). **Bounds:** every row is clipped to ``data_norm`` and every label to
    ``label_bound`` before the statistics are computed; each bound is declared or chosen
    privately (``"private"``, spending ``bounds_fraction`` of ``epsilon``); there is no default.

    Parameters
    ----------
    epsilon : float
        Total privacy parameter, finite and > 0.
    delta : float, default 1e-6
        In ``(0, 1)`` for ``noise="gaussian"``; for ``noise="laplace"`` any value in ``[0, 1)`` is
        accepted and unused (the guarantee is pure).
    data_norm : float or "private"
        Bound on the rows' L2 norm (rows are clipped to it), or ``"private"``. Required.
    label_bound : float or "private"
        Bound on ``|y|`` (labels are clipped to it), or ``"private"``. Required.
    fit_intercept : bool, default True
        Fit an intercept through a constant column equal to the row bound.
    noise : {"gaussian", "laplace"}, default "gaussian"
    rho : float, default 0.05
        Failure probability of the ridge choice (Wang's ``rho``), in (0, 1): the shifted
        ``lambda_min`` and the operator-norm bound hold with probability ``1 - rho``. Affects
        utility only.
    bounds_fraction : float or None, default None
        Share of ``epsilon`` spent on the private bounds (both together), in (0, 1); used only
        when a bound is ``"private"``. ``None``: the public plan of :func:`bounds_plan` (0.1
        when ``n epsilon`` is large, up to 0.5 when it is small).
    bounds_quantile : None, float or (float, float), default None
        Quantiles released as the private bounds, in (0, 1): one for both, or ``(row-norm
        quantile, label quantile)``. ``None``: :func:`bounds_plan` (0.25 and 0.75, the measured
        defaults of :mod:`~privlearn.learners._private_bounds`, moved towards 0.5 when
        ``n epsilon`` is small).
    accountant : Accountant, optional
        Charged only if the fit succeeds; a spend that does not fit raises
        ``BudgetExceededError`` before the data are read. Clones share it.
    rng : None, int or Generator, optional
        Randomness (:mod:`privlearn.random`); an integer seed is reproducible, not private.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    ridge_ : float
        The ridge ``lam`` used (normalised units).
    lambda_min_ : float
        The shifted, clamped private ``lambda_min`` (normalised units).
    statistics_ : AdaSSPStatistics
        The noisy statistics (normalised units).
    noise_scales_ : tuple of three floats
        ``(s1, s2, s3)``: the noise standard deviations (Gaussian) or Laplace scales of the
        ``lambda_min``, ``X^T X`` and ``X^T y`` releases, normalised units.
    data_norm_, label_bound_ : float
        The bounds used (declared or privately chosen).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.learners.adassp import AdaSSPRegressor
    >>> g = np.random.default_rng(0)
    >>> X = g.normal(size=(20_000, 3)) / 2
    >>> y = X @ np.array([1.0, -0.5, 0.0]) + 0.1 * g.normal(size=20_000)
    >>> model = AdaSSPRegressor(1.0, data_norm=2.0, label_bound=2.0, rng=7).fit(X, y)  # seeded
    >>> bool(np.abs(model.coef_ - [1.0, -0.5, 0.0]).max() < 0.1)
    True
    """

    def __init__(
        self,
        epsilon: Optional[float],
        *,
        delta: float = 1e-6,
        data_norm: Union[None, float, str] = None,
        label_bound: Union[None, float, str] = None,
        fit_intercept: bool = True,
        noise: str = "gaussian",
        rho: float = DEFAULT_RHO,
        bounds_fraction: Optional[float] = None,
        bounds_quantile: Union[None, float, Tuple[float, float]] = None,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.data_norm = data_norm
        self.label_bound = label_bound
        self.fit_intercept = fit_intercept
        self.noise = noise
        self.rho = rho
        self.bounds_fraction = bounds_fraction
        self.bounds_quantile = bounds_quantile
        self.accountant = accountant
        self.rng = rng

    # -- parameters (checked before any data are read) -----------------------------------------

    def _params(
        self,
    ) -> Tuple[
        float, float, str, Any, Any, bool, float, Optional[float], Optional[Tuple[float, float]]
    ]:
        from ._private_bounds import bound_or_private, check_bounds_options
        from ._suffstats import check_bound_floors

        eps = check_epsilon(self.epsilon, exact=True)
        noise = check_choice(self.noise, "noise", NOISES)
        if noise == "gaussian":
            delta = check_delta(self.delta, zero_ok=False, exact=True)
        else:
            delta = check_delta(self.delta, zero_ok=True, exact=True)
        data_norm = bound_or_private(self.data_norm, "data_norm")
        label_bound = bound_or_private(self.label_bound, "label_bound")
        check_bound_floors(data_norm, label_bound)  # the statistics' floors, before the data
        fit_intercept = _base.boolean(self.fit_intercept, "fit_intercept")
        rho = check_real(self.rho, "rho", 0.0, 1.0, lo_open=True, hi_open=True)
        fraction, quantile = check_bounds_options(self.bounds_fraction, self.bounds_quantile)
        check_accountant(self.accountant)
        return eps, delta, noise, data_norm, label_bound, fit_intercept, rho, fraction, quantile

    def privacy_guarantee(self, n_samples: int) -> Any:
        """``Budget(epsilon, delta)`` (Gaussian) or ``Budget(epsilon)`` (Laplace): what one fit
        on ``n_samples`` records charges in total (replace-one, ``n`` public), from the
        parameters only.

        Raises
        ------
        InvalidParameterError
            If a parameter is missing or invalid, or private bounds are refused at this ``n``
            (``n epsilon`` too small, as :meth:`fit` refuses them).
        """
        from .._validate import check_integer
        from ..accounting import Budget
        from ._private_bounds import PRIVATE

        n = check_integer(n_samples, "n_samples", 1)
        eps, delta, noise, data_norm, label_bound, _i, _r, fraction, quantile = self._params()
        private = [
            name
            for name, v in (("data_norm", data_norm), ("label_bound", label_bound))
            if v == PRIVATE
        ]
        # The plan refuses private bounds when n epsilon is too small, as fit does: say so here,
        # so that a pipeline refuses before any step has read the data.
        self._budgets(eps, n, private, fraction, quantile, noise)
        return Budget(eps, delta) if noise == "gaussian" else Budget(eps)

    @staticmethod
    def _budgets(
        eps: float,
        n: int,
        private: List[str],
        fraction: Optional[float],
        quantile: Optional[Tuple[float, float]],
        noise: str = "gaussian",
    ) -> Tuple[Tuple[float, ...], float, Tuple[float, float]]:
        """``(bound shares, statistics epsilon, quantiles)`` from public values only
        (:func:`~privlearn.learners._private_bounds.plan_shares`: declared ``fraction`` /
        ``quantile`` where given, else :func:`bounds_plan` for the variant's quantiles;
        ``noise="laplace"``: ``PURE_NORM_QUANTILE`` / ``PURE_LABEL_QUANTILE``)."""
        from ._private_bounds import (
            LABEL_QUANTILE,
            NORM_QUANTILE,
            PURE_LABEL_QUANTILE,
            PURE_NORM_QUANTILE,
            plan_shares,
        )

        wanted = (
            (PURE_NORM_QUANTILE, PURE_LABEL_QUANTILE)
            if noise == "laplace"
            else (NORM_QUANTILE, LABEL_QUANTILE)
        )
        return plan_shares(eps, n, private, fraction, quantile, wanted)

    # -- fit --------------------------------------------------------------------------------------

    def fit(self, X: Any, y: Any) -> "AdaSSPRegressor":
        """Fit on ``(X, y)`` (numpy arrays or Dask arrays), charging the guarantee of the class
        docstring once (two ledger entries when a bound is private).

        Raises
        ------
        InvalidParameterError
            On a bad parameter, a missing bound, or bad data (NaN, inf, wrong shapes, a Dask
            array with unknown chunk sizes); nothing is drawn or charged.
        BudgetExceededError
            If the accountant cannot pay; nothing is read or drawn.
        """
        from ..random import as_generator
        from ._private_bounds import PRIVATE, charge_with_bounds, release_bounds
        from ._suffstats import validate_regression_data

        (eps, delta, noise, data_norm, label_bound, fit_intercept, rho, fraction, quantile) = (
            self._params()
        )
        gen = as_generator(self.rng)
        private = [
            name
            for name, v in (("data_norm", data_norm), ("label_bound", label_bound))
            if v == PRIVATE
        ]
        Xv, yv = validate_regression_data(self, X, y)
        n, d = int(Xv.shape[0]), int(Xv.shape[1])
        shares, eps_s, quantile = self._budgets(eps, n, private, fraction, quantile, noise)
        p = d + 1 if fit_intercept else d
        cal = adassp_calibration(eps_s, delta, n, p, noise=noise)
        _check_grid_range(cal, n)

        def body() -> Tuple[AdaSSPStatistics, float, float]:
            bx, by = release_bounds(Xv, yv, data_norm, label_bound, shares, quantile, gen)
            stats, events = self._statistics(cal, Xv, yv, bx, by, fit_intercept, n, gen)
            if list(events) != list(cal.parts):  # pragma: no cover - the grid rule is public
                raise AssertionError("AdaSSP: the released events differ from the calibration")
            return stats, bx, by

        stats, bx, by = charge_with_bounds(self.accountant, shares, cal.event, LABEL, body)

        theta, ridge, lam_t = _solve_released(cal, stats, rho)
        x_scale = bx * math.sqrt(2.0) if fit_intercept else bx
        factor = by / x_scale
        if fit_intercept:
            self.coef_ = theta[:-1] * factor
            self.intercept_ = float(theta[-1] * bx * factor)
        else:
            self.coef_ = theta * factor
            self.intercept_ = 0.0
        self.ridge_ = ridge
        self.lambda_min_ = lam_t
        self.statistics_ = stats
        self.noise_scales_ = cal.scales
        self.data_norm_ = bx
        self.label_bound_ = by
        return self

    @staticmethod
    def _statistics(
        cal: _Calibration,
        X: Any,
        y: Any,
        bx: float,
        by: float,
        fit_intercept: bool,
        n: int,
        gen: Any,
    ) -> Tuple[AdaSSPStatistics, List[Any]]:
        from ._suffstats import sufficient_statistics

        st = sufficient_statistics(
            X, y, data_norm=bx, label_bound=by, intercept=bx if fit_intercept else None
        )
        x_scale = bx * math.sqrt(2.0) if fit_intercept else bx
        A = np.asarray(st.xtx, dtype=np.float64) / (x_scale * x_scale)
        b = np.asarray(st.xty, dtype=np.float64) / (x_scale * by)
        return _release(cal, A, b, n, gen)
