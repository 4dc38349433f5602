r"""The functional mechanism for linear regression (Zhang, Zhang, Xiao, Yang and Winslett,
"Functional mechanism: regression analysis under differential privacy", PVLDB 5(11), 2012:
Algorithm 1, with its regularisation and spectral trimming), the baseline of Wu et al. and of Fredrikson et al. (USENIX Security
2014).

The squared-error objective ``f_D(w) = sum_i (y_i - <x_i, w>)^2`` is a polynomial in ``w`` whose
coefficients are sums over the rows: the constant ``sum y_i^2``, the linear coefficients
``-2 sum y_i x_ij`` and the quadratic coefficients ``sum x_ij x_il`` of the monomials
``w_j w_l`` (``j <= l``; the coefficient of ``w_j w_l`` for ``j < l`` is ``2 sum x_ij x_il``).
Every coefficient gets independent Laplace noise of scale ``Delta / eps`` with

    ``Delta = 2 (d + 1)^2``

the L1 sensitivity of the coefficient vector when ``|x_j| <= 1`` and ``|y| <= 1`` (Zhang et al.'s
bound for linear regression; the constant term is perturbed too, as in their Algorithm 1, so the ``(d + 1)^2``
form applies: the project's errata B4; ``d`` counts an intercept column). The noisy objective is
then minimised: the symmetric quadratic form ``M`` gets ``reg_multiplier * Delta / eps`` added to
its diagonal (Zhang et al.'s regularisation; the default ``5 sqrt(2)`` is five standard
deviations of the noise, as in their reference code), its eigenpairs with eigenvalues below
``trim_threshold`` are dropped (their spectral trimming), and ``w = -(1/2) M^+ v`` on the kept
eigenspace, ``v`` the noisy linear coefficients. (Zhang's reference code instead perturbs all
``d^2`` entries of ``X^T X`` and symmetrises, which is also private but puts ``sqrt(2)`` times
more noise off the diagonal; its noisy quadratic form is then indefinite more often, and its
trimmed solutions wilder.)

**Guarantee.** ``epsilon``-differentially private (pure, replace-one): the Laplace mechanism on
the coefficient vector (Dwork et al. 2006), then post-processing. The Laplace noise is sampled
exactly (``privlearn.mechanisms.laplace``'s default path). Rows are clipped to the declared
``||x|| <= data_norm`` and labels to ``label_bound`` and scaled by them, which gives
``|x_j| <= ||x|| <= 1``.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple

import numpy as np
from sklearn.base import BaseEstimator

from .. import _core
from .._validate import check_epsilon, check_integer, check_real
from ..random import _core_rng
from . import _base
from ._base import LinearRegressorMixin, Normalised, PrivateEstimatorMixin

__all__ = ["FunctionalMechanismRegressor", "functional_sensitivity", "polynomial_coefficients"]


def functional_sensitivity(n_coefficients: int) -> float:
    """Zhang et al.'s L1 sensitivity ``2 (d + 1)^2`` of the objective's coefficients, for ``d``
    coefficients of ``w`` (features plus intercept) with ``|x_j| <= 1``, ``|y| <= 1``."""
    d = check_integer(n_coefficients, "n_coefficients", 1)
    return 2.0 * (d + 1) ** 2


def polynomial_coefficients(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The coefficients of ``sum_i (y_i - <x_i, w>)^2`` as a polynomial in ``w``.

    Order: the constant ``sum y^2``; the ``d`` linear coefficients ``-2 X^T y``; the
    ``d(d+1)/2`` quadratic coefficients of ``w_j w_l`` for ``j <= l`` in row-major upper-triangle
    order (``sum x_j^2`` on the diagonal, ``2 sum x_j x_l`` off it).
    """
    gram = X.T @ X
    iu = np.triu_indices(X.shape[1])
    quad = np.where(iu[0] == iu[1], 1.0, 2.0) * gram[iu]
    return np.concatenate([[float(y @ y)], -2.0 * (X.T @ y), quad])


def _minimise(coeffs: np.ndarray, d: int, reg: float, trim: float) -> np.ndarray:
    """Zhang et al.'s post-processing of the noisy coefficients (regularise, trim, solve)."""
    v = coeffs[1 : d + 1]
    quad = coeffs[d + 1 :]
    iu = np.triu_indices(d)
    M = np.zeros((d, d))
    M[iu] = np.where(iu[0] == iu[1], 1.0, 0.5) * quad
    M = M + np.triu(M, 1).T
    M[np.diag_indices(d)] += reg
    sig, Q = np.linalg.eigh(M)
    keep = sig > trim
    if not np.any(keep):
        return np.zeros(d)
    Qk = Q[:, keep]
    return -0.5 * Qk @ ((Qk.T @ v) / sig[keep])


class FunctionalMechanismRegressor(PrivateEstimatorMixin, LinearRegressorMixin, BaseEstimator):
    r"""Private linear regression by the functional mechanism (Zhang et al., PVLDB 2012,
    Algorithm 1, with their regularisation and spectral trimming).

    See :mod:`privlearn.learners.functional` for the construction.

    **Guarantee.** ``fit`` is ``epsilon``-differentially private (pure, replace-one; Laplace noise
    sampled exactly) with ``rng=None`` or an unseeded generator. **Declared bounds:** rows are
    clipped to ``||x|| <= data_norm`` and labels to ``[-label_bound, label_bound]``, then scaled
    by them (so every coordinate is in ``[-1, 1]``, the condition of Zhang et al.'s
    sensitivity).

    Parameters
    ----------
    epsilon : float
    data_norm, label_bound : float, required
        Declared bounds on the rows' L2 norm and on ``|y|`` (clipped to). No defaults: ``None``
        raises ``InvalidParameterError`` at ``fit``, before the data are read, charging
        nothing.
    reg_multiplier : float, default 5 sqrt(2)
        The diagonal regularisation is ``reg_multiplier * Delta / epsilon`` (0 for none).
    trim_threshold : float, default 1e-8
        Eigenvalues of the regularised noisy quadratic form at or below it are dropped.
    fit_intercept : bool, default False
        Through a constant column equal to ``data_norm`` (it counts in ``d``).
    accountant : Accountant, optional
        Each fit spends ``Budget(epsilon)``.
    rng : None, int or Generator, optional

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    sensitivity_ : float
        ``2 (d + 1)^2``.
    n_features_in_ : int
    """

    def __init__(
        self,
        epsilon: Optional[float],
        *,
        data_norm: Optional[float] = None,
        label_bound: Optional[float] = None,
        reg_multiplier: float = 5.0 * math.sqrt(2.0),
        trim_threshold: float = 1e-8,
        fit_intercept: bool = False,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.data_norm = data_norm
        self.label_bound = label_bound
        self.reg_multiplier = reg_multiplier
        self.trim_threshold = trim_threshold
        self.fit_intercept = fit_intercept
        self.accountant = accountant
        self.rng = rng

    def _noisy_coefficients(
        self, X: Any, y: Any, eps: float
    ) -> Tuple[Normalised, np.ndarray, float]:
        """Validate, clip, normalise and release the noisy coefficient vector."""
        check_real(self.reg_multiplier, "reg_multiplier", 0.0, exact=True)
        check_real(self.trim_threshold, "trim_threshold", 0.0, lo_open=True, exact=True)
        data = _base.regression_data(self, X, y)
        delta = functional_sensitivity(data.d)
        coeffs = polynomial_coefficients(data.X, data.y)
        noisy = np.asarray(
            _core.laplace(coeffs, delta, eps, _core_rng(self.rng), "exact"), dtype=np.float64
        )
        return data, noisy, delta

    def fit(self, X: Any, y: Any) -> "FunctionalMechanismRegressor":
        """Fit on ``(X, y)``, spending ``epsilon``.

        Raises
        ------
        InvalidParameterError
            On a bad parameter, a missing bound or bad data; nothing is drawn or spent.
        BudgetExceededError
            If the accountant cannot pay ``epsilon``; nothing is drawn.
        """
        eps = check_epsilon(self.epsilon, exact=True)
        _base.bound_arg(self.data_norm, "data_norm")  # refused before a budget error, too
        _base.bound_arg(self.label_bound, "label_bound")
        data, noisy, delta = _base.charged(
            self.accountant, eps, type(self).__name__, lambda: self._noisy_coefficients(X, y, eps)
        )
        reg = float(self.reg_multiplier) * delta / eps
        w = _minimise(noisy, data.d, reg, float(self.trim_threshold))
        self.coef_, self.intercept_ = data.coefficients(w)
        self.sensitivity_ = delta
        return self
