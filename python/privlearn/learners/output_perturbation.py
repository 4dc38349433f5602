r"""Output perturbation: solve regularised ERM exactly, then add L2-Laplace noise calibrated to
the minimiser's L2 sensitivity (Wu, Fredrikson, Wu, Jha, Naughton, "Revisiting differentially
private regression: lessons from learning theory and their consequences", arXiv 1512.06388,
Algorithms 1, 2 and 4; Chaudhuri, Monteleoni and Sarwate, JMLR 2011, Section 3).

Notation (normalised problem, see :mod:`privlearn.learners._base`): rows ``||x|| <= 1``, labels
``|y| <= 1`` (regression) or ``y in {-1, +1}`` (classification), ``n`` rows, ``d`` coefficients,
regularisation ``lam = alpha``, hypothesis ball ``||w|| <= R`` (``radius``), and ``rho`` the
Lipschitz constant of the per-example loss on that ball: ``2(R + 1)`` for the squared loss
``(<w,x> - y)^2``, ``1`` for the logistic and smoothed hinge losses (everywhere). The minimiser
``w_bar = argmin_{||w|| <= R} (1/n) sum loss + (lam/2)||w||^2`` is released as ``w_bar + k`` with
density ``p(k) ∝ exp(-eps ||k|| / Delta)``, where ``Delta`` bounds ``||w_bar(S) - w_bar(S')||``
over datasets ``S, S'`` differing in one row (replace-one, ``n`` public):

=====================  ============================  =========================================
variant                ``Delta`` (``"paper"``)        source
=====================  ============================  =========================================
``strongly_convex``    ``4 rho / (lam n)``            Theorem 14 (the objective is
                                                      lam-strongly convex; Algorithm 1's proof,
                                                      Theorem 15, and the paper's remark after
                                                      Theorem 16)
``general_convex``     ``4 (rho + lam R) / (lam n)``  Algorithm 2, Theorem 16
``rls_out``            ``(12 R + 8) / (lam n)``       Algorithm 4 (squared loss; valid for
                                                      ``lam <= 1``, refused otherwise)
=====================  ============================  =========================================

``sensitivity_bound="tight"`` uses ``min(2 rho / (lam n), 2R)`` for every variant instead: summing
the strong-convexity inequalities of the two objectives at the two minimisers gives
``lam ||u - v||^2 <= (2 rho / n) ||u - v||`` (Chaudhuri et al.'s constant, valid over any convex
set), and both minimisers lie in the ball of radius ``R`` (the project's errata B5). With
``radius=None`` the regressor minimises over all of ``R^d``; its minimiser lies in the ball of
radius ``sqrt(2 / lam)`` (the objective at the minimiser is at most its value ``mean(y^2) <= 1``
at zero), which then plays the role of ``R`` in ``rho``; the classifiers' losses are
1-Lipschitz everywhere and need no ball.

**Guarantee.** Each fit is ``epsilon``-differentially private (pure, replace-one) with respect to
the rows after clipping, hence with respect to the raw rows (clipping is applied row by row),
through the L2 mechanism (Dwork, McSherry, Nissim and Smith 2006; the paper's Theorem 8): the
output density ratio is at most ``exp(eps ||u - v|| / Delta) <= exp(eps)``. It holds with
``rng=None`` (or an unseeded generator) only. The noise is continuous: sampled in floating point
by ``privlearn.mechanisms.l2_laplace_noise``, it is not floating-point safe (Mironov 2012).

**Exactness.** The regressors' minimiser is computed in closed form (eigendecomposition and
secular equation; :func:`privlearn.learners._solvers.ridge_ball`), so the sensitivity applies
with no solver inflation (errata B3). The classifiers' minimiser is found by Newton's method
with a certified gradient (or KKT) residual ``tau = 1e-6 lam Delta / 2``, within ``tau / lam`` of
the exact one, and the noise is calibrated to ``Delta (1 + 1e-6)``.
"""

from __future__ import annotations

import math
from typing import Any, Dict, Optional, Tuple

import numpy as np
from sklearn.base import BaseEstimator

from .. import _core
from .._validate import check_choice, check_epsilon, check_integer
from ..accounting._accountant import check_accountant
from ..errors import InvalidParameterError
from ..random import _core_rng
from . import _base
from ._base import LinearClassifierMixin, LinearRegressorMixin, Normalised, PrivateEstimatorMixin
from ._solvers import RidgeSpectrum, newton_ball, ridge_ball

__all__ = [
    "OutputPerturbationRegressor",
    "OutputPerturbationClassifier",
    "rls_out",
    "data_independent_parameters",
    "output_sensitivity",
]

VARIANTS = ("strongly_convex", "general_convex", "rls_out")
SENSITIVITY_BOUNDS = ("paper", "tight")
#: Relative inflation of the classifiers' sensitivity that pays for the certified solver residual.
SOLVER_SLACK = 1e-6


def output_sensitivity(
    n: int,
    alpha: float,
    radius: Optional[float],
    lipschitz: float,
    *,
    variant: str = "strongly_convex",
    sensitivity_bound: str = "paper",
) -> float:
    r"""L2 sensitivity of the regularised minimiser (normalised units; table in the module
    docstring).

    Parameters
    ----------
    n : int
        Number of training rows (public).
    alpha : float
        The Tikhonov weight ``lam``.
    radius : float or None
        The ball ``R`` containing every minimiser (``None``: unbounded, only for
        ``variant="strongly_convex"``).
    lipschitz : float
        ``rho``, the Lipschitz constant of the per-example loss on that ball.
    variant : {"strongly_convex", "general_convex", "rls_out"}
    sensitivity_bound : {"paper", "tight"}

    Returns
    -------
    float
    """
    if sensitivity_bound == "tight":
        tight = 2.0 * lipschitz / (alpha * n)
        return tight if radius is None else min(tight, 2.0 * radius)
    if variant == "strongly_convex":
        return 4.0 * lipschitz / (alpha * n)
    if radius is None:
        raise InvalidParameterError(
            f"radius: variant {variant!r} needs a radius; got None", "radius"
        )
    if variant == "general_convex":
        return 4.0 * (lipschitz + alpha * radius) / (alpha * n)
    return (12.0 * radius + 8.0) / (alpha * n)


def data_independent_parameters(
    n_samples: int, n_features: int, epsilon: float
) -> Dict[str, float]:
    r"""Wu et al.'s data-independent parameters for output perturbation (Section 5):
    ``radius = 1`` and ``alpha = sqrt(d / (n epsilon))`` (Theorem 21's choice
    ``lam = (rho/R) sqrt(d ln(d/delta) / (n delta eps))`` with the constants dropped).

    They depend only on public quantities, so using them keeps the fit ``epsilon``-DP.

    Examples
    --------
    >>> p = data_independent_parameters(3000, 14, 0.1)
    >>> round(p["alpha"], 5), p["radius"]
    (0.21602, 1.0)
    """
    n = check_integer(n_samples, "n_samples", 1)
    d = check_integer(n_features, "n_features", 1)
    eps = check_epsilon(epsilon, exact=True)
    return {"alpha": math.sqrt(d / (n * eps)), "radius": 1.0}


def _draw_l2(dim: int, scale: float, rng: Any) -> np.ndarray:
    return np.asarray(_core.l2_laplace_noise(dim, scale, None, _core_rng(rng)), dtype=np.float64)


class _OutputPerturbation(BaseEstimator):
    """Shared parameter checks of the two output-perturbation estimators."""

    def _common_params(self) -> Tuple[float, str, str, float, bool]:
        eps = check_epsilon(self.epsilon, exact=True)  # type: ignore[attr-defined]
        variant = check_choice(self.variant, "variant", VARIANTS)  # type: ignore[attr-defined]
        bound = check_choice(self.sensitivity_bound, "sensitivity_bound", SENSITIVITY_BOUNDS)  # type: ignore[attr-defined]
        data_norm = _base.bound_arg(self.data_norm, "data_norm")  # type: ignore[attr-defined]
        fit_intercept = _base.boolean(self.fit_intercept, "fit_intercept")  # type: ignore[attr-defined]
        check_accountant(self.accountant)
        return eps, variant, bound, data_norm, fit_intercept


class OutputPerturbationRegressor(PrivateEstimatorMixin, LinearRegressorMixin, _OutputPerturbation):
    r"""Private linear regression by output perturbation (Wu et al., Algorithms 1, 2 and 4).

    Ridge regression with the mean squared loss ``(1/n) sum (<w,x> - y)^2 + (alpha/2)||w||^2``,
    restricted to the ball ``||w|| <= radius`` and solved exactly, then released with L2-Laplace
    noise of scale ``Delta / epsilon`` (the sensitivities and their sources are in
    :mod:`privlearn.learners.output_perturbation`).

    **Guarantee.** ``fit`` is ``epsilon``-differentially private (pure DP, replace-one
    neighbours, ``n`` public) when ``rng`` is ``None`` or an unseeded generator; a known seed voids
    it. **Declared bounds:** every row ``x`` is clipped to ``||x|| <= data_norm`` and every label to
    ``[-label_bound, label_bound]`` before fitting (the bounds are parameters, never read from the
    data); ``radius`` and ``alpha`` refer to the problem scaled by these bounds into the unit
    ball (rows ``x / data_norm``, labels ``y / label_bound``). ``coef_`` is in the original units;
    ``predict`` does not clip.

    Parameters
    ----------
    epsilon : float
        Privacy parameter, finite and > 0.
    alpha : float or "auto", default "auto"
        Tikhonov weight (the paper's lambda) of the normalised problem. ``"auto"`` is the
        data-independent choice ``sqrt(d / (n epsilon))`` (:func:`data_independent_parameters`;
        ``n`` and ``d`` are public).
    radius : float or None, default 1.0
        Radius ``R`` of the hypothesis ball in the normalised problem; ``None`` minimises over
        all of ``R^d`` (``variant="strongly_convex"`` only; the implied ball has radius
        ``sqrt(2/alpha)``). The paper's data-independent choice is 1.
    data_norm : float, required
        Declared bound on the rows' L2 norm; rows are clipped to it. No default (a bound
        changes the result): ``None`` raises ``InvalidParameterError`` at ``fit``, before the
        data are read and without charging anything. Choose it from domain knowledge, never
        from the data.
    label_bound : float, required
        Declared bound on ``|y|``; labels are clipped to it. Required, as ``data_norm``.
    variant : {"strongly_convex", "general_convex", "rls_out"}, default "strongly_convex"
        Which theorem calibrates the noise: Theorem 14 (``4 rho / (alpha n)``), Algorithm 2 /
        Theorem 16 (``4 (rho + alpha R) / (alpha n)``) or Algorithm 4, rls-out
        (``(12 R + 8) / (alpha n)``, ``alpha <= 1`` only), with ``rho = 2(R + 1)``.
    sensitivity_bound : {"paper", "tight"}, default "paper"
        ``"tight"`` uses ``min(2 rho / (alpha n), 2R)`` instead (errata B5; proof in the module
        docstring).
    fit_intercept : bool, default False
        Fit an intercept through a constant column equal to ``data_norm`` (the paper fits
        none: its data are centred).
    accountant : Accountant, optional
        Each fit spends ``Budget(epsilon)`` from it, only if the fit succeeds; a spend that does
        not fit raises ``BudgetExceededError`` before anything is drawn. Clones share it.
    rng : None, int or Generator, optional
        Randomness (:mod:`privlearn.random`). An integer seed makes every fit draw the same
        noise (reproducible, not private). Clones share a Generator.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    alpha_ : float
        The Tikhonov weight used.
    sensitivity_ : float
        ``Delta``, in the normalised units.
    noise_scale_ : float
        ``Delta / epsilon``: the noise density is proportional to ``exp(-||k|| / noise_scale_)``
        (normalised units).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.learners import OutputPerturbationRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(-1, 1, size=(100_000, 3)) / 2      # rows of norm <= 0.87 <= data_norm
    >>> y = X @ np.array([0.5, -0.25, 0.0])
    >>> model = OutputPerturbationRegressor(
    ...     5.0, alpha=0.005, data_norm=1.0, label_bound=1.0, rng=7  # seeded: not private
    ... ).fit(X, y)
    >>> model.noise_scale_   # 4 rho / (alpha n eps) with rho = 2(R + 1) = 4
    0.0064
    >>> bool(np.abs(model.coef_ - [0.5, -0.25, 0.0]).max() < 0.05)
    True
    """

    def __init__(
        self,
        epsilon: Optional[float],
        *,
        alpha: Any = "auto",
        radius: Optional[float] = 1.0,
        data_norm: Optional[float] = None,
        label_bound: Optional[float] = None,
        variant: str = "strongly_convex",
        sensitivity_bound: str = "paper",
        fit_intercept: bool = False,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.alpha = alpha
        self.radius = radius
        self.data_norm = data_norm
        self.label_bound = label_bound
        self.variant = variant
        self.sensitivity_bound = sensitivity_bound
        self.fit_intercept = fit_intercept
        self.accountant = accountant
        self.rng = rng

    def _radius(self, variant: str) -> Optional[float]:
        radius = _base.radius_arg(self.radius)
        if radius is None and variant != "strongly_convex":
            raise InvalidParameterError(
                f"radius: variant {variant!r} needs a radius (Algorithms 2 and 4 work on a ball); got None",
                "radius",
            )
        return radius

    def _check_params(self) -> None:
        _, variant, _, _, _ = self._common_params()
        _base.bound_arg(self.label_bound, "label_bound")
        self._radius(variant)
        _base.check_alpha(self.alpha)

    def _prepare(self, X: Any, y: Any) -> Normalised:
        """Check the bounds, validate, clip and normalise the data."""
        self._common_params()
        return _base.regression_data(self, X, y)

    def _calibrate(self, n: int, d: int) -> Tuple[float, Optional[float], float, float]:
        """``(alpha, radius, sensitivity, epsilon)`` for ``n`` rows and ``d`` coefficients."""
        eps, variant, bound, _, _ = self._common_params()
        radius = self._radius(variant)
        alpha = _base.alpha_arg(self.alpha, n, d, eps)
        if variant == "rls_out" and alpha > 1.0:
            raise InvalidParameterError(
                f"alpha: Algorithm 4's constant 12R + 8 is valid only for alpha <= 1; got {alpha!r} "
                "(use variant='general_convex', whose constant holds for every alpha)",
                "alpha",
            )
        # Without a radius the minimiser lies in the ball of radius sqrt(2/alpha) whatever the data.
        ball = math.sqrt(2.0 / alpha) if radius is None else radius
        delta = output_sensitivity(
            n, alpha, ball, 2.0 * (ball + 1.0), variant=variant, sensitivity_bound=bound
        )
        return alpha, radius, delta, eps

    def _noise_free(self, data: Normalised, alpha: float, radius: Optional[float]) -> np.ndarray:
        return ridge_ball(RidgeSpectrum.from_data(data.X, data.y), alpha, radius)[0]

    def fit(self, X: Any, y: Any) -> "OutputPerturbationRegressor":
        """Fit on ``(X, y)``, spending ``epsilon`` (see the class docstring).

        Parameters
        ----------
        X : array_like of shape (n_samples, n_features)
        y : array_like of shape (n_samples,)

        Returns
        -------
        self

        Raises
        ------
        InvalidParameterError
            On a bad parameter, a missing bound, or bad data (NaN, inf, wrong shapes); nothing is
            drawn or spent.
        BudgetExceededError
            If the accountant cannot pay ``epsilon``; nothing is drawn.
        """

        def release() -> Tuple[Normalised, np.ndarray, float, float]:
            self._check_params()  # parameter errors before the data's
            data = self._prepare(X, y)
            alpha, radius, delta, eps = self._calibrate(data.n, data.d)
            w = self._noise_free(data, alpha, radius) + _draw_l2(data.d, delta / eps, self.rng)
            return data, w, alpha, delta

        eps = check_epsilon(self.epsilon, exact=True)
        self._check_params()  # a missing bound is refused before a budget error, too
        data, w, alpha, delta = _base.charged(self.accountant, eps, type(self).__name__, release)
        self.coef_, self.intercept_ = data.coefficients(w)
        self.alpha_ = alpha
        self.sensitivity_ = delta
        self.noise_scale_ = delta / eps
        return self


def rls_out(
    X: Any,
    y: Any,
    epsilon: float,
    *,
    alpha: float,
    radius: float,
    data_norm: float,
    label_bound: float,
    accountant: Any = None,
    rng: Any = None,
) -> np.ndarray:
    r"""rls-out, Wu et al.'s private linear regression (Algorithm 4).

    ``w_bar = argmin_{||w|| <= R} (1/n) sum (<w,x_i> - y_i)^2 + (lam/2)||w||^2`` on the rows
    clipped to ``data_norm`` and labels clipped to ``label_bound`` (then scaled into the unit
    ball), released as ``w_bar + k`` with ``p(k) ∝ exp(-lam n eps ||k|| / (12 R + 8))``.

    **Guarantee:** ``epsilon``-DP (pure, replace-one) for ``alpha <= 1`` (Algorithm 2 with the
    squared loss's Lipschitz constant ``rho = 2R + 2`` on the ball: ``4(rho + lam R) <= 12R + 8``
    iff ``lam <= 1``; larger ``alpha`` is refused). Same as
    ``OutputPerturbationRegressor(epsilon, alpha=alpha, radius=radius, data_norm=data_norm,
    label_bound=label_bound, variant="rls_out")``.

    Parameters
    ----------
    X, y : array_like
        Training data.
    epsilon : float
    alpha : float
        The paper's lambda, in ``(0, 1]``.
    radius : float
        The paper's R.
    data_norm, label_bound : float, required keyword-only
        Declared bounds on the rows' L2 norm and on ``|y|`` (clipped to). No default;
        ``None`` raises ``InvalidParameterError`` before the data are read, charging nothing.
    accountant : Accountant, optional
    rng : None, int or Generator, optional

    Returns
    -------
    numpy.ndarray of shape (n_features,)
        The private coefficients, in the original units.
    """
    model = OutputPerturbationRegressor(
        epsilon,
        alpha=alpha,
        radius=radius,
        data_norm=data_norm,
        label_bound=label_bound,
        variant="rls_out",
        accountant=accountant,
        rng=rng,
    )
    return model.fit(X, y).coef_


# --------------------------------------------------------------------------------------------
# Classification
# --------------------------------------------------------------------------------------------


class OutputPerturbationClassifier(
    PrivateEstimatorMixin, LinearClassifierMixin, _OutputPerturbation
):
    r"""Private binary linear classification by output perturbation (Wu et al., Algorithms 1
    and 2; Chaudhuri, Monteleoni and Sarwate, JMLR 2011, Algorithm 1).

    Minimises ``(1/n) sum loss(y_i <w, x_i>) + (alpha/2)||w||^2`` (over ``||w|| <= radius`` if a
    radius is given) with the logistic loss ``log(1 + e^{-m})`` or the smoothed (Huberised)
    hinge loss of Chaudhuri et al. (``0`` for ``m > 1 + h``, ``(1 + h - m)^2 / (4h)`` for
    ``|1 - m| <= h``, ``1 - m`` below), both 1-Lipschitz for ``||x|| <= 1``, and releases it with
    L2-Laplace noise. Sensitivity (normalised units, ``rho = 1``): ``4 / (alpha n)``
    (``strongly_convex``, Theorem 14), ``4 (1 + alpha R) / (alpha n)`` (``general_convex``,
    Algorithm 2, needs ``radius``) or, with ``sensitivity_bound="tight"``,
    ``min(2 / (alpha n), 2R)`` (Chaudhuri et al.'s output-perturbation constant), inflated by a
    relative ``1e-6`` for the certified solver residual.

    **Guarantee.** ``fit`` is ``epsilon``-differentially private (pure, replace-one, ``n``
    public) with ``rng=None`` or an unseeded generator. **Declared bound:** rows are clipped to
    ``||x|| <= data_norm``; ``alpha`` and ``radius`` refer to the rows scaled by ``data_norm``.
    Binary classification only.

    Parameters
    ----------
    epsilon : float
    alpha : float or "auto", default "auto"
        Tikhonov weight; ``"auto"`` is ``sqrt(d / (n epsilon))``.
    loss : {"logistic", "smoothed_hinge"}, default "logistic"
    radius : float or None, default None
        Hypothesis ball in the normalised problem (required by ``variant="general_convex"``).
    data_norm : float, required
        Declared bound on the rows' L2 norm (clipped to). No default: ``None`` raises
        ``InvalidParameterError`` at ``fit``, before the data are read, charging nothing.
    smoothing : float, default 0.5
        ``h`` of the smoothed hinge loss.
    variant : {"strongly_convex", "general_convex"}, default "strongly_convex"
    sensitivity_bound : {"paper", "tight"}, default "paper"
    fit_intercept : bool, default False
        Fit an intercept through a constant column equal to ``data_norm``.
    classes : sequence of two labels
        The declared labels (``classes[1]``, after sorting, is the positive class). Required
        (``None`` is refused before the data are read): which labels occur in ``y`` is private,
        so they are never read from it. ``y`` may hold one of them only; a label outside them
        is refused before anything is charged (the message quotes no label).
    accountant : Accountant, optional
        Each fit spends ``Budget(epsilon)``.
    rng : None, int or Generator, optional

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    classes_ : ndarray of shape (2,)
    alpha_, sensitivity_, noise_scale_ : float
        As for :class:`OutputPerturbationRegressor`.
    n_features_in_ : int
    """

    def __init__(
        self,
        epsilon: Optional[float],
        *,
        alpha: Any = "auto",
        loss: str = "logistic",
        radius: Optional[float] = None,
        data_norm: Optional[float] = None,
        smoothing: float = 0.5,
        variant: str = "strongly_convex",
        sensitivity_bound: str = "paper",
        fit_intercept: bool = False,
        classes: Any = None,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.alpha = alpha
        self.loss = loss
        self.radius = radius
        self.data_norm = data_norm
        self.smoothing = smoothing
        self.classes = classes
        self.variant = variant
        self.sensitivity_bound = sensitivity_bound
        self.fit_intercept = fit_intercept
        self.accountant = accountant
        self.rng = rng

    def fit(self, X: Any, y: Any) -> "OutputPerturbationClassifier":
        """Fit on ``(X, y)`` (two classes), spending ``epsilon``; errors as for
        :meth:`OutputPerturbationRegressor.fit`."""

        def release() -> Tuple[Normalised, np.ndarray, np.ndarray, float, float]:
            eps, variant, bound, _, _ = self._common_params()
            if variant == "rls_out":
                raise InvalidParameterError(
                    "variant: 'rls_out' is the squared-loss Algorithm 4; use 'strongly_convex' "
                    "or 'general_convex'",
                    "variant",
                )
            loss = _base.classification_loss(self)
            radius = _base.radius_arg(self.radius)
            if radius is None and variant == "general_convex":
                raise InvalidParameterError(
                    "radius: variant 'general_convex' (Algorithm 2) needs a radius; got None",
                    "radius",
                )
            _base.check_alpha(self.alpha)
            classes, data = _base.classification_data(self, X, y)
            alpha = _base.alpha_arg(self.alpha, data.n, data.d, eps)
            delta = output_sensitivity(
                data.n, alpha, radius, loss.lipschitz, variant=variant, sensitivity_bound=bound
            )
            w, _ = newton_ball(
                loss, data.X, data.y, alpha, radius, tol=SOLVER_SLACK * alpha * delta / 2.0
            )
            delta *= 1.0 + SOLVER_SLACK
            w = w + _draw_l2(data.d, delta / eps, self.rng)
            return data, w, classes, alpha, delta

        eps = check_epsilon(self.epsilon, exact=True)
        _base.bound_arg(self.data_norm, "data_norm")  # refused before a budget error, too
        data, w, classes, alpha, delta = _base.charged(
            self.accountant, eps, type(self).__name__, release
        )
        self._set_classifier(data, w, classes)
        self.alpha_ = alpha
        self.sensitivity_ = delta
        self.noise_scale_ = delta / eps
        return self
