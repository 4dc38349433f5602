r"""Objective perturbation (Chaudhuri, Monteleoni and Sarwate, "Differentially private empirical
risk minimization", JMLR 12, 2011, Algorithm 2 and Theorem 9), the baseline of Wu et al.'s
Figure 4.

**What is implemented, and which theorem covers it.** CMS11's Theorem 9: let the rows satisfy
``||x|| <= 1``, the regulariser be ``(Lam/2)||w||^2``, and the per-example loss be a convex,
twice-differentiable function ``l`` of one linear form of ``w`` whose gradient has norm at most 1
and whose Hessian is ``l'' x x^T`` with ``0 <= l'' <= c`` (everywhere in ``R^d``). Then::

    eps' = eps - log(1 + 2c/(n Lam) + c^2/(n Lam)^2)
    if eps' > 0: Delta = 0  else: Delta = c / (n (e^{eps/4} - 1)) - Lam,  eps' = eps/2
    draw b with density ∝ exp(-(eps'/2) ||b||)
    output argmin_{w in R^d} (1/n) sum l_i(w) + (Lam/2)||w||^2 + (1/n) b^T w + (Delta/2)||w||^2

is ``eps``-differentially private (replace-one): ``b`` is a bijective function of the output (the
gradient of the objective vanishes there; the minimisation is **unconstrained**), the densities
of ``b`` on neighbours differ by at most ``exp((eps'/2) * 2)`` (two gradients of norm <= 1) and
the Jacobians by at most ``(1 + c/(n(Lam + Delta)))^2``. This module applies it to losses that
meet its conditions **globally** (the project's errata B2, option (b)):

* logistic ``log(1 + e^{-y<w,x>})``: ``|l'| <= 1``, ``c = 1/4`` (CMS11's logistic regression);
* smoothed (Huberised) hinge with parameter ``h``: ``|l'| <= 1``, ``c = 1/(2h)`` (CMS11's
  Huber support vector machine);
* pseudo-Huber regression ``phi(t) = delta^2 (sqrt(1 + (t/delta)^2) - 1)`` of the residual
  ``t = <w,x> - y``, divided by ``delta``: ``|phi'/delta| < 1``, ``phi''/delta <= 1/delta``, and
  its gradient and Hessian have the rank-one form ``g x`` and ``h x x^T`` that the proof uses
  (the linear form is ``<w, x>``; the label only shifts it). This instance is not in CMS11's
  paper; it satisfies the hypotheses of its Theorem 9 as stated above.

The squared loss does **not** satisfy them (its gradient is unbounded on ``R^d``), and the
constrained (ball) version of Wu et al.'s Algorithm 3 is not covered by CMS11's proof (errata
B2); neither is offered. The paper's printed Algorithm 3 also has ``beta = eps/2`` where CMS11
has ``eps'/2``, and omits the ``Delta`` term: both are corrected here.

**Exactness.** The proof needs the exact minimiser. Newton's method is run to a gradient
residual at most ``tau = 1e-6 eps / (n beta)`` (``beta = eps'/2``): the output is then the exact
minimiser for the noise ``b - n r`` with ``||n r|| <= 1e-6 eps / beta``, which moves the noise
density by a factor at most ``exp(1e-6 eps)``. That accounting of the residual is a heuristic,
not part of CMS11's theorem (as for every floating-point implementation of it), and the noise is
sampled in floating point (``l2_laplace_noise``): not floating-point safe.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple

import numpy as np
from sklearn.base import BaseEstimator

from .. import _core
from .._validate import check_epsilon, check_real
from ..random import _core_rng
from . import _base
from ._base import LinearClassifierMixin, LinearRegressorMixin, Normalised, PrivateEstimatorMixin
from ._solvers import Loss, newton

__all__ = [
    "ObjectivePerturbationClassifier",
    "ObjectivePerturbationRegressor",
    "objective_perturbation_parameters",
]

#: Relative precision of the solver (see the module docstring).
SOLVER_PRECISION = 1e-6


def objective_perturbation_parameters(
    epsilon: float, n: int, reg: float, curvature: float
) -> Tuple[float, float]:
    r"""CMS11 Algorithm 2, steps 1-2: ``(eps', Delta)`` for a loss with ``l'' <= curvature``,
    ``|l'| <= 1`` and Tikhonov weight ``reg`` (``Lam``) on ``n`` rows.

    ``eps' = eps - log(1 + 2c/(n Lam) + c^2/(n Lam)^2)``; if it is not positive,
    ``Delta = c / (n (e^{eps/4} - 1)) - Lam`` (computed with ``expm1``) and ``eps' = eps/2``;
    otherwise ``Delta = 0``. The noise ``b`` then has density ``∝ exp(-(eps'/2)||b||)``.

    Examples
    --------
    >>> objective_perturbation_parameters(1.0, 1000, 0.01, 0.25)[1]
    0.0
    >>> eps1, extra = objective_perturbation_parameters(0.1, 100, 0.001, 0.25)
    >>> eps1, round(extra, 4)
    (0.05, 0.0978)
    """
    ratio = curvature / (n * reg)
    eps1 = epsilon - 2.0 * math.log1p(ratio)
    if eps1 > 0.0:
        return eps1, 0.0
    extra = curvature / (n * math.expm1(epsilon / 4.0)) - reg
    return epsilon / 2.0, max(extra, 0.0)


class _ObjectivePerturbation(BaseEstimator):
    def _release(
        self, data: Normalised, loss: Loss, scale: float, alpha: float, eps: float
    ) -> Tuple[np.ndarray, float, float]:
        """The CMS11 minimiser for the loss ``scale * l`` (``l`` meeting Theorem 9 with
        curvature ``loss.curvature / scale``) and Tikhonov weight ``alpha`` on that scaled
        objective; returns ``(w, eps', Delta)``."""
        n = data.n
        lam = alpha / scale  # weight relative to the normalised loss l = phi / scale
        curvature = loss.curvature / scale
        eps1, extra = objective_perturbation_parameters(eps, n, lam, curvature)
        beta = eps1 / 2.0
        rng = _core_rng(self.rng)  # type: ignore[attr-defined]
        b = np.asarray(_core.l2_laplace_noise(data.d, 1.0 / beta, None, rng), dtype=np.float64)
        # Minimise (1/n) sum phi + (alpha/2)||w||^2 + scale ((1/n) b + (Delta/2) w) . w, which is
        # `scale` times CMS11's objective for l = phi / scale.
        tol = SOLVER_PRECISION * eps * scale / (n * beta)
        w, _ = newton(loss, data.X, data.y, alpha + scale * extra, lin=scale * b / n, tol=tol)
        return w, eps1, extra


class ObjectivePerturbationClassifier(
    PrivateEstimatorMixin, LinearClassifierMixin, _ObjectivePerturbation
):
    r"""Private binary linear classification by objective perturbation (Chaudhuri, Monteleoni
    and Sarwate 2011, Algorithm 2 and Theorem 9; Wu et al.'s Algorithm 3 with its errata).

    Minimises ``(1/n) sum loss(y_i <w,x_i>) + (alpha/2)||w||^2 + (1/n) b^T w + (Delta/2)||w||^2``
    over ``R^d`` with the logistic loss (``c = 1/4``) or the smoothed hinge loss
    (``c = 1/(2 smoothing)``); ``b``, ``Delta`` and ``eps'`` as in
    :mod:`privlearn.learners.objective_perturbation`.

    **Guarantee.** ``fit`` is ``epsilon``-differentially private (pure, replace-one, ``n``
    public) by CMS11's Theorem 9, with ``rng=None`` or an unseeded generator. **Declared bound:**
    rows are clipped to ``||x|| <= data_norm`` (``alpha`` refers to the rows scaled by it).
    Binary classification only.

    Parameters
    ----------
    epsilon : float
    alpha : float or "auto", default "auto"
        ``Lam``; ``"auto"`` is ``sqrt(d / (n epsilon))``.
    loss : {"logistic", "smoothed_hinge"}, default "logistic"
    data_norm : float, required
        Declared bound on the rows' L2 norm (clipped to). No default (a bound changes the
        result): ``None`` raises ``InvalidParameterError`` at ``fit``, before the data are read,
        charging nothing.
    smoothing : float, default 0.5
        ``h`` of the smoothed hinge loss.
    fit_intercept : bool, default False
        Through a constant column equal to ``data_norm``.
    classes : sequence of two labels
        The declared labels; required, never read from ``y`` (as for
        :class:`~privlearn.learners.OutputPerturbationClassifier`).
    accountant : Accountant, optional
        Each fit spends ``Budget(epsilon)``.
    rng : None, int or Generator, optional

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
    intercept_ : ndarray of shape (1,)
    classes_ : ndarray of shape (2,)
    alpha_ : float
    epsilon_noise_ : float
        ``eps'``: the noise has density ``∝ exp(-(eps'/2)||b||)``.
    extra_regularization_ : float
        ``Delta``.
    n_features_in_ : int
    """

    def __init__(
        self,
        epsilon: Optional[float],
        *,
        alpha: Any = "auto",
        loss: str = "logistic",
        data_norm: Optional[float] = None,
        smoothing: float = 0.5,
        fit_intercept: bool = False,
        classes: Any = None,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.alpha = alpha
        self.loss = loss
        self.data_norm = data_norm
        self.smoothing = smoothing
        self.fit_intercept = fit_intercept
        self.classes = classes
        self.accountant = accountant
        self.rng = rng

    def fit(self, X: Any, y: Any) -> "ObjectivePerturbationClassifier":
        """Fit on ``(X, y)`` (two classes), spending ``epsilon``.

        Raises
        ------
        InvalidParameterError
            On a bad parameter or bad data; nothing is drawn or spent.
        BudgetExceededError
            If the accountant cannot pay ``epsilon``; nothing is drawn.
        """

        def release() -> Tuple[Normalised, np.ndarray, np.ndarray, float, float, float]:
            loss = _base.classification_loss(self)
            _base.check_alpha(self.alpha)
            classes, data = _base.classification_data(self, X, y)
            alpha = _base.alpha_arg(self.alpha, data.n, data.d, eps)
            w, eps1, extra = self._release(data, loss, 1.0, alpha, eps)
            return data, w, classes, alpha, eps1, extra

        eps = check_epsilon(self.epsilon, exact=True)
        _base.bound_arg(self.data_norm, "data_norm")  # refused before a budget error, too
        data, w, classes, alpha, eps1, extra = _base.charged(
            self.accountant, eps, type(self).__name__, release
        )
        self._set_classifier(data, w, classes)
        self.alpha_ = alpha
        self.epsilon_noise_ = eps1
        self.extra_regularization_ = extra
        return self


class ObjectivePerturbationRegressor(
    PrivateEstimatorMixin, LinearRegressorMixin, _ObjectivePerturbation
):
    r"""Private linear regression by objective perturbation with the pseudo-Huber loss
    (Chaudhuri, Monteleoni and Sarwate 2011, Algorithm 2 and Theorem 9; the project's errata
    B2, option (b)).

    Minimises, over ``R^d``, ``(1/n) sum phi(<w,x_i> - y_i) + (alpha/2)||w||^2 + (delta/n) b^T w
    + (delta Delta/2)||w||^2`` with ``phi(t) = delta^2 (sqrt(1 + (t/delta)^2) - 1)``
    (``delta = huber_delta``; ``phi(t) ~ t^2/2`` for ``|t| << delta``, ``~ delta |t|`` beyond).
    Divided by ``delta`` this is CMS11's objective for the loss ``phi/delta`` (gradient norm
    < 1, curvature ``c = 1/delta``) with ``Lam = alpha/delta``, so ``c / Lam = 1/alpha``:
    ``eps' = eps - 2 log(1 + 1/(n alpha))``. The squared loss itself has no global gradient bound
    and is not covered by CMS11's proof, which is why it is not offered.

    **Guarantee.** ``fit`` is ``epsilon``-differentially private (pure, replace-one, ``n``
    public) by CMS11's Theorem 9, with ``rng=None`` or an unseeded generator. **Declared
    bounds:** rows are clipped to ``||x|| <= data_norm`` and labels to
    ``[-label_bound, label_bound]``; ``alpha`` and ``huber_delta`` refer to the problem scaled by
    them into the unit ball.

    Parameters
    ----------
    epsilon : float
    alpha : float or "auto", default "auto"
        Tikhonov weight of the pseudo-Huber objective (half the ridge weight of the squared loss
        ``t^2`` for the same shrinkage); ``"auto"`` is ``sqrt(d / (n epsilon))``.
    huber_delta : float, default 1.0
        ``delta`` of the pseudo-Huber loss (normalised units).
    data_norm, label_bound : float, required
        Declared bounds on the rows' L2 norm and on ``|y|`` (clipped to). No defaults: ``None``
        raises ``InvalidParameterError`` at ``fit``, before the data are read, charging
        nothing.
    fit_intercept : bool, default False
    accountant : Accountant, optional
    rng : None, int or Generator, optional

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    alpha_, epsilon_noise_, extra_regularization_ : float
        As for :class:`ObjectivePerturbationClassifier` (``Delta`` relative to the loss
        ``phi/delta``).
    n_features_in_ : int
    """

    def __init__(
        self,
        epsilon: Optional[float],
        *,
        alpha: Any = "auto",
        huber_delta: float = 1.0,
        data_norm: Optional[float] = None,
        label_bound: Optional[float] = None,
        fit_intercept: bool = False,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.alpha = alpha
        self.huber_delta = huber_delta
        self.data_norm = data_norm
        self.label_bound = label_bound
        self.fit_intercept = fit_intercept
        self.accountant = accountant
        self.rng = rng

    def fit(self, X: Any, y: Any) -> "ObjectivePerturbationRegressor":
        """Fit on ``(X, y)``, spending ``epsilon``; errors as for
        :meth:`ObjectivePerturbationClassifier.fit`."""

        def release() -> Tuple[Normalised, np.ndarray, float, float, float]:
            delta_h = check_real(self.huber_delta, "huber_delta", 0.0, lo_open=True, exact=True)
            _base.check_alpha(self.alpha)
            data = _base.regression_data(self, X, y)
            alpha = _base.alpha_arg(self.alpha, data.n, data.d, eps)
            w, eps1, extra = self._release(data, Loss("pseudo_huber", delta_h), delta_h, alpha, eps)
            return data, w, alpha, eps1, extra

        eps = check_epsilon(self.epsilon, exact=True)
        _base.bound_arg(self.data_norm, "data_norm")  # refused before a budget error, too
        _base.bound_arg(self.label_bound, "label_bound")
        data, w, alpha, eps1, extra = _base.charged(
            self.accountant, eps, type(self).__name__, release
        )
        self.coef_, self.intercept_ = data.coefficients(w)
        self.alpha_ = alpha
        self.epsilon_noise_ = eps1
        self.extra_regularization_ = extra
        return self
