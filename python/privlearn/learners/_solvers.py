"""Solvers for the regularised empirical risk minimisation problems of the private learners.

The privacy proofs bound the sensitivity of the *exact* minimiser, so the solvers either are
exact (closed form) or certify how far their answer can be from the exact one:

* :func:`ridge_ball` — squared loss, Tikhonov term, optional L2 ball: one eigendecomposition of
  the ``d x d`` Gram matrix and a root of the secular equation (the trust-region subproblem's
  closed form; Moré and Sorensen 1983). Exact up to floating-point rounding, so no tolerance
  inflation is needed (the project's errata B3). The eigendecomposition serves every
  ``(alpha, radius)`` pair.
* :func:`newton` / :func:`newton_ball` — smooth losses (logistic, smoothed hinge, pseudo-Huber):
  damped Newton iterations until the gradient residual is at most ``tol``. For a
  ``lam``-strongly convex objective the returned point is then within ``tol / lam`` of the exact
  minimiser (over the ball, with the residual ``grad + mu w`` of the KKT conditions: the returned
  point is the exact minimiser of the objective tilted by that residual, and strong convexity
  does the rest), and the output-perturbation learners add ``2 tol / lam`` to the sensitivity.

Objectives, with ``n`` rows ``x_i`` (``||x_i|| <= 1``) and labels ``y_i``::

    F(w) = (1/n) sum_i loss(<w, x_i>, y_i) + (lam/2) ||w||^2 + <lin, w>
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np
from scipy import linalg, special

from ..errors import PrivlearnError

__all__: list = []


# --------------------------------------------------------------------------------------------
# Squared loss: exact ridge on a ball
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RidgeSpectrum:
    """The data term of ``(1/n) ||X w - y||^2`` in the eigenbasis of its Hessian.

    ``A = (2/n) X^T X = V diag(sig) V^T`` and ``bt = V^T (2/n) X^T y``; the ridge minimiser for
    a total Tikhonov weight ``t`` is ``V (bt / (sig + t))``.
    """

    sig: np.ndarray
    V: np.ndarray
    bt: np.ndarray
    n: int

    @classmethod
    def from_data(cls, X: np.ndarray, y: np.ndarray) -> "RidgeSpectrum":
        n = X.shape[0]
        gram = X.T @ X
        xty = X.T @ y
        return cls.from_gram(gram, xty, n)

    @classmethod
    def from_gram(cls, gram: np.ndarray, xty: np.ndarray, n: int) -> "RidgeSpectrum":
        sig, V = np.linalg.eigh((2.0 / n) * gram)
        sig = np.maximum(sig, 0.0)  # A is positive semi-definite; clear rounding below zero
        return cls(sig, V, V.T @ ((2.0 / n) * xty), n)

    def coords(self, total: float) -> np.ndarray:
        """Eigenbasis coordinates of the minimiser with Tikhonov weight ``total``."""
        return self.bt / (self.sig + total)


def ridge_ball(
    spec: RidgeSpectrum, lam: float, radius: Optional[float]
) -> Tuple[np.ndarray, float]:
    r"""The exact minimiser of ``(1/n)||Xw - y||^2 + (lam/2)||w||^2`` over ``||w|| <= radius``.

    The first-order conditions are ``(A + (lam + mu) I) w = b`` with a multiplier ``mu >= 0``
    that is zero when the unconstrained minimiser lies in the ball; otherwise ``mu`` is the root
    of the secular equation ``1/||w(mu)|| = 1/radius``, whose left side is increasing and
    concave in ``mu``: safeguarded Newton iterations from ``mu = 0`` converge monotonically and
    quadratically, kept inside a bisection bracket ``[0, ||b|| / radius]``. Returns
    ``(w, mu)``.
    """
    q = spec.coords(lam)
    norm = float(np.linalg.norm(q))
    if radius is None or norm <= radius:
        return spec.V @ q, 0.0
    bt2 = spec.bt * spec.bt
    lo, hi = 0.0, float(np.linalg.norm(spec.bt)) / radius
    mu = 0.0
    for _ in range(200):
        s = spec.sig + lam + mu
        q = spec.bt / s
        norm = float(np.sqrt(np.dot(q, q)))
        h = 1.0 / norm - 1.0 / radius
        if h < 0.0:
            lo = max(lo, mu)
        else:
            hi = min(hi, mu)
        if abs(h) * radius <= 4 * np.finfo(float).eps:
            break
        dh = float(np.sum(bt2 / (s * s * s))) / norm**3
        step = mu - h / dh
        mu = step if lo < step < hi else 0.5 * (lo + hi)
        if hi - lo <= 4 * np.finfo(float).eps * max(hi, 1e-300):
            break
    w = spec.V @ q
    nw = float(np.linalg.norm(w))
    if nw > radius:  # rounding: put it back on the sphere
        w = w * (radius / nw)
    return w, mu


# --------------------------------------------------------------------------------------------
# Smooth losses
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Loss:
    """A convex loss of the prediction ``z = <w, x>`` and the label ``y``.

    ``lipschitz`` bounds ``|d loss / dz|`` (so the loss is ``lipschitz``-Lipschitz in ``w`` for
    ``||x|| <= 1``) and ``curvature`` bounds ``d^2 loss / dz^2``, everywhere.
    """

    name: str
    param: float = 0.0

    @property
    def lipschitz(self) -> float:
        return self.param if self.name == "pseudo_huber" else 1.0

    @property
    def curvature(self) -> float:
        if self.name == "logistic":
            return 0.25
        if self.name == "smoothed_hinge":
            return 1.0 / (2.0 * self.param)
        return 1.0  # pseudo-Huber

    def derivatives(
        self, z: np.ndarray, y: np.ndarray
    ) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Values, first and second derivatives in ``z``."""
        if self.name == "logistic":
            m = y * z
            v = np.logaddexp(0.0, -m)
            p = special.expit(-m)
            return v, -y * p, p * (1.0 - p)
        if self.name == "smoothed_hinge":
            h = self.param
            m = y * z
            gap = 1.0 + h - m  # > 0 where the loss is active
            quad = np.abs(1.0 - m) <= h
            lin = m < 1.0 - h
            v = np.where(lin, 1.0 - m, np.where(quad, gap * gap / (4.0 * h), 0.0))
            dm = np.where(lin, -1.0, np.where(quad, -gap / (2.0 * h), 0.0))
            d2 = np.where(quad, 1.0 / (2.0 * h), 0.0)
            return v, y * dm, d2
        if self.name == "pseudo_huber":
            dl = self.param
            t = z - y
            s = np.sqrt(1.0 + (t / dl) ** 2)
            return dl * dl * (s - 1.0), t / s, 1.0 / (s * s * s)
        raise AssertionError(self.name)  # pragma: no cover

    def value(self, z: np.ndarray, y: np.ndarray) -> np.ndarray:
        return self.derivatives(z, y)[0]


class SolverError(PrivlearnError):
    """The solver did not certify its answer (never seen in practice; nothing is drawn).

    Raised after the data were read: its message is fixed (no residual, tolerance or other
    value computed from the data), and the learners charge the budget when it is raised
    (:func:`privlearn.learners._base.charged`)."""


def _objective(
    loss: Loss, X: np.ndarray, y: np.ndarray, lam: float, lin: np.ndarray, w: np.ndarray
) -> float:
    return float(np.mean(loss.value(X @ w, y)) + 0.5 * lam * np.dot(w, w) + np.dot(lin, w))


def newton(
    loss: Loss,
    X: np.ndarray,
    y: np.ndarray,
    lam: float,
    *,
    lin: Optional[np.ndarray] = None,
    tol: float,
    w0: Optional[np.ndarray] = None,
    max_iter: int = 200,
) -> Tuple[np.ndarray, float]:
    """Minimise ``F`` (see the module docstring) until ``||grad F|| <= tol``.

    Damped Newton with an Armijo backtracking line search; ``F`` is ``lam``-strongly convex and
    smooth, so the iterations converge globally and, near the minimiser, quadratically. Returns
    ``(w, ||grad F(w)||)``; raises :class:`SolverError` if ``tol`` is not reached.
    """
    n, d = X.shape
    lin = np.zeros(d) if lin is None else lin
    w = np.zeros(d) if w0 is None else np.array(w0, dtype=np.float64)
    best = math.inf
    stalled = 0
    for _ in range(max_iter):
        z = X @ w
        v, d1, d2 = loss.derivatives(z, y)
        grad = X.T @ d1 / n + lam * w + lin
        gnorm = float(np.linalg.norm(grad))
        if gnorm <= tol:
            return w, gnorm
        if gnorm < best * 0.5:
            best, stalled = gnorm, 0
        else:
            stalled += 1
            if stalled > 8:
                break
        H = (X.T * d2) @ X / n
        H[np.diag_indices_from(H)] += lam
        p = -linalg.solve(H, grad, assume_a="pos", check_finite=False)
        slope = float(np.dot(grad, p))
        f0 = float(np.mean(v) + 0.5 * lam * np.dot(w, w) + np.dot(lin, w))
        t = 1.0
        if -slope > 1e-14 * max(1.0, abs(f0)):  # far from the minimiser: line search
            while t > 1e-12:
                if _objective(loss, X, y, lam, lin, w + t * p) <= f0 + 1e-4 * t * slope:
                    break
                t *= 0.5
        w = w + t * p
    # A fixed message: the residual is computed from the data.
    raise SolverError(
        "the Newton solver did not certify its gradient residual; nothing was released"
    )


def newton_ball(
    loss: Loss,
    X: np.ndarray,
    y: np.ndarray,
    lam: float,
    radius: Optional[float],
    *,
    tol: float,
) -> Tuple[np.ndarray, float]:
    r"""Minimise ``F`` (with ``lin = 0``) over ``||w|| <= radius`` to a certified residual.

    If the unconstrained minimiser is outside the ball, the constrained one is
    ``w(mu) = argmin F + (mu/2)||w||^2`` for the multiplier ``mu > 0`` with
    ``||w(mu)|| = radius`` (``||w(mu)||`` decreases in ``mu``): found by safeguarded Newton on
    ``1/||w(mu)|| - 1/radius`` inside the bracket ``[0, lipschitz / radius]``. The answer
    ``w`` (on the sphere) is certified by its KKT residual ``r = grad F(w) + mu_hat w`` with
    ``mu_hat = max(0, -<grad F(w), w> / radius^2)``: ``w`` exactly minimises ``F - <r, .>``
    over the ball, so ``||w - w*|| <= ||r|| / lam``. Returns ``(w, ||r||)``.
    """
    w, res = newton(loss, X, y, lam, tol=tol)
    if radius is None or np.linalg.norm(w) <= radius:
        return w, res
    n = X.shape[0]
    lo, hi = 0.0, loss.lipschitz / radius
    mu = 0.0
    inner = max(tol / 8.0, 1e-14)  # the search only needs to land near the root
    for _ in range(200):
        w, _ = newton(loss, X, y, lam + mu, tol=inner, w0=w)
        norm = float(np.linalg.norm(w))
        h = 1.0 / norm - 1.0 / radius
        if h < 0.0:
            lo = max(lo, mu)
        else:
            hi = min(hi, mu)
        if abs(norm - radius) <= 1e-14 * radius or hi - lo <= 1e-15 * max(hi, 1e-300):
            break
        d2 = loss.derivatives(X @ w, y)[2]
        H = (X.T * d2) @ X / n
        H[np.diag_indices_from(H)] += lam + mu
        # d||w(mu)||/dmu = -w^T H^{-1} w / ||w||, so dh/dmu = w^T H^{-1} w / ||w||^3.
        dh = float(np.dot(w, linalg.solve(H, w, assume_a="pos", check_finite=False))) / norm**3
        step = mu - h / dh
        mu = step if lo < step < hi else 0.5 * (lo + hi)
    # Polish (w, mu) together by Newton's method on the KKT system
    # grad F(w) + mu w = 0, (||w||^2 - R^2)/2 = 0 (quadratic convergence to the rounding floor).
    d = X.shape[1]
    for _ in range(4):
        _, d1, d2 = loss.derivatives(X @ w, y)
        g = X.T @ d1 / n + (lam + mu) * w
        K = np.zeros((d + 1, d + 1))
        K[:d, :d] = (X.T * d2) @ X / n
        K[np.diag_indices(d)] += lam + mu
        K[:d, d] = K[d, :d] = w
        kkt = np.linalg.solve(K, -np.append(g, 0.5 * (np.dot(w, w) - radius * radius)))
        w, mu = w + kkt[:d], max(mu + float(kkt[d]), 0.0)
    w = w * (radius / np.linalg.norm(w))
    grad = X.T @ loss.derivatives(X @ w, y)[1] / n + lam * w
    mu_hat = max(0.0, -float(np.dot(grad, w)) / (radius * radius))
    res = float(np.linalg.norm(grad + mu_hat * w))
    if res > tol:
        raise SolverError(
            "the constrained solver did not certify its KKT residual; nothing was released"
        )
    return w, res
