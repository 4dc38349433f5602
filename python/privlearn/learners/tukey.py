r"""TukeyEM: private linear regression by the exponential mechanism over the approximate Tukey
depth of non-private models fit on disjoint batches (Amin, Joseph, Ribero and Vassilvitskii,
"Easy differentially private linear regression", ICLR 2023, arXiv 2208.07353, Algorithms 1-2),
with the propose-test-release (PTR) check and restricted exponential mechanism of Brown,
Gaboardi, Smith, Ullman and Zakynthinou, "Covariance-aware private mean estimation without
private covariance estimation", NeurIPS 2021, arXiv 2106.13329 (Algorithm 1 and its PTR lemma).
It needs no bound on the features or the labels.

The algorithm
-------------
1. **Models.** A seeded permutation of the row *indices* ``0..n-1`` (data-independent: it depends
   on ``n`` and ``rng`` only) is cut into ``m`` batches of ``b = floor(n/m)`` rows (the last
   ``n - m b`` rows of the permutation are not used). On each batch ordinary least squares is fit
   (``numpy.linalg.lstsq``: the minimum-norm solution, defined for every finite batch), giving
   ``m`` points ``w_1..w_m`` of ``R^p`` (``p = d``, or ``d + 1`` with the intercept column).
2. **Approximate Tukey depth** (Amin et al., Definition 3.1): the depth of ``y`` is
   ``T(y) = min_j min(#{i : w_ij <= y_j}, #{i : w_ij >= y_j})`` (half-spaces along the axes only).
   The region of depth ``>= i`` is the box ``B_i = prod_j [s_j(i), s_j(m+1-i)]`` (``s_j(r)`` the
   ``r``-th smallest ``j``-th coordinate), of volume ``V_i``; ``V_i = 0`` for ``i > ceil(m/2)``.
3. **PTR** (``epsilon_1 = epsilon / 2``). With the restriction depth ``t = floor(floor(m/2)/2)``
   and ``eta = delta / (1 + delta)``, ``k(D)`` is the largest ``k`` in ``0..t-2`` such that
   ``V_{t-k-1} e^{-epsilon_2 g} <= eta V_{t+k+g+1}`` for some ``g >= 1`` with
   ``V_{t+k+g+1} > 0`` (``-1`` if none). It is released as ``k + Lap`` by
   :func:`privlearn.mechanisms.laplace` (exact, sensitivity 1, ``epsilon_1``) and the test passes
   when the noisy value exceeds ``b_L log(1/(2 delta))``, ``b_L`` the sampler's actual scale
   (``>= 1/epsilon_1``, from its own plan). On failure the release is the zero model.
4. **Restricted exponential mechanism.** On success, a depth ``i >= t`` is drawn with
   probability proportional to ``e^{epsilon_2 i} (V_i - V_{i+1})`` and then a point uniformly in
   the shell ``B_i \ B_{i+1}`` (the shell is cut into ``p`` disjoint boxes: the first coordinate
   outside ``B_{i+1}``'s interval decides the piece; the piece is chosen in proportion to its
   volume, then each coordinate uniformly). The point is the released model. The rate is
   ``epsilon_2 = (epsilon/2 - log(1 + delta)) / 2``.

Guarantee and its proof (replace-one, ``n`` public)
---------------------------------------------------
**Each fit is (epsilon, delta)-differentially private** with respect to replacing one row of
``(X, y)`` (``n`` public), with ``rng=None`` or an unseeded generator.

*One record changes one model.* The partition is a function of ``n`` and the seed only, so a
replaced row lies in the same batch on both datasets (or in none), and only that batch's model
can change. Every count ``#{i : w_ij <= y_j}`` then moves by at most one, so ``|T_D(y) -
T_D'(y)| <= 1`` for every ``y`` and ``B_{i+1}(D) ⊆ B_i(D') ⊆ B_{i-1}(D)``, hence
``V_{i+1}(D) <= V_i(D') <= V_{i-1}(D)``. (Under add/remove-one the batch boundaries of a
``floor(n/m)`` cut would shift and this fails: the learner is replace-one only.)

*k has sensitivity 1 and certifies safety.* If ``k`` satisfies the condition on ``D`` with some
``g``, then ``k - 1`` satisfies it on ``D'`` with the same ``g`` (the sandwich above), so
``|k(D) - k(D')| <= 1``; and ``k(D) >= 0`` means the condition holds at ``k = 0`` for ``D``
and for every dataset within Hamming distance ``k(D)``.

*The restricted mechanism is stable on a safe dataset.* (Our derivation, with our constants, of
the restricted-exponential-mechanism lemma of Brown et al. 2021, Section 3; we could not open
the papers' theorems, see below.) Let ``p_D(y) = e^{r T_D(y)} / Z_D`` on ``B_t(D)`` (``r`` the
rate, ``Z_D`` its integral) and call ``D`` *safe* when ``V_{t-1} e^{-r g} <= eta V_{t+g+1}`` with
``V_{t+g+1} > 0`` for some ``g >= 1`` (the condition at ``k = 0``). Let ``D'`` be any neighbour.

(i) ``Z_D >= e^{r (t+g+1)} V_{t+g+1} >= e^{r (t+1)} V_{t-1} / eta`` (the box ``B_{t+g+1}`` has
depth ``>= t+g+1``).
(ii) ``B_t(D') \ B_t(D)`` has ``D``-depth exactly ``t - 1`` (it lies in ``B_{t-1}(D)``) and
``B_t(D) \ B_t(D')`` has ``D``-depth exactly ``t`` (its ``D'``-depth is below ``t``); both have
volume at most ``V_{t-1}``. With ``|T_D - T_D'| <= 1`` and (i):
``Z_D' <= e^r (Z_D + e^{r(t-1)} V_{t-1}) <= e^r Z_D (1 + eta)`` and
``Z_D' >= e^{-r} (Z_D - e^{r t} V_{t-1}) >= e^{-r} Z_D (1 - eta)``.
(iii) ``P_D(B_t(D) \ B_t(D')) <= e^{rt} V_{t-1} / Z_D <= eta`` and
``P_D'(B_t(D') \ B_t(D)) <= e^{rt} V_{t-1} / Z_D' <= eta / (1 - eta)``.
(iv) On the common support ``p_D <= e^{2r} (1 + eta) p_D'`` and ``p_D' <= e^{2r} p_D / (1 - eta)``.
Hence for every set ``S``, in both directions, ``P(S) <= e^{2r} (1 + delta) P'(S) + delta``
(``1/(1 - eta) = 1 + delta``, ``eta/(1 - eta) = delta``): the two outputs are
``(2 r + log(1 + delta), delta)``-indistinguishable whenever *either* of them is safe. With
``r = epsilon_2 = (epsilon/2 - log(1 + delta))/2`` this is ``(epsilon/2, delta)``.

*The factor 2 is necessary.* The depth is not monotone under replace-one: moving the leftmost
model to the far right lowers the depth of every point left of the median by one and raises it
on the right, so ``Z_D'/Z_D`` tends to ``e^r`` when the right side carries most of the mass, and
the event "left of the median" then has probability ratio close to ``e^{2r}`` (loss ``2r``, far
above ``r``, on an event of probability 0.1 to 0.5, not a ``delta``-sized one). The audit in
``tests/test_audits_tukey_boosted.py`` measures it on such a pair: at rate ``epsilon/2`` the
release's loss there exceeds the ``epsilon/2`` the proof gives this step. So the rate is
``epsilon_2``, about ``epsilon/4``, and not ``epsilon/2``. This agrees with Brown and
Zakynthinou's implementation of Brown et al.'s mechanism (arXiv 2502.18698, its accompanying
code: the privacy parameter is split in half and the level is drawn at rate half of that share,
with the safety condition's ``e^{-eps g/2}`` matching). Amin et al.'s reference code
(google-research ``dp_regression/tukey.py``) draws the level at rate ``epsilon/2`` with a
safety condition written for rate ``epsilon/4`` (``e^{-epsilon g/4}``, constant
``delta/(8 e^{epsilon/2})``); by the argument above its sampling step is charged half of what
it can lose. We follow the proof, not that code (its PTR noise scale ``epsilon/2`` instead of
``2/epsilon`` is a second departure).

*PTR.* ``k + N`` (``N`` the exact Laplace noise of :func:`privlearn.mechanisms.laplace`,
sensitivity 1, ``epsilon_1``) is ``epsilon_1``-DP. ``N`` is a discrete Laplace of scale
``b_L`` (at most the plan's scale ``b``, used in the threshold) on a grid of step ``h <= 1``
that contains the integers, and
``P(N >= x) <= e^{-x/b_L} / (1 + e^{-h/b_L})``. An unsafe dataset has ``k = -1``, so it passes
(``k + N > b_L log(1/(2 delta))``) with probability at most
``2 delta e^{-1/b_L} / (1 + e^{-h/b_L}) <= delta`` (``e^{-x/b_L} <= e^{-x/b}`` and
``e^{-1/b_L} <= e^{-h/b_L}``).
For neighbours ``D, D'`` and a set ``S`` of outputs (the zero model on failure is a constant):

* if ``D`` is unsafe: ``P_D(S) <= P_D(fail, S) + P_D(pass) <= e^{epsilon_1} P_D'(fail, S) +
  delta``;
* if ``D`` or ``D'`` is safe: by (iv) first, then the Laplace bound on the first term only,
  ``P_D(pass, S) = P_D(pass) P(M_D in S) <= P_D(pass) (e^{epsilon/2} P(M_D' in S) + delta)
  <= e^{epsilon_1 + epsilon/2} P_D'(pass, S) + delta``, and the failure branch is
  ``epsilon_1``-close.

In all cases ``P_D(S) <= e^{epsilon} P_D'(S) + delta``: each fit is ``(epsilon, delta)``-DP
(``epsilon_1 = epsilon/2``). What is charged: one ``Budget(epsilon, delta)`` (an ``approx``
event). No step needs a bound on ``X`` or ``y``.

*Sources and what was checked.* The steps (batch OLS, axis-aligned depth, restriction depth
``t = floor(floor(m/2)/2)``, the distance bound ``k`` and its binary search, the threshold
``log(1/(2 delta))/epsilon_1``) are Amin et al.'s (Section 3 and Algorithms 1-2, as read in
their reference code; we could read only the papers' abstracts and the code, not the theorem
statements). Every inequality above was re-derived here for replace-one neighbours; the tests
recompute ``k`` and the level law from these formulas and audit the restricted step.

Numerics
--------
The PTR noise is exact (:func:`privlearn.mechanisms.laplace`, ``numerics="exact"``, uncharged:
the fit charges once). The depth level and the point are sampled in floating point from a
numpy generator seeded by 256 bits of ``rng`` (log-space weights, Gumbel-max for the level and
the piece, ``uniform`` for the coordinates): continuous outputs sampled in floating point are
not floating-point safe (Mironov 2012), like the L2-Laplace noise of output perturbation. The
level's weights are not a bounded-sensitivity score vector (their privacy is the PTR argument
above), so the library's exponential mechanism, whose API certifies a score sensitivity, is
not the right sampler for them. Ties between coordinates make some volumes 0: a level of zero
volume is never drawn, and ``V > 0`` is required in the PTR condition.

Which library does what: numpy computes the batch fits (``lstsq``, SVD-based), the sorting and
the sampling; privlearn's Rust core draws the PTR noise and the permutation of the indices.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Tuple

import numpy as np
from sklearn.base import BaseEstimator

from .. import _core
from .._validate import check_delta, check_epsilon, check_integer
from ..accounting._accountant import check_accountant
from ..errors import InvalidParameterError
from ..random import as_generator
from . import _base
from ._base import LinearRegressorMixin, PrivateEstimatorMixin

__all__ = ["TukeyEMRegressor", "tukey_default_models"]

#: Smallest number of models: the restriction depth ``t = floor(floor(m/2)/2)`` must be >= 2.
MIN_MODELS = 8


def tukey_default_models(n_samples: int, n_coefficients: int) -> int:
    """The default number of models ``m`` for ``n`` rows and ``p`` coefficients (intercept
    included): ``m = floor(n / (2 p))`` (batches of about ``2 p`` rows, as in Amin et al.'s
    experiments, which use ``m`` of 1,000 to 2,000 models on 22,000 rows of 11 coefficients).
    Depends on the public ``n`` and ``p`` only.

    Examples
    --------
    >>> tukey_default_models(20000, 6)
    1666
    """
    n = check_integer(n_samples, "n_samples", 1)
    p = check_integer(n_coefficients, "n_coefficients", 1)
    return n // (2 * p)


def partition(n: int, m: int, rng: Any) -> np.ndarray:
    """``m`` disjoint batches of ``floor(n/m)`` row indices, shape ``(m, floor(n/m))``: a
    permutation of ``0..n-1`` drawn from ``rng`` (data-independent), cut in order."""
    b = n // m
    perm = np.asarray(_core.permutation(n, rng), dtype=np.int64)
    return perm[: m * b].reshape(m, b)


def batch_models(X: np.ndarray, y: np.ndarray, batches: np.ndarray) -> np.ndarray:
    """The OLS model of each batch (rows ``batches[i]``), shape ``(m, p)``: the minimum-norm
    least-squares solution (``numpy.linalg.lstsq``). A function of the batch's rows only (a
    batch whose SVD does not converge gives the zero model, also a function of that batch)."""
    m = batches.shape[0]
    p = X.shape[1]
    models = np.zeros((m, p))
    for i in range(m):
        rows = batches[i]
        try:
            models[i] = np.linalg.lstsq(X[rows], y[rows], rcond=None)[0]
        except np.linalg.LinAlgError:  # pragma: no cover - SVD non-convergence on finite input
            models[i] = 0.0
    return models


def log_volumes(sorted_models: np.ndarray) -> np.ndarray:
    """``log V_i`` for ``i = 1..ceil(m/2)`` (index ``i - 1``): the log volume of the box of depth
    ``>= i``; ``-inf`` for a box with an empty or degenerate side. ``sorted_models`` is
    ``(p, m)``, each row sorted."""
    m = sorted_models.shape[1]
    top = (m + 1) // 2
    widths = sorted_models[:, ::-1][:, :top] - sorted_models[:, :top]
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(widths > 0, np.log(np.where(widths > 0, widths, 1.0)), -np.inf)
    return np.sum(logs, axis=0)


def _log_v(logv: np.ndarray, i: int) -> float:
    """``log V_i`` with ``V_i = 0`` beyond the deepest box (``i`` >= 1)."""
    return float(logv[i - 1]) if i <= logv.size else -math.inf


def safety_margin(logv: np.ndarray, t: int, rate: float, eta: float) -> int:
    """``k(D)``: the largest ``k`` in ``0..t-2`` with ``log V_{t-k-1} - rate g <= log eta +
    log V_{t+k+g+1}`` for some ``g >= 1`` with ``V_{t+k+g+1} > 0``, else ``-1``. The condition
    is monotone in ``k``, so a binary search finds the largest."""
    top = logv.size
    log_eta = math.log(eta)

    def holds(k: int) -> bool:
        lo = _log_v(logv, t - k - 1)
        for g in range(1, top - (t + k + 1) + 1):
            hi = _log_v(logv, t + k + g + 1)
            if hi > -math.inf and lo - rate * g <= log_eta + hi:
                return True
        return False

    lo_k, hi_k = -1, t - 2  # invariant: holds(lo_k) or lo_k == -1
    while lo_k < hi_k:
        mid = (lo_k + hi_k + 1) // 2
        if holds(mid):
            lo_k = mid
        else:
            hi_k = mid - 1
    return lo_k


def _gumbel_argmax(logw: np.ndarray, gen: np.random.Generator) -> int:
    """An index drawn with probability proportional to ``exp(logw)`` (``-inf``: never),
    by the Gumbel-max trick in floating point."""
    g = gen.gumbel(size=logw.shape)
    scores = np.where(np.isfinite(logw), logw + g, -np.inf)
    return int(np.argmax(scores))


def _log_diff(a: float, b: float) -> float:
    """``log(e^a - e^b)`` for ``a >= b`` (``-inf`` when equal)."""
    if b == -math.inf:
        return a
    if not a > b:
        return -math.inf
    return a + math.log(-math.expm1(b - a))


def restricted_sample(
    sorted_models: np.ndarray, t: int, rate: float, gen: np.random.Generator
) -> Tuple[np.ndarray, int]:
    """A point of density proportional to ``e^{rate T(y)}`` on the box of depth ``>= t``
    (``sorted_models`` is ``(p, m)``, rows sorted), and its depth level."""
    p, m = sorted_models.shape
    logv = log_volumes(sorted_models)
    top = logv.size
    levels = np.arange(t, top + 1)
    logw = np.array(
        [_log_diff(_log_v(logv, i), _log_v(logv, i + 1)) + rate * i for i in range(t, top + 1)]
    )
    i = int(levels[_gumbel_argmax(logw, gen)])

    def interval(depth: int, j: int) -> Tuple[float, float]:
        return float(sorted_models[j, depth - 1]), float(sorted_models[j, m - depth])

    def log_width(depth: int, j: int) -> float:
        if depth > top:
            return -math.inf
        a, b = interval(depth, j)
        return math.log(b - a) if b > a else -math.inf

    # Piece c: coordinates before c inside B_{i+1}, coordinate c in B_i minus B_{i+1}, after c in B_i.
    inner = np.array([log_width(i + 1, j) for j in range(p)])
    outer = np.array([log_width(i, j) for j in range(p)])
    ring = np.array([_log_diff(outer[j], inner[j]) for j in range(p)])
    logpiece = np.empty(p)
    for c in range(p):
        logpiece[c] = float(np.sum(inner[:c])) + ring[c] + float(np.sum(outer[c + 1 :]))
    c = _gumbel_argmax(logpiece, gen)
    point = np.empty(p)
    for j in range(p):
        if j < c:
            a, b = interval(i + 1, j)
            point[j] = gen.uniform(a, b)
        elif j > c:
            a, b = interval(i, j)
            point[j] = gen.uniform(a, b)
    a, b = interval(i, c)
    if i + 1 <= top:
        a2, b2 = interval(i + 1, c)
    else:  # B_{i+1} is empty along every side: its side is a point or empty
        a2 = b2 = a
    left, right = max(a2 - a, 0.0), max(b - b2, 0.0)
    if gen.uniform() * (left + right) < left:
        point[c] = gen.uniform(a, a2)
    else:
        point[c] = gen.uniform(b2, b)
    return point, i


class TukeyEMRegressor(PrivateEstimatorMixin, LinearRegressorMixin, BaseEstimator):
    r"""Private linear regression with no data bounds: TukeyEM (Amin, Joseph, Ribero and
    Vassilvitskii, ICLR 2023, Algorithms 1-2) with Brown et al.'s (NeurIPS 2021, Algorithm 1)
    propose-test-release check.

    Fits OLS on ``m`` disjoint batches (a seeded, data-independent partition of the row
    indices), then releases a model of high approximate Tukey depth among them by a restricted
    exponential mechanism, after a private check that the depth regions are stable. If the
    check fails the released model is zero (``coef_ = 0``, ``intercept_ = 0``;
    ``ptr_passed_ = False``): whether it fails is itself a private output.

    **Guarantee.** ``fit`` is ``(epsilon, delta)``-differentially private for replace-one
    neighbours (``n`` public), with ``rng=None`` or an unseeded generator; proof in
    :mod:`privlearn.learners.tukey` (one record changes one batch's model; ``epsilon/2`` for the
    PTR Laplace noise, ``epsilon/2`` for the restricted exponential mechanism, ``delta`` for the
    PTR failure). No bound on ``X`` or ``y`` is needed or used. It is not an add/remove-one
    guarantee. It needs many rows: ``floor(n/m)`` must be at least the number of coefficients
    ``p`` (``d``, plus one with the intercept), and the PTR check needs ``m/4`` well above
    ``2 log(1/(2 delta)) / epsilon``.

    Parameters
    ----------
    epsilon : float
        Finite and > 0.
    delta : float
        In ``(0, 1)``; required.
    n_models : int or "auto", default "auto"
        ``m``, at least 8. ``"auto"`` is :func:`tukey_default_models` ``(n, p) = floor(n/(2p))``
        (public ``n`` and ``p``).
    fit_intercept : bool, default True
        Append a constant column of ones; its coefficient is ``intercept_``.
    accountant : Accountant, optional
        Each fit spends ``Budget(epsilon, delta)``, only if it returns. Clones share it.
    rng : None, int or Generator, optional
        Randomness (:mod:`privlearn.random`): the partition, the PTR noise and the sampling. An
        integer seed makes the fit reproducible and not private.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : float
    ptr_passed_ : bool
        Whether the PTR check passed (a private output: part of the release).
    n_models_ : int
    restriction_depth_ : int
        ``t = floor(floor(m/2)/2)``.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.learners.tukey import TukeyEMRegressor
    >>> g = np.random.default_rng(0)
    >>> X = g.normal(size=(20000, 2))
    >>> y = X @ np.array([1.0, -2.0]) + 0.5 + 0.1 * g.normal(size=20000)
    >>> model = TukeyEMRegressor(2.0, 1e-6, rng=3).fit(X, y)   # seeded: not private
    >>> bool(model.ptr_passed_), bool(np.abs(model.coef_ - [1.0, -2.0]).max() < 0.1)
    (True, True)
    """

    def __init__(
        self,
        epsilon: Optional[float],
        delta: Optional[float],
        *,
        n_models: Any = "auto",
        fit_intercept: bool = True,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.n_models = n_models
        self.fit_intercept = fit_intercept
        self.accountant = accountant
        self.rng = rng

    # -- parameters ------------------------------------------------------------------------------

    def _params(self) -> Tuple[float, float, bool]:
        eps = check_epsilon(self.epsilon, exact=True)
        if self.delta is None:
            raise InvalidParameterError(
                "delta: TukeyEM is (epsilon, delta)-DP through its PTR step; delta in (0, 1) is "
                "required; got None",
                "delta",
            )
        delta = check_delta(self.delta, zero_ok=False, exact=True)
        fit_intercept = _base.boolean(self.fit_intercept, "fit_intercept")
        if not (isinstance(self.n_models, str) and self.n_models == "auto"):
            if isinstance(self.n_models, str):
                raise InvalidParameterError(
                    f"n_models: must be an integer >= {MIN_MODELS} or 'auto'; got {self.n_models!r}",
                    "n_models",
                )
            check_integer(self.n_models, "n_models", MIN_MODELS)
        check_accountant(self.accountant)
        if self.rates(eps, delta)[1] <= 0.0:
            raise InvalidParameterError(
                f"epsilon: too small for delta = {delta!r} (the exponential mechanism's share "
                "epsilon/2 - log(1 + delta) must be > 0)",
                "epsilon",
            )
        return eps, delta, fit_intercept

    @staticmethod
    def rates(epsilon: float, delta: float) -> Tuple[float, float, float]:
        """``(epsilon_1, epsilon_2, eta)``: the PTR's Laplace epsilon ``epsilon/2``, the
        exponential mechanism's rate ``(epsilon/2 - log(1 + delta))/2`` and the condition's
        ``eta = delta/(1 + delta)`` (module docstring)."""
        return epsilon / 2.0, (epsilon / 2.0 - math.log1p(delta)) / 2.0, delta / (1.0 + delta)

    def _n_models(self, n: int, p: int) -> int:
        """``m`` for the public ``n`` and ``p`` (checked: no data values in the messages)."""
        m = tukey_default_models(n, p) if isinstance(self.n_models, str) else int(self.n_models)
        if m < MIN_MODELS or n // m < p:
            raise InvalidParameterError(
                f"n_models: {m} models of floor(n/m) rows need floor(n/m) >= {p} coefficients "
                f"and m >= {MIN_MODELS}, but n = {n} (TukeyEM needs n >= {MIN_MODELS} * {p} "
                "rows at the very least, and many more to pass its privacy check)",
                "n_models",
            )
        return m

    def privacy_guarantee(self, n_samples: int) -> Any:
        """``Budget(epsilon, delta)`` of one fit on ``n_samples`` rows (replace-one)."""
        from ..accounting import Budget

        check_integer(n_samples, "n_samples", 1)
        eps, delta, _ = self._params()
        return Budget(eps, delta)

    # -- fit -------------------------------------------------------------------------------------

    def fit(self, X: Any, y: Any) -> "TukeyEMRegressor":
        """Fit on ``(X, y)``, spending ``(epsilon, delta)`` (see the class docstring).

        Raises
        ------
        InvalidParameterError
            On a bad parameter (``delta`` missing or outside ``(0, 1)``, a bad ``n_models``) or
            bad data (NaN, inf, wrong shapes), or too few rows for ``m`` batches of ``p`` rows
            (decided from ``n`` and ``p`` only); nothing is drawn or spent.
        BudgetExceededError
            If the accountant cannot pay; nothing is drawn.
        """
        eps, delta, fit_intercept = self._params()
        Xv, yv = _base.validate_Xy(self, X, y, classifier=False)
        n, d = Xv.shape
        p = d + 1 if fit_intercept else d
        m = self._n_models(n, p)
        t = (m // 2) // 2
        eps1, rate, eta = self.rates(eps, delta)

        def release() -> Tuple[np.ndarray, bool]:
            gen = as_generator(self.rng)
            batches = partition(n, m, gen)
            words = np.asarray(gen.random_raw(4), dtype=np.uint64)  # drawn whatever happens
            Xa = np.hstack([Xv, np.ones((n, 1))]) if fit_intercept else Xv
            models = batch_models(Xa, yv, batches)
            sorted_models = np.sort(models.T, axis=1)
            k = safety_margin(log_volumes(sorted_models), t, rate, eta)
            from ..mechanisms import laplace

            noisy = float(laplace(float(k), 1.0, eps1, rng=gen))
            scale = _core.laplace_plan(1.0, eps1, 1)[1]
            if not noisy > scale * math.log(1.0 / (2.0 * delta)):
                return np.zeros(p), False
            point, _ = restricted_sample(sorted_models, t, rate, np.random.default_rng(words))
            return point, True

        w, passed = _base.charged(self.accountant, eps, type(self).__name__, release, delta=delta)
        if fit_intercept:
            self.coef_, self.intercept_ = np.asarray(w[:-1], dtype=np.float64), float(w[-1])
        else:
            self.coef_, self.intercept_ = np.asarray(w, dtype=np.float64), 0.0
        self.ptr_passed_ = bool(passed)
        self.n_models_ = m
        self.restriction_depth_ = t
        return self
