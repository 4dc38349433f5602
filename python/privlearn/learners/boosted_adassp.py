r"""Boosted AdaSSP: gradient boosting of linear models whose every round is a noisy sufficient-
statistics step with one private Hessian (Tang, Aydöre, Kearns, Rho, Roth, Wang, Wang and Wu,
"Improved differentially private regression via gradient boosting", 2023, arXiv 2303.03451,
Algorithm 1; the Hessian and its ridge follow AdaSSP, Wang, UAI 2018, Algorithm 2).

The algorithm
-------------
Rows are clipped to L2 norm ``data_norm = C_x`` (rows longer are scaled down); with
``fit_intercept`` a constant column ``C_x`` is appended, so augmented rows have norm at most
``B = sqrt(2) C_x`` (``B = C_x`` without it). With ``label_bound`` the labels are clipped to it.
The releases, all Gaussian, are:

1. ``H~ = X^T X + E`` with ``E`` symmetric, ``E_ii ~ N(0, s_H^2)``, ``E_ij = E_ji ~ N(0, s_H^2/2)``
   (the vector ``v(M) = (M_ii; sqrt(2) M_ij, i < j)`` with ``||v(M)|| = ||M||_F`` is released with
   iid noise and mapped back);
2. ``l~ = lambda_min(X^T X) + N(0, s_l^2)``;
3. for ``t = 1..T``: ``r_t = clip(y - X theta_{t-1}, -C_g, C_g)`` (``C_g = gradient_clip``,
   elementwise) and ``u_t = X^T r_t + N(0, s_g^2 I)``; ``theta_t = theta_{t-1} + G u_t``;

with ``theta_0 = 0`` and ``G = (H~ + lam I)^+`` (pseudo-inverse of the symmetric matrix),
``lam = max(0, 2 sqrt(p) s_H - l_lo)``, ``l_lo = max(0, l~ - 3 s_l)`` (a private lower bound on
``lambda_min``: the ridge makes ``H~ + lam I`` positive definite with high probability when the
noise's spectral norm, about ``2 sqrt(p) s_H`` for ``p`` coordinates, exceeds
``lambda_min``). ``G`` is computed once and reused every round (post-processing of 1-2).
The output is ``theta_T``.

Sensitivities (replace-one, ``n`` public; derived here, not the paper's add/remove ones)
------------------------------------------------------------------------------------------
Replacing row ``(x, y)`` by ``(x', y')`` (``||x||, ||x'|| <= B`` after clipping):

* ``X^T X`` changes by ``M = x x^T - x' x'^T`` with ``||M||_F^2 = ||x||^4 + ||x'||^4 - 2 (x.x')^2
  <= 2 B^4``: L2 sensitivity of ``v`` is ``sqrt(2) B^2`` (tight at ``x = B e_1, x' = B e_2``);
* ``lambda_min(X^T X)``: ``B^2`` (Weyl: removing ``x' x'^T`` lowers every eigenvalue by at most
  ``||x'||^2``, adding ``x x^T`` raises it by at most ``||x||^2``);
* ``X^T r`` at a fixed ``theta``: ``||x r - x' r'|| <= 2 B C_g`` (``|r|, |r'| <= C_g``; tight at
  ``x' = -x``).

Each round's ``theta_{t-1}`` is a post-processing of earlier releases, so the rounds compose
adaptively.

**Normalised units.** The releases are made on ``X^T X / B^2``, ``lambda_min(X^T X) / B^2``
and ``X^T r / (B C_g)`` (rows of norm at most 1, residuals in ``[-1, 1]``), whose
sensitivities are ``sqrt(2)``, ``1`` and ``2`` whatever the bounds (plus the floating-point
slack below, which depends on ``n`` and ``p`` only), and scaled back
(``theta_t = theta_{t-1} + (C_g / B) G_n u_t`` with ``G_n`` the pseudo-inverse in these units:
the same estimator as in the data's units). So the noise in the samplers' units and the
charged events depend on ``epsilon``, ``delta``, ``T``, ``p`` and ``n`` only, not on the
bounds: they are known before a private bound is released (as in :mod:`privlearn.learners.adassp`).

**Floating point.** Every released statistic is an exact sum rounded once to float64
(:func:`privlearn.learners._suffstats.sufficient_statistics`: the clipped rows truncated to a
fixed-point grid, summed exactly in integers, each entry rounded once), then divided once by the
public normalising constant, as in :class:`~privlearn.learners.adassp.AdaSSPRegressor`:
``X^T X`` from one call, and each round's ``X^T r_t`` from one call with the residuals ``r_t`` as
labels (clipped to ``C_g``, so the call's label clipping is the identity; the residuals are a
per-row map of the raw row and the public ``theta_{t-1}``, computed in float64, and rounding in a
per-row map changes no sensitivity: each summand is still some ``x r`` with ``||x|| <= B`` and
``|r| <= C_g``).

*The slack* is AdaSSP's, by the same argument (its module docstring: the normaliser ``c =
fl(B B)`` or ``fl(B C_g)``, with the intercept ``B = fl(C_x fl(sqrt 2))``, is public and within a
relative ``5u`` of its exact value; each computed coordinate, the Frobenius layout's included, is
within a relative ``4u`` of ``S / c``; so two neighbours' computed ``X^T X`` or ``X^T r_t`` differ
by at most ``Delta + 2^-49 n``): :data:`privlearn.learners.adassp.FLOAT_SLACK` ``= 2^-49``,
times ``n``. The eigenvalue gets AdaSSP's ``EIG_SLACK p n = 2^-44 p n`` (backward error of the
symmetric eigensolver, generously). The noise is calibrated to ``sqrt(2) + 2^-49 n``, ``1 +
2^-44 p n`` and ``2 + 2^-49 n`` (normalised units); ``n`` and ``p`` are public.

Calibration and guarantee
-------------------------
The total ``rho = zcdp_rho_for(epsilon, delta)`` (the largest zCDP whose conversion, Canonne,
Kamath and Steinke 2020, Corollary 13, meets ``(epsilon, delta)``; with private bounds,
``(epsilon_s, delta)`` for the statistics' share ``epsilon_s``) is split as Tang et al.'s
reference implementation does: a third to ``H~``, a third to ``l~``, a third to the ``T``
boosting rounds together (``rho / (3T)`` each). A release of sensitivity ``Delta`` (including
the floating-point slack above) and share ``rho_i`` gets ``s = Delta / sqrt(2 rho_i) (1 + 2^-16)``; the margin covers the exact sampler's
grid (:func:`privlearn.mechanisms.gaussian_noise`: discrete Gaussian noise, whose zCDP parameter
is at most a relative ``2^-18`` above the continuous one). The composed native events (``T + 2``
discrete Gaussians, rhos adding under adaptive composition, Bun and Steinke 2016) are checked
to total at most ``rho`` before any data are read, and charged as ONE event with the declared
``Budget(epsilon, delta)``.

**Private bounds** (``data_norm="private"`` and/or ``label_bound="private"``; the residual
clip ``C_g`` then defaults to the released label bound unless ``gradient_clip`` is declared),
exactly as :class:`~privlearn.learners.adassp.AdaSSPRegressor` takes them, through the same
functions of :mod:`privlearn.learners._private_bounds`: a share of ``epsilon`` (``bounds_fraction``,
or by default :func:`~privlearn.learners._private_bounds.bounds_plan`'s share for the public
``epsilon``, ``n`` and private bounds: 0.1 when ``n epsilon`` is large, up to one half when it
is small, and quantiles moved towards the median; refused when ``n epsilon`` is below 64 per
private bound) is split evenly (``split_epsilon``) between the private quantiles of the row
norms (of ``X``, before the intercept column; quantile 0.25) and of ``|y|`` (0.75), each an
``eps_b``-bounded-range exponential-mechanism release over the public grid
(``private_quantile_from_counts``); the rest ``epsilon_s`` calibrates the Gaussian releases
above. Clipping to a released bound is post-processing. The bounds are one ledger entry
(``"BoostedAdaSSPRegressor: private bounds"``, the composed bounded-range events) and the
Gaussian releases another (``"BoostedAdaSSPRegressor: statistics"``, ``Budget(epsilon_s,
delta)``); both are reserved before any data are read (nested transactions,
``charge_with_bounds``), so both are charged or neither. Total ``(epsilon, delta)`` by basic
composition. The quantiles are the ones measured for AdaSSP (issue 19); for Boosted AdaSSP they
are measured on warfarin only (the report of issue 19, helper D3).

**Guarantee.** ``fit`` is ``(epsilon, delta)``-differentially private (replace-one, ``n``
public) with ``rng=None`` or an unseeded generator, with respect to the raw rows (clipping is a
per-row map), for the statistics as computed in floating point (the slack above bounds their
rounding). Nothing about the data decides whether it succeeds, what it charges or the shape
of the output.

Which library does what: privlearn computes the exact statistics ``X^T X`` and ``X^T r_t``
(``learners._suffstats``), draws the exact noise and calibrates and composes the events; numpy
computes the residuals, ``lambda_min`` (``eigvalsh``) and the pseudo-inverse.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
from sklearn.base import BaseEstimator

from .._validate import check_delta, check_epsilon, check_integer, check_real
from ..accounting._accountant import check_accountant
from ..errors import InvalidParameterError
from ..mechanisms import gaussian_noise_event
from ..random import as_generator
from . import _base
from ._base import LinearRegressorMixin, PrivateEstimatorMixin
from ._solvers import SolverError
from ._suffstats import frobenius_unvec, frobenius_vec, sufficient_statistics
from .adassp import EIG_SLACK, FLOAT_SLACK

__all__ = ["BoostedAdaSSPRegressor", "boosted_adassp_sigmas"]

#: Relative margin on every noise standard deviation, covering the exact sampler's grid.
GRID_MARGIN = 2.0**-16
#: Shares of the total rho: Hessian, lambda_min, all boosting rounds together.
RHO_SHARES = (1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0)
#: Standard deviations subtracted from the noisy lambda_min for its lower bound.
LAMBDA_SHIFT = 3.0


def boosted_adassp_sigmas(
    epsilon: float,
    delta: float,
    *,
    bound: float,
    gradient_clip: float,
    rounds: int,
    n: int,
    p: int,
) -> Dict[str, float]:
    """The noise standard deviations and sensitivities of the ``rounds + 2`` releases for a
    total ``(epsilon, delta)``, ``n`` rows and ``p`` columns (module docstring): keys ``rho``,
    ``sigma_hessian``, ``sigma_lambda``, ``sigma_gradient``, ``sens_hessian`` (``(sqrt(2) +
    2^-49 n) B^2``), ``sens_lambda`` (``(1 + 2^-44 p n) B^2``), ``sens_gradient`` (``(2 +
    2^-49 n) B C_g``): the replace-one sensitivities plus the floating-point slack. From public
    parameters only."""
    from ..accounting._calibrate import zcdp_rho_for

    rho = zcdp_rho_for(epsilon, delta)
    sens = {
        "hessian": (math.sqrt(2.0) + FLOAT_SLACK * n) * bound * bound,
        "lambda": (1.0 + EIG_SLACK * p * n) * bound * bound,
        "gradient": (2.0 + FLOAT_SLACK * n) * bound * gradient_clip,
    }
    shares = {
        "hessian": RHO_SHARES[0] * rho,
        "lambda": RHO_SHARES[1] * rho,
        "gradient": RHO_SHARES[2] * rho / rounds,
    }
    out = {"rho": rho}
    for key in sens:
        out["sigma_" + key] = sens[key] / math.sqrt(2.0 * shares[key]) * (1.0 + GRID_MARGIN)
        out["sens_" + key] = sens[key]
    return out


class BoostedAdaSSPRegressor(PrivateEstimatorMixin, LinearRegressorMixin, BaseEstimator):
    r"""Private linear regression by Boosted AdaSSP (Tang et al. 2023, Algorithm 1).

    ``T`` gradient-boosting rounds of a linear model, each a Newton-like step
    ``theta += G (X^T clip(y - X theta, C_g) + noise)`` with one private inverse Hessian ``G``
    computed from a noisy ``X^T X`` and a noisy ``lambda_min`` (details, sensitivities and the
    calibration in :mod:`privlearn.learners.boosted_adassp`).

    **Guarantee.** ``fit`` is ``(epsilon, delta)``-differentially private for replace-one
    neighbours (``n`` public), with ``rng=None`` or an unseeded generator: ``T + 2`` exact
    Gaussian releases whose zCDP parameters add up to ``zcdp_rho_for(epsilon, delta)``.
    **Bounds:** rows are clipped to ``data_norm`` (required: a declared number, never read from
    the data, or ``"private"``), residuals to ``gradient_clip`` (or, if it is not given, to
    ``label_bound``; one of them is required), labels to ``label_bound`` if given (declared or
    ``"private"``). Private bounds spend a share of ``epsilon`` as in
    :class:`~privlearn.learners.adassp.AdaSSPRegressor` (module docstring).

    Parameters
    ----------
    epsilon : float
    delta : float
        In ``(0, 1)``; required.
    data_norm : float or "private"
        ``C_x``, the declared bound on the rows' L2 norm, or ``"private"``; required.
    gradient_clip : float, optional
        ``C_g``, the residual clip; defaults to ``label_bound`` (the released one if private).
    label_bound : float or "private", optional
        Bound on ``|y|`` (labels are clipped to it), declared or ``"private"``.
    n_rounds : int, default 10
        ``T``, data-independent. On warfarin (3,000 rows, rows clipped to 2-3, residuals to
        0.5-1) 10 rounds beat 3 and 50: each round adds noise, and the noise per round grows
        like ``sqrt(T)``.
    fit_intercept : bool, default True
        Append a constant column equal to ``data_norm``.
    bounds_fraction : float or None, default None
        Share of ``epsilon`` for the private bounds (both together), in (0, 1); ``None``: the
        public plan (:func:`~privlearn.learners._private_bounds.bounds_plan`).
    bounds_quantile : None, float or (float, float), default None
        The released quantiles (one for both, or ``(row-norm, label)``); ``None``: the plan's
        (0.25 and 0.75, moved towards 0.5 when ``n epsilon`` is small).
    accountant : Accountant, optional
        Each fit charges one composed event with budget ``(epsilon, delta)`` (with private
        bounds: two entries, see above); clones share it.
    rng : None, int or Generator, optional

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    ridge_ : float
        The ridge ``lam`` added to the private Hessian (a private output, data units).
    noise_ : dict
        ``rho`` and the noise standard deviations in the data's units (the normalised
        calibration scaled by ``B^2``, ``B^2`` and ``B C_g``).
    data_norm_, label_bound_, gradient_clip_ : float
        The bounds used (declared or released; ``label_bound_`` is None if not given).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.learners.boosted_adassp import BoostedAdaSSPRegressor
    >>> g = np.random.default_rng(0)
    >>> X = g.uniform(-1, 1, size=(20000, 3))
    >>> y = X @ np.array([1.0, -1.0, 0.5]) + 0.1 * g.normal(size=20000)
    >>> model = BoostedAdaSSPRegressor(1.0, 1e-6, data_norm=2.0, gradient_clip=1.0, rng=0)
    >>> bool(np.abs(model.fit(X, y).coef_ - [1.0, -1.0, 0.5]).max() < 0.1)   # seeded: not private
    True
    """

    def __init__(
        self,
        epsilon: Optional[float],
        delta: Optional[float],
        *,
        data_norm: Union[None, float, str] = None,
        gradient_clip: Optional[float] = None,
        label_bound: Union[None, float, str] = None,
        n_rounds: int = 10,
        fit_intercept: bool = True,
        bounds_fraction: Optional[float] = None,
        bounds_quantile: Union[None, float, Tuple[float, float]] = None,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.data_norm = data_norm
        self.gradient_clip = gradient_clip
        self.label_bound = label_bound
        self.n_rounds = n_rounds
        self.fit_intercept = fit_intercept
        self.bounds_fraction = bounds_fraction
        self.bounds_quantile = bounds_quantile
        self.accountant = accountant
        self.rng = rng

    def _params(
        self,
    ) -> Tuple[
        float,
        float,
        Union[float, str],
        Optional[float],
        Union[None, float, str],
        int,
        bool,
        Optional[float],
        Optional[Tuple[float, float]],
    ]:
        from ._private_bounds import bound_or_private, check_bounds_options
        from ._suffstats import check_bound_floors

        eps = check_epsilon(self.epsilon, exact=True)
        if self.delta is None:
            raise InvalidParameterError(
                "delta: Boosted AdaSSP is (epsilon, delta)-DP (Gaussian noise); delta in (0, 1) "
                "is required; got None",
                "delta",
            )
        delta = check_delta(self.delta, zero_ok=False, exact=True)
        data_norm = bound_or_private(self.data_norm, "data_norm")
        label_bound = (
            None if self.label_bound is None else bound_or_private(self.label_bound, "label_bound")
        )
        clip: Optional[float] = None
        if self.gradient_clip is None:
            if label_bound is None:
                raise InvalidParameterError(
                    "gradient_clip: a declared residual clip is required (or a label_bound, "
                    "declared or 'private', which it then defaults to); it must not be read from "
                    "the data; got None",
                    "gradient_clip",
                )
        else:
            clip = check_real(self.gradient_clip, "gradient_clip", 0.0, lo_open=True, exact=True)
        # the statistics' floors, before the data: rows, and the residuals' clip (the labels of
        # every statistic call)
        if clip is None:
            check_bound_floors(data_norm, label_bound)
        else:
            check_bound_floors(data_norm, clip, label_name="gradient_clip")
        rounds = check_integer(self.n_rounds, "n_rounds", 1)
        fit_intercept = _base.boolean(self.fit_intercept, "fit_intercept")
        fraction, quantile = check_bounds_options(self.bounds_fraction, self.bounds_quantile)
        check_accountant(self.accountant)
        return (
            eps,
            delta,
            data_norm,
            clip,
            label_bound,
            rounds,
            fit_intercept,
            fraction,
            quantile,
        )

    def privacy_guarantee(self, n_samples: int) -> Any:
        """``Budget(epsilon, delta)`` of one fit (replace-one; with private bounds, the total of
        the two ledger entries). Raises :class:`~privlearn.errors.InvalidParameterError` where
        ``fit`` would refuse private bounds at this ``n`` (``n epsilon`` too small)."""
        from ..accounting import Budget
        from ._private_bounds import PRIVATE, plan_shares

        n = check_integer(n_samples, "n_samples", 1)
        eps, delta, data_norm, _c, label_bound, _r, _i, fraction, quantile = self._params()
        private = [
            name
            for name, v in (("data_norm", data_norm), ("label_bound", label_bound))
            if v == PRIVATE
        ]
        plan_shares(eps, n, private, fraction, quantile)  # the refusal of fit, from n only
        return Budget(eps, delta)

    @staticmethod
    def _plan(
        p: int, epsilon: float, delta: float, rounds: int, n: int
    ) -> Tuple[Dict[str, float], Any, List[Any]]:
        """The calibration in normalised units (:func:`boosted_adassp_sigmas` with ``B = C_g =
        1``, ``n`` rows), the composed event to charge for ``Budget(epsilon, delta)`` (the statistics'
        share), and the per-release events; checked (from public parameters only) to total at
        most ``zcdp_rho_for(epsilon, delta)``. Independent of the bounds, so known before a
        private bound is released."""
        from ..accounting import Budget
        from ..accounting._event import PrivacyEvent

        cal = boosted_adassp_sigmas(
            epsilon, delta, bound=1.0, gradient_clip=1.0, rounds=rounds, n=n, p=p
        )
        parts = [
            gaussian_noise_event(cal["sigma_hessian"], cal["sens_hessian"], p * (p + 1) // 2),
            gaussian_noise_event(cal["sigma_lambda"], cal["sens_lambda"], 1),
            gaussian_noise_event(cal["sigma_gradient"], cal["sens_gradient"], p),
        ]
        total = PrivacyEvent.composed(
            [parts[0], parts[1], PrivacyEvent.repeated(parts[2], rounds)],
            budget=Budget(epsilon, delta),
        )
        if not total.to_zcdp().rho <= cal["rho"]:  # pragma: no cover - the margin covers it
            raise AssertionError("Boosted AdaSSP calibration exceeds its zCDP budget")
        return cal, total, parts

    def fit(self, X: Any, y: Any) -> "BoostedAdaSSPRegressor":
        """Fit on ``(X, y)``, charging ``(epsilon, delta)`` once (two ledger entries when a bound
        is private).

        Raises
        ------
        InvalidParameterError
            On a bad parameter, a missing bound, bad data, or ``"private"`` bounds with ``n
            epsilon`` too small (:func:`~privlearn.learners._private_bounds.bounds_plan`);
            nothing is drawn or charged.
        BudgetExceededError
            If the accountant cannot pay; nothing is read or drawn.
        """
        from ..mechanisms import gaussian_noise
        from ._private_bounds import PRIVATE, charge_with_bounds, plan_shares, release_bounds

        (eps, delta, data_norm, clip, label_bound, rounds, fit_intercept, fraction, quantile) = (
            self._params()
        )
        Xv, yv = _base.validate_Xy(self, X, y, classifier=False)
        n, d = Xv.shape
        p = d + 1 if fit_intercept else d
        private = [
            name
            for name, v in (("data_norm", data_norm), ("label_bound", label_bound))
            if v == PRIVATE
        ]
        shares, eps_s, quantile = plan_shares(eps, n, private, fraction, quantile)
        cal, total, parts = self._plan(p, eps_s, delta, rounds, n)
        gen = as_generator(self.rng)

        def release() -> Tuple[np.ndarray, float, float, Optional[float], float]:
            bx, by = release_bounds(Xv, yv, data_norm, label_bound, shares, quantile, gen)
            cg = clip if clip is not None else by
            assert cg is not None  # _params: gradient_clip or label_bound is given
            B = bx * math.sqrt(2.0) if fit_intercept else bx
            Xc = _base.clip_rows(Xv, bx)
            if fit_intercept:
                Xc = np.hstack([Xc, np.full((n, 1), bx)])
            yc = yv if by is None else np.clip(yv, -by, by)
            icpt = bx if fit_intercept else None

            def residual_sums(r: np.ndarray) -> Any:
                # Exact X^T X and X^T r of the clipped rows, each entry rounded once (the
                # residuals, already in [-cg, cg], are the labels: their clipping is the
                # identity).
                return sufficient_statistics(Xv, r, data_norm=bx, label_bound=cg, intercept=icpt)

            r = np.clip(yc, -cg, cg)  # the first round's residuals (theta_0 = 0)
            first = residual_sums(r)
            A = np.asarray(first.xtx, dtype=np.float64) / (B * B)  # normalised: rows of norm <= 1
            v, e_h = gaussian_noise(
                frobenius_vec(A), cal["sigma_hessian"], cal["sens_hessian"], rng=gen
            )
            try:
                lam_min = float(np.linalg.eigvalsh(A)[0])
            except np.linalg.LinAlgError:  # pragma: no cover - finite symmetric input
                raise SolverError("Boosted AdaSSP: eigvalsh did not converge") from None
            lam_noisy, e_l = gaussian_noise(
                lam_min, cal["sigma_lambda"], cal["sens_lambda"], rng=gen
            )
            assert e_h == parts[0] and e_l == parts[1]
            low = max(0.0, float(lam_noisy) - LAMBDA_SHIFT * cal["sigma_lambda"])
            ridge = max(0.0, 2.0 * math.sqrt(p) * cal["sigma_hessian"] - low)
            H = frobenius_unvec(np.asarray(v), p) + ridge * np.eye(p)
            try:
                G = np.linalg.pinv(H, hermitian=True)
            except np.linalg.LinAlgError:  # pragma: no cover - finite symmetric input
                raise SolverError("Boosted AdaSSP: the pseudo-inverse did not converge") from None
            theta = np.zeros(p)
            for t in range(rounds):
                if t > 0:
                    r = np.clip(yc - Xc @ theta, -cg, cg)
                xtr = (first if t == 0 else residual_sums(r)).xty
                u, e_g = gaussian_noise(
                    np.asarray(xtr, dtype=np.float64) / (B * cg),
                    cal["sigma_gradient"],
                    cal["sens_gradient"],
                    rng=gen,
                )
                assert e_g == parts[2]
                theta = theta + (cg / B) * (G @ np.asarray(u))
            return theta, ridge * B * B, bx, by, cg

        theta, ridge, bx, by, cg = charge_with_bounds(
            self.accountant, shares, total, type(self).__name__, release
        )
        if fit_intercept:
            self.coef_, self.intercept_ = theta[:-1].copy(), float(theta[-1] * bx)
        else:
            self.coef_, self.intercept_ = theta, 0.0
        self.ridge_ = float(ridge)
        B = bx * math.sqrt(2.0) if fit_intercept else bx
        self.noise_ = {
            "rho": cal["rho"],
            "sigma_hessian": cal["sigma_hessian"] * B * B,
            "sigma_lambda": cal["sigma_lambda"] * B * B,
            "sigma_gradient": cal["sigma_gradient"] * B * cg,
        }
        self.data_norm_, self.label_bound_, self.gradient_clip_ = bx, by, cg
        return self
